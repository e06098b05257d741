"""Seeded samplers of elections (the ``election`` instance format) and the balanced design
of the voting-manipulation benchmark.

Profiles come from prefsampling's impartial culture: every voter's strict ranking is
uniform and independent. Voter 0 is the manipulator (the model's voter), the others are
the ballots P₋ᵢ.
"""
from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterator, Sequence

import numpy as np
from prefsampling.ordinal import impartial

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def candidate_names(m: int) -> list[str]:
    """A, B, C, … (A1 … beyond 26)."""
    return [LETTERS[i] if m <= 26 else f"A{i + 1}" for i in range(m)]


def impartial_culture_election(m: int, n: int, *, seed: int, rule: str | None = None,
                               tau: str = "alphabetical", manipulator: bool = True,
                               instance_id: str | None = None) -> dict:
    """One impartial-culture election as a JSON instance (domain ``election``).

    ``n`` voters including the manipulator when ``manipulator`` (voter 0's ranking becomes
    its true ranking; the other n − 1 are the ballots). ``tau``: ``"alphabetical"`` (A ≻ B
    ≻ …, the benchmark's reading) or ``"random"`` (a uniform order, the named
    alternative, drawn from a child stream of the seed independent of the profile's —
    drawing it from the seed itself, as up to prefcert 0.2 did, reproduced voter 0's
    ranking: τ was the manipulator's true ranking). The same seed gives the same
    instance. O(n · m).
    """
    if m < 1 or n < 1:
        raise ValueError(f"need m ≥ 1 candidates and n ≥ 1 voters, got m={m}, n={n}")
    if tau not in ("alphabetical", "random"):
        raise ValueError(f"unknown tie-breaking order {tau!r}")
    names = candidate_names(m)
    orders = [[names[int(i)] for i in o] for o in impartial(n, m, seed=seed)]
    order = names if tau == "alphabetical" else \
        [names[int(i)] for i in np.random.default_rng(
            np.random.SeedSequence(seed, spawn_key=(1,))).permutation(m)]
    out = {"id": instance_id or f"ic-m{m}-n{n}-s{seed}", "domain": "election",
           "candidates": names, "tie_break": list(order)}
    if rule is not None:
        out["rule"] = rule
    if manipulator:
        out["manipulator"] = {"ranking": orders[0]}
        orders = orders[1:]
    out["ballots"] = _grouped(orders)
    return out


def _grouped(orders: list[list[str]]) -> list:
    """Identical rankings merged into one ballot with a count, in first-seen order."""
    seen: dict[tuple, int] = {}
    for o in orders:
        seen[tuple(o)] = seen.get(tuple(o), 0) + 1
    return [list(o) if k == 1 else {"ranking": list(o), "count": k} for o, k in seen.items()]


def balanced_design(rules: Sequence[str], sizes: Sequence[int], *, n: int, per_stratum: int,
                    seed: int, is_manipulable: Callable[[dict], bool],
                    tau: str = "alphabetical", max_draws: int = 100_000) -> list[dict]:
    """The benchmark's balanced design: for every rule × size cell, impartial-culture
    profiles of ``n`` voters (the manipulator included) drawn until ``per_stratum``
    manipulable and ``per_stratum`` non-manipulable ones are accepted — rejection
    sampling on the oracle's label ``is_manipulable(instance)``, so the sample follows IC
    conditioned on the stratum, not IC.

    Each cell draws from its own stream, ``SeedSequence([seed, cell index])``, so a cell's
    instances do not depend on the other cells; draw k of a cell uses the k-th 32-bit word
    of that stream as prefsampling's seed. Instances carry ``design``: rule, m, n, stratum,
    seed, cell, draw. Raises RuntimeError when a cell needs more than ``max_draws``."""
    out = []
    for cell, (rule, m) in enumerate((r, m) for r in rules for m in sizes):
        stream = np.random.default_rng(np.random.SeedSequence([seed, cell]))
        kept: dict[str, list[dict]] = {"manipulable": [], "non_manipulable": []}
        draw = 0
        while min(map(len, kept.values())) < per_stratum:
            if draw >= max_draws:
                raise RuntimeError(f"cell {rule} m={m}: {max_draws} draws did not fill both "
                                   f"strata")
            s = int(stream.integers(2**32))
            inst = impartial_culture_election(m, n, seed=s, rule=rule, tau=tau)
            stratum = "manipulable" if is_manipulable(inst) else "non_manipulable"
            if len(kept[stratum]) < per_stratum:
                k = len(kept[stratum])
                inst["id"] = f"vm-{rule}-m{m}-{'M' if stratum == 'manipulable' else 'N'}{k:02d}"
                inst["questions"] = ["manipulation"]
                inst["design"] = {"rule": rule, "m": m, "n": n, "stratum": stratum,
                                  "seed": seed, "cell": cell, "draw": draw, "ic_seed": s}
                kept[stratum].append(inst)
            draw += 1
        out += kept["manipulable"] + kept["non_manipulable"]
    return out

# ----------------------------------------------------------------------------- the space

def election_space_size(n: int, m: int) -> int:
    """Elections of :func:`election_space` (exact: no symmetry is left to reduce)."""
    return math.comb(math.factorial(m) + n - 2, n - 1) * math.factorial(m)


def random_election(n: int, m: int, rule: str, rng: random.Random) -> dict:
    """One random election of :func:`election_space` (ballots uniform, independent)."""
    items = [f"c{i}" for i in range(1, m + 1)]
    return {"domain": "election", "candidates": items, "tie_break": list(items), "rule": rule,
            "ballots": [rng.sample(items, m) for _ in range(n - 1)],
            "manipulator": {"ranking": rng.sample(items, m)}}


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


def random_audit_election(rng: random.Random, *, textbook: bool, id: str) -> dict:
    """A small random election: 2..6 candidates, 1..8 distinct ballots of weight 1..3, a
    random τ and approval convention k; ``textbook``: full strict rankings, else each
    ballot truncated, tied or both at random (PrefLib's soi / toc / toi shapes)."""
    m = rng.randint(2, 6)
    cands = [f"c{i}" for i in range(1, m + 1)]
    shape = rng.choice(["soi", "toc", "toi"])
    ballots = []
    for _ in range(rng.randint(1, 8)):
        order = rng.sample(cands, m)
        if not textbook and shape in ("soi", "toi"):
            order = order[:rng.randint(1, m)]
        groups: list = []
        for x in order:
            if groups and not textbook and shape in ("toc", "toi") and rng.random() < 0.3:
                groups[-1] = [*groups[-1], x] if isinstance(groups[-1], list) else [groups[-1], x]
            else:
                groups.append(x)
        ballots.append({"ranking": groups, "count": rng.randint(1, 3)})
    return {"id": id, "domain": "election", "candidates": cands,
            "tie_break": rng.sample(cands, m), "approval_top": rng.randint(1, m),
            "ballots": ballots}
