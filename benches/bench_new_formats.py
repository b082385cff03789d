"""`extract(formats="auto")` and the stream on each call-list, Functionary, InternLM2, Gemma and
Inkling format of issue 23 (the corpus rendered by `tests/renderers.py`), against a pure-Python
detector of that format (`formats_python_lists.py`, `formats_python_tagged.py`), in the same
run. All must give the corpus calls before anything is timed.

    python -m pytest benches/bench_new_formats.py --benchmark-group-by=param:name \
        --benchmark-columns=min,mean,rounds
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import toolwire

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
import formats_python_lists
import formats_python_tagged
from renderers import RENDERERS, as_auto_reads
from support import cases

# The call-list family (rust/core/src/formats/json_list/), then the tagged formats.
LISTS = tuple(
    "lfm2 jamba minimax_m1 nemotron granite apertus command_r7b command_r olmo3 phi4_mini".split()
)
TAGGED = ("functionary_v3_2", "internlm2", "function_gemma", "gemma4", "inkling")
FORMATS = LISTS + TAGGED
CHUNK = 16

Item = tuple[str, list[tuple[str, dict[str, Any]]]]


def renderings(name: str) -> list[Item]:
    items: list[Item] = []
    for k, case in enumerate(cases()):
        text = RENDERERS[name](case, k)
        if text is not None:
            calls = [(c["name"], c["arguments"]) for c in case["calls"]]
            items.append((as_auto_reads(name, text), calls))
    return items


def extracted(items: list[Item]) -> list[Any]:
    extract = toolwire.extract
    return [[(c.name, c.arguments) for c in extract(text)] for text, _ in items]


def streamed(name: str) -> Callable[[list[Item]], list[Any]]:
    def run(items: list[Item]) -> list[Any]:
        results = []
        for text, _ in items:
            parser = toolwire.StreamParser(formats=[name])
            events = []
            for at in range(0, len(text), CHUNK):
                events += parser.feed(text[at : at + CHUNK])
            events += parser.finish()
            results.append(
                [(e.call.name, e.call.arguments) for e in events if e.kind == "tool_call_end"]
            )
        return results

    return run


def python(name: str) -> Callable[[list[Item]], list[Any]]:
    detect = getattr(formats_python_lists if name in LISTS else formats_python_tagged, name)
    return lambda items: [detect(text) for text, _ in items]


@pytest.mark.parametrize("impl", ["toolwire_extract", "toolwire_stream", "python"])
@pytest.mark.parametrize("name", FORMATS)
def test_new_formats(benchmark: Any, name: str, impl: str) -> None:
    items = renderings(name)
    run = {
        "toolwire_extract": extracted,
        "toolwire_stream": streamed(name),
        "python": python(name),
    }[impl]
    expected = [calls for _, calls in items]
    assert run(items) == expected
    benchmark.group = f"new formats {name}"
    assert benchmark(run, items) == expected
