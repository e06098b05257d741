"""Write the bundled ``consistency`` instances under ``instances/consistency/``.

Run from the repository root::

    python scripts/make_consistency.py

Outputs (deterministic: rerunning rewrites identical files):

- ``synthetic-wtp.jsonl``: six audit groups (model, domain, utterance 1) of a synthetic
  willingness-to-pay audit on the paper's design (Ford et al. 2026: flights, apartments,
  hotels), five completions per cell, from :func:`prefcert.generators.consistency.paper_design`
  (seed 0) and ``simulate_responses`` (seed 0): model ``coherent`` answers the true
  quasi-linear utilities with noise (sd $15); model ``distorted`` adds a per-cell offset
  (sd $60) and a $25 bias on every offer-pair answer. Default questions: the minimum L1 and
  L2 repairs.
- ``synthetic-choices.jsonl``: repeated pairwise choices over 12 items (a hidden order, each
  choice flipped with probability 0.3; ``simulate_choices`` seed 5). Default questions:
  transitivity and the minimum feedback arc set.
"""
from __future__ import annotations

import json
from pathlib import Path

from prefcert.generators.consistency import (
    paper_design,
    simulate_choices,
    simulate_responses,
)

from prefcert import consistency_audit

OUT = Path(__file__).resolve().parents[1] / "instances" / "consistency"
MODELS = {"coherent": {"noise": 15},
          "distorted": {"noise": 15, "distortion": 60, "step_bias": 25}}


def wtp_groups() -> list[dict]:
    design = paper_design(seed=0)
    sim = simulate_responses(design, MODELS, completions=5, seed=0)
    rows = [{"model": r["model"], "cell_id": r["cell_id"], "value": r["parsed_value"],
             "number_only": r["number_only"]} for r in sim]
    audit = consistency_audit(rows, design, resamples=200)
    return [i for i in audit["instances"] if i["id"].endswith("|1")]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with (OUT / "synthetic-wtp.jsonl").open("w", encoding="utf-8") as f:
        for inst in wtp_groups():
            f.write(json.dumps(inst) + "\n")
    items = [f"i{k:02d}" for k in range(1, 13)]
    choices = {"id": "choices-12-items", "domain": "consistency",
               "choices": simulate_choices(items, pairs=66, repeats=3, flip=0.3, seed=5)}
    (OUT / "synthetic-choices.jsonl").write_text(json.dumps(choices) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
