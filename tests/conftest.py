"""Shared fixtures: the corpus copies in tests/data and the hypothesis profiles."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent

# A fast profile by default; TOOLWIRE_HYPOTHESIS=slow for a thorough run.
settings.register_profile(
    "fast", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "slow", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("TOOLWIRE_HYPOTHESIS", "fast"))


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
