"""The provider codecs (docs/codecs.md), one module per wire family; :data:`CODECS` maps each
provider name to its codec."""

from __future__ import annotations

from .anthropic import Anthropic
from .base import Codec, Provider
from .chat import Ollama, OpenAIChat
from .gemini import Gemini
from .responses import OpenAIResponses

__all__ = ["CODECS", "PROVIDERS"]

PROVIDERS: tuple[Provider, ...] = ("openai", "openai_responses", "anthropic", "ollama", "gemini")

CODECS: dict[str, Codec] = {
    codec.name: codec
    for codec in (OpenAIChat(), OpenAIResponses(), Anthropic(), Ollama(), Gemini())
}
