"""`extract(formats="auto")` on each open-weight format's corpus renderings, against a pure-Python
detector of that format (`formats_python.py`), in the same run. Both must give the corpus
calls before anything is timed.

    python -m pytest benches/bench_formats.py --benchmark-group-by=param:name \
        --benchmark-columns=min,mean,rounds
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import toolwire
from bench_data import arguments_floor

sys.path.insert(0, str(Path(__file__).parent))
import formats_python

DATA = Path(__file__).parent.parent / "tests" / "data" / "cases.jsonl"
FORMATS = (
    "hermes",
    "mistral",
    "llama3_json",
    "pythonic",
    "deepseek_v31",
    "kimi_k2",
    "harmony",
    "qwen3_coder",
)

Item = tuple[str, list[dict[str, Any]], list[tuple[str, dict[str, Any]]]]


def renderings(name: str) -> list[Item]:
    items: list[Item] = []
    with DATA.open(encoding="utf-8") as f:
        for line in f:
            case = json.loads(line)
            text = case["wire"][name]
            if text is not None:
                expected = [(c["name"], c["arguments"]) for c in case["calls"]]
                items.append((text, case["tools"], expected))
    return items


def toolwire_runner(name: str) -> Callable[[list[Item]], list[Any]]:
    extract = toolwire.extract
    if name == "qwen3_coder":
        # Only qwen3_coder values need the schemas (the Python detector reads them too).
        return lambda items: [extract(text, tools=tools) for text, tools, _ in items]
    return lambda items: [extract(text) for text, _, _ in items]


def python_runner(name: str) -> Callable[[list[Item]], list[Any]]:
    detect = getattr(formats_python, name)
    if name == "qwen3_coder":
        return lambda items: [detect(text, tools) for text, tools, _ in items]
    return lambda items: [detect(text) for text, _, _ in items]


@pytest.mark.parametrize("impl", ["toolwire", "python"])
@pytest.mark.parametrize("name", FORMATS)
def test_formats(benchmark: Any, name: str, impl: str) -> None:
    items = renderings(name)
    run = toolwire_runner(name) if impl == "toolwire" else python_runner(name)
    benchmark.group = f"formats {name}"
    results = benchmark(run, items)
    for result, (_, _, expected) in zip(results, items, strict=True):
        got = [(c.name, c.arguments) for c in result] if impl == "toolwire" else result
        assert got == expected


@pytest.mark.parametrize("name", FORMATS)
def test_formats_arguments_floor(benchmark: Any, name: str) -> None:
    """Only the arguments, pre-cut and decoded by orjson: how much faster than the Python
    detector any parser returning dicts can be (see `bench_data.arguments_floor`)."""
    calls = [expected for _, _, expected in renderings(name)]
    benchmark.group = f"formats {name}"
    decoded = benchmark(arguments_floor(calls))
    assert decoded == [[arguments for _, arguments in text_calls] for text_calls in calls]
