"""Which tools a request may use (docs/tools.md): the SmartHopper tool-filter grammar, with
globs."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable

__all__ = ["ToolFilter"]

# Commas and any whitespace (space, tab, line breaks) separate tokens.
_SEPARATORS = re.compile(r"[,\s]+")


class ToolFilter:
    """A tool filter such as ``"*"``, ``"-*"``, ``"script_*, -script_delete"`` or ``"web -gh_?"``.

    ``spec`` is the filter's text, its tokens as an iterable of strings, another
    :class:`ToolFilter` (copied), or None (every tool).

    Tokens are separated by commas, spaces, tabs and line breaks (any whitespace) and compared
    case-insensitively. ``x`` or ``+x`` includes, ``-x`` excludes (only the first ``-`` is the
    operator: ``--a`` excludes ``-a``), ``*`` includes everything and ``-*`` anywhere excludes
    everything. With no include token every tool is included. Tokens may be glob patterns
    (``*``, ``?``, ``[abc]``), and a tool passes a token when its name **or** its category
    matches. Excludes win over includes.

    >>> f = ToolFilter("script_*, -script_delete")
    >>> f.allows("script_new"), f.allows("script_delete"), f.allows("web_get")
    (True, False, False)
    >>> ToolFilter("-gh_pr").allows("files", category="io")
    True
    >>> ToolFilter("web").allows("fetch_url", category="Web")
    True
    >>> str(ToolFilter("b,A -z -_x")), str(ToolFilter("-x")), str(ToolFilter("* -*"))
    ('A,b -z -_x', '* -x', '-*')
    """

    __slots__ = ("_canonical", "_excludes", "_includes", "_none", "_patterns")

    def __init__(self, spec: str | Iterable[str] | ToolFilter | None = None) -> None:
        if isinstance(spec, ToolFilter):
            chunks: list[str] = [str(spec)]
        elif spec is None:
            chunks = []
        elif isinstance(spec, str):
            chunks = [spec]
        else:
            chunks = list(spec)
        includes: list[str] = []
        excludes: list[str] = []
        for chunk in chunks:
            for token in _SEPARATORS.split(chunk):
                if token.startswith("-"):
                    excludes.append(token[1:])
                else:
                    includes.append(token.removeprefix("+"))
        self._none = "*" in excludes
        if "*" in includes or not any(includes):
            includes = ["*"]
        self._includes = _sorted_unique(includes)
        self._excludes = _sorted_unique(excludes)
        self._patterns = {
            p: re.compile(fnmatch.translate(p.casefold())).match
            for p in (*self._includes, *self._excludes)
        }
        self._canonical = self._canonical_form()

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
        """The canonical form: ``-*``; ``*``; ``* -a -b``; ``a,b -c``. Each part is sorted
        case-insensitively as upper-case text sorts (so ``_`` comes after letters), a token
        repeated in another case is kept as first written, and each keeps its spelling:
        ``"b,A -z -_x"`` gives ``"A,b -z -_x"``. ``ToolFilter(str(f)) == f`` always holds."""
        return self._canonical

    def _canonical_form(self) -> str:
        if self._none:
            return "-*"
        # An include that itself starts with an operator keeps a "+" so it reads back the same.
        includes = ",".join(f"+{p}" if p[0] in "+-" else p for p in self._includes)
        return " ".join([includes, *(f"-{p}" for p in self._excludes)])

    def __repr__(self) -> str:
        return f"ToolFilter({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        """Filters are equal when they decide alike: their canonical forms match in any case."""
        return isinstance(other, ToolFilter) and self._canonical.casefold() == (
            other._canonical.casefold()
        )

    def __hash__(self) -> int:
        return hash(self._canonical.casefold())


def _sorted_unique(tokens: Iterable[str]) -> tuple[str, ...]:
    """Non-empty tokens without case-insensitive repeats (the first spelling is kept), sorted
    by their upper-case form (ordinal, ignoring case), then by spelling."""
    first: dict[str, str] = {}
    for token in tokens:
        if token:
            first.setdefault(token.casefold(), token)
    return tuple(sorted(first.values(), key=lambda token: (token.upper(), token)))
