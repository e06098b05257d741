"""Weak orders over a subset of items: ties and incomplete lists.

A list is given best first; a nested list is a tie group; unranked items are omitted
(DESIGN.md, "Formats"). Strict orders are the special case with singleton ties.
Ranks are 1-based: the rank of an item is the index of its tie group.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Set
from typing import Any, NoReturn, TypeAlias

from .errors import InstanceError

#: Sets an attribute of an immutable :class:`WeakOrder` (its own ``__setattr__`` refuses).
_set: Callable[[object, str, Any], None] = object.__setattr__

#: A preference list as :meth:`WeakOrder.to_json` writes it: names, and lists for ties.
JsonList: TypeAlias = list["str | list[str]"]
#: The items a list may rank, as :func:`parse_weak_order` tests them (a set, or a dict's keys).
Known: TypeAlias = Set[str] | dict[str, Any]


class WeakOrder:
    """A weak order over the items it lists, best tie first.

    ``ties``: tuple of tuples of item names, each non-empty, no item twice.
    ``rank``: item -> 1-based tie index; ``items``: the items best first; ``nties``: the
    number of ties (all derived). Immutable; equal when the ties are equal.

    Built from ``ties``, or (by the parsers, without building a tuple per tie) from the
    items and their ranks (:meth:`from_ranked`); ``ties`` is then made on first use.
    """

    __slots__ = ("_ties", "rank", "items", "nties")

    _ties: tuple[tuple[str, ...], ...] | None
    rank: dict[str, int]
    items: tuple[str, ...]
    nties: int

    def __init__(self, ties: tuple[tuple[str, ...], ...]) -> None:
        rank: dict[str, int] = {}
        for r, tie in enumerate(ties, 1):
            for x in tie:
                rank[x] = r
        _set(self, "_ties", ties)
        _set(self, "rank", rank)
        _set(self, "items", tuple(rank))
        _set(self, "nties", len(ties))

    @classmethod
    def from_ranked(cls, items: tuple[str, ...], rank: dict[str, int], nties: int
                    ) -> WeakOrder:
        """The order whose items, best first, are ``items`` with ``rank`` (1-based tie
        indices, non-decreasing along ``items``, every index 1..nties used). O(1)."""
        self = object.__new__(cls)
        _set(self, "_ties", None)
        _set(self, "rank", rank)
        _set(self, "items", items)
        _set(self, "nties", nties)
        return self

    @property
    def ties(self) -> tuple[tuple[str, ...], ...]:
        ties = self._ties
        if ties is None:
            if self.nties == len(self.items):
                ties = tuple((x,) for x in self.items)
            else:
                groups: list[list[str]] = []
                rank, last = self.rank, 0
                for x in self.items:
                    if rank[x] != last:
                        groups.append([])
                        last = rank[x]
                    groups[-1].append(x)
                ties = tuple(map(tuple, groups))
            _set(self, "_ties", ties)
        return ties

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"WeakOrder is immutable (cannot set {name!r})")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__ or not isinstance(other, WeakOrder):
            return NotImplemented
        return self.items == other.items and self.rank == other.rank

    def __hash__(self) -> int:
        return hash(self.ties)

    def __repr__(self) -> str:
        return f"WeakOrder(ties={self.ties!r})"

    def __reduce__(self) -> tuple[type[WeakOrder], tuple[tuple[tuple[str, ...], ...]]]:
        return (WeakOrder, (self.ties,))

    def __contains__(self, x: str) -> bool:
        return x in self.rank

    def __len__(self) -> int:
        return len(self.rank)

    def is_strict(self) -> bool:
        return self.nties == len(self.items)

    def prefers(self, a: str, b: str | None) -> bool:
        """a ≻ b; ``b=None`` stands for "unmatched", worse than any listed item."""
        if a not in self.rank:
            return False
        return b is None or self.rank[a] < self.rank.get(b, self.nties + 1)

    def weakly_prefers(self, a: str, b: str | None) -> bool:
        """a ⪰ b; ``b=None`` stands for "unmatched"."""
        if a not in self.rank:
            return b is not None and b not in self.rank
        return b is None or self.rank[a] <= self.rank.get(b, self.nties + 1)

    def to_json(self) -> JsonList:
        """The DESIGN.md encoding: singletons as strings, ties as nested lists."""
        return [t[0] if len(t) == 1 else list(t) for t in self.ties]


def parse_weak_order(raw: object, *, agent: str | None = None,
                     known: Iterable[str] | None = None, canon: dict[str, str] | None = None
                     ) -> WeakOrder:
    """Parse a DESIGN.md preference list into a :class:`WeakOrder`.

    ``raw``: list whose entries are item names (str) or non-empty lists of names (a tie).
    ``known``: if given (a set or dict is used as is), every item must be in it.
    ``canon``: if given, a dict name -> the one string object to use for that name; the
    order's items are those objects, and so become the entries of ``raw`` (equal strings,
    so the data is unchanged; a big market then keeps one string per agent).
    Raises :class:`InstanceError` (naming ``agent`` and the value) for a non-list, an empty
    tie group, a non-string item, an item listed twice or an unknown item. O(len(raw)):
    well-formed lists are validated by set operations, the first error is located by the
    item-by-item pass.
    """
    if not isinstance(raw, list):
        raise InstanceError("preference list must be a JSON list", agent=agent, value=raw)
    known_set: Known | None = known if known is None or isinstance(
        known, (set, frozenset, dict)) else set(known)
    order = _fast_order(raw, known_set, canon)
    if order is not None:
        return order
    seen: set[str] = set()
    ties: list[tuple[str, ...]] = []
    for entry in raw:
        group = (entry,) if entry.__class__ is str else entry
        if not isinstance(group, (list, tuple)):
            raise InstanceError("item must be a string", agent=agent, value=entry)
        if not group:
            raise InstanceError("empty tie group", agent=agent, value=entry)
        for x in group:
            if x.__class__ is not str:
                raise InstanceError("item must be a string", agent=agent, value=x)
            if x in seen:
                raise InstanceError("item listed twice", agent=agent, value=x)
            if known_set is not None and x not in known_set:
                raise InstanceError("ranks an unknown item", agent=agent, value=x)
            seen.add(x)
        ties.append(tuple(group))
    return WeakOrder(tuple(ties))


_STR = {str}


def flat_ranks(raw: list[Any]) -> tuple[list[Any], list[int] | None] | None:
    """(items in order, their ranks, 1 for the first class) of a list of strings and
    non-empty lists of strings, the ranks None when every entry is a string (the list itself
    is then the flat list); None when an entry has another shape or type. O(len) with type
    sets, no check per item in the strict case."""
    if set(map(type, raw)) <= _STR:
        return raw, None
    flat: list[Any] = []
    ranks: list[int] = []
    r = 0
    for entry in raw:
        r += 1
        if entry.__class__ is str:
            flat.append(entry)
            ranks.append(r)
        elif entry.__class__ is list and entry:
            flat.extend(entry)
            ranks.extend([r] * len(entry))
        else:
            return None
    return (flat, ranks) if set(map(type, flat)) <= _STR else None


def _fast_order(raw: list[Any], known: Known | None, canon: dict[str, str] | None
                ) -> WeakOrder | None:
    """The order of a well-formed list, or None when some check fails (the caller's
    item-by-item pass then names the first error). Every item a string (checked by its
    type set), none twice (a set as long as the list), every one known (a subset test)."""
    scan = flat_ranks(raw)
    if scan is None:
        return None
    flat, ranks = scan
    strict, r = ranks is None, len(raw)
    items = set(flat)
    if len(items) != len(flat) or (known is not None and not (
            known.keys() >= items if isinstance(known, dict) else items <= known)):
        return None                        # (a dict's keys view: no copy of the dict)
    if canon is not None:
        order = tuple(map(canon.__getitem__, flat))
        if strict:                 # the input holds the same objects from now on (equal
            raw[:] = order         # strings: the data and its hash do not change)
        else:
            for i, entry in enumerate(raw):
                if entry.__class__ is str:
                    raw[i] = canon[entry]
                else:
                    entry[:] = map(canon.__getitem__, entry)
    else:
        order = tuple(flat)
    ints = shared_ints(r)                # one int object per rank, shared by every order
    if ranks is None:
        return WeakOrder.from_ranked(order, dict(zip(order, ints[1:r + 1])), r)
    return WeakOrder.from_ranked(order, dict(zip(order, map(ints.__getitem__, ranks))), r)


_INTS: list[int] = list(range(1025))


def shared_ints(n: int) -> list[int]:
    """The shared int objects 0..n (ints above 256 are otherwise one object per use)."""
    if n >= len(_INTS):
        _INTS.extend(range(len(_INTS), 2 * n + 1))
    return _INTS
