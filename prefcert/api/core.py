"""The one-hop Python API: read instances, label, check, audit, classify, and every
algorithm by its textbook name on plain Python data.

Preferences are dicts of lists, best first, a nested list being a tie group (the JSON
format of the instances). Every function here is re-exported as ``prefcert.<name>``.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..formal.errors import CertificateError
from ..formal.instances import Instance, from_object, read_paths

Prefs = Mapping[str, Sequence[Any]]


# ---------------------------------------------------------------------------- pipeline

def read(path: str | Path) -> list[Instance]:
    """Read the instances of a file or folder.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.json`` file (one instance), a ``.jsonl`` file (one per line), a PrefLib file
        (``.soc .soi .toc .toi``: one ``preference`` instance) or a folder of them, read
        recursively in sorted order.

    Returns
    -------
    list of Instance
        Each with ``id``, ``domain``, ``data`` (the JSON object), ``file`` and ``line``.

    Raises
    ------
    InstanceError
        Bad input, naming the file, the line and the offending value.

    Examples
    --------
    >>> [i.id for i in read("instances/preflib/00009-00000002.soc")]
    ['00009-00000002']

    Notes
    -----
    O(size of the input).
    """
    return read_paths([str(path)])


def _instance(instance: Instance | Mapping[str, Any]) -> Instance:
    if isinstance(instance, Instance):
        return instance
    return from_object(dict(instance), "<memory>", None, "instance")


def label(instance: Instance | Mapping[str, Any], question: Any, *,
          engines: Sequence[str] | None = None, time_limit: float = 10.0,
          seed: int = 0) -> dict:
    """Answer one question about an instance with a certified label.

    Parameters
    ----------
    instance : Instance or dict
        An instance as read by :func:`read`, or its JSON object (needs ``domain``).
    question : str or dict
        A question name (``"super_stable"``) or, for preference queries, an object such
        as ``{"type": "compare", "agent": "V1", "items": ["a", "b"]}``.
    engines : sequence of str, optional
        Engines to run (default: chosen by size).
    time_limit : float, default 10.0
        Seconds per solver call; a timed-out engine answers ``unknown``.
    seed : int, default 0
        Solver seed.

    Returns
    -------
    dict
        The label: ``id``, ``domain``, ``question``, ``verdict``, ``solution``,
        ``certificate``, ``engines``, ``checked``, ``source``, ``instance_sha256``.

    Raises
    ------
    InstanceError
        Bad instance or question.
    Disagreement
        Engines disagree or a certificate is rejected (``.report`` holds the details).
    Undecided
        No engine settled the question within its time limit.

    Examples
    --------
    >>> inst = {"domain": "stable_matching", "preferences": {
    ...     "A": {"m1": [["w1", "w2"]], "m2": ["w1"]},
    ...     "B": {"w1": [["m1", "m2"]], "w2": ["m1"]}}}
    >>> lab = label(inst, "super_stable")
    >>> lab["verdict"], lab["certificate"]["type"]
    ('none', 'deletion_log')

    Notes
    -----
    Runs the question's engines, requires them to agree, and emits the label only when
    the trusted checker accepts its certificate.
    """
    from ..pipeline.jobs import label as run_label
    from ..pipeline.jobs import plan
    job = plan([_instance(instance)], [question])[0]
    return run_label(job, engines=engines, time_limit=time_limit, seed=seed)


def check(lab: Mapping[str, Any], instance: Instance | Mapping[str, Any]) -> bool:
    """Verify a label's certificate against an instance with the trusted checker alone.

    Parameters
    ----------
    lab : dict
        A label, as made by :func:`label` or read from a labels file.
    instance : Instance or dict
        The instance it was made from.

    Returns
    -------
    bool
        True when the certificate proves the label's verdict.

    Raises
    ------
    CertificateError
        The instance changed since labelling, or the certificate does not prove the
        verdict (the message names the failing step).

    Examples
    --------
    >>> inst = {"domain": "housing_market", "preferences": {"a": ["h2", "h1"],
    ...         "b": ["h1", "h2"]}, "endowment": {"a": "h1", "b": "h2"}}
    >>> check(label(inst, "strict_core"), inst)
    True

    Notes
    -----
    Imports no solver and no engine.
    """
    from ..formal import checker
    from ..pipeline.registry import spec
    inst = _instance(instance)
    if lab.get("instance_sha256") != inst.sha256:
        raise CertificateError(f"instance {inst.id} is not the one labelled")
    dspec = spec(inst.domain)
    data = dict(inst.data, semantics=lab["semantics"]) if lab.get("semantics") else inst.data
    name, params = dspec.question(lab["question"])
    checker.check_label(dspec, dict(lab), dspec.parse(data), name, params)
    return True


def audit(instance: Instance | Mapping[str, Any], question: Any, answer: Any, *,
          time_limit: float = 10.0) -> dict:
    """Judge a third party's answer to a question.

    Parameters
    ----------
    instance : Instance or dict
        The instance.
    question : str or dict
        The question answered.
    answer : str or JSON-able object
        The answer: an outcome (``{"m1": "w2"}``), ``{}`` for "none exists", a verdict
        word, or text holding an ``<answer>…</answer>`` block.
    time_limit : float, default 10.0
        Seconds per solver call.

    Returns
    -------
    dict
        ``verdict`` (``correct`` / ``incorrect`` / ``unparseable``), ``violations`` (the
        refuting blocking pairs, coalitions or witness) and a plain-language ``feedback``.

    Examples
    --------
    >>> inst = {"domain": "stable_matching", "preferences": {
    ...     "A": {"m1": ["w1", "w2"], "m2": ["w1", "w2"]},
    ...     "B": {"w1": ["m1", "m2"], "w2": ["m1", "m2"]}}}
    >>> audit(inst, "weakly_stable", {"m1": "w2", "m2": "w1"})["verdict"]
    'incorrect'
    """
    from ..pipeline.jobs import audit as run_audit
    from ..pipeline.jobs import plan
    job = plan([_instance(instance)], [question])[0]
    text = answer if isinstance(answer, str) else json.dumps(answer)
    return run_audit(job, text, time_limit=time_limit)


def classify(instance: Instance | Mapping[str, Any], candidates: Sequence[Any]) -> list[dict]:
    """Which solution concepts each candidate outcome satisfies, with a refutation of each
    concept it fails.

    Parameters
    ----------
    instance : Instance or dict
        A stable-matching, housing-market or house-allocation instance.
    candidates : sequence of dict
        Outcomes as ``{agent: partner}``.

    Returns
    -------
    list of dict
        Per candidate: ``satisfies``, ``fails`` and ``notions`` (notion -> ``holds`` and
        its certificate), or ``invalid`` with the reason.

    Examples
    --------
    >>> inst = {"domain": "stable_matching", "preferences": {
    ...     "A": {"m1": ["w1", "w2"], "m2": ["w1", "w2"]},
    ...     "B": {"w1": ["m1", "m2"], "w2": ["m1", "m2"]}}}
    >>> classify(inst, [{"m1": "w2", "m2": "w1"}])[0]["fails"][:3]
    ['weakly_stable', 'strongly_stable', 'super_stable']
    """
    from ..pipeline.classify import classify as run_classify
    from ..pipeline.registry import spec
    inst = _instance(instance)
    return run_classify(inst.domain, spec(inst.domain).parse(inst.data), list(candidates))


# ---------------------------------------------------------------------------- stable matching

def _market(men_prefs: Prefs, women_prefs: Prefs):
    from ..formal.stable_matching import parse_market
    return parse_market({"preferences": {"A": dict(men_prefs), "B": dict(women_prefs)}})


def _in_order(matching: Mapping[str, str], side: Prefs) -> dict[str, str]:
    """A matching listed in the order of the side's agents (easier to read)."""
    return {x: matching[x] for x in side if x in matching}


def _proved(domain: str, model, question: str, verdict: str, solution, cert: dict) -> dict:
    """The certificate, after the trusted checker accepted it."""
    from ..formal import checker
    from ..pipeline.registry import spec
    checker.check(spec(domain), model, question, None, verdict, solution, cert)
    return cert


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
    return _in_order(da(_market(proposer_prefs, receiver_prefs)), proposer_prefs)


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
    return _in_order(ws(_market(men_prefs, women_prefs)), men_prefs)


def _stable(question: str, search, men_prefs, women_prefs, certificate: bool):
    market = _market(men_prefs, women_prefs)
    matching, refutation = search(market)
    if matching is not None:
        matching = _in_order(matching, men_prefs)
    if not certificate:
        return matching
    if matching is None:
        return None, _proved("stable_matching", market, question, "none", None, refutation)
    cert = {"type": "stable_matching"}
    return matching, _proved("stable_matching", market, question, "exists", matching, cert)


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


# ---------------------------------------------------------------------------- housing markets

def _housing(prefs: Prefs, endowment: Mapping[str, str]):
    from ..formal.housing_market import parse_housing_market
    return parse_housing_market({"preferences": dict(prefs), "endowment": dict(endowment)})


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
    return _in_order(ttc(_housing(prefs, endowment), tie_break), endowment)


def strict_core(prefs: Prefs, endowment: Mapping[str, str], *, certificate: bool = False):
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
        Agent -> house; with ``certificate=True`` a pair (allocation or None, certificate)
        already accepted by the trusted checker.

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
    x = None if res.allocation is None else _in_order(res.allocation, endowment)
    if not certificate:
        return x
    if x is None:
        return None, _proved("housing_market", market, "strict_core", "none", None,
                             res.certificate)
    return x, _proved("housing_market", market, "strict_core", "exists", x,
                      {"type": "core_allocation"})


# ---------------------------------------------------------------------------- house allocation

def _allocation(prefs: Prefs, objects: Sequence[str] | None):
    from ..formal.house_allocation import parse_house_allocation
    data: dict = {"preferences": dict(prefs)}
    if objects is not None:
        data["objects"] = list(objects)
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
    return _in_order(sd(_allocation(prefs, objects), order), prefs)


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
    return _in_order(mcpo(_allocation(prefs, objects)), prefs)


def _welfare(fn_name: str, question: str, prefs, objects, certificate: bool):
    from ..oracles import house_allocation as oa
    model = _allocation(prefs, objects)
    m, cert = getattr(oa, fn_name)(model)
    m = _in_order(m, prefs)
    if not certificate:
        return m
    if cert is None:
        raise CertificateError(f"the {question} oracle found no optimality proof")
    return m, _proved("house_allocation", model, question, "optimal", m, cert)


def rank_maximal(prefs: Prefs, *, objects: Sequence[str] | None = None,
                 certificate: bool = False):
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
        Agent -> object; with ``certificate=True`` a pair (allocation, certificate)
        already accepted by the trusted checker.

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


def utilitarian_matching(prefs: Prefs, *, objects: Sequence[str] | None = None,
                         certificate: bool = False):
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
        Agent -> object, or with ``certificate=True`` a pair (allocation, certificate).

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


def egalitarian_matching(prefs: Prefs, *, objects: Sequence[str] | None = None,
                         certificate: bool = False):
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
        Agent -> object, or with ``certificate=True`` a pair (allocation, certificate).

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


# ---------------------------------------------------------------------------- voting

def _winner(profile: Mapping[str, Any], rule: str, item: str, items, semantics):
    from ..formal.preference import parse_preference_data
    from ..oracles.preference_winner import winner
    data: dict = {"profile": dict(profile), "semantics": semantics}
    if items is not None:
        data["items"] = list(items)
    model = parse_preference_data(data)
    params = {"rule": rule, "item": item}
    from ..formal.preference import validate
    validate(model, "winner", params)
    return model, params, winner(model, params)


def _winner_answer(kind: str, profile, rule, item, items, semantics, certificate: bool):
    model, params, out = _winner(profile, rule, item, items, semantics)
    if out.verdict == "unknown":
        raise CertificateError("the winner question could not be settled by the oracle; "
                               "use prefcert.label for the solver engines")
    answer = out.verdict == "true" if kind == "necessary" else out.verdict != "false"
    if not certificate:
        return answer
    return answer, _proved_query(model, params, out)


def _proved_query(model, params, out):
    from ..formal import checker
    from ..pipeline.registry import spec
    checker.check(spec("preference"), model, "winner", params, out.verdict, out.solution,
                  out.certificate)
    return {"verdict": out.verdict, **out.certificate}


def necessary_winner(profile: Mapping[str, Any], rule: str, item: str, *,
                     items: Sequence[str] | None = None, semantics: str = "unknown",
                     certificate: bool = False):
    """Does ``item`` (co-)win in every completion of incomplete preferences?

    Parameters
    ----------
    profile : dict of str to list or dict
        Voter -> a weak order (list best first, a tie = unknown order), or
        ``{"edges": [[a, b], ...]}`` (a partial order), or ``{"choices": ...}``; an
        optional ``"count"`` gives identical voters.
    rule : {"plurality", "borda", "copeland"}
    item : str
    items : sequence of str, optional
        Every item (default: those mentioned).
    semantics : {"unknown", "truncated"}
        Reading of incomplete weak orders: unlisted items incomparable, or below the
        listed ones.
    certificate : bool, default False
        Also return the proof (per-pair bounds, a Hall violator, or two completions).

    Returns
    -------
    bool
        True when ``item`` is a necessary co-winner; with ``certificate=True`` a pair
        (bool, certificate) where the certificate carries the query's verdict (``true``,
        ``undetermined`` or ``false``), accepted by the trusted checker.

    Examples
    --------
    >>> profile = {"v1": ["a", "b", "c"], "v2": ["a", ["b", "c"]], "v3": ["b", "a", "c"]}
    >>> necessary_winner(profile, "borda", "a"), necessary_winner(profile, "plurality", "b")
    (True, False)

    Notes
    -----
    Polynomial for plurality and Borda (per-voter minimisation); Copeland uses a sound
    bound and may need the solver engines of :func:`prefcert.label`.

    References
    ----------
    Konczak & Lang 2005; Xia & Conitzer 2011, "Determining possible and necessary winners
    given partial orders", JAIR 41.
    """
    return _winner_answer("necessary", profile, rule, item, items, semantics, certificate)


def possible_winner(profile: Mapping[str, Any], rule: str, item: str, *,
                    items: Sequence[str] | None = None, semantics: str = "unknown",
                    certificate: bool = False):
    """Does ``item`` (co-)win in some completion of incomplete preferences?

    Parameters
    ----------
    profile : dict of str to list or dict
        As for :func:`necessary_winner`.
    rule : {"plurality", "borda", "copeland"}
    item : str
    items : sequence of str, optional
        Every item (default: those mentioned).
    semantics : {"unknown", "truncated"}
        Reading of incomplete weak orders.
    certificate : bool, default False
        Also return the proof (a winning completion, or a refutation).

    Returns
    -------
    bool
        True when ``item`` is a possible co-winner; with ``certificate=True`` a pair
        (bool, certificate) as for :func:`necessary_winner`.

    Examples
    --------
    >>> profile = {"v1": ["a", "b", "c"], "v2": ["a", ["b", "c"]], "v3": ["b", "a", "c"]}
    >>> possible_winner(profile, "plurality", "b"), possible_winner(profile, "borda", "c")
    (False, False)

    Notes
    -----
    Plurality by max-flow (polynomial); Borda and Copeland are NP-complete in general.

    References
    ----------
    Betzler & Dorn 2010, JCSS 76; Xia & Conitzer 2011, JAIR 41.
    """
    return _winner_answer("possible", profile, rule, item, items, semantics, certificate)


# ---------------------------------------------------------------------------- decisions

def actionable_decision(task: Mapping[str, Any], *, engines: Sequence[str] | None = None,
                        time_limit: float = 10.0) -> dict:
    """Act, ask or relax: the certified decision of a task under actionable indeterminacy.

    Parameters
    ----------
    task : dict
        A ``decision`` instance: ``structure`` (allocation, scheduling, apartment,
        stable_matching), ``source`` (preference, objective, constraint), ``agents``,
        ``items``, ``preferences`` (complete lists best first; ``{"unknown": [a, b]}`` marks
        a comparison that is not known), ``objectives`` and, where they apply,
        ``attributes``, ``constraints`` and ``permitted_edits`` (``domain`` may be left out).
    engines : sequence of str, optional
        ``oracle`` and / or ``cpsat`` (default: both up to 10 agents a side).
    time_limit : float, default 10.0
        Seconds per solver call.

    Returns
    -------
    dict
        The label: ``verdict`` (``act``, ``ask_preference``, ``ask_objective``, ``relax``),
        ``solution`` (the action; the pivotal comparison; the objective menu — each with
        the number of accepted actions per world; or the minimum number of edits with
        every minimum repair and an action after it) and its ``certificate``, accepted by
        the checker (``checked``).

    Raises
    ------
    InstanceError
        A malformed task.
    Disagreement
        The engines disagree (never a label).

    Examples
    --------
    >>> task = {"structure": "scheduling", "source": "preference",
    ...         "agents": ["P1", "P2", "P3"], "items": ["T1", "T2", "T3"],
    ...         "preferences": {"P1": [{"unknown": ["T1", "T2"]}, "T3"],
    ...                         "P2": ["T1", "T2", "T3"], "P3": ["T2", "T1", "T3"]},
    ...         "objectives": ["utilitarian"]}
    >>> lab = actionable_decision(task)
    >>> lab["verdict"], lab["solution"]["agent"], lab["solution"]["items"], lab["checked"]
    ('ask_preference', 'P1', ['T1', 'T2'], True)
    >>> [w["accepted"] for w in lab["solution"]["worlds"]]     # one optimum per world
    [1, 1]
    >>> task["preferences"]["P3"] = ["T1", "T2", "T3"]
    >>> actionable_decision(task)["solution"]["action"]
    'T1'

    Notes
    -----
    Every admissible world is solved (the Hungarian method with LP duals for
    allocations, deferred acceptance and rotations for stable matchings, a scan for the
    single-choice structures); repairs are searched by increasing number of edits, with
    conflicts proving that no cheaper repair exists. O(#worlds · n³) for allocations.

    References
    ----------
    Li, Lin, Kou, Su, Tiwari, Li, Zhu, Zha & Wang 2026, "Ask, Relax, or Act? Evaluating
    Actionable Indeterminacy in LLM Preference Reasoning", arXiv:2610.03102.
    """
    return label({"domain": "decision", **task}, "decision", engines=engines,
                 time_limit=time_limit)


def score_response(task: Mapping[str, Any], response: Any, *,
                   label: Mapping[str, Any] | None = None, json_mode: str = "fenced",
                   tight_thresholds: bool = True) -> dict:
    """Judge a response (decision, action, question, repair) to a decision task.

    Parameters
    ----------
    task : dict
        The ``decision`` instance (as for :func:`actionable_decision`).
    response : str or dict
        The response text (a JSON object, or one fenced JSON block) or the decoded object.
    label : dict, optional
        The task's certified label (default: computed by :func:`actionable_decision`).
    json_mode : {"fenced", "bare", "embedded"}, default "fenced"
        ``bare`` rejects code fences; ``embedded`` takes the last JSON object in the text.
    tight_thresholds : bool, default True
        A raised threshold must be the tightest integer that restores feasibility.

    Returns
    -------
    dict
        ``parsed``, ``decision``, ``gold``, ``decision_correct``, ``fc`` (fully correct:
        the decision and its content accepted by the checker), ``error`` (``unparsed``,
        ``unnecessary``, ``missed``, ``wrong_kind`` or None) and ``reason``.

    Examples
    --------
    >>> task = {"structure": "scheduling", "source": "constraint",
    ...         "agents": ["P1", "P2"], "items": ["T1", "T2"],
    ...         "preferences": {"P1": ["T1", "T2"], "P2": ["T2", "T1"]},
    ...         "objectives": ["utilitarian"],
    ...         "constraints": [{"id": "u1", "type": "unavailable", "agent": "P1", "item": "T1"},
    ...                         {"id": "u2", "type": "unavailable", "agent": "P2", "item": "T2"}],
    ...         "permitted_edits": ["u1", "u2"]}
    >>> r = score_response(task, '{"decision": "RELAX", "action": "T2", '
    ...                          '"question": null, "repair": {"edits": [{"constraint": "u2"}]}}')
    >>> r["decision_correct"], r["fc"]
    (True, True)
    >>> score_response(task, '{"decision": "RELAX", "action": null, "repair": ["u2"]}')["fc"]
    False

    Notes
    -----
    Any minimum repair is accepted, not one stored answer; an action is checked against
    the accepted sets certified in the label. O(size of the certificate).

    References
    ----------
    Li et al. 2026, arXiv:2610.03102, §2.2 and App. O.3 (fully correct responses).
    """
    from ..bench.actionable.responses import ParseOptions, judge_response
    from ..formal.decision import parse_decision
    model = parse_decision({"domain": "decision", **task})
    lab = label if label is not None else actionable_decision(task)
    return judge_response(model, lab, response,
                          ParseOptions(json=json_mode, tight_thresholds=tight_thresholds))
