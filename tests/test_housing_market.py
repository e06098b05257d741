"""Shapley–Scarf housing markets: oracle vs encodings vs brute force, checker soundness,
reference instances with published answers, bad input.
"""
from __future__ import annotations

import copy
import functools
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED_DATA, heavy_examples, PREFCERT
from hypothesis import given, settings
from hypothesis import strategies as st
from prefcert.encodings.housing_market import core_cpsat, core_z3, strict_core_milp
from prefcert.formal import checker
from prefcert.formal.checker.housing_market import (
    SPEC,
    blocked_arc,
    check_blocking_coalition,
    check_potentials,
    check_refutation,
    check_segmentation,
    in_strict_core,
    in_weak_core,
    ir_violators,
    is_individually_rational,
    is_pareto_optimal,
)
from prefcert.formal.errors import CertificateError, Disagreement, InstanceError
from prefcert.formal.housing_market import as_allocation, parse_housing_market
from prefcert.generators.housing_market import sample_housing_market
from prefcert.oracles.housing_market import (
    blocking_coalitions,
    blocking_cycle,
    brute_force_cores,
    refine,
    strict_core,
    top_trading_cycles,
)

from prefcert.domains.housing_market import classify
from prefcert.pipeline.registry import spec

#: check(model, question, params, verdict, solution, certificate) through the domain's SPEC
check_certificate = functools.partial(checker.check, SPEC)

REFERENCE = SHARED_DATA / "reference"


# ------------------------------------------------------------------ strategies and helpers

@st.composite
def markets(draw, max_agents: int = 7, ties: bool = True, complete: bool = False,
            tie_odds: int = 2):
    """Random housing markets: agent a_k owns h_k; lists are random subsets (or all houses)
    in random order, adjacent items merged into ties (odds 1 : ``tie_odds``), own house
    listed or not."""
    n = draw(st.integers(1, max_agents))
    houses = [f"h{k}" for k in range(n)]
    prefs = {}
    for k in range(n):
        if complete:
            chosen = houses
        else:
            chosen = [h for h in houses if draw(st.booleans())]
        order = draw(st.permutations(chosen))
        groups: list[list[str]] = []
        for h in order:
            if groups and ties and draw(st.integers(0, tie_odds)) == 0:
                groups[-1].append(h)
            else:
                groups.append([h])
        prefs[f"a{k}"] = [g[0] if len(g) == 1 else g for g in groups]
    return {"domain": "housing_market", "preferences": prefs,
            "endowment": {f"a{k}": houses[k] for k in range(n)}}


def all_allocations(m):
    houses = [m.endowment[a] for a in m.agents]
    for perm in itertools.permutations(houses):
        yield dict(zip(m.agents, perm))


def key(x):
    return tuple(sorted(x.items()))


def ranks(m, x):
    return tuple(m.rank(a, x[a]) for a in m.agents)


def pareto_dominated_bf(m, x):
    rx = ranks(m, x)
    for y in all_allocations(m):
        ry = ranks(m, y)
        if all(b <= a for a, b in zip(rx, ry)) and ry != rx:
            return True
    return False


def minimal_blocking_bf(m, x, notion):
    """Brute force: vertex sets of all inclusion-minimal blocking coalitions."""
    agents = list(m.agents)
    blocking = set()
    for r in range(1, len(agents) + 1):
        for coal in itertools.combinations(agents, r):
            own = [m.endowment[a] for a in coal]
            for perm in itertools.permutations(own):
                new = [m.rank(a, h) for a, h in zip(coal, perm)]
                old = [m.rank(a, x[a]) for a in coal]
                if notion == "weak":
                    ok = all(p < q for p, q in zip(new, old))
                else:
                    ok = all(p <= q for p, q in zip(new, old)) and new != old
                if ok:
                    blocking.add(frozenset(coal))
                    break
    return {c for c in blocking if not any(d < c for d in blocking)}


# ------------------------------------------------------------------ reference instances

def reference_files():
    return sorted(REFERENCE.glob("hm_*.json"))


@pytest.mark.parametrize("path", reference_files(), ids=lambda p: p.stem)
def test_reference_instances(path):
    ref = json.loads(path.read_text())
    data = ref.get("design_md_instance") or {"preferences": ref["preferences"],
                                            "endowment": ref["endowment"]}
    m = parse_housing_market(data)
    exp = ref["expected"]
    weak, strict = brute_force_cores(m)
    res = strict_core(m)
    checked = 0
    if "strict_core_empty" in exp:
        assert (res.allocation is None) == exp["strict_core_empty"]
        checked += 1
    if "strict_core" in exp:
        assert {key(x) for x in exp["strict_core"]} == {key(x) for x in strict}
        assert (res.allocation is None) == (not exp["strict_core"])
        if res.allocation is not None:
            assert key(res.allocation) in {key(x) for x in exp["strict_core"]}
        for x in exp["strict_core"]:
            assert in_strict_core(m, x)
        checked += 1
    if "strict_core_size" in exp:
        assert len(strict) == exp["strict_core_size"]
        checked += 1
    if "core" in exp:
        assert {key(x) for x in exp["core"]} == {key(x) for x in weak}
        for x in exp["core"]:
            assert in_weak_core(m, x)
        checked += 1
    if "core_size" in exp:
        assert len(weak) == exp["core_size"]
        checked += 1
    if "individually_rational_allocations" in exp:
        n_ir = sum(1 for x in all_allocations(m) if is_individually_rational(m, x))
        assert n_ir == exp["individually_rational_allocations"]
        checked += 1
    assert checked, f"no expected answer of {path.name} was checked"
    if res.allocation is None:
        check_segmentation(m, res.certificate)
    else:
        check_certificate(m, "strict_core", None, "exists", res.allocation,
                          {"type": "core_allocation"})
    assert in_weak_core(m, top_trading_cycles(m))


@pytest.mark.parametrize("path", reference_files(), ids=lambda p: p.stem)
def test_reference_pipeline(path):
    """The label pipeline gives the published strict-core verdict, all engines agreeing."""
    from prefcert.formal.instances import from_object

    from prefcert.pipeline.jobs import label, plan
    ref = json.loads(path.read_text())
    data = dict(ref.get("design_md_instance") or {"preferences": ref["preferences"],
                                                 "endowment": ref["endowment"]},
                domain="housing_market", id=ref["id"])
    exp = ref["expected"]
    empty = exp.get("strict_core_empty", not exp.get("strict_core", [None]))
    for job in plan([from_object(data, str(path), None, ref["id"])],
                    ["strict_core", "weak_core"]):
        lab = label(job, time_limit=30)
        assert lab["checked"]
        assert {e["verdict"] for e in lab["engines"]} == {lab["verdict"]}
        if lab["question"] == "strict_core":
            assert lab["verdict"] == ("none" if empty else "exists")
        else:
            assert lab["verdict"] == "exists"


# ------------------------------------------------------------------ cross-checks

@given(st.one_of(markets(), markets(complete=True, tie_odds=1)))
def test_strict_core_engines_agree(data):
    _strict_core_cross_check(parse_housing_market(data))


@settings(max_examples=100)
@given(st.integers(5, 7), st.integers(0, 10**6), st.sampled_from([0.3, 0.5]))
def test_strict_core_engines_agree_on_sampled_markets(n, seed, tie_prob):
    """Impartial culture with ties: about a third of these strict cores are empty."""
    _strict_core_cross_check(parse_housing_market(
        sample_housing_market(n, seed=seed, tie_prob=tie_prob)))


@pytest.mark.heavy
@settings(max_examples=heavy_examples(60, 15))
@given(st.integers(0, 10**6), st.sampled_from([0.2, 0.4]),
       st.sampled_from(["none", "random"]))
def test_strict_core_engines_agree_eight_agents(seed, tie_prob, truncate):
    """The largest size brute force covers (8 agents)."""
    _strict_core_cross_check(parse_housing_market(
        sample_housing_market(8, seed=seed, tie_prob=tie_prob, truncate=truncate)))


def _strict_core_cross_check(m):
    weak, strict = brute_force_cores(m)
    res = strict_core(m)
    assert (res.allocation is not None) == bool(strict)
    if res.allocation is None:
        check_certificate(m, "strict_core", None, "none", None, res.certificate)
    else:
        assert key(res.allocation) in {key(x) for x in strict}
        check_certificate(m, "strict_core", None, "exists", res.allocation,
                          {"type": "core_allocation"})
    for name, r in (("cpsat", core_cpsat(m, "strict", time_limit=20)),
                    ("z3", core_z3(m, "strict", time_limit=20)),
                    ("milp", strict_core_milp(m, time_limit=20))):
        assert r.status == ("feasible" if strict else "infeasible"), name
        if r.allocation is not None:
            assert key(r.allocation) in {key(x) for x in strict}, name
            if r.potentials is not None:
                check_potentials(m, r.allocation, "strict", r.potentials)
    # strict-core allocations are welfare-equivalent (Wako 1991 via Quint & Wako 2004)
    assert len({ranks(m, x) for x in strict}) <= 1
    # the strict core is inside the weak core
    assert {key(x) for x in strict} <= {key(x) for x in weak}


@given(markets())
def test_weak_core_engines_agree(data):
    m = parse_housing_market(data)
    weak, strict = brute_force_cores(m)
    assert weak, "the weak core is never empty"
    wkeys = {key(x) for x in weak}
    x = top_trading_cycles(m)
    assert key(x) in wkeys
    assert in_weak_core(m, x) and is_individually_rational(m, x)
    check_certificate(m, "weak_core", None, "exists", x, {"type": "core_allocation"})
    # any priority order gives a weak-core allocation
    rev = [m.endowment[a] for a in reversed(m.agents)]
    assert key(top_trading_cycles(m, tie_break=rev)) in wkeys
    for name, r in (("cpsat", core_cpsat(m, "weak", time_limit=20)),
                    ("z3", core_z3(m, "weak", time_limit=20))):
        assert r.status == "feasible", name
        assert key(r.allocation) in wkeys, name
        check_potentials(m, r.allocation, "weak", r.potentials)


@given(markets(ties=False))
def test_ttc_unique_core_with_strict_preferences(data):
    """Roth & Postlewaite 1977: with strict preferences the strict core is exactly {TTC}.

    (The weak core can be larger: a coalition where one member is indifferent does not
    block weakly — hypothesis found a 3-agent example — so only membership is asserted.)"""
    m = parse_housing_market(data)
    weak, strict = brute_force_cores(m)
    x = top_trading_cycles(m)
    assert key(x) in {key(y) for y in weak}
    assert [key(y) for y in strict] == [key(x)]
    assert key(strict_core(m).allocation) == key(x)


@settings(max_examples=60)
@given(markets(max_agents=6))
def test_strict_core_is_pareto_optimal(data):
    m = parse_housing_market(data)
    _, strict = brute_force_cores(m)
    for x in strict:
        assert is_pareto_optimal(m, x)
        assert not pareto_dominated_bf(m, x)


@settings(max_examples=60)
@given(markets(max_agents=5))
def test_membership_and_blocking_coalitions_match_brute_force(data):
    m = parse_housing_market(data)
    weak, strict = brute_force_cores(m)
    wk, sk = {key(x) for x in weak}, {key(x) for x in strict}
    for x in all_allocations(m):
        assert in_weak_core(m, x) == (key(x) in wk)
        assert in_strict_core(m, x) == (key(x) in sk)
        cls = classify(m, x)
        assert cls["weak_core"]["holds"] == (key(x) in wk)
        assert cls["strict_core"]["holds"] == (key(x) in sk)
        assert cls["individually_rational"]["holds"] == all(
            m.rank(a, x[a]) <= m.rank(a, m.endowment[a]) for a in m.agents)
        assert cls["pareto_optimal"]["holds"] == (not pareto_dominated_bf(m, x))
        for notion, c in cls.items():
            if not c["holds"]:
                check_refutation(m, x, notion, c["certificate"])
    # minimal blocking coalitions of a few allocations, exactly as brute force finds them
    for x in itertools.islice(all_allocations(m), 6):
        for notion in ("weak", "strict"):
            got = blocking_coalitions(m, x, notion)
            assert got.complete
            for c in got.coalitions:
                check_blocking_coalition(m, x, notion, c["coalition"], c["reallocation"])
            assert {frozenset(c["coalition"]) for c in got.coalitions} == \
                minimal_blocking_bf(m, x, notion)


# ------------------------------------------------------------------ the checker rejects

@given(st.one_of(markets(), markets(complete=True, tie_odds=1)))
def test_checker_rejects_corrupted_certificates(data):
    m = parse_housing_market(data)
    weak, strict = brute_force_cores(m)
    res = strict_core(m)
    rejected = 0
    if res.allocation is None:
        cert = res.certificate
        bad = []
        c = copy.deepcopy(cert)
        c["hall_violator"] = list(cert["segments"][-1])[:1] if len(
            cert["hall_violator"]) > 1 else cert["segments"][-1]
        bad.append(c)                                      # no Hall violation
        c = copy.deepcopy(cert)
        last = c["segments"][-1]
        if len(last) > 1:
            c["segments"][-1] = last[1:]                   # not closed or not the same
            c["hall_violator"] = [a for a in c["hall_violator"] if a in last[1:]] or last[1:]
            bad.append(c)
        c = copy.deepcopy(cert)
        c["segments"] = c["segments"][::-1]
        if len(c["segments"]) > 1:
            bad.append(c)                                  # wrong order
        for c in bad:
            try:
                check_segmentation(m, c)
            except CertificateError:
                rejected += 1
                continue
            # an accepted variant must still be a sound proof: the strict core is empty
            assert not strict
    else:
        x = res.allocation
        skeys = {key(y) for y in strict}
        for a, b in itertools.combinations(m.agents, 2):
            y = dict(x)
            y[a], y[b] = y[b], y[a]
            if key(y) not in skeys:
                with pytest.raises(CertificateError):
                    check_certificate(m, "strict_core", None, "exists", y,
                                      {"type": "core_allocation"})
                rejected += 1
        with pytest.raises(CertificateError):
            check_certificate(m, "strict_core", None, "none", None,
                              {"type": "top_trading_segmentation",
                               "segments": [list(m.agents)], "hall_violator": list(m.agents)})
        rejected += 1
    # blocking coalitions: corrupt a real one
    x = dict(m.endowment)
    found = blocking_cycle(m, x, "strict")
    if found is not None and len(found[0]) > 1:
        coal, re = found
        with pytest.raises(CertificateError):
            check_blocking_coalition(m, x, "strict", coal, {a: x[a] for a in coal})
        with pytest.raises(CertificateError):
            check_blocking_coalition(m, x, "strict", coal[:-1], {a: re[a] for a in coal[:-1]})
        h = re[coal[0]]
        with pytest.raises(CertificateError):
            check_blocking_coalition(m, x, "strict", coal, {a: h for a in coal})
        rejected += 3
    # potentials that drop on an arc
    if len(m.agents) > 1 and weak:
        y = weak[0]
        flat = {a: 0 for a in m.agents}
        g_has_strict = blocking_cycle(m, y, "weak") is None and any(
            m.rank(a, m.endowment[b]) < m.rank(a, y[a]) for a in m.agents for b in m.agents)
        if g_has_strict:
            with pytest.raises(CertificateError):
                check_potentials(m, y, "weak", flat)
            rejected += 1


def test_segment_must_be_strongly_connected():
    """{a1, a2} is closed and Hall-deficient for top choices, but not strongly connected:
    a2 alone is the sink segment, and the strict core is not empty."""
    m = parse_housing_market({"preferences": {"a1": ["h2", "h1"], "a2": ["h2"]},
                              "endowment": {"a1": "h1", "a2": "h2"}})
    assert brute_force_cores(m)[1] == [{"a1": "h1", "a2": "h2"}]
    with pytest.raises(CertificateError, match="strongly connected"):
        check_segmentation(m, {"segments": [["a1", "a2"]], "hall_violator": ["a1", "a2"]})
    with pytest.raises(CertificateError):
        check_segmentation(m, {"segments": [["a2"], ["a1"]], "hall_violator": ["a1"]})


def test_checker_rejects_by_hand():
    m = parse_housing_market({"preferences": {"a1": ["h2", "h1"], "a2": [["h1", "h3"], "h2"],
                                              "a3": ["h2", "h3"]},
                              "endowment": {"a1": "h1", "a2": "h2", "a3": "h3"}})
    good = {"type": "top_trading_segmentation", "segments": [["a1", "a2", "a3"]],
            "hall_violator": ["a1", "a3"]}
    check_certificate(m, "strict_core", None, "none", None, good)
    checker.check(spec("housing_market"), m, "strict_core", None, "none", None, good)
    for bad in ({**good, "hall_violator": ["a1", "a2"]},
                {**good, "hall_violator": ["a1", "a3", "a4"]},
                {**good, "segments": [["a1", "a3"]]},
                {**good, "segments": [["a2"], ["a1", "a3"]]},
                {**good, "segments": [["a1", "a2", "a3", "a1"]]},
                {**good, "segments": []}):
        with pytest.raises(CertificateError):
            check_certificate(m, "strict_core", None, "none", None, bad)
    with pytest.raises(CertificateError):      # the weak core is never refuted this way
        check_certificate(m, "weak_core", None, "none", None, good)
    x = {"a1": "h2", "a2": "h1", "a3": "h3"}   # TTC: in the weak core, not the strict one
    check_certificate(m, "weak_core", None, "exists", x, {"type": "core_allocation"})
    with pytest.raises(CertificateError):
        check_certificate(m, "strict_core", None, "exists", x, {"type": "core_allocation"})
    with pytest.raises(CertificateError):
        check_certificate(m, "weak_core", None, "exists", x,
                          {"type": "core_allocation", "potentials": {"a1": 0, "a2": 0, "a3": 0}})
    check_certificate(m, "strict_core", None, "incorrect", x,
                      {"type": "blocking_coalition", "coalition": ["a2", "a3"],
                       "reallocation": {"a2": "h3", "a3": "h2"}})
    with pytest.raises(CertificateError):      # weakly, not strictly, better for a2
        check_certificate(m, "weak_core", None, "incorrect", x,
                          {"type": "blocking_coalition", "coalition": ["a2", "a3"],
                           "reallocation": {"a2": "h3", "a3": "h2"}})
    for bad_x in ({"a1": "h1", "a2": "h1", "a3": "h3"}, {"a1": "h1", "a2": "h2"},
                  {"a1": "h1", "a2": "h2", "a3": "h9"}, ["a1"]):
        with pytest.raises(CertificateError):
            as_allocation(m, bad_x)
        check_certificate(m, "strict_core", None, "incorrect", bad_x,
                          {"type": "not_an_allocation"})


@settings(max_examples=80)
@given(markets(), st.randoms(use_true_random=False))
def test_checker_and_engine_twins_agree(data, rnd):
    """The checker's plain-Python membership test and the engine's scipy blocking-cycle
    search (deliberate twins) agree; every cycle the engine finds passes the checker."""
    m = parse_housing_market(data)
    houses = [m.endowment[a] for a in m.agents]
    for _ in range(4):
        rnd.shuffle(houses)
        x = dict(zip(m.agents, houses))
        for notion, endowment in (("weak", None), ("strict", None), ("strict", x)):
            found = blocking_cycle(m, x, notion, endowment)
            assert (blocked_arc(m, x, notion, endowment) is None) == (found is None)
            if found is None:
                continue
            if endowment is None:
                check_blocking_coalition(m, x, notion, *found)
            else:
                check_refutation(m, x, "pareto_optimal", {
                    "type": "pareto_improvement", "allocation": {**x, **found[1]}})


def test_certificate_types_prove_exactly():
    """One check per certificate type; each proves only the (question, verdict) pairs it
    really proves."""
    assert {t: dict(c.proves) for t, c in SPEC.certificates.items()} == {
        "core_allocation": {"strict_core": ("exists",), "weak_core": ("exists",)},
        "top_trading_segmentation": {"strict_core": ("none",)},
        "blocking_coalition": {"strict_core": ("incorrect",), "weak_core": ("incorrect",)},
        "not_an_allocation": {"strict_core": ("incorrect",), "weak_core": ("incorrect",)}}
    assert {q: s.verdicts for q, s in SPEC.questions.items()} == {
        "strict_core": ("exists", "none"), "weak_core": ("exists",)}


def test_checker_imports_no_engine():
    code = ("import sys, prefcert.formal.checker.housing_market; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numpy', 'scipy', 'networkx', 'ortools', 'z3', 'pulp') or "
            "m.startswith(('prefcert.oracles', 'prefcert.encodings', 'prefcert.domains'))))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def _bundled_instances():
    for path in sorted((Path(__file__).resolve().parents[1] / "instances" /
                        "housing_market").glob("*.json*")):
        text = path.read_text()
        yield from ([json.loads(text)] if path.suffix == ".json" else
                    [json.loads(line) for line in text.splitlines() if line.strip()])


def test_instances_validate_against_schema():
    """SPEC.schema is a draft 2020-12 JSON Schema that every bundled, reference and test
    instance of the domain satisfies, and that rejects malformed ones."""
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(SPEC.schema)
    v = jsonschema.Draft202012Validator(SPEC.schema)
    bundled = list(_bundled_instances())
    assert len(bundled) >= 3
    refs = [dict(r.get("design_md_instance") or {"preferences": r["preferences"],
                                                  "endowment": r["endowment"]},
                 domain="housing_market") for r in map(json.loads, map(
                     lambda p: p.read_text(), reference_files()))]
    sampled = [sample_housing_market(n, seed=s, tie_prob=p, truncate=t)
               for n, s, p, t in ((1, 0, 0.0, "none"), (9, 3, 0.5, "random"),
                                  (30, 1, 0.3, "below_own"))]
    for data in bundled + refs + sampled + [dict(BASE, domain="housing_market")]:
        v.validate(data)
        parse_housing_market(data)
    for bad in ({"domain": "housing_market", "preferences": {"a1": ["h1"]}},
                {"domain": "housing_market", "preferences": {"a1": [1]},
                 "endowment": {"a1": "h1"}},
                {"domain": "housing_market", "preferences": {"a1": ["h1"]},
                 "endowment": {"a1": 7}},
                {**BASE, "domain": "housing_market", "questions": ["pareto"]}):
        assert not v.is_valid(bad)


@settings(max_examples=50)
@given(st.one_of(markets(), markets(complete=True, tie_odds=1)))
def test_test_markets_validate_against_schema(data):
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(data, SPEC.schema, cls=jsonschema.Draft202012Validator)


def test_core_check_at_1000_agents():
    """The plain-Python core test on the bundled 1000-agent market (timings are measured in
    benchmarks/bench_housing.py, not asserted here): TTC passes, the endowment is blocked."""
    data = next(d for d in _bundled_instances() if len(d["endowment"]) == 1000)
    m = parse_housing_market(data)
    x = top_trading_cycles(m)
    check_certificate(m, "weak_core", None, "exists", x, {"type": "core_allocation"})
    assert blocked_arc(m, dict(m.endowment), "strict") is not None   # ~n²/2 arcs


def test_classify_verifies_engine_refutations(monkeypatch):
    """classify returns only refutations the checker accepts."""
    from prefcert.domains import housing_market as app
    m = parse_housing_market(BASE)
    x = dict(m.endowment)                      # a1 and a2 would both gain by swapping
    assert not classify(m, x)["strict_core"]["holds"]
    monkeypatch.setattr(app.orc, "blocking_cycle",
                        lambda market, x, notion, endowment=None: (["a1"], {"a1": "h1"}))
    with pytest.raises(Disagreement):
        classify(m, x)
    monkeypatch.setattr(app.orc, "blocking_cycle", lambda *a, **k: None)
    with pytest.raises(Disagreement):
        classify(m, x)


# ------------------------------------------------------------------ bad input

BASE = {"preferences": {"a1": ["h2", "h1"], "a2": ["h1"]},
        "endowment": {"a1": "h1", "a2": "h2"}}


@pytest.mark.parametrize("change, agent, value", [
    ({"endowment": {"a1": "h1", "a2": "h1"}}, "a2", "h1"),             # not a bijection
    ({"endowment": {"a1": "h1"}}, "a2", None),                          # missing endowment
    ({"endowment": {"a1": "h1", "a2": "h2", "a3": "h3"}}, "a3", "h3"),   # no list
    ({"preferences": {"a1": ["h2", "h9"], "a2": ["h1"]}}, "a1", "h9"),   # unknown house
    ({"preferences": {"a1": ["h2", "h2"], "a2": ["h1"]}}, "a1", "h2"),   # house twice
    ({"preferences": {"a1": [["h2", "h1"], "h1"], "a2": ["h1"]}}, "a1", "h1"),
    ({"preferences": {"a1": ["h2", []], "a2": ["h1"]}}, "a1", []),        # empty tie
    ({"preferences": {"a1": "h2", "a2": ["h1"]}}, "a1", "h2"),           # not a list
    ({"endowment": {"a1": "h1", "a2": 7}}, "a2", 7),                     # non-string house
    ({"preferences": {"a1": ["h2", 3], "a2": ["h1"]}}, "a1", 3),
])
def test_bad_input(change, agent, value):
    data = {**copy.deepcopy(BASE), **change}
    with pytest.raises(InstanceError) as e:
        parse_housing_market(data)
    assert e.value.agent == agent
    assert e.value.value == value


@pytest.mark.parametrize("data", [{}, {"preferences": [], "endowment": {}},
                                  {"preferences": {}, "endowment": {}},
                                  {"preferences": {}, "endowment": "h1"}])
def test_bad_shape(data):
    with pytest.raises(InstanceError):
        parse_housing_market(data)


def test_pipeline_bad_input_names_file():
    from prefcert.formal.instances import from_object

    from prefcert.pipeline.jobs import plan
    data = {"domain": "housing_market", "id": "bad", **copy.deepcopy(BASE)}
    data["endowment"] = {"a1": "h1", "a2": "h1"}
    with pytest.raises(InstanceError) as e:
        plan([from_object(data, "bad.jsonl", 3, "bad")])
    assert "bad.jsonl:3" in str(e.value) and "a2" in str(e.value)


# ------------------------------------------------------------------ semantics and audit

def test_own_house_unlisted_ranks_after_listed_houses():
    m = parse_housing_market({"preferences": {"a1": ["h2"], "a2": [], "a3": ["h1", "h2"]},
                              "endowment": {"a1": "h1", "a2": "h2", "a3": "h3"}})
    assert m.rank("a1", "h2") < m.rank("a1", "h1") < m.rank("a1", "h3")
    assert m.rank("a3", "h3") == 3 and m.rank("a2", "h2") == 1
    assert refine(m)["a1"] == ["h2", "h1"]
    with pytest.raises(ValueError):
        top_trading_cycles(m, tie_break=["h1", "h2"])          # h3 has no priority
    x = {"a1": "h3", "a2": "h2", "a3": "h1"}      # a1 gets an unacceptable house
    assert ir_violators(m, x) == ["a1"] and not is_individually_rational(m, x)
    c = classify(m, x)["individually_rational"]
    check_refutation(m, x, "individually_rational", c["certificate"])


def test_audit_refutes_allocation_outside_strict_core():
    from prefcert.formal.instances import from_object

    from prefcert.pipeline.jobs import audit, plan
    data = dict(sample_housing_market(12, seed=3, tie_prob=0.4), id="audit-12")
    m = parse_housing_market(data)
    jobs = {j.asked: j for j in plan([from_object(data, "x.json", None, "x")])}
    x = dict(m.endowment)
    assert not in_strict_core(m, x)
    out = audit(jobs["strict_core"], json.dumps(x))
    assert out["verdict"] == "incorrect" and out["violations"]
    for v in out["violations"]:
        checker.check(spec("housing_market"), m, "strict_core", None, "incorrect", x, v)
    assert out["feedback"].count(" trading ") <= 3
    assert str(out["blocking_coalitions"]) in out["feedback"]
    res = strict_core(m)
    claim = res.allocation or "none"
    assert audit(jobs["strict_core"], json.dumps(claim))["verdict"] == "correct"
    assert audit(jobs["weak_core"], "none")["verdict"] == "incorrect"
    assert audit(jobs["weak_core"], json.dumps(top_trading_cycles(m)))["verdict"] == "correct"
    assert audit(jobs["strict_core"], "[1, 2]")["verdict"] == "unparseable"
    bad = audit(jobs["strict_core"], json.dumps({**x, "a0": x["a1"]}))
    assert bad["verdict"] == "incorrect"


@settings(max_examples=25)
@given(st.integers(1, 40), st.integers(0, 10**6), st.sampled_from([0.0, 0.3, 0.8]),
       st.sampled_from(["none", "below_own", "random"]))
def test_generator(n, seed, tie_prob, truncate):
    d = sample_housing_market(n, seed=seed, tie_prob=tie_prob, truncate=truncate)
    assert d == sample_housing_market(n, seed=seed, tie_prob=tie_prob, truncate=truncate)
    m = parse_housing_market(d)
    assert m.size == n
    res = strict_core(m)
    if res.allocation is None:
        check_segmentation(m, res.certificate)
    else:
        assert in_strict_core(m, res.allocation)
    assert in_weak_core(m, top_trading_cycles(m))
    if truncate == "none":
        assert all(len(m.preferences[a]) == n for a in m.agents)


# ------------------------------------------------------------------ CLI



@pytest.mark.skipif(PREFCERT is None, reason="console script prefcert not installed")
def test_cli_label_audit_classify(tmp_path):
    ref = json.loads((REFERENCE / "hm_three_agents_empty_strict_core.json").read_text())
    inst = tmp_path / "hm.json"
    inst.write_text(json.dumps(ref["design_md_instance"]))
    run = subprocess.run([PREFCERT, "label", str(inst), "--time-limit", "30"], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    labels = {lab["question"]: lab for lab in map(json.loads, run.stdout.splitlines())}
    assert labels["strict_core"]["verdict"] == "none" and labels["strict_core"]["checked"]
    assert labels["weak_core"]["verdict"] == "exists"
    answer = tmp_path / "answer.txt"
    answer.write_text("<answer>" + json.dumps(ref["endowment"]) + "</answer>")
    run = subprocess.run([PREFCERT, "audit", str(inst), "-q", "strict_core", str(answer)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stderr
    out = json.loads(run.stdout)
    assert out["verdict"] == "incorrect" and out["violations"]
    m = parse_housing_market(ref["design_md_instance"])
    for v in out["violations"]:
        checker.check(spec("housing_market"), m, "strict_core", None, "incorrect", ref["endowment"], v)
    answer.write_text("none")
    run = subprocess.run([PREFCERT, "audit", str(inst), "-q", "strict_core", str(answer)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and json.loads(run.stdout)["verdict"] == "correct"
    cands = tmp_path / "cands.json"
    cands.write_text(json.dumps(ref["expected"]["core"] + [ref["endowment"]]))
    run = subprocess.run([PREFCERT, "classify", str(inst), str(cands)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    assert all("weak_core" in r["satisfies"] for r in rows[:-1])
    assert "weak_core" in rows[-1]["fails"] and "strict_core" in rows[-1]["fails"]


@pytest.mark.skipif(PREFCERT is None, reason="console script prefcert not installed")
def test_cli_bad_endowment_exits_2(tmp_path):
    data = {"id": "bad", "domain": "housing_market", **copy.deepcopy(BASE)}
    data["endowment"] = {"a1": "h1", "a2": "h1"}
    inst = tmp_path / "bad.jsonl"
    inst.write_text(json.dumps(data) + "\n")
    run = subprocess.run([PREFCERT, "label", str(inst)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 2 and not run.stdout
    assert "bad.jsonl:1" in run.stderr and "a2" in run.stderr and "h1" in run.stderr
