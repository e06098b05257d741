"""Coverage of the SC(n) rational value risk intervals and bounds (not a test).

Prompts draw a success probability p uniformly from a fixed list P; each of the K = B·n
samples of a prompt is the correct key "c" with probability p, else one of W wrong keys
(uniformly). The true SC(n) risk (REU = 1) is 1 − mean over P of P(SC(n) correct),
computed here by exact enumeration of the vote counts (multinomial, with the
first-voted tie rule: a tie among the top keys goes to each tied key with probability
1/#tied, since the first vote among them is exchangeable). Each row repeats the whole
experiment and counts how often the 95 % prompt-bootstrap interval covers the truth
and how often |RVR_hat − RVR| stays within the total error bound (nominal ≥ 95 %).
Shown with 95 % Wilson intervals of the coverage.
Run from the repository root: ``python benchmarks/bench_risk_sc.py [--reps N]``
"""
from __future__ import annotations

import argparse
import itertools
import math

import numpy as np
from prefcert.bench.stats import wilson

from prefcert.bench.rational_value_risk.risk import self_consistency

P = np.array([0.2, 0.4, 0.5, 0.6, 0.8, 0.9])


def sc_win(p: float, n: int, wrong: int) -> float:
    """P(SC(n) outputs the correct key): enumerate the counts of the correct key and of
    each wrong key (they share 1 − p equally)."""
    q = (1 - p) / wrong
    total = 0.0
    for counts in itertools.product(range(n + 1), repeat=wrong + 1):
        if sum(counts) != n:
            continue
        prob = math.factorial(n)
        for c, pr in zip(counts, [p] + [q] * wrong):
            prob *= pr ** c / math.factorial(c)
        top = max(counts)
        if counts[0] == top:
            total += prob / sum(c == top for c in counts)
    return total


def run(n: int, m: int, blocks: int, wrong: int, reps: int, seed: int) -> tuple:
    truth = 1 - np.mean([sc_win(p, n, wrong) for p in P])
    rng = np.random.default_rng(seed)
    hits = bound = 0
    widths = []
    k = blocks * n
    for rep in range(reps):
        p = rng.choice(P, size=m)
        ok = rng.random((m, k)) < p[:, None]
        wrong_key = rng.integers(0, wrong, size=(m, k))
        keys = [["c" if o else f"w{w}" for o, w in zip(ro, rw)] for ro, rw in zip(ok, wrong_key)]
        r = self_consistency(ok.astype(int).tolist(), keys, n, resamples=500, seed=rep)
        hits += r["rvr_ci"][0] <= truth <= r["rvr_ci"][1]
        bound += abs(r["rvr"] - truth) <= r["bounds"]["total"]
        widths.append(r["rvr_ci"][1] - r["rvr_ci"][0])
    return truth, hits, bound, float(np.mean(widths))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=400)
    args = ap.parse_args()
    print(f"SC(n) coverage, {args.reps} repetitions per row; P = {P.tolist()}, W wrong keys")
    for n, m, blocks, wrong in [(1, 60, 4, 2), (2, 60, 4, 1), (3, 60, 4, 2), (5, 60, 4, 3),
                                (3, 20, 2, 2), (5, 200, 2, 3)]:
        truth, hits, bound, width = run(n, m, blocks, wrong, args.reps, 1000 + n * m)
        lo, hi = wilson(hits, args.reps)
        print(f"  n={n} M={m:3d} K_n={blocks} W={wrong} truth={truth:.4f} "
              f"CI coverage {hits / args.reps:.3f} [{lo:.3f}, {hi:.3f}] "
              f"mean width {width:.3f}  bound holds {bound / args.reps:.3f}")


if __name__ == "__main__":
    main()
