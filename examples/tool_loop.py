"""A tool loop against a scripted fake provider: no network, no API key.

The "model" first writes its calls as ``~~~tool_call`` blocks in plain text (as weak or
prompt-augmented models do, even when the provider supports native calls), then answers with
native OpenAI ``tool_calls``, then streams its final answer as text. toolwire finds the calls
either way, validates and runs them, reports the streamed text as it arrives, and keeps the
conversation in the provider's wire format.

Run: ``python examples/tool_loop.py [openai|anthropic|ollama|gemini|openai_responses]``
"""

from __future__ import annotations

import json
import sys
from typing import Any, Literal

from toolwire import (
    LoopResult,
    Provider,
    TextDelta,
    ToolCall,
    ToolRegistry,
    ToolResult,
    run_tool_loop,
)

registry = ToolRegistry(filter="*")

TEMPERATURES = {"oslo": 4.5, "lisbon": 19.0}


@registry.tool(category="weather")
def get_weather(city: str, unit: Literal["c", "f"] = "c") -> dict[str, Any]:
    """Current temperature of a city.

    Args:
        city: City name, e.g. "Oslo".
        unit: Celsius or Fahrenheit.
    """
    celsius = TEMPERATURES[city.casefold()]
    return {"city": city, "temperature": celsius if unit == "c" else celsius * 9 / 5 + 32}


@registry.tool
def convert_currency(amount: float, source: str, target: str) -> str:
    """Convert money between currencies (fixed demo rates)."""
    rates = {("EUR", "NOK"): 11.5, ("NOK", "EUR"): 1 / 11.5}
    return f"{amount * rates[(source, target)]:.2f} {target}"


def scripted_provider() -> Any:
    """Answers like a model would: text-tagged calls, then native calls, then a final answer."""
    answers: list[Any] = [
        "Let me check both cities.\n"
        "~~~tool_call\n"
        '{"name": "get_weather", "arguments": {"city": "Oslo"}}\n'
        "~~~\n"
        "~~~tool_call\n"
        '{"name": "get_weather", "arguments": {"city": "Lisbon", "unit": "f"}}\n'
        "~~~\n",
        {
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_fx1",
                                "type": "function",
                                "function": {
                                    "name": "convert_currency",
                                    "arguments": json.dumps(
                                        {"amount": 100, "source": "EUR", "target": "NOK"}
                                    ),
                                },
                            }
                        ],
                    },
                }
            ]
        },
        # The final answer, streamed as model text (a real provider streams it as it is written).
        lambda: iter(["Oslo is 4.5 °C, ", "Lisbon 66.2 °F; ", "100 EUR is 1150.00 NOK."]),
    ]
    turn = iter(answers)

    def provider(messages: list[Any]) -> Any:
        # A real provider would send `messages` and `registry.definitions(...)` to its API here.
        answer = next(turn)
        return answer() if callable(answer) else answer

    return provider


class PrintingObserver:
    def on_delta(self, event: object) -> None:
        if isinstance(event, TextDelta):
            print(f"~ {event.text}")

    def on_tool_call(self, call: ToolCall) -> None:
        print(f"-> {call.name}({json.dumps(call.arguments, ensure_ascii=False)})")

    def on_tool_result(self, call: ToolCall, result: ToolResult) -> None:
        print(f"<- {result.content}{'  [error]' if result.is_error else ''}")


def main(provider_format: Provider = "openai") -> LoopResult:
    result = run_tool_loop(
        scripted_provider(),
        [{"role": "user", "content": "Weather in Oslo and Lisbon, and 100 EUR in NOK?"}],
        registry,
        provider_format=provider_format,
        observer=PrintingObserver(),
    )
    print(f"stopped: {result.stopped_reason} after {result.provider_calls} provider calls")
    print(json.dumps(result.messages, indent=2, ensure_ascii=False))
    return result


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "openai")  # type: ignore[arg-type]
