"""Label at the speed of reading the input: every row of the performance table, in one run.

    python benchmarks/bench_targets.py [--before OLD/.venv/bin/prefcert] [--work DIR]
        [--rows all|name,name] [--jobs-repeat 2] [--skip-big]

Each row is measured in this run, with its peers measured in the same run, and printed as
ours / reference (below 1: faster). Whole-process rows run ``prefcert`` as a subprocess
and report wall seconds and peak memory (the largest resident set of the process and its
workers, from ``wait4``). With ``--before``, the same whole-process commands also run with
an older installation, so before/after ratios come from the same machine load.
Every measured command runs as it does after ``pip install`` (bytecode caches written,
standard output buffered: :func:`as_installed`), whatever the calling shell sets.

Rows:

- ``label-n1000``: ``prefcert label`` (super, strong, weak) of n = 1000 a side, complete
  lists, ties by merging with p = 0.2 (L = 2·10⁶); then the issue's anchor: the CPU of
  ``label`` and ``check`` against a pure-Python rank-array Gale–Shapley from the raw file
  (its own process: ``json.load``, rank arrays, proposals; targets 2x and 1.5x), medians
  of ``--anchor-repeat`` runs, with ``--before`` the older installation's too;
- ``label-n10k``: n = 10⁴ a side, 100 entries per list (a random 100-regular bipartite
  acceptability graph, so every entry is mutual; L = 2·10⁶), ties p = 0.2;
- ``label-n3000``: n = 3000 complete, p = 0.2 (L = 1.8·10⁷);
- ``ties-n3000``: n = 3000 complete, every list one tie (the all-ties market of the
  super-stability certificate check), against ``strict-n3000`` (strict lists, same L);
- ``check-*``: ``prefcert check`` of each row's labels, as a share of its label time;
- ``peers-n1000``: the super / strong oracles against ``algmatch`` on the n = 1000 market,
  DA (from the raw dict, parse included) against ``matching`` and a 15-line rank-array
  Gale–Shapley floor (conversion included), one-sided utilitarian welfare against
  ``scipy.optimize.linear_sum_assignment``;
- ``welfare-n1000``, ``welfare-n5000``: one-sided utilitarian welfare (house allocation,
  n agents and objects, complete strict lists; n = 5000 is 25 M entries, written with
  numpy): the whole oracle (parse of the decoded instance included) against
  ``linear_sum_assignment`` with its cost matrix built from the same decoded dict (per
  agent with ``np.fromiter``, and by the naive loop), ``prefcert label`` and ``check``
  of the instance in CPU seconds against a child process's ``json.load`` of it; with
  ``--before``, the older label and check (both n) and the older oracle on the same file
  at n = 1000 (at n = 5000 it builds a dict of 25 M tuples);
- ``help``: ``prefcert --help``;
- ``dublin``: ``prefcert label`` of Dublin West 2002 (PrefLib 00001-00000002, 29,988
  voters; the copy in ``tests/data/preflib/soi``), all default questions;
- ``strict-core``: the strict core of 10⁴ agents with strict preferences (each agent ranks
  100 random houses, then its own): oracle (parse included) against the checker, the
  oracle's linear top-trading-cycles path against its round-by-round segmentation (the
  path markets with ties above the own house take), and the whole label and check
  processes;
- ``jobs``: ``prefcert label instances/`` with ``--jobs 2`` against ``--jobs 1``;
- ``irv-m20``: IRV manipulation at m = 20 (n = 50 impartial-culture voters, ``--irv-count``
  instances), each labelled in this process under ``cross_check="budget"`` (the default)
  and ``"always"``: seconds per instance (median and mean) and the ratio;
- ``manip-m5``, ``manip-m7``: single-voter manipulation at m = 5 and 7 (n = 5
  impartial-culture voters and the manipulator, as in the voting benchmark;
  ``--manip-count`` instances per rule), each labelled in this process with the default
  engines (the proof: the greedy's stuck sets / the IRV search; the cross-check:
  enumeration, due on such small instances) and with ``cross_check="never"``, and the
  label checked (``prefcert.check``): median CPU milliseconds per instance (each instance
  labelled once untimed first), with ``--before`` also the older installation's (its
  python runs the same row in a subprocess, same inputs, same run), against svvamp's
  ``is_im_v_with_candidates_`` (``im_option="exact"``) on the same elections when
  ``--svvamp PYTHON`` names a side venv's interpreter with svvamp installed
  (``benchmarks/peer_svvamp.py``; svvamp is a peer, never a dependency); the sides run
  interleaved in three rounds, each side's fastest round is reported and the single
  rounds' ratios beside it;
- ``smti-5000``: ``prefcert label`` of 5,000 SMTI markets of n = 10 (ties p = 0.2, three
  notions: 15,000 labels), milliseconds per label (wall and CPU, medians of
  ``--smti-repeat``): a plain-Python floor doing only deferred acceptance and the three
  blocking-pair scans on the same raw lines; ``--engines oracle`` to stdout against the
  floor (target 4x); ``--engines oracle -o OUT`` against stdout (target 1.2x); the
  default engines (cross-check budget) and ``--cross-check never`` against the oracle
  alone (target 2x); with ``--before``, each also against the older installation; the
  ``-o`` cost's anchor: appends of the same label lines with an ``fsync`` each, and without;
- ``generate``: ``prefcert generate SUITE -o DIR`` (default jobs, 2) of
  ``actionable-indeterminacy``, ``indeterminacy-preference``, ``indeterminacy-algorithmic``
  and ``voting-manipulation`` (``--suites`` to choose): wall seconds, CPU seconds (the
  process and its workers) and peak memory, against the ``json.load`` floor of its output
  (every line of its JSONL files and the manifest decoded, in this process); with
  ``--before``, the older installation generates the same suite in the same run, and the
  row says whether every output file is byte-identical (SHA-256); for
  ``indeterminacy-preference`` also ``--param profiles=shared`` (CPU, peak memory, and
  the bytes of ``prompts.jsonl`` + ``profiles.jsonl`` against the default prompts).

Targets (issue "label at the speed of reading the input") are printed beside each row;
nothing is asserted. A timing script, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DUBLIN = ROOT / "tests" / "data" / "preflib" / "soi" / "00001-00000002.soi"   # in the repo


# ------------------------------------------------------------------ instances

def smti_file(work: Path, name: str, n: int, tie_prob: float) -> Path:
    from prefcert.generators.stable_matching import sample_smti
    path = work / f"{name}.json"
    if not path.exists():
        path.write_text(json.dumps(sample_smti(n, tie_prob=tie_prob, seed=n, id=name)))
    return path


def regular_smti(n: int, degree: int, tie_prob: float, seed: int) -> dict:
    """n a side, a random ``degree``-regular bipartite acceptability graph (the union of
    ``degree`` shifted random permutations, duplicates dropped), each list a random order
    of its neighbours with adjacent items tied with probability ``tie_prob``."""
    import numpy as np
    from prefcert.generators.stable_matching import merge_ties
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    shifts = rng.choice(n, size=degree, replace=False)
    nb_a = [[int(perm[(i + s) % n]) for s in shifts] for i in range(n)]
    nb_b: list[list[int]] = [[] for _ in range(n)]
    for i, js in enumerate(nb_a):
        for j in js:
            nb_b[j].append(i)
    prefs = {}
    for side, nbrs, other in (("A", nb_a, "B"), ("B", nb_b, "A")):
        prefs[side] = {}
        for i, js in enumerate(nbrs):
            order = [f"{other}{j + 1}" for j in rng.permutation(js)]
            prefs[side][f"{side}{i + 1}"] = merge_ties(order, tie_prob, rng)
    return {"id": f"regular-n{n}-d{degree}", "domain": "stable_matching",
            "preferences": prefs}


def housing_strict(n: int, length: int, seed: int) -> dict:
    rng = random.Random(seed)
    prefs = {}
    for k in range(n):          # = rng.sample([h for h in range(n) if h != k], length)
        others = [h + (h >= k) for h in rng.sample(range(n - 1), length)]
        prefs[f"a{k}"] = [f"h{h}" for h in others] + [f"h{k}"]
    return {"id": f"hm-strict-n{n}", "domain": "housing_market", "preferences": prefs,
            "endowment": {f"a{k}": f"h{k}" for k in range(n)}, "questions": ["strict_core"]}


# ------------------------------------------------------------------ processes

def run(cmd: list[str], out: Path | None = None) -> tuple[float, float, int]:
    """(wall seconds, peak MiB over the process and its waited workers, exit status)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL if out is None else open(out, "w"),
                            stderr=subprocess.DEVNULL, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - t0, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def label_and_check(exe: str, path: Path, work: Path, tag: str) -> dict:
    """One ``label -o`` and one ``check`` of ``path``: wall seconds, CPU seconds (the
    process and its workers, from ``wait4``), peak MiB."""
    out = work / f"{path.stem}.{tag}.jsonl"
    out.unlink(missing_ok=True)
    t_l, cpu_l, m_l, rc_l = run_cpu([exe, "label", str(path), "-o", str(out)])
    t_c, cpu_c, m_c, rc_c = run_cpu([exe, "check", str(out)])
    return {"label": t_l, "label_cpu": cpu_l, "label_mib": m_l, "check": t_c,
            "check_cpu": cpu_c, "check_mib": m_c, "ok": rc_l == 0 and rc_c == 0}


#: The issue's floor for ``label-n1000``: a pure-Python rank-array Gale–Shapley from the
#: raw file, run as its own process (interpreter start, ``json.load``, agents numbered,
#: lists as partner-int arrays with ties flattened in list order, B's rank arrays by tie
#: index, then proposals). Prints the matching's size.
_GS_FLOOR = r'''
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    d = json.load(f)
A, B = d["preferences"]["A"], d["preferences"]["B"]
men, women = list(A), list(B)
wid = {w: j for j, w in enumerate(women)}
mid = {m: i for i, m in enumerate(men)}
lists = []
for m in men:
    lst = []
    for e in A[m]:
        if e.__class__ is list:
            lst.extend(wid[w] for w in e)
        else:
            lst.append(wid[e])
    lists.append(lst)
NONE = 1 << 30
rank = []
for w in women:
    r = [NONE] * len(men)
    for k, e in enumerate(B[w]):
        if e.__class__ is list:
            for m in e:
                r[mid[m]] = k
        else:
            r[mid[e]] = k
    rank.append(r)
nxt, holds, free = [0] * len(men), [-1] * len(women), list(range(len(men)))
while free:
    i = free.pop()
    lst = lists[i]
    while nxt[i] < len(lst):
        j = lst[nxt[i]]
        nxt[i] += 1
        rj = rank[j]
        if rj[i] == NONE:
            continue
        h = holds[j]
        if h < 0:
            holds[j] = i
            break
        if rj[i] < rj[h]:
            holds[j] = i
            free.append(h)
            break
print(sum(1 for h in holds if h >= 0))
'''


def floor_anchor(row: str, path: Path, exe: str, before: str | None, work: Path,
                 repeat: int = 3) -> None:
    """The issue's targets at L = 2·10⁶: ``label`` <= 2x and ``check`` <= 1.5x the CPU of
    the rank-array Gale–Shapley floor from the raw file (:data:`_GS_FLOOR`); medians of
    ``repeat`` whole processes each, ours and (with ``before``) the older installation's
    interleaved in this run."""
    runs: dict[str, list[float]] = {"floor": [], "label": [], "check": [],
                                    "before label": [], "before check": []}
    for _ in range(repeat):
        runs["floor"].append(run_cpu([sys.executable, "-c", _GS_FLOOR, str(path)])[1])
        for tag, x in (("", exe), ("before ", before)):
            if x is None:
                continue
            r = label_and_check(x, path, work, "anchor" + tag.strip())
            runs[tag + "label"].append(r["label_cpu"])
            runs[tag + "check"].append(r["check_cpu"])
    med = {k: statistics.median(v) for k, v in runs.items() if v}
    fl = med["floor"]
    line(row, "GS floor from the raw file (CPU)", fl, None, "", "")
    line(row, "  label CPU / floor", med["label"], fl, "floor (CPU s)", "<= 2x the floor")
    line(row, "  check CPU / floor", med["check"], fl, "floor (CPU s)", "<= 1.5x the floor")
    if before:
        line(row, "  before: label CPU / floor", med["before label"], fl, "floor (CPU s)", "")
        line(row, "  before: check CPU / floor", med["before check"], fl, "floor (CPU s)", "")
        line(row, "  label CPU after / before", med["label"], med["before label"],
             "before (CPU s)", "")
        line(row, "  check CPU after / before", med["check"], med["before check"],
             "before (CPU s)", "")
    print(f"{'':<12} CPU s, medians of {repeat}; runs: "
          + "; ".join(f"{k} {[round(c, 2) for c in v]}" for k, v in runs.items() if v),
          flush=True)


def line(row: str, what: str, ours: float, ref: float | None, ref_name: str, target: str,
         unit: str = "s") -> None:
    ratio = f"{ours / ref:7.3f}" if ref else "      -"
    reftxt = f"{ref:9.3f}" if ref is not None else "        -"
    print(f"{row:<12} {what:<44} {ours:9.3f}{unit:<4} {ref_name:<22} {reftxt} {ratio}  "
          f"{target}", flush=True)


def whole_process(name: str, path: Path, exe: str, before: str | None, work: Path,
                  target_s: str, target_mib: str = "") -> dict:
    new = label_and_check(exe, path, work, "after")
    old = label_and_check(before, path, work, "before") if before else None
    line(name, f"label {path.stem}", new["label"], old and old["label"], "before (label)",
         target_s)
    line(name, "  peak memory", new["label_mib"], old and old["label_mib"], "before (MiB)",
         target_mib, "MiB")
    line(name, "  check / label", new["check"] / new["label"],
         old and old["check"] / old["label"], "before (ratio)", "<= 0.30", "x")
    line(name, "  check", new["check"], old and old["check"], "before (check)", "")
    line(name, "  label CPU", new["label_cpu"], old and old["label_cpu"], "before (CPU s)", "")
    line(name, "  check CPU", new["check_cpu"], old and old["check_cpu"], "before (CPU s)", "")
    if not new["ok"]:
        print(f"{name:<12} WARNING: a command failed")
    return new


# ------------------------------------------------------------------ peers

def floor_gale_shapley(prefs_a: dict, prefs_b: dict) -> dict:
    """The 15-line rank-array Gale–Shapley (strict complete lists), conversion included."""
    men, women = list(prefs_a), list(prefs_b)
    wid = {w: j for j, w in enumerate(women)}
    mid = {m: i for i, m in enumerate(men)}
    lists = [[wid[w] for w in prefs_a[m]] for m in men]
    rank = [[0] * len(men) for _ in women]
    for j, w in enumerate(women):
        for r, m in enumerate(prefs_b[w]):
            rank[j][mid[m]] = r
    nxt, holds, free = [0] * len(men), [-1] * len(women), list(range(len(men)))
    while free:
        i = free.pop()
        j = lists[i][nxt[i]]
        nxt[i] += 1
        if holds[j] < 0:
            holds[j] = i
        elif rank[j][i] < rank[j][holds[j]]:
            free.append(holds[j])
            holds[j] = i
        else:
            free.append(i)
    return {men[i]: women[j] for j, i in enumerate(holds) if i >= 0}


def best(fn, repeat: int = 3) -> tuple[float, object]:
    t, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - t0)
    return t, out


def peers(work: Path) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_stable_matching import (
        PeerTimeout,
        best_of_peer,
        peer_algmatch,
        peer_da_big_stack,
    )
    from prefcert.formal.stable_matching import parse_market
    from prefcert.generators.stable_matching import sample_smti
    from prefcert.oracles import stable_matching as orc
    strict = sample_smti(1000, seed=1000, id="strict-1000")
    p = strict["preferences"]
    t_ours, ours = best(lambda: orc.deferred_acceptance(parse_market(strict)))
    t_floor, fl = best(lambda: floor_gale_shapley(p["A"], p["B"]))
    line("peers-n1000", "DA from the raw dict (parse included)", t_ours, t_floor,
         "15-line floor", "<= 2x the floor")
    try:
        t_peer, peer = best_of_peer(peer_da_big_stack, (strict,), 1, 300)
        line("peers-n1000", f"DA (same matching: {peer == ours == fl})", t_ours, t_peer,
             "matching (suitor)", "")
    except (PeerTimeout, RuntimeError) as e:
        print(f"peers-n1000  matching failed: {e}")
    tied = json.loads(smti_file(work, "n1000", 1000, 0.2).read_text())
    for notion, fn in (("super", orc.super_stable_search), ("strong", orc.strongly_stable_search)):
        t_ours, out = best(lambda: fn(parse_market(tied)), 1)
        try:
            t_peer, peer = best_of_peer(peer_algmatch, (tied, notion), 1, 120)
            agree = (out[0] is None) == (peer is None)
            line("peers-n1000", f"{notion} oracle (parse incl.; verdicts agree: {agree})",
                 t_ours, t_peer, f"algmatch {notion}", "")
        except PeerTimeout:
            line("peers-n1000", f"{notion} oracle (parse incl.); algmatch timed out",
                 t_ours, 120.0, f"algmatch {notion} >", "")
        except RuntimeError as e:
            print(f"peers-n1000  algmatch {notion} failed: {e!r:.200}")
    # one-sided welfare: utilitarian house allocation, complete strict lists, n = 1000
    welfare(work, 1000, "peers-n1000", repeat=3)


def house_allocation_file(work: Path, n: int, seed: int) -> Path:
    """n agents and n objects, complete strict lists (uniform random orders), question
    ``utilitarian``; written with numpy (a permutation array), no Python object per entry
    beyond the JSON text."""
    import numpy as np
    path = work / f"ha-strict-n{n}.json"
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    names = [f"h{j}" for j in range(1, n + 1)]
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w") as f:
        f.write(f'{{"id": "ha-strict-n{n}", "domain": "house_allocation", '
                f'"questions": ["utilitarian"], "objects": {json.dumps(names)}, '
                f'"preferences": {{')
        for i in range(n):
            perm = rng.permutation(n).tolist()
            f.write(("" if i == 0 else ", ") + f'"a{i + 1}": ["'
                    + '", "'.join(map(names.__getitem__, perm)) + '"]')
        f.write("}}")
    tmp.rename(path)
    return path


_WELFARE_CHILD = """
import json, sys, time
from prefcert.formal.house_allocation import parse_house_allocation
from prefcert.oracles import house_allocation as oa
data = json.load(open(sys.argv[1]))
times = []
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter()
    m, cert = oa.utilitarian_matching(parse_house_allocation(data))
    times.append(time.perf_counter() - t0)
print(json.dumps({"seconds": min(times), "value": cert["value"]}))
"""


def welfare(work: Path, n: int, row: str, *, repeat: int = 1, exe: str | None = None,
            before: str | None = None) -> None:
    """Utilitarian house allocation, n agents, complete strict lists: the whole oracle
    (parse of the decoded instance included) against ``linear_sum_assignment`` with its
    cost matrix built from the same decoded dict (the naive loop, and per agent with
    ``np.fromiter``), in this process; with ``exe``, ``prefcert label`` / ``check`` of the
    instance in CPU seconds against a child's ``json.load`` of it (:func:`whole_welfare`);
    with ``before``, the older installation's label and check, and at n ≤ 1000 its oracle
    on the same file (a child process, same timing code)."""
    import numpy as np
    from prefcert.formal.house_allocation import parse_house_allocation
    from prefcert.oracles import house_allocation as oa
    from scipy.optimize import linear_sum_assignment
    path = house_allocation_file(work, n, seed=n)
    t0 = time.perf_counter()
    inst = json.loads(path.read_text())
    t_load = time.perf_counter() - t0
    t_ours, (m, cert) = best(lambda: oa.utilitarian_matching(parse_house_allocation(inst)),
                             repeat)

    def lsa_naive():
        agents, objs = list(inst["preferences"]), {o: j for j, o in enumerate(inst["objects"])}
        cost = np.full((len(agents), len(objs)), 10 ** 6)
        for i, a in enumerate(agents):
            for r, o in enumerate(inst["preferences"][a], 1):
                cost[i, objs[o]] = r
        rows, cols = linear_sum_assignment(cost)
        return int(cost[rows, cols].sum())

    def lsa_rows():
        prefs = inst["preferences"]
        objs = {o: j for j, o in enumerate(inst["objects"])}
        cost = np.full((len(prefs), len(objs)), 10 ** 6)
        for i, lst in enumerate(prefs.values()):
            cost[i, np.fromiter(map(objs.__getitem__, lst), np.int64, len(lst))] = \
                np.arange(1, len(lst) + 1)
        rows, cols = linear_sum_assignment(cost)
        return int(cost[rows, cols].sum())
    t_rows, v_rows = best(lsa_rows, repeat)
    t_naive, v_naive = best(lsa_naive, repeat)
    same = cert["value"] == v_rows == v_naive
    line(row, f"utilitarian n={n} (parse incl.; same value: {same})", t_ours, t_rows,
         "lsa, matrix per row", "<= 2x")
    line(row, f"utilitarian n={n} (parse incl.)", t_ours, t_naive, "lsa, naive loop", "")
    line(row, f"  json.load of the instance (n={n})", t_load, t_rows, "lsa, matrix per row", "")
    if before and n <= 1000:          # (the older oracle builds 25 M tuples at n = 5000)
        py = str(Path(before).with_name("python"))
        out = subprocess.run([py, "-c", _WELFARE_CHILD, str(path), str(repeat)],
                             capture_output=True, text=True, cwd="/")
        if out.returncode == 0:
            old = json.loads(out.stdout)
            line(row, f"  before: oracle (same value: {old['value'] == cert['value']})",
                 old["seconds"], t_rows, "lsa, matrix per row", "")
            line(row, "  after / before", t_ours, old["seconds"], "before (oracle)", "")
        else:
            print(f"{row:<12} before failed: {out.stderr[-200:]!r}")
    if exe:
        whole_welfare(row, path, exe, before, work)


def load_floor(path: Path) -> float:
    """CPU seconds of a child process that only ``json.load``\ s ``path`` (the floor of
    the whole-process rows: the interpreter's start and the decode, freeing included)."""
    return run_cpu([sys.executable, "-c", f"import json; json.load(open({str(path)!r}))"])[1]


def whole_welfare(row: str, path: Path, exe: str, before: str | None, work: Path) -> None:
    """``prefcert label`` and ``check`` of the instance as processes, in CPU seconds (the
    machine is shared), against a child's ``json.load`` of the same file; with ``before``,
    the older installation's label and check in the same run."""
    floor = load_floor(path)
    line(row, "  json.load of the instance (child, CPU)", floor, None, "", "")
    for tag, prog in (("after", exe), ("before", before)):
        if prog is None:
            continue
        labels = work / f"{path.stem}.{tag}.labels.jsonl"
        labels.unlink(missing_ok=True)
        _, c_l, mib, rc_l = run_cpu([prog, "label", str(path), "-o", str(labels)])
        _, c_c, mib_c, rc_c = run_cpu([prog, "check", str(labels)])
        line(row, f"  {tag}: prefcert label (CPU; rc {rc_l}, {mib:.0f} MiB)", c_l, floor,
             "json.load (CPU)", "small multiple")
        line(row, f"  {tag}: prefcert check (CPU; rc {rc_c}, {mib_c:.0f} MiB)", c_c, floor,
             "json.load (CPU)", "small multiple")


def irv_m20(count: int) -> None:
    """IRV manipulation, m = 20: per-instance label seconds, cross-check budget vs always."""
    from prefcert.encodings import set_cpsat_workers
    from prefcert.formal import budget
    from prefcert.formal.instances import from_object
    from prefcert.generators.election import impartial_culture_election
    from prefcert.pipeline.jobs import label, plan
    set_cpsat_workers(max(1, os.cpu_count() or 1))      # as prefcert label --jobs 1
    times: dict[str, list[float]] = {"budget": [], "always": []}
    sampled = 0
    for s in range(count):
        data = impartial_culture_election(20, 50, seed=9000 + s, rule="irv")
        inst = from_object(data, "<bench>", None, f"irv-m20-{s}")
        sampled += budget.due(inst.sha256, inst.size)
        (job,) = plan([inst], ["manipulation"])
        labs = {}
        for mode in ("budget", "always"):
            t0 = time.perf_counter()
            labs[mode] = label(job, time_limit=60.0, cross_check=mode)
            times[mode].append(time.perf_counter() - t0)
        assert labs["budget"]["verdict"] == labs["always"]["verdict"]
    # the sampled instances (1 in budget.SAMPLE_ONE_IN, cross-checked under budget) among
    # the next seeds
    sample: list[float] = []
    for s in range(count, 2000):
        if len(sample) == 2:
            break
        data = impartial_culture_election(20, 50, seed=9000 + s, rule="irv")
        inst = from_object(data, "<bench>", None, f"irv-m20-{s}")
        if not budget.due(inst.sha256, inst.size):
            continue
        (job,) = plan([inst], ["manipulation"])
        t0 = time.perf_counter()
        label(job, time_limit=60.0, cross_check="budget")
        sample.append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    mean = {k: statistics.fmean(v) for k, v in times.items()}
    if sample:
        line("irv-m20", f"sampled s/instance, budget ({len(sample)} in the sample)",
             statistics.fmean(sample), None, "", "")
        k = budget.SAMPLE_ONE_IN
        line("irv-m20", f"expected mean s/instance ({k - 1}/{k} + 1/{k} sampled)",
             ((k - 1) * mean["budget"] + statistics.fmean(sample)) / k, None, "", "<= 0.1 s")
    line("irv-m20", f"median s/instance, budget ({count} inst.)", med["budget"],
         med["always"], "always (median)", "<= 0.1 s")
    line("irv-m20", f"mean s/instance, budget ({sampled} due)", mean["budget"],
         mean["always"], "always (mean)", "")
    line("irv-m20", "max s/instance, budget", max(times["budget"]), max(times["always"]),
         "always (max)", "")


def manipulation_times(m: int, count: int) -> dict:
    """Single-voter manipulation at m candidates, every rule: the median CPU milliseconds
    per instance of the label (default, never) and the check, the verdicts, the label's
    certificate type and svvamp's input (JSON-able: a ``--before`` interpreter prints it).
    Each instance is labelled once untimed first (imports, caches built once per m), and
    each timed labelling starts from a fresh model: what the engines derive once per
    election is not carried from one labelling to the next."""
    import prefcert
    from prefcert.formal.election import parse_election
    from prefcert.formal.instances import from_object
    from prefcert.formal.rules import rule_names
    from prefcert.generators.election import impartial_culture_election
    from prefcert.pipeline.jobs import label, plan
    out: dict = {}
    for rule in rule_names():
        datas = [impartial_culture_election(m, 5, seed=100 * m + s, rule=rule)
                 for s in range(count)]
        times: dict[str, list[float]] = {"default": [], "never": [], "check": []}
        verdicts, peer_in, cert = [], [], None
        for s, data in enumerate(datas):
            (job,) = plan([from_object(data, "<bench>", None, f"m{m}-{s}")], ["manipulation"])
            prefcert.check(label(job), data)                           # warm: untimed
            for mode in ("default", "never"):
                (job,) = plan([from_object(data, "<bench>", None, f"m{m}-{s}")],
                              ["manipulation"])
                t0 = time.process_time()
                lab = label(job, cross_check="budget" if mode == "default" else "never")
                times[mode].append(time.process_time() - t0)
            t0 = time.process_time()
            assert prefcert.check(lab, data)
            times["check"].append(time.process_time() - t0)
            verdicts.append(lab["verdict"] == "manipulable")
            cert = lab["certificate"]["type"]
            e = parse_election(data)
            idx = {x: i for i, x in enumerate(e.tie_break)}
            voters = [e.manipulator, *(b for b in e.ballots for _ in range(b.count))]
            # approval: utilities strict in the ranking, positive on the approved top
            # (svvamp approves utility > 0; an indifferent ±1 voter would manipulate less)
            rank = [{g[0]: i for i, g in enumerate(b.ranking)} for b in voters]
            peer_in.append({"rule": rule, "m": m,
                            "voters": [[idx[g[0]] for g in b.ranking] for b in voters],
                            "utilities": [[len(b.approved) - r[x] - 0.5 for x in e.tie_break]
                                          for b, r in zip(voters, rank)]})
        out[rule] = {"ms": {k: 1000 * statistics.median(v) for k, v in times.items()},
                     "verdicts": verdicts, "certificate": cert, "peer_in": peer_in}
    return out


def manipulation(m: int, count: int, work: Path, svvamp: str | None,
                 before: str | None = None, rounds: int = 3) -> None:
    """Single-voter manipulation at m candidates: label (default, never) and check per
    instance (median CPU ms), every rule, against svvamp on the same elections and, with
    ``before`` (an older installation's prefcert executable), against that installation
    (its python runs this function in a subprocess, in the same run).

    The sides run interleaved, ``rounds`` times (ours, svvamp, before; again …), and each
    side's figure is its fastest round (the minimum over rounds of the per-instance
    median): a load spike in one side's block no longer decides the ratio. The ratios of
    the single rounds are printed beside it, so the noise shows."""
    runs: list[dict] = []
    peers: list[dict[str, dict]] = []
    olds: list[dict] = []
    path = work / f"svvamp-m{m}.json"
    for k in range(rounds):
        ours = manipulation_times(m, count)
        runs.append(ours)
        if svvamp:
            if k == 0:
                path.write_text(json.dumps([el for v in ours.values() for el in v["peer_in"]]))
            r = subprocess.run([svvamp, str(ROOT / "benchmarks" / "peer_svvamp.py"), str(path)],
                               capture_output=True, text=True, check=True)
            peers.append({row["rule"]: row for row in map(json.loads, r.stdout.splitlines())})
        if before:
            py = str(Path(before).with_name("python"))
            r = subprocess.run([py, str(Path(__file__).resolve()), "--manip-json", str(m),
                                "--manip-count", str(count)],
                               capture_output=True, text=True, check=True)
            olds.append(json.loads(r.stdout.splitlines()[-1]))

    def fastest(side: list[dict], rule: str, key: str) -> float | None:
        got = [x[rule]["ms"][key] for x in side if rule in x]
        return min(got) if got else None
    for rule, got in runs[0].items():
        t = {key: fastest(runs, rule, key) for key in got["ms"]}
        verdicts = got["verdicts"]
        ref = peers[0].get(rule) if peers else None
        same = "" if ref is None else \
            f" (verdicts agree {sum(a == b for a, b in zip(verdicts, ref['verdicts']))}/{count})"
        ms = None if ref is None else 1000 * min(p[rule]["seconds"] for p in peers)
        each = "" if ref is None else " rounds " + "/".join(
            f"{x[rule]['ms']['default'] / (1000 * p[rule]['seconds']):.2f}"
            for x, p in zip(runs, peers))
        line(f"manip-m{m}", f"{rule} label, default ({got['certificate']})", t["default"], ms,
             "svvamp exact IM (ms)", "<= svvamp" + same + each, "ms")
        line(f"manip-m{m}", f"{rule} label, cross-check never", t["never"], ms,
             "svvamp exact IM (ms)", "", "ms")
        line(f"manip-m{m}", f"{rule} check", t["check"], ms, "svvamp exact IM (ms)", "", "ms")
        if olds and rule in olds[0]:
            b = {key: fastest(olds, rule, key) for key in ("default", "check")}
            each = " rounds " + "/".join(f"{x[rule]['ms']['default'] / o[rule]['ms']['default']:.2f}"
                                         for x, o in zip(runs, olds))
            line(f"manip-m{m}", f"{rule} label, default / before", t["default"],
                 b["default"], "before (ms)", each, "ms")
            line(f"manip-m{m}", f"{rule} check / before", t["check"], b["check"],
                 "before (ms)", "", "ms")


# ------------------------------------------------------------------ suite generation

SUITES = ("actionable-indeterminacy", "indeterminacy-preference", "indeterminacy-algorithmic",
          "voting-manipulation")


def as_installed(*exes: str | None) -> None:
    """Run every measured command as it runs after ``pip install``: bytecode caches
    compiled (here, once, for each installation's prefcert; pip compiles a regular install
    and an editable one writes them on first import) and written, standard output
    buffered. A shell that sets ``PYTHONDONTWRITEBYTECODE`` (as some containers do) would
    otherwise charge every run the compilation of every module it imports, and
    ``PYTHONUNBUFFERED`` one system call per output line; the floors run the same way."""
    for var in ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED"):
        if os.environ.pop(var, None) is not None:
            print(f"(bench: {var} unset for the measured commands)", flush=True)
    for exe in filter(None, exes):
        py = str(Path(exe).with_name("python"))
        subprocess.run([py, "-c", "import compileall, pathlib, prefcert; compileall."
                        "compile_dir(pathlib.Path(prefcert.__file__).parent, quiet=1)"],
                       check=True, cwd="/")


def run_cpu(cmd: list[str]) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds of the process and its waited workers, peak MiB, exit
    status)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    return (time.perf_counter() - t0, usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status))


def output_digest(folder: Path) -> dict[str, str]:
    """File name -> SHA-256, read in blocks (a whole 0.3 GB file read at once would raise
    this process's peak memory, which later forked children then report as theirs)."""
    import hashlib
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            with open(p, "rb") as f:
                out[p.name] = hashlib.file_digest(f, "sha256").hexdigest()
    return out


_FLOOR = """
import json, sys, time
from pathlib import Path
folder = Path(sys.argv[1])
t0 = time.perf_counter()
for p in sorted(folder.glob("*.jsonl")):
    with open(p, encoding="utf-8") as f:
        for ln in f:
            json.loads(ln)
json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
print(time.perf_counter() - t0)
"""


def json_floor(folder: Path) -> float:
    """Seconds to read and ``json.loads`` every line of the folder's JSONL files and its
    manifest: the floor of any program that produces (or reads back) these bytes. In a
    child process: this one stays small, so the peak memory of the ``prefcert`` children
    forked after it is their own."""
    out = subprocess.run([sys.executable, "-c", _FLOOR, str(folder)], capture_output=True,
                         text=True, check=True)
    return float(out.stdout)


def generate_suites(work: Path, exe: str, before: str | None, suites: list[str]) -> None:
    for name in suites:
        out = work / f"gen-{name}"
        wall, cpu, mib, rc = run_cpu([exe, "generate", name, "-o", str(out), "--overwrite"])
        floor = json_floor(out) if rc == 0 else None
        line("generate", f"{name} (wall)", wall, floor, "json.load floor", "<= 10 s")
        old = None
        if before:
            old_out = work / f"gen-{name}.before"
            old = run_cpu([before, "generate", name, "-o", str(old_out), "--overwrite"])
            line("generate", "  wall", wall, old[0], "before (wall)", "")
        line("generate", "  CPU (process + workers)", cpu, old and old[1], "before (CPU)", "")
        line("generate", "  peak memory", mib, old and old[2], "before (MiB)", "", "MiB")
        if old is not None:
            same = old[3] == 0 and rc == 0 and \
                output_digest(out) == output_digest(work / f"gen-{name}.before")
            print(f"{'generate':<12}   same bytes as before: {'yes' if same else 'NO'}",
                  flush=True)
        if rc != 0:
            print(f"{'generate':<12} WARNING: generate {name} failed")
        if name == "indeterminacy-preference" and rc == 0:
            shared_row(work, exe, out, cpu)


def shared_row(work: Path, exe: str, inline: Path, inline_cpu: float) -> None:
    """The preference suite with ``--param profiles=shared``: CPU seconds and peak memory,
    and the bytes of prompts.jsonl + profiles.jsonl against the default prompts.jsonl (the
    resolved prompts equal the default ones byte for byte: tests/test_shared_profiles.py)."""
    out = work / "gen-indeterminacy-preference.shared"
    wall, cpu, mib, rc = run_cpu([exe, "generate", "indeterminacy-preference", "-o", str(out),
                                  "--overwrite", "--param", "profiles=shared"])
    if rc != 0:
        print(f"{'generate':<12} WARNING: generate --param profiles=shared failed")
        return
    line("generate", "  profiles=shared: CPU", cpu, inline_cpu, "default (CPU)", "")
    line("generate", "  profiles=shared: peak memory", mib, None, "", "", "MiB")
    size = sum((out / f).stat().st_size for f in ("prompts.jsonl", "profiles.jsonl"))
    line("generate", "  profiles=shared: prompts + profiles", size / 2 ** 20,
         (inline / "prompts.jsonl").stat().st_size / 2 ** 20, "default prompts (MiB)", "",
         "MiB")


#: The plain floor of the ``smti-5000`` row: read each raw instance (``json.loads`` of its
#: line), build rank maps, run side-A-proposing deferred acceptance once (ties broken in
#: list order) and scan every acceptable pair for a blocking pair of each of the three
#: notions (super: both weakly prefer; strong: one strictly, the other weakly; weak: both
#: strictly). No certificate, no check, no output: the work any labeller of these
#: questions does at least. Prints its own seconds and the number of (instance, notion)
#: pairs, and runs as a whole process like ``prefcert`` (interpreter start included in the
#: wall time the caller measures).
_SMTI_FLOOR = r'''
import json, sys
NONE = 1 << 30
def ranks(lst):
    r = {}
    for k, e in enumerate(lst):
        if e.__class__ is list:
            for x in e:
                r[x] = k
        else:
            r[e] = k
    return r
def flat(lst):
    out = []
    for e in lst:
        if e.__class__ is list:
            out.extend(e)
        else:
            out.append(e)
    return out
def da(pa, rb):
    nxt = dict.fromkeys(pa, 0)
    holds = {}
    free = list(pa)
    while free:
        a = free.pop()
        lst = pa[a]
        while nxt[a] < len(lst):
            b = lst[nxt[a]]
            nxt[a] += 1
            rk = rb[b].get(a)
            if rk is None:
                continue
            h = holds.get(b)
            if h is None:
                holds[b] = a
                break
            if rk < rb[b][h]:
                holds[b] = a
                free.append(h)
                break
    return {a: b for b, a in holds.items()}
def blocking(m, ra, rb, notion):
    back = {b: a for a, b in m.items()}
    out = []
    for a, r in ra.items():
        ma = m.get(a)
        cur_a = r[ma] if ma is not None else NONE
        for b, k in r.items():
            ka = rb[b].get(a)
            if b == ma or ka is None:
                continue
            mb = back.get(b)
            cur_b = rb[b][mb] if mb is not None else NONE
            if notion == "weak":
                hit = k < cur_a and ka < cur_b
            elif notion == "strong":
                hit = (k < cur_a and ka <= cur_b) or (k <= cur_a and ka < cur_b)
            else:
                hit = k <= cur_a and ka <= cur_b
            if hit:
                out.append((a, b))
    return out
pairs = 0
with open(sys.argv[1], encoding="utf-8") as f:
    for ln in f:
        d = json.loads(ln)
        A, B = d["preferences"]["A"], d["preferences"]["B"]
        ra = {a: ranks(v) for a, v in A.items()}
        rb = {b: ranks(v) for b, v in B.items()}
        m = da({a: flat(v) for a, v in A.items()}, rb)
        for notion in ("super", "strong", "weak"):
            blocking(m, ra, rb, notion)
            pairs += 1
print(pairs)
'''


def fsync_anchor(lines: list[bytes], work: Path, count: int = 1500) -> tuple[float, float]:
    """The issue's anchor of the ``-o`` cost: ms per line of ``count`` appends of label
    lines to a new file with an ``fsync`` after each, and without (no prefcert)."""
    out = []
    for sync in (True, False):
        f = work / "fsync-anchor.jsonl"
        f.unlink(missing_ok=True)
        t = time.perf_counter()
        with open(f, "ab") as fh:
            for b in lines[:count]:
                fh.write(b)
                fh.flush()
                if sync:
                    os.fsync(fh.fileno())
        out.append(1000 * (time.perf_counter() - t) / min(count, len(lines)))
        f.unlink(missing_ok=True)
    return out[0], out[1]


def smti_5000(work: Path, exe: str, before: str | None = None, count: int = 5000,
              repeat: int = 3) -> None:
    """5,000 SMTI markets of n = 10, three notions (15,000 labels): the plain floor
    (:data:`_SMTI_FLOOR`), ``--engines oracle`` to stdout and with ``-o``, the default
    engines (cross-check budget) and ``--cross-check never``, each a whole process,
    ``repeat`` times in turn (medians); per label: wall and CPU milliseconds (the
    process and its workers), with the ratios of the issue (oracle / floor, ``-o`` /
    stdout, default / oracle). With ``before``: the same commands with the older
    installation, interleaved, and the before / after ratios."""
    from prefcert.generators.stable_matching import sample_smti
    path = work / f"smti-n10-{count}.jsonl"
    if not path.exists():
        path.write_text("".join(json.dumps(sample_smti(10, tie_prob=0.2, seed=s,
                                                       id=f"smti-{s}")) + "\n"
                                for s in range(count)))
    labels = 3 * count
    out = work / "smti-5000.labels.jsonl"
    cmds = {"floor": [sys.executable, "-c", _SMTI_FLOOR, str(path)]}
    exes = {"": exe, **({"before ": before} if before else {})}
    for tag, x in exes.items():
        cmds[tag + "oracle"] = [x, "label", str(path), "--engines", "oracle"]
        cmds[tag + "oracle -o"] = [x, "label", str(path), "--engines", "oracle", "-o",
                                   str(out)]
        cmds[tag + "default"] = [x, "label", str(path)]
        cmds[tag + "never"] = [x, "label", str(path), "--cross-check", "never"]
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in cmds}
    for _ in range(repeat):
        for k, cmd in cmds.items():
            out.unlink(missing_ok=True)
            wall, cpu, _, rc = run_cpu(cmd)
            if rc != 0:
                print(f"{'smti-5000':<12} WARNING: {k} exited {rc}")
            runs[k].append((wall, cpu))
    ms = {k: (1000 * statistics.median(w for w, _ in v) / labels,
              1000 * statistics.median(c for _, c in v) / labels) for k, v in runs.items()}
    run_cpu(cmds["oracle -o"])                      # its lines: the fsync anchor's
    with_sync, without = fsync_anchor(out.read_bytes().splitlines(keepends=True), work) \
        if out.exists() else (None, None)
    out.unlink(missing_ok=True)
    for i, unit in ((0, "wall"), (1, "CPU")):
        fl, orc = ms["floor"][i], ms["oracle"][i]
        line("smti-5000", f"plain floor (DA + 3 scans), {unit}", fl, None, "", "", "ms")
        line("smti-5000", f"--engines oracle, stdout, {unit}", orc, fl, "plain floor (ms)",
             "<= 4x the floor", "ms")
        line("smti-5000", f"--engines oracle -o OUT, {unit}", ms["oracle -o"][i], orc,
             "oracle, stdout (ms)", "<= 1.2x stdout", "ms")
        line("smti-5000", f"default engines (budget), {unit}", ms["default"][i], orc,
             "oracle, stdout (ms)", "<= 2x oracle only", "ms")
        line("smti-5000", f"--cross-check never, {unit}", ms["never"][i], orc,
             "oracle, stdout (ms)", "", "ms")
        for k in ("oracle", "oracle -o", "default", "never"):
            if before:
                line("smti-5000", f"  {k}: after / before, {unit}", ms[k][i],
                     ms["before " + k][i], "before (ms)", "", "ms")
    if with_sync is not None:
        line("smti-5000", "appends with an fsync each (no prefcert)", with_sync, without,
             "without fsync (ms)", "", "ms")
        line("smti-5000", "--engines oracle -o OUT vs fsync per line", ms["oracle -o"][0],
             with_sync, "fsync per line (ms)", "", "ms")
    print(f"{'':<12} ms per label, medians of {repeat}; runs (wall s, CPU s): "
          + "; ".join(f"{k} {[(round(w, 2), round(c, 2)) for w, c in v]}"
                      for k, v in runs.items()), flush=True)


# ------------------------------------------------------------------ rows

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="an older prefcert executable, run on the same inputs")
    ap.add_argument("--work", type=Path, default=Path("/tmp/prefcert-bench-targets"))
    ap.add_argument("--rows", default="all")
    ap.add_argument("--jobs-repeat", type=int, default=2)
    ap.add_argument("--irv-count", type=int, default=12)
    ap.add_argument("--manip-count", type=int, default=20)
    ap.add_argument("--smti-repeat", type=int, default=3,
                    help="whole-process runs per command of the smti-5000 row (medians)")
    ap.add_argument("--anchor-repeat", type=int, default=3,
                    help="whole-process runs of the label-n1000 floor anchor (medians)")
    ap.add_argument("--svvamp", help="a side venv's python with svvamp (the manip rows' peer)")
    ap.add_argument("--suites", default=",".join(SUITES),
                    help="the suites of the generate row (comma-separated)")
    ap.add_argument("--manip-json", type=int, help=argparse.SUPPRESS)   # a before run's row
    args = ap.parse_args()
    if args.manip_json:
        times = manipulation_times(args.manip_json, args.manip_count)
        print(json.dumps({r: {k: v for k, v in t.items() if k != "peer_in"}
                          for r, t in times.items()}))
        return
    args.work.mkdir(parents=True, exist_ok=True)
    exe = shutil.which("prefcert", path=os.path.dirname(sys.executable)) or "prefcert"
    as_installed(exe, args.before)
    rows = set(args.rows.split(","))
    want = lambda r: "all" in rows or r in rows
    print(f"{'row':<12} {'what':<44} {'ours':>9}     {'reference':<22} {'ref':>9} "
          f"{'ratio':>7}  target", flush=True)
    if want("label-n1000"):
        n1000 = smti_file(args.work, "n1000", 1000, 0.2)
        whole_process("label-n1000", n1000, exe, args.before, args.work, "<= 3 s",
                      "<= 250 MiB")
        floor_anchor("label-n1000", n1000, exe, args.before, args.work,
                     args.anchor_repeat)
    if want("label-n10k"):
        path = args.work / "n10k.json"
        if not path.exists():
            path.write_text(json.dumps(regular_smti(10_000, 100, 0.2, seed=10_000)))
        whole_process("label-n10k", path, exe, args.before, args.work, "<= 3 s")
    if want("label-n3000"):
        whole_process("label-n3000", smti_file(args.work, "n3000", 3000, 0.2), exe,
                      args.before, args.work, "<= 30 s", "<= 2048 MiB")
    if want("ties-n3000"):
        strict = label_and_check(exe, smti_file(args.work, "strict3000", 3000, 0.0),
                                 args.work, "after")
        ties = label_and_check(exe, smti_file(args.work, "ties3000", 3000, 1.0),
                               args.work, "after")
        line("ties-n3000", "label, every list one tie", ties["label"], strict["label"],
             "strict lists (label)", "on par (linear in L)")
        line("ties-n3000", "check, every list one tie", ties["check"], strict["check"],
             "strict lists (check)", "on par (linear in L)")
        line("ties-n3000", "  peak memory (label)", ties["label_mib"], strict["label_mib"],
             "strict lists (MiB)", "", "MiB")
    if want("peers-n1000"):
        peers(args.work)
    if want("welfare-n5000"):
        welfare(args.work, 5000, "welfare-n5000", exe=exe, before=args.before)
    if want("welfare-n1000"):
        welfare(args.work, 1000, "welfare-n1000", repeat=3, exe=exe, before=args.before)
    if want("help"):
        t = min(run([exe, "--help"])[0] for _ in range(5))
        tb = min(run([args.before, "--help"])[0] for _ in range(5)) if args.before else None
        line("help", "prefcert --help", t, tb, "before", "<= 0.2 s")
    if want("dublin") and DUBLIN.exists():
        new = run([exe, "label", str(DUBLIN)])
        old = run([args.before, "label", str(DUBLIN)]) if args.before else None
        line("dublin", "label Dublin West 2002 (default questions)", new[0], old and old[0],
             "before", "<= 10 s")
    if want("strict-core"):
        from prefcert.formal.checker.housing_market import blocked_arc, check_segmentation
        from prefcert.formal.housing_market import parse_housing_market
        from prefcert.oracles.housing_market import _strict_core_segmentation, strict_core
        path = args.work / "hm-strict-n10k.json"
        path.write_text(json.dumps(housing_strict(10_000, 100, seed=1)))
        # the processes first: a child forked while this process holds the market would
        # count its pages in the child's peak memory
        whole_process("strict-core", path, exe, args.before, args.work, "<= 3 s")
        data = json.loads(path.read_text())
        t0 = time.perf_counter()
        market = parse_housing_market(data)
        tp = time.perf_counter()
        res = strict_core(market)
        t1 = time.perf_counter()
        if res.allocation is not None:
            assert blocked_arc(market, res.allocation, "strict") is None
        else:
            check_segmentation(market, res.certificate)
        t2 = time.perf_counter()
        general = _strict_core_segmentation(market)     # the path markets with ties take
        t3 = time.perf_counter()
        assert general.allocation == res.allocation
        line("strict-core", "oracle (parse incl.), 10^4 agents, strict", t1 - t0, t2 - t1,
             "checker", "")
        line("strict-core", "  oracle alone: linear top trading cycles", t1 - tp, t3 - t2,
             "round-by-round segm.", "")
    if want("irv-m20"):
        irv_m20(args.irv_count)
    for m in (5, 7):
        if want(f"manip-m{m}"):
            manipulation(m, args.manip_count, args.work, args.svvamp, args.before)
    if want("smti-5000"):
        smti_5000(args.work, exe, args.before, repeat=args.smti_repeat)
    if want("generate"):
        generate_suites(args.work, exe, args.before, args.suites.split(","))
    if want("jobs"):
        times = {"1": [], "2": []}
        for _ in range(args.jobs_repeat):
            for j in ("1", "2"):
                times[j].append(run([exe, "label", "instances", "--jobs", j])[0])
        one, two = statistics.median(times["1"]), statistics.median(times["2"])
        line("jobs", "label instances/ --jobs 1 / --jobs 2 (median)", one / two, None, "",
             ">= 1.7x", "x")
        print(f"{'':<12} --jobs 1 {times['1']}, --jobs 2 {times['2']}")


if __name__ == "__main__":
    main()
