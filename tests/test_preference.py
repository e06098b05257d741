"""Preference queries: oracle = CP-SAT encoding = brute force over all completions.

Brute force here is independent of the engines: it enumerates ``itertools.permutations``
of the items, keeps those that respect every base relation of the agent, and evaluates the
query definitions of :mod:`prefcert.formal.preference` on each completion. The checker must accept
every engine certificate and reject corrupted ones.
"""
from __future__ import annotations

import copy
import functools
import itertools
import json
import os

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from prefcert.encodings.preference import query_cpsat, winner_aggregated_cpsat
from prefcert.formal.checker import check
from prefcert.formal.checker.preference import SPEC
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.formal.instances import from_object
from prefcert.formal.preference import (
    PROFILE,
    SINGLE,
    parse_preference_data,
    value_profile,
    value_single,
)
from prefcert.oracles import preference as oq
from prefcert.oracles import preference_winner as ov

from prefcert.domains.preference import resolve
from prefcert.pipeline.jobs import label, plan

check_certificate = functools.partial(check, SPEC)   # dispatch on the certificate's type
SETTINGS = dict(max_examples=int(os.environ.get("PREFCERT_EXAMPLES", 120)), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


# --------------------------------------------------------------------------- strategies

@st.composite
def agent_data(draw, items, only_orders=False):
    kind = "order" if only_orders else draw(st.sampled_from(["order", "order", "edges", "choices"]))
    hidden = draw(st.permutations(items))
    count = draw(st.integers(1, 2))
    if kind == "order":
        listed = hidden[:draw(st.integers(1, len(items)))]
        order, i = [], 0
        while i < len(listed):
            size = draw(st.integers(1, 3))
            grp = list(listed[i:i + size])
            order.append(grp[0] if len(grp) == 1 else grp)
            i += size
        return {"order": order, "count": count}
    pairs = [(a, b) for i, a in enumerate(hidden) for b in hidden[i + 1:]]
    if kind == "edges":
        chosen = draw(st.lists(st.sampled_from(pairs), max_size=len(items) + 2, unique=True)) \
            if pairs else []
        return {"edges": [list(p) for p in chosen], "count": count}
    choices = []
    for _ in range(draw(st.integers(0, 3))):
        sub = draw(st.lists(st.sampled_from(items), min_size=1, max_size=len(items), unique=True))
        best = min(sub, key=hidden.index)
        choices.append([sub, best])
    return {"choices": choices, "count": count}


@st.composite
def instances(draw, max_items=7, max_agents=5, ballots=False):
    m = draw(st.integers(2, max_items))
    items = [f"i{j}" for j in range(m)]
    n = draw(st.integers(1, max_agents))
    prof = {f"V{k}": draw(agent_data(items, ballots)) for k in range(1, n + 1)}
    sem = "truncated" if ballots else draw(st.sampled_from(["unknown", "truncated"]))
    return {"id": "h", "domain": "preference", "items": items, "profile": prof,
            "semantics": sem}


@st.composite
def single_question(draw, data):
    items = data["items"]
    agent = draw(st.sampled_from(sorted(data["profile"])))
    t = draw(st.sampled_from(SINGLE))
    m = len(items)
    two = draw(st.lists(st.sampled_from(items), min_size=2, max_size=2, unique=True))
    q = {"type": t, "agent": agent}
    if t == "position":
        q["item"] = two[0]
        if draw(st.booleans()):
            q["position"] = draw(st.integers(1, m))
    elif t == "kth":
        q["k"] = draw(st.integers(1, m))
    elif t == "compare":
        q["items"] = two
    elif t == "rank_set":
        q["items"] = draw(st.lists(st.sampled_from(items), min_size=1, max_size=m, unique=True))
    elif t == "rs":
        q["bundles"] = [draw(st.lists(st.sampled_from(items), max_size=m, unique=True)),
                        draw(st.lists(st.sampled_from(items), max_size=m, unique=True))]
    elif t == "topk":
        q["item"], q["k"] = two[0], draw(st.integers(1, m))
    else:
        q["k"] = draw(st.integers(1, m))
    return q


@st.composite
def profile_question(draw, data):
    items = data["items"]
    t = draw(st.sampled_from(PROFILE))
    two = draw(st.lists(st.sampled_from(items), min_size=2, max_size=2, unique=True))
    if t == "winner":
        return {"type": t, "rule": draw(st.sampled_from(["plurality", "borda", "copeland"])),
                "item": two[0]}
    return {"type": t, "items": two}


# --------------------------------------------------------------------------- brute force

def extensions(model, ag):
    edges = [(a, b) for a, bs in ag.succ.items() for b in bs]
    out = []
    for p in itertools.permutations(model.items):
        pos = {x: i for i, x in enumerate(p)}
        if all(pos[a] < pos[b] for a, b in edges):
            out.append(list(p))
    return out


def brute_single(model, name, params):
    ag = model.agent(params["agent"])
    exts = extensions(model, ag)
    vals = [value_single(name, params, o) for o in exts]
    return summarise(model, name, params, vals, exts)


def brute_profile(model, name, params, limit=20_000):
    per, total = [], 1
    for ag in model.agents:
        ex = extensions(model, ag)
        combos = list(itertools.combinations_with_replacement(range(len(ex)), ag.count))
        total *= len(combos)
        if total > limit:
            return None
        per.append((ex, combos))
    vals = []
    for pick in itertools.product(*[c for _, c in per]):
        prof = [(ex[i], 1) for (ex, _), idxs in zip(per, pick) for i in idxs]
        vals.append(value_profile(model, name, params, prof))
    return summarise(model, name, params, vals, None)


def summarise(model, name, params, vals, exts):
    uniq = {json.dumps(v) for v in vals}
    if name in ("compare", "rs", "topk", "winner") or (name == "position" and "position" in params):
        return (("true" if vals[0] else "false") if len(uniq) == 1 else "undetermined"), None
    if name == "majority":
        return (("true" if vals[0] else "false") if len(uniq) == 1 else "undetermined"), None
    if len(uniq) == 1:
        return "determined", {"value": vals[0]}
    if name in ("position", "count"):
        return "undetermined", {"min": min(vals), "max": max(vals)}
    if name == "kth":
        return "undetermined", None
    if name == "rank_set":
        idx = {x: i for i, x in enumerate(model.items)}
        S = sorted(dict.fromkeys(params["items"]), key=idx.__getitem__)
        pairs = [[x, y] for x in S for y in S if x != y and all(o.index(x) < o.index(y) for o in exts)]
        return "undetermined", {"pairs": pairs}
    if name == "topk_list":
        sets = [set(v) for v in vals]
        return "undetermined", {"necessary": sorted(set.intersection(*sets)),
                                "possible": sorted(set.union(*sets))}
    raise AssertionError(name)


def run_engines(model, name, params):
    out = []
    if name in SINGLE:
        out.append(("oracle", oq.SINGLE[name](model, params)))
    elif name == "winner":
        out.append(("oracle", ov.winner(model, params)))
        out.append(("brute_force", ov.brute_force_winner(model, params)))
        out.append(("cpsat_agg", winner_aggregated_cpsat(model, params, time_limit=20, seed=0)))
    else:
        out.append(("oracle", getattr(oq, name)(model, params)))
    out.append(("cpsat", query_cpsat(model, name, params, time_limit=20, seed=0)))
    return out


def cross_check(data, q, want):
    model = parse_preference_data(data)
    name, params = resolve(q)
    for eng, o in run_engines(model, name, params):
        if o.verdict == "unknown":
            continue
        assert o.verdict == want[0], (eng, q, o, want)
        if name != "majority" or want[1] is not None:
            assert o.solution == want[1], (eng, q, o.solution, want)
        if o.certificate:
            check_certificate(model, name, params, o.verdict, o.solution, o.certificate)
            corrupt_rejected(model, name, params, o)
    return model, name, params


def corrupt_rejected(model, name, params, o):
    """Flipping the verdict, or collapsing two witnesses into one, must be rejected."""
    cert = o.certificate
    if cert.get("type") == "exhaustive":
        return
    others = {"true": ["false", "undetermined"], "false": ["true", "undetermined"],
              "undetermined": ["true", "false", "determined"],
              "determined": ["undetermined"]}[o.verdict]
    for v in others:
        with pytest.raises(CertificateError):
            check_certificate(model, name, params, v, o.solution, cert)
    if o.verdict == "undetermined":
        bad = copy.deepcopy(cert)
        if "orders" in bad:
            bad["orders"][1] = bad["orders"][0]
        elif "witnesses" in bad and "win" in bad["witnesses"]:
            w = bad["witnesses"]
            w["win"], w["lose"] = w["lose"], w["win"]
        elif "witnesses" in bad:
            w = bad["witnesses"]
            w["min"], w["max"] = w["max"], w["min"]
        with pytest.raises(CertificateError):
            check_certificate(model, name, params, o.verdict, o.solution, bad)
    if cert.get("type") == "chain":
        bad = dict(cert, chain=cert["chain"][::-1])
        with pytest.raises(CertificateError):
            check_certificate(model, name, params, o.verdict, o.solution, bad)


# --------------------------------------------------------------------------- properties

@settings(**SETTINGS)
@given(st.data())
def test_single_agent_queries_agree_with_brute_force(data):
    inst = data.draw(instances())
    q = data.draw(single_question(inst))
    model = parse_preference_data(inst)
    name, params = resolve(q)
    want = brute_single(model, name, params)
    cross_check(inst, q, want)


@settings(**SETTINGS)
@given(st.data())
def test_profile_queries_agree_with_brute_force(data):
    inst = data.draw(instances(max_items=4, max_agents=3))
    q = data.draw(profile_question(inst))
    model = parse_preference_data(inst)
    name, params = resolve(q)
    want = brute_profile(model, name, params)
    assume(want is not None)
    if name == "majority":
        cnt = brute_profile(model, "count", dict(params))
        lo, hi = (cnt[1]["value"],) * 2 if cnt[0] == "determined" else \
            (cnt[1]["min"], cnt[1]["max"])
        want = (want[0], {"min": lo, "max": hi})
    cross_check(inst, q, want)


@settings(**SETTINGS)
@given(st.data())
def test_winners_of_truncated_ballots_agree_with_brute_force(data):
    """PrefLib-like data (weak orders, truncated): the aggregated encoding takes part."""
    inst = data.draw(instances(max_items=5, max_agents=4, ballots=True))
    item = data.draw(st.sampled_from(inst["items"]))
    q = {"type": "winner", "rule": data.draw(st.sampled_from(["plurality", "borda", "copeland"])),
         "item": item}
    model = parse_preference_data(inst)
    name, params = resolve(q)
    want = brute_profile(model, name, params)
    assume(want is not None)
    cross_check(inst, q, want)


@settings(**dict(SETTINGS, max_examples=60))
@given(st.data())
def test_profile_queries_oracle_equals_encoding_up_to_7_items_5_agents(data):
    """Beyond brute force: oracle = CP-SAT on up to 7 items and 5 agents."""
    inst = data.draw(instances(max_items=7, max_agents=5))
    q = data.draw(profile_question(inst))
    model = parse_preference_data(inst)
    name, params = resolve(q)
    outs = [o for _, o in run_engines(model, name, params) if o.verdict != "unknown"]
    assume(len(outs) >= 2)
    assert len({(o.verdict, json.dumps(o.solution)) for o in outs}) == 1, outs
    for o in outs:
        if o.certificate:
            check_certificate(model, name, params, o.verdict, o.solution, o.certificate)


def _rename(obj, f):
    if isinstance(obj, str):
        return f.get(obj, obj)
    if isinstance(obj, list):
        return [_rename(x, f) for x in obj]
    if isinstance(obj, dict):
        return {k: _rename(v, f) for k, v in obj.items()}
    return obj


def _norm(name, sol):
    if isinstance(sol, dict) and name in ("topk_list", "rank_set"):
        return {k: sorted(map(str, v)) if isinstance(v, list) else v for k, v in sol.items()}
    return sol


@settings(**dict(SETTINGS, max_examples=60))
@given(st.data())
def test_answers_invariant_under_renaming_items(data):
    inst = data.draw(instances(max_items=5, max_agents=3))
    q = data.draw(st.one_of(single_question(inst), profile_question(inst)))
    perm = data.draw(st.permutations(inst["items"]))
    f = {x: "z" + y for x, y in zip(inst["items"], perm)}
    inv = {v: k for k, v in f.items()}
    ren = {k: (_rename(v, f) if k in ("items", "profile") else v) for k, v in inst.items()}
    ren["items"] = [f[x] for x in inst["items"]][::-1]      # also reorder the item list
    q2 = {k: (v if k in ("type", "agent", "rule", "k", "position") else _rename(v, f))
          for k, v in q.items()}
    m1, m2 = parse_preference_data(inst), parse_preference_data(ren)
    n1, p1 = resolve(q)
    n2, p2 = resolve(q2)
    run = (lambda m, n, p: oq.SINGLE[n](m, p)) if n1 in SINGLE else \
        (lambda m, n, p: ov.winner(m, p) if n == "winner" else getattr(oq, n)(m, p))
    o1, o2 = run(m1, n1, p1), run(m2, n2, p2)
    assume("unknown" not in (o1.verdict, o2.verdict))
    assert o1.verdict == o2.verdict
    assert _norm(n1, o1.solution) == _norm(n1, _rename(o2.solution, inv)) or n1 == "rank_set"
    check_certificate(m2, n2, p2, o2.verdict, o2.solution, o2.certificate)


# --------------------------------------------------------------------------- examples

def test_pipeline_labels_example_and_cycle_is_bad_input():
    d = {"id": "ex", "domain": "preference", "items": ["a", "b", "c", "d"],
         "profile": {"V1": {"order": ["a", ["b", "c"]]},
                     "V2": {"edges": [["a", "b"], ["b", "c"]]},
                     "V3": {"choices": [[["a", "b", "c"], "c"]]}},
         "questions": [{"type": "compare", "agent": "V2", "items": ["a", "c"]},
                       {"type": "majority", "items": ["a", "c"]},
                       {"type": "winner", "rule": "borda", "item": "a"}]}
    labels = [label(j) for j in plan([from_object(d, "ex.json", None, "ex")])]
    assert [lab["verdict"] for lab in labels] == ["true", "true", "undetermined"]
    assert labels[0]["certificate"] == {"type": "chain", "chain": ["a", "b", "c"]}
    assert all(lab["checked"] for lab in labels)
    bad = copy.deepcopy(d)
    bad["profile"]["V2"]["edges"].append(["c", "a"])
    with pytest.raises(InstanceError) as e:
        plan([from_object(bad, "bad.json", None, "bad")])
    assert e.value.agent == "V2" and set(e.value.value) == {"a", "b", "c"}
    assert "bad.json" in str(e.value)


def test_semantics_changes_answers():
    d = {"id": "s", "domain": "preference", "items": ["a", "b", "c"],
         "profile": {"V": {"order": ["a"]}}}
    q = {"type": "compare", "agent": "V", "items": ["a", "b"]}
    assert oq.compare(parse_preference_data(d), resolve(q)[1]).verdict == "undetermined"
    d["semantics"] = "truncated"
    assert oq.compare(parse_preference_data(d), resolve(q)[1]).verdict == "true"


def test_large_partial_order_query_has_certificate():
    import random
    rng = random.Random(1)
    items = [f"x{i}" for i in range(1000)]
    edges = set()
    while len(edges) < 1500:
        i, j = sorted(rng.sample(range(1000), 2))
        edges.add((items[i], items[j]))
    d = {"id": "big", "domain": "preference", "items": items,
         "profile": {"V": {"edges": [list(e) for e in sorted(edges)]}}}
    model = parse_preference_data(d)
    for q in ({"type": "compare", "agent": "V", "items": ["x0", "x999"]},
              {"type": "position", "agent": "V", "item": "x500"},
              {"type": "topk", "agent": "V", "item": "x3", "k": 10}):
        name, params = resolve(q)
        o = oq.SINGLE[name](model, params)
        check_certificate(model, name, params, o.verdict, o.solution, o.certificate)


def test_audit_compare_majority_winner():
    from prefcert.pipeline.jobs import audit
    d = {"id": "au", "domain": "preference", "items": ["a", "b", "c"],
         "profile": {"V1": {"order": ["a", ["b", "c"]]}, "V2": {"edges": [["b", "a"]]},
                     "V3": {"order": ["a", "b", "c"]}},
         "questions": [{"type": "compare", "agent": "V1", "items": ["b", "c"]},
                       {"type": "majority", "items": ["a", "b"]},
                       {"type": "winner", "rule": "borda", "item": "a"},
                       {"type": "position", "agent": "V3", "item": "b"}]}
    jobs = plan([from_object(d, "au.json", None, "au")])
    truth = [label(j) for j in jobs]
    assert [t["verdict"] for t in truth] == ["undetermined", "true", "true", "determined"]
    ok = audit(jobs[0], "<answer>\"undetermined\"</answer>")
    assert ok["verdict"] == "correct"
    bad = audit(jobs[0], '<answer>{"verdict": "true"}</answer>')
    assert bad["verdict"] == "incorrect"
    assert bad["violations"][0]["certificate"]["type"] == "completions"
    assert audit(jobs[1], "true")["verdict"] == "correct"
    assert audit(jobs[1], "false")["verdict"] == "incorrect"
    assert audit(jobs[2], "<answer>false</answer>")["verdict"] == "incorrect"
    assert audit(jobs[3], "2")["verdict"] == "correct"
    assert audit(jobs[3], "3")["verdict"] == "incorrect"
    assert audit(jobs[3], "no idea")["verdict"] == "unparseable"


# --------------------------------------------------------------------------- model and spec

@settings(**SETTINGS)
@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.sampled_from("abcdef"))
                .filter(lambda e: e[0] != e[1]), max_size=12))
def test_cycle_reported_as_networkx_finds_it(pairs):
    """The plain-Python cycle search reports the cycle networkx's find_cycle reports."""
    import networkx as nx
    from prefcert.formal.preference import find_cycle
    try:
        cyc = nx.find_cycle(nx.DiGraph(pairs))
        want = [u for u, _ in cyc] + [cyc[0][0]]
    except nx.NetworkXNoCycle:
        want = None
    assert find_cycle(pairs) == want


@settings(**dict(SETTINGS, max_examples=60))
@given(st.data())
def test_instances_and_questions_follow_the_schema(data):
    import jsonschema
    inst = data.draw(instances())
    inst["questions"] = [data.draw(single_question(inst)), data.draw(profile_question(inst))]
    jsonschema.Draft202012Validator(SPEC.schema).validate(inst)


def test_schema_accepts_shipped_preflib_files_and_rejects_bad_data():
    from pathlib import Path

    import jsonschema
    from prefcert.formal.preflib import read_preflib
    v = jsonschema.Draft202012Validator(SPEC.schema)
    v.check_schema(SPEC.schema)
    shipped = Path(__file__).resolve().parent.parent / "instances" / "preflib"
    for p in sorted(shipped.glob("*.*[ci]")):
        v.validate(read_preflib(p)[0].data)
    good = {"domain": "preference", "profile": {"V": ["a", ["b", "c"]]},
            "questions": [{"type": "compare", "agent": "V", "items": ["a", "b"]}]}
    v.validate(good)
    for bad in ({"profile": {"V": {"order": ["a"], "edges": []}}},
                {"profile": {"V": {"order": ["a"], "count": 0}}},
                {"profile": {"V": {"edges": [["a"]]}}},
                {"questions": [{"type": "winner", "rule": "approval", "item": "a"}]},
                {"questions": [{"type": "compare", "agent": "V", "items": ["a", "a"]}]}):
        assert not v.is_valid({**good, **bad}), bad


def test_each_certificate_type_proves_exact_verdicts():
    """Verdicts proven are the question's own words; a type never proves what it cannot."""
    for ctype in SPEC.certificates.values():
        for q, verdicts in ctype.proves.items():
            assert set(verdicts) <= set(SPEC.questions[q].verdicts), (ctype.name, q)
    assert set(SPEC.certificates) == {"chain", "chains", "completions", "bounds", "injection",
                                      "size", "rs_search", "hall_violator", "dominated",
                                      "exhaustive"}


def test_checker_imports_no_engine_library():
    import subprocess
    import sys
    code = ("import sys, prefcert.formal.checker.preference; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('networkx', 'numpy', 'scipy', 'ortools') or m.startswith(('prefcert.oracles', "
            "'prefcert.encodings', 'prefcert.domains'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------- aggregated / fast paths = the per-voter ones
# The fast paths for big PrefLib files (identical ballots and orders aggregated, weak
# orders completed tie by tie) must give exactly what the per-voter code gave, so the
# labels do not change. The references below are the per-voter code as it was.

def _old_plurality_possible(model, c):
    """The voter-level flow of Betzler & Dorn 2010: networkx max-flow, then min-cut."""
    import networkx as nx
    spec, sc, forced = ov._Spec(), 0, []
    for ag in model.agents:
        C = oq.closure(model, ag)
        if C.up[c] == 0:
            sc += ag.count
            spec.put(ag.name, ov.key_for(model, [c], []), ag.count)
        else:
            forced.append(ag)
    item_node = {x: 2 + i for i, x in enumerate(model.items)}
    g = nx.DiGraph()
    for k, ag in enumerate(forced):
        C = oq.closure(model, ag)
        g.add_edge(0, 2 + model.m + k, capacity=ag.count)
        for x in model.items:
            if C.up[x] == 0:
                g.add_edge(2 + model.m + k, item_node[x])
    for x in model.items:
        if x != c:
            g.add_edge(item_node[x], 1, capacity=sc)
    if not forced:
        return True, spec.json()
    val, flow = nx.maximum_flow(g, 0, 1)
    if val < sum(ag.count for ag in forced):
        _, (S, _) = nx.minimum_cut(g, 0, 1)
        return False, [x for x in model.items if item_node[x] in S]
    for k, ag in enumerate(forced):
        out = flow[2 + model.m + k]
        for x in model.items:
            if out.get(item_node[x]):
                spec.put(ag.name, ov.key_for(model, [x, c], []), out[item_node[x]])
    return True, spec.json()


def _per_voter_scores(rule, items, profile):
    """Scores summed voter by voter (no aggregation), from the definitions."""
    s = {x: 0 for x in items}
    for o, w in profile:
        for _ in range(w):
            if rule == "plurality":
                s[o[0]] += 1
            elif rule == "borda":
                for i, x in enumerate(o):
                    s[x] += len(items) - 1 - i
    if rule == "copeland":
        for a, b in itertools.combinations(items, 2):
            n_ab = sum(w for o, w in profile if o.index(a) < o.index(b))
            n_ba = sum(w for o, w in profile if o.index(b) < o.index(a))
            s[a] += (n_ab > n_ba) - (n_ab < n_ba)
            s[b] += (n_ba > n_ab) - (n_ba < n_ab)
    return s


@st.composite
def elections(draw):
    """Many small ballots (weak orders, often truncated, counts 1..3), so that identical
    possible-top sets and identical completions occur; either semantics."""
    inst = draw(instances(max_items=5, max_agents=10, ballots=True))
    inst["semantics"] = draw(st.sampled_from(["truncated", "truncated", "unknown"]))
    for a in inst["profile"].values():
        a["count"] = draw(st.integers(1, 3))
    return inst


@settings(**dict(SETTINGS, max_examples=80))
@given(st.data())
def test_aggregated_paths_equal_the_per_voter_ones(data):
    import networkx as nx
    from prefcert.formal.checker.preference import diff_bound as checker_bound
    from prefcert.formal.checker.preference import profile_from_spec
    from prefcert.formal.preference import scores as checker_scores
    inst = data.draw(elections())
    model = parse_preference_data(inst)
    fresh = parse_preference_data(inst)       # an uncached model for the references
    key = data.draw(st.permutations(model.items))
    for ag in model.agents:
        C = oq.closure(model, ag)
        g = nx.DiGraph()
        g.add_nodes_from(model.items)
        g.add_edges_from((a, b) for a, bs in ag.succ.items() for b in bs)
        for x in model.items:       # closure bitsets = reachability in the base relation
            assert set(C.members(C.down[x])) == nx.descendants(g, x)
            assert set(C.members(C.up[x])) == nx.ancestors(g, x)
        want = list(nx.lexicographical_topological_sort(g, key=list(key).index))
        assert C.complete(list(key)) == want
        assert profile_from_spec(model, {"keys": [list(key)], "assign": {}})[
            model.agents.index(ag)][0] == want
    for c in model.items:
        assert ov.plurality_possible(model, c) == _old_plurality_possible(fresh, c)
        for d in model.items:
            if d == c:
                continue
            for rule in ("plurality", "borda", "copeland"):
                for lower in (True, False):
                    got = ov.diff_bound(model, rule, c, d, lower=lower)
                    assert got == checker_bound(fresh, rule, c, d, lower=lower)
            for rule in ("plurality", "borda"):
                assert ov.diff_bound(model, rule, c, d, lower=True) == sum(
                    ag.count * ov._min_diff(fresh, ag, rule, c, d) for ag in fresh.agents)
    spec = {"keys": [list(key), list(reversed(key))],
            "assign": {a.name: [[0, a.count - 1], [1, 1]] for a in model.agents[::2]}}
    prof = profile_from_spec(model, spec)
    engine_spec = ov._Spec()
    for a, parts in spec["assign"].items():
        for k, w in parts:
            engine_spec.put(a, spec["keys"][k], w)
    engine_spec.keys[:] = spec["keys"]          # key 0 first, as in spec
    for rule in ("plurality", "borda", "copeland"):
        want = _per_voter_scores(rule, model.items, prof)
        assert ov.scores(rule, model.items, prof) == want
        assert checker_scores(rule, model.items, prof) == want
        assert ov._spec_scores(model, rule, engine_spec) == want
        one_key = ov._Spec()
        one_key.key(list(key))
        assert ov._spec_scores(model, rule, one_key) == _per_voter_scores(
            rule, model.items, profile_from_spec(fresh, {"keys": [list(key)]}))
