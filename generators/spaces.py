"""Shared pieces of the enumerable instance spaces (minimal counterexamples): weak orders
over subsets of items, their counts, and the isomorphism invariant of a market.

**Isomorphism.** Two instances are isomorphic when a renaming of the agents inside each
side (and, for elections, of the candidates) maps one onto the other; tie groups are sets.
Each space yields one representative per class — the first met in enumeration order — and
:func:`canonical` is the invariant that identifies the class (the least serialisation over
all renamings, so affordable only for small sides).

The spaces themselves are in each domain's sampler module: ``smti_space``
(:mod:`.stable_matching`), ``hr_space`` (:mod:`.hospitals_residents`), ``housing_space``
(:mod:`.housing_market`), ``profile_space`` (:mod:`.preference`) and ``election_space``
(:mod:`.election`), each with its raw size (``*_space_size``) and a uniform raw sampler;
``prefcert.domains.<name>`` wires them as the domain's ``space`` hook.
"""
from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Sequence
from functools import cache

# ----------------------------------------------------------------------------- weak orders

def _ordered_partitions(items: tuple[str, ...]) -> Iterator[list[list[str]]]:
    if not items:
        yield []
        return
    n = len(items)
    for k in range(1, n + 1):
        for first in itertools.combinations(items, k):
            rest = tuple(x for x in items if x not in first)
            for tail in _ordered_partitions(rest):
                yield [list(first), *tail]


@cache
def weak_orders(items: tuple[str, ...], complete: bool = False, strict: bool = False
                ) -> tuple[tuple, ...]:
    """Every weak order over every subset of ``items`` (over all of them when
    ``complete``; linear orders only when ``strict``), in the JSON list format, fewest
    entries first. Counts: Σ_k C(n, k)·Fubini(k) (1, 2, 6, 26, 150, … for n = 0, 1, 2, …)."""
    out = []
    for k in range(len(items) + 1) if not complete else (len(items),):
        for sub in itertools.combinations(items, k):
            if strict:
                for perm in itertools.permutations(sub):
                    out.append(tuple(perm))
                continue
            for part in _ordered_partitions(sub):
                out.append(tuple(g[0] if len(g) == 1 else tuple(g) for g in part))
    return tuple(out)


def as_json(order: tuple) -> list:
    return [list(g) if isinstance(g, tuple) else g for g in order]


@cache
def fubini(n: int) -> int:
    return 1 if n == 0 else sum(math.comb(n, k) * fubini(n - k) for k in range(1, n + 1))


def count_weak_orders(n: int) -> int:
    """Σ_k C(n, k)·Fubini(k): weak orders over subsets of n items."""
    return sum(math.comb(n, k) * fubini(k) for k in range(n + 1))


# ----------------------------------------------------------------------------- canonical

def rename(order: tuple, ren: dict) -> tuple:
    return tuple(tuple(sorted(ren[x] for x in g)) if isinstance(g, tuple) else (ren[g],)
                 for g in order)


def canonical(sides: Sequence[tuple[Sequence[str], Sequence[tuple]]], linked: bool = False
              ) -> tuple:
    """The isomorphism invariant of a market given as sides ``[(names, lists)]``, where
    side i's lists rank side (1 - i)'s names (``linked``: one side whose agents and items
    are renamed together, as agent ``a<i>`` and house ``h<i>``). The least serialisation
    over all renamings inside each side. O(Π |side|! · size)."""
    if linked:
        (names, lists), = sides
        houses = [f"h{n[1:]}" for n in names]
        best = None
        for perm in itertools.permutations(range(len(names))):
            ren = {houses[i]: houses[perm[i]] for i in range(len(names))}
            key = tuple(sorted((perm[i], rename(lists[i], ren)) for i in range(len(names))))
            best = key if best is None or key < best else best
        return best
    (na, la), (nb, lb) = sides
    best = None
    for pa in itertools.permutations(range(len(na))):
        ren_a = {na[i]: na[pa[i]] for i in range(len(na))}
        for pb in itertools.permutations(range(len(nb))):
            ren_b = {nb[i]: nb[pb[i]] for i in range(len(nb))}
            key = (tuple(sorted((pa[i], rename(la[i], ren_b)) for i in range(len(na)))),
                   tuple(sorted((pb[i], rename(lb[i], ren_a)) for i in range(len(nb)))))
            best = key if best is None or key < best else best
    return best


def random_weak_order(items: Sequence[str], complete: bool, rng: random.Random) -> list:
    """One weak order drawn uniformly from :func:`weak_orders` (JSON list format)."""
    orders = weak_orders(tuple(items), complete)
    return as_json(orders[rng.randrange(len(orders))])
