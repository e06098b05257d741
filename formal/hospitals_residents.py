"""Hospitals/residents with ties and incomplete lists (HRT): the model.

Residents rank hospitals and hospitals rank residents, each by a weak order over a subset
of the other side (best tie first); hospital ``h`` has a capacity ``c_h ≥ 0``. A matching
assigns each resident at most one hospital and each hospital at most ``c_h`` residents,
over *admissible* pairs only. Documented rules:

- **Inconsistent lists.** A pair is admissible only when each side lists the other: an
  entry that is not reciprocated is dropped (it can neither be matched nor block), as in
  every HR formulation (Gale & Shapley 1962; Manlove 2013, §1.2.3). :meth:`HRMarket.dropped`
  lists the dropped entries.
- **Capacity 0.** A hospital with capacity 0 takes no resident, is never undersubscribed
  and has no member to compare with, so it never blocks: its pairs are not admissible.
- Being unassigned is worse than any acceptable partner; a hospital with a free post
  strictly prefers any acceptable resident to nobody.

Stability notions (Irving, Manlove & Scott 2000, SWAT; 2003, STACS): a pair (r, h) not in
M, admissible, blocks M **weakly** if r strictly prefers h to M(r) (or is unassigned) and h
is undersubscribed or strictly prefers r to its worst member; **super** with "weakly" for
both; **strongly** when one of the two is strict and the other weak.

This module is the model; the definitions certificates are checked against are in
:mod:`prefcert.formal.checker.hospitals_residents`.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from .errors import InstanceError
from .weak_order import WeakOrder, parse_weak_order

NOTIONS = ("weak", "strong", "super")
QUESTIONS = {"weakly_stable": "weak", "strongly_stable": "strong", "super_stable": "super"}


@dataclass(frozen=True)
class HRMarket:
    """A hospitals/residents market with ties.

    ``residents``: resident -> WeakOrder over hospitals, as given; ``hospitals``: hospital
    -> WeakOrder over residents, as given; ``capacities``: hospital -> int ≥ 0.
    Derived ``pr`` / ``ph``: the same orders restricted to admissible pairs (mutually
    acceptable, capacity > 0); every algorithm and definition uses these.
    """

    residents: Mapping[str, WeakOrder]
    hospitals: Mapping[str, WeakOrder]
    capacities: Mapping[str, int]
    pr: Mapping[str, WeakOrder] = field(init=False, repr=False, compare=False)
    ph: Mapping[str, WeakOrder] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        cap = self.capacities

        def ok_r(r: str, h: str) -> bool:
            return cap[h] > 0 and r in self.hospitals[h].rank

        def ok_h(h: str, r: str) -> bool:
            return cap[h] > 0 and h in self.residents[r].rank

        object.__setattr__(self, "pr", {r: _restrict(o, lambda h, r=r: ok_r(r, h))
                                        for r, o in self.residents.items()})
        object.__setattr__(self, "ph", {h: _restrict(o, lambda r, h=h: ok_h(h, r))
                                        for h, o in self.hospitals.items()})

    @property
    def size(self) -> int:
        """The number of residents (the side that enumeration branches on)."""
        return len(self.residents)

    def edges(self) -> Iterator[tuple[str, str]]:
        """Admissible pairs (resident, hospital), in each resident's list order."""
        for r, o in self.pr.items():
            for h in o.items:
                yield r, h

    def dropped(self) -> list[tuple[str, str]]:
        """Entries that are not admissible, as (agent, listed agent): one-sided entries and
        entries naming or made by a hospital of capacity 0."""
        out = [(r, h) for r, o in self.residents.items() for h in o.items if h not in self.pr[r]]
        out += [(h, r) for h, o in self.hospitals.items() for r in o.items if r not in self.ph[h]]
        return out

    def to_json(self) -> dict:
        return {"preferences": {"residents": {r: o.to_json() for r, o in self.residents.items()},
                                "hospitals": {h: o.to_json() for h, o in self.hospitals.items()}},
                "capacities": dict(self.capacities)}


def _restrict(order: WeakOrder, keep) -> WeakOrder:
    if all(keep(x) for x in order.items):
        return order
    ties = (tuple(x for x in tie if keep(x)) for tie in order.ties)
    return WeakOrder(tuple(t for t in ties if t))


# Posts per hospital: beyond this, sums of capacities would overflow the engines' 64-bit
# integers (as voter counts, formal/preference.py). A capacity above the number of
# residents means no more than that number, and no engine allocates per post.
MAX_CAPACITY = 10**12


def parse_hospitals_residents(data: dict) -> HRMarket:
    """Parse ``{"preferences": {"residents": {...}, "hospitals": {...}}, "capacities":
    {...}}`` into an :class:`HRMarket`.

    Raises :class:`InstanceError` naming the agent and value for: missing sides, an agent
    on both sides, a list naming an agent not on the other side, an item twice, an empty
    tie group, a hospital without a capacity, a capacity that is not an integer from 0 to
    :data:`MAX_CAPACITY`, a capacity for an unknown hospital. O(total list length).
    """
    prefs = data.get("preferences")
    if not isinstance(prefs, dict) or set(prefs) != {"residents", "hospitals"}:
        raise InstanceError("'preferences' must be an object with exactly the sides "
                            "'residents' and 'hospitals'",
                            value=sorted(prefs) if isinstance(prefs, dict) else prefs)
    for side in ("residents", "hospitals"):
        if not isinstance(prefs[side], dict):
            raise InstanceError(f"side {side} must map agents to lists", value=prefs[side])
    res, hos = prefs["residents"], prefs["hospitals"]
    both = set(res) & set(hos)
    if both:
        raise InstanceError("agent appears on both sides", agent=sorted(both)[0])
    caps = data.get("capacities")
    if not isinstance(caps, dict):
        raise InstanceError("'capacities' must map every hospital to a non-negative integer",
                            value=caps)
    for h, c in caps.items():
        if h not in hos:
            raise InstanceError("capacity of an unknown hospital", agent=h, value=c)
        if c.__class__ is not int or not 0 <= c <= MAX_CAPACITY:
            raise InstanceError(f"capacity must be a non-negative integer (at most "
                                f"{MAX_CAPACITY})",
                                agent=h, value=c)
    for h in hos:
        if h not in caps:
            raise InstanceError("hospital has no capacity", agent=h)
    r = {x: parse_weak_order(lst, agent=x, known=hos) for x, lst in res.items()}
    h = {y: parse_weak_order(lst, agent=y, known=res) for y, lst in hos.items()}
    return HRMarket(r, h, {y: caps[y] for y in hos})
