"""Timing of the decision engines (not a test; run by hand).

    PYTHONPATH=. python benchmarks/bench_decision.py [--quick]

1. The suite's tasks: per structure and size (n = 4, 6, 8; one seed; every group and
   local-cue pair of one cell), CPU milliseconds per task of the oracle, the CP-SAT
   encodings and the checker, and a naive peer — brute force over every world and every
   action (and every edit set) with no certificate, as a benchmark builder without the
   toolkit would write it. Ratios: CP-SAT / oracle and brute force / oracle.
2. Allocation worlds at n = 8, 30, 100: the oracle's Hungarian method with duals against
   ``scipy.optimize.linear_sum_assignment`` (no duals) on the same weights, and the
   oracle's whole preference task (two worlds, intersection, certificate) against the
   CP-SAT encoding. Ratio: peer / ours.

CPU time (``time.process_time``) is reported because the machine is shared; every ratio
compares runs measured in the same process on the same instances.
"""
from __future__ import annotations

import itertools
import random
import sys
import time

import numpy as np
from prefcert.encodings.decision import decision_cpsat
from prefcert.formal import checker
from prefcert.formal.checker.decision import SPEC
from prefcert.formal.decision import parse_decision, stated
from prefcert.generators.decision import base_content, hide, with_source
from prefcert.oracles.decision import decide, hungarian, weight
from scipy.optimize import linear_sum_assignment

from prefcert.bench.actionable.responses import design_group, design_local_pair


def cpu(fn, *a, **k):
    t0 = time.process_time()
    out = fn(*a, **k)
    return out, time.process_time() - t0


def brute(task):
    """The naive peer: accepted sets by enumerating every action of every world."""
    from prefcert.formal.checker.decision import objective_key
    worlds = task.worlds()
    cs = stated(task)

    def actions():
        if task.structure in ("scheduling", "apartment"):
            return list(task.items)
        return [tuple(zip(task.agents, p)) for p in itertools.permutations(task.items)]

    def ok(x, cons):
        d = dict(x) if not isinstance(x, str) else None
        for c in cons:
            if c.type == "unavailable" and x == c.item or \
                    c.type == "max" and task.attributes[x][c.attribute] > c.value or \
                    c.type in ("require", "forced") and d[c.agent] != c.item or \
                    c.type in ("forbid", "forbidden") and d[c.agent] == c.item:
                return False
        return True

    def value(w, x):
        if task.structure == "stable_matching":
            return sum(w.rank(a, b) for a, b in x)
        ranks = [w.rank(a, x) for a in task.agents] if isinstance(x, str) else \
            [w.rank(a, i) for a, i in x]
        return objective_key(task, w.objective, ranks)

    def stable(w, x):
        m = dict(x)
        inv = {b: a for a, b in x}
        return all(not (w.rank(a, b) < w.rank(a, m[a]) and w.rank(b, a) < w.rank(b, inv[b]))
                   for a in task.agents for b in task.items)

    acts = actions()
    accs = []
    for w in worlds:
        feas = [x for x in acts if ok(x, cs) and (task.structure != "stable_matching"
                                                  or stable(w, x))]
        if not feas:
            accs.append(set())
            continue
        best = min(value(w, x) for x in feas)
        accs.append({x for x in feas if value(w, x) == best})
    return set.intersection(*accs)


def suite_tasks(structure, n):
    out = []
    for g in range(20):
        out += design_group(structure, n, 0, g)
    for src in ("preference", "objective", "constraint"):
        for p in range(5):
            out += design_local_pair(structure, n, 0, src, p)
    return out


def bench_suite(sizes):
    print("## suite tasks: CPU ms per task (oracle incl. certificate; checker; CP-SAT; "
          "brute force over worlds x actions)")
    print(f"{'structure':>16} {'n':>3} {'tasks':>6} {'oracle':>8} {'check':>8} {'cpsat':>8} "
          f"{'brute':>9} {'cpsat/oracle':>12} {'brute/oracle':>12}")
    for s in ("allocation", "scheduling", "apartment", "stable_matching"):
        for n in sizes:
            ts = [parse_decision(d) for d in suite_tasks(s, n)]
            to = tc = tk = tb = 0.0
            for t in ts:
                out, dt = cpu(decide, t)
                to += dt
                _, dt = cpu(checker.check, SPEC, t, "decision", None, out.verdict,
                            out.solution, out.certificate)
                tk += dt
                _, dt = cpu(decision_cpsat, t)
                tc += dt
                if t.source != "constraint":
                    _, dt = cpu(brute, t)
                    tb += dt
            k = len(ts)
            nb = sum(t.source != "constraint" for t in ts)
            to_nb = sum(cpu(decide, t)[1] for t in ts if t.source != "constraint")
            print(f"{s:>16} {n:>3} {k:>6} {1e3 * to / k:>8.2f} {1e3 * tk / k:>8.2f} "
                  f"{1e3 * tc / k:>8.2f} {1e3 * tb / nb:>9.2f} {tc / to:>12.1f} "
                  f"{tb / max(to_nb, 1e-9):>12.1f}")


def bench_allocation(sizes):
    print("## allocation worlds: Hungarian with duals vs scipy linear_sum_assignment; "
          "preference task: oracle vs CP-SAT (CPU s)")
    print(f"{'n':>5} {'hungarian':>10} {'scipy lsa':>10} {'lsa/hung':>9} {'oracle':>8} "
          f"{'cpsat':>8} {'cpsat/oracle':>12}")
    for n in sizes:
        rng = random.Random(n)
        base = base_content("allocation", n, rng)
        d = hide(with_source(base, "preference", ["rank_maximal"]), base["agents"][0], 0)
        task = parse_decision(d)
        w0 = task.worlds()[0]
        w = {(a, i): weight(task, "utilitarian", w0.rank(a, i))
             for a in task.agents for i in task.items}
        got, th = cpu(hungarian, task, w)
        mat = np.array([[-w[(a, i)] for i in task.items] for a in task.agents])
        (r, c), tl = cpu(linear_sum_assignment, mat)
        assert -sum(w[(task.agents[i], task.items[j])] for i, j in zip(r, c)) == \
            -sum(w[e] for e in got[0].items())
        _, to = cpu(decide, task)
        tc = float("nan")
        if n <= 30:
            _, tc = cpu(decision_cpsat, task, time_limit=60)
        print(f"{n:>5} {th:>10.4f} {tl:>10.4f} {tl / max(th, 1e-9):>9.2f} {to:>8.3f} "
              f"{tc:>8.3f} {tc / max(to, 1e-9):>12.1f}")


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    bench_suite((4,) if quick else (4, 6, 8))
    bench_allocation((8, 30) if quick else (8, 30, 100))
