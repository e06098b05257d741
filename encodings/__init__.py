"""Declarative models (CP-SAT, z3, MILP) of the questions; not trusted.

Every CP-SAT solve gets its solver from :func:`cpsat_solver`, which leaves Ctrl-C to Python
(CP-SAT's own SIGINT handler would turn a Ctrl-C into a stopped search, and reset the
signal to its default action when the solve ends, so that a later Ctrl-C killed the
process without a word).

:func:`cpsat_workers` is the number of CP-SAT search workers a solve uses. A CP-SAT
search with several workers is not reproducible (its witness can change from run to run),
so a solve uses one worker unless the application says its answer is a cross-check only
(:func:`cross_check`) — one whose solution cannot reach a label — and then the workers it
is allowed (:func:`set_cpsat_workers`; ``prefcert label`` allows each of its worker
processes its share of the cores).
"""
from __future__ import annotations

from typing import Any

_WORKERS = {"allowed": 1, "now": 1, "cross_check": 0}


def set_cpsat_workers(n: int) -> None:
    """Allow CP-SAT cross-check solves of this process ``n`` (≥ 1) search workers."""
    _WORKERS["allowed"] = max(1, int(n))


def cpsat_workers() -> int:
    """The CP-SAT search workers the current solve uses (1 unless in :func:`cross_check`)."""
    return _WORKERS["now"]


def in_cross_check() -> bool:
    """Whether the engine running now only cross-checks a verdict another engine has
    already proven (inside an ``on`` :func:`cross_check` block): its solution and
    certificate cannot reach a label, only its verdict is recorded and compared."""
    return bool(_WORKERS["cross_check"])


class cross_check:
    """Within this block (when ``on``), CP-SAT solves use the allowed workers: their
    answers only confirm a verdict another engine has already proven. (A class, not a
    generator: the pipeline enters one around every engine it runs.)"""

    def __init__(self, on: bool = True) -> None:
        self.on = on

    def __enter__(self) -> None:
        self.before = _WORKERS["now"], _WORKERS["cross_check"]
        _WORKERS["now"] = _WORKERS["allowed"] if self.on else 1
        _WORKERS["cross_check"] = self.on

    def __exit__(self, *exc: object) -> None:
        _WORKERS["now"], _WORKERS["cross_check"] = self.before


def cpsat_solver(time_limit: float, seed: int, workers: int | None = None) -> Any:
    """A CP-SAT solver for one solve: ``time_limit`` seconds, ``seed``, ``workers`` search
    workers (None or 0: :func:`cpsat_workers`), and ``catch_sigint_signal`` off, so a Ctrl-C
    raises KeyboardInterrupt as anywhere else in Python. Imports OR-Tools on first use."""
    from ortools.sat.python import cp_model
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.random_seed = int(seed)
    solver.parameters.num_workers = int(workers or cpsat_workers())
    solver.parameters.catch_sigint_signal = False
    return solver
