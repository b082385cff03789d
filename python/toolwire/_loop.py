"""The bounded multi-turn tool loop (SPEC §11): ask the provider, run the calls it makes, give
it the results, and repeat until it answers without calls or the bounds are hit.

The loop's logic is written once, as a generator that yields what it needs (a provider answer,
a pass of tool runs, an observer notification); a sync and an async driver serve those needs.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ._filter import ToolFilter
from ._registry import ToolRegistry
from ._toolwire import InvalidToolCall, ToolCall, extract
from ._types import ToolResult
from .codecs import PROVIDERS, Provider, encode_calls, encode_results

__all__ = ["LoopObserver", "LoopResult", "MessageFormat", "arun_tool_loop", "run_tool_loop"]

MessageFormat = Provider
StoppedReason = Literal["final", "max_turns", "error"]


@dataclass(frozen=True)
class LoopResult:
    """What a tool loop did.

    - ``messages``: the conversation: the input messages, then for each tool pass the assistant
      message with its calls and the result messages, in the provider's format; on
      ``"final"`` also the final assistant message.
    - ``final_response``: the last provider response (on ``"max_turns"`` its calls were not
      run; on ``"error"`` the last good response, or None).
    - ``turns``: turns begun; ``provider_calls``: times the provider was called.
    - ``tool_calls`` / ``tool_results``: every call run and its result, in order.
    - ``stopped_reason``: ``"final"`` (an answer without calls), ``"max_turns"`` (the bounds
      were hit) or ``"error"`` (the provider raised or sent an unreadable body: ``error``).
    """

    messages: list[Any]
    final_response: Any
    turns: int
    tool_calls: list[ToolCall]
    stopped_reason: StoppedReason
    tool_results: list[ToolResult] = field(default_factory=list)
    provider_calls: int = 0
    error: BaseException | None = None


class LoopObserver(Protocol):
    """The callbacks a loop observer may implement; each is optional (duck-typed), and in
    :func:`arun_tool_loop` each may also be ``async def``.

    Order: ``on_start(messages)``; per tool pass ``on_message(assistant message)``, then
    ``on_tool_call(call)`` / ``on_tool_result(call, result)`` (interleaved per call when
    sequential; all calls then all results, in call order, when parallel), then
    ``on_message(m)`` for each result message; ``on_message(final assistant message)``;
    ``on_error(error)`` if the loop stops on an error; ``on_final(result)`` last, always.
    """

    def on_start(self, messages: list[Any]) -> Any: ...
    def on_tool_call(self, call: ToolCall) -> Any: ...
    def on_tool_result(self, call: ToolCall, result: ToolResult) -> Any: ...
    def on_message(self, message: Any) -> Any: ...
    def on_final(self, result: LoopResult) -> Any: ...
    def on_error(self, error: BaseException) -> Any: ...


# The needs of the loop logic, answered by a driver.
@dataclass(frozen=True)
class _Ask:
    messages: list[Any]


@dataclass(frozen=True)
class _Run:
    calls: list[ToolCall | InvalidToolCall]


@dataclass(frozen=True)
class _Notify:
    event: str
    args: tuple[Any, ...]


_Need = _Ask | _Run | _Notify
_Steps = Generator[_Need, Any, LoopResult]


def run_tool_loop(
    provider: Callable[[list[Any]], Any],
    messages: Sequence[Any],
    registry: ToolRegistry,
    *,
    provider_format: MessageFormat = "openai",
    max_turns: int = 8,
    max_tool_passes: int = 4,
    parallel_tools: bool = False,
    observer: object | None = None,
    tool_filter: ToolFilter | str | None = None,
) -> LoopResult:
    """Run tools for a model until it answers without calls, or the bounds are hit.

    ``provider(messages)`` returns a response: a full provider body (OpenAI, Anthropic, Ollama,
    OpenAI Responses), a ``{"text", "tool_calls"}`` mapping or plain text. Its calls are found
    with :func:`extract` (so a model that writes ``~~~tool_call`` blocks or raw JSON instead of
    native calls still gets its tools run), executed with ``registry.execute`` (filtered by
    ``tool_filter``, else the registry's filter), and appended as one assistant message with
    native calls plus the result messages, in ``provider_format`` (any of the codecs'
    providers: ``openai``, ``openai_responses``, ``anthropic``, ``ollama``, ``gemini``). A
    turn is one provider call plus up to ``max_tool_passes`` passes of tool runs, each followed
    by a provider call, so the provider is called at most ``max_turns * (1 + max_tool_passes)``
    times. With
    ``parallel_tools`` the calls of one pass run in a thread pool; results keep call order, so
    the messages are the same as sequential. The input ``messages`` are not modified.

    >>> registry = ToolRegistry(filter="*")
    >>> @registry.tool
    ... def add(a: int, b: int) -> int:
    ...     '''Add two integers.'''
    ...     return a + b
    >>> answers = iter([
    ...     '~~~tool_call\\n{"name": "add", "arguments": {"a": 2, "b": 3}}\\n~~~',
    ...     "2 + 3 = 5",
    ... ])
    >>> result = run_tool_loop(lambda messages: next(answers), [], registry)
    >>> result.stopped_reason, result.provider_calls, result.tool_results[0].content
    ('final', 2, '5')
    >>> [m["role"] for m in result.messages]
    ['assistant', 'tool', 'assistant']
    """
    steps = _steps(messages, registry, provider_format, max_turns, max_tool_passes, tool_filter)
    pool = ThreadPoolExecutor(thread_name_prefix="toolwire-loop") if parallel_tools else None
    try:
        need = next(steps)
        while True:
            if isinstance(need, _Ask):
                try:
                    answer = provider(need.messages)
                    if inspect.isawaitable(answer):
                        _close(answer)
                        raise TypeError("the provider returned an awaitable: use arun_tool_loop")
                except Exception as e:
                    need = steps.throw(e)
                    continue
            elif isinstance(need, _Run):
                answer = _run_sync(need.calls, registry, tool_filter, observer, pool)
            else:
                answer = _notify(observer, need)
            need = steps.send(answer)
    except StopIteration as stop:
        result: LoopResult = stop.value
        return result
    finally:
        if pool is not None:
            pool.shutdown(wait=False)


async def arun_tool_loop(
    provider: Callable[[list[Any]], Any],
    messages: Sequence[Any],
    registry: ToolRegistry,
    *,
    provider_format: MessageFormat = "openai",
    max_turns: int = 8,
    max_tool_passes: int = 4,
    parallel_tools: bool = False,
    observer: object | None = None,
    tool_filter: ToolFilter | str | None = None,
) -> LoopResult:
    """The async :func:`run_tool_loop`: ``provider`` may be sync or ``async def``, tools run
    with ``registry.aexecute`` (concurrently with ``asyncio.gather`` when ``parallel_tools``),
    observer callbacks may be ``async def``. Same messages, bounds and result.

    >>> import asyncio
    >>> registry = ToolRegistry(filter="*")
    >>> async def provider(messages):
    ...     return {"text": "no tools needed"}
    >>> asyncio.run(arun_tool_loop(provider, [], registry)).stopped_reason
    'final'
    """
    steps = _steps(messages, registry, provider_format, max_turns, max_tool_passes, tool_filter)
    try:
        need = next(steps)
        while True:
            if isinstance(need, _Ask):
                try:
                    answer = provider(need.messages)
                    if inspect.isawaitable(answer):
                        answer = await answer
                except Exception as e:
                    need = steps.throw(e)
                    continue
            elif isinstance(need, _Run):
                answer = await _run_async(
                    need.calls, registry, tool_filter, observer, parallel_tools
                )
            else:
                answer = _notify(observer, need)
                if inspect.isawaitable(answer):
                    answer = await answer
            need = steps.send(answer)
    except StopIteration as stop:
        result: LoopResult = stop.value
        return result


def _steps(
    messages: Sequence[Any],
    registry: ToolRegistry,
    provider_format: MessageFormat,
    max_turns: int,
    max_tool_passes: int,
    tool_filter: ToolFilter | str | None,
) -> _Steps:
    """The loop itself, independent of sync/async."""
    if provider_format not in PROVIDERS:
        raise ValueError(f"provider_format must be one of {PROVIDERS}, not {provider_format!r}")
    if max_turns < 1 or max_tool_passes < 0:
        raise ValueError("max_turns must be at least 1 and max_tool_passes at least 0")
    history = list(messages)
    budget = max_turns * (1 + max_tool_passes)
    ran: list[ToolCall] = []
    results: list[ToolResult] = []
    response: Any = None
    asked = 0

    def finish(reason: StoppedReason, error: BaseException | None = None) -> _Steps:
        turns = -(-asked // (1 + max_tool_passes))
        result = LoopResult(history, response, turns, ran, reason, results, asked, error)
        if error is not None:
            yield _Notify("on_error", (error,))
        yield _Notify("on_final", (result,))
        return result

    yield _Notify("on_start", (list(history),))
    while True:
        try:
            asked += 1
            answer = yield _Ask(list(history))
            found = extract(answer, on_error="keep")
        except Exception as e:
            return (yield from finish("error", e))
        response = answer
        text, native = _response_text(answer)
        if not found:
            for message in _messages(encode_calls([], provider_format, content=text)):
                history.append(message)
                yield _Notify("on_message", (message,))
            return (yield from finish("final"))
        if asked >= budget:
            return (yield from finish("max_turns"))
        calls = [_placeholder(c) if isinstance(c, InvalidToolCall) else c for c in found]
        # Text-form calls become native calls in the history; their markup is not repeated.
        for message in _messages(
            encode_calls(calls, provider_format, content=text if native else None)
        ):
            history.append(message)
            yield _Notify("on_message", (message,))
        outcomes: list[ToolResult] = yield _Run(list(found))
        outcomes = [
            o if o.tool_call_id is not None else ToolResult(c.id, c.name, o.content, o.is_error)
            for c, o in zip(calls, outcomes, strict=True)
        ]
        ran.extend(calls)
        results.extend(outcomes)
        for message in encode_results(outcomes, provider_format):
            history.append(message)
            yield _Notify("on_message", (message,))


def _placeholder(invalid: InvalidToolCall) -> ToolCall:
    """A call that could not be read still gets an id and a place in the assistant message, so
    its error result pairs with it as every provider requires."""
    return ToolCall(None, invalid.name or "invalid_tool_call", {})


def _run_sync(
    calls: list[ToolCall | InvalidToolCall],
    registry: ToolRegistry,
    tool_filter: ToolFilter | str | None,
    observer: object | None,
    pool: ThreadPoolExecutor | None,
) -> list[ToolResult]:
    if pool is None:
        results = []
        for call in calls:
            _notify(observer, _Notify("on_tool_call", (call,)))
            result = registry.execute(call, tool_filter=tool_filter)
            _notify(observer, _Notify("on_tool_result", (call, result)))
            results.append(result)
        return results
    for call in calls:
        _notify(observer, _Notify("on_tool_call", (call,)))
    results = list(pool.map(lambda c: registry.execute(c, tool_filter=tool_filter), calls))
    for call, result in zip(calls, results, strict=True):
        _notify(observer, _Notify("on_tool_result", (call, result)))
    return results


async def _run_async(
    calls: list[ToolCall | InvalidToolCall],
    registry: ToolRegistry,
    tool_filter: ToolFilter | str | None,
    observer: object | None,
    parallel: bool,
) -> list[ToolResult]:
    async def tell(event: str, *args: Any) -> None:
        outcome = _notify(observer, _Notify(event, args))
        if inspect.isawaitable(outcome):
            await outcome

    if not parallel:
        results = []
        for call in calls:
            await tell("on_tool_call", call)
            result = await registry.aexecute(call, tool_filter=tool_filter)
            await tell("on_tool_result", call, result)
            results.append(result)
        return results
    for call in calls:
        await tell("on_tool_call", call)
    results = list(
        await asyncio.gather(*(registry.aexecute(c, tool_filter=tool_filter) for c in calls))
    )
    for call, result in zip(calls, results, strict=True):
        await tell("on_tool_result", call, result)
    return results


def _notify(observer: object | None, need: _Notify) -> Any:
    callback = getattr(observer, need.event, None)
    return callback(*need.args) if callable(callback) else None


def _close(awaitable: Awaitable[Any]) -> None:
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()


def _messages(encoded: Any) -> list[dict[str, Any]]:
    """``encode_calls`` gives one message, or for the Responses API a list of input items."""
    return encoded if isinstance(encoded, list) else [encoded]


def _response_text(response: Any) -> tuple[str | None, bool]:
    """The text of a response (SPEC §4.4's shapes) and whether it carries native calls."""
    if isinstance(response, str):
        return response, False
    if not isinstance(response, Mapping):
        return None, False
    choices = response.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        message = choices[0].get("message") or {}
        return _text_or_none(message.get("content")), bool(message.get("tool_calls"))
    content = response.get("content")
    if isinstance(content, list):  # Anthropic Messages
        texts = [
            b.get("text", "") for b in content if isinstance(b, Mapping) and b.get("type") == "text"
        ]
        uses = any(isinstance(b, Mapping) and b.get("type") == "tool_use" for b in content)
        return ("".join(texts) if texts else None), uses
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
        return ("".join(texts) if texts else None), calls
    candidates = response.get("candidates")
    if isinstance(candidates, list) and candidates and isinstance(candidates[0], Mapping):
        parts = (candidates[0].get("content") or {}).get("parts") or []  # Gemini
        texts = [
            p["text"] for p in parts if isinstance(p, Mapping) and isinstance(p.get("text"), str)
        ]
        calls = any(isinstance(p, Mapping) and "functionCall" in p for p in parts)
        return ("".join(texts) if texts else None), calls
    message = response.get("message")
    if isinstance(message, Mapping):  # Ollama /api/chat
        return _text_or_none(message.get("content")), bool(message.get("tool_calls"))
    return _text_or_none(response.get("text")), bool(response.get("tool_calls"))


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
