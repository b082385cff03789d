"""Pure-Python detectors for the call-list formats of issue 23 (LFM2, Jamba, MiniMax-M1,
Nemotron, Granite 3, Apertus, Command R7B, Command R, Olmo 3, Phi-4-mini), written the way the
peers' Python tool parsers are (`re` + `json`, `ast` for the pythonic bodies): the baseline of
`bench_new_formats.py`.

Each function takes model text and returns `[(name, arguments), ...]`.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from formats_python import _plain

Calls = list[tuple[str, dict[str, Any]]]
_decoder = json.JSONDecoder()


def _named(items: Any) -> Calls:
    items = items if isinstance(items, list) else [items]
    return [(i["name"], i.get("arguments", i.get("parameters")) or {}) for i in items]


class _JsonNames(ast.NodeTransformer):
    """JSON's true/false/null written in a Python call, as Python constants."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        constants = {"true": True, "false": False, "null": None}
        return ast.Constant(constants[node.id]) if node.id in constants else node


def _pythonic(source: str) -> Calls:
    tree = _JsonNames().visit(ast.parse(source.strip(), mode="eval"))
    nodes = tree.body.elts if isinstance(tree.body, ast.List) else [tree.body]
    calls: Calls = []
    for node in nodes:
        assert isinstance(node, ast.Call)
        arguments = {k.arg: _plain(ast.literal_eval(k.value)) for k in node.keywords if k.arg}
        calls.append((ast.unparse(node.func), arguments))
    return calls


def _between(start: str, end: str) -> re.Pattern[str]:
    return re.compile(re.escape(start) + r"\s*(.*?)\s*(?:" + re.escape(end) + "|$)", re.S)


_LFM2 = _between("<|tool_call_start|>", "<|tool_call_end|>")
_JAMBA = _between("<tool_calls>", "</tool_calls>")
_NEMOTRON = _between("<TOOLCALL>", "</TOOLCALL>")
_APERTUS = _between("<|tools_prefix|>", "<|tools_suffix|>")
_COHERE = _between("<|START_ACTION|>", "<|END_ACTION|>")
_OLMO3 = _between("<function_calls>", "</function_calls>")


def lfm2(text: str) -> Calls:
    calls: Calls = []
    for m in _LFM2.finditer(text):
        body = m.group(1)
        if re.match(r"\[\s*[{\]]", body):
            calls.extend(_named(json.loads(body)))
        elif body:
            calls.extend(_pythonic(body))
    return calls


def jamba(text: str) -> Calls:
    return [c for m in _JAMBA.finditer(text) for c in _named(json.loads(m.group(1)))]


def minimax_m1(text: str) -> Calls:
    return [
        c
        for m in _JAMBA.finditer(text)
        for line in m.group(1).splitlines()
        if line.strip()
        for c in _named(json.loads(line))
    ]


def nemotron(text: str) -> Calls:
    return [c for m in _NEMOTRON.finditer(text) for c in _named(json.loads(m.group(1)))]


def granite(text: str) -> Calls:
    calls: Calls = []
    for piece in text.split("<|tool_call|>")[1:]:
        value, _ = _decoder.raw_decode(piece.strip())
        calls.extend(_named(value))
    return calls


def apertus(text: str) -> Calls:
    calls: Calls = []
    for m in _APERTUS.finditer(text):
        calls.extend(next(iter(item.items())) for item in json.loads(m.group(1)))
    return calls


def command_r7b(text: str) -> Calls:
    calls: Calls = []
    for m in _COHERE.finditer(text):
        calls.extend((i["tool_name"], i.get("parameters", {})) for i in json.loads(m.group(1)))
    return calls


def command_r(text: str) -> Calls:
    text = re.sub(r"^\s*<think>.*?</think>", "", text, flags=re.S).lstrip()
    if not text.startswith("Action: ```json"):
        return []
    value, _ = _decoder.raw_decode(text.removeprefix("Action: ```json").lstrip())
    items = value if isinstance(value, list) else [value]
    return [(i["tool_name"], i.get("parameters", {})) for i in items]


def olmo3(text: str) -> Calls:
    calls: Calls = []
    for m in _OLMO3.finditer(text):
        for line in m.group(1).splitlines():
            if line.strip():
                calls.extend(_pythonic(line))
    return calls


def phi4_mini(text: str) -> Calls:
    text = re.sub(r"^\s*<think>.*?</think>", "", text, flags=re.S).lstrip()
    if not text.startswith("functools["):
        return []
    value, _ = _decoder.raw_decode(text, len("functools"))
    return _named(value)
