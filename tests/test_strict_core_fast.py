"""The strict core's linear-time path (top trading cycles by pointer chasing, taken when
every list is strict down to the own house) against the round-by-round Quint–Wako
segmentation and against brute force; the checker's improvement digraph (ranks bisected)
against the definition.
"""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from prefcert.formal.checker.housing_market import improvement_digraph, top_choices
from prefcert.formal.housing_market import parse_housing_market
from prefcert.oracles.housing_market import (
    _strict_core_segmentation,
    _strict_top_trading_cycles,
    brute_force_cores,
    refine,
    strict_core,
)


@st.composite
def strict_down_to_own(draw, max_agents: int = 7, ties_below: bool = True):
    """Markets whose lists are strict down to the own house, in adversarial shapes:
    empty lists, lists that end before the own house (own house unlisted), the own house
    first, every agent's first choice the same house; below the own house, ties."""
    n = draw(st.integers(1, max_agents))
    houses = [f"h{k}" for k in range(n)]
    shape = draw(st.sampled_from(["random", "empty", "no_own", "own_first", "same_first"]))
    prefs = {}
    for k in range(n):
        others = [h for h in houses if h != houses[k]]
        above = draw(st.permutations(others))
        cut = draw(st.integers(0, len(above)))
        if shape == "empty" and draw(st.booleans()):
            prefs[f"a{k}"] = []
            continue
        if shape == "same_first" and k:
            above = [houses[0]] + [h for h in above if h != houses[0]]
            cut = max(cut, 1)
        if shape == "own_first":
            cut = 0
        lst: list = list(above[:cut])
        if shape == "no_own" or (shape == "random" and draw(st.integers(0, 3)) == 0):
            prefs[f"a{k}"] = lst                            # the list ends before its own house
            continue
        lst.append(houses[k])
        rest = list(above[cut:])
        if ties_below and len(rest) > 1 and draw(st.booleans()):
            lst.append(rest)                                # a tie below the own house
        else:
            lst.extend(rest[:draw(st.integers(0, len(rest)))])
        prefs[f"a{k}"] = lst
    return {"preferences": prefs, "endowment": {f"a{k}": houses[k] for k in range(n)}}


def key(x):
    return tuple(sorted(x.items()))


def assert_is_segmentation(m, segments):
    """Each segment, in order, is a cycle of the top-choice digraph of the agents still on
    the market (closed and strongly connected); together they cover every agent."""
    remaining = set(m.agents)
    for seg in segments:
        assert set(seg) <= remaining and len(set(seg)) == len(seg)
        houses = {m.endowment[a] for a in remaining}
        succ = {}
        for a in seg:
            top = top_choices(m, a, houses)
            assert len(top) == 1
            succ[a] = m.owner[top[0]]
            assert succ[a] in seg, "segment not closed"
        a, seen = seg[0], set()
        while a not in seen:
            seen.add(a)
            a = succ[a]
        assert seen == set(seg), "segment is not one cycle"
        remaining -= set(seg)
    assert not remaining


@given(strict_down_to_own())
def test_fast_path_is_the_unique_strict_core_allocation(data):
    m = parse_housing_market(data)
    fast = _strict_top_trading_cycles(m)
    assert fast is not None
    _, strict = brute_force_cores(m)
    assert [key(x) for x in strict] == [key(fast.allocation)]     # Roth & Postlewaite 1977
    assert strict_core(m) == fast
    assert_is_segmentation(m, fast.segments)


@settings(max_examples=60)
@given(strict_down_to_own(max_agents=40, ties_below=True))
def test_fast_path_matches_the_segmentation(data):
    m = parse_housing_market(data)
    fast = _strict_top_trading_cycles(m)
    old = _strict_core_segmentation(m)
    assert old.certificate is None and fast.certificate is None
    assert list(fast.allocation.items()) == list(old.allocation.items())   # same dict order
    assert sorted(fast.segments) == sorted(old.segments)     # the same cycles, each sorted
    assert_is_segmentation(m, fast.segments)


@given(st.integers(1, 7), st.integers(0, 2**32))
def test_fast_path_taken_exactly_when_strict_down_to_own(n, seed):
    """A tie at or above the own house (the own house inside it included) sends the
    market to the segmentation; one strictly below does not."""
    rng = random.Random(seed)
    houses = [f"h{k}" for k in range(n)]
    prefs, tied_above = {}, False
    for k in range(n):
        order = rng.sample(houses, n)
        own = order.index(houses[k])
        if n > 1 and rng.random() < 0.3:
            i = rng.randrange(n - 1)
            j = rng.randrange(i + 2, n + 1)
            tied_above |= i <= own
            order = order[:i] + [order[i:j]] + order[j:]
        prefs[f"a{k}"] = order
    m = parse_housing_market({"preferences": prefs,
                              "endowment": {f"a{k}": houses[k] for k in range(n)}})
    assert (_strict_top_trading_cycles(m) is None) == tied_above
    _, strict = brute_force_cores(m)
    res = strict_core(m)
    assert (res.allocation is None) == (not strict)
    if res.allocation is not None:
        assert key(res.allocation) in {key(x) for x in strict}


def test_long_walks_and_one_big_cycle():
    """Agent k wants h(k+1) and the last agent only its own house (one walk through all n
    agents, which then trade their own houses one by one from its end); everyone wants
    h(k+1), the last agent h0 (one cycle of all n agents); every agent but a0 ranks h0
    first (a0 and a1 swap, the others keep their houses)."""
    n = 300
    end = {f"a{k}": f"h{k}" for k in range(n)}
    chain = {f"a{k}": [f"h{k + 1}"] if k < n - 1 else [] for k in range(n)}
    ring = {f"a{k}": [f"h{(k + 1) % n}"] for k in range(n)}
    same = {f"a{k}": ["h0", f"h{k + 1}"] if 0 < k < n - 1 else ["h1" if k == 0 else "h0"]
            for k in range(n)}
    for prefs, want in ((chain, end),
                        (ring, {f"a{k}": f"h{(k + 1) % n}" for k in range(n)}),
                        (same, {**end, "a0": "h1", "a1": "h0"})):
        m = parse_housing_market({"preferences": prefs, "endowment": end})
        res = strict_core(m)
        assert res.allocation == want
        assert sorted(res.segments) == sorted(_strict_core_segmentation(m).segments)
        assert_is_segmentation(m, res.segments)


@st.composite
def market_and_allocation(draw):
    """Any market with ties and a permutation of its houses (unacceptable ones included)."""
    n = draw(st.integers(1, 7))
    houses = [f"h{k}" for k in range(n)]
    prefs = {}
    for k in range(n):
        order = draw(st.permutations([h for h in houses if draw(st.booleans())]))
        groups: list[list[str]] = []
        for h in order:
            if groups and draw(st.integers(0, 2)) == 0:
                groups[-1].append(h)
            else:
                groups.append([h])
        prefs[f"a{k}"] = [g[0] if len(g) == 1 else g for g in groups]
    perm = draw(st.permutations(houses))
    return ({"preferences": prefs, "endowment": {f"a{k}": houses[k] for k in range(n)}},
            {f"a{k}": perm[k] for k in range(n)})


@given(market_and_allocation(), st.booleans())
def test_improvement_digraph_is_the_definition(data, x_is_endowment):
    """arcs[i]: owners of the houses weakly better than x(i); strict[i]: strictly better;
    both in the agent's order (unlisted houses, all tied last, in endowment order)."""
    prefs, x = data
    m = parse_housing_market(prefs)
    e = x if x_is_endowment else m.endowment
    owner = {h: a for a, h in e.items()}
    arcs, strict = improvement_digraph(m, x, e if x_is_endowment else None)
    for i in m.agents:
        listed = list(m.order[i].items)
        ordered = listed + [h for h in owner if h not in m.order[i].items]
        r = m.rank(i, x[i])
        assert strict[i] == [owner[h] for h in ordered if m.rank(i, h) < r]
        assert arcs[i] == [owner[h] for h in ordered if m.rank(i, h) <= r]


@given(st.one_of(market_and_allocation(), strict_down_to_own().map(lambda d: (d, None))),
       st.randoms(use_true_random=False))
def test_refine_is_the_definition(data, rnd):
    """Each tie sorted by the priority, the list cut after the own house (lists strict
    down to the own house are copied as they are)."""
    m = parse_housing_market(data[0])
    tie_break = [m.endowment[a] for a in m.agents]
    rnd.shuffle(tie_break)
    prio = {h: k for k, h in enumerate(tie_break)}
    got = refine(m, tie_break)
    for a in m.agents:
        flat = [h for tie in m.order[a].ties for h in sorted(tie, key=prio.__getitem__)]
        assert got[a] == flat[:flat.index(m.endowment[a]) + 1]
