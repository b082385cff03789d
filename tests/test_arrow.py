"""`extract_arrow` on Arrow columns, and the Dask helpers on a two-worker LocalCluster: the same
calls as `extract_batch` in process."""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

import pytest
import toolwire
from support import expected_rows, mask, sample_lines

pa = pytest.importorskip("pyarrow", reason="the arrow extra (pyarrow) is not installed")


def test_extract_arrow_equals_extract_batch() -> None:
    lines = sample_lines()
    want = expected_rows(lines)
    for kind in (pa.string(), pa.large_string(), pa.binary(), pa.large_binary()):
        got = toolwire.extract_arrow(pa.array(lines, kind), field="response")
        assert got.type == toolwire._arrow.calls_type()
        assert mask(got.to_pylist()) == want, kind


def test_nulls_slices_chunks_and_bad_rows() -> None:
    lines = sample_lines()[:40]
    rows: list[str | None] = [*lines[:10], None, "not json", *lines[10:]]
    array = pa.array(rows, pa.string())
    got = toolwire.extract_arrow(array, field="response").to_pylist()
    assert len(got) == len(rows) and got[10] is None
    [bad] = got[11]
    assert bad["error"].startswith("invalid JSON") and bad["name"] is None
    sliced = toolwire.extract_arrow(array.slice(9, 5), field="response").to_pylist()
    assert mask(sliced) == mask(got[9:14])
    chunked = pa.chunked_array([array.slice(0, 20), array.slice(20)])
    result = toolwire.extract_arrow(chunked, field="response")
    assert isinstance(result, pa.ChunkedArray)
    assert mask(result.to_pylist()) == mask(got)
    with pytest.raises(TypeError, match="string or binary"):
        toolwire.extract_arrow(pa.array([1, 2]))


def test_bodies_without_field() -> None:
    body = {"tool_calls": [{"id": "c1", "name": "f", "arguments": {"a": [1, 2.5]}}]}
    got = toolwire.extract_arrow(pa.array([json.dumps(body), ""]))
    assert got.to_pylist()[0] == [
        {"id": "c1", "name": "f", "arguments": '{"a":[1,2.5]}', "error": None}
    ]
    assert got.to_pylist()[1][0]["error"].startswith("invalid JSON")


def test_writable_and_read_only_buffers_give_the_same_rows() -> None:
    lines = sample_lines()[:300]
    built = pa.array(lines, pa.string())
    _, offsets, data = built.buffers()
    assert memoryview(data).readonly is False  # what the rows of a pa.array live in
    # A slice: the rows read start in the middle of the data buffer.
    want = mask(toolwire.extract_arrow(built.slice(37, 200), field="response").to_pylist())
    assert want == expected_rows(lines[37:237])
    for memory in (data.to_pybytes(), bytearray(data.to_pybytes())):
        # Read-only memory for bytes, writable for a bytearray.
        buffers = [None, offsets, pa.py_buffer(memory)]
        array = pa.Array.from_buffers(pa.string(), 200, buffers, offset=37)
        assert memoryview(array.buffers()[2]).readonly is isinstance(memory, bytes)
        assert mask(toolwire.extract_arrow(array, field="response").to_pylist()) == want


def test_a_writable_buffer_written_during_the_call_does_not_change_the_rows() -> None:
    """The rows of a writable buffer are copied before other threads read them: a Python
    thread that overwrites a pa.array's data as soon as the call lets go of the interpreter
    (the switch interval is too long for it to get in earlier) changes nothing."""
    array = pa.array(sample_lines(), pa.string())
    want = mask(toolwire.extract_arrow(array, field="response").to_pylist())

    go = threading.Event()
    view = memoryview(array.buffers()[2]).cast("B")
    assert not view.readonly

    def overwrite() -> None:
        go.wait()
        view[:] = b" " * len(view)

    writer = threading.Thread(target=overwrite)
    writer.start()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        go.set()
        got = toolwire.extract_arrow(array, field="response", threads=2)
    finally:
        sys.setswitchinterval(interval)
        writer.join()
    assert view.tobytes().strip() == b""  # the writer ran
    assert mask(got.to_pylist()) == want


def test_dask_dataframe_on_a_local_cluster(cluster_client: Any) -> None:
    import dask.dataframe as dd
    import pandas as pd
    import toolwire.dask

    lines = sample_lines()
    frame = dd.from_pandas(pd.DataFrame({"line": lines}), npartitions=4)
    result = toolwire.dask.extract_dataframe(frame, "line", field="response").compute()
    assert len(cluster_client.scheduler_info()["workers"]) == 2
    assert mask([list(row) for row in result["tool_calls"].tolist()]) == expected_rows(lines)
    assert result["line"].tolist() == lines


def test_dask_bag_of_jsonl_files(cluster_client: Any, tmp_path: Any) -> None:
    import toolwire.dask

    lines = sample_lines()
    half = len(lines) // 2
    (tmp_path / "a.jsonl").write_text("\n".join(lines[:half]) + "\n", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("\n".join(lines[half:]) + "\n", encoding="utf-8")
    bag = toolwire.dask.extract_jsonl(str(tmp_path / "*.jsonl"), blocksize="256KiB")
    assert bag.npartitions > 2
    assert mask(bag.compute()) == expected_rows(lines)
