"""An Anthropic Messages request as the OpenAI Chat Completions request the upstream serves.

Messages, tools and tool results go through toolwire's codecs; the sampling fields map one to
one. Fields with no Chat Completions counterpart (``metadata``, ``top_k``, …) are dropped.
"""

from __future__ import annotations

from typing import Any

import toolwire


def chat_request(messages_request: dict[str, Any]) -> dict[str, Any]:
    """The Chat Completions body for ``messages_request`` (a Messages API body)."""
    body: dict[str, Any] = {"model": messages_request.get("model"), "messages": []}
    system = messages_request.get("system")
    if system:
        body["messages"].append({"role": "system", "content": _text(system)})
    for message in messages_request.get("messages", []):
        body["messages"].extend(_chat_messages(message))
    if messages_request.get("tools"):
        tools = toolwire.decode_tools(messages_request["tools"], "anthropic")
        body["tools"] = toolwire.encode_tools(tools, "openai")
    choice = messages_request.get("tool_choice")
    if choice:
        body["tool_choice"] = _tool_choice(choice)
        if choice.get("disable_parallel_tool_use"):
            body["parallel_tool_calls"] = False
    for messages_name, chat_name in _SAME_MEANING:
        if messages_name in messages_request:
            body[chat_name] = messages_request[messages_name]
    return body


_SAME_MEANING = (
    ("max_tokens", "max_tokens"),
    ("temperature", "temperature"),
    ("top_p", "top_p"),
    ("stop_sequences", "stop"),
    ("stream", "stream"),
)


def _text(content: str | list[dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if block.get("type") == "text")


def _chat_messages(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if message.get("role") != "user":
        return list(toolwire.convert_message(message, "anthropic", "openai"))
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    # A user turn may hold tool results and text: the results become tool messages, and the
    # text a user message after them.
    results = [block for block in content or () if block.get("type") == "tool_result"]
    converted = []
    if results:
        converted = list(
            toolwire.convert_message({"role": "user", "content": results}, "anthropic", "openai")
        )
    text = _text([block for block in content or () if block.get("type") == "text"])
    if text or not results:
        converted.append({"role": "user", "content": text})
    return converted


def _tool_choice(choice: dict[str, Any]) -> Any:
    kind = choice.get("type")
    if kind == "tool":
        return {"type": "function", "function": {"name": choice["name"]}}
    return {"any": "required", "none": "none"}.get(kind, "auto")
