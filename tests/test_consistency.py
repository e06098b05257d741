"""The consistency domain: engines against each other, an independent LP and brute force;
the checker against tampered certificates; the audit on synthetic data of known truth."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import heavy_examples
from hypothesis import given, settings
from hypothesis import strategies as st
from prefcert.encodings import consistency as enc
from prefcert.formal.checker import check
from prefcert.formal.checker.consistency import SPEC, exact_minimum
from prefcert.formal.consistency import (
    UNITS,
    judgment_arcs,
    nodes_of,
    observations,
    order_cost,
    parse_consistency,
)
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.oracles import consistency as orc

ITEMS = ["x", "y", "z", "w"]
value = st.integers(-300, 300).map(lambda k: k / 10)       # exact one-decimal answers


@st.composite
def cardinal(draw, max_cells: int = 8):
    """Cells over up to four items: pair cells (self-loops, i.e. price-only pairs,
    included), item cells, components without any item cell; 1–3 completions each."""
    cells = []
    for i in range(draw(st.integers(1, max_cells))):
        vals = draw(st.lists(value, min_size=1, max_size=3))
        if draw(st.booleans()):
            a, b = draw(st.sampled_from(ITEMS)), draw(st.sampled_from(ITEMS))
            p, q = draw(st.integers(0, 50)), draw(st.integers(0, 50))
            if (a, p) == (b, q):
                q += 1
            cells.append({"id": f"c{i}", "type": "pair", "a": {"item": a, "price": p},
                          "b": {"item": b, "price": q}, "values": vals})
        else:
            cells.append({"id": f"c{i}", "type": "item",
                          "item": draw(st.sampled_from(ITEMS)), "values": vals})
    return parse_consistency({"cells": cells})


def _check(model, q, unit, outcome):
    check(SPEC, model, q, {"unit": unit}, outcome.verdict, outcome.solution,
          outcome.certificate)


def _interval(o):
    if o.verdict == "optimal":
        c = Fraction(o.solution["cost"])
        return c, c
    return Fraction(o.solution["lower"]), Fraction(o.solution["upper"])


def _dense_l1(obs, items) -> float:
    """An independent LP: min Σ w t  s.t.  t ≥ ±(r − Au), by scipy's HiGHS on dense rows."""
    from scipy.optimize import linprog
    n, p = len(obs), len(items)
    idx = {x: i for i, x in enumerate(items)}
    rows, rhs = [], []
    for i, o in enumerate(obs):
        au = np.zeros(p)
        au[idx[o.head]] += 1
        if o.tail is not None:
            au[idx[o.tail]] -= 1
        t = np.zeros(n)
        t[i] = -1
        rows.append(np.r_[-au, t])          # r − Au ≤ t
        rhs.append(-float(o.r))
        rows.append(np.r_[au, t])           # Au − r ≤ t
        rhs.append(float(o.r))
    c = np.r_[np.zeros(p), [float(o.w) for o in obs]]
    res = linprog(c, A_ub=np.array(rows), b_ub=np.array(rhs),
                  bounds=[(None, None)] * p + [(0, None)] * n, method="highs")
    assert res.status == 0
    return float(res.fun)


@settings(max_examples=heavy_examples(150, 60))
@given(cardinal(), st.sampled_from(UNITS))
def test_l1_lp_and_min_cost_flow_agree_with_an_independent_lp(model, unit):
    obs = observations(model, unit)
    lp = enc.l1_lp(model, obs)
    flow = orc.l1_min_cost_flow(model, obs)
    assert flow.verdict == "optimal"
    _check(model, "l1_repair", unit, lp)
    _check(model, "l1_repair", unit, flow)
    lo, hi = _interval(lp)
    cost = Fraction(flow.solution["cost"])
    assert lo <= cost <= hi
    assert lp.verdict == "optimal" and Fraction(lp.solution["cost"]) == cost
    assert math.isclose(float(cost), _dense_l1(obs, model.items), rel_tol=1e-7, abs_tol=1e-7)


@settings(max_examples=heavy_examples(150, 60))
@given(cardinal(), st.sampled_from(UNITS))
def test_l2_exact_agrees_with_lstsq_and_numpy(model, unit):
    obs = observations(model, unit)
    exact = orc.l2_exact(model, obs)
    ls = enc.l2_lstsq(model, obs)
    _check(model, "l2_repair", unit, exact)
    _check(model, "l2_repair", unit, ls)
    cost = Fraction(exact.solution["cost"])
    lo, hi = _interval(ls)
    assert lo <= cost <= hi
    # numpy's own weighted least squares, in floats
    items = list(model.items)
    a = np.zeros((len(obs), len(items)))
    for i, o in enumerate(obs):
        a[i, items.index(o.head)] += 1
        if o.tail is not None:
            a[i, items.index(o.tail)] -= 1
    r = np.array([float(o.r) for o in obs])
    w = np.array([o.w for o in obs], float)
    u, *_ = np.linalg.lstsq(a * np.sqrt(w)[:, None], r * np.sqrt(w), rcond=None)
    assert math.isclose(float(cost), float((w * (r - a @ u) ** 2).sum()), rel_tol=1e-7,
                        abs_tol=1e-7)


@settings(max_examples=heavy_examples(80, 40))
@given(cardinal())
def test_tampered_cardinal_certificates_are_rejected(model):
    obs = observations(model)
    for q, o in (("l1_repair", orc.l1_min_cost_flow(model, obs)),
                 ("l2_repair", orc.l2_exact(model, obs))):
        sol = dict(o.solution, cost=str(Fraction(o.solution["cost"]) + 1))
        with pytest.raises(CertificateError):
            check(SPEC, model, q, None, "optimal", sol, o.certificate)
        moved = next((i for i, x in enumerate(obs) if x.tail != x.head), None)
        if moved is not None:
            flow = list(o.certificate["flow"])
            flow[moved] = str(Fraction(flow[moved]) + Fraction(1, 7))
            with pytest.raises(CertificateError, match="conserved"):
                check(SPEC, model, q, None, "optimal", o.solution, dict(o.certificate, flow=flow))
        missing = dict(o.solution, utilities=dict(list(o.solution["utilities"].items())[1:]))
        with pytest.raises(CertificateError):
            check(SPEC, model, q, None, "optimal", missing, o.certificate)
    lp = orc.l1_min_cost_flow(model, obs)
    over = [str(Fraction(f) * 3 + (1 if Fraction(f) >= 0 else -1)) for f in lp.certificate["flow"]]
    with pytest.raises(CertificateError):
        check(SPEC, model, "l1_repair", None, "optimal", lp.solution, {"type": "circulation_dual",
                                                                       "flow": over})


def test_exactly_consistent_cells_need_no_repair():
    u = {"x": 40, "y": 55, "z": 31}
    cells = [{"id": f"c{i}", "type": "pair", "a": {"item": a, "price": p},
              "b": {"item": b, "price": q}, "values": [(u[b] - q) - (u[a] - p)] * 2}
             for i, (a, p, b, q) in enumerate([("x", 10, "y", 12), ("y", 3, "z", 9),
                                               ("x", 7, "z", 7), ("z", 5, "z", 8)])]
    cells += [{"id": "ix", "type": "item", "item": "x", "values": [40]}]
    model = parse_consistency({"cells": cells})
    for unit in UNITS:
        obs = observations(model, unit)
        for o in (orc.l1_min_cost_flow(model, obs), enc.l1_lp(model, obs),
                  orc.l2_exact(model, obs)):
            assert o.solution["cost"] == "0"
            assert {x: Fraction(v) for x, v in o.solution["utilities"].items()} == u


def test_a_price_only_pair_must_be_repaired_by_its_whole_answer():
    # (x, 10) -> (x, 14): consistency says Y = 10 − 14 = −4; the answer 6 is 10 off
    cells = [{"id": "p", "type": "pair", "a": {"item": "x", "price": 10},
              "b": {"item": "x", "price": 14}, "values": [6]}]
    model = parse_consistency({"cells": cells})
    obs = observations(model)
    assert orc.l1_min_cost_flow(model, obs).solution["cost"] == "10"
    assert enc.l1_lp(model, obs).solution["cost"] == "10"
    assert orc.l2_exact(model, obs).solution["cost"] == "100"


@pytest.mark.parametrize("bad,match", [
    ({}, "needs 'cells'"),
    ({"cells": [{"id": "a", "type": "pair", "a": {"item": "x", "price": 1},
                 "b": {"item": "x", "price": 1}, "values": [1]}]}, "two different offers"),
    ({"cells": [{"id": "a", "type": "item", "item": "x", "values": []}]}, "non-empty"),
    ({"cells": [{"id": "a", "type": "item", "item": "x", "values": [float("nan")]}]}, "finite"),
    ({"cells": [{"id": "a", "type": "item", "item": "x", "values": [True]}]}, "number"),
    ({"cells": [{"id": "a", "type": "item", "item": "x", "values": [1]},
                {"id": "a", "type": "item", "item": "y", "values": [1]}]}, "repeated"),
    ({"choices": [["a", "a", 1]]}, "two different"),
    ({"choices": [["a", "b", 0]]}, "count >= 1"),
    ({"rankings": [["a", "b", "a"]]}, "distinct"),
])
def test_bad_instances_are_rejected_with_the_value(bad, match):
    with pytest.raises(InstanceError, match=match):
        parse_consistency(bad)


def test_exact_decimals():
    m = parse_consistency({"cells": [{"id": "a", "type": "item", "item": "x",
                                      "values": [0.1, "1/3", "2.5e1"]}]})
    assert m.cells[0].values == (Fraction(1, 10), Fraction(1, 3), Fraction(25))


# ------------------------------------------------------------------------------ ordinal

NODES = list("abcdef")


@st.composite
def choices(draw, nodes=NODES):
    n = draw(st.integers(2, len(nodes)))
    pool = nodes[:n]
    out = []
    for _ in range(draw(st.integers(1, 14))):
        a, b = draw(st.sampled_from(pool)), draw(st.sampled_from(pool))
        if a != b:
            out.append([a, b, draw(st.integers(1, 3))])
    if not out:
        out = [[pool[0], pool[1], 1]]
    if draw(st.booleans()):                 # one big tie: every choice made both ways
        out += [[b, a, k] for a, b, k in out]
    return parse_consistency({"choices": out})


def _brute(arcs, nodes):
    return min(order_cost(arcs, p) for p in itertools.permutations(nodes))


@settings(max_examples=heavy_examples(120, 50))
@given(choices(), st.sampled_from(["majority", "choices"]))
def test_feedback_arc_set_engines_agree_with_brute_force(model, mode):
    arcs = judgment_arcs(model, mode)
    nodes = nodes_of(arcs, model.nodes)
    best = _brute(arcs, nodes)
    assert exact_minimum(nodes, arcs) == best            # the checker's own DP
    outs = {"oracle": orc.fas_exact(arcs, model.nodes),
            "milp": enc.fas_milp(arcs, model.nodes),
            "cpsat": enc.fas_cpsat(arcs, model.nodes),
            "brute_force": orc.fas_brute_force(arcs, model.nodes)}
    for name, o in outs.items():
        assert o.verdict == "optimal", name
        assert o.solution["reversed"] == best, name
        assert order_cost(arcs, o.solution["order"]) == best, name
    for name in ("oracle", "milp"):
        check(SPEC, model, "feedback_arc_set", {"judgments": mode}, "optimal",
              outs[name].solution, outs[name].certificate)
    worse = max(itertools.permutations(nodes), key=lambda p: order_cost(arcs, p))
    if order_cost(arcs, worse) > best:           # a non-optimal order is refused
        with pytest.raises(CertificateError):
            check(SPEC, model, "feedback_arc_set", {"judgments": mode}, "optimal",
                  {"order": list(worse), "reversed": order_cost(arcs, worse)},
                  {"type": "fas_bound", "cycles": []})


@settings(max_examples=heavy_examples(120, 50))
@given(choices(), st.sampled_from(["majority", "choices"]))
def test_transitivity_engines_agree(model, mode):
    arcs = judgment_arcs(model, mode)
    acyclic = _brute(arcs, nodes_of(arcs, model.nodes)) == 0
    cycle = orc.judgment_cycle(arcs, model.nodes)
    order, kcycle = orc.kahn_order(arcs, model.nodes)
    assert (cycle is None) == acyclic == (kcycle is None) == (order is not None)
    params = {"judgments": mode}
    if acyclic:
        check(SPEC, model, "transitive", params, "true", order, {"type": "consistent_order"})
        check(SPEC, model, "transitive", params, "true",
              orc.consistent_order(arcs, model.nodes), {"type": "consistent_order"})
    else:
        for c in (cycle, kcycle):
            check(SPEC, model, "transitive", params, "false", None,
                  {"type": "judgment_cycle", "cycle": c})
        with pytest.raises(CertificateError):
            check(SPEC, model, "transitive", params, "false", None,
                  {"type": "judgment_cycle", "cycle": cycle + cycle[:1]})
        if order is None and len(cycle) > 2 and any((b, a) not in arcs
                                                    for a, b in zip(cycle, cycle[1:])):
            with pytest.raises(CertificateError, match="not a judgment"):
                check(SPEC, model, "transitive", params, "false", None,
                      {"type": "judgment_cycle", "cycle": cycle[::-1]})


def test_a_component_beyond_the_checkers_dp_is_bounded_by_a_cycle_packing():
    from prefcert.generators.consistency import simulate_choices
    items = [f"i{k:02d}" for k in range(15)]
    model = parse_consistency({"choices": simulate_choices(items, pairs=105, repeats=1,
                                                           flip=0.35, seed=3)})
    arcs = judgment_arcs(model, "majority")
    assert max(len(c) for c in orc.strong_components(arcs, model.nodes)) > 12
    milp = enc.fas_milp(arcs, model.nodes)
    dp = orc.fas_exact(arcs, model.nodes)
    assert milp.solution["reversed"] == dp.solution["reversed"] > 0
    assert milp.certificate["cycles"]
    check(SPEC, model, "feedback_arc_set", None, "optimal", milp.solution, milp.certificate)
    with pytest.raises(CertificateError, match="lower bound"):     # the DP alone cannot
        check(SPEC, model, "feedback_arc_set", None, "optimal", dp.solution, dp.certificate)
    cycles = [dict(c) for c in milp.certificate["cycles"]]
    cycles[0]["y"] = str(Fraction(cycles[0]["y"]) + 1)
    with pytest.raises(CertificateError, match="beyond its weight"):
        check(SPEC, model, "feedback_arc_set", None, "optimal", milp.solution,
              {"type": "fas_bound", "cycles": cycles})
    cycles = [dict(c) for c in milp.certificate["cycles"]]
    cycles[0]["cycle"] = cycles[0]["cycle"][::-1]
    with pytest.raises(CertificateError, match="not a judgment"):
        check(SPEC, model, "feedback_arc_set", None, "optimal", milp.solution,
              {"type": "fas_bound", "cycles": cycles})


def test_rankings_are_read_as_the_choices_they_imply():
    from prefcert.api.core import label
    inst = {"domain": "consistency", "rankings": [["a", "b", "c"], ["b", "c", "a"],
                                                  ["c", "a", "b"]]}
    lab = label(inst, "transitive")           # the Condorcet cycle a ≻ b ≻ c ≻ a
    assert lab["verdict"] == "false" and lab["checked"]
    assert sorted(lab["certificate"]["cycle"]) == ["a", "b", "c"]
    lab = label(inst, {"type": "feedback_arc_set", "judgments": "choices"})
    assert lab["solution"]["reversed"] == 4    # a ≻ b ≻ c reverses b≻a (1), c≻b (1), c≻a (2)
    lab = label(inst, "feedback_arc_set")
    assert lab["solution"]["reversed"] == 1


def test_questions_need_their_data_and_valid_parameters():
    from prefcert.api.core import label
    with pytest.raises(InstanceError, match="needs 'choices'"):
        label({"domain": "consistency", "cells": [{"id": "a", "type": "item", "item": "x",
                                                  "values": [1]}]}, "transitive")
    with pytest.raises(InstanceError, match="unit must be"):
        label({"domain": "consistency", "choices": [["a", "b", 1]]},
              {"type": "l1_repair", "unit": "dollars"})


def test_lp_fallback_duals_still_give_a_checked_bound(monkeypatch):
    """When the exact tight-set flow is unavailable, the HiGHS duals rounded onto the
    circulation space and scaled into the capacities are a valid (checked) lower bound."""
    cells = [{"id": f"c{i}", "type": "pair", "a": {"item": a, "price": 10},
              "b": {"item": b, "price": 12}, "values": [v, v + 1.5]}
             for i, (a, b, v) in enumerate([("x", "y", 4), ("y", "z", -3), ("x", "z", 9),
                                            ("z", "w", 2.5), ("w", "x", -7)])]
    cells += [{"id": "ix", "type": "item", "item": "x", "values": [50, 51]},
              {"id": "iz", "type": "item", "item": "z", "values": [58]}]
    model = parse_consistency({"cells": cells})
    obs = observations(model)
    exact = Fraction(orc.l1_min_cost_flow(model, obs).solution["cost"])
    monkeypatch.setattr(enc, "_tight_flow", lambda *a: None)
    o = enc.l1_lp(model, obs)
    assert o.verdict == "bounded"
    _check(model, "l1_repair", "cell", o)
    lo, hi = _interval(o)
    assert lo <= exact <= hi and float(hi - lo) < 1e-3 * max(1, float(exact))


def test_without_a_closing_bound_only_three_agreeing_engines_give_a_record(monkeypatch):
    from prefcert.formal.errors import Undecided
    from prefcert.generators.consistency import simulate_choices

    from prefcert.api.core import label
    items = [f"i{k:02d}" for k in range(15)]
    inst = {"domain": "consistency",
            "choices": simulate_choices(items, pairs=105, repeats=1, flip=0.35, seed=3)}
    monkeypatch.setattr(enc, "cycle_packing", lambda comp, arcs: (Fraction(0), []))
    lab = label(inst, "feedback_arc_set", engines=["oracle", "milp", "cpsat"],
                time_limit=300)                # all three must answer, however loaded the machine
    cert = lab["certificate"]
    assert cert["type"] == "engine_agreement" and len(cert["engines"]) == 3
    assert all("lower bound" in e for e in cert["unproved"])
    with pytest.raises(Undecided):
        label(inst, "feedback_arc_set", engines=["oracle", "milp"])
