"""The label and audit pipeline: run engines, cross-check, verify, emit.

``label`` never returns a label whose engines disagree or whose certificate the checker
rejects: it raises :class:`~formal.errors.Disagreement` with a report instead (built in
one place, :func:`disagreement_report`). A label resting only on the agreement of engines
(no proof the checker accepts) says ``"checked": false``. ``audit`` gives a verdict on a
third-party answer only with a proof the checker accepted, exactly as ``label`` does.
"""
from __future__ import annotations

import json
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..domains.base import Absent, Question, is_agreement, run_engine
from ..encodings import cross_check as all_workers
from ..formal import budget, checker
from ..formal.errors import CertificateError, Disagreement, InstanceError, Undecided
from ..formal.instances import Instance, as_written, from_object, label_key, locate
from ..formal.outcome import UNKNOWN
from .minimize import measure, shrink
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


def plan(instances: Iterable[Instance], questions: list | None = None) -> list[Job]:
    """Parse every instance and resolve every question before any engine runs.

    ``questions``: overrides the instances' own lists when given. Raises InstanceError
    (with file and line) on the first bad instance, or one with no question to ask, so
    no partial output is ever written.
    """
    jobs = []
    for inst in instances:
        try:
            domain = get_domain(inst.domain)
            model = domain.parse(inst.data)
            asked = questions or inst.questions or list(domain.default_questions(model))
            if not asked:
                raise InstanceError("no question to ask: the instance lists none, and none "
                                    "of its domain's default questions applies to it "
                                    "(empty data?)")
            seen = set()
            for q in asked:
                key = label_key(inst.id, q)
                if key in seen:                         # a question asked twice is labelled once
                    continue
                seen.add(key)
                question, params = domain.question(q)
                domain.validate(model, question.name, params)
                jobs.append(Job(inst, model, question, params, q))
        except InstanceError as e:
            line = inst.line
            if line is None and e.line is None and inst.file.endswith(".json"):
                line = locate(inst.file, e.agent, e.value)     # within a whole-file JSON
            e = e.located(inst.file, line)
            if inst.file.endswith((".json", ".jsonl")):
                e = as_written(e)               # its numbers as the file writes them
            raise e from None
    return jobs


def disagreement_report(job: Job, reason: str, **details: Any) -> dict:
    """The report of a job that yields no label: the one place such a report is built.

    ``details``: what the caller knows (every engine's answer with the checker's verdict
    on it, the rejected label, a traceback). The instance and its source are always there,
    so the report reproduces the case on its own."""
    inst = job.instance
    return {"reason": reason, "id": inst.id, "question": job.asked, "source": inst.where,
            **details, "instance": inst.data}


def label(job: Job, *, engines: Iterable[str] | None = None, time_limit: float = 10.0,
          seed: int = 0, minimize: bool = True, cross_check: str = "always") -> dict:
    """Label one job: run the engines, combine, verify the certificate.

    ``engines``: names to run (default: the question's size-dependent choice).
    ``time_limit``: seconds per solver call. ``minimize``: a disagreement report of the
    engines also carries a minimised instance (:func:`attach_minimized`).
    ``cross_check``: which engines run once the label's proof is settled (an engine has
    answered with a certificate; the engines after it only cross-check the verdict):
    ``always`` every one; ``never`` none; ``budget`` every one when the cross-check is
    due (:func:`prefcert.formal.budget.due`: a small instance, or one of the sample) or
    when ``engines`` names them, else none. The engines skipped are recorded in the
    label's ``cross_check`` field (``{"skipped": [...], "reason": "budget"|"never"}``),
    present only when one was skipped, so an ``always`` label is what it always was.
    Returns the label dict (the fields of docs/architecture.md). When the engines agree
    without a proof, the question's ``certify`` is asked for one; a label still without a
    proof the checker accepts says ``"checked": false``. Raises Disagreement or Undecided.
    """
    try:
        return _label(job, engines=engines, time_limit=time_limit, seed=seed,
                      cross_check=cross_check)
    except Disagreement as d:     # every kind: engines disagree, crash, proof rejected
        if minimize:
            attach_minimized(d.report, job, engines=engines, time_limit=time_limit, seed=seed,
                             cross_check=cross_check)
        raise


def skips_cross_check(job: Job, mode: str, chosen: bool) -> str | None:
    """The reason the cross-check engines of ``job`` are not run under ``mode``
    (``never``, ``budget``), or None when they run. ``chosen``: the engines are the
    question's default choice (not named by the caller). Decided from the instance's
    content alone (:mod:`prefcert.formal.budget`), before any engine runs. O(1)."""
    if mode not in budget.MODES:
        raise InstanceError(f"cross_check: {mode!r} is not one of "
                            f"{', '.join(map(repr, budget.MODES))}", value=mode)
    if mode == "never":
        return "never"
    if mode == "budget" and chosen and \
            not budget.due(job.instance.sha256, job.instance.size):
        return "budget"
    return None


def _label(job: Job, *, engines: Iterable[str] | None, time_limit: float, seed: int,
           cross_check: str = "always") -> dict:
    q, inst, model = job.question, job.instance, job.model
    spec = get_domain(inst.domain).spec
    if engines is None:
        names = list(q.auto(model))
    else:
        wanted = engines if isinstance(engines, (set, frozenset)) else set(engines)
        names = [e for e in q.engines if e in wanted]
    if not names:
        raise InstanceError(f"none of the requested engines answers {q.name!r} "
                            f"(its engines: {', '.join(q.engines)})")
    skip = skips_cross_check(job, cross_check, engines is None)
    skipped: list[str] = []
    verified: set = set()

    def check(verdict, solution, certificate):     # each certificate is verified once
        key = (verdict, id(solution), id(certificate))
        if key not in verified:
            checker.check(spec, model, q.name, job.params, verdict, solution, certificate)
            verified.add(key)
    answers = []
    # Once an engine has answered with a certificate, the label's solution and proof are
    # settled (decide takes the first); later engines only cross-check the verdict, so
    # CP-SAT may use its allowed workers without making labels depend on its
    # non-reproducible parallel search.
    settled = False
    for n in names:
        if settled and skip:         # decided before any engine ran (no wall clock)
            skipped.append(n)
            continue
        try:
            with all_workers(settled):
                answer = run_engine(n, q.engines[n], model, job.params,
                                    time_limit=time_limit, seed=seed)
        except Exception as e:       # an engine bug: report it loudly, never a label
            if _interrupted(e):      # a Ctrl-C that a library turned into its own error
                raise KeyboardInterrupt from None
            raise Disagreement(disagreement_report(
                job, f"engine {n} crashed: {e!r}", traceback=traceback.format_exc())) from None
        answers.append(answer)
        if not settled:
            o = answer.outcome
            settled = o.verdict != UNKNOWN and bool(o.certificate) and \
                o.certificate.get("type") != "value"
    try:
        decision = q.decide(answers, check)
    except Disagreement as d:
        raise Disagreement(disagreement_report(
            job, d.report.get("reason", "engines disagree"),
            **{k: v for k, v in d.report.items() if k != "reason"})) from None
    certificate = decision.certificate
    if is_agreement(certificate) and q.certify is not None:
        proof = q.certify(job.model, job.params, decision.verdict, decision.solution,
                          time_limit=time_limit)
        if proof is not None:
            try:
                check(decision.verdict, decision.solution, proof)
            except CertificateError as e:
                raise Disagreement(disagreement_report(
                    job, f"the engines agree but the proof of their answer is rejected: {e}",
                    answers=[a.to_json() for a in answers], certificate=proof)) from None
            certificate = proof
    lab = {"id": inst.id, "domain": inst.domain, "question": job.asked,
           "verdict": decision.verdict, "solution": decision.solution,
           "certificate": certificate, "engines": [a.to_json() for a in answers]}
    if skipped:
        lab["cross_check"] = {"skipped": skipped, "reason": skip}
    lab["checked"] = False
    lab["source"] = inst.where
    lab["instance_sha256"] = inst.sha256
    if getattr(model, "semantics", None):         # the reading of incomplete lists
        lab["semantics"] = model.semantics
    readings = spec.readings(model, q.name, job.params)   # the conventions the answer
    if inst.overridden:                            # depends on, and those the instance was
        readings.update({k: model.conventions[k]   # re-read under (its hash covers them)
                         for k in inst.overridden})
    if readings:
        lab["conventions"] = readings
    if is_agreement(certificate):
        if decision.weak:
            raise Undecided(decision.weak)
        return lab                                # a record of agreement: unverified
    try:
        checker.check_label(spec, lab, model, q.name, job.params, verify=check)
    except CertificateError as e:
        raise Disagreement(disagreement_report(job, f"final certificate rejected: {e}",
                                               label=lab)) from None
    lab["checked"] = True
    return lab


def parse_answer(text: str, reads_text: bool = False, outcomes: bool = False
                 ) -> tuple[Any, dict]:
    """The answer an audit judges and how it was read (``{"kind", "value", "rule"}``, the
    reading of :mod:`prefcert.bench.answers`, the reader ``prefcert score`` uses): the JSON
    value of the last ``<answer>…</answer>`` block (a code fence inside it unwrapped), else
    of a fenced block, else of the whole text. A text with no JSON value is read as text:
    with ``reads_text`` (ballots, decision responses) the question's audit reads it; with
    ``outcomes`` (a domain of matchings and allocations) by the benchmark's outcome reader
    (pairs written in prose, "no stable matching exists" as ``"none"``, the claim that no
    outcome exists; ``{}`` is the empty outcome).

    Raises ValueError (with the reading as ``args[1]``) when there is no answer, when an
    object repeats a key (``{"a1": "b1", "a1": "b2"}`` is no matching) or when the value
    nests too deep.
    """
    from ..bench.answers import DuplicateKey, TooDeep, read, read_json, where_json
    try:
        value = read_json(text)
        if value is None:                 # JSON null: the claim that no outcome exists
            return "none", {"kind": "none", "value": None, "rule": where_json(text) + "/null"}
        return value, {"kind": "value", "value": value,
                       "rule": where_json(text) + ("/empty_object" if value == {} else "/json")}
    except DuplicateKey as e:
        raise ValueError(str(e), {"kind": "invalid", "value": None,
                                  "rule": where_json(text) + "/duplicate_key"}) from None
    except TooDeep as e:
        raise ValueError(str(e), {"kind": "invalid", "value": None,
                                  "rule": "too_deep"}) from None
    except ValueError as e:
        if reads_text:
            return text, {"kind": "text", "value": None, "rule": "text/read_by_audit"}
        if not outcomes:
            raise ValueError(str(e), {"kind": "invalid", "value": None,
                                      "rule": "no_json"}) from None
        r = read("outcome", text)
        if r.kind == "value":
            return r.value, r.to_json()
        if r.kind == "none":
            return "none", r.to_json()      # the claim that no outcome exists
        raise ValueError(r.reason or f"no outcome ({r.kind})", r.to_json()) from None


def _verdict_word(job: Job, text: str) -> str | None:
    """The answer as a bare verdict word of the job's question (``undetermined``…, case
    aside, in an ``<answer>`` block or alone) or ``none`` (the claim that no outcome
    exists, whatever the question's verdicts: it is refuted where one always does), or
    None."""
    from ..bench.answers import _ANSWER
    blocks = _ANSWER.findall(text)
    word = (blocks[-1] if blocks else text).strip().strip("`").strip().lower()
    verdicts = get_domain(job.instance.domain).spec.questions[job.question.name].verdicts
    return word if word in verdicts or word == "none" else None


def audit(job: Job, answer_text: str, *, time_limit: float = 10.0, seed: int = 0) -> dict:
    """Judge a third-party answer to a job's question: a JSON value, or a bare verdict
    word of the question (``undetermined``; ``none`` claims that no outcome exists —
    ``{}`` is the empty outcome).

    Returns ``{"verdict": "correct"|"incorrect"|"unparseable", "violations": [...],
    "feedback": str, "proof": {...}, "checked": bool, ...}``. A ``correct`` or
    ``incorrect`` verdict rests on its ``proof`` — the verdict, solution and certificate
    of the truth it was judged against (a witness, a refutation, a blocking pair…) —
    which the checker verified here (``"checked": true``); a proof that is only engine
    agreement leaves ``"checked": false``. A proof the checker rejects is a
    Disagreement, never a verdict.
    """
    if job.question.audit is None:
        raise InstanceError(f"question {job.question.name!r} has no audit")
    outcomes = get_domain(job.instance.domain).classify is not None
    try:
        answer, parsed = parse_answer(answer_text, job.question.reads_text, outcomes)
    except ValueError as e:        # json.JSONDecodeError is a ValueError
        answer = _verdict_word(job, answer_text)
        if answer is None:
            return {"id": job.instance.id, "question": job.asked, "verdict": "unparseable",
                    "violations": [], "feedback": f"could not read an answer (JSON, a "
                                                  f"verdict word or text): {e.args[0]}",
                    "checked": True, "parsed": e.args[1] if len(e.args) > 1 else
                    {"kind": "invalid", "value": None, "rule": "no_json"}}
        parsed = {"kind": "verdict", "value": answer, "rule": "verdict_word"}
    out = {"id": job.instance.id, "question": job.asked,
           **job.question.audit(job.model, job.params, answer)}
    out.setdefault("parsed", parsed)
    if out["verdict"] not in ("correct", "incorrect"):
        out["checked"] = True        # nothing is claimed about the instance
        return out
    proof = out.get("proof")
    if not isinstance(proof, dict) or not proof.get("certificate") or \
            is_agreement(proof["certificate"]):
        out["checked"] = False
        return out
    spec = get_domain(job.instance.domain).spec
    try:
        checker.check(spec, job.model, job.question.name, job.params,
                      proof["verdict"], proof.get("solution"), proof["certificate"])
    except (CertificateError, KeyError) as e:
        raise Disagreement(disagreement_report(job, f"the audit's proof is rejected: {e}",
                                               audit=out)) from None
    out["checked"] = True
    return out


def attach_minimized(report: dict, job, *, engines=None, time_limit: float = 10.0,
                     seed: int = 0, max_tests: int = 200, seconds: float = 20.0,
                     cross_check: str = "always") -> dict:
    """Add ``report["minimized"]``: a smaller instance on which the same question and the
    same engines still disagree (or crash), with its size before and after and the search
    statistics. The engines are those of ``job.question`` (so a report about an engine
    under test minimises with that engine). Returns the report. Never raises: a failure
    to minimise is recorded as ``{"error": ...}``, and a domain that declares no shrinker
    as ``{"not_minimized": reason}``."""
    hook = get_domain(job.instance.domain).shrinker
    if isinstance(hook, Absent):
        report["minimized"] = {"not_minimized": f"the {job.instance.domain} domain has no "
                                                f"shrinker: {hook.reason}"}
        return report

    def fails(inst: dict) -> bool:
        i = from_object(dict(inst, questions=[job.asked]), "<minimize>", None,
                        job.instance.id)
        model = _parse(job, inst)
        try:      # a smaller instance must still be a valid one for the question asked
            get_domain(job.instance.domain).validate(model, job.question.name, job.params)
        except InstanceError:
            return False
        try:
            label(Job(i, model, job.question, job.params, job.asked), engines=engines,
                  time_limit=time_limit, seed=seed, minimize=False, cross_check=cross_check)
        except Disagreement:
            return True
        return False

    try:
        small, stats = shrink(job.instance.data, fails, max_tests=max_tests, seconds=seconds)
        entry = {"instance": small, **stats}
        try:
            entry["size_before"] = list(measure(job.instance.data))
            entry["size_after"] = list(measure(small))
        except (KeyError, TypeError, ValueError, AttributeError):
            pass
    except Exception as e:                       # never hide the original report
        entry = {"error": f"{e.__class__.__name__}: {e}"}
    report["minimized"] = json.loads(json.dumps(entry, default=str))
    return report


def _parse(job, inst: dict):
    return get_domain(job.instance.domain).parse(inst)


def _interrupted(e: BaseException) -> bool:
    """Whether ``e`` was caused by a Ctrl-C: a KeyboardInterrupt in its chain of causes
    (a C extension interrupted while it initialises raises ImportError from it)."""
    seen: set[int] = set()
    x: BaseException | None = e
    while x is not None and id(x) not in seen:
        if isinstance(x, KeyboardInterrupt):
            return True
        seen.add(id(x))
        x = x.__cause__ or x.__context__
    return False
