"""`extract_batch` (and the CLI's chunk step) on the shipped sample log, against the
`json.loads` + pure-Python extraction loop users write today, on 1 and 2 threads
(docs/performance.md).

    maturin develop --release
    pytest benches/bench_batch.py --benchmark-enable --benchmark-group-by=group

Targets: at least 5 times faster than the Python loop on 1 thread, and a speed-up of at least
1.7 from 1 to 2 threads.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
import python_extract
import toolwire
from bench_data import ROOT
from toolwire._toolwire import extract_jsonl_chunk

SAMPLE = ROOT / "examples" / "logs_sample.jsonl"


@cache
def bodies() -> tuple[bytes, ...]:
    """Each sample line's response body as JSON text, as a log of bodies holds it."""
    with SAMPLE.open("rb") as f:
        return tuple(json.dumps(json.loads(line)["response"]).encode() for line in f)


def as_baseline(calls: list[Any]) -> Any:
    """toolwire's result in the Python loop's terms: the calls, or ERROR for a broken one."""
    if any(isinstance(c, toolwire.InvalidToolCall) for c in calls):
        return python_extract.ERROR
    return [(c.name, c.arguments) for c in calls]


@cache
def reference() -> list[Any]:
    return [python_extract.extract_line(body) for body in bodies()]


@pytest.mark.benchmark(group="extract_batch on logs_sample.jsonl")
def test_python_loop(benchmark: Any) -> None:
    got = benchmark(lambda: [python_extract.extract_line(body) for body in bodies()])
    assert got == reference()


@pytest.mark.benchmark(group="extract_batch on logs_sample.jsonl")
@pytest.mark.parametrize("threads", [1, 2])
def test_extract_batch(benchmark: Any, threads: int) -> None:
    got = benchmark(toolwire.extract_batch, bodies(), threads=threads)
    assert [as_baseline(calls) for calls in got] == reference()


@pytest.mark.benchmark(group="CLI chunk step (parse, extract, write records)")
@pytest.mark.parametrize("threads", [1, 2])
def test_jsonl_chunk(benchmark: Any, threads: int) -> None:
    log = SAMPLE.read_bytes()

    def whole_log() -> tuple[bytes, int, int]:
        """The CLI's records for the log, read a bounded piece at a time as the CLI does."""
        parts, end, line, lines, calls = [], 0, 1, 0, 0
        while end < len(log):
            output, end, records, found, _, _, blank = extract_jsonl_chunk(
                log, end, line, threads=threads
            )
            parts.append(output)
            line, lines, calls = line + records + blank, lines + records, calls + found
        return b"".join(parts), lines, calls

    output, lines, calls = benchmark(whole_log)
    records = [json.loads(line) for line in output.splitlines()]
    assert lines == len(records) == len(reference())
    want = [c for calls in reference() if calls != python_extract.ERROR for c in calls]
    good = [
        (c["name"], c["arguments"]) for r in records if not r["errors"] for c in r["tool_calls"]
    ]
    assert good == want and calls >= len(want)
