"""The list state of a deletion-log replay (hospitals/residents; the SMTI replay keeps the
same state in integer arrays within one function, :func:`.stable_matching.replay_deletion_log`).

Proposers (A-agents, residents) hold weak orders over receivers (B-agents, hospitals); every
deletion removes a suffix of one receiver's list, so the state is one rank cut per
receiver: (x, y) is alive iff ``rrank[y][x] < cut[y]``. A proposer's *head tie* is the
best tie of its list that still holds an alive entry.

Linear time for every tie structure: each proposer keeps the index of its head tie and a
count of its alive entries. A deletion inside the head tie decrements the count; only
when it reaches zero does the head move on, scanning forward over the later ties, and no
tie is scanned twice (the head never moves back). So a whole replay touches each list
entry O(1) times — O(L) — whether the lists are strict, hold one big tie or are one tie
each; membership of a receiver in a head tie is O(1) (its rank equals the head rank and
the pair is alive), never a rescan of the tie.
"""
from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from itertools import repeat
from operator import getitem
from typing import Any


def mutual_ranks(lists: Mapping[Any, list], rrank: Any) -> dict:
    """Proposer -> its rank on the list of each of its items, aligned with its list
    (``rrank[y][x]`` for each item ``y`` of ``lists[x]``): a replay tests whether an entry
    is alive on these arrays, read in list order, instead of one look-up in a receiver's
    rank dict per entry. One C-level pass per list; O(L)."""
    return {x: list(map(getitem, map(rrank.__getitem__, lst), repeat(x)))
            for x, lst in lists.items()}


class DeletionState:
    """Current lists during a replay.

    ``proposers``: proposer -> WeakOrder over receivers (the mutually acceptable lists);
    ``receivers``: receiver -> WeakOrder over proposers. ``lists``: proposer -> its items;
    ``prank`` / ``rrank``: the rank dicts; ``rlist``: receiver -> items (sorted by
    rank); ``cut`` / ``end``: per receiver the rank cut and the alive prefix length.
    """

    def __init__(self, proposers: Mapping[Any, Any], receivers: Mapping[Any, Any]):
        self.setup({x: o.items for x, o in proposers.items()},
                   {x: o.rank for x, o in proposers.items()},
                   {y: o.rank for y, o in receivers.items()},
                   {y: o.items for y, o in receivers.items()},
                   {y: o.nties for y, o in receivers.items()})

    def setup(self, lists: dict, prank: dict, rrank: dict, rlist: dict, rnties: dict,
              mrank: dict | None = None) -> None:
        """The state from the lists themselves (any hashable agents, e.g. the integers of an
        integer form): proposer -> its items and its rank dict, receiver -> its rank dict,
        its items (sorted by rank) and its number of ties. ``mrank``: proposer -> its
        rank on the list of each of its items, aligned with its list (made here when not
        given, :func:`mutual_ranks`)."""
        self.lists, self.prank, self.rrank, self.rlist = lists, prank, rrank, rlist
        self.mrank = mutual_ranks(lists, rrank) if mrank is None else mrank
        self.cut = {y: t + 1 for y, t in rnties.items()}
        self.end = {y: len(lst) for y, lst in rlist.items()}
        self.full = dict(self.cut)        # the cut of a list nothing was deleted from
        self.start = dict.fromkeys(self.lists, 0)  # the head tie's alive entries lie in
                                                   # lists[x][start:stop]
        self.stop = dict.fromkeys(self.lists, 0)
        self.hrank: dict = {}                       # head-tie rank (absent: empty list)
        self.live: dict = {}                        # alive entries of the head tie
        self.stale: set = set()                     # heads emptied, not yet moved on
        self.holders: dict = {y: [] for y in rlist}   # see cut_to
        self.heads: dict = {}        # x -> its head tie as last computed; dropped whenever
                                     # it may change (its head moves or loses an entry)
        self.proposed: set = set()   # see record
        holders, record = self.holders, self.record
        for x, lst in self.lists.items():   # nothing is deleted yet: each head is the
            if not lst:                     # first tie, every entry alive
                self.heads[x] = ()
                continue
            rank = self.prank[x]
            r, j, n = rank[lst[0]], 1, len(lst)
            while j < n and rank[lst[j]] == r:
                j += 1
            h = tuple(lst[:j])
            for y in h:
                holders[y].append(x)
            self.stop[x], self.live[x], self.hrank[x], self.heads[x] = j, j, r, h
            record(x, h)

    def _advance(self, x) -> None:
        """Move x's head to its next tie holding an alive entry (none: list empty); the
        alive entries of that tie are x's head (cached) and are passed to :meth:`record`."""
        lst, rank, cut = self.lists[x], self.prank[x], self.cut
        mine = self.mrank[x]    # mine[i]: x's rank on the list of lst[i]
        i, n = self.stop[x], len(lst)
        while i < n and mine[i] >= cut[lst[i]]:      # to its first alive entry
            i += 1
        if i == n:
            self.start[x] = self.stop[x] = n
            self.hrank.pop(x, None)
            self.live.pop(x, None)
            self.heads[x] = ()
            return
        r, j, entered = rank[lst[i]], i, []          # then the rest of its tie
        holders = self.holders
        while j < n and rank[lst[j]] == r:
            y = lst[j]
            if mine[j] < cut[y]:
                entered.append(y)
                holders[y].append(x)
            j += 1
        self.start[x], self.stop[x], self.live[x], self.hrank[x] = i, j, len(entered), r
        h = self.heads[x] = tuple(entered)
        self.record(x, h)

    def record(self, x, head: tuple) -> None:
        """Called with every head tie x enters (its alive entries), the initial ones
        included: here the receivers go into :attr:`proposed`, the receivers that were
        in some proposer's head tie at some point."""
        self.proposed.update(head)

    def settle(self) -> list:
        """Move on every emptied head; returns the proposers whose head moved (their new
        head ties are then :meth:`head`)."""
        moved = list(self.stale)
        self.stale.clear()
        for x in moved:
            self._advance(x)
        return moved

    def alive(self, x, y) -> bool:
        return self.rrank[y][x] < self.cut[y]

    def in_head(self, x, y) -> bool:
        """y is in x's head tie. O(1) (after :meth:`settle`)."""
        if x in self.stale:
            self.settle()
        r = self.hrank.get(x)
        return r is not None and self.prank[x].get(y) == r and \
            self.rrank[y][x] < self.cut[y]

    def head(self, x) -> tuple:
        """x's head tie: the alive entries of its best tie that has one. O(tie size), then
        O(1) until the tie loses an entry or the head moves on."""
        if x in self.stale:
            self.settle()
        h = self.heads.get(x)
        if h is not None:
            return h
        r = self.hrank.get(x)
        if r is None:
            h = ()
        else:
            rrank, cut, full = self.rrank, self.cut, self.full
            h = tuple([y for y in self.lists[x][self.start[x]:self.stop[x]]
                       if (c := cut[y]) == full[y] or (c > 1 and rrank[y][x] < c)])
        self.heads[x] = h
        return h

    def with_lists(self) -> int:
        """The number of proposers whose current list is non-empty."""
        if self.stale:
            self.settle()
        return len(self.hrank)

    def has_list(self, x) -> bool:
        """x's current list is non-empty."""
        if x in self.stale:
            self.settle()
        return x in self.hrank

    def tail_rank(self, y):
        e = self.end[y]
        return self.rrank[y][self.rlist[y][e - 1]] if e else None

    def cut_to(self, y, cut: int) -> int:
        """Delete every proposer of rank >= cut from y's list; return how many were
        deleted. A head tie that loses its last alive entry is marked stale and moves on
        at the next :meth:`settle` (or query). The heads are updated from the deleted
        entries or from y's *holders* (the proposers whose head tie held y when it was
        entered), whichever is fewer: O(min) per cut, so O(L) over a replay."""
        old = self.cut[y]
        if cut >= old:
            return 0
        self.cut[y] = cut
        lst, e, rank = self.rlist[y], self.end[y], self.rrank[y]
        k = bisect_left(lst, cut, 0, e, key=rank.__getitem__)  # ranks ascend along lst
        self.end[y] = k
        hrank, live, prank, stale = self.hrank, self.live, self.prank, self.stale
        heads, holders = self.heads, self.holders[y]
        if e - k < len(holders):
            for x in lst[k:e]:
                if hrank.get(x) == prank[x][y]:
                    live[x] -= 1
                    heads.pop(x, None)
                    if not live[x]:
                        stale.add(x)
            return e - k
        keep = []
        for x in holders:
            if hrank.get(x) == prank[x][y]:   # y is (still) in x's head tie
                r = rank[x]
                if r < cut:
                    keep.append(x)
                elif r < old:                 # alive until this cut
                    live[x] -= 1
                    heads.pop(x, None)
                    if not live[x]:
                        stale.add(x)
        self.holders[y] = keep
        return e - k
