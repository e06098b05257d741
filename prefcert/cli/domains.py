"""``prefcert domains`` and ``prefcert schema``: the registry as a table, JSON or JSON Schema."""
from __future__ import annotations

import json

import click

from ..formal.errors import InstanceError
from ..pipeline.registry import spec
from .common import bad_input
from .common import console as shared_console


def rule_rows() -> dict:
    """The registered voting rules (:mod:`prefcert.formal.rules`), as ``prefcert domains``
    lists them: name -> ballot kind, whether it supports incomplete profiles (the
    preference ``winner`` question), the rule-specific certificate types it admits, and
    its definition."""
    from ..formal.rules import RULES
    return {n: {"ballot": r.ballot, "incomplete": r.supports_incomplete,
                "proofs": sorted(r.proofs), "doc": r.doc} for n, r in RULES.items()}


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the registry as JSON.")
def domains(as_json):
    """List every domain with its questions (verdicts), engines and certificate types, the
    conventions (readings of a definition) each domain offers, and the voting rules its
    questions take."""
    from ..pipeline.registry import DOMAINS, domain
    rules = rule_rows()
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
                                 "doc": c.doc} for t, c in d.spec.certificates.items()},
            "conventions": {c.name: {"default": c.default, "choices": dict(c.doc)}
                            for c in d.spec.conventions.values()},
            "rules": {n: rules[n] for n in d.spec.rules}})
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    from rich.table import Table
    table = Table(title="domains and questions", title_justify="left")
    for col in ("domain", "question", "verdicts", "engines", "certificates"):
        table.add_column(col)
    for r in rows:
        for i, q in enumerate(r["questions"]):
            table.add_row(r["domain"] if i == 0 else "", q["name"], " / ".join(q["verdicts"]),
                          ", ".join(q["engines"]), ", ".join(q["certificates"]))
    conv = Table(title="conventions (--convention NAME=CHOICE; the default first)",
                 title_justify="left")
    for col in ("domain", "convention", "choice", "meaning"):
        conv.add_column(col)
    for r in rows:
        for name, c in r["conventions"].items():
            for i, (choice, doc) in enumerate(c["choices"].items()):
                conv.add_row(r["domain"], name if i == 0 else "", choice, doc)
    voting = Table(title="voting rules (prefcert.formal.rules; 'incomplete': a rule of the "
                         "preference winner question)", title_justify="left")
    for col in ("rule", "ballot", "incomplete", "rule-specific certificates", "definition"):
        voting.add_column(col)
    for name, r in rules.items():
        voting.add_row(name, r["ballot"], "yes" if r["incomplete"] else "no",
                       ", ".join(r["proofs"]), r["doc"])
    console = shared_console(width=160)
    console.print(table)
    console.print(conv)
    console.print(voting)


@click.command()
@click.argument("domain_name", metavar="[DOMAIN]", required=False)
def schema(domain_name):
    """Print the JSON Schema of DOMAIN's instances (every domain's when omitted)."""
    from ..pipeline.registry import DOMAINS
    try:
        names = [domain_name] if domain_name else list(DOMAINS)
        out = {n: spec(n).schema for n in names}
    except InstanceError as e:
        bad_input(e)
    click.echo(json.dumps(out[domain_name] if domain_name else out, indent=2))

