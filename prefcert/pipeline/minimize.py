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

# ----------------------------------------------------------------------------- handles


def _lists_of(inst: dict) -> list[tuple[tuple, list]]:
    """(path, list) of every preference list of an instance, for the domains with lists."""
    d = inst.get("domain")
    p = inst.get("preferences")
    if d == "stable_matching":
        return [(("preferences", s, x), lst) for s in ("A", "B") for x, lst in p[s].items()]
    if d == "hospitals_residents":
        return [(("preferences", s, x), lst) for s in ("residents", "hospitals")
                for x, lst in p[s].items()]
    if d in ("housing_market", "house_allocation"):
        return [(("preferences", x), lst) for x, lst in p.items()]
    if d == "preference":
        out = []
        for v, datum in inst["profile"].items():
            if isinstance(datum, list):
                out.append((("profile", v), datum))
            elif isinstance(datum, dict) and isinstance(datum.get("order"), list):
                out.append((("profile", v, "order"), datum["order"]))
        return out
    return []


def _get(inst: dict, path: tuple) -> Any:
    for k in path:
        inst = inst[k]
    return inst


def _set(inst: dict, path: tuple, value: Any) -> None:
    for k in path[:-1]:
        inst = inst[k]
    inst[path[-1]] = value


def _without_items(lst: list, gone: set) -> list:
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
    d = inst.get("domain")
    if d == "stable_matching":
        return [(s, x) for s in ("A", "B") for x in inst["preferences"][s]]
    if d == "hospitals_residents":
        return [(s, x) for s in ("residents", "hospitals") for x in inst["preferences"][s]]
    if d == "housing_market":
        return [("agent", a) for a in inst["endowment"]]
    if d == "house_allocation":
        objs = inst.get("objects")
        return [("agent", a) for a in inst["preferences"]] + \
            [("object", o) for o in (objs or [])]
    if d == "preference":
        out = [("voter", v) for v in inst["profile"]]
        if all(isinstance(v, list) or (isinstance(v, dict) and "order" in v)
               for v in inst["profile"].values()):
            out += [("item", x) for x in inst.get("items", [])]
        return out
    return []


def keep_agents(inst: dict, keep: list[tuple[str, str]]) -> dict:
    """A copy of ``inst`` with only the agents ``keep`` (every other agent leaves its side
    and every list)."""
    keep_set = set(keep)
    gone = {name for kind, name in agents(inst) if (kind, name) not in keep_set}
    out = copy.deepcopy(inst)
    d = inst.get("domain")
    if d in ("stable_matching", "hospitals_residents"):
        for s in (("A", "B") if d == "stable_matching" else ("residents", "hospitals")):
            out["preferences"][s] = {x: _without_items(lst, gone)
                                     for x, lst in out["preferences"][s].items() if x not in gone}
        if d == "hospitals_residents":
            out["capacities"] = {h: c for h, c in out["capacities"].items() if h not in gone}
        return out
    if d == "housing_market":
        houses = {inst["endowment"][a] for a in gone}
        out["endowment"] = {a: h for a, h in inst["endowment"].items() if a not in gone}
        out["preferences"] = {a: _without_items(lst, houses)
                              for a, lst in inst["preferences"].items() if a not in gone}
        return out
    if d == "house_allocation":
        out["preferences"] = {a: _without_items(lst, gone)
                              for a, lst in inst["preferences"].items() if a not in gone}
        if "objects" in inst:
            out["objects"] = [o for o in inst["objects"] if o not in gone]
        return out
    if d == "preference":
        out["profile"] = {v: datum for v, datum in out["profile"].items() if v not in gone}
        if "items" in out:
            out["items"] = [x for x in out["items"] if x not in gone]
        for path, lst in _lists_of(out):
            _set(out, path, _without_items(lst, gone))
        return out
    return out


def entries(inst: dict) -> list[tuple[tuple, str]]:
    """Every list entry as (path of its list, item)."""
    return [(path, x) for path, lst in _lists_of(inst)
            for g in lst for x in (g if isinstance(g, list) else [g])]


def drop_entries(inst: dict, drop: list[tuple[tuple, str]]) -> dict:
    out = copy.deepcopy(inst)
    by_path: dict[tuple, set] = {}
    for path, x in drop:
        by_path.setdefault(path, set()).add(x)
    for path, gone in by_path.items():
        _set(out, path, _without_items(_get(out, path), gone))
    return out


def tie_splits(inst: dict) -> Iterator[dict]:
    """Each instance with one item moved out of a tie group to a singleton right after it."""
    for path, lst in _lists_of(inst):
        for i, g in enumerate(lst):
            if isinstance(g, list) and len(g) >= 2:
                for x in g:
                    rest = [y for y in g if y != x]
                    new = lst[:i] + [rest if len(rest) > 1 else rest[0], x] + lst[i + 1:]
                    out = copy.deepcopy(inst)
                    _set(out, path, new)
                    yield out


def capacity_cuts(inst: dict) -> Iterator[dict]:
    if inst.get("domain") == "hospitals_residents":
        for h, c in inst["capacities"].items():
            if c > 0:
                out = copy.deepcopy(inst)
                out["capacities"][h] = c - 1
                yield out


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
        for cand in [*tie_splits(cur), *capacity_cuts(cur)]:
            if not budget.ok():
                break
            if test(cand):
                cur, changed = cand, True
                break
    return cur, {"tests": budget.tests, "seconds": round(time.monotonic() - t0, 3),
                 "exhausted": not budget.ok()}
