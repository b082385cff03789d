"""Prompt augmentation (docs/codecs.md): system-prompt instructions for the ``~~~tool_call``
protocol, for models without native tool calling.

>>> prompt = augment_system_prompt("Be brief.", [{"name": "ping", "description": "Ping a host.",
...     "parameters": {"type": "object", "properties": {"host": {"type": "string"}},
...     "required": ["host"]}}], compact=True)
>>> print(prompt.splitlines()[-1])
- ping(host: string) — Ping a host.
>>> for line in prompt.splitlines()[4:7]:
...     print(line)
~~~tool_call
{"name": "ping", "arguments": {"host": "text"}}
~~~
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ._codecs.base import ToolLike, as_tool
from ._types import Tool

__all__ = ["augment_system_prompt"]

_INTRO = (
    "You can call the tools listed below. To call one, write a ~~~tool_call block: a line "
    'holding only ~~~tool_call, then one JSON object with the tool\'s "name" and its '
    '"arguments" object, then a line holding only ~~~. For example:'
)
_RULES = (
    "Write one block per call; to make several calls, write several blocks. Keep each fence "
    "on its own line and the JSON valid. When you need no tool, or have what you need, answer "
    "in plain text with no ~~~tool_call block."
)
_SHORT_LIMIT = 80
_ENUM_LIMIT = 5
# The end of the first sentence: ". " after a word of 3+ letters (so "e.g. " does not end it).
_SENTENCE_END = re.compile(r"(?<![^\W\d_])[^\W\d_]{3,}\.(?= )")
_PLACEHOLDERS: dict[str, Any] = {
    "string": "text",
    "integer": 1,
    "number": 1.5,
    "boolean": True,
    "array": [],
    "object": {},
}


def augment_system_prompt(
    existing: str | None, tools: Iterable[ToolLike], *, compact: bool = False
) -> str:
    """``existing`` followed by a blank line and instructions for calling ``tools`` with
    ``~~~tool_call`` blocks (the instructions alone when ``existing`` is None or blank).

    ``tools`` are :class:`Tool` objects, mappings with the schema under ``parameters``,
    ``input_schema`` or ``schema``, or pydantic model classes. The full list gives each tool's
    description and its schema as compact JSON; ``compact=True`` gives one line per tool,
    ``- name(a: string, b?: int[]) — First sentence.``, for weak models that degrade on long
    prompts. The output is deterministic.

    >>> print(augment_system_prompt(None, [Tool("ping", "Ping.")]).splitlines()[-2:])
    ['- ping: Ping.', '  {"type":"object","properties":{}}']
    """
    definitions = [as_tool(tool) for tool in tools]
    listing = [_compact_line(t) if compact else _full_entry(t) for t in definitions]
    instructions = "\n\n".join(
        [_INTRO, _example(definitions), _RULES, "\n".join(["Tools:", *listing])]
    )
    if existing is None or not existing.strip():
        return instructions
    return f"{existing}\n\n{instructions}"


def _example(tools: list[Tool]) -> str:
    """A block calling the first tool with placeholder values for (up to two of) its
    parameters, required ones first."""
    name = tools[0].name if tools else "tool_name"
    arguments = {}
    for key, schema, _ in _parameters(tools[0].parameters)[:2] if tools else []:
        arguments[key] = _placeholder(schema)
    call = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"~~~tool_call\n{call}\n~~~"


def _placeholder(schema: object) -> Any:
    if not isinstance(schema, Mapping):
        return "value"
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0] if kind else None
    return _PLACEHOLDERS.get(kind, "value") if isinstance(kind, str) else "value"


def _full_entry(tool: Tool) -> str:
    description = tool.description.strip()
    head = f"- {tool.name}: {description}" if description else f"- {tool.name}"
    schema = json.dumps(tool.parameters, separators=(",", ":"), ensure_ascii=False)
    return f"{head}\n  {schema}"


def _compact_line(tool: Tool) -> str:
    params = ", ".join(
        f"{key}{'' if required else '?'}: {_type_of(schema)}"
        for key, schema, required in _parameters(tool.parameters)
    )
    short = _short(tool.description)
    return f"- {tool.name}({params})" + (f" — {short}" if short else "")


def _parameters(schema: Mapping[str, Any]) -> list[tuple[str, Any, bool]]:
    """``(key, schema, required)`` per property: required first, then optional, each in schema
    order."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return []
    required_keys = schema.get("required")
    required = set(required_keys) if isinstance(required_keys, list) else set()
    entries = [(str(key), value, key in required) for key, value in properties.items()]
    return [e for e in entries if e[2]] + [e for e in entries if not e[2]]


def _type_of(schema: object) -> str:
    if not isinstance(schema, Mapping):
        return "any"
    kind = schema.get("type")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind) if kind else "any"
    if kind == "array":
        items = schema.get("items")
        item_kind = items.get("type") if isinstance(items, Mapping) else None
        return f"{item_kind}[]" if isinstance(item_kind, str) else "array"
    enum = schema.get("enum")
    if (
        isinstance(enum, list)
        and 0 < len(enum) <= _ENUM_LIMIT
        and all(isinstance(value, str) for value in enum)
    ):
        return "|".join(json.dumps(value, ensure_ascii=False) for value in enum)
    if kind is None:
        return "any"
    return str(kind)


def _short(description: str) -> str:
    """The first sentence of the description, whitespace collapsed, at most 80 characters."""
    text = " ".join(description.split())
    end = _SENTENCE_END.search(text)
    if end is not None:
        text = text[: end.end()]
    if len(text) > _SHORT_LIMIT:
        text = text[: _SHORT_LIMIT - 1].rstrip() + "…"
    return text
