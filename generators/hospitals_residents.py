"""Random hospitals/residents markets with ties and incomplete lists.

Lists are drawn as for SMTI (:mod:`prefcert.generators.stable_matching`): a uniformly random order of
the other side (impartial culture, :func:`prefsampling.ordinal.impartial`), optionally cut to
a length uniform in [⌊n/2⌋, n], then items merged into the previous tie with probability
``tie_prob``. Capacities are uniform in ``[cap_min, cap_max]`` (0 allowed). One-sided
entries are possible and are dropped by the market's admissibility rule.
"""
from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import numpy as np

from .spaces import (
    as_json,
    count_weak_orders,
    fubini,
    random_weak_order,
    rename,
    weak_orders,
)
from .stable_matching import _side


def sample_hr(n_residents: int, n_hospitals: int, *, cap_min: int = 1, cap_max: int = 3,
              tie_prob: float = 0.0, truncate: bool = False, seed: int,
              id: str | None = None, questions: list | None = None) -> dict:
    """Sample one hospitals/residents instance as an instance dict.

    ``n_residents`` residents ``r1..`` and ``n_hospitals`` hospitals ``h1..``; capacities
    uniform in [``cap_min``, ``cap_max``]; ``tie_prob`` ∈ [0, 1] as for
    :func:`prefcert.generators.stable_matching.sample_smti`; ``truncate``: incomplete lists. ``seed``
    is the only source of randomness. Returns ``{"id", "domain": "hospitals_residents",
    "preferences": {"residents", "hospitals"}, "capacities"}`` (plus ``questions`` when
    given). Raises ValueError for negative sizes, bad capacity bounds or a tie probability
    outside [0, 1]. O(n_residents · n_hospitals).
    """
    if not (isinstance(n_residents, int) and isinstance(n_hospitals, int)) or \
            n_residents < 0 or n_hospitals < 0:
        raise ValueError(f"sizes must be non-negative integers, got {n_residents!r}, "
                         f"{n_hospitals!r}")
    if not 0 <= cap_min <= cap_max:
        raise ValueError(f"need 0 <= cap_min <= cap_max, got {cap_min!r}, {cap_max!r}")
    if not 0.0 <= float(tie_prob) <= 1.0:
        raise ValueError(f"tie_prob must lie in [0, 1], got {tie_prob!r}")
    rng = np.random.default_rng(seed)
    res = [f"r{i}" for i in range(1, n_residents + 1)]
    hos = [f"h{j}" for j in range(1, n_hospitals + 1)]
    caps = {h: int(rng.integers(cap_min, cap_max + 1)) for h in hos}
    inst = {"id": id or f"hr-{n_residents}x{n_hospitals}-p{tie_prob:g}"
                        f"{'-trunc' if truncate else ''}-s{seed}",
            "domain": "hospitals_residents",
            "preferences": {"residents": _side(res, hos, float(tie_prob), truncate, rng),
                            "hospitals": _side(hos, res, float(tie_prob), truncate, rng)},
            "capacities": caps}
    if questions is not None:
        inst["questions"] = list(questions)
    return inst

# ----------------------------------------------------------------------------- the space

def hr_space_size(n_r: int, n_h: int, max_capacity: int = 2, complete: bool = False) -> int:
    """Raw hospitals/residents markets before isomorphism reduction."""
    w = fubini if complete else count_weak_orders
    return w(n_h) ** n_r * w(n_r) ** n_h * (max_capacity + 1) ** n_h


def random_hr(n_r: int, n_h: int, complete: bool, rng: random.Random) -> dict:
    """One uniformly random raw market of :func:`hr_space` (capacities 0..2)."""
    nr, nh = [f"r{i}" for i in range(1, n_r + 1)], [f"h{j}" for j in range(1, n_h + 1)]
    return {"domain": "hospitals_residents", "preferences": {
        "residents": {x: random_weak_order(nh, complete, rng) for x in nr},
        "hospitals": {y: random_weak_order(nr, complete, rng) for y in nh}},
        "capacities": {y: rng.randint(0, 2) for y in nh}}


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
                    "residents": {x: as_json(o) for x, o in zip(nr, la)},
                    "hospitals": {y: as_json(o) for y, o in zip(nh, lb)}},
                    "capacities": dict(zip(nh, caps))}
def _hr_key(nr, nh, la, lb, caps) -> tuple:
    best = None
    for pa in itertools.permutations(range(len(nr))):
        ren_a = {nr[i]: nr[pa[i]] for i in range(len(nr))}
        for pb in itertools.permutations(range(len(nh))):
            ren_b = {nh[i]: nh[pb[i]] for i in range(len(nh))}
            key = (tuple(sorted((pa[i], rename(la[i], ren_b)) for i in range(len(nr)))),
                   tuple(sorted((pb[i], caps[i], rename(lb[i], ren_a))
                                for i in range(len(nh)))))
            best = key if best is None or key < best else best
    return best
