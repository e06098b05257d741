"""The decision oracle: enumerate the admissible worlds, solve each one, intersect.

Per world (Li et al. 2026's accepted-action rules; definitions in
:mod:`prefcert.formal.checker.decision`):

- ``scheduling`` / ``apartment``: score every feasible item (O(#agents · #items)).
- ``allocation``: the Hungarian method with integral potentials (Kuhn 1955; Munkres 1957)
  gives an optimum and LP duals whose tight graph holds exactly the optimal perfect
  matchings; the egalitarian optimum is the smallest rank cut-off with a perfect matching,
  proven by a Hall violator one rank below (Hall 1935). The shared accepted actions are
  the perfect matchings of the intersected tight graphs: a maximum matching there is the
  action, or its alternating-path Hall violator (König 1931) proves there is none.
- ``stable_matching``: deferred acceptance (Gale & Shapley 1962, via
  :func:`prefcert.oracles.stable_matching.deferred_acceptance`) gives the A-optimal stable
  matching; the whole lattice is enumerated from it by eliminating exposed rotations
  (Irving & Leather 1986; Gusfield & Irving 1989, §2.5), then filtered by the constraints.

Repairs: edit sets by increasing size (the first size with a feasible edit set is the
minimum), tight thresholds as Pareto-minimal attribute vectors, and conflicts (minimal
infeasible subsets by a deletion filter, with Hall violators for allocation) that miss
every smaller edit set and every failing edit set of the minimum size.

Not trusted: every answer carries a certificate the checker verifies. The objective
weights and the accepted-set rules below are the engine's own copies (deliberate twins of
the checker's definitions).
"""
from __future__ import annotations

import itertools
import json
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..formal.decision import (
    INTERVENTION,
    ConstraintSet,
    DecisionTask,
    World,
    action_json,
    stated,
    world_ranks,
)
from ..formal.outcome import Outcome
from .assignment import min_cost_assignment
from .stable_matching import _gale_shapley

MAX_COUNT_AGENTS = 16        # accepted allocations are counted (2^n DP) up to this size


def _canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"))


# --------------------------------------------------------------------------- objective twins

def rank_value(task: DecisionTask, objective: str, ranks: Sequence[int]) -> Any:
    """JSON value of an outcome (engine twin): utilitarian total rank, egalitarian worst
    rank, rank-maximal signature [s_1..s_R], leximin [s_R..s_1]."""
    if objective == "utilitarian":
        return sum(ranks)
    if objective == "egalitarian":
        return max(ranks)
    r = max(len(task.items), len(task.agents))
    s = [0] * r
    for k in ranks:
        s[k - 1] += 1
    return s if objective == "rank_maximal" else s[::-1]


def _order_key(objective: str, value: Any) -> Any:
    """Smaller is better."""
    if objective == "rank_maximal":
        return [-c for c in value]
    return value


def weight(task: DecisionTask, objective: str, rank: int) -> int:
    """Engine twin of the pair weights: max-weight perfect matchings are the optima."""
    b, r = len(task.agents) + 1, len(task.items)
    return {"utilitarian": -rank, "rank_maximal": b ** (r - rank),
            "leximin": -(b ** (rank - 1))}[objective]


def _accept_all(task: DecisionTask) -> bool:
    return task.source == "constraint" and task.reading["constraint_acceptance"] == "feasible"


# --------------------------------------------------------------------------- constraints

def _lifted(cs: ConstraintSet, ids: Iterable[str]) -> ConstraintSet:
    return cs.without(ids)


def feasible_items(task: DecisionTask, cs: ConstraintSet) -> list[str]:
    bad = set()
    for c in cs:
        if c.type == "unavailable":
            bad.add(c.item)
        elif c.type == "max":
            bad |= {i for i in task.items if task.attributes[i][c.attribute] > c.value}
    return [i for i in task.items if i not in bad]


def allowed(task: DecisionTask, cs: ConstraintSet) -> dict[str, set[str]]:
    """agent -> the items the constraints of ``cs`` leave it (a fresh dict of fresh
    sets). O(#agents · #items)."""
    if not cs.by_id:                                   # no constraint: every pair
        return {a: set(task.items) for a in task.agents}
    forbid = {(c.agent, c.item) for c in cs if c.type == "forbid"}
    req_a = {}
    req_i = {}
    for c in cs:
        if c.type == "require":
            req_a.setdefault(c.agent, set()).add(c.item)
            req_i.setdefault(c.item, set()).add(c.agent)
    out = {}
    for a in task.agents:
        ok = set()
        for i in task.items:
            if (a, i) in forbid:
                continue
            if a in req_a and req_a[a] != {i}:
                continue
            if i in req_i and req_i[i] != {a}:
                continue
            ok.add(i)
        out[a] = ok
    return out


def allowed_masks(task: DecisionTask, cs: ConstraintSet) -> list[int]:
    """:func:`allowed` as integers: per agent (in order) the bitmask of the items (bit
    ``j``: item ``j``) the constraints of ``cs`` leave it. O(#agents · #items)."""
    n, m = len(task.agents), len(task.items)
    full = (1 << m) - 1
    if not cs.by_id:
        return [full] * n
    ints = task.ints()
    ai, ii = ints.agent_index, ints.item_index
    masks = [full] * n
    req_a: dict[int, set[int]] = {}
    req_i: dict[int, set[int]] = {}
    for c in cs:
        if c.type == "forbid":
            masks[ai[c.agent]] &= ~(1 << ii[c.item])
        elif c.type == "require":
            a, i = ai[c.agent], ii[c.item]
            req_a.setdefault(a, set()).add(i)
            req_i.setdefault(i, set()).add(a)
    for a, its in req_a.items():             # a required agent keeps its one item only
        masks[a] &= 1 << next(iter(its)) if len(its) == 1 else 0
    for i, ags in req_i.items():             # a required item goes to its one agent only
        keep = next(iter(ags)) if len(ags) == 1 else -1
        for a in range(n):
            if a != keep:
                masks[a] &= ~(1 << i)
    return masks


def _name_order(task: DecisionTask) -> list[int]:
    """The item ints in the order of their names (the order :func:`max_matching` tries
    them in); kept on the task. O(m log m) the first time."""
    found: list[int] | None = task.__dict__.get("_oracle_name_order")
    if found is None:
        found = sorted(range(len(task.items)), key=task.items.__getitem__)
        object.__setattr__(task, "_oracle_name_order", found)   # a cache, not a field
    return found


def _max_matching_masks(masks: Sequence[int], order: Sequence[int]) -> list[int]:
    """:func:`max_matching` on bitmasks (items tried in ``order``): per agent its item,
    −1 when unmatched; the same matching as the name form with ``order`` the name
    order."""
    mate_i: dict[int, int] = {}
    cands = [[i for i in order if mask >> i & 1] for mask in masks]

    def augment(a: int, seen: set) -> bool:
        for i in cands[a]:
            if i in seen:
                continue
            seen.add(i)
            if i not in mate_i or augment(mate_i[i], seen):
                mate_i[i] = a
                return True
        return False

    for a in range(len(masks)):
        augment(a, set())
    mate = [-1] * len(masks)
    for i, a in mate_i.items():
        mate[a] = i
    return mate


def _hall_masks(task: DecisionTask, masks: Sequence[int], mate: Sequence[int]) -> list[str]:
    """:func:`hall_violator` on bitmasks: the names of the agents reachable from an
    unmatched agent by alternating paths of the maximum matching ``mate``, sorted."""
    mate_i = {i: a for a, i in enumerate(mate) if i >= 0}
    start = [a for a, i in enumerate(mate) if i < 0]
    seen = set(start)
    stack = list(start)
    m = len(task.items)
    while stack:
        a = stack.pop()
        mask = masks[a]
        for i in range(m):
            if mask >> i & 1:
                b = mate_i.get(i)
                if b is not None and b not in seen:
                    seen.add(b)
                    stack.append(b)
    return sorted(task.agents[a] for a in seen)


def _mate_json(task: DecisionTask, mate: Sequence[int]) -> dict[str, str]:
    """A perfect matching ``mate`` as the JSON action: agent -> item, by agent name."""
    items = task.items
    return dict(sorted(zip(task.agents, (items[i] for i in mate))))


# --------------------------------------------------------------------------- bipartite tools

def max_matching(adj: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """A maximum matching agent -> item (augmenting paths)."""
    mate_i: dict[str, str] = {}
    order = {a: sorted(adj[a]) for a in adj}          # each list sorted once

    def augment(a: str, seen: set) -> bool:
        for i in order[a]:
            if i in seen:
                continue
            seen.add(i)
            if i not in mate_i or augment(mate_i[i], seen):
                mate_i[i] = a
                return True
        return False

    for a in adj:
        augment(a, set())
    return {a: i for i, a in mate_i.items()}


def hall_violator(adj: Mapping[str, Iterable[str]], m: Mapping[str, str]) -> list[str]:
    """Agents reachable from an unmatched agent by alternating paths of the maximum
    matching ``m``: their neighbourhood is matched into the set, one short (König)."""
    mate_i = {i: a for a, i in m.items()}
    start = [a for a in adj if a not in m]
    seen = set(start)
    stack = list(start)
    while stack:
        a = stack.pop()
        for i in adj[a]:
            b = mate_i.get(i)
            if b is not None and b not in seen:
                seen.add(b)
                stack.append(b)
    return sorted(seen)


#: perfect-matching counts by the graph's item bitmasks per agent (bounded: cleared when
#: full): the worlds of one sampled group repeat their tight graphs and intersections
_COUNTS: dict[tuple[int, ...], int] = {}
_COUNTS_MAX = 1 << 16


def count_perfect(task: DecisionTask, adj: Mapping[str, set[str]]) -> int | None:
    """Number of perfect matchings of ``adj`` (DP over item subsets), None when too big.
    Kept per process by the graph (agent order, items as bits in item order)."""
    if len(task.agents) > MAX_COUNT_AGENTS:
        return None
    idx = {i: k for k, i in enumerate(task.items)}
    return _count_masks([sum(1 << idx[i] for i in adj[a]) for a in task.agents])


def _count_masks(masks: Sequence[int]) -> int | None:
    """:func:`count_perfect` of the graph with these item bitmasks per agent."""
    if len(masks) > MAX_COUNT_AGENTS:
        return None
    key = tuple(masks)
    got = _COUNTS.get(key)
    if got is not None:
        return got
    rows = [[1 << i for i in range(mask.bit_length()) if mask >> i & 1] for mask in masks]
    dp = {0: 1}
    for bits in rows:
        nd: dict[int, int] = {}
        get = nd.get
        for mask, c in dp.items():
            for bit in bits:
                if not mask & bit:
                    nm = mask | bit
                    nd[nm] = get(nm, 0) + c
        dp = nd
        if not dp:
            break
    total = sum(dp.values())
    if len(_COUNTS) >= _COUNTS_MAX:
        _COUNTS.clear()
    _COUNTS[key] = total
    return total


def hungarian(task: DecisionTask, w: Mapping[tuple[str, str], int]
              ) -> tuple[dict[str, str], dict[str, int], dict[str, int]] | None:
    """Maximum-weight perfect matching over the pairs of ``w`` with integral duals
    (u_a + v_i ≥ w(a, i) on those pairs, Σu + Σv = the optimum). None when there is no
    perfect matching. The shortest-augmenting-path Hungarian method in potentials,
    O(n³), exact in Python integers."""
    agents, items = list(task.agents), list(task.items)
    n = len(agents)
    big = 2 * n * (max((abs(x) for x in w.values()), default=0) + 1) + 1
    # 1-based rows and columns (row 0 / column 0 unused): cost[i][j]
    cost: list[list[Any]] = [[]] + [[0] + [-w[(a, i)] if (a, i) in w else big
                                           for i in items] for a in agents]
    p, u, v = min_cost_assignment(cost)
    match = {agents[p[j] - 1]: items[j - 1] for j in range(1, n + 1)}
    if any((a, i) not in w for a, i in match.items()):
        return None
    # min-cost duals (u_r + v_c ≤ cost) negate to max-weight duals (U + V ≥ w)
    ua = {agents[r - 1]: -u[r] for r in range(1, n + 1)}
    vi = {items[j - 1]: -v[j] for j in range(1, n + 1)}
    return match, ua, vi


# --------------------------------------------------------------------------- world solvers

class WorldResult:
    """One world's accepted set: ``feasible``; ``value`` (JSON) of the optimum; ``proof``
    (the certificate's world proof); ``members`` (explicit structures: canonical actions)
    or ``graph`` (allocation: the tight graph, per agent the bitmask of its items);
    ``count`` of accepted actions (None: unknown);
    ``example`` an accepted action (JSON)."""

    def __init__(self, feasible, value=None, proof=None, members=None, graph=None,
                 count=None, example=None):
        self.feasible, self.value, self.proof = feasible, value, proof
        self.members, self.graph, self.count, self.example = members, graph, count, example


def _explicit_world(task: DecisionTask, world: World, cs: ConstraintSet) -> WorldResult:
    feas = feasible_items(task, cs)
    if not feas:
        return WorldResult(False)
    if _accept_all(task):
        return WorldResult(True, None, {"accepted": feas}, frozenset(feas), count=len(feas),
                           example=feas[0])
    vals, keys = _item_values(task, world)
    best = min(keys[i] for i in feas)
    opt = [i for i in feas if keys[i] == best]
    value = vals[opt[0]]
    return WorldResult(True, list(value) if isinstance(value, list) else value,
                       {"accepted": opt}, frozenset(opt), count=len(opt), example=opt[0])


def _item_values(task: DecisionTask, world: World) -> tuple[dict[str, Any], dict[str, Any]]:
    """Single-choice structures: item -> its JSON value in ``world`` (:func:`rank_value`)
    and item -> its order key (smaller is better), for every item. Kept on the world
    (the constraints only choose which items count; the tasks of one parse share their
    worlds) with the names they were computed for. O(#agents · #items) the first time."""
    names = (task.agents, task.items)
    got = world.__dict__.get("_oracle_item_values")
    if got is None or got[0] != names:
        rk, obj = world_ranks(task, world)[1], world.objective
        vals = {i: rank_value(task, obj, [r[k] for r in rk])
                for k, i in enumerate(task.items)}
        got = (names, vals, {i: _order_key(obj, v) for i, v in vals.items()})
        object.__setattr__(world, "_oracle_item_values", got)   # a cache, not a field
    return got[1], got[2]


def _hungarian_masks(task: DecisionTask, masks: Sequence[int], wts: Sequence[Sequence[int]]
                     ) -> tuple[list[int], list[int], list[int]] | None:
    """:func:`hungarian` on the allowed bitmasks with ``wts[a][i]`` the pair weights:
    (mate, agent duals, item duals) in agent / item order, or None without a perfect
    matching. The same cost matrix, so the same optimum and duals. O(n³)."""
    n = len(masks)
    wmax = max((abs(wts[a][i]) for a in range(n) for i in range(n) if masks[a] >> i & 1),
               default=0)
    big = 2 * n * (wmax + 1) + 1
    cost: list[list[Any]] = [[]] + [[0] + [-wa[i] if mask >> i & 1 else big
                                           for i in range(n)]
                                    for mask, wa in zip(masks, wts)]
    p, u, v = min_cost_assignment(cost)
    mate = [0] * n
    for j in range(1, n + 1):
        mate[p[j] - 1] = j - 1
    if any(not masks[a] >> i & 1 for a, i in enumerate(mate)):
        return None
    return mate, [-u[r] for r in range(1, n + 1)], [-v[j] for j in range(1, n + 1)]


def _allocation_world(task: DecisionTask, world: World, cs: ConstraintSet) -> WorldResult:
    """An allocation world on integers: the allowed graph and the tight graphs as item
    bitmasks per agent (:func:`allowed_masks`), the world's rank arrays."""
    masks = allowed_masks(task, cs)
    order = _name_order(task)
    n, m = len(task.agents), len(task.items)
    if _accept_all(task):
        mate = _max_matching_masks(masks, order)
        if min(mate) < 0:
            return WorldResult(False)
        return WorldResult(True, None, {}, graph=masks, count=_count_masks(masks),
                           example=_mate_json(task, mate))
    lists, rk = world_ranks(task, world)
    obj = world.objective
    if obj == "egalitarian":
        prefix = []                        # per agent: the bitmasks of its first k items
        for a in range(n):
            acc, row = 0, [0]
            for i in lists[a]:
                acc |= 1 << i
                row.append(acc)
            prefix.append(row)
        # below the largest of the agents' first allowed ranks some agent's cut is empty,
        # so no matching there is perfect: start one below it (the last failing cut is the
        # Hall proof's), the same first perfect cut and proof as from k = 1
        start = 1
        if all(masks):
            start = max(1, max(next(k for k in range(1, m + 1) if mask & row[k])
                               for mask, row in zip(masks, prefix)) - 1)
        for k in range(start, m + 1):
            cut = [mask & row[k] for mask, row in zip(masks, prefix)]
            mate = _max_matching_masks(cut, order)
            if min(mate) >= 0:
                break
            prev = (cut, mate)
        else:
            return WorldResult(False)
        proof = {"optimum": _mate_json(task, mate),
                 "hall": _hall_masks(task, *prev) if k > 1 else None}
        return WorldResult(True, k, proof, graph=cut, count=_count_masks(cut),
                           example=_mate_json(task, mate))
    wr = [0] + [weight(task, obj, r) for r in range(1, m + 1)]
    wts = [[wr[r] for r in rk[a]] for a in range(n)]
    got = _hungarian_masks(task, masks, wts)
    if got is None:
        return WorldResult(False)
    mate, u, v = got
    tight = []
    for a, mask in enumerate(masks):
        ua, wa, t = u[a], wts[a], 0
        for i in range(m):
            if mask >> i & 1 and ua + v[i] == wa[i]:
                t |= 1 << i
        tight.append(t)
    value = rank_value(task, obj, [rk[a][i] for a, i in enumerate(mate)])
    proof = {"optimum": _mate_json(task, mate),
             "duals": {"agents": dict(zip(task.agents, u)), "items": dict(zip(task.items, v))}}
    return WorldResult(True, value, proof, graph=tight, count=_count_masks(tight),
                       example=_mate_json(task, mate))


def stable_lattice(task: DecisionTask, world: World) -> list[dict[str, str]]:
    """Every stable matching of the world's complete strict lists, as agent -> item
    dicts (:func:`lattice_ints` in names)."""
    lists, ranks = world_ranks(task, world)
    agents, items = task.agents, task.items
    return [{agents[a]: items[b] for a, b in enumerate(m)}
            for m in lattice_ints(lists, ranks, len(agents))]


def lattice_ints(lists: Sequence[Sequence[int]], ranks: Sequence[Sequence[int]], n: int
                 ) -> list[tuple[int, ...]]:
    """Every stable matching of complete strict integer lists (agents ``0..n-1`` rank the
    items, party ``n + b`` ranks the agents; ``ranks`` 1-based, as
    :func:`~prefcert.formal.decision.world_ranks`), each as ``mate[a]`` = agent ``a``'s
    item: deferred acceptance gives the A-optimal one, then exposed rotations are
    eliminated breadth first (each stable matching is reached from the A-optimal one;
    Gusfield & Irving 1989, §2.5). O(L) per stable matching found."""
    ra, rb = ranks[:n], ranks[n:]
    holds, _ = _gale_shapley([list(x) for x in lists[:n]], rb)
    first = [0] * n
    for b, a in enumerate(holds):
        first[a] = b
    m0 = tuple(first)
    seen = {m0}
    out: list[tuple[int, ...]] = []
    queue = deque([m0])
    while queue:
        m = queue.popleft()
        out.append(m)
        inv = [0] * n
        for a, b in enumerate(m):
            inv[b] = a
        s: dict[int, int] = {}
        for a in range(n):
            for b in lists[a][ra[a][m[a]]:]:            # the items a ranks below its own
                rkb = rb[b]
                if rkb[a] < rkb[inv[b]]:
                    s[a] = b
                    break
        nxt = {a: inv[b] for a, b in s.items()}
        done: set[int] = set()
        for start in range(n):
            path: list[int] = []
            pos: dict[int, int] = {}
            a = start
            while a in nxt and a not in done and a not in pos:
                pos[a] = len(path)
                path.append(a)
                a = nxt[a]
            if a in pos:                                   # a cycle: an exposed rotation
                m2 = list(m)
                for x in path[pos[a]:]:
                    m2[x] = s[x]
                key = tuple(m2)
                if key not in seen:
                    seen.add(key)
                    queue.append(key)
            done.update(path)
    return out


def _matching_ok_ints(pairs: Sequence[tuple[bool, int, int]], m: Sequence[int]) -> bool:
    """Does the matching ``mate`` satisfy the (forced?, agent, item) pair constraints?"""
    for forced, a, b in pairs:
        if (m[a] == b) != forced:
            return False
    return True


def _matching_world(task: DecisionTask, world: World, cs: ConstraintSet,
                    cache: dict) -> WorldResult:
    lists, rk = world_ranks(task, world)
    if lists not in cache:                 # the lattice reads the lists only
        cache[lists] = lattice_ints(lists, rk, len(task.agents))
    stable = cache[lists]
    ints = task.ints()
    ai, ii, n = ints.agent_index, ints.item_index, len(task.agents)
    pairs = [(c.type == "forced", ai[c.agent], ii[c.item]) for c in cs]
    ra, rb = rk[:n], rk[n:]
    obj = world.objective
    if obj == "a_optimal":
        def val(m):
            return sum(ra[a][b] for a, b in enumerate(m))
    elif obj == "b_optimal":
        def val(m):
            return sum(rb[b][a] for a, b in enumerate(m))
    elif obj == "egalitarian":
        def val(m):
            return sum(ra[a][b] + rb[b][a] for a, b in enumerate(m))
    else:
        def val(m):
            return max(max(ra[a][b], rb[b][a]) for a, b in enumerate(m))
    if task.reading["matching_constraints"] == "da_only":
        vals = [val(m) for m in stable]
        best = min(vals)
        cand = [m for m, v in zip(stable, vals) if v == best and _matching_ok_ints(pairs, m)]
        value = None if _accept_all(task) else best
    else:
        feas = [m for m in stable if _matching_ok_ints(pairs, m)]
        if _accept_all(task):
            cand, value = feas, None
        else:
            vals = [val(m) for m in feas]
            value = min(vals) if vals else None
            cand = [m for m, v in zip(feas, vals) if v == value]
    if not cand:
        return WorldResult(False)
    agents, items = task.agents, task.items
    keys = [tuple(sorted(zip(agents, (items[b] for b in m)))) for m in cand]
    return WorldResult(True, value, {"accepted": [dict(k) for k in keys]}, frozenset(keys),
                       count=len(cand), example=dict(keys[0]))


def solve_world(task: DecisionTask, world: World, cs: ConstraintSet,
                cache: dict | None = None) -> WorldResult:
    """Accepted set of ``world`` under ``cs`` with its proof."""
    if task.structure == "allocation":
        return _allocation_world(task, world, cs)
    if task.structure == "stable_matching":
        return _matching_world(task, world, cs, {} if cache is None else cache)
    return _explicit_world(task, world, cs)


def _intersect(task: DecisionTask, results: Sequence[WorldResult]
               ) -> tuple[Any, dict | None, int | None]:
    """(shared action or None, disjointness proof, number of shared actions)."""
    if task.structure != "allocation":
        common = frozenset.intersection(*(r.members for r in results))
        if not common:
            return None, None, 0
        # the first in canonical-JSON order (one action: no encoding needed)
        x = next(iter(common)) if len(common) == 1 else min(common, key=_canon)
        return action_json(task, x), None, len(common)
    masks = list(results[0].graph)
    for r in results[1:]:
        masks = [x & y for x, y in zip(masks, r.graph)]
    mate = _max_matching_masks(masks, _name_order(task))
    if min(mate) >= 0:
        return _mate_json(task, mate), None, _count_masks(masks)
    return None, {"hall": _hall_masks(task, masks, mate)}, 0


def _world_entry(w: World, r: WorldResult) -> dict:
    return {"world": w.descriptor(), "proof": r.proof}


def _summary(worlds: Sequence[World], results: Sequence[WorldResult]) -> list[dict]:
    return [{"world": w.descriptor(), "value": r.value, "accepted": r.count}
            for w, r in zip(worlds, results)]


def _counts(worlds: Sequence[World], results: Sequence[WorldResult]) -> list[dict]:
    return [{"world": w.descriptor(), "accepted": r.count} for w, r in zip(worlds, results)]


# --------------------------------------------------------------------------- repairs

def _feasible(task: DecisionTask, world: World, cs: ConstraintSet, cache: dict) -> bool:
    if task.structure == "allocation":
        return min(_max_matching_masks(allowed_masks(task, cs), _name_order(task))) >= 0
    if task.structure == "stable_matching":
        return _matching_world(task, world, cs, cache).feasible
    return bool(feasible_items(task, cs))


def _conflict(task: DecisionTask, world: World, cs: ConstraintSet, cache: dict) -> dict:
    """A minimal infeasible subset of the (infeasible) ``cs`` by a deletion filter, with a
    Hall violator for allocation."""
    keep = list(cs.by_id)
    for cid in list(keep):
        trial = [c for c in keep if c != cid]
        if not _feasible(task, world, cs.subset(trial), cache):
            keep = trial
    out: dict[str, Any] = {"constraints": keep}
    if task.structure == "allocation":
        masks = allowed_masks(task, cs.subset(keep))
        out["hall"] = _hall_masks(task, masks, _max_matching_masks(masks, _name_order(task)))
    return out


def tight_vectors(task: DecisionTask, edit_set: Sequence[str]) -> list[dict[str, int]]:
    """Engine twin: Pareto-minimal threshold vectors of an edit set (apartment)."""
    cs = stated(task)
    raises = [c for c in edit_set if cs.by_id[c].type == "max"]
    if not raises:
        return [{}]
    feas = feasible_items(task, cs.without(edit_set))
    vecs = sorted({tuple(task.attributes[i][cs.by_id[c].attribute] for c in raises)
                   for i in feas})
    out = []
    for v in vecs:
        if any(u != v and all(x <= y for x, y in zip(u, v)) for u in vecs):
            continue
        if all(x > cs.by_id[c].value for c, x in zip(raises, v)):
            out.append(dict(zip(raises, v)))
    return out


def repairs(task: DecisionTask, world: World, cache: dict, *, conflicts: bool = True
            ) -> dict:
    """Every minimum repair (with action and proof) and the conflicts proving minimality
    and completeness: the ``minimum_repair`` certificate without its type.
    ``conflicts=False`` (the samplers' judge, which reads no certificate): the same edits,
    repairs, actions and values, without the conflicts (an empty list): the deletion
    filters that only the certificate reads are not run."""
    cs = stated(task)
    permitted = list(task.permitted)
    found: list[tuple[str, ...]] = []
    k = 0
    for k in range(1, len(permitted) + 1):
        found = [e for e in itertools.combinations(permitted, k)
                 if _feasible(task, world, _lifted(cs, e), cache)]
        if found:
            break
    proofs = conflicts
    conflicts: list[dict] = []

    def cover(edit_set: Sequence[str]) -> None:
        if not proofs:
            return
        s = set(edit_set)
        if any(not (set(c["constraints"]) & s) for c in conflicts):
            return
        conflicts.append(_conflict(task, world, _lifted(cs, edit_set), cache))

    if not found:
        cover(permitted)
        return {"edits": None, "conflicts": conflicts, "repairs": []}
    for e in itertools.combinations(permitted, k - 1):
        cover(e)
    fset = set(found)
    for e in itertools.combinations(permitted, k):
        if e not in fset:
            cover(e)
    out = []
    for e in found:
        for values in tight_vectors(task, e):
            edits = {c: values.get(c) for c in e}
            rcs = cs.edited(edits)
            r = solve_world(task, world, rcs, cache)
            out.append({"edits": [{"constraint": c, **({"value": values[c]} if c in values
                                                        else {})} for c in e],
                        "action": r.example, "proof": r.proof, "value": r.value})
    return {"edits": k, "conflicts": conflicts, "repairs": out}


# --------------------------------------------------------------------------- the engine

def world_key(task: DecisionTask, world: World, cs: ConstraintSet) -> tuple:
    """Everything :func:`solve_world` reads, as a hashable key: the structure, source and
    readings, the names in order, the attributes, the world's complete lists and
    objective, and the constraints in force. Two (task, world, cs) with equal keys have
    equal world results. O(size)."""
    head = task.__dict__.get("_world_key_head")
    if head is None:                  # the task's part, once per task (a cache, not a field)
        head = (task.structure, task.source, task.agents, task.items,
                tuple(sorted(task.reading.items())),
                tuple((i, tuple(sorted(a.items()))) for i, a in task.attributes.items()))
        object.__setattr__(task, "_world_key_head", head)
    lists = world.__dict__.get("_oracle_lists")
    if lists is None:                 # the world's part, once per world (shared worlds)
        lists = tuple(world.prefs.items())
        object.__setattr__(world, "_oracle_lists", lists)
    return (head, lists, world.objective, tuple(cs))


#: single-choice item ranks per flattened-lists object (a lineage's shared lists, held so
#: its id is not reused while kept): id -> (lists, item -> agents' ranks in agent order,
#: objective -> (item -> JSON value, item -> order key)); bounded, cleared when full
_SWAPS: dict[int, tuple[Any, dict[str, list[int]], dict[str, tuple[dict, dict]]]] = {}
_SWAPS_MAX = 4096


def _hidden_swap(task: DecisionTask) -> Outcome | None:
    """:func:`decide` without a certificate for the samplers' commonest candidate: a
    single-choice task (scheduling, apartment) of the preference source, one objective, no
    constraints, and one hidden block of two adjacent items. Its two worlds are the lists
    as written and the same with the pair swapped, so the second world's item values are
    the first's except for the two items (one agent's two ranks exchanged). The same
    verdict and stats as the general path (tested); None for any other task.
    O(#agents · #items) per lineage and objective, then O(#items)."""
    if task.structure not in ("scheduling", "apartment") or task.source != "preference" \
            or task.constraints or len(task.objectives) != 1 or not task.items:
        return None
    blocks = task.unknown_blocks()
    if len(blocks) != 1 or len(blocks[0][1]) != 2:
        return None
    (party, (a, b)), = blocks
    flat = task._flat_lists()
    got = _SWAPS.get(id(flat))
    if got is None or got[0] is not flat or got[1].keys() != set(task.items):
        ranks = {i: [0] * len(task.agents) for i in task.items}
        for k, ag in enumerate(task.agents):
            for r, i in enumerate(flat[ag], 1):
                ranks[i][k] = r
        if len(_SWAPS) >= _SWAPS_MAX:
            _SWAPS.clear()
        got = _SWAPS[id(flat)] = (flat, ranks, {})
    _, ranks, per_obj = got
    obj = task.objectives[0]
    base = per_obj.get(obj)
    if base is None:
        vals = {i: rank_value(task, obj, ranks[i]) for i in task.items}
        base = per_obj[obj] = (vals, {i: _order_key(obj, v) for i, v in vals.items()})
    vals0, keys0 = base
    k = task.agents.index(party)
    swapped = {}
    for x, y in ((a, b), (b, a)):
        rs = list(ranks[x])
        rs[k] = ranks[y][k]
        v = rank_value(task, obj, rs)
        swapped[x] = (v, _order_key(obj, v))
    keys1 = {**keys0, a: swapped[a][1], b: swapped[b][1]}
    vals1 = {**vals0, a: swapped[a][0], b: swapped[b][0]}
    order = list(flat[party])
    i0 = order.index(a)
    order1 = order[:i0] + [b, a] + order[i0 + 2:]
    summary, accepted = [], []
    for o, keys, vals in ((order, keys0, vals0), (order1, keys1, vals1)):
        best = min(keys.values())
        opt = [i for i in task.items if keys[i] == best]
        value = vals[opt[0]]
        summary.append({"world": {"preferences": {party: list(o)}, "objective": obj},
                        "value": list(value) if isinstance(value, list) else value,
                        "accepted": len(opt)})
        accepted.append(set(opt))
    shared = len(accepted[0] & accepted[1])
    stats: dict[str, Any] = {"worlds": summary, "hidden": 1, "shared": shared}
    return Outcome("act" if shared else INTERVENTION[task.source], None, None, stats)


def decide(task: DecisionTask, memo: dict | None = None, *, certificate: bool = True
           ) -> Outcome:
    """The oracle's label: verdict, solution and certificate (see the module docstring).
    ``stats["worlds"]`` lists every world's optimum value and number of accepted actions;
    ``stats["shared"]`` the number of shared accepted actions (None: not counted).

    ``memo``: a dict kept by the caller across calls on related tasks (the candidates of
    one sampled group share most of their worlds): world results by :func:`world_key`,
    reused instead of re-solved. The outcome is the same with or without it, but its
    certificate may then share world proofs with another outcome's (read them, do not
    mutate them). ``certificate=False`` (the samplers' judge): the verdict and ``stats``
    only (for relax also the solution, whose repairs the samplers read), without building
    the certificate. O(worlds × one world's solve), a memo hit O(size)."""
    if not certificate:
        fast = _hidden_swap(task)
        if fast is not None:
            return fast
    cs = stated(task)
    worlds = task.worlds()
    cache: dict = {}
    if memo is None:
        results = [solve_world(task, w, cs, cache) for w in worlds]
    else:
        results = []
        for w in worlds:
            key = world_key(task, w, cs)
            r = memo.get(key)
            if r is None:
                r = memo[key] = solve_world(task, w, cs, cache)
            results.append(r)
    stats: dict[str, Any] = {"worlds": _summary(worlds, results),
                             "hidden": len(task.hidden_pairs())}
    if task.source == "constraint":
        (w,), (r,) = worlds, results
        if r.feasible:
            stats["shared"] = r.count
            if not certificate:
                return Outcome("act", None, None, stats)
            cert = {"type": "shared_action", "action": r.example,
                    "worlds": [_world_entry(w, r)]}
            stats["shared"] = r.count
            sol = {"action": r.example, "worlds": _counts(worlds, results), "shared": r.count}
            return Outcome("act", sol, cert, stats)
        rep = repairs(task, w, cache, conflicts=certificate)
        stats["repair_values"] = [x.pop("value") for x in rep["repairs"]]
        sol = {"edits": rep["edits"],
               "repairs": [{"edits": x["edits"], "action": x["action"]}
                           for x in rep["repairs"]]}
        if not certificate:      # no conflicts were computed: no certificate to give
            return Outcome("relax", sol, None, stats)
        return Outcome("relax", sol, {"type": "minimum_repair", **rep}, stats)
    if not all(r.feasible for r in results):
        raise ValueError("a world of a preference/objective task is infeasible")
    x, disjoint, shared = _intersect(task, results)
    stats["shared"] = shared
    if not certificate:
        return Outcome("act" if x is not None else INTERVENTION[task.source], None, None,
                       stats)
    if x is not None:
        cert = {"type": "shared_action", "action": x,
                "worlds": [_world_entry(w, r) for w, r in zip(worlds, results)]}
        sol = {"action": x, "worlds": _counts(worlds, results), "shared": shared}
        return Outcome("act", sol, cert, stats)
    verdict = INTERVENTION[task.source]
    entries = [_world_entry(w, r) for w, r in zip(worlds, results)]
    if verdict == "ask_objective":
        cert = {"type": "objective_conflict", "objectives": list(task.objectives),
                "worlds": entries, "disjoint": disjoint}
        return Outcome(verdict, {"objectives": list(task.objectives),
                                 "worlds": _counts(worlds, results)}, cert, stats)
    agent, pair = pivotal(task, worlds, results)
    cert = {"type": "pivotal_comparison", "agent": agent, "items": pair, "worlds": entries,
            "disjoint": disjoint}
    return Outcome(verdict, {"agent": agent, "items": pair,
                             "worlds": _counts(worlds, results)}, cert, stats)


def pivotal(task: DecisionTask, worlds: Sequence[World], results: Sequence[WorldResult]
            ) -> tuple[str, list[str]]:
    """The comparison to ask about: the only hidden pair; with several, the first hidden
    pair whose two orders (every other unknown resolved alike) ever lead to accepted sets
    that share nothing, else the first hidden pair."""
    hidden = task.hidden_pairs()
    if len(hidden) == 1:
        p, a, b = hidden[0]
        return p, [a, b]
    index = {_canon(w.descriptor()): r for w, r in zip(worlds, results)}
    for p, a, b in hidden:
        for w in worlds:
            o = list(w.completion[p])
            ia, ib = o.index(a), o.index(b)
            if ia > ib or abs(ia - ib) != 1:
                continue
            o[ia], o[ib] = o[ib], o[ia]
            twin = {"preferences": {**{q: list(v) for q, v in w.completion.items()}, p: o},
                    "objective": w.objective}
            r2 = index.get(_canon(twin))
            if r2 is not None and _intersect(task, [index[_canon(w.descriptor())], r2])[0] \
                    is None:
                return p, [a, b]
    p, a, b = hidden[0]
    return p, [a, b]


def oracle(task: DecisionTask, params: Any = None, *, time_limit: float = 10.0,
           seed: int = 0) -> Outcome:
    """Engine signature wrapper of :func:`decide`."""
    return decide(task)


__all__ = ["decide", "hungarian", "oracle", "repairs", "solve_world", "stable_lattice",
           "world_key"]

