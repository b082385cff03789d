"""``toolwire convert`` and ``toolwire prompt``: thin commands over the provider codecs
(``toolwire.convert_message``) and prompt augmentation (``toolwire.augment_system_prompt``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

import toolwire

from ._cli_io import (
    Input,
    InputError,
    LineChunks,
    Output,
    UnreadLine,
    failed,
    read_small_file,
    run_streams,
)

__all__ = ["run_convert", "run_prompt"]

#: The largest tools file ``toolwire prompt`` reads.
MAX_TOOLS_BYTES = 16 << 20


def _api(name: str) -> Callable[..., Any] | None:
    function: Callable[..., Any] | None = getattr(toolwire, name, None)
    if function is None:
        print(
            f"toolwire: this build has no toolwire.{name} (the provider codecs are not part of "
            "it yet)",
            file=sys.stderr,
        )
    return function


def _lines(chunks: LineChunks) -> Iterator[tuple[int, bytes | UnreadLine]]:
    """Each line that is not blank, with its number."""
    number = 0
    for item in chunks:
        if isinstance(item, UnreadLine):
            number += 1
            yield number, item
            continue
        for line in item[0].splitlines():
            number += 1
            if line.strip(b" \t\r"):
                yield number, line


def _converted(convert: Callable[..., Any], line: bytes, args: argparse.Namespace) -> Any:
    try:
        return convert(toolwire.loads(line), args.from_provider, args.to)
    except RecursionError:
        raise ValueError("the message is nested too deeply") from None


def run_convert(args: argparse.Namespace) -> int:
    """One output line per input line that is not blank: the JSON list of converted messages,
    or ``{"line": N, "error": …}`` for a line that is not a message of the source format."""
    convert = _api("convert_message")
    if convert is None:
        return 2
    errors = 0

    def work(source: Input, sink: Output) -> int:
        nonlocal errors
        chunks = LineChunks(source)
        try:
            for number, line in _lines(chunks):
                out: Any
                if isinstance(line, UnreadLine):
                    errors += 1
                    out = {"line": number, "error": line.message()}
                else:
                    try:
                        out = _converted(convert, line, args)
                    except (ValueError, TypeError) as error:
                        errors += 1
                        out = {"line": number, "error": str(error)}
                sink.write(json.dumps(out, ensure_ascii=False).encode() + b"\n")
        finally:
            chunks.close()
        return 1 if errors else 0

    return run_streams(args.input, args.output, work)


def run_prompt(args: argparse.Namespace) -> int:
    """Prints the augmented system prompt for the tools in a JSON file (a list of tool
    definitions, or an object with a ``tools`` list)."""
    augment = _api("augment_system_prompt")
    if augment is None:
        return 2
    try:
        tools = toolwire.loads(read_small_file(args.tools, MAX_TOOLS_BYTES))
    except (InputError, ValueError) as error:
        print(f"toolwire: cannot read tools from {args.tools}: {error}", file=sys.stderr)
        return 2
    if isinstance(tools, dict) and isinstance(tools.get("tools"), list):
        tools = tools["tools"]
    if not isinstance(tools, list):
        print(f"toolwire: {args.tools} must hold a list of tool definitions", file=sys.stderr)
        return 2
    try:
        prompt: str = augment(args.system, tools, compact=args.compact)
    except (ValueError, TypeError, RecursionError) as error:
        return failed(error or "the tools are nested too deeply")
    sink = Output(None)
    try:
        sink.write(prompt.encode() + b"\n")
        sink.finish(keep=True)
    except InputError as error:
        return failed(error)
    except BrokenPipeError:
        return 1
    return 0
