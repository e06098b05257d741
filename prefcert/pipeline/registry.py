"""The one registry of domains: a domain's name is its module stem in every layer.

``prefcert.formal.checker.<name>`` declares the domain's meaning — parser, questions,
certificate types and their check functions — as ``SPEC``; ``prefcert.domains.<name>``
wires engines, audits, default questions and the per-domain hooks on top of it as
``DOMAIN``. Both are imported on first use, so importing the registry (or the checker path
of ``prefcert check``) loads no engine and no other domain.

Adding a domain: ``formal/<name>.py`` (model), ``formal/checker/<name>.py`` (``SPEC``),
engines in ``oracles/<name>.py`` and ``encodings/<name>.py``, a sampler in
``generators/<name>.py``, the wiring ``prefcert/domains/<name>.py`` (``DOMAIN``), and the
name in :data:`DOMAINS`.
"""
from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING, Any

from ..formal.errors import InstanceError

if TYPE_CHECKING:
    from ..domains.base import Domain
    from ..formal.instances import Instance
    from ..formal.spec import DomainSpec

#: The registered domains. A domain's name is its module stem in every layer:
#: ``formal/<name>.py``, ``formal/checker/<name>.py`` (``SPEC``), ``oracles/<name>.py``,
#: ``encodings/<name>.py``, ``generators/<name>.py`` and ``prefcert/domains/<name>.py``
#: (``DOMAIN``).
DOMAINS: tuple[str, ...] = (
    "stable_matching",
    "housing_market",
    "house_allocation",
    "preference",
    "election",
    "hospitals_residents",
    "decision",
    "consistency",
)


def _known(name: str) -> str:
    if name not in DOMAINS:
        raise InstanceError(f"unknown domain (known: {', '.join(sorted(DOMAINS))})", value=name)
    return name


@cache
def spec(name: str) -> DomainSpec:
    """The trusted :class:`~prefcert.formal.spec.DomainSpec` of a domain (checker only)."""
    return importlib.import_module(f"prefcert.formal.checker.{_known(name)}").SPEC


@cache
def domain(name: str) -> Domain:
    """The application :class:`~prefcert.domains.base.Domain` (engines) of a domain."""
    return importlib.import_module(f"prefcert.domains.{_known(name)}").DOMAIN


def reread(inst: Instance, semantics: str | None, conventions: dict,
           model: Any = None) -> Instance:
    """``inst`` with the readings among ``semantics`` / ``conventions`` that its domain
    knows and that differ from its own (unchanged when none does, or when it does not
    parse: the plan reports that with its location). ``model``: ``inst`` already parsed."""
    from ..formal.instances import with_readings
    if inst.domain not in DOMAINS:
        return inst
    dspec = spec(inst.domain)
    if not semantics and not conventions:
        return inst
    try:
        model = dspec.parse(inst.data) if model is None else model
    except InstanceError:
        return inst
    own = getattr(model, "conventions", None) or {}
    conv = {k: v for k, v in conventions.items() if k in dspec.conventions and own.get(k) != v}
    sem = semantics if semantics and getattr(model, "semantics", semantics) != semantics \
        else None
    if sem is None and not conv:
        return inst
    return with_readings(inst, semantics=sem, conventions=conv)
