"""The lean manipulation paths (issue 24 item 5) against brute force and the generic paths
they shortcut: the trusted rules' ``tally`` overrides against a hand-written sum of points,
plurality's lazily built first reports and approval's early-stopping class count against
every report replayed, the greedy's shortcuts (no rival reaches c: τ order at once;
approval: the first rival in index order) against the generic loop and brute force, the
checker's stuck-set and report checks on tampered input, and whole labels (default,
``cross_check="always"``, ``engines=["oracle"]``) against brute force on random
profiles. No timing: only answers."""
from __future__ import annotations

import itertools
import random

import pytest

from prefcert.formal.checker import election as ce
from prefcert.formal.election import parse_election
from prefcert.formal.errors import CertificateError
from prefcert.formal.instances import from_object
from prefcert.formal.rules import RULES
from prefcert.oracles import election as oe
from prefcert.pipeline.jobs import label, plan
from shared import replay_reports


def _random_election(rng: random.Random, m: int, *, strict: bool, rule: str) -> dict:
    """m candidates (names in an order other than τ's), 1..6 ballots with counts; ``strict``:
    full strict rankings, else truncated and tied ones too, and explicit approval sets."""
    names = [f"x{rng.randint(0, 99)}_{i}" for i in range(m)]
    tau = rng.sample(names, m)
    ballots: list = []
    for _ in range(rng.randint(1, 6)):
        order = rng.sample(names, m)
        if not strict:
            order = order[:rng.randint(1, m)]
            if len(order) > 1 and rng.random() < 0.5:
                i = rng.randrange(len(order) - 1)
                order = order[:i] + [order[i:i + 2]] + order[i + 2:]
        b: dict = {"ranking": order, "count": rng.randint(1, 3)}
        if rule == "approval" and not strict and rng.random() < 0.3:
            b["approve"] = rng.sample(names, rng.randint(0, m))
        ballots.append(b)
    data = {"domain": "election", "candidates": names, "tie_break": tau, "rule": rule,
            "ballots": ballots, "manipulator": {"ranking": rng.sample(names, m)}}
    if rng.random() < 0.3:
        data["approval_top"] = rng.randint(0, m)
    return data


def _elections(seed: int, count: int, rules=("plurality", "borda", "approval", "copeland"),
               max_m: int = 5):
    rng = random.Random(seed)
    for k in range(count):
        rule = rules[k % len(rules)]
        yield rule, parse_election(_random_election(rng, rng.randint(1, max_m),
                                                    strict=k % 3 == 0, rule=rule))


# ------------------------------------------------------------------ the trusted tallies

def test_rule_tally_overrides_equal_the_sum_of_points():
    """Plurality's and approval's ``tally`` loops give what a hand-written sum gives (one
    point per voter to a single top; one per voter to each approved candidate), and the
    base class's sum of ``points`` does too, on truncated, tied and counted ballots."""
    for rule, e in _elections(1, 300, rules=("plurality", "approval", "borda")):
        want = dict.fromkeys(e.candidates, 0)
        for b in e.ballots:
            if rule == "plurality":
                if b.ranking and len(b.ranking[0]) == 1:
                    want[b.ranking[0][0]] += b.count
            elif rule == "approval":
                for x in b.approved:
                    want[x] += b.count
            else:                        # Borda: |{y : x ≻ y}| per voter
                pos = {x: e.pos(b.ranking, x) for x in e.candidates}
                for x in e.candidates:
                    want[x] += b.count * sum(pos[x] < pos[y] for y in e.candidates)
        r = RULES[rule]
        assert r.tally(e.ballots, e.candidates) == want
        assert type(r).__mro__[-2].tally(r, e.ballots, e.candidates) == want  # Rule.tally


def test_rule_kinds_are_plain_attributes_set_at_registration():
    assert [n for n, r in RULES.items() if r.approval] == ["approval"]
    assert [n for n, r in RULES.items() if r.pairwise] == ["copeland"]
    assert all(r.approval == (r.ballot == "approval") and r.pairwise == (r.contest is not None)
               for r in RULES.values())


# ------------------------------------------------------------------ the engines

@pytest.mark.parametrize("rule", ["plurality", "approval"])
def test_class_counts_and_lazy_first_reports_equal_every_report_replayed(rule):
    """Plurality (first reports built on look-up) and approval (the class loop stops at
    the first class that does not win): the counts and every winner's first report are
    those of the replay; a candidate no report elects is a KeyError."""
    for _, e in _elections(2, 150, rules=(rule,), max_m=5):
        t = oe.Tally(e, rule)
        counts, first = t.engine.report_counts(t)
        want_counts, want_first = replay_reports(e, rule)
        assert counts == want_counts
        for w in range(e.m):
            if w in want_first:
                assert first[w] == want_first[w]
            else:
                with pytest.raises(KeyError):
                    first[w]


@pytest.mark.parametrize("rule", ["plurality", "approval"])
def test_greedy_shortcuts_agree_with_the_generic_loop_and_brute_force(rule):
    """The greedy of one manipulator (weights 1..3): plurality's own loop (τ order at once
    when no rival reaches c's score) places as the generic loop; approval approves c alone
    and names the first rival in index order beating it, or none when no one reaches c;
    c is reachable exactly when some report (brute force) elects it."""
    for _, e in _elections(3, 120, rules=(rule,), max_m=5):
        t = oe.Tally(e, rule)
        space = list(ce.reports(e, rule))
        for c in range(e.m):
            for weight in (1, 2, 3):
                got = oe.greedy_can_win(t, c, weight)
                if rule == "plurality":
                    assert got == oe.placed_greedy(t, c, weight)
                else:
                    s = list(t.base_list)
                    s[c] += weight
                    beat = [r for r in range(e.m) if r != c and
                            (s[r], -t._prio[r]) > (s[c], -t._prio[c])]
                    assert got == ((None, beat[:1]) if beat else ([c], []))
            cnt = ce.Count(e, rule)
            reachable = any(cnt.winner([ce.report_ballot(e, rule, q)]) == e.candidates[c]
                            for q in space)
            assert (oe.greedy_can_win(t, c)[0] is not None) == reachable


def test_enumeration_answer_equals_brute_force():
    """The enumeration engine's w₀, w*, counts (|B_r|, |M|, |B*|, outcomes) and first
    optimal report against the tests' brute force over every report."""
    for rule, e in _elections(4, 200, max_m=5):
        got, want = oe.enumerate_reports(e, rule), oe.brute_force_manipulation(e, rule)
        assert (got.sincere, got.best, got.counts) == (want.sincere, want.best, want.counts)
        if got.best != got.sincere:
            assert oe.Tally(e, rule).winner([got.ballot], [1]) == got.best


# ------------------------------------------------------------------ the checker

def _greedy_label(data: dict) -> dict:
    (job,) = plan([from_object(data, "<test>", None, "t")], ["manipulation"])
    return label(job, cross_check="never")


def test_checker_refuses_malformed_stuck_sets():
    """Every malformed stuck set is a CertificateError (not a list, empty, repeated,
    unknown, holding c itself, a second approval rival), a rival that does not beat c
    too."""
    data = {"domain": "election", "candidates": ["a", "b", "c"], "tie_break": ["a", "b", "c"],
            "rule": "plurality", "ballots": [["a", "b", "c"], ["a", "c", "b"]],
            "manipulator": {"ranking": ["c", "b", "a"]}}
    e = parse_election(data)
    cnt = ce.Count(e, "plurality")
    ce.refute_greedy(cnt, "c", ["a"])                 # a (2 votes) beats c (1) with c first
    for bad in ("a", [], ["a", "a"], ["z"], ["c"], ["a", "c"], None):
        with pytest.raises(CertificateError):
            ce.refute_greedy(cnt, "c", bad)
    with pytest.raises(TypeError):                    # checker.check: "malformed certificate"
        ce.refute_greedy(cnt, "c", [["a"]])
    with pytest.raises(CertificateError):
        ce.refute_greedy(cnt, "c", ["b"])             # b has no vote: it does not beat c
    acnt = ce.Count(parse_election(dict(data, rule="approval", approval_top=1)), "approval")
    ce.refute_greedy(acnt, "c", ["a"])
    with pytest.raises(CertificateError):
        ce.refute_greedy(acnt, "c", ["a", "b"])


def test_checker_refuses_tampered_reports_and_refutations():
    """A label's report replayed (non-strings, repeats, unknown names, a short ranking) and
    its refutations (one missing) are checked; a valid label passes."""
    rng = random.Random(5)
    seen = 0
    for k in range(400):
        rule = ("plurality", "borda", "approval")[k % 3]
        data = _random_election(rng, rng.randint(3, 5), strict=True, rule=rule)
        lab = _greedy_label(data)
        e = parse_election(data)
        sol, cert = lab["solution"], lab["certificate"]
        ce.check_greedy(e, "manipulation", {}, lab["verdict"], sol, cert)
        if sol["ballot"] is not None:
            b = sol["ballot"]
            for bad in ([*b, b[0]], [*b[:-1], "zz"], [1, *b[1:]],
                        *([b[:-1]] if rule != "approval" else [])):
                with pytest.raises(CertificateError):
                    ce.check_greedy(e, "manipulation", {}, lab["verdict"], dict(sol, ballot=bad),
                                    cert)
        if cert["refuted"]:
            seen += 1
            drop = dict(cert, refuted=dict(list(cert["refuted"].items())[1:]))
            with pytest.raises(CertificateError, match="no proof that"):
                ce.check_greedy(e, "manipulation", {}, lab["verdict"], sol, drop)
    assert seen > 20


# ------------------------------------------------------------------ whole labels

@pytest.mark.parametrize("mode", ["default", "always", "oracle"])
def test_labels_agree_with_brute_force_on_random_profiles(mode):
    """Default labels (greedy proof, enumeration cross-check), ``cross_check="always"`` and
    ``engines=["oracle"]`` labels: verdict, w₀, w* and the gain of brute force, every
    certificate checked; the default label's certificate is the greedy's and the
    enumeration cross-check ran (m ≤ 5)."""
    rng = random.Random({"default": 6, "always": 7, "oracle": 8}[mode])
    for k in range(150):
        rule = ("plurality", "borda", "approval", "copeland")[k % 4]
        data = _random_election(rng, rng.randint(2, 5), strict=k % 2 == 0, rule=rule)
        (job,) = plan([from_object(data, "<test>", None, f"t{k}")], ["manipulation"])
        if mode == "oracle":
            lab = label(job, engines=["oracle"])
        else:
            lab = label(job, cross_check="budget" if mode == "default" else "always")
        want = oe.brute_force_manipulation(parse_election(data), rule)
        key = {x: (i, 0) for i, x in enumerate(data["manipulator"]["ranking"])}
        sol = lab["solution"]
        assert lab["checked"] is True
        assert (sol["sincere_winner"], sol["best_winner"]) == (want.sincere, want.best)
        assert sol["gain"] == key[want.sincere][0] - key[want.best][0]
        assert lab["verdict"] == ("manipulable" if want.best != want.sincere
                                  else "not_manipulable")
        if mode == "oracle":
            assert lab["certificate"]["type"] == "enumeration"
            assert sol["profitable"] == want.counts["profitable"]
        else:
            assert lab["certificate"]["type"] == "greedy"
            assert [a["engine"] for a in lab["engines"]] == ["reachability", "oracle"]


def test_every_strict_three_candidate_election_of_two_voters():
    """Exhaustive: every election of 2 fixed strict ballots and a manipulator over 3
    candidates (τ = a ≻ b ≻ c), each rule: the default label's w* is brute force's."""
    items = ("a", "b", "c")
    perms = list(itertools.permutations(items))
    for rule in ("plurality", "borda", "approval"):
        for b1, b2, truth in itertools.product(perms, perms, perms):
            data = {"domain": "election", "candidates": list(items), "tie_break": list(items),
                    "rule": rule, "ballots": [list(b1), list(b2)],
                    "manipulator": {"ranking": list(truth)}}
            lab = _greedy_label(data)
            want = oe.brute_force_manipulation(parse_election(data), rule)
            assert lab["solution"]["best_winner"] == want.best


def test_engine_tallies_equal_the_checkers_scores():
    """The engines' plain-int tallies (Borda's strict full ballots summed by position
    maps, the others ballot by ballot) are the checker's scores, ballots of every shape
    and count."""
    for rule, e in _elections(9, 300, rules=("plurality", "borda", "approval")):
        want = ce.Count(e, rule).scores()
        assert oe.Tally(e, rule).base_list == [want[x] for x in e.candidates]
