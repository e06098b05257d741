"""Voting rules: the one table of the trusted layer.

A rule is a class registered with :func:`rule` (``@rule("borda", ...)``): its ballot kind
(``ranked`` or ``approval``), the rule-specific certificate arguments its definition
admits (``proofs``: ``greedy``, ``dominant``, ``score_bound`` …) and the definitions the
checker recomputes. :mod:`formal.election` validates rule names against :data:`RULES`
and writes them into the JSON Schema; :mod:`formal.checker.election` counts elections with
the rule's election definition; :mod:`formal.preference` and
:mod:`formal.checker.preference` evaluate and bound completed profiles with its
preference definition. Unknown names are refused by :func:`rule_named`, naming the value
and the known rules.

**Elections** (ballots of :mod:`formal.election`: weak orders, possibly truncated — the
unranked tie at the bottom — with counts; or approval sets). A rule is exactly one of

- a *score rule*: ``points(ballot, candidates)`` gives the points of one ballot line
  (its count included) to the election's ``candidates``; a candidate's score is the sum
  over the ballots;
- a *pairwise rule*: ``contest(margin)`` gives the points a candidate earns from one
  pairwise contest whose majority margin (voters ranking it above the rival minus those
  ranking the rival above it) is ``margin``; its score is the sum over its rivals;
- an *elimination rule* (``rounds = True``): ``round_vote(ballot, active)`` is the active
  candidate a ballot counts for in a round (None: exhausted for the round); each round
  eliminates the active candidate with the fewest votes.

The checker counts elections on their integer form (:class:`formal.election.ElectionInts`:
candidates ``0..m-1``, a ballot as its tie groups of indices, its approval bitmask and its
count): a score rule also defines ``ipoints(groups, approved, count, m)``, the points of
one ballot line by candidate index, and an elimination rule ``iround_vote(groups,
active)`` on an active bitmask; each is the name-based definition renumbered (tested
equal to it).

The resolute winner of a score or pairwise rule is the highest score, ties to the
τ-highest; an elimination tie eliminates the τ-lowest (:mod:`formal.election`).

**Completed profiles** (``[(linear order, voters)]``, :mod:`formal.preference`). A rule
that supports incomplete profiles (the ``winner`` question: necessary and possible
co-winners) also defines ``linear_scores(items, profile)``, every item's score, and
``min_diff(profile, c, d)``, a lower bound of score(c) − score(d) over every completion of
a :class:`PartialProfile` (exact for the rules whose difference is minimised vote by vote,
Xia & Conitzer 2011). The upper bound is −min_diff(profile, d, c).

Adding a rule: one class here (its engines' twins are registered under the same name in
``oracles/rules.py`` and ``encodings/rules.py``). Standard library only.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import InstanceError

#: Ballot kinds: full strict rankings are reported (and any weak order is counted) under
#: ``ranked`` rules; subsets of the candidates under ``approval`` rules.
BALLOTS = ("ranked", "approval")


@dataclass(frozen=True)
class Vote:
    """One agent's datum as the bounds read it: ``count`` voters, and ``below(x)`` /
    ``above(x)`` the items below / above x in every completion (the transitive closure)."""

    count: int
    below: Callable[[str], frozenset]
    above: Callable[[str], frozenset]


@dataclass(frozen=True)
class PartialProfile:
    """An incomplete profile as the bounds read it: ``items``, the number of ``voters``,
    one :class:`Vote` per agent, and ``count_range(a, b)``: (min, max) over completions of
    the voters ranking a ≻ b."""

    items: tuple
    voters: int
    votes: Sequence[Vote]
    count_range: Callable[[str, str], tuple[int, int]]

    @property
    def m(self) -> int:
        return len(self.items)


class Rule:
    """A voting rule (see the module docstring). Subclasses are registered with
    :func:`rule`, which sets ``name``, ``ballot`` and ``proofs``; the docstring's first
    paragraph is the rule's ``doc``."""

    name: str = ""
    ballot: str = "ranked"
    #: the rule-specific certificate types whose argument holds for the rule's definition
    proofs: frozenset = frozenset()
    #: an elimination rule (``round_vote``), evaluated round by round
    rounds: bool = False
    #: scores are stored as ``score_unit`` × the score so that every score is an integer
    #: (Copeland: doubled); certificates write score / score_unit
    score_unit: int = 1

    #: score rule: ``points(ballot, candidates) -> {candidate: points}``
    points: Callable[[Any, Sequence[str]], dict] | None = None
    #: pairwise rule: ``contest(margin) -> points``
    contest: Callable[[int], int] | None = None
    #: elimination rule: ``round_vote(ballot, active) -> candidate | None``
    round_vote: Callable[[Any, frozenset], str | None] | None = None
    #: score rule on integers: ``ipoints(groups, approved, count, m) -> {index: points}``
    #: (``groups``: the ballot's tie groups of candidate indices; ``approved``: a bitmask)
    ipoints: Callable[[Sequence[Sequence[int]], int, int, int], dict] | None = None
    #: elimination rule on integers: ``iround_vote(groups, active) -> index | None``
    #: (``active``: a bitmask of the candidate indices)
    iround_vote: Callable[[Sequence[Sequence[int]], int], int | None] | None = None
    #: completed profiles: ``linear_scores(items, profile) -> {item: score}``
    linear_scores: Callable[[Sequence[str], Iterable[tuple[Sequence[str], int]]], dict] \
        | None = None
    #: partial profiles: ``min_diff(profile, c, d) -> int`` (a sound lower bound)
    min_diff: Callable[[PartialProfile, str, str], int] | None = None

    #: ballots are approval sets (reports are subsets of the candidates): ``ballot`` is
    #: ``approval`` (set by :func:`rule`, a plain attribute: read on every evaluation)
    approval: bool = False
    #: scores are sums of pairwise contests (:meth:`contest`; set by :func:`rule`)
    pairwise: bool = False
    #: a score rule whose points from a full strict ranking depend on the position alone
    #: (a neutral positional rule: plurality, Borda), so one ballot's points give those of
    #: every candidate it could put at a position
    positional: bool = False

    def tally(self, ballots: Iterable[Any], candidates: Sequence[str]) -> dict[str, int]:
        """A score rule's scores over ``ballots``: every candidate's sum of the ballots'
        :meth:`points` (the definition). A rule may override it with a loop that sums the
        same points without a dict per ballot (tested equal to this sum). O(size)."""
        s = dict.fromkeys(candidates, 0)
        points = self.points
        if points is None:
            raise ValueError(f"rule {self.name!r} has no points")
        for b in ballots:
            for x, p in points(b, candidates).items():
                s[x] += p
        return s

    def itally(self, groups: Sequence[Sequence[Sequence[int]]], approved: Sequence[int],
               counts: Sequence[int], m: int) -> list[int]:
        """A score rule's scores by candidate index over ballots on integers (aligned
        ``groups``, ``approved`` bitmasks, ``counts``): the sum of :meth:`ipoints`. A rule
        may override it with a loop summing the same points. O(size)."""
        s = [0] * m
        ipoints = self.ipoints
        if ipoints is None:
            raise ValueError(f"rule {self.name!r} has no points")
        for g, a, n in zip(groups, approved, counts):
            for i, p in ipoints(g, a, n, m).items():
                s[i] += p
        return s

    @property
    def supports_incomplete(self) -> bool:
        """Defined on completed and partial profiles: a rule of the ``winner`` question
        (necessary and possible co-winners)."""
        return self.linear_scores is not None and self.min_diff is not None

    @property
    def doc(self) -> str:
        return " ".join((type(self).__doc__ or "").strip().split("\n\n")[0].split())

    def admits(self, proof: str) -> bool:
        """Does the argument of the rule-specific certificate type ``proof`` hold for this
        rule's definition?"""
        return proof in self.proofs

    def __repr__(self) -> str:
        return f"<rule {self.name}>"


#: name -> the registered rule, in the order of registration.
RULES: dict[str, Rule] = {}


def rule(name: str, *, ballot: str = "ranked", proofs: Iterable[str] = ()):
    """Register the decorated :class:`Rule` subclass as the rule ``name``.

    Parameters
    ----------
    name : str
        The rule's name in instances, questions and labels.
    ballot : {"ranked", "approval"}
        What a ballot (and a manipulator's report) is.
    proofs : iterable of str
        The rule-specific certificate types whose argument holds for the rule.

    Returns
    -------
    callable
        The class decorator (it returns the class unchanged).

    Examples
    --------
    >>> @rule("toy", proofs=("greedy",))             # doctest: +SKIP
    ... class Toy(Rule):
    ...     '''One point to every candidate.'''
    ...     def points(self, b, candidates):
    ...         return dict.fromkeys(candidates, b.count)
    """
    def register(cls: type[Rule]) -> type[Rule]:
        if name in RULES:
            raise ValueError(f"rule {name!r} registered twice")
        if ballot not in BALLOTS:
            raise ValueError(f"rule {name!r}: ballot must be one of {', '.join(BALLOTS)}")
        cls.name, cls.ballot, cls.proofs = name, ballot, frozenset(proofs)
        cls.approval, cls.pairwise = ballot == "approval", cls.contest is not None
        r = cls()
        kinds = (r.points is not None) + r.pairwise + (r.round_vote is not None)
        if kinds != 1 or r.rounds != (r.round_vote is not None) or \
                (r.points is None) != (r.ipoints is None) or \
                (r.round_vote is None) != (r.iround_vote is None):
            raise ValueError(f"rule {name!r} defines exactly one of points, contest and "
                             f"round_vote (with rounds = True), and ipoints with points, "
                             f"iround_vote with round_vote")
        if (r.linear_scores is None) != (r.min_diff is None):
            raise ValueError(f"rule {name!r} defines both linear_scores and min_diff or "
                             f"neither")
        RULES[name] = r
        return cls
    return register


def rule_names(*, incomplete: bool = False) -> tuple[str, ...]:
    """The registered rules' names (with ``incomplete=True``: those that support
    incomplete profiles), in the order of registration."""
    return tuple(n for n, r in RULES.items() if r.supports_incomplete or not incomplete)


def rule_named(name: Any, *, incomplete: bool = False,
               error: type[Exception] = InstanceError) -> Rule:
    """The registered rule called ``name``.

    Parameters
    ----------
    name : str
    incomplete : bool, default False
        Only the rules that support incomplete profiles are known.
    error : exception class, default InstanceError
        What an unknown name raises (the checker passes CertificateError).

    Returns
    -------
    Rule

    Raises
    ------
    InstanceError (or ``error``)
        Naming the value and the known rules.

    Examples
    --------
    >>> rule_named("borda").ballot
    'ranked'
    >>> rule_named("xyz")
    Traceback (most recent call last):
    ...
    prefcert.formal.errors.InstanceError: rule must be one of plurality, borda, approval, irv, copeland: 'xyz'
    """
    r = RULES.get(name) if isinstance(name, str) else None
    if r is not None and (not incomplete or r.supports_incomplete):
        return r
    e = InstanceError(f"rule must be one of {', '.join(rule_names(incomplete=incomplete))}",
                      value=name)
    raise e if error is InstanceError else error(str(e))


# --------------------------------------------------------------------------- the rules

def _per_vote(profile: PartialProfile, one: Callable[[Vote, int, str, str], int], c: str,
              d: str) -> int:
    """Σ over the agents of count · (min over one voter's completions of s(c) − s(d)):
    exact, since each voter completes on its own (Xia & Conitzer 2011)."""
    m = profile.m
    return sum(v.count * one(v, m, c, d) for v in profile.votes)


@rule("plurality", proofs=("greedy", "dominant", "hall_violator"))
class Plurality(Rule):
    """Plurality: one point to a ballot's top when the top group is one candidate (a tied
    top, an overvote, counts for nobody); in a completed profile one point per voter to
    its first item."""

    positional = True

    def points(self, b: Any, candidates: Sequence[str]) -> dict[str, int]:
        return {b.ranking[0][0]: b.count} if b.ranking and len(b.ranking[0]) == 1 else {}

    def ipoints(self, groups: Sequence[Sequence[int]], approved: int, n: int,
                m: int) -> dict[int, int]:
        return {groups[0][0]: n} if groups and len(groups[0]) == 1 else {}

    def itally(self, groups, approved, counts, m) -> list[int]:
        """The sum of :meth:`ipoints`: each ballot's count to its single top."""
        s = [0] * m
        for g, n in zip(groups, counts):
            if g and len(g[0]) == 1:
                s[g[0][0]] += n
        return s

    def tally(self, ballots: Iterable[Any], candidates: Sequence[str]) -> dict[str, int]:
        """The sum of :meth:`points`: each ballot's count to its single top."""
        s = dict.fromkeys(candidates, 0)
        for b in ballots:
            r = b.ranking
            if r and len(r[0]) == 1:
                s[r[0][0]] += b.count
        return s

    def linear_scores(self, items, profile) -> dict:
        s = {x: 0 for x in items}
        for o, w in profile:
            s[o[0]] += w
        return s

    @staticmethod
    def _vote(v: Vote, m: int, c: str, d: str) -> int:
        """1 if c is above every item, else −1 if d can be first (nothing above d), else 0."""
        if len(v.below(c)) == m - 1:
            return 1
        return -1 if not v.above(d) else 0

    def min_diff(self, profile: PartialProfile, c: str, d: str) -> int:
        return _per_vote(profile, self._vote, c, d)


@rule("borda", proofs=("greedy", "score_bound"))
class Borda(Rule):
    """Borda: x gets |{y : x ≻_b y}| points from a ballot b (m − r for rank r of a full
    strict ranking); in a completed profile, the number of items ranked below it."""

    positional = True

    def points(self, b: Any, candidates: Sequence[str]) -> dict[str, int]:
        m, n = len(candidates), b.count
        if len(b.ranking) == m:                  # strict and full: (m − 1 − position) · n
            return {g[0]: p for g, p in zip(b.ranking, range((m - 1) * n, -1, -n))}
        out, above = {}, 0                       # |{y : x ≻ y}|
        for g in b.ranking:
            above += len(g)
            for x in g:
                out[x] = n * (m - above)
        return out

    def ipoints(self, groups: Sequence[Sequence[int]], approved: int, n: int,
                m: int) -> dict[int, int]:
        if len(groups) == m:                     # strict and full: (m − 1 − position) · n
            return {g[0]: p for g, p in zip(groups, range((m - 1) * n, -1, -n))}
        out, above = {}, 0                       # |{y : x ≻ y}|
        for g in groups:
            above += len(g)
            for i in g:
                out[i] = n * (m - above)
        return out

    def itally(self, groups, approved, counts, m) -> list[int]:
        """The sum of :meth:`ipoints` (as :meth:`tally`, by index)."""
        s = [0] * m
        for r, n in zip(groups, counts):
            if len(r) == m:                      # (m − 1 − position) · n, down the ranking
                p = (m - 1) * n
                for g in r:
                    s[g[0]] += p
                    p -= n
                continue
            above = 0
            for g in r:
                above += len(g)
                p = n * (m - above)
                for i in g:
                    s[i] += p
        return s

    def tally(self, ballots: Iterable[Any], candidates: Sequence[str]) -> dict[str, int]:
        """The sum of :meth:`points`: count · |{y : x ≻ y}| per ballot (a strict full
        ranking: count · (m − 1 − position)), each group's value computed once."""
        m = len(candidates)
        s = dict.fromkeys(candidates, 0)
        for b in ballots:
            n, above = b.count, 0
            if len(b.ranking) == m:              # (m − 1 − position) · n, down the ranking
                p = (m - 1) * n
                for g in b.ranking:
                    s[g[0]] += p
                    p -= n
                continue
            for g in b.ranking:
                above += len(g)
                p = n * (m - above)
                for x in g:
                    s[x] += p
        return s

    def linear_scores(self, items, profile) -> dict:
        s = {x: 0 for x in items}
        for o, w in profile:
            for i, x in enumerate(o):
                s[x] += w * (len(items) - 1 - i)
        return s

    @staticmethod
    def _vote(v: Vote, m: int, c: str, d: str) -> int:
        """If c ≻ d in every completion, 1 + |{x : c ≻ x ≻ d}|; else |down(c)| − (m − 1 −
        |up(d)|) (derived, checked by brute force)."""
        down = v.below(c)
        if d in down:
            return 1 + len(down & v.above(d))
        return len(down) - (m - 1 - len(v.above(d)))

    def min_diff(self, profile: PartialProfile, c: str, d: str) -> int:
        return _per_vote(profile, self._vote, c, d)


@rule("approval", ballot="approval", proofs=("greedy", "dominant"))
class Approval(Rule):
    """Approval: one point per approved candidate (an explicit approval set, or the
    instance's ``approval_top`` convention: the ranked candidates with fewer than k ranked
    above them; an unranked candidate is never approved)."""

    def points(self, b: Any, candidates: Sequence[str]) -> dict[str, int]:
        return dict.fromkeys(b.approved, b.count)

    def ipoints(self, groups: Sequence[Sequence[int]], approved: int, n: int,
                m: int) -> dict[int, int]:
        out = {}
        while approved:                          # the set bits, lowest first
            low = approved & -approved
            out[low.bit_length() - 1] = n
            approved ^= low
        return out

    def itally(self, groups, approved, counts, m) -> list[int]:
        """The sum of :meth:`ipoints`: each ballot's count to every approved index."""
        s = [0] * m
        for a, n in zip(approved, counts):
            while a:                             # the set bits, lowest first
                low = a & -a
                s[low.bit_length() - 1] += n
                a ^= low
        return s

    def tally(self, ballots: Iterable[Any], candidates: Sequence[str]) -> dict[str, int]:
        """The sum of :meth:`points`: each ballot's count to every approved candidate."""
        s = dict.fromkeys(candidates, 0)
        for b in ballots:
            n = b.count
            for x in b.approved:
                s[x] += n
        return s


@rule("irv", proofs=("elimination_search",))
class InstantRunoff(Rule):
    """IRV (instant runoff): rounds over the active candidates; a ballot counts for its
    highest-ranked active candidate when that candidate is alone among the active members
    of its group (else it is exhausted for the round, or for good under the election's
    ``overvote`` = ``exhaust`` reading); the fewest votes are eliminated."""

    rounds = True

    def round_vote(self, b: Any, active: frozenset) -> str | None:
        for g in b.ranking:
            live = [x for x in g if x in active]
            if live:
                return live[0] if len(live) == 1 else None
        return None

    def iround_vote(self, groups: Sequence[Sequence[int]], active: int) -> int | None:
        for g in groups:
            if len(g) == 1:                      # (the common case: one candidate)
                if (active >> g[0]) & 1:
                    return g[0]
                continue
            live = [i for i in g if (active >> i) & 1]
            if live:
                return live[0] if len(live) == 1 else None
        return None


@rule("copeland", proofs=("greedy", "pairwise_bound"))
class Copeland(Rule):
    """Copeland: pairwise majorities; a win scores 1, a tie ½ (tallied as 2·wins + ties,
    ``score_unit`` 2; certificates show wins + ½ ties); in a completed profile wins −
    losses (the same order of the items)."""

    score_unit = 2

    def contest(self, margin: int) -> int:
        return 2 if margin > 0 else 1 if margin == 0 else 0

    def linear_scores(self, items, profile) -> dict:
        s = {x: 0 for x in items}
        n = {(a, b): 0 for a in items for b in items if a != b}
        for o, w in profile:
            for i, a in enumerate(o):
                for b in o[i + 1:]:
                    n[a, b] += w
        for a, b in itertools.combinations(items, 2):
            diff = n[a, b] - n[b, a]
            s[a] += (diff > 0) - (diff < 0)
            s[b] += (diff < 0) - (diff > 0)
        return s

    def min_diff(self, profile: PartialProfile, c: str, d: str) -> int:
        """Sound, not exact: Σ_x [c vs x] − [d vs x] (x ≠ c, d) + 2·[c vs d], each pairwise
        contest at its own extreme over the completions (derived)."""
        v = profile.voters

        def vs(a: str, b: str, low: bool) -> int:      # a's point against b, min / max
            n = profile.count_range(a, b)[0 if low else 1]
            return (2 * n > v) - (2 * n < v)
        rest = sum(vs(c, x, True) - vs(d, x, False) for x in profile.items if x not in (c, d))
        return rest + 2 * vs(c, d, True)


__all__ = ["BALLOTS", "RULES", "PartialProfile", "Rule", "Vote", "rule", "rule_named",
           "rule_names"]
