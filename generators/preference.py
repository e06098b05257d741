"""The enumerable space of small preference profiles (minimal counterexamples): every
profile of linear ballots up to renaming voters and candidates."""
from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator


def profile_space_size(n: int, m: int) -> int:
    """Raw profiles: multisets of ``n`` linear ballots over ``m`` candidates."""
    return math.comb(math.factorial(m) + n - 1, n)


def random_profile(n: int, m: int, rng: random.Random) -> dict:
    """One random profile of :func:`profile_space` (ballots uniform, independent)."""
    items = [f"c{i}" for i in range(1, m + 1)]
    return {"domain": "preference", "items": items,
            "profile": {f"V{k}": rng.sample(items, m) for k in range(1, n + 1)}}


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
