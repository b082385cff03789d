"""Stream codecs for gateways, in the same run as their baselines:

- per-chunk cost of the accumulators on the corpus streams (2335 recorded OpenAI chunk dicts,
  their Anthropic events, and the same responses encoded for Responses, Gemini and Ollama),
  against toolwire's former pure-Python accumulator (`python_accumulate.py`) and the `openai`
  SDK's own stream accumulation (each chunk made a `ChatCompletionChunk`, as the SDK does, then
  `ChatCompletionStreamState.handle_chunk`); `python_floor` is a loop handing each chunk to a
  builtin, the part of a Python-driven stream no accumulator can remove. The OpenAI group runs
  twice: over all the streams (each chunk read from memory) and over 5 streams repeated (chunks
  in the CPU caches, as a chunk a gateway has just parsed is). Target: 0.5 us per OpenAI chunk
  dict;
- per-event cost of each encoder on the same responses;
- `translate_stream` OpenAI → Anthropic of one call whose arguments are 64 KB (and 128 KB, for
  linearity) fed in 4-character chunks, against the accumulator alone on the same chunks.
  Targets: doubling the size at most doubles the time (linear), and within 3x the accumulator.

Run: ``python benches/report.py -k stream_codecs`` (after ``maturin develop --release``). Every
benchmark checks its result after the timing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import python_accumulate
import toolwire
from bench_data import as_pairs, code_like, corpus_streams

PROVIDERS = ("openai", "openai_responses", "anthropic", "ollama", "gemini")
ACCUMULATORS: dict[str, Any] = {
    "openai": toolwire.OpenAIStreamAccumulator,
    "openai_responses": toolwire.ResponsesStreamAccumulator,
    "anthropic": toolwire.AnthropicStreamAccumulator,
    "ollama": toolwire.OllamaStreamAccumulator,
    "gemini": toolwire.GeminiStreamAccumulator,
}
SSE = corpus_streams()
EXPECTED = [[(c["name"], c["arguments"]) for c in s["calls"]] for s in SSE]
# The same number of chunks from 5 streams, repeated: they stay in the CPU caches, as a chunk a
# gateway has just parsed does (over all 100 streams every chunk is read from memory, a wait
# every implementation shares).
HOT = (SSE[:5] * (len(SSE) // 5))[: len(SSE)]

HOT_EXPECTED = [[(c["name"], c["arguments"]) for c in s["calls"]] for s in HOT]


def events_of(stream: dict[str, Any]) -> list[Any]:
    acc = toolwire.OpenAIStreamAccumulator()
    return [e for c in stream["openai_chunks"] for e in acc.feed(c)] + acc.finish()


EVENTS = [events_of(s) for s in SSE]


def encoded(events: list[Any], provider: str) -> list[dict[str, Any]]:
    encoder = toolwire.StreamEncoder(provider)
    return encoder.encode(events) + encoder.finish()


STREAMS: dict[str, list[list[Any]]] = {
    "openai in cache": [s["openai_chunks"] for s in HOT],
    "openai": [s["openai_chunks"] for s in SSE],
    "anthropic": [s["anthropic_events"] for s in SSE],
    **{p: [encoded(e, p) for e in EVENTS] for p in ("openai_responses", "ollama", "gemini")},
}


def toolwire_run(provider: str) -> Callable[[list[list[Any]]], list[Any]]:
    make = ACCUMULATORS[provider]

    def run(streams: list[list[Any]]) -> list[Any]:
        out = []
        for items in streams:
            acc = make()
            feed = acc.feed
            for item in items:
                feed(item)
            acc.finish()
            out.append(as_pairs(acc.calls))
        return out

    return run


def python_run(provider: str) -> Callable[[list[list[Any]]], list[Any]]:
    make = {
        "openai": python_accumulate.OpenAIStreamAccumulator,
        "anthropic": python_accumulate.AnthropicStreamAccumulator,
    }[provider]

    def run(streams: list[list[Any]]) -> list[Any]:
        out = []
        for items in streams:
            acc = make()
            for item in items:
                acc.feed(item)
            acc.finish()
            out.append(as_pairs(acc.calls))
        return out

    return run


def openai_sdk_run(streams: list[list[Any]]) -> list[Any]:
    from openai._models import construct_type
    from openai.lib.streaming.chat._completions import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    out = []
    for items in streams:
        state: Any = ChatCompletionStreamState()
        for item in items:
            chunk = construct_type(type_=ChatCompletionChunk, value=item)
            for _ in state.handle_chunk(chunk):
                pass
        message = state.get_final_completion().choices[0].message
        calls = message.tool_calls or []
        out.append([(c.function.name, json.loads(c.function.arguments)) for c in calls])
    return out


def floor_run(streams: list[list[Any]]) -> list[Any]:
    total = 0
    for items in streams:
        for item in items:
            total += len(item)
    return [total]


@pytest.mark.parametrize(
    "provider, impl",
    [
        ("openai", "toolwire"),
        ("openai", "python_accumulator"),
        ("openai", "openai_sdk"),
        ("openai", "python_floor"),
        ("openai in cache", "toolwire"),
        ("openai in cache", "python_accumulator"),
        ("openai in cache", "openai_sdk"),
        ("anthropic", "toolwire"),
        ("anthropic", "python_accumulator"),
        ("openai_responses", "toolwire"),
        ("gemini", "toolwire"),
        ("ollama", "toolwire"),
    ],
)
def test_accumulate(benchmark: Any, provider: str, impl: str) -> None:
    streams = STREAMS[provider]
    items = sum(len(s) for s in streams)
    benchmark.group = f"stream_codecs accumulate {provider} ({items} items)"
    reader = provider.removesuffix(" in cache")
    run = {
        "toolwire": lambda: toolwire_run(reader),
        "python_accumulator": lambda: python_run(reader),
        "openai_sdk": lambda: openai_sdk_run,
        "python_floor": lambda: floor_run,
    }[impl]()
    out = benchmark(run, streams)
    if impl != "python_floor":
        expected = HOT_EXPECTED if provider.endswith("in cache") else EXPECTED
        assert out == expected


@pytest.mark.parametrize("provider", PROVIDERS)
def test_encode(benchmark: Any, provider: str) -> None:
    count = sum(len(events) for events in EVENTS)
    benchmark.group = f"stream_codecs encode ({count} events)"

    def run() -> list[list[dict[str, Any]]]:
        return [encoded(events, provider) for events in EVENTS]

    out = benchmark(run)
    back = []
    for chunks in out:
        acc = ACCUMULATORS[provider]()
        for chunk in chunks:
            acc.feed(chunk)
        acc.finish()
        back.append(as_pairs(acc.calls))
    assert back == EXPECTED


def big_call_chunks(size: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """OpenAI chunks of one call whose arguments are about `size` characters, 4 at a time."""
    arguments = {"path": "src/big.py", "content": code_like(size)}
    text = json.dumps(arguments, ensure_ascii=False)
    first = {"index": 0, "id": "call_1", "function": {"name": "write_file", "arguments": ""}}
    chunks = [{"choices": [{"index": 0, "delta": {"tool_calls": [first]}}]}]
    for i in range(0, len(text), 4):
        fragment = {"index": 0, "function": {"arguments": text[i : i + 4]}}
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [fragment]}}]})
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return chunks, arguments


@pytest.mark.parametrize("size", [64 * 1024, 128 * 1024], ids=["64KB", "128KB"])
@pytest.mark.parametrize("impl", ["toolwire_translate", "toolwire_accumulate"])
def test_translate_big_call(benchmark: Any, impl: str, size: int) -> None:
    benchmark.group = (
        f"stream_codecs translate openai->anthropic, {size // 1024} KB in 4-char chunks"
    )
    chunks, arguments = big_call_chunks(size)
    if impl == "toolwire_accumulate":
        assert benchmark(toolwire_run("openai"), [chunks]) == [[("write_file", arguments)]]
        return

    def run() -> list[dict[str, Any]]:
        return list(toolwire.translate_stream(chunks, source="openai", target="anthropic"))

    acc = toolwire.AnthropicStreamAccumulator()
    for event in benchmark(run):
        acc.feed(event)
    acc.finish()
    assert as_pairs(acc.calls) == [("write_file", arguments)]
