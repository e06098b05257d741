"""The election engines' fast paths against the trusted checker's replay and against the
vectorised paths they replace: plain-int tallies and one-report winners, the ballot space
counted by class (plurality by top, approval by first approved candidate) and Borda's by
points, Borda's report winners by a maximum over candidate rows, plurality's and Borda's
own loops of the greedy, and the arrays the greedy and the enumeration never build."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_election import elections

from prefcert.formal.checker import election as ce
from prefcert.formal.election import parse_election
from prefcert.oracles import election as oe
from prefcert.oracles.rules import _positions
from shared import replay_reports

SCORE_RULES = ("plurality", "borda", "approval", "copeland")


@settings(max_examples=150, deadline=None)
@given(elections(max_m=5), st.sampled_from(SCORE_RULES), st.randoms(use_true_random=False))
def test_plain_int_tally_and_one_report_winner_match_the_checker(data, rule, rnd):
    """The Tally's plain-int scores are the checker's, and the winner with one report
    added (the greedy's and w₀'s evaluation) is the checker's, for random reports."""
    e = parse_election(data)
    t = oe.Tally(e, rule)
    cnt = ce.Count(e, rule)
    want = cnt.scores()
    assert t.scores().tolist() == [want[x] for x in e.candidates]
    for _ in range(4):
        if rule == "approval":
            q = [x for x in e.candidates if rnd.random() < 0.5]
        else:
            q = rnd.sample(list(e.candidates), e.m)
        got = e.candidates[t.one_winner([t.idx[x] for x in q])]
        assert got == cnt.winner([ce.report_ballot(e, rule, q)])
        assert t.winner([q], [1]) == got


@settings(max_examples=150, deadline=None)
@given(elections(max_m=5), st.sampled_from((*SCORE_RULES, "irv")))
def test_report_counts_match_the_checkers_replay_of_every_report(data, rule):
    """The ballot space counted by class (plurality, approval), by IRV's prefix walk or
    by every report at once gives the checker's outcome counts and, for every winner, the
    first report electing it in the ballot space's order."""
    e = parse_election(data)
    counts, first = oe.report_counts(oe.Tally(e, rule))
    want_counts, want_first = replay_reports(e, rule)
    assert counts == want_counts
    for w, q in want_first.items():
        assert first(w) == q


@settings(max_examples=150, deadline=None)
@given(elections(max_m=6), st.sampled_from(("plurality", "approval", "borda")))
def test_class_counts_equal_the_vectorised_enumeration(data, rule):
    """Plurality's and approval's class counts and Borda's counts by points equal the
    vectorised evaluation of every report (the path they replace): same counts, same
    first report per winner."""
    e = parse_election(data)
    t = oe.Tally(e, rule)
    counts, first = t.engine.report_counts(t)
    rep = oe.all_reports(e, rule)
    win = oe.report_outcomes(e, rule, rep)
    assert counts == np.bincount(win, minlength=e.m).tolist()
    for w in set(win.tolist()):
        row = rep[int(np.flatnonzero(win == w)[0])]
        assert first[w] == tuple(np.flatnonzero(row).tolist() if rule == "approval"
                                 else row.tolist())


@settings(max_examples=150, deadline=None)
@given(elections(max_m=6), st.sampled_from(("plurality", "borda")), st.integers(1, 3))
def test_own_greedy_loops_place_as_the_generic_loop(data, rule, weight):
    """Plurality's and Borda's own loops of the greedy give the generic loop's answer
    (by ``placed_score``, the path they replace) for every candidate and weight: the same
    ranking, or the same stuck set in the same order."""
    e = parse_election(data)
    t = oe.Tally(e, rule)
    assert t.engine.own_greedy
    for c in range(e.m):
        assert t.engine.greedy(t, c, weight) == oe.placed_greedy(t, c, weight)


def test_borda_counts_by_points_on_a_worked_example():
    """Borda counted by points, against the six reports worked out by hand: fixed a 2,
    b 1, c 0, τ = a ≻ b ≻ c, the report adds 2, 1, 0. abc, acb, cab: a; bac: a 3 = b 3,
    a by τ; cba: 2 each, a by τ; bca: b 3 > a 2. So [5, 1, 0]; b's only report is bca,
    and c has none."""
    data = _election(3, [["a", "b", "c"]], manipulator={"ranking": ["c", "b", "a"]})
    e = parse_election(data)
    t = oe.Tally(e, "borda")
    counts, first = t.engine.report_counts(t)
    assert counts == [5, 1, 0]
    assert first[0] == (0, 1, 2) and first[1] == (1, 2, 0)
    with pytest.raises(KeyError):
        first[2]


@settings(max_examples=100, deadline=None)
@given(elections(max_m=6))
def test_borda_report_winners_equal_the_row_argmax(data):
    """Borda's winners by a maximum over the candidates' rows of the encoded key equal the
    row-wise argmax of score-then-τ (the former formula)."""
    e = parse_election(data)
    t = oe.Tally(e, "borda")
    rep = oe.all_reports(e, "borda")
    m = e.m
    key = (m - 1 + t.base) * (m + 1) + (m - t.prio)
    want = (key[None, :] - _positions(rep, m + 1)).argmax(axis=1)
    assert t.engine.report_winners(t, rep).tolist() == want.tolist()


def _election(m: int, ballots: list, tau: list[str] | None = None, **kw) -> dict:
    cands = [chr(ord("a") + i) for i in range(m)]
    return {"domain": "election", "candidates": cands, "tie_break": tau or cands,
            "ballots": ballots, **kw}


def test_approval_classes_a_point_up_ties_go_to_tau():
    """Regression: approval's class count when the first approved candidate, a point up,
    ties the fixed leader — the τ-higher of the two wins (b ≻ a in τ here)."""
    data = _election(3, [{"approve": ["a"], "count": 2}, {"approve": ["b"]}],
                     tau=["b", "a", "c"], manipulator={"ranking": ["c", "b", "a"]})
    e = parse_election(data)
    t = oe.Tally(e, "approval")
    counts, first = t.engine.report_counts(t)
    assert counts == replay_reports(e, "approval")[0] == [6, 2, 0]
    assert first == {0: (), 1: (1,)}


def test_copeland_winner_scores_are_halved_by_name():
    """The winner answer's Copeland scores are wins + ½ ties, by candidate name, as the
    checker's table (the one helper that names values)."""
    data = _election(3, [["a", "b", "c"], ["b", "a", "c"]], manipulator={"ranking": ["c"]})
    e = parse_election(data)
    got = oe.winner(e, "copeland")
    want = ce.winner_table(e, "copeland")
    assert got["scores"] == want["scores"] and got["winners"] == want["winners"]
    assert any(isinstance(v, float) for v in got["scores"].values())


@pytest.mark.parametrize("rule", ["plurality", "borda", "approval"])
def test_the_greedy_builds_no_array(rule):
    """The reachability engine and the enumeration on a small election evaluate on plain
    ints: their Tally never builds the numpy arrays (``base``, ``ranks``, ``approved``,
    ``counts``), which only the ballot space at once, coalitions and IRV read."""
    data = _election(5, [list(p) for p in itertools.islice(
        itertools.permutations("abcde"), 0, 40, 7)], manipulator={"ranking": list("edcba")})
    e = parse_election(data)
    oe.greedy_reachable(e, rule)
    t = oe.tally_of(e, rule)
    assert not {"base", "ranks", "approved", "counts", "prio"} & set(vars(t))
    oe.enumerate_reports(e, rule)        # counted by class or by points: still none
    assert not {"base", "ranks", "approved", "counts", "prio"} & set(vars(t))
