"""Declarative models (CP-SAT, z3, MILP) of the questions; not trusted.

:func:`cpsat_workers` is the number of CP-SAT search workers a solve uses. A CP-SAT
search with several workers is not reproducible (its witness can change from run to run),
so a solve uses one worker unless the application says its answer is a cross-check only
(:func:`cross_check`) — one whose solution cannot reach a label — and then the workers it
is allowed (:func:`set_cpsat_workers`; ``prefcert label`` allows each of its worker
processes its share of the cores).
"""
from __future__ import annotations

from contextlib import contextmanager

_WORKERS = {"allowed": 1, "now": 1}


def set_cpsat_workers(n: int) -> None:
    """Allow CP-SAT cross-check solves of this process ``n`` (≥ 1) search workers."""
    _WORKERS["allowed"] = max(1, int(n))


def cpsat_workers() -> int:
    """The CP-SAT search workers the current solve uses (1 unless in :func:`cross_check`)."""
    return _WORKERS["now"]


@contextmanager
def cross_check(on: bool = True):
    """Within this block (when ``on``), CP-SAT solves use the allowed workers: their
    answers only confirm a verdict another engine has already proven."""
    before = _WORKERS["now"]
    _WORKERS["now"] = _WORKERS["allowed"] if on else 1
    try:
        yield
    finally:
        _WORKERS["now"] = before
