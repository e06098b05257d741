"""Stable matching: CP-SAT and z3 encodings, exhaustive enumeration, oracle and generator,
pitted against each other and against the definitions in ``prefcert.formal.stable_matching`` on random SMTI
markets with up to 6 agents a side (ALGORITHMS.md §6, "Testing advice").

The number of random markets cross-checked is printed at the end of the run (pytest -s)
and written to ``.pytest_cache/smti_crosscheck_count.json``.
"""
import atexit
import collections
import json
from pathlib import Path

import pytest
from conftest import SHARED_DATA, heavy_examples, smti_markets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prefcert.encodings.stable_matching import (
    stable_matching_cpsat_model,
    stable_matching_z3_model,
    stable_matching_cpsat,
    stable_matching_z3,
)
from prefcert.formal import checker
from prefcert.formal.checker.stable_matching import blocking_pairs
from prefcert.formal.errors import CertificateError
from prefcert.formal.stable_matching import NOTIONS, QUESTIONS, parse_market
from prefcert.generators.stable_matching import sample_smti
from prefcert.oracles import stable_matching as orc
from prefcert.oracles.stable_matching_brute_force import (
    all_matchings,
    brute_force_stable_matching,
    stable_matchings,
)

from prefcert.domains.base import Outcome
from prefcert.pipeline.registry import spec

QUESTION = {notion: q for q, notion in QUESTIONS.items()}
LIMIT = 20.0                      # seconds per solver call; tiny models finish in ms
COUNT: collections.Counter = collections.Counter()


def _report():
    if COUNT:
        line = ", ".join(f"{k}: {v}" for k, v in sorted(COUNT.items()))
        print(f"\n[smti cross-check] random markets per property: {line}")
        try:
            out = Path(__file__).resolve().parents[1] / ".pytest_cache"
            out.mkdir(exist_ok=True)
            (out / "smti_crosscheck_count.json").write_text(json.dumps(dict(COUNT)))
        except OSError:
            pass


atexit.register(_report)


def _key(m: dict) -> tuple:
    return tuple(sorted(m.items()))


def _check(market, notion, verdict, solution, certificate):
    checker.check(spec("stable_matching"), market, QUESTION[notion], None, verdict, solution,
                  certificate or {})


def _oracle(market, notion):
    """(matching or None, refutation or None) from the lead's oracles."""
    if notion == "weak":
        return orc.weakly_stable_matching(market), None
    search = orc.super_stable_search if notion == "super" else orc.strongly_stable_search
    return search(market)


# ------------------------------------------------------------------ enumeration


@given(smti_markets(max_side=5))
def test_pruned_enumeration_equals_filtered_enumeration(market):
    """stable_matchings (pruned search) = all matchings without a blocking pair
    (prefcert.formal.stable_matching.blocking_pairs), as sequences, for every notion."""
    every = list(all_matchings(market))
    assert len({_key(m) for m in every}) == len(every)          # no duplicates
    for m in every:                                             # all valid matchings
        blocking_pairs(market, m, "weak")
    for notion in NOTIONS:
        assert list(stable_matchings(market, notion)) == \
            [m for m in every if not blocking_pairs(market, m, notion)]
    COUNT["enumeration"] += 1


def test_all_matchings_counts_complete_bipartite():
    """K_{n,n} has Σ_k C(n,k)² k! matchings (OEIS A002720: 1, 2, 7, 34, 209)."""
    for n, expected in [(1, 2), (2, 7), (3, 34), (4, 209)]:
        inst = sample_smti(n, tie_prob=0.5, seed=n)
        assert sum(1 for _ in all_matchings(parse_market(inst))) == expected


# ------------------------------------------------------------------ engines agree


def _engines(market, notion, forms=("ladder",)):
    out = {"brute_force": brute_force_stable_matching(market, notion, time_limit=LIMIT, seed=0)}
    for form in forms:
        out[f"cpsat-{form}"] = stable_matching_cpsat(market, notion, time_limit=LIMIT, seed=0,
                                                     form=form)
        out[f"z3-{form}"] = stable_matching_z3(market, notion, time_limit=LIMIT, seed=0,
                                               form=form)
    return out


def _agree(market, forms):
    for notion in NOTIONS:
        stable = {_key(m) for m in stable_matchings(market, notion)}
        verdict = "exists" if stable else "none"
        answers = _engines(market, notion, forms)
        matching, refutation = _oracle(market, notion)
        answers["oracle"] = Outcome("exists", matching, {"type": "stable_matching"}) \
            if matching is not None else Outcome("none", None, refutation)
        for name, o in answers.items():
            assert o.verdict == verdict, (notion, name, o.verdict, sorted(stable))
            if verdict == "exists":
                assert blocking_pairs(market, o.solution, notion) == [], (notion, name)
                assert _key(o.solution) in stable, (notion, name, o.solution)
                _check(market, notion, "exists", o.solution, o.certificate)
        if verdict == "none" and notion != "weak":
            # The oracle's refutation must be accepted by the trusted checker.
            _check(market, notion, "none", None, refutation)
        assert notion != "weak" or verdict == "exists"          # weak always exists


@given(smti_markets(max_side=6))
def test_oracle_cpsat_z3_brute_force_agree(market):
    """oracle = CP-SAT = z3 = brute force on existence, every witness stable and checked,
    every oracle refutation accepted by prefcert.formal.checker; all three notions."""
    _agree(market, forms=("ladder",))
    COUNT["oracle=cpsat=z3=brute_force (ladder)"] += 1


@settings(max_examples=60)
@given(smti_markets(max_side=6))
def test_row_form_agrees(market):
    """The literal §6 rows (form "rows") give the same answers as everything else."""
    _agree(market, forms=("rows",))
    COUNT["oracle=cpsat=z3=brute_force (rows)"] += 1


@pytest.mark.heavy
@settings(max_examples=heavy_examples(1000, 200))
@given(smti_markets(max_side=6))
def test_engines_agree_heavy(market):
    _agree(market, forms=("ladder", "rows"))
    COUNT["heavy: all engines, both forms"] += 1


# ------------------------------------------------------------------ structure


@given(smti_markets(max_side=6))
def test_nesting_and_same_agents(market):
    """super ⊆ strong ⊆ weak on the brute-force sets; all super-stable (resp. strongly
    stable) matchings match the same agents (Manlove 2002)."""
    sets = {n: {_key(m) for m in stable_matchings(market, n)} for n in NOTIONS}
    assert sets["super"] <= sets["strong"] <= sets["weak"]
    assert sets["weak"]
    for notion in ("super", "strong"):
        covered = {(frozenset(a for a, _ in m), frozenset(b for _, b in m)) for m in sets[notion]}
        assert len(covered) <= 1, (notion, covered)
    COUNT["nesting/same-agents"] += 1


@given(smti_markets(max_side=6), st.randoms(use_true_random=False))
def test_checker_rejects_unstable_matchings(market, rnd):
    """Any matching outside the brute-force stable set is rejected by the checker, and the
    checker rejects a refutation log for a market that has a stable matching."""
    every = list(all_matchings(market)) if market.size <= 5 else None
    for notion in NOTIONS:
        stable = {_key(m) for m in stable_matchings(market, notion)}
        if every:
            m = rnd.choice(every)
            if _key(m) not in stable:
                with pytest.raises(CertificateError):
                    _check(market, notion, "exists", m, {"type": "stable_matching"})
            else:
                _check(market, notion, "exists", m, {"type": "stable_matching"})
        if notion != "weak" and stable:
            for steps in ([], [["critical"]]):
                with pytest.raises(CertificateError):
                    _check(market, notion, "none", None, {"type": "deletion_log", "steps": steps})
    COUNT["checker rejection"] += 1


@given(smti_markets(max_side=5), st.data())
def test_checker_never_accepts_a_forged_refutation(market, data):
    """Soundness of check_deletion_log: for a market that has a super- (strongly) stable
    matching, no deletion log, however its steps are drawn, is accepted."""
    a_side, b_side = sorted(market.a), sorted(market.b)
    if not a_side or not b_side:
        return
    step = st.one_of(
        st.tuples(st.just("dominate"), st.sampled_from(b_side), st.sampled_from(a_side)),
        st.tuples(st.just("dominate"), st.sampled_from(b_side), st.sampled_from(a_side),
                  st.sampled_from(a_side)),
        st.just(("critical",)))
    for notion in ("super", "strong"):
        if next(stable_matchings(market, notion), None) is None:
            continue
        steps = [list(s) for s in data.draw(st.lists(step, max_size=12), label=notion)]
        with pytest.raises(CertificateError):
            _check(market, notion, "none", None, {"type": "deletion_log", "steps": steps})
    COUNT["forged refutations"] += 1


# ------------------------------------------------------------------ engine details


def test_models_have_expected_shape():
    """One Bool per admissible pair, one clause per pair (two for strong) in both models."""
    market = parse_market({"preferences": {"A": {"m1": [["w1", "w2"]], "m2": ["w1", "w2"]},
                                           "B": {"w1": [["m1", "m2"]], "w2": ["m1"]}}})
    for notion, clauses in (("weak", 3), ("super", 3), ("strong", 6)):
        model, x = stable_matching_cpsat_model(market, notion, form="rows")
        assert set(x) == {("m1", "w1"), ("m1", "w2"), ("m2", "w1")}
        proto = model.Proto()
        assert sum(1 for c in proto.constraints if len(c.bool_or.literals)) == clauses
        text, pairs = stable_matching_z3_model(market, notion, form="rows")
        assert text.count("(assert (or") == clauses and len(pairs) == 3
    with pytest.raises(ValueError):
        stable_matching_cpsat(market, "medium", time_limit=1, seed=0)
    with pytest.raises(ValueError):
        stable_matching_z3(market, "weak", time_limit=1, seed=0, form="dense")


def test_timeout_gives_unknown():
    """A time limit too small to finish gives ``unknown``, never a verdict."""
    everyone_tied = {"preferences": {
        "A": {f"m{i}": [[f"w{j}" for j in range(8)]] for i in range(8)},
        "B": {f"w{j}": [[f"m{i}" for i in range(8)]] for j in range(8)}}}
    out = brute_force_stable_matching(parse_market(everyone_tied), "super", time_limit=0.0, seed=0)
    assert out.verdict == "unknown" and out.solution is None and out.stats["nodes"] == 1
    market = parse_market(sample_smti(150, tie_prob=0.2, seed=7))
    out = stable_matching_z3(market, "strong", time_limit=0.001, seed=0)
    assert out.verdict == "unknown" and out.solution is None


def test_stats_reported():
    market = parse_market(sample_smti(8, tie_prob=0.3, truncate=True, seed=3))
    for fn in (stable_matching_cpsat, stable_matching_z3):
        out = fn(market, "weak", time_limit=LIMIT, seed=0)
        assert out.verdict == "exists" and out.stats["pair_vars"] == sum(1 for _ in market.edges())
        assert out.certificate == {"type": "stable_matching"}


# ------------------------------------------------------------------ reference instances


REFERENCE = SHARED_DATA / "reference"
BUNDLED = Path(__file__).resolve().parents[1] / "instances" / "stable_matching"


def _published(exp: dict) -> dict:
    """notion -> published list of all stable matchings (only where the file lists all)."""
    out = {}
    if "stable_matchings" in exp:
        out = {n: exp["stable_matchings"] for n in NOTIONS}
    for key, notion in (("weakly_stable", "weak"), ("strongly_stable", "strong"),
                        ("super_stable", "super")):
        if key in exp:
            out[notion] = exp[key]
    if exp.get("super_stable_exists") is False:
        out["super"] = []
    return out


MATCHING_REFS = [p for p in sorted(REFERENCE.glob("*.json"))
                 if json.loads(p.read_text())["kind"].startswith("stable_marriage")]


def test_reference_matching_files_present():
    assert len(MATCHING_REFS) >= 7


@pytest.mark.parametrize("path", MATCHING_REFS, ids=lambda p: p.stem)
def test_reference_answers_by_enumeration_and_encodings(path):
    ref = json.loads(path.read_text())
    market = parse_market(ref["design_md_instance"])
    exp = ref["expected"]
    for notion, listed in _published(exp).items():
        got = sorted(map(_key, stable_matchings(market, notion)))
        assert got == sorted(map(_key, listed)), (notion, got)
        for name, o in _engines(market, notion, ("ladder", "rows")).items():
            assert o.verdict == ("exists" if listed else "none"), (notion, name)
    if "number_of_stable_matchings" in exp:
        assert sum(1 for _ in stable_matchings(market, "weak")) == exp["number_of_stable_matchings"]
    if "max_weakly_stable_size" in exp:
        sizes = [len(m) for m in stable_matchings(market, "weak")]
        assert max(sizes) == exp["max_weakly_stable_size"]
        if "min_weakly_stable_size" in exp:
            assert min(sizes) == exp["min_weakly_stable_size"]


def test_bundled_reference_jsonl_matches_sources():
    """instances/stable_matching/reference.jsonl holds every stable_marriage* reference file,
    unchanged, with the three questions; SOURCES.md names each."""
    lines = [json.loads(t) for t in (BUNDLED / "reference.jsonl").read_text().splitlines() if t]
    want = {}
    for f in REFERENCE.glob("*.json"):
        ref = json.loads(f.read_text())
        if ref["kind"].startswith("stable_marriage"):
            want[ref["id"]] = ref["design_md_instance"]
    assert {d["id"] for d in lines} == set(want)
    sources = (BUNDLED / "SOURCES.md").read_text()
    for d in lines:
        q = d.pop("questions")
        assert sorted(q) == sorted(QUESTIONS) and d == want[d["id"]]
        assert f"`{d['id']}`" in sources


# ------------------------------------------------------------------ generator


@given(st.integers(1, 12), st.integers(1, 12), st.sampled_from([0.0, 0.2, 1.0]), st.booleans(),
       st.integers(0, 2**31))
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_generator_shape(n_a, n_b, p, trunc, seed):
    inst = sample_smti(n_a, n_b, tie_prob=p, truncate=trunc, seed=seed)
    assert inst == sample_smti(n_a, n_b, tie_prob=p, truncate=trunc, seed=seed)   # deterministic
    market = parse_market(inst)                                                    # well-formed
    assert list(market.a) == [f"A{i}" for i in range(1, n_a + 1)]
    assert list(market.b) == [f"B{j}" for j in range(1, n_b + 1)]
    for prefs, n in ((market.a, n_b), (market.b, n_a)):
        for o in prefs.values():
            if trunc:
                assert n // 2 <= len(o) <= n
            else:
                assert len(o) == n
            if p == 0.0:
                assert o.is_strict()
            if p == 1.0:
                assert len(o.ties) <= 1
    assert inst["domain"] == "stable_matching"


def test_generator_varies_with_seed_and_rejects_bad_input():
    assert sample_smti(6, seed=1) != sample_smti(6, seed=2)
    with pytest.raises(ValueError):
        sample_smti(4, tie_prob=1.5, seed=0)
    with pytest.raises(ValueError):
        sample_smti(-1, seed=0)


def test_generator_impartial_culture_first_choices_uniform():
    """Under impartial culture each B-agent is first on a list with probability 1/n:
    a loose chi-square bound over 200 markets (fixed seeds, so deterministic)."""
    n, counts = 5, collections.Counter()
    for s in range(200):
        inst = sample_smti(n, seed=s)
        for lst in inst["preferences"]["A"].values():
            counts[lst[0]] += 1
    total = sum(counts.values())
    chi2 = sum((counts[f"B{j}"] - total / n) ** 2 / (total / n) for j in range(1, n + 1))
    assert chi2 < 25                      # p ≈ 5e-5 at 4 degrees of freedom


def test_bundled_generated_files_reproducible():
    """The bundled n=10 file is what scripts/make_bundled.py produces for its seeds."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "make_bundled", Path(__file__).resolve().parents[1] / "scripts" / "make_bundled.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    generated_instances = script.generated_instances
    lines = [json.loads(t) for t in (BUNDLED / "generated-n10.jsonl").read_text().splitlines() if t]
    assert lines == generated_instances("generated-n10.jsonl")
    head = (BUNDLED / "generated-n1000.json").read_text()[:2000]
    assert "\n" not in head and '"domain":"stable_matching"' in head
