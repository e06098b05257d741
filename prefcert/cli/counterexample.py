"""``prefcert counterexample``: a smallest instance on which a property fails."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..formal.errors import InstanceError
from ..output import check_output, refuse_inputs, write_text
from .common import (
    BENCH_SEED,
    DAY,
    ENUMERATION_LIMIT,
    MAX_AGENTS,
    FiniteRange,
    OutputPath,
    bad_input,
)


@click.command("counterexample")
@click.argument("prop", metavar="PROPERTY", required=False)
@click.option("--max-size", type=MAX_AGENTS, default=6, show_default=True,
              help="Largest number of agents tried (both sides of a market, the agents of "
                   "a housing market, the voters of an election).")
@click.option("--domain", help="Domain of a user property given as module:function or "
                               "file.py:function (the built-ins know theirs).")
@click.option("--complete", is_flag=True, help="Only complete lists.")
@click.option("--seconds", type=FiniteRange(0.1, DAY), default=60.0, show_default=True,
              help="Budget for CP-SAT synthesis and random search.")
@click.option("--enumeration-limit", type=ENUMERATION_LIMIT, default=200_000,
              show_default=True, help="Largest raw space enumerated; larger ones are "
                                      "synthesised with CP-SAT or sampled.")
@click.option("--seed", type=BENCH_SEED, default=0, show_default=True, help="Random-search seed.")
@click.option("-o", "--out", type=OutputPath(),
              help="Write the result (JSON) here instead of stdout.")
@click.option("--list", "list_only", is_flag=True, help="List the built-in properties.")
def counterexample(prop, max_size, domain, complete, seconds, enumeration_limit, seed, out,
                   list_only):
    """Find a smallest instance on which PROPERTY fails, with a certificate of the failure
    and a minimality argument.

    PROPERTY is a built-in name (see --list) or a Python callable over an instance dict
    that returns True when the property holds: module:function or file.py:function, with
    --domain. Exit 0 when a counterexample is found, 1 when none exists up to --max-size,
    2 on bad input.
    """
    from ..pipeline.counterexample import PropertyError, builtin_properties, minimal_counterexample
    if list_only:
        for name, p in sorted(builtin_properties().items()):
            click.echo(f"{name}  [{p.domain}]  {p.doc}")
        return
    if not prop:
        bad_input(InstanceError("missing PROPERTY (see --list)"))
    from .common import console as shared_console
    console = shared_console(stderr=True)
    tty = sys.stderr.isatty()
    try:
        if out is not None:
            check_output(out)
            refuse_inputs([out], [_property_file(prop)])
        with console.status("searching…", spinner="dots") if tty else _Null() as status:
            def progress(line: str) -> None:
                if tty:
                    status.update(line)
            result = minimal_counterexample(prop, max_size=max_size, domain=domain,
                                            complete=complete, seconds=seconds,
                                            enumeration_limit=enumeration_limit, seed=seed,
                                            progress=progress)
    except (InstanceError, PropertyError) as e:
        bad_input(e)
    text = json.dumps(result, indent=2, default=str)
    if out is not None:
        try:
            write_text(out, text + "\n")
        except InstanceError as e:
            bad_input(e)
    else:
        click.echo(text)
    if result["found"]:
        m = result["minimality"]
        click.echo(f"prefcert: counterexample of size {tuple(result['size'])} "
                   f"(agents, entries, tied pairs); minimality {m['claim']}", err=True)
    else:
        click.echo(f"prefcert: no counterexample up to {max_size} agents", err=True)
    sys.exit(0 if result["found"] else 1)


def _property_file(prop: str) -> Path | None:
    """The Python file of a property given as file.py:function (an input)."""
    head = prop.rpartition(":")[0]
    return Path(head) if head.endswith(".py") else None


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, *a, **k):
        pass
