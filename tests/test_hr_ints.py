"""The integer form of hospitals/residents (issue 24, item 2): the one-pass parse gives
the same orders, admissible lists, integer form and errors as the old path (one
:func:`parse_weak_order` per agent, the market built from the orders), and the oracles
and the checker, which now read the integer form, agree with the name-keyed definitions
that were not rewritten (the brute force's :func:`stable_notions` and
:func:`stable_matchings`) — on random instances with ties, incomplete and one-sided
lists, capacities 0..3, and names whose sorted order is not their input order."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefcert.formal.checker import hospitals_residents as chk
from prefcert.formal.errors import InstanceError
from prefcert.formal.hospitals_residents import HRMarket, parse_hospitals_residents
from prefcert.formal.weak_order import parse_weak_order
from prefcert.oracles import hospitals_residents as orc
from shared import written_lists


@st.composite
def hr_instances(draw, max_r: int = 5, max_h: int = 3, bad: bool = True):
    """Names drawn out of order (``x7`` before ``x2``), ties, incomplete and one-sided
    lists, capacities 0..3; with ``bad``, sometimes an empty tie, an unknown or repeated
    agent or a number in a list."""
    nr, nh = draw(st.integers(1, max_r)), draw(st.integers(1, max_h))
    rng = random.Random(draw(st.integers(0, 2**32)))
    res = [f"r{k}" for k in rng.sample(range(20), nr)]
    hos = [f"h{k}" for k in rng.sample(range(20), nh)]
    broken = bad and draw(st.booleans()) and draw(st.booleans())

    return {"preferences": {"residents": written_lists(rng, res, hos, broken),
                            "hospitals": written_lists(rng, hos, res, broken)},
            "capacities": {h: rng.choice([0, 1, 1, 2, 3]) for h in hos}}


def order_built(data) -> HRMarket:
    """The old path: one :func:`parse_weak_order` per agent, the market built from the
    orders (its integer form then made from them)."""
    pr, ph = data["preferences"]["residents"], data["preferences"]["hospitals"]
    r = {x: parse_weak_order(v, agent=x, known=ph) for x, v in pr.items()}
    h = {y: parse_weak_order(v, agent=y, known=pr) for y, v in ph.items()}
    return HRMarket(r, h, dict(data["capacities"]))


def side(s):
    return (s.names, s.index, s.lists, s.ties, s.nties, s.rank, s.written,
            s.written_ties, s.written_nties)


@settings(max_examples=400, deadline=None)
@given(hr_instances())
def test_one_pass_parse_is_the_order_built_market(data):
    try:
        want = order_built(data)
    except InstanceError as e:
        with pytest.raises(InstanceError) as got:
            parse_hospitals_residents(data)
        assert (got.value.agent, got.value.value, str(got.value)) == \
            (e.agent, e.value, str(e))
        return
    got = parse_hospitals_residents(data)
    assert got == want
    assert dict(got.pr) == dict(want.pr) and dict(got.ph) == dict(want.ph)
    assert got.dropped() == want.dropped()
    a, b = got.ints, want.ints
    assert side(a.r) == side(b.r) and side(a.h) == side(b.h) and a.cap == b.cap


@settings(max_examples=150, deadline=None)
@given(hr_instances(max_r=4, max_h=3, bad=False))
def test_checker_blocking_scan_is_the_name_keyed_definition(data):
    """Every matching of the market: the checker's integer scan finds no blocking pair of
    a notion exactly when the brute force's name-keyed twin says it is stable."""
    market = parse_hospitals_residents(data)
    for m in orc.all_matchings(market):
        ok = orc.stable_notions(market, m)
        for notion in ("weak", "strong", "super"):
            assert (chk.blocking_pairs(market, m, notion) == []) == (notion in ok), \
                (data, m, notion)


@settings(max_examples=150, deadline=None)
@given(hr_instances(max_r=5, max_h=3, bad=False))
def test_oracles_on_the_integer_form_match_enumeration(data):
    """SUPER-RES / STRONG-RES: a matching exactly when one exists (exhaustive, name-keyed
    search), stable by the name-keyed test, and a refutation the checker accepts; the
    weakly stable matching (deferred acceptance) is weakly stable."""
    market = parse_hospitals_residents(data)
    for notion, search in (("super", orc.super_stable_search),
                           ("strong", orc.strongly_stable_search)):
        exists = next(orc.stable_matchings(market, notion), None) is not None
        matching, refutation = search(market)
        assert (matching is not None) == exists, (data, notion)
        if matching is None:
            chk.replay_deletion_log(market, notion, refutation)
        else:
            assert notion in orc.stable_notions(market, matching)
            assert list(matching) == [r for r in market.residents if r in matching]
    for proposing in ("residents", "hospitals"):
        weak = orc.weakly_stable_matching(market, proposing)
        assert "weak" in orc.stable_notions(market, weak)


def golden_markets(count: int = 300) -> list[dict]:
    """Seeded markets whose names are scrambled (``r17`` before ``r3``: sorted order is
    not input order), with ties, incomplete lists and capacities 0..3."""
    rng = random.Random(2412)
    out = []
    for _ in range(count):
        res = [f"r{k}" for k in rng.sample(range(30), rng.randint(1, 7))]
        hos = [f"h{k}" for k in rng.sample(range(30), rng.randint(1, 4))]

        def lists(own, other):
            d = {}
            for x in own:
                order = rng.sample(other, rng.randint(0, len(other)))
                lst, k = [], 0
                while k < len(order):
                    w = rng.choice([1, 1, 2, 3])
                    lst.append(order[k:k + w] if w > 1 else order[k])
                    k += w
                d[x] = lst
            return d
        out.append({"preferences": {"residents": lists(res, hos),
                                    "hospitals": lists(hos, res)},
                    "capacities": {h: rng.choice([0, 1, 1, 2, 3]) for h in hos}})
    return out


#: SHA-256 of the JSON of every oracle answer (super, strong: matching and log; weakly
#: stable, both sides proposing) on :func:`golden_markets`, computed by the old,
#: name-keyed oracles (the previous main, b1d9db1)
GOLDEN = "82f997d302c4d0336364ee929e4e1795427f2fbdefa2b34bf8be95cf9234fe39"


def oracle_answers(parse) -> str:
    import hashlib
    import json
    out = []
    for data in golden_markets():
        m = parse(data)
        out.append([orc.super_stable_search(m), orc.strongly_stable_search(m),
                    orc.weakly_stable_matching(m, "residents"),
                    orc.weakly_stable_matching(m, "hospitals")])
    return hashlib.sha256(json.dumps(out).encode()).hexdigest()


def test_oracle_answers_are_the_old_name_keyed_ones():
    """Matchings (their key order included) and logs, byte for byte: where the
    name-keyed code sorted by name (STRONG-RES's bound residents, quota slots and the
    hospitals of N(Z)) the integer code still does."""
    assert oracle_answers(parse_hospitals_residents) == GOLDEN


def test_parse_makes_no_order_until_one_is_looked_up(monkeypatch):
    """The parse builds the integer form only: no WeakOrder is made (the oracles and the
    checker never need one) until an order is looked up."""
    from prefcert.formal import weak_order
    made = []
    real = weak_order.WeakOrder.from_ranked.__func__

    def counting(cls, *a, **k):
        made.append(1)
        return real(cls, *a, **k)
    monkeypatch.setattr(weak_order.WeakOrder, "from_ranked", classmethod(counting))
    market = parse_hospitals_residents({
        "preferences": {"residents": {"r1": ["h1", "h2"], "r2": [["h1", "h2"]]},
                        "hospitals": {"h1": ["r2", "r1"], "h2": ["r1"]}},
        "capacities": {"h1": 1, "h2": 1}})
    orc.super_stable_search(market)
    orc.strongly_stable_search(market)
    m = orc.weakly_stable_matching(market)
    chk.blocking_pairs(market, m, "super")
    assert made == []
    market.residents["r1"]
    assert made == [1]
