"""Minimal counterexamples and instance shrinking: smallest markets found, certificates
accepted by the checker, minimality re-proved by an independent brute force, CP-SAT
synthesis agreeing with enumeration, user properties, the disagreement minimiser, CLI."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import PREFCERT

import prefcert
from prefcert.domains.base import Outcome, Question
from prefcert.encodings.stable_matching_synthesis import synthesize_smti
from prefcert.formal import checker
from prefcert.formal.errors import CertificateError, Disagreement, InstanceError
from prefcert.formal.instances import from_object
from prefcert.formal.stable_matching import parse_market
from prefcert.generators.stable_matching import sample_smti, smti_space, smti_space_size
from prefcert.oracles.stable_matching_brute_force import stable_matchings
from prefcert.pipeline.counterexample import minimal_counterexample
from prefcert.pipeline.jobs import Job, label, plan
from prefcert.pipeline.minimize import measure, shrink
from prefcert.pipeline.registry import domain, spec

ROOT = Path(__file__).resolve().parents[1]


def test_smallest_market_without_a_strongly_stable_matching():
    r = minimal_counterexample("strongly-stable-exists", max_size=4)
    assert r["found"] and r["size"] == (3, 4, 1)
    assert r["minimality"]["claim"] == "proven"
    lab = r["certificate"]["label"]
    assert lab["verdict"] == "none" and lab["certificate"]["type"] == "deletion_log"
    assert prefcert.check(lab, r["instance"])
    market = parse_market(r["instance"])
    assert next(stable_matchings(market, "strong"), None) is None


def test_minimality_reproved_by_brute_force():
    """Independently of the oracle the search used: every market with at most 3 agents
    and a smaller (entries, tied pairs) than the answer has a strongly stable matching."""
    bound = minimal_counterexample("strongly-stable-exists", max_size=3)["size"]
    checked = 0
    for a, b in ((1, 1), (1, 2), (2, 1)):
        for inst in smti_space(a, b):
            if measure(inst) < bound:
                checked += 1
                assert next(stable_matchings(parse_market(inst), "strong"), None) is not None
    assert checked > 20


def test_smallest_housing_market_with_an_empty_strict_core():
    r = minimal_counterexample("strict-core-nonempty", max_size=4)
    assert r["size"] == (3, 4, 1) and r["minimality"]["claim"] == "proven"
    lab = r["certificate"]["label"]
    assert lab["certificate"]["type"] == "top_trading_segmentation"
    assert prefcert.check(lab, r["instance"])
    from prefcert.oracles.housing_market import brute_force_cores
    _, strict = brute_force_cores(spec("housing_market").parse(r["instance"]))
    assert strict == []


def test_ttc_outside_the_strict_core_carries_a_checked_blocking_coalition():
    r = minimal_counterexample("ttc-in-strict-core", max_size=3)
    cert = r["certificate"]
    model = spec("housing_market").parse(r["instance"])
    checker.check(spec("housing_market"), model, "strict_core", None, "incorrect",
                  cert["ttc_allocation"], cert["refutation"])


def test_condorcet_winner_exists_fails_first_on_two_opposed_voters():
    r = minimal_counterexample("condorcet-winner-exists", max_size=3)
    assert r["size"] == (2, 4, 0)
    assert sorted(map(tuple, r["instance"]["profile"].values())) == [("c1", "c2"), ("c2", "c1")]
    assert all(b["label"]["checked"] and b["label"]["verdict"] == "false"
               for b in r["certificate"]["no_strict_majority"])


def test_cpsat_synthesis_agrees_with_enumeration():
    enum = minimal_counterexample("super-stable-exists", max_size=3)
    synth = minimal_counterexample("super-stable-exists", max_size=3, enumeration_limit=0)
    assert {e["method"] for e in synth["minimality"]["splits"]} == {"cpsat_synthesis"}
    assert synth["size"] == enum["size"] == (3, 4, 1)
    assert synth["minimality"]["claim"] == "proven"
    # complete 3 × 3 lists: beyond enumeration (26⁶ raw markets without completeness)
    res = synthesize_smti(3, 3, "strong", complete=True, time_limit=60)
    assert res["status"] == "optimal" and res["objective"] == (18, 1)
    assert next(stable_matchings(parse_market(res["instance"]), "strong"), None) is None
    assert smti_space_size(3, 3, complete=True) > 10**6


def _same_size(inst):
    """every weakly stable matching has the same size"""
    return len({len(m) for m in stable_matchings(parse_market(inst), "weak")}) <= 1


def test_user_property_as_a_callable():
    r = minimal_counterexample(_same_size, domain="stable_matching", max_size=4)
    assert r["size"] == (4, 6, 1) and r["certificate"] is None
    sizes = {len(m) for m in stable_matchings(parse_market(r["instance"]), "weak")}
    assert sizes == {1, 2}
    with pytest.raises(InstanceError):
        minimal_counterexample(_same_size, max_size=3)         # no domain
    with pytest.raises(InstanceError):
        minimal_counterexample("no-such-property")


def test_property_holding_everywhere_reports_not_found():
    r = minimal_counterexample(lambda inst: True, domain="housing_market", max_size=2)
    assert not r["found"] and r["minimality"]["claim"] == "proven"


# ------------------------------------------------------------------ shrinking

def test_shrink_is_one_minimal_and_needs_a_failing_start():
    inst = sample_smti(6, 6, tie_prob=0.4, truncate=True, seed=3)

    def has_tie(d):
        return any(isinstance(g, list) for side in d["preferences"].values()
                   for lst in side.values() for g in lst)
    small, stats = shrink(inst, has_tie)
    assert measure(small) == (3, 2, 1) and not stats["exhausted"]
    with pytest.raises(ValueError):
        shrink(small, lambda d: False)
    boom, _ = shrink(inst, lambda d: 1 / 0 if len(d["preferences"]["A"]) < 6 else True)
    assert len(boom["preferences"]["A"]) == 6           # a crash counts as "passes"


def test_disagreement_report_carries_a_minimised_instance():
    q = domain("stable_matching").questions["super_stable"]

    def buggy(market, params, *, time_limit, seed):       # wrong whenever a list has a tie
        if any(len(t) > 1 for o in [*market.a.values(), *market.b.values()] for t in o.ties):
            return Outcome("none")
        return q.engines["oracle"](market, params, time_limit=time_limit, seed=seed)

    broken = Question(q.name, {"oracle": q.engines["oracle"], "buggy": buggy},
                      lambda m: ["oracle", "buggy"], q.decide)
    for s in range(40):
        job = plan([from_object(sample_smti(5, 5, tie_prob=0.3, truncate=True, seed=s),
                                "<t>", None, "x")], ["super_stable"])[0]
        job = Job(job.instance, job.model, broken, job.params, job.asked)
        try:
            label(job)
        except Disagreement as d:
            mini = d.report["minimized"]
            assert mini["size_after"] == [3, 2, 1] and mini["size_before"][0] == 10
            with pytest.raises(Disagreement):             # still disagrees
                label(Job(from_object(mini["instance"], "<t>", None, "y"),
                          parse_market(mini["instance"]), broken, None, "super_stable"),
                      minimize=False)
            return
    pytest.fail("no disagreement provoked")


def test_a_crashing_engine_is_reported_with_a_minimised_instance():
    """Every kind of disagreement is minimised, not only engines that answer differently:
    here an engine that raises on any tie."""
    q = domain("stable_matching").questions["super_stable"]

    def crashes(market, params, *, time_limit, seed):
        if any(len(t) > 1 for o in [*market.a.values(), *market.b.values()] for t in o.ties):
            raise RuntimeError("ties are not supported")
        return q.engines["oracle"](market, params, time_limit=time_limit, seed=seed)

    broken = Question(q.name, {"oracle": q.engines["oracle"], "crashes": crashes},
                      lambda m: ["oracle", "crashes"], q.decide)
    job = plan([from_object(sample_smti(5, 5, tie_prob=0.5, seed=1), "<t>", None, "x")],
               ["super_stable"])[0]
    with pytest.raises(Disagreement) as e:
        label(Job(job.instance, job.model, broken, job.params, job.asked))
    assert "crashed" in e.value.report["reason"]
    assert e.value.report["minimized"]["size_after"] == [3, 2, 1]     # one list, one tie of two


def test_a_minimised_instance_stays_valid_for_the_question():
    """Regression: shrinking dropped the very item the question names, so the minimised
    instance was bad input instead of a reproduction."""
    q = domain("preference").questions["winner"]

    def crashes(model, params, *, time_limit, seed):
        raise OverflowError("always")

    broken = Question(q.name, {"oracle": q.engines["oracle"], "crashes": crashes},
                      lambda m: ["oracle", "crashes"], q.decide)
    inst = {"id": "p", "domain": "preference", "items": ["x", "y", "z"],
            "profile": {"V1": ["x", "y", "z"], "V2": ["y", "z", "x"]}}
    asked = {"type": "winner", "rule": "copeland", "item": "y"}
    job = plan([from_object(inst, "<t>", None, "p")], [asked])[0]
    with pytest.raises(Disagreement) as e:
        label(Job(job.instance, job.model, broken, job.params, job.asked))
    small = e.value.report["minimized"]["instance"]
    assert "y" in small["items"] and len(small["items"]) < 3
    plan([from_object(small, "<t>", None, "p")], [asked])          # valid: no InstanceError


# ------------------------------------------------------------------ CLI

@pytest.mark.skipif(PREFCERT is None, reason="console script not installed")
def test_cli_counterexample(tmp_path):
    out = tmp_path / "ce.json"
    r = subprocess.run([PREFCERT, "counterexample", "strict-core-nonempty", "--max-size", "3",
                        "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    res = json.loads(out.read_text())
    assert res["size"] == [3, 4, 1] and "minimality proven" in r.stderr
    prop = tmp_path / "prop.py"
    prop.write_text("def never(inst):\n    return True\n")
    r = subprocess.run([PREFCERT, "counterexample", f"{prop}:never", "--domain", "housing_market",
                        "--max-size", "2"], capture_output=True, text=True)
    assert r.returncode == 1 and json.loads(r.stdout)["found"] is False
    r = subprocess.run([PREFCERT, "counterexample", f"{prop}:missing", "--domain", "housing_market"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "cannot load" in r.stderr
    r = subprocess.run([PREFCERT, "counterexample", "--list"], capture_output=True, text=True)
    assert "strongly-stable-exists" in r.stdout


def test_api_example_runs():
    import doctest

    import prefcert.pipeline.counterexample
    # the public function checks its arguments, then runs this search
    assert prefcert.minimal_counterexample.__wrapped__ is \
        prefcert.pipeline.counterexample.minimal_counterexample
    failures, tried = doctest.testmod(prefcert.pipeline.counterexample)
    assert tried >= 2 and failures == 0


# ----------------------------------------------------------------- manipulation by one voter

def _winner(rule: str, ballots: list, cands: list) -> str:
    """An independent count for plurality and Borda over linear ballots, ties to the
    first candidate of ``cands`` (τ)."""
    m = len(cands)
    score = dict.fromkeys(cands, 0)
    for b in ballots:
        if rule == "plurality":
            score[b[0]] += 1
        else:
            for i, x in enumerate(b):
                score[x] += m - 1 - i
    return max(cands, key=lambda x: (score[x], -cands.index(x)))


def _manipulable(rule: str, inst: dict) -> bool:
    import itertools
    cands, truth = inst["candidates"], inst["manipulator"]["ranking"]
    w0 = _winner(rule, [*inst["ballots"], truth], cands)
    return any(truth.index(_winner(rule, [*inst["ballots"], list(r)], cands)) < truth.index(w0)
               for r in itertools.permutations(cands))


@pytest.mark.parametrize("rule, size", [("plurality", (2, 6, 0)), ("borda", (2, 6, 0)),
                                        ("irv", (2, 6, 0)), ("copeland", (2, 6, 0)),
                                        ("approval", (1, 4, 0))])
def test_smallest_election_manipulable_by_one_voter(rule, size):
    r = minimal_counterexample(f"{rule}-not-manipulable", max_size=3)
    assert r["found"] and r["size"] == size and r["minimality"]["claim"] == "proven"
    inst, cert = r["instance"], r["certificate"]
    lab = cert["label"]
    assert lab["verdict"] == "manipulable" and lab["checked"] and prefcert.check(lab, inst)
    assert cert["profitable_ballot"] == lab["solution"]["ballot"] and cert["gain"] >= 1
    truth = inst["manipulator"]["ranking"]
    assert truth.index(cert["manipulated_winner"]) < truth.index(cert["sincere_winner"])
    if rule in ("plurality", "borda"):        # an independent count agrees
        assert _manipulable(rule, inst)
        cands = inst["candidates"]
        assert _winner(rule, [*inst["ballots"], cert["profitable_ballot"]], cands) == \
            cert["manipulated_winner"]
    # a tampered certificate: the sincere ranking as the "profitable" report is refused
    bad = json.loads(json.dumps(lab))
    bad["solution"]["ballot"] = truth
    with pytest.raises(CertificateError, match="elects"):
        checker.check(spec("election"), spec("election").parse(inst), "manipulation",
                      spec("election").question("manipulation")[1], bad["verdict"],
                      bad["solution"], bad["certificate"])


def test_manipulation_minimality_reproved_by_an_independent_count():
    """Every plurality / Borda election with fewer voters than the answer (one voter,
    2..4 candidates) and every 2-voter election over 2 candidates resists manipulation."""
    from prefcert.generators.election import election_space
    checked = 0
    for rule in ("plurality", "borda"):
        for n, m in ((1, 2), (1, 3), (1, 4), (2, 2)):
            for inst in election_space(n, m, rule):
                checked += 1
                assert not _manipulable(rule, inst)
    assert checked == 2 * (2 + 6 + 24 + 4)


@pytest.mark.skipif(PREFCERT is None, reason="console script not installed")
def test_a_property_that_raises_is_an_error_not_a_verdict(tmp_path):
    """Regression: a user property that raised gave a traceback and exit 1, which means
    "no counterexample"; now exit 2 with the exception and the instance."""
    prop = tmp_path / "prop.py"
    prop.write_text("def boom(inst):\n    raise ValueError('boom')\n")
    r = subprocess.run([PREFCERT, "counterexample", f"{prop}:boom", "--domain", "stable_matching",
                        "--max-size", "2"], capture_output=True, text=True)
    assert r.returncode == 2 and "raised ValueError('boom') on {" in r.stderr
    assert "Traceback" not in r.stderr


def test_an_election_disagreement_is_minimised():
    """Regression: an election disagreement was silently never reduced (no shrinker)."""
    q = domain("election").questions["winner"]

    def crashes(model, params, *, time_limit, seed):     # fails whenever c3 is a candidate
        if "c3" in model.candidates:
            raise RuntimeError("c3 is not supported")
        return q.engines["oracle"](model, params, time_limit=time_limit, seed=seed)

    broken = Question(q.name, {"oracle": q.engines["oracle"], "crashes": crashes},
                      lambda m: ["oracle", "crashes"], q.decide)
    inst = {"id": "e", "domain": "election", "candidates": ["c1", "c2", "c3", "c4"],
            "tie_break": ["c1", "c2", "c3", "c4"], "rule": "borda",
            "ballots": [["c1", "c2", "c3", "c4"], {"ranking": ["c3", "c1"], "count": 3},
                        ["c4", ["c2", "c3"]]]}
    job = plan([from_object(inst, "<t>", None, "e")], ["winner"])[0]
    with pytest.raises(Disagreement) as e:
        label(Job(job.instance, job.model, broken, job.params, job.asked))
    mini = e.value.report["minimized"]
    small = mini["instance"]
    assert "c3" in small["candidates"] and len(small["ballots"]) < 3
    assert mini["size_after"] < mini["size_before"]
    assert mini["size_before"] == [5, 13, 1]           # 1 + 3 + 1 voters; 4 + 3·2 + 3 entries


def test_a_domain_without_a_shrinker_says_so_in_the_report():
    from prefcert.pipeline.jobs import attach_minimized
    task = json.loads((ROOT / "instances" / "decision" / "apartment.jsonl")
                      .read_text().splitlines()[0])
    job = plan([from_object(task, "<t>", None, "d")], ["decision"])[0]
    report = attach_minimized({"reason": "test"}, job)
    assert "no shrinker" in report["minimized"]["not_minimized"]
    assert "decision" in report["minimized"]["not_minimized"]
