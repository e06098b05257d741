"""Combinatorial algorithms for hospitals/residents with ties (HRT).

All functions take a :class:`prefcert.formal.hospitals_residents.HRMarket` and work on its admissible
lists (``pr`` / ``ph``). Matchings are dicts resident -> hospital. Not trusted: every
answer is verified by :mod:`prefcert.formal.checker.hospitals_residents`, which this module does not
import; the blocking test of the brute force is a deliberate twin of the checker's.

- :func:`deferred_acceptance` — resident- or hospital-oriented Gale–Shapley on strict lists.
- :func:`weakly_stable_matching` — ties broken in list order, then deferred acceptance.
- :func:`super_stable_search` — algorithm SUPER-RES (Irving, Manlove & Scott 2000).
- :func:`strongly_stable_search` — algorithm STRONG-RES (Irving, Manlove & Scott 2003).
- :func:`stable_matchings` / :func:`brute_force_stable_matching` — exhaustive search.
"""
from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from ..formal.hospitals_residents import NOTIONS, HRMarket
from ..formal.outcome import Outcome
from .stable_matching_brute_force import best_from

__all__ = ["all_matchings", "brute_force_stable_matching", "deferred_acceptance",
           "stable_matchings", "strongly_stable_search", "super_stable_search",
           "weakly_stable_matching"]


# ------------------------------------------------------------------ deferred acceptance
#
# Every algorithm below reads the market's integer form (``market.ints``: residents and
# hospitals numbered in input order, lists restricted to admissible pairs) and names its
# output and its log's agents with the names; where the name-keyed algorithms chose by
# name order, the ints are ordered by ``ints.name_order``.

def _strict_lists(market: HRMarket, by_position: bool):
    """(resident lists, resident rank, hospital lists, hospital rank) as strict orders over
    the ints: the given ones (ValueError on a tie) or, with ``by_position``, ties broken
    in list order (a rank is then a position)."""
    ints = market.ints
    sr, sh = ints.r, ints.h
    if not by_position:
        for side in (sr, sh):
            for who, lst, k in zip(side.names, side.lists, side.nties):
                if k != len(lst):
                    raise ValueError(f"deferred_acceptance needs strict lists; {who!r} has a "
                                     f"tie (use weakly_stable_matching)")
    rr = [dict(zip(lst, range(len(lst)))) for lst in sr.lists]
    hr = [dict(zip(lst, range(len(lst)))) for lst in sh.lists]
    return sr.lists, rr, sh.lists, hr


def _resident_proposing(market: HRMarket, rl, hr) -> dict[str, str]:
    ints = market.ints
    cap = ints.cap
    nxt = [0] * len(rl)
    held: list[list[int]] = [[] for _ in cap]
    free = deque(range(len(rl)))
    while free:
        r = free.popleft()
        lst = rl[r]
        while nxt[r] < len(lst):
            h = lst[nxt[r]]
            nxt[r] += 1
            held[h].append(r)
            if len(held[h]) <= cap[h]:
                break
            worst = max(held[h], key=hr[h].__getitem__)
            held[h].remove(worst)
            if worst != r:
                free.append(worst)
                break
    nr, nh = ints.r.names, ints.h.names
    return {nr[r]: nh[h] for h, rs in enumerate(held) for r in rs}


def _hospital_proposing(market: HRMarket, hl, rr) -> dict[str, str]:
    ints = market.ints
    cap = ints.cap
    nxt = [0] * len(hl)
    load = [0] * len(hl)
    holds: dict[int, int] = {}
    active = deque(range(len(hl)))
    while active:
        h = active.popleft()
        lst = hl[h]
        while load[h] < cap[h] and nxt[h] < len(lst):
            r = lst[nxt[h]]
            nxt[h] += 1
            cur = holds.get(r)
            if cur is None or rr[r][h] < rr[r][cur]:
                holds[r] = h
                load[h] += 1
                if cur is not None:
                    load[cur] -= 1
                    active.append(cur)
    nr, nh = ints.r.names, ints.h.names
    return {nr[r]: nh[h] for r, h in holds.items()}


def deferred_acceptance(market: HRMarket, proposing: str = "residents", *,
                        break_ties: bool = False) -> dict[str, str]:
    """Gale–Shapley deferred acceptance for hospitals/residents.

    ``proposing``: ``"residents"`` (the resident-optimal stable matching) or
    ``"hospitals"`` (the hospital-optimal one). Lists must be strict unless
    ``break_ties``, which breaks every tie in list order first (the result is then weakly
    stable in the tied market). Returns resident -> hospital. Raises ValueError for a tie
    (without ``break_ties``) or an unknown side. O(L). Source: Gale & Shapley 1962;
    Roth 1984 (hospital-optimal version); Gusfield & Irving 1989, §1.6.
    """
    if proposing not in ("residents", "hospitals"):
        raise ValueError("proposing must be 'residents' or 'hospitals'")
    rl, rr, hl, hr = _strict_lists(market, break_ties)
    if proposing == "residents":
        return _resident_proposing(market, rl, hr)
    return _hospital_proposing(market, hl, rr)


def weakly_stable_matching(market: HRMarket, proposing: str = "residents") -> dict[str, str]:
    """A weakly stable matching: ties broken in list order, then deferred acceptance.

    A pair blocking weakly in the tied market blocks the tie-broken one too, so the result
    is weakly stable; one always exists. O(L). Source: Irving, Manlove & Scott 2000.
    """
    return deferred_acceptance(market, proposing, break_ties=True)


# ------------------------------------------------------------------ SUPER-RES / STRONG-RES

class _Search:
    """Current lists (one rank cut per hospital), provisional assignments and the deletion
    log (the refutation certificate of the checker's ``deletion_log``), on the integer
    form; the log names the agents."""

    def __init__(self, market: HRMarket):
        ints = market.ints
        sr, sh = ints.r, ints.h
        self.names_r, self.names_h = sr.names, sh.names
        self.cap = ints.cap
        self.lists = sr.lists
        self.rank_r = sr.rank
        self.rank_h = sh.rank
        self.hlist = sh.lists
        self.cut = [k + 1 for k in sh.nties]
        self.end = [len(lst) for lst in sh.lists]
        self.ptr = [0] * len(sr.lists)
        self.a_r: list[set[int]] = [set() for _ in sr.lists]
        self.a_h: list[set[int]] = [set() for _ in sh.lists]
        self.ever: list[set[int]] = [set() for _ in sh.lists]
        self.steps: list[list] = []
        self.free = deque(range(len(sr.lists)))
        self.key_r, self.key_h = ints.name_order("r"), ints.name_order("h")

    def head(self, r: int) -> list[int]:
        lst, i, rh, cut = self.lists[r], self.ptr[r], self.rank_h, self.cut
        while i < len(lst) and rh[lst[i]][r] >= cut[lst[i]]:
            i += 1
        self.ptr[r] = i
        if i == len(lst):
            return []
        ra = self.rank_r[r]
        k = ra[lst[i]]
        out = []
        while i < len(lst) and ra[lst[i]] == k:
            if rh[lst[i]][r] < cut[lst[i]]:
                out.append(lst[i])
            i += 1
        return out

    def tail_rank(self, h: int) -> int:
        return self.rank_h[h][self.hlist[h][self.end[h] - 1]]

    def assign(self, r: int, h: int) -> None:
        self.a_r[r].add(h)
        self.a_h[h].add(r)
        self.ever[h].add(r)

    def cut_to(self, h: int, cut: int) -> None:
        """Delete every resident of rank >= cut from h's list, breaking assignments."""
        if cut >= self.cut[h]:
            return
        self.cut[h] = cut
        lst, e, rank = self.hlist[h], self.end[h], self.rank_h[h]
        while e and rank[lst[e - 1]] >= cut:
            e -= 1
            r = lst[e]
            if r in self.a_h[h]:
                self.a_h[h].discard(r)
                self.a_r[r].discard(h)
                if not self.a_r[r]:
                    self.free.append(r)
        self.end[h] = e

    def by_rank(self, h: int) -> list[int]:
        """h's assignees, best first (list order inside a tie)."""
        pos = dict(zip(self.hlist[h], range(len(self.hlist[h]))))
        return sorted(self.a_h[h], key=pos.__getitem__)

    def log(self, kind: str, h: int, w: list[int]) -> None:
        """A step of the log, naming its agents."""
        nr = self.names_r
        self.steps.append([kind, self.names_h[h], [nr[r] for r in w]])

    def shortfall(self, matched: dict[int, int]) -> bool:
        """Some hospital holds fewer than min(c_h, |ever proposed|) (the counting
        contradiction of the checker)."""
        cap = self.cap
        return any(matched.get(h, 0) < min(cap[h], len(p)) for h, p in enumerate(self.ever))

    def named(self, matching: dict[int, int]) -> dict[str, str]:
        """The matching by names, residents in input order."""
        nr, nh = self.names_r, self.names_h
        return {nr[r]: nh[matching[r]] for r in range(len(nr)) if r in matching}


def super_stable_search(market: HRMarket) -> tuple[dict[str, str] | None, dict | None]:
    """Algorithm SUPER-RES with its certificate: ``(matching, None)`` or ``(None, log)``.

    Free residents apply to their whole head tie; an oversubscribed hospital deletes its
    tail tie, a full one every resident strictly worse than its worst assignee. NO when a
    resident ends multiply assigned or a hospital that was full ends undersubscribed;
    otherwise the assignment is the resident-optimal super-stable matching (all
    super-stable matchings have the same hospital loads). O(L).
    Source: Irving, Manlove & Scott 2000, "The hospitals/residents problem with ties", SWAT.
    """
    s = _Search(market)
    while s.free:
        r = s.free.popleft()
        if s.a_r[r]:
            continue
        for h in s.head(r):
            s.assign(r, h)
            c = s.cap[h]
            if len(s.a_h[h]) > c:
                w = s.by_rank(h)
                s.log("oversubscribed", h, w)
                s.cut_to(h, s.rank_h[h][w[-1]])
            if len(s.a_h[h]) == c:
                w = s.by_rank(h)
                worst = s.rank_h[h][w[-1]]
                if s.tail_rank(h) > worst:
                    s.log("dominate", h, w)
                    s.cut_to(h, worst + 1)
    loads: dict[int, int] = {}
    matching = {}
    for r, hs in enumerate(s.a_r):
        if len(hs) > 1:
            return None, {"type": "deletion_log", "steps": s.steps}
        if hs:
            (h,) = hs
            matching[r] = h
            loads[h] = loads.get(h, 0) + 1
    if s.shortfall(loads):
        return None, {"type": "deletion_log", "steps": s.steps}
    return s.named(matching), None


def _quota_matching(adj: dict[int, list[int]], quota: dict[int, int],
                    key_h: list[int]) -> dict[int, int]:
    """A maximum matching of residents into hospitals with ``quota`` posts: scipy's
    Hopcroft–Karp on hospitals split into quota slots, ordered by hospital name
    (``key_h``: deterministic). A hospital gets no more slots than residents adjacent to
    it (no more can be filled), so the graph is O(admissible pairs²) whatever the
    capacities."""
    degree: dict[int, int] = {}
    for hs in adj.values():
        for h in hs:
            degree[h] = degree.get(h, 0) + 1
    quota = {h: min(q, degree.get(h, 0)) for h, q in quota.items()}
    slots = [(h, k) for h in sorted(quota, key=key_h.__getitem__) for k in range(quota[h])]
    first: dict[int, int] = {}
    for j, (h, k) in enumerate(slots):
        first.setdefault(h, j)
    res = list(adj)
    rows, cols = [], []
    for i, r in enumerate(res):
        for h in adj[r]:
            for k in range(quota.get(h, 0)):
                rows.append(i)
                cols.append(first[h] + k)
    if not rows:
        return {}
    g = csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)),
                   shape=(len(res), len(slots)))
    match = maximum_bipartite_matching(g, perm_type="column")
    return {res[i]: slots[j][0] for i, j in enumerate(match.tolist()) if j >= 0}


def strongly_stable_search(market: HRMarket) -> tuple[dict[str, str] | None, dict | None]:
    """Algorithm STRONG-RES with its certificate: ``(matching, None)`` or ``(None, log)``.

    Free residents apply to their whole head tie; a hospital with at least c_h applicants
    deletes the residents strictly worse than its c_h-th best applicant. At quiescence the
    reduced assignment graph (residents bound to a hospital that surely keeps them leave
    it, lowering that hospital's quota) gives the critical set Z; every hospital of N(Z)
    deletes its tail tie; repeat until Z is empty. Then bound residents plus a maximum
    quota-matching of the reduced graph form a strongly stable matching unless a resident
    is bound twice or a hospital holds fewer than min(c_h, applicants ever) residents.
    O(a²) for a admissible pairs here.
    Source: Irving, Manlove & Scott 2003, "Strong stability in the hospitals/residents
    problem", STACS (LNCS 2607); Kavitha, Mehlhorn, Michail & Paluch 2007.
    """
    s = _Search(market)
    key_r, key_h = s.key_r.__getitem__, s.key_h
    while True:
        while s.free:
            r = s.free.popleft()
            if s.a_r[r]:
                continue
            for h in s.head(r):
                s.assign(r, h)
                c = s.cap[h]
                if len(s.a_h[h]) >= c:
                    w = s.by_rank(h)[:c]
                    kth = s.rank_h[h][w[-1]]
                    if s.tail_rank(h) > kth:
                        s.log("dominate", h, w)
                        s.cut_to(h, kth + 1)
        bound: dict[int, list[int]] = {}
        quota: dict[int, int] = {}
        for h, a in enumerate(s.a_h):
            if not a:
                continue
            if len(a) <= s.cap[h]:
                b = sorted(a, key=key_r)
            else:
                t = s.tail_rank(h)
                b = sorted((r for r in a if s.rank_h[h][r] < t), key=key_r)
            quota[h] = s.cap[h] - len(b)
            for r in b:
                bound.setdefault(r, []).append(h)
        adj = {r: [h for h in s.lists[r] if h in s.a_r[r]]
               for r in range(len(s.lists)) if s.a_r[r] and r not in bound}
        mate = _quota_matching(adj, quota, key_h)
        held: dict[int, list[int]] = {}
        for r, h in mate.items():
            held.setdefault(h, []).append(r)
        frontier = [r for r in adj if r not in mate]
        z, nz = set(frontier), set()
        while frontier:
            for h in adj[frontier.pop()]:
                if h not in nz:
                    nz.add(h)
                    for r2 in held.get(h, ()):
                        if r2 not in z:
                            z.add(r2)
                            frontier.append(r2)
        if not z:
            break
        s.steps.append(["critical"])
        for h in sorted(nz, key=key_h.__getitem__):
            s.cut_to(h, s.tail_rank(h))
    refutation = {"type": "deletion_log", "steps": s.steps}
    if any(len(hs) > 1 for hs in bound.values()):
        return None, refutation
    matching = {r: hs[0] for r, hs in bound.items()}
    matching.update(mate)
    loads: dict[int, int] = {}
    for h in matching.values():
        loads[h] = loads.get(h, 0) + 1
    if s.shortfall(loads):
        return None, refutation
    return s.named(matching), None


# ------------------------------------------------------------------ exhaustive search

_UNASSIGNED = 1 << 30  # the rank of "unassigned" / of an undersubscribed hospital's worst

#: per notion, does a pair (r, h) block given r's rank of h (``k``) and of its hospital
#: (``cur``), and h's rank of r (``q``) and its threshold (``worst``: the rank of its worst
#: member when full, else :data:`_UNASSIGNED`)? r gains strictly (weakly) when k < cur
#: (k <= cur), h likewise with q and worst (Irving, Manlove & Scott 2000, 2003).
_BLOCKS = {
    "weak": lambda k, cur, q, worst: k < cur and q < worst,
    "super": lambda k, cur, q, worst: k <= cur and q <= worst,
    "strong": lambda k, cur, q, worst: (k < cur and q <= worst) or (k <= cur and q < worst),
}


def all_matchings(market: HRMarket) -> Iterator[dict[str, str]]:
    """Every matching within capacities over admissible pairs (the empty one included), as
    fresh dicts resident -> hospital: residents in market order, each trying its
    hospitals in list order and then "unassigned". Reads the integer form
    (``market.ints``). At most Π (deg(r) + 1) matchings."""
    ints = market.ints
    r_names, h_names, lists = ints.r.names, ints.h.names, ints.r.lists
    load = [0] * len(h_names)
    cap = ints.cap
    current: dict[str, str] = {}

    def rec(i: int) -> Iterator[dict[str, str]]:
        if i == len(r_names):
            yield dict(current)
            return
        r = r_names[i]
        for h in lists[i]:
            if load[h] < cap[h]:
                load[h] += 1
                current[r] = h_names[h]
                yield from rec(i + 1)
                del current[r]
                load[h] -= 1
        yield from rec(i + 1)

    yield from rec(0)


def stable_notions(market: HRMarket, matching: dict[str, str]) -> set[str]:
    """The notions (of weak, strong, super) under which ``matching`` has no blocking pair.

    A twin of the checker's blocking test, written independently on the integer form: r
    gains strictly (weakly) when unassigned or h ranks above (not below) M(r); h gains
    strictly and weakly when undersubscribed, else when r ranks above (not below) its
    worst member. O(L)."""
    ints = market.ints
    ir, ih = ints.r.index, ints.h.index
    cap, rank_r, rank_h = ints.cap, ints.r.rank, ints.h.rank
    mate = [-1] * len(ints.r.names)
    members: list[list[int]] = [[] for _ in ints.h.names]
    for r, h in matching.items():
        mate[ir[r]] = ih[h]
        members[ih[h]].append(ir[r])
    worst = [max(rank_h[h][r] for r in ms) if ms and len(ms) == cap[h] else
             (_UNASSIGNED if len(ms) < cap[h] else -1) for h, ms in enumerate(members)]
    ok = set(NOTIONS)
    for r, ranks in enumerate(rank_r):
        mine = mate[r]
        cur = ranks[mine] if mine >= 0 else _UNASSIGNED
        for h, k in ranks.items():
            if h == mine:
                continue
            q, w = rank_h[h][r], worst[h]
            for notion in tuple(ok):
                if _BLOCKS[notion](k, cur, q, w):
                    ok.discard(notion)
            if not ok:
                return ok
    return ok


def stable_matchings(market: HRMarket, notion: str, *, deadline: float | None = None
                     ) -> Iterator[dict[str, str]]:
    """Yield every ``notion``-stable matching (in the order of :func:`all_matchings`).

    Backtracking over the residents in input order on the integer form (``market.ints``),
    each trying its hospitals in list order (where under capacity) and then "unassigned",
    that tests every admissible pair (r, h) once both sides are final: when the later of
    "r chooses" and "h becomes full" happens (a full hospital's worst member no longer
    changes), and at the leaf for hospitals left undersubscribed; a partial matching with
    a blocking pair is cut there, and so is one where r's pair with a hospital not yet full
    blocks against a lower bound of its final threshold (its worst member so far, or the
    best rank it gives a later resident). The yielded set equals ``[M for M in
    all_matchings(market) if notion in stable_notions(market, M)]``, in the same order.
    ``deadline``: a ``time.perf_counter()`` value after which TimeoutError is raised
    (checked at the first of every 256 search nodes). Raises ValueError for an unknown
    notion. Worst case O(#matchings · L)."""
    if notion not in NOTIONS:
        raise ValueError(f"unknown stability notion {notion!r} (known: {', '.join(NOTIONS)})")
    blocks = _BLOCKS[notion]
    ints = market.ints
    r_names, h_names = ints.r.names, ints.h.names
    n = len(r_names)
    lists, rank_r = ints.r.lists, ints.r.rank
    lists_h, rank_h = ints.h.lists, ints.h.rank
    cap = ints.cap
    options = [(*lst, -1) for lst in lists]          # -1: unassigned
    mate = [-1] * n                                  # fixed for residents 0..i-1
    cur = [_UNASSIGNED] * n                          # r's rank of its hospital
    load = [0] * len(h_names)
    worst = [_UNASSIGNED] * len(h_names)             # final once the hospital is full
    nodes = [0]

    # A hospital's threshold only falls as residents join, and blocking only gets likelier
    # as it rises: a pair that blocks against a lower bound of h's final threshold blocks in
    # every completion. The bound: h's worst member so far (``top``), or, with none yet,
    # ``best_h[h][i]``: the best rank h gives a resident numbered from i on.
    top = [-1] * len(h_names)
    best_h = [best_from(rh, n, _UNASSIGNED) for rh in rank_h]

    def consistent(r: int, p: int, w: int) -> bool:
        ranks = rank_r[r]
        c = _UNASSIGNED if p < 0 else ranks[p]
        for h in lists[r]:                           # pairs (r, h): final if h is full
            if h != p and blocks(ranks[h], c, rank_h[h][r], worst[h] if load[h] == cap[h]
                                 else top[h] if load[h] else best_h[h][r + 1]):
                return False
        if w != _UNASSIGNED:                         # p becomes full: pairs (r', p), r' < r
            rp = rank_h[p]
            for r2 in lists_h[p]:
                if r2 < r and mate[r2] != p and blocks(rank_r[r2][p], cur[r2], rp[r2], w):
                    return False
        return True

    def leaf_ok() -> bool:
        for r in range(n):                           # pairs whose hospital stays open
            c, ranks, mine = cur[r], rank_r[r], mate[r]
            for h in lists[r]:
                if load[h] < cap[h] and h != mine and \
                        blocks(ranks[h], c, rank_h[h][r], _UNASSIGNED):
                    return False
        return True

    def rec(i: int) -> Iterator[dict[str, str]]:
        nodes[0] += 1
        if deadline is not None and nodes[0] % 256 == 1 and time.perf_counter() > deadline:
            raise TimeoutError
        if i == n:
            if leaf_ok():
                yield {r_names[r]: h_names[h] for r, h in enumerate(mate) if h >= 0}
            return
        for p in options[i]:
            w = _UNASSIGNED                          # p's worst member if i fills it
            if p >= 0:
                if load[p] == cap[p]:
                    continue
                if load[p] + 1 == cap[p]:
                    rp = rank_h[p]
                    w = max([rp[i]] + [rp[r] for r in range(i) if mate[r] == p])
            if not consistent(i, p, w):
                continue
            mate[i] = p
            if p >= 0:
                load[p] += 1
                cur[i] = rank_r[i][p]
                worst[p] = w
                was = top[p]
                top[p] = max(was, rank_h[p][i])
            yield from rec(i + 1)
            mate[i] = -1
            if p >= 0:
                load[p] -= 1
                cur[i] = _UNASSIGNED
                worst[p] = _UNASSIGNED
                top[p] = was

    yield from rec(0)


def brute_force_stable_matching(market: HRMarket, notion: str, *, time_limit: float,
                                seed: int) -> Outcome:
    """Engine: the first ``notion``-stable matching found by exhaustive search, or
    ``none`` once the search space is exhausted, ``unknown`` on timeout. ``seed`` is
    unused (deterministic). For small markets only (exponential)."""
    del seed
    t0 = time.perf_counter()
    try:
        found = next(stable_matchings(market, notion, deadline=t0 + float(time_limit)), None)
    except TimeoutError:
        return Outcome("unknown", stats={"engine": "brute_force"})
    stats = {"engine": "brute_force", "seconds": round(time.perf_counter() - t0, 4)}
    if found is None:
        return Outcome("none", stats=stats)
    return Outcome("exists", solution=found, certificate={"type": "stable_matching"},
                   stats=stats)
