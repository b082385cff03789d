"""Benchmark baseline: toolwire's former pure-Python stream accumulators (docs/codecs.md), replaced
by the Rust ones. OpenAI Chat Completions chunks and Anthropic Messages events → the stream events,
the final calls and the text.

The provider already separates text from calls, so this is bookkeeping, not parsing: argument
pieces are kept in a list and joined and decoded once, by the Rust decoder, when the call ends
(linear in the stream's size).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from toolwire._errors import ArgumentsError, ProviderFormatError
from toolwire._toolwire import (
    InvalidToolCall,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    decode_arguments,
    dumps_compact,
    loads,
    new_call_id,
)

__all__ = ["AnthropicStreamAccumulator", "OpenAIStreamAccumulator"]

Event: TypeAlias = (
    TextDelta | ReasoningDelta | ToolCallStart | ToolCallDelta | ToolCallEnd | InvalidToolCall
)

_DONE = object()


def _payload(item: Mapping[str, Any] | str | bytes | bytearray) -> Any:
    """A chunk dict, from a dict or from SSE text (``data:`` lines, or bare JSON); ``None`` for
    text with no data (a comment, an ``event:`` line alone), ``_DONE`` for ``[DONE]``."""
    if isinstance(item, Mapping):
        return item
    if isinstance(item, bytes | bytearray):
        try:
            item = bytes(item).decode("utf-8")
        except UnicodeDecodeError as error:
            raise ProviderFormatError(f"a stream item is not UTF-8: {error}") from None
    if not isinstance(item, str):
        raise ProviderFormatError(
            f"a stream item must be a dict or SSE text, not {type(item).__name__}"
        )
    lines = item.strip().splitlines()
    data = [line[5:].removeprefix(" ") for line in lines if line.startswith("data:")]
    if not data:
        if any(line.startswith((":", "event:", "id:", "retry:")) for line in lines):
            return None
        data = lines
    text = "\n".join(data).strip()
    if not text:
        return None
    if text == "[DONE]":
        return _DONE
    try:
        chunk = loads(text)
    except ValueError as error:
        raise ProviderFormatError(f"a stream item is not JSON: {error}") from None
    if not isinstance(chunk, Mapping):
        raise ProviderFormatError(f"a stream item must be a JSON object, not {text[:40]!r}")
    return chunk


class _Call:
    """One call being received."""

    __slots__ = ("args", "id", "index", "name", "pieces", "started")

    def __init__(self, index: int, call_id: str | None) -> None:
        self.index = index
        self.id = call_id
        self.name: str | None = None
        self.pieces: list[str] = []
        # Set once a ToolCallStart has been sent; pieces before it are sent with it.
        self.started = False
        # An arguments object sent whole (not as text).
        self.args: Mapping[str, Any] | None = None


class _Accumulator:
    """What both accumulators share: call bookkeeping, id rules, events, the final decode."""

    def __init__(self) -> None:
        self._count = 0
        self._open: dict[int, _Call] = {}
        self._ids: set[str] = set()
        self._content: list[str] = []
        self._reasoning: list[str] | None = None
        self._done: list[ToolCall] = []
        self._invalid: list[InvalidToolCall] = []
        self._finished = False

    @property
    def content(self) -> str:
        """The text received so far."""
        return "".join(self._content)

    @property
    def reasoning(self) -> str | None:
        """The reasoning (thinking) text received so far, or None if there was none."""
        return None if self._reasoning is None else "".join(self._reasoning)

    @property
    def calls(self) -> list[ToolCall]:
        """The calls ended so far (all of them after :meth:`finish`), in order."""
        return list(self._done)

    @property
    def invalid_calls(self) -> list[InvalidToolCall]:
        """The calls whose arguments were not a JSON object, or that had no name."""
        return list(self._invalid)

    def finish(self) -> list[Event]:
        """End the stream: ends every open call; returns the events that produces."""
        events: list[Event] = []
        for call in list(self._open.values()):
            self._end(call, events)
        self._finished = True
        return events

    def _text(self, text: Any, events: list[Event]) -> None:
        if isinstance(text, str) and text:
            self._content.append(text)
            events.append(TextDelta(text))

    def _thinking(self, text: Any, events: list[Event]) -> None:
        if isinstance(text, str) and text:
            if self._reasoning is None:
                self._reasoning = []
            self._reasoning.append(text)
            events.append(ReasoningDelta(text))

    def _new_call(self, call_id: Any) -> _Call:
        call = _Call(self._count, call_id if isinstance(call_id, str) and call_id else None)
        self._count += 1
        self._open[call.index] = call
        return call

    def _update(self, call: _Call, name: Any, arguments: Any, events: list[Event]) -> None:
        """Applies a fragment: a name (the first one counts), then an arguments piece."""
        if call.name is None and isinstance(name, str) and name:
            call.name = name
        if isinstance(arguments, Mapping):
            if arguments:
                call.args = arguments
        elif isinstance(arguments, str) and arguments:
            call.pieces.append(arguments)
            if call.started:
                events.append(ToolCallDelta(call.index, arguments))
        if not call.started and call.name is not None:
            call.started = True
            call.id = self._claim(call.id)
            events.append(ToolCallStart(call.index, call.id, call.name))
            if call.pieces:
                events.append(ToolCallDelta(call.index, "".join(call.pieces)))

    def _claim(self, call_id: str | None) -> str:
        """The call's id: its own, unless absent or already used in this response."""
        if call_id is None or call_id in self._ids:
            call_id = new_call_id()
        self._ids.add(call_id)
        return call_id

    def _end(self, call: _Call, events: list[Event]) -> None:
        del self._open[call.index]
        text = "".join(call.pieces)
        if call.args is not None and not text:
            # A whole arguments object: its compact JSON is the arguments text.
            text = dumps_compact(call.args)
            if call.started:
                events.append(ToolCallDelta(call.index, text))
        if call.name is None:
            self._fail(call, text, "tool call has no name", events)
            return
        try:
            arguments = decode_arguments(text)
        except ArgumentsError as error:
            self._fail(call, text, f"invalid arguments of tool call {call.index}: {error}", events)
            return
        done = ToolCall(call.id, call.name, arguments)
        self._done.append(done)
        events.append(ToolCallEnd(call.index, done))

    def _fail(self, call: _Call, raw: str, error: str, events: list[Event]) -> None:
        invalid = InvalidToolCall(raw, error, "native", call.index, None, call.name)
        self._invalid.append(invalid)
        events.append(invalid)


class OpenAIStreamAccumulator(_Accumulator):
    """Accumulates an OpenAI Chat Completions stream (``chat.completion.chunk`` objects).

    Feed each chunk as a dict or as the text of its SSE ``data:`` line (``[DONE]`` ends the
    stream); each ``feed`` returns the stream events the chunk completes. Calls are told apart by
    ``index``; a new ``id`` at an index already in use starts a new call (servers that reuse
    index 0), fragments without ``index`` go to the latest call (or start one when they bring a
    new ``id`` or a second name), and a call may come whole in one fragment. Calls end when the
    choice reports a ``finish_reason``, at ``[DONE]`` or at :meth:`finish`. Only choice 0 is
    read.

    """

    def __init__(self) -> None:
        super().__init__()
        # The server's index → the call it currently names.
        self._by_index: dict[int, _Call] = {}
        self._last: _Call | None = None

    def feed(self, chunk: Mapping[str, Any] | str | bytes) -> list[Event]:
        """Feed one chunk (a dict, or SSE ``data:`` text); returns the events it completes."""
        payload = _payload(chunk)
        if payload is _DONE:
            return self.finish()
        events: list[Event] = []
        if payload is None or self._finished:
            return events
        choices = payload.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, Mapping):
                self._thinking(delta.get("reasoning_content") or delta.get("reasoning"), events)
                self._text(delta.get("content"), events)
                fragments = delta.get("tool_calls")
                for fragment in fragments if isinstance(fragments, list) else ():
                    if isinstance(fragment, Mapping):
                        self._fragment(fragment, events)
            if choice.get("finish_reason"):
                events.extend(self.finish())
        return events

    def _fragment(self, fragment: Mapping[str, Any], events: list[Event]) -> None:
        function = fragment.get("function")
        function = function if isinstance(function, Mapping) else {}
        name, arguments = function.get("name"), function.get("arguments")
        call_id = fragment.get("id")
        index = fragment.get("index")
        call = self._by_index.get(index) if isinstance(index, int) else self._last
        new_id = isinstance(call_id, str) and call_id != "" and call_id != getattr(call, "id", None)
        # Without an index, a second name is the only sign of a new call from a server that
        # sends no ids either.
        second_name = index is None and bool(name) and call is not None and call.name is not None
        if call is None or (new_id and call.id is not None) or (second_name and not new_id):
            if call is not None and call.index in self._open:
                # The server moved on to a new call (reusing the index, or sending none).
                self._end(call, events)
            call = self._new_call(call_id)
        elif new_id and not call.started:
            call.id = call_id
        if isinstance(index, int):
            self._by_index[index] = call
        self._last = call
        if call.index in self._open:
            self._update(call, name, arguments, events)


class AnthropicStreamAccumulator(_Accumulator):
    """Accumulates an Anthropic Messages stream (``message_start``, ``content_block_start``,
    ``content_block_delta``, ``content_block_stop``, ``message_delta``, ``message_stop``, …).

    Feed each event as a dict or as its SSE text (``event:``/``data:`` lines, or the JSON of
    ``data``); each ``feed`` returns the stream events it completes. A ``tool_use`` block's
    ``input_json_delta`` pieces are its arguments; its ``content_block_stop`` ends it (an empty
    input is ``{}``, an ``input`` sent whole in ``content_block_start`` is used as is). Text
    blocks give ``TextDelta``, thinking blocks ``ReasoningDelta``.

    """

    def __init__(self) -> None:
        super().__init__()
        # The content block index → its call.
        self._blocks: dict[int, _Call] = {}
        self._last: _Call | None = None

    def feed(self, event: Mapping[str, Any] | str | bytes) -> list[Event]:
        """Feed one event (a dict, or SSE text); returns the events it completes."""
        payload = _payload(event)
        if payload is _DONE:
            return self.finish()
        events: list[Event] = []
        if payload is None or self._finished:
            return events
        kind = payload.get("type")
        if kind == "message_stop":
            return self.finish()
        index = payload.get("index")
        call = self._blocks.get(index) if isinstance(index, int) else self._last
        if kind == "content_block_start":
            block = payload.get("content_block")
            block = block if isinstance(block, Mapping) else {}
            if block.get("type") in ("tool_use", "server_tool_use"):
                call = self._new_call(block.get("id"))
                if isinstance(index, int):
                    self._blocks[index] = call
                self._last = call
                self._update(call, block.get("name"), block.get("input"), events)
            else:
                self._text(block.get("text"), events)
                self._thinking(block.get("thinking"), events)
        elif kind == "content_block_delta":
            delta = payload.get("delta")
            delta = delta if isinstance(delta, Mapping) else {}
            if delta.get("type") == "input_json_delta":
                if call is not None and call.index in self._open:
                    self._update(call, None, delta.get("partial_json"), events)
            else:
                self._text(delta.get("text"), events)
                self._thinking(delta.get("thinking"), events)
        elif kind == "content_block_stop" and call is not None and call.index in self._open:
            self._end(call, events)
        return events
