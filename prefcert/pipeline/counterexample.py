"""Minimal counterexamples: a smallest instance on which a property fails, with a
certificate of the failure and an argument for its minimality.

The size measure is ``(agents, list entries, tied pairs)``, compared lexicographically
(:func:`prefcert.generators.spaces.measure`). The search runs over increasing numbers of
agents; for each it takes every split of the agents into sides and either

- **enumerates** the split's instances up to isomorphism (:mod:`prefcert.generators.spaces`)
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

Built-in properties: :data:`PROPERTIES`. A user property is a Python callable taking an
instance dict and returning True when the property holds (``module:function`` or
``path/to/file.py:function`` on the command line).
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..formal.errors import InstanceError
from ..formal.rules import RULES


@dataclass(frozen=True)
class Property:
    """A property of instances of one domain.

    ``holds(instance) -> bool`` decides it (fast, engine-based for the built-ins);
    ``certify(instance) -> dict`` returns checker-verified evidence that it fails (or None
    for user properties); ``synthesize(dims, complete, seconds) -> dict`` finds a least
    failing instance of a split with CP-SAT (see :func:`prefcert.encodings.stable_matching_synthesis.
    synthesize_smti`), when available.
    """

    name: str
    domain: str
    doc: str
    holds: Callable[[dict], bool]
    certify: Callable[[dict], dict] | None = None
    synthesize: Callable[..., dict] | None = None
    min_agents: int = 2
    options: dict = field(default_factory=dict)


# ----------------------------------------------------------------------------- built-ins

def _model(inst: dict):
    from .registry import spec
    return spec(inst["domain"]).parse(inst)


def _label(inst: dict, question: Any) -> dict:
    from ..formal.instances import from_object
    from .jobs import label, plan
    job = plan([from_object(dict(inst, id=inst.get("id", "counterexample")), "<counterexample>",
                            None, "counterexample")], [question])[0]
    return label(job, time_limit=30)


def _exists(question: str, search):
    def holds(inst: dict) -> bool:
        return search(_model(inst))[0] is not None

    def certify(inst: dict) -> dict:
        lab = _label(inst, question)
        if lab["verdict"] != "none":
            raise AssertionError(f"the engines find a {question} matching after all")
        return {"label": lab}
    return holds, certify


def _sm_search(notion: str):
    def search(market):
        from ..oracles import stable_matching as o
        return (o.super_stable_search if notion == "super" else o.strongly_stable_search)(market)
    return search


def _hr_search(notion: str):
    def search(market):
        from ..oracles import hospitals_residents as o
        return (o.super_stable_search if notion == "super" else o.strongly_stable_search)(market)
    return search


def _synth(notion: str):
    def run(dims, complete: bool, seconds: float) -> dict:
        from ..encodings.stable_matching_synthesis import synthesize_smti
        return synthesize_smti(*dims, notion, complete=complete, time_limit=seconds)
    return run


def _strict_core_holds(inst: dict) -> bool:
    from ..oracles.housing_market import strict_core
    return strict_core(_model(inst)).allocation is not None


def _strict_core_certify(inst: dict) -> dict:
    lab = _label(inst, "strict_core")
    if lab["verdict"] != "none":
        raise AssertionError("the engines find a strict-core allocation after all")
    return {"label": lab}


def _ttc(inst: dict):
    from ..oracles.housing_market import top_trading_cycles
    m = _model(inst)
    return m, top_trading_cycles(m)


def _ttc_holds(inst: dict) -> bool:
    from ..formal.checker.housing_market import in_strict_core
    m, x = _ttc(inst)
    return in_strict_core(m, x)


def _ttc_certify(inst: dict) -> dict:
    from ..domains.housing_market import classify
    from ..formal import checker
    from .registry import spec
    m, x = _ttc(inst)
    cert = classify(m, x)["strict_core"]["certificate"]
    checker.check(spec("housing_market"), m, "strict_core", None, "incorrect", x, cert)
    return {"ttc_allocation": x, "tie_break": "endowment order", "refutation": cert,
            "checked": True}


def _margins(inst: dict) -> tuple[list[str], dict]:
    items = list(inst["items"])
    net = {(a, b): 0 for a in items for b in items if a != b}
    for datum in inst["profile"].values():
        order = datum if isinstance(datum, list) else datum["order"]
        k = 1 if isinstance(datum, list) else int(datum.get("count", 1))
        if any(isinstance(g, list) for g in order) or len(order) != len(items):
            raise InstanceError("the Condorcet property needs linear, complete ballots",
                                value=order)
        for i, a in enumerate(order):
            for b in order[i + 1:]:
                net[a, b] += k
                net[b, a] -= k
    return items, net


def _condorcet_holds(inst: dict) -> bool:
    items, net = _margins(inst)
    return any(all(net[c, d] > 0 for d in items if d != c) for c in items)


def _condorcet_certify(inst: dict) -> dict:
    """For every candidate c a rival d over which c has no strict majority, each by a
    ``majority`` label of the preference domain (checked bounds)."""
    items, net = _margins(inst)
    beaten = []
    for c in items:
        d = next(d for d in items if d != c and net[c, d] <= 0)
        lab = _label(inst, {"type": "majority", "items": [c, d]})
        if lab["verdict"] != "false":
            raise AssertionError(f"{c} has a strict majority over {d} after all")
        beaten.append({"candidate": c, "not_beating": d, "label": lab})
    return {"no_strict_majority": beaten, "checked": True}


def _manipulation(inst: dict):
    from ..formal.election import rule_of
    from ..formal.rules import rule_named
    from ..oracles.election import enumerate_reports, greedy_reachable, irv_reachable
    e = _model(inst)
    rule = rule_of(e, {})
    if rule_named(rule).admits("elimination_search"):
        return e, irv_reachable(e)
    return e, (enumerate_reports if e.m <= 6 else greedy_reachable)(e, rule)


def _not_manipulable_holds(inst: dict) -> bool:
    e, m = _manipulation(inst)
    return not e.true_pos(m.best) < e.true_pos(m.sincere)


def _not_manipulable_certify(inst: dict) -> dict:
    """The profitable ballot, replayed by the trusted checker's own count (the sincere
    election, then the ballot in place of the manipulator's), beside the ``manipulation``
    label whose certificate the checker accepted (it replays the ballot too, and proves
    the achieved winner optimal)."""
    from ..formal.checker.election import Count, report_ballot, sincere_ballot
    from ..formal.election import rule_of
    lab = _label(inst, "manipulation")
    if lab["verdict"] != "manipulable" or not lab["checked"]:
        raise AssertionError("the engines find no checked profitable report after all")
    e = _model(inst)
    rule = rule_of(e, {})
    ballot = lab["solution"]["ballot"]
    count = Count(e, rule)
    sincere = count.winner([sincere_ballot(e, rule)])
    achieved = count.winner([report_ballot(e, rule, ballot)])
    if not e.true_pos(achieved) < e.true_pos(sincere):
        raise AssertionError("the replayed ballot is not profitable")
    return {"rule": rule, "truth": inst["manipulator"]["ranking"], "profitable_ballot": ballot,
            "sincere_winner": sincere, "manipulated_winner": achieved,
            "gain": e.true_pos(sincere) - e.true_pos(achieved), "label": lab, "checked": True}


PROPERTIES: dict[str, Property] = {}


def _register(p: Property) -> None:
    PROPERTIES[p.name] = p


for _notion, _word in (("strong", "strongly"), ("super", "super")):
    _h, _c = _exists(f"{_word}_stable" if _notion == "strong" else "super_stable",
                     _sm_search(_notion))
    _register(Property(f"{_word}-stable-exists", "stable_matching",
                       f"a {_word}{'-' if _notion == 'super' else ' '}stable matching exists "
                       f"(two-sided markets with ties and incomplete lists)",
                       _h, _c, _synth(_notion)))
    _h, _c = _exists(f"{_word}_stable" if _notion == "strong" else "super_stable",
                     _hr_search(_notion))
    _register(Property(f"hr-{_word}-stable-exists", "hospitals_residents",
                       f"a {_word}{'-' if _notion == 'super' else ' '}stable matching exists "
                       f"(hospitals/residents with ties, capacities 0..2)", _h, _c))
_register(Property("strict-core-nonempty", "housing_market",
                   "the strict core of the housing market is non-empty",
                   _strict_core_holds, _strict_core_certify, min_agents=1))
_register(Property("ttc-in-strict-core", "housing_market",
                   "top trading cycles (ties broken by the endowment order) lands in the "
                   "strict core", _ttc_holds, _ttc_certify, min_agents=1))
_register(Property("condorcet-winner-exists", "preference",
                   "some candidate beats every other by a strict majority (linear ballots, "
                   "2..4 candidates)", _condorcet_holds, _condorcet_certify, min_agents=1))
for _rule in RULES:
    _register(Property(f"{_rule}-not-manipulable", "election",
                       f"{_rule} (ties to τ = c1 ≻ c2 ≻ …) is not manipulable by one voter: "
                       f"no report elects a candidate the voter prefers to the sincere winner "
                       f"(linear ballots, 2..4 candidates)", _not_manipulable_holds,
                       _not_manipulable_certify, min_agents=1, options={"rule": _rule}))


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
    if prop in PROPERTIES:
        p = PROPERTIES[prop]
        if domain is not None and domain != p.domain:
            raise InstanceError(f"property {prop!r} is about domain {p.domain!r}", value=domain)
        return p
    if ":" in prop:
        if domain is None:
            raise InstanceError("a user property needs --domain", value=prop)
        return user_property(prop, domain)
    raise InstanceError(f"unknown property (built in: {', '.join(sorted(PROPERTIES))}; or "
                        f"module:function with --domain)", value=prop)


# ----------------------------------------------------------------------------- spaces

def splits(domain: str, n: int, *, max_items: int = 4) -> list[tuple[str, tuple]]:
    """The spaces of instances with ``n`` agents: (space kind, dimensions)."""
    if domain == "stable_matching":
        return [("smti", (a, n - a)) for a in range(1, n)]
    if domain == "hospitals_residents":
        return [("hr", (r, n - r)) for r in range(1, n)]
    if domain == "housing_market":
        return [("housing", (n,))]
    if domain == "preference":
        return [("profile", (n, m)) for m in range(2, max_items + 1)]
    if domain == "election":
        return [("election", (n, m)) for m in range(2, max_items + 1)]
    raise InstanceError("no enumerable instance space for this domain (built in: "
                        "stable_matching, hospitals_residents, housing_market, preference, "
                        "election)", value=domain)


def _enumerate(kind: str, dims: tuple, complete: bool, options: dict | None = None
               ) -> Iterator[dict]:
    from ..generators import spaces
    if kind == "election":
        return spaces.election_space(*dims, (options or {}).get("rule", "plurality"))
    if kind == "smti":
        return spaces.smti_space(*dims, complete=complete)
    if kind == "hr":
        return spaces.hr_space(*dims, complete=complete)
    if kind == "housing":
        return spaces.housing_space(*dims, complete=complete)
    return spaces.profile_space(*dims)


def _random_instance(kind: str, dims: tuple, complete: bool, rng: random.Random,
                     options: dict | None = None) -> dict:
    from ..generators.spaces import weak_orders
    if kind == "election":
        n, m = dims
        items = [f"c{i}" for i in range(1, m + 1)]
        return {"domain": "election", "candidates": items, "tie_break": list(items),
                "rule": (options or {}).get("rule", "plurality"),
                "ballots": [rng.sample(items, m) for _ in range(n - 1)],
                "manipulator": {"ranking": rng.sample(items, m)}}

    def pick(items):
        orders = weak_orders(tuple(items), complete)
        o = orders[rng.randrange(len(orders))]
        return [list(g) if isinstance(g, tuple) else g for g in o]
    if kind == "smti":
        a, b = dims
        na, nb = [f"m{i}" for i in range(1, a + 1)], [f"w{j}" for j in range(1, b + 1)]
        return {"domain": "stable_matching", "preferences": {
            "A": {x: pick(nb) for x in na}, "B": {y: pick(na) for y in nb}}}
    if kind == "hr":
        r, h = dims
        nr, nh = [f"r{i}" for i in range(1, r + 1)], [f"h{j}" for j in range(1, h + 1)]
        return {"domain": "hospitals_residents", "preferences": {
            "residents": {x: pick(nh) for x in nr}, "hospitals": {y: pick(nr) for y in nh}},
            "capacities": {y: rng.randint(0, 2) for y in nh}}
    if kind == "housing":
        (n,) = dims
        names = [f"a{i}" for i in range(1, n + 1)]
        houses = [f"h{i}" for i in range(1, n + 1)]
        return {"domain": "housing_market", "preferences": {a: pick(houses) for a in names},
                "endowment": dict(zip(names, houses))}
    n, m = dims
    items = [f"c{i}" for i in range(1, m + 1)]
    return {"domain": "preference", "items": items,
            "profile": {f"V{k}": rng.sample(items, m) for k in range(1, n + 1)}}


# ----------------------------------------------------------------------------- search

def _in_space(prop: Property, inst: dict, complete: bool) -> bool:
    """A valid instance of the property's domain (parsed by the trusted parser) inside
    the searched space: both sides non-empty; with ``complete``, complete lists."""
    try:
        model = _model(inst)
    except InstanceError:
        return False
    d = prop.domain
    if d in ("stable_matching", "hospitals_residents"):
        a, b = (model.a, model.b) if d == "stable_matching" else (model.residents, model.hospitals)
        if not a or not b:
            return False
        if complete and any(len(o) != len(b) for o in a.values()) or \
                complete and any(len(o) != len(a) for o in b.values()):
            return False
    if d == "housing_market" and complete:
        return all(len(o) == model.size for o in model.preferences.values())
    return True


def _fails(prop: Property, inst: dict, complete: bool = False, *, check_space: bool = False
           ) -> bool:
    if check_space and not _in_space(prop, inst, complete):
        return False
    try:
        return not prop.holds(inst)
    except InstanceError:
        return False


def minimal_counterexample(prop: str | Callable | Property, *, max_size: int = 6,
                           domain: str | None = None, complete: bool = False,
                           seconds: float = 60.0, enumeration_limit: int = 200_000,
                           seed: int = 0, progress: Callable[[str], None] | None = None
                           ) -> dict:
    """Find a smallest instance on which a property fails.

    Parameters
    ----------
    prop : str, callable or Property
        A built-in name (:data:`PROPERTIES`), ``module:function`` / ``file.py:function``,
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
    from ..generators.spaces import measure, space_size
    from .minimize import shrink
    p = resolve(prop, domain)
    say = progress or (lambda s: None)
    t0 = time.monotonic()
    rng = random.Random(seed)
    log: list[dict] = []
    proven = True
    best: dict | None = None
    for n in range(p.min_agents, max_size + 1):
        found_here: list[tuple[tuple, dict]] = []
        for kind, dims in splits(p.domain, n):
            raw = space_size(kind, *dims, complete=complete) \
                if kind not in ("profile", "election") else space_size(kind, *dims)
            entry: dict = {"agents": n, "space": kind, "dims": list(dims), "raw": raw}
            if raw <= enumeration_limit:
                checked = failing = 0
                least = None
                for inst in _enumerate(kind, dims, complete, p.options):
                    checked += 1
                    if _fails(p, inst):
                        failing += 1
                        key = measure(inst)
                        if least is None or key < least[0]:
                            least = (key, inst)
                entry.update(method="exhaustive", instances=checked, failing=failing)
                if least is not None:
                    found_here.append(least)
            elif p.synthesize is not None and kind == "smti":
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
                    inst = _random_instance(kind, dims, complete, rng, p.options)
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
