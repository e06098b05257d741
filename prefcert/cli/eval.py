"""``prefcert eval``: run a suite on models through Inspect AI. Registered lazily in
:data:`prefcert.cli.COMMANDS`; Inspect is imported only when the command runs."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from ..formal.errors import InstanceError
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
                   "unfinished.")
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
            from ..bench.inspect.run import check_models, evaluate
        except ImportError:
            raise InstanceError("prefcert eval needs Inspect AI (pip install "
                                "'prefcert[inspect]')") from None
        check_models(models)
        ok, logs = evaluate(suite_name, models, log_dir=log_dir, limit=limit, epochs=epochs,
                            task_args=args, temperature=temperature, max_tokens=max_tokens,
                            max_connections=max_connections, max_retries=max_retries,
                            retry_attempts=retry_attempts, retry_on_error=retry_on_error,
                            retry_wait=1.0)
    except InstanceError as e:
        bad_input(e)
    for log in logs:
        click.echo(f"{log.eval.model}: {log.status} -> {log.location}", err=True)
    if not ok:
        click.echo(f"prefcert: the run is incomplete; run the same command again to resume "
                   f"(completed samples in {log_dir} are kept).", err=True)
        sys.exit(1)
