"""The labelling of a generated suite reuses the sampler's work (issue 24): the
actionable-indeterminacy sampler judges every member with the decision oracle, and the
final labelling's oracle reads those world results and repairs instead of solving the
worlds again — no second call (a call count, not a timing), and the same labels as
without the reuse."""
from __future__ import annotations

import dataclasses

import pytest

from prefcert.bench import generate as gen
from prefcert.bench.suites import suite as get_suite
from prefcert.oracles import decision as od

SMALL = {"sizes": [4], "per_cell": 1, "jobs": 1}


def _count_calls(monkeypatch) -> dict:
    """Counts of solve_world / repairs calls, split by whether an instance is being
    labelled (the certify phase) or not (the sampler)."""
    from prefcert.bench.actionable import suite as act
    act._group.cache_clear()                  # the groups are drawn (and judged) afresh
    act._pair.cache_clear()
    calls = {"sample": 0, "label": 0}
    state = {"label": False}
    for name in ("solve_world", "repairs"):
        orig = getattr(od, name)

        def counting(*a, _orig=orig, **k):
            calls["label" if state["label"] else "sample"] += 1
            return _orig(*a, **k)
        monkeypatch.setattr(od, name, counting)
    label_instance = gen._label_instance

    def labelling(item, how):
        state["label"] = True
        try:
            return label_instance(item, how)
        finally:
            state["label"] = False
    monkeypatch.setattr(gen, "_label_instance", labelling)
    return calls


@pytest.fixture(scope="module")
def without_reuse() -> dict:
    s = dataclasses.replace(get_suite("actionable-indeterminacy"), reuse=None)
    return gen.build(s, **SMALL)


def test_final_labelling_makes_no_second_oracle_solve(monkeypatch, without_reuse):
    calls = _count_calls(monkeypatch)
    b = gen.build(get_suite("actionable-indeterminacy"), **SMALL)
    assert calls["sample"] > 0
    assert calls["label"] == 0                # every world and repair came from the sampler
    assert b["labels"] == without_reuse["labels"]
    assert b["prompts"] == without_reuse["prompts"]


def test_without_reuse_the_labelling_solves_again(monkeypatch):
    calls = _count_calls(monkeypatch)
    s = dataclasses.replace(get_suite("actionable-indeterminacy"), reuse=None)
    gen.build(s, sizes=[4], per_cell=1, jobs=1)
    assert calls["label"] > 0                 # the counter sees the labelling's oracle


def test_reused_entries_of_another_task_are_not_read():
    """The reuse memo is keyed by everything the oracle reads: entries for another task
    are ignored and the outcome is the one computed afresh."""
    from prefcert.formal.decision import parse_decision
    from prefcert.generators.decision import base_content, with_source
    from prefcert.bench.actionable.responses import derive_rng
    base = base_content("apartment", 4, derive_rng("reuse-test"))
    a = parse_decision({"id": "a", **with_source(base, "objective", ["utilitarian"])})
    b = parse_decision({"id": "b", **with_source(base, "objective", ["egalitarian"])})
    memo: dict = {}
    od.decide(a, memo)
    with od.reusing(od.memo_entries(a, memo)):
        got = od.decide(b)
    assert got == od.decide(b)
    assert od.memo_entries(b, memo) == {}
