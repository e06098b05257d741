"""The shared Hungarian method against enumeration of every assignment."""
from __future__ import annotations

import itertools
import random

from prefcert.oracles.assignment import min_cost_assignment


def test_min_cost_assignment_is_optimal_with_tight_potentials():
    rng = random.Random(5)
    for trial in range(400):
        n = rng.randint(1, 6)
        scale = 10 ** rng.choice((1, 30))      # beyond float precision too
        rows = [[rng.randint(-9, 9) * scale for _ in range(n)] for _ in range(n)]
        best = min(sum(rows[i][s[i]] for i in range(n))
                   for s in itertools.permutations(range(n)))
        cost = [[0] * (n + 1)] + [[0] + r for r in rows]
        p, u, v = min_cost_assignment(cost)
        assert sorted(p[1:]) == list(range(1, n + 1))          # a perfect assignment
        assert sum(cost[p[j]][j] for j in range(1, n + 1)) == best
        for i in range(1, n + 1):
            for j in range(1, n + 1):
                assert u[i] + v[j] <= cost[i][j]
        assert sum(u[1:]) + sum(v[1:]) == best                 # (index 0 is scratch)


def test_equal_costs_go_to_the_lowest_columns_in_row_order():
    # all-zero 3x3: row 1 takes column 1, row 2 column 2, row 3 column 3
    p, _, _ = min_cost_assignment([[0] * 4 for _ in range(4)])
    assert p[1:] == [1, 2, 3]
