"""`extract_batch` gives what `extract` gives, item by item, on the shipped sample log."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

import pytest
import toolwire
from support import ROOT, calls_of, cases, load_jsonl

SAMPLE = ROOT / "examples" / "logs_sample.jsonl"

# Lines that are not a readable response at all, added to the corpus log's own malformed calls.
BAD_ITEMS: list[Any] = [b"not json", b"", b'{"unknown": 1}', b'"\xff"', b"[1, 2", 42]


@cache
def sample_bodies() -> tuple[bytes, ...]:
    """The response body of each sample log line, as the JSON text a log would hold."""
    with SAMPLE.open("rb") as f:
        return tuple(json.dumps(json.loads(line)["response"]).encode() for line in f)


def comparable(calls: list[Any]) -> list[Any]:
    """Calls with generated ids masked (they are fresh random ids on every run)."""
    out: list[Any] = []
    for call in calls:
        if isinstance(call, toolwire.ToolCall):
            generated = len(call.id) == 17 and call.id.startswith("call_")
            out.append(("call", None if generated else call.id, call.name, call.arguments))
        else:
            out.append(call)
    return out


def test_batch_equals_extract_item_by_item() -> None:
    bodies = sample_bodies()
    expected = [comparable(toolwire.extract(toolwire.loads(b), on_error="keep")) for b in bodies]
    for threads in (1, 2, None):
        got = toolwire.extract_batch(bodies, threads=threads)
        assert len(got) == len(bodies)
        assert [comparable(calls) for calls in got] == expected


def test_batch_matches_the_expected_log() -> None:
    by_id = {c["id"]: c for c in cases()}
    expected = load_jsonl("logs_expected.jsonl")
    results = toolwire.extract_batch(sample_bodies(), threads=2)
    hermes = toolwire.extract('<tool_call>{"name": "f", "arguments": {}}</tool_call>')
    skip = {"raw_json_prose"} | (set() if hermes else {"hermes"})
    checked = 0
    for result, want in zip(results, expected, strict=True):
        if want["protocol"] in skip:
            continue
        invalid = [c for c in result if isinstance(c, toolwire.InvalidToolCall)]
        if want["kind"] == "calls":
            assert not invalid and len(result) == want["n_calls"], want
            got = [(c.name, c.arguments) for c in result]
            assert got == calls_of(by_id[want["case_id"]]), want
        elif want["kind"] == "no_calls":
            assert result == [], want
        else:
            assert invalid and all(c.protocol != "body" for c in invalid), want
        checked += 1
    assert checked > 3500


def test_bad_items_are_kept_in_place() -> None:
    good = sample_bodies()[0]
    items = [good, *BAD_ITEMS, good]
    results = toolwire.extract_batch(items)
    assert len(results) == len(items)
    assert comparable(results[0]) == comparable(results[-1]) != []
    for result in results[1:-1]:
        [bad] = result
        assert isinstance(bad, toolwire.InvalidToolCall)
        assert (bad.protocol, bad.index) == ("body", 0)
    assert results[1][0].raw == "not json" and "invalid JSON" in results[1][0].error
    assert "unrecognised response shape" in results[3][0].error
    assert "not valid UTF-8" in results[4][0].error
    assert "must be JSON text" in results[6][0].error
    assert toolwire.extract_batch(items, on_error="skip")[1:-1] == [[]] * len(BAD_ITEMS)


def test_raise_policy_raises_what_extract_would() -> None:
    with pytest.raises(toolwire.JSONDecodeError, match="item 1: invalid JSON"):
        toolwire.extract_batch([b"{}", b"nope"], on_error="raise")
    with pytest.raises(toolwire.ProviderFormatError, match="item 0"):
        toolwire.extract_batch([b'{"unknown": 1}'], on_error="raise")
    broken = '{"text": "~~~tool_call\\n{\\"name\\": \\"f\\",}\\n~~~"}'
    with pytest.raises(toolwire.ToolCallParseError):
        toolwire.extract_batch([broken], on_error="raise")


def test_items_may_be_str_bytes_bytearray_or_mappings() -> None:
    text = '{"text": "~~~tool_call\\n{\\"name\\": \\"f\\", \\"arguments\\": {\\"a\\": 1}}\\n~~~"}'
    mapping = json.loads(text)
    results = toolwire.extract_batch([text, text.encode(), bytearray(text.encode()), mapping])
    assert [[(c.name, c.arguments) for c in r] for r in results] == [[("f", {"a": 1})]] * 4
    assert toolwire.extract_batch(iter([])) == []


def test_values_are_exact() -> None:
    arguments = (
        '{"big": 123456789012345678901234567890, "f": 0.1, "e": 1e300, "neg": -0.0,'
        ' "s": "\\ud800x\\u00e9\\ud83d\\ude00", "n": null, "l": [true, {"k": []}]}'
    )
    body = json.dumps(
        {
            "choices": [
                {"message": {"tool_calls": [{"function": {"name": "f", "arguments": arguments}}]}}
            ]
        }
    )
    [[call]] = toolwire.extract_batch([body])
    assert call.arguments == json.loads(arguments)
    assert call.arguments["s"] == "\ud800x\u00e9\U0001f600"
    assert repr(call.arguments["neg"]) == "-0.0"


def test_provider_restricts_the_body_shape() -> None:
    openai = sample_bodies()[0]
    assert b'"choices"' in openai
    [[call]] = toolwire.extract_batch([openai], provider="openai")
    assert isinstance(call, toolwire.ToolCall)
    [[bad]] = toolwire.extract_batch([openai], provider="anthropic")
    assert isinstance(bad, toolwire.InvalidToolCall)
    assert bad.error == "missing 'content': not an Anthropic Messages body or message at content"
    with pytest.raises(ValueError, match="provider must be"):
        toolwire.extract_batch([openai], provider="nope")
    with pytest.raises(ValueError, match="threads must be from 1 to 1024, not 0"):
        toolwire.extract_batch([openai], threads=0)


def test_extract_options_apply() -> None:
    prose = json.dumps({"text": 'I will call {"name": "f", "arguments": {"a": 1}} now.'})
    assert toolwire.extract_batch([prose]) == [[]]
    [[call]] = toolwire.extract_batch([prose], raw_json="anywhere")
    assert (call.name, call.arguments) == ("f", {"a": 1})
    tagged = json.dumps({"text": '```json\n{"name": "f", "arguments": {}}\n```'})
    assert toolwire.extract_batch([tagged], formats=["text_tagged"]) == [[]]


def test_mixed_items_keep_their_places_across_chunks_on_any_thread_count() -> None:
    """JSON text is extracted in chunks off the interpreter while mappings and bad items are
    handled in place: every result must land at its item's index."""
    bodies = sample_bodies()[:300]
    items: list[Any] = []
    for i, body in enumerate(bodies):
        items.append(json.loads(body) if i % 5 == 0 else body)
        if i % 37 == 0:
            items.append(BAD_ITEMS[i % len(BAD_ITEMS)])
    expected = [comparable(toolwire.extract_batch([item], threads=1)[0]) for item in items]
    for threads in (1, 2, 3):
        for on_error in ("keep", "skip"):
            got = toolwire.extract_batch(items, threads=threads, on_error=on_error)
            want = (
                expected
                if on_error == "keep"
                else [
                    [c for c in calls if not isinstance(c, toolwire.InvalidToolCall)]
                    for calls in expected
                ]
            )
            assert [comparable(calls) for calls in got] == want, (threads, on_error)


def test_a_late_error_under_raise_stops_the_batch() -> None:
    """An error many chunks into a batch raises with its index, while other chunks are still
    being extracted on other threads."""
    index = 1000
    items = [b'{"text": "hi"}'] * index + [b"nope"] + [b'{"text": "hi"}'] * 5000
    for threads in (1, 2, 3):
        with pytest.raises(toolwire.JSONDecodeError, match=f"item {index}: invalid JSON"):
            toolwire.extract_batch(items, threads=threads, on_error="raise")


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_the_first_failing_item_in_input_order_raises(threads: int) -> None:
    """Chunks are turned into objects in the order threads finish them, and mappings before
    any text: the error raised is still the first item's in input order."""
    good = b'{"text": "hi"}'
    items: list[Any] = [good] * 3000
    items[2500] = b"nope"
    items[1700] = {"unknown": 1}
    items[40] = b"[1, 2"
    with pytest.raises(toolwire.JSONDecodeError, match="item 40: invalid JSON"):
        toolwire.extract_batch(items, threads=threads, on_error="raise")
    items[40] = good
    with pytest.raises(toolwire.ProviderFormatError, match="unrecognised response shape"):
        toolwire.extract_batch(items, threads=threads, on_error="raise")
    items[1700] = good
    with pytest.raises(toolwire.JSONDecodeError, match="item 2500: invalid JSON"):
        toolwire.extract_batch(items, threads=threads, on_error="raise")


@pytest.mark.parametrize("depth", [10, 250, 260, 100_000])
def test_calls_nested_in_functions_read_like_extract_at_any_depth(depth: int) -> None:
    # A call's `function` is read as a call, so the skim nests with it: past the nesting
    # limit the line is a JSON error, as for `loads`, never a crash.
    call = '{"name": "f", "arguments": {"a": [1]}}'
    line = '{"tool_calls": [' + '{"function": ' * depth + call + "}" * depth + "]}"
    [got] = toolwire.extract_batch([line], threads=1)
    try:
        want = toolwire.extract(toolwire.loads(line), on_error="keep")
    except toolwire.JSONDecodeError:
        assert got[0].protocol == "body" and got[0].error.startswith("invalid JSON"), got
        return
    assert [(c.name, getattr(c, "arguments", None)) for c in got] == [
        (c.name, getattr(c, "arguments", None)) for c in want
    ]


class _WatchingMapping(Mapping[str, Any]):
    """A body whose reading records whether the garbage collector was on at that moment."""

    def __init__(self, body: dict[str, Any], seen: list[bool]) -> None:
        self.body = body
        self.seen = seen

    def __getitem__(self, key: str) -> Any:
        self.seen.append(gc.isenabled())
        return self.body[key]

    def __iter__(self) -> Iterator[str]:
        self.seen.append(gc.isenabled())
        return iter(self.body)

    def __len__(self) -> int:
        return len(self.body)


@pytest.mark.parametrize("threads", [1, 2])
def test_the_collector_is_held_off_only_while_results_are_built(threads: int) -> None:
    """The batch holds the cyclic collector off while it builds results, and gives it back:
    on after the batch (and after a failing one), still off when the caller had turned it off,
    and on whenever Python code of a mapping item runs."""
    bodies = list(sample_bodies()[:200])
    seen: list[bool] = []
    items: list[Any] = [*bodies, _WatchingMapping(json.loads(bodies[0]), seen), *bodies]
    toolwire.extract_batch(items, threads=threads)
    assert gc.isenabled()
    assert seen and all(seen)

    with pytest.raises(toolwire.JSONDecodeError):
        items = [b'{"text": "hi"}'] * 500 + [b"nope"]
        toolwire.extract_batch(items, threads=threads, on_error="raise")
    assert gc.isenabled()

    collections: list[str] = []

    def count(phase: str, info: dict[str, int]) -> None:
        collections.append(phase)

    gc.collect()
    gc.callbacks.append(count)
    try:
        results = toolwire.extract_batch(bodies * 10, threads=threads)
    finally:
        gc.callbacks.remove(count)
    assert len(results) == 2000 and not collections

    gc.disable()
    try:
        toolwire.extract_batch(bodies, threads=threads)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("threads", [1, 2])
def test_errors_raised_from_a_batch_are_made_with_the_collector_on(
    threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exception classes are Python code: they run with the collector given back."""
    import toolwire._errors as errors

    seen: list[tuple[str, bool]] = []

    def watching(cls: type[Exception]) -> type[Exception]:
        class Watching(cls):  # type: ignore[valid-type,misc]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                seen.append((cls.__name__, gc.isenabled()))
                super().__init__(*args, **kwargs)

        return Watching

    for name in ("JSONDecodeError", "ArgumentsError", "ProviderFormatError"):
        monkeypatch.setattr(errors, name, watching(getattr(errors, name)))
    good = [b'{"text": "hi"}'] * 300
    broken_call = json.dumps(
        {"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "arguments": "{"}}]}}]}
    ).encode()
    for bad in (b"nope", broken_call, b'{"unknown": 1}'):
        with pytest.raises(toolwire.ToolwireError):
            toolwire.extract_batch([*good, bad], threads=threads, on_error="raise")
        assert gc.isenabled()
    assert [name for name, _ in seen] == [
        "JSONDecodeError",
        "ArgumentsError",
        "ProviderFormatError",
    ]
    assert all(on for _, on in seen), seen
