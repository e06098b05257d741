"""The trusted checker: verifies a certificate against an instance's model, nothing else.

Each domain's check module (``prefcert.formal.checker.<topic>``) declares its
:class:`~prefcert.formal.spec.DomainSpec` with one check function per certificate type;
:func:`check` dispatches on the certificate's ``type`` and refuses a type that does not
prove the label's (question, verdict), and a solution of another shape than the
(question, verdict) declares. :func:`check_record` verifies a whole label read from a
file: every field, not only the proof. The package imports only the standard library and
``prefcert.formal``'s model modules: no solver, no numpy/scipy/networkx, no engine.
"""
from __future__ import annotations

import math
from itertools import chain
from collections.abc import Callable
from typing import Any

from .. import budget
from ..errors import CertificateError, InstanceError
from ..outcome import UNKNOWN
from ..spec import INCORRECT, DomainSpec

#: The record of engines that agreed without a proof. It is never a certificate: the
#: checker refuses it for every question and verdict, and a label resting on it says
#: ``"checked": false``.
AGREEMENT = "engine_agreement"

#: The fields of every label (docs/architecture.md, the glossary of record fields) and
#: those present only where the label records the readings it was made under.
LABEL_FIELDS = ("id", "domain", "question", "verdict", "solution", "certificate", "engines",
                "checked", "source", "instance_sha256")
READING_FIELDS = ("semantics", "conventions")
#: The field of a label that skipped cross-check engines (:mod:`prefcert.formal.budget`):
#: ``{"skipped": [engine, ...], "reason": "budget" | "never"}``.
CROSS_CHECK_FIELD = "cross_check"
#: The field a benchmark's labels add (``prefcert generate``: ``labels.jsonl`` holds labels
#: as ``prefcert label`` writes them plus ``label_id``, the engines' timings dropped).
BENCHMARK_FIELD = "label_id"


def check(spec: DomainSpec, model: Any, question: str, params: Any, verdict: str,
          solution: Any, certificate: Any) -> None:
    """Verify one certificate of ``spec``'s domain. Raises :class:`CertificateError` naming
    the failing step (a malformed certificate included).

    The checker refuses what it does not know: a question or a certificate type the domain
    does not declare, a certificate field the type does not declare (its ``keys``), a
    solution of another shape than the (question, verdict) declares
    (:class:`~prefcert.formal.spec.Solution`: a solution where the verdict says all, a
    missing or unknown key, an optional key the type does not verify), a boolean anywhere
    in a solution or certificate (yes / no answers are verdict words; ``true`` is never a
    count) and — in the check functions — a rule or a parameter value it has no definition
    for."""
    if not isinstance(certificate, dict) or "type" not in certificate:
        raise CertificateError(f"certificate without a type: {certificate!r:.80}")
    kind = certificate["type"]
    if kind == AGREEMENT:
        raise CertificateError("engine agreement is a record, not a proof: nothing to verify")
    ctype = spec.certificates.get(kind) if isinstance(kind, str) else None
    if ctype is None:
        raise CertificateError(f"unknown certificate type {kind!r:.40} for domain {spec.name}")
    if not isinstance(question, str) or question not in spec.questions:
        raise CertificateError(f"unknown question {question!r:.40} for domain {spec.name} "
                               f"(known: {', '.join(spec.questions)})")
    extra = [k for k in certificate if k != "type" and k not in ctype.keys]
    if extra:
        raise CertificateError(f"certificate {kind!r} has an unknown field {extra[0]!r:.40} "
                               f"(its fields: {', '.join(sorted(ctype.keys)) or 'none'})")
    if verdict not in ctype.proves.get(question, ()):
        raise CertificateError(f"certificate {kind!r} does not prove {verdict!r:.40} for "
                               f"{question}")
    shape = spec.questions[question].solution(verdict, params)
    shape.check_shape(solution, ctype.verifies)
    try:
        if shape.kind != "candidate":
            _no_booleans(solution, "the solution")
        _no_booleans(certificate, "the certificate")
        ctype.check(model, question, params, verdict, solution, certificate)
    except (CertificateError, InstanceError):
        raise
    except (AttributeError, TypeError, KeyError, ValueError, IndexError, RecursionError) as e:
        raise CertificateError(f"malformed certificate ({e.__class__.__name__}: {e})") from None


#: The types of JSON values that hold nothing: a container whose every element is one of
#: them holds no boolean and nothing to walk into.
_LEAVES = frozenset({str, int, float, type(None)})
_LIST = {list}


def _no_booleans(value: Any, where: str) -> None:
    """CertificateError when a boolean is anywhere in ``value`` (the values of dicts and
    the items of lists, walked depth first, last item first; the first boolean met is the
    one named). A list or dict whose items are all strings, numbers or nulls is passed
    over whole, by one pass over their types at C speed: a matching's partners; so is a
    list whose items are all such lists, by one pass over all their items (a deletion
    log's steps). O(size of value)."""
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t in _LEAVES:                  # the most common item: nothing to walk
            continue
        if t is list or t is dict:
            items = v if t is list else v.values()
            kinds = set(map(type, items))
            if kinds <= _LEAVES:
                continue                  # nothing below, no boolean: the same walk skips it
            if kinds == _LIST and _LEAVES.issuperset(map(type, chain.from_iterable(items))):
                continue                  # a list of leaf lists (a deletion log's steps):
            stack.extend(items)           # one pass over all their items, as above
        elif t is bool:
            raise CertificateError(f"{where} holds the boolean {str(v).lower()}: no field of a "
                                   f"solution or certificate is a yes / no")
        else:                             # subclasses (an OrderedDict, a list subclass)
            if isinstance(v, dict):
                stack.extend(v.values())
            elif isinstance(v, list):
                stack.extend(v)


def check_label(spec: DomainSpec, label: dict, model: Any, question: str, params: Any,
                verify: Callable[[str, Any, dict], None] | None = None) -> None:
    """Verify a label's certificate against its model. A label resting on engine agreement
    is refused like any other certificate the checker cannot verify.

    ``verify``: the certificate check to use (default :func:`check`); the pipeline passes a
    memoised one so a certificate verified while deciding is not verified twice."""
    for key in ("verdict", "certificate", "engines"):
        if key not in label:
            raise CertificateError(f"label has no {key!r}")
    cert = label["certificate"]
    if verify is None:
        check(spec, model, question, params, label["verdict"], label.get("solution"), cert)
    else:
        verify(label["verdict"], label.get("solution"), cert)


def check_record(spec: DomainSpec, label: Any, model: Any, question: str, params: Any,
                 *, size: int | None = None) -> bool:
    """Verify every field of a label read back from a file, against its instance's model
    (``question``, ``params``: the label's question as resolved by ``spec``). The caller
    has matched ``id``, ``source``, ``instance_sha256`` and the readings (``semantics``,
    ``conventions``) to the instance; this checks the rest:

    - the fields are exactly those of a label (:data:`LABEL_FIELDS`, and
      :data:`READING_FIELDS` where present; a benchmark's label adds
      :data:`BENCHMARK_FIELD` and drops the engines' ``seconds``); ``domain`` is the
      instance's;
    - the question is one the instance can answer (the domain's ``validate``, as when
      labelling: an unknown agent, item or rule is refused);
    - ``engines`` is a record of distinct engines, each ``{"engine", "verdict",
      "seconds"}``, whose every decided verdict is the label's (``unknown`` a timeout, a
      bound such as ``bounded`` beside an ``optimal`` label), at least one of them the
      label's (a refutation, ``incorrect``, may name none);
    - ``cross_check``, where present, names the skipped engines (distinct, none of them
      in ``engines``) and a reason of :data:`prefcert.formal.budget.REASONS`; ``budget``
      only for an instance whose cross-check was not due: outside the sample (read from
      ``instance_sha256``) and, when the caller gives the instance's ``size`` (the
      length of its canonical JSON), larger than the budget;
    - a certificate that is a proof is always verified (:func:`check`), and the label
      must then say ``"checked": true``; an engine-agreement record (no proof) must say
      ``"checked": false``, carry the label's verdict and name exactly its decided
      engines.

    Returns True for a verified label, False for one resting on engine agreement (the
    caller reports it as unverified). Raises CertificateError naming the field."""
    if not isinstance(label, dict):
        raise CertificateError("a label is a JSON object")
    missing = [k for k in LABEL_FIELDS if k not in label]
    if missing:
        raise CertificateError(f"the label has no {missing[0]!r}")
    bench = BENCHMARK_FIELD in label
    if bench and (not isinstance(label[BENCHMARK_FIELD], str) or not label[BENCHMARK_FIELD]):
        raise CertificateError(f"{BENCHMARK_FIELD!r} must be a non-empty string")
    unknown = [k for k in label if k not in LABEL_FIELDS and k not in READING_FIELDS
               and k != BENCHMARK_FIELD and k != CROSS_CHECK_FIELD]
    if unknown:
        raise CertificateError(f"the label has an unknown field {unknown[0]!r:.40}")
    if label["domain"] != spec.name:
        raise CertificateError(f"the label says domain {label['domain']!r:.40}, its instance "
                               f"is of domain {spec.name!r}")
    if spec.validate is not None:
        try:
            spec.validate(model, question, params)
        except InstanceError as e:
            raise CertificateError(f"the label's question is not one its instance can answer: "
                                   f"{e}") from None
    verdict, cert, checked = label["verdict"], label["certificate"], label["checked"]
    decided = _engines(label["engines"], verdict, spec.questions[question].partial,
                       timed=not bench)
    if CROSS_CHECK_FIELD in label:
        _cross_check(label[CROSS_CHECK_FIELD], label["engines"], label["instance_sha256"],
                     size)
    if not isinstance(checked, bool):
        raise CertificateError(f"'checked' must be true or false, not {checked!r:.20}")
    if isinstance(cert, dict) and cert.get("type") == AGREEMENT:
        if checked:
            raise CertificateError("engine agreement is a record, not a proof: the label "
                                   "cannot say \"checked\": true")
        if verdict not in spec.questions[question].verdicts:
            raise CertificateError(f"{verdict!r:.40} is not a verdict of {question}")
        spec.questions[question].solution(verdict, params).check_shape(label["solution"])
        if set(cert) != {"type", "verdict", "engines"} or cert["verdict"] != verdict or \
                cert["engines"] != decided:
            raise CertificateError(f"the agreement record must name the verdict {verdict!r} "
                                   f"and the engines that gave it ({', '.join(decided)})")
        return False
    check_label(spec, label, model, question, params)
    if not checked:
        raise CertificateError("the certificate is a proof, verified here, but the label says "
                               "\"checked\": false")
    return True


def check_readings(spec: DomainSpec, label: dict, model: Any, question: str, params: Any,
                   overridden: tuple[str, ...] = ()) -> None:
    """The readings a label records are exactly those of its instance's ``model`` (read
    under them): ``semantics`` where the model has one, ``conventions`` the ones the
    question depends on plus those ``overridden`` on the command line (an unknown one is
    refused). CertificateError naming the field."""
    sem, conv = label.get("semantics"), label.get("conventions", {})
    if not isinstance(conv, dict) or not conv and "conventions" in label:
        raise CertificateError("the label's conventions must be a non-empty object")
    unknown = [k for k in conv if k not in spec.conventions]
    if unknown:
        raise CertificateError(f"the label records a convention {unknown[0]!r:.40} that "
                               f"domain {spec.name} does not have")
    own = getattr(model, "semantics", None)
    if sem != own or ("semantics" in label) != (own is not None):
        raise CertificateError(f"the label records semantics {sem!r:.20}, its instance is "
                               f"read under {own!r}")
    want = {**spec.readings(model, question, params),
            **{k: model.conventions[k] for k in overridden}}
    if conv != want:
        raise CertificateError(f"the label records conventions {conv}, its question depends "
                               f"on {want}")


def _cross_check(record: Any, engines: list, sha256: Any, size: int | None) -> None:
    """A label's ``cross_check`` record: the engines it skipped and a documented reason,
    true of the instance (:mod:`prefcert.formal.budget`)."""
    form = "{\"skipped\": [engine, ...], \"reason\": " + \
        " | ".join(f'"{r}"' for r in budget.REASONS) + "}"
    if not isinstance(record, dict) or set(record) != {"skipped", "reason"}:
        raise CertificateError(f"'cross_check' is {form}, not {record!r:.60}")
    skipped, reason = record["skipped"], record["reason"]
    if not isinstance(reason, str) or reason not in budget.REASONS:
        raise CertificateError(f"'cross_check' gives the reason {reason!r:.40}; the reasons "
                               f"are {', '.join(budget.REASONS)}")
    ran = {e["engine"] for e in engines}
    if not isinstance(skipped, list) or not skipped or \
            not all(isinstance(n, str) and n for n in skipped) or \
            len(set(skipped)) != len(skipped):
        raise CertificateError(f"'cross_check' skipped must be a non-empty list of distinct "
                               f"engine names, not {skipped!r:.60}")
    both = [n for n in skipped if n in ran]
    if both:
        raise CertificateError(f"engine {both[0]!r:.40} is both in 'engines' and skipped")
    if reason == "budget":
        if not isinstance(sha256, str) or len(sha256) != 64 or \
                any(c not in "0123456789abcdef" for c in sha256):
            raise CertificateError("'instance_sha256' must be 64 hex digits")
        if budget.in_sample(sha256):
            raise CertificateError("the cross-check was skipped for the budget, but the "
                                   "instance is in the sample, whose cross-check is always "
                                   "run")
        if size is not None and size <= budget.MAX_BYTES:
            raise CertificateError(f"the cross-check was skipped for the budget, but the "
                                   f"instance is within it ({size} <= {budget.MAX_BYTES} "
                                   f"characters of canonical JSON)")


def _engines(engines: Any, verdict: str, partial: tuple[str, ...], timed: bool = True
             ) -> list[str]:
    """The engines record checked against the verdict (an engine may also have given a
    ``partial`` verdict, a bound); the names of the engines that gave the verdict.
    ``timed``: each entry has its ``seconds`` (a benchmark's labels drop them)."""
    keys = {"engine", "verdict", "seconds"} if timed else {"engine", "verdict"}
    form = "{" + ", ".join(k for k in ("engine", "verdict", "seconds") if k in keys) + "}"
    if not isinstance(engines, list):
        raise CertificateError(f"'engines' must be a list of {form}")
    names: list[str] = []
    decided = []
    for e in engines:
        if not isinstance(e, dict) or set(e) != keys:
            raise CertificateError(f"an engines entry is {form}, not {e!r:.60}")
        name, said, seconds = e["engine"], e["verdict"], e.get("seconds", 0)
        if not isinstance(name, str) or not name or name in names:
            raise CertificateError(f"engine names must be distinct strings: {name!r:.40}")
        if said not in (verdict, UNKNOWN, *partial):
            raise CertificateError(f"engine {name} answered {said!r:.40}, the label says "
                                   f"{verdict!r:.40}")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or \
                not math.isfinite(seconds) or seconds < 0:
            raise CertificateError(f"engine {name}: seconds must be a number >= 0, not "
                                   f"{seconds!r:.20}")
        names.append(name)
        if said == verdict:
            decided.append(name)
    if not decided and verdict != INCORRECT:
        raise CertificateError(f"no engine answered {verdict!r:.40}")
    return decided
