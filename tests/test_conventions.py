"""The readings the literature splits on, each a named convention (README, "Conventions"):
every choice is labelled, recorded in the label and checked, and each matches a value
computed here by hand or by independent enumeration."""
from __future__ import annotations

import itertools
import json
import subprocess
from pathlib import Path

import pytest
from conftest import SHARED_DATA, heavy_examples, PREFCERT
from hypothesis import given, settings
from hypothesis import strategies as st
from prefcert.formal import checker
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.formal.instances import from_object, with_readings
from prefcert.formal.files import read_paths

from prefcert.pipeline.jobs import label, plan
from prefcert.pipeline.registry import spec

BURLINGTON = SHARED_DATA / "preflib" / "toi" / "00005-00000002.toi"


def labelled(data: dict, question, **conventions):
    inst = from_object(data, "<test>", None, data.get("id", "x"))
    if conventions:
        inst = with_readings(inst, conventions=conventions)
    job = plan([inst], [question])[0]
    lab = label(job)
    s = spec(inst.domain)
    checker.check_label(s, lab, job.model, job.question.name, job.params)   # checker alone
    return lab, job


def test_conventions_are_declared_documented_and_validated():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    for d in ("preference", "stable_matching", "house_allocation", "election"):
        for name, c in spec(d).conventions.items():
            assert f"`{name}`" in readme and all(f"`{x}`" in readme for x in c.choices)
    bad = {"domain": "preference", "profile": {"V1": ["a", "b"]}}
    for conv, needle in (({"nope": "x"}, "unknown convention"), ({"counts": "x"}, "one of"),
                         ("identical", "must be an object")):
        with pytest.raises(InstanceError, match=needle):
            plan([from_object(dict(bad, conventions=conv), "<t>", None, "x")],
                 [{"type": "count", "items": ["a", "b"]}])


# ----------------------------------------------------------------- majority: abstentions

def test_majority_ranked_reproduces_the_published_burlington_2009_tabulation():
    """2009 Burlington mayoral election (PrefLib 00005-00000002): the published pairwise
    counts (Burlington Electoral Reform / Wikipedia "2009 Burlington mayoral election":
    Montroll–Kiss 4,067–3,477, Montroll–Wright 4,597–3,668) count a voter who ranks
    neither candidate as abstaining: the ``ranked`` reading. Under ``all_voters`` the
    abstainers may go either way, and Montroll over Kiss is only possible."""
    (inst,) = read_paths([str(BURLINGTON)])
    q = {"type": "majority", "items": ["Andy Montroll", "Bob Kiss"]}
    lab, job = labelled(inst.data, q, majority="ranked")
    lo, hi = lab["solution"]["min"], lab["solution"]["max"]
    assert lab["verdict"] == "true" and (lo, job.model.voters - hi) == (4067, 3477)
    assert lab["conventions"]["majority"] == "ranked"
    lab, _ = labelled(inst.data, q)
    assert lab["verdict"] == "undetermined" and lab["conventions"]["majority"] == "all_voters"
    lab, job = labelled(inst.data, {"type": "majority", "items": ["Andy Montroll",
                                                                  "Kurt Wright"]},
                        majority="ranked")
    assert (lab["solution"]["min"], job.model.voters - lab["solution"]["max"]) == (4597, 3668)


# ----------------------------------------------------------------- counts: weighted voters

SPLIT = {"id": "split", "domain": "preference", "items": ["a", "b", "c"],
         "profile": {"X": {"order": [["a", "b"], "c"], "count": 2},
                     "Y": {"order": ["c", "a", "b"], "count": 1}}}


def test_counts_identical_makes_one_weighted_voter():
    """X's two voters may put a and b first (one each), so c ties at one point: possible.
    As one voter of weight 2, X gives a or b two points: c is no possible winner."""
    q = {"type": "winner", "rule": "plurality", "item": "c"}
    lab, job = labelled(SPLIT, q)
    assert lab["verdict"] == "undetermined" and lab["conventions"] == {"counts": "independent"}
    split = lab["certificate"]
    lab2, job2 = labelled(SPLIT, q, counts="identical")
    assert lab2["verdict"] == "false" and lab2["conventions"] == {"counts": "identical"}
    with pytest.raises(CertificateError, match="alike"):       # the split witness is no
        checker.check(spec("preference"), job2.model, "winner", job2.params,   # completion
                      "undetermined", None, split)


@settings(max_examples=heavy_examples(60, 25), deadline=None)
@given(st.data())
def test_counts_identical_winners_match_enumeration(data):
    """Engines and checker against an independent enumeration: one linear extension per
    agent, weighted by its count."""
    items = ["a", "b", "c", "d"][:data.draw(st.integers(2, 4))]
    prof = {}
    for k in range(data.draw(st.integers(1, 3))):
        hidden = data.draw(st.permutations(items))
        cut = data.draw(st.integers(1, len(items)))
        order = [hidden[:cut]] if data.draw(st.booleans()) else list(hidden[:cut])
        prof[f"V{k}"] = {"order": order, "count": data.draw(st.integers(1, 3))}
    inst = {"domain": "preference", "items": items, "profile": prof, "semantics": "truncated",
            "conventions": {"counts": "identical"}}
    q = {"type": "winner", "rule": data.draw(st.sampled_from(["plurality", "borda", "copeland"])),
         "item": data.draw(st.sampled_from(items))}
    job = plan([from_object(inst, "<t>", None, "h")], [q])[0]
    per = []
    for ag in job.model.agents:
        rank = {x: i for i, t in enumerate(ag.order.ties) for x in t}
        exts = [p for p in itertools.permutations(items)
                if all(rank.get(x, 99) <= rank.get(y, 99) for x, y in zip(p, p[1:]))]
        per.append([(p, ag.count) for p in exts])
    wins = set()
    for pick in itertools.product(*per):
        s = dict.fromkeys(items, 0)
        for p, w in pick:
            if q["rule"] == "plurality":
                s[p[0]] += w
            elif q["rule"] == "borda":
                for i, x in enumerate(p):
                    s[x] += w * (len(items) - 1 - i)
            else:
                for x, y in itertools.combinations(items, 2):
                    d = sum(w if p.index(x) < p.index(y) else -w for p, w in pick)
                    s[x] += (d > 0) - (d < 0)
                    s[y] += (d < 0) - (d > 0)
                break
        wins.add(s[q["item"]] >= max(s.values()))
    want = "undetermined" if len(wins) == 2 else ("true" if wins == {True} else "false")
    for name, engine in job.question.engines.items():
        out = engine(job.model, job.params, time_limit=20, seed=0)
        if out.verdict == "unknown":
            continue
        assert out.verdict == want, (name, out)
        if out.certificate:
            checker.check(spec("preference"), job.model, "winner", job.params, out.verdict,
                          out.solution, out.certificate)


# ----------------------------------------------------------------- rs: bundle sizes

def test_rs_equal_size_leaves_bundles_of_different_sizes_unrelated():
    data = {"domain": "preference", "items": ["a", "b", "c"], "profile": {"V1": ["a", "b", "c"]}}
    q = {"type": "rs", "agent": "V1", "bundles": [["a", "b"], ["c"]]}
    lab, _ = labelled(data, q)
    assert lab["verdict"] == "true" and lab["certificate"]["type"] == "injection"
    lab, job = labelled(data, q, rs="equal_size")
    assert lab["verdict"] == "false" and lab["conventions"] == {"rs": "equal_size"}
    with pytest.raises(CertificateError, match="unrelated"):
        checker.check(spec("preference"), job.model, "rs", job.params, "true", None,
                      {"type": "injection", "map": {"c": "a"}, "chains": {"c": ["a", "c"]}})
    shared = {"type": "rs", "agent": "V1", "bundles": [["a", "c"], ["b", "c"]]}
    for conv in ({}, {"rs": "equal_size"}):       # a shared item never matters
        assert labelled(data, shared, **conv)[0]["verdict"] == "true"


# ----------------------------------------------------------------- two-sided welfare ranks

ONE_SIDED_ENTRY = {"id": "w", "domain": "stable_matching", "preferences": {
    "A": {"m1": ["w2", "w1"], "m2": ["w2"]}, "B": {"w1": ["m1"], "w2": ["m2"]}}}


def test_welfare_ranks_mutual_or_as_written():
    """m1 lists w2 first, but w2 does not rank m1: after dropping that entry w1 is m1's
    first choice (total rank 1+1 + 1+1 = 4), as written it is his second (5)."""
    lab, _ = labelled(ONE_SIDED_ENTRY, "utilitarian")
    assert lab["certificate"]["value"] == 4 and lab["conventions"] == {"welfare_ranks": "mutual"}
    lab, _ = labelled(ONE_SIDED_ENTRY, "utilitarian", welfare_ranks="written")
    assert lab["certificate"]["value"] == 5 and lab["solution"] == {"m1": "w1", "m2": "w2"}
    assert labelled(ONE_SIDED_ENTRY, "super_stable")[0].get("conventions") is None


# ----------------------------------------------------------------- rank-maximal scope

GREEDY = {"id": "g", "domain": "house_allocation",
          "preferences": {"a1": ["o2", "o3"], "a2": ["o1"], "a3": ["o1", "o2"]}}


def test_rank_maximal_over_all_matchings_or_maximum_ones():
    """Rank-maximal (all matchings): {a1: o2, a2: o1}, signature [2, 0], a3 unassigned.
    Greedy maximum (maximum-cardinality ones): the only perfect allocation, [1, 2]."""
    lab, _ = labelled(GREEDY, "rank_maximal")
    assert lab["solution"] == {"a1": "o2", "a2": "o1"} and lab["certificate"]["value"] == [2, 0]
    lab, job = labelled(GREEDY, "rank_maximal", welfare_scope="maximum")
    assert lab["solution"] == {"a1": "o3", "a2": "o1", "a3": "o2"}
    assert lab["certificate"]["value"] == [1, 2]
    assert lab["conventions"] == {"welfare_scope": "maximum"}
    assert {e["engine"] for e in lab["engines"]} >= {"oracle", "cpsat", "milp", "brute_force"}
    own = dict(GREEDY, conventions={"welfare_scope": "maximum"})   # the instance's own choice
    assert labelled(own, "rank_maximal")[0]["conventions"] == {"welfare_scope": "maximum"}
    assert labelled(own, "utilitarian")[0].get("conventions") is None   # same either way


@settings(max_examples=heavy_examples(40, 20), deadline=None)
@given(st.data())
def test_greedy_maximum_matches_enumeration(data):
    objs = ["o1", "o2", "o3", "o4"]
    prefs = {f"a{i}": data.draw(st.lists(st.sampled_from(objs), min_size=1, max_size=3,
                                         unique=True)) for i in range(data.draw(st.integers(1, 4)))}
    inst = {"domain": "house_allocation", "preferences": prefs,
            "conventions": {"welfare_scope": "maximum"}}
    lab = label(plan([from_object(inst, "<t>", None, "h")], ["rank_maximal"])[0])
    best = None                         # independent: every matching, by (size, signature)
    agents = list(prefs)
    for choice in itertools.product(*[[None, *prefs[a]] for a in agents]):
        taken = [o for o in choice if o]
        if len(taken) != len(set(taken)):
            continue
        sig = [sum(1 for a, o in zip(agents, choice) if o and prefs[a].index(o) == k)
               for k in range(3)]
        key = (len(taken), sig)
        best = key if best is None or key > best else best
    assert len(lab["solution"]) == best[0]
    assert lab["certificate"]["value"][:3] == best[1][:len(lab["certificate"]["value"])]


# ----------------------------------------------------------------- the CLI option



@pytest.mark.skipif(PREFCERT is None, reason="console script not installed")
def test_convention_option_is_recorded_checked_and_resumed_exactly(tmp_path):
    src = tmp_path / "split.json"
    src.write_text(json.dumps(dict(SPLIT, questions=[
        {"type": "winner", "rule": "plurality", "item": "c"},
        {"type": "count", "items": ["a", "b"]}])))
    out = tmp_path / "out.jsonl"
    run = [PREFCERT, "label", src, "-o", out, "--convention", "counts=identical"]
    assert subprocess.run(run, capture_output=True).returncode == 0
    labs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [lab["verdict"] for lab in labs] == ["false", "undetermined"]
    # count's answer does not depend on it, but its instance was re-read under it
    assert all(lab["conventions"] == {"counts": "identical"} for lab in labs)
    assert subprocess.run([PREFCERT, "check", out], capture_output=True).returncode == 0
    r = subprocess.run(run, capture_output=True, text=True)
    assert r.returncode == 0 and "2 label(s) already" in r.stderr.replace("\n", " ")


# ----------------------------------------------------------------- overvote: IRV's ballots

#: The official count of the 2009 Burlington mayoral election (the City of Burlington's
#: published IRV results, as tabulated in Wikipedia, "2009 Burlington mayoral election",
#: results table, and electowiki, "2009 Burlington mayoral election"): round 1 the first
#: choices (4 ballots exhausted); round 2 after eliminating Smith, Simpson and the write-ins
#: together (151 exhausted); round 3 after eliminating Montroll (606 exhausted, so 8,374
#: ballots in the final round). Typed from the published tables, not computed.
BURLINGTON_2009_OFFICIAL = [
    {"Kurt Wright": 2951, "Bob Kiss": 2585, "Andy Montroll": 2063, "Dan Smith": 1306,
     "Write-In": 36, "James Simpson": 35},
    {"Kurt Wright": 3294, "Bob Kiss": 2981, "Andy Montroll": 2554},
    {"Bob Kiss": 4313, "Kurt Wright": 4061},
]


def test_overvote_exhaust_reproduces_the_official_burlington_2009_rounds():
    """PrefLib 00005-00000002 (instances/election/). prefcert eliminates one candidate per
    round; the official count eliminated the three last together, whose combined vote is
    below the next candidate's, so the official rounds are prefcert's rounds 1, 4 and 5.
    Under ``exhaust`` (an overvote exhausts the ballot for good) they match exactly; under
    the default ``round`` (exhausted for that round only) rounds 3–5 count 1–4 ballots
    more (final 4,314–4,064)."""
    root = Path(__file__).resolve().parents[1]
    (inst,) = read_paths([str(root / "instances" / "election" / "preflib-00005-00000002.json")])
    q = {"type": "winner", "rule": "irv"}
    lab, _ = labelled(inst.data, q, overvote="exhaust")
    rounds = lab["certificate"]["rounds"]
    assert [rounds[0], rounds[3], rounds[4]] == BURLINGTON_2009_OFFICIAL
    assert lab["conventions"] == {"overvote": "exhaust"}
    assert lab["solution"] == {"winner": "Bob Kiss", "winners": ["Bob Kiss"]}
    default, _ = labelled(inst.data, q)
    assert default["conventions"] == {"overvote": "round"}
    assert default["certificate"]["rounds"][4] == {"Bob Kiss": 4314, "Kurt Wright": 4064}
    # the rounds of one reading do not certify the other
    with pytest.raises(CertificateError, match="round tallies"):
        checker.check(spec("election"), labelled(inst.data, q, overvote="exhaust")[1].model,
                      "winner", {"rule": "irv"}, "determined", default["solution"],
                      default["certificate"])
    # a borda label does not depend on the reading: it records none
    assert "conventions" not in labelled(inst.data, {"type": "winner", "rule": "borda"})[0]


def test_overvote_exhaust_is_refused_for_manipulation():
    data = {"domain": "election", "candidates": ["a", "b", "c"], "tie_break": ["a", "b", "c"],
            "ballots": [["a", ["b", "c"]], ["b", "c", "a"]],
            "manipulator": {"ranking": ["c", "b", "a"]}, "conventions": {"overvote": "exhaust"}}
    with pytest.raises(InstanceError, match="round reading"):
        plan([from_object(data, "<t>", None, "x")], [{"type": "manipulation", "rule": "irv"}])
    plan([from_object(data, "<t>", None, "x")], [{"type": "manipulation", "rule": "borda"}])
