"""validate_arguments (Rust ``jsonschema`` crate, compiled schemas cached per tool) against the
Python ``jsonschema`` package (Draft202012Validator built once per tool), over every call of the
corpus, and over the same calls with one argument broken (so messages are built).

Run: ``maturin develop --release && pytest benches/bench_validation.py --benchmark-enable``.
Both sides give the same valid/invalid verdict on every call (checked here). The garbage
collector is off while timing (both sides), so the result lists do not trigger collections that
walk the whole loaded corpus.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema
import pytest
from bench_data import corpus_cases
from toolwire import Tool, validate_arguments

GROUP_VALID = "validate corpus calls"
GROUP_INVALID = "validate broken corpus calls"

Pair = tuple[Tool, Any, dict[str, Any]]
WRONG_VALUE = {
    "string": 12345,
    "integer": "text",
    "number": "text",
    "boolean": "yes",
    "array": "not a list",
    "object": "not an object",
}


@cache
def pairs() -> tuple[list[Pair], list[Pair]]:
    """(tool, Python validator, arguments) for every corpus call, and for the same calls with
    their first typed argument replaced by a value of the wrong type."""
    valid: list[Pair] = []
    broken: list[Pair] = []
    for case in corpus_cases():
        tools = {t["name"]: Tool.from_dict(t) for t in case["tools"]}
        baseline = {
            name: jsonschema.Draft202012Validator(tool.parameters) for name, tool in tools.items()
        }
        for call in case["calls"]:
            tool, arguments = tools[call["name"]], call["arguments"]
            valid.append((tool, baseline[call["name"]], arguments))
            properties = tool.parameters.get("properties", {})
            for key in arguments:
                kind = properties.get(key, {}).get("type")
                if kind in WRONG_VALUE and "enum" not in properties[key]:
                    broken.append(
                        (tool, baseline[call["name"]], {**arguments, key: WRONG_VALUE[kind]})
                    )
                    break
    return valid, broken


def run_toolwire(items: list[Pair]) -> list[list[str]]:
    return [validate_arguments(tool, arguments) for tool, _, arguments in items]


def run_jsonschema(items: list[Pair]) -> list[list[str]]:
    # The fair baseline: the cheap is_valid check first, messages only for invalid arguments.
    return [
        [] if v.is_valid(arguments) else [e.message for e in v.iter_errors(arguments)]
        for _, v, arguments in items
    ]


def verdicts(results: list[list[str]]) -> list[bool]:
    return [not r for r in results]


@pytest.fixture(scope="module")
def corpus() -> tuple[list[Pair], list[Pair]]:
    valid, broken = pairs()
    run_toolwire(valid)  # compile every schema once: the benchmark measures cached validators
    return valid, broken


@pytest.mark.benchmark(group=GROUP_VALID, disable_gc=True)
def test_toolwire_corpus(benchmark: Any, corpus: tuple[list[Pair], list[Pair]]) -> None:
    valid, _ = corpus
    results = benchmark(run_toolwire, valid)
    assert verdicts(results) == verdicts(run_jsonschema(valid))
    assert len(results) > 3000


@pytest.mark.benchmark(group=GROUP_VALID, disable_gc=True)
def test_jsonschema_corpus(benchmark: Any, corpus: tuple[list[Pair], list[Pair]]) -> None:
    valid, _ = corpus
    results = benchmark(run_jsonschema, valid)
    assert verdicts(results) == verdicts(run_toolwire(valid))


@pytest.mark.benchmark(group=GROUP_INVALID, disable_gc=True)
def test_toolwire_broken(benchmark: Any, corpus: tuple[list[Pair], list[Pair]]) -> None:
    _, broken = corpus
    results = benchmark(run_toolwire, broken)
    assert all(results) and all("Retry the tool call" in r[-1] for r in results)


@pytest.mark.benchmark(group=GROUP_INVALID, disable_gc=True)
def test_jsonschema_broken(benchmark: Any, corpus: tuple[list[Pair], list[Pair]]) -> None:
    _, broken = corpus
    results = benchmark(run_jsonschema, broken)
    assert all(results)
