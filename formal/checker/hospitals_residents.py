"""Hospitals/residents with ties (HRT): the checks of stability and of refutations.

Definitions: Irving, Manlove & Scott 2000 (super-stability, SWAT) and 2003 (strong
stability, STACS); Manlove 2013, ch. 3. A matching is a dict resident -> hospital over
admissible pairs (:mod:`prefcert.formal.hospitals_residents`), at most ``c_h`` residents per
hospital. Certificate types: ``stable_matching`` (the label's solution is stable) and
``deletion_log`` (no super- / strongly stable matching exists).
"""
from __future__ import annotations

from collections.abc import Mapping

from ..errors import CertificateError
from ..hospitals_residents import (
    MAX_CAPACITY,
    NOTIONS,
    QUESTIONS,
    HRMarket,
    parse_hospitals_residents,
)
from ..spec import PREFERENCE_SIDE, STABILITY_QUESTIONS, DomainSpec, instance_schema
from .lists import DeletionState

SPEC = DomainSpec(
    name="hospitals_residents",
    parse=parse_hospitals_residents,
    questions=dict(STABILITY_QUESTIONS),
    schema=instance_schema(
        "hospitals_residents",
        {"preferences": {"type": "object", "required": ["residents", "hospitals"],
                         "additionalProperties": False,
                         "properties": {"residents": PREFERENCE_SIDE,
                                        "hospitals": PREFERENCE_SIDE}},
         "capacities": {"type": "object",
                        "additionalProperties": {"type": "integer", "minimum": 0,
                                                 "maximum": MAX_CAPACITY}}},
        ["preferences", "capacities"], {"enum": sorted(QUESTIONS)}),
)


def validate_matching(market: HRMarket, matching: object) -> dict[str, str]:
    """Validate a matching (resident -> hospital over admissible pairs, capacities kept);
    return it or raise CertificateError. Read on the integer form (``market.ints``):
    names are looked up in each side's index, admissibility in the resident's rank
    dict. O(|matching|)."""
    if not isinstance(matching, dict):
        raise CertificateError(f"a matching must be an object resident -> hospital, got "
                               f"{matching!r:.60}")
    ints = market.ints
    ir, ih, rank_r, cap = ints.r.index, ints.h.index, ints.r.rank, ints.cap
    load = [0] * len(cap)
    for r, h in matching.items():
        i = ir.get(r) if isinstance(r, str) else None
        if i is None:
            raise CertificateError(f"{r!r} is not a resident")
        j = ih.get(h) if isinstance(h, str) else None
        if j is None:
            raise CertificateError(f"{r!r} is assigned to {h!r}, not a hospital")
        if cap[j] == 0:
            raise CertificateError(f"{h!r} has capacity 0 and gets {r!r}")
        if j not in rank_r[i]:
            raise CertificateError(f"pair ({r}, {h}) is not admissible (not mutually listed)")
        load[j] += 1
        if load[j] > cap[j]:
            raise CertificateError(f"{h!r} gets more than its capacity {cap[j]}")
    return dict(matching)


def blocking_pairs(market: HRMarket, matching: Mapping[str, str], notion: str
                   ) -> list[tuple[str, str]]:
    """All pairs (r, h) that block ``matching`` under ``notion`` ∈ {weak, strong, super}.

    r's side: strictly / weakly better off when unassigned or h ≻_r / ⪰_r M(r). h's side:
    strictly and weakly better off when undersubscribed; when full, when r ≻_h / ⪰_h its
    worst member. Weak: both strict; super: both weak; strong: one strict, the other weak.
    Every admissible pair is scanned, ties with the partner included. O(L), on the
    integer form (``market.ints``). Raises ValueError for an unknown notion and
    CertificateError for an invalid matching.
    """
    if notion not in NOTIONS:
        raise ValueError(f"unknown stability notion {notion!r} (known: {', '.join(NOTIONS)})")
    m = validate_matching(market, matching)
    inf = float("inf")
    ints = market.ints
    sr, sh, cap = ints.r, ints.h, ints.cap
    rank_h = sh.rank
    mate = [-1] * len(sr.names)
    members: list[list[int]] = [[] for _ in sh.names]
    for r, h in m.items():
        i, j = sr.index[r], sh.index[h]
        mate[i] = j
        members[j].append(i)
    worst: list[float] = [
        (max((rank_h[j][i] for i in ms), default=0) if len(ms) >= cap[j] else inf)
        for j, ms in enumerate(members)]          # inf: undersubscribed
    out = []
    names_r, names_h = sr.names, sh.names
    for i, ra in enumerate(sr.rank):
        mine = mate[i]
        cur = ra[mine] if mine >= 0 else inf
        for j, rh in ra.items():
            if rh > cur or j == mine:
                continue          # r strictly prefers its hospital: no notion blocks
            rr, wh = rank_h[j][i], worst[j]
            s_r, s_h, w_h = rh < cur, rr < wh, rr <= wh     # r weakly better off here
            if (notion == "weak" and s_r and s_h) or (notion == "super" and w_h) or \
                    (notion == "strong" and ((s_r and w_h) or s_h)):
                out.append((names_r[i], names_h[j]))
    return out


def replay_deletion_log(market: HRMarket, notion: str, cert: dict) -> None:
    """Replay a refutation of super- or strong stability; raise CertificateError if unsound.

    The log deletes pairs from the hospitals' admissible lists; each step deletes a suffix
    of one hospital's list, so the state is one rank cut per hospital. A resident's *head
    tie* is the best tie of its current list. Invariant: no stable matching of the notion
    uses a deleted pair. Steps:

    - ``["dominate", h, W]``: W is a list of at least ``c_h`` distinct residents, each
      holding h in its head tie; every resident strictly worse on h's list than every
      member of W is deleted. Sound for both notions: if a stable M gave h such an r',
      M(h) holds r' and at most c_h − 1 others, so some w ∈ W is not in M(h); w weakly
      prefers h to M(w) (its partner is on its current list), h strictly prefers w to r':
      (w, h) blocks.
    - ``["oversubscribed", h, W]`` (super only): at least ``c_h + 1`` such residents;
      every resident r' ⪯_h every member of W is deleted (|W ∖ {r'}| ≥ c_h, so some w ∉
      M(h) super-blocks with h). Irving, Manlove & Scott 2000, algorithm SUPER-RES.
    - ``["critical"]`` (strong only): at quiescence (every hospital with at least c_h
      head-tie residents keeps no resident strictly worse than its c_h-th best), form the
      reduced assignment graph — a resident holding h in its head tie is *bound* to h when
      h has at most c_h such residents, or when it ranks above h's tail tie; bound
      residents leave the graph and lower h's quota — and its critical set Z (residents
      reachable by alternating paths from residents a maximum quota-matching leaves
      unassigned). Z must be non-empty; the whole tail tie of every hospital in N(Z) is
      deleted (Irving, Manlove & Scott 2003, algorithm STRONG-RES).

    Conclusion: let P_h be the residents that held h in their head tie at some point, and
    S the residents whose lists end non-empty. In every stable M a hospital with fewer
    than c_h members holds all of P_h (else a member of P_h blocks with it), and M's
    residents lie in S, so ``Σ_h min(c_h, |P_h|) > |S|`` proves that none exists. O(L) for
    every tie structure (a head tie is never rescanned, see :mod:`.lists`); each
    ``critical`` step adds a pass over the reduced graph and a bipartite quota-matching.
    """
    if notion not in ("super", "strong"):
        raise CertificateError("deletion logs refute super- or strong stability only")
    steps = cert.get("steps")
    if not isinstance(steps, list):
        raise CertificateError("deletion log has no list of steps")
    st = _ListState(market)
    ir, ih, cap = st.index_r, st.index_h, st.cap
    for i, step in enumerate(steps):
        if not isinstance(step, list) or not step:
            raise CertificateError(f"step {i}: malformed {step!r:.60}")
        if step[0] in ("dominate", "oversubscribed") and len(step) == 3 and \
                (step[0] == "dominate" or notion == "super"):
            h, wit = step[1], step[2]
            if not isinstance(h, str) or h not in ih or not isinstance(wit, list) \
                    or not all(isinstance(w, str) for w in wit) or len(set(wit)) != len(wit):
                raise CertificateError(f"step {i}: malformed {step!r:.60}")
            j = ih[h]
            need = cap[j] + (step[0] == "oversubscribed")
            if len(wit) < need or not wit:
                raise CertificateError(f"step {i}: {step[0]} at {h!r} needs {need} residents, "
                                       f"got {len(wit)}")
            for w in wit:
                if w not in ir or not st.in_head(ir[w], j):
                    raise CertificateError(f"step {i}: {h!r} is not in the head tie of {w!r}")
            rank = st.rank_h[j]
            worst = max(rank[ir[w]] for w in wit)
            st.cut_to(j, worst + (step[0] == "dominate"))
        elif step == ["critical"] and notion == "strong":
            for j, t in _critical_tails(st, i):
                st.cut_to(j, t)
        else:
            raise CertificateError(f"step {i}: not a valid {notion} step: {step!r:.60}")
        if st.stale:            # a resident's head changes only when its head tie empties;
            st.settle()         # the tie it enters is recorded in st.ever
    s = st.with_lists()
    need = sum(min(cap[j], len(p)) for j, p in st.ever.items())
    if need <= s:
        raise CertificateError(f"after the log, hospitals must take {need} residents but "
                               f"{s} residents keep non-empty lists: no contradiction")


class _ListState(DeletionState):
    """Current lists during a replay: per hospital a rank cut; per resident its head tie,
    kept with a count of its alive entries (:class:`~.lists.DeletionState`: O(L) for
    every tie structure). Agents are the integers of the market's integer form; the
    log's names are looked up in ``index_r`` / ``index_h``."""

    def __init__(self, market: HRMarket):
        ints = market.ints
        r, h = ints.r, ints.h
        self.ever: dict[int, set[int]] = {j: set() for j in range(len(h.names))}
        self.setup(dict(enumerate(r.lists)), dict(enumerate(r.rank)),
                   dict(enumerate(h.rank)), dict(enumerate(h.lists)),
                   dict(enumerate(h.nties)))
        self.rank_r, self.rank_h, self.hlist = self.prank, self.rrank, self.rlist
        self.index_r, self.index_h, self.cap = r.index, h.index, ints.cap
        self.names_r, self.names_h = r.names, h.names

    def record(self, x, head: tuple) -> None:
        """P_h: the residents that held hospital h in their head tie at some point."""
        ever = self.ever
        for y in head:
            ever[y].add(x)


def _augment(root, adj, quota, mate, held) -> bool:
    """One augmenting path from ``root`` by depth-first search over hospitals (each
    hospital visited once); explicit stack, so deep instances cannot overflow."""
    seen: set = set()
    parent: dict = {}                                  # hospital -> (resident, prev hosp)
    stack: list = [(root, None)]                       # (resident, hospital it came from)
    while stack:
        r, came = stack.pop()
        for h in adj[r]:
            if h in seen or h == mate.get(r):
                continue
            seen.add(h)
            parent[h] = (r, came)
            if len(held[h]) < quota[h]:
                while h is not None:             # flip the path back to the root
                    rr, prev = parent[h]
                    old = mate.get(rr)
                    if old is not None:
                        held[old].remove(rr)
                    mate[rr] = h
                    held[h].append(rr)
                    h = prev
                return True
            for r2 in held[h]:
                stack.append((r2, h))
    return False


def _critical_tails(st: _ListState, i: int) -> list[tuple[int, int]]:
    """(hospital, tail rank) for each hospital of N(Z) at a ``critical`` step; raises if the
    step is not justified."""
    cap = st.cap
    heads = {r: hd for r in st.lists if (hd := st.head(r))}
    assigned: dict[int, list[int]] = {j: [] for j in range(len(cap))}
    for r, hd in heads.items():
        for h in hd:
            assigned[h].append(r)
    bound: dict[int, list[int]] = {}
    quota: dict[int, int] = {}
    for h, a in assigned.items():
        if not a:
            continue
        tail = st.tail_rank(h)
        if len(a) >= cap[h]:
            kth = sorted(st.rank_h[h][r] for r in a)[cap[h] - 1]
            if tail > kth:
                raise CertificateError(f"step {i}: not quiescent: {st.names_h[h]!r} keeps "
                                       f"residents dominated by {cap[h]} head-tie residents")
        b = a if len(a) <= cap[h] else [r for r in a if st.rank_h[h][r] < tail]
        quota[h] = cap[h] - len(b)
        for r in b:
            bound.setdefault(r, []).append(h)
    adj = {r: hd for r, hd in heads.items() if r not in bound}
    mate = _matching_into(adj, quota)
    frontier = [r for r in adj if r not in mate]
    z, nz = set(frontier), set()
    held: dict[int, list[int]] = {}
    for r, h in mate.items():
        held.setdefault(h, []).append(r)
    while frontier:
        for h in adj[frontier.pop()]:
            if h not in nz:
                nz.add(h)
                for r2 in held.get(h, ()):     # h is full, or the matching is not maximum
                    if r2 not in z:
                        z.add(r2)
                        frontier.append(r2)
    if not z:
        raise CertificateError(f"step {i}: the critical set is empty")
    return [(h, st.tail_rank(h)) for h in sorted(nz)]


def _matching_into(adj: Mapping[int, tuple[int, ...]], quota: Mapping[int, int]
                   ) -> dict[int, int]:
    mate: dict[int, int] = {}
    held: dict[int, list[int]] = {h: [] for h in quota}
    for r in adj:
        _augment(r, adj, quota, mate, held)
    return mate


@SPEC.certificate("stable_matching", proves={q: "exists" for q in QUESTIONS}, keys=())
def check_stable_matching(market: HRMarket, question: str, params, verdict: str, solution,
                          certificate: dict) -> None:
    """The solution is a matching within capacities with no blocking pair of the
    question's notion (an O(L) scan of every admissible pair)."""
    notion = QUESTIONS[question]
    found = blocking_pairs(market, solution, notion)
    if found:
        raise CertificateError(f"witness has {len(found)} {notion}-blocking pair(s), "
                               f"e.g. {found[0]}")


@SPEC.certificate("deletion_log", proves={"super_stable": "none", "strongly_stable": "none"},
                  keys=("steps",))
def check_deletion_log(market: HRMarket, question: str, params, verdict: str, solution,
                       certificate: dict) -> None:
    """No super- / strongly stable matching exists: a replayed list of justified deletions
    ending in a counting contradiction (see :func:`replay_deletion_log`)."""
    replay_deletion_log(market, QUESTIONS[question], certificate)


@SPEC.certificate("blocking_pair", proves={q: "incorrect" for q in QUESTIONS}, keys=("pair",))
def check_blocking_pair(market: HRMarket, question: str, params, verdict: str, solution,
                        certificate: dict) -> None:
    """The audited matching (the solution) is not stable: ``pair`` [resident, hospital]
    blocks it under the question's notion (found by the O(L) scan of
    :func:`blocking_pairs`)."""
    pair = certificate.get("pair")
    if not (isinstance(pair, list) and len(pair) == 2):
        raise CertificateError("a blocking pair is [resident, hospital]")
    if tuple(pair) not in blocking_pairs(market, solution, QUESTIONS[question]):
        raise CertificateError(f"{pair} does not {QUESTIONS[question]}-block the matching")


@SPEC.certificate("not_a_matching", proves={q: "incorrect" for q in QUESTIONS}, keys=())
def check_not_a_matching(market: HRMarket, question: str, params, verdict: str, solution,
                         certificate: dict) -> None:
    """The audited answer (the solution: resident -> hospital, or its list of [resident,
    hospital] pairs) is no matching: an unknown agent, an unacceptable pair, a resident
    assigned twice or a hospital over its capacity."""
    if isinstance(solution, list):
        if not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
                   for p in solution):
            return                               # not a list of pairs naming residents
        residents = [r for r, _ in solution]
        if len(residents) != len(set(residents)):
            return                               # a resident assigned twice
        solution = dict(solution)
    try:
        validate_matching(market, solution)
    except CertificateError:
        return
    raise CertificateError("the audited answer is a valid matching")
