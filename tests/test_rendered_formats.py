"""Every corpus case rendered in the formats the shared corpus lacks (tests/renderers.py) reads
back to its calls through `extract` (named and sniffed), `parse_text` and the stream."""

from __future__ import annotations

import random
from typing import Any

import pytest
import toolwire
from renderers import RENDERERS, SNIFFED_AS, as_auto_reads
from support import calls_of, cases


def got(calls: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    assert all(isinstance(c, toolwire.ToolCall) for c in calls), calls
    return [(c.name, c.arguments) for c in calls]


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_every_rendering_gives_its_calls(name: str) -> None:
    render = RENDERERS[name]
    rng = random.Random(name)
    seen = 0
    for k, case in enumerate(cases()):
        text = render(case, k)
        if text is None:
            continue
        seen += 1
        # XML-style values are raw text: the tool schema types them.
        tools = case["tools"]
        expected = calls_of(case)
        sniffed = toolwire.extract(as_auto_reads(name, text), tools=tools)
        if name in SNIFFED_AS:
            as_other = toolwire.extract(text, formats=[SNIFFED_AS[name]], tools=tools)
            assert got(sniffed) == got(as_other), (case["id"], text)
        else:
            assert got(sniffed) == expected, (case["id"], text)
        assert got(toolwire.extract(text, formats=[name], tools=tools)) == expected
        assert got(toolwire.parse_text(text, format=name, tools=tools).calls) == expected
        if k % 10 == 0:
            parser = toolwire.StreamParser(formats=[name], tools=tools)
            events = []
            pos = 0
            while pos < len(text):
                size = rng.randint(1, 9)
                events += parser.feed(text[pos : pos + size])
                pos += size
            events += parser.finish()
            ends = [e.call for e in events if e.kind == "tool_call_end"]
            assert got(ends) == expected, (case["id"], text)
    assert seen > 1500
