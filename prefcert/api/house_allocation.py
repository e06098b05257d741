"""House allocation (one-sided matching) on plain Python data: serial dictatorship,
maximum-cardinality Pareto optimality and the rank-based welfare optima. Re-exported as
``prefcert.<name>``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, overload

from ..formal.errors import CertificateError
from . import arguments as arg
from ._common import in_order, prefs, proved
from .types import Certificate, Matching, Prefs


def _allocation(preferences: object, objects: object) -> Any:
    from ..formal.house_allocation import parse_house_allocation
    data: dict[str, Any] = {"preferences": dict(prefs(preferences, "prefs",
                                                       "agent -> list of objects"))}
    if objects is not None:
        data["objects"] = arg.names(objects, "objects", "objects")
    return parse_house_allocation(data)


def serial_dictatorship(prefs: Prefs, order: Sequence[str] | None = None, *,
                        objects: Sequence[str] | None = None) -> dict[str, str]:
    """Serial dictatorship: agents in turn take their best available object.

    Parameters
    ----------
    prefs : dict of str to list
        Agent -> acceptable objects best first (a nested list is a tie).
    order : sequence of str, optional
        The agents' turn order (default: the order of ``prefs``).
    objects : sequence of str, optional
        Every object (default: those ranked by someone).

    Returns
    -------
    dict of str to str
        Agent -> object; a Pareto-optimal allocation. With ties each agent fixes the best
        tie it can still be served from (the matching-based rule), which keeps Pareto
        optimality.

    Examples
    --------
    >>> serial_dictatorship({"a1": ["o1", "o2"], "a2": ["o1"]}, order=["a2", "a1"])
    {'a1': 'o2', 'a2': 'o1'}

    Notes
    -----
    O(n·R·L) with ties (R the longest list in ties), O(L) for strict lists.

    References
    ----------
    Abdulkadiroğlu & Sönmez 1998, Econometrica 66; Krysta, Manlove, Rastegari & Zhang
    2014, EC.
    """
    from ..oracles.house_allocation import serial_dictatorship as sd
    model = _allocation(prefs, objects)
    turns = arg.names(order, "order", "agents") if order is not None else None
    return in_order(sd(model, turns), prefs)


def max_cardinality_pareto_optimal(prefs: Prefs, *, objects: Sequence[str] | None = None
                                   ) -> dict[str, str]:
    """A maximum-cardinality Pareto-optimal allocation.

    Parameters
    ----------
    prefs : dict of str to list
        Agent -> acceptable objects best first (a nested list is a tie).
    objects : sequence of str, optional
        Every object (default: those ranked by someone).

    Returns
    -------
    dict of str to str
        Agent -> object.

    Examples
    --------
    >>> max_cardinality_pareto_optimal({"a1": ["o1", "o2"], "a2": ["o1"]})
    {'a1': 'o2', 'a2': 'o1'}

    References
    ----------
    Abraham, Cechlárová, Manlove & Mehlhorn 2004, "Pareto optimality in house allocation
    problems", ISAAC.
    """
    from ..oracles.house_allocation import max_cardinality_pareto_optimal as mcpo
    return in_order(mcpo(_allocation(prefs, objects)), prefs)


def _welfare(fn_name: str, question: str, prefs: Prefs, objects: Sequence[str] | None,
             certificate: bool) -> Matching | tuple[Matching, Certificate]:
    from ..oracles import house_allocation as oa
    model = _allocation(prefs, objects)
    m: Matching
    m, cert = getattr(oa, fn_name)(model)
    m = in_order(m, prefs)
    if not certificate:
        return m
    if cert is None:
        raise CertificateError(f"the {question} oracle found no optimality proof")
    return m, proved("house_allocation", model, question, "optimal", m, cert)


@overload
def rank_maximal(prefs: Prefs, *, objects: Sequence[str] | None = None,
                 certificate: Literal[False] = False) -> Matching: ...
@overload
def rank_maximal(prefs: Prefs, *, objects: Sequence[str] | None = None,
                 certificate: Literal[True]) -> tuple[Matching, Certificate]: ...
@overload
def rank_maximal(prefs: Prefs, *, objects: Sequence[str] | None = None,
                 certificate: bool) -> Matching | tuple[Matching, Certificate]: ...
def rank_maximal(prefs: Prefs, *, objects: Sequence[str] | None = None,
                 certificate: bool = False) -> Matching | tuple[Matching, Certificate]:
    """A rank-maximal allocation: lexicographically most agents at rank 1, then rank 2, …

    Parameters
    ----------
    prefs : dict of str to list
        Agent -> acceptable objects best first (a nested list is a tie).
    objects : sequence of str, optional
        Every object (default: those ranked by someone).
    certificate : bool, default False
        Also return the proof: exact integral LP duals (``lp_duals``).

    Returns
    -------
    dict of str to str
        Agent -> object; with ``certificate=True`` a pair ``tuple[dict[str, str], dict]``
        (allocation, certificate) already accepted by the trusted checker.

    Examples
    --------
    >>> rank_maximal({"a1": ["o1", "o2"], "a2": ["o1", "o3"], "a3": ["o1"]})
    {'a1': 'o2', 'a2': 'o3', 'a3': 'o1'}

    Notes
    -----
    O(min(n + C, C√n)·m), C the largest rank used.

    References
    ----------
    Irving, Kavitha, Mehlhorn, Michail & Paluch 2006, "Rank-maximal matchings", ACM TALG 2.
    """
    return _welfare("rank_maximal", "rank_maximal", prefs, objects, certificate)


@overload
def utilitarian_matching(prefs: Prefs, *, objects: Sequence[str] | None = None,
                         certificate: Literal[False] = False) -> Matching: ...
@overload
def utilitarian_matching(prefs: Prefs, *, objects: Sequence[str] | None = None,
                         certificate: Literal[True]) -> tuple[Matching, Certificate]: ...
@overload
def utilitarian_matching(prefs: Prefs, *, objects: Sequence[str] | None = None,
                         certificate: bool) -> Matching | tuple[Matching, Certificate]: ...
def utilitarian_matching(prefs: Prefs, *, objects: Sequence[str] | None = None,
                         certificate: bool = False) -> Matching | tuple[Matching, Certificate]:
    """A maximum-cardinality allocation of minimum total rank.

    Parameters
    ----------
    prefs : dict of str to list
        Agent -> acceptable objects best first (a nested list is a tie).
    objects : sequence of str, optional
        Every object (default: those ranked by someone).
    certificate : bool, default False
        Also return the proof: integral LP duals (``lp_duals``).

    Returns
    -------
    dict of str to str
        Agent -> object, or with ``certificate=True`` a pair ``tuple[dict[str, str],
        dict]`` (allocation, certificate) accepted by the trusted checker.

    Examples
    --------
    >>> utilitarian_matching({"a1": ["o1", "o2"], "a2": ["o2", "o3"], "a3": ["o2", "o1"]})
    {'a1': 'o1', 'a2': 'o3', 'a3': 'o2'}

    Notes
    -----
    Hungarian method on integer weights, O(n³).

    References
    ----------
    Kuhn 1955, "The Hungarian method for the assignment problem", Naval Res. Logist. 2.
    """
    return _welfare("utilitarian_matching", "utilitarian", prefs, objects, certificate)


@overload
def egalitarian_matching(prefs: Prefs, *, objects: Sequence[str] | None = None,
                         certificate: Literal[False] = False) -> Matching: ...
@overload
def egalitarian_matching(prefs: Prefs, *, objects: Sequence[str] | None = None,
                         certificate: Literal[True]) -> tuple[Matching, Certificate]: ...
@overload
def egalitarian_matching(prefs: Prefs, *, objects: Sequence[str] | None = None,
                         certificate: bool) -> Matching | tuple[Matching, Certificate]: ...
def egalitarian_matching(prefs: Prefs, *, objects: Sequence[str] | None = None,
                         certificate: bool = False) -> Matching | tuple[Matching, Certificate]:
    """A maximum-cardinality allocation of minimum worst rank (minimum regret).

    Parameters
    ----------
    prefs : dict of str to list
        Agent -> acceptable objects best first (a nested list is a tie).
    objects : sequence of str, optional
        Every object (default: those ranked by someone).
    certificate : bool, default False
        Also return the proof: Hall / König sets (``hall_bottleneck``).

    Returns
    -------
    dict of str to str
        Agent -> object, or with ``certificate=True`` a pair ``tuple[dict[str, str],
        dict]`` (allocation, certificate) accepted by the trusted checker.

    Examples
    --------
    >>> egalitarian_matching({"a1": ["o1", "o2"], "a2": ["o1", "o2"]})
    {'a1': 'o1', 'a2': 'o2'}

    Notes
    -----
    Bottleneck threshold search over maximum matchings, O(√n·L·log R).

    References
    ----------
    Gross 1959 (bottleneck assignment); Manlove 2013, *Algorithmics of Matching Under
    Preferences*, §1.3.
    """
    return _welfare("egalitarian_matching", "egalitarian", prefs, objects, certificate)
