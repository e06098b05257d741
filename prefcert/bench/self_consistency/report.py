"""The HTML report of ``prefcert consistency``, built on the benchmark report machinery (:class:`prefcert.bench.report.Report`: inline SVG, no script)."""
from __future__ import annotations


from ..report import Report, _plt


def _fmt(x, digits: int = 1):
    return None if x is None else round(float(x), digits)


def audit_report(audit: dict, title: str = "prefcert self-consistency audit") -> Report:
    """Plots and tables of a :func:`prefcert.bench.self_consistency.audit.consistency_audit` result."""
    s = audit["settings"]
    note = (f"fit {s['fit']}, RMSE divisor {s['rmse_divisor']}, price scale {s['price_scale']}, "
            f"normalisation {s['normalisation']}, {s['resamples']} bootstrap resamples "
            f"of {s['residuals']} residuals (seed {s['seed']}), {s['interval']} intervals; "
            f"Bonferroni over {s['groups']} groups at α = {s['alpha']}: threshold "
            f"{s['bonferroni_threshold']:.3g}, "
            f"smallest attainable p {s['min_attainable_p']:.3g} "
            f"({'reachable' if s['bonferroni_reachable'] else 'UNREACHABLE'}).")
    r = Report(title, note + (" " + s["warning"] if s.get("warning") else ""))
    plt = _plt()
    groups = audit["groups"]
    models = list(dict.fromkeys(g["model"] for g in groups))

    r.grid("Lack of fit: mean of the per-utterance RMSEs, $ (% of price scale)",
           ["model", *dict.fromkeys(t["domain"] for t in audit["table2"])],
           [[m] + [f"{t['rmse']:.1f} ({t['rmse_pct']:.1f}%)" if t["rmse_pct"] is not None
                   else f"{t['rmse']:.1f}"
                   for t in audit["table2"] if t["model"] == m] for m in models],
           "Each cell is the arithmetic mean of the group RMSEs of its utterances, "
           "dollars and percent averaged separately.")

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
                            "L1 repair $", "L2 repair $²", "certified", "acyclic", "min FAS"],
           [[g["model"], g["domain"], g["utterance_id"], g["cells"], g["items"],
             _fmt(g["rmse"], 2), _fmt(g["rmse_pct"], 2), _fmt(g["price_scale"]),
             g["pvalue"], "yes" if g["reject_bonferroni"] else "no",
             repair(g, "l1_repair"), repair(g, "l2_repair"),
             ("all" if all(v.get("checked") for v in g.get("certified", {}).values())
              else "no") if g.get("certified") else "—",
             g.get("certified", {}).get("transitive", {}).get("verdict"),
             g.get("certified", {}).get("feedback_arc_set", {}).get("value")]
            for g in groups],
           "L1 / L2 repair: the minimum total (squared) dollar adjustment of the answers "
           "that makes them exactly consistent, proved optimal by an LP / QP dual that "
           "prefcert's checker verifies in exact arithmetic.")

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
        axes[1].legend(fontsize=7)
        r.figure("Residual distributions (P1 path sums, P2 price-adjusted differences)", fig)

        from .audit import threshold_curve
        ts = [i / 100 for i in range(0, 101, 2)]
        fig, ax = plt.subplots(figsize=(6.5, 3.6))
        for j, kind in enumerate(("P1", "P2")):
            ax.plot(ts, threshold_curve(comps, kind, ts), color=f"C{j}", label=f"{kind} observed")
            ax.plot(ts, threshold_curve(comps, kind, ts, lower=True), color=f"C{j}",
                    linestyle="--", label=f"{kind} 95% lower bound")
        ax.set_xlabel("threshold t (share of the endpoint mean price)")
        ax.set_ylabel("share of comparisons with |R| ≥ t")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        r.figure("Magnitude of inconsistency: share of comparisons at or above each threshold", fig)

        rows = [x for x in audit["local"] if x["domain"] is None]
        r.grid("Local audit: supported reversals and rejections", [
            "model", "kind", "n", "supported reversals", "residual CI excludes 0",
            "Holm rejections", f"lower bound ≥ {s['threshold']:.0%} of price"],
               [[x["model"], x["kind"], x["n"], x["reversals"], x["rejects"],
                 x["rejects_holm"], x["exceeds_threshold"]] for x in rows],
               f"Residual CI excludes 0: uncorrected comparison-specific tests, as the paper "
               f"counts them (not independent). Holm: the same tests adjusted over each "
               f"model's P1 or P2 family at α = {s['alpha']}, valid under any dependence.")

    for m in models:
        mine = [g for g in groups if g["model"] == m]
        cols = min(3, len(mine))
        rows_n = -(-len(mine) // cols)
        fig, axes = plt.subplots(rows_n, cols, figsize=(4.2 * cols, 2.8 * rows_n), squeeze=False)
        for ax, g in zip(axes.flat, mine):
            names = list(g["utilities"])
            u = [g["utilities"][x] for x in names]
            lo = [u[i] - g["utility_ci"][x][0] for i, x in enumerate(names)]
            hi = [g["utility_ci"][x][1] - u[i] for i, x in enumerate(names)]
            ax.errorbar(range(len(names)), u, yerr=[lo, hi], fmt="o", capsize=3, ms=4)
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names, rotation=60, fontsize=6)
            ax.set_title(f"{g['domain']} · {g['utterance_id']}", fontsize=9)
            ax.grid(alpha=0.3)
        for ax in list(axes.flat)[len(mine):]:
            ax.axis("off")
        fig.tight_layout()
        r.figure(f"Fitted utilities with 95 % bootstrap intervals — {m}", fig)

    if audit["stress"]:
        fig, ax = plt.subplots(figsize=(6.5, 3.6))
        keys = list(dict.fromkeys((x["model"], x["domain"]) for x in audit["stress"]))
        for j, (m, d) in enumerate(keys):
            pts = [x for x in audit["stress"] if x["model"] == m and x["domain"] == d]
            ks = [x["k"] for x in pts]
            mean = [x["mean_pct"] for x in pts]
            ax.errorbar(ks, mean, yerr=[[v - x["ci"][0] for v, x in zip(mean, pts)],
                                        [x["ci"][1] - v for v, x in zip(mean, pts)]],
                        marker="o", capsize=3, label=f"{m} · {d}", color=f"C{j % 10}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("path length k")
        ax.set_ylabel("mean |R₁,ₖ| (% of endpoint mean price)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        r.figure("Path-length stress test (bootstrap intervals over paths)", fig)

    r.grid("Parseability", ["model", "calls", "finite parse", "number only"],
           [[p["model"], p["calls"], p["finite"], p["number_only"]] for p in audit["parse"]])
    return r
