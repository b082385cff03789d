"""OpenAI Chat Completions and Ollama ``/api/chat``: ``tool_calls`` on the assistant message, one
``tool`` message per result."""

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
    Results,
    entries,
    messages_of,
    native_message,
    read_function,
    result_content,
    user_text,
)


class OpenAIChat(Codec):
    name: Provider = "openai"
    body_key = "choices"
    body_path: tuple[str | int, ...] = ("choices", 0, "message")

    def encode_tool(self, tool: Tool) -> Message:
        return {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }

    def decode_tools(self, wire: object) -> list[Tool]:
        tools = []
        for path, entry in entries(wire):
            if entry.get("type", "function") != "function":
                continue  # a built-in tool, not a function definition
            where = shape.at(path, "function")
            function = shape.want_mapping(shape.member(entry, "function", path), where)
            tools.append(read_function(function, where, "parameters"))
        return tools

    def encode_calls(self, calls: list[ToolCall], content: str | None) -> Message:
        return native_message(calls, self.name, content)

    def encode_results(self, results: list[ToolResult], error_prefix: str | None) -> list[Message]:
        return [
            {
                "role": "tool",
                "tool_call_id": self._result_id(result, i),
                "content": self._result_text(result, error_prefix),
            }
            for i, result in enumerate(results)
        ]

    def decode_results(self, messages: object) -> list[ToolResult]:
        return [
            self._decode_result(message, path)
            for path, message in messages_of(messages)
            if message.get("role") == "tool"
        ]

    def _decode_result(self, message: Mapping[str, Any], path: str) -> ToolResult:
        return ToolResult(
            tool_call_id=shape.optional_str(
                message.get("tool_call_id"), shape.at(path, "tool_call_id")
            ),
            name=shape.optional_str(message.get("name"), shape.at(path, "name")),
            content=result_content(message.get("content"), shape.at(path, "content")),
        )

    def read_turn(self, message: object) -> Assistant | Results:
        if not isinstance(message, Mapping):
            results = self.decode_results(message)  # a list of tool messages
            if results:
                return Results(results, user_text(message))
            raise ProviderFormatError("expected an assistant message or tool messages", path="")
        role = message.get("role")
        if role == "tool":
            return Results(self.decode_results(message))
        if role == "assistant" or "tool_calls" in message:
            calls = decode_tool_calls(message, self.name)
            content = shape.text_of(message.get("content"), "content")
            return Assistant(content, [c for c in calls if isinstance(c, ToolCall)])
        raise ProviderFormatError(
            f"expected an assistant or tool message, got role {role!r}", path="role"
        )


class Ollama(OpenAIChat):
    name: Provider = "ollama"
    body_key = "message"
    body_path: tuple[str | int, ...] = ("message",)

    def encode_results(self, results: list[ToolResult], error_prefix: str | None) -> list[Message]:
        messages = []
        for result in results:
            message: Message = {"role": "tool", "content": self._result_text(result, error_prefix)}
            if result.name is not None:
                message["tool_name"] = result.name
            messages.append(message)
        return messages

    def _decode_result(self, message: Mapping[str, Any], path: str) -> ToolResult:
        key = "tool_name" if "tool_name" in message else "name"
        return ToolResult(
            tool_call_id=shape.optional_str(
                message.get("tool_call_id"), shape.at(path, "tool_call_id")
            ),
            name=shape.optional_str(message.get(key), shape.at(path, key)),
            content=result_content(message.get("content"), shape.at(path, "content")),
        )
