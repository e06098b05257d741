"""Time prefcert's hospitals/residents engines against peer packages, in one run.

    python benchmarks/bench_hospitals.py [--sizes 100,1000,5000] [--repeat 3] [--seed 0]

Rows (seconds are wall-clock, best of ``--repeat`` runs, each from the same instance dict
to the answer, so each side's own input construction is included):

- ``DA``: :func:`oracles.hospitals_residents.deferred_acceptance` (resident-proposing) against
  ``matching.games.HospitalResident.create_from_dictionaries(...).solve("resident")`` on
  strict, mutually consistent lists (n residents, n/10 hospitals, capacities 1..20);
- ``super`` / ``strong``: :func:`oracles.hospitals_residents.super_stable_search` /
  ``strongly_stable_search`` against ``algmatch``'s
  ``HospitalResidentsProblemWithTies(..., stability_type="super"|"strong")`` on the same
  shape with ties (p = 0.2).

``ratio`` = ours / peer (below 1: we are faster); ``agree`` compares the existence verdicts
and, for DA, the matchings. A timing script, not a test.
"""
from __future__ import annotations

import argparse
import time
import warnings

from prefcert.formal.hospitals_residents import parse_hospitals_residents
from prefcert.generators.hospitals_residents import sample_hr
from prefcert.oracles import hospitals_residents as orc


def _consistent(inst: dict) -> dict:
    m = parse_hospitals_residents(inst)
    return dict(inst, preferences={"residents": {r: o.to_json() for r, o in m.pr.items()},
                                   "hospitals": {h: o.to_json() for h, o in m.ph.items()}})


def best(fn, repeat):
    out, t = None, float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - t0)
    return out, t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100,1000,5000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    from prefcert.pipeline.peers import RUNNERS
    print(f"{'row':<8}{'n':>7}{'ours (s)':>12}{'peer (s)':>12}{'ratio':>8}  agree")
    for n in map(int, a.sizes.split(",")):
        strict = _consistent(sample_hr(n, max(1, n // 10), cap_min=1, cap_max=20,
                                       truncate=True, seed=a.seed + n))
        tied = _consistent(sample_hr(n, max(1, n // 10), cap_min=1, cap_max=20, tie_prob=0.2,
                                     truncate=True, seed=a.seed + n))
        rows = [("DA", strict, lambda i: orc.deferred_acceptance(parse_hospitals_residents(i)),
                 "matching:hr-resident")]
        for notion, fn in (("super", orc.super_stable_search),
                           ("strong", orc.strongly_stable_search)):
            rows.append((notion, tied, lambda i, fn=fn: fn(parse_hospitals_residents(i))[0],
                         f"algmatch:hrt-{notion}-residents"))
        for name, inst, ours, run in rows:
            mine, t_ours = best(lambda: ours(inst), a.repeat)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    theirs, t_peer = best(lambda: RUNNERS[run](inst), a.repeat)
            except Exception as e:       # a peer crash is a result too
                print(f"{name:<8}{n:>7}{t_ours:>12.4f}{'crash':>12}{'-':>8}  "
                      f"peer raised {e.__class__.__name__}")
                continue
            agree = (mine is None) == (theirs is None) and (name != "DA" or mine == theirs)
            print(f"{name:<8}{n:>7}{t_ours:>12.4f}{t_peer:>12.4f}{t_ours / t_peer:>8.3f}  {agree}")


if __name__ == "__main__":
    main()
