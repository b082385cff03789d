"""A registry of callable tools that runs tool calls and never raises for a tool's failure
(docs/tools.md)."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import threading
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, overload

from ._errors import ToolDefinitionError
from ._filter import ToolFilter
from ._history import pending_calls
from ._signature import Binding, binding_of
from ._toolwire import InvalidToolCall, ToolCall
from ._types import Diagnostic, Origin, Tool, ToolResult
from ._validation import validate_arguments
from .codecs import Provider, encode_tools

__all__ = ["FilterSpec", "ToolRegistry"]

F = TypeVar("F", bound=Callable[..., Any])
FilterSpec = ToolFilter | str | None


@dataclass(frozen=True)
class _Entry:
    tool: Tool
    func: Callable[..., Any] | None
    timeout: float | None
    binding: Binding | None


@dataclass(frozen=True)
class _Ready:
    """A call that passed every check and can run, with the function's keyword arguments."""

    call: ToolCall
    func: Callable[..., Any]
    arguments: dict[str, Any]
    timeout: float | None


class ToolRegistry:
    """Named tools with their implementations, a tool filter, and safe execution.

    The filter defaults to ``"-*"``: nothing runs until tools are enabled, by passing
    ``filter=`` here, setting :attr:`filter`, or giving ``tool_filter=`` per call.
    ``execute``/``aexecute`` turn every failure (unknown or filtered tool, invalid arguments,
    an exception, a timeout) into a ``ToolResult`` with ``is_error=True``, a message the model
    can act on, and a :class:`Diagnostic` per problem for logs and UIs.

    A function is only ever given the arguments its tool's schema declares: an argument the
    schema does not list is refused (an error result naming it) unless the schema explicitly
    allows extra properties and the function takes ``**kwargs``. Parameters typed with a
    pydantic model receive a validated model instance.

    >>> registry = ToolRegistry(filter="*")
    >>> @registry.tool
    ... def add(a: int, b: int = 1) -> int:
    ...     '''Add two integers.'''
    ...     return a + b
    >>> registry.execute(ToolCall("call_1", "add", {"a": 2}))
    ToolResult(tool_call_id='call_1', name='add', content='3', is_error=False)
    >>> print(registry.execute(ToolCall("call_2", "add", {"a": "2"})).content)
    Arguments for tool 'add' are invalid at 'a': "2" is not of type "integer". Retry the tool call with a corrected value for 'a'.
    """  # noqa: E501

    def __init__(
        self,
        tools: Iterable[Callable[..., Any] | Tool] = (),
        *,
        filter: FilterSpec = "-*",
        timeout: float | None = None,
    ) -> None:
        self._entries: dict[str, _Entry] = {}
        self._filter = ToolFilter(filter)
        self.timeout = timeout
        for item in tools:
            self.register(item)

    @property
    def filter(self) -> ToolFilter:
        """The default tool filter of this registry (``ToolFilter("-*")`` unless set)."""
        return self._filter

    @filter.setter
    def filter(self, spec: FilterSpec) -> None:
        self._filter = ToolFilter(spec)

    def register(
        self,
        func_or_tool: Callable[..., Any] | Tool,
        func: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        category: str | None = None,
        timeout: float | None = None,
    ) -> Tool:
        """Add a tool; returns its definition.

        ``func_or_tool`` is a function (sync or ``async def``; its schema is derived from the
        signature, type hints and docstring) or a :class:`Tool` with an explicit schema, whose
        implementation is ``func``. ``name`` and ``category`` override the tool's own;
        ``timeout`` (seconds) bounds each run of the tool. A registered name must be unique.

        >>> registry = ToolRegistry(filter="*")
        >>> schema = {"type": "object", "properties": {"q": {"type": "string"}}}
        >>> registry.register(Tool("search", "Search the web", schema), lambda q: [q]).name
        'search'
        """
        from ._signature import tool_from_function

        if isinstance(func_or_tool, Tool):
            tool = func_or_tool
            if name is not None or category is not None:
                tool = dataclasses.replace(
                    tool, name=name or tool.name, category=category or tool.category
                )
        elif callable(func_or_tool):
            if func is not None:
                raise ToolDefinitionError("give either a function or a Tool and its function")
            func = func_or_tool
            tool = tool_from_function(func, name=name, category=category)
        else:
            raise ToolDefinitionError(f"cannot register {func_or_tool!r}: not a function or Tool")
        if tool.name in self._entries:
            raise ToolDefinitionError(f"a tool named {tool.name!r} is already registered")
        if timeout is not None and timeout <= 0:
            raise ToolDefinitionError(f"the timeout of tool {tool.name!r} must be positive")
        binding = binding_of(func, tool.parameters) if func is not None else None
        self._entries[tool.name] = _Entry(tool, func, timeout, binding)
        return tool

    @overload
    def tool(self, func: F, /) -> F: ...
    @overload
    def tool(
        self,
        func: None = None,
        /,
        *,
        name: str | None = None,
        category: str | None = None,
        timeout: float | None = None,
    ) -> Callable[[F], F]: ...
    def tool(
        self,
        func: F | None = None,
        /,
        *,
        name: str | None = None,
        category: str | None = None,
        timeout: float | None = None,
    ) -> F | Callable[[F], F]:
        """Decorator form of :meth:`register`: ``@registry.tool`` (``func`` is the decorated
        function) or ``@registry.tool(name=..., category=..., timeout=...)``. Returns the
        function as is.

        >>> registry = ToolRegistry(filter="*")
        >>> @registry.tool(category="web", timeout=5)
        ... async def fetch(url: str) -> str:
        ...     '''Fetch a page.'''
        ...     return "<html>"
        >>> registry.get("fetch").category
        'web'
        """

        def decorate(f: F) -> F:
            self.register(f, name=name, category=category, timeout=timeout)
            return f

        return decorate(func) if func is not None else decorate

    def get(self, name: str) -> Tool | None:
        """The definition of the tool called ``name``, if registered."""
        entry = self._entries.get(name)
        return entry.tool if entry else None

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Tool]:
        return (entry.tool for entry in self._entries.values())

    def tools(self, tool_filter: FilterSpec = None) -> list[Tool]:
        """The definitions ``tool_filter`` allows (the registry's filter when None), in
        registration order."""
        allowed = self._resolve_filter(tool_filter)
        return [t for t in self if allowed.allows(t.name, t.category)]

    def definitions(
        self, tool_filter: FilterSpec = None, provider: Provider = "openai"
    ) -> list[dict[str, Any]]:
        """The wire definitions for ``provider`` (``encode_tools``) of the tools
        ``tool_filter`` allows (the registry's filter when None).

        >>> registry = ToolRegistry(filter="*")
        >>> _ = registry.register(Tool("ping"), lambda: "pong")
        >>> registry.definitions(provider="anthropic")[0]["name"]
        'ping'
        """
        return encode_tools(self.tools(tool_filter), provider)

    def execute(
        self, call: ToolCall | InvalidToolCall, *, tool_filter: FilterSpec = None
    ) -> ToolResult:
        """Run ``call`` and return its result; never raises for a failure of the tool or of
        the call (see the class docs). ``tool_filter`` replaces the registry's filter for this
        call. A sync tool with a timeout runs in a daemon thread, which
        is abandoned (not killed) on timeout; an ``async def`` tool runs in its own event loop.
        """
        ready = self._prepare(call, tool_filter)
        if isinstance(ready, ToolResult):
            return ready
        if inspect.iscoroutinefunction(ready.func):
            return _in_new_loop(self._run_async(ready))
        if ready.timeout is None:
            return _outcome(ready, lambda: ready.func(**ready.arguments))
        return _with_thread_timeout(ready)

    def execute_pending(
        self,
        messages: Sequence[Any],
        *,
        provider_format: Provider = "openai",
        tool_filter: FilterSpec = None,
    ) -> ToolResult:
        """Run the one call of ``messages`` that no tool result answers yet (see
        :func:`pending_calls`) and return its result, as :meth:`execute` does (with
        ``tool_filter``). ``provider_format`` is the wire format of ``messages``.

        With no pending call, or more than one, nothing runs: the result is an error result
        (no call id) that says which, with a ``"loop"`` diagnostic.

        >>> registry = ToolRegistry(filter="*")
        >>> _ = registry.register(Tool("ping"), lambda: "pong")
        >>> history = [{"role": "assistant", "content": None, "tool_calls": [
        ...     {"id": "c1", "type": "function", "function": {"name": "ping", "arguments": "{}"}}]}]
        >>> registry.execute_pending(history).content
        'pong'
        >>> registry.execute_pending([]).content
        'No tool call is pending: every call of the conversation has a result.'
        """
        only = _only_pending(messages, provider_format)
        if isinstance(only, ToolResult):
            return only
        return self.execute(only, tool_filter=tool_filter)

    async def aexecute_pending(
        self,
        messages: Sequence[Any],
        *,
        provider_format: Provider = "openai",
        tool_filter: FilterSpec = None,
    ) -> ToolResult:
        """Async :meth:`execute_pending`: run the one pending call of ``messages`` (in
        ``provider_format``), filtered by ``tool_filter``."""
        only = _only_pending(messages, provider_format)
        if isinstance(only, ToolResult):
            return only
        return await self.aexecute(only, tool_filter=tool_filter)

    async def aexecute(
        self, call: ToolCall | InvalidToolCall, *, tool_filter: FilterSpec = None
    ) -> ToolResult:
        """Async :meth:`execute` of ``call`` (filtered by ``tool_filter``): ``async def`` tools
        are awaited, sync tools run in a daemon
        worker thread so they never block the event loop (abandoned, not killed, on timeout)."""
        ready = self._prepare(call, tool_filter)
        if isinstance(ready, ToolResult):
            return ready
        return await self._run_async(ready)

    async def _run_async(self, ready: _Ready) -> ToolResult:
        if inspect.iscoroutinefunction(ready.func):
            work: Awaitable[Any] = ready.func(**ready.arguments)
        else:
            work = _in_daemon_thread(ready.func, ready.arguments)
        try:
            value = await asyncio.wait_for(work, ready.timeout)
        except TimeoutError:
            return _timeout_result(ready)
        except Exception as e:
            return _exception_result(ready.call, e)
        return _result_of(ready.call, value)

    def _resolve_filter(self, tool_filter: FilterSpec) -> ToolFilter:
        return self._filter if tool_filter is None else ToolFilter(tool_filter)

    def _prepare(
        self, call: ToolCall | InvalidToolCall, tool_filter: FilterSpec
    ) -> _Ready | ToolResult:
        """Every check before running: the call itself, the name, the filter, the arguments."""
        if isinstance(call, InvalidToolCall):
            message = (
                f"The tool call could not be read: {call.error}. Retry the tool call with a "
                'JSON object of the form {"name": ..., "arguments": {...}}.'
            )
            return _failure(None, call.name, "parse", message)
        allowed = self._resolve_filter(tool_filter)
        entry = self._entries.get(call.name)
        if entry is None or not allowed.allows(entry.tool.name, entry.tool.category):
            names = [t.name for t in self.tools(allowed)]
            reason = "Unknown tool" if entry is None else "Tool"
            state = "" if entry is None else " is not enabled for this request"
            hint = (
                f" Available tools: {', '.join(names)}. Retry with one of these names."
                if names
                else " No tools are available: answer without calling tools."
            )
            origin: Origin = "registry" if entry is None else "filter"
            return _error(call, origin, f"{reason} '{call.name}'{state}.{hint}")
        if entry.func is None or entry.binding is None:
            message = f"Tool '{call.name}' has no implementation. Continue without it."
            return _error(call, "registry", message)
        try:
            problems = validate_arguments(entry.tool, call.arguments)
        except ToolDefinitionError as e:
            message = f"Tool '{call.name}' cannot be used: {e}. Continue without it."
            return _error(call, "registry", message)
        if problems:
            return _error(call, "validation", *problems)
        undeclared = entry.binding.undeclared(call.arguments)
        if undeclared:
            message = (
                f"Arguments for tool '{call.name}' have properties the tool does not take: "
                f"{', '.join(undeclared)}. Retry the tool call without them."
            )
            return _error(call, "validation", message)
        arguments, problems = entry.binding.convert(call.name, call.arguments)
        if problems:
            return _error(call, "validation", *problems)
        timeout = entry.timeout if entry.timeout is not None else self.timeout
        return _Ready(call, entry.func, arguments, timeout)


def _only_pending(messages: Sequence[Any], provider_format: Provider) -> ToolCall | ToolResult:
    """The one pending call of ``messages``, or the error result saying there is not one."""
    pending = pending_calls(messages, provider_format=provider_format)
    if len(pending) == 1:
        return pending[0]
    if not pending:
        message = "No tool call is pending: every call of the conversation has a result."
    else:
        listed = ", ".join(f"{c.id} ({c.name})" for c in pending)
        message = (
            f"{len(pending)} tool calls are pending ({listed}); execute_pending runs exactly "
            "one. Run them with run_tool_loop, or each with execute."
        )
    return _failure(None, None, "loop", message)


def _failure(call_id: str | None, name: str | None, origin: Origin, *messages: str) -> ToolResult:
    """An error result: the messages, one line each, and a diagnostic per message."""
    notes = tuple(Diagnostic("error", origin, m, call_id) for m in messages)
    return ToolResult(call_id, name, "\n".join(messages), True, notes)


def _error(call: ToolCall, origin: Origin, *messages: str) -> ToolResult:
    return _failure(call.id, call.name, origin, *messages)


def _exception_result(call: ToolCall, e: BaseException) -> ToolResult:
    detail = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
    return _error(
        call,
        "execution",
        f"Tool '{call.name}' failed with {detail}. Check the arguments and retry, or continue "
        "without this tool.",
    )


def _timeout_result(ready: _Ready) -> ToolResult:
    return _error(
        ready.call,
        "timeout",
        f"Tool '{ready.call.name}' did not finish within {ready.timeout:g} seconds. Retry with a "
        "smaller request, or continue without this tool.",
    )


def _outcome(ready: _Ready, run: Callable[[], Any]) -> ToolResult:
    try:
        value = run()
    except Exception as e:
        return _exception_result(ready.call, e)
    return _result_of(ready.call, value)


def _result_of(call: ToolCall, value: Any) -> ToolResult:
    """A tool's return value as a result: text as is, a ``ToolResult`` completed with the call's
    id and name (on its diagnostics too), anything else as compact JSON text (so every provider
    accepts it)."""
    if isinstance(value, ToolResult):
        call_id = value.tool_call_id or call.id
        notes = tuple(
            dataclasses.replace(d, call_id=d.call_id or call_id) for d in value.diagnostics
        )
        return dataclasses.replace(
            value, tool_call_id=call_id, name=value.name or call.name, diagnostics=notes
        )
    if isinstance(value, str):
        return ToolResult(call.id, call.name, value)
    try:
        text = json.dumps(_plain(value), ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError) as e:
        return _exception_result(call, e)
    return ToolResult(call.id, call.name, text)


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    dump = getattr(value, "model_dump", None)  # pydantic v2 models
    return dump(mode="json") if callable(dump) else value


def _with_thread_timeout(ready: _Ready) -> ToolResult:
    box: list[ToolResult] = []
    worker = threading.Thread(
        target=lambda: box.append(_outcome(ready, lambda: ready.func(**ready.arguments))),
        name=f"toolwire-tool-{ready.call.name}",
        daemon=True,
    )
    worker.start()
    worker.join(ready.timeout)
    return box[0] if box else _timeout_result(ready)


def _in_daemon_thread(func: Callable[..., Any], arguments: dict[str, Any]) -> asyncio.Future[Any]:
    """``func(**arguments)`` in a daemon thread, as a future of the running loop. Unlike
    ``asyncio.to_thread``, a tool that never returns does not hold up the loop's shutdown."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def work() -> None:
        try:
            value, error = func(**arguments), None
        except Exception as e:
            value, error = None, e
        try:
            loop.call_soon_threadsafe(settle, value, error)
        except RuntimeError:  # the loop has closed: nobody waits for this result any more
            pass

    threading.Thread(target=work, name="toolwire-tool", daemon=True).start()
    return future


def _in_new_loop(work: Awaitable[ToolResult]) -> ToolResult:
    """Runs ``work`` to completion from sync code, even when this thread already runs a loop."""

    async def main() -> ToolResult:
        return await work

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    box: list[ToolResult] = []
    worker = threading.Thread(target=lambda: box.append(asyncio.run(main())), daemon=True)
    worker.start()
    worker.join()
    return box[0]
