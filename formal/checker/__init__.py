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


def check(spec: DomainSpec, model: Any, question: str, params: Any, verdict: str,
          solution: Any, certificate: Any) -> None:
    """Verify one certificate of ``spec``'s domain. Raises :class:`CertificateError` naming
    the failing step (a malformed certificate included)."""
    if not isinstance(certificate, dict) or "type" not in certificate:
        raise CertificateError(f"certificate without a type: {certificate!r:.80}")
    kind = certificate["type"]
    if kind == "engine_agreement":
        engines = certificate.get("engines", [])
        if certificate.get("verdict") != verdict or len(set(engines)) < 3:
            raise CertificateError("engine agreement needs three engines giving the verdict")
        return
    ctype = spec.certificates.get(kind) if isinstance(kind, str) else None
    if ctype is None:
        raise CertificateError(f"unknown certificate type {kind!r:.40} for domain {spec.name}")
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
    """Verify a label's certificate against its model, and that its engine record is coherent.

    ``verify``: the certificate check to use (default :func:`check`); the pipeline passes a
    memoised one so a certificate verified while deciding is not verified twice."""
    for key in ("verdict", "certificate", "engines"):
        if key not in label:
            raise CertificateError(f"label has no {key!r}")
    cert = label["certificate"]
    if isinstance(cert, dict) and cert.get("type") == "engine_agreement":
        try:
            said = {e["engine"]: e["verdict"] for e in label["engines"]}
            for name in cert.get("engines", []):
                if said.get(name) != label["verdict"]:
                    raise CertificateError(f"engine {name} did not answer {label['verdict']!r}")
        except (AttributeError, TypeError, KeyError) as e:
            raise CertificateError(f"malformed engine record ({e!r})") from None
    if verify is None:
        check(spec, model, question, params, label["verdict"], label.get("solution"), cert)
    else:
        verify(label["verdict"], label.get("solution"), cert)
