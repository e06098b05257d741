"""Shared test setup: hypothesis profiles.

``default``: local runs. ``ci``: what .ci/run uses (HYPOTHESIS_PROFILE=ci); tests marked
``heavy`` scale their own budgets down through ``heavy_examples``.
"""
import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, max_examples=150,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, max_examples=100, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def heavy_examples(local: int, ci: int) -> int:
    """Example budget of a ``heavy`` property: smaller under CI."""
    return ci if os.environ.get("HYPOTHESIS_PROFILE") == "ci" else local
