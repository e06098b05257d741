"""The fast paths of ``indeterminacy-algorithmic`` generation (issue 24) choose what the
paths they replace chose, so the suite's bytes do not change:

- two-sided rank-maximal matchings: the Python-integer Hungarian method with an
  optimality and a uniqueness proof, networkx's blossom only when the optimum is not
  unique — the same matching as networkx on every graph, and the uniqueness test agrees
  with enumeration;
- maximum matchings, threshold sizes and the egalitarian variant's relabelled matchings:
  the pure-Python twin of scipy's Hopcroft–Karp on small graphs (scipy's matching);
- the egalitarian optimum: the probes start at a floor, the matching is the same;
- the one-sided rank-maximal (IKMMP) phases with pruned adjacency lists: the matching of
  the former edge-list formulation;
- welfare graphs from the integer forms (no WeakOrder built): equal to the name form,
  key order included;
- the instance samplers: prefsampling's permutations, and one array of uniforms for all
  lists of a side.
"""
from __future__ import annotations

import itertools
from collections import deque

import networkx as nx
import numpy as np
import pytest
from prefsampling.ordinal import impartial
from scipy.optimize import linear_sum_assignment
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

import prefcert.formal.welfare as fw
import prefcert.oracles.house_allocation as oa
from prefcert.bench.indeterminacy import algorithmic as AL
from prefcert.formal.house_allocation import HouseAllocation
from prefcert.generators import indeterminacy as gen
from prefcert.pipeline.registry import spec


def _graph(rng, nl, nr, p_edge, max_rank, two_sided=True, maximum=False):
    """A random welfare graph: each pair an edge with probability ``p_edge``, ranks drawn
    from 1..max_rank (many ties in the weights: optima are often not unique)."""
    k = 2 if two_sided else 1
    ranks = {}
    for i in range(nl):
        for j in range(nr):
            if rng.random() < p_edge:
                ranks[(f"L{i}", f"R{j}")] = tuple(int(x) for x in
                                                   rng.integers(1, max_rank + 1, k))
    return fw.WelfareGraph(tuple(f"L{i}" for i in range(nl)),
                           tuple(f"R{j}" for j in range(nr)), ranks, max_rank, two_sided,
                           maximum)


def _name_graph(model):
    """The welfare graph built the former way, from the WeakOrders of the model."""
    maximum = model.conventions.get("welfare_scope") == "maximum"
    if isinstance(model, HouseAllocation):
        ranks = {(a, h): (model.prefs[a].rank[h],) for a, h in model.edges()}
        r = max((o.nties for o in model.prefs.values()), default=0)
        return fw.WelfareGraph(model.agents, model.objects, ranks, r, False, maximum)
    written = model.conventions.get("welfare_ranks") == "written"
    pa, pb = (model.a, model.b) if written else (model.pa, model.pb)
    ranks = {(x, y): (pa[x].rank[y], pb[y].rank[x]) for x, y in model.edges()}
    r = max((o.nties for o in [*pa.values(), *pb.values()]), default=0)
    return fw.WelfareGraph(tuple(model.a), tuple(model.b), ranks, r, True, maximum)


def _optima(g, weights):
    """Every maximum-weight matching of ``g`` (enumeration)."""
    best, out = None, []
    for m in oa.all_matchings(g):
        w = sum(weights[e] for e in m.items())
        if best is None or w > best:
            best, out = w, [m]
        elif w == best:
            out.append(m)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_rank_maximal_unique_is_networkx_matching_and_knows_uniqueness(seed):
    rng = np.random.default_rng(seed)
    unique = shared = 0
    for t in range(40):
        g = _graph(rng, int(rng.integers(1, 6)), int(rng.integers(1, 6)),
                   float(rng.choice([0.3, 0.6, 1.0])), int(rng.integers(1, 4)),
                   two_sided=bool(t % 4), maximum=t % 3 == 0)
        ref = oa.rank_maximal_weighted(g)
        got = oa.rank_maximal_unique(g)
        assert got == ref and list(got) == list(ref)
        if not g.ranks:
            continue
        w = oa.edge_weights(g, "rank_maximal", oa.rank_base(g))
        m = oa._max_weight_assignment(g, w)
        optima = _optima(g, w)
        assert m in optima and list(m) == [x for x in g.left if x in m]
        duals, better = oa.duals_or_improvement(g, w, m)
        assert better is None
        only = oa._only_optimum(g, w, m, duals)
        assert only == (len(optima) == 1)
        unique += only
        shared += not only
    assert unique and shared            # both branches are exercised


def test_only_optimum_refuses_duals_that_prove_nothing():
    g = _graph(np.random.default_rng(1), 3, 3, 1.0, 3)
    w = oa.edge_weights(g, "rank_maximal", oa.rank_base(g))
    m = oa._max_weight_assignment(g, w)
    duals, _ = oa.duals_or_improvement(g, w, m)
    low = {"left": {x: 0 for x in g.left}, "right": dict(duals["right"])}
    assert not oa._only_optimum(g, w, m, low)         # an edge left uncovered
    neg = {"left": {**duals["left"], g.left[0]: -1}, "right": duals["right"]}
    assert not oa._only_optimum(g, w, m, neg)


def test_two_sided_rank_maximal_skips_the_blossom_on_a_unique_optimum(monkeypatch):
    # SM draws of the suite: the optimum is unique, networkx is never run
    calls: list = []
    real = nx.max_weight_matching
    monkeypatch.setattr(nx, "max_weight_matching",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    rng = np.random.default_rng(4)
    for pref in ("SO", "TO"):
        insts = AL.draw_instances("matching", pref, 10, rng, "t")
        g = fw.welfare_graph(AL._model(insts["sm"]))
        m, _ = oa.rank_maximal(g, certificate=False)
        assert calls == []
        monkeypatch.undo()
        assert m == oa.rank_maximal_weighted(g)
        monkeypatch.setattr(nx, "max_weight_matching",
                            lambda *a, **k: calls.append(1) or real(*a, **k))


def _scipy(nl, nr, edges):
    if not edges:
        return [-1] * nl
    a = csr_matrix((np.ones(len(edges)), ([x for x, _ in edges], [y for _, y in edges])),
                   shape=(nl, nr))
    return maximum_bipartite_matching(a, perm_type="column").tolist()


@pytest.mark.parametrize("seed", range(4))
def test_matchings_are_scipys(seed):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        g = _graph(rng, int(rng.integers(1, 9)), int(rng.integers(1, 9)),
                   float(rng.random()), int(rng.integers(1, 5)), two_sided=bool(seed % 2))
        ix = g.index()
        for k in (None, *range(1, g.max_rank + 1)):
            keep = [(r, c) for r, c, lv in zip(ix.rows, ix.cols, ix.levels)
                    if k is None or lv <= k]
            mate = _scipy(len(g.left), len(g.right), keep)
            want = {g.left[i]: g.right[j] for i, j in enumerate(mate) if j >= 0}
            assert oa.maximum_matching(g, k) == want
            assert oa._threshold_sizes(g)(k) == len(want)
        shuffled = [keep[int(i)] for i in rng.permutation(len(keep))]
        adj: list[list[int]] = [[] for _ in g.left]
        for r, c in shuffled:
            adj[r].append(c)
        assert oa._scipy_rows(adj, len(g.right)) == _scipy(len(g.left), len(g.right),
                                                            shuffled)


def _egalitarian_before(g):
    """The egalitarian matching as found before: the least level whose threshold graph has
    a maximum matching of full size (networkx's sizes), then the Hungarian method on those
    edges (the same matrix the oracle builds)."""
    def nu(k=None):
        h = nx.Graph()
        h.add_nodes_from(("L", x) for x in g.left)
        h.add_edges_from((("L", x), ("R", y)) for (x, y), r in g.ranks.items()
                         if k is None or max(r) <= k)
        return len(nx.bipartite.maximum_matching(h, top_nodes=[("L", x) for x in g.left])) // 2
    full = nu()
    k = min(lv for lv in {max(r) for r in g.ranks.values()} if nu(lv) == full)
    edges = [e for e, r in g.ranks.items() if max(r) <= k]
    rows = np.array([g.left.index(x) for x, _ in edges])
    cols = np.array([g.right.index(y) for _, y in edges])
    cost = np.array([sum(g.ranks[e]) for e in edges])
    nl, nr = len(g.left), len(g.right)
    big = min(nl, nr) * int(cost.max()) + 1
    matrix = np.full((nl, nr + nl), np.inf)
    matrix[rows, cols] = (cost - big).astype(float)
    matrix[np.arange(nl), nr + np.arange(nl)] = 0.0
    r, c = linear_sum_assignment(matrix)
    return {g.left[i]: g.right[j] for i, j in zip(r.tolist(), c.tolist()) if j < nr}


@pytest.mark.parametrize("seed", range(3))
def test_egalitarian_matching_is_the_former_one(seed):
    rng = np.random.default_rng(seed)
    for t in range(50):
        g = _graph(rng, int(rng.integers(1, 8)), int(rng.integers(1, 8)),
                   float(rng.choice([0.4, 0.8, 1.0])), int(rng.integers(1, 6)),
                   two_sided=bool(t % 2))
        if not g.ranks:
            continue
        m, cert = oa.egalitarian_matching(g, certificate=False)
        assert cert is None and m == _egalitarian_before(g)


def _ikmmp_before(g):
    """IKMMP as formulated before: the edge list ``cur`` of G'_i rebuilt into adjacency
    lists every phase (the oracle now keeps and prunes the lists)."""
    nl, nr = len(g.left), len(g.right)
    li = {x: i for i, x in enumerate(g.left)}
    ri = {y: j for j, y in enumerate(g.right)}
    by_rank: dict = {}
    for (x, y), rk in g.ranks.items():
        by_rank.setdefault(rk[0], []).append((li[x], ri[y]))
    nu = len(oa.maximum_matching(g))
    closed_l, closed_r = [False] * nl, [False] * nr
    cur: list = []
    mate_l, mate_r = [-1] * nl, [-1] * nr
    for i in range(1, g.max_rank + 1):
        cur.extend((x, y) for x, y in by_rank.get(i, ()) if not closed_l[x] and not closed_r[y])
        adj_l: list = [[] for _ in range(nl)]
        for x, y in cur:
            adj_l[x].append(y)
        oa._hopcroft_karp(adj_l, mate_l, mate_r)
        if sum(1 for j in mate_l if j >= 0) == nu or i == g.max_rank:
            break
        adj_r: list = [[] for _ in range(nr)]
        for x, y in cur:
            adj_r[y].append(x)
        lab_l, lab_r = [0] * nl, [0] * nr
        queue = deque([("L", x) for x in range(nl) if mate_l[x] < 0]
                      + [("R", y) for y in range(nr) if mate_r[y] < 0])
        for s, v in queue:
            (lab_l if s == "L" else lab_r)[v] = 1
        while queue:                      # breadth first (the oracle searches depth first)
            s, v = queue.popleft()
            if s == "L":
                for y in adj_l[v]:
                    if lab_r[y] == 0 and mate_l[v] != y:
                        lab_r[y] = 2
                        x2 = mate_r[y]
                        if x2 >= 0 and lab_l[x2] == 0:
                            lab_l[x2] = 1
                            queue.append(("L", x2))
            else:
                for x in adj_r[v]:
                    if lab_l[x] == 0 and mate_r[v] != x:
                        lab_l[x] = 2
                        y2 = mate_l[x]
                        if y2 >= 0 and lab_r[y2] == 0:
                            lab_r[y2] = 1
                            queue.append(("R", y2))
        for x in range(nl):
            closed_l[x] = closed_l[x] or lab_l[x] != 1
        for y in range(nr):
            closed_r[y] = closed_r[y] or lab_r[y] != 1
        cur = [(x, y) for x, y in cur
               if not ((lab_l[x] == 2 and lab_r[y] != 1) or (lab_r[y] == 2 and lab_l[x] != 1))]
    return {g.left[x]: g.right[y] for x, y in enumerate(mate_l) if y >= 0}


@pytest.mark.parametrize("seed", range(3))
def test_ikmmp_is_the_former_formulation(seed):
    rng = np.random.default_rng(seed)
    for _ in range(80):
        g = _graph(rng, int(rng.integers(1, 9)), int(rng.integers(1, 9)),
                   float(rng.choice([0.3, 0.6, 1.0])), int(rng.integers(1, 7)),
                   two_sided=False)
        m = oa._ikmmp(g)
        assert m == _ikmmp_before(g)
        if len(g.left) <= 6:
            assert fw.signature(g, m) == oa.brute_force_optimum(g, "rank_maximal")


@pytest.mark.parametrize("kind", ["matching", "allocation", "housing"])
def test_welfare_graphs_from_integer_forms_equal_the_name_form(kind):
    rng = np.random.default_rng(7)
    for t in range(60):
        insts = AL.draw_instances(kind, ("SO", "SI", "TO")[t % 3], int(rng.integers(1, 8)),
                                  rng, "x", float(rng.random()))
        inst = dict(insts["sm" if kind == "matching" else "ha"])
        if kind == "matching" and t % 2:          # one-sided entries: mutual != written
            inst["preferences"] = {s: {a: [x for x in lst if rng.random() < 0.75]
                                       for a, lst in d.items()}
                                   for s, d in inst["preferences"].items()}
        convs = [None, {"welfare_scope": "maximum"}]
        if kind == "matching":
            convs.append({"welfare_ranks": "written"})
        for conv in convs:
            data = {**inst, "conventions": conv} if conv else inst
            got = fw.welfare_graph(spec(data["domain"]).parse(data))
            want = _name_graph(spec(data["domain"]).parse(data))
            assert got == want and list(got.ranks) == list(want.ranks)
            assert got.adj == want.adj


def test_strict_profiles_are_prefsamplings_permutations():
    for seed in range(30):
        n, m = 1 + seed % 7, 1 + (seed * 5) % 11
        items = [f"O{j}" for j in range(m)]
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        got = gen.strict_profile(n, items, a)
        want = [[items[j] for j in o]
                for o in impartial(n, m, seed=int(b.integers(2 ** 32)))]
        assert got == want and a.random() == b.random()


def test_merging_all_lists_draws_what_one_list_at_a_time_draws():
    for seed in range(30):
        rng = np.random.default_rng(seed)
        lists = [[f"O{j}" for j in rng.permutation(int(rng.integers(0, 9)))]
                 for _ in range(int(rng.integers(1, 6)))]
        p = float(rng.choice([0.0, 0.2, 0.5, 1.0]))
        a, b = np.random.default_rng(seed + 100), np.random.default_rng(seed + 100)
        got = gen.merge_adjacent_all(lists, p, a)
        want = [gen.merge_adjacent(o, p, b) for o in lists]
        assert got == want and a.random() == b.random()


def test_edge_index_is_built_once_per_graph(monkeypatch):
    insts = AL.draw_instances("housing", "TO", 8, np.random.default_rng(2), "t")
    model = AL._model(insts["ha"])
    calls: list = []
    for name in ("from_lists", "of"):
        real = getattr(fw.EdgeIndex, name).__func__
        monkeypatch.setattr(fw.EdgeIndex, name, classmethod(
            lambda cls, *a, _real=real, **k: calls.append(1) or _real(cls, *a, **k)))
    g = fw.welfare_graph(model)                 # the builder makes the index
    assert len(g._index) == 1
    made = g._index[0]
    oa.utilitarian_matching(g, certificate=False)
    oa.egalitarian_matching(g, certificate=False)
    oa.rank_maximal(g, certificate=False)
    oa.maximum_matching(g)
    assert calls == [] and g._index == [made] and g.index() is made
    assert [e for e in itertools.islice(g.ranks, 3)] == \
        [(g.left[r], g.right[c]) for r, c in zip(g.index().rows[:3], g.index().cols[:3])]


@pytest.mark.parametrize("kind,pref", [("housing", "TO"), ("housing", "SO"),
                                       ("allocation", "SO"), ("housing", "SI")])
def test_a_draw_shares_orders_and_graphs_without_changing_a_candidate(kind, pref):
    # the allocation adopts the market's orders (the same lists): equal to its own parse;
    # the egalitarian variant read from the draw's graph draws and returns what it did
    # from the lists
    rng = np.random.default_rng(11)
    notions = AL.SETTINGS[{"housing": "HA-", "allocation": "OA-"}[kind] + pref]["notions"]
    for _ in range(25):
        insts = AL.draw_instances(kind, pref, 8, rng, "t")
        d = AL._Draw(insts, notions)
        fresh = AL._model(insts["ha"])
        assert dict(d.models["ha"].prefs) == dict(fresh.prefs)
        if "egalitarian" not in notions:
            continue
        cands = {x: d.found[x] for x in notions}
        a, b = np.random.default_rng(5), np.random.default_rng(5)
        assert AL._egalitarian_variant(insts, cands, a, d.graphs["ha"]) == \
            AL._egalitarian_variant(insts, cands, b)
        assert a.random() == b.random()


@pytest.mark.parametrize("kind", ["matching", "allocation"])
def test_an_index_made_with_the_graph_equals_one_made_from_it(kind):
    rng = np.random.default_rng(3)
    for t in range(40):
        insts = AL.draw_instances(kind, ("SO", "SI", "TO")[t % 3], int(rng.integers(1, 9)),
                                  rng, "x", float(rng.random()))
        g = fw.welfare_graph(AL._model(insts["sm" if kind == "matching" else "ha"]))
        assert g._index                       # made by the builder
        assert vars(g.index()) == vars(fw.EdgeIndex.of(g))
