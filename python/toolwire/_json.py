"""``json_default``: what ``json.dumps`` needs to write toolwire's values."""

from __future__ import annotations

from typing import Any

from ._toolwire import (
    InvalidToolCall,
    Parsed,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from ._types import Tool, ToolResult

__all__ = ["json_default"]

_WITH_TO_DICT = (
    ToolCall,
    InvalidToolCall,
    ToolResult,
    Tool,
    Parsed,
    TextDelta,
    ReasoningDelta,
    ToolCallStart,
    ToolCallDelta,
    ToolCallEnd,
)


def json_default(value: object) -> dict[str, Any]:
    """The ``default=`` of ``json.dumps`` (or ``orjson.dumps``) for toolwire's values: a call,
    an invalid call, a result, a tool, parsed text or a stream event becomes its ``to_dict()``;
    anything else raises ``TypeError``, as ``json.dumps`` does.

    >>> import json
    >>> json.dumps([ToolCall("call_1", "f", {"a": 1})], default=json_default)
    '[{"id": "call_1", "name": "f", "arguments": {"a": 1}}]'
    """
    if isinstance(value, _WITH_TO_DICT):
        return value.to_dict()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
