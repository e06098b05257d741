"""The faster draws of ``indeterminacy-algorithmic`` (issue 24, item 3) decide what the
formulation they replace decided, with the same numbers drawn, so the suite's bytes do not
change:

- settings with the egalitarian notion: the rank-maximal candidate computed only when a
  test reads it, the variant asking "is this one of the candidates" lazily — the same
  candidates, verdict and random stream as computing every candidate first (the former
  code, restated here);
- HA-SI draws: the core candidate tested against MCPO by size before the rank-maximal
  matching runs — the verdict of the former order;
- a draw's maximum-matching size from the integer lists — networkx's;
- the refutation of a welfare optimum by a better known matching — never refutes the
  oracle's own optimum;
- the welfare graph of an allocation built by slices — the former per-entry build, key
  order and index included;
- the tie merging cut by slices — the former per-item loop, same numbers drawn;
- a housing draw's allocation model made from the market's parsed orders — the parse;
- generation with two workers — the bytes of one worker.
"""
from __future__ import annotations

import json
from typing import Any

import networkx as nx
import numpy as np
import pytest

import prefcert.formal.welfare as fw
from prefcert.bench import generate as G
from prefcert.bench.design import canonical
from prefcert.bench.indeterminacy import algorithmic as AL
from prefcert.bench.suites import suite as get_suite
from prefcert.generators import indeterminacy as gen
from prefcert.oracles.house_allocation import _scipy_rows

WITH_VARIANT = [x for x, st in AL.SETTINGS.items() if "egalitarian" in st["notions"]]


# ------------------------------------------------------------------ former formulations

def _old_variant(insts: dict, cands: dict, rng, graph=None) -> dict:
    """The egalitarian variant as it was: name dicts, canonical JSON of every other
    candidate (all of them computed before)."""
    best = cands["egalitarian"]
    if graph is not None and "sm" not in insts:
        edges = {e: r[0] for e, r in graph.ranks.items()}
    elif "sm" in insts:
        P = insts["sm"]["preferences"]
        ra = {a: AL._ranks(lst) for a, lst in P["A"].items()}
        rb = {b: AL._ranks(lst) for b, lst in P["B"].items()}
        edges = {(a, b): max(ra[a][b], rb[b][a]) for a in ra for b in ra[a]
                 if a in rb.get(b, {})}
    else:
        P = insts["ha"]["preferences"]
        edges = {(a, o): r for a, lst in P.items() for o, r in AL._ranks(lst).items()}
    worst = max((edges[(a, b)] for a, b in best.items()), default=0)
    others = {canonical(c) for k, c in cands.items() if k != "egalitarian"}
    keep = [e for e, r in edges.items() if r <= worst]
    lefts = sorted({a for a, _ in keep})
    rights = sorted({b for _, b in keep})
    for _ in range(8):
        row = dict(zip(lefts, rng.permutation(len(lefts)).tolist()))
        col = dict(zip(rights, rng.permutation(len(rights)).tolist()))
        adj: list[list[int]] = [[] for _ in lefts]
        for a, b in keep:
            adj[row[a]].append(col[b])
        mate = _scipy_rows(adj, len(rights))
        by_row = {i: a for a, i in row.items()}
        by_col = {j: b for b, j in col.items()}
        out = {by_row[i]: by_col[j] for i, j in enumerate(mate) if j >= 0}
        if len(out) == len(best) and canonical(out) not in others:
            return dict(sorted(out.items()))
    return best


def _old_standard(d, st: dict, rng, reading: str) -> dict | None:
    """Every candidate first, then the variant, then the tests (the former sampler)."""
    cands = {x: d.found[x] for x in st["notions"]}
    cands["egalitarian"] = _old_variant(d.insts, cands, rng, d.graphs.get("ha"))
    if len({canonical(c) for c in cands.values()}) < len(cands):
        return None
    if not AL.distinct(d.reads(cands, reading), st, reading):
        return None
    return cands


def _old_cheap_first(d, setting: dict, reading: str) -> bool:
    """The former cheap-first verdict: MCPO by size tested just before the MCPO oracle."""
    pairs = AL.rejecting_pairs(setting, reading)
    order = sorted(setting["notions"], key=lambda x: AL._ORACLE_COST.get(x, 1))
    known: dict[str, Any] = {}
    seen: set[str] = set()
    reads: dict = {}
    mcpo = "max_cardinality_pareto_optimal"
    for x in order:
        if x == mcpo and any(y == mcpo and k in known and AL._mcpo_by_size(d, reads[k])
                             for k, y in pairs):
            return False
        c = d.found[x]
        key = canonical(c)
        if key in seen:
            return False
        seen.add(key)
        known[x] = c
        reads[x] = AL._Read(d.member(c), reading)
        for k, y in pairs:
            if x in (k, y) and k in known and y in known and reads[k].get(y):
                return False
    return True


def _everything_first(d, setting: dict, reading: str) -> bool:
    """The verdict with every candidate computed first (no early stop at all)."""
    cands = {x: d.found[x] for x in setting["notions"]}
    if len({canonical(c) for c in cands.values()}) < len(cands):
        return False
    return AL.distinct(d.reads(cands, reading), setting, reading)


def _old_allocation_graph(model) -> fw.WelfareGraph:
    """The former per-entry build of an allocation's welfare graph."""
    ix = model.rank_index()
    agents, objects = model.agents, model.objects
    ranks: dict = {}
    rows: list[int] = []
    for i, a in enumerate(agents):
        lo, hi = ix.offsets[i], ix.offsets[i + 1]
        rk = range(1, hi - lo + 1) if ix.ranks is None else ix.ranks[lo:hi]
        for j, k in zip(ix.objects[lo:hi], rk):
            ranks[(a, objects[j])] = (k,)
        rows.extend([i] * (hi - lo))
    maximum = model.conventions.get("welfare_scope") == "maximum"
    g = fw.WelfareGraph(agents, objects, ranks, ix.max_rank, False, maximum)
    g._index.append(fw.EdgeIndex.from_lists(g, rows, list(ix.objects), list(ranks.values())))
    return g


def _old_merge(orders, p, rng) -> list[list]:
    """The former per-item tie merging."""
    lens = [len(o) - 1 if p > 0 and len(o) > 1 else 0 for o in orders]
    total = sum(lens)
    u = rng.random(total).tolist() if total else []
    out: list[list] = []
    pos = 0
    for o, k in zip(orders, lens):
        if not o:
            out.append([])
            continue
        groups: list[list[str]] = [[o[0]]]
        for i in range(1, len(o)):
            if k and u[pos + i - 1] < p:
                groups[-1].append(o[i])
            else:
                groups.append([o[i]])
        pos += k
        out.append([g[0] if len(g) == 1 else g for g in groups])
    return out


# ----------------------------------------------------------------------------- tests

@pytest.mark.parametrize("setting", WITH_VARIANT)
@pytest.mark.parametrize("reading", ["strict", "canonical"])
def test_lazy_rank_maximal_keeps_candidates_verdict_and_stream(setting, reading):
    st = AL.SETTINGS[setting]
    rng = np.random.default_rng(len(setting) * 7 + len(reading))
    outcomes = {"kept": 0, "rejected": 0}
    for t in range(240):
        n = 3 + t % 14          # small markets (candidates often equal) to n = 16 (kept)
        insts = AL.draw_instances(st["kind"], st["pref"], n, rng, "t")
        seed = int(rng.integers(2 ** 32))
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        want = _old_standard(AL._Draw(insts, st["notions"]), st, a, reading)
        got = AL._standard_with_variant(AL._Draw(insts, st["notions"]), st, b, reading)
        assert (got is None) == (want is None)
        if want is not None:
            assert got is not None and list(got.items()) == list(want.items())
        assert a.random() == b.random()          # the same numbers drawn
        outcomes["rejected" if want is None else "kept"] += 1
    assert all(outcomes.values()), outcomes        # both paths exercised


@pytest.mark.parametrize("setting", ["HA-SI", "HA-SO", "HA-TO", "OA-SO"])
def test_variant_reads_the_same_numbers_as_before(setting):
    st = AL.SETTINGS[setting]
    rng = np.random.default_rng(17)
    for t in range(60):
        insts = AL.draw_instances(st["kind"], st["pref"], 2 + t % 7, rng, "t")
        d = AL._Draw(insts, st["notions"])
        cands = {x: d.found[x] for x in st["notions"]}
        if "egalitarian" not in cands:
            cands["egalitarian"] = d.solve("egalitarian")
        a, b = np.random.default_rng(t), np.random.default_rng(t)
        assert AL._egalitarian_variant(insts, cands, a, d.graphs.get("ha")) == \
            _old_variant(insts, cands, b, d.graphs.get("ha"))
        assert a.random() == b.random()


@pytest.mark.parametrize("setting", [x for x in AL.SETTINGS if x not in WITH_VARIANT])
@pytest.mark.parametrize("reading", ["strict", "canonical"])
def test_mcpo_by_size_early_keeps_the_verdict(setting, reading):
    st = AL.SETTINGS[setting]
    rng = np.random.default_rng(5)
    verdicts = set()
    for t in range(150):
        insts = AL.draw_instances(st["kind"], st["pref"], 3 + t % 6, rng, "t")
        v = AL._distinct_cheap_first(AL._Draw(insts, st["notions"]), st, reading)
        assert v == _old_cheap_first(AL._Draw(insts, st["notions"]), st, reading)
        assert v == _everything_first(AL._Draw(insts, st["notions"]), st, reading)
        verdicts.add(v)
    assert verdicts == {True, False}


def test_maximum_matching_size_is_networkx():
    rng = np.random.default_rng(8)
    for t in range(80):
        pref = ("SI", "TO", "SO")[t % 3]
        insts = AL.draw_instances("allocation", pref, 1 + t % 9, rng, "t")
        d = AL._Draw(insts, AL.SETTINGS["OA-SO"]["notions"])
        g = nx.Graph()
        for a, lst in insts["ha"]["preferences"].items():
            g.add_node(("A", a))
            for x in lst:
                for o in (x if isinstance(x, list) else [x]):
                    g.add_edge(("A", a), ("O", o))
        top = {v for v in g if v[0] == "A"}
        want = len(nx.bipartite.maximum_matching(g, top_nodes=top)) // 2
        assert d.max_matching_size() == want


@pytest.mark.parametrize("setting", WITH_VARIANT)
def test_a_refuted_matching_is_never_the_oracles_optimum(setting):
    # a random maximum matching of the draw's graph (the variant's kind of matching),
    # refuted by the known candidates: then the optimum is another matching
    st = AL.SETTINGS[setting]
    rng = np.random.default_rng(23)
    refuted = 0
    for t in range(80):
        insts = AL.draw_instances(st["kind"], st["pref"], 2 + t % 6, rng, "t")
        d = AL._Draw(insts, st["notions"])
        known = [d.found[x] for x in st["notions"] if x not in AL._LAZY]
        best = d.found["egalitarian"]
        out = AL._variant(insts, best, rng, d.graphs.get("ha"), lambda m: False)
        for x in ("utilitarian", "rank_maximal"):
            if AL._refuted(d, x, out, known):
                refuted += 1
                assert frozenset(d.found[x].items()) != frozenset(out.items())
    assert refuted


@pytest.mark.parametrize("pref", ["SO", "SI", "TO"])
def test_allocation_graph_by_slices_is_the_former_build(pref):
    rng = np.random.default_rng(4)
    for t in range(40):
        insts = AL.draw_instances("allocation", pref, t % 9, rng, "t") if t % 9 else \
            {"ha": {"id": "e", "domain": "house_allocation", "preferences": {"A1": []},
                    "objects": ["O1"]}}
        model = AL._model(insts["ha"])
        got, want = fw.welfare_graph(model), _old_allocation_graph(model)
        assert list(got.ranks.items()) == list(want.ranks.items())
        assert got.adj == want.adj and got.max_rank == want.max_rank
        gi, wi = got.index(), want.index()
        for f in ("li", "ri", "rows", "cols", "ranks", "levels", "costs", "by_row",
                  "least_l", "least_r"):
            assert getattr(gi, f) == getattr(wi, f), f


def test_tie_merging_by_slices_is_the_former_loop():
    for seed in range(300):
        rng = np.random.default_rng(seed)
        lists = [[f"O{j}" for j in rng.permutation(int(rng.integers(0, 12)))]
                 for _ in range(int(rng.integers(0, 7)))]
        p = float(rng.choice([-1.0, 0.0, 0.2, 0.3, 0.5, 1.0]))
        a, b = np.random.default_rng(seed + 1), np.random.default_rng(seed + 1)
        assert gen.merge_adjacent_all(lists, p, a) == _old_merge(lists, p, b)
        assert a.random() == b.random()


def test_two_workers_write_the_bytes_of_one(tmp_path):
    s = get_suite("indeterminacy-algorithmic")
    files = {}
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}"
        G.generate(s, out, sizes=[10], per_cell=2, jobs=jobs)
        files[jobs] = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    assert files[1].keys() == files[2].keys() and files[1] == files[2]
    manifest = json.loads(files[1]["manifest.json"])
    assert manifest["total"] > 0


@pytest.mark.parametrize("pref", ["SO", "SI", "TO"])
def test_allocation_made_from_the_market_is_the_parse(pref):
    rng = np.random.default_rng(9)
    for t in range(60):
        n = t % 9
        if n:
            insts = AL.draw_instances("housing", pref, n, rng, "t")
        else:           # an agent with an empty list, another with one tie of everything
            prefs = {"A1": [], "A2": [["O1", "O2"]]}
            insts = {"ha": {"id": "t-ha", "domain": "house_allocation", "preferences": prefs,
                            "objects": ["O1", "O2"]},
                     "hm": {"id": "t-hm", "domain": "housing_market", "preferences": prefs,
                            "endowment": {"A1": "O1", "A2": "O2"}}}
        d = AL._Draw(insts, AL.SETTINGS[f"HA-{pref}"]["notions"])
        got, want = d.models["ha"], AL._model(insts["ha"])
        assert dict(got.prefs) == dict(want.prefs) and got.objects == want.objects
        assert dict(got.conventions) == dict(want.conventions)
        gi, wi = got.rank_index(), want.rank_index()
        assert (gi.offsets, gi.objects, gi.max_rank) == (wi.offsets, wi.objects, wi.max_rank)
        assert gi.ranks == wi.ranks and (gi.ranks is None) == (wi.ranks is None)
        assert all(got.prefs[a] is d.models["hm"].preferences[a] for a in got.prefs)
