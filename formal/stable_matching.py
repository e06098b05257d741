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
from itertools import compress, count, repeat
from operator import contains, is_
from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any, Callable

from .house_allocation import WELFARE_SCOPE
from .errors import InstanceError
from .weak_order import WeakOrder, parse_weak_order, shared_ints
from .spec import Convention, read_conventions

#: Sets an attribute of an immutable :class:`Market` (its own ``__setattr__`` refuses).
_set: Callable[[object, str, Any], None] = object.__setattr__

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


@dataclass(frozen=True, eq=False)
class Side:
    """One side of an SMTI market as integers (see :class:`IntMarket`).

    ``names``: the agents in input order (agent ``i`` is ``names[i]``); ``index``: name ->
    int. ``lists[i]``: the partners (ints of the other side) of agent ``i``, best first,
    restricted to mutually acceptable ones; ``ties[i]``: their 1-based tie indices, aligned
    with ``lists[i]`` (non-decreasing, every index 1..``nties[i]`` used); ``rank[i]``:
    partner -> tie index (O(1) look-up). ``written`` / ``written_ties`` /
    ``written_nties``: the lists as given (one-sided entries kept, their own tie indices);
    the very same list objects where nothing was dropped.
    """

    names: list[str]
    index: dict[str, int]
    lists: list[list[int]]
    ties: list[list[int]]
    nties: list[int]
    rank: list[dict[int, int]]
    written: list[list[int]]
    written_ties: list[list[int]]
    written_nties: list[int]


@dataclass(frozen=True, eq=False)
class IntMarket:
    """An SMTI market held as integers: agents ``0..n-1`` per side in input order, each
    list an array of partner ints with aligned tie indices and a rank dict (:class:`Side`).
    Every oracle and check reads this form; the names are kept for output."""

    a: Side
    b: Side
    #: per agent of each side, its position in its side sorted by name (for outputs and
    #: choices that the name-keyed algorithms made by name order); built on first use
    _order: dict = field(default_factory=dict, repr=False)

    def name_order(self, side: str) -> list[int]:
        """``key[i]``: the position of agent ``i`` of ``side`` ("A" or "B") when the side's
        names are sorted (so ``sorted(ints, key=key.__getitem__)`` is the name order)."""
        key = self._order.get(side)
        if key is None:
            names = (self.a if side == "A" else self.b).names
            key = [0] * len(names)
            for pos, i in enumerate(sorted(range(len(names)), key=names.__getitem__)):
                key[i] = pos
            self._order[side] = key
        return key


class Market:
    """An SMTI market. ``a``/``b``: agent -> WeakOrder over the other side, as given.

    ``pa``/``pb``: the same orders restricted to mutually acceptable partners (derived);
    every definition uses these. ``ints``: the same market as integers
    (:class:`IntMarket`), which the oracles and the checker read.

    Built from the orders (``Market(a, b)``: the integer form is then made on first use) or,
    by :func:`parse_market`, from the integer form (:meth:`from_ints`: the orders are then
    made on first use, one agent at a time). Immutable; equal when ``a`` and ``b`` are.
    """

    __slots__ = ("_a", "_b", "_pa", "_pb", "_ints", "conventions")

    _a: Mapping[str, WeakOrder] | None
    _b: Mapping[str, WeakOrder] | None
    _pa: Mapping[str, WeakOrder] | None
    _pb: Mapping[str, WeakOrder] | None
    _ints: IntMarket | None
    conventions: Mapping[str, str]

    def __init__(self, a: Mapping[str, WeakOrder], b: Mapping[str, WeakOrder],
                 conventions: Mapping[str, str] | None = None) -> None:
        _set(self, "_a", a)
        _set(self, "_b", b)
        _set(self, "conventions", _default_conventions() if conventions is None
             else conventions)
        _set(self, "_ints", None)
        pa = restrict(a, b)
        _set(self, "_pa", pa)
        # Every entry of A's lists mutual (each order kept as is) and as many entries on
        # each side: A's entries are distinct pairs that B's lists all hold, so they are all
        # of B's entries, and B's lists are all mutual too (no pass over them needed).
        if all(map(is_, pa.values(), a.values())) and \
                sum(map(len, a.values())) == sum(map(len, b.values())):
            _set(self, "_pb", dict(b))
        else:
            _set(self, "_pb", restrict(b, a))

    @classmethod
    def from_ints(cls, ints: IntMarket, conventions: Mapping[str, str] | None = None
                  ) -> Market:
        """The market of an integer form; its orders are made on first use. O(1)."""
        self = object.__new__(cls)
        for name in ("_a", "_b", "_pa", "_pb"):
            _set(self, name, None)
        _set(self, "_ints", ints)
        _set(self, "conventions", _default_conventions() if conventions is None
             else conventions)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self):
        if self._ints is not None and self._a is None:
            return _market_from_ints, (self._ints, dict(self.conventions))
        return Market, (dict(self.a), dict(self.b), dict(self.conventions))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__ or not isinstance(other, Market):
            return NotImplemented
        return (self.a, self.b) == (other.a, other.b)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Market(a={dict(self.a)!r}, b={dict(self.b)!r})"

    @property
    def ints(self) -> IntMarket:
        """The integer form (built on first use when the market was built from orders)."""
        ints = self._ints
        if ints is None:
            ints = _ints_from_orders(self.a, self.b, self.pa, self.pb)
            _set(self, "_ints", ints)
        return ints

    @property
    def a(self) -> Mapping[str, WeakOrder]:
        """Side A's orders as given."""
        a = self._a
        if a is None:
            s, o = self.ints.a, self.ints.b
            a = _Orders(s.names, s.index, s.written, s.written_ties, s.written_nties, o.names)
            _set(self, "_a", a)
        return a

    @property
    def b(self) -> Mapping[str, WeakOrder]:
        """Side B's orders as given."""
        b = self._b
        if b is None:
            s, o = self.ints.b, self.ints.a
            b = _Orders(s.names, s.index, s.written, s.written_ties, s.written_nties, o.names)
            _set(self, "_b", b)
        return b

    @property
    def pa(self) -> Mapping[str, WeakOrder]:
        """Side A's orders restricted to mutually acceptable partners."""
        pa = self._pa
        if pa is None:
            s, o = self.ints.a, self.ints.b
            pa = self.a if s.lists is s.written else _Orders(
                s.names, s.index, s.lists, s.ties, s.nties, o.names)
            _set(self, "_pa", pa)
        return pa

    @property
    def pb(self) -> Mapping[str, WeakOrder]:
        """Side B's orders restricted to mutually acceptable partners."""
        pb = self._pb
        if pb is None:
            s, o = self.ints.b, self.ints.a
            pb = self.b if s.lists is s.written else _Orders(
                s.names, s.index, s.lists, s.ties, s.nties, o.names)
            _set(self, "_pb", pb)
        return pb

    @property
    def size(self) -> int:
        """max(|A|, |B|): the "n a side" used to pick engines."""
        if self._a is not None and self._b is not None:
            return max(len(self._a), len(self._b))
        return max(len(self.ints.a.names), len(self.ints.b.names))

    def edges(self) -> Iterator[tuple[str, str]]:
        """Admissible pairs (a, b), in a's list order."""
        ints = self.ints
        nb = ints.b.names
        for x, lst in zip(ints.a.names, ints.a.lists):
            for j in lst:
                yield x, nb[j]

    def to_json(self) -> dict:
        return {"A": {x: o.to_json() for x, o in self.a.items()},
                "B": {y: o.to_json() for y, o in self.b.items()}}


def _default_conventions() -> dict[str, str]:
    return {k: c.default for k, c in CONVENTIONS.items()}


def _market_from_ints(ints: IntMarket, conventions: Mapping[str, str]) -> Market:
    return Market.from_ints(ints, conventions)


class _Orders(Mapping[str, WeakOrder]):
    """Agent name -> WeakOrder of one side of an integer form, each order made on its first
    look-up (membership and length need none)."""

    __slots__ = ("_names", "_index", "_lists", "_ties", "_nties", "_other", "_made")

    def __init__(self, names: list[str], index: dict[str, int], lists: list[list[int]],
                 ties: list[list[int]], nties: list[int], other: list[str]) -> None:
        self._names, self._index, self._lists, self._ties = names, index, lists, ties
        self._nties, self._other = nties, other
        self._made: list[WeakOrder | None] = [None] * len(names)

    def __getitem__(self, name: str) -> WeakOrder:
        i = self._index[name]
        o = self._made[i]
        if o is None:
            items = tuple(map(self._other.__getitem__, self._lists[i]))
            o = WeakOrder.from_ranked(items, dict(zip(items, self._ties[i])), self._nties[i])
            self._made[i] = o
        return o

    def __contains__(self, name: object) -> bool:
        try:
            return name in self._index
        except TypeError:
            return False

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return repr(dict(self))


def _side_from_orders(written: Mapping[str, WeakOrder], mutual: Mapping[str, WeakOrder],
                      other: dict[str, int]) -> Side:
    """A :class:`Side` from one side's orders as given and restricted."""
    names = list(written)
    get = other.__getitem__

    def arrays(orders):
        lists = [list(map(get, o.items)) for o in orders.values()]
        ties = [list(map(o.rank.__getitem__, o.items)) for o in orders.values()]
        return lists, ties, [o.nties for o in orders.values()]
    wl, wt, wn = arrays(written)
    if all(map(is_, mutual.values(), written.values())):
        ml, mt, mn = wl, wt, wn
    else:
        ml, mt, mn = arrays(mutual)
    return Side(names, dict(zip(names, range(len(names)))), ml, mt, mn,
                [dict(zip(lst, t)) for lst, t in zip(ml, mt)], wl, wt, wn)


def _ints_from_orders(a: Mapping[str, WeakOrder], b: Mapping[str, WeakOrder],
                      pa: Mapping[str, WeakOrder], pb: Mapping[str, WeakOrder]) -> IntMarket:
    """The integer form of a market given by its orders. O(L)."""
    ia = dict(zip(a, range(len(a))))
    ib = dict(zip(b, range(len(b))))
    return IntMarket(_side_from_orders(a, pa, ib), _side_from_orders(b, pb, ia))


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
    group. O(total list length), one pass: agents are numbered per side in input order and
    every list becomes partner ints with tie indices and a rank dict (:class:`IntMarket`),
    restricted to mutually acceptable pairs; the WeakOrders of ``a``/``b``/``pa``/``pb``
    are made from it on first look-up and hold the model's own name objects (equal to the
    keys of ``data``, :func:`_own_names`). The input is only read.
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
    names_a, names_b = _own_names(prefs["A"]), _own_names(prefs["B"])
    ia = dict(zip(names_a, range(len(names_a))))
    ib = dict(zip(names_b, range(len(names_b))))
    wa = _side_ints(prefs["A"], ib)
    wb = _side_ints(prefs["B"], ia)
    return Market.from_ints(_mutual(names_a, ia, wa, names_b, ib, wb),
                            read_conventions(data, CONVENTIONS))


def _own_names(side: dict) -> list[str]:
    """The agents of one side in input order, each a new string object equal to its key
    in ``side``. The model's names are then laid out together, away from the decoded
    lists around the keys: a forked pool worker that reads a model's names (each label
    does) copies their few pages rather than every page of the decoded instance
    (copy-on-write: reading an object writes its reference count). O(agents)."""
    return [(x + "\0")[:-1] for x in side]


#: Lists of at most this many items (a tie group counts as one) are read by
#: :func:`_side_ints` in one plain loop; longer ones by C-level passes (type set, ``map``,
#: :func:`_flatten`). Measured at n = 10 with ties (CPU, in process): the loop reads a
#: side in about half the time (a tie group of more than 4 items is still copied at C
#: level, so one big tie costs as before); the tie indices it makes are ints below 257, which
#: CPython shares anyway (so the arrays are those of :func:`shared_ints`).
SMALL_LIST = 64

#: One side's lists as written: (lists, ties, nties, rank), per agent in input order.
_Arrays = tuple[list[list[int]], list[list[int]], list[int], list[dict[int, int]]]


def _side_ints(side: dict, index: dict[str, int]) -> _Arrays:
    """One side's lists as partner ints, in one pass over the decoded lists: per list a
    C-level type check (strings, or non-empty lists of strings), the look-up of each item
    in ``index`` (the other side's name -> int: it both checks that the item is known and
    numbers it) and a rank dict as long as the list (so no item is listed twice). A list
    of at most :data:`SMALL_LIST` items (ties counted as one) is read by one plain loop
    over its items instead, straight into its rank dict, whose keys and values (in list
    order) are then the partner ints and the tie indices: on short lists the C-level
    passes cost more in set-up than they save (the same arrays). A list failing any check goes to
    :func:`parse_weak_order`, which names the first error (or parses it, the same
    order). O(total length)."""
    get = index.__getitem__
    lists: list[list[int]] = []
    ties: list[list[int]] = []
    nties: list[int] = []
    ranks: list[dict[int, int]] = []
    for x, raw in side.items():
        if raw.__class__ is list and len(raw) <= SMALL_LIST:
            rank = {}                               # partner -> tie index, in list order
            k = 0                                   # the tie index of the current item
            items = 0                               # the partners read (a repeat: fewer keys)
            try:
                for item in raw:
                    k += 1
                    if item.__class__ is str:
                        rank[get(item)] = k
                        items += 1
                    elif item.__class__ is list and item:
                        if len(item) > 4:           # a big tie: C-level passes
                            if not set(map(type, item)) <= _STR:
                                raise TypeError
                            rank.update(zip(map(get, item), repeat(k)))
                        else:
                            for y in item:
                                if y.__class__ is not str:
                                    raise TypeError
                                rank[get(y)] = k
                        items += len(item)
                    else:
                        raise TypeError
                if len(rank) == items:
                    lists.append(list(rank))
                    ties.append(list(rank.values()))
                    nties.append(k)
                    ranks.append(rank)
                    continue
            except (KeyError, TypeError):       # an unknown item, or not a string
                pass
        elif raw.__class__ is list:
            try:
                if set(map(type, raw)) <= _STR:                         # strict
                    lst = list(map(get, raw))
                    r = len(lst)
                    tie = shared_ints(r)[1:r + 1]
                    rank = dict(zip(lst, tie))
                    if len(rank) == r:
                        lists.append(lst)
                        ties.append(tie)
                        nties.append(r)
                        ranks.append(rank)
                        continue
                else:
                    flat, tie, r = _flatten(raw)
                    if r and set(map(type, flat)) <= _STR:
                        lst = list(map(get, flat))
                        rank = dict(zip(lst, tie))
                        if len(rank) == len(lst):
                            lists.append(lst)
                            ties.append(tie)
                            nties.append(r)
                            ranks.append(rank)
                            continue
            except (KeyError, TypeError):       # an unknown or unhashable item
                pass
        o = parse_weak_order(raw, agent=x, known=index)
        lst = list(map(get, o.items))
        tie = list(map(o.rank.__getitem__, o.items))
        lists.append(lst)
        ties.append(tie)
        nties.append(o.nties)
        ranks.append(dict(zip(lst, tie)))
    return lists, ties, nties, ranks


def _flatten(raw: list) -> tuple[list, list[int], int]:
    """A list with tie groups (lists) as its items flattened, with the 1-based tie index of
    each item and the number of ties; ``r`` is 0 when a tie group is empty (the caller
    then lets :func:`parse_weak_order` name the error). The runs of single items between
    the groups are copied by slices (C level): Python work per tie group, not per item.
    O(len(flat))."""
    n = len(raw)
    ints = shared_ints(n)
    flat: list = []
    tie: list[int] = []
    add, add_tie = flat.extend, tie.extend
    prev, k = 0, 1                   # raw[prev:] not yet copied; k: its first tie index
    for p in compress(count(), map(is_, map(type, raw), repeat(list))):
        group = raw[p]
        if not group:
            return flat, tie, 0
        add(raw[prev:p])
        add_tie(ints[k:k + p - prev])
        k += p - prev
        add(group)
        add_tie([ints[k]] * len(group))
        k += 1
        prev = p + 1
    add(raw[prev:])
    add_tie(ints[k:k + n - prev])
    return flat, tie, k + n - prev - 1


def _keep_mutual(w: _Arrays, other_rank: list[dict[int, int]]) -> tuple[_Arrays, bool]:
    """Each list of ``w`` restricted to the partners whose (written) list holds its owner,
    re-ranked without the emptied ties; a list with nothing dropped is kept (the same
    objects). Returns the arrays and whether every list was kept. O(total length)."""
    lists, ties, nties, ranks = w
    out_l, out_t, out_n, out_r = [], [], [], []
    kept = True
    for i, lst in enumerate(lists):
        if all(map(contains, map(other_rank.__getitem__, lst), repeat(i))):
            out_l.append(lst)
            out_t.append(ties[i])
            out_n.append(nties[i])
            out_r.append(ranks[i])
            continue
        kept = False
        keep, new, last, r = [], [], 0, 0
        ints = shared_ints(len(lst))
        for j, t in zip(lst, ties[i]):
            if i in other_rank[j]:
                if t != last:
                    last, r = t, r + 1
                keep.append(j)
                new.append(ints[r])
        out_l.append(keep)
        out_t.append(new)
        out_n.append(r)
        out_r.append(dict(zip(keep, new)))
    return (out_l, out_t, out_n, out_r), kept


def _mutual(names_a: list[str], ia: dict[str, int], wa: _Arrays,
            names_b: list[str], ib: dict[str, int], wb: _Arrays) -> IntMarket:
    """The integer form from both sides' lists as written: restricted to mutually
    acceptable pairs. O(total length); no pass over the entries when every list is
    complete (each as long as the other side, so every pair is mutual), none over B's
    when A's lists are all mutual and the sides have as many entries."""
    na, nb = len(names_a), len(names_b)
    if all(len(lst) == nb for lst in wa[0]) and all(len(lst) == na for lst in wb[0]):
        ma, mb = wa, wb
    else:
        ma, kept = _keep_mutual(wa, wb[3])
        if kept and sum(map(len, wa[0])) == sum(map(len, wb[0])):
            ma, mb = wa, wb
        else:
            mb, kept_b = _keep_mutual(wb, wa[3])
            if kept:
                ma = wa
            if kept_b:
                mb = wb
    return IntMarket(
        Side(names_a, ia, *ma, wa[0], wa[1], wa[2]),
        Side(names_b, ib, *mb, wb[0], wb[1], wb[2]))


_STR = {str}
