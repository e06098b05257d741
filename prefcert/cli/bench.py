"""The benchmark commands: ``generate``, ``score``, ``feedback``, ``refine``, ``report``,
``suites``. Registered lazily in :data:`prefcert.cli.COMMANDS`."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from ..bench.design import ENCODINGS
from ..formal.errors import InstanceError
from ..output import check_new_folder, check_output, names_within, refuse_inputs
from .common import (
    BENCH_SEED,
    DAY,
    JOBS,
    PER_CELL,
    ROUNDS,
    FiniteRange,
    OutputPath,
    bad_input,
    name_value_pairs,
    usage_error,
)
from .common import console as shared_console


def _sizes(value: str | None, suite) -> tuple | None:
    if value is None:
        return None
    out = []
    for tok in value.replace(",", " ").split():
        try:
            out.append(int(tok))
        except ValueError:
            usage_error(InstanceError("--sizes takes integers", value=tok))
    return tuple(out)


@click.command()
@click.argument("suite_name", metavar="SUITE")
@click.option("-o", "--out", required=True, type=OutputPath(folder=True),
              help="Output folder: new or empty (a folder of other files is refused); created, "
                   "and locked while the run writes it.")
@click.option("--seed", type=BENCH_SEED, help="Suite seed (default: the suite's).")
@click.option("--sizes", help="The sizes to build (comma-separated), e.g. 10,30: any size "
                               "in the suite's open range, not only its default levels "
                               "(docs/suites.md gives each range); rows without a size are "
                               "always kept.")
@click.option("--per-cell", type=PER_CELL, help="Instances per cell.")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "parquet"]), default="jsonl",
              show_default=True, help="Format of the prompts table.")
@click.option("--jobs", type=JOBS, default=min(2, os.cpu_count() or 1),
              show_default=True, help="Processes for the draws (output does not depend on it).")
@click.option("--encoding", type=click.Choice(list(ENCODINGS)),
              default="json", show_default=True,
              help="How prompts show preferences (suites that render profiles).")
@click.option("--templates", metavar="NAME|FILE",
              help="Prompt wording: a shipped template set (khanna-wang, the default, or "
                   "prefcert-0.2) or a TOML template file (docs/suites.md).")
@click.option("--reading", "readings", multiple=True, metavar="NAME=CHOICE",
              help="A named reading of the suite (repeatable; docs/suites.md lists them).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A design parameter of the suite (repeatable; docs/suites.md lists them "
                   "with their limits).")
@click.option("--overwrite", is_flag=True,
              help="Replace a benchmark already in OUT: the files its manifest lists go "
                   "(in either format); OUT holding any other file is refused.")
def generate(suite_name, out, seed, sizes, per_cell, fmt, jobs, encoding, templates, readings,
             params, overwrite):
    """Generate SUITE into OUT: instances.jsonl, labels.jsonl (every label certified),
    prompts.jsonl (or data/size_<level>.parquet, one split per size, data/test.parquet
    for the prompts without a size, and a datasets card README.md) and manifest.json.
    Same seed, same bytes."""
    from ..bench.generate import generate as run
    from ..bench.generate import print_summary
    from ..bench.suites import suite as get_suite
    try:
        s = get_suite(suite_name)
        check_output(out, folder=True)
        chosen = name_value_pairs(readings, "--reading", "NAME=CHOICE")
        given = name_value_pairs(params, "--param")
        manifest = run(s, out, seed=seed, sizes=_sizes(sizes, s), per_cell=per_cell, fmt=fmt,
                       progress=sys.stderr.isatty(), jobs=jobs, encoding=encoding,
                       overwrite=overwrite, readings=chosen, templates=templates,
                       params=given)
    except InstanceError as e:
        bad_input(e)
    except KeyboardInterrupt:       # the files are written only at the end: nothing partial
        click.echo(f"prefcert: interrupted: nothing written to {out}; rerun the same "
                   f"command (same seed, same bytes).", err=True)
        sys.exit(130)
    secs = manifest.pop("_seconds")
    print_summary(manifest, s)
    click.echo(f"{manifest['total']} prompts, {manifest['instances']} instances, "
               f"{manifest['labels']} labels ({manifest['labels_checked']} checked) in "
               f"{secs['total']:.1f} s (sampling {secs['sample']:.1f} s, certifying "
               f"{secs['certify']:.1f} s) -> {out}", err=True)


@click.command()
def suites():
    """List the benchmark suites, one per line, tab-separated: name, default sizes,
    composition total, design parameters with their defaults (``generate --param
    NAME=VALUE``; ``-`` for none), description. After a suite's line, one line in the
    same columns per design a parameter choice selects (the name column ``SUITE --param
    NAME=VALUE``; its default sizes and prompt count, counted from the design table
    without generating)."""
    from ..bench.suites import SUITES, suite
    for name in SUITES:
        s = suite(name)
        params = ",".join(f"{k}={p.default}" for k, p in s.parameters.items()) or "-"
        click.echo(f"{name}\tsizes {','.join(map(str, s.sizes))}\t{s.prompt_count()} "
                   f"prompts\tparams {params}\t{s.description}")
        for chosen, v in s.design_variants():
            arg = " ".join(f"--param {k}={x}" for k, x in chosen.items())
            click.echo(f"{name} {arg}\tsizes {','.join(map(str, v.sizes))}\t"
                       f"{v.prompt_count()} prompts\tparams "
                       f"{','.join(f'{k}={x}' for k, x in chosen.items())}\t{v.description}")


@click.command()
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path),
                metavar="PROMPTS ANSWERS... | LOG...")
@click.option("-o", "--out", type=OutputPath(),
              help="Write one scored record per answer to this JSONL file.")
@click.option("--against", type=click.Path(path_type=Path),
              help="A second answers file: exact McNemar test on the common prompts.")
@click.option("--model", "models", multiple=True, metavar="NAME",
              help="The model that wrote an ANSWERS file (a field of every scored record), "
                   "once per file in the files' order; several files without it are named "
                   "by their file stems. Inspect logs name their own; --model once per LOG "
                   "renames them (two runs of one model told apart).")
@click.option("--size-tests", type=click.Choice(["paper", "all"]), default="paper",
              show_default=True,
              help="Fisher's exact tests across sizes: the ones the suite's paper reports, "
                   "or every pair of sizes in every cell; Holm and Benjamini–Hochberg "
                   "adjusted p-values beside the raw ones.")
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as JSON lines.")
@click.option("--parse", "parse", type=click.Choice(["lenient", "strict"]), default="lenient",
              show_default=True,
              help="How answers are read: lenient (the documented reading policy: answer "
                   "tags, final lines, abstentions in words, ambiguous answers as their own "
                   "verdict) or strict (the papers' literal protocol only: the <answer> tag, "
                   "the 'Final ballot:' line, the bare JSON object, a number-only answer).")
def score(sources, out, against, models, size_tests, as_json, parse):
    """Score model answers: ANSWERS (JSONL of {"id", "answer"}) against the benchmark
    PROMPTS (prompts.jsonl, a Parquet split or the benchmark folder, with labels.jsonl and
    instances.jsonl), or every sample (and epoch) of one or more Inspect logs (.eval
    files or folders of them) of a prefcert task. Several ANSWERS files are several
    models, scored on the same prompts. Prints every metric with its 95 % Wilson
    interval per model, the Fisher exact tests across sizes that the suite's paper reports
    (with multiplicity adjustments), and with several models the exact McNemar test of
    every pair of them on their common prompts (Holm over the pairs)."""
    from ..bench import score as sc
    is_log = [_is_log(x) for x in sources]
    logs = bool(sources) and all(is_log)
    try:
        if any(is_log) and not logs:        # a log beside PROMPTS / ANSWERS files
            mine = [str(x) for x, y in zip(sources, is_log) if y]
            raise InstanceError(f"an Inspect log is scored alone, its prompts are in it: "
                                f"prefcert score {' '.join(mine)}", file=mine[0])
        if out is not None:
            check_output(out)
        if logs:
            if against:
                usage_error(InstanceError("--against is for answers files (give two logs to "
                                          "compare their models)"))
            from ..bench.inspect.logs import log_samples, score_samples, unfinished
            refuse_inputs([out], list(sources))
            samples = log_samples(sources, list(models) if models else None)
            for line in unfinished(samples):
                click.echo(f"prefcert: {line}", err=True)
            scores = score_samples(samples)
            other = None
        else:
            if len(sources) < 2:
                usage_error(InstanceError("give PROMPTS and ANSWERS..., or Inspect logs (.eval)",
                                          value=" ".join(map(str, sources))))
            prompts, files = sources[0], list(sources[1:])
            if against and len(files) > 1:
                usage_error(InstanceError("--against compares one ANSWERS file with "
                                          "another; several ANSWERS files are compared "
                                          "pairwise already"))
            bench = sc.Benchmark.read(prompts)
            refuse_inputs([out], [*bench.files, *files, against])
            names = _answer_models(files, models)
            scores = []
            for answers, (name, source) in zip(files, names):
                given = sc.read_answers(answers, known=bench.by_id)
                scores += [{**r, "model": name, "model_from": source}
                           for r in sc.score_answers(bench, given, parse)]
                if len(given) < len(bench.prompts):
                    click.echo(f"prefcert: {len(bench.prompts) - len(given)} of "
                               f"{len(bench.prompts)} prompts have no answer in {answers}: "
                               f"they are left out of every metric, and metrics over pairs "
                               f"or groups of prompts use complete ones only (write "
                               f"{{\"id\": ..., \"timeout\": true}} to count one as a "
                               f"timeout).", err=True)
            other = sc.score_answers(bench, sc.read_answers(against, known=bench.by_id),
                                     parse) if against else None
    except InstanceError as e:
        bad_input(e)
    if out:
        try:
            from ..bench.generate import write_jsonl
            write_jsonl(out, scores)
        except InstanceError as e:
            bad_input(e)
    rows = sc.metrics_by_model(scores)          # never pooled across models
    tests = sc.size_tests(scores, size_tests)
    mc = sc.compare(scores, other) if other is not None else None
    pairs = sc.compare_models(scores)
    if as_json:
        for r in rows:
            click.echo(json.dumps(r, sort_keys=True))
        for t in tests:
            click.echo(json.dumps({"test": "fisher_exact", **t}, sort_keys=True))
        if mc:
            click.echo(json.dumps({"test": "mcnemar_exact", **mc}, sort_keys=True))
        for t in pairs:
            click.echo(json.dumps({"test": "mcnemar_exact", **t}, sort_keys=True))
        return
    _print_metrics(rows, tests, mc, size_tests, sorted({s["suite"] for s in scores}), pairs)


def _answer_models(files, models) -> list[tuple[str, str]]:
    """The model of each ANSWERS file and where its name comes from (a scored record's
    ``model`` and ``model_from``): ``--model`` once per file (``"--model"``), else the
    ``model`` field of the file's own records (``"records"``,
    :func:`prefcert.bench.score.answers_model`), else the file's stem (``"file stem"``);
    two files of the same name are refused."""
    from ..bench.score import answers_model
    if models and len(models) != len(files):
        raise InstanceError(f"give --model once per ANSWERS file, in the same order "
                            f"({len(files)} file(s), {len(models)} --model)",
                            value=" ".join(models))
    named = [answers_model(f) for f in files]        # each file's model field checked
    if models:
        out = [(m, "--model") for m in models]
    else:
        out = [(m, "records") if m is not None else (Path(f).name.split(".")[0], "file stem")
               for f, m in zip(files, named)]
    names = [n for n, _ in out]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise InstanceError("two ANSWERS files would be the same model (name each with "
                            "--model)", value=dup)
    return out


def _is_log(path: Path) -> bool:
    from ..bench.inspect.logs import is_log
    return is_log(path)


def _print_metrics(rows, tests, mc, family="paper", suites=(), pairs=()) -> None:
    from rich.table import Table
    console = shared_console(width=200)
    t = Table(title="metrics (95 % intervals: Wilson for shares k/n, else the metric's own, "
                    "e.g. a cluster bootstrap)", title_justify="left")
    for c in ("metric", "group", "k/n", "value", "95 % CI"):
        t.add_column(c)
    for r in rows:
        g = ", ".join(f"{k}={v}" for k, v in r["group"].items() if v is not None)
        val = "—" if r.get("value") is None else f"{r['value']:.3f}"
        ci = f"[{r['low']:.3f}, {r['high']:.3f}]" if r.get("low") is not None else \
            r.get("note", "")
        kn = f"{r['k']}/{r['n']}" if r.get("k") is not None else f"n={r['n']}"
        t.add_row(r["metric"], g, kn, val, ci)
    console.print(t)
    _print_size_tests(console, tests, family, suites)
    if mc:
        console.print(f"McNemar (exact) on {mc['n']} paired prompts: only first correct "
                      f"{mc['only_first']}, only second {mc['only_second']}, "
                      f"p = {mc['pvalue']:.4g}")
    if pairs:
        from rich.table import Table
        t = Table(title="models compared: exact McNemar test on the prompts both answered "
                        "(paired; Holm's adjustment over the pairs)", title_justify="left")
        for c in ("first", "second", "paired prompts", "only first correct",
                  "only second correct", "p", "p Holm"):
            t.add_column(c)
        for x in pairs:
            t.add_row(x["first"], x["second"], str(x["n"]), str(x["only_first"]),
                      str(x["only_second"]), f"{x['pvalue']:.4g}", f"{x['pvalue_holm']:.4g}")
        console.print(t)


def _print_size_tests(console, tests, family, suites) -> None:
    from rich.table import Table

    from ..bench.suites import suite
    if family == "paper":
        for name in suites:
            spec = suite(name).size_tests
            console.print(f"{name}: Fisher's exact tests across sizes as the paper reports "
                          f"them — {spec.source}" if spec else
                          f"{name}: the paper reports no test across sizes (--size-tests "
                          f"all: every pair of sizes in every cell, with Holm and "
                          f"Benjamini–Hochberg adjustments)")
    if not tests:
        return
    sig = {k: sum(t[k] < 0.05 if k == "pvalue" else t[k] <= 0.05 for t in tests)
           for k in ("pvalue", "pvalue_holm", "pvalue_bh")}
    console.print(f"Fisher exact across sizes: {len(tests)} tests; p < 0.05 in "
                  f"{sig['pvalue']} (uncorrected), {sig['pvalue_holm']} after Holm "
                  f"(family-wise error ≤ 0.05), {sig['pvalue_bh']} after Benjamini–Hochberg "
                  f"(false discovery rate ≤ 0.05)")
    if family != "paper":
        return
    t = Table(title="Fisher's exact test across sizes (two-sided)", title_justify="left")
    for c in ("cell", "sizes", "correct", "p", "p Holm", "p BH"):
        t.add_column(c)
    for x in tests:
        t.add_row(", ".join(f"{k}={v}" for k, v in
                            (({"model": x["model"]} if "model" in x else {}) | x["cell"]).items()),
                  " vs ".join(map(str, x["size"])),
                  " vs ".join(f"{k}/{n}" for k, n in zip(x["k"], x["n"])),
                  f"{x['pvalue']:.3g}", f"{x['pvalue_holm']:.3g}", f"{x['pvalue_bh']:.3g}")
    console.print(t)


@click.command()
@click.argument("prompts", type=click.Path(path_type=Path))
@click.argument("answer", type=click.Path(path_type=Path))
@click.option("--id", "pid", required=True, help="The prompt id answered.")
def feedback(prompts, answer, pid):
    """Print the refinement feedback for ANSWER (a text file, '-' for stdin) to prompt ID
    of PROMPTS: the violations, never the solution. As in the paper's protocol, "{}" on
    a feasible instance is told that a solution exists; nothing ever says none exists,
    and a correct answer is told so (the loop stops there)."""
    from ..bench.refine import feedback as fb
    from ..bench.score import Benchmark
    try:
        bench = Benchmark.read(prompts)
        if pid not in bench.by_id:
            raise InstanceError("no prompt with this id", file=str(prompts), value=pid)
        if str(answer) == "-":
            text = sys.stdin.read()
        else:
            from ..formal.files import read_input
            text = read_input(answer)
    except (OSError, UnicodeDecodeError) as e:
        bad_input(InstanceError(f"cannot read the answer ({e.__class__.__name__})",
                                 file=str(answer)))
    except InstanceError as e:
        bad_input(e)
    p = bench.by_id[pid]
    from ..bench.report import NOT_SCORED
    try:
        said = fb(p, text, bench.entry(p))
    except InstanceError as e:
        bad_input(e)
    except NOT_SCORED as e:     # a hand-edited benchmark: one line, not a traceback
        bad_input(_not_generated(bench, prompts, pid, e))
    click.echo(said)


def _not_generated(bench, prompts, pid, e: Exception) -> InstanceError:
    """The one-line error of a prompt whose records (the prompt, its labels, its
    instances) are not of the shape prefcert generate writes, found while scoring it or
    giving feedback (``feedback``, ``refine``): the prompt's file and line, and its id."""
    file, line = bench.origin(pid)
    why = f"{e.__class__.__name__} {e}" if isinstance(e, KeyError) else e.__class__.__name__
    return InstanceError(f"the prompt's records are not those prefcert generate wrote (a "
                         f"field of its suite is missing or of another type: {why})",
                         file=file or str(prompts), line=line, value=pid)


@click.command()
@click.argument("prompts", type=click.Path(path_type=Path))
@click.option("--command", "command", required=True,
              help="Shell-style command: reads the conversation on stdin, prints an answer.")
@click.option("-o", "--out", required=True, type=OutputPath(),
              help="One JSON record per refined prompt.")
@click.option("--id", "ids", multiple=True, help="Prompt ids to refine (repeatable).")
@click.option("--cell", "cells", multiple=True,
              help="Keep prompts whose cell has FACTOR=VALUE (repeatable), e.g. task=generation.")
@click.option("--rounds", type=ROUNDS, default=3, show_default=True)
@click.option("--timeout", type=FiniteRange(0.01, DAY), help="Seconds per round.")
def refine(prompts, command, out, ids, cells, rounds, timeout):
    """Run COMMAND on prompts of PROMPTS for up to ROUNDS attempts with verifier feedback,
    stopping at the first correct answer; prints the share correct with its Wilson
    interval."""
    from ..bench.refine import refine as run
    from ..bench.score import Benchmark
    from ..bench.stats import wilson
    try:
        check_output(out)
        bench = Benchmark.read(prompts)
        refuse_inputs([out], bench.files)
        chosen = [bench.by_id[i] if i in bench.by_id else None for i in ids] if ids else \
            list(bench.prompts)
        if None in chosen:
            raise InstanceError("no prompt with this id", file=str(prompts),
                                value=ids[chosen.index(None)])
        factors = sorted({k for p in bench.prompts for k in p["cell"]})
        for c in cells:
            if "=" not in c:
                usage_error(InstanceError("--cell takes FACTOR=VALUE", value=c))
            k, v = c.split("=", 1)
            if k not in factors:
                raise InstanceError(f"--cell: no prompt's cell has the factor {k!r} "
                                    f"(factors: {', '.join(factors) or 'none'})",
                                    file=str(prompts), value=c)
            chosen = [p for p in chosen if str(p["cell"].get(k)).lower() == v.lower()]
        if not chosen:
            raise InstanceError("no prompt matches the --id / --cell filters", file=str(prompts))
        import shlex
        import shutil
        exe = shlex.split(command)[0] if command.strip() else ""
        if shutil.which(exe) is None:
            raise InstanceError("--command: no such program", value=exe)
    except InstanceError as e:
        bad_input(e)
    from ..bench.report import NOT_SCORED
    recs = []
    try:
        for p in chosen:
            try:
                recs.append(run(bench, p, command, rounds=rounds, timeout=timeout))
            except InstanceError:
                raise
            except NOT_SCORED as e:     # a hand-edited benchmark: one line, as feedback's
                raise _not_generated(bench, prompts, p["id"], e) from None
        from ..bench.generate import write_jsonl
        write_jsonl(out, recs)
    except InstanceError as e:
        bad_input(e)
    k = sum(r["final"] == "correct" for r in recs)
    ci = wilson(k, len(recs))
    ci_s = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    click.echo(f"{k}/{len(recs)} correct within {rounds} attempt(s){ci_s}")


@click.command()
@click.argument("scores", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--out", required=True, type=OutputPath(), help="The HTML page to write.")
@click.option("--json", "json_out", type=OutputPath(),
              help="Also write every result set (the papers' tables, all rows) as JSON.")
@click.option("--figures", type=OutputPath(folder=True),
              help="Also write each result set's figure as DIR/<key>.svg (real text). DIR "
                   "is new or empty; a folder holding other files is refused.")
@click.option("--overwrite", is_flag=True,
              help="Let --figures replace the figures an earlier run wrote in DIR (files "
                   "of the names this run writes; any other file there is refused).")
@click.option("--title", default="prefcert benchmark report", show_default=True)
def report(scores, out, json_out, figures, overwrite, title):
    """Report on SCORES of any number of models: files of scored records (from prefcert
    score -o; a record's model is its "model" field, set by score --model) or Inspect logs
    (.eval files or folders), scored here. For every suite present, prints each of its
    paper's tables and figures (result sets) with the models as columns, and writes one
    self-contained HTML page of them (figures and tables), the verdict shares, the suites'
    plots and every metric row."""
    from ..bench.report import (
        NOT_SCORED,
        numbered_scores,
        result_set_svg,
        scores_report,
        suite_results,
        unscored_record,
    )
    from ..bench.results import MODEL, UNNAMED_MODEL
    try:
        check_output(out)
        if json_out is not None:
            check_output(json_out)
        if figures is not None:
            check_output(figures, folder=True)
            check_new_folder(figures, overwrite=overwrite)   # the names checked below
        refuse_inputs([out, json_out], list(scores))
        rows: list = []
        svgs: dict = {}                     # DIR/<key>.svg of --figures: its text
        origins: list = []                  # (file, line) of each row read from a file
        seen: dict = {}
        logs = [x for x in scores if _is_log(x)]
        for x in scores:
            if _is_log(x):
                continue
            for n, r in numbered_scores(x):
                # a prompt is its id within its cell: the designs of one suite (K&W's
                # h5 and mitigation) number their prompts alike
                key = (str(r.get(MODEL) or UNNAMED_MODEL), r["suite"], str(r.get("id")),
                       r.get("epoch"), json.dumps(r.get("cell"), sort_keys=True))
                if key in seen:
                    raise InstanceError(
                        f"prompt {key[2]} of model {key[0]} is scored twice (also in "
                        f"{seen[key]}): give each model's scores once, or name the models "
                        f"apart (prefcert score --model)", file=str(x), line=n)
                seen[key] = f"{x}"
                rows.append(r)
                origins.append((str(x), n))
        if logs:
            from ..bench.inspect.logs import log_samples, score_samples
            rows += score_samples(log_samples(logs))
        if not rows:
            raise InstanceError("holds no scored records", file=str(scores[0]))
        try:
            sets = suite_results(rows)
            page = scores_report(rows, title, result_sets=sets)
        except NOT_SCORED:           # a hand-edited or foreign record: which one, not a
            bad = unscored_record(rows, origins + [None] * (len(rows) - len(origins)),
                                  title)                                   # traceback
            if bad is None:
                raise                # no record of a file alone raises it: prefcert's bug
            raise bad from None
        if figures is not None:
            refuse_inputs([out, json_out, *(Path(figures) / f"{rs.key}.svg" for rs in sets)],
                          list(scores))
            svgs = {f"{rs.key}.svg": svg for rs in sets
                    if (svg := result_set_svg(rs)) is not None}
    except InstanceError as e:
        bad_input(e)
    try:                # the files first: a reader of stdout that stops (| head) or a full
        from ..output import OutputFolder, write_text      # stdout does not lose them
        folder = OutputFolder(figures, "'prefcert report --figures'") if figures else None
        try:
            if folder is not None:          # under the lock: the files this run writes
                check_new_folder(figures, [*svgs, *names_within(figures, [out, json_out])],
                                 overwrite=overwrite)
            written = 0
            for rs in sets:
                svg = svgs.get(f"{rs.key}.svg") if folder is not None else None
                if svg is not None:
                    folder.write(f"{rs.key}.svg", svg)
                    written += 1
            if json_out is not None:
                write_text(json_out, json.dumps(
                    {"models": list(dict.fromkeys(str(r.get(MODEL) or UNNAMED_MODEL)
                                                  for r in rows)),
                     "result_sets": [rs.as_dict() for rs in sets]},
                    indent=1, ensure_ascii=False, default=str) + "\n")
            page.write(out)
            if folder is not None:
                folder.commit()
        finally:
            if folder is not None:
                folder.close()
    except InstanceError as e:
        bad_input(e)
    _print_result_sets(sets, rows)
    click.echo(f"report written to {out}" + (f", result sets to {json_out}" if json_out else "")
               + (f", {written} figures to {figures}" if figures else ""), err=True)


def _print_result_sets(sets, rows) -> None:
    """Every result set on stdout (models as columns, every row), or a line saying the
    suites present have none."""
    from ..bench.results import print_result_set
    console = shared_console(width=200)
    if not sets:
        console.print("no result sets: the suites present ("
                      + ", ".join(dict.fromkeys(r["suite"] for r in rows))
                      + ") define no paper tables yet; the page has their plots and metrics")
    for rs in sets:
        print_result_set(console, rs)
        console.print()
