"""Samplers of the two benchmark designs of Khanna & Wang, "Preference reasoning under
indeterminacy in large language models" (2026): impartial-culture profiles from
prefsampling, then the paper's post-processing.

- :func:`strict_profile`: impartial culture (every list a uniform permutation; Black 1958),
  the permutations of prefsampling's ``impartial``.
- :func:`truncate`: cut a list to a length uniform in [⌊n/2⌋, n] (SI lists).
- :func:`two_tie_groups`: the epistemic TO lists: two disjoint runs of adjacent items merged
  into ties, at least one item left untied.
- :func:`merge_adjacent`: the algorithmic TO lists: each adjacent pair merged into one tie
  independently with probability p (0.3 housing markets, 0.2 matching).
- :func:`latent_dag`: an Erdős–Rényi DAG whose arcs follow a hidden total order, optionally
  with a planted chain of a given length.
- :func:`choice_data`: choice observations (subset, chosen) drawn from a hidden order.

Every function takes a :class:`numpy.random.Generator` (or a seed) and is deterministic
given it.
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import compress

import numpy as np

from .stable_matching import merge_ties


def strict_profile(n_agents: int, items: Sequence[str], rng: np.random.Generator) -> list[list[str]]:
    """``n_agents`` impartial-culture orders of ``items``, best first: prefsampling's
    ``impartial`` (one permutation per agent from a generator seeded by one draw of
    ``rng``), the same permutations read as Python ints in one ``tolist`` each rather than
    as numpy scalars (tests/test_algorithmic_speed.py pins the two equal). O(n·m)."""
    if not n_agents or not items:
        return [[] for _ in range(n_agents)]
    m = len(items)
    seed = int(rng.integers(2 ** 32))
    r = np.random.default_rng(seed)
    get = items.__getitem__
    return [list(map(get, r.permutation(m).tolist())) for _ in range(n_agents)]


def truncate(order: Sequence, rng: np.random.Generator, low: int | None = None) -> list:
    """The first L items of ``order``, L uniform in [``low``, n] (default ``low`` = ⌊n/2⌋)."""
    n = len(order)
    low = n // 2 if low is None else low
    return list(order[:int(rng.integers(low, n + 1))])


def merge_adjacent(order: Sequence[str], p: float, rng: np.random.Generator) -> list:
    """Each item joins the tie of the item before it with probability ``p`` (nested lists
    for ties)."""
    return merge_ties(list(order), p, rng)


def merge_adjacent_all(orders: Sequence[Sequence[str]], p: float,
                       rng: np.random.Generator) -> list[list]:
    """:func:`merge_adjacent` of each order in turn, with the same numbers: one uniform per
    item after the first of each list (when ``p`` > 0), drawn as one array for all lists
    (a generator's doubles come in the same sequence however the draws are split); an item
    starts a new tie where its uniform is not below ``p`` (compared in numpy: the same
    doubles, the same comparisons), and each list is cut at those items by slices. O(L)."""
    lens = [len(o) - 1 if p > 0 and len(o) > 1 else 0 for o in orders]
    total = sum(lens)
    starts = (rng.random(total) >= p).tolist() if total else []
    out: list[list] = []
    pos = 0
    for o, k in zip(orders, lens):
        if not k:
            out.append(list(o))
            continue
        cuts = [0, *compress(range(1, k + 1), starts[pos:pos + k]), k + 1]
        pos += k
        out.append([o[a] if b - a == 1 else list(o[a:b]) for a, b in zip(cuts, cuts[1:])])
    return out


def two_tie_groups(order: Sequence[str], rng: np.random.Generator, *, min_len: int = 2,
                   max_len: int = 5) -> list:
    """Merge two disjoint, non-adjacent runs of ``order`` (lengths uniform in [``min_len``,
    ``max_len``]) into ties; at least one item stays untied. Returns the nested-list form.
    Raises ValueError when the list is too short for two such runs."""
    n = len(order)
    if n < 2 * min_len + 1:
        raise ValueError(f"a list of {n} items cannot hold two ties of {min_len}")
    while True:
        a, b = (int(x) for x in rng.integers(min_len, max_len + 1, size=2))
        if a + b + 1 > n:
            continue
        s1 = int(rng.integers(0, n - a - b))          # room for a gap of at least one item
        s2 = int(rng.integers(s1 + a + 1, n - b + 1))
        break
    out: list = []
    i = 0
    while i < n:
        if i == s1:
            out.append(list(order[i:i + a]))
            i += a
        elif i == s2:
            out.append(list(order[i:i + b]))
            i += b
        else:
            out.append(order[i])
            i += 1
    return out


def latent_dag(items: Sequence[str], n_edges: int, rng: np.random.Generator, *,
               chain: int = 0) -> tuple[list[str], list[list[str]], list[str]]:
    """A DAG over ``items`` consistent with a hidden order: ``(order, edges, chain)``.

    The hidden order is a uniform permutation; ``chain`` > 0 plants a path of that many arcs
    between items in increasing hidden position (returned as the list of its nodes); the
    other arcs are drawn uniformly among the remaining forward pairs (Erdős–Rényi G(n, M)
    on the pairs oriented by the order) until there are ``n_edges`` arcs. Each arc [a, b]
    means a ≻ b. Raises ValueError when ``n_edges`` < ``chain`` or exceeds the pairs.
    """
    n = len(items)
    if chain > n_edges or n_edges > n * (n - 1) // 2 or chain >= n:
        raise ValueError(f"cannot place {n_edges} arcs with a chain of {chain} on {n} items")
    order = [items[int(j)] for j in rng.permutation(n)]
    pos = {x: i for i, x in enumerate(order)}
    edges: dict[tuple[str, str], None] = {}
    path: list[str] = []
    if chain:
        idx = sorted(int(j) for j in rng.choice(n, size=chain + 1, replace=False))
        path = [order[j] for j in idx]
        for a, b in zip(path, path[1:]):
            edges[(a, b)] = None
    while len(edges) < n_edges:
        i, j = (int(x) for x in rng.choice(n, size=2, replace=False))
        a, b = (order[i], order[j]) if i < j else (order[j], order[i])
        edges.setdefault((a, b), None)
    out = sorted(edges, key=lambda e: (pos[e[0]], pos[e[1]]))
    shuffled = [list(out[int(k)]) for k in rng.permutation(len(out))]
    return order, shuffled, path


def choice_data(items: Sequence[str], n_pairs: int, rng: np.random.Generator, *,
                sizes: Sequence[int] = (2, 3, 4)) -> tuple[list[str], list[list]]:
    """Choice observations from a hidden uniform order: ``(order, choices)``.

    Each observation offers a uniform subset (its size uniform in ``sizes``) and records
    the hidden order's best item of it, which entails chosen ≻ every other offered item.
    Observations are drawn until they entail at least ``n_pairs`` distinct pairs.
    """
    n = len(items)
    order = [items[int(j)] for j in rng.permutation(n)]
    pos = {x: i for i, x in enumerate(order)}
    pairs: set = set()
    choices: list[list] = []
    while len(pairs) < n_pairs:
        k = int(sizes[int(rng.integers(len(sizes)))])
        subset = [items[int(j)] for j in rng.choice(n, size=min(k, n), replace=False)]
        best = min(subset, key=pos.__getitem__)
        new = {(best, x) for x in subset if x != best}
        if new <= pairs:
            continue
        pairs |= new
        choices.append([subset, best])
    return order, choices
