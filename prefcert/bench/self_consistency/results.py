"""The result sets of ``prefcert consistency``: Ford et al.'s tables and figures, one
:class:`~prefcert.bench.results.ResultSet` each, with the models as columns.

Built from the dict :func:`~prefcert.bench.self_consistency.audit.consistency_audit`
returns (any number of models in one audit): :func:`audit_results` gives them in the
paper's order. The terminal prints each with
:func:`~prefcert.bench.results.print_result_set`, ``--json`` carries their
:meth:`~prefcert.bench.results.ResultSet.as_dict` under ``results``, and the HTML report
draws each figure and table through :meth:`~prefcert.bench.report.Report.result_set`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..results import MODEL, ResultSet, doubling_axis
from ..stats import wilson

SOURCE = "Ford et al. (2026)"

#: The thresholds t of the Fig. 3 curves (the paper's axis runs from 0 to 1; it names
#: t = 0.10 and, in Table 8, 0.25).
THRESHOLDS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

#: (row label, comparison field) of the local-audit counts (Tables 3 and 8).
LOCAL_MEASURES = (("supported reversal", "reversals"),
                  ("residual CI excludes 0", "rejects"),
                  ("Holm rejection", "rejects_holm"),
                  ("lower bound ≥ threshold", "exceeds_threshold"))


def pvalue_text(p: float, resamples: int) -> str | float:
    """A bootstrap p-value as printed: ``"< 1/(B+1)"`` (with B + 1 written out) when it is
    at the resampling floor 1/(B+1) — no resample reached the observed statistic, so the
    estimate (1 + 0)/(B + 1) is only an upper end — else the number. O(1).

    Examples
    --------
    >>> pvalue_text(1 / 10001, 10000), pvalue_text(0.25, 10000)
    ('< 1/10001', 0.25)
    """
    floor = 1.0 / (resamples + 1)
    return f"< 1/{resamples + 1}" if p <= floor * (1 + 1e-9) else float(p)


def _share(row: dict, k: int, n: int) -> dict:
    ci = wilson(k, n) if n else None
    return {**row, "value": k / n if n else None, "k": int(k), "n": int(n),
            "low": ci[0] if ci else None, "high": ci[1] if ci else None}


def _models(audit: Mapping[str, Any]) -> list[str]:
    return [p["model"] for p in audit["parse"]]


# ------------------------------------------------------------------------------ figures

def legend_or_empty(ax, text: str = "no parsed answers") -> None:
    """A legend of the artists drawn on ``ax``, or, with none, the panel saying ``text``
    (matplotlib would warn "No artists with labels found" on stderr and draw empty axes)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    else:
        ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center",
                fontsize=11, color="0.4")


def _fig_table2(rs: ResultSet, ax) -> None:
    rows = [r for r in rs.rows if r["unit"] == "%" and r["value"] is not None]
    doms = list(dict.fromkeys(r["domain"] for r in rows))
    models = rs.models()
    w = 0.8 / max(1, len(models))
    for j, m in enumerate(models):
        pts = [(doms.index(r["domain"]), r["value"]) for r in rows if r[MODEL] == m]
        ax.bar([i - 0.4 + w * (j + 0.5) for i, _ in pts], [v for _, v in pts], w * 0.95,
               label=m, color=f"C{j % 10}")
    ax.set_xticks(range(len(doms)))
    ax.set_xticklabels(doms)
    ax.set_ylabel("mean group RMSE (% of price scale)")
    ax.grid(axis="y", alpha=0.3)
    legend_or_empty(ax)


def _fig_threshold(rs: ResultSet, ax) -> None:
    for j, m in enumerate(rs.models()):
        for curve, style in (("observed", "-"), ("95% lower bound", "--")):
            pts = sorted((r["t"], r["value"]) for r in rs.rows
                         if r[MODEL] == m and r["curve"] == curve and r["value"] is not None)
            if pts:
                ax.step([t for t, _ in pts], [v for _, v in pts], where="post",
                        linestyle=style, color=f"C{j % 10}", label=f"{m} ({curve})")
    ax.set_xlabel("threshold t (share of the endpoint mean price)")
    ax.set_ylabel("share of comparisons with |R| ≥ t")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    legend_or_empty(ax)


def _fig_stress(rs: ResultSet, ax) -> None:
    keys = list(dict.fromkeys((r[MODEL], r["domain"]) for r in rs.rows))
    models = rs.models()
    styles = ["-", "--", ":", "-."]
    doms = list(dict.fromkeys(d for _, d in keys))
    for m, d in keys:
        pts = sorted((r for r in rs.rows if r[MODEL] == m and r["domain"] == d),
                     key=lambda r: r["k"])
        v = [r["value"] for r in pts]
        ax.errorbar([r["k"] for r in pts], v,
                    yerr=[[max(0.0, x - r["low"]) for x, r in zip(v, pts)],
                          [max(0.0, r["high"] - x) for x, r in zip(v, pts)]],
                    marker="o", capsize=3, color=f"C{models.index(m) % 10}",
                    linestyle=styles[doms.index(d) % len(styles)], label=f"{m} · {d}")
    doubling_axis(ax, [r["k"] for r in rs.rows], "path length k",
                  "mean |R₁,ₖ| (% of endpoint mean price)")


# --------------------------------------------------------------------------- result sets

def table2(audit: Mapping[str, Any]) -> ResultSet:
    """Table 2: per (model, domain) the arithmetic mean of the per-utterance group RMSEs,
    in dollars and in percent of the price scale (two rows per domain, ``unit`` $ / %)."""
    rows = []
    for t in audit["table2"]:
        base = {"domain": t["domain"], MODEL: t["model"], "groups": t["groups"]}
        rows.append({**base, "unit": "$", "value": t["rmse"]})
        rows.append({**base, "unit": "%", "value": t["rmse_pct"]})
    return ResultSet(
        "ford-table2", f"{SOURCE}, Table 2", "lack of fit: mean of the per-utterance "
        "group RMSEs", ["domain", "unit"], rows, value="RMSE ($, or % of price scale)",
        note="Each cell averages the group RMSEs of the domain's utterances, dollars and "
             "percent separately (not a pooled fit); fit rank differs by domain (hotels: 3 "
             "items), so domains are not comparable.", figure=_fig_table2)


def table3(audit: Mapping[str, Any]) -> ResultSet:
    """Table 3: per model and kind (P1, P2) the shares of supported reversals, residual
    intervals excluding 0, Holm rejections and magnitude lower bounds at the threshold."""
    thr = audit["settings"]["threshold"]
    rows = []
    for x in audit["local"]:
        if x["domain"] is not None:
            continue
        for label, key in LOCAL_MEASURES:
            name = f"lower bound ≥ {thr:.0%} of price" if key == "exceeds_threshold" else label
            rows.append(_share({"kind": x["kind"], "measure": name, MODEL: x["model"]},
                               x[key], x["n"]))
    return ResultSet(
        "ford-table3", f"{SOURCE}, Table 3", "local self-consistency audit",
        ["kind", "measure"], rows, value="share of the comparisons (k of n in the JSON)",
        test=f"per comparison: the residual's 95% {audit['settings']['interval']} interval "
             f"excludes 0 (uncorrected, not independent: comparisons share cells, as the "
             f"paper counts them); Holm at α = {audit['settings']['alpha']} over each "
             f"model's P1 and, separately, P2 family; unpaired across models",
        note="Supported reversal: the direct and the constructed 95% intervals both exclude "
             "0 in opposite directions. Intervals on the shares: Wilson 95%.")


def table8(audit: Mapping[str, Any]) -> ResultSet:
    """Table 8 (P2 by domain, here P1 too): the Table 3 shares per (kind, domain)."""
    thr = audit["settings"]["threshold"]
    rows = []
    for x in audit["local"]:
        if x["domain"] is None:
            continue
        for label, key in LOCAL_MEASURES:
            name = f"lower bound ≥ {thr:.0%} of price" if key == "exceeds_threshold" else label
            rows.append(_share({"kind": x["kind"], "domain": x["domain"], "measure": name,
                                MODEL: x["model"]}, x[key], x["n"]))
    return ResultSet(
        "ford-table8", f"{SOURCE}, Table 8", "local audit by domain (the paper shows P2; "
        "P1 added)", ["kind", "domain", "measure"], rows,
        value="share of the comparisons (k of n in the JSON)",
        test="as Table 3; the Holm family is the model's comparisons of the kind over every "
             "domain", note="The domain rows of a model sum to its Table 3 counts.")


def fig3(audit: Mapping[str, Any], kind: str, ts: Sequence[float] = THRESHOLDS) -> ResultSet:
    """Fig. 3 for one kind (P1 or P2): per model the share of comparisons whose normalised
    |R| (solid: observed; dashed: its 95% lower bound) is at least t."""
    from .audit import threshold_curve
    rows = []
    for m in _models(audit):
        mine = [c for c in audit["comparisons"] if c["model"] == m and c["kind"] == kind]
        if not mine:
            continue
        n = sum(1 for c in mine if c["normalised"] is not None)
        for curve, lower in (("observed", False), ("95% lower bound", True)):
            for t, v in zip(ts, threshold_curve(mine, kind, ts, lower=lower)):
                rows.append({"curve": curve, "t": t, MODEL: m, "value": v, "n": n,
                             "k": round(v * n)})
    return ResultSet(
        f"ford-fig3-{kind.lower()}", f"{SOURCE}, Fig. 3 ({kind})",
        f"share of {kind} comparisons at or above each threshold t of |R| / ((p + q)/2)",
        ["curve", "t"], rows,
        value="share of the model's comparisons",
        note="Per model (the paper draws one curve per model); the lower-bound curves use "
             "each comparison's own 95% interval and are not simultaneous bands.",
        figure=_fig_threshold)


def table6(audit: Mapping[str, Any]) -> ResultSet:
    """Table 6: per model the elicitation calls, finite parses and number-only parses
    (responses to stress-only cells are not counted; they are in ``parse_stress``)."""
    rows = []
    for p in audit["parse"]:
        rows.append({"measure": "calls", MODEL: p["model"], "value": p["calls"]})
        for name, key in (("finite parse", "finite"), ("number-only", "number_only")):
            sh = _share({}, p[key], p["calls"])
            rows.append({"measure": name, MODEL: p["model"], "value": p[key], "k": p[key],
                         "n": p["calls"], "share": sh["value"], "low": sh["low"],
                         "high": sh["high"]})
    stress = {p["model"]: p["calls"] for p in audit.get("parse_stress", [])}
    return ResultSet(
        "ford-table6", f"{SOURCE}, Table 6", "numerical-output parseability of the "
        "elicitation calls", ["measure"], rows, value="calls (count)",
        note="Counted over the responses to the audit's cells only (the paper's 4,500 per "
             "model); the stress-test calls are apart" +
             (f" ({', '.join(f'{m} {k}' for m, k in stress.items())})" if stress else "") +
             ". The shares k / n, with Wilson intervals, are in the JSON.")


def table7(audit: Mapping[str, Any]) -> ResultSet:
    """Table 7 / Fig. 4: per (model, domain, k) the mean |R₁,ₖ| in % of the endpoint
    mean price with its bootstrap interval over the paths."""
    rows = [{"domain": x["domain"], "k": x["k"], MODEL: x["model"], "value": x["mean_pct"],
             "low": x["ci"][0], "high": x["ci"][1], "n": x["paths"]} for x in audit["stress"]]
    return ResultSet(
        "ford-table7", f"{SOURCE}, Table 7 and Fig. 4", "path-length stress test: mean "
        "|R₁,ₖ| over the paths", ["domain", "k"], rows,
        value="% of the endpoint mean price", note="95% percentile bootstrap interval over "
        "the paths (low, high in the JSON; n paths); k = 1 is 0 by construction.",
        figure=_fig_stress)


def table9(audit: Mapping[str, Any]) -> ResultSet:
    """Tables 9–10: per group (model, domain, utterance) the RMSE in $ and %, and the
    bootstrap p-value (``"< 1/(B+1)"`` at the resampling floor; the number in
    ``pvalue``)."""
    b = audit["settings"]["resamples"]
    rows = []
    for g in audit["groups"]:
        base = {"domain": g["domain"], "utterance": g["utterance_id"], MODEL: g["model"]}
        rows.append({**base, "measure": "RMSE $", "value": g["rmse"]})
        rows.append({**base, "measure": "RMSE %", "value": g["rmse_pct"]})
        rows.append({**base, "measure": "bootstrap p", "value": pvalue_text(g["pvalue"], b),
                     "pvalue": g["pvalue"], "reject_bonferroni": g["reject_bonferroni"]})
    return ResultSet(
        "ford-table9", f"{SOURCE}, Tables 9–10", "audit-group self-consistency tests",
        ["domain", "utterance", "measure"], rows, value="RMSE, or the unadjusted p-value",
        test=f"null-imposed residual bootstrap of the group's SSE, B = {b}, p = (1 + #{{T* ≥ "
             f"T}})/(B + 1), unadjusted (Bonferroni in ford-groups-rejected)",
        note=f"'< 1/{b + 1}': no resample reached the observed statistic, the smallest "
             f"p-value B resamples can give.")


def groups_rejected(audit: Mapping[str, Any]) -> ResultSet:
    """The groups rejected after Bonferroni, per (model, domain) (the paper's main text)."""
    s = audit["settings"]
    cells: dict[tuple, list[dict]] = {}
    for g in audit["groups"]:
        cells.setdefault((g["model"], g["domain"]), []).append(g)
    rows = [{"domain": d, MODEL: m, "value": sum(g["reject_bonferroni"] for g in gs),
             "k": sum(g["reject_bonferroni"] for g in gs), "n": len(gs)}
            for (m, d), gs in cells.items()]
    return ResultSet(
        "ford-groups-rejected", f"{SOURCE}, §4 (main text)", "audit groups rejected after "
        "Bonferroni", ["domain"], rows, value="groups rejected (of n in the JSON)",
        test=f"Bonferroni over all {s['groups']} groups of the run at α = {s['alpha']}: "
             f"reject at p ≤ {s['bonferroni_threshold']:.3g}" if s["groups"] else
             "Bonferroni: no tests (no audit group has parsed answers)",
        note=f"The smallest attainable p-value 1/(B+1) = {s['min_attainable_p']:.3g} is "
             f"{'below' if s['bonferroni_reachable'] else 'ABOVE'} the threshold"
             f"{'' if s['bonferroni_reachable'] else ': no group can be rejected'}."
             if s["groups"] else "")


def audit_results(audit: Mapping[str, Any]) -> list[ResultSet]:
    """Every result set of an audit, in the paper's order.

    Parameters
    ----------
    audit : dict
        A :func:`~prefcert.bench.self_consistency.audit.consistency_audit` result (any
        number of models).

    Returns
    -------
    list of ResultSet
        Table 2, Tables 9–10 with the Bonferroni counts, Table 3 and Table 8 (when there
        are P1 / P2 comparisons), Fig. 3 for P1 and P2, Table 6, and Table 7 / Fig. 4
        (when the design has stress paths); models in the order they first answered.

    Notes
    -----
    O(groups + comparisons · thresholds).

    References
    ----------
    Ford, Bahk, Wang, Jovine, Ye, Shmoys & Frazier (2026), "LLM-derived preference
    judgments are not self-consistent".
    """
    out = [table2(audit), table9(audit), groups_rejected(audit)]
    if audit["comparisons"]:
        out += [table3(audit), table8(audit)]
        out += [fig3(audit, k) for k in ("P1", "P2")
                if any(c["kind"] == k for c in audit["comparisons"])]
    out.append(table6(audit))
    if audit["stress"]:
        out.append(table7(audit))
    return out
