"""The README's Python examples run as written, and its quickstart command works."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from support import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)
    assert len(blocks) >= 3
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


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
