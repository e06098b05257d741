"""CP-SAT synthesis of small counterexamples: a two-sided market with no super- or strongly
stable matching, of least size.

The instance itself is the unknown. For sides A (``m1..``) and B (``w1..``): Booleans
``acc[x, y]`` (x lists y) and integer ranks ``rank[x, y]`` in ``1..|other side|`` (equal
ranks form a tie; unlisted items carry a meaningless rank). A pair is admissible when
both list each other. For **every** matching M of the complete bipartite graph (partial
ones included) a constraint says M is no answer: some pair of M is not admissible, or
some admissible pair outside M blocks M under the notion (its comparisons with the
partners in M are reified rank comparisons). The objective is lexicographic — fewest list
entries, then fewest tied pairs — as ``entries · (T + 1) + tied pairs`` with T the
largest possible number of tied pairs. With ``complete`` every list ranks the whole other
side. Size: O(#matchings · n_a · n_b) constraints (34 matchings for 3 × 3, 209 for 4 × 4,
1,546 for 5 × 5).

An OPTIMAL status proves that no market with these side sizes is smaller under the measure
(a solver's proof, not replayed by the checker); INFEASIBLE proves that every market with
these side sizes has a stable matching of the notion.
"""
from __future__ import annotations

import itertools
import time

from . import cpsat_solver


def _matchings(na: list[str], nb: list[str]):
    """Every matching of K_{na, nb} as a dict x -> y (the empty one included)."""
    def rec(i, used, cur):
        if i == len(na):
            yield dict(cur)
            return
        yield from rec(i + 1, used, cur)
        for y in nb:
            if y not in used:
                cur[na[i]] = y
                yield from rec(i + 1, used | {y}, cur)
                del cur[na[i]]
    yield from rec(0, frozenset(), {})


def synthesize_smti(n_a: int, n_b: int, notion: str, *, complete: bool = False,
                    time_limit: float = 60.0, seed: int = 0, workers: int = 1) -> dict:
    """Find a least market with ``n_a`` × ``n_b`` agents that has no ``notion``-stable
    matching (``notion`` ∈ {strong, super}).

    Returns ``{"status": "optimal" | "feasible" | "infeasible" | "unknown", "instance":
    dict | None, "objective": (entries, tied pairs) | None, "stats": {...}}``; the instance
    is a ``stable_matching`` instance dict. Raises ValueError for an unknown notion or
    empty sides.
    """
    from ortools.sat.python import cp_model

    if notion not in ("strong", "super"):
        raise ValueError(f"synthesis refutes strong or super stability, not {notion!r}")
    if n_a < 1 or n_b < 1:
        raise ValueError("both sides need at least one agent")
    t0 = time.perf_counter()
    na = [f"m{i}" for i in range(1, n_a + 1)]
    nb = [f"w{j}" for j in range(1, n_b + 1)]
    model = cp_model.CpModel()
    acc, rank = {}, {}
    for x, others in [(x, nb) for x in na] + [(y, na) for y in nb]:
        for z in others:
            acc[x, z] = model.new_constant(1) if complete else model.new_bool_var(f"acc[{x},{z}]")
            rank[x, z] = model.new_int_var(1, len(others), f"rank[{x},{z}]")
    lt = {}      # lt[x, z, z2]: x ranks z strictly above z2
    for x, others in [(x, nb) for x in na] + [(y, na) for y in nb]:
        for z, z2 in itertools.permutations(others, 2):
            v = model.new_bool_var(f"lt[{x},{z},{z2}]")
            model.add(rank[x, z] < rank[x, z2]).only_enforce_if(v)
            model.add(rank[x, z] >= rank[x, z2]).only_enforce_if(~v)
            lt[x, z, z2] = v
    edge = {}
    for x in na:
        for y in nb:
            e = model.new_bool_var(f"e[{x},{y}]")
            model.add_bool_and([acc[x, y], acc[y, x]]).only_enforce_if(e)
            model.add_bool_or([~acc[x, y], ~acc[y, x]]).only_enforce_if(~e)
            edge[x, y] = e
    true = model.new_constant(1)

    def strict(x, z, cur):          # x strictly prefers z to its partner cur (None: single)
        return true if cur is None else lt[x, z, cur]

    def weak(x, z, cur):            # x weakly prefers z: not (cur strictly above z)
        return true if cur is None else ~lt[x, cur, z]

    n_match = 0
    for m in _matchings(na, nb):
        n_match += 1
        inv = {y: x for x, y in m.items()}
        lits = [~edge[x, y] for x, y in m.items()]
        for x in na:
            for y in nb:
                if m.get(x) == y:
                    continue
                sx, wx = strict(x, y, m.get(x)), weak(x, y, m.get(x))
                sy, wy = strict(y, x, inv.get(y)), weak(y, x, inv.get(y))
                b = model.new_bool_var("")
                # b → (x, y) admissible and blocking
                model.add_implication(b, edge[x, y])
                if notion == "super":
                    model.add_bool_and([wx, wy]).only_enforce_if(b)
                else:
                    c1, c2 = model.new_bool_var(""), model.new_bool_var("")
                    model.add_bool_and([sx, wy]).only_enforce_if(c1)
                    model.add_bool_and([wx, sy]).only_enforce_if(c2)
                    model.add_bool_or([c1, c2]).only_enforce_if(b)
                lits.append(b)
        model.add_bool_or(lits)
    entries = sum(v for v in acc.values() if not isinstance(v, int))
    tied = []
    for x, others in [(x, nb) for x in na] + [(y, na) for y in nb]:
        for z, z2 in itertools.combinations(others, 2):
            t = model.new_bool_var("")
            # t → both listed and neither strictly above the other
            model.add_bool_and([acc[x, z], acc[x, z2], ~lt[x, z, z2], ~lt[x, z2, z]]) \
                .only_enforce_if(t)
            model.add_bool_or([~acc[x, z], ~acc[x, z2], lt[x, z, z2], lt[x, z2, z], t])
            tied.append(t)
    big = len(tied) + 1
    n_entries = 2 * n_a * n_b
    model.minimize((n_entries if complete else entries) * big + sum(tied))
    solver = cpsat_solver(max(float(time_limit), 0.01), seed, workers)
    status = solver.solve(model)
    stats = {"engine": "cpsat", "status": solver.status_name(status), "matchings": n_match,
             "seconds": round(time.perf_counter() - t0, 3)}
    if status == cp_model.INFEASIBLE:
        return {"status": "infeasible", "instance": None, "objective": None, "stats": stats}
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return {"status": "unknown", "instance": None, "objective": None, "stats": stats}

    def listed(x, others):
        items = [z for z in others if solver.boolean_value(acc[x, z]) or complete]
        groups: dict[int, list[str]] = {}
        for z in items:
            groups.setdefault(solver.value(rank[x, z]), []).append(z)
        return [g[0] if len(g) == 1 else g for _, g in sorted(groups.items())]

    inst = {"domain": "stable_matching", "preferences": {
        "A": {x: listed(x, nb) for x in na}, "B": {y: listed(y, na) for y in nb}}}
    obj = int(round(solver.objective_value))
    return {"status": "optimal" if status == cp_model.OPTIMAL else "feasible",
            "instance": inst, "objective": (obj // big, obj % big), "stats": stats}
