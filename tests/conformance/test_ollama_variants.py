"""Variants Ollama's parser tests hold (`model/parsers/*_test.go`), read the same way by
`extract`, `parse_text` and the stream in random chunks: the tokens a chat template writes
around an answer or a tool result are never content, LFM2's call without its brackets, and
Laguna's JSON calls in GLM's `<tool_call>`."""

from __future__ import annotations

import pytest
import toolwire
from paths import read


@pytest.mark.parametrize("fmt", ["deepseek_v3", "deepseek_v31"])
def test_deepseek_tool_output_tokens_are_not_content(fmt: str) -> None:
    # The chat template's tokens around a tool result, echoed by the model: the text stays.
    text = (
        "Weather: <\uff5ctool\u2581outputs\u2581begin\uff5c>"
        "<\uff5ctool\u2581output\u2581begin\uff5c>22°C<\uff5ctool\u2581output\u2581end\uff5c>"
        "<\uff5ctool\u2581outputs\u2581end\uff5c> Enjoy!"
    )
    calls, content = read(text, fmt)
    assert calls == []
    assert content == "Weather: 22°C Enjoy!"


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("command_r7b", "<|START_TEXT|>direct answer<|END_TEXT|>"),
        ("command_a", "<|START_TEXT|>direct answer<|END_TEXT|><|END_OF_TURN_TOKEN|>"),
        (
            "apertus",
            "<|assistant_start|>direct<|inner_prefix|>hm<|inner_suffix|> answer<|assistant_end|>",
        ),
    ],
)
def test_answer_wrapper_tokens_are_not_content(fmt: str, text: str) -> None:
    calls, content = read(text, fmt)
    assert calls == []
    assert content == "direct answer"


@pytest.mark.parametrize("after", ["<tool_call|>", "<|tool_response>"])
def test_gemma4_tokens_after_a_call_are_not_content(after: str) -> None:
    text = '<|tool_call>call:get_weather{location:<|"|>Paris<|"|>}<tool_call|>' + after + "Done."
    calls, content = read(text, "gemma4")
    assert calls == [("get_weather", {"location": "Paris"})]
    assert content == "Done."


@pytest.mark.parametrize(
    ("body", "calls"),
    [
        ("bash(command='ls -la')", [("bash", {"command": "ls -la"})]),
        ('get_weather(location="Paris")', [("get_weather", {"location": "Paris"})]),
        ("ping()", [("ping", {})]),
        ("f(a=1)\ng(b='x')", [("f", {"a": 1}), ("g", {"b": "x"})]),
    ],
)
def test_lfm2_call_written_without_its_brackets(body: str, calls: list[object]) -> None:
    text = "Checking.<|tool_call_start|>" + body + "<|tool_call_end|>Done."
    got, content = read(text, "lfm2")
    assert got == calls
    assert content == "Checking.Done."


def test_lfm2_prose_between_markers_is_still_a_failed_call() -> None:
    # Only a name and `(` make a bracketless call: other text between the markers is broken.
    calls, _ = read("<|tool_call_start|>not a call<|tool_call_end|>", "lfm2")
    assert [c[0] for c in calls] == ["invalid"]


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        # The close left out before the call's end, and before the next pair.
        (
            "<tool_call>f\n<arg_key>city</arg_key>\n<arg_value>Paris</tool_call>",
            [("f", {"city": "Paris"})],
        ),
        (
            "<tool_call>f\n<arg_key>city</arg_key>\n<arg_value>Paris<arg_key>unit</arg_key>\n"
            "<arg_value>celsius</arg_value></tool_call>",
            [("f", {"city": "Paris", "unit": "celsius"})],
        ),
        # Left out in the first of two calls: the second call stays a call of its own.
        (
            "<tool_call>f<arg_key>a</arg_key><arg_value>x</tool_call>"
            "<tool_call>g<arg_key>b</arg_key><arg_value>y</arg_value></tool_call>",
            [("f", {"a": "x"}), ("g", {"b": "y"})],
        ),
    ],
)
def test_glm_value_whose_close_was_left_out(text: str, calls: list[object]) -> None:
    got, content = read(text, "glm45")
    assert got == calls
    assert content == ""


def test_glm_value_cut_at_the_end_of_the_text_stays_an_invalid_call() -> None:
    calls, _ = read("<tool_call>f\n<arg_key>city</arg_key>\n<arg_value>Par", "glm45")
    assert [c[0] for c in calls] == ["invalid"]


@pytest.mark.parametrize(
    "text",
    [
        # `</parameter>` left out: the value ends at the invoke's close.
        '<minimax:tool_call>\n<invoke name="f">\n<parameter name="city">Tokyo</invoke>\n'
        "</minimax:tool_call>",
        # `</invoke>` left out: the invoke ends at the block's close.
        '<minimax:tool_call>\n<invoke name="f">\n<parameter name="city">Tokyo</parameter>\n'
        "</minimax:tool_call>",
    ],
)
def test_minimax_invoke_whose_close_was_left_out(text: str) -> None:
    calls, content = read(text + "Done.", "minimax_m2")
    assert calls == [("f", {"city": "Tokyo"})]
    assert content == "Done."


def test_minimax_value_may_hold_an_invoke_close_when_its_own_close_follows() -> None:
    text = (
        '<minimax:tool_call><invoke name="f"><parameter name="s">a</invoke>b</parameter>'
        "</invoke></minimax:tool_call>"
    )
    calls, _ = read(text, "minimax_m2")
    assert calls == [("f", {"s": "a</invoke>b"})]


def test_deepseek_r1_fence_on_the_name_line() -> None:
    text = (
        "<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>function<\uff5ctool\u2581sep\uff5c>get_weather"
        '```json{"location":"Paris"}```<\uff5ctool\u2581call\u2581end\uff5c><\uff5ctool\u2581calls\u2581end\uff5c>'
    )
    calls, _ = read(text, "deepseek_v3")
    assert calls == [("get_weather", {"location": "Paris"})]


def test_minicpm5_params_in_an_arguments_wrapper() -> None:
    text = (
        'Sure.<function name="get_weather"><arguments><param name="city">Paris</param>'
        "</arguments></function>"
    )
    calls, content = read(text, "minicpm5")
    assert calls == [("get_weather", {"city": "Paris"})]
    assert content == "Sure."


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        (
            "command_r7b",
            '<|START_ACTION|>[{"tool_name": "alarm", "parameters": {"time": 15:30}}, '
            '{"tool_name": "f", "parameters": {"x": "{not json}"}}]<|END_ACTION|>',
        ),
        (
            "apertus",
            '<|tools_prefix|>[{"alarm": {"time": 15:30}}, {"f": {"x": "{not json}"}}]'
            "<|tools_suffix|>",
        ),
    ],
)
def test_one_broken_object_in_a_call_list_costs_no_good_call(fmt: str, text: str) -> None:
    calls, content = read(text + "Done.", fmt)
    assert [c[0] for c in calls] == ["invalid", "f"]
    assert calls[1] == ("f", {"x": "{not json}"})
    assert content == "Done."


def test_cohere_call_objects_with_a_comma_left_out_between_them() -> None:
    text = (
        '<|START_ACTION|>[{"tool_name": "a", "parameters": {}}'
        '{"tool_name": "b", "parameters": {"x": 1}}]<|END_ACTION|>'
    )
    calls, _ = read(text, "command_r7b")
    assert calls == [("a", {}), ("b", {"x": 1})]


def test_gemma4_string_token_that_closes_no_string_breaks_the_call() -> None:
    # A bare value is read as written, but a delimiter in it is broken markup, not text.
    text = "<|tool_call>call:grep{pattern:'abc'<|\"|>}<tool_call|>"
    calls, _ = read(text, "gemma4")
    assert [c[:2] for c in calls] == [("invalid", "grep")]
    assert read("<|tool_call>call:grep{pattern:'abc'}<tool_call|>", "gemma4")[0] == [
        ("grep", {"pattern": "'abc'"})
    ]


@pytest.mark.parametrize(
    "call",
    [
        '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}\n'
        "</tool_call>",
        '<tool_call>get_weather\n{"location": "Paris", "days": 3}</tool_call>',
        "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>Paris</arg_value>\n"
        "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
    ],
)
def test_laguna_glm_call_as_a_json_object_or_a_name_and_json_arguments(call: str) -> None:
    # Laguna writes GLM's calls, and at times the call as one JSON object in the tag, or the
    # name on its line and the arguments as JSON: all three are the same call.
    calls, content = read("Checking." + call + "Done.", "glm45")
    assert calls == [("get_weather", {"location": "Paris", "days": 3})]
    assert content == "Checking.Done."


@pytest.mark.parametrize(
    "call",
    [
        '<tool_call>get_weather\n{"location": "Paris"</tool_call>',
        '<tool_call>get_weather\n{"location": "Paris"} and more</tool_call>',
        '<tool_call>{"name": "get_weather", "arguments": {"location": "Pa</tool_call>',
    ],
)
def test_laguna_glm_json_call_that_breaks_is_invalid(call: str) -> None:
    # A call that was begun never runs on arguments nobody can read, and never becomes prose.
    calls, content = read(call + "Done.", "glm45")
    assert [c[:2] for c in calls] == [("invalid", "get_weather")]
    assert content == "Done."
    (invalid,) = toolwire.parse_text(call, format="glm45").calls
    assert isinstance(invalid, toolwire.InvalidToolCall)
    assert invalid.raw == call


@pytest.mark.parametrize(
    ("fmt", "text", "name"),
    [
        (
            "deepseek_v31",
            "<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>"
            'get_weather<\uff5ctool\u2581sep\uff5c>{"city": "Paris"}<\uff5ctool\u2581c',
            "get_weather",
        ),
        (
            "kimi_k2",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
            '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_e',
            "get_weather",
        ),
        (
            "function_gemma",
            "<start_function_call>call:get_weather{city:Paris}<end_fun",
            "get_weather",
        ),
    ],
)
def test_an_end_token_cut_by_the_end_of_the_text_ends_the_call(
    fmt: str, text: str, name: str
) -> None:
    # A generation stopped inside the call's end token (Ollama's
    # `*FinalizesToolCallWithPartial*TagOnDone`): the arguments are whole, so the call is read
    # as when the token is left out, and the cut token is markup, not content.
    calls, content = read(text, fmt)
    assert calls == [(name, {"city": "Paris"})]
    assert content == ""
    # Text after the cut token is not a cut token: the call stays broken.
    calls, _ = read(text + " and more", fmt)
    assert calls[0][0] == "invalid"
