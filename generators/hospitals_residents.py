"""Random hospitals/residents markets with ties and incomplete lists.

Lists are drawn as for SMTI (:mod:`prefcert.generators.stable_matching`): a uniformly random order of
the other side (impartial culture, :func:`prefsampling.ordinal.impartial`), optionally cut to
a length uniform in [⌊n/2⌋, n], then items merged into the previous tie with probability
``tie_prob``. Capacities are uniform in ``[cap_min, cap_max]`` (0 allowed). One-sided
entries are possible and are dropped by the market's admissibility rule.
"""
from __future__ import annotations

import numpy as np

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
