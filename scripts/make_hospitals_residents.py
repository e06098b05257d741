"""Write the bundled hospitals/residents instances under ``instances/hospitals_residents/``.

Run from the repository root::

    python scripts/make_hospitals_residents.py [--reference ../shared/data/reference]

Outputs (deterministic):

- ``reference.jsonl``: every reference file of kind ``hospitals_residents`` (lists and
  capacities converted to this project's format), then the constructed instances of
  ``CONSTRUCTED`` below; ``SOURCES.md`` names each one's source.
- ``generated-n20.jsonl``, ``generated-n200.jsonl``: markets from
  :func:`prefcert.generators.hospitals_residents.sample_hr` (parameters in ``GENERATED``).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from prefcert.generators.hospitals_residents import sample_hr

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ["super_stable", "strongly_stable", "weakly_stable"]

# file name -> (residents, hospitals, cap_min, cap_max, tie probability, truncate, seeds)
GENERATED = {
    "generated-n20.jsonl": (20, 6, 0, 4, 0.3, True, (1, 2, 3, 4)),
    "generated-n200.jsonl": (200, 40, 1, 8, 0.2, True, (21, 22)),
}


def _hr(iid, residents, hospitals, capacities):
    return {"id": iid, "domain": "hospitals_residents",
            "preferences": {"residents": residents, "hospitals": hospitals},
            "capacities": capacities, "questions": QUESTIONS}


#: (instance, source) of instances constructed for this project; answers by brute force
CONSTRUCTED = [
    (_hr("hr_one_post_two_tied_applicants",
         {"r1": ["h1"], "r2": ["h1"]}, {"h1": [["r1", "r2"]]}, {"h1": 1}),
     "Constructed: one post, two applicants the hospital is indifferent between. The "
     "unassigned applicant strictly prefers the hospital, which is indifferent: neither a "
     "super- nor a strongly stable matching exists (the HR form of Irving 1994's "
     "observation for SMT); with capacity 2 both would exist."),
    (_hr("hr_tied_posts_super_none_strong_exists",
         {"r1": [["h1", "h2"]], "r2": [["h1", "h2"]]},
         {"h1": [["r1", "r2"]], "h2": [["r1", "r2"]]}, {"h1": 1, "h2": 1}),
     "Constructed: everyone indifferent, one post each. Every perfect matching is strongly "
     "stable and none is super-stable (any unmatched indifferent pair blocks), as in Irving, "
     "Manlove & Scott 2000."),
    (_hr("hr_capacity_zero_and_one_sided_entries",
         {"r1": ["h1", "h2", "h3"], "r2": ["h2", "h1"], "r3": ["h1"]},
         {"h1": ["r2", "r1"], "h2": ["r1", "r2", "r3"], "h3": ["r1"]},
         {"h1": 1, "h2": 1, "h3": 0}),
     "Constructed: h3 has capacity 0 (it takes nobody and never blocks); r3 lists h1, which "
     "does not list r3, and h2 lists r3, who does not list h2: both one-sided entries are "
     "dropped. Strict lists, so the three notions coincide."),
    (_hr("hr_ims2003_slides_hrt_example",
         {"r1": [["h2", "h3"], "h1"], "r2": ["h2", "h1"], "r3": ["h3", "h2", "h1"],
          "r4": ["h2", "h3"], "r5": ["h2", ["h1", "h3"]], "r6": ["h3"]},
         {"h1": ["r2", ["r1", "r3"], "r5"], "h2": ["r3", "r2", ["r1", "r4", "r5"]],
          "h3": [["r4", "r5"], ["r1", "r3"], "r6"]},
         {"h1": 3, "h2": 2, "h3": 1}),
     "The HRT example of the talk 'Strong stability in the hospitals/residents problem' by "
     "R. W. Irving, D. F. Manlove and S. Scott (STACS 2003), lists as restated from the "
     "slides; the answers were computed by us by brute force."),
]


def reference_instances(ref_dir: Path) -> list[tuple[dict, str]]:
    """(instance, source text) for every hospitals/residents reference file."""
    out = []
    for f in sorted(ref_dir.glob("*.json")):
        data = json.loads(f.read_text(encoding="utf-8"))
        if data.get("kind") != "hospitals_residents":
            continue
        prefs = data["preferences"]
        out.append((_hr(data["id"], prefs["residents"], prefs["hospitals"],
                        prefs["capacities"]), data["source"]))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", type=Path, default=ROOT.parent / "shared" / "data" / "reference")
    ap.add_argument("--out", type=Path, default=ROOT / "instances" / "hospitals_residents")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    refs = reference_instances(args.reference) + CONSTRUCTED
    with (args.out / "reference.jsonl").open("w", encoding="utf-8") as f:
        for inst, _ in refs:
            f.write(json.dumps(inst, separators=(",", ":")) + "\n")
    rows = []
    for name, (nr, nh, lo, hi, p, trunc, seeds) in GENERATED.items():
        with (args.out / name).open("w", encoding="utf-8") as f:
            for s in seeds:
                inst = sample_hr(nr, nh, cap_min=lo, cap_max=hi, tie_prob=p, truncate=trunc,
                                 seed=s, id=f"hr-generated-n{nr}-s{s}")
                f.write(json.dumps(inst, separators=(",", ":")) + "\n")
        rows.append(f"| `{name}` | {nr} | {nh} | {lo}–{hi} | {p} | {'yes' if trunc else 'no'} "
                    f"| {', '.join(map(str, seeds))} |")
    lines = ["# Sources of the bundled hospitals/residents instances", "",
             "## Reference and constructed instances (`reference.jsonl`)", "",
             "Reference files of kind `hospitals_residents` from the project's reference set "
             "(lists and capacities converted), then instances constructed for this project. "
             "The source of each, verbatim:", ""]
    lines += [f"- `{inst['id']}`: {src}\n" for inst, src in refs]
    lines += ["## Generated instances", "",
              "Produced by `python scripts/make_hospitals_residents.py` with "
              "`generators.hospitals_residents.sample_hr` (impartial culture via `prefsampling`, ties by "
              "merging adjacent items with probability p, truncated lists, uniform capacities):",
              "", "| file | residents | hospitals | capacities | ties p | truncated | seeds |",
              "|---|---|---|---|---|---|---|", *rows, "",
              "## Licence note", "",
              "The two reference instances are preference lists restated as data from test "
              "fixtures of `daffidwilde/matching` (MIT); no code is taken from it. The rest is "
              "this project's own (MIT).", ""]
    (args.out / "SOURCES.md").write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
