"""No label changes: label the same inputs with two installations of prefcert and compare
the labels byte for byte, apart from the engines' timings.

    python benchmarks/compare_labels.py --before OLD/.venv/bin/prefcert \
        [--after NEW/.venv/bin/prefcert] [--count 1000] [--seed 0] [--work DIR]
        [--elections 100] [--preflib FILE ...] [--jobs 2] [--sets bundled,random,elections,preflib]
        [--cross-check always|budget|never] [--both]

Inputs (the same paths for both runs, so ``source`` fields agree):

- ``bundled``: every instance under ``instances/`` (the reference instances with published
  answers included);
- ``random``: a fixed set of ``--count`` seeded random instances written to ``WORK/random``:
  stable matching (all six questions: super / strong / weak stability and the two-sided
  welfare optima; strict lists, ties by merging with p in {0.2, 0.5}, all-ties lists,
  one big tie, truncated lists, unequal sides), housing markets (strict and weak core),
  hospitals/residents (super / strong / weak) and house allocation;
- ``elections``: ``--elections`` seeded random preference profiles written to
  ``WORK/elections`` (PrefLib-like weak orders, often truncated, with counts; both
  semantics; 3–7 items, up to 40 ballots), all their default questions (pairwise
  majorities, plurality / Borda / Copeland winners);
- ``preflib``: big real PrefLib files (``--preflib``; default: the largest files copied
  into ``tests/data/preflib``, Dublin West 2002 among them), all their default questions.

Each set is labelled by ``BEFORE label PATH --jobs N`` and ``AFTER label PATH --jobs N``;
the labels (JSON lines on stdout) are compared after dropping ``engines[*].seconds``, and
the first differences are printed. ``--cross-check`` is passed to AFTER (default
``always``, under which the labels must be byte-identical to those of an installation
without the option); with ``budget`` or ``never`` the labels may differ only in the
cross-check record: AFTER's ``cross_check`` field is dropped and the engines it names as
skipped are dropped from BEFORE's ``engines`` before comparing. With ``--both`` (BEFORE
has the option too) both runs get the same mode and the labels are compared as they are.
Both runs use ``PYTHONHASHSEED=0`` (see HASH_SEED). Exit status 1 when any set differs. A check script,
not a test (it runs minutes).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PREFLIB = ROOT / "tests" / "data" / "preflib"       # the repository's copies (SOURCES.md)
#: Both runs use one hash seed: the two-sided ``rank_maximal`` solution's key order
#: depends on it (before and after alike), which is a separate determinism bug.
HASH_SEED = "0"
DEFAULT_PREFLIB = ["soi/00001-00000002.soi", "soi/00008-00000003.soi",
                   "soi/00002-00000003.soi", "toc/00038-00000001.toc"]


def _one_big_tie(order: list[str], rng: random.Random) -> list:
    """A strict order with one block of consecutive items merged into a tie."""
    if len(order) < 2:
        return list(order)
    i = rng.randrange(len(order) - 1)
    j = rng.randrange(i + 2, len(order) + 1)
    return order[:i] + [order[i:j]] + order[j:]


def random_instances(count: int, seed: int) -> dict[str, list[dict]]:
    """The fixed random set: file name -> instances (the same for the same arguments)."""
    from prefcert.generators.house_allocation import sample_house_allocation
    from prefcert.generators.hospitals_residents import sample_hr
    from prefcert.generators.housing_market import sample_housing_market
    from prefcert.generators.stable_matching import sample_smti
    rng = random.Random(seed)
    n_sm, n_hm, n_hr = int(count * 0.45), int(count * 0.2), int(count * 0.2)
    n_ha = count - n_sm - n_hm - n_hr
    sm, hm, hr, ha = [], [], [], []
    welfare = ["super_stable", "strongly_stable", "weakly_stable", "utilitarian",
               "egalitarian", "rank_maximal"]
    for k in range(n_sm):
        shape = k % 6
        na = rng.randint(1, 14)
        nb = na if rng.random() < 0.7 else rng.randint(1, 14)
        s = seed * 100_000 + k
        p = {0: 0.0, 1: 0.2, 2: 0.5, 3: 1.0, 4: 0.0, 5: 0.2}[shape]
        inst = sample_smti(na, nb, tie_prob=p, truncate=shape >= 4 or rng.random() < 0.3,
                           seed=s, id=f"sm-{k}", questions=welfare)
        if shape == 4:                         # one big tie in every list
            for side in ("A", "B"):
                for x, lst in inst["preferences"][side].items():
                    inst["preferences"][side][x] = _one_big_tie(lst, rng)
        sm.append(inst)
    for k in range(n_hm):
        n = rng.randint(1, 12)
        hm.append(dict(sample_housing_market(
            n, seed=seed * 100_000 + k, tie_prob=rng.choice([0.0, 0.3, 0.6, 1.0]),
            truncate=rng.choice(["none", "below_own", "random"])), id=f"hm-{k}"))
    for k in range(n_hr):
        hr.append(sample_hr(rng.randint(1, 12), rng.randint(1, 6), cap_min=rng.choice([0, 1]),
                            cap_max=3, tie_prob=rng.choice([0.0, 0.3, 1.0]),
                            truncate=rng.random() < 0.5, seed=seed * 100_000 + k,
                            id=f"hr-{k}"))
    for k in range(n_ha):
        ha.append(sample_house_allocation(rng.randint(1, 10), rng.randint(1, 10),
                                          seed=seed * 100_000 + k,
                                          tie_prob=rng.choice([0.0, 0.3]), id=f"ha-{k}"))
    return {"stable_matching.jsonl": sm, "housing_market.jsonl": hm,
            "hospitals_residents.jsonl": hr, "house_allocation.jsonl": ha}


def random_elections(count: int, seed: int) -> list[dict]:
    """The fixed random preference set (the same for the same arguments): ballots are
    weak orders of a random prefix of a random ranking (ties merged with p = 0.3), so
    identical possible-top sets and identical completions occur, with counts 1..4."""
    rng = random.Random(seed + 7)
    out = []
    for k in range(count):
        m = rng.randint(3, 7)
        items = [f"c{j}" for j in range(m)]
        profile = {}
        for v in range(rng.randint(1, 40)):
            ranking = rng.sample(items, m)[:rng.randint(1, m)]
            ballot: list = []
            for x in ranking:
                if ballot and rng.random() < 0.3:
                    last = ballot.pop()
                    ballot.append((last if isinstance(last, list) else [last]) + [x])
                else:
                    ballot.append(x)
            profile[f"v{v}"] = {"order": ballot, "count": rng.randint(1, 4)}
        out.append({"id": f"el-{k}", "domain": "preference", "items": items,
                    "profile": profile,
                    "semantics": "truncated" if rng.random() < 0.8 else "unknown"})
    return out


def canonical(text: str) -> list[str]:
    """The labels of one run, timings dropped, each re-serialised as it was written."""
    out = []
    for line in text.splitlines():
        lab = json.loads(line)
        for e in lab.get("engines", []):
            e.pop("seconds", None)
        out.append(json.dumps(lab, separators=(",", ":")))
    return out


def run(exe: str, paths: list[str], jobs: int, extra: tuple[str, ...] = ()
        ) -> tuple[list[str], float, str]:
    t0 = time.perf_counter()
    env = dict(os.environ, PYTHONHASHSEED=HASH_SEED)
    r = subprocess.run([exe, "label", *paths, "--jobs", str(jobs), *extra],
                       capture_output=True, text=True, cwd=ROOT, env=env)
    return canonical(r.stdout), time.perf_counter() - t0, f"exit {r.returncode}"


def without_skipped(old: list[str], new: list[str]) -> tuple[list[str], list[str], int]:
    """BEFORE's labels without the engines AFTER skipped, AFTER's without its
    ``cross_check`` record (a label skipping nothing is left as it is), and how many
    labels skipped engines."""
    o2, n2, count = [], [], 0
    for a, b in zip(old, new):
        la, lb = json.loads(a), json.loads(b)
        rec = lb.pop("cross_check", None)
        if rec is not None and la.get("id") == lb.get("id"):
            count += 1
            la["engines"] = [e for e in la["engines"] if e["engine"] not in rec["skipped"]]
        o2.append(json.dumps(la, separators=(",", ":")))
        n2.append(json.dumps(lb, separators=(",", ":")))
    return o2 + old[len(new):], n2 + new[len(old):], count


def timing_only(a: str, b: str) -> bool:
    """The two labels differ only in an engine that ran out of time in one run (verdict
    ``unknown``): a timing effect of the machine's load, not of the code."""
    la, lb = json.loads(a), json.loads(b)
    ea, eb = la.pop("engines"), lb.pop("engines")
    if la != lb or len(ea) != len(eb):
        return False
    return all(x == y or "unknown" in (x.get("verdict"), y.get("verdict"))
               for x, y in zip(ea, eb))


def compare(name: str, before: str, after: str, paths: list[str], jobs: int,
            cross_check: str = "always", both: bool = False) -> bool:
    mode = ("--cross-check", cross_check)
    old, t_old, rc_old = run(before, paths, jobs, mode if both else ())
    new, t_new, rc_new = run(after, paths, jobs, mode)
    if cross_check != "always" and not both:
        old, new, skipping = without_skipped(old, new)
        print(f"{name:<9} {skipping} labels skipped a cross-check ({cross_check}); compared "
              f"without it")
    diff = [i for i, (a, b) in enumerate(zip(old, new)) if a != b]
    timing = [i for i in diff if timing_only(old[i], new[i])]
    real = [i for i in diff if i not in set(timing)]
    same = not real and len(old) == len(new) and rc_old == rc_new
    print(f"{name:<9} {len(old):>6} labels before ({rc_old}, {t_old:6.1f} s), {len(new):>6} "
          f"after ({rc_new}, {t_new:6.1f} s): {'IDENTICAL' if same else 'DIFFERENT'}"
          f"{f' ({len(timing)} differ only by a solver timeout in one run)' if timing else ''}",
          flush=True)
    for i in timing:
        lab, e_old, e_new = json.loads(old[i]), json.loads(old[i])["engines"], \
            json.loads(new[i])["engines"]
        which = [f"{x.get('name', x.get('engine'))} unknown "
                 f"{'before' if x.get('verdict') == 'unknown' else 'after'}"
                 for x, y in zip(e_old, e_new) if x != y]
        print(f"  timeout only: {lab['id']} {lab['question']} ({', '.join(which)})")
    for i in real[:5]:
        print(f"  label {i}: before {old[i][:300]}\n           after  {new[i][:300]}")
    if len(old) != len(new):
        print(f"  label counts differ: {len(old)} vs {len(new)}")
    return same


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="prefcert executable of the old code")
    ap.add_argument("--after", default=shutil.which("prefcert", path=os.path.dirname(
        sys.executable)) or "prefcert", help="prefcert executable of the new code")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--work", type=Path, default=Path("/tmp/prefcert-compare"))
    ap.add_argument("--preflib", nargs="*", default=None,
                    help="PrefLib files (default: the largest shared ones, if present)")
    ap.add_argument("--elections", type=int, default=100)
    ap.add_argument("--sets", default="bundled,random,elections,preflib")
    ap.add_argument("--cross-check", default="always", choices=("always", "budget", "never"),
                    help="AFTER's --cross-check (BEFORE predates the option, unless --both)")
    ap.add_argument("--both", action="store_true",
                    help="BEFORE has --cross-check too: give it the same mode and compare "
                         "the labels as they are")
    args = ap.parse_args()
    sets = args.sets.split(",")
    ok = True
    if "bundled" in sets:
        ok &= compare("bundled", args.before, args.after, ["instances"], args.jobs,
                      args.cross_check, args.both)
    if "random" in sets:
        folder = args.work / "random"
        folder.mkdir(parents=True, exist_ok=True)
        files = []
        for name, insts in random_instances(args.count, args.seed).items():
            path = folder / name
            path.write_text("".join(json.dumps(i) + "\n" for i in insts))
            files.append(str(path))
        ok &= compare("random", args.before, args.after, files, args.jobs,
                      args.cross_check, args.both)
    if "elections" in sets:
        folder = args.work / "elections"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "preference.jsonl"
        path.write_text("".join(json.dumps(i) + "\n" for i in
                                random_elections(args.elections, args.seed)))
        ok &= compare("elections", args.before, args.after, [str(path)], args.jobs,
                      args.cross_check, args.both)
    if "preflib" in sets:
        files = args.preflib if args.preflib is not None else \
            [str((PREFLIB / f).relative_to(ROOT)) for f in DEFAULT_PREFLIB
             if (PREFLIB / f).exists()]
        if files:
            ok &= compare("preflib", args.before, args.after, files, args.jobs,
                          args.cross_check, args.both)
    print("no label changes" if ok else "LABELS CHANGED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
