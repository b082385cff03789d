"""Runs the pytest-benchmark suites and prints, per group, each implementation's time relative
to toolwire's (same run, same machine). Usage: python benches/report.py [pytest args...]"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.json"
        command = [
            sys.executable,
            "-m",
            "pytest",
            str(Path(__file__).parent),
            "-q",
            "--benchmark-enable",
            "--benchmark-only",
            f"--benchmark-json={out}",
            *sys.argv[1:],
        ]
        status = subprocess.call(command)
        if not out.exists():
            return status or 1
        data = json.loads(out.read_text())
    groups: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for bench in data["benchmarks"]:
        groups[bench["group"] or bench["name"]].append((bench["name"], bench["stats"]["median"]))
    for group, entries in sorted(groups.items()):
        ours = [t for name, t in entries if "toolwire" in name]
        reference = min(ours) if ours else min(t for _, t in entries)
        print(f"\n{group}")
        for name, median in sorted(entries, key=lambda e: e[1]):
            print(f"  {name:70s} {median * 1e3:10.3f} ms  {median / reference:7.2f}x toolwire")
    return status


if __name__ == "__main__":
    sys.exit(main())
