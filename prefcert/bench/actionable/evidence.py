"""The evidence condition of Li et al. (2026, §5.1, App. E): a response may carry an
``evidence`` object of task-derived witnesses, checked against the instance and judged
apart from FC (evidence never enters FC).

The three witnesses, one per source of uncertainty:

- ``unknown_comparison`` ``{"agent": name, "items": [a, b]}``: a comparison whose order the
  task does not report. True iff it is the hidden comparison of the instance (agent and
  the two items).
- ``conflicting_objectives`` ``[o1, o2, ...]``: admissible objectives whose accepted-action
  sets share no action. True iff there are at least two, every one is in the task's menu,
  and the oracle (:func:`prefcert.oracles.decision.decide`) finds the intersection of their
  accepted sets empty on the task restricted to them.
- ``infeasible_constraints`` ``[id, ...]``: stated hard constraints that cannot all hold
  together. True iff every id is a stated constraint and the checker's feasibility test
  (:func:`prefcert.formal.checker.decision.is_feasible`) finds them infeasible on their
  own; with ``minimal=True`` also every proper subset one constraint smaller feasible (a
  minimal conflict set).

Validity (our reading; the source says only that the witnesses must be task-derived and are
checked separately): the evidence is an object; every witness it states is true of the
instance; and the witness the gold decision rests on is present — the hidden comparison
for every preference-source task (both roles: an ACT member's comparison is hidden too),
the conflicting objectives for ASK-OBJECTIVE gold, the infeasible subset for RELAX gold.
A witness stated as null or an empty list claims nothing. Evidence is judged on every
response of the evidence condition that parses, whatever its decision; a response that does
not parse has invalid evidence.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

WITNESSES = ("unknown_comparison", "conflicting_objectives", "infeasible_constraints")

#: gold verdict word (and source) -> the witness the decision rests on
REQUIRED = {"ask_preference": "unknown_comparison", "ask_objective": "conflicting_objectives",
            "relax": "infeasible_constraints"}


def extract_evidence(text: Any) -> Any:
    """The ``evidence`` value of the last JSON object with a ``decision`` in ``text`` (a
    decoded object is read directly); None when there is none. O(len(text)²) worst case."""
    if isinstance(text, dict):
        return text.get("evidence")
    if not isinstance(text, str):
        return None
    dec = json.JSONDecoder()
    found = None
    i = text.find("{")
    while i != -1:
        try:
            obj, end = dec.raw_decode(text, i)
        except ValueError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict) and "decision" in obj:
            found = obj
        i = text.find("{", end)
    return None if found is None else found.get("evidence")


def _comparison_true(task, w: Any) -> tuple[bool, str]:
    if not isinstance(w, dict) or not isinstance(w.get("items"), list):
        return False, "unknown_comparison is not {agent, items}"
    items = w["items"]
    if len(items) != 2 or not all(isinstance(x, str) for x in items):
        return False, "unknown_comparison needs two items"
    for p, a, b in task.hidden_pairs():
        if {a, b} == set(items) and w.get("agent") == p:
            return True, ""
    return False, f"{w.get('agent')!r}'s order of {sorted(items)} is reported in the task"


def _objectives_true(task, w: Any) -> tuple[bool, str]:
    from ...oracles.decision import decide
    if not isinstance(w, list) or not all(isinstance(x, str) for x in w):
        return False, "conflicting_objectives is not a list of objective names"
    cited = list(dict.fromkeys(w))
    if len(cited) < 2:
        return False, "a conflict needs at least two objectives"
    if not set(cited) <= set(task.objectives):
        return False, f"{sorted(set(cited) - set(task.objectives))} not admissible"
    if task.source != "objective":
        return False, "the task has one objective"
    out = decide(replace(task, objectives=tuple(cited)))
    if out.verdict != "ask_objective":
        return False, f"{cited} share an accepted action"
    return True, ""


def _constraints_true(task, w: Any, minimal: bool) -> tuple[bool, str]:
    from ...formal.checker.decision import is_feasible
    from ...formal.decision import stated
    if not isinstance(w, list) or not w or not all(isinstance(x, str) for x in w):
        return False, "infeasible_constraints is not a list of constraint ids"
    cs = stated(task)
    ids = set(task.constraint_ids)
    cited = set(w)
    if not cited <= ids:
        return False, f"{sorted(cited - ids)} are not stated constraints"
    if is_feasible(task, cs.without(ids - cited)):
        return False, f"{sorted(cited)} can all be met together"
    if minimal:
        for c in sorted(cited):
            if not is_feasible(task, cs.without((ids - cited) | {c})):
                return False, f"{sorted(cited)} is not minimal (infeasible without {c})"
    return True, ""


def judge_evidence(task, label: Mapping[str, Any], evidence: Any, *,
                   minimal: bool = False) -> tuple[bool, str]:
    """Is ``evidence`` valid for ``task`` (a :class:`~prefcert.formal.decision.DecisionTask`)
    with certified ``label``? (valid, reason); see the module docstring for the reading.

    Parameters
    ----------
    task : DecisionTask
        The instance, parsed.
    label : dict
        Its certified label (``verdict``).
    evidence : Any
        The response's ``evidence`` value.
    minimal : bool
        Require an infeasible subset to be minimal.

    Returns
    -------
    tuple of (bool, str)

    Notes
    -----
    O(one oracle call on a two- or three-objective menu + one feasibility test per cited
    constraint). Li, A. et al. (2026), "Ask, Relax, or Act?", §5.1 and App. E.
    """
    if not isinstance(evidence, dict):
        return False, "no evidence object"
    gold = label["verdict"]
    need = "unknown_comparison" if task.source == "preference" else REQUIRED.get(gold)
    if need is not None and evidence.get(need) in (None, [], {}):
        return False, f"{need} missing"
    check = {"unknown_comparison": lambda w: _comparison_true(task, w),
             "conflicting_objectives": lambda w: _objectives_true(task, w),
             "infeasible_constraints": lambda w: _constraints_true(task, w, minimal)}
    for key in WITNESSES:
        w = evidence.get(key)
        if w in (None, [], {}):
            continue
        ok, why = check[key](w)
        if not ok:
            return False, f"{key}: {why}"
    return True, "every witness is true of the instance"


def gold_evidence(task, label: Mapping[str, Any]) -> dict:
    """A valid evidence object built from the instance and its certified label: the hidden
    comparison (preference source), the whole admissible menu (ASK-OBJECTIVE gold: its
    accepted sets share nothing), every stated constraint (RELAX gold: infeasible as
    stated). O(1)."""
    out: dict[str, Any] = {k: None for k in WITNESSES}
    if task.source == "preference":
        (p, a, b), = task.hidden_pairs()
        out["unknown_comparison"] = {"agent": p, "items": [a, b]}
    if label["verdict"] == "ask_objective":
        out["conflicting_objectives"] = list(task.objectives)
    if label["verdict"] == "relax":
        out["infeasible_constraints"] = list(task.constraint_ids)
    return out
