"""Calls written inside think spans (docs/formats.md, "Calls in reasoning"): with
`calls_in_reasoning=True` (the default) such a call is returned only when the message makes no
call outside think spans, on every path and in every chunking; the stream holds it until a call
starts outside reasoning (it is dropped, its index given back) or the text ends (it goes out
then). `calls_in_reasoning=False` never reads a call inside reasoning."""

from __future__ import annotations

import sys
from typing import Any

import pytest
import toolwire
from support import every_path
from toolwire import InvalidToolCall, ToolCall


def hermes(a: int, name: str = "f") -> str:
    return f'<tool_call>{{"name": "{name}", "arguments": {{"a": {a}}}}}</tool_call>'


def fenced(a: int) -> str:
    return f'~~~tool_call\n{{"name": "f", "arguments": {{"a": {a}}}}}\n~~~\n'


def seed(a: int) -> str:
    return f"<seed:tool_call><function=f><parameter=a>{a}</parameter></function></seed:tool_call>"


def chunkings(text: str) -> list[list[Any]]:
    """The text cut at each position, one character and one byte at a time."""
    data = text.encode()
    cuts: list[list[Any]] = [[text[:cut], text[cut:]] for cut in range(1, len(text))]
    return [*cuts, list(text), [data[i : i + 1] for i in range(len(data))]]


def streamed(chunks: list[Any], **options: Any) -> tuple[list[Any], list[Any]]:
    """The events `feed` gave, and those `finish` gave."""
    parser = toolwire.StreamParser(**options)
    fed = [event for chunk in chunks for event in parser.feed(chunk)]
    return fed, parser.finish()


def call_events(events: list[Any]) -> list[tuple[str, int, Any]]:
    """The call events, ids left out (a generated id differs run to run)."""
    out: list[tuple[str, int, Any]] = []
    for event in events:
        if event.kind == "tool_call_start":
            out.append((event.kind, event.index, event.name))
        elif event.kind == "tool_call_end":
            out.append((event.kind, event.index, (event.call.name, event.call.arguments)))
        elif isinstance(event, InvalidToolCall):
            out.append(("invalid", event.index, event.name))
    return out


def valid(calls: list[Any]) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in calls if isinstance(c, ToolCall)]


DRAFT_THEN_CALL = [
    f"<think>I will call {hermes(1)} to check.</think>Checking.\n{hermes(2)}",
    f"<think>\n{fenced(1)}</think>\n{fenced(2)}",
    f"<seed:think>The format is {seed(1)}. Go.</seed:think>{seed(2)}",
    '[THINK]Plan: [TOOL_CALLS]f[ARGS]{"a": 1}[/THINK][TOOL_CALLS]f[ARGS]{"a": 2}',
    "<think><|tool_call_start|>[f(a=1)]<|tool_call_end|></think>"
    "<|tool_call_start|>[f(a=2)]<|tool_call_end|>",
    # Two drafts, one in a protocol the real call is not written in.
    f"<think>{hermes(1)}\n{fenced(1)}</think>{hermes(2)}",
]


@pytest.mark.parametrize("text", DRAFT_THEN_CALL)
def test_a_draft_in_reasoning_then_the_call_is_one_call(text: str) -> None:
    for calls in every_path(text):
        assert valid(calls) == [("f", {"a": 2})], text
    parsed = toolwire.parse_text(text)
    assert valid(parsed.calls) == [("f", {"a": 2})]
    expected = [("tool_call_start", 0, "f"), ("tool_call_end", 0, ("f", {"a": 2}))]
    for chunks in chunkings(text):
        fed, finished = streamed(chunks)
        assert call_events(fed + finished) == expected, chunks
        # The draft's markup is not reasoning.
        reasoning = "".join(e.text for e in fed + finished if e.kind == "reasoning_delta")
        assert reasoning == (parsed.reasoning or ""), chunks
        assert "tool_call" not in reasoning and "[ARGS]" not in reasoning


@pytest.mark.parametrize(
    "text",
    [
        f"<think>Let me call {hermes(1)} now.</think>Done.",
        f"<think>\n{fenced(1)}</think>Done.",
        f"<seed:think>{seed(1)}</seed:think>",
        f"<think>{hermes(1)}",
    ],
)
def test_calls_only_in_reasoning_are_returned_when_the_text_ends(text: str) -> None:
    for calls in every_path(text):
        assert valid(calls) == [("f", {"a": 1})], text
    for chunks in chunkings(text):
        fed, finished = streamed(chunks)
        assert call_events(fed) == [], chunks
        assert not any(e.kind == "tool_call_delta" for e in fed), chunks
        assert call_events(finished) == [
            ("tool_call_start", 0, "f"),
            ("tool_call_end", 0, ("f", {"a": 1})),
        ], chunks
        # Their argument text comes with them, whole.
        pieces = "".join(e.arguments for e in finished if e.kind == "tool_call_delta")
        assert toolwire.loads(pieces) == {"a": 1}


def test_calls_in_reasoning_after_a_call_outside_are_dropped() -> None:
    text = f"{hermes(1)}<think>once more? {hermes(9)}</think>{hermes(2, 'g')}"
    for calls in every_path(text):
        assert valid(calls) == [("f", {"a": 1}), ("g", {"a": 2})]
    for chunks in chunkings(text):
        fed, finished = streamed(chunks)
        assert [e[:2] for e in call_events(fed + finished)] == [
            ("tool_call_start", 0),
            ("tool_call_end", 0),
            ("tool_call_start", 1),
            ("tool_call_end", 1),
        ], chunks


BROKEN = '<tool_call>{"name": "f", "arguments": {"a": </tool_call>'


def test_an_invalid_call_in_reasoning_gives_way_to_a_valid_one() -> None:
    text = f"<think>{BROKEN}</think>{hermes(2)}"
    for calls in every_path(text):
        assert [type(c) for c in calls] == [ToolCall]
        assert valid(calls) == [("f", {"a": 2})]
    for chunks in chunkings(text):
        fed, finished = streamed(chunks)
        assert call_events(fed + finished) == [
            ("tool_call_start", 0, "f"),
            ("tool_call_end", 0, ("f", {"a": 2})),
        ], chunks


def test_an_invalid_call_outside_reasoning_is_a_call_of_the_message() -> None:
    text = f"<think>{hermes(1)}</think>{BROKEN}"
    for calls in every_path(text):
        assert [(type(c), c.index) for c in calls] == [(InvalidToolCall, 0)]
    # Alone in reasoning, a broken call is kept (as an invalid call), not dropped.
    text = f"<think>{BROKEN}</think>Sorry."
    for calls in every_path(text):
        assert [type(c) for c in calls] == [InvalidToolCall]


def test_a_drafts_id_is_left_for_the_call() -> None:
    block = '~~~tool_call\n{{"id": "call_7", "name": "f", "arguments": {{"a": {a}}}}}\n~~~\n'
    text = f"<think>\n{block.format(a=1)}</think>\n{block.format(a=2)}"
    fed, finished = streamed([text])
    assert [e.id for e in fed + finished if e.kind == "tool_call_start"] == ["call_7"]
    assert [c.id for c in toolwire.parse_text(text).calls] == ["call_7"]


def test_without_calls_in_reasoning_nothing_there_is_a_call() -> None:
    text = f"<think>I will call {hermes(1)}.</think>{hermes(2)}"
    parsed = toolwire.parse_text(text, calls_in_reasoning=False)
    assert valid(parsed.calls) == [("f", {"a": 2})]
    assert parsed.reasoning == f"I will call {hermes(1)}."
    text = f"<think>I will call {hermes(1)}.</think>Done."
    parsed = toolwire.parse_text(text, calls_in_reasoning=False)
    assert (parsed.calls, parsed.content) == ([], "Done.")
    for chunks in chunkings(text):
        fed, finished = streamed(chunks, calls_in_reasoning=False)
        assert call_events(fed + finished) == [], chunks


def test_a_held_call_python_refuses_is_an_invalid_call() -> None:
    # Arguments held across feeds are built with the caller's builder at the end: a value
    # Python refuses then makes the call invalid, as it does outside reasoning.
    digits = "9" * (sys.get_int_max_str_digits() + 1)
    outside = f'<tool_call>{{"name": "f", "arguments": {{"a": {digits}}}}}</tool_call>'
    text = f"<think>{outside}</think>"
    for calls in [toolwire.parse_text(text).calls, toolwire.extract(text, on_error="keep")]:
        assert [(type(c), c.name) for c in calls] == [(InvalidToolCall, "f")]
    fed, finished = streamed([text])
    assert call_events(fed) == []
    assert [e[0] for e in call_events(finished)] == ["tool_call_start", "invalid"]
    assert [type(c) for c in toolwire.parse_text(outside).calls] == [InvalidToolCall]


def test_raw_json_anywhere_follows_the_rule() -> None:
    # `extract(raw_json="anywhere")` reads JSON wherever it stands, under the same rule.
    def anywhere(text: str, **options: Any) -> list[Any]:
        return toolwire.extract(text, raw_json="anywhere", on_error="keep", **options)

    def call(a: int) -> str:
        return f'{{"name": "f", "arguments": {{"a": {a}}}}}'

    draft = f"<think>I will send {call(1)}.</think>"
    assert valid(anywhere(f"{draft}Sending {call(2)} now.")) == [("f", {"a": 2})]
    assert valid(anywhere(f"{draft}Done.")) == [("f", {"a": 1})]
    # The whole text is at hand: an unopened </think> shows the span the prompt opened.
    prompt_opened = f"I will send {call(1)}.</think>Sending {call(2)}"
    for options in [{}, {"starts_in_reasoning": True}]:
        assert valid(anywhere(prompt_opened, **options)) == [("f", {"a": 2})]
    # A broken call outside reasoning wins too, numbered from 0.
    broken = anywhere(f'{draft} {{"name": "f", "arguments": ')
    assert [(type(c), c.index) for c in broken] == [(InvalidToolCall, 0)]
