"""Domains wired to their engines. ``DOMAINS``: domain name -> :class:`~formal.tasks.base.Domain`."""
from __future__ import annotations

from ..errors import InstanceError
from .base import Domain
from .stable_matching import DOMAIN as _stable_matching
from .housing import DOMAIN as _housing_market

DOMAINS: dict[str, Domain] = {d.name: d for d in (_stable_matching, _housing_market,)}
from .preference import DOMAIN as _preference; DOMAINS[_preference.name] = _preference  # noqa: E402,E702
from .house_allocation import DOMAIN as _house_allocation; DOMAINS[_house_allocation.name] = _house_allocation  # noqa: E402,E702


def get_domain(name: str) -> Domain:
    if name not in DOMAINS:
        raise InstanceError(f"unknown domain (known: {', '.join(sorted(DOMAINS))})", value=name)
    return DOMAINS[name]
