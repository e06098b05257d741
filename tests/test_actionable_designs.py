"""The further designs of Li et al. (2026): H2 response requirements with the evidence
condition, the K.2 wording contrast (and, below, K.1 selection and the I.2 global-
intersection test): composition against the paper's counts, generation with every gold
certified, and ``prefcert score`` on hand-made answers whose scores are derived by hand."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import PREFCERT

from prefcert.bench.actionable.evidence import judge_evidence
from prefcert.bench.suites import suite
from prefcert.formal.decision import parse_decision

H2 = "actionable-indeterminacy-h2"
WORDING = "actionable-indeterminacy-wording"


def _by(comp: dict, key: str) -> dict:
    out: dict = {}
    for k, v in comp.items():
        out[json.loads(k)[key]] = out.get(json.loads(k)[key], 0) + v
    return out


def test_h2_and_wording_compositions_match_the_paper():
    # §5 / Table 1: 10 groups per cell × 36 cells × 6 tasks = 2,160 tasks, × 3 = 6,480
    comp = suite(H2).composition()
    assert sum(comp.values()) == suite(H2).expected_total == 6480
    assert _by(comp, "format") == {"original": 2160, "explicit_json": 2160,
                                   "explicit_json_evidence": 2160}
    assert _by(comp, "role") == {"act": 3240, "intervention": 3240}
    # App. K.2 / §M: 5 H2 groups per cell = 180 groups = 1,080 tasks per condition
    comp = suite(WORDING).composition()
    assert sum(comp.values()) == 2160
    assert _by(comp, "format") == {"neutral": 1080, "reminder": 1080}


def test_prefcert_suites_lists_each_design_with_its_prompt_count():
    r = subprocess.run([PREFCERT, "suites"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = {ln.split("\t")[0]: ln.split("\t")[2] for ln in r.stdout.splitlines()}
    assert lines[H2] == "6480 prompts"
    assert lines[WORDING] == "2160 prompts"


# --------------------------------------------------------------------------- evidence

_APT = {"domain": "decision", "structure": "apartment", "agents": ["R1", "R2"],
        "items": ["A1", "A2", "A3"],
        "attributes": {"A1": {"rent": 1000, "commute": 50}, "A2": {"rent": 2000, "commute": 10},
                       "A3": {"rent": 3000, "commute": 30}}}


def _task(**kw):
    return parse_decision({**_APT, "id": "t", "questions": ["decision"], **kw})


def test_evidence_objective_conflicts_derived_by_hand():
    # R1: A1 > A2 > A3, R2: A3 > A2 > A1. Utilitarian (rank sums 4, 4, 4): all three;
    # egalitarian (worst ranks 3, 2, 3): {A2}; rank-maximal (first choices 1, 0, 1, then
    # seconds 0, -, 0): {A1, A3}. Egalitarian and rank-maximal share nothing; utilitarian
    # and egalitarian share A2.
    t = _task(preferences={"R1": ["A1", "A2", "A3"], "R2": ["A3", "A2", "A1"]},
              source="objective", objectives=["utilitarian", "egalitarian", "rank_maximal"])
    lab = {"verdict": "ask_objective"}
    ev = lambda objs: {"conflicting_objectives": objs}
    assert judge_evidence(t, lab, ev(["egalitarian", "rank_maximal"]))[0]
    assert judge_evidence(t, lab, ev(["utilitarian", "egalitarian", "rank_maximal"]))[0]
    assert not judge_evidence(t, lab, ev(["utilitarian", "egalitarian"]))[0]
    assert not judge_evidence(t, lab, ev(["egalitarian"]))[0]
    assert not judge_evidence(t, lab, ev(["leximin", "egalitarian"]))[0]
    assert not judge_evidence(t, lab, {"conflicting_objectives": None})[0]   # required
    assert not judge_evidence(t, lab, "egalitarian vs rank-maximal")[0]


def test_evidence_infeasible_constraints_derived_by_hand():
    # rent <= 1500 keeps A1 only, commute <= 20 keeps A2 only: each alone is feasible,
    # together infeasible
    cons = [{"id": "rent", "type": "max", "attribute": "rent", "value": 1500},
            {"id": "commute", "type": "max", "attribute": "commute", "value": 20}]
    t = _task(preferences={"R1": ["A1", "A2", "A3"], "R2": ["A3", "A2", "A1"]},
              source="constraint", objectives=["utilitarian"], constraints=cons,
              permitted_edits=["rent", "commute"])
    lab = {"verdict": "relax"}
    ev = lambda ids: {"infeasible_constraints": ids}
    assert judge_evidence(t, lab, ev(["rent", "commute"]))[0]
    assert judge_evidence(t, lab, ev(["rent", "commute"]), minimal=True)[0]
    assert not judge_evidence(t, lab, ev(["rent"]))[0]
    assert not judge_evidence(t, lab, ev(["rent", "budget"]))[0]
    assert not judge_evidence(t, lab, {"unknown_comparison": None})[0]      # required
    # an ACT task (commute <= 60: A1 meets both) claiming an infeasible subset is wrong
    t2 = _task(preferences={"R1": ["A1", "A2", "A3"], "R2": ["A3", "A2", "A1"]},
               source="constraint", objectives=["utilitarian"],
               constraints=[cons[0], {**cons[1], "value": 60}],
               permitted_edits=["rent", "commute"])
    assert judge_evidence(t2, {"verdict": "act"}, {})[0]
    assert not judge_evidence(t2, {"verdict": "act"}, ev(["rent", "commute"]))[0]


def test_evidence_hidden_comparison_derived_by_hand():
    t = _task(preferences={"R1": ["A1", {"unknown": ["A2", "A3"]}], "R2": ["A3", "A2", "A1"]},
              source="preference", objectives=["utilitarian"])
    for verdict in ("act", "ask_preference"):           # required in both roles
        lab = {"verdict": verdict}
        assert judge_evidence(t, lab, {"unknown_comparison": {"agent": "R1",
                                                              "items": ["A3", "A2"]}})[0]
        assert not judge_evidence(t, lab, {"unknown_comparison": {"agent": "R2",
                                                                  "items": ["A2", "A3"]}})[0]
        assert not judge_evidence(t, lab, {"unknown_comparison": {"agent": "R1",
                                                                  "items": ["A1", "A2"]}})[0]
        assert not judge_evidence(t, lab, {})[0]


# --------------------------------------------------------------------------- generated

def _generate(name: str, out: Path, *extra: str) -> dict:
    r = subprocess.run([PREFCERT, "generate", name, "-o", str(out), "--per-cell", "1",
                        "--sizes", "4", *extra], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads((out / "manifest.json").read_text())


def _score(out: Path, answers: dict, tmp_path: Path) -> tuple[dict, list[dict]]:
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps({"id": k, "answer": v}) + "\n"
                            for k, v in answers.items()))
    rec = tmp_path / "scored.jsonl"
    r = subprocess.run([PREFCERT, "score", str(out / "prompts.jsonl"), str(path), "--json",
                        "-o", str(rec)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    rows = [json.loads(t) for t in r.stdout.splitlines() if t.startswith("{")]
    scored = [json.loads(t) for t in rec.read_text().splitlines()]
    return {(m["metric"], json.dumps(m["group"], sort_keys=True)): m for m in rows}, scored


def _kn(m, metric, **group):
    r = m[(metric, json.dumps(group, sort_keys=True))]
    return r["k"], r["n"]


def _prompts(out: Path) -> list[dict]:
    return [json.loads(t) for t in (out / "prompts.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def h2(tmp_path_factory):
    out = tmp_path_factory.mktemp("h2")
    return out, _generate(H2, out)


def test_h2_generation_is_certified(h2):
    out, man = h2
    # 12 cells (4 structures × n = 4 × 3 seeds) × 1 group × 6 tasks, three wordings
    assert man["total"] == 12 * 6 * 3
    assert man["labels"] == man["labels_checked"] == 72
    labels = [json.loads(t) for t in (out / "labels.jsonl").read_text().splitlines()]
    assert all({e["engine"] for e in lab["engines"]} == {"oracle", "cpsat"} for lab in labels)
    r = subprocess.run([PREFCERT, "check", str(out / "labels.jsonl")], capture_output=True,
                       text=True, cwd=out)
    assert r.returncode == 0, r.stdout[-1000:] + r.stderr[-1000:]
    ps = _prompts(out)
    ev = [p for p in ps if p["format"] == "explicit_json_evidence"]
    assert all("evidence" in p["prompt"] and "evidence" in json.loads(p["answer"]) for p in ev)
    assert all("evidence" not in json.loads(p["answer"]) for p in ps if p not in ev)


def test_h2_scores_hand_made_answers(h2, tmp_path):
    """Original: gold (FC 72/72). Explicit JSON: gold but every RELAX without its action
    (12 tasks: FC 60/72, Accuracy 72/72). Evidence: gold answers whose evidence names the
    wrong agent on the 24 preference tasks and is missing on the 12 ASK-OBJECTIVE tasks:
    FC 72/72 (evidence is not part of FC), evidence valid 36/72 (preference 0/24,
    objective 12/24, constraint 24/24)."""
    out, _ = h2
    answers = {}
    for p in _prompts(out):
        t, fmt, g = p["task"], p["format"], json.loads(p["answer"])
        if fmt == "explicit_json" and (t["source"], t["role"]) == ("constraint",
                                                                  "intervention"):
            g["action"] = None
        if fmt == "explicit_json_evidence":
            ev = g["evidence"]
            if t["source"] == "preference":
                ev["unknown_comparison"]["agent"] = "nobody"
            if (t["source"], t["role"]) == ("objective", "intervention"):
                ev["conflicting_objectives"] = None
        answers[p["id"]] = json.dumps(g)
    m, scored = _score(out, answers, tmp_path)
    o = {"design": "h2", "format": "original"}
    j = {"design": "h2", "format": "explicit_json"}
    e = {"design": "h2", "format": "explicit_json_evidence"}
    assert _kn(m, "fc", **o) == (72, 72)
    assert _kn(m, "fc", **j) == (60, 72) and _kn(m, "accuracy", **j) == (72, 72)
    assert _kn(m, "fc", **e) == (72, 72)
    assert _kn(m, "evidence_valid", **e) == (36, 72)
    assert _kn(m, "evidence_valid", **e, source="preference") == (0, 24)
    assert _kn(m, "evidence_valid", **e, source="objective") == (12, 24)
    assert _kn(m, "evidence_valid", **e, source="constraint") == (24, 24)
    assert ("evidence_valid", json.dumps(j, sort_keys=True)) not in m
    assert _kn(m, "all_six", **o) == (12, 12)
    assert sum(s["verdict"] == "correct" for s in scored) == 72 + 60 + 72


def test_wording_uses_the_first_h2_groups_and_scores(tmp_path, h2):
    out = tmp_path / "k2"
    man = _generate(WORDING, out)
    assert man["total"] == 12 * 6 * 2
    h2_inst = {json.loads(t)["id"]: t for t in (h2[0] / "instances.jsonl").read_text()
               .splitlines()}
    mine = [json.loads(t) for t in (out / "instances.jsonl").read_text().splitlines()]
    assert all(h2_inst[i["id"]] == json.dumps(i) or json.loads(h2_inst[i["id"]]) == i
               for i in mine)                           # the same instances as H2 group 0
    ps = _prompts(out)
    by = {}
    for p in ps:
        by.setdefault(p["task"]["pair"] + p["task"]["role"], {})[p["format"]] = p["prompt"]
    for v in by.values():
        assert v["neutral"] != v["reminder"]
        assert v["neutral"].rsplit("\n", 1)[0] == v["reminder"].rsplit("\n", 1)[0]
    # neutral: gold everywhere; reminder: ACT answered on every intervention task
    # (36 missed interventions: Accuracy 36/72, missed 36/36, unnecessary 0/36)
    answers = {}
    for p in ps:
        g = json.loads(p["answer"])
        if p["format"] == "reminder" and p["task"]["role"] == "intervention":
            g = {"decision": "ACT", "action": None, "question": None, "repair": None}
        answers[p["id"]] = json.dumps(g)
    m, _ = _score(out, answers, tmp_path)
    n = {"design": "k2", "format": "neutral"}
    r = {"design": "k2", "format": "reminder"}
    assert _kn(m, "fc", **n) == (72, 72)
    assert _kn(m, "accuracy", **r) == (36, 72)
    assert _kn(m, "missed_intervention", **r) == (36, 36)
    assert _kn(m, "unnecessary_intervention", **r) == (0, 36)


FULL = [
    # suite, prompts per format, label verdicts (act, ask_preference, ask_objective, relax)
    (H2, {"original": 2160, "explicit_json": 2160, "explicit_json_evidence": 2160},
     (1080, 360, 360, 360)),
    (WORDING, {"neutral": 1080, "reminder": 1080}, (540, 180, 180, 180)),
    ("actionable-indeterminacy-selection", {"selection": 1080}, (540, 180, 180, 180)),
    ("actionable-indeterminacy-intersection", {"sets": 480}, (240, 0, 240, 0)),
    ("actionable-indeterminacy-balanced", {"original": 4320}, (2160, 720, 720, 720)),
]


@pytest.mark.heavy
@pytest.mark.parametrize("name,cells,verdicts", FULL, ids=[f[0] for f in FULL])
def test_full_design_counts_from_the_generated_files(tmp_path, name, cells, verdicts):
    out = tmp_path / "full"
    r = subprocess.run([PREFCERT, "generate", name, "-o", str(out), "--jobs", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    ps = _prompts(out)
    fmts: dict = {}
    for p in ps:
        fmts[p["format"]] = fmts.get(p["format"], 0) + 1
    assert fmts == cells
    labels = [json.loads(t) for t in (out / "labels.jsonl").read_text().splitlines()]
    assert all(lab["checked"] is True for lab in labels)
    got = [lab["verdict"] for lab in labels]
    assert tuple(got.count(v) for v in ("act", "ask_preference", "ask_objective",
                                        "relax")) == verdicts
    if name == "actionable-indeterminacy-balanced":       # the cue counts, by gold
        insts = [json.loads(t) for t in (out / "instances.jsonl").read_text().splitlines()]
        rules = {(d["meta"]["role"], len(d["objectives"])) for d in insts
                 if d["source"] == "objective"}
        assert rules == {("act", 3), ("intervention", 3)}
        for st in ("allocation", "scheduling", "apartment", "stable_matching"):
            n = {r: sum(len(d.get("constraints", [])) for d in insts
                        if d["source"] == "constraint" and d["structure"] == st
                        and d["meta"]["role"] == r) for r in ("act", "intervention")}
            assert n["act"] == n["intervention"], st
        # ties (the RELAX ones need the repaired tasks labelled: the small-run test does)
        by = {d["id"]: d["structure"] for d in insts}
        for st, want in (("allocation", True), ("scheduling", False), ("apartment", False),
                         ("stable_matching", False)):
            for lab in labels:
                if by[lab["id"]] != st or lab["verdict"] == "relax":
                    continue
                tie = lab["solution"]["shared"] > 1 if lab["verdict"] == "act" else \
                    any(w["accepted"] > 1 for w in lab["solution"]["worlds"])
                assert tie is want, (st, lab["id"])
    if name == "actionable-indeterminacy-selection":
        letters = [p["answer"] for p in ps]
        assert {x: letters.count(x) for x in "ABCD"} == {x: 270 for x in "ABCD"}


# --------------------------------------------------------------------------- K.1 selection

SELECTION = "actionable-indeterminacy-selection"


def test_selection_composition_and_balance_of_the_full_design():
    # App. K.1 / §M: 5 H2 groups per cell = 1,080 tasks, 540 ACT-gold
    from prefcert.bench.actionable.selection import correct_position
    comp = suite(SELECTION).composition()
    assert sum(comp.values()) == 1080
    assert _by(comp, "role") == {"act": 540, "intervention": 540}
    pos: dict = {}
    for k, v in comp.items():
        f = json.loads(k)
        for i in range(v):
            key = (f["source"], f["role"], correct_position(f["structure"], f["size"],
                                                             f["seed"], i))
            pos[key] = pos.get(key, 0) + 1
    # 36 cells × 5 groups = 180 tasks per (source, role) class: 45 per letter
    assert set(pos.values()) == {45} and len(pos) == 3 * 2 * 4


def test_selection_menus_and_hand_made_choices(tmp_path):
    out = tmp_path / "k1"
    man = _generate(SELECTION, out)
    assert man["total"] == man["labels_checked"] == 72
    ps = _prompts(out)
    # cells 0, 1, 2, 9, 10, 11, 18, 19, 20, 27, 28, 29 at group 0: (cell · 5) mod 4 gives
    # letters A, B, C, B, C, D, C, D, A, D, A, B — three cells per letter, six tasks each
    letters = [p["answer"] for p in ps]
    assert {x: letters.count(x) for x in "ABCD"} == {"A": 18, "B": 18, "C": 18, "D": 18}
    for p in ps:
        cands = p["task"]["candidates"]
        assert [c["decision"] for c in cands].count("ACT") == 2
        assert len({c["decision"] for c in cands}) == 2
        assert all(f"{k}. {json.dumps(c)}" in p["prompt"] for k, c in zip("ABCD", cands))
    # ACT gold: the right letter ("Option X." on objective tasks), except "the third one"
    # on the 12 preference tasks (invalid); intervention gold: the first ACT candidate
    # (missed). Accuracy = FC 24/72, missed 36/36, unnecessary 0/36, invalid 12/72.
    answers = {}
    for p in ps:
        t = p["task"]
        if t["role"] == "act":
            answers[p["id"]] = ("the third one" if t["source"] == "preference" else
                                f"Option {p['answer']}." if t["source"] == "objective"
                                else p["answer"])
        else:
            k = [c["decision"] for c in t["candidates"]].index("ACT")
            answers[p["id"]] = "ABCD"[k]
    m, scored = _score(out, answers, tmp_path)
    g = {"design": "k1", "format": "selection"}
    assert _kn(m, "accuracy", **g) == (24, 72) and _kn(m, "fc", **g) == (24, 72)
    assert _kn(m, "missed_intervention", **g) == (36, 36)
    assert _kn(m, "unnecessary_intervention", **g) == (0, 36)
    assert _kn(m, "share_invalid", suite=SELECTION) == (12, 72)
    assert _kn(m, "ifc", **g) == (0, 36)


# --------------------------------------------------------------------------- I.2 intersection

INTERSECTION = "actionable-indeterminacy-intersection"


def test_intersection_composition_matches_the_paper():
    # §I.2: 480 tasks, 240 with an empty and 240 with a non-empty global intersection
    comp = suite(INTERSECTION).composition()
    assert sum(comp.values()) == 480
    assert _by(comp, "role") == {"act": 240, "intervention": 240}


def _listed_sets(prompt: str) -> dict:
    out = {}
    for ln in prompt.splitlines():
        if ln.startswith("- ") and ": {" in ln:
            name, rest = ln[2:].split(": {", 1)
            out[name] = {x.strip() for x in rest.rstrip("}").split(",") if x.strip()}
    return out


def test_intersection_golds_and_hand_made_answers(tmp_path):
    out = tmp_path / "i2"
    man = _generate(INTERSECTION, out)
    # 2 structures × n = 4 × 2 roles × 1 pair
    assert man["total"] == man["labels_checked"] == 4
    out2 = tmp_path / "i2b"
    r = subprocess.run([PREFCERT, "generate", INTERSECTION, "-o", str(out2), "--per-cell",
                        "3", "--sizes", "6"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    ps = _prompts(out2)
    assert len(ps) == 12
    answers = {}
    for p in ps:
        sets = _listed_sets(p["prompt"])
        assert len(sets) >= 2
        common = set.intersection(*sets.values())
        g = json.loads(p["answer"])
        # the gold follows the rule, read off the prompt
        assert (g["decision"] == "ACT") == bool(common) == (p["task"]["role"] == "act")
        assert g["decision"] != "ACT" or g["action"] in common
        first = p["task"]["pair"].endswith("p0")
        if p["task"]["role"] == "act" and first:        # unnecessary ASK-PREFERENCE
            answers[p["id"]] = json.dumps({"decision": "ASK-PREFERENCE", "action": None,
                                           "question": None, "repair": None})
        elif p["task"]["role"] != "act" and first:      # missed: act with some option
            some = sorted(next(iter(sets.values())))[0]
            answers[p["id"]] = json.dumps({"decision": "ACT", "action": some,
                                           "question": None, "repair": None})
        else:
            answers[p["id"]] = json.dumps({"decision": g["decision"], "action": g["action"],
                                           "question": None if g["decision"] == "ACT" else
                                           {"objectives": sorted(sets)}, "repair": None})
    # per structure 3 pairs; pair 0 wrong on both members: Accuracy 8/12, unnecessary 2/6,
    # missed 2/6, IFC 4/6
    m, _ = _score(out2, answers, tmp_path)
    g = {"design": "i2", "format": "sets"}
    assert _kn(m, "accuracy", **g) == (8, 12) and _kn(m, "fc", **g) == (8, 12)
    assert _kn(m, "unnecessary_intervention", **g) == (2, 6)
    assert _kn(m, "missed_intervention", **g) == (2, 6)
    assert _kn(m, "ifc", **g) == (4, 6)


# --------------------------------------------------------------------------- result set

def _rec(model, source, fc, ev, role="act", i=0):
    return {"model": model, "design": "h2", "format": "explicit_json_evidence",
            "structure": "apartment", "size": 4, "source": source, "role": role,
            "gold": "act" if role == "act" else "relax", "decision": "act",
            "decision_correct": fc, "fc": fc, "parsed_ok": True, "evidence_valid": ev,
            "pair": f"p{source}{i}/e", "group": None, "cell_id": "c", "verdict": "correct"
            if fc else "incorrect"}


def test_evidence_result_set_by_hand():
    from prefcert.bench.actionable.results import results
    # model M1: preference 2 records (FC 2, evidence 1), constraint 2 (FC 1, evidence 2);
    # model M2: preference 1 record (FC 0, evidence 0)
    recs = [_rec("M1", "preference", True, True), _rec("M1", "preference", True, False, i=1),
            _rec("M1", "constraint", True, True), _rec("M1", "constraint", False, True, i=1),
            _rec("M2", "preference", False, False)]
    (rs,) = [r for r in results(recs) if r.key == "li-h2-evidence"]
    got = {(r["model"], r["source"], r["metric"]): (r["k"], r["n"]) for r in rs.rows}
    assert got[("M1", "preference", "evidence_valid")] == (1, 2)
    assert got[("M1", "constraint", "evidence_valid")] == (2, 2)
    assert got[("M1", "all", "evidence_valid")] == (3, 4)
    assert got[("M1", "all", "fc")] == (3, 4)
    assert got[("M2", "all", "evidence_valid")] == (0, 1)
    assert not [r for r in results([{**s, "format": "original"} for s in recs
                                    for s in [{k: v for k, v in s.items()
                                               if k != "evidence_valid"}]])
                if r.key == "li-h2-evidence"]


def _trec(model, design, fmt, source, role, i, dec, fc):
    return {"model": model, "design": design, "format": fmt, "structure": "scheduling",
            "size": 4, "source": source, "role": role,
            "gold": "act" if role == "act" else "relax", "decision": None,
            "decision_correct": dec, "fc": fc, "parsed_ok": True,
            "pair": f"ai-h2-x-{source}{i}/{fmt}", "group": None, "cell_id": "c",
            "verdict": "correct" if fc else "incorrect"}


def test_design_transitions_by_hand_and_mcnemar_against_statsmodels():
    from statsmodels.stats.contingency_tables import mcnemar

    from prefcert.bench.actionable.results import results
    # M1, four tasks, original -> explicit JSON: decisions T F F T -> T T T F
    # (2 incorrect -> correct, 1 correct -> incorrect, 1 right in both); FC F F F F -> T T T F
    tasks = [("preference", "act"), ("preference", "intervention"),
             ("constraint", "act"), ("constraint", "intervention")]
    d0, d1, f1 = [True, False, False, True], [True, True, True, False], [True, True, True, False]
    recs = []
    for (src, role), a, b, c in zip(tasks, d0, d1, f1):
        recs.append(_trec("M1", "h2", "original", src, role, 0, a, False))
        recs.append(_trec("M1", "h2", "explicit_json", src, role, 0, b, c))
    # M2, one task, explicit JSON (wrong) -> selection (right); one task in selection only
    recs.append(_trec("M2", "h2", "explicit_json", "objective", "act", 0, False, False))
    recs.append(_trec("M2", "k1", "selection", "objective", "act", 0, True, True))
    recs.append(_trec("M2", "k1", "selection", "objective", "act", 1, True, True))
    sets = {r.key: r for r in results(recs)}
    got = {(r["model"], r["from"], r["to"], r["unit"], r["source"], r["transition"]):
           (r["value"], r["n"]) for r in sets["li-design-transitions"].rows}
    c = ("M1", "h2/original", "h2/explicit_json")
    assert got[(*c, "decisions", "all", "incorrect → correct")] == (2, 4)
    assert got[(*c, "decisions", "all", "correct → incorrect")] == (1, 4)
    assert got[(*c, "decisions", "all", "correct in both")] == (1, 4)
    assert got[(*c, "FC", "all", "incorrect → correct")] == (3, 4)
    assert got[(*c, "decisions", "preference", "incorrect → correct")] == (1, 2)
    m2 = ("M2", "h2/explicit_json", "k1/selection")
    assert got[(*m2, "decisions", "all", "incorrect → correct")] == (1, 1)   # unpaired out
    tests = {(r["model"], r["from"], r["unit"], r["source"]): r
             for r in sets["li-design-mcnemar"].rows}
    t = tests[("M1", "h2/original", "FC", "all")]
    assert (t["improved"], t["worsened"]) == (3, 0)
    # statsmodels' exact McNemar on the 2 × 2 table [[both, worse], [better, neither]]
    assert t["pvalue"] == pytest.approx(mcnemar([[0, 0], [3, 1]], exact=True).pvalue)
    t = tests[("M1", "h2/original", "decisions", "all")]
    assert t["pvalue"] == pytest.approx(mcnemar([[1, 1], [2, 0]], exact=True).pvalue)


# --------------------------------------------------------------------------- stored repair

def test_stored_repair_reading_of_stable_matching_relax(tmp_path):
    from prefcert.bench.actionable.responses import ParseOptions, judge_response
    out = tmp_path / "sm"
    r = subprocess.run([PREFCERT, "generate", H2, "-o", str(out), "--per-cell", "1",
                        "--sizes", "4", "--reading", "matching_repair=stored"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    ps = _prompts(out)
    assert all(p["task"]["matching_repair"] == "stored" for p in ps)
    # the gold answers (the stored pairs) stay fully correct under the paper's checker
    m, _ = _score(out, {p["id"]: p["answer"] for p in ps}, tmp_path)
    assert _kn(m, "fc", design="h2", format="original") == (72, 72)
    # a label whose stored pair is another one: the right repair is then accepted by the
    # default checker (any minimum repair, from the certificate) and refused by the stored one
    labels = {json.loads(t)["id"]: json.loads(t) for t in
              (out / "labels.jsonl").read_text().splitlines()}
    insts = {json.loads(t)["id"]: json.loads(t) for t in
             (out / "instances.jsonl").read_text().splitlines()}
    iid = next(i for i, lab in labels.items()
               if lab["verdict"] == "relax" and insts[i]["structure"] == "stable_matching")
    lab, task = labels[iid], parse_decision(insts[iid])
    rep = lab["solution"]["repairs"][0]
    answer = json.dumps({"decision": "RELAX", "action": rep["action"], "question": None,
                         "repair": {"edits": rep["edits"]}})
    moved = {**lab, "solution": {**lab["solution"], "repairs": [
        {"edits": [{"constraint": "elsewhere"}], "action": rep["action"]}]}}
    assert judge_response(task, moved, answer)["fc"]
    assert not judge_response(task, moved, answer, ParseOptions(stored_repair=True))["fc"]
    assert judge_response(task, lab, answer, ParseOptions(stored_repair=True))["fc"]
    other = {a: b for a, b in zip(rep["action"], reversed(list(rep["action"].values())))}
    wrong = json.dumps({"decision": "RELAX", "action": other, "question": None,
                        "repair": {"edits": rep["edits"]}})
    assert not judge_response(task, lab, wrong, ParseOptions(stored_repair=True))["fc"]


# --------------------------------------------------------------------------- cue-balanced

BALANCED = "actionable-indeterminacy-balanced"


@pytest.fixture(scope="module")
def balanced(tmp_path_factory):
    out = tmp_path_factory.mktemp("v3b") / "b"
    return out, _generate(BALANCED, out)


def test_balanced_composition_and_cues(balanced, tmp_path):
    assert sum(suite(BALANCED).composition().values()) == 4320
    out, man = balanced
    assert man["total"] == man["labels_checked"] == 72
    insts = [json.loads(t) for t in (out / "instances.jsonl").read_text().splitlines()]
    pairs: dict = {}
    for d in insts:
        pairs.setdefault(d["meta"]["pair"], {})[d["meta"]["role"]] = d
    assert len(pairs) == 36
    for members in pairs.values():
        a, b = members["act"], members["intervention"]
        if a["source"] == "objective":                  # three rules on both sides
            assert len(a["objectives"]) == len(b["objectives"]) == 3
            assert len(set(a["objectives"]) ^ set(b["objectives"])) == 2     # one swapped
        if a["source"] == "constraint":                 # as many constraints on both sides
            assert len(a.get("constraints", [])) == len(b["constraints"])
    # the surface rule "three rules shown -> ASK-OBJECTIVE" now fails on every objective
    # ACT member: objective Accuracy 12/24; the other tasks answered by their gold
    answers = {}
    for p in _prompts(out):
        t = p["task"]
        if t["source"] == "objective":
            objs = next(d for d in insts if d["id"] == p["instance_id"])["objectives"]
            answers[p["id"]] = json.dumps({"decision": "ASK-OBJECTIVE", "action": None,
                                           "question": {"objectives": objs}, "repair": None})
        else:
            answers[p["id"]] = p["answer"]
    m, _ = _score(out, answers, tmp_path)
    g = {"design": "v3b", "format": "original"}
    assert _kn(m, "accuracy", **g) == (60, 72) and _kn(m, "fc", **g) == (60, 72)
    assert _kn(m, "unnecessary_intervention", **g) == (12, 36)
    assert _kn(m, "ifc", **g) == (24, 36)
    assert _kn(m, "accuracy", **g, source="objective") == (12, 24)
    assert _kn(m, "all_six", **g) == (0, 12)


def test_balanced_ties_equal_across_gold_decisions(balanced, tmp_path):
    # a tie: the answer the task calls for is not unique under its stated rules — ACT:
    # more than one action accepted in every world (the label's ``shared``); ASK: some
    # world accepts several actions (the label's per-world counts); RELAX: after some
    # minimum repair several actions are accepted (the repaired task labelled afresh by
    # ``prefcert label``, oracle and CP-SAT). The design: every allocation task ties, no
    # task of the other structures does, so the share is the same for every gold decision
    from prefcert.generators.decision import apply_edits
    out, _ = balanced
    insts = {d["id"]: d for d in map(json.loads, (out / "instances.jsonl").read_text()
                                     .splitlines())}
    labels = {lab["id"]: lab for lab in map(json.loads, (out / "labels.jsonl").read_text()
                                            .splitlines())}
    repaired = []
    for iid, lab in labels.items():
        if lab["verdict"] == "relax":
            plain = {k: v for k, v in insts[iid].items() if k != "meta"}
            for k, rep in enumerate(lab["solution"]["repairs"]):
                repaired.append({**apply_edits(plain, rep["edits"]), "id": f"{iid}~{k}"})
    path = tmp_path / "repaired.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in repaired))
    r = subprocess.run([PREFCERT, "label", str(path), "--cross-check", "always"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    fresh = [json.loads(t) for t in r.stdout.splitlines() if t.startswith("{")]
    assert len(fresh) == len(repaired) and all(x["verdict"] == "act" for x in fresh)
    after: dict = {}
    for x in fresh:
        after.setdefault(x["id"].split("~")[0], []).append(x["solution"]["shared"])

    def tie(lab: dict) -> bool:
        if lab["verdict"] == "act":
            return lab["solution"]["shared"] > 1
        if lab["verdict"] == "relax":
            return any(c > 1 for c in after[lab["id"]])
        return any(w["accepted"] > 1 for w in lab["solution"]["worlds"])

    share: dict = {}
    for iid, lab in labels.items():
        k = (insts[iid]["structure"], lab["verdict"])
        share.setdefault(k, []).append(tie(lab))
    want = {"allocation": 1.0, "scheduling": 0.0, "apartment": 0.0, "stable_matching": 0.0}
    for st, value in want.items():
        got = {v: sum(share[(st, v)]) / len(share[(st, v)])
               for v in ("act", "ask_preference", "ask_objective", "relax")}
        assert set(got.values()) == {value}, (st, got)
