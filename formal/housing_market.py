"""Shapley–Scarf housing markets with ties and incomplete lists: the model.

Each agent ``i`` owns one house ``ω_i`` (the endowment is a bijection agents -> houses) and
has a weak order over houses, best tie first. A house the agent does not list is
*unacceptable*: worse than its own house. The agent's own house is always acceptable: when it
is not listed, it ranks just below every listed house. Unlisted houses are tied with one
another at the bottom (this only matters for allocations that are not individually
rational, which are outside every core anyway). An allocation is a dict agent -> house that
is a permutation of the houses (Shapley & Scarf 1974; Quint & Wako 2004 for ties).

This module is the model; the core definitions that certificates are checked against
(improvement digraph, blocking coalitions, the strict-core emptiness proof) are in
:mod:`prefcert.formal.checker.housing_market`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .errors import CertificateError, InstanceError
from .weak_order import WeakOrder, parse_weak_order

QUESTIONS = ("strict_core", "weak_core")
#: the notions :func:`prefcert.domains.housing_market.classify` reports on
NOTIONS = ("individually_rational", "weak_core", "strict_core", "pareto_optimal")
#: question -> core notion: "strict" (no weakly blocking coalition), "weak" (no strictly
#: blocking coalition)
CORE_NOTION = {"strict_core": "strict", "weak_core": "weak"}


@dataclass(frozen=True)
class HousingMarket:
    """A Shapley–Scarf housing market.

    ``preferences``: agent -> WeakOrder over houses, as given. ``endowment``: agent -> house
    (a bijection). Derived: ``owner`` house -> agent; ``order`` agent -> the effective weak
    order (the given one, plus the own house as a last singleton tie when unlisted);
    ``agents`` in input order.
    """

    preferences: Mapping[str, WeakOrder]
    endowment: Mapping[str, str]
    owner: Mapping[str, str] = field(init=False, repr=False, compare=False)
    order: Mapping[str, WeakOrder] = field(init=False, repr=False, compare=False)
    agents: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "owner", {h: a for a, h in self.endowment.items()})
        order = {}
        for a, o in self.preferences.items():
            own = self.endowment[a]
            # unlisted own house: a last singleton tie (same order as
            # WeakOrder(o.ties + ((own,),)), without building the ties)
            order[a] = o if own in o else WeakOrder.from_ranked(
                o.items + (own,), {**o.rank, own: o.nties + 1}, o.nties + 1)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "agents", tuple(self.endowment))

    @property
    def size(self) -> int:
        """The number of agents n."""
        return len(self.agents)

    def rank(self, agent: str, house: str) -> int:
        """1-based rank of ``house`` for ``agent``; unacceptable houses share the last rank."""
        o = self.order[agent]
        return o.rank.get(house, o.nties + 1)

    def is_strict(self) -> bool:
        """True when every listed tie is a singleton."""
        return all(o.is_strict() for o in self.order.values())

    def to_json(self) -> dict:
        return {"preferences": {a: o.to_json() for a, o in self.preferences.items()},
                "endowment": dict(self.endowment)}


def parse_housing_market(data: dict) -> HousingMarket:
    """Parse ``{"preferences": {agent: list}, "endowment": {agent: house}}``.

    Raises :class:`InstanceError` naming the agent and the value for: a missing or
    non-object field, an empty market, an agent without endowment or without preference
    list, a non-string house, a house that is the endowment of two agents, a list ranking a
    house nobody owns, a house listed twice, an empty tie group. O(total list length).
    """
    if not isinstance(data, dict):
        raise InstanceError("a housing market must be a JSON object", value=type(data).__name__)
    prefs, endow = data.get("preferences"), data.get("endowment")
    if not isinstance(prefs, dict):
        raise InstanceError("'preferences' must be an object mapping agents to lists",
                            value=prefs)
    if not isinstance(endow, dict):
        raise InstanceError("'endowment' must be an object mapping agents to houses",
                            value=endow)
    if not endow:
        raise InstanceError("a housing market needs at least one agent", value=endow)
    owner: dict[str, str] = {}
    for a, h in endow.items():
        if not isinstance(h, str):
            raise InstanceError("endowment must be a house name (string)", agent=a, value=h)
        if h in owner:
            raise InstanceError(f"house is also the endowment of {owner[h]!r}: the endowment "
                                "is not a bijection", agent=a, value=h)
        owner[h] = a
        if a not in prefs:
            raise InstanceError("agent has an endowment but no preference list", agent=a,
                                value=h)
    for a in prefs:
        if a not in endow:
            raise InstanceError("agent has a preference list but no endowment", agent=a,
                                value=None)
    orders = {a: parse_weak_order(prefs[a], agent=a, known=owner) for a in endow}
    return HousingMarket(orders, dict(endow))


# --------------------------------------------------------------------------- allocations

def as_allocation(market: HousingMarket, x: object, what: str = "allocation") -> dict[str, str]:
    """Validate ``x`` as an allocation: a dict giving every agent exactly one house, each
    house to one agent (a permutation of the houses). Returns a copy; raises
    CertificateError naming the first fault. O(n)."""
    if not isinstance(x, dict):
        raise CertificateError(f"{what} must be an object agent -> house, got {x!r:.60}")
    missing = [a for a in market.agents if a not in x]
    if missing:
        raise CertificateError(f"{what} gives no house to agent {missing[0]!r}")
    taken: dict[str, str] = {}
    for a, h in x.items():
        if a not in market.endowment:
            raise CertificateError(f"{what} names {a!r}, not an agent")
        if not isinstance(h, str) or h not in market.owner:
            raise CertificateError(f"{what} gives {a!r} the house {h!r}, which nobody owns")
        if h in taken:
            raise CertificateError(f"{what} gives house {h!r} to both {taken[h]!r} and {a!r}")
        taken[h] = a
    return dict(x)
