"""Two-sided stable matching (SMTI) on plain Python data: deferred acceptance, weakly,
super- and strongly stable matchings and blocking pairs. Side A proposes (its agents are
the keys of every returned matching); side B receives. Re-exported as ``prefcert.<name>``.
"""
from __future__ import annotations

from collections.abc import Mapping

from ._common import Prefs, in_order, proved


def _market(men_prefs: Prefs, women_prefs: Prefs):
    from ..formal.stable_matching import parse_market
    return parse_market({"preferences": {"A": dict(men_prefs), "B": dict(women_prefs)}})


def deferred_acceptance(proposer_prefs: Prefs, receiver_prefs: Prefs) -> dict[str, str]:
    """Gale–Shapley deferred acceptance: the proposer-optimal stable matching.

    Parameters
    ----------
    proposer_prefs, receiver_prefs : dict of str to list of str
        Strict (tie-free), possibly incomplete lists, best first; a pair is acceptable
        only when each side lists the other.

    Returns
    -------
    dict of str to str
        Proposer -> receiver; unmatched agents are absent.

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
    return in_order(da(_market(proposer_prefs, receiver_prefs)), proposer_prefs)


def weakly_stable_matching(men_prefs: Prefs, women_prefs: Prefs) -> dict[str, str]:
    """A weakly stable matching of a market with ties and incomplete lists (SMTI).

    Parameters
    ----------
    men_prefs, women_prefs : dict of str to list
        Lists best first; a nested list is a tie group.

    Returns
    -------
    dict of str to str
        Man -> woman. One always exists.

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
    return in_order(ws(_market(men_prefs, women_prefs)), men_prefs)


def _stable(question: str, search, men_prefs, women_prefs, certificate: bool):
    market = _market(men_prefs, women_prefs)
    matching, refutation = search(market)
    if matching is not None:
        matching = in_order(matching, men_prefs)
    if not certificate:
        return matching
    if matching is None:
        return None, proved("stable_matching", market, question, "none", None, refutation)
    cert = {"type": "stable_matching"}
    return matching, proved("stable_matching", market, question, "exists", matching, cert)


def super_stable_matching(men_prefs: Prefs, women_prefs: Prefs, *, certificate: bool = False):
    """The man-optimal super-stable matching, or None when none exists.

    Parameters
    ----------
    men_prefs, women_prefs : dict of str to list
        Lists best first; a nested list is a tie group.
    certificate : bool, default False
        Also return the proof: ``{"type": "stable_matching"}`` for a matching (the
        checker scans every pair), or a replayable ``deletion_log`` refuting existence.

    Returns
    -------
    dict of str to str or None
        Man -> woman; with ``certificate=True`` a pair (matching or None, certificate),
        the certificate already accepted by the trusted checker.

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
    return _stable("super_stable", super_stable_search, men_prefs, women_prefs, certificate)


def strongly_stable_matching(men_prefs: Prefs, women_prefs: Prefs, *,
                             certificate: bool = False):
    """A strongly stable matching, or None when none exists.

    Parameters
    ----------
    men_prefs, women_prefs : dict of str to list
        Lists best first; a nested list is a tie group.
    certificate : bool, default False
        Also return the proof (see :func:`super_stable_matching`); a refutation's
        ``critical`` steps are re-derived by the checker from a maximum matching.

    Returns
    -------
    dict of str to str or None
        Man -> woman; with ``certificate=True`` a pair (matching or None, certificate).

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
    return _stable("strongly_stable", strongly_stable_search, men_prefs, women_prefs,
                   certificate)


def blocking_pairs(men_prefs: Prefs, women_prefs: Prefs, matching: Mapping[str, str],
                   notion: str = "weak") -> list[tuple[str, str]]:
    """Every pair that blocks a matching under a stability notion.

    Parameters
    ----------
    men_prefs, women_prefs : dict of str to list
        Lists best first; a nested list is a tie group.
    matching : dict of str to str
        Man -> woman over mutually acceptable pairs.
    notion : {"weak", "strong", "super"}
        Weak: both strictly prefer each other; strong: one strictly, the other weakly;
        super: both weakly (ties with the partner included).

    Returns
    -------
    list of (str, str)
        The blocking (man, woman) pairs in list order; empty when ``matching`` is stable.

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
    return bp(_market(men_prefs, women_prefs), dict(matching), notion)
