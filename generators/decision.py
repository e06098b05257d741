"""Seeded samplers of decision tasks: base content, matched pairs, six-task groups and
local-cue-matched pairs (the designs of Li et al. 2026, "Ask, Relax, or Act?").

*Base content* of a structure at size n: n agents and n items; every ranking is drawn from
impartial culture (prefsampling); apartments get integer rents (5,000–15,000, steps of
100) and commutes (5–60 minutes).

A **matched pair** (V3 design) is two tasks with the same source built from one base that
differ in one element — which adjacent comparison is hidden (preference), whether one
more objective is admissible (objective), one constraint tightened or added (constraint)
— such that one member's gold decision is ACT and the other's the source's intervention.
A **group** is one pair per source: six tasks.

A **local-cue pair** (H5 design) is an ACT task and an intervention task, from independent
draws, that agree on source-dependent surface features, so that no rule over those
features separates them: the objective menu and the number of optimal actions under each
objective (objective pairs); the objective, the position of the hidden comparison and the
number of accepted actions per world (preference pairs); the degree of every agent and
every item in the compatibility graph of an allocation (constraint pairs, a degree-
preserving family: forbidden pairs are the non-edges, the ACT member has a perfect
matching and the RELAX member a deficiency of one); for the other structures the number of
constraints of each type and, per constraint, its surface cue (scheduling: the
unavailability count of every participant; apartment: the number of apartments each
threshold excludes; stable matching: the proposer-side rank of each constrained pair).

The gold decision is not computed here (generators import no engine): every function that
rejects on it takes ``judge(task) -> (verdict, stats)`` (the application passes the
oracle), ``task`` the parsed model (:class:`prefcert.formal.decision.DecisionTask`) of the
candidate's instance dict. A base is parsed once (:func:`template`) and every candidate's
model derived from it (:meth:`~prefcert.formal.decision.DecisionTask.derive`, equal to
parsing the candidate's dict), so thousands of candidates cost no re-parse. Every draw
comes from the ``random.Random`` passed in.
"""
from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from prefsampling.ordinal import impartial

from ..formal.decision import (INTERVENTION, OBJECTIVES, READINGS, DecisionTask,
                               parse_decision)

Judge = Callable[[DecisionTask], tuple[str, Mapping[str, Any]]]

NAMES = {"allocation": ("A", "O"), "scheduling": ("P", "T"), "apartment": ("R", "A"),
         "stable_matching": ("A", "B")}
#: the objective of preference- and constraint-source tasks, per structure (None: drawn)
FIXED_OBJECTIVE = {"stable_matching": "a_optimal"}


class Exhausted(Exception):
    """No acceptable draw within the attempt budget."""


def _rankings(rng: random.Random, voters: int, over: Sequence[str]) -> list[list[str]]:
    """``voters`` impartial-culture rankings of ``over``: prefsampling's ``impartial``
    (one permutation per voter from a numpy generator seeded by one draw of ``rng``), the
    same permutations read as Python ints in one ``tolist`` each rather than as numpy
    scalars one by one, without its argument checks (``voters``, ``len(over)`` >= 1 here;
    ``tests/test_actionable_designs.py`` pins the two equal). O(voters · len(over))."""
    seed = rng.randrange(2 ** 31)
    if voters < 1 or not over:                    # (prefsampling's own refusal)
        return [[over[c] for c in v] for v in impartial(voters, len(over), seed=seed)]
    r = np.random.default_rng(seed)
    m, get = len(over), over.__getitem__
    return [list(map(get, r.permutation(m).tolist())) for _ in range(voters)]


def base_content(structure: str, n: int, rng: random.Random) -> dict:
    """Fully specified content of one task: agents, items, complete strict rankings (both
    sides for stable matching) and, for apartments, rent and commute."""
    pa, pi = NAMES[structure]
    agents = [f"{pa}{k}" for k in range(1, n + 1)]
    items = [f"{pi}{k}" for k in range(1, n + 1)]
    prefs = dict(zip(agents, _rankings(rng, n, items)))
    if structure == "stable_matching":
        prefs.update(zip(items, _rankings(rng, n, agents)))
    out = {"domain": "decision", "structure": structure, "agents": agents, "items": items,
           "preferences": prefs}
    if structure == "apartment":
        out["attributes"] = {i: {"rent": 100 * rng.randint(50, 150),
                                 "commute": rng.randint(5, 60)} for i in items}
    return out


def with_source(base: dict, source: str, objectives: Sequence[str], **extra) -> dict:
    out = {k: v for k, v in base.items()}
    out["source"] = source
    out["objectives"] = list(objectives)
    out.update(extra)
    return out


def hide(task: dict, party: str, pos: int) -> dict:
    """The task with ``party``'s comparison of its items at positions ``pos`` and
    ``pos + 1`` (0-based) made unknown."""
    prefs = {p: list(v) for p, v in task["preferences"].items()}
    lst = prefs[party]
    prefs[party] = lst[:pos] + [{"unknown": [lst[pos], lst[pos + 1]]}] + lst[pos + 2:]
    return {**task, "preferences": prefs}


def parties(base: dict) -> list[str]:
    return list(base["agents"]) + (list(base["items"])
                                   if base["structure"] == "stable_matching" else [])


def _objective(structure: str, rng: random.Random) -> str:
    return FIXED_OBJECTIVE.get(structure) or rng.choice(OBJECTIVES[structure])


#: the tie status every member of a cue-balanced group has, per structure (issue 23, item 7):
#: True — more than one accepted action (object allocation, where ties among assignments
#: are the rule in the paper's design); False — exactly one (the other structures, whose
#: ACT tasks almost never tie in the paper's design: 10 of 540 apartment, 2 of 540
#: scheduling, none in stable matching). Equal within a structure, so a tie says nothing
#: about the gold decision.
BALANCED_TIES = {"allocation": True, "scheduling": False, "apartment": False,
                 "stable_matching": False}


def apply_edits(d: dict, edits: Sequence[dict]) -> dict:
    """Instance dict ``d`` with a repair applied: an edit with ``value`` sets that
    constraint's threshold, one without drops the constraint (and its permitted edit).
    O(constraints × edits)."""
    out = json.loads(json.dumps(d))
    by = {e["constraint"]: e for e in edits}
    cons = []
    for c in out.get("constraints", []):
        e = by.get(c["id"])
        if e is None:
            cons.append(c)
        elif "value" in e:
            cons.append({**c, "value": e["value"]})
    dropped = {c for c, e in by.items() if "value" not in e}
    out["constraints"] = cons
    if "permitted_edits" in out:
        out["permitted_edits"] = [x for x in out["permitted_edits"] if x not in dropped]
        if not out["permitted_edits"]:
            del out["permitted_edits"]
    if not out["constraints"]:
        del out["constraints"]
    return out


def template(base: dict) -> DecisionTask:
    """The parsed model of a base (:func:`base_content`) as an objective-source task of the
    structure's first objective: the one parse every candidate of the base derives from
    (:meth:`~prefcert.formal.decision.DecisionTask.derive`). O(size)."""
    return parse_decision({**base, "source": "objective",
                           "objectives": [OBJECTIVES[base["structure"]][0]]})


def _drawn_template(base: dict) -> DecisionTask:
    """:func:`template` of a base this module just drew (:func:`base_content`: complete
    strict lists over distinct names, integer attributes), built without re-validating
    what the draw guarantees; equal to :func:`template` (tested). O(size)."""
    s = base["structure"]
    agents, items = tuple(base["agents"]), tuple(base["items"])
    lists = base["preferences"]
    ranking = agents + items if s == "stable_matching" else agents
    prefs = {p: tuple((x,) for x in lists[p]) for p in ranking}
    attributes = {i: dict(base["attributes"][i]) for i in items} if s == "apartment" else {}
    return DecisionTask(s, "objective", agents, items, prefs, (OBJECTIVES[s][0],), (), (),
                        attributes, {k: v[0] for k, v in READINGS.items()})


def has_tie(task: DecisionTask, verdict: str, stats: Mapping[str, Any], judge: Judge
            ) -> bool | None:
    """Whether decision task ``task`` (judged ``verdict`` with ``stats``) has a *tie*: the
    answer it calls for is not unique under its stated rules. ACT: more than one action is
    accepted in every admissible world (``stats["shared"]`` > 1); ASK-PREFERENCE /
    ASK-OBJECTIVE: some admissible world (a completion, a rule of the menu) accepts more
    than one action; RELAX: after some minimum repair (``stats["repairs"]``) more than one
    action is accepted (the repaired task judged: the model with the repair applied,
    :meth:`~prefcert.formal.decision.DecisionTask.edited`, as :func:`apply_edits` applies it
    to the dict). None when a count is missing.

    Complexity: O(1) judge calls, one per minimum repair for RELAX.
    Reference: Li et al. 2026, §O.1 (all optimum ties are kept), §I (tie-rich tasks)."""
    if verdict == "act":
        shared = stats.get("shared")
        return None if shared is None else shared > 1
    if verdict == "relax":
        reps = stats.get("repairs")
        if reps is None:
            return None
        out = False
        for edits in reps:
            v, st = judge(task.edited(edits))
            if v != "act" or st.get("shared") is None:
                return None
            out = out or st["shared"] > 1
        return out
    counts = [w.get("accepted") for w in stats.get("worlds", ())]
    if not counts or any(c is None for c in counts):
        return None
    return any(c > 1 for c in counts)


# --------------------------------------------------------------------------- matched pairs

def preference_pair(base: dict, judge: Judge, rng: random.Random, tie: bool | None = None,
                    *, tm: DecisionTask | None = None) -> tuple[dict, dict] | None:
    """(ACT member, ASK-PREFERENCE member): one objective, the same party, two different
    hidden adjacent comparisons (another party's when no single party has both).
    ``tie``: when given, only members whose :func:`has_tie` is ``tie`` are kept. ``tm``:
    the base's :func:`template`, when the caller has it (default: parsed here)."""
    obj = _objective(base["structure"], rng)
    task = with_source(base, "preference", [obj])
    tm = template(base) if tm is None else tm
    ps = parties(base)
    rng.shuffle(ps)
    spare: dict[str, dict] = {}
    for p in ps:
        found: dict[str, list[dict]] = {"act": [], "ask_preference": []}
        positions = list(range(len(base["preferences"][p]) - 1))
        rng.shuffle(positions)
        for pos in positions:
            m = tm.derive(source="preference", objectives=[obj], hide=(p, pos))
            verdict, st = judge(m)
            if tie is not None and has_tie(m, verdict, st, judge) is not tie:
                continue
            found[verdict].append(hide(task, p, pos))
            if found["act"] and found["ask_preference"]:
                return found["act"][0], found["ask_preference"][0]
        for v, ts in found.items():
            if ts and v not in spare:
                spare[v] = ts[0]
    if len(spare) == 2:
        return spare["act"], spare["ask_preference"]
    return None


def objective_pair(base: dict, judge: Judge, rng: random.Random, *,
                   tm: DecisionTask | None = None) -> tuple[dict, dict] | None:
    """(ACT member with menu M, ASK-OBJECTIVE member with M plus one objective); menus of
    two are preferred, one objective is the fallback. ``tm``: as :func:`preference_pair`."""
    objs = list(OBJECTIVES[base["structure"]])
    tm = template(base) if tm is None else tm
    for size in (2, 1):
        menus = [list(m) for m in itertools.combinations(objs, size)]
        rng.shuffle(menus)
        for menu in menus:
            if judge(tm.derive(objectives=menu))[0] != "act":
                continue
            extra = [o for o in objs if o not in menu]
            rng.shuffle(extra)
            for o in extra:
                if judge(tm.derive(objectives=[*menu, o]))[0] == "ask_objective":
                    return (with_source(base, "objective", menu),
                            with_source(base, "objective", [*menu, o]))
    return None


def _constraint_candidates(base: dict, rng: random.Random, tries: int
                           ) -> list[tuple[list[dict], list[dict]]]:
    """Candidate (ACT constraints, RELAX constraints) that differ in one element, per
    structure; feasibility is judged by the caller."""
    s, agents, items = base["structure"], base["agents"], base["items"]
    out = []
    for _ in range(tries):
        if s == "apartment":
            rents = sorted(a["rent"] for a in base["attributes"].values())
            commutes = sorted(a["commute"] for a in base["attributes"].values())
            r_cap = rng.choice(rents[len(rents) // 2:])
            m_cap = rng.choice(commutes[: max(2, len(commutes) // 2)])
            ok = [i for i in items if base["attributes"][i]["rent"] <= r_cap and
                  base["attributes"][i]["commute"] <= m_cap]
            if not ok:
                continue
            act = [{"id": "rent", "type": "max", "attribute": "rent", "value": r_cap},
                   {"id": "commute", "type": "max", "attribute": "commute", "value": m_cap}]
            which = rng.choice(["rent", "commute"])
            lowest = min(base["attributes"][i][which] for i in ok)
            new = 100 * ((lowest - 1) // 100) if which == "rent" else lowest - 1
            if new <= 0:
                continue
            relax = [dict(c, value=new) if c["id"] == which else c for c in act]
            out.append((act, relax))
        elif s == "scheduling":
            free = rng.choice(items)
            act = []
            for t in items:
                if t == free:
                    continue
                for p in rng.sample(agents, rng.randint(1, 2)):
                    act.append({"id": f"u-{p}-{t}", "type": "unavailable", "agent": p,
                                "item": t})
            p = rng.choice(agents)
            out.append((act, act + [{"id": f"u-{p}-{free}", "type": "unavailable",
                                     "agent": p, "item": free}]))
        elif s == "allocation":
            k = rng.randint(1, 2)
            act = []
            used_a, used_i = set(), set()
            for j in range(k):
                kind = rng.choice(["require", "forbid"])
                a = rng.choice([x for x in agents if x not in used_a])
                i = rng.choice([x for x in items if x not in used_i])
                if kind == "require":
                    used_a.add(a)
                    used_i.add(i)
                act.append({"id": f"c{j + 1}", "type": kind, "agent": a, "item": i})
            c = rng.choice(act)                    # clash with a stated constraint
            if c["type"] == "forbid" or rng.random() < 0.2:
                a, i = c["agent"], c["item"]
            elif rng.random() < 0.5:
                a, i = c["agent"], rng.choice([x for x in items if x != c["item"]])
            else:
                a, i = rng.choice([x for x in agents if x != c["agent"]]), c["item"]
            out.append((act, act + [{"id": f"c{k + 1}", "type": "require", "agent": a,
                                     "item": i}]))
        else:
            k = rng.randint(0, 1)
            act = []
            for j in range(k):
                act.append({"id": f"c{j + 1}", "type": rng.choice(["forced", "forbidden"]),
                            "agent": rng.choice(agents), "item": rng.choice(items)})
            out.append((act, act + [{"id": f"c{k + 1}",
                                     "type": rng.choice(["forced", "forbidden"]),
                                     "agent": rng.choice(agents),
                                     "item": rng.choice(items)}]))
    return out


def constraint_pair(base: dict, judge: Judge, rng: random.Random, tries: int = 60, *,
                    tm: DecisionTask | None = None) -> tuple[dict, dict] | None:
    """(ACT member, RELAX member): stated constraints, every one permitted to change, the
    RELAX member one tightened threshold or one added constraint away, with a minimum
    repair of exactly one edit. ``tm``: as :func:`preference_pair`."""
    obj = _objective(base["structure"], rng)
    tm = template(base) if tm is None else tm
    for act_c, relax_c in _constraint_candidates(base, rng, tries):
        if judge(_constrained(tm, obj, act_c))[0] != "act":
            continue
        v, stats = judge(_constrained(tm, obj, relax_c))
        if v == "relax" and stats.get("edits") == 1:
            a = with_source(base, "constraint", [obj], constraints=act_c,
                            permitted_edits=[c["id"] for c in act_c])
            b = with_source(base, "constraint", [obj], constraints=relax_c,
                            permitted_edits=[c["id"] for c in relax_c])
            if not act_c:
                del a["constraints"], a["permitted_edits"]
            return a, b
    return None


def _constrained(tm: DecisionTask, obj: str, cons: Sequence[dict]) -> DecisionTask:
    """The model of the constraint-source task of ``tm``'s base with objective ``obj`` and
    the stated constraints ``cons``, every one permitted to change."""
    return tm.derive(source="constraint", objectives=[obj], constraints=cons,
                     permitted=[c["id"] for c in cons])


# --------------------------------------------------------------------------- cue-balanced

def objective_pair_balanced(base: dict, judge: Judge, rng: random.Random,
                            tie: bool | None = None, *, tm: DecisionTask | None = None
                            ) -> tuple[dict, dict] | None:
    """Cue-balanced (ACT member, ASK-OBJECTIVE member): both show three admissible rules
    (the paper's design shows two against three); the intervention member swaps one rule of
    the ACT member's menu for another, emptying the intersection. ``tie``: when given, both
    members' :func:`has_tie` is ``tie``. ``tm``: as :func:`preference_pair`."""
    objs = list(OBJECTIVES[base["structure"]])
    tm = template(base) if tm is None else tm
    menus = [list(m) for m in itertools.combinations(objs, 3)]
    rng.shuffle(menus)
    for menu in menus:
        a = tm.derive(objectives=menu)
        va, sa = judge(a)
        if va != "act" or (tie is not None and has_tie(a, va, sa, judge) is not tie):
            continue
        swaps = [(i, o) for i in range(len(menu)) for o in objs if o not in menu]
        rng.shuffle(swaps)
        for i, o in swaps:
            other = [*menu[:i], o, *menu[i + 1:]]
            b = tm.derive(objectives=other)
            vb, sb = judge(b)
            if vb == "ask_objective" and (tie is None or has_tie(b, vb, sb, judge) is tie):
                return with_source(base, "objective", menu), \
                    with_source(base, "objective", other)
    return None


def _like(c: dict, base: dict, rng: random.Random) -> dict:
    """A random constraint of the same type as ``c`` (same id, except scheduling's ids,
    which name their participant and slot)."""
    agents, items = base["agents"], base["items"]
    a, i = rng.choice(agents), rng.choice(items)
    if c["type"] == "unavailable":
        return {"id": f"u-{a}-{i}", "type": "unavailable", "agent": a, "item": i}
    return {**c, "agent": a, "item": i}


def constraint_pair_balanced(base: dict, judge: Judge, rng: random.Random, tries: int = 60,
                             tie: bool | None = None, *, tm: DecisionTask | None = None
                             ) -> tuple[dict, dict] | None:
    """Cue-balanced (ACT member, RELAX member): the same number of stated constraints in
    both. Where the paper's RELAX member adds a constraint (scheduling, allocation, stable
    matching), the ACT member carries one more constraint of the same type that leaves the
    task feasible, so the members differ in that one constraint; apartment pairs (one
    tightened threshold) are as in :func:`constraint_pair`. ``tie``: when given, both
    members' :func:`has_tie` is ``tie``. ``tm``: as :func:`preference_pair`."""
    obj = _objective(base["structure"], rng)
    tm = template(base) if tm is None else tm
    for act_c, relax_c in _constraint_candidates(base, rng, tries):
        if len(relax_c) > len(act_c):
            ids = {c["id"] for c in act_c}
            extra = [x for x in (_like(relax_c[-1], base, rng) for _ in range(8))
                     if x["id"] not in ids and x != relax_c[-1]]
        else:
            extra = [None]
        b = _constrained(tm, obj, relax_c)
        v, stats = judge(b)
        if v != "relax" or stats.get("edits") != 1:
            continue
        if tie is not None and has_tie(b, v, stats, judge) is not tie:
            continue
        for x in extra:
            cons = act_c if x is None else [*act_c, x]
            a = _constrained(tm, obj, cons)
            va, sa = judge(a)
            if va == "act" and (tie is None or has_tie(a, va, sa, judge) is tie):
                return (with_source(base, "constraint", [obj], constraints=cons,
                                    permitted_edits=[c["id"] for c in cons]),
                        with_source(base, "constraint", [obj], constraints=relax_c,
                                    permitted_edits=[c["id"] for c in relax_c]))
    return None


PAIRS = {"preference": preference_pair, "objective": objective_pair,
         "constraint": constraint_pair}
#: the cue-balanced builders, in the order a base is tried (the most selective first: the
#: tie-rich objective pairs of allocation are drawn from about one base in six); groups are
#: returned in the order of :data:`PAIRS`
PAIRS_BALANCED = {"objective": objective_pair_balanced, "preference": preference_pair,
                  "constraint": constraint_pair_balanced}
#: bases a cue-balanced group may draw (a tie-rich allocation group takes about 25 at n = 4)
BALANCED_ATTEMPTS = 2000


def group(structure: str, n: int, judge: Judge, rng: random.Random,
          attempts: int | None = None, stats: dict | None = None, balanced: bool = False
          ) -> dict[str, tuple[dict, dict]]:
    """One six-task group: source -> (ACT member, intervention member), all from one
    base (redrawn until every pair exists). Raises Exhausted after ``attempts`` bases
    (default 50, :data:`BALANCED_ATTEMPTS` when ``balanced``). ``stats["draws"]`` counts
    the bases drawn. ``balanced``: the cue-balanced objective and constraint pairs
    (:func:`objective_pair_balanced`, :func:`constraint_pair_balanced`), every member with
    the structure's tie status (:data:`BALANCED_TIES`, :func:`has_tie`)."""
    pairs = PAIRS_BALANCED if balanced else PAIRS
    extra = {"tie": BALANCED_TIES[structure]} if balanced else {}
    if attempts is None:
        attempts = BALANCED_ATTEMPTS if balanced else 50
    for _ in range(attempts):
        if stats is not None:
            stats["draws"] = stats.get("draws", 0) + 1
        base = base_content(structure, n, rng)
        tm = _drawn_template(base)            # one model of the base for its three pairs
        out = {}
        for source, make in pairs.items():
            pair = make(base, judge, rng, **extra, tm=tm)
            if pair is None:
                break
            out[source] = pair
        else:
            return {source: out[source] for source in PAIRS}
    raise Exhausted(f"no {structure} group at n = {n} in {attempts} bases")


# --------------------------------------------------------------------------- local-cue pairs

def _degrees(edges: set[tuple[str, str]]) -> tuple[dict, dict]:
    da: dict[str, int] = {}
    di: dict[str, int] = {}
    for a, i in edges:
        da[a] = da.get(a, 0) + 1
        di[i] = di.get(i, 0) + 1
    return da, di


def _max_matching(agents, edges: set[tuple[str, str]]) -> int:
    adj: dict[str, list[str]] = {a: [] for a in agents}
    for a, i in sorted(edges):
        adj[a].append(i)
    mate: dict[str, str] = {}

    def aug(a, seen):
        for i in adj[a]:
            if i not in seen:
                seen.add(i)
                if i not in mate or aug(mate[i], seen):
                    mate[i] = a
                    return True
        return False
    return sum(aug(a, set()) for a in agents)


def compatibility_pair(base: dict, rng: random.Random, tries: int = 400,
                       stats: dict | None = None
                       ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]] | None:
    """Two compatibility graphs on the base's agents and items with identical degrees of
    every agent and every item: the first has a perfect matching, the second a maximum
    matching one short (degree-preserving double edge swaps a–i, b–j -> a–j, b–i).
    ``stats["draws"]`` counts the graphs drawn."""
    agents, items = base["agents"], base["items"]
    n = len(agents)
    for k in range(tries):
        if stats is not None and k:
            stats["draws"] = stats.get("draws", 0) + 1
        # a graph without a perfect matching: a Hall violator S (|S| = s) whose agents only
        # see s - 1 items, plus random edges elsewhere
        s = rng.randint(2, max(2, n // 2))
        S = rng.sample(agents, s)
        NS = rng.sample(items, s - 1)
        edges = {(a, i) for a in S for i in NS if rng.random() < 0.8}
        for a in agents:
            if a in S:
                continue
            for i in rng.sample(items, rng.randint(1, 3)):
                edges.add((a, i))
        da, di = _degrees(edges)
        if len(da) < n or len(di) < n or _max_matching(agents, edges) != n - 1:
            continue
        cur = set(edges)
        for _ in range(200):
            (a, i), (b, j) = rng.sample(sorted(cur), 2)
            if a == b or i == j or (a, j) in cur or (b, i) in cur:
                continue
            cur = (cur - {(a, i), (b, j)}) | {(a, j), (b, i)}
            if _max_matching(agents, cur) == n:
                return sorted(cur), sorted(edges)
    return None


def forbid_constraints(base: dict, edges: Sequence[tuple[str, str]]) -> list[dict]:
    """The compatibility graph as stated constraints: one ``forbid`` per non-edge."""
    e = set(map(tuple, edges))
    return [{"id": f"f-{a}-{i}", "type": "forbid", "agent": a, "item": i}
            for a in base["agents"] for i in base["items"] if (a, i) not in e]


def preference_cue(task: dict, stats: Mapping[str, Any]) -> tuple:
    """Surface cues of a preference task: objective, position of the hidden comparison,
    and the sorted numbers of accepted actions per world."""
    pos = next(k for p in parties(task) for k, e in enumerate(task["preferences"][p])
               if isinstance(e, dict))
    return (task["objectives"][0], pos, tuple(sorted(w["accepted"] for w in stats["worlds"])))


def objective_cue(task: dict, stats: Mapping[str, Any]) -> tuple:
    """Surface cues of an objective task: the menu and the optimum count per objective."""
    return (tuple(task["objectives"]), tuple(w["accepted"] for w in stats["worlds"]))


def constraint_cue(task: dict) -> tuple:
    """Surface cues of a constraint task (module docstring)."""
    s = task["structure"]
    cs = task.get("constraints", [])
    if s == "allocation":
        edges = {(a, i) for a in task["agents"] for i in task["items"]} - \
            {(c["agent"], c["item"]) for c in cs}
        da, di = _degrees(edges)
        return (tuple(da.get(a, 0) for a in task["agents"]),
                tuple(di.get(i, 0) for i in task["items"]))
    if s == "scheduling":
        count = {p: 0 for p in task["agents"]}
        for c in cs:
            count[c["agent"]] += 1
        return tuple(sorted(count.values()))
    if s == "apartment":
        return tuple(sorted((c["id"], sum(a[c["attribute"]] > c["value"]
                                          for a in task["attributes"].values())) for c in cs))
    return tuple(sorted((c["type"], task["preferences"][c["agent"]].index(c["item"]))
                        for c in cs))


def local_cue_pair(structure: str, n: int, source: str, judge: Judge, rng: random.Random,
                   attempts: int = 400, stats: dict | None = None) -> tuple[dict, dict]:
    """One local-cue-matched pair (ACT member, intervention member) of ``source``: draws
    tasks until an ACT and an intervention task share their cue (module docstring).
    Raises Exhausted after ``attempts`` draws; ``stats["draws"]`` counts them."""
    want = INTERVENTION[source]
    pool: dict[str, dict[tuple, dict]] = {"act": {}, want: {}}
    for _ in range(attempts):
        if stats is not None:
            stats["draws"] = stats.get("draws", 0) + 1
        base = base_content(structure, n, rng)
        if source == "constraint" and structure == "allocation":
            got = compatibility_pair(base, rng, stats=stats)
            if got is None:
                continue
            obj = _objective(structure, rng)
            tm = _drawn_template(base)
            out = []
            for edges in got:
                cs = forbid_constraints(base, edges)
                out.append(with_source(base, "constraint", [obj], constraints=cs,
                                       permitted_edits=[c["id"] for c in cs],
                                       meta={"family": "compatibility"}))
            v1, _ = judge(_constrained(tm, obj, out[0]["constraints"]))
            v2, st2 = judge(_constrained(tm, obj, out[1]["constraints"]))
            if v1 == "act" and v2 == "relax" and st2.get("edits") == 1:
                return out[0], out[1]
            continue
        tm = _drawn_template(base)
        if source == "preference":
            obj = _objective(structure, rng)
            party, pos = rng.choice(parties(base)), rng.randrange(n - 1)
            t = hide(with_source(base, "preference", [obj]), party, pos)
            m = tm.derive(source="preference", objectives=[obj], hide=(party, pos))
        elif source == "objective":
            objs = list(OBJECTIVES[structure])
            t = with_source(base, "objective", rng.sample(objs, rng.randint(2, 3)))
            m = tm.derive(objectives=t["objectives"])
        else:
            cands = _constraint_candidates(base, rng, 1)
            if not cands:
                continue
            cs = rng.choice(cands[0])
            obj = _objective(structure, rng)
            t = with_source(base, "constraint", [obj],
                            constraints=cs, permitted_edits=[c["id"] for c in cs])
            m = _constrained(tm, obj, cs)
        v, st = judge(m)
        if v not in pool or (v == "relax" and st.get("edits") != 1):
            continue
        cue = preference_cue(t, st) if source == "preference" else \
            objective_cue(t, st) if source == "objective" else constraint_cue(t)
        pool[v].setdefault(cue, t)
        other = pool[want if v == "act" else "act"].get(cue)
        if other is not None:
            return (t, other) if v == "act" else (other, t)
    raise Exhausted(f"no local-cue {source} pair for {structure} at n = {n}")
