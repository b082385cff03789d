"""Two rules from llama.cpp's Hermes 2 Pro cases (docs/conformance.md), on all three paths
(``extract``, ``parse_text``, ``StreamParser`` cut in two at every character):

- ``format="hermes"`` reads a message that is nothing but a call object or a list of them,
  bare or in one ```` ``` ```` / ```` ```json ```` fence (Hermes-family models drop their
  ``<tool_call>`` tags); JSON after prose never runs.
- A ```` ``` ```` block that holds only call markup is part of the calls: its fence lines are
  not content. A block holding anything else keeps them.
"""

from __future__ import annotations

from typing import Any

import pytest
import toolwire
from support import streamed_calls

CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
SHAPE = [("get_weather", {"city": "Paris"})]
TAGGED = f"<tool_call>{CALL}</tool_call>"


def shapes(calls: list[Any]) -> list[Any]:
    return [
        (c.name, c.arguments) if isinstance(c, toolwire.ToolCall) else ("!", c.raw) for c in calls
    ]


def every_path(text: str, formats: Any) -> list[tuple[str, list[Any], str | None]]:
    """(path, call shapes, content) of `text` through each path; the stream is cut in two at
    every character (and fed whole)."""
    names = None if formats == "auto" else formats
    results: list[tuple[str, list[Any], str | None]] = [
        ("extract", shapes(toolwire.extract(text, formats=names, on_error="keep")), None)
    ]
    parsed = toolwire.parse_text(text, format=formats)
    results.append(("parse_text", shapes(list(parsed.calls)), parsed.content))
    for cut in range(len(text) + 1):
        parser = toolwire.StreamParser(formats=formats)
        events = parser.feed(text[:cut]) + parser.feed(text[cut:]) + parser.finish()
        content = "".join(e.text for e in events if e.kind == "text_delta")
        results.append((f"stream cut at {cut}", shapes(streamed_calls(events)), content))
    return results


@pytest.mark.parametrize(
    "text",
    [
        CALL,
        "{\n  " + CALL[1:],  # a newline after `{` (llama.cpp L1162)
        f"  \n{CALL}\n",
        f"<think>Paris, then.</think>\n{CALL}",
        f"[{CALL}]",
        f"```\n{CALL}\n```",
        f"```json\n  {CALL}\n```\n",
    ],
)
def test_hermes_reads_a_message_that_is_only_a_call_object(text: str) -> None:
    for path, calls, content in every_path(text, ["hermes"]):
        assert calls == SHAPE, (path, text)
        assert content is None or content.strip() == "", (path, text)
    # Under "auto" the same text is raw JSON: the same calls.
    assert shapes(toolwire.extract(text)) == SHAPE


@pytest.mark.parametrize(
    "text",
    [
        f"This is not a tool call:\n{CALL}",  # JSON after prose (llama.cpp L1196)
        f"Like this:\n```json\n{CALL}\n```",  # a fence after prose
        f"```xml\n{CALL}\n```",  # a fence that says its text is XML
        '{"city": "Paris"}',  # JSON that is not a call
    ],
)
def test_hermes_leaves_json_that_is_not_the_whole_message(text: str) -> None:
    for path, calls, content in every_path(text, ["hermes"]):
        assert calls == [], (path, text)
        assert content is None or content == text, (path, text)


def test_a_whole_message_call_then_prose_keeps_the_prose() -> None:
    # As raw JSON `whole` and llama3_json read it: the message starts with the call (nothing but
    # blank space and think spans before it); what follows it is content.
    text = f"{CALL}\nDone."
    for path, calls, content in every_path(text, ["hermes"]):
        assert calls == SHAPE, path
        assert content is None or content.strip() == "Done.", path


@pytest.mark.parametrize("formats", [["hermes"], "auto"])
@pytest.mark.parametrize(
    ("text", "content"),
    [
        # llama.cpp L1078 and L1120: the fence wraps call markup only.
        (f"```xml\n<response>\n    {CALL}\n</response>\n```", ""),
        (
            f"```json\n\n                    <function_call> {CALL} \n"
            "                    </function_call> \n``` ",
            "",
        ),
        # After a call (no content before it), a block still wraps calls.
        (f"{TAGGED}\n```\n{TAGGED}\n{TAGGED}\n```\nDone.", "\n\n\n\nDone."),
        # Prose in the block after the call: the block was call markup from its first line,
        # so both fence lines go (a lone closing fence would open a block in any renderer).
        (f"```\n{TAGGED}\nthen\n```", "\nthen\n"),
    ],
)
def test_a_fence_around_call_markup_is_not_content(text: str, content: str, formats: Any) -> None:
    for path, calls, got in every_path(text, formats):
        assert [name for name, _ in calls] == ["get_weather"] * text.count("get_weather"), path
        assert got is None or got.strip() == content.strip(), (path, text)


@pytest.mark.parametrize("formats", [["hermes"], "auto"])
def test_a_block_after_content_is_an_example(formats: Any) -> None:
    # vLLM's issue 57541: a model that shows the call format in a fence after some prose must
    # not run it. The markup stays content, whole; a call after the closing fence is read.
    example = f"Here is what a call looks like:\n\n```xml\n{TAGGED}\n```\n"
    for path, calls, got in every_path(example + "That is the format.", formats):
        assert calls == [], path
        assert got is None or got == example + "That is the format.", path
    for path, calls, _ in every_path(example + f"Now for real:\n{TAGGED}", formats):
        assert calls == SHAPE, path


@pytest.mark.parametrize("formats", [["hermes"], "auto"])
@pytest.mark.parametrize(
    ("text", "calls"),
    [
        # A tilde block of another kind than `~~~tool_call` is a code block (CommonMark).
        (f"Example:\n~~~xml\n{TAGGED}\n~~~\ndone", 0),
        (f"Example:\n~~~~\n{TAGGED}", 0),
        # A block closes only at a bare run of its own fence at least as long as the opening.
        (f"before\n````xml\n```\n{TAGGED}\n````\n{TAGGED}", 1),
        (f"before\n~~~~xml\n~~~\n{TAGGED}\n~~~~\n{TAGGED}", 1),
        (f"See:\n```\n{TAGGED}\n``` trailing\n{TAGGED}\n```\n{TAGGED}", 1),
        (f"See:\n```\n{TAGGED}\n~~~\n```\n{TAGGED}", 1),
        # A `~~~tool_call` block inside a tilde code block is quoted like one in backticks.
        ('Note:\n~~~python\n~~~tool_call\n{"name": "f", "arguments": {}}\n~~~\n~~~\n', 0),
    ],
)
def test_code_blocks_open_and_close_as_in_commonmark(text: str, calls: int, formats: Any) -> None:
    for path, got, content in every_path(text, formats):
        assert len(got) == calls, (path, text)
        assert content is None or calls or content == text, (path, text)


@pytest.mark.parametrize("formats", [["hermes"], "auto"])
@pytest.mark.parametrize(
    "text",
    [
        # Prose and a call in one block: the block is kept as written.
        f"```\nRun this:\n{TAGGED}\n```",
        # A JSON value that is not a call, fenced: content, whole.
        '```json\n{"city": "Paris"}\n```',
        # Code, and an empty block.
        "```python\nprint('hi')\n```\nok",
        "```\n\n```",
        # A block that never closes.
        "```json\nx = 1",
        # A `~~~tool_call` fence in a ``` block is a quoted example (docs/parsing.md).
        '```\n~~~tool_call\n{"name": "f", "arguments": "{}"}\n~~~\n```',
    ],
)
def test_a_fence_holding_other_text_stays_content(text: str, formats: Any) -> None:
    for path, calls, content in every_path(text, formats):
        assert len(calls) == text.count("get_weather"), path
        assert content is None or content == text.replace(TAGGED, ""), (path, text)
