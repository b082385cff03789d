"""Issue 20, item 9: near-miss fences. CR-only line endings and ```` ```tool_call ```` fences are
read on every text path (`support.every_path`), the stream in any chunking; a ```` ``` ````
code block around a block keeps it a quoted example (docs/parsing.md).

The other near misses of item 9 are covered where they were fixed: `~~~ tool_call` in
`test_call_edges.py::test_a_spaced_opening_fence_is_read`, invisible characters before the fence
in `test_adversarial.py::test_a_leading_byte_order_mark_pads_the_first_fence_line` (U+FEFF) and
`test_fuzz_api.py` (U+200B, U+00A0 and U+FEFF openers), and the code block in `not_blocks` of
`rust/core/src/scan/fence.rs` and `test_a_block_in_a_code_block_is_a_quoted_example` below.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import toolwire
from hypothesis import given
from hypothesis import strategies as st
from support import every_path
from toolwire import InvalidToolCall, ToolCall

LINE_ENDINGS = ["\n", "\r\n", "\r"]
FENCES = ["~~~", "```"]
CALL = '{"name": "f", "arguments": {"a": "x y"}}'


def shapes(calls: list[Any]) -> list[tuple[Any, ...]]:
    return [
        ("call", c.name, c.arguments) if isinstance(c, ToolCall) else ("invalid", c.name)
        for c in calls
    ]


def agree(text: str) -> list[tuple[Any, ...]]:
    """The calls of `text` on every path, which must agree (ids apart)."""
    results = [shapes(calls) for calls in every_path(text)]
    assert all(r == results[0] for r in results), (text, results)
    return results[0]


def block(nl: str, fence: str, body: str = CALL) -> str:
    return nl.join(["Sure.", f"{fence}tool_call", body, fence, "Done."])


@pytest.mark.parametrize("fence", FENCES)
@pytest.mark.parametrize("nl", LINE_ENDINGS)
def test_a_block_is_read_with_any_line_ending_and_either_fence(nl: str, fence: str) -> None:
    text = block(nl, fence)
    assert agree(text) == [("call", "f", {"a": "x y"})]
    assert toolwire.parse_text(text).content == f"Sure.{nl}Done."
    assert shapes(toolwire.parse_text_tagged(text)) == [("call", "f", {"a": "x y"})]


@pytest.mark.parametrize("fence", FENCES)
@pytest.mark.parametrize("nl", LINE_ENDINGS)
def test_the_extract_cascade_reads_the_block(nl: str, fence: str) -> None:
    text = block(nl, fence)
    # The fence tier wins over the formats and raw JSON (whose `{…}` the body also is).
    for formats in ("auto", ["text_tagged"]):
        assert shapes(toolwire.extract(text, formats=formats)) == [("call", "f", {"a": "x y"})]
    # A natively calling provider whose model wrote the call in its text: the fence fallback.
    message = {"text": text, "tool_calls": []}
    calls = toolwire.extract(message, native_tool_calls=True)
    assert shapes(calls) == [("call", "f", {"a": "x y"})]


@pytest.mark.parametrize("nl", LINE_ENDINGS)
def test_a_json_fence_is_read_with_any_line_ending(nl: str) -> None:
    # Raw JSON in a ```json fence (the default `raw_json="fenced"`), found while checking.
    text = nl.join(["Sure:", "```json", CALL, "```", "Done"])
    assert agree(text) == [("call", "f", {"a": "x y"})]
    assert toolwire.parse_text(text).content == f"Sure:{nl}Done"


@pytest.mark.parametrize("invisible", ["\ufeff", "\u200b", "\u2060", "\u00a0"])
@pytest.mark.parametrize("nl", LINE_ENDINGS)
def test_invisible_indentation_before_a_fence(invisible: str, nl: str) -> None:
    text = block(nl, invisible + " ~~~")
    assert agree(text) == [("call", "f", {"a": "x y"})]
    # In the middle of a line it is an ordinary character: no fence there.
    assert agree("Sure." + invisible + "~~~tool_call" + nl + CALL + nl + "~~~") == []


@pytest.mark.parametrize("nl", LINE_ENDINGS)
def test_unterminated_or_mismatched_fences_are_invalid_calls_not_silence(nl: str) -> None:
    # A block opened in backticks is closed by backticks only (and the reverse): read to the
    # end of the text, it is an unterminated block, reported with its name.
    for opener, closer in [("```", "~~~"), ("~~~", "```"), ("```", "")]:
        text = nl.join([f"{opener}tool_call", CALL, closer])
        assert agree(text) == [("invalid", "f")], text
        [invalid] = toolwire.extract(text, on_error="keep")
        assert isinstance(invalid, InvalidToolCall) and "unterminated" in invalid.error


@pytest.mark.parametrize("nl", LINE_ENDINGS)
def test_a_block_in_a_code_block_is_a_quoted_example(nl: str) -> None:
    for inner in FENCES:
        text = nl.join(["Example:", "```", f"{inner}tool_call", CALL, inner, "```", "Bye."])
        assert agree(text) == [], text
        assert toolwire.parse_text(text).content == text


def test_fence_lines_of_cr_only_text() -> None:
    # Spaced, indented and padded fence lines, a closing line with prose, two blocks.
    text = (
        "a\r  ~~~ tool_call \r"
        + CALL
        + "\r~~~ and then some prose\r```tool_call\r"
        + '[{"name": "g", "arguments": {}}]\r```\rb'
    )
    assert agree(text) == [("call", "f", {"a": "x y"}), ("call", "g", {})]
    assert toolwire.parse_text(text).content == "a\r  and then some prose\rb"
    # A lone `\r` in a JSON string is the character itself and does not end the block there.
    text = '~~~tool_call\r{"name": "f", "arguments": {"a": "x\r~~~\ry"}}\r~~~\r'
    [call] = toolwire.extract(text)
    assert call.arguments == {"a": "x\r~~~\ry"}
    assert agree(text) == [("call", "f", {"a": "x\r~~~\ry"})]


@pytest.mark.parametrize("nl", LINE_ENDINGS)
def test_a_line_end_closes_an_inline_code_span(nl: str) -> None:
    # An unclosed backtick quotes the rest of its line only: the marker on the next line is read,
    # whichever line ending the text has.
    text = f"say `open{nl}<tool_call>{CALL}</tool_call>"
    assert agree(text) == [("call", "f", {"a": "x y"})]
    assert toolwire.parse_text(text).content == f"say `open{nl}"
    # On the same line, it is quoted.
    assert agree(f"say `open <tool_call>{CALL}</tool_call>") == []


def normalised(events: list[Any]) -> list[Any]:
    """A stream's events with the pieces of text and arguments joined (how a chunking splits
    them is free) and the calls without their ids."""
    out: list[Any] = []
    for event in events:
        if event.kind in ("text_delta", "reasoning_delta", "tool_call_delta"):
            key = (event.kind, getattr(event, "index", None))
            piece = event.arguments if event.kind == "tool_call_delta" else event.text
            if out and out[-1][0] == key:
                out[-1][1] += piece
            else:
                out.append([key, piece])
        elif event.kind == "tool_call_start":
            out.append([("start", event.index, event.name), ""])
        elif event.kind == "tool_call_end":
            call = event.call
            out.append([("end", event.index, call.name, json.dumps(call.arguments)), ""])
        else:
            out.append([("invalid", event.index, event.name, event.error), ""])
    return out


def events_of(chunks: list[Any]) -> list[Any]:
    parser = toolwire.StreamParser()
    return normalised([e for chunk in chunks for e in parser.feed(chunk)] + parser.finish())


#: Texts where a chunk may end right after a `\r`: before a `\n` (one break) or not (a break,
#: then the next line).
CHUNKED = [
    block("\r", "~~~"),
    block("\r\n", "~~~"),
    block("\r", "```"),
    "~~~tool_call\r\n" + CALL + "\r~~~\r\n~~~tool_call\r" + CALL + "\r\n~~~ x\r\r\n",
    "```tool_call\r" + CALL + "\r```\r\n```\rcode\r```\r~~~tool_call\r\n" + CALL + "\r~~~",
    "~~~tool_call\r" + CALL[:20],
    "Sure:\r```json\r" + CALL + "\r```\rDone",
    "```json\r\n" + CALL + "\r\n```\r\n",
    "say `open\r<tool_call>" + CALL + "</tool_call>`\r\n`<tool_call>" + CALL + "</tool_call>",
]


@pytest.mark.parametrize("text", CHUNKED)
def test_the_stream_is_chunk_invariant_at_every_cr(text: str) -> None:
    whole = events_of([text])
    for cut in range(1, len(text)):
        assert events_of([text[:cut], text[cut:]]) == whole, (text, cut)
    assert events_of(list(text)) == whole
    data = text.encode()
    assert events_of([data[i : i + 1] for i in range(len(data))]) == whole


@given(st.sampled_from(CHUNKED), st.lists(st.integers(0, 200), max_size=12))
def test_the_stream_is_chunk_invariant_in_random_chunks(text: str, cuts: list[int]) -> None:
    points = sorted({min(c, len(text)) for c in cuts})
    chunks = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    assert events_of(chunks) == events_of([text])


# DeepSeek's tokens hold U+FF5C and U+2581 (written escaped, as ruff asks).
DS_BEGIN, DS_CALL, DS_SEP = (
    "<\uff5ctool\u2581calls\u2581begin\uff5c>",
    "<\uff5ctool\u2581call\u2581begin\uff5c>",
    "<\uff5ctool\u2581sep\uff5c>",
)
DS_CALL_END, DS_END = (
    "<\uff5ctool\u2581call\u2581end\uff5c>",
    "<\uff5ctool\u2581calls\u2581end\uff5c>",
)
DEEPSEEK_V3 = (
    f"Checking.{{nl}}{DS_BEGIN}{DS_CALL}function{DS_SEP}get_weather{{nl}}"
    f'```json{{nl}}{{{{"city": "Paris"}}}}{{nl}}```{DS_CALL_END}{DS_END}'
)


@pytest.mark.parametrize("nl", LINE_ENDINGS)
def test_deepseek_v3_name_line_and_fence_in_any_line_ending(nl: str) -> None:
    # Issue 20: the name line and the ```json fence end at `\n`, `\r\n` or a lone `\r`.
    text = DEEPSEEK_V3.format(nl=nl)
    assert agree(text) == [("call", "get_weather", {"city": "Paris"})]
    for formats in (["deepseek_v3"], ["deepseek_v3", "deepseek_v31"]):
        [call] = toolwire.extract(text, formats=formats, on_error="keep")
        assert isinstance(call, ToolCall) and call.arguments == {"city": "Paris"}
        assert toolwire.parse_text(text, formats).content == f"Checking.{nl}"
    whole = events_of([text])
    assert ("end", 0, "get_weather", '{"city": "Paris"}') in [tuple(e[0]) for e in whole]
    for cut in range(1, len(text)):
        assert events_of([text[:cut], text[cut:]]) == whole, (nl, cut)
    data = text.encode()
    assert events_of([data[i : i + 1] for i in range(len(data))]) == whole
