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
from pathlib import Path

import click

# rank-maximal LP duals are integers of thousands of digits; let JSON read and write them
sys.set_int_max_str_digits(0)

from .formal import checker
from .formal.errors import CertificateError, Disagreement, InstanceError, Undecided
from .formal.instances import read_paths
from .registry import spec


def _bad_input(e: Exception) -> None:
    click.echo(f"prefcert: error: {e}", err=True)
    sys.exit(2)


# command name -> ("module:function", one-line help); imported only when the command runs
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "generate": ("prefcert.cli_bench:generate", "Generate a benchmark suite (prompts, certified labels)."),
    "suites": ("prefcert.cli_bench:suites", "List the benchmark suites."),
    "score": ("prefcert.cli_bench:score", "Score model answers to a generated benchmark."),
    "feedback": ("prefcert.cli_bench:feedback", "Verifier feedback on one answer (never the solution)."),
    "refine": ("prefcert.cli_bench:refine", "Up to three rounds of answer and feedback against a command."),
    "report": ("prefcert.cli_bench:report", "One self-contained HTML page of plots for scored answers."),
    "counterexample": ("prefcert.cli_counterexample:counterexample",
                       "A smallest instance on which a property fails, with a certificate."),
    "audit-library": ("prefcert.cli_audit_library:audit_library",
                      "Certify or refute a peer library's answers (matching, algmatch)."),
    "consistency": ("prefcert.cli_consistency:consistency", "Self-consistency audit of willingness-to-pay answers."),
    "risk": ("prefcert.cli_consistency:risk", "Rational value risk of sampled answers, prefcert as the verifier."),
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


def _override(instances, semantics):
    if semantics is None:
        return instances
    from .formal.instances import from_object
    out = []
    for inst in instances:
        data = dict(inst.data, semantics=semantics) if inst.domain == "preference" else inst.data
        out.append(from_object(data, inst.file, inst.line, inst.id))
    return out


def _json_option(option: str, value: str):
    """A question given on the command line: a name, or a JSON object."""
    if not value.lstrip().startswith("{"):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as e:
        raise InstanceError(f"{option} is not valid JSON ({e.msg})", value=value) from None


def _pending(jobs: list, out: Path) -> list:
    """The jobs not yet labelled in OUT, for a rerun. A label counts only for the same
    instance content (hash, which covers --semantics); labels of these jobs made from other
    content, and a line torn by a kill, are dropped by an atomic rewrite of OUT."""
    from .pipeline import label_key
    if not out.exists():
        return jobs
    try:
        lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    except (OSError, UnicodeDecodeError) as e:
        raise InstanceError(f"cannot read the output file to resume ({e.__class__.__name__})",
                            file=str(out)) from None
    current = {j.key: j.instance.sha256 for j in jobs}
    keep, done = [], set()
    for i, line in enumerate(lines, 1):
        try:
            lab = json.loads(line)
            key = label_key(lab["id"], lab["question"])
            sha = lab["instance_sha256"]
        except (json.JSONDecodeError, KeyError, TypeError):
            if i != len(lines):
                raise InstanceError("not a label line; refusing to overwrite", file=str(out),
                                    line=i, value=line[:40]) from None
            continue                                 # torn by a kill
        if key in current and current[key] != sha:
            continue                                 # stale: the instance changed
        done.add(key)
        keep.append(line if line.endswith("\n") else line + "\n")
    if keep != lines:
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text("".join(keep), encoding="utf-8")
        os.replace(tmp, out)
    return [j for j in jobs if j.key not in done]


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Append labels to this JSONL file; a rerun skips labels already there.")
@click.option("-q", "--question", "questions", multiple=True,
              help="Question to ask every instance (repeatable; default: the instance's own "
                   "list, else the domain's defaults). A JSON object is read as such.")
@click.option("--engines", help="Comma-separated engines to run (default: chosen by size), "
                                "e.g. oracle,cpsat,z3,brute_force.")
@click.option("--time-limit", type=click.FloatRange(min=0.01), default=10.0, show_default=True,
              help="Seconds per solver call; a timed-out engine answers 'unknown'.")
@click.option("--seed", type=int, default=0, show_default=True, help="Solver seed.")
@click.option("--semantics", type=click.Choice(["unknown", "truncated"]),
              help="Reading of incomplete lists in preference data (overrides the default).")
@click.option("--disagreements", type=click.Path(dir_okay=False, path_type=Path),
              help="Write disagreement reports here (default: OUT.disagreements.jsonl, or stderr).")
def label(paths, out, questions, engines, time_limit, seed, semantics, disagreements):
    """Label every instance in PATHS (files or folders of .json/.jsonl, PrefLib files).

    Prints one JSON label per (instance, question) on stdout, or appends them to OUT.
    """
    from .pipeline import label as run_label
    from .pipeline import plan
    try:
        qs = [_json_option("--question", q) for q in questions] or None
        jobs = plan(_override(read_paths(list(paths)), semantics), qs)
        names = [e.strip() for e in engines.split(",") if e.strip()] if engines else None
        if names is not None:
            known = {e for j in jobs for e in j.question.engines}
            unknown = [e for e in names if e not in known]
            if unknown or not names:
                raise InstanceError(f"unknown engine (known: {', '.join(sorted(known))})",
                                    value=",".join(unknown) or engines)
            for j in jobs:
                if not set(names) & set(j.question.engines):
                    raise InstanceError(f"none of the requested engines answers "
                                        f"{j.question.name!r} (its engines: "
                                        f"{', '.join(j.question.engines)})",
                                        file=j.instance.file, line=j.instance.line, value=engines)
        if out is not None and not out.parent.is_dir():
            raise InstanceError("the output folder does not exist", value=str(out.parent))
        todo = _pending(jobs, out) if out else jobs
    except InstanceError as e:
        _bad_input(e)
    if disagreements is None and out is not None:
        disagreements = out.with_name(out.name + ".disagreements.jsonl")
    sink = out.open("a", encoding="utf-8") if out else sys.stdout
    counts: Counter = Counter()
    failed = 0
    from rich.progress import Progress
    progress = Progress(console=None, transient=True, disable=not sys.stderr.isatty())
    with progress:
        task = progress.add_task("labelling", total=len(todo))
        for job in todo:
            progress.update(task, description=f"{job.instance.id} · {job.question.name}")
            try:
                lab = run_label(job, engines=names, time_limit=time_limit, seed=seed)
            except Disagreement as d:
                failed += 1
                _report(d.report, disagreements)
                counts[(job.question.name, "DISAGREEMENT")] += 1
            except Undecided as u:
                failed += 1
                click.echo(f"prefcert: {job.instance.id} {job.question.name}: no label: {u}",
                           err=True)
                counts[(job.question.name, "unknown")] += 1
            except InstanceError as e:
                _bad_input(e.located(job.instance.file, job.instance.line))
            else:
                sink.write(json.dumps(lab, separators=(",", ":")) + "\n")
                sink.flush()
                if out:
                    os.fsync(sink.fileno())
                counts[(job.question.name, lab["verdict"])] += 1
            progress.advance(task)
    if out:
        sink.close()
    _summary(counts, len(jobs) - len(todo))
    sys.exit(1 if failed else 0)


def _report(report: dict, path: Path | None) -> None:
    line = json.dumps(report, separators=(",", ":"), default=str)
    click.echo(f"prefcert: DISAGREEMENT on {report.get('id')} {report.get('question')}: "
               f"{report.get('reason')}", err=True)
    if path is None:
        click.echo(line, err=True)
    else:
        with path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
        click.echo(f"prefcert: report written to {path}", err=True)


def _summary(counts: Counter, skipped: int) -> None:
    from rich.console import Console
    from rich.table import Table
    table = Table(title="labels", title_justify="left")
    verdicts = sorted({v for _, v in counts})
    table.add_column("question", no_wrap=True)
    for v in verdicts:
        table.add_column(v, justify="right")
    for q in sorted({q for q, _ in counts}):
        table.add_row(q, *[str(counts.get((q, v), 0)) for v in verdicts])
    console = Console(stderr=True, width=None if sys.stderr.isatty() else 120)
    if counts:
        console.print(table)
    if skipped:
        console.print(f"{skipped} label(s) already in the output file were skipped.")


@main.command()
@click.argument("instance", type=click.Path(path_type=Path))
@click.option("-q", "--question", required=True, help="The question answered (e.g. super_stable).")
@click.argument("answer", type=click.Path(path_type=Path))
@click.option("--id", "iid", help="Instance id, when INSTANCE holds several.")
@click.option("--time-limit", type=click.FloatRange(min=0.01), default=10.0, show_default=True)
def audit(instance, question, answer, iid, time_limit):
    """Judge ANSWER (a JSON outcome, or text with an <answer>…</answer> block; {} means
    "none exists") to QUESTION on INSTANCE. Prints a JSON verdict; exit 0 correct, 1 not."""
    from .pipeline import audit as run_audit
    from .pipeline import plan
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
    click.echo(json.dumps(result, indent=2))
    sys.exit(0 if result["verdict"] == "correct" else 1)


@main.command()
@click.argument("instance", type=click.Path(path_type=Path))
@click.argument("candidates", type=click.Path(path_type=Path))
@click.option("--id", "iid", help="Instance id, when INSTANCE holds several.")
def classify(instance, candidates, iid):
    """Which notions each candidate outcome of INSTANCE satisfies, with the refuting
    certificate of each notion it fails. CANDIDATES: a JSON list of outcomes (dicts
    agent -> partner). Prints one JSON line per candidate."""
    from .classify import classify as run_classify
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


@main.command()
@click.argument("labels", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def check(labels):
    """Re-verify every certificate in LABELS with the checker alone (no solver, no oracle).

    Instances are re-read from each label's source (relative to the current folder, or to
    the labels file's folder) and must match the recorded hash. Exit 1 on the first failure.
    """
    from .formal.instances import read_file, readers
    cache: dict[str, dict] = {}
    models: dict[tuple, object] = {}   # the last instance's model (labels come grouped)
    n = 0
    for lineno, line in enumerate(labels.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            lab = json.loads(line)
            src = lab["source"]
            path = Path(src["file"])
            if not path.exists() and (labels.parent / path).exists():
                path = labels.parent / path
            if str(path) not in cache:
                if not path.is_file() or path.suffix not in readers():
                    raise InstanceError("the label's instance file is missing or not an instance file",
                                        file=str(labels), line=lineno, value=src["file"])
                cache[str(path)] = {(i.id, i.line): i for i in read_file(path)}
            inst = cache[str(path)].get((lab["id"], src.get("line")))
            if inst is None:
                raise InstanceError("instance not found in its source", file=str(labels),
                                    line=lineno, value=lab["id"])
            if lab.get("semantics") and inst.data.get("semantics") != lab["semantics"]:
                inst = _override([inst], lab["semantics"])[0]    # labelled with --semantics
            if inst.sha256 != lab.get("instance_sha256"):
                raise CertificateError(f"instance {lab['id']} changed since it was labelled")
            key = (inst.file, inst.line, inst.sha256)
            dspec = spec(inst.domain)
            if key not in models:
                models = {key: dspec.parse(inst.data)}
            model = models[key]
            qname, params = dspec.question(lab["question"])
            if not lab.get("checked"):
                raise CertificateError("label is not marked checked")
            checker.check_label(dspec, lab, model, qname, params)
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            _bad_input(InstanceError(f"not a label ({e.__class__.__name__}: {e})",
                                     file=str(labels), line=lineno))
        except InstanceError as e:
            _bad_input(e)
        except CertificateError as e:
            click.echo(f"prefcert: {labels}:{lineno}: certificate of {lab.get('id')} "
                       f"{lab.get('question')} REJECTED: {e}", err=True)
            sys.exit(1)
        n += 1
    if n == 0:
        _bad_input(InstanceError("holds no labels", file=str(labels)))
    click.echo(f"{n} label(s) checked: every certificate verified.")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the registry as JSON.")
def domains(as_json):
    """List every domain with its questions (verdicts), engines and certificate types."""
    from .registry import DOMAINS, domain
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
                                 "doc": c.doc} for t, c in d.spec.certificates.items()}})
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
    Console(width=None if sys.stdout.isatty() else 160).print(table)


@main.command()
@click.argument("domain_name", metavar="DOMAIN", required=False)
def schema(domain_name):
    """Print the JSON Schema of DOMAIN's instances (every domain's when omitted)."""
    from .registry import DOMAINS
    try:
        names = [domain_name] if domain_name else list(DOMAINS)
        out = {n: spec(n).schema for n in names}
    except InstanceError as e:
        _bad_input(e)
    click.echo(json.dumps(out[domain_name] if domain_name else out, indent=2))


if __name__ == "__main__":
    main()
