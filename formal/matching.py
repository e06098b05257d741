"""Two-sided one-to-one markets with ties and incomplete lists (SMTI): model, stability
definitions and certificate checks.

A market has side A (proposers, "men") and side B ("women"); each agent has a weak order
over a subset of the other side. A pair is admissible only when each ranks the other
(mutual acceptability); one-sided entries are dropped. A matching is a dict A-agent ->
B-agent over admissible pairs; agents absent from it are unmatched, and being unmatched is
worse than any acceptable partner. Definitions: Irving 1994 (DAM 48); Manlove 2013, ch. 3.

Trusted: imports no solver and nothing from ``oracles`` or ``encodings``.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from .errors import CertificateError, InstanceError
from .preferences import WeakOrder, parse_weak_order

NOTIONS = ("weak", "strong", "super")
QUESTIONS = {"weakly_stable": "weak", "strongly_stable": "strong", "super_stable": "super"}


@dataclass(frozen=True)
class Market:
    """An SMTI market. ``a``/``b``: agent -> WeakOrder over the other side, as given.

    ``pa``/``pb``: the same orders restricted to mutually acceptable partners (derived);
    every algorithm and definition uses these.
    """

    a: Mapping[str, WeakOrder]
    b: Mapping[str, WeakOrder]
    pa: Mapping[str, WeakOrder] = field(init=False, repr=False, compare=False)
    pb: Mapping[str, WeakOrder] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        def restrict(prefs, other):
            ranks = {y: o.rank for y, o in other.items()}
            out = {}
            for x, o in prefs.items():
                if all(x in ranks[y] for y in o.rank):
                    out[x] = o
                    continue
                ties = (tuple(y for y in tie if x in ranks[y]) for tie in o.ties)
                out[x] = WeakOrder(tuple(t for t in ties if t))
            return out
        object.__setattr__(self, "pa", restrict(self.a, self.b))
        object.__setattr__(self, "pb", restrict(self.b, self.a))

    @property
    def size(self) -> int:
        """max(|A|, |B|): the "n a side" used to pick engines."""
        return max(len(self.a), len(self.b))

    def edges(self) -> Iterator[tuple[str, str]]:
        """Admissible pairs (a, b), in a's list order."""
        for x, o in self.pa.items():
            for y in o.items:
                yield x, y

    def to_json(self) -> dict:
        return {"A": {x: o.to_json() for x, o in self.a.items()},
                "B": {y: o.to_json() for y, o in self.b.items()}}


def parse_market(data: dict) -> Market:
    """Parse ``{"preferences": {"A": {...}, "B": {...}}}`` (DESIGN.md) into a Market.

    Raises :class:`InstanceError` naming the agent and value for: missing sides, an agent
    on both sides, a list naming an agent not on the other side, an item twice, an empty tie
    group. O(total list length).
    """
    prefs = data.get("preferences")
    if not isinstance(prefs, dict) or set(prefs) != {"A", "B"}:
        raise InstanceError("'preferences' must be an object with exactly the sides 'A' and 'B'",
                            value=sorted(prefs) if isinstance(prefs, dict) else prefs)
    for side in "AB":
        if not isinstance(prefs[side], dict):
            raise InstanceError(f"side {side} must map agents to lists", value=prefs[side])
    both = set(prefs["A"]) & set(prefs["B"])
    if both:
        raise InstanceError("agent appears on both sides", agent=sorted(both)[0])
    a = {x: parse_weak_order(lst, agent=x, known=prefs["B"]) for x, lst in prefs["A"].items()}
    b = {y: parse_weak_order(lst, agent=y, known=prefs["A"]) for y, lst in prefs["B"].items()}
    return Market(a, b)


def _is_matching(market: Market, matching: object) -> dict[str, str]:
    """Validate a matching (A -> B over admissible pairs); return it or raise CertificateError."""
    if not isinstance(matching, dict):
        raise CertificateError(f"a matching must be an object A-agent -> B-agent, got {matching!r:.60}")
    seen: dict[str, str] = {}
    for x, y in matching.items():
        if x not in market.a:
            raise CertificateError(f"{x!r} is not an agent of side A")
        if not isinstance(y, str) or y not in market.b:
            raise CertificateError(f"{x!r} is matched to {y!r}, not an agent of side B")
        if y not in market.pa[x]:
            raise CertificateError(f"pair ({x}, {y}) is not mutually acceptable")
        if y in seen:
            raise CertificateError(f"{y!r} is matched to both {seen[y]!r} and {x!r}")
        seen[y] = x
    return dict(matching)


def blocking_pairs(market: Market, matching: Mapping[str, str], notion: str) -> list[tuple[str, str]]:
    """All pairs (a, b) that block ``matching`` under ``notion`` ∈ {weak, strong, super}.

    Scans every admissible pair, including pairs tied with the current partner and pairs of
    unmatched agents (ALGORITHMS.md §1). Returns pairs in list order. O(L) for total list
    length L. Raises ValueError for an unknown notion and CertificateError for an invalid
    matching. Source: Irving 1994.
    """
    if notion not in NOTIONS:
        raise ValueError(f"unknown stability notion {notion!r} (known: {', '.join(NOTIONS)})")
    m = _is_matching(market, matching)
    inf = float("inf")
    rank_a = {x: o.rank for x, o in market.pa.items()}
    rank_b = {y: o.rank for y, o in market.pb.items()}
    cur_a = {x: rank_a[x][m[x]] if x in m else inf for x in rank_a}
    cur_b = dict.fromkeys(rank_b, inf)
    for x, y in m.items():
        cur_b[y] = rank_b[y][x]
    out = []
    for x, ra in rank_a.items():
        cx, mx = cur_a[x], m.get(x)
        for y, rxy in ra.items():
            if rxy > cx or y == mx:
                continue          # x strictly prefers his partner: no notion blocks
            ryx, cy = rank_b[y][x], cur_b[y]
            sx, sy, wy = rxy < cx, ryx < cy, ryx <= cy
            if (notion == "weak" and sx and sy) or (notion == "super" and wy) or \
                    (notion == "strong" and ((sx and wy) or sy)):
                out.append((x, y))
    return out


def check_certificate(market: Market, question: str, params, verdict: str, solution,
                      certificate: dict) -> None:
    """Verify a stable-matching certificate; raise CertificateError naming the failing step.

    - ``exists`` with ``{"type": "stable_matching"}``: ``solution`` is a valid matching with
      no blocking pair of the question's notion.
    - ``none`` with ``{"type": "deletion_log"}``: see :func:`check_deletion_log`.
    """
    notion = QUESTIONS.get(question)
    if notion is None:
        raise CertificateError(f"unknown stable-matching question {question!r}")
    kind = certificate.get("type")
    if verdict == "exists" and kind == "stable_matching":
        found = blocking_pairs(market, solution, notion)
        if found:
            raise CertificateError(f"witness has {len(found)} {notion}-blocking pair(s), e.g. {found[0]}")
        return
    if verdict == "none" and kind == "deletion_log":
        check_deletion_log(market, notion, certificate)
        return
    raise CertificateError(f"certificate {kind!r} does not prove {verdict!r} for {question}")


def check_deletion_log(market: Market, notion: str, cert: dict) -> None:
    """Replay a refutation of super- or strong stability; raise CertificateError if unsound.

    The log lists deletions from the women's (side B's) mutually acceptable lists; each step
    deletes a suffix of one woman's list, so the state is one rank cut per woman: (a, b) is
    alive iff rank_b(a) < cut(b). Steps:

    - ``["dominate", b, a]``: b is in the head tie of a's current list; every man strictly
      worse than a on b's list is deleted. Sound for both notions: if a stable M matched b to
      such a', then (a, b) would block M, because a's M-partner is on a's current list (no
      stable matching uses a deleted pair, by induction) and so is ⪯_a b.
    - ``["dominate", b, a1, a2]`` (super only): a1 ≠ a2 both hold b in their head tie; every
      man a' with a' ⪯_b a1 and a' ⪯_b a2 is deleted. If M(b) = a', one of a1, a2 differs
      from a' and super-blocks with b (the multiply-engaged woman of Irving's SUPER).
    - ``["critical"]`` (strong only): every man's head-tie women hold him in their current
      tail tie (quiescence); the critical set Z of that engagement graph — the men reachable
      by alternating paths from men left unmatched by a maximum matching — is non-empty; the
      whole current tail tie of every woman in N(Z) is deleted (Irving 1994, algorithm
      STRONG; Manlove 1999).

    Conclusion: let P be the women that were in some man's head tie at any point, and S the
    men whose lists end non-empty. Every woman of P is matched in every stable matching M
    (else the man that held her in his head tie blocks with her), and M's men lie in S, so
    ``|P| > |S|`` proves that no stable matching exists. O(L) for super; each ``critical``
    step adds a bipartite matching of the engagement graph.
    """
    if notion not in ("super", "strong"):
        raise CertificateError("deletion logs refute super- or strong stability only")
    steps = cert.get("steps")
    if not isinstance(steps, list):
        raise CertificateError("deletion log has no list of steps")
    st = _ListState(market)
    proposed: set[str] = set()
    for x in st.lists:
        proposed.update(st.head(x))
    head_rank = {x: st.rank_a[x][h[0]] for x in st.lists if (h := st.head(x))}
    for i, step in enumerate(steps):
        if not isinstance(step, list) or not step:
            raise CertificateError(f"step {i}: malformed {step!r:.60}")
        if step[0] == "dominate" and len(step) in (3, 4) and (len(step) == 3 or notion == "super"):
            y, wit = step[1], step[2:]
            if y not in st.rank_b or len(set(wit)) != len(wit):
                raise CertificateError(f"step {i}: malformed {step!r:.60}")
            for x in wit:
                if x not in st.rank_a or y not in st.head(x):
                    raise CertificateError(f"step {i}: {y!r} is not in the head tie of {x!r}")
            r = [st.rank_b[y][x] for x in wit]
            removed = [(x, y) for x in st.cut_to(y, r[0] + 1 if len(r) == 1 else max(r))]
        elif step == ["critical"] and notion == "strong":
            removed = [(x, y) for y, t in _critical_tails(st, i) for x in st.cut_to(y, t)]
        else:
            raise CertificateError(f"step {i}: not a valid {notion} step: {step!r:.60}")
        for x, y in removed:    # a man's head changes only when his head tie loses a woman
            if head_rank.get(x) == st.rank_a[x][y]:
                h = st.head(x)
                proposed.update(h)
                head_rank[x] = st.rank_a[x][h[0]] if h else None
    s = sum(1 for x in st.lists if st.head(x))
    if len(proposed) <= s:
        raise CertificateError(f"after the log, {len(proposed)} women were proposed to but "
                               f"{s} men keep non-empty lists: no contradiction")


class _ListState:
    """Current lists during a replay: per woman a rank cut; per man a head pointer."""

    def __init__(self, market: Market):
        self.lists = {x: list(o.items) for x, o in market.pa.items()}
        self.rank_a = {x: o.rank for x, o in market.pa.items()}
        self.rank_b = {y: o.rank for y, o in market.pb.items()}
        self.women = {y: list(o.items) for y, o in market.pb.items()}  # sorted by rank
        self.cut = {y: len(o.ties) + 1 for y, o in market.pb.items()}
        self.end = {y: len(o.items) for y, o in market.pb.items()}     # alive prefix length
        self.ptr = {x: 0 for x in self.lists}

    def head(self, x: str) -> list[str]:
        lst, i, rb, cut = self.lists[x], self.ptr[x], self.rank_b, self.cut
        while i < len(lst) and rb[lst[i]][x] >= cut[lst[i]]:
            i += 1
        self.ptr[x] = i
        if i == len(lst):
            return []
        r, rank = self.rank_a[x][lst[i]], self.rank_a[x]
        out = []
        while i < len(lst) and rank[lst[i]] == r:
            if rb[lst[i]][x] < cut[lst[i]]:
                out.append(lst[i])
            i += 1
        return out

    def tail_rank(self, y: str) -> int | None:
        e = self.end[y]
        return self.rank_b[y][self.women[y][e - 1]] if e else None

    def cut_to(self, y: str, cut: int) -> list[str]:
        """Delete every man of rank >= cut from y's list; return the men deleted."""
        if cut >= self.cut[y]:
            return []
        self.cut[y] = cut
        lst, e, rank = self.women[y], self.end[y], self.rank_b[y]
        removed = []
        while e and rank[lst[e - 1]] >= cut:
            e -= 1
            removed.append(lst[e])
        self.end[y] = e
        return removed


def _critical_tails(st: _ListState, i: int) -> list[tuple[str, int]]:
    """(woman, tail rank) for each woman of N(Z) at a ``critical`` step; raises if unjustified."""
    adj = {x: h for x in st.lists if (h := st.head(x))}
    for x, ws in adj.items():
        for y in ws:
            if st.rank_b[y][x] != st.tail_rank(y):
                raise CertificateError(f"step {i}: not quiescent: {x!r} is not in the tail "
                                       f"tie of {y!r}")
    mate = _maximum_matching(adj)
    matched = set(mate.values())
    frontier = [x for x in adj if x not in matched]
    z, nz = set(frontier), set()
    while frontier:
        for y in adj[frontier.pop()]:
            if y not in nz:
                nz.add(y)
                x2 = mate[y]          # matched, or the matching would not be maximum
                if x2 not in z:
                    z.add(x2)
                    frontier.append(x2)
    if not z:
        raise CertificateError(f"step {i}: the critical set is empty")
    return [(y, st.tail_rank(y)) for y in nz]


def _maximum_matching(adj: Mapping[str, list[str]]) -> dict[str, str]:
    """Maximum bipartite matching (woman -> man) by augmenting paths; O(V·E)."""
    mate: dict[str, str] = {}
    for root in adj:
        seen: set[str] = set()
        stack = [(root, iter(adj[root]))]
        via: list[str] = []                      # women on the current path
        while stack:
            x, it = stack[-1]
            y = next((y for y in it if y not in seen), None)
            if y is None:
                stack.pop()
                if via:
                    via.pop()
                continue
            seen.add(y)
            via.append(y)
            if y not in mate:
                for (xx, _), yy in zip(stack, via):
                    mate[yy] = xx
                break
            stack.append((mate[y], iter(adj[mate[y]])))
    return mate
