"""The ``decision`` domain (act / ask-preference / ask-objective / relax) wired to its
engines: the world-enumeration oracle and the CP-SAT encodings.

One question, ``decision``; verdicts ``act``, ``ask_preference``, ``ask_objective``,
``relax``. Solutions: ``{"action": x}``; ``{"agent": p, "items": [a, b]}`` (the pivotal
comparison); ``{"objectives": menu}``; ``{"edits": k, "repairs": [{"edits", "action"}]}``.

Engines must agree on the verdict, on every world's optimum value, on the minimum number
of edits and the set of minimum repairs (thresholds included), and on the comparison or
menu asked about. The label's certificate is the oracle's; the action every other engine
proposes (for act, and after each repair) must pass the checker against the oracle's world
proofs too.
"""
from __future__ import annotations

import json
from typing import Any

from ..formal.checker.decision import SPEC
from ..formal.decision import DecisionTask
from ..formal.errors import CertificateError, Undecided
from .base import (UNKNOWN, Absent, Decision, Domain, Outcome, Question, disagreement,
                   gave_up)

MAX_ENCODING_SIZE = 10      # agents / items a side for the CP-SAT cross-check
MAX_ENCODING_WORLDS = 64


def _oracle(task: DecisionTask, params: Any, *, time_limit: float, seed: int) -> Outcome:
    from ..oracles.decision import decide
    return decide(task)


def _cpsat(task: DecisionTask, params: Any, *, time_limit: float, seed: int) -> Outcome:
    from ..encodings.decision import decision_cpsat
    return decision_cpsat(task, time_limit=time_limit, seed=seed)


def _auto(task: DecisionTask) -> list[str]:
    names = ["oracle"]
    if task.size <= MAX_ENCODING_SIZE and task.world_count() <= MAX_ENCODING_WORLDS:
        names.append("cpsat")
    return names


def _canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"))


def agreement_key(o: Outcome) -> str:
    """What engines must agree on (canonical JSON): the verdict, each world's optimum value,
    and for relax the minimum and every minimum repair with its optimum value; for ask the
    menu, or the comparison when only one is hidden."""
    key: list[Any] = [o.verdict, [w.get("value") for w in o.stats.get("worlds", [])]]
    sol = o.solution or {}
    if o.verdict == "relax":
        vals = o.stats.get("repair_values") or [None] * len(sol.get("repairs", []))
        key.append(sol.get("edits"))
        key.append(sorted(_canon([r["edits"], v]) for r, v in zip(sol["repairs"], vals)))
    elif o.verdict == "ask_objective":
        key.append(sol["objectives"])
    elif o.verdict == "ask_preference" and o.stats.get("hidden") == 1:
        key.append([sol["agent"], sol["items"]])
    return _canon(key)


def _with_actions(cert: dict, solution: dict, verdict: str, other: dict) -> tuple[dict, dict]:
    """The oracle's certificate and solution with another engine's action(s) substituted:
    new dicts along the paths to the actions, everything else shared with the originals
    (which are not changed; the checker only reads). O(size of the repairs list)."""
    if verdict == "act":
        return {**cert, "action": other["action"]}, {**solution, "action": other["action"]}
    if verdict == "relax":
        theirs = {_canon(r["edits"]): r["action"] for r in other["repairs"]}
        pairs = list(zip(cert["repairs"], solution["repairs"]))   # (each pair alike)
        acts = [theirs[_canon(r["edits"])] for r, _ in pairs]
        k = len(pairs)
        return ({**cert, "repairs": [{**r, "action": x} for (r, _), x in zip(pairs, acts)]
                 + cert["repairs"][k:]},
                {**solution, "repairs": [{**s, "action": x} for (_, s), x in zip(pairs, acts)]
                 + solution["repairs"][k:]})
    return dict(cert), dict(solution)


def _same_actions(solution: dict, verdict: str, other: dict) -> bool:
    """Does the other engine propose exactly the base solution's action(s) (act: the
    action; relax: the action after each repair)? Then :func:`_with_actions` gives back
    the base certificate itself, already checked. O(size of the solutions)."""
    if verdict == "act":
        return _canon(other["action"]) == _canon(solution["action"])
    theirs = {_canon(r["edits"]): _canon(r["action"]) for r in other["repairs"]}
    return all(theirs.get(_canon(r["edits"])) == _canon(r["action"])
               for r in solution["repairs"])


def decide(answers, check) -> Decision:
    """Combine the engines' answers (module docstring); raises Disagreement / Undecided."""
    decided = [a for a in answers if a.outcome.verdict != UNKNOWN]
    if not decided:
        raise Undecided(gave_up(answers))
    if len({agreement_key(a.outcome) for a in decided}) > 1:
        raise disagreement("engines disagree on the verdict, the world optima or the "
                           "repairs", answers, check)
    base = next((a for a in decided if a.outcome.certificate), None)
    if base is None:
        raise Undecided("no engine gave a certificate (run the oracle)")
    o = base.outcome
    try:
        check(o.verdict, o.solution, o.certificate)
    except CertificateError as e:
        raise disagreement(f"certificate of {base.engine} rejected: {e}", answers, check)
    for a in decided:
        if a is base or a.outcome.verdict not in ("act", "relax"):
            continue
        if _same_actions(o.solution, o.verdict, a.outcome.solution):
            continue        # the substituted certificate is the one just verified
        cert, sol = _with_actions(o.certificate, o.solution, o.verdict, a.outcome.solution)
        try:
            check(o.verdict, sol, cert)
        except CertificateError as e:
            raise disagreement(f"the action of {a.engine} fails the checker: {e}",
                               answers, check)
    return Decision(o.verdict, o.solution, o.certificate)


def _audit(task: DecisionTask, params: Any, answer: Any) -> dict:
    """Judge a response (a JSON object with ``decision``, ``action``, ``question``,
    ``repair``) against the oracle's certified label (see :mod:`prefcert.bench.actionable.responses`)."""
    from ..bench.actionable.responses import judge_response
    from ..formal import checker
    from ..oracles.decision import decide
    truth = decide(task)
    checker.check(SPEC, task, "decision", None, truth.verdict, truth.solution,
                  truth.certificate)
    label = {"verdict": truth.verdict, "solution": truth.solution,
             "certificate": truth.certificate}
    j = judge_response(task, label, answer)
    return {"verdict": "correct" if j["fc"] else ("unparseable" if not j["parsed"]
                                                    else "incorrect"),
            "violations": [] if j["fc"] else [{"reason": j["reason"]}],
            "feedback": j["reason"], "decision_correct": j["decision_correct"],
            "truth": {"verdict": truth.verdict, "solution": truth.solution},
            "proof": label}     # the certified truth the response was judged against


DOMAIN = Domain(
    spec=SPEC,
    questions={"decision": Question(
        name="decision",
        engines={"oracle": _oracle, "cpsat": _cpsat},
        auto=_auto, decide=decide, audit=_audit, reads_text=True)},
    default_questions=lambda task: ["decision"],
    shrinker=Absent("a smaller decision task must keep its structure's invariants (square "
                    "allocations, the unknown comparison, permitted edits naming constraints): "
                    "no reduction is defined yet"),
    space=Absent("decision tasks are sampled by their design (generators/decision.py), "
                 "not enumerated"),
    peers=Absent("no peer library of audit-library answers decision tasks"),
    properties=Absent("no built-in counterexample property is about decision tasks"),
)
