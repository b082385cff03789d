"""The rules around the variants (issue 22), on every path: control tokens are never content,
the values of XML-style formats, the tool-name policy, and what a value or a call list may hold."""

from __future__ import annotations

import json
from typing import Any

import pytest
import toolwire
from paths import read, three_paths

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}


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


@pytest.mark.parametrize("fmt", ["glm45", "glm47"])
def test_a_value_whose_opening_tag_was_left_out_is_read_up_to_its_close(fmt: str) -> None:
    # GLM-5.2's sampled tokens in vllm-project/vllm#49248: `<arg_value>` left out, the value
    # and its `</arg_value>` written.
    text = (
        "<tool_call>search<arg_key>query</arg_key>how many vacation days left</arg_value>"
        "<arg_key>limit</arg_key><arg_value>3</arg_value></tool_call> Done."
    )
    assert read(text, fmt) == (
        [("search", {"query": "how many vacation days left", "limit": 3})],
        "Done.",
    )
    # A key's tag before that close: the pair is broken, the call kept as an invalid one.
    broken = (
        "<tool_call>f<arg_key>a</arg_key>1<arg_key>b</arg_key><arg_value>2</arg_value></tool_call>"
    )
    [(invalid, name, error)], _ = read(broken, fmt)
    assert (invalid, name) == ("invalid", "f") and "expected <arg_value>" in error


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


@pytest.mark.parametrize("fence", ["```json\n{}\n```", "```\n{}\n```", "\n```json\n{}\n```\n"])
def test_llama3_reads_a_whole_message_call_in_a_fence(fence: str) -> None:
    # Llama 3.2 on Ollama wraps its call in a ```json fence (ollama/ollama#13519).
    call = '{"name": "query_web_search", "parameters": {"query": "install ollama models"}}'
    text = fence.replace("{}", call)
    assert read(text, "llama3_json") == (
        [("query_web_search", {"query": "install ollama models"})],
        "",
    )
    # After prose, a fenced object is an example, not a call.
    assert read("For example:\n" + text, "llama3_json")[0] == []


@pytest.mark.parametrize(
    "text", ['{"name": "f", "parameters": {"a": "Par', '{"name": "f", "parameters": {x}}']
)
def test_llama3_message_that_begins_as_a_call_and_breaks_is_an_invalid_call(text: str) -> None:
    # As under "auto", hermes or raw JSON: the caller sees the model began a call.
    [(invalid, name, error)], content = read(text, "llama3_json")
    assert (invalid, name, content) == ("invalid", "f", "") and "invalid JSON" in error


@pytest.mark.parametrize(
    ("header", "name"),
    [
        # gpt-oss in LM Studio (lmstudio-ai/lmstudio-bug-tracker#876): a name with a space.
        ("commentary to=functions.Web Search <|constrain|>json", "Web Search"),
        ("commentary to=functions.get_weather json", "get_weather"),
        ("commentary to=functions.get_weather <|constrain|>json", "get_weather"),
        ("commentary to=functions.run code", "run"),
        # A header word in any case, a second space or another attribute ends the name.
        ("commentary to=functions.f JSON", "f"),
        ("commentary to=functions.f  extra", "f"),
        ("commentary to=functions.lookup to=x", "lookup"),
    ],
)
def test_a_harmony_recipient_is_never_cut_to_its_first_word(header: str, name: str) -> None:
    text = f'<|start|>assistant<|channel|>{header}<|message|>{{"q": 1}}<|call|>'
    assert read(text, "harmony") == ([(name, {"q": 1})], "")
