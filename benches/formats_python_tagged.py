"""Pure-Python detectors for the Functionary v3.2, InternLM2, Gemma and Inkling formats of issue 23,
written the way the peers' Python tool parsers are (`re` + `json`, a small recursive reader
for Gemma's value syntax): the baseline of `bench_new_formats.py`.

Each function takes model text and returns `[(name, arguments), ...]`.
"""

from __future__ import annotations

import json
import re
from typing import Any

Calls = list[tuple[str, dict[str, Any]]]
_decoder = json.JSONDecoder()


def _json_calls(pattern: str) -> Any:
    """A detector of JSON call objects between the tokens of `pattern`."""
    bodies = re.compile(pattern, re.DOTALL)

    def detect(text: str) -> Calls:
        calls = []
        for body in bodies.findall(text):
            call = json.loads(body)
            args = call.get("parameters", call.get("arguments", call.get("args")))
            calls.append((call["name"], args or {}))
        return calls

    return detect


internlm2 = _json_calls(r"<\|action_start\|><\|plugin\|>(.*?)<\|action_end\|>")
inkling = _json_calls(r"<\|content_invoke_tool_json\|>(.*?)(?:<\|end_message\|>|$)")


_HEADER = re.compile(r"([A-Za-z0-9_-]+)\n")


def functionary_v3_2(text: str) -> Calls:
    # The generation prompt ends with the first `>>>`.
    messages = (text if text.startswith(">>>") else ">>>" + text).split(">>>")[1:]
    calls = []
    for message in messages:
        header = _HEADER.match(message)
        if header is None or header[1] == "all":
            continue
        arguments, _ = _decoder.raw_decode(message, header.end())
        calls.append((header[1], arguments))
    return calls


def _gemma(text: str, start: str, end: str, quote: str) -> Calls:
    call = re.compile(re.escape(start) + r"call:([\w.-]+)\{")
    calls = []
    for found in call.finditer(text):
        arguments, at = _gemma_value(text, found.end() - 1, quote)
        if not text.startswith(end, at):
            raise ValueError(f"expected {end} at {at}")
        calls.append((found[1], arguments))
    return calls


def _gemma_value(text: str, at: int, quote: str) -> tuple[Any, int]:
    if text.startswith(quote, at):
        close = text.index(quote, at + len(quote))
        return text[at + len(quote) : close], close + len(quote)
    opener = text[at]
    if opener in "{[":
        closer = "}" if opener == "{" else "]"
        container: Any = {} if opener == "{" else []
        at += 1
        while text[at] != closer:
            if opener == "{":
                colon = text.index(":", at)
                key = text[at:colon]
                value, at = _gemma_value(text, colon + 1, quote)
                container[key] = value
            else:
                value, at = _gemma_value(text, at, quote)
                container.append(value)
            if text[at] == ",":
                at += 1
        return container, at + 1
    literal = re.match(r"[^,}\]]*", text[at:])
    assert literal is not None
    return json.loads(literal[0]), at + literal.end()


def function_gemma(text: str) -> Calls:
    return _gemma(text, "<start_function_call>", "<end_function_call>", "<escape>")


def gemma4(text: str) -> Calls:
    return _gemma(text, "<|tool_call>", "<tool_call|>", '<|"|>')
