"""Self-consistency as LP / QP / MILP / CP-SAT models (not trusted).

- :func:`l1_lp`: min Σ w (e⁺ + e⁻) s.t. r − Au = e⁺ − e⁻, solved by HiGHS
  (``scipy.optimize.linprog``). The float optimum is made exact: utilities are re-derived
  in rationals along a spanning forest of the tight observations, and the dual
  circulation is λ = w·sign(residual) off the tight set plus a feasible flow within
  [−w, w] on it (integral, by network simplex with zero costs), which closes the duality
  gap exactly by complementary slackness. When that flow does not exist (a tolerance
  misjudged) the HiGHS duals are rounded onto the circulation space and scaled into the
  capacities: a valid, slightly weaker bound (verdict ``bounded``).
- :func:`l2_lstsq`: weighted least squares by ``numpy.linalg.lstsq``; the float
  residuals become an exact circulation by fixing the flow on a spanning forest from the
  others (every cycle basis completion is exact), giving certified ``bounded`` values
  whose gap is rounding-sized.
- :func:`fas_milp` (HiGHS, ``scipy.optimize.milp``) and :func:`fas_cpsat` (OR-Tools): the
  linear ordering formulation per strongly connected component — x_ij = 1 when i precedes
  j, 0 ≤ x_ij + x_jk − x_ik ≤ 1 (Grötschel, Jünger & Reinelt 1984). :func:`cycle_packing`:
  the LP relaxation of the cycle-covering formulation by cycle generation (separation by
  shortest paths), whose dual is a fractional cycle packing; the MILP engine attaches it as
  the lower-bound certificate of components too large for the checker's own DP.
"""
from __future__ import annotations

import time
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
from . import cpsat_solver

MAX_LO_NODES = 60          # components larger than this are left unanswered
PACK_ABOVE = 12            # components needing a packing (the checker solves the rest)


def _incidence(model: ConsistencyData, obs: Sequence[Observation]):
    """The arc–node incidence matrix A (one row per observation: +1 at its head, −1 at its
    tail unless the ground) over the item integers of ``model.ints``, with r and w as
    float arrays. O(observations)."""
    import numpy as np
    from scipy.sparse import coo_matrix
    tails, heads = observation_arcs(model, obs)
    n = len(obs)
    t = np.array(tails, dtype=np.int64)
    keep = np.stack([np.ones(n, dtype=bool), t >= 0], 1).ravel()
    rows = np.repeat(np.arange(n, dtype=np.int64), 2)[keep]
    cols = np.stack([np.array(heads, dtype=np.int64), t], 1).ravel()[keep]
    vals = np.tile(np.array([1.0, -1.0]), n)[keep]
    return coo_matrix((vals, (rows, cols)), shape=(n, len(model.ints.items))).tocsr(), \
        np.array([float(o.r) for o in obs]), np.array([float(o.w) for o in obs])


def _res(o: Observation, u: Mapping[str, Fraction]) -> Fraction:
    return o.r - u[o.head] + (u[o.tail] if o.tail is not None else 0)


def _exact_utilities(obs, items, tight, approx) -> dict[str, Fraction]:
    """Rational utilities: propagate exactly along tight observations from the ground,
    then from the rounded value of one item per remaining piece."""
    adj: dict = {x: [] for x in items}
    adj[None] = []
    for i in tight:
        o = obs[i]
        adj[o.tail].append((o.head, o.r))           # u(head) = u(tail) + r
        adj[o.head].append((o.tail, -o.r))
    u: dict = {None: Fraction(0)}
    order = [None] + list(items)
    for start in order:
        if start in u:
            if start is not None:
                continue
        else:
            u[start] = Fraction(float(approx[start])).limit_denominator(10 ** 6)
        stack = [start]
        while stack:
            x = stack.pop()
            for y, d in adj[x]:
                if y not in u:
                    u[y] = u[x] + d
                    stack.append(y)
    u.pop(None)
    return u


def _complete_circulation(obs, items, values: dict[int, Fraction]) -> list[Fraction] | None:
    """Flows for every observation, equal to ``values`` off a spanning forest of the
    observation graph (ground included) and fixed on the forest so that every item is
    balanced. None if some observation has no value and is not on the forest."""
    adj: dict = {x: [] for x in items}
    adj[None] = []
    for i, o in enumerate(obs):
        adj[o.tail].append((o.head, i))
        adj[o.head].append((o.tail, i))
    parent_edge: dict = {}
    seen = set()
    post = []
    for root in [None] + list(items):
        if root in seen:
            continue
        seen.add(root)
        stack = [root]
        while stack:
            x = stack.pop()
            post.append(x)
            for y, i in adj[x]:
                if y not in seen:
                    seen.add(y)
                    parent_edge[y] = i
                    stack.append(y)
    tree = set(parent_edge.values())
    flow: dict[int, Fraction] = {}
    for i in range(len(obs)):
        if i not in tree:
            if i not in values:
                return None
            flow[i] = values[i]
    excess = dict.fromkeys([None] + list(items), Fraction(0))   # in − out
    for i, f in flow.items():
        excess[obs[i].head] += f
        excess[obs[i].tail] -= f
    for x in reversed(post):                      # leaves first
        if x not in parent_edge:
            continue
        i = parent_edge[x]
        o = obs[i]
        # balance x with the tree observation i (x is its head or its tail)
        f = -excess[x] if o.head == x else excess[x]
        flow[i] = f
        excess[o.head] += f
        excess[o.tail] -= f
    return [flow[i] for i in range(len(obs))]


def l1_lp(model: ConsistencyData, obs: Sequence[Observation], *, time_limit: float = 10.0
          ) -> Outcome:
    """The minimum weighted L1 repair by HiGHS, made exact (see the module docstring)."""
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import eye, hstack
    items = list(model.items)
    n, m = len(obs), len(items)
    if n == 0:
        return Outcome("optimal", {"cost": "0", "utilities": dict.fromkeys(items, "0")},
                       {"type": "circulation_dual", "flow": []})
    a, r, w = _incidence(model, obs)
    # variables [u (free), e+ (≥0), e- (≥0)]:  A u + e+ − e- = r
    eq = hstack([a, eye(n), -eye(n)]).tocsr()
    c = np.r_[np.zeros(m), w, w]
    bounds = [(None, None)] * m + [(0, None)] * (2 * n)
    res = linprog(c, A_eq=eq, b_eq=r, bounds=bounds, method="highs",
                  options={"time_limit": float(time_limit)})
    stats = {"engine": "highs_lp", "status": int(res.status)}
    if res.status != 0:
        return Outcome("unknown", stats=stats)
    approx = dict(zip(items, res.x[:m]))
    scale = max(1.0, float(np.max(np.abs(r))))
    resid = r - a @ res.x[:m]
    tight = [i for i in range(n) if abs(resid[i]) <= 1e-7 * scale]
    u = _exact_utilities(obs, items, tight, approx)
    exact_res = [_res(o, u) for o in obs]
    upper = sum((o.w * abs(e) for o, e in zip(obs, exact_res)), Fraction(0))
    flow = _tight_flow(obs, items, exact_res)
    sol = {"utilities": {x: fraction_text(v) for x, v in u.items()}}
    if flow is not None:
        return Outcome("optimal", {"cost": fraction_text(upper), **sol},
                       {"type": "circulation_dual", "flow": [str(f) for f in flow]}, stats)
    # fallback: the HiGHS duals, rounded onto the circulation space and scaled into range
    duals = res.eqlin.marginals
    vals = {i: Fraction(float(duals[i])).limit_denominator(10 ** 6) for i in range(n)}
    lam = _complete_circulation(obs, items, vals)
    over = max((abs(f) / o.w for f, o in zip(lam, obs)), default=Fraction(0))
    if over > 1:
        lam = [f / over for f in lam]
    lower = sum((f * o.r for f, o in zip(lam, obs)), Fraction(0))
    stats["fallback"] = "rounded duals"
    return Outcome("bounded", {"lower": fraction_text(lower), "upper": fraction_text(upper),
                               **sol},
                   {"type": "circulation_dual", "flow": [fraction_text(f) for f in lam]}, stats)


def _tight_flow(obs, items, exact_res) -> list[int] | None:
    """λ = w·sign(residual) where the residual is non-zero, and a flow within [−w, w] on
    the zero-residual observations balancing every item; None when none exists."""
    import networkx as nx
    g = nx.DiGraph()
    ground = ("ground",)
    node = {None: ground}
    for x in items:
        node[x] = x
    demand = dict.fromkeys(node.values(), 0)
    fixed: dict[int, int] = {}
    pairs: dict[tuple, list[int]] = {}
    for i, (o, e) in enumerate(zip(obs, exact_res)):
        t, h = node[o.tail], node[o.head]
        if e == 0 and t == h:     # a consistent price-only pair carries no flow
            fixed[i] = 0
        elif e != 0:
            f = o.w if e > 0 else -o.w
            fixed[i] = f
            demand[h] -= f          # inflow f at the head must be sent on by the free flow
            demand[t] += f
        else:
            # λ = −w + φ with φ ∈ [0, 2w] on t -> h: the −w part is fixed
            demand[h] += o.w
            demand[t] -= o.w
            pairs.setdefault((t, h), []).append(i)
    for x, d in demand.items():
        g.add_node(x, demand=d)        # networkx: demand = inflow − outflow required
    for (t, h), idxs in pairs.items():
        g.add_edge(t, h, capacity=sum(2 * obs[i].w for i in idxs), weight=0)
    try:
        _, flow = nx.network_simplex(g)
    except nx.NetworkXUnfeasible:
        return None
    lam: dict[int, int] = dict(fixed)
    for (t, h), idxs in pairs.items():
        left = flow[t][h]
        for i in idxs:
            phi = min(left, 2 * obs[i].w)
            left -= phi
            lam[i] = phi - obs[i].w
    return [lam[i] for i in range(len(obs))]


def l2_lstsq(model: ConsistencyData, obs: Sequence[Observation]) -> Outcome:
    """Weighted least squares in floats (``numpy.linalg.lstsq``), certified as exact
    bounds: rounded utilities give the upper bound, the float residuals completed into an
    exact circulation the lower bound (``optimal`` if they meet)."""
    import numpy as np
    items = list(model.items)
    if not obs:
        return Outcome("optimal", {"cost": "0", "utilities": dict.fromkeys(items, "0")},
                       {"type": "quadratic_dual", "flow": []})
    a, r, w = _incidence(model, obs)
    sw = np.sqrt(w)
    x, *_ = np.linalg.lstsq(a.toarray() * sw[:, None], r * sw, rcond=None)
    u = {it: Fraction(float(v)).limit_denominator(10 ** 9) for it, v in zip(items, x)}
    exact_res = [_res(o, u) for o in obs]
    upper = sum((o.w * e * e for o, e in zip(obs, exact_res)), Fraction(0))
    resid = r - a @ x
    vals = {i: Fraction(float(w[i] * resid[i])).limit_denominator(10 ** 9) for i in range(len(obs))}
    mu = _complete_circulation(obs, items, vals)
    lower = sum((2 * f * o.r - f * f / o.w for f, o in zip(mu, obs)), Fraction(0))
    sol = {"utilities": {k: fraction_text(v) for k, v in u.items()}}
    cert = {"type": "quadratic_dual", "flow": [fraction_text(f) for f in mu]}
    stats = {"engine": "lstsq"}
    if lower == upper:
        return Outcome("optimal", {"cost": fraction_text(upper), **sol}, cert, stats)
    return Outcome("bounded", {"lower": fraction_text(lower), "upper": fraction_text(upper),
                               **sol}, cert, stats)


# ------------------------------------------------------------------------------ ordinal

def _components(arcs, nodes) -> list[list[str]]:
    import networkx as nx
    g = nx.DiGraph()
    all_nodes = nodes_of(arcs, nodes)
    g.add_nodes_from(all_nodes)
    g.add_edges_from(arcs)
    cond = nx.condensation(g)
    pos = {x: i for i, x in enumerate(all_nodes)}
    return [sorted(cond.nodes[c]["members"], key=pos.__getitem__)
            for c in nx.topological_sort(cond)]


def _pair_costs(comp, arcs):
    """For i < j in comp: (weight reversed if comp[i] precedes comp[j], weight reversed if
    comp[j] precedes comp[i])."""
    idx = {x: k for k, x in enumerate(comp)}
    cost = {}
    for (a, b), wt in arcs.items():
        if a in idx and b in idx:
            i, j = idx[a], idx[b]
            key = (min(i, j), max(i, j))
            before, after = cost.get(key, (0, 0))
            if i < j:           # a ≻ b, a the smaller index: reversed when b comes first
                after += wt
            else:               # b the smaller index: reversed when b (the smaller) is first
                before += wt
            cost[key] = (before, after)
    return cost


def _order_from_pairs(comp, first) -> list[str]:
    """The order of ``first`` ((i, j) -> 1 when comp[i] precedes comp[j], i < j; a linear
    order): each alternative sorted by how many precede it."""
    k = len(comp)
    score = [0] * k
    for (i, j), v in first.items():
        if v:
            score[j] += 1
        else:
            score[i] += 1
    return [comp[i] for i in sorted(range(k), key=lambda i: score[i])]


def fas_milp(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str], *,
             time_limit: float = 10.0) -> Outcome:
    """Minimum feedback arc set by HiGHS MILP on the linear ordering formulation, per
    strongly connected component, with a fractional cycle packing for the components
    above :data:`PACK_ABOVE` alternatives (the lower-bound certificate)."""
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix
    deadline = time.perf_counter() + float(time_limit)
    order: list[str] = []
    packing: list[dict] = []
    stats = {"engine": "highs_milp", "components": []}
    for comp in _components(arcs, nodes):
        k = len(comp)
        if k == 1:
            order += comp
            continue
        if k > MAX_LO_NODES or time.perf_counter() > deadline:
            return Outcome("unknown", stats=stats)
        cost = _pair_costs(comp, arcs)
        pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
        var = {p: v for v, p in enumerate(pairs)}
        # objective: Σ before·x + after·(1 − x)  ->  (before − after)·x + const
        c = np.array([cost.get(p, (0, 0))[0] - cost.get(p, (0, 0))[1] for p in pairs], float)
        rows, cols, vals, lo, hi = [], [], [], [], []
        r = 0
        for i in range(k):
            for j in range(i + 1, k):
                for l in range(j + 1, k):
                    # x_ij + x_jl − x_il ∈ [0, 1]
                    for p, s in (((i, j), 1.0), ((j, l), 1.0), ((i, l), -1.0)):
                        rows.append(r)
                        cols.append(var[p])
                        vals.append(s)
                    lo.append(0.0)
                    hi.append(1.0)
                    r += 1
        cons = [LinearConstraint(coo_matrix((vals, (rows, cols)), shape=(r, len(pairs))).tocsr(),
                                 lo, hi)] if r else []
        res = milp(c, constraints=cons, integrality=np.ones(len(pairs)),
                   bounds=Bounds(0, 1),
                   options={"time_limit": max(0.01, deadline - time.perf_counter())})
        stats["components"].append({"size": k, "status": int(res.status)})
        if res.status != 0 or res.x is None:
            return Outcome("unknown", stats=stats)
        x = np.round(res.x)
        order += _order_from_pairs(comp, {p: int(x[var[p]]) for p in pairs})
        if k > PACK_ABOVE:
            packing += cycle_packing(comp, arcs)[1]
    value = order_cost(arcs, order)
    return Outcome("optimal", {"order": order, "reversed": value},
                   {"type": "fas_bound", "cycles": packing}, stats)


def fas_cpsat(arcs: Mapping[tuple[str, str], int], nodes: Sequence[str], *,
              time_limit: float = 10.0, seed: int = 0) -> Outcome:
    """Minimum feedback arc set by CP-SAT on the linear ordering formulation per strongly
    connected component (order only; no certificate)."""
    from ortools.sat.python import cp_model
    order: list[str] = []
    stats = {"engine": "cpsat", "components": []}
    for comp in _components(arcs, nodes):
        k = len(comp)
        if k == 1:
            order += comp
            continue
        if k > MAX_LO_NODES:
            return Outcome("unknown", stats=stats)
        cost = _pair_costs(comp, arcs)
        m = cp_model.CpModel()
        x = {(i, j): m.new_bool_var(f"x_{i}_{j}") for i in range(k) for j in range(i + 1, k)}
        for i in range(k):
            for j in range(i + 1, k):
                for l in range(j + 1, k):
                    m.add(x[i, j] + x[j, l] - x[i, l] >= 0)
                    m.add(x[i, j] + x[j, l] - x[i, l] <= 1)
        m.minimize(sum(cost.get(p, (0, 0))[0] * v + cost.get(p, (0, 0))[1] * (1 - v)
                       for p, v in x.items()))
        solver = cpsat_solver(time_limit, seed, 1)
        st = solver.solve(m)
        stats["components"].append({"size": k, "status": solver.status_name(st)})
        if st != cp_model.OPTIMAL:
            return Outcome("unknown", stats=stats)
        order += _order_from_pairs(comp, {p: solver.value(v) for p, v in x.items()})
    value = order_cost(arcs, order)
    return Outcome("optimal", {"order": order, "reversed": value}, None, stats)


def cycle_packing(comp: Sequence[str], arcs: Mapping[tuple[str, str], int], *,
                  rounds: int = 200) -> tuple[Fraction, list[dict]]:
    """A fractional packing of directed cycles of the judgments inside ``comp`` (loads ≤
    weights, exactly), from the dual of the cycle-covering LP solved by HiGHS with cycle
    generation. Returns (its total, ``[{"cycle": [...], "y": "p/q"}]``)."""
    import networkx as nx
    import numpy as np
    from scipy.optimize import linprog
    members = set(comp)
    edges = [(a, b) for (a, b) in arcs if a in members and b in members]
    eidx = {e: i for i, e in enumerate(edges)}
    g = nx.DiGraph()
    g.add_nodes_from(comp)
    g.add_edges_from(edges)
    pool: list[tuple[str, ...]] = []
    seen: set = set()

    def add(cycle):
        k = min(range(len(cycle)), key=lambda i: cycle[i])
        key = tuple(cycle[k:] + cycle[:k])
        if key not in seen:
            seen.add(key)
            pool.append(key)
    for a, b in edges:                          # one shortest cycle through every arc
        try:
            path = nx.shortest_path(g, b, a)
        except nx.NetworkXNoPath:
            continue
        add([a] + path[:-1])
    w = np.array([float(arcs[e]) for e in edges])
    y = np.zeros(0)
    for _ in range(rounds):
        a_ub = np.zeros((len(pool), len(edges)))
        for r, cyc in enumerate(pool):
            for e in zip(cyc, cyc[1:] + cyc[:1]):
                a_ub[r, eidx[e]] = -1.0
        res = linprog(w, A_ub=a_ub, b_ub=-np.ones(len(pool)), bounds=(0, None),
                      method="highs")
        if res.status != 0:
            break
        z = res.x
        y = -res.ineqlin.marginals
        for (a, b), val in zip(edges, z):
            g[a][b]["z"] = max(0.0, float(val))
        added = 0
        for a, b in edges:
            try:
                d, path = nx.single_source_dijkstra(g, b, a, weight="z")
            except nx.NetworkXNoPath:
                continue
            if d + g[a][b]["z"] < 1 - 1e-9:
                before = len(pool)
                add([a] + path[:-1])
                added += len(pool) > before
        if not added:
            break
    grid = 10 ** 6                   # y on a 1e-6 grid, rounded down
    ys = [Fraction(int(v * grid), grid) if v > 1e-12 else Fraction(0) for v in y]
    load: dict = {}
    for cyc, v in zip(pool, ys):
        for e in zip(cyc, cyc[1:] + cyc[:1]):
            load[e] = load.get(e, Fraction(0)) + v
    over = max((load[e] / arcs[e] for e in load), default=Fraction(0))
    if over > 1:                     # an LP tolerance: shrink by a short rational factor
        f = Fraction(int(grid / over), grid)
        ys = [v * f for v in ys]
    out = [{"cycle": list(c), "y": fraction_text(v)} for c, v in zip(pool, ys) if v > 0]
    return sum(ys, Fraction(0)), out
