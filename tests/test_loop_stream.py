"""Streaming providers (issue 28.2): a provider that returns a stream of OpenAI chunks,
Anthropic events or model text gives the same LoopResult as the same answers given whole;
on_delta sees every event in order; early_tools runs a call before the answer ends."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from loop_support import Recorder, Script, make_registry, openai_body
from toolwire import (
    AnthropicStreamAccumulator,
    LoopResult,
    OpenAIStreamAccumulator,
    StreamParser,
    ToolCall,
    ToolRegistry,
    arun_tool_loop,
    run_tool_loop,
)

USER = [{"role": "user", "content": "add things"}]

# --- the same answers, whole and as streams -------------------------------------------------

OPENAI_WHOLE = [
    openai_body(("c1", "add", {"a": 1, "b": 2}), ("c2", "boom", {}), content="Let me add."),
    openai_body(content="Sums: 3."),
]


def openai_chunks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A Chat Completions body as the chunks a server streams (arguments cut in pieces)."""
    message = body["choices"][0]["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant"})]
    text = message.get("content") or ""
    chunks += [chunk({"content": text[i : i + 4]}) for i in range(0, len(text), 4)]
    for index, call in enumerate(message.get("tool_calls", [])):
        function = call["function"]
        chunks.append(
            chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                   "function": {"name": function["name"], "arguments": ""}}]})
        )  # fmt: skip
        arguments = function["arguments"]
        chunks += [
            chunk(
                {"tool_calls": [{"index": index, "function": {"arguments": arguments[i : i + 3]}}]}
            )
            for i in range(0, len(arguments), 3)
        ]
    chunks.append(chunk({}, "tool_calls" if message.get("tool_calls") else "stop"))
    return chunks


ANTHROPIC_WHOLE = [
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Adding."},
            {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 1}},
            {"type": "tool_use", "id": "toolu_2", "name": "add", "input": {"a": 2, "b": 2}},
        ],
        "stop_reason": "tool_use",
    },
    {
        "role": "assistant",
        "content": [{"type": "text", "text": "2 and 4."}],
        "stop_reason": "end_turn",
    },
]


def anthropic_events(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A Messages body as its SSE events (input JSON cut in pieces)."""
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {"role": "assistant"}}]
    for index, block in enumerate(body["content"]):
        if block["type"] == "text":
            events.append({"type": "content_block_start", "index": index,
                           "content_block": {"type": "text", "text": ""}})  # fmt: skip
            events.append({"type": "content_block_delta", "index": index,
                           "delta": {"type": "text_delta", "text": block["text"]}})  # fmt: skip
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            events.append({"type": "content_block_start", "index": index, "content_block": start})
            arguments = json.dumps(block["input"])
            events += [
                {"type": "content_block_delta", "index": index,
                 "delta": {"type": "input_json_delta", "partial_json": arguments[i : i + 5]}}
                for i in range(0, len(arguments), 5)
            ]  # fmt: skip
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta", "delta": {"stop_reason": body["stop_reason"]}})
    events.append({"type": "message_stop"})
    return events


HERMES = (
    "I will add.\n<tool_call>\n"
    '{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>\n<tool_call>\n'
    '{"name": "add", "arguments": {"a": 3, "b": 4}}\n</tool_call>'
)
TEXT_WHOLE = [HERMES, "Grüße: 3 and 7 😀"]


def text_pieces(text: str) -> list[str]:
    return [text[i : i + 7] for i in range(0, len(text), 7)]


def byte_pieces(text: str) -> list[bytes]:
    """Cut every 3 bytes: pieces end inside UTF-8 characters."""
    data = text.encode()
    return [data[i : i + 3] for i in range(0, len(data), 3)]


STREAMS: dict[str, tuple[str, list[Any], Callable[[Any], list[Any]]]] = {
    "openai chunks": ("openai", OPENAI_WHOLE, openai_chunks),
    "anthropic events": ("anthropic", ANTHROPIC_WHOLE, anthropic_events),
    "hermes text": ("openai", TEXT_WHOLE, text_pieces),
    "hermes bytes": ("anthropic", TEXT_WHOLE, byte_pieces),
}


def normalised(result: LoopResult) -> Any:
    """Messages, calls and results, with generated ids numbered in order of appearance."""
    data = json.dumps(
        [result.messages, [c.to_dict() for c in result.tool_calls],
         [r.to_dict() for r in result.tool_results], result.stopped_reason, result.provider_calls]
    )  # fmt: skip
    for number, call in enumerate(result.tool_calls):
        if call.id.startswith("call_"):
            data = data.replace(call.id, f"generated_{number}")
    return json.loads(data)


def sync_streams(answers: list[Any], cut: Callable[[Any], list[Any]]) -> list[Any]:
    return [lambda answer=answer: iter(cut(answer)) for answer in answers]


def async_streams(answers: list[Any], cut: Callable[[Any], list[Any]]) -> list[Any]:
    def stream(answer: Any) -> AsyncIterator[Any]:
        async def items() -> AsyncIterator[Any]:
            for item in cut(answer):
                await asyncio.sleep(0)
                yield item

        return items()

    return [lambda answer=answer: stream(answer) for answer in answers]


def expected_deltas(
    provider_format: str, answer: Any, cut: Callable[[Any], list[Any]]
) -> list[str]:
    """The events a fresh accumulator or parser gives for the answer's items, in order."""
    items = cut(answer)
    if isinstance(items[0], dict):
        decoder: Any = (
            OpenAIStreamAccumulator()
            if provider_format == "openai"
            else AnthropicStreamAccumulator()
        )
    else:
        decoder = StreamParser()
    events = [e for item in items for e in decoder.feed(item)] + decoder.finish()
    return [e.kind for e in events]


@pytest.mark.parametrize("name", list(STREAMS))
@pytest.mark.parametrize("parallel", [False, True])
def test_a_stream_gives_the_same_result_as_the_whole_answers(name: str, parallel: bool) -> None:
    provider_format, answers, cut = STREAMS[name]
    whole = run_tool_loop(
        Script(*answers), USER, make_registry(), provider_format=provider_format,  # type: ignore[arg-type]
        parallel_tools=parallel,
    )  # fmt: skip
    recorder = Recorder()
    streamed = run_tool_loop(
        Script(*sync_streams(answers, cut)), USER, make_registry(),
        provider_format=provider_format, parallel_tools=parallel, observer=recorder,  # type: ignore[arg-type]
    )  # fmt: skip
    assert streamed.stopped_reason == "final" and streamed.provider_calls == 2
    assert normalised(streamed) == normalised(whole)
    # Every event, in order, before the assistant message of its answer.
    first, second = (expected_deltas(provider_format, a, cut) for a in answers)
    assert "tool_call_end" in first
    deltas = [("delta", kind) for kind in first]
    assert recorder.events[1 : 1 + len(deltas)] == deltas
    assert recorder.events[1 + len(deltas)] == ("message", "assistant")
    tail = [("delta", kind) for kind in second]
    assert recorder.events[-2 - len(tail) : -1] == [*tail, ("message", "assistant")]
    # The last response of a stream is the list of its items.
    assert streamed.final_response == cut(answers[-1])


@pytest.mark.parametrize("name", list(STREAMS))
@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("early", [False, True])
def test_async_streams_give_the_same_result(name: str, parallel: bool, early: bool) -> None:
    provider_format, answers, cut = STREAMS[name]
    whole = run_tool_loop(Script(*answers), USER, make_registry(), provider_format=provider_format)  # type: ignore[arg-type]

    async def provider_of(streams: list[Any]) -> LoopResult:
        script = Script(*streams)

        async def provider(messages: list[Any]) -> Any:
            return script(messages)

        return await arun_tool_loop(
            provider, USER, make_registry(), provider_format=provider_format,  # type: ignore[arg-type]
            parallel_tools=parallel, early_tools=early,
        )  # fmt: skip

    for streams in (async_streams(answers, cut), sync_streams(answers, cut)):
        assert normalised(asyncio.run(provider_of(streams))) == normalised(whole)


def test_bounds_are_the_same_for_streams() -> None:
    always = openai_body(("call_1", "add", {"a": 1, "b": 2}))
    ran: list[int] = []
    registry = ToolRegistry(filter="*")

    @registry.tool
    def add(a: int, b: int) -> int:
        ran.append(a + b)
        return a + b

    whole = run_tool_loop(Script(always), USER, registry, max_turns=2, max_tool_passes=1)
    ran.clear()
    streamed = run_tool_loop(
        Script(lambda: iter(openai_chunks(always))), USER, registry,
        max_turns=2, max_tool_passes=1, early_tools=True,
    )  # fmt: skip
    assert streamed.stopped_reason == whole.stopped_reason == "max_turns"
    assert streamed.provider_calls == whole.provider_calls == 4
    assert streamed.messages == whole.messages
    # The last answer's call is not run, even with early_tools.
    assert len(ran) == len(streamed.tool_results) == 3


class Timeline:
    """Records, in one list, each stream item as the provider yields it and each tool run."""

    def __init__(self) -> None:
        self.entries: list[str] = []

    def stream(self, items: list[Any]) -> Callable[[], Iterator[Any]]:
        def make() -> Iterator[Any]:
            for number, item in enumerate(items):
                self.entries.append(f"item {number}")
                yield item
            self.entries.append("end")

        return make

    def registry(self) -> ToolRegistry:
        registry = ToolRegistry(filter="*")

        @registry.tool
        def add(a: int, b: int) -> int:
            self.entries.append(f"add {a} {b}")
            return a + b

        return registry


@pytest.mark.parametrize("parallel", [False, True])
def test_early_tools_run_a_call_before_the_answer_ends(parallel: bool) -> None:
    events = anthropic_events(ANTHROPIC_WHOLE[0])
    first_stop = next(
        i for i, e in enumerate(events) if e["type"] == "content_block_stop" and e["index"] == 1
    )
    ran = threading.Event()
    waited: list[bool] = []

    def stream() -> Iterator[Any]:
        """Stops after the first call's block until that call has run (or 10 s have passed)."""
        yield from events[: first_stop + 1]
        waited.append(ran.wait(10))
        yield from events[first_stop + 1 :]

    registry = ToolRegistry(filter="*")

    @registry.tool
    def add(a: int, b: int) -> int:
        ran.set()
        return a + b

    result = run_tool_loop(
        Script(stream, "done"), USER, registry, provider_format="anthropic",
        early_tools=True, parallel_tools=parallel,
    )  # fmt: skip
    assert waited == [True]  # the first call ran while the answer was still streaming
    assert [r.content for r in result.tool_results] == ["2", "4"]
    # Without the option, calls run after the answer ends.
    timeline = Timeline()
    run_tool_loop(
        Script(timeline.stream(events), "done"), USER, timeline.registry(),
        provider_format="anthropic",
    )  # fmt: skip
    assert timeline.entries[-3:] == ["end", "add 1 1", "add 2 2"]


@pytest.mark.parametrize("parallel", [False, True])
def test_async_early_tools_run_a_call_before_the_answer_ends(parallel: bool) -> None:
    events = anthropic_events(ANTHROPIC_WHOLE[0])
    first_stop = next(
        i for i, e in enumerate(events) if e["type"] == "content_block_stop" and e["index"] == 1
    )
    waited: list[bool] = []

    async def main() -> LoopResult:
        ran = asyncio.Event()
        registry = ToolRegistry(filter="*")

        @registry.tool
        async def add(a: int, b: int) -> int:
            ran.set()
            return a + b

        async def stream() -> AsyncIterator[Any]:
            for event in events[: first_stop + 1]:
                yield event
            try:
                await asyncio.wait_for(ran.wait(), 10)
                waited.append(True)
            except TimeoutError:
                waited.append(False)
            for event in events[first_stop + 1 :]:
                yield event

        return await arun_tool_loop(
            Script(stream, "done"), USER, registry, provider_format="anthropic",
            early_tools=True, parallel_tools=parallel,
        )  # fmt: skip

    result = asyncio.run(main())
    assert waited == [True]
    assert [r.content for r in result.tool_results] == ["2", "4"]


def test_early_tools_on_model_text_and_observer_order() -> None:
    timeline = Timeline()
    recorder = Recorder()
    pieces = text_pieces(HERMES)
    result = run_tool_loop(
        Script(timeline.stream(pieces), "done"), USER, timeline.registry(),
        early_tools=True, observer=recorder,
    )  # fmt: skip
    assert [r.content for r in result.tool_results] == ["3", "7"]
    entries = timeline.entries
    assert entries.index("add 1 2") < entries.index("add 3 4") < entries.index("end")
    # on_tool_call/on_tool_result of an early call come with its end event, before the
    # assistant message; none is repeated afterwards.
    kinds = [e[0] if e[0] != "delta" else e[1] for e in recorder.events]
    first_end = kinds.index("tool_call_end")
    assert kinds[first_end + 1 : first_end + 3] == ["call", "result"]
    assert kinds.count("call") == 2 and kinds.count("result") == 2
    assert kinds.index("message") > kinds.index("result")


def test_a_stream_that_fails_after_an_early_call_keeps_what_ran() -> None:
    events = anthropic_events(ANTHROPIC_WHOLE[0])
    cut = next(
        i for i, e in enumerate(events) if e["type"] == "content_block_stop" and e["index"] == 1
    )

    def broken() -> Iterator[Any]:
        yield from events[: cut + 1]
        raise ConnectionError("connection reset")

    result = run_tool_loop(
        Script(broken), USER, make_registry(), provider_format="anthropic", early_tools=True
    )
    assert result.stopped_reason == "error" and isinstance(result.error, ConnectionError)
    assert result.final_response is None  # no answer came whole
    # The call that ran is in the history with its result, so a resumed loop does not rerun it.
    assert [c.id for c in result.tool_calls] == ["toolu_1"]
    assert result.messages[1]["content"] == [
        {"type": "text", "text": "Adding."},
        {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 1}},
    ]
    assert result.messages[2]["content"][0]["tool_use_id"] == "toolu_1"
    assert [(d.origin, d.severity) for d in result.diagnostics] == [("provider", "error")]
    assert "ConnectionError: connection reset" in result.diagnostics[0].text
    # Without a call that ran, a failed stream is like a failed provider call.
    plain = run_tool_loop(Script(broken), USER, make_registry(), provider_format="anthropic")
    assert plain.stopped_reason == "error" and plain.tool_calls == [] and plain.messages == USER


def test_every_providers_stream_is_read_and_mixed_streams_stop_with_an_error() -> None:
    gemini_events = lambda: iter([{"candidates": [{"content": {"parts": [{"text": "hi"}]}}]}])  # noqa: E731
    result = run_tool_loop(Script(gemini_events), USER, make_registry(), provider_format="gemini")
    assert result.stopped_reason == "final" and result.error is None
    mixed = lambda: iter(["text", {"choices": []}])  # noqa: E731
    assert isinstance(run_tool_loop(Script(mixed), USER, make_registry()).error, TypeError)

    async def agen() -> AsyncIterator[str]:
        yield "hi"

    refused = run_tool_loop(Script(agen), USER, make_registry())
    assert refused.stopped_reason == "error" and "arun_tool_loop" in str(refused.error)


def test_sdk_objects_are_read_through_model_dump() -> None:
    class Chunk:
        def __init__(self, data: dict[str, Any]) -> None:
            self.data = data

        def model_dump(self, **_: Any) -> dict[str, Any]:
            return self.data

    chunks = lambda: iter([Chunk(c) for c in openai_chunks(OPENAI_WHOLE[0])])  # noqa: E731
    result = run_tool_loop(Script(chunks, Chunk(OPENAI_WHOLE[1])), USER, make_registry())
    assert result.stopped_reason == "final"
    assert [c.name for c in result.tool_calls] == ["add", "boom"]
    assert result.messages[-1] == {"role": "assistant", "content": "Sums: 3."}


def test_the_stream_is_closed_when_the_loop_stops_reading() -> None:
    closed: list[bool] = []

    def stream() -> Iterator[Any]:
        try:
            yield {"choices": "not a list of choices"}
            yield "data: not json"
            yield from openai_chunks(OPENAI_WHOLE[1])
        finally:
            closed.append(True)

    result = run_tool_loop(Script(stream), USER, make_registry())
    assert result.stopped_reason == "error" and closed == [True]


def test_call_ids_of_a_stream_match_its_messages() -> None:
    result = run_tool_loop(Script(lambda: iter(text_pieces(HERMES)), "ok"), USER, make_registry())
    ids = [c.id for c in result.tool_calls]
    assert [m["tool_call_id"] for m in result.messages[2:4]] == ids
    assert [c["id"] for c in result.messages[1]["tool_calls"]] == ids
    assert result.tool_calls[0] == ToolCall(ids[0], "add", {"a": 1, "b": 2})


@given(cuts=st.lists(st.integers(1, len(HERMES) - 1), max_size=12, unique=True))
def test_any_cut_of_the_text_gives_the_same_result(cuts: list[int]) -> None:
    bounds = [0, *sorted(cuts), len(HERMES)]
    pieces = [HERMES[a:b] for a, b in itertools.pairwise(bounds)]
    whole = run_tool_loop(Script(HERMES, "ok"), USER, make_registry())
    streamed = run_tool_loop(Script(lambda: iter(pieces), "ok"), USER, make_registry())
    assert normalised(streamed) == normalised(whole)
