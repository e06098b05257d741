"""The Inspect scorer: prefcert's verdict on the model's last answer, through
:func:`prefcert.bench.score.score_prompt` (the same code as ``prefcert score``: the
suite's reader for the prompt's answer shape and its certificate-backed verdict). The
Score's value is ``C`` for a correct answer and ``I`` otherwise; its ``answer`` the parsed
answer, its ``explanation`` the checker-backed reason, its ``metadata`` the whole scored
record (``verdict``, ``parsed``, ``reason`` and the suite's fields, including a reader's
rule when it reports one), plus the refinement rounds when there were several.
"""
from __future__ import annotations

import json
from typing import Any

from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    SampleScore,
    Score,
    Target,
    accuracy,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from ..design import Entry

#: the store key of the refinement rounds (:mod:`.solver`)
ROUNDS = "prefcert_rounds"


def answer_of(state: TaskState) -> str | None:
    """The model's last answer; None (a timeout) when the model gave no output."""
    out = state.output
    if out is None or (not out.choices and out.error) or (out.empty and out.error):
        return None
    return out.completion


def _text(x: Any) -> str | None:
    if x is None or isinstance(x, str):
        return x
    return json.dumps(x, ensure_ascii=False, default=str)


def score_state(state: TaskState) -> dict:
    """The scored record of a sample's last answer (``prefcert score``'s record); after
    refinement rounds the entry's ``history`` holds the earlier answers, as in the solver."""
    from ..score import score_prompt
    meta = state.metadata
    rounds = state.store.get(ROUNDS) or []
    return score_prompt(meta, answer_of(state), Entry(meta["labels"], meta["instances"],
                        history=[r["answer"] for r in rounds[:-1]]))


@metric
def suite_metrics():
    """The suite's own metrics (its ``metrics`` hook: MDR / OMR / FMR, FC / IFC, the
    E / NE splits, …) over the scored records, each metric at its coarsest grouping,
    named ``metric[factor=level,…]``."""
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        from ..score import metrics
        recs = [s.score.metadata for s in scores
                if s.score.metadata and "suite" in s.score.metadata]
        return headline(metrics(recs)) if recs else {}
    return compute


def headline(rows: list[dict]) -> dict[str, float]:
    """Metric rows reduced to a flat dict: for each metric the rows of its coarsest
    grouping (fewest factors), keyed ``metric`` or ``metric[factor=level,…]``."""
    def groups(r):
        return {k: v for k, v in r["group"].items() if v is not None and k != "suite"}
    out: dict[str, float] = {}
    fewest: dict[str, int] = {}
    for r in rows:
        if r.get("value") is not None:
            fewest[r["metric"]] = min(fewest.get(r["metric"], 99), len(groups(r)))
    for r in rows:
        g = groups(r)
        if r.get("value") is None or len(g) != fewest[r["metric"]]:
            continue
        key = r["metric"] + (f"[{','.join(f'{k}={v}' for k, v in g.items())}]" if g else "")
        out[key] = float(r["value"])
    return out


@scorer(metrics=[accuracy(), stderr(), suite_metrics()])
def prefcert_scorer():
    """prefcert's certified verdict on the last answer (see the module docstring)."""
    async def score(state: TaskState, target: Target) -> Score:
        rec = score_state(state)
        rounds = state.store.get(ROUNDS)
        if rounds:
            rec["rounds"] = rounds
        return Score(value=CORRECT if rec["verdict"] == "correct" else INCORRECT,
                     answer=_text(rec.get("parsed")), explanation=_text(rec.get("reason")),
                     metadata=json.loads(json.dumps(rec, default=str)))
    return score
