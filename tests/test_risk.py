"""The rational value risk estimator: coverage on simulated Bernoulli utilities, pass@k,
the error bounds; ``prefcert risk`` on model answers to a generated suite; both HTML
reports in headless Chromium."""
from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path

import numpy as np
from functools import partial
import pytest
from conftest import headless_page, require_chromium, HASHSEED_0, cli, PREFCERT
from prefcert.formal.errors import InstanceError

from prefcert.bench.rational_value_risk.risk import error_bounds, pass_at_k, rational_value_risk



run = partial(cli, env=HASHSEED_0)


def test_intervals_cover_the_true_risk_at_the_nominal_rate():
    """Prompts with success probability p ~ Beta(2, 2), K = 4 samples each. The certified
    reading's risk is 1 − E p = 1/2; the best-of-4 reading's is E[1 − (1 − p)^4] − E p
    = 1 − B(2, 6)/B(2, 2) − 1/2 = 1/2 − 1/7 (Beta moments)."""
    rng = np.random.default_rng(11)
    truth = {"certified": 0.5, "best_of_k": 0.5 - 1 / 7}
    reps, hits, bound_hits = 300, {"certified": 0, "best_of_k": 0}, {"certified": 0, "best_of_k": 0}
    for rep in range(reps):
        p = rng.beta(2, 2, size=80)
        u = (rng.random((80, 4)) < p[:, None]).astype(int).tolist()
        r = rational_value_risk(u, resamples=400, seed=rep)
        for name, t in truth.items():
            x = r["readings"][name]
            hits[name] += x["rvr_ci"][0] <= t <= x["rvr_ci"][1]
            bound_hits[name] += abs(x["rvr"] - t) <= x["bounds"]["total"]
    for name in truth:
        assert 0.90 <= hits[name] / reps <= 0.99, (name, hits[name])
        assert bound_hits[name] / reps >= 0.95
    assert r["L"] == 1 and r["readings"]["certified"]["bounds"]["verification"] == 0


def test_readings_on_a_known_matrix():
    u = [[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]]
    r = rational_value_risk(u, resamples=100)
    assert r["deu"] == pytest.approx(0.5)
    assert r["readings"]["certified"]["rvr"] == pytest.approx(0.5)     # 1 − accuracy
    assert r["readings"]["best_of_k"]["reu"] == pytest.approx(2 / 3)
    assert r["readings"]["best_of_k"]["rvr"] == pytest.approx(2 / 3 - 0.5)
    one = rational_value_risk([[1], [0], [1]], resamples=50)
    assert one["readings"]["best_of_k"]["rvr"] == 0                    # K = 1: no gap
    assert [c["k"] for c in r["k_curve"]] == [1, 2, 4]
    assert r["k_curve"][-1]["best_of_k"] == pytest.approx(2 / 3)
    partial = rational_value_risk(u, reu=[1, None, 1], resamples=50)
    assert partial["readings"]["certified"]["prompts"] == 2
    assert partial["readings"]["certified"]["rvr"] == pytest.approx(((1 - 0.5) + 0) / 2)
    stoch = rational_value_risk([[[1, 0, 1], [0, 0, 1]], [[1, 1, 1], [1, 1, 0]]], resamples=50)
    assert stoch["L"] == 3 and not stoch["deterministic_verifier"]
    assert stoch["deu"] == pytest.approx((2 / 3 + 1 / 3 + 1 + 2 / 3) / 4)
    assert stoch["readings"]["certified"]["bounds"]["verification"] > 0
    with pytest.raises(InstanceError):
        rational_value_risk([[2]])


@pytest.mark.parametrize("n,k", [(1, 1), (4, 2), (6, 3), (5, 5)])
def test_pass_at_k_is_the_share_of_k_subsets_with_a_success(n, k):
    for c in range(n + 1):
        draws = list(itertools.combinations([1] * c + [0] * (n - c), k))
        assert pass_at_k(n, c, k) == pytest.approx(sum(any(d) for d in draws) / len(draws))


def test_error_bounds_shrink_with_the_right_budgets():
    b = error_bounds(100, 8, 0.05, verifier_calls=3, deterministic=False, reading="best_of_k")
    assert b["prompt_sampling"] == pytest.approx(math.sqrt(2 * math.log(120) / 100))
    # best-of-K: Hoeffding over the M per-prompt gaps, each in [0, 1 − 1/K]
    assert b["reasoning_sampling"] == pytest.approx(7 / 8 * math.sqrt(math.log(120) / 200))
    # the maximal inequality over 2K means of L calls, plus the two Hoeffding terms
    assert b["verification"] == pytest.approx(
        math.sqrt(math.log(16) / 6) + math.sqrt(math.log(120) / 200)
        + math.sqrt(math.log(240) / (2 * 2400)))
    more_l = error_bounds(100, 8, 0.05, verifier_calls=30, deterministic=False, reading="best_of_k")
    assert more_l["prompt_sampling"] == b["prompt_sampling"]
    assert more_l["reasoning_sampling"] == b["reasoning_sampling"]
    assert more_l["verification"] < b["verification"]
    more_m = error_bounds(400, 8, 0.05, verifier_calls=3, deterministic=False, reading="best_of_k")
    assert more_m["reasoning_sampling"] < b["reasoning_sampling"]
    assert error_bounds(100, 1, reading="best_of_k")["reasoning_sampling"] == 0   # no gap at K = 1
    assert error_bounds(100, 1, deterministic=False, verifier_calls=3,
                        reading="best_of_k")["verification"] == 0
    # the verification term never exceeds the range of the gap, 1 − 1/K
    assert error_bounds(10, 4, deterministic=False, reading="best_of_k")["verification"] == 0.75
    assert error_bounds(100, 2, reading="best_of_k", k_max=8)["reasoning_sampling"] == \
        pytest.approx(7 / 8 * math.sqrt(math.log(120) / 200))
    assert error_bounds(100, 8)["verification"] == 0
    assert error_bounds(100, 8)["total"] == pytest.approx(
        math.sqrt(2 * math.log(120) / 100) + math.sqrt(math.log(120) / 1600))


def _best_of_k_deviation(p: np.ndarray, k: int, reps: int, rng) -> np.ndarray:
    """|estimate − target| of the best-of-K gap over ``reps`` redraws of the responses to
    fixed prompts with success probabilities ``p``: U_ik ~ Bernoulli(p_i), so with c_i
    successes the prompt's gap is 1[c_i > 0] − c_i/K, whose mean is 1 − (1 − p_i)^K − p_i."""
    c = rng.binomial(k, p, size=(reps, len(p)))
    return np.abs(((c > 0) - c / k).mean(1) - np.mean(1 - (1 - p) ** k - p))


@pytest.mark.heavy
@pytest.mark.parametrize("k", [16, 64])
def test_best_of_k_reasoning_bound_holds_its_level(k):
    """Term (II) of the best-of-K reading holds with probability ≥ 1 − δ/3 given the
    prompts, on the hardest success probabilities: p* = 1 − 2^(−1/K), where the best-of-K
    indicator is a fair coin, p = 1/K, and half p*, half 0. (The former √(2 ln(6/δ)/(MK))
    is exceeded 45 % of the time at p*, M = 100, K = 64.)"""
    from conftest import heavy_examples
    rng = np.random.default_rng(5)
    reps, m, delta = heavy_examples(4000, 1000), 100, 0.05
    bound = error_bounds(m, k, delta, reading="best_of_k")["reasoning_sampling"]
    star = 1 - 0.5 ** (1 / k)
    for p in (np.full(m, star), np.full(m, 1 / k), np.where(np.arange(m) % 2, star, 0.0)):
        exceed = float(np.mean(_best_of_k_deviation(p, k, reps, rng) > bound))
        assert exceed <= delta / 3, (k, p[:2], exceed)


@pytest.mark.heavy
def test_best_of_k_verification_bound_holds_its_level():
    """Term (III) of the best-of-K reading with a stochastic verifier: responses fixed,
    every verifier mean 1/2 (the maximum of K noisy means is then biased up the most),
    each utility the mean of L = 5 calls. The former 2·√(ln(12/δ)/(2MKL)) is exceeded on
    every draw."""
    from conftest import heavy_examples
    rng = np.random.default_rng(6)
    reps, m, k, calls, delta = heavy_examples(400, 100), 100, 16, 5, 0.05
    bound = error_bounds(m, k, delta, verifier_calls=calls, deterministic=False,
                         reading="best_of_k")["verification"]
    v = np.full((m, k), 0.5)
    target = 0.0                                   # max_k v − mean_k v = 0 on every prompt
    exceed = 0
    for _ in range(reps):
        u = rng.binomial(calls, v) / calls
        exceed += abs(np.mean(u.max(1) - u.mean(1)) - target) > bound
    assert exceed / reps <= delta / 3


def test_risk_per_budget_k():
    """Hand-computed: the first k samples of every row give DEU_k and best-of-k; pass@k is
    1 − C(n − c, k)/C(n, k) (row 1: n = 4, c = 2, so pass@2 = 5/6)."""
    u = [[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]]
    r = rational_value_risk(u, resamples=50)
    got = {c["k"]: c for c in r["k_curve"]}
    assert list(got) == [1, 2, 4]
    assert got[1]["rvr_certified"] == pytest.approx(1 / 3)
    assert got[1]["rvr_best_of_k"] == pytest.approx(0)
    assert got[2]["rvr_certified"] == pytest.approx(1 / 2)
    assert got[2]["rvr_best_of_k"] == pytest.approx(2 / 3 - 1 / 2)
    assert got[2]["pass_at_k"] == pytest.approx((5 / 6 + 0 + 1) / 3)
    assert got[2]["rvr_pass_at_k"] == pytest.approx((5 / 6 + 0 + 1) / 3 - 1 / 2)
    assert got[4]["rvr_best_of_k"] == pytest.approx(r["readings"]["best_of_k"]["rvr"])
    assert [c["k"] for c in rational_value_risk([[0] * 6], resamples=5)["k_curve"]] == [1, 2, 4, 6]
    cert = rational_value_risk(u, reu=[1, None, 0.5], resamples=50)
    assert {c["k"]: c["rvr_certified"] for c in cert["k_curve"]}[1] == pytest.approx(
        ((1 - 1) + (0.5 - 1)) / 2)


def test_point_estimate_beside_the_bootstrap_mean():
    rng = np.random.default_rng(3)
    u = (rng.random((60, 8)) < rng.beta(2, 2, size=60)[:, None]).astype(int).tolist()
    r = rational_value_risk(u, resamples=2000, seed=4)
    for name in ("certified", "best_of_k"):
        x = r["readings"][name]
        g = np.array([max(row) if name == "best_of_k" else 1.0 for row in u]) - \
            np.array([np.mean(row) for row in u])
        assert x["rvr"] == pytest.approx(g.mean())               # the plug-in estimate
        se = g.std() / math.sqrt(len(g))
        assert x["rvr_bootstrap_mean"] != x["rvr"]
        assert abs(x["rvr_bootstrap_mean"] - x["rvr"]) <= 4 * se / math.sqrt(2000)
    flat = rational_value_risk([[1, 0]] * 5, resamples=100)     # equal gaps: no spread
    assert flat["readings"]["certified"]["rvr_bootstrap_mean"] == pytest.approx(0.5)


@pytest.mark.parametrize("bad", [1.5, -0.1, "1", True, float("nan")])
def test_reu_outside_the_unit_interval_is_refused(bad):
    with pytest.raises(InstanceError, match="reu"):
        rational_value_risk([[1, 0], [0, 1]], reu=[1, bad])
    with pytest.raises(InstanceError, match="reu"):
        rational_value_risk([[1, 0], [0, 1]], reu=[1])


# ------------------------------------------------------------------ prefcert as verifier

needs_cli = pytest.mark.skipif(PREFCERT is None, reason="console script not installed")


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    out = tmp_path_factory.mktemp("risk") / "b"
    run("generate", "indeterminacy-algorithmic", "-o", out, "--per-cell", "1", "--sizes", "10")
    return out


def _answers(bench: Path, path: Path) -> list[list[str]]:
    """K = 4 samples per prompt: the gold answer on samples 0 and 2 of every prompt and on
    sample 1 of every third; "no idea" elsewhere. Returns the answer texts per prompt."""
    prompts = [json.loads(x) for x in (bench / "prompts.jsonl").read_text().splitlines()]
    recs, texts = [], []
    for i, p in enumerate(prompts):
        mine = [p["answer"] if k in (0, 2) or (k == 1 and i % 3 == 0) else "no idea"
                for k in range(4)]
        texts.append(mine)
        recs += [{"id": p["id"], "answer": a} for a in mine]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return texts


def _verdicts_by_score(bench: Path, texts, tmp_path: Path) -> list[list[str]]:
    """The verdict of every sample by ``prefcert score``, one answers file per sample index."""
    prompts = [json.loads(x) for x in (bench / "prompts.jsonl").read_text().splitlines()]
    cols = []
    for k in range(4):
        a, out = tmp_path / f"a{k}.jsonl", tmp_path / f"s{k}.jsonl"
        a.write_text("".join(json.dumps({"id": p["id"], "answer": t[k]}) + "\n"
                             for p, t in zip(prompts, texts)))
        run("score", bench / "prompts.jsonl", a, "-o", out)
        got = {json.loads(x)["id"]: json.loads(x)["verdict"] for x in out.read_text().splitlines()}
        cols.append([got[p["id"]] for p in prompts])
    return [list(row) for row in zip(*cols)]


@needs_cli
def test_risk_on_answers_to_a_generated_suite(bench, tmp_path):
    texts = _answers(bench, tmp_path / "answers.jsonl")
    verdicts = _verdicts_by_score(bench, texts, tmp_path)
    flat = [v for row in verdicts for v in row]
    good = sum(v == "correct" for v in flat) / len(flat)
    r = run("risk", bench / "prompts.jsonl", tmp_path / "answers.jsonl", "--json")
    res = json.loads(r.stdout)
    assert res["samples"] == len(flat) and res["K"] == 4 and res["M"] == len(verdicts)
    assert res["deu"] == pytest.approx(good)
    assert res["readings"]["certified"]["rvr"] == pytest.approx(1 - good)
    assert res["readings"]["certified"]["prompts"] == res["M"]          # every gold certified
    best = sum(any(v == "correct" for v in row) for row in verdicts) / len(verdicts)
    assert res["readings"]["best_of_k"]["reu"] == pytest.approx(best)
    assert flat.count("invalid") > 0
    assert res["parse_failure_rate"] == pytest.approx(flat.count("invalid") / len(flat))
    lo, hi = res["readings"]["certified"]["rvr_ci"]
    assert lo <= res["readings"]["certified"]["rvr"] <= hi
    r = run("risk", bench / "prompts.jsonl", tmp_path / "answers.jsonl", "--by", "task",
            "-o", tmp_path / "matrix.jsonl")
    text = " ".join(r.stdout.split())
    for needle in ("REU = 1 (certified)", "REU = best-of-K", "(III) verification",
                   "√(2 ln(6/δ) / M)", "δ = 0.05", "parse-failure rate", "by task"):
        assert needle in text, needle
    matrix = [json.loads(x) for x in (tmp_path / "matrix.jsonl").read_text().splitlines()]
    assert [m["verdicts"] for m in matrix] == verdicts


@needs_cli
def test_risk_bad_input(bench, tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_text('{"id": "no-such-prompt", "answer": "x"}\n')
    r = run("risk", bench / "prompts.jsonl", p, check=False)
    assert r.returncode == 2 and "unknown prompt id" in r.stderr
    r = run("risk", bench / "prompts.jsonl", check=False)
    assert r.returncode == 2


@needs_cli
def test_risk_from_an_external_verifier(tmp_path):
    p = tmp_path / "u.jsonl"
    p.write_text(json.dumps({"id": "a", "utilities": [[1, 1], [0, 1]]}) + "\n" +
                 json.dumps({"id": "b", "utilities": [[0, 0], [0, 0]], "reu": 0.5}) + "\n")
    res = json.loads(run("risk", "--utilities", p, "--json").stdout)
    assert res["L"] == 2 and not res["deterministic_verifier"]
    assert res["deu"] == pytest.approx((1 + 0.5 + 0 + 0) / 4)
    assert res["readings"]["certified"]["rvr"] == pytest.approx(((1 - 0.75) + (0.5 - 0)) / 2)


@needs_cli
@pytest.mark.parametrize("record", ['{"id": "b", "utilities": [0, 1], "reu": 1.5}',
                                    '{"id": "b", "utilities": [0, 1.5]}',
                                    '{"id": "b", "utilities": [0, []]}'])
def test_risk_bad_utilities_are_one_line_and_exit_2(tmp_path, record):
    p = tmp_path / "u.jsonl"
    p.write_text('{"id": "a", "utilities": [1, 0]}\n' + record + "\n")
    out = tmp_path / "m.jsonl"
    r = run("risk", "--utilities", p, "-o", out, check=False)
    assert r.returncode == 2 and r.stdout == "" and not out.exists()
    assert len(r.stderr.strip().splitlines()) == 1 and f"{p}:2:" in r.stderr


@needs_cli
def test_risk_prints_rvr_per_budget_and_the_bootstrap_mean(tmp_path):
    p = tmp_path / "u.jsonl"
    p.write_text("".join(json.dumps({"id": str(i), "utilities": row}) + "\n" for i, row in
                         enumerate([[1, 0, 0, 1, 1, 0], [0, 0, 0, 0, 0, 1], [1, 1, 1, 1, 1, 1]])))
    text = " ".join(run("risk", "--utilities", p).stdout.split())
    assert "RVR per budget k" in text and "bootstrap mean" in text
    res = json.loads(run("risk", "--utilities", p, "--json").stdout)
    assert [c["k"] for c in res["k_curve"]] == [1, 2, 4, 6]
    # k = 2: first two samples (1, 0), (0, 0), (1, 1): DEU_2 = 1/2, best-of-2 = 2/3
    assert res["k_curve"][1]["rvr_best_of_k"] == pytest.approx(2 / 3 - 1 / 2)
    table = run("risk", "--utilities", p).stdout
    for k, best in ((1, "0.667"), (2, "0.667"), (4, "0.667"), (6, "1.000")):
        assert re.search(rf"│\s*{k}\s*│\s*{best}\s*│", table), k


@needs_cli
def test_both_reports_open_in_headless_chromium(bench, tmp_path):
    require_chromium()
    from prefcert.generators.consistency import paper_design, simulate_responses
    _answers(bench, tmp_path / "answers.jsonl")
    risk_page = tmp_path / "risk.html"
    run("risk", bench / "prompts.jsonl", tmp_path / "answers.jsonl", "--by", "task",
        "--report", risk_page)
    design = paper_design(1)
    (tmp_path / "design.json").write_text(json.dumps({k: v for k, v in design.items()
                                                      if k != "truth"}))
    sim = simulate_responses(design, {"m": {"noise": 9, "distortion": 25, "step_bias": 4}},
                             completions=5)
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in sim))
    audit_page = tmp_path / "audit.html"
    run("consistency", tmp_path / "r.jsonl", "--design", tmp_path / "design.json",
        "--resamples", "500", "--report", audit_page)
    seen = {}
    with headless_page(tmp_path) as (page, errors):
        for path in (risk_page, audit_page):
            html = path.read_text()
            assert "<script" not in html
            page.goto(path.as_uri())
            page.wait_for_load_state("load")
            boxes = page.eval_on_selector_all(
                "figure.plot svg", "els => els.map(e => {const r = e.getBoundingClientRect();"
                                   " return [r.width, r.height]})")
            titles = page.eval_on_selector_all("figure.plot", "els => els.map(e => e.dataset.title)")
            assert len(boxes) == html.count('<figure class="plot"')
            assert all(w > 100 and h > 100 for w, h in boxes)
            seen[path.name] = titles
    assert errors == []
    assert any("both readings" in t for t in seen["risk.html"])
    assert any("pass@k" in t for t in seen["risk.html"])
    audit_titles = " | ".join(seen["audit.html"])
    for needle in ("Residual distributions", "Fitted utilities", "stress test", "threshold"):
        assert needle in audit_titles, needle


@needs_cli
@pytest.mark.parametrize("name", ["indeterminacy-preference", "voting-manipulation",
                                  "actionable-indeterminacy"])
def test_every_suite_certifies_its_rational_answer(name, tmp_path):
    """prefcert verifies answers of every question type it certifies (queries, elections,
    decisions here; matching and allocation above): every gold answer scores correct on
    checked labels, so REU = 1 is certified for every prompt."""
    from prefcert.bench.suites import suite
    out = tmp_path / "b"
    run("generate", name, "-o", out, "--per-cell", "1", "--sizes", str(min(suite(name).sizes)))
    prompts = [json.loads(x) for x in (out / "prompts.jsonl").read_text().splitlines()]
    answers = tmp_path / "a.jsonl"
    answers.write_text("".join(json.dumps({"id": p["id"], "answer": p["answer"]}) + "\n"
                               for p in prompts))
    res = json.loads(run("risk", out / "prompts.jsonl", answers, "--json").stdout)
    assert res["M"] == len(prompts) and res["uncertified_prompts"] == 0
    assert res["deu"] == 1 and res["readings"]["certified"]["rvr"] == 0


# ------------------------------------------------------------------ the bootstrap in blocks

def test_bootstrap_blocks_are_the_numbers_of_one_draw():
    """The resample indices drawn a block of rows at a time are those of one
    rng.integers(0, m, size=(resamples, m)) draw (the arrays of main's bootstraps), the
    generator ends in the same state, and no block holds more than the chunk (or one row)."""
    from prefcert.bench.stats import bootstrap_chunks, bootstrap_means
    for m in (1, 2, 7, 1001):
        values = np.random.default_rng(1).normal(size=m)
        for chunk in (1, 5, 64, 3000, 10**7):
            one = np.random.default_rng(9)
            whole = one.integers(0, m, size=(53, m))
            rng = np.random.default_rng(9)
            blocks = list(bootstrap_chunks(rng, m, 53, chunk))
            assert np.array_equal(np.concatenate([b for _, b in blocks]), whole)
            assert [s for s, _ in blocks] == list(range(0, 53, max(1, chunk // m)))
            assert max(b.size for _, b in blocks) <= max(chunk, m)
            assert rng.bit_generator.state == one.bit_generator.state
            old = values[np.random.default_rng(4).integers(0, m, size=(53, m))].mean(1)
            new = bootstrap_means(values, 53, np.random.default_rng(4), chunk)
            assert np.array_equal(new, old)


def test_every_bootstrap_gives_the_same_numbers_in_blocks_of_any_size(monkeypatch):
    """The risk estimate, the paired model comparison, the consistency audit's residual
    bootstrap and the voting metrics' cluster bootstrap: byte-identical results whether the
    draws come in blocks of 7 indices or in one block (the unchunked draw)."""
    from prefcert.bench import stats
    from prefcert.bench.rational_value_risk.results import paired_table
    from prefcert.bench.self_consistency.audit import resample_means
    from prefcert.bench.voting_manipulation.ballots import metric
    rng = np.random.default_rng(3)
    u = rng.integers(0, 2, size=(37, 5)).tolist()
    scored = {m: [{"id": f"p{i}", "utilities": rng.random(4).tolist(), "reu_certified": 1.0}
                  for i in range(29)] for m in ("a", "b")}
    votes = [{"instance_id": f"i{i % 11}", "rule": "borda", "m": 3,
              "stratum": "manipulable" if i % 3 else "non_manipulable", "S": i % 2,
              "O": (i // 2) % 2, "valid": i % 5 != 0, "sincere": i % 4 == 0,
              "outcome_changed": bool(i % 3), "delta": (i % 3) - 1 if i % 5 else None,
              "gap": i % 2} for i in range(60)]
    values = rng.normal(size=15)

    def everything():
        return (json.dumps(rational_value_risk(u, resamples=301, seed=5), sort_keys=True),
                json.dumps(paired_table(scored, resamples=301, seed=5).as_dict(),
                           sort_keys=True, default=str),
                [x.tolist() for x in resample_means(values, 301, np.random.default_rng(2),
                                                    want_ss=True)],
                [metric(votes, name, replicates=301, seed=5)
                 for name in ("MDR", "OMR", "FMR_ballot")])
    monkeypatch.setattr(stats, "BOOTSTRAP_CHUNK", 10**9)      # one block: the old draw
    whole = everything()
    monkeypatch.setattr(stats, "BOOTSTRAP_CHUNK", 7)
    assert everything() == whole


def test_the_risk_bootstrap_memory_does_not_grow_with_the_resamples(tmp_path):
    """100,000 resamples of 1,000 prompts held 100,000 × 1,000 indices and as many
    values at once (1.6 GB): a MemoryError under a 1 GiB address space. Drawn in blocks,
    the estimate runs within it."""
    import resource
    import subprocess
    import sys
    code = ("import numpy as np\n"
            "from prefcert.bench.rational_value_risk.risk import rational_value_risk\n"
            "u = np.random.default_rng(0).integers(0, 2, size=(1000, 2)).tolist()\n"
            "r = rational_value_risk(u, resamples=100_000, seed=1)\n"
            "print(r['resamples'])\n")

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       preexec_fn=cap, timeout=600,
                       env={**__import__("os").environ, "OPENBLAS_NUM_THREADS": "1",
                            "OMP_NUM_THREADS": "1"})
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["100000"]
