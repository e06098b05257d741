"""Seeded samplers of Shapley–Scarf housing markets (the ``housing_market`` instance format).

Preferences come from prefsampling's impartial culture (every agent's strict order over the
n houses is uniform and independent); ties are made by merging adjacent items, and lists can
be truncated.
"""
from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

from prefsampling.ordinal import impartial

from .spaces import (
    as_json,
    canonical,
    count_weak_orders,
    fubini,
    random_weak_order,
    weak_orders,
)


def sample_housing_market(n: int, *, seed: int, tie_prob: float = 0.0,
                          truncate: str = "none", truncate_prob: float = 1.0,
                          agent_prefix: str = "a", house_prefix: str = "h",
                          instance_id: str | None = None) -> dict:
    """Sample one housing market as a JSON instance object (domain ``housing_market``).

    ``n`` agents ``a0..a{n-1}``; agent ``a{k}`` owns house ``h{k}``. Each list is an
    impartial-culture order over all houses (prefsampling), in which each adjacent pair is
    merged into one tie with probability ``tie_prob``. ``truncate``: "none" (complete
    lists), "below_own" (drop the houses ranked below the agent's own tie: unacceptable
    either way, so the cores do not change) or "random" (cut the list after a uniformly
    random number of ties, possibly dropping the own house, which then ranks just below the
    kept houses); each agent is truncated with probability ``truncate_prob``. The same
    ``seed`` gives the same instance. O(n²). Raises ValueError for bad parameters.
    """
    if n < 1:
        raise ValueError(f"need at least one agent, got n={n}")
    if not 0.0 <= tie_prob <= 1.0 or not 0.0 <= truncate_prob <= 1.0:
        raise ValueError("probabilities must lie in [0, 1]")
    if truncate not in ("none", "below_own", "random"):
        raise ValueError(f"unknown truncation {truncate!r}")
    rng = random.Random(seed)
    orders = impartial(n, n, seed=seed)
    agents = [f"{agent_prefix}{k}" for k in range(n)]
    houses = [f"{house_prefix}{k}" for k in range(n)]
    prefs = {}
    for k, order in enumerate(orders):
        ties: list[list[str]] = []
        for item in order:
            h = houses[int(item)]
            if ties and rng.random() < tie_prob:
                ties[-1].append(h)
            else:
                ties.append([h])
        if truncate != "none" and rng.random() < truncate_prob:
            if truncate == "below_own":
                cut = next(t for t, tie in enumerate(ties) if houses[k] in tie) + 1
            else:
                cut = rng.randint(0, len(ties))
            ties = ties[:cut]
        prefs[agents[k]] = [t[0] if len(t) == 1 else t for t in ties]
    return {"id": instance_id or f"hm-n{n}-s{seed}", "domain": "housing_market",
            "preferences": prefs, "endowment": dict(zip(agents, houses)),
            "questions": ["strict_core", "weak_core"]}

# ----------------------------------------------------------------------------- the space

def housing_space_size(n: int, complete: bool = False) -> int:
    """Raw housing markets of ``n`` agents before isomorphism reduction."""
    return (fubini if complete else count_weak_orders)(n) ** n


def random_housing(n: int, complete: bool, rng: random.Random) -> dict:
    """One uniformly random raw market of :func:`housing_space`."""
    names = [f"a{i}" for i in range(1, n + 1)]
    houses = [f"h{i}" for i in range(1, n + 1)]
    return {"domain": "housing_market",
            "preferences": {a: random_weak_order(houses, complete, rng) for a in names},
            "endowment": dict(zip(names, houses))}


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
               "preferences": {a: as_json(o) for a, o in zip(names, lists)},
               "endowment": {a: h for a, h in zip(names, houses)}}
