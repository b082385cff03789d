"""pydantic interop without a pydantic dependency: the core schemas behind the
``__get_pydantic_core_schema__`` hooks of :class:`ToolCall`, :class:`InvalidToolCall`,
:class:`ToolResult` and the stream events. pydantic calls the hook, so it is imported only then.

Each type validates from an instance or from its ``to_dict()`` form (a JSON object), and
serialises to its ``to_dict()`` form; its JSON Schema is that object's.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import TYPE_CHECKING, Any

from ._toolwire import (
    InvalidToolCall,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

__all__ = ["core_schema"]

# The fields of the native classes (what `to_dict()` writes, besides an event's `kind`), with
# their types and whether an input object may leave them out (the constructor's defaults).
_NATIVE_FIELDS: dict[type, dict[str, tuple[Any, bool]]] = {
    ToolCall: {"id": (str, False), "name": (str, True), "arguments": (dict[str, Any], False)},
    InvalidToolCall: {
        "raw": (str, True),
        "error": (str, True),
        "protocol": (str, True),
        "index": (int, False),
        "offset": (int | None, False),
        "name": (str | None, False),
    },
    TextDelta: {"text": (str, True)},
    ReasoningDelta: {"text": (str, True)},
    ToolCallStart: {"index": (int, True), "id": (str, True), "name": (str, True)},
    ToolCallDelta: {"index": (int, True), "arguments": (str, True)},
    ToolCallEnd: {"index": (int, True), "call": (ToolCall, True)},
}


def _fields(cls: type) -> dict[str, tuple[Any, bool, bool]]:
    """``{name: (type, required in, always written)}``: a native class's table above, where
    ``to_dict()`` writes every field, or a dataclass's own fields, where it may leave out one
    with a default (``ToolResult.diagnostics`` when empty)."""
    if cls in _NATIVE_FIELDS:
        return {name: (tp, required, True) for name, (tp, required) in _NATIVE_FIELDS[cls].items()}
    hints = typing.get_type_hints(cls)
    fields = {}
    for field in dataclasses.fields(cls):
        required = (
            field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
        )
        fields[field.name] = (hints[field.name], required, required)
    return fields


def core_schema(cls: type[Any], handler: GetCoreSchemaHandler) -> CoreSchema:
    """The schema of ``cls``: an instance, or its ``to_dict()`` object, in; ``to_dict()`` out."""
    from pydantic_core import PydanticSerializationUnexpectedValue
    from pydantic_core import core_schema as cs

    fields = _fields(cls)
    kind = getattr(cls, "kind", None)  # an event's class attribute (a property elsewhere)

    def object_schema(*, output: bool) -> cs.TypedDictSchema:
        items = {
            name: cs.typed_dict_field(
                handler.generate_schema(tp), required=written if output else required
            )
            for name, (tp, required, written) in fields.items()
        }
        if isinstance(kind, str):
            kind_field = cs.typed_dict_field(cs.literal_schema([kind]), required=output)
            items = {"kind": kind_field, **items}
        return cs.typed_dict_schema(items, cls_name=cls.__name__)

    def from_object(data: dict[str, Any]) -> Any:
        return cls(**{name: value for name, value in data.items() if name != "kind"})

    def to_object(value: Any) -> dict[str, Any]:
        if not isinstance(value, cls):  # in a union, pydantic then tries the next type
            raise PydanticSerializationUnexpectedValue(f"expected {cls.__name__}")
        # The keys `to_dict()` writes; the values as objects, which their own schemas serialise.
        return {key: getattr(value, key) for key in value.to_dict()}

    validated = cs.no_info_after_validator_function(from_object, object_schema(output=False))
    return cs.json_or_python_schema(
        json_schema=validated,
        python_schema=cs.union_schema([cs.is_instance_schema(cls), validated]),
        serialization=cs.plain_serializer_function_ser_schema(
            to_object, return_schema=object_schema(output=True)
        ),
        ref=f"toolwire.{cls.__name__}",
    )
