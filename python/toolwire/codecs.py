"""Provider codecs (SPEC §7): tools, calls and results to and from each provider's wire format.

Five providers: ``openai`` (Chat Completions), ``openai_responses`` (Responses API),
``anthropic`` (Messages), ``ollama`` (``/api/chat``) and ``gemini`` (``generateContent``).

>>> from toolwire import ToolCall, decode_tool_calls, encode_calls
>>> message = encode_calls([ToolCall("call_1", "f", {"a": 1})], "openai")
>>> message["tool_calls"][0]["function"]["arguments"]
'{"a":1}'
>>> decode_tool_calls(message, "openai")
[ToolCall(id='call_1', name='f', arguments={'a': 1})]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

from ._codecs import CODECS, PROVIDERS
from ._codecs.base import (
    Assistant,
    CallLike,
    Codec,
    Provider,
    ResultLike,
    ToolLike,
    as_call,
    as_result,
    as_tool,
)
from ._toolwire import ToolCall, assistant_message, decode_tool_calls, sdk_plain_data
from ._types import Tool, ToolResult

if TYPE_CHECKING:
    # The SDKs' own request types (typing only: toolwire depends on neither SDK). Without the
    # SDK installed they are unknown to a type checker, which then treats them as Any. A
    # provider known only at run time (a `Provider` variable) gets Any too.
    from anthropic.types import MessageParam, ToolParam
    from openai.types.chat import (
        ChatCompletionAssistantMessageParam,
        ChatCompletionFunctionToolParam,
        ChatCompletionMessageParam,
        ChatCompletionToolMessageParam,
    )
    from openai.types.responses import FunctionToolParam, ResponseInputItemParam

__all__ = [
    "PROVIDERS",
    "Provider",
    "convert_message",
    "decode_results",
    "decode_tool_calls",
    "decode_tools",
    "encode_calls",
    "encode_results",
    "encode_tools",
]


def _codec(provider: str) -> Codec:
    try:
        return CODECS[provider]
    except (KeyError, TypeError):
        choices = ", ".join(repr(name) for name in PROVIDERS)
        raise ValueError(f"provider must be one of {choices}, not {provider!r}") from None


# --- public API -----------------------------------------------------------------------------


@overload
def encode_tools(
    tools: Iterable[ToolLike], provider: Literal["openai"]
) -> list[ChatCompletionFunctionToolParam]: ...
@overload
def encode_tools(
    tools: Iterable[ToolLike], provider: Literal["openai_responses"]
) -> list[FunctionToolParam]: ...
@overload
def encode_tools(tools: Iterable[ToolLike], provider: Literal["anthropic"]) -> list[ToolParam]: ...
@overload
def encode_tools(
    tools: Iterable[ToolLike], provider: Literal["ollama", "gemini"]
) -> list[dict[str, Any]]: ...
@overload
def encode_tools(tools: Iterable[ToolLike], provider: Provider) -> list[Any]: ...
def encode_tools(tools: Iterable[ToolLike], provider: Provider) -> list[Any]:
    """Tool definitions in ``provider``'s request format, typed as the ``openai`` and
    ``anthropic`` SDKs' request types where those SDKs are installed.

    ``tools`` are :class:`Tool` objects, mappings in any shape :meth:`Tool.from_dict` reads,
    or pydantic model classes (:meth:`Tool.from_pydantic`).
    Gemini gets one ``{"functionDeclarations": [...]}`` entry holding them all.

    >>> encode_tools([{"name": "ping", "parameters": {"type": "object"}}], "anthropic")
    [{'name': 'ping', 'description': '', 'input_schema': {'type': 'object'}}]
    """
    return _codec(provider).encode_tools([as_tool(tool) for tool in tools])


def decode_tools(wire: Sequence[Mapping[str, Any]], provider: Provider) -> list[Tool]:
    """The inverse of :func:`encode_tools`. Built-in provider tools (web search, …) are skipped.

    >>> decode_tools([{"type": "function", "function": {"name": "ping"}}], "openai")[0].name
    'ping'
    """
    return _codec(provider).decode_tools(wire)


@overload
def encode_calls(
    calls: Iterable[CallLike], provider: Literal["openai"], *, content: str | None = None
) -> ChatCompletionAssistantMessageParam: ...
@overload
def encode_calls(
    calls: Iterable[CallLike], provider: Literal["anthropic"], *, content: str | None = None
) -> MessageParam: ...
@overload
def encode_calls(
    calls: Iterable[CallLike],
    provider: Literal["openai_responses"],
    *,
    content: str | None = None,
) -> list[ResponseInputItemParam]: ...
@overload
def encode_calls(
    calls: Iterable[CallLike], provider: Literal["ollama", "gemini"], *, content: str | None = None
) -> dict[str, Any]: ...
@overload
def encode_calls(
    calls: Iterable[CallLike], provider: Provider, *, content: str | None = None
) -> Any: ...
def encode_calls(
    calls: Iterable[CallLike], provider: Provider, *, content: str | None = None
) -> Any:
    """One assistant message holding ``calls`` (and the text ``content``, if any).

    For ``openai_responses`` the result is the list of input items (an optional ``message``
    item, then one ``function_call`` item per call), since that API has no message wrapper.

    >>> encode_calls([ToolCall("call_1", "f", {"a": 1})], "anthropic")["content"]
    [{'type': 'tool_use', 'id': 'call_1', 'name': 'f', 'input': {'a': 1}}]
    """
    message = assistant_message(calls, provider, content)  # a list of ToolCall, in one pass
    if message is not None:
        return message
    return _codec(provider).encode_calls(
        [as_call(call, i) for i, call in enumerate(calls)], content
    )


@overload
def encode_results(
    results: Iterable[ResultLike], provider: Literal["openai"], *, error_prefix: str | None = None
) -> list[ChatCompletionToolMessageParam]: ...
@overload
def encode_results(
    results: Iterable[ResultLike],
    provider: Literal["openai_responses"],
    *,
    error_prefix: str | None = None,
) -> list[ResponseInputItemParam]: ...
@overload
def encode_results(
    results: Iterable[ResultLike],
    provider: Literal["anthropic"],
    *,
    error_prefix: str | None = None,
) -> list[MessageParam]: ...
@overload
def encode_results(
    results: Iterable[ResultLike],
    provider: Literal["ollama", "gemini"],
    *,
    error_prefix: str | None = None,
) -> list[dict[str, Any]]: ...
@overload
def encode_results(
    results: Iterable[ResultLike], provider: Provider, *, error_prefix: str | None = None
) -> list[Any]: ...
def encode_results(
    results: Iterable[ResultLike], provider: Provider, *, error_prefix: str | None = None
) -> list[Any]:
    """The messages that give ``results`` back to the model.

    Anthropic and Gemini get **one** user message holding every result (``[]`` when there are
    none); OpenAI and Ollama one ``tool`` message per result; the Responses API one
    ``function_call_output`` item per result. Non-string content is JSON text for OpenAI,
    Ollama and Responses. ``is_error`` is native for Anthropic and Gemini; for the others it is
    dropped unless ``error_prefix`` is given, which is then put before the content.

    >>> encode_results([ToolResult("call_1", "f", "42")], "openai")
    [{'role': 'tool', 'tool_call_id': 'call_1', 'content': '42'}]
    """
    codec = _codec(provider)
    return codec.encode_results(
        [as_result(result, i) for i, result in enumerate(results)], error_prefix
    )


def decode_results(
    messages: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    provider: Provider,
    *,
    error_prefix: str | None = None,
    calls: Iterable[ToolCall] | None = None,
) -> list[ToolResult]:
    """The inverse of :func:`encode_results`: the results held by one message or a list of
    messages (other messages are skipped).

    A wire format that does not carry a field leaves it ``None`` (OpenAI and Responses: the
    name; Ollama: the id; Anthropic: the name). Pass the ``calls`` the results answer to fill
    those in: names by id, and ids by name in call order. ``error_prefix`` undoes the prefix
    :func:`encode_results` added, setting ``is_error``. SDK objects (anything with
    ``model_dump``/``to_dict``) are read as the data they hold.

    >>> decode_results([{"role": "tool", "content": "42", "tool_name": "f"}], "ollama")
    [ToolResult(tool_call_id=None, name='f', content='42', is_error=False)]
    """
    codec = _codec(provider)
    results = codec.decode_results(sdk_plain_data(messages))
    if error_prefix is not None and not codec.native_errors:
        results = [_unprefixed(result, error_prefix) for result in results]
    if calls is not None:
        results = _matched(results, list(calls))
    return results


@overload
def convert_message(
    message: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    from_provider: Provider,
    to_provider: Literal["openai"],
    *,
    calls: Iterable[ToolCall] | None = None,
) -> list[ChatCompletionMessageParam]: ...
@overload
def convert_message(
    message: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    from_provider: Provider,
    to_provider: Literal["openai_responses"],
    *,
    calls: Iterable[ToolCall] | None = None,
) -> list[ResponseInputItemParam]: ...
@overload
def convert_message(
    message: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    from_provider: Provider,
    to_provider: Literal["anthropic"],
    *,
    calls: Iterable[ToolCall] | None = None,
) -> list[MessageParam]: ...
@overload
def convert_message(
    message: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    from_provider: Provider,
    to_provider: Literal["ollama", "gemini"],
    *,
    calls: Iterable[ToolCall] | None = None,
) -> list[dict[str, Any]]: ...
@overload
def convert_message(
    message: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    from_provider: Provider,
    to_provider: Provider,
    *,
    calls: Iterable[ToolCall] | None = None,
) -> list[Any]: ...
def convert_message(
    message: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    from_provider: Provider,
    to_provider: Provider,
    *,
    calls: Iterable[ToolCall] | None = None,
) -> list[Any]:
    """Converts one assistant message (or a whole response body) or one turn of tool results
    between providers (a gateway's translation step).

    Returns a list of messages, since one message may become several: Anthropic's single
    results message becomes one OpenAI ``tool`` message per result, and Responses calls are
    separate items. Names, arguments and ids are kept; ``calls`` (the calls being answered)
    fills in what the source format lacks, as in :func:`decode_results`. Text the user wrote
    beside the results (an Anthropic text block, a Gemini text part, a user message among tool
    messages) is kept: in the same message where the target allows it, else as a user message
    after the results. An SDK object (an
    ``openai`` ``ChatCompletionMessage``, an ``anthropic`` ``Message``, …) is read as the data
    it holds, and an Anthropic ``content`` block list as the message holding it.

    >>> convert_message({"role": "assistant", "content": [
    ...     {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}}]},
    ...     "anthropic", "openai")[0]["tool_calls"][0]["function"]
    {'name': 'f', 'arguments': '{"a":1}'}
    """
    source = _codec(from_provider)
    turn = source.read_turn(source.message_of(sdk_plain_data(message)))
    target = _codec(to_provider)
    if isinstance(turn, Assistant):
        encoded = target.encode_calls(turn.calls, turn.content)
        return encoded if isinstance(encoded, list) else [encoded]
    results = turn.results if calls is None else _matched(turn.results, list(calls))
    messages = target.encode_results(results, None)
    return target.with_user_text(messages, turn.text) if turn.text else messages


def _unprefixed(result: ToolResult, prefix: str) -> ToolResult:
    if isinstance(result.content, str) and result.content.startswith(prefix):
        return ToolResult(result.tool_call_id, result.name, result.content[len(prefix) :], True)
    return result


def _matched(results: list[ToolResult], calls: list[ToolCall]) -> list[ToolResult]:
    """Fills each result's missing name (from the call with its id) and missing id (from the
    first unanswered call with its name, or the next unanswered call when it has no name)."""
    by_id = {call.id: call for call in calls}
    answered = {r.tool_call_id for r in results if r.tool_call_id in by_id}
    pending = [call for call in calls if call.id not in answered]
    matched = []
    for result in results:
        call = by_id.get(result.tool_call_id) if result.tool_call_id is not None else None
        if call is None and result.tool_call_id is None:
            call = next((c for c in pending if result.name in (None, c.name)), None)
            if call is not None:
                pending.remove(call)
        if call is not None:
            result = ToolResult(
                result.tool_call_id or call.id,
                result.name or call.name,
                result.content,
                result.is_error,
            )
        matched.append(result)
    return matched
