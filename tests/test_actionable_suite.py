"""The ``actionable-indeterminacy`` suite: composition, reproducible generation with every
label certified by two agreeing engines, and ``prefcert score`` on hand-made answers whose
Accuracy, FC, IFC and all-six are known."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import PREFCERT

from prefcert.bench.suites import suite

SUITE = "actionable-indeterminacy"


def test_composition_matches_the_design():
    s = suite(SUITE)
    comp = s.composition()
    assert sum(comp.values()) == s.expected_total == 4 * 3 * 3 * 20 * 6 + 540 * 2 * 2
    v3 = sum(v for k, v in comp.items() if json.loads(k)["design"] == "v3")
    h5 = sum(v for k, v in comp.items() if json.loads(k)["design"] == "h5")
    assert (v3, h5) == (4320, 2160)
    assert {json.loads(k)["format"] for k in comp} == {"original", "explicit_json"}


def _generate(out: Path) -> dict:
    r = subprocess.run([PREFCERT, "generate", SUITE, "-o", str(out), "--per-cell", "1",
                        "--sizes", "4"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads((out / "manifest.json").read_text())


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    out = tmp_path_factory.mktemp("ai")
    return out, _generate(out)


def test_generation_is_certified_by_two_engines_and_reproducible(bench, tmp_path):
    out, manifest = bench
    assert manifest["total"] == 12 * 6 + 12 * 3 * 2 * 2
    assert manifest["labels"] == manifest["labels_checked"] == 12 * 6 + 12 * 3 * 2
    labels = [json.loads(t) for t in (out / "labels.jsonl").read_text().splitlines()]
    assert all({e["engine"] for e in lab["engines"]} == {"oracle", "cpsat"} for lab in labels)
    verdicts = [lab["verdict"] for lab in labels]
    assert verdicts.count("act") == len(labels) // 2
    again = tmp_path / "again"
    _generate(again)
    for name in ("instances.jsonl", "labels.jsonl", "prompts.jsonl", "manifest.json"):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name
    r = subprocess.run([PREFCERT, "check", str(out / "labels.jsonl")], capture_output=True,
                       text=True, cwd=out)
    assert r.returncode == 0, r.stdout[-1000:] + r.stderr[-1000:]


def _score(out: Path, answers: dict, tmp_path: Path) -> dict:
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps({"id": k, "answer": v}) + "\n"
                            for k, v in answers.items()))
    r = subprocess.run([PREFCERT, "score", str(out / "prompts.jsonl"), str(path), "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    rows = [json.loads(t) for t in r.stdout.splitlines() if t.startswith("{")]
    return {(m["metric"], json.dumps(m["group"], sort_keys=True)): m for m in rows}


def _get(metrics, metric, **group):
    return metrics[(metric, json.dumps(group, sort_keys=True))]


def test_score_hand_made_answers_with_known_scores(bench, tmp_path):
    """V3 (12 groups, 36 pairs, 72 tasks): gold answers except, in every group, an
    unnecessary ASK-OBJECTIVE on the objective ACT task and a RELAX without its action.
    Accuracy 60/72, FC 48/72, IFC 24/36, all-six 0/12, unnecessary 12/36, missed 0/36.
    H5 original: unparseable (accuracy 0); H5 explicit JSON: gold (everything right)."""
    out, _ = bench
    prompts = [json.loads(t) for t in (out / "prompts.jsonl").read_text().splitlines()]
    answers = {}
    for p in prompts:
        t, fmt = p["task"], p["format"]
        gold = json.loads(p["answer"])
        if t["design"] == "h5":
            answers[p["id"]] = "I would act." if fmt == "original" else p["answer"]
            continue
        if (t["source"], t["role"]) == ("objective", "act"):
            answers[p["id"]] = json.dumps({"decision": "ASK-OBJECTIVE", "action": None,
                                           "question": {"objectives": ["utilitarian"]},
                                           "repair": None})
        elif (t["source"], t["role"]) == ("constraint", "intervention"):
            answers[p["id"]] = json.dumps(dict(gold, action=None))
        else:
            answers[p["id"]] = p["answer"]
    m = _score(out, answers, tmp_path)
    v3 = {"design": "v3", "format": "original"}
    assert (_get(m, "accuracy", **v3)["k"], _get(m, "accuracy", **v3)["n"]) == (60, 72)
    assert (_get(m, "fc", **v3)["k"], _get(m, "fc", **v3)["n"]) == (48, 72)
    assert (_get(m, "ifc", **v3)["k"], _get(m, "ifc", **v3)["n"]) == (24, 36)
    assert (_get(m, "all_six", **v3)["k"], _get(m, "all_six", **v3)["n"]) == (0, 12)
    assert _get(m, "all_six_fc", **v3)["k"] == 0
    assert (_get(m, "unnecessary_intervention", **v3)["k"],
            _get(m, "unnecessary_intervention", **v3)["n"]) == (12, 36)
    assert _get(m, "missed_intervention", **v3)["k"] == 0
    assert _get(m, "ifc", design="v3", format="original", source="objective")["k"] == 0
    assert _get(m, "ifc", design="v3", format="original", source="preference")["k"] == 12
    # independence reference: objective strata 0 · 1, the others 1 · 1 (and 1 · 1 for
    # constraint: the RELAX decision is right)
    assert _get(m, "ifc_reference", **v3)["value"] == pytest.approx(2 / 3)
    h5o = {"design": "h5", "format": "original"}
    assert _get(m, "accuracy", **h5o)["k"] == 0 and _get(m, "ifc", **h5o)["k"] == 0
    h5j = {"design": "h5", "format": "explicit_json"}
    assert (_get(m, "fc", **h5j)["k"], _get(m, "fc", **h5j)["n"]) == (72, 72)
    assert (_get(m, "ifc", **h5j)["k"], _get(m, "ifc", **h5j)["n"]) == (36, 36)
    assert _get(m, "share_invalid", suite=SUITE)["k"] == 72
