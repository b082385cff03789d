"""Pending calls (issue 28.1): calls of a history that no result answers run before the first
provider call, so the provider never sees one; pending_calls; registry.execute_pending."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from loop_support import Recorder, Script, make_registry
from toolwire import (
    PROVIDERS,
    Provider,
    ProviderFormatError,
    Tool,
    ToolCall,
    ToolRegistry,
    ToolResult,
    arun_tool_loop,
    encode_calls,
    encode_results,
    pending_calls,
    run_tool_loop,
)

CALLS = [ToolCall("c1", "add", {"a": 1, "b": 2}), ToolCall("c2", "boom", {})]


def user(provider_format: str, text: str) -> dict[str, Any]:
    if provider_format == "gemini":
        return {"role": "user", "parts": [{"text": text}]}
    return {"role": "user", "content": text}


def assistant(provider_format: Provider, calls: list[ToolCall]) -> list[dict[str, Any]]:
    encoded = encode_calls(calls, provider_format, content="Let me see.")
    return encoded if isinstance(encoded, list) else [encoded]


def history(provider_format: Provider) -> list[dict[str, Any]]:
    return [user(provider_format, "add 1 and 2, then boom"), *assistant(provider_format, CALLS)]


def final_answer(provider_format: str) -> Any:
    return (
        "All done."
        if provider_format != "anthropic"
        else {
            "role": "assistant",
            "content": [{"type": "text", "text": "All done."}],
        }
    )


@pytest.mark.parametrize("provider_format", PROVIDERS)
@pytest.mark.parametrize("run", ["sync", "async"])
def test_pending_calls_run_before_the_first_provider_call(
    provider_format: Provider, run: str
) -> None:
    given = history(provider_format)
    assert [c.name for c in pending_calls(given, provider_format=provider_format)] == [
        "add",
        "boom",
    ]
    provider = Script(final_answer(provider_format))
    if run == "sync":
        result = run_tool_loop(provider, given, make_registry(), provider_format=provider_format)
    else:
        result = asyncio.run(
            arun_tool_loop(provider, given, make_registry(), provider_format=provider_format)
        )
    assert result.stopped_reason == "final" and result.provider_calls == 1
    # What the provider received: the history, then the results of both calls, nothing pending.
    [seen] = provider.seen
    assert seen[: len(given)] == given
    assert pending_calls(seen, provider_format=provider_format) == []
    answers = seen[len(given) :]
    assert answers == encode_results(result.tool_results, provider_format)
    assert [c.name for c in result.tool_calls] == ["add", "boom"]
    assert (result.tool_results[0].content, result.tool_results[0].is_error) == ("3", False)
    assert result.tool_results[1].is_error
    if provider_format != "ollama":  # Ollama's wire has no call ids
        assert [r.tool_call_id for r in result.tool_results] == ["c1", "c2"]
    assert result.messages[: len(seen)] == seen
    assert given == history(provider_format)  # the caller's list is untouched


def test_results_go_right_after_the_calls_they_answer() -> None:
    """A call left pending in the middle of a conversation (an approval step) is answered in
    place: OpenAI requires tool messages to follow their assistant message."""
    given = [
        user("openai", "add"),
        *assistant("openai", [CALLS[0]]),
        user("openai", "approved"),
    ]
    recorder = Recorder()
    provider = Script("3 it is")
    run_tool_loop(provider, given, make_registry(), observer=recorder)
    [seen] = provider.seen
    assert seen == [
        given[0],
        given[1],
        {"role": "tool", "tool_call_id": "c1", "content": "3"},
        given[2],
    ]
    assert recorder.events == [
        ("start", 3),
        ("call", "c1"),
        ("result", "c1", "c1", False),
        ("message", "tool"),
        ("message", "assistant"),
        ("final", "final"),
    ]


def test_only_unanswered_calls_run() -> None:
    given = [
        *assistant("openai", CALLS),
        {"role": "tool", "tool_call_id": "c1", "content": "3"},
    ]
    provider = Script("ok")
    result = run_tool_loop(provider, given, make_registry())
    assert [c.id for c in result.tool_calls] == ["c2"]
    assert provider.seen[0][:2] == given and provider.seen[0][2]["tool_call_id"] == "c2"
    # Nothing pending: the provider is called straight away.
    answered = [*given, {"role": "tool", "tool_call_id": "c2", "content": "x"}]
    assert run_tool_loop(Script("ok"), answered, make_registry()).tool_calls == []


def test_pending_calls_matching_rules() -> None:
    # By id; results without an id answer the earliest unanswered call of their name.
    ollama = [
        {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "add", "arguments": {"a": 1, "b": 1}}},
            {"function": {"name": "add", "arguments": {"a": 2, "b": 2}}},
            {"function": {"name": "boom", "arguments": {}}},
        ]},
        {"role": "tool", "tool_name": "add", "content": "2"},
    ]  # fmt: skip
    left = pending_calls(ollama, provider_format="ollama")
    assert [(c.name, c.arguments) for c in left] == [("add", {"a": 2, "b": 2}), ("boom", {})]
    # A result that names no call at all answers nothing.
    stray = [*assistant("openai", CALLS), {"role": "tool", "tool_call_id": "zz", "content": ""}]
    assert [c.id for c in pending_calls(stray)] == ["c1", "c2"]

    # SDK objects are read through model_dump; other objects are skipped.
    class Message:
        def model_dump(self, **_: Any) -> dict[str, Any]:
            return assistant("openai", [CALLS[0]])[0]

    assert pending_calls([object(), Message()]) == [CALLS[0]]
    # A call whose arguments cannot be read cannot be run, so it is not listed.
    unreadable = {
        "role": "assistant",
        "tool_calls": [
            {"id": "x", "type": "function", "function": {"name": "f", "arguments": "{"}}
        ],
    }
    assert pending_calls([unreadable]) == []
    with pytest.raises(ProviderFormatError):
        pending_calls([{"role": "assistant", "tool_calls": "nope"}])
    with pytest.raises(ValueError, match="provider_format"):
        pending_calls([], provider_format="bedrock")  # type: ignore[arg-type]


def counting_registry() -> tuple[ToolRegistry, list[str]]:
    ran: list[str] = []
    registry = ToolRegistry(filter="*")
    registry.register(Tool("ping"), lambda: ran.append("ping") or "pong")
    return registry, ran


def ping_call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "ping", "arguments": "{}"}}


@pytest.mark.parametrize("run", ["sync", "async"])
def test_execute_pending_with_zero_one_and_two_pending_calls(run: str) -> None:
    registry, ran = counting_registry()

    def execute(messages: list[Any]) -> ToolResult:
        if run == "sync":
            return registry.execute_pending(messages)
        return asyncio.run(registry.aexecute_pending(messages))

    one = [{"role": "assistant", "content": None, "tool_calls": [ping_call("c1")]}]
    assert execute(one) == ToolResult("c1", "ping", "pong")
    assert ran == ["ping"]

    answered = [*one, {"role": "tool", "tool_call_id": "c1", "content": "pong"}]
    none = execute(answered)
    assert none.is_error and none.tool_call_id is None
    assert none.content == "No tool call is pending: every call of the conversation has a result."
    assert [(d.severity, d.origin, d.text) for d in none.diagnostics] == [
        ("error", "loop", none.content)
    ]

    two = [{"role": "assistant", "content": None, "tool_calls": [ping_call("c1"), ping_call("c2")]}]
    both = execute(two)
    assert both.is_error and both.tool_call_id is None
    assert both.content == (
        "2 tool calls are pending (c1 (ping), c2 (ping)); execute_pending runs exactly one. "
        "Run them with run_tool_loop, or each with execute."
    )
    assert [d.origin for d in both.diagnostics] == ["loop"]
    assert ran == ["ping"]  # nothing ran for zero or two


def test_execute_pending_applies_the_filter_and_the_format() -> None:
    registry, ran = counting_registry()
    anthropic = [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "ping", "input": {}}],
        }
    ]
    blocked = registry.execute_pending(anthropic, provider_format="anthropic", tool_filter="-*")
    assert blocked.is_error and blocked.tool_call_id == "t1" and ran == []
    assert [d.origin for d in blocked.diagnostics] == ["filter"]
    done = registry.execute_pending(anthropic, provider_format="anthropic")
    assert done == ToolResult("t1", "ping", "pong") and ran == ["ping"]
