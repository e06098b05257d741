"""The SMTI encodings and the house-allocation Pareto paths on the integer forms (issue 24,
item 2).

SMTI: the CP-SAT and z3 models of weak, strong and super-stability, now built from
``market.ints``, are checked against the old formulation, written here as it was (read
from the name-keyed ``WeakOrder``s ``pa`` / ``pb``): the same CP-SAT proto and the same
SMT-LIB text, variable for variable and constraint for constraint, in both forms, so the
solvers answer the same way (and the labels, which record a witness, stay the same).

Markets: names whose sorted order is not their input order, ties, incomplete and
one-sided lists, empty lists, unequal sides; parsed ones and ones built from orders.
"""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from prefcert.encodings.stable_matching import (
    FORMS,
    stable_matching_cpsat_model,
    stable_matching_z3_model,
)
from prefcert.formal.stable_matching import NOTIONS, Market, parse_market
from prefcert.generators.stable_matching import sample_smti
from shared import written_lists

# ------------------------------------------------------------------ SMTI instances


@st.composite
def smti_data(draw, max_side: int = 6):
    """An SMTI instance: 1..max_side agents a side (unequal), names out of order."""
    na, nb = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    rng = random.Random(draw(st.integers(0, 2**32)))
    a = [f"a{k}" for k in rng.sample(range(20), na)]
    b = [f"b{k}" for k in rng.sample(range(20), nb)]
    return {"preferences": {"A": written_lists(rng, a, b), "B": written_lists(rng, b, a)}}


# ------------------------------------------------------------- the old SMTI formulation

_CLAUSES = {
    "weak": (("weak", "weak"),),
    "super": (("strict", "strict"),),
    "strong": (("weak", "strict"), ("strict", "weak")),
}


def _sides(market):
    return [(x, o, True) for x, o in market.pa.items()] + \
           [(y, o, False) for y, o in market.pb.items()]


def _row_pairs(market, x, y, kind, side_a):
    order = market.pa[x] if side_a else market.pb[x]
    r = order.rank[y]
    lim = r if kind == "weak" else r - 1
    out = []
    for t in order.ties[:lim]:
        for z in t:
            if z != y:
                out.append((x, z) if side_a else (z, x))
    return out


def old_cpsat_model(market: Market, notion: str, form: str):
    """The CP-SAT model as it was built before issue 24 (from the name-keyed orders)."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    x = {(a, b): model.new_bool_var(f"x[{a},{b}]") for a, b in market.edges()}
    by_agent: dict = {}
    for (a, b), v in x.items():
        by_agent.setdefault((True, a), []).append(v)
        by_agent.setdefault((False, b), []).append(v)
    for vs in by_agent.values():
        if len(vs) > 1:
            model.add_at_most_one(vs)
    top: dict = {}
    if form == "ladder":
        for agent, order, side_a in _sides(market):
            ladder = [model.new_constant(0)]
            for r, tie in enumerate(order.ties, 1):
                t = model.new_bool_var(f"top[{agent},{r}]")
                pairs = [x[(agent, z)] if side_a else x[(z, agent)] for z in tie]
                model.add(t == ladder[-1] + sum(pairs))
                ladder.append(t)
            top[(side_a, agent)] = ladder
    for a, b in market.edges():
        ra, rb = market.pa[a].rank[b], market.pb[b].rank[a]
        for ka, kb in _CLAUSES[notion]:
            if form == "ladder":
                lits = [x[(a, b)],
                        top[(True, a)][ra if ka == "weak" else ra - 1],
                        top[(False, b)][rb if kb == "weak" else rb - 1]]
            else:
                lits = [x[(a, b)]]
                lits += [x[p] for p in _row_pairs(market, a, b, ka, True)]
                lits += [x[p] for p in _row_pairs(market, b, a, kb, False)]
            model.add_bool_or(lits)
    return model, x


def old_z3_model(market: Market, notion: str, form: str):
    """The SMT-LIB text as it was written before issue 24 (from the name-keyed orders)."""
    pairs = list(market.edges())
    xid = {p: f"x{i}" for i, p in enumerate(pairs)}
    out = [f"(declare-const {v} Bool)" for v in xid.values()]

    def var(agent, z, side_a):
        return xid[(agent, z)] if side_a else xid[(z, agent)]

    for agent, order, side_a in _sides(market):
        vs = [var(agent, z, side_a) for z in order.items]
        if len(vs) > 1:
            out.append(f"(assert ((_ at-most 1) {' '.join(vs)}))")
    top: dict = {}
    if form == "ladder":
        j = 0
        for agent, order, side_a in _sides(market):
            ladder = ["false"]
            for tie in order.ties:
                t = f"t{j}"
                j += 1
                out.append(f"(declare-const {t} Bool)")
                body = " ".join([ladder[-1]] + [var(agent, z, side_a) for z in tie])
                out.append(f"(assert (= {t} (or {body})))")
                ladder.append(t)
            top[(side_a, agent)] = ladder

    def prefix(agent, side_a, lim):
        order = market.pa[agent] if side_a else market.pb[agent]
        return [var(agent, z, side_a) for t in order.ties[:lim] for z in t]

    for a, b in pairs:
        ra, rb = market.pa[a].rank[b], market.pb[b].rank[a]
        for ka, kb in _CLAUSES[notion]:
            la = ra if ka == "weak" else ra - 1
            lb = rb if kb == "weak" else rb - 1
            if form == "ladder":
                lits = [xid[(a, b)], top[(True, a)][la], top[(False, b)][lb]]
            else:
                lits = [xid[(a, b)], *prefix(a, True, la), *prefix(b, False, lb)]
            out.append(f"(assert (or {' '.join(lits)}))")
    return "\n".join(out), pairs


def same_smti_models(data: dict) -> None:
    parsed = parse_market(data)
    built = Market(dict(parsed.a), dict(parsed.b))     # integer form made from the orders
    for market in (parsed, built):
        for notion in NOTIONS:
            for form in FORMS:
                old, xo = old_cpsat_model(parse_market(data), notion, form)
                new, xn = stable_matching_cpsat_model(market, notion, form=form)
                assert str(new.proto) == str(old.proto), (data, notion, form)
                assert list(xn) == list(xo)
                assert [v.index for v in xn.values()] == [v.index for v in xo.values()]
                text_o, pairs_o = old_z3_model(parse_market(data), notion, form)
                text_n, pairs_n = stable_matching_z3_model(market, notion, form=form)
                assert text_n == text_o, (data, notion, form)
                assert pairs_n == pairs_o


@settings(max_examples=300, deadline=None)
@given(smti_data())
def test_smti_models_from_the_integer_form_are_the_name_built_ones(data):
    same_smti_models(data)


def test_smti_models_on_edge_cases_and_larger_markets():
    same_smti_models({"preferences": {"A": {"m": []}, "B": {"w": []}}})
    same_smti_models({"preferences": {"A": {"m2": [["w2", "w1"]], "m1": ["w1"]},
                                      "B": {"w2": ["m1", "m2"], "w1": [["m1", "m2"]]}}})
    rng = random.Random(3)
    for seed in range(25):
        same_smti_models(sample_smti(rng.randint(5, 25), rng.randint(5, 25),
                                     tie_prob=rng.choice([0.0, 0.3, 0.8]),
                                     truncate=rng.random() < 0.6, seed=seed))
