"""The result sets of Amiri-Margavi et al. (2026, "Do Large Language Model Voters
Strategize?"), from the scored records of any number of models: Table 3 (overall, per
framing) and Table 4 (per rule pooled over m, and per rule and m) beside the exact
sincere, random-ballot and oracle baselines; one figure per rule with the random-ballot
lines; the prompt-level paired contrasts across framings (exact McNemar on the same
instances, Holm); and the regression across framings the paper registers (§7.6: a GEE
logit with instance clusters).

Model values are the stratified means of :func:`~.ballots.metric` with their stratified
cluster-bootstrap intervals; baselines are exact expectations over the instances answered
(each instance once, whichever models answered it), shown as the pseudo-models of
:data:`BASELINES`.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from ..results import MODEL, ResultSet, by_model
from ..stats import adjusted_pvalues, mcnemar_exact
from .ballots import BENCHMARK_RULES, FRAMINGS, metric

SINCERE, RANDOM, ORACLE = "sincere ballot", "random ballot (exact)", "oracle"
BASELINES = (SINCERE, RANDOM, ORACLE)
"""The names of the baseline rows (in the ``model`` column): not models, the paper's
calibration baselines (§7.4), exact over the instances answered."""

TABLE3 = ("MDR", "OMR", "NMR_attempt", "NMR_suboptimal", "FMR_ballot", "FMR_outcome", "IGR",
          "timeout_rate", "delta", "gap", "welfare_change")
TABLE4 = ("MDR", "OMR", "NMR_attempt", "NMR_suboptimal", "delta", "gap")
CONTRASTS = ("MDR", "OMR", "FMR_ballot")
"""The outcomes compared across framings and regressed on them: S and O on manipulable
instances, a valid non-sincere ballot on non-manipulable ones."""
#: outcome -> (stratum, per-record 0/1)
OUTCOMES = {
    "MDR": ("manipulable", lambda r: int(r["S"])),
    "OMR": ("manipulable", lambda r: int(r["O"])),
    "FMR_ballot": ("non_manipulable", lambda r: int(bool(r["valid"]) and not r["sincere"])),
}
REPLICATES = 1000


def _recs(scored: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [s for s in scored if "instance_id" in s and "oracle" in s]


def _instance_baselines(s: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """Per baseline, the exact expectation of every metric on one instance (its stratum's
    metrics only), from the oracle counts of its scored record."""
    o = s["oracle"]
    B, prof, opt = o["reports"], o["profitable"], o["optimal"]
    mean_pos = o["pos_sum"] / B
    gain = o["u0"] - o["ustar"]
    if s["stratum"] == "manipulable":
        return {
            SINCERE: {"MDR": 0.0, "OMR": 0.0, "NMR_attempt": 0.0, "NMR_suboptimal": 0.0,
                      "delta": 0.0, "gap": float(gain)},
            RANDOM: {"MDR": prof / B, "OMR": opt / B, "NMR_attempt": (B - prof - 1) / B,
                     "NMR_suboptimal": (prof - opt) / B, "delta": o["u0"] - mean_pos,
                     "gap": mean_pos - o["ustar"]},
            ORACLE: {"MDR": 1.0, "OMR": 1.0, "NMR_attempt": 0.0, "NMR_suboptimal": 0.0,
                     "delta": float(gain), "gap": 0.0}}
    return {SINCERE: {"FMR_ballot": 0.0, "FMR_outcome": 0.0},
            RANDOM: {"FMR_ballot": (B - 1) / B, "FMR_outcome": (B - o["outcome_w0"]) / B},
            ORACLE: {"FMR_ballot": 0.0, "FMR_outcome": 0.0}}


def baseline_values(scored: Sequence[Mapping[str, Any]], metrics: Sequence[str]
                    ) -> dict[str, dict[str, float]]:
    """Baseline -> metric -> the mean over the distinct instances of ``scored`` (of the
    metric's stratum) of the exact per-instance expectation; IGR and the timeout rate are
    0 for every baseline. The mean over instances is the stratified mean with instance
    weights. O(records)."""
    once = {s["instance_id"]: s for s in scored     # (a coalition record has no exact
            if s.get("oracle") is not None}         # baseline: its joint reports are not
    acc: dict[str, dict[str, list[float]]] = {b: {} for b in BASELINES}   # enumerated)
    for s in once.values():
        for b, vals in _instance_baselines(s).items():
            for k, v in vals.items():
                acc[b].setdefault(k, []).append(v)
    out: dict[str, dict[str, float]] = {}
    for b in BASELINES:
        out[b] = {k: sum(v) / len(v) for k, v in acc[b].items() if k in metrics and v}
        for k in ("IGR", "timeout_rate"):
            if k in metrics and once:
                out[b][k] = 0.0
    return out


def _model_rows(base: dict, part: Sequence[Mapping[str, Any]], metrics: Sequence[str],
                seed: int) -> list[dict]:
    rows = []
    for name in metrics:
        r = metric(part, name, replicates=REPLICATES, seed=seed)
        if r["n"]:
            rows.append({**base, "metric": name, "value": r["value"], "low": r["low"],
                         "high": r["high"], "n": r["n"], "instances": r["instances"],
                         "pooled": r["pooled"]})
    return rows


def _table(scored, key, source, title, by: Sequence[str], metrics: Sequence[str],
           note: str, figure=None) -> ResultSet:
    """Per framing and level of ``by`` (``rule``, ``m``): each model's stratified mean
    of ``metrics`` and the baselines (the same on every framing)."""
    rows = []
    models = by_model(scored)
    framings = [f for f in FRAMINGS if any(s["framing"] == f for s in scored)]
    levels = sorted({tuple(s[b] for b in by) for s in scored},
                    key=lambda t: tuple((BENCHMARK_RULES.index(v) if v in BENCHMARK_RULES
                                         else v) for v in t))
    cells: dict[tuple, list] = {}                  # (model, framing, level) -> records
    at: dict[tuple, list] = {}                     # level -> records
    for s in scored:
        lv = tuple(s[b] for b in by)
        at.setdefault(lv, []).append(s)
    for model, recs in models.items():
        for s in recs:
            cells.setdefault((model, s["framing"], tuple(s[b] for b in by)), []).append(s)
    for lv in levels:
        base = baseline_values(at[lv], metrics)
        for framing in framings:
            f = {"framing": framing, **dict(zip(by, lv))}
            for i, model in enumerate(models):
                rows += _model_rows({**f, MODEL: model}, cells.get((model, framing, lv), []),
                                    metrics, seed=i)
            for b, vals in base.items():
                rows += [{**f, MODEL: b, "metric": k, "value": vals[k]}
                         for k in metrics if k in vals]
    return ResultSet(key, source, title, ["framing", *by, "metric"], rows, value="rate",
                     note=note, figure=figure)


_NOTE = ("Models: stratified means (rule × m × manipulability strata, instance weights) "
         "with 95 % stratified cluster-bootstrap intervals (1,000 percentile replicates, "
         "instances resampled within strata, every answer of an instance with it). MDR, "
         "OMR, NMR on manipulable instances, FMR on non-manipulable ones, Δ̄ / Ḡ over valid "
         "answers on manipulable instances. '" + SINCERE + "', '" + RANDOM + "' and '"
         + ORACLE + "' are the paper's baselines (§7.4), exact expectations over the "
         "instances answered, not models; the oracle's delta is the oracle gain (mean best "
         "achievable rank improvement).")


def table3(scored: Sequence[Mapping[str, Any]]) -> ResultSet:
    """Table 3 per framing: every response-level metric of each model beside the three
    baselines (Amiri-Margavi et al. 2026, §7.4). O(records · replicates)."""
    return _table(scored, "vm-table3", "Amiri-Margavi et al. (2026), Table 3 (§7.4)",
                  "Response-level metrics by framing, with the sincere, random-ballot and "
                  "oracle baselines", [], TABLE3, _NOTE)


def table4(scored: Sequence[Mapping[str, Any]], by_m: bool = False) -> ResultSet:
    """Table 4: MDR, OMR, both near-miss readings, Δ̄ and Ḡ on manipulable instances per
    rule pooled over m (the stratified mean of its m strata), or per rule and m, beside
    the random-ballot and oracle baselines (Amiri-Margavi et al. 2026, §7.5).
    O(records · replicates)."""
    by = ["rule", "m"] if by_m else ["rule"]
    return _table(scored, "vm-table4-rule-m" if by_m else "vm-table4",
                  "Amiri-Margavi et al. (2026), Table 4 (§7.5)" + (", per m" if by_m else ""),
                  "Rule-level performance on manipulable instances" +
                  (" per rule and m" if by_m else " per rule, pooled over m"),
                  by, TABLE4, _NOTE)


def _rule_figure(rs: ResultSet, ax) -> None:
    """Bars: MDR (solid) and OMR (hatched) per framing and model, with bootstrap error
    bars; horizontal lines: the exact random-ballot MDR (dashed) and OMR (dotted)."""
    models = [m for m in rs.models() if m not in BASELINES]
    framings = list(dict.fromkeys(r["framing"] for r in rs.rows))
    nb = 2 * max(len(models), 1)
    width = 0.8 / nb
    colours = [f"C{i}" for i in range(len(models))]
    for j, model in enumerate(models):
        for k, (name, hatch) in enumerate((("MDR", None), ("OMR", "//"))):
            pts = [(framings.index(r["framing"]), r) for r in rs.rows
                   if r[MODEL] == model and r["metric"] == name]
            pos = [i - 0.4 + width * (2 * j + k + 0.5) for i, _ in pts]
            err = None if any(r.get("low") is None for _, r in pts) else \
                [[r["value"] - r["low"] for _, r in pts], [r["high"] - r["value"] for _, r in pts]]
            ax.bar(pos, [r["value"] for _, r in pts], width, yerr=err, capsize=2,
                   color=colours[j], hatch=hatch, alpha=1.0 if hatch is None else 0.55,
                   label=f"{model} {name}")
    for name, style in (("MDR", "--"), ("OMR", ":")):
        v = [r["value"] for r in rs.rows if r[MODEL] == RANDOM and r["metric"] == name]
        if v:
            ax.axhline(v[0], color="black", linestyle=style, linewidth=1,
                       label=f"random ballot {name} = {v[0]:.3f}")
    ax.set_xticks(range(len(framings)))
    ax.set_xticklabels(framings)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("rate (manipulable instances)")
    ax.legend(fontsize=7, ncol=2)


def rule_figures(scored: Sequence[Mapping[str, Any]], table: ResultSet | None = None
                 ) -> list[ResultSet]:
    """One set per rule: MDR and OMR per framing and model (pooled over m) with the exact
    random-ballot MDR and OMR as lines (Amiri-Margavi et al. 2026, §7.5, RQ4), taken from
    ``table`` (the :func:`table4` of ``scored``, computed when not given).
    O(records · replicates)."""
    table = table if table is not None else table4(scored)
    out = []
    for rule in [r for r in BENCHMARK_RULES if any(s["rule"] == r for s in scored)]:
        rows = [{k: v for k, v in r.items() if k != "rule"} for r in table.rows
                if r["rule"] == rule and r["metric"] in ("MDR", "OMR")
                and r[MODEL] != SINCERE]
        out.append(ResultSet(f"vm-rule-{rule}", f"Amiri-Margavi et al. (2026), §7.5 ({rule})",
                             f"{rule}: MDR and OMR by framing, random-ballot baseline lines",
                             ["framing", "metric"], rows, value="rate", note=_NOTE,
                             figure=_rule_figure))
    return out


def _paired(recs: Sequence[Mapping[str, Any]], outcome: str) -> dict[str, dict[tuple, int]]:
    """framing -> (instance, occurrence) -> 0/1 outcome; the k-th answer of a model to an
    instance in one framing is paired with its k-th answer in another."""
    where, value = OUTCOMES[outcome]
    out: dict[str, dict[tuple, int]] = {}
    seen: dict[tuple, int] = {}
    for r in recs:
        if r["stratum"] != where:
            continue
        k = seen.get((r["framing"], r["instance_id"]), 0)
        seen[(r["framing"], r["instance_id"])] = k + 1
        out.setdefault(r["framing"], {})[(r["instance_id"], k)] = value(r)
    return out


def contrasts(scored: Sequence[Mapping[str, Any]]) -> ResultSet:
    """Prompt-level contrasts: for each model, outcome (MDR, OMR, FMR_ballot) and pair of
    framings, the difference of rates on the instances answered in both and the exact
    McNemar test of the paired outcomes, Holm-adjusted over the model's contrasts
    (Amiri-Margavi et al. 2026, §7.6). O(records)."""
    rows = []
    for model, recs in by_model(scored).items():
        fam = []
        for outcome in CONTRASTS:
            per = _paired(recs, outcome)
            framings = [f for f in FRAMINGS if f in per]
            for a, b in combinations(framings, 2):
                common = [k for k in per[a] if k in per[b]]
                if not common:
                    continue
                x = [bool(per[a][k]) for k in common]
                y = [bool(per[b][k]) for k in common]
                mc = mcnemar_exact(x, y)
                fam.append({"outcome": outcome, "contrast": f"{a} − {b}", MODEL: model,
                            "n": len(common), "only_first": mc["only_first"],
                            "only_second": mc["only_second"],
                            "difference": (sum(x) - sum(y)) / len(common),
                            "pvalue": mc["pvalue"]})
        for r, p in zip(fam, adjusted_pvalues([r["pvalue"] for r in fam], "holm")):
            r["p_holm"] = p
        for r in fam:
            for stat, v in (("difference", r["difference"]),
                            ("p (exact McNemar)", r["pvalue"]), ("p (Holm)", r["p_holm"])):
                rows.append({**r, "statistic": stat, "value": v})
    return ResultSet(
        "vm-contrasts", "Amiri-Margavi et al. (2026), §7.6 (prompt-level contrasts)",
        "Framing contrasts of MDR, OMR and FMR on the same instances",
        ["outcome", "contrast", "statistic"], rows, value="value",
        test="Exact McNemar test (two-sided binomial on the discordant instances), paired on "
             "the same instance answered by the same model under the two framings; Holm "
             "adjustment over every contrast of a model (3 outcomes × 6 framing pairs). "
             "difference: rate under the first framing minus the second, over the paired "
             "instances.",
        note="MDR / OMR: S / O on manipulable instances (an invalid or missing answer scores "
             "0); FMR_ballot: a valid non-sincere ballot on non-manipulable instances.")


def _design(recs: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[list[float]]]:
    """Treatment-coded columns: Intercept, framing (reference: sincere, or the first
    framing present), rule (reference: the first benchmark rule present), m (reference:
    the smallest)."""
    fr = [f for f in FRAMINGS if any(r["framing"] == f for r in recs)]
    ru = [x for x in BENCHMARK_RULES if any(r["rule"] == x for r in recs)]
    ms = sorted({r["m"] for r in recs})
    names = ["Intercept", *(f"framing={f}" for f in fr[1:]), *(f"rule={x}" for x in ru[1:]),
             *(f"m={m}" for m in ms[1:])]
    X = [[1.0, *(float(r["framing"] == f) for f in fr[1:]),
          *(float(r["rule"] == x) for x in ru[1:]), *(float(r["m"] == m) for m in ms[1:])]
         for r in recs]
    return names, X


def gee_fit(recs: Sequence[Mapping[str, Any]], outcome: str,
            cov_struct: str = "exchangeable") -> dict[str, Any]:
    """The GEE logit of one 0/1 outcome on framing, rule and m, clusters = instances.

    Parameters
    ----------
    recs : sequence of dict
        Scored records of one model.
    outcome : {"MDR", "OMR", "FMR_ballot"}
        S or O on manipulable instances, a valid non-sincere ballot on non-manipulable ones.
    cov_struct : {"exchangeable", "independence"}
        The working correlation within an instance.

    Returns
    -------
    dict
        ``{"terms": [{"term", "coef", "se", "low", "high", "pvalue", "odds_ratio"}],
        "n", "clusters", "warnings"}`` (terms named ``Intercept``, ``framing=<level>``,
        ``rule=<level>``, ``m=<level>``); ``{"skipped": reason}`` when the outcome is
        constant, one framing only was answered, the design is rank-deficient, or the
        data are separated (no finite estimate).

    Notes
    -----
    statsmodels' ``GEE`` with the Binomial family (logit link) and robust (sandwich)
    standard errors; Wald z tests and 95 % intervals (Liang & Zeger 1986). Cluster: the
    record's ``cluster`` (the copies of an election drawn twice are one cluster).
    O(iterations · n · p²).
    """
    import numpy as np
    import statsmodels.api as sm
    where, value = OUTCOMES[outcome]
    part = [r for r in recs if r["stratum"] == where]
    y = [value(r) for r in part]
    if not part or len(set(y)) < 2:
        return {"skipped": "the outcome is constant" if part else "no answer"}
    names, X = _design(part)
    if len(names) < 2 or not any(n.startswith("framing=") for n in names):
        return {"skipped": "one framing only"}
    if np.linalg.matrix_rank(np.array(X)) < len(names):
        return {"skipped": "the design is rank-deficient (levels of framing, rule and m "
                           "confounded in the answers): the coefficients are not identified"}
    groups = [str(r.get("cluster") or r["instance_id"]) for r in part]
    codes = {g: i for i, g in enumerate(dict.fromkeys(groups))}
    cs = {"exchangeable": sm.cov_struct.Exchangeable,
          "independence": sm.cov_struct.Independence}[cov_struct]()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = sm.GEE(np.array(y, dtype=float), np.array(X), groups=np.array(
                [codes[g] for g in groups]), family=sm.families.Binomial(),
                cov_struct=cs).fit()
        except (ValueError, np.linalg.LinAlgError) as e:     # singular design
            return {"skipped": f"the fit failed: {e}"}
        params, bse = np.asarray(res.params), np.asarray(res.bse)     # (lazy: warnings here)
        if not np.all(np.isfinite(params)) or not np.all(np.isfinite(bse)):
            return {"skipped": "no finite estimate (separation: a framing, rule or m level "
                               "whose outcome is constant)"}
        ci, pv = np.asarray(res.conf_int()), np.asarray(res.pvalues)
    if any("separation" in str(w.message).lower() for w in caught):
        return {"skipped": "perfect separation (a level whose outcome is constant): no "
                           "finite estimate"}
    terms = [{"term": n, "coef": float(params[i]), "se": float(bse[i]),
              "low": float(ci[i][0]), "high": float(ci[i][1]),
              "pvalue": float(pv[i]), "odds_ratio": float(np.exp(params[i]))}
             for i, n in enumerate(names)]
    return {"terms": terms, "n": len(part), "clusters": len(codes),
            "warnings": sorted({str(w.message).splitlines()[0] for w in caught})}


def regression(scored: Sequence[Mapping[str, Any]]) -> ResultSet:
    """The regression across framings of §7.6 per model and outcome: GEE logit
    coefficients (log odds ratios) of framing, rule and m with instance clusters.
    O(records)."""
    rows, skipped = [], []
    for model, recs in by_model(scored).items():
        for outcome in CONTRASTS:
            fit = gee_fit(recs, outcome)
            if "skipped" in fit:
                skipped.append(f"{model} {outcome}: {fit['skipped']}")
                continue
            for t in fit["terms"]:
                rows.append({"outcome": outcome, "term": t["term"], MODEL: model,
                             "value": t["coef"], **{k: t[k] for k in
                                                    ("se", "low", "high", "pvalue",
                                                     "odds_ratio")},
                             "n": fit["n"], "clusters": fit["clusters"],
                             "warnings": fit["warnings"]})
    return ResultSet(
        "vm-gee", "Amiri-Margavi et al. (2026), §7.6 (regression across framings)",
        "GEE logit of MDR, OMR and FMR on framing, rule and m", ["outcome", "term"], rows,
        value="log odds ratio",
        test="GEE (statsmodels), Binomial family, logit link, exchangeable working "
             "correlation, clusters = instances (the framings of one election answered by "
             "one model), robust sandwich standard errors; Wald z p-values and 95 % "
             "intervals, not adjusted for multiplicity. Reference levels: sincere framing, "
             "the first rule present, the smallest m.",
        note="One fit per model and outcome. Skipped: " + ("; ".join(skipped) or "none") +
             ". A fit's convergence or separation warnings are kept on its rows "
             "(`warnings`).")


def results(scored: Sequence[Mapping[str, Any]]) -> list[ResultSet]:
    """Every result set of the suite from the scored records of any number of models
    (records without ``model`` are one unnamed model).

    Parameters
    ----------
    scored : sequence of dict
        Scored records of ``voting-manipulation`` (``prefcert score -o``).

    Returns
    -------
    list of ResultSet
        ``vm-table3``, ``vm-table4`` (per rule, pooled over m), ``vm-table4-rule-m``,
        ``vm-rule-<rule>`` (one figure per rule), ``vm-contrasts``, ``vm-gee``.

    Notes
    -----
    O(records · replicates). Amiri-Margavi, A. et al. (2026), "Do Large Language Model
    Voters Strategize? An Oracle-Based Benchmark for Manipulation under Voting Rules".
    """
    recs = _recs(scored)
    if not recs:
        return []
    t4 = table4(recs)
    return [table3(recs), t4, table4(recs, by_m=True), *rule_figures(recs, t4),
            contrasts(recs), regression(recs)]
