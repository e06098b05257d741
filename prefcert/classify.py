"""Concept membership of candidate outcomes: which notions each candidate satisfies, with
the refuting certificate for each notion it fails (issue 3, item 7) — the basis of benchmark
menus whose options satisfy distinct notions, and of "none of the above".

Trusted: uses the definitions of the ``formal`` topic modules only.
"""
from __future__ import annotations

from typing import Any

from .formal import allocation, housing, matching
from .formal.checker.matching import blocking_pairs
from .formal.errors import CertificateError, InstanceError


def _stable_matching(market: matching.Market, candidate: Any) -> dict[str, dict]:
    out = {}
    for question, notion in matching.QUESTIONS.items():
        pairs = blocking_pairs(market, candidate, notion)
        out[question] = {"holds": not pairs, "certificate":
                         {"type": "blocking_pairs", "count": len(pairs),
                          "pairs": [list(p) for p in pairs]} if pairs else None}
    out.update(allocation.classify(market, candidate))
    return out


CLASSIFIERS = {"stable_matching": _stable_matching, "housing_market": housing.classify,
               "house_allocation": allocation.classify}


def classify(domain: str, model: Any, candidates: list) -> list[dict]:
    """Classify each candidate outcome (a dict agent -> partner) of an instance.

    Returns one dict per candidate: ``{"candidate": i, "satisfies": [...], "fails": [...],
    "notions": {notion: {"holds": bool, "certificate": ...}}}``, or ``{"candidate": i,
    "invalid": reason}`` when it is not a valid outcome. Raises InstanceError for a domain
    without outcomes to classify. Cost: one membership test per notion per candidate.
    """
    if domain not in CLASSIFIERS:
        raise InstanceError(f"domain has no outcomes to classify (known: "
                            f"{', '.join(sorted(CLASSIFIERS))})", value=domain)
    out = []
    for i, cand in enumerate(candidates):
        try:
            notions = CLASSIFIERS[domain](model, cand)
        except CertificateError as e:
            out.append({"candidate": i, "invalid": str(e)})
            continue
        out.append({"candidate": i,
                    "satisfies": [n for n, v in notions.items() if v["holds"]],
                    "fails": [n for n, v in notions.items() if not v["holds"]],
                    "notions": notions})
    return out
