"""Helpers shared by several test files (plain functions; fixtures live in conftest.py)."""
from __future__ import annotations

import random


def written_lists(rng: random.Random, own: list[str], other: list[str],
                  broken: bool = False) -> dict[str, list]:
    """Each agent of ``own`` ranks a random subset of ``other`` as written in an instance:
    runs of 1–3 partners, a run of 2 or 3 a tie, a single partner sometimes a one-member
    tie; with ``broken``, some lists get an item the parse must refuse (an empty tie, an
    unknown name, a number, a repeated partner)."""
    out = {}
    for x in own:
        order = rng.sample(other, rng.randint(0, len(other)))
        lst: list = []
        k = 0
        while k < len(order):
            w = rng.choice([1, 1, 2, 3])
            grp = order[k:k + w]
            lst.append(grp if w > 1 or rng.random() < 0.2 else grp[0])
            k += w
        if broken and rng.random() < 0.3:
            lst.insert(rng.randint(0, len(lst)),
                       rng.choice([[], "zz", 7, other[0], [other[0], 7]]))
        out[x] = lst
    return out


def replay_reports(e, rule: str) -> tuple[list[int], dict[int, tuple[int, ...]]]:
    """Every report of the manipulators replayed by the checker's Count, in the checker's
    order of the ballot space: each candidate's count of reports electing it and its first
    such report (candidate indices)."""
    from prefcert.formal.checker import election as ce
    cnt = ce.Count(e, rule)
    idx = {x: i for i, x in enumerate(e.candidates)}
    counts, first = [0] * e.m, {}
    for q in ce.reports(e, rule):
        w = idx[cnt.winner([ce.report_ballot(e, rule, q)])]
        counts[w] += 1
        first.setdefault(w, tuple(idx[x] for x in q))
    return counts, first


def written_hr(rng: random.Random, nr: int, nh: int, capacity) -> dict:
    """A hospitals/residents instance of ``nr`` residents and ``nh`` hospitals (names
    whose sorted order is not their input order) with :func:`written_lists` on both
    sides and capacities ``capacity(rng)``, hospital by hospital."""
    res = [f"r{k}" for k in rng.sample(range(20), nr)]
    hos = [f"h{k}" for k in rng.sample(range(20), nh)]
    return {"preferences": {"residents": written_lists(rng, res, hos),
                            "hospitals": written_lists(rng, hos, res)},
            "capacities": {h: capacity(rng) for h in hos}}


def first_boolean(value) -> str | None:
    """The plain walk the checker's boolean test must equal (every value, depth first,
    last item first): the first boolean met, as the checker names it, or None."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, bool):
            return str(v).lower()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return None


def tied_lists(rng: random.Random, own: list[str], other: list[str], complete: bool,
               tie_p: float, singleton_p: float = 0.0) -> dict[str, list]:
    """Each agent of ``own`` ranks all of ``other`` (``complete``) or a random subset, in
    random order; each item after the first joins the tie before it with probability
    ``tie_p``; an untied item is written as a one-member tie with ``singleton_p``."""
    out = {}
    for x in own:
        order = rng.sample(other, len(other) if complete else rng.randint(0, len(other)))
        lst: list = []
        for y in order:
            if lst and rng.random() < tie_p:
                last = lst.pop()
                lst.append((last if isinstance(last, list) else [last]) + [y])
            else:
                lst.append([y] if singleton_p and rng.random() < singleton_p else y)
        out[x] = lst
    return out
