"""Pending calls: the calls of a conversation that no tool result answers yet."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._choice import check_one_of
from ._toolwire import ToolCall, decode_tool_calls
from ._types import ToolResult
from .codecs import PROVIDERS, Provider, decode_results

__all__ = ["pending_calls", "plain", "unanswered"]

# Where each provider puts the model's calls: the key and value that mark such a message.
_CALLER: dict[str, tuple[str, str]] = {
    "openai": ("role", "assistant"),
    "ollama": ("role", "assistant"),
    "anthropic": ("role", "assistant"),
    "gemini": ("role", "model"),
    "openai_responses": ("type", "function_call"),
}


def pending_calls(
    messages: Sequence[Any], *, provider_format: Provider = "openai"
) -> list[ToolCall]:
    """The calls of a conversation that no tool result answers, in the order they were made.

    ``messages`` is a history in ``provider_format`` (dicts, or SDK objects with
    ``model_dump``; other objects are skipped). A result answers the call with its id (the
    reference's rule). A call written without an id (Ollama writes none; Gemini's is optional)
    is listed with a generated id, as every call toolwire reads; a result without an id
    answers the earliest unanswered call of its name made before it (or the earliest
    unanswered call when it has no name either), which is how such calls are matched. A call
    whose arguments cannot be read is not listed: it cannot be run. A malformed call or
    result message raises :class:`ProviderFormatError` naming the message.

    >>> history = [
    ...     {"role": "user", "content": "Weather in Oslo?"},
    ...     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type":
    ...         "function", "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}}]},
    ... ]
    >>> pending_calls(history)
    [ToolCall(id='c1', name='get_weather', arguments={'city': 'Oslo'})]
    >>> pending_calls([*history, {"role": "tool", "tool_call_id": "c1", "content": "sunny"}])
    []
    """
    return [call for _, call in unanswered(messages, provider_format)]


def unanswered(messages: Sequence[Any], provider_format: str) -> list[tuple[int, ToolCall]]:
    """Each pending call with the index where its result belongs: after the message that made
    it and the call and result messages that follow it."""
    fmt = check_one_of("provider_format", provider_format, PROVIDERS)
    key, value = _CALLER[fmt]
    waiting: list[tuple[int, ToolCall]] = []
    turn_parts: list[bool] = []  # per message: it holds calls or results
    for index, message in enumerate(messages):
        message = plain(message)
        if not isinstance(message, Mapping):
            turn_parts.append(False)
            continue
        results = decode_results(message, fmt)
        for result in results:
            _answer(waiting, result)
        calls: list[ToolCall] = []
        if message.get(key) == value:
            # A Responses item is read as the list of items it belongs to.
            wire = [message] if fmt == "openai_responses" else message
            found = decode_tool_calls(wire, fmt, on_error="keep")
            calls = [c for c in found if isinstance(c, ToolCall)]
        waiting.extend((index, call) for call in calls)
        turn_parts.append(bool(results or calls))
    placed = []
    for index, call in waiting:
        after = index + 1
        while after < len(turn_parts) and turn_parts[after]:
            after += 1
        placed.append((after, call))
    return placed


def _answer(waiting: list[tuple[int, ToolCall]], result: ToolResult) -> None:
    """Removes the call ``result`` answers from ``waiting``."""
    for position, (_, call) in enumerate(waiting):
        if result.tool_call_id is not None:
            answers = call.id == result.tool_call_id
        else:
            answers = result.name is None or call.name == result.name
        if answers:
            del waiting[position]
            return


def plain(message: Any) -> Any:
    """A message, body or stream item as a mapping: SDK objects (pydantic models) are dumped;
    anything else is returned as it is."""
    if isinstance(message, Mapping):
        return message
    dump = getattr(message, "model_dump", None)
    return dump(exclude_none=True) if callable(dump) else message
