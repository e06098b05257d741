"""Combinatorial algorithms for Shapley–Scarf housing markets with ties.

- :func:`top_trading_cycles` — Gale's TTC (Shapley & Scarf 1974) after a documented
  tie-breaking; lands in the weak core (and, with strict preferences, is the unique
  strict-core allocation: Roth & Postlewaite 1977 — the weak core can then still hold
  other allocations, where a blocking coalition would leave some member indifferent).
- :func:`strict_core` — Quint & Wako (2004) top-trading segmentation: decides whether the
  strict core is empty, returns an allocation in it or an emptiness certificate.
- :func:`blocking_cycle` — one blocking cycle of an allocation (or of a Pareto improvement)
  from the strongly connected components of its improvement digraph.
- :func:`blocking_coalitions` — minimal blocking coalitions of an allocation (cycles of the
  improvement digraph), with a cap on the enumeration.
- :func:`brute_force_cores` — exhaustive enumeration of the weak and strict cores, ≤ 8 agents.

Not trusted: every answer is verified by :mod:`prefcert.formal.checker.housing_market`, which this
module does not import; the model type comes from :mod:`prefcert.formal.housing_market`.
"""
from __future__ import annotations

import time
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING

from ..formal.housing_market import HMInts, HousingMarket

if TYPE_CHECKING:
    import numpy as np

# numpy, scipy and networkx are imported by the functions that use them: top trading
# cycles and the strict core of strict markets need none of them, and importing them
# costs about half a second of every `prefcert label` run on a housing market.

BRUTE_FORCE_MAX_AGENTS = 8


def refine(market: HousingMarket, tie_break: Sequence[str] | None = None
           ) -> dict[str, list[str]]:
    """Strict acceptable lists after tie-breaking: agent -> houses, best first, ending with
    the agent's own house (houses ranked after it in the refinement are dropped).

    ``tie_break``: a priority order over houses (earlier wins inside a tie); default: the
    endowment order of the input (the house of the first-listed agent first). O(L log L).
    """
    m = market.ints
    houses, names = m.houses, m.names
    return {names[i]: [houses[j] for j in lst]
            for i, lst in enumerate(_refine(m, _priority(m, tie_break)))}


def _priority(m: HMInts, tie_break: Sequence[str] | None) -> list[int] | None:
    """House int -> its priority in ``tie_break`` (the last place of a house named twice;
    houses nobody owns ignored); None for the default, the house order itself."""
    if tie_break is None:
        return None
    prio: list[int | None] = [None] * len(m.houses)
    get = m.house_index.get
    for k, h in enumerate(tie_break):
        j = get(h)
        if j is not None:
            prio[j] = k
    for j, k in enumerate(prio):
        if k is None:
            raise ValueError(f"tie_break does not rank house {m.houses[j]!r}")
    return prio  # type: ignore[return-value]


def _refine(m: HMInts, prio: list[int] | None) -> list[list[int]]:
    """:func:`refine` on the integer form: per agent, its effective list down to its own
    tie, each tie sorted by ``prio`` (None: by house int, the endowment order), cut after
    its own house. One C-level sort of (tie index, priority, house) per list that has a
    tie there (stable on the runs already in order). O(L log L)."""
    out = []
    pick = itemgetter(-1)
    for i, (lst, t) in enumerate(zip(m.lists, m.ties)):
        r = m.rank[i][i]
        if lst[r - 1] == i and (len(lst) == r or t[r] != r):
            out.append(lst[:r])         # strict down to the own house: nothing to break
            continue
        lo = bisect_left(t, r)
        hi = bisect_right(t, r, lo)
        head = lst[:hi]
        if prio is None:
            keyed = sorted(zip(t, head))
        else:
            keyed = sorted(zip(t, map(prio.__getitem__, head), head))
        res = list(map(pick, keyed))
        out.append(res[:res.index(i, lo) + 1])
    return out


def top_trading_cycles(market: HousingMarket, tie_break: Sequence[str] | None = None
                       ) -> dict[str, str]:
    """Gale's top trading cycles on the tie-broken market.

    Ties are broken by a fixed priority over houses (``tie_break``, earlier wins; default:
    the endowment order of the input), then every remaining agent points to the owner of
    its best remaining house; the cycles trade and leave. Returns the allocation agent ->
    house. The result is individually rational and in the weak core of the tied market (a
    strict improvement in the original is strict in the refinement); with strict
    preferences it is the unique strict-core allocation (Roth & Postlewaite 1977), but with
    ties it need not be Pareto optimal nor in the strict core (Ehlers 2014). O(n + L) with one pointer
    per list, on the integer form (a house is the int of its owner). Source: Shapley & Scarf 1974.
    """
    m = market.ints
    lists = _refine(m, _priority(m, tie_break))
    n = len(lists)
    ptr = [0] * n
    left = [True] * n
    out = [0] * n
    path: list[int] = []
    on_path: dict[int, int] = {}
    start = 0
    remaining = n
    while remaining:
        if not path:
            while not left[start]:
                start += 1
            path, on_path = [start], {start: 0}
        a = path[-1]
        lst, k = lists[a], ptr[a]
        while not left[lst[k]]:
            k += 1
        ptr[a] = k
        b = lst[k]
        if b in on_path:
            cycle = path[on_path[b]:]
            for c in cycle:
                out[c] = lists[c][ptr[c]]
                left[c] = False
            remaining -= len(cycle)
            del path[on_path[b]:]
            for c in cycle:
                del on_path[c]
        else:
            on_path[b] = len(path)
            path.append(b)
    houses = m.houses
    return {x: houses[j] for x, j in zip(m.names, out)}


# Twin of the checker's improvement digraph (numpy arrays, scipy SCCs), kept separate so a
# bug in one cannot make engine and checker agree.
def improvement_arcs(market: HousingMarket, x: Mapping[str, str],
                     endowment: Mapping[str, str] | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The arcs of the improvement digraph D_x as arrays over agent indices.

    Returns (src, dst, strict): arc ``src[k] -> dst[k]`` (indices into ``market.agents``)
    when ``e_dst ⪰_src x(src)``, with ``strict[k]`` when ``e_dst ≻_src x(src)``, where ``e``
    is ``endowment`` (default: the market's; ``endowment=x`` describes Pareto
    improvements). Self-loops included. O(n + arcs): only houses at least as good as x(i)
    are scanned (all houses when x(i) is unacceptable).
    """
    import numpy as np
    m = market.ints
    holder, order = _holders(market, endowment)
    src: list[int] = []
    dst: list[int] = []
    strict: list[bool] = []
    ranks, nties, wnties, hidx = m.rank, m.nties, m.written_nties, m.house_index
    get = x.get
    for i, name in enumerate(m.names):
        h = get(name)                            # an absent agent is unmatched
        r = wnties[i] + 1 if h is None else ranks[i].get(hidx.get(h, -1), nties[i] + 1)
        lst, t = m.lists[i], m.ties[i]
        lo = bisect_left(t, r)
        hi = bisect_right(t, r, lo)
        dst.extend(lst[:hi] if holder is None else [holder[j] for j in lst[:hi]])
        strict.extend([True] * lo)
        strict.extend([False] * (hi - lo))
        if r > nties[i]:                 # x(i) unacceptable: every house is weakly better
            rk = ranks[i]
            more = [j if holder is None else holder[j] for j in order if j not in rk]
            dst.extend(more)
            strict.extend([False] * len(more))
        src.extend([i] * (len(dst) - len(src)))
    return (np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64),
            np.asarray(strict, dtype=bool))


def _holders(market: HousingMarket, endowment: Mapping[str, str] | None
             ) -> tuple[list[int] | None, Sequence[int]]:
    """(house int -> the agent int holding it in ``endowment``, None when that is the
    market's own endowment; the house ints in ``endowment``'s order). O(n)."""
    m = market.ints
    if endowment is None or endowment is market.endowment:
        return None, range(len(m.names))
    holder = [-1] * len(m.names)
    order = []
    idx, hidx = m.index, m.house_index
    for a, h in endowment.items():
        j = hidx[h]
        holder[j] = idx[a]
        order.append(j)
    return holder, order


def _scc_labels(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Strongly connected component label of each node (scipy, Tarjan/Pearce). O(n + m)."""
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components
    a = csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    return connected_components(a, directed=True, connection="strong")[1]


def _path(n: int, src: np.ndarray, dst: np.ndarray, start: int, goal: int) -> list[int]:
    """A shortest path start -> goal along the arcs (BFS); goal must be reachable."""
    import numpy as np
    order = np.argsort(src, kind="stable")
    heads = dst[order].tolist()
    ptr = np.searchsorted(src[order], np.arange(n + 1)).tolist()
    parent = {start: -1}
    frontier = [start]
    while goal not in parent:
        nxt = []
        for u in frontier:
            for v in heads[ptr[u]:ptr[u + 1]]:
                if v not in parent:
                    parent[v] = u
                    nxt.append(v)
        if not nxt:
            raise AssertionError("goal not reachable")
        frontier = nxt
    path = [goal]
    while path[-1] != start:
        path.append(parent[path[-1]])
    return path[::-1]


# Twin of the checker's blocked_arc (scipy here, plain Tarjan there): the engine finds the
# cycle, the checker decides membership and verifies the coalition.
def blocking_cycle(market: HousingMarket, x: Mapping[str, str], notion: str,
                   endowment: Mapping[str, str] | None = None
                   ) -> tuple[list[str], dict[str, str]] | None:
    """One blocking cycle of ``x`` under ``notion`` ("weak" or "strict"), or None.

    Returns (coalition, reallocation agent -> endowment of the next agent). ``weak``: a
    cycle of strict arcs of D_x (strict self-loops first); ``strict``: a cycle of D_x
    through a strict arc lying inside a strongly connected component. With ``endowment=x``
    the strict cycle is a Pareto improvement of x. O(n + arcs).
    Source: Shapley & Scarf 1974; Quint & Wako 2004.
    """
    import numpy as np
    if notion not in ("weak", "strict"):
        raise ValueError(f"unknown core notion {notion!r}")
    e = market.endowment if endowment is None else endowment
    n, names = market.size, market.agents
    src, dst, strict = improvement_arcs(market, x, e)
    if notion == "weak":
        src, dst = src[strict], dst[strict]
        strict = np.ones(len(src), dtype=bool)
    labels = _scc_labels(n, src, dst)
    if notion == "weak":
        loops = np.flatnonzero(src == dst)
        inside = np.flatnonzero((labels[src] == labels[dst]) & (src != dst))
        hits = loops if len(loops) else inside
    else:
        hits = np.flatnonzero(strict & (labels[src] == labels[dst]))
    if not len(hits):
        return None
    u, v = int(src[hits[0]]), int(dst[hits[0]])
    cycle = [u] if u == v else [u] + _path(n, src, dst, v, u)[:-1]
    agents = [names[k] for k in cycle]
    return agents, _trade(market, agents, e)


def _trade(market: HousingMarket, cycle: list[str], e: Mapping[str, str]) -> dict[str, str]:
    """Each agent of the cycle takes the next one's house; with unmatched agents allowed, an
    agent whose next house is one it does not list takes nothing (that house stays unused)."""
    trade = {a: e[cycle[(k + 1) % len(cycle)]] for k, a in enumerate(cycle)}
    if market.unmatched_allowed:
        trade = {a: h for a, h in trade.items() if market.listed(a, h)}
    return trade


# Twin of the checker's top_choices, kept separate so the segmentation that the engine
# produces and the one the checker replays do not share code.
def _top_choices(m: HMInts, agent: int, alive: list[bool]) -> list[int]:
    """The agent's top tie among the houses ``alive`` marks (which must hold its own)."""
    got: list[int] = []
    cur = 0
    for j, k in zip(m.lists[agent], m.ties[agent]):
        if k != cur:
            if got:
                return got
            cur = k
        if alive[j]:
            got.append(j)
    return got


@dataclass(frozen=True)
class StrictCoreResult:
    """Outcome of :func:`strict_core`. ``allocation`` (None when the strict core is empty);
    ``segments``: the top-trading segments found, in order; ``certificate``: for an empty
    core the ``top_trading_segmentation`` certificate checked by
    :func:`prefcert.formal.checker.housing_market.check_segmentation`, else None."""

    allocation: dict[str, str] | None
    segments: list[list[str]]
    certificate: dict | None


def strict_core(market: HousingMarket) -> StrictCoreResult:
    """Decide the strict core by the Quint–Wako (2004) top-trading segmentation.

    Repeatedly: on the remaining agents R, build the top-choice digraph (i -> owner of each
    house in i's top tie among R's houses); take every sink SCC S; match S's agents to S's
    houses along top-choice arcs (Hopcroft–Karp). If some S has no perfect matching the
    strict core is empty and a Hall violator T ⊆ S (agents reached by alternating paths
    from an unmatched agent; |N(T)| = |T| − 1) completes the certificate. Otherwise S
    trades by the matching and leaves. All sink SCCs of one round are independent, so they
    are processed together. Returns :class:`StrictCoreResult`. O(n · (n + L)) worst case.

    When no agent ties two houses at or above its own (in particular, strict
    preferences), the top-choice digraph has one arc per agent, its sink SCCs are its
    cycles, and the segmentation is Gale's top trading cycles: then the allocation is found
    in O(n + L) by :func:`_strict_top_trading_cycles` (the same, unique, strict-core
    allocation; the segments are the same cycles, listed in the order they are found).
    Source: Quint & Wako, Math. Oper. Res. 29 (2004); Roth & Postlewaite (1977).
    """
    fast = _strict_top_trading_cycles(market)
    if fast is not None:
        return fast
    return _strict_core_segmentation(market)


def _strict_top_trading_cycles(market: HousingMarket) -> StrictCoreResult | None:
    """Top trading cycles by pointer chasing, when every agent's list is strict down to
    its own house (else None: the caller runs the segmentation).

    Only the list down to the own house matters: the own house stays on the market while
    its owner does, so no top choice lies below it. Each agent keeps a pointer into its
    list that skips houses whose owners have left; a walk follows the pointers from the
    first remaining agent (in input order), and the first agent met twice closes a cycle,
    which trades (each member gets the house it points to) and leaves; the walk resumes
    from the agent before the cycle. An agent joins the walk once and leaves it only in a
    cycle, so there are at most 2n steps, and the pointers only move forward: O(n + L).

    A cycle found so is a sink SCC of the top-choice digraph of the agents still on the
    market: its members point to one another and every house they skipped is gone. So the
    cycles, in the order found, form a top-trading segmentation, and giving each member the
    house it points to is the segmentation's (unique) matching (Roth & Postlewaite 1977:
    with strict preferences the strict core is this one allocation).
    """
    m = market.ints
    lists = m.lists
    n = len(lists)
    for i, (lst, t) in enumerate(zip(lists, m.ties)):
        r = m.rank[i][i]
        # ties 1..r are singletons ⇔ the own house is the r-th item and the next item
        # (if any) ranks lower; ranks are non-decreasing along items, every index used
        if lst[r - 1] != i or (len(lst) > r and t[r] == r):
            return None
    alive = [True] * n
    ptr = [0] * n
    pos = [-1] * n                  # position on the current walk, -1 when off it
    got = [0] * n
    cycles: list[list[int]] = []
    for s in range(n):
        if not alive[s]:
            continue
        path = [s]
        pos[s] = 0
        while path:
            a = path[-1]
            lst, k = lists[a], ptr[a]
            b = lst[k]              # a house is the int of its owner
            while not alive[b]:     # never passes the own house: a is alive
                k += 1
                b = lst[k]
            ptr[a] = k
            p = pos[b]
            if p < 0:
                pos[b] = len(path)
                path.append(b)
                continue
            cycle = path[p:]
            del path[p:]
            for c in cycle:
                alive[c] = False
                pos[c] = -1
                got[c] = lists[c][ptr[c]]
            cycle.sort()
            cycles.append(cycle)
    names, houses = m.names, m.houses
    return StrictCoreResult({a: houses[j] for a, j in zip(names, got)},
                            [[names[i] for i in c] for c in cycles], None)


def _strict_core_segmentation(market: HousingMarket) -> StrictCoreResult:
    """The Quint–Wako segmentation round by round (see :func:`strict_core`): top ties and
    a networkx condensation rebuilt every round, on the integer form (a house is the int
    of its owner, so agents in input order are ints in increasing order). O(rounds · (n + L))."""
    import networkx as nx
    m = market.ints
    n = len(m.names)
    left = list(range(n))
    segments: list[list[int]] = []      # segments of completed rounds
    out = [0] * n
    names = m.names

    def named(segs: list[list[int]]) -> list[list[str]]:
        return [[names[a] for a in seg] for seg in segs]

    while left:
        alive = [False] * n
        for a in left:
            alive[a] = True
        tops = {a: _top_choices(m, a, alive) for a in left}
        g = nx.DiGraph()
        g.add_nodes_from(left)
        g.add_edges_from((a, h) for a in left for h in tops[a])
        cond = nx.condensation(g)
        this_round: list[list[int]] = []
        for c in cond.nodes:
            if cond.out_degree(c):
                continue
            seg = sorted(cond.nodes[c]["members"])
            matched, hall = _top_matching(seg, tops)
            if hall is not None:
                # sink SCCs of one round are disjoint and closed, so the earlier rounds'
                # segments followed by this one form a valid segmentation
                return StrictCoreResult(None, named(segments + this_round + [seg]), {
                    "type": "top_trading_segmentation", "segments": named(segments + [seg]),
                    "hall_violator": [names[a] for a in hall]})
            for a, h in matched.items():
                out[a] = h
            this_round.append(seg)
        segments.extend(this_round)
        done = {a for s in this_round for a in s}
        left = [a for a in left if a not in done]
    houses = m.houses
    return StrictCoreResult({a: houses[h] for a, h in zip(names, out)}, named(segments),
                            None)


def _top_matching(seg: list[int], tops: Mapping[int, list[int]]
                  ) -> tuple[dict[int, int], list[int] | None]:
    """Perfect matching of ``seg`` to top houses (agent int -> house int), or (partial,
    Hall violator)."""
    if len(seg) == 1:
        a = seg[0]
        return {a: a}, None
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching
    # scipy's Hopcroft–Karp on a CSR matrix is deterministic (networkx's iterates sets)
    col = {a: j for j, a in enumerate(seg)}
    rows, cols = zip(*[(i, col[h]) for i, a in enumerate(seg) for h in tops[a]])
    graph = csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(len(seg),) * 2)
    match = maximum_bipartite_matching(graph, perm_type="column")
    matched = {a: seg[j] for a, j in zip(seg, match) if j >= 0}
    free = [a for a in seg if a not in matched]
    if not free:
        return matched, None
    owner_of = {h: a for a, h in matched.items()}   # house -> agent matched to it
    t, seen_h, stack = set(free), set(), list(free)     # the critical set: matching-free
    while stack:
        a = stack.pop()
        for h in tops[a]:
            if h not in seen_h:
                seen_h.add(h)
                a2 = owner_of[h]        # matched, else the matching was not maximum
                if a2 not in t:
                    t.add(a2)
                    stack.append(a2)
    return matched, [a for a in seg if a in t]


@dataclass(frozen=True)
class BlockingCoalitions:
    """Minimal blocking coalitions found by :func:`blocking_coalitions`.

    ``coalitions``: list of ``{"coalition": [agents of one trading cycle],
    "reallocation": {agent: house}}``, shortest first; ``complete``: False when the
    enumeration hit its cap (then the list is a lower bound)."""

    coalitions: list[dict]
    complete: bool


def blocking_coalitions(market: HousingMarket, allocation: Mapping[str, str], notion: str,
                        *, max_cycles: int = 5000, time_limit: float = 5.0
                        ) -> BlockingCoalitions:
    """All inclusion-minimal coalitions that block ``allocation``, each with the trade.

    ``notion``: "weak" (weak core: everyone strictly better) or "strict" (strict core:
    everyone weakly, someone strictly); "weak_core"/"strict_core" are accepted too. Every
    blocking trade decomposes into cycles of D_x, one of which already blocks, so the
    minimal coalitions are the vertex sets of blocking cycles (strict-arc cycles, resp.
    cycles through a strict arc) that contain no smaller blocking cycle. Cycles are
    enumerated by increasing length (depth-bounded search from each cycle's smallest agent,
    inside the strongly connected components that can block), examining at most
    ``max_cycles`` cycles within ``time_limit`` seconds; ``complete`` says whether the
    enumeration finished. Exponential in the worst case; each minimality test is O(|C|³).
    """
    import numpy as np
    kind = {"weak_core": "weak", "strict_core": "strict"}.get(notion, notion)
    if kind not in ("weak", "strict"):
        raise ValueError(f"unknown core notion {notion!r}")
    deadline = time.perf_counter() + time_limit
    e, names, n = market.endowment, market.agents, market.size
    src, dst, strict = improvement_arcs(market, allocation)
    if kind == "weak":
        src, dst, strict = src[strict], dst[strict], strict[strict]
    labels = _scc_labels(n, src, dst)
    same = labels[src] == labels[dst]
    hot = set(labels[src[same & strict]].tolist())
    keep = same & np.isin(labels[src], list(hot))
    succ: list[dict[int, bool]] = [{} for _ in range(n)]
    for u, v, s_ in zip(src[keep].tolist(), dst[keep].tolist(), strict[keep].tolist()):
        succ[u][v] = s_
    nodes = sorted(u for u in range(n) if succ[u])
    found: dict[frozenset, list[int]] = {}
    examined, complete = 0, True
    for cyc in _cycles_by_length(succ, nodes):
        examined += 1
        if examined > max_cycles or time.perf_counter() > deadline:
            complete = False
            break
        c = frozenset(cyc)
        if c in found or not any(succ[u][v] for u, v in zip(cyc, cyc[1:] + cyc[:1])):
            continue
        if all(not _blocks(succ, c - {v}) for v in c):
            found[c] = cyc
    out = []
    for cyc in found.values():
        agents = [names[k] for k in cyc]
        out.append({"coalition": agents, "reallocation": _trade(market, agents, e)})
    return BlockingCoalitions(out, complete)


def _cycles_by_length(succ: list[dict[int, bool]], nodes: list[int]):
    """Every simple directed cycle once, shortest first: for L = 1, 2, …, a depth-bounded
    DFS from each node s over nodes > s yields the cycles of length L whose smallest node
    is s. Exponential in general; callers cap it."""
    for length in range(1, len(nodes) + 1):
        for s in nodes:
            path, on_path = [s], {s}
            stack = [iter(succ[s])]
            while stack:
                for v in stack[-1]:
                    if v == s:
                        if len(path) == length:
                            yield list(path)
                    elif v > s and v not in on_path and len(path) < length:
                        path.append(v)
                        on_path.add(v)
                        stack.append(iter(succ[v]))
                        break
                else:
                    stack.pop()
                    on_path.discard(path.pop())


def _blocks(succ: list[dict[int, bool]], s: frozenset) -> bool:
    """Does the subgraph induced by s hold a cycle through a strict arc? O(|s|³)."""
    for u in s:
        for v, strict in succ[u].items():
            if strict and v in s:
                seen, stack = {v}, [v]          # can v reach u inside s?
                while stack:
                    a = stack.pop()
                    if a == u:
                        return True
                    for b in succ[a]:
                        if b in s and b not in seen:
                            seen.add(b)
                            stack.append(b)
    return False


def brute_force_cores(market: HousingMarket, max_agents: int = BRUTE_FORCE_MAX_AGENTS,
                      time_limit: float | None = None
                      ) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """Exhaustive enumeration: (weak core, strict core) as lists of allocations.

    Enumerates the individually rational allocations by backtracking (both cores are IR)
    and tests each with bitmask reachability: strictly blocked ⇔ some arc i->j with
    ω_j ≻_i x(i) and i reachable from j along arcs ω_k ⪰ x; weakly blocked ⇔ a cycle of
    strict arcs. Independent of the SCC code here and in the checker. Raises ValueError above
    ``max_agents`` agents and TimeoutError after ``time_limit`` seconds. O(n! · n³) worst
    case.
    """
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    m = market.ints
    agents, house_of = m.names, m.houses
    n = len(agents)
    if n > max_agents:
        raise ValueError(f"brute force is limited to {max_agents} agents, got {n}")
    rank = [[rk.get(j, last + 1) for j in range(n)]              # rank[i][j]: ω_j for i
            for rk, last in zip(m.rank, m.nties)]
    ir = [[j for j in range(n) if rank[i][j] <= rank[i][i]] for i in range(n)]
    weak = [[sum(1 << k for k in range(n) if rank[i][k] <= rank[i][j]) for j in range(n)]
            for i in range(n)]
    strict = [[sum(1 << k for k in range(n) if rank[i][k] < rank[i][j]) for j in range(n)]
              for i in range(n)]

    def closure(arcs: list[int]) -> list[int]:
        reach = list(arcs)
        changed = True
        while changed:
            changed = False
            for i in range(n):
                r, m = reach[i], reach[i]
                k = 0
                while m:
                    if m & 1:
                        r |= reach[k]
                    m >>= 1
                    k += 1
                if r != reach[i]:
                    reach[i], changed = r, True
        return reach

    wcore, score = [], []
    x = [-1] * n
    used = [False] * n

    def rec(i: int) -> None:
        if i == n:
            if deadline is not None and time.perf_counter() > deadline:
                raise TimeoutError("brute-force enumeration hit its time limit")
            s_arcs = [strict[a][x[a]] for a in range(n)]
            w_reach = closure([weak[a][x[a]] for a in range(n)])
            s_reach = closure(s_arcs)
            alloc = {agents[a]: house_of[x[a]] for a in range(n)}
            if not any(s_reach[a] >> a & 1 for a in range(n)):
                wcore.append(alloc)
            blocked = False
            for a in range(n):
                m, j = s_arcs[a], 0
                while m and not blocked:
                    if m & 1 and (j == a or w_reach[j] >> a & 1):
                        blocked = True
                    m >>= 1
                    j += 1
            if not blocked:
                score.append(alloc)
            return
        for j in ir[i]:
            if not used[j]:
                used[j] = True
                x[i] = j
                rec(i + 1)
                used[j] = False

    rec(0)
    return wcore, score
