"""Seed corpora for the fuzz targets (rust/fuzz) from the test data's text and body renderings.

Each target's input starts with the control bytes its doc comment describes; a seed gets the
ones that make sense for its rendering (the format byte for `formats`).

    python scripts/fuzz_seeds.py [CASES]   # writes rust/fuzz/corpus/<target>/seed_*
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The format names in registry order (`Format::ALL`): the `formats` target picks by index. Read
# from the registry itself, so the script needs no build.
FORMATS = re.findall(
    r'^\s+[A-Z]\w* "(\w+)" \[', (ROOT / "rust/core/src/registry.rs").read_text(), re.MULTILINE
)
# Hand-written edge cases: markers, fences, think spans, escapes, numbers.
EXTRA = [
    '~~~tool_call\n{"name": "f", "arguments": {"a": 1}}\n~~~\n',
    '~~~tool_call\n[{"name": "f"}, {"name": "g", "arguments": "{\\"x\\": [1, 2.5e3]}"}]\n~~~',
    '<think>~~~tool_call\n{"name": "f"}\n~~~</think>after',
    '```\n~~~tool_call\n{"name": "f"}\n~~~\n```\n```json\n{"name": "g", "arguments": {}}\n```',
    '{"tool_calls": [{"id": "x", "function": {"name": "f", "arguments": "{}"}}]}',
    "[f(a=1, b='x', c=True, d=None, e=[1, {'k': 2}])]",
    "<tool_call><function=f><parameter=s>03106</parameter><parameter=i>7</parameter></function></tool_call>",
    "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>[1]</arg_value>\n</tool_call>",
    '[TOOL_CALLS]f[CALL_ID]abc123XYZ[ARGS]{"a": 1}',
    '{"a": "\\ud800\\udc00\\u00e9\\n", "b": -0, "c": 1e400, "d": 123456789012345678901234567890}',
]


def renderings(cases_path: Path, limit: int) -> list[tuple[str | None, str]]:
    """(format name or None, text) for each wire rendering of the first `limit` cases."""
    found: list[tuple[str | None, str]] = []
    with cases_path.open(encoding="utf-8") as cases:
        for n, line in enumerate(cases):
            if n >= limit:
                break
            for key, value in json.loads(line).get("wire", {}).items():
                text = value if isinstance(value, str) else json.dumps(value)
                found.append((key if key in FORMATS else None, text))
    return found


def write(target: str, seeds: list[bytes]) -> None:
    folder = ROOT / "rust" / "fuzz" / "corpus" / target
    folder.mkdir(parents=True, exist_ok=True)
    for seed in seeds:
        name = "seed_" + hashlib.sha1(seed).hexdigest()[:16]
        (folder / name).write_bytes(seed)


def response_of(line: bytes) -> object:
    """A logged line's response, or the line itself when it is not a JSON record."""
    try:
        record = json.loads(line)
    except ValueError:
        return line.decode(errors="replace")
    return record.get("response", record) if isinstance(record, dict) else record


def main() -> None:
    cases = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "data" / "cases.jsonl"
    found = renderings(cases, 60)
    texts = [t.encode() for _, t in found] + [t.encode() for t in EXTRA]
    write("text_tagged", texts)
    write("json_differential", texts)
    # Control bytes cycling through the modes, with and without repair.
    write("raw_json", [bytes([(k % 6) * 0x30]) + t for k, t in enumerate(texts)])
    write("extract", [bytes([(k % 6) * 0x30]) + t for k, t in enumerate(texts)])
    write("stream", [bytes([k % 3, k % 251]) + t for k, t in enumerate(texts)])
    # Whole logged lines too: the sample log's, as records (control bit 4) and as bodies.
    log = (ROOT / "examples" / "logs_sample.jsonl").read_bytes().splitlines()[:300]
    bodies = [json.dumps(response).encode() for response in map(response_of, log[::2])]
    # Every protocol's text as a `{"text": …}` body, so the skim meets every format's markup.
    wrapped = [json.dumps({"text": t.decode(errors="replace")}).encode() for t in texts]
    write(
        "batch_line",
        [bytes([(k % 6) * 0x30]) + t for k, t in enumerate(texts + bodies + wrapped)]
        + [bytes([0x04]) + line for line in log[1::2]],
    )
    named = [bytes([FORMATS.index(f)]) + t.encode() for f, t in found if f is not None]
    write("formats", named + [bytes([0x0F]) + t for t in texts])


if __name__ == "__main__":
    main()
