"""The consistency domain's integer form (issue 24, item 2): the one-pass parse against the
name-keyed model (and every error message main printed), the integer oracles, incidence
and checker against the old name-keyed formulations and brute force on small adversarial
instances, and forged certificates the checker must refuse."""
from __future__ import annotations

import itertools
import pickle
from collections import deque
from fractions import Fraction

import numpy as np
import pytest
from conftest import heavy_examples
from hypothesis import given, settings
from hypothesis import strategies as st
from prefcert.encodings import consistency as enc
from prefcert.formal.checker import check
from prefcert.formal.checker.consistency import SPEC
from prefcert.formal.consistency import (
    UNITS,
    ConsistencyData,
    judgment_arcs,
    judgment_arcs_ints,
    nodes_of,
    observation_arcs,
    observations,
    order_cost,
    parse_consistency,
)
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.oracles import consistency as orc

P = lambda a, b, **kw: {"id": "c", "type": "pair", "a": a, "b": b, "values": [1], **kw}  # noqa: E731
BAD = [
    [1, 2],
    {"foo": 1},
    {"cells": {"id": "c"}},
    {"cells": [3]},
    {"cells": [{"id": ""}]},
    {"cells": [{"id": "c", "type": "item", "item": "x", "values": [1]},
               {"id": "c", "type": "item", "item": "x", "values": [1]}]},
    {"cells": [{"id": "c", "type": "item", "item": "x"}]},
    {"cells": [{"id": "c", "type": "item", "item": "x", "values": []}]},
    {"cells": [{"id": "c", "type": "item", "item": "x", "values": [True]}]},
    {"cells": [{"id": "c", "type": "item", "item": "x", "values": [float("inf")]}]},
    {"cells": [{"id": "c", "type": "item", "item": "x", "values": ["1/0"]}]},
    {"cells": [{"id": "c", "type": "item", "item": "x", "values": ["abc"]}]},
    {"cells": [{"id": "c", "type": "item", "item": "x", "values": [None]}]},
    {"cells": [P({"item": "x"}, {"item": "y", "price": 1})]},
    {"cells": [P({"item": "x", "price": 1}, "y")]},
    {"cells": [P({"item": 3, "price": 1}, {"item": "y", "price": 1})]},
    {"cells": [P({"item": "x", "price": "p"}, {"item": "y", "price": 1})]},
    {"cells": [P({"item": "x", "price": 1}, {"item": "y", "price": [1]})]},
    {"cells": [P({"item": "x", "price": 1}, {"item": "x", "price": "1"})]},
    {"cells": [{"id": "c", "type": "item", "values": [1]}]},
    {"cells": [{"id": "c", "type": "item", "item": 5, "values": [1]}]},
    {"cells": [{"id": "c", "type": "cell", "values": [1]}]},
    {"cells": [{"id": "c", "values": ["x"]}]},
    {"choices": "ab"},
    {"choices": [["a", "a", 1]]},
    {"choices": [["a", "b", 0]]},
    {"choices": [["a", "b", True]]},
    {"choices": [["a", "b", 1.0]]},
    {"choices": [["a", 2, 1]]},
    {"choices": [["a", "b"]]},
    {"rankings": {"a": 1}},
    {"rankings": [["a", "b", "a"]]},
    {"rankings": [["a", 1]]},
    {"rankings": ["ab"]},
    {"cells": [{"id": "c", "type": "item", "item": "x", "values": [1]}], "choices": [["a", "b", 1]], "rankings": 3},
]

#: str(InstanceError) of each, as the name-keyed parse of main printed them (values as JSON
#: since the fresh-user round: true, Infinity, double-quoted strings inside lists and objects)
MESSAGES = [
    "a consistency instance must be a JSON object: 'list'",
    'a consistency instance needs \'cells\', \'choices\' or \'rankings\': ["foo"]',
    "'cells' must be a list: 'dict'",
    "a cell must be an object with a string 'id': 3",
    'a cell must be an object with a string \'id\': {"id": ""}',
    "cell id repeated: 'c'",
    "cell 'c' needs a non-empty list of 'values'",
    "cell 'c' needs a non-empty list of 'values': []",
    "cell 'c': value must be a number: true",
    "cell 'c': value must be finite: Infinity",
    "cell 'c': value is not a rational number: '1/0'",
    "cell 'c': value is not a rational number: 'abc'",
    "cell 'c': value must be a number",
    'cell \'c\': offer \'a\' must be {"item": name, "price": number}: {"item": "x"}',
    'cell \'c\': offer \'b\' must be {"item": name, "price": number}: \'y\'',
    'cell \'c\': offer \'a\' must be {"item": name, "price": number}: {"item": 3, "price": 1}',
    "cell 'c': price of a is not a rational number: 'p'",
    "cell 'c': price of b must be a number: [1]",
    'cell \'c\': a pair cell needs two different offers: {"item": "x", "price": 1}',
    "cell 'c': an item cell needs an 'item' name",
    "cell 'c': an item cell needs an 'item' name: 5",
    "cell 'c': 'type' must be 'pair' or 'item': 'cell'",
    "cell 'c': value is not a rational number: 'x'",
    "'choices' must be a list: 'str'",
    "a choice is [winner, loser, count >= 1] of two different names: [\"a\", \"a\", 1]",
    "a choice is [winner, loser, count >= 1] of two different names: [\"a\", \"b\", 0]",
    "a choice is [winner, loser, count >= 1] of two different names: [\"a\", \"b\", true]",
    "a choice is [winner, loser, count >= 1] of two different names: [\"a\", \"b\", 1.0]",
    "a choice is [winner, loser, count >= 1] of two different names: [\"a\", 2, 1]",
    "a choice is [winner, loser, count >= 1] of two different names: [\"a\", \"b\"]",
    "'rankings' must be a list: 'dict'",
    "a ranking is a list of distinct names, best first: [\"a\", \"b\", \"a\"]",
    "a ranking is a list of distinct names, best first: [\"a\", 1]",
    "a ranking is a list of distinct names, best first: 'ab'",
    "'rankings' must be a list: 'int'",
]


@pytest.mark.parametrize("bad,message", list(zip(BAD, MESSAGES)))
def test_every_parse_error_and_its_message_is_unchanged(bad, message):
    with pytest.raises(InstanceError) as e:
        parse_consistency(bad)
    assert str(e.value) == message


NAMES = ["x", "y", "z", "w", "v"]
value = st.one_of(st.integers(-40, 40), st.integers(-400, 400).map(lambda k: k / 10),
                  st.tuples(st.integers(-9, 9), st.integers(1, 6)).map(lambda t: f"{t[0]}/{t[1]}"))


@st.composite
def raw_instances(draw, cardinal: bool = True, ordinal: bool = True) -> dict:
    """Cells (price-only pairs, item cells, ungrounded components, repeated items),
    choices (both directions, ties) and rankings, over a few names."""
    inst: dict = {}
    if cardinal and draw(st.booleans()) or not ordinal:
        cells = []
        for i in range(draw(st.integers(1, 9))):
            vals = draw(st.lists(value, min_size=1, max_size=3))
            if draw(st.booleans()):
                a, b = draw(st.sampled_from(NAMES)), draw(st.sampled_from(NAMES))
                p, q = draw(st.integers(0, 9)), draw(st.integers(0, 9))
                if (a, p) == (b, q):
                    q += 1
                cells.append({"id": f"c{i}", "type": "pair", "a": {"item": a, "price": p},
                              "b": {"item": b, "price": q}, "values": vals})
            else:
                cells.append({"id": f"c{i}", "type": "item",
                              "item": draw(st.sampled_from(NAMES)), "values": vals})
        inst["cells"] = cells
    if ordinal and (draw(st.booleans()) or "cells" not in inst):
        pair = st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)).filter(
            lambda t: t[0] != t[1])
        inst["choices"] = [[a, b, draw(st.integers(1, 3))]
                           for a, b in draw(st.lists(pair, max_size=14))]
        if draw(st.booleans()):
            inst["rankings"] = draw(st.lists(st.permutations(NAMES).flatmap(
                lambda p: st.integers(2, len(p)).map(lambda k: list(p[:k]))), max_size=2))
    return inst


def _reference_ints(raw: dict):
    """The integer form computed directly from the JSON: items and nodes numbered in
    first-seen order, arcs and choices renamed."""
    items: dict = {}
    tails, heads, nvals = [], [], []
    for c in raw.get("cells", []):
        if c["type"] == "pair":
            a, b = c["a"]["item"], c["b"]["item"]
            tails.append(items.setdefault(a, len(items)))
            heads.append(items.setdefault(b, len(items)))
        else:
            tails.append(-1)
            heads.append(items.setdefault(c["item"], len(items)))
        nvals.append(len(c["values"]))
    nodes: dict = {}
    ch = [tuple(c) for c in raw.get("choices", [])]
    for r in raw.get("rankings", []):
        ch += [(r[i], r[j], 1) for i in range(len(r)) for j in range(i + 1, len(r))]
    for c in raw.get("choices", []):
        nodes.setdefault(c[0], len(nodes))
        nodes.setdefault(c[1], len(nodes))
    for r in raw.get("rankings", []):
        for x in r:
            nodes.setdefault(x, len(nodes))
    return (tuple(items), tails, heads, nvals, tuple(nodes),
            [nodes[a] for a, _, _ in ch], [nodes[b] for _, b, _ in ch], [k for *_, k in ch])


def _ints_tuple(i):
    return (i.items, i.tail, i.head, i.nvalues, i.nodes, i.winner, i.loser, i.count)


@settings(max_examples=heavy_examples(200, 60))
@given(raw_instances())
def test_the_one_pass_integer_form_matches_the_name_built_model(raw):
    model = parse_consistency(raw)
    by_names = ConsistencyData(model.cells, model.choices, model.nodes)   # main's build
    assert model == by_names and by_names == model
    assert model.items == by_names.items and model.nodes == by_names.nodes
    assert model.to_json() == by_names.to_json()
    assert _ints_tuple(model.ints) == _reference_ints(raw)
    assert _ints_tuple(by_names.ints) == _ints_tuple(model.ints)          # lazy from names
    assert model.ints.item_index == {x: i for i, x in enumerate(model.items)}
    assert model.ints.node_index == {x: i for i, x in enumerate(model.nodes)}
    back = pickle.loads(pickle.dumps(model))
    assert back == model and _ints_tuple(back.ints) == _ints_tuple(model.ints)
    for mode in ("majority", "choices"):
        names = judgment_arcs(model, mode)
        ints = judgment_arcs_ints(model, mode)
        assert [(model.nodes[a], model.nodes[b], w) for (a, b), w in ints.items()] == \
            [(a, b, w) for (a, b), w in names.items()]
    for unit in UNITS:
        obs = observations(model, unit)
        tails, heads = observation_arcs(model, obs)
        assert [None if t < 0 else model.items[t] for t in tails] == [o.tail for o in obs]
        assert [model.items[h] for h in heads] == [o.head for o in obs]
        # hand-made observations (no integers attached) are looked up
        bare = [type(o)(o.tail, o.head, o.r, o.w, o.cell) for o in obs]
        assert observation_arcs(model, bare) == (tails, heads)


# ------------------------------------------------------------------------------ cardinal

def _old_incidence_dense(obs, items):
    """main's name-keyed incidence, dense."""
    idx = {x: i for i, x in enumerate(items)}
    a = np.zeros((len(obs), len(items)))
    for i, o in enumerate(obs):
        a[i, idx[o.head]] += 1
        if o.tail is not None:
            a[i, idx[o.tail]] -= 1
    return a


def _lstsq_cost(obs, items) -> float:
    """The least-squares lack of fit by numpy on the dense name-keyed system."""
    a = _old_incidence_dense(obs, items)
    sw = np.sqrt([float(o.w) for o in obs])
    r = np.array([float(o.r) for o in obs])
    x, *_ = np.linalg.lstsq(a * sw[:, None], r * sw, rcond=None)
    return float(np.sum((r - a @ x) ** 2 * sw ** 2))


@settings(max_examples=heavy_examples(150, 50))
@given(raw_instances(ordinal=False), st.sampled_from(UNITS))
def test_integer_cardinal_engines_against_the_name_keyed_formulation(raw, unit):
    model = parse_consistency(raw)
    obs = observations(model, unit)
    a, r, w = enc._incidence(model, obs)
    assert np.array_equal(a.toarray(), _old_incidence_dense(obs, model.items))
    assert list(r) == [float(o.r) for o in obs] and list(w) == [float(o.w) for o in obs]
    l2 = orc.l2_exact(model, obs)
    assert l2.verdict == "optimal"
    assert set(l2.solution["utilities"]) == set(model.items)
    assert float(Fraction(l2.solution["cost"])) == pytest.approx(_lstsq_cost(obs, model.items),
                                                                 abs=1e-6)
    l1 = orc.l1_min_cost_flow(model, obs)
    lp = enc.l1_lp(model, obs)
    assert Fraction(l1.solution["cost"]) == Fraction(lp.solution["cost"])
    assert list(l1.solution["utilities"]) == list(model.items)
    for q, o in (("l1_repair", l1), ("l1_repair", lp), ("l2_repair", l2),
                 ("l2_repair", enc.l2_lstsq(model, obs))):
        check(SPEC, model, q, {"unit": unit}, o.verdict, o.solution, o.certificate)
        # the checker reads a name-built model (its integers made on first use) alike
        check(SPEC, ConsistencyData(model.cells, model.choices, model.nodes), q,
              {"unit": unit}, o.verdict, o.solution, o.certificate)


def test_the_least_squares_utilities_keep_their_component_order():
    """Components in order of their first item, an ungrounded one pinned at its first
    item: the utilities dict lists the items as main's name-keyed solver did."""
    raw = {"cells": [
        {"id": "1", "type": "pair", "a": {"item": "q", "price": 0},
         "b": {"item": "p", "price": 0}, "values": [3]},
        {"id": "2", "type": "item", "item": "s", "values": [5]},
        {"id": "3", "type": "pair", "a": {"item": "s", "price": 0},
         "b": {"item": "q", "price": 1}, "values": [2]},
        {"id": "4", "type": "pair", "a": {"item": "t", "price": 0},
         "b": {"item": "u", "price": 0}, "values": [1]}]}
    model = parse_consistency(raw)
    o = orc.l2_exact(model, observations(model))
    assert o.solution["utilities"] == {"q": "8", "p": "11", "s": "5", "t": "0", "u": "1"}
    assert list(o.solution["utilities"]) == ["q", "p", "s", "t", "u"]
    assert o.solution["cost"] == "0"


def _forge(model, q, o):
    """Yield (solution, certificate, message) forgeries of an accepted answer."""
    sol, cert = o.solution, o.certificate
    items = list(model.items)
    u = dict(sol["utilities"])
    yield {**sol, "utilities": {k: v for k, v in u.items() if k != items[-1]}}, cert, \
        f"no utility for item {items[-1]!r}"
    yield {**sol, "utilities": {**u, "nowhere": "0"}}, cert, "not an item"
    yield {**sol, "utilities": {**u, items[0]: "p"}}, cert, "not a rational"
    yield sol, {**cert, "flow": cert["flow"][:-1]}, "one rational per observation"
    flow = list(cert["flow"])
    flow[0] = str(Fraction(flow[0]) + 2)          # weight 1 (unit "cell"): now beyond it
    yield sol, {**cert, "flow": flow}, None       # not conserved, too large or a wrong bound
    yield {**sol, "cost": str(Fraction(sol["cost"]) + 1)}, cert, "do not both equal"


@settings(max_examples=heavy_examples(80, 30))
@given(raw_instances(ordinal=False))
def test_forged_cardinal_certificates_are_refused(raw):
    model = parse_consistency(raw)
    obs = observations(model)
    for q, o in (("l1_repair", orc.l1_min_cost_flow(model, obs)),
                 ("l2_repair", orc.l2_exact(model, obs))):
        for sol, cert, message in _forge(model, q, o):
            with pytest.raises(CertificateError, match=message):
                check(SPEC, model, q, {"unit": "cell"}, "optimal", sol, cert)


def test_an_unbalanced_flow_names_the_first_item_in_input_order():
    raw = {"cells": [
        {"id": "1", "type": "pair", "a": {"item": "b", "price": 0},
         "b": {"item": "a", "price": 0}, "values": [1]},
        {"id": "2", "type": "item", "item": "a", "values": [1]},
        {"id": "3", "type": "item", "item": "b", "values": [0]}]}
    model = parse_consistency(raw)
    sol = {"utilities": {"a": "1", "b": "0"}, "cost": "0"}
    with pytest.raises(CertificateError, match=r"not conserved at item 'b' \(excess -1\)"):
        check(SPEC, model, "l1_repair", None, "optimal", sol,
              {"type": "circulation_dual", "flow": ["1", "0", "0"]})
    with pytest.raises(CertificateError, match="exceeds its weight"):
        check(SPEC, model, "l1_repair", None, "optimal", sol,
              {"type": "circulation_dual", "flow": ["2", "-2", "2"]})


# ------------------------------------------------------------------------------ ordinal

def _old_kahn(arcs, nodes):
    """main's name-keyed Kahn order and cycle walk."""
    all_nodes = nodes_of(arcs, nodes)
    succ = {x: [] for x in all_nodes}
    indeg = dict.fromkeys(all_nodes, 0)
    for a, b in arcs:
        succ[a].append(b)
        indeg[b] += 1
    queue = deque(x for x in all_nodes if indeg[x] == 0)
    order = []
    while queue:
        x = queue.popleft()
        order.append(x)
        for y in succ[x]:
            indeg[y] -= 1
            if indeg[y] == 0:
                queue.append(y)
    if len(order) == len(all_nodes):
        return order, None
    left = {x for x in all_nodes if indeg[x] > 0}
    pred = {x: next(a for a, b in arcs if b == x and a in left) for x in left}
    x, seen = sorted(left, key=all_nodes.index)[0], []
    while x not in seen:
        seen.append(x)
        x = pred[x]
    return None, seen[seen.index(x):][::-1]


@settings(max_examples=heavy_examples(200, 60))
@given(raw_instances(cardinal=False), st.sampled_from(["majority", "choices"]))
def test_integer_ordinal_oracles_against_main_and_brute_force(raw, mode):
    model = parse_consistency(raw)
    arcs = judgment_arcs(model, mode)
    ia = judgment_arcs_ints(model, mode)
    names = model.ints.nodes
    n = len(names)
    assert list(names) == nodes_of(arcs, model.nodes)
    costs = {p: order_cost(arcs, p) for p in itertools.permutations(names)}
    best = min(costs.values())
    order, cycle = orc.kahn_order_ints(n, ia)
    old = _old_kahn(arcs, model.nodes)
    assert (None if order is None else [names[x] for x in order],
            None if cycle is None else [names[x] for x in cycle]) == old
    assert (cycle is None) == (best == 0)
    ncycle = orc.judgment_cycle_ints(n, ia)
    assert (ncycle is None) == (best == 0)
    if ncycle is not None:
        assert all((a, b) in ia for a, b in zip(ncycle, ncycle[1:] + ncycle[:1]))
        check(SPEC, model, "transitive", {"judgments": mode}, "false", None,
              {"type": "judgment_cycle", "cycle": [names[x] for x in ncycle]})
    else:
        topo = orc.consistent_order_ints(n, ia)
        assert costs[tuple(names[x] for x in topo)] == 0
        # the smallest available node first: the first such order in input order
        assert tuple(names[x] for x in topo) == min(
            (p for p, c in costs.items() if c == 0), key=lambda p: [names.index(x) for x in p])
        check(SPEC, model, "transitive", {"judgments": mode}, "true",
              [names[x] for x in topo], {"type": "consistent_order"})
    fas = orc.fas_exact_ints(names, ia)
    assert fas.solution["reversed"] == best == costs[tuple(fas.solution["order"])]
    assert fas.solution == orc.fas_exact(arcs, model.nodes).solution
    check(SPEC, model, "feedback_arc_set", {"judgments": mode}, "optimal", fas.solution,
          fas.certificate)
    comps = orc.strong_components_ints(n, ia)
    assert sorted(x for c in comps for x in c) == list(range(n))
    assert [[names[x] for x in c] for c in comps] == orc.strong_components(arcs, model.nodes)


def test_dp_order_reads_only_the_arcs_of_its_component():
    """fas_exact_ints hands each component its own arcs (no scan of all arcs per
    component): a chain of 3-cycles, each needing one reversal."""
    chain = []
    for k in range(0, 30, 3):
        a, b, c = (f"n{k + i:02d}" for i in range(3))
        chain += [[a, b, 1], [b, c, 1], [c, a, 1]]
        if k:
            chain.append([f"n{k - 1:02d}", a, 1])
    model = parse_consistency({"choices": chain})
    ia = judgment_arcs_ints(model)
    calls = []
    real = orc._dp_order

    def spy(nodes, arcs):
        calls.append((len(nodes), len(arcs)))
        return real(nodes, arcs)
    orc._dp_order = spy
    try:
        o = orc.fas_exact_ints(model.ints.nodes, ia)
    finally:
        orc._dp_order = real
    assert o.solution["reversed"] == 10
    assert calls == [(3, 3)] * 10


def test_forged_ordinal_certificates_are_refused():
    model = parse_consistency({"choices": [["a", "b", 1], ["b", "c", 1], ["c", "a", 1],
                                           ["c", "d", 2]]})
    q = "transitive"
    for cycle, message in ((["a", "c", "b"], "is not a judgment"),
                           (["a", "b", "zz"], "is not a judgment"),
                           (["a"], "at least two"), (["a", "b", "a"], "at least two"),
                           ("abc", "at least two")):
        with pytest.raises(CertificateError, match=message):
            check(SPEC, model, q, None, "false", None,
                  {"type": "judgment_cycle", "cycle": cycle})
    for order in (["a", "b", "c"], ["a", "b", "c", "d", "d"], ["a", "b", "c", "e"]):
        with pytest.raises(CertificateError, match="every alternative exactly once"):
            check(SPEC, model, "feedback_arc_set", None, "optimal",
                  {"order": order, "reversed": 1}, {"type": "fas_bound", "cycles": []})
    with pytest.raises(CertificateError, match="reverses 2, not the stated 1"):
        check(SPEC, model, "feedback_arc_set", None, "optimal",
              {"order": ["d", "a", "b", "c"], "reversed": 1}, {"type": "fas_bound", "cycles": []})
    with pytest.raises(CertificateError, match="reverses a judgment"):
        check(SPEC, parse_consistency({"rankings": [["a", "b", "c"]]}), q, None, "true",
              ["a", "c", "b"], {"type": "consistent_order"})


def test_forged_cycle_packings_are_refused():
    """A 13-cycle (beyond the checker's own DP) bounded by a packing: a packing that
    overloads an arc, has a negative weight, names an unknown alternative or is not a list
    is refused; the honest one proves the value."""
    ring = [f"r{k:02d}" for k in range(13)]
    model = parse_consistency({"choices": [[a, b, 1] for a, b in zip(ring, ring[1:] + ring[:1])]})
    sol = {"order": ring, "reversed": 1}
    good = {"type": "fas_bound", "cycles": [{"cycle": ring, "y": 1}]}
    check(SPEC, model, "feedback_arc_set", None, "optimal", sol, good)
    for cycles, message in (
            ([{"cycle": ring, "y": "1/2"}, {"cycle": ring[1:] + ring[:1], "y": "2/3"}],
             r"loads judgment 'r01' ≻ 'r02' beyond its weight 1"),
            ([{"cycle": ring, "y": -1}], "negative"),
            ([{"cycle": ring[:-1] + ["zz"], "y": 1}], r"'r11' ≻ 'zz' is not a judgment"),
            ([{"cycle": ring[::-1], "y": 1}], r"'r12' ≻ 'r11' is not a judgment"),
            ([["r00", "r01"]], "a packed cycle is"),
            ({"cycle": ring}, "must be a list"),
            ([], "does not reach the value 1")):
        with pytest.raises(CertificateError, match=message):
            check(SPEC, model, "feedback_arc_set", None, "optimal", sol,
                  {"type": "fas_bound", "cycles": cycles})
