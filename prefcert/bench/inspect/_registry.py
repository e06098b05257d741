"""The module Inspect loads through the ``inspect_ai`` entry point (pyproject.toml): it
registers one task per suite (``prefcert/<suite>``), the scorer, the metric and the
refinement solver under the ``prefcert/`` namespace."""
from .scorer import prefcert_scorer, suite_metrics
from .solver import refinement
from .tasks import TASKS

__all__ = ["TASKS", "prefcert_scorer", "refinement", "suite_metrics"]
