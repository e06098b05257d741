"""Random SMTI markets, sampled the way the stable-matching literature does.

Each agent's list starts as a uniformly random order of the other side (impartial culture,
drawn with :func:`prefsampling.ordinal.impartial`); with ``truncate`` it is cut to a length
drawn uniformly from [⌊n/2⌋, n] (n = size of the other side); then every item after the
first is merged into the tie of the item before it with probability ``tie_prob``
("ties by merging adjacent items"). This follows the random SMTI generators of Gent &
Prosser 2002 (ECAI, "An empirical study of the stable marriage problem with ties and
incomplete lists", with a tie probability and an incompleteness parameter), with the
truncation rule of the project brief (issue 2, "Instances").
"""
from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import numpy as np
from prefsampling.ordinal import impartial

from .spaces import (
    as_json,
    canonical,
    count_weak_orders,
    fubini,
    random_weak_order,
    weak_orders,
)


def merge_ties(order: list[str], tie_prob: float, rng: np.random.Generator) -> list:
    """Merge each item into the previous tie with probability ``tie_prob``; DESIGN.md
    encoding (singletons as strings, ties as lists)."""
    if not order:
        return []
    # one uniform per item after the first (when tie_prob > 0), drawn as one array: the
    # same numbers, in the same order, as one rng.random() per item
    u = rng.random(len(order) - 1).tolist() if tie_prob > 0 and len(order) > 1 else None
    groups: list[list[str]] = [[order[0]]]
    for i in range(1, len(order)):
        if u is not None and u[i - 1] < tie_prob:
            groups[-1].append(order[i])
        else:
            groups.append([order[i]])
    return [g[0] if len(g) == 1 else g for g in groups]


def _side(names: list[str], others: list[str], tie_prob: float, truncate: bool,
          rng: np.random.Generator) -> dict[str, list]:
    n = len(others)
    if not names:
        return {}
    orders = impartial(len(names), n, seed=int(rng.integers(2**32))) if n else [[] for _ in names]
    out = {}
    for name, perm in zip(names, orders):
        items = [others[int(j)] for j in perm]
        if truncate:
            items = items[:int(rng.integers(n // 2, n + 1))]
        out[name] = merge_ties(items, tie_prob, rng)
    return out


def sample_smti(n_a: int, n_b: int | None = None, *, tie_prob: float = 0.0,
                truncate: bool = False, seed: int, id: str | None = None,
                questions: list | None = None) -> dict:
    """Sample one SMTI instance as a DESIGN.md instance dict.

    ``n_a``/``n_b``: agents on sides A (named ``A1..An_a``) and B (``B1..Bn_b``; default
    ``n_b = n_a``). ``tie_prob`` ∈ [0, 1]: probability that a list item joins the tie of
    the item before it (0 gives strict lists, 1 a single tie). ``truncate``: cut each list
    to a length uniform in [⌊n/2⌋, n] (incomplete lists; one-sided entries are possible and
    are dropped by the market's mutual-acceptability rule). ``seed``: int, the only source
    of randomness, so the same arguments give the same instance. ``id``: defaults to a name
    spelling the parameters. ``questions``: copied into the instance when given.
    Returns ``{"id", "domain": "stable_matching", "preferences": {"A": {...}, "B": {...}}}``.
    Raises ValueError for negative sizes or a tie probability outside [0, 1].
    O(n_a·n_b) time and space. Source: Gent & Prosser 2002.
    """
    n_b = n_a if n_b is None else n_b
    if not (isinstance(n_a, int) and isinstance(n_b, int)) or n_a < 0 or n_b < 0:
        raise ValueError(f"side sizes must be non-negative integers, got {n_a!r}, {n_b!r}")
    if not 0.0 <= float(tie_prob) <= 1.0:
        raise ValueError(f"tie_prob must lie in [0, 1], got {tie_prob!r}")
    rng = np.random.default_rng(seed)
    side_a = [f"A{i}" for i in range(1, n_a + 1)]
    side_b = [f"B{j}" for j in range(1, n_b + 1)]
    prefs_a = _side(side_a, side_b, float(tie_prob), truncate, rng)
    prefs_b = _side(side_b, side_a, float(tie_prob), truncate, rng)
    if id is None:
        id = f"smti-{n_a}x{n_b}-p{tie_prob:g}{'-trunc' if truncate else ''}-s{seed}"
    inst = {"id": id, "domain": "stable_matching", "preferences": {"A": prefs_a, "B": prefs_b}}
    if questions is not None:
        inst["questions"] = list(questions)
    return inst

# ----------------------------------------------------------------------------- the space

def smti_space_size(n_a: int, n_b: int, complete: bool = False) -> int:
    """Raw SMTI markets with ``n_a`` and ``n_b`` agents before isomorphism reduction
    (``complete``: every list ranks the whole other side)."""
    w = fubini if complete else count_weak_orders
    return w(n_b) ** n_a * w(n_a) ** n_b


def random_smti(n_a: int, n_b: int, complete: bool, rng: random.Random) -> dict:
    """One uniformly random raw market of :func:`smti_space`."""
    na, nb = [f"m{i}" for i in range(1, n_a + 1)], [f"w{j}" for j in range(1, n_b + 1)]
    return {"domain": "stable_matching", "preferences": {
        "A": {x: random_weak_order(nb, complete, rng) for x in na},
        "B": {y: random_weak_order(na, complete, rng) for y in nb}}}


def _two_sided(na: list[str], nb: list[str], complete: bool = False):
    """Every pair (lists of side A, lists of side B), one per isomorphism class."""
    oa, ob = weak_orders(tuple(nb), complete), weak_orders(tuple(na), complete)
    seen: set = set()
    for la in itertools.product(oa, repeat=len(na)):
        for lb in itertools.product(ob, repeat=len(nb)):
            key = canonical([(na, la), (nb, lb)])
            if key in seen:
                continue
            seen.add(key)
            yield la, lb
def smti_space(n_a: int, n_b: int, complete: bool = False) -> Iterator[dict]:
    """Every SMTI market with agents ``m1..`` and ``w1..``, one per isomorphism class
    (``complete``: SMT, every list over the whole other side)."""
    na = [f"m{i}" for i in range(1, n_a + 1)]
    nb = [f"w{j}" for j in range(1, n_b + 1)]
    for la, lb in _two_sided(na, nb, complete):
        yield {"domain": "stable_matching", "preferences": {
            "A": {x: as_json(o) for x, o in zip(na, la)},
            "B": {y: as_json(o) for y, o in zip(nb, lb)}}}
