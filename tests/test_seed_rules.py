"""The seed protocols' rules (docs/parsing.md, docs/errors.md), one example per rule."""

from __future__ import annotations

import pickle
import re

import pytest
import toolwire
from toolwire import InvalidToolCall, ToolCall

ID = re.compile(r"^call_[A-Za-z0-9_-]{12}$")


def block(body: str) -> str:
    return f"~~~tool_call\n{body}\n~~~\n"


def names(calls: list[ToolCall | InvalidToolCall]) -> list[str | None]:
    return [c.name for c in calls]


# --- extract's tiers: the native_tool_calls table -----------------------------------------

NATIVE_CALL = {
    "id": "call_abc",
    "type": "function",
    "function": {"name": "read_file", "arguments": '{"path": "/tmp/foo"}'},
}
FENCED = block('{"name": "read_file", "arguments": {"path": "/tmp/bar"}}')


def test_native_true_with_tool_calls_uses_native() -> None:
    calls = toolwire.extract({"text": FENCED, "tool_calls": [NATIVE_CALL]}, native_tool_calls=True)
    assert calls == [ToolCall("call_abc", "read_file", {"path": "/tmp/foo"})]


def test_native_true_empty_tool_calls_with_fences_falls_back_to_text() -> None:
    calls = toolwire.extract({"text": FENCED, "tool_calls": []}, native_tool_calls=True)
    assert [(c.name, c.arguments) for c in calls] == [("read_file", {"path": "/tmp/bar"})]


def test_native_true_empty_and_no_fences_gives_empty_list() -> None:
    assert toolwire.extract({"text": "All done.", "tool_calls": []}, native_tool_calls=True) == []
    assert toolwire.extract({"text": None, "tool_calls": None}) == []
    assert toolwire.extract({}) == []


def test_native_false_parses_text() -> None:
    calls = toolwire.extract({"text": FENCED}, native_tool_calls=False)
    assert names(calls) == ["read_file"]


# --- arguments ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"a": 1}, {"a": 1}),
        ('{"a": 1}', {"a": 1}),
        ("", {}),
        ("  \n", {}),
        (None, {}),
        ("null", {}),
        ('"{\\"a\\": 1}"', {"a": 1}),
    ],
)
def test_arguments_normalise(arguments: object, expected: dict[str, int]) -> None:
    assert toolwire.decode_arguments(arguments) == expected
    call = {"function": {"name": "f", "arguments": arguments}}
    assert toolwire.parse_native([call])[0].arguments == expected


@pytest.mark.parametrize("arguments", ["[1]", "3", '{"a": 1', "{'a': 1}", 3, [1], True, '"x"'])
def test_bad_arguments_are_arguments_errors(arguments: object) -> None:
    with pytest.raises(toolwire.ArgumentsError):
        toolwire.decode_arguments(arguments)
    with pytest.raises(toolwire.ArgumentsError) as info:
        toolwire.parse_native([{"function": {"name": "f", "arguments": arguments}}])
    assert info.value.index == 0
    assert info.value.protocol == "native"
    assert info.value.name == "f"


def test_repair_fixes_what_models_break_but_invents_nothing() -> None:
    assert toolwire.decode_arguments("{'a': True, b: [1,],}", repair=True) == {"a": True, "b": [1]}
    assert toolwire.decode_arguments('{"a": "x\ny"', repair=True) == {"a": "x\ny"}
    with pytest.raises(toolwire.ArgumentsError):
        toolwire.decode_arguments('{"a": tr', repair=True)
    text = block("{'name': 'f', 'arguments': {'a': None,},}")
    assert toolwire.parse_text_tagged(text, repair=True)[0].arguments == {"a": None}
    with pytest.raises(toolwire.ToolCallParseError):
        toolwire.parse_text_tagged(text)


# --- native shapes ----------------------------------------------------------------------------


def test_native_shapes() -> None:
    calls = toolwire.parse_native(
        [
            NATIVE_CALL,
            {"function": {"name": "ollama_fn", "arguments": {"x": 1}}},
            {"type": "tool_use", "id": "toolu_1", "name": "claude_fn", "input": {"y": 2}},
            {"name": "pre", "arguments": {"z": 3}},
            {"name": "pre_input", "input": {"w": 4}},
            {"name": "bare"},
            ToolCall("call_keep", "passthrough", {"v": 5}),
        ]
    )
    assert names(calls) == [
        "read_file",
        "ollama_fn",
        "claude_fn",
        "pre",
        "pre_input",
        "bare",
        "passthrough",
    ]
    assert calls[0].id == "call_abc" and calls[2].id == "toolu_1" and calls[6].id == "call_keep"
    assert ID.match(calls[1].id)
    assert calls[5].arguments == {}


@pytest.mark.parametrize(
    "element",
    [
        {"function": {"arguments": "{}"}},
        {"function": {"name": ""}},
        {"function": {"name": 3}},
        {"foo": 1},
        42,
    ],
)
def test_native_unrecognised_or_nameless_is_an_error_for_that_call(element: object) -> None:
    result = toolwire.parse_native([NATIVE_CALL, element], on_error="keep")
    assert isinstance(result[0], ToolCall)
    assert isinstance(result[1], InvalidToolCall)
    assert result[1].index == 1 and result[1].offset is None and result[1].protocol == "native"
    with pytest.raises(toolwire.ToolCallParseError) as info:
        toolwire.parse_native([NATIVE_CALL, element])
    assert info.value.index == 1


def test_native_needs_a_list() -> None:
    # A wrong Python type is a TypeError (the ToolwireError tree is for bad model output).
    with pytest.raises(TypeError, match="tool calls must be a list, not dict"):
        toolwire.parse_native({"function": {}})  # type: ignore[arg-type]


# --- ids and types --------------------------------------------------------------------------


def test_ids_generated_kept_and_deduplicated() -> None:
    calls = toolwire.parse_native(
        [
            {"id": "a", "name": "f"},
            {"id": "a", "name": "g"},
            {"id": 7, "name": "h"},
            {"id": None, "name": "i"},
            {"id": "", "name": "j"},
        ]
    )
    assert calls[0].id == "a"
    assert ID.match(calls[1].id)
    assert calls[2].id == "7"
    assert ID.match(calls[3].id) and ID.match(calls[4].id)
    assert len({c.id for c in calls}) == 5
    generated = {toolwire.parse_native([{"name": "f"}])[0].id for _ in range(2000)}
    assert len(generated) == 2000


def test_toolcall_value_semantics() -> None:
    call = ToolCall("call_1", "f", {"a": [1, {"b": None}]})
    assert call == ToolCall("call_1", "f", '{"a": [1, {"b": null}]}')
    assert call != ToolCall("call_2", "f", {"a": [1, {"b": None}]})
    assert repr(call) == "ToolCall(id='call_1', name='f', arguments={'a': [1, {'b': None}]})"
    assert ToolCall.from_dict(call.to_dict()) == call
    assert pickle.loads(pickle.dumps(call)) == call
    with pytest.raises(AttributeError):
        call.name = "g"  # type: ignore[misc]
    with pytest.raises(TypeError):
        hash(call)
    match call:
        case ToolCall(name="f", arguments={"a": _}):
            pass
        case _:
            pytest.fail("pattern matching on ToolCall")


def test_invalid_tool_call_value_semantics() -> None:
    [invalid] = toolwire.parse_text_tagged(block('{"name": "f", "arguments": {'), on_error="keep")
    assert isinstance(invalid, InvalidToolCall)
    assert InvalidToolCall.from_dict(invalid.to_dict()) == invalid
    assert pickle.loads(pickle.dumps(invalid)) == invalid
    assert hash(invalid) == hash(InvalidToolCall.from_dict(invalid.to_dict()))
    assert "InvalidToolCall(raw=" in repr(invalid)


def test_tool_from_provider_shapes() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    expected = toolwire.Tool("f", "does f", schema)
    assert (
        toolwire.Tool.from_dict(
            {
                "type": "function",
                "function": {"name": "f", "description": "does f", "parameters": schema},
            }
        )
        == expected
    )
    assert (
        toolwire.Tool.from_dict({"name": "f", "description": "does f", "input_schema": schema})
        == expected
    )
    assert (
        toolwire.Tool.from_dict({"name": "f", "description": "does f", "schema": schema})
        == expected
    )
    assert toolwire.Tool.from_dict(expected.to_dict()) == expected
    assert toolwire.Tool("g").parameters == {"type": "object", "properties": {}}
    for bad in ({"description": "x"}, {"name": 3}, {"name": ""}):
        with pytest.raises(toolwire.ToolDefinitionError):
            toolwire.Tool.from_dict(bad)


# --- text-tagged --------------------------------------------------------------------------------


def test_crlf_and_blank_lines() -> None:
    text = 'Sure.\r\n~~~tool_call\r\n\r\n{"name": "f", "arguments": {}}\r\n\r\n~~~\r\nDone.'
    assert names(toolwire.parse_text_tagged(text)) == ["f"]


def test_tilde_fence_inside_a_json_string_does_not_close_the_block() -> None:
    body = '{"name": "write", "arguments": {"text": "line\\n~~~\\nmore"}}'
    assert toolwire.parse_text_tagged(block(body))[0].arguments == {"text": "line\n~~~\nmore"}
    # A raw newline + ~~~ inside a string (invalid JSON, valid with repair) cannot cut the block.
    raw_newline = '{"name": "write", "arguments": {"text": "a\n~~~\nb"}}'
    assert toolwire.parse_text_tagged(block(raw_newline), repair=True)[0].arguments == {
        "text": "a\n~~~\nb"
    }


def test_unterminated_block_is_an_error_and_the_next_block_still_parses() -> None:
    text = (
        '~~~tool_call\n{"name": "a", "arguments": {}}\n'
        '~~~tool_call\n{"name": "b", "arguments": {}}\n~~~\n'
    )
    result = toolwire.parse_text_tagged(text, on_error="keep")
    assert isinstance(result[0], InvalidToolCall) and "unterminated" in result[0].error
    assert result[0].offset == 0
    assert isinstance(result[1], ToolCall) and result[1].name == "b"
    assert names(toolwire.parse_text_tagged(text, on_error="skip")) == ["b"]
    with pytest.raises(toolwire.ToolCallParseError, match="unterminated ~~~tool_call block 0"):
        toolwire.parse_text_tagged(text)
    at_end = toolwire.parse_text_tagged('x\n~~~tool_call\n{"name": "a"}', on_error="keep")
    assert isinstance(at_end[0], InvalidToolCall) and at_end[0].offset == 2


def test_body_shapes() -> None:
    two = block('[{"name": "a", "arguments": {}}, {"name": "b", "id": "x1"}]')
    calls = toolwire.parse_text_tagged(two)
    assert names(calls) == ["a", "b"] and calls[1].id == "x1"
    for bad in ['"just a string"', "[]", '{"arguments": {}}', '{"name": ""}', "[1, 2]"]:
        with pytest.raises(toolwire.ToolCallParseError):
            toolwire.parse_text_tagged(block(bad))


@pytest.mark.parametrize(
    "text",
    [
        block('{"name": "f"}').replace("~~~tool_call", "~~~tool_calls"),
        # (`~~~ tool_call`, which the seed ignores, is read: issue 20, tests/test_call_edges.py)
        block('{"name": "f"}').replace("~~~tool_call", "~~~TOOL_CALL"),
        "```\n" + block('{"name": "f"}') + "```\n",
        "inline ~~~tool_call\n{}\n~~~",
        "no markers at all",
    ],
)
def test_not_blocks(text: str) -> None:
    assert toolwire.parse_text_tagged(text) == []


def test_error_message_says_what_and_where() -> None:
    text = (
        "Intro line\n"
        + block('{"name": "a", "arguments": {}}')
        + block('{"name": "b" "arguments": {}}')
    )
    with pytest.raises(toolwire.ToolCallParseError) as info:
        toolwire.parse_text_tagged(text)
    error = info.value
    assert str(error) == (
        "invalid JSON in ~~~tool_call block 1 at line 1 column 14 (offset 85): expected ',' or '}'"
    )
    assert error.offset == 85 and text[error.offset] == '"'
    assert error.index == 1 and error.protocol == "text_tagged"
    assert error.raw == '{"name": "b" "arguments": {}}\n'


def test_offsets_are_characters_not_bytes() -> None:
    text = "héllo 😀\n" + block('{"name": "b" "arguments": {}}')
    [invalid] = toolwire.parse_text_tagged(text, on_error="keep")
    assert isinstance(invalid, InvalidToolCall)
    assert invalid.offset is not None and text[invalid.offset] == '"'


# --- raw JSON -----------------------------------------------------------------------------------

CALL = '{"name": "f", "arguments": {"a": 1}}'


@pytest.mark.parametrize(
    ("text", "whole", "fenced", "anywhere"),
    [
        (CALL, 1, 1, 1),
        (f"  \n{CALL}\n", 1, 1, 1),
        (f"<think>plan</think>\n{CALL}", 1, 1, 1),
        (f"```json\n{CALL}\n```", 1, 1, 1),
        (f"[{CALL}, {CALL}]", 2, 2, 2),
        (f'{{"tool_call": {CALL}}}', 1, 1, 1),
        (f'{{"tool_calls": [{CALL}, {CALL}]}}', 2, 2, 2),
        ('{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}', 1, 1, 1),
        ('{"name": "f", "parameters": {"a": 1}}', 1, 1, 1),
        (f"Here you go:\n```json\n{CALL}\n```\nDone.", 0, 1, 1),
        (f"Two:\n```\n{CALL}\n```\nand\n```json\n{CALL}\n```", 0, 2, 2),
        (f"As an example, {CALL} would call f.", 0, 0, 1),
        (f"```python\nx = {CALL}\n```", 0, 0, 1),
        ('{"name": "not a call"}', 0, 0, 0),
        ('{"city": "Paris"}', 0, 0, 0),
    ],
)
def test_raw_json_modes(text: str, whole: int, fenced: int, anywhere: int) -> None:
    for mode, count in (("whole", whole), ("fenced", fenced), ("anywhere", anywhere)):
        result = toolwire.parse_raw_json(text, mode=mode)  # type: ignore[arg-type]
        assert len(result) == count, mode
        assert all(isinstance(c, ToolCall) and c.name == "f" for c in result)


def test_raw_json_wrapper_id_is_kept() -> None:
    text = '{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}'
    assert toolwire.parse_raw_json(text)[0].id == "c1"


def test_anywhere_prefers_the_outer_call_and_rescans_rejected_objects() -> None:
    nested = '{"name": "outer", "arguments": {"inner": {"name": "g", "arguments": {}}}}'
    assert names(toolwire.parse_raw_json(nested, mode="anywhere")) == ["outer"]
    wrapped = 'Result: {"data": {"name": "g", "arguments": {}}, "n": 1}'
    assert names(toolwire.parse_raw_json(wrapped, mode="anywhere")) == ["g"]


def test_raw_json_that_looks_like_a_call_but_is_broken_is_an_error() -> None:
    truncated = '{"name": "f", "arguments": {"a": 1'
    with pytest.raises(toolwire.ToolCallParseError):
        toolwire.parse_raw_json(truncated)
    with pytest.raises(toolwire.ArgumentsError):
        toolwire.parse_raw_json('{"name": "f", "arguments": [1]}')
    assert toolwire.parse_raw_json('{"weather": "sunny"') == []
    [invalid] = toolwire.parse_raw_json(f"prose {truncated}", mode="anywhere", on_error="keep")
    assert isinstance(invalid, InvalidToolCall) and invalid.offset == 6


def test_extract_tiers_first_wins() -> None:
    text = (
        block('{"name": "tagged", "arguments": {}}')
        + '```json\n{"name": "raw", "arguments": {}}\n```'
    )
    assert names(toolwire.extract(text)) == ["tagged"]
    assert names(toolwire.extract(text, formats=["raw_json"])) == ["raw"]
    assert toolwire.extract(text, formats=["raw_json"], raw_json="whole") == []
    with pytest.raises(ValueError, match="format must be one of"):
        toolwire.extract(text, formats=["nope"])


# --- bodies ---------------------------------------------------------------------------------


def test_bodies_by_shape() -> None:
    responses = {
        "type": "response",
        "output": [
            {"type": "reasoning", "id": "rs_1"},
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_r",
                "name": "f",
                "arguments": '{"a": 1}',
            },
        ],
    }
    assert toolwire.extract(responses) == [ToolCall("call_r", "f", {"a": 1})]
    text_only = {
        "output": [{"type": "message", "content": [{"type": "output_text", "text": FENCED}]}]
    }
    assert names(toolwire.extract(text_only)) == ["read_file"]
    gemini = {
        "candidates": [{"content": {"parts": [{"functionCall": {"name": "g", "args": {"b": 2}}}]}}]
    }
    assert [(c.name, c.arguments) for c in toolwire.extract(gemini)] == [("g", {"b": 2})]
    anthropic_text = {
        "type": "message",
        "content": [{"type": "text", "text": "One.\n"}, {"type": "text", "text": FENCED}],
    }
    assert names(toolwire.extract(anthropic_text)) == ["read_file"]
    ollama = {"message": {"role": "assistant", "content": FENCED}}
    assert names(toolwire.extract(ollama)) == ["read_file"]
    usage_only = {"choices": [], "usage": {}}
    assert toolwire.extract(usage_only) == []


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"choices": [{"finish_reason": "stop"}]}, "choices[0].message"),
        ({"choices": "nope"}, "choices"),
        ({"choices": [{"message": {"tool_calls": {"a": 1}}}]}, "choices[0].message.tool_calls"),
        ({"choices": [{"message": {"content": 5}}]}, "choices[0].message.content"),
        ({"unrelated": True}, ""),
    ],
)
def test_wrong_bodies_raise_provider_format_error_with_path(body: object, path: str) -> None:
    with pytest.raises(toolwire.ProviderFormatError) as info:
        toolwire.extract(body)  # type: ignore[arg-type]
    assert info.value.path == path


def test_a_response_of_the_wrong_type_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="a response must be text, a mapping or a list of calls"):
        toolwire.extract(42)  # type: ignore[arg-type]


# --- error policy -------------------------------------------------------------------------


def test_error_policies() -> None:
    text = block('{"name": "good", "arguments": {}}') + block('{"name": "bad", "arguments": "[1]"}')
    with pytest.raises(toolwire.ArgumentsError) as info:
        toolwire.extract(text)
    assert info.value.index == 1 and info.value.name == "bad"
    assert names(toolwire.extract(text, on_error="skip")) == ["good"]
    kept = toolwire.extract(text, on_error="keep")
    assert isinstance(kept[1], InvalidToolCall) and kept[1].name == "bad" and kept[1].index == 1
    with pytest.raises(ValueError, match="on_error"):
        toolwire.extract(text, on_error="ignore")  # type: ignore[arg-type]
