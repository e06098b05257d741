"""The result sets of ``voting-manipulation`` (Amiri-Margavi et al. 2026) from hand-made
scored records of three fake models: stratified means, exact baselines, paired McNemar
contrasts with Holm, and the GEE across framings against statsmodels fitted here."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from prefcert.bench.suites import suite
from prefcert.bench.voting_manipulation.ballots import metric
from prefcert.bench.voting_manipulation.results import (
    ORACLE,
    RANDOM,
    SINCERE,
    gee_fit,
    results,
)

# instance -> (rule, m, stratum, oracle counts). pos_sum = Σ over reports of pos(f(q)).
INSTANCES = {
    # 6 reports: outcomes at positions 1, 2, 3 reached by 1, 1, 4 reports; w0 at 3
    "i1": ("borda", 3, "manipulable", dict(reports=6, profitable=2, optimal=1,
                                           outcome_w0=4, pos_sum=15, u0=3, ustar=1)),
    # positions 1, 2 by 1, 5 reports; w0 at 2
    "i2": ("borda", 3, "manipulable", dict(reports=6, profitable=1, optimal=1,
                                           outcome_w0=5, pos_sum=11, u0=2, ustar=1)),
    # 24 reports: positions 1, 2, 3 by 4, 2, 18; w0 at 3
    "i3": ("irv", 4, "manipulable", dict(reports=24, profitable=6, optimal=4,
                                         outcome_w0=18, pos_sum=62, u0=3, ustar=1)),
    "n1": ("borda", 3, "non_manipulable", dict(reports=6, profitable=0, optimal=4,
                                               outcome_w0=4, pos_sum=8, u0=1, ustar=1)),
    "n2": ("irv", 4, "non_manipulable", dict(reports=24, profitable=0, optimal=12,
                                             outcome_w0=12, pos_sum=36, u0=1, ustar=1)),
}


def vrec(model, iid, framing, code, cluster=None):
    """One scored record. Manipulable codes: ``opt`` (the best outcome), ``prof``
    (profitable, position 2), ``sinc``, ``att`` (valid non-sincere, w0 kept), ``inv``,
    ``to`` (timeout); non-manipulable: ``sinc``, ``fm`` (non-sincere, same outcome),
    ``fmo`` (non-sincere, a worse outcome), ``inv``."""
    rule, m, stratum, o = INSTANCES[iid]
    u0, us = o["u0"], o["ustar"]
    r = {"instance_id": iid, "cluster": cluster or iid, "rule": rule, "m": m,
         "stratum": stratum, "framing": framing, "oracle": dict(o), "model": model,
         "cell": {"rule": rule, "size": m, "stratum": stratum, "format": framing}}
    f = dict(valid=True, S=0, O=0, sincere=False, outcome_changed=False, delta=0,
             gap=u0 - us, welfare_change=0, category="non_profitable")
    if code == "opt":
        f.update(S=1, O=1, outcome_changed=True, delta=u0 - us, gap=0, category="optimal")
    elif code == "prof":
        f.update(S=1, outcome_changed=True, delta=u0 - 2, gap=2 - us,
                 category="profitable_suboptimal")
    elif code == "sinc":
        f.update(sincere=True, category="sincere")
    elif code == "fmo":
        f.update(outcome_changed=True, delta=-1, gap=1)
    elif code in ("inv", "to"):
        f.update(valid=False, delta=None, gap=None, welfare_change=None,
                 category="invalid" if code == "inv" else "timeout")
    r.update(f)
    r["verdict"] = ("timeout" if code == "to" else "invalid" if code == "inv" else
                    "correct" if (f["O"] or stratum == "non_manipulable") else "incorrect")
    return r


def answers(model, plan):
    """``plan``: framing -> codes for i1, i2, i3, n1, n2."""
    return [vrec(model, iid, fr, c) for fr, codes in plan.items()
            for iid, c in zip(("i1", "i2", "i3", "n1", "n2"), codes)]


REC_A = answers("A", {"sincere": ["sinc", "sinc", "sinc", "sinc", "sinc"],
                  "strategic": ["opt", "inv", "prof", "fm", "sinc"],
                  "civic": ["sinc", "att", "sinc", "sinc", "inv"],
                  "expert": ["opt", "opt", "opt", "fmo", "fm"]})
REC_B = answers("B", {f: ["opt", "opt", "opt", "sinc", "sinc"]
                  for f in ("sincere", "strategic", "civic")} |
            {"expert": ["opt", "opt", "to", "sinc", "sinc"]})
REC_C = answers("C", {"sincere": ["sinc", "sinc", "sinc", "sinc", "sinc"],
                  "strategic": ["opt", "opt", "prof", "sinc", "sinc"]})
SCORES = REC_A + REC_B + REC_C


@pytest.fixture(scope="module")
def sets():
    return {rs.key: rs for rs in results(SCORES)}


def _row(rs, model, **factors):
    (r,) = [r for r in rs.rows if r["model"] == model
            and all(r.get(k) == v for k, v in factors.items())]
    return r


def test_the_suite_exposes_its_result_sets(sets):
    assert suite("voting-manipulation").results is results
    assert list(sets) == ["vm-table3", "vm-table4", "vm-table4-rule-m", "vm-rule-borda",
                          "vm-rule-irv", "vm-contrasts", "vm-gee"]
    assert sets["vm-table3"].models() == ["A", "B", "C", SINCERE, RANDOM, ORACLE]


def test_stratified_mean_is_a_mean_of_strata():
    """A, strategic: Δ = 2 on i1, i2 invalid, Δ = 1 on i3. Strata (borda, 3, M) with two
    instances (valid mean 2) and (irv, 4, M) with one (mean 1): (2·2 + 1·1)/3 = 5/3; the
    pooled ratio is (2 + 1)/2 = 3/2."""
    strat = [r for r in REC_A if r["framing"] == "strategic"]
    d = metric(strat, "delta", replicates=300)
    assert d["value"] == pytest.approx(5 / 3) and d["pooled"] == pytest.approx(3 / 2)
    assert d["low"] <= d["value"] <= d["high"]
    g = metric(strat, "gap", replicates=300)       # gaps 0 (i1), 1 (i3): 1/3 vs pooled 1/2
    assert g["value"] == pytest.approx(1 / 3) and g["pooled"] == pytest.approx(1 / 2)
    # MDR counts every answer: strata 1/2 (weight 2) and 1 (weight 1) -> 2/3 = pooled
    assert metric(strat, "MDR", replicates=50)["value"] == pytest.approx(2 / 3)


def test_table3_models_and_exact_baselines(sets):
    rs = sets["vm-table3"]
    v = lambda model, framing, m: _row(rs, model, framing=framing, metric=m)["value"]
    assert v("A", "strategic", "delta") == pytest.approx(5 / 3)
    assert _row(rs, "A", framing="strategic", metric="delta")["pooled"] == pytest.approx(1.5)
    assert v("A", "strategic", "FMR_ballot") == pytest.approx(1 / 2)
    assert v("A", "civic", "IGR") == pytest.approx(1 / 5)            # n2 invalid, 5 strata
    assert v("A", "civic", "NMR_attempt") == pytest.approx(1 / 3)    # (2 · ½ + 1 · 0) / 3
    assert v("A", "expert", "FMR_outcome") == pytest.approx(1 / 2)
    assert v("B", "expert", "MDR") == pytest.approx(2 / 3)           # i3 timed out
    assert v("B", "expert", "timeout_rate") == pytest.approx(1 / 5)
    assert v("B", "expert", "IGR") == pytest.approx(0)               # timeouts outside IGR
    # random ballot, exact: MDR mean(2/6, 1/6, 6/24) = 1/4; OMR 1/6; NMR_attempt
    # mean(3/6, 4/6, 17/24) = 5/8; NMR_suboptimal mean(1/6, 0, 2/24) = 1/12;
    # Δ mean(3 − 15/6, 2 − 11/6, 3 − 62/24) = 13/36; G mean(15/6 − 1, 11/6 − 1, 62/24 − 1)
    # = 47/36; FMR_ballot mean(5/6, 23/24) = 43/48; FMR_outcome mean(2/6, 12/24) = 5/12
    want = {"MDR": 1 / 4, "OMR": 1 / 6, "NMR_attempt": 5 / 8, "NMR_suboptimal": 1 / 12,
            "delta": 13 / 36, "gap": 47 / 36, "FMR_ballot": 43 / 48, "FMR_outcome": 5 / 12,
            "IGR": 0.0}
    for framing in ("sincere", "expert"):
        for m, x in want.items():
            assert v(RANDOM, framing, m) == pytest.approx(x), m
    # oracle: MDR = OMR = 1, Δ̄ = the oracle gain mean(2, 1, 2) = 5/3; sincere: Ḡ = 5/3
    assert (v(ORACLE, "civic", "MDR"), v(ORACLE, "civic", "OMR")) == (1.0, 1.0)
    assert v(ORACLE, "civic", "delta") == pytest.approx(5 / 3)
    assert v(SINCERE, "civic", "gap") == pytest.approx(5 / 3)
    assert v(SINCERE, "civic", "MDR") == 0.0
    # C answered two framings only
    assert not [r for r in rs.rows if r["model"] == "C" and r["framing"] == "civic"]


def test_table4_per_rule_and_per_rule_and_m(sets):
    t4 = sets["vm-table4"]
    assert t4.factors == ["framing", "rule", "metric"]
    v = lambda model, rule, m: _row(t4, model, framing="strategic", rule=rule, metric=m)["value"]
    assert v("A", "borda", "MDR") == pytest.approx(1 / 2)
    assert v("A", "irv", "MDR") == pytest.approx(1.0)
    assert v(RANDOM, "borda", "NMR_attempt") == pytest.approx(7 / 12)   # mean(3/6, 4/6)
    assert v(RANDOM, "irv", "NMR_attempt") == pytest.approx(17 / 24)
    assert v(RANDOM, "borda", "OMR") == pytest.approx(1 / 6)
    assert v(ORACLE, "borda", "delta") == pytest.approx(3 / 2)          # gains 2 and 1
    assert not [r for r in t4.rows if r["metric"].startswith("FMR")]
    t4m = sets["vm-table4-rule-m"]
    assert t4m.factors == ["framing", "rule", "m", "metric"]
    r = _row(t4m, RANDOM, framing="civic", rule="irv", m=4, metric="gap")
    assert r["value"] == pytest.approx(62 / 24 - 1)


def test_per_rule_figures_draw_the_random_ballot_lines(sets):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rs = sets["vm-rule-borda"]
    assert {r["model"] for r in rs.rows} == {"A", "B", "C", RANDOM, ORACLE}
    fig, ax = plt.subplots()
    rs.figure(rs, ax)
    ys = sorted(line.get_ydata()[0] for line in ax.get_lines()
                if line.get_label().startswith("random ballot"))
    assert ys == pytest.approx([1 / 6, 1 / 4])    # random OMR (1/6) and MDR (mean 2/6, 1/6)
    assert ax.patches
    plt.close(fig)
    for key in ("vm-table3", "vm-table4", "vm-contrasts", "vm-gee"):
        assert sets[key].source.startswith("Amiri-Margavi et al. (2026)")


def test_paired_contrasts_exact_mcnemar_with_holm(sets):
    rs = sets["vm-contrasts"]
    assert "McNemar" in rs.test and "Holm" in rs.test and "same instance" in rs.test

    def get(model, outcome, contrast, stat):
        return _row(rs, model, outcome=outcome, contrast=contrast, statistic=stat)["value"]
    # C (two framings: a family of 3): MDR S = 0,0,0 vs 1,1,1 -> 3 discordant, p = 2/8;
    # OMR 0,0,0 vs 1,1,0 -> p = 2/4; FMR no discordant -> 1. Holm: 3 · 1/4 = 3/4,
    # max(3/4, 2 · 1/2) = 1, 1.
    c = "sincere − strategic"
    assert get("C", "MDR", c, "difference") == pytest.approx(-1.0)
    assert get("C", "MDR", c, "p (exact McNemar)") == pytest.approx(0.25)
    assert get("C", "OMR", c, "p (exact McNemar)") == pytest.approx(0.5)
    assert get("C", "OMR", c, "difference") == pytest.approx(-2 / 3)
    assert get("C", "FMR_ballot", c, "p (exact McNemar)") == pytest.approx(1.0)
    assert [get("C", o, c, "p (Holm)") for o in ("MDR", "OMR", "FMR_ballot")] == \
        pytest.approx([0.75, 1.0, 1.0])
    # A: MDR sincere 0,0,0 vs expert 1,1,1 -> p 1/4; strategic 1,0,1 vs expert 1,1,1 -> 1
    assert get("A", "MDR", "sincere − expert", "p (exact McNemar)") == pytest.approx(0.25)
    assert get("A", "MDR", "strategic − expert", "difference") == pytest.approx(-1 / 3)
    assert get("A", "MDR", "strategic − expert", "p (exact McNemar)") == pytest.approx(1.0)
    assert len([r for r in rs.rows if r["model"] == "A"]) == 3 * 6 * 3
    row = _row(rs, "A", outcome="MDR", contrast="sincere − strategic", statistic="difference")
    assert (row["n"], row["only_first"], row["only_second"]) == (3, 0, 2)


def _gee_records():
    """One model, 12 manipulable instances (borda / irv × m 3 / 4, three each; g6 and g7
    are one election drawn twice: one cluster), 4 framings (S per instance: sincere,
    strategic, civic, expert), S varying within every level."""
    pattern = ["0011", "0101", "1011", "0001", "0111", "1001", "0011", "0110", "1101",
               "0000", "0101", "1011"]
    cells = [("borda", 3), ("borda", 4), ("irv", 3), ("irv", 4)] * 3
    out = []
    for j, (bits, (rule, m)) in enumerate(zip(pattern, cells)):
        for f, b in zip(("sincere", "strategic", "civic", "expert"), bits):
            out.append({"instance_id": f"g{j}", "cluster": "g6" if j == 7 else f"g{j}",
                        "rule": rule, "m": m, "stratum": "manipulable", "framing": f,
                        "S": int(b), "O": int(b), "valid": True, "sincere": False,
                        "model": "G", "oracle": INSTANCES["i3"][3],
                        "delta": 2 * int(b), "gap": 2 - 2 * int(b), "welfare_change": 0,
                        "outcome_changed": b == "1", "category": "optimal" if b == "1"
                        else "non_profitable"})
    return out


@pytest.mark.parametrize("cov", ["exchangeable", "independence"])
def test_gee_against_statsmodels_fitted_directly(cov):
    import pandas as pd
    import statsmodels.api as sm
    import statsmodels.formula.api as smf
    recs = _gee_records()
    fit = gee_fit(recs, "MDR", cov_struct=cov)
    df = pd.DataFrame(recs)
    ref = smf.gee("S ~ C(framing, Treatment('sincere')) + C(rule) + C(m)", "cluster", df,
                  family=sm.families.Binomial(),
                  cov_struct=sm.cov_struct.Exchangeable() if cov == "exchangeable"
                  else sm.cov_struct.Independence()).fit()
    names = {"Intercept": "Intercept", "rule=irv": "C(rule)[T.irv]", "m=4": "C(m)[T.4]",
             **{f"framing={f}": f"C(framing, Treatment('sincere'))[T.{f}]"
                for f in ("strategic", "civic", "expert")}}
    got = {t["term"]: t for t in fit["terms"]}
    assert set(got) == set(names)
    for ours, theirs in names.items():
        assert got[ours]["coef"] == pytest.approx(ref.params[theirs], abs=1e-6)
        assert got[ours]["se"] == pytest.approx(ref.bse[theirs], abs=1e-6)
        assert got[ours]["pvalue"] == pytest.approx(ref.pvalues[theirs], abs=1e-6)
    assert fit["clusters"] == 11 and fit["n"] == 48 and not fit["warnings"]


def test_gee_result_set_and_skips():
    rs = {r.key: r for r in results(_gee_records() + REC_C)}["vm-gee"]
    assert "GEE" in rs.test and "exchangeable" in rs.test and "clusters = instances" in rs.test
    assert {r["model"] for r in rs.rows} == {"G"}
    assert "C FMR_ballot: the outcome is constant" in rs.note
    assert "C MDR: the design is rank-deficient" in rs.note      # C: borda at m = 3 only
    sep = gee_fit([{**r, "m": 3 + (i % 2), "rule": "borda" if i % 4 < 2 else "irv"}
                   for i, r in enumerate(x for x in REC_C if x["stratum"] == "manipulable")],
                  "MDR")
    assert sep["skipped"].startswith("perfect separation")      # sincere 0s, strategic 1s
    r = _row(rs, "G", outcome="MDR", term="framing=expert")
    assert r["low"] < r["value"] < r["high"] and r["odds_ratio"] > 0


def test_naive_manipulable_shares_carry_wilson_intervals():
    from prefcert.bench.voting_manipulation.suite import calibration
    stats = {json.dumps({"rule": "borda", "size": 3}): Counter(draws=100, manipulable=10),
             json.dumps({"baselines": "borda", "size": 3, "stratum": "manipulable"}):
                 Counter(instances=1, **INSTANCES["i1"][3]),
             json.dumps({"baselines": "borda", "size": 3, "stratum": "non_manipulable"}):
                 Counter(instances=1, **INSTANCES["n1"][3])}
    row = [r for r in calibration(stats) if r["rule"] == "borda"][0]
    # Wilson 10/100 at 95 %: centre (0.1 + z²/200)/(1 + z²/100) = 0.11480, half-width
    # z·sqrt(0.1·0.9/100 + z²/40000)/(1 + z²/100) = 0.05957 -> [0.0552, 0.1744]
    assert row["ic_manipulable"] == 0.1
    assert (row["ic_manipulable_low"], row["ic_manipulable_high"]) == (0.0552, 0.1744)
    assert row["random_MDR"] == pytest.approx(round(2 / 6, 4))
