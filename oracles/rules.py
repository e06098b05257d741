"""The voting rules of the combinatorial engines: one table, keyed by the names of the
trusted registry (:mod:`prefcert.formal.rules`), one class per rule registered with
``@engine(name)``.

These are the engines' own twins of the rules' definitions (numpy and closure bitsets,
never the checker's code), so one bug cannot make an engine and the checker agree. A rule
supplies what the engines ask of it:

- elections (:class:`prefcert.oracles.election.Tally`): ``tally(t)`` the fixed ballots'
  scores as plain ints (a pairwise rule: the margin matrix, as rows), ``one_report(t, q,
  w)`` the scores with one report added, on plain ints (the greedy's and w₀'s small
  evaluations pay for no array), ``add(t, reports, w)`` the same with reports added
  (numpy), ``scores(t, s)`` the scores of such a value (Copeland: doubled, from the
  margins), ``report_scores(t, rep)`` the scores with each one report added (the ballot
  space at once), ``placed_score(t, d, below, w)`` d's score when the manipulator ranks
  exactly ``below`` under it (the greedy of Bartholdi, Tovey & Trick); elimination rules
  (IRV) set ``rounds`` and are evaluated by the Tally's rounds;
- incomplete profiles (:mod:`prefcert.oracles.preference_winner`), for the rules of the
  ``winner`` question: ``vote_tally(pos)`` one voter's contribution, ``total(order, pos,
  w)`` the summed contributions of rows of orders, ``final(total)`` the scores;
  ``diff_bound(model, c, d, lower)`` the bound of score(c) − score(d); per-vote rules
  (``per_vote``) also ``vote_min_diff`` and ``extremal`` (a completion attaining it).

Adding a rule: one class here (and its twins in ``formal/rules.py`` and
``encodings/rules.py``).
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from itertools import repeat
from operator import add, itemgetter, le, lt, neg, sub

import numpy as np

from ..formal.preference import PreferenceModel
from ..formal.rules import rule_named
from .preference import closure


class RuleEngine:
    """A rule as the combinatorial engines evaluate it (see the module docstring)."""

    name: str = ""
    #: reports are approval sets (the trusted rule's ballot kind, set at registration)
    approval: bool = False
    #: an elimination rule (IRV), evaluated round by round by the Tally
    rounds: bool = False
    #: scores are computed as score_unit × the score (Copeland: doubled)
    score_unit: int = 1
    #: exact necessary winners by per-vote minimisation (Xia & Conitzer 2011)
    per_vote: bool = False
    #: possible winners by a flow (Betzler & Dorn 2010)
    possible_flow: bool = False

    # elections -------------------------------------------------------------------

    def tally(self, t) -> list:
        raise NotImplementedError(f"{self.name} has no scores")

    def one_report(self, t, q, w: int) -> list[int]:
        raise NotImplementedError(f"{self.name} has no scores")

    def add(self, t, reports: np.ndarray, w: np.ndarray) -> np.ndarray:
        raise NotImplementedError(f"{self.name} has no scores")

    def scores(self, t, s: np.ndarray) -> np.ndarray:
        return s

    def report_scores(self, t, rep: np.ndarray) -> np.ndarray:
        raise NotImplementedError(f"{self.name} has no scores")

    def placed_score(self, t, d: int, below: set, weight: int) -> int:
        raise NotImplementedError(f"the greedy does not apply to {self.name}")

    #: the rule has its own loop of the greedy (:meth:`greedy`)
    own_greedy: bool = False

    def greedy(self, t, c: int, weight: int) -> tuple[list[int] | None, list[int]]:
        """The greedy of one manipulator of ``weight`` for candidate c as the rule's own
        loop on plain ints: (a ranking electing c, []) or (None, the stuck set), the
        placements of the generic loop of :func:`prefcert.oracles.election.greedy_can_win`
        (the unplaced rivals in τ order, the first that does not beat c placed next)
        without a ``placed_score`` call per rival tried. Rules with ``own_greedy``."""
        raise NotImplementedError(f"{self.name} has no loop of its own")

    def report_counts(self, t) -> tuple[list[int], dict[int, tuple[int, ...]]] | None:
        """When the rule counts its ballot space without evaluating every report (a few
        classes of reports with one outcome each, or Borda's points): how many reports
        (one manipulator, weight 1) elect each candidate and, per winner, the first
        report electing it in the ballot space's order (rankings lexicographic; subsets
        by size, then lexicographic), a mapping; None otherwise (every report is
        evaluated)."""
        return None

    def reachable(self, t) -> Sequence[bool] | dict[int, bool] | None:
        """Whether some report (one manipulator, weight 1) elects each candidate, when the
        rule tells it without evaluating every report: the classes' counts of
        :meth:`report_counts` above 0 (Borda: its own test, no count); None otherwise."""
        classes = self.report_counts(t)
        return None if classes is None else [k > 0 for k in classes[0]]

    def report_winners(self, t, rep: np.ndarray) -> np.ndarray:
        """The winner index of each report row (one manipulator, weight 1): the highest
        score, ties to the τ-highest. O(k · m) beyond :meth:`report_scores`."""
        m = t.m
        key = self.report_scores(t, rep) * (m + 1) + (m - t.prio)[None, :]
        return key.argmax(axis=1)

    # incomplete profiles -----------------------------------------------------------

    supports_incomplete: bool = False

    def vote_tally(self, pos: np.ndarray) -> np.ndarray:
        raise NotImplementedError(f"{self.name} is not a rule of incomplete profiles")

    def total(self, order: np.ndarray, pos: np.ndarray, w: np.ndarray) -> np.ndarray:
        raise NotImplementedError(f"{self.name} is not a rule of incomplete profiles")

    def final(self, total: np.ndarray) -> np.ndarray:
        return total

    def diff_bound(self, model: PreferenceModel, c: str, d: str, *, lower: bool) -> int:
        raise NotImplementedError(f"{self.name} is not a rule of incomplete profiles")

    def __repr__(self) -> str:
        return f"<rule engine {self.name}>"


class PerVoteRule(RuleEngine):
    """A rule whose score difference is minimised vote by vote (exact necessary winners):
    ``vote_min_diff(C, c, d)`` for one voter's closure C, ``sum_min_diff(model, c, d)`` the
    same summed over the agents from cached bitsets, ``extremal(model, ag, c, d)`` a
    completion attaining it."""

    per_vote = True
    supports_incomplete = True

    def vote_min_diff(self, C, c: str, d: str) -> int:
        raise NotImplementedError

    def sum_min_diff(self, model: PreferenceModel, c: str, d: str) -> int:
        raise NotImplementedError

    def extremal(self, model: PreferenceModel, ag, c: str, d: str) -> list:
        raise NotImplementedError

    def diff_bound(self, model: PreferenceModel, c: str, d: str, *, lower: bool) -> int:
        """Exact: per-vote minimisation (the upper bound is −min of s(d) − s(c))."""
        if lower:
            return self.sum_min_diff(model, c, d)
        return -self.sum_min_diff(model, d, c)


#: name -> the rule's engine, in the order of registration.
ENGINES: dict[str, RuleEngine] = {}


def engine(name: str):
    """Register the decorated :class:`RuleEngine` subclass as the engines' rule ``name``
    (a name of :data:`prefcert.formal.rules.RULES`)."""
    def register(cls: type[RuleEngine]) -> type[RuleEngine]:
        if name in ENGINES:
            raise ValueError(f"rule engine {name!r} registered twice")
        cls.name = name
        cls.approval = rule_named(name, error=ValueError).approval
        ENGINES[name] = cls()
        return cls
    return register


def rule_engine(name: str) -> RuleEngine:
    """The engines' rule ``name``; ValueError for a name without one."""
    if name not in ENGINES:
        raise ValueError(f"unknown rule {name!r}")
    return ENGINES[name]


# --------------------------------------------------------------------------- shared parts


def ranked_groups(ranking: Sequence[Sequence[str]]) -> Iterator[tuple[Sequence[str], int]]:
    """Each tie group of a ranking (best first) with the number of candidates ranked
    strictly above it. O(len(ranking))."""
    above = 0
    for g in ranking:
        yield g, above
        above += len(g)


#: the (scaled) positions of read-only report arrays (the ballot spaces, built once per
#: m), by (id, scale), with the array itself so the id stays its own
_SPACE_POSITIONS: dict[tuple[int, int, bool], tuple[np.ndarray, np.ndarray]] = {}


def _positions(reports: np.ndarray, scale: int = 1, *, transposed: bool = False
               ) -> np.ndarray:
    """pos[k, x]: the position of candidate x in report row k (rows: indices best first),
    times ``scale`` (``transposed``: the contiguous (m, k) array, whose reductions over the
    candidates run along whole rows — numpy's row-wise argmax over a short axis is slow).
    A read-only array (the m! rankings of a ballot space) is inverted once per (scale,
    layout) and the result kept, read-only too."""
    key = (id(reports), scale, transposed)
    if not reports.flags.writeable:
        hit = _SPACE_POSITIONS.get(key)
        if hit is not None and hit[0] is reports:
            return hit[1]
    k, m = reports.shape
    pos = np.empty_like(reports)
    pos[np.arange(k)[:, None], reports] = np.arange(m) * scale
    if transposed:
        pos = np.ascontiguousarray(pos.T)
    if not reports.flags.writeable and len(_SPACE_POSITIONS) < 32:
        pos.setflags(write=False)
        _SPACE_POSITIONS[key] = (reports, pos)
    return pos


def _bits(model: PreferenceModel) -> tuple:
    """(counts, down, up, idx): per item x, the list over the agents of their closure
    bitsets down[x] / up[x] (agents in model order), for the per-voter sums. Cached."""
    key = ("oracle-voting-bits",)
    if key not in model._cache:
        cl = [closure(model, ag) for ag in model.agents]
        model._cache[key] = ([ag.count for ag in model.agents],
                             {x: [C.down[x] for C in cl] for x in model.items},
                             {x: [C.up[x] for C in cl] for x in model.items},
                             {x: i for i, x in enumerate(model.items)})
    return model._cache[key]


def _forced(model: PreferenceModel, a: str, b: str) -> int:
    """Voters with a ≻ b in every completion (b in the closure below a). O(agents), cached."""
    key = ("oracle-forced", a, b)
    if key not in model._cache:
        counts, down, _, idx = _bits(model)
        bit = 1 << idx[b]
        model._cache[key] = sum(w for w, da in zip(counts, down[a]) if da & bit)
    return model._cache[key]


def point_up_reachable(t) -> list[bool]:
    """Plurality's and approval's reachable winners (one manipulator, weight 1): the
    fixed leader (highest fixed score, τ first) and every x that, a point up, beats it —
    ties the leader's score or is one below and τ-above it; no report elects anyone else
    (the point goes to one candidate, plurality's top, or to those approved, of whom the
    best wins). :meth:`RuleEngine.report_counts`' counts above 0, without them. O(m)."""
    s, prio = t.base_list, t._prio
    lead = t.best(s)
    sl, pl = s[lead], prio[lead]
    low = sl - 1
    return [x == lead or sx >= low and (sx == sl or px < pl)
            for x, (sx, px) in enumerate(zip(s, prio))]


# --------------------------------------------------------------------------- the rules

@engine("plurality")
class Plurality(PerVoteRule):
    """One point to a ballot's single top (a tied top counts for nobody)."""

    possible_flow = True

    def tally(self, t) -> list:
        s, ints = [0] * t.m, t.ints
        for r, n in zip(ints.groups, ints.counts):
            if r and len(r[0]) == 1:
                s[r[0][0]] += n
        return s

    def one_report(self, t, q, w) -> list[int]:
        s = list(t.base_list)
        s[q[0]] += w
        return s

    def add(self, t, reports, w) -> np.ndarray:
        pts = np.zeros((len(w), t.m), dtype=np.int64)
        pts[np.arange(len(w)), reports[:, 0]] = 1
        return t.base + w @ pts

    def report_scores(self, t, rep) -> np.ndarray:
        return t.base[None, :] + (np.arange(t.m)[None, :] == rep[:, :1])

    def report_counts(self, t) -> tuple[list[int], dict[int, tuple[int, ...]]]:
        """A report's winner depends on its top only: m classes of (m − 1)! reports; the
        first report of a class is its top, then the rest ascending (built when looked
        up: the leader's first report has the first top that elects it, itself or one
        that does not win). O(m)."""
        m, s, prio = t.m, t.base_list, t._prio
        size = math.factorial(m - 1)
        lead = t.best(s)                   # the fixed leader: every other top faces it
        sl, pl = s[lead], prio[lead]
        # a top x wins, a point up, when it ties the leader's score or is one below and
        # τ-above it; any other top elects the leader (it stays the highest)
        low = sl - 1
        wins = [x for x, sx in enumerate(s) if sx >= low and (sx == sl or prio[x] < pl)]
        counts = [0] * m
        for x in wins:
            counts[x] = size
        counts[lead] = size * (m - len(wins) + 1)

        def first(w: int) -> tuple[int, ...]:
            if w == lead:
                w = next(x for x in range(m) if x == lead or x not in wins)
            elif w not in wins:
                raise KeyError(w)
            return (w, *range(w), *range(w + 1, m))
        return counts, FirstReports(first)

    def reachable(self, t) -> list[bool]:
        return point_up_reachable(t)

    def placed_score(self, t, d, below, weight) -> int:
        return t.base_list[d] + (weight if len(below) == t.m - 1 else 0)

    own_greedy = True

    def greedy(self, t, c, weight) -> tuple[list[int] | None, list[int]]:
        """c first gets ``weight`` more; a rival below c keeps its fixed score wherever
        it is placed, so the rivals that beat c then are the stuck set (in τ order), and
        without one every order of the rivals below c elects it: τ order. O(m)."""
        s, prio = t.base_list, t._prio
        sc, pc = s[c] + weight, prio[c]    # (c itself, below sc, is never in the set)
        if max(s) >= sc:                   # else no rival reaches c's score
            stuck = [r for r in t.tau_order if s[r] >= sc and (s[r] > sc or prio[r] < pc)]
            if stuck:
                return None, stuck
        rest = t.tau_order.copy()
        rest.remove(c)
        return [c, *rest], []

    def vote_tally(self, pos) -> np.ndarray:
        return (pos == 0).astype(np.int64)

    def total(self, order, pos, w) -> np.ndarray:
        total = np.zeros(order.shape[1], dtype=np.int64)
        np.add.at(total, order[:, 0], w)
        return total

    def vote_min_diff(self, C, c, d) -> int:
        if C.down[c].bit_count() == len(C.items) - 1:
            return 1
        return -1 if C.up[d] == 0 else 0

    def sum_min_diff(self, model, c, d) -> int:
        counts, down, up, idx = _bits(model)
        full, tot = len(idx) - 1, 0
        for w, dc, ud in zip(counts, down[c], up[d]):
            if dc.bit_count() == full:
                tot += w
            elif not ud:
                tot -= w
        return tot

    def extremal(self, model, ag, c, d) -> list:
        C = closure(model, ag)
        if C.up[d] != 0:
            return C.keyed([], [c])
        return C.keyed([d], [c])


@engine("borda")
class Borda(PerVoteRule):
    """|{y : x ≻_b y}| points from a ballot b."""

    def tally(self, t) -> list:
        """Strict full ballots give m − 1 − position, count times: one pass down the
        ranking (a plain loop: measured 2-3x cheaper at m = 5..20 than summing the
        positions by C-level maps and a sort per ballot); other ballots group by
        group."""
        m, ints, s = t.m, t.ints, [0] * t.m
        top = m - 1
        for r, n in zip(ints.groups, ints.counts):
            if len(r) == m:                    # strict and full
                p = top * n
                for g in r:
                    s[g[0]] += p
                    p -= n
                continue
            for g, above in ranked_groups(r):  # |{y : x ≻ y}| = m − above − |g|
                p = n * (m - above - len(g))
                for i in g:
                    s[i] += p
        return s

    def one_report(self, t, q, w) -> list[int]:
        s, top = list(t.base_list), t.m - 1
        for p, x in enumerate(q):
            s[x] += w * (top - p)
        return s

    def add(self, t, reports, w) -> np.ndarray:
        return t.base + w @ (t.m - 1 - _positions(reports))

    def report_scores(self, t, rep) -> np.ndarray:
        return (t.m - 1 + t.base)[None, :] - _positions(rep)

    def report_winners(self, t, rep) -> np.ndarray:
        """The score-then-τ key is (m − 1 + base − pos)·(m + 1) + m − τ, distinct within a
        report; times m plus the candidate's index it still orders the same way and
        names its candidate (key mod m): one subtraction of the reports' scaled
        positions (kept once per ballot space, candidates by rows) and a maximum over the
        candidates. O(k · m)."""
        m = t.m
        key0 = ((m - 1 + t.base) * (m + 1) + (m - t.prio)) * m + np.arange(m)
        return (key0[:, None] - _positions(rep, (m + 1) * m, transposed=True)).max(axis=0) % m

    def report_counts(self, t) -> tuple[list[int], dict[int, tuple[int, ...]]]:
        """Counted by points, not by report: a report gives the points 0..m − 1 once
        each. w wins with P points when every rival y gets at most its cap P − k(y),
        k(y) = base(y) − base(w) + [y τ-above w]; sorting the caps up, the i-th rival
        has the free points up to its cap but the i rivals before it have taken i of
        them, so there are Π (free(cap_i) − i) such reports. Fewer points for w never
        win more often (give w the P points of their holder instead), so P goes down
        from m − 1 to the first count of 0. The first report electing a winner is
        built when asked (:class:`_BordaFirst`). O(m³) (at most m · m products of
        m − 1 factors)."""
        m, s, prio = t.m, t.base_list, t._prio
        counts = [0] * m
        for w in range(m):
            sw, pw = s[w], prio[w]
            # k(y) = s(y) − s(w) + [y τ-above w] for every y, by C-level maps
            ks = sorted(map(add, map(sub, s, repeat(sw)), map(lt, prio, repeat(pw))),
                        reverse=True)
            ks.remove(0)                   # w's own entry (any 0 is the same value)
            if ks and ks[0] > m - 1:       # some rival beats w whatever w gets
                continue
            # with P points for w, the i-th rival has min(P + 1 − k, m) − [k ≤ 0] free
            # points (P itself is free to it exactly when its cap P − k reaches P) − i
            # (each P's factors by C-level maps: no Python step per rival)
            taken = list(map(add, map(le, ks, repeat(0)), itertools.count()))
            for p1 in range(m, 0, -1):     # P + 1
                free = list(map(sub, map(min, map(sub, repeat(p1), ks), repeat(m)), taken))
                if free and min(free) <= 0:
                    break
                counts[w] += math.prod(free)
        return counts, _BordaFirst(t)

    def reachable(self, t) -> dict[int, bool]:
        """:meth:`report_counts`'s count above 0, without the count, each candidate's
        decided on its first look-up (a cross-check reads those the manipulator prefers
        to w*, and w*): w is elected by some report exactly when it is with all m − 1
        points (fewer never win more often), that is when no rival's key exceeds m − 1
        and, the keys sorted down, the i-th rival still has a free point:
        min(m − k, m) − [k ≤ 0] − i > 0. O(m log m) per candidate."""
        m, s, prio = t.m, t.base_list, t._prio

        def reaches(w: int) -> bool:
            sw, pw = s[w], prio[w]
            # (a comprehension and a plain loop: cheaper than the maps and a generator at
            # these sizes)
            ks = sorted([sx - sw + (px < pw) for sx, px in zip(s, prio)], reverse=True)
            ks.remove(0)                   # w's own entry
            if ks and ks[0] > m - 1:
                return False
            for i, k in enumerate(ks):
                if min(m - k, m) - (k <= 0) - i <= 0:
                    return False
            return True
        return FirstReports(reaches)       # (a dict built on look-up, as the reports)

    def placed_score(self, t, d, below, weight) -> int:
        return t.base_list[d] + weight * len(below)

    own_greedy = True

    def greedy(self, t, c, weight) -> tuple[list[int] | None, list[int]]:
        """c first (``weight`` · (m − 1) more); the next place, above the k − 1 other
        unplaced rivals, gives ``weight`` · (k − 1): the first unplaced rival in τ order
        that does not beat c then takes it; none: the unplaced rivals are the stuck set.
        O(m²)."""
        s, prio, m = t.base_list, t._prio, t.m
        sc, pc = s[c] + weight * (m - 1), prio[c]
        left = [r for r in t.tau_order if r != c]
        placed = [c]
        while left:
            p = weight * (len(left) - 1)
            for k, d in enumerate(left):
                sd = s[d] + p
                if sd < sc or (sd == sc and prio[d] > pc):
                    break
            else:
                return None, left
            placed.append(left.pop(k))
        return placed, []

    def vote_tally(self, pos) -> np.ndarray:
        return len(pos) - 1 - pos

    def total(self, order, pos, w) -> np.ndarray:
        return w @ (order.shape[1] - 1 - pos)

    def vote_min_diff(self, C, c, d) -> int:
        if C.above(c, d):
            return 1 + (C.down[c] & C.up[d]).bit_count()
        return C.down[c].bit_count() - (len(C.items) - 1 - C.up[d].bit_count())

    def sum_min_diff(self, model, c, d) -> int:
        counts, down, up, idx = _bits(model)
        full, bd, tot = len(idx) - 1, 1 << idx[d], 0
        for w, dc, ud in zip(counts, down[c], up[d]):
            if dc & bd:
                tot += w * (1 + (dc & ud).bit_count())
            else:
                tot += w * (dc.bit_count() - full + ud.bit_count())
        return tot

    def extremal(self, model, ag, c, d) -> list:
        C = closure(model, ag)
        if not C.above(c, d):
            upd = set(C.members(C.up[d]))
            downc = set(C.members(C.down[c]))
            mid = [x for x in C.items if x not in upd | downc | {c, d}]
            return C.extension([sorted(upd, key=C.idx.get), [d], mid, [c],
                                sorted(downc, key=C.idx.get)])
        between = set(C.members(C.down[c] & C.up[d]))
        downc = set(C.members(C.down[c]))
        first = [x for x in C.items if x not in downc and x != c]
        rest = [x for x in C.items if x in downc and x not in between and x != d]
        return C.extension([first, [c], sorted(between, key=C.idx.get), [d], rest])


class FirstReports(dict):
    """Winner -> the first report electing it (:meth:`RuleEngine.report_counts`), each
    built by ``build(winner)`` on its first look-up (KeyError for a candidate no report
    elects): a label reads one of them, the best winner's, at most."""

    def __init__(self, build) -> None:
        super().__init__()
        self.build = build

    def __missing__(self, w: int) -> tuple[int, ...]:
        out = self[w] = self.build(w)
        return out


class _BordaFirst(dict):
    """Winner -> the first report electing it in lexicographic order (candidate indices
    best first), built on first look-up: position by position the smallest candidate
    that still leaves a completion electing the winner. A completion exists when, with
    the winner given its points (or, unplaced, the most left: more points never hurt
    it), every placed rival stays at or under its cap and the unplaced rivals' caps,
    sorted up, have the i-th at least i (the points left are 0..r − 1). KeyError for a
    candidate no report elects. O(m³) per winner: each try is one pass over the rivals
    in order of key (the caps' order whatever w gets)."""

    def __init__(self, t) -> None:
        super().__init__()
        self.t = t

    def __missing__(self, w: int) -> tuple[int, ...]:
        t = self.t
        m, s, prio = t.m, t.base_list, t._prio
        pw = prio[w]
        key = [s[y] + (prio[y] < pw) for y in range(m)]   # y beats w: key + points > s(w)
        # the rivals by key down: their caps (s(w) − key) up, whatever w gets
        rivals = sorted((y for y in range(m) if y != w), key=key.__getitem__, reverse=True)
        placed = [False] * m
        high = None                        # the most key + points of a placed rival
        got_w = 0                          # w's points, once placed
        report: list[int] = []
        for pos in range(m):
            p = m - 1 - pos                # this place's points; 0..p − 1 are left after
            for x in range(m):
                if placed[x]:
                    continue
                sw = s[w] + (p if x == w else got_w if placed[w] else p - 1)
                h = high if x == w else key[x] + p if high is None else \
                    max(high, key[x] + p)
                if h is not None and h > sw:
                    continue
                i, ok = 0, True            # the unplaced rivals' caps: the i-th ≥ i
                for y in rivals:
                    if y != x and not placed[y]:
                        if key[y] + i > sw:
                            ok = False
                            break
                        i += 1
                if ok:
                    break
            else:
                raise KeyError(w)
            placed[x] = True
            report.append(x)
            if x == w:
                got_w = p
            else:
                high = h
        self[w] = out = tuple(report)
        return out


@engine("approval")
class Approval(RuleEngine):
    """One point per approved candidate."""

    def tally(self, t) -> list:
        s, ints = [0] * t.m, t.ints
        for a, n in zip(ints.approved, ints.counts):
            while a:                           # the approval bitmask's bits
                low = a & -a
                s[low.bit_length() - 1] += n
                a ^= low
        return s

    def one_report(self, t, q, w) -> list[int]:
        s = list(t.base_list)
        for x in q:
            s[x] += w
        return s

    def add(self, t, reports, w) -> np.ndarray:
        return t.base + w @ reports

    def report_scores(self, t, rep) -> np.ndarray:
        return t.base[None, :] + rep

    def report_counts(self, t) -> tuple[list[int], dict[int, tuple[int, ...]]]:
        """With the candidates in order L of (fixed score, τ) best first, a subset S
        elects L[0] when it approves L[0] (a point ahead of everyone else's fixed score)
        or nothing; otherwise its first approved member x = L[i] wins when x, a point up,
        beats L[0] — and no one else can, being below x and unapproved. Those are 2^(m−1)
        subsets with L[0], the empty set, and 2^(m−1−i) with first member L[i]; the first
        subset electing L[0] is the empty one, and any other winner x's is {x}. O(m log m).
        """
        m, s, prio = t.m, t.base_list, t._prio
        # by (fixed score down, τ): the sort compares (−s, τ index) pairs (distinct) at C
        # speed, no key function called per candidate
        order = list(map(itemgetter(2), sorted(zip(map(neg, s), prio, range(m)))))
        top = order[0]
        counts = [0] * m
        counts[top] = 2 ** (m - 1) + 1
        first: dict[int, tuple[int, ...]] = {top: ()}
        st, pt = s[top], prio[top]
        for i in range(1, m):
            x = order[i]                   # wins, a point up, when it beats L[0]
            if s[x] >= st or (s[x] == st - 1 and prio[x] < pt):
                counts[x] = 2 ** (m - 1 - i)
                first[x] = (x,)
            else:                          # then no later L[j] wins either (the order):
                counts[top] += 2 ** (m - i) - 1     # Σ_{j ≥ i} 2^(m−1−j) elect L[0]
                break
        return counts, first

    def reachable(self, t) -> list[bool]:
        return point_up_reachable(t)


@engine("irv")
class InstantRunoff(RuleEngine):
    """Rounds of first-choice votes over the active candidates (the Tally's IRV)."""

    rounds = True


@engine("copeland")
class Copeland(RuleEngine):
    """Pairwise majorities: 2 points a win, 1 a tie (doubled Copeland^½)."""

    score_unit = 2
    supports_incomplete = True

    def tally(self, t) -> list:
        # above[b, x, y] = ballot b puts x strictly above y (unranked tie at the bottom)
        above = t.ranks[:, :, None] < t.ranks[:, None, :]
        base = np.einsum("b,bxy->xy", t.counts, above.astype(np.int64))
        return (base - base.T).tolist()          # margins

    def one_report(self, t, q, w) -> list[int]:
        pos = [0] * t.m
        for p, x in enumerate(q):
            pos[x] = p
        return [self.placed_score(t, d, {y for y in q if pos[y] > pos[d]}, w)
                for d in range(t.m)]

    def add(self, t, reports, w) -> np.ndarray:
        pos = _positions(reports)
        sign = np.where(pos[:, :, None] < pos[:, None, :], 1, -1)
        return t.base + np.einsum("k,kxy->xy", w, sign)

    def scores(self, t, margin: np.ndarray) -> np.ndarray:
        """Doubled Copeland scores from a margin matrix (the diagonal excluded)."""
        pts = 2 * (margin > 0) + (margin == 0)
        return pts.sum(axis=-1) - 1                       # the diagonal (0 margin) adds 1

    def report_scores(self, t, rep) -> np.ndarray:
        pos = _positions(rep)
        sign = np.where(pos[:, :, None] < pos[:, None, :], 1, -1)
        return self.scores(t, t.base[None, :, :] + sign)

    def placed_score(self, t, d, below, weight) -> int:
        """The doubled Copeland score of d when it is above exactly ``below``."""
        tot, row = 0, t.base_list[d]
        for y in range(t.m):
            if y != d:
                mg = row[y] + (weight if y in below else -weight)
                tot += 2 if mg > 0 else 1 if mg == 0 else 0
        return tot

    def vote_tally(self, pos) -> np.ndarray:
        return (pos[:, None] < pos[None, :]).astype(np.int64)

    def total(self, order, pos, w) -> np.ndarray:
        # total[a, b]: voters with a above b, one row at a time
        return np.stack([w @ (pos[:, [a]] < pos).astype(np.int64)
                         for a in range(order.shape[1])])

    def final(self, total) -> np.ndarray:
        """wins − losses of the pairwise margins."""
        return np.sign(total - total.T).sum(axis=1)

    def diff_bound(self, model, c, d, *, lower) -> int:
        """Sound: each pairwise contest at its own extreme (the voters not forced to b ≻ a,
        or those forced to a ≻ b, rank a ≻ b)."""
        v = model.voters

        def point(a: str, b: str, best: bool) -> int:
            n = v - _forced(model, b, a) if best else _forced(model, a, b)
            return int(np.sign(2 * n - v))
        tot = 2 * point(c, d, not lower)
        for x in model.items:
            if x not in (c, d):
                tot += point(c, x, not lower) - point(d, x, lower)
        return tot


def score_order(rule: str, order: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Scores (by item index) of the orders given as rows of item indices, best first,
    row r weighing w[r] voters (engine twin of the rules' ``linear_scores``). O(k·m)
    numpy work (k·m² for Copeland) for k rows."""
    e = rule_engine(rule)
    return e.final(e.total(order, _positions(order), w))


__all__ = ["ENGINES", "RuleEngine", "PerVoteRule", "engine", "ranked_groups", "rule_engine",
           "score_order"]

