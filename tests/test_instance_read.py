"""The cheap instance read (issue 24, items 2 and 6): the string-sharing JSON hook, the
canonical hash written in pieces and the strict house-allocation index give the same
instance hash, data and model as the old path — plain ``json.loads``, one
``json.dumps(sort_keys=True, separators=(",", ":"))`` and the general parse — on random
instances (unicode and escaped names, ties, repeated names that must be refused). Linear
behaviour is pinned by call counts, never by time."""
from __future__ import annotations

import hashlib
import json
import sys
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefcert.formal import house_allocation as ha
from prefcert.formal.errors import InstanceError
from prefcert.formal.house_allocation import HouseAllocation, parse_house_allocation
from prefcert.formal.instances import canonical_pieces, read_json, read_jsonl, shared_strings
from prefcert.formal.weak_order import parse_weak_order


def old_canonical(data) -> tuple[str, int]:
    """The hash and size as the old path computed them: one ``json.dumps``."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest(), len(text)


# names: plain, unicode, quotes, backslashes, control characters, DEL, surrogate escapes
NAMES = st.one_of(st.sampled_from(["h1", "h2", "a b", "é", "名", 'q"', "b\\s", "\x00",
                                   "\n", "\x7f", "\ud800", "", "1"]),
                  st.text(max_size=4))

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20)
    | st.floats(allow_nan=False) | NAMES,
    lambda kids: st.lists(kids, max_size=5) | st.dictionaries(NAMES, kids, max_size=5),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_canonical_pieces_are_json_dumps(value):
    assert "".join(canonical_pieces(value)) == json.dumps(value, sort_keys=True,
                                                          separators=(",", ":"))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(NAMES, st.lists(NAMES | st.lists(NAMES, max_size=3), max_size=12),
                       max_size=70))
def test_canonical_pieces_of_profiles(prefs):
    """Big and small objects of lists (both sides of :func:`_worth_descending`)."""
    data = {"id": "x", "domain": "house_allocation", "preferences": prefs}
    assert "".join(canonical_pieces(data)) == json.dumps(data, sort_keys=True,
                                                         separators=(",", ":"))


@st.composite
def raw_instances(draw):
    """A house-allocation instance as written: unicode names, ties, repeated names (an
    item twice in a list, an unknown object) and non-string entries sometimes, with or
    without ``objects``; written ASCII-escaped or not, indented or not."""
    objs = draw(st.lists(NAMES, min_size=1, max_size=6, unique=True))
    n = draw(st.integers(1, 6))
    agents = draw(st.lists(NAMES, min_size=n, max_size=n, unique=True))
    entry = st.sampled_from(objs)
    if draw(st.booleans()):                 # bad input too: unknown, numbers, booleans
        entry = entry | st.sampled_from(["zz-unknown", 1, True, 1.0, None])
    lst = st.lists(entry | st.lists(entry, max_size=3), max_size=6) if draw(st.booleans()) \
        else st.lists(entry, max_size=6, unique=draw(st.booleans()))
    prefs = {a: draw(lst) for a in agents}
    data = {"id": "r", "domain": "house_allocation", "preferences": prefs}
    if draw(st.booleans()):
        data["objects"] = objs
    indent = draw(st.sampled_from([None, 1]))
    text = json.dumps(data, ensure_ascii=draw(st.booleans()), indent=indent)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:              # a lone surrogate: only escaped is it UTF-8
        text = json.dumps(data, indent=indent)
    return text


def reference_model(data) -> HouseAllocation:
    """The general path: one :func:`parse_weak_order` per agent, objects as given or in
    order of first mention, the index derived from the orders."""
    known = data.get("objects")
    parsed = {a: parse_weak_order(lst, agent=a, known=known)
              for a, lst in data["preferences"].items()}
    if known is None:
        known = list(dict.fromkeys(h for o in parsed.values() for h in o.items))
    return HouseAllocation(parsed, tuple(known))


def same_index(a: ha.RankIndex, b: ha.RankIndex) -> bool:
    def ranks(ix):
        return [list(ix.entry_ranks(i)) for i in range(len(ix.offsets) - 1)]
    return (a.offsets, a.objects, a.max_rank, ranks(a)) == \
        (b.offsets, b.objects, b.max_rank, ranks(b))


@settings(max_examples=400, deadline=None)
@given(raw_instances())
def test_read_and_parse_match_the_old_path(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("r") / "x.json"
    path.write_text(text, encoding="utf-8")
    plain = json.loads(text)
    inst, = read_json(path)
    assert inst.data == plain
    assert (inst.sha256, inst.size) == old_canonical(plain)
    try:
        want = reference_model(plain)
    except InstanceError as e:
        with pytest.raises(InstanceError) as got:
            parse_house_allocation(inst.data)
        assert (got.value.agent, got.value.value) == (e.agent, e.value) \
            or str(got.value) == str(e)
        return
    model = parse_house_allocation(inst.data)
    assert model.objects == want.objects
    assert dict(model.prefs) == dict(want.prefs)
    assert same_index(model.rank_index(), want.rank_index())


def test_shared_strings_share_list_names_with_keys():
    text = json.dumps({"preferences": {"h1": ["h2", "h1"], "h2": [["h1", "h2"]]},
                       "objects": ["h1", "h2"]})
    data = json.loads(text, object_pairs_hook=shared_strings())
    keys = {k: k for k in data["preferences"]}
    assert all(h is keys[h] for h in data["objects"])
    assert data["preferences"]["h1"][0] is keys["h2"]
    assert data["preferences"]["h2"][0][1] is keys["h2"]


def test_shared_strings_never_merge_equal_numbers():
    """Regression: sharing through a dict must not meet numbers, where 1, 1.0 and True are
    one key (the data, hence the hash, would change)."""
    text = '{"a": ["x", 1, true, 1.0, "x"], "b": [true, 1], "c": [[1, true], ["x"]]}'
    data = json.loads(text, object_pairs_hook=shared_strings())
    assert json.dumps(data) == json.dumps(json.loads(text))
    assert [type(v) for v in data["a"]] == [str, int, bool, float, str]


def test_duplicate_key_is_refused_with_its_line(tmp_path):
    p = tmp_path / "d.json"
    p.write_text('{"id": "d", "domain": "house_allocation",\n "preferences": {"a": ["h"],\n'
                 ' "a": ["h"]}}')
    with pytest.raises(InstanceError) as e:
        read_json(p)
    assert e.value.line == 3 and e.value.value == "a"


def test_jsonl_hash_matches_the_old_path(tmp_path):
    rows = [{"id": f"i{k}", "domain": "house_allocation",
             "preferences": {"é": ["名", ["x", "y"]], "b": ['q"']}} for k in range(3)]
    p = tmp_path / "x.jsonl"
    p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                 encoding="utf-8")
    for inst, row in zip(read_jsonl(p), rows):
        assert (inst.sha256, inst.size) == old_canonical(row)


@pytest.mark.parametrize("objects", [True, False])
def test_strict_index_is_the_general_index(objects):
    prefs = {f"a{i}": [f"h{(i * 7 + k) % 13}" for k in range(13)] for i in range(9)}
    data = {"preferences": prefs, **({"objects": [f"h{j}" for j in range(13)]}
                                     if objects else {})}
    fast = ha._strict_indexed(prefs, data.get("objects"))
    slow = ha._indexed(prefs, data.get("objects"))
    assert fast is not None and slow is not None
    assert fast[0] == slow[0] and fast[1] == slow[1] and same_index(fast[2], slow[2])
    assert fast[2].objects.typecode == "i" and isinstance(fast[2].objects, array)


@pytest.mark.parametrize("lst", [["h1", "h1"], ["h1", ["h2"]], ["h1", 1], ["zz"], [True]])
def test_strict_index_declines_what_it_cannot_prove(lst):
    assert ha._strict_indexed({"a": ["h1"], "b": lst}, ["h1", "h2"]) is None


# ------------------------------------------------------------------ linear behaviour

def _calls(fn) -> int:
    """Python- and C-level calls made while ``fn`` runs (``sys.setprofile`` events)."""
    count = 0

    def prof(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1
    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def _complete(tmp_path, n: int):
    names = [f"h{j}" for j in range(n)]
    data = {"id": f"c{n}", "domain": "house_allocation", "objects": names,
            "preferences": {f"a{i}": names[i:] + names[:i] for i in range(n)}}
    p = tmp_path / f"c{n}.json"
    p.write_text(json.dumps(data))
    return p


def test_read_and_parse_make_calls_per_list_not_per_entry(tmp_path):
    """Complete strict lists: L = n², but the read (hook, hash) and the parse make O(n)
    calls — every per-entry step is inside one C-level call per list."""
    small, big = _complete(tmp_path, 40), _complete(tmp_path, 160)    # L ratio 16
    c_small = _calls(lambda: parse_house_allocation(read_json(small)[0].data))
    c_big = _calls(lambda: parse_house_allocation(read_json(big)[0].data))
    assert c_big < 6 * c_small                                       # about 4 (n ratio)


@pytest.mark.parametrize("prefs", [
    {"a": ["h1", "h2"], "b": ["h3"], "c": ["h2", "h3", "h1"]},    # total = n · first length
    {"a": ["h1", ["h2", "h3"]], "b": [["h3", "h1"], "h2"], "c": ["h2", "h1"]},
    {"a": [["h1", "h2"]], "b": ["h2", "h3"], "c": ["h3", "h1"]},  # equal lengths, ties
])
def test_dense_rank_matrix_of_equal_and_unequal_lengths(prefs):
    """Regression: the 2-D fill of equal-length lists is taken only when every length is
    equal (not when the total merely equals n times the first one); the oracle's matching
    and certificate are those of the welfare graph's path."""
    from prefcert.formal.welfare import welfare_graph
    from prefcert.oracles import house_allocation as oa
    data = {"preferences": prefs, "objects": ["h1", "h2", "h3"]}
    got = oa.utilitarian_matching(parse_house_allocation(data))
    want = oa.utilitarian_matching(welfare_graph(parse_house_allocation(data)))
    assert json.dumps(got) == json.dumps(want)
