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


# --- the calls of the sample log, in extract_arrow's entry shape ----------------------------

SAMPLE = ROOT / "examples" / "logs_sample.jsonl"


def sample_lines() -> list[str]:
    return SAMPLE.read_text(encoding="utf-8").splitlines()


def entries(calls: list[Any]) -> list[dict[str, Any]]:
    """`extract_batch` results in `extract_arrow`'s entry shape."""
    import toolwire

    out = []
    for call in calls:
        if isinstance(call, toolwire.ToolCall):
            arguments = json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))
            out.append({"id": call.id, "name": call.name, "arguments": arguments, "error": None})
        else:
            out.append({"id": None, "name": call.name, "arguments": None, "error": call.error})
    return out


def mask(rows: list[Any]) -> list[Any]:
    """Generated ids replaced by "generated" (they differ on every run)."""
    for row in rows:
        for entry in row or []:
            if entry["id"] and len(entry["id"]) == 17 and entry["id"].startswith("call_"):
                entry["id"] = "generated"
    return rows


def expected_rows(lines: list[str]) -> list[Any]:
    """The calls of each log line's ``response``, by ``extract_batch`` in process."""
    import toolwire

    bodies = [json.dumps(json.loads(line)["response"]) for line in lines]
    return mask([entries(calls) for calls in toolwire.extract_batch(bodies)])


def fed_in_chunks(parser: Any, text: str, rng: random.Random, sizes: tuple[int, ...]) -> list[Any]:
    """The events of a `StreamParser` fed `text` in chunks of sizes drawn from `sizes`, then
    finished."""
    events: list[Any] = []
    pos = 0
    while pos < len(text):
        size = rng.choice(sizes)
        events += parser.feed(text[pos : pos + size])
        pos += size
    events += parser.finish()
    return events


def streamed_calls(events: list[Any]) -> list[Any]:
    """The calls (`ToolCall`) and invalid calls of a stream's events, in order."""
    return [
        event.call if event.kind == "tool_call_end" else event
        for event in events
        if event.kind in ("tool_call_end", "invalid_tool_call")
    ]


def every_path(text: str) -> list[list[Any]]:
    """The calls of model text through every public text path, each a list of `ToolCall` and
    `InvalidToolCall`: `extract` (str and bytes), `parse_text`, `StreamParser` fed 3-character
    str chunks and 1-byte bytes chunks, and `extract_batch` of a log line holding the text."""
    import toolwire

    def streamed(chunks: list[Any]) -> list[Any]:
        parser = toolwire.StreamParser()
        return streamed_calls([e for chunk in chunks for e in parser.feed(chunk)] + parser.finish())

    data = text.encode()
    return [
        toolwire.extract(text, on_error="keep"),
        toolwire.extract(data, on_error="keep"),
        toolwire.parse_text(text).calls,
        streamed([text[i : i + 3] for i in range(0, len(text), 3)]),
        streamed([data[i : i + 1] for i in range(len(data))]),
        toolwire.extract_batch([json.dumps({"text": text})])[0],
    ]
