"""ToolRegistry: schemas derived from functions, and execution that never raises for
a tool's failure."""

from __future__ import annotations

import asyncio
import enum
import time
from typing import Annotated, Any, Literal, Optional, TypedDict

import pytest
from toolwire import (
    Diagnostic,
    InvalidToolCall,
    Tool,
    ToolCall,
    ToolDefinitionError,
    ToolRegistry,
    ToolResult,
)


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(TypedDict):
    x: float
    y: float


def test_schema_from_signature_type_hints_and_google_docstring() -> None:
    registry = ToolRegistry(filter="*")

    @registry.tool
    def book(
        city: str,
        nights: int,
        budget: float,
        pets: bool,
        tags: list[str],
        extras: dict[str, int],
        mode: Literal["fast", "cheap"],
        note: Optional[str],  # noqa: UP045 (the spelling under test)
        color: Color = Color.RED,
        where: Point | None = None,
        size: Annotated[int, "Party size."] = 2,
        pair: tuple[int, str] = (1, "a"),
        anything: Any = None,
    ) -> str:
        """Book a hotel room.

        Longer text that is not the summary.

        Args:
            city: The city,
                continued on a second line.
            nights (int): How many nights.
        """
        return "ok"

    tool = registry.get("book")
    assert tool is not None
    assert tool.description == "Book a hotel room."
    p = tool.parameters
    assert p["type"] == "object" and p["additionalProperties"] is False
    assert p["required"] == ["city", "nights", "budget", "pets", "tags", "extras", "mode", "note"]
    props = p["properties"]
    assert props["city"] == {
        "type": "string",
        "description": "The city, continued on a second line.",
    }
    assert props["nights"] == {"type": "integer", "description": "How many nights."}
    assert props["budget"] == {"type": "number"}
    assert props["pets"] == {"type": "boolean"}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["extras"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert props["mode"] == {"type": "string", "enum": ["fast", "cheap"]}
    assert props["note"] == {"type": ["string", "null"]}
    assert props["color"] == {"type": "string", "enum": ["red", "blue"]}
    assert props["where"] == {
        "type": ["object", "null"],
        "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
        "required": ["x", "y"],
        "default": None,
    }
    assert props["size"] == {"type": "integer", "description": "Party size.", "default": 2}
    assert props["pair"]["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
    assert props["anything"] == {"default": None}


def test_numpy_and_rest_docstrings_and_kwargs() -> None:
    registry = ToolRegistry(filter="*")

    @registry.tool(name="search_web", category="web")
    def search(query: str, limit: int = 5, **options: Any) -> list[str]:
        """Search the web.

        Parameters
        ----------
        query : str
            What to look for.
        limit : int
            At most this many hits.
        """
        return [query] * limit

    def lookup(key: str) -> str:
        """Look a key up.

        :param key: The key to find.
        :returns: the value
        """
        return key

    registry.register(lookup)
    web = registry.get("search_web")
    assert web is not None and web.category == "web"
    assert web.parameters["additionalProperties"] is True  # **options: extras are explicit
    assert web.parameters["properties"]["query"]["description"] == "What to look for."
    assert web.parameters["properties"]["limit"] == {
        "type": "integer",
        "description": "At most this many hits.",
        "default": 5,
    }
    found = registry.get("lookup")
    assert found is not None
    assert found.parameters["properties"]["key"]["description"] == "The key to find."
    assert found.description == "Look a key up."


def test_registration_errors() -> None:
    registry = ToolRegistry()
    registry.register(Tool("ping"), lambda: "pong")
    with pytest.raises(ToolDefinitionError, match="already registered"):
        registry.register(Tool("ping"), lambda: "pong")
    with pytest.raises(ToolDefinitionError, match="keyword"):
        registry.register(lambda a, /: a, name="positional")
    with pytest.raises(ToolDefinitionError, match="name"):
        registry.register(lambda a: a)
    with pytest.raises(ToolDefinitionError, match="no JSON Schema"):

        @registry.tool
        def odd(x: complex) -> None: ...


def make_registry(**kwargs: Any) -> ToolRegistry:
    registry = ToolRegistry(filter="*", **kwargs)

    @registry.tool
    def add(a: int, b: int = 1) -> int:
        """Add."""
        return a + b

    @registry.tool(category="danger")
    def boom(reason: str) -> str:
        """Fail."""
        raise RuntimeError(reason)

    @registry.tool(timeout=0.05)
    def slow(seconds: float) -> str:
        """Sleep."""
        time.sleep(seconds)
        return "done"

    @registry.tool(timeout=0.05)
    async def aslow(seconds: float) -> str:
        """Sleep asynchronously."""
        await asyncio.sleep(seconds)
        return "done"

    @registry.tool
    async def aecho(text: str) -> dict[str, Any]:
        """Echo."""
        return {"echo": text, "n": [1, 2]}

    return registry


def run_both(registry: ToolRegistry, call: ToolCall | InvalidToolCall, **kw: Any) -> ToolResult:
    """execute and aexecute must agree; returns the result."""
    sync = registry.execute(call, **kw)
    asynchronous = asyncio.run(registry.aexecute(call, **kw))
    assert sync == asynchronous
    return sync


def test_success_sync_and_async_and_result_encoding() -> None:
    registry = make_registry()
    assert run_both(registry, ToolCall("c1", "add", {"a": 2})) == ToolResult("c1", "add", "3")
    assert run_both(registry, ToolCall("c2", "aecho", {"text": "é"})) == ToolResult(
        "c2", "aecho", '{"echo":"é","n":[1,2]}'
    )
    assert run_both(registry, ToolCall("c3", "slow", {"seconds": 0})).content == "done"


def test_unknown_tool_is_an_error_result_naming_the_choices() -> None:
    result = run_both(make_registry(), ToolCall("c1", "ad", {}))
    assert result.is_error and result.tool_call_id == "c1" and result.name == "ad"
    assert result.content.startswith("Unknown tool 'ad'. Available tools: add, boom, slow,")
    assert result.content.endswith("Retry with one of these names.")


def test_filtered_tool_is_an_error_result() -> None:
    registry = make_registry()
    result = run_both(registry, ToolCall("c1", "boom", {"reason": "x"}), tool_filter="* -danger")
    assert result.is_error
    assert result.content.startswith(
        "Tool 'boom' is not enabled for this request. Available tools: add,"
    )
    assert "boom" not in result.content.split("Available tools:")[1]
    # The registry's own filter applies when no per-call filter is given; default "-*".
    locked = ToolRegistry()
    locked.register(Tool("ping"), lambda: "pong")
    result = run_both(locked, ToolCall("c2", "ping", {}))
    assert result.is_error
    assert "not enabled" in result.content and "No tools are available" in result.content
    locked.filter = "ping"
    assert run_both(locked, ToolCall("c3", "ping", {})) == ToolResult("c3", "ping", "pong")


def test_invalid_arguments_are_an_error_result_with_the_validation_messages() -> None:
    result = run_both(make_registry(), ToolCall("c1", "add", {"a": "x", "c": 1}))
    assert result.is_error
    assert result.content.splitlines() == [
        "Arguments for tool 'add' have unexpected properties: c. Retry the tool call without "
        "these properties.",
        "Arguments for tool 'add' are invalid at 'a': \"x\" is not of type \"integer\". Retry "
        "the tool call with a corrected value for 'a'.",
    ]


def test_exception_becomes_an_error_result() -> None:
    result = run_both(make_registry(), ToolCall("c1", "boom", {"reason": "disk full"}))
    assert result == ToolResult(
        "c1",
        "boom",
        "Tool 'boom' failed with RuntimeError: disk full. Check the arguments and retry, or "
        "continue without this tool.",
        is_error=True,
        diagnostics=(
            Diagnostic(
                "error",
                "execution",
                "Tool 'boom' failed with RuntimeError: disk full. Check the arguments and "
                "retry, or continue without this tool.",
                "c1",
            ),
        ),
    )


@pytest.mark.parametrize("name", ["slow", "aslow"])
def test_timeout_becomes_an_error_result(name: str) -> None:
    start = time.perf_counter()
    result = run_both(make_registry(), ToolCall("c1", name, {"seconds": 2}))
    assert time.perf_counter() - start < 1.5
    assert result.is_error
    assert result.content == (
        f"Tool '{name}' did not finish within 0.05 seconds. Retry with a smaller request, or "
        "continue without this tool."
    )


def test_registry_default_timeout_applies() -> None:
    registry = ToolRegistry(filter="*", timeout=0.05)
    registry.register(Tool("wait"), lambda: time.sleep(2))
    assert (
        "did not finish within 0.05 seconds" in registry.execute(ToolCall("c", "wait", {})).content
    )


def test_invalid_call_becomes_an_error_result() -> None:
    invalid = InvalidToolCall("{bad", "invalid JSON at offset 1", "text_tagged", 0, 0, "add")
    result = run_both(make_registry(), invalid)
    assert result.is_error and result.name == "add" and result.tool_call_id is None
    assert "could not be read: invalid JSON at offset 1" in result.content


def test_tool_returning_a_tool_result_and_broken_schema() -> None:
    registry = ToolRegistry(filter="*")
    registry.register(
        Tool("blocks"), lambda: ToolResult(None, None, [{"type": "text", "text": "hi"}])
    )
    registry.register(Tool("broken", parameters={"type": 3}), lambda: "never")
    registry.register(Tool("declared"))
    assert registry.execute(ToolCall("c1", "blocks", {})) == ToolResult(
        "c1", "blocks", [{"type": "text", "text": "hi"}]
    )
    broken = registry.execute(ToolCall("c2", "broken", {}))
    assert broken.is_error and broken.content.startswith("Tool 'broken' cannot be used:")
    declared = registry.execute(ToolCall("c3", "declared", {}))
    assert declared.is_error and "no implementation" in declared.content


def test_async_tool_runs_from_sync_code_inside_a_running_loop() -> None:
    registry = make_registry()

    async def main() -> ToolResult:
        return registry.execute(ToolCall("c1", "aecho", {"text": "x"}))

    assert asyncio.run(main()).content == '{"echo":"x","n":[1,2]}'


def test_tools_and_listing() -> None:
    registry = make_registry()
    assert [t.name for t in registry.tools("* -danger -a*")] == ["slow"]
    assert len(registry) == 5 and "add" in registry and "nope" not in registry
    assert [t.name for t in registry] == ["add", "boom", "slow", "aslow", "aecho"]


def test_definitions_in_each_wire_format() -> None:
    registry = make_registry()
    openai = registry.definitions("* -danger -*slow", provider="openai")
    assert [d["function"]["name"] for d in openai] == ["add", "aecho"]
    assert openai[0] == {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add.",
            "parameters": registry.get("add").parameters,  # type: ignore[union-attr]
        },
    }
    anthropic = registry.definitions(provider="anthropic")
    assert [d["name"] for d in anthropic] == ["add", "boom", "slow", "aslow", "aecho"]
    assert set(anthropic[0]) == {"name", "description", "input_schema"}
    assert registry.definitions(provider="ollama") == registry.definitions(provider="openai")


def test_docstring_examples() -> None:
    import doctest

    from toolwire import _filter, _history, _loop, _registry, _signature, _types, _validation

    for module in (_filter, _validation, _signature, _registry, _loop, _history, _types):
        failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert attempted > 0 and failed == 0, module.__name__


# --- issue 20.5: a model never sets a parameter the tool's schema did not offer -------------


def guarded_registry() -> tuple[ToolRegistry, list[dict[str, Any]]]:
    calls: list[dict[str, Any]] = []
    registry = ToolRegistry(filter="*")
    schema = {"type": "object", "properties": {"amount": {"type": "number"}}}

    def refund(amount: float, approved_by_admin: bool = False) -> str:
        calls.append({"amount": amount, "approved_by_admin": approved_by_admin})
        return "ok"

    registry.register(Tool("refund", parameters=schema), refund)
    return registry, calls


def test_an_argument_the_schema_does_not_declare_never_reaches_the_function() -> None:
    registry, calls = guarded_registry()
    call = ToolCall("c1", "refund", {"amount": 5, "approved_by_admin": True})
    result = run_both(registry, call)
    assert result.is_error and calls == []
    assert result.content == (
        "Arguments for tool 'refund' have properties the tool does not take: "
        "approved_by_admin. Retry the tool call without them."
    )
    assert [d.origin for d in result.diagnostics] == ["validation"]
    assert run_both(registry, ToolCall("c2", "refund", {"amount": 5})).content == "ok"
    assert calls == [{"amount": 5, "approved_by_admin": False}] * 2  # sync and async


def test_extra_properties_need_the_schema_and_kwargs_to_allow_them() -> None:
    seen: list[dict[str, Any]] = []
    registry = ToolRegistry(filter="*")
    open_schema = {"type": "object", "properties": {"q": {"type": "string"}},
                   "additionalProperties": True}  # fmt: skip

    def search(q: str, admin: bool = False, **options: Any) -> str:
        seen.append({"q": q, "admin": admin, **options})
        return "ok"

    registry.register(Tool("search", parameters=open_schema), search)
    registry.register(Tool("strict_search", parameters=open_schema), lambda q: "never")
    typed = {**open_schema, "additionalProperties": {"type": "integer"}}
    registry.register(Tool("typed_search", parameters=typed), search)
    patterned = {"type": "object", "properties": {"q": {"type": "string"}},
                 "patternProperties": {"^x_": {"type": "string"}}}  # fmt: skip
    registry.register(Tool("pattern_search", parameters=patterned), search)

    assert registry.execute(ToolCall("c1", "search", {"q": "a", "lang": "en"})).content == "ok"
    assert seen[-1] == {"q": "a", "admin": False, "lang": "en"}
    # A named parameter the schema did not declare is not an "extra": **kwargs would not get it.
    refused = registry.execute(ToolCall("c2", "search", {"q": "a", "admin": True}))
    assert refused.is_error and "does not take: admin." in refused.content
    # The schema allows extras but the function takes no **kwargs.
    assert registry.execute(ToolCall("c3", "strict_search", {"q": "a", "lang": "en"})).is_error

    def run(name: str, arguments: dict[str, Any]) -> ToolResult:
        return registry.execute(ToolCall("c", name, arguments))

    assert run("typed_search", {"q": "a", "n": 3}).content == "ok"
    assert "not of type" in run("typed_search", {"q": "a", "n": "3"}).content
    assert run("pattern_search", {"q": "a", "x_lang": "en"}).content == "ok"
    assert run("pattern_search", {"q": "a", "lang": "en"}).is_error
    assert len(seen) == 3 and all(not entry["admin"] for entry in seen)


def test_derived_schemas_hide_private_parameters() -> None:
    seen: list[Any] = []
    registry = ToolRegistry(filter="*")

    @registry.tool
    def lookup(key: str, _token: str = "server-secret", **extra: int) -> str:
        """Look a key up."""
        seen.append((key, _token, extra))
        return "ok"

    parameters = registry.get("lookup").parameters  # type: ignore[union-attr]
    assert list(parameters["properties"]) == ["key"]
    assert parameters["additionalProperties"] == {"type": "integer"}
    assert registry.execute(ToolCall("c1", "lookup", {"key": "k", "n": 1})).content == "ok"
    stolen = registry.execute(ToolCall("c2", "lookup", {"key": "k", "_token": "mine"}))
    assert stolen.is_error and "_token" in stolen.content
    assert seen == [("k", "server-secret", {"n": 1})]

    with pytest.raises(ToolDefinitionError, match="'_context' is private"):

        @registry.tool
        def needs_context(q: str, _context: object) -> str:
            return q

    @registry.tool
    def closed(q: str, _cache: bool = True) -> str:
        return q

    rejected = registry.execute(ToolCall("c3", "closed", {"q": "x", "_cache": False}))
    assert rejected.is_error and "unexpected properties: _cache" in rejected.content
