"""A bounded local load test of examples/gateway: 200 concurrent streams against the fake
upstream, all on 127.0.0.1, through the gateway with toolwire and through the same gateway
passing chunks through untouched, in the same run.

Each stream is a recorded-style output of about 2.3 KB streamed in 4-character chunks (about
one token each, ~600 chunks): a sentence, then one call writing 2 KB of code (hermes or
qwen3_coder markup in ``content``, alternately), for the toolwire gateway to turn into native
``tool_calls`` deltas. Three processes (upstream, gateway, this client) share the machine.

Reported per gateway:
- **added latency per chunk**: the gateway's own time per upstream chunk, from the line
  arriving to its output being framed (recorded by the gateway, ``--record-timings``), p50/p99;
- **CPU per MB**: the gateway process's CPU seconds per MB of upstream stream read;
- the streams' wall time p50/p99 as the client sees them (the upstream and the client are
  the same for both gateways; the difference is the gateway's).

``python benches/gateway_load.py [--streams 200] [--waves 2]``: bounded to ``streams * waves``
requests and 300 s; exits 1 if a stream's calls come out wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from bench_data import write_file_call_in

ROOT = Path(__file__).parent.parent
GATEWAY = ROOT / "examples" / "gateway"
sys.path.insert(0, str(GATEWAY))
from fake_upstream import stream_chunks  # noqa: E402

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            },
        },
    }
]


def outputs() -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    texts, expected = {}, {}
    for name in ("hermes", "qwen3_coder"):
        text, _, arguments = write_file_call_in(name, 2048)
        texts[name], expected[name] = text, arguments
    return texts, expected


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(args: list[str], port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, *args], cwd=GATEWAY)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return process
        time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"{args[0]} did not start")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def one_stream(client: httpx.AsyncClient, url: str, name: str) -> tuple[float, int, Any]:
    body = {
        "model": "m",
        "stream": True,
        "messages": [{"role": "user", "content": f"replay {name}"}],
        "tools": TOOLS,
    }
    started = time.perf_counter()
    arguments: list[str] = []
    content: list[str] = []
    async with client.stream("POST", f"{url}/v1/chat/completions", json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if not line.startswith("data: {"):
                continue
            for choice in json.loads(line[6:])["choices"]:
                delta = choice["delta"]
                content.append(delta.get("content") or "")
                for call in delta.get("tool_calls") or ():
                    arguments.append(call["function"].get("arguments") or "")
    return time.perf_counter() - started, len(arguments), ("".join(arguments), "".join(content))


async def load(url: str, streams: int, waves: int) -> list[tuple[float, int, Any, str]]:
    names = ["hermes", "qwen3_coder"]
    limits = httpx.Limits(
        max_connections=None, max_keepalive_connections=streams, keepalive_expiry=2.0
    )
    results = []
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        for _ in range(waves):
            batch = [one_stream(client, url, names[i % 2]) for i in range(streams)]
            done = await asyncio.wait_for(asyncio.gather(*batch), timeout=300)
            results += [(*r, names[i % 2]) for i, r in enumerate(done)]
    return results


def percentile(values: list[float], q: float) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[q - 1]
        if len(values) > 1
        else values[0]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--waves", type=int, default=2)
    args = parser.parse_args()
    texts, expected = outputs()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        json.dump(texts, file)
    upstream_port = free_port()
    upstream = start(["fake_upstream.py", file.name, "--port", str(upstream_port)], upstream_port)
    upstream_bytes = {
        name: sum(len(f"data: {json.dumps(c)}\n\n") for c in stream_chunks(name, text, 4, "m"))
        for name, text in texts.items()
    }
    failed = False
    try:
        for label, extra in (("passthrough", ["--passthrough"]), ("toolwire", [])):
            port = free_port()
            gateway = start(
                [
                    "serve.py",
                    "--upstream",
                    f"http://127.0.0.1:{upstream_port}/v1",
                    "--port",
                    str(port),
                    "--record-timings",
                    *extra,
                ],
                port,
            )
            try:
                url = f"http://127.0.0.1:{port}"
                asyncio.run(load(url, 4, 1))  # warm-up
                httpx.get(f"{url}/_timings")
                cpu = cpu_seconds(gateway.pid)
                results = asyncio.run(load(url, args.streams, args.waves))
                cpu = cpu_seconds(gateway.pid) - cpu
                timings = [ns / 1000 for ns in httpx.get(f"{url}/_timings", timeout=60).json()]
            finally:
                gateway.terminate()
                gateway.wait(10)
            megabytes = sum(upstream_bytes[name] for *_, name in results) / 1e6
            if label == "toolwire":
                for _, _, (arguments, _), name in results:
                    if json.loads(arguments) != expected[name]:
                        failed = True
            walls = [wall * 1000 for wall, *_ in results]
            print(
                f"{label:12} streams {len(results)}  chunks {len(timings)}  "
                f"per chunk p50 {percentile(timings, 50):.1f} us "
                f"p99 {percentile(timings, 99):.1f} us  "
                f"CPU {cpu / megabytes:.2f} s/MB ({cpu:.1f} s for {megabytes:.1f} MB)  "
                f"stream wall p50 {percentile(walls, 50):.0f} ms p99 {percentile(walls, 99):.0f} ms"
            )
    finally:
        upstream.terminate()
        upstream.wait(10)
        os.unlink(file.name)
    if failed:
        print("a stream's calls came out wrong", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
