"""Domains wired to their engines. ``DOMAINS``: domain name -> :class:`~formal.tasks.base.Domain`."""
from __future__ import annotations

from ..errors import InstanceError
from .base import Domain
from .stable_matching import DOMAIN as _stable_matching

DOMAINS: dict[str, Domain] = {d.name: d for d in (_stable_matching,)}


def get_domain(name: str) -> Domain:
    if name not in DOMAINS:
        raise InstanceError(f"unknown domain (known: {', '.join(sorted(DOMAINS))})", value=name)
    return DOMAINS[name]
