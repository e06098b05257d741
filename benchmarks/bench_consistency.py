"""Timing of the self-consistency audit and its engines (not a test).

1. The whole audit on the paper's design (300 query cells × 15 completions per model,
   plus the stress paths) for one model and for six models, with the certified labels;
   peer: the same bootstrap done naively (one ``numpy.linalg.lstsq`` refit per resample)
   on one group, against the audit's projection-matrix bootstrap.
2. Per group: the exact L2 repair (rationals) against ``numpy.linalg.lstsq``; the L1 repair
   by HiGHS made exact against network simplex.
3. Minimum feedback arc set of a 14-alternative noisy tournament: subset DP, HiGHS MILP
   (with its cycle packing), CP-SAT.

Prints seconds and ratios measured in the same run.
Run from the repository root: ``python benchmarks/bench_consistency.py``
"""
from __future__ import annotations

import time

import numpy as np
from prefcert.encodings import consistency as enc
from prefcert.formal.consistency import judgment_arcs, observations, parse_consistency
from prefcert.generators.consistency import (
    paper_design,
    simulate_choices,
    simulate_responses,
)
from prefcert.oracles import consistency as orc

from prefcert.bench.self_consistency.audit import consistency_audit, fit_group, parse_design

MODELS = {f"model{i}": {"noise": 6 + 3 * i, "distortion": 4 * i, "step_bias": i, "fail": 0.001}
          for i in range(6)}


def timed(fn, *a, **k):
    t = time.perf_counter()
    out = fn(*a, **k)
    return out, time.perf_counter() - t


def main() -> None:
    design = paper_design(0)
    sim = simulate_responses(design, MODELS, seed=1)
    rows = [{"model": r["model"], "cell_id": r["cell_id"], "value": r["parsed_value"],
             "number_only": r["number_only"]} for r in sim]
    one = [r for r in rows if r["model"] == "model0"]
    a1, t1 = timed(consistency_audit, one, design)
    print(f"audit, 1 model (300 cells x 15, B = {a1['settings']['resamples']}, certified): {t1:.2f} s")
    a6, t6 = timed(consistency_audit, rows, design)
    print(f"audit, 6 models (54 groups, B = {a6['settings']['resamples']}): {t6:.2f} s "
          f"({t6 / t1:.1f}x one model)")
    _, tn = timed(consistency_audit, one, design, certify=False)
    print(f"  of which certification (1 model): {t1 - tn:.2f} s")

    # the bootstrap of one group: projection matrix vs a refit per resample
    d = parse_design(design)
    cells = [c for c in d.cells.values() if c.group == ("flights", "1") and not c.stress]
    vals = {}
    for r in one:
        if r["cell_id"] in {c.id for c in cells} and r["value"] is not None:
            vals.setdefault(r["cell_id"], []).append(r["value"])
    arrays = [np.array(vals[c.id]) for c in cells]
    fit = fit_group(cells, arrays)
    b = 10_000
    rng = np.random.default_rng(0)
    dstar = np.stack([v[rng.integers(0, len(v), (b, len(v)))].mean(1) - v.mean() for v in arrays])

    def projected():
        res = dstar - fit.a @ (fit.proj @ dstar)
        return (res ** 2).sum(0)

    def naive():
        out = np.empty(b)
        for j in range(b):
            rs = fit.fitted + dstar[:, j]
            u, *_ = np.linalg.lstsq(fit.a, rs, rcond=None)
            out[j] = ((rs - fit.a @ u) ** 2).sum()
        return out
    s1, tp = timed(projected)
    s2, tq = timed(naive)
    assert np.allclose(s1, s2)
    print(f"null bootstrap of one group (B = {b}): projection {tp:.4f} s, refit per resample "
          f"{tq:.3f} s, ratio {tq / tp:.0f}x")

    inst = a1["instances"][0]
    model = parse_consistency(inst)
    obs = observations(model)
    (o_ex, te), (o_ls, tl) = timed(orc.l2_exact, model, obs), timed(enc.l2_lstsq, model, obs)
    if o_ex.verdict == o_ls.verdict == "optimal":    # lstsq may only bound the optimum
        assert o_ex.solution["cost"] == o_ls.solution["cost"]
    print(f"L2 repair of one group ({len(obs)} observations): exact rationals {te * 1e3:.1f} ms, "
          f"lstsq with exact bounds {tl * 1e3:.1f} ms, ratio {te / tl:.1f}")
    (o_lp, tlp), (o_fl, tfl) = timed(enc.l1_lp, model, obs), timed(orc.l1_min_cost_flow, model, obs)
    assert o_lp.solution["cost"] == o_fl.solution["cost"]
    print(f"L1 repair: HiGHS LP made exact {tlp * 1e3:.1f} ms, network simplex "
          f"{tfl * 1e3:.1f} ms, ratio {tlp / tfl:.1f}")

    items = [f"i{k:02d}" for k in range(14)]
    m = parse_consistency({"choices": simulate_choices(items, pairs=91, repeats=3, flip=0.3,
                                                       seed=2)})
    arcs = judgment_arcs(m, "choices")
    (dp, tdp) = timed(orc.fas_exact, arcs, m.nodes)
    (mi, tmi) = timed(enc.fas_milp, arcs, m.nodes)
    (cp, tcp) = timed(enc.fas_cpsat, arcs, m.nodes, time_limit=60)
    assert dp.solution["reversed"] == mi.solution["reversed"] == cp.solution["reversed"]
    print(f"minimum FAS, 14 alternatives (linear ordering, {len(arcs)} arcs, value "
          f"{dp.solution['reversed']}): DP {tdp:.3f} s, MILP {tmi:.3f} s "
          f"({tmi / tdp:.1f}x), CP-SAT {tcp:.3f} s ({tcp / tdp:.1f}x)")


if __name__ == "__main__":
    main()
