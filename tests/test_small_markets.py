"""The fixed per-market costs cut for small markets keep every answer: the plain-loop read of
short lists in ``_side_ints``, the first round of SUPER / STRONG shared between the two
notions, and the replay state held in integer arrays (``replay_deletion_log``). Each is
compared with the path it replaces (the C-level list read, a search from scratch, a
replay on name-keyed dicts) on random markets with ties, incomplete lists and names in
non-input order, malformed ones included."""
from __future__ import annotations

import random

import pytest
from prefcert.domains import stable_matching as dom
from prefcert.formal import stable_matching as fsm
from prefcert.formal.checker import stable_matching as csm
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.formal.stable_matching import parse_market
from prefcert.oracles import stable_matching as orc
from test_smti_per_market import dict_replay


def _raw_list(rng: random.Random, others: list[str]) -> list:
    """A random weak order over a random subset of ``others`` as JSON (ties as lists,
    some of them one item long), in random order."""
    items = rng.sample(others, rng.randint(0, len(others)))
    out: list = []
    i = 0
    while i < len(items):
        k = rng.choice((1, 1, 1, 2, 3, 6))
        group = items[i:i + k]
        out.append(group[0] if len(group) == 1 and rng.random() < 0.8 else group)
        i += k
    return out


def _market_data(rng: random.Random, na: int, nb: int) -> dict:
    names_a = [f"a{i}" for i in rng.sample(range(na), na)]       # not in name order
    names_b = [f"b{i}" for i in rng.sample(range(nb), nb)]
    return {"preferences": {"A": {x: _raw_list(rng, names_b) for x in names_a},
                            "B": {y: _raw_list(rng, names_a) for y in names_b}}}


def _broken(rng: random.Random, raw: list, others: list[str]) -> list:
    """``raw`` with one fault: an unknown name, a repeated item, an empty tie, a number,
    a null or a nested list."""
    raw = list(raw)
    fault = rng.choice(("unknown", "repeat", "empty", "number", "null", "nested"))
    pos = rng.randint(0, len(raw))
    bad: object = {"unknown": "zz", "repeat": rng.choice(others), "empty": [],
                   "number": 3, "null": None, "nested": [["x"]]}[fault]
    if fault == "repeat" and raw:
        first = raw[0]
        bad = first if isinstance(first, str) else first[0]
    raw.insert(pos, bad)
    return raw


def _read(side: dict, index: dict, small: int, monkeypatch) -> object:
    monkeypatch.setattr(fsm, "SMALL_LIST", small)
    try:
        return fsm._side_ints(side, index)
    except InstanceError as e:
        return ("error", str(e))


def test_short_lists_read_as_by_the_c_level_passes(monkeypatch):
    """The plain loop (every list short) gives the arrays, and the errors, of the C-level
    passes (no list short)."""
    rng = random.Random(7)
    for trial in range(300):
        data = _market_data(rng, rng.randint(1, 7), rng.randint(1, 7))
        prefs = data["preferences"]
        others = list(prefs["B"])
        side = dict(prefs["A"])
        if trial % 3 == 0:
            x = rng.choice(list(side))
            side[x] = _broken(rng, side[x], others)
        index = {y: j for j, y in enumerate(others)}
        assert _read(side, index, 64, monkeypatch) == _read(side, index, -1, monkeypatch)


def test_short_list_path_big_tie_and_non_list(monkeypatch):
    """A tie group of more than 4 items (read at C level inside the loop) and a side value
    that is no list."""
    index = {f"b{j}": j for j in range(10)}
    side = {"a0": ["b3", ["b0", "b1", "b2", "b4", "b5", "b6"], "b9"],
            "a1": [["b0", "b1", "b2", "b4", 5]], "a2": "b1"}
    for x in ("a0",):
        lists, ties, nties, ranks = _read({x: side[x]}, index, 64, monkeypatch)
        assert lists == [[3, 0, 1, 2, 4, 5, 6, 9]]
        assert ties == [[1, 2, 2, 2, 2, 2, 2, 3]] and nties == [3]
    for x in ("a1", "a2"):
        got = _read({x: side[x]}, index, 64, monkeypatch)
        assert got[0] == "error"
        assert got == _read({x: side[x]}, index, -1, monkeypatch)


def _markets(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        yield parse_market(_market_data(rng, rng.randint(1, 8), rng.randint(1, 8)))


def test_searches_from_a_shared_first_round_answer_as_from_scratch():
    """SUPER and STRONG continued from :func:`first_round` (or from a copy of it, after the
    original was used by the other notion) give the answers of a search from scratch."""
    for market in _markets(3, 300):
        sup, strong = orc.super_stable_search(market), orc.strongly_stable_search(market)
        start = orc.first_round(market)
        copy = start.copy()
        assert orc.super_stable_search(market, start=start) == sup
        assert orc.strongly_stable_search(market, start=copy) == strong


@pytest.mark.parametrize("order", [("super", "strong"), ("strong", "super"),
                                   ("super", "super", "strong", "strong")])
def test_domain_search_shares_one_first_round(order, monkeypatch):
    """The domain's searches answer as the oracle's alone in any order of notions, and make
    one first round for the two notions of a market (a notion asked again makes its own)."""
    calls = []
    real = orc.first_round
    monkeypatch.setattr(orc, "first_round", lambda m: calls.append(m) or real(m))
    want = {"super": orc.super_stable_search, "strong": orc.strongly_stable_search}
    markets = list(_markets(5, 60))
    for market in markets:
        for notion in order:
            assert dom._search(notion, market) == want[notion](market)
    expected = 1 if len(order) == 2 else 3
    assert len(calls) == expected * len(markets)


def _replay(market, notion, log):
    try:
        csm.replay_deletion_log(market, notion, log)
        return "ok"
    except CertificateError as e:
        return str(e)


def _forged(rng: random.Random, market, steps: list) -> list:
    steps = [list(s) for s in steps]
    if steps and rng.random() < 0.5:
        del steps[rng.randrange(len(steps))]
    ints = market.ints
    if ints.a.names and ints.b.names:
        steps.insert(rng.randint(0, len(steps)),
                     ["dominate", rng.choice(ints.b.names), rng.choice(ints.a.names)])
    return steps


def test_list_replay_state_replays_as_the_dict_state():
    """Genuine and forged deletion logs are accepted or refused, with the same message, by
    the array replay and by a plain replay on name-keyed dicts."""
    rng = random.Random(11)
    seen = set()
    for market in _markets(9, 400):
        for notion, search in (("super", orc.super_stable_search),
                               ("strong", orc.strongly_stable_search)):
            _, log = search(market)
            logs = [log] if log is not None else []
            steps = log["steps"] if log is not None else []
            logs.append({"type": "deletion_log", "steps": _forged(rng, market, steps)})
            for lg in logs:
                new = _replay(market, notion, lg)
                old = dict_replay(market, notion, lg)
                assert new == old
                seen.add(new == "ok")
    assert seen == {True, False}
