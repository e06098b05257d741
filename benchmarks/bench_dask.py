"""Distributed labelling: ``prefcert label --dask local:2`` against ``--jobs 2`` on the same
generated instances, the whole process, in one run. Prints each run's seconds, the ratio,
the fixed cost of each (a one-instance run: interpreter, imports, pool or LocalCluster
start-up) and the overhead per label of Dask once that is taken out, then checks that both
runs give the same labels in the same order (timings aside).

    python benchmarks/bench_dask.py [--instances 10000] [--workers 2] [--seed 0]

The instances: half two-sided markets with ties (4..7 agents a side, the three stability
questions), half impartial-culture elections (4 candidates, 5..15 voters, one rule each,
winner and manipulation).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compare_labels import canonical  # the labels of one run, timings dropped


def generate(path: Path, n: int, seed: int) -> None:
    import random

    from prefcert.formal.rules import rule_names
    RULES = rule_names()
    from prefcert.generators.election import impartial_culture_election
    from prefcert.generators.stable_matching import sample_smti
    rng = random.Random(seed)
    with path.open("w") as f:
        for k in range(n):
            s = rng.randrange(2**31)
            if k % 2 == 0:
                inst = dict(sample_smti(rng.randint(4, 7), tie_prob=rng.choice([0.2, 0.5]),
                                        seed=s), id=f"sm-{k}")
            else:
                inst = impartial_culture_election(4, rng.randint(5, 15), seed=s,
                                                  rule=RULES[k // 2 % len(RULES)],
                                                  instance_id=f"el-{k}")
            f.write(json.dumps(inst) + "\n")


def timed(cmd: list[str], out: Path) -> tuple[float, str]:
    if out.exists():
        out.unlink()
    t0 = time.perf_counter()
    r = subprocess.run([*cmd, "-o", str(out)], capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr[-3000:]}")
    return dt, out.read_text()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--instances", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    exe = shutil.which("prefcert", path=os.path.dirname(sys.executable)) or "prefcert"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        src, one = tmp / "instances.jsonl", tmp / "one.jsonl"
        generate(src, args.instances, args.seed)
        one.write_text(src.read_text().splitlines()[0] + "\n")
        local = [exe, "label", "--jobs", str(args.workers)]
        dask = [exe, "label", "--dask", f"local:{args.workers}"]
        fixed_local, _ = timed([*local, str(one)], tmp / "a.jsonl")
        fixed_dask, _ = timed([*dask, str(one)], tmp / "b.jsonl")
        t_local, text_local = timed([*local, str(src)], tmp / "local.jsonl")
        print(f"--jobs {args.workers}: {t_local:8.2f} s", flush=True)
        t_dask, text_dask = timed([*dask, str(src)], tmp / "dask.jsonl")
        print(f"--dask local:{args.workers}: {t_dask:8.2f} s", flush=True)
    a, b = canonical(text_local), canonical(text_dask)
    n = len(a)
    per = ((t_dask - fixed_dask) - (t_local - fixed_local)) / max(1, n)
    print(f"{args.instances} instances, {n} labels on {os.cpu_count()} cores")
    print(f"fixed cost: --jobs {fixed_local:.2f} s, --dask {fixed_dask:.2f} s")
    print(f"--dask / --jobs = {t_dask / t_local:.3f}; Dask overhead per label "
          f"{per * 1000:.2f} ms (per label of --jobs: {(t_local - fixed_local) / n * 1000:.2f} ms)")
    print("same labels in the same order:", a == b)
    for x, y in zip(a, b):
        if x != y:
            x, y = json.loads(x), json.loads(y)
            print("  differs:", x["id"], x["question"],
                  {k: (x[k], y.get(k)) for k in x if x[k] != y.get(k) and k != "certificate"})


if __name__ == "__main__":
    main()
