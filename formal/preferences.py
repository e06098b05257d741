"""Weak orders over a subset of items: ties and incomplete lists.

A list is given best first; a nested list is a tie group; unranked items are omitted
(DESIGN.md, "Formats"). Strict orders are the special case with singleton ties.
Ranks are 1-based: the rank of an item is the index of its tie group.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .errors import InstanceError


@dataclass(frozen=True)
class WeakOrder:
    """A weak order over the items it lists, best tie first.

    ``ties``: tuple of tuples of item names, each non-empty, no item twice.
    ``rank``: item -> 1-based tie index; ``items``: the items best first (derived).
    """

    ties: tuple[tuple[str, ...], ...]
    rank: Mapping[str, int] = field(init=False, repr=False, compare=False)
    items: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        rank: dict[str, int] = {}
        for r, tie in enumerate(self.ties, 1):
            for x in tie:
                rank[x] = r
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "items", tuple(rank))

    def __contains__(self, x: str) -> bool:
        return x in self.rank

    def __len__(self) -> int:
        return len(self.rank)

    def is_strict(self) -> bool:
        return all(len(t) == 1 for t in self.ties)

    def prefers(self, a: str, b: str | None) -> bool:
        """a ≻ b; ``b=None`` stands for "unmatched", worse than any listed item."""
        if a not in self.rank:
            return False
        return b is None or self.rank[a] < self.rank.get(b, len(self.ties) + 1)

    def weakly_prefers(self, a: str, b: str | None) -> bool:
        """a ⪰ b; ``b=None`` stands for "unmatched"."""
        if a not in self.rank:
            return b is not None and b not in self.rank
        return b is None or self.rank[a] <= self.rank.get(b, len(self.ties) + 1)

    def to_json(self) -> list:
        """The DESIGN.md encoding: singletons as strings, ties as nested lists."""
        return [t[0] if len(t) == 1 else list(t) for t in self.ties]


def parse_weak_order(raw: object, *, agent: str | None = None,
                     known: Iterable[str] | None = None) -> WeakOrder:
    """Parse a DESIGN.md preference list into a :class:`WeakOrder`.

    ``raw``: list whose entries are item names (str) or non-empty lists of names (a tie).
    ``known``: if given (a set or dict is used as is), every item must be in it.
    Raises :class:`InstanceError` (naming ``agent`` and the value) for a non-list, an empty
    tie group, a non-string item, an item listed twice or an unknown item. O(len(raw)).
    """
    if not isinstance(raw, list):
        raise InstanceError("preference list must be a JSON list", agent=agent, value=raw)
    known_set = known if known is None or isinstance(known, (set, frozenset, dict)) else set(known)
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
