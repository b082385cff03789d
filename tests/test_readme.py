"""The Python examples of the README and of the docs pages run as written, and the README's
quickstart command works."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = sorted((ROOT / "docs").glob("*.md"))


def python_blocks(text: str) -> list[str]:
    """The ```` ```python ```` blocks (not ```` ```python dask ```` and the like, which
    tests/test_scale_out.py runs on a cluster)."""
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_python_examples_run() -> None:
    blocks = python_blocks(README)
    assert len(blocks) >= 3
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


@pytest.mark.parametrize("page", DOCS, ids=lambda page: page.name)
def test_docs_python_examples_run(page: Path) -> None:
    for block in python_blocks(page.read_text(encoding="utf-8")):
        exec(compile(block, str(page), "exec"), {})


def test_docs_pages_with_examples() -> None:
    with_examples = {p.name for p in DOCS if python_blocks(p.read_text(encoding="utf-8"))}
    assert {"parsing.md", "errors.md", "streaming.md", "codecs.md", "batch.md"} <= with_examples


def test_quickstart_extract_command(tmp_path: Path) -> None:
    quickstart = re.search(r"```bash\n(pip install .*?)\n```", README)
    assert quickstart is not None
    command = quickstart.group(1).split("&& ", 1)[1]
    assert command == "toolwire extract examples/logs_sample.jsonl -o calls.jsonl"
    out = tmp_path / "calls.jsonl"
    sample = ROOT / "examples" / "logs_sample.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", "extract", str(sample), "-o", str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "4014 lines" in done.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(sample.read_text(encoding="utf-8").splitlines())
    first = json.loads(lines[0])
    assert first["line"] == 1 and first["tool_calls"][0]["name"] == "integrate"
