"""The open-weight formats (docs/formats.md) through `extract`: every corpus rendering, sniffed and
named, each variant, and the code-span rule."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import toolwire
from support import calls_of, cases

# The formats the corpus is rendered in (cases.jsonl's `wire` keys).
FORMATS = [name for name in toolwire.FORMATS if name in cases()[0]["wire"]]


def got(calls: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    assert all(isinstance(c, toolwire.ToolCall) for c in calls), calls
    return [(c.name, c.arguments) for c in calls]


def one(text: str, **options: Any) -> list[tuple[str, dict[str, Any]]]:
    return got(toolwire.extract(text, **options))


@pytest.mark.parametrize("name", FORMATS)
def test_every_rendering_gives_its_calls(name: str) -> None:
    seen = 0
    for case in cases():
        text = case["wire"][name]
        if text is None:
            continue
        seen += 1
        # Schema typing is part of the qwen3_coder rule (strings that look like JSON).
        tools = case["tools"] if name == "qwen3_coder" else None
        expected = calls_of(case)
        assert one(text, tools=tools) == expected, (case["id"], "auto")
        assert one(text, formats=[name], tools=tools) == expected, (case["id"], name)
    assert seen > 2000


def test_model_written_ids_are_kept() -> None:
    for case in cases():
        kimi = toolwire.extract(case["wire"]["kimi_k2"])
        assert [c.id for c in kimi] == [f"functions.{c.name}:{i}" for i, c in enumerate(kimi)]
        mistral = case["wire"]["mistral"]
        variant = case["variants"]["mistral"].split("+")
        if "call_id" in variant:
            written = re.findall(r"\[CALL_ID\](\w+)\[ARGS\]", mistral)
        elif "id" in variant:
            body = json.loads(mistral.split("[TOOL_CALLS]", 1)[1])
            written = [c["id"] for c in body]
        else:
            continue
        assert written
        assert [c.id for c in toolwire.extract(mistral)] == written, case["id"]


def test_qwen3_coder_without_tools_decodes_json_else_keeps_text() -> None:
    text = (
        "<tool_call>\n<function=f>\n<parameter=n>\n10\n</parameter>\n"
        "<parameter=zip>\n03106\n</parameter>\n<parameter=s>\nhello\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    assert one(text) == [("f", {"n": 10, "zip": "03106", "s": "hello"})]
    tools = [
        {
            "type": "function",
            "function": {
                "name": "f",
                "parameters": {
                    "type": "object",
                    "properties": {"n": {"type": "string"}, "s": {"type": "integer"}},
                },
            },
        }
    ]
    # A string stays a string; a failed coercion keeps the text and never drops the call.
    assert one(text, tools=tools) == [("f", {"n": "10", "zip": "03106", "s": "hello"})]


def ds(token: str) -> str:
    """A DeepSeek token: `tool_sep` is `tool▁sep` between U+FF5C bars (▁ is U+2581)."""
    return "<\uff5c" + token.replace("_", "\u2581") + "\uff5c>"


VARIANTS = {
    "hermes/no_newlines": (
        '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>',
        [("f", {"a": 1})],
    ),
    "hermes/missing_final_close": (
        '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>\n'
        '<tool_call>\n{"name": "g", "arguments": {}}\n',
        [("f", {"a": 1}), ("g", {})],
    ),
    "hermes/parameters": (
        '<tool_call>{"name": "f", "parameters": {"a": 1}}</tool_call>',
        [("f", {"a": 1})],
    ),
    "hermes/double_encoded": (
        '<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>',
        [("f", {"a": 1})],
    ),
    "hermes/inside_think": (
        '<think>I will call f. <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
        "</think>Done.",
        [("f", {"a": 1})],
    ),
    "qwen3_coder/compact": (
        "<tool_call><function=f><parameter=a>1</parameter></function></tool_call>",
        [("f", {"a": 1})],
    ),
    "mistral/pre_v11": (
        '[TOOL_CALLS] [{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": {}}]',
        [("f", {"a": 1}), ("g", {})],
    ),
    "mistral/v11_call_id": (
        '[TOOL_CALLS]f[ARGS]{"a": 1}[TOOL_CALLS]g[CALL_ID]abc123XYZ[ARGS]{}',
        [("f", {"a": 1}), ("g", {})],
    ),
    "llama3_json/python_tag": (
        '<|python_tag|>{"name": "f", "parameters": {"a": 1}}; {"name": "g", "parameters": {}}',
        [("f", {"a": 1}), ("g", {})],
    ),
    "llama3_json/bare": (
        '{"name": "f", "parameters": {"a": 1}}; {"name": "g", "parameters": {}}',
        [("f", {"a": 1}), ("g", {})],
    ),
    "pythonic/literals": (
        "[f(a=1), g(b='x', c=True, d=None, e=[1, {'k': 2}], t=(1, 2))]",
        [("f", {"a": 1}), ("g", {"b": "x", "c": True, "d": None, "e": [1, {"k": 2}], "t": [1, 2]})],
    ),
    "pythonic/python_start": (
        '<|python_start|>[math.factorial(number=5, s="it\'s")]<|python_end|>',
        [("math.factorial", {"number": 5, "s": "it's"})],
    ),
    "deepseek_v3/fenced": (
        f"{ds('tool_calls_begin')}{ds('tool_call_begin')}function{ds('tool_sep')}f\n```json\n"
        f'{{"a": 1}}\n```{ds("tool_call_end")}{ds("tool_calls_end")}',
        [("f", {"a": 1})],
    ),
    "deepseek_v31/preamble": (
        f"Sure.{ds('tool_calls_begin')}{ds('tool_call_begin')}f{ds('tool_sep')}"
        f'{{"a": 1}}{ds("tool_call_end")}{ds("tool_calls_end")}',
        [("f", {"a": 1})],
    ),
    "kimi_k2/spaced_tokens": (
        "<|tool_calls_section_begin|> <|tool_call_begin|> functions.f:0 "
        '<|tool_call_argument_begin|> {"a": 1} <|tool_call_end|> <|tool_calls_section_end|>',
        [("f", {"a": 1})],
    ),
    "harmony/recipient_in_role": (
        "<|start|>assistant to=functions.f<|channel|>commentary <|constrain|>json"
        '<|message|>{"a": 1}<|call|>',
        [("f", {"a": 1})],
    ),
    "harmony/analysis_no_constrain_bare_name": (
        '<|channel|>analysis to=f<|message|>{"a": 1}<|call|>',
        [("f", {"a": 1})],
    ),
    "glm45/newlines": (
        "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
        [("f", {"a": 1})],
    ),
    "glm45/glm47_no_newlines": (
        "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>",
        [("f", {"a": 1})],
    ),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_variant(variant: str) -> None:
    text, expected = VARIANTS[variant]
    assert one(text) == expected
    assert one(text, formats=[variant.split("/")[0]]) == expected


def test_markers_in_code_spans_create_no_call() -> None:
    prose = (
        "Wrap each call in `<tool_call>` tags; Mistral models write `[TOOL_CALLS]` and "
        "Kimi ``<|tool_call_begin|>``."
    )
    assert toolwire.extract(prose) == []
    named = ["hermes", "mistral", "kimi_k2", "harmony", "qwen3_coder", "glm45"]
    assert toolwire.extract(prose, formats=named) == []
    # The rule looks only at the line before the marker: a call on its own line is found.
    text = prose + '\n<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
    assert one(text) == [("f", {"a": 1})]


def test_formats_restrict_the_tiers() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
    assert toolwire.extract(text, formats=["mistral", "text_tagged"]) == []
    assert one(text, formats=["hermes"]) == [("f", {"a": 1})]
    with pytest.raises(ValueError, match="format must be one of"):
        toolwire.extract(text, formats=["hermes9"])


def test_errors_name_the_format_and_offset() -> None:
    text = 'Hi <tool_call>{"name": "f", "arguments": {"a": }}</tool_call>'
    with pytest.raises(toolwire.ToolCallParseError) as raised:
        toolwire.extract(text)
    assert raised.value.protocol == "hermes"
    assert raised.value.offset == text.index(" }}") + 1
    kept = toolwire.extract(text + "[f(a=x)]", on_error="keep")
    assert isinstance(kept[0], toolwire.InvalidToolCall)
    assert kept[0].protocol == "hermes" and kept[0].raw == text[3:]
    pythonic = toolwire.extract("[f(a=x), g(b=1)]", on_error="keep")
    assert isinstance(pythonic[0], toolwire.InvalidToolCall)
    assert "not a literal" in pythonic[0].error
    assert got(pythonic[1:]) == [("g", {"b": 1})]


def test_hostile_input_never_crashes() -> None:
    deep = '<tool_call>{"name": "f", "arguments": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(toolwire.ToolCallParseError, match="256"):
        toolwire.extract(deep)
    assert toolwire.extract("[f(a=" + "[" * 100_000 + ")]", on_error="skip") == []
    # Each unterminated block ends where the next opens: one error each, in linear time; the
    # last runs to the end of the text.
    many = "<tool_call>{" * 50_000
    bad = toolwire.extract(many, on_error="keep")
    assert len(bad) == 50_000
    assert all(isinstance(b, toolwire.InvalidToolCall) and b.raw == "<tool_call>{" for b in bad)
    (last,) = toolwire.extract("<tool_call>{" + "{" * 50_000, on_error="keep")
    assert isinstance(last, toolwire.InvalidToolCall) and len(last.raw) == 50_012
