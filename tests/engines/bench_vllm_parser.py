"""Streaming cost per request through vLLM's serving-layer parser (``Parser.parse_delta``, what
``ChatStreamProcessor`` calls per step): toolwire's adapter against vLLM's own parser for the
same format (hermes), same run, results asserted equal.

The arguments are 1 KB and 64 KB of code in 4-character chunks (about one token per step), and
1 MB in 64-character chunks (16 tokens per step: vLLM's parser re-reads the whole text so far
on every step, so 1 MB in 4-character chunks would take it about 15 minutes). With benchmarks
disabled (the test suite) vLLM's parser runs at 1 KB only (64 KB takes it about 4 s a round,
1 MB about 90 s); toolwire's runs at every size. Run with ``--benchmark-enable``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from engine_support import Tokenizer
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.parser.parser_manager import ParserManager

sys.path.insert(0, str(Path(__file__).parents[2] / "benches"))
from bench_data import write_file_call_in

SIZES = {"1KB": (1 << 10, 4), "64KB": (1 << 16, 4), "1MB": (1 << 20, 64)}
PARSERS = {"toolwire": "toolwire_hermes", "vllm": "hermes"}
SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}
REQUEST = ChatCompletionRequest(
    model="m",
    messages=[],
    tools=[{"type": "function", "function": {"name": "write_file", "parameters": SCHEMA}}],
)


def stream_request(parser_name: str, chunks: list[str]) -> list[str]:
    """One request's whole stream through vLLM's composed parser: the arguments of each call."""
    parser_cls = ParserManager.get_parser(
        tool_parser_name=parser_name, enable_auto_tools=True, model_name="m", tokenizer=Tokenizer()
    )
    parser = parser_cls(Tokenizer(), REQUEST.tools, chat_template_kwargs=None, model_config=None)
    pieces: dict[int, list[str]] = {}
    last = len(chunks) - 1
    for number, chunk in enumerate(chunks):
        delta = parser.parse_delta(chunk, [number], REQUEST, [1], finished=number == last)
        for call in delta.tool_calls if delta is not None else ():
            pieces.setdefault(call.index, []).append(call.function.arguments or "")
    return ["".join(pieces[index]) for index in sorted(pieces)]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("parser", PARSERS)
def test_vllm_streaming_request(benchmark: Any, parser: str, size: str) -> None:
    length, step = SIZES[size]
    if parser == "vllm" and size != "1KB" and benchmark.disabled:
        pytest.skip("vLLM's own parser beyond 1 KB: only with benchmarks enabled")
    text, _, arguments = write_file_call_in("hermes", length)
    chunks = [text[at : at + step] for at in range(0, len(text), step)]
    benchmark.group = f"vLLM parse_delta, hermes, {size} arguments in {step}-character chunks"
    result = benchmark.pedantic(
        stream_request, args=(PARSERS[parser], chunks), rounds=1 if size == "1MB" else 3
    )
    assert [json.loads(text) for text in result] == [arguments]
