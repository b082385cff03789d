"""Provider codecs over the corpus: toolwire against the plain-Python mapping in `plain_codecs.py`,
in the same run. Target: decode of OpenAI bodies (string arguments) at least 3x faster.

Run: ``python benches/report.py -k codecs`` (after ``maturin develop --release``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import plain_codecs
import pytest
import toolwire
from bench_data import corpus_cases

CASES = corpus_cases()
BODIES = {p: [case["wire"][p] for case in CASES] for p in ("openai", "anthropic", "ollama")}
# The same number of decodes over 100 bodies: they stay in the CPU caches, as a body a gateway
# has just parsed does. Over all 2327 bodies (megabytes of Python objects) every body is read
# from memory, a wait that toolwire and the baseline share; the two groups show how much.
HOT_BODIES = {p: bodies[:100] * (len(bodies) // 100) for p, bodies in BODIES.items()}
CALLS = [toolwire.decode_tool_calls(body, "openai") for body in BODIES["openai"]]


def _tuples(calls: list[Any], ids: bool = True) -> list[tuple[Any, ...]]:
    return [(c.id if ids else None, c.name, c.arguments) for c in calls]


@pytest.mark.parametrize("bodies_in_cache", [False, True], ids=["all_bodies", "bodies_in_cache"])
@pytest.mark.parametrize("provider", ["openai", "anthropic", "ollama"])
@pytest.mark.parametrize("impl", ["toolwire", "plain"])
def test_decode_tool_calls(benchmark: Any, provider: str, impl: str, bodies_in_cache: bool) -> None:
    if bodies_in_cache:
        benchmark.group = f"decode_tool_calls {provider}, 100 bodies in cache"
        bodies = HOT_BODIES[provider]
    else:
        benchmark.group = f"decode_tool_calls {provider}"
        bodies = BODIES[provider]
    decode: Callable[[Any], list[Any]]
    if impl == "toolwire":
        decode_tool_calls = toolwire.decode_tool_calls

        def decode(body: Any) -> list[Any]:
            return decode_tool_calls(body, provider)
    else:
        decode = plain_codecs.DECODERS[provider]

    # Warm-up rounds: the first pass allocates fresh memory for its results (page faults), a cost
    # that falls on whichever implementation runs first in the process.
    out = benchmark.pedantic(lambda: [decode(body) for body in bodies], rounds=60, warmup_rounds=3)
    ids = provider != "ollama"  # generated ids differ between the two
    expected = [_tuples(plain_codecs.DECODERS[provider](b), ids) for b in bodies]
    assert [_tuples(calls, ids) for calls in out] == expected


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("impl", ["toolwire", "plain"])
def test_encode_calls(benchmark: Any, provider: str, impl: str) -> None:
    benchmark.group = f"encode_calls {provider}"
    encode: Callable[[list[Any]], Any]
    if impl == "toolwire":
        encode_calls = toolwire.encode_calls

        def encode(calls: list[Any]) -> Any:
            return encode_calls(calls, provider)  # type: ignore[arg-type]
    else:
        encode = plain_codecs.ENCODERS[provider]

    out = benchmark(lambda: [encode(calls) for calls in CALLS])
    assert out == [plain_codecs.ENCODERS[provider](calls) for calls in CALLS]
