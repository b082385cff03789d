"""``extract_batch`` items read by one rule whatever their form, ``field=`` and deterministic ids
as the CLI and ``extract_arrow`` give them, and Ctrl-C honoured between chunks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import toolwire
from support import ROOT
from toolwire import InvalidToolCall, ToolCall

SAMPLE = ROOT / "examples" / "logs_sample.jsonl"
NO_ID = '{"text": "~~~tool_call\\n{\\"name\\": \\"f\\", \\"arguments\\": {}}\\n~~~"}'


def test_a_mapping_and_its_json_text_are_read_alike() -> None:
    items: list[Any] = [{"foo": 1}, '{"foo": 1}', {"text": "hi"}, '{"text": "hi"}']
    for threads in (1, 2):
        odd, odd_text, hi, hi_text = toolwire.extract_batch(items, threads=threads)
        assert odd[0].protocol == odd_text[0].protocol == "body"
        assert odd[0].error == odd_text[0].error
        assert odd[0].error.startswith("unrecognised response shape")
        assert hi == hi_text == []
    with pytest.raises(toolwire.ProviderFormatError, match="item 1: unrecognised"):
        toolwire.extract_batch(['{"text": "hi"}', {"foo": 1}], on_error="raise")
    assert toolwire.extract_batch([{"foo": 1}], on_error="skip") == [[]]


@pytest.mark.parametrize("items", ['{"text": "hi"}', b'{"text": "hi"}', {"text": "hi"}, 7])
def test_items_that_are_not_a_collection_of_responses_are_a_type_error(items: Any) -> None:
    with pytest.raises(TypeError):
        toolwire.extract_batch(items)


def test_field_reads_the_response_at_a_dotted_path() -> None:
    body = {"tool_calls": [{"id": "c1", "name": "f", "arguments": {"a": 1}}]}
    records: list[Any] = [
        json.dumps({"meta": {"body": body}}),
        json.dumps({"meta": {"body": json.dumps(body)}}),  # the body logged as JSON text
        {"meta": {"body": body}},
        json.dumps({"meta": {}}),
    ]
    direct, as_text, mapping, missing = toolwire.extract_batch(records, field="meta.body")
    assert direct == as_text == mapping == [ToolCall("c1", "f", {"a": 1})]
    [error] = missing
    assert isinstance(error, InvalidToolCall) and error.error == 'no field "meta.body" in this line'
    with pytest.raises(ValueError, match="field must be a dotted path of keys"):
        toolwire.extract_batch(records, field="meta..body")


def cli_records(log: Path, *args: str) -> list[dict[str, Any]]:
    result = subprocess.run(
        [sys.executable, "-m", "toolwire", "extract", str(log), *args],
        capture_output=True,
        check=True,
        timeout=300,
    )
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_extract_batch_with_field_equals_the_cli_on_the_same_log(tmp_path: Path) -> None:
    lines = SAMPLE.read_bytes().splitlines()[:600]
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"\n".join([*lines, b"not JSON", b'{"response": 3}']))
    records = cli_records(log, "--field", "response", "--deterministic-ids")
    items = log.read_bytes().splitlines()
    for threads in (1, 2):
        got = toolwire.extract_batch(
            items, field="response", deterministic_ids=True, threads=threads
        )
        assert len(got) == len(records)
        for record, calls in zip(records, got, strict=True):
            assert record["tool_calls"] == [c.to_dict() for c in calls if isinstance(c, ToolCall)]
            errors = [c.to_dict() for c in calls if isinstance(c, InvalidToolCall)]
            assert record["errors"] == errors


def test_deterministic_ids_are_stable_across_runs_threads_and_apis(tmp_path: Path) -> None:
    lines = SAMPLE.read_bytes().splitlines()[:300] + [f'{{"response": {NO_ID}}}'.encode()] * 3
    runs = []
    for threads in (1, 2, 3):
        batch = toolwire.extract_batch(
            lines, field="response", deterministic_ids=True, threads=threads
        )
        runs.append([call.to_dict() for calls in batch for call in calls])
    assert runs[0] == runs[1] == runs[2]
    generated = [c["id"] for c in runs[0] if c.get("id", "").startswith("call_3")]
    assert generated[-3:] == ["call_301_0", "call_302_0", "call_303_0"]
    # Without the option, ids are random and differ from run to run.
    first, second = (toolwire.extract_batch([NO_ID] * 2) for _ in range(2))
    assert first[0][0].id != second[0][0].id
    # The CLI and extract_arrow give the same ids for the same lines.
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"\n".join(lines))
    records = cli_records(log, "--deterministic-ids", "-j", "2")
    cli_ids = [c["id"] for r in records for c in r["tool_calls"]]
    batch_ids = [
        c.id
        for calls in toolwire.extract_batch(lines, field="response", deterministic_ids=True)
        for c in calls
        if isinstance(c, ToolCall)
    ]
    assert cli_ids == batch_ids
    pa = pytest.importorskip("pyarrow")
    column = pa.chunked_array([pa.array(lines[:100]), pa.array(lines[100:])])
    rows = toolwire.extract_arrow(column, field="response", deterministic_ids=True).to_pylist()
    arrow_ids = [c["id"] for row in rows for c in row if c["error"] is None]
    assert arrow_ids == batch_ids


def test_ctrl_c_stops_a_batch_between_chunks() -> None:
    """An interrupt that arrives while the batch runs ends it at the next chunk: the items
    after it are never read (Python checks for signals only when its own code runs)."""
    started = threading.Event()
    read_after_the_interrupt: list[bool] = []

    class Response(Mapping[str, Any]):
        """A mapping that is not a dict: extract_batch reads it through `items()`."""

        def __init__(self, on_read: Callable[[], None]) -> None:
            self._on_read = on_read

        def __getitem__(self, key: str) -> Any:
            return {"text": "hi"}[key]

        def __iter__(self) -> Iterator[str]:
            return iter(["text"])

        def __len__(self) -> int:
            return 1

        def items(self) -> Any:
            self._on_read()
            return super().items()

    def interrupt() -> None:
        started.wait(timeout=30)
        os.kill(os.getpid(), signal.SIGINT)

    lines = [
        b'{"text": "~~~tool_call\\n{\\"name\\": \\"f\\", \\"arguments\\": {}}\\n~~~"}'
    ] * 200_000
    last = Response(lambda: read_after_the_interrupt.append(True))
    items: list[Any] = [Response(started.set), *lines, last]
    sender = threading.Thread(target=interrupt)
    sender.start()
    with pytest.raises(KeyboardInterrupt):
        toolwire.extract_batch(items, threads=1)
    sender.join()
    assert read_after_the_interrupt == []
