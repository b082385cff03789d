"""run_tool_loop / arun_tool_loop: bounds, observers, failures as results, the
provider's message format, parallel == sequential."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from loop_support import Recorder, Script, make_registry, openai_body
from toolwire import (
    ToolCall,
    ToolResult,
    arun_tool_loop,
    run_tool_loop,
)

ALWAYS_CALLS = openai_body(("call_1", "add", {"a": 1, "b": 2}))
USER = [{"role": "user", "content": "add things"}]


@pytest.mark.parametrize(
    ("max_turns", "max_tool_passes"), [(1, 0), (1, 1), (2, 0), (2, 3), (3, 2), (8, 4)]
)
def test_bounds_hold_exactly(max_turns: int, max_tool_passes: int) -> None:
    provider = Script(ALWAYS_CALLS)
    result = run_tool_loop(
        provider, USER, make_registry(), max_turns=max_turns, max_tool_passes=max_tool_passes
    )
    budget = max_turns * (1 + max_tool_passes)
    assert len(provider.seen) == budget == result.provider_calls
    assert result.stopped_reason == "max_turns"
    assert result.turns == max_turns
    # Every answer but the last had its call run; the last one's calls are left unrun.
    assert len(result.tool_calls) == len(result.tool_results) == budget - 1
    assert result.final_response is ALWAYS_CALLS
    assert len(result.messages) == len(USER) + 2 * (budget - 1)


def test_stops_at_the_first_answer_without_calls() -> None:
    provider = Script(ALWAYS_CALLS, ALWAYS_CALLS, openai_body(content="It is 3."))
    result = run_tool_loop(provider, USER, make_registry())
    assert result.stopped_reason == "final" and result.provider_calls == 3 and result.turns == 1
    assert result.messages[-1] == {"role": "assistant", "content": "It is 3."}
    # The provider saw the growing history each time, and the caller's list is untouched.
    assert [len(m) for m in provider.seen] == [1, 3, 5]
    assert USER == [{"role": "user", "content": "add things"}]


def test_openai_format_assistant_and_tool_messages() -> None:
    provider = Script(
        openai_body(
            ("c1", "add", {"a": 1, "b": 2}), ("c2", "add", {"a": 5, "b": 5}), content="Let me add."
        ),
        "done",
    )
    result = run_tool_loop(provider, USER, make_registry())
    assert result.messages[1:] == [
        {
            "role": "assistant",
            "content": "Let me add.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a":1,"b":2}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a":5,"b":5}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "3"},
        {"role": "tool", "tool_call_id": "c2", "content": "10"},
        {"role": "assistant", "content": "done"},
    ]


def test_anthropic_format_one_user_message_per_pass() -> None:
    body = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Adding."},
            {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 1}},
            {"type": "tool_use", "id": "toolu_2", "name": "boom", "input": {}},
        ],
        "stop_reason": "tool_use",
    }
    final = {
        "role": "assistant",
        "content": [{"type": "text", "text": "2"}],
        "stop_reason": "end_turn",
    }
    result = run_tool_loop(Script(body, final), USER, make_registry(), provider_format="anthropic")
    assistant, results, last = result.messages[1:]
    assert assistant == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Adding."},
            {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 1}},
            {"type": "tool_use", "id": "toolu_2", "name": "boom", "input": {}},
        ],
    }
    assert results["role"] == "user"
    assert [b["type"] for b in results["content"]] == ["tool_result", "tool_result"]
    assert [b["tool_use_id"] for b in results["content"]] == ["toolu_1", "toolu_2"]
    assert results["content"][0]["content"] == "2"
    assert results["content"][1]["is_error"] is True
    assert last == {"role": "assistant", "content": [{"type": "text", "text": "2"}]}


def test_ollama_format() -> None:
    body = {
        "model": "m",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "add", "arguments": {"a": 2, "b": 2}}}],
        },
        "done": True,
    }
    final = {"model": "m", "message": {"role": "assistant", "content": "4"}, "done": True}
    result = run_tool_loop(Script(body, final), USER, make_registry(), provider_format="ollama")
    assistant, tool, last = result.messages[1:]
    assert assistant["role"] == "assistant"
    assert assistant["tool_calls"] == [{"function": {"name": "add", "arguments": {"a": 2, "b": 2}}}]
    assert tool == {"role": "tool", "content": "4", "tool_name": "add"}
    assert last == {"role": "assistant", "content": "4"}


def test_text_tagged_and_raw_json_answers_still_run_tools() -> None:
    tagged = (
        'Sure.\n~~~tool_call\n{"id": "t1", "name": "add", "arguments": {"a": 1, "b": 1}}\n~~~\n'
    )
    raw = '```json\n{"name": "add", "arguments": {"a": 2, "b": 2}}\n```'
    result = run_tool_loop(Script(tagged, {"text": raw}, "4"), USER, make_registry())
    assert [r.content for r in result.tool_results] == ["2", "4"]
    first = result.messages[1]
    # Text-form calls are recorded as native calls; the markup is not repeated as content.
    assert first["content"] is None
    assert first["tool_calls"][0]["id"] == "t1"
    assert result.messages[2] == {"role": "tool", "tool_call_id": "t1", "content": "2"}
    generated = result.messages[3]["tool_calls"][0]["id"]
    assert generated.startswith("call_") and result.messages[4]["tool_call_id"] == generated


def test_failures_become_error_results_and_the_loop_continues() -> None:
    body = openai_body(
        ("c1", "boom", {}),
        ("c2", "slow", {}),
        ("c3", "nope", {}),
        ("c4", "launch", {}),
        ("c5", "add", {"a": "x", "b": 1}),
        ("c6", "add", {"a": 1, "b": 1}),
    )
    result = run_tool_loop(Script(body, "ok"), USER, make_registry())
    assert result.stopped_reason == "final"
    errors = [(r.tool_call_id, r.is_error) for r in result.tool_results]
    assert errors == [
        ("c1", True),
        ("c2", True),
        ("c3", True),
        ("c4", True),
        ("c5", True),
        ("c6", False),
    ]
    contents = [r.content for r in result.tool_results]
    assert "ValueError: the disk is full" in contents[0]
    assert "did not finish within 0.05 seconds" in contents[1]
    assert contents[2].startswith("Unknown tool 'nope'")
    assert contents[3].startswith("Tool 'launch' is not enabled")
    assert "invalid at 'a'" in contents[4]
    assert [m.get("tool_call_id") for m in result.messages[2:8]] == [
        "c1",
        "c2",
        "c3",
        "c4",
        "c5",
        "c6",
    ]


def test_unreadable_call_gets_a_placeholder_and_an_error_result() -> None:
    not_an_object = '~~~tool_call\n{"name": "add", "arguments": [1]}\n~~~'
    # A failed call keeps the name it was read with; one with no name gets the placeholder.
    unreadable = '~~~tool_call\n{"name": "add", "arguments": {"a": 1,}}\n~~~'
    nameless = "~~~tool_call\n{oops}\n~~~"
    script = Script(not_an_object, unreadable, nameless, "fine")
    result = run_tool_loop(script, USER, make_registry())
    assert result.stopped_reason == "final"
    for index, name in [(1, "add"), (3, "add"), (5, "invalid_tool_call")]:
        [call] = result.messages[index]["tool_calls"]
        assert call["function"] == {"name": name, "arguments": "{}"}
        assert result.messages[index + 1]["tool_call_id"] == call["id"]
    assert [r.is_error for r in result.tool_results] == [True, True, True]
    assert all("could not be read" in r.content for r in result.tool_results)


def test_observer_sees_everything_in_order() -> None:
    recorder = Recorder()
    body = openai_body(("c1", "add", {"a": 1, "b": 2}), ("c2", "boom", {}))
    run_tool_loop(Script(body, "done"), USER, make_registry(), observer=recorder)
    assert recorder.events == [
        ("start", 1),
        ("message", "assistant"),
        ("call", "c1"),
        ("result", "c1", "c1", False),
        ("call", "c2"),
        ("result", "c2", "c2", True),
        ("message", "tool"),
        ("message", "tool"),
        ("message", "assistant"),
        ("final", "final"),
    ]
    parallel = Recorder()
    run_tool_loop(
        Script(body, "done"), USER, make_registry(), observer=parallel, parallel_tools=True
    )
    assert parallel.events[2:6] == [
        ("call", "c1"),
        ("call", "c2"),
        ("result", "c1", "c1", False),
        ("result", "c2", "c2", True),
    ]


def test_provider_errors_stop_the_loop_with_reason_error() -> None:
    def failing(messages: list[Any]) -> Any:
        if len(messages) > 1:
            raise ConnectionError("provider down")
        return ALWAYS_CALLS

    recorder = Recorder()
    result = run_tool_loop(failing, USER, make_registry(), observer=recorder)
    assert result.stopped_reason == "error" and isinstance(result.error, ConnectionError)
    assert result.provider_calls == 2 and result.final_response is ALWAYS_CALLS
    assert recorder.events[-2:] == [("error", "ConnectionError"), ("final", "error")]
    bad_body = run_tool_loop(Script({"choices": "nope"}), USER, make_registry())
    assert bad_body.stopped_reason == "error" and bad_body.final_response is None


PARALLEL_BODY = openai_body(
    ("c1", "wait", {"seconds": 0.02}),
    ("c2", "wait", {"seconds": 0.01}),
    ("c3", "add", {"a": 1, "b": 2}),
    ("c4", "boom", {}),
)


@pytest.mark.parametrize("provider_format", ["openai", "anthropic", "ollama"])
def test_parallel_and_sequential_give_the_same_messages(provider_format: str) -> None:
    runs = [
        run_tool_loop(
            Script(PARALLEL_BODY, PARALLEL_BODY, "end"),
            USER,
            make_registry(),
            provider_format=provider_format,
            parallel_tools=parallel,
        )  # type: ignore[arg-type]
        for parallel in (False, True)
    ]
    runs += [
        asyncio.run(
            arun_tool_loop(
                Script(PARALLEL_BODY, PARALLEL_BODY, "end"),
                USER,
                make_registry(),
                provider_format=provider_format,
                parallel_tools=parallel,
            )
        )  # type: ignore[arg-type]
        for parallel in (False, True)
    ]
    first = runs[0].messages
    assert len(first) == 1 + 2 * (1 + (1 if provider_format == "anthropic" else 4)) + 1
    for run in runs[1:]:
        assert run.messages == first
        assert run.tool_results == runs[0].tool_results


def test_async_parallel_tools_run_concurrently() -> None:
    body = openai_body(("c1", "wait", {"seconds": 0.3}), ("c2", "wait", {"seconds": 0.3}))

    async def provider(messages: list[Any]) -> Any:
        return body if len(messages) == 1 else "done"

    start = time.perf_counter()
    result = asyncio.run(arun_tool_loop(provider, USER, make_registry(), parallel_tools=True))
    assert time.perf_counter() - start < 0.55
    assert [r.content for r in result.tool_results] == ["waited 0.3", "waited 0.3"]


def test_async_bounds_and_async_observer() -> None:
    events: list[str] = []

    class AsyncObserver:
        async def on_tool_result(self, call: ToolCall, result: ToolResult) -> None:
            await asyncio.sleep(0)
            events.append(call.id)

    provider = Script(ALWAYS_CALLS)
    result = asyncio.run(
        arun_tool_loop(
            provider,
            USER,
            make_registry(),
            max_turns=2,
            max_tool_passes=1,
            observer=AsyncObserver(),
        )
    )
    assert len(provider.seen) == 4 and result.stopped_reason == "max_turns"
    assert events == ["call_1"] * 3


def test_sync_loop_refuses_an_async_provider() -> None:
    async def provider(messages: list[Any]) -> Any:
        return "x"

    result = run_tool_loop(provider, USER, make_registry())
    assert result.stopped_reason == "error"
    assert "arun_tool_loop" in str(result.error)


def test_bad_options_raise() -> None:
    with pytest.raises(ValueError, match="provider_format"):
        run_tool_loop(Script("x"), USER, make_registry(), provider_format="bedrock")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_turns"):
        run_tool_loop(Script("x"), USER, make_registry(), max_turns=0)


def test_responses_and_gemini_formats() -> None:
    tagged = '~~~tool_call\n{"id": "t1", "name": "add", "arguments": {"a": 1, "b": 1}}\n~~~'
    responses = run_tool_loop(
        Script(tagged, "2"), USER, make_registry(), provider_format="openai_responses"
    )
    assert [m.get("type") for m in responses.messages[1:]] == [
        "function_call",
        "function_call_output",
        "message",
    ]
    assert responses.messages[2]["call_id"] == "t1" and responses.messages[2]["output"] == "2"
    gemini_body = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Adding."},
                        {"functionCall": {"name": "add", "args": {"a": 2, "b": 2}}},
                    ],
                }
            }
        ]
    }
    gemini = run_tool_loop(
        Script(gemini_body, "4"), USER, make_registry(), provider_format="gemini"
    )
    assert gemini.stopped_reason == "final" and gemini.tool_results[0].content == "4"
    model, results, final = gemini.messages[1:]
    assert model["role"] == "model" and model["parts"][0] == {"text": "Adding."}
    assert results["parts"][0]["functionResponse"]["name"] == "add"
    assert final["role"] == "model"
