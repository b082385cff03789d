"""The CLI at its edges: every unusable input or output is one line on stderr and exit status
2, no output file is damaged, compressed input is known by its bytes and read to its last
recoverable line, Ctrl-C is honoured, and ``--formats``, ``--on-error`` and
``--deterministic-ids`` do what they say."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support import ROOT

SAMPLE = ROOT / "examples" / "logs_sample.jsonl"
TAGGED = b'{"text": "~~~tool_call\\n{\\"name\\": \\"f\\", \\"arguments\\": {}}\\n~~~"}'


def run(*args: str | Path, stdin: bytes | None = None, timeout: float = 300) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "toolwire", *map(str, args)],
        input=stdin,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def records(output: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines()]


def one_line_exit_2(result: Any, message: str) -> None:
    stderr = result.stderr.decode()
    assert result.returncode == 2, stderr
    assert stderr.count("\n") == 1 and message in stderr, stderr
    assert "Traceback" not in stderr


def test_an_unreadable_input_leaves_an_existing_output_as_it_was(tmp_path: Path) -> None:
    out = tmp_path / "calls.jsonl"
    out.write_text("precious\n")
    for command in ("extract", "convert"):
        extra = ["--to", "anthropic"] if command == "convert" else []
        result = run(command, tmp_path / "misspelled.jsonl", "-o", out, *extra)
        one_line_exit_2(result, "cannot read")
        assert out.read_text() == "precious\n"
    assert [p.name for p in tmp_path.iterdir()] == ["calls.jsonl"]  # no temporary file left


def test_an_output_is_replaced_only_when_the_run_ends(tmp_path: Path) -> None:
    out = tmp_path / "calls.jsonl"
    out.write_text("old\n")
    out.chmod(0o640)
    assert run("extract", SAMPLE, "-o", out).returncode == 0
    assert len(out.read_bytes().splitlines()) == 4014
    assert out.stat().st_mode & 0o777 == 0o640


def test_a_full_disk_is_one_line(tmp_path: Path) -> None:
    one_line_exit_2(run("extract", SAMPLE, "-o", "/dev/full"), "No space left on device")
    with Path("/dev/full").open("wb") as full:
        result = subprocess.run(
            [sys.executable, "-m", "toolwire", "extract", str(SAMPLE)],
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=300,
            check=False,
        )
    one_line_exit_2(result, "cannot write standard output: No space left on device")


def test_a_truncated_gzip_file_gives_every_line_it_holds_then_the_error(tmp_path: Path) -> None:
    data = SAMPLE.read_bytes() * 4
    packed = gzip.compress(data)
    truncated = tmp_path / "log.jsonl.gz"
    truncated.write_bytes(packed[: len(packed) * 9 // 10])
    out = tmp_path / "calls.jsonl"
    result = run("extract", truncated, "-o", out)
    one_line_exit_2(result, "the gzip data ends early (truncated)")
    import zlib

    recoverable = zlib.decompressobj(wbits=31).decompress(packed[: len(packed) * 9 // 10])
    lines = recoverable.count(b"\n") + 1  # the last, cut line is a bad line
    assert len(out.read_bytes().splitlines()) == lines


def test_compressed_input_is_known_by_its_first_bytes(tmp_path: Path) -> None:
    data = SAMPLE.read_bytes()
    unnamed = tmp_path / "log"
    unnamed.write_bytes(gzip.compress(data))
    direct = run("extract", SAMPLE, "--deterministic-ids")
    for source, stdin in ((unnamed, None), ("-", unnamed.read_bytes())):
        result = run("extract", source, "--deterministic-ids", stdin=stdin)
        assert result.returncode == 0 and result.stdout == direct.stdout
    zstandard = pytest.importorskip("zstandard")
    packed = tmp_path / "log.bin"
    packed.write_bytes(zstandard.ZstdCompressor().compress(data)[:-40])
    one_line_exit_2(run("extract", packed), "the zstd data ends early (truncated)")
    archive = tmp_path / "log.jsonl.bz2"
    archive.write_bytes(b"BZh91AY&SY" + bytes(64))
    one_line_exit_2(run("extract", archive), "is bzip2 data")


def test_a_stray_nul_byte_makes_a_bad_line_not_a_binary_file(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(TAGGED + b"\n" + b'{"te\0xt": 1}\n' + TAGGED + b"\n")
    result = run("extract", log)
    assert result.returncode == 0
    first, bad, last = records(result.stdout)
    assert first["tool_calls"] and last["tool_calls"]
    assert bad["errors"][0]["error"] == "invalid JSON (offset 4): control character in string"
    utf16 = tmp_path / "utf16.jsonl"
    utf16.write_bytes((TAGGED.decode() + "\n").encode("utf-16-le") * 10)
    one_line_exit_2(run("extract", utf16), "looks like a binary file")


@pytest.mark.parametrize("jobs", ["1e23", "100000000000000000000000", "0", "-3", "two"])
def test_bad_jobs_are_one_line(jobs: str) -> None:
    one_line_exit_2(run("extract", SAMPLE, "-j", jobs), "argument -j/--jobs: must be")


def test_convert_and_prompt_on_endless_or_deep_input_are_one_line(tmp_path: Path) -> None:
    one_line_exit_2(run("convert", "/dev/zero", "--to", "anthropic"), "binary file")
    one_line_exit_2(run("prompt", "/dev/zero"), "larger than 16 MiB")
    nested = tmp_path / "tools.json"
    nested.write_text('[{"name": "f", "parameters": ' + '{"a": ' * 3000 + "1" + "}" * 3001 + "]")
    one_line_exit_2(run("prompt", nested), "nesting deeper than 256 levels")


def test_ctrl_c_on_stdin_is_honoured_at_once() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "toolwire", "extract", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None
    process.stdin.write(TAGGED + b"\n")
    process.stdin.flush()
    time.sleep(1.0)  # the reader is now waiting for more input
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130
    assert stderr.decode().strip() == "toolwire: interrupted"


def test_formats_on_error_and_the_summary_unit(tmp_path: Path) -> None:
    hermes = b'{"text": "<tool_call>{\\"name\\": \\"h\\", \\"arguments\\": {}}</tool_call>"}'
    broken = b'{"text": "~~~tool_call\\n{\\"name\\": \\"b\\" \\"arguments\\": {}}\\n~~~"}'
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"\n".join([TAGGED, hermes, broken, b"not JSON", TAGGED]) + b"\n")
    every = records(run("extract", log).stdout)
    assert [len(r["tool_calls"]) for r in every] == [1, 1, 0, 0, 1]
    tagged_only = records(run("extract", log, "--formats", "text_tagged,raw_json").stdout)
    assert [len(r["tool_calls"]) for r in tagged_only] == [1, 0, 0, 0, 1]
    one_line_exit_2(run("extract", log, "--formats", "hermes,nope"), "format must be one of")

    skipped = run("extract", log, "--on-error", "skip")
    assert skipped.returncode == 0
    assert [r["errors"] for r in records(skipped.stdout)] == [[]] * 5
    assert "1 invalid calls, 1 bad lines" in skipped.stderr.decode()
    raised = run("extract", log, "--on-error", "raise")
    assert raised.returncode == 1
    assert [r["line"] for r in records(raised.stdout)] == [1, 2]
    stderr = raised.stderr.decode()
    assert stderr.startswith("toolwire: line 3: invalid JSON in ~~~tool_call block 0")
    assert stderr.count("\n") == 2  # the error, then the summary
    assert " MB in " in stderr and "MiB" not in stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_an_unwritable_output_is_one_line(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    one_line_exit_2(run("extract", SAMPLE, "-o", locked / "out.jsonl"), "cannot write")
