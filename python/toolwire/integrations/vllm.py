"""toolwire as vLLM tool parsers: ``toolwire_auto`` (every format, sniffed) and
``toolwire_<format>`` for each name of :data:`toolwire.FORMAT_NAMES` and each peer's name of
:data:`toolwire.FORMAT_ALIASES` (``toolwire_xlam`` reads what vLLM's xLAM parser reads: raw JSON,
mistral and hermes).

Serve with::

    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-parser-plugin toolwire.integrations.vllm --tool-call-parser toolwire_hermes

Importing this module registers the parsers with vLLM's ``ToolParserManager`` (vLLM imports
the plugin by module name). The parsers are ``ToolParser`` subclasses giving vLLM's own
``ExtractedToolCallInformation`` and ``DeltaMessage``.

- **Streaming** reads each ``delta_text`` once with one :class:`toolwire.StreamParser` per
  request; ``previous_text``/``current_text`` are never read. The parsers declare
  ``engine_based_streaming``, so vLLM (0.2x and later) passes only the new text and calls
  :meth:`ToolwireToolParser.finish_streaming` at the end of the stream: held text (a possible
  marker) and an unterminated last call are flushed then. vLLM versions without that hook
  never tell a tool parser that the stream ended; there, text held at the very end (at most
  one marker's length) and a last call missing its closing tag are lost.
- **Requests**: a request without ``tools``, or with ``tool_choice="none"``, gets its text
  back as content (calls were not offered, so markup is prose). ``tools`` type qwen3_coder and
  glm45 values. A call to a tool the request does not offer is kept (vLLM's own parsers do the
  same); a subclass with ``unknown_tools = "drop"`` leaves it out, with a warning in the log.
  ``tool_choice="required"`` or a named function is vLLM's: it constrains the output to JSON
  and reads it itself. Output rules (think spans, double-encoded arguments, broken calls) are
  :class:`toolwire.integrations._message.MessageReader`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

from .._toolwire import FORMAT_ALIASES, FORMAT_NAMES
from ._message import MessageReader, Step, UnknownTools, read_message, tool_names

if TYPE_CHECKING:
    from .._toolwire import FormatSpec

__all__ = ["PARSERS", "ToolwireToolParser"]


class _Reading:
    """How a request's text is read: not at all (``tools`` is None), or with these tools."""

    def __init__(self, request: Any) -> None:
        tools = getattr(request, "tools", None)
        choice = getattr(request, "tool_choice", None)
        if request is not None and (not tools or choice == "none"):
            self.tools: list[dict[str, Any]] | None = None
            self.allowed: frozenset[str] | None = None
            return
        self.tools = [tool.model_dump(exclude_none=True) for tool in tools or ()]
        named = getattr(getattr(choice, "function", None), "name", None)
        self.allowed = frozenset([named]) if named else tool_names(self.tools) or None


class ToolwireToolParser(ToolParser):  # type: ignore[misc]  # vLLM is untyped here
    """A vLLM ``ToolParser`` reading :attr:`formats` with toolwire's stream engine."""

    formats: ClassVar[FormatSpec] = "auto"
    unknown_tools: ClassVar[UnknownTools] = "keep"
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, tools: Sequence[Any] | None = None) -> None:
        super().__init__(tokenizer, tools)
        self._request: Any = None
        self._reader: MessageReader | None = None

    def adjust_request(self, request: Any) -> Any:
        """vLLM's adjustment, and special tokens kept in the text: several formats' markers
        (Kimi-K2, DeepSeek, Mistral ``[TOOL_CALLS]``) are special tokens."""
        request = super().adjust_request(request)
        if request.tools and request.tool_choice != "none":
            request.skip_special_tokens = False
        return request

    def extract_tool_calls(self, model_output: str, request: Any) -> Any:
        """The calls and content of a whole model output."""
        reading = _Reading(request)
        if reading.tools is None:
            return ExtractedToolCallInformation(
                tools_called=False, tool_calls=[], content=model_output
            )
        message = read_message(
            model_output,
            self.formats,
            tools=reading.tools,
            allowed=reading.allowed,
            unknown_tools=self.unknown_tools,
        )
        calls = [
            ToolCall(id=call_id, function=FunctionCall(name=name, arguments=arguments))
            for call_id, name, arguments in message.calls
        ]
        return ExtractedToolCallInformation(
            tools_called=bool(calls), tool_calls=calls, content=message.content or None
        )

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> Any:
        """The delta for ``delta_text``, the next piece of the output (the only text read)."""
        if request is not self._request or self._reader is None:
            self._start(request)
        if self._reader is None:
            return DeltaMessage(content=delta_text) if delta_text else None
        return _delta(self._reader.feed(delta_text))

    def finish_streaming(self) -> Any:
        """vLLM's end-of-stream hook: flush what the reader holds."""
        reader, self._reader = self._reader, None
        return None if reader is None else _delta(reader.finish())

    def _start(self, request: Any) -> None:
        reading = _Reading(request)
        self._request = request
        self._reader = None
        if reading.tools is not None:
            self._reader = MessageReader(
                self.formats,
                tools=reading.tools,
                allowed=reading.allowed,
                unknown_tools=self.unknown_tools,
            )


def _delta(step: Step) -> Any:
    if not step.content and not step.calls:
        return None
    calls = [
        DeltaToolCall(
            index=piece.call,
            id=piece.id,
            type="function" if piece.id is not None else None,
            function=DeltaFunctionCall(name=piece.name, arguments=piece.arguments),
        )
        for piece in step.calls
    ]
    return DeltaMessage(content=step.content or None, tool_calls=calls)


def _parser_class(format_name: str) -> type[ToolwireToolParser]:
    title = "".join(part.title() for part in format_name.split("_"))
    return type(f"Toolwire{title}ToolParser", (ToolwireToolParser,), {"formats": format_name})


PARSERS: dict[str, type[ToolwireToolParser]] = {"toolwire_auto": ToolwireToolParser} | {
    f"toolwire_{name}": _parser_class(name) for name in (*FORMAT_NAMES, *FORMAT_ALIASES)
}
"""Every parser this module registers, by its ``--tool-call-parser`` name."""

for _name, _parser in PARSERS.items():
    ToolParserManager.register_module(name=_name, module=_parser)
