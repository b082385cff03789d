"""augment_system_prompt (docs/codecs.md), rule by rule."""

from __future__ import annotations

import doctest
import json
import re
from typing import Any

import pytest
import toolwire
from toolwire import Tool, augment_system_prompt, parse_text_tagged

WEATHER: dict[str, Any] = {
    "name": "get_weather",
    "description": "Current weather for a city. Uses the public API, e.g. for forecasts.",
    "parameters": {
        "type": "object",
        "properties": {
            "unit": {"type": "string", "enum": ["c", "f"]},
            "city": {"type": "string", "description": "Città"},
            "days": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["city"],
    },
}


def compact_line(schema: dict[str, Any], description: str = "") -> str:
    tool = Tool("f", description, schema)
    return augment_system_prompt(None, [tool], compact=True).splitlines()[-1]


def prop(**schema: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"x": schema}, "required": ["x"]}


def test_existing_prompt_is_kept_byte_for_byte_then_a_blank_line() -> None:
    existing = "  Be helpful.\r\nReally.  "
    out = augment_system_prompt(existing, [WEATHER])
    assert out.startswith(existing + "\n\n")
    assert out[len(existing) + 2 :] == augment_system_prompt(None, [WEATHER])


@pytest.mark.parametrize("existing", [None, "", "   \n\t"])
def test_none_or_blank_existing_prompt_is_dropped(existing: str | None) -> None:
    out = augment_system_prompt(existing, [WEATHER])
    assert out == augment_system_prompt(None, [WEATHER])
    assert out.startswith("You can call the tools")


def test_instructions_describe_the_protocol() -> None:
    out = augment_system_prompt(None, [WEATHER])
    for phrase in (
        "~~~tool_call",
        '"name"',
        '"arguments"',
        "own line",
        "one block per call",
        "several blocks",
        "plain text",
    ):
        assert phrase.lower() in out.lower(), phrase


def test_full_list_has_every_name_description_and_compact_schema_in_order() -> None:
    second = {"name": "ping", "input_schema": {"type": "object", "properties": {}}}
    third = {"name": "read", "description": "Read.", "schema": {"type": "object"}}
    out = augment_system_prompt(None, [WEATHER, second, Tool.from_dict(third)])
    schema = json.dumps(WEATHER["parameters"], separators=(",", ":"), ensure_ascii=False)
    assert f"- get_weather: {WEATHER['description']}\n  {schema}" in out
    assert "Città" in schema and "- ping\n" in out and '- read: Read.\n  {"type":"object"}' in out
    assert out.index("- get_weather") < out.index("- ping") < out.index("- read")


def test_full_output_does_not_depend_on_the_key_order_of_the_tool_mapping() -> None:
    reordered = dict(reversed(list(WEATHER.items())))
    assert augment_system_prompt("x", [reordered]) == augment_system_prompt("x", [WEATHER])


def test_output_is_byte_identical_on_repeat() -> None:
    for compact in (False, True):
        outs = {
            augment_system_prompt("Hi", [WEATHER, Tool("ping")], compact=compact) for _ in range(3)
        }
        assert len(outs) == 1


def test_compact_puts_required_before_optional_in_schema_order() -> None:
    line = augment_system_prompt(None, [WEATHER], compact=True).splitlines()[-1]
    assert line.startswith('- get_weather(city: string, unit?: "c"|"f", days?: integer[]) — ')


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (prop(type="array", items={"type": "string"}), "string[]"),
        (prop(type="array"), "array"),
        (prop(type="array", items={}), "array"),
        (prop(type=["string", "null"]), "string|null"),
        (prop(type="string", enum=["a", "b", "c", "d", "e"]), '"a"|"b"|"c"|"d"|"e"'),
        (prop(type="string", enum=["a", "b", "c", "d", "e", "f"]), "string"),
        (prop(description="anything"), "any"),
        (prop(type="integer"), "integer"),
        (prop(type="object"), "object"),
        (prop(type="boolean"), "boolean"),
    ],
)
def test_compact_types(schema: dict[str, Any], expected: str) -> None:
    assert compact_line(schema) == f"- f(x: {expected})"


def test_compact_short_description_is_the_first_sentence() -> None:
    assert compact_line({}, "Adds numbers. Returns the sum.") == "- f() — Adds numbers."
    # "e.g." and "i.e." do not end a sentence: the word before the period is shorter than 3.
    assert compact_line({}, "Finds items, e.g. books. Slow.") == "- f() — Finds items, e.g. books."
    assert compact_line({}, "Gets i.e. fetches data. More.") == "- f() — Gets i.e. fetches data."
    assert compact_line({}, "Ends here.") == "- f() — Ends here."


def test_compact_short_description_collapses_whitespace() -> None:
    assert compact_line({}, "  Reads\n\ta   file.\n") == "- f() — Reads a file."


def test_compact_short_description_is_cut_at_80_characters() -> None:
    line = compact_line({}, "word " * 40)
    short = line.split(" — ", 1)[1]
    assert len(short) == 80 and short.endswith("…")
    assert len(compact_line({}, "x" * 80).split(" — ", 1)[1]) == 80  # exactly 80: not cut


def test_compact_leaves_out_an_empty_description() -> None:
    assert compact_line({}, "   ") == "- f()"


@pytest.mark.parametrize("compact", [False, True])
def test_the_example_block_parses_to_a_call(compact: bool) -> None:
    out = augment_system_prompt("Be brief.", [WEATHER], compact=compact)
    [call] = parse_text_tagged(out)
    assert call.name == "get_weather" and call.arguments == {"city": "text", "unit": "c"}


def test_tools_as_provider_shapes_are_accepted() -> None:
    wrapped = {"type": "function", "function": WEATHER}
    assert augment_system_prompt(None, [wrapped]) == augment_system_prompt(None, [WEATHER])


def test_no_tools_still_gives_a_parseable_example() -> None:
    [call] = parse_text_tagged(augment_system_prompt(None, []))
    assert call.name == "tool_name"


def test_a_tool_without_name_is_a_definition_error() -> None:
    with pytest.raises(toolwire.ToolDefinitionError):
        augment_system_prompt(None, [{"description": "x"}])


def test_docstring_examples() -> None:
    assert doctest.testmod(toolwire.prompt).failed == 0
    assert re.search(r"\S", toolwire.prompt.__doc__ or "")
