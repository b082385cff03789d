"""vLLM's and SGLang's own tool-parser test cases (tests/engines/data/engine_cases.json, Apache-2.0,
attributed there), through toolwire's adapters and the engines' real base classes, streaming
and not.

Each case runs through both engines' adapters for its format. Streaming follows each engine's
calling convention: vLLM's ``extract_tool_calls_streaming(previous_text, current_text,
delta_text, ...)`` then its end-of-stream hook ``finish_streaming()``; SGLang's
``FunctionCallParser.parse_stream_chunk`` then ``parse_stream_end``. A case with a
``deviation`` is one where toolwire deliberately differs: it is expected to fail (strictly, so
the list stays true).
"""

from __future__ import annotations

from typing import Any

import pytest
from engine_support import CASES, Result, check_case, token_like_chunks, tool_definitions
from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.tool_parsers import ToolParserManager

CHUNKINGS = ("whole", "token_like", "given")


def _params() -> list[Any]:
    params = []
    for number, case in enumerate(CASES["cases"]):
        for engine in ("vllm", "sglang"):
            for chunking in CHUNKINGS:
                if chunking == "given" and "chunks" not in case:
                    continue
                mode = "whole" if chunking == "whole" else "streaming"
                deviation = case.get("deviation")
                if isinstance(deviation, dict):
                    deviation = deviation.get(f"{engine}-{mode}", deviation.get(mode))
                marks = [pytest.mark.xfail(reason=deviation, strict=True)] if deviation else []
                params.append(
                    pytest.param(
                        case,
                        engine,
                        chunking,
                        number,
                        marks=marks,
                        id=f"{case['id']}-{engine}-{chunking}",
                    )
                )
    return params


def _chunks(case: dict[str, Any], chunking: str, seed: int) -> list[str]:
    return case["chunks"] if chunking == "given" else token_like_chunks(case["output"], seed)


def run_vllm(case: dict[str, Any], chunking: str, seed: int) -> Result:
    names = [name for name, _ in case["calls"]]
    request = ChatCompletionRequest(model="test-model", messages=[], tools=tool_definitions(names))
    parser = ToolParserManager.get_tool_parser(f"toolwire_{case['format']}")(None, request.tools)
    result = Result()
    if chunking == "whole":
        extracted = parser.extract_tool_calls(case["output"], request)
        assert extracted.tools_called == bool(extracted.tool_calls)
        result.content = extracted.content or ""
        result.calls = [[c.id, c.function.name, c.function.arguments] for c in extracted.tool_calls]
        return result
    previous = ""
    deltas = []
    for delta_text in _chunks(case, chunking, seed):
        current = previous + delta_text
        deltas.append(
            parser.extract_tool_calls_streaming(previous, current, delta_text, [], [], [], request)
        )
        previous = current
    deltas.append(parser.finish_streaming())
    for delta in filter(None, deltas):
        assert delta.content is not None or delta.tool_calls, "a delta carries something"
        result.content += delta.content or ""
        for call in delta.tool_calls:
            assert call.type in (None, "function")
            result.add_call_piece(call.index, call.id, call.function.name, call.function.arguments)
    return result


def run_sglang(case: dict[str, Any], chunking: str, seed: int) -> Result:
    names = [name for name, _ in case["calls"]]
    tools = [Tool(**definition) for definition in tool_definitions(names)]
    parser = FunctionCallParser(tools, f"toolwire_{case['format']}")
    result = Result()
    if chunking == "whole":
        content, items = parser.parse_non_stream(case["output"])
        result.content = content
        result.calls = [[f"call-{i}", item.name, item.parameters] for i, item in enumerate(items)]
        return result
    steps = [parser.parse_stream_chunk(chunk) for chunk in _chunks(case, chunking, seed)]
    steps.append(parser.parse_stream_end())
    for content, items in steps:
        result.content += content
        for item in items:
            call_id = f"call-{item.tool_index}" if item.name else None
            result.add_call_piece(item.tool_index, call_id, item.name, item.parameters)
    return result


@pytest.mark.parametrize(("case", "engine", "chunking", "seed"), _params())
def test_engine_case(
    case: dict[str, Any], engine: str, chunking: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cases' requests offer only the tools their expected calls name; SGLang's policy
    # (drop other names) would hide how a broken call to another name is read.
    monkeypatch.setenv("SGLANG_FORWARD_UNKNOWN_TOOLS", "1")
    run = run_vllm if engine == "vllm" else run_sglang
    check_case(case, run(case, chunking, seed))
