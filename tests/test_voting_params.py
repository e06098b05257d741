"""voting-manipulation design parameters through the console script: τ, n, m outside
{3, 4, 5}, coalitions (k), the draw budget; the default bytes; the refusals.

Expected counts are the design's arithmetic (rules × m × strata × per-cell × framings),
written by hand; the coalition verdicts are derived by hand in the docstring of
``test_coalition_prompt_scored_on_hand_written_answers``.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
from collections import Counter
from functools import partial
from pathlib import Path

import pytest
from conftest import HASHSEED_0, cli, PREFCERT

RULES = ("plurality", "borda", "approval", "irv", "copeland")


_run = partial(cli, env=HASHSEED_0)


def _jsonl(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text().splitlines() if x.strip()]


def _gen(out: Path, *args) -> dict:
    _run("generate", "voting-manipulation", "-o", out, "--jobs", "1", *args)
    return json.loads((out / "manifest.json").read_text())


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _split(out: Path) -> Counter:
    """(rule, m, stratum) -> prompt instances, counted from instances.jsonl (the prompt
    instances: those without ``others_of``)."""
    return Counter((i["design"]["rule"], i["design"]["m"], i["design"]["stratum"])
                   for i in _jsonl(out / "instances.jsonl")
                   if "others_of" not in i["design"])


def _gold_all_correct(out: Path, tmp: Path) -> list[dict]:
    prompts = _jsonl(out / "prompts.jsonl")
    ans = tmp / f"{out.name}.answers.jsonl"
    ans.write_text("".join(json.dumps({"id": p["id"], "answer": p["answer"]}) + "\n"
                           for p in prompts))
    scored = tmp / f"{out.name}.scores.jsonl"
    _run("score", out / "prompts.jsonl", ans, "-o", scored, "--json")
    recs = _jsonl(scored)
    assert len(recs) == len(prompts) and all(r["verdict"] == "correct" for r in recs)
    assert "every certificate verified" in _run("check", out / "labels.jsonl").stdout
    return recs


# Recorded by running main (2c5fbde) before this change:
#   prefcert generate voting-manipulation -o B --per-cell 2 --sizes 3,4
# (the manifest hashed as sorted-key JSON without its "prefcert" version field).
MAIN_SHA = {
    "instances.jsonl": "e9cf18a324693ce124141ac993debdf2905aa0d81eb9b2e291f5cef319cd5c77",
    "labels.jsonl": "a1081794e8b4351e8eb7c5fb7b9be20122121925ef604dee7932a9f39168c475",
    "prompts.jsonl": "dba0271275be6c05e48655ce57eec3983f5924f73c0d2e0bc97f457dbe78bea7",
}
MAIN_MANIFEST_SHA = "84fee76f2bf2c4d27f4e7c3d65a7be97a443f6c35d49a1843b8afafb4d2b1863"


def _manifest_sha(out: Path) -> str:
    m = json.loads((out / "manifest.json").read_text())
    m.pop("prefcert")
    return hashlib.sha256(json.dumps(m, sort_keys=True).encode()).hexdigest()


@pytest.mark.parametrize("extra", [(), ("--param", "tau=alphabetical", "--param", "n=5",
                                        "--param", "k=1")])
def test_default_parameters_keep_mains_bytes(tmp_path, extra):
    out = tmp_path / "b"
    m = _gen(out, "--per-cell", "2", "--sizes", "3,4", *extra)
    for f, sha in MAIN_SHA.items():
        assert _sha(out / f) == sha, f
    assert _manifest_sha(out) == MAIN_MANIFEST_SHA
    assert "parameters" not in m


def test_random_tau(tmp_path):
    out = tmp_path / "tau"
    m = _gen(out, "--per-cell", "2", "--sizes", "3", "--param", "tau=random")
    assert m["total"] == 5 * 1 * 2 * 2 * 4 and m["instances"] == 20
    assert m["parameters"] == {"tau": "random", "n": 5, "k": 1, "max_draws": 20000}
    assert _split(out) == {(r, 3, s): 2 for r in RULES
                           for s in ("manipulable", "non_manipulable")}
    insts = _jsonl(out / "instances.jsonl")
    taus = {tuple(i["tie_break"]) for i in insts}
    assert len(taus) > 1                              # not one fixed order
    # τ is drawn apart from the profile: not always the voter's own ranking
    assert any(i["tie_break"] != i["manipulator"]["ranking"] for i in insts)
    assert all("-rt-" in i["id"] and i["design"]["tau"] == "random" for i in insts)
    prompts = _jsonl(out / "prompts.jsonl")
    by_id = {i["id"]: i for i in insts}
    for p in prompts:
        tau = " > ".join(by_id[p["instance_id"]]["tie_break"])
        assert f"Tie-breaking order (first = highest priority): {tau}." in p["prompt"]
    labels = _jsonl(out / "labels.jsonl")
    assert Counter(lab["verdict"] for lab in labels) == {"manipulable": 10,
                                                         "not_manipulable": 10}
    _gold_all_correct(out, tmp_path)


def test_other_electorate_size(tmp_path):
    out = tmp_path / "n7"
    m = _gen(out, "--per-cell", "2", "--sizes", "3", "--param", "n=7")
    assert m["total"] == 80 and m["instances"] == 20
    assert _split(out) == {(r, 3, s): 2 for r in RULES
                           for s in ("manipulable", "non_manipulable")}
    for i in _jsonl(out / "instances.jsonl"):        # six other voters and the model's
        assert sum(b.get("count", 1) if isinstance(b, dict) else 1 for b in i["ballots"]) == 6
        assert i["design"]["n"] == 7 and "-n7-" in i["id"]
    prompts = _jsonl(out / "prompts.jsonl")
    assert all(p["prompt"].startswith("You are one of 7 voters") for p in prompts)
    assert all(p["cell"]["n"] == 7 for p in prompts)
    _gold_all_correct(out, tmp_path)


def test_six_candidates(tmp_path):
    out = tmp_path / "m6"
    m = _gen(out, "--per-cell", "1", "--sizes", "6")
    assert m["total"] == 5 * 1 * 2 * 1 * 4 and m["instances"] == 10
    assert _split(out) == {(r, 6, s): 1 for r in RULES
                           for s in ("manipulable", "non_manipulable")}
    insts = _jsonl(out / "instances.jsonl")
    assert all(i["candidates"] == list("ABCDEF") for i in insts)
    for lab in _jsonl(out / "labels.jsonl"):       # every report enumerated: 6! or 2^6
        assert lab["certificate"]["type"] == "enumeration"
        assert lab["solution"]["reports"] == (64 if lab["id"].startswith("vm-approval")
                                              else 720)
    _gold_all_correct(out, tmp_path)


def test_coalition_prompts(tmp_path):
    out = tmp_path / "k2"
    m = _gen(out, "--per-cell", "2", "--sizes", "3", "--param", "k=2")
    # 20 coalition tasks: each a prompt instance and its companion of the other ballots
    assert m["total"] == 80 and m["instances"] == 40
    assert _split(out) == {(r, 3, s): 2 for r in RULES
                           for s in ("manipulable", "non_manipulable")}
    insts = {i["id"]: i for i in _jsonl(out / "instances.jsonl")}
    labels = _jsonl(out / "labels.jsonl")
    proofs = {"ballots", "dominant", "pairwise_bound", "score_bound",
              "coalition_enumeration", "greedy", "elimination_search"}
    for lab in labels:
        assert lab["checked"] is True and lab["certificate"]["type"] in proofs
        assert [e["engine"] for e in lab["engines"]] == ["oracle", "cpsat"]
        assert insts[lab["id"]]["design"]["others_of"] in insts
    prompts = _jsonl(out / "prompts.jsonl")
    for p in prompts:
        inst = insts[p["instance_id"]]
        # three other voters: n = 5 with a coalition of 2
        assert sum(b.get("count", 1) if isinstance(b, dict) else 1
                   for b in inst["ballots"]) == 3
        assert p["prompt"].startswith("You and 1 other voter form a coalition of 2 of the "
                                      "5 voters")
        assert p["answer"].count("Final ballot ") == 2
        assert p["cell"]["k"] == 2
        # the gold label of w*: exists, and none for everything ranked above it
        verdicts = [next(x for x in labels if x["label_id"] == g)["verdict"]
                    for g in p["gold_label_ids"]]
        assert verdicts == ["none"] * (len(verdicts) - 1) + ["exists"]
        if p["cell"]["stratum"] == "non_manipulable":
            assert p["task"]["expected"]["best_winner"] == \
                p["task"]["expected"]["sincere_winner"]
    recs = _gold_all_correct(out, tmp_path)
    assert {r["category"] for r in recs if r["stratum"] == "manipulable"} == {"optimal"}
    # acceptance of the rejection sampler per rule × m, as for the default design:
    # 2 manipulable + 2 non-manipulable accepted per rule
    acc = {a["tag"]["rule"]: a for a in m["acceptance"] if set(a["tag"]) == {"rule", "size"}}
    assert set(acc) == set(RULES)
    for a in acc.values():
        assert a["accepted"] == 4 and a["draws"] >= 4 and a["manipulable"] >= 2
        assert a["rate"] == round(4 / a["draws"], 6)
    cal = {r["rule"]: r for r in m["calibration"]}
    assert cal["all"]["draws"] == sum(a["draws"] for a in acc.values())
    assert cal["irv"]["random_MDR"] is None       # no exact baseline of joint reports


def _hand_bench(tmp_path: Path) -> Path:
    """One coalition prompt over a hand-made election (see the test's docstring), its
    companion labelled by ``prefcert label`` with the coalition oracle and CP-SAT."""
    b = tmp_path / "hand"
    b.mkdir()
    others = {"id": "hand-others", "domain": "election", "candidates": ["A", "B", "C"],
              "tie_break": ["A", "B", "C"], "rule": "plurality",
              "ballots": [{"ranking": ["B", "A", "C"], "count": 2}, ["A", "C", "B"]],
              "questions": [{"type": "coalitional_manipulation", "candidate": "C", "k": 2},
                            {"type": "coalitional_manipulation", "candidate": "A", "k": 2}]}
    prompt_inst = {k: v for k, v in others.items() if k != "questions"}
    prompt_inst.update(id="hand", manipulator={"ranking": ["C", "A", "B"]})
    (b / "others.jsonl").write_text(json.dumps(others) + "\n")
    (b / "instances.jsonl").write_text(json.dumps(prompt_inst) + "\n" + json.dumps(others)
                                       + "\n")
    _run("label", b / "others.jsonl", "-o", tmp_path / "raw.jsonl", "--engines", "oracle,cpsat",
         "-j", "1")
    labs = _jsonl(tmp_path / "raw.jsonl")
    assert [(lab["question"]["candidate"], lab["verdict"]) for lab in labs] == \
        [("C", "none"), ("A", "exists")]
    (b / "labels.jsonl").write_text("".join(
        json.dumps({"label_id": f"hand-others#{k}", **lab}) + "\n" for k, lab in enumerate(labs)))
    task = {"question": "coalitional_manipulation", "rule": "plurality", "m": 3, "n": 5,
            "k": 2, "stratum": "manipulable",
            "expected": {"sincere_winner": "B", "best_winner": "A"}}
    rec = {"id": "00001", "suite": "voting-manipulation", "instance_id": "hand",
           "instance_ids": ["hand", "hand-others"], "question": "coalitional_manipulation",
           "format": "strategic",
           "cell": {"rule": "plurality", "size": 3, "stratum": "manipulable", "k": 2,
                    "format": "strategic"},
           "prompt": "(a coalition prompt)", "answer_shape": "ballots",
           "gold_label_ids": ["hand-others#0", "hand-others#1"],
           "answer": "Final ballot 1: A > B > C\nFinal ballot 2: A > B > C", "task": task}
    (b / "prompts.jsonl").write_text(json.dumps(rec) + "\n")
    return b


def test_coalition_prompt_scored_on_hand_written_answers(tmp_path):
    """Plurality, τ = A ≻ B ≻ C; the other three voters: B > A > C (twice), A > C > B;
    the coalition of k = 2 ranks C > A > B. First places of the others: B 2, A 1.

    - sincere (C, C): B 2, C 2, A 1 — B and C tie, τ elects B: w₀ = B (rank 3);
    - C cannot win: at most 2 points against B's 2, and τ puts B first (label ``none``);
    - A can: (A, A) gives A 3 against B 2 (label ``exists``): w* = A (rank 2);
    - (A, C): A 2, B 2, C 1 — the tie goes to A by τ: optimal too;
    - (B, C): B 3: not profitable (Δ = 0); a missing voter 2, or voter 1 given twice
      with two ballots, is invalid; one unnumbered "Final ballot:" line is cast by both
      voters when read leniently (A, A: optimal), and is invalid when read strictly.
    """
    b = _hand_bench(tmp_path)
    answers = {
        "optimal_both": "Final ballot 1: A > C > B\nFinal ballot 2: A > B > C",
        "optimal_split": "We only need one vote.\nFinal ballot 1: A > C > B\n"
                         "Final ballot 2: C > A > B",
        "sincere": "Final ballot 1: C > A > B\nFinal ballot 2: C > A > B",
        "harmful": "Final ballot 1: B > A > C\nFinal ballot 2: C > A > B",
        "missing": "Final ballot 1: A > C > B",
        "twice": "Final ballot 1: A > C > B\nFinal ballot 1: C > A > B\n"
                 "Final ballot 2: A > B > C",
        "one_line": "Final ballot: A > B > C",
    }
    want = {  # verdict, S, O, outcome, delta, category
        "optimal_both": ("correct", 1, 1, "A", 1, "optimal"),
        "optimal_split": ("correct", 1, 1, "A", 1, "optimal"),
        "sincere": ("incorrect", 0, 0, "B", 0, "sincere"),
        "harmful": ("incorrect", 0, 0, "B", 0, None),
        "missing": ("invalid", 0, 0, None, None, "invalid"),
        "twice": ("invalid", 0, 0, None, None, "invalid"),
        "one_line": ("correct", 1, 1, "A", 1, "optimal"),
    }
    for parse, changed in (("lenient", {}),
                           ("strict", {"one_line": ("invalid", 0, 0, None, None, "invalid")})):
        for name, text in answers.items():
            f = tmp_path / f"{name}.{parse}.jsonl"
            f.write_text(json.dumps({"id": "00001", "answer": text}) + "\n")
            out = tmp_path / f"{name}.{parse}.scores.jsonl"
            _run("score", b / "prompts.jsonl", f, "-o", out, "--parse", parse, "--json")
            (r,) = _jsonl(out)
            v, S, O, outcome, delta, cat = changed.get(name, want[name])
            assert (r["verdict"], r["S"], r["O"], r["outcome"], r["delta"]) == \
                (v, S, O, outcome, delta), (name, parse, r)
            if cat is not None:
                assert r["category"] == cat, (name, r)
            assert r["k"] == 2 and r["oracle"] is None


@pytest.mark.parametrize("args,needle", [
    (("--param", "tau=sideways"), "tau is alphabetical or random"),
    (("--param", "n=1"), "parameter n: must be from 2 to 51"),
    (("--param", "n=52"), "parameter n: must be from 2 to 51"),
    (("--param", "n=five"), "parameter n: an integer"),
    (("--param", "k=5"), "k ≤ n − 1 = 4"),
    (("--param", "k=3", "--sizes", "5"), "joint reports"),
    (("--param", "k=2", "--sizes", "6"), "joint reports"),
    (("--sizes", "8"), "m (--sizes) must be from 3 to 7"),
    (("--sizes", "2"), "m (--sizes) must be from 3 to 7"),
    (("--param", "colour=red"), "has no parameter 'colour'"),
    (("--param", "n"), "--param takes NAME=VALUE"),
    (("--param", "max_draws=1", "--sizes", "3"), "cannot be balanced"),
])
def test_bad_parameters_exit_2_with_one_line(tmp_path, args, needle):
    out = tmp_path / "bad"
    r = _run("generate", "voting-manipulation", "-o", out, "--per-cell", "2", "--jobs", "1",
             *args, code=2)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert not out.exists() or not any(out.iterdir())


def test_parameters_of_a_suite_without_any_are_refused(tmp_path):
    r = _run("generate", "indeterminacy-preference", "-o", tmp_path / "x", "--param", "n=3",
             code=2)
    assert len(r.stderr.strip().splitlines()) == 1 and "has no parameter 'n'" in r.stderr


def test_prefcert_suites_lists_the_parameters_and_their_defaults():
    r = subprocess.run([PREFCERT, "suites"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = {ln.split("\t")[0]: ln.split("\t") for ln in r.stdout.splitlines()}
    assert rows["voting-manipulation"][3] == "params tau=alphabetical,n=5,k=1,max_draws=20000"
    assert rows["actionable-indeterminacy"][3] == "params -"
