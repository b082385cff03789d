"""``toolwire convert`` and ``toolwire prompt``: thin commands over the provider codecs
(``toolwire.convert_message``) and prompt augmentation (``toolwire.augment_system_prompt``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import toolwire

from ._cli_io import InputError, open_input, open_output

__all__ = ["run_convert", "run_prompt"]


def _api(name: str) -> Callable[..., Any] | None:
    function: Callable[..., Any] | None = getattr(toolwire, name, None)
    if function is None:
        print(
            f"toolwire: this build has no toolwire.{name} (the provider codecs are not part of "
            "it yet)",
            file=sys.stderr,
        )
    return function


def run_convert(args: argparse.Namespace) -> int:
    """One output line per input line: the JSON list of converted messages, or
    ``{"line": N, "error": …}`` for a line that is not a message of the source format."""
    convert = _api("convert_message")
    if convert is None:
        return 2
    errors = 0
    try:
        reader, raw, _ = open_input(args.input)
        sink = open_output(args.output)
    except InputError as error:
        print(f"toolwire: {error}", file=sys.stderr)
        return 2
    try:
        for number, line in enumerate(reader, start=1):
            try:
                out: Any = convert(toolwire.loads(line), args.from_provider, args.to)
            except (ValueError, TypeError) as error:
                errors += 1
                out = {"line": number, "error": str(error)}
            sink.write(json.dumps(out, ensure_ascii=False).encode() + b"\n")
    except OSError as error:
        print(f"toolwire: cannot read {args.input}: {error}", file=sys.stderr)
        return 2
    finally:
        if args.output not in (None, "-"):
            sink.close()
        if reader is not sys.stdin.buffer:
            raw.close()
    return 1 if errors else 0


def run_prompt(args: argparse.Namespace) -> int:
    """Prints the augmented system prompt for the tools in a JSON file (a list of tool
    definitions, or an object with a ``tools`` list)."""
    augment = _api("augment_system_prompt")
    if augment is None:
        return 2
    try:
        tools = json.loads(Path(args.tools).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        print(f"toolwire: cannot read tools from {args.tools}: {error}", file=sys.stderr)
        return 2
    if isinstance(tools, dict) and isinstance(tools.get("tools"), list):
        tools = tools["tools"]
    if not isinstance(tools, list):
        print(f"toolwire: {args.tools} must hold a list of tool definitions", file=sys.stderr)
        return 2
    try:
        prompt: str = augment(args.system, tools, compact=args.compact)
    except ValueError as error:
        print(f"toolwire: {error}", file=sys.stderr)
        return 2
    print(prompt)
    return 0
