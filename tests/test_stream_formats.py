"""The open-weight formats through the stream engine: every corpus stream and
case rendering of each format gives its calls via ``StreamParser`` (random chunking) and
``parse_text(text, format=...)``, the same as ``extract``; ids, typing, reasoning and the
code-span rule hold while streaming."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterable
from typing import Any

import pytest
import toolwire
from support import cases, load_jsonl
from toolwire import (
    InvalidToolCall,
    ReasoningDelta,
    StreamParser,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)

FORMATS = toolwire.FORMATS
# Formats whose arguments are JSON text written by the model (deltas are its own bytes).
# LFM2 writes JSON or pythonic lists; Apertus and Cohere (Command R7B, Command R) call objects are
# read when their list ends: the deltas are the model's bytes or the compact JSON of the decoded
# arguments.
EITHER = {"lfm2", "apertus", "command_r7b", "command_r"}
JSON_ARGUMENTS = (
    set(FORMATS)
    - {"qwen3_coder", "glm45", "hy_v3", "hy_v4", "kimi_k3", "pythonic", "olmo3"}
    - {"function_gemma", "gemma4"}
    - EITHER
)
STREAMS = [s for s in load_jsonl("streams.jsonl") if s["protocol"] in FORMATS]
# Every 25th case: all renderings are checked by the Rust core tests; these keep the suite fast.
CASES = cases()[::25]


def pairs(calls: Iterable[Any]) -> list[tuple[str, Any]]:
    return [
        (c["name"], c["arguments"]) if isinstance(c, dict) else (c.name, c.arguments) for c in calls
    ]


def random_chunks(text: str, rng: random.Random) -> list[str]:
    cuts = sorted(rng.randrange(len(text) + 1) for _ in range(rng.randrange(1, 40)))
    points = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(points)]


def streamed(text: str, chunks: list[str], **options: Any) -> list[Any]:
    parser = StreamParser(**options)
    events = [event for chunk in chunks for event in parser.feed(chunk)]
    events += parser.finish()
    assert "".join(chunks) == text
    return events


def calls_of(events: list[Any]) -> list[ToolCall | InvalidToolCall]:
    found = [e.call if isinstance(e, ToolCallEnd) else e for e in events]
    return [c for c in found if isinstance(c, ToolCall | InvalidToolCall)]


def check_stream(text: str, fmt: str, tools: Any, rng: random.Random) -> list[tuple[str, Any]]:
    """The calls of `text` via parse_text, StreamParser (random and 1-character chunks) and
    extract agree; deltas follow the stream's third promise (docs/streaming.md)."""
    parsed = toolwire.parse_text(text, fmt, tools=tools)
    expected = pairs(parsed.calls)
    for chunks in (random_chunks(text, rng), list(text)):
        events = streamed(text, chunks, formats=[fmt], tools=tools)
        assert pairs(calls_of(events)) == expected
        content = "".join(e.text for e in events if isinstance(e, TextDelta))
        assert content == parsed.content
        for end in (e for e in events if isinstance(e, ToolCallEnd)):
            raw = "".join(
                e.arguments for e in events if isinstance(e, ToolCallDelta) and e.index == end.index
            )
            assert toolwire.decode_arguments(json.loads(raw)) == end.call.arguments
            if fmt in JSON_ARGUMENTS:
                assert raw in text or raw == "{}"
            else:
                compact = json.dumps(end.call.arguments, separators=(",", ":"), ensure_ascii=False)
                assert raw == compact or (fmt in EITHER and raw in text)
    extracted = toolwire.extract(text, formats=[fmt], tools=tools, on_error="keep")
    assert pairs(extracted) == expected
    return expected


@pytest.mark.parametrize("stream", STREAMS, ids=lambda s: s["id"])
def test_corpus_streams_of_each_format(stream: dict[str, Any]) -> None:
    rng = random.Random(stream["id"])
    got = check_stream(stream["text"], stream["protocol"], stream["tools"], rng)
    assert got == pairs(stream["calls"])
    # formats="auto" finds them too.
    events = streamed(stream["text"], random_chunks(stream["text"], rng), tools=stream["tools"])
    assert pairs(calls_of(events)) == got


# The formats the corpus is rendered in (tests/test_rendered_formats.py reads the others).
@pytest.mark.parametrize("fmt", sorted(f for f in FORMATS if f in CASES[0]["wire"]))
def test_case_renderings_of_each_format(fmt: str) -> None:
    rng = random.Random(fmt)
    checked = 0
    for case in CASES:
        text = case["wire"].get(fmt)
        if not isinstance(text, str):
            continue
        got = check_stream(text, fmt, case["tools"], rng)
        assert [name for name, _ in got] == [c["name"] for c in case["calls"]]
        checked += 1
    assert checked > 80


def test_calls_start_when_their_name_is_known() -> None:
    parser = StreamParser(formats=["qwen3_coder"])
    events = parser.feed("<tool_call>\n<function=write>\n<parameter=code>\nprint(")
    assert [(type(e), e.name) for e in events] == [(ToolCallStart, "write")]
    events = parser.feed("1)\n</parameter>\n</function>\n</tool_call>") + parser.finish()
    assert [e.kind for e in events] == ["tool_call_delta", "tool_call_end"]
    assert events[0].arguments == '{"code":"print(1)"}'
    parser = StreamParser()
    head = '<tool_call>\n{"name": "write", "arguments": {"code": "'
    assert [e.kind for e in parser.feed(head)] == ["tool_call_start", "tool_call_delta"]
    assert parser.feed("def f") == [ToolCallDelta(0, "def f")]


def test_kimi_call_with_nothing_after_its_argument_token_has_no_arguments() -> None:
    # LMDeploy's test_kimi_k2_parser.py: a complete call whose arguments are empty or blank.
    for body in ("", "  "):
        text = (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
            f"<|tool_call_argument_begin|>{body}<|tool_call_end|><|tool_calls_section_end|>"
        )
        expected = [("f", {})]
        extracted = toolwire.extract(text, formats=["kimi_k2"])
        assert [(c.name, c.arguments) for c in extracted] == expected
        for chunks in (list(text), [text]):
            found = calls_of(streamed(text, chunks, formats=["kimi_k2"]))
            assert [(c.name, c.arguments) for c in found if isinstance(c, ToolCall)] == expected


def test_model_ids_typing_and_reasoning() -> None:
    kimi = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
        '<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_calls_section_end|>'
    )
    [call] = toolwire.parse_text(kimi, "kimi_k2").calls
    assert isinstance(call, ToolCall) and call.id == "functions.f:0"
    tools = [{"name": "f", "parameters": {"properties": {"zip": {"type": "string"}}}}]
    qwen = "<tool_call><function=f><parameter=zip>\n03106\n</parameter></function></tool_call>"
    parser = StreamParser(tools=tools)
    events = [e for ch in qwen for e in parser.feed(ch)] + parser.finish()
    assert calls_of(events)[0].arguments == {"zip": "03106"}
    harmony = (
        "<|start|>assistant<|channel|>analysis<|message|>Need f.<|end|>"
        "<|start|>assistant<|channel|>final<|message|>Done.<|return|>"
    )
    events = streamed(harmony, list(harmony), formats=["harmony"])
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "Need f."
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Done."
    think = '<think>try <tool_call>{"name": "f", "arguments": {}}</tool_call></think>ok'
    assert pairs(toolwire.parse_text(think, "hermes").calls) == [("f", {})]
    hidden = toolwire.parse_text(think, "hermes", calls_in_reasoning=False)
    assert hidden.calls == [] and hidden.content == "ok"


def test_markers_in_code_spans_are_prose() -> None:
    text = "Wrap calls in `<tool_call>` tags or write `[TOOL_CALLS]` first."
    events = streamed(text, list(text))
    assert all(isinstance(e, TextDelta) for e in events)
    assert "".join(e.text for e in events) == text


def test_broken_calls_are_kept_with_their_raw_text() -> None:
    text = 'ok <tool_call>{"name": "f", "arguments": {"a": }}</tool_call> then'
    events = streamed(text, list(text), formats=["hermes"])
    [invalid] = calls_of(events)
    assert isinstance(invalid, InvalidToolCall)
    assert invalid.raw == '<tool_call>{"name": "f", "arguments": {"a": }}</tool_call>'
    # The offset is where the call failed, in the whole text.
    assert invalid.name == "f" and invalid.offset == text.index(" }}") + 1
