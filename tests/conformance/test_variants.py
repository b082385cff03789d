"""The variants real model outputs use (issue 22), each read the same way by `extract`,
`parse_text` and the stream: the wrappers, tokens and spellings of the first sources (vLLM,
SGLang, llama.cpp)."""

from __future__ import annotations

from typing import Any

import pytest
import toolwire
from paths import read, three_paths

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}


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


@pytest.mark.parametrize("key", ["args", "arguments"])
def test_an_inkling_call_whose_json_breaks_streams_alike_at_every_cut(key: str) -> None:
    # The announced call stays known when its JSON breaks: the stream ends it as the invalid
    # call, with its index and name, wherever the text was cut (a cut after the arguments'
    # `{` left the call open and gave the invalid one a second index).
    text = (
        f'<|content_invoke_tool_json|>{{"name":"weather","{key}":{{"v":1,"w":NaN}}}}<|end_message|>'
    )

    def events(chunks: list[str]) -> list[tuple[str, Any]]:
        parser = toolwire.StreamParser(formats=["inkling"])
        out = [e for chunk in chunks for e in parser.feed(chunk)] + parser.finish()
        return [(e.kind, getattr(e, "index", None)) for e in out if e.kind != "tool_call_delta"]

    whole = events([text])
    assert whole == [("tool_call_start", 0), ("invalid_tool_call", 0)]
    for cut in range(1, len(text)):
        assert events([text[:cut], text[cut:]]) == whole, cut


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


@pytest.mark.parametrize("cut", ["</tool_", "<", "</tool_call", "\n</"])
@pytest.mark.parametrize(
    ("fmt", "call"),
    [
        ("hermes", '<tool_call>{"name": "f", "arguments": {"a": 1}}'),
        ("glm45", "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value>"),
    ],
)
def test_a_closing_tag_cut_off_by_the_end_of_the_text(fmt: str, call: str, cut: str) -> None:
    # The AI SDK middleware's regression fixtures: a generation that stops inside the closing
    # tag keeps its call, as one that stops before the tag does; the cut tag is markup.
    assert read(f"Done. {call}{cut}", fmt) == ([("f", {"a": 1})], "Done.")
    # Anything else after the call is still junk in it, and the call broken.
    calls, _ = read(f"{call}</tool_x", fmt)
    assert [c[0] for c in calls] == ["invalid"]


@pytest.mark.parametrize("quote", ["", "'", '"'])
def test_invoke_attribute_values_quoted_or_bare(quote: str) -> None:
    # Modular MAX's MiniMax M2 tests: an attribute value unquoted, as HTML allows, runs to the
    # next space or the tag's end (`<invoke name=f/>` is `f`, closing itself).
    q = quote
    text = (
        f"Done.\n<minimax:tool_call>\n<invoke name={q}get_fact{q}>\n"
        f"<parameter name={q}category{q}>science</parameter>\n</invoke>\n"
        f"<invoke name={q}submit{q}/>\n</minimax:tool_call>"
    )
    assert read(text, "minimax_m2") == (
        [("get_fact", {"category": "science"}), ("submit", {})],
        "Done.",
    )


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
    ("fmt", "opens", "closes", "invoke", "parameter"),
    [
        (
            "muse_glimmer",
            "<atem:function_calls>",
            "</atem:function_calls>",
            '<atem:invoke name="rm">',
            '<atem:parameter name="path">',
        ),
        (
            "minimax_m2",
            "<minimax:tool_call>",
            "</minimax:tool_call>",
            '<invoke name="rm">',
            '<parameter name="path">',
        ),
    ],
)
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_value_whose_close_was_left_out_ends_before_the_line_break(
    fmt: str, opens: str, closes: str, invoke: str, parameter: str, newline: str
) -> None:
    # Rapid-MLX's Muse test: the line break before the invoke's close on its own line is the
    # template's layout (it follows the value's close, left out), not the value's text.
    invoke_close = invoke.replace("<", "</", 1).split(" ")[0] + ">"
    text = f"{opens}\n{invoke}\n{parameter}/tmp/x{newline}{invoke_close}\n{closes}"
    assert read(text, fmt) == ([("rm", {"path": "/tmp/x"})], "")
    # Only one line break is layout; a value's own lines are kept.
    text = f"{opens}\n{invoke}\n{parameter}a\n\nb\n\n{invoke_close}\n{closes}"
    assert read(text, fmt) == ([("rm", {"path": "a\n\nb\n"})], "")


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


def test_gemma4_start_token_ends_a_string_left_open() -> None:
    # The start token is a special token no value holds: the broken call ends there, kept as
    # an InvalidToolCall, and the good call after it is read (Dynamo's recovery tests).
    text = f'<|tool_call>call:broken{{note:<|"|>unfinished<|tool_call>call:{GEMMA_BASH}'
    calls, content = read(text, "gemma4")
    assert [c[:2] for c in calls] == [("invalid", "broken"), ("bash", {"command": "ls -la"})]
    assert content == ""


def test_gemma4_end_of_turn_is_not_content() -> None:
    assert read("Hello.<turn|>", "gemma4") == ([], "Hello.")
    # Its end of sequence, written out by a decode that keeps special tokens, in any order.
    assert read("Hello.<turn|><eos>", "gemma4") == ([], "Hello.")
    assert read("Hello. <eos> <turn|>", "gemma4") == ([], "Hello.")
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


@pytest.mark.parametrize("opened", ["<|think:start|>", ""])
def test_solar_open2_call_cut_by_its_think_span_ends_there(opened: str) -> None:
    # A call drafted in the reasoning whose end token was left out ends where the span ends:
    # the span closes, and the answer after it stays content (not an argument's text). The
    # call, the message's only one, is read (calls_in_reasoning) and leaves the reasoning.
    draft = "<|tool_call:start|>f\n<|tool_arg:start|>a<|tool_arg:value|>1\n"
    text = f"{opened}let me call\n{draft}<|think:end|>after"
    calls, content = read(text, "solar_open2", starts_in_reasoning=not opened)
    assert (calls, content) == ([("f", {"a": 1})], "after")
    parsed = toolwire.parse_text(text, format="solar_open2", starts_in_reasoning=not opened)
    assert parsed.reasoning == "let me call\n"


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


@pytest.mark.parametrize(
    "quoted",
    ["x </function> y", '<function name="rm"><param name="p">/</param></function>', "a ]] b"],
)
def test_a_minicpm5_cdata_value_quotes_function_markup(quoted: str) -> None:
    """A CDATA section quotes markup up to its `]]>`: a `</function>` or a whole call inside it is
    the value, not the call's end nor another call (Rapid-MLX's MiniCPM tests)."""
    value = f'<param name="note"><![CDATA[{quoted}]]></param>'
    text = f'Ok. <function name="log">{value}</function> then <function name="ping"></function>'
    assert read(text, "minicpm5") == ([("log", {"note": quoted}), ("ping", {})], "Ok.  then")
    # A section the text never closes quotes the rest: one broken call, no call read inside it.
    cut = f'<function name="log"><param name="note"><![CDATA[{quoted}'
    calls, content = read(cut, "minicpm5")
    assert [c[:2] for c in calls] == [("invalid", "log")] and content == ""


@pytest.mark.parametrize("space", [" ", "", "\u0120"])
def test_minicpm5_tags_as_a_tokenizer_leaves_them(space: str) -> None:
    """The space in `<function name=` and `<param name=` dropped, or written as the byte-level
    BPE space marker `Ġ` (vLLM test_minicpm5xml_tool_parser.py)."""
    text = (
        f'Sure.\n<function{space}name="get_weather"><param{space}name="city">Paris</param>'
        f'<param{space}name="days">3</param></function>'
    )
    assert read(text, "minicpm5") == ([("get_weather", {"city": "Paris", "days": 3})], "Sure.")


@pytest.mark.parametrize("body", ['<param name="city">Paris</param>', ""])
def test_a_function_tag_with_a_second_attribute_is_a_broken_call(body: str) -> None:
    """`<function name="f" extra="x">` (no template writes a second attribute) was read as a
    call to `f" extra="x`; it is an InvalidToolCall now, on every path, and the next call is
    read (Rapid-MLX's MiniCPM tests)."""
    bad = f'<function name="lookup" mode="fast">{body}</function>'
    good = '<function name="ping"><param name="n">1</param></function>'
    calls, content = read(f"Sure. {bad} {good}", "minicpm5")
    assert [c[:2] for c in calls] == [("invalid", None), ("ping", {"n": 1})]
    assert content == "Sure."
    # One quoted name, with or without spaces inside the tag, is still the tool's name.
    tags = ('<function name="lookup">', "<function name='lookup' >", '<function name= "lookup">')
    for tag in tags:
        assert read(f"{tag}{body}</function>", "minicpm5")[0][0][0] == "lookup"


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


INKLING_CALL = (
    '<|content_invoke_tool_json|>{"name":"get_weather","args":{"city":"SF"}}<|end_message|>'
)


@pytest.mark.parametrize(
    ("text", "calls", "content"),
    [
        # The generation prompt ends with <|message_model|>: the text starts in its header,
        # whose echoed name (whatever it says) is markup.
        ("get_weather" + INKLING_CALL, [("get_weather", {"city": "SF"})], ""),
        ("someFn" + INKLING_CALL, [("get_weather", {"city": "SF"})], ""),
        # Text that does not run into the call token is a reply, read on as text.
        ("plain answer", [], "plain answer"),
        ("hello", [], "hello"),
        ("hello<|end_message|>", [], "hello"),
        ("get_weather " + INKLING_CALL, [("get_weather", {"city": "SF"})], "get_weather"),
    ],
)
def test_an_inkling_text_may_start_in_the_prompts_message_header(
    text: str, calls: list[Any], content: str
) -> None:
    assert read(text, "inkling") == (calls, content)


@pytest.mark.parametrize("sep", ["", " ", ",", ", ", "\n", "; "])
def test_llama3_call_objects_joined_without_a_semicolon(sep: str) -> None:
    # vLLM's grammar for tool_choice="required" writes them back to back, as Llama 4's chat
    # template does; its tests join them with a space and a comma too.
    text = sep.join(['{"name": "a", "parameters": {"q": 1}}', '{"name": "b", "parameters": {}}'])
    assert read(text, "llama3_json") == ([("a", {"q": 1}), ("b", {})], "")
    tagged = "<|python_tag|>" + text
    assert read(tagged, "llama3_json") == ([("a", {"q": 1}), ("b", {})], "")


@pytest.mark.parametrize("sep", ["", " ", ", ", "\n"])
def test_llama3_json_after_a_call_that_is_no_call_stays_content(sep: str) -> None:
    call = '{"name": "a", "parameters": {}}'
    for tail in ['{"x": 1}', '{"parameters": {"name": "x"}}', "{", "{not json} at all"]:
        assert read(call + sep + tail, "llama3_json") == ([("a", {})], (sep + tail).strip())
    # One that begins as a call, name first, is read as a call, as after a `;`: broken, it is
    # an InvalidToolCall.
    for tail in ['{"name": "g", "parameters": {broken}}', '{"name": "g", "para']:
        calls, _ = read(call + sep + tail, "llama3_json")
        assert [c[:2] for c in calls] == [("a", {}), ("invalid", "g")]
    calls, _ = read(call + sep + '{"parameters": {"b": 2}, "name": "g"}', "llama3_json")
    assert calls == [("a", {}), ("g", {"b": 2})]


def test_minimax_m3_invokes_with_the_block_tags_left_out_are_calls() -> None:
    # Dynamo's MiniMax-M3 tests: an invoke written without `<tool_call>` around it (after prose,
    # its `</invoke>` written twice) is a call, as DeepSeek V4's bare invokes are; a closing tag
    # that closes nothing is a control token.
    ns = "]<]minimax[>["
    invoke = f'{ns}<invoke name="f">\n{ns}<a>1{ns}</a>\n{ns}</invoke>'
    assert read(f"prefix {invoke}\n{ns}</invoke>", "minimax_m3") == ([("f", {"a": 1})], "prefix")
    assert read(f"{invoke}{invoke}", "minimax_m3") == ([("f", {"a": 1})] * 2, "")
    assert read(f"Done.{ns}</tool_call>", "minimax_m3") == ([], "Done.")


@pytest.mark.parametrize(
    ("schema", "raw", "value"),
    [
        # An integer written with a fraction or an exponent is that integer (JSON Schema's
        # reading); a fraction left over keeps the text.
        ({"type": "integer"}, "42.0", 42),
        ({"type": "integer"}, "4.2e1", 42),
        ({"type": "integer"}, "9007199254740993.0", 9007199254740993),
        ({"type": "integer"}, "42.0000000000000001", "42.0000000000000001"),
        # `allOf` allows what all its branches allow.
        ({"allOf": [{"const": "42"}, {"minLength": 0}]}, "42", "42"),
        # OpenAPI's `nullable` adds `null`, but not to a schema that lists its values.
        ({"type": "string", "nullable": True}, "null", None),
        ({"type": "string", "const": "null", "nullable": True}, "null", "null"),
        # A `$ref` written in a URI is percent-decoded.
        ({"$ref": "#/$defs/Caf%C3%A9"}, "42", "42"),
    ],
)
def test_schema_typing_of_xml_style_values(schema: dict[str, Any], raw: str, value: Any) -> None:
    # Dynamo's schema matrix (GLM-4.7) and exact-argument tests: one reading in every XML-style
    # format that types its values by the schema.
    parameters = {"type": "object", "properties": {"v": schema}, "$defs": {"Café": {"const": "42"}}}
    tools = [{"name": "f", "parameters": parameters}]
    qwen = f"<tool_call><function=f><parameter=v>{raw}</parameter></function></tool_call>"
    glm = f"<tool_call>f<arg_key>v</arg_key><arg_value>{raw}</arg_value></tool_call>"
    for fmt, text in [("qwen3_coder", qwen), ("glm47", glm)]:
        calls, _ = read(text, fmt, tools=tools)
        assert calls == [("f", {"v": value})], fmt


@pytest.mark.parametrize("gap", ["", " "])
def test_deepseek_dsml_bare_invokes_in_both_spellings(gap: str) -> None:
    # Dynamo's DSML separator tests: V4 (DSML token, then `invoke`) and V4.1 (the token, a
    # space, then `invoke`) both open a call with a bare invoke, its block's tags left out.
    dsml = "<\uff5cDSML\uff5c" + gap
    close = "</\uff5cDSML\uff5c" + gap
    invoke = (
        f'{dsml}invoke name="run">{dsml}parameter name="value" string="true">'
        f"Paris{close}parameter>{close}invoke>"
    )
    paris = ("run", {"value": "Paris"})
    assert read(f"Check.\n\n{invoke}", "deepseek_dsml") == ([paris], "Check.")
    assert read(invoke + invoke, "deepseek_dsml") == ([paris] * 2, "")


@pytest.mark.parametrize(
    ("fmt", "close"),
    [
        # Harmony's and Muse Glimmer's reasoning is a message of its own: the prompt opened it,
        # and its end token closes it.
        ("muse_glimmer", "<|eom|>"),
        ("harmony", "<|end|>"),
        ("kimi_k3", "<|close|>think<|sep|>"),
        ("qwen3_coder", "</think>"),
    ],
)
@pytest.mark.parametrize("quote", ['"', "'", "`"])
def test_reasoning_the_prompt_opened_ends_at_its_close_whatever_it_quotes(
    fmt: str, close: str, quote: str
) -> None:
    # An open quote or code span in the reasoning neither hides its end token nor quotes the
    # answer after it (Dynamo's native prose-quote tests).
    text = f"He said {quote}maybe{close}Answer"
    assert read(text, fmt, starts_in_reasoning=True) == ([], "Answer")
    parsed = toolwire.parse_text(text, format=fmt, starts_in_reasoning=True)
    assert parsed.reasoning == f"He said {quote}maybe"


def test_a_harmony_message_ends_at_its_end_token_inside_a_code_span() -> None:
    final = "<|start|>assistant<|channel|>final<|message|>"
    text = f"{final}Use `x<|end|>{final}more"
    assert read(text, "harmony") == ([], "Use `xmore")


@pytest.mark.parametrize("end", ["", "</s>"])
def test_a_gigachat3_reply_that_begins_with_the_call_role(end: str) -> None:
    """SGLang's GigaChat 3 tests: a reply that is the call message itself, its role written
    first (`function call<|role_sep|>`), read at the start of the message only."""
    body = '{"name": "get_weather", "arguments": {"city": "Tokyo"}}'
    text = f"function call<|role_sep|>\n{body}{end}"
    assert read(text, "gigachat3") == ([("get_weather", {"city": "Tokyo"})], "")
    assert read(f"Sure. {text}", "gigachat3") == ([], f"Sure. {text}")
    assert read("function call semantics", "gigachat3") == ([], "function call semantics")
