"""Stable matching: reference instances, refutation certificates, bad input, audit."""
import copy
import glob
import json
from pathlib import Path

import pytest
from conftest import SHARED_DATA
from prefcert.formal.checker.stable_matching import blocking_pairs
from prefcert.formal.checker.stable_matching import replay_deletion_log as check_deletion_log
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.formal.instances import from_object
from prefcert.formal.stable_matching import parse_market
from prefcert.oracles.stable_matching import (
    deferred_acceptance,
    strongly_stable_search,
    super_stable_search,
    weakly_stable_matching,
)

from prefcert.pipeline.jobs import audit, label, plan

REFERENCE = SHARED_DATA / "reference"
REF_FILES = sorted(glob.glob(str(REFERENCE / "sm*.json")))
KEYS = {"super": ("super_stable", "super_stable_exists"), "strong": ("strongly_stable", None),
        "weak": ("weakly_stable", None)}


def _expected_sets(ref):
    """notion -> set of stable matchings as published (None when not all are listed)."""
    exp = ref["expected"]
    out = {}
    for notion, (key, flag) in KEYS.items():
        if "stable_matchings" in exp:              # strict lists: the notions coincide
            out[notion] = exp["stable_matchings"]
        elif key in exp and "max_weakly_stable_size" not in exp:
            out[notion] = exp[key]
        elif flag in exp and not exp[flag]:
            out[notion] = []
    return out


def test_reference_files_present():
    assert len(REF_FILES) >= 7


@pytest.mark.parametrize("path", REF_FILES, ids=lambda p: Path(p).stem)
def test_reference_instance_published_answers(path):
    ref = json.loads(Path(path).read_text())
    market = parse_market(ref["design_md_instance"])
    search = {"super": super_stable_search, "strong": strongly_stable_search}
    for notion, listed in _expected_sets(ref).items():
        listed = [dict(m) for m in listed]
        if notion == "weak":
            got = weakly_stable_matching(market)
        else:
            got, refutation = search[notion](market)
            if got is None:
                check_deletion_log(market, notion, refutation)
        assert (got is not None) == bool(listed), (notion, got)
        if got is not None:
            assert got in listed, (notion, got)
    exp = ref["expected"]
    for key in ("man_optimal", "suitor_optimal"):
        if key in exp:
            assert deferred_acceptance(market) == exp[key]
    if "woman_optimal" in exp:
        assert deferred_acceptance(market, proposing="B") == exp["woman_optimal"]
    if "weakly_stable" in exp:
        for m in exp["weakly_stable"]:
            assert blocking_pairs(market, m, "weak") == []


INDIFFERENT = {"id": "t", "domain": "stable_matching",
               "preferences": {"A": {"m1": [["w1", "w2"]], "m2": [["w1", "w2"]]},
                               "B": {"w1": [["m1", "m2"]], "w2": [["m1", "m2"]]}}}


def _refutation(data, notion):
    market = parse_market(data)
    search = super_stable_search if notion == "super" else strongly_stable_search
    matching, cert = search(market)
    assert matching is None
    return market, cert


def test_refutation_accepted_then_tampering_rejected():
    market, cert = _refutation(INDIFFERENT, "super")
    check_deletion_log(market, "super", cert)
    with pytest.raises(CertificateError):
        check_deletion_log(market, "super", {"type": "deletion_log", "steps": []})
    with pytest.raises(CertificateError):       # a super log does not refute strong stability
        check_deletion_log(market, "strong", cert)
    bad = copy.deepcopy(cert)
    bad["steps"][0][2] = "nobody"
    with pytest.raises(CertificateError):
        check_deletion_log(market, "super", bad)


def test_forged_refutation_of_a_solvable_market_rejected():
    """On a market with a super-stable matching no replayable log may 'prove' none."""
    data = {"preferences": {"A": {"m1": ["w1", "w2"], "m2": ["w2", "w1"]},
                            "B": {"w1": ["m1", "m2"], "w2": ["m2", "m1"]}}}
    market = parse_market(data)
    for steps in ([], [["dominate", "w1", "m1"]], [["dominate", "w1", "m1"], ["dominate", "w2", "m2"]],
                  [["dominate", "w1", "m1", "m2"]], [["critical"]]):
        with pytest.raises(CertificateError):
            check_deletion_log(market, "super", {"type": "deletion_log", "steps": steps})


def test_strong_refutation_uses_critical_sets():
    # Irving 1994-style: two men tied for one woman they both want only.
    data = {"preferences": {"A": {"m1": ["w1"], "m2": ["w1"]}, "B": {"w1": [["m1", "m2"]]}}}
    market, cert = _refutation(data, "strong")
    assert ["critical"] in cert["steps"]
    check_deletion_log(market, "strong", cert)
    with pytest.raises(CertificateError):
        check_deletion_log(market, "strong", {"type": "deletion_log",
                                              "steps": [s for s in cert["steps"] if s != ["critical"]]})


@pytest.mark.parametrize("prefs, value", [
    ({"A": {"m1": ["x9"]}, "B": {"w1": ["m1"]}}, "x9"),              # unknown agent
    ({"A": {"m1": ["w1", "w1"]}, "B": {"w1": ["m1"]}}, "w1"),         # listed twice
    ({"A": {"m1": [[]]}, "B": {"w1": ["m1"]}}, []),                   # empty tie group
    ({"A": {"m1": "w1"}, "B": {"w1": ["m1"]}}, "w1"),                 # not a list
    ({"A": {"m1": ["w1"]}, "B": {"w1": ["m1"]}, "C": {}}, None),      # a third side
])
def test_bad_input_names_agent_and_value(prefs, value):
    with pytest.raises(InstanceError) as e:
        parse_market({"preferences": prefs})
    if value is not None:
        assert repr(value) in str(e.value)


def test_deferred_acceptance_rejects_ties():
    with pytest.raises(ValueError):
        deferred_acceptance(parse_market(INDIFFERENT))


def _job(data, question):
    return plan([from_object(data, "mem.json", None, "t")], [question])[0]


def test_label_none_carries_checked_refutation():
    lab = label(_job(INDIFFERENT, "super_stable"))
    assert lab["verdict"] == "none" and lab["checked"]
    assert lab["certificate"]["type"] == "deletion_log"
    lab = label(_job(INDIFFERENT, "strongly_stable"))
    assert lab["verdict"] == "exists" and blocking_pairs(parse_market(INDIFFERENT), lab["solution"], "strong") == []


def test_audit_verdicts():
    job = _job(INDIFFERENT, "super_stable")
    assert audit(job, "<answer>none</answer>")["verdict"] == "correct"
    out = audit(job, '{"m1": "w1", "m2": "w2"}')
    assert out["verdict"] == "incorrect"
    assert {tuple(v["blocking_pair"]) for v in out["violations"]} == {("m1", "w2"), ("m2", "w1")}
    assert "2 super-blocking pairs" in out["feedback"]
    job = _job(INDIFFERENT, "strongly_stable")
    out = audit(job, "I think <answer>none</answer>")
    assert out["verdict"] == "incorrect" and "witness" in out["violations"][0]
    assert audit(job, "no answer here")["verdict"] == "unparseable"
    assert audit(job, '[["w1", "m2"], ["m1", "w2"]]')["verdict"] == "correct"


def test_engine_crash_and_disagreement_are_reported_never_labelled():
    from dataclasses import replace

    from prefcert.formal.errors import Disagreement

    from prefcert.domains.base import Outcome

    job = _job(INDIFFERENT, "super_stable")

    def crash(*a, **k):
        raise RuntimeError("boom")

    def liar(*a, **k):
        return Outcome("exists", {"m1": "w1", "m2": "w2"}, {"type": "stable_matching"})

    for engine, reason in ((crash, "crashed"), (liar, "disagree")):
        q = replace(job.question, engines={**job.question.engines, "oracle": engine})
        with pytest.raises(Disagreement) as e:
            label(replace(job, question=q), engines=["oracle", "cpsat", "z3"])
        assert reason in e.value.report["reason"] and e.value.report["instance"] == INDIFFERENT
    q = replace(job.question, engines={**job.question.engines, "oracle": liar})
    with pytest.raises(Disagreement) as e:          # a lone wrong witness is caught by the checker
        label(replace(job, question=q), engines=["oracle"])
    assert "rejected" in e.value.report["reason"]
    assert any(a["checker"].startswith("rejected") for a in e.value.report["answers"])


@pytest.mark.parametrize("step", [["dominate", ["b1"], "a1"], ["dominate", "b1", ["a1"]],
                                  ["dominate", "b1", "a1", "a1"], ["dominate", "b1"],
                                  ["critical", "b1"], ["dominate", "b9", "a1"], "critical"])
def test_malformed_log_steps_are_refused(step):
    """Unknown, unhashable or repeated agents and malformed steps are refused as
    CertificateError (never a TypeError out of the replay)."""
    tied = {"preferences": {"A": {"a1": [["b1", "b2"]], "a2": [["b1", "b2"]]},
                            "B": {"b1": [["a1", "a2"]], "b2": [["a1", "a2"]]}}}
    market = parse_market(tied)
    for notion in ("super", "strong"):
        with pytest.raises(CertificateError):
            check_deletion_log(market, notion, {"steps": [step]})


def test_oracle_refutations_replay():
    """Completeness on random markets: every deletion log of SUPER / STRONG is accepted
    (the replay's head ties and proposed set follow the oracle's)."""
    from prefcert.generators.stable_matching import sample_smti
    seen = 0
    for seed in range(300):
        market = parse_market(sample_smti(8, tie_prob=0.3, seed=seed))
        for notion, search in (("super", super_stable_search), ("strong", strongly_stable_search)):
            matching, log = search(market)
            if log is not None:
                check_deletion_log(market, notion, log)
                seen += 1
    assert seen > 100
