"""Qian & He's result sets over several models (issue 22): hand-made utilities of three
fake models, every expected value worked out by hand below, and the CLI over several
answers files of a generated suite.

Utilities (M = 3 prompts a, b, c; K = 4 samples):

    m1: a 1 0 1 1   b 0 0 0 1   c 1 1 1 1   DEU (3/4 + 1/4 + 1)/3 = 2/3; best-of-4 1
    m2: a 0 0 1 0   b 0 0 0 0   c 1 0 1 1   DEU (1/4 + 0 + 3/4)/3 = 1/3; best-of-4 2/3
    m3: a 1 1 1 1   b 1 1 1 1   c 0 0 0 0   DEU 2/3; best-of-4 2/3

RVR (REU = 1): 1/3, 2/3, 1/3; RVR (best-of-K): 1/3, 1/3, 0.
Budget k = 2 (the first two samples): m1 means 1/2, 0, 1 → 1/2, best-of-2 (1, 0, 1) → 2/3:
certified 1/2, best-of-k 1/6; m2 means 0, 0, 1/2 → 1/6, best-of-2 (0, 0, 1): certified
5/6, best-of-k 1/6; m3 means 1, 1, 0 → certified 1/3, best-of-k 0. k = 1: certified
1 − (first samples' mean): m1 1/3, m2 2/3, m3 1/3; best-of-1 0.
pass@2 of m1: a (n 4, c 3) 1 − C(1,2)/C(4,2) = 1; b (c 1) 1 − 3/6 = 1/2; c 1 → 5/6,
minus DEU 2/3 = 1/6.
Bounds at δ = 0.05 (Hoeffding, δ/3 a term): (I) √(2 ln(6/δ)/M), (II) certified
√(ln(6/δ)/(2MK)), best-of-K (1 − 1/K)·√(ln(6/δ)/(2M)), (III) 0 (deterministic verifier).
"""
from __future__ import annotations

import json
import math
from functools import partial

import pytest

from prefcert.bench.rational_value_risk.results import risk_results
from prefcert.bench.rational_value_risk.risk import rational_value_risk
from conftest import cli, PREFCERT

needs_cli = pytest.mark.skipif(PREFCERT is None, reason="console script not installed")

U = {"m1": [[1, 0, 1, 1], [0, 0, 0, 1], [1, 1, 1, 1]],
     "m2": [[0, 0, 1, 0], [0, 0, 0, 0], [1, 0, 1, 1]],
     "m3": [[1, 1, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0]]}
LG = math.log(6 / 0.05)
BOUND = {"certified": math.sqrt(2 * LG / 3) + math.sqrt(LG / (2 * 3 * 4)),
         "best_of_k": math.sqrt(2 * LG / 3) + 0.75 * math.sqrt(LG / (2 * 3))}


run = partial(cli, check=False)


@pytest.fixture(scope="module")
def sets():
    results = {m: rational_value_risk(u, resamples=400, seed=3) for m, u in U.items()}
    return {rs.key: rs for rs in risk_results(results)}


def _row(rs, **where):
    hits = [r for r in rs.rows if all(r.get(k) == v for k, v in where.items())]
    assert len(hits) == 1, (where, hits)
    return hits[0]


def test_rvr_per_model_with_the_bounds_beside(sets):
    t = sets["qh-table2"]
    assert t.models() == ["m1", "m2", "m3"]
    hand = {("m1", "certified"): (2 / 3, 1, 1 / 3), ("m2", "certified"): (1 / 3, 1, 2 / 3),
            ("m3", "certified"): (2 / 3, 1, 1 / 3), ("m1", "best_of_k"): (2 / 3, 1, 1 / 3),
            ("m2", "best_of_k"): (1 / 3, 2 / 3, 1 / 3), ("m3", "best_of_k"): (2 / 3, 2 / 3, 0)}
    labels = {"certified": "REU = 1 (certified)", "best_of_k": "REU = best-of-K"}
    for (m, reading), (deu, reu, rvr) in hand.items():
        lab = labels[reading]
        assert _row(t, model=m, reading=lab, estimate="DEU")["value"] == pytest.approx(deu)
        assert _row(t, model=m, reading=lab, estimate="REU")["value"] == pytest.approx(reu)
        row = _row(t, model=m, reading=lab, estimate="RVR")
        assert row["value"] == pytest.approx(rvr, abs=1e-12)
        assert row["low"] <= row["value"] + 1e-12 and row["value"] <= row["high"] + 1e-12
        assert row["bound"] == pytest.approx(BOUND[reading])
        assert row["bound_low"] == pytest.approx(rvr - BOUND[reading])
        assert _row(t, model=m, reading=lab, estimate="bound total ±")["value"] == \
            pytest.approx(BOUND[reading])
        assert _row(t, model=m, reading=lab, estimate="bound (III) verification")["value"] == 0
        assert _row(t, model=m, reading=lab, estimate="RVR + bound")["value"] == \
            pytest.approx(rvr + BOUND[reading])
    # the rows of a reading keep the order of the table (no. is the row number)
    order = [r["estimate"] for r in sorted(t.rows, key=lambda r: (r["reading"], r["no."]))
             if r["model"] == "m1" and r["reading"] == labels["certified"]]
    assert order[:4] == ["prompts M", "DEU", "REU", "RVR"]


def test_rvr_per_budget_k(sets):
    t = sets["qh-table13"]
    hand = {(1, "certified"): (1 / 3, 2 / 3, 1 / 3), (1, "best-of-k"): (0, 0, 0),
            (2, "certified"): (1 / 2, 5 / 6, 1 / 3), (2, "best-of-k"): (1 / 6, 1 / 6, 0),
            (4, "certified"): (1 / 3, 2 / 3, 1 / 3), (4, "best-of-k"): (1 / 3, 1 / 3, 0)}
    for (k, reading), vals in hand.items():
        for m, v in zip(("m1", "m2", "m3"), vals):
            assert _row(t, model=m, k=k, reading=reading)["value"] == pytest.approx(v, abs=1e-12)
    assert _row(t, model="m1", k=2, reading="pass@k")["value"] == pytest.approx(1 / 6)
    assert t.figure is not None


def test_k_curves_of_every_model_on_one_plot(sets):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    sets["qh-table13"].figure(sets["qh-table13"], ax)
    labels = [line.get_label() for line in ax.get_lines()]
    plt.close(fig)
    for m in ("m1", "m2", "m3"):
        assert f"{m} · certified" in labels and f"{m} · best-of-k" in labels


def test_paired_comparisons_against_scipy_and_statsmodels():
    """Per-prompt certified gaps 1 − mean: m1 (1/4, 3/4, 0), m2 (3/4, 1, 1/4), m3 (0, 0, 1);
    best-of-4 gaps max − mean: m1 (1/4, 3/4, 0), m2 (3/4, 0, 1/4), m3 (0, 0, 0).
    RVR differences (certified): m1 − m2 = −1/3, m1 − m3 = 0, m2 − m3 = 1/3; (best-of-K):
    0, 1/3, 1/3. Paired t tests by scipy and Holm by statsmodels, fitted here directly."""
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    from prefcert.bench.rational_value_risk.results import paired_table
    scored = {m: [{"id": pid, "utilities": u, "reu_certified": 1} for pid, u in zip("abc", rows)]
              for m, rows in U.items()}
    t = paired_table(scored, resamples=300, seed=1)
    cert = {"m1": [0.25, 0.75, 0], "m2": [0.75, 1, 0.25], "m3": [0, 0, 1]}
    best = {"m1": [0.25, 0.75, 0], "m2": [0.75, 0, 0.25], "m3": [0, 0, 0]}
    hand = {"REU = 1 (certified)": (cert, {("m1", "m2"): -1 / 3, ("m1", "m3"): 0,
                                           ("m2", "m3"): 1 / 3}),
            "REU = best-of-K": (best, {("m1", "m2"): 0, ("m1", "m3"): 1 / 3,
                                       ("m2", "m3"): 1 / 3})}
    for reading, (gaps, diffs) in hand.items():
        ps = [stats.ttest_rel(gaps[a], gaps[b]).pvalue for a, b in diffs]
        holm = multipletests(ps, method="holm")[1]
        for ((a, b), v), p, q in zip(diffs.items(), ps, holm):
            row = _row(t, model=a, versus=b, reading=reading)
            assert row["value"] == pytest.approx(v, abs=1e-12) and row["n"] == 3
            assert row["pvalue"] == pytest.approx(p) and row["pvalue_holm"] == pytest.approx(q)
            assert row["low"] <= v + 1e-12 <= row["high"] + 2e-12


# ---------------------------------------------------------------------------------- CLI

def _write_utilities(tmp_path, named: bool):
    paths = []
    for m, rows in U.items():
        p = tmp_path / f"{m}.jsonl"
        p.write_text("".join(json.dumps({"id": pid, "utilities": u, **({"model": m} if named else {})})
                             + "\n" for pid, u in zip("abc", rows)))
        paths.append(p)
    return paths


@needs_cli
def test_cli_several_utilities_files(tmp_path):
    paths = _write_utilities(tmp_path, named=True)          # the records name their model
    args = [x for p in paths for x in ("--utilities", p)]
    r = run("risk", *args, "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    res = json.loads(r.stdout)
    assert [m["model"] for m in res["models"]] == ["m1", "m2", "m3"]
    assert [m["readings"]["certified"]["rvr"] for m in res["models"]] == \
        pytest.approx([1 / 3, 2 / 3, 1 / 3])
    assert "deu" not in res                                # several models: no top-level one
    assert [x["key"] for x in res["results"]] == ["qh-table2", "qh-table13", "qh-table12",
                                                  "qh-paired"]
    page = tmp_path / "risk.html"
    r = run("risk", *args, "--report", page)
    assert r.returncode == 0, r.stderr[-2000:]
    head = next(line for line in r.stdout.splitlines() if "estimate" in line)
    assert head.index("m1") < head.index("m2") < head.index("m3")
    assert "Table 13" in r.stdout and "bound total ±" in r.stdout
    html = page.read_text()
    assert "Tables 1–2" in html and "Table 13" in html and "— m3" in html


@needs_cli
def test_cli_file_models_are_checked(tmp_path):
    paths = _write_utilities(tmp_path, named=False)
    args = [x for p in paths for x in ("--utilities", p)]
    out = tmp_path / "m.jsonl"
    r = run("risk", *args, "-o", out)                     # nothing names the models
    assert r.returncode == 2 and r.stdout == "" and not out.exists()
    assert len(r.stderr.strip().splitlines()) == 1 and "--model" in r.stderr
    r = run("risk", *args, "--model", "m1", "--model", "m2")
    assert r.returncode == 2 and "once per --utilities file" in r.stderr
    r = run("risk", *args, "--model", "m1", "--model", "m1", "--model", "m3", "-o", out)
    assert r.returncode == 2 and "second file of model 'm1'" in r.stderr and not out.exists()
    r = run("risk", *args, "--model", "a", "--model", "b", "--model", "c", "--json", "-o", out)
    assert r.returncode == 0, r.stderr[-2000:]
    assert [m["model"] for m in json.loads(r.stdout)["models"]] == ["a", "b", "c"]
    matrix = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(m["model"], m["id"]) for m in matrix][:4] == [("a", "a"), ("a", "b"), ("a", "c"),
                                                         ("b", "a")]
    (tmp_path / "named").mkdir()
    named = _write_utilities(tmp_path / "named", named=True)
    r = run("risk", "--utilities", named[0], "--model", "other")
    assert r.returncode == 2 and f"{named[0]}:1:" in r.stderr and "'m1'" in r.stderr


@needs_cli
def test_cli_several_answers_files_of_a_generated_suite(tmp_path):
    """Three models answer the same prompts twice each: ``gold`` the gold answer both
    times, ``junk`` an unreadable text both times, ``half`` gold then junk. On prompts
    whose design is not the no-hatch hard one (where an unreadable answer to an infeasible
    instance is not wrong), junk is never correct: DEU 1, 0, 1/2; RVR (REU = 1) 0, 1, 1/2;
    best-of-2 REU 1, 0, 1; parse-failure rate 0, 1, 1/2."""
    b = tmp_path / "b"
    r = run("generate", "indeterminacy-algorithmic", "-o", b, "--per-cell", "1", "--sizes", "10")
    assert r.returncode == 0, r.stderr[-2000:]
    prompts = [json.loads(x) for x in (b / "prompts.jsonl").read_text().splitlines()]
    prompts = [p for p in prompts if p["cell"].get("design") != "hard"]
    assert len(prompts) >= 10
    junk = "xyzzy plugh"
    for name, pair in (("gold", (True, True)), ("junk", (False, False)), ("half", (True, False))):
        (tmp_path / f"{name}.jsonl").write_text("".join(
            json.dumps({"id": p["id"], "answer": p["answer"] if g else junk}) + "\n"
            for p in prompts for g in pair))
    files = [tmp_path / f"{n}.jsonl" for n in ("gold", "junk", "half")]
    r = run("risk", b / "prompts.jsonl", *files, "--model", "gold", "--model", "junk",
            "--model", "half", "--json", "--by", "size")
    assert r.returncode == 0, r.stderr[-2000:]
    res = {m["model"]: m for m in json.loads(r.stdout)["models"]}
    hand = {"gold": (1, 0, 1, 0), "junk": (0, 1, 0, 1), "half": (0.5, 0.5, 1, 0.5)}
    for m, (deu, rvr, best, fail) in hand.items():
        assert res[m]["M"] == len(prompts) and res[m]["K"] == 2
        assert res[m]["deu"] == pytest.approx(deu)
        assert res[m]["readings"]["certified"]["rvr"] == pytest.approx(rvr)
        assert res[m]["readings"]["best_of_k"]["reu"] == pytest.approx(best)
        assert res[m]["parse_failure_rate"] == pytest.approx(fail)
    keys = [x["key"] for x in json.loads(r.stdout)["results"]]
    assert keys == ["qh-table2", "qh-table13", "qh-table16", "qh-table12", "qh-paired"]


@needs_cli
def test_cli_inspect_logs_of_two_models(tmp_path):
    """Two mock models' logs of the same two prompts, two epochs each: ``mockllm/good``
    answers gold every time (DEU 1, RVR 0), ``mockllm/bad`` a wrong answer every time
    (DEU 0, RVR (REU = 1) 1, best-of-2 REU 0). The logs are grouped by their model."""
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from prefcert.bench.dataset import SuiteDataset
    suite = "voting-manipulation"
    ds = SuiteDataset(suite, sizes=[3], per_cell=1)
    gold = {ds[i]["question"]: ds[i]["answer"] for i in range(2)}

    def output(text):
        o = ModelOutput.from_content(model="mockllm", content=text)
        o.usage = ModelUsage(input_tokens=10, output_tokens=len(text),
                             total_tokens=10 + len(text))
        return o
    for name, right in (("good", True), ("bad", False)):
        model = get_model(f"mockllm/{name}", custom_outputs=lambda messages, tools, tc, cfg,
                          right=right: output(gold[messages[0].text] if right
                                              else "<answer>zzz</answer>"))
        (log,) = inspect_eval(f"prefcert/{suite}", model=model,
                              log_dir=str(tmp_path / name), display="none",
                              task_args={"sizes": 3, "per_cell": 1}, limit=2, epochs=2,
                              max_connections=1, max_samples=1)
        assert log.status == "success"
    r = run("risk", tmp_path / "good", tmp_path / "bad", "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    res = {m["model"]: m for m in json.loads(r.stdout)["models"]}
    assert set(res) == {"mockllm/good", "mockllm/bad"}
    assert (res["mockllm/good"]["M"], res["mockllm/good"]["K"]) == (2, 2)
    assert res["mockllm/good"]["deu"] == 1 and res["mockllm/bad"]["deu"] == 0
    assert res["mockllm/bad"]["readings"]["certified"]["rvr"] == 1
    assert res["mockllm/bad"]["readings"]["best_of_k"]["reu"] == 0
    r = run("risk", tmp_path / "good", "--model", "x")
    assert r.returncode == 2 and "a log names its model" in r.stderr
