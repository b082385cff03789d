"""The variants the later sources found (issue 22), on every path: the SGLang model gateway,
mlx-lm, LocalAI, mlx-swift-lm, transformers, the formats the engines read that toolwire did not,
and this session's sources (OpenVINO Model Server, mistral.rs, NVIDIA Dynamo, Xorbits Inference,
llama-stack, FastDeploy, mlx-openai-server, xLLM)."""

from __future__ import annotations

from typing import Any

import pytest
import toolwire
from paths import read


def test_cohere_action_in_the_generic_call_shape() -> None:
    # The SGLang gateway's Cohere tests: `name`/`arguments` in an action, beside Cohere's own
    # `tool_name`/`parameters`; both spellings of one field at once are ambiguous.
    text = '<|START_ACTION|>{"name": "test", "arguments": {"key": "value"}}<|END_ACTION|>'
    assert read(text, "command_r7b") == ([("test", {"key": "value"})], "")
    text = '[{"name": "a", "parameters": {"x": 1}}, {"tool_name": "b"}]'
    assert read(f"<|START_ACTION|>{text}<|END_ACTION|>", "command_r7b") == (
        [("a", {"x": 1}), ("b", {})],
        "",
    )
    for body in (
        '{"tool_name": "a", "name": "b", "parameters": {}}',
        '{"tool_name": "a", "parameters": {}, "arguments": {"x": 1}}',
    ):
        calls, content = read(f"<|START_ACTION|>{body}<|END_ACTION|>", "command_r7b")
        assert [c[0] for c in calls] == ["invalid"] and content == "", body


def test_kimi_k3_response_markers_spaced_by_the_detokenizer() -> None:
    # A detokenizer that puts spaces between special tokens writes `<|open|> response <|sep|>`.
    text = "<|open|> response <|sep|>answer<|close|> response <|sep|>"
    assert read(text, "kimi_k3") == ([], "answer")
    text += '<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|><|close|>call<|sep|>'
    assert read(text + "<|close|>tools<|sep|>", "kimi_k3") == ([("f", {})], "answer")


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("qwen_xml", "qwen3_coder"),
        ("qwen_coder", "qwen3_coder"),
        ("glm45_moe", "glm45"),
        ("glm47_moe", "glm45"),
        ("llama", "llama3_json"),
        ("deepseek", "deepseek_v3"),
        ("deepseek31", "deepseek_v31"),
        ("deepseek32", "deepseek_dsml"),
        ("cohere", "command_r7b"),
        ("json", ("raw_json", "hermes")),
    ],
)
def test_the_sglang_gateway_parser_names(alias: str, name: Any) -> None:
    assert toolwire.FORMAT_ALIASES[alias] == name
    text = '{"name": "f", "arguments": {"a": 1}}'
    if alias == "json":
        assert toolwire.parse_text(text, format="json").calls[0].arguments == {"a": 1}


# DeepSeek's DSML token, its full-width bars written as escapes.
DSML = "\uff5cDSML\uff5c"


@pytest.mark.parametrize(
    "close", [f"</{DSML}function_calls>", f"</{DSML}tool_calls>", f"</{DSML} calls>"]
)
def test_a_stray_dsml_block_close_is_a_control_token(close: str) -> None:
    # As a stray `</minimax:tool_call>` or `</dots_function_call>` is (the SGLang gateway's
    # DSML streaming tests send one alone).
    assert read(close, "deepseek_dsml") == ([], "")
    assert read(f"Done.{close} Next.", "deepseek_dsml") == ([], "Done. Next.")
    block = f'<{DSML}tool_calls><{DSML}invoke name="f"></{DSML}invoke></{DSML}tool_calls>'
    assert read(f"{block}{close}", "deepseek_dsml") == ([("f", {})], "")


@pytest.mark.parametrize(
    ("fmt", "start", "end", "quote"),
    [
        ("gemma4", "<|tool_call>", "<tool_call|>", '<|"|>'),
        ("function_gemma", "<start_function_call>", "<end_function_call>", "<escape>"),
    ],
)
def test_calls_written_one_after_another_in_one_gemma_block(
    fmt: str, start: str, end: str, quote: str
) -> None:
    # mlx-lm's test_gemma4: two calls in one start token, no delimiter between them.
    q = quote
    body = f"call:glob{{pattern:{q}a {{b}}{q}}}call:ls{{}} call:cd{{path:{q}/x{q}}}"
    calls, content = read(f"Sure.{start}{body}{end} Done.", fmt)
    assert calls == [("glob", {"pattern": "a {b}"}), ("ls", {}), ("cd", {"path": "/x"})]
    assert content == "Sure. Done."
    # A broken second call fails alone; the first is read.
    calls, _ = read(f"{start}call:a{{x:1}}call:b{{y:{q}open}}{end}", fmt)
    assert calls[0] == ("a", {"x": 1}) and calls[1][0] == "invalid" and len(calls) == 2


@pytest.mark.parametrize("newline", ["", "\n"])
def test_longcat_pairs_and_json_calls(newline: str) -> None:
    # mlx-lm's longcat parser: glm45's pairs spelled with LongCat's tags, or a JSON call.
    pairs = (
        f"<longcat_tool_call>multiply{newline}<longcat_arg_key>a</longcat_arg_key>{newline}"
        "<longcat_arg_value>12</longcat_arg_value>\n<longcat_arg_key>s</longcat_arg_key>"
        "<longcat_arg_value>x </arg_value> y</longcat_arg_value></longcat_tool_call>"
    )
    json_call = '<longcat_tool_call>{"name": "f", "arguments": {"a": 1}}</longcat_tool_call>'
    bare = "<longcat_tool_call>now\n</longcat_tool_call>"
    calls, content = read(f"Hi {pairs} {json_call} {bare} bye", "longcat")
    assert calls == [
        ("multiply", {"a": 12, "s": "x </arg_value> y"}),
        ("f", {"a": 1}),
        ("now", {}),
    ]
    assert content == "Hi    bye"
    # glm45's own tags are not LongCat's.
    glm = "<longcat_tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></longcat_tool_call>"
    calls, _ = read(glm, "longcat")
    assert calls[0][0] == "invalid"


def test_mistral_v11_calls_written_one_after_another_without_their_token() -> None:
    # mlx-lm's test_mistral (PR 1448): `a[ARGS]{…}b[ARGS]{…}` is two calls.
    text = '[TOOL_CALLS]a[ARGS]{"x": 1}b[CALL_ID]abc123XYZ[ARGS]{"y": 2}c[ARGS]{}[TOOL_CALLS]d{} ok'
    calls, content = read(text, "mistral")
    assert calls == [("a", {"x": 1}), ("b", {"y": 2}), ("c", {}), ("d", {})]
    assert content == "ok"
    # Only a name and the [ARGS] or [CALL_ID] token continue the calls: prose, a name with its
    # [ARGS] dropped, or a line break, do not.
    for after in ["Sure thing", "b", 'b{"y": 2}', '\nb[ARGS]{"y": 2}', "bb[ARG"]:
        calls, content = read('[TOOL_CALLS]a[ARGS]{"x": 1}' + after, "mistral")
        assert calls == [("a", {"x": 1})] and content == after.strip(), after
    calls, _ = read('[TOOL_CALLS]a[ARGS]{"x": 1}b[ARGS]nope', "mistral")
    assert calls[0] == ("a", {"x": 1}) and calls[1][:2] == ("invalid", "b") and len(calls) == 2


def test_a_json_call_in_qwen3_coders_tag_is_read() -> None:
    # mlx-swift-lm's Qwen3.5 tests: Qwen3.5 at times writes Qwen's JSON call in its <tool_call>.
    text = (
        'Hi <tool_call>{"name": "f", "arguments": {"s": "a } <function=x>"}}</tool_call>'
        "<tool_call>\n<function=g>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
        '<tool_call>{"name": "h", "arguments": {"b": 2}}'
    )
    calls, content = read(text, "qwen3_coder")
    assert calls == [("f", {"s": "a } <function=x>"}), ("g", {"a": 1}), ("h", {"b": 2})]
    assert content == "Hi"
    calls, _ = read('<tool_call>{"name": "f", "arguments": {}</tool_call>', "qwen3_coder")
    assert [c[0] for c in calls] == ["invalid"]


def test_lfm2_arguments_wrapped_in_properties_are_unwrapped_by_the_schema() -> None:
    # mlx-swift-lm's LFM2 tests: `f(properties={…})` holds the whole arguments object.
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"properties": {"location": {"type": "string"}}},
            },
        }
    ]
    text = '<|tool_call_start|>[get_weather(properties={"location": "Tokyo"})]<|tool_call_end|>'
    calls, _ = read(text, "lfm2", tools=tools)
    assert calls == [("get_weather", {"location": "Tokyo"})]
    # Without tools=, or beside another argument, `properties` is the parameter's own name.
    calls, _ = read(text, "lfm2")
    assert calls == [("get_weather", {"properties": {"location": "Tokyo"}})]
    other = text.replace("})", "}, units='c')")
    calls, _ = read(other, "lfm2", tools=tools)
    assert calls == [("get_weather", {"properties": {"location": "Tokyo"}, "units": "c"})]


def test_a_list_of_call_objects_after_the_python_tag_is_calls() -> None:
    # mlx-swift-lm's Llama 3 test: several calls as one JSON list after `<|python_tag|>`.
    listed = '[{"name": "f", "parameters": {"a": 1}}, {"name": "g", "parameters": {}}]'
    assert read(f"<|python_tag|>{listed}<|eom_id|>", "llama3_json") == (
        [("f", {"a": 1}), ("g", {})],
        "",
    )
    # An entry that is not a call is an invalid call of its own; the others are read.
    calls, _ = read('<|python_tag|>[{"name": "f", "parameters": {}}, 3]', "llama3_json")
    assert [c[:2] for c in calls] == [("f", {}), ("invalid", None)]
    # A list with no call object in it is code, as before.
    assert read("<|python_tag|>[1, 2]", "llama3_json")[0] == [("python", {"code": "[1, 2]"})]


def test_step_audio_2_calls_are_glm45_calls_after_a_type_line() -> None:
    # Step-Audio 2's chat template writes `<tool_call>function\nNAME\n{json}</tool_call>`: the
    # first line is the call's type, the tool's name is on the next line (vLLM's and SGLang's
    # `step_audio_2` parsers split the body so).
    text = (
        "Let me check the weather for you.\n<tool_call>function\nget_weather\n"
        '{"location": "Shanghai"}</tool_call>\nI\'ll get that information for you.'
    )
    for fmt in ("step_audio_2", "glm45"):
        calls, content = read(text, fmt)
        assert calls == [("get_weather", {"location": "Shanghai"})]
        assert content == (
            "Let me check the weather for you.\n\nI'll get that information for you."
        )
    two = (
        '<tool_call>function\nget_weather\n{"location": "Shanghai"}</tool_call>'
        '<tool_call>function\nsearch\n{"query": "weather forecast"}</tool_call><|EOT|>'
    )
    calls, content = read(two, "step_audio_2")
    assert [c[0] for c in calls] == ["get_weather", "search"]
    assert content == ""  # its end of turn, `<|EOT|>`, is a control token
    assert toolwire.FORMAT_ALIASES["step_audio_2"] == "glm45"
    # Sniffed too: `<tool_call>` then a name is glm45's shape.
    assert [c.name for c in toolwire.extract(two)] == ["get_weather", "search"]


def test_a_glm_tool_named_function_is_still_that_tool() -> None:
    # Only a name line followed by JSON arguments makes `function` a type line: GLM's pairs
    # after `function` call the tool `function`, and a second line that is not a bare name
    # leaves the call as glm45 reads it (a failed call, never another tool).
    pairs = "<tool_call>function\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>"
    assert read(pairs, "glm45")[0] == [("function", {"a": 1})]
    laguna = '<tool_call>function\n{"a": 1}</tool_call>'
    assert read(laguna, "glm45")[0] == [("function", {"a": 1})]
    two_words = '<tool_call>function\nget weather\n{"a": 1}</tool_call>'
    calls, _ = read(two_words, "glm45")
    assert [c[0] for c in calls] == ["invalid"]
    cut = "<tool_call>function\nget_weather\n"
    calls, _ = read(cut, "step_audio_2")
    assert [c[0] for c in calls] == ["invalid"]


def test_exaone_moe_fences_its_json_in_the_hermes_tag() -> None:
    # K-EXAONE writes hermes's `<tool_call>` JSON, at times in a ```json fence inside the tag
    # (llama.cpp's EXAONE_MOE format reads both; vLLM serves the model with `hermes`).
    call = '{"name": "f", "arguments": {"a": 1}}'
    for body in (f"```json\n{call}\n```", f"\n```\n{call}\n```\n"):
        text = f"Sure.\n<tool_call>{body}</tool_call>\nDone."
        for fmt in ("exaone_moe", "hermes"):
            calls, content = read(text, fmt)
            assert calls == [("f", {"a": 1})]
            assert content == "Sure.\n\nDone."
    assert toolwire.FORMAT_ALIASES["exaone_moe"] == "hermes"
    # A fence that names another language is no JSON body: the call is broken, never run.
    xml = '<tool_call>```xml\n{"name": "f", "arguments": {"a": 1}}\n```</tool_call>'
    assert [c[0] for c in read(xml, "hermes")[0]] == ["invalid"]


def test_generic_is_llamacpp_generic() -> None:
    # llama.cpp's chat format `Generic` is toolwire's `llamacpp_generic`.
    assert toolwire.FORMAT_ALIASES["generic"] == "llamacpp_generic"
    answer = '{"response": "Hello"}'
    assert toolwire.parse_text(answer, format="generic").content == "Hello"
    call = '{"tool_call": {"name": "f", "arguments": {"a": 1}}}'
    assert [c.name for c in toolwire.extract(call, formats=["Generic"])] == ["f"]


def test_rwkv_earlier_spelling_is_a_call_object_on_the_line_after_the_tag() -> None:
    # RWKV's earlier spelling (vLLM's rwkv parser reads it): `<tool_call>`, then the call
    # object on one line, a Python dict or JSON, no closing tag. The arguments stay as written.
    text = (
        "Need to inspect the file.\n<tool_call>\n"
        "{'arguments': {'filePath': 'calculator.py'}, 'name': 'read', 'type': 'tool_call'}\n"
        "Then I will fix it."
    )
    calls, content = read(text, "rwkv")
    assert calls == [("read", {"filePath": "calculator.py"})]
    assert content == "Need to inspect the file.\nThen I will fix it."
    closed = '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>\nDone.'
    calls, content = read(closed, "rwkv")
    assert calls == [("f", {"a": 1})]
    assert content == "Done."
    # A tag that holds no object is prose; a broken object is a failed call, never run.
    assert read("Write <tool_call> before a call.", "rwkv") == (
        [],
        "Write <tool_call> before a call.",
    )
    broken = "<tool_call>\n{'name': 'f', 'arguments': {'a': 1}\nmore"
    calls, _ = read(broken, "rwkv")
    assert [c[0] for c in calls] == ["invalid"]
    # Where hermes is read too, the tag is hermes's (a Python dict is no JSON: a failed call).
    calls, _ = read(text, "hermes")
    assert [c[0] for c in calls] == ["invalid"]


def test_solar_open_calls_keep_their_id_and_the_turn_tokens_are_not_content() -> None:
    # Upstage Solar Open 100B: `<|tool_calls|>` then `<|tool_call:begin|>ID<|tool_call:name|>`
    # NAME `<|tool_call:args|>` JSON `<|tool_call:end|>`, the turn ended by `<|calls|>`.
    call = "<|tool_call:begin|>{}<|tool_call:name|>{}<|tool_call:args|>{}<|tool_call:end|>"
    text = (
        "Let me check.<|end|><|begin|>assistant<|tool_calls|>"
        + call.format("a1b2c3d4e5", "get_weather", '{"city": "Seoul"}')
        + call.format("f6g7h8i9j0", "get_time", '{"tz": "UTC"}')
        + "<|calls|>"
    )
    calls, content = read(text, "solar_open")
    assert calls == [("get_weather", {"city": "Seoul"}), ("get_time", {"tz": "UTC"})]
    assert content == "Let me check."
    assert [c.id for c in toolwire.extract(text, formats=["solar_open"])] == [
        "a1b2c3d4e5",
        "f6g7h8i9j0",
    ]
    # Sniffed too; a call written without the section, its end token cut off, still reads.
    cut = call.format("x", "f", '{"a": 1}')[: -len("<|tool_call:end|>")]
    assert [c.name for c in toolwire.extract(cut)] == ["f"]


def test_rwkv_earliest_spelling_is_minimax_invokes_in_the_tag() -> None:
    # The spelling vLLM's first RWKV parser read (its tests at 38a442be): MiniMax-M2's invokes
    # inside `<tool_call>`; values typed by the schema, as in the other invoke formats.
    tools = [
        {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        }
    ]
    text = (
        'I\'ll check.\n<tool_call>\n<invoke name="get_weather">\n'
        '<parameter name="city">杭州</parameter>\n<parameter name="days">2</parameter>\n'
        "</invoke>\n</tool_call>\nDone."
    )
    calls, content = read(text, "rwkv", tools=tools)
    assert calls == [("get_weather", {"city": "杭州", "days": 2})]
    assert content == "I'll check.\n\nDone."
    # Another tag after the tag is no call: prose.
    assert read("<tool_call><b>bold</b>", "rwkv") == ([], "<tool_call><b>bold</b>")


def test_sarashina_python_list_after_its_token_or_opening_the_message() -> None:
    # SB Intuitions Sarashina: a Python-literal list of call dicts after `<|tool_calls|>`, a
    # special token detokenizers drop, so a message that starts with the list is read too.
    listed = "[{'name': 'f', 'arguments': {'a': True, 'b': None}}, {'name': 'g', 'arguments': {}}]"
    expected = [("f", {"a": True, "b": None}), ("g", {})]
    assert read("Sure.<|tool_calls|>" + listed, "sarashina") == (expected, "Sure.")
    assert read(listed, "sarashina") == (expected, "")
    # One dict is a list of one; an empty list is no call.
    assert read("<|tool_calls|>{'name': 'f', 'arguments': {'a': 1}}", "sarashina")[0] == [
        ("f", {"a": 1})
    ]
    assert read("<|tool_calls|>[]", "sarashina") == ([], "")
    # A bare list is a call list only when its first item is a dict with a name; a JSON list is
    # raw JSON's (read where raw JSON is), and after prose a bare list is prose.
    assert read("[{'id': 1}]", "sarashina") == ([], "[{'id': 1}]")
    # A list of records (a name, no arguments) is data, as raw JSON reads a JSON one.
    records = "[{'name': 'Alice', 'age': 3}]"
    assert read(records, "sarashina") == ([], records)
    assert toolwire.extract(records) == []
    assert read('[{"name": "f", "arguments": {}}]', "sarashina")[0] == []
    assert read("Here: " + listed, "sarashina")[0] == []
    # Where the literal breaks, the items before it are calls and the rest one failure.
    calls, _ = read("[{'name': 'f', 'arguments': {}}, {'name': 'g', 'argu", "sarashina")
    assert [c[:2] for c in calls] == [("f", {}), ("invalid", calls[1][1])]
    # Solar Open's section token: what follows it decides, with both formats read.
    solar = '<|tool_calls|><|tool_call:begin|>0<|tool_call:name|>h<|tool_call:args|>{"x": 1}'
    both = ["solar_open", "sarashina"]
    assert [c.name for c in toolwire.extract(solar + "<|tool_call:end|>", formats=both)] == ["h"]
    assert [c.name for c in toolwire.extract("<|tool_calls|>" + listed, formats=both)] == [
        "f",
        "g",
    ]
    # Solar Open alone reads no list after its token: a section without its call token fails.
    calls, _ = read("<|tool_calls|>" + listed, "solar_open")
    assert [c[0] for c in calls] == ["invalid"]


def test_solar_open_reasoning_channel_is_reasoning() -> None:
    # Solar Open's turn is a run of channels: `<|think|>` opens the reasoning, ended by `<|end|>`
    # (harmony's end token too: one marker ends the messages of both).
    text = "<|think|>Check the weather.<|end|><|content|>It is sunny."
    parsed = toolwire.parse_text(text, format="solar_open")
    assert (parsed.reasoning, parsed.content, parsed.calls) == (
        "Check the weather.",
        "It is sunny.",
        [],
    )
    call = '<|tool_call:begin|>0<|tool_call:name|>f<|tool_call:args|>{"a": 1}<|tool_call:end|>'
    text = "<|begin|>assistant<|think|>Need f.<|end|><|begin|>assistant<|tool_calls|>" + call
    calls, content = read(text, "solar_open")
    assert (calls, content) == ([("f", {"a": 1})], "")
    assert toolwire.parse_text(text, format="solar_open").reasoning == "Need f."
    # Read with harmony too, each group's messages end at the shared token.
    both = ["solar_open", "harmony"]
    parsed = toolwire.parse_text(text, both)
    assert (parsed.reasoning, [c.name for c in parsed.calls]) == ("Need f.", ["f"])


def _atem(name: str, city: str | None = None) -> str:
    param = f'<atem:parameter name="city">{city}</atem:parameter>\n' if city else ""
    return (
        f'<atem:function_calls>\n<atem:invoke name="{name}">\n{param}'
        "</atem:invoke>\n</atem:function_calls>"
    )


@pytest.mark.parametrize("fmt", ["muse_glimmer", "onyx", "atem"])
def test_muse_glimmer_header_after_eom_without_its_start(fmt: str) -> None:
    # OpenVINO Model Server's Onyx tests: after `<|eom|>` (more messages follow) the next
    # message's `<|start|>assistant` may be left out, its header ` to=f<|message|>` alone.
    text = (
        " to=self<|message|>Need the weather.<|eom|>"
        f" to=get_weather<|message|>{_atem('get_weather', 'Paris')}<|eom|>"
        f" to=get_time<|message|>{_atem('get_time')}<|eom|>"
        "<|start|>assistant to=user<|message|>Done.<|eot|>"
    )
    calls, content = read(text, fmt)
    assert calls == [("get_weather", {"city": "Paris"}), ("get_time", {})]
    assert content == "Done."
    assert toolwire.parse_text(text, format=fmt).reasoning == "Need the weather."
    # Only right after `<|eom|>` (blank space aside): elsewhere ` to=f` stays prose (its
    # `<|message|>`, a special token no message's text holds, is dropped), and text after
    # `<|eom|>` that is no header is content.
    quoted = " to=user<|message|>Write to=f<|message|> like this.<|eot|>"
    assert read(quoted, fmt) == ([], "Write to=f like this.")
    reasoning = toolwire.parse_text(" to=self<|message|>a<|message|>b<|eom|>", format=fmt)
    assert reasoning.reasoning == "ab"
    assert read(" to=self<|message|>x<|eom|> to be or not<|eot|>", fmt) == ([], "to be or not")
    # After the end of a turn no header follows: the recipient is prose, and `<|message|>`
    # opens an answer, in which an ATEM block is quoted text.
    text = f" to=self<|message|>x<|eot|> to=f<|message|>{_atem('f')}"
    calls, content = read(text, fmt)
    assert calls == [] and content.startswith("to=f<atem:function_calls>")


@pytest.mark.parametrize("fmt", ["muse_glimmer", "onyx", "atem"])
def test_muse_glimmer_end_of_text_ends_its_message(fmt: str) -> None:
    # mistral.rs's ATEM tests: `<|end_of_text|>`, Muse Glimmer's end-of-sequence token, ends the
    # message it stands in, and is no content.
    assert read(" to=user<|message|>Final answer<|end_of_text|>", fmt) == ([], "Final answer")
    assert read("<|message|>Hi<|end_of_text|>", fmt) == ([], "Hi")
    text = f" to=f<|message|>{_atem('f', 'Rome')}<|end_of_text|>"
    assert read(text, fmt) == ([("f", {"city": "Rome"})], "")


@pytest.mark.parametrize("fmt", ["muse_glimmer", "onyx", "atem"])
def test_muse_glimmer_call_message_without_its_block_wrapper(fmt: str) -> None:
    # Dynamo's Muse Glimmer tests: a call message whose body is its invokes, the
    # `<atem:function_calls>` around them left out; the run of invokes ends at the message's end.
    invoke = '<atem:invoke name="get_weather"><atem:parameter name="city">Paris</atem:parameter>'
    text = (
        "<|start|>assistant to=self<|message|>Look it up.<|eom|>"
        f"<|start|>assistant to=get_weather<|message|>{invoke}</atem:invoke>"
        '\n<atem:invoke name="get_time"></atem:invoke><|eom|>'
        "<|start|>assistant to=user<|message|>It's 18C.<|eot|>"
    )
    calls, content = read(text, fmt)
    assert calls == [("get_weather", {"city": "Paris"}), ("get_time", {})]
    assert content == "It's 18C."
    # Cut off inside the value: an invalid call, as in a wrapped block.
    calls, _ = read(f" to=get_weather<|message|>{invoke[:-25]}", fmt)
    assert [c[:2] for c in calls] == [("invalid", "get_weather")]
    # Only a call message's body: a bare invoke quoted in an answer, or with no framing, is text.
    quoted = ' to=user<|message|>Write <atem:invoke name="f"></atem:invoke><|eot|>'
    assert read(quoted, fmt) == ([], 'Write <atem:invoke name="f"></atem:invoke>')
    assert read('<atem:invoke name="f"></atem:invoke>', fmt) == (
        [],
        '<atem:invoke name="f"></atem:invoke>',
    )


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("hermes3", "hermes"),
        ("devstral", "mistral"),
        ("phi4", "phi4_mini"),
        ("gptoss", "harmony"),
        ("onyx", "muse_glimmer"),
        ("atem", "muse_glimmer"),
        ("liquid", "lfm2"),
    ],
)
def test_ovms_and_mistralrs_parser_names(alias: str, name: str) -> None:
    # OpenVINO Model Server's `tool_parser` names and mistral.rs's tool-call formats.
    assert toolwire.FORMAT_ALIASES[alias] == name


@pytest.mark.parametrize(
    "text",
    [
        ' [{"name": "f", "arguments": {"a": 1}}]',
        '\n  [{"name": "f",\n  "arguments": {"a": 1}}]\n  ',
        '{"name": "f", "parameters": {"a": 1}}',
        '```json\n[{"name": "f", "arguments": {"a": 1}}]\n```',
    ],
)
def test_a_mistral_call_list_whose_token_was_decoded_away_is_read(text: str) -> None:
    # Dynamo's Mistral 7B v0.3 tests: `[TOOL_CALLS]` is a control token that
    # `skip_special_tokens` drops, leaving the whole message the call list.
    assert read(text, "mistral") == ([("f", {"a": 1})], "")
    # Only the whole message: JSON after prose never runs.
    prose = "Hey How are you? " + text.strip()
    assert read(prose, "mistral") == ([], prose)


def test_a_phi4_call_object_right_after_functools_is_a_list_of_one() -> None:
    # Dynamo's Phi-4 tests (`functools{…}`): one call object where the template writes a list.
    text = 'functools{"name": "get_weather","arguments":{"location":"San Francisco"}}'
    assert read(text, "phi4_mini") == ([("get_weather", {"location": "San Francisco"})], "")
    calls, content = read("functools{invalid json}", "phi4_mini")
    assert [c[0] for c in calls] == ["invalid"] and content == ""
    # As `functools[`, only at the start of the message.
    prose = 'Hey How are you? functools{"name": "f", "arguments": {}}'
    assert read(prose, "phi4_mini") == ([], prose)


def test_dynamos_hyphenated_gemma_4_is_gemma4() -> None:
    # Dynamo registers its Gemma 4 parser as `gemma4` and `gemma-4`; `-` reads as `_`.
    text = '<|tool_call>call:f{a:<|"|>x<|"|>}<tool_call|>'
    assert toolwire.parse_text(text, format="gemma-4").calls[0].arguments == {"a": "x"}


def test_pythonic_names_may_hold_a_hyphen() -> None:
    # Tool names may have `-` (MCP's `add-note`); Llama Stack reads `[weather-forecast(…)]` as
    # that tool's call. A `-` joins letters, digits and `_`: `[a - b(c=1)]` and `[-1, 2]` stay
    # prose, and so does a name ending in `-`.
    text = "[add-note(name='demonote'), weather-forecast(city=\"London\"), tool-2(x=1)]"
    calls, content = read(text, "pythonic")
    assert calls == [
        ("add-note", {"name": "demonote"}),
        ("weather-forecast", {"city": "London"}),
        ("tool-2", {"x": 1}),
    ]
    assert content == ""
    assert read("<|python_start|>[add-note(a=1)]<|python_end|>", "pythonic")[0] == [
        ("add-note", {"a": 1})
    ]
    for prose in ("[a - b(c=1)]", "[-1, 2]", "[f-(a=1)]"):
        assert read(prose, "pythonic") == ([], prose)
    assert toolwire.FORMAT_ALIASES["python_list"] == "pythonic"


@pytest.mark.parametrize(
    ("alias", "name", "text"),
    [
        ("glm5", "glm45", "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>"),
        (
            "deepseek_v3_2",
            "deepseek_dsml",
            (
                '<\uff5cDSML\uff5cfunction_calls><\uff5cDSML\uff5cinvoke name="f">'
                '<\uff5cDSML\uff5cparameter name="a" string="false">1</\uff5cDSML\uff5cparameter>'
                "</\uff5cDSML\uff5cinvoke></\uff5cDSML\uff5cfunction_calls>"
            ),
        ),
        ("function_tag", "hermes", '<function=f>{"a": 1}</function>'),
        ("python_list", "pythonic", "[f(a=1)]"),
    ],
)
def test_xinference_and_llama_format_names(alias: str, name: str, text: str) -> None:
    # Xinference's parser names (`glm5`, `deepseek-v3.2`) and Llama's ToolPromptFormat values
    # (`function_tag`, `python_list`), with `_` for `-` and `.`.
    assert toolwire.FORMAT_ALIASES[alias] == name
    assert read(text, alias) == ([("f", {"a": 1})], "")


def test_a_section_call_whose_begin_token_was_left_out() -> None:
    # Xinference's DeepSeek V3.1 tests (and mlx-swift-lm's Kimi K2 tests) write a section whose
    # first call lacks its begin token: the call's separator, before any call end, next call or
    # section end, shows the call. Prose before a section's first call stays prose.
    def token(name: str) -> str:  # DeepSeek's bars are U+FF5C, its spaces U+2581
        return "<\uff5c" + name.replace("_", "\u2581") + "\uff5c>"

    b, e = token("tool_calls_begin"), token("tool_calls_end")
    cb, ce, sep = token("tool_call_begin"), token("tool_call_end"), token("tool_sep")
    text = f'{b}f{sep}{{"a": 1}}{ce}{cb}g{sep}{{}}{ce}{e}'
    assert read(text, "deepseek_v31") == ([("f", {"a": 1}), ("g", {})], "")
    # A call end written twice is markup, not content.
    assert read(f'{b}f{sep}{{"a": 1}}{ce}{ce}', "deepseek_v31") == ([("f", {"a": 1})], "")
    assert read(f"{b}hello {cb}g{sep}{{}}{ce}{e}", "deepseek_v31") == ([("g", {})], "hello")
    kimi = (
        "<|tool_calls_section_begin|>functions.f:0<|tool_call_argument_begin|>"
        '{"a": 1}<|tool_calls_section_end|>'
    )
    assert read(kimi, "kimi_k2") == ([("f", {"a": 1})], "")


def test_qwen3_coder_wrapper_never_closed_ends_its_call_at_the_function_close() -> None:
    # Dynamo's `test_parse_qwen3_no_outer_close_preserves_suffix`: the model left `</tool_call>`
    # out and went on writing; the call ends with its `</function>`, the rest is content.
    call = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>"
    assert read(call + "\nTRAILING NOTE", "qwen3_coder") == ([("f", {"a": 1})], "TRAILING NOTE")
    # The same text inside a wrapper closed later is junk in the call: a broken call.
    calls, content = read(call + "\nTRAILING NOTE</tool_call>", "qwen3_coder")
    assert [c[0] for c in calls] == ["invalid"]
    assert content == ""


def test_deepseek_v31_call_with_nothing_after_its_separator_has_no_arguments() -> None:
    # FastDeploy's DeepSeek tests: a V3.1 call with nothing but blank space between its
    # separator token and its end token is a call written with no arguments, as Kimi K2's is;
    # a body cut off by the end of the text is no such call. (The tokens' bars and spaces are
    # U+FF5C and U+2581, written as escapes.)
    def token(name: str) -> str:
        return "<\uff5c" + name.replace(" ", "\u2581") + "\uff5c>"

    begin = token("tool calls begin") + token("tool call begin")
    sep, call_end, end = token("tool sep"), token("tool call end"), token("tool calls end")
    for body in ("", "   ", "\n"):
        calls, _ = read(f"{begin}f{sep}{body}{call_end}{end}", "deepseek_v31")
        assert calls == [("f", {})]
    second = token("tool call begin") + f"g{sep}{{}}{call_end}"
    calls, _ = read(f"{begin}f{sep}{call_end}{second}{end}", "deepseek_v31")
    assert calls == [("f", {}), ("g", {})]
    calls, _ = read(f"{begin}f{sep}", "deepseek_v31")
    assert [c[:2] for c in calls] == [("invalid", "f")]
    assert toolwire.FORMAT_ALIASES["deepseek_v3_0324"] == "deepseek_v3"


def test_qwen3_coder_function_tag_with_a_space_before_its_equals_sign() -> None:
    # mlx-openai-server's `test_function_parameter_tool_parser_allows_function_tag_spacing_drift`.
    text = '<tool_call>\n<function =read_file>\n<parameter=path>"/tmp/a"</parameter>\n</function>'
    assert read(text + "\n</tool_call>", "qwen3_coder")[0] == [("read_file", {"path": "/tmp/a"})]
    # Without the `=`, the tag names a tool only when `tools=` offers it (Step-3.5's garble).
    calls, _ = read(text.replace(" =", " ") + "\n</tool_call>", "qwen3_coder")
    assert [c[0] for c in calls] == ["invalid"]


def test_qwen3_coder_self_closing_function_tag() -> None:
    # The AI SDK tool-call middleware's `parses self-closing function tags in non-stream mode`:
    # `<function=NAME/>` is a call to NAME with no parameters (no tool's name ends in `/`).
    text = "before <tool_call><function=get_weather/></tool_call> after"
    assert read(text, "qwen3_coder") == ([("get_weather", {})], "before  after")
    two = "<tool_call><function=a/>\n<function=b><parameter=x>1</parameter></function></tool_call>"
    assert read(two, "qwen3_coder")[0] == [("a", {}), ("b", {"x": 1})]
    # A self-closing parameter tag names its parameter, whose value is empty.
    empty = "<tool_call><function=f><parameter=a/></function></tool_call>"
    assert read(empty, "qwen3_coder")[0] == [("f", {"a": ""})]


def test_glm45_left_open_value_drops_the_layout_line_break() -> None:
    # exo's GLM tests (`test_value_with_trailing_whitespace`): a value whose `</arg_value>` was
    # left out ends before the next tag; the line break that put that tag on a line of its own
    # is the template's layout, as for qwen3_coder. Spaces before it are the value's.
    text = "<tool_call>fn<arg_key>x</arg_key><arg_value>hello world  \n</tool_call>"
    assert read(text, "glm45")[0] == [("fn", {"x": "hello world  "})]
    two = (
        "<tool_call>fn\n<arg_key>x</arg_key>\n<arg_value>a\r\n"
        "<arg_key>y</arg_key>\n<arg_value>b</arg_value>\n</tool_call>"
    )
    assert read(two, "glm45")[0] == [("fn", {"x": "a", "y": "b"})]
    # A closed value keeps what it holds.
    closed = "<tool_call>fn<arg_key>x</arg_key><arg_value>a\n</arg_value></tool_call>"
    assert read(closed, "glm45")[0] == [("fn", {"x": "a\n"})]


def test_mlx_engine_format_name() -> None:
    # mlx-engine calls Qwen3.5's `<tool_call><function=…>` format `qwen35` (no underscore).
    assert toolwire.FORMAT_ALIASES["qwen35"] == "qwen3_coder"
    text = "<tool_call><function=f><parameter=a>1</parameter></function></tool_call>"
    assert read(text, "qwen35") == ([("f", {"a": 1})], "")


def test_minimax_m1_broken_line_fails_alone() -> None:
    # vLLM's MiniMax (M1) tests: one call object a line; a line that is not JSON is an
    # InvalidToolCall of its own, and the calls after it are read.
    text = (
        '<tool_calls>\n{"name": "a", "arguments": {"x": 1}}\n{invalid json here}\n'
        '{"name": "b", "arguments": {"y": 2}}\n</tool_calls>'
    )
    calls, content = read(text, "minimax_m1")
    assert [c[:2] for c in calls] == [("a", {"x": 1}), ("invalid", None), ("b", {"y": 2})]
    assert content == ""
    # A broken last line still fails to the end token; one broken line alone is one failure.
    calls, _ = read(
        '<tool_calls>\n{"name": "a", "arguments": {}}\n{broken\n</tool_calls>', "minimax_m1"
    )
    assert [c[0] for c in calls] == ["a", "invalid"]
    calls, _ = read("<tool_calls>\n{broken\n</tool_calls>", "minimax_m1")
    assert [c[0] for c in calls] == ["invalid"]
    # An object whose JSON runs on past its line (here into the next call) fails to the end
    # token, as before: the next line is not read again.
    text = (
        '<tool_calls>\n{"name": "a", "arguments": {"x": [\n'
        '{"name": "b", "arguments": {}}\n</tool_calls>'
    )
    calls, _ = read(text, "minimax_m1")
    assert [c[0] for c in calls] == ["invalid"]


def test_minimax_m3_empty_elements_and_text_beside_a_text_element() -> None:
    # vLLM's engine MiniMax-M3 tests: the template writes [] and {} as an empty element, read
    # back as the empty value the schema allows alone; a string (or a type that allows one)
    # stays "". Text beside an element named `$text` goes under `$$text`.
    ns = "]<]minimax[>["

    def block(params: str) -> str:
        return f'{ns}<tool_call>\n{ns}<invoke name="f">{params}{ns}</invoke>\n{ns}</tool_call>'

    def element(name: str, body: str) -> str:
        return f"{ns}<{name}>{body}{ns}</{name}>"

    tools = [
        {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {
                    "tags": {"type": "array"},
                    "shipping": {"type": "object"},
                    "note": {"type": "string"},
                    "either": {"anyOf": [{"type": "array"}, {"type": "string"}]},
                },
            },
        }
    ]
    params = "".join(element(k, "") for k in ("tags", "shipping", "note", "either"))
    calls, _ = read(block(params), "minimax_m3", tools=tools)
    assert calls == [("f", {"tags": [], "shipping": {}, "note": "", "either": ""})]
    calls, _ = read(block(element("tags", "")), "minimax_m3")
    assert calls == [("f", {"tags": ""})]
    calls, _ = read(block(element("free", "x" + element("$text", "child"))), "minimax_m3")
    assert calls == [("f", {"free": {"$text": "child", "$$text": "x"}})]


def test_dsml_parameter_tag_in_a_value_begins_the_next_parameter() -> None:
    # vLLM's engine DeepSeek V3.2 tests: a value whose closing parameter tag was left out ends at
    # the next parameter tag (DSML tags are special tokens, never a value's text).
    bar = "\uff5c"  # DSML's full-width bar
    text = (
        f'<{bar}DSML{bar}function_calls><{bar}DSML{bar}invoke name="edit">'
        f'<{bar}DSML{bar}parameter name="expr" string="true">a<b>'
        f'<{bar}DSML{bar}parameter name="date" string="true">tomorrow</{bar}DSML{bar}parameter>'
        f"</{bar}DSML{bar}invoke></{bar}DSML{bar}function_calls>"
    )
    assert read(text, "deepseek_dsml") == ([("edit", {"expr": "a<b>", "date": "tomorrow"})], "")


def test_kolibri1_is_hermes() -> None:
    # vLLM's `kolibri1` tool parser (Kolibri 1) reads Hermes's <tool_call> JSON.
    assert toolwire.FORMAT_ALIASES["kolibri1"] == "hermes"
    text = '<tool_call>\n{"name": "lookup", "arguments": {"city": "Paris"}}\n</tool_call>'
    assert read(text, "kolibri1") == ([("lookup", {"city": "Paris"})], "")


def test_nous_is_hermes() -> None:
    # Qwen-Agent's `nous` function-call prompt (`NousFnCallPrompt`) reads Hermes's <tool_call>
    # JSON, a last `</tool_call>` left out included.
    assert toolwire.FORMAT_ALIASES["nous"] == "hermes"
    text = '<tool_call>\n{"name": "search", "arguments": {"query": {"q": "qwen"}}}\n</tool_call>'
    assert read(text, "nous") == ([("search", {"query": {"q": "qwen"}})], "")
    assert read('<tool_call>\n{"name": "search", "arguments": {}}\n', "nous") == (
        [("search", {})],
        "",
    )


def test_minimax_m3_list_of_named_fields_is_one_record() -> None:
    # vLLM-Ascend's MiniMax-M3 parser (a backport of vLLM's): a list parameter whose elements
    # are each named once, the `<item>` wrapper left out, is one object in the list; elements
    # that repeat a name, or are `<item>`s, are the list's items as before.
    ns = "]<]minimax[>["

    def el(name: str, body: str) -> str:
        return f"{ns}<{name}>{body}{ns}</{name}>"

    def call(body: str) -> str:
        return f'{ns}<tool_call>\n{ns}<invoke name="order">{body}{ns}</invoke>\n{ns}</tool_call>'

    items = {"type": "array", "items": {"type": "object"}}
    tools = [
        {
            "type": "function",
            "function": {
                "name": "order",
                "parameters": {"type": "object", "properties": {"items": items}},
            },
        }
    ]
    record = el("items", el("sku", "book-001") + el("qty", "2"))
    assert read(call(record), "minimax_m3", tools=tools) == (
        [("order", {"items": [{"sku": "book-001", "qty": 2}]})],
        "",
    )
    wrapped = el("items", el("item", el("sku", "a")) + el("item", el("sku", "b")))
    assert read(call(wrapped), "minimax_m3", tools=tools) == (
        [("order", {"items": [{"sku": "a"}, {"sku": "b"}]})],
        "",
    )
    repeated = el("items", el("tag", "a") + el("tag", "b"))
    assert read(call(repeated), "minimax_m3", tools=tools) == (
        [("order", {"items": ["a", "b"]})],
        "",
    )
    single = el("items", el("file", "a.txt"))
    assert read(call(single), "minimax_m3", tools=tools) == ([("order", {"items": ["a.txt"]})], "")


def test_deepseek_dsml_end_of_sentence_is_a_control_token() -> None:
    # vLLM-Ascend's DeepSeek V4.1 tests: the completion ends with DeepSeek's end-of-sentence
    # token after the block, which is not content (as in the deepseek group).
    bar = "\uff5c"
    call = (
        f'<{bar}DSML{bar} calls>\n<{bar}DSML{bar} invoke name="lookup">\n'
        f'<{bar}DSML{bar} parameter name="query" string="true">value</{bar}DSML{bar} parameter>\n'
        f"</{bar}DSML{bar} invoke>\n</{bar}DSML{bar} calls>"
    )
    eos = f"<{bar}end\u2581of\u2581sentence{bar}>"
    assert read(f"summary\n\n{call}{eos}", "deepseek_dsml") == (
        [("lookup", {"query": "value"})],
        "summary",
    )
    assert read(f"Hello.{eos}", "deepseek_v4") == ([], "Hello.")
