"""The self-consistency audit on synthetic data of known truth: exactly consistent answers,
a known utility plus noise, planted inconsistencies with a known repair cost, the Table-2
arithmetic of the paper, the bootstrap resolution against Bonferroni, and the CLI."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
from functools import partial
import pytest
from prefcert.formal.errors import InstanceError
from prefcert.generators.consistency import paper_design, simulate_responses

from prefcert.bench.self_consistency.audit import (
    AuditOptions,
    auto_resamples,
    consistency_audit,
    parse_amount,
    parse_design,
    read_responses,
    resample_means,
)
from conftest import cli, PREFCERT



def rows_of(sim):
    return [{"model": r["model"], "cell_id": r["cell_id"], "value": r["parsed_value"],
             "number_only": r["number_only"]} for r in sim]


@pytest.fixture(scope="module")
def design():
    return paper_design(0)


@pytest.fixture(scope="module")
def exact_audit(design):
    sim = simulate_responses(design, {"exact": {}}, completions=3)
    return consistency_audit(rows_of(sim), design, resamples=300)


def test_the_design_has_the_papers_counts(design):
    audit = [c for c in design["cells"].values() if not c.get("stress")]
    assert len(audit) == 300
    assert sum(c["type"] == "pair" for c in audit) == 240
    assert sum(c["type"] == "item" for c in audit) == 60
    assert len(design["pairs"]) == 48
    by = {d: sum(1 for c in audit if c["domain"] == d) for d in ("flights", "apartments", "hotels")}
    assert by == {"flights": 114, "apartments": 117, "hotels": 69}      # Table 1
    assert sorted({s["k"] for s in design["stress_paths"]}) == [1, 2, 4, 8, 16]


def test_exactly_consistent_answers(exact_audit, design):
    a = exact_audit
    assert len(a["groups"]) == 9
    for g in a["groups"]:
        assert g["rmse"] == pytest.approx(0, abs=1e-9)
        assert g["pvalue"] == 1.0 and not g["reject_bonferroni"]
        truth = design["truth"][g["domain"]]
        for x, u in g["utilities"].items():
            assert u == pytest.approx(truth[x], abs=1e-6)
        cert = g["certified"]
        assert cert["l1_repair"]["cost"] == "0" and cert["l2_repair"]["cost"] == "0"
        assert all(v["checked"] for v in cert.values())
        assert cert["transitive"]["verdict"] == "true"
        assert cert["feedback_arc_set"]["value"] == 0
    assert len(a["comparisons"]) == 96 + 48                              # P1 n = 96, P2 n = 48
    for c in a["comparisons"]:
        assert c["residual"] == pytest.approx(0, abs=1e-9)
        assert not c["reject"] and not c["reversal"]
    assert [s["mean_pct"] for s in a["stress"]] == pytest.approx([0] * 5, abs=1e-9)
    assert a["settings"]["min_attainable_p"] == pytest.approx(1 / 301)     # B = 300
    assert a["settings"]["bonferroni_reachable"] is True                  # 1/301 < 0.05/9


def test_known_utility_plus_noise_is_recovered(design):
    sim = simulate_responses(design, {"noisy": {"noise": 10}}, seed=4)
    a = consistency_audit(rows_of(sim), design, resamples=2000, certify=False)
    worst = max(abs(u - design["truth"][g["domain"]][x]) for g in a["groups"]
                for x, u in g["utilities"].items())
    # every item is anchored by its own 15 answers and by pair cells: SE ≈ 10/√15 ≈ 2.6
    assert worst < 8
    covered = [g["utility_ci"][x][0] <= design["truth"][g["domain"]][x] <= g["utility_ci"][x][1]
               for g in a["groups"] for x in g["utilities"]]
    assert sum(covered) / len(covered) > 0.8
    # consistent in expectation: the null holds, and 2000 resamples can reach 0.05/9
    assert not any(g["reject_bonferroni"] for g in a["groups"])
    assert all(0 < g["rmse"] < 10 for g in a["groups"])


def test_planted_inconsistencies_give_the_planted_repair_cost(design):
    """Offsets δ on pair cells whose items are pairwise disjoint, each item also queried
    on its own: fixing the planted cells costs Σ|δ|, and a circulation sending sign(δ)
    round the triangle (planted cell, item cell of y backwards, item cell of x) proves no
    repair is cheaper, so the minimum L1 adjustment is exactly Σ|δ|."""
    group = [(cid, c) for cid, c in design["cells"].items()
             if c["domain"] == "flights" and c["utterance_id"] == "1" and c["type"] == "pair"]
    used, planted, deltas = set(), {}, iter([17, -23, 40])
    for cid, c in group:
        x, y = c["a"]["item"], c["b"]["item"]
        if x != y and not {x, y} & used and len(planted) < 3:
            used |= {x, y}
            planted[cid] = next(deltas)
    assert len(planted) == 3
    sim = simulate_responses(design, {"m": {}}, completions=2, plant={"m": planted})
    a = consistency_audit(rows_of(sim), design, resamples=200)
    g = next(g for g in a["groups"] if g["domain"] == "flights" and g["utterance_id"] == "1")
    assert Fraction(g["certified"]["l1_repair"]["cost"]) == sum(abs(d) for d in planted.values())
    assert g["certified"]["l1_repair"]["checked"]
    # the L2 repair is the least-squares lack of fit: n · RMSE² (floats vs exact rationals)
    assert float(Fraction(g["certified"]["l2_repair"]["cost"])) == pytest.approx(
        g["cells"] * g["rmse"] ** 2, rel=1e-9)
    others = [x for x in a["groups"] if x is not g]
    assert all(x["certified"]["l1_repair"]["cost"] == "0" for x in others)
    direct = {c["direct_cell"]: c for c in a["comparisons"] if c["kind"] == "P2"}
    for cid, d in planted.items():
        if cid in direct:
            assert direct[cid]["residual"] == pytest.approx(d)


def _triangle_design(groups: dict) -> tuple[dict, list[dict]]:
    """Per (model, domain, utterance): three offer-pair cells round a triangle x → y → z,
    x → z, all offers at the price S; answers d, 0, 0. The cycle misses by d, least squares
    spreads it as d/3 over the three cells, so the group RMSE (divisor n = 3) is d/3."""
    cells, rows = {}, []
    for (model, dom, utt), (rmse, scale) in groups.items():
        for name, a, b, v in (("xy", "x", "y", 3 * rmse), ("yz", "y", "z", 0), ("xz", "x", "z", 0)):
            cid = f"{dom}-{utt}-{name}"
            cells[cid] = {"domain": dom, "utterance_id": utt, "type": "pair",
                          "a": {"item": a, "price": scale}, "b": {"item": b, "price": scale}}
            rows.append({"model": model, "cell_id": cid, "value": v})
    return {"cells": cells}, rows


def test_table2_is_the_mean_of_three_per_utterance_rmses():
    """The digest's worked arithmetic: Claude apartments (28.2 + 52.3 + 34.5) / 3 = 38.3
    and (1.2 + 2.2 + 1.5) / 3 = 1.6 %; GPT-OSS flights 10.9 and 3.0 %; Claude flights 16.9
    and 4.6 % (Table 2 from the rows of Tables 9 and 10)."""
    spec = {("claude", "apartments", u): (r, 2350) for u, r in zip("123", (28.2, 52.3, 34.5))}
    spec |= {("gpt-oss", "flights", u): (r, 365) for u, r in zip("123", (9.5, 12.1, 11.1))}
    spec |= {("claude", "flights", u): (r, 368) for u, r in zip("123", (10.7, 26.5, 13.5))}
    design, rows = _triangle_design(spec)
    a = consistency_audit(rows, design, resamples=100, certify=False)
    per = {(g["model"], g["domain"], g["utterance_id"]): g for g in a["groups"]}
    assert [round(per[("claude", "apartments", u)]["rmse"], 1) for u in "123"] == [28.2, 52.3, 34.5]
    assert [round(per[("claude", "apartments", u)]["rmse_pct"], 1) for u in "123"] == [1.2, 2.2, 1.5]
    assert [round(per[("gpt-oss", "flights", u)]["rmse_pct"], 1) for u in "123"] == [2.6, 3.3, 3.0]
    t2 = {(t["model"], t["domain"]): t for t in a["table2"]}
    assert (round(t2[("claude", "apartments")]["rmse"], 1),
            round(t2[("claude", "apartments")]["rmse_pct"], 1)) == (38.3, 1.6)
    assert (round(t2[("gpt-oss", "flights")]["rmse"], 1),
            round(t2[("gpt-oss", "flights")]["rmse_pct"], 1)) == (10.9, 3.0)
    assert (round(t2[("claude", "flights")]["rmse"], 1),
            round(t2[("claude", "flights")]["rmse_pct"], 1)) == (16.9, 4.6)
    assert all(t["groups"] == 3 for t in a["table2"])


def test_bonferroni_threshold_needs_enough_resamples():
    spec = {(f"m{i}", d, u): (5.0, 100) for i in range(6)
            for d in ("flights", "apartments", "hotels") for u in "123"}
    design, rows = _triangle_design(spec)
    low = consistency_audit(rows, design, resamples=1000, certify=False)["settings"]
    assert low["groups"] == 54
    assert low["bonferroni_threshold"] == pytest.approx(0.05 / 54)
    assert low["min_attainable_p"] == pytest.approx(1 / 1001)
    assert low["min_attainable_p"] > low["bonferroni_threshold"]
    assert not low["bonferroni_reachable"] and "no group can be rejected" in low["warning"]
    assert auto_resamples(54, 0.05) == 10_800
    assert 1 / (auto_resamples(54, 0.05) + 1) <= 0.05 / 54 / 10


def test_p1_p2_residuals_reversals_and_magnitude_bounds():
    """a = (x, 100), b = (y, 100), m = (z, 100). Direct answers +20, path a → m → b says
    −10 + −15 = −25; items say u(y) − u(x) = 60 − 100 = −40. Both constructions oppose
    the direct answer, with narrow intervals: supported reversals."""
    off = lambda i: {"item": i, "price": 100}
    base = {"domain": "d", "utterance_id": "1"}
    design = {"cells": {
        "ab": dict(base, type="pair", a=off("x"), b=off("y")),
        "am": dict(base, type="pair", a=off("x"), b=off("z")),
        "mb": dict(base, type="pair", a=off("z"), b=off("y")),
        "ix": dict(base, type="item", item="x"), "iy": dict(base, type="item", item="y")},
        "pairs": [{"id": "p", "direct": "ab", "paths": [["am", "mb"]], "items": ["ix", "iy"]}]}
    vals = {"ab": [19, 20, 21], "am": [-10, -9, -11], "mb": [-15, -14, -16],
            "ix": [100, 99, 101], "iy": [60, 61, 59]}
    rows = [{"model": "m", "cell_id": c, "value": v} for c, vs in vals.items() for v in vs]
    for interval in ("percentile", "t"):
        a = consistency_audit(rows, design, resamples=4000, interval=interval, certify=False)
        p1 = next(c for c in a["comparisons"] if c["kind"] == "P1")
        p2 = next(c for c in a["comparisons"] if c["kind"] == "P2")
        assert p1["residual"] == pytest.approx(20 - (-25))
        assert p2["residual"] == pytest.approx(20 - ((60 - 100) - (100 - 100)))
        assert p1["reject"] and p1["reversal"] and p2["reject"] and p2["reversal"]
        assert p2["scale"] == 100 and p2["normalised"] == pytest.approx(0.6)
        assert p2["lower_bound"] > 25 and p2["exceeds_threshold"]
        lo, hi = p1["residual_ci"]
        assert lo < 45 < hi and hi - lo < 6


def test_resampled_means_have_the_variance_of_the_observed_mean():
    """Regression: the residuals were resampled as they are, so the resampled mean of n
    completions had variance (1/n)·(1/n)Σ(y − ȳ)² = (n − 1)/n · s²/n. Modified residuals
    (scaled by √(n/(n − 1))) give s²/n, the unbiased variance of the observed mean."""
    y = np.array([3.0, 7, 8, 12, 15, 20, 21, 30, 31, 40, 41, 45, 60, 61, 90])
    n, s2 = len(y), float(np.var(y, ddof=1))
    b = 400_000
    mod, _ = resample_means(y, b, np.random.default_rng(1))
    plain, _ = resample_means(y, b, np.random.default_rng(1), residuals="centred")
    assert np.var(mod) == pytest.approx(s2 / n, rel=0.02)
    assert np.var(plain) == pytest.approx((n - 1) / n * s2 / n, rel=0.02)
    assert np.mean(mod) == pytest.approx(0, abs=0.05)
    _, ss = resample_means(y, 1000, np.random.default_rng(2), want_ss=True)
    _, ss_plain = resample_means(y, 1000, np.random.default_rng(2), want_ss=True,
                                 residuals="centred")
    assert ss == pytest.approx(n / (n - 1) * ss_plain)       # the same draws, rescaled


@pytest.mark.heavy
def test_tests_hold_their_level_on_a_consistent_model(design):
    """A consistent model (the design's true utilities plus $20 of noise, rounded to whole
    dollars, 15 completions a cell): every null holds. The group test rejects at most at
    its level and its p-values are uniform (the plain bootstrap rejected 8.1 % at
    α = 0.05 over 200 datasets, KS p ≈ 2·10⁻¹³); the default P1 / P2 intervals exclude 0 at most 5 % of the
    time (the percentile intervals of the plain bootstrap: 6.7 %); Holm keeps each
    model's family below α. The full run is ``benchmarks/bench_consistency_size.py``."""
    from conftest import heavy_examples
    from scipy import stats
    plain = {k: v for k, v in design.items() if k != "truth"}
    datasets = heavy_examples(110, 35)
    ps, local, fwer = [], {"P1": [], "P2": []}, 0
    for s in range(datasets):
        sim = simulate_responses(design, {"m": {"noise": 20}}, completions=15, seed=1000 + s)
        a = consistency_audit(rows_of(sim), plain, resamples=999, certify=False, seed=s)
        ps += [g["pvalue"] for g in a["groups"]]
        for kind in local:
            local[kind] += [c["reject"] for c in a["comparisons"] if c["kind"] == kind]
        fwer += any(c["reject_holm"] for c in a["comparisons"] if c["kind"] == "P1")

    def within(rate, n):
        return abs(rate - 0.05) <= max(0.015, 3 * math.sqrt(0.05 * 0.95 / n))
    size = float(np.mean(np.array(ps) <= 0.05))
    assert within(size, len(ps)), size
    assert stats.kstest(ps, "uniform").pvalue > 1e-3
    for kind, rejects in local.items():
        rate = float(np.mean(rejects))
        assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / len(rejects)), (kind, rate)
    assert fwer / datasets <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / datasets)


def test_local_p_values_and_holm_by_hand():
    """One pair, two paths and the item cells. P1 via path k: R = Ȳ(ab) − Ȳ(step 1) −
    Ȳ(step 2), its Welch variance Σ s²/n with Satterthwaite df, p = 2·P(T_df > |R|/se);
    the percentile p-value is 2·min(1 + #{R* ≤ 0}, 1 + #{R* ≥ 0})/(B + 1). Holm over the
    two P1 comparisons: the smaller p doubled, the larger kept (if not below it)."""
    from scipy import stats
    off = lambda i: {"item": i, "price": 100}
    base = {"domain": "d", "utterance_id": "1"}
    design = {"cells": {
        "ab": dict(base, type="pair", a=off("x"), b=off("y")),
        "am": dict(base, type="pair", a=off("x"), b=off("z")),
        "mb": dict(base, type="pair", a=off("z"), b=off("y")),
        "aw": dict(base, type="pair", a=off("x"), b=off("w")),
        "wb": dict(base, type="pair", a=off("w"), b=off("y")),
        "ix": dict(base, type="item", item="x"), "iy": dict(base, type="item", item="y")},
        "pairs": [{"id": "p", "direct": "ab", "paths": [["am", "mb"], ["aw", "wb"]],
                   "items": ["ix", "iy"]}]}
    vals = {"ab": [10, 14, 9, 12, 15], "am": [3, 5, 4, 8], "mb": [2, 1, 4, 3, 0, 2],
            "aw": [7, 1, 4, 6], "wb": [1, 6, 2, 3], "ix": [50, 55, 52], "iy": [58, 60, 57, 61]}
    rows = [{"model": "m", "cell_id": c, "value": v} for c, vs in vals.items() for v in vs]
    a = consistency_audit(rows, design, resamples=2000, certify=False)
    p1 = [c for c in a["comparisons"] if c["kind"] == "P1"]
    assert len(p1) == 2
    want = []
    for c, (s1, s2) in zip(p1, (("am", "mb"), ("aw", "wb"))):
        parts = [np.var(vals[k], ddof=1) / len(vals[k]) for k in ("ab", s1, s2)]
        dfs = [len(vals[k]) - 1 for k in ("ab", s1, s2)]
        var = sum(parts)
        df = var ** 2 / sum(p * p / d for p, d in zip(parts, dfs))
        r = np.mean(vals["ab"]) - np.mean(vals[s1]) - np.mean(vals[s2])
        assert c["residual"] == pytest.approx(r)
        want.append(2 * stats.t.sf(abs(r) / math.sqrt(var), df))
        assert c["pvalue"] == pytest.approx(want[-1])
        h = stats.t.ppf(0.975, df) * math.sqrt(var)
        assert c["residual_ci"] == pytest.approx([r - h, r + h])
    lo, hi = sorted(want)
    holm = {lo: min(1, 2 * lo), hi: max(min(1, 2 * lo), hi)}
    assert [c["pvalue_holm"] for c in p1] == pytest.approx([holm[p] for p in want])
    row = next(x for x in a["local"] if x["kind"] == "P1" and x["domain"] is None)
    assert row["rejects_holm"] == sum(holm[p] <= 0.05 for p in want)
    pct = consistency_audit(rows, design, resamples=2000, certify=False, interval="percentile")
    for c in pct["comparisons"]:
        lo_, hi_ = c["residual_ci"]
        # dual to the interval: p < 0.05 exactly when the 95 % interval excludes 0 (up to
        # the resolution 2/(B + 1) of the bootstrap p-value)
        if c["pvalue"] < 0.045 or c["pvalue"] > 0.055:
            assert (c["pvalue"] < 0.05) == (not lo_ <= 0 <= hi_)


def test_warns_when_holm_cannot_reject_a_percentile_p_value(design):
    """A percentile p-value is at least 2/(B + 1); Holm's first step needs p ≤ α/m. The
    paper's design gives one model 96 P1 comparisons, so B = 999 (2/1000 > 0.05/96) can
    reject none and B = 3839 (= 2·96/0.05 − 1) is the least that can."""
    sim = simulate_responses(design, {"m": {"noise": 20}}, completions=3, seed=3)
    plain = {k: v for k, v in design.items() if k != "truth"}
    for b, warned in ((999, True), (3839, False)):
        a = consistency_audit(rows_of(sim), plain, resamples=b, certify=False,
                              interval="percentile")
        assert ("Holm cannot reject any of 96 comparisons; use at least 3839 resamples"
                in a["settings"].get("warning", "")) == warned
        if warned:
            assert not any(c["reject_holm"] for c in a["comparisons"])
    a = consistency_audit(rows_of(sim), plain, resamples=999, certify=False)   # t intervals
    assert "Holm" not in a["settings"].get("warning", "")


def test_stress_residuals_accumulate_the_per_answer_bias(design):
    """Every offer-pair answer exceeds the truth by b: R₁,ₖ = (truth + b) − (truth + k b)
    = −(k − 1) b, so the mean of 100 |R| / ((p + q) / 2) over the paths is known exactly."""
    sim = simulate_responses(design, {"m": {"step_bias": 6, "round": 0}}, completions=2)
    a = consistency_audit(rows_of(sim), design, resamples=200, certify=False)
    for s in a["stress"]:
        paths = [p for p in design["stress_paths"] if p["k"] == s["k"]]
        expect = sum(100 * (s["k"] - 1) * 6 / ((design["cells"][p["direct"]]["a"]["price"] +
                                               design["cells"][p["direct"]]["b"]["price"]) / 2)
                     for p in paths) / len(paths)
        assert s["mean_pct"] == pytest.approx(expect)
    ks = {s["k"]: s["mean_pct"] for s in a["stress"]}
    assert ks[1] == 0 and ks[2] < ks[4] < ks[8] < ks[16]


def test_fit_readings(design):
    sim = simulate_responses(design, {"m": {"noise": 6, "distortion": 8, "fail": 0.02}}, seed=2)
    rows = rows_of(sim)
    base = consistency_audit(rows, design, resamples=200, certify=False)
    comp = consistency_audit(rows, design, resamples=200, certify=False, fit="completions")
    dof = consistency_audit(rows, design, resamples=200, certify=False, rmse_divisor="dof")
    wls = consistency_audit(rows, design, resamples=200, certify=False, fit="wls")
    pairs = consistency_audit(rows, design, resamples=200, certify=False, price_scale="pairs")
    for g, c, d, w, p in zip(base["groups"], comp["groups"], dof["groups"], wls["groups"],
                             pairs["groups"]):
        assert d["rmse"] == pytest.approx(g["rmse"] * math.sqrt(g["cells"] / (g["cells"] - g["rank"])))
        assert c["rmse"] > g["rmse"]                     # within-cell spread counts too
        assert w["chi2"]["df"] == g["cells"] - g["rank"]
        assert p["price_scale"] != g["price_scale"]
    assert base["parse"][0]["finite"] < base["parse"][0]["calls"]


def test_first_zero_normalisation_moves_only_unanchored_levels():
    base = {"domain": "d", "utterance_id": "1"}
    design = {"cells": {
        "xy": dict(base, type="pair", a={"item": "x", "price": 5}, b={"item": "y", "price": 9}),
        "ix": dict(base, type="item", item="x"),
        "pq": dict(base, type="pair", a={"item": "p", "price": 5}, b={"item": "q", "price": 5})}}
    rows = [{"model": "m", "cell_id": c, "value": v}
            for c, v in (("xy", 2), ("ix", 30), ("pq", 8))]
    mn = consistency_audit(rows, design, resamples=50, certify=False)["groups"][0]["utilities"]
    fz = consistency_audit(rows, design, resamples=50, certify=False,
                           normalisation="first_zero")["groups"][0]["utilities"]
    assert mn["x"] == pytest.approx(30) == fz["x"] and mn["y"] == pytest.approx(36) == fz["y"]
    assert (mn["p"], mn["q"]) == pytest.approx((-4, 4))          # minimum norm: mean 0
    assert (fz["p"], fz["q"]) == pytest.approx((0, 8))           # first item at 0


@pytest.mark.parametrize("text,value,only", [
    ("$1,250.50", 1250.5, True), ("-$30", -30.0, True), ("−45", -45.0, True),
    ("I would pay about $120 to switch.", 120.0, False), ("n/a", None, False),
    ("$-7.5", -7.5, True), ("300", 300.0, True), (None, None, False)])
def test_parse_amount(text, value, only):
    assert parse_amount(text) == (value, only if value is not None else False)


def test_bad_design_and_responses_name_the_culprit(tmp_path):
    with pytest.raises(InstanceError, match="chain"):
        parse_design({"cells": {"ab": {"type": "pair", "a": {"item": "x", "price": 1},
                                       "b": {"item": "y", "price": 2}},
                                "am": {"type": "pair", "a": {"item": "x", "price": 1},
                                       "b": {"item": "z", "price": 2}}},
                      "pairs": [{"direct": "ab", "paths": [["am"]]}]})
    p = tmp_path / "r.jsonl"
    p.write_text('{"model": "m", "cell_id": "c", "value": 1}\n{"cell_id": "c"}\n')
    with pytest.raises(InstanceError, match="model") as e:
        read_responses(p)
    assert e.value.line == 2


def test_all_completions_and_number_only_readings(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("model,cell_id,raw_text\nm,ix,$40\nm,ix,about $44 I think\nm,ix,oops\n")
    rows = read_responses(p)
    assert [r["value"] for r in rows] == [40.0, 44.0, None]
    design = {"cells": {"ix": {"domain": "d", "utterance_id": "1", "type": "item", "item": "x"}}}
    fin = consistency_audit(rows, design, resamples=20, certify=False)
    num = consistency_audit(rows, design, resamples=20, certify=False, values="number_only")
    assert fin["groups"][0]["utilities"]["x"] == pytest.approx(42)
    assert num["groups"][0]["utilities"]["x"] == pytest.approx(40)
    assert fin["parse"] == [{"model": "m", "calls": 3, "finite": 2, "number_only": 1,
                             "finite_share": 2 / 3}]


def test_options_are_validated():
    with pytest.raises(InstanceError, match="fit must be"):
        AuditOptions(fit="huber")


# ------------------------------------------------------------------------------------ CLI

needs_cli = pytest.mark.skipif(PREFCERT is None, reason="console script not installed")


run = partial(cli, check=False)


@pytest.fixture(scope="module")
def files(tmp_path_factory, design):
    d = tmp_path_factory.mktemp("cs")
    (d / "design.json").write_text(json.dumps({k: v for k, v in design.items() if k != "truth"}))
    sim = simulate_responses(design, {"alpha": {"noise": 8, "distortion": 6, "step_bias": 3},
                                      "beta": {"noise": 20, "distortion": 40, "fail": 0.01}},
                             seed=5)
    (d / "responses.jsonl").write_text("".join(json.dumps(r) + "\n" for r in sim))
    return d


@needs_cli
def test_cli_audit_writes_labels_the_checker_accepts(files, tmp_path):
    out, labels, page = tmp_path / "audit.json", tmp_path / "labels", tmp_path / "audit.html"
    r = run("consistency", files / "responses.jsonl", "--design", files / "design.json",
            "--resamples", "2000", "-o", out, "--labels", labels, "--report", page)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "lack of fit per group" in r.stdout and "stress test" in r.stdout
    text = " ".join(r.stdout.split())
    assert "reject (Holm)" in text and "modified residuals" in text and "t intervals" in text
    audit = json.loads(out.read_text())
    assert audit["settings"]["residuals"] == "modified" and audit["settings"]["interval"] == "t"
    assert all("pvalue_holm" in c for c in audit["comparisons"])
    assert len(audit["groups"]) == 18 and audit["settings"]["bonferroni_reachable"]
    assert all(v["checked"] for g in audit["groups"] for v in g["certified"].values())
    code = ("import sys\nfrom prefcert.cli import main\n"
            f"try:\n    main(['check', {str(labels / 'labels.jsonl')!r}])\n"
            "except SystemExit as e:\n    assert not e.code, e.code\n"
            "print(' '.join(sorted(sys.modules)))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "72 label(s) checked: every certificate verified" in r.stdout
    loaded = set(r.stdout.splitlines()[-1].split())          # the checker alone, exact
    assert not {m for m in loaded if m.split(".")[0] in ("numpy", "scipy", "networkx",
                                                         "ortools", "pulp", "z3")}
    assert not {m for m in loaded if m.startswith(("prefcert.oracles", "prefcert.encodings"))}
    assert page.read_text().count('<figure class="plot"') >= 6


@needs_cli
def test_cli_warns_when_bonferroni_is_unreachable(files):
    r = run("consistency", files / "responses.jsonl", "--design", files / "design.json",
            "--resamples", "100", "--no-certify")
    assert r.returncode == 0, r.stderr[-2000:]
    text = " ".join(r.stdout.split())
    assert "(NOT reachable)" in text and "no group can be rejected" in text


@needs_cli
def test_cli_bad_input_is_one_line_and_writes_nothing(files, tmp_path):
    bad = tmp_path / "bad.jsonl"
    lines = (files / "responses.jsonl").read_text().splitlines()[:5]
    lines.append(json.dumps({"model": "alpha", "cell_id": "no-such-cell", "parsed_value": 3}))
    bad.write_text("\n".join(lines) + "\n")
    out = tmp_path / "audit.json"
    r = run("consistency", bad, "--design", files / "design.json", "-o", out)
    assert r.returncode == 2 and not out.exists()
    assert r.stderr.strip().count("\n") == 0
    assert r.stderr.startswith(f"prefcert: error: {bad}:6: ") and "'no-such-cell'" in r.stderr


def test_simulated_rows_go_in_as_they_are():
    """Regression: the generator's rows carry ``parsed_value``; the audit asked for
    ``value`` and raised KeyError."""
    design = paper_design(seed=1)
    sim = simulate_responses(design, {"exact": {}}, completions=2)
    a = consistency_audit(sim, design, resamples=50, certify=False)
    b = consistency_audit(rows_of(sim), design, resamples=50, certify=False)
    assert a["groups"] == b["groups"] and len(a["groups"]) == 9


@needs_cli
def test_cli_response_table_without_a_value_column_is_bad_input(files, tmp_path):
    """A table whose answers are in a column named otherwise (``response``) is refused
    with the columns expected (it used to give "0 audit groups" and exit 0)."""
    bad = tmp_path / "renamed.jsonl"
    rows = [json.loads(x) for x in (files / "responses.jsonl").read_text().splitlines()[:5]]
    bad.write_text("".join(json.dumps({"model": r["model"], "cell_id": r["cell_id"],
                                       "response": "$30"}) + "\n" for r in rows))
    r = run("consistency", bad, "--design", files / "design.json")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0
    assert f"{bad}:1:" in r.stderr and "parsed_value, value, raw_text" in r.stderr


@pytest.mark.parametrize("text,value,only", [
    ("$30-$40", None, False), ("$1.2k", 1200.0, False), ("1e3", 1000.0, False),
    ("two hundred dollars", 200.0, False), ("Answer: -120", -120.0, False)])
def test_parse_amount_reads_the_formats_of_the_issue(text, value, only):
    assert parse_amount(text) == (value, only)


def test_parse_amount_range_midpoint_is_a_named_option():
    assert parse_amount("$30-$40", ranges="midpoint") == (35.0, False)
    assert parse_amount("Between 80 and 100", ranges="midpoint")[0] == 90.0


@needs_cli
def test_cli_labels_folder_never_replaces_or_mixes_with_files_already_there(files, tmp_path):
    """--labels DIR silently replaced a labels.jsonl (or instances.jsonl) already in DIR
    and wrote among any other files of DIR; now DIR is new or empty, or with --overwrite
    holds only the two files an earlier run wrote."""
    labels = tmp_path / "labels"
    labels.mkdir()
    (labels / "labels.jsonl").write_text("mine\n")
    args = ["consistency", files / "responses.jsonl", "--design", files / "design.json",
            "--resamples", "50", "--labels", labels]
    for extra, other in (([], "labels.jsonl"), (["--overwrite"], "notes.txt")):
        if extra:
            (labels / "notes.txt").write_text("keep\n")
        r = run(*args, *extra)
        assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and str(labels / other) in lines[0], r.stderr
        assert ("does not write" if extra else "not empty") in lines[0], lines[0]
        assert (labels / "labels.jsonl").read_text() == "mine\n"
        assert not (labels / "instances.jsonl").exists()
    (labels / "notes.txt").unlink()
    r = run(*args, "--overwrite")
    assert r.returncode == 0, r.stderr[-2000:]
    assert (labels / "labels.jsonl").read_text().startswith("{")
    assert sorted(p.name for p in labels.iterdir()) == ["instances.jsonl", "labels.jsonl"]
