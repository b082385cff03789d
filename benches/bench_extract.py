"""`extract` on the corpus text renderings vs a straightforward pure-Python implementation of
the same rules (`pure_python_extract.py`). Target: >= 10x. Results are checked equal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pure_python_extract
import pytest
import toolwire
from bench_data import arguments_floor, as_pairs, corpus_cases

IMPLEMENTATIONS: dict[str, Callable[[str], list[Any]]] = {
    "toolwire": toolwire.extract,
    "pure_python": pure_python_extract.extract,
}


@pytest.mark.parametrize("protocol", ["text_tagged", "raw_json"])
@pytest.mark.parametrize("implementation", list(IMPLEMENTATIONS))
def test_extract_corpus(benchmark: Any, protocol: str, implementation: str) -> None:
    texts = [case["wire"][protocol] for case in corpus_cases()]
    expected = [[(c["name"], c["arguments"]) for c in case["calls"]] for case in corpus_cases()]
    extract = IMPLEMENTATIONS[implementation]
    benchmark.group = f"extract {protocol} ({len(texts)} texts)"
    results = benchmark(lambda: [extract(text) for text in texts])
    assert [as_pairs(r) for r in results] == expected


@pytest.mark.parametrize("protocol", ["text_tagged", "raw_json"])
def test_extract_corpus_arguments_floor(benchmark: Any, protocol: str) -> None:
    """Only the arguments, pre-cut and decoded by orjson: how much faster than the pure-Python
    implementation any extractor returning dicts can be (see `bench_data.arguments_floor`)."""
    calls = [[(c["name"], c["arguments"]) for c in case["calls"]] for case in corpus_cases()]
    benchmark.group = f"extract {protocol} ({len(calls)} texts)"
    decoded = benchmark(arguments_floor(calls))
    assert decoded == [[arguments for _, arguments in text_calls] for text_calls in calls]


@pytest.mark.parametrize("implementation", list(IMPLEMENTATIONS))
def test_extract_marker_free_prose(benchmark: Any, implementation: str) -> None:
    prose = ("The quick brown fox jumps over the lazy dog. " * 23_000)[:1_000_000]
    extract = IMPLEMENTATIONS[implementation]
    benchmark.group = "extract 1 MB of prose without markers"
    assert benchmark(extract, prose) == []
