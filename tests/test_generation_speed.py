"""Suite generation without repeated work: call counts, not timings.

- the decision oracle's world memo (``decide(task, memo)``): two preference-source tasks
  hiding different comparisons of one list share the world where both comparisons go as
  written, and that world is solved once;
- ``build(prompt_sink=...)`` hands over the very records ``build`` returns, in order, with
  the same manifest (``prefcert generate`` writes ``prompts.jsonl`` that way);
- the preference suite encodes a shared profile once for the prompts of one instance;
- the preference suite in O(size of the data) (issue 24): parsing weak orders builds no
  successor lists or tie tuples, counts read ranks only, weak-order closures and
  completions need no graph (each equal to networkx's on the same relation), one job
  samples each pooled profile once, prompts are written as their labels come in, and a
  renderer that draws nothing seeds no generator; ``merge_ties`` draws the numbers one
  draw per item would;
- a build runs with rare full collections of the cyclic collector (thresholds restored
  after), the actionable suite preloads its draws' and labels' modules (not OR-Tools),
  and its impartial-culture rankings are prefsampling's.
"""
from __future__ import annotations

import dataclasses
import json

import pytest

import prefcert.oracles.decision as od
from prefcert.formal.decision import parse_decision


def _scheduling(p2: list) -> dict:
    return {"domain": "decision", "structure": "scheduling", "source": "preference",
            "agents": ["P1", "P2"], "items": ["T1", "T2", "T3"],
            "preferences": {"P1": ["T1", "T2", "T3"], "P2": p2},
            "objectives": ["utilitarian"]}


def _outcome(o) -> str:
    return json.dumps([o.verdict, o.solution, o.certificate, o.stats], sort_keys=True)


def test_world_memo_solves_a_shared_world_once(monkeypatch):
    # A: P2 = {T1, T2} unknown, then T3 -> worlds P2: T1 T2 T3 and T2 T1 T3
    # B: P2 = T1, then {T2, T3} unknown -> worlds P2: T1 T2 T3 and T1 T3 T2
    # three distinct worlds in all (T1 T2 T3 is shared), four without the memo
    a = parse_decision(_scheduling([{"unknown": ["T1", "T2"]}, "T3"]))
    b = parse_decision(_scheduling(["T1", {"unknown": ["T2", "T3"]}]))
    plain = [_outcome(od.decide(t)) for t in (a, b)]
    calls = []
    real = od.solve_world
    monkeypatch.setattr(od, "solve_world", lambda *x, **k: calls.append(1) or real(*x, **k))
    memo: dict = {}
    shared = [_outcome(od.decide(t, memo)) for t in (a, b)]
    assert len(calls) == 3
    assert shared == plain
    calls.clear()
    [od.decide(t) for t in (a, b)]
    assert len(calls) == 4


def test_world_key_tells_apart_what_solve_world_reads():
    a = parse_decision(_scheduling([{"unknown": ["T1", "T2"]}, "T3"]))
    b = parse_decision({**_scheduling([{"unknown": ["T1", "T2"]}, "T3"]),
                        "objectives": ["egalitarian"]})
    wa, wb = a.worlds()[0], b.worlds()[0]
    cs = od.stated(a)
    assert wa.prefs == wb.prefs
    assert od.world_key(a, wa, cs) != od.world_key(b, wb, cs)       # the objective
    assert od.world_key(a, wa, cs) == od.world_key(a, a.worlds()[0], od.stated(a))
    assert od.world_key(a, wa, cs) != od.world_key(a, a.worlds()[1], cs)


def test_prompt_sink_gets_the_records_build_returns():
    from prefcert.bench.generate import build
    from prefcert.bench.suites import suite
    full = suite("voting-manipulation")
    s = dataclasses.replace(full, rows=lambda sizes: full.rows(sizes)[:4])   # (fast)
    kept = build(s, per_cell=1, sizes=(s.sizes[0],))
    got: list = []
    streamed = build(s, per_cell=1, sizes=(s.sizes[0],), prompt_sink=got.append)
    assert streamed["prompts"] is None
    assert got == kept["prompts"] and len(got) == kept["manifest"]["total"] > 0
    assert streamed["manifest"] == kept["manifest"]
    assert streamed["labels"] == kept["labels"]


def test_a_shared_profile_is_encoded_once(monkeypatch):
    from prefcert.bench.indeterminacy import preference as P
    P._PROFILE_JSON.clear()
    inst = {"items": ["C1", "C2"], "profile": {"A1": ["C1", "C2"], "A2": [["C1", "C2"]]}}
    calls = []
    real = P.json.dumps
    monkeypatch.setattr(P.json, "dumps", lambda *x, **k: calls.append(1) or real(*x, **k))
    texts = [P.encode_profile(inst) for _ in range(5)]
    assert len(calls) == 1
    assert texts == ['{"A1": ["C1", "C2"], "A2": [["C1", "C2"]]}'] * 5
    other = {"items": inst["items"], "profile": dict(inst["profile"])}     # equal, not same
    assert P.encode_profile(other) == texts[0] and len(calls) == 2


def test_tasks_sharing_a_draw_are_sampled_alike_with_two_jobs():
    # the first six rows of the actionable design are the 3 sources x 2 roles of one
    # (structure, size, seed): with one task per cell, the six members of one V3 group
    from prefcert.bench.generate import sample_tasks
    from prefcert.bench.suites import suite
    full = suite("actionable-indeterminacy")
    s = dataclasses.replace(full, rows=lambda sizes: full.rows(sizes)[:6])
    assert len({s.shared_draw(r, 0) for r in s.rows((4,))}) == 1
    from prefcert.bench.actionable import suite as A
    runs = []
    for jobs in (1, 2):
        A._group.cache_clear()            # (the forked workers would inherit the draws)
        stats: dict = {}
        tasks = sample_tasks(s, seed=s.seed, sizes=(4,), per_cell=1, stats=stats, jobs=jobs)
        runs.append(([t.instances for _, _, t in tasks], stats))
    assert runs[0] == runs[1]
    assert len({i[0]["meta"]["group"] for i in runs[0][0]}) == 1 and len(runs[0][0]) == 6


def test_a_suite_preload_runs_once_in_the_parent_before_workers_fork():
    import os
    from prefcert.bench.generate import sample_tasks
    from prefcert.bench.suites import suite
    full = suite("actionable-indeterminacy")
    calls = []
    s = dataclasses.replace(full, rows=lambda sizes: full.rows(sizes)[:6],
                            preload=lambda: calls.append(os.getpid()))
    sample_tasks(s, seed=s.seed, sizes=(4,), per_cell=1, stats={}, jobs=1)
    assert calls == []                    # one process: nothing to share
    sample_tasks(s, seed=s.seed, sizes=(4,), per_cell=1, stats={}, jobs=2)
    assert calls == [os.getpid()]


# ------------------------------------------------------------- preference suite (issue 24)

def _weak_profile():
    # A1 complete strict, A2 complete with ties, A3 incomplete (unknown: C4 unrelated)
    return {"id": "w", "domain": "preference", "items": ["C1", "C2", "C3", "C4"],
            "semantics": "unknown",
            "profile": {"A1": ["C2", "C1", "C4", "C3"], "A2": [["C1", "C3"], "C2", "C4"],
                        "A3": ["C3", ["C1", "C2"]]}}


def test_parsing_weak_orders_builds_no_successor_lists_or_ties():
    from prefcert.formal.preference import parse_preference_data
    model = parse_preference_data(_weak_profile())
    for ag in model.agents:           # made on first use only
        assert "succ" not in ag.__dict__ and ag.order._ties is None
    # the successor lists, when read, are the base relation (each tie to the next)
    by = model.by_name
    assert by["A1"].succ == {"C1": ["C4"], "C2": ["C1"], "C3": [], "C4": ["C3"]}
    assert by["A2"].succ == {"C1": ["C2"], "C2": ["C4"], "C3": ["C2"], "C4": []}
    assert by["A3"].succ == {"C1": [], "C2": [], "C3": ["C1", "C2"], "C4": []}
    trunc = parse_preference_data({**_weak_profile(), "semantics": "truncated"})
    assert trunc.by_name["A3"].succ == {"C1": ["C4"], "C2": ["C4"], "C3": ["C1", "C2"],
                                        "C4": []}


def test_counts_of_weak_orders_read_ranks_only():
    # a count over n weak orders: no closure, no graph, no successor list, no tie tuple
    import prefcert.oracles.preference as op
    from prefcert.formal.preference import parse_preference_data
    model = parse_preference_data(_weak_profile())
    out = op.count(model, {"items": ["C1", "C2"]})
    # C1 > C2: A1 no (C2 first), A2 yes (tie above), A3 no (tied: unknown) -> [1, 2]
    assert (out.verdict, out.solution) == ("undetermined", {"min": 1, "max": 2})
    assert not any(k[0].startswith("oracle-closure") for k in model._cache)
    for ag in model.agents:
        assert "succ" not in ag.__dict__ and ag.order._ties is None


def _nx_closure(model, ag):
    import networkx as nx
    g = nx.DiGraph()
    g.add_nodes_from(model.items)
    g.add_edges_from((a, b) for a, bs in ag.succ.items() for b in bs)
    return {x: set(nx.descendants(g, x)) for x in model.items}


@pytest.mark.parametrize("semantics", ["unknown", "truncated"])
def test_weak_order_closures_equal_the_graph_closure_without_a_graph(semantics):
    import numpy as np

    import prefcert.oracles.preference as op
    from prefcert.formal.preference import parse_preference_data
    from prefcert.generators import indeterminacy as gen
    rng = np.random.default_rng(7)
    items = [f"C{i}" for i in range(1, 13)]
    orders = gen.strict_profile(12, items, rng)
    prof = {}
    for i, o in enumerate(orders):
        o = gen.truncate(o, rng, low=3) if i % 3 == 1 else o
        prof[f"A{i}"] = gen.merge_adjacent(o, 0.4, rng) if i % 2 else o
    model = parse_preference_data({"domain": "preference", "items": items,
                                   "semantics": semantics, "profile": prof})
    for ag in model.agents:
        C = op.Closure(model, ag)
        want = _nx_closure(model, ag)          # networkx's reachability, not the oracle's
        assert {x: set(C.members(C.down[x])) for x in items} == want
        assert {x: {y for y in items if x in want[y]} for x in items} == \
            {x: set(C.members(C.up[x])) for x in items}
        assert "graph" not in C.__dict__


def test_weak_order_sorts_equal_networkx_lexicographic_sorts():
    import networkx as nx
    import numpy as np

    import prefcert.oracles.preference as op
    from prefcert.formal.preference import parse_preference_data
    from prefcert.generators import indeterminacy as gen
    rng = np.random.default_rng(11)
    items = [f"C{i}" for i in range(1, 11)]
    for semantics in ("unknown", "truncated"):
        prof = {f"A{i}": gen.merge_adjacent(gen.truncate(o, rng, low=2), 0.5, rng)
                for i, o in enumerate(gen.strict_profile(8, items, rng))}
        model = parse_preference_data({"domain": "preference", "items": items,
                                       "semantics": semantics, "profile": prof})
        for ag in model.agents:
            C = op.Closure(model, ag)
            g = nx.DiGraph()
            g.add_nodes_from(items)
            g.add_edges_from((a, b) for a, bs in ag.succ.items() for b in bs)
            for _ in range(5):
                key = [items[int(j)] for j in rng.permutation(len(items))]
                pos = {x: i for i, x in enumerate(key)}
                sub = [x for x in items if rng.random() < 0.6]
                assert C._lex_sort(list(items), pos.__getitem__) == \
                    list(nx.lexicographical_topological_sort(g, key=pos.__getitem__))
                assert C._lex_sort(sub, pos.__getitem__) == \
                    list(nx.lexicographical_topological_sort(g.subgraph(sub),
                                                             key=pos.__getitem__))
            assert "graph" not in C.__dict__


def test_merge_ties_draws_the_numbers_one_draw_per_item_would():
    import numpy as np

    from prefcert.generators.stable_matching import merge_ties

    def per_item(order, p, rng):          # the definition: one uniform per later item
        groups: list = []
        for i, x in enumerate(order):
            if i > 0 and p > 0 and rng.random() < p:
                groups[-1].append(x)
            else:
                groups.append([x])
        return [g[0] if len(g) == 1 else g for g in groups]
    for seed in range(30):
        for n in (0, 1, 2, 9):
            for p in (0.0, 0.3, 0.9):
                order = [f"x{i}" for i in range(n)]
                a, b = np.random.default_rng(seed), np.random.default_rng(seed)
                assert merge_ties(order, p, a) == per_item(order, p, b)
                assert a.random() == b.random()        # the stream is left at one place


def _small_preference():
    from prefcert.bench.suites import suite
    full = suite("indeterminacy-preference")
    return dataclasses.replace(full, rows=lambda sizes: full.rows(sizes)[:6])


def test_one_job_samples_each_pooled_profile_once():
    from prefcert.bench.generate import sample_tasks
    from prefcert.bench.indeterminacy import preference as P
    s = _small_preference()
    P.pool_profile.cache_clear()
    tasks = sample_tasks(s, seed=s.seed, sizes=(50,), per_cell=40, stats={}, jobs=1)
    # 6 rows x 40 tasks over the SO and SI pools of 40 profiles each (more than the
    # cache holds): each profile drawn once, and every task of it holds the one object
    assert P.pool_profile.cache_info().misses == 80
    by_id: dict = {}
    for _, _, t in tasks:
        assert by_id.setdefault(t.instances[0]["id"], t.instances[0]) is t.instances[0]


def test_prompts_are_written_as_their_labels_come_in(monkeypatch):
    import prefcert.bench.generate as G
    s = _small_preference()
    calls: list = []
    real = G._label_instance
    monkeypatch.setattr(G, "_label_instance", lambda *a: calls.append(1) or real(*a))
    seen: list = []
    b = G.build(s, sizes=(50,), per_cell=2, jobs=1,
                prompt_sink=lambda r: seen.append(len(calls)))
    # the first prompt needs the first instance's labels only; at the end every instance
    # is labelled once
    assert seen[0] == 1 and len(calls) == b["manifest"]["instances"] == 4
    calls.clear()
    kept = G.build(s, sizes=(50,), per_cell=2, jobs=1)
    assert kept["labels"] == b["labels"] and kept["manifest"] == b["manifest"]


def test_a_renderer_that_draws_nothing_seeds_no_generator(monkeypatch):
    import prefcert.bench.design as D
    calls: list = []
    real = D.np.random.default_rng
    monkeypatch.setattr(D.np.random, "default_rng", lambda *a: calls.append(1) or real(*a))
    row = D.Row({"size": 5}, [{}])
    ctx = D.Context(1, row, 0, {})
    assert calls == []
    first = ctx.rng.random()
    assert calls == [1] and ctx.rng.random() != first and calls == [1]
    assert first == real(D.derive_seed(1, {"size": 5}, 0)).random()


@pytest.mark.parametrize("kind,pref", [("allocation", "SO"), ("housing", "TO"),
                                       ("housing", "SI"), ("matching", "SO")])
def test_algorithmic_draw_optima_skip_certificates_and_match_the_engines(monkeypatch, kind,
                                                                          pref):
    # a draw's welfare optima are the oracle engines' solutions, found without building the
    # certificates the draw never reads (its labels certify them)
    import numpy as np

    import prefcert.oracles.house_allocation as oa
    from prefcert.bench.indeterminacy import algorithmic as AL
    insts = AL.draw_instances(kind, pref, 6, np.random.default_rng(3), "t")
    models = {r: AL._model(i) for r, i in insts.items()}
    role = "sm" if "sm" in insts else "ha"
    calls: list = []
    real = oa.welfare_certificate
    monkeypatch.setattr(oa, "welfare_certificate", lambda *a, **k: calls.append(1) or real(*a, **k))
    got = {q: AL._solve(insts, models, {}, role, q) for q in ("egalitarian", "rank_maximal")}
    assert calls == []
    for q, m in got.items():
        assert m == AL.oracle_outcome(insts[role], models[role], q).solution


def test_egalitarian_probes_read_each_edge_level_once(monkeypatch):
    # the binary search over levels probes threshold graphs from the graph's integer
    # index, built once (its levels computed there): no per-edge level read at all (once
    # per edge per probe before the index)
    import networkx as nx
    import numpy as np

    import prefcert.formal.welfare as fw
    import prefcert.oracles.house_allocation as oa
    from prefcert.bench.indeterminacy import algorithmic as AL
    insts = AL.draw_instances("allocation", "SO", 12, np.random.default_rng(5), "t")
    g = fw.welfare_graph(AL._model(insts["ha"]))
    calls: list = []
    real = fw.WelfareGraph.level
    monkeypatch.setattr(fw.WelfareGraph, "level", lambda s, e: calls.append(1) or real(s, e))
    m, cert = oa.egalitarian_matching(g, certificate=False)
    assert cert is None and calls == []
    monkeypatch.undo()
    # the optimum: a maximum matching whose worst rank is the least any maximum matching
    # has (networkx's matchings of the threshold graphs, not the oracle's)
    def nu(k=None):
        h = nx.Graph()
        h.add_nodes_from(("L", x) for x in g.left)
        h.add_edges_from((("L", x), ("R", y)) for (x, y), r in g.ranks.items()
                         if k is None or max(r) <= k)
        return len(nx.bipartite.maximum_matching(h, top_nodes=[("L", x) for x in g.left])) // 2
    best = min(k for k in range(1, g.max_rank + 1) if nu(k) == nu())
    assert len(m) == nu() and max(max(g.ranks[(a, b)]) for a, b in m.items()) == best


# ------------------------------------------------------------- generation CPU (issue 24)

def test_a_build_runs_with_rare_full_collections_and_restores_the_thresholds():
    import gc

    from prefcert.bench import generate as G
    from prefcert.bench.suites import suite
    full = suite("voting-manipulation")
    seen = []

    def render(task, variant, ctx):       # (build renders with the suite it is given)
        seen.append(gc.get_threshold())
        return full.render(task, variant, ctx)
    s = dataclasses.replace(full, rows=lambda sizes: full.rows(sizes)[:2], render=render)
    before = gc.get_threshold()
    G.build(s, per_cell=1, sizes=(s.sizes[0],))
    assert gc.get_threshold() == before
    assert seen and all(t == (before[0], before[1],
                              max(before[2], G.FULL_COLLECTION_THRESHOLD)) for t in seen)
    assert G.FULL_COLLECTION_THRESHOLD >= 100 * 10     # CPython's default is 10


def test_the_actionable_preload_imports_draws_and_labels_but_not_ortools():
    import subprocess
    import sys
    code = ("import sys; from prefcert.bench.suites import suite; "
            "suite('actionable-indeterminacy').preload(); "
            "print(sorted(m for m in ('prefcert.oracles.decision', "
            "'prefcert.generators.decision', 'prefcert.pipeline.jobs', "
            "'prefcert.domains.decision', 'prefcert.formal.checker.decision', "
            "'ortools.sat.python.cp_model', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")[0]
    assert out == str(sorted(["prefcert.oracles.decision", "prefcert.generators.decision",
                              "prefcert.pipeline.jobs", "prefcert.domains.decision",
                              "prefcert.formal.checker.decision"]))


@pytest.mark.parametrize("voters,names", [(1, 1), (3, 4), (4, 4), (6, 6), (8, 8), (8, 3)])
def test_decision_rankings_are_prefsamplings_impartial_culture(voters, names):
    import random

    from prefsampling.ordinal import impartial

    from prefcert.generators.decision import _rankings
    over = [f"O{k}" for k in range(1, names + 1)]
    for seed in range(40):
        a, b = random.Random(seed), random.Random(seed)
        got = _rankings(a, voters, over)
        want = [[over[c] for c in v] for v in impartial(voters, names,
                                                       seed=b.randrange(2 ** 31))]
        assert got == want and all(type(x) is str for v in got for x in v)
        assert a.random() == b.random()          # the same draws of the caller's generator
