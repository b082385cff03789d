"""What the tool loop reads from one provider answer: a whole response, or a stream of provider
chunks/events or of model text, turned into the same :class:`Reply`."""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._history import plain
from ._toolwire import (
    AnthropicStreamAccumulator,
    GeminiStreamAccumulator,
    InvalidToolCall,
    OllamaStreamAccumulator,
    OpenAIStreamAccumulator,
    ResponsesStreamAccumulator,
    StreamParser,
    ToolCall,
    ToolCallEnd,
    extract,
)

if TYPE_CHECKING:
    from ._toolwire import Event

__all__ = ["Reply", "StreamReader", "is_async_stream", "is_stream", "read_whole"]

# The accumulator of each provider's stream events.
_ACCUMULATORS: dict[str, Any] = {
    "openai": OpenAIStreamAccumulator,
    "anthropic": AnthropicStreamAccumulator,
    "openai_responses": ResponsesStreamAccumulator,
    "gemini": GeminiStreamAccumulator,
    "ollama": OllamaStreamAccumulator,
}


@dataclass
class Reply:
    """One provider answer, read.

    ``response`` is what the provider gave (for a stream, the list of its items); ``calls``
    the calls to run; ``text`` the answer's text; ``structured``: the calls came from the
    provider's own call channel, so the text is kept beside them (text-written calls replace
    their markup); ``quoted``: how many text-written calls the native policy did not read;
    ``error``: the stream failed after ``calls`` (the ones already started) had begun to run.
    """

    response: Any
    calls: list[ToolCall | InvalidToolCall]
    text: str | None
    structured: bool
    quoted: int = 0
    error: BaseException | None = None
    # Set by the loop's driver: position in ``calls`` -> the run already started for it.
    started: dict[int, Any] = field(default_factory=dict)


def read_whole(response: Any, native_tool_calls: bool | None) -> Reply:
    """The calls and text of a whole response (a body, a ``{"text", "tool_calls"}`` mapping,
    text, or an SDK object with ``model_dump``). A provider body is native unless
    ``native_tool_calls`` says otherwise; text and the neutral mapping are not."""
    body = plain(response)
    text, structured, is_body = _response_text(body)
    native = is_body if native_tool_calls is None else native_tool_calls
    calls = extract(body, on_error="keep", native_tool_calls=native)
    return Reply(response, calls, text, structured, _quoted(calls, text, native))


def is_stream(answer: Any) -> bool:
    """A sync stream: an iterator (a generator, an SDK stream), not text, a body or a list."""
    return isinstance(answer, Iterator) and not isinstance(answer, str | bytes | Mapping)


def is_async_stream(answer: Any) -> bool:
    return isinstance(answer, AsyncIterator)


class StreamReader:
    """Reads one streamed answer: ``feed`` each item (get the events it completes), then
    ``finish`` and take the :meth:`reply`.

    Items that are mappings (or SDK objects) are ``provider_format``'s chunks or events, read
    by that provider's accumulator; ``str``/``bytes`` items are model text, read by a
    :class:`StreamParser` (bytes may split a UTF-8 character). The same policy as for whole
    answers decides which text-written calls count.
    """

    def __init__(self, provider_format: str, native_tool_calls: bool | None) -> None:
        self._format = provider_format
        self._policy = native_tool_calls
        self._items: list[Any] = []
        self._decoder: Any = None
        self._text: list[str] | None = None  # set for a text stream
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self._calls: list[ToolCall | InvalidToolCall] = []
        # id(event) -> (the ToolCallEnd event, its call's position); the event is held so
        # that its id is not reused.
        self._positions: dict[int, tuple[Event, int]] = {}

    @property
    def calls(self) -> list[ToolCall | InvalidToolCall]:
        """The calls read so far, in order."""
        return list(self._calls)

    def position(self, event: Event) -> int | None:
        """Where the call a ``tool_call_end`` event ended stands among :attr:`calls`."""
        entry = self._positions.get(id(event))
        return entry[1] if entry is not None and entry[0] is event else None

    def feed(self, item: Any) -> list[Event]:
        self._items.append(item)
        item = plain(item)
        if self._decoder is None:
            self._decoder = self._start(item)
        if self._text is None:
            return self._read(self._decoder.feed(item))
        if isinstance(item, bytes | bytearray):
            self._text.append(self._utf8.decode(bytes(item)))
        elif isinstance(item, str):
            self._text.append(item)
        else:
            kind = type(item).__name__
            raise TypeError(f"a text stream's items must be str or bytes, not {kind}")
        return self._read(self._decoder.feed(item))

    def finish(self) -> list[Event]:
        if self._decoder is None:
            return []
        events = self._read(self._decoder.finish())
        if self._text is not None:
            self._text.append(self._utf8.decode(b"", final=True))
        return events

    def reply(self, error: BaseException | None = None) -> Reply:
        """The answer as read (after :meth:`finish`); with ``error``, the stream failed."""
        if self._text is not None or self._decoder is None:
            text = "".join(self._text or ())
            quoted = 0 if error else _quoted(self._calls, text, bool(self._policy))
            return Reply(self._items, self.calls, text, False, quoted, error)
        content = self._decoder.content or None
        if self._calls or error is not None:
            return Reply(self._items, self.calls, content, True, error=error)
        native = self._policy is not False
        calls = extract(content, on_error="keep", native_tool_calls=native) if content else []
        return Reply(self._items, calls, content, False, _quoted(calls, content, native))

    def _start(self, item: Any) -> Any:
        """The decoder for a stream whose first item is ``item``."""
        if isinstance(item, str | bytes | bytearray):
            self._text = []
            return StreamParser(formats=["text_tagged"]) if self._policy else StreamParser()
        return _ACCUMULATORS[self._format]()

    def _read(self, events: list[Event]) -> list[Event]:
        for event in events:
            if isinstance(event, InvalidToolCall):
                self._calls.append(event)
            elif isinstance(event, ToolCallEnd):
                self._positions[id(event)] = (event, len(self._calls))
                self._calls.append(event.call)
        return events


def _quoted(calls: list[Any], text: str | None, native: bool) -> int:
    """The text-written calls a native answer without calls holds: the policy left them out."""
    if not native or calls or not text:
        return 0
    return len(extract(text, on_error="keep"))


def _response_text(response: Any) -> tuple[str | None, bool, bool]:
    """The text of a response (the shapes of docs/parsing.md), whether it carries structured calls,
    and whether it is a provider body."""
    if isinstance(response, str):
        return response, False, False
    if not isinstance(response, Mapping):
        return None, False, False
    choices = response.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        message = choices[0].get("message") or {}
        return _text_or_none(message.get("content")), bool(message.get("tool_calls")), True
    content = response.get("content")
    if isinstance(content, list):  # Anthropic Messages
        texts = [
            b.get("text", "") for b in content if isinstance(b, Mapping) and b.get("type") == "text"
        ]
        uses = any(isinstance(b, Mapping) and b.get("type") == "tool_use" for b in content)
        return ("".join(texts) if texts else None), uses, True
    output = response.get("output")
    if isinstance(output, list):  # OpenAI Responses
        texts = [
            part.get("text", "")
            for item in output
            if isinstance(item, Mapping) and item.get("type") == "message"
            for part in item.get("content") or []
            if isinstance(part, Mapping) and part.get("type") == "output_text"
        ]
        calls = any(isinstance(i, Mapping) and i.get("type") == "function_call" for i in output)
        return ("".join(texts) if texts else None), calls, True
    candidates = response.get("candidates")
    if isinstance(candidates, list) and candidates and isinstance(candidates[0], Mapping):
        parts = (candidates[0].get("content") or {}).get("parts") or []  # Gemini
        texts = [
            p["text"] for p in parts if isinstance(p, Mapping) and isinstance(p.get("text"), str)
        ]
        calls = any(isinstance(p, Mapping) and "functionCall" in p for p in parts)
        return ("".join(texts) if texts else None), calls, True
    message = response.get("message")
    if isinstance(message, Mapping):  # Ollama /api/chat
        return _text_or_none(message.get("content")), bool(message.get("tool_calls")), True
    return _text_or_none(response.get("text")), bool(response.get("tool_calls")), False


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
