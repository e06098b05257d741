"""Combinatorial oracles for single-agent preference queries and pairwise counting.

Every query is answered through the transitive closure of the agent's datum (networkx
topological order; reachability sets as Python int bitsets) and, for the responsive-set
comparison, a bipartite matching (networkx Hopcroft–Karp) with Hall's condition. Each
returns an :class:`~prefcert.formal.outcome.Outcome` whose certificate the checker in
:mod:`formal.checker.preference` verifies. Sources: Konczak & Lang 2005 (necessary/possible
pairwise relations); Aziz, Gaspers, Mackenzie & Walsh 2015 (RS via Hall's condition).
"""
from __future__ import annotations

import heapq
import time
from functools import cached_property
from itertools import accumulate
from typing import Any

import networkx as nx

from ..formal.outcome import UNKNOWN, Outcome
from ..formal.preference import Agent, PreferenceModel

RS_SEARCH_LIMIT = 200_000


class Closure:
    """Transitive closure of one agent's datum.

    ``down[x]`` / ``up[x]``: bitsets (int, bit i = items[i]) of items strictly below /
    above x. ``graph``: the base relation as an nx.DiGraph over all items.
    Complexity O(m + E) bit operations on m-bit ints. (Topological order: Kahn 1962.)
    """

    def __init__(self, model: PreferenceModel, agent: Agent):
        self.model, self.agent = model, agent
        self.items = model.items
        self.idx = model.ints.item_index
        if agent.kind == "order":
            self.down, self.up = _order_closure(model, agent)
            return
        g, topo = self.graph, self.topo
        down = {x: 0 for x in model.items}
        for x in reversed(topo):
            for y in g.successors(x):
                down[x] |= down[y] | (1 << self.idx[y])
        up = {x: 0 for x in model.items}
        for x in topo:
            for y in g.predecessors(x):
                up[x] |= up[y] | (1 << self.idx[y])
        self.down, self.up = down, up

    @cached_property
    def blocks(self) -> list | None:
        """The ties of a weak order over all items (complete, or truncated: the unlisted
        items a last tie), best first; None for any other datum. Its completions go tie by
        tie, so the lexicographic sort by a key is each tie sorted by the key in turn, and
        x is above exactly the items of the later ties. Built on first use."""
        agent = self.agent
        if agent.kind != "order" or not (agent.truncated or len(agent.order) == len(self.items)):
            return None
        blocks = list(agent.order.ties)
        if agent.truncated:
            blocks.append(tuple(x for x in self.items if x not in agent.order.rank))
        return blocks

    @cached_property
    def graph(self) -> nx.DiGraph:
        """The base relation as an nx.DiGraph over all items (built on first use)."""
        g = nx.DiGraph()
        g.add_nodes_from(self.items)
        g.add_edges_from((a, b) for a, bs in self.agent.succ.items() for b in bs)
        return g

    @cached_property
    def topo(self) -> list:
        """networkx's topological order of :attr:`graph` (built on first use)."""
        return list(nx.topological_sort(self.graph))

    def above(self, a: str, b: str) -> bool:
        """a ≻ b in every completion."""
        return bool(self.down[a] >> self.idx[b] & 1)

    def members(self, bits: int) -> list:
        return [x for i, x in enumerate(self.items) if bits >> i & 1]

    def lo(self, x: str) -> int:
        """Best (smallest) 1-based position of x over completions."""
        return self.up[x].bit_count() + 1

    def hi(self, x: str) -> int:
        return len(self.items) - self.down[x].bit_count()

    def chain(self, a: str, b: str) -> list:
        """A shortest path a ≻ … ≻ b of base relations (requires a ≻ b)."""
        if self.agent.kind == "order":
            return [a, b]
        return nx.shortest_path(self.graph, a, b)

    def chains_from(self, x: str, targets) -> list:
        """Chains x ≻ … ≻ y for every y in ``targets`` (one BFS)."""
        if self.agent.kind == "order":
            return [[x, y] for y in targets]
        paths = nx.single_source_shortest_path(self.graph, x)
        return [paths[y] for y in targets]

    def chains_to(self, x: str, sources) -> list:
        if self.agent.kind == "order":
            return [[y, x] for y in sources]
        paths = nx.single_source_shortest_path(self.graph.reverse(copy=False), x)
        return [paths[y][::-1] for y in sources]

    def extension(self, blocks: list) -> list:
        """Concatenate topological sorts of the given item blocks (a partition of the items
        in which no base relation goes from a later block to an earlier one)."""
        out = []
        key = self.idx.__getitem__
        for blk in blocks:
            if self.agent.kind == "order":
                out.extend(self._lex_sort(blk, key))
            else:
                sub = self.graph.subgraph(blk)
                out.extend(nx.lexicographical_topological_sort(sub, key=key))
        assert len(out) == len(self.items)
        return out

    def _lex_sort(self, nodes: list, key) -> list:
        """The lexicographic topological sort of the base relation restricted to
        ``nodes`` (its arcs between two of them): at each step the available node of
        least ``key`` (keys distinct), so the one order networkx's
        ``lexicographical_topological_sort`` of that subgraph gives, without building a
        graph. For weak orders, whose base relation is short (each tie to the next).
        O(E + n log n)."""
        succ = self.agent.succ
        inside = set(nodes)
        indeg = dict.fromkeys(nodes, 0)
        for x in nodes:
            for y in succ[x]:
                if y in inside:
                    indeg[y] += 1
        heap = [(key(x), x) for x in nodes if indeg[x] == 0]
        heapq.heapify(heap)
        out = []
        while heap:
            _, x = heapq.heappop(heap)
            out.append(x)
            for y in succ[x]:
                if y in inside:
                    indeg[y] -= 1
                    if indeg[y] == 0:
                        heapq.heappush(heap, (key(y), y))
        return out

    def keyed(self, first: list, last: list) -> list:
        """The lexicographic topological sort with ``first`` items preferred and ``last``
        items avoided (an incomparable first item precedes an incomparable last item)."""
        pr = {x: i for i, x in enumerate(first)}
        base = len(first)
        end = {x: i for i, x in enumerate(last)}
        n = len(self.items)

        def key(x):
            if x in pr:
                return pr[x]
            if x in end:
                return base + n + end[x]
            return base + self.idx[x]
        if self.agent.kind == "order":
            return self._lex_sort(list(self.items), key)
        return list(nx.lexicographical_topological_sort(self.graph, key=key))

    def complete(self, key: list, pos: dict | None = None) -> list:
        """The completion of a profile-spec key: the lexicographic topological sort by the
        key's order (Kahn 1962). Engine twin of the checker's ``kahn`` (networkx here;
        for a weak order over all items, its ties sorted by the key one after the other),
        so a bug cannot make the engine's witnesses and the checker agree. O(E + m log m)."""
        if pos is None:         # item -> index in key (callers completing many voters pass it)
            pos = {x: i for i, x in enumerate(key)}
        if self.blocks is not None:     # ties in turn (see __init__): no graph search
            out = []
            for blk in self.blocks:
                if len(blk) == 1:
                    out.append(blk[0])
                else:
                    out.extend(sorted(blk, key=pos.__getitem__))
            return out
        if self.agent.kind == "order":
            return self._lex_sort(list(self.items), pos.__getitem__)
        return list(nx.lexicographical_topological_sort(self.graph, key=pos.__getitem__))

    def at_position(self, x: str, p: int) -> list:
        """A completion with x at 1-based position p (lo(x) ≤ p ≤ hi(x)): an up-set of size
        p − 1 containing up(x) and avoiding x and down(x), grown greedily."""
        forbidden = self.down[x] | (1 << self.idx[x])
        placed = self.up[x]
        order = [y for y in self.topo if placed >> self.idx[y] & 1]
        for y in self.topo:
            if placed.bit_count() >= p - 1:
                break
            b = 1 << self.idx[y]
            if placed & b or forbidden & b:
                continue
            if self.up[y] & ~placed == 0:
                placed |= b
                order.append(y)
        assert placed.bit_count() == p - 1
        rest = [y for y in self.topo if not placed >> self.idx[y] & 1 and y != x]
        return order + [x] + rest


def _index(model: PreferenceModel) -> dict:
    """item -> its number in the model's integer form (the bit of the closure bitsets)."""
    return model.ints.item_index


def _order_closure(model: PreferenceModel, agent: Agent) -> tuple[dict, dict]:
    """(down, up) bitsets of a weak order's closure, from the rank array of the integer
    form: an item of tie r is above every item of the later ties (under ``truncated``
    the unlisted items rank last, below every listed one; under ``unknown`` they rank 0,
    related to none). The same sets as the closure of the base relation's graph, without
    building it. O(m) big-int operations, no tuple per tie."""
    ranks = model.ints.rank[agent.i]
    assert ranks is not None
    top = max(ranks)
    by_rank = [0] * (top + 2)
    for i, r in enumerate(ranks):
        by_rank[r] |= 1 << i
    below = [0] * (top + 2)
    acc = 0
    for r in range(top, 0, -1):
        below[r] = acc
        acc |= by_rank[r]
    above = [0] * (top + 2)
    acc = 0
    for r in range(1, top + 1):
        above[r] = acc
        acc |= by_rank[r]
    items = model.items
    return (dict(zip(items, map(below.__getitem__, ranks))),
            dict(zip(items, map(above.__getitem__, ranks))))


def closures(model: PreferenceModel) -> list:
    """The closure of every agent, in model order. Cached."""
    key = ("oracle-closures",)
    if key not in model._cache:
        model._cache[key] = [closure(model, ag) for ag in model.agents]
    return model._cache[key]


def closure(model: PreferenceModel, agent: Agent) -> Closure:
    key = ("oracle-closure", agent.name)
    if key not in model._cache:
        model._cache[key] = Closure(model, agent)
    return model._cache[key]


def _undetermined(o1: list, o2: list, solution: Any = None, **extra) -> Outcome:
    return Outcome("undetermined", solution, {"type": "completions", "orders": [o1, o2], **extra})


def compare(model: PreferenceModel, params: dict) -> Outcome:
    """Is a ≻ b? true/false with a chain in the transitive closure, else two completions."""
    C = closure(model, model.agent(params["agent"]))
    a, b = params["items"]
    if C.above(a, b):
        return Outcome("true", None, {"type": "chain", "chain": C.chain(a, b)})
    if C.above(b, a):
        return Outcome("false", None, {"type": "chain", "chain": C.chain(b, a)})
    return _undetermined(C.keyed([a], [b]), C.keyed([b], [a]))


def position(model: PreferenceModel, params: dict) -> Outcome:
    """Position of an item: interval [|up|+1, m − |down|] (all values attained)."""
    C = closure(model, model.agent(params["agent"]))
    x, p = params["item"], params.get("position")
    lo, hi = C.lo(x), C.hi(x)
    up, down = C.members(C.up[x]), C.members(C.down[x])
    if p is not None:
        if lo == hi == p:
            return Outcome("true", None, {"type": "chains", "chains": C.chains_to(x, up) +
                                          C.chains_from(x, down)})
        if p < lo:
            return Outcome("false", None, {"type": "chains", "chains": C.chains_to(x, up)})
        if p > hi:
            return Outcome("false", None, {"type": "chains", "chains": C.chains_from(x, down)})
        other = lo if p != lo else hi
        return _undetermined(C.at_position(x, p), C.at_position(x, other))
    chains = C.chains_to(x, up) + C.chains_from(x, down)
    if lo == hi:
        return Outcome("determined", {"value": lo}, {"type": "chains", "chains": chains})
    return _undetermined(C.at_position(x, lo), C.at_position(x, hi), {"min": lo, "max": hi},
                         chains=chains)


def kth(model: PreferenceModel, params: dict) -> Outcome:
    """Item at position k: determined iff a single item can be there (then it is comparable
    with every item, k − 1 above it)."""
    C = closure(model, model.agent(params["agent"]))
    k = params["k"]
    cands = [x for x in C.items if C.lo(x) <= k <= C.hi(x)]
    if len(cands) == 1:
        x = cands[0]
        chains = C.chains_to(x, C.members(C.up[x])) + C.chains_from(x, C.members(C.down[x]))
        return Outcome("determined", {"value": x}, {"type": "chains", "chains": chains})
    return _undetermined(C.at_position(cands[0], k), C.at_position(cands[1], k))


def rank_set(model: PreferenceModel, params: dict) -> Outcome:
    """Induced partial order on a set of items; determined iff it is total."""
    C = closure(model, model.agent(params["agent"]))
    S = sorted(dict.fromkeys(params["items"]), key=C.idx.__getitem__)
    pairs = [[x, y] for x in S for y in S if x != y and C.above(x, y)]
    if len(pairs) == len(S) * (len(S) - 1) // 2:
        seq = sorted(S, key=lambda x: -sum(C.above(x, y) for y in S))
        return Outcome("determined", {"value": seq},
                       {"type": "chains", "chains": [C.chain(x, y) for x, y in zip(seq, seq[1:])]})
    x, y = next((x, y) for x in S for y in S if x != y and not C.above(x, y)
                and not C.above(y, x))
    return _undetermined(C.keyed([x], [y]), C.keyed([y], [x]), {"pairs": pairs},
                         chains=[C.chain(a, b) for a, b in pairs])


def topk(model: PreferenceModel, params: dict) -> Outcome:
    """Is the item among the top k (ties straddling k give ``undetermined``)?"""
    C = closure(model, model.agent(params["agent"]))
    x, k, m = params["item"], params["k"], len(model.items)
    if C.hi(x) <= k:
        return Outcome("true", None, {"type": "chains",
                                      "chains": C.chains_from(x, C.members(C.down[x])[:m - k])})
    if C.lo(x) > k:
        return Outcome("false", None, {"type": "chains",
                                       "chains": C.chains_to(x, C.members(C.up[x])[:k])})
    return _undetermined(C.at_position(x, C.lo(x)), C.at_position(x, C.hi(x)))


def topk_list(model: PreferenceModel, params: dict) -> Outcome:
    """The top-k set: determined iff exactly k items are necessarily in it."""
    C = closure(model, model.agent(params["agent"]))
    k, m = params["k"], len(model.items)
    nec = sorted(x for x in C.items if C.hi(x) <= k)
    if len(nec) == k:
        chains = [ch for x in nec for ch in C.chains_from(x, C.members(C.down[x])[:m - k])]
        return Outcome("determined", {"value": nec}, {"type": "chains", "chains": chains})
    pos = sorted(x for x in C.items if C.lo(x) <= k)
    y = next(x for x in pos if x not in nec)
    return _undetermined(C.at_position(y, C.lo(y)), C.at_position(y, C.hi(y)),
                         {"necessary": nec, "possible": pos})


def rs(model: PreferenceModel, params: dict, *, limit: int = RS_SEARCH_LIMIT,
       time_limit: float | None = None) -> Outcome:
    """Is ``bundles[0] ⪰_RS bundles[1]`` in every / some / no completion?

    true: an injection f from the worse bundle into the better one with f(y) ⪰_P y
    (Hopcroft–Karp matching; Hall's condition). Otherwise a failing completion puts the
    up-closure of a Hall violator first. false: |A| < |B|, or a search over the choices
    of worse-bundle items (available non-negative items are always taken first — an
    exchange argument, derived) finds no completion; ``unknown`` past ``limit`` states
    or ``time_limit`` seconds.
    """
    ag = model.agent(params["agent"])
    C = closure(model, ag)
    A, B = list(dict.fromkeys(params["bundles"][0])), list(dict.fromkeys(params["bundles"][1]))
    if model.conventions.get("rs") == "equal_size" and len(A) != len(B):
        return Outcome("false", None, {"type": "size", "reason": "sizes differ"})
    # Integer vertices (B's items 0.., A's after): networkx's Hopcroft–Karp iterates
    # vertex sets, and small ints iterate in the same order under every hash seed.
    g = nx.Graph()
    left = list(range(len(B)))
    g.add_nodes_from(range(len(B) + len(A)))
    for i, y in enumerate(B):
        for j, x in enumerate(A):
            if x == y or C.above(x, y):
                g.add_edge(i, len(B) + j)
    M = nx.bipartite.hopcroft_karp_matching(g, top_nodes=left)
    if all(v in M for v in left):
        f = {y: A[M[i] - len(B)] for i, y in enumerate(B)}
        return Outcome("true", None, {"type": "injection", "map": f,
                                      "chains": {y: C.chain(x, y) for y, x in f.items() if x != y}})
    # Hall violator: B-vertices reachable by alternating paths from an unmatched one.
    start = next(v for v in left if v not in M)
    S, frontier, seen_a = {start}, [start], set()
    while frontier:
        v = frontier.pop()
        for u in g.neighbors(v):
            if u not in seen_a:
                seen_a.add(u)
                w = M.get(u)
                if w is not None and w not in S:
                    S.add(w)
                    frontier.append(w)
    U = 0
    for i in S:
        y = B[i]
        U |= C.up[y] | (1 << C.idx[y])
    first = C.members(U)
    fail = C.extension([first, [x for x in C.items if x not in set(first)]])
    assert not rs_holds(fail, A, B)
    if len(set(A) - set(B)) < len(set(B) - set(A)):
        return Outcome("false", None, {"type": "size", "reason": "size"})
    good = rs_search(C, A, B, limit=limit,
                     deadline=None if time_limit is None else time.perf_counter() + time_limit)
    if good is None:
        return Outcome(UNKNOWN, None, None, {"reason": "RS search limit"})
    if good is False:
        return Outcome("false", None, {"type": "rs_search"})
    return _undetermined(good, fail)


def rs_holds(order: list, A: list, B: list) -> bool:
    """A ⪰_RS B in the linear order: no prefix holds more of B than of A. Engine twin of
    the checker's definition (prefix sums here), so a bug cannot make both agree."""
    return min(accumulate((x in A) - (x in B) for x in order), default=0) >= 0


def rs_search(C: Closure, A: list, B: list, *, limit: int, deadline: float | None = None
              ) -> list | bool | None:
    """A completion in which A ⪰_RS B (prefix condition), False if none, None past
    ``limit`` states or the ``deadline`` (``time.perf_counter``)."""
    w = {x: (x in A) - (x in B) for x in C.items}
    upb = {x: C.up[x] for x in C.items}
    full = (1 << len(C.items)) - 1
    dead: set = set()

    def close(placed: int, order: list, bal: int):
        changed = True
        while changed:
            changed = False
            for x in C.topo:
                b = 1 << C.idx[x]
                if not placed & b and w[x] >= 0 and upb[x] & ~placed == 0:
                    placed |= b
                    order.append(x)
                    bal += w[x]
                    changed = True
        return placed, bal

    def dfs(placed: int, order: list, bal: int):
        placed, bal = close(placed, order, bal)
        if placed == full:
            return order
        if placed in dead or bal <= 0:
            return False
        if len(dead) > limit or (deadline is not None and len(dead) % 64 == 0
                                 and time.perf_counter() > deadline):
            return None
        for x in C.topo:
            b = 1 << C.idx[x]
            if not placed & b and w[x] < 0 and upb[x] & ~placed == 0:
                r = dfs(placed | b, order + [x], bal - 1)
                if r is None or r:
                    return r
        dead.add(placed)
        return False
    return dfs(0, [], 0)


def count(model: PreferenceModel, params: dict) -> Outcome:
    """Voters ranking a ≻ b: exact if determined, else min and max over completions, with
    the two extremal completions (one key each: a first / b last, and the reverse)."""
    a, b = params["items"]
    lo = hi = 0
    ints = model.ints
    ia, ib = ints.item_index[a], ints.item_index[b]
    if all(r is not None for r in ints.rank):
        # weak orders: a ≻ b in every completion iff 0 < rank a < rank b (the unlisted
        # items rank last under truncated, 0 under unknown), read from the rank arrays:
        # O(1) a voter, no closure (the closures' own test, below, is the same relation)
        for rank, w in zip(ints.rank, ints.count):
            ra, rb = rank[ia], rank[ib]      # type: ignore[index]
            if 0 < ra < rb:
                lo += w
            if not 0 < rb < ra:
                hi += w
    else:
        bit_a, bit_b = 1 << ia, 1 << ib
        for ag, C in zip(model.agents, closures(model)):
            if C.down[a] & bit_b:
                lo += ag.count
            if not C.down[b] & bit_a:
                hi += ag.count
    rest = [x for x in model.items if x not in (a, b)]
    wit = {"min": {"keys": [[b] + rest + [a]]}, "max": {"keys": [[a] + rest + [b]]}}
    if params.get("_question") == "majority":
        v = model.voters
        if model.conventions.get("majority") == "ranked":     # unordered pairs abstain
            return Outcome("true" if lo > v - hi else "false", {"min": lo, "max": hi},
                           {"type": "bounds"})
        verdict = "true" if 2 * lo > v else "false" if 2 * hi <= v else "undetermined"
        return Outcome(verdict, {"min": lo, "max": hi},
                       {"type": "bounds", **({"witnesses": wit} if verdict == "undetermined" else {})})
    if lo == hi or model.conventions.get("pair_count") == "stated":   # stated: voters forced
        return Outcome("determined", {"value": lo}, {"type": "bounds"})
    return Outcome("undetermined", {"min": lo, "max": hi}, {"type": "bounds", "witnesses": wit})


def majority(model: PreferenceModel, params: dict) -> Outcome:
    """Necessary (true) / possible-not-necessary (undetermined) / impossible (false) strict
    majority of a over b (Konczak & Lang 2005), with the count bounds as solution."""
    return count(model, dict(params, _question="majority"))


SINGLE = {"compare": compare, "position": position, "kth": kth, "rank_set": rank_set,
          "topk": topk, "topk_list": topk_list, "rs": rs}
