"""Hospitals/residents with ties (HRT) on plain Python data: the public functions.

Residents rank hospitals and hospitals rank residents (lists best first, a nested list for a
tie); ``capacities`` maps every hospital to its number of posts (0 allowed). A pair is
admissible only when each side lists the other (a one-sided entry is dropped). Matchings
are dicts resident -> hospital. Every function here is re-exported as ``prefcert.<name>``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, overload

from . import arguments as arg
from ._common import in_order, prefs, proved
from .stable_matching import NOTIONS
from .types import Certificate, Matching, Notion, Prefs, Proposing


def _market(residents: object, hospitals: object, capacities: object) -> Any:
    from ..formal.hospitals_residents import parse_hospitals_residents
    r = prefs(residents, "residents", "resident -> list of hospitals")
    h = prefs(hospitals, "hospitals", "hospital -> list of residents")
    c = arg.mapping(capacities, "capacities", "hospital -> number of posts")
    return parse_hospitals_residents({"preferences": {"residents": dict(r),
                                                      "hospitals": dict(h)},
                                      "capacities": dict(c)})


def _proved(market: Any, question: str, verdict: str, solution: Matching | None,
            cert: Certificate) -> Certificate:
    return proved("hospitals_residents", market, question, verdict, solution, cert)


def hrt_deferred_acceptance(residents: Prefs, hospitals: Prefs, capacities: Mapping[str, int],
                            proposing: Proposing = "residents") -> dict[str, str]:
    """Gale–Shapley deferred acceptance for hospitals/residents with strict lists.

    Parameters
    ----------
    residents, hospitals : dict of str to list of str
        Strict, possibly incomplete lists, best first.
    capacities : dict of str to int
        Posts of every hospital (0 allowed).
    proposing : {"residents", "hospitals"}
        The proposing side: the result is the resident-optimal or the hospital-optimal
        stable matching.

    Returns
    -------
    dict of str to str
        Resident -> hospital; unassigned residents are absent.

    Raises
    ------
    ValueError
        A list holds a tie (use :func:`hrt_weakly_stable_matching`).
    InstanceError
        Bad input (an unknown agent, a missing or negative capacity).

    Examples
    --------
    >>> residents = {"a": ["x", "y"], "b": ["y", "x"], "c": ["x"]}
    >>> hospitals = {"x": ["b", "a", "c"], "y": ["a", "b"]}
    >>> hrt_deferred_acceptance(residents, hospitals, {"x": 1, "y": 1})
    {'a': 'x', 'b': 'y'}
    >>> hrt_deferred_acceptance(residents, hospitals, {"x": 1, "y": 1}, proposing="hospitals")
    {'a': 'y', 'b': 'x'}

    Notes
    -----
    O(L) for total list length L.

    References
    ----------
    Gale & Shapley 1962, "College admissions and the stability of marriage"; Roth 1984,
    "The evolution of the labor market for medical interns and residents".
    """
    from ..oracles.hospitals_residents import deferred_acceptance
    market = _market(residents, hospitals, capacities)
    side = arg.choice(proposing, "proposing", ("residents", "hospitals"))
    return in_order(deferred_acceptance(market, side), residents)


def hrt_weakly_stable_matching(residents: Prefs, hospitals: Prefs,
                               capacities: Mapping[str, int]) -> dict[str, str]:
    """A weakly stable matching of a hospitals/residents market with ties (always exists).

    Parameters
    ----------
    residents, hospitals : dict of str to list
        Lists best first; a nested list is a tie group.
    capacities : dict of str to int
        Posts of every hospital.

    Returns
    -------
    dict of str to str
        Resident -> hospital.

    Examples
    --------
    >>> hrt_weakly_stable_matching({"a": [["x", "y"]], "b": ["x"]},
    ...                            {"x": [["a", "b"]], "y": ["a"]}, {"x": 1, "y": 1})
    {'a': 'x'}

    Notes
    -----
    Ties broken in list order, then resident-proposing deferred acceptance; O(L).

    References
    ----------
    Irving, Manlove & Scott 2000, "The hospitals/residents problem with ties", SWAT.
    """
    from ..oracles.hospitals_residents import weakly_stable_matching
    return in_order(weakly_stable_matching(_market(residents, hospitals, capacities)),
                    residents)


def _stable(question: str, search: Callable[[Any], Any], residents: Prefs, hospitals: Prefs,
            capacities: Mapping[str, int], certificate: bool
            ) -> Matching | None | tuple[Matching | None, Certificate]:
    market = _market(residents, hospitals, capacities)
    matching: Matching | None
    matching, refutation = search(market)
    if matching is not None:
        matching = in_order(matching, residents)
    if not certificate:
        return matching
    if matching is None:
        return None, _proved(market, question, "none", None, refutation)
    return matching, _proved(market, question, "exists", matching, {"type": "stable_matching"})


@overload
def hrt_super_stable_matching(residents: Prefs, hospitals: Prefs,
                              capacities: Mapping[str, int], *, certificate: Literal[False] = False
                              ) -> Matching | None: ...
@overload
def hrt_super_stable_matching(residents: Prefs, hospitals: Prefs,
                              capacities: Mapping[str, int], *, certificate: Literal[True]
                              ) -> tuple[Matching | None, Certificate]: ...
@overload
def hrt_super_stable_matching(residents: Prefs, hospitals: Prefs,
                              capacities: Mapping[str, int], *, certificate: bool
                              ) -> Matching | None | tuple[Matching | None, Certificate]: ...
def hrt_super_stable_matching(residents: Prefs, hospitals: Prefs,
                              capacities: Mapping[str, int], *, certificate: bool = False
                              ) -> Matching | None | tuple[Matching | None, Certificate]:
    """The resident-optimal super-stable matching, or None when none exists.

    Parameters
    ----------
    residents, hospitals : dict of str to list
        Lists best first; a nested list is a tie group.
    capacities : dict of str to int
        Posts of every hospital.
    certificate : bool, default False
        Also return the proof: ``{"type": "stable_matching"}`` for a matching, or a
        replayable ``deletion_log`` refuting existence, already accepted by the checker.

    Returns
    -------
    dict of str to str or None
        Resident -> hospital; with ``certificate=True`` a pair ``tuple[dict[str, str] |
        None, dict]`` (matching or None, certificate) accepted by the trusted checker.

    Examples
    --------
    >>> hrt_super_stable_matching({"a": ["x"], "b": ["x"]}, {"x": [["a", "b"]]}, {"x": 2})
    {'a': 'x', 'b': 'x'}
    >>> m, proof = hrt_super_stable_matching({"a": ["x"], "b": ["x"]}, {"x": [["a", "b"]]},
    ...                                      {"x": 1}, certificate=True)
    >>> m, proof["steps"]
    (None, [['oversubscribed', 'x', ['a', 'b']]])

    Notes
    -----
    Algorithm SUPER-RES, O(L).

    References
    ----------
    Irving, Manlove & Scott 2000, "The hospitals/residents problem with ties", SWAT,
    LNCS 1851.
    """
    from ..oracles.hospitals_residents import super_stable_search
    return _stable("super_stable", super_stable_search, residents, hospitals, capacities,
                   certificate)


@overload
def hrt_strongly_stable_matching(residents: Prefs, hospitals: Prefs,
                                 capacities: Mapping[str, int], *, certificate: Literal[False] = False
                                 ) -> Matching | None: ...
@overload
def hrt_strongly_stable_matching(residents: Prefs, hospitals: Prefs,
                                 capacities: Mapping[str, int], *, certificate: Literal[True]
                                 ) -> tuple[Matching | None, Certificate]: ...
@overload
def hrt_strongly_stable_matching(residents: Prefs, hospitals: Prefs,
                                 capacities: Mapping[str, int], *, certificate: bool
                                 ) -> Matching | None | tuple[Matching | None, Certificate]: ...
def hrt_strongly_stable_matching(residents: Prefs, hospitals: Prefs,
                                 capacities: Mapping[str, int], *, certificate: bool = False
                                 ) -> Matching | None | tuple[Matching | None, Certificate]:
    """A strongly stable matching, or None when none exists.

    Parameters
    ----------
    residents, hospitals : dict of str to list
        Lists best first; a nested list is a tie group.
    capacities : dict of str to int
        Posts of every hospital.
    certificate : bool, default False
        Also return the proof (see :func:`hrt_super_stable_matching`); the log's
        ``critical`` steps are re-derived by the checker from a maximum quota-matching.

    Returns
    -------
    dict of str to str or None
        Resident -> hospital; with ``certificate=True`` a pair ``tuple[dict[str, str] |
        None, dict]`` (matching or None, certificate) accepted by the trusted checker.

    Examples
    --------
    >>> hrt_strongly_stable_matching({"a": [["x", "y"]], "b": [["x", "y"]]},
    ...                              {"x": [["a", "b"]], "y": [["a", "b"]]}, {"x": 1, "y": 1})
    {'a': 'x', 'b': 'y'}
    >>> hrt_strongly_stable_matching({"a": ["x"], "b": ["x"]}, {"x": [["a", "b"]]},
    ...                              {"x": 1}) is None
    True

    Notes
    -----
    Algorithm STRONG-RES with critical sets of the reduced assignment graph, O(a²) for a
    admissible pairs here.

    References
    ----------
    Irving, Manlove & Scott 2003, "Strong stability in the hospitals/residents problem",
    STACS, LNCS 2607.
    """
    from ..oracles.hospitals_residents import strongly_stable_search
    return _stable("strongly_stable", strongly_stable_search, residents, hospitals,
                   capacities, certificate)


def hrt_blocking_pairs(residents: Prefs, hospitals: Prefs, capacities: Mapping[str, int],
                       matching: Mapping[str, str], notion: Notion = "weak"
                       ) -> list[tuple[str, str]]:
    """Every pair that blocks a hospitals/residents matching under a stability notion.

    Parameters
    ----------
    residents, hospitals : dict of str to list
        Lists best first; a nested list is a tie group.
    capacities : dict of str to int
        Posts of every hospital.
    matching : dict of str to str
        Resident -> hospital over admissible pairs, within capacities.
    notion : {"weak", "strong", "super"}
        Weak: both strictly better off; strong: one strictly, the other weakly; super:
        both weakly. A hospital with a free post gains from any acceptable resident; a
        full one compares the resident with its worst member.

    Returns
    -------
    list of (str, str)
        The blocking (resident, hospital) pairs; empty when ``matching`` is stable.

    Raises
    ------
    CertificateError
        ``matching`` is not a matching of the market.

    Examples
    --------
    >>> hrt_blocking_pairs({"a": ["x"], "b": ["x"]}, {"x": ["b", "a"]}, {"x": 1}, {"a": "x"})
    [('b', 'x')]

    Notes
    -----
    O(L): every admissible pair is scanned once.

    References
    ----------
    Irving, Manlove & Scott 2000 (SWAT) and 2003 (STACS); Manlove 2013, *Algorithmics of
    Matching Under Preferences*, §3.3.
    """
    from ..formal.checker.hospitals_residents import blocking_pairs
    market = _market(residents, hospitals, capacities)
    m = arg.mapping(matching, "matching", "resident -> hospital")
    pairs: list[tuple[str, str]] = blocking_pairs(market, dict(m),
                                                  arg.choice(notion, "notion", NOTIONS))
    return pairs
