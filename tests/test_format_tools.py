"""`tools=` typing qwen3_coder and glm45 values, read on demand per call (docs/formats.md): every
call reads the list as it is then, the last definition of a name wins, and `extract` agrees with
`StreamParser` (which reads the tools once)."""

from __future__ import annotations

from typing import Any

import toolwire

QWEN = (
    "<tool_call>\n<function=f>\n<parameter=n>\n10\n</parameter>\n"
    "<parameter=m>\n7\n</parameter>\n</function>\n</tool_call>"
)
GLM = "<tool_call>f<arg_key>n</arg_key><arg_value>10</arg_value></tool_call>"


def tool(name: str, **types: str) -> dict[str, Any]:
    properties = {key: {"type": ty} for key, ty in types.items()}
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"properties": properties}},
    }


def arguments(text: str, tools: Any) -> list[dict[str, Any]]:
    return [c.arguments for c in toolwire.extract(text, tools=tools)]


def streamed(text: str, tools: Any) -> list[dict[str, Any]]:
    parser = toolwire.StreamParser(tools=tools)
    events = parser.feed(text) + parser.finish()
    return [e.call.arguments for e in events if isinstance(e, toolwire.ToolCallEnd)]


def test_each_call_reads_the_list_as_it_is_then() -> None:
    tools = [tool("g", n="string"), tool("f", n="string")]
    assert arguments(QWEN, tools) == [{"n": "10", "m": 7}]
    tools[1]["function"]["parameters"]["properties"]["m"] = {"type": "string"}
    assert arguments(QWEN, tools) == [{"n": "10", "m": "7"}]
    tools.pop()
    assert arguments(QWEN, tools) == [{"n": 10, "m": 7}]


def test_last_definition_of_a_name_wins_in_every_shape() -> None:
    shapes: list[Any] = [
        [tool("f", n="integer"), tool("f", n="string")],
        [
            tool("f", n="string"),
            {"name": "f", "input_schema": {"properties": {"m": {"type": "string"}}}},
        ],
        [{"name": "f", "schema": {"properties": {"n": {"anyOf": [{"type": "string"}]}}}}],
        [toolwire.Tool.from_dict(tool("f", n="string", m="string"))],
        [{"name": 5, "parameters": {"properties": {"n": {"type": "string"}}}}, "not a tool"],
    ]
    expected = [
        {"n": "10", "m": 7},
        {"n": 10, "m": "7"},
        {"n": "10", "m": 7},
        {"n": "10", "m": "7"},
        {"n": 10, "m": 7},
    ]
    for tools, want in zip(shapes, expected, strict=True):
        assert arguments(QWEN, tools) == [want], tools
        assert streamed(QWEN, tools) == [want], tools


def test_glm45_values_are_typed_the_same_way() -> None:
    assert arguments(GLM, [tool("f", n="string")]) == [{"n": "10"}]
    assert arguments(GLM, [tool("g", n="string")]) == [{"n": 10}]


class Key(str):
    """A `str` subclass as a property key (compared by value, like a plain `str`)."""


def test_property_keys_other_than_plain_str_match_by_their_text() -> None:
    text = (
        "<tool_call>\n<function=f>\n<parameter=5>\n10\n</parameter>\n"
        "<parameter=n>\n7\n</parameter>\n</function>\n</tool_call>"
    )
    shapes: list[dict[Any, Any]] = [
        {5: {"type": "string"}, "n": {"type": "string"}},
        {"5": {"type": "string"}, Key("n"): {"type": "string"}},
        {Key("5"): {"type": "string"}, "x": {"type": "integer"}},
    ]
    expected = [{"5": "10", "n": "7"}, {"5": "10", "n": "7"}, {"5": "10", "n": 7}]
    for properties, want in zip(shapes, expected, strict=True):
        tools = [{"name": "f", "parameters": {"properties": properties}}]
        assert arguments(text, tools) == [want], properties
        assert streamed(text, tools) == [want], properties


def test_property_keys_beyond_ascii_match_by_their_text() -> None:
    text = "<tool_call>\n<function=f>\n<parameter=größe>\n10\n</parameter>\n</function>"
    for ty, want in [("string", "10"), ("integer", 10)]:
        tools = [tool("f", n="string", größe=ty)]
        assert arguments(text, tools) == [{"größe": want}]
