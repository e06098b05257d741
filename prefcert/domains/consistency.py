"""The consistency domain wired to its engines.

- ``l1_repair``: HiGHS LP made exact (``lp``) and network simplex on the dual circulation
  (``flow``); certificate ``circulation_dual``.
- ``l2_repair``: exact normal equations (``exact``) and ``numpy.linalg.lstsq`` with exact
  bounds (``lstsq``); certificate ``quadratic_dual``.
- ``transitive``: networkx (``oracle``) and Kahn's algorithm (``kahn``); certificates
  ``consistent_order`` / ``judgment_cycle``.
- ``feedback_arc_set``: subset DP per strongly connected component (``oracle``, ≤ 16
  alternatives a component), HiGHS MILP on the linear ordering formulation with a
  cycle-packing bound (``milp``, ≤ 60 a component), CP-SAT on the same formulation
  (``cpsat``, run by default only when every component has ≤ 12 alternatives: it is slow
  beyond), every order (``brute_force``, ≤ 8); certificate ``fas_bound``. When no
  certificate closes the gap (a component above 12 alternatives with a fractional
  packing below the optimum), three agreeing engines give an ``engine_agreement`` record
  that carries the verified bounds.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..formal.checker.consistency import SPEC
from ..formal.consistency import (
    QUESTIONS,
    ConsistencyData,
    judgment_arcs,
    judgment_arcs_ints,
    observations,
    question_params,
)
from ..formal.errors import CertificateError, Undecided
from ..formal.outcome import UNKNOWN, Outcome
from .base import (Absent, Decision, Domain, Question, agreement, disagreement,
                   gave_up)


def _obs(model: ConsistencyData, name: str, params: Any):
    return observations(model, question_params(name, params))


def _arcs(model: ConsistencyData, name: str, params: Any):
    return judgment_arcs(model, question_params(name, params))


def _l1_lp(model, params, *, time_limit, seed):
    from ..encodings.consistency import l1_lp
    return l1_lp(model, _obs(model, "l1_repair", params), time_limit=time_limit)


def _l1_flow(model, params, *, time_limit, seed):
    from ..oracles.consistency import l1_min_cost_flow
    return l1_min_cost_flow(model, _obs(model, "l1_repair", params))


def _l2_exact(model, params, *, time_limit, seed):
    from ..oracles.consistency import l2_exact
    return l2_exact(model, _obs(model, "l2_repair", params))


def _l2_lstsq(model, params, *, time_limit, seed):
    from ..encodings.consistency import l2_lstsq
    return l2_lstsq(model, _obs(model, "l2_repair", params))


def _interval(o: Outcome) -> tuple[Fraction, Fraction]:
    if o.verdict == "optimal":
        c = Fraction(o.solution["cost"])
        return c, c
    return Fraction(o.solution["lower"]), Fraction(o.solution["upper"])


def _decide_repair(answers, check) -> Decision:
    """Every engine's certificate must pass and the intervals they prove must meet; the
    first optimal answer (else the narrowest bounds) is the label."""
    decided = [a for a in answers if a.outcome.verdict != UNKNOWN]
    if not decided:
        raise Undecided(gave_up(answers))
    for a in decided:
        try:
            check(a.outcome.verdict, a.outcome.solution, a.outcome.certificate or {})
        except CertificateError as e:
            raise disagreement(f"certificate of {a.engine} rejected: {e}", answers, check)
    lows, highs = zip(*(_interval(a.outcome) for a in decided))
    if max(lows) > min(highs):
        raise disagreement("the engines' certified intervals do not meet", answers, check)
    best = min(decided, key=lambda a: (a.outcome.verdict != "optimal",
                                       _interval(a.outcome)[1] - _interval(a.outcome)[0]))
    o = best.outcome
    return Decision(o.verdict, o.solution, o.certificate)


def _int_arcs(model: ConsistencyData, name: str, params: Any):
    return judgment_arcs_ints(model, question_params(name, params))


def _transitive_oracle(model, params, *, time_limit, seed):
    from ..oracles.consistency import consistent_order_ints, judgment_cycle_ints
    arcs, names = _int_arcs(model, "transitive", params), model.ints.nodes
    cycle = judgment_cycle_ints(len(names), arcs)
    if cycle is not None:
        return Outcome("false", None, {"type": "judgment_cycle",
                                       "cycle": [names[x] for x in cycle]})
    order = consistent_order_ints(len(names), arcs)
    return Outcome("true", [names[x] for x in order], {"type": "consistent_order"})


def _transitive_kahn(model, params, *, time_limit, seed):
    from ..oracles.consistency import kahn_order_ints
    names = model.ints.nodes
    order, cycle = kahn_order_ints(len(names), _int_arcs(model, "transitive", params))
    if cycle is not None:
        return Outcome("false", None, {"type": "judgment_cycle",
                                       "cycle": [names[x] for x in cycle]})
    return Outcome("true", [names[x] for x in order], {"type": "consistent_order"})


def _decide_transitive(answers, check) -> Decision:
    decided = [a for a in answers if a.outcome.verdict != UNKNOWN]
    if not decided:
        raise Undecided(gave_up(answers))
    if len({a.outcome.verdict for a in decided}) > 1:
        raise disagreement("engines disagree on the verdict", answers, check)
    for a in decided:
        try:
            check(a.outcome.verdict, a.outcome.solution, a.outcome.certificate or {})
        except CertificateError as e:
            raise disagreement(f"certificate of {a.engine} rejected: {e}", answers, check)
    o = decided[0].outcome
    return Decision(o.verdict, o.solution, o.certificate)


def _fas(kind: str):
    def run(model, params, *, time_limit, seed):
        if kind == "oracle":
            from ..oracles.consistency import fas_exact_ints
            return fas_exact_ints(model.ints.nodes,
                                  _int_arcs(model, "feedback_arc_set", params))
        arcs = _arcs(model, "feedback_arc_set", params)
        if kind == "brute_force":
            from ..oracles.consistency import fas_brute_force
            return fas_brute_force(arcs, model.nodes)
        from ..encodings import consistency as enc
        if kind == "milp":
            return enc.fas_milp(arcs, model.nodes, time_limit=time_limit)
        return enc.fas_cpsat(arcs, model.nodes, time_limit=time_limit, seed=seed)
    return run


def _decide_fas(answers, check) -> Decision:
    """The values must agree; the first certificate the checker accepts gives the label;
    without one, three agreeing engines give an ``engine_agreement`` record."""
    decided = [a for a in answers if a.outcome.verdict != UNKNOWN]
    if not decided:
        raise Undecided(gave_up(answers))
    values = {a.outcome.solution["reversed"] for a in decided}
    if len(values) > 1:
        raise disagreement("engines disagree on the minimum", answers, check)
    errors = []
    for a in decided:
        if a.outcome.certificate is None:
            continue
        try:
            check("optimal", a.outcome.solution, a.outcome.certificate)
        except CertificateError as e:
            if not str(e).startswith("the lower bound"):     # a wrong order, not a gap
                raise disagreement(f"certificate of {a.engine} rejected: {e}", answers, check)
            errors.append(f"{a.engine}: {e}")
            continue
        return Decision("optimal", a.outcome.solution, a.outcome.certificate)
    names = [a.engine for a in decided]
    if len(names) < 3:
        raise Undecided("no certificate closes the gap (" + "; ".join(errors) + ") and "
                        "fewer than three engines answered")
    return Decision("optimal", decided[0].outcome.solution,
                    agreement("optimal", names, unproved=errors))


CPSAT_COMPONENT = 12      # CP-SAT cross-checks components up to this size (slow beyond)


def _fas_auto(model: ConsistencyData) -> list[str]:
    """oracle and milp always; cpsat when every strongly connected component of the
    densest judgment graph (every choice an arc) has at most 12 alternatives; brute force
    up to 8 alternatives."""
    from ..oracles.consistency import strong_components_ints
    arcs = judgment_arcs_ints(model, "choices")
    biggest = max((len(c) for c in strong_components_ints(len(model.ints.nodes), arcs)),
                  default=0)
    return ["oracle", "milp"] + (["cpsat"] if biggest <= CPSAT_COMPONENT else []) + \
        (["brute_force"] if len(model.nodes) <= 8 else [])


def _all(names):
    return lambda model: list(names)


QUESTION_TABLE = {
    "l1_repair": Question("l1_repair", {"lp": _l1_lp, "flow": _l1_flow},
                          _all(["lp", "flow"]), _decide_repair),
    "l2_repair": Question("l2_repair", {"exact": _l2_exact, "lstsq": _l2_lstsq},
                          _all(["exact", "lstsq"]), _decide_repair),
    "transitive": Question("transitive", {"oracle": _transitive_oracle,
                                          "kahn": _transitive_kahn},
                           _all(["oracle", "kahn"]), _decide_transitive),
    "feedback_arc_set": Question(
        "feedback_arc_set",
        {k: _fas(k) for k in ("oracle", "milp", "cpsat", "brute_force")},
        _fas_auto,
        _decide_fas),
}


def _defaults(model: ConsistencyData) -> list[str]:
    out = []
    if model.cells:
        out += ["l1_repair", "l2_repair"]
    if model.choices:
        out += ["transitive", "feedback_arc_set"]
    return out


assert set(QUESTION_TABLE) == set(QUESTIONS)
DOMAIN = Domain(
    spec=SPEC, questions=QUESTION_TABLE, default_questions=_defaults,
    shrinker=Absent("the cells and choices of an elicitation carry its design (endpoint "
                    "pairs, items, stress paths): no reduction is defined yet"),
    space=Absent("consistency audits are sampled (generators/consistency.py), not enumerated"),
    peers=Absent("no peer library of audit-library answers consistency questions"),
    properties=Absent("no built-in counterexample property is about consistency"),
)
