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
from .stable_matching import (
    Side,
    _Arrays,
    _keep_mutual,
    _Orders,
    _side_from_orders,
    _side_ints,
)
from .weak_order import WeakOrder

NOTIONS = ("weak", "strong", "super")
QUESTIONS = {"weakly_stable": "weak", "strongly_stable": "strong", "super_stable": "super"}


@dataclass(frozen=True, eq=False)
class HRInts:
    """A hospitals/residents market held as integers: residents and hospitals numbered
    ``0..n-1`` per side in input order, each list an array of partner ints with aligned
    tie indices and a rank dict (:class:`~prefcert.formal.stable_matching.Side`; ``r``:
    the residents, ``h``: the hospitals), restricted to admissible pairs (mutually
    acceptable, capacity > 0); ``cap[j]``: hospital ``j``'s capacity. The oracles and the
    checker read this form; the names are kept for output."""

    r: Side
    h: Side
    cap: list[int]
    #: per agent of each side, its position in its side sorted by name (for choices the
    #: name-keyed algorithms made by name order); built on first use
    _order: dict = field(default_factory=dict, repr=False)

    def name_order(self, side: str) -> list[int]:
        """``key[i]``: the position of agent ``i`` of ``side`` ("r" or "h") when the side's
        names are sorted."""
        key = self._order.get(side)
        if key is None:
            names = (self.r if side == "r" else self.h).names
            key = [0] * len(names)
            for pos, i in enumerate(sorted(range(len(names)), key=names.__getitem__)):
                key[i] = pos
            self._order[side] = key
        return key


@dataclass(frozen=True)
class HRMarket:
    """A hospitals/residents market with ties.

    ``residents``: resident -> WeakOrder over hospitals, as given; ``hospitals``: hospital
    -> WeakOrder over residents, as given; ``capacities``: hospital -> int ≥ 0.
    Derived ``pr`` / ``ph``: the same orders restricted to admissible pairs (mutually
    acceptable, capacity > 0); every definition uses these. ``ints``: the same market as
    integers (:class:`HRInts`), which the oracles and the checker read.

    Built from the orders (``HRMarket(residents, hospitals, capacities)``: the integer
    form is made on first use) or, by :func:`parse_hospitals_residents`, from the integer
    form (:meth:`from_ints`: the orders are made on first look-up, one agent at a time).
    """

    residents: Mapping[str, WeakOrder]
    hospitals: Mapping[str, WeakOrder]
    capacities: Mapping[str, int]
    pr: Mapping[str, WeakOrder] = field(init=False, repr=False, compare=False)
    ph: Mapping[str, WeakOrder] = field(init=False, repr=False, compare=False)
    _ints: HRInts | None = field(init=False, repr=False, compare=False, default=None)

    @classmethod
    def from_ints(cls, ints: HRInts) -> HRMarket:
        """The market of an integer form; its orders are made on first look-up. O(n)."""
        self = object.__new__(cls)
        r, h = ints.r, ints.h
        put = object.__setattr__
        put(self, "residents", _Orders(r.names, r.index, r.written, r.written_ties,
                                       r.written_nties, h.names))
        put(self, "hospitals", _Orders(h.names, h.index, h.written, h.written_ties,
                                       h.written_nties, r.names))
        put(self, "capacities", dict(zip(h.names, ints.cap)))
        put(self, "pr", self.residents if r.lists is r.written else _Orders(
            r.names, r.index, r.lists, r.ties, r.nties, h.names))
        put(self, "ph", self.hospitals if h.lists is h.written else _Orders(
            h.names, h.index, h.lists, h.ties, h.nties, r.names))
        put(self, "_ints", ints)
        return self

    @property
    def ints(self) -> HRInts:
        """The integer form (made on first use when the market was built from orders)."""
        ints = self._ints
        if ints is None:
            ir = dict(zip(self.residents, range(len(self.residents))))
            ih = dict(zip(self.hospitals, range(len(self.hospitals))))
            ints = HRInts(_side_from_orders(self.residents, self.pr, ih),
                          _side_from_orders(self.hospitals, self.ph, ir),
                          [self.capacities[h] for h in self.hospitals])
            object.__setattr__(self, "_ints", ints)
        return ints

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
    names_r, names_h = list(res), list(hos)
    ir = dict(zip(names_r, range(len(names_r))))
    ih = dict(zip(names_h, range(len(names_h))))
    wr = _side_ints(res, ih)
    wh = _side_ints(hos, ir)
    cap = [caps[y] for y in names_h]
    return HRMarket.from_ints(_admissible(names_r, ir, wr, names_h, ih, wh, cap))


def _admissible(names_r: list[str], ir: dict[str, int], wr: _Arrays, names_h: list[str],
                ih: dict[str, int], wh: _Arrays, cap: list[int]) -> HRInts:
    """The integer form from both sides' lists as written, restricted to admissible pairs:
    a resident keeps the hospitals of capacity > 0 that list it, a hospital of capacity >
    0 the residents that list it (one of capacity 0 keeps none). O(total length); no pass
    over the entries when every list is complete and no capacity is 0."""
    nr, nh = len(names_r), len(names_h)
    if all(cap) and all(len(lst) == nh for lst in wr[0]) and \
            all(len(lst) == nr for lst in wh[0]):
        mr, mh = wr, wh
    else:
        empty: dict[int, int] = {}
        mr, kept_r = _keep_mutual(wr, [rk if c else empty for rk, c in zip(wh[3], cap)])
        if kept_r:
            mr = wr
        lists, ties, nties, ranks = wh
        if not all(cap):                 # a hospital of capacity 0 keeps nothing
            zero = [c == 0 and bool(lst) for lst, c in zip(lists, cap)]
            lists = [[] if z else lst for lst, z in zip(lists, zero)]
            ties = [[] if z else t for t, z in zip(ties, zero)]
            nties = [0 if z else k for k, z in zip(nties, zero)]
            ranks = [{} if z else rk for rk, z in zip(ranks, zero)]
        mh, kept_h = _keep_mutual((lists, ties, nties, ranks), wr[3])
        if kept_h and lists is wh[0]:
            mh = wh
    return HRInts(Side(names_r, ir, *mr, wr[0], wr[1], wr[2]),
                  Side(names_h, ih, *mh, wh[0], wh[1], wh[2]), cap)
