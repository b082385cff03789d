"""Issue 20, part 2: calls that were lost, misnamed or misplaced, through every text path
(`support.every_path`: extract of str and bytes, parse_text, StreamParser fed str and bytes
chunks, extract_batch)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import toolwire
from support import every_path
from toolwire import InvalidToolCall, ToolCall


def shapes(calls: list[Any]) -> list[tuple[Any, ...]]:
    return [
        ("call", c.name, c.arguments) if isinstance(c, ToolCall) else ("invalid", c.name)
        for c in calls
    ]


def agree(text: str) -> list[Any]:
    """The calls of `text`, the same on every path (ids apart); extract's are returned."""
    results = every_path(text)
    for calls in results[1:]:
        assert shapes(calls) == shapes(results[0]), text
    return results[0]


REPEATED_KEYS = [
    ('{"arguments": {"x": 1}, "name": "a", "name": "b"}', '"name" twice'),
    ('{"name": "a", "arguments": {"x": 1}, "arguments": {"x": 2}}', '"arguments" twice'),
    ('{"name": "a", "parameters": {"x": 1}, "arguments": {"x": 2}}', 'both "parameters" and'),
]


@pytest.mark.parametrize(("call", "why"), REPEATED_KEYS)
@pytest.mark.parametrize(
    "wrap",
    [
        lambda c: f"~~~tool_call\n{c}\n~~~\n",
        lambda c: f"~~~tool_call\n[{c}]\n~~~\n",
        lambda c: c,
        lambda c: f"```json\n[{c}]\n```",
        lambda c: f"<tool_call>{c}</tool_call>",
        lambda c: f"[TOOL_CALLS][{c}]",
    ],
)
def test_a_repeated_name_or_arguments_key_is_an_invalid_call(
    call: str, why: str, wrap: Any
) -> None:
    """A stream announces the first name and streams the first arguments before the second is
    written: a call object that names two tools (or gives two arguments) is invalid, named
    after the name it was announced with."""
    text = wrap(call)
    [invalid] = agree(text)
    assert isinstance(invalid, InvalidToolCall) and why in invalid.error and invalid.name == "a"
    parser = toolwire.StreamParser()
    events = [e for ch in text for e in parser.feed(ch)] + parser.finish()
    starts = [e.name for e in events if e.kind == "tool_call_start"]
    assert all(name == "a" for name in starts)
    assert [e.kind for e in events if e.kind.startswith(("tool_call_end", "invalid"))] == [
        "invalid_tool_call"
    ]


WRAPS = [
    lambda c: f"~~~tool_call\n{c}\n~~~\n",
    lambda c: f"<tool_call>\n{c}\n</tool_call>",
    lambda c: f"[TOOL_CALLS][{c}]",
]


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("key", [" arguments", "arguments ", "\tparameters", " input "])
def test_an_arguments_key_with_whitespace_around_it_is_read(key: str, wrap: Any) -> None:
    """Qwen2.5-VL-32B wrote `" arguments"` (vllm-project/vllm-ascend#403): the arguments."""
    call = json.dumps({"name": "get_weather", key: {"city": "Boston"}})
    [read] = agree(wrap(call))
    assert isinstance(read, ToolCall)
    assert (read.name, read.arguments) == ("get_weather", {"city": "Boston"})


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize(
    "call",
    [
        '{"name": "get_weather", "argument": {"city": "Boston"}}',
        '{"name": "get_weather", "city": "Boston"}',
        '{"type": "function", "name": "get_weather", "params": {"city": "Boston"}}',
    ],
)
def test_arguments_under_an_unknown_key_are_never_dropped(call: str, wrap: Any) -> None:
    """A call object with no arguments key but another member: the arguments the model wrote
    are somewhere toolwire does not read, so running the call with none would be a guess."""
    [invalid] = agree(wrap(call))
    assert isinstance(invalid, InvalidToolCall) and invalid.name == "get_weather"
    assert "no arguments key" in invalid.error and call in invalid.raw


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize(
    "call",
    [
        '{"name": "get_weather", "function": {"arguments": {"city": "Boston"}}}',
        '{"id": "c1", "name": "get_weather", "function": {"name": "get_weather", '
        '"arguments": {"city": "Boston"}}}',
    ],
)
def test_arguments_in_a_function_member_beside_the_name_are_read(call: str, wrap: Any) -> None:
    """OpenAI's `function` object written beside a name holds the call's arguments: the call
    had run with none."""
    [read] = agree(wrap(call))
    assert isinstance(read, ToolCall)
    assert (read.name, read.arguments) == ("get_weather", {"city": "Boston"})


@pytest.mark.parametrize("wrap", WRAPS)
def test_a_function_member_naming_another_tool_is_an_invalid_call(wrap: Any) -> None:
    [invalid] = agree(wrap('{"name": "a", "function": {"name": "b", "arguments": {}}}'))
    assert isinstance(invalid, InvalidToolCall) and "names its tool twice" in invalid.error


@pytest.mark.parametrize(
    ("text", "options"),
    [
        ('{"type": "function", "function": {"name": "f", " arguments": {"a": 1}}}', {}),
        ('{"tool_call": {"name": "f", " arguments": {"a": 1}}}', {}),
        ('[{"name": "f", " arguments": {"a": 1}}, {"name": "g", "parameters": {}}]', {}),
        ('Sure: {"name": "f", " arguments": {"a": 1}} ok', {"raw_json": "anywhere"}),
    ],
)
def test_a_raw_json_arguments_key_with_whitespace_around_it_is_read(
    text: str, options: dict[str, Any]
) -> None:
    """The whitespace rule holds for raw JSON's wrappers, lists and search too, not only for a
    lone call object."""
    [read, *_] = toolwire.extract(text, **options)
    assert isinstance(read, ToolCall) and (read.name, read.arguments) == ("f", {"a": 1})


@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize(
    "call",
    [
        '{"name": "get_time"}',
        '{"name": "get_time", "id": "c1", "type": "function", "index": 0}',
    ],
)
def test_a_call_with_only_a_name_and_its_metadata_has_empty_arguments(call: str, wrap: Any) -> None:
    [read] = agree(wrap(call))
    assert isinstance(read, ToolCall) and (read.name, read.arguments) == ("get_time", {})


def test_one_name_key_and_one_arguments_key_still_read() -> None:
    [call] = agree('~~~tool_call\n{"name": "a", "id": "1", "parameters": {"x": 1}}\n~~~\n')
    assert (call.name, call.arguments) == ("a", {"x": 1})


@pytest.mark.parametrize(
    "text",
    [
        '```json\n[{"name": "a", "arguments": {}}, {"name": "b", "arguments": 3}]\n```',
        'Here:\n```json\n[{"name": "a", "arguments": {}},\n {"name": "b", "arguments": 3}]\n```',
        '[{"name": "a", "arguments": {}},\n {"name": "b", "arguments": 3}]',
        '[{"name": "a", "arguments": {}}, {"name": "a", "name": "b", "arguments": {}}]',
        '~~~tool_call\n[{"name": "a", "arguments": {}}, {"name": "b", "arguments": 3}]\n~~~',
    ],
)
def test_a_failing_item_of_a_json_list_is_placed_at_the_item(text: str) -> None:
    first, bad = agree(text)
    assert isinstance(first, ToolCall) and isinstance(bad, InvalidToolCall)
    at = text.index('{"name": ', text.index('{"name": ') + 1)  # the second item
    assert bad.offset == at and f"(offset {at})" in bad.error


def test_call_objects_one_after_another_are_each_a_call() -> None:
    text = '{"name": "first", "arguments": {}}\n{"name": "second", "arguments": {"n": 2}}\n'
    assert shapes(agree(text)) == [("call", "first", {}), ("call", "second", {"n": 2})]
    assert toolwire.parse_text(text).content.strip() == ""


def test_a_pretty_printed_call_then_prose_is_the_call_and_the_prose_content() -> None:
    text = '{\n  "name": "write",\n  "arguments": {"a": 1}\n}\nThat\'s it.'
    assert shapes(agree(text)) == [("call", "write", {"a": 1})]
    assert toolwire.parse_text(text).content == "\nThat's it."


@pytest.mark.parametrize(
    "text",
    [
        'I would call {"name": "f", "arguments": {}} here.',
        'Done: {"name": "f", "arguments": {}}\n{"name": "g", "arguments": {}}',
        '{"name": "f", "arguments": {}}\nThen {"name": "g", "arguments": {}}',
    ],
)
def test_json_quoted_in_prose_never_runs_a_tool(text: str) -> None:
    names = [c.name for c in agree(text)]
    assert "g" not in names and (names == [] or names == ["f"])


def test_a_closing_fence_followed_by_prose_closes_the_block() -> None:
    text = '~~~tool_call\n{"name": "f", "arguments": {}}\n~~~ and then some prose\nBye.'
    assert shapes(agree(text)) == [("call", "f", {})]
    assert toolwire.parse_text(text).content == "and then some prose\nBye."


def test_a_spaced_opening_fence_is_read() -> None:
    text = '~~~ tool_call\n{"name": "f", "arguments": {}}\n~~~\n'
    assert shapes(agree(text)) == [("call", "f", {})]
    # Prose after `~~~ ` that is not `tool_call` is prose, not a block.
    assert agree("~~~ tool_calls\n{}\n~~~\n") == []


def test_native_tool_calls_is_honoured_by_extract_batch() -> None:
    body = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": '<tool_call>{"name": "send_email", "arguments": {}}</tool_call>',
                    "tool_calls": [],
                }
            }
        ]
    }
    for item in (body, json.dumps(body)):
        assert toolwire.extract_batch([item], native_tool_calls=True) == [[]]
        assert [c.name for c in toolwire.extract_batch([item])[0]] == ["send_email"]
    assert toolwire.extract(body, native_tool_calls=True) == []


def test_a_wrong_provider_format_is_worded_once() -> None:
    def provider(messages: Any) -> Any:
        raise AssertionError("not called")

    with pytest.raises(ValueError, match=r"^provider_format must be one of 'openai', .*not 'x'$"):
        toolwire.run_tool_loop(provider, [], [], provider_format="x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^provider_format must be str, not int$"):
        toolwire.run_tool_loop(provider, [], [], provider_format=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^provider must be str, not int$"):
        toolwire.encode_tools([], 5)  # type: ignore[call-overload]


@pytest.mark.parametrize(
    "accumulator",
    [
        toolwire.OpenAIStreamAccumulator,
        toolwire.AnthropicStreamAccumulator,
        toolwire.ResponsesStreamAccumulator,
        toolwire.GeminiStreamAccumulator,
        toolwire.OllamaStreamAccumulator,
    ],
)
def test_an_accumulator_fed_a_wrong_type_raises_type_error(accumulator: Any) -> None:
    for value in (123, None, 1.5, object()):
        with pytest.raises(TypeError):
            accumulator().feed(value)


@pytest.mark.parametrize(
    "text",
    [
        '[{"name": "a", "arguments": {}}, {"arguments": {}}]',
        '[{"name": "a", "arguments": {}}, 5]',
        '```json\n[{"name": "a", "arguments": {}}, ["b"]]\n```',
    ],
)
def test_a_list_with_one_item_that_is_no_call_keeps_its_calls(text: str) -> None:
    """Found while looking for the same class of bug: such a list gave no calls at all."""
    good, bad = agree(text)
    assert isinstance(good, ToolCall) and good.name == "a"
    assert isinstance(bad, InvalidToolCall) and bad.index == 1
    assert bad.offset == text.rindex(", ") + 2


def test_a_list_without_calls_is_still_prose() -> None:
    assert agree('[{"a": 1}, 5]') == [] and agree("[1, 2]") == []
    # An item with a name and no arguments beside a call is a call with `{}`, as in a block.
    text = '[{"name": "a", "arguments": {}}, {"name": "b"}]'
    assert shapes(agree(text)) == [("call", "a", {}), ("call", "b", {})]


# A call whose closing tag the model left out before its next call: the next opening tag ends
# it (docs/formats-xml.md, "A closing tag left out").
UNCLOSED_THEN_NEXT = [
    '<tool_call>\n{"name": "a", "arguments": {"x": 1}}\n'
    '<tool_call>\n{"name": "b", "arguments": {"y": 2}}\n</tool_call>',
    "<tool_call>a\n<arg_key>x</arg_key>\n<arg_value>1</arg_value>\n"
    "<tool_call>b\n<arg_key>y</arg_key>\n<arg_value>2</arg_value>\n</tool_call>",
    "<tool_call>\n<function=a>\n<parameter=x>\n1\n</parameter>\n</function>\n"
    "<tool_call>\n<function=b>\n<parameter=y>\n2\n</parameter>\n</function>\n</tool_call>",
    # `</function>` left out before the next block, inside one wrapper and bare.
    "<tool_call>\n<function=a>\n<parameter=x>\n1\n</parameter>\n"
    "<function=b>\n<parameter=y>\n2\n</parameter>\n</function>\n</tool_call>",
    "<function=a>\n<parameter=x>\n1\n</parameter>\n<function=b>\n<parameter=y>\n2\n</parameter>\n"
    "</function>",
    '<function=a>{"x": 1}\n<function=b>{"y": 2}</function>',
    '<tool_call>a\n{"x": 1}\n<tool_call>b\n{"y": 2}</tool_call>',
]


@pytest.mark.parametrize("text", UNCLOSED_THEN_NEXT)
def test_a_call_left_unclosed_ends_at_the_next_call(text: str) -> None:
    assert shapes(agree(text)) == [("call", "a", {"x": 1}), ("call", "b", {"y": 2})]


def test_a_broken_call_left_unclosed_does_not_take_the_next_call() -> None:
    """The broken call's markup ends where the next call opens: it stays an InvalidToolCall
    with its own text, and the next call runs."""
    first = '<tool_call>\n{"name": "a", "arguments": {"x": 1\n'
    text = first + '<tool_call>\n{"name": "b", "arguments": {"y": 2}}\n</tool_call>'
    invalid, call = agree(text)
    assert isinstance(invalid, InvalidToolCall) and invalid.raw == first
    assert (call.name, call.arguments) == ("b", {"y": 2})


@pytest.mark.parametrize(
    "first",
    [
        '<tool_call>\n{"name": "a", "arguments": {"x": 1}\n',
        '<tool_call>\n[{"name": "a", "arguments": {"x": 1}}\n',
        '<tool_call>\n[{"name": "a", "arguments": {"x": 1}\n',
    ],
)
def test_a_call_whose_json_was_cut_right_after_its_arguments_is_read(first: str) -> None:
    """The call object (or its list) lost only its closing brackets, where the next call opens
    or the text ends (granite-3.1 in gpustack/llama-box#17): the call, as the call-list formats
    and the XML-style ones read a call missing its closing tags. Cut inside a value, it stays
    an InvalidToolCall (above)."""
    assert shapes(agree(first)) == [("call", "a", {"x": 1})]
    text = first + '<tool_call>\n{"name": "b", "arguments": {"y": 2}}\n</tool_call>'
    assert shapes(agree(text)) == [("call", "a", {"x": 1}), ("call", "b", {"y": 2})]


@pytest.mark.parametrize(
    "call",
    [
        '<tool_call>skill\n{"name":"git-diff-review"}',
        '<tool_call>\n{"name": "skill", "arguments": {"name": "git-diff-review"}}',
        "<tool_call>\n<function=skill>\n<parameter=name>\ngit-diff-review\n</parameter>\n"
        "</function>",
    ],
)
@pytest.mark.parametrize("times", [2, 3])
def test_a_call_written_again_after_a_left_out_closing_tag_runs_once(call: str, times: int) -> None:
    """Laguna at times writes a call, leaves its `</tool_call>` out and writes the same call
    again: one call, never run twice. Two calls each closed are two calls."""
    text = "\n".join([call] * times) + "</tool_call>"
    assert shapes(agree(text)) == [("call", "skill", {"name": "git-diff-review"})]
    closed = f"{call}</tool_call>\n"
    assert len(agree(closed * 2)) == 2


def test_an_opening_tag_inside_a_value_is_text() -> None:
    """Only where the grammar is between elements does an opening tag end a call: one inside a
    value, or a JSON string, is text of the value."""
    hermes = '<tool_call>{"name": "a", "arguments": {"x": "<tool_call>"}}</tool_call>'
    glm = "<tool_call>a\n<arg_key>x</arg_key>\n<arg_value><tool_call></arg_value>\n</tool_call>"
    qwen = (
        "<tool_call>\n<function=a>\n<parameter=x>\n<tool_call>\n</parameter>\n</function>\n"
        "</tool_call>"
    )
    for text in (hermes, glm, qwen):
        assert shapes(agree(text)) == [("call", "a", {"x": "<tool_call>"})], text


@pytest.mark.parametrize(
    "text",
    [
        # The opener doubled (TensorRT-LLM's GLM-4.7 tests), in each body shape.
        "<tool_call><tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
        '<tool_call>\n<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>',
        "<tool_call> <tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n"
        "</tool_call>",
        # A call restarted after its name, or after a pair: written again from its opening tag.
        "<tool_call>f<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>",
        "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<tool_call>f\n"
        "<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n<arg_key>b</arg_key>\n"
        "<arg_value>2</arg_value>\n</tool_call>",
    ],
)
def test_an_opened_again_call_is_one_call(text: str) -> None:
    expected = {"a": 1, "b": 2} if "<arg_key>b" in text else {"a": 1}
    assert shapes(agree(text)) == [("call", "f", expected)]
    assert toolwire.parse_text(text).content == ""


def test_a_glm_value_may_quote_its_closing_tag() -> None:
    """An `</arg_value>` closes the value only where the next pair, the call's end or the end
    of the text follows it; one followed by more text is quoted in the value (TensorRT-LLM's
    GLM tests). It never reaches past the call's end: then the first tag closed the value."""
    code = 'let s = "</arg_value>"; run(s)'
    text = (
        f"<tool_call>run_js\n<arg_key>code</arg_key>\n<arg_value>{code}</arg_value>\n"
        "<arg_key>timeout</arg_key>\n<arg_value>30</arg_value>\n</tool_call>"
    )
    assert shapes(agree(text)) == [("call", "run_js", {"code": code, "timeout": 30})]
    last = "<tool_call>echo<arg_key>t</arg_key><arg_value>a</arg_value>b</arg_value></tool_call>"
    assert shapes(agree(last)) == [("call", "echo", {"t": "a</arg_value>b"})]
    broken = "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value>b</tool_call> and "
    good = "<tool_call>g<arg_key>x</arg_key><arg_value>1</arg_value></tool_call>"
    assert shapes(agree(broken + good)) == [("invalid", "f"), ("call", "g", {"x": 1})]


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "f", "arguments": {"a": 1e309}}</tool_call>',
        '{"name": "f", "arguments": {"a": [1, -1.5e+999]}}',
        '[TOOL_CALLS][{"name": "f", "arguments": {"a": 1' + "0" * 400 + ".5}}]",
    ],
)
def test_a_number_beyond_any_float_makes_the_call_invalid(text: str) -> None:
    """JSON cannot write infinity: a call holding such a number could not be sent on, so it is
    an InvalidToolCall on every path (toolwire.loads still reads it as json.loads does)."""
    [invalid] = agree(text)
    assert isinstance(invalid, InvalidToolCall)
    assert "a number beyond any float" in invalid.error and invalid.name == "f"
    assert toolwire.loads("1e400") == float("inf")
    body = {"tool_calls": [{"id": "x", "function": {"name": "f", "arguments": '{"a": 1e309}'}}]}
    [native] = toolwire.extract(body, on_error="keep")
    assert isinstance(native, InvalidToolCall) and "beyond any float" in native.error
    with pytest.raises(toolwire.ArgumentsError, match="beyond any float"):
        toolwire.decode_arguments('{"a": 1e400}')


@pytest.mark.parametrize(
    "text",
    [
        '<|im_end|>{"name": "f", "arguments": {"a": 1}}',
        '<reserved_12>{"name": "f", "arguments": {"a": 1}}',
        '<|reserved_14|>{"name": "f", "arguments": {"a": 1}}<|reserved_15|>',
        '<|call|>[{"name": "f", "arguments": {"a": 1}}]',
        '<tool_call|>\n[{"name": "f", "arguments": {"a": 1}}]',
    ],
)
def test_a_whole_json_call_after_leading_control_tokens_is_read_on_every_path(text: str) -> None:
    """The engine drops the control tokens and reads the call that opens the message; extract's
    prefilters had looked only at the text's first byte, so extract alone found nothing."""
    [read] = agree(text)
    assert isinstance(read, ToolCall) and (read.name, read.arguments) == ("f", {"a": 1})
