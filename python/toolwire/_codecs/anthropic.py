"""Anthropic Messages: ``tool_use`` blocks, and one user message of ``tool_result`` blocks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import _shape as shape
from .._errors import ProviderFormatError
from .._toolwire import ToolCall, decode_tool_calls
from .._types import Tool, ToolResult
from .base import (
    Assistant,
    Codec,
    Message,
    Provider,
    ResultContent,
    Results,
    entries,
    json_text,
    messages_of,
    native_message,
    read_function,
    result_content,
)


class Anthropic(Codec):
    name: Provider = "anthropic"
    native_errors = True

    def encode_tool(self, tool: Tool) -> Message:
        return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}

    def decode_tools(self, wire: object) -> list[Tool]:
        return [
            read_function(entry, path, "input_schema")
            for path, entry in entries(wire)
            if entry.get("type", "custom") == "custom"  # server tools have their own types
        ]

    def encode_calls(self, calls: list[ToolCall], content: str | None) -> Message:
        return native_message(calls, self.name, content)

    def encode_results(self, results: list[ToolResult], error_prefix: str | None) -> list[Message]:
        if not results:
            return []
        blocks = []
        for i, result in enumerate(results):
            block: Message = {
                "type": "tool_result",
                "tool_use_id": self._result_id(result, i),
                "content": self._blocks(result.content),
            }
            if result.is_error:
                block["is_error"] = True
            blocks.append(block)
        return [{"role": "user", "content": blocks}]

    @staticmethod
    def _blocks(content: ResultContent) -> str | list[Any]:
        if isinstance(content, str | list):
            return content
        if "type" in content:  # one content block
            return [content]
        return [{"type": "text", "text": json_text(content, "result content")}]

    def message_of(self, body: object) -> object:
        """A ``content`` block list given on its own is the message that holds it (a user
        message when it holds ``tool_result`` blocks)."""
        if _is_block_list(body):
            blocks = list(body)  # type: ignore[call-overload]
            results = any(block.get("type") == "tool_result" for block in blocks)
            return {"role": "user" if results else "assistant", "content": blocks}
        return super().message_of(body)

    def decode_results(self, messages: object) -> list[ToolResult]:
        results = []
        for path, message in messages_of(self.message_of(messages)):
            content = message.get("content")
            if message.get("role", "user") != "user" or not isinstance(content, list):
                continue
            for where, block in entries(content, shape.at(path, "content")):
                if block.get("type") != "tool_result":
                    continue
                is_error = block.get("is_error", False)
                if not isinstance(is_error, bool):
                    raise shape.wrong(shape.at(where, "is_error"), "a boolean", is_error)
                results.append(
                    ToolResult(
                        tool_call_id=shape.optional_str(
                            block.get("tool_use_id"), shape.at(where, "tool_use_id")
                        ),
                        name=None,
                        content=result_content(block.get("content"), shape.at(where, "content")),
                        is_error=is_error,
                    )
                )
        return results

    def read_turn(self, message: object) -> Assistant | Results:
        message = shape.want_mapping(message, "")
        role = message.get("role")
        if role == "assistant":
            calls = decode_tool_calls(message, self.name)
            content = message.get("content")
            text = shape.text_of(content, "content")
            return Assistant(text, [c for c in calls if isinstance(c, ToolCall)])
        results = self.decode_results(message)
        if role == "user" and results:
            # Anthropic puts the user's text after the results, in the same message.
            return Results(results, shape.text_of(message.get("content"), "content"))
        raise ProviderFormatError(
            "expected an assistant message or a user message with tool_result blocks",
            path="content" if role == "user" else "role",
        )

    def with_user_text(self, messages: list[Message], text: str) -> list[Message]:
        if not messages:
            return [{"role": "user", "content": text}]
        *before, last = messages
        return [*before, {**last, "content": [*last["content"], {"type": "text", "text": text}]}]


def _is_block_list(value: object) -> bool:
    """A list of content blocks (each with a ``type``), not a list of messages."""
    return (
        isinstance(value, list | tuple)
        and bool(value)
        and all(isinstance(b, Mapping) and "type" in b and "role" not in b for b in value)
    )
