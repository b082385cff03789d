"""Benchmark data: the corpus copy in tests/data."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parent.parent


@cache
def corpus_cases() -> tuple[dict[str, Any], ...]:
    with (ROOT / "tests" / "data" / "cases.jsonl").open(encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f)


@cache
def corpus_streams() -> tuple[dict[str, Any], ...]:
    """The corpus streams that have recorded OpenAI chunks and Anthropic events."""
    with (ROOT / "tests" / "data" / "streams.jsonl").open(encoding="utf-8") as f:
        streams = (json.loads(line) for line in f)
        return tuple(s for s in streams if "openai_chunks" in s)


def as_pairs(calls: list[Any]) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in calls]


def arguments_floor(
    calls_per_text: list[list[tuple[str, Any]]],
) -> Callable[[], list[list[Any]]]:
    """The floor under any parser that returns arguments as dicts: each call's arguments,
    already cut out of its text as JSON, decoded by orjson (the fastest JSON-to-Python decoder
    on PyPI), and nothing else: no scanning, no names, no call objects, no ids. A parser
    cannot be more times faster than a baseline than this floor is."""
    import orjson

    loads = orjson.loads
    pieces = [[json.dumps(arguments) for _, arguments in calls] for calls in calls_per_text]
    return lambda: [[loads(p) for p in text_pieces] for text_pieces in pieces]


_CODE = (
    'def render(path: str) -> str:\n    """Fill the template at {path}."""\n'
    "    with open(path, encoding='utf-8') as f:\n"
    "        return f.read().replace(\"\\\\n\", '\\n')\n"
    'fn main() { let s = "{}\\t}"; println!("{s} ✓ — ok"); }\n'
    "SELECT name, count(*) FROM calls WHERE args LIKE '%~~~%' GROUP BY 1; -- 🚀\r\n"
    "```js\nconst re = /[{}\\[\\]]+/g; console.log(`${x}`);\n```\n"
)


def code_like(size: int) -> str:
    """`size` characters of mixed source code: quotes, backslashes, braces, fences, CRLF,
    non-ASCII and astral characters (the kind of string a file-writing call carries)."""
    return (_CODE * (size // len(_CODE) + 1))[:size]


def write_file_call(size: int) -> tuple[str, str, dict[str, Any]]:
    """A `~~~tool_call` message with one call whose `content` argument is `size` characters of
    code: (message text, the arguments JSON as written, the decoded arguments)."""
    arguments = {"path": "src/big.py", "content": code_like(size)}
    arguments_text = json.dumps(arguments, ensure_ascii=False)
    body = f'{{"name": "write_file", "arguments": {arguments_text}}}'
    return f"Writing the file.\n~~~tool_call\n{body}\n~~~\n", arguments_text, arguments


def write_file_call_in(format: str, size: int) -> tuple[str, str, dict[str, Any]]:
    """The call of `write_file_call` written in an open-weight format (`hermes` or `qwen3_coder`):
    (message text, the arguments text its deltas concatenate to, the decoded arguments).
    qwen3_coder values are raw text, so its deltas are the compact JSON of the arguments."""
    _, arguments_text, arguments = write_file_call(size)
    if format == "hermes":
        body = f'{{"name": "write_file", "arguments": {arguments_text}}}'
        return f"Writing the file.\n<tool_call>\n{body}\n</tool_call>\n", arguments_text, arguments
    if format == "qwen3_coder":
        parameters = "".join(
            f"<parameter={name}>\n{value}\n</parameter>\n" for name, value in arguments.items()
        )
        text = (
            "Writing the file.\n<tool_call>\n<function=write_file>\n"
            f"{parameters}</function>\n</tool_call>\n"
        )
        compact = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
        return text, compact, arguments
    raise ValueError(f"no rendering for {format!r}")
