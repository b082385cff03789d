"""The formats of the list family added for issue 23 (LFM2, Jamba / Hunyuan-A13B, MiniMax-M1,
Nemotron, Granite 3, Apertus, Command R7B, Command R, Olmo 3, Phi-4-mini / Firefunction v2):
the peers' test cases, the corpus rendered in each, stream invariants, and auto-detection
picking the same calls as naming the format, for every format's texts."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import toolwire
from conformance.peer import decided
from hypothesis import given, settings
from hypothesis import strategies as st
from renderers import RENDERERS, SNIFFED_AS, as_auto_reads
from support import DATA, cases
from test_stream import check_invariants
from test_stream_formats import check_stream

# Peer format name (tests/data/conformance) -> toolwire name.
NEW = {
    "lfm2": "lfm2",
    "jamba": "jamba",
    "hunyuan_a13b": "jamba",
    "minimax": "minimax_m1",
    "nemotron_v2": "nemotron",
    "granite": "granite",
    "apertus": "apertus",
    "command_r7b": "command_r7b",
    "cohere_command3": "command_r7b",
    "cohere_command4": "command_r7b",
    "command_r": "command_r",
    "olmo3": "olmo3",
    "firefunction_v2": "phi4_mini",
    "llama3_builtin": "llama3_json",
}

# Where toolwire differs from a peer's test on purpose, or does not read the peer's text yet:
# test name -> why. The calls of these cases are still compared where the reason allows.
DIFFERS = {
    # SGLang drops a call whose name is not among the tools; toolwire reports every call the
    # model wrote (a caller filters by tools if it wants to).
    "TestLfm2Detector.test_detect_and_parse_unknown_function": "calls",
}
# Peer texts that another format reads on purpose when none is named, so auto-detection finds a
# call the named format does not: test name -> why.
READ_BY_ANOTHER_FORMAT = {
    # Rapid-MLX's content-passthrough test: prose that names a bare `<function=NAME>`. The named
    # format leaves it as text; auto-detection reads it as a qwen3_coder call the model began and
    # broke, an InvalidToolCall (tests/conformance/deviations.json says why).
    **{
        f"test_miss_path_returns_content_uncut[{parser}-{i}]": "prose naming <function=…>"
        for parser in ("granite", "lfm")
        for i in (1, 2)
    },
    # A pythonic list without LFM2's markers: `lfm2` leaves it as text (Ollama, whose test this
    # is, reads it only for an offered tool); auto-detection reads it as `pythonic`.
    "TestLFM2Parser_BareUnknownToolCallDoesNotParse": "markerless pythonic list",
    # Rapid-MLX's LFM tests: markerless lists whose arguments its parser rejects (positional,
    # `**` unpacking, a bare name in the list); `lfm2` leaves them as text, `pythonic` reads each
    # call or keeps it as an InvalidToolCall.
    "TestLfmArgumentHandling.test_positional_args_reject_the_call": "markerless pythonic list",
    "TestLfmArgumentHandling.test_positional_args_anywhere_reject_the_whole_block": "markerless "
    "pythonic list",
    "TestLfmArgumentHandling.test_non_call_element_rejects_the_whole_block": "markerless "
    "pythonic list",
    "TestLfmArgumentHandling.test_keyword_unpack_rejects_the_whole_block": "markerless "
    "pythonic list",
}
# Reasoning and response wrappers of these models that toolwire does not strip from content
# yet (<|START_THINKING|>, <|START_RESPONSE|>, <|inner_prefix|>, <response>): calls compared,
# content not.
UNREAD_WRAPPERS = ("<|START_THINKING|>", "<|START_RESPONSE|>", "<|inner_prefix|>", "<response>")


def peer_cases() -> list[dict[str, Any]]:
    with (DATA / "conformance" / "peer_cases.jsonl").open(encoding="utf-8") as f:
        found = [json.loads(line) for line in f]
    # The deviations table's cases are the conformance suite's (`tests/conformance`), but for
    # the ones `DIFFERS` names.
    return [c for c in found if c["format"] in NEW and (c["test"] in DIFFERS or not decided(c))]


def shape(call: Any) -> tuple[Any, ...]:
    if isinstance(call, toolwire.ToolCall):
        return ("call", call.name, json.dumps(call.arguments, sort_keys=True))
    return ("invalid", call.name, call.protocol)


def matches(got: list[Any], case: dict[str, Any]) -> bool:
    expected = case["calls"]
    if case["match"] == "subset_prefix":
        got = got[: len(expected)]
    if len(got) != len(expected):
        return False
    for call, want in zip(got, expected, strict=True):
        if not isinstance(call, toolwire.ToolCall):
            return False
        if want["name"] is not None and call.name != want["name"]:
            return False
        if case["match"] is None and call.arguments != want["arguments"]:
            return False
        if any(call.arguments.get(k) != v for k, v in want["arguments"].items()):
            return False
    return True


def test_the_peer_cases_are_here() -> None:
    # At least the cases each format had when it was added (more are read over time).
    counts = {name: 0 for name in NEW}
    for case in peer_cases():
        counts[case["format"]] += 1
    # At least these many (the conformance data grows as more of the peers' tests are read).
    at_least = {
        "lfm2": 31,
        "jamba": 6,
        "hunyuan_a13b": 6,
        "minimax": 5,
        "nemotron_v2": 6,
        "granite": 6,
        "apertus": 6,
        "command_r7b": 6,
        "cohere_command3": 2,
        "cohere_command4": 2,
        "command_r": 2,
        "olmo3": 8,
        "firefunction_v2": 1,
        "llama3_builtin": 2,
    }
    assert all(counts[name] >= count for name, count in at_least.items()), counts


@pytest.mark.parametrize("case", peer_cases(), ids=lambda c: f"{c['format']}:{c['test']}")
def test_peer_cases(case: dict[str, Any]) -> None:
    fmt = NEW[case["format"]]
    text, tools = case["text"], case["tools"]
    # A case whose test's prompt opened a think span is read as the conformance suite reads it.
    opened = {"starts_in_reasoning": True} if case.get("starts_in_reasoning") else {}
    parsed = toolwire.parse_text(text, format=fmt, tools=tools, **opened)
    if DIFFERS.get(case["test"]) == "calls":
        assert [c.name for c in parsed.calls] == ["unknown_function"]
    else:
        assert matches(parsed.calls, case), (parsed.calls, case["calls"])
    wrapped = any(w in text for w in UNREAD_WRAPPERS)
    if case["content"] is not None and not wrapped:
        assert parsed.content.strip() == case["content"].strip()
    # Found without naming the format, the same way.
    if case["test"] not in READ_BY_ANOTHER_FORMAT:
        auto = toolwire.extract(text, tools=tools, on_error="keep", **opened)
        assert [shape(c) for c in auto] == [shape(c) for c in parsed.calls]


def rendered(fmt: str, step: int = 1) -> list[tuple[str, Any]]:
    render = RENDERERS[fmt]
    texts = []
    for k, case in enumerate(cases()):
        if k % step == 0:
            text = render(case, k)
            if text is not None:
                texts.append((text, case["tools"]))
    return texts


def texts_of(fmt: str) -> list[tuple[str, Any]]:
    peers = [
        (c["text"], c["tools"])
        for c in peer_cases()
        if NEW[c["format"]] == fmt and c["test"] not in READ_BY_ANOTHER_FORMAT
    ]
    return peers + rendered(fmt, 5)


@pytest.mark.parametrize("fmt", sorted(set(NEW.values()) - {"llama3_json"}))
def test_auto_detection_equals_naming_the_format(fmt: str) -> None:
    for text, tools in texts_of(fmt):
        named = toolwire.parse_text(text, format=fmt, tools=tools)
        auto = toolwire.extract(text, tools=tools, on_error="keep")
        assert [shape(c) for c in auto] == [shape(c) for c in named.calls], text
        assert [shape(c) for c in toolwire.parse_text(text, tools=tools).calls] == [
            shape(c) for c in named.calls
        ]


def all_format_texts() -> list[tuple[str, str, Any]]:
    """Every format's texts: the corpus renderings (shared corpus and tests/renderers.py)."""
    texts = []
    for k, case in enumerate(cases()[::9]):
        for fmt in toolwire.FORMATS:
            wire = case["wire"].get(fmt)
            text = wire if isinstance(wire, str) else None
            if fmt in RENDERERS:
                text = RENDERERS[fmt](case, k)
            if text is not None:
                texts.append((fmt, text, case["tools"]))
    return texts


def test_sniffing_never_confuses_formats() -> None:
    """For every text of every format, auto detection picks the calls naming the format does
    (the format whose markers it shares, for one that sniffing cannot tell apart)."""
    seen = set()
    for fmt, text, tools in all_format_texts():
        sniffed_as = SNIFFED_AS.get(fmt, fmt)
        named = toolwire.extract(text, formats=[sniffed_as], tools=tools, on_error="keep")
        auto = toolwire.extract(as_auto_reads(fmt, text), tools=tools, on_error="keep")
        assert [shape(c) for c in auto] == [shape(c) for c in named], (fmt, text)
        assert all(isinstance(c, toolwire.ToolCall) for c in named), (fmt, text)
        seen.add(fmt)
    assert set(NEW.values()) <= seen


@pytest.mark.parametrize("fmt", sorted(set(NEW.values()) - {"llama3_json"}))
def test_renderings_stream_as_they_parse(fmt: str) -> None:
    rng = random.Random(fmt)
    checked = 0
    for text, tools in rendered(fmt, 25):
        check_stream(text, fmt, tools, rng)
        checked += 1
    assert checked > 80


@settings(max_examples=150, deadline=None)
@given(
    base=st.sampled_from([t for fmt in sorted(RENDERERS) for t, _ in texts_of(fmt)[::4]]),
    cuts=st.lists(st.integers(0, 10**4), max_size=20),
    byte_cuts=st.lists(st.integers(0, 10**4), max_size=20),
)
def test_stream_invariants(base: str, cuts: list[int], byte_cuts: list[int]) -> None:
    check_invariants(base, cuts, byte_cuts)


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("Use `<|tool_call_start|>[f(a=1)]<|tool_call_end|>` to call.", "lfm2"),
        ('Write ``<tool_calls>[{"name": "f"}]</tool_calls>`` then.', "jamba"),
        ("The `<TOOLCALL>` token opens calls.", "nemotron"),
        ("Granite's `<|tool_call|>[]` marker.", "granite"),
    ],
)
def test_markers_in_code_spans_are_prose(text: str, fmt: str) -> None:
    assert toolwire.extract(text) == []
    assert toolwire.parse_text(text, format=fmt).content == text


def test_lists_empty_broken_and_unclosed() -> None:
    # An empty list, or none, is no call; the end token is markup.
    for text in ("<|tool_call_start|><|tool_call_end|>", "<TOOLCALL>[]</TOOLCALL>"):
        parsed = toolwire.parse_text(text)
        assert (parsed.calls, parsed.content) == ([], "")
    # Broken JSON is one failed call that keeps its text, up to the end token.
    parsed = toolwire.parse_text('<tool_calls>[{"name": "f", </tool_calls> after')
    [bad] = parsed.calls
    assert isinstance(bad, toolwire.InvalidToolCall)
    assert bad.raw == '<tool_calls>[{"name": "f", </tool_calls>'
    assert parsed.content == " after"
    # A missing end token is accepted: the list ends the markup.
    parsed = toolwire.parse_text('<TOOLCALL>[{"name": "f", "arguments": {"a": 1}}] done')
    assert [(c.name, c.arguments) for c in parsed.calls] == [("f", {"a": 1})]
    assert parsed.content == " done"


@pytest.mark.parametrize("fmt", ["nemotron", "auto"])
def test_nemotron_mini_writes_one_object_in_lowercase_tags(fmt: str) -> None:
    formats: Any = fmt if fmt == "auto" else [fmt]
    # Nemotron-Mini-4B-Instruct's template (ollama/ollama#6870): `<toolcall> {…} </toolcall>`.
    text = ' <toolcall> {"name": "weather_lookup", "arguments": {"zip_codes": [12345]}} </toolcall>'
    for chunks in (1, 3, len(text)):
        parser = toolwire.StreamParser(formats=formats)
        pieces = [text[i : i + chunks] for i in range(0, len(text), chunks)]
        events = [e for piece in pieces for e in parser.feed(piece)] + parser.finish()
        [end] = [e for e in events if e.kind == "tool_call_end"]
        assert (end.call.name, end.call.arguments) == ("weather_lookup", {"zip_codes": [12345]})
    parsed = toolwire.parse_text(text, format=fmt)
    assert [(c.name, c.arguments) for c in parsed.calls] == [
        ("weather_lookup", {"zip_codes": [12345]})
    ]
    assert parsed.content.strip() == ""
    assert [c.name for c in toolwire.extract(text, formats=formats)] == ["weather_lookup"]


def test_shapes_of_apertus_and_cohere() -> None:
    parsed = toolwire.parse_text('<|tools_prefix|>[{"f": {"a": 1}}, {"g": {}}]<|tools_suffix|>')
    assert [(c.name, c.arguments) for c in parsed.calls] == [("f", {"a": 1}), ("g", {})]
    text = '<|START_ACTION|>[{"tool_call_id": "7", "tool_name": "f", "parameters": {"a": 1}}]'
    [call] = toolwire.parse_text(text + "<|END_ACTION|>").calls
    assert (call.id, call.name, call.arguments) == ("7", "f", {"a": 1})
    # A call object in another shape is a failed call, not a lost one.
    [bad] = toolwire.parse_text('<|tools_prefix|>[{"f": 1, "g": 2}]<|tools_suffix|>').calls
    assert isinstance(bad, toolwire.InvalidToolCall)
    assert "one key" in bad.error


def test_olmo3_lines() -> None:
    text = "<function_calls>f(a=1)\n  g(b='<x>', c=null)\n</function_calls>\nDone."
    parsed = toolwire.parse_text(text)
    assert [(c.name, c.arguments) for c in parsed.calls] == [
        ("f", {"a": 1}),
        ("g", {"b": "<x>", "c": None}),
    ]
    assert parsed.content == "\nDone."
    # A broken call fails alone; the next line is still read.
    parsed = toolwire.parse_text("<function_calls>f(a=x)\ng(b=2)</function_calls>")
    assert [type(c).__name__ for c in parsed.calls] == ["InvalidToolCall", "ToolCall"]


def test_functools_only_at_the_start_of_a_message() -> None:
    call = '[{"name": "f", "arguments": {"a": 1}}]'
    for text in (f"functools{call}", f"<think>x</think>\n  functools{call}"):
        assert [c.name for c in toolwire.parse_text(text).calls] == ["f"]
    # Mid-prose, or in a code span, it is prose (JSON quoted in an answer runs no tool).
    for text in (f"Phi writes functools{call}.", f"`functools{call}`"):
        assert toolwire.extract(text) == []
        assert toolwire.parse_text(text, format="phi4_mini").calls == []
    # A message that starts with the word and no list is prose.
    assert toolwire.parse_text("functools is a module.").content == "functools is a module."


def test_command_r_action_only_at_the_start_of_a_message() -> None:
    fence = '```json\n[{"tool_name": "f", "parameters": {"a": 1}}]\n```'
    for text in (f"Action: {fence}", f"<think>x</think>\n  Action: {fence}\nDone."):
        parsed = toolwire.parse_text(text)
        assert [(c.name, c.arguments) for c in parsed.calls] == [("f", {"a": 1})]
        assert parsed.content.strip() in ("", "Done.")
    # One object stands for a list of one; the closing fence may be cut off at the end.
    text = 'Action: ```json\n{"tool_name": "g"}'
    [call] = toolwire.parse_text(text, format="command_r_plus").calls
    assert (call.name, call.arguments) == ("g", {})
    # Anywhere else it is prose: after a line of prose, or quoted in a code span.
    for text in (f"Plan: look it up.\nAction: {fence}", f"`Action: {fence}`"):
        assert toolwire.parse_text(text, format="command_r").calls == []
    # Another JSON shape after the marker (an agent's `{"action": …}`) is a failed call that
    # keeps its text, not a call with a made-up name.
    [bad] = toolwire.extract('Action: ```json\n{"action": "x"}\n```', on_error="keep")
    assert isinstance(bad, toolwire.InvalidToolCall)
    assert bad.protocol == "command_r" and "tool_name" in bad.error


def test_xlam_is_raw_json_hermes_or_mistral() -> None:
    """xLAM's outputs are a bare or fenced JSON list (raw JSON), or the hermes and mistral
    markup: `formats="auto"` reads every peer case of it, so xLAM has no format of its own
    (its name is an alias of raw_json)."""
    with (DATA / "conformance" / "peer_cases.jsonl").open(encoding="utf-8") as f:
        # But Rapid-MLX's prose that names a bare `<function=NAME>`, read as a broken call (the
        # deviations table lists those).
        xlam = [
            c
            for c in map(json.loads, f)
            if c["format"] == "xlam"
            and not (c["test"].startswith("test_miss_path_returns_content_uncut") and decided(c))
        ]
    assert len(xlam) == 22
    for case in xlam:
        assert matches(toolwire.extract(case["text"], tools=case["tools"]), case), case["text"]


def test_llama3_built_in_tools() -> None:
    text = '<|python_tag|>brave_search.call(query="weather in Paris")<|eom_id|>'
    parsed = toolwire.parse_text(text)
    assert [(c.name, c.arguments) for c in parsed.calls] == [
        ("brave_search", {"query": "weather in Paris"})
    ]
    assert parsed.content == ""  # <|eom_id|> is a control token, never content
    events = []
    parser = toolwire.StreamParser()
    for ch in text:
        events += parser.feed(ch)
    events += parser.finish()
    starts = [e.name for e in events if e.kind == "tool_call_start"]
    assert starts == ["brave_search"]
    # JSON objects after the tag are read as before.
    text = '<|python_tag|>{"name": "f", "parameters": {"a": 1}}'
    assert [c.name for c in toolwire.parse_text(text).calls] == ["f"]


def test_aliases() -> None:
    text = '<TOOLCALL>[{"name": "f", "arguments": {}}]</TOOLCALL>'
    assert toolwire.parse_text(text, format="nemotron_v2").calls[0].name == "f"
    text = '<|tool_call_start|>[{"name": "f", "arguments": {}}]<|tool_call_end|>'
    assert toolwire.parse_text(text, format="lfm2_with_json_tools").calls[0].name == "f"


def test_minimax_m1_objects_one_a_line_beside_jamba_lists() -> None:
    """`<tool_calls>` opens both: call objects one a line are MiniMax-M1's, a list Jamba's (and
    Hunyuan-A13B's); naming either format reads both bodies."""
    lines = '<tool_calls>\n{"name": "f", "arguments": {"a": 1}}\n{"name": "g", "arguments": {}}'
    listed = '<tool_calls>[{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": {}}]'
    for body, own in ((lines + "\n", "minimax_m1"), (listed, "jamba")):
        text = body + "</tool_calls> Done."
        for fmt in ("auto", "jamba", "minimax_m1", "minimax", "hunyuan_a13b"):
            parsed = toolwire.parse_text(text, format=fmt)
            assert [(c.name, c.arguments) for c in parsed.calls] == [("f", {"a": 1}), ("g", {})]
            assert parsed.content == " Done."
        check_stream(text, own, None, random.Random(own))
    # A broken object fails alone, from itself to the end token; the calls before it are kept.
    text = lines + '\n{"name": "h", \n</tool_calls>after'
    parsed = toolwire.parse_text(text)
    *read, bad = parsed.calls
    assert [c.name for c in read] == ["f", "g"]
    assert isinstance(bad, toolwire.InvalidToolCall)
    assert (bad.raw, bad.protocol) == ('{"name": "h", \n</tool_calls>', "minimax_m1")
    assert parsed.content == "after"


def test_llamacpp_generic_reads_raw_json_calls_and_its_answers() -> None:
    """llama.cpp's generic format: its calls are raw JSON's (`{"tool_call": …}`,
    `{"tool_calls": […]}`), and a message that is `{"response": "…"}` is that string as content
    when the format is named. Under "auto" or raw_json the answer stays the JSON written (it
    cannot be told from a JSON-mode answer there)."""
    assert "llamacpp_generic" in toolwire.FORMAT_NAMES
    single = '{"tool_call": {"name": "f", "arguments": {"a": 1}}}'
    listed = '{"tool_calls": [{"name": "f", "arguments": {"a": 1}}]}'
    for text in (single, listed):
        for name in ("llamacpp_generic", "LlamaCpp-Generic", "raw_json"):
            calls = toolwire.parse_text(text, format=name).calls
            assert [(c.name, c.arguments) for c in calls] == [("f", {"a": 1})]
            assert [c.name for c in toolwire.extract(text, formats=[name])] == ["f"]
    answer = r'{"response": "Hello,\n\"world\""}'
    # Blank space the model wrote around the object stays, as around any call.
    for text, content in ((answer, 'Hello,\n"world"'), (f"  {answer}\n", '  Hello,\n"world"\n')):
        assert toolwire.parse_text(text, format="llamacpp_generic").content == content
        for cut in range(len(text) + 1):
            parser = toolwire.StreamParser(formats=["llamacpp_generic"])
            events = parser.feed(text[:cut]) + parser.feed(text[cut:]) + parser.finish()
            assert {e.kind for e in events} == {"text_delta"}
            assert "".join(e.text for e in events) == content
        assert toolwire.extract(text, formats=["llamacpp_generic"]) == []
        for formats in ("auto", "raw_json", ["raw_json", "hermes"]):
            assert toolwire.parse_text(text, format=formats).content == text
    # Only the whole answer object: other JSON stays as written, a fenced one too.
    for other in (
        '{"response": 1}',
        '{"response": "a", "extra": 2}',
        '{"answer": "a"}',
        '["a"]',
        '```json\n{"response": "a"}\n```',
    ):
        assert toolwire.parse_text(other, format="llamacpp_generic").content == other
    # The markup of other formats is theirs.
    tagged = '[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}}]'
    assert toolwire.extract(tagged, formats=["llamacpp_generic"]) == []


def test_xlam_names_what_vllms_xlam_parser_reads() -> None:
    """vLLM's xLAM parser reads xLAM's bare or fenced JSON list, and the same list after
    `[TOOL_CALLS]` or inside `<tool_call>…</tool_call>`: `xlam` stands for raw_json, mistral and
    hermes, on every path and wherever a format is named."""
    assert toolwire.FORMAT_ALIASES["xlam"] == ("raw_json", "mistral", "hermes")
    body = '[{"name": "f", "arguments": {"a": 1}}]'
    texts = [body, f"```json\n{body}\n```", f"[TOOL_CALLS]{body}", f"<tool_call>{body}</tool_call>"]
    for text in texts:
        for formats in (["xlam"], ["XLAM"], ["raw_json", "mistral", "hermes"]):
            assert [(c.name, c.arguments) for c in toolwire.extract(text, formats=formats)] == [
                ("f", {"a": 1})
            ]
        parsed = toolwire.parse_text(text, format="xlam")
        assert [(c.name, c.arguments) for c in parsed.calls] == [("f", {"a": 1})]
        assert parsed.content == ""
        parser = toolwire.StreamParser(formats=["xlam"])
        events = [e for c in text for e in parser.feed(c)] + parser.finish()
        assert [e.call.name for e in events if e.kind == "tool_call_end"] == ["f"]
    # Other formats' markup stays theirs.
    pythonic = "[f(a=1)]"
    assert toolwire.parse_text(pythonic, format="xlam").calls == []
    assert [c.name for c in toolwire.extract(pythonic, formats=["xlam", "pythonic"])] == ["f"]


def test_hy_v3_calls_in_a_tool_calls_list() -> None:
    """HY v3 writes glm45's calls, with `<tool_sep>` after the name, in `<tool_calls>`; HY v4
    leaves the separator out. Values are typed by tools=."""
    tools = [
        {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"days": {"type": "integer"}}},
        }
    ]
    spaced = (
        "Checking.<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n"
        "<arg_value>Oslo</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n"
        "</tool_call>\n<tool_call>now<tool_sep>\n</tool_call>\n</tool_calls>"
    )
    inline = spaced.replace("\n", "")
    v4 = inline.replace("<tool_sep>", "")
    want = [("get_weather", {"city": "Oslo", "days": 3}), ("now", {})]
    for text in (spaced, inline, v4):
        for fmt in ("auto", "hy_v3", "hy_v4", "jamba"):
            parsed = toolwire.parse_text(text, format=fmt, tools=tools)
            assert [(c.name, c.arguments) for c in parsed.calls] == want, (fmt, text)
            assert parsed.content == "Checking."
        check_stream(text, "hy_v3", tools, random.Random(text))
    # A broken call fails alone; the next one is read, and the list's end token is markup.
    broken = "<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key>1</tool_call>"
    parsed = toolwire.parse_text(broken + "<tool_call>g<tool_sep></tool_call></tool_calls>!")
    bad, good = parsed.calls
    assert isinstance(bad, toolwire.InvalidToolCall) and bad.protocol == "hy_v3"
    assert (good.name, parsed.content) == ("g", "!")


# Hunyuan A13B's turn (its reasoning parser in vLLM: `<think>…</think>` then `<answer>…</answer>`;
# vLLM's tool-parser stream test ends on "\n</answer>").
HUNYUAN = (
    "<think>\nThe user wants Boston.\n</think>\n<answer>\nChecking.<tool_calls>"
    '[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>\n</answer>'
)


@pytest.mark.parametrize("fmt", ["hunyuan_a13b", "jamba", "auto"])
def test_hunyuan_answer_wrapper_is_markup(fmt: str) -> None:
    parsed = toolwire.parse_text(HUNYUAN, fmt)
    assert parsed.content == "\n\nChecking.\n"
    assert parsed.reasoning == "\nThe user wants Boston.\n"
    assert [(c.name, c.arguments) for c in parsed.calls] == [("get_weather", {"city": "Boston"})]
    formats = None if fmt == "auto" else [fmt]
    assert [c.name for c in toolwire.extract(HUNYUAN, formats=formats)] == ["get_weather"]
    if fmt == "jamba":  # random and 1-character chunks (check_stream knows the canonical name)
        check_stream(HUNYUAN, fmt, None, random.Random(fmt))
    for cut in range(1, len(HUNYUAN)):
        parser = toolwire.StreamParser(formats=formats)
        events = parser.feed(HUNYUAN[:cut]) + parser.feed(HUNYUAN[cut:]) + parser.finish()
        assert "".join(e.text for e in events if e.kind == "text_delta") == parsed.content


def test_answer_tags_are_prose_where_jamba_is_not_read() -> None:
    text = "<answer>Paris</answer>"
    for fmt in ("hermes", "minimax_m1", "hy_v3"):
        assert toolwire.parse_text(text, fmt).content == text, fmt
    assert toolwire.parse_text(text, "hunyuan_a13b").content == "Paris"
