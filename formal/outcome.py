"""What an engine answers: a verdict word (or ``unknown``), a solution, an optional proof.

A model type shared by every engine (``oracles``, ``encodings``) and the application that
combines their answers; it carries no logic, so sharing it lets no engine agree with the
checker by accident.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

UNKNOWN = "unknown"
#: ``Outcome``'s default ``stats`` (a fresh empty dict per outcome, as a default factory)
_NO_STATS: Any = object()


@dataclass(frozen=True)
class Outcome:
    """What one engine says. ``verdict`` is a verdict word or ``unknown`` (timeout);
    ``solution`` is JSON-able or None; ``certificate`` an optional JSON-able proof;
    ``stats`` solver statistics."""

    verdict: str
    solution: Any = None
    certificate: dict | None = None
    stats: Mapping[str, Any] = field(default_factory=dict)

    def __init__(self, verdict: str, solution: Any = None, certificate: dict | None = None,
                 stats: Mapping[str, Any] = _NO_STATS) -> None:
        # the generated __init__ of a frozen dataclass sets each field through
        # object.__setattr__; writing the instance dict is the same state, several times
        # cheaper (two outcomes per label, each field read a few times: the dict this
        # materialises costs less than it saves; the class stays frozen to assignment)
        d = self.__dict__
        d["verdict"], d["solution"], d["certificate"] = verdict, solution, certificate
        d["stats"] = {} if stats is _NO_STATS else stats
