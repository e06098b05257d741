"""Timings for Shapley–Scarf housing markets (not a test).

TTC and the Quint–Wako strict core (plus the trusted checker and the whole label pipeline)
at n = 100, 300, 1000 agents; the CP-SAT, z3 and CBC encodings at n = 30 and 100.
Instances: impartial culture (prefsampling) with adjacent items tied with probability 0.3,
complete lists, fixed seeds. Run: ``python benchmarks/bench_housing.py [--quick]``.

Peers: neither ``matching`` (daffidwilde, 1.4) nor ``algmatch`` (1.5) implements
top trading cycles, the strict core or any housing-market algorithm (checked in their
installed sources), so no ratio can be printed; the script says so.
"""
from __future__ import annotations

import argparse
import statistics
import time

from prefcert.formal import checker
from prefcert.formal.checker.housing_market import SPEC, blocked_arc, check_segmentation
from prefcert.formal.housing_market import parse_housing_market
from prefcert.formal.instances import from_object
from prefcert.generators.housing_market import sample_housing_market
from prefcert.oracles.housing_market import strict_core, top_trading_cycles

from prefcert.pipeline.jobs import label, plan

TIE_PROB = 0.3


def clock(fn, repeat: int = 3) -> tuple[float, object]:
    """Median wall-clock seconds of ``repeat`` calls, and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def peers() -> None:
    print("peers: no counterpart — matching.games has StableMarriage/HospitalResident/"
          "StudentAllocation/StableRoommates only, algmatch has SM/HR/SR/SPA only; neither "
          "has top trading cycles nor a strict-core algorithm, so no ratios are printed.")


def combinatorial(sizes, tie_prob: float) -> None:
    print(f"\n== oracles + checker (tie probability {tie_prob}) ==")
    print(f"{'n':>6} {'TTC s':>9} {'QW s':>9} {'strict core':>12} {'segments':>9} "
          f"{'check s':>9} {'label s':>9}")
    for n in sizes:
        data = dict(sample_housing_market(n, seed=n, tie_prob=tie_prob), id=f"bench-{n}")
        m = parse_housing_market(data)
        t_ttc, x = clock(lambda: top_trading_cycles(m))
        assert blocked_arc(m, x, "weak") is None
        t_qw, res = clock(lambda: strict_core(m))
        if res.allocation is None:
            t_chk, _ = clock(lambda: check_segmentation(m, res.certificate))
        else:
            t_chk, _ = clock(lambda: checker.check(SPEC, m, "strict_core", None, "exists",
                                                   res.allocation, {"type": "core_allocation"}))
        job = next(j for j in plan([from_object(data, "bench", None, data["id"])])
                   if j.asked == "strict_core")
        t_lab, lab = clock(lambda: label(job, engines=["oracle"]), repeat=1)
        print(f"{n:>6} {t_ttc:>9.4f} {t_qw:>9.4f} "
              f"{'empty' if res.allocation is None else 'non-empty':>12} "
              f"{len(res.segments):>9} {t_chk:>9.4f} {t_lab:>9.3f}"
              f"{'' if lab['checked'] else '  NOT CHECKED'}")


def encodings(sizes, time_limit: float) -> None:
    from prefcert.encodings.housing_market import core_cpsat, core_z3, strict_core_milp
    print(f"\n== encodings (time limit {time_limit:.0f} s each, seed 0; 'unknown' = timeout) ==")
    print(f"{'n':>5} {'ties':>5} {'QW':>9} {'engine':>14} {'answer':>11} {'seconds':>9}")
    for n in sizes:
        for tie_prob in (0.0, 0.5):
            m = parse_housing_market(sample_housing_market(n, seed=n + 1, tie_prob=tie_prob))
            qw = "empty" if strict_core(m).allocation is None else "non-empty"
            runs = [("cpsat strict", lambda: core_cpsat(m, "strict", time_limit=time_limit)),
                    ("z3 strict", lambda: core_z3(m, "strict", time_limit=time_limit)),
                    ("cpsat weak", lambda: core_cpsat(m, "weak", time_limit=time_limit)),
                    ("z3 weak", lambda: core_z3(m, "weak", time_limit=time_limit))]
            if n <= 30:
                runs.append(("milp strict", lambda: strict_core_milp(m, time_limit=time_limit)))
            for name, fn in runs:
                t, r = clock(fn, repeat=1)
                print(f"{n:>5} {tie_prob:>5} {qw:>9} {name:>14} {r.status:>11} {t:>9.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes only")
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args()
    peers()
    sizes = (100, 300) if args.quick else (100, 300, 1000)
    combinatorial(sizes, TIE_PROB)
    combinatorial(sizes, 0.002)     # few ties: non-empty strict cores at n = 1000
    combinatorial(sizes, 0.0)
    encodings((30,) if args.quick else (30, 100), args.time_limit)


if __name__ == "__main__":
    main()
