"""What ``prefcert check`` accepts (issue 20, items 1–4): a refutation is checked against
the label's own solution, every field of a label is checked or the label is rejected, the
metadata describe the instance, and an audit's "none exists" has a form of its own. Each
test forges labels from a real one and runs the console script, as a user would."""
from __future__ import annotations

import json
from pathlib import Path

import prefcert
from functools import partial
import pytest
from prefcert.formal import checker
from prefcert.formal.errors import CertificateError
from prefcert.formal.instances import from_object
from prefcert.pipeline.jobs import audit, plan
from prefcert.pipeline.registry import spec
from conftest import cli, PREFCERT

needs_cli = pytest.mark.skipif(PREFCERT is None, reason="console script not installed")

# r1 and r2 both want h1 (capacity 1), which prefers r1; r2 also accepts h2: the unique
# stable matching is r1-h1, r2-h2 (every notion).
HR = {"id": "hr", "domain": "hospitals_residents",
      "preferences": {"residents": {"r1": ["h1"], "r2": ["h1", "h2"]},
                      "hospitals": {"h1": ["r1", "r2"], "h2": ["r2"]}},
      "capacities": {"h1": 1, "h2": 1}}
UNIQUE = {"r1": "h1", "r2": "h2"}
PREF = {"id": "pref", "domain": "preference", "items": ["a", "b", "c", "d"],
        "profile": {"V1": ["a", ["b", "c"], "d"], "V2": {"edges": [["a", "b"]]}}}


run = partial(cli, check=False)


def labelled(tmp_path: Path, inst: dict, question) -> tuple[Path, dict]:
    """The instance written to a file and one label of it made by ``prefcert label``."""
    src = tmp_path / f"{inst['id']}.jsonl"
    src.write_text(json.dumps(inst) + "\n")
    out = tmp_path / f"{inst['id']}.labels.jsonl"
    r = run("label", src, "-q", question if isinstance(question, str) else json.dumps(question),
            "-o", out)
    assert r.returncode == 0, r.stderr
    (lab,) = [json.loads(x) for x in out.read_text().splitlines()]
    return out, lab


def check(path: Path, lab: dict, *flags: str):
    """``prefcert check`` on a labels file holding only ``lab``."""
    path.write_text(json.dumps(lab) + "\n")
    return run("check", path, *flags)


# ------------------------------------------------------------------ 1. the forged refutation

@needs_cli
@pytest.mark.parametrize("pairs", [[["r1", "h1"], ["r1", "h1"]], [["zz", "h1"]]])
def test_a_not_a_matching_refutation_is_checked_against_the_labels_solution(tmp_path, pairs):
    """The soundness hole: an ``incorrect`` label of the unique stable matching whose
    ``not_a_matching`` certificate carried ``pairs`` of its own was accepted (the check
    validated the pairs, not the solution). The certificate has no such field now, and
    the solution itself must be no matching."""
    path, lab = labelled(tmp_path, HR, "super_stable")
    assert lab["solution"] == UNIQUE
    forged = dict(lab, verdict="incorrect", engines=[],   # a refutation may name no engine
                  certificate={"type": "not_a_matching", "pairs": pairs})
    r = check(path, forged)
    assert r.returncode == 1 and "REJECTED" in r.stderr and "'pairs'" in r.stderr
    r = check(path, dict(forged, certificate={"type": "not_a_matching"}))
    assert r.returncode == 1 and "is a valid matching" in r.stderr
    # the refutation of a real non-matching still stands: the claimed pairs are the solution
    bad = dict(forged, solution=[["r1", "h1"], ["r1", "h2"]],
               certificate={"type": "not_a_matching"})
    assert check(path, bad).returncode == 0


def test_the_audit_of_a_resident_assigned_twice_refutes_the_answer_as_given():
    job = plan([from_object(HR, "<t>", None, "hr")], ["super_stable"])[0]
    out = audit(job, json.dumps([["r1", "h1"], ["r2", "h2"], ["r1", "h2"]]))
    assert out["verdict"] == "incorrect" and out["checked"]
    assert out["proof"]["solution"] == [["r1", "h1"], ["r2", "h2"], ["r1", "h2"]]
    assert out["proof"]["certificate"] == {"type": "not_a_matching"}
    with pytest.raises(CertificateError, match="valid matching"):
        checker.check(spec("hospitals_residents"), job.model, "super_stable", None,
                      "incorrect", [["r1", "h1"], ["r2", "h2"]], {"type": "not_a_matching"})


# ------------------------------------------------------------------ 2. every field is checked

@needs_cli
def test_a_none_label_has_no_solution_and_a_boolean_one_no_junk(tmp_path):
    path, lab = labelled(tmp_path, {"id": "cyc", "domain": "stable_matching", "preferences": {
        "A": {"m1": [["w1", "w2"]], "m2": [["w1", "w2"]]},
        "B": {"w1": [["m1", "m2"]], "w2": [["m1", "m2"]]}}}, "super_stable")
    assert lab["verdict"] == "none"
    for junk in ({"m1": "w1", "m2": "w2"}, "junk", 42):
        r = check(path, dict(lab, solution=junk))
        assert r.returncode == 1 and "no solution" in r.stderr, junk
    path, lab = labelled(tmp_path, PREF, {"type": "compare", "agent": "V1",
                                          "items": ["a", "d"]})
    assert lab["verdict"] == "true" and lab["solution"] is None
    for junk in ("junk", 42, {"value": True}):
        assert check(path, dict(lab, solution=junk)).returncode == 1, junk


@needs_cli
def test_extra_solution_keys_with_false_content_are_refused(tmp_path):
    path, lab = labelled(tmp_path, PREF, {"type": "rank_set", "agent": "V1",
                                          "items": ["a", "b", "c"]})
    assert lab["verdict"] == "undetermined"
    r = check(path, dict(lab, solution={**lab["solution"], "value": ["a", "b", "c"]}))
    assert r.returncode == 1 and "unknown key 'value'" in r.stderr
    election = {"id": "el", "domain": "election", "candidates": ["a", "b"],
                "tie_break": ["a", "b"], "ballots": [["a", "b"], ["a", "b"], ["b", "a"]]}
    path, lab = labelled(tmp_path, election, {"type": "winner", "rule": "borda"})
    forged = dict(lab, solution={**lab["solution"], "scores": {"a": 0, "b": 9}})
    r = check(path, forged)
    assert r.returncode == 1 and "unknown key 'scores'" in r.stderr


@needs_cli
def test_invented_counts_are_refused_unless_every_report_is_replayed(tmp_path):
    """A ``greedy`` or ``elimination_search`` certificate verifies w₀, w*, the report and
    the gain, not the counts of the ballot space: those are refused under it."""
    cands = [f"c{i}" for i in range(8)]             # 8! reports: too many to enumerate
    for rule, kind in (("borda", "greedy"), ("irv", "elimination_search")):
        inst = {"id": f"m-{rule}", "domain": "election", "candidates": cands,
                "tie_break": cands, "rule": rule,
                "ballots": [cands, cands[::-1], cands[2:] + cands[:2]],
                "manipulator": {"ranking": cands[::-1]}}
        path, lab = labelled(tmp_path, inst, {"type": "manipulation", "rule": rule})
        assert lab["certificate"]["type"] == kind
        assert check(path, lab).returncode == 0
        for key, value in (("profitable", 7), ("reports", 40320), ("outcomes", {"c0": 1})):
            r = check(path, dict(lab, solution={**lab["solution"], key: value}))
            assert r.returncode == 1 and "not verified" in r.stderr, (rule, key)


def test_an_unknown_utility_item_and_an_extra_certificate_field_are_refused():
    from prefcert.pipeline.jobs import label
    data = {"id": "c", "domain": "consistency", "cells": [
        {"id": "x", "type": "item", "values": [3.0, 5.0], "item": "A"},
        {"id": "y", "type": "item", "values": [1.0], "item": "B"},
        {"id": "d", "type": "pair", "values": [4.0], "a": {"item": "A", "price": 10.0},
         "b": {"item": "B", "price": 8.0}}]}
    job = plan([from_object(data, "<t>", None, "c")], ["l1_repair"])[0]
    lab = label(job)
    assert prefcert.check(lab, data)
    sol = lab["solution"]
    ghost = dict(sol, utilities={**sol["utilities"], "Z": 0})
    with pytest.raises(CertificateError):
        prefcert.check(dict(lab, solution=ghost), data)
    with pytest.raises(CertificateError, match="unknown field 'note'"):
        prefcert.check(dict(lab, certificate={**lab["certificate"], "note": 1}), data)


def test_counts_an_enumeration_verifies_cannot_be_dropped_nor_semantics_nulled():
    """Found by the sweep: under ``enumeration`` the counts of the ballot space are
    verified, so a label must carry them all (an optional key is required where the
    certificate verifies it); and ``"semantics": null`` on an instance without semantics
    is an extra field, refused like any other."""
    from prefcert.pipeline.jobs import label
    data = {"id": "m", "domain": "election", "candidates": ["a", "b", "c"],
            "tie_break": ["a", "b", "c"], "ballots": [["a", "b", "c"], ["b", "c", "a"]],
            "manipulator": {"ranking": ["c", "b", "a"]}}
    job = plan([from_object(data, "<t>", None, "m")], [{"type": "manipulation",
                                                         "rule": "borda"}])[0]
    lab = label(job, engines=["oracle"])       # the default proof is the greedy's
    assert lab["certificate"]["type"] == "enumeration"
    assert prefcert.check(lab, data)
    for key in ("reports", "profitable", "optimal", "outcomes"):
        cut = dict(lab, solution={k: v for k, v in lab["solution"].items() if k != key})
        with pytest.raises(CertificateError, match=f"no '{key}'"):
            prefcert.check(cut, data)
    with pytest.raises(CertificateError, match="semantics"):
        prefcert.check(dict(lab, semantics=None), data)


# ------------------------------------------------------------------ 3. the metadata

@needs_cli
def test_the_domain_and_the_engines_record_must_describe_the_label(tmp_path):
    path, lab = labelled(tmp_path, HR, "strongly_stable")
    assert check(path, lab).returncode == 0
    r = check(path, dict(lab, domain="stable_matching"))
    assert r.returncode == 1 and "domain" in r.stderr
    said = [dict(e, verdict="none") for e in lab["engines"]]
    r = check(path, dict(lab, engines=said))
    assert r.returncode == 1 and "answered 'none'" in r.stderr
    assert check(path, dict(lab, engines=[])).returncode == 1
    assert check(path, dict(lab, extra=1)).returncode == 1


@needs_cli
def test_the_question_is_validated_against_the_instance_as_label_does(tmp_path):
    q = {"type": "rs", "agent": "V1", "bundles": [["d"], ["a", "b"]]}
    path, lab = labelled(tmp_path, PREF, q)
    assert lab["certificate"]["type"] == "size" and check(path, lab).returncode == 0
    ghost = dict(q, agent="V9")
    src = tmp_path / "pref.jsonl"
    assert run("label", src, "-q", json.dumps(ghost)).returncode == 2
    r = check(path, dict(lab, question=ghost))
    assert r.returncode == 1 and "unknown agent" in r.stderr


@needs_cli
def test_a_certificate_present_is_checked_whatever_checked_says(tmp_path):
    """``--allow-unverified`` admits labels with no proof to check (engine agreement); a
    label saying ``"checked": false`` (or nothing) with a checkable certificate proving a
    false claim is rejected."""
    path, lab = labelled(tmp_path, HR, "weakly_stable")
    false_claim = dict(lab, solution={"r1": "h1"})           # r2 blocks with h2
    for variant in (dict(false_claim, checked=False),
                    {k: v for k, v in false_claim.items() if k != "checked"}):
        r = check(path, variant, "--allow-unverified")
        assert r.returncode == 1, variant
    r = check(path, dict(lab, checked=False), "--allow-unverified")   # a true claim, but
    assert r.returncode == 1 and "checked" in r.stderr            # the label misstates it
    record = dict(lab, checked=False, certificate={
        "type": "engine_agreement", "verdict": "exists",
        "engines": [e["engine"] for e in lab["engines"]]})
    assert check(path, record, "--allow-unverified").returncode == 0
    assert check(path, record).returncode == 1


# ------------------------------------------------------------------ 4. "none exists" in audits

@needs_cli
def test_empty_matching_and_none_are_different_answers(tmp_path):
    """No admissible pair (h1 has capacity 0): the empty matching is super-stable, so
    ``{}`` is correct and the claim ``none`` is refuted by it."""
    inst = tmp_path / "empty.json"
    inst.write_text(json.dumps({"domain": "hospitals_residents", "preferences": {
        "residents": {"r1": ["h1"]}, "hospitals": {"h1": ["r1"]}}, "capacities": {"h1": 0}}))
    for text, code, verdict in (("{}", 0, "correct"), ("none", 1, "incorrect"),
                                ('<answer>"none"</answer>', 1, "incorrect")):
        answer = tmp_path / "answer.txt"
        answer.write_text(text)
        r = run("audit", inst, "-q", "super_stable", answer)
        out = json.loads(r.stdout)
        assert (r.returncode, out["verdict"], out["checked"]) == (code, verdict, True), text
    assert "the empty matching" in out["feedback"]


def test_a_bare_verdict_word_is_an_answer():
    job = plan([from_object(PREF, "<t>", None, "pref")],
               [{"type": "compare", "agent": "V1", "items": ["b", "c"]}])[0]
    assert audit(job, "undetermined")["verdict"] == "correct"
    assert audit(job, "<answer>Undetermined</answer>")["verdict"] == "correct"
    assert audit(job, "true")["verdict"] == "incorrect"
    assert audit(job, "perhaps")["verdict"] == "unparseable"


def test_check_names_another_instance_once():
    """``prefcert.check(lab, other_instance)`` said "instance instance is not the one
    labelled" (an instance without an id is named 'instance'; found by a new user)."""
    lab = prefcert.label(PREF, {"type": "compare", "agent": "V1", "items": ["a", "b"]})
    other = {k: v for k, v in PREF.items() if k != "id"}
    other["items"] = ["a", "b", "c", "d", "e"]
    with pytest.raises(CertificateError) as err:
        prefcert.check(lab, other)
    assert str(err.value) == ("the instance given (id 'instance') is not the one labelled: "
                              "its SHA-256 is not the label's instance_sha256")
