"""The HTML report of ``prefcert risk``, built on the benchmark report machinery
(:class:`prefcert.bench.report.Report`: inline SVG, no script)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..report import Report, _plt


def risk_report(results: Mapping[str, dict], scored: Mapping[str, Sequence[dict]],
                result_sets=None, title: str = "prefcert rational value risk") -> Report:
    """The page of ``prefcert risk`` over several models: ``results`` and ``scored`` map a
    model to its :func:`~prefcert.bench.rational_value_risk.risk.risk_table` result and
    its per-prompt records. First Qian & He's result sets (``result_sets``, default
    :func:`~prefcert.bench.rational_value_risk.results.risk_results`; models as columns,
    the k-curves of every model on one plot), then each model's detail."""
    if result_sets is None:
        from .results import risk_results
        result_sets = risk_results(results)
    first = next(iter(results.values()))
    r = Report(title, f"{len(results)} model(s): {', '.join(results)}; "
                      f"{', '.join(sorted({x for res in results.values() for x in res['suites']}))}"
                      f"; {first['resamples']} prompt-bootstrap resamples, seed "
                      f"{first['seed']}; prefcert is a deterministic verifier (L = 1, "
                      f"verification error 0) unless utilities come from another one.")
    for rs in result_sets:
        r.result_set(rs)
    for model, result in results.items():
        model_section(r, model, result, scored[model])
    return r


def model_section(r: Report, model: str, result: dict, scored: Sequence[dict]) -> None:
    """One model's figures and tables (the page of a one-model run), titled with its name."""
    plt = _plt()
    rd = result["readings"]
    sfx = f" — {model}"
    names = [n for n in ("certified", "best_of_k") if rd.get(n, {}).get("prompts")]
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    vals = [rd[n]["rvr"] for n in names]
    ax.bar(range(len(names)), vals,
           yerr=[[max(0.0, v - rd[n]["rvr_ci"][0]) for v, n in zip(vals, names)],
                 [max(0.0, rd[n]["rvr_ci"][1] - v) for v, n in zip(vals, names)]], capsize=4,
           color=["C0", "C1"][:len(names)])
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(["REU = 1 (certified)", "REU = best-of-K"][:len(names)])
    ax.set_ylabel("rational value risk")
    ax.grid(axis="y", alpha=0.3)
    r.figure("Rational value risk under both readings (95 % prompt-bootstrap intervals)" + sfx, fig)
    r.grid("Estimates" + sfx, ["reading", "prompts", "DEU", "REU", "RVR", "bootstrap mean", "95 % CI",
                         "(I) prompts", "(II) reasoning", "(III) verification",
                         f"total bound (δ = {rd[names[0]]['bounds']['delta']})" if names else "total"],
           [[n, rd[n]["prompts"], result["deu"], rd[n]["reu"], rd[n]["rvr"],
             rd[n]["rvr_bootstrap_mean"], f"[{rd[n]['rvr_ci'][0]:.3f}, {rd[n]['rvr_ci'][1]:.3f}]",
             rd[n]["bounds"]["prompt_sampling"], rd[n]["bounds"]["reasoning_sampling"],
             rd[n]["bounds"]["verification"], rd[n]["bounds"]["total"]] for n in names],
           ("Half-widths at δ/3 each (union bound): (I) "
            + rd[names[0]]["bounds"]["formulas"]["prompt_sampling"] + "; (II) "
            + ", ".join(f"{n} {rd[n]['bounds']['formulas']['reasoning_sampling']}" for n in names)
            + "; (III) " + rd[names[0]]["bounds"]["formulas"]["verification"]) if names else "")
    curve = result["k_curve"]
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ks = [c["k"] for c in curve]
    ax.plot(ks, [c["best_of_k"] for c in curve], marker="o", label="best-of-k (truncation)")
    if all("pass_at_k" in c for c in curve):
        ax.plot(ks, [c["pass_at_k"] for c in curve], marker="s", linestyle="--",
                label="pass@k (unbiased)")
    ax.axhline(result["deu"], color="grey", linestyle=":", label="DEU")
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("k samples")
    ax.set_ylabel("expected utility")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    r.figure("Best-of-k and pass@k against the deployed expected utility" + sfx, fig)
    binary = all("pass_at_k" in c for c in curve)
    r.grid("RVR per budget k (the first k samples of every prompt)" + sfx,
           ["k", "best-of-k", "RVR certified", "RVR best-of-k"]
           + (["pass@k", "RVR pass@k"] if binary else []),
           [[c["k"], c["best_of_k"], c["rvr_certified"], c["rvr_best_of_k"]]
            + ([c["pass_at_k"], c["rvr_pass_at_k"]] if binary else []) for c in curve],
           "RVR is the point estimate (REU − mean utility); the bootstrap mean beside it in "
           "the table above is the mean of the resampled means, the released code's value.")
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.hist([sum(s["utilities"]) / len(s["utilities"]) for s in scored], bins=20, range=(0, 1))
    ax.set_xlabel("per-prompt share of correct samples")
    ax.set_ylabel("prompts")
    ax.grid(alpha=0.3)
    r.figure("Per-prompt deployed utility" + sfx, fig)
    if result.get("strata"):
        by = result["by"]
        fig, ax = plt.subplots(figsize=(6, 3.4))
        st = result["strata"]
        for j, n in enumerate(("certified", "best_of_k")):
            pts = [(x[by], x["readings"][n]) for x in st if x["readings"][n].get("prompts")]
            if not pts:
                continue
            xs = [i + (j - 0.5) * 0.3 for i in range(len(pts))]
            v = [p["rvr"] for _, p in pts]
            ax.bar(xs, v, 0.3, yerr=[[max(0.0, a - p["rvr_ci"][0]) for a, (_, p) in zip(v, pts)],
                                     [max(0.0, p["rvr_ci"][1] - a) for a, (_, p) in zip(v, pts)]],
                   capsize=3, label=n)
            ax.set_xticks(range(len(pts)))
            ax.set_xticklabels([str(k) for k, _ in pts])
        ax.set_xlabel(by)
        ax.set_ylabel("rational value risk")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7)
        r.figure(f"Rational value risk by {by}{sfx}", fig)
    r.grid("Answers" + sfx, ["samples", "parse-failure rate", "timeout rate",
                       "prompts without a certified REU"],
           [[result["samples"], result["parse_failure_rate"], result["timeout_rate"],
             result["uncertified_prompts"]]])
