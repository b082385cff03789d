"""A tool definition derived from a Python function: JSON Schema from the signature and type
hints, descriptions from the docstring (Google, NumPy and reST styles)."""

from __future__ import annotations

import enum
import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._errors import ToolDefinitionError
from ._types import Tool

__all__ = ["tool_from_function"]

_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def tool_from_function(
    func: Callable[..., Any], *, name: str | None = None, category: str | None = None
) -> Tool:
    """The :class:`Tool` describing ``func``.

    Parameters with a default (or typed ``Optional`` with a default) are not required; a
    parameter typed ``X | None`` accepts ``null``. ``**kwargs`` allows extra properties,
    otherwise ``additionalProperties`` is false (the call would fail on them anyway).

    >>> def get_weather(city: str, unit: typing.Literal["c", "f"] = "c") -> str:
    ...     '''Current weather of a city.
    ...
    ...     Args:
    ...         city: City name, e.g. "Oslo".
    ...     '''
    ...     return "sunny"
    >>> t = tool_from_function(get_weather)
    >>> t.description, t.parameters["required"], t.parameters["properties"]["unit"]
    ('Current weather of a city.', ['city'], {'type': 'string', 'enum': ['c', 'f'], 'default': 'c'})
    """
    tool_name = name or getattr(func, "__name__", None)
    if not isinstance(tool_name, str) or not tool_name or tool_name == "<lambda>":
        raise ToolDefinitionError(f"give a name for the tool {func!r}")
    try:
        signature = inspect.signature(func)
        hints = typing.get_type_hints(func, include_extras=True)
    except (TypeError, ValueError, NameError) as e:
        raise ToolDefinitionError(f"cannot read the signature of tool {tool_name!r}: {e}") from e
    summary, documented = _parse_docstring(inspect.getdoc(func) or "")
    properties: dict[str, Any] = {}
    required: list[str] = []
    extra_allowed = False
    for param in signature.parameters.values():
        if param.kind is param.VAR_KEYWORD:
            extra_allowed = True
            continue
        if param.kind in (param.POSITIONAL_ONLY, param.VAR_POSITIONAL):
            raise ToolDefinitionError(
                f"tool {tool_name!r}: parameter {param.name!r} cannot be given by keyword; "
                "tools are called with keyword arguments only"
            )
        schema = _schema_of(hints.get(param.name, Any), f"{tool_name}.{param.name}")
        if param.name in documented and "description" not in schema:
            schema["description"] = documented[param.name]
        if param.default is param.empty:
            required.append(param.name)
        elif _is_json(param.default):
            schema["default"] = param.default
        properties[param.name] = schema
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    if not extra_allowed:
        parameters["additionalProperties"] = False
    return Tool(tool_name, summary, parameters, category=category)


def _schema_of(hint: Any, where: str) -> dict[str, Any]:
    """The JSON Schema of one type hint."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Annotated:
        schema = _schema_of(args[0], where)
        notes = [a for a in args[1:] if isinstance(a, str)]
        if notes:
            schema["description"] = " ".join(notes)
        return schema
    if hint is Any or hint is inspect.Parameter.empty or hint is object:
        return {}
    if hint is type(None) or hint is None:
        return {"type": "null"}
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    if origin is typing.Literal:
        values = list(args)
        kinds = {_SCALARS.get(type(v)) for v in values}
        schema = {"enum": values}
        return {"type": kinds.pop(), **schema} if len(kinds) == 1 and None not in kinds else schema
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        nullable = len(options) < len(args)
        if len(options) == 1:
            schema = _schema_of(options[0], where)
            if nullable:
                return _with_null(schema)
            return schema
        alternatives = [_schema_of(a, where) for a in options]
        if nullable:
            alternatives.append({"type": "null"})
        return {"anyOf": alternatives}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _schema_of(typing.Literal[tuple(m.value for m in hint)], where)
    if hint in (list, tuple, set, frozenset) or origin in (list, set, frozenset, Sequence):
        schema = {"type": "array"}
        if args:
            schema["items"] = _schema_of(args[0], where)
        if hint in (set, frozenset) or origin in (set, frozenset):
            schema["uniqueItems"] = True
        return schema
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _schema_of(args[0], where)}
        items = [_schema_of(a, where) for a in args]
        return {
            "type": "array",
            "prefixItems": items,
            "minItems": len(items),
            "maxItems": len(items),
        }
    if hint is dict or origin in (dict, Mapping):
        schema = {"type": "object"}
        if len(args) == 2 and args[1] is not Any:
            schema["additionalProperties"] = _schema_of(args[1], where)
        return schema
    if typing.is_typeddict(hint):
        fields = typing.get_type_hints(hint)
        return {
            "type": "object",
            "properties": {k: _schema_of(v, f"{where}.{k}") for k, v in fields.items()},
            "required": sorted(hint.__required_keys__),
        }
    raise ToolDefinitionError(
        f"{where}: no JSON Schema for the type {hint!r}; use str, int, float, bool, list[T], "
        "dict, Literal, an Enum, a TypedDict or Optional of these, or register a Tool with an "
        "explicit schema"
    )


def _with_null(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str) and "enum" not in schema:
        return {**schema, "type": [kind, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _is_json(value: Any) -> bool:
    if value is None or isinstance(value, str | bool | int | float):
        return True
    if isinstance(value, list | tuple):
        return all(_is_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False


_GOOGLE_HEADER = re.compile(r"^(Args|Arguments|Parameters|Params):\s*$")
_GOOGLE_ITEM = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_ITEM = re.compile(r"^(\w+)\s*(?::.*)?$")
_REST_PARAM = re.compile(r"^:param\s+(?:[^:]*\s)?(\w+):\s*(.*)$")
_SECTION = re.compile(r"^[A-Z][A-Za-z ]*:\s*$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The summary (first paragraph) and the per-parameter descriptions of a docstring."""
    lines = doc.splitlines()
    summary_lines: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line.strip()) or line.strip().startswith(":"):
            break
        summary_lines.append(line.strip())
    params: dict[str, str] = {}
    current: str | None = None
    mode: str | None = None  # "google" | "numpy" | None
    base_indent = 0
    for index, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        rest = _REST_PARAM.match(stripped)
        if rest:
            current, mode = rest.group(1), "rest"
            params[current] = rest.group(2).strip()
            continue
        if _GOOGLE_HEADER.match(stripped):
            mode, current, base_indent = "google", None, -1
            continue
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        if stripped in ("Parameters", "Args", "Arguments") and set(following) == {"-"}:
            mode, current, base_indent = "numpy", None, indent
            continue
        if mode == "numpy" and set(stripped) == {"-"}:
            continue
        if mode is None or not stripped:
            continue
        if mode == "google":
            if base_indent < 0:
                base_indent = indent
            if indent < base_indent:
                mode = None
                continue
            item = _GOOGLE_ITEM.match(stripped)
            if indent == base_indent and item:
                current = item.group(1).lstrip("*")
                params[current] = item.group(2).strip()
                continue
        elif mode == "numpy":
            if indent == base_indent and following and set(following) == {"-"}:
                mode = None
                continue
            item = _NUMPY_ITEM.match(stripped)
            if indent == base_indent and item:
                current = item.group(1)
                params[current] = ""
                continue
        elif mode == "rest" and (stripped.startswith(":") or indent == 0):
            current = None
            continue
        if current is not None:
            params[current] = f"{params[current]} {stripped}".strip()
    return " ".join(summary_lines), {k: v for k, v in params.items() if v}
