"""The election domain: rules against pref-voting, manipulation engines against each
other and brute force, certificates against tampering, reference and real elections."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED_DATA, heavy_examples
from hypothesis import given, settings
from hypothesis import strategies as st

from prefcert.formal.checker import election as ce
from prefcert.formal.election import election_from_preference, parse_election
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.formal.rules import rule_names
from prefcert.oracles import election as oe

RULES = rule_names()

REF = SHARED_DATA / "reference"
PREFLIB = SHARED_DATA / "preflib"


def names(m: int) -> list[str]:
    return [chr(ord("a") + i) for i in range(m)]


@st.composite
def elections(draw, max_m: int = 5, max_n: int = 6, shapes: bool = True,
              manipulator: bool = True):
    """A small election: full strict ballots, or (``shapes``) adversarial ones — truncated
    and tied ballots, empty ballots, one ballot repeated, no ballots at all, explicit
    approval sets; τ a random order; the manipulator's true ranking strict and full (the
    benchmark) or, with ``shapes``, tied or truncated (real data)."""
    m = draw(st.integers(1, max_m))
    cands = names(m)
    tau = draw(st.permutations(cands))
    n = draw(st.integers(0, max_n))
    kind = draw(st.sampled_from(["strict", "weak", "same"] if shapes else ["strict"]))

    def weak():
        order = draw(st.permutations(cands))
        k = draw(st.integers(0, m))
        groups = []
        for x in order[:k]:
            if groups and draw(st.booleans()) and draw(st.booleans()):
                groups[-1].append(x)
            else:
                groups.append([x])
        return [g[0] if len(g) == 1 else g for g in groups]
    ballots = []
    first = list(draw(st.permutations(cands)))
    for _ in range(n):
        if kind == "same":
            b = {"ranking": first}
        elif kind == "weak":
            b = {"ranking": weak()}
            if draw(st.booleans()):
                b["approve"] = sorted(draw(st.sets(st.sampled_from(cands))))
        else:
            b = {"ranking": list(draw(st.permutations(cands)))}
        b["count"] = draw(st.integers(1, 3))
        ballots.append(b)
    data = {"id": "hyp", "domain": "election", "candidates": cands, "tie_break": list(tau),
            "ballots": ballots, "approval_top": draw(st.integers(0, m))}
    if manipulator:
        data["manipulator"] = {"ranking": weak() if shapes and draw(st.booleans())
                               else list(draw(st.permutations(cands)))}
    return data


# --------------------------------------------------------------------------- the rules

def pv_profile(e):
    """A pref-voting Profile (candidates 0..m−1) of an election with full strict ballots."""
    from pref_voting.profiles import Profile
    idx = {x: i for i, x in enumerate(e.candidates)}
    return Profile([[idx[g[0]] for g in b.ranking] for b in e.ballots],
                   rcounts=[b.count for b in e.ballots])


def pv_winners(e, rule: str) -> tuple[list[str], str | None]:
    """(pref-voting's winner set, its τ-resolved winner where it has one)."""
    from pref_voting.c1_methods import copeland
    from pref_voting.grade_methods import approval
    from pref_voting.grade_profiles import GradeProfile
    from pref_voting.iterative_methods import instant_runoff_put, instant_runoff_tb
    from pref_voting.scoring_methods import borda, plurality
    cands = list(e.candidates)
    if rule == "approval":
        gp = GradeProfile([{i: int(x in b.approved) for i, x in enumerate(cands)}
                           for b in e.ballots], [0, 1], gcounts=[b.count for b in e.ballots],
                          candidates=list(range(len(cands))))
        return [cands[i] for i in approval(gp)], None
    prof = pv_profile(e)
    if rule == "irv":
        tb = [cands.index(x) for x in reversed(e.tie_break)]   # tb[0] is eliminated first
        return [cands[i] for i in instant_runoff_put(prof)], \
            cands[instant_runoff_tb(prof, tie_breaker=tb)[0]]
    fn = {"plurality": plurality, "borda": borda, "copeland": copeland}[rule]
    return [cands[i] for i in fn(prof)], None


def random_strict(rng, m, n):
    cands = names(m)
    tau = list(rng.permutation(cands))
    counts = rng.integers(1, 4, size=n)
    return parse_election({"candidates": cands, "tie_break": tau, "ballots": [
        {"ranking": list(rng.permutation(cands)), "count": int(c)} for c in counts]})


@pytest.mark.heavy
@pytest.mark.peers
@pytest.mark.parametrize("rule", RULES)
def test_winner_sets_agree_with_pref_voting(rule):
    """Winner sets (IRV: parallel-universe tie-breaking) equal pref-voting's on random
    profiles; the τ-resolved IRV winner equals pref-voting's Instant Runoff TB with τ
    reversed (its tie_breaker[0] is eliminated first); the resolute winner lies in the
    winner set. 5,000 profiles per rule locally, 1,000 under CI."""
    pytest.importorskip("pref_voting")
    rng = np.random.default_rng(hash(rule) % 2**32)
    for _ in range(heavy_examples(5000, 1000)):
        m, n = int(rng.integers(1, 7)), int(rng.integers(1, 10))
        e = random_strict(rng, m, n)
        if rule == "approval":
            e = parse_election({"candidates": list(e.candidates), "tie_break": list(e.tie_break),
                                "approval_top": int(rng.integers(0, m + 1)),
                                "ballots": [{"ranking": [g[0] for g in b.ranking],
                                             "count": b.count} for b in e.ballots]})
        ours = ce.winner_table(e, rule)
        theirs, resolute = pv_winners(e, rule)
        assert sorted(ours["winners"]) == sorted(theirs), (rule, e)
        assert ours["winner"] in ours["winners"]
        if resolute is not None:
            assert ours["winner"] == resolute, (rule, e)
        assert oe.winner(e, rule) == ours                  # the engine twin


@pytest.mark.peers
def test_irv_tie_semantics_pinned_against_pref_voting_variants():
    """a: 3 (a>b>c), b: 2 (b>c>a), c: 2 (c>b>a), τ = a > b > c. b and c tie for fewest
    first places. Eliminating both at once (pref-voting's default Instant Runoff) elects a;
    eliminating the τ-lowest (c) elects b; eliminating b would elect c. So the winner set
    (every tie resolution, pref-voting's PUT) is {b, c} and our τ-resolved winner is b."""
    pytest.importorskip("pref_voting")
    from pref_voting.iterative_methods import (
        instant_runoff,
        instant_runoff_put,
        instant_runoff_tb,
    )
    e = parse_election({"candidates": ["a", "b", "c"], "tie_break": ["a", "b", "c"],
                        "ballots": [{"ranking": ["a", "b", "c"], "count": 3},
                                    {"ranking": ["b", "c", "a"], "count": 2},
                                    {"ranking": ["c", "b", "a"], "count": 2}]})
    t = ce.winner_table(e, "irv")
    assert t["winner"] == "b" and t["winners"] == ["b", "c"]
    assert t["eliminated"] == ["c", "a"]
    assert t["rounds"][0] == {"a": 3, "b": 2, "c": 2} and t["rounds"][1] == {"a": 3, "b": 4}
    prof = pv_profile(e)
    assert instant_runoff(prof) == [0]                      # the variant we do not use
    assert instant_runoff_put(prof) == [1, 2]
    assert instant_runoff_tb(prof, tie_breaker=[2, 1, 0]) == [1]
    # with τ = a > c > b the τ-lowest tied candidate is b, and c wins
    e2 = parse_election({**_raw(e), "tie_break": ["a", "c", "b"]})
    assert ce.winner_table(e2, "irv")["winner"] == "c"


def _raw(e) -> dict:
    return {"candidates": list(e.candidates), "tie_break": list(e.tie_break),
            "approval_top": e.approval_top,
            "ballots": [{"ranking": [list(g) for g in b.ranking], "count": b.count}
                        for b in e.ballots]}


def test_score_ties_elect_the_tau_highest_and_conventions_on_weak_ballots():
    """Plurality: a tied top counts for nobody; Borda: points = candidates strictly below
    (unranked tie at the bottom); Copeland: 1 per win, ½ per tie; approval: top-k
    convention (default ⌊m/2⌋) unless the ballot says otherwise."""
    e = parse_election({"candidates": ["a", "b", "c", "d"], "tie_break": ["d", "c", "b", "a"],
                        "ballots": [[["a", "b"], "c"], ["c"], {"ranking": ["d"], "approve": []}]})
    assert ce.winner_table(e, "plurality")["scores"] == {"a": 0, "b": 0, "c": 1, "d": 1}
    assert ce.winner_table(e, "plurality")["winner"] == "d"          # τ: d first
    assert ce.winner_table(e, "borda")["scores"] == {"a": 2, "b": 2, "c": 4, "d": 3}
    # a–b, a–c, a–d, b–c, b–d tie pairwise (1–1 or 0–0); c beats d 2–1
    cop = ce.winner_table(e, "copeland")["scores"]
    assert cop == {"a": 1.5, "b": 1.5, "c": 2, "d": 1}
    # approval, k = 2: ballot 1 approves a, b (c has 2 above); ballot 2 approves c; ballot 3 none
    assert ce.winner_table(e, "approval")["scores"] == {"a": 1, "b": 1, "c": 1, "d": 0}
    assert ce.winner_table(e, "approval")["winner"] == "c"


def test_empty_profile_and_one_candidate():
    e = parse_election({"candidates": ["x", "y"], "tie_break": ["y", "x"], "ballots": []})
    for rule in RULES:
        assert ce.winner_table(e, rule)["winner"] == "y"
        assert oe.winner(e, rule)["winner"] == "y"
    one = parse_election({"candidates": ["x"], "tie_break": ["x"], "ballots": [["x"]]})
    assert all(ce.winner_table(one, r)["winner"] == "x" for r in RULES)


@pytest.mark.parametrize("bad, word", [
    ({"candidates": ["a", "a"], "tie_break": ["a"]}, "twice"),
    ({"candidates": ["a", "b"], "tie_break": ["a"]}, "tie_break"),
    ({"candidates": ["a", "b"]}, "tie_break"),
    ({"candidates": ["a", "b"], "tie_break": ["a", "b"], "ballots": [["a", "z"]]}, "unknown"),
    ({"candidates": ["a", "b"], "tie_break": ["a", "b"], "ballots": [["a", "a"]]}, "twice"),
    ({"candidates": ["a", "b"], "tie_break": ["a", "b"], "ballots": [[[]]]}, "tie group"),
    ({"candidates": ["a", "b"], "tie_break": ["a", "b"], "ballots": [{"ranking": ["a"],
                                                                       "count": 0}]}, "count"),
    ({"candidates": ["a", "b"], "tie_break": ["a", "b"], "ballots": [], "rule": "stv"}, "rule"),
    ({"candidates": ["a", "b"], "tie_break": ["a", "b"], "ballots": [], "manipulator": {}},
     "ranking"),
])
def test_bad_elections_are_rejected_with_the_value(bad, word):
    data = {"ballots": [], **bad}
    with pytest.raises(InstanceError) as err:
        parse_election(data)
    assert word in str(err.value)


# --------------------------------------------------------------------------- manipulation

def _check(e, question, params, outcome):
    ce.SPEC.certificates[outcome.certificate["type"]].check(
        e, question, params, outcome.verdict, outcome.solution, outcome.certificate)


def _engines(e, rule, names_=("oracle", "reachability", "brute_force")):
    from prefcert.domains.election import DOMAIN
    q = DOMAIN.questions["manipulation"]
    return {n: q.engines[n](e, {"rule": rule}, time_limit=10, seed=0) for n in names_}


@settings(max_examples=heavy_examples(400, 120))
@pytest.mark.heavy
@given(elections(), st.sampled_from(RULES))
def test_manipulation_engines_agree_with_brute_force_and_certificates_pass(data, rule):
    """Enumeration (vectorised), the BTT greedy / IRV search and brute force agree on w₀,
    w*, the verdict and (enumeration) |M|, |B*| and the outcome counts; every certificate
    is accepted by the checker. This is the check that the greedy is exact for plurality,
    Borda, Copeland and approval with a fixed tie-breaking order, and that the IRV search
    covers every report."""
    e = parse_election(data)
    if rule != "approval" and not e.manipulator.ranking:
        return
    out = _engines(e, rule)
    bf = out["brute_force"]
    for name, o in out.items():
        assert (o.verdict, o.solution["sincere_winner"], o.solution["best_winner"]) == \
            (bf.verdict, bf.solution["sincere_winner"], bf.solution["best_winner"]), name
        if o.certificate:
            _check(e, "manipulation", {"rule": rule}, o)
    for key in ("reports", "profitable", "optimal", "outcomes"):
        assert out["oracle"].solution[key] == bf.solution[key]
    assert out["reachability"].certificate["type"] == \
        ("elimination_search" if rule == "irv" else "greedy")


@settings(max_examples=heavy_examples(120, 30))
@pytest.mark.heavy
@given(elections(max_m=4, max_n=5), st.sampled_from(RULES))
def test_cpsat_manipulation_agrees_with_brute_force(data, rule):
    e = parse_election(data)
    if rule != "approval" and not e.manipulator.ranking:
        return
    out = _engines(e, rule, ("cpsat", "brute_force"))
    a, b = out["cpsat"], out["brute_force"]
    assert (a.verdict, a.solution["best_winner"]) == (b.verdict, b.solution["best_winner"])
    if a.solution["ballot"] is not None:
        assert ce.Count(e, rule).winner([ce.report_ballot(e, rule, a.solution["ballot"])]) \
            == a.solution["best_winner"]


def test_cpsat_reachability_agrees_at_m6_for_every_candidate():
    """The CP-SAT model of "some report elects c" against enumeration of all 720 reports,
    every rule, every candidate, on a few IC profiles (IRV's elimination-order model)."""
    from prefcert.encodings.election import can_win_cpsat
    rng = np.random.default_rng(6)
    for _ in range(2):
        e = random_strict(rng, 6, 7)
        e = parse_election({**_raw(e), "manipulator": {"ranking": list(e.tie_break)}})
        for rule in RULES:
            reach = oe.enumerate_reports(e, rule).reachable
            for c in e.candidates:
                r = can_win_cpsat(e, rule, c, [1], time_limit=20)
                assert (r.status == "feasible") == (c in reach), (rule, c)


def test_weak_manipulator_with_equal_rank_alternatives_is_consistent():
    """A tied true ranking (real data): w* is the best reachable by (rank, τ), the verdict
    needs a strictly better rank."""
    e = parse_election({"candidates": ["a", "b", "c"], "tie_break": ["a", "b", "c"],
                        "ballots": [["b", "c", "a"], ["b", "a", "c"]],
                        "manipulator": {"ranking": [["a", "b"], "c"]}})
    for rule in RULES:
        out = _engines(e, rule)
        assert len({(o.verdict, o.solution["best_winner"]) for o in out.values()}) == 1


def _label(data, question, engines=None):
    import prefcert
    return prefcert.label(data, question, engines=engines)


REFERENCE_MANIPULATION = ["borda_burying_two_voters_lex_tiebreak",
                          "irv_single_voter_compromise", "plurality_compromise_lex_tiebreak"]


def _reference_election(name):
    """A reference instance restated as an election: the manipulator is the voter the
    question names (removed once from the ballots)."""
    ref = json.loads((REF / f"{name}.json").read_text())
    p = ref["preferences"]
    ballots = [{"ranking": [g[0] for g in b["ranking"]], "count": b["count"]} for b in p["ballots"]]
    exp = ref["expected"]
    truth = exp.get("manipulator_sincere") or {
        "borda_burying_two_voters_lex_tiebreak": ["a", "b", "c"],
        "plurality_compromise_lex_tiebreak": ["c", "a", "b"]}[name]
    for b in ballots:
        if b["ranking"] == truth:
            b["count"] -= 1
            break
    ballots = [b for b in ballots if b["count"]]
    rule = {"borda": "borda", "irv": "irv", "plurality": "plurality"}[name.split("_")[0]]
    return {"id": name, "domain": "election", "candidates": p["candidates"],
            "tie_break": p["candidates"], "rule": rule, "ballots": ballots,
            "manipulator": {"ranking": truth}}, exp


@pytest.mark.parametrize("name", REFERENCE_MANIPULATION)
def test_reference_manipulations(name):
    data, exp = _reference_election(name)
    win = _label(data, "winner")
    assert win["solution"]["winner"] == exp["sincere_winner"] and win["checked"]
    if "sincere_scores" in exp:
        assert win["certificate"]["scores"] == exp["sincere_scores"]
    if "sincere_rounds" in exp:
        assert win["certificate"]["rounds"] == exp["sincere_rounds"]
    lab = _label(data, "manipulation")
    assert lab["verdict"] == "manipulable" and lab["checked"]
    assert lab["solution"]["best_winner"] == exp["new_winner"]
    good = exp.get("successful_ballots") or [exp["successful_ballot"]]
    rule = data["rule"]
    e = parse_election(data)
    for b in good:       # the published successful ballots elect the new winner
        assert ce.Count(e, rule).winner([ce.report_ballot(e, rule, b)]) == exp["new_winner"]
    # the default proof is the cheap one, without the enumeration counts
    assert lab["certificate"]["type"] == ("elimination_search" if rule == "irv" else "greedy")
    assert not set(ce.COUNTS) & set(lab["solution"])
    full = _lab(data, "manipulation", engines=["oracle"])
    assert full["certificate"]["type"] == "enumeration"
    if name.startswith("borda"):
        # by hand: the fixed ballot b > c > a gives b 2, c 1, a 0; the six reports
        # abc → b, acb → a (2–2–2, τ), bac → b, bca → b, cab → c, cba → b (3–3, τ)
        assert {k: full["solution"][k] for k in ce.COUNTS} == \
            {"reports": 6, "profitable": 1, "optimal": 1, "outcomes": {"a": 1, "b": 4, "c": 1}}
    else:   # the published ballots are exactly the optimal ones here
        assert full["solution"]["optimal"] == len(good)


def test_reference_pref_voting_fixture():
    ref = json.loads((REF / "pref_voting_fixture_linear_profile_0.json").read_text())
    p = ref["preferences"]
    cands = [str(c) for c in p["candidates"]]
    data = {"candidates": cands, "tie_break": cands, "ballots": [
        {"ranking": [str(g[0]) for g in b["ranking"]], "count": b["count"]} for b in p["ballots"]]}
    e = parse_election(data)
    for rule, key in (("plurality", "plurality"), ("borda", "borda"), ("irv", "instant_runoff"),
                      ("copeland", "copeland")):
        assert ce.winner_table(e, rule)["winners"] == [str(x) for x in ref["expected"][key]]
    sub = parse_election({"candidates": ["1", "2"], "tie_break": ["1", "2"], "ballots": [
        {"ranking": [x for x in b["ranking"] if x != "0"], "count": b["count"]}
        for b in data["ballots"]]})
    for rule, key in (("plurality", "plurality_restricted_to_1_2"),
                      ("borda", "borda_restricted_to_1_2"),
                      ("irv", "instant_runoff_restricted_to_1_2")):
        assert ce.winner_table(sub, rule)["winners"] == \
            [str(x) for x in ref["expected"][key]]


def test_reference_approval_scores():
    ref = json.loads((REF / "approval_abcvoting_instanceL0000.json").read_text())
    p = ref["preferences"]
    cands = [str(c) for c in p["candidates"]]
    e = parse_election({"candidates": cands, "tie_break": cands, "ballots": [
        {"approve": [str(x) for x in b]} for b in p["approval_ballots"]]})
    t = ce.winner_table(e, "approval")
    assert t["scores"] == ref["expected"]["approval_scores"]
    assert t["winners"] == [str(x) for x in ref["expected"]["approval_winner"]]


def _preflib(path: str, **kw) -> dict:
    from prefcert.formal.preflib import read_preflib
    (inst,) = read_preflib(PREFLIB / path)
    return election_from_preference(inst.data, **kw)


def test_real_aspen_2009_rounds_and_winners():
    ref = json.loads((REF / "real_aspen_2009_mayor.json").read_text())
    exp = ref["expected"]
    e = parse_election(_preflib("toi/00016-00000002.toi"))
    irv = ce.winner_table(e, "irv")
    assert irv["winner"] == exp["irv_winner"] == exp["official_winner"]
    assert irv["rounds"] == exp["irv_rounds"]
    cop = ce.winner_table(e, "copeland")
    assert cop["winners"] == exp["copeland_winners"] and cop["scores"] == exp["copeland_scores"]


def test_real_burlington_2009_irv_elects_kiss_while_montroll_wins_pairwise():
    """The well-known case (PrefLib 00005-00000002): Kiss wins IRV, Montroll is the
    Condorcet winner (so the Copeland winner)."""
    e = parse_election(_preflib("toi/00005-00000002.toi"))
    assert ce.winner_table(e, "irv")["winner"] == "Bob Kiss"
    cop = ce.winner_table(e, "copeland")
    assert cop["winner"] == "Andy Montroll" and cop["scores"]["Andy Montroll"] == 5


# --------------------------------------------------------------------------- certificates

def _lab(data, question, engines=None):
    lab = _label(data, question, engines)
    assert lab["checked"]
    return lab


def _rejects(data, lab, mutate):
    from prefcert.formal import checker
    bad = copy.deepcopy(lab)
    mutate(bad)
    e = parse_election(data)
    name, params = ce.SPEC.question(bad["question"])
    with pytest.raises(CertificateError):
        checker.check(ce.SPEC, e, name, params, bad["verdict"], bad["solution"],
                      bad["certificate"])


BORDA = {"id": "b", "domain": "election", "candidates": ["a", "b", "c", "d"],
         "tie_break": ["a", "b", "c", "d"], "rule": "borda",
         "ballots": [["b", "c", "a", "d"], ["b", "d", "c", "a"], ["c", "b", "d", "a"]],
         "manipulator": {"ranking": ["a", "c", "d", "b"]}}


def test_tampered_manipulation_certificates_are_rejected():
    lab = _lab(BORDA, "manipulation", engines=["oracle"])
    assert lab["certificate"]["type"] == "enumeration"
    _rejects(BORDA, lab, lambda b: b["solution"].update(profitable=b["solution"]["profitable"] + 1))
    _rejects(BORDA, lab, lambda b: b["solution"].update(optimal=0))
    _rejects(BORDA, lab, lambda b: b["solution"].update(sincere_winner="a"))
    _rejects(BORDA, lab, lambda b: b.update(verdict="manipulable" if b["verdict"] ==
                                            "not_manipulable" else "not_manipulable"))
    greedy = _lab(BORDA, "manipulation", engines=["reachability"])
    assert greedy["certificate"]["type"] == "greedy"
    refuted = greedy["certificate"]["refuted"]
    if refuted:
        c = next(iter(refuted))
        _rejects(BORDA, greedy, lambda b: b["certificate"]["refuted"].pop(c))
        _rejects(BORDA, greedy, lambda b: b["certificate"]["refuted"].update({c: ["a"]}))
    _rejects(BORDA, greedy, lambda b: b["solution"].update(best_winner="b", ballot=None))
    # a proof type that cannot prove this rule
    _rejects(BORDA, greedy, lambda b: b.update(certificate={"type": "elimination_search",
                                                            "states": 1}))


def test_stuck_set_proof_rejects_a_rival_that_can_be_placed():
    """c = a cannot win this Borda election for one voter: b leads by more than the m − 1
    points a voter can swing. {b} is a stuck set; {c} (a rival that can be placed below a)
    is not."""
    e = parse_election(BORDA)
    cnt = ce.Count(e, "borda")
    assert cnt.base == {"a": 1, "b": 8, "c": 6, "d": 3}
    ce.refute_greedy(cnt, "a", ["b"])
    with pytest.raises(CertificateError):
        ce.refute_greedy(cnt, "a", ["d"])
    with pytest.raises(CertificateError):
        ce.refute_greedy(cnt, "a", ["a"])


IRV = {"id": "i", "domain": "election", "candidates": ["a", "b", "c", "d"],
       "tie_break": ["a", "b", "c", "d"], "rule": "irv",
       "ballots": [{"ranking": ["a", "b", "d", "c"], "count": 2},
                   {"ranking": ["b", "c", "a", "d"], "count": 3},
                   {"ranking": ["d", "c", "b", "a"], "count": 2},
                   {"ranking": ["c", "a", "d", "b"], "count": 2}],
       "manipulator": {"ranking": ["a", "b", "d", "c"]}}


def test_irv_manipulation_by_hand():
    """Sincere: a 3, b 3, c 2, d 2 → d out (τ-lowest of the tie) → c 4 → b out (τ) → c
    wins 7–3. Reporting d > a > b > c: a 2, b 3, c 2, d 3 → c out → a 4 → d out (τ) →
    a 5, b 5 → b out (τ): a, the manipulator's top, wins."""
    e = parse_election(IRV)
    cnt = ce.Count(e, "irv")
    w, rounds, out = cnt.rounds([e.manipulator])
    assert (w, out) == ("c", ["d", "b", "a"])
    assert rounds[0] == {"a": 3, "b": 3, "c": 2, "d": 2}
    w, _, out = cnt.rounds([ce.report_ballot(e, "irv", ["d", "a", "b", "c"])])
    assert (w, out) == ("a", ["c", "d", "b"])
    lab = _lab(IRV, "manipulation")
    assert lab["verdict"] == "manipulable" and lab["solution"]["best_winner"] == "a"
    assert lab["solution"]["gain"] == 3


def test_irv_search_certificate_and_tampering():
    lab = _lab(IRV, "manipulation", engines=["reachability"])
    assert lab["certificate"]["type"] == "elimination_search"
    full = _lab(IRV, "manipulation", engines=["oracle", "reachability"])
    assert (full["verdict"], full["solution"]["best_winner"]) == \
        (lab["verdict"], lab["solution"]["best_winner"])
    _rejects(IRV, lab, lambda b: b["certificate"].update(states=b["certificate"]["states"] - 1))
    _rejects(IRV, lab, lambda b: b["certificate"].update(type="greedy", refuted={}))


def test_winner_certificates_and_tampering():
    for rule in RULES:
        data = {**BORDA, "rule": rule}
        lab = _lab(data, "winner")
        kind = lab["certificate"]["type"]
        assert kind == ("elimination_rounds" if rule == "irv" else "score_table")
        if rule == "irv":
            _rejects(data, lab, lambda b: b["certificate"]["eliminated"].reverse())
            _rejects(data, lab, lambda b: b["certificate"]["rounds"][0].update(a=99))
        else:
            _rejects(data, lab, lambda b: b["certificate"]["scores"].update(a=99))
        _rejects(data, lab, lambda b: b["solution"].update(winner="d" if
                                                           b["solution"]["winner"] != "d" else "a"))
        _rejects(data, lab, lambda b: b["solution"].update(winners=["a", "b", "c", "d"]))


def test_check_claimed_winner_reports_the_table():
    """The sincere election counts the manipulator's ballot (a > c > d > b): Borda a 1+3,
    b 8, c 6+2, d 3+1; b and c tie and τ elects b."""
    e = parse_election(BORDA)
    truth = ce.check_claimed_winner(e, "borda", "b", {"scores": {"a": 4, "b": 8, "c": 8, "d": 4}})
    assert truth["winner"] == "b" and truth["winners"] == ["b", "c"]
    with pytest.raises(CertificateError, match="winner is 'b'"):
        ce.check_claimed_winner(e, "borda", "c")
    with pytest.raises(CertificateError, match="scores differ"):
        ce.check_claimed_winner(e, "borda", "b", {"scores": {"a": 4, "b": 7, "c": 8, "d": 4}})


# --------------------------------------------------------------------------- coalitions

def _coalition_engines(e, params):
    from prefcert.domains.election import DOMAIN
    q = DOMAIN.questions["coalitional_manipulation"]
    return {n: q.engines[n](e, params, time_limit=20, seed=0)
            for n in ("oracle", "cpsat", "brute_force")}


@settings(max_examples=heavy_examples(120, 30))
@pytest.mark.heavy
@given(elections(max_m=4, max_n=4, manipulator=False), st.sampled_from(RULES),
       st.lists(st.integers(1, 3), min_size=1, max_size=3), st.data())
def test_coalition_engines_agree_and_certificates_pass(data, rule, weights, draw):
    e = parse_election(data)
    if rule != "approval" and len(weights) > 2 and e.m > 3:
        weights = weights[:2]
    c = draw.draw(st.sampled_from(e.candidates))
    params = {"rule": rule, "candidate": c, "weights": weights}
    out = _coalition_engines(e, params)
    decided = {n: o for n, o in out.items() if o.verdict != "unknown"}
    assert "brute_force" in decided and "cpsat" in decided
    assert len({o.verdict for o in decided.values()}) == 1, out
    for o in decided.values():
        if o.certificate:
            _check(e, "coalitional_manipulation", params, o)


def test_coalition_certificates_and_tampering():
    data = {"id": "c", "domain": "election", "candidates": ["a", "b", "c"],
            "tie_break": ["a", "b", "c"], "ballots": [{"ranking": ["b", "c", "a"], "count": 4},
                                                     {"ranking": ["c", "a", "b"], "count": 1}]}
    q = lambda rule, k: {"type": "coalitional_manipulation", "rule": rule,
                         "candidate": "a", "k": k}
    yes = _lab(data, q("plurality", 4))
    assert yes["verdict"] == "exists" and yes["certificate"]["type"] == "ballots"
    _rejects(data, yes, lambda b: b["solution"]["ballots"].pop())
    _rejects(data, yes, lambda b: b["solution"]["ballots"][0].reverse())
    no = _lab(data, q("plurality", 2))
    assert no["verdict"] == "none" and no["certificate"]["type"] == "dominant"
    _rejects(data, no, lambda b: b["certificate"].update(by="c"))
    bound = _lab(data, q("borda", 1))
    assert bound["verdict"] == "none" and bound["certificate"]["type"] == "greedy"
    two = _lab(data, q("borda", 2))
    assert two["verdict"] == "none" and two["certificate"]["type"] == "score_bound"
    _rejects(data, two, lambda b: b["question"].update(k=6))
    # Copeland, two added voters: a trails b by 3 and c by 5 pairwise, so a scores 0 at
    # best while b still wins both its contests (margins 3 − 2 > 0): a pairwise bound
    cop = _lab(data, q("copeland", 2))
    assert cop["verdict"] == "none" and cop["certificate"]["type"] == "pairwise_bound"
    _rejects(data, cop, lambda b: b["certificate"].update(by="a"))
    _rejects(data, cop, lambda b: b["question"].update(k=4))     # 3 − 4 < 0: b can lose
    irv = _lab(data, q("irv", 1))
    assert irv["certificate"]["type"] in ("elimination_search", "ballots")


# --------------------------------------------------------------------------- audit, CLI

def test_audit_judges_a_models_ballot():
    from prefcert.domains.election import DOMAIN
    e = parse_election(BORDA)
    audit = DOMAIN.questions["manipulation"].audit
    truth = _lab(BORDA, "manipulation")
    best = truth["solution"]["ballot"]
    got = audit(e, {}, best)
    assert got["verdict"] == "correct" and got["optimal"] and got["outcome"] == \
        truth["solution"]["best_winner"]
    sincere = audit(e, {}, "a > c > d > b")
    assert sincere["valid"] and sincere["outcome"] == truth["solution"]["sincere_winner"]
    assert sincere["profitable"] is False
    assert (sincere["verdict"] == "correct") == (truth["verdict"] == "not_manipulable")
    bad = audit(e, {}, "Final ballot: a > c")
    assert bad["verdict"] == "incorrect" and bad["valid"] is False


def test_cli_label_check_and_audit(tmp_path):
    import shutil
    import subprocess
    import sys
    exe = shutil.which("prefcert", path=str(Path(sys.executable).parent)) or "prefcert"
    src = tmp_path / "e.json"
    src.write_text(json.dumps(IRV))
    out = tmp_path / "l.jsonl"
    r = subprocess.run([exe, "label", src, "-o", out], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    labels = [json.loads(x) for x in out.read_text().splitlines()]
    assert {lab["question"] for lab in labels} == {"winner", "manipulation"}
    r = subprocess.run([exe, "check", out], capture_output=True, text=True)
    assert r.returncode == 0 and "2 label(s) checked" in r.stdout
    ans = tmp_path / "answer.txt"
    ans.write_text('<answer>"Final ballot: b > c > d > a"</answer>')
    r = subprocess.run([exe, "audit", src, "-q", "manipulation", ans], capture_output=True,
                       text=True)
    res = json.loads(r.stdout)
    assert res["valid"] and res["outcome"] in IRV["candidates"]
    assert r.returncode == (0 if res["optimal"] else 1)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**IRV, "tie_break": ["a", "b"]}))
    r = subprocess.run([exe, "label", bad], capture_output=True, text=True)
    assert r.returncode == 2 and "tie_break" in r.stderr and r.stdout == ""


def test_every_election_audit_rests_on_a_checked_proof(tmp_path):
    """Regression: election audits returned no proof, so every verdict, correct answers
    included, said "checked": false and the CLI exited 1."""
    import shutil
    import subprocess
    import sys
    exe = shutil.which("prefcert", path=str(Path(sys.executable).parent)) or "prefcert"
    src = tmp_path / "e.json"
    src.write_text(json.dumps(BORDA))
    best = _lab(BORDA, "manipulation")["solution"]
    winner = _lab(BORDA, "winner")["solution"]["winner"]
    coalition = {"type": "coalitional_manipulation", "candidate": "c", "k": 1}
    top = ["c", "a", "d", "b"]                        # c: 8 + 3 beats b: 8 + 0
    cases = [("manipulation", best["ballot"], 0),
             ("winner", winner, 0),
             ("winner", next(c for c in BORDA["candidates"] if c != winner), 1),
             (json.dumps(coalition), {"ballots": [top]}, 0)]
    for question, answer, code in cases:
        ans = tmp_path / "answer.json"
        ans.write_text(json.dumps(answer))
        r = subprocess.run([exe, "audit", src, "-q", question, ans], capture_output=True,
                           text=True)
        res = json.loads(r.stdout)
        assert res["checked"] is True and r.returncode == code, (question, r.stdout, r.stderr)


# --------------------------------------------------------------------------- real elections

def test_public_functions_run_their_examples(monkeypatch):
    import doctest

    import prefcert.api.election
    import prefcert.bench.voting_manipulation.ballots
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    for mod in (prefcert.api.election, prefcert.bench.voting_manipulation.ballots):
        failures, tried = doctest.testmod(mod)
        assert tried >= 5 and failures == 0, mod


@settings(max_examples=heavy_examples(60, 15))
@pytest.mark.heavy
@given(elections(max_m=4, max_n=4, manipulator=False), st.sampled_from(RULES), st.data())
def test_smallest_coalition_is_minimal(data, rule, draw):
    """The integer program's k elects the candidate (replayed by the checker) and k − 1
    manipulators cannot (brute force over every multiset of reports, k ≤ 3)."""
    from prefcert.encodings.election import min_coalition_cpsat
    e = parse_election(data)
    c = draw.draw(st.sampled_from(e.candidates))
    r = min_coalition_cpsat(e, rule, c, time_limit=20)
    if r["status"] != "optimal":          # Copeland's model may time out; never wrong
        assert rule == "copeland"
        return
    k = r["k"]
    reps = [q for q, v in r["reports"] for _ in range(v)]
    assert len(reps) == k
    assert ce.Count(e, rule).winner([ce.report_ballot(e, rule, q) for q in reps]) == c
    if k == 1:
        assert ce.winner_table(e, rule)["winner"] != c
    elif 2 <= k <= 3:
        assert oe.coalition_brute_force(e, rule, c, [1] * (k - 1)) is None
    if rule == "copeland":
        lo, hi, _ = oe.copeland_coalition_bounds(e, c)
        assert lo <= k <= hi


def test_real_takoma_park_manipulability_and_coalitions():
    """Takoma Park 2007, Ward 5 (204 voters, 4 candidates): per ballot class and per
    candidate, every answer certified; the sincere winner needs no coalition."""
    from prefcert.api.election import ballot_class_manipulation, smallest_coalitions
    e = _preflib("toi/00023-00000001.toi")
    for rule in RULES:
        r = ballot_class_manipulation(e, rule)
        assert r["checked"] and len(r["classes"]) == 25
        coal = smallest_coalitions(e, rule, time_limit=600)   # (a loaded machine: no timeout)
        w = ce.winner_table(parse_election(e), rule)["winner"]
        assert coal[w]["k"] == 0
        for c, v in coal.items():
            assert v["k"] is not None and v["yes_checked"], (rule, c)
            if rule in ("plurality", "approval"):
                assert v["no_checked"]


def test_coalition_size_and_weights_are_bounded_at_input():
    """Regression: k = 10^6 manipulators ran past every time limit (the model and the
    proof hold one ballot per manipulator), and a weight of 10^23 crashed CP-SAT."""
    import prefcert
    for q in ({"type": "coalitional_manipulation", "candidate": "c", "k": 10**6},
              {"type": "coalitional_manipulation", "candidate": "c", "weights": [10**23]}):
        with pytest.raises(InstanceError, match="from 1 to"):
            prefcert.label(BORDA, q)
