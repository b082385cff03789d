"""``parse_text``: model text → :class:`Parsed`, on the stream engine (SPEC §6, §9.1)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from ._toolwire import parse_text_parts
from ._types import Parsed

__all__ = ["parse_text"]


def parse_text(
    text: str | bytes,
    format: str | Sequence[str] = "auto",
    *,
    on_error: Literal["raise", "skip", "keep"] = "keep",
    calls_in_reasoning: bool = True,
    tools: Any = None,
    unknown_tools: Literal["keep", "invalid", "drop"] = "keep",
) -> Parsed:
    """Split model text into its plain ``content``, its ``calls`` and its ``reasoning``.

    This is :class:`StreamParser` fed the whole text at once, then finished, with the events
    collected: streaming a text and parsing it whole always agree. ``format`` is ``"auto"``
    or a format name (``"text_tagged"``, ``"raw_json"`` or one of §6: ``"hermes"``,
    ``"qwen3_coder"``, …) or a list of them. ``tools`` types qwen3_coder and glm45 values.
    ``on_error`` defaults to ``"keep"`` (as for ``StreamParser``), so a broken call is an
    ``InvalidToolCall`` in ``calls``.

    >>> parsed = parse_text('<think>Paris?</think>Sure.\\n~~~tool_call\\n'
    ...                     '{"name": "get_weather", "arguments": {"city": "Paris"}}\\n~~~\\n')
    >>> parsed.content, parsed.reasoning, parsed.calls[0].arguments
    ('Sure.\\n', 'Paris?', {'city': 'Paris'})
    """
    content, calls, reasoning = parse_text_parts(
        text,
        format=format,
        on_error=on_error,
        calls_in_reasoning=calls_in_reasoning,
        tools=tools,
        unknown_tools=unknown_tools,
    )
    return Parsed(content=content, calls=calls, reasoning=reasoning)
