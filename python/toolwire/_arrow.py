"""``extract_arrow``: the calls of a whole Arrow column of response bodies, computed in Rust on
the column's own buffers and returned as Arrow buffers (no Python object per row)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from ._toolwire import extract_arrow_buffers

if TYPE_CHECKING:
    import pyarrow as pa

    from ._format_names import AnyFormatName
    from ._toolwire import Provider, RawJsonMode

__all__ = ["calls_type", "extract_arrow"]


def calls_type() -> pa.DataType:
    """The type ``extract_arrow`` returns: one list of call entries per row.

    Each entry is ``{id, name, arguments, error}``: a call has ``id``, ``name`` and
    ``arguments`` (the arguments object as compact JSON text, since its keys differ from tool to
    tool) and a null ``error``; a call that failed has its ``error`` (and ``name`` when it could
    be read); a row that holds no readable response has one entry with only ``error``.
    """
    import pyarrow as pa

    entry = pa.struct(
        [
            ("id", pa.string()),
            ("name", pa.string()),
            ("arguments", pa.string()),
            ("error", pa.string()),
        ]
    )
    return pa.list_(entry)


def _bytes(buffer: pa.Buffer | None) -> memoryview:
    return memoryview(buffer).cast("B") if buffer is not None else memoryview(b"")


def _string_array(n: int, parts: tuple[bytes | None, bytes, bytes, int]) -> pa.Array:
    import pyarrow as pa

    validity, offsets, data, nulls = parts
    buffers = [
        None if validity is None else pa.py_buffer(validity),
        pa.py_buffer(offsets),
        pa.py_buffer(data),
    ]
    return pa.Array.from_buffers(pa.string(), n, buffers, null_count=nulls)


def extract_arrow(
    array: pa.Array | pa.ChunkedArray,
    /,
    *,
    field: str | None = None,
    provider: Provider = "auto",
    threads: int | None = None,
    formats: Literal["auto"] | Sequence[AnyFormatName] | None = None,
    raw_json: RawJsonMode = "fenced",
    repair: bool = False,
    deterministic_ids: bool = False,
) -> pa.Array | pa.ChunkedArray:
    """The tool calls of every row of a pyarrow string or binary array of JSON response bodies
    (or of log records, with ``field`` the dotted path to the body), as a
    ``list<struct<id, name, arguments, error>>`` array of the same length (see
    :func:`calls_type`). Null rows stay null. Needs ``pyarrow`` (``pip install
    'toolwire[arrow]'``).

    ``provider``, ``threads``, ``formats``, ``raw_json`` and ``repair`` are those of
    :func:`toolwire.extract_batch`. With ``deterministic_ids``, a call without an id gets
    ``call_{n}_{k}`` (row ``n`` counted from 1 over the whole array, call ``k`` of its
    response), as ``extract_batch`` and the CLI give, instead of a random id.

    >>> import pyarrow as pa
    >>> body = '{"tool_calls": [{"id": "c1", "name": "f", "arguments": {"a": 1}}]}'
    >>> extract_arrow(pa.array([body, None])).to_pylist()
    [[{'id': 'c1', 'name': 'f', 'arguments': '{"a":1}', 'error': None}], None]
    """
    import pyarrow as pa

    options: dict[str, Any] = {
        "field": field,
        "provider": provider,
        "threads": threads,
        "formats": formats,
        "raw_json": raw_json,
        "repair": repair,
        "deterministic_ids": deterministic_ids,
    }
    if isinstance(array, pa.ChunkedArray):
        chunks = []
        first_line = 1
        for chunk in array.chunks:
            chunks.append(_extract_array(chunk, first_line, options))
            first_line += len(chunk)
        return pa.chunked_array(chunks, type=calls_type())
    return _extract_array(array, 1, options)


def _extract_array(array: pa.Array, first_line: int, options: dict[str, Any]) -> pa.Array:
    """:func:`extract_arrow` on one array, whose first row is line ``first_line``."""
    import pyarrow as pa

    if not isinstance(array, pa.Array):
        raise TypeError(
            f"extract_arrow needs a pyarrow Array or ChunkedArray, not {type(array).__name__}"
        )
    kind = array.type
    if pa.types.is_string_view(kind) or pa.types.is_binary_view(kind):
        array = array.cast(pa.large_binary())
        kind = array.type
    if not (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
    ):
        raise TypeError(f"extract_arrow needs a string or binary array, not {kind}")
    validity, offsets, data = array.buffers()
    wide = pa.types.is_large_string(kind) or pa.types.is_large_binary(kind)
    result: tuple[Any, ...] = extract_arrow_buffers(
        _bytes(data),
        _bytes(offsets),
        None if validity is None or array.null_count == 0 else _bytes(validity),
        wide,
        array.offset,
        len(array),
        first_line=first_line,
        **options,
    )
    row_validity, list_offsets, row_nulls, entries, *columns = result
    struct = pa.StructArray.from_arrays(
        [_string_array(entries, column) for column in columns],
        fields=list(calls_type().value_type),
    )
    return pa.Array.from_buffers(
        calls_type(),
        len(array),
        [None if row_validity is None else pa.py_buffer(row_validity), pa.py_buffer(list_offsets)],
        null_count=row_nulls,
        children=[struct],
    )
