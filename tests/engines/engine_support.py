"""Driving toolwire's adapters the way each engine's tests and serving layer drive a parser."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import toolwire

CASES = json.loads((Path(__file__).parent / "data" / "engine_cases.json").read_text("utf-8"))
STREAMS = [
    json.loads(line)
    for line in (Path(__file__).parents[1] / "data" / "streams.jsonl")
    .read_text("utf-8")
    .splitlines()
]
"""Recorded model outputs in every format, with their calls and tools (tests/data)."""


@dataclass
class Result:
    """What a client ends up with: the content, and each call's id, name and arguments text."""

    content: str = ""
    calls: list[list[str]] = field(default_factory=list)  # [id, name, arguments]

    def add_call_piece(self, index: int, call_id: str | None, name: str | None, args: str) -> None:
        """One streamed piece of a call, checked as the engines' own test reconstructors do."""
        if index == len(self.calls):
            assert call_id is not None and name is not None, "a call's first piece has id and name"
            self.calls.append([call_id, name, args])
            return
        assert index < len(self.calls), f"call index {index} skips a call"
        assert call_id is None and name is None, "id and name are sent once per call"
        self.calls[index][2] += args


class Tokenizer:
    """The part of a tokenizer vLLM's parser set-up reads (toolwire's adapters need none)."""

    def get_vocab(self) -> dict[str, int]:
        return {}


#: The engines' parser names toolwire does not take: each reads whatever a checkpoint's
#: ``response_template`` metadata describes (Hugging Face's declarative response schema), so
#: there is no one format behind the name.
TEMPLATE_DRIVEN = {"beam", "hf", "response_template"}


def unread_parser_names(names: set[str]) -> set[str]:
    """The engine parser names (besides toolwire's own and the template-driven ones) that
    ``format=`` does not take."""
    unread = set()
    for name in names - TEMPLATE_DRIVEN:
        if name.startswith("toolwire_"):
            continue
        try:
            toolwire.parse_text("", format=name)
        except ValueError:
            unread.add(name)
    return unread


def token_like_chunks(text: str, seed: int) -> list[str]:
    """``text`` cut at random points 1 to 6 characters apart (model tokens, or a few of them
    batched per step); markers are cut too, which a tokenizer's special tokens never are."""
    rng = random.Random(seed)
    chunks, at = [], 0
    while at < len(text):
        step = rng.randint(1, 6)
        chunks.append(text[at : at + step])
        at += step
    return chunks


def tool_definitions(names: list[str]) -> list[dict[str, Any]]:
    """OpenAI tool definitions for ``names`` (any arguments), or one unused tool."""
    return [
        {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
        for name in dict.fromkeys(names or ["unused_tool"])
    ]


def check_case(case: dict[str, Any], result: Result) -> None:
    """Assert ``result`` is what the engine's test expects of ``case``."""
    expected = case["calls"]
    assert [name for _, name, _ in result.calls] == [name for name, _ in expected]
    for (_, _, arguments), (_, want) in zip(result.calls, expected, strict=True):
        assert (arguments if isinstance(want, str) else json.loads(arguments)) == want
    if "content" in case:
        assert result.content.strip() == (case["content"] or "").strip()
    ids = [call_id for call_id, _, _ in result.calls]
    assert len(set(ids)) == len(ids), "call ids are unique"
