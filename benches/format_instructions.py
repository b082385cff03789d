"""Instructions per text for `extract(formats="auto")` on each open-weight format's corpus
renderings and for that format's pure-Python detector (`formats_python.py`), counted by callgrind
(steady under load, unlike wall clock on a shared machine).

A count is the difference between a 3-pass and a 1-pass loop over the texts, halved and divided
by the number of texts, so start-up and loading the corpus cancel out. GC is off in the loop, and
the hash seed is fixed (with a random one, counts of one build moved by ~1k per text).

    python benches/format_instructions.py                      # every format, both sides
    python benches/format_instructions.py qwen3_coder hermes   # some formats
    python benches/format_instructions.py --impl toolwire kimi_k2
    python benches/format_instructions.py --loop hermes 3 toolwire   # one loop (run by the above)

Needs `valgrind`; build with `maturin develop --release` first.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from bench_formats import FORMATS, python_runner, renderings, toolwire_runner

IMPLS = ("toolwire", "python")


def loop(name: str, passes: int, impl: str) -> None:
    items = renderings(name)
    run = toolwire_runner(name) if impl == "toolwire" else python_runner(name)
    gc.disable()
    for _ in range(passes):
        run(items)


def instructions(name: str, passes: int, impl: str) -> int:
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--loop",
        name,
        str(passes),
        impl,
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no callgrind total in:\n{done.stderr}")
    return int(found.group(1))


def per_text(name: str, impl: str) -> float:
    one, three = (instructions(name, passes, impl) for passes in (1, 3))
    return (three - one) / 2 / len(renderings(name))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("formats", nargs="*", metavar="FORMAT", help=", ".join(FORMATS))
    parser.add_argument("--impl", choices=IMPLS, action="append")
    parser.add_argument("--loop", nargs=3, metavar=("FORMAT", "PASSES", "IMPL"))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    unknown = set(args.formats) - set(FORMATS)
    if unknown:
        parser.error(f"unknown formats {sorted(unknown)}; known: {', '.join(FORMATS)}")
    args.formats = args.formats or list(FORMATS)
    if args.loop:
        name, passes, impl = args.loop
        loop(name, int(passes), impl)
        return 0
    jobs = [(name, impl) for name in args.formats for impl in args.impl or IMPLS]
    with ThreadPoolExecutor(args.jobs) as pool:
        counts = dict(zip(jobs, pool.map(lambda job: per_text(*job), jobs), strict=True))
    print(f"{'format':14s} {'toolwire':>10s} {'python':>10s} {'ratio':>7s}")
    for name in args.formats:
        ours, theirs = counts.get((name, "toolwire")), counts.get((name, "python"))
        ratio = f"{theirs / ours:6.1f}x" if ours and theirs else ""
        cells = [f"{c:10.0f}" if c else f"{'':10s}" for c in (ours, theirs)]
        print(f"{name:14s} {' '.join(cells)} {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
