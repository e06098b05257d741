"""Minimal counterexamples: a smallest instance on which a property fails, with a
certificate of the failure and an argument for its minimality.

The size measure is ``(agents, list entries, tied pairs)``, compared lexicographically
(:func:`prefcert.pipeline.minimize.measure`). The search runs over increasing numbers of
agents; for each it takes every split of the agents into sides and either

- **enumerates** the split's instances up to isomorphism (the domain's ``space`` hook,
  :class:`prefcert.domains.base.Space`)
  when there are at most ``enumeration_limit`` raw instances — the least failing one found
  is then minimal for that split, and a split with no failure proves the property there;
- or **synthesises** a least failing instance with CP-SAT
  (:mod:`prefcert.encodings.stable_matching_synthesis`) when the property has a model — OPTIMAL proves
  minimality for the split, INFEASIBLE proves the property there (solver proofs);
- or **samples** the split at random for a share of the time budget and shrinks what it
  finds (:mod:`prefcert.pipeline.minimize`): a counterexample, with no minimality claim.

The first agent count with a failure gives the answer; it is shrunk once more (a
1-minimality check) and its failure certified: by labels the trusted checker accepts for
the built-in properties (a deletion log, a top-trading segmentation, a blocking coalition,
majority bounds), or by the user's callable alone.

Built-in properties: each domain's ``properties`` hook (:func:`builtin_properties`). A user property is a Python callable taking an
instance dict and returning True when the property holds (``module:function`` or
``path/to/file.py:function`` on the command line).
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import random
import time
from collections.abc import Callable
from typing import Any

from ..domains.base import Absent, Property, Space, provided
from ..formal.errors import InstanceError

# ----------------------------------------------------------------------------- built-ins

def parse(inst: dict) -> Any:
    """The trusted model of an instance dict (InstanceError when it is not valid)."""
    from .registry import spec
    return spec(inst["domain"]).parse(inst)


def certified_label(inst: dict, question: Any) -> dict:
    """prefcert's label of ``question`` on an instance dict (engines agree, checker
    accepts), for the certificates of built-in properties."""
    from ..formal.instances import from_object
    from .jobs import label, plan
    job = plan([from_object(dict(inst, id=inst.get("id", "counterexample")), "<counterexample>",
                            None, "counterexample")], [question])[0]
    return label(job, time_limit=30)


def existence_property(name: str, domain: str, doc: str, question: str,
                       search: Callable[[Any], tuple], *,
                       synthesize: Callable[..., dict] | None = None) -> Property:
    """"A matching of ``question``'s notion exists": decided by the oracle ``search``
    (model -> (matching or None, proof)), its failure certified by a ``none`` label."""
    def holds(inst: dict) -> bool:
        return search(parse(inst))[0] is not None

    def certify(inst: dict) -> dict:
        lab = certified_label(inst, question)
        if lab["verdict"] != "none":
            raise AssertionError(f"the engines find a {question} matching after all")
        return {"label": lab}
    return Property(name, domain, doc, holds, certify, synthesize)


def builtin_properties() -> dict[str, Property]:
    """Every domain's built-in properties (its ``properties`` hook), by name."""
    from .registry import DOMAINS, domain
    out: dict[str, Property] = {}
    for name in DOMAINS:
        build = provided(domain(name).properties)
        out.update(build() if build is not None else {})
    return out


def user_property(spec: str, domain: str) -> Property:
    """A property from ``module:function`` or ``path.py:function``: the callable takes an
    instance dict of ``domain`` and returns True when the property holds. Raises
    InstanceError when it cannot be loaded."""
    from .registry import DOMAINS
    if domain not in DOMAINS:
        raise InstanceError(f"unknown domain (known: {', '.join(sorted(DOMAINS))})",
                            value=domain)
    mod, _, fn = spec.rpartition(":")
    if not mod or not fn:
        raise InstanceError("a user property is module:function or file.py:function",
                            value=spec)
    try:
        if mod.endswith(".py"):
            s = importlib.util.spec_from_file_location("prefcert_user_property", mod)
            if s is None or s.loader is None:
                raise ImportError(mod)
            module = importlib.util.module_from_spec(s)
            s.loader.exec_module(module)
        else:
            module = importlib.import_module(mod)
        func = getattr(module, fn)
    except (ImportError, AttributeError, OSError, SyntaxError) as e:
        raise InstanceError(f"cannot load the property ({e.__class__.__name__}: {e})",
                            value=spec) from None
    if not callable(func):
        raise InstanceError("the property is not callable", value=spec)
    def holds(inst: dict) -> bool:
        try:
            return bool(func(inst))
        except Exception as e:      # a crash is neither "holds" nor "fails": stop, say where
            shown = json.dumps(inst, default=str)
            raise PropertyError(f"the property {spec} raised {e!r} on "
                                f"{shown if len(shown) < 400 else shown[:400] + '…'}") from None
    return Property(spec, domain, func.__doc__ or spec, holds)


class PropertyError(RuntimeError):
    """A user property raised: neither "holds" nor "fails" (the search stops)."""


def resolve(prop: str | Callable | Property, domain: str | None = None) -> Property:
    if isinstance(prop, Property):
        return prop
    if callable(prop):
        if domain is None:
            raise InstanceError("a callable property needs its domain")
        return Property(getattr(prop, "__name__", "property"), domain, prop.__doc__ or "",
                        lambda inst: bool(prop(inst)))
    builtins = builtin_properties()
    if prop in builtins:
        p = builtins[prop]
        if domain is not None and domain != p.domain:
            raise InstanceError(f"property {prop!r} is about domain {p.domain!r}", value=domain)
        return p
    if ":" in prop:
        if domain is None:
            raise InstanceError("a user property needs --domain", value=prop)
        return user_property(prop, domain)
    raise InstanceError(f"unknown property (built in: {', '.join(sorted(builtins))}; or "
                        f"module:function with --domain)", value=prop)


# ----------------------------------------------------------------------------- spaces

def space_of(domain_name: str) -> Space:
    """The domain's enumerable instance space (its ``space`` hook); InstanceError when it
    declares none."""
    from .registry import DOMAINS, domain
    hook = domain(domain_name).space
    if isinstance(hook, Absent):
        with_space = [d for d in DOMAINS if provided(domain(d).space)]
        raise InstanceError(f"no enumerable instance space for this domain ({hook.reason}; "
                            f"domains with one: {', '.join(with_space)})", value=domain_name)
    return hook


# ----------------------------------------------------------------------------- search

def _in_space(prop: Property, inst: dict, complete: bool) -> bool:
    """A valid instance of the property's domain (parsed by the trusted parser) inside
    the searched space (the space's ``contains``: e.g. both sides non-empty; with
    ``complete``, complete lists)."""
    try:
        model = parse(inst)
    except InstanceError:
        return False
    return space_of(prop.domain).contains(model, complete)


def _fails(prop: Property, inst: dict, complete: bool = False, *, check_space: bool = False
           ) -> bool:
    if check_space and not _in_space(prop, inst, complete):
        return False
    try:
        return not prop.holds(inst)
    except InstanceError:
        return False


def minimal_counterexample(prop: str | Callable[[dict[str, Any]], bool] | Property, *,
                           max_size: int = 6, domain: str | None = None,
                           complete: bool = False, seconds: float = 60.0,
                           enumeration_limit: int = 200_000, seed: int = 0,
                           progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Find a smallest instance on which a property fails.

    Parameters
    ----------
    prop : str, callable or Property
        A built-in name (:func:`builtin_properties`), ``module:function`` / ``file.py:function``,
        or a callable over instance dicts returning True when the property holds.
    max_size : int, default 6
        Largest number of agents tried.
    domain : str, optional
        The domain of a user property (built-ins know theirs).
    complete : bool, default False
        Only complete lists (every agent ranks the whole other side).
    seconds : float, default 60
        Time budget for synthesis and random search (enumeration is not cut short).
    enumeration_limit : int, default 200000
        Largest raw space enumerated; larger splits are synthesised or sampled.
    seed : int, default 0
        Seed of the random search.
    progress : callable, optional
        Called with a one-line status per split.

    Returns
    -------
    dict
        ``found``, ``property``, ``domain``, ``instance`` (with ``id``), ``size``
        (agents, entries, tied pairs), ``certificate`` (checker-verified evidence, or None
        for user properties), ``minimality`` (``claim`` ∈ {proven, unproven}, ``method``
        per split, counts of instances checked) and ``seconds``.

    Raises
    ------
    InstanceError
        An unknown property or domain.

    Examples
    --------
    >>> r = minimal_counterexample("strongly-stable-exists", max_size=3)
    >>> r["size"], r["minimality"]["claim"], r["certificate"]["label"]["verdict"]
    ((3, 4, 1), 'proven', 'none')

    Notes
    -----
    Enumeration is exponential in the number of agents (a 2 × 2 market has 1,296 raw
    instances, 345 up to isomorphism; 3 × 3 has 26⁶); synthesis is one CP-SAT model per
    split, with a constraint per matching of the complete bipartite graph.

    References
    ----------
    Zeller & Hildebrandt 2002, "Simplifying and isolating failure-inducing input", IEEE
    TSE 28 (shrinking); MacIver & Donaldson 2020, "Test-case reduction via test-case
    generation: insights from the Hypothesis reducer", ECOOP.
    """
    from .minimize import measure, shrink
    p = resolve(prop, domain)
    space = space_of(p.domain)
    kind = space.name
    say = progress or (lambda s: None)
    t0 = time.monotonic()
    rng = random.Random(seed)
    log: list[dict] = []
    proven = True
    best: dict | None = None
    for n in range(p.min_agents, max_size + 1):
        found_here: list[tuple[tuple, dict]] = []
        for dims in space.splits(n, 4):
            raw = space.size(dims, complete)
            entry: dict = {"agents": n, "space": kind, "dims": list(dims), "raw": raw}
            if raw <= enumeration_limit:
                checked = failing = 0
                least = None
                for inst in space.enumerate(dims, complete, p.options):
                    checked += 1
                    if _fails(p, inst):
                        failing += 1
                        key = measure(inst)
                        if least is None or key < least[0]:
                            least = (key, inst)
                entry.update(method="exhaustive", instances=checked, failing=failing)
                if least is not None:
                    found_here.append(least)
            elif p.synthesize is not None:
                left = max(1.0, seconds - (time.monotonic() - t0))
                res = p.synthesize(dims, complete, left)
                entry.update(method="cpsat_synthesis", status=res["status"],
                             solver_seconds=res["stats"]["seconds"])
                if res["instance"] is not None:
                    if not _fails(p, res["instance"]):
                        raise AssertionError("the synthesised instance satisfies the property")
                    found_here.append((measure(res["instance"]), res["instance"]))
                if res["status"] in ("feasible", "unknown"):
                    proven = False
            else:
                share = max(0.5, (seconds - (time.monotonic() - t0)) / 2)
                stop = time.monotonic() + share
                tries = 0
                hit = None
                while time.monotonic() < stop:
                    tries += 1
                    inst = space.sample(dims, complete, rng, p.options)
                    if _fails(p, inst):
                        hit = inst
                        break
                entry.update(method="random_search", instances=tries, failing=int(hit is not None))
                proven = False
                if hit is not None:
                    found_here.append((measure(hit), hit))
            log.append(entry)
            counted = f", {entry['instances']} instances" if "instances" in entry else ""
            say(f"{n} agents, {kind} {'x'.join(map(str, dims))}: {entry['method']}{counted}"
                f"{', failing: ' + str(entry.get('failing', '')) if 'failing' in entry else ''}")
        if found_here:
            best = min(found_here, key=lambda kv: kv[0])[1]
            break
    out: dict = {"property": p.name, "domain": p.domain, "doc": p.doc, "found": best is not None,
                 "complete_lists": complete}
    if best is None:
        out.update(instance=None, size=None, certificate=None,
                   minimality={"claim": "proven" if proven else "unproven",
                               "note": f"the property holds on every instance searched up to "
                                       f"{max_size} agents", "splits": log},
                   seconds=round(time.monotonic() - t0, 3))
        return out
    small, stats = shrink(best, lambda inst: _fails(p, inst, complete, check_space=True),
                          seconds=max(1.0, seconds / 4))
    if measure(small) < measure(best):
        proven = False      # cannot happen after a complete search; kept honest
    inst = dict(small, id=f"counterexample-{p.name.replace(':', '-').replace('/', '-')}")
    cert = p.certify(inst) if p.certify is not None else None
    size = measure(inst)
    methods = {e["method"] for e in log}
    argument = (f"every instance with fewer than {size[0]} agents satisfies the property, "
                f"and none with {size[0]} agents and a smaller (entries, tied pairs) fails it: "
                + ("each split was enumerated exhaustively up to isomorphism"
                   if methods == {"exhaustive"} else
                   "splits were enumerated exhaustively or settled by CP-SAT (OPTIMAL / "
                   "INFEASIBLE, a solver proof)")) if proven else \
        "not proven: some split was only sampled at random or the solver stopped early; " \
        "the instance is 1-minimal (no single agent, entry or tie can be removed)"
    out.update(instance=inst, size=size, certificate=cert,
               minimality={"claim": "proven" if proven else "unproven", "argument": argument,
                           "measure": ["agents", "entries", "tied_pairs"], "splits": log,
                           "shrink": stats},
               seconds=round(time.monotonic() - t0, 3))
    return out
