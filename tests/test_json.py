"""The one-pass decoder: `toolwire.loads` equals `json.loads` on every valid input."""

from __future__ import annotations

import json
import math

import pytest
import toolwire
from hypothesis import given
from hypothesis import strategies as st

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=12), children, max_size=6)
    ),
    max_leaves=40,
)


@given(json_values, st.booleans(), st.sampled_from([None, 2]))
def test_equals_json_loads(value: object, ensure_ascii: bool, indent: int | None) -> None:
    text = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
    assert toolwire.loads(text) == json.loads(text)
    assert toolwire.loads(text.encode()) == json.loads(text)


@pytest.mark.parametrize(
    "text",
    [
        "12345678901234567890123456789012345678901234567890",
        "-12345678901234567890123456789",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "-0",
        "-0.0",
        "0.1",
        "1e400",
        "-1e400",
        "1E-400",
        "2.2250738585072014e-308",
        '"\\ud800"',
        '"\\udc00\\ud800"',
        '"\\ud83d\\ude00"',
        '"a\\u0000b"',
        '{"a": 1, "a": 2}',
        '{"b": 1, "a": 2, "b": 3}',
        '"\\/\\b\\f\\n\\r\\t\\"\\\\"',
        "[]",
        "{}",
        " \t\r\n[1 , 2 ]\n",
        '"\u00e9\U0001f600"',
    ],
)
def test_edge_cases_equal_json_loads(text: str) -> None:
    ours = toolwire.loads(text)
    theirs = json.loads(text)
    assert ours == theirs or (isinstance(ours, float) and math.isnan(ours) and math.isnan(theirs))
    assert type(ours) is type(theirs)
    if isinstance(ours, float):
        assert math.copysign(1, ours) == math.copysign(1, theirs)
    if isinstance(ours, dict):
        assert list(ours) == list(theirs)


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ('{"a": 1 "b": 2}', 8),
        ("[1,]", 3),
        ("NaN", 0),
        ("Infinity", 0),
        ("[1, 2", 5),
        ('"abc', 4),
        ('{"a": tru}', 6),
        ("{'a': 1}", 1),
        ('"a\tb"', 2),
        ("01", 1),
        ('["é", x]', 6),
    ],
)
def test_errors_are_json_decode_errors_with_positions(text: str, position: int) -> None:
    with pytest.raises(toolwire.JSONDecodeError) as info:
        toolwire.loads(text)
    error = info.value
    assert isinstance(error, json.JSONDecodeError)
    assert isinstance(error, toolwire.ToolwireError)
    assert error.pos == position
    assert error.doc == text


def test_depth_limit_is_an_error() -> None:
    assert toolwire.loads("[" * 256 + "]" * 256) is not None
    with pytest.raises(toolwire.JSONDecodeError, match="deeper than 256"):
        toolwire.loads("[" * 257 + "]" * 257)
    with pytest.raises(toolwire.JSONDecodeError):
        toolwire.loads("[" * 100_000)


def test_invalid_utf8_names_the_byte_offset() -> None:
    with pytest.raises(toolwire.ToolwireError, match="byte offset 6"):
        toolwire.loads(b'{"a": \xff}')


DOCUMENTS = [
    '{"name": "f", "arguments": {"a": [1, 2.5, -3e2, true, null, "x\\"y\\u00e9"]}}',
    '[{"k\\n": {"deep": [[[]]]}}, "\\ud83d\\ude00", 12345678901234567890123]',
]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_prefix_parses_or_raises_cleanly(document: str) -> None:
    # Cut the input at every character: a truncated document is an error, never a crash.
    for cut in range(len(document) + 1):
        prefix = document[:cut]
        try:
            expected = json.loads(prefix)
        except json.JSONDecodeError:
            with pytest.raises(toolwire.JSONDecodeError):
                toolwire.loads(prefix)
        else:
            assert toolwire.loads(prefix) == expected
