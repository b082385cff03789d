"""`toolwire extract` end to end: one record per line, bad lines as error records, the same
output on any number of threads, compressed input, clear failures, progress only on a tty."""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import pytest
import toolwire
from support import ROOT
from tqdm import tqdm

SAMPLE = ROOT / "examples" / "logs_sample.jsonl"
BAD_LINES = [
    b"this is not JSON",
    b'{"request_id": "r-x", "response": {"odd": 1}}',
    b"\xff\xfe",
]
#: Whitespace-only lines: skipped, counted in the summary, still counted in line numbers.
BLANK_LINES = [b"", b" \t\r"]


def run(*args: str | Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "toolwire", *map(str, args)],
        input=stdin,
        capture_output=True,
        timeout=300,
        check=False,
    )


def records(output: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines()]


def masked(output: bytes) -> list[dict[str, Any]]:
    """Records with generated call ids masked: they are fresh random ids on every run."""
    out = records(output)
    for record in out:
        for call in record["tool_calls"]:
            if len(call["id"]) == 17 and call["id"].startswith("call_"):
                call["id"] = "generated"
    return out


@pytest.fixture(scope="module")
def log_with_bad_lines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample log with unreadable lines spread through it, and no final newline."""
    lines = SAMPLE.read_bytes().splitlines()
    for k, bad in enumerate(BAD_LINES):
        lines.insert(500 * (k + 1), bad)
    for k, blank in enumerate(BLANK_LINES):
        lines.insert(3000 + 7 * k, blank)
    path = tmp_path_factory.mktemp("logs") / "log.jsonl"
    path.write_bytes(b"\n".join(lines))
    return path


@pytest.fixture(scope="module")
def jobs_1(log_with_bad_lines: Path) -> subprocess.CompletedProcess[bytes]:
    return run("extract", log_with_bad_lines, "--jobs", "1")


def test_one_record_per_input_line(log_with_bad_lines: Path, jobs_1: Any) -> None:
    assert jobs_1.returncode == 0, jobs_1.stderr
    out = records(jobs_1.stdout)
    lines = log_with_bad_lines.read_bytes().splitlines()
    assert len(lines) == 4014 + len(BAD_LINES) + len(BLANK_LINES)
    assert len(out) == 4014 + len(BAD_LINES)
    blank = [n for n, line in enumerate(lines, start=1) if not line.strip()]
    assert [r["line"] for r in out] == [n for n in range(1, len(lines) + 1) if n not in blank]
    calls = sum(len(r["tool_calls"]) for r in out)
    invalid = sum(len(r["errors"]) for r in out)
    summary = jobs_1.stderr.decode()
    assert f"{len(out)} lines, {calls} calls, " in summary
    assert f"{invalid - len(BAD_LINES)} invalid calls, {len(BAD_LINES)} bad lines, " in summary
    assert f"{len(BLANK_LINES)} blank lines skipped" in summary
    assert "MB/s" in summary


def test_records_match_extract(jobs_1: Any) -> None:
    out = records(jobs_1.stdout)
    sample = [json.loads(line) for line in SAMPLE.read_bytes().splitlines()]
    by_request = {r["id"]: r for r in out if "id" in r}
    for line in sample[:400]:
        record = by_request[line["request_id"]]
        expected = toolwire.extract(line["response"], on_error="keep")
        good = [c for c in expected if isinstance(c, toolwire.ToolCall)]
        assert [(c["name"], c["arguments"]) for c in record["tool_calls"]] == [
            (c.name, c.arguments) for c in good
        ]
        assert [e["error"] for e in record["errors"]] == [
            c.error for c in expected if isinstance(c, toolwire.InvalidToolCall)
        ]


def test_bad_lines_are_error_records_with_their_line_number(jobs_1: Any) -> None:
    out = records(jobs_1.stdout)
    bad = [r for r in out if any(e["protocol"] == "body" for e in r["errors"])]
    assert [r["line"] for r in bad] == [500 * (k + 1) + 1 for k in range(len(BAD_LINES))]
    messages = [r["errors"][0]["error"] for r in bad]
    assert messages[0].startswith("invalid JSON (offset 0)")
    assert "unrecognised response shape" in messages[1] and bad[1]["id"] == "r-x"
    assert messages[2].startswith("not valid UTF-8")
    assert all(r["tool_calls"] == [] for r in bad)
    assert bad[0]["errors"][0]["raw"] == "this is not JSON"


def test_malformed_calls_of_the_sample_are_error_records(jobs_1: Any) -> None:
    lines = (ROOT / "tests/data/logs_expected.jsonl").read_text(encoding="utf-8").splitlines()
    expected = [json.loads(line) for line in lines]
    malformed = {e["request_id"] for e in expected if e["kind"] == "malformed"}
    out = {r["id"]: r for r in records(jobs_1.stdout) if "id" in r}
    assert len(malformed) > 50
    for request_id in malformed:
        assert out[request_id]["errors"], request_id


def test_jobs_1_and_jobs_2_write_the_same_records(log_with_bad_lines: Path, jobs_1: Any) -> None:
    jobs_2 = run("extract", log_with_bad_lines, "--jobs", "2")
    assert jobs_2.returncode == 0
    assert masked(jobs_2.stdout) == masked(jobs_1.stdout)


def test_gzip_input_and_output_file(log_with_bad_lines: Path, jobs_1: Any, tmp_path: Path) -> None:
    packed = tmp_path / "log.jsonl.gz"
    packed.write_bytes(gzip.compress(log_with_bad_lines.read_bytes()))
    out = tmp_path / "calls.jsonl"
    result = run("extract", packed, "-o", out)
    assert result.returncode == 0, result.stderr
    assert masked(out.read_bytes()) == masked(jobs_1.stdout)


def test_zstd_input(log_with_bad_lines: Path, jobs_1: Any, tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard", reason="the zstd extra is not installed")
    packed = tmp_path / "log.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(log_with_bad_lines.read_bytes()))
    result = run("extract", packed)
    assert result.returncode == 0, result.stderr
    assert masked(result.stdout) == masked(jobs_1.stdout)


def test_stdin_and_stdout_field_and_provider() -> None:
    lines = SAMPLE.read_bytes().splitlines()[:50]
    wrapped = b"\n".join(
        b'{"meta": {"body": %s}}' % json.dumps(json.loads(x)["response"]).encode() for x in lines
    )
    by_field = run("extract", "-", "--field", "meta.body", "-o", "-", stdin=wrapped)
    direct = run("extract", "-", stdin=b"\n".join(lines))
    assert by_field.returncode == direct.returncode == 0
    without_ids = [{k: v for k, v in r.items() if k != "id"} for r in masked(direct.stdout)]
    assert masked(by_field.stdout) == without_ids
    missing = records(run("extract", "-", "--field", "meta.nope", stdin=wrapped).stdout)
    assert missing[0]["errors"][0]["error"] == 'no field "meta.nope" in this line'
    anthropic_only = records(
        run("extract", "-", "--provider", "anthropic", stdin=b"\n".join(lines)).stdout
    )
    providers = [json.loads(x)["provider"] for x in lines]
    assert {"anthropic", "openai", "text"} <= set(providers)
    for record, provider in zip(anthropic_only, providers, strict=True):
        rejected = any(e["protocol"] == "body" for e in record["errors"])
        assert rejected == (provider != "anthropic")


def test_strict_exits_1_on_errors(log_with_bad_lines: Path) -> None:
    assert run("extract", log_with_bad_lines, "--strict").returncode == 1
    clean = b'{"text": "hello"}\n'
    assert run("extract", "-", "--strict", stdin=clean).returncode == 0


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.jsonl", None, "cannot read"),
        ("a_directory", "dir", "is a directory"),
        ("image.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "binary file"),
        ("broken.jsonl.gz", b"\x1f\x8b\x08\0garbage", "cannot read"),
    ],
)
def test_unusable_inputs_exit_2_with_a_message(
    tmp_path: Path, name: str, content: bytes | str | None, message: str
) -> None:
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    result = run("extract", path)
    assert result.returncode == 2
    assert message in result.stderr.decode()
    assert b"Traceback" not in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_unreadable_file_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "secret.jsonl"
    path.write_text("{}\n")
    path.chmod(0)
    result = run("extract", path)
    assert result.returncode == 2 and b"cannot read" in result.stderr


def test_no_progress_bar_when_stderr_is_not_a_terminal() -> None:
    result = run("extract", SAMPLE, "-o", os.devnull)
    stderr = result.stderr.decode()
    assert result.returncode == 0
    assert stderr.count("\n") == 1 and stderr.startswith("toolwire: 4014 lines")
    assert "\r" not in stderr and "lines/s" not in stderr


def test_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    big.write_bytes(SAMPLE.read_bytes() * 16)
    leader, follower = pty.openpty()
    # A terminal of 100 columns (a bare pty has no size, and then the bar has no room).
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "toolwire", "extract", str(big), "-o", os.devnull, "-j", "1"],
            stderr=follower,
            stdout=subprocess.DEVNULL,
        )
        os.close(follower)
        seen = b""
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            seen += data
        assert process.wait(timeout=300) == 0
    finally:
        os.close(leader)
    text = seen.decode(errors="replace")
    assert "lines/s" in text and "B/s" in text and "%" in text
    assert "toolwire: 64224 lines" in text
    # The bar counts decimal megabytes, as the summary does.
    size = big.stat().st_size
    assert f"/{tqdm.format_sizeof(size, divisor=1000)} " in text
    assert f"{size / 1e6:.1f} MB in " in text


def test_convert_and_prompt(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps([{"name": "get_weather", "description": "Weather.", "parameters": {}}])
    )
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    }
    converted = run("convert", "-", "--to", "anthropic", stdin=json.dumps(message).encode())
    prompt = run("prompt", tools, "--compact")
    if not hasattr(toolwire, "convert_message"):
        assert converted.returncode == prompt.returncode == 2
        assert b"not part of it yet" in converted.stderr
        return
    assert converted.returncode == 0, converted.stderr
    [out] = records(converted.stdout)
    assert out[0]["content"][0]["type"] == "tool_use"
    assert prompt.returncode == 0 and b"get_weather" in prompt.stdout
