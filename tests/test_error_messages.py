"""Error messages say what was wrong and where (docs/errors.md): for each bad input, the exception
type, the block/call index, and the offset, both as attributes and in the message; where the
input is text, the offset points at the fault."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import toolwire
from adversarial import DS_BEGIN, DS_END, DS_SEP
from toolwire import (
    ArgumentsError,
    JSONDecodeError,
    ProviderFormatError,
    ToolCallParseError,
    ToolwireError,
)

KIMI = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
KIMI_END = "<|tool_call_end|><|tool_calls_section_end|>"
HARMONY = "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>"
OPENAI_BAD_ARGS = {
    "choices": [
        {
            "message": {
                "tool_calls": [
                    {"id": "a", "function": {"name": "f", "arguments": "{}"}},
                    {"id": "b", "function": {"name": "g", "arguments": "{"}},
                ]
            }
        }
    ],
}


@dataclass(frozen=True)
class Bad:
    """A bad input: `run(text)` raises `error`; `index`/`offset` are the attributes and appear
    in the message (`where` is the text naming the block/call); `at` is what the text holds at
    the offset."""

    label: str
    text: Any
    error: type[ToolwireError]
    index: int | None
    offset: int | None
    where: str
    at: str | None = None
    run: Callable[[Any], Any] = toolwire.extract
    # The block/call number in the message, when it is not `index` (a call inside an array
    # block is reported at its block).
    place: int | None = None
    # Whether the message numbers the block/call (a lone candidate or the input is not).
    numbered: bool = True


def tt(body: str, before: str = "") -> str:
    return before + "~~~tool_call\n" + body + "\n~~~\n"


TABLE = [
    # ~~~tool_call
    Bad(
        "tagged: bad JSON",
        tt('{"name": "f", "arguments": {"a": 1,}}', "hi\n"),
        ToolCallParseError,
        0,
        51,
        "in ~~~tool_call block 0 at line 1 column 36",
        "}",
    ),
    Bad(
        "tagged: second block, bad name",
        tt('{"name": "f"}') + tt('{"name": 3}'),
        ToolCallParseError,
        1,
        44,
        "in ~~~tool_call block 1",
        "{",
    ),
    Bad(
        "tagged: arguments array",
        tt('{"name": "f", "arguments": [1]}'),
        ArgumentsError,
        0,
        13,
        "invalid arguments in ~~~tool_call block 0",
        "{",
    ),
    Bad(
        "tagged: arguments string not JSON",
        tt('{"name": "f", "arguments": "{bad"}'),
        ArgumentsError,
        0,
        13,
        "in ~~~tool_call block 0",
        "{",
    ),
    Bad(
        "tagged: unterminated",
        'ab\n~~~tool_call\n{"name": "f"}\n',
        ToolCallParseError,
        0,
        3,
        "unterminated ~~~tool_call block 0",
        "~~~tool_call",
    ),
    Bad("tagged: missing name", tt('{"arguments": {}}'), ToolCallParseError, 0, 13, "block 0", "{"),
    Bad("tagged: too deep", tt("[" * 300), ToolCallParseError, 0, 269, "deeper than 256", "["),
    Bad(
        "tagged: third call of an array block",
        tt('[{"name": "a"}, {"name": "b"}, {"name": "c", "arguments": 7}]'),
        ArgumentsError,
        2,
        44,
        "block 0 at line 1 column 32",
        '{"name": "c"',
        place=0,
    ),
    Bad(
        "tagged: second call of an array block, on its own line",
        tt('[\n  {"name": "a"},\n  {"name": 3}\n]', "é\n"),
        ToolCallParseError,
        1,
        36,
        "block 0 at line 3 column 3",
        '{"name": 3}',
        place=0,
    ),
    Bad(
        "tagged: not UTF-8",
        b"ok\n~~~tool_call\n\xff",
        ToolCallParseError,
        0,
        None,
        "byte offset 16",
        numbered=False,
    ),
    Bad(
        "tagged parser",
        tt('{"name": "f", "arguments": {"a" 1}}'),
        ToolCallParseError,
        0,
        45,
        "block 0 at line 1 column 33",
        "1",
        toolwire.parse_text_tagged,
    ),
    # raw JSON
    Bad(
        "raw whole",
        '{"name": "f", "arguments": {"a": }}',
        ToolCallParseError,
        0,
        33,
        "in raw JSON at line 1 column 34",
        "}",
        lambda t: toolwire.parse_raw_json(t, mode="whole"),
        numbered=False,
    ),
    Bad(
        "raw fenced",
        'x\n```json\n{"name": "f", "arguments": 5}\n```\n',
        ArgumentsError,
        0,
        10,
        "in raw JSON in fenced block 0",
        "{",
    ),
    Bad(
        "raw second fence",
        '```json\n{"name": "f", "arguments": {}}\n```\n'
        '```json\n{"name": "g", "arguments": "x"}\n```',
        ArgumentsError,
        1,
        51,
        "fenced block 1",
        "{",
    ),
    Bad(
        "raw anywhere",
        'see {"name": "f", "arguments": "[1]"} ok',
        ArgumentsError,
        0,
        4,
        "in raw JSON",
        "{",
        lambda t: toolwire.parse_raw_json(t, mode="anywhere"),
        numbered=False,
    ),
    # open-weight formats
    Bad(
        "hermes",
        '<tool_call>{"name": "f", "arguments": {"a" 1}}</tool_call>',
        ToolCallParseError,
        0,
        43,
        "hermes call 0 at line 1 column 44",
        "1",
    ),
    Bad(
        "hermes second call",
        '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "g", "arguments": 1}</tool_call>',
        ArgumentsError,
        1,
        53,
        "hermes call 1",
        "<tool_call>",
    ),
    Bad(
        "qwen3_coder",
        # A parameter name broken by a newline (a missing </parameter> is read: the value ends
        # at the next tag).
        "<tool_call><function=f><parameter=a\n1</parameter></function></tool_call>",
        ToolCallParseError,
        0,
        23,
        "qwen3_coder call 0",
        "<parameter=a\n",
    ),
    Bad(
        "mistral",
        '[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}',
        ToolCallParseError,
        0,
        48,
        "mistral call 0",
    ),
    Bad(
        "mistral v11",
        '[TOOL_CALLS]f[ARGS]{"a": tru}',
        ArgumentsError,
        0,
        25,
        "mistral call 0",
        "tru",
    ),
    Bad(
        "llama3_json",
        '<|python_tag|>{"name": "f", "parameters": {"a": 1]}',
        ToolCallParseError,
        0,
        49,
        "llama3_json call 0",
        "]",
    ),
    Bad("pythonic", "[f(a=1, 2)]", ToolCallParseError, 0, 8, "pythonic call 0", "2"),
    Bad(
        "deepseek_v3",
        DS_BEGIN + "function" + DS_SEP + 'f\n```json\n{"a": }\n```' + DS_END,
        ArgumentsError,
        0,
        75,
        "deepseek_v3 call 0 at line 3 column 7",
        "}",
    ),
    Bad(
        "deepseek_v31",
        DS_BEGIN + "f" + DS_SEP + '{"a" 1}' + DS_END,
        ArgumentsError,
        0,
        57,
        "deepseek_v31 call 0",
        "1",
    ),
    Bad("kimi_k2", KIMI + "[1]" + KIMI_END, ArgumentsError, 0, 28, "kimi_k2 call 0"),
    Bad(
        "harmony", HARMONY + '{"a": 1<|call|>', ArgumentsError, 0, 90, "harmony call 0", "<|call|>"
    ),
    Bad(
        "glm45",
        "<tool_call>f\n<arg_key>a</arg_key>\n</tool_call>",
        ToolCallParseError,
        0,
        34,
        "glm45 call 0 at line 3 column 1",
        "</tool_call>",
    ),
    # native calls
    Bad(
        "native arguments",
        [{"name": "f"}, {"name": "g", "arguments": "[1]"}],
        ArgumentsError,
        1,
        None,
        "tool call 1",
    ),
    Bad("native shape", [{"name": "f"}, 3], ToolCallParseError, 1, None, "tool call 1"),
    Bad(
        "native bad JSON",
        [{"name": "f", "arguments": '{"a": 1'}],
        ArgumentsError,
        0,
        None,
        "tool call 0",
        run=toolwire.parse_native,
    ),
    # bodies
    Bad("openai body arguments", OPENAI_BAD_ARGS, ArgumentsError, 1, None, "tool call 1"),
    Bad(
        "anthropic body input",
        {"content": [{"type": "tool_use", "id": "t", "name": "f", "input": [1]}]},
        ArgumentsError,
        0,
        None,
        "tool call 0",
    ),
    Bad(
        "body text block",
        {"choices": [{"message": {"content": tt('{"name": 1}')}}]},
        ToolCallParseError,
        0,
        13,
        "~~~tool_call block 0",
    ),
    # loads
    Bad(
        "loads",
        '{"a": [1, 2,]}',
        JSONDecodeError,
        None,
        12,
        "line 1 column 13 (char 12)",
        "]",
        toolwire.loads,
    ),
    Bad(
        "loads multi-line",
        "\n\n  [nul]",
        JSONDecodeError,
        None,
        5,
        "line 3 column 4 (char 5)",
        "nul",
        toolwire.loads,
    ),
    Bad(
        "loads not UTF-8",
        b'["\xff"]',
        ToolwireError,
        None,
        None,
        "byte offset 2",
        run=toolwire.loads,
    ),
    Bad(
        "loads after a BOM",
        b'\xef\xbb\xbf["\xff"]',
        ToolwireError,
        None,
        None,
        "byte offset 5",
        run=toolwire.loads,
    ),
]

PROVIDER_ERRORS = [
    ({"choices": [{"message": 3}]}, "choices[0].message"),
    ({"choices": [3]}, "choices[0]"),
    ({"choices": "x"}, "choices"),
    ({"message": {"tool_calls": 5}}, "message.tool_calls"),
    ({"content": [{"type": "tool_use", "name": "f", "input": {}}, 5]}, "content[1]"),
    ({"foo": 1}, ""),
]


def test_the_table_is_large_enough() -> None:
    assert len(TABLE) >= 30


@pytest.mark.parametrize("bad", TABLE, ids=lambda bad: bad.label)
def test_error_names_its_place(bad: Bad) -> None:
    with pytest.raises(bad.error) as caught:
        bad.run(bad.text)
    error = caught.value
    message = str(error)
    assert bad.where in message
    if isinstance(error, JSONDecodeError):
        assert error.pos == bad.offset
    elif isinstance(error, ToolCallParseError):
        if bad.index is not None:
            assert error.index == bad.index
            place = bad.index if bad.place is None else bad.place
            assert not bad.numbered or re.search(rf"\b(block|call) {place}\b", message), message
        assert error.offset == bad.offset
        if bad.offset is not None:
            assert f"(offset {bad.offset})" in message
    if bad.at is not None:
        assert bad.offset is not None
        text = (
            bad.text if isinstance(bad.text, str) else bad.text["choices"][0]["message"]["content"]
        )
        assert text[bad.offset :].startswith(bad.at), text[bad.offset :]


@pytest.mark.parametrize(
    "bad", [b for b in TABLE if b.run is toolwire.extract and b.numbered], ids=lambda bad: bad.label
)
def test_kept_failures_carry_the_same_place(bad: Bad) -> None:
    result = toolwire.extract(bad.text, on_error="keep")
    [invalid] = [c for c in result if isinstance(c, toolwire.InvalidToolCall)]
    assert (invalid.index, invalid.offset) == (bad.index, bad.offset)
    assert bad.where in invalid.error


@pytest.mark.parametrize(("body", "path"), PROVIDER_ERRORS)
def test_provider_format_errors_name_the_path(body: dict[str, Any], path: str) -> None:
    with pytest.raises(ProviderFormatError) as caught:
        toolwire.extract(body)
    assert caught.value.path == path
    assert path in str(caught.value)
