"""The ``toolwire`` command line (``python -m toolwire``).

``toolwire extract LOG.jsonl`` writes one JSON record per input line,
``{"line", "id"?, "tool_calls", "errors"}``; ``toolwire convert`` translates messages between
providers; ``toolwire prompt`` prints the system prompt that teaches a model the tools.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ._cli_extract import run_extract
from ._cli_messages import run_convert, run_prompt
from ._toolwire import __version__

__all__ = ["main"]

PROVIDERS = ("auto", "openai", "openai_responses", "anthropic", "ollama", "gemini")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
    extract.add_argument("-j", "--jobs", type=int, help="threads to use (default: all cores)")
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
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
