"""The one table of benchmark suites: name -> module defining ``SUITE``.

Each module is imported only when its suite is used, so listing suites (or running another
command) loads no suite code. Adding a suite: a module with ``SUITE = Suite(...)`` and one
line here (see ``docs/suites.md``).
"""
from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

from ..formal.errors import InstanceError

if TYPE_CHECKING:
    from .design import Suite

SUITES: dict[str, str] = {
    "indeterminacy-preference": "prefcert.bench.indeterminacy.preference",
    "indeterminacy-algorithmic": "prefcert.bench.indeterminacy.algorithmic",
    "voting-manipulation": "prefcert.bench.voting_manipulation.suite",
    "actionable-indeterminacy": "prefcert.bench.actionable.suite",
    "actionable-indeterminacy-h2": "prefcert.bench.actionable.h2",
    "actionable-indeterminacy-wording": "prefcert.bench.actionable.wording",
    "actionable-indeterminacy-selection": "prefcert.bench.actionable.selection",
    "actionable-indeterminacy-completion": "prefcert.bench.actionable.completion",
    "actionable-indeterminacy-intersection": "prefcert.bench.actionable.intersection",
    "actionable-indeterminacy-balanced": "prefcert.bench.actionable.balanced",
    "self-consistency": "prefcert.bench.self_consistency.suite",
}


@cache
def suite(name: str) -> Suite:
    """The :class:`~prefcert.bench.design.Suite` registered as ``name``; InstanceError
    naming the known suites otherwise."""
    if name not in SUITES:
        raise InstanceError(f"unknown suite (known: {', '.join(sorted(SUITES))})", value=name)
    return importlib.import_module(SUITES[name]).SUITE
