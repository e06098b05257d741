"""House allocation and rank-based welfare: combinatorial algorithms (untrusted).

Every welfare function takes a :class:`~prefcert.formal.welfare.WelfareGraph` (or a
HouseAllocation or an SMTI Market, converted by :func:`as_graph`) — one-sided (house
allocation: agents -> objects, the agent's rank counts) or two-sided (an SMTI market, both
partners' ranks count) — so the same code serves both readings; see
:mod:`prefcert.formal.welfare` for the definitions. Each returns ``(matching,
certificate)``; certificates are built by :func:`welfare_certificate` (LP duals, Hall sets)
and verified by the checker. Matchings are dicts left -> right.

Libraries: scipy (``maximum_bipartite_matching``: Hopcroft–Karp; ``linear_sum_assignment``:
the Hungarian method, Crouse 2016) and networkx (``max_weight_matching``: Edmonds' blossom
algorithm with exact Python-int weights, Galil 1986; reachability and shortest paths).
"""
from __future__ import annotations

import itertools
from bisect import bisect_left
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from operator import itemgetter
from typing import Any

import networkx as nx
import numpy as np
from scipy.optimize import linear_sum_assignment

from ..formal.house_allocation import HouseAllocation
from ..formal.welfare import (
    WelfareGraph,
    signature,
    welfare_graph,
    welfare_value,
    worst_rank,
)
from .assignment import min_cost_assignment
from .stable_matching_brute_force import deadline_after, matchings_of, within

# --------------------------------------------------------------------------------------
# matchings
# --------------------------------------------------------------------------------------

def as_graph(model_or_graph) -> WelfareGraph:
    """A WelfareGraph from a HouseAllocation, an SMTI Market (two-sided reading) or a graph."""
    if isinstance(model_or_graph, WelfareGraph):
        return model_or_graph
    return welfare_graph(model_or_graph)


def _named(g: WelfareGraph, mate: list[int]) -> dict[str, str]:
    """A row -> column matching (−1: free) as names, in left order."""
    left, right = g.left, g.right
    return {left[i]: right[j] for i, j in enumerate(mate) if j >= 0}


def _scipy_rows(adj: list[list[int]], ncols: int) -> list[int]:
    """The matching scipy's ``maximum_bipartite_matching(perm_type="column")`` chooses on
    the CSR graph of ``adj`` (row -> columns, any order: CSR sorts them), row -> column,
    −1 free. Small graphs go through the pure-Python twin
    :func:`prefcert.oracles.stable_matching.hopcroft_karp` (the same search order, so the
    same matching: tests/test_stable_matching_hk.py), which skips scipy's per-call cost
    (about 0.1 ms, against 13 µs for the pure-Python search at 10 × 10); larger ones
    through scipy itself. O(√n·m)."""
    from .stable_matching import SCIPY_MATCHING_EDGES, _scipy_matching, hopcroft_karp
    for a in adj:
        a.sort()
    if sum(map(len, adj)) <= SCIPY_MATCHING_EDGES:
        return hopcroft_karp(adj, ncols)
    return _scipy_matching(adj, ncols)


def maximum_matching(g: WelfareGraph, max_level: int | None = None) -> dict[str, str]:
    """A maximum-cardinality matching over edges whose level is ≤ ``max_level`` (all if None):
    scipy's Hopcroft–Karp matching (:func:`_scipy_rows`). O(√n·m)."""
    return _named(g, _scipy_rows(_level_adj(g, max_level), len(g.right)))


def _level_adj(g: WelfareGraph, max_level: int | None) -> list[list[int]]:
    """Row -> columns (ascending) of the edges of level ≤ ``max_level`` (every edge when
    None). O(L)."""
    by_row = g.index().by_row
    if max_level is None:
        return [[c for c, _ in a] for a in by_row]
    return [[c for c, lv in a if lv <= max_level] for a in by_row]


def _threshold_sizes(g: WelfareGraph):
    """``size(k)``: the size of a maximum matching over the edges of level ≤ ``k`` (every
    edge when None), the number :func:`maximum_matching` would give, from the per-row
    (column, level) lists of the graph's integer index (built once for all probes);
    Hopcroft–Karp on each threshold graph. O(√n·L) a probe."""
    from .stable_matching import SCIPY_MATCHING_EDGES, _scipy_matching, hopcroft_karp
    ncols = len(g.right)

    def size(k: int | None) -> int:
        adj = _level_adj(g, k)
        if sum(map(len, adj)) <= SCIPY_MATCHING_EDGES:     # (any maximum matching: a size)
            mate = hopcroft_karp(adj, ncols)
        else:
            mate = _scipy_matching(adj, ncols)
        return len(mate) - mate.count(-1)
    return size


def _bottleneck_floor(g: WelfareGraph, nu: int) -> int:
    """A lower bound on the egalitarian optimum's worst level: when a maximum matching
    (size ``nu``) covers every left (right) vertex, each of them is matched along one of
    its edges, so the worst level is at least the largest, over those vertices, of their
    least edge level. 0 when neither side is covered entirely. O(n)."""
    ix = g.index()
    floor = 0
    for n, least in ((len(g.left), ix.least_l), (len(g.right), ix.least_r)):
        if nu == n and n and None not in least:
            floor = max(floor, max(lv for lv in least if lv is not None))
    return floor


def _min_cost_max_card(g: WelfareGraph, edges: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Among maximum-cardinality matchings of ``edges``, one of minimum total cost.

    Hungarian method (scipy ``linear_sum_assignment``) on a |L| × (|R| + |L|) matrix: an
    edge costs cost(e) − B with B = min(|L|, |R|)·C + 1 (so cardinality comes first), each agent has
    its own "unmatched" dummy column of cost 0, and non-edges are forbidden (inf). Exact:
    every entry is an integer below 2^53. O((|L|+|R|)³).
    """
    if not edges:
        return {}
    return _lsa_matching(g, *_edge_arrays(g, edges))


def _edge_arrays(g: WelfareGraph, edges: Iterable[tuple[str, str]] | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(left index, right index, cost) of ``edges`` (default: every edge) as int64 arrays,
    from the graph's integer index. O(L)."""
    ix = g.index()
    if edges is None:
        n = len(ix.rows)
        return (np.fromiter(ix.rows, np.int64, n), np.fromiter(ix.cols, np.int64, n),
                np.fromiter(ix.costs, np.int64, n))
    li, ri = ix.li, ix.ri
    keys = list(edges)
    n = len(keys)
    rows = np.fromiter(map(li.__getitem__, map(itemgetter(0), keys)), np.int64, n)
    cols = np.fromiter(map(ri.__getitem__, map(itemgetter(1), keys)), np.int64, n)
    cost = np.fromiter(map(sum, map(g.ranks.__getitem__, keys)), np.int64, n)
    return rows, cols, cost


def _lsa_matching(g: WelfareGraph, rows: np.ndarray, cols: np.ndarray, cost: np.ndarray
                  ) -> dict[str, str]:
    """:func:`_min_cost_max_card` on edge arrays (left index, right index, integer cost)."""
    nl, nr = len(g.left), len(g.right)
    big = min(nl, nr) * int(cost.max()) + 1
    matrix = np.full((nl, nr + nl), np.inf)
    matrix[rows, cols] = (cost - big).astype(float)
    matrix[np.arange(nl), nr + np.arange(nl)] = 0.0
    r, c = linear_sum_assignment(matrix)
    return {g.left[i]: g.right[j] for i, j in zip(r.tolist(), c.tolist()) if j < nr}


def utilitarian_matching(g, *, certificate: bool = True) -> tuple[dict[str, str], dict | None]:
    """Utilitarian optimum: minimum total (counted) rank over maximum-cardinality matchings.

    Parameters
    ----------
    g : WelfareGraph, HouseAllocation or Market
        The graph, or a model (converted by :func:`as_graph`; a HouseAllocation is read
        through its integer :class:`~prefcert.formal.house_allocation.RankIndex` instead,
        without building the graph).

    Returns
    -------
    (dict, dict or None)
        The matching (left -> right) and its certificate: LP duals for weights B − cost,
        ``{"type": "lp_duals", "value", "base", "duals"}``; None if the duals cannot be built
        (the matching was not optimal — a bug the pipeline reports as a disagreement).
        ``certificate=False``: None instead, no duals computed (the same matching, for a
        caller that reads the matching only).

    Notes
    -----
    The Hungarian method (scipy ``linear_sum_assignment``, Crouse 2016) on the dense cost
    matrix, with dummy "unmatched" columns (see :func:`_min_cost_max_card`) unless every
    agent ranks every object and there are no more agents than objects; O((|L|+|R|)³) worst
    case. The duals are the shortest distances of the difference constraints of
    :func:`duals_or_improvement`, by dense label-correcting rounds
    (:func:`_duals_dense`), or :func:`_duals_int64` on sparse graphs, or the exact path in
    Python integers when int64 could overflow. The result is the same in every case.
    """
    if isinstance(g, HouseAllocation):
        return _utilitarian_indexed(g, certificate)
    g = as_graph(g)
    if not g.ranks:
        return {}, welfare_certificate(g, "utilitarian", {})[0] if certificate else None
    rows, cols, cost = _edge_arrays(g)
    nl, nr = len(g.left), len(g.right)
    if len(cost) * 4 >= nl * nr:
        dense = np.zeros((nl, nr), np.int64)
        dense[rows, cols] = cost
        return _utilitarian_dense(g.left, g.right, dense, len(cost) == nl * nr,
                                  lambda: g, certificate)
    m = _lsa_matching(g, rows, cols, cost)
    if not certificate:
        return m, None
    base = min(len(g.left), len(g.right)) * int(cost.max()) + 1
    duals = _duals_int64(g, rows, cols, base - cost, m)
    if duals is None:                 # overflow risk or not optimal: the exact path decides
        cert, _ = welfare_certificate(g, "utilitarian", m)
        return m, cert
    return m, {"type": "lp_duals", "value": welfare_value(g, "utilitarian", m), "base": base,
               "duals": duals}


def _utilitarian_indexed(model: HouseAllocation, certificate: bool = True
                         ) -> tuple[dict[str, str], dict | None]:
    """:func:`utilitarian_matching` of a HouseAllocation from its RankIndex: the dense
    rank matrix is filled from the index arrays (no per-edge Python object). O(n·p) memory."""
    ix = model.rank_index()
    agents, objects = model.agents, model.objects
    nl, nr = len(agents), len(objects)
    offsets = np.frombuffer(ix.offsets, np.int64)
    total = int(offsets[-1])
    if not total:
        return utilitarian_matching(welfare_graph(model), certificate=certificate)
    cols = np.frombuffer(ix.objects, np.int32)
    lens = np.diff(offsets)
    dense = np.zeros((nl, nr), np.int64)
    k = int(lens[0])
    if bool((lens == k).all()):       # every list of one length: 2-D fancy indexing over
        # the arrays as they are (no index array of L entries is made)
        rank_rows = np.arange(1, k + 1) if ix.ranks is None \
            else np.frombuffer(ix.ranks, np.int32).reshape(nl, k)
        dense[np.arange(nl)[:, None], cols.reshape(nl, k)] = rank_rows
    else:
        rows = np.repeat(np.arange(nl, dtype=np.int64), lens)
        if ix.ranks is None:
            ranks = np.arange(total, dtype=np.int64) - np.repeat(offsets[:-1], lens) + 1
        else:
            ranks = np.frombuffer(ix.ranks, np.int32)
        flat = dense.reshape(-1)
        flat[rows * nr + cols] = ranks
        del rows, ranks
    return _utilitarian_dense(agents, objects, dense, total == nl * nr,
                              lambda: welfare_graph(model), certificate)


def _utilitarian_dense(left: Sequence[str], right: Sequence[str], cost: np.ndarray,
                       complete: bool, graph, certificate: bool = True
                       ) -> tuple[dict[str, str], dict | None]:
    """The utilitarian optimum and its duals from a dense cost matrix (``cost[l, r]`` the
    edge's counted rank sum, 0 for a non-edge; ``complete``: every pair is an edge).
    ``graph()`` makes the WelfareGraph when the exact path must decide; without
    ``certificate`` no duals are computed (None instead). O(|L|·|R|) memory."""
    nl, nr = cost.shape
    top = int(cost.max())
    big = min(nl, nr) * top + 1
    if complete and nl <= nr:
        # Every agent is matched at the optimum: the dummy columns are never used, and the
        # Hungarian method's choices do not depend on them (checked against the dummy
        # matrix in the tests), so the n × n matrix gives the same matching.
        matrix = cost.astype(np.float64)
        matrix -= big
    else:
        matrix = np.full((nl, nr + nl), np.inf)
        edge = cost > 0
        matrix[:, :nr][edge] = (cost[edge] - big).astype(float)
        matrix[np.arange(nl), nr + np.arange(nl)] = 0.0
    r, c = linear_sum_assignment(matrix)
    del matrix
    keep = c < nr
    r, c = r[keep], c[keep]
    m = dict(zip(map(left.__getitem__, r.tolist()), map(right.__getitem__, c.tolist())))
    if not certificate:
        return m, None
    value = int(cost[r, c].sum())
    mate_l = np.full(nl, -1, np.int64)
    mate_l[r] = c
    duals = _duals_dense(cost, mate_l, big, complete)
    if duals is None:                 # overflow risk or not optimal: the exact path decides
        cert, _ = welfare_certificate(graph(), "utilitarian", m)
        return m, cert
    yl, yr = duals
    return m, {"type": "lp_duals", "value": value, "base": big,
               "duals": {"left": dict(zip(left, yl.tolist())),
                         "right": dict(zip(right, yr.tolist()))}}


_DENSE_BLOCK = 1 << 22                # entries of the temporary (dist + cost) block


def _duals_dense(cost: np.ndarray, mate_l: np.ndarray, base: int, complete: bool
                 ) -> tuple[np.ndarray, np.ndarray] | None:
    """The duals of :func:`duals_or_improvement` (weights ``base − cost``) on a dense matrix.

    Parameters
    ----------
    cost : ndarray of int64, shape (|L|, |R|)
        Edge costs, 0 for a non-edge.
    mate_l : ndarray of int64
        The matching: the right index of each left vertex, −1 when unmatched.
    base : int
        The base B of the weights.
    complete : bool
        Every entry of ``cost`` is an edge (no sentinel needed).

    Returns
    -------
    (ndarray, ndarray) or None
        The left and right duals (int64), or None when int64 could overflow or when the
        difference constraints have a negative cycle through the zero node (``m`` is not
        optimal): the caller then takes the exact path.

    Notes
    -----
    The constraints of :func:`duals_or_improvement`, with the zero node Z held at 0: every
    arc l → M(r) (edge (l, r), r matched) has length c(l, r) − c(M(r), r), so one round of
    label correcting is a column minimum of ``dist[:, None] + cost`` less c(M(r), r) —
    dense numpy, no arc arrays; an edge to an unmatched r is an arc to Z of length
    c(l, r) − B, and a negative distance reaches Z through l → Z (length 0). Only rows
    whose distance fell in the last round are rescanned (a row that did not change has had
    its arcs relaxed at its current distance). Shortest distances are unique, so these are
    the exact path's duals. At most |L| + 2 rounds, O(|L|·|R|) each; a few on the markets
    measured. Bellman 1958; Moore 1959 (label correcting).
    """
    nl, nr = cost.shape
    if (base + 1) * 2 * (nl + 2) >= _INT64_SAFE:
        return None
    matched = mate_l >= 0
    li = np.flatnonzero(matched)
    mate_r = np.full(nr, -1, np.int64)
    mate_r[mate_l[li]] = li
    c_mate = np.zeros(nl, np.int64)
    c_mate[li] = cost[li, mate_l[li]]
    dist = np.where(matched, base - c_mate, 0)               # Z -> l
    off = np.full(nr, base, np.int64)                         # unmatched r: an arc to Z
    rm = mate_r >= 0
    off[rm] = c_mate[mate_r[rm]]
    work = cost if complete else np.where(cost > 0, cost, _INT64_SAFE)
    step = max(1, _DENSE_BLOCK // max(nr, 1))
    changed = np.arange(nl)
    for _ in range(nl + 2):
        colmin = np.full(nr, np.iinfo(np.int64).max, np.int64)
        for s in range(0, len(changed), step):
            blk = changed[s:s + step]
            np.minimum(colmin, (work[blk] + dist[blk, None]).min(axis=0), out=colmin)
        cand = colmin - off
        if (cand[~rm] < 0).any():
            return None                                     # Z itself would fall
        better = rm & (cand < dist[np.maximum(mate_r, 0)])
        if not better.any():
            break
        rows = mate_r[better]
        dist[rows] = cand[better]
        if (dist[rows] < 0).any():
            return None                                     # l -> Z would lower Z
        changed = rows
    else:
        return None                                         # still relaxing
    yr = np.where(rm, base - off - dist[np.maximum(mate_r, 0)], 0)
    return dist, yr


def egalitarian_matching(g, *, certificate: bool = True) -> tuple[dict[str, str], dict | None]:
    """Egalitarian optimum: minimum worst (counted) rank over maximum-cardinality matchings.

    Binary search for the smallest level k whose threshold graph (edges of level ≤ k) has a
    matching of the maximum size ν (Hopcroft–Karp per probe, O(√n·m·log R)), from the floor
    of :func:`_bottleneck_floor` (probed first); then, among
    those, one of minimum total rank (Hungarian method) so the answer is also Pareto-optimal
    among the bottleneck-optimal matchings. Gabow & Tarjan 1988 (bottleneck matching).
    Certificate: Hall sets (:func:`welfare_certificate`); ``certificate=False``: None
    instead (the same matching, for a caller that reads the matching only).
    """
    g = as_graph(g)
    size = _threshold_sizes(g)
    nu = size(None)
    ix = g.index()                                       # levels once, not once per probe
    levels = sorted(set(ix.levels))
    if nu == 0:
        return {}, welfare_certificate(g, "egalitarian", {})[0]
    # the least level whose threshold graph has a matching of size nu: at or above the
    # floor (probed first: it is often the answer), by binary search above it
    lo, hi = bisect_left(levels, _bottleneck_floor(g, nu)), len(levels) - 1
    if lo < hi and size(levels[lo]) != nu:
        lo += 1
        while lo < hi:
            mid = (lo + hi) // 2
            if size(levels[mid]) == nu:
                hi = mid
            else:
                lo = mid + 1
    k = levels[lo]
    lev = np.fromiter(ix.levels, np.int64, len(ix.levels))
    rows, cols, cost = _edge_arrays(g)
    keep = lev <= k                                      # (edge order: the same matrix)
    m = _lsa_matching(g, rows[keep], cols[keep], cost[keep])
    if not certificate:
        return m, None
    cert, _ = welfare_certificate(g, "egalitarian", m)
    return m, cert


def rank_maximal(g, *, certificate: bool = True) -> tuple[dict[str, str], dict | None]:
    """Rank-maximal matching: lexicographically maximum signature over all matchings.

    One-sided graphs: the combinatorial algorithm of Irving, Kavitha, Mehlhorn, Michail &
    Paluch 2006 (TALG 2) — phases i = 1…R; G'_i gets the surviving rank-i edges; a maximum
    matching M_i of G'_i (Hopcroft–Karp, recomputed: by IKMMP's invariant every maximum
    matching of G'_i is rank-maximal in G_i); Gallai–Edmonds labels (even / odd /
    unreachable) w.r.t. M_i; edges of rank > i at odd or unreachable vertices and odd–odd,
    odd–unreachable edges are deleted. Stops early once M_i has the size of a maximum
    matching of the whole graph (later phases cannot change it). O(C·√n·m), C the largest
    rank used.

    Two-sided graphs (an edge counts two ranks) are outside IKMMP's model, and so is the
    ``maximum`` scope (the greedy maximum matching: cardinality first): maximum-weight
    matching with w(e) = Σ_k B^(R−k) (+ B^(R+1) for the scope), B = 2·min(|A|,|B|) + 1,
    Python integers (networkx blossom, exact; Michail 2005). Certificate: LP duals under
    those weights. ``certificate=False``: None instead of the certificate (the same
    matching, for a caller that reads the matching only).
    """
    g = as_graph(g)
    if g.two_sided or g.maximum_first:     # IKMMP's phases do not put cardinality first
        m = rank_maximal_unique(g)
    else:
        m = _ikmmp(g)
    if not certificate:
        return m, None
    cert, _ = welfare_certificate(g, "rank_maximal", m)
    return m, cert


def rank_maximal_weighted(g) -> dict[str, str]:
    """Rank-maximal matching as a maximum-weight matching with weights Σ_k B^(R−k) over the
    edge's counted ranks, B = max signature entry + 1, exact Python ints (Michail 2005;
    networkx ``max_weight_matching``, O(n³))."""
    g = as_graph(g)
    h = nx.Graph()
    for e, w in edge_weights(g, "rank_maximal", rank_base(g)).items():
        h.add_edge(("L", e[0]), ("R", e[1]), weight=w)
    mate = {}
    for u, v in nx.max_weight_matching(h):    # a set: its order follows the hash seed
        if u[0] == "R":
            u, v = v, u
        mate[u[1]] = v[1]
    return {x: mate[x] for x in g.left if x in mate}


def rank_maximal_unique(g) -> dict[str, str]:
    """:func:`rank_maximal_weighted`'s matching, networkx's blossom run only when the
    optimum is not unique.

    The maximum-weight matching for the weights of :func:`rank_maximal_weighted` is found
    by the Hungarian method in Python integers (:func:`_max_weight_assignment`), proved
    optimal by the LP duals of :func:`duals_or_improvement` (checked here: y ≥ 0, every
    edge covered, tight on the matching, zero on its unmatched vertices) and proved the
    only optimum by :func:`_only_optimum`. An optimum that is the only one is the matching
    every exact method returns, networkx's included; otherwise (or if a proof fails)
    networkx decides, so the result is always :func:`rank_maximal_weighted`'s.
    O(n³) with the proofs O(n·L); the blossom (O(n³) with a large constant, ~10× slower at
    n = 30) only on ties.
    """
    g = as_graph(g)
    if not g.ranks:
        return rank_maximal_weighted(g)
    weights = edge_weights(g, "rank_maximal", rank_base(g))
    m = _max_weight_assignment(g, weights)
    duals, _ = duals_or_improvement(g, weights, m)
    if duals is not None and _only_optimum(g, weights, m, duals):
        return m
    return rank_maximal_weighted(g)


def _max_weight_assignment(g: WelfareGraph, weights: Mapping[tuple[str, str], int]
                           ) -> dict[str, str]:
    """A maximum-weight matching of ``g`` for positive integer ``weights`` (left order).

    The Hungarian method (:func:`~prefcert.oracles.assignment.min_cost_assignment`) on the
    square matrix of side max(|L|, |R|) with weight 0 for non-edges and padding: every
    matching extends to a perfect assignment through zero entries, so an assignment of
    maximum weight, its zero pairs dropped, is a matching of maximum weight. Exact in
    Python integers. O(n³).
    """
    left, right = g.left, g.right
    n = max(len(left), len(right))
    ri = {y: j for j, y in enumerate(right, 1)}
    li = {x: i for i, x in enumerate(left, 1)}
    # cost a[i][j] = -w (minimisation), rows/columns 1-based, row 0 / column 0 unused
    a = [[0] * (n + 1) for _ in range(n + 1)]
    for (x, y), w in weights.items():
        a[li[x]][ri[y]] = -w
    p, _, _ = min_cost_assignment(a)
    mate = {}
    for j in range(1, n + 1):
        i = p[j]
        if a[i][j] < 0:
            mate[left[i - 1]] = right[j - 1]
    return {x: mate[x] for x in left if x in mate}


def _only_optimum(g: WelfareGraph, weights: Mapping[tuple[str, str], int],
                  m: Mapping[str, str], duals: Mapping[str, Mapping[str, int]]) -> bool:
    """Whether ``m`` is the only maximum-weight matching, given LP duals proving it optimal.

    The duals are checked first (y ≥ 0, y_l + y_r ≥ w on every edge, equality on ``m``,
    y = 0 on vertices ``m`` leaves unmatched; False if not). By complementary slackness a
    matching is optimal iff it uses tight edges only and covers every vertex of positive
    dual. Another optimum M' would differ from ``m`` by an alternating cycle of tight edges
    or by an alternating path of tight edges whose two ends have dual 0 (an end left
    uncovered by one of the two matchings). Orienting tight non-matching edges left →
    right and matching edges right → left, such cycles are directed cycles and such paths
    run from an unmatched left vertex or a matched right vertex of dual 0 to a matched
    left vertex or an unmatched right vertex of dual 0. O(V + L).
    """
    yl, yr = duals["left"], duals["right"]
    mate_r = {y: x for x, y in m.items()}
    if len(mate_r) != len(m) or any(e not in weights for e in m.items()):
        return False
    nl = len(g.left)
    li = {x: i for i, x in enumerate(g.left)}
    ri = {y: nl + j for j, y in enumerate(g.right)}
    if any(v < 0 for v in yl.values()) or any(v < 0 for v in yr.values()):
        return False
    if any(yl[x] for x in g.left if x not in m) or \
            any(yr[y] for y in g.right if y not in mate_r):
        return False
    out: list[list[int]] = [[] for _ in range(nl + len(g.right))]
    for (x, y), w in weights.items():
        s = yl[x] + yr[y]
        if s < w:
            return False
        if m.get(x) == y:
            if s != w:
                return False
            out[ri[y]].append(li[x])
        elif s == w:
            out[li[x]].append(ri[y])
    sink = [False] * len(out)
    sources = []
    for x in g.left:
        if yl[x] == 0:
            if x in m:
                sink[li[x]] = True
            else:
                sources.append(li[x])
    for y in g.right:
        if yr[y] == 0:
            if y in mate_r:
                sources.append(ri[y])
            else:
                sink[ri[y]] = True
    for s in sources:                 # a path from a source to a sink: another optimum
        if out[s]:
            seen = {s}
            stack = [s]
            while stack:
                u = stack.pop()
                for v in out[u]:
                    if sink[v]:
                        return False
                    if v not in seen:
                        seen.add(v)
                        stack.append(v)
    # a directed cycle (iterative colouring DFS): another optimum
    color = [0] * len(out)
    for r in range(len(out)):
        if color[r] or not out[r]:
            continue
        color[r] = 1
        stack2 = [(r, iter(out[r]))]
        while stack2:
            u, it = stack2[-1]
            for v in it:
                if color[v] == 1:
                    return False
                if color[v] == 0:
                    color[v] = 1
                    stack2.append((v, iter(out[v])))
                    break
            else:
                color[u] = 2
                stack2.pop()
    return True


def _ikmmp(g: WelfareGraph) -> dict[str, str]:
    # G'_i is kept as adjacency lists (row -> columns in the order the edges joined, the
    # order HK scans them), extended by each phase's edges and pruned in place
    nl, nr = len(g.left), len(g.right)
    ix = g.index()
    by_rank: dict[int, list[tuple[int, int]]] = {}
    for x, y, rk in zip(ix.rows, ix.cols, ix.ranks):
        by_rank.setdefault(rk[0], []).append((x, y))
    nu = nl - _scipy_rows(_level_adj(g, None), nr).count(-1)
    closed_l = [False] * nl
    closed_r = [False] * nr
    adj_l: list[list[int]] = [[] for _ in range(nl)]
    mate_l = [-1] * nl
    mate_r = [-1] * nr
    for i in range(1, g.max_rank + 1):
        for x, y in by_rank.get(i, ()):
            if not closed_l[x] and not closed_r[y]:
                adj_l[x].append(y)
        _hopcroft_karp(adj_l, mate_l, mate_r)     # augments M_{i-1} into M_i
        size = nl - mate_l.count(-1)
        if size == nu or i == g.max_rank:
            break
        adj_r: list[list[int]] = [[] for _ in range(nr)]
        for x, ys in enumerate(adj_l):
            for y in ys:
                adj_r[y].append(x)
        # Gallai–Edmonds labels: 0 unreachable, 1 even, 2 odd (reachability: the order of
        # the search does not change them)
        lab_l = [1 if j < 0 else 0 for j in mate_l]
        lab_r = [1 if x < 0 else 0 for x in mate_r]
        stack_l = [x for x in range(nl) if mate_l[x] < 0]      # even rows to scan
        stack_r = [y for y in range(nr) if mate_r[y] < 0]      # even columns to scan
        while stack_l or stack_r:
            while stack_l:
                v = stack_l.pop()
                mv = mate_l[v]
                for y in adj_l[v]:
                    if lab_r[y] == 0 and mv != y:
                        lab_r[y] = 2
                        x2 = mate_r[y]
                        if x2 >= 0 and lab_l[x2] == 0:
                            lab_l[x2] = 1
                            stack_l.append(x2)
            while stack_r:
                v = stack_r.pop()
                mv = mate_r[v]
                for x in adj_r[v]:
                    if lab_l[x] == 0 and mv != x:
                        lab_l[x] = 2
                        y2 = mate_l[x]
                        if y2 >= 0 and lab_r[y2] == 0:
                            lab_r[y2] = 1
                            stack_r.append(y2)
        for x in range(nl):
            if lab_l[x] != 1:
                closed_l[x] = True
        for y in range(nr):
            if lab_r[y] != 1:
                closed_r[y] = True
        for x, ys in enumerate(adj_l):   # odd-odd and odd-unreachable edges go
            lx = lab_l[x]
            if lx == 2:
                adj_l[x] = [y for y in ys if lab_r[y] == 1]
            elif lx == 0:
                adj_l[x] = [y for y in ys if lab_r[y] != 2]
    return {g.left[x]: g.right[y] for x, y in enumerate(mate_l) if y >= 0}


def _hopcroft_karp(adj: list[list[int]], mate_l: list[int], mate_r: list[int]) -> None:
    """Augment the matching (mate_l, mate_r) in place to a maximum matching of ``adj``
    (left index -> right indices): Hopcroft & Karp 1973 phases (BFS layering from the free
    left vertices, then vertex-disjoint shortest augmenting paths by iterative DFS).
    Augmenting never unmatches a vertex — IKMMP need this. O(√n·m)."""
    nl = len(adj)
    while True:
        dist = [-1] * nl
        q = deque(x for x in range(nl) if mate_l[x] < 0)
        for x in q:
            dist[x] = 0
        found = False
        while q:
            x = q.popleft()
            for y in adj[x]:
                x2 = mate_r[y]
                if x2 < 0:
                    found = True
                elif dist[x2] < 0:
                    dist[x2] = dist[x] + 1
                    q.append(x2)
        if not found:
            return
        it = [0] * nl
        for root in range(nl):
            if mate_l[root] >= 0 or dist[root] != 0:
                continue
            stack = [root]
            while stack:
                x = stack[-1]
                if it[x] == len(adj[x]):
                    dist[x] = -2              # dead end for this phase
                    stack.pop()
                    continue
                y = adj[x][it[x]]
                it[x] += 1
                x2 = mate_r[y]
                if x2 < 0:
                    for u in stack:           # augment along the stack
                        v = adj[u][it[u] - 1]
                        mate_l[u] = v
                        mate_r[v] = u
                    break
                if dist[x2] == dist[x] + 1:
                    stack.append(x2)


# --------------------------------------------------------------------------------------
# certificates: Hall sets, LP duals (verified by the checker)
# --------------------------------------------------------------------------------------

def hall_or_augment(g: WelfareGraph, m: Mapping[str, str], below: int | None = None
                    ) -> tuple[list[str] | None, dict[str, str] | None]:
    """For a matching ``m`` of the subgraph of edges with level < ``below`` (all edges if
    None): either (S, None) with S a Hall set proving ``m`` maximum there (S = left vertices
    reachable by alternating paths from unmatched left vertices), or (None, m') with m' one
    edge larger (an augmenting path). O(L) (alternating BFS). Source: König 1931; Berge 1957.
    """
    ok = (lambda e: True) if below is None else (lambda e: g.level(e) < below)
    mate_r = {y: x for x, y in m.items()}
    parent: dict[str, tuple[str, str | None]] = {}   # right vertex -> (left it came from)
    frontier = [x for x in g.left if x not in m]
    reached = set(frontier)
    while frontier:
        nxt = []
        for x in frontier:
            for y in g.adj[x]:
                if y in parent or not ok((x, y)) or m.get(x) == y:
                    continue
                parent[y] = (x, None)
                if y not in mate_r:             # augmenting path ends at y
                    out = dict(m)
                    while True:
                        px = parent[y][0]
                        prev = out.get(px)
                        out[px] = y
                        if px not in m or prev is None:
                            return None, out
                        y = prev
                x2 = mate_r[y]
                if x2 not in reached:
                    reached.add(x2)
                    nxt.append(x2)
        frontier = nxt
    return sorted(reached), None


# The bases and weights below are the engines' copy; the checker recomputes its own, so that
# a bug here cannot make the certificate and its check agree.

def utilitarian_base(g: WelfareGraph) -> int:
    """Smallest base B for which max Σ(B − cost) is max cardinality then min total rank:
    B = min(|L|,|R|)·C + 1 with C the largest edge cost (a matching one edge larger gains
    at least B − C > (k)·C more than any cost saving)."""
    c = max((sum(rk) for rk in g.ranks.values()), default=0)
    return min(len(g.left), len(g.right)) * c + 1


def rank_base(g: WelfareGraph) -> int:
    """Smallest base B for which Σ_k s_k B^(R−k) orders signatures lexicographically."""
    return min(len(g.left), len(g.right)) * (2 if g.two_sided else 1) + 1


def edge_weights(g: WelfareGraph, notion: str, base: int, cutoff: int | None = None
                 ) -> dict[tuple[str, str], int]:
    """The integer weights whose maximum-weight matchings are the optima of ``notion``
    (``cutoff``: rank-maximal only; ranks above it share the weight class of exponent 0,
    see :func:`prefcert.formal.checker.welfare.check_lp_duals`)."""
    if notion == "utilitarian":
        return {e: base - sum(rk) for e, rk in g.ranks.items()}
    if notion == "rank_maximal":
        top = (g.max_rank if cutoff is None else cutoff) + 1
        pw = [base ** (top - min(k, top)) for k in range(g.max_rank + 1)]
        first = base ** top if g.maximum_first else 0     # cardinality first (maximum scope)
        return {e: first + sum(pw[k] for k in rk) for e, rk in g.ranks.items()}
    raise ValueError(f"no LP weights for {notion!r}")


_Z = ("__zero__",)


def duals_or_improvement(g: WelfareGraph, weights: Mapping[tuple[str, str], int],
                         m: Mapping[str, str]) -> tuple[dict | None, dict | None]:
    """Prove ``m`` a maximum-weight matching for integer ``weights`` or improve it.

    Returns ``({"left": {l: y}, "right": {r: y}}, None)`` — integral duals y ≥ 0 with
    y_l + y_r ≥ w(l, r) on every edge, y = 0 on unmatched vertices and Σy = w(m) — or
    ``(None, m')`` with w(m') > w(m) when ``m`` is not optimal.

    Method (derived; checked against brute force in the tests): fix y_r = w(M(r), r) − y_l
    on matched objects, so the dual constraints become difference constraints over the
    left vertices plus a zero node Z: arc l → M(r) of length w(M(r), r) − w(l, r) for a
    non-matching edge (l, r) with r matched, l → Z of length −w(l, r) for r unmatched,
    l → Z of length 0 (y_l ≥ 0), Z → l of length w(l, M(l)) (y_{M(l)} ≥ 0), and Z ↔ l of
    length 0 for unmatched l. Shortest distances from Z are feasible duals; a negative cycle
    is an alternating cycle or path whose exchange increases the weight. Shortest paths by
    FIFO Bellman–Ford (:func:`_spfa`), O(n·L) worst case, exact in Python integers; the
    improving exchange is read off a negative cycle (:func:`_negative_cycle`).
    :func:`_duals_int64` computes the same duals on arrays (the utilitarian oracle's path).
    """
    mate_r = {y: x for x, y in m.items()}
    nodes = [_Z, *g.left]
    idx = {v: i for i, v in enumerate(nodes)}
    best: dict[tuple[int, int], tuple] = {}       # (u, v) -> (length, via)

    def arc(u, v, length, via):
        key = (idx[u], idx[v])
        if key not in best or best[key][0] > length:
            best[key] = (length, via)

    for x in g.left:
        if x in m:
            arc(x, _Z, 0, None)
            arc(_Z, x, weights[(x, m[x])], None)
        else:
            arc(x, _Z, 0, None)
            arc(_Z, x, 0, None)
    for (x, y), w in weights.items():
        if m.get(x) == y:
            continue
        if y in mate_r:
            x2 = mate_r[y]
            arc(x, x2, weights[(x2, y)] - w, y)
        else:
            arc(x, _Z, -w, y)
    out_arcs: list[list[tuple[int, Any]]] = [[] for _ in nodes]
    for (u, v), (length, _) in best.items():
        out_arcs[u].append((v, length))
    dist = _spfa(out_arcs, 0)
    if dist is None:
        d = nx.DiGraph()
        for (u, v), (length, via) in best.items():
            d.add_edge(nodes[u], nodes[v], weight=length, via=via)
        cycle = _negative_cycle(d)
        out = dict(m)
        for u, v in zip(cycle, cycle[1:]):
            if u == _Z:
                continue                  # v's object is freed; v moves along its own arc
            via = d[u][v]["via"]
            if via is None:
                out.pop(u, None)          # u ends unmatched
            else:
                out[u] = via              # u takes via (v's object, or a free one)
        return None, out
    yl = {x: int(dist[idx[x]]) for x in g.left}
    yr = {y: 0 for y in g.right}
    for y, x in mate_r.items():
        yr[y] = weights[(x, y)] - yl[x]
    return {"left": yl, "right": yr}, None


_INT64_SAFE = 2 ** 60


def _duals_int64(g: WelfareGraph, wl: np.ndarray, wr: np.ndarray, ww: np.ndarray,
                 m: Mapping[str, str]) -> dict | None:
    """The duals of :func:`duals_or_improvement` by vectorised Bellman–Ford in int64.

    ``wl``, ``wr``, ``ww``: the edges as arrays (left index, right index, weight). The
    difference constraints become arc arrays (source, target, length); each round relaxes
    every arc at once (numpy: a gather, an add and a grouped minimum by target) until a
    round changes nothing — at most |V| rounds, O(|V|·L) worst case, a few rounds on the
    markets measured. Shortest distances are unique, so the duals equal those of the exact
    path. Returns None (the caller takes the exact path) when some weight times |V| could
    leave the safe int64 range, or when round |V| still relaxes (a negative cycle: ``m`` is
    not optimal).
    """
    n_left = len(g.left)
    if not len(ww) or (int(np.abs(ww).max()) + 1) * 2 * (n_left + 2) >= _INT64_SAFE:
        return None
    lidx = {x: i for i, x in enumerate(g.left)}
    ridx = {y: j for j, y in enumerate(g.right)}
    wl = wl + 1                                               # node 0 is Z
    mate_of_right = np.zeros(len(g.right), np.int64)          # node of M(r); 0 = unmatched
    w_mate = np.zeros(len(g.right), np.int64)                 # w(M(r), r)
    matched_w = np.zeros(n_left + 1, np.int64)                # w(l, M(l)); 0 = unmatched
    mi = np.fromiter((lidx[x] for x in m), np.int64, len(m))
    mj = np.fromiter((ridx[y] for y in m.values()), np.int64, len(m))
    mate_of_right[mj] = mi + 1
    in_m = mate_of_right[wr] == wl
    w_mate[wr[in_m]] = ww[in_m]
    matched_w[wl[in_m]] = ww[in_m]
    other = ~in_m
    target = mate_of_right[wr[other]]                          # M(r), or Z when r is free
    length = np.where(target > 0, w_mate[wr[other]] - ww[other], -ww[other])
    nodes = np.arange(1, n_left + 1, dtype=np.int64)
    src = np.concatenate([wl[other], nodes, np.zeros(n_left, np.int64)])
    dst = np.concatenate([target, np.zeros(n_left, np.int64), nodes])
    lens = np.concatenate([length, np.zeros(n_left, np.int64), matched_w[1:]])
    order = np.argsort(dst, kind="stable")
    src, dst, lens = src[order], dst[order], lens[order]
    heads = np.flatnonzero(np.r_[True, dst[1:] != dst[:-1]])
    groups = dst[heads]
    inf = _INT64_SAFE
    dist = np.full(n_left + 1, inf, np.int64)
    dist[0] = 0
    for _ in range(n_left + 2):
        reach = dist[src]
        cand = np.where(reach < inf, reach + lens, inf)
        best = np.minimum.reduceat(cand, heads)
        new = dist.copy()
        new[groups] = np.minimum(dist[groups], best)
        if np.array_equal(new, dist):
            break
        dist = new
    else:
        return None                                           # still relaxing: a negative cycle
    if dist[0] < 0 or int(in_m.sum()) != len(m):
        return None
    yr = np.where(mate_of_right > 0, w_mate - dist[mate_of_right], 0)
    return {"left": dict(zip(g.left, dist[1:].tolist())),
            "right": dict(zip(g.right, yr.tolist()))}


def _spfa(out_arcs: list, source: int) -> list | None:
    """Shortest distances from ``source`` by FIFO label correcting (Bellman–Ford–Moore),
    exact in Python integers; None when a negative cycle is reachable (some node relaxed
    |V| times). O(|V|·|E|) worst case, near-linear in practice."""
    n = len(out_arcs)
    dist: list = [None] * n
    dist[source] = 0
    count = [0] * n
    inq = [False] * n
    q = deque([source])
    inq[source] = True
    while q:
        u = q.popleft()
        inq[u] = False
        du = dist[u]
        for v, length in out_arcs[u]:
            nd = du + length
            dv = dist[v]
            if dv is None or nd < dv:
                dist[v] = nd
                if not inq[v]:
                    count[v] += 1
                    if count[v] > n:
                        return None
                    inq[v] = True
                    q.append(v)
    return dist


def _negative_cycle(d: nx.DiGraph) -> list:
    """A negative cycle of ``d`` as a closed node list [v0, …, v0] (Bellman–Ford with a
    virtual source, |V| passes, then a walk back along predecessors; O(|V|·|E|)).
    Used instead of ``networkx.find_negative_cycle``, which can fail to extract a cycle it
    detected (networkx 3.x, "Negative cycle is detected but not found")."""
    arcs = [(u, v, a["weight"]) for u, v, a in d.edges(data=True)]
    dist = {v: 0 for v in d}
    pred: dict = {}
    last = None
    for _ in range(len(dist)):
        last = None
        for u, v, w in arcs:
            if dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
                pred[v] = u
                last = v
        if last is None:
            raise ValueError("no negative cycle")
    x = last
    for _ in range(len(dist)):
        x = pred[x]
    cycle = [x]
    y = pred[x]
    while y != x:
        cycle.append(y)
        y = pred[y]
    cycle.append(x)
    cycle.reverse()
    return cycle


def welfare_certificate(g: WelfareGraph, notion: str, m: Mapping[str, str]
                        ) -> tuple[dict | None, dict | None]:
    """The optimality certificate of ``m`` for ``notion``, or a strictly better matching.

    Returns (certificate, None) or (None, better). Utilitarian / rank-maximal: LP duals
    via :func:`duals_or_improvement`; egalitarian: Hall sets via :func:`hall_or_augment`
    and a maximum matching of the subgraph below the bottleneck.
    """
    m = dict(m)
    if notion in ("utilitarian", "rank_maximal"):
        base = utilitarian_base(g) if notion == "utilitarian" else rank_base(g)
        cutoff = worst_rank(g, m) if notion == "rank_maximal" else None
        duals, better = duals_or_improvement(g, edge_weights(g, notion, base, cutoff), m)
        if duals is None:
            return None, better
        cert = {"type": "lp_duals", "value": welfare_value(g, notion, m), "base": base,
                "duals": duals}
        if cutoff is not None:
            cert["cutoff"] = cutoff
        return cert, None
    if notion == "egalitarian":
        full, bigger = hall_or_augment(g, m)
        if full is None:
            return None, bigger
        r = worst_rank(g, m)
        cert = {"type": "hall_bottleneck", "value": r, "size": len(m), "hall_full": full}
        if r > 1 and m:
            low = maximum_matching(g, r - 1)
            if len(low) >= len(m):
                return None, low
            s, _ = hall_or_augment(g, low, below=r)
            cert["hall_below"] = s
        return cert, None
    raise ValueError(f"unknown welfare notion {notion!r}")


# --------------------------------------------------------------------------------------
# Pareto optimality
# --------------------------------------------------------------------------------------

def serial_dictatorship(model: HouseAllocation, order: Sequence[str] | None = None
                        ) -> dict[str, str]:
    """Serial dictatorship, ties included: agents in ``order`` (default: input order) each
    fix the best tie from which they can still be served, keeping every earlier agent served
    from its fixed tie (an augmenting-path test per tie). With strict lists each agent takes
    its best remaining object (Abdulkadiroğlu & Sönmez 1998); with ties this is the
    matching-based SD of Krysta, Manlove, Rastegari & Zhang 2014 (EC), whose outcome is
    Pareto optimal (breaking ties arbitrarily is not). O(n·R·L). Runs on the integer lists
    (:class:`~prefcert.formal.house_allocation.RankIndex`); the searches try a tie's objects
    in name order.
    """
    order = list(model.agents if order is None else order)
    ix, aid, objects = model.rank_index(), model.agent_ids(), model.objects
    key = [0] * len(objects)                 # key[j]: object j's place in name order
    for p, j in enumerate(sorted(range(len(objects)), key=objects.__getitem__)):
        key[j] = p
    allowed: dict[int, list[int]] = {}       # agent -> its fixed tie, in name order
    owner: dict[int, int] = {}
    mate: dict[int, int] = {}
    for a in order:
        i = aid[a]
        ends = ix.entry_ranks(i)
        row = ix.entries(i)
        lo = 0
        allowed[i] = []
        while lo < len(row):
            hi = lo + 1
            while hi < len(row) and ends[hi] == ends[lo]:
                hi += 1
            allowed[i] = sorted(set(row[lo:hi]), key=key.__getitem__)
            if _augment(i, allowed, owner, mate):
                break
            lo = hi
        else:
            allowed[i] = []
    return {a: objects[mate[aid[a]]] for a in order if aid[a] in mate}


def _augment(root: int, allowed: Mapping[int, list[int]], owner: dict, mate: dict) -> bool:
    """Iterative augmenting-path search from the unmatched agent ``root``."""
    seen: set[int] = set()
    stack = [(root, iter(allowed[root]))]
    path: list[tuple[int, int]] = []
    while stack:
        a, it = stack[-1]
        for h in it:
            if h in seen:
                continue
            seen.add(h)
            path.append((a, h))
            if h not in owner:
                for x, y in path:
                    owner[y] = x
                    mate[x] = y
                return True
            stack.append((owner[h], iter(allowed[owner[h]])))
            break
        else:
            stack.pop()
            if path:
                path.pop()
    return False


def improvement_arcs(model: HouseAllocation, m: Mapping[str, str]
                     ) -> list[list[tuple[int, bool, int]]]:
    """The improvement digraph of ``m`` (Manlove 2013, §6.2; Sng 2008) on agent ints.

    Nodes: the agents ``0..n-1`` (input order) and a sink F = ``n``. ``arcs[i]``: agent
    ``i``'s arcs in its list order, each ``(head, strict, object)``: an arc i → b (b matched,
    b ≠ i) when M(b) ⪰_i M(i), i.e. i could take b's object, then at most one arc i → F
    when an unassigned object ⪰_i M(i) exists (``object``: the best one, the first in the
    list). An arc is ``strict`` when i would be strictly better off; every arc out of an
    unassigned agent is. O(L), on the integer lists: the entries ranked at most M(i)'s
    rank are a prefix of i's list.
    """
    ix, oid, aid = model.rank_index(), model.object_ids(), model.agent_ids()
    sink = len(aid)
    holder = {oid.get(h): aid[a] for a, h in m.items()}
    out: list[list[tuple[int, bool, int]]] = []
    for i, a in enumerate(model.prefs):
        cur = m.get(a)
        c = None if cur is None else oid.get(cur)
        r = None if c is None else ix.rank(i, c)
        rc = ix.nties(i) + 1 if r is None else r
        best_free = None
        arcs = []
        for j, rj in zip(ix.entries(i), ix.entry_ranks(i)):
            if rj > rc:
                break
            if j == c:
                continue
            b = holder.get(j)
            if b is not None:
                arcs.append((b, rj < rc, j))
            elif best_free is None:
                best_free = (sink, rj < rc, j)
        if best_free is not None:
            arcs.append(best_free)
        out.append(arcs)
    return out


def _shortest_path(succ: list[list[int]], pred: list[list[int]], source: int, target: int
                   ) -> list[int]:
    """A shortest path source → target by breadth-first search from both ends, the
    smaller fringe first (the path networkx's ``bidirectional_shortest_path`` gives on the
    same adjacency orders). Raises ValueError when there is none. O(V + E)."""
    if source == target:
        return [source]
    back: dict[int, int | None] = {source: None}       # forward search: node -> parent
    ahead: dict[int, int | None] = {target: None}      # reverse search: node -> child
    fwd, rev = [source], [target]
    meet = None
    while fwd and rev and meet is None:
        if len(fwd) <= len(rev):
            level, fwd = fwd, []
            for v in level:
                for w in succ[v]:
                    if w not in back:
                        fwd.append(w)
                        back[w] = v
                    if w in ahead:
                        meet = w
                        break
                if meet is not None:
                    break
        else:
            level, rev = rev, []
            for v in level:
                for w in pred[v]:
                    if w not in ahead:
                        ahead[w] = v
                        rev.append(w)
                    if w in back:
                        meet = w
                        break
                if meet is not None:
                    break
    if meet is None:
        raise ValueError(f"no path from {source} to {target}")
    path = []
    x: int | None = meet
    while x is not None:
        path.append(x)
        x = back[x]
    path.reverse()
    x = ahead[meet]
    while x is not None:
        path.append(x)
        x = ahead[x]
    return path


def pareto_improvement(model: HouseAllocation, allocation: Mapping[str, str]) -> dict | None:
    """A Pareto improvement of ``allocation``, or None when it is Pareto optimal.

    M is Pareto optimal (with ties: no allocation makes some agent strictly better off and
    nobody worse off) iff for no strict arc (u, v) of :func:`improvement_arcs`, v = F,
    v reaches F, or v reaches u (derived from Manlove 2013 §6.2 / Sng 2008: augmenting-path,
    alternating-path and cyclic coalitions; checked against brute force in the tests).
    The improvement moves the agents along that path or cycle: the first strict arc in
    node order (the order in which the digraph meets its nodes: the sink, then each agent
    and the heads of its arcs), with a shortest path (:func:`_shortest_path`); strong
    components by scipy. O(L) after the arcs.
    """
    # twin of the checker's improving_arc (plain Python there), so that one bug cannot
    # make engine and checker agree
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    m = dict(allocation)
    arcs = improvement_arcs(model, m)
    n = len(arcs)
    sink = n
    succ = [[b for b, _, _ in row] for row in arcs] + [[]]
    pred: list[list[int]] = [[] for _ in range(n + 1)]
    for i, heads in enumerate(succ):
        for b in heads:
            pred[b].append(i)
    to_sink = {sink}
    stack = [sink]
    while stack:
        for u in pred[stack.pop()]:
            if u not in to_sink:
                to_sink.add(u)
                stack.append(u)
    rows = [i for i, heads in enumerate(succ) for _ in heads]
    cols = [b for heads in succ for b in heads]
    graph = csr_matrix(([1] * len(rows), (rows, cols)), shape=(n + 1, n + 1))
    _, comp = connected_components(graph, directed=True, connection="strong")
    seen = [False] * (n + 1)
    order = [sink]                  # the nodes in the order the digraph first meets them
    seen[sink] = True
    for i in range(n):
        for v in (i, *succ[i]):
            if not seen[v]:
                seen[v] = True
                order.append(v)
    agents, objects = list(model.prefs), model.objects
    for u in order:
        if u == sink:
            continue
        for v, strict, _ in arcs[u]:
            if not strict:
                continue
            if comp[u] == comp[v] and v != sink:
                path = [u] + _shortest_path(succ, pred, v, u)   # closed walk u → v → … → u
            elif v in to_sink:
                path = [u] + (_shortest_path(succ, pred, v, sink) if v != sink else [sink])
            else:
                continue
            out = dict(m)
            for x, y in zip(path, path[1:]):
                if x == sink:
                    break
                out[agents[x]] = objects[next(j for b, _, j in arcs[x] if b == y)]
            return out
    return None


def pareto_improvement_assignment(model: HouseAllocation, allocation: Mapping[str, str]
                                  ) -> dict | None:
    """A Pareto improvement of ``allocation`` maximising the number of strictly better-off
    agents, or None if it is Pareto optimal.

    Assignment formulation (independent of :func:`pareto_improvement`'s digraph): edges
    (a, h) with h ⪰_a M(a), weight B·[a matched in M] + [h ≻_a M(a)], B = n + 1, maximum weight by the
    Hungarian method with dummy "unmatched" columns; the optimum keeps every matched agent
    matched, so its excess over B·|M| counts strict improvements. O(n³).
    """
    m = dict(allocation)
    agents, objs = model.agents, model.objects
    n, p = len(agents), len(objs)
    oi = {h: j for j, h in enumerate(objs)}
    big = n + 1
    w = np.full((n, p + n), -np.inf)
    ix = model.rank_index()
    for i, a in enumerate(agents):
        cur = m.get(a)
        r = None if cur is None else ix.rank(i, oi[cur]) if cur in oi else None
        rc = ix.nties(i) + 1 if r is None else r
        for j, rj in zip(ix.entries(i), ix.entry_ranks(i)):
            if rj <= rc:
                w[i, j] = big * (cur is not None) + (1 if rj < rc else 0)
        w[i, p + i] = 0.0
    rows, cols = linear_sum_assignment(w, maximize=True)
    total = int(round(w[rows, cols].sum()))
    if total <= big * len(m):
        return None
    return {agents[i]: objs[j] for i, j in zip(rows, cols) if j < p}


def max_cardinality_pareto_optimal(model: HouseAllocation) -> dict[str, str]:
    """A maximum-cardinality Pareto-optimal matching (MCPO).

    Start from a maximum matching (Hopcroft–Karp) and apply Pareto improvements found by the
    improvement digraph until none is left. Improvements never unmatch an agent, so the size
    stays maximum; each one raises Σ_a (R + 1 − r_a(M(a))), so at most n·R rounds. This is
    phases 2–3 of Abraham, Cechlárová, Manlove & Mehlhorn 2004 (trade-ins and coalitions)
    done one improvement at a time, extended to ties: O(n·R·L), not ACMM's O(√n·m).
    """
    g = welfare_graph(model)
    m = maximum_matching(g)
    while True:
        imp = pareto_improvement(model, m)
        if imp is None:
            return m
        m = imp


def max_cardinality_pareto_optimal_weighted(model: HouseAllocation) -> dict[str, str]:
    """MCPO reference (derived): a maximum-weight matching for
    w(a, h) = B + u_a(h) with u order-consistent (u = R + 1 − rank) and B > Σ max u; any
    Pareto improvement would keep the size and raise Σu. Hungarian method, O((n+m)³)."""
    g = welfare_graph(model)
    return _min_cost_max_card(g, list(g.ranks))


# --------------------------------------------------------------------------------------
# brute force (tests; ≤ 7 agents)
# --------------------------------------------------------------------------------------

def all_matchings(g: WelfareGraph, *, time_limit: float | None = None
                  ) -> Iterator[dict[str, str]]:
    """Every matching of ``g`` (the empty one included), as fresh dicts. Exponential;
    raises TimeoutError past ``time_limit`` seconds (None: no limit)."""
    return within(matchings_of({x: list(g.adj[x]) for x in g.left}), deadline_after(time_limit))


def brute_force_pareto_optimal(model: HouseAllocation, *, time_limit: float | None = None
                               ) -> list[dict[str, str]]:
    """All Pareto-optimal allocations: every allocation not dominated by another (rank
    vectors compared pairwise with numpy; unassigned = rank ∞). O(#M²·n). Raises
    TimeoutError past ``time_limit`` seconds (None: no limit)."""
    deadline = deadline_after(time_limit)
    g = welfare_graph(model)
    ms = list(within(matchings_of({x: list(g.adj[x]) for x in g.left}), deadline))
    agents = model.agents
    big = g.max_rank + 1
    ix, oid = model.rank_index(), model.object_ids()
    ranks = [dict(zip(ix.entries(i), ix.entry_ranks(i))) for i in range(len(agents))]
    r = np.array([[ranks[i][oid[m[a]]] if a in m else big for i, a in enumerate(agents)]
                  for m in ms], dtype=np.int32).reshape(len(ms), len(agents))
    out = []
    for i, m in within(enumerate(ms), deadline, every=16):
        le = (r <= r[i]).all(axis=1)
        lt = (r < r[i]).any(axis=1)
        if not (le & lt).any():
            out.append(m)
    return out


def brute_force_optimum(g: WelfareGraph, notion: str):
    """Optimal value of ``notion`` by enumeration: (size, value) for utilitarian/egalitarian
    (value minimised among maximum size), the signature for rank-maximal. Exponential."""
    best = None
    for m in all_matchings(g):
        if notion == "rank_maximal":
            key = signature(g, m)
            if best is None or key > best:
                best = key
        else:
            key = (-len(m), welfare_value(g, notion, m))
            if best is None or key < best:
                best = key
    if notion == "rank_maximal":
        return best
    return -best[0], best[1]


def all_serial_dictatorships(model: HouseAllocation) -> list[dict[str, str]]:
    """Serial-dictatorship outcomes over every agent order (n! orders)."""
    out = []
    for order in itertools.permutations(model.agents):
        m = serial_dictatorship(model, order)
        if m not in out:
            out.append(m)
    return out
