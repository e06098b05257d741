"""Timings and agreement counts for the election domain (not a test).

1. Agreement with enumeration, m = 3..7: impartial-culture elections (n = 5 as in the
   benchmark, and n = 50), every rule: enumeration of the manipulator's m! (2^m) reports vs
   the reachability engine (BTT greedy / IRV search) vs CP-SAT, on (verdict, w₀, w*).
2. Scale, m = 8, 10, 12, 16, 20, n = 50 IC voters: seconds of the reachability engine,
   CP-SAT (one model per candidate the manipulator prefers to w₀, best first), the
   checker on the certificate, and the whole certified label.
3. Peer: pref-voting's brute force (a Profile and a winner call per report, the loop of
   its ``has_strategy_proofness_violation``) for one voter at m = 5, 6, 7, against our
   enumeration and reachability engines in the same run (ratios).
4. The benchmark design: 600 instances generated and labelled (``prefcert generate``).
5. Real PrefLib elections: ballot classes that can manipulate, smallest coalitions.

Run: ``python benchmarks/bench_election.py [--quick] [--part 1,2,3,4,5]``.
"""
from __future__ import annotations

import argparse
import itertools
import statistics
import time
from pathlib import Path

from prefcert.domains.election import DOMAIN
from prefcert.formal import checker
from prefcert.formal.checker.election import SPEC
from prefcert.formal.election import parse_election
from prefcert.formal.instances import from_object
from prefcert.formal.rules import rule_names
from prefcert.generators.election import impartial_culture_election
from prefcert.pipeline.jobs import label, plan

RULES = rule_names()

ROOT = Path(__file__).resolve().parents[1]
Q = DOMAIN.questions["manipulation"]


def run(engine, e, rule, time_limit=60.0):
    t0 = time.perf_counter()
    o = Q.engines[engine](e, {"rule": rule}, time_limit=time_limit, seed=0)
    return time.perf_counter() - t0, o


def key(o):
    return o.verdict, o.solution["sincere_winner"], o.solution["best_winner"]


def agreement(quick: bool) -> None:
    print("1. agreement with enumeration (instances: all three engines agree / total)")
    per = 20 if quick else 100
    for n in (5, 50):
        for rule in RULES:
            row = []
            for m in range(3, 8):
                ok = tot = man = 0
                for s in range(per):
                    e = parse_election(impartial_culture_election(m, n, seed=1000 * m + s,
                                                                  rule=rule))
                    outs = [run(x, e, rule)[1] for x in ("oracle", "reachability", "cpsat")]
                    tot += 1
                    ok += len({key(o) for o in outs}) == 1
                    man += outs[0].verdict == "manipulable"
                row.append(f"m={m}: {ok}/{tot} ({man} manip.)")
            print(f"  n={n:>2} {rule:<9} " + "  ".join(row))


def scale(quick: bool) -> None:
    print("2. scale, n = 50 IC voters: median / max seconds over seeds")
    seeds = range(3 if quick else 5)
    print(f"  {'rule':<9} {'m':>3} {'manip':>5} {'reach':>13} {'cpsat':>13} {'check':>13} "
          f"{'label':>13}  certificate")
    for rule in RULES:
        for m in (8, 10, 12, 16, 20):
            t_r, t_c, t_k, t_l, kinds, man = [], [], [], [], set(), 0
            for s in seeds:
                data = impartial_culture_election(m, 50, seed=7000 + 100 * m + s, rule=rule)
                e = parse_election(data)
                tr, o = run("reachability", e, rule)
                tc, oc = run("cpsat", e, rule, time_limit=120)
                assert key(o) == key(oc), (rule, m, s, key(o), key(oc))
                t0 = time.perf_counter()
                if o.certificate:
                    checker.check(SPEC, e, "manipulation", {"rule": rule}, o.verdict,
                                  o.solution, o.certificate)
                t_k.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                (job,) = plan([from_object(data, "<bench>", None, f"b{m}{s}")], ["manipulation"])
                lab = label(job, time_limit=120)
                t_l.append(time.perf_counter() - t0)
                kinds.add(f"{lab['certificate']['type']}{'' if lab['checked'] else ' (unchecked)'}")
                t_r.append(tr)
                t_c.append(tc)
                man += o.verdict == "manipulable"

            def f(xs):
                return f"{statistics.median(xs):6.3f}/{max(xs):6.3f}"
            print(f"  {rule:<9} {m:>3} {man:>2}/{len(t_r):<2} {f(t_r)} {f(t_c)} {f(t_k)} "
                  f"{f(t_l)}  {', '.join(sorted(kinds))}")


def peers(quick: bool) -> None:
    print("3. peer: pref-voting brute force over one voter's m! reports (seconds, ratio to "
          "ours in the same run)")
    try:
        from pref_voting.c1_methods import copeland
        from pref_voting.iterative_methods import instant_runoff_tb
        from pref_voting.profiles import Profile
        from pref_voting.scoring_methods import borda, plurality
    except ImportError:
        print("  pref-voting is not installed (pip install -e '.[peers]'); skipped")
        return
    for m in (5, 6) if quick else (5, 6, 7):
        for rule, vm in (("plurality", plurality), ("borda", borda), ("irv", None),
                         ("copeland", copeland)):
            data = impartial_culture_election(m, 50, seed=42 + m, rule=rule)
            e = parse_election(data)
            idx = {x: i for i, x in enumerate(e.candidates)}
            others = [[idx[g[0]] for g in b.ranking] for b in e.ballots
                      for _ in range(b.count)]
            tb = [idx[x] for x in reversed(e.tie_break)]
            tau = {idx[x]: i for i, x in enumerate(e.tie_break)}
            t0 = time.perf_counter()
            outcomes = []
            for q in itertools.permutations(range(m)):
                prof = Profile(others + [list(q)])
                if rule == "irv":
                    w = instant_runoff_tb(prof, tie_breaker=tb)[0]
                else:
                    w = min(vm(prof), key=tau.__getitem__)    # τ-resolved
                outcomes.append(w)
            t_peer = time.perf_counter() - t0
            t_enum, o = run("oracle", e, rule)
            t_reach, _ = run("reachability", e, rule)
            ours = {e.candidates[i]: outcomes.count(i) for i in set(outcomes)}
            assert ours == o.solution["outcomes"], (rule, m)
            print(f"  m={m} {rule:<9} pref-voting {t_peer:7.3f}s  enumeration {t_enum:7.4f}s "
                  f"(×{t_peer / t_enum:7.0f})  reachability {t_reach:7.4f}s "
                  f"(×{t_peer / t_reach:7.0f})  outcome counts equal")


def design() -> None:
    print("4. the benchmark design (600 instances, 2,400 prompts)")
    import tempfile

    from prefcert.bench.generate import generate
    from prefcert.bench.suites import suite
    with tempfile.TemporaryDirectory() as d:
        m = generate(suite("voting-manipulation"), d)
    s = m["_seconds"]
    print(f"  {m['instances']} instances, {m['total']} prompts, {m['labels_checked']}/"
          f"{m['labels']} labels checked; sample {s['sample']:.2f}s, certify "
          f"{s['certify']:.2f}s, total {s['total']:.2f}s")


REAL = ["toi/00005-00000002.toi", "toi/00016-00000002.toi", "toi/00023-00000001.toi",
        "soi/00002-00000001.soi", "soi/00030-00000001.soi", "soc/00006-00000003.soc",
        "toi/00032-00000004.toi", "soc/00012-00000001.soc"]


def real(quick: bool) -> None:
    print("5. real elections: manipulating ballot classes / voters, max gain, reachable "
          "winners; smallest added coalition per candidate (k, checked yes/no)")
    from prefcert.api.election import (
        ballot_class_manipulation,
        election_from_preflib,
        smallest_coalitions,
    )
    data = ROOT / "tests" / "data" / "preflib"
    for f in REAL[:4] if quick else REAL:
        e = election_from_preflib(data / f)
        n = sum(b["count"] for b in e["ballots"])
        print(f"  {f}: m={len(e['candidates'])}, n={n}, {len(e['ballots'])} classes")
        for rule in RULES:
            t0 = time.perf_counter()
            r = ballot_class_manipulation(e, rule)
            w = {c["sincere_winner"] for c in r["classes"]}
            line = (f"    {rule:<9} classes {r['manipulable_classes']:>3}/{len(r['classes']):<3}"
                    f" voters {r['manipulable_voters']:>4}  max gain {r['max_gain']}  "
                    f"reachable {r['reachable']}  checked {r['checked']}")
            if len(e["candidates"]) <= 7:
                coal = smallest_coalitions(e, rule, time_limit=60)
                line += "  coalitions " + ", ".join(
                    f"{c.split()[-1][:10]}:{v['k'] if v['k'] is not None else str(v.get('lower')) + '–' + str(v.get('upper'))}"
                    f"{'' if v['no_checked'] else '?'}" for c, v in coal.items())
            print(line + f"  ({time.perf_counter() - t0:.1f}s)")
            del w


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--part", default="1,2,3,4,5")
    a = ap.parse_args()
    parts = set(a.part.split(","))
    if "1" in parts:
        agreement(a.quick)
    if "2" in parts:
        scale(a.quick)
    if "3" in parts:
        peers(a.quick)
    if "4" in parts:
        design()
    if "5" in parts:
        real(a.quick)


if __name__ == "__main__":
    main()
