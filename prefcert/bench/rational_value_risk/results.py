"""The result sets of ``prefcert risk``: Qian & He's tables, one
:class:`~prefcert.bench.results.ResultSet` each, over any number of models (columns).

:func:`risk_results` takes ``{model: estimate}``, each estimate the dict
:func:`~prefcert.bench.rational_value_risk.risk.risk_table` (or
:func:`~prefcert.bench.rational_value_risk.risk.rational_value_risk`) returns.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..results import MODEL, ResultSet, doubling_axis

SOURCE = "Qian & He (2026)"

#: reading key -> its row label (the two readings are never mixed in one row)
READING_LABELS = {"certified": "REU = 1 (certified)", "best_of_k": "REU = best-of-K"}

#: (row label, key of a reading's ``bounds``) of the error-bound rows
BOUND_ROWS = (("bound (I) prompts", "prompt_sampling"),
              ("bound (II) reasoning", "reasoning_sampling"),
              ("bound (III) verification", "verification"),
              ("bound total ±", "total"))


def _fig_rvr(rs: ResultSet, ax) -> None:
    rows = [r for r in rs.rows if r["estimate"] == "RVR" and r["value"] is not None]
    readings = list(dict.fromkeys(r["reading"] for r in rows))
    models = rs.models()
    w = 0.8 / max(1, len(models))
    for j, m in enumerate(models):
        mine = [r for r in rows if r[MODEL] == m]
        xs = [readings.index(r["reading"]) - 0.4 + w * (j + 0.5) for r in mine]
        v = [r["value"] for r in mine]
        ax.bar(xs, v, w * 0.9, color=f"C{j % 10}", label=m,
               yerr=[[max(0.0, x - r["low"]) for x, r in zip(v, mine)],
                     [max(0.0, r["high"] - x) for x, r in zip(v, mine)]], capsize=4)
        ax.errorbar(xs, v, yerr=[[x - r["bound_low"] for x, r in zip(v, mine)],
                                 [r["bound_high"] - x for x, r in zip(v, mine)]],
                    fmt="none", ecolor="grey", elinewidth=0.8, capsize=7, alpha=0.8)
    ax.set_xticks(range(len(readings)))
    ax.set_xticklabels(readings)
    ax.set_ylabel("rational value risk")
    lo, hi = ax.get_ylim()
    ax.set_ylim(max(lo, -1.05), min(hi, 1.05))     # RVR lies in [−1, 1]: a wider bound says no more
    ax.axhline(0, color="black", linewidth=0.6)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, title="bars: 95% bootstrap CI; grey: error bound at δ",
              title_fontsize=7)


def _fig_k(rs: ResultSet, ax) -> None:
    styles = {"certified": "-", "best-of-k": "--", "pass@k": ":"}
    for j, m in enumerate(rs.models()):
        for reading, style in styles.items():
            pts = sorted((r["k"], r["value"]) for r in rs.rows
                         if r[MODEL] == m and r["reading"] == reading and r["value"] is not None)
            if pts:
                ax.plot([k for k, _ in pts], [v for _, v in pts], marker="o", ms=3,
                        linestyle=style, color=f"C{j % 10}", label=f"{m} · {reading}")
    doubling_axis(ax, [r["k"] for r in rs.rows],
                  "budget k (the first k samples of every prompt)", "rational value risk")


def _fig_strata(rs: ResultSet, ax) -> None:
    by = rs.factors[0]
    rows = [r for r in rs.rows if r["reading"] == READING_LABELS["certified"]
            and r["value"] is not None]
    from ..results import sort_key
    levels = sorted(dict.fromkeys(r[by] for r in rows), key=sort_key)
    models = rs.models()
    w = 0.8 / max(1, len(models))
    for j, m in enumerate(models):
        mine = [r for r in rows if r[MODEL] == m]
        xs = [levels.index(r[by]) - 0.4 + w * (j + 0.5) for r in mine]
        v = [r["value"] for r in mine]
        ax.bar(xs, v, w * 0.9, color=f"C{j % 10}", label=m, capsize=3,
               yerr=[[max(0.0, x - r["low"]) for x, r in zip(v, mine)],
                     [max(0.0, r["high"] - x) for x, r in zip(v, mine)]])
    ax.set_xticks(range(len(levels)))
    ax.set_xticklabels([str(x) for x in levels])
    ax.set_xlabel(by)
    ax.set_ylabel("RVR (REU = 1, certified)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7)


def rvr_table(results: Mapping[str, Mapping[str, Any]]) -> ResultSet:
    """Tables 1–2: per model and reading the DEU, REU, RVR (point estimate), the
    bootstrap mean, the 95 % prompt-bootstrap interval and, beside them, the three error
    bounds at δ with RVR ± the total bound."""
    rows = []
    for m, r in results.items():
        for name, label in READING_LABELS.items():
            x = r["readings"].get(name, {})
            base = {"reading": label, MODEL: m}
            if not x.get("prompts"):
                rows.append({**base, "estimate": "RVR", "value": None, "n": 0})
                continue
            b = x["bounds"]
            lo, hi = x["rvr_ci"]
            rows += [
                {**base, "estimate": "prompts M", "value": x["prompts"]},
                {**base, "estimate": "DEU", "value": r["deu"]},
                {**base, "estimate": "REU", "value": x["reu"]},
                {**base, "estimate": "RVR", "value": x["rvr"], "low": lo, "high": hi,
                 "n": x["prompts"], "bound": b["total"], "bound_low": x["rvr"] - b["total"],
                 "bound_high": x["rvr"] + b["total"], "delta": b["delta"]},
                {**base, "estimate": "RVR bootstrap mean", "value": x["rvr_bootstrap_mean"]},
                {**base, "estimate": "95% CI low", "value": lo},
                {**base, "estimate": "95% CI high", "value": hi},
                *({**base, "estimate": label_b, "value": b[key], "formula":
                   b["formulas"][key]} for label_b, key in BOUND_ROWS),
                {**base, "estimate": "RVR − bound", "value": x["rvr"] - b["total"]},
                {**base, "estimate": "RVR + bound", "value": x["rvr"] + b["total"]}]
    any_r = next(iter(results.values()), {})
    delta = next((x["bounds"]["delta"] for x in any_r.get("readings", {}).values()
                  if x.get("prompts")), None)
    formulas = {n: x["bounds"]["formulas"] for r in results.values()
                for n, x in r["readings"].items() if x.get("prompts")}
    bounds_text = ""
    if formulas:
        f0 = next(iter(formulas.values()))
        bounds_text = (" Bounds: (I) " + f0["prompt_sampling"] + "; (II) " + "; ".join(
            f"{READING_LABELS[n]} {f['reasoning_sampling']}" for n, f in formulas.items())
            + "; (III) " + "; ".join(dict.fromkeys(f["verification"]
                                                  for f in formulas.values())) + ".")
    order = ["prompts M", "DEU", "REU", "RVR", "RVR bootstrap mean", "95% CI low",
             "95% CI high", *(b for b, _ in BOUND_ROWS), "RVR − bound", "RVR + bound"]
    rows.sort(key=lambda r: (list(READING_LABELS.values()).index(r["reading"]),
                             order.index(r["estimate"])))
    rs = ResultSet(
        "qh-table2", f"{SOURCE}, Tables 1–2", "rational value risk per model",
        ["reading", "no.", "estimate"], rows, value="utility or risk",
        test=f"per model: 95% percentile prompt bootstrap (B = {any_r.get('resamples')}, "
             f"seed {any_r.get('seed')}), prompts resampled; the bounds hold with "
             f"probability ≥ 1 − δ (δ = {delta}), each term at δ/3 (Hoeffding); models "
             f"are not compared by a test",
        note="RVR = REU − DEU is the point estimate; the bootstrap mean is the mean of the "
             "resampled means (the released code's value). Rows keep the readings apart; "
             "no. orders the rows of a reading." + bounds_text,
        figure=_fig_rvr)
    for r in rs.rows:
        r["no."] = order.index(r["estimate"]) + 1
    return rs


def k_table(results: Mapping[str, Mapping[str, Any]]) -> ResultSet:
    """Table 13: RVR per budget k (the first k samples of every prompt) under both readings
    and, for binary utilities, pass@k − DEU; one curve per model and reading."""
    rows = []
    for m, r in results.items():
        for c in r["k_curve"]:
            rows.append({"k": c["k"], "reading": "certified", MODEL: m,
                         "value": c["rvr_certified"]})
            rows.append({"k": c["k"], "reading": "best-of-k", MODEL: m,
                         "value": c["rvr_best_of_k"], "best_of_k": c["best_of_k"]})
            if "pass_at_k" in c:
                rows.append({"k": c["k"], "reading": "pass@k", MODEL: m,
                             "value": c["rvr_pass_at_k"], "pass_at_k": c["pass_at_k"]})
    return ResultSet(
        "qh-table13", f"{SOURCE}, Table 13", "rational value risk per budget k",
        ["k", "reading"], rows, value="RVR at budget k",
        note="certified: 1 − mean utility of the first k samples; best-of-k: best-of-k − "
             "that mean (0 at k = 1); pass@k: the unbiased pass@k − DEU over all samples. "
             "A model with fewer samples has fewer budgets.", figure=_fig_k)


def strata_table(results: Mapping[str, Mapping[str, Any]]) -> ResultSet | None:
    """Table 16: RVR per level of the ``--by`` factor (difficulty in the paper), per model
    and reading, with 95 % prompt-bootstrap intervals. None without strata."""
    by = next((r["by"] for r in results.values() if r.get("by")), None)
    if by is None:
        return None
    rows = []
    for m, r in results.items():
        for x in r.get("strata", []):
            for name, label in READING_LABELS.items():
                y = x["readings"][name]
                row = {by: x[by], "reading": label, MODEL: m, "n": x["M"],
                       "value": y.get("rvr") if y.get("prompts") else None}
                if y.get("prompts"):
                    row.update(low=y["rvr_ci"][0], high=y["rvr_ci"][1])
                rows.append(row)
    return ResultSet(
        "qh-table16", f"{SOURCE}, Table 16", f"rational value risk by {by}",
        [by, "reading"], rows, value="RVR",
        test="95% percentile prompt bootstrap within each level; no comparison test",
        note="The paper stratifies by difficulty level; here by the prompts' cell factor.",
        figure=_fig_strata)


def parse_table(results: Mapping[str, Mapping[str, Any]]) -> ResultSet:
    """Table 12: per model the samples, the parse-failure and timeout rates (scored
    U = 0) and the prompts without a certified REU."""
    rows = []
    for m, r in results.items():
        for name, key in (("samples", "samples"), ("parse-failure rate", "parse_failure_rate"),
                          ("timeout rate", "timeout_rate"),
                          ("prompts without a certified REU", "uncertified_prompts")):
            rows.append({"measure": name, MODEL: m, "value": r.get(key)})
    return ResultSet(
        "qh-table12", f"{SOURCE}, Table 12", "unparseable answers", ["measure"], rows,
        value="count or share", note="An unparseable answer or a timeout scores U = 0 and "
        "is counted here; an external verifier's utilities give no rates (—).")


def risk_results(results: Mapping[str, Mapping[str, Any]],
                 scored: Mapping[str, Sequence[Mapping[str, Any]]] | None = None
                 ) -> list[ResultSet]:
    """Every result set of ``prefcert risk``.

    Parameters
    ----------
    results : mapping of str to dict
        Model -> its estimate (:func:`~prefcert.bench.rational_value_risk.risk.risk_table`
        or :func:`~prefcert.bench.rational_value_risk.risk.rational_value_risk` with the
        answer counts added), in column order.

    Returns
    -------
    list of ResultSet
        Tables 1–2 (RVR with intervals and, beside them, the bounds), Table 13 (per
        budget k), Table 16 (per stratum, when the estimates have ``by``), Table 12
        (parse failures), Figure 1 (SC(n), when the estimates have
        ``self_consistency``), Table 14 (the M sweep, ``m_sweep``), Table 17 (the L sweep,
        ``l_sweep``) and, given the per-prompt records ``scored`` of two or more
        models, their paired comparisons (:func:`paired_table`).

    Notes
    -----
    O(models · (readings + budgets + strata)).

    References
    ----------
    Qian & He (2026), "In LLM reasoning, there is irrationality on top of value
    misalignment".
    """
    out = [rvr_table(results), k_table(results)]
    st = strata_table(results)
    if st is not None:
        out.append(st)
    out.append(parse_table(results))
    for extra in (sc_table, m_table, l_table):
        rs = extra(results)
        if rs is not None:
            out.append(rs)
    if scored is not None:
        first = next(iter(results.values()), {})
        pt = paired_table(scored, resamples=first.get("resamples", 1000),
                          seed=first.get("seed", 0))
        if pt is not None:
            out.append(pt)
    return out


def paired_table(scored: Mapping[str, Sequence[Mapping[str, Any]]], *, resamples: int = 1000,
                 seed: int = 0, alpha: float = 0.05) -> ResultSet | None:
    """Paired comparisons of the models' RVR on the prompts they all answered.

    Parameters
    ----------
    scored : mapping of str to sequence of dict
        Model -> its per-prompt records (``id``, ``utilities``, ``reu_certified``), as
        ``prefcert risk`` builds them.
    resamples : int, default 1000
        Paired prompt-bootstrap resamples (the same prompts drawn for both models).
    seed : int, default 0
        Bootstrap seed.
    alpha : float, default 0.05
        Family-wise level of the Holm adjustment over the model pairs of a reading.

    Returns
    -------
    ResultSet or None
        One row per (model A, model B after it, reading): ``value`` = RVR_A − RVR_B over
        the prompts both answered (certified: those certified for both), ``low`` / ``high``
        a 95 % paired percentile bootstrap interval, ``pvalue`` the paired t test of the
        per-prompt gaps (:func:`scipy.stats.ttest_rel`), ``pvalue_holm``, ``n`` the common
        prompts. None with fewer than two models.

    Notes
    -----
    The per-prompt gap is REU_i − (1/K) Σ_k U_ik; the two models' gaps on one prompt are
    paired (the same prompt), so the difference is tested within prompts. O(pairs · B · M).

    References
    ----------
    Qian & He (2026) (RVR); Efron & Tibshirani (1993), §16 (paired bootstrap); Holm (1979).
    """
    import numpy as np
    from scipy import stats

    from ..stats import adjusted_pvalues, bootstrap_means
    models = list(scored)
    if len(models) < 2:
        return None
    gaps: dict[str, dict[str, dict[str, float]]] = {}
    for m, recs in scored.items():
        g: dict[str, dict[str, float]] = {"certified": {}, "best_of_k": {}}
        for r in recs:
            u = [float(np.mean(x)) if isinstance(x, (list, tuple)) else float(x)
                 for x in r["utilities"]]
            mean = sum(u) / len(u)
            if r.get("reu_certified") is not None:
                g["certified"][str(r["id"])] = float(r["reu_certified"]) - mean
            g["best_of_k"][str(r["id"])] = max(u) - mean
        gaps[m] = g
    rows = []
    for reading, label in READING_LABELS.items():
        fam = []
        for i, a in enumerate(models):
            for b in models[i + 1:]:
                common = [p for p in gaps[a][reading] if p in gaps[b][reading]]
                row: dict[str, Any] = {"versus": b, "reading": label, MODEL: a,
                                       "n": len(common), "value": None}
                if common:
                    x = np.array([gaps[a][reading][p] for p in common])
                    y = np.array([gaps[b][reading][p] for p in common])
                    d = x - y
                    means = bootstrap_means(d, resamples, np.random.default_rng(seed))
                    lo, hi = np.percentile(means, [2.5, 97.5])
                    if len(d) > 1 and np.any(d != d[0]):
                        p = float(stats.ttest_rel(x, y).pvalue)
                    else:
                        p = 1.0 if not np.any(d) else 0.0
                    row.update(value=float(d.mean()), low=float(lo), high=float(hi), pvalue=p)
                    fam.append(row)
                rows.append(row)
        for row, q in zip(fam, adjusted_pvalues([r["pvalue"] for r in fam], "holm")):
            row["pvalue_holm"] = q
            row["reject_holm"] = q <= alpha
    return ResultSet(
        "qh-paired", f"{SOURCE}, model comparisons (paired)", "RVR of the column model "
        "minus RVR of the row's 'versus' model, on the prompts both answered",
        ["versus", "reading"], rows, value="RVR difference",
        test=f"paired by prompt: paired t test of the per-prompt gaps (scipy ttest_rel) "
             f"and a {resamples}-resample paired percentile bootstrap interval (seed "
             f"{seed}); Holm over the {len(models) * (len(models) - 1) // 2} model pairs of "
             f"each reading at α = {alpha}",
        note="pvalue, pvalue_holm, reject_holm, low, high and n (the common prompts) are "
             "in the JSON; a certified comparison uses the prompts certified for both.")


def _fig_sc(rs: ResultSet, ax) -> None:
    for j, m in enumerate(rs.models()):
        pts = sorted((r["n"], r["value"], r["low"], r["high"]) for r in rs.rows
                     if r[MODEL] == m and r["estimate"] == "RVR" and r["value"] is not None)
        if not pts:
            continue
        ns = [p[0] for p in pts]
        v = [p[1] for p in pts]
        ax.errorbar(ns, v, yerr=[[max(0.0, x - p[2]) for x, p in zip(v, pts)],
                                 [max(0.0, p[3] - x) for x, p in zip(v, pts)]],
                    marker="o", ms=3, capsize=3, color=f"C{j % 10}", label=m)
    doubling_axis(ax, [r["n"] for r in rs.rows], "votes n of SC(n) (n = 1: one sample)",
                  "RVR (REU = 1, certified)", "95% prompt-bootstrap CI")


def sc_table(results: Mapping[str, Mapping[str, Any]]) -> ResultSet | None:
    """Figure 1: RVR of self-consistency SC(n) per n (SC(1) = one sample), per model, with
    the DEU, the 95 % prompt-bootstrap interval and the error bounds that carry over.
    None when no estimate has ``self_consistency``."""
    if not any(r.get("self_consistency") for r in results.values()):
        return None
    rows = []
    ties = None
    for m, r in results.items():
        for x in r.get("self_consistency", []):
            ties = x["ties"]
            b = x["bounds"]
            base = {"n": x["n"], MODEL: m}
            rows += [
                {**base, "estimate": "prompts M", "value": x["M"]},
                {**base, "estimate": "SC draws per prompt K_n", "value": x["draws"]},
                {**base, "estimate": "DEU", "value": x["deu"], "low": x["deu_ci"][0],
                 "high": x["deu_ci"][1]},
                {**base, "estimate": "RVR", "value": x["rvr"], "low": x["rvr_ci"][0],
                 "high": x["rvr_ci"][1], "n_prompts": x["M"], "bound": b["total"]},
                {**base, "estimate": "95% CI low", "value": x["rvr_ci"][0]},
                {**base, "estimate": "95% CI high", "value": x["rvr_ci"][1]},
                {**base, "estimate": "no-vote rate", "value": x["no_vote_rate"]},
                *({**base, "estimate": label_b, "value": b[key],
                   "formula": b["formulas"][key]} for label_b, key in BOUND_ROWS)]
    order = ["prompts M", "SC draws per prompt K_n", "DEU", "RVR", "95% CI low",
             "95% CI high", "no-vote rate", *(b for b, _ in BOUND_ROWS)]
    rs = ResultSet(
        "qh-fig1", f"{SOURCE}, Figure 1", "rational value risk of self-consistency SC(n)",
        ["n", "no.", "estimate"], rows, value="utility or risk",
        test="per model and n: 95% percentile prompt bootstrap of the per-prompt SC gaps; "
             "no comparison test",
        note=f"SC(n): the K samples of a prompt are cut into K_n = ⌊K/n⌋ disjoint blocks of "
             f"n; each block votes on the answer keys (unparseable answers do not vote; a "
             f"block with no key scores 0), ties: {ties} (first = the tied key voted "
             f"first, the released code's rule; random = uniform, seeded). REU = 1 "
             f"(certified) only: the best-of-K REU reuses the voting samples. Bounds: "
             f"(I) √(2 ln(6/δ)/M), (II) √(ln(6/δ)/(2MK_n)), (III) √(ln(12/δ)/(2MK_nL)) "
             f"(0 for prefcert's deterministic verifier).",
        figure=_fig_sc)
    for r in rs.rows:
        r["no."] = order.index(r["estimate"]) + 1
    return rs


def _fig_m(rs: ResultSet, ax) -> None:
    for j, m in enumerate(rs.models()):
        for reading, style in (("certified", "-"), ("best-of-K", "--")):
            pts = sorted((r["M"], r["value"], r["low"], r["high"]) for r in rs.rows
                         if r[MODEL] == m and r["reading"] == reading
                         and r["estimate"] == "RVR" and r["value"] is not None)
            if not pts:
                continue
            xs = [p[0] for p in pts]
            ax.plot(xs, [p[1] for p in pts], marker="o", ms=3, linestyle=style,
                    color=f"C{j % 10}", label=f"{m} · {reading}")
            ax.fill_between(xs, [p[2] for p in pts], [p[3] for p in pts],
                            color=f"C{j % 10}", alpha=0.15)
    doubling_axis(ax, [r["M"] for r in rs.rows], "prompts M (nested subsets, seeded)",
                  "rational value risk", "bands: 95% prompt-bootstrap CI")


def m_table(results: Mapping[str, Mapping[str, Any]]) -> ResultSet | None:
    """Table 14: the RVR estimate, its 95 % interval and the interval's width on nested
    subsets of M prompts (M = 2, 4, … up to all), with term (I) at that M. None when no
    estimate has ``m_sweep``."""
    if not any(r.get("m_sweep") for r in results.values()):
        return None
    labels = {"certified": "certified", "best_of_k": "best-of-K"}
    rows = []
    for m, r in results.items():
        for x in r.get("m_sweep", []):
            base = {"M": x["M"], "reading": labels[x["reading"]], MODEL: m}
            row = {**base, "estimate": "RVR", "n": x["prompts"], "value": x.get("rvr")}
            if x.get("rvr") is None:
                rows.append(row)
                continue
            row.update(low=x["rvr_ci"][0], high=x["rvr_ci"][1], ci_width=x["ci_width"],
                       bound_prompts=x["bound_prompts"])
            rows += [row,
                     {**base, "estimate": "95% CI low", "value": x["rvr_ci"][0]},
                     {**base, "estimate": "95% CI high", "value": x["rvr_ci"][1]},
                     {**base, "estimate": "CI width", "value": x["ci_width"]},
                     {**base, "estimate": "bound (I) prompts", "value": x["bound_prompts"]}]
    seed = next(iter(results.values())).get("seed")
    order = ["RVR", "95% CI low", "95% CI high", "CI width", "bound (I) prompts"]
    for r in rows:
        r["no."] = order.index(r["estimate"]) + 1
    return ResultSet(
        "qh-table14", f"{SOURCE}, Table 14", "RVR as the number of prompts M grows",
        ["M", "reading", "no.", "estimate"], rows, value="RVR",
        test=f"95% percentile prompt bootstrap within each subset; subsets are the first M "
             f"prompts of one permutation drawn with seed {seed} (nested, reproducible)",
        note="CI width (the paper's Table 14 quantity) and bound (I) = √(2 ln(6/δ)/M) "
             "both shrink like 1/√M. A certified subset counts only its "
             "certified prompts (n).", figure=_fig_m)


def l_table(results: Mapping[str, Mapping[str, Any]]) -> ResultSet | None:
    """Table 17: the verification term (III) per verifier budget L at the data's M and K,
    the total bound, and the RVR from the first L outcomes of each response where the
    verifier gave that many. None when no estimate has ``l_sweep``."""
    if not any(r.get("l_sweep") for r in results.values()):
        return None
    labels = {"certified": "certified", "best_of_k": "best-of-K"}
    rows = []
    stochastic = False
    for m, r in results.items():
        stochastic |= not r.get("deterministic_verifier", True)
        for x in r.get("l_sweep", []):
            base = {"L": x["L"], "reading": labels[x["reading"]], MODEL: m}
            rows.append({**base, "estimate": "bound (III) verification",
                         "value": x["verification"], "formula": x["formula"]})
            rows.append({**base, "estimate": "bound total ±", "value": x["total"]})
            row = {**base, "estimate": "RVR (first L outcomes)", "value": x["rvr"]}
            if x["rvr"] is not None:
                row.update(low=x["rvr_ci"][0], high=x["rvr_ci"][1])
            rows.append(row)
    note = ("(III) certified √(ln(12/δ)/(2MKL)); best-of-K min(1 − 1/K, √(ln(2K)/(2L)) + "
            "√(ln(6/δ)/(2M)) + √(ln(12/δ)/(2MKL))). Larger L shrinks only (III) and never "
            "removes the verifier's bias. ")
    note += ("RVR is re-estimated from the first L outcomes of every response (— beyond "
             "the fewest outcomes given)." if stochastic else
             "prefcert's verifier is deterministic: its (III) is 0 at every L; the rows "
             "give the term a stochastic verifier of L calls would add at this M and K "
             "(RVR —: no outcomes to re-estimate from).")
    return ResultSet(
        "qh-table17", f"{SOURCE}, Table 17", "the verification term across the verifier "
        "budget L", ["L", "reading", "estimate"], rows, value="bound or RVR", note=note)
