"""Two spellings real outputs use beside their format's own (issue 22), read the same way by
`extract`, `parse_text` and the stream in random chunks:

* Gemma 4's call written the Python way after its call token, `<|tool_call>call:f(query="x")`
  (small Gemma 4 models under load; vllm-mlx, llama.cpp front ends and agent harnesses read it),
  or with Gemma's own values between parentheses, `call:f(query:<|"|>x<|"|>)`;
* Llama 4's JSON call object inside its `<|python_start|>…<|python_end|>` tokens (vLLM's
  `llama4_json` tests, Ollama and Bedrock outputs), read by `pythonic` and `llama3_json`.
"""

from __future__ import annotations

from typing import Any

import pytest
from paths import read, three_paths

Q = '<|"|>'


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        ('<|tool_call>call:search(query="test")<tool_call|>', [("search", {"query": "test"})]),
        (
            "<|tool_call>call:get_weather(location='Paris')<tool_call|>",
            [("get_weather", {"location": "Paris"})],
        ),
        (
            "<|tool_call>call:f(n=2, on=True, off=None, tags=['a', \"b\"], o={'k': 1.5})"
            "<tool_call|>",
            [("f", {"n": 2, "on": True, "off": None, "tags": ["a", "b"], "o": {"k": 1.5}})],
        ),
        ("<|tool_call>call:f()<tool_call|>", [("f", {})]),
        ('<|tool_call>call:search(query="東京 🌧")', [("search", {"query": "東京 🌧"})]),
        (
            f"<|tool_call>call:web_search(query:{Q}Rust 所有权机制是什么{Q})\n<tool_call|>",
            [("web_search", {"query": "Rust 所有权机制是什么"})],
        ),
        (
            f"<|tool_call>call:memory_store(key:{Q}user_name{Q}, value:{Q}王磊{Q})",
            [("memory_store", {"key": "user_name", "value": "王磊"})],
        ),
        (
            f"<|tool_call>call:bash(command={Q}ls -la{Q}, timeout=30)<tool_call|>",
            [("bash", {"command": "ls -la", "timeout": 30})],
        ),
        (
            f'<|tool_call>call:a{{x:1}}call:b(y="z")call:c(w:{Q}v{Q})<tool_call|>',
            [("a", {"x": 1}), ("b", {"y": "z"}), ("c", {"w": "v"})],
        ),
        (
            '<|tool_call>call:a(x=1)<tool_call|><|tool_call>call:b(y="(z)")<tool_call|>',
            [("a", {"x": 1}), ("b", {"y": "(z)"})],
        ),
    ],
)
def test_gemma4_python_style_calls_after_the_call_token(text: str, calls: list[Any]) -> None:
    got, content = read(text, "gemma4")
    assert got == calls
    assert content == ""


def test_gemma4_python_style_call_keeps_the_prose_around_it() -> None:
    text = 'Let me look.\n<|tool_call>call:search(query="x")<tool_call|>\nDone.'
    calls, content = read(text, "gemma4")
    assert calls == [("search", {"query": "x"})]
    assert content.split() == ["Let", "me", "look.", "Done."]


@pytest.mark.parametrize(
    "text",
    [
        '<|tool_call>call:bash("echo hello")<tool_call|>',  # positional: no argument name
        '<|tool_call>call:f(query="unterminated)<tool_call|>',
        "<|tool_call>call:f(a=1, b=)<tool_call|>",
        f"<|tool_call>call:f(a:{Q}open)<tool_call|>",
    ],
)
def test_gemma4_broken_python_style_call_is_invalid(text: str) -> None:
    calls, _ = read(text, "gemma4")
    assert [c[0] for c in calls] == ["invalid"]


@pytest.mark.parametrize(
    "text",
    [
        "call:get_weather(city='Tokyo')",
        'Action: call:search(query="x")',
        "I will call:f(x) later.",
    ],
)
def test_gemma4_python_style_call_without_the_call_token_is_prose(text: str) -> None:
    calls, content = read(text, "gemma4")
    assert calls == []
    assert content == text


LLAMA4_CALL = '{"name": "get_weather", "parameters": {"city": "SF"}}'


@pytest.mark.parametrize("fmt", ["pythonic", "llama4_pythonic", "llama3_json", "llama4_json"])
@pytest.mark.parametrize(
    ("body", "calls"),
    [
        (LLAMA4_CALL, [("get_weather", {"city": "SF"})]),
        ('{"name": "f", "arguments": {"x": 1}}', [("f", {"x": 1})]),
        (
            '{"name": "a", "parameters": {}}; {"name": "b", "parameters": {"y": [1]}}',
            [("a", {}), ("b", {"y": [1]})],
        ),
        (
            '{"type": "function", "name": "get_status", "parameters": {}}',
            [("get_status", {})],
        ),
    ],
)
def test_llama4_json_calls_inside_its_python_tokens(fmt: str, body: str, calls: list[Any]) -> None:
    for text in (
        f"<|python_start|>{body}<|python_end|>",
        f"<|python_start|>{body}",
        f"<|python_start|>\n{body}\n<|python_end|><|eot|>",
    ):
        got, content = read(text, fmt)
        assert got == calls, (fmt, text)
        assert content == ""
    got, content = read(f"Sure. <|python_start|>{body}<|python_end|> Done.", fmt)
    assert got == calls
    assert content.split() == ["Sure.", "Done."]


@pytest.mark.parametrize("fmt", ["llama3_json", "llama4_json"])
@pytest.mark.parametrize(
    "text",
    [
        "The marker is <|python_start|> ok",
        "<|python_start|>[get_weather(city='SF')]<|python_end|>",
        "<|python_start|>no call here<|python_end|>",
        "<|python_start|>",
    ],
)
def test_llama_json_leaves_what_else_follows_the_python_token_as_text(fmt: str, text: str) -> None:
    calls, content = read(text, fmt)
    assert calls == []
    assert content == text.strip()


def test_pythonic_still_reads_its_list_and_reports_json_that_is_no_call() -> None:
    calls, _ = read("<|python_start|>[get_weather(city='SF')]<|python_end|>", "pythonic")
    assert calls == [("get_weather", {"city": "SF"})]
    calls, _ = read('<|python_start|>{"city": "SF"}<|python_end|>', "pythonic")
    assert [c[0] for c in calls] == ["invalid"]


def test_llama4_json_call_in_python_tokens_is_read_with_every_format() -> None:
    text = f"<|python_start|>{LLAMA4_CALL}<|python_end|>"
    for results in (three_paths(text, "pythonic"), three_paths(text, "llama3_json")):
        assert all(calls == [("get_weather", {"city": "SF"})] for calls, _ in results)
