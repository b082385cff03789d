"""A straightforward pure-Python implementation of toolwire's seed-protocol rules (`re` +
`json`): the baseline `extract` is measured against. It follows the same rules for the common
cases (fence lines, JSON strings in bodies are not tracked, ids generated from OS randomness)."""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

FENCE_BLOCK = re.compile(
    r"^[ \t]*~~~tool_call[ \t\r]*\n(.*?)^[ \t]*~~~[ \t\r]*$", re.MULTILINE | re.DOTALL
)
THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
JSON_FENCE = re.compile(r"^[ \t]*```(?:json)?[ \t]*\n(.*?)^[ \t]*```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


def new_id() -> str:
    return "call_" + secrets.token_urlsafe(9)


def normalize_arguments(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        if not value.strip():
            return {}
        decoded = json.loads(value)
        if isinstance(decoded, str):
            decoded = json.loads(decoded)
        if decoded is None:
            return {}
        if isinstance(decoded, dict):
            return decoded
    raise ValueError("arguments must be a JSON object")


def call_from_object(obj: Any) -> ToolCall:
    if not isinstance(obj, dict):
        raise ValueError("a tool call must be a JSON object")
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("missing tool name")
    raw_args = obj.get("arguments", obj.get("parameters"))
    call_id = obj.get("id")
    return ToolCall(
        call_id if isinstance(call_id, str) and call_id else new_id(),
        name,
        normalize_arguments(raw_args),
    )


def parse_text_tagged(text: str) -> list[ToolCall]:
    calls = []
    for match in FENCE_BLOCK.finditer(text):
        value = json.loads(match.group(1))
        for obj in value if isinstance(value, list) else [value]:
            calls.append(call_from_object(obj))
    return calls


def candidate_calls(value: Any) -> list[ToolCall] | None:
    if isinstance(value, dict):
        if "name" in value and ("arguments" in value or "parameters" in value):
            return [call_from_object(value)]
        if isinstance(value.get("function"), dict):
            return candidate_calls(value["function"])
        if isinstance(value.get("tool_calls"), list):
            return candidate_calls(value["tool_calls"])
        return None
    if isinstance(value, list) and value:
        calls = []
        for item in value:
            found = candidate_calls(item)
            if found is None:
                return None
            calls.extend(found)
        return calls
    return None


def parse_raw_json(text: str) -> list[ToolCall]:
    stripped = THINK.sub("", text).strip()
    fence = re.fullmatch(r"```(?:json)?[ \t]*\n(.*)\n?```", stripped, re.DOTALL)
    whole = fence.group(1).strip() if fence and "\n```" not in fence.group(1) else stripped
    if whole[:1] in ("{", "["):
        try:
            found = candidate_calls(json.loads(whole))
        except json.JSONDecodeError:
            found = None
        if found:
            return found
    calls: list[ToolCall] = []
    for match in JSON_FENCE.finditer(text):
        try:
            found = candidate_calls(json.loads(match.group(1)))
        except json.JSONDecodeError:
            continue
        calls.extend(found or [])
    return calls


def extract(text: str) -> list[ToolCall]:
    if "~~~tool_call" in text:
        calls = parse_text_tagged(text)
        if calls:
            return calls
    return parse_raw_json(text)
