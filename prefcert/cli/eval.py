"""``prefcert eval``: run a suite on models through Inspect AI. Registered lazily in
:data:`prefcert.cli.COMMANDS`; Inspect is imported only when the command runs."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import NoReturn

import click

from ..formal.errors import InstanceError
from ..output import check_output, refuse_inputs
from .common import (
    BENCH_SEED,
    CONNECTIONS,
    EPOCHS,
    MAX_TOKENS,
    PER_CELL,
    RETRIES,
    ROUNDS,
    FiniteRange,
    bad_input,
    name_value_pairs,
)


def _task_arg(value: str) -> tuple[str, object]:
    if "=" not in value:
        raise InstanceError("-T takes NAME=VALUE", value=value)
    k, v = value.split("=", 1)
    import yaml                                     # Inspect's own reading of -T values
    return k.strip(), yaml.safe_load(v)


@click.command(name="eval")
@click.argument("suite_name", metavar="SUITE")
@click.option("--model", "models", multiple=True, required=True,
              help="An Inspect model (repeatable), e.g. openai/gpt-4o-mini, "
                   "anthropic/claude-3-5-haiku-latest, ollama/llama3.1, "
                   "openai-api/<service>/<model> with <SERVICE>_BASE_URL; "
                   "mockllm/model for a dry run (offline: every answer is the mock's "
                   "default text).")
@click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("logs"), show_default=True,
              help="One log per model; running again on the folder resumes what is "
                   "unfinished. Never the benchmark folder read (--benchmark, -T "
                   "benchmark=) or a folder inside it.")
@click.option("--limit", type=click.IntRange(min=1), help="Prompts to run (spread over the "
                                                            "cells; paired formats kept).")
@click.option("--epochs", type=EPOCHS,
              help="Samples per prompt (prefcert risk reads them as K). Default: the "
                   "suite's own (15 completions per cell for self-consistency), else 1.")
@click.option("--rounds", type=ROUNDS, default=None,
              help="Refinement rounds with verifier feedback (Khanna & Wang §5 use 3); "
                   "default: the suite's (1; 2 for the two-turn completion).")
@click.option("--temperature", type=FiniteRange(min=0), default=0.0, show_default=True)
@click.option("--max-tokens", type=MAX_TOKENS, default=8192, show_default=True)
@click.option("--max-connections", type=CONNECTIONS, default=8, show_default=True,
              help="Concurrent requests per model.")
@click.option("--max-retries", type=RETRIES,
              help="Retries of a failed model request (default: Inspect's).")
@click.option("--retry-attempts", type=RETRIES, default=2, show_default=True,
              help="Whole-run retries of a failed log, within this command.")
@click.option("--retry-on-error", type=RETRIES, default=3, show_default=True,
              help="Retries of a sample whose model call failed after its request retries "
                   "(Inspect's retry_on_error; 0: a failed sample waits for the next run).")
@click.option("--seed", type=BENCH_SEED, help="Suite seed (default: the suite's).")
@click.option("--sizes", help="The sizes (comma-separated): a subset of the suite's, or "
                               "open sizes within its limits (docs/suites.md).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A design parameter of the suite (repeatable; prefcert suites lists "
                   "them), as prefcert generate --param.")
@click.option("--per-cell", type=PER_CELL, help="Instances per cell.")
@click.option("--benchmark", type=click.Path(path_type=Path),
              help="A folder made by prefcert generate, read instead of generating.")
@click.option("-T", "task_args", multiple=True, metavar="NAME=VALUE",
              help="A task parameter, e.g. -T format=mcq (a cell factor's level).")
def eval_command(suite_name, models, log_dir, limit, epochs, rounds, temperature, max_tokens,
                 max_connections, max_retries, retry_attempts, retry_on_error, seed,
                 sizes, per_cell,
                 params, benchmark, task_args):
    """Run SUITE on one or more models through Inspect AI (progress, retries and
    concurrency are Inspect's); score and report the logs with 'prefcert score LOG_DIR'
    and 'prefcert report LOG_DIR -o report.html'."""
    from ..bench.suites import suite as get_suite
    try:
        s = get_suite(suite_name)
        args = dict(_task_arg(t) for t in task_args)
        given = name_value_pairs(params, "--param")
        s.chosen_parameters(given)          # an unknown name or a bad value: refused here
        args.update(given)                  # (the task configures the suite with them)
        for k, v in (("seed", seed), ("sizes", sizes), ("per_cell", per_cell),
                     ("benchmark", None if benchmark is None else str(benchmark))):
            if v is not None:
                args[k] = v
        if rounds is not None:
            args["rounds"] = rounds
        try:
            from ..bench.inspect.run import check_log_dir, check_models, evaluate
        except ImportError:
            raise InstanceError("prefcert eval needs Inspect AI (pip install "
                                "'prefcert[inspect]')") from None
        check_models(models)
        check_output(log_dir, folder=True)      # before any prompt is made or asked
        read = args.get("benchmark")            # --benchmark, or -T benchmark=
        if read is not None:
            refuse_inputs([log_dir], [str(read)])
            check_log_dir(log_dir, str(read))   # nor inside it (logs mixed with its files)
        created = not log_dir.exists()
        started = time.time()
        try:
            ok, logs = evaluate(suite_name, models, log_dir=log_dir, limit=limit,
                                epochs=epochs, task_args=args, temperature=temperature,
                                max_tokens=max_tokens, max_connections=max_connections,
                                max_retries=max_retries, retry_attempts=retry_attempts,
                                retry_on_error=retry_on_error, retry_wait=1.0)
        except OSError as e:
            raise _log_error(e, log_dir, created) from None
    except InstanceError as e:
        bad_input(e)
    except KeyboardInterrupt:                   # before Inspect ran, or raised by it
        _interrupted(log_dir)
    if _cancelled(log_dir, started):            # Inspect ends a Ctrl-C'd run itself
        _interrupted(log_dir)
    for log in logs:
        click.echo(f"{log.eval.model}: {log.status} -> {log.location}", err=True)
    if ok:                      # prefcert's summary, in place of Inspect's closing line
        click.echo(f"prefcert: {len(logs)} log(s) complete in {log_dir}.", err=True)
    if not ok:
        click.echo(f"prefcert: the run is incomplete; run the same command again to resume "
                   f"(completed samples in {log_dir} are kept).", err=True)
        sys.exit(1)


def _interrupted(log_dir: Path) -> NoReturn:
    """Ctrl-C: one line, exit status 130. Inspect keeps every sample completed before it
    in the log, which the same command resumes."""
    click.echo(f"prefcert: interrupted: the samples completed so far are kept in "
               f"{log_dir}; run the same command again to resume.", err=True)
    sys.exit(130)


def _cancelled(log_dir: Path, since: float) -> bool:
    """Whether a log this run wrote (modified since ``since``) was cancelled: Inspect
    answers a Ctrl-C by ending the run, marking its log cancelled and returning as if
    the run had succeeded (exit status 0 before). O(logs) header reads."""
    from inspect_ai.log import read_eval_log
    for f in log_dir.glob("*.eval") if log_dir.is_dir() else ():
        try:
            if f.stat().st_mtime >= since - 1 and \
                    read_eval_log(str(f), header_only=True).status == "cancelled":
                return True
        except Exception:                       # a log Inspect cannot read: not ours
            continue
    return False


def _log_error(e: OSError, log_dir: Path, created: bool) -> InstanceError:
    """The one-line error of a log folder that cannot be written (a full disk, a
    read-only folder): it names the folder, not stdout. A log folder this run created
    and left without a log (only Inspect's bookkeeping files) is removed again; logs
    with completed samples are kept (they are what a rerun resumes)."""
    import errno
    import shutil
    if e.filename is None and e.errno in (errno.ENOSPC, errno.EPIPE, errno.EIO):
        near = log_dir
        while not near.exists() and near != near.parent:
            near = near.parent
        try:                                    # stdout, unless the log folder is full
            full = os.statvfs(near).f_bavail == 0
        except OSError:
            full = False
        if not full:
            raise e
    if created and log_dir.is_dir() and not any(log_dir.glob("*.eval")):
        shutil.rmtree(log_dir, ignore_errors=True)
    where = e.filename or str(log_dir)
    return InstanceError(f"cannot write the logs ({e.strerror or type(e).__name__})",
                         file=str(where))
