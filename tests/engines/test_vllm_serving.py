"""toolwire's vLLM parsers as vLLM's serving layer loads and drives them: the plugin flags, the
composed ``Parser`` and the ``ChatStreamProcessor`` that turns each step's new text into chat
deltas, on the recorded model outputs of ``tests/data/streams.jsonl`` in random token-like
chunks, whole and cut short."""

from __future__ import annotations

import importlib
import json
import sys
from types import SimpleNamespace
from typing import Any

import pytest
import toolwire
import toolwire.integrations.vllm as adapter
from engine_support import STREAMS, Result, Tokenizer, token_like_chunks, unread_parser_names
from vllm.entrypoints.common.cli_args import init_parser_plugin, validate_api_server_args
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
from vllm.parser.parser_manager import ParserManager
from vllm.tool_parsers import ToolParserManager


def _request(stream: dict[str, Any], **overrides: Any) -> Any:
    tools = [{"type": "function", "function": tool} for tool in stream["tools"]]
    fields = {"model": "m", "messages": [{"role": "user", "content": "go"}], "tools": tools or None}
    return ChatCompletionRequest(**(fields | overrides))


def _parser(name: str, request: Any) -> tuple[Any, Any]:
    parser_cls = ParserManager.get_parser(
        tool_parser_name=name, enable_auto_tools=True, model_name="m", tokenizer=Tokenizer()
    )
    parser = parser_cls(Tokenizer(), request.tools, chat_template_kwargs=None, model_config=None)
    return parser_cls, parser


def serve_stream(name: str, request: Any, text: str, seed: int) -> tuple[Result, str | None]:
    """The chat deltas vLLM's stream processor makes of ``text``, read back as a client would."""
    parser_cls, parser = _parser(name, request)
    request = parser.adjust_request(request)
    processor = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=parser_cls)
    chunks = token_like_chunks(text, seed)
    result, finish_reason = Result(), None
    for number, chunk in enumerate(chunks):
        last = number == len(chunks) - 1
        step = processor.step(chunk, [number], "stop" if last else None, [1, 2, 3])
        finish_reason = step.finish_reason
        if step.delta is None:
            continue
        result.content += step.delta.content or ""
        for call in step.delta.tool_calls:
            result.add_call_piece(call.index, call.id, call.function.name, call.function.arguments)
    return result, finish_reason


def _reference(text: str, stream: dict[str, Any]) -> tuple[str, list[tuple[str, Any]]]:
    parsed = toolwire.parse_text(text, stream["protocol"], tools=stream["tools"])
    calls = [(c.name, c.arguments) for c in parsed.calls if isinstance(c, toolwire.ToolCall)]
    return parsed.content, calls


@pytest.mark.parametrize("stream", STREAMS, ids=[s["id"] for s in STREAMS])
def test_stream_processor_gives_the_calls(stream: dict[str, Any]) -> None:
    request = _request(stream)
    result, finish_reason = serve_stream(
        f"toolwire_{stream['protocol']}", request, stream["text"], 7
    )
    calls = [(name, json.loads(arguments)) for _, name, arguments in result.calls]
    assert calls == [(c["name"], c["arguments"]) for c in stream["calls"]]
    assert finish_reason == ("tool_calls" if calls else "stop")
    # Content as toolwire reads it (think spans kept with their tags: no reasoning parser).
    content, _ = _reference(stream["text"], stream)
    if "<think>" not in stream["text"] and stream["protocol"] != "harmony":
        assert result.content.strip() == content.strip()
    # The non-streaming path of the same composed parser agrees.
    _, parser = _parser(f"toolwire_{stream['protocol']}", request)
    _, whole_content, whole_calls = parser.parse(stream["text"], request, enable_auto_tools=True)
    assert [(c.name, json.loads(c.arguments)) for c in whole_calls] == calls
    assert [c.arguments for c in whole_calls] == [arguments for _, _, arguments in result.calls]
    assert (whole_content or "").strip() == result.content.strip()


@pytest.mark.parametrize("stream", STREAMS[::5], ids=[s["id"] for s in STREAMS[::5]])
def test_auto_parser_reads_every_format(stream: dict[str, Any]) -> None:
    result, _ = serve_stream("toolwire_auto", _request(stream), stream["text"], 11)
    _, expected = _reference(stream["text"], stream)
    assert [(name, json.loads(arguments)) for _, name, arguments in result.calls] == expected


@pytest.mark.parametrize("stream", STREAMS[::3], ids=[s["id"] for s in STREAMS[::3]])
def test_a_stream_cut_short_is_flushed_at_its_end(stream: dict[str, Any]) -> None:
    """The output stops three characters early (max_tokens): vLLM's end-of-stream hook flushes
    what the parser holds, so the client gets the calls a whole read of the text gives."""
    text = stream["text"].rstrip()
    cut = text[: len(text) - 3]
    result, _ = serve_stream(f"toolwire_{stream['protocol']}", _request(stream), cut, 3)
    parsed = toolwire.parse_text(cut, stream["protocol"], tools=stream["tools"])
    complete = [(c.name, c.arguments) for c in parsed.calls if isinstance(c, toolwire.ToolCall)]
    broken = len(parsed.calls) - len(complete)
    streamed = [(name, _json_or_text(arguments)) for _, name, arguments in result.calls]
    assert [call for call in streamed if call in complete] == complete
    # Eager release: a call found broken at the end has already been announced.
    assert len(streamed) - len(complete) <= broken


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def test_only_delta_text_is_read() -> None:
    """The adapter never reads previous_text or current_text (vLLM's engine-based streaming
    passes neither; older vLLM passes the whole text so far, which must not be re-parsed)."""
    stream = next(s for s in STREAMS if s["protocol"] == "hermes" and s["calls"])
    request = _request(stream)
    parser = ToolParserManager.get_tool_parser("toolwire_hermes")(Tokenizer(), request.tools)
    result = Result()
    deltas = [
        parser.extract_tool_calls_streaming(None, None, chunk, [], [], [], request)
        for chunk in token_like_chunks(stream["text"], 5)
    ]
    for delta in [*deltas, parser.finish_streaming()]:
        if delta is not None:
            result.content += delta.content or ""
            for call in delta.tool_calls:
                result.add_call_piece(
                    call.index, call.id, call.function.name, call.function.arguments
                )
    calls = [(name, json.loads(arguments)) for _, name, arguments in result.calls]
    assert calls == [(c["name"], c["arguments"]) for c in stream["calls"]]


def test_tool_choice_none_and_no_tools_give_the_text_back() -> None:
    stream = next(s for s in STREAMS if s["protocol"] == "hermes" and s["calls"])
    for request in (_request(stream, tool_choice="none"), _request(stream, tools=None)):
        result, finish_reason = serve_stream("toolwire_hermes", request, stream["text"], 2)
        assert (result.calls, result.content, finish_reason) == ([], stream["text"], "stop")
        parser = ToolParserManager.get_tool_parser("toolwire_hermes")(Tokenizer(), None)
        extracted = parser.extract_tool_calls(stream["text"], request)
        assert (extracted.tools_called, extracted.content) == (False, stream["text"])


def test_request_tools_type_values_and_unknown_names_follow_the_policy() -> None:
    text = (
        "<tool_call>\n<function=lookup>\n<parameter=zip>\n03106\n</parameter>\n</function>\n"
        "</tool_call><tool_call>\n<function=other>\n<parameter=x>\n1\n</parameter>\n</function>\n"
        "</tool_call>"
    )
    schema = {"type": "object", "properties": {"zip": {"type": "string"}}}
    request = _request({"tools": [{"name": "lookup", "parameters": schema}]})
    keep = ToolParserManager.get_tool_parser("toolwire_qwen3_coder")(Tokenizer(), None)
    calls = keep.extract_tool_calls(text, request).tool_calls
    assert [(c.function.name, c.function.arguments) for c in calls] == [
        ("lookup", '{"zip":"03106"}'),  # typed by the request's schema: the zero stays
        ("other", '{"x":1}'),  # not offered, kept (vLLM's own parsers keep it too)
    ]
    drop = type("Drop", (adapter.PARSERS["toolwire_qwen3_coder"],), {"unknown_tools": "drop"})
    dropped = drop(Tokenizer(), None).extract_tool_calls(text, request).tool_calls
    assert [c.function.name for c in dropped] == ["lookup"]


def test_skip_special_tokens_is_turned_off_for_markers_that_are_special_tokens() -> None:
    stream = next(s for s in STREAMS if s["protocol"] == "kimi_k2")
    _, parser = _parser("toolwire_kimi_k2", _request(stream))
    assert parser.adjust_request(_request(stream)).skip_special_tokens is False


def test_the_plugin_flags_load_and_validate_the_parsers(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--tool-parser-plugin toolwire.integrations.vllm --tool-call-parser toolwire_auto``,
    through the functions vLLM's launcher calls with its parsed arguments."""
    for name in adapter.PARSERS:
        monkeypatch.delitem(ToolParserManager.tool_parsers, name)
    monkeypatch.delitem(sys.modules, "toolwire.integrations.vllm")
    args = SimpleNamespace(
        tool_parser_plugin="toolwire.integrations.vllm",
        reasoning_parser_plugin="",
        enable_auto_tool_choice=True,
        tool_call_parser="toolwire_auto",
        structured_outputs_config=SimpleNamespace(reasoning_parser=None),
    )
    init_parser_plugin(args)
    validate_api_server_args(args)
    loaded = importlib.import_module("toolwire.integrations.vllm")
    assert ToolParserManager.get_tool_parser("toolwire_auto") is loaded.ToolwireToolParser
    assert {f"toolwire_{name}" for name in toolwire.FORMAT_NAMES} <= set(
        ToolParserManager.list_registered()
    )


def test_every_vllm_tool_parser_name_names_a_toolwire_format() -> None:
    """A gateway can pass on the name its vLLM deployment was started with."""
    assert unread_parser_names(set(ToolParserManager.list_registered())) == set()
