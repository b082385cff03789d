"""The ``toolwire`` command line (``python -m toolwire``).

``toolwire extract LOG.jsonl`` writes one JSON record per input line,
``{"line", "id"?, "tool_calls", "errors"}``; ``toolwire convert`` translates messages between
providers; ``toolwire prompt`` prints the system prompt that teaches a model the tools.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from ._cli_extract import run_extract
from ._cli_messages import run_convert, run_prompt
from ._toolwire import FORMAT_NAMES, __version__

__all__ = ["main"]

PROVIDERS = ("auto", "openai", "openai_responses", "anthropic", "ollama", "gemini")

#: The most threads ``--jobs`` takes (as for ``extract_batch``).
MAX_JOBS = 1024


def _jobs(text: str) -> int:
    """``--jobs``: a whole number of threads."""
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a whole number of threads, not {text!r}"
        ) from None
    if not 1 <= jobs <= MAX_JOBS:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_JOBS}, not {jobs}")
    return jobs


def _formats(text: str) -> str:
    """``--formats``: ``auto`` or names from ``FORMAT_NAMES``, comma-separated."""
    if text != "auto":
        unknown = [name for name in text.split(",") if name not in FORMAT_NAMES]
        if unknown:
            choices = ", ".join(repr(name) for name in FORMAT_NAMES)
            raise argparse.ArgumentTypeError(f"format must be one of {choices}, not {unknown[0]!r}")
    return text


class _Parser(argparse.ArgumentParser):
    """Usage mistakes as one line on stderr (exit status 2), pointing at ``--help``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="toolwire",
        description="Extract the tool calls of LLM response logs, convert messages between "
        "providers, and print the system prompt that teaches a model its tools.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    extract = commands.add_parser(
        "extract",
        help="extract the tool calls of a JSONL log (any size, all cores)",
        description="Extract the tool calls of every line of a JSONL log of provider "
        "responses. Every input line gives exactly one output line; a bad line gives a "
        "record whose errors say why. .gz and .zst inputs are decompressed.",
    )
    extract.add_argument("input", help="a JSONL file (.jsonl, .jsonl.gz, .jsonl.zst), or -")
    extract.add_argument("-o", "--output", help="where to write JSONL (default: stdout)")
    extract.add_argument(
        "--field",
        help="dotted path to the response inside each line (default: the line's 'response' "
        "object if it has one, else the line itself)",
    )
    extract.add_argument(
        "--provider",
        choices=PROVIDERS,
        default="auto",
        help="the body shape every response must have (default: any)",
    )
    extract.add_argument("-j", "--jobs", type=_jobs, help="threads to use (default: all cores)")
    extract.add_argument(
        "--formats",
        type=_formats,
        default="auto",
        help="the text formats to read, comma-separated (default: auto, all of them): "
        + ", ".join(FORMAT_NAMES),
    )
    extract.add_argument(
        "--on-error",
        choices=("keep", "skip", "raise"),
        default="keep",
        help="calls and lines that cannot be read: listed in each record's errors (keep, the "
        "default), left out (skip, still counted in the summary), or the end of the run at "
        "the first one (raise: exit status 1)",
    )
    extract.add_argument(
        "--deterministic-ids",
        action="store_true",
        help="give calls without an id call_LINE_INDEX instead of a random id, so that two "
        "runs over the same log can be diffed",
    )
    extract.add_argument(
        "--raw-json",
        choices=("whole", "fenced", "anywhere"),
        default="fenced",
        help="where bare JSON calls are looked for in text (default: fenced)",
    )
    extract.add_argument("--repair", action="store_true", help="repair common JSON mistakes")
    extract.add_argument(
        "--strict", action="store_true", help="exit 1 if any call or line had an error"
    )
    extract.set_defaults(run=run_extract)

    convert = commands.add_parser(
        "convert", help="convert JSONL messages between providers' formats"
    )
    convert.add_argument("input", help="a JSONL file of messages, or - for stdin")
    convert.add_argument("--to", required=True, help="the provider to convert to")
    convert.add_argument(
        "--from", dest="from_provider", default="openai", help="the provider the messages are from"
    )
    convert.add_argument("-o", "--output", help="where to write JSONL (default: stdout)")
    convert.set_defaults(run=run_convert)

    prompt = commands.add_parser(
        "prompt", help="print the system prompt that teaches a model the tools"
    )
    prompt.add_argument("tools", help="a JSON file: a list of tool definitions (any provider's)")
    prompt.add_argument("--compact", action="store_true", help="one line per tool")
    prompt.add_argument("--system", help="an existing system prompt to extend")
    prompt.set_defaults(run=run_prompt)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except KeyboardInterrupt:
        print("toolwire: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
