"""The market parser's fast paths against the general ones they stand in for.

``Market`` must restrict side B's lists exactly as the per-entry pass does when it skips
that pass, and ``parse_market``'s one-pass integer form must give the orders, restrictions
and errors of the order-by-order parse. Inputs: well-formed lists (strict, tied, one big tie, empty) and malformed ones
(unknown, repeated, non-string and unhashable items, empty ties, tuples, non-lists).
"""
from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st
from prefcert.formal.errors import InstanceError
from prefcert.formal.stable_matching import Market, parse_market, restrict
from prefcert.formal.weak_order import WeakOrder, parse_weak_order

NAMES = [f"b{i}" for i in range(6)]
ITEM = st.one_of(st.sampled_from(NAMES), st.sampled_from(["zz", ""]), st.integers(0, 3),
                 st.just(None), st.just(["b0"]), st.just({"b1": 1}))
ENTRY = st.one_of(st.sampled_from(NAMES),
                  st.lists(st.sampled_from(NAMES), min_size=0, max_size=4),
                  st.lists(ITEM, min_size=1, max_size=3), ITEM,
                  st.tuples(st.sampled_from(NAMES)))


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


def test_parse_market_orders_hold_the_agents_name_objects():
    """The orders made from the integer form name the agents by the model's own name
    objects (one string per agent however often it is listed, equal to its key), and the
    input is only read."""
    b2 = "".join(["b", "2"])                   # distinct objects, equal to the keys
    data = {"preferences": {"A": {"a1": ["b1", [b2, "b1x"]], "a2": ["".join(["b", "2"])]},
                            "B": {"b1": ["a1"], "b2": ["a2", "a1"], "b1x": ["a1"]}}}
    before = copy.deepcopy(data)
    m = parse_market(data)
    assert m.a["a1"].rank == {"b1": 1, "b2": 2, "b1x": 2}
    own = m.ints.b.names[m.ints.b.index["b2"]]
    assert own == "b2" and m.a["a1"].items[1] is own and m.a["a2"].items[0] is own
    assert m.pb["b2"].items == ("a2", "a1")
    assert data == before and data["preferences"]["A"]["a1"][1][0] is b2


def _weak_reference(market: Market) -> dict:
    """Ties broken by list position, then men-proposing deferred acceptance (one index
    dict per woman)."""
    pos = {y: {x: i for i, x in enumerate(o.items)} for y, o in market.pb.items()}
    lists = {x: o.items for x, o in market.pa.items()}
    nxt, holds, free = dict.fromkeys(lists, 0), {}, list(lists)[::-1]
    while free:
        x = free.pop()
        while nxt[x] < len(lists[x]):
            y = lists[x][nxt[x]]
            nxt[x] += 1
            cur = holds.get(y)
            if cur is None or pos[y][x] < pos[y][cur]:
                holds[y] = x
                if cur is not None:
                    free.insert(0, cur)
                break
    return {x: y for y, x in holds.items()}


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_weakly_stable_matching_breaks_ties_by_position(data):
    from prefcert.oracles.stable_matching import weakly_stable_matching
    n = data.draw(st.integers(1, 6))
    def order(others):
        items = data.draw(st.permutations(others))
        cuts = data.draw(st.lists(st.booleans(), min_size=len(items), max_size=len(items)))
        ties, cur = [], []
        for x, new in zip(items, cuts):
            if new and cur:
                ties.append(tuple(cur))
                cur = []
            cur.append(x)
        return WeakOrder(tuple(ties + ([tuple(cur)] if cur else [])))
    men, women = [f"a{i}" for i in range(n)], [f"b{i}" for i in range(n)]
    m = Market({x: order(women) for x in men}, {y: order(men) for y in women})
    assert weakly_stable_matching(m) == _weak_reference(m)


def _blocking_by_definition(market: Market, m: dict, notion: str) -> list:
    """Irving 1994's blocking pairs, pair by pair, in A's list order."""
    inv = {y: x for x, y in m.items()}
    out = []
    for x, o in market.pa.items():
        for y in o.items:
            if m.get(x) == y:
                continue
            ob = market.pb[y]
            sx, wx = o.prefers(y, m.get(x)), o.weakly_prefers(y, m.get(x))
            sy, wy = ob.prefers(x, inv.get(y)), ob.weakly_prefers(x, inv.get(y))
            if {"weak": sx and sy, "strong": (sx and wy) or (wx and sy),
                    "super": wx and wy}[notion]:
                out.append((x, y))
    return out


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_blocking_pairs_is_the_definition(data):
    from prefcert.formal.checker.stable_matching import blocking_pairs
    n = data.draw(st.integers(1, 5))
    def order(others):
        items = data.draw(st.permutations(others))
        items = items[:data.draw(st.integers(0, len(items)))]
        cuts = data.draw(st.lists(st.booleans(), min_size=len(items), max_size=len(items)))
        ties, cur = [], []
        for x, new in zip(items, cuts):
            if new and cur:
                ties.append(tuple(cur))
                cur = []
            cur.append(x)
        return WeakOrder(tuple(ties + ([tuple(cur)] if cur else [])))
    men, women = [f"a{i}" for i in range(n)], [f"b{i}" for i in range(n)]
    market = Market({x: order(women) for x in men}, {y: order(men) for y in women})
    m, used = {}, set()
    for x in men:                        # a random matching over admissible pairs
        options = [y for y in market.pa[x].items if y not in used]
        if options and data.draw(st.booleans()):
            m[x] = data.draw(st.sampled_from(options))
            used.add(m[x])
    for notion in ("weak", "strong", "super"):
        assert blocking_pairs(market, m, notion) == _blocking_by_definition(market, m, notion)


def _reference_market(data: dict):
    """The market by the general parser, order by order (the path before the integer
    form): ``parse_weak_order`` per list, A's lists first, then ``Market(a, b)``."""
    prefs = data["preferences"]
    ka, kb = set(prefs["A"]), set(prefs["B"])
    a = {x: parse_weak_order(lst, agent=x, known=kb) for x, lst in prefs["A"].items()}
    b = {y: parse_weak_order(lst, agent=y, known=ka) for y, lst in prefs["B"].items()}
    return Market(a, b)


SIDE_ENTRY = st.one_of(st.sampled_from(["b0", "b1", "b2", "a0", "a1", "a2"]),
                       st.lists(st.sampled_from(["b0", "b1", "b2", "a0", "a1", "a2"]),
                                min_size=0, max_size=3),
                       st.integers(0, 2))


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_parse_market_integer_form_matches_the_orders(data):
    """The one-pass integer parse gives the orders, restrictions, edges and errors of the
    order-by-order parse, on well-formed lists (strict, tied, incomplete, one-sided
    entries) and malformed ones."""
    na, nb = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))
    a_names, b_names = [f"a{i}" for i in range(na)], [f"b{j}" for j in range(nb)]

    def side(owners, others):
        out = {}
        for x in owners:
            if data.draw(st.integers(0, 9)) == 0:          # occasionally malformed
                out[x] = data.draw(st.lists(SIDE_ENTRY, max_size=4))
                continue
            items = data.draw(st.permutations(others))
            items = items[:data.draw(st.integers(0, len(items)))]
            cuts = data.draw(st.lists(st.booleans(), min_size=len(items), max_size=len(items)))
            lst: list = []
            for y, new in zip(items, cuts):
                if new or not lst:
                    lst.append(y)
                else:
                    last = lst.pop()
                    lst.append((last if isinstance(last, list) else [last]) + [y])
            out[x] = lst
        return out
    inst = {"preferences": {"A": side(a_names, b_names), "B": side(b_names, a_names)}}
    try:
        ref = _reference_market(copy.deepcopy(inst))
    except InstanceError as e:
        try:
            parse_market(copy.deepcopy(inst))
        except InstanceError as f:
            assert str(f) == str(e)
        else:
            raise AssertionError("no error")
        return
    m = parse_market(copy.deepcopy(inst))
    for got, want in ((m.a, ref.a), (m.b, ref.b), (m.pa, ref.pa), (m.pb, ref.pb)):
        assert list(got) == list(want)
        for x in want:
            assert (got[x].items, got[x].rank, got[x].nties, got[x].ties) == \
                (want[x].items, want[x].rank, want[x].nties, want[x].ties)
    assert list(m.edges()) == list(ref.edges())
    assert m.to_json() == ref.to_json() and m == ref and m.size == ref.size
    ints, rints = m.ints, ref.ints                 # both ways to the integer form agree
    for s, r in ((ints.a, rints.a), (ints.b, rints.b)):
        assert (s.names, s.index, s.lists, s.ties, s.nties, s.rank) == \
            (r.names, r.index, r.lists, r.ties, r.nties, r.rank)
        assert (s.written, s.written_ties, s.written_nties) == \
            (r.written, r.written_ties, r.written_nties)


def test_super_dominate_step_names_the_two_smallest_names():
    """SUPER's multiply-engaged step names the two A-agents that come first by name, as the
    name-keyed search did, not the first two by input order (integers): here the input
    order is a2, a10, a1 and the names sort a1 < a10 < a2."""
    from prefcert.oracles.stable_matching import super_stable_search
    data = {"preferences": {"A": {"a2": ["y"], "a10": ["y"], "a1": ["y"]},
                            "B": {"y": [["a2", "a10", "a1"]]}}}
    matching, log = super_stable_search(parse_market(data))
    assert matching is None
    assert log["steps"] == [["dominate", "y", "a1", "a10"]]
