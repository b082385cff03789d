"""Which tools a request may use (SPEC §11): the SmartHopper tool-filter grammar, with globs."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable

__all__ = ["ToolFilter"]


class ToolFilter:
    """A tool filter such as ``"*"``, ``"-*"``, ``"script_*, -script_delete"`` or ``"web -gh_?"``.

    Tokens are split on commas and whitespace and compared case-insensitively. ``x`` or ``+x``
    includes, ``-x`` excludes (only the first ``-`` is the operator: ``--a`` excludes ``-a``),
    ``*`` includes everything and ``-*`` anywhere excludes everything. With no include token
    every tool is included. Tokens may be glob patterns (``*``, ``?``, ``[abc]``), and a tool
    passes a token when its name **or** its category matches. Excludes win over includes.

    >>> f = ToolFilter("script_*, -script_delete")
    >>> f.allows("script_new"), f.allows("script_delete"), f.allows("web_get")
    (True, False, False)
    >>> ToolFilter("-gh_pr").allows("files", category="io")
    True
    >>> ToolFilter("web").allows("fetch_url", category="Web")
    True
    >>> str(ToolFilter("B +a, b -Z -y")), str(ToolFilter("-x")), str(ToolFilter("* -*"))
    ('a,b -y -z', '* -x', '-*')
    """

    __slots__ = ("_excludes", "_includes", "_none", "_patterns")

    def __init__(self, spec: str | Iterable[str] | ToolFilter | None = None) -> None:
        if isinstance(spec, ToolFilter):
            tokens: list[str] = [str(spec)]
        elif spec is None:
            tokens = []
        elif isinstance(spec, str):
            tokens = [spec]
        else:
            tokens = list(spec)
        includes: set[str] = set()
        excludes: set[str] = set()
        for chunk in tokens:
            for token in re.split(r"[,\s]+", chunk.casefold()):
                if token.startswith("-"):
                    excludes.add(token[1:])
                elif token.startswith("+"):
                    includes.add(token[1:])
                else:
                    includes.add(token)
        includes.discard("")
        excludes.discard("")
        self._none = "*" in excludes
        if "*" in includes or not includes:
            includes = {"*"}
        self._includes = tuple(sorted(includes))
        self._excludes = tuple(sorted(excludes))
        self._patterns = {
            p: re.compile(fnmatch.translate(p)).match for p in (*self._includes, *self._excludes)
        }

    def allows(self, name: str, category: str | None = None) -> bool:
        """Whether a tool with this name (and optional category) passes the filter."""
        if self._none:
            return False
        keys = [name.casefold()] if category is None else [name.casefold(), category.casefold()]
        if any(self._patterns[p](k) for p in self._excludes for k in keys):
            return False
        return any(self._patterns[p](k) for p in self._includes for k in keys)

    @property
    def allows_all(self) -> bool:
        """True for ``*`` (no restriction at all)."""
        return not self._none and self._includes == ("*",) and not self._excludes

    def __str__(self) -> str:
        """The canonical form: ``-*``; ``*``; ``* -a -b``; ``a,b -c`` (lower case, each part
        sorted, duplicates removed). ``ToolFilter(str(f)) == f`` always holds."""
        if self._none:
            return "-*"
        # An include that itself starts with an operator keeps a "+" so it reads back the same.
        includes = ",".join(f"+{p}" if p[0] in "+-" else p for p in self._includes)
        return " ".join([includes, *(f"-{p}" for p in self._excludes)])

    def __repr__(self) -> str:
        return f"ToolFilter({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolFilter) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))
