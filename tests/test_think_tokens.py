"""Think tags as tokens (docs/formats.md, "Stray think tokens"): outside a think span a closing
tag, or Gemma 4's `<|channel>` without `thought`, is a control token, dropped on every path and
in every chunking; an unopened closing tag after content, before any span, stays text."""

from __future__ import annotations

from typing import Any

import pytest
import toolwire
from support import every_path
from toolwire import ToolCall

CALL = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'


def streamed(chunks: list[Any]) -> tuple[str, str | None]:
    """Content and reasoning of a stream fed `chunks` (None when no reasoning came)."""
    parser = toolwire.StreamParser()
    events = [e for chunk in chunks for e in parser.feed(chunk)] + parser.finish()
    content = "".join(e.text for e in events if e.kind == "text_delta")
    reasoning = [e.text for e in events if e.kind == "reasoning_delta"]
    return content, "".join(reasoning) if reasoning else None


def read(text: str) -> tuple[str, str | None]:
    """Content and reasoning of `text`: `parse_text`'s, which the stream gives in every
    chunking (cut at each position, one character or one byte at a time)."""
    parsed = toolwire.parse_text(text)
    whole = (parsed.content, parsed.reasoning)
    data = text.encode()
    chunkings = [[text[:cut], text[cut:]] for cut in range(1, len(text))]
    chunkings += [list(text), [data[i : i + 1] for i in range(len(data))]]
    for chunks in chunkings:
        content, reasoning = streamed(chunks)
        assert content == whole[0] and (reasoning or "") == (whole[1] or ""), chunks
    return whole


@pytest.mark.parametrize(
    "text",
    [
        # llama.cpp's Gemma 4 edge cases (tests/test-chat.cpp).
        "<|channel>thought\n<channel|>Hello, world!\nWhat's up?<channel|>",
        "<|channel>thought\n<channel|>Hello, world!\nWhat's up?"
        "<|channel>thought\n<channel|><channel|>",
        "<|channel><|channel>thought\n<channel|>Hello, world!\nWhat's up?",
        # A closing tag of another vendor, stray after a span, and one at the very start.
        "<think>plan</think>Hello, world!\nWhat's up?</think>",
        "</think>Hello, world!\nWhat's up?",
        # Magistral's, which opens the message with `[` as a bare JSON list would (vLLM).
        "[/THINK]Hello, world!\nWhat's up?",
        "<|inner_suffix|>Hello, world!\nWhat's up?<|END_THINKING|>",
    ],
)
def test_stray_think_tokens_are_not_content(text: str) -> None:
    content, _ = read(text)
    assert content.strip() == "Hello, world!\nWhat's up?"


def test_a_channel_token_is_told_from_the_tag_it_begins() -> None:
    assert read("Hi<|channel>") == ("Hi", None)
    assert read("Hi<|channel>tho") == ("Hitho", None)
    assert read("Hi<|channel>x<|channel>thought plan") == ("Hix", " plan")
    # Inside a span the token is reasoning, as any text there.
    assert read("<|channel>thought a<|channel>b<channel|>c") == ("c", " a<|channel>b")
    # A near miss is text.
    assert read("Hi<|channe>x <channel>") == ("Hi<|channe>x <channel>", None)


def test_an_unopened_close_after_content_stays_text() -> None:
    # The span began in the prompt: its text went out as content, the tag shows where it ended.
    assert read("Plan</think>Hi.") == ("Plan</think>Hi.", None)
    assert read("Plan<channel|>Hi.<channel|>") == ("Plan<channel|>Hi.<channel|>", None)
    # After a span, the same tag is a stray token.
    assert read("<think>a</think>Plan</think>Hi.") == ("PlanHi.", "a")


@pytest.mark.parametrize(
    "text",
    [
        f"<|channel>{CALL}",
        f"<|channel>thought\nx<channel|><channel|>{CALL}<channel|>",
        f"<think>a</think></think> {CALL}",
        '<|channel>{"name": "f", "arguments": {"a": 1}}',
        '<think>a</think></think>{"name": "f", "arguments": {"a": 1}}',
    ],
)
def test_calls_after_stray_tokens_are_read_on_every_path(text: str) -> None:
    for calls in every_path(text):
        assert [(c.name, c.arguments) for c in calls if isinstance(c, ToolCall)] == [
            ("f", {"a": 1})
        ], text
    assert toolwire.parse_text(text).content.strip() == ""


# HY v4 writes its think tags with the checkpoint's suffix (vLLM's HY v4 reasoning parser reads
# it from the vocabulary, `<think:6124c78e>`); its template writes the opening tag in the prompt.
HY_CALL = (
    "<tool_calls:6124c78e><tool_call:6124c78e>f<arg_key:6124c78e>a</arg_key:6124c78e>"
    "<arg_value:6124c78e>1</arg_value:6124c78e></tool_call:6124c78e></tool_calls:6124c78e>"
)


@pytest.mark.parametrize("suffix", ["6124c78e", "x", "a" * 64])
def test_suffixed_think_tags_are_reasoning(suffix: str) -> None:
    text = f"<think:{suffix}>Plan.</think:{suffix}>Hi.{HY_CALL}"
    assert read(text) == ("Hi.", "Plan.")
    for calls in every_path(text):
        assert [(c.name, c.arguments) for c in calls] == [("f", {"a": 1})]
    # Either closing tag ends a span either opening tag began; a stray one is dropped.
    assert read(f"<think>a</think:{suffix}>b</think:{suffix}>") == ("b", "a")
    # Opened in the prompt: the tag stays in the content, as `</think>` does.
    assert read(f"Plan.</think:{suffix}>Hi.") == (f"Plan.</think:{suffix}>Hi.", None)


def test_calls_in_a_suffixed_think_span_follow_calls_in_reasoning() -> None:
    text = f"<think:ab>{HY_CALL}</think:ab>Done."
    assert [c.name for c in toolwire.extract(text)] == ["f"]
    parsed = toolwire.parse_text(text, calls_in_reasoning=False)
    assert (parsed.calls, parsed.reasoning, parsed.content) == ([], HY_CALL, "Done.")


@pytest.mark.parametrize(
    "text",
    [
        "<think:> a",
        "<think: x> a",
        "<think:a b> a",
        "<think:" + "a" * 65 + "> a",
        "a <think:abc",
        "a </think:abc",
        "x <think:ab<think:cd> y",
    ],
)
def test_a_think_tag_without_a_whole_suffix_is_text(text: str) -> None:
    content, reasoning = read(text)
    if "<think:cd>" in text:
        assert (content, reasoning) == ("x <think:ab", " y")
    else:
        assert (content, reasoning) == (text, None)
