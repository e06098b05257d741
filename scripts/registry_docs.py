"""Write the generated sections of docs/architecture.md from prefcert's registry: where each
domain lives in every layer, which domains provide each hook, and the registry itself
(domains, questions, verdicts, engines, certificate types; the voting rules). Run from the
repository root::

    python scripts/registry_docs.py          # rewrite the section
    python scripts/registry_docs.py --check  # exit 1 if it is out of date
"""
from __future__ import annotations

import sys
from pathlib import Path

from prefcert.formal.rules import RULES
from prefcert.pipeline.registry import DOMAINS, domain

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
LAYERS = [("model", "formal/{}.py"), ("checker", "formal/checker/{}.py"),
          ("oracles", "oracles/{}.py"), ("encodings", "encodings/{}.py"),
          ("samplers", "generators/{}.py"), ("wiring and hooks", "prefcert/domains/{}.py"),
          ("public API", "prefcert/api/{}.py")]
HOOKS = [("shrinker", "`Shrinker`: the lists, removable agents, `keep_agents`, extra "
                      "reductions, the agent count of the size measure",
          "disagreement reports (`attach_minimized`; a domain without one is reported "
          "\"not minimised\" with its reason), minimal counterexamples"),
         ("space", "`Space`: splits, raw size, enumeration up to isomorphism, uniform "
                   "sampler, membership", "`prefcert counterexample`"),
         ("peers", "`PeerAdapter`: how a peer's answer is judged, the domain's random audit "
                   "instances", "`prefcert audit-library`"),
         ("properties", "a function building the built-in counterexample `Property` table",
          "`prefcert counterexample`")]


def layers() -> str:
    """The table of each domain's module in every layer (a missing module shows as —;
    modules named after the domain with a suffix are listed beside it)."""
    out = ["| domain | " + " | ".join(n for n, _ in LAYERS) + " |",
           "|---|" + "---|" * len(LAYERS)]
    for name in DOMAINS:
        cells = []
        for _, pattern in LAYERS:
            path = pattern.format(name)
            extra = sorted(f.name for f in (ROOT / path).parent.glob(f"{name}_*.py"))
            cell = f"`{path}`" if (ROOT / path).is_file() else "—"
            cells.append(cell + (f" (+ {', '.join(f'`{e}`' for e in extra)})" if extra else ""))
        out.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def hooks() -> str:
    """The hooks table, with the domains that provide each hook."""
    from prefcert.domains.base import Absent
    out = ["| hook | type (`prefcert/domains/base.py`) | used by | provided by |",
           "|---|---|---|---|"]
    for hook, kind, used in HOOKS:
        have = [f"`{n}`" for n in DOMAINS if not isinstance(getattr(domain(n), hook), Absent)]
        out.append(f"| `{hook}` | {kind} | {used} | {', '.join(have) or 'none'} |")
    return "\n".join(out) + "\n"


def section() -> str:
    out = []
    for name in DOMAINS:
        d = domain(name)
        out += [f"### `{name}`", "",
                "| question | verdicts | solution (per verdict) | engines | certificates |",
                "|---|---|---|---|---|"]
        for q in d.spec.questions.values():
            certs = sorted(t for t, c in d.spec.certificates.items() if q.name in c.proves)
            shapes = "; ".join(f"{v}: {q.solutions[v].describe()}" for v in q.verdicts)
            out.append(f"| `{q.name}` | {' / '.join(q.verdicts)} | {shapes} | "
                       f"{', '.join(d.questions[q.name].engines)} | "
                       f"{', '.join(f'`{t}`' for t in certs)} |")
        out += ["", "| certificate | proves |", "|---|---|"]
        for t, c in d.spec.certificates.items():
            out.append(f"| `{t}` | {' '.join(c.doc.split())} |")
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


def _fill(text: str, name: str, body: str) -> str:
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    head, rest = text.split(start)
    _, tail = rest.split(end)
    return f"{head}{start}\n{body}{end}{tail}"


def render(text: str) -> str:
    for name, body in (("layers", layers()), ("hooks", hooks()), ("registry", section())):
        text = _fill(text, name, body)
    return text


if __name__ == "__main__":
    text = DOC.read_text(encoding="utf-8")
    new = render(text)
    if "--check" in sys.argv:
        sys.exit(0 if new == text else 1)
    DOC.write_text(new, encoding="utf-8")
