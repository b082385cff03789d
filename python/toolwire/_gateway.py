"""Stream codecs for gateways: any provider's stream into any other's, and stream objects
framed for the wire.

The per-item work is Rust (:class:`StreamTranslator`: an accumulator, the gateway policies and
an encoder, with no Python event in between); these functions only iterate.

>>> chunks = [
...     {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1",
...         "function": {"name": "get_weather", "arguments": '{"city": '}}]}}]},
...     {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
...         "function": {"arguments": '"Oslo"}'}}]}, "finish_reason": "tool_calls"}]},
... ]
>>> events = list(translate_stream(chunks, source="openai", target="anthropic", model="m"))
>>> [e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta"]
['{"city": ', '"Oslo"}']
>>> events[-2]["delta"]["stop_reason"]
'tool_use'
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from ._toolwire import StreamTranslator, frame_chunk

if TYPE_CHECKING:
    from ._toolwire import FormatSpec, Release, StreamProvider, UnknownTools

__all__ = ["TranslationOptions", "atranslate_stream", "frame_stream", "translate_stream"]


class TranslationOptions(TypedDict, total=False):
    """What a translation may be told besides its source and target (see
    :func:`translate_stream`)."""

    model: str | None
    response_id: str | None
    text_formats: FormatSpec | None
    tools: Any
    release: Release
    unknown_tools: UnknownTools


def translate_stream(
    chunks: Iterable[Any],
    *,
    source: StreamProvider,
    target: StreamProvider,
    **options: Unpack[TranslationOptions],
) -> Iterator[dict[str, Any]]:
    """Translate a provider's stream into another provider's, as it arrives.

    ``chunks`` are the ``source`` provider's stream items: dicts, SSE or NDJSON text, or SDK
    objects. The result yields the ``target`` provider's stream objects (dicts; :func:`frame_stream`
    makes wire text of them). Calls keep their ids, names and the model's own argument bytes (whole
    calls, from Gemini and Ollama, are their compact JSON); text, reasoning, the stop reason and the
    usage pass through, and so do the source's id and model unless ``model``/``response_id`` name
    the response.

    ``options`` are those of :class:`StreamTranslator`. ``text_formats`` ("auto", a format name or a
    list) also reads calls the model wrote in its text (an upstream without a tool parser), so the
    target gets them as native calls. ``release`` ("eager": as they arrive; "complete": each call
    whole once it ends; "valid": only once its arguments validate against ``tools``) and
    ``unknown_tools`` ("keep", "invalid", "drop" a call to a tool not in ``tools``) are the gateway
    policies. Options are checked when this is called, not at the first item. The work is a
    :class:`StreamTranslator`'s (one per stream), which a caller may also drive itself.
    """
    translator = StreamTranslator(source=source, target=target, **options)

    def translated() -> Iterator[dict[str, Any]]:
        for chunk in chunks:
            yield from translator.feed(chunk)
        yield from translator.finish()

    return translated()


def atranslate_stream(
    chunks: AsyncIterable[Any],
    *,
    source: StreamProvider,
    target: StreamProvider,
    **options: Unpack[TranslationOptions],
) -> AsyncIterator[dict[str, Any]]:
    """:func:`translate_stream` over an async iterable (an HTTP client's stream): ``chunks``
    from the ``source`` provider become the ``target`` provider's stream objects, with the same
    ``options`` (``model``, ``response_id``, ``text_formats``, ``tools``, ``release``,
    ``unknown_tools``)."""
    translator = StreamTranslator(source=source, target=target, **options)

    async def translated() -> AsyncIterator[dict[str, Any]]:
        async for chunk in chunks:
            for out in translator.feed(chunk):
                yield out
        for out in translator.finish():
            yield out

    return translated()


def frame_stream(chunks: Iterable[dict[str, Any]], provider: StreamProvider) -> Iterator[str]:
    """The wire text of ``chunks``, the stream objects of ``provider``: SSE events
    (``data: [DONE]`` after the last OpenAI chunk) or, for Ollama, NDJSON lines.

    >>> list(frame_stream([{"choices": []}], "openai"))
    ['data: {"choices":[]}\\n\\n', 'data: [DONE]\\n\\n']
    """
    for chunk in chunks:
        yield frame_chunk(chunk, provider)
    if provider == "openai":
        yield "data: [DONE]\n\n"
