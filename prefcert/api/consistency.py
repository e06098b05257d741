"""Self-consistency of elicited judgments on plain Python data: the minimum L1 / L2
repairs of willingness-to-pay answers, intransitive cycles and the minimum feedback arc
set of pairwise choices, each a certified label. Re-exported as ``prefcert.<name>``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal, cast, overload

from . import arguments as arg
from .core import label
from .types import CertifiedRepair, Judgments, Label, Repair, Unit

UNITS = ("cell", "count", "completion")
JUDGMENTS = ("majority", "choices")


def _label(data: dict[str, Any], question: dict[str, Any]) -> Label:
    return label({"id": "consistency", "domain": "consistency", **data}, question)


def _repair(kind: str, cells: object, unit: object, certificate: bool) -> Repair:
    rows = list(arg.sequence(cells, "cells", "cells"))
    lab = _label({"cells": rows}, {"type": kind, "unit": arg.choice(unit, "unit", UNITS)})
    sol = lab["solution"]
    out: dict[str, Any] = {"verdict": lab["verdict"],
                           "utilities": {x: Fraction(v) for x, v in sol["utilities"].items()}}
    if lab["verdict"] == "optimal":
        out["cost"] = Fraction(sol["cost"])
    else:
        out["lower"], out["upper"] = Fraction(sol["lower"]), Fraction(sol["upper"])
    if certificate:
        out["certificate"] = lab["certificate"]
    return cast(Repair, out)


@overload
def min_l1_repair(cells: Sequence[Mapping[str, Any]], *, unit: Unit = "cell",
                  certificate: Literal[False] = False) -> Repair: ...
@overload
def min_l1_repair(cells: Sequence[Mapping[str, Any]], *, unit: Unit = "cell",
                  certificate: Literal[True]) -> CertifiedRepair: ...
@overload
def min_l1_repair(cells: Sequence[Mapping[str, Any]], *, unit: Unit = "cell",
                  certificate: bool) -> Repair: ...
def min_l1_repair(cells: Sequence[Mapping[str, Any]], *, unit: Unit = "cell",
                  certificate: bool = False) -> Repair:
    """The minimum weighted L1 adjustment of the answers that makes them exactly consistent.

    Parameters
    ----------
    cells : sequence of dict
        Query cells in the instance format of the ``consistency`` domain: ``{"id", "type":
        "pair", "a": {"item", "price"}, "b": {...}, "values": [...]}`` (answers Y(a, b),
        estimates of U(b) − U(a)) or ``{"id", "type": "item", "item", "values"}``
        (answers Y(x), estimates of u(x)). Numbers are read as the exact decimals they spell.
    unit : {"cell", "count", "completion"}, default "cell"
        Adjust each cell mean (weight 1), each cell mean with weight n_c, or every
        completion on its own.
    certificate : bool, default False
        Also return the dual circulation the checker verified.

    Returns
    -------
    Repair
        A dict: ``verdict`` (``optimal``), ``cost`` (a :class:`fractions.Fraction`:
        dollars) and ``utilities`` (item -> Fraction) attaining it; with
        ``certificate=True`` a ``CertifiedRepair``, the same dict with the checked
        ``circulation_dual`` under ``certificate``.

    Raises
    ------
    InstanceError
        Malformed cells.

    Examples
    --------
    >>> cells = [
    ...     {"id": "xy", "type": "pair", "a": {"item": "x", "price": 10},
    ...      "b": {"item": "y", "price": 12}, "values": [3, 5]},
    ...     {"id": "x", "type": "item", "item": "x", "values": [20]},
    ...     {"id": "y", "type": "item", "item": "y", "values": [25]}]
    >>> min_l1_repair(cells)["cost"]
    Fraction(1, 1)

    Notes
    -----
    An LP (HiGHS) made exact and a network-simplex solve of its dual, a maximum-weight
    circulation; the checker verifies the circulation (|λ| ≤ w, conserved at every item)
    and that Σ λ r equals the cost of the utilities, in O(observations) rational steps.

    References
    ----------
    Ahuja, Magnanti & Orlin (1993), *Network Flows*, ch. 9 (LP duality of min-cost
    circulations). Ford et al. (2026) for the consistency conditions.
    """
    return _repair("l1_repair", cells, unit, certificate)


@overload
def min_l2_repair(cells: Sequence[Mapping[str, Any]], *, unit: Unit = "cell",
                  certificate: Literal[False] = False) -> Repair: ...
@overload
def min_l2_repair(cells: Sequence[Mapping[str, Any]], *, unit: Unit = "cell",
                  certificate: Literal[True]) -> CertifiedRepair: ...
@overload
def min_l2_repair(cells: Sequence[Mapping[str, Any]], *, unit: Unit = "cell",
                  certificate: bool) -> Repair: ...
def min_l2_repair(cells: Sequence[Mapping[str, Any]], *, unit: Unit = "cell",
                  certificate: bool = False) -> Repair:
    """The minimum weighted sum of squared adjustments that makes the answers exactly
    consistent: the least-squares lack of fit, in exact rationals.

    Parameters
    ----------
    cells : sequence of dict
        As for :func:`min_l1_repair`.
    unit : {"cell", "count", "completion"}, default "cell"
        As for :func:`min_l1_repair`; with ``cell`` the cost is n · RMSE² of the
        unweighted least-squares fit on cell means.
    certificate : bool, default False
        Also return the dual circulation the checker verified.

    Returns
    -------
    Repair
        A dict: ``verdict`` (``optimal``, or ``bounded`` with ``lower`` / ``upper`` when
        exact elimination was out of reach), ``cost`` and ``utilities`` (Fractions); with
        ``certificate=True`` a ``CertifiedRepair``, the same dict with the checked
        ``quadratic_dual`` under ``certificate``.

    Raises
    ------
    InstanceError
        Malformed cells.

    Examples
    --------
    >>> cells = [
    ...     {"id": "xy", "type": "pair", "a": {"item": "x", "price": 10},
    ...      "b": {"item": "y", "price": 12}, "values": [3, 5]},
    ...     {"id": "x", "type": "item", "item": "x", "values": [20]},
    ...     {"id": "y", "type": "item", "item": "y", "values": [25]}]
    >>> r = min_l2_repair(cells)
    >>> r["cost"], r["utilities"]["y"]
    (Fraction(1, 3), Fraction(76, 3))

    Notes
    -----
    Normal equations solved exactly per component of the item graph (O(p³)); the dual
    μ = w (r − Au) is a circulation and Σ (2 μ r − μ²/w) equals the cost.

    References
    ----------
    Jiang, Lim, Yao & Ye (2011), "Statistical ranking and combinatorial Hodge theory",
    Math. Programming 127 (least squares on a graph of pairwise differences).
    """
    return _repair("l2_repair", cells, unit, certificate)


def intransitive_cycle(choices: Sequence[Sequence[Any]], *,
                       judgments: Judgments = "majority") -> list[str] | None:
    """A cycle of judgments a₁ ≻ a₂ ≻ … ≻ a₁, or None when some order agrees with all.

    Parameters
    ----------
    choices : sequence of [winner, loser, count]
        Repeated pairwise choices.
    judgments : {"majority", "choices"}, default "majority"
        One judgment per pair, its majority (ties give none); or every direction chosen.

    Returns
    -------
    list of str or None
        The certified cycle (checked by prefcert's checker), or None (acyclic, with a
        checked consistent order).

    Raises
    ------
    InstanceError
        Malformed choices.

    Examples
    --------
    >>> intransitive_cycle([["a", "b", 2], ["b", "c", 2], ["c", "a", 2]])
    ['a', 'b', 'c']
    >>> intransitive_cycle([["a", "b", 2], ["b", "c", 2], ["a", "c", 1]]) is None
    True

    Notes
    -----
    O(alternatives + choices).

    References
    ----------
    Kahn (1962), "Topological sorting of large networks", Comm. ACM 5.
    """
    lab = _label({"choices": _choices(choices)},
                 {"type": "transitive", "judgments": arg.choice(judgments, "judgments",
                                                                JUDGMENTS)})
    cycle: list[str] | None = lab["certificate"]["cycle"] if lab["verdict"] == "false" \
        else None
    return cycle


def _choices(choices: object) -> list[list[Any]]:
    return [list(arg.sequence(c, "choices", "[winner, loser, count] triples"))
            for c in arg.sequence(choices, "choices", "[winner, loser, count] triples")]


def minimum_feedback_arc_set(choices: Sequence[Sequence[Any]], *,
                             judgments: Judgments = "majority") -> tuple[int, list[str]]:
    """The fewest (weighted) judgments to reverse so that an order agrees with all.

    Parameters
    ----------
    choices : sequence of [winner, loser, count]
        Repeated pairwise choices.
    judgments : {"majority", "choices"}, default "majority"
        With ``majority`` each pair's majority is one judgment of weight 1; with
        ``choices`` every single choice counts (the linear ordering problem).

    Returns
    -------
    (int, list of str)
        The minimum and an order (best first) attaining it, certified: components of at
        most 12 alternatives are re-solved exactly by the checker, larger ones bounded by
        a fractional cycle packing.

    Raises
    ------
    InstanceError
        Malformed choices.
    Undecided
        A component too large for the engines, or a gap no certificate closes.

    Examples
    --------
    >>> minimum_feedback_arc_set([["a", "b", 2], ["b", "c", 2], ["c", "a", 1]])[0]
    1
    >>> minimum_feedback_arc_set([["a", "b", 2], ["b", "c", 2], ["c", "a", 1]],
    ...                          judgments="choices")
    (1, ['a', 'b', 'c'])

    Notes
    -----
    Strongly connected components solved apart: subset DP up to 16 alternatives
    (O(2^k k)), a HiGHS MILP on the linear ordering formulation up to 60.

    References
    ----------
    Grötschel, Jünger & Reinelt (1984), "A cutting plane algorithm for the linear ordering
    problem", Oper. Res. 32. Held & Karp (1962), J. SIAM 10 (subset DP).
    """
    lab = _label({"choices": _choices(choices)},
                 {"type": "feedback_arc_set", "judgments": arg.choice(judgments, "judgments",
                                                                      JUDGMENTS)})
    reversed_: int = lab["solution"]["reversed"]
    order: list[str] = lab["solution"]["order"]
    return reversed_, order
