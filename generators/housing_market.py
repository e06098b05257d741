"""Seeded samplers of Shapley–Scarf housing markets (the ``housing_market`` instance format).

Preferences come from prefsampling's impartial culture (every agent's strict order over the
n houses is uniform and independent); ties are made by merging adjacent items, and lists can
be truncated.
"""
from __future__ import annotations

import random

from prefsampling.ordinal import impartial


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
