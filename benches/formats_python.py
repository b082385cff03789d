"""Pure-Python detectors for the open-weight formats, written the way the peers' Python tool parsers
are (`re` + `json`, `ast` for pythonic): the baseline of `bench_formats.py`.

Each function takes model text (and, for qwen3_coder, the tool definitions) and returns
`[(name, arguments), ...]`.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

Calls = list[tuple[str, dict[str, Any]]]
_decoder = json.JSONDecoder()


def _args(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        value = json.loads(value) if value.strip() else {}
        if isinstance(value, str):
            value = json.loads(value)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError("arguments must be an object")
    return value


def _call(obj: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return obj["name"], _args(obj.get("arguments", obj.get("parameters")))


_HERMES = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)


def hermes(text: str) -> Calls:
    calls: Calls = []
    for m in _HERMES.finditer(text):
        value = json.loads(m.group(1))
        calls.extend(_call(v) for v in (value if isinstance(value, list) else [value]))
    return calls


_MISTRAL_V11 = re.compile(r"\s*([^\[\]]+?)(?:\[CALL_ID\]([^\[]*))?\[ARGS\](.*)", re.S)


def mistral(text: str) -> Calls:
    calls: Calls = []
    for piece in text.split("[TOOL_CALLS]")[1:]:
        piece = piece.strip()
        if piece.startswith(("[", "{")):
            value, _ = _decoder.raw_decode(piece)
            calls.extend(_call(v) for v in (value if isinstance(value, list) else [value]))
            continue
        m = _MISTRAL_V11.match(piece)
        if m:
            args, _ = _decoder.raw_decode(m.group(3).strip())
            calls.append((m.group(1).strip(), _args(args)))
    return calls


def llama3_json(text: str) -> Calls:
    text = text.strip().removeprefix("<|python_tag|>").strip()
    calls: Calls = []
    pos = 0
    while pos < len(text):
        value, end = _decoder.raw_decode(text, pos)
        calls.append(_call(value))
        pos = end
        m = re.compile(r"\s*;\s*").match(text, pos)
        if not m:
            break
        pos = m.end()
    return calls


def pythonic(text: str) -> Calls:
    text = text.strip().removeprefix("<|python_start|>").removesuffix("<|python_end|>").strip()
    tree = ast.parse(text, mode="eval")
    assert isinstance(tree.body, ast.List)
    calls: Calls = []
    for node in tree.body.elts:
        assert isinstance(node, ast.Call)
        name = ast.unparse(node.func)
        calls.append((name, {k.arg: _literal(k.value) for k in node.keywords if k.arg}))
    return calls


def _literal(node: ast.expr) -> Any:
    value = ast.literal_eval(node)
    return list(map(_plain, value)) if isinstance(value, tuple) else _plain(value)


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


_DEEPSEEK_V31 = re.compile(
    "<\uff5ctool\u2581call\u2581begin\uff5c>(.*?)<\uff5ctool\u2581sep\uff5c>(.*?)"
    "<\uff5ctool\u2581call\u2581end\uff5c>",
    re.S,
)


def deepseek_v31(text: str) -> Calls:
    return [
        (m.group(1).strip(), _args(json.loads(m.group(2)))) for m in _DEEPSEEK_V31.finditer(text)
    ]


_KIMI = re.compile(
    r"<\|tool_call_begin\|>\s*(\S+?)\s*<\|tool_call_argument_begin\|>\s*(.*?)\s*<\|tool_call_end\|>",
    re.S,
)


def kimi_k2(text: str) -> Calls:
    calls: Calls = []
    for m in _KIMI.finditer(text):
        name = m.group(1).removeprefix("functions.").rsplit(":", 1)[0]
        calls.append((name, _args(json.loads(m.group(2)))))
    return calls


_HARMONY = re.compile(
    r"<\|start\|>assistant(?:\s+to=(\S+?))?<\|channel\|>(\w+)(?:\s+to=(\S+?))?\s*"
    r"(?:<\|constrain\|>\w+)?<\|message\|>(.*?)<\|(?:call|end|return)\|>",
    re.S,
)


def harmony(text: str) -> Calls:
    calls: Calls = []
    for m in _HARMONY.finditer(text):
        recipient = m.group(1) or m.group(3)
        if recipient:
            calls.append((recipient.removeprefix("functions."), _args(json.loads(m.group(4)))))
    return calls


_QWEN_FUNCTION = re.compile(r"<function=(.*?)>(.*?)</function>", re.S)
_QWEN_PARAMETER = re.compile(r"<parameter=(.*?)>\n?(.*?)\n?</parameter>", re.S)


def qwen3_coder(text: str, tools: list[dict[str, Any]]) -> Calls:
    types = {t["name"]: t["parameters"].get("properties", {}) for t in tools}
    calls: Calls = []
    for f in _QWEN_FUNCTION.finditer(text):
        name = f.group(1).strip()
        props = types.get(name, {})
        args: dict[str, Any] = {}
        for p in _QWEN_PARAMETER.finditer(f.group(2)):
            key, raw = p.group(1).strip(), p.group(2)
            if props.get(key, {}).get("type") == "string":
                args[key] = raw
                continue
            try:
                args[key] = json.loads(raw)
            except ValueError:
                args[key] = raw
        calls.append((name, args))
    return calls
