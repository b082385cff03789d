"""OpenAI Responses API: flat function tools, ``function_call`` items with ``call_id``,
``function_call_output`` items."""

from __future__ import annotations

from collections.abc import Mapping

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
    json_text,
    messages_of,
    read_function,
    result_content,
    user_text,
)


class OpenAIResponses(Codec):
    name: Provider = "openai_responses"
    body_key = "output"
    body_path: tuple[str | int, ...] = ("output",)

    def encode_tool(self, tool: Tool) -> Message:
        # `strict` defaults to true in the Responses API, which most schemas do not satisfy.
        return {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "strict": False,
        }

    def decode_tools(self, wire: object) -> list[Tool]:
        return [
            read_function(entry, path, "parameters")
            for path, entry in entries(wire)
            if entry.get("type", "function") == "function"
        ]

    def encode_calls(self, calls: list[ToolCall], content: str | None) -> list[Message]:
        items: list[Message] = []
        if content:  # an input message (EasyInputMessage): assistant text goes in as a string
            items.append({"type": "message", "role": "assistant", "content": content})
        items.extend(
            {
                "type": "function_call",
                "call_id": call.id,
                "name": call.name,
                "arguments": json_text(call.arguments, f"the arguments of {call.name!r}"),
            }
            for call in calls
        )
        return items

    def encode_results(self, results: list[ToolResult], error_prefix: str | None) -> list[Message]:
        return [
            {
                "type": "function_call_output",
                "call_id": self._result_id(result, i),
                "output": self._result_text(result, error_prefix),
            }
            for i, result in enumerate(results)
        ]

    def decode_results(self, messages: object) -> list[ToolResult]:
        return [
            ToolResult(
                tool_call_id=shape.optional_str(item.get("call_id"), shape.at(path, "call_id")),
                name=None,
                content=result_content(item.get("output"), shape.at(path, "output")),
            )
            for path, item in messages_of(messages)
            if item.get("type") == "function_call_output"
        ]

    def read_turn(self, message: object) -> Assistant | Results:
        items = [message] if isinstance(message, Mapping) else shape.want_list(message, "")
        results = self.decode_results(items)
        if results:
            return Results(results, user_text(items))
        calls = decode_tool_calls(items, self.name)
        texts = [
            shape.text_of(item.get("content"), shape.at(path, "content"))
            for path, item in entries(items)
            if item.get("type", "message") == "message" and item.get("role") == "assistant"
        ]
        content = "".join(t for t in texts if t) or None
        if not calls and content is None:
            raise ProviderFormatError(
                "expected function_call, function_call_output or assistant message items",
                path="",
            )
        return Assistant(content, [c for c in calls if isinstance(c, ToolCall)])
