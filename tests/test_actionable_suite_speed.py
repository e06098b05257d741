"""Fast paths of ``generate actionable-indeterminacy`` (issue 24, item 3, second round)
against the formulations they replace: the sampler's judge of a hidden swap in a
single-choice task (against the oracle's general world enumeration, on random and
tie-heavy worlds), and the CP-SAT minimum-edit enumeration that reuses its minimising
solve (against brute force over the edit sets). Expected values never come from the fast
path under test."""
from __future__ import annotations

import itertools
import random

import pytest

import prefcert.oracles.decision as O
from prefcert.encodings.decision import minimum_edit_sets
from prefcert.formal.decision import RANK_OBJECTIVES, parse_decision, stated
from prefcert.oracles.decision import decide, solve_world


def _single_choice(structure: str, agents: int, items: int, rng: random.Random,
                   ties: bool) -> dict:
    """A fully specified single-choice task dict. ``ties``: every agent ranks the items
    in one of two orders (many equal item values: ties among optima)."""
    ag = [f"P{k}" for k in range(1, agents + 1)]
    it = [f"T{k}" for k in range(1, items + 1)]
    orders = [rng.sample(it, items) for _ in range(2)]
    prefs = {a: list(rng.choice(orders)) if ties else rng.sample(it, items) for a in ag}
    out = {"domain": "decision", "structure": structure, "agents": ag, "items": it,
           "preferences": prefs}
    if structure == "apartment":
        out["attributes"] = {i: {"rent": 1000, "commute": 10} for i in it}
    return out


def _hidden(base: dict, party: str, pos: int, objective: str) -> dict:
    lst = list(base["preferences"][party])
    prefs = dict(base["preferences"])
    prefs[party] = lst[:pos] + [{"unknown": [lst[pos], lst[pos + 1]]}] + lst[pos + 2:]
    return {**base, "preferences": prefs, "source": "preference", "objectives": [objective]}


def _general(task) -> tuple[str, dict]:
    """The verdict and stats of the general path: every world solved, accepted sets
    intersected (the certificate path, which the fast judge does not take)."""
    out = decide(task)
    return out.verdict, out.stats


@pytest.mark.parametrize("structure", ["scheduling", "apartment"])
@pytest.mark.parametrize("ties", [False, True])
def test_hidden_swap_judge_matches_the_general_path(structure, ties):
    rng = random.Random(f"{structure}-{ties}")
    seen = set()
    for _ in range(60):
        base = _single_choice(structure, rng.randint(1, 5), rng.randint(2, 5), rng, ties)
        for obj in RANK_OBJECTIVES:
            for party in base["agents"]:
                for pos in range(len(base["items"]) - 1):
                    task = parse_decision(_hidden(base, party, pos, obj))
                    got = O._hidden_swap(task)
                    assert got is not None
                    want = _general(parse_decision(_hidden(base, party, pos, obj)))
                    assert (got.verdict, got.stats) == want
                    assert decide(task, certificate=False).stats == want[1]
                    seen.add(got.verdict)
    assert seen == {"act", "ask_preference"}          # both verdicts were exercised


def test_hidden_swap_judge_on_derived_tasks_shares_one_lineage():
    """Many candidates of one parse (the samplers' derive), each judged like its own
    fresh parse; a second base with the same names gets its own ranks."""
    rng = random.Random(5)
    for structure in ("scheduling", "apartment"):
        for _ in range(20):
            base = _single_choice(structure, 4, 5, rng, ties=rng.random() < 0.5)
            tm = parse_decision({**base, "source": "objective", "objectives": ["utilitarian"]})
            for obj in RANK_OBJECTIVES:
                for party, pos in itertools.product(base["agents"], range(4)):
                    m = tm.derive(source="preference", objectives=[obj], hide=(party, pos))
                    got = O._hidden_swap(m)
                    want = _general(parse_decision(_hidden(base, party, pos, obj)))
                    assert got is not None and (got.verdict, got.stats) == want


def test_hidden_swap_judge_declines_other_tasks():
    rng = random.Random(2)
    base = _single_choice("scheduling", 3, 4, rng, ties=False)
    lst = base["preferences"]["P1"]
    three = {**base, "source": "preference", "objectives": ["utilitarian"],
             "preferences": {**base["preferences"],
                             "P1": [{"unknown": lst[:3]}, lst[3]]}}
    cons = {**_hidden(base, "P1", 0, "utilitarian"),
            "constraints": [{"id": "u", "type": "unavailable", "agent": "P2",
                             "item": lst[3]}]}
    menu = {**base, "source": "objective", "objectives": ["utilitarian", "egalitarian"]}
    for data in (three, cons, menu):
        task = parse_decision(data)
        assert O._hidden_swap(task) is None
        assert decide(task, certificate=False).stats == decide(task).stats


def _brute_edit_sets(task) -> tuple[int | None, list[tuple[str, ...]]]:
    """Every smallest set of permitted constraints whose lifting makes the one world
    feasible, by the oracle's world solve over every subset."""
    (world,) = task.worlds()
    cs = stated(task)
    for k in range(0, len(task.permitted) + 1):
        found = [e for e in itertools.combinations(task.permitted, k)
                 if solve_world(task, world, cs.without(e), {}).feasible]
        if found:
            return k, found
    return None, []


def test_minimum_edit_sets_match_brute_force():
    rng = random.Random(11)
    checked = 0
    for _ in range(40):
        n = rng.randint(2, 4)
        ag = [f"A{k}" for k in range(1, n + 1)]
        it = [f"O{k}" for k in range(1, n + 1)]
        cons = []
        for j in range(rng.randint(2, 6)):
            kind = rng.choice(["require", "forbid"])
            cons.append({"id": f"c{j}", "type": kind, "agent": rng.choice(ag),
                         "item": rng.choice(it)})
        data = {"domain": "decision", "structure": "allocation", "agents": ag, "items": it,
                "preferences": {a: rng.sample(it, n) for a in ag}, "source": "constraint",
                "objectives": ["utilitarian"], "constraints": cons,
                "permitted_edits": [c["id"] for c in cons]}
        task = parse_decision(data)
        want = _brute_edit_sets(task)
        if want[0] in (None, 0):
            continue
        (world,) = task.worlds()
        k, sets = minimum_edit_sets(task, world, 10.0, 0)
        assert (k, sorted(sets)) == (want[0], sorted(want[1]))
        checked += 1
    assert checked >= 10


# --------------------------------------------------------------------------- CP-SAT witness

def _two_sided(structure: str, n: int, rng: random.Random) -> dict:
    ag = [f"A{k}" for k in range(1, n + 1)]
    it = [f"B{k}" for k in range(1, n + 1)]
    prefs = {a: rng.sample(it, n) for a in ag}
    if structure == "stable_matching":
        prefs.update({b: rng.sample(ag, n) for b in it})
    return {"domain": "decision", "structure": structure, "agents": ag, "items": it,
            "preferences": prefs}


def _fixed_model(task, world, action, stability: bool):
    """The engine's builder with every pair variable fixed to ``action``: its cost
    expression and (optionally) the world's stability cuts, solved by CP-SAT."""
    from prefcert.encodings.decision import _Builder
    b = _Builder(task)
    for (a, i), v in b.x.items():
        b.m.add(v == int(action[a] == i))
    if stability:
        b.stability(world)
    return b, b.cost(world)


def _blocking_free(world, action) -> bool:
    """No pair (a, b) that both rank above their partners: brute force on positions."""
    inv = {b: a for a, b in action.items()}
    p = world.prefs
    return not any(p[a].index(b) < p[a].index(action[a]) and
                   p[b].index(a) < p[b].index(inv[b])
                   for a in action for b in inv)


@pytest.mark.parametrize("structure", ["allocation", "stable_matching"])
def test_cost_and_stability_of_a_fixed_matching_match_the_model(structure):
    from prefcert.encodings.decision import _cost_at, _stable_in
    from prefcert.formal.decision import OBJECTIVES
    rng = random.Random(structure)
    for _ in range(12):
        n = rng.randint(2, 4)
        base = _two_sided(structure, n, rng)
        for obj in OBJECTIVES[structure]:
            task = parse_decision({**base, "source": "objective", "objectives": [obj]})
            (world,) = task.worlds()
            for perm in itertools.permutations(task.items):
                x = dict(zip(task.agents, perm))
                b, expr = _fixed_model(task, world, x, False)
                s = b.solve(10.0, 0, expr)
                assert round(s.objective_value) == _cost_at(task, world, x)
                if structure == "stable_matching":
                    assert _stable_in(task, world, x) == _blocking_free(world, x)


@pytest.mark.parametrize("structure", ["allocation", "stable_matching"])
def test_a_solved_witness_satisfies_the_joint_model(structure):
    """Whenever a world optimum is taken as the shared action, the joint model (every
    world's bound and cuts) is feasible and accepts it with its pair variables fixed."""
    from prefcert.encodings.decision import _opt, _Builder, _post_world, _solved_witness
    from prefcert.formal.decision import OBJECTIVES
    rng = random.Random(f"w-{structure}")
    found = 0
    for _ in range(25):
        n = rng.randint(2, 4)
        base = _two_sided(structure, n, rng)
        objs = list(OBJECTIVES[structure])
        for data in ({**base, "source": "objective", "objectives": rng.sample(objs, 2)},
                     _hidden(base, rng.choice(base["agents"]), rng.randrange(n - 1),
                             rng.choice(objs))):
            task = parse_decision(data)
            cs = stated(task)
            worlds = task.worlds()
            opts = [_opt(task, w, cs, 10.0, 0) for w in worlds]
            bounds = [o[0] for o in opts]
            x = _solved_witness(task, worlds, [o[1] for o in opts], bounds)
            joint = _Builder(task)
            joint.constraints(cs)
            for w, bound in zip(worlds, bounds):
                _post_world(joint, task, w, bound)
            feasible = joint.solve(10.0, 0) is not None
            if x is None:
                continue
            found += 1
            assert feasible
            for (a, i), v in joint.x.items():
                joint.m.add(v == int(x[a] == i))
            assert joint.solve(10.0, 0) is not None
    assert found >= 10


def test_item_costs_kept_per_world_order_items_as_the_oracle_does():
    """The CP-SAT engine's kept item costs (single-choice structures) order the items as
    the oracle's objective values do (equal costs exactly for equal values), on worlds with
    many ties; a world asked twice gives the same costs."""
    from prefcert.encodings.decision import _item_costs

    def _item_cost(task, world, i):
        return _item_costs(task, world)[task.items.index(i)]
    rng = random.Random(7)
    for structure in ("scheduling", "apartment"):
        for _ in range(30):
            base = _single_choice(structure, rng.randint(1, 5), rng.randint(2, 6), rng,
                                  ties=rng.random() < 0.5)
            for obj in RANK_OBJECTIVES:
                task = parse_decision({**base, "source": "objective", "objectives": [obj]})
                (world,) = task.worlds()
                vals, keys = O._item_values(task, world)
                cost = {i: _item_cost(task, world, i) for i in task.items}
                assert cost == {i: _item_cost(task, world, i) for i in task.items}
                for i, j in itertools.product(task.items, repeat=2):
                    assert (cost[i] < cost[j]) == (keys[i] < keys[j])
                    assert (cost[i] == cost[j]) == (vals[i] == vals[j])


def test_relax_judge_runs_no_deletion_filter(monkeypatch):
    """The samplers' judge of a RELAX task (``certificate=False``) computes the same edits,
    repairs, actions and stats as the certificate path, without the conflicts' deletion
    filters (which only the certificate reads)."""
    from prefcert.bench.actionable.responses import design_group
    calls = []
    real = O._conflict

    def counted(*args):
        calls.append(1)
        return real(*args)
    monkeypatch.setattr(O, "_conflict", counted)
    seen = 0
    for structure in ("allocation", "scheduling", "apartment", "stable_matching"):
        for index in range(2):
            for d in design_group(structure, 4, 0, index):
                if d["meta"]["source"] != "constraint" or d["meta"]["role"] != "intervention":
                    continue
                calls.clear()
                full = decide(parse_decision(d))
                assert full.verdict == "relax" and full.certificate["conflicts"] and calls
                calls.clear()
                fast = decide(parse_decision(d), certificate=False)
                assert calls == []
                assert (fast.verdict, fast.solution, fast.stats) == \
                    (full.verdict, full.solution, full.stats)
                assert fast.certificate is None
                seen += 1
    assert seen == 8


def _egalitarian_from_one(task, world, cs):
    """The egalitarian allocation world the long way: every cut k = 1, 2, ... until the
    first perfect one (the formulation the lower bound of the fast loop replaces)."""
    masks = O.allowed_masks(task, cs)
    order = O._name_order(task)
    lists, _ = O.world_ranks(task, world)
    prev = None
    for k in range(1, len(task.items) + 1):
        cut = [mask & sum(1 << i for i in lst[:k]) for mask, lst in zip(masks, lists)]
        mate = O._max_matching_masks(cut, order)
        if min(mate) >= 0:
            hall = O._hall_masks(task, *prev) if k > 1 else None
            return k, {"optimum": O._mate_json(task, mate), "hall": hall}, cut
        prev = (cut, mate)
    return None


def _egalitarian_task(rng: random.Random, n: int, forbid_top: int, extra: bool = True
                      ) -> dict:
    ag = [f"A{k}" for k in range(1, n + 1)]
    it = [f"O{k}" for k in range(1, n + 1)]
    prefs = {a: rng.sample(it, n) for a in ag}
    cons = [{"id": f"f{a}{i}", "type": "forbid", "agent": a, "item": i}
            for a in ag for i in prefs[a][:forbid_top]]
    cons += [{"id": f"r{k}", "type": "forbid", "agent": rng.choice(ag),
              "item": rng.choice(it)} for k in range(rng.randint(0, n) if extra else 0)]
    cons = list({c["id"]: c for c in cons}.values())
    return {"domain": "decision", "structure": "allocation", "agents": ag, "items": it,
            "preferences": prefs, "source": "constraint", "objectives": ["egalitarian"],
            "constraints": cons, "permitted_edits": [c["id"] for c in cons]}


def test_egalitarian_world_starts_below_the_first_allowed_ranks(monkeypatch):
    """An egalitarian allocation world skips the cuts where some agent has no item (no
    perfect matching there): the same optimum, proof (Hall set of the last failing cut)
    and tight graph as the loop from k = 1, and one matching per cut from one below the
    largest first allowed rank."""
    rng = random.Random(24)
    feasible = 0
    for _ in range(300):
        n = rng.randint(2, 6)
        task = parse_decision(_egalitarian_task(rng, n, rng.randint(0, n - 1)))
        (world,) = task.worlds()
        cs = stated(task)
        want = _egalitarian_from_one(task, world, cs)
        got = solve_world(task, world, cs)
        if want is None:
            assert not got.feasible
            continue
        feasible += 1
        k, proof, cut = want
        assert (got.value, got.proof, got.graph, got.example) == \
            (k, proof, cut, proof["optimum"])
    assert feasible > 100
    # every agent's two favourite items forbidden: cuts 1 and 2 cannot be perfect, and
    # cut 2 (the one below the first allowed ranks, 3) is the first tried
    calls = []
    real = O._max_matching_masks

    def counted(*args):
        calls.append(1)
        return real(*args)
    monkeypatch.setattr(O, "_max_matching_masks", counted)
    task = parse_decision(_egalitarian_task(random.Random(3), 6, 2, extra=False))
    (world,) = task.worlds()
    cs = stated(task)
    r = solve_world(task, world, cs)
    assert r.feasible and r.value >= 3 and r.proof["hall"]
    assert len(calls) == r.value - 1
