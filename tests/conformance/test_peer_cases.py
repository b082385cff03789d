"""Real model outputs from the serving engines' own tool-parser tests (vLLM, SGLang, llama.cpp).

Every case in a format toolwire reads goes through `extract`, `parse_text` and a `StreamParser`
fed in seeded random chunks, and is compared with what the peer's test asserts (names and
arguments, only the asserted keys for `match: "subset"`, the content where the test states it).
Each case passes on every path, or is in `deviations.json` for exactly the paths where it
differs, with the reason (`docs/conformance.md` explains each): a case that regresses fails,
and so does a listed deviation that starts passing, so the table stays true.

A case in a format toolwire does not read yet is skipped, saying so; it joins the suite as soon
as its format (or an alias of it) is in `toolwire.FORMATS`.
"""

from __future__ import annotations

from typing import Any

import pytest
import toolwire
from peer import PATHS, cases, deviations, known, outcome, run

UNREAD = [c for c in cases() if c["toolwire_format"] is None]
# The share of the cases in formats toolwire reads that must pass on each path, or differ by a
# documented decision.
TARGET = 0.98
# The decisions whose reason is that toolwire keeps a broken call as an `InvalidToolCall`.
KEPT_AS_INVALID = frozenset(
    {"broken-call-is-invalid", "broken-arguments", "a-call-needs-a-name", "strict-json-numbers"}
)


def key(case: dict[str, Any]) -> str:
    return str(case["key"])


@pytest.mark.parametrize("case", known(), ids=key)
def test_case_passes_or_is_a_listed_deviation(case: dict[str, Any]) -> None:
    failing = {path: why for path in PATHS if (why := outcome(case, path)) is not None}
    deviation = deviations().get(case["key"])
    listed = set(deviation["paths"]) if deviation else set()
    assert set(failing) == listed, (
        f"fails on {sorted(failing)}, listed for {sorted(listed)}: {failing}"
    )
    # A deviation that a policy reproduces the peer's behaviour under passes under it.
    options = deviation.get("passes_with") if deviation else None
    for path in sorted(listed) if options else ():
        assert outcome(case, path, **options) is None, (path, options)


def test_every_peer_case_is_in_a_format_toolwire_reads() -> None:
    # A case added in a peer format toolwire does not know would otherwise go unchecked.
    unread = sorted({c["format"] for c in UNREAD})
    assert not unread, f"peer formats that are neither a format nor an alias: {unread}"


def test_every_deviation_names_a_case_and_says_why() -> None:
    keys = {c["key"] for c in cases()}
    for name, deviation in deviations().items():
        assert name in keys, name
        assert deviation["paths"] and set(deviation["paths"]) <= set(PATHS), name
        assert len(deviation["reason"]) > 40, name


def test_a_broken_call_decision_returns_an_invalid_call_on_its_paths() -> None:
    # The table's reasons stay true: a deviation decided as a broken call kept whole is one where
    # toolwire does return an InvalidToolCall (a reading that later became lenient moves the
    # case to the decision that says so).
    untrue = [
        (c["key"], path)
        for c in known()
        if deviations().get(c["key"], {}).get("decision") in KEPT_AS_INVALID
        for path in deviations()[c["key"]]["paths"]
        if not any(isinstance(call, toolwire.InvalidToolCall) for call in run(c, path)[0])
    ]
    assert not untrue, untrue


def test_at_least_98_percent_pass_or_differ_by_a_documented_decision() -> None:
    # A deviation is a decision (its reason says why toolwire's reading is the better one) or,
    # marked `gap`, a variant not read yet: gaps must stay under 2% on every path.
    cases_read = known()
    for path in PATHS:
        gaps = [
            c["key"]
            for c in cases_read
            if deviations().get(c["key"], {}).get("gap") and path in deviations()[c["key"]]["paths"]
        ]
        rate = 1 - len(gaps) / len(cases_read)
        assert rate >= TARGET, f"{path}: {rate:.1%} of {len(cases_read)} cases; gaps: {gaps}"


def test_every_peer_format_name_is_mapped_once() -> None:
    # The suite maps a peer's name through the registry's aliases: none shadows a format.
    assert not set(toolwire.FORMAT_ALIASES) & set(toolwire.FORMATS)
