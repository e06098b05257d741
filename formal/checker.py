"""The trusted checker: one entry point over every domain's certificate checks.

Imports no solver and nothing from ``oracles`` or ``encodings``; each domain's model parser
and certificate check live in its ``formal`` topic module.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import allocation, housing, matching, queries
from .errors import CertificateError, InstanceError

# domain -> (parse raw instance dict -> model, check(model, question, params, verdict,
#            solution, certificate) -> None or raise CertificateError)
DOMAINS: dict[str, tuple[Callable[[dict], Any], Callable[..., None]]] = {
    "stable_matching": (matching.parse_market, matching.check_certificate),
    "housing_market": (housing.parse_housing_market, housing.check_certificate),
    "preference": (queries.parse_preference_data, queries.check_certificate),
    "house_allocation": (allocation.parse_house_allocation, allocation.check_certificate),
}

# (domain, question) -> check, consulted before DOMAINS: questions of a domain whose
# certificates are checked by another topic module (two-sided welfare in formal.allocation).
QUESTION_CHECKS: dict[tuple[str, str], Callable[..., None]] = {
    ("stable_matching", q): allocation.check_two_sided_welfare
    for q in ("utilitarian", "egalitarian", "rank_maximal")
}


# domain -> question as written (a dict) -> (name, params); other domains ask by name.
RESOLVE: dict[str, Callable[[Any], tuple[str, Any]]] = {"preference": queries.resolve}


def resolve_question(domain: str, asked: Any) -> tuple[str, Any]:
    """(question name, params) of a question as written in an instance or a label."""
    return RESOLVE[domain](asked) if domain in RESOLVE else (asked, None)


def parse_model(domain: str, data: dict) -> Any:
    """Parse an instance's raw dict into its domain model; InstanceError on bad input."""
    if domain not in DOMAINS:
        raise InstanceError(f"unknown domain (known: {', '.join(sorted(DOMAINS))})", value=domain)
    return DOMAINS[domain][0](data)


def check(domain: str, model: Any, question: str, params: Any, verdict: str, solution: Any,
          certificate: dict) -> None:
    """Verify one certificate. Raises :class:`CertificateError` naming the failing step."""
    if not isinstance(certificate, dict) or "type" not in certificate:
        raise CertificateError(f"certificate without a type: {certificate!r:.80}")
    if certificate["type"] == "engine_agreement":
        engines = certificate.get("engines", [])
        if certificate.get("verdict") != verdict or len(set(engines)) < 3:
            raise CertificateError("engine agreement needs three engines giving the verdict")
        return
    fn = QUESTION_CHECKS.get((domain, question)) or DOMAINS[domain][1]
    try:
        fn(model, question, params, verdict, solution, certificate)
    except (CertificateError, InstanceError):
        raise
    except (AttributeError, TypeError, KeyError, ValueError, IndexError, RecursionError) as e:
        raise CertificateError(f"malformed certificate ({e.__class__.__name__}: {e})") from None


def check_label(label: dict, model: Any, question: str, params: Any,
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
        check(label.get("domain", ""), model, question, params, label["verdict"],
              label.get("solution"), cert)
    else:
        verify(label["verdict"], label.get("solution"), cert)
