"""`extract`, `parse_text` and the stream read every text the same way.

For a text and a format `f` (an open-weight format, or the `text_tagged` and `raw_json`
protocols), the calls are compared across `extract(text, formats=[f])`,
`parse_text(text, format=f)` and a `StreamParser(formats=[f])` fed the text in random chunks:
names, arguments, valid or invalid, and the names of invalid calls. Ids are not compared (a
stream fixes a call's id when it starts; a generated id is random anyway), nor content. The
property holds in repair mode too (`repair=True`, which every path takes).

Texts: the corpus renderings of every format, the provider streams' texts, the real model
outputs of other projects' parser tests (`tests/data/conformance`), the corpus rendered in the
formats it lacks (`tests/renderers.py`), the three inputs the registry issue found the paths
disagreeing on, and mutations of all of those (cut short, a marker of another format spliced
in, a call repeated, a byte dropped).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import toolwire
from hypothesis import given, settings
from hypothesis import strategies as st
from renderers import RENDERERS
from support import DATA, cases, fed_in_chunks, load_jsonl, streamed_calls

PROTOCOLS = ("text_tagged", "raw_json", *toolwire.FORMATS)

# The inputs issue 21 quotes, on which the three paths used to disagree.
DISAGREED = [
    '[TOOL_CALLS]add{"a": 3.5, "b": 4}[TOOL_CALLS]multiply{"a": 2, "b": 3}',
    '{"name": "get_weather", "parameters": {{"name": "get_weather", "parameters": {}}',
    '[{"name": "f", "arguments": {"a": 1}}]]',
    # A stray closing think tag after a whole call: the stream has read the call by then.
    '{"name": "f", "arguments": {"a": 1}}\n</think>',
]

# A broken call before a good one in one block: the stream announced the good call first, and
# the broken one still takes its place (index 0) in the numbering.
_K3_CALL = '<|open|>call tool="python"<|sep|><|open|>argument key="c" type="string"<|sep|>1'
BROKEN_FIRST = [
    '<|open|>tools<|sep|><|open|>call tool=""<|sep|><|close|>call<|sep|>'
    f"{_K3_CALL}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
    '<minimax:tool_call><invoke name=""></invoke><invoke>x</invoke><invoke name="f">'
    '<parameter name="a">1</parameter></invoke></minimax:tool_call>',
    '[TOOL_CALLS][{"arguments": {}}, 3, {"name": "g", "arguments": {}}]',
]


def conformance() -> list[dict[str, Any]]:
    with (DATA / "conformance" / "peer_cases.jsonl").open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def corpus_texts() -> list[str]:
    texts = []
    for k, case in enumerate(cases()):
        for text in case["wire"].values():
            # Every 7th case: the Rust tests cover all of them; these keep the suite fast.
            if isinstance(text, str) and k % 7 == 0:
                texts.append(text)
    return texts


def rendered_texts() -> list[str]:
    """Every 21st corpus case rendered in each format the shared corpus lacks."""
    texts = []
    for render in RENDERERS.values():
        for k, case in enumerate(cases()):
            text = render(case, k) if k % 21 == 0 else None
            if text is not None:
                texts.append(text)
    return texts


def stream_texts() -> list[str]:
    return [s["text"] for s in load_jsonl("streams.jsonl") if isinstance(s.get("text"), str)]


TEXTS = [
    *DISAGREED,
    *BROKEN_FIRST,
    *(c["text"] for c in conformance()),
    *corpus_texts(),
    *rendered_texts(),
    *stream_texts(),
]
MARKERS = [
    "<tool_call>",
    "</tool_call>",
    "<function=f>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "<|python_tag|>",
    "<|python_start|>",
    "<\uff5ctool\u2581calls\u2581begin\uff5c>",
    "<\uff5ctool\u2581call\u2581end\uff5c>",
    "<|tool_call_begin|>",
    "<|start|>",
    "<|channel|>",
    "<|message|>",
    "<|call|>",
    "<|tool_call_start|>",
    "<|tool_call_end|>",
    "<tool_calls>",
    "</tool_calls>",
    "<tool_calls:6124c78e>",
    "<|open|>tools<|sep|>",
    "<|message_model|>",
    '<function name="f"><param name="a">',
    "<|content_invoke_tool_json|>",
    "<|end_message|>",
    "<|close|>call<|sep|>",
    "</tool_call:6124c78e>",
    "<TOOLCALL>",
    "<toolcall>",
    "<|tool_call|>",
    "<|tools_prefix|>",
    "<|START_ACTION|>",
    "<|END_ACTION|>",
    "<function_calls>",
    "</function_calls>",
    "functools[",
    "Action: ```json",
    "<think>",
    "</think>",
    "<seed:tool_call>",
    "</seed:tool_call>",
    "<|message_sep|>",
    "function call<|role_sep|>",
    "<|function_call|>",
    "</s>",
    "<\uff5cGCML\uff5ctool_calls>",
    "<longcat_tool_call>",
    "<dots_function_call>",
    "<atem:function_calls>",
    "<\uff5ctool_calls_begin\uff5c>",
    "<\uff5ctool_call_end\uff5c>",
    "~~~tool_call\n",
    "\n~~~\n",
    "```tool_call\r",
    "\r",
    " to=functions.g<|channel|>commentary ",
    "<|tool_call_section_begin|>",
    "<response>",
    "</response>",
    "<answer>",
    "</answer>",
    "</function><function=g>",
    "```json\n",
    "\n```\n",
    '{"name": "g", "arguments": {"x": [1, "y"]}}',
    "[g(x=1)]",
    "`",
    "\n",
    '"',
    "}",
]


def shape(call: Any) -> tuple[Any, ...]:
    if isinstance(call, toolwire.ToolCall):
        return ("call", call.name, json.dumps(call.arguments, sort_keys=True))
    return ("invalid", call.name, call.protocol, call.index)


def streamed(text: str, fmt: str, rng: random.Random, repair: bool = False) -> list[Any]:
    parser = toolwire.StreamParser(formats=[fmt], repair=repair)
    events = fed_in_chunks(parser, text, rng, (1, 2, 3, 7, 64, len(text)))
    # Every call the stream began ends once, and the calls are numbered 0, 1, 2… in all.
    ended = [e.index for e in events if e.kind in ("tool_call_end", "invalid_tool_call")]
    started = {e.index for e in events if e.kind == "tool_call_start"}
    assert sorted(ended) == list(range(len(ended))), (fmt, text, events)
    assert started <= set(ended), (fmt, text, events)
    return streamed_calls(events)


def is_body(text: str) -> bool:
    """Whether `extract` reads `text` as a provider body written as JSON (not model text)."""
    return bool(toolwire.extract(text, formats=[], on_error="keep"))


def assert_agree(text: str, fmt: str, rng: random.Random, repair: bool = False) -> None:
    calls = toolwire.parse_text(text, format=fmt, repair=repair).calls
    # An invalid call's index is its position among the calls, as the text orders them.
    for position, call in enumerate(calls):
        if isinstance(call, toolwire.InvalidToolCall):
            assert call.index == position, (fmt, text, calls)
    parsed = [shape(c) for c in calls]
    if not is_body(text):
        extracted = toolwire.extract(text, formats=[fmt], on_error="keep", repair=repair)
        assert [shape(c) for c in extracted] == parsed, (fmt, text)
    assert [shape(c) for c in streamed(text, fmt, rng, repair)] == parsed, (fmt, text)


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize("fmt", PROTOCOLS)
def test_the_three_paths_agree_on_every_text(fmt: str, repair: bool) -> None:
    rng = random.Random(fmt)
    for text in TEXTS:
        assert_agree(text, fmt, rng, repair)


def test_the_quoted_disagreements_now_agree() -> None:
    rng = random.Random(0)
    for text in DISAGREED:
        for fmt in PROTOCOLS:
            assert_agree(text, fmt, rng)


@settings(max_examples=300, deadline=None)
@given(
    base=st.sampled_from(TEXTS),
    fmt=st.sampled_from(PROTOCOLS),
    edits=st.lists(
        st.tuples(
            st.sampled_from(("cut", "insert", "repeat", "drop")),
            st.floats(0, 1),
            st.sampled_from(MARKERS),
        ),
        max_size=3,
    ),
    seed=st.integers(0, 2**32),
    repair=st.booleans(),
)
def test_the_three_paths_agree_on_mutated_texts(
    base: str, fmt: str, edits: list[tuple[str, float, str]], seed: int, repair: bool
) -> None:
    text = base
    for op, where, marker in edits:
        at = int(where * len(text))
        if op == "cut":
            text = text[:at]
        elif op == "insert":
            text = text[:at] + marker + text[at:]
        elif op == "repeat":
            text = text[:at] + text + text[at:]
        else:
            text = text[:at] + text[at + 1 :]
    assert_agree(text, fmt, random.Random(seed), repair)
