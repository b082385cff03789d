"""`parse_text(format=f)` against `extract(formats=[f])` on each format's corpus texts, in the
same run (the registry issue's target: parse_text at most 1.3x extract). Both read the texts
with the same engine; parse_text also returns the content and the reasoning, so the two must
give the same calls before anything is timed.

    python -m pytest benches/bench_parse_vs_extract.py --benchmark-group-by=param:name \
        --benchmark-columns=min,median,rounds
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import toolwire

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from renderers import RENDERERS

DATA = Path(__file__).parent.parent / "tests" / "data" / "cases.jsonl"
# Formats whose values are typed by the tools' schemas (the others ignore `tools=`).
TYPED = {"qwen3_coder", "glm45", "minimax_m2", "deepseek_dsml"}

Text = tuple[str, list[dict[str, Any]] | None]


@functools.cache
def cases() -> list[dict[str, Any]]:
    with DATA.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@functools.cache
def corpus(name: str) -> list[Text]:
    texts: list[Text] = []
    render = RENDERERS.get(name)
    for k, case in enumerate(cases()):
        text = render(case, k) if render else case["wire"].get(name)
        if text is not None:
            texts.append((text, case["tools"] if name in TYPED else None))
    return texts


FORMATS = [f for f in toolwire.FORMATS if corpus(f)] + ["text_tagged"]


def run_extract(name: str, texts: list[Text]) -> list[list[Any]]:
    return [toolwire.extract(t, formats=[name], tools=tools, on_error="keep") for t, tools in texts]


def run_parse_text(name: str, texts: list[Text]) -> list[list[Any]]:
    return [toolwire.parse_text(t, format=name, tools=tools).calls for t, tools in texts]


def shape(call: toolwire.ToolCall | toolwire.InvalidToolCall) -> tuple[str | None, Any]:
    if isinstance(call, toolwire.ToolCall):
        return call.name, call.arguments
    return call.name, call.raw


def calls_of(results: list[list[Any]]) -> list[list[tuple[str | None, Any]]]:
    return [[shape(c) for c in calls] for calls in results]


@pytest.mark.parametrize("how", ["extract", "parse_text"])
@pytest.mark.parametrize("name", FORMATS)
def test_parse_text_vs_extract(benchmark: Any, name: str, how: str) -> None:
    texts = corpus(name)
    expected = calls_of(run_extract(name, texts))
    assert all(expected), f"every {name} corpus text holds calls"
    run = run_extract if how == "extract" else run_parse_text
    benchmark.group = f"parse_text vs extract: {name}"
    results = benchmark(run, name, texts)
    assert calls_of(results) == expected
