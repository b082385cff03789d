"""The ``toolwire`` command line (``python -m toolwire``)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator, Sequence
from typing import IO, Any

from . import InvalidToolCall, ToolwireError, extract, loads

__all__ = ["main"]


def _body(record: Any, field: str | None) -> Any:
    """The response body inside one log record: at ``field`` (a dotted path), else the
    record's ``response`` if it has one, else the record itself."""
    if field:
        for key in field.split("."):
            if not isinstance(record, dict) or key not in record:
                raise ToolwireError(f"no field {field!r} in this line")
            record = record[key]
        return record
    if isinstance(record, dict) and isinstance(record.get("response"), dict):
        return record["response"]
    return record


def _extract_line(number: int, line: bytes, field: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"line": number}
    try:
        record = loads(line)
        if isinstance(record, dict) and "request_id" in record:
            out["id"] = record["request_id"]
        calls = extract(_body(record, field), on_error="keep")
    except ToolwireError as error:
        out.update(tool_calls=[], errors=[{"error": str(error)}])
        out["bad_line"] = True
        return out
    out["tool_calls"] = [c.to_dict() for c in calls if not isinstance(c, InvalidToolCall)]
    out["errors"] = [c.to_dict() for c in calls if isinstance(c, InvalidToolCall)]
    return out


def _lines(stream: IO[bytes]) -> Iterator[bytes]:
    # Every line gets an output record, blank ones included: no line is skipped silently.
    yield from stream


def _cmd_extract(args: argparse.Namespace) -> int:
    source: IO[bytes]
    try:
        source = sys.stdin.buffer if args.input == "-" else open(args.input, "rb")
    except OSError as error:
        print(f"toolwire: cannot read {args.input}: {error.strerror}", file=sys.stderr)
        return 2
    sink = sys.stdout if args.output in (None, "-") else open(args.output, "w", encoding="utf-8")
    started = time.perf_counter()
    lines = calls = errors = bad = size = 0
    try:
        for number, line in enumerate(_lines(source), start=1):
            size += len(line)
            record = _extract_line(number, line, args.field)
            lines += 1
            calls += len(record["tool_calls"])
            errors += len(record["errors"])
            bad += bool(record.pop("bad_line", False))
            sink.write(json.dumps(record, ensure_ascii=False) + "\n")
    except OSError as error:
        print(f"toolwire: cannot read {args.input}: {error.strerror}", file=sys.stderr)
        return 2
    finally:
        if source is not sys.stdin.buffer:
            source.close()
        if sink is not sys.stdout:
            sink.close()
    seconds = max(time.perf_counter() - started, 1e-9)
    print(
        f"toolwire: {lines} lines, {calls} calls, {errors} invalid calls, {bad} bad lines, "
        f"{size / seconds / 1e6:.1f} MB/s",
        file=sys.stderr,
    )
    return 1 if args.strict and (errors or bad) else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="toolwire", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    extract_cmd = commands.add_parser("extract", help="extract the tool calls of a JSONL log")
    extract_cmd.add_argument("input", help="a JSONL file of responses, or - for stdin")
    extract_cmd.add_argument("-o", "--output", help="where to write JSONL (default: stdout)")
    extract_cmd.add_argument("--field", help="dotted path to the body inside each line")
    extract_cmd.add_argument("--strict", action="store_true", help="exit 1 if any line had errors")
    extract_cmd.set_defaults(run=_cmd_extract)
    args = parser.parse_args(argv)
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
