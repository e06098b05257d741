"""Election engines: the rules (numpy, an engine twin of the checker's definitions),
winner determination, and single-voter and coalitional manipulation.

- :func:`enumerate_reports`: the oracle of the benchmark — the outcome of every report of
  the ballot space (m! rankings or 2^m subsets), giving w₀, w*, |M|, |B*| and the outcome
  counts: by classes of reports with one outcome where the rule has them (plurality: the
  top; approval: the first approved candidate in order of fixed score; IRV: the prefixes
  up to the first surviving top), Borda by points (the reports giving each rival at most
  its cap), else every report at once (vectorised, Copeland).
- :func:`greedy_reachable`: the greedy of Bartholdi, Tovey & Trick (1989) for one
  manipulator. Exact for plurality, Borda, Copeland (any tie value) and approval: each
  candidate's score depends only on — and grows with — the set of candidates the
  manipulator ranks below it, c first is best for c, and the winner is the highest score
  with a fixed tie-breaking order. When it gets stuck, the unplaced set is the stuck set
  the checker replays.
- :func:`irv_search`: exhaustive search over the states (active set, manipulator's current
  top) for IRV, where one-voter manipulation is NP-hard (Bartholdi & Orlin 1991); memoised
  on the state, so its cost is the number of distinct states (small unless many rounds are
  decided by one vote).
- Coalitions: :func:`dominant_coalition` (plurality, approval: exact),
  :func:`reverse_borda` (Zuckerman, Procaccia & Rosenschein 2009: at most one manipulator
  more than needed), :func:`borda_bound` (a counting bound), :func:`coalition_brute_force`.

Everything here recomputes the rules from :class:`prefcert.formal.election.Election` with
its own code — each rule's part in the engines' table :mod:`prefcert.oracles.rules` — the
checker's twin is in :mod:`prefcert.formal.checker.election` and
:mod:`prefcert.formal.rules`.
"""
from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter

import numpy as np

from ..formal.election import Election
from ..formal.rules import rule_named
from .rules import rule_engine


def _approval(rule: str) -> bool:
    """Reports are subsets of the candidates (the rule's ballot kind)."""
    return rule_named(rule, error=ValueError).approval


# --------------------------------------------------------------------------- the rules

class Tally:
    """A rule on an election's ballots (engine twin of the checker's ``Count``).

    Candidates are indices 0..m−1 in the order of ``e.candidates``. ``prio[x]`` is x's τ
    index (0 = best). Score rules keep ``base_list``, the fixed ballots' scores as plain
    ints (Copeland: the margin matrix as rows), computed by the rule's engine
    (:mod:`prefcert.oracles.rules`), and evaluate one report on plain ints
    (:meth:`one_winner`); the numpy arrays — ``base``, the ballot classes as rank arrays
    ``ranks`` (group index per candidate, ``m`` for unranked), ``approved``, ``counts`` —
    are built on first use (the ballot space at once, coalitions, IRV), so a small
    election's greedy pays for no array. IRV caches the fixed ballots' tallies per active
    bitmask."""

    def __init__(self, e: Election, rule: str):
        #: the election on integers (:class:`~prefcert.formal.election.ElectionInts`):
        #: the index, τ priorities and the ballots' index groups, rank arrays, approval
        #: bitmasks and counts, built with the parse
        self.ints = ints = e.ints
        self.e, self.rule, self.m = e, rule, ints.m
        self.engine = engine = rule_engine(rule)
        self.approval = engine.approval
        self.idx = ints.index
        self._prio: list[int] = list(ints.prio)
        #: the candidate indices in τ order (best first)
        self.tau_order: list[int] = list(ints.tau_order)
        self._irv: dict[int, np.ndarray] = {}
        self.exhaust = e.conventions.get("overvote") == "exhaust"
        if not engine.rounds:
            self.base_list: list = engine.tally(self)

    @functools.cached_property
    def prio(self) -> np.ndarray:
        return np.array(self._prio, dtype=np.int64)

    @functools.cached_property
    def ranks(self) -> np.ndarray:
        """(classes, m): each ballot's group index per candidate, ``m`` for unranked."""
        return np.array(self.ints.ranks, dtype=np.int64).reshape(-1, self.m)

    @functools.cached_property
    def approved(self) -> np.ndarray:
        """(classes, m): each ballot's approval set as a 0/1 row."""
        m = self.m
        return np.array([[(a >> i) & 1 for i in range(m)] for a in self.ints.approved],
                        dtype=np.int64).reshape(-1, m)

    @functools.cached_property
    def counts(self) -> np.ndarray:
        return np.array(self.ints.counts, dtype=np.int64)

    @functools.cached_property
    def base(self) -> np.ndarray:
        """``base_list`` as a read-only array (shared: see :func:`tally_of`)."""
        out = np.array(self.base_list, dtype=np.int64)
        out.setflags(write=False)
        return out

    def best(self, scores: Sequence[int]) -> int:
        """The highest of plain-int scores, ties to the τ-highest: the first candidate in
        τ order with the top score. O(m)."""
        order = self.tau_order
        vals = list(map(scores.__getitem__, order))
        return order[vals.index(max(vals))]

    def one_winner(self, report: Sequence[int], weight: int = 1) -> int:
        """The winner with one report (candidate indices best first; approval: the
        approved indices) of ``weight`` added: the rule engine's ``one_report`` scores on
        plain ints. O(m) (O(m²) Copeland)."""
        return self.best(self.engine.one_report(self, report, weight))

    # score rules: reports as index arrays (rankings) or 0/1 vectors (approval)

    def add(self, reports: np.ndarray, weights: Sequence[int]) -> np.ndarray:
        """Scores (or Copeland margins) with the reports added; ``reports`` has shape
        (k, m): k rankings (candidate indices best first) or k approval 0/1 vectors."""
        return self.engine.add(self, reports, np.asarray(weights, dtype=np.int64))

    def final(self, s: np.ndarray) -> np.ndarray:
        """The scores of a value of :meth:`add` (Copeland: doubled, from the margins)."""
        return self.engine.scores(self, s)

    def resolve(self, scores: np.ndarray) -> int:
        """Highest score, ties to the τ-highest."""
        return int(np.lexsort((self.prio, -scores))[0])

    def winner(self, reports: Sequence[Sequence[str]] = (), weights: Sequence[int] = ()) -> str:
        """The resolute winner with the given reports (names) added."""
        if self.engine.rounds:
            return self.e.candidates[self.irv_winner([self._ix(q) for q in reports], weights)]
        if len(reports) == 1:
            return self.e.candidates[self.one_winner(self._ix(reports[0]), weights[0])]
        if not reports:
            s = self.base
        else:
            s = self.add(self._matrix(reports), weights)
        return self.e.candidates[self.resolve(self.final(s))]

    def scores(self) -> np.ndarray:
        return self.final(self.base)

    def _ix(self, q: Sequence[str]) -> list[int]:
        return [self.idx[x] for x in q]

    def _matrix(self, reports: Sequence[Sequence[str]]) -> np.ndarray:
        if self.approval:
            out = np.zeros((len(reports), self.m), dtype=np.int64)
            for i, q in enumerate(reports):
                out[i, self._ix(q)] = 1
            return out
        return np.array([self._ix(q) for q in reports], dtype=np.int64).reshape(-1, self.m)

    # IRV

    def irv_base(self, mask: int) -> np.ndarray:
        """First-choice votes of the fixed ballots over the active bitmask (a ballot
        whose highest active group holds two active candidates is exhausted)."""
        t = self._irv.get(mask)
        if t is None:
            t = self._irv_votes(mask, None)[0]
            self._irv[mask] = t
        return t

    def _irv_votes(self, mask: int, alive: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """(votes over the active bitmask of the ``alive`` fixed ballots — every one when
        None —, the ballots that counted). Under the ``exhaust`` reading of overvotes the
        ones that did not count stay exhausted."""
        m = self.m
        act = np.array([(mask >> i) & 1 for i in range(m)], dtype=bool)
        r = np.where(act[None, :], self.ranks, m + 1)
        best = r.min(axis=1)
        hit = (r == best[:, None]) & (best[:, None] < m)
        ok = hit.sum(axis=1) == 1
        if alive is not None:
            ok &= alive
        t = np.zeros(m, dtype=np.int64)
        np.add.at(t, hit[ok].argmax(axis=1), self.counts[ok])
        return t, ok

    def irv_out(self, mask: int, votes: np.ndarray) -> int:
        """The active candidate with the fewest votes; ties eliminate the τ-lowest. O(m)
        on plain ints (one conversion of the votes, not one per candidate)."""
        v, prio = votes.tolist(), self._prio
        best, out = None, -1
        for i in range(self.m):
            if (mask >> i) & 1:
                k = (v[i], -prio[i])
                if best is None or k < best:
                    best, out = k, i
        return out

    def irv_eliminated(self, mask: int, top: int, weight: int = 1) -> int:
        """The candidate eliminated among the active bitmask when one manipulator of
        ``weight`` votes for ``top`` and the fixed ballots as they do. O(m)."""
        v = self.irv_base(mask).copy()
        v[top] += weight
        return self.irv_out(mask, v)

    def irv_lowest(self, mask: int, votes: np.ndarray) -> list[int]:
        """The active candidates tied for the fewest votes (each one an elimination of
        some resolution of the tie). O(m)."""
        v = votes.tolist()
        act = [i for i in range(self.m) if (mask >> i) & 1]
        low = min(v[i] for i in act)
        return [i for i in act if v[i] == low]

    def irv_winner(self, reports: Sequence[Sequence[int]] = (), weights: Sequence[int] = (),
                   trace: list | None = None) -> int:
        mask = (1 << self.m) - 1
        alive = np.ones(len(self.counts), dtype=bool) if self.exhaust else None
        while mask & (mask - 1):
            if alive is None:
                votes = self.irv_base(mask).copy()
            else:
                votes, alive = self._irv_votes(mask, alive)
            for q, w in zip(reports, weights):
                votes[next(i for i in q if (mask >> i) & 1)] += w
            out = self.irv_out(mask, votes)
            if trace is not None:
                trace.append((mask, votes, out))
            mask &= ~(1 << out)
        return mask.bit_length() - 1

    def irv_put(self) -> set[int]:
        """Winners under every resolution of the elimination ties."""
        if self.exhaust:
            return self._irv_put_exhaust()
        seen: dict[int, set[int]] = {}
        stack = [(1 << self.m) - 1]
        order = []
        while stack:
            mask = stack.pop()
            if mask in seen:
                continue
            seen[mask] = set()
            order.append(mask)
            if mask & (mask - 1):
                stack.extend(mask & ~(1 << i) for i in self.irv_lowest(mask, self.irv_base(mask)))
        for mask in reversed(order):
            if not mask & (mask - 1):
                seen[mask] = {mask.bit_length() - 1}
            else:
                seen[mask] = set().union(*(seen[mask & ~(1 << i)]
                                           for i in self.irv_lowest(mask, self.irv_base(mask))))
        return seen[(1 << self.m) - 1]

    def _irv_put_exhaust(self) -> set[int]:
        """:meth:`irv_put` under the ``exhaust`` reading: a state is the active bitmask and
        the ballots still alive (explicit stack, memoised)."""
        memo: dict[tuple[int, bytes], set[int]] = {}
        start = ((1 << self.m) - 1, np.ones(len(self.counts), dtype=bool))
        stack: list[tuple[int, np.ndarray, bool]] = [(*start, False)]
        while stack:
            mask, alive, expanded = stack.pop()
            key = (mask, alive.tobytes())
            if key in memo and not expanded:
                continue
            if not mask & (mask - 1):
                memo[key] = {mask.bit_length() - 1}
                continue
            v, after = self._irv_votes(mask, alive)
            nxt = [(mask & ~(1 << i), after) for i in self.irv_lowest(mask, v)]
            if expanded:
                memo[key] = set().union(*(memo[(k, a.tobytes())] for k, a in nxt))
            else:
                stack.append((mask, alive, True))
                stack.extend((k, a, False) for k, a in nxt if (k, a.tobytes()) not in memo)
        return memo[(start[0], start[1].tobytes())]


def tally_of(e: Election, rule: str) -> Tally:
    """The :class:`Tally` of ``e`` under ``rule``, built once per election (kept in the
    election's engine cache; its arrays are read-only). O(n · m) the first time."""
    key = ("oracle-tally", rule)           # what the engines derive from an election —
    # its Tally, w₀, the manipulator's keys — is kept in its engine cache, shared by
    # every engine that labels it
    t = e._cache.get(key)
    if t is None:
        t = e._cache[key] = Tally(e, rule)
    return t


def winner(e: Election, rule: str) -> dict:
    """The ``winner`` answer: ``{"winner", "winners"}`` and the certificate's scores (or
    IRV rounds) of the sincere election, by candidate name. Engine twin of the checker's
    ``winner_table``."""
    e = e.sincere()
    t = Tally(e, rule)
    names = e.candidates

    def named(values: Sequence[int], mask: int) -> dict[str, int | float]:
        """The candidates of the bitmask, by name, with their value (scores in units of
        the rule's ``score_unit``: Copeland halves its doubled scores)."""
        unit = t.engine.score_unit
        return {names[i]: values[i] if unit == 1 else values[i] / unit if values[i] % unit
                else values[i] // unit for i in range(t.m) if (mask >> i) & 1}

    def in_tau(won: set[int]) -> list[str]:
        return [x for x in e.tie_break if t.idx[x] in won]
    everyone = (1 << t.m) - 1
    if t.engine.rounds:
        trace: list = []
        w = t.irv_winner(trace=trace)
        return {"winner": names[w], "winners": in_tau(t.irv_put()),
                "rounds": [named(v.tolist(), mask) for mask, v, _ in trace],
                "eliminated": [names[o] for *_, o in trace]}
    s = t.scores().tolist()
    top = max(s)
    return {"winner": names[t.best(s)],
            "winners": in_tau({i for i in range(t.m) if s[i] == top}),
            "scores": named(s, everyone)}


# --------------------------------------------------------------------------- manipulation

@dataclass
class Manipulation:
    """One engine's answer to single-voter manipulation. ``reachable``: candidates some
    report elects (None when the engine does not list them); ``ballot``: a report electing
    ``best``; ``refuted``: candidate -> proof (greedy stuck sets), ``states`` (IRV search),
    and for enumeration the benchmark's counts."""

    sincere: str
    best: str
    ballot: list[str] | None
    reachable: set[str] | None = None
    refuted: dict | None = None
    states: int | None = None
    counts: dict | None = None


def preference_key(e: Election):
    """Sort key of the manipulator's preference: true rank, then τ (engine twin); the
    keys are computed once per election (O(m)) and looked up."""
    return preference(e)[0].__getitem__


def preference(e: Election) -> tuple[dict[str, tuple[int, int]], list[str]]:
    """The manipulator's preference, computed once per election: (candidate -> its key of
    :func:`preference_key`, the candidates best first). O(m log m) the first time (O(m)
    for a strict full ranking: its order is the preference)."""
    p = e._cache.get("oracle-preference")
    if p is None:
        ints = e.ints
        groups, prio, names = ints.manipulator[0], ints.prio, e.candidates
        if len(groups) == ints.m:          # strict and full: ranks 1..m, the ranking's order
            order = [names[g[0]] for g in groups]
            keys = {names[g[0]]: (r, prio[g[0]]) for r, g in enumerate(groups, 1)}
        else:
            keys = _preference_keys(e)
            order = sorted(keys, key=keys.__getitem__)
        p = e._cache["oracle-preference"] = (keys, order)
    return p


def _preference_keys(e: Election) -> dict[str, tuple[int, int]]:
    """The keys of a weak or truncated ranking: (1 + the candidates strictly above, or
    the unranked bottom; τ index), from the manipulator's index groups."""
    ints = e.ints
    m = ints.m
    pos = [0] * m
    above = 0
    for g in ints.manipulator[0]:
        for i in g:
            pos[i] = above + 1
        above += len(g)
    bottom = above + 1                     # every unranked candidate
    rank, names = ints.manipulator[1], e.candidates
    return {names[i]: (pos[i] if rank[i] < m else bottom, j)
            for j, i in enumerate(ints.tau_order)}


def sincere_winner(e: Election, rule: str) -> str:
    """w₀: the winner with the manipulator's sincere ballot added (computed once per
    election and rule)."""
    key = ("oracle-w0", rule)
    w = e._cache.get(key)
    if w is None:
        w = e._cache[key] = _sincere_winner(e, rule)
    return w


def _sincere_winner(e: Election, rule: str) -> str:
    t = tally_of(e, rule)
    groups, _, approved = e.ints.manipulator
    if t.engine.rounds:
        # the sincere ballot may be weak or truncated: count it as one more fixed ballot
        return Tally(e.sincere(), rule).winner()
    if t.approval:                         # (the order of the approved set is immaterial)
        return e.candidates[t.one_winner([i for i in range(t.m) if (approved >> i) & 1])]
    if len(groups) == t.m:                 # m non-empty groups of distinct candidates
        return e.candidates[t.one_winner(list(map(itemgetter(0), groups)))]
    return Tally(e.sincere(), rule).winner()


def all_reports(e: Election, rule: str) -> np.ndarray:
    """The ballot space as an array: (m!, m) rankings in lexicographic order of the
    candidate indices, or (2^m, m) 0/1 approval vectors ordered by size then
    lexicographically (the checker's order)."""
    if _approval(rule):
        return _subsets(e.m)
    return _permutations(e.m)


@functools.lru_cache(maxsize=8)
def _subsets(m: int) -> np.ndarray:
    """The 2^m approval vectors by size, then lexicographically; built once per m
    (read-only)."""
    rows = []
    for k in range(m + 1):
        for s in itertools.combinations(range(m), k):
            v = [0] * m
            for i in s:
                v[i] = 1
            rows.append(v)
    out = np.array(rows, dtype=np.int64).reshape(-1, m)
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=8)
def _permutations(m: int) -> np.ndarray:
    """The m! rankings of range(m) in lexicographic order, built once per m (read-only:
    building the 5040 × 7 array cost more than evaluating it)."""
    out = np.array(list(itertools.permutations(range(m))), dtype=np.int64)
    out.setflags(write=False)
    return out


def report_outcomes(e: Election, rule: str, rep: np.ndarray | None = None) -> np.ndarray:
    """The winner index of every report (one manipulator, weight 1)."""
    t = tally_of(e, rule)
    rep = all_reports(e, rule) if rep is None else rep
    if t.engine.rounds:
        cache: dict[tuple, int] = {}
        out = np.empty(len(rep), dtype=np.int64)
        for k, q in enumerate(rep):
            out[k] = _irv_one(t, tuple(int(x) for x in q), cache)
        return out
    return t.engine.report_winners(t, rep)               # score first, then τ


def _irv_one(t: Tally, q: tuple[int, ...], cache: dict) -> int:
    """IRV winner for one report, memoised on (active mask, the report's live suffix)."""
    mask = (1 << t.m) - 1
    while mask & (mask - 1):
        top = next(i for i in q if (mask >> i) & 1)
        key = (mask, top)
        out = cache.get(key)
        if out is None:
            out = cache[key] = t.irv_eliminated(mask, top)
        mask &= ~(1 << out)
    return mask.bit_length() - 1


def irv_report_counts(t: Tally) -> tuple[list[int], dict[int, tuple[int, ...]]]:
    """IRV, one manipulator: how many of the m! reports elect each candidate, and for each
    winner the lexicographically first report (candidate indices) electing it. A walk of
    the reports' prefix tree in lexicographic order: a report matters only up to its first
    top that is never eliminated (its later entries are never read), so a prefix that
    decides the winner counts its (m − d)! completions at once; the rounds between two
    tops are memoised on (active mask, top), as in :func:`_irv_one`. At most m! leaves,
    typically far fewer (every prefix ends at its first surviving top)."""
    m = t.m
    fact = [math.factorial(k) for k in range(m + 1)]
    counts = [0] * m
    first: dict[int, tuple[int, ...]] = {}
    out: dict[tuple[int, int], int] = {}

    def eliminated(mask: int, top: int) -> int:
        x = out.get((mask, top))
        if x is None:
            x = out[(mask, top)] = t.irv_eliminated(mask, top)
        return x

    def walk(mask: int, prefix: tuple[int, ...], used: int) -> None:
        # every candidate of the prefix is eliminated (inactive in mask)
        for x in range(m):
            if (used >> x) & 1:
                continue
            p, u = (*prefix, x), used | (1 << x)
            if not (mask >> x) & 1:          # already out: skipped by every round
                walk(mask, p, u)
                continue
            left = mask
            while left & (left - 1):
                y = eliminated(left, x)
                left &= ~(1 << y)
                if y == x:
                    break
            if left & (left - 1):            # x is out, the report's next top decides
                walk(left, p, u)
                continue
            w = left.bit_length() - 1
            counts[w] += fact[m - len(p)]
            if w not in first:
                first[w] = (*p, *(i for i in range(m) if not (u >> i) & 1))
    walk((1 << m) - 1, (), 0)
    return counts, first


def report_counts(t: Tally) -> tuple[list[int], Callable[[int], tuple[int, ...]]]:
    """How many reports of the ballot space elect each candidate, and the first report (in
    the ballot space's order, :func:`all_reports`) electing a given winner: IRV by
    :func:`irv_report_counts`; a rule whose engine counts without evaluating every report
    by its ``report_counts`` (plurality: by the top; approval: by the first approved
    candidate in order of fixed score; Borda: by points); Copeland by every report at
    once (:func:`report_outcomes`)."""
    classes = irv_report_counts(t) if t.engine.rounds else t.engine.report_counts(t)
    if classes is not None:
        return classes[0], classes[1].__getitem__
    rep = all_reports(t.e, t.rule)
    win = report_outcomes(t.e, t.rule, rep)

    def first_of(w: int) -> tuple[int, ...]:
        row = rep[int(np.flatnonzero(win == w)[0])]
        return tuple(np.flatnonzero(row).tolist() if t.approval else row.tolist())
    return np.bincount(win, minlength=t.m).tolist(), first_of


def enumerate_reports(e: Election, rule: str) -> Manipulation:
    """The benchmark's oracle: every report evaluated. Counts: ``reports`` |B_r|,
    ``profitable`` |M|, ``optimal`` |B*|, ``outcomes`` winner -> reports: O(m) plurality
    (the winner depends on the top only), O(m log m) approval, O(m³) Borda (counted by
    points), O(|B_r| · m²) Copeland; IRV by :func:`irv_report_counts` (at most |B_r|
    prefixes, each O(m) memoised rounds)."""
    names = e.candidates
    w0 = sincere_winner(e, rule)
    keys = preference(e)[0]
    t = tally_of(e, rule)
    counts, first = report_counts(t)
    outcomes = {}
    best, kb = w0, keys[w0]
    u0 = kb[0]
    profitable = 0
    for x, v in zip(names, counts):
        if v:
            outcomes[x] = v
            kx = keys[x]
            if kx < kb:
                best, kb = x, kx
            if kx[0] < u0:
                profitable += v
    ub = kb[0]
    optimal = 0
    for x, v in outcomes.items():
        if keys[x][0] == ub:
            optimal += v
    ballot = None if best == w0 else list(map(names.__getitem__, first(t.idx[best])))
    m = len(names)
    return Manipulation(w0, best, ballot, set(outcomes), counts={
        "reports": 2 ** m if t.approval else math.factorial(m),
        "profitable": profitable, "optimal": optimal, "outcomes": outcomes})


def enumerate_best(e: Election, rule: str) -> Manipulation:
    """:func:`enumerate_reports`' w₀ and w* alone (no counts, no report): what a
    cross-check compares. Where the rule's engine tells which candidates some report
    elects without counting (:meth:`~prefcert.oracles.rules.RuleEngine.reachable`:
    plurality, approval by their classes, Borda by its points), w* is the first of them
    in the manipulator's order, w₀ included; otherwise :func:`enumerate_reports`.
    O(m) plurality, O(m log m) approval, O(m² log m) Borda."""
    t = tally_of(e, rule)
    reach = None if t.engine.rounds else t.engine.reachable(t)
    if reach is None:
        full = enumerate_reports(e, rule)
        return Manipulation(full.sincere, full.best, None)
    w0 = sincere_winner(e, rule)
    idx = t.idx
    for c in preference(e)[1]:
        if c == w0 or reach[idx[c]]:
            return Manipulation(w0, c, None)
    raise AssertionError("the sincere winner is in the manipulator's order")


def all_reports_size(e: Election, rule: str) -> int:
    """|B_r|: m! rankings or 2^m subsets."""
    return 2 ** e.m if _approval(rule) else math.factorial(e.m)


def _names(e: Election, rule: str, row: np.ndarray) -> list[str]:
    if _approval(rule):
        return [e.candidates[i] for i in np.flatnonzero(row)]
    return [e.candidates[int(i)] for i in row]


def greedy_can_win(t: Tally, c: int, weight: int = 1) -> tuple[list[int] | None, list[int]]:
    """BTT greedy for one manipulator of ``weight``: (a ranking electing c, []) or
    (None, the stuck set). Plurality, Borda, Copeland, approval: the rule engine's own
    loop where it has one (plurality, Borda: the same placements), else
    :func:`placed_greedy`; approval approves c alone. O(m) plurality, O(m²) Borda, O(m⁴)
    Copeland."""
    if t.approval:                         # the first rival (index order) beating c
        s, prio = t.base_list, t._prio
        sc, pc = s[c] + weight, prio[c]
        if max(s) >= sc:                   # else none reaches c's score
            for r in range(t.m):
                if r != c and (s[r] > sc or (s[r] == sc and prio[r] < pc)):
                    return None, [r]
        return [c], []
    if t.engine.own_greedy:
        return t.engine.greedy(t, c, weight)
    return placed_greedy(t, c, weight)


def placed_greedy(t: Tally, c: int, weight: int = 1) -> tuple[list[int] | None, list[int]]:
    """The greedy's generic loop (ranking rules): c first, then each place to the first
    unplaced rival in τ order that, placed there, does not beat c (its score when above
    exactly the other unplaced rivals is the rule engine's ``placed_score``); stuck when
    every unplaced rival beats c. O(m²) ``placed_score`` calls."""
    prio = t._prio                         # plain ints: no numpy scalar per comparison

    def beats(sr: int, sc: int, r: int) -> bool:
        return sr > sc or (sr == sc and prio[r] < prio[c])
    placed = [c]
    left = [x for x in t.tau_order if x != c]
    score = t.engine.placed_score          # d's score when it is above exactly `below`
    sc = score(t, c, set(left), weight)
    while left:
        fit = None
        below = set(left)                  # the unplaced set; each d in turn left out
        for d in left:
            below.discard(d)
            sd = score(t, d, below, weight)
            below.add(d)
            if not beats(sd, sc, d):
                fit = d
                break
        if fit is None:
            return None, list(left)
        placed.append(fit)
        left.remove(fit)
    return placed, []


def greedy_reachable(e: Election, rule: str) -> Manipulation:
    """Single-voter manipulation by the BTT greedy, candidate by candidate in the
    manipulator's order of preference; the first reachable is w*. Candidates above w* get
    their stuck sets. O(m³) Borda, O(m⁴) Copeland."""
    t = tally_of(e, rule)
    w0 = sincere_winner(e, rule)
    refuted: dict[str, list[str]] = {}
    names, idx = e.candidates, t.idx
    for c in preference(e)[1]:
        if c == w0:
            return Manipulation(w0, w0, None, refuted=refuted)
        ballot, stuck = greedy_can_win(t, idx[c])
        if ballot is not None:
            return Manipulation(w0, c, list(map(names.__getitem__, ballot)), refuted=refuted)
        refuted[c] = list(map(names.__getitem__, stuck))
    raise AssertionError("the sincere winner is always reachable")


def irv_search(e: Election, weight: int = 1, *, time_limit: float | None = None,
               limit: int | None = None) -> tuple[set[str], int, dict]:
    """IRV, one manipulator: every reachable winner, the number of states (active mask,
    current top) and the memo (state -> reachable winner indices) for ballot
    reconstruction. Raises TimeoutError past ``time_limit`` seconds or ``limit`` states."""
    t = tally_of(e, "irv")
    m = t.m
    full = (1 << m) - 1
    memo: dict[tuple[int, int], frozenset] = {}
    deadline = None if time_limit is None else time.perf_counter() + time_limit

    def go(mask: int, top: int) -> frozenset:
        hit = memo.get((mask, top))
        if hit is not None:
            return hit
        if limit is not None and len(memo) >= limit:
            raise TimeoutError("IRV search state limit")
        if deadline is not None and len(memo) % 64 == 0 and time.perf_counter() > deadline:
            raise TimeoutError("IRV search time limit")
        if not mask & (mask - 1):
            res = frozenset([mask.bit_length() - 1])
        else:
            out = t.irv_eliminated(mask, top, weight)
            nxt = mask & ~(1 << out)
            if out != top:
                res = go(nxt, top)
            else:
                res = frozenset().union(*(go(nxt, u) for u in range(m) if (nxt >> u) & 1))
        memo[(mask, top)] = res
        return res
    reach = frozenset().union(*(go(full, u) for u in range(m)))
    return {e.candidates[i] for i in reach}, len(memo), {"memo": memo, "tally": t}


def irv_ballot(e: Election, target: str, memo: dict, t: Tally, weight: int = 1) -> list[str]:
    """A report electing ``target`` from the search memo: follow the states whose
    reachable set holds it, choosing a new top whenever the current one is eliminated."""
    m, c = e.m, t.idx[target]
    mask = (1 << m) - 1
    top = next(u for u in range(m) if c in memo[(mask, u)])
    tops = [top]
    while mask & (mask - 1):
        out = t.irv_eliminated(mask, top, weight)
        mask &= ~(1 << out)
        if out == top:
            top = next(u for u in range(m) if (mask >> u) & 1 and c in memo[(mask, u)])
            tops.append(top)
    rest = [i for i in t.tau_order if i not in tops]
    return [e.candidates[i] for i in (*tops, *rest)]


def irv_reachable(e: Election, *, time_limit: float | None = None) -> Manipulation:
    """Single-voter IRV manipulation by :func:`irv_search`."""
    reach, states, aux = irv_search(e, time_limit=time_limit)
    w0 = sincere_winner(e, "irv")
    key = preference_key(e)
    best = min(reach | {w0}, key=key)
    ballot = irv_ballot(e, best, aux["memo"], aux["tally"]) if best != w0 else None
    return Manipulation(w0, best, ballot, reach, states=states)


# --------------------------------------------------------------------------- coalitions

def dominant_coalition(e: Election, rule: str, c: str, weights: Sequence[int]
                       ) -> tuple[bool, list, str | None]:
    """Plurality / approval: everyone reports c on top (approves c alone), which is
    optimal for c. Returns (c wins, the reports, the winner otherwise)."""
    e = e.sincere()
    t = Tally(e, rule)
    rep = [c] if t.approval else [c, *(x for x in e.tie_break if x != c)]
    w = t.winner([rep] * len(weights), weights)
    return w == c, [list(rep) for _ in weights], (None if w == c else w)


def reverse_borda(e: Election, c: str, weights: Sequence[int]) -> list[list[str]] | None:
    """Borda coalitions, heaviest manipulator first: each ranks c first and the rivals in
    increasing order of their current score (Zuckerman, Procaccia & Rosenschein 2009).
    Returns reports electing c, or None (not a proof)."""
    e = e.sincere()
    t = Tally(e, "borda")
    m = e.m
    ci = t.idx[c]
    s = t.base.copy()
    s[ci] += (m - 1) * sum(weights)
    order = sorted(range(len(weights)), key=lambda i: -weights[i])
    out: list[list[str] | None] = [None] * len(weights)
    for i in order:
        rivals = sorted((d for d in range(m) if d != ci),
                        key=lambda d: (int(s[d]), -int(t.prio[d])))
        # the lowest-scored rival gets the most points (m − 2)
        rank = [ci] + rivals
        for p, d in enumerate(rank[1:], 1):
            s[d] += weights[i] * (m - 1 - p)
        out[i] = [e.candidates[x] for x in rank]
    if t.resolve(s) != ci:
        return None
    return out  # type: ignore[return-value]


def borda_bound(e: Election, c: str, weights: Sequence[int]) -> bool:
    """The counting bound (engine twin of the checker's ``score_bound``): True when it
    proves the Borda coalition cannot elect c."""
    e = e.sincere()
    t = Tally(e, "borda")
    m, W = e.m, sum(weights)
    ci = t.idx[c]
    sc = int(t.base[ci]) + W * (m - 1)
    caps = [sc - int(t.base[d]) - (1 if t.prio[d] < t.prio[ci] else 0)
            for d in range(m) if d != ci]
    if not caps:
        return False
    if min(caps) < 0:
        return True
    need = W * (m - 1) * (m - 2) // 2
    return sum(min(v, W * (m - 2)) for v in caps) < need and \
        sum(max(0, min(v - 1, W * (m - 1))) for v in caps) < need + 1


def coalition_brute_force(e: Election, rule: str, c: str, weights: Sequence[int], *,
                          time_limit: float | None = None) -> list[list[str]] | None:
    """Every tuple of reports (equal weights as multisets). Returns reports electing c or
    None. Raises TimeoutError past ``time_limit``."""
    e = e.sincere()
    t = Tally(e, rule)
    rep = all_reports(e, rule)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    groups: dict[int, int] = {}
    for w in weights:
        groups[w] = groups.get(w, 0) + 1
    ws = sorted(groups)
    per = [list(itertools.combinations_with_replacement(range(len(rep)), groups[w]))
           for w in ws]
    target = t.idx[c]
    for n, pick in enumerate(itertools.product(*per)):
        if deadline is not None and n % 256 == 0 and time.perf_counter() > deadline:
            raise TimeoutError("coalition brute force time limit")
        idx = [i for combo in pick for i in combo]
        wts = [w for w, combo in zip(ws, pick) for _ in combo]
        rows = rep[idx]
        if t.engine.rounds:
            win = t.irv_winner([list(map(int, r)) for r in rows], wts)
        else:
            win = t.resolve(t.final(t.add(rows, wts)))
        if win == target:
            # reports back in the order of the given weights
            pool: dict[int, list] = {}
            for r, w in zip(rows, wts):
                pool.setdefault(w, []).append(_names(e, rule, r))
            return [pool[w].pop() for w in weights]
    return None


def brute_force_manipulation(e: Election, rule: str) -> Manipulation:
    """Tests' brute force: every report, one at a time, through :class:`Tally` only
    (no vectorisation, no memo)."""
    t = Tally(e, rule)
    w0 = sincere_winner(e, rule)
    key = preference_key(e)
    seen: dict[str, list[str]] = {}
    if t.approval:
        space: Iterable = (list(s) for k in range(e.m + 1)
                           for s in itertools.combinations(e.candidates, k))
    else:
        space = (list(p) for p in itertools.permutations(e.candidates))
    outcomes: dict[str, int] = {}
    for q in space:
        w = t.winner([q], [1])
        outcomes[w] = outcomes.get(w, 0) + 1
        seen.setdefault(w, q)
    best = min(set(seen) | {w0}, key=key)
    u0, ub = key(w0)[0], key(best)[0]
    return Manipulation(w0, best, seen.get(best) if best != w0 else None, set(seen), counts={
        "reports": sum(outcomes.values()),
        "profitable": sum(v for x, v in outcomes.items() if key(x)[0] < u0),
        "optimal": sum(v for x, v in outcomes.items() if key(x)[0] == ub),
        "outcomes": {x: outcomes[x] for x in e.candidates if x in outcomes}})


def _copeland_point(margin: int) -> int:
    """A Copeland contest's doubled points from its margin: 2 a win, 1 a tie."""
    return 2 if margin > 0 else 1 if margin == 0 else 0


def copeland_coalition_bounds(e: Election, c: str
                              ) -> tuple[int, int, list[tuple[list[str], int]]]:
    """Bounds on the fewest manipulators who, added to the sincere election, make ``c``
    the Copeland winner: (lower, upper, the reports of an upper-bound coalition as
    (report, number of manipulators casting it)).

    Lower: with k manipulators c's margins are μ(c, y) + k at best and a rival's contests
    move by at most k each way (keeping the parity of μ + k), so c must beat every
    rival's per-pair minimum score; the least such k (monotone in k). Upper: the least k
    for which all manipulators reporting c first and then the rivals by increasing
    Copeland score — or that ballot and its rival-reversed twin alternately — elect c.
    Equal bounds settle the minimum. O(m² log n) evaluations."""
    e = e.sincere()
    t = Tally(e, "copeland")
    m, ci = e.m, t.idx[c]
    mu = t.base
    prio = t.prio
    n = e.voters

    pt = _copeland_point

    def necessary(k: int) -> bool:
        sc = sum(pt(int(mu[ci, y]) + k) for y in range(m) if y != ci)
        for d in range(m):
            if d == ci:
                continue
            low = pt(int(mu[d, ci]) - k) + sum(
                pt(int(mu[d, y]) - k) for y in range(m) if y not in (d, ci))
            if not (sc > low or (sc == low and prio[ci] < prio[d])):
                return False
        return True
    lo_k, hi_k = 0, n + 1
    while lo_k < hi_k:                       # least k with the necessary condition
        mid = (lo_k + hi_k) // 2
        if necessary(mid):
            hi_k = mid
        else:
            lo_k = mid + 1
    lower = lo_k
    score = t.final(mu)
    rivals = sorted((d for d in range(m) if d != ci), key=lambda d: (int(score[d]),
                                                                     -int(prio[d])))
    one = [ci] + rivals
    twin = [ci] + rivals[::-1]

    def ballots(k: int, mix: bool) -> list[tuple[list[int], int]]:
        """The coalition as (report, how many cast it): k manipulators, the two reports
        alternating when ``mix`` (no list of k ballots: k grows with the voter count)."""
        if not mix:
            return [(one, k)]
        return [(b, n) for b, n in ((one, (k + 1) // 2), (twin, k // 2)) if n]

    def wins(k: int, mix: bool) -> bool:
        if k == 0:
            return t.resolve(score) == ci
        reps = ballots(k, mix)
        rep = np.array([b for b, _ in reps], dtype=np.int64)
        return t.resolve(t.final(t.add(rep, [n for _, n in reps]))) == ci
    best = None
    for mix in (False, True):
        k = lower
        while k <= n + 1 and not wins(k, mix):
            k = k + 1 if k < lower + 8 else k * 2
        if k > n + 1:
            k = n + 1
            if not wins(k, mix):
                continue
        lo, hi = lower - 1, k            # refine down to the least winning k found
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if wins(mid, mix):
                hi = mid
            else:
                lo = mid
        if best is None or hi < best[0]:
            best = (hi, mix)
    if best is None:                     # n + 1 voters with c first always win
        best = (n + 1, False)
    k, mix = best
    return lower, k, [([e.candidates[i] for i in b], n) for b, n in ballots(k, mix)]


def copeland_bound(e: Election, c: str, weights: Sequence[int]) -> str | None:
    """A rival beating c even with every contest at its extreme (total weight W moves a
    margin by at most W): the engine twin of the checker's ``pairwise_bound``; None when
    the bound does not rule c out."""
    e = e.sincere()
    t = Tally(e, "copeland")
    W, ci = sum(weights), t.idx[c]
    pt = _copeland_point
    best = sum(pt(int(t.base[ci, y]) + W) for y in range(e.m) if y != ci)
    for d in range(e.m):
        if d == ci:
            continue
        low = sum(pt(int(t.base[d, y]) - W) for y in range(e.m) if y != d)
        if low > best or (low == best and t.prio[d] < t.prio[ci]):
            return e.candidates[d]
    return None
