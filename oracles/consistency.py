"""Self-consistency engines: exact least squares, min-cost-flow L1 repair, the judgment
graph's cycles, orders and minimum feedback arc set (fast, not trusted; the checker is
:mod:`prefcert.formal.checker.consistency`).

- :func:`l2_exact`: the least-squares utilities in exact rationals (normal equations
  solved by Gaussian elimination over :class:`fractions.Fraction`, one connected component
  of the item graph at a time); its residuals weighted by w are the dual circulation.
- :func:`l1_min_cost_flow`: the LP dual of the L1 repair — a maximum-weight circulation
  with capacities w — by network simplex on integer data (networkx), then node potentials
  from shortest paths in the residual network (exact), which are optimal utilities by
  complementary slackness (Ahuja, Magnanti & Orlin 1993, ch. 9).
- :func:`judgment_cycle`, :func:`consistent_order` (networkx), :func:`kahn_order` (a plain
  queue, an independent second engine); :func:`fas_exact` (SCC decomposition, then dynamic
  programming over subsets per component, vectorised in numpy; Held & Karp 1962) and
  :func:`fas_brute_force` (every order, ≤ 8 alternatives).
"""
from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Mapping, Sequence
from fractions import Fraction

from ..formal.consistency import (
    ConsistencyData,
    Observation,
    fraction_text,
    nodes_of,
    observation_arcs,
    order_cost,
)
from ..formal.outcome import Outcome

EXACT_COMPONENT_ITEMS = 250     # larger components: exact elimination is left to lstsq
DP_NODES = 16                   # strongly connected components solved by subset DP
BRUTE_FORCE_NODES = 8


def _components(tails: Sequence[int], heads: Sequence[int], n: int) -> list[list[int]]:
    """Connected components of the item graph (ground excluded) on items ``0..n-1``, each
    in increasing order, ordered by their first item."""
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for t, h in zip(tails, heads):
        if t >= 0:
            a, b = find(t), find(h)
            if a != b:
                parent[a] = b
    groups: dict[int, list[int]] = {}
    for x in range(n):
        groups.setdefault(find(x), []).append(x)
    return list(groups.values())


def _solve_exact(matrix: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    """Gaussian elimination with exact rationals (the matrix is non-singular)."""
    n = len(rhs)
    m = [row[:] + [b] for row, b in zip(matrix, rhs)]
    for col in range(n):
        piv = next(r for r in range(col, n) if m[r][col] != 0)
        m[col], m[piv] = m[piv], m[col]
        p = m[col][col]
        row = [v / p for v in m[col]]
        m[col] = row
        for r in range(n):
            if r != col and m[r][col] != 0:
                f = m[r][col]
                m[r] = [a - f * b for a, b in zip(m[r], row)]
    return [m[r][n] for r in range(n)]


def least_squares_exact(tails: Sequence[int], heads: Sequence[int], r: Sequence[Fraction],
                        w: Sequence[int], n: int) -> dict[int, Fraction] | None:
    """Exact weighted least-squares utilities of items ``0..n-1`` (observation k:
    ``r[k] ≈ u(heads[k]) − u(tails[k])``, weight ``w[k]``, tail ``-1`` the ground, whose
    utility is 0); a component of the item graph without an observation from the ground
    has its first item at 0 (any level fits equally). Keys in component order, items in
    increasing order within one. None when a component exceeds
    :data:`EXACT_COMPONENT_ITEMS`. O(observations + n³ per component)."""
    u: dict[int, Fraction] = {}
    comps = _components(tails, heads, n)
    where = [0] * n                     # item -> its component
    for ci, comp in enumerate(comps):
        for x in comp:
            where[x] = ci
    mine: list[list[int]] = [[] for _ in comps]
    for k, h in enumerate(heads):
        mine[where[h]].append(k)
    for comp, ks in zip(comps, mine):
        if len(comp) > EXACT_COMPONENT_ITEMS:
            return None
        grounded = any(tails[k] < 0 for k in ks)
        free = comp if grounded else comp[1:]
        if not grounded:
            u[comp[0]] = Fraction(0)
        if not free:
            continue
        idx = {x: i for i, x in enumerate(free)}
        m = len(free)
        mat = [[Fraction(0)] * m for _ in range(m)]
        rhs = [Fraction(0)] * m
        for k in ks:
            wk, rk = w[k], r[k]
            hi = idx.get(heads[k])
            ti = idx.get(tails[k]) if tails[k] >= 0 else None
            if hi is not None:
                mat[hi][hi] += wk
                rhs[hi] += wk * rk
            if ti is not None:
                mat[ti][ti] += wk
                rhs[ti] -= wk * rk
            if hi is not None and ti is not None:
                mat[hi][ti] -= wk
                mat[ti][hi] -= wk
        for x, v in zip(free, _solve_exact(mat, rhs)):
            u[x] = v
    return u


def _residuals(tails: Sequence[int], heads: Sequence[int], r: Sequence[Fraction],
               u: Sequence[Fraction]) -> list[Fraction]:
    """r − (u(head) − u(tail)) per observation; ``u`` has one extra last entry 0 (the
    ground, index ``-1``)."""
    return [rk - u[h] + u[t] for t, h, rk in zip(tails, heads, r)]


def l2_exact(model: ConsistencyData, obs: Sequence[Observation]) -> Outcome:
    """The minimum Σ w (r − Au)² with its exact dual μ = w (r − Au) (a circulation by the
    normal equations): ``Outcome("optimal", {"cost", "utilities"}, quadratic_dual)``, or
    ``unknown`` when a component is too large for exact elimination. O(n³) per component."""
    tails, heads = observation_arcs(model, obs)
    r = [o.r for o in obs]
    w = [o.w for o in obs]
    items = model.ints.items
    u = least_squares_exact(tails, heads, r, w, len(items))
    if u is None:
        return Outcome("unknown", stats={"reason": "component too large for exact elimination"})
    ul = [Fraction(0)] * (len(items) + 1)
    for x, v in u.items():
        ul[x] = v
    res = _residuals(tails, heads, r, ul)
    cost = sum((wk * e * e for wk, e in zip(w, res)), Fraction(0))
    return Outcome("optimal", {"cost": fraction_text(cost),
                               "utilities": {items[x]: fraction_text(v) for x, v in u.items()}},
                   {"type": "quadratic_dual",
                    "flow": [fraction_text(wk * e) for wk, e in zip(w, res)]},
                   {"engine": "exact_normal_equations"})


def l1_min_cost_flow(model: ConsistencyData, obs: Sequence[Observation]) -> Outcome:
    """The minimum Σ w |r − Au| by its LP dual, a maximum-weight circulation λ with
    |λ| ≤ w, solved by network simplex on integer costs (r scaled by the common
    denominator); utilities from shortest-path potentials of the residual network
    (Bellman–Ford, exact). Nodes are the item integers, ``-1`` the ground. Returns
    ``Outcome("optimal", ..., circulation_dual)``. O(network simplex + V·E)."""
    import networkx as nx
    tails, heads = observation_arcs(model, obs)
    items = model.ints.items
    n = len(items)
    scale = math.lcm(*(o.r.denominator for o in obs)) if obs else 1
    cost_of = [int(o.r * scale) for o in obs]
    g = nx.MultiDiGraph()
    g.add_node(-1, demand=0)
    for x in range(n):
        g.add_node(x, demand=0)
    keys = []
    for i, (o, t, h, c) in enumerate(zip(obs, tails, heads, cost_of)):
        if t == h:                  # a price-only pair: its flow is w·sign(r), on its own
            keys.append(None)
            continue
        kf = g.add_edge(t, h, key=("f", i), capacity=o.w, weight=-c)
        kb = g.add_edge(h, t, key=("b", i), capacity=o.w, weight=c)
        keys.append((kf, kb))
    _, flow = nx.network_simplex(g)
    lam = [(o.w if o.r > 0 else -o.w if o.r < 0 else 0) if k is None else
           flow[t][h][k[0]] - flow[h][t][k[1]]
           for k, o, t, h in zip(keys, obs, tails, heads)]
    # residual network: raise λ_i (t -> head, cost −r) while λ_i < w; lower it (head -> t,
    # cost +r) while λ_i > −w. Optimal λ leaves no negative cycle; potentials π then give
    # u(head) − u(tail) = π(tail) − π(head).
    res = nx.DiGraph()
    res.add_nodes_from(g.nodes)
    source = -2
    for x in g.nodes:
        res.add_edge(source, x, weight=0)

    def add(a, b, c):
        if not res.has_edge(a, b) or res[a][b]["weight"] > c:
            res.add_edge(a, b, weight=c)
    for k, o, lm, t, h, c in zip(keys, obs, lam, tails, heads, cost_of):
        if k is None:
            continue
        if lm < o.w:
            add(t, h, -c)
        if lm > -o.w:
            add(h, t, c)
    pi = nx.single_source_bellman_ford_path_length(res, source)
    u = [Fraction(pi[-1] - pi[x], scale) for x in range(n)] + [Fraction(0)]
    cost = sum((o.w * abs(e) for o, e in zip(obs, _residuals(tails, heads, [o.r for o in obs],
                                                               u))), Fraction(0))
    return Outcome("optimal", {"cost": fraction_text(cost),
                               "utilities": {x: fraction_text(v) for x, v in zip(items, u)}},
                   {"type": "circulation_dual", "flow": [str(v) for v in lam]},
                   {"engine": "network_simplex", "scale": scale})


# ------------------------------------------------------------------------------ ordinal

def _numbered(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str]
              ) -> tuple[list[str], dict[tuple[int, int], int]]:
    """Every node (:func:`nodes_of`) and the arcs on their positions."""
    names = nodes_of(arcs, nodes)
    idx = {x: i for i, x in enumerate(names)}
    return names, {(idx[a], idx[b]): w for (a, b), w in arcs.items()}


def _graph(n: int, arcs: Mapping[tuple[int, int], int]):
    import networkx as nx
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from((a, b, w) for (a, b), w in arcs.items())
    return g


def judgment_cycle_ints(n: int, arcs: Mapping[tuple[int, int], int]) -> list[int] | None:
    """A directed cycle of judgments on nodes ``0..n-1`` (networkx ``find_cycle``), or
    None when acyclic. O(n + arcs)."""
    import networkx as nx
    try:
        edges = nx.find_cycle(_graph(n, arcs))
    except nx.NetworkXNoCycle:
        return None
    return [a for a, _ in edges]


def judgment_cycle(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str]
                   ) -> list[str] | None:
    """:func:`judgment_cycle_ints` on names."""
    names, ia = _numbered(arcs, nodes)
    cycle = judgment_cycle_ints(len(names), ia)
    return None if cycle is None else [names[x] for x in cycle]


def consistent_order_ints(n: int, arcs: Mapping[tuple[int, int], int]) -> list[int] | None:
    """An order (best first) of nodes ``0..n-1`` agreeing with every judgment, the
    smallest node first among the available ones, or None (networkx). O((n + arcs) log n)."""
    import networkx as nx
    g = _graph(n, arcs)
    if not nx.is_directed_acyclic_graph(g):
        return None
    return list(nx.lexicographical_topological_sort(g))


def consistent_order(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str]
                     ) -> list[str] | None:
    """:func:`consistent_order_ints` on names (ties broken by input order)."""
    names, ia = _numbered(arcs, nodes)
    order = consistent_order_ints(len(names), ia)
    return None if order is None else [names[x] for x in order]


def kahn_order_ints(n: int, arcs: Mapping[tuple[int, int], int]
                    ) -> tuple[list[int] | None, list[int] | None]:
    """Kahn's algorithm (1962) with a plain queue on nodes ``0..n-1``: (order, None) when
    acyclic, else (None, a cycle found by walking back, from the smallest node left,
    along the first remaining arc into each node). O(n + arcs)."""
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for a, b in arcs:
        succ[a].append(b)
        indeg[b] += 1
    queue = deque(x for x in range(n) if indeg[x] == 0)
    order = []
    while queue:
        x = queue.popleft()
        order.append(x)
        for y in succ[x]:
            indeg[y] -= 1
            if indeg[y] == 0:
                queue.append(y)
    if len(order) == n:
        return order, None
    pred: dict[int, int] = {}
    for a, b in arcs:
        if indeg[b] > 0 and indeg[a] > 0 and b not in pred:
            pred[b] = a
    x = next(y for y in range(n) if indeg[y] > 0)
    seen: list[int] = []
    on: set[int] = set()
    while x not in on:
        seen.append(x)
        on.add(x)
        x = pred[x]
    cycle = seen[seen.index(x):]
    return None, cycle[::-1]


def kahn_order(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str]
               ) -> tuple[list[str] | None, list[str] | None]:
    """:func:`kahn_order_ints` on names (the walk starts at the first node left in input
    order)."""
    names, ia = _numbered(arcs, nodes)
    order, cycle = kahn_order_ints(len(names), ia)
    return (None if order is None else [names[x] for x in order],
            None if cycle is None else [names[x] for x in cycle])


def _dp_order(nodes: list[int], arcs: Mapping[tuple[int, int], int]) -> tuple[int, list[int]]:
    """Minimum reversed weight over orders of ``nodes`` and an optimal order, by DP over
    the subsets placed first, layer by layer in numpy (``arcs``: those among ``nodes``,
    or more). O(2^k k)."""
    import numpy as np
    k = len(nodes)
    idx = {x: i for i, x in enumerate(nodes)}
    w = np.zeros((k, k), dtype=np.int64)
    for (a, b), c in arcs.items():
        if a in idx and b in idx:
            w[idx[a], idx[b]] += c
    full = 1 << k
    subsets = np.arange(full, dtype=np.int64)
    bits = ((subsets[:, None] >> np.arange(k)) & 1).astype(np.int64)   # full × k
    back = bits @ w.T           # back[S, v] = Σ_{s∈S} w[v, s]
    big = np.iinfo(np.int64).max // 4
    best = np.full(full, big, dtype=np.int64)
    best[0] = 0
    choice = np.full(full, -1, dtype=np.int64)
    pop = bits.sum(1)
    for m in range(k):
        layer = subsets[pop == m]
        for v in range(k):
            ok = layer[(layer >> v) & 1 == 0]
            if not len(ok):
                continue
            cand = best[ok] + back[ok, v]
            tgt = ok | (1 << v)
            better = cand < best[tgt]
            best[tgt[better]] = cand[better]
            choice[tgt[better]] = v
    order, s = [], full - 1
    while s:
        v = int(choice[s])
        order.append(nodes[v])
        s ^= 1 << v
    return int(best[full - 1]), order[::-1]


def strong_components_ints(n: int, arcs: Mapping[tuple[int, int], int]) -> list[list[int]]:
    """The strongly connected components of nodes ``0..n-1`` in a topological order of
    the condensation (networkx), each in increasing order."""
    import networkx as nx
    cond = nx.condensation(_graph(n, arcs))
    return [sorted(cond.nodes[c]["members"]) for c in nx.topological_sort(cond)]


def strong_components(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str]
                      ) -> list[list[str]]:
    """:func:`strong_components_ints` on names (each component in input order)."""
    names, ia = _numbered(arcs, nodes)
    return [[names[x] for x in c] for c in strong_components_ints(len(names), ia)]


def fas_exact_ints(names: Sequence[str], arcs: Mapping[tuple[int, int], int],
                   limit: int = DP_NODES) -> Outcome:
    """Minimum feedback arc set on nodes ``0..len(names)-1`` (the solution's order in
    ``names``): components in condensation order, each solved by subset DP; ``unknown``
    when a component has more than ``limit`` alternatives. The certificate carries no
    packing: the checker solves small components itself."""
    n = len(names)
    comps = strong_components_ints(n, arcs)
    where = [0] * n
    for ci, comp in enumerate(comps):
        for x in comp:
            where[x] = ci
    inner: list[dict[tuple[int, int], int]] = [{} for _ in comps]
    for (a, b), c in arcs.items():
        if where[a] == where[b]:
            inner[where[a]][(a, b)] = c
    order: list[int] = []
    for comp, mine in zip(comps, inner):
        if len(comp) > limit:
            return Outcome("unknown", stats={"reason": f"component of {len(comp)} > {limit}"})
        order += _dp_order(comp, mine)[1] if len(comp) > 1 else comp
    pos = [0] * n
    for i, x in enumerate(order):
        pos[x] = i
    value = sum(w for (a, b), w in arcs.items() if pos[b] < pos[a])
    return Outcome("optimal", {"order": [names[x] for x in order], "reversed": value},
                   {"type": "fas_bound", "cycles": []}, {"engine": "subset_dp"})


def fas_exact(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str],
              limit: int = DP_NODES) -> Outcome:
    """:func:`fas_exact_ints` on names."""
    names, ia = _numbered(arcs, nodes)
    return fas_exact_ints(names, ia, limit)


def fas_brute_force(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str]) -> Outcome:
    """Every order of the alternatives (≤ 8)."""
    all_nodes = nodes_of(arcs, nodes)
    if len(all_nodes) > BRUTE_FORCE_NODES:
        return Outcome("unknown")
    best = min(itertools.permutations(all_nodes), key=lambda p: order_cost(arcs, p))
    return Outcome("optimal", {"order": list(best), "reversed": order_cost(arcs, best)},
                   None, {"engine": "brute_force"})
