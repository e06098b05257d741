"""Ford et al.'s result sets over several models (issue 22): hand-made answers of three fake
models to a hand-made design, every expected value worked out by hand below.

The design (two domains d1, d2, one utterance each; the same shape in both):
offers a = (x, $10), m = (z, $11), b = (y, $12); pair cells ab, am, mb (one endpoint pair
ab with the path a → m → b), item cells ix, iy; and, in d1, a stress path of k = 2 over
three stress-only cells (sd = a → b, s1 = a → m, s2 = m → b).

With prices moved across (r = Ȳ + q − p: ab +2, am +1, mb +1) the five observations of a
group have a two-dimensional cycle space, spanned by C1 = ab − am − mb (the P1 cycle) and
C2 = ab − iy + ix (the P2 cycle); C·Cᵀ = [[3, 1], [1, 3]], so the least-squares SSE is
(3 d1² − 2 d1 d2 + 3 d2²) / 8 with d1 = r_ab − r_am − r_mb, d2 = r_ab − r_iy + r_ix.

Models (cell means; completions in brackets):
- ``exact``: u(x) = 20, u(z) = 22, u(y) = 25: ab 3 [−1, 7], am 1 [1, 1], mb 2 [2, 2],
  ix 20 [20, 20], iy 25 [25, 25]: d1 = d2 = 0, RMSE 0. The ab completions disagree in
  sign, so the pair (x@10, y@12) has no majority judgment.
- ``skew``: as exact but ab [3, 3] and am 5 [4.7, 5, 5.3] (raw texts, one "about $5.30"
  not number-only) and one unparseable item answer "no idea": d1 = 5 − 6 − 3 = −4,
  d2 = 0, SSE = 3·16/8 = 6, RMSE = √(6/5) = 1.095445 (5 cells), price scale (10 + 12 +
  10 + 11 + 11 + 12)/6 = 11, RMSE % = 9.958591.
- ``reversal``: ab [3, 3], am −4 [−4.3, −4, −3.7]: d1 = 5 + 3 − 3 = 5, SSE = 3·25/8 =
  9.375, RMSE = √1.875 = 1.369306, RMSE % = 12.448237. The path sum −4 + 2 = −2 < 0 while
  the direct 3 > 0: a supported reversal.
In d2 all three answer like ``exact`` with every completion equal (RMSE 0).
"""
from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
from functools import partial
import pytest

from prefcert.bench.self_consistency.audit import (
    consistency_audit,
    judgment_counts,
    read_responses,
)
from prefcert.bench.self_consistency.results import audit_results, pvalue_text
from conftest import cli, PREFCERT

needs_cli = pytest.mark.skipif(PREFCERT is None, reason="console script not installed")
B = 199                      # resamples: the floor 1/(B+1) = 1/200 = 0.005 < 0.05/6


def _design() -> dict:
    cells, pairs = {}, []
    for d in ("d1", "d2"):
        def pair(cid, a, b, **kw):
            cells[f"{d}-{cid}"] = {"domain": d, "utterance_id": "1", "type": "pair",
                                   "a": {"item": a[0], "price": a[1]},
                                   "b": {"item": b[0], "price": b[1]}, **kw}
        a, m, b = ("x", 10), ("z", 11), ("y", 12)
        pair("ab", a, b)
        pair("am", a, m)
        pair("mb", m, b)
        for it in ("x", "y"):
            cells[f"{d}-i{it}"] = {"domain": d, "utterance_id": "1", "type": "item", "item": it}
        pairs.append({"id": f"{d}-p", "direct": f"{d}-ab", "paths": [[f"{d}-am", f"{d}-mb"]],
                      "items": [f"{d}-ix", f"{d}-iy"]})
    for cid, a, b in (("sd", ("x", 10), ("y", 12)), ("s1", ("x", 10), ("z", 11)),
                      ("s2", ("z", 11), ("y", 12))):
        cells[cid] = {"domain": "d1", "utterance_id": "s", "type": "pair", "stress": True,
                      "a": {"item": a[0], "price": a[1]}, "b": {"item": b[0], "price": b[1]}}
    return {"cells": cells, "pairs": pairs,
            "stress_paths": [{"id": "sp", "k": 2, "direct": "sd", "steps": ["s1", "s2"]}]}


EXACT_D2 = {"ab": [3, 3], "am": [1, 1], "mb": [2, 2], "ix": [20, 20], "iy": [25, 25]}
D1 = {
    "exact": {"ab": [-1, 7], "am": [1, 1], "mb": [2, 2], "ix": [20, 20], "iy": [25, 25]},
    "skew": {"ab": [3, 3], "am": ["$4.70", "5", "about $5.30"], "mb": [2, 2],
             "ix": ["$20", "20", "no idea"], "iy": [25, 25]},
    "reversal": {"ab": [3, 3], "am": [-4.3, -4, -3.7], "mb": [2, 2], "ix": [20, 20],
                 "iy": [25, 25]},
}
STRESS = {"exact": {"sd": 3, "s1": 1, "s2": 2}, "skew": {"sd": 3, "s1": 5, "s2": 2},
          "reversal": {"sd": 3, "s1": -4, "s2": 2}}


def _rows(model: str) -> list[tuple[str, object]]:
    out = [(f"d1-{c}", v) for c, vs in D1[model].items() for v in vs]
    out += [(f"d2-{c}", v) for c, vs in EXACT_D2.items() for v in vs]
    out += [(c, v) for c, v in STRESS[model].items() for _ in range(2)]
    return out


def _files(tmp_path):
    """exact.jsonl (rows name their model), skew.csv (raw texts, no model column),
    reversal.jsonl (no model field)."""
    (tmp_path / "design.json").write_text(json.dumps(_design()))
    (tmp_path / "exact.jsonl").write_text("".join(
        json.dumps({"model": "exact", "cell_id": c, "parsed_value": v}) + "\n"
        for c, v in _rows("exact")))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["cell_id", "raw_text"])
    w.writerows([c, str(v)] for c, v in _rows("skew"))
    (tmp_path / "skew.csv").write_text(buf.getvalue())
    (tmp_path / "reversal.jsonl").write_text("".join(
        json.dumps({"cell_id": c, "parsed_value": v}) + "\n" for c, v in _rows("reversal")))
    return [tmp_path / n for n in ("exact.jsonl", "skew.csv", "reversal.jsonl")]


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    d = tmp_path_factory.mktemp("rc")
    files = _files(d)
    rows = []
    for f, m in zip(files, ("exact", "skew", "reversal")):
        rows += read_responses(f, model=m)
    return consistency_audit(rows, _design(), resamples=B)


def _sets(audit) -> dict:
    return {rs.key: rs for rs in audit_results(audit)}


def _value(rs, **where):
    hits = [r for r in rs.rows if all(r.get(k) == v for k, v in where.items())]
    assert len(hits) == 1, (where, hits)
    return hits[0]


def test_table2_per_model_and_domain(audit):
    t2 = _sets(audit)["ford-table2"]
    assert t2.models() == ["exact", "skew", "reversal"]
    hand = {("exact", "$"): 0.0, ("exact", "%"): 0.0,
            ("skew", "$"): 1.095445, ("skew", "%"): 9.958591,
            ("reversal", "$"): 1.369306, ("reversal", "%"): 12.448237}
    for (m, unit), v in hand.items():
        assert _value(t2, model=m, domain="d1", unit=unit)["value"] == pytest.approx(v, abs=1e-5)
        assert _value(t2, model=m, domain="d2", unit=unit)["value"] == pytest.approx(0, abs=1e-9)


def test_rmse_against_statsmodels_ols():
    """The skew group's SSE 6 is the OLS residual sum of squares statsmodels fits."""
    sm = pytest.importorskip("statsmodels.api")
    a = np.array([[-1, 0, 1], [-1, 1, 0], [0, -1, 1], [1, 0, 0], [0, 0, 1]], float)  # x, z, y
    r = np.array([3 + 2, 5 + 1, 2 + 1, 20, 25], float)
    fit = sm.OLS(r, a).fit()
    assert fit.ssr == pytest.approx(6.0)
    assert math.sqrt(fit.ssr / 5) == pytest.approx(1.095445, abs=1e-6)


def test_parseability_counts_the_elicitation_calls_only(audit):
    """Per model 10 audit cells × 2 completions = 20 calls; reversal has a third am
    answer (21); skew a third am answer and an unparseable ix answer (22 calls, 21 finite,
    20 number-only — "about $5.30" is not). The 6 stress calls of each model are apart."""
    t6 = _sets(audit)["ford-table6"]
    hand = {"exact": (20, 20, 20), "skew": (22, 21, 20), "reversal": (21, 21, 21)}
    for m, (calls, finite, only) in hand.items():
        assert _value(t6, model=m, measure="calls")["value"] == calls
        assert _value(t6, model=m, measure="finite parse")["value"] == finite
        assert _value(t6, model=m, measure="number-only")["value"] == only
        assert _value(t6, model=m, measure="finite parse")["n"] == calls
    assert audit["parse_stress"] == [{"model": m, "calls": 6, "finite": 6, "number_only": 6}
                                     for m in ("exact", "skew", "reversal")]


def test_table3_and_table8_local_audit(audit):
    """P1 residuals in d1: exact 0 (interval ±t₁·4 around 0), skew −4 with standard error
    √(0.09/3) = 0.1732 (t₂ interval [−4.745, −3.255], excludes 0), reversal +5 (same
    error); in d2 every residual is 0 with no spread. Reversal: direct [3, 3] > 0, path
    −2 ± 0.745 < 0. P2: 0 everywhere. Lower bounds of |R| / 11: skew 3.255/11 = 0.296,
    reversal 4.255/11 = 0.387, both ≥ 0.25."""
    sets = _sets(audit)
    t3, t8 = sets["ford-table3"], sets["ford-table8"]
    hand = {"exact": (0, 0, 0, 0), "skew": (0, 1, 1, 1), "reversal": (1, 1, 1, 1)}
    names = ("supported reversal", "residual CI excludes 0", "Holm rejection",
             "lower bound ≥ 25% of price")
    for m, counts in hand.items():
        for name, k in zip(names, counts):
            row = _value(t3, model=m, kind="P1", measure=name)
            assert (row["k"], row["n"], row["value"]) == (k, 2, k / 2), (m, name)
            assert _value(t8, model=m, kind="P1", domain="d1", measure=name)["k"] == k
            assert _value(t8, model=m, kind="P1", domain="d2", measure=name)["k"] == 0
            assert _value(t3, model=m, kind="P2", measure=name)["k"] == 0
    from scipy import stats
    half = stats.t.ppf(0.975, 2) * math.sqrt(0.09 / 3)
    skew = next(c for c in audit["comparisons"]
                if c["model"] == "skew" and c["kind"] == "P1" and c["domain"] == "d1")
    assert skew["residual_ci"] == pytest.approx([-4 - half, -4 + half])
    assert skew["lower_bound_normalised"] == pytest.approx((4 - half) / 11)


def test_threshold_curves_are_per_model(audit):
    sets = _sets(audit)
    f3 = sets["ford-fig3-p1"]
    obs = {m: {r["t"]: r["value"] for r in f3.rows if r["model"] == m and r["curve"] == "observed"}
           for m in f3.models()}
    lb = {m: {r["t"]: r["value"] for r in f3.rows
              if r["model"] == m and r["curve"] == "95% lower bound"} for m in f3.models()}
    # |R|/11: exact 0, 0; skew 0.364, 0; reversal 0.455, 0 (d1, d2)
    assert (obs["exact"][0.0], obs["exact"][0.05]) == (1.0, 0.0)
    assert (obs["skew"][0.3], obs["skew"][0.4]) == (0.5, 0.0)
    assert (obs["reversal"][0.4], obs["reversal"][0.5]) == (0.5, 0.0)
    # lower bounds: skew 0.296, reversal 0.387
    assert (lb["skew"][0.25], lb["skew"][0.3]) == (0.5, 0.0)
    assert (lb["reversal"][0.3], lb["reversal"][0.4]) == (0.5, 0.0)
    assert sets["ford-fig3-p2"].figure is not None


def test_table9_p_values_at_the_floor_and_bonferroni(audit):
    """skew and reversal in d1: no resample of am's ±0.3 residuals (T* ≤ 3·0.367²/8 =
    0.05) reaches SSE 6 or 9.375, so p = 1/(B+1) = 1/200, printed "< 1/200"; every other
    group fits exactly (p = 1). Bonferroni at 0.05/6 = 0.0083 rejects those two."""
    sets = _sets(audit)
    t9 = sets["ford-table9"]
    for m in ("skew", "reversal"):
        row = _value(t9, model=m, domain="d1", utterance="1", measure="bootstrap p")
        assert row["value"] == "< 1/200" and row["pvalue"] == pytest.approx(1 / 200)
    assert _value(t9, model="exact", domain="d1", utterance="1", measure="bootstrap p")["value"] == 1.0
    rej = sets["ford-groups-rejected"]
    assert {(r["model"], r["domain"]): r["value"] for r in rej.rows} == {
        ("exact", "d1"): 0, ("exact", "d2"): 0, ("skew", "d1"): 1, ("skew", "d2"): 0,
        ("reversal", "d1"): 1, ("reversal", "d2"): 0}
    assert pvalue_text(0.005, 199) == "< 1/200" and pvalue_text(0.01, 199) == 0.01


def test_stress_table_per_model(audit):
    """d1, k = 2: |3 − (s1 + 2)| / 11 · 100: exact 0, skew 36.36, reversal 45.45."""
    t7 = _sets(audit)["ford-table7"]
    for m, v in (("exact", 0.0), ("skew", 400 / 11), ("reversal", 500 / 11)):
        row = _value(t7, model=m, domain="d1", k=2)
        assert row["value"] == pytest.approx(v) and row["n"] == 1


def test_judgments_count_the_judgment_graph(audit):
    """exact in d1: ab's completions −1 and 7 choose x@10 and y@12 once each (a tie: no
    majority judgment), am z@11 ≻ x@10 twice, mb y@12 ≻ z@11 twice: 2 majority
    judgments; under ``choices`` 6 choices on 4 arcs (the old field counted the 4 arcs).
    The other groups have 3 one-sided pairs: 3 judgments."""
    fas = {(g["model"], g["domain"]): g["certified"]["feedback_arc_set"] for g in audit["groups"]}
    assert (fas[("exact", "d1")]["judgments"], fas[("exact", "d1")]["judgment_arcs"]) == (2, 2)
    assert fas[("exact", "d1")]["value"] == 0
    for key, f in fas.items():
        if key != ("exact", "d1"):
            assert f["judgments"] == 3, key
    inst = next(i for i in audit["instances"] if i["id"] == "exact|d1|1")
    assert judgment_counts(inst, "choices") == {"judgments": 6, "judgment_arcs": 4}


# ---------------------------------------------------------------------------------- CLI

run = partial(cli, check=False)


@needs_cli
def test_cli_several_files_with_a_model_each(tmp_path):
    files = _files(tmp_path)
    page = tmp_path / "audit.html"
    args = [*files, "--design", tmp_path / "design.json", "--resamples", B,
            "--model", "exact", "--model", "skew", "--model", "reversal"]
    r = run("consistency", *args, "--json", "--no-certify")
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    keys = [x["key"] for x in out["results"]]
    assert keys == ["ford-table2", "ford-table9", "ford-groups-rejected", "ford-table3",
                    "ford-table8", "ford-fig3-p1", "ford-fig3-p2", "ford-table6", "ford-table7"]
    t6 = next(x for x in out["results"] if x["key"] == "ford-table6")
    assert {(x["model"], x["measure"]): x["value"] for x in t6["rows"]}[("skew", "calls")] == 22
    r = run("consistency", *args, "--no-certify", "--report", page)
    assert r.returncode == 0, r.stderr[-2000:]
    text = " ".join(r.stdout.split())
    assert "< 1/200" in text and "Ford et al. (2026), Table 2" in text
    head = next(line for line in r.stdout.splitlines() if "domain" in line and "unit" in line)
    assert head.index("exact") < head.index("skew") < head.index("reversal")
    html = page.read_text()
    for title in ("Table 2", "Fig. 3 (P1)", "Fig. 3 (P2)", "Table 7 and Fig. 4", "Table 6",
                  "Local audit: supported reversals and rejections, per model, kind and domain"):
        assert title in html, title
    assert "1 (50.0%)" in html                 # a count with its percentage, per domain too
    assert "<td>d1</td>" in html


@needs_cli
def test_cli_model_options_are_checked(tmp_path):
    files = _files(tmp_path)
    out = tmp_path / "audit.json"
    r = run("consistency", *files, "--design", tmp_path / "design.json", "--model", "exact",
            "-o", out)
    assert r.returncode == 2 and r.stdout == "" and not out.exists()
    assert len(r.stderr.strip().splitlines()) == 1 and "once per RESPONSES file" in r.stderr
    r = run("consistency", files[0], "--design", tmp_path / "design.json", "--model", "other",
            "-o", out)
    assert r.returncode == 2 and not out.exists()
    assert f"{files[0]}:1:" in r.stderr and "'exact'" in r.stderr
    r = run("consistency", files[2], "--design", tmp_path / "design.json", "-o", out)
    assert r.returncode == 2 and f"{files[2]}:1:" in r.stderr and "--model" in r.stderr
    r = run("consistency", files[0], files[0], "--design", tmp_path / "design.json")
    assert r.returncode == 2 and "twice" in r.stderr
