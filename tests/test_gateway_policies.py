"""Gateway policies on the stream parser, the accumulators and translate_stream (when a call is
released; what a call to a tool that was not offered becomes), and SDK objects accepted wherever
a body, message, chunk or event is."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

import pytest
import toolwire
from hypothesis import given
from hypothesis import strategies as st
from support import load_jsonl
from toolwire import (
    InvalidToolCall,
    OpenAIStreamAccumulator,
    StreamParser,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    translate_stream,
)

STREAMS = load_jsonl("streams.jsonl")
SSE = [s for s in STREAMS if "openai_chunks" in s]
TEXT = [s for s in STREAMS if s["calls"] and "openai_chunks" not in s]
WEATHER = {
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


def pieces(text: str, cuts: Iterable[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(points) if b > a]


def batches(feed: Any, finish: Any, items: Iterable[Any]) -> list[list[Any]]:
    """The events of each feed, and of finish, as separate lists."""
    return [feed(item) for item in items] + [finish()]


def assert_released_whole(runs: list[list[Any]]) -> None:
    """Under "complete": each call's start, arguments and end come in one batch, together."""
    for events in runs:
        for at, event in enumerate(events):
            if isinstance(event, ToolCallStart):
                rest = events[at + 1 :]
                assert any(isinstance(e, ToolCallEnd) and e.index == event.index for e in rest)
            if isinstance(event, ToolCallDelta | ToolCallEnd):
                before = events[:at]
                assert any(isinstance(e, ToolCallStart) and e.index == event.index for e in before)


def calls_of(runs: list[list[Any]]) -> list[tuple[str, Any]]:
    return [(e.call.name, e.call.arguments) for r in runs for e in r if isinstance(e, ToolCallEnd)]


def text_call(name: str, arguments: dict[str, Any]) -> str:
    call = json.dumps({"name": name, "arguments": arguments})
    return f"Checking.\n~~~tool_call\n{call}\n~~~\n"


# ----- release ----------------------------------------------------------------------------------


@given(st.sampled_from(TEXT), st.lists(st.integers(0, 10**5), max_size=12))
def test_complete_sends_nothing_of_a_call_before_it_ends(
    stream: dict[str, Any], cuts: list[int]
) -> None:
    text, tools = stream["text"], stream["tools"]
    chunks = pieces(text, cuts)
    eager = StreamParser(tools=tools)
    expected = calls_of(batches(eager.feed, eager.finish, chunks))
    parser = StreamParser(tools=tools, release="complete")
    runs = batches(parser.feed, parser.finish, chunks)
    assert_released_whole(runs)
    assert calls_of(runs) == expected
    # The same policy on an accumulator and on a translation.
    source = [{"choices": [{"index": 0, "delta": {"content": piece}}]} for piece in chunks]
    acc = OpenAIStreamAccumulator(text_formats="auto", tools=tools, release="complete")
    runs = batches(acc.feed, acc.finish, source)
    assert_released_whole(runs)
    assert calls_of(runs) == expected


@pytest.mark.parametrize("stream", SSE[::5], ids=lambda s: s["id"])
def test_complete_on_native_streams_and_translations(stream: dict[str, Any]) -> None:
    acc = OpenAIStreamAccumulator(release="complete")
    runs = batches(acc.feed, acc.finish, stream["openai_chunks"])
    assert_released_whole(runs)
    assert [(c.name, c.arguments) for c in acc.calls] == [
        (c["name"], c["arguments"]) for c in stream["calls"]
    ]
    translator = toolwire.StreamTranslator(source="openai", target="anthropic", release="complete")
    out = batches(translator.feed, translator.finish, stream["openai_chunks"])
    for objects in out:  # a tool_use block opens and closes in the same batch
        starts = [o for o in objects if o.get("content_block", {}).get("type") == "tool_use"]
        stops = {o["index"] for o in objects if o["type"] == "content_block_stop"}
        assert all(o["index"] in stops for o in starts)


def test_a_broken_call_is_held_back_under_complete() -> None:
    broken = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "c1",
                                "function": {"name": "f", "arguments": '{"a": '},
                            }
                        ]
                    },
                }
            ]
        },
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    eager = OpenAIStreamAccumulator()
    assert [e.kind for r in batches(eager.feed, eager.finish, broken) for e in r] == [
        "tool_call_start",
        "tool_call_delta",
        "invalid_tool_call",
    ]
    held = OpenAIStreamAccumulator(release="complete")
    events = [e for r in batches(held.feed, held.finish, broken) for e in r]
    assert [e.kind for e in events] == ["invalid_tool_call"]
    assert events[0].raw == '{"a": '
    translator = toolwire.StreamTranslator(source="openai", target="anthropic", release="complete")
    out = [o for r in batches(translator.feed, translator.finish, broken) for o in r]
    assert not any(o.get("content_block", {}).get("type") == "tool_use" for o in out)
    assert out[-2]["delta"]["stop_reason"] == "end_turn"  # no call was written
    assert [c.raw for c in translator.invalid_calls] == ['{"a": ']


def test_valid_never_starts_an_invalid_call() -> None:
    text = text_call("get_weather", {"town": "Oslo"}) + text_call("get_weather", {"city": "Oslo"})
    for chunks in ([text], list(text)):
        parser = StreamParser(tools=[WEATHER], release="valid")
        events = [e for r in batches(parser.feed, parser.finish, chunks) for e in r]
        kinds = [e.kind for e in events if e.kind != "text_delta"]
        assert kinds == ["invalid_tool_call", "tool_call_start", "tool_call_delta", "tool_call_end"]
        [invalid] = [e for e in events if isinstance(e, InvalidToolCall)]
        assert "missing required properties: city" in invalid.error
        assert (invalid.index, invalid.name, json.loads(invalid.raw)) == (
            0,
            "get_weather",
            {"town": "Oslo"},
        )
        assert [e.index for e in events if isinstance(e, ToolCallStart)] == [1]


@given(st.sampled_from(SSE), st.lists(st.integers(0, 10**5), max_size=8))
def test_valid_releases_exactly_the_calls_that_validate(
    stream: dict[str, Any], cuts: list[int]
) -> None:
    tools = [toolwire.Tool.from_dict(t) for t in stream["tools"]]
    by_name = {t.name: t for t in tools}
    acc = OpenAIStreamAccumulator(tools=tools, release="valid")
    runs = batches(acc.feed, acc.finish, stream["openai_chunks"])
    assert_released_whole(runs)
    for call in stream["calls"]:
        problems = toolwire.validate_arguments(by_name[call["name"]], call["arguments"])
        released = [c for c in acc.calls if c.arguments == call["arguments"]]
        rejected = [c for c in acc.invalid_calls if json.loads(c.raw) == call["arguments"]]
        assert (bool(released), bool(rejected)) == (not problems, bool(problems))


# ----- unknown tools ----------------------------------------------------------------------------


def test_unknown_tools_per_policy() -> None:
    text = text_call("rm_rf", {"path": "/"}) + text_call("get_weather", {"city": "Oslo"})
    names = {}
    for policy in ("keep", "invalid", "drop"):
        parser = StreamParser(tools=[WEATHER], unknown_tools=policy)
        events = parser.feed(text) + parser.finish()
        names[policy] = [
            (e.kind, getattr(e, "name", None), e.index)
            for e in events
            if e.kind in ("tool_call_start", "invalid_tool_call")
        ]
    assert names["keep"] == [("tool_call_start", "rm_rf", 0), ("tool_call_start", "get_weather", 1)]
    assert names["invalid"] == [
        ("invalid_tool_call", "rm_rf", 0),
        ("tool_call_start", "get_weather", 1),
    ]
    assert names["drop"] == [("tool_call_start", "get_weather", 0)]
    parser = StreamParser(tools=[WEATHER], unknown_tools="invalid")
    [invalid] = [e for e in parser.feed(text) + parser.finish() if isinstance(e, InvalidToolCall)]
    assert invalid.error == "tool call 0 ('rm_rf'): tool 'rm_rf' is not among the tools offered"
    assert json.loads(invalid.raw) == {"path": "/"} and invalid.protocol == "text_tagged"


def test_unknown_tools_on_accumulators_and_translations() -> None:
    stream = SSE[0]
    other = [{"name": "something_else", "parameters": {"type": "object"}}]
    kept = OpenAIStreamAccumulator(tools=other)
    for chunk in stream["openai_chunks"]:
        kept.feed(chunk)
    kept.finish()
    assert len(kept.calls) == len(stream["calls"])
    dropped = OpenAIStreamAccumulator(tools=other, unknown_tools="drop")
    events = [e for c in stream["openai_chunks"] for e in dropped.feed(c)] + dropped.finish()
    assert dropped.calls == [] and dropped.invalid_calls == []
    assert not [e for e in events if e.kind.startswith("tool_call")]
    out = list(
        translate_stream(
            stream["openai_chunks"],
            source="openai",
            target="gemini",
            tools=other,
            unknown_tools="invalid",
        )
    )
    assert not any("functionCall" in json.dumps(o) for o in out)
    assert out[-1]["candidates"][0]["finishReason"] == "STOP"


def test_policies_that_need_tools_say_so() -> None:
    for make in (StreamParser, OpenAIStreamAccumulator, toolwire.GeminiStreamAccumulator):
        with pytest.raises(ValueError, match="tools="):
            make(release="valid")
        with pytest.raises(ValueError, match="tools="):
            make(unknown_tools="drop")
        with pytest.raises(ValueError, match="release must be"):
            make(release="lazy")
        with pytest.raises(ValueError, match="unknown_tools must be"):
            make(tools=[WEATHER], unknown_tools="ignore")
    with pytest.raises(ValueError, match="tools="):
        translate_stream([], source="openai", target="anthropic", release="valid")
    with pytest.raises(toolwire.ToolDefinitionError):
        StreamParser(tools=[{"parameters": {}}], release="complete")


def test_reset_forgets_held_calls() -> None:
    parser = StreamParser(release="complete")
    parser.feed('~~~tool_call\n{"name": "f", "arguments": {"a"')
    parser.reset()
    events = parser.feed(text_call("g", {})) + parser.finish()
    assert [e.index for e in events if isinstance(e, ToolCallStart)] == [0]


# ----- SDK objects ------------------------------------------------------------------------------


def dumped(obj: Any) -> Any:
    if isinstance(obj, list):
        return [item.model_dump() for item in obj]
    return obj.model_dump()


def same_results(function: Any, obj: Any, *args: Any, **kwargs: Any) -> None:
    ours, theirs = function(obj, *args, **kwargs), function(dumped(obj), *args, **kwargs)
    assert ours == theirs and ours, function.__name__


def test_openai_sdk_objects() -> None:
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "logprobs": None,
                "message": {
                    "role": "assistant",
                    "content": "Sure.",
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                        }
                    ],
                },
            }
        ],
    }
    completion = ChatCompletion.model_validate(body)
    same_results(toolwire.extract, completion)
    same_results(toolwire.decode_tool_calls, completion, "openai")
    message = completion.choices[0].message
    same_results(toolwire.decode_tool_calls, message, "openai")
    same_results(toolwire.convert_message, message, "openai", "anthropic")
    same_results(toolwire.extract, message.tool_calls)  # a list of SDK calls
    same_results(toolwire.parse_native, message.tool_calls)
    for stream in SSE[:10]:
        chunks = [ChatCompletionChunk.model_validate(c) for c in stream["openai_chunks"]]
        from_objects, from_dicts = OpenAIStreamAccumulator(), OpenAIStreamAccumulator()
        for chunk in chunks:
            assert from_objects.feed(chunk) == from_dicts.feed(dumped(chunk))
        assert from_objects.finish() == from_dicts.finish()
        assert (from_objects.calls, from_objects.usage) == (from_dicts.calls, from_dicts.usage)


def test_anthropic_sdk_objects() -> None:
    import pydantic
    from anthropic.types import Message, RawMessageStreamEvent

    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
        "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
        ],
    }
    message = Message.model_validate(body)
    same_results(toolwire.extract, message)
    same_results(toolwire.decode_tool_calls, message, "anthropic")
    same_results(toolwire.convert_message, message, "anthropic", "openai")
    # The content block list on its own, as SDK objects and as dicts.
    same_results(toolwire.decode_tool_calls, message.content, "anthropic")
    same_results(toolwire.extract, message.content)
    same_results(toolwire.convert_message, message.content, "anthropic", "openai")
    assert toolwire.extract(body["content"]) == toolwire.extract(body)
    adapter = pydantic.TypeAdapter(RawMessageStreamEvent)
    for stream in SSE[:10]:
        # (`ping` is no RawMessageStreamEvent: the SDK drops it before parsing.)
        events = [
            adapter.validate_python(e) for e in stream["anthropic_events"] if e["type"] != "ping"
        ]
        from_objects = toolwire.AnthropicStreamAccumulator()
        from_dicts = toolwire.AnthropicStreamAccumulator()
        for event in events:
            assert from_objects.feed(event) == from_dicts.feed(dumped(event))
        assert from_objects.calls == from_dicts.calls and from_objects.calls


def test_litellm_objects() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import
    litellm = pytest.importorskip("litellm")
    from litellm.types.utils import ModelResponseStream

    response = litellm.ModelResponse(
        id="chatcmpl-1",
        model="m",
        choices=[
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                        }
                    ],
                },
            }
        ],
    )
    same_results(toolwire.extract, response)
    same_results(toolwire.decode_tool_calls, response, "openai")
    same_results(toolwire.convert_message, response, "openai", "anthropic")
    stream = SSE[3]
    chunks = [ModelResponseStream(**c) for c in stream["openai_chunks"]]
    from_objects, from_dicts = OpenAIStreamAccumulator(), OpenAIStreamAccumulator()
    for chunk in chunks:
        from_objects.feed(chunk)
        from_dicts.feed(dumped(chunk))
    from_objects.finish()
    from_dicts.finish()
    assert from_objects.calls == from_dicts.calls
    assert [(c.name, c.arguments) for c in from_objects.calls] == [
        (c["name"], c["arguments"]) for c in stream["calls"]
    ]


def test_duck_typed_objects_everywhere() -> None:
    """Any object with `model_dump` (pydantic) or `to_dict` is read as its data; results too."""

    class Dumped:
        def __init__(self, data: Any) -> None:
            self.data = data

        def to_dict(self) -> Any:
            return self.data

    results = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}],
    }
    assert toolwire.decode_results(Dumped(results), "anthropic") == toolwire.decode_results(
        results, "anthropic"
    )
    assert toolwire.decode_results(results["content"], "anthropic")[0].content == "sunny"
    chunk = {
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}],
        },
        "done": True,
    }
    acc = toolwire.OllamaStreamAccumulator()
    acc.feed(Dumped(chunk))
    assert [(c.name, c.arguments) for c in acc.calls] == [("f", {"a": 1})]
    with pytest.raises(TypeError, match="stream item"):
        OpenAIStreamAccumulator().feed(42)


def consistent(events: Sequence[Any]) -> None:
    """Every delta and end follows its call's start (indices renumbered consistently)."""
    started: set[int] = set()
    for event in events:
        if isinstance(event, ToolCallStart):
            started.add(event.index)
        elif isinstance(event, ToolCallDelta | ToolCallEnd):
            assert event.index in started


@given(
    st.sampled_from(TEXT),
    st.sampled_from(["keep", "invalid", "drop"]),
    st.sampled_from(["eager", "complete"]),
    st.lists(st.integers(0, 10**5), max_size=8),
)
def test_policies_keep_events_consistent(
    stream: dict[str, Any], unknown: str, release: str, cuts: list[int]
) -> None:
    tools = stream["tools"][:1]
    parser = StreamParser(tools=tools, release=release, unknown_tools=unknown)
    events = [
        e for r in batches(parser.feed, parser.finish, pieces(stream["text"], cuts)) for e in r
    ]
    consistent(events)
    indices = [e.index for e in events if isinstance(e, ToolCallEnd | InvalidToolCall)]
    assert sorted(indices) == list(range(len(indices)))
