"""Run the gateway: ``python examples/gateway/serve.py --upstream http://127.0.0.1:8000/v1``.

OpenAI clients use ``http://HOST:PORT/v1`` as their base URL, Anthropic clients
``http://HOST:PORT``.
"""

from __future__ import annotations

import argparse

import uvicorn
from gateway import GatewayConfig, create_app


def main() -> None:
    parser = argparse.ArgumentParser(description="toolwire gateway (OpenAI and Anthropic APIs)")
    parser.add_argument("--upstream", required=True, help="upstream OpenAI base URL (…/v1)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--text-formats", default="auto", help="'auto' or comma-separated names")
    parser.add_argument("--release", default="eager", choices=["eager", "complete", "valid"])
    parser.add_argument("--unknown-tools", default="keep", choices=["keep", "invalid", "drop"])
    parser.add_argument("--api-key", help="the upstream's key (default: the client's)")
    parser.add_argument("--passthrough", action="store_true", help="no toolwire (baseline)")
    parser.add_argument("--record-timings", action="store_true", help="GET /_timings")
    args = parser.parse_args()
    formats = args.text_formats if args.text_formats == "auto" else args.text_formats.split(",")
    config = GatewayConfig(
        upstream=args.upstream.rstrip("/"),
        text_formats=formats,
        release=args.release,
        unknown_tools=args.unknown_tools,
        api_key=args.api_key,
        passthrough=args.passthrough,
        record_timings=args.record_timings,
    )
    uvicorn.run(create_app(config), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
