"""The domain-independent Python API: read instances, label, check, audit, classify.

Preferences are dicts of lists, best first, a nested list being a tie group (the JSON
format of the instances). Every function here is re-exported as ``prefcert.<name>``.
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, cast

from ..formal.errors import CertificateError, InstanceError
from ..formal.files import read_paths
from ..formal.instances import Instance, from_object
from . import arguments as arg
from .types import AuditResult, Classification, CrossCheck, InstanceLike, Label, Question


def read(path: str | os.PathLike[str]) -> list[Instance]:
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
        Bad input, naming the file, the line and the offending value: a file that cannot
        be read, malformed JSON, an instance its domain does not parse (an unknown key, a
        list naming an unknown agent …) or a question of its own that the domain does not
        have.

    Examples
    --------
    >>> [i.id for i in read("instances/preflib/00009-00000002.soc")]
    ['00009-00000002']

    Notes
    -----
    O(size of the input): every instance is parsed by its domain's model.
    """
    from ..pipeline.registry import spec
    instances: list[Instance] = read_paths([str(arg.path(path))])
    for inst in instances:
        try:
            dspec = spec(inst.domain)
            model = dspec.parse(inst.data)
            for q in inst.questions or ():
                name, params = dspec.question(q)
                if dspec.validate is not None:
                    dspec.validate(model, name, params)
        except InstanceError as e:
            raise e.located(inst.file, inst.line) from None
    return instances


def _instance(instance: object) -> Instance:
    if isinstance(instance, Instance):
        return instance
    data = arg.mapping(instance, "instance", "(an Instance or its JSON object)")
    return from_object(dict(data), "<memory>", None, "instance")


def label(instance: InstanceLike, question: Question, *,
          engines: Sequence[str] | None = None, time_limit: float = 10.0,
          seed: int = 0, cross_check: CrossCheck = "budget") -> Label:
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
    cross_check : {"budget", "always", "never"}, default "budget"
        The engines that run after the label's proof is settled only cross-check its
        verdict (a record, never the proof). ``always`` runs them all; ``never`` none;
        ``budget`` runs them when the instance is small (canonical JSON of at most
        1024 characters) or in the 1-in-64 sample chosen by its ``instance_sha256``,
        and always when ``engines`` names them (:mod:`prefcert.formal.budget`). The
        decision reads the instance alone, never the clock, so labels are reproducible.

    Returns
    -------
    Label
        The label (a dict): ``id``, ``domain``, ``question``, ``verdict``, ``solution``,
        ``certificate``, ``engines``, ``checked``, ``source``, ``instance_sha256``, and
        ``semantics`` / ``conventions`` where they apply; ``cross_check``
        (``{"skipped": [engine, ...], "reason": "budget" | "never"}``) when a
        cross-check engine was skipped.

    Raises
    ------
    InstanceError
        Bad instance or question; a time limit that is not a positive, finite number, a
        seed outside 0..2³¹−1, an engine the question does not have or a ``cross_check``
        other than the three words.
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
    the trusted checker accepts its certificate. Complexity: the engines' (an
    ``always`` cross-check may cost far more than the proof, e.g. CP-SAT on IRV
    manipulation at m = 20); the budget decision is O(1).
    """
    from ..formal.budget import MODES
    from ..pipeline.jobs import label as run_label
    from ..pipeline.jobs import plan
    arg.seconds(time_limit)
    arg.seed(seed)
    arg.choice(cross_check, "cross_check", MODES)
    job = plan([_instance(instance)], [question])[0]
    names = arg.engines(engines, [(job.question.name, job.question.engines, None, None)])
    return cast(Label, run_label(job, engines=names, time_limit=time_limit, seed=seed,
                                 cross_check=cross_check))


def check(lab: Label | Mapping[str, Any], instance: InstanceLike) -> bool:
    """Verify a label against an instance with the trusted checker alone: its certificate
    and every other field, as ``prefcert check`` does.

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
        The instance changed since labelling, the certificate does not prove the verdict,
        or a field does not describe the instance (the message names the failing step or
        field). A label resting on engine agreement (no proof) is refused too.

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
    from ..pipeline.registry import reread, spec
    record: dict[str, Any] = dict(arg.mapping(lab, "lab", "(a label)"))
    inst = _instance(instance)
    conv = record.get("conventions", {})
    if not isinstance(conv, dict):
        raise CertificateError("the label's conventions are not an object")
    inst = reread(inst, record.get("semantics"), conv)
    if record.get("instance_sha256") != inst.sha256:
        raise CertificateError(f"the instance given (id {inst.id!r}) is not the one "
                               f"labelled: its SHA-256 is not the label's instance_sha256")
    dspec = spec(inst.domain)
    model = dspec.parse(inst.data)
    name, params = dspec.question(record.get("question"))
    checker.check_readings(dspec, record, model, name, params, inst.overridden)
    if not checker.check_record(dspec, record, model, name, params, size=inst.size):
        raise CertificateError("engine agreement is a record, not a proof: nothing to verify")
    return True


def audit(instance: InstanceLike, question: Question, answer: Any, *,
          time_limit: float = 10.0) -> AuditResult:
    """Judge a third party's answer to a question.

    Parameters
    ----------
    instance : Instance or dict
        The instance.
    question : str or dict
        The question answered.
    answer : str or JSON-able object
        The answer: an outcome (``{"m1": "w2"}``; ``{}`` is the empty outcome), a verdict
        word of the question (``"undetermined"``; ``"none"`` claims that no outcome
        exists), or text holding an ``<answer>…</answer>`` block with either.
    time_limit : float, default 10.0
        Seconds per solver call.

    Returns
    -------
    AuditResult
        A dict: ``verdict`` (``correct`` / ``incorrect`` / ``unparseable``),
        ``violations`` (the refuting blocking pairs, coalitions or witness), a
        plain-language ``feedback``, the ``proof`` the verdict rests on and whether the
        checker verified it (``checked``).

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
    arg.seconds(time_limit)
    job = plan([_instance(instance)], [question])[0]
    text = answer if isinstance(answer, str) else json.dumps(answer)
    return cast(AuditResult, run_audit(job, text, time_limit=time_limit))


def classify(instance: InstanceLike, candidates: Sequence[Mapping[str, str]]
             ) -> list[Classification]:
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
    list of Classification
        Per candidate (a dict): ``satisfies``, ``fails`` and ``notions`` (notion -> ``holds`` and
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
    cands = list(arg.sequence(candidates, "candidates", "outcomes"))
    inst = _instance(instance)
    return cast("list[Classification]",
                run_classify(inst.domain, spec(inst.domain).parse(inst.data), cands))
