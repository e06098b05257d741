"""Concept membership of candidate outcomes: which notions each candidate satisfies, with
the refuting certificate for each notion it fails — the basis of benchmark menus whose
options satisfy distinct notions, and of "none of the above"."""
from __future__ import annotations

from typing import Any

from ..formal.errors import CertificateError, InstanceError
from .registry import DOMAINS, domain


def classify(domain_name: str, model: Any, candidates: list) -> list[dict]:
    """Classify each candidate outcome (a dict agent -> partner) of an instance.

    Returns one dict per candidate: ``{"candidate": i, "satisfies": [...], "fails": [...],
    "notions": {notion: {"holds": bool, "certificate": ...}}}``, or ``{"candidate": i,
    "invalid": reason}`` when it is not a valid outcome. Raises InstanceError for a domain
    without outcomes to classify. Cost: one membership test per notion per candidate.
    """
    fn = domain(domain_name).classify
    if fn is None:
        known = [d for d in DOMAINS if domain(d).classify is not None]
        raise InstanceError(f"domain has no outcomes to classify (known: "
                            f"{', '.join(sorted(known))})", value=domain_name)
    out = []
    for i, cand in enumerate(candidates):
        try:
            notions = fn(model, cand)
        except CertificateError as e:
            out.append({"candidate": i, "invalid": str(e)})
            continue
        out.append({"candidate": i,
                    "satisfies": [n for n, v in notions.items() if v["holds"]],
                    "fails": [n for n, v in notions.items() if not v["holds"]],
                    "notions": notions})
    return out
