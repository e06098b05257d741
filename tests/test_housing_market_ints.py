"""The housing market's integer form (issue 24, item 2): the one-pass parse against the
name-built market (every field, every error message), the oracles and the checker on the
integer form against the former name-keyed formulations (the same choices, so the same
labels) and against a brute force over the core definitions, and forged certificates the
checker must refuse.

The references below are the name-keyed code the integer form replaced, restated plainly:
:func:`old_parse` builds the market from one :func:`parse_weak_order` per agent,
:func:`old_ttc` tie-breaks and trades by names, :func:`old_digraph` reads the weak orders.
"""
from __future__ import annotations

import itertools
import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prefcert.formal.checker.graphs import strongly_connected_components
from prefcert.formal.checker.housing_market import (
    blocked_arc,
    check_core_allocation,
    check_potentials,
    check_segmentation,
    free_improvement,
    improvement_digraph,
    top_choices,
)
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.formal.housing_market import (
    CONVENTIONS,
    HousingMarket,
    parse_housing_market,
    reported_allocation,
)
from prefcert.formal.spec import read_conventions
from prefcert.formal.weak_order import parse_weak_order
from prefcert.oracles.housing_market import (
    _strict_core_segmentation,
    brute_force_cores,
    improvement_arcs,
    refine,
    strict_core,
    top_trading_cycles,
)

# --------------------------------------------------------------------------- references


def old_parse(data: dict) -> HousingMarket:
    """The former parse: validation as today, then one name-keyed weak order per agent."""
    if not isinstance(data, dict):
        raise InstanceError("a housing market must be a JSON object", value=type(data).__name__)
    prefs, endow = data.get("preferences"), data.get("endowment")
    if not isinstance(prefs, dict):
        raise InstanceError("'preferences' must be an object mapping agents to lists",
                            value=prefs)
    if not isinstance(endow, dict):
        raise InstanceError("'endowment' must be an object mapping agents to houses",
                            value=endow)
    if not endow:
        raise InstanceError("a housing market needs at least one agent", value=endow)
    owner: dict[str, str] = {}
    for a, h in endow.items():
        if not isinstance(h, str):
            raise InstanceError("endowment must be a house name (string)", agent=a, value=h)
        if h in owner:
            raise InstanceError(f"house is also the endowment of {owner[h]!r}: the endowment "
                                "is not a bijection", agent=a, value=h)
        owner[h] = a
        if a not in prefs:
            raise InstanceError("agent has an endowment but no preference list", agent=a,
                                value=h)
    for a in prefs:
        if a not in endow:
            raise InstanceError("agent has a preference list but no endowment", agent=a,
                                value=None)
    orders = {a: parse_weak_order(prefs[a], agent=a, known=owner) for a in endow}
    return HousingMarket(orders, dict(endow), read_conventions(data, CONVENTIONS))


def old_ttc(m: HousingMarket, tie_break=None) -> dict[str, str]:
    """Gale's TTC by names: ties broken by ``tie_break`` (default: the endowment order)."""
    prio = {h: k for k, h in enumerate(tie_break if tie_break is not None
                                        else [m.endowment[a] for a in m.agents])}
    lists = {}
    for a in m.agents:
        own, lst = m.endowment[a], []
        for tie in m.order[a].ties:
            for h in sorted(tie, key=prio.__getitem__):
                lst.append(h)
                if h == own:
                    break
            if lst and lst[-1] == own:
                break
        lists[a] = lst
    left, out, ptr = set(m.agents), {}, dict.fromkeys(m.agents, 0)
    while left:
        a = next(x for x in m.agents if x in left)
        path = [a]
        while True:
            b = path[-1]
            while m.owner[lists[b][ptr[b]]] not in left:
                ptr[b] += 1
            c = m.owner[lists[b][ptr[b]]]
            if c in path:
                for d in path[path.index(c):]:
                    out[d] = lists[d][ptr[d]]
                    left.discard(d)
                break
            path.append(c)
    return {a: out[a] for a in m.agents}


def old_digraph(m: HousingMarket, x, e=None):
    """D_x by names from the weak orders: better houses in list order, then the tie of
    x(i), or every unlisted house in ``e``'s order when x(i) is unacceptable."""
    owner = {h: a for a, h in (m.endowment if e is None else e).items()}
    arcs, strict = {}, {}
    for i in m.agents:
        o = m.order[i]
        r = m.preferences[i].nties + 1 if x.get(i) is None else o.rank.get(x[i], o.nties + 1)
        better = [owner[h] for h in o.items if o.rank[h] < r]
        same = [owner[h] for h in o.items if o.rank[h] == r] if r <= o.nties else \
            [owner[h] for h in owner if h not in o.rank]
        strict[i], arcs[i] = better, better + same
    return arcs, strict


def old_blocked_arc(m, x, notion, e=None):
    arcs, strict = old_digraph(m, x, e)
    comp = strongly_connected_components(strict if notion == "weak" else arcs)
    return next(((i, j) for i in m.agents for j in strict[i] if comp[i] == comp[j]), None)


def core_by_definition(m: HousingMarket):
    """(weak core, strict core) over permutations of the effective market, by every
    coalition and every re-trade of its houses (the definition, no digraph)."""
    agents = list(m.agents)
    houses = [m.endowment[a] for a in agents]
    weak, strict = [], []
    for perm in itertools.permutations(houses):
        x = dict(zip(agents, perm))
        w_blocked = s_blocked = False
        for size in range(1, len(agents) + 1):
            for coal in itertools.combinations(agents, size):
                for y in itertools.permutations([m.endowment[a] for a in coal]):
                    d = [m.rank(a, h) - m.rank(a, x[a]) for a, h in zip(coal, y)]
                    w_blocked |= all(v < 0 for v in d)
                    s_blocked |= all(v <= 0 for v in d) and any(v < 0 for v in d)
        if not w_blocked:
            weak.append(x)
        if not s_blocked:
            strict.append(x)
    return weak, strict


def key(x):
    return tuple(sorted(x.items()))

# --------------------------------------------------------------------------- markets


AGENT_POOL = ["zed", "amy", "bo", "kit", "Ann", "yo", "a10", "a2"]
HOUSE_POOL = ["z", "h9", "m", "b", "h10", "q", "A", "c"]


@st.composite
def markets(draw, max_agents: int = 6):
    """Adversarial housing markets: names whose sorted order differs from input order,
    the endowment a random permutation, lists strict or with ties, incomplete (the own
    house unlisted too), empty; either convention."""
    n = draw(st.integers(1, max_agents))
    agents = draw(st.permutations(AGENT_POOL))[:n]
    houses = draw(st.permutations(HOUSE_POOL))[:n]
    prefs = {}
    for a in draw(st.permutations(agents)):       # the lists in another order than endowment
        items = draw(st.permutations(houses))[:draw(st.integers(0, n))]
        lst: list = []
        for h in items:
            if lst and draw(st.integers(0, 2)) == 0:
                last = lst[-1]
                lst[-1] = (last if isinstance(last, list) else [last]) + [h]
            else:
                lst.append(h)
        prefs[a] = lst
    data = {"preferences": prefs, "endowment": dict(zip(agents, houses))}
    if draw(st.booleans()):
        data["conventions"] = {"unlisted_own_house": draw(st.sampled_from(
            ["acceptable", "unacceptable"]))}
    return data


# --------------------------------------------------------------------------- the parse


@settings(max_examples=300, deadline=None)
@given(markets(max_agents=8))
def test_parse_is_the_name_built_market(data):
    m, old = parse_housing_market(data), old_parse(data)
    assert m == old and old == m and repr(m) == repr(old)
    assert json.dumps(m.to_json()) == json.dumps(old.to_json())
    assert m.agents == old.agents and list(m.owner.items()) == list(old.owner.items())
    assert list(m.endowment.items()) == list(old.endowment.items())
    assert list(m.preferences) == list(old.preferences) == list(m.order)
    for a in m.agents:
        for mine, theirs in ((m.preferences[a], old.preferences[a]), (m.order[a], old.order[a])):
            assert mine.items == theirs.items and mine.rank == theirs.rank
            assert mine.ties == theirs.ties and mine.nties == theirs.nties
        for h in [*m.owner, None, "nobody's"]:
            assert m.rank(a, h) == old.rank(a, h)
            if h is not None:
                assert m.listed(a, h) == old.listed(a, h)
    assert m.is_strict() == old.is_strict() and m.size == old.size
    a, b = m.ints, old.ints                  # the orders' integer form: the same arrays
    for f in ("names", "index", "houses", "house_index", "lists", "ties", "nties", "rank",
              "written", "written_ties", "written_nties", "unmatched"):
        assert getattr(a, f) == getattr(b, f), f
    back = pickle.loads(pickle.dumps(m))
    assert back == m and back.to_json() == m.to_json() and back.ints.lists == a.lists


def test_ints_of_a_known_market():
    m = parse_housing_market({"preferences": {"b": ["y", ["x", "z"]], "a": ["z"], "c": []},
                              "endowment": {"a": "x", "b": "y", "c": "z"},
                              "conventions": {"unlisted_own_house": "unacceptable"}})
    i = m.ints
    assert i.names == ["a", "b", "c"] and i.houses == ["x", "y", "z"]
    assert i.written == [[2], [1, 0, 2], []] and i.written_nties == [1, 2, 0]
    assert i.lists == [[2, 0, 1], [1, 0, 2], [0, 1, 2]]      # every unlisted house last
    assert i.ties == [[1, 2, 2], [1, 2, 2], [1, 1, 1]] and i.nties == [2, 2, 1]
    assert m.rank("a", None) == 2 and m.rank("a", "y") == 2 and not m.listed("a", "x")


BAD = [
    [],
    {"preferences": [], "endowment": {"a": "x"}},
    {"preferences": {"a": ["x"]}, "endowment": None},
    {"preferences": {}, "endowment": {}},
    {"preferences": {"a": ["x"]}, "endowment": {"a": 3}},
    {"preferences": {"a": ["x"], "b": ["x"]}, "endowment": {"a": "x", "b": "x"}},
    {"preferences": {"a": ["x"]}, "endowment": {"a": "x", "b": "y"}},
    {"preferences": {"a": ["x"], "c": []}, "endowment": {"a": "x"}},
    {"preferences": {"a": "x"}, "endowment": {"a": "x"}},
    {"preferences": {"a": [[]]}, "endowment": {"a": "x"}},
    {"preferences": {"a": [3]}, "endowment": {"a": "x"}},
    {"preferences": {"a": [["x", 3]]}, "endowment": {"a": "x"}},
    {"preferences": {"a": [{"x": 1}]}, "endowment": {"a": "x"}},
    {"preferences": {"a": ["x", "x"]}, "endowment": {"a": "x"}},
    {"preferences": {"a": [["x", "x"]]}, "endowment": {"a": "x"}},
    {"preferences": {"a": ["x", "w"]}, "endowment": {"a": "x"}},
    {"preferences": {"a": [["x", "y", "z", "u", "w", "v"]]}, "endowment": {"a": "x"}},
    {"preferences": {"a": ["x"] * 70}, "endowment": {"a": "x"}},
    {"preferences": {"a": ["x", ["y"]] + ["q"] * 70}, "endowment": {"a": "x", "b": "y"}},
    # two faulty lists, listed in the other order than the endowment: the first agent of
    # the endowment is named, as before
    {"preferences": {"b": ["w"], "a": [[]]}, "endowment": {"a": "x", "b": "y"}},
    {"preferences": {"b": [3], "a": ["x", "x"]}, "endowment": {"a": "x", "b": "y"}},
    # a faulty list and a faulty convention: the list is named, as before
    {"preferences": {"a": ["w"]}, "endowment": {"a": "x"},
     "conventions": {"unlisted_own_house": "never"}},
    {"preferences": {"a": ["x"]}, "endowment": {"a": "x"},
     "conventions": {"unlisted_own_house": "never"}},
    {"preferences": {"a": ["x"]}, "endowment": {"a": "x"}, "conventions": {"other": 1}},
]


@pytest.mark.parametrize("data", BAD, ids=range(len(BAD)))
def test_errors_are_the_former_ones(data):
    with pytest.raises(Exception) as old:
        old_parse(data)
    with pytest.raises(Exception) as new:
        parse_housing_market(data)
    assert type(new.value) is type(old.value)
    assert str(new.value) == str(old.value)
    if isinstance(old.value, InstanceError):
        assert isinstance(new.value, InstanceError)
        assert (new.value.agent, new.value.value) == (old.value.agent, old.value.value)


# --------------------------------------------------------------------------- the oracles


@settings(max_examples=300, deadline=None)
@given(markets(max_agents=8), st.randoms(use_true_random=False))
def test_ttc_makes_the_former_choices(data, rnd):
    m, old = parse_housing_market(data), old_parse(data)
    got = top_trading_cycles(m)
    want = old_ttc(old)
    assert list(got.items()) == list(want.items())
    houses = list(m.owner)
    prio = rnd.sample(houses, len(houses)) + rnd.sample(houses, rnd.randint(0, len(houses)))
    assert list(top_trading_cycles(m, prio).items()) == list(old_ttc(old, prio).items())
    for a, lst in refine(m, prio).items():
        assert lst[-1] == m.endowment[a] and len(set(lst)) == len(lst)
    with pytest.raises(ValueError, match="does not rank house"):
        refine(m, houses[1:])


@settings(max_examples=300, deadline=None)
@given(markets(max_agents=7), st.randoms(use_true_random=False), st.booleans())
def test_digraph_and_blocked_arc_are_the_former_ones(data, rnd, x_is_endowment):
    m, old = parse_housing_market(data), old_parse(data)
    houses = list(m.owner)
    x = dict(zip(rnd.sample(m.agents, len(m.agents)), rnd.sample(houses, len(houses))))
    if m.unmatched_allowed and not x_is_endowment:
        x = {a: h for a, h in x.items() if rnd.random() < 0.7}      # some unmatched
    e = x if x_is_endowment else None
    assert improvement_digraph(m, x, e) == old_digraph(old, x, e)
    arcs, _ = old_digraph(old, x, e)
    src, dst, strict = improvement_arcs(m, x, e)
    idx = {a: k for k, a in enumerate(m.agents)}
    assert [(m.agents[s], m.agents[d]) for s, d in zip(src.tolist(), dst.tolist())] == \
        [(i, j) for i in m.agents for j in arcs[i]]
    for notion in ("weak", "strict"):
        assert blocked_arc(m, x, notion, e) == old_blocked_arc(old, x, notion, e)
    assert len(strict) == len(src) and idx


@settings(max_examples=200, deadline=None)
@given(markets(max_agents=4))
def test_cores_against_the_definition(data):
    m = parse_housing_market(data)
    weak, strict = core_by_definition(m)
    bw, bs = brute_force_cores(m)
    assert {key(x) for x in bw} == {key(x) for x in weak}
    assert {key(x) for x in bs} == {key(x) for x in strict}
    for x in map(dict, {key(x) for x in weak} | {key(x) for x in strict}):
        assert (blocked_arc(m, x, "weak") is None) == (x in weak)
        assert (blocked_arc(m, x, "strict") is None) == (x in strict)
    assert top_trading_cycles(m) in weak
    res, seg = strict_core(m), _strict_core_segmentation(m)
    assert (res.allocation is None) == (seg.allocation is None) == (not strict)
    if res.allocation is None:
        check_segmentation(m, res.certificate)
        check_segmentation(m, seg.certificate)
    else:
        assert res.allocation in strict and seg.allocation in strict


@settings(max_examples=200, deadline=None)
@given(markets(max_agents=5))
def test_top_choices_and_free_improvement(data):
    m, old = parse_housing_market(data), old_parse(data)
    houses = list(m.owner)
    for k in range(len(houses)):
        rem = set(houses[k:]) | set()
        for a in m.agents:
            if m.endowment[a] not in rem:
                continue
            want = next(([h for h in tie if h in rem] for tie in old.order[a].ties
                         if any(h in rem for h in tie)), [])
            assert top_choices(m, a, rem) == want
    x = dict(zip(m.agents, houses[1:]))          # the last agent unmatched
    held = set(x.values())
    want = next(((a, h) for a in m.agents for h in old.preferences[a].items
                 if old.rank(a, h) < old.rank(a, x.get(a)) and h not in held), None)
    assert free_improvement(m, x) == want


# --------------------------------------------------------------------------- forged


EMPTY = {"preferences": {"a1": ["h2", "h1"], "a2": [["h1", "h3"], "h2"], "a3": ["h2", "h3"]},
         "endowment": {"a1": "h1", "a2": "h2", "a3": "h3"}}


def test_the_genuine_segmentation_passes():
    m = parse_housing_market(EMPTY)
    cert = strict_core(m).certificate
    assert cert == {"type": "top_trading_segmentation", "segments": [["a1", "a2", "a3"]],
                    "hall_violator": ["a1", "a3"]}
    check_segmentation(m, cert)


@pytest.mark.parametrize("segments, hall, message", [
    ([["a1", "a2", "a3"]], ["a1", "a2", "a3"], "no violation"),
    ([["a1", "a2", "a3"]], ["a2"], "no violation"),
    ([["a1", "a2"]], ["a1"], "not closed"),
    ([["a3"], ["a1", "a2"]], ["a1"], "not closed"),
    ([["a1", "a2", "a3", "a1"]], ["a1"], "distinct"),
    ([["a1", "a2", "x"]], ["a1"], "not in the remaining"),
    ([["a1", "a2", "a3"], ["a1"]], ["a1"], "not in the remaining"),
    ([["a1", "a2", "a3"]], ["a1", "x"], "Hall violator must"),
    ([["a1", "a2", "a3"]], ["a1", "a1"], "Hall violator must"),
    ([["a1", "a2", "a3"]], [3], "Hall violator must"),
    ([["a1", 2]], ["a1"], "distinct agents"),
    ([], ["a1"], "non-empty"),
    ([["a1", "a2", "a3"]], [], "non-empty"),
])
def test_forged_segmentations_are_refused(segments, hall, message):
    m = parse_housing_market(EMPTY)
    with pytest.raises(CertificateError, match=message):
        check_segmentation(m, {"segments": segments, "hall_violator": hall})


def test_a_segment_that_is_not_strongly_connected_is_refused():
    # b and c point at each other; a points at b: {a, b, c} is closed but not one SCC
    m = parse_housing_market({"preferences": {"a": ["y", "x"], "b": ["z", "y"],
                                              "c": ["y", "z"]},
                              "endowment": {"a": "x", "b": "y", "c": "z"}})
    with pytest.raises(CertificateError, match="not strongly connected"):
        check_segmentation(m, {"segments": [["a", "b", "c"]], "hall_violator": ["a"]})


@settings(max_examples=150, deadline=None)
@given(markets(max_agents=4))
def test_blocked_allocations_and_forged_potentials_are_refused(data):
    m = parse_housing_market(data)
    weak, strict = core_by_definition(m)
    for perm in itertools.permutations(list(m.owner)):
        # under unlisted_own_house = unacceptable, as the convention reports it (a house
        # the agent does not list: unmatched), which is in a core iff the permutation is
        x = reported_allocation(m, dict(zip(m.agents, perm)))
        full = dict(zip(m.agents, perm))
        for question, core in (("weak_core", weak), ("strict_core", strict)):
            if full in core:
                check_core_allocation(m, question, None, "exists", x, {"type": "core_allocation"})
            else:
                with pytest.raises(CertificateError, match="blocked"):
                    check_core_allocation(m, question, None, "exists", x,
                                          {"type": "core_allocation"})
    x = top_trading_cycles(m)
    arcs, strict_arcs = improvement_digraph(m, x)
    flat = dict.fromkeys(m.agents, 0)               # constant potentials fail on a strict arc
    if any(strict_arcs.values()):
        with pytest.raises(CertificateError, match="potential drops on strict arc"):
            check_potentials(m, x, "weak", flat)
    else:
        check_potentials(m, x, "weak", flat)
    with pytest.raises(CertificateError, match="every agent"):
        check_potentials(m, x, "weak", {**flat, "intruder": 0})
