"""``parse_text``: model text → :class:`Parsed`, on the stream engine (docs/formats.md,
docs/streaming.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._toolwire import parse_text_parts
from ._types import Parsed

if TYPE_CHECKING:
    from ._toolwire import ErrorPolicy, FormatSpec

__all__ = ["parse_text"]


def parse_text(
    text: str | bytes,
    format: FormatSpec = "auto",
    *,
    on_error: ErrorPolicy = "keep",
    calls_in_reasoning: bool = True,
    tools: Any = None,
) -> Parsed:
    """Split model text into its plain ``content``, its ``calls`` and its ``reasoning``.

    This is :class:`StreamParser` fed the whole text at once, then finished, with the events
    collected: streaming a text and parsing it whole always agree. ``format`` is ``"auto"``
    or a format name (``"text_tagged"``, ``"raw_json"`` or an open-weight format:
    ``"hermes"``, ``"qwen3_coder"``, …) or a list of them. ``tools`` types qwen3_coder and glm45
    values.
    ``calls_in_reasoning`` also reads calls written inside think spans.
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
    )
    return Parsed(content=content, calls=calls, reasoning=reasoning)
