"""The exception hierarchy (docs/errors.md). Everything toolwire raises on bad input is a
:class:`ToolwireError`, itself a :class:`ValueError`."""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "ArgumentsError",
    "JSONDecodeError",
    "ProviderFormatError",
    "ToolCallParseError",
    "ToolDefinitionError",
    "ToolValidationError",
    "ToolwireError",
]


class ToolwireError(ValueError):
    """Base class of every error toolwire raises on bad input."""


class ToolCallParseError(ToolwireError):
    """A tool call could not be parsed: ``message`` says what was wrong and where.

    Attributes: ``protocol`` (e.g. ``"text_tagged"``), ``index`` (which call of the response),
    ``offset`` (character offset into the text, or None for structured input), ``raw`` (the
    text of the bad call) and ``name`` (the tool name, if it could be read).
    """

    def __init__(
        self,
        message: str,
        *,
        protocol: str = "",
        index: int = 0,
        offset: int | None = None,
        raw: str = "",
        name: str | None = None,
    ) -> None:
        super().__init__(message)
        self.protocol = protocol
        self.index = index
        self.offset = offset
        self.raw = raw
        self.name = name

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.args, self.__dict__))


class ArgumentsError(ToolCallParseError):
    """The arguments of a call were not a JSON object or not valid JSON (docs/parsing.md).

    A :class:`ToolCallParseError`: ``message``, ``protocol``, ``index``, ``offset``, ``raw`` and
    ``name`` as there.
    """


class ProviderFormatError(ToolwireError):
    """A provider body or message does not have the expected shape (``message`` says how).

    ``path`` says where, e.g. ``choices[0].message.tool_calls[2].function``.
    """

    def __init__(self, message: str, *, path: str = "") -> None:
        super().__init__(message)
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.args, self.__dict__))


class ToolDefinitionError(ToolwireError):
    """A tool definition is unusable (e.g. it has no string ``name``)."""


class ToolValidationError(ToolwireError):
    """Arguments do not satisfy the tool's JSON Schema: ``message`` sums it up, ``tool`` names
    the tool and ``errors`` lists one message per problem."""

    def __init__(
        self, message: str, *, tool: str | None = None, errors: list[str] | None = None
    ) -> None:
        super().__init__(message)
        self.tool = tool
        self.errors = list(errors or [])

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.args, self.__dict__))


class JSONDecodeError(ToolwireError, json.JSONDecodeError):
    """Invalid JSON given to :func:`toolwire.loads`; also a :class:`json.JSONDecodeError`,
    so code written for :func:`json.loads` keeps working: ``msg`` says what was wrong, ``doc``
    is the text and ``pos`` the character offset (``lineno`` and ``colno`` follow from them)."""

    def __init__(self, msg: str, doc: str, pos: int) -> None:
        json.JSONDecodeError.__init__(self, msg, doc, pos)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.msg, self.doc, self.pos))


def _rebuild(
    cls: type[BaseException], args: tuple[Any, ...], state: dict[str, Any]
) -> BaseException:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error
