"""What every installed copy shows: one version everywhere, and a CLI help that is plain text."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import toolwire
from support import ROOT


def cli(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "toolwire", *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def test_one_version_from_the_cargo_workspace() -> None:
    with (ROOT / "Cargo.toml").open("rb") as f:
        cargo = tomllib.load(f)["workspace"]["package"]["version"]
    assert toolwire.__version__ == cargo
    assert importlib.metadata.version("toolwire") == cargo
    assert cli("--version") == f"toolwire {cargo}\n"


def test_cli_help_is_plain_text() -> None:
    # reStructuredText that argparse would print as is: ``literal``, :role:`x`, `x`_.
    markup = re.compile(r"``|:[a-z]+:`|`_")
    for command in ((), ("extract",), ("convert",), ("prompt",)):
        text = cli(*command, "--help")
        assert "usage: toolwire" in text
        assert not markup.search(text), (command, text)


def test_one_extension_module_beside_the_package() -> None:
    # A version-specific build left beside the abi3 one (python/toolwire/ after an upgrade of
    # an editable install) would be imported instead of it: CPython tries that suffix first.
    extension = Path(toolwire._toolwire.__file__)
    found = sorted(p.name for p in extension.parent.glob("_toolwire.*") if p.suffix != ".pyi")
    assert found == [extension.name], f"remove the stale builds: {found}"
