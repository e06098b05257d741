"""Combinatorial algorithms for two-sided stable matching with ties and incomplete lists.

All functions take a :class:`formal.stable_matching.Market` and work on its mutually acceptable
lists in integer form (``market.ints``: agents numbered per side, partner-int lists with
aligned tie indices, rank dicts); names appear only in the outputs. Matchings are dicts A-agent -> B-agent. Side A proposes ("A-agents"),
unless stated otherwise. Not trusted: every answer is verified by ``formal``'s checker.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import deque
from heapq import nsmallest

from ..formal.stable_matching import Market

__all__ = ["deferred_acceptance", "first_round", "hopcroft_karp", "strongly_stable_matching",
           "strongly_stable_search", "super_stable_matching", "super_stable_search",
           "weakly_stable_matching"]


def deferred_acceptance(market: Market, proposing: str = "A") -> dict[str, str]:
    """Gale–Shapley deferred acceptance on strict, possibly incomplete lists.

    ``proposing``: "A" or "B". Returns the proposing-side-optimal stable matching as a dict
    A-agent -> B-agent. Raises ValueError if some list has a tie (use
    :func:`weakly_stable_matching`). O(L), on the integer form (``market.ints``).
    Source: Gale & Shapley 1962; McVitie & Wilson 1971.
    """
    if proposing not in ("A", "B"):
        raise ValueError("proposing must be 'A' or 'B'")
    ints = market.ints
    props, recv = (ints.a, ints.b) if proposing == "A" else (ints.b, ints.a)
    for side in (props, recv):
        for who, lst, nt in zip(side.names, side.lists, side.nties):
            if nt != len(lst):
                raise ValueError(f"deferred_acceptance needs strict lists; {who!r} has a tie")
    holds, order = _gale_shapley(props.lists, recv.rank)
    pn, rn = props.names, recv.names
    if proposing == "A":
        return {pn[holds[y]]: rn[y] for y in order}
    return {rn[y]: pn[holds[y]] for y in order}


def _gale_shapley(lists: list[list[int]], rank: list[dict[int, int]]
                  ) -> tuple[list[int], list[int]]:
    """Proposals in list order; receiver y keeps the proposer of smallest rank[y]. O(L).
    Returns (holds: receiver -> proposer or -1, the receivers in the order of their first
    proposal accepted)."""
    nxt = [0] * len(lists)
    holds = [-1] * len(rank)
    order: list[int] = []
    free = deque(range(len(lists)))
    while free:
        x = free.popleft()
        lst = lists[x]
        i, n = nxt[x], len(lst)
        while i < n:
            y = lst[i]
            i += 1
            cur = holds[y]
            if cur < 0:
                holds[y] = x
                order.append(y)
                break
            ry = rank[y]
            if ry[x] < ry[cur]:
                holds[y] = x
                free.append(cur)
                break
        nxt[x] = i
    return holds, order


def weakly_stable_matching(market: Market) -> dict[str, str]:
    """A weakly stable matching: break every tie by the order in which the list gives it,
    then run deferred acceptance with side A proposing.

    Any stable matching of a tie-broken instance is weakly stable in the original (a
    weakly blocking pair would block in the refinement too). Always exists. O(L), on the
    integer form.
    Source: Irving 1994, DAM 48.
    """
    ints = market.ints
    lists, rank, blists = ints.a.lists, ints.b.rank, ints.b.lists
    index: list[dict[int, int] | None] = [None] * len(rank)   # y's list positions, made
    nxt = [0] * len(lists)                                    # when y compares two of a tie
    holds = [-1] * len(rank)
    order: list[int] = []
    free = deque(range(len(lists)))      # _gale_shapley, y's choice by list position
    while free:
        x = free.popleft()
        lst = lists[x]
        i, n = nxt[x], len(lst)
        while i < n:
            y = lst[i]
            i += 1
            cur = holds[y]
            if cur < 0:
                holds[y] = x
                order.append(y)
                break
            ry = rank[y]
            rx, rc = ry[x], ry[cur]
            if rx == rc:                 # one tie: the list position decides
                pos = index[y]
                if pos is None:
                    pos = index[y] = dict(zip(blists[y], range(len(blists[y]))))
                better = pos[x] < pos[cur]
            else:
                better = rx < rc
            if better:
                holds[y] = x
                free.append(cur)
                break
        nxt[x] = i
    an, bn = ints.a.names, ints.b.names
    return {an[holds[y]]: bn[y] for y in order}


class _Search:
    """Shared state of SUPER and STRONG on the integer form: current lists as one rank cut
    per B-agent, engagements, and the deletion log (the refutation certificate of
    formal.checker.stable_matching.check_deletion_log, in names)."""

    def __init__(self, market: Market):
        ints = market.ints
        self.ints = ints
        self.names_a, self.names_b = ints.a.names, ints.b.names
        self.lists = ints.a.lists
        self.ties_a = ints.a.ties
        self.rank_b = ints.b.rank
        self.b_agents = ints.b.lists
        self.cut = [t + 1 for t in ints.b.nties]
        self.full = list(self.cut)           # the cut of a list nothing was deleted from
        self.end = [len(lst) for lst in self.b_agents]
        self.tail = [t if lst else 0 for t, lst in zip(ints.b.nties, self.b_agents)]
        self.ties_b = ints.b.ties
        na = len(self.lists)
        self.ptr = [0] * na
        self.stop = [0] * na
        self.eng_a: list[set[int]] = [set() for _ in range(na)]
        self.eng_b: list[set[int]] = [set() for _ in self.b_agents]
        self.steps: list[list] = []
        self.free = deque(range(na))

    def copy(self) -> _Search:
        """An independent copy of this state (the market's arrays shared: they are only
        read). O(n + engagements + steps)."""
        c = object.__new__(_Search)
        c.__dict__.update(self.__dict__)
        c.cut, c.end, c.tail = self.cut.copy(), self.end.copy(), self.tail.copy()
        c.ptr, c.stop = self.ptr.copy(), self.stop.copy()
        c.eng_a = list(map(set.copy, self.eng_a))
        c.eng_b = list(map(set.copy, self.eng_b))
        c.steps = self.steps.copy()
        c.free = self.free.copy()
        return c

    def head(self, x: int) -> list[int]:
        """x's head tie: the alive entries of its best tie that has one. A pair (x, y) is
        alive iff rank_b[y][x] < cut[y]. Skipping dead entries costs one look-up each
        (none on an emptied list, cut = 1); within the head tie (read from x's aligned tie
        indices) a list untouched (cut = full) or emptied answers without looking x up in
        y's list, so big ties cost O(1) per entry."""
        lst, i, rb, cut, full = self.lists[x], self.ptr[x], self.rank_b, self.cut, self.full
        n = len(lst)
        while i < n:             # dead entries: one look-up each (none on an emptied list)
            y = lst[i]
            c = cut[y]
            if c > 1 and rb[y][x] < c:
                break
            i += 1
        self.ptr[x] = i
        if i == n:
            return []
        ta = self.ties_a[x]
        r = ta[i]
        out = []
        while i < n:
            if ta[i] != r:
                break
            y = lst[i]
            c = cut[y]
            if c == full[y] or (c > 1 and rb[y][x] < c):
                out.append(y)
            i += 1
        self.stop[x] = i        # x's engagements lie in lists[x][ptr[x]:stop[x]]
        return out

    def tail_rank(self, y: int) -> int:
        return self.tail[y]

    def cut_to(self, y: int, cut: int) -> None:
        """Delete every A-agent of rank >= cut from y's list (worst first), breaking their
        engagements."""
        if cut >= self.cut[y]:
            return
        self.cut[y] = cut
        lst, e, ties = self.b_agents[y], self.end[y], self.ties_b[y]
        k = bisect_left(ties, cut, 0, e)        # tie indices ascend along lst
        eng_y, eng_a, free = self.eng_b[y], self.eng_a, self.free
        for x in reversed(lst[k:e]):
            if x in eng_y:
                eng_y.discard(x)
                ex = eng_a[x]
                ex.discard(y)
                if not ex:
                    free.append(x)
        self.end[y] = k
        self.tail[y] = ties[k - 1] if k else 0

    def propose_all(self) -> None:
        """Free A-agents propose to their whole head tie; each B-agent deletes the A-agents strictly
        worse than the proposer (step ``dominate``). Runs to quiescence.

        :meth:`head` and :meth:`cut_to` are written out here, on local names (the same
        statements): this loop makes most of the first round's calls of both, which on a
        small market cost more than their work (a tenth of a label of n = 10, issue 24)."""
        free, eng_a, eng_b, tail, rank_b = self.free, self.eng_a, self.eng_b, self.tail, \
            self.rank_b
        na, nb, steps = self.names_a, self.names_b, self.steps
        lists, ptr, stop, ties_a, cut, full = self.lists, self.ptr, self.stop, self.ties_a, \
            self.cut, self.full
        b_agents, end, ties_b = self.b_agents, self.end, self.ties_b
        popleft, push, record = free.popleft, free.append, steps.append
        while free:
            x = popleft()
            ex = eng_a[x]
            if ex:
                continue
            lst, i = lists[x], ptr[x]           # head(x): its dead entries skipped ...
            n = len(lst)
            while i < n:
                y = lst[i]
                c = cut[y]
                if c > 1 and rank_b[y][x] < c:
                    break
                i += 1
            ptr[x] = i
            if i == n:
                continue
            ta = ties_a[x]                      # ... then the alive entries of its tie
            r = ta[i]
            head = []
            while i < n:
                if ta[i] != r:
                    break
                y = lst[i]
                c = cut[y]
                if c == full[y] or (c > 1 and rank_b[y][x] < c):
                    head.append(y)
                i += 1
            stop[x] = i
            for y in head:
                ex.add(y)
                eng_y = eng_b[y]
                eng_y.add(x)
                t = tail[y]
                if t > 1:                        # else no A-agent is worse than x on y's list
                    r = rank_b[y][x] + 1
                    if t >= r:
                        record(["dominate", nb[y], na[x]])
                        if r >= cut[y]:          # cut_to(y, r)
                            continue
                        cut[y] = r
                        blst, e, tb = b_agents[y], end[y], ties_b[y]
                        k = bisect_left(tb, r, 0, e)   # tie indices ascend along blst
                        for x2 in reversed(blst[k:e]):
                            if x2 in eng_y:
                                eng_y.discard(x2)
                                e2 = eng_a[x2]
                                e2.discard(y)
                                if not e2:
                                    push(x2)
                        end[y] = k
                        tail[y] = tb[k - 1] if k else 0


def first_round(market: Market) -> _Search:
    """The state of SUPER and STRONG after their first round of proposals (free A-agents
    propose to their head ties until quiescence, with the ``dominate`` deletions), which
    the two algorithms share: pass it (or a :meth:`_Search.copy` of it) as ``start`` to
    :func:`super_stable_search` or :func:`strongly_stable_search`. O(L)."""
    s = _Search(market)
    s.propose_all()
    return s


def _ever_proposed(s: _Search) -> int:
    """The number of B-agents that were ever in some A-agent's head tie."""
    nties = s.ints.b.nties
    return sum(1 for y, e in enumerate(s.eng_b) if e or s.cut[y] <= nties[y])


def super_stable_search(market: Market, *, start: _Search | None = None
                        ) -> tuple[dict[str, str] | None, dict | None]:
    """Algorithm SUPER with its certificate: ``(matching, None)`` or ``(None, deletion log)``.

    The log is checked by :func:`formal.stable_matching.check_deletion_log`. O(L), on the
    integer form. ``start``: the state of :func:`first_round` on this market, which the
    search then continues (and changes); by default it is made here.
    Source: Irving 1994 (SMT); Manlove 1999/2002 (SMTI).
    """
    s = _Search(market) if start is None else start
    akey = None
    while True:
        s.propose_all()
        multi = [y for y, e in enumerate(s.eng_b) if len(e) >= 2]
        if not multi:
            break
        if akey is None:
            akey = s.ints.name_order("A")
        for y in multi:      # break all its engagements, delete its whole tail tie
            x1, x2 = nsmallest(2, s.eng_b[y], key=akey.__getitem__)   # by name
            s.steps.append(["dominate", s.names_b[y], s.names_a[x1], s.names_a[x2]])
            s.cut_to(y, s.tail_rank(y))
    return _finish(s)


def _finish(s: _Search):
    matching = {}
    na, nb = s.names_a, s.names_b
    for x, h in enumerate(s.eng_a):
        if len(h) > 1:
            return None, {"type": "deletion_log", "steps": s.steps}
        if h:
            matching[na[x]] = nb[next(iter(h))]
    if len(set(matching.values())) < len(matching) or \
            _ever_proposed(s) > len(matching):
        return None, {"type": "deletion_log", "steps": s.steps}
    return matching, None


def super_stable_matching(market: Market) -> dict[str, str] | None:
    """The A-optimal super-stable matching, or None when none exists.

    Algorithm SUPER: free A-agents propose to their whole head tie; a B-agent deletes A-agents strictly
    worse than a proposer; at quiescence a B-agent engaged to several A-agents breaks all those
    engagements and deletes its whole tail tie; NO if a A-agent ends multiply engaged or a B-agent
    once engaged ends free. All super-stable matchings match the same agents. O(L).
    Source: Irving 1994, DAM 48; Manlove 1999 (TR-1999-29) and 2002 (DAM 122) for SMTI.
    """
    return super_stable_search(market)[0]


#: Engagement graphs with at most this many edges are matched by :func:`hopcroft_karp`
#: in pure Python; larger ones by scipy's compiled Hopcroft–Karp (the same matching, see
#: :func:`hopcroft_karp`). Measured (CPU): per call the pure-Python phases cost about
#: 6 µs per edge against scipy's 0.6 µs plus ~80 µs of per-call overhead, but importing
#: numpy and scipy costs ~0.5 s once. Below 4096 edges a call costs at most ~25 ms, so a
#: STRONG run at n = 1000 (13 phases of ~1000 edges: 0.68 s in Python against 1.05 s
#: with scipy, its import included) and every small market never import scipy; at
#: n = 10⁴ with 100 entries per list (15 phases of ~10⁴ edges) scipy wins (2.6 s against
#: 2.9 s).
SCIPY_MATCHING_EDGES = 4096


def hopcroft_karp(adj: list[list[int]], ncols: int) -> list[int]:
    """A maximum matching of a bipartite graph: row -> column index, -1 for a free row.

    Parameters
    ----------
    adj : list of list of int
        ``adj[r]``: the columns adjacent to row ``r``, in ascending order.
    ncols : int
        The number of columns.

    Returns
    -------
    list of int
        The column matched to each row (-1: unmatched).

    Notes
    -----
    Hopcroft & Karp's phases: a breadth-first layering from the free rows (in index
    order), stopped at the layer that first reaches a free column, then one depth-first
    search per free row (in index order) for a shortest augmenting path, vertex-disjoint
    from the paths of the same phase. The depth-first search keeps a stack of rows: it
    pops a row, scans its columns in order, and pushes the mate of every column on the
    next layer (remembering the row it came from), until a column of the last layer is
    free; the path to it is then flipped and its rows closed for the phase. This order of
    search is the one of ``scipy.sparse.csgraph.maximum_bipartite_matching``, so the
    matching chosen among the maximum ones is the same as scipy's on the same CSR graph
    (sorted column indices) — the labels do not depend on which of the two ran
    (tests/test_stable_matching_hk.py). O(E·√V).

    References
    ----------
    Hopcroft, J. E. & Karp, R. M. (1973). An n^{5/2} algorithm for maximum matchings in
    bipartite graphs. SIAM J. Comput. 2(4), 225–231.
    """
    nrows = len(adj)
    free = nrows                      # the mate of a free column: a sentinel row
    inf = 1 << 62
    row_mate = [-1] * nrows
    col_mate = [free] * ncols
    parent = [0] * nrows
    while True:
        layer = [inf] * (nrows + 1)
        queue = [r for r in range(nrows) if row_mate[r] < 0]
        for r in queue:
            layer[r] = 0
        for r in queue:               # the queue grows while it is read
            d = layer[r]
            if d < layer[free]:
                d += 1
                for c in adj[r]:
                    w = col_mate[c]
                    if layer[w] == inf:
                        layer[w] = d
                        queue.append(w)
        if layer[free] == inf:
            return [-1 if c < 0 else c for c in row_mate]
        for root in range(nrows):
            if row_mate[root] >= 0:
                continue
            stack = [root]
            while stack:
                r = stack.pop()
                d = layer[r] + 1
                for c in adj[r]:
                    w = col_mate[c]
                    if layer[w] != d:
                        continue
                    if w == free:     # flip the path root .. r, c
                        while True:
                            layer[r] = inf
                            prev = row_mate[r]
                            col_mate[c] = r
                            row_mate[r] = c
                            if r == root:
                                break
                            c, r = prev, parent[r]
                        stack = []
                        break
                    stack.append(w)
                    parent[w] = r


def _maximum_matching(a_agents: list[int], s: _Search) -> tuple[dict[int, int], dict[int, int]]:
    """A maximum matching of the engagement graph, both ways: (A -> B, B -> A).

    Rows are ``a_agents`` in order, columns the engaged B-agents sorted by name; edges
    :func:`hopcroft_karp` (or scipy's, the same matching, on more than
    :data:`SCIPY_MATCHING_EDGES` edges), so the result is deterministic.

    When every A-agent is engaged to exactly one B-agent (most engagement graphs of small
    markets) the matching is read off at once: each B-agent is matched to the first of
    its A-agents in ``a_agents`` order — the matching :func:`hopcroft_karp` finds on rows
    of one edge each (its first phase matches each column to the first row reaching it;
    a later row's only column is then matched, and no augmenting path exists)."""
    eng = s.eng_a
    if all(len(e) == 1 for e in map(eng.__getitem__, a_agents)):
        mate_a, mate_b = {}, {}
        for x in a_agents:
            for y in eng[x]:
                if y not in mate_b:
                    mate_a[x] = y
                    mate_b[y] = x
        return mate_a, mate_b
    bkey = s.ints.name_order("B")
    b_agents = sorted({y for x in a_agents for y in s.eng_a[x]}, key=bkey.__getitem__)
    col = {y: j for j, y in enumerate(b_agents)}
    adj = [sorted([col[y] for y in s.eng_a[x]]) for x in a_agents]
    if sum(map(len, adj)) <= SCIPY_MATCHING_EDGES:
        match = hopcroft_karp(adj, len(b_agents))
    else:
        match = _scipy_matching(adj, len(b_agents))
    mate_a, mate_b = {}, {}
    for i, j in enumerate(match):
        if j >= 0:
            x, y = a_agents[i], b_agents[j]
            mate_a[x] = y
            mate_b[y] = x
    return mate_a, mate_b


def _scipy_matching(adj: list[list[int]], ncols: int) -> list[int]:
    """scipy's Hopcroft–Karp on the CSR graph of ``adj`` (row -> column, -1 free). scipy is
    imported here: only STRONG on a large engagement graph needs it."""
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching
    indptr = [0]
    for cols in adj:
        indptr.append(indptr[-1] + len(cols))
    indices = [c for cols in adj for c in cols]
    graph = csr_matrix((np.ones(len(indices), dtype=np.int8), np.array(indices, dtype=np.int32),
                        np.array(indptr, dtype=np.int32)), shape=(len(adj), ncols))
    return maximum_bipartite_matching(graph, perm_type="column").tolist()


def strongly_stable_search(market: Market, *, start: _Search | None = None
                           ) -> tuple[dict[str, str] | None, dict | None]:
    """Algorithm STRONG with its certificate: ``(matching, None)`` or ``(None, deletion log)``.

    ``start``: the state of :func:`first_round` on this market, which the search then
    continues (and changes); by default it is made here.
    Source: Irving 1994; Manlove 1999; Kavitha, Mehlhorn, Michail & Paluch 2007 (TALG 3).
    """
    s = _Search(market) if start is None else start
    while True:
        s.propose_all()
        a_agents = [x for x, e in enumerate(s.eng_a) if e]
        mate_a, mate_b = _maximum_matching(a_agents, s)
        frontier = [x for x in a_agents if x not in mate_a]
        z, nz = set(frontier), set()
        while frontier:                      # alternating reachability: the critical set
            for y in s.eng_a[frontier.pop()]:
                if y not in nz:
                    nz.add(y)
                    x2 = mate_b[y]
                    if x2 not in z:
                        z.add(x2)
                        frontier.append(x2)
        if not z:
            break
        s.steps.append(["critical"])
        bkey = s.ints.name_order("B")
        for y in sorted(nz, key=bkey.__getitem__):         # by name
            s.cut_to(y, s.tail_rank(y))
    na, nb = s.names_a, s.names_b
    matching = {na[mate_b[y]]: nb[y] for y in range(len(nb)) if y in mate_b}
    if _ever_proposed(s) > len(matching):
        return None, {"type": "deletion_log", "steps": s.steps}
    return matching, None


def strongly_stable_matching(market: Market) -> dict[str, str] | None:
    """A strongly stable matching, or None when none exists.

    Algorithm STRONG: proposals as in SUPER, but a B-agent may keep several tied partners; at
    quiescence the critical set Z of the engagement graph (A-agents reachable by alternating paths
    from A-agents a maximum matching leaves single) is computed and every B-agent of N(Z) breaks
    its engagements and deletes its tail tie; repeat until Z is empty, then a maximum
    matching of the engagement graph is strongly stable unless a B-agent once engaged is left
    single. All strongly stable matchings match the same agents. O(L·(n+m)) here (matching
    recomputed each phase; KMMP 2007 reach O(nm)).
    Source: Irving 1994; Manlove 1999; Kavitha, Mehlhorn, Michail & Paluch 2007.
    """
    return strongly_stable_search(market)[0]
