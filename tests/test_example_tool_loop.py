"""examples/tool_loop.py runs offline and does what its docstring says."""

from __future__ import annotations

import runpy
import subprocess
import sys

import pytest
from support import ROOT

EXAMPLE = ROOT / "examples" / "tool_loop.py"


def test_example_runs_as_a_script() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=60, check=True
    )
    assert "stopped: final after 3 provider calls" in done.stdout
    assert '<- {"city":"Oslo","temperature":4.5}' in done.stdout
    assert "<- 1150.00 NOK" in done.stdout
    assert "~ Lisbon 66.2 °F; " in done.stdout  # the streamed answer, as it arrived


@pytest.mark.parametrize("provider_format", ["openai", "anthropic", "ollama"])
def test_example_loop_in_every_format(provider_format: str) -> None:
    main = runpy.run_path(str(EXAMPLE))["main"]
    result = main(provider_format)
    assert result.stopped_reason == "final" and result.provider_calls == 3
    assert [c.name for c in result.tool_calls] == ["get_weather", "get_weather", "convert_currency"]
    assert [r.content for r in result.tool_results] == [
        '{"city":"Oslo","temperature":4.5}',
        '{"city":"Lisbon","temperature":66.2}',
        "1150.00 NOK",
    ]
    assert not any(r.is_error for r in result.tool_results)
    streamed = ["Oslo is 4.5 °C, ", "Lisbon 66.2 °F; ", "100 EUR is 1150.00 NOK."]
    assert result.final_response == streamed  # a stream's last response: its items
    roles = [m["role"] for m in result.messages]
    if provider_format == "anthropic":
        assert roles == ["user", "assistant", "user", "assistant", "user", "assistant"]
    else:
        assert roles == ["user", "assistant", "tool", "tool", "assistant", "tool", "assistant"]
