"""Write the registry section of docs/architecture.md (domains, questions, verdicts,
engines, certificate types; the voting rules) from prefcert's registry. Run from the repository root::

    python scripts/registry_docs.py          # rewrite the section
    python scripts/registry_docs.py --check  # exit 1 if it is out of date
"""
from __future__ import annotations

import sys
from pathlib import Path

from prefcert.formal.rules import RULES
from prefcert.pipeline.registry import DOMAINS, domain

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
START, END = "<!-- registry:start -->", "<!-- registry:end -->"


def section() -> str:
    out = []
    for name in DOMAINS:
        d = domain(name)
        out += [f"### `{name}`", "", "| question | verdicts | engines | certificates |",
                "|---|---|---|---|"]
        for q in d.spec.questions.values():
            certs = sorted(t for t, c in d.spec.certificates.items() if q.name in c.proves)
            out.append(f"| `{q.name}` | {' / '.join(q.verdicts)} | "
                       f"{', '.join(d.questions[q.name].engines)} | "
                       f"{', '.join(f'`{t}`' for t in certs)} |")
        out += ["", "| certificate | proves |", "|---|---|"]
        for t, c in d.spec.certificates.items():
            out.append(f"| `{t}` | {c.doc} |")
        out.append("")
    out += ["### Voting rules", "",
            "The rules of the `election` questions; those marked *incomplete* are the rules "
            "of the `preference` `winner` question (`prefcert.formal.rules`).", "",
            "| rule | ballot | incomplete | rule-specific certificates | definition |",
            "|---|---|---|---|---|"]
    for n, r in RULES.items():
        out.append(f"| `{n}` | {r.ballot} | {'yes' if r.supports_incomplete else 'no'} | "
                   f"{', '.join(f'`{p}`' for p in sorted(r.proofs))} | "
                   f"{r.doc.replace('|', chr(92) + '|')} |")
    out.append("")
    return "\n".join(out)


def render(text: str) -> str:
    head, rest = text.split(START)
    _, tail = rest.split(END)
    return f"{head}{START}\n{section()}{END}{tail}"


if __name__ == "__main__":
    text = DOC.read_text(encoding="utf-8")
    new = render(text)
    if "--check" in sys.argv:
        sys.exit(0 if new == text else 1)
    DOC.write_text(new, encoding="utf-8")
