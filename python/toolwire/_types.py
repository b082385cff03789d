"""The canonical types defined in Python (SPEC §1). ``ToolCall`` and ``InvalidToolCall`` are
native classes (they are made on the hot path); these are made by users."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias, get_args

from ._errors import ToolDefinitionError

__all__ = ["Diagnostic", "Origin", "PydanticModel", "Severity", "Tool", "ToolResult"]

Severity: TypeAlias = Literal["info", "warning", "error"]
Origin: TypeAlias = Literal[
    "parse", "registry", "filter", "validation", "execution", "timeout", "provider", "loop"
]
_SEVERITIES: tuple[str, ...] = get_args(Severity)
_ORIGINS: tuple[str, ...] = get_args(Origin)


class PydanticModel(Protocol):
    """A pydantic model class, as far as toolwire needs one (pydantic is not a dependency)."""

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]: ...


def _empty_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


@dataclass(frozen=True)
class Tool:
    """A tool definition: a name, a description and a JSON Schema for its arguments.

    >>> Tool("get_weather", "Current weather", {"type": "object", "properties": {}}).name
    'get_weather'
    """

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=_empty_schema)
    category: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A plain JSON-ready dict (the neutral shape)."""
        data: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
        }
        if self.category is not None:
            data["category"] = self.category
        if self.metadata:
            data["metadata"] = self.metadata
        return data

    @classmethod
    def from_pydantic(
        cls, model: type[PydanticModel], *, name: str | None = None, description: str | None = None
    ) -> Tool:
        """A tool whose arguments are a pydantic model's fields, as the openai SDK's
        ``pydantic_function_tool`` makes it: ``name`` defaults to the class name,
        ``description`` to its docstring, and the parameters are ``model_json_schema()``.
        pydantic itself is not imported: any class with that method serves.
        """
        if not (isinstance(model, type) and hasattr(model, "model_json_schema")):
            raise TypeError(f"expected a pydantic model class, got {model!r}")
        doc = model.__doc__
        if description is None:
            description = inspect.cleandoc(doc) if doc else ""
        return cls(name or model.__name__, description, dict(model.model_json_schema()))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tool:
        """Reads the neutral shape, the OpenAI/Ollama ``{"type": "function", "function": …}``
        wrapper, Anthropic's ``input_schema`` and the ex_athena ``schema`` key.

        >>> Tool.from_dict({"name": "f", "input_schema": {"type": "object"}}).parameters
        {'type': 'object'}
        """
        if not isinstance(data, Mapping):
            raise ToolDefinitionError(
                f"a tool definition must be a mapping, not {type(data).__name__}"
            )
        function = data.get("function")
        if isinstance(function, Mapping):
            data = function
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise ToolDefinitionError(
                f"a tool definition needs a non-empty string 'name', got {name!r}"
            )
        schema: Any = None
        for key in ("parameters", "input_schema", "schema"):
            if data.get(key) is not None:
                schema = data[key]
                break
        if schema is None:
            schema = _empty_schema()
        if not isinstance(schema, Mapping):
            raise ToolDefinitionError(
                f"the schema of tool {name!r} must be an object, got {type(schema).__name__}"
            )
        description = data.get("description") or ""
        if not isinstance(description, str):
            raise ToolDefinitionError(f"the description of tool {name!r} must be a string")
        category = data.get("category")
        metadata = data.get("metadata") or {}
        return cls(
            name=name,
            description=description,
            parameters=dict(schema),
            category=category if isinstance(category, str) else None,
            metadata=dict(metadata) if isinstance(metadata, Mapping) else {},
        )


@dataclass(frozen=True)
class Diagnostic:
    """A structured runtime message: what went wrong (or is worth knowing) and where.

    ``severity`` is ``"info"``, ``"warning"`` or ``"error"``. ``origin`` says which step
    raised it: ``"parse"`` (a call could not be read, or text-written calls were not run),
    ``"registry"`` (unknown tool, no implementation, unusable schema), ``"filter"`` (the tool
    is not enabled), ``"validation"`` (the arguments), ``"execution"`` (the tool raised),
    ``"timeout"``, ``"provider"`` (the provider failed or sent an unreadable answer) or
    ``"loop"`` (the loop's bounds, pending calls). ``call_id`` names the call concerned, if
    any; ``text`` is the message itself (for a failed call, the text the model is sent).

    >>> Diagnostic("error", "timeout", "Tool 'f' did not finish within 5 seconds.", "call_1")
    Diagnostic(severity='error', origin='timeout', text="Tool 'f' did not finish within 5 seconds.", call_id='call_1')
    """  # noqa: E501

    severity: Severity
    origin: Origin
    text: str
    call_id: str | None = None

    def __post_init__(self) -> None:
        if self.severity not in _SEVERITIES:
            raise ValueError(f"severity must be one of {_SEVERITIES}, not {self.severity!r}")
        if self.origin not in _ORIGINS:
            raise ValueError(f"origin must be one of {_ORIGINS}, not {self.origin!r}")

    def to_dict(self) -> dict[str, Any]:
        """A plain JSON-ready dict."""
        return {
            "severity": self.severity,
            "origin": self.origin,
            "text": self.text,
            "call_id": self.call_id,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Diagnostic:
        """The inverse of :meth:`to_dict`."""
        return cls(data["severity"], data["origin"], data["text"], data.get("call_id"))


@dataclass(frozen=True, repr=False)
class ToolResult:
    """The result of running one tool call.

    ``content`` is what the model is sent; ``diagnostics`` are the structured messages of
    what went wrong (or is worth knowing) while running the call, for logs and UIs; they are
    not sent to the model. ``to_dict`` writes them only when there are some.

    >>> ToolResult("call_1", "get_weather", "sunny").to_dict()["content"]
    'sunny'
    """

    tool_call_id: str | None
    name: str | None
    content: str | list[Any] | dict[str, Any]
    is_error: bool = False
    diagnostics: tuple[Diagnostic, ...] = ()

    def __repr__(self) -> str:
        fields = (
            f"tool_call_id={self.tool_call_id!r}, name={self.name!r}, "
            f"content={self.content!r}, is_error={self.is_error!r}"
        )
        if self.diagnostics:
            fields += f", diagnostics={self.diagnostics!r}"
        return f"ToolResult({fields})"

    def to_dict(self) -> dict[str, Any]:
        """A plain JSON-ready dict; ``diagnostics`` only when there are some."""
        data: dict[str, Any] = {
            "tool_call_id": self.tool_call_id,
            "name": self.name,
            "content": self.content,
            "is_error": self.is_error,
        }
        if self.diagnostics:
            data["diagnostics"] = [d.to_dict() for d in self.diagnostics]
        return data

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """pydantic's hook: validated from a ``ToolResult`` or its ``to_dict()`` form."""
        from ._pydantic import core_schema

        return core_schema(cls, handler)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolResult:
        """The inverse of :meth:`to_dict` (also reads results without ``diagnostics``)."""
        return cls(
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
            content=data.get("content", ""),
            is_error=bool(data.get("is_error", False)),
            diagnostics=tuple(Diagnostic.from_dict(d) for d in data.get("diagnostics") or ()),
        )
