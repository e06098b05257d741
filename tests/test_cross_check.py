"""Cross-checks within a budget (issue 24, item 4): ``cross_check="always"|"budget"|"never"``.

The rule (docs/architecture.md, "Cross-checks within a budget"): once an engine has given
a certificate, the engines after it only cross-check; under ``budget`` they run when the
instance's canonical JSON has at most 1024 characters or the first 8 hex digits of its
SHA-256 are divisible by 64. The expected sample membership below is computed in the test
from that written rule with hashlib (not by prefcert), and the ``always`` labels are the
ones main printed before the option existed (tests/data/cross_check/main-labels.jsonl),
except the three ``manipulation`` labels, which since issue 24 item 5 carry the cheap proof
(the greedy's stuck sets, the IRV search) with enumeration as their cross-check.
"""
from __future__ import annotations

import copy
import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from conftest import PREFCERT

import prefcert
from prefcert.formal import budget
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.formal.instances import from_object
from prefcert.generators.stable_matching import sample_smti
from prefcert.pipeline.jobs import label as run_label
from prefcert.pipeline.jobs import plan
from prefcert.pipeline.registry import domain

ROOT = Path(__file__).resolve().parents[1]
MAIN = ROOT / "tests" / "data" / "cross_check" / "main-labels.jsonl"
BUNDLED = ["instances/stable_matching/generated-n10.jsonl",
           "instances/housing_market/reference.jsonl",
           "instances/election/reference.jsonl"]

# Irving's example of no super-stable matching: a tiny instance (within the budget)
TINY = {"domain": "stable_matching", "preferences": {
    "A": {"m1": [["w1", "w2"]], "m2": ["w1"]}, "B": {"w1": [["m1", "m2"]], "w2": ["m1"]}}}


def canonical(data: dict) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def sampled(data: dict) -> bool:
    """The written rule, restated here: first 8 hex digits of the SHA-256, mod 64."""
    return int(hashlib.sha256(canonical(data).encode()).hexdigest()[:8], 16) % 64 == 0


def large_smti(want_sampled: bool) -> dict:
    """An SMTI market of 10 a side larger than the budget, in or out of the sample."""
    for seed in range(1000):
        inst = sample_smti(10, tie_prob=0.2, seed=seed, id=f"n10-s{seed}")
        if len(canonical(inst)) > 1024 and sampled(inst) == want_sampled:
            return inst
    raise AssertionError("no such instance in 1000 seeds")


def drop_seconds(lab: dict) -> dict:
    lab = copy.deepcopy(lab)
    for e in lab["engines"]:
        e.pop("seconds", None)
    return lab


# ------------------------------------------------------------------ the sample

def test_sample_is_one_in_128_by_the_first_hex_digits():
    zeros = "0" * 64
    assert budget.in_sample(zeros)
    assert budget.in_sample("00000080" + "f" * 56)        # 128
    assert budget.in_sample("00000380" + "1" * 56)        # 896 = 7 * 128
    assert not budget.in_sample("00000040" + "0" * 56)    # 64
    assert not budget.in_sample("000001c0" + "0" * 56)    # 448 = 7 * 64
    assert not budget.in_sample("00000010" + "0" * 56)    # 16
    assert not budget.in_sample("00000001" + "0" * 56)
    assert not budget.in_sample("0000000f" + "0" * 56)
    assert not budget.in_sample("ffffffff" + "0" * 56)    # 2**32 - 1 is odd
    # only the first 8 digits count
    assert budget.in_sample("00000000" + "f" * 56) and \
        not budget.in_sample("00000008" + "0" * 56)


def test_budget_is_size_or_sample():
    out = "00000001" + "0" * 56
    assert budget.due(out, 1024) and not budget.due(out, 1025)
    assert budget.due("0" * 64, 10 ** 9)


def test_the_decision_reads_the_content_only_not_key_order_or_file():
    inst = large_smti(want_sampled=False)
    shuffled = json.loads(json.dumps(inst))
    shuffled["preferences"] = {"B": shuffled["preferences"]["B"],
                               "A": dict(reversed(list(shuffled["preferences"]["A"].items())))}
    a = from_object(inst, "one.jsonl", 3, "x")
    b = from_object(shuffled, "other/two.json", None, "x")
    assert (a.sha256, a.size) == (b.sha256, b.size)
    assert a.size == len(canonical(inst)) > 1024
    assert budget.due(a.sha256, a.size) is budget.due(b.sha256, b.size) is False


def test_same_instance_same_decision_in_any_order_and_run():
    ins, out = large_smti(True), large_smti(False)
    runs = []
    for order in ([ins, out], [out, ins], [out, ins]):
        insts = [from_object(i, "<mem>", None, i["id"]) for i in order]
        labs = [run_label(j, cross_check="budget") for j in plan(insts, ["super_stable"])]
        runs.append({lab["id"]: (lab.get("cross_check"),
                                 [e["engine"] for e in lab["engines"]]) for lab in labs})
    assert runs[0] == runs[1] == runs[2]
    assert runs[0][ins["id"]] == (None, ["oracle", "cpsat", "z3"])
    assert runs[0][out["id"]] == ({"skipped": ["cpsat", "z3"], "reason": "budget"},
                                  ["oracle"])


# ------------------------------------------------------------------ engine calls

@pytest.fixture
def counted(monkeypatch):
    """The super-stability question's encodings, counted (the registry patched)."""
    calls = {"cpsat": 0, "z3": 0}
    engines = domain("stable_matching").questions["super_stable"].engines
    for name in calls:
        real = engines[name]

        def fake(*args, _real=real, _name=name, **kw):
            calls[_name] += 1
            return _real(*args, **kw)
        monkeypatch.setitem(engines, name, fake)
    return calls


def test_never_runs_no_encoding(counted):
    lab = prefcert.label(TINY, "super_stable", cross_check="never")
    assert counted == {"cpsat": 0, "z3": 0}
    assert [e["engine"] for e in lab["engines"]] == ["oracle"]
    assert lab["cross_check"] == {"skipped": ["cpsat", "z3", "brute_force"],
                                  "reason": "never"}
    assert lab["verdict"] == "none" and lab["checked"]
    assert prefcert.check(lab, TINY)


def test_budget_runs_the_cross_check_of_a_small_instance(counted):
    lab = prefcert.label(TINY, "super_stable")              # the default: budget
    assert counted == {"cpsat": 1, "z3": 1}
    assert "cross_check" not in lab
    assert [e["engine"] for e in lab["engines"]] == ["oracle", "cpsat", "z3", "brute_force"]


def test_budget_skips_a_large_instance_outside_the_sample(counted):
    inst = large_smti(want_sampled=False)
    lab = prefcert.label(inst, "super_stable")
    assert counted == {"cpsat": 0, "z3": 0}
    assert lab["cross_check"] == {"skipped": ["cpsat", "z3"], "reason": "budget"}
    assert prefcert.check(lab, inst)
    always = prefcert.label(inst, "super_stable", cross_check="always")
    assert counted == {"cpsat": 1, "z3": 1}
    # the labels differ only in the cross-check record
    a, b = drop_seconds(always), drop_seconds(lab)
    del b["cross_check"]
    a["engines"] = [e for e in a["engines"] if e["engine"] == "oracle"]
    assert a == b


def test_budget_runs_engines_named_explicitly(counted):
    inst = large_smti(want_sampled=False)
    lab = prefcert.label(inst, "super_stable", engines=["oracle", "cpsat"])
    assert counted == {"cpsat": 1, "z3": 0} and "cross_check" not in lab
    lab = prefcert.label(inst, "super_stable", engines=["oracle", "cpsat"],
                         cross_check="never")
    assert counted == {"cpsat": 1, "z3": 0}
    assert lab["cross_check"] == {"skipped": ["cpsat"], "reason": "never"}


def test_an_engine_before_the_proof_is_no_cross_check_and_runs(counted):
    # without the oracle nothing settles the proof: CP-SAT and z3 answer "none" without a
    # refutation (their agreement is the label's basis, the oracle's certify its proof),
    # so neither is a cross-check and both run even under never
    lab = prefcert.label(TINY, "super_stable", engines=["cpsat", "z3"], cross_check="never")
    assert counted == {"cpsat": 1, "z3": 1}
    assert "cross_check" not in lab
    assert lab["verdict"] == "none" and lab["certificate"]["type"] == "deletion_log"


def test_bad_cross_check_is_refused_before_any_engine(counted):
    with pytest.raises(InstanceError) as e:
        prefcert.label(TINY, "super_stable", cross_check="sometimes")  # type: ignore[arg-type]
    assert "cross_check" in str(e.value) and "'sometimes'" in str(e.value)
    assert "\n" not in str(e.value)
    assert counted == {"cpsat": 0, "z3": 0}


# ------------------------------------------------------------------ the checker

def _skipping_label(want_sampled: bool) -> tuple[dict, dict]:
    inst = large_smti(want_sampled)
    lab = prefcert.label(inst, "weakly_stable", cross_check="never")
    return dict(lab), inst


def test_checker_accepts_the_record():
    lab, inst = _skipping_label(False)
    assert prefcert.check(lab, inst)
    lab["cross_check"] = {"skipped": ["cpsat", "z3"], "reason": "budget"}
    assert prefcert.check(lab, inst)


@pytest.mark.parametrize("record, words", [
    ({"skipped": ["cpsat", "z3"], "reason": "timeout"}, "reason 'timeout'"),
    ({"skipped": ["cpsat", "z3"], "reason": "never", "seconds": 1}, "'cross_check' is"),
    ({"skipped": ["cpsat", "z3"]}, "'cross_check' is"),
    ("skipped", "'cross_check' is"),
    ({"skipped": [], "reason": "never"}, "non-empty list"),
    ({"skipped": ["cpsat", "cpsat"], "reason": "never"}, "distinct"),
    ({"skipped": ["oracle"], "reason": "never"}, "both in 'engines' and skipped"),
    ({"skipped": [1], "reason": "never"}, "engine names"),
])
def test_checker_rejects_a_bad_record(record, words):
    lab, inst = _skipping_label(False)
    lab["cross_check"] = record
    with pytest.raises(CertificateError, match=words.replace("(", r"\(")):
        prefcert.check(lab, inst)


def test_checker_rejects_a_budget_skip_that_was_not_allowed():
    lab, inst = _skipping_label(True)                        # in the sample
    lab["cross_check"] = {"skipped": ["cpsat", "z3"], "reason": "budget"}
    with pytest.raises(CertificateError, match="in the sample"):
        prefcert.check(lab, inst)
    small = prefcert.label(TINY, "weakly_stable", cross_check="never")
    assert prefcert.check(small, TINY)
    forged = dict(small, cross_check={"skipped": ["cpsat", "z3", "brute_force"],
                                      "reason": "budget"})
    if budget.in_sample(small["instance_sha256"]):
        pytest.skip("the tiny instance happens to be in the sample")
    with pytest.raises(CertificateError, match="within it"):
        prefcert.check(forged, TINY)


# ------------------------------------------------------------------ always = main

def _labels(stdout: str) -> list[dict]:
    return [drop_seconds(json.loads(line)) for line in stdout.splitlines()]


def test_always_prints_what_main_printed():
    r = subprocess.run([PREFCERT, "label", *BUNDLED, "--cross-check", "always",
                        "--jobs", "1"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    want = [json.loads(line) for line in MAIN.read_text().splitlines()]
    got = _labels(r.stdout)
    assert len(got) == len(want) == 31
    for g, w in zip(got, want):
        assert json.dumps(g, separators=(",", ":")) == json.dumps(w, separators=(",", ":"))


def test_cli_budget_differs_from_main_only_in_the_record(tmp_path):
    out = tmp_path / "labels.jsonl"
    r = subprocess.run([PREFCERT, "label", *BUNDLED, "-o", str(out), "--jobs", "1"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    got = _labels(out.read_text())
    want = [json.loads(line) for line in MAIN.read_text().splitlines()]
    skipped = 0
    for g, w in zip(got, want):
        rec = g.pop("cross_check", None)
        g["source"]["file"] = w["source"]["file"]           # written relative to OUT
        if rec is not None:
            skipped += 1
            assert rec["reason"] == "budget"
            w["engines"] = [e for e in w["engines"] if e["engine"] not in rec["skipped"]]
        assert g == w
    # the labels that skip: the three of each n = 10 market over the budget and outside
    # the sample (by the rule restated here); the small reference instances skip none
    markets = [json.loads(line) for line in (ROOT / BUNDLED[0]).read_text().splitlines()]
    over = [m for m in markets if len(canonical(m)) > 1024 and not sampled(m)]
    assert skipped == 3 * len(over) > 0
    c = subprocess.run([PREFCERT, "check", str(out)], capture_output=True, text=True)
    assert c.returncode == 0, c.stderr
    assert c.stdout.strip() == "31 label(s) checked: every certificate verified."


def test_cli_bad_cross_check_is_one_line_exit_2(tmp_path):
    out = tmp_path / "labels.jsonl"
    r = subprocess.run([PREFCERT, "label", BUNDLED[0], "--cross-check", "sometimes",
                        "-o", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.count("\n") == 1
    assert "--cross-check" in r.stderr and "'sometimes'" in r.stderr
    assert not out.exists()


# ------------------------------------------------------------------ IRV's CP-SAT bound

def _irv_election(m: int, classes: int) -> dict:
    """m candidates, the manipulator's ranking A..., and ``classes`` distinct fixed
    ballots (the candidate order rotated by 1, 2, ..., then those reversed), each cast
    twice."""
    names = [chr(ord("A") + i) for i in range(m)]
    rot = [names[k:] + names[:k] for k in range(1, m)]
    ballots = (rot + [r[::-1] for r in rot])[:classes]
    return {"domain": "election", "candidates": names, "tie_break": names, "rule": "irv",
            "manipulator": {"ranking": names},
            "ballots": [b for b in ballots for _ in range(2)]}


def test_irv_model_size_counts_classes_times_m_squared_times_rounds():
    from prefcert.encodings.election import irv_model_size
    from prefcert.formal.election import parse_election
    # 3 classes + 1 manipulator, m = 4: 4 * 16 * 3 = 192
    assert irv_model_size(parse_election(_irv_election(4, 3)), [1]) == 192
    # m = 20, 19 classes: 20 * 400 * 19 = 152,000 (one model within 200,000, not two)
    assert irv_model_size(parse_election(_irv_election(20, 19)), [1]) == 152_000
    # 30 classes: 31 * 400 * 19 = 235,600, past the bound
    assert irv_model_size(parse_election(_irv_election(20, 30)), [1]) == 235_600


@pytest.fixture
def cpsat_calls(monkeypatch):
    from prefcert.encodings import election as enc
    calls: list[dict] = []
    real = enc.can_win_cpsat

    def fake(*args, **kw):
        calls.append(kw)
        return real(*args, **kw)
    monkeypatch.setattr(enc, "can_win_cpsat", fake)
    return calls


def test_irv_cpsat_cross_check_past_the_size_bound_answers_unknown_at_once(cpsat_calls):
    inst = _irv_election(20, 30)     # one model is 235,600 units, past 200,000
    inst["manipulator"]["ranking"] = inst["candidates"][1:] + ["A"]   # A (w0) last
    lab = prefcert.label(inst, "manipulation", cross_check="always")
    assert [(e["engine"], e["verdict"]) for e in lab["engines"]] == \
        [("reachability", lab["verdict"]), ("cpsat", "unknown")]
    assert cpsat_calls == []          # given up before building a model, on any machine
    assert prefcert.check(lab, inst)


def test_irv_cpsat_cross_check_within_the_bound_runs_reproducibly(cpsat_calls):
    inst = _irv_election(8, 3)        # 4 * 64 * 7 = 1,792 units per model
    labs = [prefcert.label(inst, "manipulation", engines=["reachability", "cpsat"])
            for _ in range(2)]
    assert cpsat_calls and all(kw["deterministic_time"] == 5.0 for kw in cpsat_calls)
    for lab in labs:
        assert [e["engine"] for e in lab["engines"]] == ["reachability", "cpsat"]
        assert lab["engines"][1]["verdict"] == lab["verdict"]
    assert drop_seconds(labs[0]) == drop_seconds(labs[1])
