"""The housing-market domain wired to its engines: Quint–Wako / TTC oracles, CP-SAT, z3,
a CBC MILP (strict core, ≤ 30 agents) and exhaustive enumeration (≤ 8 agents).

Questions (existence; solution = an allocation agent -> house):

- ``strict_core``: is there an allocation that no coalition can weakly block (all members
  weakly, one strictly better off)? ``none`` carries a top-trading segmentation the checker
  replays (Quint & Wako 2004).
- ``weak_core``: is there one that no coalition can strictly block? Always ``exists``
  (Shapley & Scarf 1974); TTC with tie-breaking gives one.

Under ``unlisted_own_house = unacceptable`` the engines solve the effective market (an
agent's unlisted houses form its last tie) and report its allocation with the agents that
hold a house they do not list left unmatched (:func:`reported_allocation`).
"""
from __future__ import annotations

import copy
from typing import Any

from ..formal import checker

from ..formal.checker import housing_market as chk
from ..formal.checker.housing_market import SPEC
from ..formal.errors import CertificateError, Disagreement
from ..formal.housing_market import (
    CORE_NOTION,
    HousingMarket,
    as_allocation,
    completed_allocation,
    reported_allocation,
)
from ..oracles import housing_market as orc
from ..pipeline.minimize import one_sided_lists, without_items
from .base import (Absent, Domain, Outcome, Property, Question, Shrinker, Space,
                   claims_none, decide_existence)

MAX_ENCODING_AGENTS = 100     # larger markets use the oracle and the checker alone
MAX_MILP_AGENTS = 30          # the big-M MILP's relaxation is weak beyond this
MAX_WEAK_CPSAT_AGENTS = 60    # CP-SAT needs ~20 s for the weak core at 100 agents
MAX_BRUTE_FORCE_AGENTS = 8
MAX_SHOWN = 3                 # blocking coalitions listed in audit feedback
MAX_LISTED = 50               # blocking coalitions returned as violations


def _oracle(question: str):
    def run(market: HousingMarket, params: Any, *, time_limit: float, seed: int) -> Outcome:
        if question == "weak_core":
            return Outcome("exists", orc.top_trading_cycles(market), {"type": "core_allocation"},
                           {"tie_break": "endowment order"})
        res = orc.strict_core(market)
        stats = {"segments": len(res.segments)}
        if res.allocation is None:
            return Outcome("none", None, res.certificate, stats)
        return Outcome("exists", res.allocation, {"type": "core_allocation"}, stats)
    return run


def _certify(market: HousingMarket, params: Any, verdict: str, solution: Any, *,
             time_limit: float) -> dict | None:
    """The oracle's proof that the strict core is empty (the engines that ran gave none)."""
    if verdict != "none":
        return None
    res = orc.strict_core(market)
    return res.certificate if res.allocation is None else {"type": "core_allocation"}


def _encoding(kind: str, question: str):
    def run(market: HousingMarket, params: Any, *, time_limit: float, seed: int) -> Outcome:
        from ..encodings import housing_market as enc
        fn = enc.core_cpsat if kind == "cpsat" else enc.core_z3
        return _from_encoding(fn(market, CORE_NOTION[question], time_limit=time_limit,
                                 seed=seed))
    return run


def _milp(market: HousingMarket, params: Any, *, time_limit: float, seed: int) -> Outcome:
    from ..encodings.housing_market import strict_core_milp
    return _from_encoding(strict_core_milp(market, time_limit=time_limit, seed=seed))


def _from_encoding(r) -> Outcome:
    if r.status == "feasible":
        cert = {"type": "core_allocation"}
        if r.potentials is not None:
            cert["potentials"] = r.potentials
        return Outcome("exists", r.allocation, cert, r.stats)
    return Outcome("none" if r.status == "infeasible" else "unknown", None, None, r.stats)


def _brute_force(question: str):
    def run(market: HousingMarket, params: Any, *, time_limit: float, seed: int) -> Outcome:
        try:
            weak, strict = orc.brute_force_cores(market, time_limit=time_limit)
        except TimeoutError:
            return Outcome("unknown")
        found = strict if question == "strict_core" else weak
        stats = {"core_size": len(found)}
        if not found:
            return Outcome("none", None, None, stats)
        return Outcome("exists", found[0], {"type": "core_allocation"}, stats)
    return run


def _auto(question: str):
    def auto(market: HousingMarket) -> list[str]:
        names = ["oracle"]
        if market.size <= MAX_ENCODING_AGENTS:
            if question == "strict_core" or market.size <= MAX_WEAK_CPSAT_AGENTS:
                names.append("cpsat")
            names.append("z3")
        if market.size <= MAX_MILP_AGENTS and question == "strict_core":
            names.append("milp")
        if market.size <= MAX_BRUTE_FORCE_AGENTS:
            names.append("brute_force")
        return names
    return auto


def _reported(engine):
    """The engine's allocation as the market's convention reports it (unmatched agents
    left out under ``unlisted_own_house = unacceptable``)."""
    def run(market: HousingMarket, params: Any, *, time_limit: float, seed: int) -> Outcome:
        out = engine(market, params, time_limit=time_limit, seed=seed)
        if not market.unmatched_allowed or not isinstance(out.solution, dict):
            return out
        return Outcome(out.verdict, reported_allocation(market, out.solution), out.certificate,
                       out.stats)
    return run


def _decide(answers, check):
    return decide_existence(answers, check, none_quorum=("oracle", "cpsat", "z3"))


def read_allocation(answer: Any) -> dict[str, str]:
    """A claimed allocation: ``{agent: house}`` or ``{"allocation": {agent: house}}``.

    Raises ValueError when the answer has neither shape or holds a non-string."""
    if isinstance(answer, dict) and set(answer) == {"allocation"}:
        answer = answer["allocation"]
    if not isinstance(answer, dict) or not all(isinstance(v, str) for v in answer.values()):
        raise ValueError("an allocation must be an object mapping agents to house names")
    return dict(answer)


def _audit(question: str):
    notion = CORE_NOTION[question]
    words = question.replace("_", " ")

    def audit(market: HousingMarket, params: Any, answer: Any) -> dict:
        if claims_none(answer):
            return _audit_empty(market, question)
        try:
            x = read_allocation(answer)
        except ValueError as e:
            return {"verdict": "unparseable", "violations": [],
                    "feedback": f"Unreadable allocation: {e}."}
        claimed = x
        try:
            x = as_allocation(market, x)
        except CertificateError as e:
            return {"verdict": "incorrect",
                    "violations": [{"type": "not_an_allocation", "reason": str(e)}],
                    "proof": {"verdict": "incorrect", "solution": claimed,
                              "certificate": {"type": "not_an_allocation"}},
                    "feedback": f"Incorrect: not a valid allocation: {e}."}
        res = orc.blocking_coalitions(market, x, notion)
        found = res.coalitions
        if not found:
            if chk.blocked_arc(market, x, notion) is None:     # the trusted test decides
                return {"verdict": "correct", "violations": [],
                        "proof": {"verdict": "exists", "solution": x,
                                  "certificate": {"type": "core_allocation"}},
                        "feedback": f"Correct: the allocation is in the {words}."}
            coalition, trade = _blocking_cycle(market, x, notion)
            found = [{"coalition": coalition, "reallocation": trade}]
        violations = []
        for c in found[:MAX_LISTED]:
            chk.check_blocking_coalition(market, x, notion, c["coalition"], c["reallocation"])
            violations.append({"type": "blocking_coalition", "notion": notion, **c})
        count = f"{len(found)}" if res.complete else f"At least {len(found)} (search capped)"
        shown = "; ".join(_show(c) for c in found[:MAX_SHOWN])
        how = "all strictly better off" if notion == "weak" else \
            "none worse off and someone strictly better off"
        first = found[0]
        return {"verdict": "incorrect", "violations": violations,
                "proof": {"verdict": "incorrect", "solution": x, "certificate": {
                    "type": "blocking_coalition", "coalition": first["coalition"],
                    "reallocation": first["reallocation"]}},
                "blocking_coalitions": len(found), "complete": res.complete,
                "feedback": f"Incorrect: the allocation is not in the {words}. {count} minimal "
                            f"coalition{'s' if len(found) > 1 else ''} can re-trade "
                            f"{'their' if len(found) > 1 else 'its'} own houses with "
                            f"{how}, e.g. {shown}."}
    return audit


def _audit_empty(market: HousingMarket, question: str) -> dict:
    """Judge the claim "the core is empty": the oracle's segmentation proves it, or its
    core allocation refutes it (either is verified by the checker in the pipeline)."""
    words = question.replace("_", " ")
    if question == "weak_core":
        witness = orc.top_trading_cycles(market)
    else:
        res = orc.strict_core(market)
        if res.allocation is None:
            return {"verdict": "correct", "violations": [],
                    "proof": {"verdict": "none", "certificate": res.certificate},
                    "feedback": f"Correct: the {words} is empty."}
        witness = res.allocation
    witness = reported_allocation(market, witness)
    return {"verdict": "incorrect",
            "violations": [{"type": "core_allocation", "allocation": witness}],
            "proof": {"verdict": "exists", "solution": witness,
                      "certificate": {"type": "core_allocation"}},
            "feedback": f"Incorrect: the {words} is not empty; for example "
                        f"{_show_alloc(witness)} is in it."}


def _show(c: dict) -> str:
    return "{" + ", ".join(c["coalition"]) + "} trading " + _show_alloc(c["reallocation"])


def _show_alloc(x: dict) -> str:
    return "{" + ", ".join(f"{a}->{h}" for a, h in x.items()) + "}"


def _blocking_cycle(market: HousingMarket, x: dict[str, str], notion: str,
                    endowment: dict[str, str] | None = None) -> tuple[list[str], dict[str, str]]:
    """The engine's blocking cycle of an allocation the checker found blocked."""
    found = orc.blocking_cycle(market, x, notion, endowment)
    if found is None:
        raise Disagreement({"reason": f"the checker finds {notion}-blocked an allocation in "
                                      "which the engine finds no blocking cycle",
                            "allocation": x})
    return found


def classify(market: HousingMarket, candidate: Any) -> dict[str, dict]:
    """Individual rationality, weak and strict core, Pareto optimality of a candidate
    allocation (the notions of :data:`prefcert.formal.housing_market.NOTIONS`).

    Returns ``{notion: {"holds": bool, "certificate": dict | None}}``; membership is decided
    by the checker's definitions, and the certificate of a failed notion — a
    ``blocking_coalition`` (for IR, a single agent keeping its own house) or a
    ``pareto_improvement``, found by the engine — passes
    :func:`prefcert.formal.checker.housing_market.check_refutation` before it is returned (else
    Disagreement). Raises CertificateError when the candidate is not an allocation.
    O(n + arcs).
    """
    x = as_allocation(market, candidate)
    certs: dict[str, dict | None] = {}
    bad = chk.ir_violators(market, x)
    certs["individually_rational"] = None if not bad else {
        "type": "blocking_coalition", "notion": "weak", "coalition": [bad[0]],
        "reallocation": {bad[0]: market.endowment[bad[0]]}}
    for notion, kind, holds in (("weak_core", "weak", chk.in_weak_core),
                                ("strict_core", "strict", chk.in_strict_core)):
        certs[notion] = None
        if not holds(market, x):
            coalition, trade = _blocking_cycle(market, x, kind)
            certs[notion] = {"type": "blocking_coalition", "notion": kind,
                             "coalition": coalition, "reallocation": trade}
    certs["pareto_optimal"] = None
    if not chk.is_pareto_optimal(market, x):
        certs["pareto_optimal"] = {"type": "pareto_improvement",
                                   "allocation": _pareto_improvement(market, x)}
    for notion, cert in certs.items():
        if cert is not None:
            try:
                chk.check_refutation(market, x, notion, cert)
            except CertificateError as e:
                raise Disagreement({"reason": f"the engine's refutation of {notion} fails "
                                              f"the checker: {e}", "allocation": x}) from None
    return {notion: {"holds": cert is None, "certificate": cert}
            for notion, cert in certs.items()}


def _pareto_improvement(market: HousingMarket, x: dict[str, str]) -> dict[str, str]:
    """An allocation that Pareto-improves on ``x`` (which the checker found not Pareto
    optimal): a house nobody holds taken by an agent that lists it higher, else the
    engine's improving cycle (on the completed allocation when agents may be unmatched)."""
    if not market.unmatched_allowed:
        return {**x, **_blocking_cycle(market, x, "strict", endowment=x)[1]}
    free = chk.free_improvement(market, x)
    if free is not None:
        return {**x, free[0]: free[1]}
    full = completed_allocation(market, x)
    return reported_allocation(market, {**full, **_blocking_cycle(market, full, "strict",
                                                                  endowment=full)[1]})


def _question(name: str) -> Question:
    engines = {"oracle": _oracle(name), "cpsat": _encoding("cpsat", name),
               "z3": _encoding("z3", name)}
    if name == "strict_core":
        engines["milp"] = _milp
    engines["brute_force"] = _brute_force(name)
    engines = {k: _reported(fn) for k, fn in engines.items()}
    return Question(name=name, engines=engines, auto=_auto(name), decide=_decide,
                    audit=_audit(name), certify=_certify if name == "strict_core" else None)


# ----------------------------------------------------------------------------- hooks

def _shrinker() -> Shrinker:
    def agents(inst: dict) -> list[tuple[str, str]]:
        return [("agent", a) for a in inst["endowment"]]

    def keep(inst: dict, kept: list[tuple[str, str]]) -> dict:
        """Only the kept agents, each with its house (the others' houses leave every list)."""
        keep_set = {name for _, name in kept}
        gone = [a for a in inst["endowment"] if a not in keep_set]
        houses = {inst["endowment"][a] for a in gone}
        out = copy.deepcopy(inst)
        out["endowment"] = {a: h for a, h in inst["endowment"].items() if a not in gone}
        out["preferences"] = {a: without_items(lst, houses)
                              for a, lst in inst["preferences"].items() if a not in gone}
        return out
    return Shrinker(one_sided_lists, agents, keep, lambda inst: len(inst["preferences"]))


def _space() -> Space:
    def enumerate_(dims, complete, options):
        from ..generators.housing_market import housing_space
        return housing_space(*dims, complete=complete)

    def sample(dims, complete, rng, options):
        from ..generators.housing_market import random_housing
        return random_housing(*dims, complete, rng)

    def size(dims, complete):
        from ..generators.housing_market import housing_space_size
        return housing_space_size(*dims, complete=complete)

    def contains(market: HousingMarket, complete: bool) -> bool:
        return not complete or all(len(o) == market.size for o in market.preferences.values())
    return Space("housing", lambda n, max_items: [(n,)], size, enumerate_, sample, contains)


def _properties() -> dict[str, Property]:
    from ..pipeline.counterexample import certified_label, parse

    def strict_core_holds(inst: dict) -> bool:
        return orc.strict_core(parse(inst)).allocation is not None

    def strict_core_certify(inst: dict) -> dict:
        lab = certified_label(inst, "strict_core")
        if lab["verdict"] != "none":
            raise AssertionError("the engines find a strict-core allocation after all")
        return {"label": lab}

    def ttc(inst: dict) -> tuple[HousingMarket, dict]:
        m = parse(inst)
        return m, reported_allocation(m, orc.top_trading_cycles(m))

    def ttc_holds(inst: dict) -> bool:
        m, x = ttc(inst)
        return chk.in_strict_core(m, x)

    def ttc_certify(inst: dict) -> dict:
        m, x = ttc(inst)
        cert = classify(m, x)["strict_core"]["certificate"]
        checker.check(SPEC, m, "strict_core", None, "incorrect", x, cert)
        return {"ttc_allocation": x, "tie_break": "endowment order", "refutation": cert,
                "checked": True}
    return {p.name: p for p in (
        Property("strict-core-nonempty", "housing_market",
                 "the strict core of the housing market is non-empty",
                 strict_core_holds, strict_core_certify, min_agents=1),
        Property("ttc-in-strict-core", "housing_market",
                 "top trading cycles (ties broken by the endowment order) lands in the "
                 "strict core", ttc_holds, ttc_certify, min_agents=1))}


DOMAIN = Domain(
    spec=SPEC,
    questions={name: _question(name) for name in CORE_NOTION},
    default_questions=lambda market: ["strict_core", "weak_core"],
    classify=classify,
    shrinker=_shrinker(),
    space=_space(),
    peers=Absent("no peer library of audit-library answers housing-market questions"),
    properties=_properties,
)
