"""Write the bundled stable-matching instances under ``instances/stable_matching/``.

Run from the repository root::

    python -m generators.make_bundled [--reference ../shared/data/reference] [--out instances/stable_matching]

Outputs (deterministic: rerunning rewrites identical files):

- ``reference.jsonl``: every reference file whose ``kind`` starts with ``stable_marriage``
  (strict, SMT and SMTI), as its ``design_md_instance`` with the three questions, sorted
  by id; ``SOURCES.md`` names each instance's source (the file's ``source`` text).
- ``generated-n10.jsonl``, ``generated-n30.jsonl``, ``generated-n100.jsonl``: SMTI markets
  from :func:`generators.smti.sample_smti` with ties p = 0.2 and truncated lists, seeds
  listed in ``GENERATED`` below.
- ``generated-n1000.json``: one market with 1000 agents a side, complete lists, ties
  p = 0.2, seed 1000, written as compact JSON (no indentation).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from generators.smti import sample_smti

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ["super_stable", "strongly_stable", "weakly_stable"]

# file name -> (n a side, tie probability, truncate, seeds)
GENERATED = {
    "generated-n10.jsonl": (10, 0.2, True, (1, 2, 3, 4, 5)),
    "generated-n30.jsonl": (30, 0.2, True, (31, 32, 33)),
    "generated-n100.jsonl": (100, 0.2, True, (101, 102)),
    "generated-n1000.json": (1000, 0.2, False, (1000,)),
}

LICENCE_NOTE = """\
## Licence note

The reference instances are a few preference lists each, restated as data from the
sources above (papers, a textbook, an encyclopedia article, and test fixtures of
open-source projects: `daffidwilde/matching` is MIT-licensed; `WPettersson/libstablematching`
and `IP-MATCH/pyhrtc` are GPL-3.0). No code is taken from those projects. Keep the
attribution above when you redistribute the instances. The generated instances are produced
by this project's own sampler and carry the project's licence (MIT).
"""


def reference_instances(ref_dir: Path) -> list[tuple[dict, str]]:
    """(design_md_instance + questions, source text) for every stable-marriage reference file."""
    out = []
    for f in sorted(ref_dir.glob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        if not str(data.get("kind", "")).startswith("stable_marriage"):
            continue
        inst = dict(data["design_md_instance"])
        inst["questions"] = list(QUESTIONS)
        out.append((inst, data["source"]))
    return sorted(out, key=lambda p: p[0]["id"])


def generated_instances(name: str) -> list[dict]:
    n, p, trunc, seeds = GENERATED[name]
    stem = name.rsplit(".", 1)[0]
    return [sample_smti(n, tie_prob=p, truncate=trunc, seed=s, id=f"{stem}-s{s}",
                        questions=QUESTIONS) for s in seeds]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reference", type=Path, default=ROOT.parent / "shared" / "data" / "reference")
    ap.add_argument("--out", type=Path, default=ROOT / "instances" / "stable_matching")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    refs = reference_instances(args.reference)
    with open(args.out / "reference.jsonl", "w", encoding="utf-8") as fh:
        for inst, _ in refs:
            fh.write(json.dumps(inst, ensure_ascii=False) + "\n")
    lines = ["# Sources of the bundled stable-matching instances", "",
             "## Reference instances (`reference.jsonl`)", "",
             "Taken from the project's reference set (`shared/data/reference/*.json`, kinds "
             "`stable_marriage*`), field `design_md_instance`; the source of each, verbatim:", ""]
    for inst, source in refs:
        lines += [f"- `{inst['id']}`: {source}", ""]
    lines += ["## Generated instances", "",
              "Produced by `python -m generators.make_bundled` with "
              "`generators.smti.sample_smti` (impartial culture via `prefsampling`, ties by "
              "merging adjacent items with probability p, optional truncation of each list to a "
              "length uniform in [⌊n/2⌋, n]):", "",
              "| file | n a side | ties p | truncated | seeds |", "|---|---|---|---|---|"]
    for name, (n, p, trunc, seeds) in GENERATED.items():
        lines.append(f"| `{name}` | {n} | {p} | {'yes' if trunc else 'no'} | "
                     f"{', '.join(map(str, seeds))} |")
    lines += ["", LICENCE_NOTE]
    (args.out / "SOURCES.md").write_text("\n".join(lines), encoding="utf-8")

    for name in GENERATED:
        insts = generated_instances(name)
        with open(args.out / name, "w", encoding="utf-8") as fh:
            if name.endswith(".jsonl"):
                for inst in insts:
                    fh.write(json.dumps(inst, separators=(",", ":")) + "\n")
            else:
                (inst,) = insts
                fh.write(json.dumps(inst, separators=(",", ":")) + "\n")
    print(f"wrote {len(refs)} reference and "
          f"{sum(len(GENERATED[n][3]) for n in GENERATED)} generated instances to {args.out}")


if __name__ == "__main__":
    main()
