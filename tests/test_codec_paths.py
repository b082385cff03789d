"""The one-pass codec paths agree with the general rules (docs/codecs.md).

`decode_tool_calls` reads well-formed OpenAI, Ollama and Anthropic bodies in one pass and hands
anything else to the core's body rules; `encode_calls` builds OpenAI, Anthropic and Ollama
messages in Rust. A body whose lists are tuples always takes the general path, which gives the
reference each decode is compared with.
"""

from __future__ import annotations

import json
import random
import re
from collections import UserString
from typing import Any

import pytest
import toolwire
from support import cases, mutated, mutation_paths
from toolwire import (
    ArgumentsError,
    InvalidToolCall,
    ProviderFormatError,
    ToolCall,
    decode_tool_calls,
    encode_calls,
)
from toolwire._toolwire import assistant_message

PROVIDERS = ("openai", "anthropic", "ollama")
ARGUMENT_KEYS = {"arguments", "parameters", "input", "args"}
GENERATED_ID = re.compile(r"^call_[A-Za-z0-9_-]{12}$")


def general(body: Any) -> Any:
    """`body` with its structural lists as tuples (argument values left alone)."""
    if isinstance(body, dict):
        return {k: v if k in ARGUMENT_KEYS else general(v) for k, v in body.items()}
    if isinstance(body, list):
        return tuple(general(item) for item in body)
    return body


def strings_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values()), set(value))
    if isinstance(value, list | tuple):
        return set().union(*(strings_in(v) for v in value))
    return set()


def outcome(body: Any, provider: str, **options: Any) -> Any:
    """What decoding gives, with generated ids (those not in the body) made comparable."""
    given = strings_in(body)
    try:
        calls = decode_tool_calls(body, provider, **options)
    except Exception as error:  # the type is part of what is compared
        return type(error).__name__, str(error), getattr(error, "path", None)
    out: list[Any] = []
    for call in calls:
        if isinstance(call, InvalidToolCall):
            out.append(("invalid", call.error, call.raw, call.index, call.name))
        else:
            generated = call.id not in given and GENERATED_ID.match(call.id) is not None
            out.append(
                (type(call.id), "<generated>" if generated else call.id, call.name, call.arguments)
            )
    return out


def corpus_bodies(provider: str, step: int = 1) -> list[Any]:
    return [case["wire"][provider] for case in cases()[::step]]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_corpus_bodies_decode_as_the_general_rules_do(provider: str) -> None:
    for body in corpus_bodies(provider):
        assert outcome(body, provider) == outcome(general(body), provider)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_well_formed_bodies_keep_their_own_name_and_id_strings(provider: str) -> None:
    """The one pass copies nothing it can keep: names and ids are the body's `str` objects."""
    body = corpus_bodies(provider)[3]
    [call] = decode_tool_calls(body, provider)
    if provider == "anthropic":
        [block] = [b for b in body["content"] if b["type"] == "tool_use"]
        assert call.name is block["name"] and call.id is block["id"]
        assert call.arguments is block["input"]  # caller's dicts are used without copying
    else:
        message = body["message"] if provider == "ollama" else body["choices"][0]["message"]
        assert call.name is message["tool_calls"][0]["function"]["name"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_mutated_bodies_decode_as_the_general_rules_do(provider: str) -> None:
    rng = random.Random(7)
    checked = 0
    for body in corpus_bodies(provider, step=40):
        for path in mutation_paths(body):
            changed = mutated(body, path, rng)
            for on_error in ("raise", "keep"):
                expected = outcome(general(changed), provider, on_error=on_error)
                assert outcome(changed, provider, on_error=on_error) == expected, path
                checked += 1
    assert checked > 500


CALL_BODY = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


def openai_message(*calls: Any, **message: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls), **message}


def with_function(**function: Any) -> dict[str, Any]:
    return {**CALL_BODY, "function": {**CALL_BODY["function"], **function}}


EDGE_BODIES: list[tuple[str, Any]] = [
    ("openai", openai_message(CALL_BODY, CALL_BODY)),  # a repeated id is replaced
    ("openai", openai_message({**CALL_BODY, "id": ""}, {**CALL_BODY, "id": None})),
    ("openai", openai_message({**CALL_BODY, "id": 7})),  # numbers are ids too
    ("openai", openai_message({**CALL_BODY, "id": True})),
    ("openai", openai_message({"function": {"name": "f", "id": "inner"}})),
    ("openai", openai_message({"id": "outer", "function": {"name": "f", "id": "inner"}})),
    ("openai", openai_message(with_function(arguments=None))),
    ("openai", openai_message(with_function(arguments="  "))),
    ("openai", openai_message(with_function(arguments='"{\\"a\\": 1}"'))),  # double-encoded
    ("openai", openai_message(with_function(arguments="{"))),
    ("openai", openai_message(with_function(arguments="[1]"))),
    ("openai", openai_message(with_function(arguments="{'a': 1}"))),
    ("openai", openai_message(with_function(arguments={"a": [1]}))),
    ("openai", openai_message(with_function(parameters={"p": 1}, arguments=None))),
    ("openai", openai_message({"id": "x", "function": {"parameters": {"p": 1}, "name": "g"}})),
    ("openai", openai_message(with_function(name=""))),
    ("openai", openai_message(with_function(name=5))),
    ("openai", openai_message(with_function(name="\ud800"))),  # a lone surrogate
    ("openai", openai_message({"type": "function_call", "name": "f", "call_id": "c"})),
    ("openai", openai_message({"name": "f", "arguments": "{}"})),
    ("openai", openai_message({"functionCall": {"name": "f"}})),
    ("openai", openai_message(CALL_BODY, content=5)),
    ("openai", openai_message(CALL_BODY, content=[{"type": "text", "text": 1}])),
    ("openai", openai_message(CALL_BODY, content=[{"type": "text", "text": "hi"}])),
    ("openai", {"role": "assistant", "text": 3, "tool_calls": [CALL_BODY]}),
    ("openai", {"choices": [{"message": openai_message(CALL_BODY)}, {"x": 1}]}),
    ("openai", {"choices": [{"message": None}]}),
    ("openai", {"choices": [None]}),
    ("openai", {"choices": {}}),
    ("openai", {"choices": []}),
    ("openai", {"model": "m"}),
    ("openai", openai_message(CALL_BODY, tool_calls={})),
    (
        "ollama",
        {
            "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"function": {"name": "f", "arguments": {"a": 1}}},
                    {"function": {"name": "g", "arguments": {}}},
                ],
            }
        },
    ),
    ("ollama", {"message": 3}),
    (
        "anthropic",
        {
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}},
                {"type": "thinking", "thinking": "..."},
                {"type": "tool_use", "id": "t", "name": "g", "input": None},
            ]
        },
    ),
    ("anthropic", {"content": [{"type": "text"}]}),
    ("anthropic", {"content": [{"type": "text", "text": None}]}),
    ("anthropic", {"content": [{"type": "tool_use", "id": "t", "input": {}}]}),
    ("anthropic", {"content": [{"type": "tool_use", "name": "f", "input": '{"a": 1}'}]}),
    ("anthropic", {"content": [{"type": "tool_use", "name": "f", "input": 3}]}),
    ("anthropic", {"content": [3]}),
    ("anthropic", {"content": "just text"}),
    ("anthropic", {"content": None}),
    ("anthropic", {"content": 3}),
    ("anthropic", {"role": "assistant"}),
]


@pytest.mark.parametrize(("provider", "body"), EDGE_BODIES)
@pytest.mark.parametrize("on_error", ["raise", "keep", "skip"])
def test_edge_cases_decode_as_the_general_rules_do(provider: str, body: Any, on_error: str) -> None:
    expected = outcome(general(body), provider, on_error=on_error)
    assert outcome(body, provider, on_error=on_error) == expected


def test_repeated_and_missing_ids_are_generated() -> None:
    first, second = decode_tool_calls(openai_message(CALL_BODY, CALL_BODY), "openai")
    assert first.id == "call_1" and GENERATED_ID.match(second.id)
    [call] = decode_tool_calls(openai_message({**CALL_BODY, "id": ""}), "openai")
    assert GENERATED_ID.match(call.id)


def test_ids_stay_unique_past_the_few_compared_one_by_one() -> None:
    # 40 calls, each of 20 ids twice: the fast path compares the first 16 ids one by one,
    # then keeps a set.
    calls = [{**CALL_BODY, "id": f"call_{i % 20}"} for i in range(40)]
    ids = [call.id for call in decode_tool_calls(openai_message(*calls), "openai")]
    assert ids[:20] == [f"call_{i}" for i in range(20)]
    assert all(GENERATED_ID.match(i) for i in ids[20:]) and len(set(ids)) == 40


def test_subclassed_strings_and_dicts_give_plain_calls() -> None:
    class Name(str):
        pass

    class Arguments(dict[str, Any]):
        pass

    arguments = Arguments(a=1)
    call_body = {"id": Name("c"), "function": {"name": Name("f"), "arguments": arguments}}
    body = openai_message(call_body)
    [call] = decode_tool_calls(body, "openai")
    assert type(call.name) is str and type(call.id) is str
    assert (call.id, call.name) == ("c", "f") and call.arguments is arguments
    assert (
        decode_tool_calls(
            openai_message(with_function(name=UserString("f"))), "openai", on_error="skip"
        )
        == []
    )


def test_wrong_shapes_keep_their_error_and_path() -> None:
    for body, path in [
        (openai_message(CALL_BODY, content=5), "content"),
        (
            {"choices": [{"message": openai_message(with_function(arguments="{"))}]},
            "choices[0].message.tool_calls[0].function.arguments",
        ),
        ({"content": [{"type": "text"}]}, "content[0].text"),
    ]:
        provider = "anthropic" if "content" in body and "role" not in body else "openai"
        with pytest.raises(ProviderFormatError) as raised:
            decode_tool_calls(body, provider)
        assert raised.value.path == path


# --- encode_calls ----------------------------------------------------------------------------

CALLS = [ToolCall("call_1", "f", {"a": [1, "é"]}), ToolCall("call_2", "g", {})]


def expected_message(provider: str, calls: list[ToolCall], content: Any) -> Any:
    """The assistant message, written out in Python."""
    if provider == "openai":
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {
                        "name": c.name,
                        "arguments": json.dumps(
                            c.arguments, separators=(",", ":"), ensure_ascii=False
                        ),
                    },
                }
                for c in calls
            ]
        return message
    if provider == "anthropic":
        blocks: list[Any] = [{"type": "text", "text": content}] if content else []
        blocks += [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in calls
        ]
        return {"role": "assistant", "content": blocks}
    message = {"role": "assistant", "content": content or ""}
    if calls:
        message["tool_calls"] = [
            {"function": {"name": c.name, "arguments": c.arguments}} for c in calls
        ]
    return message


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("content", [None, "", "Let me check."])
@pytest.mark.parametrize("calls", [CALLS, CALLS[:1], []])
def test_encode_calls_writes_the_wire_message(
    provider: str, content: str | None, calls: list[ToolCall]
) -> None:
    expected = expected_message(provider, calls, content)
    assert encode_calls(calls, provider, content=content) == expected  # type: ignore[arg-type]
    assert encode_calls(tuple(calls), provider, content=content) == expected  # type: ignore[arg-type]
    assert encode_calls(iter(calls), provider, content=content) == expected  # type: ignore[arg-type]
    mappings = [c.to_dict() for c in calls]
    assert encode_calls(mappings, provider, content=content) == expected  # type: ignore[arg-type]


def test_encoded_calls_hold_the_calls_own_objects() -> None:
    message = encode_calls(CALLS, "anthropic")
    assert message["content"][0]["input"] is CALLS[0].arguments
    assert encode_calls(CALLS, "ollama")["tool_calls"][0]["function"]["arguments"] is (
        CALLS[0].arguments
    )


def test_unwritable_arguments_raise_arguments_error() -> None:
    call = ToolCall("call_1", "f", {"a": {1, 2}})
    with pytest.raises(
        ArgumentsError,
        match=r"^the arguments of 'f' cannot be written as JSON: "
        r"Object of type set is not JSON serializable$",
    ):
        encode_calls([call], "openai")
    assert encode_calls([call], "anthropic")["content"][0]["input"] == {"a": {1, 2}}


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_arguments_holding_a_non_finite_float_cannot_be_written(value: float) -> None:
    """JSON has no NaN or infinity: OpenAI's arguments text is never `Infinity` (the parsers
    never make one; a caller's own call may hold one)."""
    call = ToolCall("call_1", "f", {"a": [1.5, value]})
    with pytest.raises(ArgumentsError, match="Out of range float values are not JSON compliant"):
        encode_calls([call], "openai")


def test_assistant_message_leaves_other_inputs_to_the_python_codecs() -> None:
    assert assistant_message(CALLS, "gemini", None) is None
    assert assistant_message(CALLS, "openai_responses", None) is None
    assert assistant_message(iter(CALLS), "openai", None) is None
    assert assistant_message([{"name": "f"}], "openai", None) is None
    assert assistant_message(CALLS, "openai", None) == expected_message("openai", CALLS, None)
    with pytest.raises(ValueError, match="provider must be one of"):
        encode_calls(CALLS, "cohere")  # type: ignore[call-overload]
    with pytest.raises(toolwire.ToolCallParseError, match="call 1"):
        encode_calls([CALLS[0], 5], "anthropic")  # type: ignore[list-item]
