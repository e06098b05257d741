"""House allocation (one-sided matching): model and parsing.

Agents have weak, possibly incomplete preferences over objects ("houses"); an object an
agent does not rank is unacceptable to it. An *allocation* is a dict agent -> object over
acceptable pairs, each object given at most once; an agent absent from it is unassigned,
which is worse than any acceptable object (Abraham, Cechlárová, Manlove & Mehlhorn 2004;
Manlove 2013, ch. 6). Ranks are 1-based; tied objects share a rank (the index of their tie
group).

Questions: a Pareto-optimal allocation (no allocation makes an agent strictly better off
and nobody worse off), a maximum-cardinality Pareto-optimal one (MCPO), and the rank-based
welfare optima of :mod:`prefcert.formal.welfare`. Their certificates are checked in
:mod:`prefcert.formal.checker.house_allocation`.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .errors import InstanceError
from .weak_order import WeakOrder, parse_weak_order
from .spec import Convention, read_conventions

QUESTIONS = ("pareto_optimal", "max_cardinality_pareto_optimal", "utilitarian", "egalitarian",
             "rank_maximal")

#: Over which matchings the rank-maximal optimum ranges (the welfare optima of both
#: house allocation and two-sided markets; see :mod:`prefcert.formal.welfare`).
WELFARE_SCOPE = Convention("welfare_scope", ("standard", "maximum"), {
    "standard": "utilitarian and egalitarian optima range over maximum-cardinality "
                "matchings, rank-maximal over all matchings (Irving et al. 2006)",
    "maximum": "all three range over maximum-cardinality matchings: rank-maximal becomes "
               "the greedy maximum matching (maximum-cardinality rank-maximal)"})
CONVENTIONS: dict[str, Convention] = {"welfare_scope": WELFARE_SCOPE}


@dataclass(frozen=True)
class HouseAllocation:
    """A house-allocation instance.

    ``prefs``: agent -> WeakOrder over the objects it finds acceptable (best tie first).
    ``objects``: every object, in input order (objects nobody ranks included).
    """

    prefs: Mapping[str, WeakOrder]
    objects: tuple[str, ...]
    conventions: Mapping[str, str] = field(
        default_factory=lambda: {k: c.default for k, c in CONVENTIONS.items()},
        compare=False, repr=False)

    @property
    def agents(self) -> tuple[str, ...]:
        return tuple(self.prefs)

    @property
    def size(self) -> int:
        """Number of agents (used to pick engines)."""
        return len(self.prefs)

    def edges(self) -> Iterable[tuple[str, str]]:
        """Acceptable pairs (agent, object), in list order."""
        for a, o in self.prefs.items():
            for h in o.items:
                yield a, h

    def is_strict(self) -> bool:
        return all(o.is_strict() for o in self.prefs.values())

    def to_json(self) -> dict:
        return {"preferences": {a: o.to_json() for a, o in self.prefs.items()},
                "objects": list(self.objects)}


def parse_house_allocation(data: dict) -> HouseAllocation:
    """Parse ``{"preferences": {agent: [objects best first, nested list = tie]},
    "objects": [...]}`` (``objects`` optional; default: every ranked object, in order of
    first mention).

    Raises :class:`InstanceError` naming the agent and the value for: preferences that are
    not an object, a non-string agent, ``objects`` not a list of distinct strings, an
    object ranked twice by one agent, an empty tie group, a non-string object, an object
    not in ``objects``. O(total list length).
    """
    prefs = data.get("preferences")
    if not isinstance(prefs, dict):
        raise InstanceError("'preferences' must be an object mapping agents to lists",
                            value=prefs)
    raw_objects = data.get("objects")
    known = None
    if raw_objects is not None:
        if not isinstance(raw_objects, list):
            raise InstanceError("'objects' must be a list of object names", value=raw_objects)
        seen: set[str] = set()
        for h in raw_objects:
            if not isinstance(h, str):
                raise InstanceError("object name must be a string", value=h)
            if h in seen:
                raise InstanceError("object listed twice in 'objects'", value=h)
            seen.add(h)
        known = raw_objects
    parsed = {}
    for a, lst in prefs.items():
        parsed[a] = parse_weak_order(lst, agent=a, known=known)
    if known is None:
        order: dict[str, None] = {}
        for o in parsed.values():
            for h in o.items:
                order.setdefault(h, None)
        known = list(order)
    return HouseAllocation(parsed, tuple(known), read_conventions(data, CONVENTIONS))
