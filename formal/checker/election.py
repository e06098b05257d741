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


def report_ballot(e: Election, rule: str, report: Any, weight: int = 1) -> Ballot:
    """A manipulator's report as a ballot: a full strict ranking of every candidate
    (ranking rules) or a subset (approval; the empty set allowed). Raises
    CertificateError for anything else."""
    r = known_rule(rule)
    if not isinstance(report, (list, tuple)) or \
            not all(map(isinstance, report, itertools.repeat(str))):
        raise CertificateError(f"a report is a list of candidates, not {report!r:.60}")
    named = set(report)
    if len(named) != len(report) or not named.issubset(e.candidates):
        raise CertificateError(f"report {list(report)!r:.80} repeats or names an unknown "
                               "candidate")
    if r.approval:
        return Ballot((), weight, frozenset(report), True)
    if len(report) != len(e.candidates):
        raise CertificateError(f"a {rule} report ranks every candidate: {list(report)!r:.80}")
    return Ballot(tuple(zip(report)), weight, frozenset())


class Count:
    """A rule evaluated on an election's ballots plus added ballots (reports).

    Score and pairwise rules: ``scores(extra)`` (stored as ``score_unit`` × the score:
    Copeland 2·wins + ties); elimination rules (IRV): ``rounds(extra)``. ``winner(extra)``
    is the τ-resolved winner. The fixed ballots are tallied once, so each evaluation costs
    O(m) (O(m²) pairwise, O(m · rounds) elimination with the per-active-set tallies of the
    fixed ballots cached). ``rule``: a registered rule's name (:mod:`formal.rules`);
    CertificateError for any other. Under the ``exhaust`` reading of overvotes (the
    election's ``overvote`` convention) a ballot that counts for nobody in a round stays
    exhausted: a round's tally then depends on the exhausted ballots too (:meth:`tally`)."""

    def __init__(self, e: Election, rule: str, ballots: Iterable[Ballot] | None = None):
        self.definition = r = known_rule(rule)
        self.e, self.rule = e, rule
        self.pairwise, self.rounds_rule = r.pairwise, r.rounds
        cands = e.candidates
        self.tau = {x: i for i, x in enumerate(e.tie_break)}   # (a comprehension: cheaper
        # than dict(zip(...)) at these sizes, the same dict)
        self.fixed = fixed = e.ballots if ballots is None else tuple(ballots)
        self.exhaust = e.conventions.get("overvote") == "exhaust"
        self._cache: dict[frozenset, dict[str, int]] = {}
        self._rounds: dict[tuple[frozenset, frozenset], tuple[dict, frozenset]] = {}
        self._placed: dict[int, list[int]] = {}
        if r.pairwise:
            self.margin = {(x, y): 0 for x in cands for y in cands if x != y}
            for b in fixed:
                self._pairs(b, self.margin)
        elif not r.rounds:
            self.base = r.tally(fixed, cands)     # Σ points over the fixed ballots

    @property
    def names(self) -> frozenset:
        """The candidates, as a set (built when asked: the keys of ``tau``, τ being an
        order of exactly the candidates, answer the membership tests)."""
        return frozenset(self.e.candidates)

    def placed_points(self, weight: int) -> list[int]:
        """A positional rule (``positional``: plurality, Borda): the points of the
        candidate at each position of a full strict ranking of ``weight`` voters, read
        from the rule's ``points`` of one such ballot (τ order) and kept per weight, so
        each stuck set of a ``greedy`` certificate is verified without a ballot of its
        own. O(m) the first time per weight."""
        got = self._placed.get(weight)
        if got is None:
            tau = self.e.tie_break
            pts = self.definition.points(Ballot(tuple(zip(tau)), weight, frozenset()),
                                         self.e.candidates)
            got = self._placed[weight] = [pts.get(x, 0) for x in tau]
        return got

    # -- contributions of one ballot

    def _pairs(self, b: Ballot, margin: dict) -> None:
        ranked: list[str] = []
        for g in b.ranking:
            for x in g:
                for y in ranked:                 # y ≻ x
                    margin[(y, x)] += b.count
                    margin[(x, y)] -= b.count
            ranked.extend(g)
        rest = [x for x in self.e.candidates if x not in set(ranked)]
        for y in ranked:
            for x in rest:
                margin[(y, x)] += b.count
                margin[(x, y)] -= b.count

    # -- score rules

    def scores(self, extra: Sequence[Ballot] = ()) -> dict[str, int]:
        """Scores with the ``extra`` ballots added (Copeland: 2·wins + ties)."""
        r = self.definition
        if self.rounds_rule:
            raise CertificateError(f"{self.rule} has rounds, not scores")
        cands = self.e.candidates
        if self.pairwise:
            margin = dict(self.margin)
            for b in extra:
                self._pairs(b, margin)
            return {x: sum(r.contest(margin[(x, y)]) for y in cands if y != x)
                    for x in cands}
        s = dict(self.base)
        points = r.points
        for b in extra:
            for x, p in points(b, cands).items():
                s[x] += p
        return s

    def top(self, scores: dict[str, int]) -> str:
        """The highest score, ties to the τ-highest: the first in τ order with the best."""
        best = max(scores.values())
        for x in self.e.tie_break:
            if scores[x] == best:
                return x
        raise AssertionError("a top score belongs to a candidate")

    def beats(self, scores: dict[str, int], r: str, c: str) -> bool:
        """r is ranked above c by the resolute rule (score, then τ)."""
        return self.outranks(r, scores[r], c, scores[c])

    def outranks(self, r: str, sr: int, c: str, sc: int) -> bool:
        """r with score ``sr`` is ranked above c with score ``sc`` (score, then τ)."""
        return sr > sc or (sr == sc and self.tau[r] < self.tau[c])

    # -- elimination rules (IRV)

    def irv_tally(self, active: frozenset, extra: Sequence[Ballot] = ()) -> dict[str, int]:
        """The votes of a round among ``active``: each ballot counts for the rule's
        ``round_vote`` (IRV: its highest-ranked active candidate when it is the only
        active member of its group)."""
        vote = self.definition.round_vote
        if active not in self._cache:
            t = {x: 0 for x in self.e.candidates if x in active}
            for b in self.fixed:
                x = vote(b, active)
                if x is not None:
                    t[x] += b.count
            self._cache[active] = t
        t = dict(self._cache[active])
        for b in extra:
            x = vote(b, active)
            if x is not None:
                t[x] += b.count
        return t

    def tally(self, active: frozenset, dead: frozenset = frozenset(),
              extra: Sequence[Ballot] = ()) -> tuple[dict[str, int], frozenset]:
        """A round's votes among ``active`` and the fixed ballots exhausted after it
        (indices): ``dead`` those exhausted before. Under the ``round`` reading no ballot
        stays exhausted (:meth:`irv_tally`); under ``exhaust`` a ballot that counts for
        nobody — an overvote, or nothing left ranked — is exhausted for good."""
        if not self.exhaust:
            return self.irv_tally(active, extra), dead
        key = (active, dead)
        if key not in self._rounds:
            vote = self.definition.round_vote
            t = {x: 0 for x in self.e.candidates if x in active}
            out = set(dead)
            for i, b in enumerate(self.fixed):
                if i in dead:
                    continue
                x = vote(b, active)
                if x is None:
                    out.add(i)
                else:
                    t[x] += b.count
            self._rounds[key] = t, frozenset(out)
        t, out = self._rounds[key]
        t = dict(t)
        for b in extra:
            x = self.definition.round_vote(b, active)
            if x is not None:
                t[x] += b.count
        return t, out

    def eliminated(self, tally: dict[str, int]) -> str:
        """The active candidate with the fewest votes, ties against the τ-lowest."""
        low = min(tally.values())
        return max((x for x, v in tally.items() if v == low), key=self.tau.__getitem__)

    def rounds(self, extra: Sequence[Ballot] = ()) -> tuple[str, list[dict], list[str]]:
        """(winner, the tally of every round, the eliminated candidates in order)."""
        active, dead = frozenset(self.e.candidates), frozenset()
        rounds, out = [], []
        while len(active) > 1:
            t, dead = self.tally(active, dead, extra)
            rounds.append(t)
            x = self.eliminated(t)
            out.append(x)
            active = active - {x}
        return next(iter(active)), rounds, out

    def winner(self, extra: Sequence[Ballot] = ()) -> str:
        if self.rounds_rule:
            return self.rounds(extra)[0]
        return self.top(self.scores(extra))

    def pair(self, extra: Ballot, r: str, c: str) -> tuple[int, int]:
        """The scores of r and c with the one ballot ``extra`` added (a score rule reads
        the two entries of the ballot's points; a pairwise rule counts every contest)."""
        if self.rounds_rule or self.pairwise:
            s = self.scores([extra])
            return s[r], s[c]
        pts = self.definition.points(extra, self.e.candidates)
        return self.base[r] + pts.get(r, 0), self.base[c] + pts.get(c, 0)

    def winner_set(self) -> list[str]:
        """Non-resolute winners in τ order: the top scorers; for IRV every candidate that
        wins under some resolution of the elimination ties (parallel universes)."""
        if not self.definition.rounds:
            s = self.scores()
            best = max(s.values())
            return [x for x in self.e.tie_break if s[x] == best]
        memo: dict[tuple[frozenset, frozenset], frozenset] = {}

        def put(active: frozenset, dead: frozenset) -> frozenset:
            key = (active, dead)
            if key not in memo:
                if len(memo) > PUT_LIMIT:
                    raise CertificateError("IRV winner set: too many tied eliminations to "
                                           "replay")
                if len(active) == 1:
                    memo[key] = active
                else:
                    t, after = self.tally(active, dead)
                    low = min(t.values())
                    memo[key] = frozenset().union(
                        *(put(active - {x}, after) for x, v in t.items() if v == low))
            return memo[key]
        won = put(frozenset(self.e.candidates), frozenset())
        return [x for x in self.e.tie_break if x in won]


def sincere_ballot(e: Election, rule: str) -> Ballot:
    """The manipulator's sincere ballot (its true ranking; its approval set)."""
    if e.manipulator is None:
        raise CertificateError("the election has no manipulator")
    return e.manipulator


def reports(e: Election, rule: str) -> Iterable[tuple[str, ...]]:
    """The ballot space B_r in a fixed order: permutations of the candidates (in their
    listed order, lexicographic) or subsets (by size, then lexicographic)."""
    if known_rule(rule).approval:
        return (s for k in range(e.m + 1) for s in itertools.combinations(e.candidates, k))
    return itertools.permutations(e.candidates)


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
    s = cnt.scores()
    return {"winner": cnt.top(s), "winners": cnt.winner_set(),
            "scores": {x: score_json(rule, s[x]) for x in e.candidates}}


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

def _key(e: Election, x: str) -> tuple[int, int]:
    """Order of preference of the manipulator: true rank, then τ."""
    return e.true_pos(x), e.tie_break.index(x)


def _keys(e: Election) -> dict[str, tuple[int, int]]:
    """:func:`_key` of every candidate, in one pass over the true ranking. O(m)."""
    if e.manipulator is None:
        raise InstanceError("the election has no manipulator")
    ranking, m = e.manipulator.ranking, len(e.candidates)
    if len(ranking) == m:                # m groups of distinct candidates: one each
        pos = {g[0]: i for i, g in enumerate(ranking, 1)}
        return {x: (pos[x], i) for i, x in enumerate(e.tie_break)}
    pos, above = {}, 0
    for g in ranking:
        for x in g:
            pos[x] = above + 1
        above += len(g)
    bottom = above + 1                   # x -> (pos, or above + 1 unranked; τ index)
    return {x: (pos.get(x, bottom), i) for i, x in enumerate(e.tie_break)}


def _best(e: Election, reachable: Iterable[str]) -> str:
    return min(reachable, key=lambda x: _key(e, x))


def _check_common(e: Election, rule: str, verdict: str, solution: Any,
                  reachable_best: str | None = None
                  ) -> tuple[Count, str, str, dict[str, tuple[int, int]]]:
    """Shared part of the manipulation checks: the sincere winner, the verdict against
    the claimed best winner, the optimal report replayed. Returns (count, w0, w*, the
    manipulator's keys :func:`_keys`)."""
    if not isinstance(solution, dict):
        raise CertificateError("the manipulation solution is an object")
    cnt = Count(e, rule)
    w0 = cnt.winner([sincere_ballot(e, rule)])
    if solution.get("sincere_winner") != w0:
        raise CertificateError(f"the sincere winner is {w0!r}, not "
                               f"{solution.get('sincere_winner')!r:.40}")
    best = solution.get("best_winner")
    if best not in e.candidates:
        raise CertificateError(f"best_winner {best!r:.40} is not a candidate")
    keys = _keys(e)                      # true ranks, one pass
    u0, ustar = keys[w0][0], keys[best][0]
    manipulable = ustar < u0
    if verdict != ("manipulable" if manipulable else "not_manipulable"):
        raise CertificateError(f"best winner {best!r} against sincere {w0!r} gives "
                               f"{'manipulable' if manipulable else 'not manipulable'}")
    if solution.get("gain") != u0 - ustar:
        raise CertificateError(f"the gain is {u0 - ustar} ranks")
    ballot = solution.get("ballot")
    if manipulable or ballot is not None:
        got = cnt.winner([report_ballot(e, rule, ballot)])
        if got != best:
            raise CertificateError(f"the report {ballot!r:.80} elects {got!r}, not {best!r}")
    elif best != w0:
        raise CertificateError("without a report the best winner is the sincere one")
    return cnt, w0, best, keys


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
    cnt, w0, best, _ = _check_common(e, rule, verdict, solution)
    outcomes = dict.fromkeys(e.candidates, 0)
    for q in reports(e, rule):
        outcomes[cnt.winner([report_ballot(e, rule, q)])] += 1
    reach = [x for x, k in outcomes.items() if k] + [w0]
    if best != _best(e, reach):
        raise CertificateError(f"the best reachable winner is {_best(e, reach)!r}")
    u0, ustar = e.true_pos(w0), e.true_pos(best)
    want = {"reports": size,
            "profitable": sum(k for x, k in outcomes.items() if e.true_pos(x) < u0),
            "optimal": sum(k for x, k in outcomes.items() if e.true_pos(x) == ustar),
            "outcomes": {x: k for x, k in outcomes.items() if k}}
    for key, v in want.items():
        if key in solution and solution[key] != v:
            raise CertificateError(f"{key} is {v}, not {solution.get(key)!r:.80}")


def _refutations(e: Election, best: str, cert: dict, keys: dict) -> dict:
    """The candidates the manipulator prefers to ``best`` (``keys``: :func:`_keys`), each
    of which must be refuted."""
    refuted = cert.get("refuted")
    if not isinstance(refuted, dict):
        raise CertificateError("the certificate needs 'refuted': candidate -> proof")
    kb = keys[best]
    need = [x for x in e.candidates if keys[x] < kb]
    if not refuted.keys() >= set(need):
        missing = next(x for x in need if x not in refuted)
        raise CertificateError(f"no proof that {missing!r} cannot be made to win")
    return {x: refuted[x] for x in need}


def refute_greedy(cnt: Count, c: str, proof: Any, weight: int = 1) -> None:
    """Verify that one manipulator of ``weight`` cannot make ``c`` win (plurality, Borda,
    Copeland: a stuck set; approval: a rival beating c when only c is approved)."""
    admitted(cnt.definition, "greedy")
    _refute(cnt, c, proof, weight)


def _refute(cnt: Count, c: str, proof: Any, weight: int) -> None:
    """:func:`refute_greedy` once the rule is known to admit the greedy."""
    stuck = set(proof) if isinstance(proof, list) and proof else None
    if stuck is None or len(stuck) != len(proof) or not cnt.tau.keys() >= stuck or \
            c in stuck:
        raise CertificateError(f"a stuck set is a non-empty list of rivals of {c!r}: "
                               f"{proof!r:.60}")
    if cnt.definition.approval:
        if len(proof) != 1:
            raise CertificateError("approval: name the one rival that beats c")
        r = proof[0]
        sr, sc = cnt.pair(Ballot((), weight, frozenset([c]), True), r, c)
        if not (sr > sc or (sr == sc and cnt.tau[r] < cnt.tau[c])):  # cnt.outranks(…)
            raise CertificateError(f"{proof[0]!r} does not beat {c!r} when only {c!r} is "
                                   "approved")
        return
    tau = cnt.tau
    if cnt.definition.positional:
        # every r of the stuck set takes the same place in its ballot, m − |R| (index of
        # [c, *others, r, *rest]), and c the first: the rule's points at those two places
        # (they depend on the place alone) are c's and each r's
        placed = cnt.placed_points(weight)
        base = cnt.base
        sc, p = base[c] + placed[0], placed[len(placed) - len(proof)]
        for r in proof:
            sr = base[r] + p
            if not (sr > sc or (sr == sc and tau[r] < tau[c])):  # cnt.outranks(r, sr, c, sc)
                raise CertificateError(f"{r!r}, placed above the rest of the stuck set only, "
                                       f"does not beat {c!r}")
        return
    others = list(cnt.e.tie_break)       # τ order without c and the stuck set
    others.remove(c)
    for r in proof:
        others.remove(r)
    in_tau = sorted(proof, key=tau.__getitem__)
    for r in proof:
        rest = in_tau.copy()             # the rest of the stuck set, in τ order
        rest.remove(r)
        ranking = [c, *others, r, *rest]
        # a full strict ranking of distinct candidates by construction (one candidate per
        # group: zip of one list): the ballot report_ballot would build, without its
        # checks of a claimed report
        sr, sc = cnt.pair(Ballot(tuple(zip(ranking)), weight, frozenset()), r, c)
        if not (sr > sc or (sr == sc and tau[r] < tau[c])):      # cnt.outranks(r, sr, c, sc)
            raise CertificateError(f"{r!r}, placed above the rest of the stuck set only, "
                                   f"does not beat {c!r}")


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
    cnt, w0, best, keys = _check_common(e, rule, verdict, solution)
    for c, proof in _refutations(e, best, cert, keys).items():
        _refute(cnt, c, proof, 1)


def irv_reachable(cnt: Count, weight: int = 1, limit: int = SEARCH_LIMIT
                  ) -> tuple[set[str], int]:
    """Every candidate one manipulator (of ``weight``) can make the IRV winner, and the
    number of search states (active set, manipulator's current top) explored. Raises
    CertificateError above ``limit`` states. Exponential in the worst case."""
    memo: dict[tuple[frozenset, str], frozenset] = {}

    def go(active: frozenset, t: str) -> frozenset:
        key = (active, t)
        if key in memo:
            return memo[key]
        if len(memo) >= limit:
            raise CertificateError(f"the IRV search exceeds {limit} states")
        memo[key] = frozenset()
        if len(active) == 1:
            res = active
        else:
            tally = cnt.irv_tally(active)
            tally[t] += weight
            x = cnt.eliminated(tally)
            if x != t:
                res = go(active - {x}, t)
            else:
                res = frozenset().union(*(go(active - {x}, u) for u in active if u != x))
        memo[key] = res
        return res
    everyone = frozenset(cnt.e.candidates)
    won = frozenset().union(*(go(everyone, t) for t in cnt.e.candidates))
    return set(won), len(memo)


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
        won, n = irv_reachable(Count(e.sincere(), rule), params["weights"][0], states + 1)
        if params["candidate"] in won:
            raise CertificateError(f"{params['candidate']!r} can be made to win")
    else:
        cnt, w0, best, _ = _check_common(e, rule, verdict, solution)
        won, n = irv_reachable(cnt, 1, states + 1)
        if best != _best(e, won | {w0}):
            raise CertificateError(f"the best reachable winner is {_best(e, won | {w0})!r}")
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
    extra = [report_ballot(e, rule, q, w) for q, w in zip(got, weights)]
    w = Count(e.sincere(), rule).winner(extra)
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
    report = [c] if r.approval else [c, *(x for x in e.tie_break if x != c)]
    s = cnt.scores([report_ballot(e, rule, report, w) for w in params["weights"]])
    by = cert.get("by")
    if not isinstance(by, str) or by not in s or by == c or not cnt.beats(s, by, c):
        raise CertificateError(f"{cert.get('by')!r:.40} does not beat {c!r} under the "
                               "dominant reports")


def borda_caps(cnt: Count, c: str, weights: Sequence[int]) -> tuple[dict[str, int], int]:
    """Borda, c ranked first by every manipulator: each rival's room (the most points it
    may still receive without beating c) and the points the manipulators hand the
    rivals, W (m − 1)(m − 2) / 2."""
    m, total = cnt.e.m, sum(weights)
    sc = cnt.base[c] + total * (m - 1)
    caps = {d: sc - cnt.base[d] - (1 if cnt.tau[d] < cnt.tau[c] else 0)
            for d in cnt.e.candidates if d != c}
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
    caps, need = borda_caps(cnt, c, weights)
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
    best_c = sum(pt(cnt.margin[(c, y)] + W) for y in e.candidates if y != c)
    worst_by = sum(pt(cnt.margin[(by, y)] - W) for y in e.candidates if y != by)
    if not cnt.beats({c: best_c, by: worst_by}, by, c):
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
    for joint in coalition_reports(e, rule, weights):
        if cnt.winner([report_ballot(e, rule, q, w) for q, w in joint]) == c:
            raise CertificateError(f"the joint report {joint} elects {c!r}")


__all__ = ["SPEC", "QUESTIONS", "Count", "winner_table", "check_claimed_winner",
           "report_ballot", "reports", "report_space", "irv_reachable", "refute_greedy"]
