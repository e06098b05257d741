"""CP-SAT encodings of the preference queries: "is there a completion in which the query
holds, and one in which it fails?" (determined ⇔ exactly one is satisfiable).

Model (per voter v): ``pos[v][x]`` ∈ [0, m−1], AllDifferent, and ``pos[v][a] < pos[v][b]``
for every base relation a ≻ b of the voter's datum, so solutions are exactly the
completions (linear extensions). Profile queries on winners give each voter of an agent
its own variables (``count`` copies); counting queries weight one copy by ``count`` (the
extremes are reached with all copies alike). Independent of :mod:`oracles`.
Every solve has a time limit and a fixed seed, one worker; a timeout gives ``unknown``.
"""
from __future__ import annotations

from collections.abc import Callable

from ortools.sat.python import cp_model

from ..formal.outcome import UNKNOWN, Outcome
from ..formal.preference import PreferenceModel
from . import cpsat_solver
from .rules import rule_encoding

MAX_AGGREGATED_VARS = 4000


class Timeout(Exception):
    pass


class _Run:
    """One solve budget (seconds) shared by the solves of a question."""

    def __init__(self, model: PreferenceModel, time_limit: float, seed: int):
        self.model, self.time_limit, self.seed = model, time_limit, seed
        self.solves = 0

    def solve(self, voters: list, build: Callable, objective: Callable | None = None,
              maximize: bool = False, distinct: bool = True):
        """voters: [(agent, weight)]. build(cp, pos) adds the query constraints;
        objective(cp, pos) -> linear expr. Returns (orders per voter, objective value) or
        None if infeasible; raises Timeout."""
        m, items = self.model.m, self.model.items
        cp = cp_model.CpModel()
        pos = []
        for i, (ag, _w) in enumerate(voters):
            p = {x: cp.new_int_var(0, m - 1, f"p{i}_{j}") for j, x in enumerate(items)}
            if distinct:
                cp.add_all_different(list(p.values()))
            for a, bs in ag.succ.items():
                for b in bs:
                    cp.add(p[a] < p[b])
            pos.append(p)
        build(cp, pos)
        if objective is not None:
            expr = objective(cp, pos)
            (cp.maximize if maximize else cp.minimize)(expr)
        solver = cpsat_solver(max(0.01, self.time_limit), self.seed)
        st = solver.solve(cp)
        self.solves += 1
        if st == cp_model.INFEASIBLE:
            return None
        if st != cp_model.OPTIMAL and (objective is not None or st != cp_model.FEASIBLE):
            raise Timeout()
        orders = [sorted(items, key=lambda x: solver.value(p[x])) for p in pos]
        # (without AllDifferent, items with equal values are unrelated, so any tie-break
        # of the sorted values is a linear extension)
        val = round(solver.objective_value) if objective is not None else None
        return orders, val


def _lt(cp, p, a, b):
    """Boolean ⇔ pos[a] < pos[b]."""
    v = cp.new_bool_var("")
    cp.add(p[a] < p[b]).only_enforce_if(v)
    cp.add(p[a] > p[b]).only_enforce_if(~v)
    return v


def _single(run: _Run, question: str, params: dict) -> Outcome:
    """Single-agent queries. One voter, times ``t[x]`` ∈ [0, m−1] with t[a] < t[b] for each
    base relation and NO AllDifferent (a permutation constraint makes CP-SAT's presolve
    blow up on 100+ items): sorting by t is a linear extension, and the position of x is
    1 + Σ_y [t[y] < t[x]] once t[x] is made distinct from every t[y] (Booleans per pair
    with x). Items whose relative order matters are made pairwise distinct."""
    model = run.model
    ag = model.agent(params["agent"])
    voters = [(ag, 1)]

    def feas(build):
        r = run.solve(voters, lambda cp, pos: build(cp, pos[0]), distinct=False)
        return None if r is None else r[0][0]

    def opt(build, expr, maximize):
        return run.solve(voters, lambda cp, pos: build(cp, pos[0]),
                         lambda cp, pos: expr(cp, pos[0]), maximize, distinct=False)

    def three(holds, fails):
        h, f = feas(holds), feas(fails)
        if h is None and f is None:
            raise AssertionError("no completion at all")
        if f is None:
            return Outcome("true", None, None)
        if h is None:
            return Outcome("false", None, None)
        return Outcome("undetermined", None, {"type": "completions", "orders": [h, f]})

    def none(cp, p):
        return None

    if question == "compare":
        a, b = params["items"]
        return three(lambda cp, p: cp.add(p[a] < p[b]), lambda cp, p: cp.add(p[a] > p[b]))
    if question == "topk":
        x, k = params["item"], params["k"]
        return three(lambda cp, p: cp.add(_rank(cp, p, x) <= k - 1),
                     lambda cp, p: cp.add(_rank(cp, p, x) >= k))
    if question == "position":
        x, q = params["item"], params.get("position")
        if q is not None:
            return three(lambda cp, p: cp.add(_rank(cp, p, x) == q - 1),
                         lambda cp, p: cp.add(_rank(cp, p, x) != q - 1))
        lo = opt(none, lambda cp, p: _rank(cp, p, x), False)[1] + 1
        hi = opt(none, lambda cp, p: _rank(cp, p, x), True)[1] + 1
        if lo == hi:
            return Outcome("determined", {"value": lo}, None)
        return Outcome("undetermined", {"min": lo, "max": hi}, None)
    if question == "kth":
        k = params["k"]
        x = feas(none)[k - 1]
        other = feas(lambda cp, p: cp.add(_rank(cp, p, x) != k - 1))
        if other is None:
            return Outcome("determined", {"value": x}, None)
        return Outcome("undetermined", None, {"type": "completions", "orders": [
            feas(lambda cp, p: cp.add(_rank(cp, p, x) == k - 1)), other]})
    if question == "rank_set":
        idx = {x: i for i, x in enumerate(model.items)}
        S = sorted(dict.fromkeys(params["items"]), key=idx.__getitem__)

        def dist(cp, p):
            if len(S) > 1:
                cp.add_all_different([p[x] for x in S])
        first = feas(dist)
        seq = sorted(S, key=first.index)

        def flip(cp, p):
            dist(cp, p)
            cp.add_bool_or([_lt(cp, p, y, x) for x, y in zip(seq, seq[1:])])
        other = feas(flip) if len(seq) > 1 else None
        if other is None:
            return Outcome("determined", {"value": seq}, None)
        pairs = [[x, y] for x in S for y in S if x != y
                 and feas(lambda cp, p, x=x, y=y: cp.add(p[y] < p[x])) is None]
        return Outcome("undetermined", {"pairs": pairs}, None)
    if question == "topk_list":
        k = params["k"]
        first = feas(none)
        T = first[:k]
        other = feas(lambda cp, p: cp.add_bool_or([_ge(cp, _rank(cp, p, x), k) for x in T]))
        if other is None:
            return Outcome("determined", {"value": sorted(T)}, None)
        nec = sorted(x for x in model.items
                     if feas(lambda cp, p, x=x: cp.add(_rank(cp, p, x) >= k)) is None)
        pos_ = sorted(x for x in model.items
                      if feas(lambda cp, p, x=x: cp.add(_rank(cp, p, x) <= k - 1)) is not None)
        return Outcome("undetermined", {"necessary": nec, "possible": pos_},
                       {"type": "completions", "orders": [first, other]})
    if question == "rs":
        A, B = set(params["bundles"][0]), set(params["bundles"][1])
        if model.conventions.get("rs") == "equal_size" and len(A) != len(B):
            return Outcome("false", None, None)           # unrelated bundles
        A2, B2 = sorted(A - B), sorted(B - A)

        def conds(cp, p):
            if len(A2) + len(B2) > 1:
                cp.add_all_different([p[x] for x in A2 + B2])
            out = []
            for y in B2:
                good = sum(_lt(cp, p, x, y) for x in A2)
                bad = 1 + sum(_lt(cp, p, z, y) for z in B2 if z != y)
                v = cp.new_bool_var("")
                cp.add(good >= bad).only_enforce_if(v)
                cp.add(good < bad).only_enforce_if(~v)
                out.append(v)
            return out

        def holds(cp, p):
            for v in conds(cp, p):
                cp.add(v == 1)

        def fails(cp, p):
            cs = conds(cp, p)
            if cs:
                cp.add_bool_or([~v for v in cs])
            else:
                cp.add(p[model.items[0]] < 0)   # A ⪰ B holds in every order: no failure
        return three(holds, fails)
    raise ValueError(f"unknown question {question!r}")


def _rank(cp, p, x):
    """0-based position of x: Σ_y [t[y] < t[x]], with t[y] ≠ t[x] for every y ≠ x."""
    return sum(_lt(cp, p, y, x) for y in p if y != x)


def _ge(cp, var, k):
    v = cp.new_bool_var("")
    cp.add(var >= k).only_enforce_if(v)
    cp.add(var < k).only_enforce_if(~v)
    return v


def _spec(model: PreferenceModel, voters: list, orders: list) -> dict:
    keys, index, assign = [], {}, {}
    for (ag, w), o in zip(voters, orders):
        t = tuple(o)
        if t not in index:
            index[t] = len(keys)
            keys.append(list(o))
        assign.setdefault(ag.name, []).append([index[t], w])
    return {"keys": keys, "assign": assign}


def _profile(run: _Run, question: str, params: dict) -> Outcome:
    model = run.model
    if question in ("count", "majority"):
        a, b = params["items"]
        voters = [(ag, ag.count) for ag in model.agents]

        def n(cp, pos):
            return sum(w * _lt(cp, p, a, b) for (_, w), p in zip(voters, pos))
        # times without AllDifferent (as for single-agent queries): only a vs b matters
        rmin = run.solve(voters, lambda cp, pos: None, n, distinct=False)
        rmax = run.solve(voters, lambda cp, pos: None, n, True, distinct=False)
        lo, hi = rmin[1], rmax[1]
        wit = {"min": _spec(model, voters, rmin[0]), "max": _spec(model, voters, rmax[0])}
        if question == "count":
            if lo == hi or model.conventions.get("pair_count") == "stated":
                return Outcome("determined", {"value": lo}, None)
            return Outcome("undetermined", {"min": lo, "max": hi},
                           {"type": "bounds", "witnesses": wit})
        V = model.voters
        if model.conventions.get("majority") == "ranked":
            # abstentions: for = voters forced a ≻ b (the min), against = V − max
            return Outcome("true" if lo > V - hi else "false", {"min": lo, "max": hi}, None)
        h = run.solve(voters, lambda cp, pos: cp.add(2 * n(cp, pos) > V), distinct=False)
        f = run.solve(voters, lambda cp, pos: cp.add(2 * n(cp, pos) <= V), distinct=False)
        verdict = "true" if f is None else "false" if h is None else "undetermined"
        return Outcome(verdict, {"min": lo, "max": hi},
                       {"type": "bounds", "witnesses": wit} if verdict == "undetermined" else None)
    if question == "winner":
        enc, c = rule_encoding(params["rule"]), params["item"]
        # one position vector per voter, or per agent weighted by its count when its
        # voters complete alike (counts = identical); copies per voter only up to a bound
        # (a count is a number in the input: it must not decide the memory)
        if not model.identical and model.voters > MAX_VOTER_COPIES:
            raise TooLarge(f"{model.voters} voters to copy (at most {MAX_VOTER_COPIES})")
        voters = [(ag, ag.count) for ag in model.agents] if model.identical else \
            [(ag, 1) for ag in model.agents for _ in range(ag.count)]
        weights = [w for _, w in voters]
        items = model.items

        def score_exprs(cp, pos):
            """The rule encoding's score of every item (:mod:`prefcert.encodings.rules`)."""
            return enc.score_exprs(cp, pos, weights, items, _lt, _ge)

        def wins(cp, pos):
            s = score_exprs(cp, pos)
            for d in items:
                if d != c:
                    cp.add(s[c] >= s[d])

        def loses(cp, pos):
            s = score_exprs(cp, pos)
            bs = []
            for d in items:
                if d != c:
                    v = cp.new_bool_var("")
                    cp.add(s[d] > s[c]).only_enforce_if(v)
                    bs.append(v)
            cp.add_bool_or(bs)
        h = run.solve(voters, wins)
        f = run.solve(voters, loses) if len(items) > 1 else None
        if f is None:
            return Outcome("true", None, None)
        if h is None:
            return Outcome("false", None, None)
        return Outcome("undetermined", None, {"type": "completions", "witnesses": {
            "win": _spec(model, voters, h[0]), "lose": _spec(model, voters, f[0])}})
    raise ValueError(f"unknown question {question!r}")


def query_cpsat(model: PreferenceModel, question: str, params: dict, *, time_limit: float = 10.0,
                seed: int = 0) -> Outcome:
    """Answer any preference query with CP-SAT (see module docstring). The certificate is
    given where it is self-contained (completions witnessing ``undetermined``); determined
    answers carry none (the oracle's proof is checked instead)."""
    run = _Run(model, time_limit, seed)
    try:
        if question in ("count", "majority", "winner"):
            out = _profile(run, question, params)
        else:
            out = _single(run, question, params)
    except Timeout:
        return Outcome(UNKNOWN, None, None, {"solves": run.solves, "reason": "time limit"})
    except TooLarge as e:
        return Outcome(UNKNOWN, None, None, {"solves": run.solves, "reason": str(e)})
    return Outcome(out.verdict, out.solution, out.certificate, {"solves": run.solves})


#: voters the per-voter winner encoding copies at most (beyond, it gives up: ``cpsat_agg``
#: aggregates voters instead)
MAX_VOTER_COPIES = 10_000


class TooLarge(Exception):
    """The encoding would be larger than its bound: the engine gives up (``unknown``)."""


# --------------------------------------------------------------------------- aggregated

def _groups(model: PreferenceModel, ag) -> list:
    """The agent's tie groups over all items (truncated bottom group included)."""
    ties = [list(t) for t in ag.order.ties]
    rest = [x for x in model.items if x not in ag.order.rank]
    if rest:
        ties.append(rest)
    return ties


def _plain(model: PreferenceModel) -> bool:
    """Every agent gives a weak order over all items (the integer form's ``plain``)."""
    return all(model.ints.plain)


def _birkhoff(mat: dict, group: list, total: int) -> list:
    """Decompose an integer matrix (item, slot) -> voters with every row and column summing
    to ``total`` into [(permutation of group, multiplicity)] (Birkhoff–von Neumann; each
    step a perfect matching of the support, Hopcroft–Karp)."""
    import networkx as nx
    mat = {k: v for k, v in mat.items() if v}
    out = []
    size = len(group)
    row = {x: i for i, x in enumerate(group)}
    left = list(range(size))     # items 0.., slots size..: small ints iterate alike under
    while total:                 # every hash seed, so the witness is reproducible
        g = nx.Graph()
        g.add_nodes_from(range(2 * size))
        g.add_edges_from(sorted((row[x], size + s) for (x, s) in mat))
        M = nx.bipartite.hopcroft_karp_matching(g, top_nodes=left)
        perm = [None] * len(group)
        for x in group:
            perm[M[row[x]] - size] = x
        k = min(mat[x, s] for s, x in enumerate(perm))
        for s, x in enumerate(perm):
            mat[x, s] -= k
            if not mat[x, s]:
                del mat[x, s]
        out.append((perm, k))
        total -= k
    return out


def winner_aggregated_cpsat(model: PreferenceModel, params: dict, *, time_limit: float = 10.0,
                            seed: int = 0) -> Outcome:
    """Possible/necessary plurality or Borda co-winner for profiles of weak orders over all
    items (complete or truncated), with voters aggregated per tie group.

    A completion breaks every tie group independently; the voters sharing a group set G
    (N of them, across agents) contribute an integer matrix x[item][slot] with every row
    and column summing to N, and every such matrix is a sum of N permutations
    (Birkhoff–von Neumann), so the aggregation is exact. Variables: Σ_G |G|² (Borda) or
    Σ_G |G| (plurality). Witness completions are rebuilt by Birkhoff decomposition.
    ``unknown`` for other rules or data (derived; checked against brute force in tests).
    The rule encoding's ``aggregation`` says which groups count: ``top`` (plurality: the
    top group only) or ``positional`` (Borda: every group, by slot)."""
    c = params["item"]
    aggregation = rule_encoding(params["rule"]).aggregation
    top_only = aggregation == "top"
    if aggregation is None or not _plain(model):
        return Outcome(UNKNOWN, None, None, {"reason": "aggregation needs weak orders"})
    if model.identical:      # pooled voters complete independently by construction
        return Outcome(UNKNOWN, None, None, {"reason": "aggregation needs counts = independent"})
    items, m = model.items, model.m
    pool: dict = {}          # group (tuple) -> total voters
    base = {x: 0 for x in items}
    for ag in model.agents:
        below = m
        for j, G in enumerate(_groups(model, ag)):
            below -= len(G)
            if top_only:
                if len(G) == 1:
                    base[G[0]] += ag.count
                else:
                    pool[tuple(G)] = pool.get(tuple(G), 0) + ag.count
                break
            for x in G:
                base[x] += ag.count * below
            if len(G) > 1:
                pool[tuple(sorted(G))] = pool.get(tuple(sorted(G)), 0) + ag.count

    size = sum(len(G) ** (1 if top_only else 2) for G in pool)
    if size > MAX_AGGREGATED_VARS:
        return Outcome(UNKNOWN, None, None, {"reason": f"{size} aggregated variables"})

    def build(cp, wins: bool):
        var = {}
        score = {x: base[x] for x in items}
        for G, N in pool.items():
            if top_only:
                vs = {x: cp.new_int_var(0, N, "") for x in G}
                cp.add(sum(vs.values()) == N)
                for x in G:
                    score[x] = score[x] + vs[x]
                var[G] = vs
                continue
            k = len(G)
            vs = {(x, s): cp.new_int_var(0, N, "") for x in G for s in range(k)}
            for x in G:
                cp.add(sum(vs[x, s] for s in range(k)) == N)
            for s in range(k):
                cp.add(sum(vs[x, s] for x in G) == N)
            for x in G:
                score[x] = score[x] + sum((k - 1 - s) * vs[x, s] for s in range(k))
            var[G] = vs
        if wins:
            for d in items:
                if d != c:
                    cp.add(score[c] >= score[d])
        else:
            bs = []
            for d in items:
                if d != c:
                    b = cp.new_bool_var("")
                    cp.add(score[d] > score[c]).only_enforce_if(b)
                    bs.append(b)
            cp.add_bool_or(bs)
        return var

    def solve(wins: bool):
        cp = cp_model.CpModel()
        var = build(cp, wins)
        solver = cpsat_solver(max(0.01, time_limit), seed)
        st = solver.solve(cp)
        if st == cp_model.INFEASIBLE:
            return None
        if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            raise Timeout()
        return {G: {k: solver.value(v) for k, v in vs.items()} for G, vs in var.items()}

    def witness(sol) -> dict:
        # per group set: list of (tie-breaking, voters) segments, handed out in agent order
        segs = {}
        for G, N in pool.items():
            if top_only:
                segs[G] = [([x], n) for x, n in sol[G].items() if n]
            else:
                segs[G] = _birkhoff(sol[G], list(G), N)
        keys, index, assign = [], {}, {}
        for ag in model.agents:
            groups = _groups(model, ag)
            if top_only:
                groups = groups[:1]
            parts = []       # per group: list of (perm, n) for this agent's voters
            for G in groups:
                key = tuple(G) if top_only else tuple(sorted(G))
                if len(G) == 1:
                    parts.append([(list(G), ag.count)])
                    continue
                need, mine, lst = ag.count, [], segs[key]
                while need:
                    perm, n = lst[0]
                    t = min(n, need)
                    mine.append((perm, t))
                    need -= t
                    if t == n:
                        lst.pop(0)
                    else:
                        lst[0] = (perm, n - t)
                parts.append(mine)
            ptr = [0] * len(parts)
            left = [p[0][1] for p in parts]
            done = 0
            while done < ag.count:
                t = min(left)
                order = [x for p, i in zip(parts, ptr) for x in p[i][0]]
                order += [x for x in items if x not in order]
                tk = tuple(order)
                if tk not in index:
                    index[tk] = len(keys)
                    keys.append(order)
                assign.setdefault(ag.name, []).append([index[tk], t])
                done += t
                for g in range(len(parts)):
                    left[g] -= t
                    if left[g] == 0 and ptr[g] + 1 < len(parts[g]):
                        ptr[g] += 1
                        left[g] = parts[g][ptr[g]][1]
        return {"keys": keys, "assign": assign}

    try:
        h = solve(True)
        f = solve(False) if m > 1 else None
    except Timeout:
        return Outcome(UNKNOWN, None, None, {"reason": "time limit"})
    if f is None:
        return Outcome("true", None, None)
    if h is None:
        return Outcome("false", None, None)
    return Outcome("undetermined", None, {"type": "completions",
                                          "witnesses": {"win": witness(h), "lose": witness(f)}})
