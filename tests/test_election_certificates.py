"""Manipulation labels carry the cheap exact proof (issue 24, item 5): the greedy's stuck
sets (plurality, Borda, Copeland, approval: Bartholdi, Tovey & Trick 1989) and the IRV
elimination-state search, with enumeration of every report as the cross-check (and as an
option, ``engines=["oracle"]``, for the counts of the ballot space).

The property test enumerates every report itself (the outcome of each report counted by
the trusted rule definitions, ``formal.checker.election.Count``, which test_election.py
pins against pref-voting); the best reachable winner, the verdict and the gain are worked
out here. The tamper tests change one thing each in a checked label; the instances and
their stuck sets are worked out by hand in the comments.
"""
from __future__ import annotations

import copy
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prefcert
from prefcert.formal.checker import election as ce
from prefcert.formal.election import parse_election
from prefcert.formal.errors import CertificateError
from prefcert.formal.rules import rule_names

RULES = rule_names()
CHEAP = {"irv": "elimination_search"}          # every other rule: "greedy"


# --------------------------------------------------------------------------- property

@st.composite
def small_elections(draw):
    """m ≤ 5 candidates; n from none to 8 ballot lines (counts 1–3); ballots full, tied,
    truncated, empty or all the same, some (non-empty ones: a ranking rule refuses a ballot
    that only approves) with explicit approval sets; τ any order; the
    manipulator's true ranking strict and full, or tied / truncated."""
    m = draw(st.integers(1, 5))
    cands = [chr(ord("a") + i) for i in range(m)]
    n = draw(st.sampled_from([0, 1, 2, 3, 5, 8]))
    shape = draw(st.sampled_from(["strict", "weak", "same"]))

    def weak() -> list:
        order, groups = draw(st.permutations(cands)), []
        for x in order[:draw(st.integers(0, m))]:
            if groups and draw(st.integers(0, 3)) == 0:
                groups[-1].append(x)
            else:
                groups.append([x])
        return [g[0] if len(g) == 1 else g for g in groups]
    first = list(draw(st.permutations(cands)))
    ballots = []
    for _ in range(n):
        b: dict = {"ranking": first if shape == "same" else
                   weak() if shape == "weak" else list(draw(st.permutations(cands)))}
        if shape == "weak" and b["ranking"] and draw(st.booleans()):
            b["approve"] = sorted(draw(st.sets(st.sampled_from(cands))))
        b["count"] = draw(st.integers(1, 3))
        ballots.append(b)
    truth = weak() if draw(st.integers(0, 3)) == 0 else list(draw(st.permutations(cands)))
    return {"id": "p", "domain": "election", "candidates": cands,
            "tie_break": list(draw(st.permutations(cands))), "ballots": ballots,
            "approval_top": draw(st.integers(0, m)), "manipulator": {"ranking": truth}}


def outcomes(data: dict, rule: str) -> dict[str, int]:
    """Every report (m! rankings; 2^m subsets for approval), each counted with the other
    ballots: winner -> number of reports electing it."""
    e = parse_election(data)
    count = ce.Count(e, rule)
    space = (s for k in range(e.m + 1) for s in itertools.combinations(e.candidates, k)) \
        if rule == "approval" else itertools.permutations(e.candidates)
    out: dict[str, int] = {}
    for q in space:
        w = count.winner([ce.report_ballot(e, rule, list(q))])
        out[w] = out.get(w, 0) + 1
    return out


def brute_force(data: dict, rule: str) -> dict:
    """From :func:`outcomes`: w₀, the best reachable winner (true rank, then τ), the
    gain, the verdict."""
    e = parse_election(data)
    reach = set(outcomes(data, rule))
    w0 = ce.Count(e, rule).winner([e.manipulator])
    best = min(reach | {w0}, key=lambda x: (e.true_pos(x), e.tie_break.index(x)))
    return {"verdict": "manipulable" if e.true_pos(best) < e.true_pos(w0)
            else "not_manipulable", "sincere_winner": w0, "best_winner": best,
            "gain": e.true_pos(w0) - e.true_pos(best)}


@settings(max_examples=30, deadline=None)
@given(small_elections(), st.sampled_from(RULES))
def test_default_labels_agree_with_brute_force(data, rule):
    """The default label of every rule: the cheap certificate (never enumeration), no
    counts, verdict / w₀ / w* / gain as the brute force finds them, its ballot electing
    w*; enumeration ran as the cross-check and the checker accepts the label."""
    e = parse_election(data)
    if rule != "approval" and not e.manipulator.ranking:
        return
    lab = prefcert.label(data, {"type": "manipulation", "rule": rule})
    want = brute_force(data, rule)
    sol = lab["solution"]
    assert lab["checked"] and lab["certificate"]["type"] == CHEAP.get(rule, "greedy")
    assert [x["engine"] for x in lab["engines"]] == ["reachability", "oracle"]
    assert {"verdict": lab["verdict"], **{k: sol[k] for k in want if k != "verdict"}} == want
    assert set(sol) == {"sincere_winner", "best_winner", "ballot", "gain"}
    if sol["ballot"] is not None:
        got = ce.Count(e, rule).winner([ce.report_ballot(e, rule, sol["ballot"])])
        assert got == want["best_winner"]
    assert prefcert.check(lab, data)


@settings(max_examples=20, deadline=None)
@given(small_elections(), st.sampled_from(RULES))
def test_enumeration_option_counts_agree_with_brute_force(data, rule):
    """The enumeration option (``engines=["oracle"]``: the counts, IRV by the walk of the
    reports' prefix tree) against the reports counted one by one here."""
    e = parse_election(data)
    if rule != "approval" and not e.manipulator.ranking:
        return
    lab = prefcert.label(data, {"type": "manipulation", "rule": rule}, engines=["oracle"])
    sol, got = lab["solution"], outcomes(data, rule)
    pos, w0 = e.true_pos, brute_force(data, rule)["sincere_winner"]
    assert lab["certificate"]["type"] == "enumeration" and sol["outcomes"] == got
    assert sol["reports"] == sum(got.values())
    assert sol["profitable"] == sum(k for x, k in got.items() if pos(x) < pos(w0))
    assert sol["optimal"] == sum(k for x, k in got.items()
                                 if pos(x) == pos(sol["best_winner"]))


def test_engine_order_by_size():
    """Enumeration is the cross-check while the ballot space has at most 5040 reports
    (m ≤ 7), CP-SAT from m = 8; an explicit engine list keeps the engines' own order
    (the oracle's enumeration first: the counts)."""
    from prefcert.domains.election import DOMAIN
    auto = DOMAIN.questions["manipulation"].auto
    for m, want in ((3, ["reachability", "oracle"]), (7, ["reachability", "oracle"]),
                    (8, ["reachability", "cpsat"])):
        c = [f"c{i}" for i in range(m)]
        e = parse_election({"candidates": c, "tie_break": c, "ballots": [c],
                            "rule": "borda", "manipulator": {"ranking": c}})
        assert auto(e) == want, m
    lab = prefcert.label(BORDA, "manipulation", engines=["reachability", "oracle"])
    assert lab["certificate"]["type"] == "enumeration"
    assert lab["solution"]["reports"] == 24


# --------------------------------------------------------------------------- tampering

# Borda, τ = a b c d; the fixed ballots give a 1, b 8, c 6, d 3 (test_election.py pins
# these). Sincere a c d b: a 4, b 8, c 8, d 4 → b (τ). c first, b last: c 9 > b 8 → c
# is reachable, the best (true rank 2; gain 4 − 2 = 2). With a first (a 4), no rival fits
# directly below it (b above c, d: 10; c above b, d: 8; d above b, c: 5), so the greedy is
# stuck at once: a's stuck set is {b, c, d}. {d} alone is no stuck set: d last gets 3 < 4.
BORDA = {"id": "b", "domain": "election", "candidates": ["a", "b", "c", "d"],
         "tie_break": ["a", "b", "c", "d"], "rule": "borda",
         "ballots": [["b", "c", "a", "d"], ["b", "d", "c", "a"], ["c", "b", "d", "a"]],
         "manipulator": {"ranking": ["a", "c", "d", "b"]}}

# Approval, τ = a b c, the manipulator approves its top 1 (a): a 1, b 2, c 1 → b. Alone,
# a has 1 < b's 2; c alone has 2 = b's 2, b first in τ: neither is reachable, so the
# label is not_manipulable with the one rival b refuting both.
APPROVAL = {"id": "ap", "domain": "election", "candidates": ["a", "b", "c"],
            "tie_break": ["a", "b", "c"], "rule": "approval", "approval_top": 1,
            "ballots": [{"ranking": ["b"], "approve": ["b"], "count": 2},
                        {"ranking": ["c"], "approve": ["c"]}],
            "manipulator": {"ranking": ["a", "c", "b"]}}

# IRV (test_election.py works it out round by round): sincere elects c; reporting
# d > a > b > c elects a, the manipulator's top.
from test_election import IRV  # noqa: E402


def _label(data: dict) -> dict:
    lab = prefcert.label(data, "manipulation")
    assert lab["checked"]
    return lab


def test_hand_worked_labels():
    b = _label(BORDA)
    assert (b["verdict"], b["certificate"]) == \
        ("manipulable", {"type": "greedy", "refuted": {"a": ["b", "c", "d"]}})
    assert {k: b["solution"][k] for k in ("sincere_winner", "best_winner", "gain")} == \
        {"sincere_winner": "b", "best_winner": "c", "gain": 2}
    a = _label(APPROVAL)
    assert (a["verdict"], a["solution"]["best_winner"], a["certificate"]["refuted"]) == \
        ("not_manipulable", "b", {"a": ["b"], "c": ["b"]})
    i = _label(IRV)
    assert (i["verdict"], i["solution"]["best_winner"], i["certificate"]["type"]) == \
        ("manipulable", "a", "elimination_search")


def _solution(**kw):
    return lambda lab: lab["solution"].update(kw)


def _refuted(**kw):
    return lambda lab: lab["certificate"]["refuted"].update(kw)


def _flip(lab: dict) -> None:
    lab["verdict"] = "not_manipulable" if lab["verdict"] == "manipulable" else "manipulable"


TAMPER = {
    # greedy (Borda)
    "drop_a_refutation": (BORDA, lambda lab: lab["certificate"]["refuted"].pop("a")),
    "rival_that_can_be_placed": (BORDA, _refuted(a=["d"])),     # d last: 3 < a's 4
    "target_in_its_stuck_set": (BORDA, _refuted(a=["a", "b"])),
    "unknown_rival": (BORDA, _refuted(a=["z"])),
    "empty_stuck_set": (BORDA, _refuted(a=[])),
    "refuting_a_reachable_winner": (BORDA, lambda lab: (
        lab.update(verdict="not_manipulable"),
        lab["solution"].update(best_winner="b", ballot=None, gain=0),
        lab["certificate"]["refuted"].update(c=["b"]))),        # c first: 9 > b's 8
    "claim_not_manipulable_without_proof": (BORDA, lambda lab: (
        lab.update(verdict="not_manipulable"),
        lab["solution"].update(best_winner="b", ballot=None, gain=0))),
    "ballot_not_electing_w_star": (BORDA, _solution(ballot=["a", "c", "d", "b"])),
    "incomplete_ballot": (BORDA, _solution(ballot=["c", "a", "d"])),
    "wrong_gain": (BORDA, _solution(gain=1)),
    "wrong_sincere_winner": (BORDA, _solution(sincere_winner="c")),
    "flipped_verdict": (BORDA, _flip),
    "counts_the_greedy_does_not_verify": (BORDA, _solution(
        reports=24, profitable=6, optimal=6, outcomes={"b": 18, "c": 6})),
    "unknown_certificate_field": (BORDA, lambda lab: lab["certificate"].update(note=1)),
    "search_for_a_score_rule": (BORDA, lambda lab: lab.update(
        certificate={"type": "elimination_search", "states": 1})),
    # greedy (approval)
    "approval_rival_that_does_not_beat": (APPROVAL, _refuted(a=["c"])),   # c 1 = a 1, τ a
    "approval_two_rivals": (APPROVAL, _refuted(a=["b", "c"])),
    # elimination_search (IRV)
    "states_one_short": (IRV, lambda lab: lab["certificate"].update(
        states=lab["certificate"]["states"] - 1)),
    "states_over_the_limit": (IRV, lambda lab: lab["certificate"].update(
        states=ce.SEARCH_LIMIT + 1)),
    "search_hides_the_best": (IRV, lambda lab: (
        lab.update(verdict="not_manipulable"),
        lab["solution"].update(best_winner="c", ballot=None, gain=0))),
    "greedy_for_irv": (IRV, lambda lab: lab.update(
        certificate={"type": "greedy", "refuted": {}})),
    "irv_ballot_not_electing_w_star": (IRV, _solution(ballot=["a", "b", "d", "c"])),
}


@pytest.mark.parametrize("kind", TAMPER)
def test_checker_rejects_a_tampered_certificate(kind):
    data, mutate = TAMPER[kind]
    lab = _label(data)
    assert prefcert.check(lab, data)
    bad = copy.deepcopy(lab)
    mutate(bad)
    assert bad != lab
    with pytest.raises(CertificateError):
        prefcert.check(bad, data)
