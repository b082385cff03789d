"""`starts_in_reasoning=True`: the prompt opened a think span (a chat template that ends with
`<think>`, as DeepSeek-R1's and Qwen3's thinking templates do), so the text is reasoning up to
its first closing think tag, on every path (`extract`, `parse_text`, `StreamParser`) and in
every chunking. Without it, the text before an unopened `</think>` is content (the stream has
sent it before the tag shows what it was)."""

from __future__ import annotations

from typing import Any

import pytest
import toolwire
from test_calls_in_reasoning import call_events, chunkings, hermes, streamed, valid


def split(text: str, **options: Any) -> tuple[str, str | None, list[tuple[str, Any]]]:
    parsed = toolwire.parse_text(text, starts_in_reasoning=True, **options)
    return parsed.content, parsed.reasoning, valid(parsed.calls)


@pytest.mark.parametrize(
    ("text", "content", "reasoning"),
    [
        ("Paris is the capital.\n</think>\n\nParis.", "\n\nParis.", "Paris is the capital.\n"),
        # Any vendor's closing tag ends the span.
        ("Hmm.[/THINK]Yes.", "Yes.", "Hmm."),
        ("Hmm.</seed:think>Yes.", "Yes.", "Hmm."),
        # No closing tag: the model was still thinking when the text ended.
        ("Still thinking about it", "", "Still thinking about it"),
        # The model wrote the opening tag anyway: it is the span's, not reasoning text.
        ("<think>Hmm.</think>Yes.", "Yes.", "Hmm."),
        ("\n<think>Hmm.</think>Yes.", "Yes.", "\nHmm."),
        # After the span, think tags work as usual.
        ("A.</think>B<think>C</think>D", "BD", "A.\nC"),
        ("</think>Straight to the answer.", "Straight to the answer.", ""),
    ],
)
def test_the_text_is_reasoning_up_to_the_first_closing_tag(
    text: str, content: str, reasoning: str | None
) -> None:
    assert split(text)[:2] == (content, reasoning)
    for chunks in chunkings(text):
        fed, finished = streamed(chunks, starts_in_reasoning=True)
        events = fed + finished
        assert "".join(e.text for e in events if e.kind == "text_delta") == content, chunks
        thought = "".join(e.text for e in events if e.kind == "reasoning_delta")
        assert thought == (reasoning or ""), chunks


def test_without_the_option_the_text_before_an_unopened_tag_is_content() -> None:
    text = "Paris is the capital.</think>Paris."
    parsed = toolwire.parse_text(text)
    assert (parsed.content, parsed.reasoning) == (text, None)


def test_a_drafted_call_in_the_prompt_opened_span_gives_way_to_the_call() -> None:
    # llama.cpp's test-chat.cpp L2214 shape: a call, then </think>, then the call again.
    text = f"Let me check. {hermes(1)}</think>\n{hermes(2)}"
    assert split(text) == ("\n", "Let me check. ", [("f", {"a": 2})])
    assert valid(toolwire.extract(text, starts_in_reasoning=True)) == [("f", {"a": 2})]
    expected = [("tool_call_start", 0, "f"), ("tool_call_end", 0, ("f", {"a": 2}))]
    for chunks in chunkings(text):
        fed, finished = streamed(chunks, starts_in_reasoning=True)
        assert call_events(fed + finished) == expected, chunks
    # Without the option both calls are the message's.
    assert valid(toolwire.extract(text)) == [("f", {"a": 1}), ("f", {"a": 2})]


def test_a_call_only_in_the_span_is_returned_and_raw_json_after_it_is_read() -> None:
    only = f"I will call it. {hermes(1)}"
    assert split(only) == ("", "I will call it. ", [("f", {"a": 1})])
    assert valid(toolwire.extract(only, starts_in_reasoning=True)) == [("f", {"a": 1})]
    # A whole-message JSON call after the span is the message.
    raw = 'Use f.</think>{"name": "f", "arguments": {"a": 3}}'
    expected = [("f", {"a": 3})]
    assert valid(toolwire.extract(raw, raw_json="whole", starts_in_reasoning=True)) == expected
    assert split(raw)[2] == expected
    # JSON written while still thinking is reasoning, not a call.
    thinking = 'Maybe {"name": "f", "arguments": {"a": 3}}'
    assert toolwire.extract(thinking, raw_json="whole", starts_in_reasoning=True) == []


def test_a_reset_parser_starts_in_reasoning_again() -> None:
    parser = toolwire.StreamParser(starts_in_reasoning=True)
    for _ in range(2):
        events = parser.feed("Hmm.</think>Yes.") + parser.finish()
        assert [(e.kind, getattr(e, "text", None)) for e in events] == [
            ("reasoning_delta", "Hmm."),
            ("text_delta", "Yes."),
        ]
        parser.reset()


@pytest.mark.parametrize("value", [1, "yes", None])
def test_the_option_is_a_bool(value: Any) -> None:
    with pytest.raises(TypeError):
        toolwire.parse_text("x", starts_in_reasoning=value)
