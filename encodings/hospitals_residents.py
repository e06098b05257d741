"""CP-SAT model of weak / strong / super stability for hospitals/residents with ties.

One Boolean ``x[i, j]`` per admissible pair (resident ``i``, hospital ``j``, the integers
of :class:`~prefcert.formal.hospitals_residents.HRInts`); each resident takes at most one
hospital, each hospital at most ``c_j`` residents. For hospital j and rank k of its list,
the Boolean ``full[j][k]`` may be true only when j holds at least ``c_j`` residents of rank
≤ k ("j is full of residents at least as good as rank k"; ``full[j][0]`` is false).
For an admissible pair (i, j) with ranks k = rank_i(j) and q = rank_j(i):

- i is *not strictly* better off with j ⇔ i holds a hospital of rank ≤ k: the ladder
  literal ``top[i][k]`` (= Σ of ``x[i, j']`` over rank_i(j') ≤ k); *not weakly* ⇔
  ``top[i][k-1]``.
- j is *not strictly* better off with i ⇔ ``full[j][q]``; *not weakly* ⇔ ``full[j][q-1]``.

A pair must not block: weak — (i not strictly) ∨ (j not strictly); super — (i not
weakly) ∨ (j not weakly); strong — both (i not strictly ∨ j not weakly) and (i not
weakly ∨ j not strictly). Every clause also holds ``x[i, j]`` itself. The ``full``
literals occur only positively, so the one-way implication ``full → Σ ≥ c_j`` suffices.
The model is built from the integer form in one pass over the lists; names enter only
the variable names and the returned matching.
Sources: Manlove 2013, §3.2–3.3 (definitions); Kwanashie & Manlove 2014 (IP models).
"""
from __future__ import annotations

import time
from typing import Any

from ..formal.hospitals_residents import NOTIONS, HRInts, HRMarket
from ..formal.outcome import Outcome
from . import cpsat_solver


def _tie_groups(lst: list, ties: list[int], nties: int) -> list[list]:
    """``lst`` (aligned with a list's tie indices ``ties``, 1..nties) cut into its ties."""
    if nties == len(lst):
        return [[y] for y in lst]
    groups: list[list] = [[] for _ in range(nties)]
    for y, t in zip(lst, ties):
        groups[t - 1].append(y)
    return groups


def _tie_ends(ties: list[int], nties: int) -> list[int]:
    """``ends[k-1]``: the length of the list's prefix made of ties 1..k."""
    if nties == len(ties):
        return list(range(1, nties + 1))
    ends = [0] * nties
    for p, t in enumerate(ties, 1):
        ends[t - 1] = p
    return ends


def stable_matching_cpsat_model(market: HRMarket | HRInts, notion: str):
    """Build the CP-SAT model of ``notion``-stability from the integer form of ``market``.

    Returns ``(model, x)`` with ``x``: (resident int, hospital int) -> BoolVar over the
    admissible pairs, in each resident's list order (residents in input order). Raises
    ValueError for an unknown notion. Size O(L) variables and clauses for total list
    length L, plus the hospitals' prefix sums, O(Σ_j |list(j)| · #ties(j)) terms.
    Variables and constraints come in the order (and with the names) of the former model
    built from the name-keyed orders, so CP-SAT solves it the same way.
    Sources: Manlove 2013, §3.2–3.3; Kwanashie & Manlove 2014.
    """
    from ortools.sat.python import cp_model

    if notion not in NOTIONS:
        raise ValueError(f"unknown stability notion {notion!r} (known: {', '.join(NOTIONS)})")
    ints = market.ints if isinstance(market, HRMarket) else market
    rs, hs, cap = ints.r, ints.h, ints.cap
    rn, hn = rs.names, hs.names
    model = cp_model.CpModel()
    new_bool = model.new_bool_var
    total = cp_model.LinearExpr.sum
    x: dict[tuple[int, int], Any] = {}
    row: list[list] = []                 # row[i]: resident i's pair variables, list order
    by_h: dict[int, list] = {}           # hospitals in order of first admissible pair
    for i, lst in enumerate(rs.lists):
        name = rn[i]
        vs = []
        for j in lst:
            v = new_bool(f"x[{name},{hn[j]}]")
            x[(i, j)] = v
            vs.append(v)
            by_h.setdefault(j, []).append(v)
        row.append(vs)
    for vs in row:
        if len(vs) > 1:
            model.add_at_most_one(vs)
    # top[i][k]: i holds a hospital of rank <= k (exact, because of AtMostOne); presolve
    # turns these into affine relations, several times faster than the plain clauses.
    top: list[list] = []
    for i in range(len(rn)):
        ladder = [model.new_constant(0)]
        name = rn[i]
        for k, tie in enumerate(_tie_groups(row[i], rs.ties[i], rs.nties[i]), 1):
            t = new_bool(f"top[{name},{k}]")
            model.add(t == ladder[-1] + sum(tie))
            ladder.append(t)
        top.append(ladder)
    full: dict[int, list] = {}
    for j, vs in by_h.items():
        c = cap[j]
        model.add(total(vs) <= c)
        name = hn[j]
        members = [x[(i, j)] for i in hs.lists[j]]
        ladder = [model.new_constant(0)]
        ends = _tie_ends(hs.ties[j], hs.nties[j])
        for k, end in enumerate(ends, 1):
            f = new_bool(f"full[{name},{k}]")
            model.add(total(members[:end]) >= c).only_enforce_if(f)
            ladder.append(f)
        full[j] = ladder
    rank_r, rank_h = rs.rank, hs.rank
    add_or = model.add_bool_or
    for (i, j), me in x.items():
        k, q = rank_r[i][j], rank_h[j][i]
        ti, fj = top[i], full[j]
        if notion == "weak":
            add_or([me, ti[k], fj[q]])
        elif notion == "super":
            add_or([me, ti[k - 1], fj[q - 1]])
        else:
            add_or([me, ti[k], fj[q - 1]])
            add_or([me, ti[k - 1], fj[q]])
    return model, x


def stable_matching_cpsat(market: HRMarket | HRInts, notion: str, *, time_limit: float,
                          seed: int, workers: int = 1) -> Outcome:
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
        ints = market.ints if isinstance(market, HRMarket) else market
        rn, hn = ints.r.names, ints.h.names
        value = solver.boolean_value     # x is in resident order: so is the matching
        m = {rn[i]: hn[j] for (i, j), v in x.items() if value(v)}
        return Outcome("exists", solution=m, certificate={"type": "stable_matching"},
                       stats=stats)
    if status == cp_model.INFEASIBLE:
        return Outcome("none", stats=stats)
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"CP-SAT rejected the model: {model.validate()}")
    return Outcome("unknown", stats=stats)
