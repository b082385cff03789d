"""The variants real model outputs use (issue 22), each read the same way by `extract`,
`parse_text` and the stream, with the rules around them: control tokens are never content, the
values of XML-style formats, and the tool-name policy."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import toolwire
from support import fed_in_chunks, streamed_calls

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}


def three_paths(text: str, fmt: str, **options: Any) -> list[tuple[list[Any], str | None]]:
    """(calls as (name, arguments) or ("invalid", name, error), content) per path."""

    def shape(calls: list[Any]) -> list[Any]:
        return [
            (c.name, c.arguments)
            if isinstance(c, toolwire.ToolCall)
            else ("invalid", c.name, c.error)
            for c in calls
        ]

    extracted = toolwire.extract(text, formats=[fmt], on_error="keep", **options)
    parsed = toolwire.parse_text(text, format=fmt, **options)
    results: list[tuple[list[Any], str | None]] = [
        (shape(extracted), None),
        (shape(list(parsed.calls)), parsed.content),
    ]
    rng = random.Random(text)
    for _ in range(3):
        parser = toolwire.StreamParser(formats=[fmt], **options)
        events = fed_in_chunks(parser, text, rng, (1, 2, 3, 7, 64))
        content = "".join(e.text for e in events if e.kind == "text_delta")
        results.append((shape(streamed_calls(events)), content))
    return results


def read(text: str, fmt: str, **options: Any) -> tuple[list[Any], str]:
    """The calls and content every path agrees on (the calls' error messages aside)."""
    results = three_paths(text, fmt, **options)
    calls = results[1][0]
    content = results[1][1]
    assert content is not None
    for got_calls, got_content in results:
        assert [c[:2] for c in got_calls] == [c[:2] for c in calls], (fmt, text)
        if got_content is not None:
            assert got_content.strip() == content.strip(), (fmt, text)
    return calls, content.strip()


def test_mistral_calls_whose_args_token_was_dropped() -> None:
    text = 'Sure.[TOOL_CALLS]add{"a": 3.5, "b": 4}[TOOL_CALLS]multiply{"a": 2, "b": 3}'
    calls, content = read(text, "mistral")
    assert calls == [("add", {"a": 3.5, "b": 4}), ("multiply", {"a": 2, "b": 3})]
    assert content == "Sure."
    # With the token, and with a call id, as before.
    calls, _ = read('[TOOL_CALLS]add[CALL_ID]abc123XYZ[ARGS]{"a": 1}', "mistral")
    assert calls == [("add", {"a": 1})]


@pytest.mark.parametrize("fmt", ["mistral", "hermes"])
def test_magistral_think_spans_are_reasoning(fmt: str) -> None:
    text = '[THINK]plan\nit[/THINK]Hello.[TOOL_CALLS]f[ARGS]{"a": 1}'
    calls, content = read(text, fmt)
    assert calls == ([("f", {"a": 1})] if fmt == "mistral" else [])
    parsed = toolwire.parse_text(text, format=fmt)
    assert parsed.reasoning == "plan\nit"
    assert content == ("Hello." if fmt == "mistral" else 'Hello.[TOOL_CALLS]f[ARGS]{"a": 1}')


@pytest.mark.parametrize(
    "text",
    [
        '<function=get_weather>{"city": "Paris"}</function>',
        '<tool_call>\n<function=get_weather>{"city": "Paris"}</function>\n</tool_call>',
        '<function name="get_weather">\n{"city": "Paris"}\n</function>',
        '<function_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</function_call>',
        '<tool>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool>',
        '<tools>{"name": "get_weather", "arguments": {"city": "Paris"}}</tools>',
        '<response>{"name": "get_weather", "arguments": {"city": "Paris"}}</response>',
        '<json>{ "name": "get_weather", "arguments": {"city": "Paris"}}</json>',
        '<JSON>{"name": "get_weather", "arguments": {"city": "Paris"}}</JSON>',
        '<xml>{"name": "get_weather", "arguments": {"city": "Paris"}}</xml>',
    ],
)
def test_hermes_wrapper_spellings_are_calls(text: str) -> None:
    calls, content = read("Checking. " + text, "hermes")
    assert calls == [("get_weather", {"city": "Paris"})]
    assert content == "Checking."


def test_a_list_of_call_objects_in_a_generic_wrapper_is_read() -> None:
    """Qwen2.5-Coder writes parallel calls as one JSON list in `<tools>` (vLLM
    test_qwen25_coder_tool_parser.py)."""
    text = (
        '<tools>\n[\n    {"name": "get_weather", "arguments": {"city": "Paris"}},\n'
        '    {"name": "search", "arguments": {"q": "Paris"}}\n]\n</tools>'
    )
    calls, content = read("Checking. " + text, "hermes")
    assert calls == [("get_weather", {"city": "Paris"}), ("search", {"q": "Paris"})]
    assert content == "Checking."
    # A list of anything else is no call object: prose, as before.
    assert read("<tools>[1, 2]</tools>", "hermes") == ([], "<tools>[1, 2]</tools>")


@pytest.mark.parametrize(
    "text",
    [
        '<json>{"city": "Paris"}</json>',
        "<response>Sure, here it is.</response>",
        "<tool>a hammer</tool>",
    ],
)
def test_generic_wrappers_around_anything_but_a_call_object_are_prose(text: str) -> None:
    calls, content = read(text, "hermes")
    assert calls == []
    assert content == text


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('<function=get_weather>{"city": }</function>', "invalid JSON"),
        ('<function name="get_weather">{"city": 1} oops</function>', "expected </function>"),
        ('<tool>{"name": "get_weather", "arguments": {}} oops</tool>', "expected </tool>"),
    ],
)
def test_broken_hermes_wrapper_spellings_are_invalid_calls(text: str, error: str) -> None:
    for calls, _ in three_paths(text, "hermes"):
        assert [c[:2] for c in calls] == [("invalid", "get_weather")]
        assert error in calls[0][2]


HEADER_START = ' to=functions.get_weather<|channel|>{} <|constrain|>json<|message|>{{"a": 1}}'


@pytest.mark.parametrize("channel", ["commentary", "analysis"])
@pytest.mark.parametrize("end", ["", "<|call|>"])
def test_a_harmony_completion_that_starts_at_the_recipient(channel: str, end: str) -> None:
    """The prompt ended with `<|start|>assistant` (llama.cpp test-chat.cpp L1903, L1911)."""
    text = HEADER_START.format(channel) + end
    for fmt in ("harmony", "openai"):
        assert read(text, fmt) == ([("get_weather", {"a": 1})], "")
    # With every format asked for, too (`extract`'s and `parse_text`'s default).
    [call] = toolwire.extract(text)
    assert (call.name, call.arguments) == ("get_weather", {"a": 1})
    assert [c.name for c in toolwire.parse_text(text).calls] == ["get_weather"]


@pytest.mark.parametrize(
    "text",
    [
        "to=be or not to be",
        "to=functions.f",
        "to=functions.f<|message|>{}",
        'Sure. to=functions.f<|channel|>final <|message|>{"a": 1}',
    ],
)
def test_to_is_a_recipient_only_as_the_start_of_a_header(text: str) -> None:
    calls, content = read(text, "harmony")
    assert calls == []
    assert content.startswith(text.split("<")[0].strip())


def test_granite_answers_in_a_response_wrapper() -> None:
    """llama.cpp test-chat.cpp L1645; the same tag wraps a Hermes call object."""
    text = "<think>I'm\nthinking</think><response>Hello, world!\nWhat's up?</response>"
    assert read(text, "granite") == ([], "Hello, world!\nWhat's up?")
    assert toolwire.parse_text(text).content == "Hello, world!\nWhat's up?"
    assert toolwire.parse_text(text).reasoning == "I'm\nthinking"
    # With hermes alone the tag around prose is prose; a call object in it is a hermes call.
    assert read(text, "hermes")[1] == "<response>Hello, world!\nWhat's up?</response>"
    call = '<response>{"name": "get_weather", "arguments": {"city": "Paris"}}</response>'
    assert read(call, "hermes") == ([("get_weather", {"city": "Paris"})], "")
    assert [c.name for c in toolwire.extract(call)] == ["get_weather"]
    # For granite alone it is the answer: JSON in an answer never runs a tool.
    assert read(call, "granite") == ([], call[len("<response>") : -len("</response>")])


def test_kimi_section_tokens_in_the_singular() -> None:
    call = (
        "<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{}<|tool_call_end|>"
    )
    text = f"Checking.<|tool_call_section_begin|>{call}<|tool_call_section_end|> Done."
    assert read(text, "kimi_k2") == ([("get_weather", {})], "Checking. Done.")
    assert [c.name for c in toolwire.extract(text)] == ["get_weather"]


def test_kimi_section_end_is_never_content_and_a_bare_index_names_no_tool() -> None:
    call = '<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|>'
    # Text inside the section ends it early; its end token is still markup (vLLM's tests).
    text = f"Hi. <|tool_calls_section_begin|> noise {call}<|tool_calls_section_end|>"
    assert read(text, "kimi_k2") == ([("f", {"a": 1})], "Hi. noise")
    # `0` is the call's index, not a tool: an InvalidToolCall says so, never a call to "0".
    bare = call.replace("functions.f:0", "0")
    calls, _ = read(f"<|tool_calls_section_begin|>{bare}<|tool_calls_section_end|>", "kimi_k2")
    assert [c[:2] for c in calls] == [("invalid", None)]
    assert "names none" in calls[0][2]


@pytest.mark.parametrize(
    ("fmt", "begin", "end"),
    [
        (
            "deepseek_v31",
            "<\uff5ctool\u2581calls\u2581begin\uff5c>",
            "<\uff5ctool\u2581calls\u2581end\uff5c>",
        ),
        ("kimi_k2", "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"),
    ],
)
def test_a_section_with_no_call_in_it_is_an_invalid_call(fmt: str, begin: str, end: str) -> None:
    # Cut off after the section began, or the call's own tokens left out (vLLM's DeepSeek
    # V3.1 tests): one InvalidToolCall keeping the raw section, never prose with tokens in it.
    for body, after in [("get_weather", ""), ('foo{"x":1}' + end, " Done.")]:
        calls, content = read(f"Let me look.{begin}{body}{after}", fmt)
        assert [c[:2] for c in calls] == [("invalid", None)]
        assert "in the section" in calls[0][2]
        assert content == f"Let me look.{after}".strip()


def test_two_function_blocks_in_one_tool_call_are_two_calls() -> None:
    text = (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n"
        "<function=get_time>\n<parameter=zone>\nCET\n</parameter>\n</function>\n</tool_call>"
    )
    expected = [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "CET"})]
    assert read(text, "qwen3_coder") == (expected, "")
    assert [(c.name, c.arguments) for c in toolwire.extract(text)] == expected


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        (
            "<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>",
            "qwen3_coder",
        ),
        ('<function=get_weather>{"city": "Paris"}</function>', "hermes"),
        ('<function name="get_weather">{"city": "Paris"}</function>', "hermes"),
    ],
)
def test_a_stray_closing_tool_call_tag_after_a_bare_block_is_markup(text: str, fmt: str) -> None:
    # The model dropped `<tool_call>` but still wrote `</tool_call>` (vLLM's qwen3_coder tests).
    expected = [("get_weather", {"city": "Paris"})]
    assert read(f"Checking.\n\n{text}\n</tool_call>", fmt) == (expected, "Checking.")
    # Anything else after the block stays prose, and a bare block alone still ends the call.
    assert read(f"{text}\n</tool_calls> done", fmt) == (expected, "</tool_calls> done")
    assert read(f"{text} Done.", fmt) == (expected, "Done.")


@pytest.mark.parametrize(
    ("value", "city"),
    [
        # Unclosed values ending in a misspelt close tag: the model meant to close them.
        ("Shanghai\n</parameter1>", "Shanghai"),
        ("Shanghai\n</parameter_function>", "Shanghai"),
        ("Shanghai\n</parameter", "Shanghai"),
        ("Shanghai</parameter2>\n", "Shanghai"),
        # Values closed by their </parameter> are kept as written, whatever they end in.
        ("x </parameterList>\n</parameter>", "x </parameterList>"),
        ("<p>1</p>\n</parameters>\n</parameter>", "<p>1</p>\n</parameters>"),
        # A tag-like tail with a space in it is not a close tag.
        ("a </parameter b>", "a </parameter b>"),
    ],
)
def test_a_misspelt_parameter_close_tag_ends_the_value(value: str, city: str) -> None:
    text = (
        f"<tool_call>\n<function=get_weather>\n<parameter=city>\n{value}\n"
        "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
    )
    assert read(text, "qwen3_coder") == ([("get_weather", {"city": city, "days": 3})], "")


BASH = {
    "type": "function",
    "function": {
        "name": "bash",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}},
        },
    },
}


def garbled(function: str, parameter: str, wrap: str = "tool_call") -> str:
    """A call whose tags Step-3.5 garbled; its value holds the closing wrapper tag as text."""
    return (
        f"Run:<{wrap}>{function}{parameter}echo '</tool_call>'</parameter>"
        f"<parameter=timeout>5</parameter></function></{wrap}> ok"
    )


@pytest.mark.parametrize(
    ("fmt", "wrap"), [("qwen3_coder", "tool_call"), ("seed_oss", "seed:tool_call")]
)
@pytest.mark.parametrize(
    ("function", "parameter"),
    [
        ("<function bash>", "<parameter=command>"),
        ("<functionbash>", "<parameter=command>"),
        ("<function=bash\n", "<parameter=command\n"),
        ("<function=bash>", "<parameter=parameter=command\n"),
        ("<function=bash>", "<parameter=parameter=command>"),
    ],
)
def test_garbled_tags_naming_an_offered_tool_are_read(
    fmt: str, wrap: str, function: str, parameter: str
) -> None:
    text = garbled(function, parameter, wrap)
    expected = [("bash", {"command": "echo '</tool_call>'", "timeout": 5})]
    assert read(text, fmt, tools=[BASH]) == (expected, "Run: ok")
    # The tool as a `Tool` object, and among others, names the same.
    tools = [toolwire.Tool.from_dict(WEATHER), toolwire.Tool.from_dict(BASH)]
    assert read(text, fmt, tools=tools)[0] == expected


@pytest.mark.parametrize(
    ("function", "parameter", "tools"),
    [
        # Without tools=, nothing names the tool.
        ("<function bash>", "<parameter=command>", None),
        ("<function=bash\n", "<parameter=command\n", None),
        # A name that is not offered, or a parameter the tool does not declare.
        ("<function sh>", "<parameter=command>", [BASH]),
        ("<function=sh\n", "<parameter=command\n", [BASH]),
        ("<function=bash\n", "<parameter=cmd\n", [BASH]),
        ("<function=bash>", "<parameter=parameter=cmd\n", [BASH]),
        # Garbled twice: no '=' and no '>'.
        ("<function bash\n", "<parameter=command>", [BASH]),
    ],
)
def test_garbled_tags_naming_no_offered_tool_stay_invalid_calls(
    function: str, parameter: str, tools: list[dict[str, Any]] | None
) -> None:
    calls, _ = read(garbled(function, parameter), "qwen3_coder", tools=tools)
    assert calls[0][0] == "invalid"
    parsed = toolwire.parse_text(garbled(function, parameter), "qwen3_coder", tools=tools)
    assert isinstance(parsed.calls[0], toolwire.InvalidToolCall)
    assert parsed.calls[0].raw.startswith(f"<tool_call>{function}")


def test_an_inkling_call_token_after_a_broken_call_starts_over() -> None:
    # The model wrote the call token, text that is not JSON, then the token again and a call:
    # the false start is an invalid call, and the call after it is read.
    text = (
        "<|message_model|>weather<|content_invoke_tool_json|>garbage"
        '<|content_invoke_tool_json|>{"name":"weather","args":{"city":"SF"}}<|end_message|>'
    )
    calls, content = read(text, "inkling")
    assert [c[0] for c in calls] == ["invalid", "weather"]
    assert calls[1] == ("weather", {"city": "SF"})
    assert content == ""


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        (
            "deepseek_dsml",
            'Done.\n<\uff5cDSML\uff5ctool_calls>\n<\uff5cDSML\uff5cinvoke name="f">\n'
            '<\uff5cDSML\uff5cparameter name="a" string="false">1</\uff5cDSML\uff5cparameter>\n'
            '</\uff5cDSML\uff5cinvoke>\n<\uff5cDSML\uff5cinvoke name="submit"/>\n'
            "</\uff5cDSML\uff5ctool_calls>",
        ),
        (
            "minimax_m2",
            'Done.\n<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">1</parameter>\n'
            '</invoke>\n<invoke name="submit" />\n</minimax:tool_call>',
        ),
    ],
)
def test_a_self_closing_invoke_is_a_call_without_arguments(fmt: str, text: str) -> None:
    assert read(text, fmt) == ([("f", {"a": 1}), ("submit", {})], "Done.")


DSML_INVOKE = (
    '<\uff5cDSML\uff5cinvoke name="get_weather">'
    '<\uff5cDSML\uff5cparameter name="city" string="true">Paris</\uff5cDSML\uff5cparameter>'
    "</\uff5cDSML\uff5cinvoke>"
)


@pytest.mark.parametrize(
    ("text", "content"),
    [
        (DSML_INVOKE, ""),
        ("Let me look that up." + DSML_INVOKE, "Let me look that up."),
        (f"Two cities.\n{DSML_INVOKE}\n\n{DSML_INVOKE}\nDone.", "Two cities.\n\nDone."),
    ],
)
def test_dsml_invokes_without_a_wrapper_are_calls(text: str, content: str) -> None:
    # DeepSeek V4 often opens its calls with a bare invoke; the run ends where prose begins.
    calls, got = read(text, "deepseek_dsml")
    assert calls == [("get_weather", {"city": "Paris"})] * text.count("invoke name")
    assert got == content


@pytest.mark.parametrize(
    ("fmt", "invoke"),
    [
        ("minimax_m2", '<minimax:tool_call><invoke name="f">{}</invoke></minimax:tool_call>'),
        (
            "deepseek_dsml",
            '<\uff5cDSML\uff5cfunction_calls><\uff5cDSML\uff5cinvoke name="f">{}'
            "</\uff5cDSML\uff5cinvoke></\uff5cDSML\uff5cfunction_calls>",
        ),
    ],
)
def test_an_invoke_value_may_hold_its_own_closing_tag(fmt: str, invoke: str) -> None:
    # A file a code-writing tool is asked to write may hold this very markup.
    dsml = fmt == "deepseek_dsml"
    param = (
        '<\uff5cDSML\uff5cparameter name="{}" string="true">' if dsml else '<parameter name="{}">'
    )
    close = "</\uff5cDSML\uff5cparameter>" if dsml else "</parameter>"
    value = f"x {close} y {close}z"
    body = param.format("a") + value + close + "\n" + param.format("b") + "2" + close
    calls, content = read(invoke.format(body), fmt)
    assert calls == [("f", {"a": value, "b": "2" if dsml else 2})]
    assert content == ""


ROOT_UNION_TOOL = {
    "name": "acme",
    "parameters": {
        "$defs": {"Text": {"properties": {"kind": {"const": "text"}, "value": {"type": "string"}}}},
        "oneOf": [{"$ref": "#/$defs/Text"}, {"properties": {"kind": {"const": "none"}}}],
    },
}


def test_a_schema_with_a_root_union_types_and_names_its_parameters() -> None:
    # The parameters are declared in the branches of a root oneOf (one behind a $ref).
    tools = [ROOT_UNION_TOOL, {"name": "search", "parameters": {"properties": {"q": {}}}}]
    glm = (
        "<tool_call>acme<arg_key>kind</arg_key><arg_value>text</arg_value>"
        "<arg_key>value</arg_key><arg_value>7</arg_value></tool_call>"
    )
    assert read(glm, "glm45", tools=tools) == ([("acme", {"kind": "text", "value": "7"})], "")
    # A Kimi id that is only an index names the one tool whose schema has every key.
    kimi = (
        "<|tool_calls_section_begin|><|tool_call_begin|>0<|tool_call_argument_begin|>"
        '{"kind": "text", "value": "x"}<|tool_call_end|><|tool_calls_section_end|>'
    )
    assert read(kimi, "kimi_k2", tools=tools)[0] == [("acme", {"kind": "text", "value": "x"})]


def test_pythonic_lists_written_one_after_another_are_all_calls() -> None:
    text = "[search(query='one')][search(query='two'), f()]\n[search(query='three')] Done. [g()]"
    calls, content = read(text, "pythonic")
    assert calls == [
        ("search", {"query": "one"}),
        ("search", {"query": "two"}),
        ("f", {}),
        ("search", {"query": "three"}),
    ]
    assert content == "Done. [g()]"


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"const": "null"}, "null"),
        ({"enum": ["null", "none"]}, "null"),
        ({"enum": ["a", None]}, None),
    ],
)
def test_const_and_enum_type_an_xml_value(schema: dict[str, Any], expected: Any) -> None:
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"v": schema}}}]
    for fmt, text in [
        ("glm45", "<tool_call>f<arg_key>v</arg_key><arg_value>null</arg_value></tool_call>"),
        (
            "qwen3_coder",
            "<tool_call><function=f><parameter=v>null</parameter></function></tool_call>",
        ),
    ]:
        assert read(text, fmt, tools=tools) == ([("f", {"v": expected})], "")


@pytest.mark.parametrize(
    ("name", "read_as"),
    [
        ("get_weather.get_weather", "get_weather"),
        ("weather.get", "weather.get"),
        ("a.b.a", "a.b.a"),
    ],
)
def test_muse_glimmer_doubled_names_are_the_tools_name(name: str, read_as: str) -> None:
    # Muse Glimmer invokes a tool registered without a namespace by its name twice.
    atem = (
        f'<atem:function_calls>\n<atem:invoke name="{name}">\n'
        '<atem:parameter name="city">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls>'
    )
    text = f" to=self<|message|>Need weather.<|eom|><|start|>assistant to={name}<|message|>{atem}"
    assert read(text, "muse_glimmer") == ([(read_as, {"city": "Paris"})], "")


@pytest.mark.parametrize(
    ("opens", "closes"),
    [("", ""), ("<\uff5cDSML\uff5ctool_calls>", "</\uff5cDSML\uff5ctool_calls>")],
)
def test_a_dsml_invoke_whose_close_was_left_out_ends_at_the_next(opens: str, closes: str) -> None:
    # In a block or in a run of bare invokes (DeepSeek V4's).
    param = '<\uff5cDSML\uff5cparameter name="a" string="false">1</\uff5cDSML\uff5cparameter>'
    invoke = '<\uff5cDSML\uff5cinvoke name="{}">' + param
    calls = invoke.format("f") + invoke.format("g") + "</\uff5cDSML\uff5cinvoke>"
    text = f"Sure. {opens}{calls}{closes} done"
    assert read(text, "deepseek_dsml") == ([("f", {"a": 1}), ("g", {"a": 1})], "Sure.  done")


def test_a_broken_bare_dsml_invoke_is_an_invalid_call() -> None:
    calls, content = read(
        DSML_INVOKE + ' then <\uff5cDSML\uff5cinvoke name="f">oops', "deepseek_dsml"
    )
    assert calls[0] == ("get_weather", {"city": "Paris"})
    assert calls[1][:2] == ("invalid", "f")
    assert content == "then"


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("pythonic", "[run(cmd='cd src\nmake'), f(a=1)]"),
        ("lfm2", "<|tool_call_start|>[run(cmd='cd src\nmake'), f(a=1)]<|tool_call_end|>"),
    ],
)
def test_a_raw_newline_in_a_pythonic_string_is_part_of_it(fmt: str, text: str) -> None:
    assert read(text, fmt) == ([("run", {"cmd": "cd src\nmake"}), ("f", {"a": 1})], "")


GEMMA_BASH = 'bash{command:<|"|>ls -la<|"|>}'


@pytest.mark.parametrize(
    "text",
    [
        # The model dropped <|tool_call>: a message that starts with call:NAME{ (vLLM
        # test_gemma4_regex_and_bare_calls.py), after the thought channel too.
        f"call:{GEMMA_BASH}",
        f"<|channel>thought\nList the files.\n<channel|>call:{GEMMA_BASH}",
        f"<channel|>call:{GEMMA_BASH}",
        # A stray colon after the start token; the end of turn for the end token.
        f"<|tool_call>:call:{GEMMA_BASH}<tool_call|>",
        f"<|tool_call>call:{GEMMA_BASH}<turn|>",
    ],
)
def test_gemma4_calls_without_their_tokens(text: str) -> None:
    assert read(text, "gemma4") == ([("bash", {"command": "ls -la"})], "")


@pytest.mark.parametrize(
    "text",
    [
        # After prose a bare call:NAME{ is not read (a quoted example must not run).
        f"Run it as\ncall:{GEMMA_BASH}",
        # Not a name before the brace, or no brace at all: prose.
        "call: me maybe {later}",
        "call:mom",
        "calling {you}",
    ],
)
def test_gemma4_bare_call_only_opens_a_message(text: str) -> None:
    assert read(text, "gemma4") == ([], text)


def test_gemma4_end_of_turn_is_not_content() -> None:
    assert read("Hello.<turn|>", "gemma4") == ([], "Hello.")
    text = f"Sure.<|tool_call>call:{GEMMA_BASH}<turn|>"
    assert read(text, "gemma4") == ([("bash", {"command": "ls -la"})], "Sure.")


def test_gemma4_thought_channel_is_reasoning() -> None:
    call = '<|tool_call>call:get_time{city:<|"|>Paris<|"|>}<tool_call|>'
    text = f"<|channel>thought\nI'm\nthinking<channel|>Sure.{call}"
    calls, content = read(text, "gemma4")
    assert (calls, content) == ([("get_time", {"city": "Paris"})], "Sure.")
    assert toolwire.parse_text(text, format="gemma4").reasoning == "\nI'm\nthinking"


def test_solar_open2_think_span_is_reasoning() -> None:
    call = (
        "<|tool_call:start|>f\n<|tool_arg:start|>a<|tool_arg:value|>1<|tool_arg:end|>\n"
        "<|tool_call:end|>"
    )
    text = f"<|think:start|>I should use a tool<|think:end|>Sure.{call}"
    calls, content = read(text, "solar_open2")
    assert (calls, content) == ([("f", {"a": 1})], "Sure.")
    assert toolwire.parse_text(text, format="solar_open2").reasoning == "I should use a tool"


def test_minimax_m3_think_span_is_reasoning() -> None:
    ns = "]<]minimax[>["
    call = f'{ns}<tool_call>\n{ns}<invoke name="f">{ns}<a>1{ns}</a>{ns}</invoke>\n{ns}</tool_call>'
    text = f"<mm:think>I should use a tool</mm:think>Sure.{call}"
    calls, content = read(text, "minimax_m3")
    assert (calls, content) == ([("f", {"a": 1})], "Sure.")
    assert toolwire.parse_text(text, format="minimax_m3").reasoning == "I should use a tool"


def test_plamo3_think_span_is_reasoning() -> None:
    # PLaMo 3's think tags are several ordinary tokens: they stay in the text whatever
    # `skip_special_tokens` says, so they must be read as a span.
    call = (
        "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>f"
        "<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json"
        '<|plamo:msg|>{"a": 1}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>'
    )
    thought = "<|plamo:begin_think:plamo|>I should use a tool<|plamo:end_think:plamo|>"
    text = f"{thought}Sure.{call}"
    assert read(text, "plamo3") == ([("f", {"a": 1})], "Sure.")
    for fmt in ["plamo3", "auto"]:
        parsed = toolwire.parse_text(text, format=fmt)
        assert (parsed.content, parsed.reasoning) == ("Sure.", "I should use a tool")
        assert [(c.name, c.arguments) for c in parsed.calls] == [("f", {"a": 1})]


def test_kimi_k3_think_channel_is_reasoning_and_end_of_message_is_not_content() -> None:
    # Kimi K3 writes its reasoning in a `think` channel and ends the turn with
    # <|close|>message<|sep|><|end_of_msg|> (TensorRT-LLM's Kimi K3 parser tests).
    call = (
        '<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>'
        '<|open|>argument key="a" type="integer"<|sep|>1<|close|>argument<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|>"
    )
    text = (
        "<|open|>think<|sep|>I should use a tool<|close|>think<|sep|>"
        f"<|open|>response<|sep|>Sure.<|close|>response<|sep|>{call}"
        "<|close|>message<|sep|><|end_of_msg|>"
    )
    assert read(text, "kimi_k3") == ([("f", {"a": 1})], "Sure.")
    parsed = toolwire.parse_text(text, format="kimi_k3")
    assert (parsed.content, parsed.reasoning) == ("Sure.", "I should use a tool")
    # The prompt opened the channel: the text starts inside it.
    parsed = toolwire.parse_text(
        text[len("<|open|>think<|sep|>") :], format="kimi_k3", starts_in_reasoning=True
    )
    assert (parsed.content, parsed.reasoning) == ("Sure.", "I should use a tool")


@pytest.mark.parametrize("close", ["<|close|>json<|sep|>", ""])
def test_kimi_k3_arguments_given_whole_in_a_json_element(close: str) -> None:
    # Kimi K3's template writes arguments given as one object in a `json` element
    # (TensorRT-LLM's Kimi K3 parser tests); its closing tag may be left out.
    text = (
        '<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>'
        f'<|open|>json type="object"<|sep|>{{"a": 1, "b": "x"}}{close}'
        "<|close|>call<|sep|><|close|>tools<|sep|>"
    )
    assert read(text, "kimi_k3") == ([("f", {"a": 1, "b": "x"})], "")
    broken = text.replace('"x"}', "x}")
    calls, _ = read(broken, "kimi_k3")
    assert [c[:2] for c in calls] == [("invalid", "f")], calls


@pytest.mark.parametrize("close", ["</mm:think>", "</think>", "\n</think>\n\n"])
def test_a_closing_think_tag_before_any_text_is_not_content(close: str) -> None:
    # MiniMax-M3 starts a turn without reasoning with a bare </mm:think>; other templates open
    # the span in the prompt. Once text has come, an unopened closing tag is prose.
    parsed = toolwire.parse_text(f"{close}Hello.", format="minimax_m3")
    assert (parsed.content.strip(), parsed.reasoning) == ("Hello.", "")
    assert read(f"{close}Hello.", "minimax_m3") == ([], "Hello.")
    assert read(f"Hi{close}Hello.", "minimax_m3") == ([], f"Hi{close}Hello.".strip())


def test_a_minicpm5_cdata_value_may_hold_its_close_tag() -> None:
    # llama.cpp's MiniCPM5 case: the value's `</param>` comes after the CDATA section.
    markup = '<a href="/x">hi</a> </param>'
    text = f'<function name="html"><param name="markup"><![CDATA[{markup}]]></param></function>'
    assert read(text, "minicpm5") == ([("html", {"markup": markup})], "")


@pytest.mark.parametrize("space", [" ", "", "\u0120"])
def test_minicpm5_tags_as_a_tokenizer_leaves_them(space: str) -> None:
    """The space in `<function name=` and `<param name=` dropped, or written as the byte-level
    BPE space marker `Ġ` (vLLM test_minicpm5xml_tool_parser.py)."""
    text = (
        f'Sure.\n<function{space}name="get_weather"><param{space}name="city">Paris</param>'
        f'<param{space}name="days">3</param></function>'
    )
    assert read(text, "minicpm5") == ([("get_weather", {"city": "Paris", "days": 3})], "Sure.")


def test_minicpm5_arguments_wrapped_in_one_param_are_unwrapped_by_the_schema() -> None:
    """As for the invoke formats: only when tools= declares no such parameter and every key
    inside (vLLM test_minicpm5xml_tool_parser.py)."""
    text = (
        '<function name="get_weather"><param name="arguments">{"city": "Paris"}</param></function>'
    )
    weather = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
    assert read(text, "minicpm5", tools=[weather]) == ([("get_weather", {"city": "Paris"})], "")
    assert read(text, "minicpm5") == ([("get_weather", {"arguments": {"city": "Paris"}})], "")


def test_a_harmony_header_that_names_its_channel_twice_is_on_the_last() -> None:
    # llama.cpp's gpt-oss case: a stray `<|channel|>commentary to=assistant` before the header.
    text = (
        "<|channel|>commentary to=assistant<|channel|>analysis<|message|>I'm\nthinking<|end|>"
        "<|start|>assistant<|channel|>final<|message|>Hello."
    )
    assert read(text, "harmony") == ([], "Hello.")
    assert toolwire.parse_text(text, format="harmony").reasoning == "I'm\nthinking"


@pytest.mark.parametrize("space", [" ", "\n"])
def test_command_r_action_on_its_own_line(space: str) -> None:
    text = f'Action:{space}```json\n[{{"tool_name": "f", "parameters": {{"a": 1}}}}]\n```'
    assert read(text, "command_r") == ([("f", {"a": 1})], "")


@pytest.mark.parametrize(
    ("fmt", "begin", "sep", "end"),
    [
        ("kimi_k2", "<|tool_call_begin|>functions.{}:0", "<|tool_call_argument_begin|>", ""),
        (
            "deepseek_v31",
            "<\uff5ctool\u2581call\u2581begin\uff5c>{}",
            "<\uff5ctool\u2581sep\uff5c>",
            "<\uff5ctool\u2581calls\u2581end\uff5c>",
        ),
    ],
)
def test_a_call_whose_end_token_was_left_out_ends_where_the_next_begins(
    fmt: str, begin: str, sep: str, end: str
) -> None:
    # llama.cpp's Kimi-K2-Thinking case: calls written inside reasoning, no end tokens.
    first = begin.format("f") + sep + '{"a": 1}'
    second = begin.format("g") + sep + '{"b": 2}'
    start = "<\uff5ctool\u2581calls\u2581begin\uff5c>" if end else ""
    calls, _ = read(start + first + second + end, fmt)
    assert calls == [("f", {"a": 1}), ("g", {"b": 2})]


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("<|message_model|>weather<|content_invoke_tool_text|>SF<|end_message|>", "SF"),
        ("<|message_model|><|content_invoke_tool_text|>lookup<|end_message|>", "lookup"),
        ("<|content_invoke_tool_text|>search the web<|end_message|>", "search the web"),
        ("<|message_model|>weather<|content_tool_error|>bad<|end_message|>", "bad"),
    ],
)
def test_an_inkling_raw_text_invocation_is_content(text: str, content: str) -> None:
    # No JSON call, so nothing runs (vLLM's Inkling parser reads the block as text); the
    # tokens and the echoed name are markup.
    call = '<|message_model|>f<|content_invoke_tool_json|>{"name": "f", "args": {}}<|end_message|>'
    assert read(text, "inkling") == ([], content)
    assert read(text + call, "inkling") == ([("f", {})], content)


def test_hermes_wrapper_spellings_are_prose_for_other_formats() -> None:
    text = '<tool>{"name": "get_weather", "arguments": {}}</tool>'
    calls, content = read(text, "mistral")
    assert calls == []
    assert content == text


@pytest.mark.parametrize(
    ("fmt", "text", "content"),
    [
        ("hermes", '<tool_call>{"name": "f", "arguments": {}}</tool_call><|im_end|>', ""),
        ("hermes", "Hello.<|im_end|>", "Hello."),
        ("qwen3_coder", "Hi<|endoftext|>", "Hi"),
        # Ling 3 (read as glm45) ends its turn with `<|role_end|>`.
        (
            "glm45",
            "<tool_call>f\n<arg_key>a</arg_key><arg_value>1</arg_value></tool_call><|role_end|>",
            "",
        ),
        ("glm45", "Hello.<|role_end|>", "Hello."),
        # A value whose </arg_value> was left out: the call ends at </tool_call>, the token after
        # it is still a control token.
        ("glm45", "<tool_call>f<arg_key>a</arg_key><arg_value>1</tool_call><|im_end|>", ""),
        ("glm45", "<tool_call>f<arg_key>a</arg_key><arg_value>1</tool_call> Ok<|im_end|>", "Ok"),
        (
            "iquest_q1",
            "<iquest_tool_call>f<arg_key>a</arg_key><arg_value>1</iquest_tool_call><|iquest_end|>",
            "",
        ),
        ("kimi_k2", "Hi<|im_end|>", "Hi"),
        ("llama3_json", '<|python_tag|>{"name": "f", "parameters": {}}<|eom_id|>', ""),
        ("llama3_json", "Hello.<|eot_id|>", "Hello."),
        ("pythonic", "[f(a=1)]<|eot|>", ""),
        ("mistral", '[TOOL_CALLS]f[ARGS]{"a": 1}[/TOOL_CALLS]', ""),
        ("deepseek_v3", "Hello.<\uff5cend\u2581of\u2581sentence\uff5c>", "Hello."),
        ("harmony", "<|channel|>final<|message|>Hi.<|return|>", "Hi."),
        ("harmony", "Hi.<|end|>", "Hi."),
        ("command_r", "<|CHATBOT_TOKEN|>Hello.<|END_OF_TURN_TOKEN|>", "Hello."),
    ],
)
def test_control_tokens_never_reach_content(fmt: str, text: str, content: str) -> None:
    _, got = read(text, fmt)
    assert got == content


def test_control_tokens_of_formats_not_asked_for_are_text() -> None:
    # `<|im_end|>` is hermes's: for mistral alone it is prose, as any text.
    _, content = read("Hi<|im_end|>", "mistral")
    assert content == "Hi<|im_end|>"


XML_VALUES = [
    # (raw value, schema type or None, expected)
    ("\n42\n", None, 42),
    ("\n  42\n  ", None, 42),
    ("True", None, True),
    (" False ", None, False),
    ("None", None, None),
    ("null", None, None),
    ("True", "string", "True"),
    ('"42"', "number", 42),
    ('"42"', "string", '"42"'),
    ('[{\\"id\\": \\"1\\"}]', "array", [{"id": "1"}]),
    ('[{\\"id\\": \\"1\\"}]', "string", '[{\\"id\\": \\"1\\"}]'),
    ("\n12345678901234567890123456789\n", "integer", 12345678901234567890123456789),
    ("\nParis\n", "string", "Paris"),
    ("\n    return x\n", "string", "    return x"),
    ("\n      John Doe\n    ", "string", "John Doe"),
    ("\ndef f():\n    pass\n    ", "string", "def f():\n    pass"),
    (" a ", "string", " a "),
    ("\n{'k': [1, 2]}\n", "object", {"k": [1, 2]}),
]


@pytest.mark.parametrize(("raw", "type_", "expected"), XML_VALUES)
def test_values_of_xml_style_formats(raw: str, type_: str | None, expected: Any) -> None:
    schema = {"type": type_} if type_ else {}
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"v": schema}}}]
    texts = {
        "qwen3_coder": (
            f"<tool_call>\n<function=f>\n<parameter=v>{raw}</parameter>\n</function>\n</tool_call>"
        ),
        "glm45": f"<tool_call>f\n<arg_key>v</arg_key>\n<arg_value>{raw}</arg_value>\n</tool_call>",
        "minimax_m2": (
            f'<minimax:tool_call>\n<invoke name="f">\n<parameter name="v">{raw}</parameter>\n'
            "</invoke>\n</minimax:tool_call>"
        ),
    }
    for fmt, text in texts.items():
        calls, _ = read(text, fmt, tools=tools)
        assert calls == [("f", {"v": expected})], fmt
        value = calls[0][1]["v"]
        assert type(value) is type(expected), fmt


def test_the_tool_name_policy_is_the_same_on_every_path() -> None:
    text = (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
        '<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call>'
    )
    tools = [WEATHER]
    calls, _ = read(text, "hermes", tools=tools)
    assert [c[0] for c in calls] == ["get_weather", "rm_rf"]  # keep: the default
    calls, _ = read(text, "hermes", tools=tools, unknown_tools="drop")
    assert [c[0] for c in calls] == ["get_weather"]
    for calls, _ in three_paths(text, "hermes", tools=tools, unknown_tools="invalid"):
        assert calls[0] == ("get_weather", {"city": "Paris"})
        assert calls[1][:2] == ("invalid", "rm_rf")
        assert "not among the tools offered" in calls[1][2]
    invalid = toolwire.parse_text(text, "hermes", tools=tools, unknown_tools="invalid").calls[1]
    assert isinstance(invalid, toolwire.InvalidToolCall)
    assert json.loads(invalid.raw) == {"path": "/"}


def test_the_tool_name_policy_applies_to_structured_calls_too() -> None:
    body = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "rm_rf", "arguments": "{}"},
                        }
                    ],
                }
            }
        ]
    }
    assert toolwire.extract(body, tools=[WEATHER], unknown_tools="drop") == []
    assert [c.name for c in toolwire.extract(body, tools=[WEATHER])] == ["rm_rf"]


@pytest.mark.parametrize("policy", ["invalid", "drop"])
def test_a_policy_that_needs_tools_without_them_is_a_value_error(policy: str) -> None:
    with pytest.raises(ValueError, match="needs tools"):
        toolwire.extract("x", unknown_tools=policy)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs tools"):
        toolwire.parse_text("x", unknown_tools=policy)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown_tools must be"):
        toolwire.parse_text("x", tools=[WEATHER], unknown_tools="ignore")  # type: ignore[arg-type]


def test_a_dsml_string_value_is_typed_by_a_schema_that_allows_no_string() -> None:
    # vLLM's DeepSeek V3.2 tests: `string="true"` on an integer or object parameter.
    bar = "\uff5c"  # DSML's full-width bar
    param = f'<{bar}DSML{bar}parameter name="{{}}" string="true">{{}}</{bar}DSML{bar}parameter>'
    text = (
        f'<{bar}DSML{bar}function_calls><{bar}DSML{bar}invoke name="f">'
        + param.format("n", "42")
        + param.format("o", '{"a": 1}')
        + param.format("s", "42")
        + param.format("bad", "abc")
        + f"</{bar}DSML{bar}invoke></{bar}DSML{bar}function_calls>"
    )
    props = {"n": {"type": "integer"}, "o": {"type": ["object", "null"]}}
    props |= {"s": {"type": "string"}, "bad": {"type": "integer"}}
    tools = [{"name": "f", "parameters": {"type": "object", "properties": props}}]
    calls, _ = read(text, "deepseek_dsml", tools=tools)
    assert calls == [("f", {"n": 42, "o": {"a": 1}, "s": "42", "bad": "abc"})]
    # Without a schema the markup decides.
    calls, _ = read(text, "deepseek_dsml")
    assert calls == [("f", {"n": "42", "o": '{"a": 1}', "s": "42", "bad": "abc"})]


def test_llama3_calls_spelled_with_arguments_or_joined_by_lines() -> None:
    # vLLM's Llama 3 tests: `"arguments"` for `"parameters"`, and calls one a line.
    text = '{"name": "search", "arguments": {"q": "a"}}'
    assert read(text, "llama3_json") == ([("search", {"q": "a"})], "")
    text = '{"name": "a", "parameters": {}}\n{"name": "b", "parameters": {"x": 1}}'
    assert read(text, "llama3_json") == ([("a", {}), ("b", {"x": 1})], "")
    # JSON on the next line that is no call stays the model's text.
    text = '{"name": "a", "parameters": {}}\n{"note": "done"}'
    assert read(text, "llama3_json") == ([("a", {})], '{"note": "done"}')
    # A call object without arguments is still no bare Llama 3 call.
    assert read('{"name": "a"}', "llama3_json") == ([], '{"name": "a"}')


@pytest.mark.parametrize(
    "inner",
    [
        # A whole call, tags and all, inside a file a code-writing tool is asked to write.
        "<tool_call>\n<function=write_file>\n<parameter=path>\nx.txt\n</parameter>\n"
        "</function>\n</tool_call>",
        # A parameter of the same name, closed, then more text.
        "<parameter=path>\nliteral\n</parameter>\nmore",
        # Tags quoted in code, never closed.
        'deltas = ["<tool_call>\\n", "<parameter=q>\\n", "</parameter>\\n", "</function>\\n"]',
    ],
)
def test_a_value_may_hold_the_markup_as_text(inner: str) -> None:
    # vLLM's qwen3 tests: the value ends at the `</parameter>` that closes no tag of its own
    # and is followed by the call's markup, so the path is not overwritten by a literal.
    content = f'doc = """\n{inner}\n"""'
    text = (
        "<tool_call>\n<function=write_file>\n<parameter=path>\nfixture.py\n</parameter>\n"
        f"<parameter=content>\n{content}\n</parameter>\n</function>\n</tool_call>"
    )
    assert read(text, "qwen3_coder") == (
        [("write_file", {"path": "fixture.py", "content": content})],
        "",
    )


def test_a_value_whose_close_was_left_out_still_ends_at_the_next_parameter() -> None:
    text = (
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\n2\n</parameter>\n"
        "</function>\n</tool_call> Done."
    )
    assert read(text, "qwen3_coder") == ([("f", {"a": 1, "b": 2})], "Done.")


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        # Step-3.5 (SGLang's step3p5 tests): the value's and the function's close left out.
        ("<tool_call><function=bash><parameter=command>pwd</tool_call> Done.", {"command": "pwd"}),
        ("<tool_call>\n<function=f>\n<parameter=a>\n1\n</tool_call>\nDone.", {"a": 1}),
        # Only the function's close left out, and a block without its opening wrapper.
        ("<tool_call><function=f><parameter=a>x</parameter></tool_call>Done.", {"a": "x"}),
        ("<function=f><parameter=a>x</tool_call>Done.", {"a": "x"}),
    ],
)
def test_a_closing_tool_call_tag_closes_what_was_left_open(
    text: str, arguments: dict[str, Any]
) -> None:
    name = "bash" if "bash" in text else "f"
    assert read(text, "qwen3_coder") == ([(name, arguments)], "Done.")


def test_a_container_serialized_twice_is_read_by_the_schema() -> None:
    text = (
        "<tool_call>\n<function=f>\n<parameter=data>\n\"{'k': 'v'}\"\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    tools = [{"name": "f", "parameters": {"properties": {"data": {"type": "object"}}}}]
    assert read(text, "qwen3_coder", tools=tools) == ([("f", {"data": {"k": "v"}})], "")
    assert read(text, "qwen3_coder") == ([("f", {"data": "{'k': 'v'}"})], "")


def test_granite_31_writes_its_list_after_tool_call() -> None:
    # vLLM's Granite tests: Granite 3.0 `<|tool_call|>[…]`, Granite 3.1 `<tool_call> […]`.
    for start in ("<|tool_call|>", "<tool_call> "):
        text = f'Sure.\n{start}[{{"name": "f", "arguments": {{"a": 1}}}}]'
        assert read(text, "granite") == ([("f", {"a": 1})], "Sure.")
    # A broken one is granite's, named so.
    calls = toolwire.parse_text('<tool_call> [{"name": "f", "arguments": {', format="granite")
    assert [c.protocol for c in calls.calls if isinstance(c, toolwire.InvalidToolCall)] == [
        "granite"
    ]


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("\nDallas\n", "Dallas"),  # the template's layout, a newline on each side
        ("return 1\n", "return 1\n"),  # an inline value's newline is the model's
        ("\n    if x:", "\n    if x:"),
        ("hello ", "hello "),
    ],
)
def test_a_string_value_loses_the_layout_only(raw: str, value: str) -> None:
    text = f"<tool_call>\n<function=f>\n<parameter=s>{raw}</parameter>\n</function>\n</tool_call>"
    tools = [{"name": "f", "parameters": {"properties": {"s": {"type": "string"}}}}]
    assert read(text, "qwen3_coder", tools=tools) == ([("f", {"s": value})], "")


@pytest.mark.parametrize(
    ("fmt", "wrapper"),
    [("dots", "dots_function_call"), ("minimax_m2", "minimax:tool_call")],
)
def test_an_invoke_wrapper_holding_a_json_call_and_a_stray_close(fmt: str, wrapper: str) -> None:
    open_, close = f"<{wrapper}>", f"</{wrapper}>"
    invoke = '<invoke name="search"><parameter name="query">chairs</parameter></invoke>'
    # dots writes a JSON call object (or list) in the wrapper as well as invokes (vLLM's tests).
    text = (
        f"ok{open_}{invoke}{close}{open_}"
        '{"name": "search", "arguments": {"query": "tables"}}'
        f'{close}{open_}[{{"name": "open", "arguments": {{"id": 7}}}}]{close}'
    )
    calls, content = read(text, fmt)
    assert calls == [
        ("search", {"query": "chairs"}),
        ("search", {"query": "tables"}),
        ("open", {"id": 7}),
    ]
    assert content == "ok"
    # JSON that is not a call is still a broken block, not prose.
    calls, content = read(f'{open_}{{"query": "x"}}{close}', fmt)
    assert [c[0] for c in calls] == ["invalid"] and content == ""
    # The wrapper's closing token standing alone is a control token, never content.
    assert read(f"some text {close}", fmt) == ([], "some text")


def _tool(name: str, *properties: str) -> dict[str, Any]:
    props = {p: {"type": "string"} for p in properties}
    return {"type": "function", "function": {"name": name, "parameters": {"properties": props}}}


def test_a_kimi_bare_index_names_the_one_tool_that_fits() -> None:
    # vLLM's Kimi-K2 tests: the id is only the call's index, `0`.
    def bare(arguments: str) -> str:
        call = f"<|tool_call_begin|>0 <|tool_call_argument_begin|>{arguments}<|tool_call_end|>"
        return f"Let me check. <|tool_calls_section_begin|>{call}<|tool_calls_section_end|>"

    weather, read_file = _tool("get_weather", "city", "unit"), _tool("read_file", "path")
    flight = _tool("book_flight", "city")
    args = '{"city": "Tokyo", "unit": "celsius"}'
    # The only tool offered, or the only one whose schema lists every argument key.
    for tools in ([weather], [read_file, weather]):
        calls, content = read(bare(args), "kimi_k2", tools=tools)
        assert calls == [("get_weather", {"city": "Tokyo", "unit": "celsius"})]
        assert content == "Let me check."
    # The only tool offered, with arguments that are no JSON: a failed call to it.
    calls, _ = read(bare('{"city": "Tokyo"'), "kimi_k2", tools=[weather])
    assert [c[:2] for c in calls] == [("invalid", "get_weather")]
    # No single tool fits (two have `city`; keys of none; arguments that are no JSON), or no
    # tools=: the id names no tool, and the call is never one to a tool named "0".
    for arguments, tools in [
        ('{"city": "Tokyo"}', [weather, flight]),
        ('{"zip": "1"}', [weather, read_file]),
        ('{"city": "Tokyo"', [weather, flight]),
        (args, None),
    ]:
        calls, _ = read(bare(arguments), "kimi_k2", tools=tools)
        assert [c[:2] for c in calls] == [("invalid", None)], (arguments, tools)
        assert "names none" in calls[0][2]


def test_dsml_arguments_wrapped_in_one_parameter_are_unwrapped_by_the_schema() -> None:
    # vLLM's DeepSeek V3.2 tests: the whole arguments object in `arguments` (as an object) or
    # `input` (as its JSON text, `string="true"`).
    bar = "\uff5c"

    def dsml(key: str, string: str, value: str) -> str:
        param = f'<{bar}DSML{bar}parameter name="{key}" string="{string}">{value}'
        return (
            f'<{bar}DSML{bar}function_calls>\n<{bar}DSML{bar}invoke name="get_weather">\n'
            f"{param}</{bar}DSML{bar}parameter>\n</{bar}DSML{bar}invoke>\n"
            f"</{bar}DSML{bar}function_calls>"
        )

    inner = '{"location": "Beijing"}'
    weather = _tool("get_weather", "location")
    for key, string in [("arguments", "false"), ("input", "true")]:
        calls, _ = read(dsml(key, string, inner), "deepseek_dsml", tools=[weather])
        assert calls == [("get_weather", {"location": "Beijing"})]
    # Only the schema tells a wrapper from a parameter of that name: without tools=, when the
    # tool has a parameter `input`, or when a key inside is not the tool's, it stays.
    text = dsml("input", "false", inner)
    for tools in (
        None,
        [_tool("get_weather", "location", "input")],
        [_tool("get_weather", "city")],
    ):
        calls, _ = read(text, "deepseek_dsml", tools=tools)
        assert [(name, list(arguments)) for name, arguments in calls] == [
            ("get_weather", ["input"])
        ], tools
    # Text that is no JSON object stays the string it is.
    calls, _ = read(dsml("input", "true", "Beijing"), "deepseek_dsml", tools=[weather])
    assert calls == [("get_weather", {"input": "Beijing"})]


def test_a_value_holding_a_close_and_a_parameter_the_tool_lacks_is_one_value() -> None:
    # vLLM's qwen3 tests: `</parameter>` then `<parameter=new_string>` on lines of their own
    # inside a file's content. write_file has no parameter new_string, so with tools= the lines
    # are text in the value; without a schema they read as the value's end and a parameter.
    content = (
        'T = """\n</parameter>\n<parameter=new_string>\n#!/usr/bin/env python3\n</parameter>\n"""'
    )
    text = (
        "<tool_call>\n<function=write_file>\n<parameter=path>\nt.py\n</parameter>\n"
        f"<parameter=content>\n{content}\n</parameter>\n</function>\n</tool_call>\n"
    )
    tools = [_tool("write_file", "path", "content")]
    assert read(text, "qwen3_coder", tools=tools) == (
        [("write_file", {"path": "t.py", "content": content})],
        "",
    )
    split = {
        "path": "t.py",
        "content": 'T = """',
        "new_string": '#!/usr/bin/env python3\n</parameter>\n"""',
    }
    assert read(text, "qwen3_coder")[0] == [("write_file", split)]
    # A parameter the tool has ends the value, as always.
    tools = [_tool("write_file", "path", "content", "new_string")]
    assert read(text, "qwen3_coder", tools=tools)[0] == [("write_file", split)]


@pytest.mark.parametrize(
    ("fmt", "text", "calls"),
    [
        ("apertus", '<|tools_prefix|>[{"get_weather": {"location": "London"}', 1),
        ("apertus", '<|tools_prefix|>[{"get_weather": {"location": "London"}}', 1),
        ("apertus", '<|tools_prefix|>{"get_weather": {"location": "London"}', 1),
        ("apertus", '<|tools_prefix|>[{"a": {}}, {"get_weather": {"location": "London"}} ', 2),
        ("nemotron", '<TOOLCALL>[{"name": "get_weather", "arguments": {"location": "London"}}', 1),
    ],
)
def test_a_call_list_cut_after_a_call_at_the_end_of_the_text_is_read(
    fmt: str, text: str, calls: int
) -> None:
    # vLLM's Apertus tests: max_tokens or a stop sequence cut the list after the arguments.
    got, _ = read(text, fmt)
    assert got[calls - 1] == ("get_weather", {"location": "London"}) and len(got) == calls


@pytest.mark.parametrize(
    "text",
    [
        '<|tools_prefix|>[{"get_weather": {"location": "Lon',
        '<|tools_prefix|>[{"get_weather": {"location": "London"',
        '<|tools_prefix|>[{"get_weather": {"days": [1, 2]',
        '<|tools_prefix|>[{"get_weather": {"location": "London"}},',
        '<|tools_prefix|>[{"get_weather": {"location": "London"}}<|tools_suffix|> more',
    ],
)
def test_a_call_list_cut_inside_a_value_stays_an_invalid_call(text: str) -> None:
    calls, _ = read(text, "apertus")
    assert [c[0] for c in calls] == ["invalid"]


@pytest.mark.parametrize("fmt", ["lfm2", "pythonic"])
def test_pythonic_sets_and_plain_f_strings_are_read(fmt: str) -> None:
    # SGLang's LFM2 tests: a set argument is a list (in the order written: JSON has no set),
    # an f-string with nothing to format is a plain string.
    def call(arguments: str) -> str:
        calls = f"[search({arguments})]"
        return f"<|tool_call_start|>{calls}<|tool_call_end|>" if fmt == "lfm2" else calls

    assert read(call("query={'b', 'a'}, tags={1, 2,}"), fmt)[0] == [
        ("search", {"query": ["b", "a"], "tags": [1, 2]})
    ]
    assert read(call("query=f'hello', q2=u\"x\""), fmt)[0] == [
        ("search", {"query": "hello", "q2": "x"})
    ]
    # A placeholder is an expression, and a leading zero no Python number: never guessed.
    for arguments in ["query=f'{name}'", "day=07"]:
        calls, _ = read(call(arguments), fmt)
        assert [c[0] for c in calls] == ["invalid"], arguments


@pytest.mark.parametrize("fmt", ["lfm2", "pythonic"])
def test_pythonic_keyword_arguments_unpacked_from_a_dict(fmt: str) -> None:
    # SGLang's LFM2 tests: `**{…}` binds its members as keyword arguments, a later binding
    # of a key replacing an earlier one, as in Python.
    def call(arguments: str) -> str:
        calls = f"[search({arguments}), f(a=1)]"
        return f"<|tool_call_start|>{calls}<|tool_call_end|>" if fmt == "lfm2" else calls

    assert read(call("**{'query': 'x'}, limit=2"), fmt)[0] == [
        ("search", {"query": "x", "limit": 2}),
        ("f", {"a": 1}),
    ]
    assert read(call("query='a', **{'query': 'b', \"n\": {'k': [1]}}"), fmt)[0] == [
        ("search", {"query": "b", "n": {"k": [1]}}),
        ("f", {"a": 1}),
    ]
    # No keyword arguments can be read from anything but a mapping: the call is invalid, with
    # its text kept, and its sibling is read.
    for arguments in ["**[1, 2]", "**'ab'", "**{'a': 1", "*{'a': 1}"]:
        calls, _ = read(call(arguments), fmt)
        assert [c[0] for c in calls][-1] == "f", arguments
        assert calls[0][0] == "invalid", arguments


@pytest.mark.parametrize("fmt", ["lfm2", "pythonic"])
def test_pythonic_strings_holding_their_own_quotes(fmt: str) -> None:
    # SGLang's LFM2 tests: a model writes a shell command's quotes unescaped inside a string
    # of the same kind. The string ends at the one later quote on its line after which the
    # call reads on; where none or several do, nothing is guessed.
    def call(arguments: str) -> str:
        calls = f"[run({arguments}), f(a=1)]"
        return f"<|tool_call_start|>{calls}<|tool_call_end|>" if fmt == "lfm2" else calls

    for arguments, expected in [
        ("cmd='sed -n '360,450p' f.py'", {"cmd": "sed -n '360,450p' f.py"}),
        ("cmd='it's', n=1", {"cmd": "it's", "n": 1}),
        ('cmd="say "hi" now",', {"cmd": 'say "hi" now'}),
        ("n=1, cmd='a 'b'\\n'", {"n": 1, "cmd": "a 'b'\n"}),
        ("cmd='x\n'y' z'", {"cmd": "x\n'y' z"}),
        # Adjacent literals are one string, as in Python: valid text, nothing to guess.
        ("cmd='a' \"b\"  'c', n=2", {"cmd": "abc", "n": 2}),
    ]:
        assert read(call(arguments), fmt)[0] == [("run", expected), ("f", {"a": 1})], arguments
    # Two readings (city='echo 'hi' then unit=…, or one string to 'celsius'), or none: the
    # call stays invalid, its text kept, and its sibling is read.
    for arguments in ["city='echo 'hi', unit='celsius'", "a='x 'y' 'z", "a='x 'y' z"]:
        calls, _ = read(call(arguments), fmt)
        assert [c[0] for c in calls] == ["invalid", "f"], arguments


def test_pythonic_quote_guesses_stay_linear() -> None:
    # Every call has a string whose inner quotes cannot be placed: the guesses are bounded per
    # list, so a long list of them reads in one pass (each call still an InvalidToolCall).
    calls = ", ".join(f"f{i}(a='p 'q' r', b=)" for i in range(3000))
    parsed = toolwire.parse_text(f"[{calls}]", format="pythonic")
    assert len(parsed.calls) == 3000
    assert all(isinstance(c, toolwire.InvalidToolCall) for c in parsed.calls)


LFM2_ORDER = (
    "[grocery.orderIngredients(ingredientList=[{'name': 'apple', 'quantity': '2'}], "
    "deliveryAddress='123 Main St')]"
)


@pytest.mark.parametrize(
    ("text", "content"),
    [
        # LFM2 writes its list again after the end token, closed by another: one call, no text.
        (f"<|tool_call_start|>{LFM2_ORDER}<|tool_call_end|>{LFM2_ORDER}<|tool_call_end|>", ""),
        (
            f"<|tool_call_start|>{LFM2_ORDER}<|tool_call_end|>\n"
            f"{LFM2_ORDER}<|tool_call_end|> Done.",
            "Done.",
        ),
        # Not a verbatim echo: text, and the end token that closes nothing is dropped.
        (f"<|tool_call_start|>{LFM2_ORDER}<|tool_call_end|>[f()]<|tool_call_end|>", "[f()]"),
        # An echo the text cuts short is text.
        (f"<|tool_call_start|>{LFM2_ORDER}<|tool_call_end|>{LFM2_ORDER[:30]}", LFM2_ORDER[:30]),
    ],
)
def test_an_lfm2_echo_of_the_call_list_is_neither_content_nor_a_second_call(
    text: str, content: str
) -> None:
    calls, got = read(text, "lfm2")
    assert [name for name, _ in calls] == ["grocery.orderIngredients"]
    assert got == content


@pytest.mark.parametrize(
    ("fmt", "wrap"),
    [
        ("hermes", "<tool_call>{}</tool_call>"),
        ("text_tagged", "~~~tool_call\n{}\n~~~"),
        ("mistral", "[TOOL_CALLS][{}]"),
    ],
)
def test_openai_shaped_call_objects_in_markup(fmt: str, wrap: str) -> None:
    # Ollama's Qwen 3 tests: a model writes OpenAI's call shape inside its call markup, as raw
    # JSON already reads it. The inner object is the call; the outer id is kept.
    function = '{"name": "f", "arguments": "{\\"a\\": 1}"}'
    call = f'{{"id": "c7", "type": "function", "function": {function}}}'
    assert read(wrap.replace("{}", call), fmt)[0] == [("f", {"a": 1})]
    parsed = toolwire.parse_text(wrap.replace("{}", call), format=fmt)
    assert parsed.calls[0].id == "c7"
    # A wrapper holding no name is still a broken call, not a guess.
    nameless = wrap.replace("{}", '{"function": {"arguments": {}}}')
    calls, _ = read(nameless, fmt)
    assert [c[0] for c in calls] == ["invalid"]


@pytest.mark.parametrize(
    ("fmt", "block", "close"),
    [
        ("minimax_m2", "<minimax:tool_call>", "</minimax:tool_call>"),
        ("dots", "<dots_function_call>", "</dots_function_call>"),
    ],
)
@pytest.mark.parametrize(
    "junk", ["I will call f.\n", '<parameter name="x">1</parameter>', "</invoke>"]
)
def test_markup_in_a_block_that_is_not_an_invoke_fails_alone(
    fmt: str, block: str, close: str, junk: str
) -> None:
    """Text in an invoke block that is no invoke is an invalid call up to the next invoke,
    which is read (it used to swallow the rest of the block), and keeps its place: index 0."""
    invoke = '<invoke name="f"><parameter name="a">1</parameter></invoke>'
    text = f"{block}\n{junk}{invoke}\n{close}Done."
    calls, content = read(text, fmt)
    assert [c[:2] for c in calls] == [("invalid", None), ("f", {"a": 1})]
    assert content == "Done."
    parsed = toolwire.parse_text(text, format=fmt).calls
    assert isinstance(parsed[0], toolwire.InvalidToolCall)
    assert (parsed[0].index, parsed[0].raw) == (0, junk)


def test_cohere_action_in_the_generic_call_shape() -> None:
    # The SGLang gateway's Cohere tests: `name`/`arguments` in an action, beside Cohere's own
    # `tool_name`/`parameters`; both spellings of one field at once are ambiguous.
    text = '<|START_ACTION|>{"name": "test", "arguments": {"key": "value"}}<|END_ACTION|>'
    assert read(text, "command_r7b") == ([("test", {"key": "value"})], "")
    text = '[{"name": "a", "parameters": {"x": 1}}, {"tool_name": "b"}]'
    assert read(f"<|START_ACTION|>{text}<|END_ACTION|>", "command_r7b") == (
        [("a", {"x": 1}), ("b", {})],
        "",
    )
    for body in (
        '{"tool_name": "a", "name": "b", "parameters": {}}',
        '{"tool_name": "a", "parameters": {}, "arguments": {"x": 1}}',
    ):
        calls, content = read(f"<|START_ACTION|>{body}<|END_ACTION|>", "command_r7b")
        assert [c[0] for c in calls] == ["invalid"] and content == "", body


def test_kimi_k3_response_markers_spaced_by_the_detokenizer() -> None:
    # A detokenizer that puts spaces between special tokens writes `<|open|> response <|sep|>`.
    text = "<|open|> response <|sep|>answer<|close|> response <|sep|>"
    assert read(text, "kimi_k3") == ([], "answer")
    text += '<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|close|>call<|sep|>'
    assert read(text + "<|close|>tools<|sep|>", "kimi_k3") == ([("f", {})], "answer")


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("qwen_xml", "qwen3_coder"),
        ("qwen_coder", "qwen3_coder"),
        ("glm45_moe", "glm45"),
        ("glm47_moe", "glm45"),
        ("llama", "llama3_json"),
        ("deepseek", "deepseek_v3"),
        ("deepseek31", "deepseek_v31"),
        ("deepseek32", "deepseek_dsml"),
        ("cohere", "command_r7b"),
        ("json", ("raw_json", "hermes")),
    ],
)
def test_the_sglang_gateway_parser_names(alias: str, name: Any) -> None:
    assert toolwire.FORMAT_ALIASES[alias] == name
    text = '{"name": "f", "arguments": {"a": 1}}'
    if alias == "json":
        assert toolwire.parse_text(text, format="json").calls[0].arguments == {"a": 1}


# DeepSeek's DSML token, its full-width bars written as escapes.
DSML = "\uff5cDSML\uff5c"


@pytest.mark.parametrize(
    "close", [f"</{DSML}function_calls>", f"</{DSML}tool_calls>", f"</{DSML} calls>"]
)
def test_a_stray_dsml_block_close_is_a_control_token(close: str) -> None:
    # As a stray `</minimax:tool_call>` or `</dots_function_call>` is (the SGLang gateway's
    # DSML streaming tests send one alone).
    assert read(close, "deepseek_dsml") == ([], "")
    assert read(f"Done.{close} Next.", "deepseek_dsml") == ([], "Done. Next.")
    block = f'<{DSML}tool_calls><{DSML}invoke name="f"></{DSML}invoke></{DSML}tool_calls>'
    assert read(f"{block}{close}", "deepseek_dsml") == ([("f", {})], "")


@pytest.mark.parametrize(
    ("fmt", "start", "end", "quote"),
    [
        ("gemma4", "<|tool_call>", "<tool_call|>", '<|"|>'),
        ("function_gemma", "<start_function_call>", "<end_function_call>", "<escape>"),
    ],
)
def test_calls_written_one_after_another_in_one_gemma_block(
    fmt: str, start: str, end: str, quote: str
) -> None:
    # mlx-lm's test_gemma4: two calls in one start token, no delimiter between them.
    q = quote
    body = f"call:glob{{pattern:{q}a {{b}}{q}}}call:ls{{}} call:cd{{path:{q}/x{q}}}"
    calls, content = read(f"Sure.{start}{body}{end} Done.", fmt)
    assert calls == [("glob", {"pattern": "a {b}"}), ("ls", {}), ("cd", {"path": "/x"})]
    assert content == "Sure. Done."
    # A broken second call fails alone; the first is read.
    calls, _ = read(f"{start}call:a{{x:1}}call:b{{y:{q}open}}{end}", fmt)
    assert calls[0] == ("a", {"x": 1}) and calls[1][0] == "invalid" and len(calls) == 2


@pytest.mark.parametrize("newline", ["", "\n"])
def test_longcat_pairs_and_json_calls(newline: str) -> None:
    # mlx-lm's longcat parser: glm45's pairs spelled with LongCat's tags, or a JSON call.
    pairs = (
        f"<longcat_tool_call>multiply{newline}<longcat_arg_key>a</longcat_arg_key>{newline}"
        "<longcat_arg_value>12</longcat_arg_value>\n<longcat_arg_key>s</longcat_arg_key>"
        "<longcat_arg_value>x </arg_value> y</longcat_arg_value></longcat_tool_call>"
    )
    json_call = '<longcat_tool_call>{"name": "f", "arguments": {"a": 1}}</longcat_tool_call>'
    bare = "<longcat_tool_call>now\n</longcat_tool_call>"
    calls, content = read(f"Hi {pairs} {json_call} {bare} bye", "longcat")
    assert calls == [
        ("multiply", {"a": 12, "s": "x </arg_value> y"}),
        ("f", {"a": 1}),
        ("now", {}),
    ]
    assert content == "Hi    bye"
    # glm45's own tags are not LongCat's.
    glm = "<longcat_tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></longcat_tool_call>"
    calls, _ = read(glm, "longcat")
    assert calls[0][0] == "invalid"


def test_mistral_v11_calls_written_one_after_another_without_their_token() -> None:
    # mlx-lm's test_mistral (PR 1448): `a[ARGS]{…}b[ARGS]{…}` is two calls.
    text = '[TOOL_CALLS]a[ARGS]{"x": 1}b[CALL_ID]abc123XYZ[ARGS]{"y": 2}c[ARGS]{}[TOOL_CALLS]d{} ok'
    calls, content = read(text, "mistral")
    assert calls == [("a", {"x": 1}), ("b", {"y": 2}), ("c", {}), ("d", {})]
    assert content == "ok"
    # Only a name and the [ARGS] or [CALL_ID] token continue the calls: prose, a name with its
    # [ARGS] dropped, or a line break, do not.
    for after in ["Sure thing", "b", 'b{"y": 2}', '\nb[ARGS]{"y": 2}', "bb[ARG"]:
        calls, content = read('[TOOL_CALLS]a[ARGS]{"x": 1}' + after, "mistral")
        assert calls == [("a", {"x": 1})] and content == after.strip(), after
    calls, _ = read('[TOOL_CALLS]a[ARGS]{"x": 1}b[ARGS]nope', "mistral")
    assert calls[0] == ("a", {"x": 1}) and calls[1][:2] == ("invalid", "b") and len(calls) == 2


def test_a_json_call_in_qwen3_coders_tag_is_read() -> None:
    # mlx-swift-lm's Qwen3.5 tests: Qwen3.5 at times writes Qwen's JSON call in its <tool_call>.
    text = (
        'Hi <tool_call>{"name": "f", "arguments": {"s": "a } <function=x>"}}</tool_call>'
        "<tool_call>\n<function=g>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
        '<tool_call>{"name": "h", "arguments": {"b": 2}}'
    )
    calls, content = read(text, "qwen3_coder")
    assert calls == [("f", {"s": "a } <function=x>"}), ("g", {"a": 1}), ("h", {"b": 2})]
    assert content == "Hi"
    calls, _ = read('<tool_call>{"name": "f", "arguments": {}</tool_call>', "qwen3_coder")
    assert [c[0] for c in calls] == ["invalid"]


def test_lfm2_arguments_wrapped_in_properties_are_unwrapped_by_the_schema() -> None:
    # mlx-swift-lm's LFM2 tests: `f(properties={…})` holds the whole arguments object.
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"properties": {"location": {"type": "string"}}},
            },
        }
    ]
    text = '<|tool_call_start|>[get_weather(properties={"location": "Tokyo"})]<|tool_call_end|>'
    calls, _ = read(text, "lfm2", tools=tools)
    assert calls == [("get_weather", {"location": "Tokyo"})]
    # Without tools=, or beside another argument, `properties` is the parameter's own name.
    calls, _ = read(text, "lfm2")
    assert calls == [("get_weather", {"properties": {"location": "Tokyo"}})]
    other = text.replace("})", "}, units='c')")
    calls, _ = read(other, "lfm2", tools=tools)
    assert calls == [("get_weather", {"properties": {"location": "Tokyo"}, "units": "c"})]


def test_a_list_of_call_objects_after_the_python_tag_is_calls() -> None:
    # mlx-swift-lm's Llama 3 test: several calls as one JSON list after `<|python_tag|>`.
    listed = '[{"name": "f", "parameters": {"a": 1}}, {"name": "g", "parameters": {}}]'
    assert read(f"<|python_tag|>{listed}<|eom_id|>", "llama3_json") == (
        [("f", {"a": 1}), ("g", {})],
        "",
    )
    # An entry that is not a call is an invalid call of its own; the others are read.
    calls, _ = read('<|python_tag|>[{"name": "f", "parameters": {}}, 3]', "llama3_json")
    assert [c[:2] for c in calls] == [("f", {}), ("invalid", None)]
    # A list with no call object in it is code, as before.
    assert read("<|python_tag|>[1, 2]", "llama3_json")[0] == [("python", {"code": "[1, 2]"})]


def test_step_audio_2_calls_are_glm45_calls_after_a_type_line() -> None:
    # Step-Audio 2's chat template writes `<tool_call>function\nNAME\n{json}</tool_call>`: the
    # first line is the call's type, the tool's name is on the next line (vLLM's and SGLang's
    # `step_audio_2` parsers split the body so).
    text = (
        "Let me check the weather for you.\n<tool_call>function\nget_weather\n"
        '{"location": "Shanghai"}</tool_call>\nI\'ll get that information for you.'
    )
    for fmt in ("step_audio_2", "glm45"):
        calls, content = read(text, fmt)
        assert calls == [("get_weather", {"location": "Shanghai"})]
        assert content == (
            "Let me check the weather for you.\n\nI'll get that information for you."
        )
    two = (
        '<tool_call>function\nget_weather\n{"location": "Shanghai"}</tool_call>'
        '<tool_call>function\nsearch\n{"query": "weather forecast"}</tool_call><|EOT|>'
    )
    calls, content = read(two, "step_audio_2")
    assert [c[0] for c in calls] == ["get_weather", "search"]
    assert content == ""  # its end of turn, `<|EOT|>`, is a control token
    assert toolwire.FORMAT_ALIASES["step_audio_2"] == "glm45"
    # Sniffed too: `<tool_call>` then a name is glm45's shape.
    assert [c.name for c in toolwire.extract(two)] == ["get_weather", "search"]


def test_a_glm_tool_named_function_is_still_that_tool() -> None:
    # Only a name line followed by JSON arguments makes `function` a type line: GLM's pairs
    # after `function` call the tool `function`, and a second line that is not a bare name
    # leaves the call as glm45 reads it (a failed call, never another tool).
    pairs = "<tool_call>function\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>"
    assert read(pairs, "glm45")[0] == [("function", {"a": 1})]
    laguna = '<tool_call>function\n{"a": 1}</tool_call>'
    assert read(laguna, "glm45")[0] == [("function", {"a": 1})]
    two_words = '<tool_call>function\nget weather\n{"a": 1}</tool_call>'
    calls, _ = read(two_words, "glm45")
    assert [c[0] for c in calls] == ["invalid"]
    cut = "<tool_call>function\nget_weather\n"
    calls, _ = read(cut, "step_audio_2")
    assert [c[0] for c in calls] == ["invalid"]


def test_exaone_moe_fences_its_json_in_the_hermes_tag() -> None:
    # K-EXAONE writes hermes's `<tool_call>` JSON, at times in a ```json fence inside the tag
    # (llama.cpp's EXAONE_MOE format reads both; vLLM serves the model with `hermes`).
    call = '{"name": "f", "arguments": {"a": 1}}'
    for body in (f"```json\n{call}\n```", f"\n```\n{call}\n```\n"):
        text = f"Sure.\n<tool_call>{body}</tool_call>\nDone."
        for fmt in ("exaone_moe", "hermes"):
            calls, content = read(text, fmt)
            assert calls == [("f", {"a": 1})]
            assert content == "Sure.\n\nDone."
    assert toolwire.FORMAT_ALIASES["exaone_moe"] == "hermes"
    # A fence that names another language is no JSON body: the call is broken, never run.
    xml = '<tool_call>```xml\n{"name": "f", "arguments": {"a": 1}}\n```</tool_call>'
    assert [c[0] for c in read(xml, "hermes")[0]] == ["invalid"]


def test_generic_is_llamacpp_generic() -> None:
    # llama.cpp's chat format `Generic` is toolwire's `llamacpp_generic`.
    assert toolwire.FORMAT_ALIASES["generic"] == "llamacpp_generic"
    answer = '{"response": "Hello"}'
    assert toolwire.parse_text(answer, format="generic").content == "Hello"
    call = '{"tool_call": {"name": "f", "arguments": {"a": 1}}}'
    assert [c.name for c in toolwire.extract(call, formats=["Generic"])] == ["f"]


def test_rwkv_earlier_spelling_is_a_call_object_on_the_line_after_the_tag() -> None:
    # RWKV's earlier spelling (vLLM's rwkv parser reads it): `<tool_call>`, then the call
    # object on one line, a Python dict or JSON, no closing tag. The arguments stay as written.
    text = (
        "Need to inspect the file.\n<tool_call>\n"
        "{'arguments': {'filePath': 'calculator.py'}, 'name': 'read', 'type': 'tool_call'}\n"
        "Then I will fix it."
    )
    calls, content = read(text, "rwkv")
    assert calls == [("read", {"filePath": "calculator.py"})]
    assert content == "Need to inspect the file.\nThen I will fix it."
    closed = '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>\nDone.'
    calls, content = read(closed, "rwkv")
    assert calls == [("f", {"a": 1})]
    assert content == "Done."
    # A tag that holds no object is prose; a broken object is a failed call, never run.
    assert read("Write <tool_call> before a call.", "rwkv") == (
        [],
        "Write <tool_call> before a call.",
    )
    broken = "<tool_call>\n{'name': 'f', 'arguments': {'a': 1}\nmore"
    calls, _ = read(broken, "rwkv")
    assert [c[0] for c in calls] == ["invalid"]
    # Where hermes is read too, the tag is hermes's (a Python dict is no JSON: a failed call).
    calls, _ = read(text, "hermes")
    assert [c[0] for c in calls] == ["invalid"]


def test_solar_open_calls_keep_their_id_and_the_turn_tokens_are_not_content() -> None:
    # Upstage Solar Open 100B: `<|tool_calls|>` then `<|tool_call:begin|>ID<|tool_call:name|>`
    # NAME `<|tool_call:args|>` JSON `<|tool_call:end|>`, the turn ended by `<|calls|>`.
    call = "<|tool_call:begin|>{}<|tool_call:name|>{}<|tool_call:args|>{}<|tool_call:end|>"
    text = (
        "Let me check.<|end|><|begin|>assistant<|tool_calls|>"
        + call.format("a1b2c3d4e5", "get_weather", '{"city": "Seoul"}')
        + call.format("f6g7h8i9j0", "get_time", '{"tz": "UTC"}')
        + "<|calls|>"
    )
    calls, content = read(text, "solar_open")
    assert calls == [("get_weather", {"city": "Seoul"}), ("get_time", {"tz": "UTC"})]
    assert content == "Let me check."
    assert [c.id for c in toolwire.extract(text, formats=["solar_open"])] == [
        "a1b2c3d4e5",
        "f6g7h8i9j0",
    ]
    # Sniffed too; a call written without the section, its end token cut off, still reads.
    cut = call.format("x", "f", '{"a": 1}')[: -len("<|tool_call:end|>")]
    assert [c.name for c in toolwire.extract(cut)] == ["f"]


def test_rwkv_earliest_spelling_is_minimax_invokes_in_the_tag() -> None:
    # The spelling vLLM's first RWKV parser read (its tests at 38a442be): MiniMax-M2's invokes
    # inside `<tool_call>`; values typed by the schema, as in the other invoke formats.
    tools = [
        {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        }
    ]
    text = (
        'I\'ll check.\n<tool_call>\n<invoke name="get_weather">\n'
        '<parameter name="city">杭州</parameter>\n<parameter name="days">2</parameter>\n'
        "</invoke>\n</tool_call>\nDone."
    )
    calls, content = read(text, "rwkv", tools=tools)
    assert calls == [("get_weather", {"city": "杭州", "days": 2})]
    assert content == "I'll check.\n\nDone."
    # Another tag after the tag is no call: prose.
    assert read("<tool_call><b>bold</b>", "rwkv") == ([], "<tool_call><b>bold</b>")


def test_sarashina_python_list_after_its_token_or_opening_the_message() -> None:
    # SB Intuitions Sarashina: a Python-literal list of call dicts after `<|tool_calls|>`, a
    # special token detokenizers drop, so a message that starts with the list is read too.
    listed = "[{'name': 'f', 'arguments': {'a': True, 'b': None}}, {'name': 'g', 'arguments': {}}]"
    expected = [("f", {"a": True, "b": None}), ("g", {})]
    assert read("Sure.<|tool_calls|>" + listed, "sarashina") == (expected, "Sure.")
    assert read(listed, "sarashina") == (expected, "")
    # One dict is a list of one; an empty list is no call.
    assert read("<|tool_calls|>{'name': 'f', 'arguments': {'a': 1}}", "sarashina")[0] == [
        ("f", {"a": 1})
    ]
    assert read("<|tool_calls|>[]", "sarashina") == ([], "")
    # A bare list is a call list only when its first item is a dict with a name; a JSON list is
    # raw JSON's (read where raw JSON is), and after prose a bare list is prose.
    assert read("[{'id': 1}]", "sarashina") == ([], "[{'id': 1}]")
    # A list of records (a name, no arguments) is data, as raw JSON reads a JSON one.
    records = "[{'name': 'Alice', 'age': 3}]"
    assert read(records, "sarashina") == ([], records)
    assert toolwire.extract(records) == []
    assert read('[{"name": "f", "arguments": {}}]', "sarashina")[0] == []
    assert read("Here: " + listed, "sarashina")[0] == []
    # Where the literal breaks, the items before it are calls and the rest one failure.
    calls, _ = read("[{'name': 'f', 'arguments': {}}, {'name': 'g', 'argu", "sarashina")
    assert [c[:2] for c in calls] == [("f", {}), ("invalid", calls[1][1])]
    # Solar Open's section token: what follows it decides, with both formats read.
    solar = '<|tool_calls|><|tool_call:begin|>0<|tool_call:name|>h<|tool_call:args|>{"x": 1}'
    both = ["solar_open", "sarashina"]
    assert [c.name for c in toolwire.extract(solar + "<|tool_call:end|>", formats=both)] == ["h"]
    assert [c.name for c in toolwire.extract("<|tool_calls|>" + listed, formats=both)] == [
        "f",
        "g",
    ]
    # Solar Open alone reads no list after its token: a section without its call token fails.
    calls, _ = read("<|tool_calls|>" + listed, "solar_open")
    assert [c[0] for c in calls] == ["invalid"]


def test_solar_open_reasoning_channel_is_reasoning() -> None:
    # Solar Open's turn is a run of channels: `<|think|>` opens the reasoning, ended by `<|end|>`
    # (harmony's end token too: one marker ends the messages of both).
    text = "<|think|>Check the weather.<|end|><|content|>It is sunny."
    parsed = toolwire.parse_text(text, format="solar_open")
    assert (parsed.reasoning, parsed.content, parsed.calls) == (
        "Check the weather.",
        "It is sunny.",
        [],
    )
    call = '<|tool_call:begin|>0<|tool_call:name|>f<|tool_call:args|>{"a": 1}<|tool_call:end|>'
    text = "<|begin|>assistant<|think|>Need f.<|end|><|begin|>assistant<|tool_calls|>" + call
    calls, content = read(text, "solar_open")
    assert (calls, content) == ([("f", {"a": 1})], "")
    assert toolwire.parse_text(text, format="solar_open").reasoning == "Need f."
    # Read with harmony too, each group's messages end at the shared token.
    both = ["solar_open", "harmony"]
    parsed = toolwire.parse_text(text, both)
    assert (parsed.reasoning, [c.name for c in parsed.calls]) == ("Need f.", ["f"])


def _atem(name: str, city: str | None = None) -> str:
    param = f'<atem:parameter name="city">{city}</atem:parameter>\n' if city else ""
    return (
        f'<atem:function_calls>\n<atem:invoke name="{name}">\n{param}'
        "</atem:invoke>\n</atem:function_calls>"
    )


@pytest.mark.parametrize("fmt", ["muse_glimmer", "onyx", "atem"])
def test_muse_glimmer_header_after_eom_without_its_start(fmt: str) -> None:
    # OpenVINO Model Server's Onyx tests: after `<|eom|>` (more messages follow) the next
    # message's `<|start|>assistant` may be left out, its header ` to=f<|message|>` alone.
    text = (
        " to=self<|message|>Need the weather.<|eom|>"
        f" to=get_weather<|message|>{_atem('get_weather', 'Paris')}<|eom|>"
        f" to=get_time<|message|>{_atem('get_time')}<|eom|>"
        "<|start|>assistant to=user<|message|>Done.<|eot|>"
    )
    calls, content = read(text, fmt)
    assert calls == [("get_weather", {"city": "Paris"}), ("get_time", {})]
    assert content == "Done."
    assert toolwire.parse_text(text, format=fmt).reasoning == "Need the weather."
    # Only right after `<|eom|>` (blank space aside): elsewhere ` to=f<|message|>` stays prose,
    # and text after `<|eom|>` that is no header is content.
    quoted = " to=user<|message|>Write to=f<|message|> like this.<|eot|>"
    assert read(quoted, fmt) == ([], "Write to=f<|message|> like this.")
    assert read(" to=self<|message|>x<|eom|> to be or not<|eot|>", fmt) == ([], "to be or not")
    # After the end of a turn no header follows: the recipient is prose, and `<|message|>`
    # opens an answer, in which an ATEM block is quoted text.
    text = f" to=self<|message|>x<|eot|> to=f<|message|>{_atem('f')}"
    calls, content = read(text, fmt)
    assert calls == [] and content.startswith("to=f<atem:function_calls>")


@pytest.mark.parametrize("fmt", ["muse_glimmer", "onyx", "atem"])
def test_muse_glimmer_end_of_text_ends_its_message(fmt: str) -> None:
    # mistral.rs's ATEM tests: `<|end_of_text|>`, Muse Glimmer's end-of-sequence token, ends the
    # message it stands in, and is no content.
    assert read(" to=user<|message|>Final answer<|end_of_text|>", fmt) == ([], "Final answer")
    assert read("<|message|>Hi<|end_of_text|>", fmt) == ([], "Hi")
    text = f" to=f<|message|>{_atem('f', 'Rome')}<|end_of_text|>"
    assert read(text, fmt) == ([("f", {"city": "Rome"})], "")


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("hermes3", "hermes"),
        ("devstral", "mistral"),
        ("phi4", "phi4_mini"),
        ("gptoss", "harmony"),
        ("onyx", "muse_glimmer"),
        ("atem", "muse_glimmer"),
        ("liquid", "lfm2"),
    ],
)
def test_ovms_and_mistralrs_parser_names(alias: str, name: str) -> None:
    # OpenVINO Model Server's `tool_parser` names and mistral.rs's tool-call formats.
    assert toolwire.FORMAT_ALIASES[alias] == name


@pytest.mark.parametrize(
    "text",
    [
        ' [{"name": "f", "arguments": {"a": 1}}]',
        '\n  [{"name": "f",\n  "arguments": {"a": 1}}]\n  ',
        '{"name": "f", "parameters": {"a": 1}}',
        '```json\n[{"name": "f", "arguments": {"a": 1}}]\n```',
    ],
)
def test_a_mistral_call_list_whose_token_was_decoded_away_is_read(text: str) -> None:
    # Dynamo's Mistral 7B v0.3 tests: `[TOOL_CALLS]` is a control token that
    # `skip_special_tokens` drops, leaving the whole message the call list.
    assert read(text, "mistral") == ([("f", {"a": 1})], "")
    # Only the whole message: JSON after prose never runs.
    prose = "Hey How are you? " + text.strip()
    assert read(prose, "mistral") == ([], prose)


def test_a_phi4_call_object_right_after_functools_is_a_list_of_one() -> None:
    # Dynamo's Phi-4 tests (`functools{…}`): one call object where the template writes a list.
    text = 'functools{"name": "get_weather","arguments":{"location":"San Francisco"}}'
    assert read(text, "phi4_mini") == ([("get_weather", {"location": "San Francisco"})], "")
    calls, content = read("functools{invalid json}", "phi4_mini")
    assert [c[0] for c in calls] == ["invalid"] and content == ""
    # As `functools[`, only at the start of the message.
    prose = 'Hey How are you? functools{"name": "f", "arguments": {}}'
    assert read(prose, "phi4_mini") == ([], prose)


def test_dynamos_hyphenated_gemma_4_is_gemma4() -> None:
    # Dynamo registers its Gemma 4 parser as `gemma4` and `gemma-4`; `-` reads as `_`.
    text = '<|tool_call>call:f{a:<|"|>x<|"|>}<tool_call|>'
    assert toolwire.parse_text(text, format="gemma-4").calls[0].arguments == {"a": "x"}


def test_pythonic_names_may_hold_a_hyphen() -> None:
    # Tool names may have `-` (MCP's `add-note`); Llama Stack reads `[weather-forecast(…)]` as
    # that tool's call. A `-` joins letters, digits and `_`: `[a - b(c=1)]` and `[-1, 2]` stay
    # prose, and so does a name ending in `-`.
    text = "[add-note(name='demonote'), weather-forecast(city=\"London\"), tool-2(x=1)]"
    calls, content = read(text, "pythonic")
    assert calls == [
        ("add-note", {"name": "demonote"}),
        ("weather-forecast", {"city": "London"}),
        ("tool-2", {"x": 1}),
    ]
    assert content == ""
    assert read("<|python_start|>[add-note(a=1)]<|python_end|>", "pythonic")[0] == [
        ("add-note", {"a": 1})
    ]
    for prose in ("[a - b(c=1)]", "[-1, 2]", "[f-(a=1)]"):
        assert read(prose, "pythonic") == ([], prose)
    assert toolwire.FORMAT_ALIASES["python_list"] == "pythonic"


@pytest.mark.parametrize(
    ("alias", "name", "text"),
    [
        ("glm5", "glm45", "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>"),
        (
            "deepseek_v3_2",
            "deepseek_dsml",
            (
                '<\uff5cDSML\uff5cfunction_calls><\uff5cDSML\uff5cinvoke name="f">'
                '<\uff5cDSML\uff5cparameter name="a" string="false">1</\uff5cDSML\uff5cparameter>'
                "</\uff5cDSML\uff5cinvoke></\uff5cDSML\uff5cfunction_calls>"
            ),
        ),
        ("function_tag", "hermes", '<function=f>{"a": 1}</function>'),
        ("python_list", "pythonic", "[f(a=1)]"),
    ],
)
def test_xinference_and_llama_format_names(alias: str, name: str, text: str) -> None:
    # Xinference's parser names (`glm5`, `deepseek-v3.2`) and Llama's ToolPromptFormat values
    # (`function_tag`, `python_list`), with `_` for `-` and `.`.
    assert toolwire.FORMAT_ALIASES[alias] == name
    assert read(text, alias) == ([("f", {"a": 1})], "")


def test_a_section_call_whose_begin_token_was_left_out() -> None:
    # Xinference's DeepSeek V3.1 tests (and mlx-swift-lm's Kimi K2 tests) write a section whose
    # first call lacks its begin token: the call's separator, before any call end, next call or
    # section end, shows the call. Prose before a section's first call stays prose.
    def token(name: str) -> str:  # DeepSeek's bars are U+FF5C, its spaces U+2581
        return "<\uff5c" + name.replace("_", "\u2581") + "\uff5c>"

    b, e = token("tool_calls_begin"), token("tool_calls_end")
    cb, ce, sep = token("tool_call_begin"), token("tool_call_end"), token("tool_sep")
    text = f'{b}f{sep}{{"a": 1}}{ce}{cb}g{sep}{{}}{ce}{e}'
    assert read(text, "deepseek_v31") == ([("f", {"a": 1}), ("g", {})], "")
    # A call end written twice is markup, not content.
    assert read(f'{b}f{sep}{{"a": 1}}{ce}{ce}', "deepseek_v31") == ([("f", {"a": 1})], "")
    assert read(f"{b}hello {cb}g{sep}{{}}{ce}{e}", "deepseek_v31") == ([("g", {})], "hello")
    kimi = (
        "<|tool_calls_section_begin|>functions.f:0<|tool_call_argument_begin|>"
        '{"a": 1}<|tool_calls_section_end|>'
    )
    assert read(kimi, "kimi_k2") == ([("f", {"a": 1})], "")


def test_qwen3_coder_wrapper_never_closed_ends_its_call_at_the_function_close() -> None:
    # Dynamo's `test_parse_qwen3_no_outer_close_preserves_suffix`: the model left `</tool_call>`
    # out and went on writing; the call ends with its `</function>`, the rest is content.
    call = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>"
    assert read(call + "\nTRAILING NOTE", "qwen3_coder") == ([("f", {"a": 1})], "TRAILING NOTE")
    # The same text inside a wrapper closed later is junk in the call: a broken call.
    calls, content = read(call + "\nTRAILING NOTE</tool_call>", "qwen3_coder")
    assert [c[0] for c in calls] == ["invalid"]
    assert content == ""


def test_deepseek_v31_call_with_nothing_after_its_separator_has_no_arguments() -> None:
    # FastDeploy's DeepSeek tests: a V3.1 call with nothing but blank space between its
    # separator token and its end token is a call written with no arguments, as Kimi K2's is;
    # a body cut off by the end of the text is no such call. (The tokens' bars and spaces are
    # U+FF5C and U+2581, written as escapes.)
    def token(name: str) -> str:
        return "<\uff5c" + name.replace(" ", "\u2581") + "\uff5c>"

    begin = token("tool calls begin") + token("tool call begin")
    sep, call_end, end = token("tool sep"), token("tool call end"), token("tool calls end")
    for body in ("", "   ", "\n"):
        calls, _ = read(f"{begin}f{sep}{body}{call_end}{end}", "deepseek_v31")
        assert calls == [("f", {})]
    second = token("tool call begin") + f"g{sep}{{}}{call_end}"
    calls, _ = read(f"{begin}f{sep}{call_end}{second}{end}", "deepseek_v31")
    assert calls == [("f", {}), ("g", {})]
    calls, _ = read(f"{begin}f{sep}", "deepseek_v31")
    assert [c[:2] for c in calls] == [("invalid", "f")]
    assert toolwire.FORMAT_ALIASES["deepseek_v3_0324"] == "deepseek_v3"


def test_qwen3_coder_function_tag_with_a_space_before_its_equals_sign() -> None:
    # mlx-openai-server's `test_function_parameter_tool_parser_allows_function_tag_spacing_drift`.
    text = '<tool_call>\n<function =read_file>\n<parameter=path>"/tmp/a"</parameter>\n</function>'
    assert read(text + "\n</tool_call>", "qwen3_coder")[0] == [("read_file", {"path": "/tmp/a"})]
    # Without the `=`, the tag names a tool only when `tools=` offers it (Step-3.5's garble).
    calls, _ = read(text.replace(" =", " ") + "\n</tool_call>", "qwen3_coder")
    assert [c[0] for c in calls] == ["invalid"]
