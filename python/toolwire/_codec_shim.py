"""TEMPORARY stand-in for the SPEC §7 provider codecs (issue 4, branch ``codecs``), limited to
what the tool loop and ``ToolRegistry.definitions`` need. Same names and signatures as §7, so
switching to the real codecs is an import change; delete this module then."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ._toolwire import ToolCall
from ._types import Tool, ToolResult

__all__ = ["encode_calls", "encode_results", "encode_tools"]


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _check(provider: str) -> None:
    if provider not in ("openai", "anthropic", "ollama"):
        raise ValueError(f"provider must be 'openai', 'anthropic' or 'ollama', not {provider!r}")


def encode_tools(tools: Sequence[Tool], provider: str) -> list[dict[str, Any]]:
    _check(provider)
    if provider == "anthropic":
        return [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in tools
        ]
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in tools
    ]


def encode_calls(
    calls: Sequence[ToolCall], provider: str, *, content: str | None = None
) -> dict[str, Any]:
    _check(provider)
    if provider == "anthropic":
        blocks: list[dict[str, Any]] = [{"type": "text", "text": content}] if content else []
        blocks += [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in calls
        ]
        return {"role": "assistant", "content": blocks}
    if provider == "ollama":
        return {
            "role": "assistant",
            "content": content or "",
            "tool_calls": [{"function": {"name": c.name, "arguments": c.arguments}} for c in calls],
        }
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": _compact(c.arguments)},
            }
            for c in calls
        ],
    }


def encode_results(results: Sequence[ToolResult], provider: str) -> list[dict[str, Any]]:
    _check(provider)
    if provider == "anthropic":
        if not results:
            return []
        blocks = []
        for r in results:
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": r.tool_call_id,
                "content": r.content if isinstance(r.content, str | list) else _compact(r.content),
            }
            if r.is_error:
                block["is_error"] = True
            blocks.append(block)
        return [{"role": "user", "content": blocks}]
    text = [r.content if isinstance(r.content, str) else _compact(r.content) for r in results]
    if provider == "ollama":
        return [
            {"role": "tool", "content": t, "tool_name": r.name}
            for r, t in zip(results, text, strict=True)
        ]
    return [
        {"role": "tool", "tool_call_id": r.tool_call_id, "content": t}
        for r, t in zip(results, text, strict=True)
    ]
