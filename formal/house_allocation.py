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

from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from .errors import InstanceError
from .weak_order import WeakOrder, flat_ranks, parse_weak_order
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
class RankIndex:
    """The lists of a :class:`HouseAllocation` as integers: agent ``i`` is
    ``model.agents[i]``, object ``j`` is ``model.objects[j]``.

    ``offsets``: ``offsets[i]:offsets[i + 1]`` are agent ``i``'s entries (``len(agents) + 1``
    values). ``objects``: the object index of each entry, the lists concatenated best first.
    ``ranks``: the 1-based tie index of each entry, or None when every list is strict (the
    rank of an entry is then its position in its list plus one). ``max_rank``: the largest
    rank (0 without entries). Arrays of the standard library's :mod:`array`, so that numpy
    reads them without a copy and the checker without numpy.
    """

    offsets: array[int]
    objects: array[int]
    ranks: array[int] | None
    max_rank: int

    def entry_ranks(self, i: int) -> Iterable[int]:
        """The ranks of agent ``i``'s entries, best first. O(1) (a range or an array slice)."""
        lo, hi = self.offsets[i], self.offsets[i + 1]
        return range(1, hi - lo + 1) if self.ranks is None else self.ranks[lo:hi]

    def entries(self, i: int) -> array[int]:
        """The objects of agent ``i``'s entries, best first. O(len) (an array slice)."""
        return self.objects[self.offsets[i]:self.offsets[i + 1]]

    def nties(self, i: int) -> int:
        """The number of ties of agent ``i``'s list (its last rank; 0 when empty). O(1)."""
        lo, hi = self.offsets[i], self.offsets[i + 1]
        if hi == lo:
            return 0
        return hi - lo if self.ranks is None else self.ranks[hi - 1]

    def rank(self, i: int, j: int) -> int | None:
        """The rank of object ``j`` in agent ``i``'s list, None when ``i`` does not list
        it. O(len) (one C-level search of the slice)."""
        lo, hi = self.offsets[i], self.offsets[i + 1]
        try:
            p = self.objects.index(j, lo, hi)
        except ValueError:
            return None
        return p - lo + 1 if self.ranks is None else self.ranks[p]

    def is_strict(self) -> bool:
        """Whether every list is strict (no tie of two or more objects). O(n)."""
        if self.ranks is None:
            return True
        offsets, ranks = self.offsets, self.ranks
        return all(hi == lo or ranks[hi - 1] == hi - lo
                   for lo, hi in zip(offsets, offsets[1:]))


class LazyOrders(Mapping[str, WeakOrder]):
    """agent -> :class:`WeakOrder`, each order parsed from its (already validated) list
    on first access, so that a large instance whose engines read only the
    :class:`RankIndex` never builds its rank dicts. Iterates in input order."""

    __slots__ = ("_raw", "_known", "_built")

    def __init__(self, raw: Mapping[str, Any], known: Mapping[str, Any]) -> None:
        self._raw = raw
        self._known = known
        self._built: dict[str, WeakOrder] = {}

    def __getitem__(self, agent: str) -> WeakOrder:
        order = self._built.get(agent)
        if order is None:
            order = parse_weak_order(self._raw[agent], agent=agent, known=self._known)
            self._built[agent] = order
        return order

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __contains__(self, agent: object) -> bool:
        return agent in self._raw

    def adopt(self, orders: Mapping[str, WeakOrder], raw: Mapping[str, Any]) -> bool:
        """Take the orders another model parsed from the very same lists (``raw`` must be
        this mapping's own input object, e.g. a housing market over the same preference
        dict: its orders are the ones this mapping would parse). Returns whether they were
        taken (not when ``raw`` is another object or the agents differ). O(n)."""
        if raw is not self._raw or list(orders) != list(raw):
            return False
        for a, o in orders.items():
            self._built.setdefault(a, o)
        return True


@dataclass(frozen=True)
class HouseAllocation:
    """A house-allocation instance.

    ``prefs``: agent -> WeakOrder over the objects it finds acceptable (best tie first).
    ``objects``: every object, in input order (objects nobody ranks included).
    ``index``: the same lists as integers (:class:`RankIndex`; built by the parser, or from
    ``prefs`` on first use of :meth:`rank_index`).
    """

    prefs: Mapping[str, WeakOrder]
    objects: tuple[str, ...]
    conventions: Mapping[str, str] = field(
        default_factory=lambda: {k: c.default for k, c in CONVENTIONS.items()},
        compare=False, repr=False)
    index: RankIndex | None = field(default=None, compare=False, repr=False)
    #: name -> int of the agents and of the objects, made on first use
    _ids: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    def rank_index(self) -> RankIndex:
        """The :class:`RankIndex` of the lists (made from ``prefs`` once when the parser did
        not give it). O(L) the first time, O(1) after."""
        if self.index is None:
            oi = {h: j for j, h in enumerate(self.objects)}
            offsets, objs, ranks = array("q", [0]), array("i"), array("i")
            top = 0
            for o in self.prefs.values():
                objs.extend(map(oi.__getitem__, o.items))
                ranks.extend(map(o.rank.__getitem__, o.items))
                offsets.append(len(objs))
                top = max(top, o.nties)
            object.__setattr__(self, "index", RankIndex(offsets, objs, ranks, top))
        assert self.index is not None
        return self.index

    def agent_ids(self) -> dict[str, int]:
        """Agent name -> its int (its position in input order). O(n) once, O(1) after."""
        ids = self._ids.get("agents")
        if ids is None:
            ids = self._ids["agents"] = {a: i for i, a in enumerate(self.prefs)}
        return ids

    def object_ids(self) -> dict[str, int]:
        """Object name -> its int (its position in ``objects``), as in :class:`RankIndex`.
        O(m) once, O(1) after."""
        ids = self._ids.get("objects")
        if ids is None:
            ids = self._ids["objects"] = {h: j for j, h in enumerate(self.objects)}
        return ids

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


def _strict_indexed(prefs: dict[str, Any], known: list[str] | None
                    ) -> tuple[tuple[str, ...], dict[str, int], RankIndex] | None:
    """:func:`_indexed` of strict lists (every entry a string), or None when the lists are
    not all well-formed strict lists. Two C-level passes per list and no type scan: the
    look-up of each entry's index bytes (``b"".join(map(code.__getitem__, …))``) refuses anything that is not a known object
    name (a tie group is unhashable, a number or an unknown name a missing key; the
    object table holds strings only), and a set as long as the list has no item twice.
    Without ``objects`` the table is every ranked entry in order of first mention
    (``dict.fromkeys``), its type set checked once per distinct entry. O(L)."""
    lists = list(prefs.values())
    if not all(lst.__class__ is list for lst in lists):
        return None
    try:
        if known is None:
            objects = tuple(dict.fromkeys(chain.from_iterable(lists)))
            if not set(map(type, objects)) <= {str}:
                return None
        else:
            objects = tuple(known)
        oi = {h: j for j, h in enumerate(objects)}
        code = {h: array("i", [j]).tobytes() for h, j in oi.items()}  # j's machine bytes
        offsets, objs = array("q", [0]), array("i")
        top = 0
        for lst in lists:       # one look-up per entry, then a memcpy: no int conversion
            objs.frombytes(b"".join(map(code.__getitem__, lst)))
            if len(set(lst)) != len(lst):
                return None
            offsets.append(len(objs))
            top = max(top, len(lst))
    except (KeyError, TypeError):
        return None
    return objects, oi, RankIndex(offsets, objs, None, top)


def _indexed(prefs: dict[str, Any], known: list[str] | None
             ) -> tuple[tuple[str, ...], dict[str, int], RankIndex] | None:
    """(objects, object -> index, :class:`RankIndex`) of well-formed preference lists, or
    None when some list fails a check (the caller's exact pass then names the first error).
    Every list a list of strings or non-empty lists of strings (type sets), no item twice (a
    set as long as the list), every item known (the index look-up). O(L), no dict per
    agent."""
    flats: list[list[Any]] = []
    ranks: array[int] | None = None
    top = 0
    for lst in prefs.values():
        if lst.__class__ is not list:
            return None
        scan = flat_ranks(lst)
        if scan is None:
            return None
        flat, rk = scan
        if rk is None:
            if ranks is not None:
                ranks.extend(range(1, len(lst) + 1))
        else:
            if ranks is None:           # the strict lists so far: their positions
                ranks = array("i")
                for f in flats:
                    ranks.extend(range(1, len(f) + 1))
            ranks.extend(rk)
        if len(set(flat)) != len(flat):
            return None
        top = max(top, len(lst))
        flats.append(flat)
    objects = tuple(dict.fromkeys(chain.from_iterable(flats)) if known is None else known)
    oi = {h: j for j, h in enumerate(objects)}
    offsets, objs = array("q", [0]), array("i")
    try:
        for flat in flats:
            objs.fromlist(list(map(oi.__getitem__, flat)))   # (faster than extend)
            offsets.append(len(objs))
    except KeyError:
        return None
    return objects, oi, RankIndex(offsets, objs, ranks, top)


def parse_house_allocation(data: dict) -> HouseAllocation:
    """Parse ``{"preferences": {agent: [objects best first, nested list = tie]},
    "objects": [...]}`` (``objects`` optional; default: every ranked object, in order of
    first mention).

    Raises :class:`InstanceError` naming the agent and the value for: preferences that are
    not an object, a non-string agent, ``objects`` not a list of distinct strings, an
    object ranked twice by one agent, an empty tie group, a non-string object, an object
    not in ``objects``. O(total list length): the lists are validated and indexed in one
    pass (:class:`RankIndex`), and each agent's :class:`WeakOrder` is made on first use
    (:class:`LazyOrders`; the orders reference the input lists, which must not change).
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
    fast = _strict_indexed(prefs, known) or _indexed(prefs, known)
    if fast is not None:
        objects, oi, index = fast
        return HouseAllocation(LazyOrders(prefs, oi), objects,
                               read_conventions(data, CONVENTIONS), index)
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
