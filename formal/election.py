"""Elections: candidates, ballots, a resolute rule through a tie-breaking order τ, and a
manipulator (or a coalition) with true preferences. The model and its parsing.

**Instance** (``domain: "election"``)::

    {"candidates": ["a", "b", "c"],
     "tie_break": ["a", "b", "c"],            # τ, best first: part of the instance
     "rule": "borda",                          # optional: the rule questions default to
     "ballots": [["b", "c", "a"], {"ranking": ["a", ["b", "c"]], "count": 3},
                 {"approve": ["a", "c"]}],
     "manipulator": {"ranking": ["c", "a", "b"]},   # optional: voter i's true ranking
     "approval_top": 1}                        # optional: the approval convention (k)

- ``tie_break`` (τ) is a strict order of every candidate. Score ties *elect* the τ-highest
  tied candidate; IRV elimination ties *eliminate* the τ-lowest of those tied for fewest
  votes. τ is never re-derived: it is stored with the instance.
- A ballot is a ranking (best first; a nested list is a tie group; candidates left out
  rank together below the listed ones — real data are truncated and sometimes tied) with
  an optional ``count`` (identical voters), and/or an explicit approval set ``approve``.
  A bare list is shorthand for ``{"ranking": list}``.
- ``manipulator``: voter i, *not* among ``ballots`` (those are P₋ᵢ). ``winner`` and
  ``coalitional_manipulation`` are asked about the sincere election (the ballots plus
  voter i's sincere ballot); ``manipulation`` replaces voter i's ballot by each report;
  the k coalition members are added to the sincere election. Its ``ranking`` is its
  true preference (a full strict ranking in the benchmark; a truncated or tied ballot of
  real data is allowed: unranked candidates tie at the bottom). Its sincere ballot is
  that ranking (ranking rules) or ``approve`` / the convention (approval).
- **Approval convention** (the benchmark leaves it open): a ballot without an explicit
  ``approve`` approves the *ranked* candidates with fewer than ``k`` candidates ranked
  strictly above them, ``k = approval_top`` (a tie group straddling ``k`` is approved
  whole); a candidate the ballot leaves unranked is never approved, however few it
  ranks. The default ``k = ⌊m/2⌋`` approves, on a full strict ranking, exactly the
  candidates whose rank utility m − pos exceeds the mean (m − 1)/2 (Brams & Fishburn's
  mean-utility threshold). Another ``k`` is the named alternative (``approval_top: 1`` is
  plurality-like; ``0`` approves nobody). An explicit ``approve`` set is used as given.
- **Overvote convention** (``"conventions": {"overvote": ...}``, IRV only): ``round``
  (default) exhausts a ballot whose highest-ranked continuing group holds two or more
  continuing candidates for that round only — it counts again once eliminations leave one
  of them; ``exhaust`` exhausts it for good, as official counts do (it reproduces the
  published Burlington 2009 rounds, which ``round`` misses by 1–4 votes). The ``exhaust``
  reading is defined for ``winner`` questions (manipulation under it is refused).

**Rules** (:mod:`formal.rules`, the one table of rules; scores on a ballot b; for the
ranking rules, unranked candidates count as tied at the bottom):

- ``plurality``: 1 point to b's top if the top group is one candidate (a tied top — an
  overvote — counts for nobody).
- ``borda``: x gets |{y : x ≻_b y}| points (m − r for rank r of a full strict ranking).
- ``approval``: 1 point per approved candidate (the ``approve`` set, or the convention
  above).
- ``copeland``: pairwise majorities over the ballots; a win scores 1, a tie ½. The
  checker and the engines tally 2·wins + ties so that every score is an integer; the
  ``score_table`` certificate and the audits show wins + ½ ties.
- ``irv``: rounds over the active candidates; a ballot counts for its highest-ranked active
  candidate when that candidate is alone among the active members of its group (else it
  is exhausted: for the round, or for good under the ``exhaust`` reading); the active
  candidate with the fewest votes is eliminated (ties: the τ-lowest of them) until one
  remains. With complete ballots this gives the winner of the majority-stop variant.

The winner of a score rule is the highest score, ties to the τ-highest; the non-resolute
winner set is every top scorer (IRV: every candidate that wins under some resolution of
the elimination ties, "parallel-universe" tie-breaking, Conitzer, Rognlie & Xia 2009).

**Reports** (what a manipulator may submit, the benchmark's ballot space B_r): a full
strict ranking of every candidate for plurality, Borda, IRV and Copeland (m! reports); any
subset of the candidates, the empty set included, for approval (2^m reports). Utility is
rank-based on the true ranking: pos(x) = 1 + |{y : y ≻ x}|; a report is profitable when
its outcome has a strictly smaller pos than the sincere outcome.

The trusted definitions and certificate checks are in :mod:`formal.checker.election`.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .errors import InstanceError
from .preference import MAX_COUNT
from .rules import RULES, rule_named
from .spec import Convention, read_conventions

#: object.__setattr__, looked up once (the frozen Ballot's initialiser)
_set = object.__setattr__

# Manipulators in one coalition question (each is a ballot in the model and the proof).
MAX_COALITION = 20_000

QUESTIONS = ("winner", "manipulation", "coalitional_manipulation")
#: question -> parameter -> type word (optional when ending in ``?``)
PARAMS: dict[str, dict[str, str]] = {
    "winner": {"rule": "rule?"},
    "manipulation": {"rule": "rule?"},
    "coalitional_manipulation": {"rule": "rule?", "candidate": "item", "k": "int?",
                                 "weights": "ints?"},
}


def _eliminates(model: Any, params: Any) -> bool:
    """The question is asked under an elimination rule (IRV): its rule (its own, else the
    instance's) is a registered rule with rounds (no rule, or an unknown one: no).
    (``rule_named(rule_of(...)).rounds`` without the two calls: every label asks.)"""
    name = (params or {}).get("rule") or model.rule
    r = RULES.get(name) if isinstance(name, str) else None
    return r is not None and r.rounds


#: Readings where the literature uses two (the first is the default; see the README).
CONVENTIONS: dict[str, Convention] = {
    "overvote": Convention("overvote", ("round", "exhaust"), {
        "round": "IRV: a ballot whose highest-ranked continuing group holds two or more "
                 "continuing candidates (an overvote) counts for nobody in that round, and "
                 "counts again once eliminations leave one of them",
        "exhaust": "IRV: an overvote exhausts the ballot for good, as official counts do "
                   "(it reproduces the published Burlington 2009 rounds); winner questions "
                   "only"}, applies=_eliminates),
}


@dataclass(frozen=True)
class Ballot:
    """``ranking``: tie groups best first (possibly truncated); ``count`` identical
    voters; ``approved``: the approval set (explicit, or by the instance's convention)."""

    ranking: tuple[tuple[str, ...], ...]
    count: int
    approved: frozenset
    explicit_approval: bool = False

    def __init__(self, ranking: tuple[tuple[str, ...], ...], count: int, approved: frozenset,
                 explicit_approval: bool = False) -> None:
        # the generated __init__ of a frozen dataclass looks object.__setattr__ up for
        # each field; it is looked up once here (a ballot per parsed line, per replayed
        # report). Not the instance dict: written directly it would be materialised, and
        # every read of a field (the tallies read them most) would cost more
        _set(self, "ranking", ranking)
        _set(self, "count", count)
        _set(self, "approved", approved)
        _set(self, "explicit_approval", explicit_approval)

    @property
    def strict_full(self) -> bool:
        return all(len(g) == 1 for g in self.ranking)


@dataclass(frozen=True)
class ElectionInts:
    """An election on integers, built in the pass that validates the ballots (issue 24).

    Candidates are ``0..m-1`` in the order of ``candidates``; ``index`` maps a name to its
    index. ``prio[i]`` is candidate i's τ index (0 = best) and ``tau_order`` the indices
    in τ order. Per ballot (aligned with ``Election.ballots``): ``groups``, its tie groups
    as index tuples best first; ``ranks``, its rank array (the group index of each
    candidate, ``m`` for unranked); ``approved``, its approval set as a bitmask (bit i:
    candidate i); ``counts``. ``manipulator``: the manipulator's ``(groups, rank,
    approved)``, or None."""

    m: int
    index: dict
    prio: tuple[int, ...]
    tau_order: tuple[int, ...]
    groups: tuple[tuple[tuple[int, ...], ...], ...]
    ranks: tuple[tuple[int, ...], ...]
    approved: tuple[int, ...]
    counts: tuple[int, ...]
    manipulator: tuple[tuple[tuple[int, ...], ...], tuple[int, ...], int] | None

    def __init__(self, m: int, index: dict, prio: tuple[int, ...], tau_order: tuple[int, ...],
                 groups: tuple[tuple[tuple[int, ...], ...], ...],
                 ranks: tuple[tuple[int, ...], ...], approved: tuple[int, ...],
                 counts: tuple[int, ...],
                 manipulator: tuple[tuple[tuple[int, ...], ...], tuple[int, ...], int] | None
                 ) -> None:
        # object.__setattr__ looked up once (as Ballot's): one per parsed election
        _set(self, "m", m)
        _set(self, "index", index)
        _set(self, "prio", prio)
        _set(self, "tau_order", tau_order)
        _set(self, "groups", groups)
        _set(self, "ranks", ranks)
        _set(self, "approved", approved)
        _set(self, "counts", counts)
        _set(self, "manipulator", manipulator)

    def sincere(self) -> ElectionInts:
        """The integer form of :meth:`Election.sincere`: the manipulator's ballot (count
        1) appended, no manipulator."""
        man = self.manipulator
        if man is None:
            return self
        return ElectionInts(self.m, self.index, self.prio, self.tau_order,
                            (*self.groups, man[0]), (*self.ranks, man[1]),
                            (*self.approved, man[2]), (*self.counts, 1), None)


def _ballot_ints(b: Ballot, index: dict, m: int
                 ) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], int]:
    """(index groups, rank array, approval bitmask) of a parsed ballot."""
    groups = tuple(tuple(map(index.__getitem__, g)) for g in b.ranking)
    rank = [m] * m
    for gi, g in enumerate(groups):
        for i in g:
            rank[i] = gi
    mask = 0
    for x in b.approved:
        mask |= 1 << index[x]
    return groups, tuple(rank), mask


def election_ints(e: Election) -> ElectionInts:
    """The integer form of an election built from its parsed ballots (an election not
    made by :func:`parse_election`, e.g. by ``dataclasses.replace``). O(size)."""
    cands = e.candidates
    m = len(cands)
    index = {x: i for i, x in enumerate(cands)}
    tau = {x: i for i, x in enumerate(e.tie_break)}
    per = [_ballot_ints(b, index, m) for b in e.ballots]
    man = None if e.manipulator is None else _ballot_ints(e.manipulator, index, m)
    return ElectionInts(m, index, tuple(map(tau.__getitem__, cands)),
                        tuple(map(index.__getitem__, e.tie_break)),
                        tuple(p[0] for p in per), tuple(p[1] for p in per),
                        tuple(p[2] for p in per), tuple(b.count for b in e.ballots), man)


@dataclass(frozen=True)
class Election:
    """An election. ``tie_break`` is τ (best first); ``manipulator`` is a Ballot (count 1)
    holding voter i's true ranking and sincere approval set, or None."""

    candidates: tuple[str, ...]
    tie_break: tuple[str, ...]
    ballots: tuple[Ballot, ...]
    rule: str | None
    manipulator: Ballot | None
    approval_top: int
    conventions: dict = field(default_factory=lambda: {k: c.default for k, c in
                                                       CONVENTIONS.items()}, compare=False)
    #: what the engines derive once per election (integer ballots, tallies, w₀), keyed by
    #: the engine; not an init field, so ``replace`` (e.g. :meth:`sincere`) starts empty
    _cache: dict = field(default_factory=dict, init=False, compare=False, repr=False)
    #: the integer form (:class:`ElectionInts`): set by the parse, else derived on first
    #: use; not an init field, so ``replace`` starts without it
    _ints: ElectionInts | None = field(default=None, init=False, compare=False, repr=False)

    @property
    def ints(self) -> ElectionInts:
        """The election on integers (:class:`ElectionInts`)."""
        got = self._ints
        if got is None:
            got = election_ints(self)
            _set(self, "_ints", got)
        return got

    @property
    def m(self) -> int:
        return len(self.candidates)

    @property
    def voters(self) -> int:
        return sum(b.count for b in self.ballots)

    def pos(self, ranking: Sequence[Sequence[str]], x: str) -> int:
        """1 + the number of candidates strictly above x in ``ranking`` (tie groups; the
        unranked tie at the bottom)."""
        above = 0
        for g in ranking:
            if x in g:
                return above + 1
            above += len(g)
        return above + 1

    def sincere(self) -> Election:
        """The sincere election: the ballots plus the manipulator's sincere ballot (what
        ``winner`` and ``coalitional_manipulation`` are asked about)."""
        if self.manipulator is None:
            return self
        out = replace(self, ballots=(*self.ballots, self.manipulator), manipulator=None)
        if self._ints is not None:
            _set(out, "_ints", self._ints.sincere())
        return out

    def true_pos(self, x: str) -> int:
        """pos of x in the manipulator's true ranking."""
        if self.manipulator is None:
            raise InstanceError("the election has no manipulator")
        return self.pos(self.manipulator.ranking, x)


def approval_of(ranking: Sequence[Sequence[str]], k: int) -> frozenset:
    """The convention's approval set: candidates with fewer than k ranked strictly above."""
    out, above = set(), 0
    for g in ranking:
        if above < k:
            out.update(g)
        above += len(g)
    return frozenset(out)


def _names(raw: Any, what: str, *, agent: str | None = None) -> list[str]:
    if not isinstance(raw, list) or not all(isinstance(x, str) and x for x in raw):
        raise InstanceError(f"{what} must be a list of non-empty strings", agent=agent,
                            value=raw)
    if len(set(raw)) != len(raw):
        dup = next(x for x in raw if raw.count(x) > 1)
        raise InstanceError(f"{what} names a candidate twice", agent=agent, value=dup)
    return list(raw)


def parse_ranking(raw: Any, known: Any, *, agent: str | None = None
                  ) -> tuple[tuple[str, ...], ...]:
    """A ranking: a list of names and tie groups (non-empty lists), best first, each
    candidate at most once. Raises InstanceError naming the voter and value."""
    index = known if isinstance(known, dict) else {x: i for i, x in enumerate(known)}
    return _ranking(raw, index, len(index), agent, 0)[0]


def _ranking(raw: Any, known: dict, m: int, agent: str | None, k: int
             ) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[int, ...], ...],
                        tuple[int, ...], int, list[str]]:
    """:func:`parse_ranking` and, in the same pass, its integer form: (the groups of
    names, the groups of indices of ``known`` (name -> index), the rank array — group
    index per candidate, ``m`` unranked; it is the set of the candidates seen —, and the
    approval convention's set with ``k`` (:func:`approval_of`) as a bitmask and as
    names)."""
    if not isinstance(raw, list):
        raise InstanceError("a ranking must be a list", agent=agent, value=raw)
    rank = [m] * m
    groups = []
    igroups = []
    approved: list[str] = []
    above = mask = 0                     # candidates ranked above the entry
    for gi, entry in enumerate(raw):
        if isinstance(entry, str):       # one candidate: the common case
            i = known.get(entry)
            if i is None:
                raise InstanceError("ranks an unknown candidate", agent=agent, value=entry)
            if rank[i] != m:
                raise InstanceError("ranks a candidate twice", agent=agent, value=entry)
            rank[i] = gi
            groups.append((entry,))
            igroups.append((i,))
            if above < k:
                mask |= 1 << i
                approved.append(entry)
            above += 1
            continue
        if not isinstance(entry, list) or not entry:
            raise InstanceError("a ranking entry is a name or a non-empty tie group",
                                agent=agent, value=entry)
        ig = []
        for x in entry:
            if not isinstance(x, str):
                raise InstanceError("a candidate must be a string", agent=agent, value=x)
            i = known.get(x)
            if i is None:
                raise InstanceError("ranks an unknown candidate", agent=agent, value=x)
            if rank[i] != m:
                raise InstanceError("ranks a candidate twice", agent=agent, value=x)
            rank[i] = gi
            ig.append(i)
        if above < k:                    # a group straddling k is approved whole
            for i in ig:
                mask |= 1 << i
            approved.extend(entry)
        above += len(ig)
        groups.append(tuple(entry))
        igroups.append(tuple(ig))
    return tuple(groups), tuple(igroups), tuple(rank), mask, approved


def _ballot(raw: Any, known: dict, k: int, *, agent: str, manipulator: bool = False
            ) -> tuple[Ballot, tuple[tuple[int, ...], ...], tuple[int, ...], int, int]:
    """A ballot and its integer form (index groups, rank array, approval bitmask,
    count)."""
    if isinstance(raw, list):            # the shorthand {"ranking": raw}: no other field
        ranking, igroups, rank, mask, conv = _ranking(raw, known, len(known), agent, k)
        return Ballot(ranking, 1, frozenset(conv)), igroups, rank, mask, 1
    if not isinstance(raw, dict):
        raise InstanceError("a ballot is a ranking list or an object", agent=agent, value=raw)
    extra = set(raw) - {"ranking", "count", "approve"}
    if extra:
        raise InstanceError("unknown ballot field", agent=agent, value=sorted(extra)[0])
    if "ranking" not in raw and "approve" not in raw:
        raise InstanceError("a ballot needs 'ranking' or 'approve'", agent=agent, value=raw)
    explicit = "approve" in raw
    ranking, igroups, rank, mask, conv = _ranking(raw.get("ranking", []), known, len(known),
                                                  agent, 0 if explicit else k)
    count = raw.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or \
            not 1 <= count <= MAX_COUNT or (manipulator and count != 1):
        raise InstanceError(f"count must be an integer from 1 to {MAX_COUNT}" +
                            (" (1 for the manipulator)" if manipulator else ""),
                            agent=agent, value=count)
    if explicit:
        approved = _names(raw["approve"], "approve", agent=agent)
        for x in approved:
            i = known.get(x)
            if i is None:
                raise InstanceError("approves an unknown candidate", agent=agent, value=x)
            mask |= 1 << i
        return Ballot(ranking, count, frozenset(approved), True), igroups, rank, mask, count
    return Ballot(ranking, count, frozenset(conv)), igroups, rank, mask, count


def parse_election(data: dict) -> Election:
    """Parse an ``election`` instance (module docstring) into an :class:`Election`.

    Raises :class:`InstanceError` naming the voter and value for: missing or duplicate
    candidates, a τ that is not an order of the candidates, an unknown rule, a malformed
    ballot (unknown or repeated candidate, empty tie group, bad count), a manipulator
    whose ranking is missing, and a bad ``approval_top``. O(size).
    """
    if not isinstance(data, dict):
        raise InstanceError("an election is a JSON object", value=type(data).__name__)
    cands = _names(data.get("candidates"), "candidates")
    if not cands:
        raise InstanceError("an election needs at least one candidate", value=cands)
    known = {x: i for i, x in enumerate(cands)}     # name -> index (the integer form)
    if "tie_break" not in data:
        raise InstanceError("an election needs 'tie_break' (τ, a strict order of the "
                            "candidates, best first)", value=None)
    tau = _names(data["tie_break"], "tie_break")
    if set(tau) != known.keys():
        odd = sorted(set(tau) ^ known.keys())[0]
        raise InstanceError("tie_break must order exactly the candidates", value=odd)
    rule = data.get("rule")
    if rule is not None:
        rule_named(rule)
    k = data.get("approval_top", len(cands) // 2)
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= len(cands):
        raise InstanceError("approval_top must be an integer in [0, m]", value=k)
    raw = data.get("ballots")
    if not isinstance(raw, list):
        raise InstanceError("'ballots' must be a list", value=raw)
    per = [_ballot(b, known, k, agent=f"ballot {i}") for i, b in enumerate(raw, 1)]
    man = data.get("manipulator")
    manipulator = man_ints = None
    if man is not None:
        if not isinstance(man, dict) or "ranking" not in man:
            raise InstanceError("the manipulator needs its true 'ranking'", agent="manipulator",
                                value=man)
        manipulator, mg, mr, mm, _ = _ballot(man, known, k, agent="manipulator",
                                             manipulator=True)
        man_ints = (mg, mr, mm)
    extra = set(data) - {"id", "domain", "questions", "candidates", "tie_break", "rule",
                         "approval_top", "ballots", "manipulator", "source", "preflib",
                         "design", "conventions", "peer_failure"}
    if extra:
        raise InstanceError("unknown election field", value=sorted(extra)[0])
    # the ballots and their integer form, column by column (one C-level transpose)
    ballots, groups, ranks, approved, counts = zip(*per) if per else ((),) * 5
    e = Election(tuple(cands), tuple(tau), ballots, rule, manipulator, k,
                 read_conventions(data, CONVENTIONS))
    if tau == cands:                     # τ is the listed order: the identity
        prio = order = tuple(range(len(cands)))
    else:
        prio, order = _prio(tau, known), tuple(map(known.__getitem__, tau))
    _set(e, "_ints", ElectionInts(len(cands), known, prio, order, groups, ranks, approved,
                                  counts, man_ints))
    return e


def _prio(tau: list[str], known: dict) -> tuple[int, ...]:
    """prio[i]: candidate i's τ index."""
    prio = [0] * len(tau)
    for j, x in enumerate(tau):
        prio[known[x]] = j
    return tuple(prio)


# --------------------------------------------------------------------------- questions

def resolve(q: Any) -> tuple[str, dict]:
    """A question as written — a name (``"manipulation"``) or an object ``{"type": name,
    params}`` — to (name, params). InstanceError for a malformed one."""
    if isinstance(q, str):
        if q not in QUESTIONS:
            return q, {}
        if q == "coalitional_manipulation":
            raise InstanceError("coalitional_manipulation needs a candidate: write it as "
                                "an object", value=q)
        return q, {}
    if not isinstance(q, dict) or q.get("type") not in QUESTIONS:
        raise InstanceError(f"an election question is a name or an object with 'type' in "
                            f"{', '.join(QUESTIONS)}", value=q)
    name = q["type"]
    p = {k: v for k, v in q.items() if k != "type"}
    unknown = set(p) - set(PARAMS[name])
    if unknown:
        raise InstanceError(f"question {name!r} has no parameter {sorted(unknown)[0]!r}",
                            value=q)
    if p.get("rule") is not None:
        rule_named(p["rule"])
    if name == "coalitional_manipulation":
        if not isinstance(p.get("candidate"), str):
            raise InstanceError("coalitional_manipulation needs 'candidate' (a name)",
                                value=p.get("candidate"))
        if ("k" in p) == ("weights" in p):
            raise InstanceError("coalitional_manipulation needs exactly one of 'k' "
                                "(unweighted manipulators) and 'weights'", value=q)
        if "k" in p:
            k = p.pop("k")
            if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_COALITION:
                raise InstanceError(f"k must be an integer from 1 to {MAX_COALITION}", value=k)
            p["weights"] = [1] * k
        w = p["weights"]
        if not isinstance(w, list) or not 1 <= len(w) <= MAX_COALITION or not all(
                isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= MAX_COUNT
                for x in w):
            raise InstanceError(f"weights must be a list of 1 to {MAX_COALITION} integers "
                                f"from 1 to {MAX_COUNT}", value=w)
    return name, p


def rule_of(model: Election, params: dict | None) -> str:
    """The rule a question is asked under: its own, else the instance's."""
    rule = (params or {}).get("rule") or model.rule
    if rule is None:
        raise InstanceError("no rule: give 'rule' in the question or the instance", value=None)
    return rule


def validate(model: Election, name: str, params: dict) -> None:
    """Reject a question the instance cannot answer: no rule or an unknown one; approval
    ballots under a ranking rule; manipulation without a manipulator; an unknown
    candidate."""
    rule = rule_of(model, params)
    ranked = not rule_named(rule).approval
    if ranked:
        bad = next((i for i, b in enumerate(model.ballots, 1)
                    if b.explicit_approval and not b.ranking), None)
        if bad is not None:
            raise InstanceError(f"rule {rule!r} needs rankings; ballot {bad} only approves",
                                value=rule)
    if name == "manipulation" and model.manipulator is None:
        raise InstanceError("manipulation needs a 'manipulator' with its true ranking",
                            value=None)
    if name == "manipulation" and ranked and not model.manipulator.ranking:
        raise InstanceError("the manipulator needs a ranking under a ranking rule", value=rule)
    if name == "coalitional_manipulation" and params["candidate"] not in model.candidates:
        raise InstanceError("coalitional_manipulation names an unknown candidate",
                            value=params["candidate"])
    if name != "winner" and rule_named(rule).rounds and \
            model.conventions.get("overvote") == "exhaust":
        raise InstanceError(f"{name} under IRV is defined for the round reading of "
                            f"overvotes only (the exhaust reading: winner questions)",
                            value="exhaust")


# --------------------------------------------------------------------------- PrefLib

def election_from_preference(data: dict, *, rule: str | None = None,
                             tie_break: Sequence[str] | None = None,
                             iid: str | None = None) -> dict:
    """An ``election`` instance (JSON-able dict) from a ``preference`` instance dict, e.g.
    a PrefLib file as :func:`prefcert.formal.preflib.read_preflib` reads it.

    Candidates are the items; each agent with an ``order`` becomes a ballot with its
    ``count`` (ties kept, truncation kept: unranked candidates tie at the bottom); τ is
    ``tie_break`` or, by default, the items in their listed order (PrefLib's alternative
    numbering), written into the instance so that it is never re-derived. The PrefLib
    header is kept under ``source``. Raises InstanceError for an agent given as edges or
    choices (not a ballot). O(size)."""
    items = list(data["items"])
    ballots = []
    for agent, spec in data["profile"].items():
        if isinstance(spec, list):
            spec = {"order": spec}
        if not isinstance(spec, dict) or "order" not in spec:
            raise InstanceError("only weak orders are ballots", agent=agent, value=spec)
        ballots.append({"ranking": spec["order"], "count": spec.get("count", 1)})
    out = {"id": iid or data.get("id", "election"), "domain": "election",
           "candidates": items, "tie_break": list(tie_break) if tie_break else items,
           "ballots": ballots}
    if rule is not None:
        out["rule"] = rule
    if data.get("preflib"):
        out["source"] = {"preflib": data["preflib"]}
    parse_election(out)            # the result must be a valid election
    return out
