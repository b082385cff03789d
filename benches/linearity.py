"""Linear time on hostile input: each adversarial input of tests/adversarial.py is timed at
size n and 2n (best CPU time of several runs, interleaved, garbage collector paused; n grows
from the case's base size until one run takes 20 ms, so timer noise does not decide); a
ratio above 2.5 fails loudly (exit status 1).

    python benches/linearity.py [--runs 5] [--scale 1.0] [NAME_SUBSTRING...]

Not part of the pytest run: timings on a shared machine are for a script, not a unit test.

The script runs itself with glibc's mmap threshold pinned (`MALLOC_MMAP_THRESHOLD_`): by
default glibc raises it as large blocks are freed (up to 32 MiB), so a run at n can reuse
heap pages while the run at 2n, past the threshold, gets fresh mmap'd pages and pays a page
fault for each; a flood held whole (an unterminated open-weight format region) then measured 3-4.6x
per doubling with linear code. Pinned, both sizes get memory the same way.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from adversarial import Case, cases, outcome

LIMIT = 2.5
MIN_SECONDS = 0.02
MAX_BYTES = 256_000_000


def once(case: Case, data: Any) -> float:
    """CPU seconds of one run (not wall time: the machine is shared, and a run descheduled
    for another process's turn is not slower code)."""
    gc.collect()
    start = time.process_time()
    outcome(case.run, data)
    return time.process_time() - start


def grows(data: Any, n: int, case: Case) -> bool:
    """Whether `n` may double again: text up to 256 MB at 2n (a fast scan of a few MB takes
    a few ms, where cache effects decide the ratio), other inputs up to 64x the base size."""
    if isinstance(data, str | bytes):
        return len(data) * 4 <= MAX_BYTES
    return n < 64 * case.base


def ratio_at(case: Case, n: int, runs: int) -> tuple[int, float, float]:
    """(n, best time at n, best time at 2n), n doubled until a run at n takes 20 ms."""
    small = case.make(n)
    while once(case, small) < MIN_SECONDS and grows(small, n, case):
        n *= 2
        small = case.make(n)
    large = case.make(2 * n)
    t1 = t2 = float("inf")
    for _ in range(runs):
        t1 = min(t1, once(case, small))
        t2 = min(t2, once(case, large))
    return n, t1, t2


PINNED_MMAP_THRESHOLD = str(128 * 1024)  # glibc's initial value


def main() -> int:
    if sys.platform == "linux" and "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": PINNED_MMAP_THRESHOLD}
        os.execve(sys.executable, [sys.executable, *sys.argv], env)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per size (the best counts)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every base size")
    parser.add_argument("names", nargs="*", help="only cases whose name contains one of these")
    args = parser.parse_args()
    selected = [c for c in cases() if not args.names or any(n in c.name for n in args.names)]
    failures = []
    print(f"{'input':44} {'n':>11} {'t(n) ms':>9} {'t(2n) ms':>9} {'ratio':>6}")
    for case in selected:
        gc.disable()
        try:
            n, t1, t2 = ratio_at(case, max(1, int(case.base * args.scale)), args.runs)
        finally:
            gc.enable()
        ratio = t2 / max(t1, 1e-6)
        flag = "" if ratio <= LIMIT else "  <-- NOT LINEAR"
        print(f"{case.name[:44]:44} {n:>11} {t1 * 1e3:9.2f} {t2 * 1e3:9.2f} {ratio:6.2f}{flag}")
        if ratio > LIMIT:
            failures.append(case.name)
    if failures:
        print(f"FAILED: time more than {LIMIT}x for 2x input: {', '.join(failures)}")
        return 1
    print(f"OK: {len(selected)} inputs, every doubling within {LIMIT}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
