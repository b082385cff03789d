"""The bounded multi-turn tool loop (docs/tools.md): run the calls still pending, ask the provider,
run the calls it makes, give it the results, and repeat until it answers without calls or the
bounds are hit.

The loop's logic is written once, as a generator that yields what it needs (a provider answer,
a pass of tool runs, an observer notification); a sync and an async driver serve those needs.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Generator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ._choice import check_one_of
from ._filter import ToolFilter
from ._history import unanswered
from ._registry import ToolRegistry
from ._reply import Reply, StreamReader, is_async_stream, is_stream, read_whole
from ._toolwire import InvalidToolCall, ToolCall
from ._types import Diagnostic, ToolResult
from .codecs import PROVIDERS, Provider, encode_calls, encode_results

if TYPE_CHECKING:
    from ._toolwire import Event

__all__ = ["LoopObserver", "LoopResult", "MessageFormat", "arun_tool_loop", "run_tool_loop"]

MessageFormat = Provider
StoppedReason = Literal["final", "max_turns", "error"]


@dataclass(frozen=True)
class LoopResult:
    """What a tool loop did.

    - ``messages``: the conversation: the input messages (with the results of the calls that
      were pending placed after them), then for each tool pass the assistant message with its
      calls and the result messages, in the provider's format; on ``"final"`` also the final
      assistant message.
    - ``final_response``: the last provider response (for a stream, the list of its items; on
      ``"max_turns"`` its calls were not run; on ``"error"`` the last good response, or None).
    - ``turns``: turns begun; ``provider_calls``: times the provider was called.
    - ``tool_calls`` / ``tool_results``: every call run and its result, in order (the pending
      calls of the input first).
    - ``stopped_reason``: ``"final"`` (an answer without calls), ``"max_turns"`` (the bounds
      were hit) or ``"error"`` (the provider raised or sent an unreadable answer: ``error``).
    - ``diagnostics``: every :class:`Diagnostic` of the run, in the order they arose: those
      of the tool results, and the loop's own (provider failures, calls left unrun at the
      bounds, text-written calls the native policy did not run).
    """

    messages: list[Any]
    final_response: Any
    turns: int
    tool_calls: list[ToolCall]
    stopped_reason: StoppedReason
    tool_results: list[ToolResult] = field(default_factory=list)
    provider_calls: int = 0
    error: BaseException | None = None
    diagnostics: tuple[Diagnostic, ...] = ()


class LoopObserver(Protocol):
    """The callbacks a loop observer may implement; each is optional (duck-typed), and in
    :func:`arun_tool_loop` each may also be ``async def``.

    Order: ``on_start(messages)``; for the pending calls of the input, ``on_tool_call`` /
    ``on_tool_result`` then ``on_message`` for each result message; per provider answer
    ``on_delta(event)`` for each stream event as it arrives (streams only); per tool pass
    ``on_message(assistant message)``, then ``on_tool_call(call)`` /
    ``on_tool_result(call, result)`` (interleaved per call when sequential; all calls then all
    results, in call order, when parallel; a call run early from a stream has its
    ``on_tool_call`` while the stream is read), then ``on_message(m)`` for each result
    message; ``on_message(final assistant message)``; ``on_error(error)`` if the loop stops on
    an error; ``on_final(result)`` last, always. ``on_message`` is the reference's
    "interaction completed" hook.
    """

    def on_start(self, messages: list[Any]) -> Any:
        """The loop starts from ``messages`` (a copy of the input history)."""

    def on_delta(self, event: Event) -> Any:
        """A stream ``event`` of the provider's answer, as it arrives."""

    def on_tool_call(self, call: ToolCall) -> Any:
        """``call`` is about to run."""

    def on_tool_result(self, call: ToolCall, result: ToolResult) -> Any:
        """``call`` ran and gave ``result`` (an error result when it failed)."""

    def on_message(self, message: Any) -> Any:
        """The loop added ``message`` to the history (assistant, results, final answer)."""

    def on_final(self, result: LoopResult) -> Any:
        """The loop ended with ``result``; always called, last."""

    def on_error(self, error: BaseException) -> Any:
        """The loop stops on ``error`` (a provider failure or an unreadable answer)."""


# The needs of the loop logic, answered by a driver.
@dataclass(frozen=True)
class _Ask:
    messages: list[Any]
    # The answer's calls will be run (the bounds allow it): they may start while it streams.
    may_run: bool


@dataclass(frozen=True)
class _Run:
    calls: list[ToolCall | InvalidToolCall]
    # Position -> the run started while the answer streamed (a result, or a future of one).
    started: dict[int, Any]


@dataclass(frozen=True)
class _Notify:
    event: str
    args: tuple[Any, ...]


_Need = _Ask | _Run | _Notify
_Steps = Generator[_Need, Any, LoopResult]
_Part = Generator[_Need, Any, None]


@dataclass(frozen=True)
class _Options:
    provider_format: str
    max_turns: int
    max_tool_passes: int
    native_tool_calls: bool | None
    early_tools: bool


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
    native_tool_calls: bool | None = None,
    early_tools: bool = False,
) -> LoopResult:
    """Run tools for a model until it answers without calls, or the bounds are hit.

    First, the calls of ``messages`` that no tool result answers (:func:`pending_calls`) are
    run and their results placed after them: the provider is never sent a pending call.

    ``provider(messages)`` returns a response: a full provider body (OpenAI, Anthropic, Ollama,
    OpenAI Responses, Gemini; an SDK object with ``model_dump`` too), a ``{"text",
    "tool_calls"}`` mapping or plain text; or a stream: an iterator of ``provider_format``'s
    chunks or events (OpenAI and Anthropic; dicts or SDK objects) or of model text (``str`` or
    ``bytes``). A stream is read as it arrives, each event given to the observer's
    ``on_delta``, and gives the same calls as the whole response would. Calls are found with
    :func:`extract`, executed with ``registry.execute`` (filtered by ``tool_filter``, else the
    registry's filter), and appended as one assistant message with native calls plus the
    result messages, in ``provider_format`` (any of the codecs' providers: ``openai``,
    ``openai_responses``, ``anthropic``, ``ollama``, ``gemini``).

    ``native_tool_calls`` is the policy for calls written in the text of an answer: ``True``,
    the provider calls tools natively, so text is read for ``~~~tool_call`` fences only (the
    fallback for models that ignore the native API), and other markup or JSON in it is prose
    that never runs (it may quote a document or a tool result); ``False``, every text format
    is read (a server that returns the model's raw text); ``None`` (default): ``True`` for
    provider bodies and event streams, ``False`` for text and the ``{"text", "tool_calls"}``
    mapping. Calls left unread by the policy are reported in ``diagnostics``.

    A turn is one provider call plus up to ``max_tool_passes`` passes of tool runs, each
    followed by a provider call, so the provider is called at most
    ``max_turns * (1 + max_tool_passes)`` times. With ``parallel_tools`` the calls of one pass
    run in a thread pool; results keep call order, so the messages are the same as sequential.
    With ``early_tools``, a streamed call starts as soon as its end event arrives, while the
    answer still streams (in the pool when ``parallel_tools``); the messages and results are
    the same. ``observer`` is any object with some of the :class:`LoopObserver` callbacks.
    The input ``messages`` are not modified.

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
    options = _Options(provider_format, max_turns, max_tool_passes, native_tool_calls, early_tools)
    steps = _steps(messages, options)
    pool = ThreadPoolExecutor(thread_name_prefix="toolwire-loop") if parallel_tools else None
    tools = _SyncTools(registry, tool_filter, observer, pool)
    try:
        need = next(steps)
        while True:
            if isinstance(need, _Ask):
                try:
                    answer: Any = _ask_sync(provider, need, options, tools, observer)
                except Exception as e:
                    need = steps.throw(e)
                    continue
            elif isinstance(need, _Run):
                answer = tools.run(need.calls, need.started)
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
    native_tool_calls: bool | None = None,
    early_tools: bool = False,
) -> LoopResult:
    """The async :func:`run_tool_loop`: ``provider`` may be sync or ``async def`` and may
    return an async iterator (a stream), tools run with ``registry.aexecute`` (concurrently
    with ``asyncio.gather`` when ``parallel_tools``, as tasks started during the stream with
    ``early_tools``), ``observer`` callbacks may be ``async def``. Same messages, bounds and
    result.

    The other parameters are :func:`run_tool_loop`'s: ``messages`` (the history, not
    modified), ``provider_format`` (the wire format of the messages), ``max_turns`` and
    ``max_tool_passes`` (the bounds), ``tool_filter`` (else the registry's filter) and
    ``native_tool_calls`` (the policy for calls written in an answer's text).

    >>> import asyncio
    >>> registry = ToolRegistry(filter="*")
    >>> async def provider(messages):
    ...     return {"text": "no tools needed"}
    >>> asyncio.run(arun_tool_loop(provider, [], registry)).stopped_reason
    'final'
    """
    options = _Options(provider_format, max_turns, max_tool_passes, native_tool_calls, early_tools)
    steps = _steps(messages, options)
    tools = _AsyncTools(registry, tool_filter, observer, parallel_tools)
    try:
        need = next(steps)
        while True:
            if isinstance(need, _Ask):
                try:
                    answer: Any = await _ask_async(provider, need, options, tools, observer)
                except Exception as e:
                    need = steps.throw(e)
                    continue
            elif isinstance(need, _Run):
                answer = await tools.run(need.calls, need.started)
            else:
                answer = await _anotify(observer, need)
            need = steps.send(answer)
    except StopIteration as stop:
        result: LoopResult = stop.value
        return result


def _steps(messages: Sequence[Any], options: _Options) -> _Steps:
    """The loop itself, independent of sync/async and of whole or streamed answers."""
    fmt = check_one_of("provider_format", options.provider_format, PROVIDERS)
    if options.max_turns < 1 or options.max_tool_passes < 0:
        raise ValueError("max_turns must be at least 1 and max_tool_passes at least 0")
    history = list(messages)
    pending = unanswered(history, fmt)
    per_turn = 1 + options.max_tool_passes
    budget = options.max_turns * per_turn
    ran: list[ToolCall] = []
    results: list[ToolResult] = []
    notes: list[Diagnostic] = []
    response: Any = None
    asked = 0

    def finish(reason: StoppedReason, error: BaseException | None = None) -> _Steps:
        turns = -(-asked // per_turn)
        result = LoopResult(
            history, response, turns, ran, reason, results, asked, error, tuple(notes)
        )
        if error is not None:
            yield _Notify("on_error", (error,))
        yield _Notify("on_final", (result,))
        return result

    def run_calls(
        found: list[ToolCall | InvalidToolCall], calls: list[ToolCall], started: dict[int, Any]
    ) -> Generator[_Need, Any, list[ToolResult]]:
        """Runs ``found`` (recorded as ``calls``) and records their results; returns them."""
        outcomes: list[ToolResult] = yield _Run(list(found), started)
        outcomes = [_paired(c, o) for c, o in zip(calls, outcomes, strict=True)]
        ran.extend(calls)
        results.extend(outcomes)
        notes.extend(d for o in outcomes for d in o.diagnostics)
        return outcomes

    def append(new: list[Any], at: int | None = None) -> _Part:
        at = len(history) if at is None else at
        history[at:at] = new
        for message in new:
            yield _Notify("on_message", (message,))
        return None

    def tool_pass(reply: Reply) -> _Part:
        """The assistant message of ``reply`` (text-written calls become native calls; their
        markup is not repeated), then its calls' results."""
        calls = [_placeholder(c) if isinstance(c, InvalidToolCall) else c for c in reply.calls]
        content = reply.text if reply.structured else None
        yield from append(_messages(encode_calls(calls, fmt, content=content)))
        outcomes = yield from run_calls(reply.calls, calls, reply.started)
        yield from append(encode_results(outcomes, fmt))
        return None

    yield _Notify("on_start", (list(history),))
    if pending:
        calls = [call for _, call in pending]
        outcomes = yield from run_calls(list(calls), calls, {})
        shift = 0  # results placed earlier move the later places
        for place in sorted({place for place, _ in pending}):
            answers = [o for (p, _), o in zip(pending, outcomes, strict=True) if p == place]
            encoded = encode_results(answers, fmt)
            yield from append(encoded, place + shift)
            shift += len(encoded)
    while True:
        asked += 1
        try:
            reply: Reply = yield _Ask(list(history), may_run=asked < budget)
        except Exception as e:
            notes.append(_provider_failure(e))
            return (yield from finish("error", e))
        if reply.error is not None:
            # The stream failed after some of its calls had started: record what ran.
            yield from tool_pass(reply)
            notes.append(_provider_failure(reply.error))
            return (yield from finish("error", reply.error))
        response = reply.response
        if reply.quoted:
            notes.append(_quoted_note(reply.quoted))
        if not reply.calls:
            yield from append(_messages(encode_calls([], fmt, content=reply.text)))
            return (yield from finish("final"))
        if asked >= budget:
            notes.append(_bounds_note(len(reply.calls), budget, options))
            return (yield from finish("max_turns"))
        yield from tool_pass(reply)


def _placeholder(invalid: InvalidToolCall) -> ToolCall:
    """A call that could not be read still gets an id and a place in the assistant message, so
    its error result pairs with it as every provider requires."""
    return ToolCall(None, invalid.name or "invalid_tool_call", {})


def _paired(call: ToolCall, outcome: ToolResult) -> ToolResult:
    """``outcome`` with the id of the call it answers (a placeholder's id for a call that
    could not be read), on the result and its diagnostics."""
    if outcome.tool_call_id is not None:
        return outcome
    notes = tuple(replace(d, call_id=d.call_id or call.id) for d in outcome.diagnostics)
    return replace(outcome, tool_call_id=call.id, name=outcome.name or call.name, diagnostics=notes)


def _provider_failure(error: BaseException) -> Diagnostic:
    detail = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return Diagnostic("error", "provider", f"The provider's answer failed with {detail}.")


def _quoted_note(count: int) -> Diagnostic:
    return Diagnostic(
        "warning",
        "parse",
        f"The answer's text holds {count} tool call(s) written as text; they were not run, "
        "since the provider calls tools natively. Pass native_tool_calls=False if this "
        "provider's calls arrive as text.",
    )


def _bounds_note(unrun: int, budget: int, options: _Options) -> Diagnostic:
    return Diagnostic(
        "warning",
        "loop",
        f"The loop stopped at its bound of {budget} provider calls (max_turns="
        f"{options.max_turns}, max_tool_passes={options.max_tool_passes}); the {unrun} call(s) "
        "of the last answer were not run.",
    )


# --- answers ---------------------------------------------------------------------------------


def _ask_sync(
    provider: Callable[[list[Any]], Any],
    need: _Ask,
    options: _Options,
    tools: _SyncTools,
    observer: object | None,
) -> Reply:
    answer = provider(need.messages)
    if inspect.isawaitable(answer) or is_async_stream(answer):
        _close(answer)
        raise TypeError("the provider returned an awaitable or async stream: use arun_tool_loop")
    if not is_stream(answer):
        return read_whole(answer, options.native_tool_calls)
    reader = StreamReader(options.provider_format, options.native_tool_calls)
    started: dict[int, Any] = {}

    def read(events: list[Event]) -> None:
        for event in events:
            _notify(observer, _Notify("on_delta", (event,)))
            position = reader.position(event)
            if position is not None and options.early_tools and need.may_run:
                started[position] = tools.start(event.call)  # type: ignore[union-attr]

    try:
        for item in answer:
            read(reader.feed(item))
        read(reader.finish())
    except Exception as e:
        if not started:
            raise
        return _failed(reader, started, e)
    finally:
        _close(answer)
    return _read(reader, started)


async def _ask_async(
    provider: Callable[[list[Any]], Any],
    need: _Ask,
    options: _Options,
    tools: _AsyncTools,
    observer: object | None,
) -> Reply:
    answer = provider(need.messages)
    if inspect.isawaitable(answer):
        answer = await answer
    if not is_stream(answer) and not is_async_stream(answer):
        return read_whole(answer, options.native_tool_calls)
    reader = StreamReader(options.provider_format, options.native_tool_calls)
    started: dict[int, Any] = {}

    async def read(events: list[Event]) -> None:
        for event in events:
            await _anotify(observer, _Notify("on_delta", (event,)))
            position = reader.position(event)
            if position is not None and options.early_tools and need.may_run:
                started[position] = await tools.start(event.call)  # type: ignore[union-attr]

    try:
        if is_async_stream(answer):
            async for item in answer:
                await read(reader.feed(item))
        else:
            for item in answer:
                await read(reader.feed(item))
        await read(reader.finish())
    except Exception as e:
        if not started:
            raise
        return _failed(reader, started, e)
    finally:
        close = getattr(answer, "aclose", None)
        if callable(close):
            await close()
        else:
            _close(answer)
    return _read(reader, started)


def _read(reader: StreamReader, started: dict[int, Any]) -> Reply:
    reply = reader.reply()
    reply.started.update(started)
    return reply


def _failed(reader: StreamReader, started: dict[int, Any], error: Exception) -> Reply:
    """The reply of a stream that failed after ``started`` calls began: those calls only."""
    reply = reader.reply(error)
    order = sorted(started)
    reply.calls = [reply.calls[p] for p in order]
    reply.started.update({i: started[p] for i, p in enumerate(order)})
    return reply


# --- tool runs -------------------------------------------------------------------------------


class _SyncTools:
    """Runs calls for the sync driver: in order, or in a thread pool."""

    def __init__(
        self,
        registry: ToolRegistry,
        tool_filter: ToolFilter | str | None,
        observer: object | None,
        pool: ThreadPoolExecutor | None,
    ) -> None:
        self.registry, self.tool_filter, self.observer, self.pool = (
            registry,
            tool_filter,
            observer,
            pool,
        )

    def execute(self, call: ToolCall | InvalidToolCall) -> ToolResult:
        return self.registry.execute(call, tool_filter=self.tool_filter)

    def start(self, call: ToolCall | InvalidToolCall) -> ToolResult | Future[ToolResult]:
        """Starts ``call``: a future in the pool, else its result (both told to the observer)."""
        if self.pool is None:
            return self._one(call)
        _notify(self.observer, _Notify("on_tool_call", (call,)))
        return self.pool.submit(self.execute, call)

    def _one(self, call: ToolCall | InvalidToolCall) -> ToolResult:
        _notify(self.observer, _Notify("on_tool_call", (call,)))
        result = self.execute(call)
        _notify(self.observer, _Notify("on_tool_result", (call, result)))
        return result

    def run(
        self, calls: list[ToolCall | InvalidToolCall], started: dict[int, Any]
    ) -> list[ToolResult]:
        if self.pool is None:
            return [started[i] if i in started else self._one(c) for i, c in enumerate(calls)]
        for i, call in enumerate(calls):
            if i not in started:
                _notify(self.observer, _Notify("on_tool_call", (call,)))
        futures = [
            started[i] if i in started else self.pool.submit(self.execute, c)
            for i, c in enumerate(calls)
        ]
        results = [future.result() for future in futures]
        for call, result in zip(calls, results, strict=True):
            _notify(self.observer, _Notify("on_tool_result", (call, result)))
        return results


class _AsyncTools:
    """Runs calls for the async driver: in order, or concurrently as tasks."""

    def __init__(
        self,
        registry: ToolRegistry,
        tool_filter: ToolFilter | str | None,
        observer: object | None,
        parallel: bool,
    ) -> None:
        self.registry, self.tool_filter, self.observer, self.parallel = (
            registry,
            tool_filter,
            observer,
            parallel,
        )

    async def start(self, call: ToolCall | InvalidToolCall) -> ToolResult | asyncio.Task[Any]:
        """Starts ``call``: a task when parallel, else its result (told to the observer)."""
        if not self.parallel:
            return await self._one(call)
        await _anotify(self.observer, _Notify("on_tool_call", (call,)))
        return asyncio.ensure_future(self.execute(call))

    def execute(self, call: ToolCall | InvalidToolCall) -> Awaitable[ToolResult]:
        return self.registry.aexecute(call, tool_filter=self.tool_filter)

    async def _one(self, call: ToolCall | InvalidToolCall) -> ToolResult:
        await _anotify(self.observer, _Notify("on_tool_call", (call,)))
        result = await self.execute(call)
        await _anotify(self.observer, _Notify("on_tool_result", (call, result)))
        return result

    async def run(
        self, calls: list[ToolCall | InvalidToolCall], started: dict[int, Any]
    ) -> list[ToolResult]:
        if not self.parallel:
            return [started[i] if i in started else await self._one(c) for i, c in enumerate(calls)]
        for i, call in enumerate(calls):
            if i not in started:
                await _anotify(self.observer, _Notify("on_tool_call", (call,)))
        work = [started[i] if i in started else self.execute(c) for i, c in enumerate(calls)]
        results: list[ToolResult] = list(await asyncio.gather(*work))
        for call, result in zip(calls, results, strict=True):
            await _anotify(self.observer, _Notify("on_tool_result", (call, result)))
        return results


# --- helpers ---------------------------------------------------------------------------------


def _notify(observer: object | None, need: _Notify) -> Any:
    callback = getattr(observer, need.event, None)
    return callback(*need.args) if callable(callback) else None


async def _anotify(observer: object | None, need: _Notify) -> Any:
    outcome = _notify(observer, need)
    return await outcome if inspect.isawaitable(outcome) else outcome


def _close(answer: Awaitable[Any] | Any) -> None:
    """Closes an answer the loop is done with: a coroutine it will not await, a stream it
    stopped reading (a generator, an SDK stream's connection)."""
    close = getattr(answer, "close", None)
    if callable(close):
        close()


def _messages(encoded: Any) -> list[dict[str, Any]]:
    """``encode_calls`` gives one message, or for the Responses API a list of input items."""
    return encoded if isinstance(encoded, list) else [encoded]
