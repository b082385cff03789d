"""Static checks of the public API's types: `mypy --strict tests/typing_check.py` (run by
scripts/check.sh). Never executed; `assert_type` fails the type check when a signature drifts."""

from __future__ import annotations

from typing import Any, assert_type

import toolwire
from toolwire import (
    ArgumentsError,
    InvalidToolCall,
    Parsed,
    Tool,
    ToolCall,
    ToolCallParseError,
    ToolResult,
    ToolwireError,
)


def extract_paths(text: str, data: bytes, body: dict[str, Any]) -> None:
    assert_type(toolwire.extract(text), list[ToolCall])
    assert_type(
        toolwire.extract(data, on_error="keep", repair=True), list[ToolCall | InvalidToolCall]
    )
    assert_type(
        toolwire.extract(body, formats=["hermes", "raw_json"], raw_json="anywhere"),
        list[ToolCall],
    )
    assert_type(
        toolwire.extract([{"name": "f"}], tools=[{"name": "f"}], on_error="skip"), list[ToolCall]
    )
    assert_type(
        toolwire.extract_batch([text, data, body], threads=2),
        list[list[ToolCall | InvalidToolCall]],
    )
    assert_type(toolwire.parse_text_tagged(text), list[ToolCall])
    assert_type(toolwire.parse_raw_json(text, mode="whole"), list[ToolCall])
    assert_type(toolwire.parse_native([body]), list[ToolCall])
    assert_type(toolwire.parse_native([body], on_error="keep"), list[ToolCall | InvalidToolCall])
    assert_type(toolwire.decode_tool_calls(body, "anthropic"), list[ToolCall])
    policy: toolwire._toolwire.ErrorPolicy = "keep"
    assert_type(toolwire.extract(text, on_error=policy), list[ToolCall | InvalidToolCall])
    assert_type(toolwire.loads(data), Any)
    assert_type(toolwire.decode_arguments('{"a": 1}'), dict[str, Any])


def calls(call: ToolCall, invalid: InvalidToolCall) -> None:
    assert_type(call.id, str)
    assert_type(call.name, str)
    assert_type(call.arguments, dict[str, Any])
    assert_type(call.to_dict(), dict[str, Any])
    assert_type(ToolCall.from_dict({"name": "f"}), ToolCall)
    assert_type(invalid.offset, int | None)
    assert_type(invalid.name, str | None)
    assert_type(invalid.index, int)
    match call:
        case ToolCall(call_id, name, arguments):
            assert_type(call_id, str)
            assert_type(name, str)
            assert_type(arguments, dict[str, Any])


def errors() -> None:
    try:
        toolwire.extract("")
    except ArgumentsError as error:
        assert_type(error, ArgumentsError)
        assert_type(error.offset, int | None)
        assert_type(error.index, int)
    except ToolCallParseError as error:
        assert_type(error.protocol, str)
        assert_type(error.raw, str)
    except ToolwireError as error:
        assert isinstance(error, ValueError)


def types(tool: Tool, result: ToolResult, parsed: Parsed) -> None:
    assert_type(tool.name, str)
    assert_type(Tool.from_dict({"name": "f"}), Tool)
    assert_type(result.is_error, bool)
    assert_type(parsed.content, str)
    assert_type(parsed.reasoning, str | None)
    assert_type(parsed.calls, list[ToolCall | InvalidToolCall])
    assert_type(toolwire.encode_calls([ToolCall(name="f")], "ollama"), dict[str, Any])
    assert_type(toolwire.augment_system_prompt(None, [tool], compact=True), str)


def streaming(text: str, data: bytes) -> None:
    parser = toolwire.StreamParser(formats=["hermes", "text_tagged"], on_error="skip")
    for event in parser.feed(text) + parser.feed(data) + parser.finish():
        match event:
            case toolwire.TextDelta(text=piece) | toolwire.ReasoningDelta(text=piece):
                assert_type(piece, str)
            case toolwire.ToolCallStart(index, call_id, name):
                assert_type((index, call_id, name), tuple[int, str, str])
            case toolwire.ToolCallDelta(index, arguments):
                assert_type(arguments, str)
            case toolwire.ToolCallEnd(index, call):
                assert_type(call, ToolCall)
            case InvalidToolCall():
                assert_type(event.offset, int | None)
    parser.reset()
    parsed = toolwire.parse_text(text, "kimi_k2", calls_in_reasoning=False)
    assert_type(parsed, Parsed)


def gateways(chunks: list[dict[str, Any]], tools: list[Tool]) -> None:
    acc = toolwire.ResponsesStreamAccumulator(text_formats="auto", tools=tools, release="valid")
    assert_type(acc.feed(chunks[0]), list[toolwire._toolwire.Event])
    assert_type(acc.calls, list[ToolCall])
    assert_type(acc.usage, dict[str, int] | None)
    assert_type(acc.finish_reason, toolwire._toolwire.FinishReason | None)
    encoder = toolwire.StreamEncoder("anthropic", model="m")
    out = encoder.encode(acc.finish()) + encoder.finish(usage=acc.usage)
    assert_type(out, list[dict[str, Any]])
    translated = toolwire.translate_stream(chunks, source="gemini", target="openai")
    for line in toolwire.frame_stream(translated, "openai"):
        assert_type(line, str)
    toolwire.StreamParser(release="complete", unknown_tools="drop", tools=tools)


def rejected(text: str) -> None:
    toolwire.StreamEncoder("auto")  # type: ignore[arg-type]
    toolwire.OpenAIStreamAccumulator(release="lazy")  # type: ignore[arg-type]
    toolwire.extract(text, on_error="ignore")  # type: ignore[call-overload]
    toolwire.parse_raw_json(text, mode="everywhere")  # type: ignore[call-overload]
    toolwire.extract(3)  # type: ignore[call-overload]
