"""Timing of the house-allocation and welfare engines (not a test; run by hand).

    PYTHONPATH=. python benchmarks/bench_allocation.py [--quick]

1. Rank-maximal (one-sided) at n = 100, 300, 1000 agents (n objects, impartial lists cut
   to a length uniform in [1, n], ties merged with probability 0.2, seed 1): the IKMMP
   oracle, its LP-dual certificate, the checker, and the networkx-blossom reference with
   B^(R−k) weights (Michail 2005; n ≤ 300 only — O(n³) in pure Python). Ratio:
   blossom / IKMMP. C is the worst rank the rank-maximal matching uses.
2. Encodings (CP-SAT and HiGHS MILP, lexicographic solves) at n = 30 and 100 for every
   question, one- and two-sided, against the oracle on the same instance (oracle times
   include building the certificate). Ratio: encoding / oracle.

Peer counterparts: the installed ``matching`` (1.4) and ``algmatch`` (1.5) packages have
stable marriage / hospitals–residents / roommates / SPA solvers but no house allocation,
Pareto optimality, MCPO, utilitarian, egalitarian or rank-maximal algorithm (checked by
grepping their sources), so no peer ratio exists; networkx's weighted blossom is the only
third-party reference used.
"""
from __future__ import annotations

import sys
import time

from prefcert.encodings import house_allocation as ea
from prefcert.formal import house_allocation as fa
from prefcert.formal import welfare as fw
from prefcert.formal.checker.welfare import check_lp_duals
from prefcert.formal.stable_matching import parse_market
from prefcert.generators.house_allocation import sample_house_allocation
from prefcert.generators.stable_matching import sample_smti
from prefcert.oracles import house_allocation as oa


def timed(fn, *a, **k):
    t0 = time.perf_counter()
    out = fn(*a, **k)
    return out, time.perf_counter() - t0


def bench_rank_maximal(sizes):
    print("## rank-maximal, one-sided (impartial lists cut to U[1, n], tie prob 0.2)")
    print(f"{'n':>5} {'edges':>8} {'C':>4} {'ikmmp s':>8} {'duals s':>8} {'check s':>8} "
          f"{'blossom s':>9} {'blossom/ikmmp':>13}")
    for n in sizes:
        model = fa.parse_house_allocation(sample_house_allocation(n, n, seed=1, tie_prob=0.2))
        g = fw.welfare_graph(model)
        m, t_alg = timed(oa._ikmmp, g)
        (cert, _), t_cert = timed(oa.welfare_certificate, g, "rank_maximal", m)
        _, t_chk = timed(check_lp_duals, model, "rank_maximal", None, "optimal", m, cert)
        if n <= 300:
            mb, t_bl = timed(oa.rank_maximal_weighted, g)
            assert fw.signature(g, mb) == fw.signature(g, m)
            bl = f"{t_bl:9.2f} {t_bl / t_alg:13.1f}"
        else:
            bl = f"{'-':>9} {'-':>13}"
        print(f"{n:5d} {len(g.ranks):8d} {fw.worst_rank(g, m):4d} {t_alg:8.2f} {t_cert:8.2f} "
              f"{t_chk:8.2f} {bl}", flush=True)


def bench_encodings(sizes, time_limit=120.0):
    print("\n## encodings (CP-SAT, HiGHS MILP) vs oracles")
    ea.pareto_optimal_cpsat(fa.parse_house_allocation({"preferences": {"a": ["h"]}}),
                            time_limit=5, seed=0)          # warm-up: import ortools
    print(f"{'n':>4} {'kind':>10} {'question':>32} {'oracle s':>9} {'encod. s':>9} "
          f"{'enc/oracle':>12} agree")
    for n in sizes:
        model = fa.parse_house_allocation(sample_house_allocation(
            n, n, seed=2, tie_prob=0.3, min_len=max(1, n // 4), max_len=n))
        g = fw.welfare_graph(model)
        market = parse_market(sample_smti(n, seed=3, tie_prob=0.3, truncate=True))
        g2 = fw.welfare_graph(market)
        rows = []
        po_o, t_o = timed(oa.serial_dictatorship, model)
        po_e, t_e = timed(ea.pareto_optimal_cpsat, model, time_limit=time_limit, seed=0)
        agree = oa.pareto_improvement(model, po_e.solution) is None and \
            oa.pareto_improvement(model, po_o) is None
        rows.append(("one-sided", "pareto_optimal", t_o, t_e, agree))
        mc_o, t_o = timed(oa.max_cardinality_pareto_optimal, model)
        mc_e, t_e = timed(ea.pareto_optimal_cpsat, model, time_limit=time_limit, seed=0,
                          max_cardinality=True)
        rows.append(("one-sided", "max_cardinality_pareto_optimal", t_o, t_e,
                     len(mc_o) == len(mc_e.solution)))
        for kind, gg in (("one-sided", g), ("two-sided", g2)):
            for notion, fn in (("utilitarian", oa.utilitarian_matching),
                               ("egalitarian", oa.egalitarian_matching),
                               ("rank_maximal", oa.rank_maximal)):
                (mo, _), t_o = timed(fn, gg)
                for enc in (ea.welfare_cpsat, ea.welfare_milp):
                    oe, t_e = timed(enc, gg, notion, time_limit=time_limit, seed=0)
                    ok = oe.verdict == "optimal" and \
                        oe.certificate["value"] == fw.welfare_value(gg, notion, mo)
                    rows.append((kind, f"{notion} [{enc.__name__.split('_')[0]}]", t_o, t_e,
                                 ok if oe.verdict != "unknown" else "timeout"))
        for kind, q, t_o, t_e, ok in rows:
            print(f"{n:4d} {kind:>10} {q:>32} {t_o:9.3f} {t_e:9.3f} {t_e / max(t_o, 1e-6):12.1f} "
                  f"{ok}", flush=True)


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    bench_rank_maximal([100, 300] if quick else [100, 300, 1000])
    bench_encodings([30] if quick else [30, 100])
