"""End-to-end throughput of ``toolwire extract`` on a ~1 GB log made by repeating the shipped
sample (in a temporary directory): MB/s and the peak RSS of the CLI process (target < 200 MB).

    maturin develop --release
    python benches/cli_throughput.py [--size-mb 1024] [--jobs N] [--gzip]
"""

from __future__ import annotations

import argparse
import gzip
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_data import ROOT

SAMPLE = ROOT / "examples" / "logs_sample.jsonl"
RSS_LIMIT_MB = 200


def make_log(path: Path, size_mb: int, compress: bool) -> tuple[int, int]:
    """Writes the sample again and again until ``size_mb``; returns (bytes, lines)."""
    sample = SAMPLE.read_bytes()
    repeats = max(1, round(size_mb * 1e6 / len(sample)))
    opener = gzip.open if compress else open
    with opener(path, "wb") as out:  # type: ignore[operator]
        for _ in range(repeats):
            out.write(sample)
    return repeats * len(sample), repeats * sample.count(b"\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--jobs", type=int, help="--jobs for the CLI (default: all cores)")
    parser.add_argument("--gzip", action="store_true", help="compress the log (.jsonl.gz)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / ("log.jsonl.gz" if args.gzip else "log.jsonl")
        size, lines = make_log(log, args.size_mb, args.gzip)
        output = Path(tmp) / "out.jsonl"
        command = [sys.executable, "-m", "toolwire", "extract", str(log), "-o", str(output)]
        if args.jobs:
            command += ["--jobs", str(args.jobs)]
        started = time.perf_counter()
        result = subprocess.run(command, capture_output=True, check=False)
        seconds = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        out_lines = sum(1 for _ in output.open("rb"))
    print(result.stderr.decode().strip())
    print(
        f"input {size / 1e6:.0f} MB ({lines} lines{', gzip' if args.gzip else ''}), "
        f"jobs {args.jobs or 'all'}: {seconds:.1f} s wall, {size / 1e6 / seconds:.1f} MB/s, "
        f"peak RSS {peak_mb:.0f} MB (limit {RSS_LIMIT_MB} MB)"
    )
    ok = result.returncode == 0 and out_lines == lines and peak_mb < RSS_LIMIT_MB
    if not ok:
        print(f"FAILED: exit {result.returncode}, {out_lines} output lines for {lines}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
