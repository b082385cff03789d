"""Gemini ``generateContent``: ``functionDeclarations``, ``functionCall`` and ``functionResponse``
parts."""

from __future__ import annotations

from typing import Any

from .. import _shape as shape
from .._errors import ProviderFormatError
from .._toolwire import ToolCall, decode_tool_calls
from .._types import Tool, ToolResult
from .base import (
    EMPTY_SCHEMA,
    Assistant,
    Codec,
    Message,
    Provider,
    ResultContent,
    Results,
    entries,
    json_text,
    messages_of,
    read_function,
)


class Gemini(Codec):
    name: Provider = "gemini"
    body_key = "candidates"
    body_path: tuple[str | int, ...] = ("candidates", 0, "content")
    native_errors = True

    def encode_tools(self, tools: list[Tool]) -> list[Message]:
        if not tools:
            return []
        return [{"functionDeclarations": [self.encode_tool(tool) for tool in tools]}]

    def encode_tool(self, tool: Tool) -> Message:
        declaration: Message = {"name": tool.name, "description": tool.description}
        # Gemini refuses an object schema with no properties; no `parameters` means none.
        if tool.parameters != EMPTY_SCHEMA:
            declaration["parameters"] = tool.parameters
        return declaration

    def decode_tools(self, wire: object) -> list[Tool]:
        tools = []
        for path, entry in entries(wire):
            if "functionDeclarations" not in entry:
                continue  # googleSearch, codeExecution, …
            where = shape.at(path, "functionDeclarations")
            for decl_path, declaration in entries(entry["functionDeclarations"], where):
                tools.append(
                    read_function(declaration, decl_path, "parameters", "parametersJsonSchema")
                )
        return tools

    def encode_calls(self, calls: list[ToolCall], content: str | None) -> Message:
        parts: list[Message] = [{"text": content}] if content else []
        parts.extend(
            {"functionCall": {"id": call.id, "name": call.name, "args": call.arguments}}
            for call in calls
        )
        return {"role": "model", "parts": parts}

    def encode_results(self, results: list[ToolResult], error_prefix: str | None) -> list[Message]:
        if not results:
            return []
        parts = []
        for result in results:
            response: Message = {}
            if result.tool_call_id is not None:
                response["id"] = result.tool_call_id
            if result.name is not None:
                response["name"] = result.name
            # Gemini reads `output` as the result and `error` as a failure.
            response["response"] = {"error" if result.is_error else "output": result.content}
            parts.append({"functionResponse": response})
        return [{"role": "user", "parts": parts}]

    def decode_results(self, messages: object) -> list[ToolResult]:
        results = []
        for path, message in messages_of(messages):
            if "parts" not in message:
                continue
            for where, part in entries(message["parts"], shape.at(path, "parts")):
                if "functionResponse" not in part:
                    continue
                where = shape.at(where, "functionResponse")
                response = shape.want_mapping(part["functionResponse"], where)
                payload = shape.want_mapping(
                    response.get("response", {}), shape.at(where, "response")
                )
                content: Any = dict(payload)
                is_error = False
                if len(payload) == 1 and ("output" in payload or "error" in payload):
                    is_error = "error" in payload
                    content = next(iter(payload.values()))
                results.append(
                    ToolResult(
                        tool_call_id=shape.optional_str(response.get("id"), shape.at(where, "id")),
                        name=shape.optional_str(response.get("name"), shape.at(where, "name")),
                        content=_gemini_content(content, shape.at(where, "response")),
                        is_error=is_error,
                    )
                )
        return results

    def read_turn(self, message: object) -> Assistant | Results:
        message = shape.want_mapping(message, "")
        if message.get("role") == "model":
            calls = decode_tool_calls(message, self.name)
            texts = [
                shape.want_str(part["text"], shape.at(path, "text"))
                for path, part in entries(shape.member(message, "parts", ""), "parts")
                if "text" in part and part.get("thought") is not True
            ]
            return Assistant("".join(texts) or None, [c for c in calls if isinstance(c, ToolCall)])
        results = self.decode_results(message)
        if results:
            texts = [
                shape.want_str(part["text"], shape.at(path, "text"))
                for path, part in entries(shape.member(message, "parts", ""), "parts")
                if "text" in part
            ]
            return Results(results, "".join(texts) or None)
        raise ProviderFormatError(
            "expected a model Content or a Content with functionResponse parts", path="parts"
        )

    def with_user_text(self, messages: list[Message], text: str) -> list[Message]:
        if not messages:
            return [{"role": "user", "parts": [{"text": text}]}]
        *before, last = messages
        return [*before, {**last, "parts": [*last["parts"], {"text": text}]}]


def _gemini_content(value: object, path: str) -> ResultContent:
    """Gemini results hold any JSON; scalars other than strings become JSON text."""
    if isinstance(value, str | list | dict):
        return value
    return json_text(value, f"the result at {path}")
