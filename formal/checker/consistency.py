"""Self-consistency of elicited judgments: what counts as proof (exact rationals only).

Cardinal questions (definitions in :mod:`prefcert.formal.consistency`): the observations
r ≈ u(head) − u(tail) of an audit group, weights w.

- ``circulation_dual`` (``l1_repair``): the solution's utilities u need the adjustment
  Σ w |r − Au| (the upper bound, recomputed here). The certificate's flow λ (one rational
  per observation) is a *circulation* — at every item, the flow of the observations
  entering it equals the flow leaving it (Aᵀλ = 0; the ground node absorbs the rest) —
  with |λ| ≤ w. For every u', Σ λ r = Σ λ (r − Au') ≤ Σ w |r − Au'|, so Σ λ r is a lower
  bound on every adjustment that makes the answers consistent (LP duality). ``optimal``:
  both bounds equal the stated cost.
- ``quadratic_dual`` (``l2_repair``): the same with Σ w (r − Au)². For a circulation μ,
  w e² − 2 μ e + μ²/w ≥ 0 gives Σ w e² ≥ Σ (2 μ r − μ² / w) for every u' (Lagrange
  duality of the least-squares problem); at the least-squares fit μ = w (r − Au) closes
  the gap. ``bounded`` states the two bounds when they differ.

Ordinal questions (the judgment graph, arcs a ≻ b with integer weights):

- ``consistent_order`` (``transitive`` true): an order of every node reversing no arc.
- ``judgment_cycle`` (``transitive`` false): a directed cycle of judgments.
- ``fas_bound`` (``feedback_arc_set`` optimal): the solution's order reverses the stated
  weight (recomputed). The lower bound adds, over the strongly connected components of
  the judgment graph (every cycle lies in one, so the minimum is their sum), the exact
  minimum of each component of at most :data:`EXHAUSTIVE_NODES` nodes, recomputed here by
  dynamic programming over subsets (Held & Karp 1962; O(2^k k)), and, for the larger ones,
  a fractional packing of cycles y ≥ 0 whose load on every arc is at most its weight (the
  LP dual of the cycle-covering formulation of the feedback arc set). The weights are
  integers, so a lower bound above value − 1 proves the value optimal.
"""
from __future__ import annotations

from fractions import Fraction

from ..consistency import (
    PARAMS,
    QUESTIONS,
    ConsistencyData,
    judgment_arcs_ints,
    observation_arcs,
    observations,
    parse_consistency,
    question_params,
    resolve,
    validate,
)
from ..errors import CertificateError
from ..spec import NULL, DomainSpec, QuestionSpec, fields, instance_schema, outcome
from .graphs import strongly_connected_components

#: components of at most this many nodes are solved exactly by the checker
EXHAUSTIVE_NODES = 12

_NUM = {"anyOf": [{"type": "number"}, {"type": "string"}]}
_OFFER = {"type": "object", "required": ["item", "price"],
          "properties": {"item": {"type": "string"}, "price": _NUM}}
_CELL = {"type": "object", "required": ["id", "type", "values"], "properties": {
    "id": {"type": "string", "minLength": 1}, "type": {"enum": ["pair", "item"]},
    "a": _OFFER, "b": _OFFER, "item": {"type": "string"},
    "values": {"type": "array", "minItems": 1, "items": _NUM}}}
_QUESTION = {"anyOf": [{"enum": list(QUESTIONS)}] + [
    {"type": "object", "required": ["type"], "additionalProperties": False,
     "properties": {"type": {"const": q}, key: {"enum": list(allowed)}}}
    for q, (key, allowed) in PARAMS.items()]}

#: a repair's solution: the adjusted utilities (every item, exact rationals) and the cost
#: (``optimal``) or its verified bounds (``bounded``)
_REPAIR = {"optimal": fields("utilities", "cost"),
           "bounded": fields("utilities", "lower", "upper")}

SPEC = DomainSpec(
    name="consistency",
    parse=parse_consistency,
    questions={
        "l1_repair": QuestionSpec("l1_repair", ("optimal", "bounded"),
                                  "the minimum weighted L1 adjustment of the answers that "
                                  "makes them exactly consistent", {"unit": "unit?"},
                                  solutions=_REPAIR, partial=("bounded",)),
        "l2_repair": QuestionSpec("l2_repair", ("optimal", "bounded"),
                                  "the minimum weighted L2 (squared) adjustment: the "
                                  "least-squares lack of fit", {"unit": "unit?"},
                                  solutions=_REPAIR, partial=("bounded",)),
        "transitive": QuestionSpec("transitive", ("true", "false"),
                                   "whether the judgments are acyclic (some order agrees "
                                   "with all of them)", {"judgments": "judgments?"},
                                   solutions={"true": outcome("an order of every alternative, "
                                                              "best first"),
                                              "false": NULL}),
        "feedback_arc_set": QuestionSpec("feedback_arc_set", ("optimal",),
                                         "the fewest (weighted) judgments to reverse for an "
                                         "acyclic order", {"judgments": "judgments?"},
                                         solutions={"optimal": fields("order", "reversed")}),
    },
    schema=instance_schema("consistency", {
        "cells": {"type": "array", "items": _CELL},
        "choices": {"type": "array", "items": {"type": "array", "minItems": 3, "maxItems": 3,
                                               "prefixItems": [{"type": "string"},
                                                               {"type": "string"},
                                                               {"type": "integer",
                                                                "minimum": 1}]}},
        "rankings": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
    }, [], _QUESTION),
    resolve=resolve,
    validate=validate,
)


def _rational(x: object, what: str) -> Fraction:
    if isinstance(x, bool) or not isinstance(x, (int, str)):
        raise CertificateError(f"{what} must be an integer or a 'p/q' string, got {x!r:.40}")
    try:
        return Fraction(x)
    except (ValueError, ZeroDivisionError):
        raise CertificateError(f"{what} is not a rational: {x!r:.40}") from None


def _utilities(model: ConsistencyData, solution: object) -> list[Fraction]:
    """The solution's utilities by item integer, with a last entry 0 for the ground
    (index ``-1``)."""
    if not isinstance(solution, dict) or not isinstance(solution.get("utilities"), dict):
        raise CertificateError("the solution needs 'utilities': {item: rational}")
    given = solution["utilities"]
    items = model.ints.items
    missing = [x for x in items if x not in given]
    if missing:
        raise CertificateError(f"no utility for item {missing[0]!r}")
    index = model.ints.item_index
    extra = [x for x in given if x not in index]
    if extra:
        raise CertificateError(f"a utility for {extra[0]!r:.40}, not an item")
    return [_rational(given[x], f"utility of {x!r}") for x in items] + [Fraction(0)]


def _flow(model: ConsistencyData, tails: list[int], heads: list[int],
          certificate: dict) -> list[Fraction]:
    """The certificate's flow, checked to be a circulation: Aᵀλ = 0 at every item."""
    raw = certificate.get("flow")
    if not isinstance(raw, list) or len(raw) != len(heads):
        raise CertificateError(f"'flow' must list one rational per observation "
                               f"({len(heads)})")
    flow = [_rational(v, f"flow of observation {i}") for i, v in enumerate(raw)]
    balance = [Fraction(0)] * (len(model.ints.items) + 1)       # the last: the ground
    for t, h, f in zip(tails, heads, flow):
        balance[h] += f
        balance[t] -= f
    balance.pop()
    bad = next((x for x, b in enumerate(balance) if b != 0), None)
    if bad is not None:
        raise CertificateError(f"the flow is not conserved at item {model.ints.items[bad]!r} "
                               f"(excess {balance[bad]})")
    return flow


def _residuals(tails: list[int], heads: list[int], obs: list, u: list[Fraction]
               ) -> list[Fraction]:
    return [o.r - u[h] + u[t] for t, h, o in zip(tails, heads, obs)]


def _bounds_match(question: str, verdict: str, solution: dict, lower: Fraction,
                  upper: Fraction) -> None:
    if verdict == "optimal":
        cost = _rational(solution.get("cost"), "cost")
        if not lower == upper == cost:
            raise CertificateError(f"{question}: dual bound {lower} and primal value {upper} "
                                   f"do not both equal the stated cost {cost}")
        return
    lo, hi = _rational(solution.get("lower"), "lower"), _rational(solution.get("upper"), "upper")
    if lo != lower or hi != upper:
        raise CertificateError(f"{question}: stated bounds [{lo}, {hi}] differ from the "
                               f"verified [{lower}, {upper}]")


@SPEC.certificate("circulation_dual", proves={"l1_repair": ("optimal", "bounded")},
                  keys=("flow",))
def check_circulation_dual(model: ConsistencyData, question: str, params, verdict: str,
                           solution, certificate: dict) -> None:
    """The minimum weighted L1 adjustment: the solution's utilities achieve the upper
    bound; a circulation with |flow| ≤ weight gives the equal (``optimal``) or stated
    (``bounded``) lower bound Σ flow · r (LP duality). O(observations)."""
    obs = observations(model, question_params(question, params))
    tails, heads = observation_arcs(model, obs)
    u = _utilities(model, solution)
    upper = sum((o.w * abs(e) for o, e in zip(obs, _residuals(tails, heads, obs, u))),
                Fraction(0))
    flow = _flow(model, tails, heads, certificate)
    for i, (o, f) in enumerate(zip(obs, flow)):
        if abs(f) > o.w:
            raise CertificateError(f"flow {f} of observation {i} exceeds its weight {o.w}")
    lower = sum((f * o.r for o, f in zip(obs, flow)), Fraction(0))
    _bounds_match(question, verdict, solution, lower, upper)


@SPEC.certificate("quadratic_dual", proves={"l2_repair": ("optimal", "bounded")},
                  keys=("flow",))
def check_quadratic_dual(model: ConsistencyData, question: str, params, verdict: str,
                         solution, certificate: dict) -> None:
    """The minimum weighted L2 adjustment (least-squares lack of fit): the utilities
    achieve Σ w (r − Au)²; a circulation μ gives the lower bound Σ (2 μ r − μ²/w), equal
    to it (``optimal``) or as stated (``bounded``). O(observations)."""
    obs = observations(model, question_params(question, params))
    tails, heads = observation_arcs(model, obs)
    u = _utilities(model, solution)
    upper = sum((o.w * e * e for o, e in zip(obs, _residuals(tails, heads, obs, u))),
                Fraction(0))
    flow = _flow(model, tails, heads, certificate)
    lower = sum((2 * f * o.r - f * f / o.w for o, f in zip(obs, flow)), Fraction(0))
    _bounds_match(question, verdict, solution, lower, upper)


# ------------------------------------------------------------------------------ ordinal

def _arcs(model: ConsistencyData, question: str, params) -> dict[tuple[int, int], int]:
    """The judgment graph on the node integers of ``model.ints``."""
    return judgment_arcs_ints(model, question_params(question, params))


def _order(model: ConsistencyData, order: object) -> list[int]:
    """``order`` as node integers: every alternative exactly once."""
    index = model.ints.node_index
    if not isinstance(order, list) or len(order) != len(index):
        raise CertificateError("the order must list every alternative exactly once")
    seen = [False] * len(index)
    out = []
    for x in order:
        i = index.get(x) if isinstance(x, str) else None
        if i is None or seen[i]:
            raise CertificateError("the order must list every alternative exactly once")
        seen[i] = True
        out.append(i)
    return out


def _reversed(arcs: dict[tuple[int, int], int], order: list[int]) -> int:
    """The weight of the arcs a → b that ``order`` puts b before a. O(nodes + arcs)."""
    pos = [0] * len(order)
    for k, x in enumerate(order):
        pos[x] = k
    return sum(w for (a, b), w in arcs.items() if pos[b] < pos[a])


@SPEC.certificate("consistent_order", proves={"transitive": "true"}, keys=())
def check_consistent_order(model: ConsistencyData, question: str, params, verdict: str,
                           solution, certificate: dict) -> None:
    """The judgments are acyclic: the solution orders every alternative (best first)
    without reversing any judgment. O(nodes + arcs)."""
    arcs = _arcs(model, question, params)
    if _reversed(arcs, _order(model, solution)) != 0:
        raise CertificateError("the order reverses a judgment")


def check_cycle(model: ConsistencyData, arcs: dict[tuple[int, int], int],
                cycle: object) -> list[int]:
    """``cycle`` is a directed cycle of ``arcs`` (on the node integers of ``model.ints``):
    at least two distinct alternatives, each judged better than the next, the last better
    than the first. Returns it as node integers. O(k)."""
    if not isinstance(cycle, list) or len(cycle) < 2 or len(set(cycle)) != len(cycle):
        raise CertificateError(f"a cycle lists at least two distinct alternatives: "
                               f"{cycle!r:.60}")
    index = model.ints.node_index
    out = [index.get(x, -1) if isinstance(x, str) else -1 for x in cycle]
    for k, (a, b) in enumerate(zip(out, out[1:] + out[:1])):
        if a < 0 or b < 0 or (a, b) not in arcs:
            raise CertificateError(f"{cycle[k]!r} ≻ {cycle[(k + 1) % len(cycle)]!r} is not "
                                   "a judgment")
    return out


@SPEC.certificate("judgment_cycle", proves={"transitive": "false"}, keys=("cycle",))
def check_judgment_cycle(model: ConsistencyData, question: str, params, verdict: str,
                         solution, certificate: dict) -> None:
    """The judgments are intransitive: the certificate's ``cycle`` a₁ ≻ a₂ ≻ … ≻ a_k ≻ a₁
    consists of judgments. O(k)."""
    check_cycle(model, _arcs(model, question, params), certificate.get("cycle"))


def exact_minimum(nodes: list, arcs) -> int:
    """The minimum weight of arcs an order of ``nodes`` reverses, by dynamic programming
    over the subsets placed first (O(2^k k)); only arcs between ``nodes`` count."""
    k = len(nodes)
    idx = {x: i for i, x in enumerate(nodes)}
    w = [[0] * k for _ in range(k)]
    for (a, b), c in arcs.items():
        if a in idx and b in idx:
            w[idx[a]][idx[b]] += c
    full = 1 << k
    # back[v][S]: weight of the arcs v → s, s ∈ S (reversed when v comes after all of S)
    back = []
    for v in range(k):
        t = [0] * full
        row = w[v]
        for s in range(1, full):
            low = s & -s
            t[s] = t[s ^ low] + row[low.bit_length() - 1]
        back.append(t)
    inf = float("inf")
    best = [inf] * full
    best[0] = 0
    for s in range(full):
        b = best[s]
        if b == inf:
            continue
        for v in range(k):
            bit = 1 << v
            if not s & bit:
                c = b + back[v][s]
                if c < best[s | bit]:
                    best[s | bit] = c
    return int(best[full - 1])


@SPEC.certificate("fas_bound", proves={"feedback_arc_set": "optimal"}, keys=("cycles",))
def check_fas_bound(model: ConsistencyData, question: str, params, verdict: str, solution,
                    certificate: dict) -> None:
    """The solution's order reverses the fewest judgments (by weight): components of the
    judgment graph of at most 12 alternatives are solved exactly here, larger ones are
    bounded by the certificate's fractional cycle packing; the total bound exceeds the
    value minus one (integer weights)."""
    arcs = _arcs(model, question, params)
    if not isinstance(solution, dict):
        raise CertificateError("the solution must be {'order': [...], 'reversed': int}")
    order = _order(model, solution.get("order"))
    value = solution.get("reversed")
    cost = _reversed(arcs, order)
    if cost != value:
        raise CertificateError(f"the order reverses {cost}, not the stated {value!r}")
    names = model.ints.nodes
    adj: dict[int, list[int]] = {x: [] for x in range(len(names))}
    for a, b in arcs:
        adj[a].append(b)
    comp = strongly_connected_components(adj)
    members: dict[int, list[int]] = {}
    for x in range(len(names)):
        members.setdefault(comp[x], []).append(x)
    inner: dict[int, dict[tuple[int, int], int]] = {}
    for (a, b), c in arcs.items():
        if comp[a] == comp[b]:
            inner.setdefault(comp[a], {})[(a, b)] = c
    lower = Fraction(0)
    for key, group in members.items():
        if 1 < len(group) <= EXHAUSTIVE_NODES:
            lower += exact_minimum(group, inner.get(key, {}))
    load: dict[tuple[int, int], Fraction] = {}
    packing = certificate.get("cycles", [])
    if not isinstance(packing, list):
        raise CertificateError("'cycles' must be a list of {'cycle': [...], 'y': rational}")
    for entry in packing:
        if not isinstance(entry, dict):
            raise CertificateError("a packed cycle is {'cycle': [...], 'y': rational}")
        cycle = check_cycle(model, arcs, entry.get("cycle"))
        y = _rational(entry.get("y"), "cycle weight y")
        if y < 0:
            raise CertificateError(f"cycle weight {y} is negative")
        for e in zip(cycle, cycle[1:] + cycle[:1]):
            load[e] = load.get(e, Fraction(0)) + y
            if load[e] > arcs[e]:
                raise CertificateError(f"the packing loads judgment {names[e[0]]!r} ≻ "
                                       f"{names[e[1]]!r} beyond its weight {arcs[e]}")
        if len(members[comp[cycle[0]]]) > EXHAUSTIVE_NODES:
            lower += y
    if not lower > value - 1:
        raise CertificateError(f"the lower bound {float(lower):.6g} does not reach the "
                               f"value {value}")
