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

Independent of ``oracles``: the fixed ballots' tallies are recomputed here. Not trusted.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..formal.election import Election


@dataclass(frozen=True)
class EncodingResult:
    """``status``: "feasible" (``ballots`` elect c, one per weight), "infeasible" (no
    reports do) or "unknown" (time limit)."""

    status: str
    ballots: list[list[str]] | None = None
    stats: dict[str, Any] = field(default_factory=dict)


def _base(e: Election, rule: str) -> dict:
    """The fixed ballots' contribution (scores, or Copeland margins), in plain Python."""
    cands = e.candidates
    if rule == "copeland":
        mg = {(x, y): 0 for x in cands for y in cands if x != y}
        for b in e.ballots:
            level = {x: gi for gi, g in enumerate(b.ranking) for x in g}
            bottom = len(b.ranking)
            for x in cands:
                for y in cands:
                    if x != y and level.get(x, bottom) < level.get(y, bottom):
                        mg[(x, y)] += b.count
                        mg[(y, x)] -= b.count
        return mg
    s = dict.fromkeys(cands, 0)
    for b in e.ballots:
        if rule == "approval":
            for x in b.approved:
                s[x] += b.count
        elif rule == "plurality":
            if b.ranking and len(b.ranking[0]) == 1:
                s[b.ranking[0][0]] += b.count
        else:
            seen = 0
            for g in b.ranking:
                seen += len(g)
                for x in g:
                    s[x] += b.count * (len(cands) - seen)
    return s


def can_win_cpsat(e: Election, rule: str, c: str, weights: Sequence[int], *,
                  time_limit: float = 10.0, seed: int = 0, workers: int = 1
                  ) -> EncodingResult:
    """Decide whether manipulators of the given ``weights`` (their reports added to the
    election's ballots) can make ``c`` the τ-resolved winner of ``rule``.

    Variables: O(k · m²) for the reports, plus O(m² · classes) for IRV. ``time_limit``
    in seconds; ``seed`` fixes the search. References: Bartholdi, Tovey & Trick 1989
    (score rules); Bartholdi & Orlin 1991 (IRV is NP-hard for one manipulator)."""
    from ortools.sat.python import cp_model

    cands = list(e.candidates)
    m, k = len(cands), len(weights)
    tau = {x: i for i, x in enumerate(e.tie_break)}
    md = cp_model.CpModel()
    pos, A, ap = [], [], []
    for i in range(k):
        if rule == "approval":
            ap.append({x: md.new_bool_var(f"ap[{i},{x}]") for x in cands})
            continue
        p = {x: md.new_int_var(0, m - 1, f"pos[{i},{x}]") for x in cands}
        md.add_all_different(p.values())
        pos.append(p)
        if rule in ("copeland", "irv"):
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

    if rule == "irv":
        _irv(md, e, cands, weights, A, c, tau)
    else:
        base = _base(e, rule)
        if rule == "copeland":
            score = {}
            for x in cands:
                terms = []
                for y in cands:
                    if x == y:
                        continue
                    mg = base[(x, y)] + sum(w * (2 * A[i][(x, y)] - 1)
                                            for i, w in enumerate(weights))
                    win, tie = md.new_bool_var(f"win[{x},{y}]"), md.new_bool_var(f"tie[{x},{y}]")
                    lose = md.new_bool_var(f"lose[{x},{y}]")
                    md.add_exactly_one([win, tie, lose])
                    md.add(mg >= 1).only_enforce_if(win)
                    md.add(mg == 0).only_enforce_if(tie)
                    md.add(mg <= -1).only_enforce_if(lose)
                    terms += [2 * win, tie]
                score[x] = sum(terms)
        else:
            score = {}
            for x in cands:
                if rule == "approval":
                    add = sum(w * ap[i][x] for i, w in enumerate(weights))
                elif rule == "borda":
                    add = sum(w * (m - 1 - pos[i][x]) for i, w in enumerate(weights))
                else:  # plurality
                    add = 0
                    for i, w in enumerate(weights):
                        top = md.new_bool_var(f"top[{i},{x}]")
                        md.add(pos[i][x] == 0).only_enforce_if(top)
                        md.add(pos[i][x] != 0).only_enforce_if(top.Not())
                        add = add + w * top
                score[x] = base[x] + add
        for d in cands:
            if d != c:
                md.add(score[c] >= score[d] + need(d))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.random_seed = int(seed)
    solver.parameters.num_workers = workers
    st = solver.solve(md)
    stats = {"status": solver.status_name(st), "wall_time": round(solver.wall_time, 4),
             "branches": solver.num_branches}
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        if rule == "approval":
            out = [[x for x in e.tie_break if solver.value(ap[i][x])] for i in range(k)]
        else:
            out = [sorted(cands, key=lambda x: solver.value(pos[i][x])) for i in range(k)]
        return EncodingResult("feasible", out, stats)
    if st == cp_model.INFEASIBLE:
        return EncodingResult("infeasible", None, stats)
    return EncodingResult("unknown", None, stats)


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
