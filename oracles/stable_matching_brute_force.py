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
    the acceptability graph (Σ_k C(n,k)² k! for a complete n×n market). Reads the integer
    form (``market.ints``). O(1) amortised per matching beyond its size.
    """
    s, o = market.ints.a, market.ints.b
    b_names = o.names
    return matchings_of({a: [b_names[j] for j in s.lists[i]] for i, a in enumerate(s.names)})


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


_UNMATCHED = 1 << 30  # the rank of "unmatched": worse than every tie index


def best_from(rank: Mapping[int, int], n: int, missing: int) -> list[int]:
    """``best[i]``: the best (smallest) rank ``rank`` gives an agent numbered ``i..n-1``
    (``missing`` for one it does not list, and at ``i = n``). The brute forces' bound on
    the best partner an agent can still get once agents ``0..i-1`` are fixed. O(n)."""
    best = [missing] * (n + 1)
    for i in range(n - 1, -1, -1):
        best[i] = min(best[i + 1], rank.get(i, missing))
    return best

#: per notion, does a pair block given a's rank of b (``ra``) and of its partner (``ca``),
#: and b's rank of a (``rb``) and of its partner (``cb``)? Ranks are 1-based tie indices,
#: lower is better, unmatched = :data:`_UNMATCHED` (Manlove 2013, §3.1).
_BLOCKS = {
    "weak": lambda ra, ca, rb, cb: ra < ca and rb < cb,
    "super": lambda ra, ca, rb, cb: ra <= ca and rb <= cb,
    "strong": lambda ra, ca, rb, cb: (ra < ca and rb <= cb) or (ra <= ca and rb < cb),
}


def stable_matchings(market: Market, notion: str, *, deadline: float | None = None,
                     counter: list[int] | None = None) -> Iterator[dict[str, str]]:
    """Yield every ``notion``-stable matching of ``market`` (notion ∈ weak/strong/super).

    Backtracking over side A in input order (each agent: a partner in list order, then
    unmatched) on the integer form (``market.ints``) that tests every admissible pair as
    soon as both its agents' partners are fixed: a pair (a, b) is tested when the later of
    "a chooses" and "b is taken" happens, and pairs whose B-agent stays free are tested at
    the leaf; a partial matching with a blocking pair among its fixed agents is cut, and so
    is one where a fixed agent a and a free b block even against the best partner b could
    still get (blocking only gets likelier as b's partner gets worse). The
    yielded set equals ``[M for M in all_matchings(market) if not blocking_pairs(market, M,
    notion)]``, in the same order. ``deadline``: a ``time.perf_counter()`` value after
    which the internal timeout is raised (checked every 512 search nodes; used by
    :func:`brute_force_stable_matching`); ``counter``: a one-element list incremented per
    search node, for statistics. Raises ValueError for an unknown notion. Worst case
    O(#matchings · L).
    """
    if notion not in NOTIONS:
        raise ValueError(f"unknown stability notion {notion!r} (known: {', '.join(NOTIONS)})")
    blocks = _BLOCKS[notion]
    sa, sb = market.ints.a, market.ints.b
    n = len(sa.names)
    lists, rank_a = sa.lists, sa.rank
    lists_b, rank_b = sb.lists, sb.rank
    options = [(*lst, -1) for lst in lists]          # -1: unmatched
    partner_a = [-1] * n                             # fixed for agents 0..i-1
    partner_b = [-1] * len(sb.names)
    cur_a = [_UNMATCHED] * n                         # a's rank of its partner
    cur_b = [_UNMATCHED] * len(sb.names)             # b's rank of its partner
    counter = counter if counter is not None else [0]
    a_names, b_names = sa.names, sb.names

    # best_b[b][i]: the best rank b gives an A agent i.. (numbered from i on), its best
    # possible partner once agents 0..i-1 are fixed; blocking only gets likelier as b's
    # partner gets worse, so a pair that blocks against it blocks in every completion
    best_b = [best_from(rb, n, _UNMATCHED) for rb in rank_b]

    def consistent(a: int, p: int) -> bool:
        ra = rank_a[a]
        ca = _UNMATCHED if p < 0 else ra[p]
        for b in lists[a]:             # pairs (a, b): final if b is taken, else bounded
            if b != p:
                if blocks(ra[b], ca, rank_b[b][a],
                          cur_b[b] if partner_b[b] >= 0 else best_b[b][a + 1]):
                    return False
        if p >= 0:                                   # pairs (a', p) with a' decided earlier
            rp = rank_b[p]
            cp = rp[a]
            for a2 in lists_b[p]:
                if a2 < a and blocks(rank_a[a2][p], cur_a[a2], rp[a2], cp):
                    return False
        return True

    def leaf_ok() -> bool:
        for a in range(n):                           # pairs whose B-agent stays free
            ca, ra = cur_a[a], rank_a[a]
            for b in lists[a]:
                if partner_b[b] < 0 and blocks(ra[b], ca, rank_b[b][a], _UNMATCHED):
                    return False
        return True

    def rec(i: int) -> Iterator[dict[str, str]]:
        counter[0] += 1
        if deadline is not None and counter[0] % 512 == 1 and time.perf_counter() > deadline:
            raise _Timeout
        if i == n:
            if leaf_ok():
                yield {a_names[a]: b_names[b] for a, b in enumerate(partner_a) if b >= 0}
            return
        for p in options[i]:
            if p >= 0 and partner_b[p] >= 0:
                continue
            if not consistent(i, p):
                continue
            partner_a[i] = p
            if p >= 0:
                partner_b[p] = i
                cur_a[i] = rank_a[i][p]
                cur_b[p] = rank_b[p][i]
            yield from rec(i + 1)
            partner_a[i] = -1
            if p >= 0:
                partner_b[p] = -1
                cur_a[i] = _UNMATCHED
                cur_b[p] = _UNMATCHED

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
