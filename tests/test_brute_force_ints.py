"""The brute-force engines on the integer forms (issue 24, items 1 and 2): the SMTI and
hospitals/residents exhaustive searches, which now read ``market.ints`` and cut a partial
matching as soon as a pair among its final agents blocks, yield the same stable matchings
in the same order as the old name-keyed enumerations (written out below) and as a
from-scratch enumeration of every matching with a definition-level blocking test read
off the raw lists; the engine's first matching is the old one; a deadline already past
answers ``unknown``. Random markets with ties, incomplete and one-sided lists, unequal
sides, HR capacities 0..3 and names whose sorted order is not their input order."""
from __future__ import annotations

import itertools
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefcert.formal.hospitals_residents import HRMarket, parse_hospitals_residents
from prefcert.formal.stable_matching import Market, parse_market
from prefcert.oracles import hospitals_residents as hr
from prefcert.oracles import stable_matching_brute_force as sbf
from shared import written_hr, written_lists

NOTIONS = ("weak", "strong", "super")


# ------------------------------------------------------------------ instances

@st.composite
def smti_data(draw, max_side: int = 5):
    """An SMTI instance: 1..max_side agents a side (unequal), names out of order."""
    na, nb = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    rng = random.Random(draw(st.integers(0, 2**32)))
    a = [f"a{k}" for k in rng.sample(range(20), na)]
    b = [f"b{k}" for k in rng.sample(range(20), nb)]
    return {"preferences": {"A": written_lists(rng, a, b), "B": written_lists(rng, b, a)}}


@st.composite
def hr_data(draw, max_r: int = 5, max_h: int = 3):
    """An HR instance: 1..max_r residents, 1..max_h hospitals of capacity 0..3."""
    nr, nh = draw(st.integers(1, max_r)), draw(st.integers(1, max_h))
    rng = random.Random(draw(st.integers(0, 2**32)))
    return written_hr(rng, nr, nh, lambda r: r.choice([0, 1, 1, 2, 3]))


# ------------------------------------------------------------------ from the definitions

def raw_ranks(lists: dict) -> dict[str, dict[str, int]]:
    """agent -> partner -> 1-based tie index, read off the lists as written."""
    out = {}
    for x, lst in lists.items():
        out[x] = {}
        for k, item in enumerate(lst, 1):
            for y in (item if isinstance(item, list) else [item]):
                out[x][y] = k
    return out


def gains(rank: dict[str, int], new: str, old: str | None) -> tuple[bool, bool]:
    """(strictly better, at least as good): ``new`` against ``old`` (None: unmatched)."""
    if old is None:
        return True, True
    return rank[new] < rank[old], rank[new] <= rank[old]


def blocks(notion: str, x: tuple[bool, bool], y: tuple[bool, bool]) -> bool:
    """Manlove 2013, §3.1: weak — both strictly better; strong — one strictly, the other
    at least as good; super — both at least as good."""
    if notion == "weak":
        return x[0] and y[0]
    if notion == "strong":
        return (x[0] and y[1]) or (x[1] and y[0])
    return x[1] and y[1]


def smti_all(data: dict) -> list[dict[str, str]]:
    """Every assignment of a partner or nobody to each A agent (input order, list order
    then nobody) over mutually acceptable pairs, kept when injective."""
    ra, rb = raw_ranks(data["preferences"]["A"]), raw_ranks(data["preferences"]["B"])
    acc = {a: [b for b in ra[a] if a in rb[b]] for a in ra}
    out = []
    for choice in itertools.product(*[acc[a] + [None] for a in ra]):
        taken = [b for b in choice if b is not None]
        if len(taken) == len(set(taken)):
            out.append({a: b for a, b in zip(ra, choice) if b is not None})
    return out


def smti_stable(data: dict, m: dict[str, str], notion: str) -> bool:
    """No mutually acceptable pair outside ``m`` blocks it."""
    ra, rb = raw_ranks(data["preferences"]["A"]), raw_ranks(data["preferences"]["B"])
    mate_b = {b: a for a, b in m.items()}
    return not any(m.get(a) != b and a in rb[b] and
                   blocks(notion, gains(ra[a], b, m.get(a)), gains(rb[b], a, mate_b.get(b)))
                   for a in ra for b in ra[a])


def hr_all(data: dict) -> list[dict[str, str]]:
    """Every assignment of a hospital or nobody to each resident (input order, list order
    then nobody) over admissible pairs, kept when within capacities."""
    rr = raw_ranks(data["preferences"]["residents"])
    rh = raw_ranks(data["preferences"]["hospitals"])
    cap = data["capacities"]
    acc = {r: [h for h in rr[r] if r in rh[h] and cap[h] > 0] for r in rr}
    out = []
    for choice in itertools.product(*[acc[r] + [None] for r in rr]):
        if all(choice.count(h) <= cap[h] for h in cap):
            out.append({r: h for r, h in zip(rr, choice) if h is not None})
    return out


def hr_stable(data: dict, m: dict[str, str], notion: str) -> bool:
    """No admissible pair outside ``m`` blocks it: h gains strictly and weakly when
    undersubscribed, else as r compares with its worst member."""
    rr = raw_ranks(data["preferences"]["residents"])
    rh = raw_ranks(data["preferences"]["hospitals"])
    cap = data["capacities"]
    members = {h: [r for r in m if m[r] == h] for h in cap}

    def h_gains(h: str, r: str) -> tuple[bool, bool]:
        if len(members[h]) < cap[h]:
            return True, True
        return gains(rh[h], r, max(members[h], key=rh[h].__getitem__))

    return not any(m.get(r) != h and r in rh[h] and cap[h] > 0 and
                   blocks(notion, gains(rr[r], h, m.get(r)), h_gains(h, r))
                   for r in rr for h in rr[r])


# ------------------------------------------------------------------ the old engines, written out

def old_smti(market: Market, notion: str):
    """The old name-keyed SMTI search (every pair tested once both partners are fixed)."""
    inf = float("inf")

    def bl(ra, ca, rb, cb):
        if notion == "weak":
            return ra < ca and rb < cb
        if notion == "super":
            return ra <= ca and rb <= cb
        return (ra < ca and rb <= cb) or (ra <= ca and rb < cb)

    a_agents = list(market.pa)
    rank_a = {a: market.pa[a].rank for a in a_agents}
    rank_b = {b: market.pb[b].rank for b in market.pb}
    lists = [market.pa[a].items for a in a_agents]
    index = {a: i for i, a in enumerate(a_agents)}
    pa: dict = {}
    pb: dict = {}

    def cra(a):
        return inf if pa.get(a) is None else rank_a[a][pa[a]]

    def crb(b):
        return inf if b not in pb else rank_b[b][pb[b]]

    def consistent(i, a, p):
        ca = inf if p is None else rank_a[a][p]
        for b in lists[i]:
            if b != p and b in pb and bl(rank_a[a][b], ca, rank_b[b][a], crb(b)):
                return False
        if p is not None:
            for a2 in market.pb[p].items:
                if a2 != a and index[a2] < i and \
                        bl(rank_a[a2][p], cra(a2), rank_b[p][a2], rank_b[p][a]):
                    return False
        return True

    def rec(i):
        if i == len(a_agents):
            if not any(b not in pb and bl(rank_a[a][b], cra(a), rank_b[b][a], inf)
                       for k, a in enumerate(a_agents) for b in lists[k]):
                yield {a: b for a, b in pa.items() if b is not None}
            return
        a = a_agents[i]
        for p in (*lists[i], None):
            if (p is not None and p in pb) or not consistent(i, a, p):
                continue
            pa[a] = p
            if p is not None:
                pb[p] = a
            yield from rec(i + 1)
            del pa[a]
            pb.pop(p, None)

    yield from rec(0)


def old_hr(market: HRMarket, notion: str):
    """The old name-keyed HR search: every matching within capacities, each tested."""
    inf = float("inf")
    res = list(market.pr)
    cap = market.capacities
    load = dict.fromkeys(market.hospitals, 0)
    cur: dict = {}

    def stable(m):
        members: dict = {}
        for r, h in m.items():
            members.setdefault(h, []).append(r)
        worst = {}
        for h in market.ph:
            ms = members.get(h, [])
            worst[h] = max(market.ph[h].rank[r] for r in ms) if ms and len(ms) == cap[h] \
                else (inf if len(ms) < cap[h] else -1)
        for r, o in market.pr.items():
            mine = m.get(r)
            c = o.rank[mine] if mine is not None else inf
            for h, k in o.rank.items():
                if h == mine:
                    continue
                q = market.ph[h].rank[r]
                rs, rw, hs, hw = k < c, k <= c, q < worst[h], q <= worst[h]
                if {"weak": rs and hs, "strong": (rs and hw) or (rw and hs),
                        "super": rw and hw}[notion]:
                    return False
        return True

    def rec(i):
        if i == len(res):
            if stable(cur):
                yield dict(cur)
            return
        r = res[i]
        for h in market.pr[r].items:
            if load[h] < cap[h]:
                load[h] += 1
                cur[r] = h
                yield from rec(i + 1)
                del cur[r]
                load[h] -= 1
        yield from rec(i + 1)

    yield from rec(0)


# ------------------------------------------------------------------ the tests

@settings(max_examples=300, deadline=None)
@given(smti_data())
def test_smti_search_is_the_old_one_and_the_definition(data):
    market = parse_market(data)
    for notion in NOTIONS:
        got = list(sbf.stable_matchings(market, notion))
        assert got == list(old_smti(parse_market(data), notion))
        assert got == [m for m in smti_all(data) if smti_stable(data, m, notion)]
        out = sbf.brute_force_stable_matching(market, notion, time_limit=60, seed=0)
        assert out.verdict == ("exists" if got else "none")
        assert out.solution == (got[0] if got else None)


@settings(max_examples=300, deadline=None)
@given(hr_data())
def test_hr_search_is_the_old_one_and_the_definition(data):
    market = parse_hospitals_residents(data)
    for notion in NOTIONS:
        got = list(hr.stable_matchings(market, notion))
        assert got == list(old_hr(parse_hospitals_residents(data), notion))
        assert got == [m for m in hr_all(data) if hr_stable(data, m, notion)]
        assert got == [m for m in hr.all_matchings(market)
                       if notion in hr.stable_notions(market, m)]
        out = hr.brute_force_stable_matching(market, notion, time_limit=60, seed=0)
        assert out.verdict == ("exists" if got else "none")
        assert out.solution == (got[0] if got else None)


@settings(max_examples=150, deadline=None)
@given(smti_data(), hr_data())
def test_all_matchings_and_notions_on_ints(sdata, hdata):
    assert list(sbf.all_matchings(parse_market(sdata))) == smti_all(sdata)
    market = parse_hospitals_residents(hdata)
    ms = list(hr.all_matchings(market))
    assert ms == hr_all(hdata)
    for m in ms:
        assert hr.stable_notions(market, m) == {n for n in NOTIONS if hr_stable(hdata, m, n)}


def test_first_matching_is_the_old_one():
    # names sorted differently from input order; weak has several stable matchings
    data = {"preferences": {"A": {"z": [["y", "x"]], "m": [["x", "y"]]},
                            "B": {"y": [["m", "z"]], "x": [["z", "m"]]}}}
    market = parse_market(data)
    out = sbf.brute_force_stable_matching(market, "weak", time_limit=60, seed=0)
    assert out.solution == next(old_smti(market, "weak")) == {"z": "y", "m": "x"}
    hdata = {"preferences": {"residents": {"s": [["g", "c"]], "d": [["c", "g"]]},
                             "hospitals": {"g": [["d", "s"]], "c": [["s", "d"]]}},
             "capacities": {"g": 1, "c": 1}}
    hm = parse_hospitals_residents(hdata)
    out = hr.brute_force_stable_matching(hm, "weak", time_limit=60, seed=0)
    assert out.solution == next(old_hr(hm, "weak")) == {"s": "g", "d": "c"}


def test_a_deadline_already_past_answers_unknown():
    data = {"preferences": {"A": {"a": ["b"]}, "B": {"b": ["a"]}}}
    market = parse_market(data)
    assert sbf.brute_force_stable_matching(market, "super", time_limit=-1.0,
                                           seed=0).verdict == "unknown"
    with pytest.raises(sbf._Timeout):
        next(sbf.stable_matchings(market, "super", deadline=time.perf_counter() - 1))
    hdata = {"preferences": {"residents": {"r": ["h"]}, "hospitals": {"h": ["r"]}},
             "capacities": {"h": 1}}
    hm = parse_hospitals_residents(hdata)
    assert hr.brute_force_stable_matching(hm, "super", time_limit=-1.0,
                                          seed=0).verdict == "unknown"
    with pytest.raises(TimeoutError):
        next(hr.stable_matchings(hm, "super", deadline=time.perf_counter() - 1))
