"""The voting rules of the declarative models: one table, keyed by the names of the
trusted registry (:mod:`prefcert.formal.rules`), one class per rule registered with
``@encoding(name)``.

The models' own twins of the rules (plain Python tallies, CP-SAT expressions), never the
checker's code nor the oracles'. A rule supplies what the models ask of it:

- elections (:mod:`prefcert.encodings.election`): ``base(e)`` the fixed ballots' scores
  (a pairwise rule: the margins), ``report_scores(md, …)`` the score expressions with the
  manipulators' report variables added, ``type_scores(md, x, types, base, cands)`` the
  score expressions with ``x[i]`` manipulators casting report ``types[i]`` (score rules:
  by ``type_points(q, a, m)``, the points a report q gives a); ``order_literals`` (report order literals A[x][y] are needed), ``rounds``
  (an elimination rule: the elimination-order model of IRV), ``pairwise`` (the score is
  a sum of pairwise contests), ``coalition_cap(n, m)`` (manipulators that surely
  suffice) and ``parity`` (feasibility in k is monotone in steps of ``parity``);
- incomplete profiles (:mod:`prefcert.encodings.preference`): ``score_exprs(cp, pos,
  weights, items, lt, ge)`` every item's score over the voters' position variables, and
  ``aggregation`` (voters pooled per tie group: ``"top"`` only the top group counts,
  ``"positional"`` every group, None not aggregated).

Adding a rule: one class here (and its twins in ``formal/rules.py`` and
``oracles/rules.py``).
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence


class RuleEncoding:
    """A rule as the declarative models encode it (see the module docstring)."""

    name: str = ""
    order_literals: bool = False
    rounds: bool = False
    pairwise: bool = False
    parity: int = 1
    aggregation: str | None = None

    def coalition_cap(self, n: int, m: int) -> int:
        """Manipulators with the candidate on top that surely elect it: n + 1 (a strict
        majority over every rival)."""
        return n + 1

    def base(self, e) -> dict:
        raise NotImplementedError(f"{self.name} has no scores")

    def report_scores(self, md, e, cands: Sequence[str], weights: Sequence[int], pos: list,
                      A: list, ap: list, base: dict) -> dict:
        raise NotImplementedError(f"{self.name} has no scores")

    def type_points(self, q: Sequence[str], a: str, m: int) -> int:
        raise NotImplementedError(f"{self.name} has no points per report")

    def type_scores(self, md, x: list, types: Sequence[Sequence[str]], base: dict,
                    cands: Sequence[str]) -> dict:
        """Score expressions with x[i] manipulators casting report types[i] (score rules:
        each type's points)."""
        m = len(cands)

        def pts(q, a):
            return self.type_points(q, a, m)
        return {a: base[a] + sum(xi * pts(q, a) for xi, q in zip(x, types) if pts(q, a))
                for a in cands}

    def score_exprs(self, cp, pos: list, weights: Sequence[int], items: Sequence[str],
                    lt: Callable, ge: Callable) -> dict:
        raise NotImplementedError(f"{self.name} is not a rule of incomplete profiles")

    def __repr__(self) -> str:
        return f"<rule encoding {self.name}>"


#: name -> the rule's encoding, in the order of registration.
ENCODINGS: dict[str, RuleEncoding] = {}


def encoding(name: str):
    """Register the decorated :class:`RuleEncoding` subclass as the models' rule ``name``
    (a name of :data:`prefcert.formal.rules.RULES`)."""
    def register(cls: type[RuleEncoding]) -> type[RuleEncoding]:
        if name in ENCODINGS:
            raise ValueError(f"rule encoding {name!r} registered twice")
        cls.name = name
        ENCODINGS[name] = cls()
        return cls
    return register


def rule_encoding(name: str) -> RuleEncoding:
    """The models' rule ``name``; ValueError for a name without one."""
    if name not in ENCODINGS:
        raise ValueError(f"unknown rule {name!r}")
    return ENCODINGS[name]


# --------------------------------------------------------------------------- the rules

@encoding("plurality")
class Plurality(RuleEncoding):
    """One point to a ballot's single top."""

    aggregation = "top"

    def base(self, e) -> dict:
        s = dict.fromkeys(e.candidates, 0)
        for b in e.ballots:
            if b.ranking and len(b.ranking[0]) == 1:
                s[b.ranking[0][0]] += b.count
        return s

    def report_scores(self, md, e, cands, weights, pos, A, ap, base) -> dict:
        score = {}
        for x in cands:
            add = 0
            for i, w in enumerate(weights):
                top = md.new_bool_var(f"top[{i},{x}]")
                md.add(pos[i][x] == 0).only_enforce_if(top)
                md.add(pos[i][x] != 0).only_enforce_if(top.Not())
                add = add + w * top
            score[x] = base[x] + add
        return score

    def type_points(self, q, a, m) -> int:
        return int(q[0] == a)

    def score_exprs(self, cp, pos, weights, items, lt, ge) -> dict:
        s = {x: [] for x in items}
        for p, w in zip(pos, weights):
            for x in items:
                s[x].append(w * ge(cp, -p[x], 0))   # pos == 0
        return {x: sum(v) for x, v in s.items()}


@encoding("borda")
class Borda(RuleEncoding):
    """|{y : x ≻_b y}| points from a ballot b."""

    aggregation = "positional"

    def coalition_cap(self, n: int, m: int) -> int:
        """n(m − 1) + 1 manipulators with the candidate first surely elect it."""
        return n * max(m - 1, 1) + 1

    def base(self, e) -> dict:
        s = dict.fromkeys(e.candidates, 0)
        for b in e.ballots:
            seen = 0
            for g in b.ranking:
                seen += len(g)
                for x in g:
                    s[x] += b.count * (len(e.candidates) - seen)
        return s

    def report_scores(self, md, e, cands, weights, pos, A, ap, base) -> dict:
        m = len(cands)
        return {x: base[x] + sum(w * (m - 1 - pos[i][x]) for i, w in enumerate(weights))
                for x in cands}

    def type_points(self, q, a, m) -> int:
        return m - 1 - q.index(a)

    def score_exprs(self, cp, pos, weights, items, lt, ge) -> dict:
        m = len(items)
        return {x: sum(w * (m - 1 - p[x]) for p, w in zip(pos, weights)) for x in items}


@encoding("approval")
class Approval(RuleEncoding):
    """One point per approved candidate."""

    def base(self, e) -> dict:
        s = dict.fromkeys(e.candidates, 0)
        for b in e.ballots:
            for x in b.approved:
                s[x] += b.count
        return s

    def report_scores(self, md, e, cands, weights, pos, A, ap, base) -> dict:
        return {x: base[x] + sum(w * ap[i][x] for i, w in enumerate(weights)) for x in cands}

    def type_points(self, q, a, m) -> int:
        return int(a in q)


@encoding("irv")
class InstantRunoff(RuleEncoding):
    """The elimination-order model (encodings.election)."""

    order_literals = True
    rounds = True


@encoding("copeland")
class Copeland(RuleEncoding):
    """Pairwise majorities: 2 points a win, 1 a tie (doubled Copeland^½); wins − losses
    on completed profiles."""

    order_literals = True
    pairwise = True
    parity = 2

    def base(self, e) -> dict:
        cands = e.candidates
        mg = {(x, y): 0 for x in cands for y in cands if x != y}
        for b in e.ballots:
            level = {x: gi for gi, g in enumerate(b.ranking) for x in g}
            bottom = len(b.ranking)
            for x in cands:
                for y in cands:
                    if x != y and level.get(x, bottom) < level.get(y, bottom):
                        mg[(x, y)] += b.count
                        mg[(y, x)] -= b.count
        return mg

    def report_scores(self, md, e, cands, weights, pos, A, ap, base) -> dict:
        score = {}
        for x in cands:
            terms = []
            for y in cands:
                if x == y:
                    continue
                mg = base[(x, y)] + sum(w * (2 * A[i][(x, y)] - 1)
                                        for i, w in enumerate(weights))
                win, tie = md.new_bool_var(f"win[{x},{y}]"), md.new_bool_var(f"tie[{x},{y}]")
                lose = md.new_bool_var(f"lose[{x},{y}]")
                md.add_exactly_one([win, tie, lose])
                md.add(mg >= 1).only_enforce_if(win)
                md.add(mg == 0).only_enforce_if(tie)
                md.add(mg <= -1).only_enforce_if(lose)
                terms += [2 * win, tie]
            score[x] = sum(terms)
        return score

    def type_scores(self, md, x, types, base, cands) -> dict:
        score = {}
        for a in cands:
            terms = []
            for b in cands:
                if a == b:
                    continue
                mg = base[(a, b)] + sum(
                    xi * (1 if q.index(a) < q.index(b) else -1) for xi, q in zip(x, types))
                win, tie, lose = md.new_bool_var(""), md.new_bool_var(""), md.new_bool_var("")
                md.add_exactly_one([win, tie, lose])
                md.add(mg >= 1).only_enforce_if(win)
                md.add(mg == 0).only_enforce_if(tie)
                md.add(mg <= -1).only_enforce_if(lose)
                terms += [2 * win, tie]
            score[a] = sum(terms)
        return score

    def score_exprs(self, cp, pos, weights, items, lt, ge) -> dict:
        V = sum(weights)
        sc = {x: [] for x in items}
        for x, y in itertools.combinations(items, 2):
            nxy = sum(w * lt(cp, p, x, y) for p, w in zip(pos, weights))
            w = cp.new_bool_var("")
            cp.add(2 * nxy >= V + 1).only_enforce_if(w)
            cp.add(2 * nxy <= V).only_enforce_if(~w)
            l_ = cp.new_bool_var("")
            cp.add(2 * nxy <= V - 1).only_enforce_if(l_)
            cp.add(2 * nxy >= V).only_enforce_if(~l_)
            sc[x].append(w - l_)
            sc[y].append(l_ - w)
        return {x: sum(v) for x, v in sc.items()}


__all__ = ["ENCODINGS", "RuleEncoding", "encoding", "rule_encoding"]
