"""One model message read by toolwire's stream engine, in the terms an engine's tool parser
speaks: plain content, and per call an id and a name once, then pieces of argument text.

Both engine adapters use it for streaming (:class:`MessageReader`, fed each new piece of text
once: nothing already fed is read again) and for whole messages (:func:`read_message`, the same
reader fed once), so the two paths always agree.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeAlias

from .._toolwire import StreamParser, dumps_compact

if TYPE_CHECKING:
    from .._toolwire import FormatSpec

__all__ = [
    "CallPiece",
    "MessageReader",
    "ParsedMessage",
    "Step",
    "UnknownTools",
    "read_message",
    "tool_names",
]

logger = logging.getLogger("toolwire.integrations")

UnknownTools: TypeAlias = Literal["keep", "drop"]
"""What a call to a tool the request did not offer becomes: sent as written (``"keep"``) or
left out with a warning in the log (``"drop"``)."""

_UNKNOWN_TOOLS = ("keep", "drop")


class CallPiece(NamedTuple):
    """Part of one call: ``id`` and ``name`` on its first piece only, then argument text."""

    call: int  # the call's index in the message
    id: str | None
    name: str | None
    arguments: str


class Step(NamedTuple):
    """What one piece of model text gives: content to show and call pieces, in order."""

    content: str
    calls: list[CallPiece]


class ParsedMessage(NamedTuple):
    """A whole message: its content and its calls as ``(id, name, arguments JSON text)``."""

    content: str
    calls: list[tuple[str, str, str]]


def tool_names(tools: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """The names of tool definitions, flat or in the OpenAI ``{"function": {...}}`` wrapper."""
    names = set()
    for tool in tools:
        function = tool.get("function")
        name = (function if isinstance(function, Mapping) else tool).get("name")
        if isinstance(name, str):
            names.add(name)
    return frozenset(names)


class MessageReader:
    """Reads one message's text, piece by piece, into :class:`Step` s.

    Args:
        formats: toolwire format names to read (``"auto"``: every format), as for
            :class:`toolwire.StreamParser`.
        tools: the request's tool definitions (any shape ``Tool.from_dict`` reads); they type
            qwen3_coder and glm45 parameter values.
        allowed: names of the tools the model may call; ``None`` allows every name.
        unknown_tools: ``"keep"`` (default) or ``"drop"`` a call whose name is not allowed.
        whole: the text is a whole message (:func:`read_message`): a call that turns out
            broken after its start is taken back and its raw text becomes content. While
            streaming, its start and the arguments before the break have already gone out.

    Think spans stay in the content, tags and all (an engine separates reasoning with its own
    reasoning parser, which then keeps them from the tool parser). A call whose arguments the
    model wrote as a JSON string (double-encoded) is sent when it ends, as the compact JSON of
    the decoded object, since a client reads ``arguments`` as an object's text. A broken call
    is logged with its error; its raw text becomes content when nothing of it was sent.
    """

    def __init__(
        self,
        formats: FormatSpec = "auto",
        *,
        tools: Sequence[Any] | None = None,
        allowed: frozenset[str] | None = None,
        unknown_tools: UnknownTools = "keep",
        whole: bool = False,
    ) -> None:
        if unknown_tools not in _UNKNOWN_TOOLS:
            raise ValueError(f"unknown_tools must be 'keep' or 'drop', not {unknown_tools!r}")
        self._parser = StreamParser(formats=formats, tools=tools or None, on_error="keep")
        self._allowed = allowed
        self._drop_unknown = unknown_tools == "drop"
        self._whole = whole
        self._in_think = False
        self._out: dict[int, int] = {}  # toolwire's call index -> the engine's call index
        self._dropped: set[int] = set()
        self._held: set[int] = set()  # calls whose arguments are a JSON string
        self._sent: set[int] = set()  # calls some argument text of which was sent
        self.broken: set[int] = set()  # engine indices of calls taken back (whole messages)

    def feed(self, text: str) -> Step:
        """The content and call pieces ``text`` (the next piece of the message) completes."""
        return self._step(self._parser.feed(text))

    def finish(self) -> Step:
        """End the message: what was held back (a possible marker, an unterminated call)."""
        return self._step(self._parser.finish())

    def _step(self, events: Sequence[Any]) -> Step:
        content: list[str] = []
        calls: list[CallPiece] = []
        for event in events:
            kind = event.kind
            if kind == "text_delta":
                if self._in_think:
                    content.append("</think>")
                    self._in_think = False
                content.append(event.text)
            elif kind == "reasoning_delta":
                if not self._in_think:
                    content.append("<think>")
                    self._in_think = True
                content.append(event.text)
            elif kind == "tool_call_start":
                self._start(event, calls)
            elif kind == "tool_call_delta":
                self._arguments(event.index, event.arguments, calls)
            elif kind == "tool_call_end":
                self._end(event.index, event.call, calls)
            else:
                self._broken(event, content)
        return Step("".join(content), calls)

    def _start(self, event: Any, calls: list[CallPiece]) -> None:
        if self._drop_unknown and self._allowed is not None and event.name not in self._allowed:
            self._dropped.add(event.index)
            return
        index = self._out[event.index] = len(self._out)
        calls.append(CallPiece(index, event.id, event.name, ""))

    def _arguments(self, index: int, text: str, calls: list[CallPiece]) -> None:
        if index in self._dropped or index in self._held:
            return
        if index not in self._sent:
            if text.lstrip().startswith('"'):
                self._held.add(index)
                return
            self._sent.add(index)
        _append(calls, self._out[index], text)

    def _end(self, index: int, call: Any, calls: list[CallPiece]) -> None:
        if index in self._dropped:
            logger.warning(
                "dropped a call to %r, a tool the request does not offer (arguments %s)",
                call.name,
                dumps_compact(call.arguments),
            )
            return
        if index in self._held or index not in self._sent:
            _append(calls, self._out[index], dumps_compact(call.arguments))

    def _broken(self, invalid: Any, content: list[str]) -> None:
        logger.warning("tool call not read: %s; raw text %r", invalid.error, invalid.raw)
        index = self._out.get(invalid.index)
        if invalid.index in self._dropped:
            return
        if index is None or self._whole:
            content.append(invalid.raw)
        if index is not None and self._whole:
            self.broken.add(index)


def _append(calls: list[CallPiece], index: int, arguments: str) -> None:
    if calls and calls[-1].call == index:
        last = calls[-1]
        calls[-1] = last._replace(arguments=last.arguments + arguments)
    else:
        calls.append(CallPiece(index, None, None, arguments))


def read_message(
    text: str,
    formats: FormatSpec = "auto",
    *,
    tools: Sequence[Any] | None = None,
    allowed: frozenset[str] | None = None,
    unknown_tools: UnknownTools = "keep",
) -> ParsedMessage:
    """A whole message's content and calls, by a :class:`MessageReader` fed it once (the
    arguments are the model's own text, as streaming sends them)."""
    reader = MessageReader(
        formats, tools=tools, allowed=allowed, unknown_tools=unknown_tools, whole=True
    )
    steps = [reader.feed(text), reader.finish()]
    ids: dict[int, str] = {}
    names: dict[int, str] = {}
    arguments: dict[int, list[str]] = {}
    for piece in (piece for step in steps for piece in step.calls):
        if piece.id is not None and piece.name is not None:
            ids[piece.call], names[piece.call] = piece.id, piece.name
        arguments.setdefault(piece.call, []).append(piece.arguments)
    calls = [
        (ids[index], names[index], "".join(arguments[index]))
        for index in sorted(ids)
        if index not in reader.broken
    ]
    return ParsedMessage("".join(step.content for step in steps), calls)
