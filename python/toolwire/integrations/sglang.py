"""toolwire as SGLang tool-call detectors: ``toolwire_auto`` (every format, sniffed) and
``toolwire_<format>`` for each name of :data:`toolwire.FORMAT_NAMES` and each peer's name of
:data:`toolwire.FORMAT_ALIASES` (``toolwire_xlam`` reads what vLLM's xLAM parser reads: raw JSON,
mistral and hermes).

SGLang has no flag that loads a tool parser from a file, but its launcher runs the general
plugins installed packages declare (the ``sglang.srt.plugins`` entry-point group) before it
reads its arguments. toolwire declares :func:`register` there, so with toolwire installed::

    python -m sglang.launch_server --model-path MODEL --tool-call-parser toolwire_hermes

works as is (``SGLANG_PLUGINS``, when set, must list ``toolwire``). In a process that builds
SGLang's server itself, call :func:`register` (or import this module) first.

A detector is a ``BaseFormatDetector``: ``detect_and_parse`` for whole outputs,
``parse_streaming_increment`` for streaming (each new piece read once, with one
:class:`toolwire.StreamParser` per detector, which SGLang makes per request), and ``finish``,
which SGLang calls at the end of the stream, flushes held text and an unterminated last call.
``tools`` type qwen3_coder and glm45 values. A call to a tool the request does not offer is
dropped with a warning, as SGLang's own detectors do, unless ``SGLANG_FORWARD_UNKNOWN_TOOLS``
is set (then kept). SGLang gives calls its own ids, so ids the model wrote (Kimi-K2) are not
used. ``tool_choice="required"`` or a named function is SGLang's: the detectors offer no
structural tag, so SGLang constrains the output to a JSON array and reads it itself. Output
rules (think spans, double-encoded arguments, broken calls) are
:class:`toolwire.integrations._message.MessageReader`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from sglang.srt.environ import envs
from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem
from sglang.srt.function_call.function_call_parser import FunctionCallParser

from .._toolwire import FORMAT_ALIASES, FORMAT_NAMES
from ._message import MessageReader, ParsedMessage, Step, UnknownTools, read_message, tool_names

if TYPE_CHECKING:
    from .._toolwire import FormatSpec

__all__ = ["DETECTORS", "ToolwireDetector", "register"]


def _tool_definitions(tools: Sequence[Any]) -> list[dict[str, Any]]:
    return [tool.model_dump(exclude_none=True) for tool in tools]


class ToolwireDetector(BaseFormatDetector):  # type: ignore[misc]  # SGLang is untyped here
    """An SGLang detector reading :attr:`formats` with toolwire's stream engine."""

    formats: ClassVar[FormatSpec] = "auto"

    def __init__(self) -> None:
        super().__init__()
        self._reader: MessageReader | None = None
        self._parsed: tuple[str, Any, ParsedMessage] | None = None  # the last text read

    @property
    def unknown_tools(self) -> UnknownTools:
        """SGLang's policy: drop unknown names unless ``SGLANG_FORWARD_UNKNOWN_TOOLS``."""
        return "keep" if envs.SGLANG_FORWARD_UNKNOWN_TOOLS.get() else "drop"

    def has_tool_call(self, text: str) -> bool:
        """Whether ``text`` (a whole output) holds a call toolwire reads."""
        return bool(self._read(text, None).calls)

    def detect_and_parse(self, text: str, tools: list[Any]) -> Any:
        """The content and calls of a whole output."""
        message = self._read(text, tools)
        calls = [
            ToolCallItem(tool_index=index, name=name, parameters=arguments)
            for index, (_, name, arguments) in enumerate(message.calls)
        ]
        return StreamingParseResult(normal_text=message.content, calls=calls)

    def parse_streaming_increment(self, new_text: str, tools: list[Any]) -> Any:
        """The content and call pieces ``new_text`` (the next piece of output) completes."""
        if self._reader is None:
            definitions = _tool_definitions(tools)
            self._reader = MessageReader(
                self.formats,
                tools=definitions,
                allowed=tool_names(definitions),
                unknown_tools=self.unknown_tools,
            )
        return _result(self._reader.feed(new_text))

    def finish(self, tools: list[Any]) -> Any:
        """SGLang's end-of-stream hook: flush what the reader holds."""
        reader, self._reader = self._reader, None
        return StreamingParseResult() if reader is None else _result(reader.finish())

    def supports_structural_tag(self) -> bool:
        """No: SGLang then constrains required and named tool choices to plain JSON."""
        return False

    def structure_info(self) -> Callable[[str], Any]:
        """Not offered (see :meth:`supports_structural_tag`)."""
        raise NotImplementedError("toolwire detectors offer no structural tag")

    def _read(self, text: str, tools: list[Any] | None) -> ParsedMessage:
        # SGLang asks has_tool_call twice of the same text (without the tools), then
        # detect_and_parse (with them): each reading is done once.
        if self._parsed is not None and self._parsed[1] is tools and self._parsed[0] == text:
            return self._parsed[2]
        definitions = _tool_definitions(tools or ())
        message = read_message(
            text,
            self.formats,
            tools=definitions,
            allowed=tool_names(definitions) if tools else None,
            unknown_tools=self.unknown_tools,
        )
        self._parsed = (text, tools, message)
        return message


def _result(step: Step) -> Any:
    calls = [
        ToolCallItem(tool_index=piece.call, name=piece.name, parameters=piece.arguments)
        for piece in step.calls
    ]
    return StreamingParseResult(normal_text=step.content, calls=calls)


def _detector_class(format_name: str) -> type[ToolwireDetector]:
    title = "".join(part.title() for part in format_name.split("_"))
    return type(f"Toolwire{title}Detector", (ToolwireDetector,), {"formats": format_name})


DETECTORS: dict[str, type[ToolwireDetector]] = {"toolwire_auto": ToolwireDetector} | {
    f"toolwire_{name}": _detector_class(name) for name in (*FORMAT_NAMES, *FORMAT_ALIASES)
}
"""Every detector this module registers, by its ``--tool-call-parser`` name."""


def register() -> None:
    """Add the detectors to SGLang's ``FunctionCallParser`` (the plugin entry point)."""
    FunctionCallParser.ToolCallParserEnum.update(DETECTORS)


register()
