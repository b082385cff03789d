"""A value Python cannot make (an integer longer than its int-string limit, 4300 digits by
default) fails the call that holds it, never the response, the stream, the batch or the loop:
that call is an ``InvalidToolCall`` (ArgumentsError kind) naming the limit and where it is."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import toolwire
from toolwire import ArgumentsError, InvalidToolCall, ToolCall

LIMIT = sys.get_int_max_str_digits()
LONG = "1" + "0" * LIMIT  # one digit too many
REFUSED = f"integer of {LIMIT + 1} digits exceeds the limit of {LIMIT} digits"
TEXT = (
    '~~~tool_call\n{"name":"ok","arguments":{}}\n~~~\n'
    '~~~tool_call\n{"name":"f","arguments":{"a":' + LONG + "}}\n~~~\n"
)
OPENAI = {
    "choices": [
        {
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "ok", "arguments": "{}"}},
                    {
                        "id": "b",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"a": ' + LONG + "}"},
                    },
                ],
            }
        }
    ]
}
#: The long integer as a JSON number of the body itself (Python cannot load the line).
ANTHROPIC_LINE = (
    '{"content": [{"type": "tool_use", "id": "t1", "name": "ok", "input": {}}, '
    '{"type": "tool_use", "id": "t2", "name": "f", "input": {"a": ' + LONG + "}}]}"
)


def good_then_refused(calls: list[Any], *, name: str | None = "f") -> InvalidToolCall:
    """The first call is `ok`, the second the refused one; returns it."""
    assert len(calls) == 2, calls
    good, bad = calls
    assert isinstance(good, ToolCall) and good.name == "ok"
    assert isinstance(bad, InvalidToolCall) and REFUSED in bad.error, bad
    assert bad.index == 1 and (name is None or bad.name == name)
    return bad


@pytest.fixture(autouse=True)
def default_limit() -> Iterator[None]:
    limit = sys.get_int_max_str_digits()
    yield
    sys.set_int_max_str_digits(limit)


def test_extract_keeps_the_good_call_and_reports_the_refused_one_where_it_is() -> None:
    bad = good_then_refused(toolwire.extract(TEXT, on_error="keep"), name=None)
    assert bad.error.startswith("invalid arguments in ~~~tool_call block 1 at line 1 column 30")
    assert TEXT[bad.offset :].startswith(LONG)
    assert [c.name for c in toolwire.extract(TEXT, on_error="skip")] == ["ok"]
    with pytest.raises(ArgumentsError, match=REFUSED) as raised:
        toolwire.extract(TEXT)
    assert raised.value.offset == bad.offset
    assert good_then_refused(toolwire.extract(TEXT.encode(), on_error="keep"), name=None)


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "f", "arguments": {"a": ' + LONG + "}}</tool_call>",
        '{"name": "f", "arguments": {"a": ' + LONG + "}}",
        "[f(a=" + LONG + ")]",
    ],
    ids=["hermes", "raw_json", "pythonic"],
)
def test_every_text_format_reports_the_refused_value_at_its_offset(text: str) -> None:
    [bad] = toolwire.extract(text, on_error="keep")
    assert isinstance(bad, InvalidToolCall) and REFUSED in bad.error
    assert bad.offset is not None and text[bad.offset :].startswith(LONG)


def test_the_stream_feeds_without_raising_str_and_bytes() -> None:
    for chunks in ([TEXT], [TEXT[i : i + 7] for i in range(0, len(TEXT), 7)]):
        for as_bytes in (False, True):
            parser = toolwire.StreamParser()
            events = [e for c in chunks for e in parser.feed(c.encode() if as_bytes else c)]
            events += parser.finish()
            calls = [e.call for e in events if e.kind == "tool_call_end"]
            invalid = [e for e in events if isinstance(e, InvalidToolCall)]
            assert [c.name for c in calls] == ["ok"]
            assert len(invalid) == 1 and REFUSED in invalid[0].error
    parsed = toolwire.parse_text(TEXT)
    good_then_refused(parsed.calls)


def test_bodies_and_codecs_keep_the_other_calls() -> None:
    bad = good_then_refused(toolwire.decode_tool_calls(OPENAI, on_error="keep"))
    assert "choices[0].message.tool_calls[1].function.arguments" in bad.error
    good_then_refused(toolwire.extract(OPENAI, on_error="keep"))
    good_then_refused(toolwire.extract(json.dumps(OPENAI), on_error="keep"))


def test_the_openai_accumulator_ends_the_call_as_invalid() -> None:
    accumulator = toolwire.OpenAIStreamAccumulator()
    arguments = '{"a": ' + LONG + "}"
    delta = {"index": 0, "id": "c", "function": {"name": "f", "arguments": arguments}}
    accumulator.feed({"choices": [{"index": 0, "delta": {"tool_calls": [delta]}}]})
    accumulator.feed("data: [DONE]")
    assert accumulator.calls == []
    [bad] = accumulator.invalid_calls
    assert REFUSED in bad.error and bad.name == "f"


def test_one_refused_value_never_fails_a_batch() -> None:
    lines = [json.dumps({"text": TEXT}), json.dumps(OPENAI), ANTHROPIC_LINE, '{"text": "hi"}']
    for threads in (1, 2):
        text_line, body, anthropic, plain = toolwire.extract_batch(lines, threads=threads)
        good_then_refused(text_line, name=None)
        assert text_line[1] == toolwire.extract(TEXT, on_error="keep")[1]
        # Read again as `extract(loads(line))` reads it: the same message and protocol.
        bad = good_then_refused(body)
        assert bad.error == toolwire.extract(OPENAI, on_error="keep")[1].error
        bad = good_then_refused(anthropic)
        assert (bad.protocol, bad.raw) == ("native", '{"a": ' + LONG + "}")
        assert plain == []
    skipped = toolwire.extract_batch(lines, on_error="skip")
    assert [[c.name for c in calls] for calls in skipped] == [["ok"], ["ok"], ["ok"], []]
    with pytest.raises(ArgumentsError, match=f"item 1: .* 1 \\('f'\\): {REFUSED}"):
        toolwire.extract_batch(['{"text": "hi"}', ANTHROPIC_LINE], on_error="raise")


def test_the_arrow_and_cli_paths_keep_long_integers_as_json_text() -> None:
    # Nothing is made a Python int there: the value is written as it was.
    pa = pytest.importorskip("pyarrow")
    [[ok, f]] = toolwire.extract_arrow(pa.array([ANTHROPIC_LINE])).to_pylist()
    assert (ok["name"], f["arguments"], f["error"]) == ("ok", '{"a":' + LONG + "}", None)
    result = subprocess.run(
        [sys.executable, "-m", "toolwire", "extract", "-"],
        input=ANTHROPIC_LINE.encode(),
        capture_output=True,
        check=True,
    )
    assert b'"name":"f","arguments":{"a":' + LONG.encode() + b"}}" in result.stdout


def test_the_tool_loop_goes_on() -> None:
    registry = toolwire.ToolRegistry(filter="*")

    @registry.tool
    def ok() -> str:
        """Says ok."""
        return "ok"

    answers = iter([TEXT, "Done."])
    result = toolwire.run_tool_loop(lambda messages: next(answers), [], registry)
    assert result.stopped_reason == "final"
    results = [m for m in result.messages if m["role"] == "tool"]
    assert results[0]["content"] == "ok" and REFUSED in results[1]["content"]


def test_the_limit_in_force_is_the_one_named() -> None:
    sys.set_int_max_str_digits(1000)
    [bad] = toolwire.extract(
        '{"name": "f", "arguments": {"a": ' + "7" * 1001 + "}}", on_error="keep"
    )
    assert "integer of 1001 digits exceeds the limit of 1000 digits" in bad.error
    sys.set_int_max_str_digits(0)  # no limit: the integer is made
    [call] = toolwire.extract('{"name": "f", "arguments": {"a": ' + LONG + "}}")
    assert call.arguments == {"a": int(LONG)}


def test_direct_decoding_raises_the_decoders_own_errors() -> None:
    with pytest.raises(toolwire.JSONDecodeError, match=REFUSED) as raised:
        toolwire.loads('{"a": [' + LONG + "]}")
    assert raised.value.pos == 7
    with pytest.raises(ArgumentsError, match=REFUSED):
        toolwire.decode_arguments('{"a": ' + LONG + "}")
    with pytest.raises(ArgumentsError, match=REFUSED):
        ToolCall("c", "f", '{"a": ' + LONG + "}")


def test_a_python_int_too_long_to_write_is_shown_never_written_empty() -> None:
    huge = 10 ** (LIMIT + 1)  # made by arithmetic: no conversion from text
    [call] = toolwire.extract([{"id": huge, "name": "f", "arguments": {}}])
    assert call.id.startswith("call_") and len(call.id) == 17  # no usable id: one is made
    [bad] = toolwire.parse_native([{"name": 5, "arguments": {"x": huge}}], on_error="keep")
    assert json.loads(bad.raw) == {"name": 5, "arguments": {"x": "<an integer too long to write>"}}
