"""Helpers shared by the public API modules (not public)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import arguments as arg
from .types import Certificate, Matching, Prefs


def in_order(matching: Mapping[str, str], side: Mapping[str, Any]) -> Matching:
    """A matching listed in the order of the side's agents (easier to read)."""
    return {x: matching[x] for x in side if x in matching}


def proved(domain: str, model: Any, question: str, verdict: str, solution: Any,
           cert: Certificate, params: Any = None) -> Certificate:
    """The certificate, after the trusted checker accepted it."""
    from ..formal import checker
    from ..pipeline.registry import spec
    checker.check(spec(domain), model, question, params, verdict, solution, cert)
    return cert


def prefs(value: object, name: str, what: str = "agent -> list") -> Prefs:
    """A mapping of preference lists (the lists themselves are checked by the parser,
    which names the agent and the entry)."""
    return arg.mapping(value, name, what)
