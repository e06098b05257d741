"""The fast paths of ``generate actionable-indeterminacy`` (issue 24, item 3) against the
plain ones: worlds shared by the tasks of one parse, the oracle's per-world caches and
perfect-matching counts, the CP-SAT builder's copied base model, one template parse per
drawn base. Expected values come from fresh parses, brute force or models built here the
way the engine built them before; the pins count calls, never time."""
from __future__ import annotations

import itertools
import random

import pytest

import prefcert.formal.decision as F
import prefcert.generators.decision as G
import prefcert.oracles.decision as O
from prefcert.bench.actionable.responses import oracle_judge
from prefcert.formal.decision import OBJECTIVES, STRUCTURES, parse_decision
from prefcert.generators.decision import (_constraint_candidates, base_content, hide,
                                          parties, template, with_source)


def _candidates(structure: str, rng: random.Random, n: int):
    """(derived model, the candidate's instance dict) for one base: objective menus,
    hidden comparisons and constraint sets, as the samplers draw them."""
    base = base_content(structure, n, rng)
    tm = template(base)
    objs = list(OBJECTIVES[structure])
    out = []
    for size in (1, 2, 3):
        menu = rng.sample(objs, size)
        out.append((tm.derive(objectives=menu), with_source(base, "objective", menu)))
    obj = rng.choice(objs)
    for party in parties(base)[:3]:
        for pos in range(n - 1):
            out.append((tm.derive(source="preference", objectives=[obj], hide=(party, pos)),
                        hide(with_source(base, "preference", [obj]), party, pos)))
    for act, relax in _constraint_candidates(base, rng, 4):
        for cons in (act, relax):
            ids = [c["id"] for c in cons]
            data = with_source(base, "constraint", [obj], constraints=cons,
                               permitted_edits=ids)
            if not cons:
                del data["constraints"], data["permitted_edits"]
            out.append((tm.derive(source="constraint", objectives=[obj], constraints=cons,
                                  permitted=ids), data))
    return out


@pytest.mark.parametrize("structure", STRUCTURES)
def test_derived_worlds_equal_a_fresh_parse(structure):
    rng = random.Random(f"worlds-{structure}")
    for n in (3, 4):
        for model, data in _candidates(structure, rng, n):
            fresh = parse_decision(data)
            got, want = model.worlds(), fresh.worlds()
            assert [w.descriptor() for w in got] == [w.descriptor() for w in want]
            assert [dict(w.prefs) for w in got] == [dict(w.prefs) for w in want]
            assert [list(w.prefs) for w in got] == [list(w.prefs) for w in want]
            assert model.unknown_blocks() == fresh.unknown_blocks()
            assert model.world_count() == fresh.world_count()


@pytest.mark.parametrize("structure", STRUCTURES)
def test_judgements_of_derived_models_equal_fresh_ones(structure):
    """The samplers' judge on derived models sharing one memo and one world pool gives
    what the oracle gives on a fresh parse of each candidate without a memo."""
    rng = random.Random(f"judge-{structure}")
    for n in (3, 4, 5):
        memo: dict = {}
        for model, data in _candidates(structure, rng, n):
            assert oracle_judge(model, memo) == oracle_judge(parse_decision(data))
            if model.source == "constraint":
                tasks = [model, parse_decision(data)]
                got = [O.decide(t) for t in tasks]
                assert got[0].verdict == got[1].verdict
                assert got[0].solution == got[1].solution
                assert got[0].certificate == got[1].certificate


def test_one_world_per_completion_and_objective_per_parse(monkeypatch):
    built = []

    class Counting(F.World):
        def __init__(self, *args, **kwargs):
            built.append(args[1])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(F, "World", Counting)
    base = base_content("allocation", 4, random.Random(1))
    tm = template(base)
    tm.derive(objectives=["utilitarian", "egalitarian"]).worlds()
    tm.derive(objectives=["egalitarian", "leximin"]).worlds()
    tm.derive(objectives=["leximin"]).worlds()
    assert built == ["utilitarian", "egalitarian", "leximin"]
    # a hidden comparison: the known order is the parse's own world, the swap one more
    built.clear()
    t1 = tm.derive(source="preference", objectives=["leximin"], hide=("A1", 0))
    t2 = tm.derive(source="preference", objectives=["leximin"], hide=("A1", 1))
    w1, w2 = t1.worlds(), t2.worlds()
    # two completions each; A1's list as written is a completion of both: one world
    assert len(built) == 3
    assert w1[0] is w2[0] and w1[1] is not w2[1]
    assert t1.derive(source="preference").worlds() == w1
    assert len(built) == 3                 # the same lineage and completions: reused


def _perfect_brute(agents, items, adj) -> int:
    return sum(all(i in adj[a] for a, i in zip(agents, perm))
               for perm in itertools.permutations(items))


def test_count_perfect_against_brute_force():
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 6)
        base = base_content("allocation", n, rng)
        task = template(base)
        p = rng.random()
        adj = {a: {i for i in task.items if rng.random() < p} for a in task.agents}
        want = _perfect_brute(task.agents, task.items, adj)
        assert O.count_perfect(task, adj) == want
        assert O.count_perfect(task, adj) == want          # (the kept count)


def test_count_perfect_keeps_counts(monkeypatch):
    monkeypatch.setattr(O, "_COUNTS", {})
    task = template(base_content("allocation", 4, random.Random(2)))
    adj = {a: set(task.items) for a in task.agents}
    assert O.count_perfect(task, adj) == 24
    assert len(O._COUNTS) == 1
    assert O.count_perfect(task, {a: set(s) for a, s in adj.items()}) == 24
    assert len(O._COUNTS) == 1


def _max_matching_size_brute(agents, adj) -> int:
    best = 0
    items = [*sorted(set().union(*adj.values())), None]
    for choice in itertools.product(items, repeat=len(agents)):
        got = [i for a, i in zip(agents, choice) if i is not None]
        if all(i is None or i in adj[a] for a, i in zip(agents, choice)) and \
                len(got) == len(set(got)):
            best = max(best, len(got))
    return best


def test_max_matching_is_maximum():
    rng = random.Random(11)
    for _ in range(150):
        n = rng.randint(1, 4)
        agents = [f"A{k}" for k in range(n)]
        items = [f"O{k}" for k in range(n)]
        adj = {a: {i for i in items if rng.random() < 0.5} for a in agents}
        m = O.max_matching(adj)
        assert all(m[a] in adj[a] for a in m) and len(set(m.values())) == len(m)
        assert len(m) == _max_matching_size_brute(agents, adj)


def test_allowed_without_constraints_is_every_pair():
    task = template(base_content("allocation", 3, random.Random(4)))
    got = O.allowed(task, F.stated(task))
    assert got == {a: set(task.items) for a in task.agents}
    got[task.agents[0]].clear()                              # fresh sets every call
    assert O.allowed(task, F.stated(task))[task.agents[0]] == set(task.items)


def test_one_template_per_drawn_base_and_no_parse(monkeypatch):
    parses, templates = [], []
    real = G._drawn_template

    def counting(base):
        templates.append(1)
        return real(base)

    monkeypatch.setattr(G, "parse_decision", lambda data: parses.append(1))
    monkeypatch.setattr(G, "_drawn_template", counting)
    for structure in STRUCTURES:
        templates.clear()
        stats: dict = {}
        memo: dict = {}
        G.group(structure, 4, lambda t: oracle_judge(t, memo), random.Random(5),
                stats=stats)
        assert len(templates) == stats["draws"]
        templates.clear()
        stats = {}
        G.local_cue_pair(structure, 4, "objective", lambda t: oracle_judge(t, memo),
                         random.Random(6), stats=stats)
        assert len(templates) == stats["draws"]
    assert parses == []


# --------------------------------------------------------------------------- CP-SAT

def _old_base_proto(task) -> str:
    """The base model as the builder built it before (every Boolean, then exactly-one per
    agent and per item)."""
    from prefcert.encodings.decision import _Model
    m = _Model()
    if task.structure in ("scheduling", "apartment"):
        y = {i: m.new_bool_var(f"y_{i}") for i in task.items}
        m.add_exactly_one(y.values())
    else:
        x = {(a, i): m.new_bool_var(f"x_{a}_{i}") for a in task.agents for i in task.items}
        for a in task.agents:
            m.add_exactly_one(x[(a, i)] for i in task.items)
        for i in task.items:
            m.add_exactly_one(x[(a, i)] for a in task.agents)
    return str(m.proto)


def _old_stability(b, world) -> None:
    rk = {p: {x: r for r, x in enumerate(o, 1)} for p, o in world.prefs.items()}
    t, x = b.task, b.x
    for a in t.agents:
        ra = rk[a]
        for bb in t.items:
            rb = rk[bb]
            terms = [x[(a, bb)]]
            terms += [x[(a, b2)] for b2 in t.items if ra[b2] < ra[bb]]
            terms += [x[(a2, bb)] for a2 in t.agents if rb[a2] < rb[a]]
            b.m.add_bool_or(terms)


@pytest.mark.parametrize("structure", STRUCTURES)
def test_cpsat_builder_models_equal_fresh_builds(structure):
    pytest.importorskip("ortools")
    from prefcert.encodings.decision import _Builder
    rng = random.Random(f"cpsat-{structure}")
    for n in (2, 3, 5):
        for model, _ in _candidates(structure, rng, n)[:6]:
            b = _Builder(model)
            assert str(b.m.proto) == _old_base_proto(model)
            b.constraints(F.stated(model))
            if structure == "stable_matching":
                w = model.worlds()[-1]
                b.stability(w)
                ref = _Builder(model)
                ref.constraints(F.stated(model))
                _old_stability(ref, w)
                assert str(b.m.proto) == str(ref.m.proto)


def test_cpsat_base_model_built_once_per_names(monkeypatch):
    pytest.importorskip("ortools")
    import prefcert.encodings.decision as E
    monkeypatch.setattr(E, "_BASES", {})
    rng = random.Random(9)
    base = base_content("allocation", 4, rng)
    tm = template(base)
    E.decision_cpsat(tm.derive(objectives=["utilitarian", "leximin"]))
    E.decision_cpsat(tm.derive(source="preference", objectives=["egalitarian"],
                               hide=("A2", 1)))
    assert len(E._BASES) == 1
    other = template(base_content("allocation", 4, rng))       # the same names
    E.decision_cpsat(other.derive(objectives=["rank_maximal"]))
    assert len(E._BASES) == 1


@pytest.mark.parametrize("structure", STRUCTURES)
def test_drawn_template_equals_the_parse(structure):
    rng = random.Random(f"template-{structure}")
    for n in (2, 3, 4, 6, 8):
        base = base_content(structure, n, rng)
        fast, parsed = G._drawn_template(base), template(base)
        assert fast == parsed
        assert fast.to_json() == parsed.to_json()
        assert list(fast.prefs) == list(parsed.prefs)
        assert list(fast.attributes) == list(parsed.attributes)
        assert [w.descriptor() for w in fast.worlds()] == \
            [w.descriptor() for w in parsed.worlds()]


def test_gold_does_not_parse_the_instance(monkeypatch):
    """The gold answer is the label's solution: the suite's ``gold`` reads no model."""
    import prefcert.formal.decision as FD
    from prefcert.bench.actionable.suite import SUITE
    from prefcert.bench.design import RenderedPrompt, Task

    def refuse(data):
        raise AssertionError("parsed")

    monkeypatch.setattr(FD, "parse_decision", refuse)
    inst = {"id": "x", "structure": "scheduling"}
    task = Task([inst], [("x", "decision")], {"role": "act", "source": "objective"})
    lab = {"verdict": "act", "solution": {"action": "T1"}}
    got = SUITE.gold(task, {"format": "original"}, [lab], RenderedPrompt("", "decision"))
    assert got == '{"decision": "ACT", "action": "T1", "question": null, "repair": null}'


def _hungarian_reference(task, w):
    """The shortest-augmenting-path Hungarian method as the oracle wrote it before its
    inner loop was tightened (0-based cost rows): the same optimum and the same duals."""
    agents, items = list(task.agents), list(task.items)
    n = len(agents)
    big = 2 * n * (max((abs(x) for x in w.values()), default=0) + 1) + 1
    cost = [[-w[(a, i)] if (a, i) in w else big for i in items] for a in agents]
    inf = float("inf")
    u, v, p, way = [0] * (n + 1), [0] * (n + 1), [0] * (n + 1), [0] * (n + 1)
    for row in range(1, n + 1):
        p[0], j0 = row, 0
        minv, used = [inf] * (n + 1), [False] * (n + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = p[j0], inf, 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(n + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    match = {agents[p[j] - 1]: items[j - 1] for j in range(1, n + 1)}
    if any((a, i) not in w for a, i in match.items()):
        return None
    return (match, {agents[r - 1]: -u[r] for r in range(1, n + 1)},
            {items[j - 1]: -v[j] for j in range(1, n + 1)})


def test_hungarian_matches_the_reference():
    rng = random.Random(13)
    for _ in range(300):
        n = rng.randint(1, 7)
        task = template(base_content("allocation", n, rng))
        w = {(a, i): rng.randint(-20, 20) for a in task.agents for i in task.items
             if rng.random() < 0.8}
        assert O.hungarian(task, w) == _hungarian_reference(task, w)


def test_tasks_pickle_without_their_caches():
    import pickle
    base = base_content("stable_matching", 3, random.Random(8))
    tm = template(base)
    t = tm.derive(source="preference", objectives=["a_optimal"], hide=("A1", 0))
    want = [w.descriptor() for w in t.worlds()]
    got = pickle.loads(pickle.dumps(t))
    assert got == t and "_pool" not in got.__dict__
    assert [w.descriptor() for w in got.worlds()] == want
