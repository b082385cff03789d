"""Type stubs of the native module ``toolwire._toolwire``."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Final, Literal, Self, final, overload

from ._format_names import AnyFormatName, FormatName, ProtocolName

__all__ = [
    "FORMATS",
    "FORMAT_ALIASES",
    "FORMAT_NAMES",
    "AnthropicStreamAccumulator",
    "CompiledSchema",
    "GeminiStreamAccumulator",
    "InvalidToolCall",
    "OllamaStreamAccumulator",
    "OpenAIStreamAccumulator",
    "Parsed",
    "ReasoningDelta",
    "ResponsesStreamAccumulator",
    "StreamEncoder",
    "StreamParser",
    "StreamTranslator",
    "TextDelta",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "__version__",
    "assistant_message",
    "compile_schema",
    "decode_arguments",
    "decode_tool_calls",
    "dumps_compact",
    "extract",
    "extract_arrow_buffers",
    "extract_batch",
    "extract_jsonl_chunk",
    "frame_chunk",
    "loads",
    "new_call_id",
    "parse_native",
    "parse_raw_json",
    "parse_text",
    "parse_text_tagged",
    "sdk_plain_data",
    "unread_jsonl_record",
]

__version__: Final[str]

#: The open-weight formats, in registry order.
FORMATS: Final[tuple[FormatName, ...]]
#: Other projects' names for a format (or a protocol: ``generic`` is ``llamacpp_generic``) →
#: toolwire's name (accepted by ``formats=``), or the tuple of names an alias of a set stands
#: for (``xlam``: raw_json, mistral, hermes).
FORMAT_ALIASES: Final[
    Mapping[str, FormatName | ProtocolName | tuple[FormatName | ProtocolName, ...]]
]
#: Every name ``formats=`` accepts (aliases apart): ``text_tagged``, ``raw_json``,
#: ``llamacpp_generic``, ``FORMATS``.
FORMAT_NAMES: Final[tuple[str, ...]]

#: ``"auto"`` (every format), one name, or a list of names.
FormatSpec = Literal["auto"] | AnyFormatName | Sequence[AnyFormatName]
ErrorPolicy = Literal["raise", "skip", "keep"]
RawJsonMode = Literal["whole", "fenced", "anywhere"]
Provider = Literal["auto", "openai", "openai_responses", "anthropic", "ollama", "gemini"]

@final
class ToolCall:
    """One tool call: ``id``, ``name`` and ``arguments`` (always a dict)."""

    __match_args__: Final = ("id", "name", "arguments")
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def arguments(self) -> dict[str, Any]: ...
    def __new__(
        cls, id: str | int | None = None, name: str | None = None, arguments: Any = None
    ) -> ToolCall: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, handler: Any) -> Any:
        """pydantic's hook: validated from an instance or its ``to_dict()`` form."""
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolCall: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: None  # type: ignore[assignment]

@final
class InvalidToolCall:
    """A call that failed to parse, kept in place under ``on_error="keep"``."""

    __match_args__: Final = ("raw", "error", "protocol", "index", "offset", "name")
    @property
    def raw(self) -> str: ...
    @property
    def error(self) -> str: ...
    @property
    def protocol(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def offset(self) -> int | None: ...
    @property
    def name(self) -> str | None: ...
    @property
    def kind(self) -> Literal["invalid_tool_call"]: ...
    def __new__(
        cls,
        raw: str,
        error: str,
        protocol: str,
        index: int = 0,
        offset: int | None = None,
        name: str | None = None,
    ) -> InvalidToolCall: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, handler: Any) -> Any:
        """pydantic's hook: validated from an instance or its ``to_dict()`` form."""
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> InvalidToolCall: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Parsed:
    """Model text split into plain ``content``, ``calls`` and ``reasoning``."""

    __match_args__: Final = ("content", "calls", "reasoning")
    @property
    def content(self) -> str: ...
    @property
    def calls(self) -> list[ToolCall | InvalidToolCall]: ...
    @property
    def reasoning(self) -> str | None: ...
    def __new__(
        cls, content: str, calls: list[ToolCall | InvalidToolCall], reasoning: str | None = None
    ) -> Parsed: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Parsed: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: None  # type: ignore[assignment]

def loads(data: str | bytes | bytearray, /) -> Any:
    """Decode JSON text into Python objects, exactly as ``json.loads`` (strict RFC 8259)."""

def decode_arguments(arguments: Any, /, *, repair: bool = False) -> dict[str, Any]:
    """Normalise one arguments value to a dict (docs/parsing.md)."""

# Each parser is overloaded on `on_error`: under "raise" and "skip" no InvalidToolCall can come
# back, so the list holds only ToolCall; "keep" (or a policy known only at run time) may mix them.

@overload
def parse_native(
    calls: Sequence[Any],
    /,
    *,
    repair: bool = False,
    on_error: Literal["raise", "skip"] = "raise",
) -> list[ToolCall]:
    """Parse structured provider calls (docs/parsing.md)."""

@overload
def parse_native(
    calls: Sequence[Any], /, *, repair: bool = False, on_error: ErrorPolicy
) -> list[ToolCall | InvalidToolCall]: ...
@overload
def parse_text_tagged(
    text: str | bytes,
    /,
    *,
    repair: bool = False,
    on_error: Literal["raise", "skip"] = "raise",
) -> list[ToolCall]:
    """Parse ``~~~tool_call`` fenced blocks (docs/parsing.md)."""

@overload
def parse_text_tagged(
    text: str | bytes, /, *, repair: bool = False, on_error: ErrorPolicy
) -> list[ToolCall | InvalidToolCall]: ...
@overload
def parse_raw_json(
    text: str | bytes,
    /,
    *,
    mode: RawJsonMode = "fenced",
    repair: bool = False,
    on_error: Literal["raise", "skip"] = "raise",
) -> list[ToolCall]:
    """Parse bare JSON calls from weak models (docs/parsing.md)."""

@overload
def parse_raw_json(
    text: str | bytes,
    /,
    *,
    mode: RawJsonMode = "fenced",
    repair: bool = False,
    on_error: ErrorPolicy,
) -> list[ToolCall | InvalidToolCall]: ...
@overload
def extract(
    response: str | bytes | Mapping[str, Any] | Sequence[Any],
    /,
    *,
    native_tool_calls: bool | None = None,
    formats: Literal["auto"] | Sequence[AnyFormatName] | None = None,
    raw_json: RawJsonMode = "fenced",
    repair: bool = False,
    on_error: Literal["raise", "skip"] = "raise",
    tools: Sequence[Any] | None = None,
    unknown_tools: UnknownTools = "keep",
    starts_in_reasoning: bool = False,
) -> list[ToolCall]:
    """Extract the tool calls of any response (docs/parsing.md).

    ``native_tool_calls=True`` says the provider calls tools natively: a response without
    structured calls has its text read for ``~~~tool_call`` fences only (the fallback for models
    that ignore the native API); open-weight markup and JSON in that text are prose (quoted,
    perhaps from a document or a tool result) and give no calls. ``None`` (the default) and
    ``False`` read every text tier. ``tools`` (tool definitions in any shape ``Tool.from_dict``
    accepts) types the raw-text parameter values of the XML-style formats (qwen3_coder, glm45,
    …; docs/formats.md). ``unknown_tools`` says what a call to a name that is not among
    ``tools`` becomes: ``"keep"`` (the default: returned as written), ``"invalid"`` (an
    ``InvalidToolCall`` saying so) or ``"drop"`` (left out); the last two need ``tools``.
    ``starts_in_reasoning=True`` says the prompt opened a think span (a chat template that ends
    with ``<think>``): the text is reasoning up to its first closing think tag.
    """

@overload
def extract(
    response: str | bytes | Mapping[str, Any] | Sequence[Any],
    /,
    *,
    native_tool_calls: bool | None = None,
    formats: Literal["auto"] | Sequence[AnyFormatName] | None = None,
    raw_json: RawJsonMode = "fenced",
    repair: bool = False,
    on_error: ErrorPolicy,
    tools: Sequence[Any] | None = None,
    unknown_tools: UnknownTools = "keep",
    starts_in_reasoning: bool = False,
) -> list[ToolCall | InvalidToolCall]: ...
@overload
def decode_tool_calls(
    body: Mapping[str, Any] | Sequence[Any],
    provider: Provider = "auto",
    *,
    repair: bool = False,
    on_error: Literal["raise", "skip"] = "raise",
) -> list[ToolCall]:
    """The structured calls of a provider body or assistant message (docs/codecs.md)."""

@overload
def decode_tool_calls(
    body: Mapping[str, Any] | Sequence[Any],
    provider: Provider = "auto",
    *,
    repair: bool = False,
    on_error: ErrorPolicy,
) -> list[ToolCall | InvalidToolCall]: ...
def assistant_message(calls: object, provider: str, content: object) -> dict[str, Any] | None:
    """The assistant message holding ``calls`` (a list or tuple of :class:`ToolCall`) for
    ``openai``, ``anthropic`` or ``ollama``; None for other providers or other kinds of calls."""

def dumps_compact(value: Any, /) -> str:
    """``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``, in Rust."""

@overload
def extract_batch(
    items: Iterable[str | bytes | bytearray | Mapping[str, Any] | Sequence[Any]],
    /,
    *,
    field: str | None = None,
    provider: Provider = "auto",
    threads: int | None = None,
    native_tool_calls: bool | None = None,
    formats: Literal["auto"] | Sequence[AnyFormatName] | None = None,
    raw_json: RawJsonMode = "fenced",
    repair: bool = False,
    on_error: Literal["keep"] = "keep",
    deterministic_ids: bool = False,
) -> list[list[ToolCall | InvalidToolCall]]:
    """Extract the calls of many responses (JSON text) on all cores, GIL released (docs/batch.md).

    ``field`` is the dotted path to the response in each item (a log record); with
    ``deterministic_ids``, a call without an id gets ``call_{n}_{k}`` (item ``n`` counted from
    1, call ``k`` of its response) instead of a random id.
    """

@overload
def extract_batch(
    items: Iterable[str | bytes | bytearray | Mapping[str, Any] | Sequence[Any]],
    /,
    *,
    field: str | None = None,
    provider: Provider = "auto",
    threads: int | None = None,
    native_tool_calls: bool | None = None,
    formats: Literal["auto"] | Sequence[AnyFormatName] | None = None,
    raw_json: RawJsonMode = "fenced",
    repair: bool = False,
    on_error: Literal["raise", "skip"],
    deterministic_ids: bool = False,
) -> list[list[ToolCall]]: ...
@overload
def extract_batch(
    items: Iterable[str | bytes | bytearray | Mapping[str, Any] | Sequence[Any]],
    /,
    *,
    field: str | None = None,
    provider: Provider = "auto",
    threads: int | None = None,
    native_tool_calls: bool | None = None,
    formats: Literal["auto"] | Sequence[AnyFormatName] | None = None,
    raw_json: RawJsonMode = "fenced",
    repair: bool = False,
    on_error: ErrorPolicy,
    deterministic_ids: bool = False,
) -> list[list[ToolCall | InvalidToolCall]]: ...
def extract_jsonl_chunk(
    chunk: bytes,
    start: int,
    first_line: int,
    /,
    *,
    field: str | None = None,
    provider: Provider = "auto",
    threads: int | None = None,
    formats: Literal["auto"] | Sequence[AnyFormatName] | None = None,
    raw_json: RawJsonMode = "fenced",
    repair: bool = False,
    deterministic_ids: bool = False,
) -> tuple[bytes, int, int, int, int, int, int]:
    """The CLI's records for the lines of a chunk of whole JSONL lines from byte ``start`` on
    (a bounded piece of them), line ``first_line`` first: ``(records, end, lines, calls,
    invalid calls, bad lines, blank lines)``; call again from ``end`` until the chunk is read."""

def unread_jsonl_record(number: int, raw: bytes, message: str, /) -> bytes:
    """The CLI's record for line ``number``, which was not read (``message`` says why)."""

def extract_arrow_buffers(
    data: memoryview,
    offsets: memoryview,
    validity: memoryview | None,
    wide: bool,
    offset: int,
    length: int,
    /,
    *,
    field: str | None = None,
    provider: Provider = "auto",
    threads: int | None = None,
    formats: Literal["auto"] | Sequence[AnyFormatName] | None = None,
    raw_json: RawJsonMode = "fenced",
    repair: bool = False,
    deterministic_ids: bool = False,
    first_line: int = 1,
) -> tuple[Any, ...]:
    """``extract_arrow``'s core, on the buffers of an Arrow string/binary array."""

def new_call_id() -> str:
    """A fresh call id (docs/parsing.md): ``call_`` and 12 URL-safe base64 characters."""

@final
class TextDelta:
    """Plain text that can no longer be part of a marker (docs/streaming.md)."""

    kind: ClassVar[Literal["text_delta"]]
    __match_args__: Final = ("text",)
    @property
    def text(self) -> str: ...
    def __new__(cls, text: str) -> TextDelta: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, handler: Any) -> Any:
        """pydantic's hook: validated from an instance or its ``to_dict()`` form."""
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ReasoningDelta:
    """Text inside a ``<think>`` span or an analysis channel (docs/streaming.md)."""

    kind: ClassVar[Literal["reasoning_delta"]]
    __match_args__: Final = ("text",)
    @property
    def text(self) -> str: ...
    def __new__(cls, text: str) -> ReasoningDelta: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, handler: Any) -> Any:
        """pydantic's hook: validated from an instance or its ``to_dict()`` form."""
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ToolCallStart:
    """A call begins: its name is known (docs/streaming.md)."""

    kind: ClassVar[Literal["tool_call_start"]]
    __match_args__: Final = ("index", "id", "name")
    @property
    def index(self) -> int: ...
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    def __new__(cls, index: int, id: str, name: str) -> ToolCallStart: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, handler: Any) -> Any:
        """pydantic's hook: validated from an instance or its ``to_dict()`` form."""
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ToolCallDelta:
    """The next piece of a call's arguments text, as the model wrote it (docs/streaming.md)."""

    kind: ClassVar[Literal["tool_call_delta"]]
    __match_args__: Final = ("index", "arguments")
    @property
    def index(self) -> int: ...
    @property
    def arguments(self) -> str: ...
    def __new__(cls, index: int, arguments: str) -> ToolCallDelta: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, handler: Any) -> Any:
        """pydantic's hook: validated from an instance or its ``to_dict()`` form."""
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ToolCallEnd:
    """A call is complete and decoded (docs/streaming.md)."""

    kind: ClassVar[Literal["tool_call_end"]]
    __match_args__: Final = ("index", "call")
    @property
    def index(self) -> int: ...
    @property
    def call(self) -> ToolCall: ...
    def __new__(cls, index: int, call: ToolCall) -> ToolCallEnd: ...
    def to_dict(self) -> dict[str, Any]: ...
    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, handler: Any) -> Any:
        """pydantic's hook: validated from an instance or its ``to_dict()`` form."""
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

Event = TextDelta | ReasoningDelta | ToolCallStart | ToolCallDelta | ToolCallEnd | InvalidToolCall

@final
class StreamParser:
    """Incremental parser of model text (docs/streaming.md): ``feed`` chunks, get events.

    One parser serves one message and one thread at a time: used from two threads at once it
    raises ``RuntimeError``. With ``calls_in_reasoning`` (the default) the events of a call
    written inside a think span are held until a call starts outside reasoning (they are
    dropped) or ``finish`` (they are sent): docs/streaming.md, "Calls in reasoning".
    ``starts_in_reasoning=True``: the prompt opened a think span, so the text is reasoning up
    to its first closing think tag. ``repair=True`` accepts the JSON mistakes models make, as
    ``extract(repair=True)`` does.
    """

    def __new__(
        cls,
        *,
        formats: FormatSpec | None = None,
        tools: Any = None,
        on_error: ErrorPolicy = "keep",
        calls_in_reasoning: bool = True,
        release: Release = "eager",
        unknown_tools: UnknownTools = "keep",
        starts_in_reasoning: bool = False,
        repair: bool = False,
    ) -> StreamParser: ...
    @property
    def tools(self) -> Any: ...
    def feed(self, chunk: str | bytes | bytearray) -> list[Event]:
        """Feed the next chunk; ``bytes`` may end inside a UTF-8 sequence."""
    def finish(self) -> list[Event]:
        """End the message: release held text, end or invalidate an open call."""
    def reset(self) -> None:
        """Forget everything fed so far (same options)."""

Release = Literal["eager", "complete", "valid"]
UnknownTools = Literal["keep", "invalid", "drop"]
FinishReason = Literal["stop", "tool_calls", "length", "content_filter"]
StreamProvider = Literal["openai", "openai_responses", "anthropic", "ollama", "gemini"]
StreamItem = Mapping[str, Any] | str | bytes | bytearray | Any

class _StreamAccumulator:
    """What every provider stream accumulator offers (a stub-only base)."""

    def __new__(
        cls,
        *,
        text_formats: FormatSpec | None = None,
        tools: Any = None,
        release: Release = "eager",
        unknown_tools: UnknownTools = "keep",
    ) -> Self: ...
    @property
    def tools(self) -> Any: ...
    def feed(self, item: StreamItem) -> list[Event]:
        """Feed one stream item; returns the events it completes (never raises for bad
        model output)."""
    def finish(self) -> list[Event]:
        """End the stream: release held text, end every open call."""
    @property
    def content(self) -> str: ...
    @property
    def reasoning(self) -> str | None: ...
    @property
    def calls(self) -> list[ToolCall]: ...
    @property
    def invalid_calls(self) -> list[InvalidToolCall]: ...
    @property
    def response_id(self) -> str | None: ...
    @property
    def model(self) -> str | None: ...
    @property
    def finish_reason(self) -> FinishReason | None: ...
    @property
    def usage(self) -> dict[str, int] | None: ...

@final
class OpenAIStreamAccumulator(_StreamAccumulator):
    """Accumulates an OpenAI Chat Completions stream (``chat.completion.chunk`` objects)."""

@final
class AnthropicStreamAccumulator(_StreamAccumulator):
    """Accumulates an Anthropic Messages stream (``message_start`` … ``message_stop``)."""

@final
class ResponsesStreamAccumulator(_StreamAccumulator):
    """Accumulates an OpenAI Responses stream (``response.*`` events)."""

@final
class GeminiStreamAccumulator(_StreamAccumulator):
    """Accumulates a Gemini ``streamGenerateContent`` stream."""

@final
class OllamaStreamAccumulator(_StreamAccumulator):
    """Accumulates an Ollama ``/api/chat`` NDJSON stream."""

@final
class StreamEncoder:
    """Writes events as one provider's stream objects (chunks or events, as dicts)."""

    def __new__(
        cls, provider: StreamProvider, *, model: str | None = None, response_id: str | None = None
    ) -> StreamEncoder: ...
    @property
    def provider(self) -> str: ...
    def encode(self, events: Iterable[Event]) -> list[dict[str, Any]]:
        """The stream objects ``events`` make."""
    def finish(
        self, *, finish_reason: FinishReason | None = None, usage: Mapping[str, int] | None = None
    ) -> list[dict[str, Any]]:
        """The closing objects: stop reason and usage."""

@final
class StreamTranslator:
    """Translates one provider's stream into another's, item by item."""

    def __new__(
        cls,
        *,
        source: StreamProvider,
        target: StreamProvider,
        model: str | None = None,
        response_id: str | None = None,
        text_formats: FormatSpec | None = None,
        tools: Any = None,
        release: Release = "eager",
        unknown_tools: UnknownTools = "keep",
    ) -> StreamTranslator: ...
    def feed(self, item: StreamItem) -> list[dict[str, Any]]:
        """The target's stream objects for one source item."""
    def finish(self) -> list[dict[str, Any]]:
        """The target's closing objects."""
    @property
    def invalid_calls(self) -> list[InvalidToolCall]: ...

def frame_chunk(chunk: Mapping[str, Any], provider: StreamProvider) -> str:
    """One stream object as the provider sends it on the wire (SSE event or NDJSON line)."""

def sdk_plain_data(obj: Any, /) -> Any:
    """An SDK object (``model_dump``/``to_dict``) as plain data; anything else as it is."""

def parse_text(
    text: str | bytes,
    format: FormatSpec = "auto",
    *,
    on_error: ErrorPolicy = "keep",
    calls_in_reasoning: bool = True,
    tools: Any = None,
    unknown_tools: UnknownTools = "keep",
    starts_in_reasoning: bool = False,
    repair: bool = False,
) -> Parsed:
    """Split model text into its plain ``content``, its ``calls`` and its ``reasoning``.

    ``calls_in_reasoning``: read calls written inside think spans (the default), returned only
    when the text has no call outside them (docs/formats.md, "Calls in reasoning").
    ``starts_in_reasoning``: the prompt opened a think span (a chat template that ends with
    ``<think>``): the text is reasoning up to its first closing think tag, all of it when none
    comes; an opening tag the model writes before any reasoning is dropped.
    ``repair``: accept the JSON mistakes models make, as ``extract(repair=True)`` does.
    """

@final
class CompiledSchema:
    """A tool's parameters schema compiled by the Rust core (draft 2020-12)."""

    def errors(self, tool: str, arguments: Any) -> list[str]:
        """One message per problem with ``arguments``; empty when they are valid."""

def compile_schema(schema: Any, /) -> CompiledSchema:
    """Compile (or fetch from the cache) the validator of a parameters schema."""
