"""Streaming (docs/streaming.md): the StreamParser invariants as properties over the corpus streams
and generated texts, parse_text, the error policy, thread safety, and the OpenAI / Anthropic
accumulators over the corpus SSE sequences and the non-conforming server cases."""

from __future__ import annotations

import doctest
import itertools
import json
import pickle
import re
import threading
from collections.abc import Iterable, Sequence
from typing import Any

import pytest
import toolwire
from hypothesis import given
from hypothesis import strategies as st
from support import load_jsonl
from toolwire import (
    AnthropicStreamAccumulator,
    InvalidToolCall,
    OpenAIStreamAccumulator,
    ReasoningDelta,
    StreamParser,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)

Event = Any
STREAMS = load_jsonl("streams.jsonl")
GENERATED_ID = re.compile(r"^call_[A-Za-z0-9_-]{12}$")
# The longest text a parser may hold back: `~~~tool_call`.
LONGEST_MARKER = len("~~~tool_call")


def engine_supports(protocol: str) -> bool:
    try:
        StreamParser(formats=[protocol])
    except ValueError:
        return False
    return True


# Streams of the formats the engine runs, and prose streams (no calls in any format).
SUPPORTED = [
    s for s in STREAMS if engine_supports(s["protocol"]) or (s["source"] is None and not s["calls"])
]
SSE = [s for s in STREAMS if "openai_chunks" in s]


def pairs(calls: Iterable[Any]) -> list[tuple[str, Any]]:
    return [
        (c["name"], c["arguments"]) if isinstance(c, dict) else (c.name, c.arguments) for c in calls
    ]


# ----- running a stream ---------------------------------------------------------------------


def pieces(data: str | bytes, cuts: Iterable[int]) -> list[Any]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


def run(chunks: Iterable[str | bytes], **options: Any) -> list[Event]:
    parser = StreamParser(**options)
    events = [event for chunk in chunks for event in parser.feed(chunk)]
    return events + parser.finish()


def canonical(events: Sequence[Event], text: str) -> list[tuple[Any, ...]]:
    """Events as tuples, adjacent deltas of the same kind (and call) merged; generated ids
    (random) replaced by a placeholder, model-written ids kept."""

    def call_id(value: str) -> str:
        return "<generated>" if GENERATED_ID.match(value) and value not in text else value

    merged: list[tuple[Any, ...]] = []
    for event in events:
        match event:
            case TextDelta(t) | ReasoningDelta(t):
                item: tuple[Any, ...] = (event.kind, t)
            case ToolCallStart(index, id_, name):
                item = (event.kind, index, call_id(id_), name)
            case ToolCallDelta(index, arguments):
                item = (event.kind, index, arguments)
            case ToolCallEnd(index, call):
                item = (event.kind, index, call_id(call.id), call.name, call.arguments)
            case ToolCall(id_, name, arguments):
                item = ("call", call_id(id_), name, arguments)
            case InvalidToolCall():
                item = (event.kind, *event.to_dict().values())
            case _:
                raise AssertionError(f"not an event: {event!r}")
        last = merged[-1] if merged else None
        if last and last[0] == item[0] and item[0] in ("text_delta", "reasoning_delta"):
            merged[-1] = (item[0], last[1] + item[1])
        elif last and item[0] == "tool_call_delta" == last[0] and last[1] == item[1]:
            merged[-1] = (item[0], item[1], last[2] + item[2])
        else:
            merged.append(item)
    return merged


def collected(events: Sequence[Event]) -> tuple[str, str | None, list[Any]]:
    content = "".join(e.text for e in events if isinstance(e, TextDelta))
    thinking = [e.text for e in events if isinstance(e, ReasoningDelta)]
    calls = [e.call if isinstance(e, ToolCallEnd) else e for e in events]
    calls = [c for c in calls if isinstance(c, ToolCall | InvalidToolCall)]
    return content, "".join(thinking) if thinking else None, calls


def check_invariants(text: str, cuts: list[int], byte_cuts: list[int]) -> None:
    whole = run([text])
    expected = canonical(whole, text)
    # 1. Chunk invariance, for str chunks and for bytes cut anywhere (inside characters too).
    assert canonical(run(pieces(text, cuts)), text) == expected
    assert canonical(run(pieces(text.encode(), byte_cuts)), text) == expected
    # 2. Stream ≡ batch.
    parsed = toolwire.parse_text(text)
    content, reasoning, calls = collected(whole)
    # (An empty think span is reasoning "" in batch, and no event in a stream.)
    assert (parsed.content, parsed.reasoning or None) == (content, reasoning)
    assert canonical(parsed.calls, text) == canonical(calls, text)
    # 3. Raw bytes: a call's deltas are the model's own arguments text, decoding to the call's.
    for end in (e for e in whole if isinstance(e, ToolCallEnd)):
        raw = "".join(
            e.arguments for e in whole if isinstance(e, ToolCallDelta) and e.index == end.index
        )
        assert raw in text or raw == json.dumps(
            end.call.arguments, separators=(",", ":"), ensure_ascii=False
        )
        decoded = json.loads(raw) if raw.strip() else None
        assert toolwire.decode_arguments(decoded) == end.call.arguments
    # Every call event comes after its start.
    started: set[int] = set()
    for event in whole:
        if isinstance(event, ToolCallStart):
            started.add(event.index)
        elif isinstance(event, ToolCallDelta | ToolCallEnd):
            assert event.index in started


# ----- the corpus streams ------------------------------------------------------------------


def test_the_corpus_has_streams_of_the_supported_formats() -> None:
    protocols = {s["protocol"] for s in SUPPORTED if s["calls"]}
    assert {"text_tagged", "raw_json"} <= protocols
    assert len(SUPPORTED) >= 60


@pytest.mark.parametrize("stream", SUPPORTED, ids=lambda s: s["id"])
def test_every_supported_stream_gives_its_calls(stream: dict[str, Any]) -> None:
    text = stream["text"]
    events = run([text])
    assert pairs(collected(events)[2]) == pairs(stream["calls"])
    assert pairs(toolwire.parse_text(text).calls) == pairs(stream["calls"])
    # One character at a time gives the same events.
    assert canonical(run(text), text) == canonical(events, text)


@given(st.sampled_from(SUPPORTED), st.lists(st.integers(0, 10**6), max_size=30), st.data())
def test_invariants_over_the_corpus_streams(
    stream: dict[str, Any], cuts: list[int], data: Any
) -> None:
    size = len(stream["text"].encode())
    byte_cuts = data.draw(st.lists(st.integers(0, size), max_size=30))
    check_invariants(stream["text"], cuts, byte_cuts)


# ----- generated texts ---------------------------------------------------------------------

json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=12)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
names = st.from_regex(r"[a-z_][a-z0-9_.]{0,15}", fullmatch=True)
prose = st.lists(
    st.sampled_from(
        [*'ab ~`<>{}[]\n\r\t"é😀\\', "~~~", "<think>", "</think>", "```", "~~~tool_call"]
    ),
    max_size=30,
).map("".join)


@st.composite
def call_block(draw: Any, unterminated: bool = True) -> tuple[str, dict[str, Any] | None]:
    """A `~~~tool_call` block or a ```json fence; the call it holds (None if broken). An
    unterminated block runs to the next `~~~tool_call` line (or the end)."""
    name = draw(names)
    arguments = draw(st.dictionaries(st.text(max_size=8), json_values, max_size=4))
    body = json.dumps(
        {"name": name, "arguments": arguments},
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, 2])),
    )
    kinds = ["tagged", "tagged", "json_fence", "broken"] + ["unterminated"] * unterminated
    kind = draw(st.sampled_from(kinds))
    call = {"name": name, "arguments": arguments}
    if kind == "tagged":
        return f"\n~~~tool_call\n{body}\n~~~\n", call
    if kind == "json_fence":
        return f"\n```json\n{body}\n```\n", call
    if kind == "broken":
        return f"\n~~~tool_call\n{body[:-1]}\n~~~\n", None
    return f"\n~~~tool_call\n{body}", None


@st.composite
def messages(draw: Any) -> str:
    parts = draw(st.lists(prose | call_block().map(lambda b: b[0]), max_size=5))
    if draw(st.booleans()):
        parts.insert(0, "<think>" + draw(prose) + "</think>")
    return "".join(parts)


@given(
    messages(),
    st.lists(st.integers(0, 10**4), max_size=20),
    st.lists(st.integers(0, 10**4), max_size=20),
)
def test_invariants_over_generated_texts(text: str, cuts: list[int], byte_cuts: list[int]) -> None:
    check_invariants(text, cuts, byte_cuts)


@given(st.lists(call_block(unterminated=False), max_size=4), call_block(), prose)
def test_generated_calls_are_found(
    blocks: list[tuple[str, dict[str, Any] | None]],
    last: tuple[str, dict[str, Any] | None],
    before: str,
) -> None:
    blocks = [*blocks, last]
    # (Prose without fences, so that it cannot open a block itself.)
    text = (
        "Let me see." + before.replace("`", "'").replace("~", "-") + "".join(b for b, _ in blocks)
    )
    events = run(text)  # one character at a time
    _, _, calls = collected(events)
    assert len(calls) == len(blocks)
    for (_, expected), got in zip(blocks, calls, strict=True):
        if expected is None:
            assert isinstance(got, InvalidToolCall)
        else:
            assert isinstance(got, ToolCall) and (got.name, got.arguments) == (
                expected["name"],
                expected["arguments"],
            )


# ----- prompt release ------------------------------------------------------------------------

marker_like = st.lists(
    st.sampled_from(
        [
            "a",
            " ",
            "\t",
            "\n",
            "~",
            "~~~",
            "~~~tool_ca",
            "~~~tool_callx",
            "ke",
            "<",
            "<thi",
            "</thi",
            "``",
            "é",
            "😀",
            "{",
            "]",
        ]
    ),
    max_size=40,
)


@given(marker_like)
def test_held_back_text_is_never_longer_than_the_longest_marker(parts: list[str]) -> None:
    text = "Hello " + "".join(parts)
    parser = StreamParser()
    released = ""
    for n, char in enumerate(text, 1):
        released += "".join(e.text for e in parser.feed(char))
        assert text.startswith(released)
        held = text[len(released) : n]
        # The opening line of a code block (``` or ~~~xml) waits for the block's first
        # non-blank text (docs/streaming.md); what is held after it is at most a marker.
        if held.lstrip(" \t").startswith(("```", "~~~")):
            _line, newline, after = held.partition("\n")
            held = after.lstrip() if newline else ""
        assert len(held) <= LONGEST_MARKER
    released += "".join(e.text for e in parser.finish())
    assert released == text


def test_a_marker_start_that_fails_is_released_as_text() -> None:
    parser = StreamParser()
    assert parser.feed("Hi there\n") == [TextDelta("Hi there\n")]
    assert parser.feed("<tool_ca") == []
    assert parser.feed("ke>\n") == [TextDelta("<tool_cake>\n")]
    # `~~~tool_cake` is no protocol line but a Markdown code fence (info string `tool_cake`):
    # its line is held with the block's first text, as any code block's (docs/streaming.md).
    assert parser.feed("~~~tool_ca") == []
    assert parser.feed("ke\n") == []
    assert parser.feed("x = 1\n") == [TextDelta("~~~tool_cake\nx = 1\n")]
    assert parser.finish() == []


def test_a_one_word_first_line_is_held_until_the_next_byte() -> None:
    # It may be a Functionary v3.2 header (`get_weather\n{…}`, the prompt wrote the `>>>`),
    # where the format is named; under "auto" its line break shows it is no call line.
    parser = StreamParser(formats=["functionary_v3_2"])
    assert parser.feed("Hi") == []  # the message's first word waits for the byte after it
    assert parser.feed("\n") == []
    assert parser.feed("T") == [TextDelta("Hi\nT")]
    assert parser.finish() == []
    assert StreamParser().feed("Hi\n") == [TextDelta("Hi\n")]
    assert StreamParser(formats=["hermes"]).feed("Hi\n") == [TextDelta("Hi\n")]


def test_repair_reads_the_same_in_every_chunking() -> None:
    # `repair=True` on the stream and `parse_text`, as on `extract`. A marker at the message
    # start stays a marker wherever a chunk cuts it: the lenient scanner would read
    # `[TOOL_CALLS]` or `[THINK]` as a JSON list of one unquoted word.
    text = "[THINK]Sum.[/THINK][TOOL_CALLS]add{'a': 1, 'b': True,}"
    parsed = toolwire.parse_text(text, repair=True)
    assert (parsed.reasoning, parsed.content) == ("Sum.", "")
    assert [(c.name, c.arguments) for c in parsed.calls] == [("add", {"a": 1, "b": True})]
    assert isinstance(toolwire.parse_text(text).calls[0], InvalidToolCall)
    whole = canonical(run([text], repair=True), text)
    for cut in range(1, len(text)):
        assert canonical(run([text[:cut], text[cut:]], repair=True), text) == whole, cut
    assert canonical(run(text, repair=True), text) == whole


def test_an_empty_call_id_is_replaced_on_every_path() -> None:
    # Found by the `formats` fuzz target: Mistral's `[CALL_ID]` with nothing before `[ARGS]`
    # gave the id "", which no tool result can name. It is no id: a generated one replaces it.
    text = '[TOOL_CALLS]f[CALL_ID][ARGS]{"a": 1}[TOOL_CALLS]g[CALL_ID]abc123XYZ[ARGS]{}'
    parsed = toolwire.parse_text(text, format="mistral").calls
    extracted = toolwire.extract(text, formats=["mistral"])
    streamed = [e.call for e in run([text], formats=["mistral"]) if e.kind == "tool_call_end"]
    for calls in (parsed, extracted, streamed):
        assert GENERATED_ID.match(calls[0].id), calls
        assert calls[1].id == "abc123XYZ"


def test_a_split_think_marker_becomes_reasoning() -> None:
    events = run(["<thi", "nk>Hmm", "</th", "ink>Done"])
    assert events == [ReasoningDelta("Hmm"), TextDelta("Done")]


def test_unterminated_call_at_finish_is_invalid_after_its_start() -> None:
    text = 'Sure.\n~~~tool_call\n{"name": "write", "arguments": {"path": "a.py", "body": "x'
    parser = StreamParser()
    events = parser.feed(text)
    assert [e.kind for e in events] == ["text_delta", "tool_call_start", "tool_call_delta"]
    start = events[1]
    assert (start.index, start.name) == (0, "write")
    [invalid] = parser.finish()
    assert isinstance(invalid, InvalidToolCall)
    assert (invalid.index, invalid.name, invalid.offset) == (0, "write", 6)
    assert invalid.raw == text[6:]
    assert "unterminated" in invalid.error


def test_arguments_stream_as_they_arrive() -> None:
    parser = StreamParser()
    head = '~~~tool_call\n{"name": "write", "arguments": {"code": "'
    assert [e.kind for e in parser.feed(head)] == ["tool_call_start", "tool_call_delta"]
    for piece in ["def f", "():\\n", "  pass"]:
        assert parser.feed(piece) == [ToolCallDelta(0, piece)]
    [delta, end] = parser.feed('"}}\n~~~\n')
    assert delta == ToolCallDelta(0, '"}')
    assert end.call.arguments == {"code": "def f():\n  pass"}


@pytest.mark.parametrize(
    ("head", "tail"),
    [
        ('~~~tool_call\n{"name": "write", "arguments": {"code": "', '"}}\n~~~\n'),
        ('<tool_call>\n{"name": "write", "arguments": {"code": "', '"}}\n</tool_call>'),
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0"
            '<|tool_call_argument_begin|>{"code": "',
            '"}<|tool_call_end|><|tool_calls_section_end|>',
        ),
        ('[TOOL_CALLS]write[ARGS]{"code": "', '"}'),
        ('<|python_tag|>{"name": "write", "parameters": {"code": "', '"}}'),
    ],
)
def test_each_chunk_inside_an_argument_string_is_its_own_delta(head: str, tail: str) -> None:
    """A chunk inside a live argument string is sent at once, whole and alone (escapes split
    across chunks, non-ASCII, bytes and str subclasses included), in every JSON format."""

    class Text(str):
        pass

    parser = StreamParser()
    events = parser.feed(head)
    assert [e.kind for e in events][-2:] == ["tool_call_start", "tool_call_delta"]
    sent = [events[-1].arguments]
    for piece in ["def f", "():\\n", "  x\\", '"y', " é🚀 ", "\\\\", "\\", "u00e9"]:
        assert parser.feed(piece) == [ToolCallDelta(0, piece)]
        sent.append(piece)
    assert parser.feed("ü!".encode()) == [ToolCallDelta(0, "ü!")]
    [delta] = parser.feed(Text("end"))
    assert type(delta.arguments) is str and delta == ToolCallDelta(0, "end")
    sent += ["ü!", "end"]
    events = parser.feed(tail) + parser.finish()
    sent += [e.arguments for e in events if isinstance(e, ToolCallDelta)]
    [end] = [e for e in events if isinstance(e, ToolCallEnd)]
    assert json.loads("".join(sent)) == end.call.arguments
    assert end.call.arguments == {"code": 'def f():\n  x"y é🚀 \\éü!end'}


# ----- bytes, options, policy, lifecycle ----------------------------------------------------


def test_bytes_may_end_inside_a_character() -> None:
    data = "Grüße 😀\n".encode()
    parser = StreamParser()
    out = [e for i in range(len(data)) for e in parser.feed(data[i : i + 1])] + parser.finish()
    assert "".join(e.text for e in out) == "Grüße 😀\n"
    with pytest.raises(toolwire.ToolCallParseError, match="byte offset 3"):
        StreamParser().feed(b"abc\xff")
    parser = StreamParser()
    parser.feed(b"ab\xc3")
    with pytest.raises(toolwire.ToolCallParseError, match="byte offset 2"):
        parser.finish()
    parser = StreamParser()
    parser.feed(bytearray(b"\xf0\x9f"))
    with pytest.raises(toolwire.ToolCallParseError, match="UTF-8"):
        parser.feed("x")


def test_formats() -> None:
    fenced = 'Here:\n```json\n{"name": "f", "arguments": {}}\n```\n'
    tagged = '~~~tool_call\n{"name": "g", "arguments": {}}\n~~~\n'
    assert pairs(collected(run([fenced + tagged]))[2]) == [("f", {}), ("g", {})]
    assert pairs(collected(run([fenced + tagged], formats="text_tagged"))[2]) == [("g", {})]
    assert pairs(collected(run([fenced + tagged], formats=["raw_json"]))[2]) == [("f", {})]
    assert toolwire.parse_text(fenced + tagged, "raw_json").content == "Here:\n" + tagged
    with pytest.raises(ValueError, match="format must be one of"):
        StreamParser(formats=["nope"])
    for name in ("hermes", "qwen3_coder", "mistral", "harmony"):
        if not engine_supports(name):
            with pytest.raises(ValueError, match="not supported by the stream engine yet"):
                StreamParser(formats=[name])
    with pytest.raises(ValueError, match="on_error"):
        StreamParser(on_error="ignore")  # type: ignore[arg-type]


def test_calls_in_reasoning() -> None:
    text = '<think>\n~~~tool_call\n{"name": "f", "arguments": {}}\n~~~\n</think>ok'
    assert pairs(collected(run([text]))[2]) == [("f", {})]
    events = run([text], calls_in_reasoning=False)
    assert collected(events)[2] == []
    assert collected(events)[1] == '\n~~~tool_call\n{"name": "f", "arguments": {}}\n~~~\n'


BROKEN = (
    'a\n~~~tool_call\n{"name": "f" "arguments": {}}\n~~~\n'
    'b\n~~~tool_call\n{"name": "g", "arguments": {}}\n~~~\n'
)


def test_error_policy() -> None:
    kept = run([BROKEN])
    assert [e.kind for e in kept if e.kind != "text_delta"] == [
        "tool_call_start",
        "invalid_tool_call",
        "tool_call_start",
        "tool_call_delta",
        "tool_call_end",
    ]
    skipped = run([BROKEN], on_error="skip")
    valid = [e for e in kept if not isinstance(e, InvalidToolCall)]
    assert canonical(skipped, BROKEN) == canonical(valid, BROKEN)
    parser = StreamParser(on_error="raise")
    with pytest.raises(toolwire.ToolCallParseError, match="block 0") as raised:
        parser.feed(BROKEN)
    assert raised.value.index == 0
    assert not isinstance(raised.value, toolwire.ArgumentsError)
    parser = StreamParser(on_error="raise")
    parser.feed("~~~tool_call\n{")
    with pytest.raises(toolwire.ToolCallParseError, match="unterminated"):
        parser.finish()
    with pytest.raises(toolwire.ToolCallParseError):
        toolwire.parse_text(BROKEN, on_error="raise")
    assert [c.name for c in toolwire.parse_text(BROKEN, on_error="skip").calls] == ["g"]


def test_finish_reset_and_reuse() -> None:
    parser = StreamParser()
    assert parser.feed("Hello\n~~~") == [TextDelta("Hello\n")]
    assert parser.finish() == [TextDelta("~~~")]
    assert parser.finish() == []
    with pytest.raises(RuntimeError, match="reset"):
        parser.feed("more")
    parser.reset()
    assert parser.feed("again.") == [TextDelta("again.")]


def test_event_objects() -> None:
    call = ToolCall("c1", "f", {"a": 1})
    events = [
        TextDelta("hi"),
        ReasoningDelta("hm"),
        ToolCallStart(0, "c1", "f"),
        ToolCallDelta(0, '{"a": 1}'),
        ToolCallEnd(0, call),
    ]
    assert [e.kind for e in events] == [
        "text_delta",
        "reasoning_delta",
        "tool_call_start",
        "tool_call_delta",
        "tool_call_end",
    ]
    assert [e.to_dict() for e in events][2:] == [
        {"kind": "tool_call_start", "index": 0, "id": "c1", "name": "f"},
        {"kind": "tool_call_delta", "index": 0, "arguments": '{"a": 1}'},
        {
            "kind": "tool_call_end",
            "index": 0,
            "call": {"id": "c1", "name": "f", "arguments": {"a": 1}},
        },
    ]
    assert repr(events[2]) == "ToolCallStart(index=0, id='c1', name='f')"
    assert (
        repr(events[4])
        == "ToolCallEnd(index=0, call=ToolCall(id='c1', name='f', arguments={'a': 1}))"
    )
    assert events == [pickle.loads(pickle.dumps(e)) for e in events]
    assert TextDelta("hi") != ReasoningDelta("hi") and TextDelta("a") != TextDelta("b")
    assert len({TextDelta("x"), TextDelta("x"), ToolCallStart(0, "c1", "f")}) == 2
    with pytest.raises(AttributeError):
        events[0].text = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        hash(events[4])


# ----- thread safety ---------------------------------------------------------------------------


def test_concurrent_use_raises_a_clear_runtime_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """While one thread is inside `feed` (here: building the error of a broken call, which runs
    Python code), a second thread feeding the same parser gets the RuntimeError."""
    parser = StreamParser(on_error="raise")
    seen: list[BaseException] = []

    def feed_from_another_thread() -> None:
        try:
            parser.feed("x")
        except BaseException as error:
            seen.append(error)

    class Blocking(toolwire.ToolCallParseError):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            other = threading.Thread(target=feed_from_another_thread)
            other.start()
            other.join()

    monkeypatch.setattr(toolwire._errors, "ToolCallParseError", Blocking)
    with pytest.raises(Blocking):
        parser.feed(BROKEN)
    [error] = seen
    assert isinstance(error, RuntimeError)
    assert "must not be used from two threads at once" in str(error)
    monkeypatch.undo()
    parser.reset()
    assert parser.feed("fine.") == [TextDelta("fine.")]


# ----- native stream accumulators ----------------------------------------------------------


def openai_run(chunks: Iterable[Any]) -> tuple[OpenAIStreamAccumulator, list[Event]]:
    acc = OpenAIStreamAccumulator()
    events = [e for chunk in chunks for e in acc.feed(chunk)]
    return acc, events + acc.finish()


def anthropic_run(items: Iterable[Any]) -> tuple[AnthropicStreamAccumulator, list[Event]]:
    acc = AnthropicStreamAccumulator()
    events = [e for item in items for e in acc.feed(item)]
    return acc, events + acc.finish()


def check_accumulated(acc: Any, events: list[Event], stream: dict[str, Any]) -> None:
    assert pairs(acc.calls) == pairs(stream["calls"])
    assert acc.invalid_calls == []
    assert [e.call for e in events if isinstance(e, ToolCallEnd)] == acc.calls
    for k, call in enumerate(acc.calls):
        [start] = [e for e in events if isinstance(e, ToolCallStart) and e.index == k]
        assert (start.id, start.name) == (call.id, call.name)
        raw = "".join(e.arguments for e in events if isinstance(e, ToolCallDelta) and e.index == k)
        assert toolwire.decode_arguments(raw) == call.arguments


@pytest.mark.parametrize("stream", SSE, ids=lambda s: s["id"])
def test_openai_chunks_accumulate_to_their_calls(stream: dict[str, Any]) -> None:
    acc, events = openai_run(stream["openai_chunks"])
    check_accumulated(acc, events, stream)
    assert acc.content == (stream["openai_content"] or "")
    assert all(call.id.startswith("call_") for call in acc.calls)
    # As SSE `data:` lines, ending with [DONE].
    lines = [f"data: {json.dumps(c)}" for c in stream["openai_chunks"]] + ["data: [DONE]"]
    acc2 = OpenAIStreamAccumulator()
    events2 = [e for line in lines for e in acc2.feed(line)]
    assert acc2.calls == acc.calls and events2 == events and acc2.finish() == []


@pytest.mark.parametrize("stream", SSE, ids=lambda s: s["id"])
def test_anthropic_events_accumulate_to_their_calls(stream: dict[str, Any]) -> None:
    acc, events = anthropic_run(stream["anthropic_events"])
    check_accumulated(acc, events, stream)
    assert acc.content == (stream["anthropic_text"] or "")
    sse = [
        f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode()
        for e in stream["anthropic_events"]
    ]
    acc2, events2 = anthropic_run(sse)
    assert acc2.calls == acc.calls and events2 == events


def fragment(
    index: int | None = None, id: str | None = None, name: str | None = None, arguments: Any = None
) -> dict[str, Any]:
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    part: dict[str, Any] = {"function": function}
    if index is not None:
        part["index"] = index
    if id is not None:
        part["id"] = id
    return {"choices": [{"index": 0, "delta": {"tool_calls": [part]}}]}


def test_openai_interleaved_calls_by_index() -> None:
    acc, events = openai_run(
        [
            fragment(0, "a", "f", ""),
            fragment(1, "b", "g", ""),
            fragment(1, arguments='{"y"'),
            fragment(0, arguments='{"x": 1}'),
            fragment(1, arguments=": 2}"),
        ]
    )
    assert [(c.id, c.name, c.arguments) for c in acc.calls] == [
        ("a", "f", {"x": 1}),
        ("b", "g", {"y": 2}),
    ]
    assert [e.kind for e in events][:4] == [
        "tool_call_start",
        "tool_call_start",
        "tool_call_delta",
        "tool_call_delta",
    ]


def test_openai_non_conforming_servers() -> None:
    # No index at all: ids (or a second name) start calls.
    acc, _ = openai_run(
        [
            fragment(None, "a", "f", '{"x"'),
            fragment(arguments=": 1}"),
            fragment(None, "b", "g", "{}"),
        ]
    )
    assert pairs(acc.calls) == [("f", {"x": 1}), ("g", {})]
    acc, _ = openai_run(
        [fragment(name="f", arguments="{}"), fragment(name="g"), fragment(arguments='{"z": 0}')]
    )
    assert pairs(acc.calls) == [("f", {}), ("g", {"z": 0})]
    # Index 0 reused for every call: a new id starts a new call (and ends the previous one).
    acc, events = openai_run(
        [
            fragment(0, "a", "f", '{"x": '),
            fragment(0, arguments="1}"),
            fragment(0, "b", "g", ""),
            fragment(0, arguments="{}"),
        ]
    )
    assert [(c.id, c.name, c.arguments) for c in acc.calls] == [
        ("a", "f", {"x": 1}),
        ("b", "g", {}),
    ]
    assert [e.kind for e in events].index("tool_call_end") < [e.kind for e in events].index(
        "tool_call_start", 1
    )
    # A whole call in one fragment, arguments as text or as an object; a repeated id.
    acc, events = openai_run([fragment(0, "a", "f", '{"x": 1}'), fragment(1, "a", "g", {"y": [1]})])
    assert pairs(acc.calls) == [("f", {"x": 1}), ("g", {"y": [1]})]
    assert acc.calls[0].id == "a" and GENERATED_ID.match(acc.calls[1].id)
    assert ToolCallDelta(1, '{"y":[1]}') in events
    # A name arriving after the first arguments piece: the start waits for it.
    acc, events = openai_run(
        [fragment(0, "a", None, '{"x"'), fragment(0, name="f", arguments=": 1}")]
    )
    assert [e.kind for e in events] == ["tool_call_start", "tool_call_delta", "tool_call_end"]
    assert events[1] == ToolCallDelta(0, '{"x": 1}')


def test_openai_bad_arguments_are_invalid_calls_never_exceptions() -> None:
    acc, events = openai_run(
        [
            fragment(0, "a", "f", '{"x": '),
            fragment(1, "b", "g", "[1]"),
            fragment(2, "c", None, "{}"),
            fragment(3, "d", "h", ""),
        ]
    )
    assert pairs(acc.calls) == [("h", {})]
    bad = acc.invalid_calls
    assert [(c.index, c.name, c.raw, c.protocol) for c in bad] == [
        (0, "f", '{"x": ', "native"),
        (1, "g", "[1]", "native"),
        (2, None, "{}", "native"),
    ]
    assert "no name" in bad[2].error
    assert [e for e in events if isinstance(e, InvalidToolCall)] == bad


def test_openai_text_reasoning_usage_and_sse_lines() -> None:
    acc = OpenAIStreamAccumulator()
    assert acc.feed(": keep-alive") == []
    assert acc.feed('data: {"choices": [{"index": 0, "delta": {"reasoning_content": "Hm"}}]}') == [
        ReasoningDelta("Hm")
    ]
    assert acc.feed(b'{"choices": [{"index": 0, "delta": {"content": "Hi"}}]}') == [TextDelta("Hi")]
    assert acc.feed({"choices": [], "usage": {"total_tokens": 3}}) == []
    assert acc.feed({"choices": [{"index": 1, "delta": {"content": "other choice"}}]}) == []
    assert acc.feed("data: [DONE]") == []
    assert (acc.content, acc.reasoning, acc.calls) == ("Hi", "Hm", [])
    with pytest.raises(toolwire.ProviderFormatError):
        acc.feed("data: {not json")


def test_anthropic_cases() -> None:
    start = {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
    }
    stop = {"type": "content_block_stop", "index": 1}
    # An empty input is {}; an input given whole in the start block is used.
    acc, _ = anthropic_run([start, stop])
    assert acc.calls == [ToolCall("t1", "f", {})]
    whole = {**start, "content_block": {**start["content_block"], "input": {"a": 1}}}
    acc, events = anthropic_run([whole, stop])
    assert acc.calls == [ToolCall("t1", "f", {"a": 1})] and ToolCallDelta(0, '{"a":1}') in events
    # Invalid JSON: an InvalidToolCall, not an exception.
    delta = {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": '{"a": '},
    }
    acc, events = anthropic_run([start, delta, stop])
    [bad] = acc.invalid_calls
    assert (bad.index, bad.name, bad.raw) == (0, "f", '{"a": ') and events[-1] == bad
    # Text and thinking blocks; an unfinished call ends at finish(); a server without indices.
    acc, events = anthropic_run(
        [
            {"type": "message_start", "message": {"content": []}},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "Hm"},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "Hi"},
            },
            {
                "type": "content_block_start",
                "content_block": {"type": "tool_use", "id": "t2", "name": "g", "input": {}},
            },
            {
                "type": "content_block_delta",
                "delta": {"type": "input_json_delta", "partial_json": '{"b": 2}'},
            },
        ]
    )
    assert (acc.content, acc.reasoning, acc.calls) == ("Hi", "Hm", [ToolCall("t2", "g", {"b": 2})])


@given(st.sampled_from(SSE), st.lists(st.integers(0, 10**5), max_size=12))
def test_accumulators_are_chunk_invariant(stream: dict[str, Any], cuts: list[int]) -> None:
    """Arguments re-cut at random points give the same calls, and the deltas join to them."""
    chunks = []
    for call_index, call in enumerate(stream["calls"]):
        raw = json.dumps(call["arguments"])
        chunks.append(fragment(call_index, f"id{call_index}", call["name"], ""))
        chunks.extend(fragment(call_index, arguments=piece) for piece in pieces(raw, cuts) if piece)
    acc, events = openai_run(chunks)
    check_accumulated(acc, events, stream)


# ----- docs -------------------------------------------------------------------------------------


def test_docstring_examples_run() -> None:
    from toolwire import _gateway

    assert doctest.testmod(_gateway).failed == 0
    for obj in (
        toolwire.parse_text,
        toolwire.Parsed,
        StreamParser,
        TextDelta,
        OpenAIStreamAccumulator,
        AnthropicStreamAccumulator,
        toolwire.ResponsesStreamAccumulator,
        toolwire.GeminiStreamAccumulator,
        toolwire.OllamaStreamAccumulator,
        toolwire.StreamEncoder,
        toolwire.frame_chunk,
    ):
        finder = doctest.DocTestFinder()
        runner = doctest.DocTestRunner()
        for test in finder.find(obj, globs=vars(toolwire)):
            runner.run(test)
        assert runner.failures == 0


def test_parsed_is_a_value() -> None:
    """`Parsed` compares, pickles, prints and round-trips through `to_dict` by value."""
    import pickle
    from types import MappingProxyType

    text = (
        '<think>Hm.</think>Sure.\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'
    )
    parsed = toolwire.parse_text(text + "\n<tool_call>\n{oops}\n</tool_call>")
    assert parsed.content == "Sure.\n\n"
    assert parsed.reasoning == "Hm."
    [call, invalid] = parsed.calls
    assert isinstance(call, toolwire.ToolCall) and isinstance(invalid, toolwire.InvalidToolCall)
    assert pickle.loads(pickle.dumps(parsed)) == parsed
    assert toolwire.Parsed.from_dict(MappingProxyType(parsed.to_dict())) == parsed
    assert parsed != toolwire.Parsed(parsed.content, parsed.calls, None)
    assert repr(toolwire.Parsed("a", [])) == "Parsed(content='a', calls=[], reasoning=None)"
    match parsed:
        case toolwire.Parsed(content, [toolwire.ToolCall(name="f"), _], "Hm."):
            assert content == "Sure.\n\n"
        case _:
            raise AssertionError(parsed)
    with pytest.raises(TypeError):
        hash(parsed)
