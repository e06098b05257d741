"""The election model on integers (issue 24 item 2): ``Election.ints`` pinned against a
name-based derivation written here, the rules' integer definitions against their
name-based ones, the checker's integer ``Count`` against a name-based recount, and
tampered labels rejected on the integer paths with the error texts unchanged."""
from __future__ import annotations

import copy
import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prefcert
from prefcert.formal.checker import election as ce
from prefcert.formal.election import Ballot, ElectionInts, election_ints, parse_election
from prefcert.formal.errors import CertificateError
from prefcert.formal.rules import RULES, rule_names


@st.composite
def elections(draw) -> dict:
    """m ≤ 5 candidates; ballots full, tied, truncated or empty, with counts, some with
    explicit approval sets; τ any order; ``approval_top`` any k (or the default); a
    manipulator (tied / truncated, maybe approving) or none."""
    m = draw(st.integers(1, 5))
    cands = [f"x{i}" for i in range(m)]

    def weak(low: int = 0) -> list:
        order, groups = draw(st.permutations(cands)), []
        for x in order[:draw(st.integers(low, m))]:
            if groups and draw(st.integers(0, 2)) == 0:
                groups[-1].append(x)
            else:
                groups.append([x])
        return [g[0] if len(g) == 1 and draw(st.booleans()) else g for g in groups]

    def ballot(man: bool = False) -> dict | list:
        r = weak(1 if man else 0)
        if not man and draw(st.integers(0, 3)) == 0:
            return r                                    # the bare-list shorthand
        b: dict = {"ranking": r}
        if not man and draw(st.booleans()):
            b["count"] = draw(st.integers(1, 4))
        if draw(st.integers(0, 3)) == 0:
            b["approve"] = sorted(draw(st.sets(st.sampled_from(cands))))
        return b
    data = {"domain": "election", "candidates": cands,
            "tie_break": list(draw(st.permutations(cands))),
            "ballots": [ballot() for _ in range(draw(st.integers(0, 6)))]}
    if draw(st.booleans()):
        data["approval_top"] = draw(st.integers(0, m))
    if draw(st.integers(0, 3)):
        data["manipulator"] = ballot(True)
    return data


def by_names(data: dict) -> ElectionInts:
    """The integer form derived from the JSON by names, as the module docstring defines
    it: indices in the listed order, τ priorities, each ballot's groups, ranks (m for
    unranked), approval bitmask (explicit, or the ranked candidates with fewer than k
    ranked strictly above), count."""
    cands, tau = data["candidates"], data["tie_break"]
    m = len(cands)
    k = data.get("approval_top", m // 2)

    def one(raw):
        raw = {"ranking": raw} if isinstance(raw, list) else raw
        groups = [[x] if isinstance(x, str) else x for x in raw.get("ranking", [])]
        ig = tuple(tuple(cands.index(x) for x in g) for g in groups)
        rank = tuple(next((gi for gi, g in enumerate(groups) if x in g), m) for x in cands)
        if "approve" in raw:
            approved = set(raw["approve"])
        else:
            approved = {x for gi, g in enumerate(groups) for x in g
                        if sum(len(h) for h in groups[:gi]) < k}
        return ig, rank, sum(1 << cands.index(x) for x in approved), raw.get("count", 1)
    per = [one(b) for b in data["ballots"]]
    man = None if "manipulator" not in data else one(data["manipulator"])[:3]
    return ElectionInts(m, {x: i for i, x in enumerate(cands)},
                        tuple(tau.index(x) for x in cands), tuple(cands.index(x) for x in tau),
                        tuple(p[0] for p in per), tuple(p[1] for p in per),
                        tuple(p[2] for p in per), tuple(p[3] for p in per), man)


@settings(max_examples=200, deadline=None)
@given(elections())
def test_election_ints_match_a_name_based_derivation(data):
    e = parse_election(data)
    want = by_names(data)
    assert e.ints == want
    assert election_ints(replace(e)) == want                # the lazy path agrees
    s = e.sincere()
    assert s.ints == election_ints(replace(s)) == want.sincere()
    if e.manipulator is not None:
        assert s.ints.counts[-1] == 1 and s.ints.manipulator is None


def test_replace_drops_the_integer_form():
    """An election made by ``replace`` (another τ) derives its own integer form."""
    e = parse_election({"candidates": ["a", "b", "c"], "tie_break": ["a", "b", "c"],
                        "ballots": [["c", ["a", "b"]]]})
    assert e.ints.prio == (0, 1, 2) and e.ints.ranks == ((1, 1, 0),)
    r = replace(e, tie_break=("c", "b", "a"))
    assert r.ints.prio == (2, 1, 0) and r.ints.tau_order == (2, 1, 0)
    assert r.ints.groups == e.ints.groups


@settings(max_examples=200, deadline=None)
@given(elections(), st.data())
def test_integer_rule_definitions_equal_the_name_based_ones(data, draw):
    e = parse_election(data)
    names, ints = e.candidates, e.ints
    for b, g, a in zip(e.ballots, ints.groups, ints.approved):
        for r in RULES.values():
            if r.ipoints is not None:
                want = {names.index(x): p for x, p in r.points(b, names).items()}
                assert r.ipoints(g, a, b.count, e.m) == want
            if r.iround_vote is not None:
                active = draw.draw(st.integers(0, 2 ** e.m - 1))
                got = r.iround_vote(g, active)
                want = r.round_vote(b, frozenset(x for i, x in enumerate(names)
                                                 if (active >> i) & 1))
                assert (None if got is None else names[got]) == want
    for r in RULES.values():
        if r.ipoints is not None:
            want = r.tally(e.ballots, names)
            assert r.itally(ints.groups, ints.approved, ints.counts, e.m) == \
                [want[x] for x in names]
            assert type(r).__mro__[-2].itally(r, ints.groups, ints.approved, ints.counts,
                                               e.m) == [want[x] for x in names]


def _recount(e, rule: str, extra: list[Ballot]) -> str:
    """The resolute winner by names, from the rules' name-based definitions (score rules
    and Copeland; IRV round by round on frozensets)."""
    r, names = RULES[rule], e.candidates
    ballots = [*e.ballots, *extra]
    tau = {x: i for i, x in enumerate(e.tie_break)}
    if r.rounds:
        active = frozenset(names)
        while len(active) > 1:
            t = {x: 0 for x in active}
            for b in ballots:
                x = r.round_vote(b, active)
                if x is not None:
                    t[x] += b.count
            low = min(t.values())
            active = active - {max((x for x in t if t[x] == low), key=tau.__getitem__)}
        return next(iter(active))
    if r.pairwise:
        def pos(b, x):
            return next((gi for gi, g in enumerate(b.ranking) if x in g), len(names))
        s = {x: sum(r.contest(sum(b.count * ((pos(b, x) < pos(b, y)) - (pos(b, y) < pos(b, x)))
                                  for b in ballots)) for y in names if y != x) for x in names}
    else:
        s = r.tally(ballots, names)
    return min(names, key=lambda x: (-s[x], tau[x]))


@settings(max_examples=100, deadline=None)
@given(elections(), st.sampled_from(rule_names()), st.data())
def test_integer_count_equals_a_name_based_recount(data, rule, draw):
    e = parse_election(data)
    if not RULES[rule].approval and any(b.explicit_approval and not b.ranking
                                        for b in e.ballots):
        return
    cnt = ce.Count(e, rule)
    assert cnt.winner() == _recount(e, rule, [])
    for _ in range(3):
        if RULES[rule].approval:
            q = sorted(draw.draw(st.sets(st.sampled_from(e.candidates))))
        else:
            q = list(draw.draw(st.permutations(e.candidates)))
        b = ce.report_ballot(e, rule, q)
        assert cnt.winner([b]) == _recount(e, rule, [b])
        assert cnt.iwinner([ce.report_ix(e, rule, q)]) == e.candidates.index(cnt.winner([b]))


def test_integer_reports_follow_the_named_order():
    e = parse_election({"candidates": ["b", "a", "c"], "tie_break": ["c", "a", "b"],
                        "ballots": [["a"]]})
    for rule in ("borda", "approval"):
        named = [ce.report_ix(e, rule, list(q)) for q in ce.reports(e, rule)]
        assert list(ce.ireports(e, rule)) == named


# --------------------------------------------------------------------------- tampering

# Plurality, τ = a b c: a 3, b 2, c 1; one more manipulator cannot lift c above a
# (dominant: c on top gets 2 < 3). Borda: the same ballots as rankings; Copeland.
FIXED = {"id": "t", "domain": "election", "candidates": ["a", "b", "c"],
         "tie_break": ["a", "b", "c"],
         "ballots": [{"ranking": ["a", "b", "c"], "count": 3},
                     {"ranking": ["b", "c", "a"], "count": 2}, ["c", "a", "b"]],
         "manipulator": {"ranking": ["c", "b", "a"]}}


def _lab(rule: str, q, **kw) -> tuple[dict, dict]:
    data = dict(FIXED, rule=rule)
    lab = prefcert.label(data, q, **kw)
    assert lab["checked"] and prefcert.check(lab, data)
    return data, lab


def _rejects(data: dict, lab: dict, mutate, match: str) -> None:
    bad = copy.deepcopy(lab)
    mutate(bad)
    with pytest.raises(CertificateError, match=match):
        prefcert.check(bad, data)


def _coalition(c: str, k: int) -> dict:
    return {"type": "coalitional_manipulation", "candidate": c, "k": k}


def test_tampered_coalition_labels_are_rejected_with_the_same_texts():
    data, lab = _lab("plurality", _coalition("c", 1))
    assert lab["certificate"]["type"] in ("dominant", "greedy")
    if lab["certificate"]["type"] == "dominant":
        _rejects(data, lab, lambda b: b["certificate"].update(by="c"), "does not beat 'c'")
        _rejects(data, lab, lambda b: b["certificate"].update(by="zz"), "does not beat 'c'")
    data, lab = _lab("plurality", _coalition("c", 3))          # c 1 + 3 > a 3
    assert lab["verdict"] == "exists" and lab["certificate"]["type"] == "ballots"
    _rejects(data, lab, lambda b: b["solution"].update(ballots=[["zz", "a", "b"]] * 3),
             "repeats or names an unknown candidate")
    _rejects(data, lab, lambda b: b["solution"].update(ballots=[["a", "b", "c"]] * 3),
             "the reports elect 'a', not 'c'")
    data, lab = _lab("borda", _coalition("c", 1))
    assert lab["verdict"] == "none"
    data, lab = _lab("copeland", _coalition("a", 1))
    assert lab["verdict"] == "exists"


def test_tampered_enumeration_and_winner_labels_are_rejected_with_the_same_texts():
    data, lab = _lab("borda", "manipulation", engines=["oracle"])
    assert lab["certificate"]["type"] == "enumeration"
    out = dict(lab["solution"]["outcomes"])
    first = next(iter(out))
    out[first] += 1
    _rejects(data, lab, lambda b: b["solution"].update(outcomes=out), "outcomes is ")
    _rejects(data, lab, lambda b: b["solution"].update(
        profitable=lab["solution"]["profitable"] + 1), "profitable is ")
    _rejects(data, lab, lambda b: b["solution"].update(best_winner="zz"),
             "best_winner 'zz' is not a candidate")
    data, lab = _lab("irv", "winner")
    assert lab["certificate"]["type"] == "elimination_rounds"
    rounds = copy.deepcopy(lab["certificate"]["rounds"])
    x = next(iter(rounds[0]))
    rounds[0][x] += 1
    _rejects(data, lab, lambda b: b["certificate"].update(rounds=rounds),
             "the round tallies differ from the recount")
    _rejects(data, lab, lambda b: b["certificate"].update(
        eliminated=lab["certificate"]["eliminated"][::-1]), "the eliminations are ")
    data, lab = _lab("copeland", "winner")
    _rejects(data, lab, lambda b: b["certificate"]["scores"].update(a=9), "score of 'a' is ")


def test_tampered_greedy_and_search_labels_are_rejected_with_the_same_texts():
    data, lab = _lab("borda", "manipulation")
    if lab["certificate"]["type"] == "greedy" and lab["certificate"]["refuted"]:
        c = next(iter(lab["certificate"]["refuted"]))
        _rejects(data, lab, lambda b: b["certificate"]["refuted"].update({c: [c]}),
                 f"a stuck set is a non-empty list of rivals of '{c}'")
        _rejects(data, lab, lambda b: b["certificate"]["refuted"].pop(c),
                 f"no proof that '{c}' cannot be made to win")
    data, lab = _lab("irv", "manipulation")
    assert lab["certificate"]["type"] == "elimination_search"
    n = lab["certificate"]["states"]
    _rejects(data, lab, lambda b: b["certificate"].update(states=n + 1),
             f"the search has {n} states, not {n + 1}")
    _rejects(data, lab, lambda b: b["solution"].update(sincere_winner="b"
                                                       if lab["solution"]["sincere_winner"]
                                                       != "b" else "a"),
             "the sincere winner is ")


def test_search_states_and_reachable_winners_by_hand():
    """IRV on the bitmask search: its number of states is the engine's (the label's
    ``states``) and its reachable winners are exactly those some report elects (every
    one of the 3! reports replayed)."""
    data = dict(FIXED, rule="irv")
    e = parse_election(data)
    cnt = ce.Count(e, "irv")
    won, n = ce.irv_reachable(cnt)
    lab = prefcert.label(data, "manipulation")
    assert lab["certificate"]["states"] == n
    assert won == {x for x in e.candidates
                   if any(cnt.winner([ce.report_ballot(e, "irv", list(q))]) == x
                          for q in itertools.permutations(e.candidates))}


# a leads 6 + 1 voters; c is last everywhere: no small coalition elects c
LEAD = {"id": "t2", "domain": "election", "candidates": ["a", "b", "c"],
        "tie_break": ["a", "b", "c"],
        "ballots": [{"ranking": ["a", "b", "c"], "count": 6}, ["b", "a", "c"]]}


def _more(lab: dict, k: int):
    """The label's question asked for k manipulators instead."""
    def go(b: dict) -> None:
        b["question"]["weights"] = [1] * k
    return go if "weights" in lab["question"] else \
        (lambda b: b["question"].update(k=k))


@pytest.mark.parametrize("rule, proof", [("borda", "score_bound"),
                                         ("irv", "coalition_enumeration"),
                                         ("copeland", "pairwise_bound"),
                                         ("plurality", "dominant")])
def test_tampered_coalition_bounds_are_rejected_with_the_same_texts(rule, proof):
    data = dict(LEAD, rule=rule)
    lab = prefcert.label(data, _coalition("c", 2))
    assert (lab["verdict"], lab["certificate"]["type"]) == ("none", proof)
    assert prefcert.check(lab, data)
    many = _more(lab, 12)                                   # 12 voters for c win
    if proof == "score_bound":
        _rejects(data, lab, many, "the counting bound does not rule the candidate out")
    elif proof == "coalition_enumeration":
        _rejects(data, lab, many, r"the joint report \[\(\('a', 'b', 'c'\), 1\), .*\] elects 'c'")
    elif proof == "pairwise_bound":
        _rejects(data, lab, lambda b: b["certificate"].update(by="c"),
                 "pairwise_bound names the rival 'by'")
        _rejects(data, lab, many, "'a' does not beat 'c' at the extremes")
    else:
        _rejects(data, lab, many, "'a' does not beat 'c' under the dominant reports")
