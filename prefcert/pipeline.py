"""The label and audit pipeline: run engines, cross-check, verify, emit.

``label`` never returns a label whose engines disagree or whose certificate the checker
rejects: it raises :class:`~formal.errors.Disagreement` with a report instead.
"""
from __future__ import annotations

import json
import re
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .domains.base import Question, run_engine
from .formal import checker
from .formal.errors import CertificateError, Disagreement, InstanceError
from .formal.instances import Instance
from .registry import domain as get_domain


@dataclass(frozen=True)
class Job:
    """One (instance, question) pair, parsed and resolved."""

    instance: Instance
    model: Any
    question: Question
    params: Any
    asked: Any  # the question as written (a name or a dict)

    @property
    def key(self) -> tuple[str, str]:
        return label_key(self.instance.id, self.asked)


def label_key(iid: str, asked: Any) -> tuple[str, str]:
    return iid, json.dumps(asked, sort_keys=True)


def plan(instances: Iterable[Instance], questions: list | None = None) -> list[Job]:
    """Parse every instance and resolve every question before any engine runs.

    ``questions``: overrides the instances' own lists when given. Raises InstanceError
    (with file and line) on the first bad instance, so no partial output is ever written.
    """
    jobs = []
    for inst in instances:
        try:
            domain = get_domain(inst.domain)
            model = domain.parse(inst.data)
            asked = questions or inst.questions or list(domain.default_questions(model))
            seen = set()
            for q in asked:
                if label_key(inst.id, q) in seen:       # a question asked twice is labelled once
                    continue
                seen.add(label_key(inst.id, q))
                question, params = domain.question(q)
                domain.validate(model, question.name, params)
                jobs.append(Job(inst, model, question, params, q))
        except InstanceError as e:
            raise e.located(inst.file, inst.line) from None
    return jobs


def label(job: Job, *, engines: Iterable[str] | None = None, time_limit: float = 10.0,
          seed: int = 0, minimize: bool = True) -> dict:
    """Label one job: run the engines, combine, verify the certificate.

    ``engines``: names to run (default: the question's size-dependent choice).
    ``time_limit``: seconds per solver call. ``minimize``: a disagreement report also
    carries a minimised instance (:func:`prefcert.minimize.attach_minimized`). Returns
    the label dict (DESIGN.md fields plus ``domain``, ``source`` and ``instance_sha256``).
    Raises Disagreement or Undecided.
    """
    q, inst = job.question, job.instance
    spec = get_domain(inst.domain).spec
    names = list(job.question.auto(job.model)) if engines is None else \
        [e for e in q.engines if e in set(engines)]
    if not names:
        raise InstanceError(f"none of the requested engines answers {q.name!r} "
                            f"(its engines: {', '.join(q.engines)})")
    verified: set = set()

    def check(verdict, solution, certificate):     # each certificate is verified once
        key = (verdict, id(solution), id(certificate))
        if key not in verified:
            checker.check(spec, job.model, q.name, job.params, verdict, solution, certificate)
            verified.add(key)
    answers = []
    for n in names:
        try:
            answers.append(run_engine(n, q.engines[n], job.model, job.params,
                                      time_limit=time_limit, seed=seed))
        except Exception as e:       # an engine bug: report it loudly, never a label
            raise Disagreement({"reason": f"engine {n} crashed: {e!r}", "id": inst.id,
                                "question": job.asked, "source": inst.where,
                                "instance": inst.data,
                                "traceback": traceback.format_exc()}) from None
    try:
        decision = q.decide(answers, check)
    except Disagreement as d:
        d.report.update(id=inst.id, question=job.asked, source=inst.where, instance=inst.data)
        if minimize:
            from .minimize import attach_minimized
            attach_minimized(d.report, job, engines=engines, time_limit=time_limit, seed=seed)
        raise
    lab = {"id": inst.id, "domain": inst.domain, "question": job.asked,
           "verdict": decision.verdict, "solution": decision.solution,
           "certificate": decision.certificate, "engines": [a.to_json() for a in answers],
           "checked": False, "source": inst.where, "instance_sha256": inst.sha256}
    if getattr(job.model, "semantics", None):     # the reading of incomplete lists
        lab["semantics"] = job.model.semantics
    try:
        checker.check_label(spec, lab, job.model, q.name, job.params, verify=check)
    except CertificateError as e:
        raise Disagreement({"reason": f"final certificate rejected: {e}", "id": inst.id,
                            "question": job.asked, "source": inst.where,
                            "instance": inst.data, "label": lab}) from None
    lab["checked"] = True
    return lab


_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S | re.I)


def parse_answer(text: str) -> Any:
    """Extract a JSON answer: the last ``<answer>…</answer>`` block, else the whole text.

    Returns the parsed JSON value; raises ValueError when there is none.
    """
    blocks = _ANSWER.findall(text)
    body = (blocks[-1] if blocks else text).strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    return json.loads(body)


def audit(job: Job, answer_text: str, *, time_limit: float = 10.0, seed: int = 0) -> dict:
    """Judge a third-party answer to a job's question.

    Returns ``{"verdict": "correct"|"incorrect"|"unparseable", "violations": [...],
    "feedback": str, ...}``.
    """
    if job.question.audit is None:
        raise InstanceError(f"question {job.question.name!r} has no audit")
    try:
        answer = parse_answer(answer_text)
    except ValueError as e:
        return {"id": job.instance.id, "question": job.asked, "verdict": "unparseable",
                "violations": [], "feedback": f"could not read a JSON answer: {e}"}
    out = job.question.audit(job.model, job.params, answer)
    return {"id": job.instance.id, "question": job.asked, **out}
