"""The CLI's memory stays bounded (peak RSS under 200 MB) whatever the input: a flood of blank
lines, of short bad lines, one huge line, and a gzip bomb. (Before the bound, 8 MB of newlines
took 4.7 GB.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(600)

LIMIT_MB = 200

#: Runs the CLI on the file (or stdin) given and prints its peak RSS in MB: measured in a
#: process of its own, since a process's children's peak is the largest of all of them.
PEAK = """
import resource, subprocess, sys
stdin = open(sys.argv[2], "rb") if sys.argv[2] != "-" else None
result = subprocess.run(
    [sys.executable, "-m", "toolwire", "extract", sys.argv[1], "-o", sys.argv[3]],
    stdin=stdin, stderr=subprocess.PIPE, check=False,
)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f'{{"status": {result.returncode}, "peak_mb": {peak:.1f}}}')
sys.stderr.write(result.stderr.decode())
"""


def peak(
    source: str | Path, tmp_path: Path, stdin: Path | None = None, keep_output: bool = False
) -> tuple[float, str]:
    # Millions of error records would fill the disk for nothing: only a test that reads the
    # output keeps it.
    out = tmp_path / "out.jsonl" if keep_output else Path(os.devnull)
    result = subprocess.run(
        [sys.executable, "-c", PEAK, str(source), str(stdin or "-"), str(out)],
        capture_output=True,
        check=True,
        timeout=600,
    )
    report = json.loads(result.stdout)
    assert report["status"] == 0, result.stderr
    return report["peak_mb"], result.stderr.decode()


def write_repeated(path: Path, piece: bytes, size: int, compress: bool = False) -> None:
    """``piece`` repeated to ``size`` bytes, written (or gzip-compressed) a block at a time."""
    block = piece * max(1, (1 << 20) // len(piece))
    packer = zlib.compressobj(wbits=31) if compress else None
    with path.open("wb") as out:
        written = 0
        while written < size:
            data = block[: size - written]
            written += len(data)
            out.write(packer.compress(data) if packer else data)
        if packer:
            out.write(packer.flush())


def test_blank_lines(tmp_path: Path) -> None:
    log = tmp_path / "blank.jsonl"
    write_repeated(log, b"\n", 64_000_000)
    mb, summary = peak(log, tmp_path)
    assert "0 lines" in summary and "64000000 blank lines skipped" in summary
    assert mb < LIMIT_MB, mb


def test_short_bad_lines(tmp_path: Path) -> None:
    log = tmp_path / "bad.jsonl"
    write_repeated(log, b"x\n", 16_000_000)
    mb, summary = peak(log, tmp_path)
    assert "8000000 bad lines" in summary
    assert mb < LIMIT_MB, mb


def test_one_huge_line_on_stdin(tmp_path: Path) -> None:
    log = tmp_path / "huge.txt"
    write_repeated(log, b"x", 300_000_000)
    mb, summary = peak("-", tmp_path, stdin=log, keep_output=True)
    assert "1 lines" in summary and "1 bad lines" in summary
    record = json.loads((tmp_path / "out.jsonl").read_bytes())
    assert "longer than the 16 MiB toolwire reads" in record["errors"][0]["error"]
    assert mb < LIMIT_MB, mb


def test_a_gzip_bomb(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.jsonl.gz"
    write_repeated(bomb, b"\n" * 1023 + b"x", 256 << 20, compress=True)
    assert bomb.stat().st_size < 2 << 20
    mb, summary = peak(bomb, tmp_path)
    assert "262144 bad lines" in summary
    assert mb < LIMIT_MB, mb
