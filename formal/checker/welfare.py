"""Rank-based welfare optima (utilitarian, egalitarian, rank-maximal): their checks, for
one-sided house allocation and two-sided SMTI markets alike.

INTERIM: delegates to :mod:`prefcert.formal.allocation` until that module is split into a
model and a standard-library check.
"""
from __future__ import annotations

from .. import allocation as fa
from ..spec import DomainSpec, QuestionSpec

WELFARE = ("utilitarian", "egalitarian", "rank_maximal")
_DOC = {"utilitarian": "a maximum-cardinality matching of minimum total rank",
        "egalitarian": "a maximum-cardinality matching of minimum worst rank",
        "rank_maximal": "a matching of lexicographically maximum rank signature"}


def questions(two_sided: bool) -> dict[str, QuestionSpec]:
    """The three welfare questions (verdict ``optimal``); ``two_sided``: both partners'
    ranks count."""
    who = " (ranks of both sides count)" if two_sided else ""
    return {n: QuestionSpec(n, ("optimal",), _DOC[n] + who) for n in WELFARE}


def register(spec: DomainSpec) -> None:
    """Add the welfare certificate types to a domain whose questions include WELFARE."""
    spec.certificate("lp_duals", proves={"utilitarian": "optimal",
                                         "rank_maximal": "optimal"})(check_lp_duals)
    spec.certificate("hall_bottleneck", proves={"egalitarian": "optimal"})(check_hall_bottleneck)


def _check(model, question, verdict, solution, certificate) -> None:
    g = fa.welfare_graph(model)
    fa.check_welfare(g, question, verdict, fa.validate_matching(g, solution), certificate)


def check_lp_duals(model, question: str, params, verdict: str, solution, certificate: dict
                   ) -> None:
    """The solution has maximum weight under integer weights that order matchings by the
    notion: integral LP duals with equal objective values (utilitarian, rank-maximal)."""
    _check(model, question, verdict, solution, certificate)


def check_hall_bottleneck(model, question: str, params, verdict: str, solution,
                          certificate: dict) -> None:
    """The solution has maximum cardinality (a Hall set) and no maximum-cardinality
    matching stays below its worst rank (a second Hall set) (egalitarian)."""
    _check(model, question, verdict, solution, certificate)
