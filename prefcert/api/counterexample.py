"""Minimal counterexamples from Python: :func:`minimal_counterexample` checks its arguments
as ``prefcert counterexample`` checks its options, then runs the search of
:mod:`prefcert.pipeline.counterexample`. Re-exported as ``prefcert.<name>``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..domains.base import Property
from ..pipeline.counterexample import minimal_counterexample as _search
from . import arguments as arg


def minimal_counterexample(prop: str | Callable[[dict[str, Any]], bool] | Property, *,
                           max_size: int = 6, domain: str | None = None,
                           complete: bool = False, seconds: float = 60.0,
                           enumeration_limit: int = 200_000, seed: int = 0,
                           progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    if not isinstance(prop, (str, Property)) and not callable(prop):
        raise arg.ArgumentError("prop", f"prop must be a property name, a callable or a "
                                        f"Property, got {type(prop).__name__}", prop)
    arg.integer(max_size, "max_size", minimum=1)
    arg.text(domain, "domain", optional=True)
    arg.number(seconds, "seconds", minimum=0.1)
    arg.integer(enumeration_limit, "enumeration_limit", minimum=0)
    arg.integer(seed, "seed")
    if progress is not None and not callable(progress):
        raise arg.ArgumentError("progress", f"progress must be callable, got "
                                            f"{type(progress).__name__}", progress)
    return _search(prop, max_size=max_size, domain=domain, complete=complete,
                   seconds=seconds, enumeration_limit=enumeration_limit, seed=seed,
                   progress=progress)


minimal_counterexample.__doc__ = _search.__doc__     # one text, kept with the search
minimal_counterexample.__wrapped__ = _search         # type: ignore[attr-defined]
