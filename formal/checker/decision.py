"""Decision tasks (act / ask / relax): what is accepted in a world, and the certificates.

**Accepted actions.** For a world ``w`` and a set of constraints in force ``C``:

- ``scheduling`` / ``apartment``: the feasible items are those no constraint excludes
  (a slot nobody is unavailable at; an apartment within every threshold). ``Acc_w`` is
  every feasible item that is optimal for the world's objective over the agents' ranks of
  it — every tie kept. The checker recomputes it (O(#agents · #items)).
- ``allocation``: the feasible actions are the perfect matchings of the allowed graph
  ``G_C`` (all agent-item pairs minus forbidden ones; a requirement ``(a, i)`` removes every
  other pair at ``a`` and at ``i``). For the linear objectives (utilitarian, rank-maximal,
  leximin — integer weights whose maximum-weight perfect matchings are the optima) a world
  proof gives an optimum ``x_w`` and integral LP duals ``u, v`` with ``u_a + v_i ≥ w(a, i)``
  on ``G_C`` and ``Σu + Σv = w(x_w)``; by complementary slackness ``Acc_w`` is *exactly* the
  set of perfect matchings of the tight graph ``T_w = {(a, i): u_a + v_i = w(a, i)}``. For
  the egalitarian objective the proof gives ``x_w`` of worst rank ``k`` and a Hall violator
  of ``G_C`` restricted to ranks ``< k``; ``T_w`` is ``G_C`` restricted to ranks ``≤ k``.
  So ``⋂ Acc_w`` is the set of perfect matchings of ``⋂ T_w``, and a Hall violator there
  (agents ``S`` with fewer than ``|S|`` common neighbours) proves it empty.
- ``stable_matching``: the stable matchings of the world's (complete, strict) lists,
  re-enumerated by the checker's own search (refused above :data:`MAX_MATCHING_SIDE`);
  with reading ``sublattice`` those satisfying the forced / forbidden pairs are feasible
  and the objective picks among them (``a_optimal``: minimum total A-rank, which is the
  A-proposing deferred-acceptance outcome when no constraint binds; ``b_optimal``;
  ``egalitarian``: minimum total rank of both sides; ``minimum_regret``: minimum worst
  rank); with reading ``da_only`` only the objective's unconstrained choices are candidates.
- With reading ``constraint_acceptance = feasible`` a constraint-source task accepts every
  feasible action.

**Decision** (the label's verdict): for the preference and objective sources, ``act`` iff
the worlds' accepted sets share an action, else ``ask_preference`` / ``ask_objective``; for
the constraint source, ``act`` iff the stated constraints are feasible, else ``relax``.

**Certificate types** (one check each): ``shared_action`` (act: an action and, per world,
a proof that it is accepted), ``pivotal_comparison`` (ask_preference: the hidden
comparison, the worlds, and a proof that their accepted sets share nothing),
``objective_conflict`` (ask_objective: one world per admissible objective, likewise) and
``minimum_repair`` (relax: conflicts — infeasible constraint subsets, each with a Hall
violator or re-checked by scanning — that miss every edit set of size ``k − 1`` (so no
cheaper repair exists) and every unlisted edit set of size ``k`` (so the list of repairs is
complete), and every minimum repair with an action accepted after it).
"""
from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from ..decision import (
    INTERVENTION,
    MAX_WORLDS,
    OBJECTIVES,
    READINGS,
    STRUCTURES,
    VERDICTS,
    ConstraintSet,
    DecisionTask,
    World,
    action_json,
    action_key,
    parse_decision,
    stated,
    world_ranks,
)
from ..errors import CertificateError, InstanceError
from ..spec import DomainSpec, QuestionSpec, fields, instance_schema

#: stable-matching worlds with more agents a side are refused (the checker enumerates)
MAX_MATCHING_SIDE = 12
#: more edit sets than this are refused by the repair check
MAX_EDIT_SETS = 200_000

_NAME = {"type": "string", "minLength": 1}
_PAIR_C = {"type": "object", "required": ["id", "type", "agent", "item"],
           "properties": {"id": _NAME, "type": {"enum": ["require", "forbid", "unavailable",
                                                          "forced", "forbidden"]},
                          "agent": _NAME, "item": _NAME}, "additionalProperties": False}
_MAX_C = {"type": "object", "required": ["id", "type", "attribute", "value"],
          "properties": {"id": _NAME, "type": {"const": "max"}, "attribute": _NAME,
                         "value": {"type": "integer"}}, "additionalProperties": False}

SPEC = DomainSpec(
    name="decision",
    parse=parse_decision,
    questions={"decision": QuestionSpec(
        "decision", VERDICTS,
        "act (an action accepted in every admissible world), ask (every world feasible, no "
        "shared action: the pivotal comparison or the objective menu) or relax (infeasible "
        "constraints: every minimum-edit permitted repair with an action accepted after it)",
        solutions={"act": fields("action", "worlds", "shared"),
                   "ask_preference": fields("agent", "items", "worlds"),
                   "ask_objective": fields("objectives", "worlds"),
                   "relax": fields("edits", "repairs")})},
    schema=instance_schema(
        "decision",
        {"structure": {"enum": list(STRUCTURES)},
         "source": {"enum": ["preference", "objective", "constraint"]},
         "agents": {"type": "array", "minItems": 1, "items": _NAME},
         "items": {"type": "array", "minItems": 1, "items": _NAME},
         "preferences": {"type": "object", "additionalProperties": {
             "type": "array", "items": {"anyOf": [
                 _NAME, {"type": "object", "required": ["unknown"],
                         "additionalProperties": False,
                         "properties": {"unknown": {"type": "array", "minItems": 2,
                                                    "items": _NAME}}}]}}},
         "objectives": {"type": "array", "minItems": 1, "items": {
             "enum": sorted({o for v in OBJECTIVES.values() for o in v})}},
         "objective": {"enum": sorted({o for v in OBJECTIVES.values() for o in v})},
         "attributes": {"type": "object", "additionalProperties": {
             "type": "object", "additionalProperties": {"type": "integer"}}},
         "constraints": {"type": "array", "items": {"anyOf": [_PAIR_C, _MAX_C]}},
         "permitted_edits": {"type": "array", "items": _NAME},
         "reading": {"type": "object", "additionalProperties": False, "properties": {
             k: {"enum": list(v)} for k, v in READINGS.items()}},
         "meta": {"type": "object"}},
        ["structure", "source", "agents", "items", "preferences"], {"const": "decision"}),
)


def validate(task: DecisionTask, name: str, params: Any) -> None:
    """Before any engine runs: a preference- or objective-source task must have feasible
    stated constraints (the decision rule asks only when every world is feasible; an
    infeasible world does not occur in the benchmark and its verdict is not defined)."""
    if task.source != "constraint" and task.constraints and not is_feasible(task, stated(task)):
        raise InstanceError(f"the stated constraints of a {task.source}-source task are "
                            "infeasible: its decision rule needs every world feasible",
                            value=[c.id for c in task.constraints])


def _canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"))


# --------------------------------------------------------------------------- objectives

def objective_key(task: DecisionTask, objective: str, ranks: Iterable[int]) -> Any:
    """The value of an outcome for a rank objective, smaller is better: ``utilitarian``
    the total rank, ``egalitarian`` the worst rank, ``rank_maximal`` the negated counts
    (−s_1, −s_2, …), ``leximin`` the counts from the worst rank up (s_R, …, s_1)."""
    ranks = list(ranks)
    if objective == "utilitarian":
        return sum(ranks)
    if objective == "egalitarian":
        return max(ranks)
    r = max(len(task.items), len(task.agents))
    counts = [0] * (r + 1)
    for k in ranks:
        counts[k] += 1
    if objective == "rank_maximal":
        return tuple(-c for c in counts[1:])
    if objective == "leximin":
        return tuple(reversed(counts[1:]))
    raise CertificateError(f"unknown rank objective {objective!r}")


def pair_weight(task: DecisionTask, objective: str, rank: int) -> int:
    """The integer weight of an agent getting its ``rank``-th item, for the linear
    objectives: the maximum-weight perfect matchings are exactly the optima
    (utilitarian −r; rank-maximal B^(R−r); leximin −B^(r−1); B = n + 1 exceeds every count,
    so the weighted sums order the count vectors lexicographically)."""
    n = len(task.agents)
    b, r = n + 1, len(task.items)
    if objective == "utilitarian":
        return -rank
    if objective == "rank_maximal":
        return b ** (r - rank)
    if objective == "leximin":
        return -(b ** (rank - 1))
    raise CertificateError(f"no pair weight for {objective!r}")


# --------------------------------------------------------------------------- feasibility

def _accept_all(task: DecisionTask) -> bool:
    return task.source == "constraint" and task.reading["constraint_acceptance"] == "feasible"


def feasible_items(task: DecisionTask, cs: ConstraintSet) -> list[str]:
    """Scheduling / apartment: the items no constraint in force excludes, in item order."""
    out = []
    for i in task.items:
        ok = True
        for c in cs:
            if c.type == "unavailable" and c.item == i:
                ok = False
            elif c.type == "max" and task.attributes[i][c.attribute] > c.value:
                ok = False
        if ok:
            out.append(i)
    return out


def allowed_graph(task: DecisionTask, cs: ConstraintSet) -> dict[str, set[str]]:
    """Allocation: agent -> items it may receive under the constraints in force."""
    adj = {a: set(task.items) for a in task.agents}
    for c in cs:
        if c.type == "forbid":
            adj[c.agent].discard(c.item)
        elif c.type == "require":
            adj[c.agent] &= {c.item}
            for a in task.agents:
                if a != c.agent:
                    adj[a].discard(c.item)
    return adj


def satisfies(task: DecisionTask, cs: ConstraintSet, key: Any) -> bool:
    """Does the canonical action ``key`` satisfy every constraint in force?"""
    if task.structure in ("scheduling", "apartment"):
        return key in feasible_items(task, cs)
    pairs = dict(key)
    if task.structure == "allocation":
        adj = allowed_graph(task, cs)
        return all(i in adj[a] for a, i in pairs.items())
    for c in cs:
        if c.type == "forced" and pairs.get(c.agent) != c.item:
            return False
        if c.type == "forbidden" and pairs.get(c.agent) == c.item:
            return False
    return True


def hall_violated(adj: Mapping[str, Iterable[str]], hall: object, what: str = "") -> None:
    """Check that ``hall`` is a set of agents with fewer common neighbours than members
    (Hall 1935: no perfect matching). Raises CertificateError otherwise. O(|S| · n)."""
    if not isinstance(hall, list) or not hall or not all(isinstance(a, str) for a in hall) \
            or len(set(hall)) != len(hall):
        raise CertificateError(f"{what}a Hall violator is a non-empty list of distinct agents")
    for a in hall:
        if a not in adj:
            raise CertificateError(f"{what}Hall violator names {a!r}, not an agent")
    nbrs = set().union(*(set(adj[a]) for a in hall))
    if len(nbrs) >= len(hall):
        raise CertificateError(f"{what}Hall violator {sorted(hall)} has {len(nbrs)} "
                               f"neighbours for {len(hall)} agents: no violation")


def _perfect(adj: Mapping[str, set[str]], n: int) -> bool:
    from .graphs import maximum_bipartite_matching
    return len(maximum_bipartite_matching({a: sorted(v) for a, v in adj.items()})) == n


# --------------------------------------------------------------------------- stable matchings

def stable_matchings(task: DecisionTask, world: World) -> list[tuple]:
    """Every stable matching of ``world`` (canonical keys), in a fixed order."""
    if len(task.agents) > MAX_MATCHING_SIDE:
        raise CertificateError(f"stable-matching worlds beyond {MAX_MATCHING_SIDE} agents a "
                               "side are not re-enumerated by the checker")
    lists, ranks = world_ranks(task, world)
    return list(_stable_enum(task.agents, task.items, lists, ranks))


@lru_cache(maxsize=512)
def _stable_enum(agents: tuple[str, ...], items: tuple[str, ...],
                 lists: tuple[tuple[int, ...], ...], ranks: tuple[tuple[int, ...], ...]
                 ) -> tuple[tuple, ...]:
    """Every stable matching of the integer lists (agent ``a`` ranks items, party
    ``n + b`` ranks agents; :func:`~prefcert.formal.decision.world_ranks`) by a search
    over the agents in order, each trying its items best first; as canonical keys
    (sorted name pairs)."""
    n = len(agents)
    ra, rb = ranks[:n], ranks[n:]
    partner: list[int] = []                # position a: agent a's item
    taken = [False] * len(items)
    out: list[tuple] = []

    def rec(a: int) -> None:
        if a == n:
            out.append(tuple(sorted(zip(agents, (items[b] for b in partner)))))
            return
        rka = ra[a]
        for b in lists[a]:
            if taken[b]:
                continue
            rkb = rb[b]
            ok = True
            for a2, b2 in enumerate(partner):
                # (a, b2) blocks: a prefers b2 to b and b2 prefers a to a2
                if rka[b2] < rka[b] and rb[b2][a] < rb[b2][a2]:
                    ok = False
                    break
                # (a2, b) blocks: a2 prefers b to b2 and b prefers a2 to a
                if ra[a2][b] < ra[a2][b2] and rkb[a2] < rkb[a]:
                    ok = False
                    break
            if not ok:
                continue
            partner.append(b)
            taken[b] = True
            rec(a + 1)
            partner.pop()
            taken[b] = False

    rec(0)
    return tuple(out)


def _matching_value(task: DecisionTask, world: World, objective: str, m: tuple) -> Any:
    ints = task.ints()
    ai, ii, n = ints.agent_index, ints.item_index, len(task.agents)
    rk = world_ranks(task, world)[1]
    pairs = [(ai[a], ii[b]) for a, b in m]
    if objective == "a_optimal":
        return sum(rk[a][b] for a, b in pairs)
    if objective == "b_optimal":
        return sum(rk[n + b][a] for a, b in pairs)
    if objective == "egalitarian":
        return sum(rk[a][b] + rk[n + b][a] for a, b in pairs)
    if objective == "minimum_regret":
        return max(max(rk[a][b], rk[n + b][a]) for a, b in pairs)
    raise CertificateError(f"unknown matching objective {objective!r}")


def _argmin(values: Mapping[Any, Any]) -> frozenset:
    if not values:
        return frozenset()
    best = min(values.values())
    return frozenset(k for k, v in values.items() if v == best)


def matching_accepted(task: DecisionTask, world: World, cs: ConstraintSet) -> frozenset:
    """Stable matching: the accepted matchings of ``world`` under ``cs`` (module docstring)."""
    stable = stable_matchings(task, world)
    if task.reading["matching_constraints"] == "da_only":
        best = _argmin({m: _matching_value(task, world, world.objective, m) for m in stable})
        return frozenset(m for m in best if satisfies(task, cs, m))
    feas = [m for m in stable if satisfies(task, cs, m)]
    if _accept_all(task):
        return frozenset(feas)
    return _argmin({m: _matching_value(task, world, world.objective, m) for m in feas})


def items_accepted(task: DecisionTask, world: World, cs: ConstraintSet) -> frozenset:
    """Scheduling / apartment: the accepted items of ``world`` under ``cs``."""
    feas = feasible_items(task, cs)
    if _accept_all(task):
        return frozenset(feas)
    rk = world_ranks(task, world)[1][:len(task.agents)]
    ii, obj = task.ints().item_index, world.objective
    return _argmin({i: objective_key(task, obj, [r[ii[i]] for r in rk]) for i in feas})


def is_feasible(task: DecisionTask, cs: ConstraintSet) -> bool:
    """Do the constraints ``cs`` admit a feasible action (in the task's one world for
    stable matching, whose feasibility depends on the lists)? Allocation: a perfect
    matching of the allowed graph (the checker's own augmenting paths)."""
    if task.structure in ("scheduling", "apartment"):
        return bool(feasible_items(task, cs))
    if task.structure == "allocation":
        return _perfect(allowed_graph(task, cs), len(task.agents))
    return all(bool(matching_accepted(task, w, cs)) for w in task.worlds())


# --------------------------------------------------------------------------- acceptance

class Acceptance:
    """The accepted actions of one world: an explicit set (``members``) or, for
    allocation, the perfect matchings of a tight graph (``graph``)."""

    def __init__(self, members: frozenset | None = None,
                 graph: Mapping[str, set[str]] | None = None):
        self.members, self.graph = members, graph

    def __contains__(self, key: Any) -> bool:
        if self.members is not None:
            return key in self.members
        return all(i in self.graph[a] for a, i in key)


def _read_assignment(task: DecisionTask, x: object, what: str) -> tuple:
    try:
        return action_key(task, x)
    except ValueError as e:
        raise CertificateError(f"{what}: {e}") from None


def acceptance(task: DecisionTask, world: World, cs: ConstraintSet, proof: object,
               what: str = "world") -> Acceptance:
    """Verify ``proof`` of ``world``'s accepted set under ``cs`` and return that set.

    Allocation proofs: ``{"optimum": x, "duals": {"agents": {a: int}, "items": {i: int}}}``
    (linear objectives) or ``{"optimum": x, "hall": [agents] | null}`` (egalitarian; the
    Hall violator is omitted when the worst rank is 1); none under the ``feasible``
    reading. Other structures: the checker recomputes; an optional ``accepted`` list must
    equal the recomputed set. Raises CertificateError naming the failing step.
    """
    proof = proof if proof is not None else {}
    if not isinstance(proof, dict):
        raise CertificateError(f"{what}: a world proof is an object")
    if task.structure != "allocation":
        acc = items_accepted(task, world, cs) if task.structure != "stable_matching" \
            else matching_accepted(task, world, cs)
        if "accepted" in proof:
            listed = proof["accepted"]
            if not isinstance(listed, list):
                raise CertificateError(f"{what}: 'accepted' must be a list of actions")
            keys = {_read_assignment(task, x, what) for x in listed}
            if keys != set(acc):
                raise CertificateError(f"{what}: the accepted set is not "
                                       f"{sorted(map(str, keys))[:4]} (recomputed: "
                                       f"{len(acc)} action(s))")
        return Acceptance(members=frozenset(acc))
    adj = allowed_graph(task, cs)
    if _accept_all(task):
        return Acceptance(graph=adj)
    if "optimum" not in proof:
        raise CertificateError(f"{what}: an allocation world proof needs its 'optimum'")
    x = dict(_read_assignment(task, proof["optimum"], f"{what} optimum"))
    for a, i in x.items():
        if i not in adj[a]:
            raise CertificateError(f"{what}: the optimum gives {a!r} the item {i!r}, which "
                                   "the constraints in force do not allow")
    obj = world.objective
    ints = task.ints()
    ii, rk = ints.item_index, world_ranks(task, world)[1]
    # agent name -> its ranks of the items (by item int)
    ranks = {a: rk[k] for k, a in enumerate(task.agents)}
    if obj == "egalitarian":
        k = max(ranks[a][ii[i]] for a, i in x.items())
        if k > 1:
            below = {a: {i for i in adj[a] if ranks[a][ii[i]] < k} for a in task.agents}
            hall_violated(below, proof.get("hall"), f"{what} (ranks below {k}): ")
        return Acceptance(graph={a: {i for i in adj[a] if ranks[a][ii[i]] <= k}
                                 for a in task.agents})
    duals = proof.get("duals")
    if not isinstance(duals, dict) or not isinstance(duals.get("agents"), dict) or \
            not isinstance(duals.get("items"), dict):
        raise CertificateError(f"{what}: LP duals are {{'agents': {{}}, 'items': {{}}}}")
    u, v = duals["agents"], duals["items"]
    if set(u) != set(task.agents) or set(v) != set(task.items) or not all(
            isinstance(y, int) and not isinstance(y, bool) for y in [*u.values(), *v.values()]):
        raise CertificateError(f"{what}: every agent and item needs an integer dual")
    tight: dict[str, set[str]] = {a: set() for a in task.agents}
    weights = [0] + [pair_weight(task, obj, r) for r in range(1, len(task.items) + 1)]
    for a in task.agents:
        ra = ranks[a]
        for i in adj[a]:
            w = weights[ra[ii[i]]]
            slack = u[a] + v[i] - w
            if slack < 0:
                raise CertificateError(f"{what}: dual constraint of ({a}, {i}) violated "
                                       f"by {-slack}")
            if slack == 0:
                tight[a].add(i)
    value = sum(weights[ranks[a][ii[i]]] for a, i in x.items())
    if sum(u.values()) + sum(v.values()) != value:
        raise CertificateError(f"{what}: the duals sum to {sum(u.values()) + sum(v.values())}"
                               f", the optimum weighs {value}: not optimal duals")
    return Acceptance(graph=tight)


def _certified_worlds(task: DecisionTask, cs: ConstraintSet, entries: object,
                      every: bool) -> list[tuple[World, Acceptance]]:
    """Match certificate ``worlds`` entries (``{"world": descriptor, "proof": …}``) to the
    task's worlds and verify each proof. ``every``: each world of the task exactly once."""
    if not isinstance(entries, list) or not entries:
        raise CertificateError("'worlds' must be a non-empty list")
    if task.world_count() > MAX_WORLDS:
        raise CertificateError("too many worlds")
    known = {_canon(w.descriptor()): w for w in task.worlds()}
    seen: dict[str, tuple[World, Acceptance]] = {}
    for n, e in enumerate(entries):
        if not isinstance(e, dict) or "world" not in e:
            raise CertificateError(f"worlds[{n}] must be {{'world': …, 'proof': …}}")
        c = _canon(e["world"])
        if c not in known:
            raise CertificateError(f"worlds[{n}] is not an admissible world of the task")
        if c in seen:
            raise CertificateError(f"worlds[{n}] is listed twice")
        w = known[c]
        seen[c] = (w, acceptance(task, w, cs, e.get("proof"), f"worlds[{n}]"))
    if every and len(seen) != len(known):
        raise CertificateError(f"the certificate covers {len(seen)} of the task's "
                               f"{len(known)} worlds")
    return list(seen.values())


def _empty_intersection(task: DecisionTask, accs: list[Acceptance], proof: object) -> None:
    """Verify that the accepted sets share no action: explicit sets are intersected;
    allocation needs a Hall violator (``{"hall": [agents]}``) of the intersected graphs."""
    if task.structure != "allocation":
        common = frozenset.intersection(*(a.members for a in accs))
        if common:
            x = next(iter(sorted(common, key=str)))
            raise CertificateError(f"the worlds share the accepted action "
                                   f"{action_json(task, x)!r}")
        return
    common = {a: set.intersection(*(acc.graph[a] for acc in accs)) for a in task.agents}
    if not isinstance(proof, dict):
        raise CertificateError("'disjoint' must be {'hall': [agents]}")
    hall_violated(common, proof.get("hall"), "intersection of the tight graphs: ")


# --------------------------------------------------------------------------- conflicts, repairs

def check_conflict(task: DecisionTask, conflict: object, n: int | str = "") -> frozenset:
    """Verify that a conflict ``{"constraints": [ids], "hall": [agents]?}`` is infeasible
    on its own; return its ids. Allocation needs the Hall violator of the allowed graph of
    those constraints; the other structures are re-checked by the checker."""
    where = f"conflicts[{n}]: "
    if not isinstance(conflict, dict) or not isinstance(conflict.get("constraints"), list):
        raise CertificateError(f"{where}a conflict is {{'constraints': [ids], …}}")
    ids = conflict["constraints"]
    known = stated(task)
    for i in ids:
        if i not in known.by_id:
            raise CertificateError(f"{where}{i!r} is not a constraint of the task")
    sub = known.subset(ids)
    if task.structure == "allocation":
        hall_violated(allowed_graph(task, sub), conflict.get("hall"), where)
    elif is_feasible(task, sub):
        raise CertificateError(f"{where}the constraints {sorted(ids)} are feasible together")
    return frozenset(ids)


def tight_values(task: DecisionTask, edited: Iterable[str]) -> list[dict[str, int]]:
    """Apartment: the tight threshold values of an edit set — for its ``max`` constraints,
    the Pareto-minimal attribute vectors of the apartments that satisfy every unedited
    constraint (lowering any one value by 1 then loses feasibility). Thresholds outside
    the edit set stay; an edit set of removals only has the one repair ``{}``."""
    cs = stated(task)
    edited = list(edited)
    raise_ids = [i for i in edited if cs.by_id[i].type == "max"]
    if not raise_ids:
        return [{}]
    rest = cs.without(edited)
    cands = {tuple(task.attributes[i][cs.by_id[c].attribute] for c in raise_ids)
             for i in feasible_items(task, rest)}
    minimal = [v for v in cands
               if not any(u != v and all(x <= y for x, y in zip(u, v)) for u in cands)]
    out = []
    for v in sorted(minimal):
        if all(x > cs.by_id[c].value for c, x in zip(raise_ids, v)):
            out.append(dict(zip(raise_ids, v)))
    return out


def read_edits(task: DecisionTask, edits: object, what: str = "repair"
               ) -> dict[str, int | None]:
    """Validate a repair's ``edits`` — ``[{"constraint": id, "value": int?}]`` — against
    the permitted edits: id -> new threshold (``max``) or None (removal)."""
    if not isinstance(edits, list) or not edits:
        raise CertificateError(f"{what}: 'edits' must be a non-empty list")
    out: dict[str, int | None] = {}
    cs = stated(task)
    for e in edits:
        if not isinstance(e, dict) or not isinstance(e.get("constraint"), str):
            raise CertificateError(f"{what}: an edit is {{'constraint': id, 'value'?: int}}")
        cid = e["constraint"]
        if cid not in task.permitted:
            raise CertificateError(f"{what}: editing {cid!r} is not permitted")
        if cid in out:
            raise CertificateError(f"{what}: {cid!r} is edited twice")
        c = cs.by_id[cid]
        if c.type == "max":
            val = e.get("value")
            if not isinstance(val, int) or isinstance(val, bool) or val <= c.value:
                raise CertificateError(f"{what}: raising {cid!r} needs an integer above "
                                       f"{c.value}, got {val!r}")
            out[cid] = val
        else:
            if e.get("value") is not None:
                raise CertificateError(f"{what}: {cid!r} can only be removed")
            out[cid] = None
    return out


def repaired(task: DecisionTask, edits: Mapping[str, int | None]) -> ConstraintSet:
    """The constraints in force after a repair."""
    return stated(task).edited(edits)


def _single_world(task: DecisionTask) -> World:
    (w,) = task.worlds()
    return w


# --------------------------------------------------------------------------- summaries

#: accepted allocations are counted (a 2^n dynamic programme) up to this many agents
MAX_COUNT_AGENTS = 16


def count_perfect(task: DecisionTask, adj: Mapping[str, set[str]]) -> int | None:
    """The number of perfect matchings of ``adj`` (agent -> items), by dynamic programming
    over the sets of items used; None above :data:`MAX_COUNT_AGENTS`."""
    if len(task.agents) > MAX_COUNT_AGENTS:
        return None
    bit = {i: 1 << k for k, i in enumerate(task.items)}
    ways = {0: 1}
    for a in task.agents:
        nxt: dict[int, int] = {}
        for used, c in ways.items():
            for i in adj[a]:
                if not used & bit[i]:
                    nxt[used | bit[i]] = nxt.get(used | bit[i], 0) + c
        ways = nxt
    return sum(ways.values())


def count_accepted(task: DecisionTask, accs: list[Acceptance]) -> int | None:
    """How many actions every one of ``accs`` accepts."""
    if accs[0].members is not None:
        return len(frozenset.intersection(*(a.members for a in accs)))
    return count_perfect(task, {a: set.intersection(*(acc.graph[a] for acc in accs))
                                for a in task.agents})


def _check_summary(task: DecisionTask, solution: dict,
                   entries: list[tuple[World, Acceptance]], shared: bool) -> None:
    """The label's ``worlds`` (per world, its number of accepted actions) and, for act,
    ``shared`` (the number of actions accepted in every world), recounted."""
    want = [{"world": w.descriptor(), "accepted": count_accepted(task, [a])}
            for w, a in entries]
    if solution.get("worlds") != want:
        raise CertificateError(f"the label's per-world accepted counts are not "
                               f"{[x['accepted'] for x in want]}")
    if shared:
        n = count_accepted(task, [a for _, a in entries])
        if solution.get("shared") != n:
            raise CertificateError(f"the label's number of shared accepted actions is not {n}")


# --------------------------------------------------------------------------- certificate types

def _want_source(task: DecisionTask, sources: tuple[str, ...], kind: str) -> None:
    if task.source not in sources:
        raise CertificateError(f"a {kind} certificate does not apply to a {task.source}-"
                               "source task")


@SPEC.certificate("shared_action", proves={"decision": "act"}, keys=("action", "worlds"))
def check_shared_action(task: DecisionTask, question: str, params, verdict: str, solution,
                        certificate: dict) -> None:
    """An ``action`` accepted in every admissible world: one verified world proof per world
    (for the constraint source, the stated constraints' one world); the solution is
    ``{"action": action, "worlds": [{"world", "accepted": count}], "shared": count}``."""
    x = certificate.get("action")
    key = _read_assignment(task, x, "action")
    if not isinstance(solution, dict) or set(solution) != {"action", "worlds", "shared"} \
            or solution["action"] != x:
        raise CertificateError("the label's solution must be {'action': the certified "
                               "action, 'worlds': …, 'shared': …}")
    cs = stated(task)
    if not satisfies(task, cs, key):
        raise CertificateError("the action violates a stated constraint")
    entries = _certified_worlds(task, cs, certificate.get("worlds"), every=True)
    for w, acc in entries:
        if key not in acc:
            raise CertificateError(f"the action is not accepted in world "
                                   f"{_canon(w.descriptor())[:120]}")
    _check_summary(task, solution, entries, shared=True)


@SPEC.certificate("pivotal_comparison", proves={"decision": "ask_preference"},
                  keys=("agent", "items", "worlds", "disjoint"))
def check_pivotal_comparison(task: DecisionTask, question: str, params, verdict: str,
                             solution, certificate: dict) -> None:
    """Preference source: the hidden comparison ``agent``: ``items`` [a, b] and admissible
    ``worlds`` (with proofs) whose accepted sets share nothing (``disjoint``: a Hall violator
    of the intersected tight graphs for allocation). With one hidden pair the worlds are its
    two orders; the solution is ``{"agent": …, "items": [a, b], "worlds": [{"world",
    "accepted": count}]}``."""
    _want_source(task, ("preference",), "pivotal_comparison")
    agent, pair = certificate.get("agent"), certificate.get("items")
    if not isinstance(pair, list) or len(pair) != 2:
        raise CertificateError("'items' must be the two items of the comparison")
    hidden = {(p, frozenset((a, b))) for p, a, b in task.hidden_pairs()}
    if (agent, frozenset(pair)) not in hidden:
        raise CertificateError(f"{agent!r}: {pair} is not a hidden comparison of the task")
    if not isinstance(solution, dict) or set(solution) != {"agent", "items", "worlds"} or \
            (solution["agent"], solution["items"]) != (agent, pair):
        raise CertificateError("the label's solution must name the certified comparison")
    cs = stated(task)
    if not is_feasible(task, cs):
        raise CertificateError("a world is infeasible: asking needs every world feasible")
    entries = _certified_worlds(task, cs, certificate.get("worlds"), every=False)
    if len(entries) < 2:
        raise CertificateError("asking needs at least two worlds")
    if task.world_count() == 2 and len(entries) != 2:
        raise CertificateError("both worlds of the hidden comparison must be given")
    _empty_intersection(task, [a for _, a in entries], certificate.get("disjoint"))
    _check_summary(task, solution, entries, shared=False)


@SPEC.certificate("objective_conflict", proves={"decision": "ask_objective"},
                  keys=("objectives", "worlds", "disjoint"))
def check_objective_conflict(task: DecisionTask, question: str, params, verdict: str,
                             solution, certificate: dict) -> None:
    """Objective source: the whole menu ``objectives``, one verified world per objective,
    and a proof (``disjoint``) that their accepted sets share nothing; the solution is
    ``{"objectives": menu, "worlds": [{"world", "accepted": count}]}``."""
    _want_source(task, ("objective",), "objective_conflict")
    menu = certificate.get("objectives")
    if menu != list(task.objectives):
        raise CertificateError(f"'objectives' must be the task's menu {list(task.objectives)}")
    if not isinstance(solution, dict) or set(solution) != {"objectives", "worlds"} or \
            solution["objectives"] != menu:
        raise CertificateError("the label's solution must list the menu")
    cs = stated(task)
    entries = _certified_worlds(task, cs, certificate.get("worlds"), every=True)
    for w, acc in entries:
        if acc.members is not None and not acc.members:
            raise CertificateError(f"objective {w.objective!r} accepts nothing: asking needs "
                                   "every world feasible")
    if not is_feasible(task, cs):
        raise CertificateError("the stated constraints are infeasible")
    _empty_intersection(task, [a for _, a in entries], certificate.get("disjoint"))
    _check_summary(task, solution, entries, shared=False)


@SPEC.certificate("minimum_repair", proves={"decision": "relax"},
                  keys=("edits", "conflicts", "repairs"))
def check_minimum_repair(task: DecisionTask, question: str, params, verdict: str, solution,
                         certificate: dict) -> None:
    """Constraint source, infeasible constraints: ``edits`` = k, the minimum number of
    elementary permitted edits; ``conflicts`` (infeasible constraint subsets, each proven)
    such that every set of k − 1 permitted edits misses one (no cheaper repair) and so does
    every set of k that no listed repair uses (the list is complete); ``repairs``: every
    minimum repair ``{"edits": [...], "action": x, "proof": world proof}``, thresholds at
    their tight values, the action accepted after the repair. The solution is
    ``{"edits": k, "repairs": [{"edits", "action"}]}``. With no repair at all, ``edits``
    is null and a conflict misses every permitted edit."""
    _want_source(task, ("constraint",), "minimum_repair")
    raw = certificate.get("conflicts")
    if not isinstance(raw, list) or not raw:
        raise CertificateError("'conflicts' must be a non-empty list")
    conflicts = [check_conflict(task, c, n) for n, c in enumerate(raw)]
    permitted = list(task.permitted)

    def missed(edit_set: Iterable[str]) -> bool:
        s = set(edit_set)
        return any(not (k & s) for k in conflicts)

    k = certificate.get("edits")
    repairs = certificate.get("repairs")
    if not isinstance(repairs, list):
        raise CertificateError("'repairs' must be a list")
    if k is None:
        if repairs or not missed(permitted):
            raise CertificateError("'edits': null needs no repair and a conflict that no "
                                   "permitted edit touches")
        if solution != {"edits": None, "repairs": []}:
            raise CertificateError("the label's solution must be {'edits': null, 'repairs': []}")
        return
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= len(permitted):
        raise CertificateError(f"'edits' must be an integer in 1..{len(permitted)}")
    if math.comb(len(permitted), k) + math.comb(len(permitted), k - 1) > MAX_EDIT_SETS:
        raise CertificateError("too many edit sets to verify")
    for sub in itertools.combinations(permitted, k - 1):
        if not missed(sub):
            raise CertificateError(f"no conflict survives the edits {list(sub)}: a repair "
                                   f"with {k - 1} edit(s) is not ruled out")
    world = _single_world(task)
    listed: dict[frozenset, list[dict]] = {}
    shown = []
    for n, r in enumerate(repairs):
        what = f"repairs[{n}]"
        if not isinstance(r, dict):
            raise CertificateError(f"{what}: a repair is an object")
        edits = read_edits(task, r.get("edits"), what)
        if len(edits) != k:
            raise CertificateError(f"{what}: {len(edits)} edits, the minimum is {k}")
        values = {c: v for c, v in edits.items() if v is not None}
        listed.setdefault(frozenset(edits), []).append(values)
        cs = repaired(task, edits)
        key = _read_assignment(task, r.get("action"), f"{what} action")
        if not satisfies(task, cs, key):
            raise CertificateError(f"{what}: the action violates the repaired constraints")
        if key not in acceptance(task, world, cs, r.get("proof"), what):
            raise CertificateError(f"{what}: the action is not accepted after the repair")
        shown.append({"edits": r.get("edits"), "action": r.get("action")})
    for sub in itertools.combinations(permitted, k):
        s = frozenset(sub)
        if s in listed:
            got = sorted(_canon(v) for v in listed[s])
            want = sorted(_canon(v) for v in tight_values(task, sub))
            if got != want:
                raise CertificateError(f"edit set {sorted(s)}: threshold values {got} are "
                                       f"not its tight values {want}")
        elif not missed(sub):
            raise CertificateError(f"edit set {list(sub)} is neither a listed repair nor "
                                   "missed by a conflict")
    if not listed:
        raise CertificateError("a relax label needs at least one repair")
    if solution != {"edits": k, "repairs": shown}:
        raise CertificateError("the label's solution must list the certified repairs")


# --------------------------------------------------------------------------- judging responses

def certified_acceptances(task: DecisionTask, certificate: dict
                          ) -> list[tuple[World, Acceptance]]:
    """The verified accepted set of every world from a label's ``shared_action``,
    ``pivotal_comparison`` or ``objective_conflict`` certificate (the latter two list
    every world in the benchmark's two-world tasks and in every objective task)."""
    return _certified_worlds(task, stated(task), certificate.get("worlds"), every=False)


def judge_action(task: DecisionTask, label: dict, action: Any) -> tuple[bool, str]:
    """Is ``action`` acceptable as an ACT answer of an ``act`` label? It must be an action
    of the task, satisfy the stated constraints, and be accepted in every world (verified
    from the label's own certificate). Returns (ok, reason)."""
    try:
        key = action_key(task, action)
    except ValueError as e:
        return False, f"not an action: {e}"
    cs = stated(task)
    if not satisfies(task, cs, key):
        return False, "the action violates a stated constraint"
    entries = certified_acceptances(task, label["certificate"])
    if len(entries) != task.world_count():
        return False, "the label does not cover every world"
    for w, acc in entries:
        if key not in acc:
            return False, f"not accepted in world {_canon(w.descriptor())[:100]}"
    return True, "accepted in every world"


def judge_repair(task: DecisionTask, label: dict, edits: Any, action: Any, *,
                 tight: bool = True) -> tuple[bool, str]:
    """Is (``edits``, ``action``) an acceptable RELAX answer of a ``relax`` label? The
    edits must be permitted and as few as the label's minimum; with ``tight`` (default)
    every threshold at its tight value, else any values that restore feasibility; the
    action accepted under the repaired constraints (for allocation, through the matching
    repair's certified proof; otherwise recomputed). Any minimum repair is accepted, not
    only one stored answer. Returns (ok, reason)."""
    cert = label["certificate"]
    k = cert.get("edits")
    if k is None:
        return False, "the task has no permitted repair"
    try:
        got = read_edits(task, edits, "repair")
    except CertificateError as e:
        return False, str(e)
    if len(got) != k:
        return False, f"{len(got)} edit(s); the minimum is {k}"
    try:
        key = action_key(task, action)
    except ValueError as e:
        return False, f"the action is not an action: {e}"
    values = {c: v for c, v in got.items() if v is not None}
    cs = repaired(task, got)
    if tight:
        if _canon(values) not in {_canon(v) for v in tight_values(task, got)}:
            return False, "the edits are not a minimum repair at tight threshold values"
    elif not is_feasible(task, cs):
        return False, "the repaired constraints are still infeasible"
    if not satisfies(task, cs, key):
        return False, "the action violates the repaired constraints"
    world = _single_world(task)
    if task.structure == "allocation" and not _accept_all(task):
        for r in cert.get("repairs", []):
            try:
                same = read_edits(task, r.get("edits"), "label repair") == got
            except CertificateError:
                same = False
            if same:
                ok = key in acceptance(task, world, cs, r.get("proof"))
                return (ok, "accepted after the repair" if ok else
                        "the action is not optimal after the repair")
        return False, "the edits are not one of the task's minimum repairs"
    ok = key in acceptance(task, world, cs, None)
    return ok, "accepted after the repair" if ok else "the action is not accepted after the repair"


def expected_verdicts(task: DecisionTask) -> tuple[str, str]:
    """The two verdicts a task of this source can have: ``act`` and its intervention."""
    return "act", INTERVENTION[task.source]


object.__setattr__(SPEC, "validate", validate)
