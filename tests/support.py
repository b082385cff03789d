"""Test data: the corpus copies in tests/data and the shipped sample log."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent


@cache
def load_jsonl(name: str) -> tuple[dict[str, Any], ...]:
    path = DATA / name
    if not path.exists():
        path = ROOT / "examples" / name
    with path.open(encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f)


def cases() -> tuple[dict[str, Any], ...]:
    return load_jsonl("cases.jsonl")


def calls_of(case: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["arguments"]) for c in case["calls"]]
