"""Self-consistency SC(n) as a deployed strategy, the M sweep and the L sweep of
``prefcert risk`` (Qian & He 2026, Fig. 1, Tables 14 and 17). Expected values are worked
by hand in the comments; the coverage simulation checks its truth with scipy's binomial
tail."""
from __future__ import annotations

import json
import math

import numpy as np
from functools import partial
import pytest
from scipy import stats

from prefcert.bench.rational_value_risk.risk import (
    l_sweep, m_grid, m_sweep, majority_vote, rational_value_risk, self_consistency,
    verification_term)
from prefcert.formal.errors import InstanceError

from conftest import heavy_examples, HASHSEED_0, cli, PREFCERT

needs_cli = pytest.mark.skipif(PREFCERT is None, reason="console script not installed")


run = partial(cli, env=HASHSEED_0)


# three prompts, K = 4 samples each, with the answer key of every sample
U = [[1, 0, 0, 1], [0, 0, 1, 1], [1, 1, 0, 1]]
KEYS = [["a", "b", "c", "a"], ["x", "x", "y", "y"], ["a", "a", "b", "a"]]


def test_majority_vote_and_its_tie_rules():
    assert majority_vote(["a", "b", "b", None]) == 1        # b has 2 votes, first at 1
    assert majority_vote(["b", "a", "a", "b"]) == 0         # tie: b voted first
    assert majority_vote([None, "c", None]) == 1            # None does not vote
    assert majority_vote([None, None]) is None
    with pytest.raises(ValueError):
        majority_vote(["a"], ties="last")
    # random: both tied keys come up over seeds, each a first occurrence
    got = {majority_vote(["x", "y"], ties="random", rng=np.random.default_rng(s))
           for s in range(40)}
    assert got == {0, 1}


def test_sc_on_a_hand_made_matrix():
    # SC(2), blocks of 2: p1 [a,b]→a (tie, first)→1, [c,a]→c→0: 0.5; p2 [x,x]→0,
    # [y,y]→1: 0.5; p3 [a,a]→1, [b,a]→b→0: 0.5. DEU 0.5, RVR (REU = 1) 0.5.
    r = self_consistency(U, KEYS, 2, resamples=200)
    assert (r["M"], r["draws"], r["skipped"]) == (3, 2, 0)
    assert r["deu"] == pytest.approx(0.5) and r["rvr"] == pytest.approx(0.5)
    assert r["rvr_ci"] == pytest.approx([0.5, 0.5])       # every prompt's gap is 0.5
    # SC(4), one block: p1 a (2 votes)→1; p2 x/y tie→x→0; p3 a→1. RVR = 1 − 2/3.
    r4 = self_consistency(U, KEYS, 4, resamples=200)
    assert r4["draws"] == 1 and r4["rvr"] == pytest.approx(1 / 3)
    # SC(3): blocks [0:3] only; p1 a,b,c tie→a→1; p2 x→0; p3 a→1. RVR 1/3.
    assert self_consistency(U, KEYS, 3, resamples=50)["rvr"] == pytest.approx(1 / 3)
    # SC(1) is the sampling strategy: 1 − (0.5 + 0.5 + 0.75)/3
    r1 = self_consistency(U, KEYS, 1, resamples=50)
    assert r1["rvr"] == pytest.approx(1 - 1.75 / 3)
    assert r1["rvr"] == pytest.approx(rational_value_risk(U)["readings"]["certified"]["rvr"])
    # the bounds with K_n = 2 draws: (I) √(2 ln 120 / 3), (II) √(ln 120 / 12), (III) 0
    b = r["bounds"]
    assert b["prompt_sampling"] == pytest.approx(1.78652209, abs=1e-7)
    assert b["reasoning_sampling"] == pytest.approx(0.63163094, abs=1e-7)
    assert b["verification"] == 0.0
    assert "K_n" in b["formulas"]["reasoning_sampling"]


def test_sc_no_vote_skips_and_reu():
    # p1 no key parses: its block scores 0 although the utilities say 1; p2 has 1 sample
    # (< n = 2): skipped; p3 uncertified (REU None): left out.
    r = self_consistency([[1, 1], [1], [0, 1]], [[None, None], ["a"], ["a", "b"]], 2,
                         reu=[1, 1, None], resamples=20)
    assert (r["M"], r["skipped"], r["no_vote_rate"], r["rvr"]) == (1, 1, 1.0, 1.0)
    # a certified REU below 1: gap 0.5 − mean of p1's SC utility (1, [a,a]→1)
    r = self_consistency([[1, 1]], [["a", "a"]], 2, reu=[0.5], resamples=20)
    assert r["rvr"] == pytest.approx(-0.5)                 # not clipped
    with pytest.raises(InstanceError):
        self_consistency([[1, 1]], [["a"]], 2)             # keys not parallel
    with pytest.raises(InstanceError):
        self_consistency([[1]], [["a"]], 2)                # no prompt has 2 samples


def test_sc_with_a_stochastic_verifier_averages_the_chosen_answer():
    # p1: [a (outcomes 1,0), a (1,1)] → a, first → 0.5; L = 2 enters (III)
    r = self_consistency([[[1, 0], [1, 1]]], [["a", "a"]], 2, resamples=20)
    assert r["deu"] == pytest.approx(0.5)
    # (III) with M = 1, K_n = 1, L = 2: √(ln 240 / 4)
    assert r["bounds"]["verification"] == pytest.approx(math.sqrt(math.log(240) / 4))


def test_random_ties_are_seeded():
    keys = [["x", "y", "x", "y"]] * 20
    u = [[1, 0, 1, 0]] * 20
    a = self_consistency(u, keys, 2, ties="random", seed=3, resamples=20)
    b = self_consistency(u, keys, 2, ties="random", seed=3, resamples=20)
    assert a["rvr"] == b["rvr"]
    assert 0 < a["deu"] < 1                                # both tied keys were drawn
    assert self_consistency(u, keys, 2, resamples=20)["deu"] == 1.0     # first: x, U = 1


def test_m_grid_and_sweep_reproducible():
    assert m_grid(10) == [2, 4, 8, 10]
    assert m_grid(8) == [2, 4, 8]
    assert m_grid(1) == [1]
    rng = np.random.default_rng(5)
    u = (rng.random((10, 3)) < 0.6).astype(int).tolist()
    a = m_sweep(u, resamples=100, seed=7)
    assert a == m_sweep(u, resamples=100, seed=7)          # the same subsets and intervals
    assert a != m_sweep(u, resamples=100, seed=8)
    perm = np.random.default_rng(7).permutation(10)        # the documented subsets
    for row in a:
        sub = [u[i] for i in perm[:row["M"]]]
        deu = sum(sum(r) / 3 for r in sub) / row["M"]
        if row["reading"] == "certified":
            assert row["rvr"] == pytest.approx(1 - deu)
        else:
            assert row["rvr"] == pytest.approx(sum(max(r) for r in sub) / row["M"] - deu)
        assert row["bound_prompts"] == pytest.approx(math.sqrt(2 * math.log(120) / row["M"]))
        assert row["ci_width"] == pytest.approx(row["rvr_ci"][1] - row["rvr_ci"][0])
    full = [r for r in a if r["M"] == 10 and r["reading"] == "certified"][0]
    assert full["rvr"] == pytest.approx(rational_value_risk(u)["readings"]["certified"]["rvr"])


def test_verification_term_by_hand():
    # certified: √(ln(12/δ) / (2MKL)), δ = 0.05, M = 100, K = 8
    assert verification_term(100, 8, 1) == pytest.approx(0.0585269, abs=1e-6)   # √(ln240/1600)
    assert verification_term(100, 8, 4) == pytest.approx(0.0292635, abs=1e-6)   # √(ln240/6400)
    # best-of-K: min(1 − 1/8, √(ln16/(2L)) + √(ln120/200) + √(ln240/(1600L)))
    assert verification_term(100, 8, 1, reading="best_of_k") == pytest.approx(0.875)
    assert verification_term(100, 8, 64, reading="best_of_k") == pytest.approx(0.3092095,
                                                                               abs=1e-6)


def test_l_sweep_by_hand():
    # two prompts, K = 2, L = 2 outcomes each
    u = [[[1, 0], [1, 1]], [[0, 0], [1, 0]]]
    rows = {(r["L"], r["reading"]): r for r in l_sweep(u, resamples=50)}
    assert sorted({k[0] for k in rows}) == [1, 2]
    # L = 1: utilities [[1,1],[0,1]]: DEU 0.75; certified 0.25; best-of-K REU 1 → 0.25
    assert rows[1, "certified"]["rvr"] == pytest.approx(0.25)
    assert rows[1, "best_of_k"]["rvr"] == pytest.approx(0.25)
    # L = 2: [[.5,1],[0,.5]]: DEU 0.5; certified 0.5; best-of-K (1 + .5)/2 − .5 = 0.25
    assert rows[2, "certified"]["rvr"] == pytest.approx(0.5)
    assert rows[2, "best_of_k"]["rvr"] == pytest.approx(0.25)
    # (III) certified at M = 2, K = 2: √(ln240 / (8L))
    for ll in (1, 2):
        assert rows[ll, "certified"]["verification"] == pytest.approx(
            math.sqrt(math.log(240) / (8 * ll)))
    det = l_sweep([[1, 0], [0, 1]], resamples=20)
    assert sorted({r["L"] for r in det}) == [1, 2, 4, 8, 16, 32]
    assert all(r["rvr"] is None for r in det)
    c = {r["L"]: r["verification"] for r in det if r["reading"] == "certified"}
    assert c[4] == pytest.approx(math.sqrt(math.log(240) / 32)) and c[16] == pytest.approx(
        c[4] / 2)                                          # falls like 1/√L


# ------------------------------------------------------------------ the console script

LINES = [{"id": "p1", "utilities": U[0], "keys": KEYS[0]},
         {"id": "p2", "utilities": U[1], "keys": KEYS[1]},
         {"id": "p3", "utilities": U[2], "keys": KEYS[2]}]


def _write(path, recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


@needs_cli
def test_cli_sc_and_sweeps(tmp_path):
    f = _write(tmp_path / "u.jsonl", LINES)
    res = json.loads(run("risk", "--utilities", f, "--sc", "2,4", "--m-sweep", "--l-sweep",
                         "--resamples", "100", "--json").stdout)
    sets = {rs["key"]: rs for rs in res["results"]}
    fig1 = {(r["n"], r["estimate"]): r["value"] for r in sets["qh-fig1"]["rows"]}
    assert fig1[1, "RVR"] == pytest.approx(1 - 1.75 / 3)
    assert fig1[2, "RVR"] == pytest.approx(0.5) and fig1[4, "RVR"] == pytest.approx(1 / 3)
    assert fig1[2, "SC draws per prompt K_n"] == 2
    t14 = {(r["M"], r["reading"]): r for r in sets["qh-table14"]["rows"]
           if r["estimate"] == "RVR"}
    w = [r for r in sets["qh-table14"]["rows"] if r["estimate"] == "CI width"]
    assert all(r["value"] == pytest.approx(t14[r["M"], r["reading"]]["high"]
                                           - t14[r["M"], r["reading"]]["low"]) for r in w)
    assert set(t14) == {(2, "certified"), (2, "best-of-K"), (3, "certified"), (3, "best-of-K")}
    assert t14[3, "certified"]["value"] == pytest.approx(1 - 1.75 / 3)
    t17 = [r for r in sets["qh-table17"]["rows"] if r["estimate"] == "bound (III) verification"
           and r["reading"] == "certified"]
    assert {r["L"]: r["value"] for r in t17}[2] == pytest.approx(
        math.sqrt(math.log(240) / (2 * 3 * 4 * 2)))
    text = " ".join(run("risk", "--utilities", f, "--sc", "2", "--m-sweep", "--l-sweep",
                        "--resamples", "50", "--report", tmp_path / "r.html").stdout.split())
    for needle in ("Figure 1", "Table 14", "Table 17", "ties: first", "K_n"):
        assert needle in text, needle
    html = (tmp_path / "r.html").read_text()
    assert "Figure 1" in html and "Table 14" in html and "<svg" in html
    # without the options the sets are absent
    res = json.loads(run("risk", "--utilities", f, "--resamples", "20", "--json").stdout)
    assert not {"qh-fig1", "qh-table14", "qh-table17"} & {rs["key"] for rs in res["results"]}


@needs_cli
@pytest.mark.parametrize("args,records,needle", [
    (["--sc", "0"], LINES, "--sc"),
    (["--sc", "two"], LINES, "--sc"),
    (["--sc", "2"], [{"id": "p1", "utilities": [1, 0]}], "keys"),
    (["--sc", "2"], [{"id": "p1", "utilities": [1, 0], "keys": ["a"]}], "u.jsonl:1:"),
])
def test_cli_bad_sc_input_is_one_line_exit_2(tmp_path, args, records, needle):
    f = _write(tmp_path / "u.jsonl", records)
    out = tmp_path / "m.jsonl"
    r = run("risk", "--utilities", f, *args, "-o", out, check=False)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and needle in r.stderr
    assert not out.exists()


@needs_cli
def test_cli_sc_on_answers_to_a_generated_suite(tmp_path):
    out = tmp_path / "b"
    run("generate", "indeterminacy-algorithmic", "-o", out, "--per-cell", "1", "--sizes", "10")
    prompts = [json.loads(x) for x in (out / "prompts.jsonl").read_text().splitlines()]
    # K = 3 per prompt: gold, a timeout (null: U = 0, no vote), gold → SC(3) votes gold
    # on every prompt (RVR 0); SC(2) blocks [gold, timeout] → gold (RVR 0)
    recs = [{"id": p["id"], "answers": [p["answer"], None, p["answer"]]} for p in prompts]
    a = _write(tmp_path / "a.jsonl", recs)
    res = json.loads(run("risk", out / "prompts.jsonl", a, "--sc", "2,3", "--resamples", "50",
                         "--json").stdout)
    fig1 = {(r["n"], r["estimate"]): r["value"] for r in
            next(rs for rs in res["results"] if rs["key"] == "qh-fig1")["rows"]}
    assert fig1[1, "RVR"] == pytest.approx(1 / 3)          # one sample in three is wrong
    assert fig1[2, "RVR"] == pytest.approx(0.0) and fig1[3, "RVR"] == pytest.approx(0.0)
    assert fig1[2, "no-vote rate"] == 0.0


# ------------------------------------------------------------------ coverage (heavy)

@pytest.mark.heavy
@pytest.mark.parametrize("n", [2, 3])
def test_sc_interval_coverage(n):
    """Two answer keys, correct "c" with probability p drawn uniformly from P. SC(3)
    is correct iff Binomial(3, p) ≥ 2 (scipy's tail); SC(2) with the first-voted tie rule
    is correct with probability p² + p(1 − p) = p (a tie [c, w] goes to c exactly when c
    comes first). The truth is 1 − the mean over P."""
    P = np.array([0.2, 0.4, 0.5, 0.6, 0.8, 0.9])
    win = P if n == 2 else stats.binom.sf(1, 3, P)
    truth = 1 - win.mean()
    rng = np.random.default_rng(100 + n)
    reps = heavy_examples(300, 120)
    hits = bound_hits = 0
    for rep in range(reps):
        p = rng.choice(P, size=60)
        ok = rng.random((60, 4 * n)) < p[:, None]
        keys = np.where(ok, "c", "w").tolist()
        r = self_consistency(ok.astype(int).tolist(), keys, n, resamples=400, seed=rep)
        hits += r["rvr_ci"][0] <= truth <= r["rvr_ci"][1]
        bound_hits += abs(r["rvr"] - truth) <= r["bounds"]["total"]
    assert 0.90 <= hits / reps <= 0.99, hits / reps
    assert bound_hits / reps >= 0.95
