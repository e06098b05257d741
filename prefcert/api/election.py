"""Elections in Python: winners, single-voter and coalitional manipulation with checked
certificates, PrefLib elections, and the manipulability of real elections by ballot class
and by coalition.

Ballots are given as in the ``election`` format: a ranking (a list of candidates best
first, a nested list being a tie, unranked candidates tied at the bottom) or
``{"ranking": [...], "count": k}``; τ (``tie_break``) defaults to the candidates' order.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, cast, overload

from ..domains.base import is_agreement
from ..formal.errors import CertificateError
from . import arguments as arg
from .types import (
    Ballot,
    Certificate,
    CoalitionalManipulation,
    Manipulation,
    PreferenceList,
)


def _instance(ballots: object, rule: str, candidates: object, tie_break: object,
              **extra: Any) -> dict[str, Any]:
    votes = list(arg.sequence(ballots, "ballots", "ballots"))
    cands = arg.names(candidates, "candidates", "candidates") if candidates is not None \
        else _mentioned(votes, extra)
    return {"domain": "election", "candidates": cands,
            "tie_break": arg.names(tie_break, "tie_break", "candidates")
            if tie_break is not None else cands,
            "rule": rule, "ballots": votes, **extra}


def _mentioned(ballots: Sequence[Any], extra: Mapping[str, Any]) -> list[str]:
    seen: dict[str, None] = {}
    rankings: list[Any] = [b.get("ranking", b.get("approve", [])) if isinstance(b, dict) else b
                for b in ballots]
    if "manipulator" in extra:
        rankings.append(extra["manipulator"]["ranking"])
    for r in rankings:
        for g in r:
            for x in ([g] if isinstance(g, str) else g):
                seen.setdefault(x, None)
    return sorted(seen)


def _certified(data: dict[str, Any], question: Any,
               engines: list[str] | None = None) -> tuple[Any, Any]:
    from ..domains.election import certified
    from ..formal.checker.election import SPEC
    model = SPEC.parse(data)
    name, params = SPEC.question(question)
    SPEC.validate(model, name, params)      # type: ignore[misc]  # election has one
    return model, certified(model, name, params, engines=engines)


@overload
def election_winner(ballots: Sequence[Ballot], rule: str, *,
                    candidates: Sequence[str] | None = None,
                    tie_break: Sequence[str] | None = None,
                    certificate: Literal[False] = False) -> str: ...
@overload
def election_winner(ballots: Sequence[Ballot], rule: str, *,
                    candidates: Sequence[str] | None = None,
                    tie_break: Sequence[str] | None = None,
                    certificate: Literal[True]) -> tuple[str, Certificate]: ...
@overload
def election_winner(ballots: Sequence[Ballot], rule: str, *,
                    candidates: Sequence[str] | None = None,
                    tie_break: Sequence[str] | None = None,
                    certificate: bool) -> str | tuple[str, Certificate]: ...
def election_winner(ballots: Sequence[Ballot], rule: str, *,
                    candidates: Sequence[str] | None = None,
                    tie_break: Sequence[str] | None = None,
                    certificate: bool = False) -> str | tuple[str, Certificate]:
    """The winner of an election under a resolute voting rule.

    Parameters
    ----------
    ballots : sequence
        Rankings (best first; a nested list is a tie) or ``{"ranking", "count"}`` /
        ``{"approve": [...]}`` objects.
    rule : {"plurality", "borda", "approval", "irv", "copeland"}
    candidates : sequence of str, optional
        Every candidate (default: those mentioned, sorted).
    tie_break : sequence of str, optional
        τ, best first (default: the candidates' order). Score ties elect the τ-highest;
        IRV eliminates the τ-lowest of those tied for fewest votes.
    certificate : bool, default False
        Also return the checked score table (IRV: rounds and eliminations) and the
        non-resolute winner set.

    Returns
    -------
    str
        The winner; with ``certificate=True`` a pair ``tuple[str, dict]``: the winner and
        the certificate accepted by the trusted checker, with the non-resolute
        ``winners``.

    Raises
    ------
    InstanceError
        A ValueError: an unknown rule (naming it and the known rules, as ``prefcert
        label`` does) or malformed ballots.

    Examples
    --------
    >>> ballots = [["a", "b", "c"], ["a", "b", "c"], ["b", "c", "a"], ["c", "b", "a"],
    ...            ["c", "b", "a"]]
    >>> election_winner(ballots, "plurality"), election_winner(ballots, "irv")
    ('a', 'c')
    >>> w, cert = election_winner(ballots, "borda", certificate=True)
    >>> w, cert["scores"]
    ('b', {'a': 4, 'b': 6, 'c': 5})

    Notes
    -----
    O(n · m) for the score rules, O(n · m²) for Copeland and IRV.

    References
    ----------
    Brandt, Conitzer, Endriss, Lang & Procaccia (eds.), *Handbook of Computational Social
    Choice*, 2016, ch. 2 and 4.
    """
    _, d = _certified(_instance(ballots, rule, candidates, tie_break), "winner")
    winner: str = d.solution["winner"]
    return (winner, {**d.certificate, "winners": d.solution["winners"]}) \
        if certificate else winner


def single_voter_manipulation(ballots: Sequence[Ballot], truth: PreferenceList, rule: str, *,
                              candidates: Sequence[str] | None = None,
                              tie_break: Sequence[str] | None = None,
                              counts: bool = False) -> Manipulation:
    """Can one voter with true ranking ``truth`` get a winner it strictly prefers by
    reporting another ballot (a full ranking; a subset for approval)?

    Parameters
    ----------
    ballots : sequence
        The other voters' ballots (as for :func:`election_winner`).
    truth : sequence
        The manipulator's true ranking, best first (its sincere ballot).
    rule : {"plurality", "borda", "approval", "irv", "copeland"}
    candidates, tie_break : sequence of str, optional
        As for :func:`election_winner`.
    counts : bool, default False
        Also count the ballot space: every report replayed (the ``enumeration``
        certificate, at most 5040 reports). By default the proof is the cheap one (the
        greedy's stuck sets; the IRV search) and the counts are absent.

    Returns
    -------
    Manipulation
        A dict: ``verdict`` (``manipulable`` / ``not_manipulable``), ``sincere_winner`` w₀,
        ``best_winner`` w*, ``ballot`` (a report electing w*, None when sincere voting is
        best), ``gain`` (true ranks gained), with ``counts`` the counts ``reports``
        |B_r|, ``profitable`` |M|, ``optimal`` |B*| and ``outcomes`` (winner -> reports),
        and ``certificate`` (already accepted by the trusted checker).

    Raises
    ------
    InstanceError
        A ValueError: an unknown rule (naming it and the known rules, as ``prefcert
        label`` does) or malformed ballots; an ArgumentError (a ValueError) for
        ``counts`` with a ballot space larger than 5040 reports.

    Examples
    --------
    >>> r = single_voter_manipulation([["b", "c", "a"]], ["a", "b", "c"], "borda")
    >>> r["verdict"], r["sincere_winner"], r["best_winner"], r["ballot"]
    ('manipulable', 'b', 'a', ['a', 'c', 'b'])
    >>> r["certificate"]["type"], "optimal" in r
    ('greedy', False)
    >>> r = single_voter_manipulation([["b", "c", "a"]], ["a", "b", "c"], "borda",
    ...                               counts=True)
    >>> r["profitable"], r["optimal"], r["certificate"]["type"]
    (1, 1, 'enumeration')

    Notes
    -----
    The greedy of Bartholdi, Tovey & Trick in O(m³) (Copeland O(m⁴)) for plurality,
    Borda, Copeland and approval, its stuck sets checked in O(m²) score evaluations; for
    IRV, where the problem is NP-hard, a search over (active set, current top) states
    (at most m · 2^m); enumeration of the m! (2^m) reports, when at most 5040, as the
    cross-check (and, with ``counts``, the proof).

    References
    ----------
    Bartholdi, Tovey & Trick 1989, "The computational difficulty of manipulating an
    election", Social Choice and Welfare 6; Bartholdi & Orlin 1991, "Single transferable
    vote resists strategic voting", Social Choice and Welfare 8.
    """
    ranking = list(arg.sequence(truth, "truth", "candidates (a ranking)"))
    if not isinstance(counts, bool):
        raise arg.ArgumentError("counts", f"counts: {counts!r} is not a bool", counts)
    data = _instance(ballots, rule, candidates, tie_break, manipulator={"ranking": ranking})
    if counts:
        from ..formal.checker.election import ENUMERATION_LIMIT, SPEC, report_space
        size = report_space(SPEC.parse(data), rule)
        if size > ENUMERATION_LIMIT:
            raise arg.ArgumentError("counts", f"counts: {size} reports exceed the "
                                    f"enumeration limit {ENUMERATION_LIMIT}", counts)
    _, d = _certified(data, "manipulation", ["oracle"] if counts else None)
    return cast(Manipulation, {"verdict": d.verdict, **d.solution,
                               "certificate": d.certificate})


def coalitional_manipulation(ballots: Sequence[Ballot], rule: str, candidate: str, k: int = 1,
                             *, weights: Sequence[int] | None = None,
                             candidates: Sequence[str] | None = None,
                             tie_break: Sequence[str] | None = None
                             ) -> CoalitionalManipulation:
    """Can ``k`` manipulators (or manipulators of the given ``weights``), added to the
    ballots, make ``candidate`` win?

    Parameters
    ----------
    ballots : sequence
        The sincere ballots (as for :func:`election_winner`).
    rule : {"plurality", "borda", "approval", "irv", "copeland"}
    candidate : str
    k : int, default 1
        Unweighted manipulators (ignored when ``weights`` is given).
    weights : sequence of int, optional
    candidates, tie_break : sequence of str, optional

    Returns
    -------
    CoalitionalManipulation
        A dict: ``verdict`` (``exists`` / ``none``), ``ballots`` (one report per manipulator, when
        they exist), ``certificate`` and ``checked`` (False when only solvers agree).

    Raises
    ------
    InstanceError
        A ValueError: an unknown rule (naming it and the known rules, as ``prefcert
        label`` does) or malformed ballots.

    Examples
    --------
    >>> r = coalitional_manipulation([["b", "a", "c"]] * 3, "plurality", "a", k=2)
    >>> r["verdict"], r["certificate"]["type"]
    ('none', 'dominant')
    >>> coalitional_manipulation([["b", "a", "c"]] * 3, "plurality", "a", k=3)["verdict"]
    'exists'

    Notes
    -----
    Plurality and approval are easy (everyone reports the candidate on top); one
    manipulator is polynomial for every rule but IRV; Borda with two manipulators is
    NP-hard (Davies et al. 2011; Betzler, Niedermeier & Woeginger 2011), as are Copeland
    and IRV coalitions, where a "none" may rest on solver agreement only.

    References
    ----------
    Conitzer, Sandholm & Lang 2007, "When are elections with few candidates hard to
    manipulate?", JACM 54.
    """
    q: dict[str, Any] = {"type": "coalitional_manipulation", "candidate": candidate}
    q.update({"weights": list(arg.sequence(weights, "weights", "integers"))}
             if weights is not None else {"k": k})
    _, d = _certified(_instance(ballots, rule, candidates, tie_break), q)
    return cast(CoalitionalManipulation,
                {"verdict": d.verdict, **(d.solution or {}), "certificate": d.certificate,
                 "checked": not is_agreement(d.certificate)})


def election_from_preflib(path: str | os.PathLike[str], *, rule: str | None = None,
                          tie_break: Sequence[str] | None = None) -> dict[str, Any]:
    """A PrefLib file (``.soc .soi .toc .toi``) as an ``election`` instance.

    Parameters
    ----------
    path : str or pathlib.Path
    rule : str, optional
        The rule questions default to.
    tie_break : sequence of str, optional
        τ (default: PrefLib's alternative order, written into the instance).

    Returns
    -------
    dict
        The instance (JSON-able): candidates, τ, one ballot per PrefLib ballot line with
        its count (ties and truncation kept), the PrefLib header under ``source``.

    Examples
    --------
    >>> e = election_from_preflib("instances/preflib/00023-00000001.toi", rule="irv")
    >>> len(e["candidates"]), sum(b["count"] for b in e["ballots"])
    (4, 204)

    Notes
    -----
    O(file size). A PrefLib file read by :func:`prefcert.read` stays a ``preference``
    instance; this conversion fixes τ explicitly, as the election format requires.

    References
    ----------
    Mattei & Walsh 2013, "PrefLib: A Library of Preference Data", ADT.
    """
    from ..formal.election import election_from_preference
    from ..formal.preflib import read_preflib
    file = Path(arg.path(path))
    arg.text(rule, "rule", optional=True)
    order = arg.names(tie_break, "tie_break", "candidates") if tie_break is not None else None
    (inst,) = read_preflib(file)
    election: dict[str, Any] = election_from_preference(inst.data, rule=rule, tie_break=order)
    return election


# --------------------------------------------------------------------------- real elections

def ballot_class_manipulation(election: Mapping[str, Any], rule: str, *,
                              engines: Sequence[str] | None = None,
                              time_limit: float = 10.0) -> dict[str, Any]:
    """Which voter types (ballot classes) of an election can manipulate under a rule.

    Parameters
    ----------
    election : dict
        An ``election`` instance (e.g. from :func:`election_from_preflib`).
    rule : str
    engines : sequence of str, optional
        Manipulation engines (default: ``reachability``, plus ``oracle`` when the ballot
        space has at most 720 reports, as a cross-check).
    time_limit : float, default 10.0

    Returns
    -------
    dict
        ``classes`` (one row per ballot class: its ranking, count, verdict, w₀, w*, gain,
        certificate type), ``manipulable_classes``, ``manipulable_voters``, ``max_gain``,
        ``reachable`` (winners some class can bring about) and ``checked`` (every verdict
        rests on a certificate the checker accepted).

    Raises
    ------
    InstanceError
        A ValueError: an unknown rule (naming it and the known rules, as ``prefcert
        label`` does) or malformed ballots.

    Examples
    --------
    >>> e = {"candidates": ["a", "b", "c"], "tie_break": ["a", "b", "c"],
    ...      "ballots": [{"ranking": ["a", "b", "c"], "count": 2}, ["b", "c", "a"],
    ...                  ["c", "b", "a"], ["c", "b", "a"]]}
    >>> r = ballot_class_manipulation(e, "irv")
    >>> r["manipulable_classes"], r["manipulable_voters"], r["reachable"]
    (1, 2, ['b'])

    Notes
    -----
    One manipulation question per class: one voter of the class is the manipulator, its
    ballot (possibly tied or truncated) its true and sincere preference, reports are full
    rankings (subsets for approval). Cost: one certified answer per class.

    References
    ----------
    Bartholdi, Tovey & Trick 1989; Walsh 2011, "Where are the hard manipulation
    problems?", JAIR 42 (manipulability measured on real and sampled elections).
    """
    from ..domains.base import run_engine
    from ..domains.election import DOMAIN
    from ..formal import checker
    from ..formal.checker.election import SPEC, report_space
    from ..formal.rules import rule_named
    election = arg.mapping(election, "election", "(an election instance)")
    arg.seconds(time_limit)
    q = DOMAIN.questions["manipulation"]
    # (no engines, or an empty list: the default choice below)
    requested = arg.engines(engines or None, [("manipulation", q.engines, None, None)])
    approval = rule_named(rule).approval
    base = {k: v for k, v in election.items() if k not in ("questions", "manipulator")}
    base.update(domain="election", rule=rule)
    rows: list[dict[str, Any]] = []
    reach: set[str] = set()
    every_checked = True
    for k, b in enumerate(election["ballots"]):
        b = b if isinstance(b, dict) else {"ranking": b}
        if not approval and not b.get("ranking"):
            continue
        rest = [dict(x) if isinstance(x, dict) else {"ranking": x} for x in election["ballots"]]
        rest[k]["count"] = rest[k].get("count", 1) - 1
        rest = [x for x in rest if x.get("count", 1) > 0]
        man = {"ranking": b.get("ranking", [])}
        if "approve" in b:
            man["approve"] = b["approve"]
        model = SPEC.parse({**base, "ballots": rest, "manipulator": man})
        names = requested if requested else (
            ["reachability"] + (["oracle"] if report_space(model, rule) <= 720 else []))
        answers = [run_engine(n, q.engines[n], model, {}, time_limit=time_limit, seed=0)
                   for n in names]

        def check(verdict: str, solution: Any, cert: Certificate, model: Any = model) -> None:
            checker.check(SPEC, model, "manipulation", {}, verdict, solution, cert)
        d = q.decide(answers, check)
        checked = not is_agreement(d.certificate)
        every_checked &= checked
        if d.verdict == "manipulable":
            reach.add(d.solution["best_winner"])
        rows.append({"class": k, "ranking": b.get("ranking"), "count": b.get("count", 1),
                     "verdict": d.verdict, "sincere_winner": d.solution["sincere_winner"],
                     "best_winner": d.solution["best_winner"], "gain": d.solution["gain"],
                     "certificate": d.certificate["type"], "checked": checked})
    man_rows = [r for r in rows if r["verdict"] == "manipulable"]
    return {"rule": rule, "classes": rows, "manipulable_classes": len(man_rows),
            "manipulable_voters": sum(r["count"] for r in man_rows),
            "max_gain": max((r["gain"] for r in man_rows), default=0),
            "reachable": [x for x in election["tie_break"] if x in reach],
            "checked": every_checked}


def smallest_coalitions(election: Mapping[str, Any], rule: str, *,
                        time_limit: float = 60.0) -> dict[str, dict[str, Any]]:
    """For every candidate, the fewest voters who, added to the election with ballots of
    their choice, make it win.

    Parameters
    ----------
    election : dict
        An ``election`` instance (its manipulator, if any, votes sincerely).
    rule : str
    time_limit : float, default 60.0
        Seconds per candidate for the integer program.

    Returns
    -------
    dict
        candidate -> ``{"k", "yes_checked", "no_checked"}``: ``k`` the minimum (None if
        not settled), ``yes_checked`` (the k reports replayed by the checker) and
        ``no_checked`` (k − 1 manipulators provably fail by a checked certificate:
        dominant reports, the Borda counting bound, the greedy or the IRV search for one
        manipulator; otherwise the integer program's optimality is the only evidence).
        A ``k`` above ``MAX_COALITION`` (20,000; the most a question takes) is not
        checked either way.

    Raises
    ------
    InstanceError
        A ValueError: an unknown rule (naming it and the known rules, as ``prefcert
        label`` does) or malformed ballots.

    Examples
    --------
    >>> e = {"candidates": ["a", "b", "c"], "tie_break": ["a", "b", "c"],
    ...      "ballots": [{"ranking": ["b", "a", "c"], "count": 3}]}
    >>> {c: r["k"] for c, r in smallest_coalitions(e, "plurality").items()}
    {'a': 3, 'b': 0, 'c': 4}

    Notes
    -----
    An integer program over report-type counts (m! or 2^m types, m ≤ 7), solved by
    exponential and binary search on k; for IRV one per elimination order of the rivals
    ((m − 1)! programs). Copeland beyond m = 4 uses the bounds of
    :func:`prefcert.oracles.election.copeland_coalition_bounds`, exact when they meet.

    References
    ----------
    Conitzer, Sandholm & Lang 2007; Zuckerman, Procaccia & Rosenschein 2009, "Algorithms
    for the coalitional manipulation problem", Artificial Intelligence 173.
    """
    from ..encodings.election import min_coalition_cpsat
    from ..formal import checker
    from ..formal.checker.election import SPEC
    from ..formal.election import MAX_COALITION
    from ..formal.rules import rule_named
    election = arg.mapping(election, "election", "(an election instance)")
    arg.seconds(time_limit)
    data = {**{k: v for k, v in election.items() if k != "questions"},
            "domain": "election", "rule": rule}
    model = SPEC.parse(data)
    pairwise_bounds = rule_named(rule).admits("pairwise_bound")     # Copeland
    out: dict[str, dict[str, Any]] = {}
    for c in model.candidates:
        bounds: Any = None
        r: dict[str, Any]
        if pairwise_bounds and model.m > 4:
            from ..oracles.election import copeland_coalition_bounds
            lower, upper, reps = copeland_coalition_bounds(model, c)
            bounds = {"lower": lower, "upper": upper}
            r = {"status": "optimal" if lower == upper else "bounds", "k": upper,
                 "reports": reps}
        else:
            r = min_coalition_cpsat(model.sincere(), rule, c, time_limit=time_limit)
        if r["status"] == "bounds":
            out[c] = {"k": None, **bounds, "yes_checked": False, "no_checked": False}
            continue
        if r["status"] != "optimal":
            out[c] = {"k": None, "yes_checked": False, "no_checked": False}
            continue
        k = r["k"]
        yes = no = True
        if k > MAX_COALITION:               # beyond what a question (and the checker) takes
            out[c] = {"k": k, "yes_checked": False, "no_checked": False}
            continue
        if k:
            params = {"candidate": c, "weights": [1] * k}
            reps = [q for q, v in r["reports"] for _ in range(v)]
            try:
                checker.check(SPEC, model, "coalitional_manipulation", params, "exists",
                              {"ballots": reps}, {"type": "ballots"})
            except CertificateError:
                yes = False
            if k == 1:
                no = _wins(model, rule) != c          # nobody added: the recount
            else:
                no = _checked_none(model, rule, c, k - 1, time_limit)
        out[c] = {"k": k, "yes_checked": yes, "no_checked": no}
    return out


def _checked_none(model: Any, rule: str, c: str, k: int, time_limit: float) -> bool:
    """k manipulators cannot elect c, by a certificate the checker accepts (dominant
    reports, the Borda bound, the greedy or the IRV search for one manipulator, a small
    enumeration); False when no such certificate is at hand."""
    from ..domains.election import _coalition_oracle
    from ..formal import checker
    from ..formal.checker.election import SPEC
    params = {"rule": rule, "candidate": c, "weights": [1] * k}
    o = _coalition_oracle(model, params, time_limit=time_limit, seed=0)
    if o.verdict != "none" or not o.certificate:
        return False
    try:
        checker.check(SPEC, model, "coalitional_manipulation", params, "none", None,
                      o.certificate)
    except CertificateError:
        return False
    return True


def _wins(model: Any, rule: str) -> str:
    from ..formal.checker.election import winner_table
    winner: str = winner_table(model, rule)["winner"]
    return winner
