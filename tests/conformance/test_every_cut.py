"""Every conformance text, cut in two at every character, streams to the events of one feed.

The peer-case suite streams each case in seeded random chunks; this sweeps every two-chunk cut,
under "auto" and under the case's own format, and compares the coalesced events (text and
argument deltas joined; generated ids left out). A difference is a stream that depends on where
the network cut the text: a phantom call, a lost byte or a byte sent twice (it found a Step-3
text that a cut after its tool separator token turned into two calls). A text over 1000
characters is cut at 1000 seeded random places (the sweep is quadratic in its length).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import toolwire
from peer import known

Event = tuple[str, Any, str]


def coalesced(events: list[Any]) -> list[Event]:
    out: list[Event] = []
    for e in events:
        if e.kind in ("text_delta", "reasoning_delta", "tool_call_delta"):
            index = getattr(e, "index", None)
            piece = e.arguments if e.kind == "tool_call_delta" else e.text
            if out and out[-1][:2] == (e.kind, index):
                out[-1] = (e.kind, index, out[-1][2] + piece)
                continue
            out.append((e.kind, index, piece))
        elif e.kind == "tool_call_start":
            out.append((e.kind, e.index, e.name))
        elif e.kind == "tool_call_end":
            out.append((e.kind, e.index, repr((e.call.name, e.call.arguments))))
        else:
            out.append((e.kind, e.index, repr((e.raw, e.error, e.name))))
    return out


def streamed(chunks: list[str], formats: str, starts_in_reasoning: bool) -> list[Event]:
    parser = toolwire.StreamParser(formats=formats, starts_in_reasoning=starts_in_reasoning)
    events = [e for chunk in chunks for e in parser.feed(chunk)]
    return coalesced(events + parser.finish())


MAIN_SOURCES = ("vllm", "sglang", "llamacpp")


def streams_of(source: str) -> list[tuple[str, str, bool]]:
    """(text, formats, starts_in_reasoning) of the cases from `source` ("other": the rest)."""
    seen: dict[tuple[str, str, bool], None] = {}
    for case in known():
        if case["source"] == source or (source == "other" and case["source"] not in MAIN_SOURCES):
            starts_in_reasoning = bool(case.get("starts_in_reasoning"))
            for formats in ("auto", case["toolwire_format"]):
                seen[(case["text"], formats, starts_in_reasoning)] = None
    return list(seen)


@pytest.mark.parametrize("source", [*MAIN_SOURCES, "other"])
def test_every_two_chunk_cut_gives_the_events_of_one_feed(source: str) -> None:
    differing = []
    for text, formats, starts_in_reasoning in streams_of(source):
        whole = streamed([text], formats, starts_in_reasoning)
        cuts = range(1, len(text))
        if len(cuts) > 1000:
            cuts = sorted(random.Random(text).sample(cuts, 1000))
        for cut in cuts:
            if streamed([text[:cut], text[cut:]], formats, starts_in_reasoning) != whole:
                differing.append((formats, cut, text))
                break
    assert not differing, differing[:5]
