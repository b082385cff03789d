"""Hostile input ends in a result or a ToolwireError: never a crash, a hang or a panic."""

from __future__ import annotations

import pytest
import toolwire


def test_non_utf8_bytes_name_the_byte_offset() -> None:
    with pytest.raises(toolwire.ToolwireError, match="byte offset 3"):
        toolwire.extract(b"abc\xff\xfe")
    with pytest.raises(toolwire.ToolwireError, match="byte offset 0"):
        toolwire.parse_text_tagged(b"\x80")


def test_lone_surrogates_in_text_are_a_clean_error() -> None:
    with pytest.raises(toolwire.ToolwireError, match="surrogates"):
        toolwire.extract("abc\ud800")


def test_ten_megabytes_of_open_braces() -> None:
    text = "{" * 10_000_000
    assert toolwire.extract(text, on_error="keep") == []
    assert toolwire.parse_raw_json(text, mode="anywhere") == []
    with pytest.raises(toolwire.JSONDecodeError):
        toolwire.loads(text)


def test_a_hundred_thousand_nested_arrays() -> None:
    text = "[" * 100_000 + "]" * 100_000
    with pytest.raises(toolwire.JSONDecodeError, match="deeper than 256"):
        toolwire.loads(text)
    assert toolwire.parse_raw_json(text, mode="anywhere") == []
    fenced = "~~~tool_call\n" + text + "\n~~~\n"
    [invalid] = toolwire.extract(fenced, on_error="keep")
    assert isinstance(invalid, toolwire.InvalidToolCall) and "256" in invalid.error


def test_a_megabyte_of_repeated_fence_markers() -> None:
    text = "~~~tool_call\n" * 80_000
    result = toolwire.extract(text, on_error="keep")
    assert len(result) == 80_000
    assert all(isinstance(c, toolwire.InvalidToolCall) for c in result)
    assert toolwire.extract(text, on_error="skip") == []


def test_fifty_megabytes_without_markers() -> None:
    text = "The quick brown fox jumps over the lazy dog. " * 1_200_000
    assert len(text) > 50_000_000
    assert toolwire.extract(text) == []
    assert toolwire.extract(text.encode()) == []


def test_many_calls_in_one_response() -> None:
    text = "".join(
        f'~~~tool_call\n{{"name": "f", "arguments": {{"i": {i}}}}}\n~~~\n' for i in range(20_000)
    )
    calls = toolwire.extract(text)
    assert [c.arguments["i"] for c in calls] == list(range(20_000))
    assert len({c.id for c in calls}) == 20_000
