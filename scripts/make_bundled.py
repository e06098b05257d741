"""Write the bundled instances under ``instances/`` (stable matching, housing markets,
house allocation; the PrefLib files in ``instances/preflib`` are copied as they are).

Run from the repository root::

    python scripts/make_bundled.py [--reference ../shared/data/reference] [--out instances/stable_matching]

Outputs (deterministic: rerunning rewrites identical files):

- ``reference.jsonl``: every reference file whose ``kind`` starts with ``stable_marriage``
  (strict, SMT and SMTI), as its ``design_md_instance`` with the three questions, sorted
  by id; ``SOURCES.md`` names each instance's source (the file's ``source`` text).
- ``generated-n10.jsonl``, ``generated-n30.jsonl``, ``generated-n100.jsonl``: SMTI markets
  from :func:`generators.stable_matching.sample_smti` with ties p = 0.2 and truncated lists, seeds
  listed in ``GENERATED`` below.
- ``generated-n1000.json``: one market with 1000 agents a side, complete lists, ties
  p = 0.2, seed 1000, written as compact JSON (no indentation).
- ``instances/housing_market/`` and ``instances/house_allocation/``: the reference files of
  those kinds, and markets from :func:`generators.housing_market.sample_housing_market` and
  :func:`generators.house_allocation.sample_house_allocation` (seeds in :func:`other_domains`).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from prefcert.generators.house_allocation import sample_house_allocation
from prefcert.generators.housing_market import sample_housing_market
from prefcert.generators.stable_matching import sample_smti

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


def other_domains() -> dict:
    """folder -> (reference kind prefix, questions, {file: [instance dicts]})."""
    return {
        "housing_market": ("housing_market", ["strict_core", "weak_core"], {
            "generated-n100.jsonl": [dict(sample_housing_market(100, seed=s, tie_prob=0.3),
                                          id=f"hm-n100-p0.3-s{s}") for s in (1, 2)],
            "generated-n1000.json": [dict(sample_housing_market(1000, seed=7, tie_prob=0.2),
                                          id="hm-n1000-p0.2-s7")]}),
        "house_allocation": ("house_allocation", None, {
            "generated-n30.jsonl": [sample_house_allocation(30, seed=s, tie_prob=0.2,
                                                            id=f"ha-n30-s{s}") for s in (1, 2)],
            "generated-n100.jsonl": [sample_house_allocation(100, seed=3, tie_prob=0.2,
                                                             id="ha-n100-s3")]}),
    }


def write_other_domains(ref_dir: Path, root: Path) -> None:
    """Bundled housing-market and house-allocation instances, with their SOURCES.md."""
    for folder, (kind, questions, generated) in other_domains().items():
        out = root / folder
        out.mkdir(parents=True, exist_ok=True)
        lines = [f"# Sources of the bundled {folder.replace('_', ' ')} instances", "",
                 "## Reference instances (`reference.jsonl`)", "",
                 f"From `shared/data/reference/*.json` (kinds `{kind}*`), field "
                 "`design_md_instance`; the source of each, verbatim:", ""]
        with open(out / "reference.jsonl", "w", encoding="utf-8") as fh:
            for f in sorted(ref_dir.glob("*.json")):
                data = json.loads(f.read_text(encoding="utf-8"))
                if str(data.get("kind", "")).startswith(kind):
                    inst = dict(data["design_md_instance"])
                    if questions:
                        inst["questions"] = questions
                    fh.write(json.dumps(inst, ensure_ascii=False) + "\n")
                    lines += [f"- `{inst['id']}`: {data['source']}", ""]
        lines += ["## Generated instances", "", "Written by `python scripts/make_bundled.py` "
                  "(parameters and seeds in `other_domains()` there); the project's licence (MIT).", ""]
        for name, insts in generated.items():
            with open(out / name, "w", encoding="utf-8") as fh:
                for inst in insts:
                    fh.write(json.dumps(inst, separators=(",", ":")) + "\n")
            lines.append(f"- `{name}`: {', '.join(i['id'] for i in insts)}")
        (out / "SOURCES.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


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
              "Produced by `python scripts/make_bundled.py` with "
              "`generators.stable_matching.sample_smti` (impartial culture via `prefsampling`, ties by "
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
    write_other_domains(args.reference, args.out.parent)
    print(f"wrote {len(refs)} reference and "
          f"{sum(len(GENERATED[n][3]) for n in GENERATED)} generated instances to {args.out}")


if __name__ == "__main__":
    main()
