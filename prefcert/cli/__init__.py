"""The ``prefcert`` command line: one module per command group, each imported only when its
command runs (the table :data:`COMMANDS`), so ``prefcert --help`` and ``prefcert check``
load no engine.

Exit status: 0 success; 1 a label could not be produced (engines disagree or time out), an
audited answer is wrong, or a certificate fails; 2 bad input (a one-line message naming the
file, line and value; no output written; a usage error of click's, such as an unknown
option or a value outside an option's range, is one such line too); 130 interrupted by
Ctrl-C (a command writing output says what it has written); 141, silently, when the reader
of stdout stops (``| head``).
"""
from __future__ import annotations

import errno
import importlib
import os
import sys
from typing import NoReturn

import click

# rank-maximal LP duals are integers of thousands of digits; let JSON read and write them
sys.set_int_max_str_digits(0)

#: command name -> ("module:function", one-line help); the module is imported on first use
COMMANDS: dict[str, tuple[str, str]] = {
    "label": ("prefcert.cli.label:label",
              "Label every instance in PATHS with a certificate the checker verified."),
    "check": ("prefcert.cli.check:check",
              "Re-verify every certificate in LABELS with the checker alone."),
    "audit": ("prefcert.cli.audit:audit",
              "Judge an answer to a question on an instance, with a verified proof."),
    "classify": ("prefcert.cli.audit:classify",
                 "Which notions each candidate outcome satisfies, with refutations."),
    "domains": ("prefcert.cli.domains:domains",
                "List the domains, questions, engines, certificates and conventions."),
    "schema": ("prefcert.cli.domains:schema", "Print the JSON Schema of a domain's instances."),
    "generate": ("prefcert.cli.bench:generate", "Generate a benchmark suite (prompts, certified labels)."),
    "suites": ("prefcert.cli.bench:suites", "List the benchmark suites."),
    "score": ("prefcert.cli.bench:score", "Score model answers to a generated benchmark."),
    "feedback": ("prefcert.cli.bench:feedback", "Verifier feedback on one answer (never the solution)."),
    "refine": ("prefcert.cli.bench:refine", "Up to three rounds of answer and feedback against a command."),
    "report": ("prefcert.cli.bench:report", "One self-contained HTML page of plots for scored answers."),
    "eval": ("prefcert.cli.eval:eval_command", "Run a suite on models through Inspect AI (resumable)."),
    "export": ("prefcert.cli.export:export", "Export a suite for another evaluation tool (lm-eval)."),
    "counterexample": ("prefcert.cli.counterexample:counterexample",
                       "A smallest instance on which a property fails, with a certificate."),
    "audit-library": ("prefcert.cli.audit_library:audit_library",
                      "Certify or refute a peer library's answers (matching, algmatch, pref-voting, preflibtools)."),
    "consistency": ("prefcert.cli.consistency:consistency", "Self-consistency audit of willingness-to-pay answers."),
    "risk": ("prefcert.cli.consistency:risk", "Rational value risk of sampled answers, prefcert as the verifier."),
}


class _Group(click.Group):
    """A click group whose :data:`COMMANDS` are imported on first use (keeps --help fast)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attr = COMMANDS[cmd_name][0].split(":")
        command: click.Command = getattr(importlib.import_module(module), attr)
        command.name = cmd_name
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl(sorted((n, h) for n, (_, h) in COMMANDS.items()))

    def make_context(self, info_name, args, parent=None, **extra):
        """Parse the group's own options: ``--help`` and ``--version`` into a closed pipe
        or onto a full device, and a usage error, end as every command's do."""
        try:
            try:
                return super().make_context(info_name, args, parent, **extra)
            finally:
                sys.stdout.flush()
        except click.exceptions.Exit:
            raise
        except click.ClickException as e:
            _click_error(e)
        except OSError as e:
            _os_error(e)

    def invoke(self, ctx: click.Context):
        """Run the command; bad input it did not report itself, and a file system error
        (a full disk, a read-only folder, a broken pipe), is one line and exit 2, never a
        traceback; a usage error (an unknown option, a value out of its range) is one
        line too (:func:`_click_error`)."""
        from ..formal.errors import InstanceError
        try:
            try:
                return super().invoke(ctx)
            except SystemExit as e:     # a command that reported its own error: stdout's
                if e.code not in (None, 0):   # unwritten rest must not raise a second one
                    _drop_stdout()
                raise
            finally:                    # stdout's last block is written here, not at exit
                sys.stdout.flush()
        except InstanceError as e:
            click.echo(f"prefcert: error: {e}", err=True)
            sys.exit(2)
        except click.exceptions.Exit:
            raise
        except click.ClickException as e:
            _click_error(e)
        except KeyboardInterrupt:       # a command that says nothing more of its own
            click.echo("\nprefcert: interrupted.", err=True)
            sys.exit(130)
        except OSError as e:
            _os_error(e)


def _click_error(e: click.ClickException) -> NoReturn:
    """click's own errors as the one line of every other bad input, exit status 2 (a
    usage error; click's other errors keep their status): ``prefcert: error: Invalid
    value for '--seed': -1 is not in the range 0<=x<=2147483647. Try 'prefcert label
    --help'.`` instead of click's block of a usage line, a hint and the message. A group
    called without a command still prints its help (click's own reaction)."""
    no_args = getattr(click.exceptions, "NoArgsIsHelpError", None)
    if no_args is not None and isinstance(e, no_args):
        e.show()
        sys.exit(e.exit_code)
    _drop_stdout()
    message = " ".join(e.format_message().split())        # one line
    if message and message[-1] not in ".!?":
        message += "."                  # the sentence ends before the hint
    ctx = getattr(e, "ctx", None)
    hint = ""
    if ctx is not None and isinstance(e, click.UsageError):
        hint = f" Try '{ctx.command_path} {ctx.help_option_names[-1]}'." \
            if ctx.help_option_names else ""
    click.echo(f"prefcert: error: {message}{hint}", err=True)
    sys.exit(e.exit_code)


def _os_error(e: OSError) -> NoReturn:
    """An OSError no command reported: silent exit 141 when the reader of stdout stopped,
    else one line naming the file (or stdout) and exit 2."""
    _drop_stdout()
    if e.errno == errno.EPIPE and e.filename is None:
        sys.exit(141)           # the reader of stdout stopped (| head): no message
    where = f"{e.filename}: " if e.filename else "stdout: " if \
        e.errno in (errno.ENOSPC, errno.EPIPE, errno.EIO) else ""
    click.echo(f"prefcert: error: {where}{e.strerror or e.__class__.__name__}",
               err=True)
    sys.exit(2)


def _drop_stdout() -> None:
    """When stdout cannot be written (a full disk, a closed pipe), send what is left of it
    to /dev/null, so that the interpreter's flush at exit prints no second error."""
    try:
        sys.stdout.flush()
    except OSError:
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, sys.stdout.fileno())
            os.close(null)
        except (OSError, ValueError):
            pass


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="prefcert")
def main() -> None:
    """Certified labels for preference-reasoning instances.

    Domains and their questions: 'prefcert domains'; instance formats: 'prefcert schema'.
    """


if __name__ == "__main__":
    main()
