"""A gateway in front of an OpenAI-compatible upstream (a model served without a tool parser,
or one with it): it serves OpenAI Chat Completions (``POST /v1/chat/completions``) and
Anthropic Messages (``POST /v1/messages``) to its clients.

Calls the model wrote in its text become native calls (``tool_calls`` deltas, ``tool_use``
blocks), streaming and not, by toolwire's stream translation (``StreamTranslator``: the OpenAI
stream accumulator reading ``content`` with the text formats, then the target's encoder); the
release and unknown-tool policies apply to the request's tools; usage, the stop reason, the
response id and the model pass through. The upstream is always asked to stream (with usage),
so a non-streaming client gets exactly what a streaming one would, accumulated.

``passthrough=True`` makes the same gateway forward the upstream's Chat Completions stream as
it is, without toolwire (the load test's baseline).
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Literal

import httpx
import toolwire
from messages_request import chat_request
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

logger = logging.getLogger("toolwire.gateway")

Target = Literal["openai", "anthropic"]

STOP_REASONS = {
    "tool_calls": "tool_use",
    "stop": "end_turn",
    "length": "max_tokens",
    "content_filter": "refusal",
}
"""Chat Completions finish reasons as Messages stop reasons."""


@dataclass(frozen=True)
class GatewayConfig:
    """What the gateway fronts, and how it treats calls.

    Attributes:
        upstream: the upstream's OpenAI base URL (``http://host:port/v1``).
        text_formats: toolwire formats read in the upstream's text (``"auto"``: all).
        release: when a call goes out: ``"eager"`` (as it streams), ``"complete"`` (whole,
            once it ends) or ``"valid"`` (whole, once its arguments validate against the
            request's tools).
        unknown_tools: a call to a tool the request did not offer: ``"keep"``, ``"invalid"``
            (left out and logged) or ``"drop"``.
        api_key: the upstream's key; without one, the client's key is forwarded.
        passthrough: forward Chat Completions streams untouched (no toolwire).
        record_timings: keep each upstream line's processing time (``GET /_timings``).
    """

    upstream: str
    text_formats: str | Sequence[str] = "auto"
    release: Literal["eager", "complete", "valid"] = "eager"
    unknown_tools: Literal["keep", "invalid", "drop"] = "keep"
    api_key: str | None = None
    passthrough: bool = False
    record_timings: bool = False


def create_app(config: GatewayConfig) -> Starlette:
    """The gateway as an ASGI application."""
    timings: list[int] = []

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # Idle connections expire before the upstream closes them (uvicorn: after 5 s), so a
        # request never goes out on a connection the upstream is closing.
        limits = httpx.Limits(
            max_connections=None, max_keepalive_connections=1024, keepalive_expiry=2.0
        )
        async with httpx.AsyncClient(timeout=httpx.Timeout(300.0), limits=limits) as client:
            app.state.client = client
            yield

    async def chat_completions(request: Request) -> Response:
        body = await request.json()
        if config.passthrough:
            return await _passthrough(request, body)
        return await _serve(request, body, "openai", bool(body.get("stream")))

    async def messages(request: Request) -> Response:
        body = await request.json()
        return await _serve(request, chat_request(body), "anthropic", bool(body.get("stream")))

    async def recorded_timings(request: Request) -> Response:
        taken = list(timings)
        timings.clear()
        return JSONResponse(taken)

    async def _open(request: Request, body: dict[str, Any]) -> httpx.Response:
        key = config.api_key or _client_key(request)
        headers = {"authorization": f"Bearer {key}"} if key else {}
        upstream_body = body | {"stream": True, "stream_options": {"include_usage": True}}
        client: httpx.AsyncClient = request.app.state.client
        built = client.build_request(
            "POST", f"{config.upstream}/chat/completions", json=upstream_body, headers=headers
        )
        return await client.send(built, stream=True)

    async def _serve(
        request: Request, body: dict[str, Any], target: Target, stream: bool
    ) -> Response:
        upstream = await _open(request, body)
        if upstream.status_code >= 400:
            return await _upstream_error(upstream, target)
        options = _policies(config, body)
        if not stream:
            return await _whole(upstream, target, options, body)
        translator = toolwire.StreamTranslator(
            source="openai", target=target, model=body.get("model"), **options
        )
        # An OpenAI client that did not ask for usage gets no usage chunk.
        usage_wanted = target == "anthropic" or bool(
            (body.get("stream_options") or {}).get("include_usage")
        )

        async def frames() -> AsyncIterator[str]:
            try:
                async for line in upstream.aiter_lines():
                    if not line.startswith("data:"):
                        continue
                    started = time.perf_counter_ns()
                    out = translator.feed(line)
                    framed = "".join(
                        toolwire.frame_chunk(item, target)
                        for item in out
                        if usage_wanted or item.get("choices") != []
                    )
                    if config.record_timings:
                        timings.append(time.perf_counter_ns() - started)
                    if framed:
                        yield framed
                for item in translator.finish():
                    if usage_wanted or item.get("choices") != []:
                        yield toolwire.frame_chunk(item, target)
                if target == "openai":
                    yield "data: [DONE]\n\n"
                _log_invalid(translator.invalid_calls)
            finally:
                await upstream.aclose()

        return StreamingResponse(frames(), media_type="text/event-stream")

    async def _passthrough(request: Request, body: dict[str, Any]) -> Response:
        try:
            upstream = await _open(request, body)
        except httpx.HTTPError as error:
            return _unreachable(error, "openai")
        if upstream.status_code >= 400:
            return await _upstream_error(upstream, "openai")

        async def events() -> AsyncIterator[str]:
            try:
                async for line in upstream.aiter_lines():
                    if not line:
                        continue
                    started = time.perf_counter_ns()
                    framed = f"{line}\n\n"  # one SSE event per line: upstreams send data only
                    if config.record_timings:
                        timings.append(time.perf_counter_ns() - started)
                    yield framed
            finally:
                await upstream.aclose()

        return StreamingResponse(events(), media_type="text/event-stream")

    routes = [
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        Route("/v1/messages", messages, methods=["POST"]),
        Route("/_timings", recorded_timings, methods=["GET"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


def _client_key(request: Request) -> str | None:
    authorization = request.headers.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        return authorization[7:]
    return request.headers.get("x-api-key")


def _policies(config: GatewayConfig, body: dict[str, Any]) -> dict[str, Any]:
    """Translation options for a request: its tools, and the policies when it has some. A
    request without tools, or with ``tool_choice="none"``, was offered no tool, so its text
    stays text."""
    tools = body.get("tools")
    if not tools or body.get("tool_choice") == "none":
        return {}
    return {
        "text_formats": config.text_formats,
        "tools": tools,
        "release": config.release,
        "unknown_tools": config.unknown_tools,
    }


def _unreachable(error: httpx.HTTPError, target: Target) -> Response:
    message = f"upstream unreachable: {type(error).__name__}: {error}"
    logger.warning(message)
    if target == "openai":
        body: dict[str, Any] = {"error": {"message": message, "type": "upstream_error"}}
    else:
        body = {"type": "error", "error": {"type": "api_error", "message": message}}
    return JSONResponse(body, status_code=502)


async def _upstream_error(upstream: httpx.Response, target: Target) -> Response:
    content = await upstream.aread()
    await upstream.aclose()
    if target == "openai":
        return Response(content, status_code=upstream.status_code, media_type="application/json")
    message = content.decode("utf-8", "replace")
    error = {"type": "error", "error": {"type": "api_error", "message": message}}
    return JSONResponse(error, status_code=upstream.status_code)


async def _whole(
    upstream: httpx.Response, target: Target, options: dict[str, Any], body: dict[str, Any]
) -> Response:
    accumulator = toolwire.OpenAIStreamAccumulator(**options)
    try:
        async for line in upstream.aiter_lines():
            if line.startswith("data:"):
                accumulator.feed(line)
    finally:
        await upstream.aclose()
    accumulator.finish()
    _log_invalid(accumulator.invalid_calls)
    reply = _openai_body if target == "openai" else _anthropic_body
    return JSONResponse(reply(accumulator, body.get("model")))


def _log_invalid(invalid_calls: list[toolwire.InvalidToolCall]) -> None:
    for invalid in invalid_calls:
        logger.warning("call not sent to the client: %s; raw text %r", invalid.error, invalid.raw)


def _openai_body(accumulator: Any, model: str | None) -> dict[str, Any]:
    calls = accumulator.calls
    content = accumulator.content or None
    if calls:
        message = toolwire.encode_calls(calls, "openai", content=content)
    else:
        message = {"role": "assistant", "content": content or ""}
    if accumulator.reasoning:
        message["reasoning_content"] = accumulator.reasoning
    usage = accumulator.usage or {}
    prompt, completion = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
    return {
        "id": accumulator.response_id or f"chatcmpl-{toolwire.new_call_id()[5:]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": accumulator.model or model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": accumulator.finish_reason or "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def _anthropic_body(accumulator: Any, model: str | None) -> dict[str, Any]:
    message = toolwire.encode_calls(
        accumulator.calls, "anthropic", content=accumulator.content or None
    )
    blocks = message["content"] if isinstance(message["content"], list) else []
    if accumulator.reasoning:
        blocks.insert(0, {"type": "thinking", "thinking": accumulator.reasoning, "signature": ""})
    usage = accumulator.usage or {}
    return {
        "id": f"msg_{(accumulator.response_id or toolwire.new_call_id()[5:])}",
        "type": "message",
        "role": "assistant",
        "model": accumulator.model or model,
        "content": blocks,
        "stop_reason": STOP_REASONS.get(accumulator.finish_reason or "stop", "end_turn"),
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage.get("input_tokens", 0),
            "output_tokens": usage.get("output_tokens", 0),
        },
    }
