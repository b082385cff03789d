"""``toolwire extract``: a JSONL log of any size → one JSON record per line, in constant memory.

Chunks of whole lines are read ahead in a thread; each chunk is parsed and extracted in Rust
on all cores with the GIL released (``extract_jsonl_chunk``, a bounded piece at a time), and
its records are written in input order.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from ._cli_io import Input, LineChunks, Output, UnreadLine, run_streams
from ._toolwire import extract_jsonl_chunk, unread_jsonl_record

__all__ = ["StopAtError", "run_extract"]


@dataclass
class Summary:
    lines: int = 0
    calls: int = 0
    invalid_calls: int = 0
    bad_lines: int = 0
    blank_lines: int = 0
    size: int = 0
    #: Whether the run read its input to the end (or to the error that stops it).
    done: bool = False

    @property
    def errors(self) -> int:
        return self.invalid_calls + self.bad_lines

    def line(self, seconds: float) -> str:
        megabytes = self.size / 1e6
        return (
            f"toolwire: {self.lines} lines, {self.calls} calls, {self.invalid_calls} invalid "
            f"calls, {self.bad_lines} bad lines, {self.blank_lines} blank lines skipped; "
            f"{megabytes:.1f} MB in {seconds:.2f} s ({megabytes / max(seconds, 1e-9):.1f} MB/s)"
        )


class StopAtError(Exception):
    """``--on-error raise``: the first line with an error ends the run (exit status 1)."""


def _progress(size: int | None, name: str) -> tqdm[Any]:
    # Only for a person watching: never in logs, pipes or captured stderr. Decimal units
    # (MB), as the summary counts.
    return tqdm(
        total=size,
        desc=Path(name).name[:24] if name != "-" else "stdin",
        unit="B",
        unit_scale=True,
        unit_divisor=1000,
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
        dynamic_ncols=True,
        leave=False,
    )


def _records(output: bytes, on_error: str) -> bytes:
    """The records as ``--on-error`` wants them: as they are (keep), without error entries
    (skip), or up to the first line with an error, which stops the run (raise)."""
    if on_error == "keep" or b',"errors":[{' not in output:
        return output
    kept: list[bytes] = []
    for line in output.splitlines(keepends=True):
        if b',"errors":[]}' in line:
            kept.append(line)
            continue
        record = json.loads(line)
        if on_error == "raise":
            error = record["errors"][0]["error"]
            raise StopAtError(f"line {record['line']}: {error}", b"".join(kept))
        record["errors"] = []
        kept.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
    return b"".join(kept)


def _extract(args: argparse.Namespace, source: Input, sink: Output, summary: Summary) -> None:
    chunks = LineChunks(source)
    started = time.perf_counter()
    next_line = 1
    done = 0
    formats = None if args.formats in (None, "auto") else args.formats.split(",")
    try:
        with _progress(source.size, args.input) as bar:
            for item in chunks:
                if isinstance(item, UnreadLine):
                    record = unread_jsonl_record(next_line, item.head, item.message())
                    sink.write(_records(record, args.on_error))
                    next_line += 1
                    summary.lines += 1
                    summary.bad_lines += 1
                    summary.size += item.size + 1
                    continue
                chunk, position = item
                start = 0
                while start < len(chunk):
                    output, start, lines, calls, invalid, bad, blank = extract_jsonl_chunk(
                        chunk,
                        start,
                        next_line,
                        field=args.field,
                        provider=args.provider,
                        threads=args.jobs,
                        formats=formats,
                        raw_json=args.raw_json,
                        repair=args.repair,
                        deterministic_ids=args.deterministic_ids,
                    )
                    try:
                        sink.write(_records(output, args.on_error))
                    except StopAtError as stop:
                        sink.write(stop.args[1])
                        raise
                    next_line += lines + blank
                    summary.lines += lines
                    summary.calls += calls
                    summary.invalid_calls += invalid
                    summary.bad_lines += bad
                    summary.blank_lines += blank
                summary.size += len(chunk)
                rate = summary.lines / max(time.perf_counter() - started, 1e-9)
                bar.set_postfix_str(f"{rate:,.0f} lines/s", refresh=False)
                bar.update((position if source.size is not None else summary.size) - done)
                done = position if source.size is not None else summary.size
    finally:
        chunks.close()


def run_extract(args: argparse.Namespace) -> int:
    """Exit status: 0; 1 with ``--strict`` when a line had errors, or with ``--on-error
    raise`` at the first one; 2 when the input or output cannot be used (the records read
    before a failing input are written)."""
    started = time.perf_counter()
    summary = Summary()

    def work(source: Input, sink: Output) -> int:
        try:
            _extract(args, source, sink, summary)
        except StopAtError as stop:
            print(f"toolwire: {stop.args[0]}", file=sys.stderr)
            summary.done = True
            return 1
        summary.done = True
        return 1 if args.strict and summary.errors else 0

    status = run_streams(args.input, args.output, work)
    if summary.done and status != 2:
        print(summary.line(time.perf_counter() - started), file=sys.stderr)
    return status
