"""Parallel labelling: ``prefcert label instances/ --jobs 2`` against ``--jobs 1``, the whole
process, in one run (runs alternate so both see the same machine load). Prints each
run's seconds, the medians and the ratio, and checks that both give the same labels in the
same order (timings aside).

    python benchmarks/bench_jobs.py [--repeat 3] [PATH ...]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from compare_labels import canonical  # the labels of one run, timings dropped

ROOT = Path(__file__).resolve().parents[1]




def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*", default=[str(ROOT / "instances")])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    exe = shutil.which("prefcert", path=os.path.dirname(sys.executable)) or "prefcert"
    times: dict[str, list[float]] = {"1": [], "2": []}
    outputs: dict[str, list] = {}
    for _ in range(args.repeat):
        for jobs in ("1", "2"):
            t0 = time.perf_counter()
            r = subprocess.run([exe, "label", *args.paths, "--jobs", jobs],
                               capture_output=True, text=True, check=True)
            times[jobs].append(time.perf_counter() - t0)
            outputs[jobs] = canonical(r.stdout)
            print(f"--jobs {jobs}: {times[jobs][-1]:6.2f} s", flush=True)
    one, two = statistics.median(times["1"]), statistics.median(times["2"])
    print(f"median --jobs 1 {one:.2f} s, --jobs 2 {two:.2f} s: --jobs 2 is {one / two:.2f}x "
          f"faster on {os.cpu_count()} cores ({len(outputs['1'])} labels)")
    same = outputs["1"] == outputs["2"]
    print("same labels in the same order:", same)
    for a, b in zip(outputs["1"], outputs["2"]):
        if a != b:      # under heavy load a solver may time out in one run only
            a, b = json.loads(a), json.loads(b)
            print("  differs:", a["id"], a["question"],
                  {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k) and k != "certificate"})


if __name__ == "__main__":
    main()
