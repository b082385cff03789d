"""The scale-out examples of docs/batch.md, run as written: the Dask block on a two-worker
LocalCluster over ``.jsonl.gz`` files (with its default ``blocksize``), and the Spark ``mapInArrow``
block on a ``local[2]`` session. Each must give the calls ``extract_batch`` gives in process.

The blocks are taken from docs/batch.md (fenced as ``python dask`` / ``python spark``) and executed
with ``s3://bucket/`` replaced by a temporary folder; nothing else is changed.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from support import ROOT, expected_rows, mask, sample_lines

PAGE = ROOT / "docs" / "batch.md"
BATCH = PAGE.read_text(encoding="utf-8")


def doc_block(tag: str, bucket: Path) -> str:
    [block] = re.findall(rf"```python {tag}\n(.*?)```", BATCH, flags=re.DOTALL)
    assert "s3://bucket/" in block
    return block.replace("s3://bucket/", f"{bucket.as_posix()}/")


def write_logs(folder: Path, lines: list[str], parts: int, *, compress: bool) -> None:
    folder.mkdir(parents=True)
    size = -(-len(lines) // parts)
    for i in range(parts):
        text = "".join(line + "\n" for line in lines[i * size : (i + 1) * size])
        if compress:
            (folder / f"part-{i}.jsonl.gz").write_bytes(gzip.compress(text.encode()))
        else:
            (folder / f"part-{i}.jsonl").write_text(text, encoding="utf-8")


def test_docs_dask_example_on_gzip_files(cluster_client: Any, tmp_path: Path) -> None:
    lines = sample_lines()
    write_logs(tmp_path / "logs", lines, 3, compress=True)
    namespace: dict[str, Any] = {}
    exec(compile(doc_block("dask", tmp_path), str(PAGE), "exec"), namespace)

    want = [call for row in expected_rows(lines) for call in row]
    assert len(cluster_client.scheduler_info()["workers"]) == 2
    assert namespace["calls"].npartitions == 3  # one per compressed file
    assert mask([namespace["calls"].compute()])[0] == want
    names = Counter(call["name"] for call in want)
    assert dict(namespace["names"]) == dict(names)


def test_dask_extract_jsonl_splits_plain_files_by_blocksize(
    cluster_client: Any, tmp_path: Path
) -> None:
    import toolwire.dask

    lines = sample_lines()
    write_logs(tmp_path / "plain", lines, 1, compress=False)
    bag = toolwire.dask.extract_jsonl(str(tmp_path / "plain" / "*.jsonl"), blocksize="256KiB")
    assert bag.npartitions > 1
    assert mask(bag.compute()) == expected_rows(lines)


def spark_session() -> Any:
    """A ``local[2]`` session, or a skip (a failure under CI, which installs the spark extra)."""
    required = os.environ.get("CI") == "true"
    if shutil.which("java") is None:
        if required:
            pytest.fail("CI needs Java 17 on the PATH for the Spark test")
        pytest.skip("no Java on the PATH")
    if required:
        from pyspark.sql import SparkSession
    else:
        SparkSession = pytest.importorskip(
            "pyspark.sql", reason="the spark extra is not installed"
        ).SparkSession
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers import this toolwire
    return (
        SparkSession.builder.master("local[2]")
        .appName("toolwire-readme")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )


@pytest.mark.spark
@pytest.mark.timeout(600)
def test_docs_spark_example_on_local_spark(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    lines = sample_lines()[:300]
    write_logs(tmp_path / "logs", lines, 2, compress=False)
    spark = spark_session()
    try:
        exec(compile(doc_block("spark", tmp_path), str(PAGE), "exec"), {"spark": spark})
    finally:
        spark.stop()

    table = pq.read_table(tmp_path / "calls").to_pylist()
    got = {row["line"]: mask([row["calls"]])[0] for row in table}
    assert len(table) == len(lines) == len(got)
    assert got == dict(zip(lines, expected_rows(lines), strict=True))
