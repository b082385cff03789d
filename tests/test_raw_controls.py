"""Raw tabs, line feeds and carriage returns inside the JSON strings of call arguments: read on
every path without `repair`, and sent on as strict JSON (the stream's deltas, the codecs)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import toolwire
from renderers import RENDERERS
from toolwire.codecs import encode_calls

VALUE = "def f():\n\treturn 1\r\n"
ARGUMENTS = {"code": VALUE, "n": 2}

# Model text with raw control characters in an argument string, per format.
TEXTS = {
    "text_tagged": '~~~tool_call\n{"name": "run", "arguments": '
    '{"code": "def f():\n\treturn 1\r\n", "n": 2}}\n~~~\n',
    "raw_json": '{"name": "run", "arguments": {"code": "def f():\n\treturn 1\r\n", "n": 2}}',
    "hermes": '<tool_call>\n{"name": "run", "arguments": {"code": "def f():\n\treturn 1\r\n", '
    '"n": 2}}\n</tool_call>',
    "mistral": '[TOOL_CALLS][{"name": "run", "arguments": {"code": "def f():\n\treturn 1\r\n", '
    '"n": 2}}]',
    "llama3_json": '{"name": "run", "parameters": {"code": "def f():\n\treturn 1\r\n", "n": 2}}',
    "deepseek_v3": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>run\n```json\n"  # noqa: RUF001
    '{"code": "def f():\n\treturn 1\r\n", "n": 2}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',  # noqa: RUF001
    "harmony": "<|start|>assistant<|channel|>commentary to=functions.run <|constrain|>json"
    '<|message|>{"code": "def f():\n\treturn 1\r\n", "n": 2}<|call|>',
}

TOOLS = [
    {
        "name": "run",
        "parameters": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "n": {"type": "integer"}},
        },
    }
]


def rendered(format: str) -> str | None:
    """The corpus generator's rendering of the call, with the JSON escapes of its string turned
    back into the raw characters (XML-style formats write the value raw already)."""
    case = {"tools": TOOLS, "calls": [{"name": "run", "arguments": ARGUMENTS}], "wire": {}}
    text = RENDERERS[format](case, 0)
    if text is None:
        return None
    return text.replace("\\n", "\n").replace("\\t", "\t").replace("\\r", "\r")


# The formats whose arguments are JSON text (XML-style values are text already; pythonic
# strings follow Python's rules).
ALL_TEXTS = {
    **TEXTS,
    **{f: t for f in RENDERERS if (t := rendered(f)) is not None and '"code": "def' in t},
}


def stream_events(format: str, chunks: list[str]) -> list[Any]:
    parser = toolwire.StreamParser(formats=[format], tools=TOOLS)
    events = [e for chunk in chunks for e in parser.feed(chunk)]
    return events + parser.finish()


def deltas(events: list[Any]) -> str:
    return "".join(e.arguments for e in events if e.kind == "tool_call_delta")


@pytest.mark.parametrize("format", sorted(ALL_TEXTS))
def test_read_on_every_path(format: str) -> None:
    text = ALL_TEXTS[format]
    calls = toolwire.extract(text, formats=[format], tools=TOOLS)
    assert [(c.name, c.arguments) for c in calls] == [("run", ARGUMENTS)]
    parsed = toolwire.parse_text(text, format, tools=TOOLS)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("run", ARGUMENTS)]
    events = stream_events(format, [text])
    ends = [e.call for e in events if e.kind == "tool_call_end"]
    assert [(c.name, c.arguments) for c in ends] == [("run", ARGUMENTS)]


@pytest.mark.parametrize("format", sorted(ALL_TEXTS))
def test_deltas_are_strict_json_at_every_cut(format: str) -> None:
    text = ALL_TEXTS[format]
    whole = deltas(stream_events(format, [text]))
    assert json.loads(whole, strict=True) == ARGUMENTS
    for cut in range(len(text) + 1):
        events = stream_events(format, [text[:cut], text[cut:]])
        assert deltas(events) == whole, f"cut at {cut}"
        assert [e.call.arguments for e in events if e.kind == "tool_call_end"] == [ARGUMENTS]
    one_by_one = stream_events(format, list(text))
    assert deltas(one_by_one) == whole


def test_json_arguments_keep_their_layout() -> None:
    # Whitespace between tokens is the model's own; only the characters inside strings change.
    text = '<tool_call>\n{"name": "f", "arguments": {\n\t"a": "x\ny"\n}}\n</tool_call>'
    assert deltas(stream_events("hermes", [text])) == '{\n\t"a": "x\\ny"\n}'


def test_fast_path_chunks_with_raw_controls() -> None:
    # A chunk that lies inside an argument string is sent whole when it needs no escape, and
    # escaped when it holds a raw control character.
    head = '<tool_call>\n{"name": "f", "arguments": {"a": "'
    chunks = [head, "plain ", "with\ttab ", "and\nline", '"}}\n</tool_call>']
    events = stream_events("hermes", chunks)
    pieces = [e.arguments for e in events if e.kind == "tool_call_delta"]
    assert "plain " in pieces and "with\\ttab " in pieces
    assert json.loads("".join(pieces), strict=True) == {"a": "plain with\ttab and\nline"}


def test_codecs_and_stream_encoders_write_strict_json() -> None:
    text = TEXTS["hermes"]
    calls = toolwire.extract(text)
    [openai] = encode_calls(calls, "openai")["tool_calls"]
    assert json.loads(openai["function"]["arguments"], strict=True) == ARGUMENTS
    encoder = toolwire.StreamEncoder("openai")
    parser = toolwire.StreamParser(formats=["hermes"])
    chunks = encoder.encode([e for c in text for e in parser.feed(c)] + parser.finish())
    sent = "".join(
        call["function"].get("arguments") or ""
        for chunk in chunks
        for choice in chunk["choices"]
        for call in choice["delta"].get("tool_calls") or []
    )
    assert json.loads(sent, strict=True) == ARGUMENTS


@pytest.mark.parametrize("control", ["\x00", "\x01", "\x08", "\x0c", "\x1b", "\x1f"])
def test_other_control_characters_stay_invalid(control: str) -> None:
    text = '<tool_call>\n{"name": "f", "arguments": {"a": "x' + control + 'y"}}\n</tool_call>'
    with pytest.raises(toolwire.ToolCallParseError, match="control character"):
        toolwire.extract(text)
    [invalid] = toolwire.parse_text(text, "hermes").calls
    assert isinstance(invalid, toolwire.InvalidToolCall) and invalid.raw == text
    events = stream_events("hermes", list(text))
    assert [e.raw for e in events if e.kind == "invalid_tool_call"] == [text]
    # `repair=True` reads them as the characters themselves.
    assert toolwire.extract(text, repair=True)[0].arguments == {"a": f"x{control}y"}


def test_truncated_string_stays_invalid() -> None:
    text = '<tool_call>\n{"name": "f", "arguments": {"a": "x\ny</tool_call>'
    [invalid] = toolwire.parse_text(text, "hermes").calls
    assert isinstance(invalid, toolwire.InvalidToolCall) and invalid.raw == text
    [invalid] = toolwire.extract(text, on_error="keep")
    assert isinstance(invalid, toolwire.InvalidToolCall) and invalid.raw == text


def test_strict_json_elsewhere_is_unchanged() -> None:
    # Arguments given as JSON text outside model text (a provider's `arguments`) stay strict.
    with pytest.raises(toolwire.ArgumentsError):
        toolwire.decode_arguments('{"a": "x\ny"}')
    assert toolwire.decode_arguments('{"a": "x\ny"}', repair=True) == {"a": "x\ny"}
