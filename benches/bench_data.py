"""Benchmark data: the corpus copy in tests/data."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parent.parent


@cache
def corpus_cases() -> tuple[dict[str, Any], ...]:
    with (ROOT / "tests" / "data" / "cases.jsonl").open(encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f)


def as_pairs(calls: list[Any]) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in calls]
