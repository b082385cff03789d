"""`extract_arrow` on Arrow columns, and the Dask helpers on a two-worker LocalCluster: the same
calls as `extract_batch` in process."""

from __future__ import annotations

import json
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
