"""User code under `mypy --strict`, with no `cast` (run by scripts/check.sh; never executed):
the README's first example, the encoders' results handed straight to the `openai` and
`anthropic` SDKs' request parameters, stream events narrowed by `kind`, and pydantic models as
tools and fields. A signature that stops narrowing or stops matching an SDK type fails here."""

from __future__ import annotations

from typing import Any, assert_type

import anthropic
import openai
import toolwire
from anthropic.types import MessageParam
from openai.types.chat import ChatCompletionMessageParam
from openai.types.responses import ResponseInputItemParam
from pydantic import BaseModel
from toolwire import (
    InvalidToolCall,
    ReasoningDelta,
    TextDelta,
    Tool,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolResult,
)


def readme_first_example(text: str) -> dict[str, Any]:
    [call] = toolwire.extract(text)
    assert_type(call.name, str)
    return call.arguments


def errors_kept_or_dropped(text: str, data: bytes) -> None:
    assert_type(toolwire.extract(text, on_error="skip"), list[ToolCall])
    assert_type(toolwire.extract(data, on_error="keep"), list[ToolCall | InvalidToolCall])
    assert_type(toolwire.parse_text_tagged(text), list[ToolCall])
    assert_type(toolwire.parse_raw_json(text, mode="anywhere", on_error="skip"), list[ToolCall])
    assert_type(toolwire.decode_tool_calls({}, "openai"), list[ToolCall])
    assert_type(toolwire.extract_batch([text], on_error="skip"), list[list[ToolCall]])
    assert_type(toolwire.extract_batch([text]), list[list[ToolCall | InvalidToolCall]])


def run(tool: ToolCall) -> ToolResult:
    return ToolResult(tool.id, tool.name, "ok")


def openai_chat(client: openai.OpenAI, tools: list[Tool], question: str) -> None:
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": question}]
    response = client.chat.completions.create(
        model="gpt-4.1", messages=messages, tools=toolwire.encode_tools(tools, "openai")
    )
    calls = toolwire.decode_tool_calls(response.model_dump(), "openai")
    messages.append(toolwire.encode_calls(calls, "openai"))
    messages.extend(toolwire.encode_results([run(call) for call in calls], "openai"))
    client.chat.completions.create(model="gpt-4.1", messages=messages)


def openai_responses(client: openai.OpenAI, tools: list[Tool], question: str) -> None:
    items: list[ResponseInputItemParam] = [{"role": "user", "content": question}]
    response = client.responses.create(
        model="gpt-4.1", input=items, tools=toolwire.encode_tools(tools, "openai_responses")
    )
    calls = toolwire.decode_tool_calls(response.model_dump()["output"], "openai_responses")
    items.extend(toolwire.encode_calls(calls, "openai_responses"))
    items.extend(toolwire.encode_results([run(call) for call in calls], "openai_responses"))
    client.responses.create(model="gpt-4.1", input=items)


def anthropic_messages(client: anthropic.Anthropic, tools: list[Tool], question: str) -> None:
    messages: list[MessageParam] = [{"role": "user", "content": question}]
    response = client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=1024,
        messages=messages,
        tools=toolwire.encode_tools(tools, "anthropic"),
    )
    calls = toolwire.decode_tool_calls(response.model_dump(), "anthropic")
    messages.append(toolwire.encode_calls(calls, "anthropic"))
    messages.extend(toolwire.encode_results([run(call) for call in calls], "anthropic"))
    # A gateway: an Anthropic turn replayed to OpenAI.
    replayed: list[ChatCompletionMessageParam] = []
    replayed.extend(toolwire.convert_message(messages[-2], "anthropic", "openai", calls=calls))


def events_narrow_by_kind(parser: toolwire.StreamParser, chunk: str) -> list[ToolCall]:
    done: list[ToolCall] = []
    for event in parser.feed(chunk) + parser.finish():
        if event.kind == "tool_call_end":
            assert_type(event, ToolCallEnd)
            done.append(event.call)
        elif event.kind == "text_delta" or event.kind == "reasoning_delta":
            assert_type(event, TextDelta | ReasoningDelta)
        match event.kind:
            case "tool_call_start":
                assert_type(event, ToolCallStart)
            case "tool_call_delta":
                assert_type(event, ToolCallDelta)
            case "invalid_tool_call":
                assert_type(event, InvalidToolCall)
    return done


class Weather(BaseModel):
    """Current weather for a city."""

    city: str


class Answer(BaseModel):
    calls: list[ToolCall | InvalidToolCall]
    result: ToolResult | None = None


def pydantic_models(client: openai.OpenAI, text: str) -> str:
    assert_type(Tool.from_pydantic(Weather), Tool)
    client.chat.completions.create(
        model="gpt-4.1", messages=[], tools=toolwire.encode_tools([Weather], "openai")
    )
    answer = Answer(calls=toolwire.extract(text, on_error="keep"))
    return answer.model_dump_json()
