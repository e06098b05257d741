"""CP-SAT models of "is there a report (one per manipulator) that makes c the τ-resolved
winner?" for plurality, Borda, approval, Copeland and IRV.

- Reports: ranking rules use position variables pos[i][x] ∈ [0, m−1] (all different) and,
  for Copeland and IRV, order literals A[i][x][y] ⇔ pos[i][x] < pos[i][y]; approval uses
  one literal per candidate (the empty set allowed).
- Score rules: score_x = base_x + Σ_i w_i · points_i(x), linear; c must beat every rival:
  score_c ≥ score_d + [d before c in τ].
- Copeland: margin_xy = base_xy + Σ_i w_i (2 A[i][x][y] − 1); a win / tie / loss literal per
  pair fixes its sign, and the doubled score is Σ_y 2·win + tie.
- IRV (the elimination-order model): alive[r][x] for rounds r = 0..m−1 with one
  elimination per round; a fixed ballot counts for x in round r iff x is alive and every
  candidate ranked at or above x's group (x excepted) is not; a manipulator's top is the
  alive candidate with no alive candidate above it in its report; the eliminated
  candidate has the fewest votes, strictly fewer than every τ-lower alive candidate; and
  c is alive after m − 1 rounds.

Independent of ``oracles``: the fixed ballots' tallies are recomputed here, each rule's
part in the models' table :mod:`prefcert.encodings.rules`. Not trusted.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..formal.election import Election
from ..formal.rules import rule_named
from . import cpsat_solver
from .rules import rule_encoding


@dataclass(frozen=True)
class ManipulationEncodingResult:
    """``status``: "feasible" (``ballots`` elect c, one per weight), "infeasible" (no
    reports do) or "unknown" (time limit)."""

    status: str
    ballots: list[list[str]] | None = None
    stats: dict[str, Any] = field(default_factory=dict)


def _base(e: Election, rule: str) -> dict:
    """The fixed ballots' contribution (scores, or Copeland margins), in plain Python."""
    return rule_encoding(rule).base(e)


def irv_model_size(e: Election, weights: Sequence[int]) -> int:
    """The size of :func:`can_win_cpsat`'s IRV model, in the units the cross-check bound
    counts: (fixed ballot classes + manipulators) × m² × (m − 1) rounds — each round
    ties every class's top literals and every candidate pair's elimination constraint.
    From the instance's content only (no clock). O(n).

    Measured (2 cores, ortools 9.15, one worker): m = 20, 50 classes, one manipulator is
    400,000 units and costs 3–4 s of CPU per solve, most of it model building and
    presolve (``max_deterministic_time`` does not bound those)."""
    m = e.m
    classes = len({b.ranking for b in e.ballots})
    return (classes + len(weights)) * m * m * max(1, m - 1)


def can_win_cpsat(e: Election, rule: str, c: str, weights: Sequence[int], *,
                  time_limit: float = 10.0, seed: int = 0, workers: int = 1,
                  deterministic_time: float | None = None) -> ManipulationEncodingResult:
    """Decide whether manipulators of the given ``weights`` (their reports added to the
    election's ballots) can make ``c`` the τ-resolved winner of ``rule``.

    Variables: O(k · m²) for the reports, plus O(m² · classes) for IRV. ``time_limit``
    in seconds (wall clock: a safety net); ``seed`` fixes the search; with one worker
    and ``deterministic_time`` (CP-SAT's machine-independent work units) the same model
    gives the same answer, or the same ``unknown``, on every machine. References:
    Bartholdi, Tovey & Trick 1989 (score rules); Bartholdi & Orlin 1991 (IRV is NP-hard
    for one manipulator)."""
    from ortools.sat.python import cp_model

    enc, approval = rule_encoding(rule), rule_named(rule, error=ValueError).approval
    cands = list(e.candidates)
    m, k = len(cands), len(weights)
    tau = {x: i for i, x in enumerate(e.tie_break)}
    md = cp_model.CpModel()
    pos, A, ap = [], [], []
    for i in range(k):
        if approval:
            ap.append({x: md.new_bool_var(f"ap[{i},{x}]") for x in cands})
            continue
        p = {x: md.new_int_var(0, m - 1, f"pos[{i},{x}]") for x in cands}
        md.add_all_different(p.values())
        pos.append(p)
        if enc.order_literals:
            a = {}
            for x in cands:
                for y in cands:
                    if x < y:
                        a[(x, y)] = md.new_bool_var(f"A[{i},{x},{y}]")
                        a[(y, x)] = a[(x, y)].Not()
                        md.add(p[x] < p[y]).only_enforce_if(a[(x, y)])
                        md.add(p[x] > p[y]).only_enforce_if(a[(y, x)])
            A.append(a)

    def need(d: str) -> int:
        """c beats d iff score_c ≥ score_d + need(d)."""
        return 1 if tau[d] < tau[c] else 0

    if enc.rounds:
        _irv(md, e, cands, weights, A, c, tau)
    else:
        score = enc.report_scores(md, e, cands, weights, pos, A, ap, _base(e, rule))
        for d in cands:
            if d != c:
                md.add(score[c] >= score[d] + need(d))
    solver = cpsat_solver(time_limit, seed, workers)
    if deterministic_time is not None:
        solver.parameters.max_deterministic_time = float(deterministic_time)
    st = solver.solve(md)
    stats = {"status": solver.status_name(st), "wall_time": round(solver.wall_time, 4),
             "deterministic_time": round(solver.deterministic_time, 4),
             "branches": solver.num_branches}
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        if approval:
            out = [[x for x in e.tie_break if solver.value(ap[i][x])] for i in range(k)]
        else:
            out = [sorted(cands, key=lambda x: solver.value(pos[i][x])) for i in range(k)]
        return ManipulationEncodingResult("feasible", out, stats)
    if st == cp_model.INFEASIBLE:
        return ManipulationEncodingResult("infeasible", None, stats)
    return ManipulationEncodingResult("unknown", None, stats)


def _irv(md, e: Election, cands: list[str], weights: Sequence[int], A: list, c: str,
         tau: dict) -> None:
    """The elimination-order model of IRV (see the module docstring)."""
    m = len(cands)
    alive = [{x: md.new_bool_var(f"alive[{r},{x}]") for x in cands} for r in range(m)]
    for x in cands:
        md.add(alive[0][x] == 1)
    for r in range(m - 1):
        for x in cands:
            md.add_implication(alive[r + 1][x], alive[r][x])
        md.add(sum(alive[r + 1].values()) == m - r - 1)
    md.add(alive[m - 1][c] == 1)
    # fixed ballots, grouped by identical rankings
    classes: dict[tuple, int] = {}
    for b in e.ballots:
        classes[b.ranking] = classes.get(b.ranking, 0) + b.count
    for r in range(m - 1):
        tally = {x: 0 for x in cands}
        for ranking, cnt in classes.items():
            higher: list[str] = []
            for g in ranking:
                for x in g:
                    others = higher + [y for y in g if y != x]
                    lit = md.new_bool_var(f"top[{r},{x}]")
                    md.add_bool_and([alive[r][x]] + [alive[r][y].Not() for y in others]
                                    ).only_enforce_if(lit)
                    md.add_bool_or([alive[r][x].Not()] + [alive[r][y] for y in others]
                                   ).only_enforce_if(lit.Not())
                    tally[x] = tally[x] + cnt * lit
                higher += list(g)
        for i, w in enumerate(weights):
            mt = {x: md.new_bool_var(f"mtop[{i},{r},{x}]") for x in cands}
            md.add(sum(mt.values()) == 1)
            for x in cands:
                md.add_implication(mt[x], alive[r][x])
                for y in cands:
                    if y != x:       # y above x in the report and alive: x is not the top
                        md.add_bool_or([mt[x].Not(), A[i][(y, x)].Not(), alive[r][y].Not()])
                tally[x] = tally[x] + w * mt[x]
        for x in cands:
            out = md.new_bool_var(f"out[{r},{x}]")
            md.add(out == alive[r][x] - alive[r + 1][x])
            for y in cands:
                if y != x:
                    delta = 1 if tau[x] < tau[y] else 0     # x wins τ ties against y
                    md.add(tally[x] + delta <= tally[y]).only_enforce_if([out, alive[r][y]])


def _types(e: Election, rule: str) -> list[tuple[str, ...]]:
    import itertools
    if rule_named(rule, error=ValueError).approval:
        return [s for k in range(e.m + 1) for s in itertools.combinations(e.candidates, k)]
    return list(itertools.permutations(e.candidates))


def min_coalition_cpsat(e: Election, rule: str, c: str, *, time_limit: float = 60.0,
                        seed: int = 0, max_types: int = 5040) -> dict:
    """The fewest unweighted manipulators whose reports, added to ``e``'s ballots, make
    ``c`` the τ-resolved winner: an integer program over report-type counts n_q
    (voters are anonymous, so only how many manipulators cast each report matters).

    Score rules and Copeland: one model, minimise Σ n_q. IRV: one model per elimination
    order of the rivals (c last) — given the order every report's top in every round is
    fixed, reports with the same tops merge, and the tallies are linear — and the least
    over the orders. Returns ``{"status": "optimal"|"unknown", "k", "reports": [(report,
    count)]}``; ``"unknown"`` when the report space exceeds ``max_types`` or a solve
    times out. References: Conitzer, Sandholm & Lang 2007 (coalitional manipulation);
    Zuckerman, Procaccia & Rosenschein 2009."""
    import itertools
    import time

    from ortools.sat.python import cp_model

    enc, approval = rule_encoding(rule), rule_named(rule, error=ValueError).approval
    types = _types(e, rule)
    if not enc.rounds:
        # c on top (approval: c approved) loses nothing for these rules: c's score only
        # grows and every rival's only shrinks, so optimal coalitions of this shape exist
        types = [q for q in types if (c in q if approval else q[0] == c)]
    if len(types) > max_types:
        return {"status": "unknown", "k": None, "reports": None,
                "reason": "report space too large"}
    cands, m = list(e.candidates), e.m
    tau = {x: i for i, x in enumerate(e.tie_break)}
    n = e.voters
    # n + 1 manipulators with c on top already win (a strict majority over every rival,
    # IRV's first round included); Borda needs at most n(m − 1) + 1
    cap = enc.coalition_cap(n, m)
    deadline = time.perf_counter() + time_limit

    def solve(md, x):
        s = cpsat_solver(max(0.01, deadline - time.perf_counter()), seed, 1)
        md.minimize(sum(x))
        st = s.solve(md)
        if st == cp_model.OPTIMAL:
            return "optimal", int(round(s.objective_value)), [s.value(v) for v in x]
        return ("infeasible" if st == cp_model.INFEASIBLE else "unknown"), None, None

    if not enc.rounds:
        base = _base(e, rule)

        def feasible(k: int):
            """Solve with exactly k manipulators: (status, counts)."""
            md = cp_model.CpModel()
            x = [md.new_int_var(0, k, f"n[{i}]") for i in range(len(types))]
            md.add(sum(x) == k)
            _score_constraints(md, x, types, base, enc, cands, tau, c)
            s = cpsat_solver(max(0.01, deadline - time.perf_counter()), seed, 1)
            st = s.solve(md)
            if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                return "feasible", [s.value(v) for v in x]
            return ("infeasible" if st == cp_model.INFEASIBLE else "unknown"), None

        # feasibility is monotone in k for the score rules (one more c-first report only
        # widens c's leads) and in steps of 2 for Copeland (add σ and its reverse below c):
        # exponential then binary search, per parity class for Copeland
        best = None
        step = enc.parity
        for start in range(step):
            ks = range(start, cap + step, step)     # lazy: cap grows with the voter count
            lo, hi, found = -1, None, None
            probe = 0
            while probe < len(ks):
                st, vals = feasible(ks[probe])
                if st == "unknown":
                    return {"status": "unknown", "k": None, "reports": None,
                            "reason": "time limit"}
                if st == "feasible":
                    hi, found = probe, vals
                    break
                lo = probe
                if probe == len(ks) - 1:
                    break
                probe = min(2 * probe + 1, len(ks) - 1)
            if hi is None:
                continue
            while hi - lo > 1:
                mid = (lo + hi) // 2
                st, vals = feasible(ks[mid])
                if st == "unknown":
                    return {"status": "unknown", "k": None, "reports": None,
                            "reason": "time limit"}
                if st == "feasible":
                    hi, found = mid, vals
                else:
                    lo = mid
            if best is None or ks[hi] < best[0]:
                best = (ks[hi], found)
        if best is None:
            return {"status": "unknown", "k": None, "reports": None, "reason": "no k"}
        return {"status": "optimal", "k": best[0],
                "reports": [(list(q), v) for q, v in zip(types, best[1]) if v]}

    # IRV: the fixed ballots' tallies per active set
    def tally(active: frozenset) -> dict:
        t = {a: 0 for a in cands if a in active}
        for b in e.ballots:
            for g in b.ranking:
                live = [a for a in g if a in active]
                if live:
                    if len(live) == 1:
                        t[live[0]] += b.count
                    break
        return t
    best = None
    rivals = [a for a in cands if a != c]
    for order in itertools.permutations(rivals):
        if time.perf_counter() > deadline:
            return {"status": "unknown", "k": None, "reports": None, "reason": "time limit"}
        alive, rounds = set(cands), []
        for out in order:
            rounds.append((frozenset(alive), out))
            alive.discard(out)
        groups: dict[tuple, tuple[str, ...]] = {}
        for q in types:
            tops = tuple(next(a for a in q if a in act) for act, _ in rounds)
            groups.setdefault(tops, q)
        keys = list(groups)
        md = cp_model.CpModel()
        x = [md.new_int_var(0, cap, f"n[{i}]") for i in range(len(keys))]
        if best is not None:
            md.add(sum(x) <= best[0] - 1)          # only a strictly smaller coalition helps
        for r, (act, out) in enumerate(rounds):
            base = tally(act)
            t = {a: base[a] + sum(xi for xi, key in zip(x, keys) if key[r] == a) for a in act}
            for y in act:
                if y != out:
                    md.add(t[out] + (1 if tau[out] < tau[y] else 0) <= t[y])
        st, k, vals = solve(md, x)
        if st == "optimal":
            best = (k, [(list(groups[key]), v) for key, v in zip(keys, vals) if v])
        elif st == "unknown":
            return {"status": "unknown", "k": None, "reports": None, "reason": "time limit"}
    if best is None:
        return {"status": "unknown", "k": None, "reports": None, "reason": "no order"}
    return {"status": "optimal", "k": best[0], "reports": best[1]}


def _score_constraints(md, x, types, base, enc, cands, tau, c) -> None:
    """c beats every rival with the report counts x added (score rules, Copeland: the
    rule encoding's ``type_scores``)."""
    score = enc.type_scores(md, x, types, base, cands)
    for d in cands:
        if d != c:
            md.add(score[c] >= score[d] + (1 if tau[d] < tau[c] else 0))
