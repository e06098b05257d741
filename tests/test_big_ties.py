"""Big ties: all-ties and one-big-tie markets.

Property tests pit the super / strong oracles, their deletion logs (replayed by the
trusted checker) and the strict-core oracle against exhaustive enumeration on markets
whose lists are one tie each, hold one big tie, or mix a tied side with a strict one. The
operation-count tests pin the replay and the oracles to O(L) on all-ties markets: they
count the rank look-ups (the unit of work of every list scan), so they fail on the
rescanning replay, which made n = 400 take 19 s per question, without timing anything.
"""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from prefcert.formal import checker
from prefcert.formal.checker.hospitals_residents import replay_deletion_log as replay_hr
from prefcert.formal.checker.stable_matching import blocking_pairs, replay_deletion_log
from prefcert.formal.hospitals_residents import parse_hospitals_residents
from prefcert.formal.housing_market import parse_housing_market
from prefcert.formal.stable_matching import Market, parse_market
from prefcert.oracles import hospitals_residents as ohr
from prefcert.oracles import stable_matching as orc
from prefcert.oracles.stable_matching_brute_force import stable_matchings
from prefcert.oracles.housing_market import brute_force_cores, strict_core

from prefcert.pipeline.registry import spec

SHAPES = ("all_ties", "one_big_tie", "tied_side", "one_tied_agent")


def _lists(rng: random.Random, names: list[str], others: list[str], shape: str, tied: bool,
           complete: bool) -> dict:
    out = {}
    for k, x in enumerate(names):
        order = rng.sample(others, len(others) if complete else rng.randint(0, len(others)))
        if shape == "all_ties" or (shape == "tied_side" and tied) or \
                (shape == "one_tied_agent" and tied and k == 0):
            out[x] = [order] if order else []
        elif shape == "one_big_tie" and len(order) >= 2:
            i = rng.randrange(len(order) - 1)
            j = rng.randrange(i + 2, len(order) + 1)
            out[x] = order[:i] + [order[i:j]] + order[j:]
        else:
            out[x] = order
    return out


@st.composite
def tie_instances(draw, max_side: int = 5):
    na, nb = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    shape = draw(st.sampled_from(SHAPES))
    complete = draw(st.booleans())
    rng = random.Random(draw(st.integers(0, 2**32)))
    a = [f"m{i}" for i in range(1, na + 1)]
    b = [f"w{j}" for j in range(1, nb + 1)]
    tied_a = draw(st.booleans())
    return {"id": "t", "domain": "stable_matching", "preferences": {
        "A": _lists(rng, a, b, shape, tied_a, complete),
        "B": _lists(rng, b, a, shape, not tied_a, complete)}}


SPEC = spec("stable_matching")


@settings(max_examples=120, deadline=None)
@given(tie_instances())
def test_oracles_and_refutations_on_big_ties_match_enumeration(data):
    market = parse_market(data)
    for notion, search in (("super", orc.super_stable_search),
                           ("strong", orc.strongly_stable_search)):
        stable = list(stable_matchings(market, notion))
        matching, refutation = search(market)
        assert (matching is None) == (not stable), (notion, data)
        question = {"super": "super_stable", "strong": "strongly_stable"}[notion]
        if matching is None:
            checker.check(SPEC, market, question, None, "none", None, refutation)
        else:
            assert blocking_pairs(market, matching, notion) == []
    weak = orc.weakly_stable_matching(market)
    assert blocking_pairs(market, weak, "weak") == []


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(1, 4), st.integers(0, 2**32), st.booleans())
def test_hospitals_big_ties_refutations_replay(nr, nh, seed, tied_residents):
    rng = random.Random(seed)
    res, hos = [f"r{i}" for i in range(1, nr + 1)], [f"h{j}" for j in range(1, nh + 1)]
    pr = {r: [rng.sample(hos, nh)] if tied_residents else rng.sample(hos, nh) for r in res}
    ph = {h: [rng.sample(res, nr)] if not tied_residents or rng.random() < 0.5
          else rng.sample(res, nr) for h in hos}
    data = {"preferences": {"residents": pr, "hospitals": ph},
            "capacities": {h: rng.randint(0, 2) for h in hos}}
    market = parse_hospitals_residents(data)
    for notion, search in (("super", ohr.super_stable_search),
                           ("strong", ohr.strongly_stable_search)):
        matching, refutation = search(market)
        if matching is None:
            replay_hr(market, notion, refutation)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**32), st.sampled_from(["all_ties", "one_big_tie"]))
def test_strict_core_on_big_ties_matches_brute_force(n, seed, shape):
    rng = random.Random(seed)
    houses = [f"h{k}" for k in range(n)]
    prefs = {}
    for k in range(n):
        order = rng.sample(houses, n)
        if shape == "all_ties":
            prefs[f"a{k}"] = [order]
        else:
            i = rng.randrange(max(1, n - 1))
            j = rng.randrange(i + 1, n + 1)
            prefs[f"a{k}"] = order[:i] + ([order[i:j]] if j - i > 1 else order[i:j]) + order[j:]
    market = parse_housing_market({"preferences": prefs,
                                   "endowment": {f"a{k}": houses[k] for k in range(n)}})
    res = strict_core(market)
    _, strict = brute_force_cores(market)
    assert (res.allocation is None) == (not strict), (prefs, res)
    if res.allocation is None:
        checker.check(spec("housing_market"), market, "strict_core", None, "none", None,
                      res.certificate)


# --------------------------------------------------------------- O(L) on all-ties markets

class CountingDict(dict):
    """A rank dict that counts its look-ups."""

    hits = 0

    def __getitem__(self, key):
        CountingDict.hits += 1
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        CountingDict.hits += 1
        return dict.get(self, key, default)


class CountingList(list):
    """An array of tie indices that counts its look-ups (indexing, slicing, bisection)."""

    def __getitem__(self, key):
        CountingDict.hits += 1
        return list.__getitem__(self, key)


def _all_ties_market(n: int, rng: random.Random) -> Market:
    """n a side, every list one tie over the whole other side, parsed, its integer form
    (which the oracles and the checker read) holding counting rank dicts and tie arrays."""
    a = [f"m{i}" for i in range(n)]
    b = [f"w{j}" for j in range(n)]
    market = parse_market({"preferences": {"A": {x: [rng.sample(b, n)] for x in a},
                                           "B": {y: [rng.sample(a, n)] for y in b}}})
    for side in (market.ints.a, market.ints.b):
        side.rank[:] = [CountingDict(r) for r in side.rank]
        side.ties[:] = [CountingList(t) for t in side.ties]
    return market


def _lookups(fn) -> int:
    CountingDict.hits = 0
    fn()
    return CountingDict.hits


def test_replay_and_oracles_are_linear_on_all_ties_markets():
    """No super-stable matching exists when every list is one tie (n ≥ 2): the log deletes
    every list. Look-ups of the integer form (replay, SUPER, STRONG, and the weak oracle with
    a blocking-pair scan) — rank dicts and tie arrays — per list entry stay
    bounded as n doubles (the rescanning replay made O(n) look-ups per entry), and are
    counted at all (the pins count the form every scan reads)."""
    rng = random.Random(1)
    per_entry = {}
    for n in (40, 80):
        market = _all_ties_market(n, rng)
        L = 2 * n * n
        matching, log = orc.super_stable_search(market)
        assert matching is None
        replay = _lookups(lambda: replay_deletion_log(market, "super", log))
        sup = _lookups(lambda: orc.super_stable_search(market))
        strong = _lookups(lambda: orc.strongly_stable_search(market))
        weak = orc.weakly_stable_matching(market)
        scan = _lookups(lambda: (orc.weakly_stable_matching(market),
                                 blocking_pairs(market, weak, "super")))
        per_entry[n] = (replay / L, sup / L, strong / L, scan / L)
        assert max(per_entry[n]) < 6, (n, per_entry[n])
        assert min(per_entry[n]) > 0.2, (n, per_entry[n])
    for k in range(4):
        assert per_entry[80][k] < 1.5 * per_entry[40][k] + 0.5, per_entry
