"""``prefcert label``: certified labels for every (instance, question), resumable output."""
from __future__ import annotations

import json
import os
import sys
from collections import Counter
from contextlib import nullcontext
from pathlib import Path

import click

from ..api.arguments import check_engines, choice
from ..formal.errors import InstanceError
from ..formal.files import read_paths
from ..formal.instances import compact_encoder
from ..output import AppendFile, check_output, refuse_inputs
from ..pipeline.parallel import LocalResults, cores
from .common import (
    OutputPath,
    JOBS,
    SEED_RANGE,
    UNVERIFIED,
    Seconds,
    bad_input,
    bulk_build,
    finish,
    json_option,
    InterruptGuard,
    override_readings,
    parse_conventions,
    report_disagreement,
    summary,
    unfreeze,
    usage_error,
)

#: a label's JSON line (without its newline): ``json.dumps(label, separators=(",", ":"))``,
#: with the encoder made once instead of once per label (:func:`compact_encoder`)
_LINE = compact_encoder()

#: how every line prefcert label writes starts (a torn last line of a labels file does too)
LABEL_START = '{"id":'


def _pending(jobs: list, out: AppendFile) -> list:
    """The jobs not yet labelled in OUT, for a rerun. A label counts only for the same
    instance content (hash, which covers --semantics and --convention); labels of these
    jobs made from other content are dropped by an atomic rewrite of OUT. Only a final
    line torn by a kill mid-write (no newline, not JSON, begun as a label line) may be
    dropped: any other line that is not a label is an error naming it, and OUT is left
    untouched, so that a file that is not a labels file is never taken for one."""
    from ..formal.instances import DUPLICATE, label_key, parse_json
    text = out.read()
    lines = text.splitlines(keepends=True)
    current = {j.key: j.instance.sha256 for j in jobs}
    keep, done, stale = [], set(), 0
    for i, line in enumerate(lines, 1):
        if not line.strip():
            keep.append(line)
            continue
        try:                        # read as prefcert check reads it: a repeated key
            lab = parse_json(line, str(out.path), i)     # is refused, never last-one-wins
            key = label_key(lab["id"], lab["question"])
            sha = lab["instance_sha256"]
        except InstanceError as e:
            if e.message == DUPLICATE:
                raise
            if i == len(lines) and not line.endswith("\n") and line.startswith(LABEL_START):
                continue                             # torn by a kill: relabelled below
            raise _not_a_label(out, i, line) from None
        except (KeyError, TypeError):
            raise _not_a_label(out, i, line) from None
        if not line.endswith("\n"):                  # a whole label whose newline was lost
            line += "\n"
        if key in current and current[key] != sha:
            stale += 1                               # the instance changed: relabelled
            continue
        done.add(key)
        keep.append(line)
    if keep != lines:
        out.replace("".join(keep))
    if stale:
        click.echo(f"prefcert: {stale} label(s) in {out.path} were made from an instance "
                   f"that has since changed: dropped, and labelled again.", err=True)
    return [j for j in jobs if j.key not in done]


def _engine_names(engines: str | None) -> list[str] | None:
    """The names of ``--engines`` (None: not given; ``--engines ""``: none, refused later as
    no known engine); InstanceError for an empty name (two commas in a row, or one at the
    start or end)."""
    if engines is None:
        return None
    if not engines.strip():
        return []                       # refused as naming no known engine
    names = [e.strip() for e in engines.split(",")]
    if not all(names):
        raise InstanceError("--engines: an empty engine name (two commas in a row, or one "
                            "at the start or end)", value=engines)
    return names


def _not_a_label(out: AppendFile, line: int, text: str) -> InstanceError:
    return InstanceError("not a label line: the output is not a labels file, and is left "
                         "untouched (write elsewhere, or remove the line)", file=str(out.path),
                         line=line, value=text[:40].rstrip("\n"))


def beside(file: str, out: Path) -> str:
    """``file`` relative to the folder of the labels file ``out`` (POSIX separators)."""
    rel = os.path.relpath(os.path.abspath(file), os.path.abspath(out.parent or "."))
    return Path(rel).as_posix()


class LabelLine:
    """A label dict -> its output line: ``json.dumps(label, separators=(",", ":"))`` and a
    newline, with the label's ``source.file`` relative to the folder of the labels file
    ``out`` when there is one (``prefcert check`` finds the instance from there; each input
    file's relative path is computed once). Called where the label is made (a pool
    worker, so the parent receives one string), or here for a Dask result."""

    def __init__(self, out: Path | None):
        self.out = out
        self.relative: dict[str, str] = {}      # an input file -> its path relative to OUT

    def __call__(self, lab: dict) -> str:
        if self.out is not None:
            source = lab["source"]
            rel = self.relative.get(source["file"])
            if rel is None:
                rel = self.relative[source["file"]] = beside(source["file"], self.out)
            lab["source"] = dict(source, file=rel)
        return _LINE(lab) + "\n"


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("-o", "--out", type=OutputPath(),
              help="Append labels to this JSONL file; a rerun skips labels already there.")
@click.option("-q", "--question", "questions", multiple=True,
              help="Question to ask every instance (repeatable; default: the instance's own "
                   "list, else the domain's defaults). A JSON object is read as such.")
@click.option("--engines", help="Comma-separated engines to run (default: chosen by size), "
                                "e.g. oracle,cpsat,z3,brute_force.")
@click.option("--time-limit", type=Seconds(), default=10.0, show_default=True,
              help="Seconds per solver call; a timed-out engine answers 'unknown'.")
@click.option("--cross-check", "cross_check", default="budget", show_default=True,
              metavar="always|budget|never",
              help="Run the engines that only cross-check a verdict already proven: always, "
                   "never, or within the budget (small instances and a 1-in-64 sample of "
                   "instances by content hash). A label says which it skipped.")
@click.option("--seed", type=SEED_RANGE, default=0, show_default=True, help="Solver seed.")
@click.option("--semantics", type=click.Choice(["unknown", "truncated"]),
              help="Reading of incomplete lists in preference data (overrides the default).")
@click.option("--convention", "conventions", multiple=True, metavar="NAME=CHOICE",
              help="A reading of a definition (repeatable; 'prefcert domains' lists them), "
                   "e.g. counts=identical; overrides the instances' own.")
@click.option("-j", "--jobs", type=JOBS, default=None,
              help="Parallel worker processes (default: the number of cores). The output "
                   "is the same, in the same order, for every value.")
@click.option("--disagreements", type=OutputPath(),
              help="Write disagreement reports here (default: OUT.disagreements.jsonl, or stderr).")
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="Run the jobs on a Dask cluster: local:N (a LocalCluster of N workers), "
                   "a scheduler address (tcp://HOST:PORT) or a scheduler file. Only this "
                   "process writes; the output is the same as a local run's.")
@click.option("--verify-all", is_flag=True,
              help="With --dask: re-check every certificate here, not only a sample.")
def label(paths, out, questions, engines, time_limit, cross_check, seed, semantics,
          conventions, jobs, disagreements, dask_address, verify_all):
    """Label every instance in PATHS (files or folders of .json/.jsonl, PrefLib files).

    Prints one JSON label per (instance, question) on stdout, or appends them to OUT.
    Instance files are read whole with no size limit (a corpus is the user's own; a
    FIFO or a device is refused unread); 'prefcert check --max-file-size' bounds the
    files check re-reads.
    """
    from ..formal.budget import MODES
    from ..pipeline.jobs import plan
    try:
        try:                                           # before any file is read
            choice(cross_check, "--cross-check", MODES)
            names = _engine_names(engines)
            if dask_address is not None and jobs is not None:
                raise InstanceError("--jobs and --dask exclude each other (the cluster's "
                                    "workers are the jobs)", value=f"--jobs {jobs}")
            if verify_all and dask_address is None:
                raise InstanceError("--verify-all re-checks labels made on a Dask cluster; "
                                    "give --dask", value="--verify-all")
            if dask_address is not None:
                from ..pipeline.dask_runner import parse_address
                parse_address(dask_address)
        except InstanceError as e:
            usage_error(e)
        qs = [json_option("--question", q) for q in questions] or None
        if disagreements is None and out is not None:
            disagreements = out.with_name(out.name + ".disagreements.jsonl")
        own = [p for p in (out, disagreements) if p is not None]
        for path in own:                # before the inputs are read (a large corpus)
            check_output(path)
        with bulk_build():
            instances = read_paths(list(paths), skip=own)  # -o may sit in a labelled folder
            chosen = parse_conventions(conventions, {i.domain for i in instances})
            work = plan(override_readings(instances, semantics, chosen), qs)
        if names is not None:
            try:
                check_engines(names, [(j.question.name, j.question.engines, j.instance.file,
                                       j.instance.line) for j in work], given=engines)
            except InstanceError as e:
                if e.file is not None:      # a question of a file none of them answers
                    raise
                usage_error(f"--engines: {e}")      # a name no question has
        refuse_inputs(own, {i.file for i in instances})
        cluster = None
        if dask_address is not None:        # connect before OUT is created or locked
            from ..pipeline.dask_runner import Cluster
            cluster = Cluster(dask_address)
        try:
            sink = AppendFile(out, "'prefcert label'") if out is not None else None
        except InstanceError:
            if cluster:
                cluster.close()
            raise
    except InstanceError as e:
        bad_input(e)
    except KeyboardInterrupt:                  # while reading and planning: nothing written
        click.echo(f"\nprefcert: interrupted before the first label: "
                   f"{'nothing written' if out is None else f'{out} is unchanged'}.", err=True)
        sys.exit(130)
    try:
        todo = _pending(work, sink) if sink else work
    except InstanceError as e:
        sink.close()
        if cluster:
            cluster.close()
        bad_input(e)
    counts: Counter = Counter()
    failed = written = 0
    line_of = LabelLine(out if sink else None)
    # each job's question, read before a local pool forks: the loop below then reads no
    # job (a job read after the fork would have its page copied here, copy-on-write)
    asked = [j.question.name for j in todo]
    results: DaskResults | LocalResults
    if cluster is not None:
        from ..pipeline.dask_runner import DaskResults
        results = DaskResults(cluster, todo, names, time_limit, seed, verify_all=verify_all,
                              cross_check=cross_check)
    else:                               # each label's line is made where the label is
        results = LocalResults(todo, names, time_limit, seed, jobs or cores(),
                               cross_check=cross_check, line=line_of)
    progress = None                     # the progress bar: only on a terminal
    if sys.stderr.isatty():
        from rich.progress import Progress
        progress = Progress(console=None, transient=True)
    if sink:
        put = sink.write_line
    else:
        stdout = sys.stdout

        def put(line: str) -> None:
            stdout.write(line)
            stdout.flush()
    try:
        with InterruptGuard() as guard, progress or nullcontext():
            task = progress.add_task("labelling", total=len(todo)) if progress else None
            for i, (kind, payload) in enumerate(results):
                question = asked[i]
                if progress is not None:
                    progress.update(task, description=f"{todo[i].instance.id} · "
                                                      f"{question}")
                if kind == "line" or kind == "label":
                    if kind == "label":          # a Dask result: its line is made here
                        payload = (line_of(payload), payload["verdict"], payload["checked"])
                    line, verdict, checked = payload
                    guard.hold()        # a Ctrl-C lands after the line and its count
                    try:
                        put(line)
                        written += 1
                    finally:
                        guard.release()
                    counts[(question, verdict)] += 1
                    if not checked:
                        counts[(question, UNVERIFIED)] += 1
                elif kind == "disagreement":
                    failed += 1
                    report_disagreement(payload, disagreements)
                    counts[(question, "DISAGREEMENT")] += 1
                elif kind == "undecided":
                    failed += 1
                    # the question with its parameters (which Borda winner question)
                    job = todo[i]
                    spelt = job.asked if isinstance(job.asked, str) and not job.params \
                        else json.dumps(job.asked if isinstance(job.asked, dict) else
                                        {"type": question, **job.params}, ensure_ascii=False)
                    click.echo(f"prefcert: {todo[i].instance.id} {spelt}: no label: "
                               f"{payload}", err=True)
                    counts[(question, "unknown")] += 1
                else:
                    results.close()
                    bad_input(payload)
                if progress is not None:
                    progress.advance(task)
    except KeyboardInterrupt:
        results.close()
        where = f"to {out}; rerun the same command to resume" if out else \
            "to stdout (without -o a rerun starts over)"
        click.echo(f"\nprefcert: interrupted: {written} label(s) written {where}.", err=True)
        sys.exit(130)
    except (InstanceError, OSError) as e:        # OUT (or stdout) cannot take a line
        results.close()
        if isinstance(e, BrokenPipeError) and out is None:
            raise                       # a reader that stopped (| head): quiet, as below
        what = e if isinstance(e, InstanceError) else \
            f"cannot write to stdout ({e.strerror or e.__class__.__name__})"
        where = f"; {written} label(s) written before it, rerun the same command to " \
            f"resume" if out else ""
        click.echo(f"prefcert: error: {what}{where}", err=True)
        sys.exit(2)
    finally:
        results.close()
        if sink:
            sink.close()
        unfreeze()
    summary(counts, len(work) - len(todo))
    if cluster is not None:
        click.echo(f"prefcert: {results.verified} certificate(s) re-checked here "
                   f"({'all' if verify_all else 'a sample'}), every label checked on the "
                   f"Dask workers", err=True)
        sys.exit(1 if failed else 0)     # the Dask client's own exit handlers run
    finish(1 if failed else 0)

