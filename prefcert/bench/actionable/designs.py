"""The further designs of Li et al. (2026, "Ask, Relax, or Act?") as suites of their own,
sharing the instances, checker and scores of ``actionable-indeterminacy``
(:mod:`.suite`):

- ``actionable-indeterminacy-h2`` — the response-requirement study (§5, Table 1, App. E):
  10 groups per cell (36 cells: 4 structures × n ∈ {4, 6, 8} × 3 generator seeds), 360
  groups, 2,160 tasks, each shown in three wordings — ``original``, ``explicit_json`` (the
  explicit output clause) and ``explicit_json_evidence`` (that clause plus a request for
  task-derived witnesses, :mod:`.evidence`) — 6,480 prompts. Evidence is judged apart from
  FC (``evidence_valid``).
- ``actionable-indeterminacy-wording`` — neutral wording vs an intervention reminder
  (App. K.2, §N.2): the first 5 H2 groups of every cell (180 groups, 1,080 tasks) on the
  explicit-JSON prompt, with a neutral closing sentence (``neutral``) or a reminder to
  intervene only when no action is acceptable in every admissible case (``reminder``);
  2,160 prompts, 1,080 per condition.

- ``actionable-indeterminacy-balanced`` — the V3 design (20 groups per cell, 4,320 prompts,
  original wording) with its surface cues balanced across gold decisions (issue 23): the
  objective pairs' members both show three rules, the constraint pairs' members the same
  number of constraints (:func:`prefcert.generators.decision.objective_pair_balanced`,
  :func:`~prefcert.generators.decision.constraint_pair_balanced`), and every member of a
  group has its structure's tie status (:data:`~prefcert.generators.decision.
  BALANCED_TIES`: allocation tasks always tie, the others never; a tie as
  :func:`~prefcert.generators.decision.has_tie` reads it), so the share of tied tasks is the
  same for every gold decision.

The three are declared once, in :data:`DESIGNS` (tag, group builder, groups per cell,
wordings, description); the prompt total of each is 36 cells × groups × 6 × wordings.

The H2 groups are drawn by the V3 generator from their own seeds (design tag ``h2``), so
they are not V3 groups; the wording suite's tasks are H2 groups 0–4 of each cell (the same
instances, ids and labels).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..design import Entry, RenderedPrompt, Row, Suite, Task, Verdict
from ..stats import proportion
from . import suite as base
from .evidence import extract_evidence, gold_evidence, judge_evidence
from .responses import SEEDS, SIZES, STRUCTURES, design_group, render_prompt

H2_GROUPS_PER_CELL = 10
K_GROUPS_PER_CELL = 5
H2_FORMATS = ("original", "explicit_json", "explicit_json_evidence")
WORDING_FORMATS = ("neutral", "reminder")

#: the closing sentences of App. K.2 (our wording): appended to the explicit-JSON prompt
CLOSINGS = {
    "neutral": "Read the task carefully and give your answer in the format above.",
    "reminder": "Keep in mind that asking or relaxing is a cost to the user: intervene only "
                "when no choice is acceptable in every admissible case; when some choice "
                "is, act with it.",
}

EVIDENCE_CLAUSE = [
    "Also include a field evidence: an object of facts taken from this task that support "
    "your decision (they are checked against the task):",
    '- unknown_comparison: {"agent": name, "items": [the two options]} — the comparison '
    "whose order is not reported, if a ranking has one; otherwise null.",
    "- conflicting_objectives: [admissible rules whose sets of optimal choices have no "
    "choice in common] when that is why you ask which rule is meant; otherwise null.",
    "- infeasible_constraints: [ids of hard constraints that cannot all be met together] "
    "when that is why you relax; otherwise null.",
]


def render_text(d: dict, fmt: str) -> str:
    """The prompt of instance ``d`` in wording ``fmt`` (one of :data:`H2_FORMATS` or
    :data:`WORDING_FORMATS`): the suite's original or explicit-JSON prompt, plus the
    evidence clause or a closing sentence. O(size of the task)."""
    if fmt in ("original", "explicit_json"):
        return render_prompt(d, fmt)
    text = render_prompt(d, "explicit_json")
    if fmt == "explicit_json_evidence":
        return text + "\n" + "\n".join(EVIDENCE_CLAUSE)
    if fmt in CLOSINGS:
        return text + "\n" + CLOSINGS[fmt]
    raise ValueError(f"unknown wording {fmt!r}")


def _rows(design: str, per: int, formats: Sequence[str]):
    def rows(sizes: Sequence[int]) -> list[Row]:
        return [Row({"design": design, "structure": st, "size": n, "seed": sd,
                     "source": src, "role": role}, [{"format": f} for f in formats], per)
                for st in STRUCTURES for n in sizes for sd in SEEDS
                for src in base.SOURCES for role in base.ROLES]
    return rows


@lru_cache(maxsize=4096)
def h2_group(structure: str, size: int, seed: int, index: int, suite_seed: int) -> tuple:
    """The six instance dicts of H2 group ``index`` of a cell (cached)."""
    return tuple(design_group(structure, size, seed, index, seed=suite_seed, design="h2"))


@lru_cache(maxsize=4096)
def balanced_group(structure: str, size: int, seed: int, index: int, suite_seed: int
                   ) -> tuple:
    """The six instance dicts of cue-balanced group ``index`` of a cell (cached)."""
    return tuple(design_group(structure, size, seed, index, seed=suite_seed, design="v3b",
                              balanced=True))


def shared_draw(row: Row, index: int) -> tuple:
    """The group the task ``index`` of ``row`` is a member of (its six tasks are one draw,
    so ``--jobs`` keeps them in one process). O(1)."""
    f = row.factors
    return (f["design"], f["structure"], f["size"], f["seed"], index)


def sample(row: Row, index: int, ctx) -> Task:
    """One task of an H2 group (row design ``h2`` or ``k2``) or of a cue-balanced group
    (``v3b``); the bases drawn are counted once per group. O(one group)."""
    f = row.factors
    make = DESIGNS[f["design"]].group
    members = make(f["structure"], f["size"], f["seed"], index, ctx.suite_seed)
    (d,) = [m for m in members if m["meta"]["source"] == f["source"]
            and m["meta"]["role"] == f["role"]]
    if f["role"] == "act" and f["source"] == "preference":
        tag = {k: f[k] for k in ("design", "structure", "size")}
        ctx.draw(tag, d["meta"]["draws"])
        ctx.accept(tag)
    return Task([d], [(d["id"], "decision")],
                {"question": "decision", **d["meta"], "design": f["design"],
                 **base.matching_repair(ctx)})


def render(task: Task, variant: dict, ctx) -> RenderedPrompt:
    return RenderedPrompt(render_text(task.instances[0], variant["format"]), "decision")


def gold(task: Task, variant: dict, labels, rendered: RenderedPrompt) -> str:
    """The gold response (checked against the certified label by :func:`.suite.gold`),
    with a valid evidence object in the evidence wording (checked by
    :func:`.evidence.judge_evidence`)."""
    from ...formal.decision import parse_decision
    text = base.gold(task, variant, labels, rendered)
    if variant["format"] != "explicit_json_evidence":
        return text
    (lab,) = labels
    model = parse_decision(task.instances[0])
    ev = gold_evidence(model, lab)
    ok, why = judge_evidence(model, lab, ev)
    if not ok:
        raise RuntimeError(f"{task.instances[0]['id']}: the gold evidence fails: {why}")
    return json.dumps({**json.loads(text), "evidence": ev})


def score(prompt: dict, answer: str | None, entry: Entry) -> Verdict:
    """The suite's FC verdict; in the evidence wording also ``evidence_valid`` (judged
    apart: it never changes the verdict) and ``evidence_reason``."""
    v = base.score(prompt, answer, entry)
    if prompt["cell"]["format"] != "explicit_json_evidence":
        return v
    extra = dict(v.extra)
    if answer is None or not extra.get("parsed_ok"):
        extra.update(evidence_valid=False, evidence_reason="the response does not parse")
    else:
        (lab,) = entry.labels
        ok, why = judge_evidence(entry.model(prompt["instance_id"]), lab,
                                 extract_evidence(answer))
        extra.update(evidence_valid=ok, evidence_reason=why)
    return Verdict(v.verdict, v.parsed, v.reason, extra)


def metrics(scored: Sequence[dict]) -> list[dict]:
    """The suite's metrics (:func:`.suite.metrics`), plus the evidence pass rate per design
    and wording, and per source, where evidence was asked for."""
    out = base.metrics(scored)
    ev = [s for s in scored if "evidence_valid" in s]
    by: dict[tuple, list] = {}
    for s in ev:
        by.setdefault((s["design"], s["format"]), []).append(s)
    for (design, fmt), ss in by.items():
        g = {"design": design, "format": fmt}
        out.append(proportion("evidence_valid", g, sum(bool(s["evidence_valid"]) for s in ss),
                              len(ss)))
        for src in dict.fromkeys(s["source"] for s in ss):
            sub = [s for s in ss if s["source"] == src]
            out.append(proportion("evidence_valid", {**g, "source": src},
                                  sum(bool(s["evidence_valid"]) for s in sub), len(sub)))
    return out


CITATION = base.SUITE.citation


@dataclass(frozen=True)
class Design:
    """One suite of this module: the row design tag, the group builder (H2 groups or
    cue-balanced ones), groups per cell, wordings and the description. The prompt total is
    36 cells × groups × 6 tasks × wordings."""

    name: str
    tag: str
    group: Callable[[str, int, int, int, int], tuple]
    per_cell: int
    formats: tuple[str, ...]
    description: str


#: the three suites, declared once (tag -> design)
DESIGNS = {d.tag: d for d in (
    Design("actionable-indeterminacy-h2", "h2", h2_group, H2_GROUPS_PER_CELL, H2_FORMATS,
           "Li et al. 2026, H2 response requirements (§5, Table 1): 10 groups of six "
           "matched tasks per cell in the original wording, the explicit JSON clause and the "
           "explicit clause plus task-derived evidence (checked apart from FC)."),
    Design("actionable-indeterminacy-wording", "k2", h2_group, K_GROUPS_PER_CELL,
           WORDING_FORMATS,
           "Li et al. 2026, App. K.2: the first 5 H2 groups of every cell on the "
           "explicit-JSON prompt, closed by a neutral sentence or by an intervention "
           "reminder."),
    Design("actionable-indeterminacy-balanced", "v3b", balanced_group, 20, ("original",),
           "Li et al. 2026, V3 design with the surface cues balanced: ASK-OBJECTIVE and ACT "
           "members show three rules each, RELAX and ACT members the same number of "
           "constraints, ties as often for every gold decision (20 groups per cell, "
           "original wording)."),
)}


def _suite(d: Design) -> Suite:
    return Suite(
        name=d.name, description=d.description, sizes=SIZES, per_cell=d.per_cell, seed=0,
        rows=_rows(d.tag, d.per_cell, d.formats),
        sample=sample, render=render, gold=gold, score=score, metrics=metrics,
        results=base.results, readings=base.READINGS, shared_draw=shared_draw,
        expected_total=36 * d.per_cell * 6 * len(d.formats),
        engines=("oracle", "cpsat"), citation=CITATION,
    )


H2, WORDING, BALANCED = (_suite(DESIGNS[t]) for t in ("h2", "k2", "v3b"))
