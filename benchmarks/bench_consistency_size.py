"""Size of the self-consistency tests on answers of a consistent model (not a test).

Every dataset answers the paper's design (:func:`prefcert.generators.consistency.
paper_design`: 9 audit groups, 96 P1 and 48 P2 comparisons, 15 completions per cell) from
the true utilities plus noise, so every null holds. Per reading of the audit it prints

- the group test: the rejection rate at α = 0.05 over all groups with its 95 % Wilson
  interval, and the Kolmogorov–Smirnov p-value of the p-values against U(0, 1);
- the P1 and P2 comparisons: the share whose 95 % residual interval excludes 0;
- Holm over each model's P1 (and P2) family: the share of datasets with any rejection
  (family-wise error);
- the fitted utilities' 95 % intervals: coverage of the true utilities.

Readings: ``old`` = the plain (centred-residual) bootstrap with percentile intervals, the
former defaults; ``new`` = the defaults (modified residuals, Welch–Satterthwaite t
intervals); ``new-percentile`` = modified residuals with percentile intervals.

Noise: ``normal`` (sd $20, answers rounded to whole dollars), ``heteroscedastic`` (each
cell's sd $20·exp(0.75 Z_c), rounded), ``skewed`` ($20 × a centred lognormal(0, 0.75)).
Run from the repository root: ``python benchmarks/bench_consistency_size.py [--datasets N]
[--noise NOISE] [--readings READING,...]`` (about 0.5 s per dataset and reading on one
core).
"""
from __future__ import annotations

import argparse
import gc
import math
import time

import numpy as np
from prefcert.bench.stats import wilson
from prefcert.generators.consistency import paper_design, simulate_responses
from scipy import stats

from prefcert import consistency_audit

READINGS = {"old": {"residuals": "centred", "interval": "percentile"},
            "new": {},
            "new-percentile": {"interval": "percentile"}}


def responses(design: dict, noise: str, seed: int) -> list[dict]:
    if noise == "normal":
        return simulate_responses(design, {"m": {"noise": 20}}, completions=15, seed=seed)
    rows = simulate_responses(design, {"m": {"noise": 0, "round": 0}}, completions=15,
                              seed=seed)
    rng = np.random.default_rng([seed, 99])
    sd = {c: 20 * math.exp(0.75 * rng.normal()) for c in design["cells"]}
    out = []
    for r in rows:
        if noise == "heteroscedastic":
            v = round(r["parsed_value"] + rng.normal(0, sd[r["cell_id"]]))
        else:
            v = r["parsed_value"] + 20 * (rng.lognormal(0, 0.75) - math.exp(0.75 ** 2 / 2))
        out.append({"model": r["model"], "cell_id": r["cell_id"], "value": v})
    return out


def rate(hits: int, n: int) -> str:
    lo, hi = wilson(hits, n)
    return f"{hits / n:.4f} [{lo:.4f}, {hi:.4f}] ({hits}/{n})"


def run(noise: str, datasets: int, readings: list[str], resamples: int) -> None:
    design = paper_design(0)
    plain = {k: v for k, v in design.items() if k != "truth"}
    acc = {r: {"p": [], "P1": [], "P2": [], "fwer_P1": 0, "fwer_P2": 0, "cover": 0,
               "utilities": 0} for r in readings}
    t0 = time.perf_counter()
    for s in range(datasets):
        rows = responses(design, noise, s)
        for name in readings:
            a = consistency_audit(rows, plain, resamples=resamples, certify=False, seed=s,
                                  **READINGS[name])
            x = acc[name]
            x["p"] += [g["pvalue"] for g in a["groups"]]
            for kind in ("P1", "P2"):
                mine = [c for c in a["comparisons"] if c["kind"] == kind]
                x[kind] += [c["reject"] for c in mine]
                x[f"fwer_{kind}"] += any(c["reject_holm"] for c in mine)
            for g in a["groups"]:
                truth = design["truth"][g["domain"]]
                for item, (lo, hi) in g["utility_ci"].items():
                    x["cover"] += lo <= truth[item] <= hi
                    x["utilities"] += 1
        if (s + 1) % 100 == 0:
            print(f"  … {s + 1} of {datasets} datasets, {time.perf_counter() - t0:.0f} s",
                  flush=True)
    print(f"noise {noise}: {datasets} datasets, B = {resamples}, "
          f"{time.perf_counter() - t0:.0f} s")
    for name in readings:
        x = acc[name]
        p = np.array(x["p"])
        print(f"  {name:16s} group test size {rate(int((p <= 0.05).sum()), len(p))}, "
              f"KS p = {stats.kstest(p, 'uniform').pvalue:.3g}")
        for kind in ("P1", "P2"):
            family = len(x[kind]) // datasets
            # a percentile p-value is at least 2/(B + 1): Holm cannot reject below α/family
            dead = READINGS[name].get("interval") == "percentile" and \
                2 / (resamples + 1) > 0.05 / family
            print(f"  {'':16s} {kind} interval excludes 0: "
                  f"{rate(int(sum(x[kind])), len(x[kind]))}; Holm family-wise: "
                  f"{rate(x[f'fwer_{kind}'], datasets)}"
                  + (f" (no rejection reachable: 2/(B + 1) > 0.05/{family})" if dead else ""))
        print(f"  {'':16s} utility interval coverage {rate(x['cover'], x['utilities'])}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=int, default=1000)
    ap.add_argument("--others", type=int, default=300,
                    help="datasets for the heteroscedastic and skewed noise")
    ap.add_argument("--resamples", type=int, default=999)
    ap.add_argument("--noise", choices=("normal", "heteroscedastic", "skewed"),
                    help="only this noise (default: all three)")
    ap.add_argument("--readings", help=f"comma-separated subset of {', '.join(READINGS)}")
    a = ap.parse_args()
    # statsmodels' Holm adjustment runs a full garbage collection on every call; freezing
    # the objects of the imports keeps that collection short
    gc.freeze()
    for noise in [a.noise] if a.noise else ["normal", "heteroscedastic", "skewed"]:
        readings = a.readings.split(",") if a.readings else \
            list(READINGS) if noise == "normal" else ["old", "new"]
        run(noise, a.datasets if noise == "normal" else a.others, readings, a.resamples)


if __name__ == "__main__":
    main()
