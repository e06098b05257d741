"""Rank-based welfare optima (utilitarian, egalitarian, rank-maximal): their checks, for
one-sided house allocation and two-sided SMTI markets alike (definitions in
:mod:`prefcert.formal.welfare`). Exact, in Python integers.

- ``lp_duals`` (utilitarian, rank-maximal): edge weights w(e) — ``B − cost(e)`` for the
  utilitarian notion, ``Σ_k B^(R−k)`` over the edge's ranks for the rank-maximal one (plus
  ``B^(R+1)`` per edge under the ``maximum`` scope, so cardinality comes first) — and
  dual potentials y ≥ 0 with y_l + y_r ≥ w(e) on every edge and Σ y = w(M). By LP duality
  for the bipartite matching polytope, M has maximum weight among all matchings; the bound
  on B makes that maximum cardinality then minimum total rank, or lexicographically
  maximum signature (Michail 2005). A rank-maximal certificate may state a cutoff C ≥ the
  worst rank used by M: ranks above C then share one weight class (exponent 0). This is
  exact: M has no agent above C, so a matching beats M lexicographically iff it beats M on
  the lumped vector (s_1, …, s_C, Σ_{k>C} s_k); it keeps the integers to about C·log10(B)
  digits instead of R·log10(B).
- ``hall_bottleneck`` (egalitarian): Hall/König witnesses. A set S of left vertices gives
  the vertex cover (L \\ S) ∪ N(S), so no matching is larger than |L| − |S| + |N(S)|
  (König 1931). One set proves |M| maximum; for the egalitarian value r a second set
  proves, in the graph of edges whose level is < r, that no matching reaches |M|.
- ``better_allocation`` (refutes a candidate): a strictly better matching.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from operator import add
from typing import Any

from ..errors import CertificateError
from ..house_allocation import HouseAllocation
from ..spec import DomainSpec, QuestionSpec, outcome
from ..welfare import (
    WELFARE,
    WelfareGraph,
    better,
    welfare_graph,
    welfare_value,
    worst_rank,
)

_DOC = {"utilitarian": "a maximum-cardinality matching of minimum total rank",
        "egalitarian": "a maximum-cardinality matching of minimum worst rank",
        "rank_maximal": "a matching of lexicographically maximum rank signature"}


def questions(two_sided: bool) -> dict[str, QuestionSpec]:
    """The three welfare questions (verdict ``optimal``); ``two_sided``: both partners'
    ranks count."""
    who = " (ranks of both sides count)" if two_sided else ""
    ranks = ("welfare_ranks",) if two_sided else ()
    shape = outcome("the matching" if two_sided else "the allocation")
    return {n: QuestionSpec(n, ("optimal",), _DOC[n] + who, conventions=ranks + (
        ("welfare_scope",) if n == "rank_maximal" else ()), solutions={"optimal": shape})
        for n in WELFARE}


def register(spec: DomainSpec) -> None:
    """Add the welfare certificate types to a domain whose questions include WELFARE."""
    spec.certificate("lp_duals", proves={"utilitarian": "optimal", "rank_maximal": "optimal"},
                     keys=("value", "base", "cutoff", "duals"))(check_lp_duals)
    spec.certificate("hall_bottleneck", proves={"egalitarian": "optimal"},
                     keys=("value", "size", "hall_full", "hall_below"))(check_hall_bottleneck)
    spec.certificate("better_allocation", proves=dict.fromkeys(WELFARE, "incorrect"),
                     keys=("allocation", "value"))(check_better_allocation)


def validate_matching(g: WelfareGraph, matching: object) -> dict[str, str]:
    """Check a matching left -> right over edges of ``g`` (None values = unmatched); return
    it without the None values or raise CertificateError. O(n)."""
    if not isinstance(matching, dict):
        raise CertificateError(f"a matching must be an object, got {matching!r:.60}")
    out, seen = {}, {}
    left = set(g.left)
    for x, y in matching.items():
        if x not in left:
            raise CertificateError(f"{x!r:.40} is not an agent of the matching's side")
        if y is None:
            continue
        if (x, y) not in g.ranks:
            raise CertificateError(f"pair ({x!r}, {y!r}) is not an acceptable pair")
        if y in seen:
            raise CertificateError(f"{y!r} is matched to both {seen[y]!r} and {x!r}")
        seen[y] = x
        out[x] = y
    return out


def hall_bound(g: WelfareGraph, hall_set: Iterable[str], below: int | None = None) -> int:
    """|L| − |S| + |N(S)|: the size of the vertex cover (L \\ S) ∪ N(S), an upper bound on
    every matching (König 1931). ``below``: only edges whose level is < below count. O(L)."""
    s = set(hall_set)
    unknown = s - set(g.left)
    if unknown:
        raise CertificateError(f"Hall set names {sorted(unknown)[0]!r}, not a left vertex")
    nbrs = {y for x in s for y in g.adj[x] if below is None or g.level((x, y)) < below}
    return len(g.left) - len(s) + len(nbrs)


def check_maximum(g: WelfareGraph, m: Mapping[str, str], hall_set: object) -> None:
    """``m`` has maximum cardinality: the Hall set bounds every matching by |m|."""
    if not isinstance(hall_set, list):
        raise CertificateError("missing Hall set for maximum cardinality")
    b = hall_bound(g, hall_set)
    if b != len(m):
        raise CertificateError(f"Hall set bounds matchings by {b}, not by |M| = {len(m)}")


def check_better(g: WelfareGraph, notion: str, old: Mapping[str, str], new: object) -> None:
    """``new`` is a matching strictly better than ``old`` for ``notion`` (a welfare notion or
    ``max_cardinality``; :func:`prefcert.formal.welfare.better`)."""
    if not better(g, notion, validate_matching(g, new), old):
        raise CertificateError(f"the proposed matching is not better for {notion}")


def check_duals(g: WelfareGraph, weights: Mapping[tuple[str, str], int], m: Mapping[str, str],
                duals: object) -> None:
    """Verify LP duals: integers y ≥ 0 on every vertex, y_l + y_r ≥ w(e) on every edge, and
    Σ y = w(m). Raises CertificateError naming the first failure. O(L)."""
    if not isinstance(duals, dict) or not isinstance(duals.get("left"), dict) \
            or not isinstance(duals.get("right"), dict):
        raise CertificateError("duals must be {'left': {...}, 'right': {...}}")
    yl, yr = duals["left"], duals["right"]
    for side, y, names in (("left", yl, g.left), ("right", yr, g.right)):
        for v in names:
            val = y.get(v, 0)
            if not isinstance(val, int) or isinstance(val, bool) or val < 0:
                raise CertificateError(f"dual of {side} vertex {v!r} is not an integer >= 0: "
                                       f"{val!r:.40}")
        extra = set(y) - set(names)
        if extra:
            raise CertificateError(f"dual given for unknown {side} vertex {sorted(extra)[0]!r}")
    for (x, y), w in weights.items():
        if yl.get(x, 0) + yr.get(y, 0) < w:
            raise CertificateError(f"dual constraint of edge ({x}, {y}) is violated")
    primal = sum(weights[(x, y)] for x, y in m.items())
    dual = sum(yl.values()) + sum(yr.values())
    if primal != dual:
        raise CertificateError(f"primal value {primal} differs from dual value {dual}")


def _solution(model, question: str, solution, certificate: dict):
    """(graph, matching, value) of a claimed optimum whose certificate states its value."""
    g = welfare_graph(model)
    m = validate_matching(g, solution)
    value = welfare_value(g, question, m)
    if certificate.get("value") != value:
        raise CertificateError(f"certificate value {certificate.get('value')!r} differs from "
                               f"the solution's {value!r}")
    return g, m, value


def check_lp_duals(model, question: str, params, verdict: str, solution, certificate: dict
                   ) -> None:
    """The solution has maximum weight under integer weights that order matchings by the
    notion: integral LP duals with equal objective values (utilitarian, rank-maximal)."""
    if question == "utilitarian" and isinstance(model, HouseAllocation) \
            and _utilitarian_accepted(model, solution, certificate):
        return
    g, m, _ = _solution(model, question, solution, certificate)
    base = certificate.get("base")
    # The weights are recomputed here, independently of the engines' copy that built the duals.
    n = min(len(g.left), len(g.right))
    if question == "utilitarian":     # one more edge gains B − C > n·C: any cost saving
        need = n * max((g.cost(e) for e in g.ranks), default=0) + 1
    else:                             # B exceeds every signature entry
        need = n * (2 if g.two_sided else 1) + 1
    if not isinstance(base, int) or base < need:
        raise CertificateError(f"base B = {base!r} is below the required {need}")
    if question == "utilitarian":
        weights = {e: base - g.cost(e) for e in g.ranks}
    else:
        cutoff = certificate.get("cutoff", g.max_rank)
        if not isinstance(cutoff, int) or not worst_rank(g, m) <= cutoff <= g.max_rank:
            raise CertificateError(f"cutoff {cutoff!r} must lie between the solution's "
                                   f"worst rank and the largest rank")
        power = [base ** (cutoff + 1 - min(k, cutoff + 1)) for k in range(g.max_rank + 1)]
        top = base ** (cutoff + 1) if g.maximum_first else 0   # cardinality first
        weights = {e: top + sum(power[k] for k in rk) for e, rk in g.ranks.items()}
    check_duals(g, weights, m, certificate.get("duals"))


def _utilitarian_accepted(model: HouseAllocation, solution: object,
                          certificate: dict[str, Any]) -> bool:
    """The one-sided utilitarian ``lp_duals`` check of :func:`check_lp_duals` on the
    model's integer :class:`~prefcert.formal.house_allocation.RankIndex`, without the
    welfare graph (no Python object per edge): True when the certificate verifies; False
    when some step does not (the graph-based check then names the failure).

    The same conditions, in the same integers: the solution is an allocation over
    acceptable pairs, its total rank is the certificate's ``value``, B ≥ min(n, p)·R + 1
    (R the largest rank), the duals are integers ≥ 0 on known vertices only, every entry
    (a, h) of rank r has y_a + y_h ≥ B − r — per agent, min over its list of y_h + r
    against B − y_a (C-level ``map`` over the index) — and Σ y = Σ_M (B − r). O(L).
    """
    if not isinstance(solution, dict):
        return False
    ix = model.rank_index()
    agents, objects = model.agents, model.objects
    offsets, objs, ranks = ix.offsets, ix.objects, ix.ranks
    ai = {a: i for i, a in enumerate(agents)}
    oi = {h: j for j, h in enumerate(objects)}
    held: set[int] = set()
    total = size = 0
    for x, y in solution.items():
        i = ai.get(x)
        if i is None:
            return False
        if y is None:
            continue
        j = oi.get(y) if isinstance(y, str) else None
        if j is None or j in held:
            return False
        lo, hi = offsets[i], offsets[i + 1]
        try:
            pos = objs[lo:hi].index(j)
        except ValueError:                      # not on the agent's list
            return False
        held.add(j)
        total += pos + 1 if ranks is None else ranks[lo + pos]
        size += 1
    if certificate.get("value") != total:
        return False
    base = certificate.get("base")
    need = min(len(agents), len(objects)) * ix.max_rank + 1
    if not isinstance(base, int) or base < need:
        return False
    duals = certificate.get("duals")
    if not isinstance(duals, dict) or not isinstance(duals.get("left"), dict) \
            or not isinstance(duals.get("right"), dict):
        return False
    yl, yr = duals["left"], duals["right"]
    for y, names in ((yl, agents), (yr, objects)):
        for v in names:
            val = y.get(v, 0)
            if not isinstance(val, int) or isinstance(val, bool) or val < 0:
                return False
        if len(y) > len(names) or not set(y) <= set(names):
            return False
    on_object = [yr.get(h, 0) for h in objects]
    for i, a in enumerate(agents):
        lo, hi = offsets[i], offsets[i + 1]
        if hi > lo and min(map(add, map(on_object.__getitem__, objs[lo:hi]),
                               ix.entry_ranks(i))) < base - yl.get(a, 0):
            return False
    return bool(size * base - total == sum(yl.values()) + sum(yr.values()))


def check_hall_bottleneck(model, question: str, params, verdict: str, solution,
                          certificate: dict) -> None:
    """The solution has maximum cardinality (a Hall set) and no maximum-cardinality
    matching stays below its worst rank (a second Hall set) (egalitarian); ``size`` is
    |M|."""
    g, m, value = _solution(model, question, solution, certificate)
    if certificate.get("size") != len(m):
        raise CertificateError(f"size {certificate.get('size')!r:.20} is not |M| = {len(m)}")
    check_maximum(g, m, certificate.get("hall_full"))
    if value > 1 and m:
        below = certificate.get("hall_below")
        if not isinstance(below, list):
            raise CertificateError("missing Hall set below the bottleneck")
        b = hall_bound(g, below, below=value)
        if b >= len(m):
            raise CertificateError(f"Hall set below level {value} bounds matchings by "
                                   f"{b} >= |M| = {len(m)}")


def check_better_allocation(model, question: str, params, verdict: str, solution,
                            certificate: dict) -> None:
    """The candidate (the solution) is not optimal: the certificate's ``allocation`` is a
    strictly better matching, of the stated ``value``."""
    g = welfare_graph(model)
    new = validate_matching(g, certificate.get("allocation"))
    check_better(g, question, validate_matching(g, solution), new)
    if certificate.get("value") != welfare_value(g, question, new):
        raise CertificateError("the better allocation's value is misstated")
