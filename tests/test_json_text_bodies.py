"""A provider body given as JSON text (``model_dump_json()``, ``json.dumps(body)``, a log field
holding the body as a string) is read as that body by every path, never as prose."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import toolwire
from support import cases
from toolwire import InvalidToolCall, ToolCall

PROVIDERS = ("openai", "anthropic", "ollama")


def without_generated_ids(calls: list[Any]) -> list[Any]:
    return [(c.name, c.arguments) if isinstance(c, ToolCall) else c.to_dict() for c in calls]


def bodies() -> list[dict[str, Any]]:
    return [case["wire"][p] for case in cases()[::40] for p in PROVIDERS]


def test_extract_reads_a_body_given_as_json_text_or_bytes_as_that_body() -> None:
    checked = 0
    for body in bodies():
        want = without_generated_ids(toolwire.extract(body, on_error="keep"))
        for text in (json.dumps(body), json.dumps(body, indent=2), json.dumps(body).encode()):
            assert without_generated_ids(toolwire.extract(text, on_error="keep")) == want
        checked += bool(want)
    assert checked > 100


def test_model_text_and_calls_written_as_json_stay_text() -> None:
    call = '{"name": "f", "arguments": {"message": {"role": "user"}}}'
    assert [(c.name, c.arguments) for c in toolwire.extract(call)] == [
        ("f", {"message": {"role": "user"}})
    ]
    # JSON that happens to use a body's key names but not a body's shape is not one.
    for text in ('{"choices": ["yes", "no"]}', '{"message": "Done."}', '{"output": [1, 2]}'):
        assert toolwire.extract(text) == []


def test_a_body_of_a_broken_shape_is_reported_not_dropped() -> None:
    text = json.dumps({"choices": [{"message": {"tool_calls": "oops"}}]})
    [bad] = toolwire.extract(text, on_error="keep")
    assert isinstance(bad, InvalidToolCall) and bad.protocol == "body" and bad.raw == text
    assert bad.error == "expected a list, got a string at choices[0].message.tool_calls"
    assert toolwire.extract(text, on_error="skip") == []
    with pytest.raises(toolwire.ProviderFormatError) as raised:
        toolwire.extract(text)
    assert raised.value.path == "choices[0].message.tool_calls"


def test_the_cli_field_batch_and_arrow_read_a_body_logged_as_a_string(tmp_path: Path) -> None:
    sample = bodies()[:60]
    log = tmp_path / "log.jsonl"
    log.write_text(
        "\n".join(json.dumps({"response": {"body": json.dumps(b)}}) for b in sample) + "\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "toolwire", "extract", str(log), "--field", "response.body"],
        capture_output=True,
        check=True,
        timeout=300,
    )
    records = [json.loads(line) for line in result.stdout.splitlines()]
    want = [toolwire.extract(b, on_error="keep") for b in sample]
    names = [[c.name for c in calls if isinstance(c, ToolCall)] for calls in want]
    assert [[c["name"] for c in r["tool_calls"]] for r in records] == names
    assert sum(map(len, names)) > 50
    lines = log.read_bytes().splitlines()
    batch = toolwire.extract_batch(lines, field="response.body")
    assert [[c.name for c in calls if isinstance(c, ToolCall)] for calls in batch] == names
    pa = pytest.importorskip("pyarrow")
    rows = toolwire.extract_arrow(pa.array(lines), field="response.body").to_pylist()
    assert [[c["name"] for c in row if c["error"] is None] for row in rows] == names


def test_a_given_provider_reads_json_text_as_its_body() -> None:
    body = cases()[0]["wire"]["anthropic"]
    [calls] = toolwire.extract_batch(
        [json.dumps({"body": json.dumps(body)})], field="body", provider="anthropic"
    )
    assert [c.name for c in calls] == [c.name for c in toolwire.extract(body)]
