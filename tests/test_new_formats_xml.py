"""The XML and token-section formats of issue 23: their peers' test cases (vLLM, SGLang,
llama.cpp; `tests/data/conformance`, with its attribution), the peers' names as aliases, the
corpus rendered in each (`tests/renderers.py`), and sniffing: `extract(formats="auto")` picks
the same calls as naming the format, on every text of every format."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import toolwire
from conformance.peer import decided
from renderers import RENDERERS
from support import DATA, cases, fed_in_chunks, streamed_calls

# A peer's format name -> the toolwire format that reads it.
PEER_FORMATS = {
    "gigachat3": "gigachat3",
    "seed_oss": "seed_oss",
    "glm47": "glm45",
    "step3p5": "qwen3_coder",
    "ernie45_moe": "hermes",
    "hy_v4": "hy_v4",
    "kimi_k3": "kimi_k3",
    "inkling": "inkling",
    "minimax_m3": "minimax_m3",
    "solar_open2": "solar_open2",
}

# Where toolwire differs from a peer's expectation on purpose: the case's test id and why.
DIFFERENCES = {
    # A call object without "arguments" is a call with no arguments (as hermes reads it);
    # SGLang drops it.
    "TestGigaChat3Detector.test_detect_and_parse_missing_arguments": "no arguments",
    # Unknown tool names are the tool filter's business (`tools=` with a policy), not the
    # format's: the call is read. SGLang drops it.
    "TestGlm47MoeDetector.test_invalid_tool_call": "unknown tool",
    "TestGlm47MoeDetector.test_error_undefined_tool": "unknown tool",
    # A value no schema types is read as JSON when it is JSON, as in every XML-style format;
    # vLLM's HY v4 parser keeps it as text.
    "TestArgumentValueTypes.test_unknown_tool_keeps_values_as_text": "untyped value",
    "TestArgumentValueTypes.test_no_tools_declared": "untyped value",
    # MiniMax-M3: `018956` is not a JSON number, so it stays text (vLLM: 18956 by the schema);
    # missing closing tags at the end of the text keep the call (SGLang: content).
    "test_non_streaming_nested_tool_call": "number text kept",
    "TestMinimaxM3Malformed.test_truncated_no_closing_tags": "missing closing tags at the end",
    # Solar Open 2 (tests/conformance/deviations.json says why for each).
    "TestExtractToolCalls.test_multiple_arguments_without_schema": "untyped value",
    "TestExtractToolCalls.test_json_like_value_in_arg": "untyped value",
    "TestTypeCoercion.test_unknown_function_falls_back_to_string": "untyped value",
    "TestTypeCoercion.test_unknown_param_falls_back_to_string": "untyped value",
    "TestExtractToolCalls.test_unterminated_block_returns_raw_output": "missing end at the end",
    "TestExtractToolCalls.test_repeated_argument_name_keeps_first_value": "last key wins",
    "TestTypeCoercion.test_boolean[1-True]": "typed as written",
    "TestTypeCoercion.test_boolean[0-False]": "typed as written",
    "TestTypeCoercion.test_literal_null_becomes_none_for_non_string_param": "typed as written",
}

# Peer texts that another format reads on purpose when none is named: prose that names a bare
# `<function=NAME>` (Rapid-MLX's content-passthrough test, one case per parser). The named
# format leaves it as text; auto-detection reads it as a qwen3_coder call the model began and
# broke, an InvalidToolCall (tests/conformance/deviations.json says why).
READ_BY_ANOTHER_FORMAT = {
    "The marker is <function=f> here.",
    "Docs mention </tool_call> and <function=name> together.",
}

# llama.cpp separates `<seed:think>` reasoning; toolwire keeps it in content (see above). vLLM's
# Solar Open 2 parser drops the text after the last call; toolwire keeps it.
CONTENT_DIFFERENCES = {
    "seed_oss",
    "TestExtractToolCalls.test_text_after_last_tool_call_is_not_content",
}


def peer_cases() -> list[dict[str, Any]]:
    with (DATA / "conformance" / "peer_cases.jsonl").open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    # The deviations table's cases are the conformance suite's (`tests/conformance`), but for
    # the ones `DIFFERENCES` names.
    return [
        row
        for row in rows
        if row["format"] in PEER_FORMATS and (row["test"] in DIFFERENCES or not decided(row))
    ]


def tools_of(case: dict[str, Any]) -> list[dict[str, Any]] | None:
    tools = case["tools"]
    if not tools:
        return None
    return [t.get("function", t) for t in tools]


def within(expected: Any, got: Any) -> bool:
    """Whether `got` holds what `expected` asserts (objects: the keys it names, at any depth)."""
    if isinstance(expected, dict):
        return isinstance(got, dict) and all(
            k in got and within(v, got[k]) for k, v in expected.items()
        )
    return bool(expected == got)


def matches(expected: dict[str, Any], call: Any, match: str | None) -> bool:
    if not isinstance(call, toolwire.ToolCall):
        return False
    # A null name is one the peer's test does not assert.
    if expected["name"] is not None and call.name != expected["name"]:
        return False
    if match is None:
        return bool(call.arguments == expected["arguments"])
    return within(expected["arguments"], call.arguments)


@pytest.mark.parametrize(
    "case", peer_cases(), ids=lambda c: f"{c['format']}:{c['source']}:{c['test']}"
)
def test_peer_cases(case: dict[str, Any]) -> None:
    fmt = PEER_FORMATS[case["format"]]
    parsed = toolwire.parse_text(
        case["text"],
        format=fmt,
        tools=tools_of(case),
        starts_in_reasoning=bool(case.get("starts_in_reasoning")),
    )
    valid = [c for c in parsed.calls if isinstance(c, toolwire.ToolCall)]
    expected = case["calls"]
    if case["test"] in DIFFERENCES:
        agrees = len(valid) == len(expected) and all(
            matches(e, c, case["match"]) for e, c in zip(expected, valid, strict=True)
        )
        assert not agrees, "a documented difference no longer differs: drop it"
        return
    if case["match"] == "subset_prefix":
        valid = valid[: len(expected)]
    assert len(valid) == len(expected), parsed.calls
    for e, c in zip(expected, valid, strict=True):
        assert matches(e, c, case["match"]), (e, c)
    if case["content"] is not None and not {case["format"], case["test"]} & CONTENT_DIFFERENCES:
        content = (parsed.content or "").removesuffix("</s>").strip()
        assert content == case["content"].strip()


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("step3p5", "qwen3_coder"),
        ("ernie45_moe", ("hermes", "granite")),
        ("ernie_x1", ("hermes", "granite")),
        ("ernie_45_vl_thinking", ("hermes", "granite")),
        ("qwen3_moe", "hermes"),
        ("step_35", "qwen3_coder"),
        ("deepseek_v3_0324", "deepseek_v3"),
        ("glm47", "glm45"),
        ("ling3", "glm45"),
        ("poolside_v1", "glm45"),
        ("mimo", "qwen3_coder"),
        ("nemotron_nano", "qwen3_coder"),
        ("deepseek_v3_2", "deepseek_dsml"),
        ("nemotron_deci", "nemotron"),
        ("phi4", "phi4_mini"),
        ("gemma_4", "gemma4"),
    ],
)
def test_peer_names_are_aliases(alias: str, name: str | tuple[str, ...]) -> None:
    assert toolwire.FORMAT_ALIASES[alias] == name


NEW = (
    *("seed_oss", "gigachat3", "gigachat35", "longcat", "dots", "muse_glimmer", "step3"),
    *("hy_v4", "kimi_k3", "inkling", "minimax_m3", "solar_open2"),
)


def texts_of(name: str) -> list[tuple[str, list[dict[str, Any]] | None]]:
    """The peer cases and every 3rd corpus rendering of a format, with their tools."""
    texts: list[tuple[str, list[dict[str, Any]] | None]] = [
        (c["text"], tools_of(c))
        for c in peer_cases()
        if PEER_FORMATS[c["format"]] == name and c["text"] not in READ_BY_ANOTHER_FORMAT
    ]
    render = RENDERERS[name]
    for k, case in enumerate(cases()):
        text = render(case, k) if k % 3 == 0 else None
        if text is not None:
            texts.append((text, case["tools"]))
    return texts


def shapes(calls: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (type(c).__name__, c.name, json.dumps(getattr(c, "arguments", None), sort_keys=True))
        for c in calls
    ]


@pytest.mark.parametrize("name", [*NEW, "qwen3_coder", "hermes", "glm45"])
def test_sniffing_picks_the_calls_naming_the_format_does(name: str) -> None:
    texts = (
        texts_of(name)
        if name in NEW
        else [
            (c["text"], tools_of(c))
            for c in peer_cases()
            if PEER_FORMATS[c["format"]] == name and c["text"] not in READ_BY_ANOTHER_FORMAT
        ]
    )
    assert texts
    for text, tools in texts:
        named = toolwire.parse_text(text, format=name, tools=tools).calls
        sniffed = toolwire.extract(text, formats="auto", tools=tools, on_error="keep")
        assert shapes(sniffed) == shapes(named), text


@pytest.mark.parametrize("name", NEW)
def test_the_stream_gives_the_same_calls_in_any_chunks(name: str) -> None:
    rng = random.Random(name)
    for text, tools in texts_of(name)[::4]:
        expected = shapes(toolwire.parse_text(text, format=name, tools=tools).calls)
        for auto in (False, True):
            parser = toolwire.StreamParser(formats="auto" if auto else [name], tools=tools)
            events = []
            pos = 0
            while pos < len(text):
                size = rng.choice((1, 2, 5, 17))
                events += parser.feed(text[pos : pos + size])
                pos += size
            events += parser.finish()
            ends = [
                e.call if e.kind == "tool_call_end" else e
                for e in events
                if e.kind in ("tool_call_end", "invalid_tool_call")
            ]
            got = [(type(c).__name__, c.name) for c in ends]
            assert got == [(kind, n) for kind, n, _ in expected], text


def test_hy_v4_tokens_carry_the_checkpoints_suffix() -> None:
    s = ":6124c78e"
    tools = [{"name": "f", "parameters": {"properties": {"a": {"type": "integer"}}}}]
    pair = f"<arg_key{s}>a</arg_key{s}><arg_value{s}>1</arg_value{s}>"
    text = f"Sure.<tool_calls{s}>\n<tool_call{s}>f{pair}</tool_call{s}>\n</tool_calls{s}>!"
    for fmt in ("auto", "hy_v4"):
        parsed = toolwire.parse_text(text, format=fmt, tools=tools)
        assert [(c.name, c.arguments) for c in parsed.calls] == [("f", {"a": 1})]
        assert parsed.content == "Sure.!"
    # The suffix of the opening tag is required on every tag after it: another suffix is not
    # a closing tag, so the call breaks (and fails alone).
    other = text.replace(f"</arg_value{s}>", "</arg_value:other>")
    [bad] = toolwire.parse_text(other, format="hy_v4").calls
    assert isinstance(bad, toolwire.InvalidToolCall) and "</arg_value:6124c78e>" in bad.error
    # A broken call fails alone; the next is read. A missing closing tag is accepted at the end.
    broken = f"<tool_calls{s}><tool_call{s}>f<arg_key{s}>a</arg_key{s}>x</tool_call{s}>"
    parsed = toolwire.parse_text(broken + f"<tool_call{s}>g")
    assert [type(c).__name__ for c in parsed.calls] == ["InvalidToolCall", "ToolCall"]
    assert parsed.calls[1].name == "g"
    # No suffix (spaced, or nothing before `>`): the text is prose.
    for prose in ("a <tool_calls: x> b", "a <tool_calls:> b"):
        assert toolwire.parse_text(prose).content == prose
    # Unsuffixed tokens are HY v3's wire format, read under this name too.
    plain = "<tool_calls><tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>"
    assert toolwire.parse_text(plain, format="hy_v4").calls[0].arguments == {"a": 1}


def test_hy_v4_suffixed_tool_sep_is_optional() -> None:
    # Hy3's `:opensource` checkpoints write HY v3's `<tool_sep>` after the name, suffixed like
    # every other tag; HY v4's write none. Either way the call is read, on every path.
    s = ":opensource"
    tools = [{"name": "lookup", "parameters": {"properties": {"n": {"type": "integer"}}}}]
    pair = f"<arg_key{s}>n</arg_key{s}>\n<arg_value{s}>7</arg_value{s}>"
    for sep in (f"<tool_sep{s}>", f" <tool_sep{s}>\n", ""):
        text = (
            f"Checking.<tool_calls{s}>\n<tool_call{s}>lookup{sep}\n{pair}\n</tool_call{s}>\n"
            f"<tool_call{s}>ping{sep}</tool_call{s}>\n</tool_calls{s}>"
        )
        want = [("lookup", {"n": 7}), ("ping", {})]
        parsed = toolwire.parse_text(text, format="hy_v4", tools=tools)
        assert [(c.name, c.arguments) for c in parsed.calls] == want
        assert parsed.content == "Checking."
        for sizes in ((1,), (2, 5), (7, 64)):
            parser = toolwire.StreamParser(formats=["hy_v4"], tools=tools)
            events = fed_in_chunks(parser, text, random.Random(text), sizes)
            assert [(c.name, c.arguments) for c in streamed_calls(events)] == want
    # A separator with another suffix is no separator: the call breaks, and fails alone.
    other = f"<tool_calls{s}><tool_call{s}>lookup<tool_sep:x>{pair}</tool_call{s}></tool_calls{s}>"
    [bad] = toolwire.parse_text(other, format="hy_v4").calls
    assert isinstance(bad, toolwire.InvalidToolCall) and bad.name == "lookup"


def test_hy_json_arguments_after_the_separator() -> None:
    # As glm45 reads JSON arguments after a call's name, HY reads them after its `<tool_sep>`,
    # suffixed or not, in a block (Hy3's lone calls write them so).
    s = ":opensource"
    texts = {
        "hy_v3": '<tool_calls><tool_call>f<tool_sep>\n{"a": 1}</tool_call></tool_calls>',
        "hy_v4": f'<tool_calls{s}><tool_call{s}>f<tool_sep{s}>{{"a": 1}}</tool_call{s}>'
        f"</tool_calls{s}>",
    }
    for fmt, text in texts.items():
        for name in ("auto", fmt):
            assert [
                (c.name, c.arguments) for c in toolwire.parse_text(text, format=name).calls
            ] == [("f", {"a": 1})]
            formats = None if name == "auto" else [name]
            assert toolwire.extract(text, formats=formats)[0].arguments == {"a": 1}
            for sizes in ((1,), (3, 8)):
                parser = toolwire.StreamParser(formats=formats)
                events = fed_in_chunks(parser, text, random.Random(text), sizes)
                assert [(c.name, c.arguments) for c in streamed_calls(events)] == [("f", {"a": 1})]


def test_hy3_lone_calls_close_with_their_own_token() -> None:
    # Hy3's preview chat template writes each call alone, closed by `<end_of_tool_call:…>`,
    # its arguments one JSON object or the key/value pairs (Rapid-MLX's Hy3 tests).
    s = ":opensource"
    tools = [{"name": "lookup", "parameters": {"properties": {"n": {"type": "integer"}}}}]
    pair = f"<arg_key{s}>n</arg_key{s}><arg_value{s}>7</arg_value{s}>"
    text = (
        f'Checking.\n<tool_call{s}>lookup<tool_sep{s}>{{"n": 7, "q": "<tool_call{s}>"}}'
        f"<end_of_tool_call{s}><tool_call{s}>lookup<tool_sep{s}>{pair}<end_of_tool_call{s}>"
        f"<tool_call{s}>ping<tool_sep{s}>{{}}<end_of_tool_call{s}>\nDone."
    )
    want = [("lookup", {"n": 7, "q": f"<tool_call{s}>"}), ("lookup", {"n": 7}), ("ping", {})]
    for fmt in ("auto", "hy_v4"):
        parsed = toolwire.parse_text(text, format=fmt, tools=tools)
        assert [(c.name, c.arguments) for c in parsed.calls] == want
        assert parsed.content == "Checking.\n\nDone."
        extracted = toolwire.extract(text, formats=None if fmt == "auto" else [fmt], tools=tools)
        assert [(c.name, c.arguments) for c in extracted] == want
        for sizes in ((1,), (2, 5), (7, 64)):
            parser = toolwire.StreamParser(formats=None if fmt == "auto" else [fmt], tools=tools)
            events = fed_in_chunks(parser, text, random.Random(text), sizes)
            assert [(c.name, c.arguments) for c in streamed_calls(events)] == want
    # Broken JSON, a list, or junk after the JSON: a broken call that keeps its name and text.
    for body in ("{bad json}", "[1]", f'{{"a": 1}}<arg_value{s}>'):
        broken = f"<tool_call{s}>f<tool_sep{s}>{body}<end_of_tool_call{s}>"
        [bad] = toolwire.parse_text(broken, format="hy_v4").calls
        assert isinstance(bad, toolwire.InvalidToolCall) and bad.name == "f"
        assert bad.raw == broken


def test_kimi_k3_calls_in_the_tools_channel() -> None:
    call = (
        '<|open|>call tool="python" index="1"<|sep|>\n'
        '<|open|>argument key="code" type="string"<|sep|>print(1)<|close|>argument<|sep|>\n'
        '<|open|>argument key="opts" type="object"<|sep|>{"a":1}<|close|>argument<|sep|>\n'
        "<|close|>call<|sep|>"
    )
    text = (
        "<|open|>response<|sep|>Running it.<|close|>response<|sep|>"
        f"<|open|>tools<|sep|>\n{call}\n<|close|>tools<|sep|><|close|>message<|sep|>"
    )
    want = [("python", {"code": "print(1)", "opts": {"a": 1}})]
    for fmt in ("auto", "kimi_k3"):
        parsed = toolwire.parse_text(text, format=fmt)
        assert [(c.name, c.arguments) for c in parsed.calls] == want
        assert parsed.content == "Running it."
    # `type="string"` keeps the text even where the schema says integer; another type is typed
    # by the schema.
    tools = [{"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}]
    args = (
        '<|open|>argument key="s" type="string"<|sep|>42<|close|>argument<|sep|>'
        '<|open|>argument key="n" type="integer"<|sep|>7<|close|>argument<|sep|>'
    )
    text = f'<|open|>tools<|sep|><|open|>call tool="f"<|sep|>{args}<|close|>call<|sep|>'
    [got] = toolwire.parse_text(text, tools=tools).calls
    assert got.arguments == {"s": "42", "n": 7}
    # Attribute values are escaped by the template and read back unescaped.
    args = '<|open|>argument key="say &quot;hi&quot; &amp; go" type="integer"<|sep|>1'
    text = f'<|open|>tools<|sep|><|open|>call tool="a&amp;b"<|sep|>{args}<|close|>argument<|sep|>'
    [got] = toolwire.parse_text(text).calls
    assert (got.name, got.arguments) == ("a&b", {'say "hi" & go': 1})
    # A call without a tool name fails alone, keeping its text.
    text = "<|open|>tools<|sep|><|open|>call<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"
    [bad] = toolwire.parse_text(text).calls
    assert isinstance(bad, toolwire.InvalidToolCall) and "tool=" in bad.error


def test_inkling_messages() -> None:
    text = (
        "<|content_thinking|>Paris, then.<|end_message|>"
        "<|message_model|><|content_text|>Checking.<|end_message|>"
        '<|message_model|>weather<|content_invoke_tool_json|>{"name": "weather", "args": {"city":'
        ' "Paris"}}<|end_message|><|content_model_end_sampling|>'
    )
    for fmt in ("auto", "inkling"):
        parsed = toolwire.parse_text(text, format=fmt)
        assert [(c.name, c.arguments) for c in parsed.calls] == [("weather", {"city": "Paris"})]
        assert (parsed.content, parsed.reasoning) == ("Checking.", "Paris, then.")
    # A message that is neither a reply token nor a call is a reply; a broken call fails and
    # keeps its text.
    parsed = toolwire.parse_text("<|message_model|>Plain answer.<|end_message|>")
    assert (parsed.calls, parsed.content) == ([], "Plain answer.")
    broken = "<|message_model|>f<|content_invoke_tool_json|>{oops<|end_message|>"
    [bad] = toolwire.parse_text(broken + "<|message_model|><|content_text|>x").calls
    assert isinstance(bad, toolwire.InvalidToolCall) and "{oops" in bad.raw


def test_minicpm5_params_in_hermes_function_name_tag() -> None:
    tools = [{"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}]
    text = (
        'Sure.<function name="f">\n  <param name="n">3</param>\n'
        '  <param name="s"><![CDATA[a\nb]]></param>\n</function>\nDone.'
    )
    for fmt in ("auto", "minicpm5", "hermes"):
        parsed = toolwire.parse_text(text, format=fmt, tools=tools)
        assert [(c.name, c.arguments) for c in parsed.calls] == [("f", {"n": 3, "s": "a\nb"})]
        assert parsed.content == "Sure.\nDone."
    # Streamed, the call is announced at its name; its arguments come as the decoded JSON.
    parser = toolwire.StreamParser(tools=tools)
    events = [e for ch in text for e in parser.feed(ch)] + parser.finish()
    assert [e.kind for e in events if e.kind.startswith("tool")] == [
        "tool_call_start",
        "tool_call_delta",
        "tool_call_end",
    ]
    assert "".join(e.text for e in events if e.kind == "text_delta") == "Sure.\nDone."
    # No parameters is a call with none; a parameter without a name, or cut off, fails the call.
    assert toolwire.extract('<function name="f"></function>')[0].arguments == {}
    for broken in (
        '<function name="f"><param>1</param></function>',
        '<function name="f"><param name="a">1',
    ):
        [bad] = toolwire.extract(broken, on_error="keep")
        assert isinstance(bad, toolwire.InvalidToolCall), broken


def test_seed_oss_types_values_by_the_schema() -> None:
    text = (
        "<seed:tool_call>\n<function=f>\n<parameter=n>\n7\n</parameter>\n"
        "<parameter=s>\n7\n</parameter>\n</function>\n</seed:tool_call>"
    )
    tools = [
        {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
            },
        }
    ]
    [call] = toolwire.extract(text, tools=tools)
    assert call.arguments == {"n": 7, "s": "7"}
    [call] = toolwire.extract(text)
    assert call.arguments == {"n": 7, "s": 7}


def test_gigachat3_reads_one_call_per_message_and_leaves_other_messages() -> None:
    text = (
        "Sure.<|message_sep|>\n\nfunction call<|role_sep|>\n"
        '{"name": "f", "arguments": {"a": 1}}</s>'
    )
    parsed = toolwire.parse_text(text)
    [call] = parsed.calls
    assert isinstance(call, toolwire.ToolCall)
    assert (call.name, call.arguments) == ("f", {"a": 1})
    assert parsed.content == "Sure."
    other = "Hello<|message_sep|>\n\nassistant<|role_sep|>\nplain"
    assert toolwire.parse_text(other).calls == []
    assert toolwire.parse_text(other).content == other
    broken = '<|function_call|>{"name": "f", "arguments": {invalid}}'
    [invalid] = toolwire.parse_text(broken, format="gigachat3").calls
    assert isinstance(invalid, toolwire.InvalidToolCall)
    assert invalid.name == "f" or invalid.name is None


def test_gigachat35_strings_and_json_values() -> None:
    g = "<\uff5cGCML\uff5c"
    text = (
        f'{g}tool_calls>{g}invoke name="f">'
        f'{g}parameter name="s" string="true">42</{g[1:]}parameter>'
        f'{g}parameter name="n" string="false">42</{g[1:]}parameter>'
        f"</{g[1:]}invoke></{g[1:]}tool_calls>"
    )
    [call] = toolwire.extract(text)
    assert (call.name, call.arguments) == ("f", {"s": "42", "n": 42})


def test_markers_in_code_spans_are_prose() -> None:
    markers = (
        "<seed:tool_call>",
        "<|function_call|>",
        "<\uff5cGCML\uff5ctool_calls>",
        "<longcat_tool_call>",
        "<dots_function_call>",
        "<atem:function_calls>",
        "<\uff5ctool_calls_begin\uff5c>",
    )
    for marker in markers:
        assert toolwire.extract(f"Write `{marker}` to call a tool.") == []


M3 = "]<]minimax[>["


def test_step3_skips_an_entry_of_another_kind() -> None:
    # Step-3 frames each call in its call tokens (`function` and the separator); an entry of
    # another kind (SGLang's compatibility tests: a `thought`) holds no invoke and is skipped,
    # so the call after it is read on every path, in any chunks. Cut short, it stays broken.
    begin, sep, end = (
        "<\uff5ctool_call_begin\uff5c>",
        "<\uff5ctool_sep\uff5c>",
        "<\uff5ctool_call_end\uff5c>",
    )
    entry = f"{begin}thought{sep}hmm{end}\n"
    param = '<steptml:parameter name="a">1</steptml:parameter>'
    call = f'{begin}function{sep}<steptml:invoke name="f">{param}</steptml:invoke>{end}'
    text = f"<\uff5ctool_calls_begin\uff5c>\n{entry}{call}<\uff5ctool_calls_end\uff5c>"
    rng = random.Random(5)
    [read] = toolwire.parse_text(text, format="step3").calls
    assert (read.name, read.arguments) == ("f", {"a": 1})
    for _ in range(5):
        size = rng.randint(1, 9)
        stream = toolwire.StreamParser(formats=["step3"])
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        events = [e for piece in pieces for e in stream.feed(piece)] + stream.finish()
        assert [e.call.name for e in events if e.kind == "tool_call_end"] == ["f"]
        assert not [e for e in events if e.kind in ("invalid_tool_call", "text_delta")]
    cut = text[: text.index("hmm") + 2]
    [bad] = toolwire.parse_text(cut, format="step3").calls
    assert isinstance(bad, toolwire.InvalidToolCall)


def test_minimax_m3_marker_is_found_at_its_first_angle_bracket() -> None:
    # The marker begins with `]`, not a stop byte: text mode and sniffing find it at its `<`,
    # looking back over the `]`, in any chunks; the `<tool_call>` inside it is no Hermes call.
    call = f'{M3}<tool_call>\n{M3}<invoke name="f">{M3}<a>1{M3}</a>{M3}</invoke>\n{M3}</tool_call>'
    rng = random.Random(3)
    for prose in ("", "See [x] and ] < here.\n", "a]", "]]"):
        text = prose + call + " done]"
        parsed = toolwire.parse_text(text)
        assert [(c.name, c.arguments) for c in parsed.calls] == [("f", {"a": 1})], text
        assert parsed.content == prose + " done]"
        assert [c.name for c in toolwire.extract(text)] == ["f"]
        for chunks in (list(text), [text[: len(prose) + 1], text[len(prose) + 1 :]]):
            check = toolwire.StreamParser()
            events = [e for chunk in chunks for e in check.feed(chunk)] + check.finish()
            content = "".join(e.text for e in events if e.kind == "text_delta")
            assert content == parsed.content, chunks
            assert [e.call.name for e in events if e.kind == "tool_call_end"] == ["f"]
        size = rng.randint(1, 7)
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        stream = toolwire.StreamParser(formats=["minimax_m3"])
        events = [e for piece in pieces for e in stream.feed(piece)] + stream.finish()
        assert [e.call.arguments for e in events if e.kind == "tool_call_end"] == [{"a": 1}]
    # A `]` that ends a chunk is held only until the next one shows it is prose; the end of
    # the text releases it (SGLang's `[SILENCE]` case).
    stream = toolwire.StreamParser()
    events = stream.feed("[SIL") + stream.feed("ENCE]")
    assert "".join(e.text for e in events if e.kind == "text_delta") == "[SILENCE"
    assert [e.text for e in stream.finish() if e.kind == "text_delta"] == ["]"]
    # In a code span, or cut short, it is prose.
    for text in (f"Write `{M3}<tool_call>` first.", f"plain {M3}<tool_ca"):
        assert toolwire.extract(text) == []
        assert toolwire.parse_text(text).content == text


def test_minimax_m3_elements_and_lenient_closing() -> None:
    tools = [
        {
            "name": "g",
            "parameters": {"properties": {"n": {"type": "string"}, "k": {"type": "integer"}}},
        }
    ]
    body = (
        f"{M3}<n>007{M3}</n>{M3}<k>7{M3}</k>{M3}<o>{M3}<x>1{M3}</x>{M3}<x>2{M3}</x>{M3}</o>"
        f"{M3}<l>{M3}<item>true{M3}</item>{M3}</l>{M3}<w>a{M3}</wrong>{M3}<e>{M3}</e>"
    )
    text = f'{M3}<tool_call>{M3}<invoke name="g">{body}{M3}</invoke>{M3}</tool_call>'
    [call] = toolwire.parse_text(text, tools=tools).calls
    assert call.arguments == {
        "n": "007",
        "k": 7,
        "o": {"x": [1, 2]},
        "l": [True],
        "w": "a",
        "e": "",
    }
    # An invoke without a name fails alone; the next one is read.
    invokes = f'{M3}<invoke>{M3}</invoke>{M3}<invoke name="h">{M3}</invoke>'
    broken = f"{M3}<tool_call>{invokes}{M3}</tool_call>"
    bad, good = toolwire.parse_text(broken).calls
    assert isinstance(bad, toolwire.InvalidToolCall)
    assert (good.name, good.arguments) == ("h", {})
    # Nesting beyond 64 levels is a failed call, not a crash.
    deep = "".join(f"{M3}<a>" for _ in range(200))
    [bad] = toolwire.parse_text(f'{M3}<tool_call>{M3}<invoke name="d">{deep}').calls
    assert isinstance(bad, toolwire.InvalidToolCall)


def test_minimax_m3_list_parameter_whatever_its_elements_are_called() -> None:
    # A parameter the schema types as a list holds items, whatever the model called their
    # elements (SGLang's compatibility tests: `<element>` beside `<item>`); untyped, it is an
    # object of its elements, as before.
    tools = [{"name": "f", "parameters": {"properties": {"l": {"type": "array"}}}}]
    items = f"{M3}<item>a{M3}</item>{M3}<element>b{M3}</element>"
    invoke = f'{M3}<invoke name="f">{M3}<l>{items}{M3}</l>{M3}</invoke>'
    text = f"{M3}<tool_call>{invoke}{M3}</tool_call>"
    stream = toolwire.StreamParser(formats=["minimax_m3"], tools=tools)
    events = [e for ch in text for e in stream.feed(ch)] + stream.finish()
    for calls in (
        toolwire.extract(text, tools=tools),
        toolwire.parse_text(text, tools=tools).calls,
        [e.call for e in events if e.kind == "tool_call_end"],
    ):
        assert [c.arguments for c in calls] == [{"l": ["a", "b"]}]
    [call] = toolwire.parse_text(text).calls
    assert call.arguments == {"l": {"item": "a", "element": "b"}}


def _k3_call(value: str, *, arg_close: bool = True, call_close: bool = True) -> str:
    return (
        '<|open|>call tool="sh" index="1"<|sep|><|open|>argument key="cmd" type="string"<|sep|>'
        + value
        + ("<|close|>argument<|sep|>" if arg_close else "")
        + ("<|close|>call<|sep|>" if call_close else "")
    )


_K3_OPEN, _K3_CLOSE = "<|open|>tools<|sep|>", "<|close|>tools<|sep|>"
_LS, _PWD = _k3_call("ls"), _k3_call("pwd")

# Kimi K3 markup the model left open, each text with its calls (a command, or None for an
# InvalidToolCall) and content: what ends the call or section left open, and the prose or
# think channel between calls.
K3_LEFT_OPEN = [
    # A new section opened inside one never closed.
    (f"{_K3_OPEN}{_LS}{_K3_OPEN}{_PWD}{_K3_CLOSE}", ["ls", "pwd"], ""),
    # The message's close ends a section left open.
    (f"{_K3_OPEN}{_LS}<|close|>message<|sep|>", ["ls"], ""),
    # A think channel between calls is reasoning; the calls after it are read.
    (
        f"{_K3_OPEN}{_LS}<|open|>think<|sep|>hmm<|close|>think<|sep|>{_PWD}{_K3_CLOSE}",
        ["ls", "pwd"],
        "",
    ),
    # Prose between calls is content; prose after a call ends a section left open.
    (f"{_K3_OPEN}{_LS}\nThen:\n{_PWD}{_K3_CLOSE}", ["ls", "pwd"], "Then:"),
    (f"{_K3_OPEN}{_LS}and then I", ["ls"], "and then I"),
    # A value whose close is left out ends at the call's close: the next call is its own.
    (f"{_K3_OPEN}{_k3_call('pwd', arg_close=False)}{_LS}{_K3_CLOSE}", ["pwd", "ls"], ""),
    # The reply's close ends a value or a call left open.
    (
        f"Checking:{_K3_OPEN}{_k3_call('x = 1;', arg_close=False, call_close=False)}"
        "<|close|>response<|sep|><|close|>message<|sep|><|end_of_msg|>",
        ["x = 1;"],
        "Checking:",
    ),
    (f"{_K3_OPEN}{_k3_call('ls', call_close=False)}<|close|>response<|sep|>", ["ls"], ""),
    # A closing tag followed by text is the value's own (a command that quotes it).
    (f"{_K3_OPEN}{_k3_call(f'echo {_K3_CLOSE} ok')}{_K3_CLOSE}", [f"echo {_K3_CLOSE} ok"], ""),
    # A value the text cuts short still fails, keeping its text, after the call before it.
    (f"{_K3_OPEN}{_LS}{_k3_call('rm -', arg_close=False, call_close=False)}", ["ls", None], ""),
    # A broken call left open ends where the next call opens: it fails alone.
    (
        f'{_K3_OPEN}<|open|>call<|sep|><|open|>argument key="a"<|sep|>1<|close|>argument<|sep|>'
        f"{_LS}{_K3_CLOSE}",
        [None, "ls"],
        "",
    ),
    (f'{_K3_OPEN}<|open|>call tool="sh"<|sep|>junk{_LS}{_K3_CLOSE}', [None, "ls"], ""),
    (f'{_K3_OPEN}<|open|>call tool="sh"<|sep|>junk<|close|>message<|sep|>', [None], ""),
    # Markup that is not a call, between calls, fails alone too.
    (f"{_K3_OPEN}{_LS}<b>note</b>{_PWD}{_K3_CLOSE}", ["ls", None, "pwd"], ""),
]


@pytest.mark.parametrize(("text", "commands", "content"), K3_LEFT_OPEN)
def test_kimi_k3_markup_left_open_reads_on_every_path(
    text: str, commands: list[str | None], content: str
) -> None:
    def read(calls: list[Any]) -> list[str | None]:
        # A failed call keeps its own markup, never the next call's.
        invalid = [c.raw for c in calls if isinstance(c, toolwire.InvalidToolCall)]
        assert all(raw.count("<|open|>call") <= 1 for raw in invalid), invalid
        return [c.arguments["cmd"] if isinstance(c, toolwire.ToolCall) else None for c in calls]

    for fmt in ("auto", "kimi_k3"):
        formats = fmt if fmt == "auto" else [fmt]
        parsed = toolwire.parse_text(text, format=fmt)
        assert (read(parsed.calls), parsed.content.strip()) == (commands, content)
        assert read(toolwire.extract(text, formats=formats, on_error="keep")) == commands
        for sizes in ((1,), (2, 3, 7, 40)):
            parser = toolwire.StreamParser(formats=formats)
            events = fed_in_chunks(parser, text, random.Random(text), sizes)
            streamed = "".join(e.text for e in events if e.kind == "text_delta")
            assert (read(streamed_calls(events)), streamed.strip()) == (commands, content)
    if "think" in text:
        assert toolwire.parse_text(text).reasoning == "hmm"
