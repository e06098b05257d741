"""Helpers shared by the public API modules (not public)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: Preference lists: agent -> list best first, a nested list being a tie group.
Prefs = Mapping[str, Sequence[Any]]


def in_order(matching: Mapping[str, str], side: Prefs | Mapping[str, Any]) -> dict[str, str]:
    """A matching listed in the order of the side's agents (easier to read)."""
    return {x: matching[x] for x in side if x in matching}


def proved(domain: str, model: Any, question: str, verdict: str, solution: Any,
           cert: dict[str, Any], params: Any = None) -> dict[str, Any]:
    """The certificate, after the trusted checker accepted it."""
    from ..formal import checker
    from ..pipeline.registry import spec
    checker.check(spec(domain), model, question, params, verdict, solution, cert)
    return cert
