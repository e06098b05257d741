"""The ``prefcert`` command line: ``label``, ``audit``, ``classify``, ``check``, ``domains``,
``schema``; commands of other modules are registered in ``LAZY_COMMANDS`` and imported only
when run.

Exit status: 0 success; 1 a label could not be produced (engines disagree or time out), an
audited answer is wrong, or a certificate fails; 2 bad input (a one-line message naming the
file, line and value; no output written).
"""
from __future__ import annotations

import json
import os
import sys
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import click

# rank-maximal LP duals are integers of thousands of digits; let JSON read and write them
sys.set_int_max_str_digits(0)

from ..formal import checker
from ..formal.errors import CertificateError, Disagreement, InstanceError, Undecided
from ..formal.instances import read_paths
from ..pipeline.registry import spec


@contextmanager
def _bulk_build():
    """Reading and parsing with the cyclic garbage collector paused, then the objects built
    frozen (``gc.freeze``): the parse makes millions of objects and no garbage cycles, and
    each generation-2 pass would walk all of them (half of the parse time of a big market).
    Frozen, the model is never walked again, here or in the forked workers (whose pages
    then stay shared). Reference counting still frees everything as usual. On leaving,
    collection resumes (:func:`_unfreeze` releases the frozen objects at the end)."""
    import gc
    was = gc.isenabled()
    gc.disable()
    try:
        yield
        gc.freeze()
    finally:
        if was:
            gc.enable()


def _unfreeze() -> None:
    """The end of a command: what :func:`_bulk_build` froze is collectable again (matters
    only when commands run in one process, as in tests)."""
    import gc
    gc.unfreeze()


def _bad_input(e: Exception) -> None:
    click.echo(f"prefcert: error: {e}", err=True)
    sys.exit(2)


# command name -> ("module:function", one-line help); imported only when the command runs
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "generate": ("prefcert.cli.bench:generate", "Generate a benchmark suite (prompts, certified labels)."),
    "suites": ("prefcert.cli.bench:suites", "List the benchmark suites."),
    "score": ("prefcert.cli.bench:score", "Score model answers to a generated benchmark."),
    "feedback": ("prefcert.cli.bench:feedback", "Verifier feedback on one answer (never the solution)."),
    "refine": ("prefcert.cli.bench:refine", "Up to three rounds of answer and feedback against a command."),
    "report": ("prefcert.cli.bench:report", "One self-contained HTML page of plots for scored answers."),
    "counterexample": ("prefcert.cli.counterexample:counterexample",
                       "A smallest instance on which a property fails, with a certificate."),
    "audit-library": ("prefcert.cli.audit_library:audit_library",
                      "Certify or refute a peer library's answers (matching, algmatch, pref-voting, preflibtools)."),
    "consistency": ("prefcert.cli.consistency:consistency", "Self-consistency audit of willingness-to-pay answers."),
    "risk": ("prefcert.cli.consistency:risk", "Rational value risk of sampled answers, prefcert as the verifier."),
}


class _Group(click.Group):
    """A click group whose ``LAZY_COMMANDS`` are imported on first use (keeps --help fast)."""

    def list_commands(self, ctx):
        return sorted([*super().list_commands(ctx), *LAZY_COMMANDS])

    def get_command(self, ctx, name):
        if name in LAZY_COMMANDS:
            import importlib
            module, attr = LAZY_COMMANDS[name][0].split(":")
            return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, name)

    def format_commands(self, ctx, formatter):
        rows = [(n, self.commands[n].get_short_help_str(60)) for n in self.commands]
        rows += [(n, h) for n, (_, h) in LAZY_COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(sorted(rows))


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="prefcert")
def main() -> None:
    """Certified labels for preference-reasoning instances.

    Domains and their questions: 'prefcert domains'; instance formats: 'prefcert schema'.
    """


def _override(instances, semantics=None, conventions=None):
    """The instances read under overridden readings (``--semantics``, ``--convention``).
    Only a reading that differs from the instance's own is written into its data (and so
    into its hash): a label made under the instance's own reading is the same either way,
    and ``check`` re-applies exactly the recorded readings that differ."""
    if semantics is None and not conventions:
        return instances
    out = []
    for inst in instances:
        sem = semantics if inst.domain == "preference" else None
        out.append(_reread(inst, sem, conventions or {}))
    return out


def _reread(inst, semantics, conventions, model=None):
    """``inst`` with the readings among ``semantics`` / ``conventions`` that its domain
    knows and that differ from its own (unchanged when none does, or when it does not
    parse: the plan reports that with its location). ``model``: ``inst`` already parsed."""
    from ..formal.instances import with_readings
    from ..pipeline.registry import DOMAINS
    from ..pipeline.registry import spec as domain_spec
    if inst.domain not in DOMAINS:
        return inst
    dspec = domain_spec(inst.domain)
    if not semantics and not conventions:
        return inst
    try:
        model = dspec.parse(inst.data) if model is None else model
    except InstanceError:
        return inst
    own = getattr(model, "conventions", None) or {}
    conv = {k: v for k, v in conventions.items() if k in dspec.conventions and own.get(k) != v}
    sem = semantics if semantics and getattr(model, "semantics", semantics) != semantics \
        else None
    if sem is None and not conv:
        return inst
    return with_readings(inst, semantics=sem, conventions=conv)


def _conventions(pairs: tuple[str, ...], domains: set[str]) -> dict[str, str]:
    """``--convention NAME=CHOICE`` options, checked against the domains being labelled."""
    from ..pipeline.registry import DOMAINS
    from ..pipeline.registry import spec as domain_spec
    if not pairs:
        return {}
    tables = {d: domain_spec(d).conventions for d in domains if d in DOMAINS}
    out = {}
    for raw in pairs:
        name, sep, choice = raw.partition("=")
        known = {k: c for t in tables.values() for k, c in t.items()}
        if not sep or name not in known:
            raise InstanceError(f"--convention takes NAME=CHOICE with NAME among "
                                f"{', '.join(sorted(known)) or 'none for these domains'}",
                                value=raw)
        if choice not in known[name].choices:
            raise InstanceError(f"--convention {name} must be one of "
                                f"{', '.join(known[name].choices)}", value=choice)
        out[name] = choice
    return out


def _json_option(option: str, value: str):
    """A question given on the command line: a name, or a JSON object."""
    if not value.lstrip().startswith("{"):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as e:
        raise InstanceError(f"{option} is not valid JSON ({e.msg})", value=value) from None
    except RecursionError:
        raise InstanceError(f"{option} is nested too deeply", value=value[:40]) from None


class _Seconds(click.ParamType):
    """A positive, finite number of seconds (nan, inf, 0 and negatives are usage errors)."""

    name = "seconds"

    def convert(self, value, param, ctx):
        import math
        try:
            x = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(x) or x <= 0:
            self.fail(f"{value!r} is not a positive, finite number of seconds", param, ctx)
        return x


SEED_RANGE = click.IntRange(0, 2**31 - 1)   # CP-SAT's random_seed is an int32, z3's unsigned


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                   # not Linux
        return os.cpu_count() or 1


# ------------------------------------------------------------------------------ output file

class OutputFile:
    """The ``-o`` file of a label run, held under an exclusive lock for the whole run.

    A second run on the same file exits with status 2 instead of writing every label
    twice. The lock is an ``flock`` on the file itself; when the resume step rewrites the
    file (atomic replace), the new file is locked before it replaces the old one, and a
    run that locked a file since replaced retries on the current one, so two runs never
    both hold the path. Where ``fcntl`` is missing (Windows) no lock is taken.
    """

    def __init__(self, path: Path):
        self.path = path
        self.fd = self._open_locked(path)

    @staticmethod
    def _lock(fd: int, path: Path) -> None:
        try:
            import fcntl
        except ImportError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise InstanceError("another 'prefcert label' run is writing this file; wait "
                                "for it to finish, or write elsewhere", file=str(path)) from None

    @classmethod
    def _open_locked(cls, path: Path) -> int:
        while True:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o666)
            except OSError as e:
                raise InstanceError(f"cannot write the output file ({e.strerror})",
                                    file=str(path)) from None
            cls._lock(fd, path)
            try:
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                return fd
            os.close(fd)                      # replaced while we waited: lock the new one

    def read(self) -> str:
        with open(self.path, "rb") as f:
            return f.read().decode("utf-8")

    def replace(self, text: str) -> None:
        """Atomically replace the file's content, keeping the lock (see the class doc)."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o666)
            self._lock(fd, tmp)
            os.write(fd, text.encode("utf-8"))
            os.fsync(fd)
            os.replace(tmp, self.path)
        except OSError as e:
            raise InstanceError(f"cannot rewrite the output file to resume ({e.strerror})",
                                file=str(self.path)) from None
        os.close(self.fd)
        self.fd = fd

    def write_line(self, line: str) -> None:
        os.write(self.fd, line.encode("utf-8"))
        os.fsync(self.fd)

    def close(self) -> None:
        os.close(self.fd)


def _pending(jobs: list, out: OutputFile) -> list:
    """The jobs not yet labelled in OUT, for a rerun. A label counts only for the same
    instance content (hash, which covers --semantics and --convention); labels of these
    jobs made from other content are dropped by an atomic rewrite of OUT. Only a final
    line without its newline — torn by a kill mid-write — may be dropped: any other line
    that is not a label is an error naming it, and OUT is left untouched."""
    from ..formal.instances import label_key
    try:
        text = out.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InstanceError(f"cannot read the output file to resume ({e.__class__.__name__})",
                            file=str(out.path)) from None
    lines = text.splitlines(keepends=True)
    current = {j.key: j.instance.sha256 for j in jobs}
    keep, done = [], set()
    for i, line in enumerate(lines, 1):
        if not line.strip():
            keep.append(line)
            continue
        try:
            lab = json.loads(line)
            key = label_key(lab["id"], lab["question"])
            sha = lab["instance_sha256"]
        except (json.JSONDecodeError, KeyError, TypeError, RecursionError):
            if i == len(lines) and not line.endswith("\n"):
                continue                             # torn by a kill: relabelled below
            raise InstanceError("not a label line; the file is left untouched (remove the "
                                "line or write elsewhere)", file=str(out.path), line=i,
                                value=line[:40].rstrip("\n")) from None
        if not line.endswith("\n"):                  # a whole label whose newline was lost
            line += "\n"
        if key in current and current[key] != sha:
            continue                                 # stale: the instance changed
        done.add(key)
        keep.append(line)
    if keep != lines:
        out.replace("".join(keep))
    return [j for j in jobs if j.key not in done]


# ------------------------------------------------------------------------------ label

# A job's result, the same for --jobs 1 and the process pool: (kind, payload).
_RUN: dict = {}        # what the pool's workers inherit (fork): jobs and label options


def _run_one(job, names, time_limit, seed) -> tuple[str, object]:
    from ..pipeline.jobs import label as run_label
    try:
        return "label", run_label(job, engines=names, time_limit=time_limit, seed=seed)
    except Disagreement as d:
        return "disagreement", d.report
    except Undecided as u:
        return "undecided", str(u)
    except InstanceError as e:
        return "bad_input", str(e.located(job.instance.file, job.instance.line))


def _work(i: int) -> tuple[str, object]:
    return _run_one(_RUN["jobs"][i], _RUN["names"], _RUN["time_limit"], _RUN["seed"])


def _init_worker(cpsat_workers: int) -> None:
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)       # the parent handles Ctrl-C
    try:                                               # die with the parent (Linux)
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)     # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    from ..encodings import set_cpsat_workers
    set_cpsat_workers(cpsat_workers)


class _Results:
    """Each job's result, in job order: computed here (``jobs`` 1) or by a pool of ``jobs``
    forked workers, created at once (before any progress thread starts); the pool's
    ordered ``imap`` buffers results, so the output order never depends on ``jobs``.
    CP-SAT gets the cores a worker is allowed (cores // jobs, at least 1)."""

    def __init__(self, todo: list, names, time_limit, seed, jobs: int):
        import multiprocessing as mp

        from ..encodings import set_cpsat_workers
        self.todo, self.args, self.pool = todo, (names, time_limit, seed), None
        cores = _cores()
        if jobs <= 1 or len(todo) <= 1 or "fork" not in mp.get_all_start_methods():
            set_cpsat_workers(max(1, cores))
            return
        _RUN.update(jobs=todo, names=names, time_limit=time_limit, seed=seed)
        self.pool = mp.get_context("fork").Pool(min(jobs, len(todo)), _init_worker,
                                                (max(1, cores // jobs),))

    def __iter__(self):
        if self.pool is None:
            return (_run_one(job, *self.args) for job in self.todo)
        return self.pool.imap(_work, range(len(self.todo)), chunksize=1)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None
            _RUN.clear()


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Append labels to this JSONL file; a rerun skips labels already there.")
@click.option("-q", "--question", "questions", multiple=True,
              help="Question to ask every instance (repeatable; default: the instance's own "
                   "list, else the domain's defaults). A JSON object is read as such.")
@click.option("--engines", help="Comma-separated engines to run (default: chosen by size), "
                                "e.g. oracle,cpsat,z3,brute_force.")
@click.option("--time-limit", type=_Seconds(), default=10.0, show_default=True,
              help="Seconds per solver call; a timed-out engine answers 'unknown'.")
@click.option("--seed", type=SEED_RANGE, default=0, show_default=True, help="Solver seed.")
@click.option("--semantics", type=click.Choice(["unknown", "truncated"]),
              help="Reading of incomplete lists in preference data (overrides the default).")
@click.option("--convention", "conventions", multiple=True, metavar="NAME=CHOICE",
              help="A reading of a definition (repeatable; 'prefcert domains' lists them), "
                   "e.g. counts=identical; overrides the instances' own.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Parallel worker processes (default: the number of cores). The output "
                   "is the same, in the same order, for every value.")
@click.option("--disagreements", type=click.Path(dir_okay=False, path_type=Path),
              help="Write disagreement reports here (default: OUT.disagreements.jsonl, or stderr).")
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="Run the jobs on a Dask cluster: local:N (a LocalCluster of N workers), "
                   "a scheduler address (tcp://HOST:PORT) or a scheduler file. Only this "
                   "process writes; the output is the same as a local run's.")
@click.option("--verify-all", is_flag=True,
              help="With --dask: re-check every certificate here, not only a sample.")
def label(paths, out, questions, engines, time_limit, seed, semantics, conventions, jobs,
          disagreements, dask_address, verify_all):
    """Label every instance in PATHS (files or folders of .json/.jsonl, PrefLib files).

    Prints one JSON label per (instance, question) on stdout, or appends them to OUT.
    """
    from ..pipeline.jobs import plan
    try:
        qs = [_json_option("--question", q) for q in questions] or None
        own = [] if out is None else [out, disagreements or
                                      out.with_name(out.name + ".disagreements.jsonl")]
        with _bulk_build():
            instances = read_paths(list(paths), skip=own)  # -o may sit in a labelled folder
            chosen = _conventions(conventions, {i.domain for i in instances})
            work = plan(_override(instances, semantics, chosen), qs)
        names = [e.strip() for e in engines.split(",") if e.strip()] \
            if engines is not None else None
        if names is not None:
            known = {e for j in work for e in j.question.engines}
            unknown = [e for e in names if e not in known]
            if unknown or not names:
                raise InstanceError(f"unknown engine (known: {', '.join(sorted(known))})",
                                    value=",".join(unknown) or engines)
            for j in work:
                if not set(names) & set(j.question.engines):
                    raise InstanceError(f"none of the requested engines answers "
                                        f"{j.question.name!r} (its engines: "
                                        f"{', '.join(j.question.engines)})",
                                        file=j.instance.file, line=j.instance.line, value=engines)
        if out is not None:
            _writable(out)
        if disagreements is not None:
            _writable(disagreements)
        if dask_address is not None and jobs is not None:
            raise InstanceError("--jobs and --dask exclude each other (the cluster's "
                                "workers are the jobs)", value=f"--jobs {jobs}")
        if verify_all and dask_address is None:
            raise InstanceError("--verify-all re-checks labels made on a Dask cluster; "
                                "give --dask", value="--verify-all")
        cluster = None
        if dask_address is not None:        # connect before OUT is created or locked
            from ..pipeline.dask_runner import Cluster
            cluster = Cluster(dask_address)
        try:
            sink = OutputFile(out) if out is not None else None
        except InstanceError:
            if cluster:
                cluster.close()
            raise
    except InstanceError as e:
        _bad_input(e)
    try:
        todo = _pending(work, sink) if sink else work
    except InstanceError as e:
        sink.close()
        if cluster:
            cluster.close()
        _bad_input(e)
    if disagreements is None and out is not None:
        disagreements = out.with_name(out.name + ".disagreements.jsonl")
    counts: Counter = Counter()
    failed = written = 0
    from rich.progress import Progress
    if cluster is not None:
        from ..pipeline.dask_runner import DaskResults
        results = DaskResults(cluster, todo, names, time_limit, seed, verify_all=verify_all)
    else:
        results = _Results(todo, names, time_limit, seed, jobs or _cores())
    progress = Progress(console=None, transient=True, disable=not sys.stderr.isatty())
    try:
        with progress:
            task = progress.add_task("labelling", total=len(todo))
            for job, (kind, payload) in zip(todo, results):
                progress.update(task, description=f"{job.instance.id} · {job.question.name}")
                if kind == "label":
                    if sink:            # relative to OUT's folder: check finds it from there
                        payload["source"] = dict(payload["source"], file=_beside(
                            payload["source"]["file"], out))
                    line = json.dumps(payload, separators=(",", ":")) + "\n"
                    with _no_interrupt():    # a Ctrl-C lands after the line and its count
                        if sink:
                            sink.write_line(line)
                        else:
                            sys.stdout.write(line)
                            sys.stdout.flush()
                        written += 1
                    counts[(job.question.name, payload["verdict"])] += 1
                    if not payload["checked"]:
                        counts[(job.question.name, UNVERIFIED)] += 1
                elif kind == "disagreement":
                    failed += 1
                    _report(payload, disagreements)
                    counts[(job.question.name, "DISAGREEMENT")] += 1
                elif kind == "undecided":
                    failed += 1
                    click.echo(f"prefcert: {job.instance.id} {job.question.name}: no label: "
                               f"{payload}", err=True)
                    counts[(job.question.name, "unknown")] += 1
                else:
                    results.close()
                    _bad_input(payload)
                progress.advance(task)
    except KeyboardInterrupt:
        results.close()
        where = f"to {out}; rerun the same command to resume" if out else \
            "to stdout (without -o a rerun starts over)"
        click.echo(f"\nprefcert: interrupted: {written} label(s) written {where}.", err=True)
        sys.exit(130)
    finally:
        results.close()
        if sink:
            sink.close()
        _unfreeze()
    _summary(counts, len(work) - len(todo))
    if cluster is not None:
        click.echo(f"prefcert: {results.verified} certificate(s) re-checked here "
                   f"({'all' if verify_all else 'a sample'}), every label checked on the "
                   f"Dask workers", err=True)
    sys.exit(1 if failed else 0)


UNVERIFIED = "unverified"   # summary column: labels resting on engine agreement only


@contextmanager
def _no_interrupt():
    """Hold a Ctrl-C back until the block is done (the line written and counted), then
    raise it. A Python-level handler, since a thread signal mask does not cover the
    solver threads that may receive the signal."""
    import signal
    hit: list = []
    try:
        old = signal.signal(signal.SIGINT, lambda *_: hit.append(1))
    except ValueError:                         # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if hit:
            raise KeyboardInterrupt


def _beside(file: str, out: Path) -> str:
    """``file`` relative to the folder of the labels file ``out`` (POSIX separators)."""
    rel = os.path.relpath(os.path.abspath(file), os.path.abspath(out.parent or "."))
    return Path(rel).as_posix()


def _writable(path: Path) -> None:
    """Bad input unless ``path`` can be created or appended to (checked before any work,
    so a run that could not save its labels never starts)."""
    parent = path.parent if str(path.parent) else Path(".")
    if path.exists():
        if not path.is_file():
            raise InstanceError("the output is not a regular file", file=str(path))
        if not os.access(path, os.W_OK):
            raise InstanceError("the output file is not writable", file=str(path))
    elif not parent.is_dir():
        raise InstanceError("the output folder does not exist", value=str(parent))
    elif not os.access(parent, os.W_OK | os.X_OK):
        raise InstanceError("the output folder is not writable", value=str(parent))


def _report(report: dict, path: Path | None) -> None:
    line = json.dumps(report, separators=(",", ":"), default=str)
    click.echo(f"prefcert: DISAGREEMENT on {report.get('id')} {report.get('question')}: "
               f"{report.get('reason')}", err=True)
    if path is not None:
        try:
            with path.open("a", encoding="utf-8") as f:
                f.write(line + "\n")
            click.echo(f"prefcert: report written to {path}", err=True)
            return
        except OSError as e:
            click.echo(f"prefcert: cannot write the report to {path} ({e.strerror}); "
                       f"here it is:", err=True)
    click.echo(line, err=True)


def _summary(counts: Counter, skipped: int, title: str = "labels", note: bool = True) -> None:
    """One row per question: its labels, by verdict; ``(q, UNVERIFIED)`` counts those of its
    labels that rest on engine agreement only (a subset, shown in parentheses)."""
    from rich.console import Console
    from rich.table import Table
    table = Table(title=title, title_justify="left")
    table.add_column("question", no_wrap=True)
    table.add_column("labels", justify="right")
    table.add_column("verdicts")
    for q in sorted({q for q, _ in counts}):
        mine = sorted((v, n) for (qq, v), n in counts.items() if qq == q and v != UNVERIFIED)
        shown = ", ".join(f"{v} {n}" for v, n in mine)
        if counts.get((q, UNVERIFIED)):
            shown += f" ({counts[(q, UNVERIFIED)]} {UNVERIFIED})"
        table.add_row(q, str(sum(n for _, n in mine)), shown)
    console = Console(stderr=True, width=None if sys.stderr.isatty() else 120)
    if counts:
        console.print(table)
    unverified = sum(n for (_, v), n in counts.items() if v == UNVERIFIED)
    if unverified and note:
        console.print(f"{unverified} label(s) rest on engine agreement only (\"checked\": "
                      f"false): no certificate proves them; 'prefcert check' reports them.")
    if skipped:
        console.print(f"{skipped} label(s) already in the output file were skipped.")


@main.command()
@click.argument("instance", type=click.Path(path_type=Path))
@click.option("-q", "--question", required=True, help="The question answered (e.g. super_stable).")
@click.argument("answer", type=click.Path(path_type=Path))
@click.option("--id", "iid", help="Instance id, when INSTANCE holds several.")
@click.option("--time-limit", type=_Seconds(), default=10.0, show_default=True)
@click.option("--allow-unverified", is_flag=True,
              help="Exit 0 for a correct answer even when the truth rests on engine "
                   "agreement only (\"checked\": false).")
def audit(instance, question, answer, iid, time_limit, allow_unverified):
    """Judge ANSWER (a JSON outcome, or text with an <answer>…</answer> block; {} means
    "none exists") to QUESTION on INSTANCE. Prints a JSON verdict resting on a proof the
    checker verified; exit 0 correct, 1 not (or unverified, or engines disagree)."""
    from ..pipeline.jobs import audit as run_audit
    from ..pipeline.jobs import plan
    try:
        job = plan([_one_instance(instance, iid)], [_json_option("--question", question)])[0]
        try:
            text = answer.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise InstanceError(f"cannot read the answer ({e.__class__.__name__})",
                                file=str(answer)) from None
        result = run_audit(job, text, time_limit=time_limit)
    except InstanceError as e:
        _bad_input(e)
    except Disagreement as d:
        _report(d.report, None)
        sys.exit(1)
    click.echo(json.dumps(result, indent=2))
    if not result.get("checked"):
        click.echo("prefcert: the verdict rests on engine agreement only: no certificate "
                   "proves it", err=True)
    ok = result["verdict"] == "correct" and (result.get("checked") or allow_unverified)
    sys.exit(0 if ok else 1)


@main.command()
@click.argument("instance", type=click.Path(path_type=Path))
@click.argument("candidates", type=click.Path(path_type=Path))
@click.option("--id", "iid", help="Instance id, when INSTANCE holds several.")
def classify(instance, candidates, iid):
    """Which notions each candidate outcome of INSTANCE satisfies, with the refuting
    certificate of each notion it fails. CANDIDATES: a JSON list of outcomes (dicts
    agent -> partner). Prints one JSON line per candidate."""
    from ..pipeline.classify import classify as run_classify
    try:
        inst = _one_instance(instance, iid)
        model = spec(inst.domain).parse(inst.data)
        try:
            cands = json.loads(candidates.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise InstanceError(f"cannot read a JSON list of candidates ({e.__class__.__name__})",
                                file=str(candidates)) from None
        if not isinstance(cands, list):
            raise InstanceError("candidates must be a JSON list", file=str(candidates),
                                value=type(cands).__name__)
        results = run_classify(inst.domain, model, cands)
    except InstanceError as e:
        _bad_input(e)
    for r in results:
        click.echo(json.dumps(r, separators=(",", ":")))


def _one_instance(path: Path, iid: str | None):
    insts = read_paths([str(path)])
    if iid is not None:
        insts = [i for i in insts if i.id == iid]
        if not insts:
            raise InstanceError("no instance with this id", file=str(path), value=iid)
    elif len(insts) != 1:
        raise InstanceError(f"holds {len(insts)} instances; choose one with --id", file=str(path))
    return insts[0]


def _source(labels: Path, file: str, root: Path | None) -> Path:
    """Where a label's ``source.file`` is: relative to ``--root`` when given, else to the
    labels file's folder (labels written with -o store it so), else to the current folder
    (labels printed on stdout store it as typed)."""
    path = Path(file)
    if path.is_absolute():
        return path
    if root is not None:
        return root / path
    beside = labels.parent / path
    return beside if beside.exists() or not path.exists() else path


@main.command()
@click.argument("labels", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--allow-unverified", is_flag=True,
              help="Exit 0 even when some labels rest on engine agreement only "
                   "(\"checked\": false); they are still reported.")
@click.option("--root", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Folder that each label's source.file is relative to (for labels moved "
                   "away from their instances; default: the labels file's folder).")
def check(labels, allow_unverified, root):
    """Re-verify every certificate in LABELS with the checker alone (no solver, no oracle).

    Instances are re-read from each label's source (relative to the labels file's folder,
    or to --root) and must match the recorded hash. Exit 1 on the first failure, on a
    label listed twice, and, unless --allow-unverified, when a label rests on engine
    agreement only.
    """
    from ..formal.instances import label_key, read_file, readers
    cache: dict[str, dict] = {}
    models: dict[tuple, object] = {}   # the last instance's model (labels come grouped)
    seen: dict[tuple, int] = {}
    counts: Counter = Counter()
    n = 0
    try:
        text = labels.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        _bad_input(InstanceError(f"cannot read the labels ({e.__class__.__name__})",
                                 file=str(labels)))
    try:
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            lab: dict = {}
            try:
                lab = json.loads(line)
                src = lab["source"]
                key = label_key(lab["id"], lab["question"])
                if key in seen:
                    raise CertificateError(f"listed twice (also on line {seen[key]}): a label "
                                           f"is made once per instance and question")
                seen[key] = lineno
                path = _source(labels, src["file"], root)
                if str(path) not in cache:
                    if not path.is_file() or path.suffix not in readers():
                        raise InstanceError("the label's instance file is missing or not an "
                                            "instance file (labels moved? see --root)",
                                            file=str(labels), line=lineno, value=src["file"])
                    with _bulk_build():
                        cache[str(path)] = {(i.id, i.line): i for i in read_file(path)}
                inst = cache[str(path)].get((lab["id"], src.get("line")))
                if inst is None:
                    raise InstanceError("instance not found in its source", file=str(labels),
                                        line=lineno, value=lab["id"])
                dspec = spec(inst.domain)
                mkey = (str(path), inst.line, inst.sha256)
                if mkey not in models:
                    models = {}
                    with _bulk_build():
                        models[mkey] = dspec.parse(inst.data)
                model = models[mkey]
                sem, conv = lab.get("semantics"), lab.get("conventions") or {}
                if not isinstance(conv, dict):
                    raise CertificateError("the label's conventions are not an object")
                again = _reread(inst, sem, conv, model)     # labelled under other readings
                if again is not inst:
                    inst, model = again, dspec.parse(again.data)
                if inst.sha256 != lab.get("instance_sha256"):
                    raise CertificateError(f"instance {lab['id']} changed since it was labelled")
                qname, params = dspec.question(lab["question"])
                if lab.get("checked") is not True:
                    counts[(qname, UNVERIFIED)] += 1
                else:
                    checker.check_label(dspec, lab, model, qname, params)
                counts[(qname, str(lab.get("verdict")))] += 1
            except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
                _bad_input(InstanceError(f"not a label ({e.__class__.__name__}: {e})",
                                         file=str(labels), line=lineno))
            except InstanceError as e:
                _bad_input(e.located(str(labels), lineno))
            except CertificateError as e:
                click.echo(f"prefcert: {labels}:{lineno}: certificate of {lab.get('id')} "
                           f"{lab.get('question')} REJECTED: {e}", err=True)
                sys.exit(1)
            n += 1
    finally:
        _unfreeze()
    if n == 0:
        _bad_input(InstanceError("holds no labels", file=str(labels)))
    unverified = sum(v for (_, k), v in counts.items() if k == UNVERIFIED)
    if not unverified:
        click.echo(f"{n} label(s) checked: every certificate verified.")
        return
    _summary(counts, 0, title="checked labels", note=False)
    click.echo(f"{n} label(s) checked: {n - unverified} verified, {unverified} UNVERIFIED "
               f"(engine agreement only, no certificate).")
    sys.exit(0 if allow_unverified else 1)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the registry as JSON.")
def domains(as_json):
    """List every domain with its questions (verdicts), engines and certificate types, and
    the conventions (readings of a definition) each domain offers."""
    from ..pipeline.registry import DOMAINS, domain
    rows = []
    for name in DOMAINS:
        d = domain(name)
        rows.append({"domain": name, "questions": [
            {"name": q.name, "verdicts": list(q.verdicts), "doc": q.doc,
             "engines": list(d.questions[q.name].engines),
             "certificates": sorted(t for t, c in d.spec.certificates.items()
                                    if q.name in c.proves)}
            for q in d.spec.questions.values()],
            "certificates": {t: {"proves": {q: list(v) for q, v in c.proves.items()},
                                 "doc": c.doc} for t, c in d.spec.certificates.items()},
            "conventions": {c.name: {"default": c.default, "choices": dict(c.doc)}
                            for c in d.spec.conventions.values()}})
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    from rich.console import Console
    from rich.table import Table
    table = Table(title="domains and questions", title_justify="left")
    for col in ("domain", "question", "verdicts", "engines", "certificates"):
        table.add_column(col)
    for r in rows:
        for i, q in enumerate(r["questions"]):
            table.add_row(r["domain"] if i == 0 else "", q["name"], " / ".join(q["verdicts"]),
                          ", ".join(q["engines"]), ", ".join(q["certificates"]))
    conv = Table(title="conventions (--convention NAME=CHOICE; the default first)",
                 title_justify="left")
    for col in ("domain", "convention", "choice", "meaning"):
        conv.add_column(col)
    for r in rows:
        for name, c in r["conventions"].items():
            for i, (choice, doc) in enumerate(c["choices"].items()):
                conv.add_row(r["domain"], name if i == 0 else "", choice, doc)
    console = Console(width=None if sys.stdout.isatty() else 160)
    console.print(table)
    console.print(conv)


@main.command()
@click.argument("domain_name", metavar="[DOMAIN]", required=False)
def schema(domain_name):
    """Print the JSON Schema of DOMAIN's instances (every domain's when omitted)."""
    from ..pipeline.registry import DOMAINS
    try:
        names = [domain_name] if domain_name else list(DOMAINS)
        out = {n: spec(n).schema for n in names}
    except InstanceError as e:
        _bad_input(e)
    click.echo(json.dumps(out[domain_name] if domain_name else out, indent=2))


if __name__ == "__main__":
    main()
