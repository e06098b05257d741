"""CP-SAT models of decision tasks: "an action accepted in every world" and "a minimum-edit
repair" (the declarative cross-check of :mod:`prefcert.oracles.decision`).

Variables: one Boolean per item (single-choice structures, exactly one chosen) or per
agent-item pair (allocation and stable matching, a perfect matching). A stated constraint
fixes one variable (a forbidden / forced pair, an unavailable slot) or the items above a
threshold to 0; in the repair model each permitted constraint is enforced only while its
edit literal is false. Stable matchings add, per world, the stability cut
``x_ab + Σ_{b' ≻_a b} x_ab' + Σ_{a' ≻_b a} x_a'b ≥ 1`` for every pair (Vande Vate 1989;
Rothblum 1992), posted as a clause over those Booleans.

Objectives are linear integer costs — utilitarian and stable-matching sums of ranks;
rank-maximal and leximin as weights in base n + 1 — or a bottleneck variable bounded by
every chosen rank (egalitarian allocation, minimum regret). Each world's optimum is
solved first; the joint model then asks for one action that reaches every world's
optimum (``value_w(x) ≤ opt_w``). The repair model minimises the number of edits; every
minimum edit set is enumerated with no-good cuts, and for thresholds the tight values are
the Pareto-minimal attribute vectors of the apartments left feasible.

CP-SAT answers each task's decisive question: the joint shared-action model (preference
and objective sources), the optimum under the stated constraints and the minimum-edit
model (constraint source), and every world optimum of allocation and stable matching.
Where one of those world optima already meets every world's optimum (and, in a stable
matching, every world's stability cuts), it is the shared action the joint model asks
for, and the joint model is not solved (:func:`_solved_witness`: an evaluation of
CP-SAT's own optima; the joint model still proves that no action is shared).
Where a question is a scan of at most n items — a world's optimum of a single-choice
structure (scheduling, apartment) under a preference or objective source, or after a
repair, and the apartments a threshold edit leaves feasible (the tight vectors) — this
engine scans the items itself instead (its own copy of the item costs: the same optimum
value the one-hot model reaches, O(#agents · #items)). World optima are kept per process
by everything they read (:func:`_optimum_key`): the members of a matched pair share
worlds, and a shared world is solved once.

Not trusted: the application checks every action found here against the oracle's
certificate. The weights and values below are this engine's own copies.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ortools.sat.python import cp_model

from ..formal.decision import (
    INTERVENTION,
    ConstraintSet,
    DecisionTask,
    World,
    stated,
    world_ranks,
)
from ..formal.outcome import Outcome
from . import cpsat_solver


class _Timeout(Exception):
    pass


#: flat linear sums (``sum()`` of n terms builds n nested expressions in Python)
_Sum = cp_model.LinearExpr


class _Model(cp_model.CpModel):
    """A CP-SAT model without the per-instance CamelCase aliases ``CpModel.__init__``
    attaches (a ``dir()`` scan and a wrapper per method, about 0.4 ms a model: most of a
    small decision model's cost). This module calls the snake_case methods only."""

    def _add_pre_pep8_methods(self) -> None:
        pass


def _ranks(task: DecisionTask, world: World) -> tuple[tuple[int, ...], ...]:
    """Per ranking party (agents ``0..n-1``, then in a stable matching item ``j`` as
    ``n + j``) its 1-based ranks of the other side's ints: the world's rank arrays
    (:func:`~prefcert.formal.decision.world_ranks`). O(size) the first time per world."""
    return world_ranks(task, world)[1]


def _pairs(task: DecisionTask, action: Mapping[str, str]) -> list[tuple[int, int]]:
    """A JSON assignment as (agent int, item int) pairs, in its own order."""
    ints = task.ints()
    ai, ii = ints.agent_index, ints.item_index
    return [(ai[a], ii[i]) for a, i in action.items()]


#: (structure, agents, items) -> (the model of the actions alone, variable key -> index)
_BASES: dict[tuple[Any, ...], tuple[cp_model.CpModel, dict[Any, int]]] = {}
_BASES_MAX = 256


def _base(task: DecisionTask) -> tuple[cp_model.CpModel, dict[Any, int]]:
    """The model of a task's actions before any constraint (its Booleans and exactly-one
    constraints, built in the order :class:`_Builder` always built them), kept per
    process by the structure and the names: every builder starts from a copy of it, the
    same model proto as building it afresh. O(#agents · #items) the first time."""
    key = (task.structure in ("scheduling", "apartment"), task.agents, task.items)
    got = _BASES.get(key)
    if got is None:
        m = _Model()
        if key[0]:
            y = {i: m.new_bool_var(f"y_{i}") for i in task.items}
            m.add_exactly_one(y.values())
            idx: dict[Any, int] = {i: v.index for i, v in y.items()}
        else:
            x = {(a, i): m.new_bool_var(f"x_{a}_{i}") for a in task.agents
                 for i in task.items}
            for a in task.agents:
                m.add_exactly_one(x[(a, i)] for i in task.items)
            for i in task.items:
                m.add_exactly_one(x[(a, i)] for a in task.agents)
            idx = {k: v.index for k, v in x.items()}
        if len(_BASES) >= _BASES_MAX:
            _BASES.clear()
        got = _BASES[key] = (m, idx)
    return got


def _value(task: DecisionTask, world: World, action: Any) -> Any:
    """JSON value of an action in a world (this engine's copy of the definitions)."""
    rk = _ranks(task, world)
    obj = world.objective
    if task.structure == "stable_matching":
        n = len(task.agents)
        pairs = _pairs(task, action)
        if obj == "a_optimal":
            return sum(rk[a][b] for a, b in pairs)
        if obj == "b_optimal":
            return sum(rk[n + b][a] for a, b in pairs)
        if obj == "egalitarian":
            return sum(rk[a][b] + rk[n + b][a] for a, b in pairs)
        return max(max(rk[a][b], rk[n + b][a]) for a, b in pairs)
    if isinstance(action, str):
        i = task.ints().item_index[action]
        ranks = [rk[a][i] for a in range(len(task.agents))]
    else:
        ranks = [rk[a][i] for a, i in _pairs(task, action)]
    if obj == "utilitarian":
        return sum(ranks)
    if obj == "egalitarian":
        return max(ranks)
    counts = [0] * max(len(task.items), len(task.agents))
    for r in ranks:
        counts[r - 1] += 1
    return counts if obj == "rank_maximal" else counts[::-1]


class _Builder:
    """One CP-SAT model over a task's actions."""

    def __init__(self, task: DecisionTask):
        self.task = task
        self.m = _Model()
        base, idx = _base(task)
        self.m.proto.copy_from(base.proto)           # the action variables, built once
        self.m.rebuild_constant_map()
        proto = self.m.model_proto
        keys = list(idx)                              # in variable index order
        #: the action variables in index order: y_i at i; x_(a, i) at a · m + i
        self.vs = [cp_model.IntVar(proto, j) for j in range(len(keys))]
        vars_ = dict(zip(keys, self.vs))
        if task.structure in ("scheduling", "apartment"):
            self.y = vars_
        else:
            self.x = vars_

    def rows(self) -> list[list[Any]]:
        """Allocation, stable matching: per agent its row of x variables, in item order."""
        m = len(self.task.items)
        return [self.vs[k:k + m] for k in range(0, len(self.vs), m)]

    def constraints(self, cs: ConstraintSet, relax: Mapping[str, Any] | None = None) -> None:
        relax = relax or {}
        t = self.task
        for c in cs:
            fixes = []
            if c.type == "unavailable":
                fixes = [(self.y[c.item], 0)]
            elif c.type == "max":
                fixes = [(self.y[i], 0) for i in t.items
                         if t.attributes[i][c.attribute] > c.value]
            elif c.type in ("forbid", "forbidden"):
                fixes = [(self.x[(c.agent, c.item)], 0)]
            else:                                              # require / forced
                fixes = [(self.x[(c.agent, c.item)], 1)]
            for var, val in fixes:
                ct = self.m.add(var == val)
                if c.id in relax:
                    ct.only_enforce_if(relax[c.id].Not())

    def stability(self, world: World) -> None:
        rk = _ranks(self.task, world)
        n = len(self.task.agents)
        xm = self.rows()
        ra_all, rb_all = rk[:n], rk[n:]
        # per item its column of Booleans, in agent order
        cols = [[row[b] for row in xm] for b in range(len(rb_all))]
        add = self.m.add_bool_or
        for a, (row, ra) in enumerate(zip(xm, ra_all)):
            for b, (rab, col, rkb) in enumerate(zip(ra, cols, rb_all)):
                rba = rkb[a]
                # a clause: x_ab, then the better items of a (item order), then the
                # better agents of b (agent order): the Booleans sum to >= 1
                add([row[b]] + [v for v, r in zip(row, ra) if r < rab]
                    + [v for v, r in zip(col, rkb) if r < rba])

    def cost(self, world: World):
        """A linear expression to minimise for the world's objective."""
        t, obj, rk = self.task, world.objective, _ranks(self.task, world)
        n = len(t.agents)
        base, r = n + 1, len(t.items)
        if t.structure in ("scheduling", "apartment"):
            return _Sum.weighted_sum(self.vs, _item_costs(t, world))
        xm = self.rows()
        if t.structure == "allocation":
            if obj == "egalitarian":
                z = self.m.new_int_var(1, r, "worst")
                for row, ra in zip(xm, rk):
                    self.m.add(z >= _Sum.weighted_sum(row, list(ra)))
                return z
            w = {"utilitarian": lambda k: k, "rank_maximal": lambda k: -(base ** (r - k)),
                 "leximin": lambda k: base ** (k - 1)}[obj]
            return _Sum.weighted_sum(self.vs, [w(k) for ra in rk[:n] for k in ra])
        rb = rk[n:]
        if obj == "minimum_regret":
            z = self.m.new_int_var(1, r, "regret")
            for a, row in enumerate(xm):
                ra = rk[a]
                self.m.add(z >= _Sum.weighted_sum(row, [max(ra[b], rb[b][a])
                                                        for b in range(r)]))
            return z
        if obj == "a_optimal":
            coeffs = [k for ra in rk[:n] for k in ra]
        elif obj == "b_optimal":
            coeffs = [rb[b][a] for a in range(n) for b in range(r)]
        else:
            coeffs = [rk[a][b] + rb[b][a] for a in range(n) for b in range(r)]
        return _Sum.weighted_sum(self.vs, coeffs)

    def solve(self, time_limit: float, seed: int, minimize=None):
        if minimize is not None:
            self.m.minimize(minimize)
        s = cpsat_solver(time_limit, seed, 1)
        # the models are a few dozen Booleans: presolve costs more than the search (about
        # 2.5x a solve at n = 6) and changes no optimum, infeasibility or enumeration
        s.parameters.cp_model_presolve = False
        s.parameters.cp_model_probing_level = 0
        s.parameters.symmetry_level = 0
        st = s.solve(self.m)
        if st == cp_model.INFEASIBLE:
            return None
        if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE) or \
                (minimize is not None and st != cp_model.OPTIMAL):
            raise _Timeout
        return s

    def action(self, s) -> Any:
        t = self.task
        if t.structure in ("scheduling", "apartment"):
            return next(i for i, v in self.y.items() if s.value(v))
        return {a: i for (a, i), v in sorted(self.x.items()) if s.value(v)}


def _accept_all(task: DecisionTask) -> bool:
    return task.source == "constraint" and task.reading["constraint_acceptance"] == "feasible"


def _item_costs(task: DecisionTask, world: World) -> list[int]:
    """Single-choice structures: per item (in order) the linear cost of choosing it in
    ``world``, the coefficient of ``y_i`` in :meth:`_Builder.cost`. Kept on the world with
    the names it was computed for (this engine's cache). O(#agents · #items) the first
    time, then O(1)."""
    names = (task.agents, task.items)
    got = world.__dict__.get("_cpsat_item_costs")
    if got is None or got[0] != names:
        rk, obj = _ranks(task, world)[:len(task.agents)], world.objective
        base, r = len(task.agents) + 1, len(task.items)
        costs = []
        for x in range(r):
            ranks = [ra[x] for ra in rk]
            if obj == "utilitarian":
                costs.append(sum(ranks))
            elif obj == "egalitarian":
                costs.append(max(ranks))
            elif obj == "rank_maximal":
                costs.append(-sum(base ** (r - k) for k in ranks))
            else:
                costs.append(sum(base ** (k - 1) for k in ranks))
        got = (names, costs)
        object.__setattr__(world, "_cpsat_item_costs", got)     # a cache, not a field
    return got[1]


def _open_items(task: DecisionTask, cs: ConstraintSet | None) -> list[str]:
    """Single-choice structures: the items no constraint of ``cs`` excludes (the variables
    :meth:`_Builder.constraints` leaves free), in item order."""
    shut: set[str] = set()
    for c in cs or ():
        if c.type == "unavailable":
            shut.add(c.item)
        elif c.type == "max":
            shut.update(i for i in task.items if task.attributes[i][c.attribute] > c.value)
    return [i for i in task.items if i not in shut]


def _scan_optimum(task: DecisionTask, world: World, cs: ConstraintSet | None,
                  accept_all: bool):
    """:func:`_world_optimum` of a single-choice structure by scanning its items: the
    minimum of the one-hot model's linear cost over the open items. O(#agents · #items)."""
    items = _open_items(task, cs)
    if not items:
        return None
    if accept_all:
        return None, items[0]
    every, ii = _item_costs(task, world), task.ints().item_index
    costs = [(every[ii[i]], k) for k, i in enumerate(items)]
    best = min(costs)
    return best[0], items[best[1]]


def _lists(world: World) -> tuple[Any, ...]:
    """The world's lists as a hashable tuple, built once per world and kept on it."""
    found: tuple[Any, ...] | None = world.__dict__.get("_cpsat_lists")
    if found is None:
        found = tuple(world.prefs.items())
        object.__setattr__(world, "_cpsat_lists", found)         # a cache, not a field
    return found


#: world optima by :func:`_optimum_key`, per process (bounded: cleared when full)
_OPTIMA: dict[tuple, Any] = {}
_OPTIMA_MAX = 4096


def _optimum_key(task: DecisionTask, world: World, cs: ConstraintSet | None,
                 accept_all: bool) -> tuple:
    """Everything :func:`_world_optimum` reads: the structure, the names, the attributes,
    the world's complete lists and objective, the constraints in force and the reading.
    O(size)."""
    return (task.structure, task.agents, task.items,
            tuple((i, tuple(sorted(a.items()))) for i, a in task.attributes.items()),
            _lists(world), world.objective,
            None if cs is None else tuple(cs), accept_all)


def _world_optimum(task: DecisionTask, world: World, cs: ConstraintSet | None,
                   time_limit: float, seed: int, accept_all: bool | None = None,
                   scan: bool = False):
    """(optimal cost, an optimal action) of ``world`` under ``cs`` (None: no constraints),
    or None when infeasible; ``accept_all`` (default: the task's reading): any feasible
    action, cost None. ``scan``: a single-choice structure's optimum by scanning its items
    (:func:`_scan_optimum`) instead of a CP-SAT solve. Kept per process by
    :func:`_optimum_key` (the same optimum, whichever task asks)."""
    every = _accept_all(task) if accept_all is None else accept_all
    key = _optimum_key(task, world, cs, every)
    if key in _OPTIMA:
        return _OPTIMA[key]
    if scan and task.structure in ("scheduling", "apartment"):
        got = _scan_optimum(task, world, cs, every)
    else:
        got = _solve_optimum(task, world, cs, time_limit, seed, every)
    if len(_OPTIMA) >= _OPTIMA_MAX:
        _OPTIMA.clear()
    _OPTIMA[key] = got
    return got


def _solve_optimum(task: DecisionTask, world: World, cs: ConstraintSet | None,
                   time_limit: float, seed: int, every: bool):
    b = _Builder(task)
    if cs is not None:
        b.constraints(cs)
    if task.structure == "stable_matching":
        b.stability(world)
    if every:
        s = b.solve(time_limit, seed)
        return None if s is None else (None, b.action(s))
    expr = b.cost(world)
    s = b.solve(time_limit, seed, expr)
    if s is None:
        return None
    return round(s.objective_value), b.action(s)


def _da_only(task: DecisionTask) -> bool:
    return task.structure == "stable_matching" and \
        task.reading["matching_constraints"] == "da_only"


def _post_world(b: _Builder, task: DecisionTask, world: World, bound) -> None:
    if task.structure == "stable_matching":
        b.stability(world)
    if bound is not None:
        b.m.add(b.cost(world) <= bound)


def _opt(task, world, cs, time_limit, seed, scan: bool = False):
    """The bound an accepted action must meet in ``world``: the optimum under ``cs``
    (``da_only``: the unconstrained optimum). None: infeasible; (None, _) accept all.
    ``scan``: see :func:`_world_optimum`."""
    if _da_only(task):
        got = _world_optimum(task, world, None, time_limit, seed, accept_all=False)
        if got is None:
            return None
        b = _Builder(task)
        b.constraints(cs)
        _post_world(b, task, world, got[0])
        s = b.solve(time_limit, seed)
        return None if s is None else (got[0], b.action(s))
    return _world_optimum(task, world, cs, time_limit, seed, scan=scan)


def shared_action(task: DecisionTask, worlds: Sequence[World], cs: ConstraintSet,
                  bounds: Sequence[int | None], time_limit: float, seed: int) -> Any:
    """An action meeting every world's bound under ``cs``, or None."""
    b = _Builder(task)
    b.constraints(cs)
    for w, bound in zip(worlds, bounds):
        _post_world(b, task, w, bound)
    s = b.solve(time_limit, seed)
    return None if s is None else b.action(s)


def _cost_at(task: DecisionTask, world: World, action: Mapping[str, str]) -> int:
    """The value of :meth:`_Builder.cost` at a perfect matching ``action`` (allocation,
    stable matching): this engine's copy of its coefficients, and the bottleneck variable
    at its least value. O(#agents)."""
    t, obj, rk = task, world.objective, _ranks(task, world)
    pairs = _pairs(task, action)
    n = len(t.agents)
    if t.structure == "allocation":
        if obj == "egalitarian":
            return max(rk[a][i] for a, i in pairs)
        base, r = len(t.agents) + 1, len(t.items)
        w = {"utilitarian": lambda k: k, "rank_maximal": lambda k: -(base ** (r - k)),
             "leximin": lambda k: base ** (k - 1)}[obj]
        return sum(w(rk[a][i]) for a, i in pairs)
    if obj == "minimum_regret":
        return max(max(rk[a][b], rk[n + b][a]) for a, b in pairs)
    if obj == "a_optimal":
        return sum(rk[a][b] for a, b in pairs)
    if obj == "b_optimal":
        return sum(rk[n + b][a] for a, b in pairs)
    return sum(rk[a][b] + rk[n + b][a] for a, b in pairs)


def _stable_in(task: DecisionTask, world: World, action: Mapping[str, str]) -> bool:
    """Whether the perfect matching ``action`` meets every stability cut of ``world``
    (:meth:`_Builder.stability`: no pair prefers each other to their partners).
    O(#agents · #items)."""
    rk = _ranks(task, world)
    n = len(task.agents)
    mate = [0] * n
    for a, b in _pairs(task, action):
        mate[a] = b
    inv = [0] * len(task.items)
    for a, b in enumerate(mate):
        inv[b] = a
    for a in range(n):
        ra = rk[a]
        mine = ra[mate[a]]
        for b, rab in enumerate(ra):
            if rab < mine and rk[n + b][a] < rk[n + b][inv[b]]:
                return False
    return True


def _solved_witness(task: DecisionTask, worlds: Sequence[World], actions: Sequence[Any],
                    bounds: Sequence[Any]) -> Any:
    """A shared action among the worlds' own CP-SAT optima (allocation, stable matching;
    not ``da_only``): the first optimum that meets every world's bound (and, in a stable
    matching, every world's stability cuts), as the joint model would require of it; None
    when none does (the joint model then decides). Every world's bound and every candidate
    are CP-SAT's; this only evaluates them. O(worlds² · #agents · #items)."""
    if task.structure not in ("allocation", "stable_matching") or _da_only(task) or \
            any(b is None for b in bounds):
        return None
    tried: list[Any] = []
    for x in actions:
        if x in tried:
            continue
        tried.append(x)
        if all(_cost_at(task, w, x) <= bound and (task.structure != "stable_matching" or
                                                   _stable_in(task, w, x))
               for w, bound in zip(worlds, bounds)):
            return x
    return None


def minimum_edit_sets(task: DecisionTask, world: World, time_limit: float, seed: int
                      ) -> tuple[int | None, list[tuple[str, ...]]]:
    """(k, every edit set of k permitted edits that restores feasibility); (None, []) when
    even editing every permitted constraint does not."""
    cs = stated(task)
    bound = None
    if _da_only(task):
        got = _world_optimum(task, world, None, time_limit, seed, accept_all=False)
        bound = got[0]

    def model():
        b = _Builder(task)
        e = {c: b.m.new_bool_var(f"e_{c}") for c in task.permitted}
        b.constraints(cs, e)
        _post_world(b, task, world, bound)
        return b, e

    b, e = model()
    s = b.solve(time_limit, seed, sum(e.values()))
    if s is None:
        return None, []
    k = round(s.objective_value)
    # the same model enumerates the rest: the optimum's edit set is the first found
    # (a no-good cut excludes it), then one feasibility solve per further set
    b.m.clear_objective()
    b.m.add(sum(e.values()) == k)
    found = []
    while s is not None:
        chosen = tuple(c for c in task.permitted if s.value(e[c]))
        found.append(chosen)
        b.m.add(sum(e[c] for c in chosen) <= k - 1)
        s = b.solve(time_limit, seed)
    return k, sorted(found, key=lambda es: [task.permitted.index(c) for c in es])


def _tight(task: DecisionTask, edit_set: Sequence[str], time_limit: float, seed: int
           ) -> list[dict[str, int]]:
    """Pareto-minimal threshold vectors of an edit set: the attribute vectors of every
    apartment left feasible by the unedited constraints (a scan of the items, this
    engine's :func:`_open_items`; it was a CP-SAT re-solve with a no-good per apartment,
    the same set)."""
    cs = stated(task)
    raises = [c for c in edit_set if cs.by_id[c].type == "max"]
    if not raises:
        return [{}]
    vecs = {tuple(task.attributes[i][cs.by_id[c].attribute] for c in raises)
            for i in _open_items(task, cs.without(edit_set))}
    minimal = sorted(v for v in vecs
                     if not any(u != v and all(x <= y for x, y in zip(u, v)) for u in vecs))
    return [dict(zip(raises, v)) for v in minimal]


def decision_cpsat(task: DecisionTask, *, time_limit: float = 10.0, seed: int = 0) -> Outcome:
    """Engine: the verdict, the solution and the per-world optimum values by CP-SAT.
    Returns ``Outcome("unknown")`` on a timeout; no certificate (the application checks
    this engine's actions against the oracle's proofs)."""
    try:
        return _decide(task, time_limit, seed)
    except _Timeout:
        return Outcome("unknown")


def _decide(task: DecisionTask, time_limit: float, seed: int) -> Outcome:
    cs = stated(task)
    worlds = task.worlds()
    # a constraint-source task's one optimum under the stated constraints is its decisive
    # question (CP-SAT); a preference / objective world's bound may be a scan (the
    # joint shared-action model below is CP-SAT's)
    scan = task.source != "constraint"
    opts = [_opt(task, w, cs, time_limit, seed, scan=scan) for w in worlds]
    values = [None if o is None or _accept_all(task) else _value(task, w, o[1])
              for w, o in zip(worlds, opts)]
    stats: dict[str, Any] = {"worlds": [{"world": w.descriptor(), "value": v}
                                        for w, v in zip(worlds, values)],
                             "hidden": len(task.hidden_pairs())}
    if task.source == "constraint":
        (w,), (o,) = worlds, opts
        if o is not None:
            return Outcome("act", {"action": o[1]}, None, stats)
        k, sets = minimum_edit_sets(task, w, time_limit, seed)
        reps, rvals = [], []
        for es in sets:
            for vec in _tight(task, es, time_limit, seed):
                edits = {c: vec.get(c) for c in es}
                got = _opt(task, w, cs.edited(edits), time_limit, seed, scan=True)
                reps.append({"edits": [{"constraint": c, **({"value": vec[c]} if c in vec
                                                            else {})} for c in es],
                             "action": got[1]})
                rvals.append(None if _accept_all(task) else _value(task, w, got[1]))
        stats["repair_values"] = rvals
        return Outcome("relax", {"edits": k, "repairs": reps}, None, stats)
    if any(o is None for o in opts):
        raise ValueError("a world of a preference/objective task is infeasible")
    bounds = [o[0] for o in opts]
    x = _solved_witness(task, worlds, [o[1] for o in opts], bounds)
    if x is None:
        x = shared_action(task, worlds, cs, bounds, time_limit, seed)
    if x is not None:
        return Outcome("act", {"action": x}, None, stats)
    verdict = INTERVENTION[task.source]
    if verdict == "ask_objective":
        return Outcome(verdict, {"objectives": list(task.objectives)}, None, stats)
    hidden = task.hidden_pairs()
    p, a, bb = hidden[0]
    return Outcome(verdict, {"agent": p, "items": [a, bb]}, None, stats)
