"""Argument decoding (JSON text -> Python objects): `toolwire.loads` vs `orjson.loads` and
`json.loads` on every argument string of the corpus. Targets: <= 1.2x orjson's time, >= 2x
faster than json. Results are checked equal to `json.loads`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson
import pytest
import toolwire
from bench_data import corpus_cases

DECODERS: dict[str, Callable[[str], Any]] = {
    "toolwire": toolwire.loads,
    "orjson": orjson.loads,
    "json": json.loads,
}


def argument_strings() -> list[str]:
    strings = []
    for case in corpus_cases():
        message = case["wire"]["openai"]["choices"][0]["message"]
        strings.extend(call["function"]["arguments"] for call in message.get("tool_calls") or [])
    return strings


@pytest.mark.parametrize("decoder", list(DECODERS))
def test_decode_arguments(benchmark: Any, decoder: str) -> None:
    strings = argument_strings()
    expected = [json.loads(s) for s in strings]
    decode = DECODERS[decoder]
    benchmark.group = f"decode corpus arguments ({len(strings)} strings)"
    assert benchmark(lambda: [decode(s) for s in strings]) == expected
