"""FunctionGemma (`function_gemma`) and Gemma 4 (`gemma4`): the corpus rendered in each, stream
invariants, auto-detection picking the same calls as naming the format, and the value syntax.
The peers' cases run in `tests/conformance/`."""

from __future__ import annotations

import random
from typing import Any

import pytest
import toolwire
from hypothesis import given, settings
from hypothesis import strategies as st
from renderers import RENDERERS
from support import cases, every_path
from test_new_formats_json import shape
from test_stream import check_invariants
from test_stream_formats import check_stream

FORMATS = ("function_gemma", "gemma4")


def rendered(fmt: str, step: int = 1) -> list[tuple[str, Any, list[Any]]]:
    texts = []
    for k, case in enumerate(cases()):
        if k % step == 0:
            text = RENDERERS[fmt](case, k)
            if text is not None:
                texts.append((text, case["tools"], case["calls"]))
    return texts


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_corpus_reads_back_and_is_sniffed(fmt: str) -> None:
    checked = 0
    for text, tools, calls in rendered(fmt, 3):
        parsed = toolwire.parse_text(text, format=fmt, tools=tools)
        assert [(c.name, c.arguments) for c in parsed.calls] == [
            (c["name"], c["arguments"]) for c in calls
        ], text
        auto = toolwire.extract(text, tools=tools, on_error="keep")
        assert [shape(c) for c in auto] == [shape(c) for c in parsed.calls], text
        checked += 1
    assert checked > 500


@pytest.mark.parametrize("fmt", FORMATS)
def test_renderings_stream_as_they_parse(fmt: str) -> None:
    rng = random.Random(fmt)
    checked = 0
    for text, tools, _ in rendered(fmt, 25):
        check_stream(text, fmt, tools, rng)
        checked += 1
    assert checked > 80


@settings(max_examples=100, deadline=None)
@given(
    base=st.sampled_from([t for fmt in FORMATS for t, _, _ in rendered(fmt, 40)]),
    cuts=st.lists(st.integers(0, 10**4), max_size=20),
    byte_cuts=st.lists(st.integers(0, 10**4), max_size=20),
)
def test_stream_invariants(base: str, cuts: list[int], byte_cuts: list[int]) -> None:
    check_invariants(base, cuts, byte_cuts)


def test_values() -> None:
    text = (
        '<|tool_call>call:f{s:<|"|>a, b}<|"|>,n:1.5,t:true,z:null,'
        'o:{<|"|>3<|"|>:[<|"|>x<|"|>,2]},"q":"json"}<tool_call|>'
    )
    [call] = toolwire.parse_text(text).calls
    assert call.arguments == {
        "s": "a, b}",
        "n": 1.5,
        "t": True,
        "z": None,
        "o": {"3": ["x", 2]},
        "q": "json",
    }
    # Strings are text as written, whatever the schema says.
    tools = [{"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}]
    text = "<start_function_call>call:f{n:<escape>10<escape>}<end_function_call>"
    assert toolwire.extract(text, tools=tools)[0].arguments == {"n": "10"}


def test_end_tokens_and_failures() -> None:
    # A missing end token is accepted at the end of the text and before the next call.
    text = "<start_function_call>call:f{a:1}<start_function_call>call:g{}"
    assert [c.name for c in toolwire.extract(text)] == ["f", "g"]
    # A call whose string never ends keeps its text, to the end of the text.
    text = '<|tool_call>call:f{a:<|"|>x}<tool_call|>'
    [bad] = toolwire.parse_text(text).calls
    assert isinstance(bad, toolwire.InvalidToolCall)
    assert bad.raw == text


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ('q:weather in Tokyo<|"|>', {"q": "weather in Tokyo"}),
        ('q:Paris, France<|"|>,n:5', {"q": "Paris, France", "n": 5}),
        ('f:{city:Tokyo<|"|>},q:<|"|>x<|"|>', {"f": {"city": "Tokyo"}, "q": "x"}),
        ('q:[<|"|>a<|"|>,b<|"|>]', {"q": ["a", "b"]}),
        ('a:x,b:y<|"|>', {"a": "x", "b": "y"}),
        # A token that opens a quoted key closes no value.
        ('a:1,<|"|>b<|"|>:2', {"a": 1, "b": 2}),
    ],
)
def test_a_string_whose_opening_token_was_left_out(arguments: str, expected: Any) -> None:
    # Gemma 4 at times leaves out a string's opening <|"|>: the closing token ends the string
    # when the text before it can be nothing else (no `:`, bracket, brace or quote).
    text = "<|tool_call>call:f{" + arguments + "}<tool_call|>"
    for calls in every_path(text):
        assert [c.arguments for c in calls] == [expected]


@pytest.mark.parametrize(
    "arguments",
    [
        "p:':\\s*'<|\"|>",  # quotes and a colon: which text is the value is a guess
        'q:a<|"|>b',  # text after the token: where the string ends is a guess
    ],
)
def test_a_token_that_closes_no_string_breaks_the_call(arguments: str) -> None:
    text = "<|tool_call>call:f{" + arguments + "}<tool_call|>"
    [bad] = toolwire.parse_text(text, format="gemma4").calls
    assert isinstance(bad, toolwire.InvalidToolCall)
    assert bad.raw == text


@pytest.mark.parametrize(
    "text",
    [
        "FunctionGemma writes `<start_function_call>call:f{}<end_function_call>`.",
        "Gemma 4 opens calls with ``<|tool_call>``.",
    ],
)
def test_markers_in_code_spans_are_prose(text: str) -> None:
    assert toolwire.extract(text) == []
    assert toolwire.parse_text(text).content == text
