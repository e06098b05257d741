"""Exhaustive enumeration of matchings: the brute-force engine for small SMTI markets.

Intended for at most 8 agents a side (``K_{8,8}`` alone has 1,441,729 matchings, so plain
enumeration is the only thing that scales badly here; :func:`stable_matchings` prunes).
Used to cross-check the oracles and encodings (ALGORITHMS.md §6, "Testing advice") and, for
small instances, as the third vote behind a ``none`` verdict (DESIGN.md, "Trust model").

Blocking conditions (Irving 1994; Manlove 2013, §3.1), restated here independently of
``formal.stable_matching`` so that the two can be compared; being unmatched is worse than any
acceptable partner.
"""
from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence

from ..formal.stable_matching import NOTIONS, Market
from ..formal.outcome import Outcome

_SINGLE = float("inf")  # the rank of "unmatched"


class _Timeout(Exception):
    pass


def within(items, deadline: float | None, every: int = 256):
    """Yield from ``items`` until ``deadline`` (a ``time.perf_counter`` value; None: no
    limit), checked every ``every`` items; past it, raise TimeoutError. The one clock of
    every exhaustive engine, so each stops at its time limit and answers ``unknown``."""
    if deadline is None:
        yield from items
        return
    for i, x in enumerate(items):
        if i % every == 0 and time.perf_counter() > deadline:
            raise TimeoutError("enumeration hit its time limit")
        yield x


def deadline_after(time_limit: float | None) -> float | None:
    """The ``time.perf_counter`` deadline ``time_limit`` seconds from now (None: none)."""
    return None if time_limit is None else time.perf_counter() + float(time_limit)


def all_matchings(market: Market) -> Iterator[dict[str, str]]:
    """Yield every matching over admissible pairs, the empty one and partial ones included.

    Each matching is a fresh dict A-agent -> B-agent (agents absent are unmatched); side A
    is scanned in the market's order, each agent's options in list order and then
    "unmatched", so the sequence is deterministic. The count is the number of matchings of
    the acceptability graph (Σ_k C(n,k)² k! for a complete n×n market). O(1) amortised per
    matching beyond its size.
    """
    return matchings_of({a: o.items for a, o in market.pa.items()})


def matchings_of(adjacency: Mapping[str, Sequence[str]]) -> Iterator[dict[str, str]]:
    """Every matching of a bipartite graph given as left vertex -> right neighbours, as
    fresh dicts left -> right, in the order described at :func:`all_matchings`."""
    a_agents = list(adjacency)
    lists = [adjacency[a] for a in a_agents]
    used: set[str] = set()
    current: dict[str, str] = {}

    def rec(i: int) -> Iterator[dict[str, str]]:
        if i == len(a_agents):
            yield dict(current)
            return
        a = a_agents[i]
        for b in lists[i]:
            if b not in used:
                used.add(b)
                current[a] = b
                yield from rec(i + 1)
                del current[a]
                used.discard(b)
        yield from rec(i + 1)

    yield from rec(0)


def _blocks(notion: str, ra: int, cur_a: float, rb: int, cur_b: float) -> bool:
    """Does a pair block, given a's rank of b (``ra``) and of its partner (``cur_a``), and
    b's rank of a (``rb``) and of its partner (``cur_b``)? Ranks are 1-based, lower is
    better, unmatched = +inf."""
    if notion == "weak":
        return ra < cur_a and rb < cur_b
    if notion == "super":
        return ra <= cur_a and rb <= cur_b
    return (ra < cur_a and rb <= cur_b) or (ra <= cur_a and rb < cur_b)


def stable_matchings(market: Market, notion: str, *, deadline: float | None = None,
                     counter: list[int] | None = None) -> Iterator[dict[str, str]]:
    """Yield every ``notion``-stable matching of ``market`` (notion ∈ weak/strong/super).

    Backtracking over side A (each agent: a partner in list order, then unmatched) that
    tests every admissible pair as soon as both its agents' partners are fixed: a pair
    (a, b) is tested when the later of "a chooses" and "b is taken" happens, and pairs whose
    B-agent stays free are tested at the leaf. The yielded set equals
    ``[M for M in all_matchings(market) if not blocking_pairs(market, M, notion)]``, in the
    same order. ``deadline``: a ``time.perf_counter()`` value after which the internal
    timeout is raised (used by :func:`brute_force_stable_matching`); ``counter``: a
    one-element list incremented per search node, for statistics. Raises ValueError for
    an unknown notion. Worst case O(#matchings · L).
    """
    if notion not in NOTIONS:
        raise ValueError(f"unknown stability notion {notion!r} (known: {', '.join(NOTIONS)})")
    a_agents = list(market.pa)
    rank_a = {a: market.pa[a].rank for a in a_agents}
    rank_b = {b: market.pb[b].rank for b in market.pb}
    lists = [market.pa[a].items for a in a_agents]
    index = {a: i for i, a in enumerate(a_agents)}
    partner_a: dict[str, str | None] = {}
    partner_b: dict[str, str] = {}
    counter = counter if counter is not None else [0]

    def cur_rank_a(a: str) -> float:
        p = partner_a.get(a)
        return _SINGLE if p is None else rank_a[a][p]

    def cur_rank_b(b: str) -> float:
        p = partner_b.get(b)
        return _SINGLE if p is None else rank_b[b][p]

    def consistent(i: int, a: str, p: str | None) -> bool:
        ca = _SINGLE if p is None else rank_a[a][p]
        for b in lists[i]:                       # pairs (a, b) with b taken earlier
            if b != p and b in partner_b:
                if _blocks(notion, rank_a[a][b], ca, rank_b[b][a], cur_rank_b(b)):
                    return False
        if p is not None:                        # pairs (a', p) with a' decided earlier
            cp = rank_b[p][a]
            for a2 in market.pb[p].items:
                if a2 != a and index[a2] < i:
                    if _blocks(notion, rank_a[a2][p], cur_rank_a(a2), rank_b[p][a2], cp):
                        return False
        return True

    def leaf_ok() -> bool:
        for i, a in enumerate(a_agents):              # pairs whose B-agent stays free
            ca = cur_rank_a(a)
            for b in lists[i]:
                if b not in partner_b and _blocks(notion, rank_a[a][b], ca, rank_b[b][a], _SINGLE):
                    return False
        return True

    def rec(i: int) -> Iterator[dict[str, str]]:
        counter[0] += 1
        if deadline is not None and counter[0] % 512 == 1 and time.perf_counter() > deadline:
            raise _Timeout
        if i == len(a_agents):
            if leaf_ok():
                yield {a: b for a, b in partner_a.items() if b is not None}
            return
        a = a_agents[i]
        for p in (*lists[i], None):
            if p is not None and p in partner_b:
                continue
            if not consistent(i, a, p):
                continue
            partner_a[a] = p
            if p is not None:
                partner_b[p] = a
            yield from rec(i + 1)
            del partner_a[a]
            if p is not None:
                del partner_b[p]

    yield from rec(0)


def brute_force_stable_matching(market: Market, notion: str, *, time_limit: float, seed: int
                                ) -> Outcome:
    """Engine: the first ``notion``-stable matching found by exhaustive search, or ``none``.

    ``time_limit`` in seconds; ``seed`` is unused (the search is deterministic) and kept
    for the engine signature. Returns ``Outcome("exists", solution, {"type":
    "stable_matching"})``, ``Outcome("none")`` when the whole search space was exhausted,
    ``Outcome("unknown")`` when the time limit ran out first; ``stats["nodes"]`` counts
    search nodes. Intended for markets with at most 8 agents a side; exponential in n.
    """
    del seed
    t0 = time.perf_counter()
    nodes = [0]
    gen = stable_matchings(market, notion, deadline=t0 + float(time_limit), counter=nodes)
    stats: dict = {"engine": "brute_force"}
    try:
        found = next(gen, None)
    except _Timeout:
        found = _Timeout
    stats.update(seconds=round(time.perf_counter() - t0, 4), nodes=nodes[0])
    if found is _Timeout:
        return Outcome("unknown", stats=stats)
    if found is None:
        return Outcome("none", stats=stats)
    return Outcome("exists", solution=found, certificate={"type": "stable_matching"},
                   stats=stats)
