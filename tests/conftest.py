"""Hypothesis profiles: a fast default; TOOLWIRE_HYPOTHESIS=slow for a thorough run. Python's
own Ctrl-C handling, whatever the suite was started from."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "fast", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "slow", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("TOOLWIRE_HYPOTHESIS", "fast"))

# A shell without job control starts its background commands with SIGINT ignored, which
# Python then leaves ignored (and the CLI processes the tests start inherit): the Ctrl-C tests
# need KeyboardInterrupt as an interactive run has it.
signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="module")
def cluster_client() -> Iterator[Any]:
    """A two-worker Dask ``distributed.LocalCluster`` (one process per core), for one module:
    a client left running calls the collector from its own thread, which other tests watch."""
    pytest.importorskip("dask.dataframe", reason="the dask extra is not installed")
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


# The engine group (vLLM, SGLang) runs in a process of its own (scripts/check.sh): it puts
# stand-ins for torch and triton in sys.modules. `pytest tests/engines` runs it directly.
collect_ignore = ["engines"]
