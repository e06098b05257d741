"""``prefcert audit`` and ``prefcert classify``: judging a third party's answer, and which
notions candidate outcomes satisfy."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..formal.errors import Disagreement, InstanceError
from ..formal.files import read_input, read_json_file, read_paths
from ..pipeline.registry import spec
from .common import Seconds, bad_input, json_option, report_disagreement


@click.command()
@click.argument("instance", type=click.Path(path_type=Path))
@click.option("-q", "--question", required=True, help="The question answered (e.g. super_stable).")
@click.argument("answer")
@click.option("--id", "iid", help="Instance id, when INSTANCE holds several.")
@click.option("--time-limit", type=Seconds(), default=10.0, show_default=True)
@click.option("--allow-unverified", is_flag=True,
              help="Exit 0 for a correct answer even when the truth rests on engine "
                   "agreement only (\"checked\": false).")
def audit(instance, question, answer, iid, time_limit, allow_unverified):
    """Judge ANSWER (a JSON outcome or a verdict word of QUESTION, alone or in an
    <answer>…</answer> block; "none" claims that no outcome exists, {} is the empty
    outcome) to QUESTION on INSTANCE. Prints a JSON verdict resting on a proof the checker
    verified; exit 0 correct, 1 not (or unverified, or engines disagree).

    ANSWER is read from the file it names when that path exists, from stdin when it is
    '-', and is otherwise the answer's text itself (a verdict word, none, or JSON:
    prefcert audit i.json -q super_stable none)."""
    from ..pipeline.jobs import audit as run_audit
    from ..pipeline.jobs import plan
    try:
        job = plan([_one_instance(instance, iid)], [json_option("--question", question)])[0]
        text, inline = _answer_text(answer)
        result = run_audit(job, text, time_limit=time_limit)
    except InstanceError as e:
        bad_input(e)
    except Disagreement as d:
        report_disagreement(d.report, None)
        sys.exit(1)
    click.echo(json.dumps(result, indent=2))
    if inline and result.get("verdict") == "unparseable":
        click.echo(f"prefcert: ANSWER {answer!r} names no file: it was read as the "
                   f"answer's text", err=True)
    if not result.get("checked"):
        click.echo("prefcert: the verdict rests on engine agreement only: no certificate "
                   "proves it", err=True)
    ok = result["verdict"] == "correct" and (result.get("checked") or allow_unverified)
    sys.exit(0 if ok else 1)


@click.command()
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
        cands = read_json_file(candidates)
        if not isinstance(cands, list):
            raise InstanceError("candidates must be a JSON list", file=str(candidates),
                                value=type(cands).__name__)
        results = run_classify(inst.domain, model, cands)
    except InstanceError as e:
        bad_input(e)
    for r in results:
        click.echo(json.dumps(r, separators=(",", ":")))


def _answer_text(answer: str) -> tuple[str, bool]:
    """The text of ``audit``'s ANSWER and whether it was given inline: the file it names
    when that path exists (read as every user file, :func:`read_input`), stdin for ``-``,
    else the argument itself (a verdict word, ``none``, JSON)."""
    import os
    if answer == "-":
        raw = sys.stdin.buffer.read()
        if b"\0" in raw:
            raise InstanceError("not a text file (a NUL byte)", file="<stdin>",
                                line=1 + raw[:raw.index(b"\0")].count(b"\n"))
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InstanceError("not UTF-8 text", file="<stdin>",
                                line=1 + raw[:e.start].count(b"\n"),
                                value=raw[e.start:e.start + 8]) from None
        return text.removeprefix("\ufeff"), False
    if os.path.lexists(answer):
        return read_input(answer), False
    return answer, True


def _one_instance(path: Path, iid: str | None):
    insts = read_paths([str(path)])
    if iid is not None:
        insts = [i for i in insts if i.id == iid]
        if not insts:
            raise InstanceError("no instance with this id", file=str(path), value=iid)
    elif len(insts) != 1:
        raise InstanceError(f"holds {len(insts)} instances; choose one with --id", file=str(path))
    return insts[0]

