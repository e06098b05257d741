"""``prefcert audit-library``: run a peer package on instances and certify or refute each
answer with prefcert's checker."""
from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

import click

from ..formal.errors import InstanceError
from .common import bad_input


def _random_instances(domains: set[str], n: int, seed: int, ties: bool) -> list[dict]:
    """``n`` small random instances per domain: two-sided markets of 2..6 agents a side and
    hospitals/residents markets of 2..8 residents and 1..4 hospitals; every other one has
    complete lists (equal sides, capacities 1..3), the rest incomplete lists (one-sided
    entries included) and capacities 0..3; ties when ``ties``. Elections: see
    :func:`random_election`, every other one with full strict rankings."""
    from ..generators.hospitals_residents import sample_hr
    from ..generators.stable_matching import sample_smti
    rng = random.Random(seed)
    out = []
    for d in sorted(domains):
        for k in range(n):
            s = rng.randrange(2**31)
            if d == "election":
                out.append(random_election(random.Random(s), textbook=k % 2 == 0,
                                           id=f"random-el-{k}"))
                continue
            p = rng.choice([0.2, 0.4, 0.7]) if ties else 0.0
            textbook = k % 2 == 0      # half complete lists, equal sides, capacities >= 1
            if d == "stable_matching":
                a = rng.randint(2, 6)
                out.append(sample_smti(a, a if textbook else rng.randint(2, 6), tie_prob=p,
                                       truncate=not textbook, seed=s, id=f"random-sm-{k}"))
            else:
                out.append(sample_hr(rng.randint(2, 8), rng.randint(1, 4),
                                     cap_min=1 if textbook else 0, cap_max=3, tie_prob=p,
                                     truncate=not textbook, seed=s, id=f"random-hr-{k}"))
    return out


def random_election(rng: random.Random, *, textbook: bool, id: str) -> dict:
    """A small random election: 2..6 candidates, 1..8 distinct ballots of weight 1..3, a
    random τ and approval convention k; ``textbook``: full strict rankings, else each
    ballot truncated, tied or both at random (PrefLib's soi / toc / toi shapes)."""
    m = rng.randint(2, 6)
    cands = [f"c{i}" for i in range(1, m + 1)]
    shape = rng.choice(["soi", "toc", "toi"])
    ballots = []
    for _ in range(rng.randint(1, 8)):
        order = rng.sample(cands, m)
        if not textbook and shape in ("soi", "toi"):
            order = order[:rng.randint(1, m)]
        groups: list = []
        for x in order:
            if groups and not textbook and shape in ("toc", "toi") and rng.random() < 0.3:
                groups[-1] = [*groups[-1], x] if isinstance(groups[-1], list) else [groups[-1], x]
            else:
                groups.append(x)
        ballots.append({"ranking": groups, "count": rng.randint(1, 3)})
    return {"id": id, "domain": "election", "candidates": cands,
            "tie_break": rng.sample(cands, m), "approval_top": rng.randint(1, m),
            "ballots": ballots}


@click.command("audit-library")
@click.argument("lib", metavar="LIB")
@click.argument("paths", nargs=-1)
@click.option("--random", "n_random", type=click.IntRange(min=0), default=0,
              help="Also audit N random small instances per domain the library covers.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of --random.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=30.0, show_default=True,
              help="Seconds per peer call; a slower call is reported as a timeout.")
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write one JSON record per (instance, run) here (default: stdout).")
def audit_library(lib, paths, n_random, seed, timeout, out):
    """Run the peer library LIB (matching, algmatch, pref-voting, preflibtools) on the
    instances in PATHS and judge every answer: correct, incorrect (with a checker-accepted
    refutation: blocking pairs, an invalid matching, a certified stable matching when the
    peer says none exists, a better certified optimum, or the wrong winner beside the
    certified score table), crash, timeout or unsupported. Prints one JSON record per
    (instance, run) and a summary table on stderr. Exit 0 when every answer is correct or
    unsupported, 1 otherwise, 2 on bad input (or a library that is not installed)."""
    from ..formal.files import read_paths
    from ..pipeline.peers import LIBRARIES, audit_run, available, runs_for
    try:
        runs_for(lib, "stable_matching")            # unknown / pending library, named first
        insts = [i.data for i in read_paths(list(paths))] if paths else []
        if not paths and not n_random:
            raise InstanceError("give instance files or --random N")
        if not available(lib):
            raise InstanceError("the peer library is not installed (pip install "
                                "'prefcert[peers]')", value=lib)
        if out is not None and not out.parent.is_dir():
            raise InstanceError("the output folder does not exist", value=str(out.parent))
    except InstanceError as e:
        bad_input(e)
    domains = {d for d, *_ in LIBRARIES[lib].values()}
    ties = lib == "algmatch"
    insts += _random_instances(domains, n_random, seed, ties)
    sink = out.open("w", encoding="utf-8") if out else sys.stdout
    counts: Counter = Counter()
    from rich.progress import Progress
    with Progress(transient=True, disable=not sys.stderr.isatty()) as progress:
        jobs = [(inst, run) for inst in insts for run in runs_for(lib, inst["domain"])]
        task = progress.add_task("auditing", total=len(jobs))
        for inst, run in jobs:
            rec = audit_run(run, inst, timeout=timeout)
            if rec.get("id", "").startswith("random-"):
                rec["random"] = True
            sink.write(json.dumps(rec, separators=(",", ":"), default=str) + "\n")
            counts[(run, rec["verdict"])] += 1
            if rec.get("textbook_input") and rec["verdict"] in ("incorrect", "crash"):
                counts[(run, "failing on textbook input")] += 1
            progress.advance(task)
    if out:
        sink.close()
    from rich.console import Console
    from rich.table import Table
    verdicts = ["correct", "incorrect", "crash", "timeout", "unsupported",
                "failing on textbook input"]
    table = Table(title=f"audit of {lib}", title_justify="left")
    table.add_column("run")
    for v in verdicts:
        table.add_column(v, justify="right")
    for run in sorted({r for r, _ in counts}):
        table.add_row(run, *[str(counts.get((run, v), 0)) for v in verdicts])
    Console(stderr=True, width=None if sys.stderr.isatty() else 120).print(table)
    bad = sum(c for (_, v), c in counts.items() if v in ("incorrect", "crash", "timeout"))
    sys.exit(1 if bad else 0)
