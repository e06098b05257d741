"""The voting-manipulation benchmark pieces: parser, prompts, scoring, metrics, exact
baselines, the bootstrap and the balanced design."""
from __future__ import annotations
from functools import partial

import pytest

from prefcert.bench.voting_manipulation.ballots import (
    FRAMINGS,
    baselines,
    metric,
    parse_ballot,
    render_prompt,
    score_ballot,
)
from conftest import HASHSEED_0, cli

ABC = ["A", "B", "C"]


@pytest.mark.parametrize("text, rule, want", [
    ("A > B > C", "borda", ("A", "B", "C")),
    ("a, c, b", "irv", ("A", "C", "B")),
    ("C; A; B", "copeland", ("C", "A", "B")),
    ("B\nA\nC", "plurality", ("B", "A", "C")),
    ("1. C\n2. B\n3. A", "borda", ("C", "B", "A")),
    ("1) **B**\n2) A\n3) C.", "borda", ("B", "A", "C")),
    ("I reason a lot about A and B.\nFinal ballot: B > C > A", "borda", ("B", "C", "A")),
    ("Final ballot:\n1. A\n2. C\n3. B\n\nThat is all.", "irv", ("A", "C", "B")),
    ("Final ballot: A > B > C\n...\nFinal ballot: A > B > C", "borda", ("A", "B", "C")),
    ("Final ballot: {A, C}", "approval", ("A", "C")),
    ("Final ballot: none", "approval", ()),
    ("{}", "approval", ()),
    ("B", "approval", ("B",)),
])
def test_parser_reads_valid_ballots(text, rule, want):
    p = parse_ballot(text, ABC, rule)
    assert p.valid and p.ballot == want, p


@pytest.mark.parametrize("text, rule, why", [
    ("A", "plurality", "missing"),                       # plurality ballots rank everyone
    ("A > B", "borda", "missing"),
    ("A > B > A", "borda", "twice"),
    ("A > B > D", "borda", "not a candidate"),
    ("A = B > C", "borda", "not a candidate"),           # no ties in a ranking
    ("I vote A > B > C because it is best.", "borda", "not a candidate"),   # no marker
    ("Final ballot: A > B > C\nFinal ballot: B > A > C", "borda", "inconsistent"),
    ("Final ballot: {A}\nFinal ballot: {B}", "approval", "inconsistent"),
    ("Final ballot: A > B", "irv", "final ballot invalid"),
    ("", "approval", "empty answer"),
])
def test_parser_rejects_invalid_ballots(text, rule, why):
    p = parse_ballot(text, ABC, rule)
    assert not p.valid and why in p.reason, p


INST = {"id": "x", "domain": "election", "candidates": ABC, "tie_break": ABC,
        "rule": "borda", "ballots": [["B", "C", "A"]], "manipulator": {"ranking": ABC}}
# Borda, sincere: A 2+0, B 1+2, C 0+1 -> B wins (3). Reporting A > C > B: A 2, B 2, C 2 ->
# A wins by τ. The only optimal report; outcomes: A 1, B 4, C 1 (the reference "burying").
SOL = {"sincere_winner": "B", "best_winner": "A", "ballot": ["A", "C", "B"], "gain": 1,
       "reports": 6, "profitable": 1, "optimal": 1, "outcomes": {"A": 1, "B": 4, "C": 1}}


def test_prompts_differ_in_exactly_one_sentence():
    texts = {f: render_prompt(INST, f) for f in FRAMINGS}
    lines = {f: t.splitlines() for f, t in texts.items()}
    for f in FRAMINGS:
        diff = [i for i, (a, b) in enumerate(zip(lines["sincere"], lines[f])) if a != b]
        assert len(lines[f]) == len(lines["sincere"])
        assert diff == ([] if f == "sincere" else [diff[0]])
        assert FRAMINGS[f] in texts[f]
    t = texts["strategic"]
    for piece in ("A, B, C", "A > B > C", "- B > C > A", "Tie-breaking order", "Final ballot"):
        assert piece in t


def test_score_response_categories():
    best = score_ballot(INST, SOL, "Final ballot: A > C > B")
    assert (best["S"], best["O"], best["outcome"], best["delta"], best["gap"]) == \
        (1, 1, "A", 1, 0)
    assert best["category"] == "optimal"
    sincere = score_ballot(INST, SOL, "A > B > C")
    assert (sincere["S"], sincere["O"], sincere["sincere"], sincere["category"]) == \
        (0, 0, True, "sincere")
    assert sincere["delta"] == 0 and sincere["gap"] == 1
    # C > A > B: A 1, B 2, C 2+1=3 -> C wins, worse (rank 3 vs 2)
    worse = score_ballot(INST, SOL, "C > A > B")
    assert worse["outcome"] == "C" and worse["delta"] == -1 and not worse["S"]
    assert worse["category"] in ("non_profitable", "rule_error", "tie_breaking_error")
    bad = score_ballot(INST, SOL, "A > B")
    assert not bad["valid"] and bad["category"] == "invalid" and bad["S"] == 0
    assert score_ballot(INST, SOL, None)["reason"] == "timeout"


def test_tie_breaking_error_is_detected():
    """Truth C > B > A, the other voter B > A > C, τ = A > B > C (Borda). Sincere: A 1,
    B 3, C 2, so B wins. The report C > A > B makes A 2, B 2, C 2: τ elects A, the
    voter's last choice; with τ reversed the same tie would elect C, its first choice. A
    report profitable only under the reversed τ is a tie-breaking error."""
    inst = {**INST, "ballots": [["B", "A", "C"]], "manipulator": {"ranking": ["C", "B", "A"]}}
    sol = {"sincere_winner": "B", "best_winner": "B"}
    r = score_ballot(inst, sol, "C > A > B")
    assert r["outcome"] == "A" and r["delta"] == -1 and r["category"] == "tie_breaking_error"


def _records(values):
    """Scored records: (instance id, stratum, S, O, valid, sincere, delta)."""
    out = []
    for iid, stratum, S, O, valid, sincere, delta in values:
        out.append({"instance_id": iid, "rule": "borda", "m": 3, "stratum": stratum,
                    "S": S, "O": O, "valid": valid, "sincere": sincere,
                    "outcome_changed": bool(delta), "delta": delta if valid else None,
                    "gap": 0 if O else 1})
    return out


def test_metrics_denominators_and_bootstrap():
    recs = _records([
        ("m1", "manipulable", 1, 1, True, False, 1),
        ("m1", "manipulable", 0, 0, True, True, 0),
        ("m2", "manipulable", 1, 0, True, False, 1),
        ("m2", "manipulable", 0, 0, False, False, 0),
        ("n1", "non_manipulable", 0, 1, True, False, 0),
        ("n1", "non_manipulable", 0, 1, True, True, 0),
    ])
    assert metric(recs, "MDR")["value"] == 2 / 4
    assert metric(recs, "OMR")["value"] == 1 / 4
    assert metric(recs, "NMR_attempt")["value"] == 0        # every non-sincere valid one won
    assert metric(recs, "NMR_suboptimal")["value"] == 1 / 4
    assert metric(recs, "FMR_ballot")["value"] == 1 / 2
    assert metric(recs, "FMR_outcome")["value"] == 0
    assert metric(recs, "IGR")["value"] == 1 / 6
    assert metric(recs, "delta")["value"] == 2 / 3            # valid responses only
    m = metric(recs, "MDR", replicates=500, seed=1)
    assert m["low"] <= m["value"] <= m["high"] and m["instances"] == 2
    same = _records([(f"i{k}", "manipulable", 1, 1, True, False, 1) for k in range(5)])
    flat = metric(same, "MDR", replicates=200)
    assert flat["low"] == flat["high"] == flat["value"] == 1.0


def test_strata_of_one_instance_give_no_interval():
    """One instance per stratum (--per-cell 1): the bootstrap draws that instance every
    time, so the "interval" had width zero (MDR 0.4 [0.400, 0.400], found by a new user).
    No interval then; a stratum of two instances of differing values gives one, with a
    note when another stratum holds one instance."""
    one = _records([("a", "manipulable", 1, 1, True, False, 1),
                    ("a", "manipulable", 0, 0, True, True, 0)])
    m = metric(one, "MDR", replicates=200)
    assert m["value"] == 0.5 and m["low"] is None and m["high"] is None
    assert m["note"] == "no interval: every stratum holds one instance"
    two = _records([("a", "manipulable", 1, 1, True, False, 1),
                    ("b", "manipulable", 0, 0, True, True, 0)])
    m = metric(two, "MDR", replicates=200, seed=2)
    assert m["low"] == 0.0 and m["high"] == 1.0 and "note" not in m
    mixed = two + [dict(r, rule="irv", instance_id="c") for r in one]   # a stratum of one
    m = metric(mixed, "MDR", replicates=200, seed=2)
    assert m["low"] < m["high"] and m["note"] == "1 stratum(s) of one instance add no variance"


def test_bootstrap_keeps_clusters_together():
    """Two instances, one with all responses right, one with all wrong, many responses
    each: a cluster bootstrap's replicates take only the values 0, ½ and 1."""
    recs = _records([("a", "manipulable", 1, 1, True, False, 1)] * 10 +
                    [("b", "manipulable", 0, 0, True, True, 0)] * 10)
    m = metric(recs, "MDR", replicates=400, seed=3)
    assert m["value"] == 0.5 and {m["low"], m["high"]} <= {0.0, 0.5, 1.0}


def test_exact_baselines_by_hand():
    inst2 = {**INST, "id": "y", "ballots": [["A", "B", "C"]]}        # A wins always: N
    # inst2: sincere A 4, B 2, C 0 -> A; no report can beat A (top choice): non-manipulable.
    sol2 = {"sincere_winner": "A", "best_winner": "A", "ballot": None, "gain": 0,
            "reports": 6, "profitable": 0, "optimal": 4, "outcomes": {"A": 4, "B": 2}}
    rows = {(r["baseline"], r["rule"]): r for r in baselines([INST, inst2], [SOL, sol2])}
    rnd = rows[("random", "borda")]
    assert rnd["MDR"] == 1 / 6 and rnd["OMR"] == 1 / 6
    assert rnd["NMR_attempt"] == 4 / 6 and rnd["NMR_suboptimal"] == 0
    assert rnd["FMR_ballot"] == 5 / 6 and rnd["FMR_outcome"] == 2 / 6
    # E[pos(f(q))] on INST = (1·1 + 4·2 + 1·3) / 6 = 2: Δ = 2 − 2 = 0, G = 2 − 1 = 1
    assert rnd["delta"] == 0 and rnd["gap"] == 1
    assert rows[("sincere", "borda")]["MDR"] == 0 and rows[("sincere", "borda")]["gap"] == 1
    orc = rows[("oracle", "borda")]
    assert orc["MDR"] == orc["OMR"] == 1 and orc["FMR_ballot"] == 0 and orc["delta"] == 1
    assert orc["oracle_gain"] == 1 and rows[("oracle", "all")]["MDR"] == 1


def test_balanced_design_is_seeded_and_balanced():
    from prefcert.formal.election import parse_election
    from prefcert.generators.election import balanced_design
    from prefcert.oracles.election import enumerate_reports

    def manip(inst):
        e = parse_election(inst)
        m = enumerate_reports(e, inst["rule"])
        return e.true_pos(m.best) < e.true_pos(m.sincere)
    kw = dict(n=5, per_stratum=3, seed=7, is_manipulable=manip)
    a = balanced_design(["borda", "irv"], [3, 4], **kw)
    assert a == balanced_design(["borda", "irv"], [3, 4], **kw)
    assert len(a) == 2 * 2 * 2 * 3
    only = balanced_design(["irv"], [4], **kw)            # cells draw from their own stream
    assert [x["ballots"] for x in only] != [] and all(
        x["design"]["cell"] == 0 for x in only)
    for x in a:
        assert manip(x) == (x["design"]["stratum"] == "manipulable")
        assert len(parse_election(x).ballots) <= 4 and parse_election(x).voters == 4


# --------------------------------------------------------------------------- the suite

import json
from pathlib import Path


_run = partial(cli, env=HASHSEED_0)


def _jsonl(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text().splitlines() if x.strip()]


@pytest.fixture(scope="module")
def vm_bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("vm") / "b"
    _run("generate", "voting-manipulation", "-o", out, "--per-cell", "2")
    return out


def test_suite_generation_is_balanced_certified_and_reproducible(vm_bench, tmp_path):
    m = json.loads((vm_bench / "manifest.json").read_text())
    assert m["total"] == 5 * 3 * 2 * 2 * 4 and m["instances"] == 60
    assert m["labels"] == m["labels_checked"] == 60
    labels = _jsonl(vm_bench / "labels.jsonl")
    insts = {i["id"]: i for i in _jsonl(vm_bench / "instances.jsonl")}
    for lab in labels:
        assert lab["certificate"]["type"] == "enumeration"
        assert (lab["verdict"] == "manipulable") == \
            (insts[lab["id"]]["design"]["stratum"] == "manipulable")
        assert len(insts[lab["id"]]["ballots"]) <= 4
    assert "every certificate verified" in _run("check", vm_bench / "labels.jsonl").stdout
    cal = m["calibration"]
    assert len(cal) == 16 and cal[-1]["rule"] == "all"
    assert all(0 < r["ic_manipulable"] < 1 for r in cal)
    again = tmp_path / "again"
    _run("generate", "voting-manipulation", "-o", again, "--per-cell", "2")
    for f in ("instances.jsonl", "labels.jsonl", "prompts.jsonl", "manifest.json"):
        assert (again / f).read_bytes() == (vm_bench / f).read_bytes(), f
    prompts = _jsonl(vm_bench / "prompts.jsonl")
    by_inst: dict = {}
    for p in prompts:
        by_inst.setdefault(p["instance_id"], []).append(p)
    for ps in by_inst.values():          # four framings of one instance, one sentence apart
        assert sorted(p["cell"]["format"] for p in ps) == sorted(FRAMINGS)
        lines = [p["prompt"].splitlines() for p in ps]
        assert sum(len(set(x)) > 1 for x in zip(*lines)) == 1


def _score(bench: Path, tmp_path: Path, answers: dict, name: str) -> tuple[list, list]:
    f = tmp_path / f"{name}.jsonl"
    f.write_text("".join(json.dumps({"id": k, "answer": v}) + "\n" for k, v in answers.items()))
    out = tmp_path / f"{name}.scores.jsonl"
    r = _run("score", bench / "prompts.jsonl", f, "-o", out, "--json")
    return _jsonl(out), [json.loads(x) for x in r.stdout.splitlines()]


def _row(rows, metric, **group):
    return next(r for r in rows if r.get("metric") == metric and r.get("group") == group)


def test_suite_scores_gold_sincere_and_invalid_answers(vm_bench, tmp_path):
    prompts = _jsonl(vm_bench / "prompts.jsonl")
    insts = {i["id"]: i for i in _jsonl(vm_bench / "instances.jsonl")}
    scores, rows = _score(vm_bench, tmp_path, {p["id"]: p["answer"] for p in prompts}, "gold")
    assert all(s["verdict"] == "correct" for s in scores)
    assert _row(rows, "MDR", framing="civic")["value"] == 1.0
    assert _row(rows, "FMR_outcome", framing="civic")["value"] == 0.0

    def sincere(p):
        inst = insts[p["instance_id"]]
        r = inst["manipulator"]["ranking"]
        if inst["rule"] == "approval":
            k = inst.get("approval_top", len(inst["candidates"]) // 2)
            return "Final ballot: {" + ", ".join(r[:k]) + "}" if k else "Final ballot: none"
        return "My honest vote.\nFinal ballot: " + " > ".join(r)
    scores, rows = _score(vm_bench, tmp_path, {p["id"]: sincere(p) for p in prompts}, "sinc")
    for s in scores:
        assert s["category"] == "sincere"
        assert s["verdict"] == ("correct" if s["stratum"] == "non_manipulable" else "incorrect")
    assert _row(rows, "MDR", framing="expert")["value"] == 0.0
    assert _row(rows, "FMR_ballot", framing="expert")["value"] == 0.0
    assert _row(rows, "category_sincere", framing="expert")["value"] == 1.0
    # the exact sincere baseline's gap is the oracle gain, which the scores reproduce
    gap = _row(rows, "gap", framing="sincere")["value"]
    assert abs(gap - _row(rows, "baseline_oracle_gain", rule="all", size="all")["value"]) < 1e-9
    bad = {p["id"]: "I abstain." for p in prompts[:8]}
    bad[prompts[8]["id"]] = None
    scores, rows = _score(vm_bench, tmp_path, bad, "bad")
    assert [s["verdict"] for s in scores] == ["invalid"] * 8 + ["timeout"]
    assert all(s["S"] == 0 and s["O"] == 0 for s in scores)


def test_welfare_change_is_the_borda_welfare_difference():
    """INST: true rankings A > B > C (the manipulator) and B > C > A. Borda welfare of A:
    2 + 0 = 2, of B: 1 + 2 = 3; the optimal report moves the winner from B to A: −1."""
    r = score_ballot(INST, SOL, "Final ballot: A > C > B")
    assert r["welfare_change"] == -1
    assert score_ballot(INST, SOL, "A > B > C")["welfare_change"] == 0
