"""Declarative models of the housing-market cores.

Both models search an allocation y (y_ij = 1: agent i receives j's house ω_j) together with
potentials t that certify membership:

- only individually rational pairs get a variable (both cores are IR);
- order encoding of the received rank: g[i][r] = Σ_{j: rank_i(ω_j) > r} y_ij, i.e.
  g[i][r] = 1 ⇔ i's house has rank > r (so the arc i -> j of D_y is strict ⇔
  g[i][rank_i(ω_j)], and present ⇔ g[i][rank_i(ω_j) − 1]);
- weak core: t_j ≥ t_i + 1 on every strict arc; strict core adds t_j ≥ t_i on every arc.

Potentials in [0, n] exist ⇔ the strict arcs are acyclic (weak) / no strict arc lies on a
cycle (strict): longest paths counting strict arcs. So "infeasible" proves that the core is
empty. This is an O(n²)-constraint order-encoded form of the core integer programs of
Biró, Klijn, Klimentova & Viana (2021), via the Quint & Wako (2004) characterisation.

Independent back ends: CP-SAT (ortools, ``only_enforce_if``) and z3 (implications over
integers) for both cores, and a pulp/CBC big-M MILP for the strict core (its LP relaxation
is weak: practical to ~30 agents). Independent of ``oracles``. Not trusted.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..formal.housing_market import HousingMarket
from . import cpsat_solver


@dataclass(frozen=True)
class CoreEncodingResult:
    """``status``: "feasible" (allocation found), "infeasible" (the core is empty) or
    "unknown" (time limit). ``allocation``: agent -> house or None; ``potentials``:
    agent -> int (CP-SAT only) or None; ``stats``: solver statistics."""

    status: str
    allocation: dict[str, str] | None = None
    potentials: dict[str, int] | None = None
    stats: dict[str, Any] = field(default_factory=dict)


def _structure(market: HousingMarket):
    """IR pairs and ranks: agents, cand[i] = [(j, rank)], own rank per agent."""
    agents = list(market.agents)
    own = {i: market.rank(i, market.endowment[i]) for i in agents}
    cand = {i: [(market.owner[h], market.rank(i, h))
                for tie in market.order[i].ties[:own[i]] for h in tie] for i in agents}
    return agents, own, cand


def core_cpsat(market: HousingMarket, notion: str, *, time_limit: float = 10.0,
               seed: int = 0, workers: int | None = None) -> CoreEncodingResult:
    """Find an allocation in the ``notion`` core ("weak" or "strict") with CP-SAT, or prove
    there is none. Variables: O(IR pairs + n · ties); constraints O(IR pairs).
    ``time_limit`` in seconds; ``seed`` fixes the search. Source: Biró, Klijn, Klimentova
    & Viana 2021 for core integer programs.
    """
    from ortools.sat.python import cp_model

    if notion not in ("weak", "strict"):
        raise ValueError(f"unknown core notion {notion!r}")
    agents, own, cand = _structure(market)
    n = len(agents)
    m = cp_model.CpModel()
    y = {(i, j): m.new_bool_var(f"y[{i},{j}]") for i in agents for j, _ in cand[i]}
    for i in agents:
        m.add_exactly_one(y[i, j] for j, _ in cand[i])
    into: dict[str, list] = {j: [] for j in agents}
    for (i, j), v in y.items():
        into[j].append(v)
    for j in agents:
        m.add_exactly_one(into[j])
    t = {i: m.new_int_var(0, n, f"t[{i}]") for i in agents}
    for i in agents:
        g = {}
        for r in range(own[i] - 1, 0, -1):      # chained: g[r] = g[r+1] + Σ_{rank r+1} y
            g[r] = m.new_bool_var(f"g[{i},{r}]")
            m.add(sum(y[i, j] for j, q in cand[i] if q == r + 1) + g.get(r + 1, 0) == g[r])
        for j, q in cand[i]:
            if j == i:
                continue
            if q in g:                                   # strict arc i -> j
                m.add(t[j] >= t[i] + 1).only_enforce_if(g[q])
            if notion == "strict":                       # arc i -> j
                if q - 1 in g:
                    m.add(t[j] >= t[i]).only_enforce_if(g[q - 1])
                elif q == 1:
                    m.add(t[j] >= t[i])
    solver = cpsat_solver(time_limit, seed, workers)
    st = solver.solve(m)
    stats = {"status": solver.status_name(st), "wall_time": solver.wall_time,
             "variables": len(y) + n, "branches": solver.num_branches}
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        got = {i: market.endowment[j] for (i, j), v in y.items() if solver.value(v)}
        alloc = {i: got[i] for i in agents}
        return CoreEncodingResult("feasible", alloc, {i: int(solver.value(t[i])) for i in agents},
                              stats)
    if st == cp_model.INFEASIBLE:
        return CoreEncodingResult("infeasible", stats=stats)
    return CoreEncodingResult("unknown", stats=stats)


def strict_core_milp(market: HousingMarket, *, time_limit: float = 10.0, seed: int = 0
                     ) -> CoreEncodingResult:
    """Strict-core existence as a big-M MILP solved by CBC (through pulp).

    Binary y_ij on IR pairs, assignment rows, continuous g[i][r] ∈ [0, 1] tied to y by
    equalities, continuous potentials t ∈ [0, n], and for every IR arc i -> j with
    q = rank_i(ω_j): t_j − t_i ≥ 1 − (n+1)(1 − g[i][q]) and
    t_j − t_i ≥ −(n+1)(1 − g[i][q−1]).
    ``time_limit`` in seconds, ``seed`` passed to CBC. Source: Biró, Klijn, Klimentova &
    Viana 2021.
    """
    import pulp

    agents, own, cand = _structure(market)
    n = len(agents)
    big = n + 1
    prob = pulp.LpProblem("strict_core", pulp.LpMinimize)
    idx = {a: k for k, a in enumerate(agents)}
    y = {(i, j): pulp.LpVariable(f"y_{idx[i]}_{idx[j]}", cat="Binary")
         for i in agents for j, _ in cand[i]}
    t = {i: pulp.LpVariable(f"t_{idx[i]}", 0, n) for i in agents}
    prob += pulp.lpSum([])
    for i in agents:
        prob += pulp.lpSum(y[i, j] for j, _ in cand[i]) == 1
    into: dict[str, list] = {j: [] for j in agents}
    for (i, j), v in y.items():
        into[j].append(v)
    for j in agents:
        prob += pulp.lpSum(into[j]) == 1
    for i in agents:
        g: dict[int, Any] = {0: 1}
        for r in range(own[i] - 1, 0, -1):      # chained: g[r] = g[r+1] + Σ_{rank r+1} y
            g[r] = pulp.LpVariable(f"g_{idx[i]}_{r}", 0, 1)
            prob += pulp.lpSum([y[i, j] for j, q in cand[i] if q == r + 1]
                               + ([g[r + 1]] if r + 1 in g else [])) == g[r]
        for j, q in cand[i]:
            if j == i:
                continue
            if q in g:
                prob += t[j] - t[i] >= 1 - big * (1 - g[q])
            prob += t[j] - t[i] >= -big * (1 - g[q - 1])
    solver = pulp.PULP_CBC_CMD(msg=False, timeLimit=float(time_limit),
                               options=[f"randomSeed {int(seed) + 1}",
                                        f"randomCbcSeed {int(seed) + 1}"])
    prob.solve(solver)
    status = pulp.LpStatus[prob.status]
    stats = {"status": status, "variables": len(y) + n}
    if status == "Optimal":
        alloc = {i: market.endowment[j] for (i, j), v in y.items()
                 if v.value() is not None and v.value() > 0.5}
        if len(alloc) == n:
            return CoreEncodingResult("feasible", alloc, None, stats)
        return CoreEncodingResult("unknown", stats=stats)
    if status == "Infeasible":
        return CoreEncodingResult("infeasible", stats=stats)
    return CoreEncodingResult("unknown", stats=stats)


def core_z3(market: HousingMarket, notion: str, *, time_limit: float = 10.0, seed: int = 0
            ) -> CoreEncodingResult:
    """Find an allocation in the ``notion`` core ("weak" or "strict") with z3, or prove
    there is none.

    Booleans y_ij on IR pairs with pseudo-Boolean "exactly one" rows; the order-encoded
    rank indicators are chained, g[i][r] = g[i][r+1] ∨ ⋁_{rank_i(ω_j) = r+1} y_ij, and the
    potential rows are implications g → t_j − t_i ≥ 1 (resp. ≥ 0) over integers in [0, n].
    ``time_limit`` in seconds, ``seed`` for z3's random seed. Source: Biró, Klijn,
    Klimentova & Viana 2021.
    """
    import z3

    if notion not in ("weak", "strict"):
        raise ValueError(f"unknown core notion {notion!r}")
    agents, own, cand = _structure(market)
    n = len(agents)
    idx = {a: k for k, a in enumerate(agents)}
    s = z3.Solver()
    s.set("timeout", max(1, int(time_limit * 1000)))
    s.set("random_seed", int(seed))
    y = {(i, j): z3.Bool(f"y_{idx[i]}_{idx[j]}") for i in agents for j, _ in cand[i]}
    t = {i: z3.Int(f"t_{idx[i]}") for i in agents}
    into: dict[str, list] = {j: [] for j in agents}
    for (i, j), v in y.items():
        into[j].append(v)
    for i in agents:
        s.add(z3.PbEq([(y[i, j], 1) for j, _ in cand[i]], 1), t[i] >= 0, t[i] <= n)
    for j in agents:
        s.add(z3.PbEq([(v, 1) for v in into[j]], 1))
    for i in agents:
        g: dict[int, Any] = {own[i]: z3.BoolVal(False)}
        for r in range(own[i] - 1, 0, -1):
            g[r] = z3.Bool(f"g_{idx[i]}_{r}")
            s.add(g[r] == z3.Or(g[r + 1], *[y[i, j] for j, q in cand[i] if q == r + 1]))
        g[0] = z3.BoolVal(True)
        for j, q in cand[i]:
            if j == i:
                continue
            if q < own[i]:
                s.add(z3.Implies(g[q], t[j] >= t[i] + 1))
            if notion == "strict":
                s.add(z3.Implies(g[q - 1], t[j] >= t[i]))
    res = s.check()
    stats = {"status": str(res), "variables": len(y) + n}
    if res == z3.sat:
        mod = s.model()
        alloc = {i: market.endowment[j] for (i, j), v in y.items()
                 if z3.is_true(mod.eval(v, model_completion=True))}
        pots = {i: mod.eval(t[i], model_completion=True).as_long() for i in agents}
        return CoreEncodingResult("feasible", alloc, pots, stats)
    if res == z3.unsat:
        return CoreEncodingResult("infeasible", stats=stats)
    return CoreEncodingResult("unknown", stats=stats)
