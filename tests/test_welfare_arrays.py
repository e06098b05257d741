"""The utilitarian welfare path on integer arrays (issue 24, item 6): the house-allocation
RankIndex and lazy orders, the dense Hungarian matrix without dummy columns, the dense
label-correcting duals and the checker's index-based check, each against the exact path
(the dummy-column matrix and Python-integer shortest paths of the graph)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import house_allocations, smti_instances
from hypothesis import given, settings
from hypothesis import strategies as st
from prefcert.formal import house_allocation as fa
from prefcert.formal import welfare as fw
from prefcert.formal.checker import welfare as cw
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.formal.stable_matching import parse_market
from prefcert.formal.weak_order import parse_weak_order
from prefcert.oracles import house_allocation as oa
from scipy.optimize import linear_sum_assignment


def allocations(complete: bool = False):
    """1..8 agents and objects, unbounded lists, denser ties, ``objects`` sometimes left out."""
    return house_allocations(max_agents=8, max_objects=8, max_len=None, complete=complete,
                             tie_rates=(0.0, 0.4, 0.9), objects_optional=True)


def _reference(g):
    """The matching of the dummy-column Hungarian matrix and its exact-path certificate."""
    m = oa._lsa_matching(g, *oa._edge_arrays(g)) if g.ranks else {}
    cert, better = oa.welfare_certificate(g, "utilitarian", m)
    assert better is None
    return m, cert


def _same_bytes(a, b) -> bool:
    return json.dumps(a) == json.dumps(b)


@settings(max_examples=150, deadline=None)
@given(st.one_of(allocations(), allocations(complete=True)))
def test_indexed_oracle_equals_the_exact_path_one_sided(data):
    """Matching (with its key order) and certificate byte for byte, from the model (the
    RankIndex path) and from the welfare graph."""
    model = fa.parse_house_allocation(data)
    g = fw.welfare_graph(fa.parse_house_allocation(data))
    ref = _reference(g)
    assert _same_bytes(oa.utilitarian_matching(model), ref)
    assert _same_bytes(oa.utilitarian_matching(g), ref)


@settings(max_examples=100, deadline=None)
@given(smti_instances(max_side=6))
def test_dense_oracle_equals_the_exact_path_two_sided(market):
    g = fw.welfare_graph(parse_market(market))
    assert _same_bytes(oa.utilitarian_matching(g), _reference(g))


def test_no_dummy_columns_same_assignment_on_complete_lists():
    """The n × p matrix (no dummy columns) gives the Hungarian method's assignment of the
    dummy-column matrix when every agent ranks every object (n ≤ p), ties included."""
    rng = np.random.default_rng(24)
    for _ in range(300):
        n = int(rng.integers(1, 30))
        p = n + int(rng.integers(0, 4))
        cost = np.zeros((n, p), np.int64)
        tie = rng.choice([0.0, 0.5, 0.95])
        for i in range(n):
            steps = rng.random(p) >= tie
            steps[0] = True
            cost[i, rng.permutation(p)] = np.cumsum(steps)
        big = n * int(cost.max()) + 1
        dummy = np.full((n, p + n), np.inf)
        dummy[:, :p] = cost - big
        dummy[np.arange(n), p + np.arange(n)] = 0.0
        a = linear_sum_assignment(dummy)
        b = linear_sum_assignment((cost - big).astype(float))
        assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_dense_duals_refuse_a_non_optimal_matching():
    """a2 ranks only h1: the optimum {a1: h2, a2: h1} has duals; {a1: h1} (one agent
    fewer) has none, so the exact path takes over and finds the improvement."""
    cost = np.array([[1, 2], [1, 0]], np.int64)           # a2 ranks only h1
    base = 2 * 2 + 1
    assert oa._duals_dense(cost, np.array([1, 0]), base, False) is not None
    assert oa._duals_dense(cost, np.array([0, -1]), base, False) is None


# ------------------------------------------------------------------ parse

@settings(max_examples=150, deadline=None)
@given(allocations())
def test_lazy_orders_and_index_equal_the_exact_parse(data):
    """The lazy orders equal parse_weak_order's, and the parser's RankIndex equals the one
    a model built from those orders makes."""
    model = fa.parse_house_allocation(data)
    known = data.get("objects")
    exact = {a: parse_weak_order(lst, agent=a, known=known)
             for a, lst in data["preferences"].items()}
    assert dict(model.prefs) == exact and list(model.prefs) == list(exact)
    rebuilt = fa.HouseAllocation(exact, model.objects).rank_index()
    ix = model.rank_index()
    assert list(ix.offsets) == list(rebuilt.offsets)
    assert list(ix.objects) == list(rebuilt.objects)
    ranks = [r for i in range(len(exact)) for r in ix.entry_ranks(i)]
    assert ranks == list(rebuilt.ranks) and ix.max_rank == rebuilt.max_rank


def test_first_error_is_the_first_agent_s():
    """A fast-path failure anywhere re-runs the exact pass, which names the first bad
    agent in input order (a1's unknown object, not a2's repeated one)."""
    data = {"preferences": {"a1": ["h1", "h9"], "a2": ["h1", "h1"]}, "objects": ["h1", "h2"]}
    with pytest.raises(InstanceError) as e:
        fa.parse_house_allocation(data)
    assert e.value.agent == "a1" and e.value.value == "h9"


def test_utilitarian_oracle_and_check_build_no_graph_and_no_order(monkeypatch):
    """On a house allocation the oracle and the checker read the RankIndex only: no
    welfare graph is made and no agent's WeakOrder is parsed (linear work, no dict per
    agent)."""
    data = {"preferences": {f"a{i}": [f"h{(i + k) % 6 + 1}" for k in range(6)]
                            for i in range(5)}, "objects": [f"h{j}" for j in range(1, 7)]}
    model = fa.parse_house_allocation(data)

    def refuse(*a, **k):
        raise AssertionError("welfare graph built")
    monkeypatch.setattr(oa, "welfare_graph", refuse)
    monkeypatch.setattr(cw, "welfare_graph", refuse)
    m, cert = oa.utilitarian_matching(model)
    cw.check_lp_duals(model, "utilitarian", None, "optimal", m, cert)
    assert model.prefs._built == {}
    assert cert["value"] == 5                  # every agent gets its first choice


# ------------------------------------------------------------------ checker

def _forgeries(m, cert):
    first = next(iter(m))
    yield m, {**cert, "value": cert["value"] + 1}
    yield m, {**cert, "base": cert["base"] - 1000}
    left = dict(cert["duals"]["left"])
    left[first] -= 1
    yield m, {**cert, "duals": {"left": left, "right": cert["duals"]["right"]}}
    right = dict(cert["duals"]["right"])
    right["zz"] = 0
    yield m, {**cert, "duals": {"left": cert["duals"]["left"], "right": right}}
    yield {**m, "nobody": "h1"}, cert
    yield {k: (None if k == first else v) for k, v in m.items()}, cert


@settings(max_examples=60, deadline=None)
@given(allocations(complete=True))
def test_index_check_accepts_exactly_what_the_graph_check_accepts(data):
    """The index check accepts the oracle's certificate; on forgeries it declines and the
    graph-based check refuses them."""
    model = fa.parse_house_allocation(data)
    m, cert = oa.utilitarian_matching(model)
    assert cw._utilitarian_accepted(model, m, cert)
    cw.check_lp_duals(model, "utilitarian", None, "optimal", m, cert)
    for sol, forged in _forgeries(m, cert):
        assert not cw._utilitarian_accepted(model, sol, forged)
        with pytest.raises(CertificateError):
            cw.check_lp_duals(model, "utilitarian", None, "optimal", sol, forged)
