"""The format names Python sees come from the Rust registry, and the stubs agree with them."""

from __future__ import annotations

import typing

import pytest
import toolwire
from toolwire._format_names import ProtocolName


def test_formats_are_the_registry_and_the_literal_type() -> None:
    assert toolwire.FORMATS == typing.get_args(toolwire.FormatName)
    assert len(set(toolwire.FORMATS)) == len(toolwire.FORMATS)
    for alias, name in toolwire.FORMAT_ALIASES.items():
        # An alias names a format, or (an alias of a set) several names, or a protocol (the
        # SGLang gateway's `json`, which is raw JSON).
        if isinstance(name, tuple):
            protocol = len(name) == 1 and name[0] in typing.get_args(ProtocolName)
            assert (len(name) > 1 or protocol) and set(name) <= set(toolwire.FORMAT_NAMES)
        else:
            # A format, or a protocol (llama.cpp's `generic` is `llamacpp_generic`).
            assert name in toolwire.FORMAT_NAMES
        assert alias not in toolwire.FORMAT_NAMES


@pytest.mark.parametrize("name", toolwire.FORMATS)
def test_every_format_name_is_accepted_everywhere(name: str) -> None:
    assert toolwire.extract("plain prose", formats=[name]) == []
    assert toolwire.parse_text("plain prose", format=name).content == "plain prose"
    parser = toolwire.StreamParser(formats=[name])
    assert [e.kind for e in parser.feed("plain prose") + parser.finish()] == ["text_delta"]


def test_aliases_name_their_format() -> None:
    text = (
        "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json"
        '<|message|>{"a": 1}<|call|>'
    )
    expected = toolwire.parse_text(text, format="harmony").calls
    for alias in ("openai", "gpt_oss", "GPT-OSS"):
        assert toolwire.parse_text(text, format=alias).calls[0].arguments == {"a": 1}
        assert toolwire.extract(text, formats=[alias])[0].name == expected[0].name
    known = "format must be one of 'text_tagged', 'raw_json', 'llamacpp_generic', 'hermes', "
    with pytest.raises(ValueError, match=known):
        toolwire.extract("x", formats=["nope"])
