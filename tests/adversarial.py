"""Hostile inputs shared by tests/test_adversarial.py (at full size) and benches/linearity.py
(at n and 2n): each is a generator of size n and the API call to run on it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import toolwire


def ds(token: str) -> str:
    """A DeepSeek token: `tool_sep` is `tool\u2581sep` between U+FF5C bars (\u2581 is U+2581)."""
    return "<\uff5c" + token.replace("_", "\u2581") + "\uff5c>"


DS_BEGIN = ds("tool_calls_begin") + ds("tool_call_begin")
DS_SEP = ds("tool_sep")
DS_END = ds("tool_call_end") + ds("tool_calls_end")

# One call to `f` with {"a": "x y"} in every text protocol and format.
CALLS: dict[str, str] = {
    "text_tagged": '~~~tool_call\n{"name": "f", "arguments": {"a": "x y"}}\n~~~\n',
    "hermes": '<tool_call>\n{"name": "f", "arguments": {"a": "x y"}}\n</tool_call>',
    "qwen3_coder": "<tool_call>\n<function=f>\n<parameter=a>\nx y\n</parameter>\n</function>\n"
    "</tool_call>",
    "mistral": '[TOOL_CALLS][{"name": "f", "arguments": {"a": "x y"}}]',
    "mistral_v11": '[TOOL_CALLS]f[CALL_ID]abc123XYZ[ARGS]{"a": "x y"}',
    "llama3_json": '<|python_tag|>{"name": "f", "parameters": {"a": "x y"}}',
    "pythonic": "[f(a='x y')]",
    "deepseek_v3": DS_BEGIN + "function" + DS_SEP + 'f\n```json\n{"a": "x y"}\n```' + DS_END,
    "deepseek_v31": DS_BEGIN + "f" + DS_SEP + '{"a": "x y"}' + DS_END,
    "kimi_k2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
    '<|tool_call_argument_begin|>{"a": "x y"}<|tool_call_end|><|tool_calls_section_end|>',
    "harmony": "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json"
    '<|message|>{"a": "x y"}<|call|>',
    "glm45": "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>x y</arg_value>\n</tool_call>",
    "raw_json": '{"name": "f", "arguments": {"a": "x y"}}',
    "raw_json_fenced": 'Here:\n```json\n{"name": "f", "arguments": {"a": "x y"}}\n```\n',
}

# Every marker of every text protocol and format, plus code fences and think tags.
MARKERS: list[str] = [
    "~~~tool_call\n",
    "~~~tool_call",
    "~~~\n",
    "```",
    "```\n",
    "```json\n",
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<function=",
    "</function>",
    "<parameter=",
    "</parameter>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "[TOOL_CALLS]",
    "[CALL_ID]",
    "[ARGS]",
    "<|python_tag|>",
    "<|python_start|>",
    "<|python_end|>",
    *(ds(t) for t in ["tool_calls_begin", "tool_call_begin", "tool_sep", "tool_call_end"]),
    ds("tool_calls_end"),
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
    "<|start|>",
    "<|channel|>",
    "<|message|>",
    "<minimax:tool_call>",
    '<invoke name="f">',
    "</invoke>",
    '<parameter name="a">',
    "</minimax:tool_call>",
    "<\uff5cDSML\uff5cfunction_calls>",
    "<\uff5cDSML\uff5ctool_calls>",
    '<\uff5cDSML\uff5cinvoke name="f">',
    '<\uff5cDSML\uff5cparameter name="a" string="true">',
    "</\uff5cDSML\uff5cinvoke>",
    "<|constrain|>",
    "<|call|>",
    "<|end|>",
    "functions.",
    "[f(",
    '{"name": "f", "parameters": {}}; ',
    "{",
    "[",
]


def outcome(run: Callable[[Any], Any], data: Any) -> Any:
    """The result of `run(data)`, or the `ToolwireError` it raised (anything else escapes)."""
    try:
        return run(data)
    except toolwire.ToolwireError as error:
        return error


def keep(data: str | bytes) -> list[Any]:
    return toolwire.extract(data, on_error="keep")


def skip(data: str | bytes) -> list[Any]:
    return toolwire.extract(data, on_error="skip")


def anywhere(data: str | bytes) -> list[Any]:
    return toolwire.parse_raw_json(data, mode="anywhere", on_error="keep")


def parsed(data: str | bytes) -> Any:
    """The stream engine on the whole text (`parse_text`, every format)."""
    return toolwire.parse_text(data).calls


def streamed(data: str, size: int = 5) -> list[Any]:
    """The calls of the stream engine fed `size`-character chunks."""
    parser = toolwire.StreamParser()
    events: list[Any] = []
    for i in range(0, len(data), size):
        events += parser.feed(data[i : i + size])
    events += parser.finish()
    return [
        e.call if isinstance(e, toolwire.ToolCallEnd) else e
        for e in events
        if isinstance(e, toolwire.ToolCallEnd | toolwire.InvalidToolCall)
    ]


def streamed_4(data: str) -> list[Any]:
    """The calls of the stream engine fed 4-character chunks (issue 20's unclosed names)."""
    return streamed(data, 4)


def nested_arrays(n: int) -> str:
    return "[" * n + "]" * n


def nested_objects(n: int) -> str:
    return '{"a":' * n + "1" + "}" * n


def fenced(text: str) -> str:
    return "~~~tool_call\n" + text + "\n~~~\n"


def hermes(text: str) -> str:
    return "<tool_call>" + text + "</tool_call>"


def prose(n: int) -> str:
    line = "The quick brown fox jumps over the lazy dog; {not json} [neither] <b>tag</b>.\n"
    return (line * (n // len(line) + 1))[:n]


def big_argument(n: int) -> str:
    return '~~~tool_call\n{"name": "f", "arguments": {"a": "' + "x" * n + '"}}\n~~~\n'


def unterminated_string(n: int) -> str:
    return '~~~tool_call\n{"name": "f", "arguments": {"a": "' + "x ~~~\n" * (n // 6)


def unterminated_blocks(n: int) -> str:
    return '~~~tool_call\n{"name": "f", "arguments": {"a": "\n' * n


def many_calls(protocol: str, n: int) -> str:
    """`n` calls to `f` with {"i": k} in one response."""
    if protocol == "text_tagged":
        return "".join(
            f'~~~tool_call\n{{"name": "f", "arguments": {{"i": {k}}}}}\n~~~\n' for k in range(n)
        )
    if protocol == "hermes":
        return "".join(
            f'<tool_call>{{"name": "f", "arguments": {{"i": {k}}}}}</tool_call>\n' for k in range(n)
        )
    if protocol == "raw_json":
        return (
            "[" + ", ".join(f'{{"name": "f", "arguments": {{"i": {k}}}}}' for k in range(n)) + "]"
        )
    if protocol == "llama3_json":
        return "; ".join(f'{{"name": "f", "parameters": {{"i": {k}}}}}' for k in range(n))
    if protocol == "mistral_v11":
        return "".join(f'[TOOL_CALLS]f[ARGS]{{"i": {k}}}' for k in range(n))
    if protocol == "pythonic":
        return "[" + ", ".join(f"f(i={k})" for k in range(n)) + "]"
    raise ValueError(protocol)


MANY_CALL_PROTOCOLS = [
    "text_tagged",
    "hermes",
    "raw_json",
    "llama3_json",
    "mistral_v11",
    "pythonic",
]


def native_body(n: int) -> dict[str, Any]:
    calls = [
        {"id": f"c{k}", "type": "function", "function": {"name": "f", "arguments": f'{{"i": {k}}}'}}
        for k in range(n)
    ]
    return {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": calls}}]}


@dataclass(frozen=True)
class Case:
    """An adversarial input family: `make(n)` builds it, `run` parses it."""

    name: str
    make: Callable[[int], Any]
    run: Callable[[Any], Any]
    # Size for the adversarial test, and the base size for the linearity check.
    full: int
    base: int


def cases() -> list[Case]:
    found = [
        Case("nested arrays (anywhere)", nested_arrays, anywhere, 10**6, 200_000),
        Case("nested arrays (extract)", nested_arrays, keep, 10**6, 200_000),
        Case("nested objects (anywhere)", nested_objects, anywhere, 10**6, 100_000),
        Case("nested arrays in a fence", lambda n: fenced(nested_arrays(n)), keep, 10**6, 200_000),
        Case(
            "nested arrays in <tool_call>", lambda n: hermes(nested_arrays(n)), keep, 10**6, 200_000
        ),
        Case("nested pythonic", lambda n: "[f(a=" + "[" * n + ")]", keep, 10**6, 200_000),
        Case("prose", prose, keep, 100_000_000, 4_000_000),
        Case("prose as bytes", lambda n: prose(n).encode(), keep, 100_000_000, 4_000_000),
        Case("100 MB argument", big_argument, keep, 100_000_000, 4_000_000),
        Case("open braces", lambda n: "{" * n, anywhere, 100_000_000, 1_000_000),
        Case("unterminated string", unterminated_string, keep, 10**7, 1_000_000),
        Case("unterminated blocks", unterminated_blocks, skip, 10**5, 20_000),
        Case("NUL bytes", lambda n: "\x00" * n, keep, 10**7, 2_000_000),
        Case(
            "CR-only lines",
            lambda n: CALLS["text_tagged"].replace("\n", "\r") * (n // 60),
            keep,
            10**7,
            1_000_000,
        ),
        Case("invalid UTF-8 at the end", lambda n: b"x" * n + b"\xff", keep, 10**7, 2_000_000),
    ]
    found += [
        Case(f"marker {marker!r}", lambda n, m=marker: m * n, skip, 10**6, 50_000)
        for marker in MARKERS
    ]
    found += [
        Case(f"stream: marker {marker!r}", lambda n, m=marker: m * n, parsed, 10**5, 20_000)
        for marker in MARKERS
    ]
    found += [
        Case("stream: nested arrays", nested_arrays, parsed, 10**6, 200_000),
        Case(
            "stream: nested in <tool_call>",
            lambda n: hermes(nested_arrays(n)),
            parsed,
            10**6,
            200_000,
        ),
        Case("stream: 10 MB argument in 5-char chunks", big_argument, streamed, 10**7, 200_000),
        Case(
            "stream: unterminated string in 5-char chunks",
            unterminated_string,
            streamed,
            10**6,
            200_000,
        ),
        Case("stream: prose in 5-char chunks", prose, streamed, 10**6, 200_000),
        # A name that never closes, fed in small chunks: its search resumes where it stopped.
        Case(
            "stream: unclosed <function= name in 4-char chunks",
            lambda n: "<tool_call>\n<function=" + "x" * n,
            streamed_4,
            10**6,
            200_000,
        ),
        Case(
            "stream: unclosed <parameter= name in 4-char chunks",
            lambda n: "<tool_call>\n<function=f>\n<parameter=" + "x" * n,
            streamed_4,
            10**6,
            200_000,
        ),
        Case(
            "stream: repeated <function= in 4-char chunks",
            lambda n: "<function=" * (n // 10),
            streamed_4,
            10**6,
            200_000,
        ),
        Case(
            "stream: unclosed invoke tag in 5-char chunks",
            lambda n: '<minimax:tool_call><invoke name="' + "x" * n,
            streamed,
            10**6,
            200_000,
        ),
        Case(
            "stream: unclosed mistral name in 5-char chunks",
            lambda n: "[TOOL_CALLS]" + "x" * n,
            streamed,
            10**6,
            200_000,
        ),
        Case("stream: open braces", lambda n: "{" * n, parsed, 10**7, 1_000_000),
    ]
    # Issue 20, part 2: near-miss fences, call objects in a row, repeated call keys.
    near_misses: list[tuple[str, Callable[[int], str]]] = [
        ("spaced opening fences", lambda n: "~~~ tool_call\n" * (n // 14)),
        ("spaces before tool_call", lambda n: "~~~" + " " * n + "tool_call"),
        ("tool_call words", lambda n: "tool_call " * (n // 10)),
        ("closing lines with prose", lambda n: "~~~tool_call\n{}\n~~~ and prose\n" * (n // 30)),
        ("open quotes before opening lines", lambda n: '~~~tool_call\n"\n~~~\n' * (n // 18)),
        ("call objects in a row", lambda n: '{"name": "f", "arguments": {}}\n' * (n // 32)),
        (
            "repeated name keys",
            lambda n: "~~~tool_call\n{" + '"name": "a", ' * (n // 13) + '"arguments": {}}\n~~~\n',
        ),
    ]
    for name, make in near_misses:
        found.append(Case(name, make, keep, 10**6, 100_000))
        found.append(Case(f"stream: {name} in 4-char chunks", make, streamed_4, 10**6, 100_000))
    found += [
        Case(f"{protocol} calls", lambda n, p=protocol: many_calls(p, n), keep, 10**5, 10_000)
        for protocol in MANY_CALL_PROTOCOLS
    ]
    found += [
        Case(
            f"stream: {protocol} calls",
            lambda n, p=protocol: many_calls(p, n),
            parsed,
            10**5,
            10_000,
        )
        for protocol in MANY_CALL_PROTOCOLS
    ]
    found.append(Case("native calls", native_body, keep, 10**5, 10_000))
    return found
