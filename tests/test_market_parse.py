"""The market parser's fast paths against the general ones they stand in for.

``formal.matching._order`` must give exactly what ``parse_weak_order`` gives (the same
order, the same name objects, the input rewritten alike, the same error on bad input), and
``Market`` must restrict side B's lists exactly as the per-entry pass does when it skips
that pass. Inputs: well-formed lists (strict, tied, one big tie, empty) and malformed ones
(unknown, repeated, non-string and unhashable items, empty ties, tuples, non-lists).
"""
from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st
from prefcert.formal.errors import InstanceError
from prefcert.formal.matching import Market, _order, parse_market, restrict
from prefcert.formal.preferences import WeakOrder, parse_weak_order

NAMES = [f"b{i}" for i in range(6)]
ITEM = st.one_of(st.sampled_from(NAMES), st.sampled_from(["zz", ""]), st.integers(0, 3),
                 st.just(None), st.just(["b0"]), st.just({"b1": 1}))
ENTRY = st.one_of(st.sampled_from(NAMES),
                  st.lists(st.sampled_from(NAMES), min_size=0, max_size=4),
                  st.lists(ITEM, min_size=1, max_size=3), ITEM,
                  st.tuples(st.sampled_from(NAMES)))


def _outcome(fn, raw, names):
    raw = copy.deepcopy(raw)
    try:
        out = fn(raw, names)
    except InstanceError as e:
        return ("error", str(e)), raw
    return ("order", out.items, out.rank, out.nties, [id(x) for x in out.items]), raw


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.lists(st.sampled_from(NAMES), max_size=6, unique=True),
                 st.lists(ENTRY, max_size=6), ITEM))
def test_order_fast_path_is_parse_weak_order(raw):
    names = {y: "".join(y) for y in NAMES}      # name objects distinct from the input's
    fast, fast_raw = _outcome(lambda r, n: _order(r, "a0", n), raw, names)
    slow, slow_raw = _outcome(
        lambda r, n: parse_weak_order(r, agent="a0", known=n, canon=n), raw, names)
    assert fast == slow
    assert fast_raw == slow_raw     # and rewritten to the same (shared) objects:
    assert _shared(fast_raw, names) == _shared(slow_raw, names)


def _shared(raw, names):
    if not isinstance(raw, list):
        return None
    flat = [x for e in raw for x in (e if isinstance(e, (list, tuple)) else [e])]
    return [isinstance(x, str) and x is names.get(x) for x in flat]


def _side(draw, owners, others):
    out = {}
    for x in owners:
        items = draw(st.permutations(others).flatmap(
            lambda p: st.integers(0, len(p)).map(lambda k: p[:k])))
        out[x] = WeakOrder(tuple((y,) for y in items))
    return out


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_side_b_restricted_as_by_the_entry_pass(data):
    a_names = [f"a{i}" for i in range(data.draw(st.integers(0, 4)))]
    b_names = [f"b{i}" for i in range(data.draw(st.integers(0, 4)))]
    a = _side(data.draw, a_names, b_names)
    b = _side(data.draw, b_names, a_names)
    if data.draw(st.booleans()):     # make every entry mutual (the shortcut's case)
        b = {y: WeakOrder(tuple((x,) for x in a_names if y in a[x].rank)) for y in b_names}
    m = Market(a, b)
    assert m.pb == restrict(b, a)
    assert list(m.pb) == list(restrict(b, a))


def test_parse_market_rewrites_to_shared_names():
    data = {"preferences": {"A": {"a1": ["b1", ["b2", "b1x"]], "a2": ["b2"]},
                            "B": {"b1": ["a1"], "b2": ["a2", "a1"], "b1x": ["a1"]}}}
    m = parse_market(data)
    assert m.a["a1"].rank == {"b1": 1, "b2": 2, "b1x": 2}
    assert data["preferences"]["A"]["a1"][1][0] is next(k for k in data["preferences"]["B"]
                                                        if k == "b2")
    assert m.pb["b2"].items == ("a2", "a1")
