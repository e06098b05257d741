"""Hospitals/residents with ties: oracle vs CP-SAT vs brute force, refutation soundness,
reference instances with published answers, inconsistent lists, capacity 0, bad input,
label / check / audit / classify through the CLI."""
from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest
from conftest import SHARED_DATA, heavy_examples, PREFCERT
from hypothesis import given
from hypothesis import strategies as st
from prefcert.encodings.hospitals_residents import stable_matching_cpsat
from prefcert.formal.checker import hospitals_residents as chk
from prefcert.formal.checker.hospitals_residents import blocking_pairs, replay_deletion_log
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.formal.hospitals_residents import NOTIONS, parse_hospitals_residents
from prefcert.formal.instances import from_object
from prefcert.generators.hospitals_residents import sample_hr
from prefcert.oracles.hospitals_residents import (
    all_matchings,
    deferred_acceptance,
    stable_matchings,
    strongly_stable_search,
    super_stable_search,
    weakly_stable_matching,
)

from prefcert.pipeline.jobs import audit, label, plan

SEARCH = {"super": super_stable_search, "strong": strongly_stable_search}
REF_FILES = sorted((SHARED_DATA / "reference").glob("hr_*.json"))
ROOT = Path(__file__).resolve().parents[1]


def hr(residents, hospitals, capacities, **extra):
    return {"id": "t", "domain": "hospitals_residents",
            "preferences": {"residents": residents, "hospitals": hospitals},
            "capacities": capacities, **extra}


def random_hr(rng: random.Random, max_r: int = 6, max_h: int = 4) -> dict:
    """A random small HRT instance: incomplete and one-sided lists, ties of every density,
    capacities 0..3."""
    nr, nh = rng.randint(1, max_r), rng.randint(1, max_h)
    res = [f"r{i}" for i in range(1, nr + 1)]
    hos = [f"h{j}" for j in range(1, nh + 1)]
    tie_p = rng.choice([0.0, 0.3, 0.6, 0.9])

    def one(others):
        order = rng.sample(others, len(others))
        k = rng.randint(0, len(order)) if rng.random() < 0.5 else len(order)
        groups: list[list[str]] = []
        for i, x in enumerate(order[:k]):
            if i and rng.random() < tie_p:
                groups[-1].append(x)
            else:
                groups.append([x])
        return [g[0] if len(g) == 1 else g for g in groups]

    return hr({r: one(hos) for r in res}, {h: one(res) for h in hos},
              {h: rng.choice([0, 1, 1, 2, 2, 3]) for h in hos})


def stable_sets(market) -> dict[str, list[dict]]:
    return {n: list(stable_matchings(market, n)) for n in NOTIONS}


# ------------------------------------------------------------------ reference instances

def _ref_market(ref):
    p = ref["preferences"]
    return parse_hospitals_residents(hr(p["residents"], p["hospitals"], p["capacities"]))


def test_reference_files_present():
    assert len(REF_FILES) >= 2


@pytest.mark.parametrize("path", REF_FILES, ids=lambda p: p.stem)
def test_reference_instance_published_answers(path):
    ref = json.loads(path.read_text())
    market = _ref_market(ref)
    exp = ref["expected"]
    got = deferred_acceptance(market)
    as_hospitals = {h: sorted(r for r, g in got.items() if g == h) for h in market.hospitals}
    assert as_hospitals == {h: sorted(rs) for h, rs in exp["resident_optimal"].items()}
    listed = sorted(json.dumps(m, sort_keys=True) for m in exp["stable_matchings_resident_view"])
    for notion in NOTIONS:         # strict lists: the three notions coincide
        found = sorted(json.dumps(m, sort_keys=True) for m in stable_matchings(market, notion))
        assert found == listed
    for r in exp.get("unmatched_residents", []):
        assert r not in got


def test_bundled_instances_label_and_match_brute_force():
    from prefcert.formal.files import read_paths
    insts = read_paths([str(ROOT / "instances" / "hospitals_residents" / "reference.jsonl")])
    assert len(insts) >= 6
    for job in plan(insts):
        lab = label(job, time_limit=20)
        notion = job.question.name.split("_")[0].replace("weakly", "weak") \
            .replace("strongly", "strong")
        exists = next(stable_matchings(job.model, notion), None) is not None
        assert lab["checked"] and (lab["verdict"] == "exists") == exists, (job.key, lab)


# ------------------------------------------------------------------ definitions and rules

def test_one_sided_entries_are_dropped_and_never_block():
    m = parse_hospitals_residents(hr({"r1": ["h1", "h2"], "r2": ["h2"]},
                                     {"h1": ["r2"], "h2": ["r2", "r1"]}, {"h1": 1, "h2": 1}))
    assert sorted(m.dropped()) == [("h1", "r2"), ("r1", "h1")]
    assert list(m.edges()) == [("r1", "h2"), ("r2", "h2")]
    with pytest.raises(CertificateError, match="not admissible"):
        blocking_pairs(m, {"r1": "h1"}, "weak")
    # r1 is unmatched and lists h1 first, h1 is empty and lists r2 only: no block via h1
    assert blocking_pairs(m, {"r2": "h2"}, "super") == []


def test_capacity_zero_takes_nobody_and_never_blocks():
    m = parse_hospitals_residents(hr({"r1": ["h0", "h1"]}, {"h0": ["r1"], "h1": ["r1"]},
                                     {"h0": 0, "h1": 1}))
    assert ("r1", "h0") in m.dropped()
    with pytest.raises(CertificateError):
        blocking_pairs(m, {"r1": "h0"}, "weak")
    assert blocking_pairs(m, {"r1": "h1"}, "super") == []
    assert blocking_pairs(m, {}, "weak") == [("r1", "h1")]


def test_blocking_notions_with_a_full_hospital():
    # h1 (capacity 2) holds r1 and r2; r3 is tied with r2 at h1 and unassigned
    m = parse_hospitals_residents(hr({"r1": ["h1"], "r2": ["h1"], "r3": ["h1"]},
                                     {"h1": ["r1", ["r2", "r3"]]}, {"h1": 2}))
    x = {"r1": "h1", "r2": "h1"}
    assert blocking_pairs(m, x, "weak") == []         # h1 is indifferent
    assert blocking_pairs(m, x, "strong") == [("r3", "h1")]   # r3 strictly, h1 weakly
    assert blocking_pairs(m, x, "super") == [("r3", "h1")]
    with pytest.raises(CertificateError, match="capacity"):
        blocking_pairs(m, {"r1": "h1", "r2": "h1", "r3": "h1"}, "weak")


@pytest.mark.parametrize("data, message", [
    (hr({"r1": ["h1"]}, {"h1": ["r1"]}, {}), "no capacity"),
    (hr({"r1": ["h1"]}, {"h1": ["r1"]}, {"h1": -1}), "non-negative"),
    (hr({"r1": ["h1"]}, {"h1": ["r1"]}, {"h1": 1.5}), "non-negative"),
    (hr({"r1": ["h1"]}, {"h1": ["r1"]}, {"h1": 1, "h9": 2}), "unknown hospital"),
    (hr({"r1": ["h1"]}, {"h1": ["r1"], "r1": []}, {"h1": 1, "r1": 1}), "both sides"),
    (hr({"r1": ["h2"]}, {"h1": ["r1"]}, {"h1": 1}), "unknown item"),
    ({"domain": "hospitals_residents", "preferences": {"residents": {}}, "capacities": {}},
     "exactly the sides"),
])
def test_bad_input_names_the_agent_and_value(data, message):
    with pytest.raises(InstanceError, match=message):
        parse_hospitals_residents(data)


def test_deferred_acceptance_needs_strict_lists_and_both_sides_are_optimal():
    m = parse_hospitals_residents(hr({"r1": [["h1", "h2"]]}, {"h1": ["r1"], "h2": ["r1"]},
                                     {"h1": 1, "h2": 1}))
    with pytest.raises(ValueError, match="tie"):
        deferred_acceptance(m)
    rng = random.Random(3)
    checked = 0
    for _ in range(300):
        d = random_hr(rng)
        for lists in (d["preferences"]["residents"], d["preferences"]["hospitals"]):
            for k, v in lists.items():        # make every list strict
                lists[k] = [y for x in v for y in (x if isinstance(x, list) else [x])]
        m = parse_hospitals_residents(d)
        res_opt, hos_opt = deferred_acceptance(m), deferred_acceptance(m, "hospitals")
        stable = list(stable_matchings(m, "weak"))
        assert res_opt in stable and hos_opt in stable
        rank = {r: o.rank for r, o in m.pr.items()}
        inf = float("inf")
        for s in stable:      # every resident does best in res_opt and worst in hos_opt
            for r in m.residents:
                assert rank[r].get(res_opt.get(r), inf) <= rank[r].get(s.get(r), inf)
                assert rank[r].get(hos_opt.get(r), inf) >= rank[r].get(s.get(r), inf)
        checked += 1
    assert checked == 300


# ------------------------------------------------------------------ cross-checks

@pytest.mark.heavy
def test_oracle_agrees_with_brute_force_on_thousands_of_random_instances():
    """Seeded random HRT instances (≤ 6 residents, ≤ 4 hospitals): existence agrees with
    exhaustive search, every witness passes the checker, every refutation replays."""
    rng = random.Random(2024)
    n = heavy_examples(4000, 2000)
    nones = {"super": 0, "strong": 0}
    for _ in range(n):
        d = random_hr(rng)
        m = parse_hospitals_residents(d)
        ss = stable_sets(m)
        assert ss["weak"] and not blocking_pairs(m, weakly_stable_matching(m), "weak")
        assert not blocking_pairs(m, weakly_stable_matching(m, "hospitals"), "weak")
        for notion, search in SEARCH.items():
            got, refutation = search(m)
            assert (got is not None) == bool(ss[notion]), (notion, d)
            if got is None:
                replay_deletion_log(m, notion, refutation)
                nones[notion] += 1
            else:
                assert got in ss[notion]
        # super ⇒ strong ⇒ weak, and the same residents are matched in all super/strong
        for a, b in (("super", "strong"), ("strong", "weak")):
            assert all(x in ss[b] for x in ss[a])
        for notion in SEARCH:
            assert len({frozenset(x) for x in ss[notion]}) <= 1, (notion, d)
    assert nones["super"] > n // 10 and nones["strong"] > n // 10   # both answers exercised


@pytest.mark.heavy
def test_cpsat_agrees_with_brute_force():
    rng = random.Random(77)
    for _ in range(heavy_examples(400, 150)):
        d = random_hr(rng)
        m = parse_hospitals_residents(d)
        for notion in NOTIONS:
            out = stable_matching_cpsat(m, notion, time_limit=10, seed=0)
            exists = next(stable_matchings(m, notion), None) is not None
            assert (out.verdict == "exists") == exists, (notion, d)
            if out.solution is not None:
                assert blocking_pairs(m, out.solution, notion) == []


@st.composite
def adversarial(draw):
    """Shapes that break careless implementations: one big tie on either side, empty
    lists, every capacity 0 or huge, one hospital for many residents."""
    nr, nh = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    res = [f"r{i}" for i in range(1, nr + 1)]
    hos = [f"h{j}" for j in range(1, nh + 1)]
    shape = draw(st.sampled_from(["big_tie_r", "big_tie_h", "empty", "caps", "random"]))
    seed = draw(st.integers(0, 10**6))
    d = random_hr(random.Random(seed), 1, 1)
    rng = random.Random(seed)
    pr = {r: [list(hos)] if shape == "big_tie_r" else rng.sample(hos, rng.randint(0, nh))
          for r in res}
    ph = {h: [list(res)] if shape == "big_tie_h" else rng.sample(res, rng.randint(0, nr))
          for h in hos}
    if shape == "empty":
        pr = {r: (v if rng.random() < 0.5 else []) for r, v in pr.items()}
    caps = {h: draw(st.sampled_from([0, nr] if shape == "caps" else [0, 1, 2, 3]))
            for h in hos}
    del d
    return hr(pr, ph, caps)


@given(adversarial())
def test_pipeline_all_engines_agree_on_adversarial_shapes(data):
    inst = from_object(data, "<t>", None, "t")
    for job in plan([inst]):
        lab = label(job, engines=["oracle", "cpsat", "brute_force"], time_limit=10)
        assert lab["checked"]


# ------------------------------------------------------------------ refutation soundness

def _random_prover(market, notion, rng: random.Random, max_steps: int = 12) -> list:
    """A random sequence of *valid* deletion steps (each justified at the state it is
    played in), built with the checker's own list state (whose agents are the integers of
    the market's integer form; the steps name them): the checker must refuse every such
    log on an instance that has a stable matching."""
    state = chk._ListState(market)
    nr, nh = state.names_r, state.names_h
    steps: list = []
    for _ in range(rng.randint(0, max_steps)):
        heads = {r: state.head(r) for r in state.lists}
        holders: dict[int, list[int]] = {}
        for r, hd in heads.items():
            for h in hd:
                holders.setdefault(h, []).append(r)
        moves = []
        for h, ws in holders.items():
            c = state.cap[h]
            if len(ws) >= c:
                moves.append(("dominate", h, rng.sample(ws, rng.randint(c, len(ws)))))
            if notion == "super" and len(ws) >= c + 1:
                moves.append(("oversubscribed", h, rng.sample(ws, rng.randint(c + 1, len(ws)))))
        if notion == "strong":
            try:
                tails = chk._critical_tails(state, 0)
                moves.append(("critical",))
            except CertificateError:
                tails = None
        if not moves:
            break
        step = rng.choice(moves)
        if step == ("critical",):
            steps.append(["critical"])
            for h, t in tails:
                state.cut_to(h, t)
        else:
            steps.append([step[0], nh[step[1]], [nr[w] for w in step[2]]])
            worst = max(state.rank_h[step[1]][w] for w in step[2])
            state.cut_to(step[1], worst + (step[0] == "dominate"))
    return steps


@pytest.mark.heavy
def test_checker_refuses_every_valid_log_when_a_stable_matching_exists():
    rng = random.Random(99)
    tried = 0
    for _ in range(heavy_examples(3000, 1200)):
        d = random_hr(rng, 5, 3)
        m = parse_hospitals_residents(d)
        for notion in ("super", "strong"):
            if next(stable_matchings(m, notion), None) is None:
                continue
            steps = _random_prover(m, notion, rng)
            with pytest.raises(CertificateError, match="no contradiction"):
                replay_deletion_log(m, notion, {"steps": steps})
            tried += 1
    assert tried > 500


def test_tampered_or_misplaced_steps_are_rejected():
    m = parse_hospitals_residents(hr({"r1": ["h1"], "r2": ["h1"]}, {"h1": [["r1", "r2"]]},
                                     {"h1": 1}))
    _, sup = super_stable_search(m)
    _, strong = strongly_stable_search(m)
    replay_deletion_log(m, "super", sup)
    replay_deletion_log(m, "strong", strong)
    for notion, cert in (("super", {"steps": []}), ("strong", {"steps": []}),
                         ("strong", sup), ("super", strong),
                         ("super", {"steps": [["oversubscribed", "h1", ["r1"]]]}),
                         ("super", {"steps": [["dominate", "h1", ["r1", "r1"]]]}),
                         ("super", {"steps": [["dominate", "h9", ["r1"]]]}),
                         ("super", {"steps": "x"}), ("weak", sup)):
        with pytest.raises(CertificateError):
            replay_deletion_log(m, notion, cert)


# ------------------------------------------------------------------ audit, classify, CLI

MARKET = hr({"r1": ["h1", "h2"], "r2": ["h1"], "r3": [["h1", "h2"]]},
            {"h1": ["r3", "r1", "r2"], "h2": ["r1", "r3"]}, {"h1": 1, "h2": 1})


def test_audit_reads_both_views_and_reports_blocking_pairs():
    job = plan([from_object(MARKET, "<t>", None, "m")], ["strongly_stable"])[0]
    ok = label(job)["solution"]
    assert audit(job, json.dumps(ok))["verdict"] == "correct"
    by_h = {}
    for r, h in ok.items():
        by_h.setdefault(h, []).append(r)
    assert audit(job, json.dumps(by_h))["verdict"] == "correct"
    bad = audit(job, json.dumps({"r2": "h1", "r1": "h2"}))
    assert bad["verdict"] == "incorrect" and {"blocking_pair": ["r3", "h1"]} in bad["violations"]
    assert audit(job, "none")["verdict"] == "incorrect"         # one exists
    assert audit(job, '"h1"')["verdict"] == "unparseable"




@pytest.mark.skipif(PREFCERT is None, reason="console script not installed")
def test_cli_label_check_audit_classify(tmp_path):
    src = tmp_path / "m.json"
    src.write_text(json.dumps(dict(MARKET, id="m")))
    out = tmp_path / "labels.jsonl"
    r = subprocess.run([PREFCERT, "label", str(src), "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert len(out.read_text().splitlines()) == 3
    r = subprocess.run([PREFCERT, "check", str(out)], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and "3 label(s) checked" in r.stdout
    ans = tmp_path / "a.txt"
    ans.write_text('<answer>{"h1": ["r2"], "h2": ["r1"]}</answer>')
    r = subprocess.run([PREFCERT, "audit", str(src), "-q", "weakly_stable", str(ans)],
                       capture_output=True, text=True)
    assert r.returncode == 1 and json.loads(r.stdout)["verdict"] == "incorrect"
    cands = tmp_path / "c.json"
    cands.write_text(json.dumps([{"r3": "h1", "r1": "h2"}, {"r2": "h1"}]))
    r = subprocess.run([PREFCERT, "classify", str(src), str(cands)], capture_output=True, text=True)
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert "strongly_stable" in rows[0]["satisfies"] and rows[1]["fails"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(hr({"r1": ["h1"]}, {"h1": ["r1"]}, {"h1": -2})))
    r = subprocess.run([PREFCERT, "label", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and "capacity" in r.stderr and "-2" in r.stderr


def test_generator_is_deterministic_and_valid():
    a = sample_hr(30, 5, cap_min=0, cap_max=4, tie_prob=0.3, truncate=True, seed=5)
    assert a == sample_hr(30, 5, cap_min=0, cap_max=4, tie_prob=0.3, truncate=True, seed=5)
    m = parse_hospitals_residents(a)
    got, ref = strongly_stable_search(m)
    if got is None:
        replay_deletion_log(m, "strong", ref)
    else:
        assert blocking_pairs(m, got, "strong") == []
    with pytest.raises(ValueError):
        sample_hr(3, 2, cap_min=2, cap_max=1, seed=0)
    assert sum(1 for _ in all_matchings(parse_hospitals_residents(
        sample_hr(2, 1, cap_min=1, cap_max=1, seed=0)))) >= 1


def test_public_functions_are_one_hop_with_runnable_examples():
    import doctest

    import prefcert
    import prefcert.api.hospitals_residents
    assert prefcert.hrt_super_stable_matching is prefcert.api.hospitals_residents.hrt_super_stable_matching
    failures, tried = doctest.testmod(prefcert.api.hospitals_residents)
    assert tried >= 8 and failures == 0
