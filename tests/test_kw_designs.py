"""Khanna & Wang designs through the console script: open sizes for both suites (within
their documented limits), the draw budget, the code-assisted design of Table 29
(``--param tools=code``), the default bytes, the refusals.

Expected counts are the design's arithmetic, written by hand:

- ``indeterminacy-algorithmic``, one size, one instance per cell: standard settings give
  (notions + unspecified + selection) prompts: HA-SO 5 + 2 = 7, HA-SI 3 + 2 = 5,
  HA-TO 7, OA-SO 4 + 2 = 6, SM-SO 6, SM-TO 6, i.e. 37; hard notions 3 × 2 (feasible,
  infeasible) × 4 (generation ± hatch, selection ± NOTA) = 24; in all 61 per size.
- code-assisted: 2 notions (strict core, super stability) × 2 (F, I) × 3 sizes (10, 30,
  50) × 10 instances = 120 prompts (Table 29: 10 instances per cell), one generation
  prompt with the hatch each.
- ``indeterminacy-preference`` at a size outside 50, 100, 200: the atomic and comparative
  rows of one size: atomic SO kth, position (ff, mcq: 2 × 2 = 4), atomic SI kth, position
  (ff, ffk, mcq: 6), comparative SO (4), comparative SI undetermined (6), comparative SI
  determined (ff: 2), i.e. 22 per instance; plus the size-free partial orders: format 1
  comparable 5 × ff + (ff, mcq) = 7, incomparable (ff, mcq) × 2 + (ff, ffk, mcq) = 7,
  format 2 (ff, mcq) × 2 = 4, i.e. 18. In all 40 at one instance per cell.
"""
from __future__ import annotations

import hashlib
import io
import json
from collections import Counter
from functools import partial
from pathlib import Path

import pytest
from conftest import HASHSEED_0, cli


_run = partial(cli, env=HASHSEED_0)


def _jsonl(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text().splitlines() if x.strip()]


def _gen(suite: str, out: Path, *args) -> dict:
    _run("generate", suite, "-o", out, "--jobs", "1", *args)
    return json.loads((out / "manifest.json").read_text())


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _manifest_sha(out: Path) -> str:
    m = json.loads((out / "manifest.json").read_text())
    m.pop("prefcert")
    return hashlib.sha256(json.dumps(m, sort_keys=True).encode()).hexdigest()


def _score(out: Path, tmp: Path, answers: dict[str, str], name: str) -> dict[str, dict]:
    ans = tmp / f"{name}.answers.jsonl"
    ans.write_text("".join(json.dumps({"id": i, "answer": a}) + "\n"
                           for i, a in answers.items()))
    scored = tmp / f"{name}.scores.jsonl"
    _run("score", out / "prompts.jsonl", ans, "-o", scored, "--json")
    return {r["id"]: r for r in _jsonl(scored)}


def _gold_all_correct(out: Path, tmp: Path) -> None:
    """Every gold answer scores correct and every certificate replays."""
    prompts = _jsonl(out / "prompts.jsonl")
    recs = _score(out, tmp, {p["id"]: p["answer"] for p in prompts}, out.name)
    assert len(recs) == len(prompts)
    assert all(r["verdict"] == "correct" for r in recs.values())
    m = json.loads((out / "manifest.json").read_text())
    assert m["labels_checked"] == m["labels"]
    assert "every certificate verified" in _run("check", out / "labels.jsonl").stdout


# Recorded by running main (cfc3e46) before this change:
#   prefcert generate indeterminacy-algorithmic -o A --per-cell 1
#   prefcert generate indeterminacy-preference -o P --per-cell 1
# (the manifest hashed as sorted-key JSON without its "prefcert" version field).
MAIN_SHA = {
    "indeterminacy-algorithmic": {
        "instances.jsonl": "121798aa631c0d65f449d386a0625ce09258b1e8f26ba99f7e88fa52d646c50d",
        "labels.jsonl": "eb9e25574ce252a7c7e09c76ae7c3d8d228ae6578eee8b1eb22e6e0316245b6b",
        "prompts.jsonl": "876b83a5b6bd7425263be51b3adc14dabdd562854960ca83468be0579ccb0b55",
        "manifest": "2793840e43633a91ae342c4909ffdb1bd7c452de58d9971f2857edba2d8d7100"},
    "indeterminacy-preference": {
        "instances.jsonl": "83fa27d8a5da955a5fc46afa120f4e5cf0df4c84b5330ec1a57e67582361c885",
        "labels.jsonl": "b0e4cc31dfa7dfe5fc4f84b13ac8244cab05d1e1e90e02df51fe073919b5c203",
        "prompts.jsonl": "0d548284fb1c440cc0bdb731c2674702ae9c0f80132d4ff1eb90eb45e68e6367",
        "manifest": "6e1bbd0e88f34fe797947b6a4198bf162fe524537ec96c51611e4b4a9b86b706"},
}


@pytest.mark.parametrize("suite", sorted(MAIN_SHA))
def test_default_bytes_unchanged(tmp_path, suite):
    out = tmp_path / "d"
    m = _gen(suite, out, "--per-cell", "1")
    assert "parameters" not in m
    for f in ("instances.jsonl", "labels.jsonl", "prompts.jsonl"):
        assert _sha(out / f) == MAIN_SHA[suite][f], f
    assert _manifest_sha(out) == MAIN_SHA[suite]["manifest"]


def test_algorithmic_n50(tmp_path):
    """--sizes 50 (refused before): 61 prompts at one instance per cell, all at n = 50."""
    out = tmp_path / "a50"
    m = _gen("indeterminacy-algorithmic", out, "--sizes", "50", "--per-cell", "1")
    prompts = _jsonl(out / "prompts.jsonl")
    assert len(prompts) == 61 == m["total"]
    assert {p["cell"]["size"] for p in prompts} == {50}
    by = Counter(p["cell"].get("setting") or p["cell"]["notion"] for p in prompts)
    assert by == {"HA-SO": 7, "HA-SI": 5, "HA-TO": 7, "OA-SO": 6, "SM-SO": 6, "SM-TO": 6,
                  "strict_core": 8, "strongly_stable": 8, "super_stable": 8}
    assert m["sizes"] == [50]
    # the acceptance of the rejection samplers is reported for the new size
    tags = {json.dumps(a["tag"], sort_keys=True) for a in m["acceptance"]}
    assert json.dumps({"notion": "strict_core", "size": 50}, sort_keys=True) in tags
    _gold_all_correct(out, tmp_path)


def test_preference_n30(tmp_path):
    out = tmp_path / "p30"
    m = _gen("indeterminacy-preference", out, "--sizes", "30", "--per-cell", "1")
    prompts = _jsonl(out / "prompts.jsonl")
    assert len(prompts) == 40 == m["total"]
    fam = Counter(p["cell"]["family"] for p in prompts)
    assert fam == {"atomic": 10, "comparative": 12, "partial_order": 18}
    assert {p["cell"]["size"] for p in prompts if "size" in p["cell"]} == {30}
    _gold_all_correct(out, tmp_path)


@pytest.mark.parametrize("suite,args,needle", [
    ("indeterminacy-algorithmic", ("--sizes", "7"), "from 8 to 60"),
    ("indeterminacy-algorithmic", ("--sizes", "10,61"), "from 8 to 60"),
    ("indeterminacy-preference", ("--sizes", "9"), "from 10 to 300"),
    ("indeterminacy-preference", ("--sizes", "301"), "from 10 to 300"),
    ("indeterminacy-algorithmic", ("--sizes", "ten"), "integers"),
    ("indeterminacy-algorithmic", ("--param", "tools=shell"), "tools"),
    ("indeterminacy-algorithmic", ("--param", "time_budget=0"), "time_budget"),
    ("indeterminacy-preference", ("--param", "max_draws=-1"), "max_draws"),
    ("indeterminacy-preference", ("--param", "tools=code"), "no parameter"),
    # a regression: a repeated size doubled (voting) or was recorded twice (the others)
    ("indeterminacy-algorithmic", ("--sizes", "10,10"), "a size is given twice: 10"),
    ("voting-manipulation", ("--sizes", "3,4,3"), "a size is given twice: 3"),
    # a regression: the last of a repeated --param won silently
    ("voting-manipulation", ("--param", "n=5", "--param", "n=7"), "--param n is given twice"),
])
def test_refusals_one_line_exit_2(tmp_path, suite, args, needle):
    out = tmp_path / "bad"
    r = _run("generate", suite, "-o", out, "--per-cell", "1", *args, code=2)
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert not out.exists() or not any(out.iterdir())


def test_draw_budget_refused_one_line(tmp_path):
    """max_draws = 1 at n = 50: some cell's first draw is rejected (the strict core is
    feasible in ≈ 1 % of draws at n = 50): refused, naming a cell, nothing written."""
    out = tmp_path / "b"
    r = _run("generate", "indeterminacy-algorithmic", "-o", out, "--sizes", "50",
             "--per-cell", "1", "--param", "max_draws=1", code=2)
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "no acceptable instance in 1 draws" in lines[0], r.stderr
    assert not out.exists() or not any(out.iterdir())


def test_progress_lines():
    from prefcert.bench.indeterminacy.params import PROGRESS_EVERY, Budget
    from prefcert.formal.errors import InstanceError
    s = io.StringIO()
    b = Budget("suite", "cell X", 2 * PROGRESS_EVERY, stream=s)
    for _ in range(2 * PROGRESS_EVERY):
        b.tick()
    assert s.getvalue().count("cell X") == 2
    assert f"{PROGRESS_EVERY} draws so far" in s.getvalue()
    with pytest.raises(InstanceError):
        b.tick()


def test_code_assisted_composition():
    """120 prompts at the default 10 instances per cell (counted from the design table)."""
    from prefcert.bench.suites import suite
    s = suite("indeterminacy-algorithmic").configured({"tools": "code"})
    assert s.sizes == (10, 30, 50) and s.per_cell == 10
    comp = s.composition()
    assert sum(comp.values()) == 120 and len(comp) == 12


def test_code_assisted_generated_and_scored(tmp_path):
    """The code-assisted design at one instance per cell: 12 prompts, each the hatch
    generation prompt plus the tool paragraph; the golds all correct; hand-made answers:

    - feasible strict core, the gold witness: correct (same task, same scoring);
    - feasible strict core, ``{}``: incorrect (the hatch on a feasible instance; the empty
      allocation is not an allocation of a housing market, so it cannot be ambiguous);
    - infeasible strict core, ``{}``: correct (Table 20, with the hatch);
    - infeasible strict core, the endowment itself (A_i keeps O_i, a valid allocation):
      incorrect (no allocation is in an empty strict core);
    - infeasible super stability, ``{}`` in answer tags: correct;
    - feasible super stability, prose without an outcome: invalid (no outcome to check;
      the hatch was offered, so it cannot count as "none exists").
    """
    out = tmp_path / "code"
    m = _gen("indeterminacy-algorithmic", out, "--param", "tools=code", "--per-cell", "1",
             "--param", "time_budget=5")
    prompts = _jsonl(out / "prompts.jsonl")
    assert len(prompts) == 12 == m["total"]
    assert m["parameters"]["tools"] == "code" and m["parameters"]["time_budget"] == 5
    cells = Counter((p["cell"]["notion"], p["cell"]["feasible"], p["cell"]["size"])
                    for p in prompts)
    assert cells == {(x, f, n): 1 for x in ("strict_core", "super_stable")
                     for f in (True, False) for n in (10, 30, 50)}
    for p in prompts:
        assert p["cell"]["task"] == "generation" and p["cell"]["escape"] is True
        assert p["tools"] == ["python"] and p["time_limit"] == 300
        assert "5 minutes" in p["prompt"] and "code-execution tool" in p["prompt"]
        assert "<answer>{}</answer>" in p["prompt"]          # the hatch is kept
    _gold_all_correct(out, tmp_path)
    pick = {(p["cell"]["notion"], p["cell"]["feasible"], p["cell"]["size"]): p
            for p in prompts}
    sc_f, sc_i = pick[("strict_core", True, 10)], pick[("strict_core", False, 10)]
    ss_f, ss_i = pick[("super_stable", True, 10)], pick[("super_stable", False, 10)]
    endowment = json.dumps({f"A{i}": f"O{i}" for i in range(1, 11)})
    answers = {sc_f["id"]: sc_f["answer"], sc_i["id"]: f"<answer>{endowment}</answer>"}
    got = _score(out, tmp_path, answers, "hand1")
    assert got[sc_f["id"]]["verdict"] == "correct"
    assert got[sc_i["id"]]["verdict"] == "incorrect"
    answers = {sc_f["id"]: "<answer>{}</answer>", sc_i["id"]: "<answer>{}</answer>",
               ss_i["id"]: "<answer>{}</answer>",
               ss_f["id"]: "I would need to run more code to be sure."}
    got = _score(out, tmp_path, answers, "hand2")
    assert got[sc_f["id"]]["verdict"] == "incorrect"
    assert got[sc_i["id"]]["verdict"] == "correct"
    assert got[ss_i["id"]]["verdict"] == "correct"
    assert got[ss_f["id"]]["verdict"] == "invalid"


def test_mitigation_design(tmp_path):
    """App. M (Tables 27-28), one instance per cell: RS-comparable and RS-incomparable
    bundles × 5 levels (bare, MCQ, general caution, specific caution, few-shot) = 10, the
    unranked-item query × 3 (bare, in-domain demo, cross-source demo) = 3; 13 prompts,
    390 at the default 30. Hand-made answers (verdicts derived by hand):

    - RS-incomparable, general caution, "cannot be determined": correct (undetermined);
    - RS-incomparable, bare, one of the two bundles: incorrect (neither is entailed);
    - RS-comparable, few-shot, "cannot be determined": incorrect (one bundle dominates:
      the over-abstention the paper reports);
    - RS-comparable, specific caution, the gold bundle: correct;
    - unranked item, cross-source demo, "cannot be determined": correct; "3": incorrect.
    """
    from prefcert.bench.suites import suite
    s = suite("indeterminacy-preference").configured({"design": "mitigation"})
    assert sum(s.composition().values()) == 390
    out = tmp_path / "mit"
    m = _gen("indeterminacy-preference", out, "--param", "design=mitigation",
             "--per-cell", "1")
    prompts = _jsonl(out / "prompts.jsonl")
    assert len(prompts) == 13 == m["total"]
    cells = Counter((p["cell"]["case"], p["cell"]["mitigation"]) for p in prompts)
    assert cells == {**{(c, lv): 1 for c in ("rs_comparable", "rs_incomparable")
                        for lv in ("L1_bare", "L2_mcq", "L3_general", "L3_specific",
                                   "L4_few_shot")},
                     **{("undetermined", lv): 1 for lv in ("L1_bare", "L4_in_domain",
                                                          "L4_cross_source")}}
    _gold_all_correct(out, tmp_path)
    pick = {(p["cell"]["case"], p["cell"]["mitigation"]): p for p in prompts}
    assert "Caution" in pick[("rs_incomparable", "L3_general")]["prompt"]
    assert pick[("rs_comparable", "L4_few_shot")]["prompt"].startswith("Example.")
    assert "[\"p\", \"q\", \"r\"]" in pick[("undetermined", "L4_in_domain")]["prompt"]
    assert "{p, s}" in pick[("undetermined", "L4_cross_source")]["prompt"]
    inc_bare = pick[("rs_incomparable", "L1_bare")]
    bundle = inc_bare["task"]["question"]["bundles"][0]
    cd = "<answer>cannot be determined</answer>"
    answers = {pick[("rs_incomparable", "L3_general")]["id"]: cd,
               inc_bare["id"]: "<answer>{" + ", ".join(bundle) + "}</answer>",
               pick[("rs_comparable", "L4_few_shot")]["id"]: cd,
               pick[("rs_comparable", "L3_specific")]["id"]:
                   f"<answer>{pick[('rs_comparable', 'L3_specific')]['answer']}</answer>",
               pick[("undetermined", "L4_cross_source")]["id"]: cd,
               pick[("undetermined", "L1_bare")]["id"]: "<answer>3</answer>"}
    got = _score(out, tmp_path, answers, "mit")
    want = {pick[("rs_incomparable", "L3_general")]["id"]: "correct",
            inc_bare["id"]: "incorrect",
            pick[("rs_comparable", "L4_few_shot")]["id"]: "incorrect",
            pick[("rs_comparable", "L3_specific")]["id"]: "correct",
            pick[("undetermined", "L4_cross_source")]["id"]: "correct",
            pick[("undetermined", "L1_bare")]["id"]: "incorrect"}
    assert {i: got[i]["verdict"] for i in want} == want


def test_mitigation_refuses_other_sizes(tmp_path):
    r = _run("generate", "indeterminacy-preference", "-o", tmp_path / "x", "--sizes", "100",
             "--param", "design=mitigation", code=2)
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "n = 50 only" in lines[0]


def test_h5_rendering_design(tmp_path):
    """App. H.5 (Table 19), one instance per cell: RS-incomparable bundles, their
    determined controls and the unranked-item query, each at levels 1 (JSON), 2
    (sentences), 3 (real dishes), the queried agent's list alone: 9 prompts, 540 at the
    default 60. Hand-made answers (verdicts derived by hand):

    - level 3 control, the gold bundle in dish names, items in the other order: correct;
    - level 3 control, the other bundle: incorrect;
    - level 3 incomparable, "Can't decide": correct;
    - level 2 incomparable, one of the bundles: incorrect;
    - level 3 unranked item, "cannot be determined": correct.
    """
    from prefcert.bench.indeterminacy.preference import DISHES
    from prefcert.bench.suites import suite
    s = suite("indeterminacy-preference").configured({"design": "h5"})
    assert sum(s.composition().values()) == 540
    out = tmp_path / "h5"
    m = _gen("indeterminacy-preference", out, "--param", "design=h5", "--per-cell", "1")
    prompts = _jsonl(out / "prompts.jsonl")
    assert len(prompts) == 9 == m["total"]
    pick = {(p["cell"]["case"], p["cell"]["level"]): p for p in prompts}
    assert set(pick) == {(c, k) for c in ("rs_incomparable", "rs_comparable", "undetermined")
                         for k in (1, 2, 3)}
    _gold_all_correct(out, tmp_path)
    l1 = pick[("rs_comparable", 1)]["prompt"]
    assert l1.count('": [') == 1                       # one agent's list, as JSON
    l3 = pick[("rs_comparable", 3)]
    assert "pizza" in l3["prompt"] or "sushi" in l3["prompt"]
    assert "C1" not in l3["prompt"].split("<preferences>")[1]
    inv = l3["vocabulary"]                           # shown name -> item
    assert set(inv) <= set(DISHES)
    gold = [x.strip() for x in l3["answer"].strip("{}").split(",")]
    bundles = l3["task"]["question"]["bundles"]
    other = next(b for b in bundles if sorted(inv[x] for x in gold) != sorted(b))
    other_names = [k for k, v in inv.items() if v in other]
    answers = {l3["id"]: "<answer>{" + ", ".join(reversed(gold)) + "}</answer>",
               pick[("rs_incomparable", 3)]["id"]: "<answer>Can't decide</answer>",
               pick[("undetermined", 3)]["id"]: "<answer>cannot be determined</answer>"}
    inc2 = pick[("rs_incomparable", 2)]
    answers[inc2["id"]] = "<answer>{" + ", ".join(inc2["task"]["question"]["bundles"][0]) \
        + "}</answer>"
    got = _score(out, tmp_path, answers, "h5a")
    assert {i: got[i]["verdict"] for i in answers} == {
        l3["id"]: "correct", pick[("rs_incomparable", 3)]["id"]: "correct",
        pick[("undetermined", 3)]["id"]: "correct", inc2["id"]: "incorrect"}
    got = _score(out, tmp_path, {l3["id"]: "<answer>{" + ", ".join(other_names) + "}</answer>"},
                 "h5b")
    assert got[l3["id"]]["verdict"] == "incorrect"


@pytest.mark.parametrize("design,cells,per_cell", [
    # App. H.5, Table 19: 3 query kinds × 3 rendering levels, 60 instances each
    ("h5", 3 * 3, 60),
    # App. M, Tables 27-28: 2 bundle cases × 5 levels + the unranked-item query × 3 levels
    ("mitigation", 2 * 5 + 3, 30),
])
def test_variant_design_counts_from_the_generated_files(tmp_path, design, cells, per_cell):
    """The whole variant design generated: every cell holds the paper's instance count and
    every gold is checked."""
    out = tmp_path / design
    m = _gen("indeterminacy-preference", out, "--param", f"design={design}")
    prompts = _jsonl(out / "prompts.jsonl")
    counts: dict[str, int] = {}
    for p in prompts:
        key = json.dumps(p["cell"], sort_keys=True)
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == cells and set(counts.values()) == {per_cell}
    assert m["total"] == len(prompts) == cells * per_cell
    labels = _jsonl(out / "labels.jsonl")
    assert labels and all(lab["checked"] is True for lab in labels)


@pytest.mark.heavy
def test_code_assisted_counts_from_the_generated_files(tmp_path):
    """Table 29's design generated: 10 instances in every market × size × F / I cell, every
    gold checked (under CI n = 10 and 30 only: the n = 50 strict-core draws take a minute)."""
    from conftest import heavy_examples
    sizes = heavy_examples(3, 2)
    out = tmp_path / "code"
    m = _gen("indeterminacy-algorithmic", out, "--param", "tools=code",
             "--sizes", ",".join(str(n) for n in (10, 30, 50)[:sizes]))
    prompts = _jsonl(out / "prompts.jsonl")
    cells: dict[tuple, int] = {}
    for p in prompts:
        key = (p["cell"]["notion"], p["cell"]["feasible"], p["cell"]["size"])
        cells[key] = cells.get(key, 0) + 1
    want = {(x, f, n): 10 for x in ("strict_core", "super_stable") for f in (True, False)
            for n in (10, 30, 50)[:sizes]}
    assert cells == want and m["total"] == len(prompts) == 40 * sizes
    labels = _jsonl(out / "labels.jsonl")
    assert labels and all(lab["checked"] is True for lab in labels)
