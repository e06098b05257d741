"""The integer form of preference profiles (:class:`PreferenceInts`) against the name form
and brute force, on small adversarial instances: rank arrays, closures, Kahn completions,
linear extensions, count ranges, profile specs and the RS search; the checker still
rejects corrupted certificates."""
from __future__ import annotations

import functools
import itertools
import os

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prefcert.formal.checker import check
from prefcert.formal.checker import preference as cp
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.formal.preference import (
    closure_bits,
    direct,
    kahn,
    linear_extensions_ints,
    parse_preference_data,
)
from prefcert.oracles import preference as oq
from prefcert.oracles import preference_winner as ov

SETTINGS = dict(max_examples=int(os.environ.get("PREFCERT_EXAMPLES", 100)), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
check_certificate = functools.partial(check, cp.SPEC)


@st.composite
def instances(draw, max_items=5, max_agents=3):
    """Items named out of alphabetical order (so number order ≠ name order), and every
    kind of datum: weak orders (ties, incomplete), edges, choices, counts."""
    m = draw(st.integers(2, max_items))
    items = draw(st.permutations([f"z{i}" if i % 2 else f"a{i}" for i in range(m)]))
    prof = {}
    for v in range(draw(st.integers(1, max_agents))):
        perm = draw(st.permutations(items))
        kind = draw(st.sampled_from(["order", "order", "edges", "choices"]))
        if kind == "order":
            listed = perm[:draw(st.integers(1, m))]
            cuts = sorted(draw(st.sets(st.integers(1, max(1, len(listed) - 1)))))
            groups = [list(listed[i:j]) for i, j in zip([0] + cuts, cuts + [len(listed)]) if
                      listed[i:j]]
            datum: dict = {"order": [g[0] if len(g) == 1 and draw(st.booleans()) else g
                                     for g in groups]}
        elif kind == "edges":
            pairs = draw(st.lists(st.tuples(st.integers(0, m - 1), st.integers(0, m - 1)),
                                  max_size=2 * m))
            datum = {"edges": [[perm[i], perm[j]] for i, j in pairs if i < j]}
        else:
            subsets = draw(st.lists(st.sets(st.integers(0, m - 1), min_size=2), max_size=3))
            datum = {"choices": [[[perm[i] for i in sorted(s, reverse=True)], perm[min(s)]]
                                 for s in subsets]}
        datum["count"] = draw(st.integers(1, 3))
        prof[f"v{v}"] = datum
    return {"id": "t", "domain": "preference", "items": list(items),
            "semantics": draw(st.sampled_from(["unknown", "truncated"])), "profile": prof}


def graph(model, ag) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(model.items)
    g.add_edges_from((a, b) for a, bs in ag.succ.items() for b in bs)
    return g


def extensions(model, ag) -> list:
    """Brute force: the permutations of the items respecting the base relation."""
    edges = [(a, b) for a, bs in ag.succ.items() for b in bs]
    out = []
    for p in itertools.permutations(model.items):
        pos = {x: i for i, x in enumerate(p)}
        if all(pos[a] < pos[b] for a, b in edges):
            out.append(p)
    return out


@settings(**SETTINGS)
@given(instances())
def test_ranks_closures_and_completions_match_the_name_form(inst):
    model = parse_preference_data(inst)
    ints = model.ints
    assert ints.items == model.items and list(ints.item_index) == list(model.items)
    assert ints.count == [ag.count for ag in model.agents]
    for r, ag in enumerate(model.agents):
        assert ag.i == r
        g = graph(model, ag)
        rank = ints.rank[r]
        assert (rank is not None) == (ag.kind == "order")
        assert ints.plain[r] == (ag.kind == "order" and (ag.truncated or
                                                          len(ag.order) == model.m))
        for a, b in itertools.permutations(model.items, 2):
            ia, ib = ints.item_index[a], ints.item_index[b]
            if rank is not None:
                assert (0 < rank[ia] < rank[ib]) == direct(ag, a, b)
            base = ints.base_succ(r)
            assert (ib in base[ia]) == g.has_edge(a, b)
        down, up = closure_bits(model, ag)
        for x in model.items:
            i = ints.item_index[x]
            assert {model.items[j] for j in ints.members(down[i])} == nx.descendants(g, x)
            assert {model.items[j] for j in ints.members(up[i])} == nx.ancestors(g, x)
        exts = extensions(model, ag)
        assert [tuple(model.items[j] for j in o) for o in linear_extensions_ints(model, ag)] \
            == exts
        for key in (list(model.items), list(reversed(model.items)), list(exts[-1])):
            want = list(nx.lexicographical_topological_sort(g, key=key.index))
            assert kahn(model, ag, key) == want


@settings(**SETTINGS)
@given(instances(max_items=4), st.data())
def test_count_bounds_and_specs_against_brute_force(inst, data):
    model = parse_preference_data(inst)
    per = [extensions(model, ag) for ag in model.agents]
    index = model.ints.item_index
    for a, b in itertools.permutations(model.items, 2):
        def n(o):
            return o.index(a) < o.index(b)
        lo = sum(ag.count * min(map(n, ex)) for ag, ex in zip(model.agents, per))
        hi = sum(ag.count * max(map(n, ex)) for ag, ex in zip(model.agents, per))
        assert cp.count_bounds(model, index[a], index[b]) == (lo, hi)
    keys = [list(data.draw(st.permutations(model.items))) for _ in range(2)]
    spec = {"keys": keys, "assign": {ag.name: [[0, ag.count - 1], [1, 1]]
                                     for ag in model.agents[::2]}}
    want = []
    for ag in model.agents:
        g = graph(model, ag)
        for k, w in spec["assign"].get(ag.name, [[0, ag.count]]):
            if w:
                want.append((list(nx.lexicographical_topological_sort(
                    g, key=keys[k].index)), w))
    assert cp.profile_from_spec(model, spec) == want


@settings(**SETTINGS)
@given(instances(max_items=5, max_agents=1), st.data())
def test_rs_search_against_brute_force(inst, data):
    model = parse_preference_data(inst)
    ag = model.agents[0]
    A = data.draw(st.lists(st.sampled_from(model.items), min_size=1, max_size=3, unique=True))
    B = data.draw(st.lists(st.sampled_from(model.items), min_size=1, max_size=3, unique=True))

    def holds(o):
        d = 0
        for x in o:
            d += (x in A) - (x in B)
            if d < 0:
                return False
        return True
    assert cp.rs_possible(model, ag, A, B) == any(holds(o) for o in extensions(model, ag))


@settings(**SETTINGS)
@given(instances(max_items=4), st.sampled_from(["plurality", "borda", "copeland"]))
def test_brute_force_winner_agrees_with_the_checker(inst, rule):
    """The brute-force engine on item numbers: its verdict is the checker's exhaustive
    enumeration's, and its witnesses are accepted."""
    model = parse_preference_data(inst)
    for c in model.items:
        params = {"rule": rule, "item": c}
        out = ov.brute_force_winner(model, params)
        if out.verdict == "unknown":
            continue
        gen = cp.profile_completions(model)
        assert gen is not None
        wins = {cp.value_profile_ints(model, "winner", params, p) for p in gen}
        want = "true" if wins == {True} else "false" if wins == {False} else "undetermined"
        assert out.verdict == want
        check_certificate(model, "winner", params, out.verdict, out.solution,
                          out.certificate)


def _certified(model, question, params):
    out = (ov.winner(model, params) if question == "winner" else
           getattr(oq, question)(model, params) if question in ("count", "majority") else
           oq.SINGLE[question](model, params))
    check_certificate(model, question, params, out.verdict, out.solution, out.certificate)
    return out


INST = {"id": "c", "domain": "preference", "items": ["b", "a", "d", "c"],
        "semantics": "truncated",
        "profile": {"x": [["b", "a"], "d"], "y": {"edges": [["a", "c"], ["c", "d"]]},
                    "z": {"order": ["d", ["a", "c"]], "count": 2}}}


def test_the_checker_rejects_corrupted_certificates():
    model = parse_preference_data(INST)
    # an undetermined compare: two completions; swap them against the data
    out = _certified(model, "compare", {"agent": "y", "items": ["a", "b"]})
    assert out.verdict == "undetermined"
    bad = dict(out.certificate, orders=[["d", "c", "a", "b"], out.certificate["orders"][1]])
    with pytest.raises(CertificateError, match="completion puts 'c' above 'a'"):
        check_certificate(model, "compare", {"agent": "y", "items": ["a", "b"]},
                          "undetermined", None, bad)
    bad = dict(out.certificate, orders=[["a", "a", "c", "d"], out.certificate["orders"][1]])
    with pytest.raises(CertificateError, match="not a permutation"):
        check_certificate(model, "compare", {"agent": "y", "items": ["a", "b"]},
                          "undetermined", None, bad)
    # a count range with witnesses: a key that is no permutation, a wrong end
    params = {"items": ["b", "c"]}
    out = _certified(model, "count", params)
    assert out.verdict == "undetermined"
    wit = out.certificate["witnesses"]
    for broken in ({"keys": [["a", "b", "c"]]}, {"keys": [["a", "b", "c", "zz"]]},
                   {"keys": [[["a"], "b", "c", "d"]]}):
        with pytest.raises(CertificateError, match="permutation of the items"):
            check_certificate(model, "count", params, out.verdict, out.solution,
                              dict(out.certificate, witnesses=dict(wit, min=broken)))
    with pytest.raises(CertificateError, match="witness has"):
        check_certificate(model, "count", params, out.verdict, out.solution,
                          dict(out.certificate, witnesses={"min": wit["max"],
                                                           "max": wit["max"]}))
    with pytest.raises(CertificateError, match="bounds by reachability"):
        check_certificate(model, "count", params, "determined", {"value": 1},
                          {"type": "bounds"})
    # a winner: a flipped exhaustive verdict, a Hall violator too small
    for c in model.items:
        params = {"rule": "plurality", "item": c}
        out = _certified(model, "winner", params)
        flip = {"true": "false", "false": "true"}.get(out.verdict)
        if flip:
            with pytest.raises(CertificateError):
                check_certificate(model, "winner", params, flip, None, {"type": "exhaustive"})
        if out.verdict != "false":      # c can win: no rival set is a Hall violator
            for k in range(model.m):
                for D in itertools.combinations([x for x in model.items if x != c], k):
                    with pytest.raises(CertificateError):
                        check_certificate(model, "winner", params, "false", None,
                                          {"type": "hall_violator", "set": list(D)})
    # a chain through a relation the data do not state
    with pytest.raises(CertificateError, match="not in the data"):
        check_certificate(model, "compare", {"agent": "y", "items": ["a", "d"]}, "true", None,
                          {"type": "chain", "chain": ["a", "d"]})


def test_parse_errors_name_the_agent_and_value():
    """Messages written by hand (the main branch's wording)."""
    base = {"items": ["a", "b", "c"]}
    cases = [
        ({"profile": {"x": ["a", "d"]}}, "agent 'x': ranks an unknown item: 'd'"),
        ({"profile": {"x": {"edges": [["a", "d"]]}}}, "agent 'x': unknown item: 'd'"),
        ({"profile": {"x": {"edges": [["a", "b"], ["b", "c"], ["c", "a"]]}}},
         'agent \'x\': preferences contain a cycle: ["a", "b", "c", "a"]'),
        ({"profile": {"x": {"choices": [[["a", "b"], "c"]]}}},
         "agent 'x': chosen item is not in its subset: 'c'"),
        ({"profile": {"x": {"order": ["a"], "count": 0}}},
         "agent 'x': count must be an integer from 1 to 1000000000000: 0"),
        ({"profile": {"x": [["a", "b"], ["b"]]}}, "agent 'x': item listed twice: 'b'"),
    ]
    for extra, msg in cases:
        with pytest.raises(InstanceError) as e:
            parse_preference_data(dict(base, **extra))
        assert str(e.value) == msg
    with pytest.raises(InstanceError) as e:
        parse_preference_data({"profile": {"x": [[]]}})
    assert str(e.value) == "agent 'x': empty tie group: []"
