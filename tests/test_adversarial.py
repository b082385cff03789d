"""Hostile input of any size, shape or encoding ends in a result or a ToolwireError: never a
crash, a hang, a panic or another exception. The timeouts are guards, not benchmarks (the
linear-time check is benches/linearity.py)."""

from __future__ import annotations

import json
import resource
from typing import Any

import pytest
import toolwire
from adversarial import CALLS, MANY_CALL_PROTOCOLS, anywhere, cases, keep, many_calls, outcome

pytestmark = pytest.mark.timeout(120)

EXPECTED = [("f", {"a": "x y"})]


def named_calls(result: Any) -> list[tuple[str, dict[str, Any]]]:
    assert isinstance(result, list), result
    return [(c.name, c.arguments) for c in result if isinstance(c, toolwire.ToolCall)]


def check_ends(result: Any, text: str | bytes) -> None:
    """A list of calls with sane failures, or a ToolwireError."""
    if isinstance(result, toolwire.ToolwireError):
        assert str(result)
        return
    assert isinstance(result, list)
    for call in result:
        if isinstance(call, toolwire.InvalidToolCall):
            assert call.error
            assert call.offset is None or 0 <= call.offset <= len(text)
        else:
            assert isinstance(call, toolwire.ToolCall) and isinstance(call.arguments, dict)


@pytest.mark.parametrize("protocol", sorted(CALLS))
def test_each_protocol_reads_its_call(protocol: str) -> None:
    assert named_calls(toolwire.extract(CALLS[protocol])) == EXPECTED


@pytest.mark.parametrize("case", cases(), ids=lambda case: case.name)
def test_full_size_inputs_end(case: Any) -> None:
    data = case.make(case.full)
    check_ends(outcome(case.run, data), data)


def test_deep_nesting_is_an_error_not_a_stack_overflow() -> None:
    deep = "[" * 10**6 + "]" * 10**6
    with pytest.raises(toolwire.JSONDecodeError, match="deeper than 256"):
        toolwire.loads(deep)
    [invalid] = keep("~~~tool_call\n" + deep + "\n~~~\n")
    assert isinstance(invalid, toolwire.InvalidToolCall) and "256" in invalid.error
    assert anywhere(deep) == []
    with pytest.raises(toolwire.ArgumentsError, match="256"):
        toolwire.decode_arguments('{"a": ' + deep + "}")


def test_anywhere_memory_is_bounded_by_the_depth_limit() -> None:
    # One tracked frame per open bracket would be 2.4 GB here: only the outermost and
    # innermost 256 are kept, so the peak is the input itself.
    text = "{" * 100_000_000
    before = peak_rss_mb()
    assert anywhere(text) == []
    assert peak_rss_mb() - before < 50
    # A call under more unbalanced brackets than the depth limit is still found.
    assert named_calls(anywhere("[" * 1000 + CALLS["raw_json"])) == EXPECTED
    # A call whose arguments nest too deep is one broken call, not silence.
    deep = '{"name": "f", "arguments": {"a": ' + "[" * 1000 + "]" * 1000 + "}}"
    [invalid] = anywhere(deep)
    assert isinstance(invalid, toolwire.InvalidToolCall) and "256" in invalid.error


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.parametrize("text", ["\ufeff", "\ufeff \t"])
def test_a_leading_byte_order_mark_pads_the_first_fence_line(text: str) -> None:
    block = CALLS["text_tagged"]
    # At the very start, U+FEFF is a byte order mark; at the start of any line it is invisible
    # indentation (issue 20): the fence line after it opens a block. In the middle of a line
    # it is an ordinary character. One-shot and stream agree, however the text is chunked.
    cases = [
        (text + block, EXPECTED),
        ("hi\n" + text + block, EXPECTED),
        ("hi " + text + block, []),
    ]
    for data, expected in cases:
        assert named_calls(toolwire.extract(data)) == expected, data
        assert named_calls(toolwire.parse_text(data).calls) == expected, data
        for size in (1, 2, 3, 7):
            parser = toolwire.StreamParser()
            events = [e for i in range(0, len(data), size) for e in parser.feed(data[i : i + size])]
            events += parser.finish()
            ends = [e.call for e in events if isinstance(e, toolwire.ToolCallEnd)]
            assert named_calls(ends) == expected, (data, size)


def test_a_hundred_megabyte_argument_is_read_whole() -> None:
    size = 100_000_000
    text = '~~~tool_call\n{"name": "f", "arguments": {"a": "' + "x" * size + '"}}\n~~~\n'
    [call] = toolwire.extract(text)
    assert len(call.arguments["a"]) == size


@pytest.mark.parametrize("protocol", sorted(CALLS))
def test_unterminated_strings_and_truncation_at_every_position(protocol: str) -> None:
    call = CALLS[protocol]
    for i in range(len(call) + 1):
        for text in (call[:i] + '"' + call[i:], call[:i], call[:i] + "'" + call[i:]):
            check_ends(outcome(keep, text), text)
            check_ends(outcome(toolwire.extract, text), text)


@pytest.mark.parametrize("bad", [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\x80", b"\xf8\x88"])
def test_invalid_utf8_at_every_position_names_the_byte_offset(bad: bytes) -> None:
    data = CALLS["text_tagged"].encode()
    for i in range(len(data) + 1):
        broken = data[:i] + bad + data[i:]
        with pytest.raises(toolwire.ToolwireError, match=f"byte offset {i}\\b"):
            toolwire.extract(broken)
        with pytest.raises(toolwire.ToolwireError):
            toolwire.loads(broken)
    [[invalid]] = toolwire.extract_batch([b'{"text": "a' + bad + b'"}'])
    assert isinstance(invalid, toolwire.InvalidToolCall) and "byte offset 11" in invalid.error


def test_lone_surrogates() -> None:
    # In the text itself: not UTF-8, a clean error wherever it is.
    call = CALLS["hermes"]
    for i in range(len(call) + 1):
        with pytest.raises(toolwire.ToolwireError, match="surrogates"):
            toolwire.extract(call[:i] + "\udc80" + call[i:])
    [[invalid]] = toolwire.extract_batch(['{"text": "\ud800"}'])
    assert isinstance(invalid, toolwire.InvalidToolCall)
    # Spelled as JSON escapes: kept, exactly as json.loads keeps them.
    for escaped in ['"\\ud800"', '"\\udc00x"', '"\\ud800\\ud800"', '{"\\udfff": 1}']:
        assert toolwire.loads(escaped) == json.loads(escaped)
    [c] = toolwire.extract('~~~tool_call\n{"name": "f", "arguments": {"a": "\\ud83d"}}\n~~~')
    assert c.arguments == {"a": "\ud83d"}
    # In structured calls: a name or arguments holding them end cleanly too.
    for native in [
        {"name": "f\ud800", "arguments": {}},
        {"name": "f", "arguments": '{"a": "\ud800"}'},
    ]:
        check_ends(outcome(toolwire.parse_native, [native]), "")


def test_nul_bytes_everywhere() -> None:
    for protocol, call in CALLS.items():
        for i in range(len(call) + 1):
            text = call[:i] + "\x00" + call[i:]
            check_ends(outcome(keep, text), text)
            check_ends(outcome(keep, text.encode()), text)
        # Escaped, a NUL is an ordinary character of a string.
        assert toolwire.loads('"a\\u0000b"') == "a\x00b", protocol
    with pytest.raises(toolwire.JSONDecodeError, match="control character"):
        toolwire.loads('"a\x00b"')
    assert toolwire.loads('"a\x00b"'.replace("\x00", "\\u0000")) == "a\x00b"


@pytest.mark.parametrize("protocol", sorted(CALLS))
def test_byte_order_marks(protocol: str) -> None:
    call = CALLS[protocol]
    # Bytes are read as json.loads reads them: a leading UTF-8 BOM is skipped.
    assert named_calls(toolwire.extract(b"\xef\xbb\xbf" + call.encode())) == EXPECTED
    [result] = toolwire.extract_batch([b"\xef\xbb\xbf" + json.dumps({"text": call}).encode()])
    assert named_calls(result) == EXPECTED
    # In str, U+FEFF is an ordinary character; anywhere in the text it ends cleanly.
    for i in range(len(call) + 1):
        text = call[:i] + "\ufeff" + call[i:]
        check_ends(outcome(keep, text), text)


def test_loads_reads_bytes_like_json_loads() -> None:
    for data in [b"\xef\xbb\xbf{}", b"\xef\xbb\xbf[1]", b'\xef\xbb\xbf"\xc3\xa9"']:
        assert toolwire.loads(data) == json.loads(data)
    with pytest.raises(toolwire.JSONDecodeError):
        toolwire.loads("\ufeff{}")
    with pytest.raises(json.JSONDecodeError):
        json.loads("\ufeff{}")


@pytest.mark.parametrize("protocol", sorted(CALLS))
def test_crlf_and_cr_only_line_endings(protocol: str) -> None:
    call = CALLS[protocol]
    assert named_calls(toolwire.extract(call.replace("\n", "\r\n"))) == EXPECTED
    cr_only = call.replace("\n", "\r")
    check_ends(outcome(keep, cr_only), cr_only)


@pytest.mark.parametrize("protocol", MANY_CALL_PROTOCOLS)
def test_a_hundred_thousand_calls_in_one_response(protocol: str) -> None:
    n = 100_000
    text = many_calls(protocol, n)
    for calls in (toolwire.extract(text), toolwire.parse_text(text).calls):
        assert [c.arguments["i"] for c in calls] == list(range(n))
        assert len({c.id for c in calls}) == n


def test_a_hundred_thousand_native_calls() -> None:
    from adversarial import native_body

    calls = toolwire.extract(native_body(100_000))
    assert [c.id for c in calls] == [f"c{k}" for k in range(100_000)]
    assert calls[-1].arguments == {"i": 99_999}
