"""Fisher's exact tests across sizes: only the tests a suite's paper reports by default
(Khanna & Wang 2026, App. J.3, for the algorithmic suite; none for the others), every pair
of sizes behind ``--size-tests all``, Holm and Benjamini–Hochberg adjustments beside the
raw p-values (checked by hand and, for their error rates, by simulation)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from conftest import PREFCERT, cli
from scipy import stats

from prefcert.bench.score import size_tests
from prefcert.bench.suites import suite

needs_cli = pytest.mark.skipif(PREFCERT is None, reason="console script not installed")


def records(name: str, rng=None, p: float = 0.5) -> list[dict]:
    """One score record per prompt of the suite's full design (correct with probability p
    when ``rng`` is given, else alternately)."""
    out = []
    for key, n in suite(name).composition().items():
        cell = json.loads(key)
        for i in range(n):
            ok = rng.random() < p if rng is not None else i % 2 == 0
            out.append({"suite": name, "cell": cell, "verdict": "correct" if ok else "incorrect"})
    return out


@pytest.mark.parametrize("name,paper,every", [
    # Li et al. report no hypothesis test; every pair of the 3 sizes in 72 V3 and 144 H5 cells
    ("actionable-indeterminacy", 0, 3 * (72 + 144)),
    # App. J.3: small vs modest, generation of every notion under strict complete
    # preferences: HA-SO 5 + OA-SO 4 + SM-SO 4 notions; all: 37 standard and 24 hard cells
    ("indeterminacy-algorithmic", 5 + 4 + 4, 37 + 24),
    ("indeterminacy-preference", 0, None),
    ("voting-manipulation", 0, None),
])
def test_only_the_papers_tests_by_default(name, paper, every):
    scores = records(name)
    assert len(size_tests(scores)) == paper
    if every is not None:
        assert len(size_tests(scores, "all")) == every
    if paper:
        cells = {(t["cell"]["setting"], t["cell"]["task"]) for t in size_tests(scores)}
        assert {s for s, _ in cells} == {"HA-SO", "OA-SO", "SM-SO"}
        assert ("HA-SO", "core") in cells and ("HA-SO", "unspecified") not in cells


def test_holm_and_benjamini_hochberg_by_hand():
    """Three cells with two sizes; raw p from scipy's Fisher test of each 2×2 table.
    Holm: the i-th smallest of m p-values times (m − i + 1), made non-decreasing;
    Benjamini–Hochberg: the i-th smallest times m / i, made non-increasing from the top."""
    counts = {"a": ((9, 10), (1, 10)), "b": ((6, 10), (3, 10)), "c": ((5, 10), (5, 10))}
    scores = []
    for setting, ((k1, n1), (k2, n2)) in counts.items():
        for size, k, n in ((10, k1, n1), (30, k2, n2)):
            scores += [{"suite": "actionable-indeterminacy",
                        "cell": {"setting": setting, "size": size},
                        "verdict": "correct" if i < k else "incorrect"} for i in range(n)]
    got = {t["cell"]["setting"]: t for t in size_tests(scores, "all")}
    raw = {c: stats.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue
           for c, ((k1, n1), (k2, n2)) in counts.items()}
    order = sorted(raw, key=raw.get)
    m = len(order)
    holm, run = {}, 0.0
    for i, c in enumerate(order):
        run = max(run, min(1.0, (m - i) * raw[c]))
        holm[c] = run
    bh, run = {}, 1.0
    for i, c in reversed(list(enumerate(order))):
        run = min(run, m * raw[c] / (i + 1))
        bh[c] = run
    for c in counts:
        assert got[c]["pvalue"] == pytest.approx(raw[c])
        assert got[c]["pvalue_holm"] == pytest.approx(holm[c])
        assert got[c]["pvalue_bh"] == pytest.approx(bh[c])
        assert got[c]["size"] == [10, 30] and got[c]["suite"] == "actionable-indeterminacy"


@pytest.mark.heavy
def test_adjusted_tests_hold_their_level_under_the_null():
    """Every prompt of the full actionable design correct with probability 1/2 whatever
    its size: every one of the 648 size comparisons is a true null. Fisher's exact test
    rejects at most 5 % of them; after Holm (and Benjamini–Hochberg, which under the global
    null controls the same family-wise rate) at most 5 % of the datasets have any
    rejection, while almost every dataset has an uncorrected p < 0.05."""
    from conftest import heavy_examples
    rng = np.random.default_rng(8)
    reps = heavy_examples(120, 30)
    raw = any_raw = any_holm = any_bh = tests = 0
    for _ in range(reps):
        t = size_tests(records("actionable-indeterminacy", rng), "all")
        tests += len(t)
        raw += sum(x["pvalue"] < 0.05 for x in t)
        any_raw += any(x["pvalue"] < 0.05 for x in t)
        any_holm += any(x["pvalue_holm"] <= 0.05 for x in t)
        any_bh += any(x["pvalue_bh"] <= 0.05 for x in t)
    se = math.sqrt(0.05 * 0.95 / reps)
    assert raw / tests <= 0.05
    assert any_holm / reps <= 0.05 + 3 * se and any_bh / reps <= 0.05 + 3 * se
    assert any_raw / reps > 0.9


# ------------------------------------------------------------------------------------ CLI

def run(*args):
    return cli(*args).stdout


def _answer_half(bench: Path, tmp_path: Path) -> Path:
    prompts = [json.loads(x) for x in (bench / "prompts.jsonl").read_text().splitlines()]
    a = tmp_path / "answers.jsonl"
    a.write_text("".join(json.dumps({"id": p["id"], "answer": p["answer"] if i % 2 else "?"})
                         + "\n" for i, p in enumerate(prompts)))
    return a


@needs_cli
def test_score_prints_the_papers_size_tests_with_adjustments(tmp_path):
    bench = tmp_path / "alg"
    run("generate", "indeterminacy-algorithmic", "-o", bench, "--per-cell", "1",
        "--sizes", "10,30")
    answers = _answer_half(bench, tmp_path)
    text = " ".join(run("score", bench / "prompts.jsonl", answers).split())
    assert "App. J.3" in text and "13 tests" in text and "Holm" in text
    assert "Benjamini–Hochberg" in text and "p BH" in text
    lines = [json.loads(x) for x in run("score", bench / "prompts.jsonl", answers,
                                        "--json").splitlines()]
    tests = [x for x in lines if x.get("test") == "fisher_exact"]
    assert len(tests) == 13 and all({"pvalue_holm", "pvalue_bh"} <= set(x) for x in tests)
    every = [json.loads(x) for x in run("score", bench / "prompts.jsonl", answers, "--json",
                                        "--size-tests", "all").splitlines()]
    assert sum(x.get("test") == "fisher_exact" for x in every) == 37 + 24


@needs_cli
def test_actionable_scores_show_no_fisher_test_unless_asked(tmp_path):
    bench = tmp_path / "ai"
    run("generate", "actionable-indeterminacy", "-o", bench, "--per-cell", "1",
        "--sizes", "4,6")
    answers = _answer_half(bench, tmp_path)
    text = " ".join(run("score", bench / "prompts.jsonl", answers).split())
    assert "the paper reports no test across sizes" in text
    assert "Fisher exact across sizes:" not in text
    lines = run("score", bench / "prompts.jsonl", answers, "--json").splitlines()
    assert not any('"fisher_exact"' in x for x in lines)
    text = " ".join(run("score", bench / "prompts.jsonl", answers, "--size-tests", "all").split())
    assert "Fisher exact across sizes: 216 tests" in text and "after Holm" in text
