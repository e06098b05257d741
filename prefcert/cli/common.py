"""What every command shares: one-line bad-input errors (exit 2), the readings options,
seconds and seeds, the type of output paths, the summary table, disagreement reports."""
from __future__ import annotations

import json
import os
import sys
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import click

from ..api import arguments
from ..formal.errors import InstanceError
from ..pipeline.registry import reread


@contextmanager
def bulk_build():
    """Reading and parsing with the cyclic garbage collector paused, then the objects built
    frozen (``gc.freeze``): the parse makes millions of objects and no garbage cycles, and
    each generation-2 pass would walk all of them (half of the parse time of a big market).
    Frozen, the model is never walked again, here or in the forked workers (whose pages
    then stay shared). Reference counting still frees everything as usual. On leaving,
    collection resumes (:func:`unfreeze` releases the frozen objects at the end)."""
    import gc
    was = gc.isenabled()
    gc.disable()
    try:
        yield
        gc.freeze()
    finally:
        if was:
            gc.enable()


def finish(code: int) -> NoReturn:
    """End a command that built many objects (``prefcert label``) with exit status
    ``code``. In the process the ``prefcert`` script started (its ``__main__`` runs
    :func:`prefcert.cli.main`) this is ``os._exit`` once stdout and stderr are flushed: the
    parsed instances go back to the operating system at once instead of being freed
    object by object on the way out, where after a pool of forked workers every page
    they shared faults once more (about a twentieth of the CPU of a run of small labels,
    issue 24). The caller has closed its outputs and joined its workers. In any other
    process (tests, a program calling the click command) it is ``sys.exit(code)``."""
    from . import main
    if getattr(sys.modules.get("__main__"), "main", None) is not main:
        sys.exit(code)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def unfreeze() -> None:
    """The end of a command: what :func:`bulk_build` froze is collectable again (matters
    only when commands run in one process, as in tests)."""
    import gc
    gc.unfreeze()


_CONSOLE: Any = None


def console(*, stderr: bool = False, width: int | None = None) -> Any:
    """The ``rich`` console every command prints its tables with: on stdout (``stderr``:
    on stderr), ``width`` columns when the stream is not a terminal (a terminal's own
    width otherwise).

    Rich's own reaction to a reader that stopped (``prefcert score … | head``) is
    ``SystemExit(1)``; this console raises :class:`BrokenPipeError` instead, which
    :mod:`prefcert.cli` turns into the silent exit 141 of every other command.

    Parameters
    ----------
    stderr : bool, default False
        Print on stderr instead of stdout.
    width : int, optional
        Columns when the stream is not a terminal (None: rich's default).

    Returns
    -------
    rich.console.Console
        A console of that subclass. O(1); rich is imported on the first call.
    """
    global _CONSOLE
    if _CONSOLE is None:
        import errno

        from rich.console import Console

        class QuietPipeConsole(Console):
            """A console whose closed pipe is a :class:`BrokenPipeError`."""

            def on_broken_pipe(self) -> None:
                self.quiet = True
                raise BrokenPipeError(errno.EPIPE, "Broken pipe")

        _CONSOLE = QuietPipeConsole
    stream = sys.stderr if stderr else sys.stdout
    return _CONSOLE(stderr=stderr, width=None if stream.isatty() else width)


def usage_error(message: object) -> NoReturn:
    """A usage error of an option checked by the command itself (a word that is not one of
    the option's, a value given twice, options that exclude each other): the one line of
    click's own usage errors, ``prefcert: error: … Try 'prefcert COMMAND --help'.``, exit
    status 2 (:func:`prefcert.cli._click_error`). ``message``: the text, or the
    InstanceError whose one line it is."""
    raise click.UsageError(str(message), click.get_current_context(silent=True))


def bad_input(e: Exception) -> None:
    click.echo(f"prefcert: error: {e}", err=True)
    sys.exit(2)


def name_value_pairs(items, flag: str, shape: str = "NAME=VALUE") -> dict[str, str]:
    """The ``NAME=VALUE`` arguments of a repeatable option (``--param``, ``--reading``) as a
    dict; InstanceError naming the first that is not of that shape, a usage error
    (:func:`usage_error`) for a name given twice."""
    out: dict[str, str] = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise InstanceError(f"{flag} takes {shape}", value=item)
        if name.strip() in out:
            usage_error(InstanceError(f"{flag} {name.strip()} is given twice", value=item))
        out[name.strip()] = value.strip()
    return out

def override_readings(instances, semantics=None, conventions=None):
    """The instances read under overridden readings (``--semantics``, ``--convention``).
    Only a reading that differs from the instance's own is written into its data (and so
    into its hash): a label made under the instance's own reading is the same either way,
    and ``check`` re-applies exactly the recorded readings that differ."""
    if semantics is None and not conventions:
        return instances
    # a domain whose model has no ``semantics`` (only preference data have one) keeps its
    # reading: reread() changes only what the model knows and differs
    return [reread(inst, semantics, conventions or {}) for inst in instances]


def parse_conventions(pairs: tuple[str, ...], domains: set[str]) -> dict[str, str]:
    """``--convention NAME=CHOICE`` options, checked against the domains being labelled: a
    name that is not one of theirs, a choice not among the name's, and a name given twice
    are usage errors (:func:`usage_error`)."""
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
            usage_error(InstanceError(f"--convention takes NAME=CHOICE with NAME among "
                                      f"{', '.join(sorted(known)) or 'none for these domains'}",
                                      value=raw))
        if choice not in known[name].choices:
            usage_error(InstanceError(f"--convention {name} must be one of "
                                      f"{', '.join(known[name].choices)}", value=choice))
        if name in out:
            usage_error(InstanceError(f"--convention {name} is given twice", value=raw))
        out[name] = choice
    return out


def json_option(option: str, value: str):
    """A question given on the command line: a name, or a JSON object, read as every JSON
    text a user gives (:func:`prefcert.formal.instances.parse_json`: a key repeated in one
    object is refused, never read last-one-wins); InstanceError naming the option."""
    if not value.lstrip().startswith("{"):
        return value
    from ..formal.instances import parse_json
    try:
        return parse_json(value, option)
    except InstanceError as e:
        if e.message.startswith("malformed JSON"):
            raise InstanceError(f"{option} is not valid JSON{e.message[len('malformed JSON'):]}",
                                value=value) from None
        if e.message.startswith("JSON nested"):
            raise InstanceError(f"{option} is nested too deeply", value=value[:40]) from None
        raise InstanceError(f"{option}: {e.message}", value=e.value) from None


class Seconds(click.ParamType):
    """A positive, finite number of seconds (nan, inf, 0 and negatives are usage errors):
    the check of the API's ``time_limit`` (:func:`prefcert.api.arguments.seconds`)."""

    name = "seconds"

    def convert(self, value, param, ctx):
        try:
            return arguments.seconds(value, None)
        except arguments.ArgumentError as e:
            self.fail(str(e), param, ctx)


SEED_RANGE = click.IntRange(*arguments.SEED_RANGE)   # the API's seed range


class FiniteRange(click.FloatRange):
    """A ``click.FloatRange`` that also refuses nan and ±inf (``FloatRange`` lets nan
    through every bound, and inf through a lower one): a usage error naming the option
    and the value, before any work."""

    def convert(self, value, param, ctx):
        import math
        x = super().convert(value, param, ctx)
        if not math.isfinite(x):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return x


# The documented range of every numeric option that decides how much work a command does
# or how much memory it takes (a usage error, exit 2, names the option and the value before
# any work; ``--help`` shows each range). No number on the command line decides memory or
# time beyond these.
#: ``--jobs``: worker processes (a pool is never larger than the work either)
JOBS = click.IntRange(1, 256)
#: ``--seed`` of the benchmark commands (a suite's seed, a bootstrap's, a random search's):
#: hashed or fed to numpy / random, so any 63-bit value; negative seeds are refused
#: (``prefcert label --seed`` is a solver seed: :data:`SEED_RANGE`)
BENCH_SEED = click.IntRange(0, 2**63 - 1)
#: ``--per-cell``: instances per cell of a design (the shipped designs use 1 to 60)
PER_CELL = click.IntRange(1, arguments.PER_CELL_MAX)
#: ``consistency --resamples`` (its default, max(10000, 10·⌈G/α⌉), is not capped)
CONSISTENCY_RESAMPLES = click.IntRange(1, 1_000_000)
#: ``risk --resamples`` (time: resamples × prompts; memory: 8 bytes a resample, the draws
#: made a block at a time, :func:`prefcert.bench.stats.bootstrap_chunks`)
RISK_RESAMPLES = click.IntRange(1, 100_000)
#: refinement rounds with verifier feedback (``refine --rounds``, ``eval --rounds``; the
#: completion suite's ``rounds`` parameter has the same limits)
ROUNDS = click.IntRange(1, 10)
#: ``eval --epochs``: samples per prompt
EPOCHS = click.IntRange(1, 1000)
#: retries of a failed request, sample or run (``eval --max-retries`` and the others)
RETRIES = click.IntRange(0, 100)
#: ``eval --max-connections``: concurrent requests per model
CONNECTIONS = click.IntRange(1, 1000)
#: ``eval`` and ``export --max-tokens``: tokens per generation
MAX_TOKENS = click.IntRange(1, 10_000_000)
#: ``audit-library --random``: random instances per domain (all held in memory)
RANDOM_INSTANCES = click.IntRange(0, 100_000)
#: ``counterexample --max-size``: agents (every size up to it is searched, each at least
#: a second when it is not enumerated)
MAX_AGENTS = click.IntRange(1, 20)
#: ``counterexample --enumeration-limit``: raw instances enumerated in one space
ENUMERATION_LIMIT = click.IntRange(0, 10_000_000)
#: seconds of a budget or timeout given as a bounded float option (a day at most)
DAY = 86_400.0


UNVERIFIED = "unverified"   # summary column: labels resting on engine agreement only


class InterruptGuard:
    """Ctrl-C (SIGINT) over a whole loop, with one handler installed for the loop instead
    of one per line: between :meth:`hold` and :meth:`release` (a line being written and
    counted) a Ctrl-C is held back and delivered at :meth:`release`; anywhere else it is
    delivered at once, as without the guard (to the handler that was installed before:
    Python's, which raises KeyboardInterrupt). A Python-level handler, since a thread
    signal mask does not cover the solver threads that may receive the signal. Outside
    the main thread (no handler can be installed there) it holds nothing back.

    Used as a context manager (installs on entry, restores the previous handler on exit).
    :meth:`hold` and :meth:`release` are O(1) attribute writes, so a loop of many small
    labels pays two ``signal.signal`` calls in all, not two per line (:func:`no_interrupt`).
    """

    def __init__(self) -> None:
        self.holding = False
        self.hit = False
        self.old: Any = None
        self.active = False

    def __enter__(self) -> InterruptGuard:
        import signal
        try:
            self.old = signal.signal(signal.SIGINT, self._handler)
            self.active = True
        except ValueError:                     # not the main thread
            self.active = False
        return self

    def __exit__(self, *exc: object) -> None:
        if self.active:
            import signal
            signal.signal(signal.SIGINT, self.old)
            self.active = False

    def _handler(self, signum: int, frame: Any) -> None:
        if self.holding:
            self.hit = True
        else:
            self._deliver(signum, frame)

    def _deliver(self, signum: int, frame: Any) -> None:
        import signal
        if callable(self.old):
            self.old(signum, frame)
        elif self.old != signal.SIG_IGN:       # SIG_DFL, or a handler set outside Python
            raise KeyboardInterrupt

    def hold(self) -> None:
        """Hold a Ctrl-C back from here to :meth:`release`."""
        self.holding = True

    def release(self) -> None:
        """Stop holding; deliver a Ctrl-C that came while held."""
        self.holding = False
        if self.hit:
            import signal
            self.hit = False
            self._deliver(signal.SIGINT, None)


@contextmanager
def no_interrupt():
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


class OutputPath(click.Path):
    """The type of every option naming a file (``folder``: a folder) that a command writes.
    Such a path is checked before any work (:func:`prefcert.output.check_output`), never
    one of the command's inputs (:func:`prefcert.output.refuse_inputs`), and written
    atomically; the fault tests find every output of every command by this type."""

    def __init__(self, folder: bool = False):
        super().__init__(file_okay=not folder, dir_okay=folder, path_type=Path)
        self.folder = folder

    def convert(self, value, param, ctx):
        """The path; a folder where a file is written (or a file where a folder is) is bad
        input: one line naming it and exit 2, as every other output error."""
        path = Path(value)
        if path.is_dir() != self.folder and path.exists():
            from ..formal.errors import InstanceError
            opt = "the output" if param is None else param.opts[0] \
                if isinstance(param, click.Option) and param.opts else \
                (param.name or "the output").upper()     # an argument: OUT, as in --help
            raise InstanceError(f"{opt} names a {'file' if self.folder else 'folder'}; it "
                                f"must name a {'folder' if self.folder else 'file'} to write",
                                file=str(value))
        return super().convert(value, param, ctx)


def report_disagreement(report: dict, path: Path | None) -> None:
    line = json.dumps(report, separators=(",", ":"), default=str)
    click.echo(f"prefcert: DISAGREEMENT on {report.get('id')} {report.get('question')}: "
               f"{report.get('reason')}", err=True)
    if path is not None:
        from ..output import append_to
        try:
            append_to(path, line + "\n")
            click.echo(f"prefcert: report written to {path}", err=True)
            return
        except OSError as e:
            click.echo(f"prefcert: cannot write the report to {path} ({e.strerror}); "
                       f"here it is:", err=True)
    click.echo(line, err=True)


def summary(counts: Counter, skipped: int, title: str = "labels", note: bool = True) -> None:
    """One row per question: its labels, by verdict; ``(q, UNVERIFIED)`` counts those of its
    labels that rest on engine agreement only (a subset, shown in parentheses)."""
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
    out = console(stderr=True, width=120)
    if counts:
        out.print(table)
    unverified = sum(n for (_, v), n in counts.items() if v == UNVERIFIED)
    if unverified and note:
        out.print(f"{unverified} label(s) rest on engine agreement only (\"checked\": "
                      f"false): no certificate proves them; 'prefcert check' reports them.")
    if skipped:
        out.print(f"{skipped} label(s) already in the output file were skipped.")

