"""The one registry of domains: name -> (check module, application module).

``prefcert.formal.checker.<check module>`` declares the domain's meaning — parser,
questions, certificate types and their check functions — as ``SPEC``;
``prefcert.domains.<application module>`` wires engines, audits and default questions on
top of it as ``DOMAIN``. Both are imported on first use, so importing the registry (or the
checker path of ``prefcert check``) loads no engine and no other domain.

Adding a domain: a model module ``formal/<topic>.py``, its checks
``formal/checker/<topic>.py`` (with ``SPEC``), engines in ``oracles/`` and ``encodings/``,
wiring in ``prefcert/domains/<name>.py`` (with ``DOMAIN``), and one line here.
"""
from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

from .formal.errors import InstanceError

if TYPE_CHECKING:
    from .domains.base import Domain
    from .formal.spec import DomainSpec

DOMAINS: dict[str, tuple[str, str]] = {
    "stable_matching": ("matching", "stable_matching"),
    "housing_market": ("housing", "housing"),
    "house_allocation": ("allocation", "house_allocation"),
    "preference": ("queries", "preference"),
    "hospitals_residents": ("hospitals", "hospitals_residents"),
    "decision": ("decision", "decision"),
}


def _known(name: str) -> tuple[str, str]:
    if name not in DOMAINS:
        raise InstanceError(f"unknown domain (known: {', '.join(sorted(DOMAINS))})", value=name)
    return DOMAINS[name]


@cache
def spec(name: str) -> DomainSpec:
    """The trusted :class:`~prefcert.formal.spec.DomainSpec` of a domain (checker only)."""
    return importlib.import_module(f"prefcert.formal.checker.{_known(name)[0]}").SPEC


@cache
def domain(name: str) -> Domain:
    """The application :class:`~prefcert.domains.base.Domain` (engines) of a domain."""
    return importlib.import_module(f"prefcert.domains.{_known(name)[1]}").DOMAIN
