"""The HTML report of ``prefcert consistency``, built on the benchmark report machinery (:class:`prefcert.bench.report.Report`: inline SVG, no script)."""
from __future__ import annotations


from ..report import Report, _plt
from .results import legend_or_empty, pvalue_text


def _fmt(x, digits: int = 1):
    return None if x is None else round(float(x), digits)


def _count(k: int, n: int) -> str:
    return f"{k} ({k / n:.1%})" if n else str(k)


def audit_report(audit: dict, result_sets=None,
                 title: str = "prefcert self-consistency audit") -> Report:
    """Plots and tables of a :func:`prefcert.bench.self_consistency.audit.consistency_audit`
    result: the paper's result sets (``result_sets``, default
    :func:`~prefcert.bench.self_consistency.results.audit_results` of the audit; models as
    columns), then the per-group detail (RMSE bars, group table, residual distributions,
    the local audit per model, kind and domain, fitted utilities)."""
    if result_sets is None:
        from .results import audit_results
        result_sets = audit_results(audit)
    s = audit["settings"]
    note = (f"fit {s['fit']}, RMSE divisor {s['rmse_divisor']}, price scale {s['price_scale']}, "
            f"normalisation {s['normalisation']}, {s['resamples']} bootstrap resamples "
            f"of {s['residuals']} residuals (seed {s['seed']}), {s['interval']} intervals; "
            + (f"Bonferroni over {s['groups']} groups at α = {s['alpha']}: threshold "
               f"{s['bonferroni_threshold']:.3g}, "
               f"smallest attainable p {s['min_attainable_p']:.3g} "
               f"({'reachable' if s['bonferroni_reachable'] else 'UNREACHABLE'})."
               if s["groups"] else "Bonferroni: no tests (no audit group has parsed "
                                   "answers)."))
    r = Report(title, note + (" " + s["warning"] if s.get("warning") else ""))
    plt = _plt()
    groups = audit["groups"]
    models = list(dict.fromkeys(g["model"] for g in groups))

    for rs in result_sets:
        r.result_set(rs)

    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(groups) + 2), 3.6))
    xs = list(range(len(groups)))
    ax.bar(xs, [g["rmse_pct"] or 0 for g in groups],
           color=[f"C{models.index(g['model']) % 10}" for g in groups])
    ax.set_xticks(xs)
    ax.set_xticklabels([f"{g['model']}·{g['domain']}·{g['utterance_id']}" for g in groups],
                       rotation=70, ha="right", fontsize=7)
    ax.set_ylabel("RMSE (% of price scale)")
    ax.grid(axis="y", alpha=0.3)
    r.figure("RMSE per audit group (% of price scale)", fig)

    def repair(g, key):
        c = g.get("certified", {}).get(key)
        if not c or c.get("verdict") is None:
            return None
        return round(c["value"], 2)
    r.grid("Audit groups", ["model", "domain", "utterance", "cells", "items", "RMSE $",
                            "RMSE %", "price scale", "p (bootstrap)", "Bonferroni reject",
                            "L1 repair $", "L2 repair $²", "certified", "acyclic", "min FAS",
                            "judgments"],
           [[g["model"], g["domain"], g["utterance_id"], g["cells"], g["items"],
             _fmt(g["rmse"], 2), _fmt(g["rmse_pct"], 2), _fmt(g["price_scale"]),
             pvalue_text(g["pvalue"], s["resamples"]),
             "yes" if g["reject_bonferroni"] else "no",
             repair(g, "l1_repair"), repair(g, "l2_repair"),
             ("all" if all(v.get("checked") for v in g.get("certified", {}).values())
              else "no") if g.get("certified") else "—",
             g.get("certified", {}).get("transitive", {}).get("verdict"),
             g.get("certified", {}).get("feedback_arc_set", {}).get("value"),
             g.get("certified", {}).get("feedback_arc_set", {}).get("judgments")]
            for g in groups],
           "L1 / L2 repair: the minimum total (squared) dollar adjustment of the answers "
           "that makes them exactly consistent, proved optimal by an LP / QP dual that "
           "prefcert's checker verifies in exact arithmetic. Min FAS: the fewest judgments "
           f"to reverse for an acyclic order, out of 'judgments' (--judgments "
           f"{s['judgments']}: " + ("one per pair of offers with a strict majority of "
                                    "choices)." if s["judgments"] == "majority" else
                                    "every completion that chose a direction)."))

    comps = audit["comparisons"]
    if comps:
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), sharey=False)
        for ax, kind in zip(axes, ("P1", "P2")):
            for j, m in enumerate(models):
                vals = [c["residual"] / c["scale"] * 100 for c in comps
                        if c["kind"] == kind and c["model"] == m and c["scale"]]
                if vals:
                    ax.hist(vals, bins=20, alpha=0.5, label=m, color=f"C{j % 10}")
            ax.set_title(f"{kind} residuals")
            ax.set_xlabel("R / endpoint mean price (%)")
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("comparisons")
        legend_or_empty(axes[1])
        r.figure("Residual distributions (P1 path sums, P2 price-adjusted differences)", fig)

        rows = sorted(audit["local"], key=lambda x: (models.index(x["model"]), x["kind"],
                                                     x["domain"] is not None,
                                                     x["domain"] or ""))
        r.grid("Local audit: supported reversals and rejections, per model, kind and domain",
               ["model", "kind", "domain", "n", "supported reversals",
                "residual CI excludes 0", "Holm rejections",
                f"lower bound ≥ {s['threshold']:.0%} of price"],
               [[x["model"], x["kind"], x["domain"] or "all", x["n"],
                 _count(x["reversals"], x["n"]), _count(x["rejects"], x["n"]),
                 _count(x["rejects_holm"], x["n"]), _count(x["exceeds_threshold"], x["n"])]
                for x in rows],
               f"Counts (percentages of n). Residual CI excludes 0: uncorrected "
               f"comparison-specific tests, as the paper counts them (not independent). "
               f"Holm: the same tests adjusted over each model's P1 or P2 family at "
               f"α = {s['alpha']}, valid under any dependence. The domain rows of a model "
               f"sum to its 'all' row (Table 8 is the P2 rows by domain).")

    for m in models:
        mine = [g for g in groups if g["model"] == m]
        cols = min(3, len(mine))
        rows_n = -(-len(mine) // cols)
        fig, axes = plt.subplots(rows_n, cols, figsize=(4.2 * cols, 2.8 * rows_n), squeeze=False)
        for ax, g in zip(axes.flat, mine):
            names = list(g["utilities"])
            u = [g["utilities"][x] for x in names]
            # a percentile interval need not contain the estimate (and a zero-spread one
            # is off by rounding): the bars are clipped at 0
            lo = [max(0.0, u[i] - g["utility_ci"][x][0]) for i, x in enumerate(names)]
            hi = [max(0.0, g["utility_ci"][x][1] - u[i]) for i, x in enumerate(names)]
            ax.errorbar(range(len(names)), u, yerr=[lo, hi], fmt="o", capsize=3, ms=4)
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names, rotation=60, fontsize=6)
            ax.set_title(f"{g['domain']} · {g['utterance_id']}", fontsize=9)
            ax.grid(alpha=0.3)
        for ax in list(axes.flat)[len(mine):]:
            ax.axis("off")
        fig.tight_layout()
        r.figure(f"Fitted utilities with 95 % bootstrap intervals — {m}", fig)

    return r
