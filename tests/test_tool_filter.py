"""ToolFilter: the SmartHopper grammar rule by rule, then the extensions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolwire import ToolFilter

NAMES = ["script_new", "script_edit", "web_get", "gh_pr", "gh_issue", "files"]


def allowed(spec: str | None, names: list[str] = NAMES) -> list[str]:
    f = ToolFilter(spec)
    return [n for n in names if f.allows(n)]


@pytest.mark.parametrize("spec", [None, "", "   ", ",", " , ,"])
def test_empty_or_none_allows_everything(spec: str | None) -> None:
    assert allowed(spec) == NAMES
    assert ToolFilter(spec).allows_all


def test_star_allows_everything() -> None:
    assert allowed("*") == NAMES


@pytest.mark.parametrize("spec", ["-*", "* -*", "-* *", "script_new,-*", "+files -* web_get"])
def test_minus_star_anywhere_beats_everything(spec: str) -> None:
    assert allowed(spec) == []
    assert str(ToolFilter(spec)) == "-*"


def test_excludes_only_means_all_but_those() -> None:
    assert allowed("-web_get") == [n for n in NAMES if n != "web_get"]
    assert allowed("-web_get -files") == ["script_new", "script_edit", "gh_pr", "gh_issue"]


def test_includes_restrict_and_excludes_win() -> None:
    assert allowed("script_new, web_get") == ["script_new", "web_get"]
    assert allowed("script_new web_get -web_get") == ["script_new"]


def test_tokens_compare_case_insensitively() -> None:
    assert allowed("SCRIPT_NEW") == ["script_new"]
    assert ToolFilter("script_new").allows("Script_New")
    assert not ToolFilter("-WEB_GET").allows("web_get")


@pytest.mark.parametrize(
    "spec",
    [
        "script_new,web_get",
        "script_new web_get",
        " script_new ,\tweb_get\n",
        "web_get,,script_new",
        "script_new\tweb_get",
        "script_new\r\nweb_get",
        "\tscript_new,\tweb_get\t",
    ],
)
def test_commas_and_any_whitespace_separate_tokens(spec: str) -> None:
    assert allowed(spec) == ["script_new", "web_get"]


def test_a_tab_separates_excludes_too() -> None:
    # SmartHopper splits on ',', ' ', '\t', '\r' and '\n'.
    assert allowed("*\t-web_get\t-files") == ["script_new", "script_edit", "gh_pr", "gh_issue"]
    assert str(ToolFilter("b\ta\t-c")) == "a,b -c"


def test_double_minus_excludes_a_name_starting_with_minus() -> None:
    names = ["-a", "a"]
    assert allowed("--a", names) == ["a"]
    assert allowed("-a", names) == ["-a"]
    assert allowed("+-a", names) == ["-a"]


def test_plus_is_an_include() -> None:
    assert allowed("+web_get") == ["web_get"]
    assert ToolFilter("+web_get") == ToolFilter("web_get")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("script_*", ["script_new", "script_edit"]),
        ("gh_?", []),
        ("gh_??", ["gh_pr"]),
        ("* -gh_*", ["script_new", "script_edit", "web_get", "files"]),
        ("-script_* -gh_*", ["web_get", "files"]),
        ("[fw]*", ["web_get", "files"]),
        ("*_e*", ["script_edit"]),
    ],
)
def test_globs(spec: str, expected: list[str]) -> None:
    assert allowed(spec) == expected


def test_name_or_category_matches() -> None:
    f = ToolFilter("web")
    assert f.allows("fetch", category="web")
    assert f.allows("web", category="io")
    assert not f.allows("fetch", category="io")
    assert not f.allows("fetch")
    # An exclude hits by category too, and wins over an include by name.
    g = ToolFilter("fetch, io -web")
    assert not g.allows("fetch", category="web")
    assert g.allows("read", category="IO")
    assert ToolFilter("gh_*").allows("pr", category="gh_write")


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        (None, "*"),
        ("", "*"),
        ("*", "*"),
        ("* script_new", "*"),
        ("-*", "-*"),
        ("-b -A", "* -A -b"),
        ("* -b, -a -b", "* -a -b"),
        ("B, a -c", "a,B -c"),
        ("b a a +A", "a,b"),
        ("web_*, -web_post gh_?", "gh_?,web_* -web_post"),
        ("+-a --b", "+-a --b"),
        # SmartHopper's rules: spelling kept, sorted ignoring case with "_" after letters.
        ("b,A -z -_x", "A,b -z -_x"),
        ("Script_New web_Get", "Script_New,web_Get"),
        ("a_b ab a1 A", "A,a1,ab,a_b"),
        ("* -Web_* -web_post", "* -Web_* -web_post"),
        ("Gh_Pr gh_pr GH_PR", "Gh_Pr"),
    ],
)
def test_canonical_form(spec: str | None, canonical: str) -> None:
    f = ToolFilter(spec)
    assert str(f) == canonical
    assert ToolFilter(str(f)) == f
    assert repr(f) == f"ToolFilter({canonical!r})"


def test_filters_differing_only_in_case_are_equal() -> None:
    assert ToolFilter("A -B") == ToolFilter("a -b")
    assert hash(ToolFilter("A -B")) == hash(ToolFilter("a -b"))
    assert str(ToolFilter("A -B")) != str(ToolFilter("a -b"))
    assert ToolFilter("a") != ToolFilter("a -b")


def test_accepts_token_lists_and_filters() -> None:
    assert ToolFilter(["a", "-b"]) == ToolFilter("a -b")
    f = ToolFilter("x,y")
    assert ToolFilter(f) == f and hash(ToolFilter(f)) == hash(f)


TOKEN = st.from_regex(r"[-+]{0,2}[a-cA-C_*?]{1,3}", fullmatch=True)


@given(st.lists(TOKEN, max_size=6), st.text("abcAB_", min_size=1, max_size=4))
def test_canonical_form_reads_back_to_the_same_decisions(tokens: list[str], name: str) -> None:
    f = ToolFilter(" ".join(tokens))
    again = ToolFilter(str(f))
    assert str(again) == str(f)
    assert again == f
    assert again.allows(name) == f.allows(name)
    assert again.allows(name, category="c") == f.allows(name, category="c")
