"""Hypothesis profiles: a fast default; TOOLWIRE_HYPOTHESIS=slow for a thorough run."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "fast", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "slow", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("TOOLWIRE_HYPOTHESIS", "fast"))

# The engine group (vLLM, SGLang) runs in a process of its own (scripts/check.sh): it puts
# stand-ins for torch and triton in sys.modules. `pytest tests/engines` runs it directly.
collect_ignore = ["engines"]
