"""Shared pieces of the tool-loop tests: a registry of tools that succeed and fail in every
way, a scripted provider, an observer that records, and OpenAI bodies."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from toolwire import LoopResult, ToolCall, ToolRegistry, ToolResult


def make_registry() -> ToolRegistry:
    registry = ToolRegistry(filter="* -secret")

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @registry.tool
    def boom() -> str:
        """Always fails."""
        raise ValueError("the disk is full")

    @registry.tool(timeout=0.05)
    def slow() -> str:
        """Never finishes in time."""
        time.sleep(1)
        return "late"

    @registry.tool
    async def wait(seconds: float) -> str:
        """Sleep, asynchronously."""
        await asyncio.sleep(seconds)
        return f"waited {seconds}"

    @registry.tool(category="secret")
    def launch() -> str:
        """Filtered out."""
        return "launched"

    return registry


def openai_body(
    *calls: tuple[str, str, dict[str, Any]], content: str | None = None
) -> dict[str, Any]:
    tool_calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, n, a in calls
    ]
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}


class Script:
    """A fake provider answering from a list (the last answer repeats); records what it got.
    An answer that is a function is called for a fresh answer each time (a new stream)."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.seen: list[list[Any]] = []

    def __call__(self, messages: list[Any]) -> Any:
        self.seen.append(messages)
        answer = self.answers[min(len(self.seen), len(self.answers)) - 1]
        return answer() if callable(answer) else answer


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def on_start(self, messages: list[Any]) -> None:
        self.events.append(("start", len(messages)))

    def on_tool_call(self, call: ToolCall) -> None:
        self.events.append(("call", call.id))

    def on_tool_result(self, call: ToolCall, result: ToolResult) -> None:
        self.events.append(("result", call.id, result.tool_call_id, result.is_error))

    def on_message(self, message: dict[str, Any]) -> None:
        self.events.append(("message", message.get("role", message.get("type"))))

    def on_delta(self, event: Any) -> None:
        self.events.append(("delta", event.kind))

    def on_final(self, result: LoopResult) -> None:
        self.events.append(("final", result.stopped_reason))

    def on_error(self, error: BaseException) -> None:
        self.events.append(("error", type(error).__name__))
