"""``toolwire extract``: a JSONL log of any size → one JSON record per line, in constant memory.

Chunks of whole lines are read ahead in a thread; each chunk is parsed and extracted in Rust
on all cores with the GIL released (``extract_jsonl_chunk``), and its records are written in
input order.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from tqdm import tqdm

from ._cli_io import InputError, LineChunks, open_input, open_output
from ._toolwire import extract_jsonl_chunk

__all__ = ["run_extract"]


@dataclass
class Summary:
    lines: int = 0
    calls: int = 0
    invalid_calls: int = 0
    bad_lines: int = 0
    size: int = 0

    def line(self, seconds: float) -> str:
        megabytes = self.size / 1e6
        return (
            f"toolwire: {self.lines} lines, {self.calls} calls, {self.invalid_calls} invalid "
            f"calls, {self.bad_lines} bad lines; {megabytes:.1f} MB in {seconds:.2f} s "
            f"({megabytes / max(seconds, 1e-9):.1f} MB/s)"
        )


def _progress(size: int | None, name: str) -> tqdm[Any]:
    # Only for a person watching: never in logs, pipes or captured stderr.
    return tqdm(
        total=size,
        desc=Path(name).name[:24] if name != "-" else "stdin",
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
        dynamic_ncols=True,
        leave=False,
    )


def _extract(args: argparse.Namespace, sink: IO[bytes], summary: Summary) -> None:
    reader, raw, size = open_input(args.input)
    chunks = LineChunks(reader, raw, args.input)
    started = time.perf_counter()
    done = 0
    try:
        with _progress(size, args.input) as bar:
            for chunk, position in chunks:
                output, lines, calls, invalid, bad = extract_jsonl_chunk(
                    chunk,
                    summary.lines + 1,
                    field=args.field,
                    provider=args.provider,
                    threads=args.jobs,
                    raw_json=args.raw_json,
                    repair=args.repair,
                )
                sink.write(output)
                summary.lines += lines
                summary.calls += calls
                summary.invalid_calls += invalid
                summary.bad_lines += bad
                summary.size += len(chunk)
                rate = summary.lines / max(time.perf_counter() - started, 1e-9)
                bar.set_postfix_str(f"{rate:,.0f} lines/s", refresh=False)
                bar.update((position if size is not None else summary.size) - done)
                done = position if size is not None else summary.size
    finally:
        chunks.close()
        if reader is not sys.stdin.buffer:
            reader.close()
            raw.close()


def run_extract(args: argparse.Namespace) -> int:
    """Exit status: 0, 1 with ``--strict`` when a line had errors, 2 when the input or output
    cannot be used."""
    if args.jobs is not None and args.jobs < 1:
        print("toolwire: --jobs must be at least 1", file=sys.stderr)
        return 2
    started = time.perf_counter()
    summary = Summary()
    to_stdout = args.output in (None, "-")
    try:
        sink = open_output(args.output)
    except InputError as error:
        print(f"toolwire: {error}", file=sys.stderr)
        return 2
    try:
        _extract(args, sink, summary)
        sink.flush()
    except InputError as error:
        print(f"toolwire: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`toolwire extract big.jsonl | head`): stop quietly.
        sys.stdout = None  # no flush error at exit
        return 1
    finally:
        if not to_stdout:
            sink.close()
    print(summary.line(time.perf_counter() - started), file=sys.stderr)
    return 1 if args.strict and (summary.invalid_calls or summary.bad_lines) else 0
