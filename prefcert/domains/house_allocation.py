"""The house-allocation domain wired to its engines, and the two-sided welfare questions
(``TWO_SIDED_QUESTIONS``) for the stable-matching domain.

Questions (definitions in :mod:`prefcert.formal.house_allocation` and
:mod:`prefcert.formal.welfare`):

- ``pareto_optimal``: find a Pareto-optimal allocation (verdict ``exists``; engines:
  serial dictatorship with ties, CP-SAT max Σu, enumeration);
- ``max_cardinality_pareto_optimal``: find an MCPO (``exists``; certificate: Pareto test +
  Hall set);
- ``utilitarian`` / ``egalitarian`` / ``rank_maximal``: verdict ``optimal``, solution an
  optimal allocation, certificate the oracle's optimality proof (LP duals or Hall sets),
  accepted only when every engine that answered reports the same optimal value (engines:
  Hungarian / bottleneck / IKMMP oracle, networkx blossom for rank-maximal, CP-SAT and
  HiGHS MILP lexicographic models, enumeration up to 7 agents).

Audits judge a claimed allocation (``{agent: object}`` or ``[[agent, object], …]``) and, for
welfare notions, report the gap to the optimum.
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from ..formal import checker
from ..formal.house_allocation import QUESTIONS as QUESTION_NAMES
from ..formal.house_allocation import HouseAllocation
from ..formal.checker.house_allocation import SPEC, validate_allocation
from ..formal.checker.welfare import check_better, check_maximum, validate_matching
from ..formal.errors import CertificateError
from ..formal.welfare import (
    WELFARE,
    WelfareGraph,
    better,
    signature,
    welfare_graph,
    welfare_value,
)
from ..pipeline.registry import spec
from .base import (
    UNKNOWN,
    Absent,
    Decision,
    Domain,
    Outcome,
    Question,
    Shrinker,
    Undecided,
    agreement,
    decide_existence,
    disagreement,
    gave_up,
)


class _Oracles:
    """``oracles.house_allocation``, imported on first use: it loads networkx and scipy (a third
    of a second), which a stable-matching label that asks no welfare question never needs."""

    def __getattr__(self, name: str) -> Any:
        from ..oracles import house_allocation
        return getattr(house_allocation, name)


orc = _Oracles()

MAX_ENCODING_AGENTS = 150     # CP-SAT / MILP engines up to this many agents (a side)
MAX_CPSAT_RANK_MAXIMAL = 60   # lexicographic CP-SAT: one solve per rank, slow beyond this
MAX_WEIGHTED_AGENTS = 300     # networkx blossom cross-check (rank-maximal)
MAX_BRUTE_FORCE_AGENTS = 7      # one-sided: agents
MAX_BRUTE_FORCE_SIDE = 5        # two-sided: agents a side


# ------------------------------------------------------------------------------ engines

def _graph(model: Any) -> WelfareGraph:
    return welfare_graph(model)


def _size(model: Any) -> int:
    return model.size


def _welfare_oracle(notion: str):
    name = {"utilitarian": "utilitarian_matching", "egalitarian": "egalitarian_matching",
            "rank_maximal": "rank_maximal"}[notion]

    def run(model, params, *, time_limit: float, seed: int) -> Outcome:
        # the utilitarian oracle reads a house allocation's integer index itself: no graph
        m, cert = getattr(orc, name)(model if notion == "utilitarian" else _graph(model))
        if cert is None:      # the oracle's matching is not optimal: report its value only
            cert = {"type": "value", "value": welfare_value(_graph(model), notion, m),
                    "error": "oracle matching failed its optimality proof"}
        return Outcome("optimal", m, cert)
    return run


def _welfare_weighted(model, params, *, time_limit: float, seed: int) -> Outcome:
    g = _graph(model)
    m = orc.rank_maximal_weighted(g)
    return Outcome("optimal", m, {"type": "value", "value": signature(g, m)})


def _welfare_cpsat(notion: str):
    def run(model, params, *, time_limit: float, seed: int) -> Outcome:
        from ..encodings.house_allocation import welfare_cpsat
        return welfare_cpsat(_graph(model), notion, time_limit=time_limit, seed=seed)
    return run


def _welfare_milp(notion: str):
    def run(model, params, *, time_limit: float, seed: int) -> Outcome:
        from ..encodings.house_allocation import welfare_milp
        return welfare_milp(_graph(model), notion, time_limit=time_limit, seed=seed)
    return run


def _welfare_brute(notion: str):
    def run(model, params, *, time_limit: float, seed: int) -> Outcome:
        g = _graph(model)
        best = None
        try:
            for m in orc.all_matchings(g, time_limit=time_limit):
                if best is None or better(g, notion, m, best):
                    best = m
        except TimeoutError:
            return Outcome(UNKNOWN, None, None, {"reason": "time limit"})
        return Outcome("optimal", best, {"type": "value",
                                         "value": welfare_value(g, notion, best)})
    return run


def _po_oracle(model, params, *, time_limit: float, seed: int) -> Outcome:
    order = list(model.agents)
    return Outcome("exists", orc.serial_dictatorship(model, order),
                   {"type": "pareto_optimal", "order": order})


def _po_cpsat(model, params, *, time_limit: float, seed: int) -> Outcome:
    from ..encodings.house_allocation import pareto_optimal_cpsat
    return pareto_optimal_cpsat(model, time_limit=time_limit, seed=seed)


def _po_brute(model, params, *, time_limit: float, seed: int) -> Outcome:
    try:
        po = orc.brute_force_pareto_optimal(model, time_limit=time_limit)
    except TimeoutError:
        return Outcome(UNKNOWN, None, None, {"reason": "time limit"})
    return Outcome("exists", po[0], {"type": "pareto_optimal"})


def _mcpo_cert(model, m) -> dict:
    s, _ = orc.hall_or_augment(_graph(model), m)
    return {"type": "mcpo", "hall_full": s}


def _mcpo_oracle(model, params, *, time_limit: float, seed: int) -> Outcome:
    m = orc.max_cardinality_pareto_optimal(model)
    return Outcome("exists", m, _mcpo_cert(model, m))


def _mcpo_weighted(model, params, *, time_limit: float, seed: int) -> Outcome:
    m = orc.max_cardinality_pareto_optimal_weighted(model)
    return Outcome("exists", m, _mcpo_cert(model, m))


def _mcpo_cpsat(model, params, *, time_limit: float, seed: int) -> Outcome:
    from ..encodings.house_allocation import pareto_optimal_cpsat
    return pareto_optimal_cpsat(model, time_limit=time_limit, seed=seed, max_cardinality=True)


def _mcpo_brute(model, params, *, time_limit: float, seed: int) -> Outcome:
    try:
        po = orc.brute_force_pareto_optimal(model, time_limit=time_limit)
    except TimeoutError:
        return Outcome(UNKNOWN, None, None, {"reason": "time limit"})
    m = max(po, key=len)
    return Outcome("exists", m, _mcpo_cert(model, m))


def _auto(engines: Sequence[str], cpsat_max: int = 0):
    cpsat_max = cpsat_max or MAX_ENCODING_AGENTS

    def auto(model) -> list[str]:
        n = _size(model)
        out = []
        for e in engines:
            if (e == "cpsat" and n > cpsat_max) or (e == "milp" and n > MAX_ENCODING_AGENTS):
                continue
            if e == "weighted_blossom" and n > MAX_WEIGHTED_AGENTS:
                continue
            if e == "brute_force" and n > (MAX_BRUTE_FORCE_AGENTS if
                                           isinstance(model, HouseAllocation) else
                                           MAX_BRUTE_FORCE_SIDE):
                continue
            out.append(e)
        return out
    return auto


# ------------------------------------------------------------------------------ decide

def decide_optimum(answers, check) -> Decision:
    """Combine ``optimal`` answers: every decided engine must report the same value (its
    certificate's ``value``); the first answer whose certificate is a proof (not of type
    ``value``) must pass the checker and gives the label. Without a proof, three agreeing
    engines give an agreement record (not a proof; see ``certify``). Raises Disagreement /
    Undecided."""
    decided = [a for a in answers if a.outcome.verdict != UNKNOWN]
    if not decided:
        raise Undecided(gave_up(answers))
    values = {repr((a.outcome.certificate or {}).get("value")) for a in decided}
    if len(values) > 1 or any(a.outcome.verdict != "optimal" for a in decided):
        raise disagreement("engines disagree on the optimal value", answers, check)
    proofs = [a for a in decided if (a.outcome.certificate or {}).get("type") != "value"]
    for a in proofs:
        try:
            check("optimal", a.outcome.solution, a.outcome.certificate)
        except CertificateError as e:
            raise disagreement(f"optimality proof of {a.engine} rejected: {e}", answers, check)
    if proofs:
        o = proofs[0].outcome
        return Decision("optimal", o.solution, o.certificate)
    names = [a.engine for a in decided]
    if len(names) < 3:
        raise Undecided("an optimum without a proof needs three agreeing engines")
    return Decision("optimal", decided[0].outcome.solution,
                    agreement("optimal", names,
                              value=(decided[0].outcome.certificate or {}).get("value")))


def _certify_optimum(notion: str):
    """The optimality proof of an agreed optimum (LP duals or Hall sets, computed for the
    engines' matching), or the better matching that refutes it."""
    def certify(model, params, verdict: str, solution: Any, *, time_limit: float):
        g = _graph(model)
        cert, improved = orc.welfare_certificate(g, notion, solution)
        if cert is not None:
            return cert
        return {"type": "better_allocation", "allocation": improved,
                "value": welfare_value(g, notion, improved)}
    return certify


def _decide_exists(answers, check) -> Decision:
    return decide_existence(answers, check)


# ------------------------------------------------------------------------------ audit

def read_allocation(model: Any, answer: Any) -> dict[str, str]:
    """A claimed allocation/matching as a dict left -> right: accepts ``{l: r}`` (None or
    "" = unassigned), ``{r: l}`` for two-sided markets, or ``[[x, y], …]``; a pair listed
    from both sides is one pair. Raises ValueError for other shapes and for an agent
    given two partners (naming both)."""
    g = _graph(model)
    left, right = set(g.left), set(g.right)
    if isinstance(answer, dict):
        pairs = list(answer.items())
    elif isinstance(answer, list):
        pairs = answer
    else:
        raise ValueError("an allocation must be an object or a list of pairs")
    out = {}
    for p in pairs:
        if not (isinstance(p, (list, tuple)) and len(p) == 2):
            raise ValueError(f"not a pair: {p!r}")
        x, y = p
        if y in (None, "", "none", "unassigned"):
            continue
        if not isinstance(x, str) or not isinstance(y, str):
            raise ValueError(f"not a pair of names: {p!r}")
        if x not in left and (y in left or x in right):   # written {object: agent}
            x, y = y, x
        if out.get(x, y) != y:                # a pair listed twice is the same pair
            raise ValueError(f"{x!r} is given two partners, {out[x]!r} and {y!r}")
        out[x] = y
    return out


def _show(m: dict) -> str:
    return "{" + ", ".join(f"{x}: {y}" for x, y in m.items()) + "}"


def _validate(model, m):
    if isinstance(model, HouseAllocation):
        return validate_allocation(model, m)
    return validate_matching(_graph(model), m)


def _invalid(model, claimed: Any, e: CertificateError) -> dict:
    kind = "not_an_allocation" if isinstance(model, HouseAllocation) else "not_a_matching"
    return {"verdict": "incorrect", "violations": [{"invalid_allocation": str(e)}],
            "proof": {"verdict": "incorrect", "solution": claimed,
                      "certificate": {"type": kind}},
            "feedback": f"Incorrect: not a valid allocation: {e}."}


def _audit_welfare(notion: str):
    def audit(model, params, answer) -> dict:
        try:
            claimed = read_allocation(model, answer)
        except ValueError as e:
            return {"verdict": "unparseable", "violations": [], "feedback": f"Unreadable: {e}"}
        try:
            m = _validate(model, claimed)
        except CertificateError as e:
            return _invalid(model, claimed, e)
        g = _graph(model)
        cert, better = orc.welfare_certificate(g, notion, m)
        value = welfare_value(g, notion, m)
        if cert is not None:
            return {"verdict": "correct", "violations": [], "value": value,
                    "proof": {"verdict": "optimal", "solution": m, "certificate": cert},
                    "feedback": f"Correct: the allocation is {notion.replace('_', '-')} "
                                f"optimal (value {value})."}
        fn = {"utilitarian": orc.utilitarian_matching, "egalitarian": orc.egalitarian_matching,
              "rank_maximal": orc.rank_maximal}[notion]
        opt, _ = fn(g)
        best = welfare_value(g, notion, opt)
        gap = _gap(g, notion, m, opt)
        return {"verdict": "incorrect", "value": value, "optimum": best, "gap": gap,
                "violations": [{"better_allocation": better,
                                "value": welfare_value(g, notion, better)}],
                "proof": {"verdict": "incorrect", "solution": m, "certificate": {
                    "type": "better_allocation", "allocation": better,
                    "value": welfare_value(g, notion, better)}},
                "feedback": f"Incorrect: not {notion.replace('_', '-')} optimal; {gap['text']} "
                            f"For example {_show(opt)} does better."}
    return audit


def _gap(g: WelfareGraph, notion: str, m: dict, opt: dict) -> dict:
    """How far ``m`` is from the optimum ``opt``: cardinality, then the notion's value."""
    if notion == "rank_maximal":
        s, t = signature(g, m), signature(g, opt)
        k = next(i for i in range(len(s)) if s[i] != t[i])
        return {"signature": s, "optimum": t, "first_rank": k + 1,
                "text": f"its signature {s} falls short of {t} at rank {k + 1} "
                        f"({s[k]} instead of {t[k]})."}
    v, w = welfare_value(g, notion, m), welfare_value(g, notion, opt)
    if len(m) < len(opt):
        return {"cardinality": len(opt) - len(m), "value": v - w,
                "text": f"it matches {len(m)} instead of the maximum {len(opt)}."}
    what = "total rank" if notion == "utilitarian" else "worst rank"
    return {"cardinality": 0, "value": v - w,
            "text": f"its {what} is {v} against the optimum {w} (gap {v - w})."}


def _better_off(model: HouseAllocation, old: dict, new: dict) -> list[str]:
    """The agents strictly better off in the allocation ``new`` than in ``old`` (both
    valid), in input order, read on the integer lists. O(L)."""
    ix, oid = model.rank_index(), model.object_ids()
    out = []
    for i, a in enumerate(model.prefs):
        x, y = new.get(a), old.get(a)
        if x != y and x is not None and (y is None or ix.rank(i, oid[x]) < ix.rank(i, oid[y])):
            out.append(a)
    return out


def _audit_po(mcpo: bool):
    def audit(model, params, answer) -> dict:
        try:
            claimed = read_allocation(model, answer)
        except ValueError as e:
            return {"verdict": "unparseable", "violations": [], "feedback": f"Unreadable: {e}"}
        try:
            m = validate_allocation(model, claimed)
        except CertificateError as e:
            return _invalid(model, claimed, e)
        violations, notes, proof = [], [], None
        imp = orc.pareto_improvement(model, m)
        if imp is not None:
            gains = _better_off(model, m, imp)
            violations.append({"pareto_improvement": imp, "better_off": gains})
            notes.append(f"it is not Pareto optimal: {_show(imp)} makes "
                         f"{', '.join(gains)} better off and nobody worse off")
            proof = {"verdict": "incorrect", "solution": m, "certificate": {
                "type": "pareto_improvement", "allocation": m, "improvement": imp}}
        hall = None
        if mcpo:
            hall, bigger = orc.hall_or_augment(_graph(model), m)
            if bigger is not None:
                nu = len(orc.maximum_matching(_graph(model)))
                violations.append({"larger_matching": bigger, "maximum_size": nu})
                notes.append(f"it assigns {len(m)} agents but {nu} can be assigned")
                proof = proof or {"verdict": "incorrect", "solution": m, "certificate": {
                    "type": "larger_matching", "allocation": bigger}}
        if not violations:
            what = "maximum-cardinality Pareto optimal" if mcpo else "Pareto optimal"
            cert = {"type": "mcpo", "hall_full": hall} if mcpo else {"type": "pareto_optimal"}
            return {"verdict": "correct", "violations": [],
                    "proof": {"verdict": "exists", "solution": m, "certificate": cert},
                    "feedback": f"Correct: the allocation is {what}."}
        return {"verdict": "incorrect", "violations": violations, "proof": proof,
                "feedback": "Incorrect: " + "; ".join(notes) + "."}
    return audit


def classify(model: Any, candidate: Any) -> dict[str, dict]:
    """Concept membership of one candidate allocation (HouseAllocation) or matching (Market).

    Returns notion -> ``{"holds": bool, "certificate": dict}`` for ``pareto_optimal`` (one-
    sided only), ``max_cardinality``, ``utilitarian``, ``egalitarian``, ``rank_maximal``.
    A holding notion carries its proof (as in the labels); a failing one carries a refuting
    certificate: a Pareto improvement, an augmenting matching (``larger_matching``) or a
    ``better_allocation`` with its value. Every certificate passes the checker before it is
    returned. O(n·L) (Bellman–Ford) per welfare notion. Raises CertificateError for an
    invalid candidate.
    """
    g = _graph(model)
    one_sided = isinstance(model, HouseAllocation)
    m = _validate(model, dict(candidate))
    check = partial(checker.check, SPEC if one_sided else spec("stable_matching"), model)
    out: dict[str, dict] = {}
    if one_sided:
        imp = orc.pareto_improvement(model, m)
        if imp is None:
            cert = {"type": "pareto_optimal"}
            check("pareto_optimal", None, "exists", m, cert)
        else:
            cert = {"type": "pareto_improvement", "allocation": m, "improvement": imp}
            check("pareto_optimal", None, "incorrect", m, cert)
        out["pareto_optimal"] = {"holds": imp is None, "certificate": cert}
    s, bigger = orc.hall_or_augment(g, m)
    if bigger is None:
        check_maximum(g, m, s)
        cert = {"type": "hall_set", "size": len(m), "hall_full": s}
    else:
        check_better(g, "max_cardinality", m, bigger)
        cert = {"type": "larger_matching", "allocation": bigger, "size": len(bigger)}
    out["max_cardinality"] = {"holds": bigger is None, "certificate": cert}
    for notion in WELFARE:
        cert, improved = orc.welfare_certificate(g, notion, m)
        if cert is not None:
            check(notion, None, "optimal", m, cert)
        else:
            cert = {"type": "better_allocation", "allocation": improved,
                    "value": welfare_value(g, notion, improved)}
            check(notion, None, "incorrect", m, cert)
        out[notion] = {"holds": improved is None, "certificate": cert}
    return out


# ------------------------------------------------------------------------------ questions

def _welfare_question(notion: str, two_sided: bool) -> Question:
    engines: dict[str, Callable] = {"oracle": _welfare_oracle(notion)}
    if notion == "rank_maximal":
        engines["weighted_blossom"] = _welfare_weighted
    engines["cpsat"] = _welfare_cpsat(notion)
    engines["milp"] = _welfare_milp(notion)
    engines["brute_force"] = _welfare_brute(notion)
    return Question(name=notion, engines=engines,
                    auto=_auto(list(engines), cpsat_max=MAX_CPSAT_RANK_MAXIMAL
                               if notion == "rank_maximal" else MAX_ENCODING_AGENTS),
                    decide=decide_optimum, audit=_audit_welfare(notion),
                    certify=_certify_optimum(notion))


QUESTIONS = {
    "pareto_optimal": Question(
        name="pareto_optimal",
        engines={"oracle": _po_oracle, "cpsat": _po_cpsat, "brute_force": _po_brute},
        auto=_auto(["oracle", "cpsat", "brute_force"]), decide=_decide_exists,
        audit=_audit_po(False)),
    "max_cardinality_pareto_optimal": Question(
        name="max_cardinality_pareto_optimal",
        engines={"oracle": _mcpo_oracle, "weighted": _mcpo_weighted, "cpsat": _mcpo_cpsat,
                 "brute_force": _mcpo_brute},
        auto=_auto(["oracle", "weighted", "cpsat", "brute_force"]), decide=_decide_exists,
        audit=_audit_po(True)),
    **{n: _welfare_question(n, False) for n in WELFARE},
}

#: Two-sided welfare questions over an SMTI market (both sides' ranks count), to be merged
#: into the stable-matching domain's questions; their certificates are checked by
#: :mod:`prefcert.formal.checker.welfare` (registered in the stable-matching spec).
TWO_SIDED_QUESTIONS = {n: _welfare_question(n, True) for n in WELFARE}

# ----------------------------------------------------------------------------- hooks

def _shrinker() -> Shrinker:
    from ..pipeline.minimize import one_sided_lists, without_items

    def agents(inst: dict) -> list[tuple[str, str]]:
        return [("agent", a) for a in inst["preferences"]] + \
            [("object", o) for o in (inst.get("objects") or [])]

    def keep(inst: dict, kept: list[tuple[str, str]]) -> dict:
        keep_set = set(kept)
        gone = {name for kind, name in agents(inst) if (kind, name) not in keep_set}
        out = copy.deepcopy(inst)
        out["preferences"] = {a: without_items(lst, gone)
                              for a, lst in inst["preferences"].items() if a not in gone}
        if "objects" in inst:
            out["objects"] = [o for o in inst["objects"] if o not in gone]
        return out
    return Shrinker(one_sided_lists, agents, keep, lambda inst: len(inst["preferences"]))


DOMAIN = Domain(
    spec=SPEC,
    questions=QUESTIONS,
    default_questions=lambda model: list(QUESTION_NAMES),
    classify=classify,
    shrinker=_shrinker(),
    space=Absent("house allocation has no enumerated instance space yet (the built-in "
                 "counterexample properties are about other domains)"),
    peers=Absent("no peer library of audit-library answers house-allocation questions"),
    properties=Absent("no built-in counterexample property is about house allocation"),
)
