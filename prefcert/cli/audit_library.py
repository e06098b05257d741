"""``prefcert audit-library``: run a peer package on instances and certify or refute each
answer with prefcert's checker."""
from __future__ import annotations

import json
import random
import sys
from collections import Counter
from contextlib import nullcontext

import click

from ..formal.errors import InstanceError
from ..output import atomic, check_output, refuse_inputs
from .common import BENCH_SEED, DAY, RANDOM_INSTANCES, FiniteRange, OutputPath, bad_input


def _random_instances(domains: set[str], n: int, seed: int, ties: bool) -> list[dict]:
    """``n`` small random instances per domain, each drawn by the domain's peer adapter
    (``sample``) from its own seed."""
    from ..pipeline.registry import domain
    rng = random.Random(seed)
    out = []
    for d in sorted(domains):
        sample = domain(d).peers.sample
        for k in range(n):
            out.append(sample(rng, rng.randrange(2**31), k, ties))
    return out


@click.command("audit-library")
@click.argument("lib", metavar="LIB")
@click.argument("paths", nargs=-1)
@click.option("--random", "n_random", type=RANDOM_INSTANCES, default=0,
              help="Also audit N random small instances per domain the library covers.")
@click.option("--seed", type=BENCH_SEED, default=0, show_default=True, help="Seed of --random.")
@click.option("--timeout", type=FiniteRange(0.1, DAY), default=30.0, show_default=True,
              help="Seconds per peer call; a slower call is reported as a timeout.")
@click.option("-o", "--out", type=OutputPath(),
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
    from ..pipeline.peers import LIBRARIES, available, runs_for
    try:
        runs_for(lib, "stable_matching")            # unknown / pending library, named first
        if out is not None:
            check_output(out)
        read = read_paths(list(paths)) if paths else []
        refuse_inputs([out], {i.file for i in read})
        insts = [i.data for i in read]
        for inst in read:                           # a peer gets only what prefcert parses
            parse_for_audit(inst)
        if not paths and not n_random:
            raise InstanceError("give instance files or --random N")
        if not available(lib):
            raise InstanceError("the peer library is not installed (pip install "
                                "'prefcert[peers]')", value=lib)
    except InstanceError as e:
        bad_input(e)
    domains = {d for d, *_ in LIBRARIES[lib].values()}
    ties = lib == "algmatch"
    insts += _random_instances(domains, n_random, seed, ties)
    counts: Counter = Counter()
    try:
        with atomic(out) if out else nullcontext(sys.stdout) as sink:
            _audit_all(lib, insts, timeout, sink, counts)
    except InstanceError as e:                      # OUT could not be written: none of it
        bad_input(e)
    _print_summary(lib, counts)
    bad = sum(c for (_, v), c in counts.items() if v in ("incorrect", "crash", "timeout"))
    sys.exit(1 if bad else 0)


def parse_for_audit(inst) -> None:
    """Bad input, with the instance's file and line, unless prefcert parses it."""
    from ..pipeline.registry import spec
    try:
        spec(inst.domain).parse(inst.data)
    except InstanceError as e:
        raise e.located(inst.file, inst.line) from None


def _audit_all(lib: str, insts: list[dict], timeout: float, sink, counts: Counter) -> None:
    """One JSON record per (instance, run) of ``lib`` written to ``sink``, counted."""
    from ..pipeline.peers import audit_run, runs_for
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


def _print_summary(lib: str, counts: Counter) -> None:
    from rich.table import Table

    from .common import console
    verdicts = ["correct", "incorrect", "crash", "timeout", "unsupported",
                "failing on textbook input"]
    table = Table(title=f"audit of {lib}", title_justify="left")
    table.add_column("run")
    for v in verdicts:
        table.add_column(v, justify="right")
    for run in sorted({r for r, _ in counts}):
        table.add_row(run, *[str(counts.get((run, v), 0)) for v in verdicts])
    console(stderr=True, width=120).print(table)
