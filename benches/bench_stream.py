"""Streaming one `~~~tool_call` whose string argument is 1 KB to 2 MB of code, fed in
4-character chunks (docs/performance.md), against what streaming servers do today, in the same run:

- `partial_json_parser`: the vLLM / SGLang pattern: per chunk, parse the whole partial call
  with `partial_json_parser.loads`, `json.dumps` the arguments, send the new stable prefix;
- `jiter_parse_only`: `jiter.from_json(..., partial_mode="trailing-strings")` of the whole
  partial call per chunk (the parse alone: a lower bound for any jiter-based streamer);
- `toolwire_parse_text`: `toolwire.parse_text` on the whole message (no streaming).

Targets: toolwire's time is linear in the size (doubling it costs at most 2.3x), >= 100x
faster than jiter-per-chunk at 64 KB, and 1 MB in 4-character chunks costs <= 3x `parse_text`.
The same 1 MB call is also streamed in the hermes and qwen3_coder formats against `parse_text`,
and `python_floor` is the floor of any Python-facing streamer: a loop handing each chunk to a
builtin and collecting one object per chunk (the part of the 3x that no parser can remove).
The baselines re-parse the growing buffer per chunk (quadratic): partial_json_parser runs up to
8 KB (64 KB would take about ten minutes a round), jiter up to 64 KB. With benchmarks disabled
(the test suite) the baselines run at 1 KB only. Every run checks its result.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jiter
import partial_json_parser
import pytest
import toolwire
from bench_data import write_file_call, write_file_call_in

KB = 1024
SIZES = {
    "1KB": KB,
    "8KB": 8 * KB,
    "64KB": 64 * KB,
    "128KB": 128 * KB,
    "1MB": KB * KB,
    "2MB": 2 * KB * KB,
}
# The largest size each quadratic baseline runs at.
BASELINE_LIMITS = {"partial_json_parser": 8 * KB, "jiter_parse_only": 64 * KB}
OPEN = "~~~tool_call\n"
CLOSE = "\n~~~"


def chunks_of(text: str, width: int = 4) -> list[str]:
    return [text[i : i + width] for i in range(0, len(text), width)]


def toolwire_stream(chunks: list[str]) -> list[Any]:
    """The events (what a server forwards as they come: the time a stream costs)."""
    parser = toolwire.StreamParser()
    events: list[Any] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.finish())
    return events


def toolwire_result(events: list[Any]) -> tuple[str, Any]:
    """The arguments text (joined deltas) and the final arguments, checked after the timing."""
    deltas = "".join(e.arguments for e in events if isinstance(e, toolwire.ToolCallDelta))
    [end] = [e for e in events if isinstance(e, toolwire.ToolCallEnd)]
    return deltas, end.call.arguments


def call_body(buffer: str) -> str | None:
    """The (partial) JSON of the call in the buffer, as the servers slice it."""
    start = buffer.find(OPEN)
    if start < 0:
        return None
    body = buffer[start + len(OPEN) :]
    end = body.find(CLOSE)
    return body if end < 0 else body[:end]


def common_prefix_length(a: str, b: str) -> int:
    """Length of the common prefix (binary search over C-speed slice compares)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def partial_json_parser_stream(chunks: list[str]) -> tuple[str, Any]:
    """vLLM / SGLang: re-parse the partial call per chunk, `json.dumps` its arguments, and send
    what is new in the prefix shared with the previous serialisation."""
    buffer, sent, previous, arguments = "", "", None, None
    for chunk in chunks:
        buffer += chunk
        body = call_body(buffer)
        if not body:
            continue
        try:
            call = partial_json_parser.loads(body, partial_json_parser.Allow.ALL)
        except Exception:
            continue
        if not isinstance(call, dict) or "arguments" not in call:
            continue
        arguments = call["arguments"]
        current = json.dumps(arguments, ensure_ascii=False)
        if previous is not None:
            stable = common_prefix_length(previous, current)
            if stable > len(sent):
                sent = current[:stable]
        previous = current
    assert previous is not None
    return previous, arguments


def jiter_stream(chunks: list[str]) -> tuple[str, Any]:
    """jiter's partial mode per chunk (the parse only)."""
    buffer, call = "", None
    for chunk in chunks:
        buffer += chunk
        body = call_body(buffer)
        if body:
            call = jiter.from_json(body.encode(), partial_mode="trailing-strings")
    assert isinstance(call, dict)
    return json.dumps(call["arguments"], ensure_ascii=False), call["arguments"]


STREAMERS: dict[str, Callable[[list[str]], Any]] = {
    "toolwire_stream": toolwire_stream,
    "partial_json_parser": partial_json_parser_stream,
    "jiter_parse_only": jiter_stream,
}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("streamer", list(STREAMERS))
def test_stream_one_big_call(benchmark: Any, streamer: str, size: str) -> None:
    limit = BASELINE_LIMITS.get(streamer)
    if limit is not None and SIZES[size] > (KB if benchmark.disabled else limit):
        pytest.skip(f"{streamer} re-parses per chunk (quadratic): run up to {limit // KB} KB")
    text, arguments_text, arguments = write_file_call(SIZES[size])
    chunks = chunks_of(text)
    benchmark.group = f"stream one call, {size} argument, 4-char chunks"
    benchmark.extra_info["bytes"] = len(text.encode())
    result = benchmark.pedantic(
        STREAMERS[streamer], (chunks,), rounds=5 if SIZES[size] >= 64 * KB else 10, iterations=1
    )
    deltas, decoded = toolwire_result(result) if streamer == "toolwire_stream" else result
    assert decoded == arguments
    # toolwire's deltas are the model's own text; the baselines' are re-serialised.
    assert deltas == (
        arguments_text
        if streamer == "toolwire_stream"
        else json.dumps(arguments, ensure_ascii=False)
    )


@pytest.mark.parametrize("size", ["1MB"])
def test_toolwire_parse_text_one_big_call(benchmark: Any, size: str) -> None:
    text, _, arguments = write_file_call(SIZES[size])
    benchmark.group = f"stream one call, {size} argument, 4-char chunks"
    parsed = benchmark(toolwire.parse_text, text)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("write_file", arguments)]


@pytest.mark.parametrize("size", ["1MB"])
def test_python_floor_one_big_call(benchmark: Any, size: str) -> None:
    """Per chunk: a builtin call and one object collected, no parsing at all."""
    text, _, _ = write_file_call(SIZES[size])
    chunks = chunks_of(text)
    benchmark.group = f"stream one call, {size} argument, 4-char chunks"

    def floor(chunks: list[str]) -> list[Any]:
        collected: list[Any] = []
        for chunk in chunks:
            collected.extend((len(chunk),))
        return collected

    assert len(benchmark(floor, chunks)) == len(chunks)


@pytest.mark.parametrize("how", ["toolwire_stream", "toolwire_parse_text"])
@pytest.mark.parametrize("format", ["hermes", "qwen3_coder"])
def test_format_one_big_call(benchmark: Any, format: str, how: str) -> None:
    """1 MB (1 KB with benchmarks off) in an open-weight format: streamed in 4-character chunks, or
    parsed whole."""
    size = KB if benchmark.disabled else KB * KB
    text, deltas_text, arguments = write_file_call_in(format, size)
    benchmark.group = f"stream one {format} call, {size // KB}KB argument, 4-char chunks"
    if how == "toolwire_parse_text":
        parsed = benchmark(toolwire.parse_text, text)
        assert [(c.name, c.arguments) for c in parsed.calls] == [("write_file", arguments)]
        return
    chunks = chunks_of(text)
    events = benchmark.pedantic(toolwire_stream, (chunks,), rounds=5, iterations=1)
    deltas, decoded = toolwire_result(events)
    assert decoded == arguments
    assert deltas == deltas_text
