"""Rank-based welfare of matchings, one- and two-sided: the graph and the definitions.

**One-sided** (house allocation, over the agents' ranks of their objects):

- *utilitarian*: minimise the total rank Σ_a r_a(M(a)) over the maximum-cardinality
  matchings;
- *egalitarian* (bottleneck, "minimum regret"): minimise the worst rank max_a r_a(M(a)) over
  the maximum-cardinality matchings (0 for the empty matching);
- *rank-maximal*: lexicographically maximise the signature (s_1, …, s_R), s_k = number of
  agents assigned an object of their rank k, over **all** matchings (Irving, Kavitha,
  Mehlhorn, Michail & Paluch 2006), or, under the ``welfare_scope = maximum`` convention,
  over the maximum-cardinality matchings (the greedy maximum matching, Irving 2003;
  Manlove 2013 §1.5). R is the largest rank in the instance.

Unmatched agents carry no rank: over maximum-cardinality matchings a uniform rank for
them (say R + 1) would shift every utilitarian value by the same constant and leave the
optima unchanged, and would make every egalitarian value R + 1 once someone is unmatched.

**Two-sided** (an SMTI :class:`~prefcert.formal.stable_matching.Market`, no stability constraint):
the same three notions over the mutual-acceptability graph where the ranks of BOTH partners
count (ranks are tie indices in the lists after one-sided entries are dropped, or, under
the ``welfare_ranks = written`` convention, in the lists as written) — the cost of a pair (m, w) is r_m(w) + r_w(m) (utilitarian), its level is
max(r_m(w), r_w(m)) (egalitarian: the worst rank over all matched agents of both sides), and
s_k counts the agents of either side matched to their k-th tie (rank-maximal). Reading only
one side's ranks is the classic mistake.

Both readings are one :class:`WelfareGraph`: a bipartite graph whose edges carry the tuple
of ranks that count. The certificates of the optima are checked in
:mod:`prefcert.formal.checker.welfare`.
"""
from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from .house_allocation import HouseAllocation
from .stable_matching import Market

WELFARE = ("utilitarian", "egalitarian", "rank_maximal")

# Rank-maximal LP duals are integers of about R·log10(B) digits: lift Python's limit on
# int <-> str conversion (3.11+) so that labels carrying them can be written and read as JSON.
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)


@dataclass(frozen=True)
class WelfareGraph:
    """A bipartite graph whose edges carry the ranks that count for welfare.

    ``left``/``right``: vertex names (agents/objects, or sides A/B). ``ranks``: edge
    (l, r) -> tuple of 1-based ranks — ``(r_l(r),)`` one-sided, ``(r_l(r), r_r(l))``
    two-sided. ``max_rank``: the largest rank of the instance (the signature's length).
    ``adj``: left vertex -> right neighbours (derived).
    """

    left: tuple[str, ...]
    right: tuple[str, ...]
    ranks: Mapping[tuple[str, str], tuple[int, ...]]
    max_rank: int
    two_sided: bool
    maximum_first: bool = False     # rank-maximal over maximum-cardinality matchings
    adj: Mapping[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)

    _index: list = field(init=False, repr=False, compare=False, default_factory=list)

    def __post_init__(self):
        adj: dict[str, list[str]] = {x: [] for x in self.left}
        for (x, y) in self.ranks:
            adj[x].append(y)
        object.__setattr__(self, "adj", {x: tuple(v) for x, v in adj.items()})

    def index(self) -> EdgeIndex:
        """The edges as integers (:class:`EdgeIndex`), made on first use and kept: every
        oracle run on this graph reads the one index. O(L) the first time, O(1) after."""
        if not self._index:
            self._index.append(EdgeIndex.of(self))
        return self._index[0]

    def cost(self, e: tuple[str, str]) -> int:
        """Utilitarian cost of an edge: the sum of the ranks that count."""
        return sum(self.ranks[e])

    def level(self, e: tuple[str, str]) -> int:
        """Egalitarian level of an edge: the worst rank that counts."""
        return max(self.ranks[e])


@dataclass(frozen=True, eq=False)
class EdgeIndex:
    """The edges of a :class:`WelfareGraph` as integers, in the order of ``ranks``: edge
    ``k`` is ``(left[rows[k]], right[cols[k]])`` with counted ranks ``ranks[k]``, level
    (worst counted rank) ``levels[k]`` and cost (their sum) ``costs[k]``. ``li`` / ``ri``:
    name -> index of each side. ``by_row[i]``: the (column, level) pairs of row ``i``'s
    edges, by column; ``least_l[i]`` / ``least_r[j]``: the least level of a vertex's edges
    (None without edges). Plain lists (the oracles convert to arrays where they need
    them)."""

    li: dict[str, int]
    ri: dict[str, int]
    rows: list[int]
    cols: list[int]
    ranks: list[tuple[int, ...]]
    levels: list[int]
    costs: list[int]
    by_row: list[list[tuple[int, int]]]
    least_l: list[int | None]
    least_r: list[int | None]

    @classmethod
    def of(cls, g: WelfareGraph) -> EdgeIndex:
        """The index of ``g``. O(L)."""
        li = {x: i for i, x in enumerate(g.left)}
        ri = {y: j for j, y in enumerate(g.right)}
        keys = list(g.ranks)
        return cls.from_lists(g, [li[x] for x, _ in keys], [ri[y] for _, y in keys],
                              list(g.ranks.values()), li, ri)

    @classmethod
    def from_lists(cls, g: WelfareGraph, rows: list[int], cols: list[int],
                   ranks: list[tuple[int, ...]], li: dict[str, int] | None = None,
                   ri: dict[str, int] | None = None) -> EdgeIndex:
        """The index of ``g`` from its edges as integers, in the order of ``g.ranks`` (a
        builder that has them gives them: no name look-up). O(L)."""
        if li is None:
            li = {x: i for i, x in enumerate(g.left)}
        if ri is None:
            ri = {y: j for j, y in enumerate(g.right)}
        if g.two_sided:
            levels = [a if a >= b else b for a, b in ranks]
            costs = [a + b for a, b in ranks]
        else:
            levels = list(map(max, ranks))
            costs = list(map(sum, ranks))
        by_row: list[list[tuple[int, int]]] = [[] for _ in g.left]
        least_r: list[int | None] = [None] * len(g.right)
        for r, c, lv in zip(rows, cols, levels):
            by_row[r].append((c, lv))
            cur = least_r[c]
            if cur is None or lv < cur:
                least_r[c] = lv
        for a in by_row:
            a.sort()
        least_l = [min(lv for _, lv in a) if a else None for a in by_row]
        return cls(li, ri, rows, cols, ranks, levels, costs, by_row, least_l, least_r)


def welfare_graph(model: HouseAllocation | Market) -> WelfareGraph:
    """The :class:`WelfareGraph` of a HouseAllocation (agents -> objects, the agent's rank)
    or of an SMTI Market (A -> B over mutually acceptable pairs, both partners' ranks).
    Raises TypeError for another model. O(L)."""
    maximum = model.conventions.get("welfare_scope") == "maximum" \
        if isinstance(model, (HouseAllocation, Market)) else False
    if isinstance(model, HouseAllocation):
        return _allocation_graph(model, maximum)
    if isinstance(model, Market):
        return _market_graph(model, maximum)
    raise TypeError(f"no welfare graph for {type(model).__name__}")


def _allocation_graph(model: HouseAllocation, maximum: bool) -> WelfareGraph:
    """:func:`welfare_graph` of a HouseAllocation from its integer lists (``RankIndex``): no
    WeakOrder is built; each agent's edges go in by slices (one rank tuple per rank value,
    shared), and the :class:`EdgeIndex` is made from the same slices (one-sided: level and
    cost are the rank). O(L)."""
    ix = model.rank_index()
    agents, objects = model.agents, model.objects
    offsets, objs, tie_ranks = ix.offsets, ix.objects, ix.ranks
    tup = [(k,) for k in range(ix.max_rank + 1)]
    name = objects.__getitem__
    ranks: dict[tuple[str, str], tuple[int, ...]] = {}
    rows: list[int] = []
    levels: list[int] = []
    by_row: list[list[tuple[int, int]]] = []
    least_l: list[int | None] = []
    for i, a in enumerate(agents):
        lo, hi = offsets[i], offsets[i + 1]
        cols = objs[lo:hi]
        rk = range(1, hi - lo + 1) if tie_ranks is None else tie_ranks[lo:hi].tolist()
        ranks.update(zip(zip(repeat(a), map(name, cols)), map(tup.__getitem__, rk)))
        rows.extend(repeat(i, hi - lo))
        levels.extend(rk)
        by_row.append(sorted(zip(cols, rk)))
        least_l.append(min(rk) if hi > lo else None)
    g = WelfareGraph(agents, objects, ranks, ix.max_rank, False, maximum)
    if len(ranks) == len(objs):       # (no pair twice: the edges are the entries)
        least_r: list[int | None] = [None] * len(objects)
        for c, lv in zip(objs, levels):
            cur = least_r[c]
            if cur is None or lv < cur:
                least_r[c] = lv
        g._index.append(EdgeIndex(
            {x: i for i, x in enumerate(agents)}, {y: j for j, y in enumerate(objects)},
            rows, objs.tolist(), list(ranks.values()), levels, list(levels), by_row,
            least_l, least_r))
    return g


def _market_graph(model: Market, maximum: bool) -> WelfareGraph:
    """:func:`welfare_graph` of an SMTI market from its integer form (``model.ints``): the
    mutual pairs in A's list order, each with A's and B's tie index of the other — in the
    lists after one-sided entries are dropped, or, under ``welfare_ranks = written``, in
    the lists as written. No WeakOrder is built. O(L)."""
    ints = model.ints
    sa, sb = ints.a, ints.b
    na, nb = sa.names, sb.names
    if model.conventions.get("welfare_ranks") == "written":
        def written_rank(s):
            return [dict(zip(w, t)) if w is not lst else rk
                    for w, t, lst, rk in zip(s.written, s.written_ties, s.lists, s.rank)]
        rank_a, rank_b = written_rank(sa), written_rank(sb)
        nties = [*sa.written_nties, *sb.written_nties]
    else:
        rank_a, rank_b = sa.rank, sb.rank
        nties = [*sa.nties, *sb.nties]
    ranks: dict[tuple[str, str], tuple[int, ...]] = {}
    rows: list[int] = []
    cols: list[int] = []
    for i, (x, lst) in enumerate(zip(na, sa.lists)):
        ra = rank_a[i]
        for j in lst:
            ranks[(x, nb[j])] = (ra[j], rank_b[j][i])
        rows.extend([i] * len(lst))
        cols.extend(lst)
    g = WelfareGraph(tuple(na), tuple(nb), ranks, max(nties, default=0), True, maximum)
    if len(ranks) == len(rows):
        g._index.append(EdgeIndex.from_lists(g, rows, cols, list(ranks.values()),
                                             sa.index, sb.index))
    return g


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


def better(g: WelfareGraph, notion: str, new: Mapping[str, str], old: Mapping[str, str]) -> bool:
    """Is ``new`` strictly better than ``old`` for ``notion``? ``max_cardinality`` compares
    sizes; utilitarian and egalitarian compare (cardinality, then value); rank-maximal
    compares signatures lexicographically (after cardinality under the ``maximum`` scope;
    the signature's sum is the cardinality times the counted sides)."""
    if notion == "rank_maximal":
        if g.maximum_first and len(new) != len(old):
            return len(new) > len(old)
        return signature(g, new) > signature(g, old)
    if len(new) != len(old) or notion == "max_cardinality":
        return len(new) > len(old)
    return welfare_value(g, notion, new) < welfare_value(g, notion, old)
