"""The encoders' results are what their declared types say: each validates, at run time,
against the `openai` or `anthropic` SDK request type it is typed as (tests/typing_user.py checks
the same types statically). pydantic reads the SDKs' TypedDicts; unknown keys are refused."""

from __future__ import annotations

from typing import Any

import pytest
import toolwire
from support import cases
from toolwire import ProviderFormatError, Tool, ToolCall, ToolResult

pytest.importorskip("openai", reason="the openai SDK is in the test extra")
pytest.importorskip("anthropic", reason="the anthropic SDK is in the test extra")
from anthropic.types import MessageParam, ToolParam
from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionFunctionToolParam,
    ChatCompletionMessageParam,
    ChatCompletionToolMessageParam,
)
from openai.types.responses import FunctionToolParam, ResponseInputItemParam
from pydantic import TypeAdapter
from pydantic_core import ValidationError


def conforms(value: Any, sdk_type: Any) -> None:
    """``value`` validates as ``sdk_type`` and comes back whole: a key the SDK type does not
    know would be dropped by the validation, and then the two would differ."""
    assert plain(TypeAdapter(sdk_type).validate_python(value)) == value


def plain(value: Any) -> Any:
    """Validated data with pydantic's lazily validated iterables read into lists."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple) or hasattr(value, "__next__"):
        return [plain(item) for item in value]
    return value


def corpus() -> tuple[list[Tool], list[ToolCall], list[ToolResult]]:
    tools, calls, results = [], [], []
    for case in cases()[::7]:
        tools += [Tool.from_dict(tool) for tool in case["tools"]]
        calls += toolwire.decode_tool_calls(case["wire"]["openai"], "openai")
        results += [ToolResult.from_dict(result) for result in case["results"]]
    results.append(ToolResult("call_x", "f", {"rows": [1, 2]}, is_error=True))
    results.append(ToolResult("call_y", "f", [{"type": "text", "text": "block"}]))
    return tools, calls, results


def test_the_check_refuses_a_wrong_shape() -> None:
    with pytest.raises(ValidationError):
        conforms([{"type": "function", "name": "f"}], list[ChatCompletionFunctionToolParam])
    with pytest.raises(ValidationError):
        conforms({"role": "assistant", "tool_calls": [{"id": 1}]}, ChatCompletionMessageParam)
    with pytest.raises(AssertionError):  # a key the SDK type lacks
        message = {"role": "tool", "tool_call_id": "c", "content": "", "x": 1}
        conforms(message, ChatCompletionMessageParam)


def test_openai_chat() -> None:
    tools, calls, results = corpus()
    conforms(toolwire.encode_tools(tools, "openai"), list[ChatCompletionFunctionToolParam])
    for content in (None, "Checking."):
        message = toolwire.encode_calls(calls, "openai", content=content)
        conforms(message, ChatCompletionAssistantMessageParam)
    conforms(toolwire.encode_results(results, "openai"), list[ChatCompletionToolMessageParam])


def test_openai_responses() -> None:
    tools, calls, results = corpus()
    conforms(toolwire.encode_tools(tools, "openai_responses"), list[FunctionToolParam])
    for content in (None, "Checking."):
        items = toolwire.encode_calls(calls, "openai_responses", content=content)
        conforms(items, list[ResponseInputItemParam])
    conforms(toolwire.encode_results(results, "openai_responses"), list[ResponseInputItemParam])


def test_anthropic() -> None:
    tools, calls, results = corpus()
    conforms(toolwire.encode_tools(tools, "anthropic"), list[ToolParam])
    for content in (None, "Checking."):
        conforms(toolwire.encode_calls(calls, "anthropic", content=content), MessageParam)
    conforms(toolwire.encode_results(results, "anthropic"), list[MessageParam])


def test_converted_messages() -> None:
    _, calls, results = corpus()
    message = toolwire.encode_calls(calls, "anthropic", content="Checking.")
    answer = toolwire.encode_results(results[: len(calls)], "ollama")
    converted = toolwire.convert_message(message, "anthropic", "openai")
    conforms(converted, list[ChatCompletionMessageParam])
    conforms(
        toolwire.convert_message(answer, "ollama", "anthropic", calls=calls), list[MessageParam]
    )


@pytest.mark.parametrize("provider", ["openai", "openai_responses", "anthropic"])
def test_a_result_without_an_id_is_refused_where_the_wire_needs_one(provider: Any) -> None:
    with pytest.raises(ProviderFormatError, match="result 1 has no tool_call_id") as error:
        toolwire.encode_results(
            [ToolResult("call_1", "f", "ok"), ToolResult(None, "f", "ok")], provider
        )
    assert error.value.path == "[1].tool_call_id"
    # Ollama carries no ids at all; Gemini pairs results by name.
    for other in ("ollama", "gemini"):
        assert toolwire.encode_results([ToolResult(None, "f", "ok")], other)
