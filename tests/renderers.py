"""Renderings of the corpus calls in the formats the shared corpus was not rendered in, by
toolwire's own generator (deterministic: a case's variant depends on its index only). Each
function takes a case and its index and returns model text; `None` when the format cannot
write one of the calls so that it reads back the same (an XML-style value is text typed by
the tool schema: a value whose JSON type the schema contradicts cannot be written)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Case = dict[str, Any]

# Formats written with another format's markers: sniffing cannot tell them apart and reads
# their text as that one (HyperCLOVA X SEED Think's values are JSON-encoded, glm45's are not).
SNIFFED_AS = {"hyperclovax_seed_think": "glm45"}


def as_auto_reads(name: str, text: str) -> str:
    """`text` of format `name` with the start marker its chat template's generation prompt
    wrote, where only naming the format assumes it (Functionary v3.2's first `>>>`): the text
    `formats="auto"` reads as the named format reads `text`."""
    if name == "functionary_v3_2" and not text.startswith(">>>"):
        return ">>>" + text
    return text


JSON_TYPES = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "object": dict,
    "array": list,
}


def _typed_as_written(case: Case) -> bool:
    """Whether every argument's JSON type is one its property's schema `type` allows (or the
    schema gives no single type), so that typing the written text gives the value back."""
    tools = {t["name"]: t.get("parameters", {}).get("properties", {}) for t in case["tools"]}
    for call in case["calls"]:
        properties = tools.get(call["name"], {})
        for key, value in call["arguments"].items():
            declared = properties.get(key, {}).get("type")
            if not isinstance(declared, str) or declared not in JSON_TYPES:
                continue
            expected = JSON_TYPES[declared]
            if isinstance(value, bool) and declared != "boolean":
                return False
            if not isinstance(value, expected):
                return False
    return True


def _text(value: Any) -> str:
    """A parameter value as XML-style formats write it: strings as they are, the rest as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _invokes(
    case: Case, k: int, tag: str, wrap: tuple[str, str], frame: tuple[str, str] = ("", "")
) -> str | None:
    """The calls as `<{tag}invoke name=…><{tag}parameter name=…>` blocks (MiniMax-M2's shape)
    in the wrapper `wrap`, each invoke inside `frame` (Step-3's call tokens)."""
    if not _typed_as_written(case):
        return None
    nl = "\n" if k % 2 else ""
    invokes = []
    for call in case["calls"]:
        params = "".join(
            f'{nl}<{tag}parameter name="{key}">{_text(value)}</{tag}parameter>'
            for key, value in call["arguments"].items()
        )
        invoke = f'<{tag}invoke name="{call["name"]}">{params}{nl}</{tag}invoke>'
        invokes.append(f"{nl}{frame[0]}{invoke}{frame[1]}")
    block = f"{wrap[0]}{''.join(invokes)}{nl}{wrap[1]}"
    if k % 5 == 0:
        block = "Let me look that up.\n\n" + block
    if k % 7 == 0:
        block = "<think>The user wants a tool.</think>" + block
    return block


def minimax_m2(case: Case, k: int) -> str | None:
    return _invokes(case, k, "", ("<minimax:tool_call>", "</minimax:tool_call>"))


def dots(case: Case, k: int) -> str | None:
    return _invokes(case, k, "", ("<dots_function_call>", "</dots_function_call>"))


_M3 = "]<]minimax[>["


def _reads_as_text(value: str) -> bool:
    """Whether an untyped XML-style value reads back as this string (not JSON, nor a Python
    word)."""
    if value in ("True", "False", "None"):
        return False
    try:
        json.loads(value)
    except ValueError:
        return True
    return False


def _m3_elements(value: Any, typed: bool) -> str | None:
    """A MiniMax-M3 element's body: objects as elements, lists as `<item>`s, the rest as text
    (`typed`: the schema types it, so a string may look like JSON)."""
    if isinstance(value, dict):
        if not value or list(value) == ["item"]:
            return None
        parts = []
        for key, item in value.items():
            body = _m3_elements(item, False)
            if body is None or not key.isidentifier():
                return None
            parts.append(f"{_M3}<{key}>{body}{_M3}</{key}>")
        return "".join(parts)
    if isinstance(value, list):
        items = [_m3_elements(item, False) for item in value]
        if not items or None in items:
            return None
        return "".join(f"{_M3}<item>{body}{_M3}</item>" for body in items)
    if value is None:
        return None
    if isinstance(value, str):
        if _M3 in value or value != value.strip() or not (typed or _reads_as_text(value)):
            return None
        return value
    return json.dumps(value)


def minimax_m3(case: Case, k: int) -> str | None:
    """MiniMax-M3: every tag behind the namespace token, arguments as elements named by key."""
    if not _typed_as_written(case):
        return None
    tools = {t["name"]: t.get("parameters", {}).get("properties", {}) for t in case["tools"]}
    nl = "\n" if k % 2 else ""
    invokes = []
    for call in case["calls"]:
        properties = tools.get(call["name"], {})
        params = []
        for key, value in call["arguments"].items():
            typed = properties.get(key, {}).get("type") == "string"
            body = _m3_elements(value, typed)
            if body is None or not key.isidentifier():
                return None
            params.append(f"{_M3}<{key}>{body}{_M3}</{key}>")
        invokes.append(f'{_M3}<invoke name="{call["name"]}">{"".join(params)}{_M3}</invoke>{nl}')
    block = f"{_M3}<tool_call>\n{''.join(invokes)}{_M3}</tool_call>"
    if k % 5 == 0:
        block = "I will look that up.\n" + block
    if k % 7 == 0:
        block = "<think>The user wants a tool.</think>" + block
    return block


def solar_open2(case: Case, k: int) -> str | None:
    """Solar Open 2: one call per start token, its name on that line, token-delimited pairs."""
    if not _typed_as_written(case):
        return None
    nl = "\n" if k % 2 else ""
    calls = []
    for call in case["calls"]:
        args = "".join(
            f"<|tool_arg:start|>{key}<|tool_arg:value|>{_text(value)}<|tool_arg:end|>\n"
            for key, value in call["arguments"].items()
        )
        calls.append(f"<|tool_call:start|>{call['name']}\n{args}<|tool_call:end|>{nl}")
    text = "".join(calls)
    if k % 5 == 0:
        text = "Let me check.\n" + text
    return text


def rwkv(case: Case, k: int) -> str:
    """RWKV: each call a `**Tool Call:**` line and a ```json fence, on lines of their own
    (the fence on the label's line on some cases), prose on the line before on others."""
    sep = " " if k % 3 == 1 else "\n"
    indent = 2 if k % 2 else None
    objects = [{"name": c["name"], "arguments": c["arguments"]} for c in case["calls"]]
    calls = [
        f"**Tool Call:**{sep}```json\n{json.dumps(o, ensure_ascii=False, indent=indent)}\n```"
        for o in objects
    ]
    text = "\n".join(calls)
    if k % 5 == 0:
        text = "Let me check.\n" + text
    return text


def cwm(case: Case, k: int) -> str:
    """CWM: each call `<tool: NAME>` and its arguments as a JSON object (the free-text input is
    the one argument `command`, rendered so where the arguments are only that), then `</tool>`."""
    blocks = []
    for c in case["calls"]:
        args = c["arguments"]
        command = args.get("command") if list(args) == ["command"] else None
        plain = isinstance(command, str) and command == command.strip() and command[:1] not in "{"
        body = command if plain else json.dumps(args, ensure_ascii=False)
        blocks.append(f"<tool: {c['name']}>\n{body}\n</tool>")
    text = "\n".join(blocks)
    if k % 5 == 0:
        text = "<think>The user wants a tool.</think>\nLet me check.\n" + text
    return text


def muse_glimmer(case: Case, k: int) -> str | None:
    return _invokes(case, k, "atem:", ("<atem:function_calls>", "</atem:function_calls>"))


def step3(case: Case, k: int) -> str | None:
    frame = (
        "<\uff5ctool_call_begin\uff5c>function<\uff5ctool_sep\uff5c>",
        "<\uff5ctool_call_end\uff5c>",
    )
    wrap = ("<\uff5ctool_calls_begin\uff5c>", "<\uff5ctool_calls_end\uff5c>")
    return _invokes(case, k, "steptml:", wrap, frame)


def _json_type(value: Any) -> str:
    for name, kind in (("boolean", bool), ("integer", int), ("number", float), ("string", str)):
        if isinstance(value, kind):
            return name
    return {dict: "object", list: "array"}.get(type(value), "null")


def kimi_k3(case: Case, k: int) -> str | None:
    # Kimi K3's XTML tools channel (vLLM's parser docstring): each argument with its JSON type,
    # strings as written, attribute values escaped (`&`, `"`); the response channel around the
    # reply on some cases.
    if not _typed_as_written(case):
        return None

    def attr(value: str) -> str:
        return value.replace("&", "&amp;").replace('"', "&quot;")

    nl = "\n" if k % 2 else ""
    calls = []
    for n, call in enumerate(case["calls"]):
        args = "".join(
            f'{nl}<|open|>argument key="{attr(key)}" type="{_json_type(value)}"<|sep|>'
            f"{_text(value)}<|close|>argument<|sep|>"
            for key, value in call["arguments"].items()
        )
        head = f'<|open|>call tool="{attr(call["name"])}" index="{n + 1}"<|sep|>'
        calls.append(f"{nl}{head}{args}{nl}<|close|>call<|sep|>")
    text = "<|open|>tools<|sep|>" + "".join(calls) + nl + "<|close|>tools<|sep|>"
    if k % 5 == 0:
        text = "<|open|>response<|sep|>Let me look that up.<|close|>response<|sep|>" + text
    if k % 3 == 0:
        text += "<|close|>message<|sep|>"
    return text


def inkling(case: Case, k: int) -> str | None:
    # Inkling's TML messages (SGLang's Inkling tests): a thinking message on some cases, a reply
    # before the calls on others, each call a message echoing its name before the JSON.
    text = "<|content_thinking|>The user wants a tool.<|end_message|>" if k % 2 else ""
    if k % 5 == 0:
        text += "<|message_model|><|content_text|>Let me look that up.<|end_message|>"
    for call in case["calls"]:
        body = json.dumps({"name": call["name"], "args": call["arguments"]}, ensure_ascii=False)
        text += f"<|message_model|>{call['name']}<|content_invoke_tool_json|>{body}<|end_message|>"
    return text + ("<|content_model_end_sampling|>" if k % 3 == 0 else "")


def longcat(case: Case, k: int) -> str:
    nl = "\n" if k % 2 else ""
    blocks = [
        f"<longcat_tool_call>{nl}{json.dumps(call, ensure_ascii=False)}{nl}</longcat_tool_call>"
        for call in case["calls"]
    ]
    text = nl.join(blocks)
    if k % 5 == 0:
        text = "Checking.\n" + text
    return text


def _token_invokes(case: Case, k: int, token: str, block_name: str, space: str = "") -> str | None:
    """DSML's shape with `{token}` in its tags (and `space` after it: DeepSeek V4.1's
    spelling): `string="…"` on every parameter, and every 4th invoke a JSON object for its
    body."""
    if not _typed_as_written(case):
        return None
    tag = f"<\uff5c{token}\uff5c{space}"
    invokes = []
    for n, call in enumerate(case["calls"]):
        if (k + n) % 4 == 3:
            body = "\n" + json.dumps(call["arguments"], ensure_ascii=False) + "\n"
        else:
            body = "".join(
                f'\n{tag}parameter name="{key}" string="{str(isinstance(value, str)).lower()}">'
                f"{_text(value)}</{tag[1:]}parameter>"
                for key, value in call["arguments"].items()
            )
        invokes.append(f'\n{tag}invoke name="{call["name"]}">{body}\n</{tag[1:]}invoke>')
    text = f"{tag}{block_name}>{''.join(invokes)}\n</{tag[1:]}{block_name}>"
    if k % 5 == 0:
        text = "I'll help with that.\n\n" + text
    return text


def _json_list(case: Case, k: int, key: str = "arguments") -> str:
    """The calls as a JSON list of call objects, pretty-printed on odd cases."""
    items = [{"name": c["name"], key: c["arguments"]} for c in case["calls"]]
    return json.dumps(items, ensure_ascii=False, indent=4 if k % 2 else None)


def _wrapped(start: str, body: str, end: str, k: int) -> str:
    """A call list between tokens, with prose before it on some cases and after on others."""
    text = f"{start}{body}{end}"
    if k % 5 == 0:
        text = "Let me look that up." + (" " if k % 2 else "\n") + text
    if k % 3 == 0:
        text = "<think>The user wants a tool.</think>" + text
    if k % 7 == 0:
        text += "\nChecking now."
    return text


def lfm2(case: Case, k: int) -> str | None:
    # LFM2 writes pythonic lists (its chat template's default) or, prompted so, JSON lists.
    pythonic = case["wire"].get("pythonic")
    if k % 2 == 0 and isinstance(pythonic, str) and pythonic.startswith("["):
        body = pythonic
    else:
        body = _json_list(case, k, "parameters" if k % 4 == 3 else "arguments")
    return _wrapped("<|tool_call_start|>", body, "<|tool_call_end|>", k)


def jamba(case: Case, k: int) -> str | None:
    return _wrapped(" <tool_calls>", _json_list(case, k), "</tool_calls>", k)


def minimax_m1(case: Case, k: int) -> str | None:
    # One call object a line between the tokens (MiniMax-M1's chat template).
    lines = [
        json.dumps({"name": c["name"], "arguments": c["arguments"]}, ensure_ascii=False)
        for c in case["calls"]
    ]
    if not lines:
        return None
    return _wrapped("<tool_calls>\n", "\n".join(lines), "\n</tool_calls>", k)


def _hy(case: Case, k: int, s: str, sep: str) -> str | None:
    """HY's calls (vLLM's HY v3 and v4 tests): a name and `sep`, then key/value tags, every tag
    with the suffix `s`, with newlines between the tags on odd cases; values are text (typed by
    tools=)."""
    if not _typed_as_written(case):
        return None
    nl = "\n" if k % 2 else ""
    calls = []
    for call in case["calls"]:
        pairs = "".join(
            f"{nl}<arg_key{s}>{key}</arg_key{s}>{nl}<arg_value{s}>{_text(value)}</arg_value{s}>"
            for key, value in call["arguments"].items()
        )
        calls.append(f"{nl}<tool_call{s}>{call['name']}{sep}{pairs}{nl}</tool_call{s}>")
    if not calls:
        return None
    return _wrapped(f"<tool_calls{s}>", "".join(calls), f"{nl}</tool_calls{s}>", k)


def _arg_pairs(case: Case, k: int, tag: str, write: Callable[[Any], str] = _text) -> str | None:
    """glm45's calls in the tag `tag`, one call per tag: a name, then key/value tags, with
    newlines between the tags on odd cases; values written by `write` (as text, typed by
    tools=, unless told otherwise)."""
    if not _typed_as_written(case) or not case["calls"]:
        return None
    nl = "\n" if k % 2 else ""
    calls = []
    for call in case["calls"]:
        pairs = "".join(
            f"{nl}<arg_key>{key}</arg_key>{nl}<arg_value>{write(value)}</arg_value>"
            for key, value in call["arguments"].items()
        )
        calls.append(f"<{tag}>{call['name']}{pairs}{nl}</{tag}>")
    return ("I'll look.\n" if k % 5 == 0 else "") + "\n".join(calls)


def hyperclovax_seed_think(case: Case, k: int) -> str | None:
    """HyperCLOVA X SEED Think: glm45's calls, every value JSON-encoded (strings in quotes)."""
    return _arg_pairs(case, k, "tool_call", lambda value: json.dumps(value, ensure_ascii=False))


def iquest_coder_v2(case: Case, k: int) -> str | None:
    return _arg_pairs(case, k, "iquestcoder_tool_call")


def iquest_q1(case: Case, k: int) -> str | None:
    return _arg_pairs(case, k, "iquest_tool_call")


def hy_v3(case: Case, k: int) -> str | None:
    return _hy(case, k, "", "<tool_sep>")


def hy_v4(case: Case, k: int) -> str | None:
    # Checkpoints whose tokens carry a suffix; no <tool_sep>.
    return _hy(case, k, (":6124c78e", ":opensource", ":a+b(c")[k % 3], "")


def k2_horizon(case: Case, k: int) -> str | None:
    """K2 Horizon's three dialects (its template's `tool_call_format`): a JSON call object as
    the body (every third case), typed values (`<ifm|arg_type>`), or untyped ones; without the
    `<ifm|tool_calls>` block on some cases, after a reasoning span on others."""
    dialect = k % 3
    if dialect and not _typed_as_written(case):
        return None
    nl = "\n" if k % 2 else ""
    calls = []
    for call in case["calls"]:
        if dialect == 0:
            body = json.dumps({"name": call["name"], "arguments": call["arguments"]})
        else:
            body = call["name"] + "".join(
                f"{nl}<ifm|arg_key>{key}</ifm|arg_key>"
                + (f"<ifm|arg_type>{_json_type(value)}</ifm|arg_type>" if dialect == 1 else "")
                + f"{nl}<ifm|arg_value>{_text(value)}</ifm|arg_value>"
                for key, value in call["arguments"].items()
            )
        calls.append(f"<ifm|tool_call>{body}{nl}</ifm|tool_call>")
    if not calls:
        return None
    text = "\n".join(calls)
    if k % 5:
        text = f"<ifm|tool_calls>{nl}{text}{nl}</ifm|tool_calls>"
    if k % 4 == 0:
        text = "<ifm|think_fast>The user wants a tool.</ifm|think_fast>\n" + text
    if k % 7 == 0:
        text = "Let me check. " + text + " Done."
    return text


def plamo3(case: Case, k: int) -> str | None:
    """PLaMo 3's tags around each call's name and JSON arguments, in a `tool_requests` section
    (left out on some cases), the end of turn after it on others."""
    ascii = k % 2 == 0
    calls = "".join(
        "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>"
        f"{call['name']}<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>"
        f"<|plamo:constrain|>json<|plamo:msg|>{json.dumps(call['arguments'], ensure_ascii=ascii)}"
        "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>"
        for call in case["calls"]
    )
    if k % 5:
        calls = f"<|plamo:begin_tool_requests:plamo|>{calls}<|plamo:end_tool_requests:plamo|>"
    if k % 3 == 0:
        calls += "<|plamo:tag|>"
    if k % 7 == 1:
        calls = "<|plamo:begin_think:plamo|>The user wants a tool.<|plamo:end_think:plamo|>" + calls
    return ("Let me check." if k % 4 == 0 else "") + calls


def solar_open(case: Case, k: int) -> str | None:
    """Solar Open's tokens around each call's id, name and JSON arguments, in a `<|tool_calls|>`
    section (left out on some cases) ended by `<|calls|>` on others, after an answer whose
    turn the model ended (`<|end|><|begin|>assistant`) on others, and after its reasoning
    channel (`<|think|>…<|end|>`) on others."""
    ascii = k % 2 == 0
    calls = "".join(
        f"<|tool_call:begin|>{k:04d}{i}<|tool_call:name|>{call['name']}<|tool_call:args|>"
        f"{json.dumps(call['arguments'], ensure_ascii=ascii)}<|tool_call:end|>"
        for i, call in enumerate(case["calls"])
    )
    if k % 5:
        calls = "<|tool_calls|>" + calls
    if k % 3 == 0:
        calls += "<|calls|>"
    if k % 4 == 0:
        calls = "Let me check.<|end|><|begin|>assistant" + calls
    if k % 7 == 0:
        calls = "<|think|>The user wants a tool.<|end|><|begin|>assistant" + calls
    return calls


def sarashina(case: Case, k: int) -> str | None:
    """Sarashina: the calls as a Python-literal list of dicts (`repr`, so `True`, `None` and
    single quotes), after `<|tool_calls|>` on odd cases (prose before it on some), bare at the
    message start on the others (the token dropped by the detokenizer)."""
    calls = repr([{"name": c["name"], "arguments": c["arguments"]} for c in case["calls"]])
    if k % 2:
        calls = ("Let me check." if k % 4 == 1 else "") + "<|tool_calls|>" + calls
    if k % 3 == 0:
        calls = "<think>The user wants a tool.</think>" + calls
    return calls


def nemotron(case: Case, k: int) -> str | None:
    return _wrapped("<TOOLCALL>", _json_list(case, k), "</TOOLCALL>", k)


def granite(case: Case, k: int) -> str | None:
    # No end token: the list ends the call markup.
    return _wrapped("<|tool_call|>", _json_list(case, k), "", k)


def apertus(case: Case, k: int) -> str | None:
    items = [{c["name"]: c["arguments"]} for c in case["calls"]]
    body = json.dumps(items, ensure_ascii=False, indent=4 if k % 2 else None)
    return _wrapped("<|tools_prefix|>", body, "<|tools_suffix|>", k)


def command_r7b(case: Case, k: int) -> str | None:
    items = [
        {"tool_call_id": str(n), "tool_name": c["name"], "parameters": c["arguments"]}
        for n, c in enumerate(case["calls"])
    ]
    body = json.dumps(items, ensure_ascii=False, indent=4 if k % 2 else None)
    thinking = "<|START_THINKING|>I will call a tool.<|END_THINKING|>" if k % 2 else ""
    return thinking + _wrapped("<|START_ACTION|>", body, "<|END_ACTION|>", k)


def command_r(case: Case, k: int) -> str | None:
    # Its template writes `Action:` first: the marker opens calls only at the message start.
    items = [{"tool_name": c["name"], "parameters": c["arguments"]} for c in case["calls"]]
    body = json.dumps(items, ensure_ascii=False, indent=4 if k % 2 else None)
    thinking = "<think>The user wants a tool.</think>" if k % 3 == 0 else ""
    closing = "" if k % 5 == 0 else "\n```" + ("\nChecking now." if k % 7 == 0 else "")
    return thinking + "Action: ```json\n" + body + closing


def olmo3(case: Case, k: int) -> str | None:
    # Pythonic calls one a line; values as JSON (true/null are read as True/None).
    lines = []
    for call in case["calls"]:
        if not all(key.isidentifier() for key in call["arguments"]):
            return None
        arguments = ", ".join(
            f"{key}={json.dumps(value, ensure_ascii=k % 2 == 0)}"
            for key, value in call["arguments"].items()
        )
        lines.append(f"{call['name']}({arguments})")
    return _wrapped("<function_calls>", "\n".join(lines), "</function_calls>", k)


def hyperclovax_seed_think_14b(case: Case, k: int) -> str | None:
    """HyperCLOVA X SEED Think 14B: ` -> tool/function_call` opens the message (its template's
    tool role), a JSON list with `parameters` on some cases, `<|im_end|>` on some; or, on every
    4th case, the bare list a reasoning parser leaves."""
    key = "parameters" if k % 2 else "arguments"
    if k % 4 == 3:
        return _json_list(case, k, key)
    text = " -> tool/function_call\n" + _json_list(case, k, key)
    if k % 3 == 0:
        text = "<think>The user wants a tool.</think>" + text + "<|im_end|>"
    return text


def granite_pythonic(case: Case, k: int) -> str | None:
    # Bare pythonic calls one a line, from the message start; prose may follow on a line of
    # its own.
    lines = []
    for call in case["calls"]:
        if not call["name"].isidentifier():
            return None
        if not all(key.isidentifier() for key in call["arguments"]):
            return None
        arguments = ", ".join(
            f"{key}={json.dumps(value, ensure_ascii=k % 2 == 0)}"
            for key, value in call["arguments"].items()
        )
        lines.append(f"{call['name']}({arguments})" + (" " if k % 4 == 1 else ""))
    text = ("\n\n" if k % 3 == 1 else "\n").join(lines)
    if k % 3 == 0:
        text = "<think>The user wants a tool.</think>\n" + text
    if k % 5 == 0:
        text += "\nChecking now."
    elif k % 5 == 1:
        text += "<|end_of_text|>"
    return text


def phi4_mini(case: Case, k: int) -> str | None:
    # `functools[` opens calls only at the start of the message (after think spans and spaces).
    text = (" " if k % 2 else "") + "functools" + _json_list(case, k)
    if k % 3 == 0:
        text = "<think>The user wants a tool.</think>" + text
    if k % 7 == 0:
        text += "\nChecking now."
    return text


def internlm2(case: Case, k: int) -> str:
    """One `<|action_start|><|plugin|>` action per call, `parameters` (or `arguments` on some
    cases), with prose before the first on some cases."""
    key = "arguments" if k % 4 == 3 else "parameters"
    actions = [
        "<|action_start|><|plugin|>"
        + ("\n" if k % 2 else "")
        + json.dumps({"name": c["name"], key: c["arguments"]}, ensure_ascii=False)
        + "<|action_end|>"
        for c in case["calls"]
    ]
    return _wrapped("", ("\n" if k % 3 else "").join(actions), "", k)


def _gemma_value(value: Any, quote: str) -> str:
    """A value in Gemma's syntax: strings between string tokens, bare keys, JSON literals."""
    if isinstance(value, str):
        return f"{quote}{value}{quote}"
    if isinstance(value, dict):
        members = ",".join(f"{k}:{_gemma_value(v, quote)}" for k, v in value.items())
        return "{" + members + "}"
    if isinstance(value, list):
        return "[" + ",".join(_gemma_value(v, quote) for v in value) + "]"
    return json.dumps(value)


def _gemma(case: Case, k: int, tokens: tuple[str, str, str]) -> str | None:
    start, end, quote = tokens

    def writable(value: Any) -> bool:
        # A string holding the string token, or a key that is not a bare word, cannot be
        # written so that it reads back.
        if isinstance(value, str):
            return quote not in value
        if isinstance(value, dict):
            return all(k.isidentifier() and writable(v) for k, v in value.items())
        if isinstance(value, list):
            return all(writable(v) for v in value)
        return True

    if not all(writable(c["arguments"]) for c in case["calls"]):
        return None
    calls = [
        f"{start}call:{c['name']}{_gemma_value(c['arguments'], quote)}{end}" for c in case["calls"]
    ]
    return _wrapped("", ("\n" if k % 2 else "").join(calls), "", k)


def function_gemma(case: Case, k: int) -> str | None:
    return _gemma(case, k, ("<start_function_call>", "<end_function_call>", "<escape>"))


def gemma4(case: Case, k: int) -> str | None:
    return _gemma(case, k, ("<|tool_call>", "<tool_call|>", '<|"|>'))


def functionary_v3_2(case: Case, k: int) -> str | None:
    """Functionary v3.2 as its chat template writes a turn: `>>>all\n` content, then each call
    `>>>NAME\n{…}`, back to back; the first `>>>` is the generation prompt's on even cases (the
    text starts after it), and calls stand on lines of their own on some cases."""
    if not all(c["name"].replace("-", "_").isidentifier() for c in case["calls"]):
        return None
    indent = 4 if k % 2 else None
    calls = [
        f">>>{c['name']}\n{json.dumps(c['arguments'], ensure_ascii=False, indent=indent)}"
        for c in case["calls"]
    ]
    text = ("\n" if k % 3 == 0 else "").join(calls)
    if k % 5 == 0:
        text = ">>>all\nLet me look that up." + text
    return text.removeprefix(">>>") if k % 2 == 0 else text


def deepseek_dsml(case: Case, k: int) -> str | None:
    if k % 4 == 1:
        return _token_invokes(case, k, "DSML", "calls", space=" ")
    return _token_invokes(case, k, "DSML", "tool_calls" if k % 3 == 0 else "function_calls")


def glm53(case: Case, k: int) -> str:
    """GLM-5.3 Flash's JSON spelling of glm45: `<tool_call>NAME>{…}`, its `</tool_call>` on odd
    cases only (the model often leaves it out), prose before the calls on some cases."""
    close = "</tool_call>" if k % 2 else ""
    calls = "".join(
        f"<tool_call>{c['name']}>{json.dumps(c['arguments'], ensure_ascii=False)}{close}"
        for c in case["calls"]
    )
    return ("Let me check.\n" if k % 5 == 0 else "") + calls


def gigachat35(case: Case, k: int) -> str | None:
    return _token_invokes(case, k, "GCML", "tool_calls")


def seed_oss(case: Case, k: int) -> str | None:
    if not _typed_as_written(case):
        return None
    nl = "\n" if k % 2 else ""
    blocks = []
    for call in case["calls"]:
        params = "".join(
            f"{nl}<parameter={key}>{nl}{_text(value)}{nl}</parameter>"
            for key, value in call["arguments"].items()
        )
        blocks.append(
            f"<seed:tool_call>{nl}<function={call['name']}>{params}{nl}</function>{nl}"
            "</seed:tool_call>"
        )
    text = nl.join(blocks)
    if k % 5 == 0:
        text = "<seed:think>The user wants a tool.</seed:think>" + text
    return text


def gigachat3(case: Case, k: int) -> str:
    """GigaChat 3 writes one call per message; several calls are several messages (3.1's
    `<|function_call|>` on every third case)."""
    messages = []
    for call in case["calls"]:
        body = json.dumps(
            {"name": call["name"], "arguments": call["arguments"]}, ensure_ascii=False
        )
        if k % 3 == 2:
            messages.append(f"<|function_call|>{body}")
        else:
            messages.append(f"<|message_sep|>\n\nfunction call<|role_sep|>\n{body}")
    text = "".join(messages)
    if k % 5 == 0:
        text = "I'll check that for you." + text
    if k % 4 == 1:
        text += "</s>"
    return text


RENDERERS: dict[str, Callable[[Case, int], str | None]] = {
    "minimax_m2": minimax_m2,
    "minimax_m3": minimax_m3,
    "deepseek_dsml": deepseek_dsml,
    "glm53": glm53,
    "iquest_coder_v2": iquest_coder_v2,
    "hyperclovax_seed_think": hyperclovax_seed_think,
    "hyperclovax_seed_think_14b": hyperclovax_seed_think_14b,
    "iquest_q1": iquest_q1,
    "lfm2": lfm2,
    "jamba": jamba,
    "minimax_m1": minimax_m1,
    "hy_v3": hy_v3,
    "hy_v4": hy_v4,
    "k2_horizon": k2_horizon,
    "plamo3": plamo3,
    "kimi_k3": kimi_k3,
    "inkling": inkling,
    "nemotron": nemotron,
    "granite": granite,
    "apertus": apertus,
    "command_r7b": command_r7b,
    "command_r": command_r,
    "olmo3": olmo3,
    "granite_pythonic": granite_pythonic,
    "phi4_mini": phi4_mini,
    "internlm2": internlm2,
    "function_gemma": function_gemma,
    "gemma4": gemma4,
    "functionary_v3_2": functionary_v3_2,
    "solar_open2": solar_open2,
    "solar_open": solar_open,
    "sarashina": sarashina,
    "rwkv": rwkv,
    "cwm": cwm,
    "seed_oss": seed_oss,
    "gigachat3": gigachat3,
    "gigachat35": gigachat35,
    "longcat": longcat,
    "dots": dots,
    "muse_glimmer": muse_glimmer,
    "step3": step3,
}
