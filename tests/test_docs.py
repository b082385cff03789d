"""docs/formats.md's table is true: one row per name `formats=` accepts, each with the aliases
the registry gives it and an example that the format reads as the call it says; the README's
formats table names every format."""

from __future__ import annotations

import re

import pytest
import toolwire
from support import ROOT

FORMATS_PAGE = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")


def code_spans(cell: str) -> list[str]:
    """The code spans of a table cell, as Markdown reads them (a span opens and closes with the
    same number of backticks; one space inside each end is padding), with `\\|` unescaped."""
    spans = []
    for match in re.finditer(r"(`+)(.+?)(?<!`)\1(?!`)", cell):
        text = match.group(2)
        if text.startswith(" ") and text.endswith(" ") and text.strip():
            text = text[1:-1]
        spans.append(text.replace("\\|", "|"))
    return spans


def table_rows() -> dict[str, tuple[list[str], str]]:
    """name → (aliases, example) for every row of the formats table."""
    start = FORMATS_PAGE.index("| name | aliases |")
    rows = {}
    for line in FORMATS_PAGE[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = re.split(r"(?<!\\)\|", line)[1:-1]
        [name] = code_spans(cells[0])
        example = code_spans(cells[3])[0]  # a second span may show a variant
        assert name not in rows, f"{name} has two rows"
        rows[name] = (code_spans(cells[1]), example.replace("\\n", "\n"))
    return rows


ROWS = table_rows()


def test_every_format_has_one_row() -> None:
    assert list(ROWS) == list(toolwire.FORMAT_NAMES)


def test_the_readme_names_every_format() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Formats and providers")[1].split("Providers (")[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    named = {span for line in rows for span in code_spans(line.split("|")[1])}
    assert named == set(toolwire.FORMAT_NAMES)


@pytest.mark.parametrize("name", list(ROWS))
def test_row_aliases_are_the_registry_aliases(name: str) -> None:
    # An alias of a set of names is listed in the row of the first.
    registry = sorted(
        a
        for a, n in toolwire.FORMAT_ALIASES.items()
        if n == name or (isinstance(n, tuple) and n[0] == name)
    )
    assert sorted(ROWS[name][0]) == registry


@pytest.mark.parametrize("name", list(ROWS))
def test_row_example_is_read_by_its_format(name: str) -> None:
    example = ROWS[name][1]
    parsed = toolwire.parse_text(example, format=name)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("f", {"a": 1})], parsed
    assert [(c.name, c.arguments) for c in toolwire.extract(example)] == [("f", {"a": 1})]


def test_no_reference_to_an_unshipped_specification() -> None:
    """Docs, code and stubs refer to the docs pages, never to numbered sections of a
    specification the project does not ship."""
    folders = ["docs", "python", "rust/core", "rust/python", "rust/fuzz", "tests", "benches"]
    suffixes = {".md", ".py", ".pyi", ".rs", ".toml", ".sh"}
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in folders
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in suffixes and "target" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "\u00a7" in line
    ]
    found += [
        f"{name}:{number}"
        for name in ("README.md", "CHANGELOG.md")
        for number, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1)
        if "\u00a7" in line
    ]
    assert not found
