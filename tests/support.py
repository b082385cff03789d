"""Test data: the corpus copies in tests/data and the shipped sample log."""

from __future__ import annotations

import copy
import json
import random
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


SWAPS: list[Any] = [None, 0, 1.5, True, "x", "", [], {}, [1], {"a": 1}]


def mutation_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into `value` (dict keys and list indices), `()` first."""
    paths = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            paths.extend(mutation_paths(item, (*path, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            paths.extend(mutation_paths(item, (*path, i)))
    return paths


def mutated(body: Any, path: tuple[Any, ...], rng: random.Random) -> Any:
    """A copy of `body` with the value at `path` deleted or swapped for one of :data:`SWAPS`."""
    body = copy.deepcopy(body)
    if not path:
        return rng.choice(SWAPS)
    parent = body
    for key in path[:-1]:
        parent = parent[key]
    if rng.random() < 0.5:
        del parent[path[-1]]
    else:
        parent[path[-1]] = rng.choice(SWAPS)
    return body
