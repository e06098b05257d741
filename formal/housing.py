"""Shapley–Scarf housing markets with ties and incomplete lists: model, core definitions and
certificate checks.

Each agent ``i`` owns one house ``ω_i`` (the endowment is a bijection agents -> houses) and
has a weak order over houses, best tie first. A house the agent does not list is
*unacceptable*: worse than its own house. The agent's own house is always acceptable: when it
is not listed, it ranks just below every listed house. Unlisted houses are tied with one
another at the bottom (this only matters for allocations that are not individually
rational, which are outside every core anyway). An allocation is a dict agent -> house that
is a permutation of the houses.

Definitions (Shapley & Scarf 1974; Roth & Postlewaite 1977; Quint & Wako 2004;
ALGORITHMS.md §2). For an allocation ``x`` the improvement digraph ``D_x`` has an arc
``i -> j`` whenever ``ω_j ⪰_i x(i)`` (self-loops included), *strict* when ``ω_j ≻_i x(i)``.
A coalition blocks ``x`` by re-trading its own endowments; every blocking trade splits into
cycles of ``D_x``, so

- ``x`` is in the **weak core** (no coalition makes all its members strictly better off)
  ⇔ the strict arcs of ``D_x`` form an acyclic digraph (no strict self-loop either);
- ``x`` is in the **strict core** (no coalition makes all members weakly and one strictly
  better off) ⇔ no strict arc lies inside a strongly connected component of ``D_x``;
- ``x`` is **Pareto optimal** ⇔ ``x`` is in the strict core of the market whose endowment is
  ``x`` itself (a Pareto improvement is a permutation of the current houses).

Trusted: imports no solver and nothing from ``oracles`` or ``encodings`` (scipy's sparse
graph routines for strongly connected components; networkx for small digraphs).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from .errors import CertificateError, InstanceError
from .preferences import WeakOrder, parse_weak_order

QUESTIONS = ("strict_core", "weak_core")
NOTIONS = ("individually_rational", "weak_core", "strict_core", "pareto_optimal")
CORE_NOTION = {"strict_core": "strict", "weak_core": "weak"}


@dataclass(frozen=True)
class HousingMarket:
    """A Shapley–Scarf housing market.

    ``preferences``: agent -> WeakOrder over houses, as given. ``endowment``: agent -> house
    (a bijection). Derived: ``owner`` house -> agent; ``order`` agent -> the effective weak
    order (the given one, plus the own house as a last singleton tie when unlisted);
    ``agents`` in input order.
    """

    preferences: Mapping[str, WeakOrder]
    endowment: Mapping[str, str]
    owner: Mapping[str, str] = field(init=False, repr=False, compare=False)
    order: Mapping[str, WeakOrder] = field(init=False, repr=False, compare=False)
    agents: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "owner", {h: a for a, h in self.endowment.items()})
        order = {}
        for a, o in self.preferences.items():
            own = self.endowment[a]
            order[a] = o if own in o else WeakOrder(o.ties + ((own,),))
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "agents", tuple(self.endowment))

    @property
    def size(self) -> int:
        """The number of agents n."""
        return len(self.agents)

    def rank(self, agent: str, house: str) -> int:
        """1-based rank of ``house`` for ``agent``; unacceptable houses share the last rank."""
        o = self.order[agent]
        return o.rank.get(house, len(o.ties) + 1)

    def is_strict(self) -> bool:
        """True when every listed tie is a singleton."""
        return all(o.is_strict() for o in self.order.values())

    def to_json(self) -> dict:
        return {"preferences": {a: o.to_json() for a, o in self.preferences.items()},
                "endowment": dict(self.endowment)}


def parse_housing_market(data: dict) -> HousingMarket:
    """Parse ``{"preferences": {agent: list}, "endowment": {agent: house}}`` (DESIGN.md).

    Raises :class:`InstanceError` naming the agent and the value for: a missing or
    non-object field, an empty market, an agent without endowment or without preference
    list, a non-string house, a house that is the endowment of two agents, a list ranking a
    house nobody owns, a house listed twice, an empty tie group. O(total list length).
    """
    if not isinstance(data, dict):
        raise InstanceError("a housing market must be a JSON object", value=type(data).__name__)
    prefs, endow = data.get("preferences"), data.get("endowment")
    if not isinstance(prefs, dict):
        raise InstanceError("'preferences' must be an object mapping agents to lists",
                            value=prefs)
    if not isinstance(endow, dict):
        raise InstanceError("'endowment' must be an object mapping agents to houses",
                            value=endow)
    if not endow:
        raise InstanceError("a housing market needs at least one agent", value=endow)
    owner: dict[str, str] = {}
    for a, h in endow.items():
        if not isinstance(h, str):
            raise InstanceError("endowment must be a house name (string)", agent=a, value=h)
        if h in owner:
            raise InstanceError(f"house is also the endowment of {owner[h]!r}: the endowment "
                                "is not a bijection", agent=a, value=h)
        owner[h] = a
        if a not in prefs:
            raise InstanceError("agent has an endowment but no preference list", agent=a,
                                value=h)
    for a in prefs:
        if a not in endow:
            raise InstanceError("agent has a preference list but no endowment", agent=a,
                                value=None)
    orders = {a: parse_weak_order(prefs[a], agent=a, known=owner) for a in endow}
    return HousingMarket(orders, dict(endow))


# --------------------------------------------------------------------------- allocations

def as_allocation(market: HousingMarket, x: object, what: str = "allocation") -> dict[str, str]:
    """Validate ``x`` as a permutation agent -> house; return it or raise CertificateError."""
    if not isinstance(x, dict):
        raise CertificateError(f"{what} must be an object agent -> house, got {x!r:.60}")
    missing = [a for a in market.agents if a not in x]
    if missing:
        raise CertificateError(f"{what} gives no house to agent {missing[0]!r}")
    taken: dict[str, str] = {}
    for a, h in x.items():
        if a not in market.endowment:
            raise CertificateError(f"{what} names {a!r}, not an agent")
        if not isinstance(h, str) or h not in market.owner:
            raise CertificateError(f"{what} gives {a!r} the house {h!r}, which nobody owns")
        if h in taken:
            raise CertificateError(f"{what} gives house {h!r} to both {taken[h]!r} and {a!r}")
        taken[h] = a
    return dict(x)


def ir_violators(market: HousingMarket, x: Mapping[str, str]) -> list[str]:
    """Agents for which ``x`` is worse than their own house (empty list: x is individually
    rational). O(n)."""
    return [a for a in market.agents
            if market.rank(a, x[a]) > market.rank(a, market.endowment[a])]


def improvement_arcs(market: HousingMarket, x: Mapping[str, str],
                     endowment: Mapping[str, str] | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The arcs of the improvement digraph D_x as arrays over agent indices.

    Returns (src, dst, strict): arc ``src[k] -> dst[k]`` (indices into ``market.agents``)
    when ``e_dst ⪰_src x(src)``, with ``strict[k]`` when ``e_dst ≻_src x(src)``, where ``e``
    is ``endowment`` (default: the market's; ``endowment=x`` describes Pareto
    improvements). Self-loops included. O(n + arcs): only houses at least as good as x(i)
    are scanned (all houses when x(i) is unacceptable).
    """
    e = market.endowment if endowment is None else endowment
    idx = {a: k for k, a in enumerate(market.agents)}
    owner = {h: idx[a] for a, h in e.items()}
    src: list[int] = []
    dst: list[int] = []
    strict: list[bool] = []
    for i in market.agents:
        o = market.order[i]
        r = market.rank(i, x[i])
        ii = idx[i]
        for k, tie in enumerate(o.ties, 1):
            if k > r:
                break
            dst.extend(owner[h] for h in tie)
            strict.extend([k < r] * len(tie))
        if r > len(o.ties):              # x(i) unacceptable: every house is weakly better
            more = [owner[h] for h in owner if h not in o.rank]
            dst.extend(more)
            strict.extend([False] * len(more))
        src.extend([ii] * (len(dst) - len(src)))
    return (np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64),
            np.asarray(strict, dtype=bool))


def improvement_digraph(market: HousingMarket, x: Mapping[str, str],
                        endowment: Mapping[str, str] | None = None) -> nx.DiGraph:
    """D_x as a networkx DiGraph over agent names, arcs carrying ``strict`` (see
    :func:`improvement_arcs`). Convenient for small markets; O(n + arcs)."""
    src, dst, strict = improvement_arcs(market, x, endowment)
    names = market.agents
    g = nx.DiGraph()
    g.add_nodes_from(names)
    g.add_edges_from((names[u], names[v], {"strict": bool(s)})
                     for u, v, s in zip(src.tolist(), dst.tolist(), strict.tolist()))
    return g


def _scc_labels(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Strongly connected component label of each node (scipy, Tarjan/Pearce). O(n + m)."""
    a = csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    return connected_components(a, directed=True, connection="strong")[1]


def _path(n: int, src: np.ndarray, dst: np.ndarray, start: int, goal: int) -> list[int]:
    """A shortest path start -> goal along the arcs (BFS); goal must be reachable."""
    order = np.argsort(src, kind="stable")
    heads = dst[order].tolist()
    ptr = np.searchsorted(src[order], np.arange(n + 1)).tolist()
    parent = {start: -1}
    frontier = [start]
    while goal not in parent:
        nxt = []
        for u in frontier:
            for v in heads[ptr[u]:ptr[u + 1]]:
                if v not in parent:
                    parent[v] = u
                    nxt.append(v)
        if not nxt:
            raise AssertionError("goal not reachable")
        frontier = nxt
    path = [goal]
    while path[-1] != start:
        path.append(parent[path[-1]])
    return path[::-1]


def _reallocation(cycle: Sequence[str], e: Mapping[str, str]) -> dict[str, str]:
    return {a: e[cycle[(k + 1) % len(cycle)]] for k, a in enumerate(cycle)}


def blocking_cycle(market: HousingMarket, x: Mapping[str, str], notion: str,
                   endowment: Mapping[str, str] | None = None
                   ) -> tuple[list[str], dict[str, str]] | None:
    """One blocking cycle of ``x`` under ``notion`` ("weak" or "strict"), or None.

    Returns (coalition, reallocation agent -> endowment of the next agent). ``weak``: a
    cycle of strict arcs of D_x (strict self-loops first); ``strict``: a cycle of D_x
    through a strict arc lying inside a strongly connected component. O(n + arcs).
    Source: Shapley & Scarf 1974; Quint & Wako 2004; ALGORITHMS.md §2.
    """
    if notion not in ("weak", "strict"):
        raise ValueError(f"unknown core notion {notion!r}")
    e = market.endowment if endowment is None else endowment
    n, names = market.size, market.agents
    src, dst, strict = improvement_arcs(market, x, e)
    if notion == "weak":
        src, dst = src[strict], dst[strict]
        strict = np.ones(len(src), dtype=bool)
    labels = _scc_labels(n, src, dst)
    if notion == "weak":
        loops = np.flatnonzero(src == dst)
        inside = np.flatnonzero((labels[src] == labels[dst]) & (src != dst))
        hits = loops if len(loops) else inside
    else:
        hits = np.flatnonzero(strict & (labels[src] == labels[dst]))
    if not len(hits):
        return None
    u, v = int(src[hits[0]]), int(dst[hits[0]])
    cycle = [u] if u == v else [u] + _path(n, src, dst, v, u)[:-1]
    agents = [names[k] for k in cycle]
    return agents, _reallocation(agents, e)


def is_individually_rational(market: HousingMarket, x: Mapping[str, str]) -> bool:
    """x(i) ⪰_i ω_i for every agent i. O(n)."""
    return not ir_violators(market, as_allocation(market, x))


def in_weak_core(market: HousingMarket, x: Mapping[str, str]) -> bool:
    """x is in the weak core ⇔ the strict arcs of D_x are acyclic. O(n + arcs)."""
    return blocking_cycle(market, as_allocation(market, x), "weak") is None


def in_strict_core(market: HousingMarket, x: Mapping[str, str]) -> bool:
    """x is in the strict core ⇔ no strict arc of D_x inside an SCC. O(n + arcs)."""
    return blocking_cycle(market, as_allocation(market, x), "strict") is None


def is_pareto_optimal(market: HousingMarket, x: Mapping[str, str]) -> bool:
    """x is Pareto optimal ⇔ no cycle of D_x (endowment x) has a strict arc. O(n + arcs)."""
    x = as_allocation(market, x)
    return blocking_cycle(market, x, "strict", endowment=x) is None


def classify(market: HousingMarket, x: Mapping[str, str]) -> dict[str, dict]:
    """Concept membership of a candidate allocation (issue 3, item 7).

    Returns ``{notion: {"holds": bool, "certificate": dict | None}}`` for the notions
    individually_rational, weak_core, strict_core, pareto_optimal. The certificate of a
    failed notion refutes it and passes :func:`check_refutation`: a ``blocking_coalition``
    (for IR, a single agent keeping its own house) or a ``pareto_improvement``. Raises
    CertificateError when ``x`` is not an allocation. O(n + arcs).
    """
    x = as_allocation(market, x)
    out: dict[str, dict] = {}
    bad = ir_violators(market, x)
    out["individually_rational"] = {
        "holds": not bad,
        "certificate": None if not bad else {
            "type": "blocking_coalition", "notion": "weak", "coalition": [bad[0]],
            "reallocation": {bad[0]: market.endowment[bad[0]]}}}
    for notion, kind in (("weak_core", "weak"), ("strict_core", "strict")):
        found = blocking_cycle(market, x, kind)
        out[notion] = {"holds": found is None, "certificate": None if found is None else {
            "type": "blocking_coalition", "notion": kind, "coalition": found[0],
            "reallocation": found[1]}}
    found = blocking_cycle(market, x, "strict", endowment=x)
    if found is None:
        out["pareto_optimal"] = {"holds": True, "certificate": None}
    else:
        y = dict(x)
        y.update(found[1])
        out["pareto_optimal"] = {"holds": False, "certificate": {
            "type": "pareto_improvement", "allocation": y}}
    return out


# --------------------------------------------------------------------------- checks

def check_blocking_coalition(market: HousingMarket, x: object, notion: str,
                             coalition: object, reallocation: object) -> None:
    """Verify that ``coalition`` blocks allocation ``x`` by ``reallocation``.

    Checked against the definition: the coalition is a non-empty list of distinct agents;
    the reallocation gives each member one house and is a bijection onto the members' own
    endowments; ``notion="weak"``: every member is strictly better off than under x;
    ``"strict"``: every member weakly and at least one strictly. O(|coalition|).
    Raises CertificateError naming the failing step.
    """
    x = as_allocation(market, x)
    if notion not in ("weak", "strict"):
        raise CertificateError(f"unknown core notion {notion!r}")
    if not isinstance(coalition, list) or not coalition:
        raise CertificateError("a blocking coalition is a non-empty list of agents")
    if not all(isinstance(a, str) for a in coalition) or len(set(coalition)) != len(coalition):
        raise CertificateError("coalition must name distinct agents (strings)")
    for a in coalition:
        if a not in market.endowment:
            raise CertificateError(f"coalition names {a!r}, not an agent")
    if not isinstance(reallocation, dict) or set(reallocation) != set(coalition):
        raise CertificateError("the reallocation must give a house to exactly the coalition")
    own = sorted(market.endowment[a] for a in coalition)
    got = reallocation.values()
    if not all(isinstance(h, str) for h in got) or sorted(got) != own:
        raise CertificateError("the reallocation is not a permutation of the coalition's "
                               "own endowments")
    better = 0
    for a in coalition:
        new, old = market.rank(a, reallocation[a]), market.rank(a, x[a])
        if new < old:
            better += 1
        elif notion == "weak":
            raise CertificateError(f"agent {a!r} is not strictly better off with "
                                   f"{reallocation[a]!r} than with {x[a]!r}")
        elif new > old:
            raise CertificateError(f"agent {a!r} is worse off with {reallocation[a]!r} "
                                   f"than with {x[a]!r}")
    if better == 0:
        raise CertificateError("no member of the coalition is strictly better off")


def check_pareto_improvement(market: HousingMarket, x: object, y: object) -> None:
    """Verify that allocation ``y`` Pareto-improves on ``x``: everyone weakly better off,
    someone strictly. O(n). Raises CertificateError."""
    x = as_allocation(market, x)
    y = as_allocation(market, y, "improvement")
    better = 0
    for a in market.agents:
        new, old = market.rank(a, y[a]), market.rank(a, x[a])
        if new > old:
            raise CertificateError(f"agent {a!r} is worse off with {y[a]!r} than {x[a]!r}")
        better += new < old
    if not better:
        raise CertificateError("nobody is strictly better off")


def check_refutation(market: HousingMarket, x: object, notion: str, cert: dict) -> None:
    """Verify a certificate that ``x`` fails ``notion`` (one of NOTIONS). Raises
    CertificateError. IR is refuted by a one-agent blocking coalition keeping its house."""
    if not isinstance(cert, dict):
        raise CertificateError("certificate must be an object")
    kind = cert.get("type")
    if notion == "pareto_optimal" and kind == "pareto_improvement":
        check_pareto_improvement(market, x, cert.get("allocation"))
        return
    if kind == "blocking_coalition" and notion in ("individually_rational", "weak_core",
                                                   "strict_core"):
        need = {"individually_rational": "weak", "weak_core": "weak",
                "strict_core": "strict"}[notion]
        if notion == "individually_rational" and len(cert.get("coalition") or []) != 1:
            raise CertificateError("IR is refuted by a one-agent coalition")
        check_blocking_coalition(market, x, need, cert.get("coalition"),
                                 cert.get("reallocation"))
        return
    raise CertificateError(f"certificate {kind!r} does not refute {notion!r}")


def check_potentials(market: HousingMarket, x: Mapping[str, str], notion: str,
                     potentials: object) -> None:
    """Verify membership potentials t (agent -> int): t_j ≥ t_i + 1 on every strict arc of
    D_x and, for the strict core, t_j ≥ t_i on every arc. Their existence proves
    membership (a blocking cycle would sum to a positive increase). O(n + arcs)."""
    if not isinstance(potentials, dict) or set(potentials) != set(market.agents) or \
            not all(isinstance(t, int) and abs(t) < 2 ** 62 for t in potentials.values()):
        raise CertificateError("potentials must map every agent to a (64-bit) integer")
    names = market.agents
    t = np.asarray([potentials[a] for a in names], dtype=np.int64)
    src, dst, strict = improvement_arcs(market, x)
    need = t[src] + strict.astype(np.int64)
    bad = np.flatnonzero((t[dst] < need) & (strict | (notion == "strict")))
    if len(bad):
        k = bad[0]
        kind = "strict arc" if strict[k] else "arc"
        raise CertificateError(f"potential drops on {kind} {names[src[k]]}->{names[dst[k]]}")


def top_choices(market: HousingMarket, agent: str, remaining_houses: set[str]) -> list[str]:
    """The agent's top tie among ``remaining_houses`` (which must hold its own house)."""
    for tie in market.order[agent].ties:
        got = [h for h in tie if h in remaining_houses]
        if got:
            return got
    return []


def check_segmentation(market: HousingMarket, cert: dict) -> None:
    """Verify a strict-core emptiness proof (Quint & Wako 2004 top-trading segmentation).

    ``cert["segments"]``: list S1..Sk of agent lists; ``cert["hall_violator"]``: T ⊆ Sk.
    With R_1 = all agents and R_{t+1} = R_t \\ S_t, each S_t must be non-empty, inside R_t,
    *closed* (every house in a member's top tie among R_t's houses is owned by S_t) and
    strongly connected in that top-choice digraph; and T's top houses number fewer than |T|.

    Soundness (induction on t): let x be in the strict core, and suppose x gives the agents
    of R_t houses of R_t. Each i in S_t has arcs of D_x to the owners of its top houses
    (they are ⪰ x(i)), so S_t lies inside one SCC of D_x; an agent of S_t without a top
    house would own a strict arc inside that SCC. So x gives each member of S_t a top house,
    owned by S_t (closedness), i.e. S_t trades within itself and R_{t+1} keeps its houses.
    At t = k this is a perfect matching of S_k to top houses, impossible by Hall's condition
    for T. O(k · (n + top arcs)).
    """
    segs, hall = cert.get("segments"), cert.get("hall_violator")
    if not isinstance(segs, list) or not segs or not isinstance(hall, list) or not hall:
        raise CertificateError("a segmentation needs non-empty 'segments' and 'hall_violator'")
    remaining = set(market.agents)
    for t, seg in enumerate(segs, 1):
        if not isinstance(seg, list) or not seg or not all(isinstance(a, str) for a in seg) \
                or len(set(seg)) != len(seg):
            raise CertificateError(f"segment {t} must be a non-empty list of distinct agents")
        if not set(seg) <= remaining:
            raise CertificateError(f"segment {t} names an agent that is not in the remaining "
                                   "market")
        houses = {market.endowment[a] for a in remaining}
        s = set(seg)
        g = nx.DiGraph()
        g.add_nodes_from(seg)
        tops = {}
        for a in seg:
            tops[a] = top_choices(market, a, houses)
            for h in tops[a]:
                b = market.owner[h]
                if b not in s:
                    raise CertificateError(f"segment {t} is not closed: {a!r}'s top house "
                                           f"{h!r} belongs to {b!r} outside it")
                g.add_edge(a, b)
        if not nx.is_strongly_connected(g):
            raise CertificateError(f"segment {t} is not strongly connected in the top-choice "
                                   "digraph")
        remaining -= s
    last = set(segs[-1])
    if not all(isinstance(a, str) for a in hall) or len(set(hall)) != len(hall) \
            or not set(hall) <= last:
        raise CertificateError("the Hall violator must be a set of agents of the last segment")
    houses = {market.endowment[a] for a in last} | {market.endowment[a] for a in remaining}
    nbrs = set().union(*(top_choices(market, a, houses) for a in hall))
    if len(nbrs) >= len(hall):
        raise CertificateError(f"Hall violator has {len(nbrs)} top houses for {len(hall)} "
                               "agents: no violation")


def check_certificate(market: HousingMarket, question: str, params: Any, verdict: str,
                      solution: Any, certificate: dict) -> None:
    """Verify a housing-market certificate; raise CertificateError naming the failing step.

    - ``exists`` with ``{"type": "core_allocation"}`` (optional ``"potentials"``):
      ``solution`` is an allocation in the question's core (digraph test recomputed;
      potentials, when given, are checked too).
    - ``none`` for ``strict_core`` with ``{"type": "top_trading_segmentation", "segments",
      "hall_violator"}``: see :func:`check_segmentation`. (The weak core is never empty.)
    - ``incorrect`` with ``{"type": "blocking_coalition", "coalition", "reallocation"}``:
      ``solution`` is an audited allocation that the coalition blocks under the question's
      notion; or with ``{"type": "not_an_allocation"}`` when ``solution`` is not one.
    """
    notion = CORE_NOTION.get(question)
    if notion is None:
        raise CertificateError(f"unknown housing-market question {question!r}")
    kind = certificate.get("type")
    if verdict == "exists" and kind == "core_allocation":
        x = as_allocation(market, solution)
        found = blocking_cycle(market, x, notion)
        if found is not None:
            raise CertificateError(f"witness is blocked ({notion}) by coalition {found[0]}")
        if "potentials" in certificate:
            check_potentials(market, x, notion, certificate["potentials"])
        return
    if verdict == "none" and question == "strict_core" and kind == "top_trading_segmentation":
        check_segmentation(market, certificate)
        return
    if verdict == "incorrect" and kind == "blocking_coalition":
        check_blocking_coalition(market, solution, notion, certificate.get("coalition"),
                                 certificate.get("reallocation"))
        return
    if verdict == "incorrect" and kind == "not_an_allocation":
        try:
            as_allocation(market, solution)
        except CertificateError:
            return
        raise CertificateError("the audited answer is a valid allocation")
    raise CertificateError(f"certificate {kind!r} does not prove {verdict!r} for {question}")
