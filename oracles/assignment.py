"""The Hungarian method on a square integer cost matrix, exact in Python integers
(untrusted: its callers' results are certified).

Shared by the two-sided rank-maximal optimum (:mod:`prefcert.oracles.house_allocation`) and the
allocation decision tasks (:mod:`prefcert.oracles.decision`).
"""
from __future__ import annotations

from collections.abc import Sequence


def min_cost_assignment(cost: Sequence[Sequence[int]]
                        ) -> tuple[list[int], list[int], list[int]]:
    """A minimum-cost perfect assignment of a square matrix, with its potentials.

    Parameters
    ----------
    cost : rows ``0..n`` of length ``n + 1``, 1-based: ``cost[i][j]`` for ``1 ≤ i, j ≤ n``
        (row 0 and column 0 are not read). Python integers (any size).

    Returns
    -------
    (p, u, v) : ``p[j]`` the row assigned to column ``j`` (1-based; ``p[0]`` unused);
        potentials with ``u[i] + v[j] ≤ cost[i][j]`` everywhere and equality on the
        assigned pairs, so Σu + Σv over 1..n is the minimum cost (index 0 is scratch).

    Notes
    -----
    Shortest augmenting paths in reduced costs, one row at a time (Kuhn 1955; Munkres
    1957; the O(n³) row loop of Jonker & Volgenant 1987). Ties go to the lowest column:
    every comparison is strict, so equal inputs give equal assignments. O(n³).
    """
    n = len(cost) - 1
    inf = float("inf")
    u = [0] * (n + 1)
    v = [0] * (n + 1)
    p = [0] * (n + 1)
    way = [0] * (n + 1)
    cols = range(1, n + 1)
    for row in range(1, n + 1):
        p[0] = row
        j0 = 0
        minv: list = [inf] * (n + 1)
        used = [False] * (n + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = p[j0], inf, 0
            crow, ui = cost[i0], u[i0]          # (u changes after this scan only)
            for j in cols:
                if not used[j]:
                    cur = crow[j] - ui - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(n + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    return p, u, v
