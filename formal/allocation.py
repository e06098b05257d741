"""House allocation (one-sided matching) and rank-based welfare: model, definitions and
certificate checks.

**House allocation.** Agents have weak, possibly incomplete preferences over objects
("houses"); an object an agent does not rank is unacceptable to it. An *allocation* is a
dict agent -> object over acceptable pairs, each object given at most once; an agent absent
from it is unassigned, which is worse than any acceptable object (Abraham, Cechlárová,
Manlove & Mehlhorn (ACMM) 2004; Manlove 2013, ch. 6). Ranks are 1-based; tied objects share
a rank (the index of their tie group).

**Welfare notions** (one-sided, over the agents' ranks of their objects):

- *utilitarian*: minimise the total rank Σ_a r_a(M(a)) over the maximum-cardinality
  matchings;
- *egalitarian* (bottleneck, "minimum regret"): minimise the worst rank max_a r_a(M(a)) over
  the maximum-cardinality matchings (0 for the empty matching);
- *rank-maximal*: lexicographically maximise the signature (s_1, …, s_R), s_k = number of
  agents assigned an object of their rank k, over **all** matchings (Irving, Kavitha,
  Mehlhorn, Michail & Paluch (IKMMP) 2006). R is the largest rank in the instance.

**Two-sided welfare** (an SMTI :class:`~formal.matching.Market`, no stability constraint):
the same three notions over the mutual-acceptability graph where the ranks of BOTH partners
count — the cost of a pair (m, w) is r_m(w) + r_w(m) (utilitarian), its level is
max(r_m(w), r_w(m)) (egalitarian: the worst rank over all matched agents of both sides), and
s_k counts the agents of either side matched to their k-th tie (rank-maximal). Reading only
one side's ranks is the classic mistake.

Both are handled through one :class:`WelfareGraph`: a bipartite graph whose edges carry the
tuple of ranks that count.

**Certificates** (checked here, cheaply and exactly, in Python integers):

- ``lp_duals`` (utilitarian, rank-maximal): edge weights w(e) — ``B − cost(e)`` for the
  utilitarian notion, ``Σ_k B^(R−k)`` over the edge's ranks for the rank-maximal one — and
  dual potentials y ≥ 0 with y_l + y_r ≥ w(e) on every edge and Σ y = w(M). By LP duality
  for the bipartite matching polytope, M has maximum weight among all matchings; the bound on
  B (verified) makes that maximum cardinality then minimum total rank, or lexicographically
  maximum signature (Michail 2005). Rank-maximal certificates may state a cutoff C ≥ the
  worst rank used by M: ranks above C then share one weight class (exponent 0). This is
  exact (derived): M has no agent above C, so a matching beats M lexicographically iff it
  beats M on the lumped vector (s_1, …, s_C, Σ_{k>C} s_k). It keeps the integers to about
  C·log10(B) digits instead of R·log10(B).
- ``hall_bottleneck`` (egalitarian, MCPO): Hall/König witnesses. A set S of left vertices
  gives the vertex cover (L \\ S) ∪ N(S), so no matching is larger than |L| − |S| + |N(S)|.
  One set proves |M| is the maximum; for the egalitarian value r a second set proves, in the
  graph of edges whose level is < r, that no matching reaches |M|.
- ``pareto_optimal``: verified by the improvement-digraph test (:func:`pareto_improvement`).
- ``pareto_improvement`` / ``better_allocation``: checked directly against the definitions.

Trusted: imports no solver and nothing from ``oracles`` or ``encodings``; networkx is used
for reachability and shortest paths only.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from .errors import CertificateError, InstanceError
from .preferences import WeakOrder, parse_weak_order

QUESTIONS = ("pareto_optimal", "max_cardinality_pareto_optimal", "utilitarian", "egalitarian",
             "rank_maximal")
WELFARE = ("utilitarian", "egalitarian", "rank_maximal")
NOTIONS = ("pareto_optimal", "max_cardinality", "utilitarian", "egalitarian", "rank_maximal")

# Rank-maximal duals are integers with about R·log10(B) digits; lift Python's limit on
# int <-> str conversion (3.11+) so that they can be written to and read from JSON.
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)


# --------------------------------------------------------------------------------------
# model
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HouseAllocation:
    """A house-allocation instance.

    ``prefs``: agent -> WeakOrder over the objects it finds acceptable (best tie first).
    ``objects``: every object, in input order (objects nobody ranks included).
    """

    prefs: Mapping[str, WeakOrder]
    objects: tuple[str, ...]

    @property
    def agents(self) -> tuple[str, ...]:
        return tuple(self.prefs)

    @property
    def size(self) -> int:
        """Number of agents (used to pick engines)."""
        return len(self.prefs)

    def edges(self) -> Iterable[tuple[str, str]]:
        """Acceptable pairs (agent, object), in list order."""
        for a, o in self.prefs.items():
            for h in o.items:
                yield a, h

    def is_strict(self) -> bool:
        return all(o.is_strict() for o in self.prefs.values())

    def to_json(self) -> dict:
        return {"preferences": {a: o.to_json() for a, o in self.prefs.items()},
                "objects": list(self.objects)}


def parse_house_allocation(data: dict) -> HouseAllocation:
    """Parse ``{"preferences": {agent: [objects best first, nested list = tie]},
    "objects": [...]}`` (``objects`` optional; default: every ranked object, in order of
    first mention).

    Raises :class:`InstanceError` naming the agent and the value for: preferences that are
    not an object, a non-string agent, ``objects`` not a list of distinct strings, an
    object ranked twice by one agent, an empty tie group, a non-string object, an object
    not in ``objects``. O(total list length).
    """
    prefs = data.get("preferences")
    if not isinstance(prefs, dict):
        raise InstanceError("'preferences' must be an object mapping agents to lists",
                            value=prefs)
    raw_objects = data.get("objects")
    known = None
    if raw_objects is not None:
        if not isinstance(raw_objects, list):
            raise InstanceError("'objects' must be a list of object names", value=raw_objects)
        seen: set[str] = set()
        for h in raw_objects:
            if not isinstance(h, str):
                raise InstanceError("object name must be a string", value=h)
            if h in seen:
                raise InstanceError("object listed twice in 'objects'", value=h)
            seen.add(h)
        known = raw_objects
    parsed = {}
    for a, lst in prefs.items():
        parsed[a] = parse_weak_order(lst, agent=a, known=known)
    if known is None:
        order: dict[str, None] = {}
        for o in parsed.values():
            for h in o.items:
                order.setdefault(h, None)
        known = list(order)
    return HouseAllocation(parsed, tuple(known))


def validate_allocation(model: HouseAllocation, allocation: object) -> dict[str, str]:
    """Check that ``allocation`` is an allocation of ``model``; return it as agent -> object.

    Accepts ``{agent: object or None}`` (None = unassigned). Raises CertificateError for a
    non-dict, an unknown agent, an unacceptable object, an object given twice. O(n).
    """
    if not isinstance(allocation, dict):
        raise CertificateError(f"an allocation must be an object agent -> object, "
                               f"got {allocation!r:.60}")
    out: dict[str, str] = {}
    holder: dict[str, str] = {}
    for a, h in allocation.items():
        if a not in model.prefs:
            raise CertificateError(f"{a!r} is not an agent")
        if h is None:
            continue
        if not isinstance(h, str) or h not in model.prefs[a]:
            raise CertificateError(f"agent {a!r} is assigned {h!r}, which it does not rank")
        if h in holder:
            raise CertificateError(f"object {h!r} is assigned to both {holder[h]!r} and {a!r}")
        holder[h] = a
        out[a] = h
    return out


# --------------------------------------------------------------------------------------
# the welfare graph shared by the one- and two-sided notions
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class WelfareGraph:
    """A bipartite graph whose edges carry the ranks that count for welfare.

    ``left``/``right``: vertex names (agents/objects, or sides A/B). ``ranks``: edge
    (l, r) -> tuple of 1-based ranks — ``(r_l(r),)`` one-sided, ``(r_l(r), r_r(l))``
    two-sided. ``max_rank``: the largest rank of the instance (the signature's length).
    ``counted``: how many agents can be counted at one rank (bound for the base B).
    """

    left: tuple[str, ...]
    right: tuple[str, ...]
    ranks: Mapping[tuple[str, str], tuple[int, ...]]
    max_rank: int
    two_sided: bool
    adj: Mapping[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        adj: dict[str, list[str]] = {x: [] for x in self.left}
        for (x, y) in self.ranks:
            adj[x].append(y)
        object.__setattr__(self, "adj", {x: tuple(v) for x, v in adj.items()})

    def cost(self, e: tuple[str, str]) -> int:
        """Utilitarian cost of an edge: the sum of the ranks that count."""
        return sum(self.ranks[e])

    def level(self, e: tuple[str, str]) -> int:
        """Egalitarian level of an edge: the worst rank that counts."""
        return max(self.ranks[e])

    @property
    def max_count(self) -> int:
        """An upper bound on any signature entry: min(|L|, |R|) matched pairs, times 2 two-sided."""
        return min(len(self.left), len(self.right)) * (2 if self.two_sided else 1)

    def rank_weight(self, e: tuple[str, str], base: int, cutoff: int | None = None) -> int:
        """Σ over the edge's counted ranks k of base^(C + 1 − min(k, C + 1)), C = ``cutoff``
        (default: the largest rank R): ranks above C are lumped into one class (see
        :func:`check_welfare`). Python int, exact."""
        top = (self.max_rank if cutoff is None else cutoff) + 1
        return sum(base ** (top - min(k, top)) for k in self.ranks[e])


def welfare_graph(model: Any) -> WelfareGraph:
    """The :class:`WelfareGraph` of a HouseAllocation (agents -> objects, the agent's rank)
    or of a two-sided :class:`~formal.matching.Market` (A -> B over mutually acceptable
    pairs, both partners' ranks). O(L)."""
    if isinstance(model, HouseAllocation):
        ranks = {(a, h): (model.prefs[a].rank[h],) for a, h in model.edges()}
        r = max((len(o.ties) for o in model.prefs.values()), default=0)
        return WelfareGraph(model.agents, model.objects, ranks, r, False)
    if hasattr(model, "pa") and hasattr(model, "pb"):
        ranks = {(x, y): (model.pa[x].rank[y], model.pb[y].rank[x]) for x, y in model.edges()}
        r = max((len(o.ties) for o in list(model.pa.values()) + list(model.pb.values())),
                default=0)
        return WelfareGraph(tuple(model.a), tuple(model.b), ranks, r, True)
    raise TypeError(f"no welfare graph for {type(model).__name__}")


def validate_matching(g: WelfareGraph, matching: object) -> dict[str, str]:
    """Check a matching left -> right over edges of ``g`` (None values = unmatched)."""
    if not isinstance(matching, dict):
        raise CertificateError(f"a matching must be an object, got {matching!r:.60}")
    out, seen = {}, {}
    for x, y in matching.items():
        if y is None:
            continue
        if (x, y) not in g.ranks:
            raise CertificateError(f"pair ({x!r}, {y!r}) is not an acceptable pair")
        if y in seen:
            raise CertificateError(f"{y!r} is matched to both {seen[y]!r} and {x!r}")
        seen[y] = x
        out[x] = y
    return out


def total_rank(g: WelfareGraph, m: Mapping[str, str]) -> int:
    """Utilitarian value: the sum of the counted ranks over matched pairs (lower is better)."""
    return sum(g.cost((x, y)) for x, y in m.items())


def worst_rank(g: WelfareGraph, m: Mapping[str, str]) -> int:
    """Egalitarian value: the largest counted rank of a matched agent; 0 if nobody is matched."""
    return max((g.level((x, y)) for x, y in m.items()), default=0)


def signature(g: WelfareGraph, m: Mapping[str, str]) -> list[int]:
    """Rank-maximal value: [s_1, …, s_R], s_k = matched agents (counted sides) at rank k."""
    s = [0] * g.max_rank
    for x, y in m.items():
        for k in g.ranks[(x, y)]:
            s[k - 1] += 1
    return s


def welfare_value(g: WelfareGraph, notion: str, m: Mapping[str, str]) -> Any:
    """The value of ``m`` for a welfare notion (int, int or list of ints)."""
    return {"utilitarian": total_rank, "egalitarian": worst_rank,
            "rank_maximal": signature}[notion](g, m)


def utilitarian_base(g: WelfareGraph) -> int:
    """Smallest base B for which max Σ(B − cost) is max cardinality then min total rank:
    B = min(|L|,|R|)·C + 1 with C the largest edge cost (a matching one edge larger gains
    at least B − C > (k)·C more than any cost saving)."""
    c = max((g.cost(e) for e in g.ranks), default=0)
    return min(len(g.left), len(g.right)) * c + 1


def rank_base(g: WelfareGraph) -> int:
    """Smallest base B for which Σ_k s_k B^(R−k) orders signatures lexicographically."""
    return g.max_count + 1


def edge_weights(g: WelfareGraph, notion: str, base: int, cutoff: int | None = None
                 ) -> dict[tuple[str, str], int]:
    """The integer weights whose maximum-weight matchings are the optima of ``notion``
    (``cutoff``: rank-maximal only, see :meth:`WelfareGraph.rank_weight`)."""
    if notion == "utilitarian":
        return {e: base - g.cost(e) for e in g.ranks}
    if notion == "rank_maximal":
        top = (g.max_rank if cutoff is None else cutoff) + 1
        pw = [base ** (top - min(k, top)) for k in range(g.max_rank + 1)]
        return {e: sum(pw[k] for k in rk) for e, rk in g.ranks.items()}
    raise ValueError(f"no LP weights for {notion!r}")


# --------------------------------------------------------------------------------------
# Hall / König witnesses and maximum cardinality
# --------------------------------------------------------------------------------------

def hall_bound(g: WelfareGraph, hall_set: Iterable[str], below: int | None = None) -> int:
    """|L| − |S| + |N(S)|: the size of the vertex cover (L \\ S) ∪ N(S), an upper bound on
    every matching (König). ``below``: only edges whose level is < below count. O(L)."""
    s = set(hall_set)
    unknown = s - set(g.left)
    if unknown:
        raise CertificateError(f"Hall set names {sorted(unknown)[0]!r}, not a left vertex")
    nbrs = {y for x in s for y in g.adj[x] if below is None or g.level((x, y)) < below}
    return len(g.left) - len(s) + len(nbrs)


def hall_or_augment(g: WelfareGraph, m: Mapping[str, str], below: int | None = None
                    ) -> tuple[list[str] | None, dict[str, str] | None]:
    """For a matching ``m`` of the subgraph of edges with level < ``below`` (all edges if
    None): either (S, None) with S a Hall set proving ``m`` maximum there (S = left vertices
    reachable by alternating paths from unmatched left vertices), or (None, m') with m' one
    edge larger (an augmenting path). O(L) (alternating BFS). Source: König 1931; Berge 1957.
    """
    ok = (lambda e: True) if below is None else (lambda e: g.level(e) < below)
    mate_r = {y: x for x, y in m.items()}
    parent: dict[str, tuple[str, str | None]] = {}   # right vertex -> (left it came from)
    frontier = [x for x in g.left if x not in m]
    reached = set(frontier)
    while frontier:
        nxt = []
        for x in frontier:
            for y in g.adj[x]:
                if y in parent or not ok((x, y)) or m.get(x) == y:
                    continue
                parent[y] = (x, None)
                if y not in mate_r:             # augmenting path ends at y
                    out = dict(m)
                    while True:
                        px = parent[y][0]
                        prev = out.get(px)
                        out[px] = y
                        if px not in m or prev is None:
                            return None, out
                        y = prev
                x2 = mate_r[y]
                if x2 not in reached:
                    reached.add(x2)
                    nxt.append(x2)
        frontier = nxt
    return sorted(reached), None


def maximum_matching(g: WelfareGraph, below: int | None = None) -> dict[str, str]:
    """A maximum matching of the edges with level < ``below`` (Hopcroft–Karp, networkx).
    O(√n·L)."""
    h = nx.Graph()
    left = [("L", x) for x in g.left]
    h.add_nodes_from(left)
    h.add_nodes_from(("R", y) for y in g.right)
    h.add_edges_from((("L", x), ("R", y)) for (x, y) in g.ranks
                     if below is None or g.level((x, y)) < below)
    mm = nx.bipartite.hopcroft_karp_matching(h, top_nodes=left)
    return {u[1]: v[1] for u, v in mm.items() if u[0] == "L"}


# --------------------------------------------------------------------------------------
# LP duals for maximum-weight matching
# --------------------------------------------------------------------------------------

_Z = ("__zero__",)


def duals_or_improvement(g: WelfareGraph, weights: Mapping[tuple[str, str], int],
                         m: Mapping[str, str]) -> tuple[dict | None, dict | None]:
    """Prove ``m`` a maximum-weight matching for integer ``weights`` or improve it.

    Returns ``({"left": {l: y}, "right": {r: y}}, None)`` — integral duals y ≥ 0 with
    y_l + y_r ≥ w(l, r) on every edge, y = 0 on unmatched vertices and Σy = w(m) — or
    ``(None, m')`` with w(m') > w(m) when ``m`` is not optimal.

    Method (derived; checked against brute force in the tests): fix y_r = w(M(r), r) − y_l
    on matched objects, so the dual constraints become difference constraints over the
    left vertices plus a zero node Z: arc l → M(r) of length w(M(r), r) − w(l, r) for a
    non-matching edge (l, r) with r matched, l → Z of length −w(l, r) for r unmatched,
    l → Z of length 0 (y_l ≥ 0), Z → l of length w(l, M(l)) (y_{M(l)} ≥ 0), and Z ↔ l of
    length 0 for unmatched l. Shortest distances from Z are feasible duals; a negative cycle
    is an alternating cycle or path whose exchange increases the weight. Shortest paths by
    FIFO Bellman–Ford (:func:`_spfa`), O(n·L) worst case, exact in Python integers; the
    improving exchange is read off a negative cycle (:func:`_negative_cycle`).
    """
    mate_r = {y: x for x, y in m.items()}
    nodes = [_Z, *g.left]
    idx = {v: i for i, v in enumerate(nodes)}
    best: dict[tuple[int, int], tuple] = {}       # (u, v) -> (length, via)

    def arc(u, v, length, via):
        key = (idx[u], idx[v])
        if key not in best or best[key][0] > length:
            best[key] = (length, via)

    for x in g.left:
        if x in m:
            arc(x, _Z, 0, None)
            arc(_Z, x, weights[(x, m[x])], None)
        else:
            arc(x, _Z, 0, None)
            arc(_Z, x, 0, None)
    for (x, y), w in weights.items():
        if m.get(x) == y:
            continue
        if y in mate_r:
            x2 = mate_r[y]
            arc(x, x2, weights[(x2, y)] - w, y)
        else:
            arc(x, _Z, -w, y)
    out_arcs: list[list[tuple[int, Any]]] = [[] for _ in nodes]
    for (u, v), (length, _) in best.items():
        out_arcs[u].append((v, length))
    dist = _spfa(out_arcs, 0)
    if dist is None:
        d = nx.DiGraph()
        for (u, v), (length, via) in best.items():
            d.add_edge(nodes[u], nodes[v], weight=length, via=via)
        cycle = _negative_cycle(d)
        out = dict(m)
        for u, v in zip(cycle, cycle[1:]):
            if u == _Z:
                continue                  # v's object is freed; v moves along its own arc
            via = d[u][v]["via"]
            if via is None:
                out.pop(u, None)          # u ends unmatched
            else:
                out[u] = via              # u takes via (v's object, or a free one)
        return None, out
    yl = {x: int(dist[idx[x]]) for x in g.left}
    yr = {y: 0 for y in g.right}
    for y, x in mate_r.items():
        yr[y] = weights[(x, y)] - yl[x]
    return {"left": yl, "right": yr}, None


def _spfa(out_arcs: list, source: int) -> list | None:
    """Shortest distances from ``source`` by FIFO label correcting (Bellman–Ford–Moore),
    exact in Python integers; None when a negative cycle is reachable (some node relaxed
    |V| times). O(|V|·|E|) worst case, near-linear in practice."""
    n = len(out_arcs)
    dist: list = [None] * n
    dist[source] = 0
    count = [0] * n
    inq = [False] * n
    from collections import deque
    q = deque([source])
    inq[source] = True
    while q:
        u = q.popleft()
        inq[u] = False
        du = dist[u]
        for v, length in out_arcs[u]:
            nd = du + length
            dv = dist[v]
            if dv is None or nd < dv:
                dist[v] = nd
                if not inq[v]:
                    count[v] += 1
                    if count[v] > n:
                        return None
                    inq[v] = True
                    q.append(v)
    return dist


def _negative_cycle(d: nx.DiGraph) -> list:
    """A negative cycle of ``d`` as a closed node list [v0, …, v0] (Bellman–Ford with a
    virtual source, |V| passes, then a walk back along predecessors; O(|V|·|E|)).
    Used instead of ``networkx.find_negative_cycle``, which can fail to extract a cycle it
    detected (networkx 3.x, "Negative cycle is detected but not found")."""
    arcs = [(u, v, a["weight"]) for u, v, a in d.edges(data=True)]
    dist = {v: 0 for v in d}
    pred: dict = {}
    last = None
    for _ in range(len(dist)):
        last = None
        for u, v, w in arcs:
            if dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
                pred[v] = u
                last = v
        if last is None:
            raise ValueError("no negative cycle")
    x = last
    for _ in range(len(dist)):
        x = pred[x]
    cycle = [x]
    y = pred[x]
    while y != x:
        cycle.append(y)
        y = pred[y]
    cycle.append(x)
    cycle.reverse()
    return cycle


def check_duals(g: WelfareGraph, weights: Mapping[tuple[str, str], int], m: Mapping[str, str],
                duals: object) -> None:
    """Verify LP duals: integers y ≥ 0 on every vertex, y_l + y_r ≥ w(e) on every edge, and
    Σ y = w(m). Raises CertificateError naming the first failure. O(L)."""
    if not isinstance(duals, dict) or not isinstance(duals.get("left"), dict) \
            or not isinstance(duals.get("right"), dict):
        raise CertificateError("duals must be {'left': {...}, 'right': {...}}")
    yl, yr = duals["left"], duals["right"]
    for side, y, names in (("left", yl, g.left), ("right", yr, g.right)):
        for v in names:
            val = y.get(v, 0)
            if not isinstance(val, int) or isinstance(val, bool) or val < 0:
                raise CertificateError(f"dual of {side} vertex {v!r} is not an integer >= 0: "
                                       f"{val!r:.40}")
        extra = set(y) - set(names)
        if extra:
            raise CertificateError(f"dual given for unknown {side} vertex {sorted(extra)[0]!r}")
    for (x, y), w in weights.items():
        if yl.get(x, 0) + yr.get(y, 0) < w:
            raise CertificateError(f"dual constraint of edge ({x}, {y}) is violated")
    primal = sum(weights[(x, y)] for x, y in m.items())
    dual = sum(yl.values()) + sum(yr.values())
    if primal != dual:
        raise CertificateError(f"primal value {primal} differs from dual value {dual}")


# --------------------------------------------------------------------------------------
# Pareto optimality
# --------------------------------------------------------------------------------------

_SINK = ("__sink__",)


def improvement_digraph(model: HouseAllocation, m: Mapping[str, str]) -> nx.DiGraph:
    """The improvement digraph of ALGORITHMS.md §3 (derived formulation; Manlove 2013 §6.2).

    Nodes: agents and a sink F. Arc a → b (b matched, b ≠ a) when M(b) ⪰_a M(a), i.e. a
    could take b's object; arc a → F when an unassigned object ⪰_a M(a) exists (attribute
    ``obj``: the best one). An arc is ``strict`` when a would be strictly better off; every
    arc out of an unassigned agent is strict. O(L).
    """
    holder = {h: a for a, h in m.items()}
    d = nx.DiGraph()
    d.add_node(_SINK)
    for a, o in model.prefs.items():
        d.add_node(a)
        cur = m.get(a)
        best_free = None
        for h in o.items:
            if h == cur or not o.weakly_prefers(h, cur):
                continue
            if h in holder:
                d.add_edge(a, holder[h], strict=o.prefers(h, cur), obj=h)
            elif best_free is None or o.rank[h] < o.rank[best_free]:
                best_free = h
        if best_free is not None:
            d.add_edge(a, _SINK, strict=o.prefers(best_free, cur), obj=best_free)
    return d


def pareto_improvement(model: HouseAllocation, allocation: Mapping[str, str]) -> dict | None:
    """A Pareto improvement of ``allocation``, or None when it is Pareto optimal.

    M is Pareto optimal (with ties: no allocation makes some agent strictly better off and
    nobody worse off) iff for no strict arc (u, v) of :func:`improvement_digraph`, v = F,
    v reaches F, or v reaches u (derived from Manlove 2013 §6.2 / Sng 2008: augmenting-path,
    alternating-path and cyclic coalitions; checked against brute force in the tests).
    The improvement moves the agents along that path or cycle. O(L) after the digraph.
    """
    m = validate_allocation(model, dict(allocation))
    d = improvement_digraph(model, m)
    to_sink = nx.ancestors(d, _SINK) | {_SINK}
    comp = {}
    for i, c in enumerate(nx.strongly_connected_components(d)):
        for v in c:
            comp[v] = i
    for u, v, attr in d.edges(data=True):
        if not attr["strict"]:
            continue
        if comp[u] == comp[v] and v != _SINK:
            path = [u] + nx.shortest_path(d, v, u)          # closed walk u → v → … → u
        elif v in to_sink:
            path = [u] + (nx.shortest_path(d, v, _SINK) if v != _SINK else [_SINK])
        else:
            continue
        out = dict(m)
        for x, y in zip(path, path[1:]):
            if x == _SINK:
                break
            out[x] = d[x][y]["obj"]
        check_pareto_improvement(model, m, out)
        return out
    return None


def check_pareto_improvement(model: HouseAllocation, old: Mapping[str, str], new: object) -> None:
    """Verify that ``new`` is an allocation in which every agent is weakly better off than in
    ``old`` and at least one strictly. Raises CertificateError. O(n)."""
    new = validate_allocation(model, new)
    strict = False
    for a, o in model.prefs.items():
        if not o.weakly_prefers(new.get(a), old.get(a)) and new.get(a) != old.get(a):
            raise CertificateError(f"agent {a!r} is worse off: {new.get(a)!r} instead of "
                                   f"{old.get(a)!r}")
        if new.get(a) != old.get(a) and o.prefers(new.get(a), old.get(a)):
            strict = True
    if not strict:
        raise CertificateError("no agent is strictly better off")


def _sd_strict(model: HouseAllocation, order: list) -> dict[str, str]:
    """Serial dictatorship with strict lists: each agent in turn takes its best free object."""
    taken, out = set(), {}
    for a in order:
        for h in model.prefs[a].items:
            if h not in taken:
                taken.add(h)
                out[a] = h
                break
    return out


# --------------------------------------------------------------------------------------
# certificate checks
# --------------------------------------------------------------------------------------

def _check_po(model: HouseAllocation, m: dict, certificate: dict) -> None:
    imp = pareto_improvement(model, m)
    if imp is not None:
        raise CertificateError(f"allocation is not Pareto optimal: improvement {imp}")
    order = certificate.get("order")
    if order is not None and model.is_strict():
        if not isinstance(order, list) or sorted(order) != sorted(model.agents):
            raise CertificateError("serial-dictatorship order is not a permutation of the agents")
        if _sd_strict(model, order) != m:
            raise CertificateError("serial dictatorship along the given order does not give "
                                   "the allocation")


def _check_max_card(g: WelfareGraph, m: dict, hall_set: object) -> None:
    if not isinstance(hall_set, list):
        raise CertificateError("missing Hall set for maximum cardinality")
    b = hall_bound(g, hall_set)
    if b != len(m):
        raise CertificateError(f"Hall set bounds matchings by {b}, not by |M| = {len(m)}")


def check_welfare(g: WelfareGraph, question: str, verdict: str, m: dict, certificate: dict
                  ) -> None:
    """Verify a welfare optimum of ``g`` (one- or two-sided); see the module docstring."""
    if verdict != "optimal":
        raise CertificateError(f"welfare questions have verdict 'optimal', not {verdict!r}")
    kind = certificate.get("type")
    value = welfare_value(g, question, m)
    if certificate.get("value") != value:
        raise CertificateError(f"certificate value {certificate.get('value')!r} differs from "
                               f"the solution's {value!r}")
    if question in ("utilitarian", "rank_maximal") and kind == "lp_duals":
        base = certificate.get("base")
        need = utilitarian_base(g) if question == "utilitarian" else rank_base(g)
        if not isinstance(base, int) or base < need:
            raise CertificateError(f"base B = {base!r} is below the required {need}")
        cutoff = None
        if question == "rank_maximal":
            cutoff = certificate.get("cutoff", g.max_rank)
            if not isinstance(cutoff, int) or not worst_rank(g, m) <= cutoff <= g.max_rank:
                raise CertificateError(f"cutoff {cutoff!r} must lie between the solution's "
                                       f"worst rank and the largest rank")
        check_duals(g, edge_weights(g, question, base, cutoff), m, certificate.get("duals"))
        return
    if question == "egalitarian" and kind == "hall_bottleneck":
        _check_max_card(g, m, certificate.get("hall_full"))
        if value > 1 and m:
            below = certificate.get("hall_below")
            if not isinstance(below, list):
                raise CertificateError("missing Hall set below the bottleneck")
            b = hall_bound(g, below, below=value)
            if b >= len(m):
                raise CertificateError(f"Hall set below level {value} bounds matchings by "
                                       f"{b} >= |M| = {len(m)}")
        return
    raise CertificateError(f"certificate {kind!r} does not prove {question}")


def check_certificate(model: HouseAllocation, question: str, params, verdict: str, solution,
                      certificate: dict) -> None:
    """Verify a house-allocation certificate; raise CertificateError naming the failing step.

    - ``pareto_optimal``, ``exists``, ``{"type": "pareto_optimal", "order"?}``: the
      allocation passes the improvement-digraph test (and, for strict lists, serial
      dictatorship along ``order`` gives it).
    - ``max_cardinality_pareto_optimal``, ``exists``, ``{"type": "mcpo", "hall_full": S}``:
      Pareto optimal and |M| = |L| − |S| + |N(S)| (maximum cardinality).
    - ``utilitarian`` / ``rank_maximal``, ``optimal``, ``lp_duals``; ``egalitarian``,
      ``optimal``, ``hall_bottleneck``: see :func:`check_welfare`.
    - any question, ``{"type": "pareto_improvement", "allocation": M, "improvement": M'}``
      (verdict ``false``): M' Pareto-dominates M.
    """
    kind = certificate.get("type")
    if kind == "pareto_improvement":
        old = validate_allocation(model, certificate.get("allocation"))
        check_pareto_improvement(model, old, certificate.get("improvement"))
        return
    m = validate_allocation(model, solution)
    if question == "pareto_optimal":
        if verdict != "exists" or kind != "pareto_optimal":
            raise CertificateError(f"certificate {kind!r} does not prove {verdict!r}")
        _check_po(model, m, certificate)
        return
    if question == "max_cardinality_pareto_optimal":
        if verdict != "exists" or kind != "mcpo":
            raise CertificateError(f"certificate {kind!r} does not prove {verdict!r}")
        _check_po(model, m, certificate)
        _check_max_card(welfare_graph(model), m, certificate.get("hall_full"))
        return
    if question in WELFARE:
        check_welfare(welfare_graph(model), question, verdict, m, certificate)
        return
    raise CertificateError(f"unknown house-allocation question {question!r}")


def check_two_sided_welfare(market: Any, question: str, params, verdict: str, solution,
                            certificate: dict) -> None:
    """Verify a two-sided welfare optimum of an SMTI market (both sides' ranks count; see the
    module docstring). ``solution``: matching A -> B. Raises CertificateError."""
    g = welfare_graph(market)
    if question not in WELFARE:
        raise CertificateError(f"unknown two-sided welfare question {question!r}")
    check_welfare(g, question, verdict, validate_matching(g, solution), certificate)


# --------------------------------------------------------------------------------------
# certificates built here (shared by oracles and classify; verified by the checks above)
# --------------------------------------------------------------------------------------

def welfare_certificate(g: WelfareGraph, notion: str, m: Mapping[str, str]
                        ) -> tuple[dict | None, dict | None]:
    """The optimality certificate of ``m`` for ``notion``, or a strictly better matching.

    Returns (certificate, None) or (None, better). Utilitarian / rank-maximal: LP duals
    via :func:`duals_or_improvement`; egalitarian: Hall sets via :func:`hall_or_augment`
    and a maximum matching of the subgraph below the bottleneck.
    """
    m = dict(m)
    if notion in ("utilitarian", "rank_maximal"):
        base = utilitarian_base(g) if notion == "utilitarian" else rank_base(g)
        cutoff = worst_rank(g, m) if notion == "rank_maximal" else None
        duals, better = duals_or_improvement(g, edge_weights(g, notion, base, cutoff), m)
        if duals is None:
            return None, better
        cert = {"type": "lp_duals", "value": welfare_value(g, notion, m), "base": base,
                "duals": duals}
        if cutoff is not None:
            cert["cutoff"] = cutoff
        return cert, None
    if notion == "egalitarian":
        full, bigger = hall_or_augment(g, m)
        if full is None:
            return None, bigger
        r = worst_rank(g, m)
        cert = {"type": "hall_bottleneck", "value": r, "size": len(m), "hall_full": full}
        if r > 1 and m:
            low = maximum_matching(g, below=r)
            if len(low) >= len(m):
                return None, low
            s, _ = hall_or_augment(g, low, below=r)
            cert["hall_below"] = s
        return cert, None
    raise ValueError(f"unknown welfare notion {notion!r}")


def classify(model: Any, allocation: Mapping[str, str]) -> dict[str, dict]:
    """Concept membership of one candidate allocation (HouseAllocation) or matching (Market).

    Returns notion -> ``{"holds": bool, "certificate": dict}`` for ``pareto_optimal`` (one-
    sided only), ``max_cardinality``, ``utilitarian``, ``egalitarian``, ``rank_maximal``.
    A holding notion carries its proof (as in the labels); a failing one carries a refuting
    certificate: a Pareto improvement, an augmenting matching (``larger_matching``) or a
    ``better_allocation`` with its value. Every certificate is verified before returning.
    O(n·L) (Bellman–Ford) per welfare notion. Raises CertificateError for an invalid
    candidate.
    """
    g = welfare_graph(model)
    m = validate_allocation(model, dict(allocation)) if isinstance(model, HouseAllocation) \
        else validate_matching(g, dict(allocation))
    out: dict[str, dict] = {}
    if isinstance(model, HouseAllocation):
        imp = pareto_improvement(model, m)
        out["pareto_optimal"] = (
            {"holds": True, "certificate": {"type": "pareto_optimal"}} if imp is None else
            {"holds": False, "certificate": {"type": "pareto_improvement", "allocation": m,
                                             "improvement": imp}})
    s, bigger = hall_or_augment(g, m)
    out["max_cardinality"] = (
        {"holds": True, "certificate": {"type": "hall_set", "size": len(m), "hall_full": s}}
        if bigger is None else
        {"holds": False, "certificate": {"type": "larger_matching", "allocation": bigger,
                                         "size": len(bigger)}})
    for notion in WELFARE:
        cert, better = welfare_certificate(g, notion, m)
        if cert is not None:
            check_welfare(g, notion, "optimal", m, cert)
            out[notion] = {"holds": True, "certificate": cert}
        else:
            check_better(g, notion, m, better)
            out[notion] = {"holds": False, "certificate": {
                "type": "better_allocation", "allocation": better,
                "value": welfare_value(g, notion, better)}}
    return out


def better(g: WelfareGraph, notion: str, new: Mapping[str, str], old: Mapping[str, str]) -> bool:
    """Is ``new`` strictly better than ``old`` for ``notion``? Utilitarian and egalitarian
    compare (cardinality, then value); rank-maximal compares signatures lexicographically."""
    if notion == "rank_maximal":
        return signature(g, new) > signature(g, old)
    if len(new) != len(old):
        return len(new) > len(old)
    return welfare_value(g, notion, new) < welfare_value(g, notion, old)


def check_better(g: WelfareGraph, notion: str, old: Mapping[str, str], new: object) -> None:
    """Verify a ``better_allocation`` refutation: ``new`` is a matching strictly better than
    ``old`` for ``notion`` (see :func:`better`). Raises CertificateError."""
    new = validate_matching(g, new)
    if not better(g, notion, new, old):
        raise CertificateError(f"the proposed matching is not better for {notion}")


def classify_candidates(model: Any, candidates: Iterable[Mapping[str, str]]) -> list[dict]:
    """:func:`classify` for each candidate of a menu (issue 3, item 7), in order; a candidate
    that is not a valid allocation gets ``{"invalid": message}``."""
    out = []
    for c in candidates:
        try:
            out.append(classify(model, c))
        except CertificateError as e:
            out.append({"invalid": str(e)})
    return out
