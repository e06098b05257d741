"""The ``consistency`` and ``risk`` commands. Registered lazily in
:data:`prefcert.cli.COMMANDS`."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..formal.errors import InstanceError
from ..output import (
    OutputFolder,
    check_new_folder,
    check_output,
    names_within,
    refuse_inputs,
    write_jsonl,
    write_text,
)
from .common import (
    BENCH_SEED,
    CONSISTENCY_RESAMPLES,
    RISK_RESAMPLES,
    FiniteRange,
    OutputPath,
    bad_input,
    usage_error,
)


def _console():
    from .common import console
    return console(width=200)


def _dumps(row) -> str:
    return json.dumps(row, separators=(",", ":"))


#: the files ``consistency --labels DIR`` writes into DIR
LABEL_FILES = ("instances.jsonl", "labels.jsonl")


def _check_out(outputs, inputs, folder=None, overwrite: bool = False) -> None:
    """Every output file (and the output ``folder``, whose files are among ``outputs``)
    can be written and none is an input (before any work); the ``folder`` is new or
    empty, or with ``overwrite`` holds only the files this run writes
    (:func:`prefcert.output.check_new_folder`)."""
    for p in outputs:
        if p is not None and (folder is None or Path(p).parent != folder):
            check_output(p)
    if folder is not None:
        check_output(folder, folder=True)
    refuse_inputs(outputs, inputs)
    if folder is not None:
        check_new_folder(folder, [*LABEL_FILES, *names_within(folder, outputs)],
                         overwrite=overwrite)


def _is_log(path) -> bool:
    from ..bench.inspect.logs import is_log
    return is_log(path)


def _file_models(files, models, what: str) -> list[str | None]:
    """The ``--model`` of each input file, in order: none at all, or one per file."""
    if models and len(models) != len(files):
        raise InstanceError(f"give --model once per {what} file, in the same order "
                            f"({len(files)} file(s), {len(models)} --model)",
                            value=" ".join(models))
    seen = set()
    for f in files:
        key = str(Path(f).resolve())
        if key in seen:
            raise InstanceError(f"the same {what} file is given twice", file=str(f))
        seen.add(key)
    return list(models) if models else [None] * len(files)


@click.command()
@click.argument("responses", nargs=-1, required=True, type=click.Path(path_type=Path),
                metavar="RESPONSES...")
@click.option("--design", required=True, type=click.Path(path_type=Path),
              help="The design JSON (cells, endpoint pairs, stress paths), or a folder of "
                   "'prefcert generate self-consistency' (its design.json; RESPONSES may "
                   "then be ANSWERS files: {id, answer[, epoch, model]} per completion).")
@click.option("--model", "models", multiple=True, metavar="NAME",
              help="The model of the rows of a RESPONSES file that name none; give it once "
                   "per file, in the files' order (a row naming another model is an error).")
@click.option("--fit", type=click.Choice(["ols", "completions", "wls"]), default="ols",
              show_default=True, help="Least squares on cell means, on every completion, "
                                      "or weighted by n/s² (with the χ² test).")
@click.option("--rmse-divisor", type=click.Choice(["n", "dof"]), default="n", show_default=True)
@click.option("--price-scale", type=click.Choice(["queries", "pairs"]), default="queries",
              show_default=True, help="Endpoints of every offer-pair query, or of each "
                                      "endpoint pair once per query it generates.")
@click.option("--normalisation", type=click.Choice(["min_norm", "first_zero"]),
              default="min_norm", show_default=True,
              help="Level of items in a component without an item query.")
@click.option("--resamples", type=CONSISTENCY_RESAMPLES,
              help="Bootstrap resamples (default: max(10000, 10·⌈groups/α⌉)).")
@click.option("--alpha", type=FiniteRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True,
              help="Family-wise level (Bonferroni over the groups, Holm over each model's "
                   "P1 and P2 comparisons).")
@click.option("--residuals", type=click.Choice(["modified", "centred"]), default="modified",
              show_default=True,
              help="Bootstrap residuals: centred completions scaled by √(n/(n−1)) "
                   "(modified), or as they are (centred; too narrow, rejects too often).")
@click.option("--interval", type=click.Choice(["t", "percentile"]), default="t",
              show_default=True,
              help="P1 / P2 intervals: Welch–Satterthwaite t, or bootstrap percentile.")
@click.option("--values", "values", type=click.Choice(["finite", "number_only"]),
              default="finite", show_default=True, help="Which parsed answers enter.")
@click.option("--threshold", type=FiniteRange(min=0), default=0.25, show_default=True,
              help="Magnitude bound as a share of the endpoint mean price.")
@click.option("--unit", type=click.Choice(["cell", "count", "completion"]), default="cell",
              show_default=True, help="What the L1 / L2 repair adjusts.")
@click.option("--judgments", type=click.Choice(["majority", "choices"]), default="majority",
              show_default=True, help="Ordinal judgments: majority per pair, or every choice.")
@click.option("--seed", type=BENCH_SEED, default=0, show_default=True, help="Bootstrap seed.")
@click.option("--no-certify", is_flag=True, help="Skip the certified repairs and ordinal labels.")
@click.option("-o", "--out", type=OutputPath(), help="Write the whole audit as JSON.")
@click.option("--labels", "labels_dir", type=OutputPath(folder=True),
              help="Write instances.jsonl and labels.jsonl here (for prefcert check): a new "
                   "or empty folder (a folder holding other files is refused).")
@click.option("--overwrite", is_flag=True,
              help="Let --labels replace the instances.jsonl and labels.jsonl an earlier "
                   "run wrote in DIR (any other file there is refused).")
@click.option("--report", type=OutputPath(), help="Write an HTML report of plots and tables.")
@click.option("--json", "as_json", is_flag=True, help="Print the audit as JSON.")
@click.option("--parsed", type=OutputPath(),
              help="Write every response as read (JSONL: line, model, cell_id, value, "
                   "number_only, reading {kind, rule}).")
def consistency(responses, design, models, fit, rmse_divisor, price_scale, normalisation, resamples,
                alpha, residuals, interval, values, threshold, unit, judgments, seed, no_certify,
                out, labels_dir, report, as_json, parsed=None, overwrite=False):
    """Audit the self-consistency of the willingness-to-pay answers in RESPONSES (one or
    more CSV or JSONL files, one row per completion: model, cell_id, parsed_value or
    raw_text; --model names the model of a file whose rows carry none) against the
    DESIGN: least-squares utility fit per (model, domain, utterance) with RMSE in $ and %,
    bootstrap p-values with Bonferroni, P1/P2 residuals, supported reversals, the k-step
    stress test, and the certified minimum L1 / L2 repairs and feedback arc sets; then
    Ford et al.'s tables with the models as columns."""
    from ..bench.self_consistency import audit as cs
    try:
        opts = cs.AuditOptions(fit=fit, rmse_divisor=rmse_divisor, price_scale=price_scale,
                               normalisation=normalisation, resamples=resamples, alpha=alpha,
                               residuals=residuals, interval=interval, values=values,
                               threshold=threshold, unit=unit, judgments=judgments, seed=seed,
                               certify=not no_certify)
        labels_files = [labels_dir / n for n in LABEL_FILES] if labels_dir is not None else []
        _check_out([out, report, parsed, *labels_files], [*responses, design], labels_dir,
                   overwrite)
        names = _file_models(responses, models, "RESPONSES")
        from ..bench.self_consistency import elicitation as el
        if el.is_generated(design):            # a generated elicitation: its design and prompts
            des, prompt_cells = el.read_generated(design)
        else:
            des, prompt_cells = cs.read_design(design), None
        rows = []
        for path, name in zip(responses, names):
            if prompt_cells is not None and _is_log(path):
                if name is not None:
                    raise InstanceError("--model is for answers files (a log names its model)",
                                        file=str(path))
                mine = el.responses_from_logs([path], prompt_cells)
            elif prompt_cells is not None and el.looks_like_answers(path):
                mine = el.responses_from_answers(path, prompt_cells, model=name)
            else:
                mine = cs.read_responses(path, model=name)
            if not mine:
                raise InstanceError("holds no responses", file=str(path))
            rows += mine
        if labels_dir is not None and no_certify:
            usage_error(InstanceError("--labels needs the certified labels (drop --no-certify)"))
        audit = cs.consistency_audit(rows, des, opts,
                                     file=str(responses[0]) if len(responses) == 1 else None,
                                     progress=sys.stderr.isatty())
    except InstanceError as e:
        bad_input(e)
    instances, labels = audit.pop("instances"), audit.pop("labels")
    from ..bench.self_consistency.results import audit_results
    result_sets = audit_results(audit)
    audit["results"] = [rs.as_dict() for rs in result_sets]
    try:
        if parsed:                               # the per-row reading, beside the audit
            write_jsonl(parsed, ({k: r[k] for k in ("line", "model", "cell_id", "value",
                                                    "number_only", "reading")}
                                 for r in rows), _dumps)
        if labels_dir is not None:
            with OutputFolder(labels_dir, "'prefcert consistency --labels'") as folder:
                folder.write("instances.jsonl", "".join(_dumps(r) + "\n" for r in instances))
                folder.write("labels.jsonl", "".join(_dumps(r) + "\n" for r in labels))
                folder.commit()
        if out:
            write_text(out, json.dumps(audit, indent=1))
        if report:
            from ..bench.self_consistency.report import audit_report
            audit_report(audit, result_sets).write(report)
            click.echo(f"report written to {report}", err=True)
    except InstanceError as e:
        bad_input(e)
    if as_json:
        click.echo(json.dumps(audit))
        return
    _print_audit(audit, result_sets)
    failed = [g["id"] for g in audit["groups"]
              for v in g.get("certified", {}).values() if v.get("verdict") is None]
    if failed:
        click.echo(f"prefcert: {len(failed)} certification(s) failed: {failed[:3]}", err=True)
        sys.exit(1)


def _print_audit(a: dict, result_sets=()) -> None:
    from rich.table import Table

    from ..bench.results import print_result_set
    from ..bench.self_consistency.results import pvalue_text
    con = _console()
    s = a["settings"]
    con.print(f"{s['groups']} audit groups; fit {s['fit']} (RMSE divisor {s['rmse_divisor']}, "
              f"price scale {s['price_scale']}, normalisation {s['normalisation']}); "
              f"{s['resamples']} bootstrap resamples of {s['residuals']} residuals, seed "
              f"{s['seed']}; {s['interval']} intervals for P1 / P2")
    if s["groups"]:
        con.print(f"Bonferroni threshold {s['alpha']}/{s['groups']} = "
                  f"{s['bonferroni_threshold']:.3g}, smallest attainable p = "
                  f"{s['min_attainable_p']:.3g} "
                  f"({'reachable' if s['bonferroni_reachable'] else 'NOT reachable'})")
    else:
        con.print("Bonferroni: no tests (no audit group has parsed answers)")
    if s.get("warning"):
        con.print(f"[bold]warning:[/bold] {s['warning']}")
    t = Table(title="lack of fit per group", title_justify="left")
    for c in ("model", "domain", "utt.", "cells", "items", "RMSE $", "RMSE %", "S_g", "p",
              "Bonf.", "L1 repair $", "L2 repair $²", "checked", "acyclic", "min FAS"):
        t.add_column(c, justify="right" if c not in ("model", "domain") else "left")
    for g in a["groups"]:
        cert = g.get("certified", {})

        def val(k, digits=2):
            c = cert.get(k)
            if not c:
                return "—"
            if c.get("verdict") is None:
                return "FAILED"
            text = f"{c['value']:.{digits}f}"
            return text if c["verdict"] == "optimal" else f"≤ {text} (bounded)"
        t.add_row(g["model"], g["domain"], g["utterance_id"], str(g["cells"]), str(g["items"]),
                  f"{g['rmse']:.2f}", "—" if g["rmse_pct"] is None else f"{g['rmse_pct']:.2f}",
                  "—" if g["price_scale"] is None else f"{g['price_scale']:.1f}",
                  _p(pvalue_text(g["pvalue"], s["resamples"])),
                  "reject" if g["reject_bonferroni"] else "—",
                  val("l1_repair"), val("l2_repair"),
                  ("yes" if all(v.get("checked") for v in cert.values()) else "no") if cert else "—",
                  cert.get("transitive", {}).get("verdict", "—") or "—",
                  str(cert.get("feedback_arc_set", {}).get("value", "—")))
    con.print(t)
    if a["local"]:
        t = Table(title=f"local audit: 95% residual intervals excluding 0 (uncorrected, as "
                        f"the paper counts them) and Holm at α = {s['alpha']} over each "
                        f"model's P1 or P2 comparisons", title_justify="left")
        for c in ("model", "kind", "domain", "n", "supported reversals", "reject",
                  "reject (Holm)", f"LB ≥ {s['threshold']:.0%} price"):
            t.add_column(c)
        models = list(dict.fromkeys(x["model"] for x in a["local"]))
        for x in sorted(a["local"], key=lambda x: (models.index(x["model"]), x["kind"],
                                                   x["domain"] is not None)):
            t.add_row(x["model"], x["kind"], x["domain"] or "all", str(x["n"]),
                      f"{x['reversals']} ({x['reversals'] / x['n']:.1%})",
                      f"{x['rejects']} ({x['rejects'] / x['n']:.1%})",
                      f"{x['rejects_holm']} ({x['rejects_holm'] / x['n']:.1%})",
                      f"{x['exceeds_threshold']} ({x['exceeds_threshold'] / x['n']:.1%})")
        con.print(t)
    if a["stress"]:
        t = Table(title="path-length stress test: mean |R₁,ₖ| % of endpoint mean price "
                        "[95% bootstrap CI over paths]", title_justify="left")
        for c in ("model", "domain", "k", "paths", "mean %", "95% CI"):
            t.add_column(c)
        for x in a["stress"]:
            t.add_row(x["model"], x["domain"], str(x["k"]), str(x["paths"]),
                      f"{x['mean_pct']:.1f}", f"[{x['ci'][0]:.1f}, {x['ci'][1]:.1f}]")
        con.print(t)
    con.print("parseability of the elicitation calls (stress-only cells apart): " + "; ".join(
        f"{p['model']} {p['finite']}/{p['calls']} finite, {p['number_only']} number-only"
        for p in a["parse"]))
    if a["settings"]["groups"]:
        con.print("Bonferroni rejections: " + ", ".join(f"{m} {k}"
                                                         for m, k in a["bonferroni"].items()))
    for rs in result_sets:
        con.print()
        print_result_set(con, rs)


def _p(v) -> str:
    return v if isinstance(v, str) else f"{v:.3g}"


@click.command()
@click.argument("sources", nargs=-1, type=click.Path(path_type=Path),
                metavar="PROMPTS ANSWERS... | LOG...")
@click.option("--utilities", "utilities", multiple=True, type=click.Path(path_type=Path),
              help="Instead of PROMPTS and ANSWERS: JSONL {\"id\", \"utilities\": [u, ...] or "
                   "[[L outcomes], ...], optional \"reu\", optional \"keys\" (answer keys for --sc)} from another verifier (repeat for "
                   "several models).")
@click.option("--model", "models", multiple=True, metavar="NAME",
              help="The model of an ANSWERS (or --utilities) file whose records name none: "
                   "once per file, in the files' order. Inspect logs name their own.")
@click.option("--delta", type=FiniteRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="Failure probability of the bounds.")
@click.option("--resamples", type=RISK_RESAMPLES, default=1000, show_default=True,
              help="Prompt-bootstrap resamples.")
@click.option("--seed", type=BENCH_SEED, default=0, show_default=True)
@click.option("--by", help="Also estimate per level of this cell factor (e.g. size).")
@click.option("--sc", "sc", metavar="N,N,...",
              help="Also deploy self-consistency SC(n) for each n (e.g. 2,4,8,16,32): a "
                   "majority vote over disjoint blocks of n samples (Figure 1).")
@click.option("--sc-ties", type=click.Choice(["first", "random"]), default="first",
              show_default=True, help="SC tie rule: the tied answer voted first, or "
                                      "uniform (seeded with --seed).")
@click.option("--m-sweep", is_flag=True,
              help="Also estimate on nested seeded subsets of M = 2, 4, … prompts (Table 14).")
@click.option("--l-sweep", is_flag=True,
              help="Also tabulate the verification term across verifier budgets L "
                   "(Table 17).")
@click.option("-o", "--out", type=OutputPath(),
              help="Write the M × K utility matrix, one JSON line per (model, prompt).")
@click.option("--report", type=OutputPath(), help="Write an HTML report.")
@click.option("--json", "as_json", is_flag=True, help="Print the estimate as JSON.")
def risk(sources, utilities, models, delta, resamples, seed, by, sc, sc_ties, m_sweep,
         l_sweep, out, report, as_json):
    """Rational value risk of sampled model answers to a generated benchmark PROMPTS: one
    or more ANSWERS files (JSONL: one {"id", "answer"} per sample, or {"id", "answers":
    [...]}; one model a file, named by its records' "model" or by --model), or Inspect logs
    of prefcert tasks (LOG...: the epochs are the K samples, grouped by the logs' models) —
    with prefcert as the deterministic verifier: per model the M × K utility matrix, DEU,
    REU under both readings (certified 1; best-of-K), RVR with 95 % prompt-bootstrap
    intervals, the three error bounds at δ, the parse-failure rate, and Qian & He's
    tables with the models as columns."""
    from ..bench.rational_value_risk import risk as rk
    try:
        sc_n = _sc_values(sc)
        _check_out([out, report], [*sources, *utilities])
        per_model: dict[str, list[dict]] = {}
        if utilities:
            if sources:
                raise InstanceError("give PROMPTS and ANSWERS, or --utilities, not both")
            names = _file_models(utilities, models, "--utilities")
            for path, name in zip(utilities, names):
                scored = _read_utilities(path)
                if not scored:
                    raise InstanceError("holds no utilities", file=str(path))
                _add_model(per_model, _one_model(path, _answer_records(path), name,
                                                 len(utilities)), scored, path)
        else:
            from ..bench.inspect.logs import is_log
            if sources and all(is_log(x) for x in sources):
                if models:
                    usage_error(InstanceError("--model is for answers files (a log names "
                                              "its model)"))
                from ..bench.inspect.logs import log_samples, risk_samples
                refuse_inputs([out, report], list(sources))
                samples = log_samples(sources)
                for m in dict.fromkeys(s["model"] for s in samples):
                    # the epochs of one model's logs are its K samples
                    per_model[str(m)] = risk_samples([s for s in samples if s["model"] == m])
            elif len(sources) < 2:
                raise InstanceError("give PROMPTS and ANSWERS..., Inspect logs, or --utilities")
            else:
                from ..bench.score import Benchmark
                prompts, answers = sources[0], sources[1:]
                bench = Benchmark.read(prompts)
                refuse_inputs([out, report], bench.files)
                names = _file_models(answers, models, "ANSWERS")
                for path, name in zip(answers, names):
                    model = _one_model(path, _answer_records(path), name, len(answers))
                    scored = rk.score_samples(bench, rk.read_samples(path, known=bench.by_id))
                    if not scored:
                        raise InstanceError("holds no answers", file=str(path))
                    _add_model(per_model, model, scored, path)
        if by is not None:
            factors = set().union(*(set(x["cell"]) for sc in per_model.values() for x in sc))
            if by not in factors:
                raise InstanceError(f"--by takes a cell factor of the prompts answered "
                                    f"(here: {', '.join(sorted(factors)) or 'none'})", value=by)
        results = {}
        for m, scored in per_model.items():
            if utilities:
                res = rk.rational_value_risk([s["utilities"] for s in scored],
                                             reu=[s["reu_certified"] for s in scored],
                                             delta=delta, resamples=resamples, seed=seed)
                res.update(samples=sum(len(s["utilities"]) for s in scored),
                           parse_failure_rate=None, timeout_rate=None, suites=["external"],
                           uncertified_prompts=sum(s["reu_certified"] is None for s in scored))
            else:
                res = rk.risk_table(scored, delta=delta, resamples=resamples, seed=seed, by=by)
            rk.add_analyses(res, scored, sc=sc_n, ties=sc_ties, m_sweep_on=m_sweep,
                            l_sweep_on=l_sweep, delta=delta, resamples=resamples, seed=seed)
            results[m] = {"model": m, **res}
    except InstanceError as e:
        bad_input(e)
    from ..bench.rational_value_risk.results import risk_results
    result_sets = risk_results(results, per_model)
    matrix = [{"model": m, **x} for m, scored in per_model.items() for x in scored]
    try:
        if out:
            write_jsonl(out, matrix, _dumps)
        if report:
            from ..bench.rational_value_risk.report import risk_report
            risk_report(results, per_model, result_sets).write(report)
            click.echo(f"report written to {report}", err=True)
    except InstanceError as e:
        bad_input(e)
    single = next(iter(results.values())) if len(results) == 1 else {}
    if as_json:
        # one model: its estimate's fields also at the top level (the one-model format)
        click.echo(json.dumps({**single, "models": list(results.values()),
                               "results": [rs.as_dict() for rs in result_sets]}))
        return
    if single:
        _print_risk(single)
    else:
        click.echo(f"{len(results)} models: {', '.join(results)} (the detail of one model: "
                   f"run it alone or see --json)")
    con = _console()
    from ..bench.results import print_result_set
    for rs in result_sets:
        con.print()
        print_result_set(con, rs)


def _sc_values(text: str | None) -> list[int]:
    """The n of ``--sc N,N,...`` (each an integer ≥ 1)."""
    if text is None:
        return []
    out = []
    for part in text.split(","):
        try:
            n = int(part.strip())
        except ValueError:
            n = 0
        if n < 1:
            usage_error(InstanceError("--sc takes integers ≥ 1 separated by commas", value=text))
        out.append(n)
    return out


def _answer_records(path: Path) -> list:
    """(line, record) of an answers or utilities file."""
    from ..bench.generate import numbered_jsonl
    return numbered_jsonl(path, unique_keys=True)


def _one_model(path: Path, records, given: str | None, files: int) -> str:
    """The model of one input file: ``--model`` (the records' ``model`` fields, where
    present, must agree with it), else the one its records name, else — for a lone file —
    :data:`~prefcert.bench.results.UNNAMED_MODEL`."""
    from ..bench.results import UNNAMED_MODEL
    named = {}
    for i, rec in records:
        if isinstance(rec, dict) and rec.get("model") not in (None, ""):
            named.setdefault(str(rec["model"]), i)
    if given is not None:
        other = [(m, i) for m, i in named.items() if m != given]
        if other:
            raise InstanceError(f"the record names another model than --model {given}",
                                file=str(path), line=other[0][1], value=other[0][0])
        return given
    if len(named) > 1:
        (m, i) = list(named.items())[1]
        raise InstanceError("a file holds one model's answers (split it, one file a model)",
                            file=str(path), line=i, value=m)
    if named:
        return next(iter(named))
    if files > 1:
        raise InstanceError("with several files, name each file's model: a \"model\" field "
                            "in its records or --model NAME once per file", file=str(path))
    return UNNAMED_MODEL


def _add_model(per_model: dict, model: str, scored: list, path: Path) -> None:
    if model in per_model:
        raise InstanceError(f"a second file of model {model!r} (one file a model; merge "
                            f"the samples into one file)", file=str(path), value=model)
    per_model[model] = scored


def _read_utilities(path: Path) -> list[dict]:
    from ..bench.generate import numbered_jsonl
    out = []
    for i, rec in numbered_jsonl(path, unique_keys=True):
        if not isinstance(rec, dict) or "id" not in rec or not isinstance(rec.get("utilities"), list):
            raise InstanceError("a record is {\"id\", \"utilities\": [...]}", file=str(path), line=i)
        us = rec["utilities"]
        if not us or not all(_utility(u) or (isinstance(u, list) and u and all(map(_utility, u)))
                             for u in us):
            raise InstanceError("\"utilities\" is a non-empty list of numbers in [0, 1] (or of "
                                "non-empty lists of them)", file=str(path), line=i,
                                value=json.dumps(us)[:40])
        if "reu" in rec and rec["reu"] is not None and not _utility(rec["reu"]):
            raise InstanceError("\"reu\" is a number in [0, 1] or null", file=str(path),
                                line=i, value=rec["reu"])
        keys = rec.get("keys")
        if keys is not None and (not isinstance(keys, list) or len(keys) != len(us) or any(
                k is not None and not isinstance(k, (str, int, float)) for k in keys)):
            raise InstanceError("\"keys\" is a list of answer keys (text or null), one per "
                                "utility", file=str(path), line=i, value=json.dumps(keys)[:40])
        out.append({"id": rec["id"], "utilities": rec["utilities"],
                    "reu_certified": rec.get("reu", 1), "cell": rec.get("cell", {}),
                    "verdicts": [],
                    "keys": None if keys is None else [None if k is None else str(k)
                                                       for k in keys]})
    return out


def _utility(u) -> bool:
    return isinstance(u, (int, float)) and not isinstance(u, bool) and 0 <= u <= 1


def _print_risk(r: dict) -> None:
    from rich.table import Table
    con = _console()
    rd = r["readings"]
    t = Table(title=f"rational value risk: M = {r['M']} prompts, K = {r['K']} samples, "
                    f"L = {r['L']} ({'deterministic verifier' if r['deterministic_verifier'] else 'stochastic verifier'})",
              title_justify="left")
    for c in ("reading", "prompts", "DEU", "REU", "RVR", "bootstrap mean", "95% CI",
              "(I) prompts", "(II) reasoning", "(III) verification", "total bound"):
        t.add_column(c, justify="left" if c == "reading" else "right")
    for name, label in (("certified", "REU = 1 (certified)"), ("best_of_k", "REU = best-of-K")):
        x = rd.get(name, {})
        if not x.get("prompts"):
            t.add_row(label, "0", *["—"] * 9)
            continue
        b = x["bounds"]
        t.add_row(label, str(x["prompts"]), f"{r['deu']:.3f}", f"{x['reu']:.3f}",
                  f"{x['rvr']:.3f}", f"{x['rvr_bootstrap_mean']:.3f}",
                  f"[{x['rvr_ci'][0]:.3f}, {x['rvr_ci'][1]:.3f}]",
                  f"{b['prompt_sampling']:.3f}", f"{b['reasoning_sampling']:.3f}",
                  f"{b['verification']:.3f}", f"{b['total']:.3f}")
    con.print(t)
    any_b = next((rd[n]["bounds"] for n in ("certified", "best_of_k") if rd.get(n, {}).get("prompts")), None)
    if any_b:
        con.print(f"bounds at δ = {any_b['delta']} (each term at δ/3, union bound): "
                  f"(I) {any_b['formulas']['prompt_sampling']}; (II) certified "
                  f"{rd['certified']['bounds']['formulas']['reasoning_sampling'] if rd['certified'].get('prompts') else '—'}, "
                  f"best-of-K {rd['best_of_k']['bounds']['formulas']['reasoning_sampling']}; "
                  f"(III) {any_b['formulas']['verification']}")
    con.print(f"RVR is the point estimate; the bootstrap mean (the released code's reported "
              f"value) is the mean of {r['resamples']} prompt-bootstrap resamples, seed "
              f"{r['seed']}, which also give the 95% intervals. DEU 95% CI "
              f"[{r['deu_ci'][0]:.3f}, {r['deu_ci'][1]:.3f}].")
    if r.get("parse_failure_rate") is not None:
        con.print(f"samples {r['samples']}: parse-failure rate {r['parse_failure_rate']:.3f} "
                  f"(scored U = 0), timeout rate {r['timeout_rate']:.3f}; prompts without a "
                  f"certified REU: {r['uncertified_prompts']}")
    binary = all("pass_at_k" in c for c in r["k_curve"])
    t = Table(title="RVR per budget k (the first k samples of every prompt)",
              title_justify="left")
    cols = ["k", "best-of-k", "RVR certified", "RVR best-of-k"]
    if binary:
        cols += ["pass@k", "RVR pass@k"]
    for c in cols:
        t.add_column(c, justify="right")
    def f3(v):
        return "—" if v is None else f"{v:.3f}".replace("-0.000", "0.000")
    for c in r["k_curve"]:
        cells = [str(c["k"]), f3(c["best_of_k"]), f3(c["rvr_certified"]), f3(c["rvr_best_of_k"])]
        if binary:
            cells += [f3(c["pass_at_k"]), f3(c["rvr_pass_at_k"])]
        t.add_row(*cells)
    con.print(t)
    if r.get("strata"):
        t = Table(title=f"by {r['by']}", title_justify="left")
        for c in (r["by"], "M", "DEU", "RVR certified [95% CI]", "RVR best-of-K [95% CI]"):
            t.add_column(c)
        for x in r["strata"]:
            cells = []
            for n in ("certified", "best_of_k"):
                y = x["readings"][n]
                cells.append(f"{y['rvr']:.3f} [{y['rvr_ci'][0]:.3f}, {y['rvr_ci'][1]:.3f}]"
                             if y.get("prompts") else "—")
            t.add_row(str(x[r["by"]]), str(x["M"]), f"{x['deu']:.3f}", *cells)
        con.print(t)
