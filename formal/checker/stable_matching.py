"""Stable matching (SMTI): the checks of stability and of refutations.

Definitions: Irving 1994 (DAM 48); Manlove 2013, ch. 3. A matching is a dict A-agent ->
B-agent over mutually acceptable pairs; unmatched is worse than any acceptable partner.
Certificate types: ``stable_matching`` (the label's solution is stable), ``deletion_log``
(no super- / strongly stable matching exists), and the two-sided welfare optima
(:mod:`prefcert.formal.checker.welfare`).
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from itertools import chain, islice, repeat
from operator import getitem
from typing import Any
from weakref import WeakKeyDictionary

from ..errors import CertificateError
from ..spec import PREFERENCE_SIDE, STABILITY_QUESTIONS, DomainSpec, instance_schema
from ..stable_matching import CONVENTIONS, NOTIONS, QUESTIONS, IntMarket, Market, parse_market
from . import welfare
from .graphs import maximum_bipartite_matching

SPEC = DomainSpec(
    name="stable_matching",
    parse=parse_market,
    questions={**STABILITY_QUESTIONS, **welfare.questions(two_sided=True)},
    schema=instance_schema(
        "stable_matching",
        {"preferences": {"type": "object", "required": ["A", "B"],
                         "additionalProperties": False,
                         "properties": {"A": PREFERENCE_SIDE, "B": PREFERENCE_SIDE}}},
        ["preferences"], {"enum": sorted(QUESTIONS) + list(welfare.WELFARE)}, CONVENTIONS),
    conventions=CONVENTIONS,
)
welfare.register(SPEC)


def validate_matching(market: Market, matching: object) -> dict[str, str]:
    """Validate a matching (A -> B over admissible pairs); return it or raise CertificateError.

    Read on the market's integer form (``market.ints``): names are looked up in each
    side's index, admissibility in the A-agent's rank dict. O(|matching|)."""
    if not isinstance(matching, dict):
        raise CertificateError(f"a matching must be an object A-agent -> B-agent, got {matching!r:.60}")
    ints = market.ints
    ia, ib, rank_a = ints.a.index, ints.b.index, ints.a.rank
    seen: dict[str, str] = {}
    for x, y in matching.items():
        i = ia.get(x)
        if i is None:
            raise CertificateError(f"{x!r} is not an agent of side A")
        j = ib.get(y) if isinstance(y, str) else None
        if j is None:
            raise CertificateError(f"{x!r} is matched to {y!r}, not an agent of side B")
        if j not in rank_a[i]:
            raise CertificateError(f"pair ({x}, {y}) is not mutually acceptable")
        if y in seen:
            raise CertificateError(f"{y!r} is matched to both {seen[y]!r} and {x!r}")
        seen[y] = x
    return dict(matching)


def blocking_pairs(market: Market, matching: Mapping[str, str], notion: str) -> list[tuple[str, str]]:
    """All pairs (a, b) that block ``matching`` under ``notion`` ∈ {weak, strong, super}.

    Scans every admissible pair, including pairs tied with the current partner and pairs of
    unmatched agents (ALGORITHMS.md §1). Returns pairs in list order. O(L) for total list
    length L, on the integer form (``market.ints``: each A-agent's partner ints with their
    aligned tie indices, B's rank dicts); a matched A-agent's scan stops at the first
    B-agent it ranks below its partner (tie indices never decrease along a list, so no
    later one can block).
    Raises ValueError for an unknown notion and CertificateError for an invalid matching.
    Source: Irving 1994.
    """
    if notion not in NOTIONS:
        raise ValueError(f"unknown stability notion {notion!r} (known: {', '.join(NOTIONS)})")
    m = validate_matching(market, matching)
    inf = float("inf")
    ints = market.ints
    sa, sb = ints.a, ints.b
    rank_a, rank_b, names_a, names_b = sa.rank, sb.rank, sa.names, sb.names
    ia, ib = sa.index, sb.index
    mate_a = [-1] * len(names_a)
    cur_a: list[float] = [inf] * len(names_a)
    cur_b: list[float] = [inf] * len(names_b)
    for x, y in m.items():
        i, j = ia[x], ib[y]
        mate_a[i] = j
        cur_a[i] = rank_a[i][j]
        cur_b[j] = rank_b[j][i]
    out = []
    weak, strong = notion == "weak", notion == "strong"
    for i, lst in enumerate(sa.lists):
        cx, mx = cur_a[i], mate_a[i]
        for y, rxy in zip(lst, sa.ties[i]):    # in list order, so ranks never decrease
            if rxy > cx:
                break             # x strictly prefers its partner: no notion blocks
            if y == mx:
                continue
            if rxy == cx and (weak or (strong and cur_b[y] == 1)):
                continue          # x indifferent: weak needs x better off, strong then
            ryx, cy = rank_b[y][i], cur_b[y]                        # needs y better off
            sx, sy, wy = rxy < cx, ryx < cy, ryx <= cy
            if (notion == "weak" and sx and sy) or (notion == "super" and wy) or \
                    (notion == "strong" and ((sx and wy) or sy)):
                out.append((names_a[i], names_b[y]))
    return out


def replay_deletion_log(market: Market, notion: str, cert: dict) -> None:
    """Replay a refutation of super- or strong stability; raise CertificateError if unsound.

    The log lists deletions from the B-agents' (side B's) mutually acceptable lists; each step
    deletes a suffix of one B-agent's list, so the state is one rank cut per B-agent: (a, b) is
    alive iff rank_b(a) < cut(b). Steps:

    - ``["dominate", b, a]``: b is in the head tie of a's current list; every A-agent strictly
      worse than a on b's list is deleted. Sound for both notions: if a stable M matched b to
      such a', then (a, b) would block M, because a's M-partner is on a's current list (no
      stable matching uses a deleted pair, by induction) and so is ⪯_a b.
    - ``["dominate", b, a1, a2]`` (super only): a1 ≠ a2 both hold b in their head tie; every
      A-agent a' with a' ⪯_b a1 and a' ⪯_b a2 is deleted. If M(b) = a', one of a1, a2 differs
      from a' and super-blocks with b (the multiply-engaged B-agent of Irving's SUPER).
    - ``["critical"]`` (strong only): every A-agent's head-tie B-agents hold it in their current
      tail tie (quiescence); the critical set Z of that engagement graph — the A-agents reachable
      by alternating paths from A-agents left unmatched by a maximum matching — is non-empty; the
      whole current tail tie of every B-agent in N(Z) is deleted (Irving 1994, algorithm
      STRONG; Manlove 1999).

    Conclusion: let P be the B-agents that were in some A-agent's head tie at any point, and S the
    A-agents whose lists end non-empty. Every B-agent of P is matched in every stable matching M
    (else the A-agent that held its in its head tie blocks with its), and M's A-agents lie in S, so
    ``|P| > |S|`` proves that no stable matching exists.

    The state lives in integer arrays of the market's integer form (agents ``0..n-1`` per
    side; the log's names are looked up in each side's index), all in this one function:
    per B-agent ``y`` its rank cut and the length of its alive prefix; per A-agent ``x``
    the span ``[hstart, hstop)`` of its head tie in its list, the tie's index ``hrank``
    (0: the list is empty) and its count of alive entries. A deletion inside a head tie
    decrements the count; only when it reaches zero does the head move on, scanning
    forward (never back), so a replay touches each list entry O(1) times — O(L) for every
    tie structure (strict lists, one big tie, every list one tie). The deleted entries
    found from the cut B-agent's list or from its *holders* (the A-agents whose head tie
    held it when entered), whichever is fewer. The state before any step is made once
    per integer form (:func:`_start`) and copied here; the state after a log's leading
    one-agent ``dominate`` steps is held for the market's next replay, which starts from
    a copy of it when its log starts with the very same steps (:data:`_PREFIX`: SUPER's
    and STRONG's logs share their first round). Each ``critical`` step adds a pass over
    the engagement graph and its maximum matching.
    """
    if notion not in ("super", "strong"):
        raise CertificateError("deletion logs refute super- or strong stability only")
    steps = cert.get("steps")
    if not isinstance(steps, list):
        raise CertificateError("deletion log has no list of steps")
    ints = market.ints
    sa, sb = ints.a, ints.b
    s0 = _START.get(ints)
    if s0 is None:
        s0 = _start(ints)
    mrank, cut0, hstop0, hrank0, holders0, proposed0, nonempty = s0
    lists, ties, rank_a, rank_b, b_lists, b_ties = sa.lists, sa.ties, sa.rank, sb.rank, \
        sb.lists, sb.ties
    ia, ib = sa.index, sb.index
    first = 0                         # the steps before it: replayed already
    held = _PREFIX.pop(ints, None)
    if held is not None and steps.__class__ is list and _same_steps(steps, held[0]):
        first = len(held[0])          # the state after them: a copy of the one held
        cut, end, hstart, hstop, live, hrank, holders, proposed, nonempty = \
            _copy_state(held[1])
    else:
        cut = cut0.copy()
        end = list(map(len, b_lists))
        hstart = [0] * len(lists)
        hstop = hstop0.copy()
        live = hstop0.copy()          # nothing deleted yet: every head entry alive
        hrank = hrank0.copy()
        holders = list(map(list.copy, holders0))
        proposed = proposed0.copy()
    leading = not first and steps.__class__ is list   # in the leading one-agent
    stale: list[int] = []                             # dominate steps, whose state is held
    for i, step in enumerate(islice(steps, first, None), first):
        if step.__class__ is not list or not step:
            raise CertificateError(f"step {i}: malformed {step!r:.60}")
        kind, n = step[0], len(step)
        if leading and not (n == 3 and kind == "dominate"):
            leading = False           # the first other step: the state before it held
            if i:
                _hold(ints, steps, i, (cut, end, hstart, hstop, live, hrank, holders,
                                       proposed, nonempty))
        if n == 3 and kind == "dominate":      # the common step: y, then one A-agent
            y, x = step[1], step[2]
            j = ib.get(y) if y.__class__ is str else None
            if j is None:
                raise CertificateError(f"step {i}: malformed {step!r:.60}")
            k = ia.get(x) if x.__class__ is str else None   # y in x's head tie: of x's
            if k is None or rank_a[k].get(j) != hrank[k] or \
                    (r := rank_b[j][k]) >= cut[j]:        # head rank (0: no list), alive
                raise CertificateError(f"step {i}: {y!r} is not in the head tie of {x!r}")
            cuts: Any = ((j, r + 1),)
        elif n == 4 and kind == "dominate" and notion == "super":
            y = step[1]
            j = ib.get(y) if y.__class__ is str else None
            if j is None or step[2] == step[3]:
                raise CertificateError(f"step {i}: malformed {step!r:.60}")
            rby = rank_b[j]
            c = cut[j]
            worst = 0
            for x in step[2:]:       # y in x's head tie, as above
                k = ia.get(x) if x.__class__ is str else None
                if k is None or rank_a[k].get(j) != hrank[k] or (r := rby[k]) >= c:
                    raise CertificateError(f"step {i}: {y!r} is not in the head tie of {x!r}")
                if r > worst:
                    worst = r
            cuts = ((j, worst),)
        elif n == 1 and kind == "critical" and notion == "strong":
            cuts = _critical_tails(ints, mrank, cut, end, hstart, hstop, hrank, i)
        else:
            raise CertificateError(f"step {i}: not a valid {notion} step: {step!r:.60}")
        for y, c in cuts:           # delete every A-agent of rank >= c from y's list
            old = cut[y]
            if c >= old:
                continue
            cut[y] = c
            lst, e = b_lists[y], end[y]
            k = end[y] = bisect_left(b_ties[y], c, 0, e)   # tie indices ascend along lst
            hold = holders[y]
            if e - k < len(hold):    # the deleted entries are fewer: read them
                for x in lst[k:e]:
                    if hrank[x] == rank_a[x][y]:
                        live[x] -= 1
                        if not live[x]:
                            stale.append(x)
                continue
            keep = []
            rby = rank_b[y]
            for x in hold:
                if hrank[x] == rank_a[x][y]:   # y is (still) in x's head tie
                    r = rby[x]
                    if r < c:
                        keep.append(x)
                    elif r < old:              # alive until this cut
                        live[x] -= 1
                        if not live[x]:
                            stale.append(x)
            holders[y] = keep
        for x in stale:              # an emptied head moves on to its next tie holding
            lst, mine = lists[x], mrank[x]           # an alive entry, which is recorded
            if mine is None:                         # (x's ranks: made on first use)
                mine = mrank[x] = list(map(getitem, map(rank_b.__getitem__, lst),
                                           repeat(x)))
            i2, m = hstop[x], len(lst)
            while i2 < m and mine[i2] >= cut[lst[i2]]:
                i2 += 1
            if i2 == m:
                hstart[x] = hstop[x] = m
                hrank[x] = 0
                nonempty -= 1
                continue
            t = ties[x]
            r = t[i2]
            j2, alive = i2, 0
            while j2 < m and t[j2] == r:
                y = lst[j2]
                if mine[j2] < cut[y]:
                    alive += 1
                    holders[y].append(x)
                    proposed.add(y)
                j2 += 1
            hstart[x], hstop[x], live[x], hrank[x] = i2, j2, alive, r
        stale.clear()
    if leading and steps:             # every step a one-agent dominate step
        _hold(ints, steps, len(steps), (cut, end, hstart, hstop, live, hrank, holders,
                                        proposed, nonempty))
    p = len(proposed)
    if p <= nonempty:
        raise CertificateError(f"after the log, {p} B-agents were proposed to but "
                               f"{nonempty} A-agents keep non-empty lists: no contradiction")


#: Per integer form, the replay state after the leading one-agent ``dominate`` steps of a
#: log (``(steps, state)``: those steps, as replayed, and the state after them), held by
#: the replay that made it for the next replay of the market, which takes it (a copy)
#: when its log starts with the same steps: the logs of SUPER and STRONG on one market
#: share their first round (:func:`prefcert.oracles.stable_matching.first_round`), whose
#: steps are ``["dominate", b, a]`` and whose replay checks and deletes the same for both
#: notions. Taken by the next replay of the market either way; dropped with the market.
_PREFIX: WeakKeyDictionary[IntMarket, tuple[list[list[str]], tuple]] = WeakKeyDictionary()

_LIST_TYPE, _STR_TYPE = {list}, {str}


def _hold(ints: IntMarket, steps: list, k: int, state: tuple) -> None:
    """Hold ``state`` (the replay's after ``steps[:k]``, every one a one-agent
    ``dominate`` step the replay took: a list of three ``str``) in :data:`_PREFIX`, a copy
    of each, with a copy of those steps."""
    _PREFIX[ints] = ([["dominate", s[1], s[2]] for s in steps[:k]], _copy_state(state))


def _same_steps(steps: list, held: list[list[str]]) -> bool:
    """Whether ``steps`` starts with the steps ``held``: as many lists (exactly
    ``list``) of strings (exactly ``str``, so the comparison is of their characters),
    equal to them. O(their length)."""
    head = steps[:len(held)]
    return len(head) == len(held) and set(map(type, head)) <= _LIST_TYPE and \
        set(map(type, chain.from_iterable(head))) <= _STR_TYPE and head == held


def _copy_state(state: tuple) -> tuple:
    """A copy of a replay state ``(cut, end, hstart, hstop, live, hrank, holders,
    proposed, nonempty)`` that shares nothing changeable with it."""
    cut, end, hstart, hstop, live, hrank, holders, proposed, nonempty = state
    return (cut.copy(), end.copy(), hstart.copy(), hstop.copy(), live.copy(), hrank.copy(),
            list(map(list.copy, holders)), proposed.copy(), nonempty)


#: The state of a replay before any step, per integer form (made once for all the replays
#: of one market, only read: each replay copies it); dropped with the market.
_START: WeakKeyDictionary[IntMarket, tuple] = WeakKeyDictionary()


def _start(ints: IntMarket) -> tuple:
    """The state of :func:`replay_deletion_log` before any step, cached in :data:`_START`:
    ``(mrank, cut, hstop, hrank, holders, proposed, nonempty)`` — A-agent ``i``'s rank
    on the list of each B-agent of its list (aligned with that list, or None until a
    replay first reads it: :func:`_mutual_ranks`), every B-agent's full cut (its number of ties + 1), each
    A-agent's head tie (its first: its end ``hstop``, its tie index ``hrank``, 0 for an
    empty list), each B-agent's holders (the A-agents whose first tie holds it, in
    order), the B-agents of some first tie and the number of non-empty lists. O(L)."""
    a, b = ints.a, ints.b
    holders: list[list[int]] = [[] for _ in b.lists]
    hstop, hrank = [], []
    proposed: set[int] = set()
    for lst, t in zip(a.lists, a.ties):
        if not lst:
            hstop.append(0)
            hrank.append(0)
            continue
        r = t[0]
        j = bisect_right(t, r)
        hstop.append(j)
        hrank.append(r)
        x = len(hstop) - 1
        for y in lst[:j]:
            holders[y].append(x)
        proposed.update(lst[:j])
    out = (_mutual_ranks(ints), [t + 1 for t in b.nties], hstop, hrank, holders, proposed,
           sum(1 for h in hrank if h))
    _START[ints] = out
    return out


#: Up to this many mutually acceptable pairs (and in a market whose B-lists hold less
#: than a quarter of all pairs), :func:`_mutual_ranks` leaves every row to be made on
#: first use: a replay reads the rows of the A-agents whose head tie it moves on, often
#: few of them in a small market (a market of n = 10 with complete lists: about 18 µs
#: a market made eagerly).
EAGER_RANKS = 4096


def _mutual_ranks(ints: IntMarket) -> list[list[int] | None]:
    """A-agent ``i`` -> its rank on the list of each B-agent of its list, aligned with
    that list (``mrank[i][k] = b.rank[a.lists[i][k]][i]``): a replay tests whether an
    entry is alive on these arrays, read in list order. When B's lists hold more than
    :data:`EAGER_RANKS` pairs and at least a quarter of all pairs, B's rank dicts are
    first laid out as dense arrays indexed by A-agent (one C-level pass over each dict in
    key order, read while it is in cache), so the transposition reads small arrays rather
    than a rank dict per entry; else every row is None, made from the rank dicts by the
    replay when it first reads it (the same row). O(L) (the dense arrays have at most 4 L
    cells), O(A) for rows left to be made."""
    a, b = ints.a, ints.b
    na = len(a.names)
    entries = sum(map(len, b.lists))
    if entries <= EAGER_RANKS or 4 * entries < na * len(b.names):
        return [None] * na
    cells = range(na)
    dense = [list(map(r.get, cells)) for r in b.rank]
    return [list(map(getitem, map(dense.__getitem__, lst), repeat(i)))
            for i, lst in enumerate(a.lists)]


def _critical_tails(ints: IntMarket, mrank: list[list[int] | None], cut: list[int], end: list[int],
                    hstart: list[int], hstop: list[int], hrank: list[int], i: int
                    ) -> list[tuple[int, int]]:
    """(B-agent, tail rank) for each B-agent of N(Z) at a ``critical`` step (the state's
    arrays as in :func:`replay_deletion_log`); raises if unjustified. O(size of the
    engagement graph) plus its maximum matching."""
    a, b = ints.a, ints.b
    lists, b_ties, rank_b = a.lists, b.ties, b.rank
    adj = {}
    for x, h in enumerate(hrank):
        if not h:
            continue
        lst, mine = lists[x], mrank[x]
        ws = []
        for k in range(hstart[x], hstop[x]):
            y = lst[k]
            r = mine[k] if mine is not None else rank_b[y][x]    # (a row not made yet)
            if r < cut[y]:
                if r != b_ties[y][end[y] - 1]:
                    raise CertificateError(f"step {i}: not quiescent: {a.names[x]!r} is not "
                                           f"in the tail tie of {b.names[y]!r}")
                ws.append(y)
        if ws:
            adj[x] = ws
    mate = maximum_bipartite_matching(adj)
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
    return [(y, b_ties[y][end[y] - 1]) for y in nz]


@SPEC.certificate("stable_matching", proves={q: "exists" for q in QUESTIONS}, keys=())
def check_stable_matching(market: Market, question: str, params, verdict: str, solution,
                          certificate: dict) -> None:
    """The solution is a matching with no blocking pair of the question's notion (an O(L)
    scan of every admissible pair)."""
    notion = QUESTIONS[question]
    found = blocking_pairs(market, solution, notion)
    if found:
        raise CertificateError(f"witness has {len(found)} {notion}-blocking pair(s), "
                               f"e.g. {found[0]}")


@SPEC.certificate("blocking_pair", proves={q: "incorrect" for q in QUESTIONS}, keys=("pair",))
def check_blocking_pair(market: Market, question: str, params, verdict: str, solution,
                        certificate: dict) -> None:
    """The audited matching (the solution) is not stable: ``pair`` [a, b] blocks it under
    the question's notion (found by the O(L) scan of :func:`blocking_pairs`)."""
    pair = certificate.get("pair")
    if not (isinstance(pair, list) and len(pair) == 2):
        raise CertificateError("a blocking pair is [a, b]")
    if tuple(pair) not in blocking_pairs(market, solution, QUESTIONS[question]):
        raise CertificateError(f"{pair} does not {QUESTIONS[question]}-block the matching")


@SPEC.certificate("not_a_matching", proves={q: "incorrect" for q in
                                            (*QUESTIONS, *welfare.WELFARE)}, keys=())
def check_not_a_matching(market: Market, question: str, params, verdict: str, solution,
                         certificate: dict) -> None:
    """The audited answer (the solution) is no matching of the market: an unknown agent,
    a pair that is not mutually acceptable, or an agent matched twice."""
    try:
        validate_matching(market, solution)
    except CertificateError:
        return
    raise CertificateError("the audited answer is a valid matching")


@SPEC.certificate("deletion_log", proves={"super_stable": "none", "strongly_stable": "none"},
                  keys=("steps",))
def check_deletion_log(market: Market, question: str, params, verdict: str, solution,
                       certificate: dict) -> None:
    """No super- / strongly stable matching exists: a replayed list of justified deletions
    ending in a counting contradiction (see :func:`replay_deletion_log`)."""
    replay_deletion_log(market, QUESTIONS[question], certificate)
