"""Validation of tool-call arguments against the tool's JSON Schema (docs/tools.md).

The schema is compiled once by the Rust core (the ``jsonschema`` crate, draft 2020-12) and kept:
per ``Tool`` object while it lives, and by the schema's compact JSON for every other way of
naming the same schema (a mapping, a fresh ``Tool`` made from a wire definition each turn).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

from ._toolwire import CompiledSchema, compile_schema
from ._types import Tool

__all__ = ["validate_arguments"]

# id(tool) -> (weak reference to that tool, its compiled schema). A frozen ``Tool`` holds a dict,
# so it cannot be hashed; the weak reference both checks identity and clears the entry.
_by_tool: dict[int, tuple[weakref.ref[Tool], CompiledSchema]] = {}


def validate_arguments(tool: Tool | Mapping[str, Any], arguments: Any) -> list[str]:
    """Check ``arguments`` against ``tool.parameters``; return one message per problem.

    JSON Schema draft 2020-12 (or the draft the schema's ``$schema`` names), plus a stricter
    rule: a required property that is ``null`` or a whitespace-only string counts as missing
    (unless its own schema allows ``null``). Each message names the tool and the property path
    and ends with what the model should do on its retry. An empty list means valid.

    ``tool`` is a :class:`Tool` or any mapping :meth:`Tool.from_dict` reads. The compiled schema
    is cached, so treat a tool's ``parameters`` as immutable. An unusable schema raises
    :class:`ToolDefinitionError`.

    >>> weather = Tool("get_weather", parameters={
    ...     "type": "object",
    ...     "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    ...     "required": ["city"],
    ... })
    >>> validate_arguments(weather, {"city": "Oslo", "days": 3})
    []
    >>> print(*validate_arguments(weather, {"city": "  "}))
    Arguments for tool 'get_weather' are missing required properties: city (given as null or blank). Retry the tool call and include these properties.
    >>> print(*validate_arguments(weather, {"city": "Oslo", "days": "3"}))
    Arguments for tool 'get_weather' are invalid at 'days': "3" is not of type "integer". Retry the tool call with a corrected value for 'days'.
    """  # noqa: E501
    entry = _by_tool.get(id(tool))
    if entry is not None and entry[0]() is tool:  # the hot path, inlined
        return entry[1].errors(tool.name, arguments)
    if not isinstance(tool, Tool):
        tool = Tool.from_dict(tool)
        return compile_schema(tool.parameters).errors(tool.name, arguments)
    return compiled_schema(tool).errors(tool.name, arguments)


def compiled_schema(tool: Tool) -> CompiledSchema:
    """The compiled schema of ``tool``, compiled on first use."""
    entry = _by_tool.get(id(tool))
    if entry is not None and entry[0]() is tool:
        return entry[1]
    compiled = compile_schema(tool.parameters)
    key = id(tool)
    _by_tool[key] = (weakref.ref(tool, lambda _ref: _by_tool.pop(key, None)), compiled)
    return compiled
