"""Two-sided one-to-one markets with ties and incomplete lists (SMTI): model, stability
definitions and certificate checks.

A market has side A (proposers, "A-agents") and side B ("B-agents"); each agent has a weak order
over a subset of the other side. A pair is admissible only when each ranks the other
(mutual acceptability); one-sided entries are dropped. A matching is a dict A-agent ->
B-agent over admissible pairs; agents absent from it are unmatched, and being unmatched is
worse than any acceptable partner. Definitions: Irving 1994 (DAM 48); Manlove 2013, ch. 3.

This module is the model; the definitions that certificates are checked against
(blocking pairs, refutation replay) are in :mod:`prefcert.formal.checker.stable_matching`.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import chain, repeat
from operator import contains, is_
from dataclasses import dataclass, field

from .house_allocation import WELFARE_SCOPE
from .errors import InstanceError
from .weak_order import WeakOrder, parse_weak_order, shared_ints
from .spec import Convention, read_conventions

NOTIONS = ("weak", "strong", "super")
QUESTIONS = {"weakly_stable": "weak", "strongly_stable": "strong", "super_stable": "super"}

#: Readings where the literature uses two (the first is the default; see README).
CONVENTIONS: dict[str, Convention] = {
    "welfare_ranks": Convention("welfare_ranks", ("mutual", "written"), {
        "mutual": "two-sided welfare ranks are tie indices in the lists after one-sided "
                  "entries are dropped (the lists every algorithm reads)",
        "written": "two-sided welfare ranks are tie indices in the lists as written "
                   "(a one-sided entry still takes its place)"}),
    "welfare_scope": WELFARE_SCOPE,
}


@dataclass(frozen=True)
class Market:
    """An SMTI market. ``a``/``b``: agent -> WeakOrder over the other side, as given.

    ``pa``/``pb``: the same orders restricted to mutually acceptable partners (derived);
    every algorithm and definition uses these.
    """

    a: Mapping[str, WeakOrder]
    b: Mapping[str, WeakOrder]
    conventions: Mapping[str, str] = field(
        default_factory=lambda: {k: c.default for k, c in CONVENTIONS.items()},
        compare=False, repr=False)
    pa: Mapping[str, WeakOrder] = field(init=False, repr=False, compare=False)
    pb: Mapping[str, WeakOrder] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        pa = restrict(self.a, self.b)
        object.__setattr__(self, "pa", pa)
        # Every entry of A's lists mutual (each order kept as is) and as many entries on
        # each side: A's entries are distinct pairs that B's lists all hold, so they are all
        # of B's entries, and B's lists are all mutual too (no pass over them needed).
        if all(map(is_, pa.values(), self.a.values())) and \
                sum(map(len, self.a.values())) == sum(map(len, self.b.values())):
            object.__setattr__(self, "pb", dict(self.b))
        else:
            object.__setattr__(self, "pb", restrict(self.b, self.a))
    @property
    def size(self) -> int:
        """max(|A|, |B|): the "n a side" used to pick engines."""
        return max(len(self.a), len(self.b))

    def edges(self) -> Iterator[tuple[str, str]]:
        """Admissible pairs (a, b), in a's list order."""
        for x, o in self.pa.items():
            for y in o.items:
                yield x, y

    def to_json(self) -> dict:
        return {"A": {x: o.to_json() for x, o in self.a.items()},
                "B": {y: o.to_json() for y, o in self.b.items()}}


def restrict(prefs: Mapping[str, WeakOrder], other: Mapping[str, WeakOrder]
             ) -> dict[str, WeakOrder]:
    """Each order of ``prefs`` restricted to the agents of ``other`` that list its owner
    (mutual acceptability), re-ranked without the emptied ties. O(total length): a side
    whose lists are all complete (each as long as the other side, so every pair is
    mutual) is kept as is; otherwise one membership test per entry."""
    if all(len(o) == len(other) for o in prefs.values()) and \
            all(len(o) == len(prefs) for o in other.values()):
        return dict(prefs)
    ranks = {y: o.rank for y, o in other.items()}
    get = ranks.__getitem__
    out = {}
    for x, o in prefs.items():
        if all(map(contains, map(get, o.items), repeat(x))):
            out[x] = o
            continue
        keep = [y for y in o.items if x in ranks[y]]
        rank, new, last, r = o.rank, {}, 0, 0
        ints = shared_ints(len(keep))
        for y in keep:
            if rank[y] != last:
                last, r = rank[y], r + 1
            new[y] = ints[r]
        out[x] = WeakOrder.from_ranked(tuple(keep), new, r)
    return out


def parse_market(data: dict) -> Market:
    """Parse ``{"preferences": {"A": {...}, "B": {...}}}`` (DESIGN.md) into a Market.

    Raises :class:`InstanceError` naming the agent and value for: missing sides, an agent
    on both sides, a list naming an agent not on the other side, an item twice, an empty tie
    group. O(total list length); the model's lists hold the agents' own name objects.
    """
    prefs = data.get("preferences")
    if not isinstance(prefs, dict) or set(prefs) != {"A", "B"}:
        raise InstanceError("'preferences' must be an object with exactly the sides 'A' and 'B'",
                            value=sorted(prefs) if isinstance(prefs, dict) else prefs)
    for side in "AB":
        if not isinstance(prefs[side], dict):
            raise InstanceError(f"side {side} must map agents to lists", value=prefs[side])
    both = set(prefs["A"]) & set(prefs["B"])
    if both:
        raise InstanceError("agent appears on both sides", agent=sorted(both)[0])
    ca, cb = {x: x for x in prefs["A"]}, {y: y for y in prefs["B"]}
    a = {x: _order(lst, x, cb) for x, lst in prefs["A"].items()}
    b = {y: _order(lst, y, ca) for y, lst in prefs["B"].items()}
    return Market(a, b, read_conventions(data, CONVENTIONS))


_STR = {str}


def _order(raw: object, agent: str, names: dict) -> WeakOrder:
    """``parse_weak_order(raw, agent=agent, known=names, canon=names)``, faster for a
    well-formed list: the look-up of each item in ``names`` (which maps each name of the
    other side to itself) both checks that it is known and gives the shared name object,
    and the rank dict being as long as the list shows that no item is listed twice. Any
    failure leaves ``raw`` untouched and defers to :func:`parse_weak_order`, which names
    the first error. The result is the same order, the same objects, ``raw`` rewritten to
    them alike."""
    if raw.__class__ is list:
        get = names.__getitem__
        try:
            if set(map(type, raw)) <= _STR:                         # strict
                order = tuple(map(get, raw))
                r = len(order)
                rank = dict(zip(order, shared_ints(r)[1:r + 1]))
                if len(rank) == r:
                    raw[:] = order
                    return WeakOrder.from_ranked(order, rank, r)
            else:
                groups = [e if e.__class__ is list else (e,) for e in raw]
                flat = list(chain.from_iterable(groups))
                if all(groups) and set(map(type, flat)) <= _STR:
                    order = tuple(map(get, flat))
                    r = len(groups)
                    rank = dict(zip(order, chain.from_iterable(
                        map(repeat, shared_ints(r)[1:r + 1], map(len, groups)))))
                    if len(rank) == len(order):
                        for i, e in enumerate(raw):
                            if e.__class__ is str:
                                raw[i] = get(e)
                            else:
                                e[:] = map(get, e)
                        return WeakOrder.from_ranked(order, rank, r)
        except (KeyError, TypeError):       # an unknown or unhashable item
            pass
    return parse_weak_order(raw, agent=agent, known=names, canon=names)
