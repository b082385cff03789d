"""The peer cases (`tests/data/conformance/peer_cases.jsonl`) read through toolwire's three
paths, and compared with what the peer's test asserts.

Run as a script for a table of the cases that fail, per path:
``PYTHONPATH=tests python tests/conformance/peer.py [FORMAT…]``.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import toolwire
from support import fed_in_chunks, streamed_calls

HERE = Path(__file__).parent
DATA = HERE.parent / "data" / "conformance" / "peer_cases.jsonl"
DEVIATIONS = HERE / "deviations.json"
PATHS = ("extract", "parse_text", "stream")

# Each case's stream is fed in chunks of these sizes, drawn from a generator seeded by the key.
CHUNK_SIZES = (1, 2, 3, 5, 8, 13, 64)


@cache
def cases() -> tuple[dict[str, Any], ...]:
    """Every case, with `key` (`source:file:test`, `#n` on a repeat) and `toolwire_format`
    (the registry's name for the peer's `format`, None where toolwire does not read it)."""
    out = []
    seen: Counter[str] = Counter()
    with DATA.open(encoding="utf-8") as f:
        for line in f:
            case = json.loads(line)
            key = f"{case['source']}:{Path(case['path']).name}:{case['test']}"
            seen[key] += 1
            if seen[key] > 1:
                key += f"#{seen[key]}"
            case["key"] = key
            case["toolwire_format"] = toolwire_format(case["format"])
            out.append(case)
    return tuple(out)


def toolwire_format(name: str) -> str | None:
    """The registry's name for a peer's format name (the peer's own where it stands for a set
    of names, which `formats=` takes as it is), or None."""
    if name in toolwire.FORMAT_NAMES:
        return name
    alias = toolwire.FORMAT_ALIASES.get(name)
    return name if isinstance(alias, tuple) else alias


def known() -> list[dict[str, Any]]:
    return [c for c in cases() if c["toolwire_format"] is not None]


@cache
def deviations() -> dict[str, dict[str, Any]]:
    """The deviations table: case key → `paths` (where toolwire differs), `reason`, and
    optionally `passes_with` (options under which the case passes, e.g. a policy)."""
    with DEVIATIONS.open(encoding="utf-8") as f:
        table: dict[str, dict[str, Any]] = json.load(f)
    return table


def decided(row: dict[str, Any]) -> bool:
    """Whether a row of the data (as read from the file) is a case the deviations table lists:
    for the other suites that read the peer cases, which leave those to this one."""
    return (row["source"], row["path"], row["test"], row["text"]) in _decided_rows()


@cache
def _decided_rows() -> frozenset[tuple[str, str, str, str]]:
    return frozenset(
        (c["source"], c["path"], c["test"], c["text"]) for c in cases() if c["key"] in deviations()
    )


def run(
    case: dict[str, Any], path: str, **options: Any
) -> tuple[list[Any], str | None, str | None]:
    """The calls (ToolCall or InvalidToolCall), content and reasoning (both None for extract)
    of one path; `options` may name other `formats` than the case's."""
    formats = options.pop("formats", [case["toolwire_format"]])
    if case.get("starts_in_reasoning"):
        # The peer's test opens a think span in the prompt (thinking on): so does toolwire.
        options.setdefault("starts_in_reasoning", True)
    text = case["text"]
    tools = case.get("tools")
    if path == "extract":
        calls = toolwire.extract(text, formats=formats, on_error="keep", tools=tools, **options)
        return calls, None, None
    if path == "parse_text":
        parsed = toolwire.parse_text(text, format=formats, tools=tools, **options)
        return list(parsed.calls), parsed.content, parsed.reasoning or ""
    parser = toolwire.StreamParser(formats=formats, tools=tools, **options)
    events = fed_in_chunks(parser, text, random.Random(case["key"]), CHUNK_SIZES)
    content = "".join(e.text for e in events if e.kind == "text_delta")
    reasoning = "".join(e.text for e in events if e.kind == "reasoning_delta")
    return streamed_calls(events), content, reasoning


def _subset(expected: Any, got: Any) -> bool:
    if isinstance(expected, dict) and isinstance(got, dict):
        return all(k in got and _subset(v, got[k]) for k, v in expected.items())
    return bool((expected == got and type(expected) is type(got)) or _same_number(expected, got))


def _same_number(a: Any, b: Any) -> bool:
    numbers = (int, float)
    return (
        isinstance(a, numbers)
        and isinstance(b, numbers)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )


def _equal(expected: Any, got: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(got, dict) and expected.keys() == got.keys() and _subset(expected, got)
    if isinstance(expected, list):
        return (
            isinstance(got, list)
            and len(expected) == len(got)
            and all(_equal(e, g) for e, g in zip(expected, got, strict=True))
        )
    return _subset(expected, got)


def mismatch(
    case: dict[str, Any], calls: list[Any], content: str | None, reasoning: str | None = None
) -> str | None:
    """Why the result differs from the peer's expectation, or None when it matches. The
    content and the reasoning are compared, stripped, where the case states them (a case
    without a `reasoning` key, or with a null one, states none; `""` is no reasoning)."""
    expected = case["calls"]
    match = case["match"]
    got = [(c.name, c.arguments) if isinstance(c, toolwire.ToolCall) else c for c in calls]
    if match == "subset_prefix":
        got = got[: len(expected)]
    if len(got) != len(expected):
        return f"{len(got)} calls, expected {len(expected)}: {_show(got)}"
    for i, (want, have) in enumerate(zip(expected, got, strict=True)):
        if not isinstance(have, tuple):
            return f"call {i} is invalid: {have.error}"
        name, arguments = have
        if want["name"] is not None and want["name"] != name:
            return f"call {i} is {name!r}, expected {want['name']!r}"
        if "arguments" not in want:
            # The peer keeps a call whose arguments are not JSON, as their raw text.
            return f"call {i} has arguments {arguments!r}, expected raw {want['arguments_raw']!r}"
        compare = _subset if match else _equal
        if not compare(want["arguments"], arguments):
            return f"call {i} arguments {arguments!r}, expected {want['arguments']!r}"
    if content is not None and case["content"] is not None:
        if content.strip() != case["content"].strip():
            return f"content {content.strip()!r}, expected {case['content'].strip()!r}"
    want_reasoning = case.get("reasoning")
    if reasoning is not None and want_reasoning is not None:
        if reasoning.strip() != want_reasoning.strip():
            return f"reasoning {reasoning.strip()!r}, expected {want_reasoning.strip()!r}"
    return None


def _show(got: list[Any]) -> str:
    return repr([g if isinstance(g, tuple) else f"invalid({g.error})" for g in got])[:300]


def outcome(case: dict[str, Any], path: str, **options: Any) -> str | None:
    """None when `path` reads the case as the peer expects, else why not."""
    try:
        calls, content, reasoning = run(case, path, **options)
    except Exception as error:  # a crash is a failure to report, with its message
        return f"raised {type(error).__name__}: {error}"
    return mismatch(case, calls, content, reasoning)


def main(formats: list[str]) -> None:
    totals: Counter[str] = Counter()
    selected = [c for c in known() if not formats or c["toolwire_format"] in formats]
    for case in selected:
        for path in PATHS:
            why = outcome(case, path)
            if why is None:
                totals[path] += 1
            else:
                print(f"{case['toolwire_format']:13} {path:10} {case['key']}\n    {why}")
    print(f"{len(selected)} cases in formats toolwire reads (of {len(cases())})")
    for path in PATHS:
        print(f"  {path:10} {totals[path]}/{len(selected)}")


if __name__ == "__main__":
    main(sys.argv[1:])
