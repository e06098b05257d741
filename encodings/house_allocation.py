"""Declarative CP-SAT models of house-allocation and welfare questions (untrusted).

One Boolean x[e] per acceptable pair e = (l, r) of a
:class:`~prefcert.formal.welfare.WelfareGraph` (one-sided: agent–object; two-sided: mutually
acceptable A–B pairs), ``add_at_most_one`` per vertex. Objectives are solved lexicographically by successive CP-SAT solves, each fixing
the previous optimum as a constraint — a formulation independent of the oracles' weight
tricks (B − cost, B^(R−k)) and Hungarian/IKMMP algorithms:

- utilitarian: max Σx, then min Σ cost(e)·x[e] at that size;
- egalitarian: max Σx, then min z with z ≥ level(e)·x[e] at that size;
- rank-maximal: for k = 1…R, max s_k = Σ_e (number of counted ranks of e equal to k)·x[e],
  then fix s_k (Irving et al. 2006's definition read literally);
- Pareto optimal allocation: max Σ u_a(h)·x with u = R + 1 − rank (order-consistent, so a
  maximiser admits no Pareto improvement);
- MCPO: max Σx, then max Σu at that size;
- Pareto improvement of M: x only on pairs (a, h) with h ⪰_a M(a); every agent matched in M
  is matched; max the number of agents strictly better off (0 proves Pareto optimality).

Each entry point has the engine shape ``(…, *, time_limit, seed) -> Outcome``: verdict
``optimal`` / ``exists`` / ``true`` / ``false`` when every stage is proven OPTIMAL,
``unknown`` otherwise (``time_limit`` in seconds is shared by the stages).
"""
from __future__ import annotations

import time
from collections.abc import Mapping

from ..formal.house_allocation import HouseAllocation
from ..formal.outcome import Outcome
from ..formal.welfare import WELFARE, WelfareGraph, welfare_graph, welfare_value
from . import cpsat_solver


class _Staged:
    """A CP-SAT model with x[e] per edge and lexicographic solves under one time budget."""

    def __init__(self, g: WelfareGraph, edges=None, *, time_limit: float, seed: int):
        from ortools.sat.python import cp_model
        self.cp = cp_model
        self.g = g
        self.model = cp_model.CpModel()
        self.edges = list(g.ranks if edges is None else edges)
        self.x = {e: self.model.new_bool_var(f"x_{i}") for i, e in enumerate(self.edges)}
        by_l: dict[str, list] = {}
        by_r: dict[str, list] = {}
        for e, v in self.x.items():
            by_l.setdefault(e[0], []).append(v)
            by_r.setdefault(e[1], []).append(v)
        for vs in list(by_l.values()) + list(by_r.values()):
            if len(vs) > 1:
                self.model.add_at_most_one(vs)
        self.by_l = by_l
        self.deadline = time.perf_counter() + float(time_limit)
        self.seed = int(seed)
        self.stages: list[str] = []
        self.ok = True
        self.values: dict = {}

    def optimise(self, expr, maximise: bool, name: str):
        """Solve for the optimum of ``expr``, fix it, return it (None on timeout)."""
        if not self.ok:
            return None
        if isinstance(expr, int):                 # no variables: nothing to solve
            self.stages.append(f"{name}:constant")
            return expr
        m = self.model
        if maximise:
            m.maximize(expr)
        else:
            m.minimize(expr)
        solver = cpsat_solver(max(self.deadline - time.perf_counter(), 0.001), self.seed)
        status = solver.solve(m)
        self.stages.append(f"{name}:{solver.status_name(status)}")
        if status != self.cp.OPTIMAL:
            self.ok = False
            return None
        val = int(round(solver.objective_value))
        self.values = {e: bool(solver.boolean_value(v)) for e, v in self.x.items()}
        # hint the next stage with this solution, then fix the objective
        m.clear_hints()
        for e, v in self.x.items():
            m.add_hint(v, self.values[e])
        m.add(expr == val)
        return val

    def matching(self) -> dict[str, str]:
        return {l: r for (l, r), on in self.values.items() if on}

    def stats(self) -> dict:
        return {"engine": "cpsat", "stages": self.stages, "pair_vars": len(self.x)}


def welfare_cpsat(g: WelfareGraph, notion: str, *, time_limit: float, seed: int) -> Outcome:
    """Optimum of a welfare notion (``utilitarian`` / ``egalitarian`` / ``rank_maximal``) of a
    one- or two-sided welfare graph by lexicographic CP-SAT solves (module docstring).

    Returns ``Outcome("optimal", matching, {"type": "value", "value": v})`` with v as in
    :func:`prefcert.formal.welfare.welfare_value`, or ``Outcome("unknown")`` on timeout. The
    certificate carries no proof: the pipeline compares v with the oracle's proven value.
    Raises ValueError for an unknown notion. Worst-case exponential (CP-SAT); fast in
    practice for the totally unimodular matching constraints.
    """
    if notion not in WELFARE:
        raise ValueError(f"unknown welfare notion {notion!r}")
    st = _Staged(g, time_limit=time_limit, seed=seed)
    x = st.x
    if notion in ("utilitarian", "egalitarian"):
        st.optimise(sum(x.values()), True, "cardinality")
        if notion == "utilitarian":
            st.optimise(sum(g.cost(e) * v for e, v in x.items()), False, "total_rank")
        else:
            z = st.model.new_int_var(0, max(g.max_rank, 0), "worst")
            for e, v in x.items():
                st.model.add(z >= g.level(e)).only_enforce_if(v)
            st.optimise(z, False, "worst_rank")
    else:
        counted = 0
        ceiling = (2 if g.two_sided else 1) * _matching_size(g)
        if g.maximum_first:           # the greedy maximum matching: cardinality first
            st.optimise(sum(x.values()), True, "cardinality")
        for k in range(1, g.max_rank + 1):
            terms = [(sum(1 for r in g.ranks[e] if r == k), v) for e, v in x.items()]
            expr = sum(c * v for c, v in terms if c)
            if not isinstance(expr, int):
                counted += st.optimise(expr, True, f"s_{k}") or 0
            if not st.ok or counted >= ceiling:
                break
    if not st.ok:
        return Outcome("unknown", stats=st.stats())
    m = st.matching()
    return Outcome("optimal", m, {"type": "value", "value": welfare_value(g, notion, m)},
                   stats=st.stats())


# The two helpers below repeat steps of the oracles (maximum_matching, hall_or_augment)
# because the encodings stay independent of the oracles.

def _matching_size(g: WelfareGraph) -> int:
    """The size of a maximum matching of ``g`` (scipy Hopcroft–Karp, O(√n·L))."""
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching
    if not g.ranks:
        return 0
    li = {x: i for i, x in enumerate(g.left)}
    ri = {y: j for j, y in enumerate(g.right)}
    rows, cols = zip(*((li[x], ri[y]) for x, y in g.ranks))
    a = csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)),
                   shape=(len(g.left), len(g.right)))
    return int((maximum_bipartite_matching(a, perm_type="column") >= 0).sum())


def _hall_set(g: WelfareGraph, m: Mapping[str, str]) -> list[str]:
    """For a maximum matching ``m``: the left vertices reachable by alternating paths from
    unmatched left vertices, a Hall set proving ``m`` maximum (König 1931). O(L)."""
    mate = {y: x for x, y in m.items()}
    reached = [x for x in g.left if x not in m]
    seen = set(reached)
    for x in reached:                         # the list grows while it is read
        for y in g.adj[x]:
            if y in mate and mate[y] not in seen:
                seen.add(mate[y])
                reached.append(mate[y])
    return sorted(seen)


def _utilities(model: HouseAllocation) -> list[int]:
    """u_a(h) = R_a + 1 − rank_a(h) (R_a: a's number of ties) of every entry, in list
    order (the order of the welfare graph's edges), from the integer lists. O(L)."""
    ix = model.rank_index()
    out: list[int] = []
    for i in range(len(ix.offsets) - 1):
        top = ix.nties(i) + 1
        out.extend(top - r for r in ix.entry_ranks(i))
    return out


def _ranks(model: HouseAllocation) -> list[dict[str, int]]:
    """Per agent (input order), object name -> rank, from the integer lists. O(L)."""
    ix, objects = model.rank_index(), model.objects
    return [dict(zip(map(objects.__getitem__, ix.entries(i)), ix.entry_ranks(i)))
            for i in range(len(ix.offsets) - 1)]


def pareto_optimal_cpsat(model: HouseAllocation, *, time_limit: float, seed: int,
                         max_cardinality: bool = False) -> Outcome:
    """A Pareto-optimal allocation (max Σu, u order-consistent), or with
    ``max_cardinality`` an MCPO (max Σx, then max Σu). Returns ``Outcome("exists",
    allocation, {"type": "pareto_optimal"|"mcpo"})`` or ``Outcome("unknown")``; the MCPO
    certificate carries the Hall set of the (maximum) matching found."""
    g = welfare_graph(model)
    st = _Staged(g, time_limit=time_limit, seed=seed)
    if max_cardinality:
        st.optimise(sum(st.x.values()), True, "cardinality")
    u = _utilities(model)
    assert len(u) == len(st.x)          # the graph's edges are the entries, in list order
    st.optimise(sum(c * v for c, v in zip(u, st.x.values())), True, "utility")
    if not st.ok:
        return Outcome("unknown", stats=st.stats())
    cert = {"type": "mcpo"} if max_cardinality else {"type": "pareto_optimal"}
    if max_cardinality:
        cert["hall_full"] = _hall_set(g, st.matching())
    return Outcome("exists", st.matching(), cert, stats=st.stats())


def pareto_improvement_cpsat(model: HouseAllocation, allocation: Mapping[str, str], *,
                             time_limit: float, seed: int) -> Outcome:
    """Is ``allocation`` Pareto optimal? ``Outcome("true")`` when CP-SAT proves that no
    allocation leaves every agent weakly better off (matched agents stay matched) with one
    strictly better; ``Outcome("false", improvement, {"type": "pareto_improvement", …})``
    with an improvement maximising the number of strictly better-off agents; ``unknown`` on
    timeout."""
    m = dict(allocation)
    g = welfare_graph(model)
    ix = model.rank_index()
    ranks = dict(zip(model.prefs, _ranks(model)))
    # the rank of M(a); unassigned: one past a's last tie, below every entry
    cur = {a: ix.nties(i) + 1 for i, a in enumerate(ranks)}
    cur.update((a, ranks[a][h]) for a, h in m.items() if h in ranks[a])
    edges = [(a, h) for (a, h) in g.ranks if ranks[a][h] <= cur[a]]
    st = _Staged(g, edges, time_limit=time_limit, seed=seed)
    for a in m:
        st.model.add(sum(st.by_l.get(a, [])) == 1)
    strict = [v for (a, h), v in st.x.items() if ranks[a][h] < cur[a]]
    best = st.optimise(sum(strict), True, "strictly_better") if strict else 0
    if not st.ok:
        return Outcome("unknown", stats=st.stats())
    if best == 0:
        return Outcome("true", m, {"type": "pareto_optimal"}, stats=st.stats())
    imp = st.matching()
    return Outcome("false", imp, {"type": "pareto_improvement", "allocation": m,
                                  "improvement": imp}, stats=st.stats())


def welfare_milp(g: WelfareGraph, notion: str, *, time_limit: float, seed: int) -> Outcome:
    """The same lexicographic model as :func:`welfare_cpsat`, solved as a MILP by HiGHS
    (``scipy.optimize.milp``): x ∈ {0,1}^E, degree rows ≤ 1, then one solve per objective
    stage with the previous optima fixed by equality rows. Each stage's feasible set is a
    face of the bipartite matching polytope (integral), so HiGHS settles it at the root;
    the solution is checked to be integral. ``seed`` is recorded only (HiGHS is
    deterministic). Returns ``Outcome("optimal", matching, {"type": "value", ...})`` or
    ``Outcome("unknown")`` on timeout / a non-integral answer."""
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix, csr_matrix, vstack

    if notion not in WELFARE:
        raise ValueError(f"unknown welfare notion {notion!r}")
    edges = list(g.ranks)
    ne = len(edges)
    deadline = time.perf_counter() + float(time_limit)
    stats = {"engine": "milp", "solver": "HiGHS", "seed": int(seed), "stages": []}
    if ne == 0:
        return Outcome("optimal", {}, {"type": "value", "value": welfare_value(g, notion, {})},
                       stats=stats)
    li = {v: i for i, v in enumerate(g.left)}
    ri = {v: len(g.left) + j for j, v in enumerate(g.right)}
    rows = [li[a] for a, _ in edges] + [ri[b] for _, b in edges]
    deg = coo_matrix((np.ones(2 * ne), (rows, list(range(ne)) * 2)),
                     shape=(len(g.left) + len(g.right), ne))
    extra = 1 if notion == "egalitarian" else 0          # the variable z
    nv = ne + extra
    a_rows = [csr_matrix(deg) if not extra else
              csr_matrix(np.hstack([deg.toarray(), np.zeros((deg.shape[0], 1))]))]
    lo, hi = [-np.inf] * deg.shape[0], [1.0] * deg.shape[0]
    if extra:       # per left vertex l: Σ_{e ∋ l} level(e)·x_e − z ≤ 0 (one edge at most)
        nl = len(g.left)
        lev = coo_matrix(([float(g.level(e)) for e in edges] + [-1.0] * nl,
                          ([li[a] for a, _ in edges] + list(range(nl)),
                           list(range(ne)) + [ne] * nl)), shape=(nl, nv))
        a_rows.append(csr_matrix(lev))
        lo += [-np.inf] * nl
        hi += [0.0] * nl
    integrality = np.ones(nv)
    bounds = Bounds(np.zeros(nv), np.r_[np.ones(ne), [float(g.max_rank)] * extra])
    sol = None

    def stage(c: np.ndarray, maximise: bool, name: str):
        nonlocal sol
        left = deadline - time.perf_counter()
        if left <= 0:
            stats["stages"].append(f"{name}:timeout")
            return None
        cons = LinearConstraint(vstack(a_rows).tocsr(), np.array(lo), np.array(hi))
        res = milp(-c if maximise else c, constraints=cons, integrality=integrality,
                   bounds=bounds, options={"time_limit": left, "presolve": True})
        stats["stages"].append(f"{name}:{res.status}")
        if res.status != 0 or res.x is None:
            return None
        x = res.x
        if np.max(np.abs(x[:ne] - np.round(x[:ne]))) > 1e-6:
            return None
        val = int(round(float(c @ np.round(x))))
        a_rows.append(csr_matrix(c.reshape(1, -1)))
        lo.append(val - 0.5)
        hi.append(val + 0.5)
        sol = np.round(x[:ne])
        return val

    ones = np.r_[np.ones(ne), np.zeros(extra)]
    ok = True
    if notion in ("utilitarian", "egalitarian"):
        ok = stage(ones, True, "cardinality") is not None
        if ok and notion == "utilitarian":
            ok = stage(np.array([float(g.cost(e)) for e in edges]), False, "total_rank") is not None
        elif ok:
            ok = stage(np.r_[np.zeros(ne), [1.0]], False, "worst_rank") is not None
    else:
        ceiling = (2 if g.two_sided else 1) * _matching_size(g)
        fixed = 0                         # Σ of the s_k fixed so far
        if g.maximum_first:               # the greedy maximum matching: cardinality first
            ok = stage(ones, True, "cardinality") is not None
        for k in range(1, g.max_rank + 1) if ok else ():
            c = np.array([float(sum(1 for r in g.ranks[e] if r == k)) for e in edges])
            if c.any():
                val = stage(c, True, f"s_{k}")
                if val is None:
                    ok = False
                    break
                fixed += val
            if fixed >= ceiling:          # every counted agent is placed: nothing left
                break
        if ok and sol is None:
            sol = np.zeros(ne)
    if not ok:
        return Outcome("unknown", stats=stats)
    m = {a: b for (a, b), v in zip(edges, sol) if v > 0.5}
    return Outcome("optimal", m, {"type": "value", "value": welfare_value(g, notion, m)},
                   stats=stats)
