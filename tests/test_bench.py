"""The benchmark builder: suites as data, generation, parsing, scoring, statistics."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from prefcert.bench import parse as P
from prefcert.bench import stats
from prefcert.bench.registry import SUITES, suite


def run(*args, env=None, check=True):
    e = dict(os.environ, PYTHONHASHSEED="0", **(env or {}))
    r = subprocess.run(["prefcert", *args], capture_output=True, text=True, env=e)
    if check:
        assert r.returncode == 0, r.stderr[-3000:]
    return r


def read_jsonl(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.fixture(scope="module")
def pref_bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pref") / "b"
    run("generate", "indeterminacy-preference", "-o", str(out), "--per-cell", "1")
    return out


# ------------------------------------------------------------------ design and generation

@pytest.mark.parametrize("name", [n for n in SUITES])
def test_full_design_has_the_published_total(name):
    s = suite(name)
    comp = s.composition()
    assert s.expected_total is not None and sum(comp.values()) == s.expected_total
    assert sum(s.composition(per_cell=1).values()) * s.per_cell == s.expected_total


def test_preference_design_totals_per_family():
    comp = suite("indeterminacy-preference").composition()
    fam: dict = {}
    for k, v in comp.items():
        c = json.loads(k)
        key = (c["family"], c["pref"])
        fam[key] = fam.get(key, 0) + v
    # the rows of the paper's Table 3
    assert fam == {("atomic", "SO"): 360, ("atomic", "SI"): 540, ("comparative", "SO"): 360,
                   ("comparative", "SI"): 720, ("bundle", "SO"): 300, ("bundle", "SI"): 60,
                   ("bundle", "TO"): 60, ("topk", "TO"): 120, ("aggregative", "SO"): 120,
                   ("aggregative", "SI"): 120, ("aggregative", "TO"): 60,
                   ("partial_order", "pairwise"): 420, ("partial_order", "choices"): 120}


def test_generate_writes_certified_reproducible_files(pref_bench, tmp_path):
    m = json.loads((pref_bench / "manifest.json").read_text())
    assert m["total"] == 112 == len(read_jsonl(pref_bench / "prompts.jsonl"))
    assert m["labels"] == m["labels_checked"] == len(read_jsonl(pref_bench / "labels.jsonl"))
    assert sum(c["prompts"] for c in m["composition"]) == m["total"]
    assert all(lab["checked"] is True for lab in read_jsonl(pref_bench / "labels.jsonl"))
    r = run("check", str(pref_bench / "labels.jsonl"))
    assert "every certificate verified" in r.stdout
    again = tmp_path / "again"
    run("generate", "indeterminacy-preference", "-o", str(again), "--per-cell", "1")
    for f in ("instances.jsonl", "labels.jsonl", "prompts.jsonl", "manifest.json"):
        assert (again / f).read_bytes() == (pref_bench / f).read_bytes(), f
    other = tmp_path / "seed1"
    run("generate", "indeterminacy-preference", "-o", str(other), "--per-cell", "1",
        "--seed", "1", "--sizes", "50")
    assert (other / "instances.jsonl").read_bytes() != (pref_bench / "instances.jsonl").read_bytes()
    m1 = json.loads((other / "manifest.json").read_text())
    assert m1["seed"] == 1 and m1["sizes"] == [50]
    assert all(c["cell"].get("size", 50) == 50 for c in m1["composition"])


def test_prompt_records_have_the_promised_fields(pref_bench):
    prompts = read_jsonl(pref_bench / "prompts.jsonl")
    labels = {lab["label_id"] for lab in read_jsonl(pref_bench / "labels.jsonl")}
    for p in prompts:
        for key in ("id", "instance_id", "question", "format", "prompt", "answer_shape",
                    "gold_label_ids", "answer", "cell"):
            assert key in p, key
        assert set(p["gold_label_ids"]) <= labels
        assert "<preferences>" in p["prompt"]
    mcq = [p for p in prompts if p["format"] == "mcq"]
    assert mcq and all(p["options"][p["abstain_option"]].startswith("There is not enough")
                       for p in mcq)


def test_bad_generate_input_is_one_line_exit_2(tmp_path):
    r = run("generate", "no-such-suite", "-o", str(tmp_path / "x"), check=False)
    assert r.returncode == 2 and r.stderr.startswith("prefcert: error:") and "no-such-suite" in r.stderr
    r = run("generate", "indeterminacy-preference", "-o", str(tmp_path / "y"), "--sizes", "7",
            check=False)
    assert r.returncode == 2 and "7" in r.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


# ------------------------------------------------------------------ scoring the preference suite

def _score(bench: Path, answers: dict, tmp_path: Path) -> dict:
    a = tmp_path / "answers.jsonl"
    a.write_text("".join(json.dumps({"id": k, "answer": v}) + "\n" for k, v in answers.items()))
    out = tmp_path / "scores.jsonl"
    run("score", str(bench / "prompts.jsonl"), str(a), "-o", str(out))
    return {s["id"]: s for s in read_jsonl(out)}


def _find(prompts, **cell):
    return next(p for p in prompts if all(p["cell"].get(k) == v for k, v in cell.items()))


def test_gold_answers_score_correct(pref_bench, tmp_path):
    prompts = read_jsonl(pref_bench / "prompts.jsonl")
    scores = _score(pref_bench, {p["id"]: f"Reasoning… <answer>{p['answer']}</answer>"
                                 for p in prompts}, tmp_path)
    assert {s["verdict"] for s in scores.values()} == {"correct"}


def test_hand_made_preference_answers(pref_bench, tmp_path):
    prompts = read_jsonl(pref_bench / "prompts.jsonl")
    inst = {i["id"]: i for i in read_jsonl(pref_bench / "instances.jsonl")}
    und = _find(prompts, family="atomic", pref="SI", question="position", format="ffk")
    und_mcq = _find(prompts, family="atomic", pref="SI", question="position", format="mcq")
    det = _find(prompts, family="atomic", pref="SO", question="kth", format="ff")
    rank = _find(prompts, family="comparative", pref="SI", question="rank_set",
                 case="undetermined", format="ff")
    count = _find(prompts, family="aggregative", pref="SO", format="ff", size=50)
    lex = _find(prompts, family="bundle", pref="SO", case="one_vs_many")
    lex2 = _find(prompts, family="bundle", pref="SI", case="rs_incomparable")
    po = _find(prompts, family="partial_order", case="comparable", chain=3)
    # a committed answer to an undetermined query is wrong, abstaining is right
    agent_list = inst[und["instance_id"]]["profile"][und["question"]["agent"]]
    n_listed = sum(len(t) if isinstance(t, list) else 1 for t in agent_list)
    wrong_count = int(count["answer"]) + 3
    other_item = next(x for x in inst[det["instance_id"]]["items"] if x != det["answer"])
    full = " > ".join(rank["question"]["items"])
    big = "{" + ", ".join(sorted(lex["question"]["bundles"], key=len)[0]) + "}"
    small = "{" + ", ".join(lex2["task"]["lexicographic"]) + "}"
    upstream = po["answer"]
    downstream = next(x for x in po["question"]["items"] if x != upstream)
    answers = {
        und["id"]: f"<answer>{n_listed + 1}</answer>",
        und_mcq["id"]: f"<answer>{und_mcq['abstain_option']}</answer>",
        det["id"]: f"<answer>{other_item}</answer> on reflection <answer>{det['answer']}</answer>",
        rank["id"]: f"<answer>{full}</answer>",
        count["id"]: f"<answer>{wrong_count}</answer>",
        lex["id"]: f"<answer>{big}</answer>",
        lex2["id"]: f"Assuming a lexicographic comparison, <answer>{small}</answer>",
        po["id"]: f"```\n{downstream}\n```",
    }
    s = _score(pref_bench, answers, tmp_path)
    assert s[und["id"]]["verdict"] == "incorrect" and s[und["id"]]["committed"] is True
    assert s[und["id"]]["reason"]["certificate"] == "completions"
    assert s[und_mcq["id"]]["verdict"] == "correct"
    assert s[det["id"]]["verdict"] == "correct"                      # the last block wins
    assert s[rank["id"]]["verdict"] == "incorrect"                   # unlisted items ranked
    assert s[count["id"]]["verdict"] == "incorrect" and s[count["id"]]["abs_error"] == 3
    assert s[lex["id"]]["verdict"] == "incorrect"
    assert s[lex["id"]]["category"] == "silent_lexicographic"
    assert s[lex2["id"]]["category"] == "flagged_lexicographic"
    assert s[lex2["id"]]["lenient_correct"] is True
    assert s[po["id"]]["verdict"] == "incorrect"                     # code fence read
    assert s[po["id"]]["reason"]["certificate"] == "chain"


def test_timeouts_and_garbage(pref_bench, tmp_path):
    prompts = read_jsonl(pref_bench / "prompts.jsonl")
    a = tmp_path / "a.jsonl"
    a.write_text(json.dumps({"id": prompts[0]["id"], "answer": None}) + "\n"
                 + json.dumps({"id": prompts[1]["id"], "answer": "<answer>🙂 ??</answer>"}) + "\n"
                 + json.dumps({"id": prompts[2]["id"], "timeout": True}) + "\n")
    out = tmp_path / "s.jsonl"
    r = run("score", str(pref_bench / "prompts.jsonl"), str(a), "-o", str(out), "--json")
    v = [s["verdict"] for s in read_jsonl(out)]
    assert v == ["timeout", "invalid", "timeout"]
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    share = {x["metric"]: x for x in rows if x.get("metric", "").startswith("share_")}
    assert share["share_timeout"]["k"] == 2 and share["share_timeout"]["n"] == 3
    assert share["share_timeout"]["low"] < 2 / 3 < share["share_timeout"]["high"]


def test_score_rejects_unknown_prompt_ids(pref_bench, tmp_path):
    a = tmp_path / "a.jsonl"
    a.write_text(json.dumps({"id": "nope", "answer": "x"}) + "\n")
    r = run("score", str(pref_bench / "prompts.jsonl"), str(a), check=False)
    assert r.returncode == 2 and "nope" in r.stderr


# ------------------------------------------------------------------ parsers

@pytest.mark.parametrize("shape,text,kind,value", [
    ("item", "<answer>C9</answer>", "value", "C9"),
    ("item", "<answer>c3</answer> no wait <answer>C9</answer>", "value", "C9"),
    ("item", "<answer>Unknown</answer>", "abstain", None),
    ("item", "<answer>C99</answer>", "invalid", None),
    ("bundle", "<answer>Can’t decide</answer>", "abstain", None),
    ("bundle", "<answer>{C3, C1}</answer>", "value", ["C1", "C3"]),
    ("yesno", "<answer>uncertain</answer>", "abstain", None),
    ("yesno", "<answer>Yes.</answer>", "value", "yes"),
    ("mcq", "<answer>(b)</answer>", "value", "B"),
    ("mcq", "<answer>E</answer>", "invalid", None),
    ("mcq", "I pick <answer>C: There is not enough information</answer>", "value", "C"),
    ("ranking", "<answer>C2 > C1 > C3</answer>", "value", ["C2", "C1", "C3"]),
    ("ranking", "<answer>C2 > C2</answer>", "invalid", None),
    ("int", "<answer>12 agents</answer>", "value", 12),
    ("int", "<answer>12 or 13</answer>", "invalid", None),
    ("int", "<answer>insufficient information</answer>", "abstain", None),
    ("items", "<answer>C1, C2</answer>", "value", ["C1", "C2"]),
    ("outcome", "<answer>{}</answer>", "none", None),
    ("outcome", '```json\n{"A1": "O2"}\n```', "value", {"A1": "O2"}),
    ("outcome", "<answer>{A1: O2}</answer>", "invalid", None),
    ("outcome", "\\boxed{{}}", "none", None),
])
def test_parsers(shape, text, kind, value):
    p = P.parse(shape, text, vocab=["C1", "C2", "C3", "C9"], letters="ABCD")
    assert p.kind == kind
    if kind == "value":
        assert p.value == value


@given(st.text(max_size=200), st.sampled_from(sorted(P.PARSERS)))
def test_parsers_never_raise(text, shape):
    assert P.parse(shape, text, vocab=["C1", "C2"]).kind in ("value", "abstain", "none", "invalid")


# ------------------------------------------------------------------ statistics

def test_wilson_matches_the_closed_form():
    # Wilson (1927): k = 0, n = 30 gives [0, z²/(n + z²)] with z = 1.959964
    low, high = stats.wilson(0, 30)
    z2 = 1.959964 ** 2
    assert low == pytest.approx(0.0, abs=1e-12) and high == pytest.approx(z2 / (30 + z2), rel=1e-5)
    low, high = stats.wilson(15, 30)
    assert low == pytest.approx(1 - high) and low == pytest.approx(0.3315, abs=1e-4)
    assert stats.wilson(0, 0) is None


def test_mcnemar_exact_and_fisher():
    # six discordant pairs, all one way: two-sided binomial p = 2 / 2**6
    r = stats.mcnemar_exact([True] * 6 + [False] * 4, [False] * 6 + [False] * 4)
    assert (r["only_first"], r["only_second"]) == (6, 0) and r["pvalue"] == pytest.approx(1 / 32)
    assert stats.mcnemar_exact([True, False], [True, False])["pvalue"] == 1.0
    # Fisher's tea-tasting table [[3, 1], [1, 3]]: two-sided p = 34/70 (Fisher 1935)
    assert stats.fisher_exact(3, 4, 1, 4)["pvalue"] == pytest.approx(34 / 70)
