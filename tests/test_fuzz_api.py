"""A fuzz target over the public Python API (hypothesis), where the binding's bugs live that the
Rust fuzz targets cannot see (building Python objects: long integers, lone surrogates, deep
values). Invariants, under ``on_error="keep"``:

- nothing raises (a wrong argument type raises ``TypeError``, and only that);
- every call the input holds comes back, as a ``ToolCall`` or an ``InvalidToolCall``, in
  place, through ``extract`` (text and bytes), ``parse_text``, ``StreamParser`` in random
  chunks, ``extract_batch``, ``decode_tool_calls`` and the OpenAI stream accumulator.

The suite runs a small budget; ``TOOLWIRE_HYPOTHESIS=slow`` runs 2000 examples per test.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

import pytest
import toolwire
from hypothesis import given
from hypothesis import strategies as st
from support import every_path
from toolwire import InvalidToolCall, ToolCall

LIMIT = sys.get_int_max_str_digits()

scalars = st.one_of(
    st.sampled_from(["null", "true", "false", '"\\ud800"', '"a\\udfffb"', "-0", "1e400"]),
    st.integers(-(10**20), 10**20).map(str),
    st.integers(LIMIT - 2, LIMIT + 3).map(lambda n: "9" * n),  # at Python's int limit
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=12).map(json.dumps),
)


def _array(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


def _object(members: dict[str, str]) -> str:
    return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in members.items()) + "}"


json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(_array),
        st.dictionaries(st.text(max_size=6), inner, max_size=4).map(_object),
    ),
    max_leaves=8,
)
arguments = st.one_of(
    st.dictionaries(st.text(max_size=6), json_values, max_size=4).map(_object),
    st.integers(250, 270).map(lambda depth: "[" * depth + "]" * depth),  # at the depth limit
)
names = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="\n"),
    min_size=1,
    max_size=10,
)


@st.composite
def call_texts(draw: st.DrawFn) -> str:
    """The JSON text of one call: well formed, or broken by a cut or a stray character."""
    text = f'{{"name": {json.dumps(draw(names))}, "arguments": {draw(arguments)}}}'
    damage = draw(st.sampled_from(["none", "none", "cut", "insert", "repeat"]))
    if damage == "repeat":
        # A second name or arguments key: a call that is invalid on every path.
        key = draw(st.sampled_from(["name", "arguments", "parameters", "input"]))
        return '{"' + key + '": ' + ('"x"' if key == "name" else "{}") + ", " + text[1:]
    if damage == "cut":
        return text[: draw(st.integers(1, len(text) - 1))]
    if damage == "insert":
        at = draw(st.integers(0, len(text)))
        return text[:at] + draw(st.sampled_from(list(",:{}[]\"'x\\"))) + text[at:]
    return text


prose = st.text(st.characters(codec="utf-8", exclude_characters='~`<[{|"'), max_size=30)


#: JSON nested deeper than this is an error (Python's own parser goes deeper).
toolwire_max_depth = 256


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def expected(call_text: str) -> tuple[str, Any] | None:
    """The call a block holds, read by Python's own parser and the rules of arguments (one of
    `arguments`, `parameters`, `input`, `args`; missing or null is `{}`); None for a broken
    one."""
    try:
        call = json.loads(call_text, parse_int=int_or_too_long, object_pairs_hook=CallDict)
    except (ValueError, RecursionError):
        return None
    if isinstance(call, CallDict) and call.conflict:
        return None
    if depth(call) > toolwire_max_depth:
        return None
    if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
        return None
    # An arguments key is read with the whitespace around it trimmed; with none, a member that
    # is not a call's own may hold the arguments, so the call is invalid.
    key = next((k for k in call if k.strip(WHITE_SPACE) in ARGUMENT_KEYS), None)
    if key is None and not set(call) <= CALL_KEYS:
        return None
    arguments = {} if key is None or call[key] is None else call[key]
    # Names are text: a lone surrogate in one is read as U+FFFD.
    name = re.sub("[\ud800-\udfff]", "\ufffd", call["name"])
    if not isinstance(arguments, dict) or holds_too_long(arguments) or holds_infinity(call):
        return None
    if holds_too_long(call):
        # Beside the arguments, where nothing reads it: extract skips it; the stream engine
        # builds the whole call object and fails the call (either way, nothing is lost).
        return EITHER
    return name, arguments


ARGUMENT_KEYS = ("arguments", "parameters", "input", "args")
#: The whitespace trimmed around an arguments key: Unicode's White_Space, as Rust's `str::trim`
#: reads it (Python's `str.strip` also strips the separators U+001C to U+001F).
WHITE_SPACE = "".join(
    c for c in map(chr, range(0x3001)) if c.isspace() and not "\x1c" <= c <= "\x1f"
)
#: The keys a call object holds beside its arguments.
CALL_KEYS = {"name", "id", "function", "type", "index", "call_id", "tool_call_id", "status"}


class CallDict(dict[str, Any]):
    """A decoded object that remembers whether it repeated `name` or gave two arguments keys
    (an invalid call, whichever value a JSON decoder keeps)."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        keys = [k for k, _ in pairs]
        arguments = [k for k in keys if k.strip(WHITE_SPACE) in ARGUMENT_KEYS]
        self.conflict = keys.count("name") > 1 or len(arguments) > 1


#: An integer Python cannot make: only its call's arguments fail for it (a member that is
#: never built, beside the arguments, fails nothing).
TOO_LONG = object()

#: A call that may come back as a call or as an invalid call.
EITHER = ("", None)


def int_or_too_long(digits: str) -> Any:
    return TOO_LONG if len(digits.lstrip("-")) > LIMIT else int(digits)


def holds_too_long(value: Any) -> bool:
    if value is TOO_LONG:
        return True
    if isinstance(value, dict):
        return any(map(holds_too_long, value.values()))
    return isinstance(value, list) and any(map(holds_too_long, value))


def holds_infinity(value: Any) -> bool:
    """Whether a number beyond any float (`1e400`, infinity to `json.loads`) is in `value`:
    tool arguments refuse it, JSON cannot write it."""
    if isinstance(value, float):
        return math.isinf(value)
    if isinstance(value, dict):
        return any(map(holds_infinity, value.values()))
    return isinstance(value, list) and any(map(holds_infinity, value))


def check_calls(calls: list[Any], blocks: list[str]) -> None:
    assert len(calls) == len(blocks), (calls, blocks)
    for call, block in zip(calls, blocks, strict=True):
        assert isinstance(call, (ToolCall, InvalidToolCall))
        want = expected(block)
        if want is None:
            assert isinstance(call, InvalidToolCall), (call, block)
        elif want is not EITHER:
            assert isinstance(call, ToolCall), (call, block)
            assert (call.name, call.arguments) == want


def without_ids(calls: list[Any]) -> list[Any]:
    return [(c.name, c.arguments) if isinstance(c, ToolCall) else c for c in calls]


#: Ways a model writes a block's fence lines, all read (issue 20): spaced, after invisible
#: indentation, and a closing line that carries prose; in tildes or backticks (`FENCE` is
#: replaced by the block's fence), with any line ending.
openers = st.sampled_from(
    [
        "~~~tool_call",
        "~~~ tool_call",
        "\u200b~~~tool_call",
        "\u00a0 ~~~tool_call",
        "\ufeff~~~tool_call",
    ]
)
closers = st.sampled_from(["~~~", "~~~", "\t~~~ ", "~~~ and then some prose"])
fences = st.sampled_from(["~~~", "~~~", "```"])
line_endings = st.sampled_from(["\n", "\n", "\r\n", "\r"])


@given(
    st.lists(st.tuples(prose, openers, call_texts(), closers, fences), min_size=1, max_size=4),
    prose,
    line_endings,
    st.data(),
)
def test_every_call_of_a_text_comes_back_through_every_text_path(
    parts: list[tuple[str, str, str, str, str]], tail: str, nl: str, data: st.DataObject
) -> None:
    blocks = [block for _, _, block, _, _ in parts]
    lines = [
        nl.join([before, opener.replace("~~~", fence), block, closer.replace("~~~", fence), ""])
        for before, opener, block, closer, fence in parts
    ]
    text = "".join(lines) + tail
    calls = toolwire.extract(text, on_error="keep")
    check_calls(calls, blocks)
    assert without_ids(toolwire.extract(text.encode(), on_error="keep")) == without_ids(calls)
    check_calls(toolwire.parse_text(text).calls, blocks)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    parser = toolwire.StreamParser()
    events = [event for chunk in chunks for event in parser.feed(chunk)] + parser.finish()
    ended = [
        e.call if e.kind == "tool_call_end" else e
        for e in events
        if e.kind in ("tool_call_end", "invalid_tool_call")
    ]
    check_calls(ended, blocks)
    [batch] = toolwire.extract_batch([json.dumps({"text": text})])
    assert len(batch) == len(calls)
    for got, want in zip(batch, calls, strict=True):
        if isinstance(want, ToolCall) or "9" * LIMIT not in text:
            assert without_ids([got]) == without_ids([want])
        else:
            # A call broken for two reasons, one an integer Python cannot hold: extract (which
            # builds Python values as it parses) names that one; the batch, which reads calls
            # before any Python value is made, may name the other.
            assert isinstance(got, InvalidToolCall) and got.index == want.index


@given(st.lists(call_texts(), min_size=1, max_size=4), st.data())
def test_every_structured_call_comes_back_through_bodies_codecs_and_accumulators(
    blocks: list[str], data: st.DataObject
) -> None:
    """OpenAI calls whose arguments string is each block's arguments (or the whole block)."""
    texts = [
        data.draw(st.sampled_from([json.dumps(expected(b)[1]) if expected(b) else b, b]))
        for b in blocks
    ]
    tool_calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": "f", "arguments": text}}
        for i, text in enumerate(texts)
    ]
    body = {"choices": [{"message": {"role": "assistant", "tool_calls": tool_calls}}]}
    for calls in (
        toolwire.decode_tool_calls(body, on_error="keep"),
        toolwire.extract(body, on_error="keep"),
        toolwire.extract(json.dumps(body), on_error="keep"),
        toolwire.extract_batch([json.dumps(body)])[0],
    ):
        assert len(calls) == len(texts)
        assert all(isinstance(c, (ToolCall, InvalidToolCall)) for c in calls)
    accumulator = toolwire.OpenAIStreamAccumulator()
    for i, text in enumerate(texts):
        cut = data.draw(st.integers(0, len(text)))
        for piece in (text[:cut], text[cut:]):
            delta = {"index": i, "id": f"c{i}", "function": {"name": "f", "arguments": piece}}
            accumulator.feed({"choices": [{"index": 0, "delta": {"tool_calls": [delta]}}]})
    accumulator.feed("data: [DONE]")
    assert len(accumulator.calls) + len(accumulator.invalid_calls) == len(texts)


wrong_types = st.one_of(st.integers(), st.floats(), st.booleans(), st.none(), st.just(object()))


@given(wrong_types)
def test_a_wrong_argument_type_is_a_type_error(value: Any) -> None:
    for function in (
        lambda: toolwire.extract(value, on_error="keep"),
        lambda: toolwire.parse_text(value),
        lambda: toolwire.StreamParser().feed(value),
        lambda: toolwire.loads(value),
        lambda: toolwire.extract_batch(value),
    ):
        with pytest.raises(TypeError):
            function()


def test_a_block_with_an_open_quote_ends_at_its_fence() -> None:
    """An opening line is never inside a call's string: a quote left open ends its block at
    the block's own fence line instead of running on into the next block."""
    text = '~~~tool_call\n{"\n~~~\n~~~tool_call\n{"name": "\\"", "arguments": {}}\n~~~\n'
    for calls in every_path(text):
        assert [type(c).__name__ for c in calls] == ["InvalidToolCall", "ToolCall"]
        assert calls[1].name == '"'
