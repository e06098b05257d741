"""Shapley–Scarf housing markets on plain Python data: top trading cycles and the strict
core. Re-exported as ``prefcert.<name>``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast, overload

from . import arguments as arg
from ._common import in_order, prefs, proved
from .types import Certificate, Matching, Prefs


def _housing(preferences: object, endowment: object) -> Any:
    from ..formal.housing_market import parse_housing_market
    p = prefs(preferences, "prefs", "agent -> list of houses")
    e = arg.mapping(endowment, "endowment", "agent -> house")
    return parse_housing_market({"preferences": dict(p), "endowment": dict(e)})


def top_trading_cycles(prefs: Prefs, endowment: Mapping[str, str],
                       tie_break: Sequence[str] | None = None) -> dict[str, str]:
    """Gale's top trading cycles: a weak-core allocation of a housing market.

    Parameters
    ----------
    prefs : dict of str to list
        Agent -> houses best first (a nested list is a tie); an unlisted house is worse than
        the agent's own.
    endowment : dict of str to str
        Agent -> the house it owns (a bijection).
    tie_break : sequence of str, optional
        House priority that breaks ties (default: the endowment order).

    Returns
    -------
    dict of str to str
        Agent -> house. With strict preferences it is the unique strict-core allocation.

    Examples
    --------
    >>> top_trading_cycles({"a": ["h2", "h1"], "b": ["h1", "h2"], "c": ["h1", "h3"]},
    ...                    {"a": "h1", "b": "h2", "c": "h3"})
    {'a': 'h2', 'b': 'h1', 'c': 'h3'}

    Notes
    -----
    O(n + L) after refining ties.

    References
    ----------
    Shapley & Scarf 1974, "On cores and indivisibility", J. Math. Econ. 1.
    """
    from ..oracles.housing_market import top_trading_cycles as ttc
    market = _housing(prefs, endowment)
    return in_order(ttc(market, arg.names(tie_break, "tie_break", "houses")
                        if tie_break is not None else None), endowment)


@overload
def strict_core(prefs: Prefs, endowment: Mapping[str, str], *,
                certificate: Literal[False] = False) -> Matching | None: ...
@overload
def strict_core(prefs: Prefs, endowment: Mapping[str, str], *,
                certificate: Literal[True]) -> tuple[Matching | None, Certificate]: ...
@overload
def strict_core(prefs: Prefs, endowment: Mapping[str, str], *, certificate: bool
                ) -> Matching | None | tuple[Matching | None, Certificate]: ...
def strict_core(prefs: Prefs, endowment: Mapping[str, str], *, certificate: bool = False
                ) -> Matching | None | tuple[Matching | None, Certificate]:
    """An allocation in the strict (strong) core of a housing market with ties, or None.

    Parameters
    ----------
    prefs : dict of str to list
        Agent -> houses best first (a nested list is a tie).
    endowment : dict of str to str
        Agent -> the house it owns.
    certificate : bool, default False
        Also return the proof: ``core_allocation`` for an allocation, or a
        ``top_trading_segmentation`` with a Hall violator proving the core empty.

    Returns
    -------
    dict of str to str or None
        Agent -> house; with ``certificate=True`` a pair ``tuple[dict[str, str] | None,
        dict]`` (allocation or None, certificate) already accepted by the trusted checker.

    Examples
    --------
    >>> strict_core({"a": [["h1", "h2"]], "b": ["h1", "h2"]}, {"a": "h1", "b": "h2"})
    {'a': 'h2', 'b': 'h1'}
    >>> strict_core({"a1": ["h2", "h1"], "a2": [["h1", "h3"], "h2"], "a3": ["h2", "h3"]},
    ...             {"a1": "h1", "a2": "h2", "a3": "h3"}) is None
    True

    Notes
    -----
    Top-trading segmentation, O(n³). When no agent ties two houses at or above its own
    (in particular, strict preferences), the segments are the top trading cycles and the
    allocation is found by pointer chasing in O(n + L), L the total list length; it is then
    the unique strict-core allocation (Roth & Postlewaite 1977).

    References
    ----------
    Roth & Postlewaite 1977, "Weak versus strong domination in a market with indivisible
    goods", J. Math. Econ. 4.
    Quint & Wako 2004, "On houseswapping, the strict core, segmentation, and linear
    programming", Math. Oper. Res. 29.
    """
    from ..oracles.housing_market import strict_core as sc
    market = _housing(prefs, endowment)
    res = sc(market)
    x = None if res.allocation is None else in_order(res.allocation, endowment)
    if not certificate:
        return x
    if x is None:
        return None, proved("housing_market", market, "strict_core", "none", None,
                             cast(Certificate, res.certificate))
    return x, proved("housing_market", market, "strict_core", "exists", x,
                      {"type": "core_allocation"})
