"""Two-sided stable matching (SMTI) on plain Python data: deferred acceptance, weakly,
super- and strongly stable matchings and blocking pairs. Side A proposes (its agents are
the keys of every returned matching); side B receives. Re-exported as ``prefcert.<name>``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, overload

from . import arguments as arg
from ._common import in_order, prefs, proved
from .types import Certificate, Matching, Notion, Prefs

NOTIONS = ("weak", "strong", "super")


def _market(side_a: object, side_b: object) -> Any:
    from ..formal.stable_matching import parse_market
    a, b = prefs(side_a, "side_a"), prefs(side_b, "side_b")
    return parse_market({"preferences": {"A": dict(a), "B": dict(b)}})


def deferred_acceptance(side_a: Prefs, side_b: Prefs) -> dict[str, str]:
    """Gale–Shapley deferred acceptance: the side-A-optimal stable matching (side A
    proposes).

    Parameters
    ----------
    side_a, side_b : dict of str to list of str
        Strict (tie-free), possibly incomplete lists, best first; a pair is acceptable
        only when each side lists the other.

    Returns
    -------
    dict of str to str
        Side A agent -> side B agent; unmatched agents are absent.

    Raises
    ------
    ValueError
        A list holds a tie (use :func:`weakly_stable_matching`).

    Examples
    --------
    >>> deferred_acceptance({"m1": ["w1", "w2"], "m2": ["w1", "w2"]},
    ...                     {"w1": ["m2", "m1"], "w2": ["m1", "m2"]})
    {'m1': 'w2', 'm2': 'w1'}

    Notes
    -----
    O(L) for total list length L.

    References
    ----------
    Gale & Shapley 1962, "College admissions and the stability of marriage"; McVitie &
    Wilson 1971.
    """
    from ..oracles.stable_matching import deferred_acceptance as da
    market = _market(side_a, side_b)
    return in_order(da(market), side_a)


def weakly_stable_matching(side_a: Prefs, side_b: Prefs) -> dict[str, str]:
    """A weakly stable matching of a market with ties and incomplete lists (SMTI).

    Parameters
    ----------
    side_a, side_b : dict of str to list
        Lists best first; a nested list is a tie group.

    Returns
    -------
    dict of str to str
        Side A agent -> side B agent. One always exists.

    Examples
    --------
    >>> weakly_stable_matching({"m1": [["w1", "w2"]]}, {"w1": ["m1"], "w2": ["m1"]})
    {'m1': 'w1'}

    Notes
    -----
    Ties broken in list order, then deferred acceptance; O(L).

    References
    ----------
    Irving 1994, "Stable marriage and indifference", Discrete Applied Mathematics 48.
    """
    from ..oracles.stable_matching import weakly_stable_matching as ws
    return in_order(ws(_market(side_a, side_b)), side_a)


def _stable(question: str, search: Callable[[Any], Any], side_a: Prefs,
            side_b: Prefs, certificate: bool
            ) -> Matching | None | tuple[Matching | None, Certificate]:
    market = _market(side_a, side_b)
    matching: Matching | None
    matching, refutation = search(market)
    if matching is not None:
        matching = in_order(matching, side_a)
    if not certificate:
        return matching
    if matching is None:
        return None, proved("stable_matching", market, question, "none", None, refutation)
    cert = {"type": "stable_matching"}
    return matching, proved("stable_matching", market, question, "exists", matching, cert)


@overload
def super_stable_matching(side_a: Prefs, side_b: Prefs, *,
                          certificate: Literal[False] = False) -> Matching | None: ...
@overload
def super_stable_matching(side_a: Prefs, side_b: Prefs, *,
                          certificate: Literal[True]
                          ) -> tuple[Matching | None, Certificate]: ...
@overload
def super_stable_matching(side_a: Prefs, side_b: Prefs, *, certificate: bool
                          ) -> Matching | None | tuple[Matching | None, Certificate]: ...
def super_stable_matching(side_a: Prefs, side_b: Prefs, *, certificate: bool = False
                          ) -> Matching | None | tuple[Matching | None, Certificate]:
    """The side-A-optimal super-stable matching, or None when none exists.

    Parameters
    ----------
    side_a, side_b : dict of str to list
        Lists best first; a nested list is a tie group.
    certificate : bool, default False
        Also return the proof: ``{"type": "stable_matching"}`` for a matching (the
        checker scans every pair), or a replayable ``deletion_log`` refuting existence.

    Returns
    -------
    dict of str to str or None
        Side A agent -> side B agent; with ``certificate=True`` a pair ``tuple[dict[str, str] | None,
        dict]`` (matching or None, certificate), the certificate already accepted by the
        trusted checker.

    Examples
    --------
    >>> super_stable_matching({"m1": [["w1", "w2"]], "m2": ["w1"]},
    ...                       {"w1": ["m2", "m1"], "w2": ["m1"]})
    {'m1': 'w2', 'm2': 'w1'}
    >>> super_stable_matching({"m1": ["w1"], "m2": ["w1"]}, {"w1": [["m1", "m2"]]}) is None
    True

    Notes
    -----
    Algorithm SUPER, O(L).

    References
    ----------
    Irving 1994, Discrete Applied Mathematics 48; Manlove 1999, "Stable marriage with
    ties and unacceptable partners", Glasgow TR-1999-29.
    """
    from ..oracles.stable_matching import super_stable_search
    return _stable("super_stable", super_stable_search, side_a, side_b, certificate)


@overload
def strongly_stable_matching(side_a: Prefs, side_b: Prefs, *,
                             certificate: Literal[False] = False) -> Matching | None: ...
@overload
def strongly_stable_matching(side_a: Prefs, side_b: Prefs, *,
                             certificate: Literal[True]
                             ) -> tuple[Matching | None, Certificate]: ...
@overload
def strongly_stable_matching(side_a: Prefs, side_b: Prefs, *, certificate: bool
                             ) -> Matching | None | tuple[Matching | None, Certificate]: ...
def strongly_stable_matching(side_a: Prefs, side_b: Prefs, *,
                             certificate: bool = False
                             ) -> Matching | None | tuple[Matching | None, Certificate]:
    """A strongly stable matching, or None when none exists.

    Parameters
    ----------
    side_a, side_b : dict of str to list
        Lists best first; a nested list is a tie group.
    certificate : bool, default False
        Also return the proof (see :func:`super_stable_matching`); a refutation's
        ``critical`` steps are re-derived by the checker from a maximum matching.

    Returns
    -------
    dict of str to str or None
        Side A agent -> side B agent; with ``certificate=True`` a pair ``tuple[dict[str, str] | None,
        dict]`` (matching or None, certificate), accepted by the trusted checker.

    Examples
    --------
    >>> strongly_stable_matching({"m1": [["w1", "w2"]], "m2": ["w1"]},
    ...                          {"w1": [["m1", "m2"]], "w2": ["m1"]})
    {'m1': 'w2', 'm2': 'w1'}

    Notes
    -----
    Algorithm STRONG with critical sets, O(L²) here.

    References
    ----------
    Irving 1994; Manlove 1999; Kavitha, Mehlhorn, Michail & Paluch 2007, "Strongly stable
    matchings in time O(nm)", ACM TALG 3.
    """
    from ..oracles.stable_matching import strongly_stable_search
    return _stable("strongly_stable", strongly_stable_search, side_a, side_b,
                   certificate)


def blocking_pairs(side_a: Prefs, side_b: Prefs, matching: Mapping[str, str],
                   notion: Notion = "weak") -> list[tuple[str, str]]:
    """Every pair that blocks a matching under a stability notion.

    Parameters
    ----------
    side_a, side_b : dict of str to list
        Lists best first; a nested list is a tie group.
    matching : dict of str to str
        Side A agent -> side B agent, over mutually acceptable pairs.
    notion : {"weak", "strong", "super"}
        Weak: both strictly prefer each other; strong: one strictly, the other weakly;
        super: both weakly (ties with the partner included).

    Returns
    -------
    list of (str, str)
        The blocking (side A, side B) pairs in list order; empty when ``matching`` is stable.

    Raises
    ------
    CertificateError
        ``matching`` is not a matching of the market.

    Examples
    --------
    >>> blocking_pairs({"m1": ["w1", "w2"], "m2": ["w1", "w2"]},
    ...                {"w1": ["m1", "m2"], "w2": ["m1", "m2"]}, {"m1": "w2", "m2": "w1"})
    [('m1', 'w1')]

    Notes
    -----
    O(L): every admissible pair is scanned (this is the checker's own test).

    References
    ----------
    Irving 1994; Manlove 2013, *Algorithmics of Matching Under Preferences*, ch. 3.
    """
    from ..formal.checker.stable_matching import blocking_pairs as bp
    market = _market(side_a, side_b)
    m = arg.mapping(matching, "matching", "side A agent -> side B agent")
    pairs: list[tuple[str, str]] = bp(market, dict(m), arg.choice(notion, "notion", NOTIONS))
    return pairs
