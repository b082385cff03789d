"""The one wording of an argument that must be one of a few names (the binding's
``not_one_of`` words it the same way, in ``rust/python/src/input.rs``)."""

from __future__ import annotations

from typing import TypeVar

Name = TypeVar("Name", bound=str)


def check_one_of(what: str, value: object, choices: tuple[Name, ...]) -> Name:
    """``value``, typed as one of ``choices``; ``TypeError`` when it is not a ``str`` and
    ``ValueError`` when it is not among ``choices`` (``what`` names the argument)."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be str, not {type(value).__name__}")
    for choice in choices:
        if value == choice:
            return choice
    names = ", ".join(repr(name) for name in choices)
    raise ValueError(f"{what} must be one of {names}, not {value!r}")
