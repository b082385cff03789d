"""Thread safety: `extract` and `extract_batch` hammered from 8 Python threads give exactly the
serial results (generated ids masked)."""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import toolwire
from adversarial import CALLS
from support import cases, load_jsonl

pytestmark = pytest.mark.timeout(300)

THREADS = 8
GENERATED = re.compile(r"^call_[A-Za-z0-9_-]{12}$")


def inputs() -> list[Any]:
    """Corpus renderings (text and bodies) of every protocol, and broken inputs."""
    found: list[Any] = []
    for case in cases()[:150]:
        found.extend(case["wire"].values())
    found.extend(CALLS.values())
    found += [
        '~~~tool_call\n{"name": "f", "arguments": {"a": 1,}}\n~~~\n',
        "~~~tool_call\n" * 3,
        b"abc\xff",
        {"choices": [{"message": 3}]},
        "[" * 1000,
    ]
    return found


def masked(result: Any) -> Any:
    """Comparable form of an extract result: dicts, generated ids replaced by their order."""
    if isinstance(result, toolwire.ToolwireError):
        return (type(result).__name__, str(result))
    out = []
    for k, call in enumerate(result):
        d = call.to_dict()
        if GENERATED.match(d.get("id") or ""):
            d["id"] = f"generated#{k}"
        out.append(d)
    return out


def run_extract(item: Any) -> Any:
    try:
        return masked(toolwire.extract(item, on_error="keep"))
    except toolwire.ToolwireError as error:
        return masked(error)


def hammer(work: Callable[[int], Any]) -> list[Any]:
    """`work(seed)` on 8 threads started together."""
    barrier = threading.Barrier(THREADS)

    def start(seed: int) -> Any:
        barrier.wait()
        return work(seed)

    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(start, range(THREADS)))


def test_extract_from_eight_threads_matches_serial() -> None:
    items = inputs()
    serial = [run_extract(item) for item in items]

    def work(seed: int) -> list[Any]:
        order = list(range(len(items)))
        random.Random(seed).shuffle(order)
        results: list[Any] = [None] * len(items)
        for _ in range(3):
            for i in order:
                results[i] = run_extract(items[i])
        return results

    for results in hammer(work):
        assert results == serial


def test_extract_batch_from_eight_threads_matches_serial() -> None:
    import json

    lines = [
        json.dumps(v) if isinstance(v, dict) else json.dumps({"text": v})
        for v in (v for v in inputs() if isinstance(v, (str, dict)))
    ]
    lines.append("not json")
    serial = [masked(r) for r in toolwire.extract_batch(lines, threads=1)]
    assert len(serial) == len(lines)

    def work(seed: int) -> list[Any]:
        threads = 1 + seed % 3
        return [masked(r) for r in toolwire.extract_batch(lines, threads=threads)]

    for results in hammer(work):
        assert results == serial


def test_parse_text_from_eight_threads_matches_serial() -> None:
    texts = [item for item in inputs() if isinstance(item, str)]

    def parsed(text: str) -> Any:
        result = toolwire.parse_text(text)
        return (result.content, result.reasoning, masked(result.calls))

    serial = [parsed(text) for text in texts]

    def work(seed: int) -> list[Any]:
        order = list(range(len(texts)))
        random.Random(seed).shuffle(order)
        results: list[Any] = [None] * len(texts)
        for i in order:
            results[i] = parsed(texts[i])
        return results

    for results in hammer(work):
        assert results == serial


def test_a_shared_stream_parser_refuses_concurrent_use_and_stays_sound() -> None:
    # Documented: one parser serves one thread at a time; a second thread at the same moment
    # gets a RuntimeError, never a crash or interleaved state.
    parser = toolwire.StreamParser()
    text = CALLS["text_tagged"] * 200
    chunks = [text[i : i + 7] for i in range(0, len(text), 7)]

    def work(seed: int) -> tuple[int, int]:
        fed = refused = 0
        for chunk in chunks:
            try:
                parser.feed(chunk)
                fed += 1
            except RuntimeError as error:
                assert "already in use" in str(error)
                refused += 1
        return fed, refused

    counts = hammer(work)
    assert sum(fed + refused for fed, refused in counts) == THREADS * len(chunks)
    # Whatever was interleaved, the parser still works after a reset.
    parser.finish()
    parser.reset()
    events = parser.feed(CALLS["text_tagged"]) + parser.finish()
    [end] = [e for e in events if isinstance(e, toolwire.ToolCallEnd)]
    assert (end.call.name, end.call.arguments) == ("f", {"a": "x y"})


def test_separate_stream_parsers_on_eight_threads_match_serial() -> None:
    text = "".join(CALLS.values())

    def stream(seed: int) -> Any:
        parser = toolwire.StreamParser()
        rng = random.Random(seed)
        events: list[Any] = []
        i = 0
        while i < len(text):
            n = rng.randint(1, 9)
            events += parser.feed(text[i : i + n])
            i += n
        events += parser.finish()
        calls = [e.call for e in events if isinstance(e, toolwire.ToolCallEnd)]
        invalid = [e for e in events if isinstance(e, toolwire.InvalidToolCall)]
        return masked(calls + invalid)

    serial = stream(0)
    assert len(serial) >= len(CALLS) - 2
    for results in hammer(stream):
        assert results == serial


def test_separate_accumulators_and_translators_on_eight_threads_match_serial() -> None:
    streams = [s for s in load_jsonl("streams.jsonl") if "openai_chunks" in s][:20]

    def work(seed: int) -> Any:
        out = []
        for stream in streams:
            acc = toolwire.AnthropicStreamAccumulator()
            for event in stream["anthropic_events"]:
                acc.feed(event)
            acc.finish()
            chunks = toolwire.translate_stream(
                stream["openai_chunks"], source="openai", target="gemini", response_id="r"
            )
            out.append((acc.calls, list(chunks)))
        return out

    serial = work(0)
    for results in hammer(work):
        assert results == serial


def test_a_shared_accumulator_refuses_concurrent_use() -> None:
    acc = toolwire.OpenAIStreamAccumulator()
    chunk = {"choices": [{"index": 0, "delta": {"content": "x"}}]}

    def work(seed: int) -> int:
        refused = 0
        for _ in range(2000):
            try:
                acc.feed(chunk)
            except RuntimeError as error:
                assert "already in use" in str(error)
                refused += 1
        return refused

    refused = sum(hammer(work))
    assert len(acc.content) == THREADS * 2000 - refused
