"""The cheaper ``prefcert check`` of big SMTI markets (issue 24, item 2): the tie groups
shared at C level by the read's JSON hook, the one-pass flatten of tied lists in the
parse, and the deletion-log replay reading aligned mutual-rank arrays (dense when B's
lists hold at least a quarter of all pairs) give the same data, integer form and replay
outcomes as the old paths — plain ``json.loads``, the order-built integer form
(:func:`parse_weak_order` per agent), and a plain replay on name-keyed dicts
(``test_smti_per_market.dict_replay``) — on random instances. No timing: linear behaviour is pinned by
call counts."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefcert.formal.checker import stable_matching as csm
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.formal.instances import shared_strings
from prefcert.formal.stable_matching import Market, _ints_from_orders, parse_market
from prefcert.formal.weak_order import parse_weak_order
from prefcert.oracles import stable_matching as orc
from shared import tied_lists, written_lists
from test_smti_per_market import dict_replay

NAMES = st.sampled_from(["a1", "a2", "a3", "b1", "b2", "b3", "é", "x y", "1"])
LEAF = NAMES | st.sampled_from([1, 1.0, True, None, 0])


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(NAMES, st.lists(LEAF | st.lists(LEAF | st.lists(NAMES, max_size=2),
                                                        max_size=3), max_size=8),
                       max_size=6))
def test_hook_keeps_the_data_and_shares_group_strings(obj):
    """Against plain ``json.loads``: the same data, value types included (``true`` is not
    ``1``: compared through ``json.dumps``), and every string of a tie group that holds
    only strings is the one object of that name."""
    text = json.dumps({"p": obj, "names": ["a1", "a2", "a3", "b1", "b2", "b3"]})
    got = json.loads(text, object_pairs_hook=shared_strings())
    assert json.dumps(got) == json.dumps(json.loads(text))
    one = {s: s for s in got["names"]}
    for v in got["p"].values():
        for e in v:
            if isinstance(e, str) and e in one:
                assert e is one[e]
            if isinstance(e, list) and all(isinstance(x, str) for x in e):
                assert all(x is one[x] for x in e if x in one)


def test_hook_shares_groups_beside_a_group_with_a_number():
    """A tie group with a number sends the groups group by group: the others still
    share, the number stays a number."""
    text = '{"a": ["b1", ["b2", "b1"], [1, "b2"], [true]], "k": ["b1", "b2"]}'
    got = json.loads(text, object_pairs_hook=shared_strings())
    b1, b2 = got["k"]
    assert got["a"][1][0] is b2 and got["a"][1][1] is b1
    assert got["a"][2][0] == 1 and got["a"][2][0] is not True
    assert got["a"][3] == [True] and got["a"][3][0] is True


@st.composite
def smti(draw, max_side: int = 5):
    """An SMTI instance as written: ties, incomplete lists, sometimes an empty tie group,
    an unknown agent, a repeated one or a number (bad input the parse must name)."""
    na, nb = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    a = [f"a{i}" for i in range(na)]
    b = [f"b{j}" for j in range(nb)]
    bad = draw(st.booleans()) and draw(st.booleans())
    rng = random.Random(draw(st.integers(0, 2**32)))
    return {"preferences": {"A": written_lists(rng, a, b, bad),
                            "B": written_lists(rng, b, a, bad)}}


def order_built(data) -> Market:
    """The old path: one :func:`parse_weak_order` per agent, the integer form made from
    the orders."""
    pa, pb = data["preferences"]["A"], data["preferences"]["B"]
    a = {x: parse_weak_order(v, agent=x, known=pb) for x, v in pa.items()}
    b = {y: parse_weak_order(v, agent=y, known=pa) for y, v in pb.items()}
    return Market(a, b)


def side(s):
    return (s.names, s.lists, s.ties, s.nties, s.rank, s.written, s.written_ties,
            s.written_nties)


@settings(max_examples=400, deadline=None)
@given(smti())
def test_one_pass_parse_is_the_order_built_form(data):
    try:
        want = order_built(data)
    except InstanceError as e:
        with pytest.raises(InstanceError) as got:
            parse_market(data)
        assert (got.value.agent, got.value.value) == (e.agent, e.value)
        return
    ref = _ints_from_orders(want.a, want.b, want.pa, want.pb)
    ints = parse_market(data).ints
    assert side(ints.a) == side(ref.a) and side(ints.b) == side(ref.b)


def outcome(market, notion, cert):
    try:
        csm.replay_deletion_log(market, notion, cert)
    except CertificateError as e:
        return str(e)
    return "ok"


def markets(rng: random.Random, n: int, complete: bool, tie_p: float) -> dict:
    a = [f"a{i}" for i in range(n)]
    b = [f"b{j}" for j in range(n)]
    return {"preferences": {"A": tied_lists(rng, a, b, complete, tie_p),
                            "B": tied_lists(rng, b, a, complete, tie_p)}}


@pytest.mark.parametrize("eager", [True, False])
@pytest.mark.parametrize("complete", [True, False])
def test_replay_outcomes_are_the_old_scan(monkeypatch, complete, eager):
    """The oracles' refutations and mutated ones (a step dropped, a step's agent moved)
    replay to the same outcome, message included, with the old per-entry scan; dense
    arrays on complete lists (``eager``: made before the replay, as in a big market),
    rows made on first use on sparse ones and small ones."""
    monkeypatch.setattr(csm, "EAGER_RANKS", 0 if eager else 4096)
    rng = random.Random(24 + complete)
    seen = 0
    for trial in range(60):
        data = markets(rng, rng.randint(2, 7), complete, rng.choice([0.0, 0.3, 0.8]))
        market = parse_market(data)
        for notion, search in (("super", orc.super_stable_search),
                               ("strong", orc.strongly_stable_search)):
            matching, cert = search(market)
            if matching is not None:
                continue
            steps = cert["steps"]
            certs = [cert]
            for _ in range(4 if steps else 0):
                mutated = [list(s) for s in steps]
                k = rng.randrange(len(mutated))
                if rng.random() < 0.5 or len(mutated[k]) < 3:
                    del mutated[k]
                else:
                    mutated[k][2] = rng.choice(market.ints.a.names)
                certs.append({**cert, "steps": mutated})
            for c in certs:
                new = outcome(market, notion, c)
                old = dict_replay(market, notion, c)
                assert new == old, (data, notion, c)
                seen += 1
    assert seen > 50


@pytest.mark.parametrize("complete", [True, False])
def test_mutual_ranks_are_the_definition(monkeypatch, complete):
    """Made before any replay, as the definition, above EAGER_RANKS pairs when B's lists
    hold a quarter of all pairs; else every row is left to be made on first use (None)."""
    rng = random.Random(7 + complete)
    for eager in (0, 4096):
        monkeypatch.setattr(csm, "EAGER_RANKS", eager)
        for _ in range(30):
            ints = parse_market(markets(rng, rng.randint(1, 8), complete, 0.3)).ints
            want = [[ints.b.rank[j][i] for j in lst] for i, lst in enumerate(ints.a.lists)]
            got = csm._mutual_ranks(ints)
            entries = sum(map(len, ints.b.lists))
            if entries > eager and 4 * entries >= len(ints.a.names) * len(ints.b.names):
                assert got == want
            else:
                assert got == [None] * len(want)


def test_a_replay_makes_only_the_rows_it_reads():
    """On a small market the replay of SUPER's refutation makes the ranks of the A-agents
    whose head tie it moved on (each as the definition), not the others'."""
    rng = random.Random(11)
    made = left = 0
    for _ in range(200):
        market = parse_market(markets(rng, rng.randint(3, 8), True, 0.4))
        ints = market.ints
        _, cert = orc.super_stable_search(market)
        if cert is None:
            continue
        assert outcome(market, "super", cert) == "ok"
        rows = csm._START[ints][0]
        for i, (row, lst) in enumerate(zip(rows, ints.a.lists)):
            if row is None:
                left += 1
            else:
                assert row == [ints.b.rank[j][i] for j in lst]
                made += 1
    assert made and left > made / 4


def test_mutual_ranks_are_made_once_per_market():
    """The replays of one market (super and strong, every label of a labels file) share
    one start state, its mutual-rank arrays included; another market gets its own."""
    m1 = parse_market(markets(random.Random(3), 12, True, 0.4))
    m2 = parse_market(markets(random.Random(4), 12, True, 0.4))
    first = csm._start(m1.ints)
    for notion in ("super", "strong"):
        outcome(m1, notion, {"type": "deletion_log", "steps": []})
        assert csm._START[m1.ints] is first
    assert csm._start(m2.ints)[0] is not first[0]
