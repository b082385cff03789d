"""The engine group: toolwire's adapters inside vLLM's and SGLang's real classes.

The engines are installed without their GPU stack (``scripts/install_engines.sh``); torch and
triton, which their import chains import but the tool parsers never run, are stand-ins from
``stubs/`` (see ``README.md`` here). Without the engines the group is skipped, unless
``TOOLWIRE_REQUIRE_ENGINES=1`` (CI), which makes their absence an error.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

ENGINES = ("vllm", "sglang")
_missing = [name for name in ENGINES if importlib.util.find_spec(name) is None]
if _missing and os.environ.get("TOOLWIRE_REQUIRE_ENGINES") == "1":
    raise pytest.UsageError(
        f"engine test group: {', '.join(_missing)} not installed (run scripts/install_engines.sh)"
    )
if _missing:
    collect_ignore_glob = ["test_*.py"]
else:
    if importlib.util.find_spec("torch") is None:
        sys.path.insert(0, str(Path(__file__).parent / "stubs"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the engines' import-time notices about missing GPU kits
        import toolwire.integrations.sglang
        import toolwire.integrations.vllm  # noqa: F401


@pytest.fixture(autouse=True)
def _never_calls_torch() -> Iterator[None]:
    """The parsers must not depend on the stand-ins: nothing calls torch or triton."""
    if "_placeholder" not in sys.modules:
        yield
        return
    calls = sys.modules["_placeholder"].CALLS
    before = len(calls)
    yield
    assert calls[before:] == [], "the tool parsers called into the torch/triton stand-ins"
