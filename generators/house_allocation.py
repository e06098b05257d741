"""Random house-allocation instances (agents with weak, incomplete lists over objects).

Each agent's list starts as a full order of the objects drawn from a prefsampling culture
(impartial culture by default, or Mallows around a random central order with dispersion
``phi`` — the usual model of correlated priorities in house allocation experiments); it is
truncated to a length drawn uniformly from [``min_len``, ``max_len``]; then every item after
the first joins the tie of the item before it with probability ``tie_prob`` ("ties by merging
adjacent items", as in the SMTI generators of Gent & Prosser 2002).
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from prefsampling.ordinal import impartial, mallows

from .stable_matching import merge_ties

CULTURES = ("impartial", "mallows")


def sample_house_allocation(n_agents: int, n_objects: int | None = None, *, seed: int,
                            culture: str = "impartial", phi: float = 0.5,
                            tie_prob: float = 0.0, min_len: int = 1,
                            max_len: int | None = None, id: str | None = None,
                            questions: list | None = None) -> dict:
    """Sample one house-allocation instance as an instance dict of the input format.

    ``n_agents`` agents ``a1..``, ``n_objects`` objects ``h1..`` (default: as many as
    agents). ``culture``: ``impartial`` (uniform orders) or ``mallows`` (dispersion ``phi``
    ∈ [0, 1], normalised, around a random central order). Each list is cut to a length
    uniform in [``min_len``, ``max_len``] (default ``max_len`` = ``n_objects``: complete
    lists are possible). ``tie_prob`` ∈ [0, 1]: chance that an item joins the previous tie.
    ``seed``: the only source of randomness. Returns ``{"id", "domain":
    "house_allocation", "preferences", "objects"[, "questions"]}``. Raises ValueError for
    bad sizes, an unknown culture or probabilities outside [0, 1]. O(n_agents·n_objects).
    Sources: prefsampling (Boehmer, Faliszewski et al.); Mallows 1957; Gent & Prosser 2002.
    """
    n_objects = n_agents if n_objects is None else n_objects
    max_len = n_objects if max_len is None else max_len
    if n_agents < 0 or n_objects < 0 or not 0 <= min_len <= max_len <= n_objects:
        raise ValueError(f"bad sizes: n_agents={n_agents}, n_objects={n_objects}, "
                         f"min_len={min_len}, max_len={max_len}")
    if culture not in CULTURES:
        raise ValueError(f"unknown culture {culture!r} (known: {', '.join(CULTURES)})")
    if not (0.0 <= tie_prob <= 1.0 and 0.0 <= phi <= 1.0):
        raise ValueError("tie_prob and phi must lie in [0, 1]")
    rng = np.random.default_rng(seed)
    objects = [f"h{j}" for j in range(1, n_objects + 1)]
    agents = [f"a{i}" for i in range(1, n_agents + 1)]
    if n_agents and n_objects:
        sub = int(rng.integers(2 ** 32))
        orders = impartial(n_agents, n_objects, seed=sub) if culture == "impartial" else \
            mallows(n_agents, n_objects, phi, normalise_phi=True, impartial_central_vote=True,
                    seed=sub)
    else:
        orders = [[] for _ in agents]
    prefs = {}
    for a, perm in zip(agents, orders):
        items = [objects[int(j)] for j in perm]
        items = items[:int(rng.integers(min_len, max_len + 1))]
        prefs[a] = merge_ties(items, tie_prob, rng)
    out = {"id": id or f"ha-{culture}-n{n_agents}-m{n_objects}-t{tie_prob}-s{seed}",
           "domain": "house_allocation", "preferences": prefs, "objects": objects}
    if questions is not None:
        out["questions"] = list(questions)
    return out


def house_allocation_suite(count: int, n_agents: int, n_objects: int | None = None, *,
                           seed: int, **kw) -> Iterator[dict]:
    """``count`` instances with seeds derived from ``seed`` (ids ``ha-<seed>-<i>``);
    keyword arguments as in :func:`sample_house_allocation`."""
    ss = np.random.SeedSequence(seed)
    for i, child in enumerate(ss.spawn(count)):
        yield sample_house_allocation(n_agents, n_objects, seed=int(child.generate_state(1)[0]),
                                      id=f"ha-{seed}-{i}", **kw)
