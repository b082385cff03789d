"""examples/gateway end to end: a fake upstream on 127.0.0.1 streaming recorded model outputs
(every format of tests/data/streams.jsonl, single and multiple calls, calls cut short, calls to
tools not offered), the gateway under a real uvicorn server, and the official ``openai`` and
``anthropic`` SDK clients as its clients, streaming and not."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="the gateway extra is not installed")
pytest.importorskip("starlette", reason="the gateway extra is not installed")
anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")

from gateway_support import (  # noqa: E402
    PROMPT_TOKENS,
    GatewayConfig,
    chat_request,
    create_app,
    create_upstream,
    serving,
)
from support import load_jsonl  # noqa: E402

STREAMS = load_jsonl("streams.jsonl")
CHUNK = 4


def _pick() -> list[dict[str, Any]]:
    """Per format, the stream with the most calls and one with one call."""
    picked = []
    for protocol in sorted({s["protocol"] for s in STREAMS}):
        mine = [s for s in STREAMS if s["protocol"] == protocol and s["calls"]]
        most = max(mine, key=lambda s: len(s["calls"]))
        single = next((s for s in mine if len(s["calls"]) == 1 and s is not most), None)
        picked += [most] + ([single] if single else [])
    return picked


PICKED = _pick()
CUT = {  # a last call cut short (max_tokens): its closing marker never came
    "hermes#cut": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n'
    '</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Ber',
}
WEATHER = {
    "name": "get_weather",
    "description": "Weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
POLICY = {  # a call with arguments the schema refuses, and a call to a tool not offered
    "policy": '<tool_call>{"name": "get_weather", "arguments": {"town": "Oslo"}}</tool_call>'
    '<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call>'
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>',
}
NATIVE = {  # an upstream that parses calls itself: native tool_calls deltas pass through
    "native": [
        {
            "id": "chatcmpl-native",
            "model": "fake",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        for delta, finish in [
            ({"role": "assistant", "content": "Checking."}, None),
            (
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_n1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": '},
                        }
                    ]
                },
                None,
            ),
            ({"tool_calls": [{"index": 0, "function": {"arguments": '"Lima"}'}}]}, None),
            ({}, "tool_calls"),
        ]
    ]
}
OUTPUTS: dict[str, Any] = {s["id"]: s["text"] for s in PICKED} | CUT | POLICY | NATIVE


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    with serving(create_upstream(OUTPUTS, chunk_chars=CHUNK)) as url:
        yield f"{url}/v1"


@pytest.fixture(scope="module")
def gateway(upstream: str) -> Iterator[str]:
    with serving(create_app(GatewayConfig(upstream=upstream))) as url:
        yield url


@pytest.fixture(scope="module")
def strict_gateway(upstream: str) -> Iterator[str]:
    config = GatewayConfig(upstream=upstream, release="valid", unknown_tools="invalid")
    with serving(create_app(config)) as url:
        yield url


def _openai(url: str) -> Any:
    return openai.OpenAI(base_url=f"{url}/v1", api_key="test", max_retries=0)


def _anthropic(url: str) -> Any:
    return anthropic.Anthropic(base_url=url, api_key="test", max_retries=0)


def openai_calls(url: str, name: str, tools: list[dict[str, Any]], stream: bool) -> Any:
    """The assistant message and usage the openai SDK ends up with."""
    request = {
        "model": "gw-model",
        "messages": [{"role": "user", "content": f"replay {name}"}],
        "tools": [{"type": "function", "function": tool} for tool in tools] or openai.omit,
    }
    client = _openai(url)
    if not stream:
        completion = client.chat.completions.create(**request)
    else:
        with client.chat.completions.stream(
            **request, stream_options={"include_usage": True}
        ) as events:
            try:
                completion = events.get_final_completion()
            except openai.LengthFinishReasonError as stopped:  # finish_reason "length"
                completion = stopped.completion
    choice = completion.choices[0]
    calls = [
        (call.function.name, json.loads(call.function.arguments))
        for call in choice.message.tool_calls or ()
    ]
    return calls, choice, completion.usage


def anthropic_calls(url: str, name: str, tools: list[dict[str, Any]], stream: bool) -> Any:
    """The tool_use blocks, text and usage the anthropic SDK ends up with."""
    request = {
        "model": "gw-model",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": f"replay {name}"}],
        "tools": [
            {
                "name": t["name"],
                "description": t.get("description", ""),
                "input_schema": t["parameters"],
            }
            for t in tools
        ]
        or anthropic.omit,
    }
    client = _anthropic(url)
    if not stream:
        message = client.messages.create(**request)
    else:
        with client.messages.stream(**request) as events:
            message = events.get_final_message()
    calls = [(b.name, b.input) for b in message.content if b.type == "tool_use"]
    text = "".join(b.text for b in message.content if b.type == "text")
    return calls, message, text


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("recorded", PICKED, ids=[s["id"] + "-" + s["protocol"] for s in PICKED])
def test_openai_client_sees_native_calls(
    gateway: str, recorded: dict[str, Any], stream: bool
) -> None:
    calls, choice, usage = openai_calls(gateway, recorded["id"], recorded["tools"], stream)
    assert calls == [(c["name"], c["arguments"]) for c in recorded["calls"]]
    assert choice.finish_reason == "tool_calls"
    ids = [call.id for call in choice.message.tool_calls]
    assert len(set(ids)) == len(ids) and all(ids)
    chunks = math.ceil(len(recorded["text"]) / CHUNK)
    assert (usage.prompt_tokens, usage.completion_tokens) == (PROMPT_TOKENS, chunks)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("recorded", PICKED, ids=[s["id"] + "-" + s["protocol"] for s in PICKED])
def test_anthropic_client_sees_tool_use_blocks(
    gateway: str, recorded: dict[str, Any], stream: bool
) -> None:
    calls, message, _ = anthropic_calls(gateway, recorded["id"], recorded["tools"], stream)
    assert calls == [(c["name"], c["arguments"]) for c in recorded["calls"]]
    assert message.stop_reason == "tool_use"
    chunks = math.ceil(len(recorded["text"]) / CHUNK)
    assert (message.usage.input_tokens, message.usage.output_tokens) == (PROMPT_TOKENS, chunks)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_call_cut_short(gateway: str, strict_gateway: str, stream: bool) -> None:
    """The last call is cut by max_tokens. Released eagerly, its start and the arguments so
    far have gone out as they streamed (as with a native API), and the stop reason says the
    output was cut; a whole response leaves it out. Released once valid, it never goes out."""
    seen = _openai_seen(gateway, "hermes#cut", stream)
    assert (seen[0][0], json.loads(seen[0][1])) == ("get_weather", {"city": "Oslo"})
    assert seen[1:] == ([("get_weather", '{"city": "Ber')] if stream else [])
    assert _openai_seen(strict_gateway, "hermes#cut", stream) == seen[:1]
    calls, message, _ = anthropic_calls(strict_gateway, "hermes#cut", [WEATHER], stream)
    assert (calls, message.stop_reason) == ([("get_weather", {"city": "Oslo"})], "max_tokens")


def _openai_seen(url: str, name: str, stream: bool) -> list[tuple[str, str]]:
    """Each call's name and arguments text as an openai SDK client receives them."""
    request = {
        "model": "gw-model",
        "messages": [{"role": "user", "content": f"replay {name}"}],
        "tools": [{"type": "function", "function": WEATHER}],
    }
    client = _openai(url)
    if not stream:
        choice = client.chat.completions.create(**request).choices[0]
        assert choice.finish_reason == "length"
        return [(c.function.name, c.function.arguments) for c in choice.message.tool_calls or ()]
    calls: dict[int, list[str]] = {}
    finish = None
    for chunk in client.chat.completions.create(**request, stream=True):
        for choice in chunk.choices:
            finish = choice.finish_reason or finish
            for call in choice.delta.tool_calls or ():
                piece = calls.setdefault(call.index, ["", ""])
                piece[0] += call.function.name or ""
                piece[1] += call.function.arguments or ""
    assert finish == "length"
    return [(name, arguments) for name, arguments in calls.values()]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_release_and_unknown_tool_policies(gateway: str, strict_gateway: str, stream: bool) -> None:
    every = [
        ("get_weather", {"town": "Oslo"}),
        ("rm_rf", {"path": "/"}),
        ("get_weather", {"city": "Rome"}),
    ]
    assert openai_calls(gateway, "policy", [WEATHER], stream)[0] == every
    # release="valid", unknown_tools="invalid": only the call that validates goes out.
    assert openai_calls(strict_gateway, "policy", [WEATHER], stream)[0] == every[2:]
    assert anthropic_calls(strict_gateway, "policy", [WEATHER], stream)[0] == every[2:]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_native_upstream_calls_are_translated_for_anthropic_clients(
    gateway: str, stream: bool
) -> None:
    calls, message, text = anthropic_calls(gateway, "native", [WEATHER], stream)
    assert (calls, text, message.stop_reason) == (
        [("get_weather", {"city": "Lima"})],
        "Checking.",
        "tool_use",
    )
    openai_seen, choice, _ = openai_calls(gateway, "native", [WEATHER], stream)
    assert openai_seen == [("get_weather", {"city": "Lima"})]
    assert choice.message.tool_calls[0].id == "call_n1"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_without_tools_the_text_stays_text(gateway: str, stream: bool) -> None:
    calls, choice, _ = openai_calls(gateway, "policy", [], stream)
    assert (calls, choice.message.content) == ([], POLICY["policy"])


def test_anthropic_tool_results_reach_the_upstream_as_tool_messages() -> None:
    body = chat_request(
        {
            "model": "m",
            "system": "Be brief.",
            "max_tokens": 64,
            "tools": [{"name": "get_weather", "input_schema": WEATHER["parameters"]}],
            "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
            "messages": [
                {"role": "user", "content": "Weather in Oslo?"},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t1",
                            "name": "get_weather",
                            "input": {"city": "Oslo"},
                        }
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "t1", "content": "4 °C"},
                        {"type": "text", "text": "And tomorrow?"},
                    ],
                },
            ],
        }
    )
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool", "user"]
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "t1", "content": "4 °C"}
    assert body["messages"][4]["content"] == "And tomorrow?"
    assert (body["tool_choice"], body["parallel_tool_calls"]) == ("required", False)
    assert body["tools"][0]["function"]["name"] == "get_weather"


def test_upstream_errors_reach_the_client(gateway: str) -> None:
    with pytest.raises(openai.NotFoundError):
        openai_calls(gateway, "no-such-output", [WEATHER], False)
    with pytest.raises(anthropic.NotFoundError):
        anthropic_calls(gateway, "no-such-output", [WEATHER], True)
