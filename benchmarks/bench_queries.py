"""Timing of the preference-query engines (not a test).

1. Label every pairwise majority question (both orders) of the largest shipped real
   PrefLib file (by voters) with the oracle and with CP-SAT; certificates checked.
2. Random partial orders of 100 and 1000 items with 150 and 1500 edges (one agent): a
   batch of compare / position / topk / rank_set / rs queries with the oracle and CP-SAT.
Prints per-engine seconds and the encoding/oracle time ratio.

Run from the repository root: ``python benchmarks/bench_queries.py``
"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from prefcert.encodings.preference import query_cpsat
from prefcert.formal.checker import check
from prefcert.formal.checker.preference import SPEC
from prefcert.formal.preflib import read_preflib
from prefcert.formal.preference import parse_preference_data
from prefcert.oracles import preference as oq

from prefcert.domains.preference import resolve
from prefcert.pipeline.jobs import label, plan

ROOT = Path(__file__).resolve().parent.parent
TIME_LIMIT = 30.0


def largest_shipped() -> Path:
    files = sorted((ROOT / "instances" / "preflib").glob("*.*[ci]"))
    return max(files, key=lambda p: sum(read_preflib(p)[0].data["profile"][a]["count"]
                                        for a in read_preflib(p)[0].data["profile"]))


def bench_real(path: Path) -> None:
    (inst,) = read_preflib(path)
    items = inst.data["items"]
    qs = [{"type": "majority", "items": [a, b]} for a in items for b in items if a != b]
    jobs = plan([inst], qs)
    t = {"oracle": 0.0, "cpsat": 0.0, "check": 0.0}
    verdicts: dict = {}
    t0 = time.perf_counter()
    for j in jobs:
        lab = label(j, engines=["oracle", "cpsat"], time_limit=TIME_LIMIT)
        for e in lab["engines"]:
            t[e["engine"]] += e["seconds"]
        verdicts[lab["verdict"]] = verdicts.get(lab["verdict"], 0) + 1
    total = time.perf_counter() - t0
    print(f"real file {path.name}: {len(items)} items, {len(inst.data['profile'])} ballots, "
          f"{sum(a['count'] for a in inst.data['profile'].values())} voters; "
          f"{len(jobs)} majority questions labelled and checked in {total:.2f}s; {verdicts}")
    print(f"  oracle {t['oracle']:.3f}s  cpsat {t['cpsat']:.3f}s  "
          f"encoding/oracle ratio {t['cpsat'] / max(t['oracle'], 1e-9):.1f}", flush=True)


def random_poset(n: int, e: int, seed: int) -> dict:
    rng = random.Random(seed)
    items = [f"x{i}" for i in range(n)]
    hidden = items[:]
    rng.shuffle(hidden)
    edges: set = set()
    while len(edges) < e:
        i, j = sorted(rng.sample(range(n), 2))
        edges.add((hidden[i], hidden[j]))
    return {"id": f"po{n}", "domain": "preference", "items": items,
            "profile": {"V": {"edges": [list(x) for x in sorted(edges)]}}}


def poset_questions(items: list, rng: random.Random, k: int = 8) -> list:
    qs = []
    for _ in range(k):
        a, b, c, d, f = rng.sample(items, 5)
        qs += [{"type": "compare", "agent": "V", "items": [a, b]},
               {"type": "position", "agent": "V", "item": c},
               {"type": "topk", "agent": "V", "item": d, "k": len(items) // 10},
               {"type": "rank_set", "agent": "V", "items": [a, b, c, d]},
               {"type": "rs", "agent": "V", "bundles": [[a, b, c], [d, f]]}]
    return qs


def bench_poset(n: int, e: int, *, encode: int) -> None:
    """``encode``: how many of the queries (in order) CP-SAT also answers."""
    data = random_poset(n, e, seed=n)
    t0 = time.perf_counter()
    model = parse_preference_data(data)
    t_parse = time.perf_counter() - t0
    qs = poset_questions(data["items"], random.Random(n))
    to = tc = tk = to_enc = 0.0
    worst = 0.0
    agree = 0
    for i, q in enumerate(qs):
        name, params = resolve(q)
        t0 = time.perf_counter()
        o = oq.SINGLE[name](model, params)
        t1 = time.perf_counter()
        check(SPEC, model, name, params, o.verdict, o.solution, o.certificate)
        t2 = time.perf_counter()
        to += t1 - t0
        tk += t2 - t1
        worst = max(worst, t2 - t0)
        if i < encode:
            to_enc += t1 - t0
            t0 = time.perf_counter()
            c = query_cpsat(model, name, params, time_limit=TIME_LIMIT, seed=0)
            tc += time.perf_counter() - t0
            assert c.verdict in ("unknown", o.verdict), (q, o.verdict, c.verdict)
            agree += c.verdict == o.verdict
    line = (f"partial order {n} items / {e} edges: parse {t_parse:.3f}s; {len(qs)} queries: "
            f"oracle {to:.3f}s, checker {tk:.3f}s, worst query oracle+check {worst * 1000:.1f} ms")
    if encode:
        line += (f"; on the first {encode}: oracle {to_enc:.3f}s, cpsat {tc:.2f}s "
                 f"({agree}/{encode} agree), encoding/oracle ratio {tc / to_enc:.0f}")
    print(line, flush=True)


def main() -> None:
    bench_real(largest_shipped())
    bench_poset(100, 150, encode=40)
    bench_poset(1000, 1500, encode=5 if "--quick" not in sys.argv else 0)


if __name__ == "__main__":
    main()
