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
    order_cost,
)
from ..formal.outcome import Outcome

EXACT_COMPONENT_ITEMS = 250     # larger components: exact elimination is left to lstsq
DP_NODES = 16                   # strongly connected components solved by subset DP
BRUTE_FORCE_NODES = 8


def _components(obs: Sequence[Observation], items: Sequence[str]) -> list[list[str]]:
    """Connected components of the item graph (ground excluded), items in input order."""
    parent = {x: x for x in items}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for o in obs:
        if o.tail is not None:
            a, b = find(o.tail), find(o.head)
            if a != b:
                parent[a] = b
    groups: dict[str, list[str]] = {}
    for x in items:
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


def least_squares_exact(obs: Sequence[Observation], items: Sequence[str]
                        ) -> dict[str, Fraction] | None:
    """Exact weighted least-squares utilities, u(ground) = 0; a component of the item graph
    without an observation from the ground has its first item at 0 (any level fits
    equally). None when a component exceeds :data:`EXACT_COMPONENT_ITEMS`."""
    u: dict[str, Fraction] = {}
    for comp in _components(obs, items):
        if len(comp) > EXACT_COMPONENT_ITEMS:
            return None
        members = set(comp)
        mine = [o for o in obs if o.head in members]
        grounded = any(o.tail is None for o in mine)
        free = comp if grounded else comp[1:]
        if not grounded:
            u[comp[0]] = Fraction(0)
        if not free:
            continue
        idx = {x: i for i, x in enumerate(free)}
        n = len(free)
        mat = [[Fraction(0)] * n for _ in range(n)]
        rhs = [Fraction(0)] * n
        for o in mine:
            h = idx.get(o.head)
            t = idx.get(o.tail) if o.tail is not None else None
            if h is not None:
                mat[h][h] += o.w
                rhs[h] += o.w * o.r
            if t is not None:
                mat[t][t] += o.w
                rhs[t] -= o.w * o.r
            if h is not None and t is not None:
                mat[h][t] -= o.w
                mat[t][h] -= o.w
        for x, v in zip(free, _solve_exact(mat, rhs)):
            u[x] = v
    return u


def _res(o: Observation, u: Mapping[str, Fraction]) -> Fraction:
    return o.r - u[o.head] + (u[o.tail] if o.tail is not None else 0)


def l2_exact(model: ConsistencyData, obs: Sequence[Observation]) -> Outcome:
    """The minimum Σ w (r − Au)² with its exact dual μ = w (r − Au) (a circulation by the
    normal equations): ``Outcome("optimal", {"cost", "utilities"}, quadratic_dual)``, or
    ``unknown`` when a component is too large for exact elimination. O(n³) per component."""
    u = least_squares_exact(obs, model.items)
    if u is None:
        return Outcome("unknown", stats={"reason": "component too large for exact elimination"})
    res = [_res(o, u) for o in obs]
    cost = sum((o.w * e * e for o, e in zip(obs, res)), Fraction(0))
    return Outcome("optimal", {"cost": fraction_text(cost),
                               "utilities": {x: fraction_text(v) for x, v in u.items()}},
                   {"type": "quadratic_dual",
                    "flow": [fraction_text(o.w * e) for o, e in zip(obs, res)]},
                   {"engine": "exact_normal_equations"})


GROUND = ("ground",)     # a node name no item can have (items are strings)


def l1_min_cost_flow(model: ConsistencyData, obs: Sequence[Observation]) -> Outcome:
    """The minimum Σ w |r − Au| by its LP dual, a maximum-weight circulation λ with
    |λ| ≤ w, solved by network simplex on integer costs (r scaled by the common
    denominator); utilities from shortest-path potentials of the residual network
    (Bellman–Ford, exact). Returns ``Outcome("optimal", ..., circulation_dual)``.
    O(network simplex + V·E)."""
    import networkx as nx
    scale = math.lcm(*(o.r.denominator for o in obs)) if obs else 1
    g = nx.MultiDiGraph()
    g.add_node(GROUND, demand=0)
    for x in model.items:
        g.add_node(x, demand=0)
    keys = []
    for i, o in enumerate(obs):
        t = GROUND if o.tail is None else o.tail
        c = int(o.r * scale)
        if t == o.head:             # a price-only pair: its flow is w·sign(r), on its own
            keys.append(None)
            continue
        kf = g.add_edge(t, o.head, key=("f", i), capacity=o.w, weight=-c)
        kb = g.add_edge(o.head, t, key=("b", i), capacity=o.w, weight=c)
        keys.append((t, kf, kb))
    _, flow = nx.network_simplex(g)
    lam = [(o.w if o.r > 0 else -o.w if o.r < 0 else 0) if k is None else
           flow[k[0]][o.head][k[1]] - flow[o.head][k[0]][k[2]] for k, o in zip(keys, obs)]
    # residual network: raise λ_i (t -> head, cost −r) while λ_i < w; lower it (head -> t,
    # cost +r) while λ_i > −w. Optimal λ leaves no negative cycle; potentials π then give
    # u(head) − u(tail) = π(tail) − π(head).
    res = nx.DiGraph()
    res.add_nodes_from(g.nodes)
    source = ("source",)
    for x in g.nodes:
        res.add_edge(source, x, weight=0)

    def add(a, b, c):
        if not res.has_edge(a, b) or res[a][b]["weight"] > c:
            res.add_edge(a, b, weight=c)
    for k, o, lm in zip(keys, obs, lam):
        if k is None:
            continue
        t, c = k[0], int(o.r * scale)
        if lm < o.w:
            add(t, o.head, -c)
        if lm > -o.w:
            add(o.head, t, c)
    pi = nx.single_source_bellman_ford_path_length(res, source)
    u = {x: Fraction(pi[GROUND] - pi[x], scale) for x in model.items}
    cost = sum((o.w * abs(_res(o, u)) for o in obs), Fraction(0))
    return Outcome("optimal", {"cost": fraction_text(cost),
                               "utilities": {x: fraction_text(v) for x, v in u.items()}},
                   {"type": "circulation_dual", "flow": [str(v) for v in lam]},
                   {"engine": "network_simplex", "scale": scale})


# ------------------------------------------------------------------------------ ordinal

def _graph(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str]):
    import networkx as nx
    g = nx.DiGraph()
    g.add_nodes_from(nodes_of(arcs, nodes))
    g.add_weighted_edges_from((a, b, w) for (a, b), w in arcs.items())
    return g


def judgment_cycle(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str]
                   ) -> list[str] | None:
    """A directed cycle of judgments (networkx ``find_cycle``), or None when acyclic."""
    import networkx as nx
    try:
        edges = nx.find_cycle(_graph(arcs, nodes))
    except nx.NetworkXNoCycle:
        return None
    return [a for a, _ in edges]


def consistent_order(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str]
                     ) -> list[str] | None:
    """An order (best first) agreeing with every judgment, or None (networkx)."""
    import networkx as nx
    g = _graph(arcs, nodes)
    if not nx.is_directed_acyclic_graph(g):
        return None
    return list(nx.lexicographical_topological_sort(g, key=lambda x: nodes_of(arcs, nodes).index(x)))


def kahn_order(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str]
               ) -> tuple[list[str] | None, list[str] | None]:
    """Kahn's algorithm (1962) with a plain queue: (order, None) when acyclic, else
    (None, a cycle found by walking back along the remaining arcs). O(V + E)."""
    all_nodes = nodes_of(arcs, nodes)
    succ: dict[str, list[str]] = {x: [] for x in all_nodes}
    indeg = dict.fromkeys(all_nodes, 0)
    for a, b in arcs:
        succ[a].append(b)
        indeg[b] += 1
    queue = deque(x for x in all_nodes if indeg[x] == 0)
    order = []
    while queue:
        x = queue.popleft()
        order.append(x)
        for y in succ[x]:
            indeg[y] -= 1
            if indeg[y] == 0:
                queue.append(y)
    if len(order) == len(all_nodes):
        return order, None
    left = {x for x in all_nodes if indeg[x] > 0}
    pred = {x: next(a for a, b in arcs if b == x and a in left) for x in left}
    x, seen = next(iter(sorted(left, key=all_nodes.index))), []
    while x not in seen:
        seen.append(x)
        x = pred[x]
    cycle = seen[seen.index(x):]
    return None, cycle[::-1]


def _dp_order(nodes: list[str], arcs: Mapping[tuple[str, str], int]) -> tuple[int, list[str]]:
    """Minimum reversed weight over orders of ``nodes`` and an optimal order, by DP over
    the subsets placed first, layer by layer in numpy. O(2^k k)."""
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


def strong_components(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str]
                      ) -> list[list[str]]:
    """The strongly connected components in a topological order of the condensation
    (networkx), each in input order."""
    import networkx as nx
    g = _graph(arcs, nodes)
    cond = nx.condensation(g)
    pos = {x: i for i, x in enumerate(nodes_of(arcs, nodes))}
    return [sorted(cond.nodes[c]["members"], key=pos.__getitem__)
            for c in nx.topological_sort(cond)]


def fas_exact(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str],
              limit: int = DP_NODES) -> Outcome:
    """Minimum feedback arc set: components in condensation order, each solved by subset
    DP; ``unknown`` when a component has more than ``limit`` alternatives. The certificate
    carries no packing: the checker solves small components itself."""
    order = []
    for comp in strong_components(arcs, nodes):
        if len(comp) > limit:
            return Outcome("unknown", stats={"reason": f"component of {len(comp)} > {limit}"})
        order += _dp_order(comp, arcs)[1] if len(comp) > 1 else comp
    value = order_cost(arcs, order)
    return Outcome("optimal", {"order": order, "reversed": value},
                   {"type": "fas_bound", "cycles": []}, {"engine": "subset_dp"})


def fas_brute_force(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str]) -> Outcome:
    """Every order of the alternatives (≤ 8)."""
    all_nodes = nodes_of(arcs, nodes)
    if len(all_nodes) > BRUTE_FORCE_NODES:
        return Outcome("unknown")
    best = min(itertools.permutations(all_nodes), key=lambda p: order_cost(arcs, p))
    return Outcome("optimal", {"order": list(best), "reversed": order_cost(arcs, best)},
                   None, {"engine": "brute_force"})
