"""The three ways into a format (`extract`, `parse_text`, the stream in random chunks) and what
they agree on: the helpers of the variant tests."""

from __future__ import annotations

import random
from typing import Any

import toolwire
from support import fed_in_chunks, streamed_calls


def three_paths(text: str, fmt: str, **options: Any) -> list[tuple[list[Any], str | None]]:
    """(calls as (name, arguments) or ("invalid", name, error), content) per path."""

    def shape(calls: list[Any]) -> list[Any]:
        return [
            (c.name, c.arguments)
            if isinstance(c, toolwire.ToolCall)
            else ("invalid", c.name, c.error)
            for c in calls
        ]

    extracted = toolwire.extract(text, formats=[fmt], on_error="keep", **options)
    parsed = toolwire.parse_text(text, format=fmt, **options)
    results: list[tuple[list[Any], str | None]] = [
        (shape(extracted), None),
        (shape(list(parsed.calls)), parsed.content),
    ]
    rng = random.Random(text)
    for _ in range(3):
        parser = toolwire.StreamParser(formats=[fmt], **options)
        events = fed_in_chunks(parser, text, rng, (1, 2, 3, 7, 64))
        content = "".join(e.text for e in events if e.kind == "text_delta")
        results.append((shape(streamed_calls(events)), content))
    return results


def read(text: str, fmt: str, **options: Any) -> tuple[list[Any], str]:
    """The calls and content every path agrees on (the calls' error messages aside)."""
    results = three_paths(text, fmt, **options)
    calls = results[1][0]
    content = results[1][1]
    assert content is not None
    for got_calls, got_content in results:
        assert [c[:2] for c in got_calls] == [c[:2] for c in calls], (fmt, text)
        if got_content is not None:
            assert got_content.strip() == content.strip(), (fmt, text)
    return calls, content.strip()
