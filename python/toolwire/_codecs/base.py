"""What every provider codec shares: the neutral inputs, path-aware pieces of the wire shapes,
and the :class:`Codec` interface."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from .. import _shape as shape
from .._errors import ArgumentsError, ProviderFormatError, ToolCallParseError, ToolDefinitionError
from .._toolwire import ToolCall, assistant_message, dumps_compact
from .._types import PydanticModel, Tool, ToolResult

Provider: TypeAlias = Literal["openai", "openai_responses", "anthropic", "ollama", "gemini"]
PROVIDERS: tuple[Provider, ...] = ("openai", "openai_responses", "anthropic", "ollama", "gemini")

ToolLike: TypeAlias = Tool | Mapping[str, Any] | type[PydanticModel]
CallLike: TypeAlias = ToolCall | Mapping[str, Any]
ResultLike: TypeAlias = ToolResult | Mapping[str, Any]
Message: TypeAlias = dict[str, Any]
ResultContent: TypeAlias = str | list[Any] | dict[str, Any]

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


def as_tool(tool: object) -> Tool:
    if isinstance(tool, Tool):
        return tool
    if isinstance(tool, Mapping):
        return Tool.from_dict(tool)
    if isinstance(tool, type) and hasattr(tool, "model_json_schema"):
        return Tool.from_pydantic(tool)
    raise ToolDefinitionError(
        f"expected a Tool, a mapping or a pydantic model class, got {type(tool).__name__}"
    )


def as_call(call: object, index: int) -> ToolCall:
    if isinstance(call, ToolCall):
        return call
    if isinstance(call, Mapping):
        return ToolCall.from_dict(dict(call))
    raise ToolCallParseError(
        f"call {index}: expected a ToolCall or a mapping, got {type(call).__name__}",
        protocol="native",
        index=index,
    )


def as_result(result: object, index: int) -> ToolResult:
    if isinstance(result, ToolResult):
        return result
    if isinstance(result, Mapping):
        return ToolResult.from_dict(result)
    raise ProviderFormatError(
        f"expected a ToolResult or a mapping, got {type(result).__name__} at [{index}]",
        path=f"[{index}]",
    )


def json_text(value: object, what: str) -> str:
    """Compact JSON (``json.dumps(separators=(",", ":"), ensure_ascii=False)``), in Rust."""
    try:
        return dumps_compact(value)
    except (TypeError, ValueError) as error:
        message = f"{what} cannot be written as JSON: {error}"
        raise ArgumentsError(message, protocol="native") from None


def native_message(calls: list[ToolCall], provider: Provider, content: str | None) -> Message:
    """The assistant message of an OpenAI Chat, Anthropic or Ollama codec, built in Rust."""
    message = assistant_message(calls, provider, content)
    if message is None:  # only for other providers or other kinds of calls
        raise ValueError(f"no native assistant message for {provider!r}")
    return message


def read_function(obj: Mapping[str, Any], path: str, *schema_keys: str) -> Tool:
    """A tool definition's name, description and schema (under the first of ``schema_keys``)."""
    name = shape.want_str(shape.member(obj, "name", path), shape.at(path, "name"))
    if not name:
        where = shape.at(path, "name")
        raise ProviderFormatError(f"empty tool name at {where}", path=where)
    description = shape.optional_str(obj.get("description"), shape.at(path, "description"))
    schema: Any = None
    for key in schema_keys:
        if obj.get(key) is not None:
            schema = dict(shape.want_mapping(obj[key], shape.at(path, key)))
            break
    return Tool(name, description or "", EMPTY_SCHEMA.copy() if schema is None else schema)


def result_content(value: object, path: str) -> ResultContent:
    """Result content as a provider sends it back: text, a list of blocks, or absent (``""``)."""
    if value is None:
        return ""
    if isinstance(value, str | list | dict):
        return value
    raise ProviderFormatError(
        f"expected a string or a list of content blocks at {path}, got {type(value).__name__}",
        path=path,
    )


def as_text(content: ResultContent) -> str:
    return content if isinstance(content, str) else json_text(content, "result content")


def entries(wire: object, path: str = "") -> Iterable[tuple[str, Mapping[str, Any]]]:
    """``(path, object)`` for each element of a list that must hold objects."""
    for i, item in enumerate(shape.want_list(wire, path)):
        where = shape.at(path, i)
        yield where, shape.want_mapping(item, where)


def user_text(messages: object) -> str | None:
    """The text of the user messages in a list of messages or input items."""
    texts = [
        shape.text_of(message.get("content"), shape.at(path, "content"))
        for path, message in messages_of(messages)
        if message.get("role") == "user" and message.get("type", "message") == "message"
    ]
    return "\n\n".join(t for t in texts if t) or None


def messages_of(messages: object) -> Iterable[tuple[str, Mapping[str, Any]]]:
    """One message, or a list of them, as ``(path, message)``."""
    if isinstance(messages, Mapping):
        return [("", messages)]
    return entries(messages)


@dataclass(frozen=True)
class Assistant:
    """An assistant turn, provider-neutral: its text and its calls."""

    content: str | None
    calls: list[ToolCall]


@dataclass(frozen=True)
class Results:
    """A turn of tool results, provider-neutral, with the text the user wrote beside them (an
    Anthropic text block or a Gemini text part in the same message, a user message among tool
    messages): a translation must carry it, not drop it."""

    results: list[ToolResult]
    text: str | None = None


class Codec(ABC):
    """One provider's shapes. ``native_errors``: the wire has its own ``is_error`` flag."""

    name: Provider
    native_errors = False

    def encode_tools(self, tools: list[Tool]) -> list[Message]:
        return [self.encode_tool(tool) for tool in tools]

    @abstractmethod
    def encode_tool(self, tool: Tool) -> Message: ...

    @abstractmethod
    def decode_tools(self, wire: object) -> list[Tool]: ...

    @abstractmethod
    def encode_calls(
        self, calls: list[ToolCall], content: str | None
    ) -> Message | list[Message]: ...

    @abstractmethod
    def encode_results(
        self, results: list[ToolResult], error_prefix: str | None
    ) -> list[Message]: ...

    @abstractmethod
    def decode_results(self, messages: object) -> list[ToolResult]: ...

    body_path: tuple[str | int, ...] = ()
    body_key = ""

    def message_of(self, body: object) -> object:
        """The message of a full response body (``body_key`` present), else ``body`` itself."""
        if self.body_key and isinstance(body, Mapping) and self.body_key in body:
            return shape.dig(body, *self.body_path)
        return body

    @abstractmethod
    def read_turn(self, message: object) -> Assistant | Results:
        """An assistant message as text and calls, or a tool-result message as results."""
        ...

    def with_user_text(self, messages: list[Message], text: str) -> list[Message]:
        """``messages`` (encoded results) followed by the user's ``text``: a user message of
        its own unless the wire puts text and results in one message."""
        return [*messages, {"role": "user", "content": text}]

    def _result_id(self, result: ToolResult, index: int) -> str:
        """The id of the call a result answers, which this wire cannot do without."""
        if result.tool_call_id is None:
            raise ProviderFormatError(
                f"result {index} has no tool_call_id, which {self.name} needs (decode_results "
                "and convert_message fill it in from the calls answered, given as calls=)",
                path=f"[{index}].tool_call_id",
            )
        return result.tool_call_id

    def _result_text(self, result: ToolResult, error_prefix: str | None) -> str:
        text = as_text(result.content)
        if result.is_error and error_prefix is not None:
            return error_prefix + text
        return text
