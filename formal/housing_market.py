"""Shapley–Scarf housing markets with ties and incomplete lists: the model.

Each agent ``i`` owns one house ``ω_i`` (the endowment is a bijection agents -> houses) and
has a weak order over houses, best tie first. A house the agent does not list is
*unacceptable*. What an unlisted *own* house means is the convention
``unlisted_own_house`` (an instance's ``"conventions"``):

- ``acceptable`` (default): the agent's own house is always acceptable: when it is not
  listed, it ranks just below every listed house; the other unlisted houses are tied with
  one another below it (this only matters for allocations that are not individually
  rational, which are outside every core anyway). An allocation is a dict agent -> house
  that is a permutation of the houses (Shapley & Scarf 1974; Quint & Wako 2004 for ties).
- ``unacceptable`` (Khanna & Wang 2026, App. F.2.1): every unlisted house is unacceptable,
  the agent's own included, and an agent may stay *unmatched* (worse than any house it
  lists, as good as any it does not). An allocation is a dict agent -> house over listed
  pairs, each house at most once (``None`` or a missing agent: unmatched). A coalition
  blocks by re-trading its own houses among its members, who may take nothing.

Under ``unacceptable`` every question reduces exactly to the standard market in which such
an agent lists every house it does not list as one last tie (its own included; ``order``):
an allocation there, with the agents holding an unlisted house reported unmatched
(:func:`reported_allocation`), is in the weak / strict core, or Pareto optimal, iff the
reported one is (an agent indifferent between nothing and an unlisted house; see
docs/architecture.md). The checker's definitions read an unmatched agent at
:meth:`HousingMarket.rank` ``(agent, None)``, the rank of that last tie.

This module is the model; the core definitions that certificates are checked against
(improvement digraph, blocking coalitions, the strict-core emptiness proof) are in
:mod:`prefcert.formal.checker.housing_market`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .errors import CertificateError, InstanceError
from .spec import Convention, read_conventions
from .stable_matching import _Arrays, _Orders, _side_ints
from .weak_order import WeakOrder

QUESTIONS = ("strict_core", "weak_core")
#: the notions :func:`prefcert.domains.housing_market.classify` reports on
NOTIONS = ("individually_rational", "weak_core", "strict_core", "pareto_optimal")
#: question -> core notion: "strict" (no weakly blocking coalition), "weak" (no strictly
#: blocking coalition)
CORE_NOTION = {"strict_core": "strict", "weak_core": "weak"}
#: What an agent's own house means when its list leaves it out (recorded by a label only
#: when not the default: housing labels made before it existed keep their bytes).
UNLISTED_OWN_HOUSE = Convention("unlisted_own_house", ("acceptable", "unacceptable"), {
    "acceptable": "the own house is always acceptable: unlisted, it ranks just below every "
                  "listed house, and every agent receives a house (Shapley & Scarf 1974)",
    "unacceptable": "every unlisted house is unacceptable, the own one included: an agent "
                    "may stay unmatched and is never given a house it does not list "
                    "(Khanna & Wang 2026, App. F.2.1)"}, record_default=False)
CONVENTIONS: dict[str, Convention] = {"unlisted_own_house": UNLISTED_OWN_HOUSE}


@dataclass(frozen=True, eq=False)
class HMInts:
    """A housing market held as integers: agents ``0..n-1`` in input order (the order of
    ``"endowment"``), agent ``i`` owning house ``i`` (so a house is the int of its owner).

    ``names`` / ``index``: agent names and name -> int; ``houses`` / ``house_index``: house
    names (``houses[i]`` is agent ``i``'s endowment) and house -> int. ``lists[i]``: the
    houses of agent ``i``'s effective order (:attr:`HousingMarket.order`), best first;
    ``ties[i]``: their 1-based tie indices, aligned (non-decreasing, every index
    1..``nties[i]`` used); ``rank[i]``: house -> tie index. ``written`` /
    ``written_ties`` / ``written_nties``: the lists as given (the very same objects when
    the own house is listed; otherwise the effective list is the written one plus a last
    tie). ``unmatched``: ``unlisted_own_house = unacceptable``. A house ``j`` that agent
    ``i`` does not list ranks ``nties[i] + 1`` unless the last tie holds it; agent ``i``
    lists ``j`` ⇔ ``rank[i].get(j, big) <= written_nties[i]``; being unmatched ranks
    ``written_nties[i] + 1``. The oracles and the checker read this form; the names are
    kept for output and messages."""

    names: list[str]
    index: dict[str, int]
    houses: list[str]
    house_index: dict[str, int]
    lists: list[list[int]]
    ties: list[list[int]]
    nties: list[int]
    rank: list[dict[int, int]]
    written: list[list[int]]
    written_ties: list[list[int]]
    written_nties: list[int]
    unmatched: bool


def _effective(n: int, w: _Arrays, unmatched: bool) -> _Arrays:
    """The effective orders from the written ones: a list leaving out its owner's house
    ``i`` gets a last tie, ``[i]`` or (``unmatched``) every house it does not list, in
    house order. O(n + L), or O(n) per such list when ``unmatched``."""
    lists, ties, nties, ranks = w
    if all(i in rk for i, rk in enumerate(ranks)):
        return w
    ol, ot, on, orank = list(lists), list(ties), list(nties), list(ranks)
    for i, rk in enumerate(ranks):
        if i in rk:
            continue
        last = [j for j in range(n) if j not in rk] if unmatched else [i]
        k = nties[i] + 1
        ol[i] = lists[i] + last
        ot[i] = ties[i] + [k] * len(last)
        on[i] = k
        orank[i] = {**rk, **dict.fromkeys(last, k)}
    return ol, ot, on, orank


def _ints(names: list[str], houses: list[str], house_index: dict[str, int], w: _Arrays,
          unmatched: bool) -> HMInts:
    """The integer form from the written lists (agents and houses numbered alike). O(n + L)."""
    n = len(names)
    lists, ties, nties, ranks = _effective(n, w, unmatched)
    return HMInts(names, dict(zip(names, range(n))), houses, house_index,
                  lists, ties, nties, ranks, w[0], w[1], w[2], unmatched)


@dataclass(frozen=True)
class HousingMarket:
    """A Shapley–Scarf housing market.

    ``preferences``: agent -> WeakOrder over houses, as given. ``endowment``: agent -> house
    (a bijection). ``conventions``: name -> choice (:data:`CONVENTIONS`). Derived:
    ``owner`` house -> agent; ``order`` agent -> the effective weak order (the given one,
    plus, when the own house is unlisted, a last tie: the own house alone, or under
    ``unlisted_own_house = unacceptable`` every unlisted house); ``agents`` in input order;
    ``ints``: the same market as integers (:class:`HMInts`), which the oracles and the
    checker read.

    Built from the orders (``HousingMarket(preferences, endowment)``: the integer form is
    made on first use) or, by :func:`parse_housing_market`, from the integer form
    (:meth:`from_ints`: the orders are made on first look-up, one agent at a time).
    """

    preferences: Mapping[str, WeakOrder]
    endowment: Mapping[str, str]
    conventions: Mapping[str, str] = field(
        default_factory=lambda: {k: c.default for k, c in CONVENTIONS.items()},
        compare=False, repr=False)
    owner: Mapping[str, str] = field(init=False, repr=False, compare=False)
    order: Mapping[str, WeakOrder] = field(init=False, repr=False, compare=False)
    agents: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _ints: HMInts | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self):
        object.__setattr__(self, "owner", {h: a for a, h in self.endowment.items()})
        order = {}
        unmatched = self.unmatched_allowed
        for a, o in self.preferences.items():
            own = self.endowment[a]
            if own in o.rank:
                order[a] = o
                continue
            # unlisted own house: a last tie (same order as WeakOrder(o.ties + (last,)),
            # without building the ties): the own house, or every unlisted house
            last = tuple(h for h in self.owner if h not in o.rank) if unmatched else (own,)
            order[a] = WeakOrder.from_ranked(o.items + last, {**o.rank, **dict.fromkeys(
                last, o.nties + 1)}, o.nties + 1)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "agents", tuple(self.endowment))

    @classmethod
    def from_ints(cls, ints: HMInts, conventions: Mapping[str, str]) -> HousingMarket:
        """The market of an integer form; its orders are made on first look-up. O(n)."""
        self = object.__new__(cls)
        put = object.__setattr__
        names, houses = ints.names, ints.houses
        put(self, "preferences", _Orders(names, ints.index, ints.written, ints.written_ties,
                                         ints.written_nties, houses))
        put(self, "endowment", dict(zip(names, houses)))
        put(self, "conventions", conventions)
        put(self, "owner", dict(zip(houses, names)))
        put(self, "order", self.preferences if ints.lists is ints.written else _Orders(
            names, ints.index, ints.lists, ints.ties, ints.nties, houses))
        put(self, "agents", tuple(names))
        put(self, "_ints", ints)
        return self

    @property
    def ints(self) -> HMInts:
        """The integer form (made on first use when the market was built from orders)."""
        ints = self._ints
        if ints is None:
            names, houses = list(self.endowment), list(self.endowment.values())
            hi = dict(zip(houses, range(len(houses))))
            get = hi.__getitem__
            orders = [self.preferences[a] for a in names]
            lists = [list(map(get, o.items)) for o in orders]
            ties = [list(map(o.rank.__getitem__, o.items)) for o in orders]
            w = (lists, ties, [o.nties for o in orders],
                 [dict(zip(lst, t)) for lst, t in zip(lists, ties)])
            ints = _ints(names, houses, hi, w, self.unmatched_allowed)
            object.__setattr__(self, "_ints", ints)
        return ints

    @property
    def size(self) -> int:
        """The number of agents n."""
        return len(self.agents)

    @property
    def unmatched_allowed(self) -> bool:
        """Agents may stay unmatched (``unlisted_own_house = unacceptable``)."""
        return self.conventions.get("unlisted_own_house") == "unacceptable"

    def rank(self, agent: str, house: str | None) -> int:
        """1-based rank of ``house`` for ``agent``; unacceptable houses share the last rank.
        ``None`` (unmatched) ranks just below every listed house, with the unlisted ones."""
        m = self.ints
        i = m.index[agent]
        if house is None:
            return m.written_nties[i] + 1
        return m.rank[i].get(m.house_index.get(house, -1), m.nties[i] + 1)

    def listed(self, agent: str, house: str) -> bool:
        """``agent`` lists ``house``."""
        m = self.ints
        i = m.index[agent]
        return m.rank[i].get(m.house_index.get(house, -1), m.nties[i] + 1) <= \
            m.written_nties[i]

    def is_strict(self) -> bool:
        """True when every listed tie is a singleton."""
        m = self.ints
        return all(map(int.__eq__, m.nties, map(len, m.lists)))

    def to_json(self) -> dict:
        out = {"preferences": {a: o.to_json() for a, o in self.preferences.items()},
               "endowment": dict(self.endowment)}
        if self.unmatched_allowed:
            out["conventions"] = {"unlisted_own_house": "unacceptable"}
        return out


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
    names, houses = list(endow), list(owner)
    hi = dict(zip(houses, range(len(houses))))
    # the lists in the endowment's order (the agents' numbering), so the first error
    # reported is the one the name-keyed parse reported
    w = _side_ints(prefs if list(prefs) == names else {a: prefs[a] for a in names}, hi)
    conventions = read_conventions(data, CONVENTIONS)
    return HousingMarket.from_ints(_ints(
        names, houses, hi, w, conventions.get("unlisted_own_house") == "unacceptable"),
        conventions)


# --------------------------------------------------------------------------- allocations

def as_allocation(market: HousingMarket, x: object, what: str = "allocation") -> dict[str, str]:
    """Validate ``x`` as an allocation: a dict giving every agent exactly one house, each
    house to one agent (a permutation of the houses); under ``unlisted_own_house =
    unacceptable``, a dict giving some agents one house each that they list, each house at
    most once (a ``None`` value: unmatched, dropped). Returns a copy; raises
    CertificateError naming the first fault. O(n)."""
    if not isinstance(x, dict):
        raise CertificateError(f"{what} must be an object agent -> house, got {x!r:.60}")
    if market.unmatched_allowed:
        return _partial_allocation(market, x, what)
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


def _partial_allocation(market: HousingMarket, x: dict, what: str) -> dict[str, str]:
    taken: dict[str, str] = {}
    out: dict[str, str] = {}
    for a, h in x.items():
        if a not in market.endowment:
            raise CertificateError(f"{what} names {a!r}, not an agent")
        if h is None:
            continue
        if not isinstance(h, str) or h not in market.owner:
            raise CertificateError(f"{what} gives {a!r} the house {h!r}, which nobody owns")
        if not market.listed(a, h):
            raise CertificateError(f"{what} gives {a!r} the house {h!r}, which it does not "
                                   "list (unacceptable: it stays unmatched instead)")
        if h in taken:
            raise CertificateError(f"{what} gives house {h!r} to both {taken[h]!r} and {a!r}")
        taken[h] = a
        out[a] = h
    return out


def reported_allocation(market: HousingMarket, x: Mapping[str, str]) -> dict[str, str]:
    """An allocation of the effective market (a permutation, as the engines find it) as the
    market's convention reports it: under ``unlisted_own_house = unacceptable`` the agents
    holding a house they do not list are unmatched (left out); otherwise ``x`` itself. O(n)."""
    if not market.unmatched_allowed:
        return dict(x)
    return {a: h for a, h in x.items() if market.listed(a, h)}


def completed_allocation(market: HousingMarket, x: Mapping[str, str]) -> dict[str, str]:
    """A permutation of the houses extending a partial allocation: the houses nobody holds
    go to the unmatched agents, in input order (under ``unlisted_own_house = unacceptable``
    an unmatched agent that lists none of them values each as being unmatched). O(n)."""
    free = [h for h in market.owner if h not in set(x.values())]
    rest = iter(free)
    return {a: x[a] if a in x else next(rest) for a in market.agents}
