"""Shrinking instances while a predicate keeps failing: delta debugging over agents and
list entries, then tie splitting — for engine-disagreement reports and for minimal
counterexamples.

:func:`shrink` takes an instance dict and ``still_fails(instance) -> bool`` and returns a
smaller instance on which it still fails, 1-minimal for each reduction: removing any one
remaining agent or list entry, or splitting any tie, makes it pass (or the budget ran
out). Reductions, per domain:

- **agents**: a market's agents (both sides; the agent's name leaves every list), a
  housing market's agents (with their houses), a profile's voters and candidates;
- **entries**: one item of one preference list;
- **ties**: one item moved out of its tie group to just after it (one tied pair fewer per
  remaining member);
- **capacities** (hospitals/residents): one post fewer.

Agents and entries are reduced with ddmin (Zeller & Hildebrandt 2002, "Simplifying and
isolating failure-inducing input", IEEE TSE 28), then single steps repeat to a fixpoint,
as hypothesis' shrinker does (MacIver & Donaldson 2020, ECOOP). An exception raised by
the predicate counts as "passes" (the reduced instance is not a witness).

:func:`prefcert.pipeline.jobs.attach_minimized` runs this on a disagreement report: the
same question, the same engines, a smaller instance that still makes them disagree (or
crash).
"""
from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..domains.base import Absent, ListRef, Shrinker

# ----------------------------------------------------------------------------- handles

def _shrinker(inst: dict) -> Shrinker:
    from .registry import domain
    hook = domain(inst.get("domain", "")).shrinker
    if isinstance(hook, Absent):
        raise NotShrinkable(hook.reason)
    return hook


class NotShrinkable(ValueError):
    """The instance's domain declares no shrinker (the reason is the message)."""


def _get(inst: dict, path: tuple) -> Any:
    for k in path:
        inst = inst[k]
    return inst


def _set(inst: dict, path: tuple, value: Any) -> None:
    for k in path[:-1]:
        inst = inst[k]
    inst[path[-1]] = value


def without_items(lst: list, gone: set) -> list:
    """A preference list (JSON format) without the items ``gone``; a tie group left with
    one member becomes that item."""
    out = []
    for g in lst:
        if isinstance(g, list):
            kept = [x for x in g if x not in gone]
            if len(kept) == 1:
                out.append(kept[0])
            elif kept:
                out.append(kept)
        elif g not in gone:
            out.append(g)
    return out


def agents(inst: dict) -> list[tuple[str, str]]:
    """The removable agents of an instance as (kind, name)."""
    return _shrinker(inst).agents(inst)


def keep_agents(inst: dict, keep: list[tuple[str, str]]) -> dict:
    """A copy of ``inst`` with only the agents ``keep`` (every other agent leaves its side
    and every list)."""
    return _shrinker(inst).keep_agents(inst, keep)


def entries(inst: dict) -> list[tuple[tuple, str]]:
    """Every list entry as (path of its list, item)."""
    return [(path, x) for path, lst, _ in _shrinker(inst).lists(inst)
            for g in lst for x in (g if isinstance(g, list) else [g])]


def drop_entries(inst: dict, drop: list[tuple[tuple, str]]) -> dict:
    out = copy.deepcopy(inst)
    by_path: dict[tuple, set] = {}
    for path, x in drop:
        by_path.setdefault(path, set()).add(x)
    for path, gone in by_path.items():
        _set(out, path, without_items(_get(out, path), gone))
    return out


def tie_splits(inst: dict) -> Iterator[dict]:
    """Each instance with one item moved out of a tie group to a singleton right after it."""
    for path, lst, _ in _shrinker(inst).lists(inst):
        for i, g in enumerate(lst):
            if isinstance(g, list) and len(g) >= 2:
                for x in g:
                    rest = [y for y in g if y != x]
                    new = lst[:i] + [rest if len(rest) > 1 else rest[0], x] + lst[i + 1:]
                    out = copy.deepcopy(inst)
                    _set(out, path, new)
                    yield out


def measure(instance: dict) -> tuple[int, int, int]:
    """``(agents, entries, tied pairs)`` of an instance dict, compared lexicographically:
    smaller is simpler. Agents as the domain's shrinker counts them; entries and tied
    pairs (Σ C(|g|, 2) over tie groups g) over every preference list, a list held by
    ``count`` identical voters counted that many times. ValueError for a domain without
    a shrinker."""
    try:
        hook = _shrinker(instance)
    except NotShrinkable as e:
        raise ValueError(f"no size measure for domain {instance.get('domain')!r}: {e}") from None
    entries_ = ties = 0
    for _, lst, weight in hook.lists(instance):
        for g in lst:
            k = len(g) if isinstance(g, list) else 1
            entries_ += weight * k
            ties += weight * (k * (k - 1) // 2)
    return hook.count(instance), entries_, ties


# ------------------------------------------------------------------ shrinkers of common shapes

def two_sided_shrinker(sides: tuple[str, str], *, capacities: bool = False) -> Shrinker:
    """Two-sided markets ``{"preferences": {side: {agent: list}}}`` (both sides' agents
    removable; with ``capacities``, hospitals/residents, one post fewer is a reduction)."""
    def lists(inst: dict) -> list[ListRef]:
        p = inst["preferences"]
        return [(("preferences", s, x), lst, 1) for s in sides for x, lst in p[s].items()]

    def agents_(inst: dict) -> list[tuple[str, str]]:
        return [(s, x) for s in sides for x in inst["preferences"][s]]

    def keep(inst: dict, kept: list[tuple[str, str]]) -> dict:
        keep_set = set(kept)
        gone = {name for kind, name in agents_(inst) if (kind, name) not in keep_set}
        out = copy.deepcopy(inst)
        for s in sides:
            out["preferences"][s] = {x: without_items(lst, gone)
                                     for x, lst in out["preferences"][s].items() if x not in gone}
        if capacities:
            out["capacities"] = {h: c for h, c in out["capacities"].items() if h not in gone}
        return out

    def cuts(inst: dict) -> Iterator[dict]:
        if capacities:
            for h, c in inst["capacities"].items():
                if c > 0:
                    out = copy.deepcopy(inst)
                    out["capacities"][h] = c - 1
                    yield out

    return Shrinker(lists, agents_, keep,
                    lambda inst: sum(len(inst["preferences"][s]) for s in sides), cuts)


def one_sided_lists(inst: dict) -> list[ListRef]:
    """The lists of a one-sided market ``{"preferences": {agent: list}}``."""
    return [(("preferences", x), lst, 1) for x, lst in inst["preferences"].items()]


# ----------------------------------------------------------------------------- shrinking

class _Budget:
    def __init__(self, max_tests: int, seconds: float):
        self.left, self.deadline = max_tests, time.monotonic() + seconds
        self.tests = 0

    def ok(self) -> bool:
        return self.left > 0 and time.monotonic() < self.deadline


def _ddmin(items: list, test: Callable[[list], bool], budget: _Budget) -> list:
    """Zeller's ddmin over complements: a sublist of ``items`` on which ``test`` holds,
    from which no chunk of the final granularity can be removed."""
    n = 2
    while len(items) >= 1 and budget.ok():
        size = max(1, len(items) // n)
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        for c in chunks:
            comp = [x for x in items if x not in c]
            if not budget.ok():
                return items
            if test(comp):
                items, n = comp, max(n - 1, 2)
                break
        else:
            if size == 1:
                return items
            n = min(len(items), 2 * n)
    return items


def shrink(instance: dict, still_fails: Callable[[dict], bool], *, max_tests: int = 2000,
           seconds: float = 30.0) -> tuple[dict, dict]:
    """Shrink ``instance`` while ``still_fails`` holds; return ``(smaller, stats)``.

    ``still_fails`` must hold on ``instance`` itself (ValueError otherwise). ``stats``:
    ``tests`` (predicate calls), ``seconds``, ``exhausted`` (True when the budget of
    ``max_tests`` calls or ``seconds`` ran out before a fixpoint). O(max_tests) calls.
    """
    budget = _Budget(max_tests, seconds)
    t0 = time.monotonic()

    def test(inst: dict) -> bool:
        budget.left -= 1
        budget.tests += 1
        try:
            return bool(still_fails(inst))
        except Exception:        # an invalid or crashing reduction is not a witness
            return False

    if not test(instance):
        raise ValueError("the predicate does not fail on the instance to shrink")
    cur = instance
    changed = True
    while changed and budget.ok():
        changed = False
        ag = agents(cur)
        kept = _ddmin(ag, lambda keep: test(keep_agents(cur, keep)), budget)
        if len(kept) < len(ag):
            cur, changed = keep_agents(cur, kept), True
        en = entries(cur)
        kept_e = _ddmin(en, lambda keep: test(drop_entries(cur, [e for e in en if e not in keep])),
                        budget)
        if len(kept_e) < len(en):
            cur, changed = drop_entries(cur, [e for e in en if e not in kept_e]), True
        for cand in [*tie_splits(cur), *_shrinker(cur).reductions(cur)]:
            if not budget.ok():
                break
            if test(cand):
                cur, changed = cand, True
                break
    return cur, {"tests": budget.tests, "seconds": round(time.monotonic() - t0, 3),
                 "exhausted": not budget.ok()}
