"""Exhaustive enumeration of small instance spaces, up to isomorphism, and the size measure
of the minimal-counterexample search.

**Size measure** (compared lexicographically): ``(agents, entries, tied pairs)`` — the
number of agents of the instance (both sides of a market, the agents of a housing market,
the voters of an election, its manipulator included), the total length of all preference lists, and the number of
unordered pairs of items that share a tie group (Σ C(|g|, 2) over tie groups g).

**Isomorphism.** Two instances are isomorphic when a renaming of the agents inside each
side (and, for elections, of the candidates) maps one onto the other; tie groups are sets.
Each space yields one representative per class — the first met in enumeration order — and
:func:`canonical` is the invariant that identifies the class (the least serialisation over
all renamings, so affordable only for small sides).

Spaces (each a generator of instance dicts in the project's JSON formats):

- :func:`smti_space` — two-sided markets with ``n_a`` and ``n_b`` agents, every list a weak
  order over any subset of the other side (one-sided entries included);
- :func:`hr_space` — hospitals/residents markets, capacities in ``0..max_capacity``;
- :func:`housing_space` — Shapley–Scarf markets of ``n`` agents, agent ``a<i>`` owning
  ``h<i>``, each list a weak order over any subset of the houses;
- :func:`profile_space` — elections of ``n`` voters over ``m`` candidates with linear
  (complete, strict) ballots, as ``preference`` instances;
- :func:`election_space` — ``election`` instances of one rule: ``n − 1`` linear ballots and
  a manipulator's linear true ranking over ``m`` candidates, τ = c1 ≻ … ≻ cm. Renaming
  candidates would change τ, so only the voters are anonymous: the ballots are a multiset
  and the manipulator is distinguished.

:func:`space_size` counts the raw instances of a space before isomorphism reduction, so a
caller can decide whether enumeration is affordable.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from functools import cache


# ----------------------------------------------------------------------------- measure

def _ties_of(lst: Sequence) -> tuple[int, int]:
    """(entries, tied pairs) of one preference list in the JSON format."""
    n = t = 0
    for g in lst:
        k = len(g) if isinstance(g, list) else 1
        n += k
        t += k * (k - 1) // 2
    return n, t


def _lists(instance: dict) -> list[Sequence]:
    d = instance.get("domain")
    if d == "stable_matching":
        p = instance["preferences"]
        return [*p["A"].values(), *p["B"].values()]
    if d == "hospitals_residents":
        p = instance["preferences"]
        return [*p["residents"].values(), *p["hospitals"].values()]
    if d in ("housing_market", "house_allocation"):
        return list(instance["preferences"].values())
    if d == "preference":
        out = []
        for v in instance["profile"].values():
            out.append(v if isinstance(v, list) else v.get("order", []))
        return out
    if d == "election":
        out = [b.get("ranking", []) if isinstance(b, dict) else b for b in instance["ballots"]
               for _ in range(int(b.get("count", 1)) if isinstance(b, dict) else 1)]
        if instance.get("manipulator"):
            out.append(instance["manipulator"].get("ranking", []))
        return out
    raise ValueError(f"no size measure for domain {d!r}")


def agents(instance: dict) -> int:
    """The number of agents (see the module docstring)."""
    d = instance.get("domain")
    if d == "stable_matching":
        p = instance["preferences"]
        return len(p["A"]) + len(p["B"])
    if d == "hospitals_residents":
        p = instance["preferences"]
        return len(p["residents"]) + len(p["hospitals"])
    if d in ("housing_market", "house_allocation"):
        return len(instance["preferences"])
    if d == "preference":
        return len(instance["profile"])
    if d == "election":                   # the manipulator is a voter too
        return sum(int(b.get("count", 1)) if isinstance(b, dict) else 1
                   for b in instance["ballots"]) + bool(instance.get("manipulator"))
    raise ValueError(f"no size measure for domain {d!r}")


def measure(instance: dict) -> tuple[int, int, int]:
    """``(agents, entries, tied pairs)`` of an instance dict; smaller is simpler."""
    entries = ties = 0
    for lst in _lists(instance):
        n, t = _ties_of(lst)
        entries += n
        ties += t
    return agents(instance), entries, ties


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


def _as_json(order: tuple) -> list:
    return [list(g) if isinstance(g, tuple) else g for g in order]


@cache
def _fubini(n: int) -> int:
    return 1 if n == 0 else sum(math.comb(n, k) * _fubini(n - k) for k in range(1, n + 1))


def count_weak_orders(n: int) -> int:
    """Σ_k C(n, k)·Fubini(k): weak orders over subsets of n items."""
    return sum(math.comb(n, k) * _fubini(k) for k in range(n + 1))


# ----------------------------------------------------------------------------- canonical

def _rename(order: tuple, ren: dict) -> tuple:
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
            key = tuple(sorted((perm[i], _rename(lists[i], ren)) for i in range(len(names))))
            best = key if best is None or key < best else best
        return best
    (na, la), (nb, lb) = sides
    best = None
    for pa in itertools.permutations(range(len(na))):
        ren_a = {na[i]: na[pa[i]] for i in range(len(na))}
        for pb in itertools.permutations(range(len(nb))):
            ren_b = {nb[i]: nb[pb[i]] for i in range(len(nb))}
            key = (tuple(sorted((pa[i], _rename(la[i], ren_b)) for i in range(len(na)))),
                   tuple(sorted((pb[i], _rename(lb[i], ren_a)) for i in range(len(nb)))))
            best = key if best is None or key < best else best
    return best


# ----------------------------------------------------------------------------- spaces

def space_size(kind: str, *dims: int, max_capacity: int = 2, complete: bool = False) -> int:
    """Raw instances (before isomorphism reduction) of a space: ``("smti", n_a, n_b)``,
    ``("hr", n_r, n_h)``, ``("housing", n)``, ``("profile", n, m)``, ``("election", n, m)``
    (exact: the space has no symmetry left to reduce); ``complete``: every
    list ranks the whole other side."""
    w = _fubini if complete else count_weak_orders
    if kind == "smti":
        a, b = dims
        return w(b) ** a * w(a) ** b
    if kind == "hr":
        r, h = dims
        return w(h) ** r * w(r) ** h * (max_capacity + 1) ** h
    if kind == "housing":
        (n,) = dims
        return w(n) ** n
    if kind == "profile":
        n, m = dims
        return math.comb(math.factorial(m) + n - 1, n)
    if kind == "election":
        n, m = dims
        return math.comb(math.factorial(m) + n - 2, n - 1) * math.factorial(m)
    raise ValueError(f"unknown space {kind!r}")


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
            "A": {x: _as_json(o) for x, o in zip(na, la)},
            "B": {y: _as_json(o) for y, o in zip(nb, lb)}}}


def hr_space(n_r: int, n_h: int, max_capacity: int = 2, complete: bool = False
             ) -> Iterator[dict]:
    """Every hospitals/residents market with residents ``r1..``, hospitals ``h1..`` and
    capacities in 0..``max_capacity``, one per isomorphism class (capacities included in
    the invariant)."""
    nr = [f"r{i}" for i in range(1, n_r + 1)]
    nh = [f"h{j}" for j in range(1, n_h + 1)]
    oa, ob = weak_orders(tuple(nh), complete), weak_orders(tuple(nr), complete)
    seen: set = set()
    for caps in itertools.product(range(max_capacity + 1), repeat=n_h):
        for la in itertools.product(oa, repeat=n_r):
            for lb in itertools.product(ob, repeat=n_h):
                key = _hr_key(nr, nh, la, lb, caps)   # capacities travel with hospitals
                if key in seen:
                    continue
                seen.add(key)
                yield {"domain": "hospitals_residents", "preferences": {
                    "residents": {x: _as_json(o) for x, o in zip(nr, la)},
                    "hospitals": {y: _as_json(o) for y, o in zip(nh, lb)}},
                    "capacities": dict(zip(nh, caps))}


def _hr_key(nr, nh, la, lb, caps) -> tuple:
    best = None
    for pa in itertools.permutations(range(len(nr))):
        ren_a = {nr[i]: nr[pa[i]] for i in range(len(nr))}
        for pb in itertools.permutations(range(len(nh))):
            ren_b = {nh[i]: nh[pb[i]] for i in range(len(nh))}
            key = (tuple(sorted((pa[i], _rename(la[i], ren_b)) for i in range(len(nr)))),
                   tuple(sorted((pb[i], caps[i], _rename(lb[i], ren_a))
                                for i in range(len(nh)))))
            best = key if best is None or key < best else best
    return best


def housing_space(n: int, complete: bool = False) -> Iterator[dict]:
    """Every housing market of ``n`` agents (``a<i>`` owns ``h<i>``), one per class."""
    names = [f"a{i}" for i in range(1, n + 1)]
    houses = tuple(f"h{i}" for i in range(1, n + 1))
    orders = weak_orders(houses, complete)
    seen: set = set()
    for lists in itertools.product(orders, repeat=n):
        key = canonical([(names, lists)], linked=True)
        if key in seen:
            continue
        seen.add(key)
        yield {"domain": "housing_market",
               "preferences": {a: _as_json(o) for a, o in zip(names, lists)},
               "endowment": {a: h for a, h in zip(names, houses)}}


def profile_space(n: int, m: int) -> Iterator[dict]:
    """Every profile of ``n`` linear ballots over ``m`` candidates ``c1..``, one per class
    (voters are anonymous — a profile is a multiset of ballots — and candidates are
    renamed freely), as ``preference`` instances with voters ``V1..``."""
    items = tuple(f"c{i}" for i in range(1, m + 1))
    ballots = list(itertools.permutations(items))
    seen: set = set()
    for prof in itertools.combinations_with_replacement(range(len(ballots)), n):
        best = None
        for perm in itertools.permutations(range(m)):
            ren = {items[i]: items[perm[i]] for i in range(m)}
            key = tuple(sorted(tuple(ren[x] for x in ballots[b]) for b in prof))
            best = key if best is None or key < best else best
        if best in seen:
            continue
        seen.add(best)
        yield {"domain": "preference", "items": list(items),
               "profile": {f"V{k}": list(ballots[b]) for k, b in enumerate(prof, 1)}}


def election_space(n: int, m: int, rule: str) -> Iterator[dict]:
    """Every election of ``rule`` with ``n`` voters — ``n − 1`` linear ballots (a multiset)
    and a manipulator with a linear true ranking — over candidates ``c1..cm`` with τ = c1
    ≻ … ≻ cm, as ``election`` instances."""
    items = tuple(f"c{i}" for i in range(1, m + 1))
    ballots = list(itertools.permutations(items))
    for prof in itertools.combinations_with_replacement(range(len(ballots)), n - 1):
        for truth in ballots:
            yield {"domain": "election", "candidates": list(items), "tie_break": list(items),
                   "rule": rule, "ballots": [list(ballots[b]) for b in prof],
                   "manipulator": {"ranking": list(truth)}}
