"""Suite generation without repeated work: call counts, not timings.

- the decision oracle's world memo (``decide(task, memo)``): two preference-source tasks
  hiding different comparisons of one list share the world where both comparisons go as
  written, and that world is solved once;
- ``build(prompt_sink=...)`` hands over the very records ``build`` returns, in order, with
  the same manifest (``prefcert generate`` writes ``prompts.jsonl`` that way);
- the preference suite encodes a shared profile once for the prompts of one instance.
"""
from __future__ import annotations

import dataclasses
import json

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
