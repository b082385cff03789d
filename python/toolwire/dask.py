"""Scale-out on Dask: :func:`toolwire.extract_arrow` mapped over the partitions of a Dask
dataframe, or over a bag of JSONL files (``pip install 'toolwire[dask]'``).

Dask already runs one task per core, so each partition is extracted on one thread by default
(``threads=1``); pass ``threads=None`` to let each task use every core of its worker.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dask.bag as db
import dask.dataframe as dd
import pandas as pd
import pyarrow as pa
from fsspec.core import get_fs_token_paths
from fsspec.utils import infer_compression

from ._arrow import calls_type, extract_arrow

__all__ = ["extract_dataframe", "extract_jsonl"]


def _calls_series(column: pd.Series, options: dict[str, Any]) -> pd.Series:
    calls = extract_arrow(pa.array(column, from_pandas=True), **options)
    return pd.Series(pd.arrays.ArrowExtensionArray(calls), index=column.index, name=column.name)


def extract_dataframe(
    frame: dd.DataFrame,
    column: str,
    *,
    output: str = "tool_calls",
    threads: int | None = 1,
    **options: Any,
) -> dd.DataFrame:
    """``frame`` with a new column ``output``: the calls of the JSON bodies in ``column``, as
    ``list<struct<id, name, arguments, error>>`` (an Arrow-backed pandas dtype). ``options``
    are :func:`toolwire.extract_arrow`'s (``field``, ``provider``, ``raw_json``, …).

    >>> frame = dd.from_pandas(pd.DataFrame({"body": ['{"text": "hi"}']}), npartitions=1)
    >>> extract_dataframe(frame, "body").compute()["tool_calls"].tolist()
    [[]]
    """
    options = {**options, "threads": threads}
    dtype = pd.ArrowDtype(calls_type())

    def add_calls(part: pd.DataFrame) -> pd.DataFrame:
        calls = _calls_series(part[column], options)
        return part.assign(**{output: calls.astype(dtype)})

    meta = frame._meta.assign(**{output: pd.Series([], dtype=dtype)})
    return frame.map_partitions(add_calls, meta=meta)


def extract_jsonl(
    paths: str | Sequence[str],
    *,
    field: str | None = "response",
    blocksize: str | int | None = "64MiB",
    threads: int | None = 1,
    **options: Any,
) -> db.Bag:
    """A bag with one item per line of the JSONL files ``paths`` (globs, ``.gz`` and remote
    URLs as :func:`dask.bag.read_text` takes them): the line's calls as a list of
    ``{"id", "name", "arguments", "error"}`` dicts. ``field`` is the dotted path to the
    response inside each line (``None``: the line is the response).

    ``blocksize`` splits plain files into partitions; a compressed file (``.gz``, ``.bz2``,
    ``.xz``, ``.zst``, …) cannot be split, so when the paths name any, each file is one
    partition.
    """
    extract_options = {**options, "field": field, "threads": threads}
    if blocksize is not None and _any_compressed(paths):
        blocksize = None

    def calls_of_lines(lines: list[str]) -> list[Any]:
        bodies = pa.array([line.rstrip("\r\n") for line in lines], pa.string())
        calls: list[Any] = extract_arrow(bodies, **extract_options).to_pylist()
        return calls

    return db.read_text(paths, blocksize=blocksize).map_partitions(calls_of_lines)


def _any_compressed(paths: str | Sequence[str]) -> bool:
    """Whether any file the paths (or globs) name is compressed, by its suffix."""
    _, _, files = get_fs_token_paths(paths, mode="rb")
    return any(infer_compression(name) is not None for name in files)
