"""Stream codecs for gateways: every stream of the corpus through every accumulator → encoder
pair, in random chunkings, round-trips to the same calls, content and reasoning; the encoders'
SSE read back by the official `openai` and `anthropic` SDKs' own stream parsers (no network:
the bytes go through an httpx MockTransport); the text-written-calls path."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterable, Sequence
from typing import Any

import pytest
import toolwire
from hypothesis import given
from hypothesis import strategies as st
from support import load_jsonl
from toolwire import (
    InvalidToolCall,
    ReasoningDelta,
    StreamEncoder,
    StreamParser,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    frame_stream,
    translate_stream,
)

PROVIDERS = ("openai", "openai_responses", "anthropic", "ollama", "gemini")
ACCUMULATORS: dict[str, Any] = {
    "openai": toolwire.OpenAIStreamAccumulator,
    "openai_responses": toolwire.ResponsesStreamAccumulator,
    "anthropic": toolwire.AnthropicStreamAccumulator,
    "ollama": toolwire.OllamaStreamAccumulator,
    "gemini": toolwire.GeminiStreamAccumulator,
}
STREAMS = load_jsonl("streams.jsonl")
# The corpus's provider sequences: recorded OpenAI chunks and Anthropic events.
SSE = [s for s in STREAMS if "openai_chunks" in s]
# Model text in a format the engine reads, for the text-written-calls path.
TEXT = [s for s in STREAMS if s["protocol"] != "raw_json" and "openai_chunks" not in s]

Summary = tuple[str, str | None, list[tuple[str, str, Any]]]


def accumulate(provider: str, items: Iterable[Any], **options: Any) -> tuple[Any, list[Any]]:
    acc = ACCUMULATORS[provider](**options)
    events = [event for item in items for event in acc.feed(item)]
    return acc, events + acc.finish()


def summary(acc: Any) -> Summary:
    assert acc.invalid_calls == []
    return acc.content, acc.reasoning, [(c.id, c.name, c.arguments) for c in acc.calls]


def merged(events: Sequence[Any]) -> list[Any]:
    """Adjacent text, reasoning and same-call argument deltas joined."""
    out: list[Any] = []
    for event in events:
        last = out[-1] if out else None
        if isinstance(event, TextDelta) and isinstance(last, TextDelta):
            out[-1] = TextDelta(last.text + event.text)
        elif isinstance(event, ReasoningDelta) and isinstance(last, ReasoningDelta):
            out[-1] = ReasoningDelta(last.text + event.text)
        elif (
            isinstance(event, ToolCallDelta)
            and isinstance(last, ToolCallDelta)
            and last.index == event.index
        ):
            out[-1] = ToolCallDelta(event.index, last.arguments + event.arguments)
        else:
            out.append(event)
    return out


def recut(events: Sequence[Any], cuts: Sequence[int]) -> list[Any]:
    """The same events with every text and argument run cut at other points."""
    out: list[Any] = []
    for event in merged(events):
        match event:
            case TextDelta(text) | ReasoningDelta(text):
                out.extend(type(event)(piece) for piece in pieces(text, cuts))
            case ToolCallDelta(index, arguments):
                out.extend(ToolCallDelta(index, piece) for piece in pieces(arguments, cuts))
            case _:
                out.append(event)
    return out


def pieces(text: str, cuts: Iterable[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(points) if b > a]


def encoded(events: Sequence[Any], provider: str, **finish: Any) -> list[dict[str, Any]]:
    encoder = StreamEncoder(provider, model="test-model")
    return encoder.encode(events) + encoder.finish(**finish)


def openai_events(stream: dict[str, Any]) -> tuple[list[Any], Summary]:
    acc, events = accumulate("openai", stream["openai_chunks"])
    return events, summary(acc)


# ----- round trips ---------------------------------------------------------------------------


@pytest.mark.parametrize("stream", SSE, ids=lambda s: s["id"])
def test_recorded_streams_translate_to_every_provider(stream: dict[str, Any]) -> None:
    """The recorded OpenAI and Anthropic sequences, translated to every provider and read back
    by that provider's accumulator, give what the source gives."""
    for source, items in (
        ("openai", stream["openai_chunks"]),
        ("anthropic", stream["anthropic_events"]),
    ):
        expected = summary(accumulate(source, items)[0])
        for target in PROVIDERS:
            out = list(translate_stream(items, source=source, target=target))
            assert summary(accumulate(target, out)[0]) == expected, (source, target)


@given(st.sampled_from(SSE), st.lists(st.integers(0, 10**5), max_size=10))
def test_every_accumulator_encoder_pair_round_trips_in_any_chunking(
    stream: dict[str, Any], cuts: list[int]
) -> None:
    events, expected = openai_events(stream)
    events = recut(events, cuts)
    for source in PROVIDERS:
        chunks = encoded(events, source)
        assert summary(accumulate(source, chunks)[0]) == expected, source
        for target in PROVIDERS:
            out = list(translate_stream(chunks, source=source, target=target))
            assert summary(accumulate(target, out)[0]) == expected, (source, target)


def test_argument_fragments_are_the_models_own_bytes() -> None:
    for stream in SSE[:20]:
        events, _ = openai_events(stream)
        raw = {
            i: "".join(e.arguments for e in events if isinstance(e, ToolCallDelta) and e.index == i)
            for i in {e.index for e in events if isinstance(e, ToolCallStart)}
        }
        for target in ("openai", "openai_responses", "anthropic"):
            out = list(translate_stream(stream["openai_chunks"], source="openai", target=target))
            _, back = accumulate(target, out)
            for index, text in raw.items():
                assert text == "".join(
                    e.arguments for e in back if isinstance(e, ToolCallDelta) and e.index == index
                )


def test_metadata_passes_through() -> None:
    stream = SSE[0]
    usage = {"input_tokens": 385, "output_tokens": 55, "cached_input_tokens": 0}
    acc, _ = accumulate("anthropic", stream["anthropic_events"])
    assert (acc.usage, acc.finish_reason) == (usage, "tool_calls")
    assert acc.model == "claude-3-5-haiku-20241022" and acc.response_id.startswith("msg_")
    for target in PROVIDERS:
        out = list(translate_stream(stream["anthropic_events"], source="anthropic", target=target))
        back, _ = accumulate(target, out)
        assert {k: back.usage[k] for k in ("input_tokens", "output_tokens")} == {
            "input_tokens": 385,
            "output_tokens": 55,
        }, target
        assert back.finish_reason == "tool_calls", target
        assert back.model == acc.model, target
    renamed = list(
        translate_stream(
            stream["anthropic_events"],
            source="anthropic",
            target="openai",
            model="gateway",
            response_id="chatcmpl-1",
        )
    )
    assert {(c["model"], c["id"]) for c in renamed} == {("gateway", "chatcmpl-1")}
    # A length cut and cached tokens survive too.
    encoder = StreamEncoder("anthropic")
    chunks = encoder.encode([TextDelta("x")]) + encoder.finish(
        finish_reason="length",
        usage={"input_tokens": 10, "output_tokens": 3, "cached_input_tokens": 4},
    )
    for target in PROVIDERS:
        back, _ = accumulate(target, translate_stream(chunks, source="anthropic", target=target))
        assert back.finish_reason == "length", target
        assert back.usage["input_tokens"] == 10 and back.usage["output_tokens"] == 3, target


@given(st.sampled_from(TEXT), st.lists(st.integers(0, 10**5), max_size=10))
def test_text_written_calls_become_native_calls(stream: dict[str, Any], cuts: list[int]) -> None:
    """Upstream `content` with markup in (a raw model served without a tool parser), native call
    deltas out: the calls, content and reasoning the stream engine reads in the text."""
    text, tools = stream["text"], stream["tools"]
    parser = StreamParser(tools=tools)
    expected = parser.feed(text) + parser.finish()
    content = "".join(e.text for e in expected if isinstance(e, TextDelta))
    calls = [(e.call.name, e.call.arguments) for e in expected if isinstance(e, ToolCallEnd)]
    assert len(calls) == len(stream["calls"])
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": piece}}]} for piece in pieces(text, cuts)
    ]
    for target in PROVIDERS:
        out = list(
            translate_stream(
                chunks, source="openai", target=target, text_formats="auto", tools=tools
            )
        )
        back, _ = accumulate(target, out)
        assert back.content == content, target
        assert [(c.name, c.arguments) for c in back.calls] == calls, target
        assert back.finish_reason == ("tool_calls" if calls else "stop"), target
    # Without text_formats the markup stays content.
    acc, _ = accumulate("openai", chunks)
    assert (acc.content, acc.calls) == (text, [])


def test_async_translation() -> None:
    stream = SSE[1]

    async def items() -> Any:
        for item in stream["openai_chunks"]:
            yield item

    async def collect() -> list[dict[str, Any]]:
        chunks = toolwire.atranslate_stream(items(), source="openai", target="anthropic")
        return [chunk async for chunk in chunks]

    out = asyncio.run(collect())
    assert out == list(
        translate_stream(
            stream["openai_chunks"],
            source="openai",
            target="anthropic",
            response_id=out[0]["message"]["id"],
        )
    )


# ----- the official SDKs read our streams ----------------------------------------------------


def mock_client(sdk: Any, body: bytes) -> Any:
    """An HTTP client of the SDK's own HTTP package (`httpx`, or `httpx2` in newer SDKs) that
    answers every request with `body` as an event stream."""
    http = getattr(sdk._base_client, "httpx2", None) or sdk._base_client.httpx

    def respond(request: Any) -> Any:
        return http.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return http.Client(transport=http.MockTransport(respond))


def wire(chunks: Iterable[dict[str, Any]], provider: str) -> bytes:
    return "".join(frame_stream(chunks, provider)).encode()


def expected_calls(stream: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(c["name"], c["arguments"]) for c in stream["calls"]]


@pytest.mark.parametrize("stream", SSE[::4], ids=lambda s: s["id"])
def test_openai_sdk_reads_our_chat_completions_stream(stream: dict[str, Any]) -> None:
    import openai

    out = translate_stream(stream["anthropic_events"], source="anthropic", target="openai")
    client = openai.OpenAI(
        api_key="test",
        base_url="http://test.invalid/v1",
        http_client=mock_client(openai, wire(out, "openai")),
    )
    with client.chat.completions.stream(
        model="m", messages=[{"role": "user", "content": "x"}]
    ) as s:
        final = s.get_final_completion()
    [choice] = final.choices
    calls = [
        (c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls or []
    ]
    assert calls == expected_calls(stream)
    assert choice.message.content == (stream["anthropic_text"] or None)
    assert choice.finish_reason == "tool_calls"
    start = stream["anthropic_events"][0]["message"]["usage"]
    [delta] = [e for e in stream["anthropic_events"] if e["type"] == "message_delta"]
    assert final.usage is not None
    assert (final.usage.prompt_tokens, final.usage.completion_tokens) == (
        start["input_tokens"]
        + start["cache_read_input_tokens"]
        + start["cache_creation_input_tokens"],
        delta["usage"]["output_tokens"],
    )


@pytest.mark.parametrize("stream", SSE[::4], ids=lambda s: s["id"])
def test_anthropic_sdk_reads_our_messages_stream(stream: dict[str, Any]) -> None:
    import anthropic

    out = translate_stream(stream["openai_chunks"], source="openai", target="anthropic", model="m")
    client = anthropic.Anthropic(
        api_key="test",
        base_url="http://test.invalid",
        http_client=mock_client(anthropic, wire(out, "anthropic")),
    )
    with client.messages.stream(
        model="m", max_tokens=10, messages=[{"role": "user", "content": "x"}]
    ) as s:
        message = s.get_final_message()
    calls = [(b.name, b.input) for b in message.content if b.type == "tool_use"]
    assert calls == expected_calls(stream)
    text = "".join(b.text for b in message.content if b.type == "text")
    assert text == (stream["openai_content"] or "")
    assert message.stop_reason == "tool_use"


@pytest.mark.parametrize("stream", SSE[::4], ids=lambda s: s["id"])
def test_openai_sdk_reads_our_responses_stream(stream: dict[str, Any]) -> None:
    import openai

    out = translate_stream(
        stream["anthropic_events"], source="anthropic", target="openai_responses"
    )
    client = openai.OpenAI(
        api_key="test",
        base_url="http://test.invalid/v1",
        http_client=mock_client(openai, wire(out, "openai_responses")),
    )
    with client.responses.stream(model="m", input="x") as s:
        response = s.get_final_response()
    calls = [
        (i.name, json.loads(i.arguments)) for i in response.output if i.type == "function_call"
    ]
    assert calls == expected_calls(stream)
    assert response.output_text == (stream["anthropic_text"] or "")


def test_encoders_write_what_each_provider_sends() -> None:
    events = [
        ReasoningDelta("Hm."),
        TextDelta("On it."),
        ToolCallStart(0, "call_1", "get_weather"),
        ToolCallDelta(0, '{"city": '),
        ToolCallDelta(0, '"Oslo"}'),
        ToolCallEnd(0, ToolCall("call_1", "get_weather", {"city": "Oslo"})),
    ]
    openai = encoded(events, "openai", usage={"input_tokens": 5, "output_tokens": 2})
    assert openai[0]["choices"][0]["delta"] == {"role": "assistant", "content": None}
    assert openai[3]["choices"][0]["delta"]["tool_calls"] == [
        {
            "index": 0,
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": ""},
        }
    ]
    assert openai[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert openai[-1]["usage"] == {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    anthropic = encoded(events, "anthropic")
    assert [e["type"] for e in anthropic] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert anthropic[7]["content_block"] == {
        "type": "tool_use",
        "id": "call_1",
        "name": "get_weather",
        "input": {},
    }
    assert anthropic[-2]["delta"]["stop_reason"] == "tool_use"
    gemini = encoded(events, "gemini")
    assert gemini[2]["candidates"][0]["content"]["parts"] == [
        {"functionCall": {"id": "call_1", "name": "get_weather", "args": {"city": "Oslo"}}}
    ]
    ollama = encoded(events, "ollama")
    assert ollama[2]["message"]["tool_calls"] == [
        {
            "id": "call_1",
            "function": {"index": 0, "name": "get_weather", "arguments": {"city": "Oslo"}},
        }
    ]
    assert ollama[-1]["done"] is True
    responses = encoded(events, "openai_responses")
    assert responses[-1]["type"] == "response.completed"
    assert [i["type"] for i in responses[-1]["response"]["output"]] == [
        "reasoning",
        "message",
        "function_call",
    ]
    # Framing: SSE with event lines where objects carry a type; NDJSON for Ollama.
    assert toolwire.frame_chunk(anthropic[-1], "anthropic") == (
        'event: message_stop\ndata: {"type":"message_stop"}\n\n'
    )
    assert toolwire.frame_chunk(ollama[-1], "ollama").endswith("}\n")
    assert list(frame_stream([], "openai")) == ["data: [DONE]\n\n"]


def test_encoder_and_translator_options_are_checked() -> None:
    with pytest.raises(ValueError, match="provider must be"):
        StreamEncoder("auto")
    with pytest.raises(ValueError, match="provider must be"):
        translate_stream([], source="openai", target="nope")
    encoder = StreamEncoder("openai")
    with pytest.raises(TypeError, match="stream events"):
        encoder.encode([{"kind": "text_delta"}])
    with pytest.raises(ValueError, match="finish_reason"):
        encoder.finish(finish_reason="done")
    with pytest.raises(ValueError, match="unknown usage key"):
        StreamEncoder("openai").finish(usage={"prompt_tokens": 1})
    with pytest.raises(TypeError):
        toolwire.frame_chunk("data: {}", "openai")  # type: ignore[arg-type]
    # A stream item that is not JSON at all is the transport's fault, not the model's.
    not_json = r'not JSON \(.* at byte 1\): "\{not json"'
    with pytest.raises(toolwire.ProviderFormatError, match=not_json):
        toolwire.OpenAIStreamAccumulator().feed("data: {not json")


def test_a_broken_call_is_not_announced_where_blocks_follow_one_another() -> None:
    """An Anthropic or Responses block can only be written once the block before it ended: a
    call that fails while it waits is never announced."""
    events = [
        ToolCallStart(0, "a", "f"),
        ToolCallStart(1, "b", "g"),
        ToolCallDelta(1, '{"x": '),
        InvalidToolCall('{"x": ', "bad", "native", 1, None, "g"),
        ToolCallDelta(0, "{}"),
        ToolCallEnd(0, ToolCall("a", "f", {})),
    ]
    for provider in ("anthropic", "openai_responses"):
        acc, _ = accumulate(provider, encoded(events, provider))
        assert [c.name for c in acc.calls] == ["f"] and acc.invalid_calls == []
