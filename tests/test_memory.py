"""No leaks: 10⁵ parses through every binding path, error paths included, leave the process
RSS within 10 MB, and inputs keep their reference counts (a leaked Python reference in the
binding shows up in either). Run the suite under the debug allocator too:

    PYTHONMALLOC=debug python -X dev -m pytest tests -p no:cacheprovider -q
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from typing import Any

import pytest
import toolwire
from support import load_jsonl

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads /proc RSS"),
]

N = 100_000
TAGGED = '~~~tool_call\n{"name": "f", "arguments": {"a": [1, 2.5, "x"], "b": {"c": null}}}\n~~~\n'
HERMES = (
    '<tool_call>{"name": "g", "arguments": {"q": "caf\u00e9", "n": 12345678901234567890}}'
    "</tool_call>"
)
BODY = {
    "choices": [
        {
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"a": 1}'},
                    },
                ],
            }
        }
    ],
}
BAD_JSON = '~~~tool_call\n{"name": "f", "arguments": {"a": 1,}}\n~~~\n'


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        resident_pages = int(statm.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def raises(run: Callable[[], Any]) -> Callable[[], None]:
    def call() -> None:
        try:
            run()
        except toolwire.ToolwireError:
            return
        raise AssertionError("expected a ToolwireError")

    return call


WORKLOADS: dict[str, Callable[[], Any]] = {
    "extract text_tagged": lambda: toolwire.extract(TAGGED),
    "extract hermes": lambda: toolwire.extract(HERMES),
    "extract bytes": lambda: toolwire.extract(TAGGED.encode()),
    "extract body": lambda: toolwire.extract(BODY),
    "extract raw json": lambda: toolwire.extract('```json\n{"name": "f", "arguments": {}}\n```'),
    "extract keep": lambda: toolwire.extract(BAD_JSON, on_error="keep"),
    "extract raise": raises(lambda: toolwire.extract(BAD_JSON)),
    "extract bad utf-8": raises(lambda: toolwire.extract(b"ab\xff")),
    "extract bad body": raises(lambda: toolwire.extract({"choices": [{"message": 3}]})),
    "parse_native raise": raises(lambda: toolwire.parse_native([{"name": "f", "arguments": 3}])),
    "loads": lambda: toolwire.loads('{"a": [1, 2, {"b": "\\ud800"}], "c": 1e5}'),
    "loads raise": raises(lambda: toolwire.loads('{"a": [1, 2')),
    "decode_tool_calls": lambda: toolwire.decode_tool_calls(BODY, "openai"),
}
# A hundred items a batch, a thousand batches: 10⁵ items.
BATCH = [b'{"text": "x"}', TAGGED.encode(), b"{", b'{"text": "\xff"}'] * 25
RUNS = {"extract_batch": N // len(BATCH)}
WORKLOADS["extract_batch"] = lambda: toolwire.extract_batch(BATCH)


def stream_feeds() -> None:
    """One message fed in chunks (a call, an invalid call, text), finished and reset."""
    for chunk in STREAM_CHUNKS:
        STREAM.feed(chunk)
    STREAM.finish()
    STREAM.reset()


def stream_bad_bytes() -> None:
    try:
        STREAM.feed(b"ab\xff")
    except toolwire.ToolwireError:
        STREAM.reset()
        return
    raise AssertionError("expected a ToolwireError")


STREAM = toolwire.StreamParser()
STREAM_TEXT = TAGGED + BAD_JSON + HERMES + "<think>hm</think> done"
STREAM_CHUNKS = [STREAM_TEXT[i : i + 16] for i in range(0, len(STREAM_TEXT), 16)]
WORKLOADS["parse_text"] = lambda: toolwire.parse_text(STREAM_TEXT)
WORKLOADS["parse_text raise"] = raises(lambda: toolwire.parse_text(BAD_JSON, on_error="raise"))
# Each run feeds len(STREAM_CHUNKS) chunks: 10⁵ feeds in all.
WORKLOADS["stream feeds"] = stream_feeds
RUNS["stream feeds"] = N // len(STREAM_CHUNKS)
WORKLOADS["stream bad bytes"] = stream_bad_bytes


RECORDED = next(s for s in load_jsonl("streams.jsonl") if "openai_chunks" in s)
OPENAI_CHUNKS = RECORDED["openai_chunks"]


def accumulate() -> None:
    """One recorded OpenAI stream through an accumulator holding calls back ("complete")."""
    acc = toolwire.OpenAIStreamAccumulator(release="complete")
    for chunk in OPENAI_CHUNKS:
        acc.feed(chunk)
    acc.finish()


def translate() -> None:
    """The same stream translated to Anthropic events and framed for the wire."""
    out = toolwire.translate_stream(OPENAI_CHUNKS, source="openai", target="anthropic")
    for _ in toolwire.frame_stream(out, "anthropic"):
        pass


# Each run feeds len(OPENAI_CHUNKS) chunks: 10⁵ feeds in all.
WORKLOADS["accumulate openai"] = accumulate
RUNS["accumulate openai"] = N // len(OPENAI_CHUNKS)
WORKLOADS["translate openai to anthropic"] = translate
RUNS["translate openai to anthropic"] = N // len(OPENAI_CHUNKS)


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_no_growth_over_a_hundred_thousand_runs(name: str) -> None:
    run = WORKLOADS[name]
    runs = RUNS.get(name, N)
    # Warm up: allocator pools, interned strings, the id buffer, the batch thread pool.
    for _ in range(runs // 20):
        run()
    gc.collect()
    before = rss_mb()
    for _ in range(runs):
        run()
    gc.collect()
    growth = rss_mb() - before
    assert growth < 10, f"{name}: RSS grew by {growth:.1f} MB over {runs} runs"


def test_inputs_keep_their_reference_counts() -> None:
    text = "".join([TAGGED, " "])  # a fresh object, not an interned constant
    body = {"choices": [{"message": {"content": TAGGED}}]}
    arguments = {"a": 1}
    native = [{"id": "x", "name": "f", "arguments": arguments}]
    objects = [text, body, body["choices"], arguments, native]
    counts = [sys.getrefcount(o) for o in objects]
    for _ in range(1_000):
        toolwire.extract(text)
        toolwire.extract(body)
        toolwire.extract(native)
        toolwire.parse_native(native)
        toolwire.extract(text, on_error="keep")
    gc.collect()
    assert [sys.getrefcount(o) for o in objects] == counts
