"""Simulated exceedance of the rational value risk error bounds (not a test).

The bounds of :func:`prefcert.error_bounds` hold each term with probability ≥ 1 − δ/3.
With the prompts fixed, this script draws the responses (and, for a stochastic verifier,
the verifier calls) again and again and counts how often the estimate misses its
conditional target by more than the term's half-width:

1. (II), reasoning sampling, best-of-K reading: the per-prompt gap max_k U_ik − mean_k U_ik
   with U_ik ~ Bernoulli(p_i); target Σ_i [1 − (1 − p_i)^K − p_i] / M. The earlier
   √(2 ln(6/δ)/(MK)) against the shipped (1 − 1/K)·√(ln(6/δ)/(2M)); the certified
   reading's √(ln(6/δ)/(2MK)) for reference (target 1 − mean p).
2. (III), verification, best-of-K reading: the responses fixed with verifier means
   v_ik, each utility the mean of L Bernoulli(v_ik) calls; target the gap of the v_ik.
   The earlier 2·√(ln(12/δ)/(2MKL)) against the shipped bound.

Success-probability profiles include adversarial ones: p* = 1 − 2^(−1/K) makes the
best-of-K indicator a fair coin (its variance is largest), and a half/half mixture of
p* and 0. Exceedance is shown with its 95 % Wilson interval; nominal is δ/3 = 1.67 %.
Run from the repository root: ``python benchmarks/bench_risk_bounds.py [--reps N]``
"""
from __future__ import annotations

import argparse
import math

import numpy as np
from prefcert.bench.stats import wilson

from prefcert import error_bounds

DELTA = 0.05


def profiles(m: int, k: int, rng) -> dict[str, np.ndarray]:
    star = 1 - 0.5 ** (1 / k)
    return {"Beta(2,2)": rng.beta(2, 2, m), "uniform": rng.random(m),
            "rare Beta(1,9)": rng.beta(1, 9, m), "p = 1/K": np.full(m, 1 / k),
            "adversarial p*": np.full(m, star),
            "p* / 0 mixture": np.where(np.arange(m) % 2 == 0, star, 0.0)}


def show(label: str, hits: int, reps: int, bound: float) -> str:
    lo, hi = wilson(hits, reps)
    return f"{label} {bound:.4f}: {100 * hits / reps:6.2f} % [{100 * lo:.2f}, {100 * hi:.2f}]"


def reasoning(reps: int, rng) -> None:
    print(f"(II) reasoning sampling, prompts fixed, {reps} response draws per row, "
          f"δ = {DELTA} (nominal ≤ {100 * DELTA / 3:.2f} %)")
    for m in (20, 100, 500):
        for k in (4, 16, 64):
            old = math.sqrt(2 * math.log(6 / DELTA) / (m * k))
            new = error_bounds(m, k, DELTA, reading="best_of_k")["reasoning_sampling"]
            cert = error_bounds(m, k, DELTA)["reasoning_sampling"]
            for name, p in profiles(m, k, rng).items():
                c = rng.binomial(k, p, size=(reps, m))
                gap = ((c > 0) - c / k).mean(1)
                target = np.mean(1 - (1 - p) ** k - p)
                dev = np.abs(gap - target)
                cdev = np.abs(c.mean(1) / k - p.mean())
                print(f"  M={m:4d} K={k:3d} {name:15s} "
                      + show("old", int((dev > old).sum()), reps, old) + " | "
                      + show("new", int((dev > new).sum()), reps, new) + " | "
                      + show("certified", int((cdev > cert).sum()), reps, cert))


def verification(reps: int, rng) -> None:
    print(f"(III) verification, best-of-K, responses fixed, {reps} draws of the L calls")
    m = 100
    for k in (4, 64):
        for calls in (1, 3, 5, 15):
            old = 2 * math.sqrt(math.log(12 / DELTA) / (2 * m * k * calls))
            new = error_bounds(m, k, DELTA, verifier_calls=calls, deterministic=False,
                               reading="best_of_k")["verification"]
            for name, v in (("v = 1/2", np.full((m, k), 0.5)),
                            ("v ~ Beta(2,2)", rng.beta(2, 2, (m, k))),
                            ("v ~ Beta(1,9)", rng.beta(1, 9, (m, k)))):
                target = np.mean(v.max(1) - v.mean(1))
                hits_old = hits_new = 0
                for _ in range(reps):
                    u = rng.binomial(calls, v) / calls
                    dev = abs(np.mean(u.max(1) - u.mean(1)) - target)
                    hits_old += dev > old
                    hits_new += dev > new
                print(f"  M={m} K={k:3d} L={calls:2d} {name:14s} "
                      + show("old", hits_old, reps, old) + " | "
                      + show("new", hits_new, reps, new))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    reasoning(a.reps, rng)
    verification(max(200, a.reps // 10), rng)


if __name__ == "__main__":
    main()
