"""Structured runtime messages (issue 28.3): each failure kind gives a Diagnostic on its
ToolResult, the loop aggregates them in order on LoopResult.diagnostics, the text the model
sees is unchanged, and they survive to_dict/from_dict."""

from __future__ import annotations

import json
from typing import Any

import pytest
from loop_support import Script, make_registry, openai_body
from toolwire import Diagnostic, Tool, ToolCall, ToolRegistry, ToolResult, run_tool_loop

USER = [{"role": "user", "content": "go"}]


def registry_with_required_text() -> ToolRegistry:
    registry = make_registry()
    registry.register(
        Tool("greet", parameters={
            "type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]
        }),
        lambda who: f"hello {who}",
    )  # fmt: skip
    return registry


def test_every_failure_kind_is_a_diagnostic_aggregated_in_order() -> None:
    body = openai_body(
        ("c1", "nope", {}),  # unknown tool
        ("c2", "launch", {}),  # filtered out ("* -secret")
        ("c3", "add", {"a": "x", "b": 1}),  # invalid arguments
        ("c4", "greet", {"who": "  "}),  # blank required property
        ("c5", "boom", {}),  # exception
        ("c6", "slow", {}),  # timeout
        ("c7", "add", {"a": 1, "b": 2}),  # fine
    )
    # An unreadable call: arguments that are not JSON.
    body["choices"][0]["message"]["tool_calls"].append(
        {"id": "c8", "type": "function", "function": {"name": "add", "arguments": "{'a': 1"}}
    )
    result = run_tool_loop(Script(body, "done"), USER, registry_with_required_text())
    assert result.stopped_reason == "final"
    placeholder_id = result.tool_calls[7].id
    assert [(d.severity, d.origin, d.call_id) for d in result.diagnostics] == [
        ("error", "registry", "c1"),
        ("error", "filter", "c2"),
        ("error", "validation", "c3"),
        ("error", "validation", "c4"),
        ("error", "execution", "c5"),
        ("error", "timeout", "c6"),
        ("error", "parse", placeholder_id),
    ]
    # The aggregate is the results' diagnostics, in call order.
    assert result.diagnostics == tuple(d for r in result.tool_results for d in r.diagnostics)
    assert result.tool_results[6].diagnostics == ()
    # The text the model sees is the diagnostic's text; it reads as before.
    for outcome in result.tool_results:
        if outcome.diagnostics:
            assert outcome.content == "\n".join(d.text for d in outcome.diagnostics)
    contents = [r.content for r in result.tool_results]
    assert contents[0].startswith("Unknown tool 'nope'. Available tools:")
    assert contents[1].startswith("Tool 'launch' is not enabled for this request.")
    assert contents[2] == (
        "Arguments for tool 'add' are invalid at 'a': \"x\" is not of type \"integer\". Retry "
        "the tool call with a corrected value for 'a'."
    )
    assert contents[3] == (
        "Arguments for tool 'greet' are missing required properties: who (given as null or "
        "blank). Retry the tool call and include these properties."
    )
    assert "failed with ValueError: the disk is full" in contents[4]
    assert "did not finish within 0.05 seconds" in contents[5]
    assert contents[7].startswith("The tool call could not be read:")
    assert result.messages[2 + 7] == {
        "role": "tool",
        "tool_call_id": placeholder_id,
        "content": contents[7],
    }


def test_one_diagnostic_per_validation_problem() -> None:
    registry = ToolRegistry(filter="*")
    registry.register(
        Tool("f", parameters={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        }),
        lambda a, b: "",
    )  # fmt: skip
    result = registry.execute(ToolCall("c1", "f", {"a": "1", "b": 2, "c": 0}))
    assert len(result.diagnostics) == len(result.content.splitlines()) == 3
    assert {d.origin for d in result.diagnostics} == {"validation"}


def test_loop_diagnostics_for_the_provider_and_the_bounds() -> None:
    def failing(messages: list[Any]) -> Any:
        if len(messages) > 1:
            raise ConnectionError("provider down")
        return openai_body(("c1", "boom", {}))

    failed = run_tool_loop(failing, USER, make_registry())
    assert [(d.severity, d.origin) for d in failed.diagnostics] == [
        ("error", "execution"),
        ("error", "provider"),
    ]
    assert failed.diagnostics[1].text == (
        "The provider's answer failed with ConnectionError: provider down."
    )
    unreadable = run_tool_loop(Script({"choices": "nope"}), USER, make_registry())
    assert [d.origin for d in unreadable.diagnostics] == ["provider"]
    assert "ProviderFormatError" in unreadable.diagnostics[0].text

    bounded = run_tool_loop(
        Script(openai_body(("c1", "add", {"a": 1, "b": 1}), ("c2", "add", {"a": 1, "b": 1}))),
        USER,
        make_registry(),
        max_turns=1,
        max_tool_passes=0,
    )
    assert bounded.stopped_reason == "max_turns"
    assert [(d.severity, d.origin) for d in bounded.diagnostics] == [("warning", "loop")]
    assert bounded.diagnostics[0].text == (
        "The loop stopped at its bound of 1 provider calls (max_turns=1, max_tool_passes=0); "
        "the 2 call(s) of the last answer were not run."
    )


def test_a_tool_may_return_its_own_diagnostics() -> None:
    registry = ToolRegistry(filter="*")
    note = Diagnostic("warning", "execution", "cached value, 3 hours old")
    registry.register(Tool("weather"), lambda: ToolResult(None, None, "sunny", diagnostics=(note,)))
    result = run_tool_loop(Script(openai_body(("c1", "weather", {})), "ok"), USER, registry)
    # The call's id is filled in where the tool left it out.
    assert result.diagnostics == (Diagnostic("warning", "execution", note.text, "c1"),)
    assert result.tool_results[0].content == "sunny"


def test_diagnostics_round_trip_through_to_dict() -> None:
    result = make_registry().execute(ToolCall("c1", "boom", {}))
    data = result.to_dict()
    assert data["diagnostics"] == [
        {
            "severity": "error",
            "origin": "execution",
            "text": result.content,
            "call_id": "c1",
        }
    ]
    assert ToolResult.from_dict(json.loads(json.dumps(data))) == result
    # Results without diagnostics keep their plain shape.
    assert ToolResult("c1", "f", "ok").to_dict() == {
        "tool_call_id": "c1",
        "name": "f",
        "content": "ok",
        "is_error": False,
    }
    assert ToolResult.from_dict({"content": "x"}).diagnostics == ()
    note = Diagnostic("info", "loop", "hello")
    assert Diagnostic.from_dict(note.to_dict()) == note and note.call_id is None
    with pytest.raises(ValueError, match="severity"):
        Diagnostic("fatal", "loop", "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="origin"):
        Diagnostic("error", "network", "x")  # type: ignore[arg-type]
    assert "diagnostics" not in repr(ToolResult("c1", "f", "ok"))
    assert "diagnostics=(Diagnostic(severity='error'" in repr(result)
