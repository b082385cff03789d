"""validate_arguments: JSON Schema 2020-12 plus the required-but-blank rule, with
messages that name the tool and the path and say how to retry; then the whole corpus."""

from __future__ import annotations

import copy
import gc
from typing import Any

import pytest
from support import cases
from toolwire import Tool, ToolDefinitionError, validate_arguments

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["c", "f"]},
        "days": {"type": "integer", "minimum": 1},
        "note": {"type": ["string", "null"]},
        "where": {
            "type": "object",
            "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
            "required": ["lat", "lon"],
            "additionalProperties": False,
        },
        "stops": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
        },
    },
    "required": ["city", "unit"],
    "additionalProperties": False,
}
WEATHER = Tool("weather", "Weather", SCHEMA)
RETRY_MISSING = "Retry the tool call and include these properties."


def check(arguments: Any, tool: Tool = WEATHER) -> list[str]:
    return validate_arguments(tool, arguments)


def test_valid_arguments() -> None:
    assert check({"city": "Oslo", "unit": "c"}) == []
    assert (
        check(
            {
                "city": "Oslo",
                "unit": "f",
                "days": 2,
                "note": None,
                "where": {"lat": 1, "lon": 2.5},
                "stops": [{"name": "a"}, {"name": "b", "extra": 1}],
            }
        )
        == []
    )


def test_missing_required_uses_the_spec_wording() -> None:
    assert check({}) == [
        "Arguments for tool 'weather' are missing required properties: city, unit. " + RETRY_MISSING
    ]


def test_null_required_counts_as_missing() -> None:
    assert check({"city": None, "unit": "c"}) == [
        "Arguments for tool 'weather' are missing required properties: city (given as null or "
        "blank). " + RETRY_MISSING
    ]


@pytest.mark.parametrize("blank", ["", " ", "\t\n  "])
def test_whitespace_only_required_counts_as_missing(blank: str) -> None:
    [message] = check({"city": blank, "unit": "c"})
    assert "missing required properties: city (given as null or blank)" in message


def test_blank_is_only_about_required_properties_and_null_the_schema_allows() -> None:
    tool = Tool(
        "t",
        parameters={
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": ["string", "null"]}},
            "required": ["b"],
        },
    )
    assert check({"a": " ", "b": None}, tool) == []


def test_wrong_types_name_the_path() -> None:
    messages = check({"city": 5, "unit": "c", "days": "3"})
    assert messages == [
        "Arguments for tool 'weather' are invalid at 'city': 5 is not of type \"string\". "
        "Retry the tool call with a corrected value for 'city'.",
        "Arguments for tool 'weather' are invalid at 'days': \"3\" is not of type \"integer\". "
        "Retry the tool call with a corrected value for 'days'.",
    ]


def test_enum_and_bounds() -> None:
    [enum] = check({"city": "x", "unit": "kelvin"})
    assert enum.startswith("Arguments for tool 'weather' are invalid at 'unit': ")
    assert '"kelvin"' in enum and '"c"' in enum and '"f"' in enum
    [low] = check({"city": "x", "unit": "c", "days": 0})
    assert "at 'days'" in low and "minimum" in low


def test_nested_objects_and_arrays() -> None:
    messages = check(
        {"city": "x", "unit": "c", "where": {"lat": "n"}, "stops": [{"name": "a"}, {}]}
    )
    assert messages[0] == (
        "Arguments for tool 'weather' are missing required properties: stops[1].name, where.lon. "
        + RETRY_MISSING
    )
    assert "invalid at 'where.lat'" in messages[1]
    [blank] = check({"city": "x", "unit": "c", "stops": [{"name": " "}]})
    assert "stops[0].name (given as null or blank)" in blank


def test_additional_properties_false() -> None:
    assert check({"city": "x", "unit": "c", "zip": 1, "where": {"lat": 1, "lon": 2, "alt": 3}}) == [
        "Arguments for tool 'weather' have unexpected properties: where.alt, zip. "
        "Retry the tool call without these properties."
    ]


def test_non_object_and_non_json_arguments() -> None:
    [message] = check([1, 2])
    assert message.startswith("Arguments for tool 'weather' are invalid: ")
    assert message.endswith("Retry the tool call with corrected arguments.")
    [message] = check({"city": {1, 2}, "unit": "c"})
    assert "not JSON" in message and "set" in message


def test_tool_mappings_and_wire_shapes_are_accepted() -> None:
    wire = {"type": "function", "function": {"name": "weather", "parameters": SCHEMA}}
    assert validate_arguments(wire, {}) == check({})
    anthropic = {"name": "weather", "input_schema": SCHEMA}
    assert validate_arguments(anthropic, {"city": "a", "unit": "c"}) == []


def test_unusable_schema_raises_tool_definition_error() -> None:
    with pytest.raises(ToolDefinitionError, match="not a usable JSON Schema"):
        validate_arguments(Tool("bad", parameters={"type": 12}), {})
    with pytest.raises(ToolDefinitionError):
        validate_arguments(Tool("remote", parameters={"$ref": "https://example.com/s.json"}), {})


def test_draft_2020_12_keywords() -> None:
    tool = Tool(
        "pair",
        parameters={
            "type": "array",
            "prefixItems": [{"type": "string"}, {"type": "integer"}],
            "items": False,
        },
    )
    assert check(["a", 1], tool) == []
    assert len(check(["a", 1, 2], tool)) == 1
    assert "at '[1]'" in check(["a", "b"], tool)[0]


def test_compiled_schema_is_cached_per_tool_and_released_with_it() -> None:
    from toolwire import _validation

    tool = Tool("weather", parameters=copy.deepcopy(SCHEMA))
    check({}, tool)
    assert _validation._by_tool[id(tool)][0]() is tool
    key = id(tool)
    del tool
    gc.collect()
    assert key not in _validation._by_tool or _validation._by_tool[key][0]() is not None


# --- the corpus ---------------------------------------------------------------------------


def corpus_calls(valid_only: bool) -> list[tuple[str, Tool, dict[str, Any]]]:
    out = []
    for case in cases():
        if valid_only and "args_not_schema_valid" in case["flags"]:
            continue
        tools = {t["name"]: Tool.from_dict(t) for t in case["tools"]}
        out.extend((case["id"], tools[c["name"]], c["arguments"]) for c in case["calls"])
    return out


def test_every_corpus_call_validates_against_its_tool() -> None:
    failures = [
        (case_id, messages)
        for case_id, tool, arguments in corpus_calls(valid_only=True)
        if (messages := validate_arguments(tool, arguments))
    ]
    assert failures == []


def test_flagged_corpus_calls_are_the_invalid_ones() -> None:
    flagged = [c for c in cases() if "args_not_schema_valid" in c["flags"]]
    assert flagged
    for case in flagged:
        tools = {t["name"]: Tool.from_dict(t) for t in case["tools"]}
        assert any(validate_arguments(tools[c["name"]], c["arguments"]) for c in case["calls"])


WRONG_VALUE = {
    "string": 12345,
    "integer": "text",
    "number": "text",
    "boolean": "yes",
    "array": "not a list",
    "object": "not an object",
}


def test_mutated_corpus_arguments_fail_with_the_right_path() -> None:
    checked = 0
    for _case_id, tool, arguments in corpus_calls(valid_only=True):
        schema = tool.parameters
        properties = schema.get("properties", {})
        for key in schema.get("required", []):
            if key in arguments:
                dropped = {k: v for k, v in arguments.items() if k != key}
                [message] = validate_arguments(tool, dropped)
                assert (
                    f"missing required properties: {key}." in message
                    or (f"missing required properties: {key}," in message)
                    or f", {key}" in message
                ), message
                checked += 1
        for key in arguments:
            kind = properties.get(key, {}).get("type")
            if not isinstance(kind, str) or kind not in WRONG_VALUE or "enum" in properties[key]:
                continue
            mutated = {**arguments, key: WRONG_VALUE[kind]}
            messages = validate_arguments(tool, mutated)
            assert any(
                f"invalid at '{key}'" in m or f"invalid at '[\"{key}\"]'" in m for m in messages
            ), (key, messages)
            checked += 1
            break
    assert checked > 3000
