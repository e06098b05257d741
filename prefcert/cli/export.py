"""``prefcert export``: a suite for another evaluation tool. Registered lazily in
:data:`prefcert.cli.COMMANDS`."""
from __future__ import annotations

from pathlib import Path

import click

from ..formal.errors import InstanceError
from ..output import check_new_folder, check_output
from .common import BENCH_SEED, MAX_TOKENS, OutputPath, bad_input

TOOLS = ("lm-eval",)


def _tool(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """TOOL, one of :data:`TOOLS`; else a usage error listing them plainly."""
    if value not in TOOLS:
        raise click.BadParameter(f"{value!r} is not a tool prefcert exports to (the tools: "
                                 f"{', '.join(TOOLS)}).")
    return value


@click.command()
@click.argument("tool", metavar="TOOL", callback=_tool)
@click.argument("suite_name", metavar="SUITE")
@click.argument("out", type=OutputPath(folder=True))
@click.option("--benchmark", type=click.Path(path_type=Path),
              help="A folder made by prefcert generate (default: generate the entries).")
@click.option("--size", type=click.IntRange(min=1),
              help="Entries to generate (default: the whole design), or with --benchmark "
                   "to take: the first of the design's task order, spread over the cells.")
@click.option("--seed", type=BENCH_SEED, help="Suite seed (default: the suite's).")
@click.option("--max-tokens", type=MAX_TOKENS, default=4096, show_default=True)
@click.option("--overwrite", is_flag=True,
              help="Replace an earlier export of SUITE in OUT (the files of the names this "
                   "run writes); OUT holding any other file is refused.")
def export(tool, suite_name, out, benchmark, size, seed, max_tokens, overwrite):
    """Write SUITE for TOOL (lm-eval) into the folder OUT. lm-eval: a task folder (YAML, the
    documents and a process_results hook calling prefcert) that 'lm_eval --tasks
    prefcert_<suite> --include_path OUT' runs."""
    from ..bench.lm_eval import export as write
    from ..bench.lm_eval import export_names, task_name
    from ..bench.score import single_answer
    try:
        # the output checked before any work (it was after generating every entry)
        check_output(out, folder=True)
        if out.is_dir():      # generate's rule: new or empty, or --overwrite of these files
            check_new_folder(out, export_names(suite_name), overwrite=overwrite)
        if benchmark is not None:
            # --size N: the first N of the design's task order (spread over the cells, as
            # without --benchmark), only those entries built; else every prompt, in file
            # order
            from ..bench.dataset import BenchmarkEntries
            folder = BenchmarkEntries(benchmark, order="design" if size else "file")
            keep = [i for i, p in enumerate(folder.prompts) if p["suite"] == suite_name]
            if not keep:
                raise InstanceError(f"holds no prompt of suite {suite_name}",
                                    file=str(benchmark))
            entries = [folder[i] for i in (keep[:size] if size else keep)]
        else:
            from ..bench.dataset import create_dataset
            from ..bench.suites import suite
            if suite(suite_name).multi_turn is not None:    # refused before the whole run
                entries = create_dataset(suite_name, size=1, seed=seed)
                single_answer(entries[0]["metadata"])
            entries = create_dataset(suite_name, size=size, seed=seed)
        for e in entries:          # lm-eval gives one answer a document: no second turn
            single_answer(e["metadata"], benchmark)
        write(entries, suite_name, out, max_tokens=max_tokens,    # all files or none
              overwrite=overwrite)
    except InstanceError as e:
        bad_input(e)
    click.echo(f"{len(entries)} prompts -> {out} (lm_eval --tasks {task_name(suite_name)} "
               f"--include_path {out})", err=True)
