"""The trusted checker: verifies a certificate against an instance's model, nothing else.

Each domain's check module (``prefcert.formal.checker.<topic>``) declares its
:class:`~prefcert.formal.spec.DomainSpec` with one check function per certificate type;
:func:`check` dispatches on the certificate's ``type`` and refuses a type that does not
prove the label's (question, verdict). The package imports only the standard library and
``prefcert.formal``'s model modules: no solver, no numpy/scipy/networkx, no engine.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import CertificateError, InstanceError
from ..spec import DomainSpec

#: The record of engines that agreed without a proof. It is never a certificate: the
#: checker refuses it for every question and verdict, and a label resting on it says
#: ``"checked": false``.
AGREEMENT = "engine_agreement"


def check(spec: DomainSpec, model: Any, question: str, params: Any, verdict: str,
          solution: Any, certificate: Any) -> None:
    """Verify one certificate of ``spec``'s domain. Raises :class:`CertificateError` naming
    the failing step (a malformed certificate included).

    The checker refuses what it does not know: a question or a certificate type the domain
    does not declare, a field the type does not declare (its ``keys`` and ``meta``), and —
    in the check functions — a rule or a parameter value it has no definition for."""
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
    extra = [k for k in certificate if k != "type" and k not in ctype.fields]
    if extra:
        raise CertificateError(f"certificate {kind!r} has an unknown field {extra[0]!r:.40} "
                               f"(its fields: {', '.join(sorted(ctype.fields)) or 'none'})")
    if verdict not in ctype.proves.get(question, ()):
        raise CertificateError(f"certificate {kind!r} does not prove {verdict!r} for {question}")
    try:
        ctype.check(model, question, params, verdict, solution, certificate)
    except (CertificateError, InstanceError):
        raise
    except (AttributeError, TypeError, KeyError, ValueError, IndexError, RecursionError) as e:
        raise CertificateError(f"malformed certificate ({e.__class__.__name__}: {e})") from None


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
