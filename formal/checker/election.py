"""Elections: the rules, resolute through τ, and one check per certificate type (model,
conventions and formats: :mod:`prefcert.formal.election`; the rules' definitions and the
certificate types each admits: :mod:`prefcert.formal.rules`, any other rule is refused).

Certificates:

- ``score_table`` / ``elimination_rounds`` (winner): the scores (or the IRV rounds and
  eliminations), recomputed.
- ``enumeration`` (manipulation, any rule, |B_r| ≤ ENUMERATION_LIMIT): every report of the
  manipulator replayed; gives w₀, w*, |M| (profitable reports), |B*| (optimal reports)
  and the outcome of every report.
- ``greedy`` (manipulation; coalitional with one manipulator): for plurality, Borda,
  Copeland and approval the greedy of Bartholdi, Tovey & Trick (1989) is exact for one
  manipulator, so "c cannot be made to win" has a short proof: a *stuck set* R of rivals
  such that every r ∈ R, ranked just above the rest of R and below everyone else, with c
  first, still beats c. In any report the top-ranked member of R does at least that well
  (its score only grows with the set of candidates ranked below it) while c does at most
  that well, so c never wins. Approval: approving {c} alone is c's best report, so one
  rival beating c then suffices.
- ``elimination_search`` (IRV, one manipulator): the checker's own exhaustive search over
  the states (active candidates, the manipulator's current top), which covers every report
  (the report's later entries matter only when its current top is eliminated); refused
  above SEARCH_LIMIT states. IRV manipulation is NP-hard (Bartholdi & Orlin 1991), so no
  polynomial proof is expected; the search is typically tiny.
- ``ballots`` (coalitional, exists): the manipulators' reports, replayed.
- ``dominant`` (coalitional, none; plurality / approval): every manipulator reporting c on
  top (alone) is the best they can do for c, and c still loses.
- ``pairwise_bound`` (coalitional, none; Copeland): a rival beats the candidate even with
  every pairwise contest pushed to its extreme independently.
- ``score_bound`` (coalitional, none; Borda): a counting bound (each manipulator gives c at
  most m − 1 points and the rivals their fixed total) that no distribution of points
  meets.
- ``coalition_enumeration`` (coalitional, none, small): every multiset of reports replayed.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from math import comb, factorial
from typing import Any

from ..election import (
    CONVENTIONS,
    PARAMS,
    QUESTIONS,
    Ballot,
    Election,
    parse_election,
    resolve,
    rule_of,
    validate,
)
from ..errors import CertificateError, InstanceError
from ..rules import RULES, Rule, rule_named, rule_names
from ..spec import NULL, DomainSpec, QuestionSpec, fields, instance_schema

ENUMERATION_LIMIT = 5040         # reports the checker replays (7! rankings, 2^12 subsets)
COALITION_LIMIT = 200_000        # report multisets the checker replays
SEARCH_LIMIT = 200_000           # IRV search states the checker explores
PUT_LIMIT = 100_000              # active sets explored for the IRV winner set

_STR = {"type": "string", "minLength": 1}
_RANKING = {"type": "array", "items": {"anyOf": [
    _STR, {"type": "array", "minItems": 1, "items": _STR}]}}
_BALLOT = {"anyOf": [_RANKING, {
    "type": "object", "additionalProperties": False,
    "anyOf": [{"required": ["ranking"]}, {"required": ["approve"]}],
    "properties": {"ranking": _RANKING, "count": {"type": "integer", "minimum": 1},
                   "approve": {"type": "array", "uniqueItems": True, "items": _STR}}}]}
_WORDS = {"rule": {"enum": list(rule_names())}, "item": _STR,
          "int": {"type": "integer", "minimum": 1},
          "ints": {"type": "array", "minItems": 1,
                   "items": {"type": "integer", "minimum": 1}}}
_QUESTION = {"anyOf": [{"enum": ["winner", "manipulation"]}] + [
    {"type": "object", "additionalProperties": False,
     "required": ["type"] + [k for k, w in ps.items() if not w.endswith("?")],
     "properties": {"type": {"const": q}, **{k: _WORDS[w.rstrip("?")] for k, w in ps.items()}}}
    for q, ps in PARAMS.items()]}

#: a manipulation label's solution: the sincere winner w₀, the best reachable winner w*, an
#: optimal report (null when none is profitable) and the gain in true rank; and, when every
#: report is replayed (``enumeration``), the counts of the ballot space
MANIPULATION = ("sincere_winner", "best_winner", "ballot", "gain")
COUNTS = ("reports", "profitable", "optimal", "outcomes")

SPEC = DomainSpec(
    name="election",
    parse=parse_election,
    questions={
        "winner": QuestionSpec("winner", ("determined",),
                               "the resolute winner (τ breaks ties) and the winner set",
                               PARAMS["winner"], ("overvote",),
                               solutions={"determined": fields("winner", "winners")}),
        "manipulation": QuestionSpec(
            "manipulation", ("manipulable", "not_manipulable"),
            "can the manipulator get a winner it strictly prefers by another report? "
            "(w₀, w*, an optimal report; |M| and |B*| when enumerable)",
            PARAMS["manipulation"], ("overvote",), solutions=dict.fromkeys(
                ("manipulable", "not_manipulable"), fields(*MANIPULATION, optional=COUNTS))),
        "coalitional_manipulation": QuestionSpec(
            "coalitional_manipulation", ("exists", "none"),
            "can k (weighted) manipulators, added to the ballots, make the candidate win?",
            PARAMS["coalitional_manipulation"], ("overvote",),
            solutions={"exists": fields("ballots"), "none": NULL}),
    },
    schema=instance_schema("election", {
        "candidates": {"type": "array", "minItems": 1, "uniqueItems": True, "items": _STR},
        "tie_break": {"type": "array", "uniqueItems": True, "items": _STR},
        "rule": {"enum": list(rule_names())},
        "approval_top": {"type": "integer", "minimum": 0},
        "ballots": {"type": "array", "items": _BALLOT},
        "manipulator": {"type": "object", "required": ["ranking"], "additionalProperties": False,
                        "properties": {"ranking": _RANKING,
                                       "approve": {"type": "array", "items": _STR}}},
        "source": {"type": "object"}, "design": {"type": "object"},
        "preflib": {"type": "object"},
    }, ["candidates", "tie_break", "ballots"], _QUESTION, CONVENTIONS),
    resolve=resolve,
    validate=validate,
    conventions=CONVENTIONS,
    rules=rule_names(),
)


# --------------------------------------------------------------------------- the rules

def known_rule(rule: Any) -> Rule:
    """The registered rule (:mod:`formal.rules`) called ``rule``; CertificateError naming
    the value and the known rules for any other."""
    r = RULES.get(rule) if isinstance(rule, str) else None
    return r if r is not None else rule_named(rule, error=CertificateError)


def question_rule(e: Election, params: Any) -> Rule:
    """The registered rule a question is asked under (its own, else the instance's)."""
    return known_rule(rule_of(e, params))


def admitted(r: Rule, proof: str) -> None:
    """Refuse a rule-specific certificate type for a rule whose definition does not
    admit its argument, naming the rules that do."""
    if proof not in r.proofs:            # r.admits(proof), without the call
        rules = [n for n, x in RULES.items() if x.admits(proof)]
        raise CertificateError(f"{proof} does not certify rule {r.name!r} (it certifies "
                               f"{', '.join(rules) or 'no rule'})")


#: a ballot on integers as the checker counts it: (its tie groups of candidate indices,
#: its approval bitmask, its count)
IxBallot = tuple[tuple[tuple[int, ...], ...], int, int]


def _report_indices(e: Election, r: Rule, rule: str, report: Any) -> list[int]:
    """The candidate indices of a claimed report (the checks of :func:`report_ballot`,
    with its error texts)."""
    if not isinstance(report, (list, tuple)) or \
            not all(map(isinstance, report, itertools.repeat(str))):
        raise CertificateError(f"a report is a list of candidates, not {report!r:.60}")
    index = e.ints.index
    ix = list(map(index.get, report))
    if None in ix or len(set(ix)) != len(ix):
        raise CertificateError(f"report {list(report)!r:.80} repeats or names an unknown "
                               "candidate")
    if not r.approval and len(report) != len(e.candidates):
        raise CertificateError(f"a {rule} report ranks every candidate: {list(report)!r:.80}")
    return ix                            # type: ignore[return-value]


def report_ballot(e: Election, rule: str, report: Any, weight: int = 1) -> Ballot:
    """A manipulator's report as a ballot: a full strict ranking of every candidate
    (ranking rules) or a subset (approval; the empty set allowed). Raises
    CertificateError for anything else."""
    r = known_rule(rule)
    _report_indices(e, r, rule, report)
    if r.approval:
        return Ballot((), weight, frozenset(report), True)
    return Ballot(tuple(zip(report)), weight, frozenset())


def report_ix(e: Election, rule: str, report: Any, weight: int = 1) -> IxBallot:
    """:func:`report_ballot` on integers: the report's (index groups, approval bitmask,
    weight), the same checks and error texts."""
    r = known_rule(rule)
    ix = _report_indices(e, r, rule, report)
    if r.approval:
        mask = 0
        for i in ix:
            mask |= 1 << i
        return (), mask, weight
    return tuple(zip(ix)), 0, weight


def ballot_ix(e: Election, b: Ballot) -> IxBallot:
    """A parsed ballot (names) on integers."""
    index = e.ints.index
    mask = 0
    for x in b.approved:
        mask |= 1 << index[x]
    return tuple(tuple(map(index.__getitem__, g)) for g in b.ranking), mask, b.count


def _rank(groups: Sequence[Sequence[int]], m: int) -> list[int]:
    """The rank array of index groups: group index per candidate, m unranked."""
    rank = [m] * m
    for gi, g in enumerate(groups):
        for i in g:
            rank[i] = gi
    return rank


class Count:
    """A rule evaluated on an election's ballots plus added ballots (reports), on the
    election's integer form (:attr:`Election.ints`): candidates are indices, active sets
    bitmasks, scores lists by index; names only in the name-level methods (``scores``,
    ``winner``, ``rounds``, ``winner_set``, ``top``, ``beats``) that read and return them.

    Score and pairwise rules: ``iscores(extra)`` (stored as ``score_unit`` × the score:
    Copeland 2·wins + ties); elimination rules (IRV): ``irounds(extra)``. ``iwinner(extra)``
    is the τ-resolved winner. The fixed ballots are tallied once, so each evaluation costs
    O(m) (O(m²) pairwise, O(m · rounds) elimination with the per-active-set tallies of the
    fixed ballots cached). ``rule``: a registered rule's name (:mod:`formal.rules`);
    CertificateError for any other. Under the ``exhaust`` reading of overvotes (the
    election's ``overvote`` convention) a ballot that counts for nobody in a round stays
    exhausted: a round's tally then depends on the exhausted ballots too (:meth:`itally`)."""

    def __init__(self, e: Election, rule: str, ballots: Iterable[Ballot] | None = None):
        self.definition = r = known_rule(rule)
        self.e, self.rule = e, rule
        self.pairwise, self.rounds_rule = r.pairwise, r.rounds
        ints = e.ints
        self.m = m = ints.m
        self.idx = ints.index
        #: prio[i]: candidate i's τ index (0 = best); tau_order: the indices in τ order
        self.prio, self.tau_order = ints.prio, ints.tau_order
        if ballots is None:
            groups, approved, counts, ranks = ints.groups, ints.approved, ints.counts, \
                ints.ranks
        else:
            fixed = [ballot_ix(e, b) for b in ballots]
            groups = tuple(f[0] for f in fixed)
            approved = tuple(f[1] for f in fixed)
            counts = tuple(f[2] for f in fixed)
            ranks = tuple(tuple(_rank(g, m)) for g in groups)
        self.groups, self.counts = groups, counts
        self.exhaust = e.conventions.get("overvote") == "exhaust"
        self._cache: dict[int, list[int]] = {}
        self._rounds: dict[tuple[int, frozenset], tuple[list[int], frozenset]] = {}
        self._placed: dict[int, list[int]] = {}
        if r.pairwise:
            above = [[0] * m for _ in range(m)]     # above[x][y]: voters with x ≻ y
            for rank, n in zip(ranks, counts):
                for x in range(m):
                    rx, row = rank[x], above[x]
                    for y in range(m):
                        if rank[y] > rx:
                            row[y] += n
            #: margin[x][y]: voters ranking x above y minus those ranking y above x
            self.imargin = [[above[x][y] - above[y][x] for y in range(m)] for x in range(m)]
        elif not r.rounds:
            #: Σ points over the fixed ballots, by index
            self.ibase = r.itally(groups, approved, counts, m)

    # -- names (the label's JSON)

    @property
    def names(self) -> frozenset:
        """The candidates, as a set."""
        return frozenset(self.e.candidates)

    @property
    def tau(self) -> dict[str, int]:
        """Name -> τ index."""
        return {x: i for i, x in enumerate(self.e.tie_break)}

    @property
    def base(self) -> dict[str, int]:
        """The fixed ballots' scores by name (score rules)."""
        return dict(zip(self.e.candidates, self.ibase))

    @property
    def margin(self) -> dict[tuple[str, str], int]:
        """The fixed ballots' pairwise margins by pair of names (pairwise rules)."""
        c = self.e.candidates
        return {(c[x], c[y]): self.imargin[x][y] for x in range(self.m) for y in range(self.m)
                if x != y}

    def ix(self, extra: Iterable[Ballot]) -> list[IxBallot]:
        """Parsed ballots (names) on integers."""
        return [ballot_ix(self.e, b) for b in extra]

    def placed_points(self, weight: int) -> list[int]:
        """A positional rule (``positional``: plurality, Borda): the points of the
        candidate at each position of a full strict ranking of ``weight`` voters, read
        from the rule's ``ipoints`` of one such ballot (τ order) and kept per weight, so
        each stuck set of a ``greedy`` certificate is verified without a ballot of its
        own. O(m) the first time per weight."""
        got = self._placed.get(weight)
        if got is None:
            tau = self.tau_order
            pts = self.definition.ipoints(tuple(zip(tau)), 0, weight, self.m)
            got = self._placed[weight] = [pts.get(i, 0) for i in tau]
        return got

    # -- score rules

    def _pairs(self, b: IxBallot, margin: list[list[int]]) -> None:
        """Add one ballot's pairwise contests to ``margin``."""
        m, n = self.m, b[2]
        rank = _rank(b[0], m)
        for x in range(m):
            rx, row = rank[x], margin[x]
            for y in range(m):
                if rank[y] > rx:                 # x ≻ y
                    row[y] += n
                    margin[y][x] -= n

    def iscores(self, extra: Sequence[IxBallot] = ()) -> list[int]:
        """Scores by index with the ``extra`` ballots added (Copeland: 2·wins + ties)."""
        r = self.definition
        if self.rounds_rule:
            raise CertificateError(f"{self.rule} has rounds, not scores")
        m = self.m
        if self.pairwise:
            margin = [row.copy() for row in self.imargin]
            for b in extra:
                self._pairs(b, margin)
            contest = r.contest
            return [sum(contest(row[y]) for y in range(m) if y != x)
                    for x, row in enumerate(margin)]
        s = self.ibase.copy()
        ipoints = r.ipoints
        for b in extra:
            for i, p in ipoints(b[0], b[1], b[2], m).items():
                s[i] += p
        return s

    def scores(self, extra: Sequence[Ballot] = ()) -> dict[str, int]:
        """Scores by name with the ``extra`` ballots added (Copeland: 2·wins + ties)."""
        return dict(zip(self.e.candidates, self.iscores(self.ix(extra))))

    def itop(self, scores: Sequence[int]) -> int:
        """The highest score, ties to the τ-highest: the first in τ order with the best."""
        best = max(scores)
        for i in self.tau_order:
            if scores[i] == best:
                return i
        raise AssertionError("a top score belongs to a candidate")

    def top(self, scores: dict[str, int]) -> str:
        """:meth:`itop` by name."""
        return self.e.candidates[self.itop([scores[x] for x in self.e.candidates])]

    def beats(self, scores: dict[str, int], r: str, c: str) -> bool:
        """r is ranked above c by the resolute rule (score, then τ)."""
        return self.outranks(r, scores[r], c, scores[c])

    def outranks(self, r: str, sr: int, c: str, sc: int) -> bool:
        """r with score ``sr`` is ranked above c with score ``sc`` (score, then τ)."""
        idx = self.idx
        return self.ioutranks(idx[r], sr, idx[c], sc)

    def ioutranks(self, r: int, sr: int, c: int, sc: int) -> bool:
        """:meth:`outranks` on indices."""
        return sr > sc or (sr == sc and self.prio[r] < self.prio[c])

    # -- elimination rules (IRV)

    def ivotes(self, active: int, extra: Sequence[IxBallot] = ()) -> list[int]:
        """The votes of a round among the ``active`` bitmask, by index (0 for the
        inactive): each ballot counts for the rule's ``iround_vote`` (IRV: its
        highest-ranked active candidate when it is the only active member of its
        group)."""
        vote = self.definition.iround_vote
        t = self._cache.get(active)
        if t is None:
            t = [0] * self.m
            for g, n in zip(self.groups, self.counts):
                x = vote(g, active)
                if x is not None:
                    t[x] += n
            self._cache[active] = t
        t = t.copy()
        for b in extra:
            x = vote(b[0], active)
            if x is not None:
                t[x] += b[2]
        return t

    def itally(self, active: int, dead: frozenset = frozenset(),
               extra: Sequence[IxBallot] = ()) -> tuple[list[int], frozenset]:
        """A round's votes among ``active`` and the fixed ballots exhausted after it
        (indices): ``dead`` those exhausted before. Under the ``round`` reading no ballot
        stays exhausted (:meth:`ivotes`); under ``exhaust`` a ballot that counts for
        nobody — an overvote, or nothing left ranked — is exhausted for good."""
        if not self.exhaust:
            return self.ivotes(active, extra), dead
        key = (active, dead)
        vote = self.definition.iround_vote
        if key not in self._rounds:
            t = [0] * self.m
            out = set(dead)
            for i, (g, n) in enumerate(zip(self.groups, self.counts)):
                if i in dead:
                    continue
                x = vote(g, active)
                if x is None:
                    out.add(i)
                else:
                    t[x] += n
            self._rounds[key] = t, frozenset(out)
        t, after = self._rounds[key]
        t = t.copy()
        for b in extra:
            x = vote(b[0], active)
            if x is not None:
                t[x] += b[2]
        return t, after

    def ieliminated(self, active: int, votes: Sequence[int]) -> int:
        """The active candidate with the fewest votes, ties against the τ-lowest."""
        prio, out, key = self.prio, -1, None
        for i in range(self.m):
            if (active >> i) & 1:
                k = (votes[i], -prio[i])
                if key is None or k < key:
                    key, out = k, i
        return out

    def irounds(self, extra: Sequence[IxBallot] = ()
                ) -> tuple[int, list[tuple[int, list[int]]], list[int]]:
        """(winner, (active bitmask, votes) of every round, the eliminated in order)."""
        active, dead = (1 << self.m) - 1, frozenset()
        rounds, out = [], []
        while active & (active - 1):
            t, dead = self.itally(active, dead, extra)
            rounds.append((active, t))
            x = self.ieliminated(active, t)
            out.append(x)
            active &= ~(1 << x)
        return active.bit_length() - 1, rounds, out

    def rounds(self, extra: Sequence[Ballot] = ()) -> tuple[str, list[dict], list[str]]:
        """(winner, the tally of every round by name over its active candidates, the
        eliminated candidates in order)."""
        names = self.e.candidates
        w, rounds, out = self.irounds(self.ix(extra))
        return names[w], [{names[i]: t[i] for i in range(self.m) if (a >> i) & 1}
                          for a, t in rounds], [names[i] for i in out]

    def iwinner(self, extra: Sequence[IxBallot] = ()) -> int:
        """The resolute winner's index with the ``extra`` ballots added."""
        if self.rounds_rule:
            return self.irounds(extra)[0]
        return self.itop(self.iscores(extra))

    def winner(self, extra: Sequence[Ballot] = ()) -> str:
        """The resolute winner's name with the ``extra`` ballots (names) added."""
        return self.e.candidates[self.iwinner(self.ix(extra))]

    def ipair(self, extra: IxBallot, r: int, c: int) -> tuple[int, int]:
        """The scores of r and c with the one ballot ``extra`` added (a score rule reads
        the two entries of the ballot's points; a pairwise rule counts every contest)."""
        if self.rounds_rule or self.pairwise:
            s = self.iscores([extra])
            return s[r], s[c]
        pts = self.definition.ipoints(extra[0], extra[1], extra[2], self.m)
        return self.ibase[r] + pts.get(r, 0), self.ibase[c] + pts.get(c, 0)

    def iwinner_set(self) -> list[int]:
        """Non-resolute winners in τ order: the top scorers; for IRV every candidate that
        wins under some resolution of the elimination ties (parallel universes)."""
        if not self.definition.rounds:
            s = self.iscores()
            best = max(s)
            return [i for i in self.tau_order if s[i] == best]
        memo: dict[tuple[int, frozenset], int] = {}
        m = self.m

        def put(active: int, dead: frozenset) -> int:
            """The winners (a bitmask) from the active bitmask."""
            key = (active, dead)
            if key not in memo:
                if len(memo) > PUT_LIMIT:
                    raise CertificateError("IRV winner set: too many tied eliminations to "
                                           "replay")
                if not active & (active - 1):
                    memo[key] = active
                else:
                    t, after = self.itally(active, dead)
                    low = min(t[i] for i in range(m) if (active >> i) & 1)
                    won = 0
                    for i in range(m):
                        if (active >> i) & 1 and t[i] == low:
                            won |= put(active & ~(1 << i), after)
                    memo[key] = won
            return memo[key]
        won = put((1 << m) - 1, frozenset())
        return [i for i in self.tau_order if (won >> i) & 1]

    def winner_set(self) -> list[str]:
        """:meth:`iwinner_set` by name."""
        return [self.e.candidates[i] for i in self.iwinner_set()]


def sincere_ballot(e: Election, rule: str) -> Ballot:
    """The manipulator's sincere ballot (its true ranking; its approval set)."""
    if e.manipulator is None:
        raise CertificateError("the election has no manipulator")
    return e.manipulator


def sincere_ix(e: Election) -> IxBallot:
    """The manipulator's sincere ballot on integers."""
    man = e.ints.manipulator
    if man is None:
        raise CertificateError("the election has no manipulator")
    return man[0], man[2], 1


def reports(e: Election, rule: str) -> Iterable[tuple[str, ...]]:
    """The ballot space B_r in a fixed order: permutations of the candidates (in their
    listed order, lexicographic) or subsets (by size, then lexicographic)."""
    if known_rule(rule).approval:
        return (s for k in range(e.m + 1) for s in itertools.combinations(e.candidates, k))
    return itertools.permutations(e.candidates)


def ireports(e: Election, rule: str, weight: int = 1) -> Iterable[IxBallot]:
    """:func:`reports` on integers, in the same order (indices follow the listed order):
    each report as a ballot of ``weight``."""
    m = e.m
    if known_rule(rule).approval:
        return (((), sum(1 << i for i in s), weight) for k in range(m + 1)
                for s in itertools.combinations(range(m), k))
    return ((tuple(zip(p)), 0, weight) for p in itertools.permutations(range(m)))


def report_space(e: Election, rule: str) -> int:
    """|B_r|: m! rankings or 2^m subsets."""
    m = len(e.candidates)
    return 2 ** m if known_rule(rule).approval else factorial(m)


def score_json(rule: str, s: int) -> int | float:
    """A score as written in certificates: s / score_unit (Copeland halves its doubled
    score), an integer when it is one."""
    unit = known_rule(rule).score_unit
    return s if unit == 1 else s / unit if s % unit else s // unit


# --------------------------------------------------------------------------- winner

def winner_table(e: Election, rule: str) -> dict:
    """The trusted winner computation: ``{"winner", "winners", "scores"}`` for a score rule
    (Copeland scores as wins + ½ ties) or ``{"winner", "winners", "rounds",
    "eliminated"}`` for IRV. Exactly what the ``winner`` label's solution and certificate
    hold. O(n · m) (Copeland O(n · m²); IRV O(n · m²))."""
    cnt = Count(e.sincere(), rule)
    if cnt.definition.rounds:
        w, rounds, out = cnt.rounds()
        return {"winner": w, "winners": cnt.winner_set(), "rounds": rounds, "eliminated": out}
    s = cnt.iscores()
    names = e.candidates
    return {"winner": names[cnt.itop(s)], "winners": cnt.winner_set(),
            "scores": {x: score_json(rule, v) for x, v in zip(names, s)}}


def check_claimed_winner(e: Election, rule: str, claimed: Any,
                         table: dict | None = None) -> dict:
    """Verify a third party's claimed resolute winner (and, if given, its score table or
    IRV rounds) against the rule's definition with τ. Returns the recomputed table; raises
    CertificateError naming the true winner and the differing entry.

    Use this to audit another library's winner: pass its winner and, when it reports
    them, its scores (``{"scores": {...}}``) or rounds (``{"rounds": [...],
    "eliminated": [...]}``)."""
    truth = winner_table(e, rule)
    if claimed != truth["winner"]:
        shown = truth.get("scores") or {"eliminated": truth["eliminated"]}
        raise CertificateError(f"the {rule} winner is {truth['winner']!r}, not "
                               f"{claimed!r:.40} ({shown})")
    if table:
        for key in ("scores", "rounds", "eliminated"):
            if key in table and _norm(table[key]) != _norm(truth.get(key)):
                raise CertificateError(f"the {key} differ from the recount: {truth.get(key)}")
    return truth


def _norm(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: float(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_norm(x) for x in v]
    return v


def _check_winner_solution(e: Election, rule: str, solution: Any) -> dict:
    if not isinstance(solution, dict):
        raise CertificateError("the winner solution is {'winner', 'winners'}")
    truth = winner_table(e, rule)
    if solution.get("winner") != truth["winner"]:
        raise CertificateError(f"the {rule} winner is {truth['winner']!r}, not "
                               f"{solution.get('winner')!r:.40}")
    if solution.get("winners") != truth["winners"]:
        raise CertificateError(f"the {rule} winner set is {truth['winners']}, not "
                               f"{solution.get('winners')!r:.80}")
    return truth


@SPEC.certificate("score_table", proves={"winner": "determined"}, keys=("scores",))
def check_score_table(e: Election, question: str, params: Any, verdict: str,
                      solution: Any, cert: dict) -> None:
    """Every candidate's score under the rule, recomputed; the winner is the highest, ties
    to the τ-highest, and the winner set is every top scorer (plurality, Borda, approval,
    Copeland as wins + ½ ties)."""
    r = question_rule(e, params)
    rule = r.name
    if r.rounds:
        raise CertificateError(f"{rule} winners are certified by elimination_rounds")
    truth = _check_winner_solution(e, rule, solution)
    claimed = cert.get("scores")
    if not isinstance(claimed, dict) or set(claimed) != set(e.candidates):
        raise CertificateError("score_table needs a score for every candidate")
    for x in e.candidates:
        if float(claimed[x]) != float(truth["scores"][x]):
            raise CertificateError(f"score of {x!r} is {truth['scores'][x]}, not {claimed[x]}")


@SPEC.certificate("elimination_rounds", proves={"winner": "determined"},
                  keys=("eliminated", "rounds"))
def check_elimination_rounds(e: Election, question: str, params: Any, verdict: str,
                             solution: Any, cert: dict) -> None:
    """The IRV rounds recomputed: each round's first-choice tallies over the active
    candidates and its elimination (fewest votes, ties against the τ-lowest); the winner
    set is recomputed over every resolution of the elimination ties."""
    r = question_rule(e, params)
    rule = r.name
    if not r.rounds:
        raise CertificateError("elimination_rounds certify the winners of elimination rules "
                               "(IRV) only")
    truth = _check_winner_solution(e, rule, solution)
    if cert.get("eliminated") != truth["eliminated"]:
        raise CertificateError(f"the eliminations are {truth['eliminated']}, not "
                               f"{cert.get('eliminated')!r:.80}")
    if _norm(cert.get("rounds")) != _norm(truth["rounds"]):
        raise CertificateError("the round tallies differ from the recount")


# --------------------------------------------------------------------------- manipulation

def _ikeys(e: Election) -> list[tuple[int, int]]:
    """The manipulator's order of preference, by candidate index: (true rank — 1 + the
    candidates strictly above it, the unranked at the bottom —, τ index), from its integer
    form in one pass. O(m)."""
    ints = e.ints
    if ints.manipulator is None:
        raise InstanceError("the election has no manipulator")
    groups, rank, _ = ints.manipulator
    m = ints.m
    pos, above = [0] * (len(groups) + 1), 0
    for gi, g in enumerate(groups):      # the group's pos: 1 + the candidates above
        pos[gi] = above + 1
        above += len(g)
    pos[-1] = above + 1                  # the unranked bottom (rank m)
    last = len(groups)
    return [(pos[rank[i]] if rank[i] < m else pos[last], ints.prio[i]) for i in range(m)]


def _check_common(e: Election, rule: str, verdict: str, solution: Any
                  ) -> tuple[Count, int, int, list[tuple[int, int]]]:
    """Shared part of the manipulation checks: the sincere winner, the verdict against
    the claimed best winner, the optimal report replayed. Returns (count, w0, w* as
    indices, the manipulator's keys by index :func:`_ikeys`)."""
    if not isinstance(solution, dict):
        raise CertificateError("the manipulation solution is an object")
    cnt = Count(e, rule)
    names = e.candidates
    w0i = cnt.iwinner([sincere_ix(e)])
    w0 = names[w0i]
    if solution.get("sincere_winner") != w0:
        raise CertificateError(f"the sincere winner is {w0!r}, not "
                               f"{solution.get('sincere_winner')!r:.40}")
    best = solution.get("best_winner")
    bi = cnt.idx.get(best) if isinstance(best, str) else None
    if bi is None:
        raise CertificateError(f"best_winner {best!r:.40} is not a candidate")
    keys = _ikeys(e)                     # true ranks, one pass
    u0, ustar = keys[w0i][0], keys[bi][0]
    manipulable = ustar < u0
    if verdict != ("manipulable" if manipulable else "not_manipulable"):
        raise CertificateError(f"best winner {best!r} against sincere {w0!r} gives "
                               f"{'manipulable' if manipulable else 'not manipulable'}")
    if solution.get("gain") != u0 - ustar:
        raise CertificateError(f"the gain is {u0 - ustar} ranks")
    ballot = solution.get("ballot")
    if manipulable or ballot is not None:
        got = cnt.iwinner([report_ix(e, rule, ballot)])
        if got != bi:
            raise CertificateError(f"the report {ballot!r:.80} elects {names[got]!r}, not "
                                   f"{best!r}")
    elif bi != w0i:
        raise CertificateError("without a report the best winner is the sincere one")
    return cnt, w0i, bi, keys


@SPEC.certificate("enumeration", proves={"manipulation": ("manipulable", "not_manipulable")},
                  keys=(), verifies=COUNTS)
def check_enumeration(e: Election, question: str, params: Any, verdict: str,
                      solution: Any, cert: dict) -> None:
    """Every report of the ballot space (m! rankings or 2^m subsets, at most
    ENUMERATION_LIMIT) replayed: the outcome counts, |M| (strictly better than the sincere
    winner under the true ranking), |B*| (reaching the best achievable utility), w₀ and
    w* (the best reachable winner, ties in true rank to the τ-highest) are recomputed."""
    rule = question_rule(e, params).name
    size = report_space(e, rule)
    if size > ENUMERATION_LIMIT:
        raise CertificateError(f"{size} reports exceed the enumeration limit "
                               f"{ENUMERATION_LIMIT}")
    cnt, w0, best, keys = _check_common(e, rule, verdict, solution)
    names = e.candidates
    outcomes = [0] * e.m
    iwinner = cnt.iwinner
    for q in ireports(e, rule):
        outcomes[iwinner([q])] += 1
    won = min([x for x, k in enumerate(outcomes) if k] + [w0], key=keys.__getitem__)
    if best != won:
        raise CertificateError(f"the best reachable winner is {names[won]!r}")
    u0, ustar = keys[w0][0], keys[best][0]
    want = {"reports": size,
            "profitable": sum(k for x, k in enumerate(outcomes) if keys[x][0] < u0),
            "optimal": sum(k for x, k in enumerate(outcomes) if keys[x][0] == ustar),
            "outcomes": {names[x]: k for x, k in enumerate(outcomes) if k}}
    for key, v in want.items():
        if key in solution and solution[key] != v:
            raise CertificateError(f"{key} is {v}, not {solution.get(key)!r:.80}")


def _refutations(e: Election, best: int, cert: dict, keys: list[tuple[int, int]]
                 ) -> dict[int, Any]:
    """The candidates (indices) the manipulator prefers to ``best`` (``keys``:
    :func:`_ikeys`), each with its proof as written: each must be refuted."""
    refuted = cert.get("refuted")
    if not isinstance(refuted, dict):
        raise CertificateError("the certificate needs 'refuted': candidate -> proof")
    kb, names = keys[best], e.candidates
    need = [x for x in range(e.m) if keys[x] < kb]
    for x in need:
        if names[x] not in refuted:
            raise CertificateError(f"no proof that {names[x]!r} cannot be made to win")
    return {x: refuted[names[x]] for x in need}


def refute_greedy(cnt: Count, c: str, proof: Any, weight: int = 1) -> None:
    """Verify that one manipulator of ``weight`` cannot make ``c`` win (plurality, Borda,
    Copeland: a stuck set; approval: a rival beating c when only c is approved)."""
    admitted(cnt.definition, "greedy")
    _refute(cnt, cnt.idx[c], proof, weight)


def _refute(cnt: Count, c: int, proof: Any, weight: int) -> None:
    """:func:`refute_greedy` once the rule is known to admit the greedy (c: an index;
    the proof as written, names)."""
    names, idx = cnt.e.candidates, cnt.idx
    cn = names[c]
    stuck = set(proof) if isinstance(proof, list) and proof else None
    if stuck is None or len(stuck) != len(proof) or not idx.keys() >= stuck or \
            cn in stuck:
        raise CertificateError(f"a stuck set is a non-empty list of rivals of {cn!r}: "
                               f"{proof!r:.60}")
    prio = cnt.prio
    ps = [idx[x] for x in proof]
    if cnt.definition.approval:
        if len(proof) != 1:
            raise CertificateError("approval: name the one rival that beats c")
        r = ps[0]
        sr, sc = cnt.ipair(((), 1 << c, weight), r, c)
        if not (sr > sc or (sr == sc and prio[r] < prio[c])):  # cnt.ioutranks(…)
            raise CertificateError(f"{proof[0]!r} does not beat {cn!r} when only {cn!r} is "
                                   "approved")
        return
    if cnt.definition.positional:
        # every r of the stuck set takes the same place in its ballot, m − |R| (index of
        # [c, *others, r, *rest]), and c the first: the rule's points at those two places
        # (they depend on the place alone) are c's and each r's
        placed = cnt.placed_points(weight)
        base = cnt.ibase
        sc, p = base[c] + placed[0], placed[len(placed) - len(proof)]
        for r in ps:
            sr = base[r] + p
            if not (sr > sc or (sr == sc and prio[r] < prio[c])):  # cnt.ioutranks(…)
                raise CertificateError(f"{names[r]!r}, placed above the rest of the stuck "
                                       f"set only, does not beat {cn!r}")
        return
    sset = set(ps)
    others = [x for x in cnt.tau_order if x != c and x not in sset]
    in_tau = sorted(ps, key=prio.__getitem__)
    for r in ps:
        rest = in_tau.copy()             # the rest of the stuck set, in τ order
        rest.remove(r)
        ranking = [c, *others, r, *rest]
        # a full strict ranking of distinct candidates by construction (one candidate per
        # group: zip of one list): the ballot report_ix would build, without its checks
        # of a claimed report
        sr, sc = cnt.ipair((tuple(zip(ranking)), 0, weight), r, c)
        if not (sr > sc or (sr == sc and prio[r] < prio[c])):      # cnt.ioutranks(…)
            raise CertificateError(f"{names[r]!r}, placed above the rest of the stuck set "
                                   f"only, does not beat {cn!r}")


@SPEC.certificate("greedy", proves={"manipulation": ("manipulable", "not_manipulable"),
                                    "coalitional_manipulation": "none"}, keys=("refuted",))
def check_greedy(e: Election, question: str, params: Any, verdict: str, solution: Any,
                 cert: dict) -> None:
    """Plurality, Borda, Copeland, approval: every candidate the manipulator prefers to
    the best winner w* is refuted by a stuck set of the greedy of Bartholdi, Tovey &
    Trick (1989) (for approval, a rival beating it when only it is approved); w* is
    elected by the solution's report. For coalitional manipulation with one (weighted)
    manipulator, the candidate itself is refuted."""
    r = question_rule(e, params)
    rule = r.name
    admitted(r, "greedy")
    if question == "coalitional_manipulation":
        if len(params["weights"]) != 1:
            raise CertificateError("the greedy is exact for one manipulator only")
        c = params["candidate"]
        refute_greedy(Count(e.sincere(), rule), c, (cert.get("refuted") or {}).get(c),
                      params["weights"][0])
        return
    cnt, _, best, keys = _check_common(e, rule, verdict, solution)
    for c, proof in _refutations(e, best, cert, keys).items():
        _refute(cnt, c, proof, 1)


def irv_reachable(cnt: Count, weight: int = 1, limit: int = SEARCH_LIMIT
                  ) -> tuple[set[str], int]:
    """Every candidate one manipulator (of ``weight``) can make the IRV winner, and the
    number of search states (active set, manipulator's current top) explored. Raises
    CertificateError above ``limit`` states. Exponential in the worst case."""
    won, n = _ireachable(cnt, weight, limit)
    names = cnt.e.candidates
    return {names[i] for i in range(cnt.m) if (won >> i) & 1}, n


def _ireachable(cnt: Count, weight: int, limit: int) -> tuple[int, int]:
    """:func:`irv_reachable` on integers: (the reachable winners as a bitmask, the number
    of states); a state is (active bitmask, the manipulator's current top)."""
    memo: dict[tuple[int, int], int] = {}
    m = cnt.m
    votes, eliminated = cnt.ivotes, cnt.ieliminated

    def go(active: int, t: int) -> int:
        key = (active, t)
        if key in memo:
            return memo[key]
        if len(memo) >= limit:
            raise CertificateError(f"the IRV search exceeds {limit} states")
        memo[key] = 0
        if not active & (active - 1):
            res = active
        else:
            tally = votes(active)
            tally[t] += weight
            x = eliminated(active, tally)
            nxt = active & ~(1 << x)
            if x != t:
                res = go(nxt, t)
            else:
                res = 0
                for u in range(m):
                    if (nxt >> u) & 1:
                        res |= go(nxt, u)
        memo[key] = res
        return res
    everyone = (1 << m) - 1
    won = 0
    for t in range(m):
        won |= go(everyone, t)
    return won, len(memo)


@SPEC.certificate("elimination_search", proves={
    "manipulation": ("manipulable", "not_manipulable"), "coalitional_manipulation": "none"},
    keys=("states",))
def check_elimination_search(e: Election, question: str, params: Any, verdict: str,
                             solution: Any, cert: dict) -> None:
    """IRV, one manipulator: the checker's own search over (active candidates, the
    manipulator's current top) — the only part of a report that matters in a round —
    recomputes the reachable winners (the certificate's ``states`` must match the count;
    refused above SEARCH_LIMIT); w* is the best reachable, elected by the solution's
    report. Coalitional with one manipulator: the candidate is not reachable."""
    r = question_rule(e, params)
    rule = r.name
    admitted(r, "elimination_search")
    states = cert.get("states")
    if not isinstance(states, int) or states > SEARCH_LIMIT:
        raise CertificateError(f"states must be an integer ≤ {SEARCH_LIMIT}")
    if question == "coalitional_manipulation":
        if len(params["weights"]) != 1:
            raise CertificateError("the search covers one manipulator only")
        cnt = Count(e.sincere(), rule)
        won, n = _ireachable(cnt, params["weights"][0], states + 1)
        ci = cnt.idx.get(params["candidate"])
        if ci is not None and (won >> ci) & 1:
            raise CertificateError(f"{params['candidate']!r} can be made to win")
    else:
        cnt, w0, best, keys = _check_common(e, rule, verdict, solution)
        won, n = _ireachable(cnt, 1, states + 1)
        won |= 1 << w0
        top = min((i for i in range(e.m) if (won >> i) & 1), key=keys.__getitem__)
        if best != top:
            raise CertificateError(f"the best reachable winner is {e.candidates[top]!r}")
    if n != states:
        raise CertificateError(f"the search has {n} states, not {states}")


# --------------------------------------------------------------------------- coalitions

@SPEC.certificate("ballots", proves={"coalitional_manipulation": "exists"}, keys=())
def check_ballots(e: Election, question: str, params: Any, verdict: str, solution: Any,
                  cert: dict) -> None:
    """The manipulators' reports (one per weight, in order), added to the ballots, elect
    the candidate."""
    rule = question_rule(e, params).name
    weights = params["weights"]
    got = solution.get("ballots") if isinstance(solution, dict) else None
    if not isinstance(got, list) or len(got) != len(weights):
        raise CertificateError(f"the solution needs {len(weights)} reports under 'ballots'")
    extra = [report_ix(e, rule, q, w) for q, w in zip(got, weights)]
    w = e.candidates[Count(e.sincere(), rule).iwinner(extra)]
    if w != params["candidate"]:
        raise CertificateError(f"the reports elect {w!r}, not {params['candidate']!r}")


@SPEC.certificate("dominant", proves={"coalitional_manipulation": "none"}, keys=("by",))
def check_dominant(e: Election, question: str, params: Any, verdict: str, solution: Any,
                   cert: dict) -> None:
    """Plurality and approval: every manipulator putting the candidate on top (approving
    it alone) is its best joint report, and the candidate still loses to ``by``."""
    r, c = question_rule(e, params), params["candidate"]
    rule = r.name
    admitted(r, "dominant")
    cnt = Count(e.sincere(), rule)
    ci = cnt.idx[c]
    if r.approval:
        report: tuple[tuple[tuple[int, ...], ...], int] = ((), 1 << ci)
    else:
        report = (((ci,), *((x,) for x in cnt.tau_order if x != ci)), 0)
    s = cnt.iscores([(*report, w) for w in params["weights"]])
    by = cert.get("by")
    bi = cnt.idx.get(by) if isinstance(by, str) else None
    if bi is None or bi == ci or not cnt.ioutranks(bi, s[bi], ci, s[ci]):
        raise CertificateError(f"{cert.get('by')!r:.40} does not beat {c!r} under the "
                               "dominant reports")


def borda_caps(cnt: Count, c: int, weights: Sequence[int]) -> tuple[dict[int, int], int]:
    """Borda, c (an index) ranked first by every manipulator: each rival's room (the most
    points it may still receive without beating c) and the points the manipulators hand
    the rivals, W (m − 1)(m − 2) / 2."""
    m, total = cnt.m, sum(weights)
    base, prio = cnt.ibase, cnt.prio
    sc = base[c] + total * (m - 1)
    caps = {d: sc - base[d] - (1 if prio[d] < prio[c] else 0) for d in range(m) if d != c}
    return caps, total * (m - 1) * (m - 2) // 2


@SPEC.certificate("score_bound", proves={"coalitional_manipulation": "none"}, keys=())
def check_score_bound(e: Election, question: str, params: Any, verdict: str,
                      solution: Any, cert: dict) -> None:
    """Borda: the manipulators cannot elect c. With c first everywhere, each rival d has
    room cap(d) and the rivals must absorb T = W(m−1)(m−2)/2 points, at most W(m−2) each:
    some cap is negative, or Σ min(cap, W(m−2)) < T; lowering c anywhere (by δ ≥ 1 points)
    gives each rival at most W(m−1) and costs δ of every cap while adding δ to T, so
    Σ min(cap − 1, W(m−1)) < T + 1 rules it out."""
    r, c, weights = question_rule(e, params), params["candidate"], params["weights"]
    rule = r.name
    admitted(r, "score_bound")
    cnt = Count(e.sincere(), rule)
    caps, need = borda_caps(cnt, cnt.idx[c], weights)
    W, m = sum(weights), e.m
    if min(caps.values(), default=0) < 0:
        return
    first = sum(min(v, W * (m - 2)) for v in caps.values()) < need
    lower = sum(max(0, min(v - 1, W * (m - 1))) for v in caps.values()) < need + 1
    if not (first and lower):
        raise CertificateError("the counting bound does not rule the candidate out")


@SPEC.certificate("pairwise_bound", proves={"coalitional_manipulation": "none"}, keys=("by",))
def check_pairwise_bound(e: Election, question: str, params: Any, verdict: str,
                         solution: Any, cert: dict) -> None:
    """Copeland: the rival ``by`` beats the candidate even when the manipulators (total
    weight W) push every contest to its extreme independently — c's margins up by W,
    ``by``'s margins down by W (a contest moves by at most W, keeping the parity of its
    margin plus W) — so no joint report elects the candidate."""
    r, c, W = question_rule(e, params), params["candidate"], sum(params["weights"])
    rule = r.name
    admitted(r, "pairwise_bound")
    by = cert.get("by")
    if not isinstance(by, str) or by not in e.candidates or by == c:
        raise CertificateError("pairwise_bound names the rival 'by'")
    cnt = Count(e.sincere(), rule)
    pt = r.contest
    ci, bi, mg = cnt.idx[c], cnt.idx[by], cnt.imargin
    best_c = sum(pt(mg[ci][y] + W) for y in range(e.m) if y != ci)
    worst_by = sum(pt(mg[bi][y] - W) for y in range(e.m) if y != bi)
    if not cnt.ioutranks(bi, worst_by, ci, best_c):
        raise CertificateError(f"{by!r} does not beat {c!r} at the extremes")


def coalition_reports(e: Election, rule: str, weights: Sequence[int]
                      ) -> Iterable[list[tuple[tuple[str, ...], int]]]:
    """Every joint report up to the symmetry of equal weights: a multiset of reports per
    weight class."""
    groups: dict[int, int] = {}
    for w in weights:
        groups[w] = groups.get(w, 0) + 1
    space = list(reports(e, rule))
    per = [[(combo, w) for combo in itertools.combinations_with_replacement(range(len(space)), k)]
           for w, k in sorted(groups.items())]
    for pick in itertools.product(*per):
        yield [(space[i], w) for combo, w in pick for i in combo]


def coalition_space(e: Election, rule: str, weights: Sequence[int]) -> int:
    """The number of joint reports up to equal-weight symmetry."""
    n = report_space(e, rule)
    out = 1
    for w in set(weights):
        k = list(weights).count(w)
        out *= comb(n + k - 1, k)
    return out


@SPEC.certificate("coalition_enumeration", proves={"coalitional_manipulation": "none"},
                  keys=())
def check_coalition_enumeration(e: Election, question: str, params: Any, verdict: str,
                                solution: Any, cert: dict) -> None:
    """Every joint report (multisets of reports within each weight, at most
    COALITION_LIMIT) replayed: none elects the candidate."""
    rule, c, weights = question_rule(e, params).name, params["candidate"], params["weights"]
    size = coalition_space(e, rule, weights)
    if size > COALITION_LIMIT:
        raise CertificateError(f"{size} joint reports exceed the limit {COALITION_LIMIT}")
    cnt = Count(e.sincere(), rule)
    ci = cnt.idx[c]
    groups: dict[int, int] = {}
    for w in weights:
        groups[w] = groups.get(w, 0) + 1
    space = list(ireports(e, rule))      # the order of coalition_reports
    per = [[(combo, w) for combo in itertools.combinations_with_replacement(range(len(space)),
                                                                             k)]
           for w, k in sorted(groups.items())]
    iwinner = cnt.iwinner
    for pick in itertools.product(*per):
        if iwinner([(*space[i][:2], w) for combo, w in pick for i in combo]) == ci:
            names = list(reports(e, rule))
            joint = [(names[i], w) for combo, w in pick for i in combo]
            raise CertificateError(f"the joint report {joint} elects {c!r}")


__all__ = ["SPEC", "QUESTIONS", "Count", "IxBallot", "winner_table", "check_claimed_winner",
           "report_ballot", "report_ix", "reports", "ireports", "report_space",
           "irv_reachable", "refute_greedy"]
