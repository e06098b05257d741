"""Domains wired to their engines. ``DOMAINS``: domain name -> :class:`~formal.tasks.base.Domain`."""
from __future__ import annotations

from dataclasses import replace

from ..formal.errors import InstanceError
from . import house_allocation, housing, preference, stable_matching
from .base import Domain

DOMAINS: dict[str, Domain] = {d.name: d for d in (
    # two-sided welfare optima (ranks of both sides count) are questions of SMTI markets too
    replace(stable_matching.DOMAIN, questions={**stable_matching.DOMAIN.questions,
                                               **house_allocation.TWO_SIDED_QUESTIONS}),
    housing.DOMAIN, house_allocation.DOMAIN, preference.DOMAIN)}


def get_domain(name: str) -> Domain:
    if name not in DOMAINS:
        raise InstanceError(f"unknown domain (known: {', '.join(sorted(DOMAINS))})", value=name)
    return DOMAINS[name]
