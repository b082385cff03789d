"""The XML and token-section formats of issue 23, on the corpus rendered in each
(`tests/renderers.py`): `extract(formats="auto")` and the stream (`StreamParser`, 64-character
chunks) against a straightforward pure-Python detector of the format (regular expressions and
`json`), in the same run. All three must give the corpus calls before anything is timed.

    python -m pytest benches/bench_new_formats_xml.py --benchmark-group-by=param:name \
        --benchmark-columns=min,mean,rounds
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import toolwire

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from renderers import RENDERERS
from support import cases

Calls = list[tuple[str, dict[str, Any]]]
Tools = list[dict[str, Any]]
Item = tuple[str, Tools, Calls]

FORMATS = (
    *("seed_oss", "gigachat3", "gigachat35", "longcat", "dots", "muse_glimmer", "step3"),
    "hy_v3",
    "hy_v4",
    "kimi_k3",
    "minimax_m3",
    "solar_open2",
)


def renderings(name: str) -> list[Item]:
    items: list[Item] = []
    for k, case in enumerate(cases()):
        text = RENDERERS[name](case, k)
        if text is not None:
            expected = [(c["name"], c["arguments"]) for c in case["calls"]]
            items.append((text, case["tools"], expected))
    return items


# --- the pure-Python detectors ------------------------------------------------------------------


def _typed(raw: str, declared: Any) -> Any:
    """A raw-text value: one newline stripped each side, kept as text for a `string`
    property, else JSON when it parses."""
    raw = raw.removeprefix("\n").removesuffix("\n")
    if declared == "string":
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _properties(tools: Tools) -> dict[str, dict[str, Any]]:
    return {t["name"]: t.get("parameters", {}).get("properties", {}) for t in tools}


_SEED = re.compile(
    r"<seed:tool_call>\s*<function=([^>\n]+)>(.*?)</function>\s*</seed:tool_call>", re.S
)
_PARAMETER = re.compile(r"<parameter=([^>\n]+)>(.*?)</parameter>", re.S)


def seed_oss(text: str, tools: Tools) -> Calls:
    props = _properties(tools)
    calls: Calls = []
    for m in _SEED.finditer(text):
        name = m.group(1).strip()
        types = props.get(name, {})
        args = {
            p.group(1).strip(): _typed(p.group(2), types.get(p.group(1).strip(), {}).get("type"))
            for p in _PARAMETER.finditer(m.group(2))
        }
        calls.append((name, args))
    return calls


_GIGA = re.compile(r"(?:<\|message_sep\|>\s*function call\s*<\|role_sep\|>|<\|function_call\|>)\s*")
_DECODER = json.JSONDecoder()


def gigachat3(text: str, tools: Tools) -> Calls:
    calls: Calls = []
    for m in _GIGA.finditer(text):
        obj, _ = _DECODER.raw_decode(text, m.end())
        calls.append((obj["name"], obj["arguments"]))
    return calls


def _invoke_detector(tag: str, wrap: str) -> Callable[[str, Tools], Calls]:
    block = re.compile(rf"<{wrap}>(.*?)</{wrap}>|<{wrap}>(.*)$", re.S)
    invoke = re.compile(rf'<{tag}invoke name="([^"]+)">(.*?)</{tag}invoke>', re.S)
    parameter = re.compile(rf'<{tag}parameter name="([^"]+)"([^>]*)>(.*?)</{tag}parameter>', re.S)

    def detect(text: str, tools: Tools) -> Calls:
        props = _properties(tools)
        calls: Calls = []
        for b in block.finditer(text):
            for i in invoke.finditer(b.group(1) or b.group(2)):
                name = i.group(1).strip()
                if i.group(2).strip().startswith("{"):
                    calls.append((name, json.loads(i.group(2))))
                    continue
                types = props.get(name, {})
                args = {}
                for p in parameter.finditer(i.group(2)):
                    key = p.group(1).strip()
                    declared = "string" if 'string="true"' in p.group(2) else None
                    args[key] = _typed(p.group(3), declared or types.get(key, {}).get("type"))
                calls.append((name, args))
        return calls

    return detect


_LONGCAT = re.compile(r"<longcat_tool_call>\s*(.*?)\s*</longcat_tool_call>", re.S)


def longcat(text: str, tools: Tools) -> Calls:
    return [
        (call["name"], call["arguments"])
        for m in _LONGCAT.finditer(text)
        for call in [json.loads(m.group(1))]
    ]


def _hy_detector(suffixed: bool) -> Callable[[str, Tools], Calls]:
    """HY v3's calls (`<tool_sep>` optional) in `<tool_calls>` lists, or HY v4's, every tag
    with the suffix of the list's opening tag."""
    suffix = r"(:[^\s<>]+)" if suffixed else "()"
    blocks = re.compile(rf"<tool_calls{suffix}>(.*?)(?:</tool_calls\1>|$)", re.S)

    def detect(text: str, tools: Tools) -> Calls:
        props = _properties(tools)
        calls: Calls = []
        for block in blocks.finditer(text):
            s = re.escape(block.group(1))
            call = rf"<tool_call{s}>(.*?)(?:<tool_sep>)?\s*((?:<arg_key{s}>.*?)?)\s*</tool_call{s}>"
            pair = rf"<arg_key{s}>(.*?)</arg_key{s}>\s*<arg_value{s}>(.*?)</arg_value{s}>"
            for name, pairs in re.findall(call, block.group(2), re.S):
                types = props.get(name.strip(), {})
                args = {
                    k: _typed(v, types.get(k, {}).get("type"))
                    for k, v in re.findall(pair, pairs, re.S)
                }
                calls.append((name.strip(), args))
        return calls

    return detect


_K3_TOOLS = re.compile(r"<\|open\|>tools<\|sep\|>(.*?)(?:<\|close\|>tools<\|sep\|>|$)", re.S)
_K3_CALL = re.compile(r"<\|open\|>call ([^<]*)<\|sep\|>(.*?)<\|close\|>call<\|sep\|>", re.S)
_K3_ARG = re.compile(r"<\|open\|>argument ([^<]*)<\|sep\|>(.*?)<\|close\|>argument<\|sep\|>", re.S)
_K3_ATTR = re.compile(r'(\w+)="([^"]*)"')


def kimi_k3(text: str, tools: Tools) -> Calls:
    props = _properties(tools)
    calls: Calls = []
    for block in _K3_TOOLS.finditer(text):
        for head, body in _K3_CALL.findall(block.group(1)):
            name = dict(_K3_ATTR.findall(head))["tool"]
            args = {}
            for attrs, raw in _K3_ARG.findall(body):
                attr = dict(_K3_ATTR.findall(attrs))
                declared = "string" if attr.get("type") == "string" else None
                key = attr["key"]
                args[key] = _typed(raw, declared or props.get(name, {}).get(key, {}).get("type"))
            calls.append((name, args))
    return calls


_M3 = re.escape("]<]minimax[>[")
_M3_INVOKE = re.compile(rf'{_M3}<invoke name="([^"]+)">(.*?){_M3}</invoke>', re.S)
_M3_TAG = re.compile(rf"{_M3}<(/?)([^>\s/]+)>")


def _m3_value(node: dict[str, Any], declared: Any) -> Any:
    """An element: text (typed by `declared`), a list of `<item>`s, or an object of elements."""
    children = node["children"]
    if not children:
        return _typed(node["text"], declared)
    if all(child["name"] == "item" for child in children):
        return [_m3_value(child, None) for child in children]
    return {child["name"]: _m3_value(child, None) for child in children}


def minimax_m3(text: str, tools: Tools) -> Calls:
    props = _properties(tools)
    calls: Calls = []
    for name, body in _M3_INVOKE.findall(text):
        stack: list[dict[str, Any]] = [{"name": "", "children": [], "text": ""}]
        at = 0
        for tag in _M3_TAG.finditer(body):
            stack[-1]["text"] += body[at : tag.start()]
            if tag.group(1):
                element = stack.pop()
                stack[-1]["children"].append(element)
            else:
                stack.append({"name": tag.group(2), "children": [], "text": ""})
            at = tag.end()
        types = props.get(name, {})
        args = {
            child["name"]: _m3_value(child, types.get(child["name"], {}).get("type"))
            for child in stack[0]["children"]
        }
        calls.append((name, args))
    return calls


_SOLAR_CALL = re.compile(r"<\|tool_call:start\|>([^\n]*)\n(.*?)<\|tool_call:end\|>", re.S)
_SOLAR_ARG = re.compile(
    r"<\|tool_arg:start\|>(.*?)<\|tool_arg:value\|>(.*?)<\|tool_arg:end\|>", re.S
)


def solar_open2(text: str, tools: Tools) -> Calls:
    props = _properties(tools)
    calls: Calls = []
    for name, body in _SOLAR_CALL.findall(text):
        types = props.get(name, {})
        args = {k: _typed(v, types.get(k, {}).get("type")) for k, v in _SOLAR_ARG.findall(body)}
        calls.append((name, args))
    return calls


DETECTORS: dict[str, Callable[[str, Tools], Calls]] = {
    "seed_oss": seed_oss,
    "gigachat3": gigachat3,
    "gigachat35": _invoke_detector("\uff5cGCML\uff5c", "\uff5cGCML\uff5ctool_calls"),
    "longcat": longcat,
    "dots": _invoke_detector("", "dots_function_call"),
    "muse_glimmer": _invoke_detector("atem:", "atem:function_calls"),
    "step3": _invoke_detector("steptml:", "\uff5ctool_calls_begin\uff5c"),
    "hy_v3": _hy_detector(suffixed=False),
    "hy_v4": _hy_detector(suffixed=True),
    "kimi_k3": kimi_k3,
    "minimax_m3": minimax_m3,
    "solar_open2": solar_open2,
}


# --- the runs ------------------------------------------------------------------------------------


def extract_run(items: list[Item]) -> list[Calls]:
    extract = toolwire.extract
    return [[(c.name, c.arguments) for c in extract(t, tools=tools)] for t, tools, _ in items]


def stream_run(items: list[Item]) -> list[Calls]:
    results = []
    for text, tools, _ in items:
        parser = toolwire.StreamParser(tools=tools)
        events = []
        for at in range(0, len(text), 64):
            events += parser.feed(text[at : at + 64])
        events += parser.finish()
        results.append(
            [(e.call.name, e.call.arguments) for e in events if e.kind == "tool_call_end"]
        )
    return results


def python_run(name: str) -> Callable[[list[Item]], list[Calls]]:
    detect = DETECTORS[name]
    return lambda items: [detect(text, tools) for text, tools, _ in items]


@pytest.mark.parametrize("impl", ["toolwire_extract", "toolwire_stream", "python_regex"])
@pytest.mark.parametrize("name", FORMATS)
def test_new_formats(benchmark: Any, name: str, impl: str) -> None:
    items = renderings(name)
    runs = {"toolwire_extract": extract_run, "toolwire_stream": stream_run}
    run = runs[impl] if impl in runs else python_run(name)
    benchmark.group = f"new formats {name}"
    results = benchmark(run, items)
    assert results == [expected for _, _, expected in items]
