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
    returned as right vertex -> left vertex (augmenting paths, Kuhn 1955). O(V·E)."""
    mate: dict = {}
    for root in adj:
        seen: set = set()
        stack = [(root, iter(adj[root]))]
        via: list = []                           # right vertices on the current path
        while stack:
            x, it = stack[-1]
            y = next((y for y in it if y not in seen), None)
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
                break
            stack.append((mate[y], iter(adj[mate[y]])))
    return mate
