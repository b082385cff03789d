"""The baseline: the call mapping as a user would write it in plain Python (``json`` and
dict access), for `bench_codecs.py`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Call:
    id: str | None
    name: str
    arguments: dict[str, Any]


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return json.loads(value) if value.strip() else {}
    return value or {}


def decode_openai(body: dict[str, Any]) -> list[Call]:
    message = body["choices"][0]["message"]
    return [
        Call(c.get("id"), c["function"]["name"], _arguments(c["function"].get("arguments")))
        for c in message.get("tool_calls") or []
    ]


def decode_anthropic(body: dict[str, Any]) -> list[Call]:
    return [
        Call(b.get("id"), b["name"], _arguments(b.get("input")))
        for b in body["content"]
        if b.get("type") == "tool_use"
    ]


def decode_ollama(body: dict[str, Any]) -> list[Call]:
    return [
        Call(None, c["function"]["name"], _arguments(c["function"].get("arguments")))
        for c in body["message"].get("tool_calls") or []
    ]


def encode_openai(calls: list[Any], content: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": json.dumps(c.arguments, separators=(",", ":"), ensure_ascii=False),
                },
            }
            for c in calls
        ]
    return message


def encode_anthropic(calls: list[Any], content: str | None = None) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": content}] if content else []
    blocks += [
        {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in calls
    ]
    return {"role": "assistant", "content": blocks}


DECODERS = {"openai": decode_openai, "anthropic": decode_anthropic, "ollama": decode_ollama}
ENCODERS = {"openai": encode_openai, "anthropic": encode_anthropic}
