"""The fast paths of single-voter manipulation labelling (issue 24 item 5) against the
formulations they replace: the cross-check's reachable winners (plurality and approval a
point up, Borda by its points) against the counts of every report replayed by the
checker, the cross-check's (w₀, w*) against the full enumeration, the checker's
stuck-set test of a positional rule (one ballot's points) against the generic loop (one
ballot per member) and hand-computed tallies, forged certificates refused, the lean
preference and τ index maps against the general ones, and the cross-check flag. No
timing: only answers."""
from __future__ import annotations

import itertools
import random

import pytest

from prefcert.domains import election as de
from prefcert.encodings import cross_check, in_cross_check
from prefcert.formal.checker import election as ce
from prefcert.formal.election import Ballot, parse_election
from prefcert.formal.errors import CertificateError
from prefcert.formal.instances import from_object
from prefcert.formal.rules import RULES
from prefcert.oracles import election as oe
from prefcert.pipeline.jobs import label, plan
from shared import replay_reports
from test_manipulation_speed import _random_election


def _elections(seed: int, count: int, rules: tuple[str, ...], max_m: int = 5):
    rng = random.Random(seed)
    for k in range(count):
        rule = rules[k % len(rules)]
        data = _random_election(rng, rng.randint(1, max_m), strict=k % 3 != 2, rule=rule)
        yield rule, data, parse_election(data)


# ------------------------------------------------------------------ the cross-check

@pytest.mark.parametrize("rule", ["plurality", "approval", "borda"])
def test_reachable_winners_equal_every_report_replayed(rule):
    """A candidate is reachable exactly when some report of the ballot space elects it,
    every report replayed by the trusted checker (and the engine's own class counts
    agree)."""
    for _, _, e in _elections({"plurality": 1, "approval": 2, "borda": 3}[rule], 300,
                              (rule,)):
        t = oe.Tally(e, rule)
        reach = t.engine.reachable(t)
        counts, _ = replay_reports(e, rule)
        assert [reach[x] for x in range(e.m)] == [k > 0 for k in counts]
        assert [reach[x] for x in range(e.m)] == [k > 0 for k in t.engine.report_counts(t)[0]]


def test_rules_without_a_reachable_test_fall_back_to_the_enumeration():
    for rule in ("copeland", "irv"):
        for _, _, e in _elections(4, 60, (rule,), max_m=4):
            got = oe.enumerate_best(e, rule)
            full = oe.enumerate_reports(e, rule)
            assert (got.sincere, got.best, got.ballot) == (full.sincere, full.best, None)


def test_best_reachable_equals_the_full_enumeration_and_brute_force():
    """w₀ and w* of the cross-check's answer are those of the full enumeration and of
    brute force, for every rule (the sincere ballot truncated or tied too)."""
    rules = tuple(RULES)
    for rule, _, e in _elections(5, 400, rules):
        got = oe.enumerate_best(e, rule)
        want = oe.enumerate_reports(parse_election_copy(e), rule)
        assert (got.sincere, got.best) == (want.sincere, want.best)
        if e.m <= 5:
            brute = oe.brute_force_manipulation(parse_election_copy(e), rule)
            assert (got.sincere, got.best) == (brute.sincere, brute.best)


def parse_election_copy(e):
    """A fresh model of the same election (no engine cache carried over)."""
    from dataclasses import replace
    return replace(e)


def test_the_oracle_as_a_cross_check_answers_as_the_full_oracle():
    """Inside a cross-check block the enumeration engine gives the verdict, w₀ and w* of
    its full answer, no certificate and no counts; outside, the full answer."""
    for rule, _, e in _elections(6, 200, tuple(RULES), max_m=5):
        full = de._enumeration(e, {}, time_limit=10, seed=0)
        with cross_check(True):
            quick = de._enumeration(parse_election_copy(e), {}, time_limit=10, seed=0)
        assert quick.verdict == full.verdict
        for k in ("sincere_winner", "best_winner", "gain"):
            assert quick.solution[k] == full.solution[k]
        assert quick.certificate is None and "reports" not in quick.solution
        assert full.certificate == {"type": "enumeration"}


def test_the_cross_check_flag_is_set_only_inside_an_on_block():
    assert not in_cross_check()
    with cross_check(True):
        assert in_cross_check()
        with cross_check(False):
            assert not in_cross_check()
        assert in_cross_check()
    assert not in_cross_check()


# ------------------------------------------------------------------ the checker

def _generic_refute(cnt, c, proof, weight=1):
    """The stuck-set test as it was written: one ballot per member of the set."""
    tau = cnt.tau
    others = [x for x in cnt.e.tie_break if x != c and x not in proof]
    in_tau = sorted(proof, key=tau.__getitem__)
    for r in proof:
        rest = [x for x in in_tau if x != r]
        ballot = Ballot(tuple((x,) for x in [c, *others, r, *rest]), weight, frozenset())
        s = cnt.scores([ballot])
        if not (s[r] > s[c] or (s[r] == s[c] and tau[r] < tau[c])):
            return False
    return True


@pytest.mark.parametrize("rule", ["plurality", "borda"])
def test_positional_stuck_sets_equal_the_generic_test(rule):
    """Every non-empty set of rivals of every candidate, weights 1 and 3: the one-ballot
    test accepts exactly the sets the generic test (a ballot per member) accepts."""
    assert RULES[rule].positional
    seen = [0, 0]
    for _, _, e in _elections(7, 120, (rule,)):
        cnt = ce.Count(e.sincere(), rule)
        for c in e.candidates:
            rivals = [x for x in e.candidates if x != c]
            for k in range(1, len(rivals) + 1):
                for proof in itertools.combinations(rivals, k):
                    for w in (1, 3):
                        want = _generic_refute(cnt, c, list(proof), w)
                        seen[want] += 1
                        if want:
                            ce.refute_greedy(cnt, c, list(proof), w)
                        else:
                            with pytest.raises(CertificateError):
                                ce.refute_greedy(cnt, c, list(proof), w)
    assert min(seen) > 100


def test_positional_rules_points_depend_on_the_place_only():
    rng = random.Random(8)
    for name, r in RULES.items():
        if not r.positional:
            continue
        for m in range(1, 8):
            cands = [f"c{i}" for i in range(m)]
            ref = r.points(Ballot(tuple((x,) for x in cands), 2, frozenset()), cands)
            for _ in range(20):
                order = rng.sample(cands, m)
                pts = r.points(Ballot(tuple((x,) for x in order), 2, frozenset()), cands)
                assert all(pts.get(x, 0) == ref.get(cands[i], 0) for i, x in enumerate(order))


def test_stuck_sets_by_hand():
    """Plurality, fixed tops a: 3, b: 2, c: 1 (τ = a, b, c, d): c first has 2 votes, so
    {a} (3) and {a, b} (b: 2 = 2, τ-above c) are stuck sets, {b} alone too, {d} (0) not;
    Borda with the same ballots as full rankings: tallied by hand."""
    data = {"domain": "election", "candidates": ["a", "b", "c", "d"],
            "tie_break": ["a", "b", "c", "d"], "rule": "plurality",
            "ballots": [{"ranking": ["a", "d", "b", "c"], "count": 3},
                        {"ranking": ["b", "d", "a", "c"], "count": 2}, ["c", "a", "b", "d"]],
            "manipulator": {"ranking": ["c", "d", "b", "a"]}}
    e = parse_election(data)
    cnt = ce.Count(e, "plurality")
    assert cnt.base == {"a": 3, "b": 2, "c": 1, "d": 0}
    for ok in (["a"], ["a", "b"], ["b"]):
        ce.refute_greedy(cnt, "c", ok)
    for bad in (["d"], ["a", "d"], ["b", "d"]):
        with pytest.raises(CertificateError, match="does not beat"):
            ce.refute_greedy(cnt, "c", bad)
    # Borda (m = 4): a 3·3 + 2·1 + 1·2 = 13, b 3·1 + 2·3 + 1·1 = 10, c 1·3 = 3,
    # d 3·2 + 2·2 = 10; c first gets 3 more: 6. {a}: a last-but-nothing (place 3, 0
    # points) keeps 13 > 6; {d, b} at places 2, 3: the first of them gets 1 point.
    bcnt = ce.Count(parse_election(dict(data, rule="borda")), "borda")
    assert bcnt.base == {"a": 13, "b": 10, "c": 3, "d": 10}
    for ok in (["a"], ["b", "d"], ["a", "b", "d"]):
        ce.refute_greedy(bcnt, "c", ok)
    small = ce.Count(parse_election(dict(data, rule="borda", ballots=[["c", "a", "b", "d"]])),
                     "borda")
    with pytest.raises(CertificateError):           # a: 2 + 0 against c: 3 + 3
        ce.refute_greedy(small, "c", ["a"])


def _label(data: dict, **kw) -> dict:
    (job,) = plan([from_object(data, "<test>", None, "t")], ["manipulation"])
    return label(job, **kw)


def test_every_label_replays_and_forged_certificates_are_refused():
    """Default labels of random elections (every rule with a greedy proof): w* is the
    best winner over every report replayed by the checker, the report elects it, and
    forged certificates — a stuck set short of a member that matters, a rival added
    that does not beat c, a refutation dropped, another best winner — are refused."""
    forged = 0
    for rule, data, e in _elections(9, 300, ("plurality", "borda", "approval", "copeland")):
        if not e.manipulator.ranking:
            continue
        lab = _label(data, cross_check="budget")
        assert lab["checked"] is True and lab["certificate"]["type"] == "greedy"
        sol, cert = lab["solution"], lab["certificate"]
        counts, _ = replay_reports(e, rule)
        reach = [x for x, k in zip(e.candidates, counts) if k] + [sol["sincere_winner"]]
        keys = ce._ikeys(e)                   # (true rank, τ) by candidate index
        assert sol["best_winner"] == min(reach, key=lambda x: keys[e.candidates.index(x)])
        check = lambda s, c: ce.check_greedy(e, "manipulation", {}, lab["verdict"], s, c)
        check(sol, cert)
        for c, stuck in cert["refuted"].items():
            if rule == "approval":
                continue
            for i in range(len(stuck)):       # a smaller set that is not stuck is refused
                smaller = stuck[:i] + stuck[i + 1:]
                if smaller and not _generic_refute(ce.Count(e, rule), c, smaller):
                    forged += 1
                    with pytest.raises(CertificateError):
                        check(sol, dict(cert, refuted={**cert["refuted"], c: smaller}))
            for x in e.candidates:            # a rival added that does not beat c
                bigger = [*stuck, x]
                if x != c and x not in stuck and not _generic_refute(ce.Count(e, rule), c,
                                                                     bigger):
                    forged += 1
                    with pytest.raises(CertificateError):
                        check(sol, dict(cert, refuted={**cert["refuted"], c: bigger}))
        if cert["refuted"]:
            first = next(iter(cert["refuted"]))
            with pytest.raises(CertificateError):
                check(sol, dict(cert, refuted={k: v for k, v in cert["refuted"].items()
                                               if k != first}))
    assert forged > 50


# ------------------------------------------------------------------ lean maps

def test_lean_preference_equals_the_sorted_keys():
    for _, _, e in _elections(10, 300, ("plurality",), max_m=7):
        keys, order = oe.preference(e)
        want = oe._preference_keys(e)
        assert keys == want
        assert order == sorted(want, key=want.__getitem__)


def test_tally_tau_maps_for_the_listed_order_and_another():
    for _, data, e in _elections(11, 100, ("borda",), max_m=6):
        for tau in (list(e.candidates), list(e.tie_break)):
            f = parse_election(dict(data, tie_break=tau))
            t = oe.Tally(f, "borda")
            assert t._prio == [tau.index(x) for x in f.candidates]
            assert t.tau_order == [list(f.candidates).index(x) for x in tau]


# ------------------------------------------------------------------ once per label

def _manipulation_job(rule: str, m: int = 5, seed: int = 3):
    from prefcert.generators.election import impartial_culture_election
    data = impartial_culture_election(m, 5, seed=seed, rule=rule)
    (job,) = plan([from_object(data, "<t>", None, f"once-{rule}")], ["manipulation"])
    return job


@pytest.mark.parametrize("rule", ["plurality", "borda", "approval", "irv", "copeland"])
def test_report_space_is_computed_once_per_label(rule, monkeypatch):
    """The engine choice and the enumeration cross-check both ask |B_r|: the wiring
    computes it once per election and rule (a call count, not a timing)."""
    calls = []
    real = ce.report_space

    def counting(e, r):
        calls.append(r)
        return real(e, r)
    monkeypatch.setattr(ce, "report_space", counting)
    lab = label(_manipulation_job(rule), cross_check="always")
    assert [e["engine"] for e in lab["engines"]] == ["reachability", "oracle"]
    assert calls == [rule]


def test_positional_points_are_read_once_per_weight(monkeypatch):
    """The checker's stuck-set test of a positional rule reads the rule's points of one
    τ-order ballot per weight, then every stuck set from that list."""
    e = parse_election({"candidates": ["a", "b", "c", "d"], "tie_break": ["a", "b", "c", "d"],
                        "ballots": [["a", "b", "c", "d"]] * 3 + [["b", "a", "c", "d"]] * 2,
                        "manipulator": {"ranking": ["c", "d", "a", "b"]}})
    for rule in ("plurality", "borda"):
        cnt = ce.Count(e, rule)
        calls = []
        real = cnt.definition.ipoints          # (the checker counts on integers)

        def counting(groups, approved, n, m):
            calls.append(n)
            return real(groups, approved, n, m)
        monkeypatch.setattr(cnt.definition, "ipoints", counting)
        for w in (1, 1, 3, 1, 3):
            for proof in (["a"], ["a", "b"]):
                try:
                    ce.refute_greedy(cnt, "c", proof, w)
                except CertificateError:
                    pass
        assert calls == [1, 3]
        monkeypatch.undo()
        points = cnt.definition.points         # the name-based definition agrees
        assert cnt.placed_points(1) == [points(Ballot(tuple((x,) for x in "abcd"), 1,
                                                      frozenset()), "abcd").get(x, 0)
                                        for x in "abcd"]
        assert cnt.names == frozenset("abcd")


def test_the_model_types_keep_their_dataclass_behaviour():
    """Outcome, EngineAnswer, Decision and Ballot write their fields at once: the same
    fields, defaults (a fresh ``stats`` dict per outcome; an explicit None kept),
    equality, ``replace`` and refusal of assignment as the generated initialisers."""
    import dataclasses

    from prefcert.domains.base import Decision, EngineAnswer
    from prefcert.formal.outcome import Outcome
    a, b = Outcome("exists"), Outcome("exists")
    assert a == b and a.stats == {} and a.stats is not b.stats
    assert (a.solution, a.certificate) == (None, None)
    assert Outcome("none", None, None, None).stats is None
    assert Outcome("x", 1, {"type": "t"}, {"k": 1}) == Outcome(
        verdict="x", solution=1, certificate={"type": "t"}, stats={"k": 1})
    assert dataclasses.replace(a, verdict="none") == Outcome("none")
    ans = EngineAnswer("oracle", a, 0.5)
    assert (ans.engine, ans.outcome, ans.seconds) == ("oracle", a, 0.5)
    d = Decision("exists", None, {"type": "t"})
    assert d.weak is None and d == Decision("exists", None, {"type": "t"}, None)
    bal = Ballot((("a",), ("b",)), 2, frozenset({"a"}))
    assert bal.explicit_approval is False and hash(bal) == hash(
        Ballot((("a",), ("b",)), 2, frozenset({"a"}), False))
    assert dataclasses.replace(bal, count=3).count == 3
    for obj, field in ((a, "verdict"), (ans, "seconds"), (d, "weak"), (bal, "count")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, field, None)
    assert [f.name for f in dataclasses.fields(Outcome)] == [
        "verdict", "solution", "certificate", "stats"]


def test_solution_shapes_refuse_as_before_the_exact_key_set():
    """The one-comparison pass of a solution with exactly its keys leaves every refusal
    to the full test: a key missing, an unknown key, an optional key the certificate type
    does not verify; the counts pass under ``enumeration`` only."""
    shape = ce.SPEC.questions["manipulation"].solution("manipulable", {})
    greedy = ce.SPEC.certificates["greedy"].verifies
    enum = ce.SPEC.certificates["enumeration"].verifies
    sol = {"sincere_winner": "a", "best_winner": "b", "ballot": ["b", "a"], "gain": 1}
    counts = {"reports": 2, "profitable": 1, "optimal": 1, "outcomes": {"a": 1, "b": 1}}
    for _ in range(2):                   # the key sets are kept after the first call
        shape.check_shape(sol, greedy)
        shape.check_shape({**sol, **counts}, enum)
        for bad, verifies, words in (
                ({k: v for k, v in sol.items() if k != "gain"}, greedy, "no 'gain'"),
                (sol, enum, "no 'reports'"),
                ({**sol, "extra": 1}, greedy, "unknown key 'extra'"),
                ({**sol, **counts}, greedy, "not verified"),
                ([sol], greedy, "must be an object")):
            with pytest.raises(CertificateError, match=words):
                shape.check_shape(bad, verifies)


def test_the_overvote_reading_applies_under_elimination_rules_only():
    from prefcert.formal.election import _eliminates
    e = parse_election({"candidates": ["a", "b"], "tie_break": ["a", "b"], "ballots": [],
                        "rule": "irv"})
    none = parse_election({"candidates": ["a", "b"], "tie_break": ["a", "b"], "ballots": []})
    for model, params, want in ((e, {}, True), (e, None, True), (e, {"rule": "borda"}, False),
                                (none, {}, False), (none, {"rule": "irv"}, True),
                                (none, {"rule": "nope"}, False), (none, {"rule": 3}, False)):
        assert _eliminates(model, params) is want
