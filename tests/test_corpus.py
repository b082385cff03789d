"""Every corpus case gives its calls through `extract`, whatever the wire."""

from __future__ import annotations

from typing import Any

import pytest
import toolwire
from support import calls_of, cases, load_jsonl

NATIVE = ("openai", "anthropic", "ollama")
TEXT = ("text_tagged", "raw_json")


def got(calls: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    assert all(isinstance(c, toolwire.ToolCall) for c in calls)
    return [(c.name, c.arguments) for c in calls]


@pytest.mark.parametrize("wire", NATIVE + TEXT)
def test_every_case_gives_its_calls(wire: str) -> None:
    for case in cases():
        body = case["wire"][wire]
        assert got(toolwire.extract(body)) == calls_of(case), case["id"]


def test_wire_ids_are_kept() -> None:
    for case in cases():
        openai = case["wire"]["openai"]["choices"][0]["message"].get("tool_calls") or []
        ids = [c["id"] for c in openai]
        assert [c.id for c in toolwire.extract(case["wire"]["openai"])] == ids
        anthropic = [
            b["id"] for b in case["wire"]["anthropic"]["content"] if b["type"] == "tool_use"
        ]
        assert [c.id for c in toolwire.extract(case["wire"]["anthropic"])] == anthropic
        text_ids = [c.id for c in toolwire.extract(case["wire"]["text_tagged"])]
        if "id" in case["variants"]["text_tagged"].split("+"):
            assert text_ids == ids, case["id"]
        for call in toolwire.extract(case["wire"]["ollama"]):
            assert call.id.startswith("call_") and len(call.id) == 17


def test_raw_json_prose_needs_anywhere_mode() -> None:
    for case in cases():
        text = case["wire"].get("raw_json_prose")
        if text is None:
            continue
        assert toolwire.extract(text) == [], case["id"]
        assert got(toolwire.extract(text, raw_json="anywhere")) == calls_of(case), case["id"]


def test_sample_log_lines_give_their_expected_calls() -> None:
    by_id = {c["id"]: c for c in cases()}
    log = load_jsonl("logs_sample.jsonl")
    expected = load_jsonl("logs_expected.jsonl")
    assert len(log) == len(expected)
    checked = 0
    for line, want in zip(log, expected, strict=True):
        assert line["request_id"] == want["request_id"]
        mode = "anywhere" if want.get("note") else "fenced"
        result = toolwire.extract(line["response"], on_error="keep", raw_json=mode)
        invalid = [c for c in result if isinstance(c, toolwire.InvalidToolCall)]
        if want["kind"] == "calls":
            assert not invalid, want
            assert got(result) == calls_of(by_id[want["case_id"]]), want
        elif want["kind"] == "no_calls":
            assert result == [], want
        else:
            assert invalid, want
            with pytest.raises(toolwire.ToolCallParseError):
                toolwire.extract(line["response"], raw_json=mode)
        checked += 1
    assert checked == len(log)
