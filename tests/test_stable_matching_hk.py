"""The pure-Python Hopcroft–Karp of STRONG chooses scipy's matching, so a strongly stable
label is the same whichever of the two ran (oracles.stable_matching.SCIPY_MATCHING_EDGES)."""
import numpy as np
import pytest
from conftest import smti_markets
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from prefcert.oracles import stable_matching as sm


def _scipy(adj, ncols):
    rows = [r for r, cols in enumerate(adj) for _ in cols]
    cols = [c for cs in adj for c in cs]
    g = csr_matrix((np.ones(len(cols), dtype=np.int8), (rows, cols)), shape=(len(adj), ncols))
    return maximum_bipartite_matching(g, perm_type="column").tolist()


@st.composite
def bipartite(draw, max_side=9):
    nr, nc = draw(st.integers(0, max_side)), draw(st.integers(0, max_side))
    p = draw(st.sampled_from([0.15, 0.3, 0.6, 0.9]))
    adj = [[c for c in range(nc) if draw(st.floats(0, 1)) < p] for _ in range(nr)]
    return adj, nc


@settings(max_examples=600, deadline=None)
@given(bipartite())
def test_hopcroft_karp_chooses_scipys_matching(g):
    adj, nc = g
    assert sm.hopcroft_karp(adj, nc) == _scipy(adj, nc)


@pytest.mark.parametrize("seed", range(20))
def test_hopcroft_karp_chooses_scipys_matching_large(seed):
    rng = np.random.default_rng(seed)
    nr, nc = int(rng.integers(50, 400)), int(rng.integers(50, 400))
    deg = int(rng.integers(1, 6))
    adj = [sorted(set(rng.integers(0, nc, deg).tolist())) for _ in range(nr)]
    assert sm.hopcroft_karp(adj, nc) == _scipy(adj, nc)
    assert sm._scipy_matching(adj, nc) == _scipy(adj, nc)


@settings(max_examples=300, deadline=None)
@given(smti_markets(max_side=7))
def test_strong_search_same_with_either_matching(market):
    small = sm.strongly_stable_search(market)
    old = sm.SCIPY_MATCHING_EDGES
    sm.SCIPY_MATCHING_EDGES = -1               # every engagement graph through scipy
    try:
        large = sm.strongly_stable_search(market)
    finally:
        sm.SCIPY_MATCHING_EDGES = old
    assert small == large
