"""Declarative models of weak, strong and super-stability in SMTI: CP-SAT and z3.

Both models use one Boolean ``x[a, b]`` per admissible (mutually acceptable) pair, at most
one partner per agent, and one clause per admissible pair and per blocking orientation
saying that the pair does not block (ALGORITHMS.md §6, "Rows with ties"; Rothblum 1992 for
strict lists). Writing ``M ⪰_a b`` for "a is matched to someone a weakly prefers to b"
and ``M ≻_a b`` for the strict version, an admissible pair (a, b) does not block iff

- weak:   x[a,b] ∨ M ⪰_a b ∨ M ⪰_b a                      (one clause)
- super:  x[a,b] ∨ M ≻_a b ∨ M ≻_b a                      (one clause)
- strong: x[a,b] ∨ M ⪰_a b ∨ M ≻_b a  and  x[a,b] ∨ M ≻_a b ∨ M ⪰_b a   (two clauses)

(the blocking conditions of Irving 1994 and Manlove 2013, §3.1, negated).
Two forms of the disjunct "M ⪰_a b" are offered:

- ``form="rows"``: the literal Rothblum/Kwanashie–Manlove rows, the disjunction of the
  pair variables x[a, b'] over every b' ≠ b that a ranks at least as well as b
  (Kwanashie & Manlove 2014). Σ clause length is O(Σ_a |list(a)|²).
- ``form="ladder"`` (default): order-encoded literals ``top[a][r]`` = "a's partner lies in
  one of a's first r ties" (Gent, Prosser, Smith & Walsh 2002, the SAT encoding of SMTI with
  "partner within the top k ties" literals), so every stability clause has three literals
  and the model has O(L) size for total list length L.

The two solvers get independently written models: CP-SAT defines the ladder literals by
linear equalities (top[a][r] = top[a][r-1] + Σ_{tie r} x, exact because of AtMostOne), z3
by Boolean equivalences (top[a][r] ⇔ top[a][r-1] ∨ ⋁_{tie r} x) with a pseudo-Boolean
AtMost per agent.

Public entry points: :func:`stable_matching_cpsat`, :func:`stable_matching_z3` (engine
shape: ``verdict`` ``exists`` with the matching, ``none`` when the solver proved
infeasibility, ``unknown`` on timeout). Not trusted: every witness goes through
:func:`formal.stable_matching.blocking_pairs` in the pipeline.

Sources: I. P. Gent, R. W. Irving, D. F. Manlove, P. Prosser, B. M. Smith, "A constraint
programming approach to the stable marriage problem", CP 2001; I. P. Gent, P. Prosser,
B. M. Smith, T. Walsh, "SAT encodings of the stable marriage problem with ties and
incomplete lists", SAT 2002; D. F. Manlove, *Algorithmics of Matching Under Preferences*,
2013, §3; A. Kwanashie & D. F. Manlove, "An integer programming approach to the
hospitals/residents problem with ties", OR Proceedings 2013 (2014).
"""
from __future__ import annotations

import time

from ..formal.outcome import Outcome
from ..formal.stable_matching import NOTIONS, Market
from . import cpsat_solver

FORMS = ("ladder", "rows")

# For each notion: the clauses that say an admissible pair (a, b) does not block, as pairs
# (a's condition, b's condition) with "weak" = partner ranked at least as well (⪰) and
# "strict" = partner ranked strictly better (≻); each clause also holds x[a, b] itself.
_CLAUSES = {
    "weak": (("weak", "weak"),),
    "super": (("strict", "strict"),),
    "strong": (("weak", "strict"), ("strict", "weak")),
}


def _check_args(notion: str, form: str) -> None:
    if notion not in NOTIONS:
        raise ValueError(f"unknown stability notion {notion!r} (known: {', '.join(NOTIONS)})")
    if form not in FORMS:
        raise ValueError(f"unknown encoding form {form!r} (known: {', '.join(FORMS)})")


def _ends(ties: list[int], nties: int) -> list[int]:
    """``ends[k]``: the length of the prefix of a list made of its ties 1..k (``ends[0]`` = 0),
    from the list's aligned tie indices. O(len)."""
    if nties == len(ties):
        return list(range(nties + 1))
    ends = [0] * (nties + 1)
    for p, t in enumerate(ties, 1):
        ends[t] = p
    return ends


def _groups(row: list, ends: list[int]) -> list[list]:
    """``row`` (aligned with a list) cut into the list's ties, best first."""
    return [row[lo:hi] for lo, hi in zip(ends, ends[1:])]


def _rows(market: Market) -> tuple[list[list[int]], list[list[int]]]:
    """Per A-agent, the positions (in edge order) of its admissible pairs in its list order;
    the same per B-agent in its list order. O(L)."""
    sa, sb = market.ints.a, market.ints.b
    pos: dict[tuple[int, int], int] = {}
    rows_a: list[list[int]] = []
    k = 0
    for i, lst in enumerate(sa.lists):
        rows_a.append(list(range(k, k + len(lst))))
        for j in lst:
            pos[(i, j)] = k
            k += 1
    rows_b = [[pos[(i, j)] for i in lst] for j, lst in enumerate(sb.lists)]
    return rows_a, rows_b


def _matching_from(values: dict[tuple[str, str], bool]) -> dict[str, str]:
    return {a: b for (a, b), v in values.items() if v}


# ---------------------------------------------------------------------------- CP-SAT


def stable_matching_cpsat_model(market: Market, notion: str, *, form: str = "ladder"):
    """Build the CP-SAT model of ``notion``-stability for ``market``, from its integer form
    (``market.ints``).

    Returns ``(model, x)`` with ``x``: (a, b) -> BoolVar over admissible pairs (names, in
    A's input and list order). Variables and constraints come in the order (and with the
    names) of the former model built from the name-keyed orders, so CP-SAT solves it the
    same way. Raises ValueError for an unknown notion or form. Size O(L) (ladder) or
    O(Σ|list|²) (rows).
    """
    from ortools.sat.python import cp_model

    _check_args(notion, form)
    ints = market.ints
    sa, sb = ints.a, ints.b
    na, nb = sa.names, sb.names
    model = cp_model.CpModel()
    new_bool = model.new_bool_var
    pairs = [(i, j) for i, lst in enumerate(sa.lists) for j in lst]
    xs = [new_bool(f"x[{na[i]},{nb[j]}]") for i, j in pairs]
    # at most one partner per agent, agents in order of their first pair (A before B
    # within a pair), each agent's variables in pair order
    by_agent: dict[tuple[bool, int], list] = {}
    for (i, j), v in zip(pairs, xs):
        by_agent.setdefault((True, i), []).append(v)
        by_agent.setdefault((False, j), []).append(v)
    for vs in by_agent.values():
        if len(vs) > 1:
            model.add_at_most_one(vs)

    rows_a, rows_b = _rows(market)
    ends_a = list(map(_ends, sa.ties, sa.nties))
    ends_b = list(map(_ends, sb.ties, sb.nties))
    var = xs.__getitem__
    top_a: list[list] = []
    top_b: list[list] = []
    if form == "ladder":
        # top[agent][r] for r = 0..#ties; top[.][0] is the constant false.
        # The linear equality is exact because of AtMostOne; CP-SAT's presolve turns these
        # into affine relations and probes them (on random SMTI this fixes most pair
        # variables, much as the Gale–Shapley list reductions do).
        for names, rows, ends, top in ((na, rows_a, ends_a, top_a), (nb, rows_b, ends_b, top_b)):
            for agent, row, end in zip(names, rows, ends):
                ladder = [model.new_constant(0)]
                for r, tie in enumerate(_groups(row, end), 1):
                    t = new_bool(f"top[{agent},{r}]")
                    model.add(t == ladder[-1] + sum(map(var, tie)))
                    ladder.append(t)
                top.append(ladder)

    rank_a, rank_b = sa.rank, sb.rank
    clauses = _CLAUSES[notion]
    for k, (i, j) in enumerate(pairs):
        ra, rb = rank_a[i][j], rank_b[j][i]
        for ka, kb in clauses:
            la = ra if ka == "weak" else ra - 1
            lb = rb if kb == "weak" else rb - 1
            if form == "ladder":
                lits = [xs[k], top_a[i][la], top_b[j][lb]]
            else:
                lits = [xs[k]]
                lits += [xs[p] for p in rows_a[i][:ends_a[i][la]] if p != k]
                lits += [xs[p] for p in rows_b[j][:ends_b[j][lb]] if p != k]
            model.add_bool_or(lits)
    return model, dict(zip([(na[i], nb[j]) for i, j in pairs], xs))


def stable_matching_cpsat(market: Market, notion: str, *, time_limit: float, seed: int,
                          form: str = "ladder", workers: int | None = None) -> Outcome:
    """Find a ``notion``-stable matching of ``market`` with OR-tools CP-SAT, or prove none.

    ``notion`` ∈ {weak, strong, super}; ``time_limit`` in seconds (solve only, model building
    not included); ``seed``: CP-SAT ``random_seed``; ``form``: "ladder" or "rows" (module
    docstring); ``workers``: CP-SAT search workers (default: :func:`cpsat_workers`; 1 keeps runs reproducible).
    Returns ``Outcome("exists", solution={a: b}, certificate={"type": "stable_matching"})``,
    ``Outcome("none")`` when CP-SAT proves the model infeasible, ``Outcome("unknown")`` on
    timeout; ``stats`` holds the status, wall/build seconds, conflicts, branches and model
    size. Raises ValueError for an unknown notion/form, RuntimeError on MODEL_INVALID.
    NP-hard in general as a model; in practice fast (the notions are polynomial).
    Sources: Gent et al. 2001/2002; Kwanashie & Manlove 2014; Manlove 2013 §3.
    """
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    model, x = stable_matching_cpsat_model(market, notion, form=form)
    build = time.perf_counter() - t0
    solver = cpsat_solver(max(float(time_limit), 0.001), seed, workers)
    solver.parameters.symmetry_level = 0      # no useful symmetry; detection costs seconds
    status = solver.solve(model)
    stats = {"engine": "cpsat", "form": form, "status": solver.status_name(status),
             "build_seconds": round(build, 4), "wall_seconds": round(solver.wall_time, 4),
             "conflicts": solver.num_conflicts, "branches": solver.num_branches,
             "pair_vars": len(x)}
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        m = _matching_from({p: bool(solver.boolean_value(v)) for p, v in x.items()})
        return Outcome("exists", solution=m, certificate={"type": "stable_matching"}, stats=stats)
    if status == cp_model.INFEASIBLE:
        return Outcome("none", stats=stats)
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"CP-SAT rejected the model: {model.validate()}")
    return Outcome("unknown", stats=stats)


# ---------------------------------------------------------------------------- z3


def stable_matching_z3_model(market: Market, notion: str, *, form: str = "ladder"
                   ) -> tuple[str, list[tuple[str, str]]]:
    """Write the z3 model of ``notion``-stability as SMT-LIB 2 text, from the integer form
    of ``market`` (``market.ints``).

    Returns ``(text, pairs)``: ``text`` declares one Bool ``x<i>`` per admissible pair
    ``pairs[i]`` (agent names never reach the solver, so any name is safe), asserts at most
    one partner per agent as the pseudo-Boolean ``((_ at-most 1) ...)``, the ladder
    literals ``t<j>`` (form "ladder") as Boolean equivalences, and the stability clauses.
    Text is used rather than the Python expression API because z3's parser builds large
    models about ten times faster. The text is the one the former model built from the
    name-keyed orders wrote. Raises ValueError for an unknown notion or form.
    """
    _check_args(notion, form)
    ints = market.ints
    sa, sb = ints.a, ints.b
    na, nb = sa.names, sb.names
    pairs = [(i, j) for i, lst in enumerate(sa.lists) for j in lst]
    xid = [f"x{k}" for k in range(len(pairs))]
    out = [f"(declare-const {v} Bool)" for v in xid]
    rows_a, rows_b = _rows(market)
    var = xid.__getitem__
    for rows in (rows_a, rows_b):
        for row in rows:
            if len(row) > 1:
                out.append(f"(assert ((_ at-most 1) {' '.join(map(var, row))}))")

    ends_a = list(map(_ends, sa.ties, sa.nties))
    ends_b = list(map(_ends, sb.ties, sb.nties))
    top_a: list[list[str]] = []
    top_b: list[list[str]] = []
    if form == "ladder":
        n = 0
        for rows, ends, top in ((rows_a, ends_a, top_a), (rows_b, ends_b, top_b)):
            for row, end in zip(rows, ends):
                ladder = ["false"]
                for tie in _groups(row, end):
                    t = f"t{n}"
                    n += 1
                    out.append(f"(declare-const {t} Bool)")
                    body = " ".join([ladder[-1], *map(var, tie)])
                    out.append(f"(assert (= {t} (or {body})))")
                    ladder.append(t)
                top.append(ladder)

    rank_a, rank_b = sa.rank, sb.rank
    clauses = _CLAUSES[notion]
    for k, (i, j) in enumerate(pairs):
        ra, rb = rank_a[i][j], rank_b[j][i]
        for ka, kb in clauses:
            la = ra if ka == "weak" else ra - 1
            lb = rb if kb == "weak" else rb - 1
            if form == "ladder":
                lits = [xid[k], top_a[i][la], top_b[j][lb]]
            else:
                # The row's own variable may reappear in the prefixes: harmless.
                lits = [xid[k], *map(var, rows_a[i][:ends_a[i][la]]),
                        *map(var, rows_b[j][:ends_b[j][lb]])]
            out.append(f"(assert (or {' '.join(lits)}))")
    return "\n".join(out), [(na[i], nb[j]) for i, j in pairs]


def stable_matching_z3(market: Market, notion: str, *, time_limit: float, seed: int,
                       form: str = "ladder") -> Outcome:
    """Find a ``notion``-stable matching of ``market`` with z3, or prove none exists.

    ``time_limit`` in seconds (passed to z3 as ``timeout`` in ms; model building not
    included); ``seed``: z3 ``random_seed``; ``form`` as for :func:`stable_matching_cpsat`.
    The model goes to z3 as SMT-LIB text (:func:`stable_matching_z3_model`); a fresh ``z3.Context``
    per call. Returns ``exists`` with the matching and certificate
    ``{"type": "stable_matching"}``, ``none`` on ``unsat``, ``unknown`` on timeout or any
    other ``unknown`` reason (kept in ``stats["reason"]``). Raises ValueError for an
    unknown notion/form. Sources: Gent et al. 2002; Manlove 2013 §3.
    """
    import z3

    t0 = time.perf_counter()
    text, pairs = stable_matching_z3_model(market, notion, form=form)
    ctx = z3.Context()
    solver = z3.SolverFor("QF_FD", ctx=ctx)
    solver.set("timeout", max(1, int(float(time_limit) * 1000)))
    solver.set("random_seed", int(seed))
    solver.from_string(text)
    build = time.perf_counter() - t0
    t1 = time.perf_counter()
    res = solver.check()
    wall = time.perf_counter() - t1
    st = solver.statistics()
    keys = set(st.keys())
    stats = {"engine": "z3", "form": form, "status": str(res), "build_seconds": round(build, 4),
             "wall_seconds": round(wall, 4), "pair_vars": len(pairs),
             **{k: st.get_key_value(k) for k in ("conflicts", "decisions") if k in keys}}
    if res == z3.sat:
        mod = solver.model()
        true = {d.name() for d in mod.decls() if z3.is_true(mod[d])}
        m = _matching_from({p: f"x{i}" in true for i, p in enumerate(pairs)})
        return Outcome("exists", solution=m, certificate={"type": "stable_matching"}, stats=stats)
    if res == z3.unsat:
        return Outcome("none", stats=stats)
    stats["reason"] = solver.reason_unknown()
    return Outcome("unknown", stats=stats)
