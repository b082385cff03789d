"""toolwire's SGLang detectors as SGLang's serving layer loads and drives them: the plugin
entry point its launcher runs, and ``FunctionCallParser`` fed each step's new text
(``parse_stream_chunk``) then flushed at the end (``parse_stream_end``), as the chat server's
tool-call stream does, on the recorded model outputs of ``tests/data/streams.jsonl``."""

from __future__ import annotations

import json
from typing import Any

import pytest
import toolwire
import toolwire.integrations.sglang as adapter
from engine_support import STREAMS, Result, token_like_chunks, unread_parser_names
from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.plugins import load_plugins


def _tools(stream: dict[str, Any]) -> list[Any]:
    return [Tool(type="function", function=tool) for tool in stream["tools"]]


def serve_stream(name: str, tools: list[Any], text: str, seed: int) -> tuple[Result, Any]:
    parser = FunctionCallParser(tools, name)
    steps = [parser.parse_stream_chunk(chunk) for chunk in token_like_chunks(text, seed)]
    steps.append(parser.parse_stream_end())
    result = Result()
    for content, items in steps:
        result.content += content
        for item in items:
            call_id = f"call-{item.tool_index}" if item.name else None
            result.add_call_piece(item.tool_index, call_id, item.name, item.parameters)
    return result, parser.detector


@pytest.mark.parametrize("stream", STREAMS, ids=[s["id"] for s in STREAMS])
def test_function_call_parser_gives_the_calls(stream: dict[str, Any]) -> None:
    tools = _tools(stream)
    name = f"toolwire_{stream['protocol']}"
    result, detector = serve_stream(name, tools, stream["text"], 7)
    calls = [(name, json.loads(arguments)) for _, name, arguments in result.calls]
    assert calls == [(c["name"], c["arguments"]) for c in stream["calls"]]
    # Every argument was streamed: the server's check for unstreamed arguments finds none.
    assert detector.prev_tool_call_arr == [] and detector.streamed_args_for_tool == []
    # The non-streaming path agrees.
    parser = FunctionCallParser(tools, name)
    if calls:
        assert parser.has_tool_call(stream["text"])
    content, items = parser.parse_non_stream(stream["text"])
    assert [item.parameters for item in items] == [arguments for _, _, arguments in result.calls]
    assert [item.tool_index for item in items] == list(range(len(items)))
    if "<think>" not in stream["text"] and stream["protocol"] != "harmony":
        assert content.strip() == result.content.strip()


def test_unknown_names_follow_sglangs_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        '<tool_call>{"name": "known", "arguments": {"a": 1}}</tool_call>'
        '<tool_call>{"name": "other", "arguments": {}}</tool_call>'
    )
    tools = _tools({"tools": [{"name": "known", "parameters": {"type": "object"}}]})
    monkeypatch.delenv("SGLANG_FORWARD_UNKNOWN_TOOLS", raising=False)
    dropped, _ = serve_stream("toolwire_hermes", tools, text, 1)
    assert [name for _, name, _ in dropped.calls] == ["known"]
    assert [
        i.name for i in FunctionCallParser(tools, "toolwire_hermes").parse_non_stream(text)[1]
    ] == ["known"]
    monkeypatch.setenv("SGLANG_FORWARD_UNKNOWN_TOOLS", "1")
    kept, _ = serve_stream("toolwire_hermes", tools, text, 1)
    assert [name for _, name, _ in kept.calls] == ["known", "other"]


def test_tools_type_qwen3_coder_values() -> None:
    text = (
        "<tool_call>\n<function=f>\n<parameter=zip>\n03106\n</parameter>\n</function>\n</tool_call>"
    )
    schema = {"type": "object", "properties": {"zip": {"type": "string"}}}
    tools = _tools({"tools": [{"name": "f", "parameters": schema}]})
    result, _ = serve_stream("toolwire_qwen3_coder", tools, text, 4)
    assert result.calls[0][2] == '{"zip":"03106"}'


def test_the_launchers_plugin_hook_registers_the_detectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """SGLang's launcher runs ``load_plugins()`` before parsing ``--tool-call-parser``, whose
    choices are then the keys of ``ToolCallParserEnum`` (``server_args`` is not imported here:
    its import chain reaches code that runs torch)."""
    for name in adapter.DETECTORS:
        monkeypatch.delitem(FunctionCallParser.ToolCallParserEnum, name)
    monkeypatch.setattr("sglang.srt.plugins._plugins_loaded", False)
    load_plugins()
    assert FunctionCallParser.ToolCallParserEnum["toolwire_auto"] is adapter.ToolwireDetector
    names = {f"toolwire_{name}" for name in toolwire.FORMAT_NAMES}
    assert names <= set(FunctionCallParser.ToolCallParserEnum)


def test_every_sglang_tool_parser_name_names_a_toolwire_format() -> None:
    """A gateway can pass on the name its SGLang deployment was started with."""
    assert unread_parser_names(set(FunctionCallParser.ToolCallParserEnum)) == set()
