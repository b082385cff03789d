"""Path-aware reading of provider JSON: every wrong shape becomes a :class:`ProviderFormatError`
naming where it is (``[2].function.name``), never a ``KeyError``/``TypeError``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._errors import ProviderFormatError

__all__ = [
    "at",
    "dig",
    "member",
    "optional_str",
    "text_of",
    "want_list",
    "want_mapping",
    "want_str",
    "wrong",
]

_KIND_NAMES = {
    type(None): "null",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "a list",
    tuple: "a list",
    dict: "an object",
}


def _kind(value: object) -> str:
    return _KIND_NAMES.get(type(value), type(value).__name__)


def at(path: str, key: str | int) -> str:
    """The path of ``key`` inside ``path``: ``at("tools", 2) == "tools[2]"``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def wrong(path: str, expected: str, value: object) -> ProviderFormatError:
    """The error for ``value`` found at ``path`` where ``expected`` was required."""
    where = f" at {path}" if path else ""
    return ProviderFormatError(f"expected {expected}, got {_kind(value)}{where}", path=path)


def want_mapping(value: object, path: str) -> Mapping[str, Any]:
    if isinstance(value, Mapping):
        return value
    raise wrong(path, "an object", value)


def want_list(value: object, path: str) -> Sequence[Any]:
    if isinstance(value, list | tuple):
        return value
    raise wrong(path, "a list", value)


def want_str(value: object, path: str) -> str:
    if isinstance(value, str):
        return value
    raise wrong(path, "a string", value)


def optional_str(value: object, path: str) -> str | None:
    """A string or None (what a missing member reads as)."""
    if value is None or isinstance(value, str):
        return value
    raise wrong(path, "a string or null", value)


def dig(value: object, *steps: str | int) -> Any:
    """``value[steps[0]][steps[1]]…``, each step checked: ``dig(body, "choices", 0, "message")``."""
    path = ""
    for step in steps:
        if isinstance(step, int):
            items = want_list(value, path)
            if len(items) <= step:
                where = at(path, step)
                raise ProviderFormatError(f"missing item {where}", path=where)
            value = items[step]
        else:
            value = member(want_mapping(value, path), step, path)
        path = at(path, step)
    return value


def member(obj: Mapping[str, Any], key: str, path: str) -> Any:
    """``obj[key]``, or a ``ProviderFormatError`` naming the missing member."""
    try:
        return obj[key]
    except KeyError:
        where = at(path, key)
        raise ProviderFormatError(f"missing '{key}' at {where}", path=where) from None


def text_of(content: object, path: str) -> str | None:
    """The text of message content: a string, null, or typed parts whose ``text`` is joined."""
    if content is None or isinstance(content, str):
        return content
    parts = want_list(content, path)
    texts = []
    for i, part in enumerate(parts):
        part = want_mapping(part, at(path, i))
        if part.get("type", "text") in ("text", "output_text", "input_text") and "text" in part:
            texts.append(want_str(part["text"], at(at(path, i), "text")))
    return "".join(texts) if texts else None
