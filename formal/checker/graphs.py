"""Plain graph steps the certificate checks need: strongly connected components,
reachability and maximum bipartite matching, in the standard library only.

Graphs are adjacency mappings ``node -> iterable of successors``; every node must be a key.
The engines use networkx / scipy for the same steps, so a bug here cannot make an engine
and the checker agree.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable, Mapping


def strongly_connected_components(adj: Mapping[Hashable, Iterable[Hashable]]
                                  ) -> dict[Hashable, int]:
    """Component index of every node (Tarjan 1972, iterative). O(V + E)."""
    index: dict = {}
    low: dict = {}
    comp: dict = {}
    stack: list = []
    on_stack: set = set()
    counter = components = 0
    for root in adj:
        if root in index:
            continue
        work = [(root, iter(adj[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(adj[w])))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = components
                    if w == v:
                        break
                components += 1
    return comp


def reachable(adj: Mapping[Hashable, Iterable[Hashable]], sources: Iterable[Hashable]) -> set:
    """Every node reachable from ``sources`` (the sources included). O(V + E)."""
    seen = set(sources)
    queue = deque(seen)
    while queue:
        for w in adj[queue.popleft()]:
            if w not in seen:
                seen.add(w)
                queue.append(w)
    return seen


def maximum_bipartite_matching(adj: Mapping[Hashable, Iterable[Hashable]]) -> dict:
    """A maximum matching of a bipartite graph given as left vertex -> right neighbours,
    returned as right vertex -> left vertex.

    A greedy pass first (each left vertex takes its first free neighbour), then phases of
    augmenting-path searches (Kuhn 1955) from the free left vertices that share one visited
    set; phases repeat until one finds no augmenting path, and in that phase the shared
    set is exact, so the matching is maximum. Each phase is O(V + E); a complete bipartite
    graph is matched by the greedy pass alone in O(E). Worst case O(V·E)."""
    adj = {x: ys if isinstance(ys, (list, tuple)) else list(ys) for x, ys in adj.items()}
    mate: dict = {}
    free = []
    for x, ys in adj.items():
        for y in ys:
            if y not in mate:
                mate[y] = x
                break
        else:
            free.append(x)
    while free:
        seen: set = set()
        still = []
        for root in free:
            if not _augment_from(root, adj, mate, seen):
                still.append(root)
        if len(still) == len(free):
            break
        free = still
    return mate


def _augment_from(root, adj, mate: dict, seen: set) -> bool:
    """One augmenting path from ``root`` by iterative depth-first search, right vertices
    in ``seen`` skipped (and added); flips the path and returns True when one is found."""
    stack = [(root, iter(adj[root]))]
    via: list = []                               # right vertices on the current path
    while stack:
        it = stack[-1][1]
        y = None
        for cand in it:
            if cand not in seen:
                y = cand
                break
        if y is None:
            stack.pop()
            if via:
                via.pop()
            continue
        seen.add(y)
        via.append(y)
        if y not in mate:
            for (xx, _), yy in zip(stack, via):
                mate[yy] = xx
            return True
        stack.append((mate[y], iter(adj[mate[y]])))
    return False
