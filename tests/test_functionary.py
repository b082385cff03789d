"""Functionary v3.1 (read as hermes) and v3.2 (`functionary_v3_2`): the peers' test cases, the
corpus rendered in v3.2, stream invariants, auto-detection picking the same calls as naming
the format where the text writes its `>>>`, and `>>>` in prose staying prose."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import toolwire
from hypothesis import given, settings
from hypothesis import strategies as st
from renderers import RENDERERS, as_auto_reads
from support import DATA, cases, every_path, fed_in_chunks, streamed_calls
from test_new_formats_json import shape
from test_stream import check_invariants
from test_stream_formats import check_stream

FMT = "functionary_v3_2"


def peer_cases(fmt: str) -> list[dict[str, Any]]:
    with (DATA / "conformance" / "peer_cases.jsonl").open(encoding="utf-8") as f:
        return [c for c in map(json.loads, f) if c["format"] == fmt]


def three_paths(text: str, fmt: str, tools: Any = None) -> list[tuple[list[Any], str | None]]:
    """The calls and content of extract, parse_text and a stream fed in random chunks."""
    parsed = toolwire.parse_text(text, format=fmt, tools=tools)
    parser = toolwire.StreamParser(formats=[fmt], tools=tools)
    events = fed_in_chunks(parser, text, random.Random(text), (1, 2, 3, 5, 8))
    streamed = "".join(e.text for e in events if e.kind == "text_delta")
    return [
        (toolwire.extract(text, formats=[fmt], tools=tools, on_error="keep"), None),
        (list(parsed.calls), parsed.content),
        (streamed_calls(events), streamed),
    ]


@pytest.mark.parametrize(
    ("fmt", "count"), [("functionary_v3_1", 1), ("functionary_v3_2", 5), ("functionary_v3_2", 5)]
)
def test_the_peer_cases_are_here(fmt: str, count: int) -> None:
    assert len(peer_cases(fmt)) >= count


@pytest.mark.parametrize(
    "case",
    peer_cases("functionary_v3_1") + peer_cases("functionary_v3_2"),
    ids=lambda c: f"{c['format']}:{c['test']}",
)
def test_peer_cases_on_three_paths(case: dict[str, Any]) -> None:
    expected = [(c["name"], c["arguments"]) for c in case["calls"]]
    for calls, content in three_paths(case["text"], case["format"], case["tools"]):
        assert [(c.name, c.arguments) for c in calls] == expected
        if content is not None and case["content"] is not None:
            assert content.strip() == case["content"].strip()
    # Found without naming the format, the same way, where the text writes its markers; a v3.2
    # message that starts after the prompt's `>>>` is read so only where the format is named.
    auto = toolwire.extract(case["text"], tools=case["tools"], on_error="keep")
    if case["format"] == "functionary_v3_1" or case["text"].startswith(">>>"):
        assert [(c.name, c.arguments) for c in auto] == expected
    else:
        assert auto == []
        assert toolwire.parse_text(case["text"]).content == case["text"]


def rendered(step: int = 1) -> list[tuple[str, Any, list[Any]]]:
    texts = []
    for k, case in enumerate(cases()):
        if k % step == 0:
            text = RENDERERS[FMT](case, k)
            if text is not None:
                texts.append((text, case["tools"], case["calls"]))
    return texts


def test_the_corpus_reads_back() -> None:
    checked = 0
    for text, tools, calls in rendered(3):
        parsed = toolwire.parse_text(text, format=FMT, tools=tools)
        assert [(c.name, c.arguments) for c in parsed.calls] == [
            (c["name"], c["arguments"]) for c in calls
        ], text
        assert parsed.content.strip() in ("", "Let me look that up."), text
        auto = toolwire.extract(as_auto_reads(FMT, text), tools=tools, on_error="keep")
        assert [shape(c) for c in auto] == [shape(c) for c in parsed.calls], text
        checked += 1
    assert checked > 400


def test_renderings_stream_as_they_parse() -> None:
    rng = random.Random(FMT)
    checked = 0
    for text, tools, _ in rendered(25):
        check_stream(text, FMT, tools, rng)
        checked += 1
    assert checked > 50


@settings(max_examples=150, deadline=None)
@given(
    base=st.sampled_from(
        [t for t, _, _ in rendered(40)] + [c["text"] for c in peer_cases("functionary_v3_2")]
    ),
    cuts=st.lists(st.integers(0, 10**4), max_size=20),
    byte_cuts=st.lists(st.integers(0, 10**4), max_size=20),
)
def test_stream_invariants(base: str, cuts: list[int], byte_cuts: list[int]) -> None:
    check_invariants(base, cuts, byte_cuts)


@pytest.mark.parametrize(
    ("text", "calls", "content"),
    [
        # Calls back to back, as the template writes them, or on lines of their own.
        ('>>>f\n{"a": 1}>>>g\n{"b": 2}', [("f", {"a": 1}), ("g", {"b": 2})], ""),
        ('f\n{"a": 1}\n>>>g\n{}\nDone.', [("f", {"a": 1}), ("g", {})], "Done."),
        # Content up to the next `>>>`, wherever it stands in the content.
        ('all\nSure: a >>> b.>>>f\n{"a": 1}', [], "Sure: a"),
        ('>>>all\nOn it.\n>>>f\n{"a": 1}>>>all\nDone.', [("f", {"a": 1})], "On it.\nDone."),
        # Raw code for the code interpreter, to the end of the text.
        (">>>python\nprint('>>>')\n", [("python", {"code": "print('>>>')"})], ""),
    ],
)
def test_messages(text: str, calls: list[Any], content: str) -> None:
    for got, got_content in three_paths(text, FMT):
        if text.startswith("all\nSure"):
            # `>>> b.` is not a header: the message ends there and the rest is text.
            assert got == []
            assert got_content is None or got_content.startswith("Sure: a >>> b.")
            continue
        assert [(c.name, c.arguments) for c in got] == calls
        if got_content is not None:
            assert got_content.strip().replace("\n\n", "\n") == content


@pytest.mark.parametrize(
    "text",
    [
        "In the REPL:\n>>> print(1)\n1",
        ">>> quoted reply\n>> older",
        'Use the `>>>f\n{"a": 1}` form.',
        'Mid-line: x >>>f\n{"a": 1}',
        "all\nwithout a call is content",
        "json\n[1, 2]",
        "Hello\nworld {}",
    ],
)
def test_prose_is_prose(text: str) -> None:
    assert toolwire.extract(text) == []
    assert toolwire.parse_text(text, format=FMT).calls == []


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        ('json\n{"name": "get_weather", "arguments": {"city": "Paris"}}', [("json", None)]),
        ('Answer\n{"a": 1}', [("Answer", {"a": 1})]),
        ("python\nprint(1)", [("python", {"code": "print(1)"})]),
        ("all\nHi.>>>f\n{}", [("f", {})]),
    ],
)
def test_only_the_named_format_reads_the_prompts_header(text: str, calls: list[Any]) -> None:
    # Under "auto" nothing in these texts shows Functionary (a word over a line of JSON, a
    # message that starts with `python`): they stay content, never a call or code to run.
    assert toolwire.extract(text) == []
    assert toolwire.parse_text(text).calls == []
    assert toolwire.parse_text(text).content == text
    parser = toolwire.StreamParser()
    events = [*parser.feed(text), *parser.finish()]
    assert "".join(e.text for e in events if e.kind == "text_delta") == text
    assert streamed_calls(events) == []
    # Named, the prompt wrote the first `>>>`, and the message starts with its header.
    for got, _ in three_paths(text, FMT):
        assert [c.name for c in got] == [name for name, _ in calls]
        for call, (_, arguments) in zip(got, calls, strict=True):
            if arguments is not None:
                assert call.arguments == arguments


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_every_line_end_ends_a_header_line(eol: str) -> None:
    # CR-only line ends (old Mac text) start `>>>` lines and end name lines as `\n` does.
    text = f'Checking.{eol}  >>>f{eol}{{"a": 1}}{eol}>>>all{eol}Done.'
    for calls, content in three_paths(text, FMT):
        assert [(c.name, c.arguments) for c in calls] == [("f", {"a": 1})]
        if content is not None:
            assert content.split() == ["Checking.", "Done."]
    assert toolwire.extract(f"Checking.{eol}>>>f{eol}{{}}") != []


def test_broken_arguments_fail_alone() -> None:
    text = '>>>f\n{"a": nope}>>>g\n{"b": 2}'
    for calls, _ in three_paths(text, FMT):
        assert [type(c).__name__ for c in calls] == ["InvalidToolCall", "ToolCall"]
        assert calls[0].name == "f"
        assert calls[0].raw == '>>>f\n{"a": nope}'


def test_a_message_start_is_tried_once() -> None:
    # The message start is read as a header first; anything else reads on as before.
    text = 'functools[{"name": "f", "arguments": {"a": 1}}]'
    assert [c.name for c in toolwire.extract(text)] == ["f"]
    assert toolwire.parse_text("functions are values.").content == "functions are values."
    text = '~~~tool_call\n{"name": "f", "arguments": {}}\n~~~'
    assert [c.name for c in toolwire.extract(text)] == ["f"]


def test_functionary_v3_1_is_hermes_and_llama3_json() -> None:
    """Functionary v3.1 writes hermes's `<function=f>{…}</function>`, and Llama 3.1's raw code
    after `<|python_tag|>` and end tokens (Meta's custom-tool form too): its names read both."""
    text = 'Checking.<function=f>{"a": 1}</function><|eot_id|>'
    for fmt in ("functionary_v3_1", "functionary_v3_1_llama_3_1"):
        assert toolwire.FORMAT_ALIASES[fmt] == ("hermes", "llama3_json")
        parsed = toolwire.parse_text(text, format=fmt)
        assert [(c.name, c.arguments) for c in parsed.calls] == [("f", {"a": 1})]
        assert parsed.content == "Checking."
        [code] = toolwire.parse_text("<|python_tag|>print(1)<|eom_id|>", format=fmt).calls
        assert (code.name, code.arguments) == ("python", {"code": "print(1)"})
    # hermes alone reads the call; Llama's end token is not its own.
    parsed = toolwire.parse_text(text, format="hermes")
    assert [c.name for c in parsed.calls] == ["f"] and parsed.content == "Checking.<|eot_id|>"


def test_raw_code_after_python_tag_is_a_python_call() -> None:
    """Functionary v3.1 (and Llama 3.1's code interpreter) write raw code after
    `<|python_tag|>`: llama.cpp reads it as the call `python` with `{"code": …}`. It runs to
    the message's end token or the end of the text; JSON objects and built-in tool calls after
    the tag are read as before."""
    code = "x = 1 if a < b else 2\nprint(x)"
    want = ("python", {"code": code})
    texts = [
        f"<|python_tag|>{code}",
        f"Computing.<|python_tag|>\n{code}\n<|eom_id|>",
        f'<function=f>{{"a": 1}}</function><|python_tag|>{code}<|eot_id|>',
    ]
    for text in texts:
        parsed = toolwire.parse_text(text)
        assert (parsed.calls[-1].name, parsed.calls[-1].arguments) == want, text
        assert parsed.content in ("", "Computing.")
        for path in every_path(text):
            assert [(c.name, c.arguments) for c in path][-1] == want, text
    # `formats=` names both: Functionary v3.1's `<function=…>` is hermes's, the tag Llama 3's.
    both = toolwire.extract(texts[2], formats=["functionary_v3_1", "llama3_json"])
    assert [c.name for c in both] == ["f", "python"]
    # A built-in tool's call is still read as one; so are JSON objects.
    text = '<|python_tag|>brave_search.call(query="x")<|eom_id|>'
    assert [(c.name, c.arguments) for c in toolwire.extract(text)] == [
        ("brave_search", {"query": "x"})
    ]
    text = '<|python_tag|>python.call(code="print(1)")'
    assert [(c.name, c.arguments) for c in toolwire.extract(text)] == [
        ("python", {"code": "print(1)"})
    ]
    # A name the text cuts off before `(` is code; an empty body is a failed call.
    assert toolwire.extract("<|python_tag|>print")[0].arguments == {"code": "print"}
    [bad] = toolwire.extract("<|python_tag|>", on_error="keep")
    assert isinstance(bad, toolwire.InvalidToolCall)
