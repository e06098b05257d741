"""``actionable-indeterminacy``: act, ask or relax (Li et al. 2026, "Ask, Relax, or Act?
Evaluating Actionable Indeterminacy in LLM Preference Reasoning"). 6,480 prompts.

**V3 common evaluation** (4,320 prompts): 4 structures (object allocation, meeting
scheduling, apartment choice, stable matching) × 3 sizes (n ∈ {4, 6, 8}: n agents and n
items; in stable matching n a side) × 3 generator seeds = 36 cells, 20 groups per cell;
a group is three matched pairs from one base (preference, objective, constraint), each an
ACT member and an intervention member (ASK-PREFERENCE, ASK-OBJECTIVE, RELAX) that differ
in one element. One row per (cell, source, role); task ``index`` of every row of a cell
comes from group ``index``. Original wording.

**H5 local-cue pairs** (2,160 prompts): 5 pairs per source per cell (540 pairs, 1,080
tasks) whose members agree on the source's surface cues (:mod:`prefcert.generators.
decision`), each shown twice: the original wording and the explicit JSON clause.

Every gold label is certified by the world-enumeration oracle and the CP-SAT encodings
(they must agree). A response is scored ``correct`` when fully correct (FC), ``incorrect``
when it parses but its decision or content is wrong, ``invalid`` when it does not parse.
Metrics (per design and wording, and per structure and source): Accuracy, FC, IFC, all-six
(V3), all-six FC, the unnecessary / missed / wrong-kind intervention rates, and the IFC
independence reference.

Readings: see :mod:`prefcert.formal.decision` (objectives, constraint families, the
``reading`` options) and :mod:`prefcert.bench.actionable.responses` (response shapes, the parser options).
Responses are read as bare JSON or one fenced JSON block (the completion route's bare-only
parser is ``ParseOptions(json="bare")``).
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache

from ...formal.spec import Convention
from ..design import Entry, RenderedPrompt, Row, Suite, Task, Verdict
from ..stats import proportion
from .results import results
from .responses import (
    GROUPS_PER_CELL,
    LOCAL_PAIRS_PER_SOURCE,
    SEEDS,
    SIZES,
    STRUCTURES,
    ParseOptions,
    design_group,
    design_local_pair,
    gold_response,
    judge_response,
    render_prompt,
    scores,
)

SOURCES = ("preference", "objective", "constraint")
ROLES = ("act", "intervention")
CONDITIONS = {"v3": ("original",), "h5": ("original", "explicit_json")}


def rows(sizes: Sequence[int]) -> list[Row]:
    out = []
    for design, per in (("v3", GROUPS_PER_CELL), ("h5", LOCAL_PAIRS_PER_SOURCE)):
        for structure in STRUCTURES:
            for size in sizes:
                for seed in SEEDS:
                    for source in SOURCES:
                        for role in ROLES:
                            out.append(Row({"design": design, "structure": structure,
                                            "size": size, "seed": seed, "source": source,
                                            "role": role},
                                           [{"format": c} for c in CONDITIONS[design]], per))
    return out


@lru_cache(maxsize=4096)
def _group(structure: str, size: int, seed: int, index: int, suite_seed: int) -> tuple:
    return tuple(design_group(structure, size, seed, index, seed=suite_seed))


@lru_cache(maxsize=4096)
def _pair(structure: str, size: int, seed: int, source: str, index: int,
          suite_seed: int) -> tuple:
    return tuple(design_local_pair(structure, size, seed, source, index, seed=suite_seed))


def shared_draw(row: Row, index: int) -> tuple:
    """The group (V3) or local-cue pair (H5) the task ``index`` of ``row`` is a member of:
    the draw :func:`sample` shares with the other rows' tasks of that index. O(1)."""
    f = row.factors
    if f["design"] == "v3":
        return ("v3", f["structure"], f["size"], f["seed"], index)
    return (f["design"], f["structure"], f["size"], f["seed"], f["source"], index)


def sample(row: Row, index: int, ctx) -> Task:
    f = row.factors
    if f["design"] == "v3":
        members = _group(f["structure"], f["size"], f["seed"], index, ctx.suite_seed)
    else:
        members = _pair(f["structure"], f["size"], f["seed"], f["source"], index,
                        ctx.suite_seed)
    (d,) = [m for m in members if m["meta"]["source"] == f["source"]
            and m["meta"]["role"] == f["role"]]
    # bases drawn per accepted group (V3) or pair (H5), counted once per group / pair
    if f["role"] == "act" and (f["design"] == "h5" or f["source"] == "preference"):
        tag = {k: f[k] for k in ("design", "structure", "size")}
        if f["design"] == "h5":
            tag["source"] = f["source"]
        ctx.draw(tag, d["meta"]["draws"])
        ctx.accept(tag)
    return Task([d], [(d["id"], "decision")],
                {"question": "decision", **d["meta"], **matching_repair(ctx)})


def matching_repair(ctx) -> dict:
    """The payload field of the ``matching_repair`` reading: ``{"matching_repair":
    "stored"}`` under the paper's stable-matching RELAX checker, nothing under the default
    (so default prompts keep their bytes)."""
    choice = getattr(ctx, "readings", {}).get("matching_repair", "any_minimum")
    return {"matching_repair": "stored"} if choice == "stored" else {}


def render(task: Task, variant: dict, ctx) -> RenderedPrompt:
    return RenderedPrompt(render_prompt(task.instances[0], variant["format"]), "decision")


def _label(labels: Sequence[dict]) -> dict:
    (lab,) = labels
    return lab


def gold(task: Task, variant: dict, labels: Sequence[dict], rendered: RenderedPrompt) -> str:
    from ...formal.decision import INTERVENTION
    lab = _label(labels)
    meta = task.payload
    want = "act" if meta["role"] == "act" else INTERVENTION[meta["source"]]
    if lab["verdict"] != want:
        raise RuntimeError(f"{task.instances[0]['id']}: the sampler expected {want}, the "
                           f"certified label says {lab['verdict']}")
    # the label's solution is the answer: no parse of the (already labelled) instance
    return json.dumps(gold_response(None, lab))


def score(prompt: dict, answer: str | None, entry: Entry) -> Verdict:
    t = prompt["task"]
    fmt = prompt["cell"]["format"]
    extra = {"design": t["design"], "structure": t["structure"], "size": t["size"],
             "source": t["source"], "role": t["role"], "format": fmt,
             "pair": f"{t['pair']}/{fmt}",
             "group": None if t.get("group") is None else f"{t['group']}/{fmt}",
             "cell_id": t["cell"]}
    lab = _label(entry.labels)
    extra["gold"] = lab["verdict"]
    if answer is None:
        return Verdict("timeout", None, "no answer",
                       {**extra, "decision": None, "decision_correct": False, "fc": False,
                        "parsed_ok": False, "error": "timeout"})
    j = judge_response(entry.model(prompt["instance_id"]), lab, answer,
                       ParseOptions(parse=getattr(entry, "parse", "lenient"),
                                    stored_repair=t.get("matching_repair") == "stored"))
    extra.update(decision=j["decision"], decision_correct=j["decision_correct"], fc=j["fc"],
                 parsed_ok=j["parsed"], error=j["error"])
    verdict = "correct" if j["fc"] else "ambiguous" if j["ambiguous"] else \
        "invalid" if not j["parsed"] else "incorrect"
    if j["ambiguous"]:
        extra["rule"] = j["ambiguous"]
    return Verdict(verdict, j["reading"], j["reason"], extra)


def _records(scored: Sequence[dict]) -> list[dict]:
    return [{"decision_correct": s["decision_correct"], "fc": s["fc"], "gold": s["gold"],
             "decision": s["decision"], "parsed": s["parsed_ok"], "pair": s["pair"],
             "group": s["group"], "cell": s["cell_id"], "source": s["source"]}
            for s in scored]


def _rows(group: dict, scored: Sequence[dict]) -> list[dict]:
    s = scores(_records(scored))
    out = [proportion("accuracy", group, s["correct_decisions"], s["tasks"]),
           proportion("fc", group, s["fully_correct"], s["tasks"]),
           proportion("unnecessary_intervention", group, s["unnecessary"], s["act_gold"]),
           proportion("missed_intervention", group, s["missed"], s["intervention_gold"]),
           proportion("wrong_kind_intervention", group, s["wrong_kind"],
                      s["intervention_gold"])]
    # rows that are not shares carry no ``k`` (a report prints ``k/n`` only for a share, and
    # ``n=…`` otherwise: a ``k`` of None printed as "None/2160")
    for what in ("pairs", "groups"):            # left out of IFC / all-six: a member unanswered
        if s[f"incomplete_{what}"]:
            out.append({"metric": f"incomplete_{what}", "group": dict(group),
                        "n": s[f"incomplete_{what}"], "value": None, "low": None,
                        "high": None})
    if s["pairs"]:
        out.append(proportion("ifc", group, s["ifc_pairs"], s["pairs"]))
        out.append({"metric": "ifc_reference", "group": dict(group), "n": s["pairs"],
                    "value": s["ifc_reference"], "low": None, "high": None})
    if s["groups"]:
        out.append(proportion("all_six", group, s["all_six_groups"], s["groups"]))
        out.append(proportion("all_six_fc", group, s["all_six_fc_groups"], s["groups"]))
    return out


def metrics(scored: Sequence[dict]) -> list[dict]:
    """Per design and wording: every score of :func:`prefcert.bench.actionable.responses.scores`; then
    Accuracy, FC and IFC per structure and per source (pairs are complete within each)."""
    out = []
    by: dict[tuple, list] = {}
    for s in scored:
        by.setdefault((s["design"], s["format"]), []).append(s)
    for (design, fmt), ss in by.items():
        out += _rows({"design": design, "format": fmt}, ss)
        for key in ("structure", "source"):
            for level in dict.fromkeys(s[key] for s in ss):
                sub = [s for s in ss if s[key] == level]
                out += [r for r in _rows({"design": design, "format": fmt, key: level}, sub)
                        if r["metric"] in ("accuracy", "fc", "ifc")]
    return out


def _preload() -> None:
    """Import what the draws and the labels of this suite load — the samplers
    (prefsampling, numpy), the oracle, the domain's checker and the labelling pipeline —
    in this process, the suite's ``preload`` hook: ``generate`` calls it before it forks
    its sampling and labelling workers, which then share these modules instead of each
    importing them again (four workers with ``--jobs 2``). Not the CP-SAT encodings:
    OR-Tools imports pandas, about 45 MB more in this process, which holds every task and
    label (the run's peak); the labelling workers import it. What is loaded is frozen
    (``gc.freeze``): the workers' collections never walk it. O(1) after the first call."""
    import gc

    from ...generators import decision as _draws  # noqa: F401
    from ...oracles import decision as _oracle  # noqa: F401
    from ...pipeline import jobs  # noqa: F401
    from ...pipeline.registry import domain, spec
    domain("decision")
    spec("decision")
    gc.freeze()


READINGS = {"matching_repair": Convention("matching_repair", ("any_minimum", "stored"), {
    "any_minimum": "a stable-matching RELAX answer is fully correct with any minimum "
                   "repair (tight thresholds) and an action accepted after it",
    "stored": "only the label's stored repair and action are accepted (the paper's "
              "stable-matching checker, Li et al. 2026 §F), so FC is comparable with the "
              "paper's"})}

SUITE = Suite(
    name="actionable-indeterminacy",
    description=("Act, ask or relax (Li et al. 2026): object allocation, meeting scheduling, "
                 "apartment choice and stable matching with exactly one source of "
                 "uncertainty (a hidden comparison, an objective menu, infeasible "
                 "constraints); V3 groups of six matched tasks and H5 local-cue pairs in "
                 "two wordings. Gold labels certified by world enumeration and CP-SAT."),
    sizes=SIZES,
    per_cell=GROUPS_PER_CELL,
    seed=0,
    rows=rows,
    sample=sample,
    render=render,
    gold=gold,
    score=score,
    metrics=metrics,
    results=results,
    readings=READINGS,
    expected_total=4 * 3 * 3 * (20 * 6 + 5 * 3 * 2 * 2),
    engines=("oracle", "cpsat"),
    citation=('Li, A. et al. (2026). '
             '"Ask, relax, or act? Evaluating actionable indeterminacy in LLM preference reasoning".'
             ' arXiv:2610.03102.'),
    shared_draw=shared_draw,
    preload=_preload,
)
