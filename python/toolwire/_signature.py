"""A tool definition derived from a Python function: JSON Schema from the signature and type
hints, descriptions from the docstring (Google, NumPy and reST styles); and the binding of a
call's arguments to the function's parameters."""

from __future__ import annotations

import enum
import inspect
import re
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._errors import ToolDefinitionError
from ._types import Tool

__all__ = ["Binding", "binding_of", "tool_from_function"]

_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def tool_from_function(
    func: Callable[..., Any], *, name: str | None = None, category: str | None = None
) -> Tool:
    """The :class:`Tool` describing ``func``.

    Parameters with a default (or typed ``Optional`` with a default) are not required; a
    parameter typed ``X | None`` accepts ``null``; a parameter typed with a pydantic (v2) model
    gets the model's JSON Schema (its ``$defs`` move to the top of the tool's schema).
    ``**kwargs`` allows extra properties (typed by its annotation), otherwise
    ``additionalProperties`` is false. A parameter whose name starts with ``_`` is not in the
    schema and is never set by the model (it must have a default).

    >>> def get_weather(city: str, unit: typing.Literal["c", "f"] = "c", _cache: bool = True):
    ...     '''Current weather of a city.
    ...
    ...     Args:
    ...         city: City name, e.g. "Oslo".
    ...     '''
    ...     return "sunny"
    >>> t = tool_from_function(get_weather)
    >>> t.description, t.parameters["required"], t.parameters["properties"]["unit"]
    ('Current weather of a city.', ['city'], {'type': 'string', 'enum': ['c', 'f'], 'default': 'c'})
    >>> list(t.parameters["properties"])
    ['city', 'unit']
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
    schemas = _Schemas()
    properties: dict[str, Any] = {}
    required: list[str] = []
    extra: Any = False
    for param in signature.parameters.values():
        where = f"{tool_name}.{param.name}"
        if param.kind is param.VAR_KEYWORD:
            extra = schemas.of(hints.get(param.name, Any), where) or True
            continue
        if param.kind in (param.POSITIONAL_ONLY, param.VAR_POSITIONAL):
            raise ToolDefinitionError(
                f"tool {tool_name!r}: parameter {param.name!r} cannot be given by keyword; "
                "tools are called with keyword arguments only"
            )
        if param.name.startswith("_"):
            if param.default is param.empty:
                raise ToolDefinitionError(
                    f"tool {tool_name!r}: parameter {param.name!r} is private (its name starts "
                    "with '_'), so the model never sets it; give it a default"
                )
            continue
        schema = schemas.of(hints.get(param.name, Any), where)
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
    parameters["additionalProperties"] = extra
    if schemas.defs:
        parameters["$defs"] = schemas.defs
    return Tool(tool_name, summary, parameters, category=category)


@dataclass(frozen=True)
class Binding:
    """Which arguments of a call may reach a function's parameters, and how they are converted.

    An argument is passed only when the tool's schema declares it (``properties``), or when
    the schema explicitly allows extra properties (``additionalProperties`` present and not
    false, or a ``patternProperties`` pattern that matches) **and** the function takes
    ``**kwargs`` and has no parameter of that name. Anything else is refused, so a model can
    never set a parameter the schema did not offer.
    """

    declared: frozenset[str]
    extras_allowed: bool
    patterns: tuple[re.Pattern[str], ...]
    var_keyword: bool
    named: frozenset[str]
    converters: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)

    def undeclared(self, arguments: Mapping[str, Any]) -> list[str]:
        """The names in ``arguments`` that must not reach the function, in their order."""
        return [name for name in arguments if not self._passes(name)]

    def _passes(self, name: str) -> bool:
        if name in self.declared:
            return True
        if not self.var_keyword or name in self.named:
            return False
        return self.extras_allowed or any(p.search(name) for p in self.patterns)

    def convert(self, tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """The keyword arguments for the function (pydantic-typed values validated into their
        types), and one message per value that failed that validation."""
        if not self.converters:
            return arguments, []
        converted = dict(arguments)
        problems: list[str] = []
        for name, convert in self.converters.items():
            if name in converted:
                try:
                    converted[name] = convert(converted[name])
                except ValueError as e:  # pydantic.ValidationError is a ValueError
                    problems.extend(_validation_messages(tool, name, e))
        return converted, problems


def binding_of(func: Callable[..., Any], schema: Mapping[str, Any]) -> Binding:
    """The :class:`Binding` of a tool's ``schema`` to ``func``. A function whose signature
    cannot be read is given the declared arguments only."""
    properties = schema.get("properties")
    declared = set(properties) if isinstance(properties, Mapping) else set()
    for key in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(key) or ():
            if isinstance(part, Mapping) and isinstance(part.get("properties"), Mapping):
                declared.update(part["properties"])
    additional = schema.get("additionalProperties", False)
    patterns = schema.get("patternProperties")
    compiled: list[re.Pattern[str]] = []
    for pattern in patterns if isinstance(patterns, Mapping) else ():
        try:
            compiled.append(re.compile(pattern))
        except re.error:
            continue  # the schema validator has already judged the key against it
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        parameters = None
    var_keyword = parameters is not None and any(p.kind is p.VAR_KEYWORD for p in parameters)
    named = frozenset(p.name for p in parameters or () if p.kind is not p.VAR_KEYWORD)
    return Binding(
        frozenset(declared),
        additional is not False,
        tuple(compiled),
        var_keyword,
        named,
        _converters(func, named & declared),
    )


def _converters(func: Callable[..., Any], names: frozenset[str]) -> dict[str, Callable[[Any], Any]]:
    """A pydantic validator for each parameter whose type mentions a pydantic model."""
    pydantic = sys.modules.get("pydantic")
    if pydantic is None:
        return {}
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except (TypeError, ValueError, NameError):
        return {}
    return {
        name: pydantic.TypeAdapter(hints[name]).validate_python
        for name in sorted(names)
        if name in hints and _mentions_model(hints[name])
    }


def _validation_messages(tool: str, name: str, error: ValueError) -> list[str]:
    """pydantic's errors (or one error's text) in the words of ``validate_arguments``."""
    details = getattr(error, "errors", None)
    items = details() if callable(details) else [{"loc": (), "msg": str(error)}]
    messages = []
    for item in items:
        path = ".".join(str(part) for part in (name, *item.get("loc", ())))
        messages.append(
            f"Arguments for tool '{tool}' are invalid at '{path}': {item.get('msg')}. Retry the "
            f"tool call with a corrected value for '{path}'."
        )
    return messages


def _pydantic_model(hint: Any) -> bool:
    pydantic = sys.modules.get("pydantic")  # never imported here: no model without it
    if pydantic is None or not isinstance(hint, type):
        return False
    try:
        return issubclass(hint, pydantic.BaseModel)
    except TypeError:  # a generic alias that passes for a type
        return False


def _mentions_model(hint: Any) -> bool:
    return _pydantic_model(hint) or any(_mentions_model(a) for a in typing.get_args(hint))


class _Schemas:
    """JSON Schemas of type hints; the ``$defs`` of pydantic models are gathered in ``defs``."""

    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}

    def of(self, hint: Any, where: str) -> dict[str, Any]:
        """The JSON Schema of one type hint."""
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        if origin is typing.Annotated:
            schema = self.of(args[0], where)
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
            if len(kinds) == 1 and None not in kinds:
                return {"type": kinds.pop(), **schema}
            return schema
        if origin in (typing.Union, types.UnionType):
            options = [a for a in args if a is not type(None)]
            nullable = len(options) < len(args)
            if len(options) == 1:
                schema = self.of(options[0], where)
                if nullable:
                    return _with_null(schema)
                return schema
            alternatives = [self.of(a, where) for a in options]
            if nullable:
                alternatives.append({"type": "null"})
            return {"anyOf": alternatives}
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return self.of(typing.Literal[tuple(m.value for m in hint)], where)
        if _pydantic_model(hint):
            return self._model(hint, where)
        if hint in (list, tuple, set, frozenset) or origin in (list, set, frozenset, Sequence):
            schema = {"type": "array"}
            if args:
                schema["items"] = self.of(args[0], where)
            if hint in (set, frozenset) or origin in (set, frozenset):
                schema["uniqueItems"] = True
            return schema
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return {"type": "array", "items": self.of(args[0], where)}
            items = [self.of(a, where) for a in args]
            return {
                "type": "array",
                "prefixItems": items,
                "minItems": len(items),
                "maxItems": len(items),
            }
        if hint is dict or origin in (dict, Mapping):
            schema = {"type": "object"}
            if len(args) == 2 and args[1] is not Any:
                schema["additionalProperties"] = self.of(args[1], where)
            return schema
        if typing.is_typeddict(hint):
            fields = typing.get_type_hints(hint)
            return {
                "type": "object",
                "properties": {k: self.of(v, f"{where}.{k}") for k, v in fields.items()},
                "required": sorted(hint.__required_keys__),
            }
        raise ToolDefinitionError(
            f"{where}: no JSON Schema for the type {hint!r}; use str, int, float, bool, list[T], "
            "dict, Literal, an Enum, a TypedDict, a pydantic model or Optional of these, or "
            "register a Tool with an explicit schema"
        )

    def _model(self, model: type[Any], where: str) -> dict[str, Any]:
        """A pydantic model's schema (validation mode); its ``$defs`` are gathered."""
        schema: dict[str, Any] = model.model_json_schema()
        for name, definition in schema.pop("$defs", {}).items():
            if self.defs.setdefault(name, definition) != definition:
                raise ToolDefinitionError(
                    f"{where}: two different models are named {name!r}; rename one of them"
                )
        return schema


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
