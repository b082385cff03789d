"""SPEC §7: provider codecs, against the corpus, the llm_core table, round trips and bad input."""

from __future__ import annotations

import doctest
import json
import random
import re
from typing import Any

import pytest
import toolwire
from hypothesis import given
from hypothesis import strategies as st
from support import calls_of, cases, mutated, mutation_paths
from toolwire import (
    PROVIDERS,
    ProviderFormatError,
    Tool,
    ToolCall,
    ToolResult,
    convert_message,
    decode_results,
    decode_tool_calls,
    decode_tools,
    encode_calls,
    encode_results,
    encode_tools,
)

CORPUS_PROVIDERS = ("openai", "anthropic", "ollama")
GENERATED_ID = re.compile(r"^call_[A-Za-z0-9_-]{12}$")


def named(calls: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in calls]


def results_wire(case: dict[str, Any], provider: str) -> list[dict[str, Any]]:
    """The corpus stores Anthropic's single results message bare (or `[]`)."""
    wire = case["results_wire"][provider]
    return [wire] if isinstance(wire, dict) else wire


# --- the corpus -----------------------------------------------------------------------------


def test_encode_tools_equals_the_corpus_wire() -> None:
    for case in cases():
        for provider in CORPUS_PROVIDERS:
            assert encode_tools(case["tools"], provider) == case["tools_wire"][provider], case["id"]


def test_decode_tools_inverts_the_corpus_wire() -> None:
    for case in cases():
        tools = [Tool.from_dict(tool) for tool in case["tools"]]
        for provider in CORPUS_PROVIDERS:
            assert decode_tools(case["tools_wire"][provider], provider) == tools, case["id"]
        for provider in ("openai_responses", "gemini"):
            assert decode_tools(encode_tools(tools, provider), provider) == tools, case["id"]


def test_encode_results_equals_the_corpus_wire() -> None:
    for case in cases():
        for provider in CORPUS_PROVIDERS:
            encoded = encode_results(case["results"], provider)
            assert encoded == results_wire(case, provider), case["id"]


def test_decode_results_inverts_the_corpus_wire() -> None:
    for case in cases():
        results = [ToolResult.from_dict(r) for r in case["results"]]
        calls = decode_tool_calls(case["wire"]["openai"], "openai")
        for provider in CORPUS_PROVIDERS:
            wire = results_wire(case, provider)
            assert decode_results(wire, provider, calls=calls) == results, case["id"]
        # Without the calls, each format gives back what it carries.
        openai = decode_results(results_wire(case, "openai"), "openai")
        assert [(r.tool_call_id, r.name) for r in openai] == [
            (r.tool_call_id, None) for r in results
        ]
        ollama = decode_results(results_wire(case, "ollama"), "ollama")
        assert [(r.tool_call_id, r.name) for r in ollama] == [(None, r.name) for r in results]


def test_decode_tool_calls_gives_the_corpus_calls() -> None:
    for case in cases():
        wire = case["wire"]
        for provider in (*CORPUS_PROVIDERS, "auto"):
            body = wire["openai" if provider == "auto" else provider]
            calls = decode_tool_calls(body, provider)
            assert named(calls) == calls_of(case), (case["id"], provider)
        openai_ids = [c["id"] for c in wire["openai"]["choices"][0]["message"]["tool_calls"]]
        assert [c.id for c in decode_tool_calls(wire["openai"], "openai")] == openai_ids
        anthropic_ids = [b["id"] for b in wire["anthropic"]["content"] if b["type"] == "tool_use"]
        assert [c.id for c in decode_tool_calls(wire["anthropic"], "anthropic")] == anthropic_ids
        assert all(GENERATED_ID.match(c.id) for c in decode_tool_calls(wire["ollama"], "ollama"))


def test_encode_calls_round_trips_on_every_provider() -> None:
    for case in cases():
        calls = decode_tool_calls(case["wire"]["openai"], "openai")
        for provider in PROVIDERS:
            for content in (None, "Let me check."):
                back = decode_tool_calls(encode_calls(calls, provider, content=content), provider)
                if provider == "ollama":  # no ids on Ollama's wire (§1)
                    assert named(back) == named(calls), case["id"]
                else:
                    assert back == calls, (case["id"], provider)


def test_convert_message_keeps_names_arguments_and_ids_between_every_pair() -> None:
    for case in cases()[::3]:
        calls = decode_tool_calls(case["wire"]["openai"], "openai")
        results = [ToolResult.from_dict(r) for r in case["results"]]
        for source in PROVIDERS:
            message = encode_calls(calls, source, content="Checking.")
            answer = encode_results(results, source)
            turn = answer if source in ("openai", "ollama", "openai_responses") else answer[0]
            for target in PROVIDERS:
                converted = convert_message(message, source, target)
                body = converted if target == "openai_responses" else converted[0]
                back = decode_tool_calls(body, target)
                if "ollama" in (source, target):
                    assert named(back) == named(calls)
                else:
                    assert back == calls, (case["id"], source, target)
                answered = convert_message(turn, source, target, calls=calls)
                assert decode_results(answered, target, calls=calls) == results


def test_convert_message_keeps_the_text() -> None:
    call = ToolCall("call_1", "f", {"a": 1})
    for source in PROVIDERS:
        for target in PROVIDERS:
            [*messages] = convert_message(
                encode_calls([call], source, content="Hi."), source, target
            )
            text = json.dumps(messages)
            assert "Hi." in text, (source, target)


def test_convert_message_keeps_the_user_text_beside_results() -> None:
    """The text a user writes beside tool results (an Anthropic text block after the
    tool_result blocks, a Gemini text part, a user message after tool messages) is carried to
    every provider and back, never dropped."""
    call = ToolCall("call_1", "f", {"a": 1})
    result = ToolResult("call_1", "f", "42")
    for source in PROVIDERS:
        encoded = encode_results([result], source)
        turn = convert_message(
            [*encoded, {"role": "user", "content": "Now summarise."}]
            if source in ("openai", "ollama", "openai_responses")
            else encoded[0]
            | (
                {"content": [*encoded[0]["content"], {"type": "text", "text": "Now summarise."}]}
                if source == "anthropic"
                else {"parts": [*encoded[0]["parts"], {"text": "Now summarise."}]}
            ),
            source,
            "anthropic",
            calls=[call],
        )
        assert turn == [
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": "42"},
                    {"type": "text", "text": "Now summarise."},
                ],
            }
        ], source
        for target in PROVIDERS:
            converted = convert_message(turn[0], "anthropic", target, calls=[call])
            assert "Now summarise." in json.dumps(converted), target
            assert decode_results(converted, target, calls=[call]) == [result], target


# --- hypothesis round trips -----------------------------------------------------------------

json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
json_values = st.recursive(
    json_scalars | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,20}", fullmatch=True)
ids = st.from_regex(r"[A-Za-z0-9_-]{1,24}", fullmatch=True)
arguments = st.dictionaries(st.text(max_size=8), json_values, max_size=4)
schemas = st.builds(
    lambda props: {"type": "object", "properties": props},
    st.dictionaries(st.text(min_size=1, max_size=6), st.just({"type": "string"}), max_size=3),
)
tools = st.builds(Tool, name=names, description=st.text(max_size=30), parameters=schemas)
calls = st.builds(ToolCall, id=ids, name=names, arguments=arguments)


@st.composite
def results_for(draw: st.DrawFn, provider: str) -> ToolResult:
    content: Any = draw(st.text(max_size=20))
    if provider == "gemini":
        content = draw(st.text(max_size=20) | st.lists(json_values, max_size=3) | arguments)
    elif provider == "anthropic" and draw(st.booleans()):
        content = [{"type": "text", "text": draw(st.text(max_size=10))}]
    return ToolResult(draw(ids), draw(names), content, draw(st.booleans()))


@pytest.mark.parametrize("provider", PROVIDERS)
@given(data=st.data())
def test_tools_round_trip(provider: str, data: st.DataObject) -> None:
    drawn = data.draw(st.lists(tools, max_size=4))
    assert decode_tools(encode_tools(drawn, provider), provider) == drawn


@pytest.mark.parametrize("provider", PROVIDERS)
@given(
    drawn=st.lists(calls, max_size=4, unique_by=lambda c: c.id),
    content=st.none() | st.text(min_size=1, max_size=10),
)
def test_calls_round_trip(provider: str, drawn: list[ToolCall], content: str | None) -> None:
    back = decode_tool_calls(encode_calls(drawn, provider, content=content), provider)
    if provider == "ollama":
        assert named(back) == named(drawn)
    else:
        assert back == drawn


@pytest.mark.parametrize("provider", PROVIDERS)
@given(data=st.data())
def test_results_round_trip(provider: str, data: st.DataObject) -> None:
    drawn = data.draw(
        st.lists(results_for(provider), max_size=4, unique_by=lambda r: r.tool_call_id)
    )
    answered = [ToolCall(r.tool_call_id, r.name or "f", {}) for r in drawn]
    back = decode_results(
        encode_results(drawn, provider, error_prefix="ERROR: "),
        provider,
        error_prefix="ERROR: ",
        calls=answered,
    )
    assert back == [ToolResult(r.tool_call_id, r.name or "f", r.content, r.is_error) for r in drawn]


@given(value=json_values)
def test_argument_json_is_what_json_dumps_writes(value: Any) -> None:
    compact = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert toolwire._toolwire.dumps_compact(value) == compact


# --- the llm_core table, row by row ---------------------------------------------------------

TOOL = Tool("ping", "Ping", {"type": "object", "properties": {"host": {"type": "string"}}})
CALL = ToolCall("call_1", "ping", {"host": "example.org"})
RESULT = ToolResult("call_1", "ping", "pong")


@pytest.mark.parametrize(
    ("provider", "key"),
    [("openai", "parameters"), ("anthropic", "input_schema"), ("ollama", "parameters")],
)
def test_definition_key(provider: str, key: str) -> None:
    [wire] = encode_tools([TOOL], provider)
    definition = wire.get("function", wire)
    assert definition[key] == TOOL.parameters


@pytest.mark.parametrize(
    ("provider", "wrapped"), [("openai", True), ("anthropic", False), ("ollama", True)]
)
def test_definition_wrapper(provider: str, wrapped: bool) -> None:
    [wire] = encode_tools([TOOL], provider)
    if wrapped:
        assert wire == {
            "type": "function",
            "function": {"name": "ping", "description": "Ping", "parameters": TOOL.parameters},
        }
    else:
        assert wire == {"name": "ping", "description": "Ping", "input_schema": TOOL.parameters}


def test_call_arguments_string_vs_object() -> None:
    openai = encode_calls([CALL], "openai")["tool_calls"][0]["function"]["arguments"]
    assert openai == '{"host":"example.org"}'
    assert encode_calls([CALL], "anthropic")["content"][0]["input"] == {"host": "example.org"}
    assert encode_calls([CALL], "ollama")["tool_calls"][0]["function"]["arguments"] == {
        "host": "example.org"
    }
    # On the way in, a JSON string is accepted where an object is expected, and vice versa.
    for body in (
        {
            "role": "assistant",
            "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"a": 1}}}],
        },
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "c", "name": "f", "input": '{"a":1}'}],
        },
        {"message": {"tool_calls": [{"function": {"name": "f", "arguments": '{"a":1}'}}]}},
    ):
        assert named(decode_tool_calls(body)) == [("f", {"a": 1})]


def test_call_ids_present_or_absent() -> None:
    assert encode_calls([CALL], "openai")["tool_calls"][0]["id"] == "call_1"
    assert encode_calls([CALL], "anthropic")["content"][0]["id"] == "call_1"
    assert "id" not in encode_calls([CALL], "ollama")["tool_calls"][0]
    [generated] = decode_tool_calls(encode_calls([CALL], "ollama"), "ollama")
    assert GENERATED_ID.match(generated.id)


@pytest.mark.parametrize(
    ("provider", "role"), [("openai", "tool"), ("anthropic", "user"), ("ollama", "tool")]
)
def test_result_role(provider: str, role: str) -> None:
    assert [m["role"] for m in encode_results([RESULT], provider)] == [role]


def test_result_id_key() -> None:
    assert encode_results([RESULT], "openai") == [
        {"role": "tool", "tool_call_id": "call_1", "content": "pong"}
    ]
    assert encode_results([RESULT], "anthropic") == [
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "pong"}],
        }
    ]
    assert encode_results([RESULT], "ollama") == [
        {"role": "tool", "content": "pong", "tool_name": "ping"}
    ]


# --- the other two providers and the rules of §7 --------------------------------------------


def test_responses_and_gemini_shapes() -> None:
    assert encode_tools([TOOL], "openai_responses") == [
        {
            "type": "function",
            "name": "ping",
            "description": "Ping",
            "parameters": TOOL.parameters,
            "strict": False,
        }
    ]
    assert encode_calls([CALL], "openai_responses") == [
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "ping",
            "arguments": '{"host":"example.org"}',
        }
    ]
    assert encode_results([RESULT], "openai_responses") == [
        {"type": "function_call_output", "call_id": "call_1", "output": "pong"}
    ]
    assert encode_tools([TOOL], "gemini") == [
        {
            "functionDeclarations": [
                {"name": "ping", "description": "Ping", "parameters": TOOL.parameters}
            ]
        }
    ]
    assert encode_calls([CALL], "gemini") == {
        "role": "model",
        "parts": [{"functionCall": {"id": "call_1", "name": "ping", "args": CALL.arguments}}],
    }
    assert encode_results([RESULT], "gemini") == [
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "call_1",
                        "name": "ping",
                        "response": {"output": "pong"},
                    }
                }
            ],
        }
    ]


def test_full_response_bodies_of_responses_and_gemini() -> None:
    responses = {
        "id": "resp_1",
        "output": [
            {"type": "reasoning", "summary": []},
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_9",
                "name": "f",
                "arguments": '{"a":1}',
            },
        ],
    }
    assert decode_tool_calls(responses, "openai_responses") == [ToolCall("call_9", "f", {"a": 1})]
    gemini = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"text": "ok"}, {"functionCall": {"name": "f", "args": {"a": 1}}}],
                }
            }
        ]
    }
    assert named(decode_tool_calls(gemini, "gemini")) == [("f", {"a": 1})]
    assert decode_tool_calls({"candidates": [{"finishReason": "SAFETY"}]}, "gemini") == []


def test_non_string_results_and_errors() -> None:
    result = ToolResult("c", "f", {"temp": 3}, is_error=True)
    assert encode_results([result], "openai")[0]["content"] == '{"temp":3}'
    assert (
        encode_results([result], "openai", error_prefix="Error: ")[0]["content"]
        == 'Error: {"temp":3}'
    )
    [block] = encode_results([result], "anthropic")[0]["content"]
    assert block["is_error"] is True and block["content"] == [
        {"type": "text", "text": '{"temp":3}'}
    ]
    assert encode_results([ToolResult("c", "f", [{"type": "text", "text": "x"}])], "anthropic")[0][
        "content"
    ][0]["content"] == [{"type": "text", "text": "x"}]
    assert "is_error" not in encode_results([RESULT], "anthropic")[0]["content"][0]
    gemini = encode_results([result], "gemini")[0]["parts"][0]["functionResponse"]["response"]
    assert gemini == {"error": {"temp": 3}}


def test_absent_or_empty_call_lists_give_no_calls() -> None:
    for body, provider in [
        (
            {"choices": [{"message": {"role": "assistant", "content": "hi", "tool_calls": []}}]},
            "openai",
        ),
        ({"choices": [{"message": {"role": "assistant", "content": "hi"}}]}, "openai"),
        ({"choices": []}, "openai"),
        ({"content": [{"type": "text", "text": "hi"}]}, "anthropic"),
        ({"message": {"content": "hi"}}, "ollama"),
        ({"output": []}, "openai_responses"),
        ([], "openai_responses"),
        ({"role": "model", "parts": [{"text": "hi"}]}, "gemini"),
    ]:
        assert decode_tool_calls(body, provider) == [], provider


def test_empty_calls_give_messages_the_apis_accept() -> None:
    assert encode_calls([], "openai", content="Done.") == {"role": "assistant", "content": "Done."}
    assert encode_results([], "anthropic") == [] and encode_results([], "gemini") == []


def test_text_is_not_searched_for_calls() -> None:
    body = {"choices": [{"message": {"content": '~~~tool_call\n{"name": "f"}\n~~~'}}]}
    assert decode_tool_calls(body, "openai") == []
    assert len(toolwire.extract(body)) == 1


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "provider", "path"),
    [
        ({"id": "x"}, "openai", "choices"),
        ({"choices": {}}, "openai", "choices"),
        ({"choices": [{}]}, "openai", "choices[0].message"),
        ({"choices": [{"message": {"tool_calls": {}}}]}, "openai", "choices[0].message.tool_calls"),
        (
            {"choices": [{"message": {"tool_calls": [{"function": []}]}}]},
            "openai",
            "choices[0].message.tool_calls[0].function",
        ),
        (
            {"choices": [{"message": {"tool_calls": [{"function": {"arguments": "{}"}}]}}]},
            "openai",
            "choices[0].message.tool_calls[0].function.name",
        ),
        (
            {
                "choices": [
                    {
                        "message": {
                            "tool_calls": [
                                {"function": {"name": "f"}},
                                {"function": {"name": "g", "arguments": "{"}},
                            ]
                        }
                    }
                ]
            },
            "openai",
            "choices[0].message.tool_calls[1].function.arguments",
        ),
        ({"content": 3}, "anthropic", "content"),
        ({"content": ["x"]}, "anthropic", "content[0]"),
        (
            {
                "content": [
                    {"type": "text", "text": "a"},
                    {"type": "tool_use", "name": "f", "input": [1]},
                ]
            },
            "anthropic",
            "content[1].input",
        ),
        ({"model": "m"}, "ollama", "message"),
        ({"message": "hi"}, "ollama", "message"),
        ({"output": {}}, "openai_responses", "output"),
        (
            {"output": [{"type": "function_call", "call_id": "c", "arguments": "{}"}]},
            "openai_responses",
            "output[0].name",
        ),
        (
            {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": 1}}]}}]},
            "gemini",
            "candidates[0].content.parts[0].functionCall.args",
        ),
        ("text", "openai", ""),
    ],
)
def test_wrong_shapes_raise_provider_format_error_with_the_path(
    body: Any, provider: str, path: str
) -> None:
    with pytest.raises(ProviderFormatError) as raised:
        decode_tool_calls(body, provider)
    assert raised.value.path == path


@pytest.mark.parametrize(
    ("call", "path"),
    [
        (lambda: decode_tools([{"type": "function"}], "openai"), "[0].function"),
        (
            lambda: decode_tools([{"type": "function", "function": {"name": 1}}], "openai"),
            "[0].function.name",
        ),
        (
            lambda: decode_tools([{"name": "f", "input_schema": []}], "anthropic"),
            "[0].input_schema",
        ),
        (lambda: decode_tools({"name": "f"}, "anthropic"), ""),
        (
            lambda: decode_tools([{"functionDeclarations": [{"description": "x"}]}], "gemini"),
            "[0].functionDeclarations[0].name",
        ),
        (lambda: decode_results([{"role": "tool", "content": 5}], "openai"), "[0].content"),
        (
            lambda: decode_results(
                [{"role": "user", "content": [{"type": "tool_result", "is_error": "yes"}]}],
                "anthropic",
            ),
            "[0].content[0].is_error",
        ),
        (
            lambda: decode_results([{"parts": [{"functionResponse": {"response": []}}]}], "gemini"),
            "[0].parts[0].functionResponse.response",
        ),
        (lambda: convert_message({"role": "user", "content": "hi"}, "openai", "anthropic"), "role"),
    ],
)
def test_wrong_shapes_in_tools_and_results(call: Any, path: str) -> None:
    with pytest.raises(ProviderFormatError) as raised:
        call()
    assert raised.value.path == path


def test_unknown_provider_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="provider must be one of"):
        encode_tools([TOOL], "cohere")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="provider must be one of"):
        decode_tool_calls({}, "cohere")  # type: ignore[arg-type]


def test_on_error_keep_returns_invalid_calls_in_place() -> None:
    body = {
        "role": "assistant",
        "tool_calls": [
            {"id": "a", "function": {"name": "f", "arguments": "{"}},
            {"id": "b", "function": {"name": "g", "arguments": "{}"}},
        ],
    }
    bad, good = decode_tool_calls(body, "openai", on_error="keep")
    assert (
        isinstance(bad, toolwire.InvalidToolCall)
        and "tool_calls[0].function.arguments" in bad.error
    )
    assert good == ToolCall("b", "g", {})
    assert decode_tool_calls(body, "openai", on_error="skip") == [good]


def test_mutated_corpus_bodies_give_a_result_or_provider_format_error() -> None:
    rng = random.Random(4)
    checked = 0
    for case in cases()[::60]:
        for source in (*CORPUS_PROVIDERS, "tools", "results"):
            for provider in CORPUS_PROVIDERS:
                if source == "tools":
                    body, decode = case["tools_wire"][provider], decode_tools
                elif source == "results":
                    body, decode = results_wire(case, provider), decode_results
                elif source == provider:
                    body, decode = case["wire"][provider], decode_tool_calls
                else:
                    continue
                for path in mutation_paths(body):
                    changed = mutated(body, path, rng)
                    try:
                        decode(changed, provider)
                        convert_message(changed, provider, "openai")
                    except ProviderFormatError:
                        pass
                    checked += 1
    assert checked > 1000


def test_docstring_examples() -> None:
    for module in (toolwire.codecs,):
        assert doctest.testmod(module).failed == 0
