"""The baseline users write today for logged responses: ``json.loads`` of each body + a
pure-Python extraction loop (the text rules of ``pure_python_extract``, Hermes from
``formats_python``, plus the body shapes of the sample log: OpenAI Chat, Anthropic, Ollama,
``{"text": …}``).

A call is ``(name, arguments)``; a response with a broken call gives ``ERROR`` (a plain loop
stops at the first exception, so it cannot say which calls of the response were good).
"""

from __future__ import annotations

import json
from typing import Any

import formats_python
import pure_python_extract as text_rules

Calls = list[tuple[str, dict[str, Any]]] | str

ERROR = "error"


def _native(calls: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for call in calls:
        function = call.get("function", call)
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError("missing tool name")
        arguments = function.get("arguments", function.get("input"))
        found.append((name, text_rules.normalize_arguments(arguments)))
    return found


def _broken_raw_json(text: str) -> bool:
    """Raw JSON that names a call but does not parse (toolwire reports it)."""
    whole = text_rules.THINK.sub("", text).strip()
    fenced = [m.group(1) for m in text_rules.JSON_FENCE.finditer(text)]
    for candidate in [whole, *fenced]:
        looks_like_call = "name" in candidate and (
            "arguments" in candidate or "parameters" in candidate
        )
        if candidate[:1] in ("{", "[") and looks_like_call:
            try:
                json.loads(candidate)
            except ValueError:
                return True
    return False


def _text(text: str) -> list[tuple[str, dict[str, Any]]]:
    if "~~~tool_call" in text and not text_rules.FENCE_BLOCK.search(text):
        raise ValueError("unterminated ~~~tool_call block")
    if "<tool_call>" in text and "~~~tool_call" not in text:
        # Hermes, the one open-weight format of the sample log.
        hermes = formats_python.hermes(text)
        assert isinstance(hermes, list)
        return hermes
    calls = [(c.name, c.arguments) for c in text_rules.extract(text)]
    if not calls and _broken_raw_json(text):
        raise ValueError("invalid raw JSON call")
    return calls


def extract_body(body: dict[str, Any]) -> Calls:
    try:
        if "choices" in body:
            message = body["choices"][0]["message"]
            if message.get("tool_calls"):
                return _native(message["tool_calls"])
            return _text(message.get("content") or "")
        if isinstance(body.get("content"), list):
            blocks = body["content"]
            uses = [b for b in blocks if b.get("type") == "tool_use"]
            if uses:
                return _native(uses)
            return _text("".join(b["text"] for b in blocks if b.get("type") == "text"))
        if "message" in body:
            message = body["message"]
            if message.get("tool_calls"):
                return _native(message["tool_calls"])
            return _text(message.get("content") or "")
        return _text(body.get("text") or "")
    except ValueError:
        return ERROR


def extract_line(line: bytes | str) -> Calls:
    """The calls of one response body given as JSON text."""
    return extract_body(json.loads(line))
