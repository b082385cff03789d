"""The example gateway's modules (examples/gateway, run as scripts there), and servers on
127.0.0.1 for its tests: an ASGI app under a real uvicorn server in a background thread."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from support import ROOT

sys.path.insert(0, str(ROOT / "examples" / "gateway"))

from fake_upstream import PROMPT_TOKENS, create_upstream
from gateway import GatewayConfig, create_app
from messages_request import chat_request

__all__ = [
    "PROMPT_TOKENS",
    "GatewayConfig",
    "chat_request",
    "create_app",
    "create_upstream",
    "serving",
]


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve ``app`` on a free loopback port for the block; yields its base URL."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
