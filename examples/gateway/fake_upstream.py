"""A stand-in upstream for the gateway's tests and load test: an OpenAI-compatible server that
replays recorded model outputs, the way a model served without a tool parser streams them
(its text, calls and all, in ``delta.content``).

``POST /v1/chat/completions`` replays the output named by the last user message
(``"replay NAME"``): text in chunks of ``chunk_chars`` characters (about a token each), or an
output given as a list of Chat Completions chunks as it is (an upstream that parses calls
itself). Usage counts one completion token per chunk; ``"length"`` ends an output whose name
ends in ``#cut`` (cut by ``max_tokens``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

PROMPT_TOKENS = 11


def create_upstream(
    outputs: Mapping[str, str | list[dict[str, Any]]], *, chunk_chars: int = 4, pause: float = 0.0
) -> Starlette:
    """The upstream app: ``outputs`` by name; ``pause`` seconds between chunks."""

    async def completions(request: Request) -> Response:
        body = await request.json()
        name = body["messages"][-1]["content"].removeprefix("replay ")
        if name not in outputs:
            return JSONResponse({"error": {"message": f"no output {name!r}"}}, status_code=404)
        chunks = list(stream_chunks(name, outputs[name], chunk_chars, body.get("model") or "fake"))
        if not body.get("stream"):
            text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks[:-1])
            return JSONResponse(_completion(name, text, len(chunks) - 1))
        usage = (body.get("stream_options") or {}).get("include_usage")

        async def events() -> AsyncIterator[str]:
            for chunk in chunks:
                yield f"data: {json.dumps(chunk)}\n\n"
                if pause:
                    await asyncio.sleep(pause)
            if usage:
                yield f"data: {json.dumps(_usage_chunk(name, len(chunks) - 1))}\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


def stream_chunks(
    name: str, output: str | list[dict[str, Any]], size: int, model: str
) -> Iterator[dict[str, Any]]:
    """The Chat Completions chunks an output is streamed as (before the usage chunk)."""
    if not isinstance(output, str):
        yield from output
        return
    for at in range(0, len(output), size):
        delta = {"content": output[at : at + size]} | ({"role": "assistant"} if at == 0 else {})
        yield _chunk(name, model, delta, None)
    yield _chunk(name, model, {}, "length" if name.endswith("#cut") else "stop")


def _chunk(name: str, model: str, delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{name}",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _usage(completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": PROMPT_TOKENS,
        "completion_tokens": completion_tokens,
        "total_tokens": PROMPT_TOKENS + completion_tokens,
    }


def _usage_chunk(name: str, completion_tokens: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{name}",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "fake",
        "choices": [],
        "usage": _usage(completion_tokens),
    }


def _completion(name: str, text: str, completion_tokens: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{name}",
        "object": "chat.completion",
        "created": 1,
        "model": "fake",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": _usage(completion_tokens),
    }


def main() -> None:
    """``python fake_upstream.py OUTPUTS.json --port N``: serve the outputs (a JSON object of
    name to text) on 127.0.0.1."""
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("outputs", help="JSON file: an object of output name to model text")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--chunk-chars", type=int, default=4)
    parser.add_argument("--pause", type=float, default=0.0, help="seconds between chunks")
    args = parser.parse_args()
    with open(args.outputs, encoding="utf-8") as file:
        outputs = json.load(file)
    app = create_upstream(outputs, chunk_chars=args.chunk_chars, pause=args.pause)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
