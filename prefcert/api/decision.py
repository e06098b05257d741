"""Decision tasks under actionable indeterminacy on plain Python data: the certified
decision (act, ask or relax) and the judgment of a response. Re-exported as
``prefcert.<name>``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import arguments as arg
from .core import label
from .types import JsonMode, Label, ParseMode

JSON_MODES = ("fenced", "bare", "embedded")


def actionable_decision(task: Mapping[str, Any], *, engines: Sequence[str] | None = None,
                        time_limit: float = 10.0) -> Label:
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
    Label
        The label (a dict): ``verdict`` (``act``, ``ask_preference``, ``ask_objective``, ``relax``),
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
    data = arg.mapping(task, "task", "(a decision instance)")
    return label({"domain": "decision", **data}, "decision", engines=engines,
                 time_limit=time_limit)


def score_response(task: Mapping[str, Any], response: Any, *,
                   label: Label | Mapping[str, Any] | None = None,
                   json_mode: JsonMode | None = None, tight_thresholds: bool = True,
                   parse: ParseMode = "lenient") -> dict[str, Any]:
    """Judge a response (decision, action, question, repair) to a decision task.

    Parameters
    ----------
    task : dict
        The ``decision`` instance (as for :func:`actionable_decision`).
    response : str or dict
        The response text (a JSON object, or one fenced JSON block) or the decoded object.
    label : dict, optional
        The task's certified label (default: computed by :func:`actionable_decision`).
    json_mode : {"fenced", "bare", "embedded"}, optional
        Where the object is looked for: ``bare`` rejects code fences; ``fenced`` allows
        one fence around the object; ``embedded`` takes the last JSON object in the text.
        Default: ``embedded`` when lenient, ``fenced`` when strict.
    parse : {"lenient", "strict"}, default "lenient"
        The reading policy (:mod:`prefcert.bench.answers`), as ``prefcert score --parse``:
        lenient also unwraps a wrapper object and canonicalises decision strings and names
        (``{"slot": "T1"}``, lists of pairs, lower case); strict reads the object as
        written.
    tight_thresholds : bool, default True
        A raised threshold must be the tightest integer that restores feasibility.

    Returns
    -------
    dict
        ``parsed``, ``decision``, ``gold``, ``decision_correct``, ``fc`` (fully correct:
        the decision and its content accepted by the checker), ``error`` (``unparsed``,
        ``unnecessary``, ``missed``, ``wrong_kind`` or None), ``reason``, ``ambiguous``
        (the corpus reading that leaves the content unsettled, or None) and ``reading``
        (``{"kind", "value", "rule"}``).

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
    data = arg.mapping(task, "task", "(a decision instance)")
    mode = None if json_mode is None else arg.choice(json_mode, "json_mode", JSON_MODES)
    how = arg.choice(parse, "parse", ("lenient", "strict"))
    if label is not None:
        arg.mapping(label, "label", "(the task's label)")
    model = parse_decision({"domain": "decision", **data})
    lab = label if label is not None else actionable_decision(data)
    judged: dict[str, Any] = judge_response(
        model, lab, response, ParseOptions(json=mode, parse=how,
                                           tight_thresholds=tight_thresholds))
    return judged
