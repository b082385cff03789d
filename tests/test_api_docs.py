"""What `help()` shows is complete, and the stubs' `Literal` types are the values the Rust side
accepts.

Every public callable (`toolwire.__all__`: functions, classes and their public methods) has a
docstring that names each of its parameters. Every `Literal` alias of the native module's stubs
(`_toolwire.pyi`), and the format names, equal what the Rust side accepts: each value is
accepted, and a value outside the set is refused with a message listing exactly the set."""

from __future__ import annotations

import ast
import inspect
import re
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import toolwire
from toolwire import _format_names

STUBS = Path(toolwire.__file__).with_name("_toolwire.pyi")
UNNAMED = {"self", "cls", "args", "kwargs"}


def public_callables() -> list[tuple[str, Callable[..., Any]]]:
    """(qualified name, object) for every public function, class and public method."""
    found: list[tuple[str, Callable[..., Any]]] = []
    for name in toolwire.__all__:
        obj = getattr(toolwire, name)
        if not callable(obj) or typing.get_origin(obj) is typing.Literal:
            continue
        found.append((name, obj))
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or isinstance(member, property):
                    continue
                if isinstance(member, (classmethod, staticmethod)):
                    member = getattr(obj, attr)
                if callable(member) and not inspect.isclass(member):
                    found.append((f"{name}.{attr}", member))
    return found


def parameters(obj: Callable[..., Any]) -> list[str]:
    try:
        signature = inspect.signature(obj)
    except ValueError:  # a builtin without a text signature
        return []
    return [p for p in signature.parameters if p not in UNNAMED and not p.startswith("_")]


def own_doc(obj: Callable[..., Any]) -> str:
    """The docstring `help()` shows for `obj` (for a class: the class's own)."""
    return inspect.getdoc(obj) or ""


CALLABLES = public_callables()


@pytest.mark.parametrize(("name", "obj"), CALLABLES, ids=[name for name, _ in CALLABLES])
def test_docstring_names_every_parameter(name: str, obj: Callable[..., Any]) -> None:
    doc = own_doc(obj)
    assert doc, f"{name} has no docstring"
    missing = [p for p in parameters(obj) if not re.search(rf"\b{re.escape(p)}\b", doc)]
    assert not missing, f"{name}'s docstring does not name {missing}"


def test_signatures_are_visible() -> None:
    """Every public function has a signature `help()` can show (native ones included)."""
    for _, obj in CALLABLES:
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            continue
        inspect.signature(obj)  # raises ValueError for a builtin without one


# --- Literal sets -------------------------------------------------------------------------


def stub_literals() -> dict[str, set[str]]:
    """Every module-level `Name = Literal[...]` (or union of them) of the native module's stubs."""
    tree = ast.parse(STUBS.read_text(encoding="utf-8"))
    aliases: dict[str, set[str]] = {}

    def values(node: ast.expr) -> set[str] | None:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            left, right = values(node.left), values(node.right)
            return None if left is None or right is None else left | right
        if isinstance(node, ast.Name):
            return aliases.get(node.id)
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) == "Literal":
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return {ast.literal_eval(item) for item in items}
        return None

    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name) and (found := values(statement.value)) is not None:
                aliases[target.id] = found
    return aliases


def is_refused(probe: Callable[[Any], object], value: str) -> str | None:
    """The message of the `ValueError` (not a `ToolwireError`, which is about the input) that
    `probe(value)` raises for a refused value; None when the value is accepted."""
    try:
        probe(value)
    except toolwire.ToolwireError:
        return None
    except ValueError as error:
        return str(error)
    return None


def listed_choices(message: str) -> set[str]:
    """The quoted choices of a `... must be 'a', 'b' or 'c', not ...` message."""
    return set(re.findall(r"'([^']*)'", message.split(", not ")[0]))


TOOLS = [{"name": "f", "parameters": {"type": "object"}}]

PROBES: dict[str, Callable[[Any], object]] = {
    "ErrorPolicy": lambda v: toolwire.extract("x", on_error=v),
    "RawJsonMode": lambda v: toolwire.extract("x", raw_json=v),
    "Provider": lambda v: toolwire.extract_batch(["{}"], provider=v),
    "StreamProvider": lambda v: toolwire.StreamEncoder(v),
    "Release": lambda v: toolwire.StreamParser(tools=TOOLS, release=v),
    "UnknownTools": lambda v: toolwire.StreamParser(tools=TOOLS, unknown_tools=v),
    "FinishReason": lambda v: toolwire.StreamEncoder("openai").finish(finish_reason=v),
}


def format_probe(value: Any) -> object:
    return toolwire.extract("x", formats=[value])


def test_every_stub_literal_is_checked() -> None:
    assert set(stub_literals()) == set(PROBES)


@pytest.mark.parametrize("alias", sorted(PROBES))
def test_stub_literal_is_what_rust_accepts(alias: str) -> None:
    declared = stub_literals()[alias]
    probe = PROBES[alias]
    for value in declared:
        assert is_refused(probe, value) is None, f"{alias}: {value!r} is refused"
    message = is_refused(probe, "no such value")
    assert message is not None, f"{alias}: any value is accepted"
    assert listed_choices(message) == declared, message


def test_format_literals_are_what_rust_accepts() -> None:
    names = set(typing.get_args(_format_names.ProtocolName)) | set(
        typing.get_args(toolwire.FormatName)
    )
    message = is_refused(format_probe, "no such format")
    assert message is not None
    assert listed_choices(message) == names == set(toolwire.FORMAT_NAMES)
    aliases = set(typing.get_args(_format_names.FormatAlias))
    assert aliases == set(toolwire.FORMAT_ALIASES)
    for value in names | aliases:
        assert is_refused(format_probe, value) is None, value
    parts = typing.get_args(_format_names.AnyFormatName)
    assert {v for part in parts for v in typing.get_args(part)} == names | aliases


def test_codec_providers_are_the_stream_providers() -> None:
    """The codecs' `Provider` (no "auto") is the stubs' `StreamProvider`, and `PROVIDERS`."""
    assert set(typing.get_args(toolwire.Provider)) == stub_literals()["StreamProvider"]
    assert set(toolwire.PROVIDERS) == stub_literals()["StreamProvider"]
    assert stub_literals()["Provider"] == {"auto", *toolwire.PROVIDERS}
