"""Round trips: random calls rendered as the seed protocols, with random prose around them,
parse back to the same calls."""

from __future__ import annotations

import json
from typing import Any

import toolwire
from hypothesis import given
from hypothesis import strategies as st

names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.\-]{0,30}", fullmatch=True)
leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
arguments = st.dictionaries(st.text(max_size=10), values, max_size=5)
calls = st.lists(st.tuples(names, arguments), min_size=1, max_size=4)


def is_prose(text: str) -> bool:
    """Whether toolwire reads `text` alone as content, whole: no marker, think tag or control
    token in it (hypothesis also draws the markers it finds in the test modules' constants)."""
    parsed = toolwire.parse_text(text)
    return parsed.content == text and not parsed.calls


# Prose that cannot itself open a block or a fence.
prose = st.text(
    alphabet=st.characters(blacklist_characters="~`{[", blacklist_categories=("Cs",)), max_size=80
).filter(is_prose)


def as_tuples(result: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    assert all(isinstance(c, toolwire.ToolCall) for c in result)
    return [(c.name, c.arguments) for c in result]


@given(calls, prose, prose, st.booleans(), st.booleans(), st.booleans())
def test_text_tagged_round_trip(
    expected: list[tuple[str, dict[str, Any]]],
    before: str,
    after: str,
    pretty: bool,
    crlf: bool,
    ascii_only: bool,
) -> None:
    newline = "\r\n" if crlf else "\n"
    blocks = []
    for name, args in expected:
        body = json.dumps(
            {"name": name, "arguments": args}, indent=2 if pretty else None, ensure_ascii=ascii_only
        )
        blocks.append(f"~~~tool_call{newline}{body}{newline}~~~{newline}")
    text = before + newline + "".join(blocks) + after
    assert as_tuples(toolwire.extract(text)) == expected


@given(calls, prose, st.sampled_from(["whole", "array", "fence", "fences"]), st.booleans())
def test_raw_json_round_trip(
    expected: list[tuple[str, dict[str, Any]]], before: str, shape: str, pretty: bool
) -> None:
    objects = [{"name": name, "arguments": args} for name, args in expected]
    dump = lambda v: json.dumps(v, indent=2 if pretty else None)  # noqa: E731
    if shape == "whole":
        objects = objects[:1]
        expected = expected[:1]
        text = dump(objects[0])
    elif shape == "array":
        text = dump(objects)
    elif shape == "fence":
        text = f"{before}\n```json\n{dump(objects)}\n```\n"
    else:
        text = before + "\n" + "".join(f"```json\n{dump(o)}\n```\n" for o in objects)
    assert as_tuples(toolwire.extract(text)) == expected


@given(calls, prose)
def test_raw_json_anywhere_finds_calls_in_prose(
    expected: list[tuple[str, dict[str, Any]]], before: str
) -> None:
    text = "".join(f"{before} {json.dumps({'name': n, 'arguments': a})}\n" for n, a in expected)
    assert as_tuples(toolwire.parse_raw_json(text, mode="anywhere")) == expected
