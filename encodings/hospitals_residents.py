"""CP-SAT model of weak / strong / super stability for hospitals/residents with ties.

One Boolean ``x[r, h]`` per admissible pair; each resident takes at most one hospital,
each hospital at most ``c_h`` residents. For hospital h and rank k of its list, the
Boolean ``full[h][k]`` may be true only when h holds at least ``c_h`` residents of rank
≤ k ("h is full of residents at least as good as rank k"; ``full[h][0]`` is false).
For an admissible pair (r, h) with ranks k = rank_r(h) and q = rank_h(r):

- r is *not strictly* better off with h ⇔ r holds a hospital of rank ≤ k: the ladder
  literal ``top[r][k]`` (= Σ of ``x[r, h']`` over rank_r(h') ≤ k); *not weakly* ⇔
  ``top[r][k-1]``.
- h is *not strictly* better off with r ⇔ ``full[h][q]``; *not weakly* ⇔ ``full[h][q-1]``.

A pair must not block: weak — (r not strictly) ∨ (h not strictly); super — (r not
weakly) ∨ (h not weakly); strong — both (r not strictly ∨ h not weakly) and (r not
weakly ∨ h not strictly). Every clause also holds ``x[r, h]`` itself. The ``full``
literals occur only positively, so the one-way implication ``full → Σ ≥ c_h`` suffices.
Sources: Manlove 2013, §3.2–3.3 (definitions); Kwanashie & Manlove 2014 (IP models).
"""
from __future__ import annotations

import time

from ..formal.hospitals_residents import NOTIONS, HRMarket
from ..formal.outcome import Outcome
from . import cpsat_solver


def stable_matching_cpsat_model(market: HRMarket, notion: str):
    """Build the CP-SAT model; returns ``(model, x)`` with ``x``: (r, h) -> BoolVar.
    Raises ValueError for an unknown notion. Size O(L)."""
    from ortools.sat.python import cp_model

    if notion not in NOTIONS:
        raise ValueError(f"unknown stability notion {notion!r} (known: {', '.join(NOTIONS)})")
    model = cp_model.CpModel()
    x = {(r, h): model.new_bool_var(f"x[{r},{h}]") for r, h in market.edges()}
    by_r: dict[str, list] = {}
    by_h: dict[str, list] = {}
    for (r, h), v in x.items():
        by_r.setdefault(r, []).append(v)
        by_h.setdefault(h, []).append((r, v))
    for vs in by_r.values():
        if len(vs) > 1:
            model.add_at_most_one(vs)
    # top[r][k]: r holds a hospital of rank <= k (exact, because of AtMostOne); presolve
    # turns these into affine relations, several times faster than the plain clauses.
    top: dict[str, list] = {}
    for r, order in market.pr.items():
        ladder = [model.new_constant(0)]
        for k, tie in enumerate(order.ties, 1):
            t = model.new_bool_var(f"top[{r},{k}]")
            model.add(t == ladder[-1] + sum(x[(r, h)] for h in tie))
            ladder.append(t)
        top[r] = ladder
    full: dict[str, list] = {}
    for h, rv in by_h.items():
        cap = market.capacities[h]
        model.add(sum(v for _, v in rv) <= cap)
        order = market.ph[h]
        ladder = [model.new_constant(0)]
        for k in range(1, len(order.ties) + 1):
            f = model.new_bool_var(f"full[{h},{k}]")
            model.add(sum(x[(r, h)] for t in order.ties[:k] for r in t) >= cap).only_enforce_if(f)
            ladder.append(f)
        full[h] = ladder
    for r, h in x:
        k, q = market.pr[r].rank[h], market.ph[h].rank[r]
        nsr, nwr = top[r][k], top[r][k - 1]          # r not strictly / not weakly better off
        nsh, nwh = full[h][q], full[h][q - 1]
        me = x[(r, h)]
        if notion == "weak":
            model.add_bool_or([me, nsr, nsh])
        elif notion == "super":
            model.add_bool_or([me, nwr, nwh])
        else:
            model.add_bool_or([me, nsr, nwh])
            model.add_bool_or([me, nwr, nsh])
    return model, x


def stable_matching_cpsat(market: HRMarket, notion: str, *, time_limit: float, seed: int,
                          workers: int = 1) -> Outcome:
    """Find a ``notion``-stable matching with OR-tools CP-SAT, or prove none exists.

    Returns ``exists`` with the matching (resident -> hospital) and certificate
    ``{"type": "stable_matching"}``, ``none`` when CP-SAT proves infeasibility, ``unknown``
    on timeout; ``stats`` holds the status and wall seconds. Raises ValueError for an
    unknown notion and RuntimeError when CP-SAT rejects the model.
    """
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    model, x = stable_matching_cpsat_model(market, notion)
    build = time.perf_counter() - t0
    solver = cpsat_solver(max(float(time_limit), 0.001), seed, workers)
    solver.parameters.symmetry_level = 0      # no useful symmetry; detection costs seconds
    status = solver.solve(model)
    stats = {"engine": "cpsat", "status": solver.status_name(status),
             "build_seconds": round(build, 4), "wall_seconds": round(solver.wall_time, 4),
             "pair_vars": len(x)}
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        m = {r: h for (r, h), v in x.items() if solver.boolean_value(v)}
        order = {r: i for i, r in enumerate(market.residents)}
        m = dict(sorted(m.items(), key=lambda kv: order[kv[0]]))
        return Outcome("exists", solution=m, certificate={"type": "stable_matching"},
                       stats=stats)
    if status == cp_model.INFEASIBLE:
        return Outcome("none", stats=stats)
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"CP-SAT rejected the model: {model.validate()}")
    return Outcome("unknown", stats=stats)
