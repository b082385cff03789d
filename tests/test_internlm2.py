"""InternLM2 (`internlm2`) and Granite 20B FC (read as hermes: `<function_call> {…}` before
each call, none closed): the corpus rendered in InternLM2, stream invariants, auto-detection
picking the same calls as naming the format. The peers' cases run in `tests/conformance/`."""

from __future__ import annotations

import random
from typing import Any

import toolwire
from hypothesis import given, settings
from hypothesis import strategies as st
from renderers import RENDERERS
from support import cases
from test_new_formats_json import shape
from test_stream import check_invariants
from test_stream_formats import check_stream

FMT = "internlm2"


def rendered(step: int = 1) -> list[tuple[str, Any, list[Any]]]:
    texts = []
    for k, case in enumerate(cases()):
        if k % step == 0:
            texts.append((RENDERERS[FMT](case, k), case["tools"], case["calls"]))
    return texts


def test_the_corpus_reads_back_and_is_sniffed() -> None:
    for text, tools, calls in rendered(3):
        parsed = toolwire.parse_text(text, format=FMT, tools=tools)
        assert [(c.name, c.arguments) for c in parsed.calls] == [
            (c["name"], c["arguments"]) for c in calls
        ], text
        auto = toolwire.extract(text, tools=tools, on_error="keep")
        assert [shape(c) for c in auto] == [shape(c) for c in parsed.calls], text


def test_renderings_stream_as_they_parse() -> None:
    rng = random.Random(FMT)
    for text, tools, _ in rendered(25):
        check_stream(text, FMT, tools, rng)


@settings(max_examples=100, deadline=None)
@given(
    base=st.sampled_from([t for t, _, _ in rendered(40)]),
    cuts=st.lists(st.integers(0, 10**4), max_size=20),
    byte_cuts=st.lists(st.integers(0, 10**4), max_size=20),
)
def test_stream_invariants(base: str, cuts: list[int], byte_cuts: list[int]) -> None:
    check_invariants(base, cuts, byte_cuts)


def test_granite_20b_fc_calls_are_not_closed() -> None:
    text = (
        'Checking.\n<function_call> {"name": "f", "arguments": {"a": 1}}\n'
        '<function_call> {"name": "g", "arguments": {}}'
    )
    for fmt in ("granite_20b_fc", "hermes"):
        parsed = toolwire.parse_text(text, format=fmt)
        assert [(c.name, c.arguments) for c in parsed.calls] == [("f", {"a": 1}), ("g", {})]
        assert parsed.content.strip() == "Checking."
    # Another text after an unclosed object is still an error: the tag was left open.
    [bad] = toolwire.parse_text('<function_call>{"name": "f", "arguments": {}} then').calls
    assert isinstance(bad, toolwire.InvalidToolCall)
    assert "expected </function_call>" in bad.error


def test_an_action_in_a_code_span_is_prose() -> None:
    text = "InternLM2 opens calls with `<|action_start|><|plugin|>`."
    assert toolwire.extract(text) == []
    assert toolwire.parse_text(text, format=FMT).content == text
