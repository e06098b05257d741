"""Epistemic queries over incomplete, tied and partial preferences: the model.

**Data.** Each agent gives one of
  - ``{"order": [...]}``: a weak order, best first, a nested list being a tie;
  - ``{"edges": [[a, b], ...]}``: a partial order given by pairs ``a ≻ b`` (a cycle is bad
    input, reported with the cycle);
  - ``{"choices": [[[subset...], chosen], ...]}``: choice data; each pair entails
    ``chosen ≻ x`` for every other ``x`` of the subset (a cycle is bad input);
  - optional ``"count"`` (positive int, default 1): that many voters gave this datum
    (PrefLib multiplicities). A bare list is shorthand for ``{"order": list}``.

Every datum is read as a *strict partial order* ``P_i`` over ``items`` (the transitive
closure of its base relation). **Ties are unknown orders, not indifference**: two tied
items are incomparable in ``P_i``. An incomplete ``order`` is read under the instance's
``"semantics"``: ``unknown`` (an unlisted item is incomparable to every item; default for
JSON instances) or ``truncated`` (unlisted items rank below every listed item and are
unordered among themselves; default of PrefLib ballots, :mod:`formal.preflib`). Edges and
choices never mention unlisted items, so the semantics does not apply to them. The CLI can
override the semantics by setting ``data["semantics"]`` before parsing; every label records
it through the instance hash.

**Completions.** A completion of agent i is a linear extension of ``P_i`` over all items
(a tie-breaking). A profile completion picks one completion per *voter* (the ``count``
voters of one agent may complete differently; under the ``counts = identical`` convention
they are one weighted voter and complete alike). The readings of :data:`CONVENTIONS`
(``counts``, ``majority``, ``rs``, ``pair_count``) are chosen per instance in
``"conventions"``.

**Queries** (Konczak & Lang 2005; Xia & Conitzer 2011), written as objects ``{"type": name,
params}``, each registered once with :func:`query` (:data:`QUERIES`: its fields, verdicts,
field checks and value in a completion; :data:`PARAMS`). Each is a function ``value(σ)``
of a completion; the answer is ``true``/``false`` (boolean, same value in every
completion), ``determined`` with ``solution={"value": v}`` (non-boolean, same value
everywhere), or ``undetermined`` (two completions with different values).

Co-winner semantics for ``winner``: c wins a completed profile iff no item has a strictly
higher score. Plurality: 1 point for the top; Borda: number of items ranked below;
Copeland: (#pairwise wins) − (#pairwise losses) (equivalent to Copeland^½). ``winner``
is ``true`` iff c is a necessary (co-)winner, ``false`` iff c is not a possible (co-)winner.

The certificate checks are in :mod:`formal.checker.preference`; the engines compute the same
values with their own code.
"""
from __future__ import annotations

import heapq
from itertools import repeat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .errors import CertificateError, InstanceError
from .rules import rule_named
from .spec import NULL, Convention, Solution, check_params, fields, read_conventions
from .weak_order import WeakOrder, parse_weak_order

SEMANTICS = ("unknown", "truncated")
#: Readings where the literature uses two (the first is the default; see README).
CONVENTIONS: dict[str, Convention] = {
    "counts": Convention("counts", ("independent", "identical"), {
        "independent": "the count voters of an agent are voters: each completes on its own "
                       "(PrefLib multiplicities of identical ballots)",
        "identical": "an agent with count c is one voter of weight c: its voters complete "
                     "alike (weighted voters, Conitzer, Sandholm & Lang 2007)"}),
    "majority": Convention("majority", ("all_voters", "ranked"), {
        "all_voters": "a strict majority of all voters, in every / some completion (a voter "
                      "who leaves the pair unordered may go either way)",
        "ranked": "pairwise tabulation: more voters state a over b than b over a; a voter "
                  "who leaves the pair unordered abstains (no completions)"}),
    "rs": Convention("rs", ("monotone", "equal_size"), {
        "monotone": "A ⪰_RS B iff an injection maps B into A, each item to one at least as "
                    "good (adding a good never hurts; bundles of any sizes)",
        "equal_size": "as monotone, but bundles of different sizes are never related"}),
    # added after count labels were published: recorded only when not the default
    "pair_count": Convention("pair_count", ("completions", "stated"), {
        "completions": "count counts the voters with a ≻ b in a completion: determined only "
                       "when every voter orders the pair, else the range over completions",
        "stated": "count counts the voters whose data entail a ≻ b (a voter leaving the "
                  "pair unordered does not prefer a): always determined, the range's "
                  "minimum (Khanna & Wang 2026, Table 8)"}, record_default=False),
}

# Voters per ballot line: beyond this, sums over a profile would overflow the engines'
# 64-bit tallies (10^6 distinct lines of 10^12 voters stay below 2^63).
MAX_COUNT = 10**12


# --------------------------------------------------------------------------- model

@dataclass(frozen=True)
class Agent:
    """One agent's datum. ``kind``: order|edges|choices; ``count`` voters gave it.

    ``order``: the WeakOrder (kind order); ``pairs``: the base pairs a ≻ b (edges/choices);
    ``succ``: item -> items directly below (base relation as a DAG, all kinds).

    ``base``: the ``succ`` of an edges / choices datum, built by the parser; None for a
    weak order, whose ``succ`` is derived from the order and ``items`` (the instance's
    items, in order) on first use: most queries read a weak order's ranks only, and a
    profile of n lists over n items would otherwise build n² lists at parse time.
    """

    name: str
    kind: str
    count: int
    order: WeakOrder | None
    pairs: frozenset
    base: dict | None = field(repr=False, compare=False)
    truncated: bool = False
    items: tuple = field(default=(), repr=False, compare=False)
    #: the agent's index in the model (its row of :class:`PreferenceInts`)
    i: int = field(default=-1, repr=False, compare=False)

    @cached_property
    def succ(self) -> dict:
        """item -> the items directly below it (the base relation as a DAG), every item a
        key in ``items`` order. For a weak order: each item of a tie -> the items of the
        next tie (under ``truncated``, the unlisted items are a last tie). O(m + base
        relation) on first use, cached."""
        if self.base is not None:
            return self.base
        assert self.order is not None
        succ: dict = {x: [] for x in self.items}
        ties = list(self.order.ties)
        if self.truncated:
            ties.append(tuple(x for x in self.items if x not in self.order.rank))
        for hi, lo in zip(ties, ties[1:]):
            for x in hi:
                succ[x].extend(lo)
        return succ


@dataclass(frozen=True, eq=False)
class PreferenceInts:
    """A profile held as integers: ``items`` (names, kept for output) numbered ``0..m-1``
    in input order, with ``item_index``; per agent (rows in model order) its voters
    ``count`` and, for a weak order, ``rank`` (per item its 1-based tie index; an unlisted
    item ranks ``nties + 1`` under ``truncated``, below every listed one, and ``0`` under
    ``unknown``: related to nothing), else ``succ``: per item the items directly below
    it (the base relation; None for a weak order). So a ≻ b is stated by a weak order iff
    ``0 < rank[a] < rank[b]``. ``plain[r]``: row r is a weak order over all items (no
    rank 0). Built by the parser in the same pass as the names; the oracles, the
    encodings and the checker read this form."""

    items: tuple[str, ...]
    item_index: dict[str, int]
    count: list[int]
    rank: list[list[int] | None]
    succ: list[list[list[int]] | None]
    plain: list[bool]

    @property
    def m(self) -> int:
        return len(self.items)

    def base_succ(self, r: int) -> list[list[int]]:
        """Row r's base relation as successor lists (a weak order: each item of a tie ->
        the items of the next tie, unlisted items a last tie under ``truncated``). O(m +
        relation) for a weak order, built on each call."""
        succ = self.succ[r]
        if succ is not None:
            return succ
        rank = self.rank[r]
        assert rank is not None
        ties: dict[int, list[int]] = {}
        for x, t in enumerate(rank):
            if t:
                ties.setdefault(t, []).append(x)
        out: list[list[int]] = [[] for _ in rank]
        order = sorted(ties)
        for t, u in zip(order, order[1:]):
            for x in ties[t]:
                out[x] = ties[u]
        return out

    def members(self, bits: int) -> list[int]:
        """The items of a bitset (bit i = item i), in item order."""
        return [i for i in range(len(self.items)) if bits >> i & 1]


@dataclass(frozen=True)
class PreferenceModel:
    """``items`` (tuple of names), ``agents`` (tuple of Agent), ``semantics``,
    ``conventions`` (name -> choice, :data:`CONVENTIONS`)."""

    items: tuple
    agents: tuple
    semantics: str
    by_name: dict = field(repr=False, compare=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)
    conventions: dict = field(default_factory=lambda: {k: c.default for k, c in
                                                       CONVENTIONS.items()}, compare=False)
    #: the integer form (:class:`PreferenceInts`), built by the parser
    ints: PreferenceInts = field(default=None, repr=False, compare=False)  # type: ignore

    @property
    def identical(self) -> bool:
        """The count voters of an agent complete alike (``counts`` = identical)."""
        return self.conventions.get("counts") == "identical"

    @property
    def m(self) -> int:
        return len(self.items)

    @property
    def voters(self) -> int:
        return sum(a.count for a in self.agents)

    def agent(self, name: Any) -> Agent:
        if name not in self.by_name:
            raise InstanceError("unknown agent", value=name)
        return self.by_name[name]


def parse_preference_data(data: dict) -> PreferenceModel:
    """Parse a ``preference`` instance dict (schema in the module docstring) to a model.

    Raises :class:`InstanceError` naming the agent and value for: a missing or malformed
    profile, duplicate or non-string items, an unknown item, an item listed twice, a bad
    count, a choice whose chosen item is not in its subset, a self-loop, and a cycle
    (value: the cycle as a list of items). O(items + size of the data).
    """
    if not isinstance(data, dict):
        raise InstanceError("instance must be a JSON object", value=type(data).__name__)
    sem = data.get("semantics", "unknown")
    if sem not in SEMANTICS:
        raise InstanceError(f"semantics must be one of {SEMANTICS}", value=sem)
    prof = data.get("profile")
    if not isinstance(prof, dict) or not prof:
        raise InstanceError("'profile' must be a non-empty object mapping agents to data",
                            value=prof if not isinstance(prof, dict) else "{}")
    items = data.get("items")
    if items is None:
        items = _items_of(prof)
        if not items:                 # name the agent whose datum holds no item names
            for name, spec in prof.items():
                _parse_agent(name, spec, (), sem, {}, frozenset())
    if not isinstance(items, list) or not items:
        raise InstanceError("'items' must be a non-empty list", value=items)
    seen: set = set()
    for x in items:
        if not isinstance(x, str):
            raise InstanceError("item must be a string", value=x)
        if x in seen:
            raise InstanceError("item listed twice in 'items'", value=x)
        seen.add(x)
    shared = tuple(items)                         # one tuple, held by every agent
    index = {x: i for i, x in enumerate(shared)}  # once per instance, not per agent
    known = frozenset(items)                      # the fastest subset test of a list
    agents, rank, succ, plain = zip(*[_parse_agent(name, spec, shared, sem, index, known, r)
                                      for r, (name, spec) in enumerate(prof.items())])
    conventions = read_conventions(data, CONVENTIONS)
    ints = PreferenceInts(shared, index, [a.count for a in agents], list(rank), list(succ),
                          list(plain))
    return PreferenceModel(shared, tuple(agents), sem, {a.name: a for a in agents},
                           conventions=conventions, ints=ints)


def _items_of(prof: dict) -> list:
    """The item names the data mention, in order of appearance (``items`` omitted). Only
    strings are collected: a malformed entry is left for the agent's parser to report."""
    out: dict = {}

    def add(xs):
        for x in xs if isinstance(xs, list) else []:
            if isinstance(x, str):
                out.setdefault(x, None)
    for spec in prof.values():
        spec = {"order": spec} if isinstance(spec, list) else spec
        if not isinstance(spec, dict):
            continue
        for t in _as_list(spec.get("order")):
            add(t if isinstance(t, list) else [t])
        for e in _as_list(spec.get("edges")):
            add(e)
        for c in _as_list(spec.get("choices")):
            if isinstance(c, list) and len(c) == 2:
                add(c[0])
    return list(out)


def _as_list(v: Any) -> list:
    return v if isinstance(v, list) else []


def _parse_agent(name: str, spec: Any, items: tuple, sem: str, index: dict,
                 known: frozenset, r: int = -1
                 ) -> tuple[Agent, list[int] | None, list[list[int]] | None, bool]:
    """One agent's datum: the Agent (names) and its row of :class:`PreferenceInts` (the
    rank array of a weak order, else the base relation's successor lists; whether it is a
    weak order over all items), read in one pass. ``index``: item -> its number;
    ``known``: the items as a set; ``r``: the agent's row."""
    if isinstance(spec, list):
        spec = {"order": spec}
    if not isinstance(spec, dict):
        raise InstanceError("agent data must be a list or an object", agent=name, value=spec)
    kinds = [k for k in ("order", "edges", "choices") if k in spec]
    if len(kinds) != 1:
        raise InstanceError("agent data needs exactly one of order/edges/choices",
                            agent=name, value=sorted(spec))
    extra = set(spec) - {"order", "edges", "choices", "count"}
    if extra:
        raise InstanceError("unknown key in agent data", agent=name, value=sorted(extra)[0])
    count = spec.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_COUNT:
        raise InstanceError(f"count must be an integer from 1 to {MAX_COUNT}", agent=name,
                            value=count)
    kind = kinds[0]
    m = len(items)
    if kind == "order":
        order = parse_weak_order(spec["order"], agent=name, known=known)
        trunc = sem == "truncated" and len(order) < m
        # ranks: unlisted items below the last tie (truncated) or related to nothing (0)
        ranks = list(map(order.rank.get, items, repeat(order.nties + 1 if trunc else 0, m)))
        # succ derived on first use (Agent.succ): O(len(list)) here, not O(m)
        return (Agent(name, kind, count, order, frozenset(), None, trunc, items, r),
                ranks, None, trunc or len(order) == m)
    raw = spec[kind]
    if not isinstance(raw, list):
        raise InstanceError(f"'{kind}' must be a list", agent=name, value=raw)
    pairs: list = []
    if kind == "edges":
        for e in raw:
            if not (isinstance(e, list) and len(e) == 2):
                raise InstanceError("an edge must be a pair [a, b] meaning a ≻ b", agent=name,
                                    value=e)
            pairs.append(tuple(e))
    else:
        for c in raw:
            if not (isinstance(c, list) and len(c) == 2 and isinstance(c[0], list)):
                raise InstanceError("a choice must be [[subset...], chosen]", agent=name, value=c)
            subset, chosen = c
            if chosen not in subset:
                raise InstanceError("chosen item is not in its subset", agent=name, value=chosen)
            if len(set(map(str, subset))) != len(subset):
                raise InstanceError("item listed twice in a choice subset", agent=name,
                                    value=subset)
            pairs.extend((chosen, x) for x in subset if x != chosen)
    for a, b in pairs:
        for x in (a, b):
            if not isinstance(x, str) or x not in index:
                raise InstanceError("unknown item", agent=name, value=x)
        if a == b:
            raise InstanceError("an item preferred to itself", agent=name, value=a)
    cycle = find_cycle(pairs)
    if cycle:
        raise InstanceError("preferences contain a cycle", agent=name, value=cycle)
    ps = frozenset(pairs)
    succ: dict = {x: [] for x in items}
    isucc: list[list[int]] = [[] for _ in items]
    for a, b in sorted(ps):            # by name: the successor order the oracles read
        succ[a].append(b)
        isucc[index[a]].append(index[b])
    return Agent(name, kind, count, None, ps, succ, False, items, r), None, isucc, False


def find_cycle(pairs: Sequence[tuple[str, str]]) -> list | None:
    """A directed cycle ``[x0, x1, …, x0]`` of the pairs (a ≻ b as arcs a -> b), or None.

    Depth-first search from the nodes in order of first appearance, successors in the
    order given; the first arc back to a node on the current path closes the cycle (so
    the cycle reported is networkx's ``find_cycle`` on the same arcs). O(V + E)."""
    succ: dict = {}
    for a, b in pairs:
        succ.setdefault(a, {})[b] = None
        succ.setdefault(b, {})
    state: dict = {}                     # 1: on the current path, 2: finished
    for root in succ:
        if root in state:
            continue
        path, its = [root], [iter(succ[root])]
        state[root] = 1
        while its:
            y = next(its[-1], None)
            if y is None:
                state[path.pop()] = 2
                its.pop()
            elif state.get(y) == 1:
                return path[path.index(y):] + [y]
            elif y not in state:
                state[y] = 1
                path.append(y)
                its.append(iter(succ[y]))
    return None


# --------------------------------------------------------------------------- relations

def direct(agent: Agent, a: str, b: str) -> bool:
    """a ≻ b is stated by the agent's datum (for weak orders: a strictly better tie, or a
    listed a over an unlisted b under ``truncated``). O(1)."""
    if agent.kind == "order":
        r = agent.order.rank
        if a not in r:
            return False
        if b not in r:
            return agent.truncated
        return r[a] < r[b]
    return (a, b) in agent.pairs


def closure_bits(model: PreferenceModel, agent: Agent) -> tuple[list[int], list[int]]:
    """(down, up): per item (by number) the bitset of the items below / above it in the
    transitive closure of the agent's datum (bit i = item i), read from the integer form
    (:class:`PreferenceInts`): for a weak order from its ranks, tie by tie; else from the
    base relation in a topological order (Kahn 1962). O(m + E) big-int operations,
    cached."""
    key = ("bits", agent.i)
    got = model._cache.get(key)
    if got is not None:
        return got
    ints = model.ints
    rank = ints.rank[agent.i]
    m = ints.m
    if rank is not None:
        nt = max(rank)
        by = [0] * (nt + 2)                 # by tie; 0: the items related to nothing
        for x, t in enumerate(rank):
            by[t] |= 1 << x
        lower = [0] * (nt + 2)              # the items of the later ties
        acc = 0
        for t in range(nt, 0, -1):
            lower[t] = acc
            acc |= by[t]
        upper = [0] * (nt + 2)              # the items of the earlier ties
        acc = 0
        for t in range(1, nt + 1):
            upper[t] = acc
            acc |= by[t]
        got = [lower[t] for t in rank], [upper[t] for t in rank]
    else:
        succ = ints.succ[agent.i]
        assert succ is not None
        indeg = [0] * m
        for bs in succ:
            for y in bs:
                indeg[y] += 1
        topo = [x for x in range(m) if not indeg[x]]
        for x in topo:                      # grows while read: Kahn's queue
            for y in succ[x]:
                indeg[y] -= 1
                if not indeg[y]:
                    topo.append(y)
        down, up = [0] * m, [0] * m
        for x in reversed(topo):
            d = 0
            for y in succ[x]:
                d |= down[y] | 1 << y
            down[x] = d
        for x in topo:
            bit = 1 << x
            for y in succ[x]:
                up[y] |= up[x] | bit
        got = down, up
    model._cache[key] = got
    return got


def _names(model: PreferenceModel, bits: int) -> frozenset:
    items = model.items
    return frozenset(items[i] for i in model.ints.members(bits))


def below(model: PreferenceModel, agent: Agent, x: str) -> frozenset:
    """Items y with x ≻ y in the transitive closure of the agent's datum
    (:func:`closure_bits`). O(m) a call after the closure, cached."""
    key = ("down", agent.i, x)
    if key not in model._cache:
        model._cache[key] = _names(model, closure_bits(model, agent)[0][model.ints.item_index[x]])
    return model._cache[key]


def above(model: PreferenceModel, agent: Agent, x: str) -> frozenset:
    """Items y with y ≻ x in the transitive closure (:func:`closure_bits`), cached."""
    key = ("up", agent.i, x)
    if key not in model._cache:
        model._cache[key] = _names(model, closure_bits(model, agent)[1][model.ints.item_index[x]])
    return model._cache[key]


def predecessors(model: PreferenceModel, agent: Agent) -> list[list[int]]:
    """Per item (by number) the items directly above it in the agent's base relation.
    O(m + E), cached."""
    key = ("pred", agent.i)
    if key not in model._cache:
        pred: list[list[int]] = [[] for _ in model.items]
        for a, bs in enumerate(model.ints.base_succ(agent.i)):
            for b in bs:
                pred[b].append(a)
        model._cache[key] = pred
    return model._cache[key]


def necessarily(model: PreferenceModel, agent: Agent, a: str, b: str) -> bool:
    """a ≻ b in every completion ⇔ (a, b) in the transitive closure (Szpilrajn)."""
    ints = model.ints
    ia, ib = ints.item_index[a], ints.item_index[b]
    rank = ints.rank[agent.i]
    if rank is not None:
        return 0 < rank[ia] < rank[ib]
    return bool(closure_bits(model, agent)[0][ia] >> ib & 1)


def kahn(model: PreferenceModel, agent: Agent, key: Sequence[str]) -> list:
    """The lexicographic topological sort of the agent's datum: at each step the available
    item that comes first in ``key`` (a permutation of the items). A linear extension;
    equal to ``key`` when ``key`` is one. O(E + m log m). (Kahn 1962.)"""
    seq = key_numbers(model, key)
    items = model.items
    return [items[x] for x in kahn_ints(model, agent.i, seq)]


def key_numbers(model: PreferenceModel, key: Any) -> list[int]:
    """The item numbers of a completion key, in its order (an item written twice counts
    at its last place); CertificateError unless ``key`` names every item and no other.
    O(m)."""
    try:
        pos = {x: i for i, x in enumerate(key)}
    except TypeError:
        pos = {}
    index = model.ints.item_index
    if len(pos) != model.m or not all(x.__class__ is str and x in index for x in pos):
        raise CertificateError("a completion key must be a permutation of the items")
    seq = key if len(key) == len(pos) else sorted(pos, key=pos.__getitem__)
    return [index[x] for x in seq]


def kahn_ints(model: PreferenceModel, r: int, seq: list[int],
              pos: list[int] | None = None) -> list[int]:
    """:func:`kahn` of row r on item numbers: ``seq`` the key (a checked permutation),
    ``pos`` its inverse (item -> index in ``seq``; made when not given).

    A weak order over all items (complete, or truncated: the unlisted items form a last
    tie) completes tie by tie, each tie in key order: the key stably sorted by rank.
    """
    ints = model.ints
    rank = ints.rank[r]
    if ints.plain[r]:
        assert rank is not None
        return sorted(seq, key=rank.__getitem__)
    if pos is None:
        pos = [0] * len(seq)
        for i, x in enumerate(seq):
            pos[x] = i
    succ = ints.base_succ(r)
    indeg = [0] * len(seq)
    for bs in succ:
        for y in bs:
            indeg[y] += 1
    heap = [(pos[x], x) for x in range(len(seq)) if not indeg[x]]
    heapq.heapify(heap)
    out = []
    while heap:
        _, x = heapq.heappop(heap)
        out.append(x)
        for y in succ[x]:
            indeg[y] -= 1
            if not indeg[y]:
                heapq.heappush(heap, (pos[y], y))
    return out


def possible_tops(model: PreferenceModel, agent: Agent) -> frozenset:
    """Items nothing is above in the agent's closure (those a completion can put first).
    O(m) after the closure, cached."""
    key = ("tops", agent.i)
    if key not in model._cache:
        up = closure_bits(model, agent)[1]
        model._cache[key] = frozenset(x for x, u in zip(model.items, up) if not u)
    return model._cache[key]


def linear_extensions_ints(model: PreferenceModel, agent: Agent) -> Iterator[tuple]:
    """All linear extensions of the agent's datum as tuples of item numbers, in the
    lexicographic order of the item numbers (exponential; small cases only)."""
    pred = predecessors(model, agent)
    m = model.m
    need = [sum(1 << p for p in ps) for ps in pred]

    def rec(placed: list, done: int):
        if len(placed) == m:
            yield tuple(placed)
            return
        for x in range(m):
            if not done >> x & 1 and need[x] & ~done == 0:
                placed.append(x)
                yield from rec(placed, done | 1 << x)
                placed.pop()
    yield from rec([], 0)


def linear_extensions(model: PreferenceModel, agent: Agent) -> Iterator[tuple]:
    """All linear extensions of the agent's datum (exponential; small cases only)."""
    items = model.items
    for o in linear_extensions_ints(model, agent):
        yield tuple(items[x] for x in o)


# --------------------------------------------------------------------------- values

def rs_sizes_allowed(params: dict, conventions: dict | None) -> bool:
    """False when the ``equal_size`` reading of ``rs`` leaves the bundles unrelated
    (different sizes); True otherwise."""
    A, B = params["bundles"]
    return (conventions or {}).get("rs") != "equal_size" or len(set(A)) == len(set(B))


def rs_weakly_better(order: Sequence[str], better: Iterable[str], worse: Iterable[str]) -> bool:
    """Responsive-set comparison in a linear order: ``better ⪰_RS worse`` ⇔ for every prefix
    U, |better ∩ U| ≥ |worse ∩ U| (Roth 1985; Aziz et al. 2015). O(m)."""
    A, B = set(better), set(worse)
    d = 0
    for x in order:
        d += (x in A) - (x in B)
        if d < 0:
            return False
    return True


def scores(rule: str, items: Sequence[str], profile: Sequence[tuple[Sequence[str], int]]) -> dict:
    """Scores of a completed profile ``[(linear order, number of voters)]`` under ``rule``
    (the rule's ``linear_scores``, :mod:`formal.rules`).

    plurality: voters ranking x first; borda: Σ items below x; copeland: pairwise wins −
    losses (a pairwise tie counts 0). Identical orders are tallied once, with their voters
    added: O(voters·m) to aggregate, then O(k·m) or O(k·m²) for Copeland over the k
    distinct orders. InstanceError for a rule that is not one of the winner question's.
    """
    r = rule_named(rule, incomplete=True)
    agg: dict = {}
    for o, w in profile:
        t = tuple(o)
        agg[t] = agg.get(t, 0) + w
    return r.linear_scores(items, agg.items())


# --------------------------------------------------------------------------- questions

_TF = ("true", "false", "undetermined")
_DU = ("determined", "undetermined")


@dataclass(frozen=True)
class Query:
    """A preference question type, registered once with :func:`query`.

    ``params``: field -> type word (``agent``, ``item``, ``items``, ``item_pair``,
    ``bundles``, ``int``, ``rule``; optional when ending in ``?``); ``verdicts``: the words a
    label may carry; ``doc``: one line; ``single``: asked about one agent's completions
    (else about completed profiles); ``value``: its value in one completion —
    ``value(params, order, conventions)`` of a linear order (best first) for a
    single-agent question, ``value(model, params, profile)`` of a completed profile
    ``[(order, voters)]`` otherwise; ``check(name, params)``: the checks of its fields
    beyond their type words (InstanceError; it may normalise them); ``conventions``: the
    readings (:data:`CONVENTIONS`) its answer depends on; ``solutions``: verdict -> the
    exact :class:`~prefcert.formal.spec.Solution` of its labels (null for every verdict
    unless given)."""

    name: str
    params: Mapping[str, str]
    verdicts: tuple[str, ...]
    doc: str
    single: bool
    value: Callable[..., Any]
    check: Callable[[str, dict], None] | None = None
    conventions: tuple[str, ...] = ()
    solutions: Mapping[str, Solution] = field(default_factory=dict)


#: question type -> its :class:`Query`, in the order of registration.
QUERIES: dict[str, Query] = {}


def query(name: str, params: Mapping[str, str], *, verdicts: tuple[str, ...], doc: str,
          profile: bool = False, check: Callable[[str, dict], None] | None = None,
          conventions: tuple[str, ...] = (), solutions: Mapping[str, Solution] | None = None):
    """Register the decorated function as the value of question type ``name`` in one
    completion (see :class:`Query` for the parameters; ``profile``: a question about
    completed profiles; ``solutions``: the verdicts whose solution is not null)."""
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name in QUERIES:
            raise ValueError(f"preference question {name!r} registered twice")
        shapes = {v: (solutions or {}).get(v, NULL) for v in verdicts}
        QUERIES[name] = Query(name, dict(params), tuple(verdicts), doc, not profile, fn,
                              check, tuple(conventions), shapes)
        return fn
    return register


#: the solution of a ``determined`` verdict: the value the query takes in every completion
_VALUE = fields("value")
#: the solution of a count range: its two ends
_RANGE = fields("min", "max")


def _positions(order: Sequence[str]) -> dict:
    return {x: i + 1 for i, x in enumerate(order)}


def _two_distinct(name: str, p: dict) -> None:
    if not (isinstance(p["items"], list) and len(p["items"]) == 2
            and p["items"][0] != p["items"][1]):
        raise InstanceError(f"question {name!r} needs two distinct items", value=p["items"])


def _item_set(name: str, p: dict) -> None:
    if not (isinstance(p["items"], list) and p["items"]):
        raise InstanceError("rank_set needs a non-empty list of items", value=p["items"])
    _no_repeat("rank_set's items", p["items"])


def _two_bundles(name: str, p: dict) -> None:
    if not (isinstance(p["bundles"], list) and len(p["bundles"]) == 2
            and all(isinstance(b, list) for b in p["bundles"])):
        raise InstanceError("rs needs two bundles [[...], [...]]", value=p["bundles"])
    for b in p["bundles"]:
        _no_repeat("a bundle", b)


def _no_repeat(what: str, items: list) -> None:
    """A set written as a list names each item once (a repeat is a typo, never merged)."""
    seen: set = set()
    for x in items:
        if isinstance(x, str) and x in seen:
            raise InstanceError(f"{what} names an item twice", value=x)
        if isinstance(x, str):
            seen.add(x)


def _winner_rule(name: str, p: dict) -> None:
    rule_named(p["rule"], incomplete=True)


@query("position", {"agent": "agent", "item": "item", "position": "int?"},
       verdicts=("true", "false") + _DU,
       doc="an item's position (or whether it is the given one)",
       solutions={"determined": _VALUE,
                  "undetermined": fields("min", "max", given={"position": NULL})})
def _position(params: dict, order: Sequence[str], conventions: dict | None) -> Any:
    """The item's 1-based position (or whether it is ``position``)."""
    p = _positions(order)[params["item"]]
    return p if params.get("position") is None else p == params["position"]


@query("kth", {"agent": "agent", "k": "int"}, verdicts=_DU, doc="the item at position k",
       solutions={"determined": _VALUE})
def _kth(params: dict, order: Sequence[str], conventions: dict | None) -> str:
    """The item at position k."""
    return order[params["k"] - 1]


@query("compare", {"agent": "agent", "items": "item_pair"}, verdicts=_TF,
       doc="whether a ≻ b", check=_two_distinct)
def _compare(params: dict, order: Sequence[str], conventions: dict | None) -> bool:
    """a ≻ b."""
    pos = _positions(order)
    a, b = params["items"]
    return pos[a] < pos[b]


@query("rank_set", {"agent": "agent", "items": "items"}, verdicts=_DU,
       doc="the order of a set", check=_item_set,
       solutions={"determined": _VALUE, "undetermined": fields("pairs")})
def _rank_set(params: dict, order: Sequence[str], conventions: dict | None) -> list:
    """The asked items in their order."""
    return sorted(params["items"], key=_positions(order).__getitem__)


@query("rs", {"agent": "agent", "bundles": "bundles"}, verdicts=_TF,
       doc="whether A ⪰_RS B", check=_two_bundles, conventions=("rs",))
def _rs(params: dict, order: Sequence[str], conventions: dict | None) -> bool:
    """``bundles[0] ⪰_RS bundles[1]`` (under the ``rs`` reading)."""
    return rs_weakly_better(order, *params["bundles"]) and \
        rs_sizes_allowed(params, conventions)


@query("topk", {"agent": "agent", "item": "item", "k": "int"}, verdicts=_TF,
       doc="whether the item is in the top k")
def _topk(params: dict, order: Sequence[str], conventions: dict | None) -> bool:
    """The item is among the first k."""
    return _positions(order)[params["item"]] <= params["k"]


@query("topk_list", {"agent": "agent", "k": "int"}, verdicts=_DU, doc="the top-k set",
       solutions={"determined": _VALUE, "undetermined": fields("necessary", "possible")})
def _topk_list(params: dict, order: Sequence[str], conventions: dict | None) -> list:
    """The first k items, sorted."""
    return sorted(order[:params["k"]])


def _pair_count(params: dict, profile: Sequence[tuple[Sequence[str], int]]) -> int:
    a, b = params["items"]
    return sum(w for o, w in profile if o.index(a) < o.index(b))


@query("count", {"items": "item_pair"}, verdicts=_DU, doc="voters with a ≻ b",
       profile=True, check=_two_distinct, conventions=("pair_count",),
       solutions={"determined": _VALUE, "undetermined": _RANGE})
def _count(model: PreferenceModel, params: dict, profile) -> int:
    """The voters with a ≻ b."""
    return _pair_count(params, profile)


@query("majority", {"items": "item_pair"}, verdicts=_TF,
       doc="whether a strict majority has a ≻ b", profile=True, check=_two_distinct,
       conventions=("majority",), solutions=dict.fromkeys(_TF, _RANGE))
def _majority(model: PreferenceModel, params: dict, profile) -> bool:
    """A strict majority of the voters has a ≻ b (2·count > voters)."""
    return 2 * _pair_count(params, profile) > model.voters


@query("winner", {"rule": "rule", "item": "item"}, verdicts=_TF,
       doc="whether the item is a (co-)winner of the rule", profile=True,
       check=_winner_rule, conventions=("counts",))
def _winner(model: PreferenceModel, params: dict, profile) -> bool:
    """No item scores strictly more than the item under the rule (co-winner)."""
    s = scores(params["rule"], model.items, profile)
    return s[params["item"]] >= max(s.values())


#: profile question -> its value in a completed profile of item numbers ``[(order,
#: voters)]`` (``value(model, params, profile)``, the items of ``params`` as names): the
#: same definitions as the registered ``value`` of :data:`QUERIES`, read on the integer
#: form (:func:`value_profile_ints`).
PROFILE_INTS: dict[str, Callable[..., Any]] = {}


def _on_ints(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        PROFILE_INTS[name] = fn
        return fn
    return register


def _pair_count_ints(model: PreferenceModel, params: dict, profile) -> int:
    index = model.ints.item_index
    a, b = (index[x] for x in params["items"])
    return sum(w for o, w in profile if o.index(a) < o.index(b))


@_on_ints("count")
def _count_ints(model: PreferenceModel, params: dict, profile) -> int:
    """The voters with a ≻ b."""
    return _pair_count_ints(model, params, profile)


@_on_ints("majority")
def _majority_ints(model: PreferenceModel, params: dict, profile) -> bool:
    """A strict majority of the voters has a ≻ b (2·count > voters)."""
    return 2 * _pair_count_ints(model, params, profile) > model.voters


@_on_ints("winner")
def _winner_ints(model: PreferenceModel, params: dict, profile) -> bool:
    """No item scores strictly more than the item under the rule (co-winner): the rule's
    ``linear_scores`` over the item numbers."""
    s = scores(params["rule"], range(model.m), profile)
    return s[model.ints.item_index[params["item"]]] >= max(s.values())


def value_profile_ints(model: PreferenceModel, question: str, params: dict,
                       profile: Sequence[tuple[Sequence[int], int]]) -> Any:
    """:func:`value_profile` of a completed profile of item numbers (the orders as
    sequences of item numbers, best first). InstanceError for an unknown question."""
    return PROFILE_INTS[_query(question, False).name](model, params, profile)


#: question -> parameter -> type word (optional when ending in ``?``)
PARAMS: dict[str, dict[str, str]] = {n: dict(q.params) for n, q in QUERIES.items()}
SINGLE = tuple(n for n, q in QUERIES.items() if q.single)
PROFILE = tuple(n for n, q in QUERIES.items() if not q.single)
QUESTIONS = SINGLE + PROFILE


def _query(question: Any, single: bool) -> Query:
    q = QUERIES.get(question) if isinstance(question, str) else None
    if q is None or q.single != single:
        known = SINGLE if single else PROFILE
        raise InstanceError(f"unknown {'single-agent' if single else 'profile'} question "
                            f"(known: {', '.join(known)})", value=question)
    return q


def value_single(question: str, params: dict, order: Sequence[str],
                 conventions: dict | None = None) -> Any:
    """The value of a single-agent query in one completion ``order`` (best first), under
    the model's ``conventions`` (the ``rs`` reading): the registered question's ``value``.

    position -> 1-based position (or bool if params has ``position``); kth -> item;
    compare -> bool a ≻ b; rank_set -> list of the items in order; rs -> bool
    ``bundles[0] ⪰_RS bundles[1]``; topk -> bool; topk_list -> sorted list of the top k.
    InstanceError for an unknown question.
    """
    return _query(question, True).value(params, order, conventions)


def value_profile(model: PreferenceModel, question: str, params: dict,
                  profile: Sequence[tuple[Sequence[str], int]]) -> Any:
    """The value of a profile query in a completed profile ``[(order, voters)]``: the
    registered question's ``value``.

    count -> voters with a ≻ b; majority -> bool (2·count > voters); winner -> bool
    (params rule, item: no item scores strictly more than item). InstanceError for an
    unknown question.
    """
    return _query(question, False).value(model, params, profile)


def resolve(q: Any) -> tuple[str, dict]:
    """A question dict ``{"type": ..., params}`` -> (name, params): its fields checked
    against the question's type words, then by its own ``check``. InstanceError if bad."""
    kind = q.get("type") if isinstance(q, dict) else None
    if not isinstance(kind, str) or kind not in QUERIES:
        raise InstanceError(f"a preference question is an object with 'type' in "
                            f"{', '.join(QUESTIONS)}", value=q)
    spec = QUERIES[kind]
    p = {k: v for k, v in q.items() if k != "type"}
    check_params(kind, spec.params, p)       # field types first: nothing below may crash
    if spec.check is not None:
        spec.check(kind, p)
    return kind, p


def validate(model: PreferenceModel, name: str, params: dict) -> None:
    """Raise InstanceError for a question naming an unknown agent/item or a bad k/position."""
    items = set(model.items)

    def item(x):
        if x not in items:
            raise InstanceError(f"question {name!r} names an unknown item", value=x)
    spec = QUERIES.get(name) if isinstance(name, str) else None
    if spec is None:
        raise InstanceError(f"unknown preference question (known: {', '.join(QUESTIONS)})",
                            value=name)
    if spec.single and params.get("agent") not in model.by_name:
        raise InstanceError(f"question {name!r} names an unknown agent", value=params.get("agent"))
    for key in ("item",):
        if key in params:
            item(params[key])
    for x in params.get("items", []):
        item(x)
    for bundle in params.get("bundles", []):
        for x in bundle:
            item(x)
    for key in ("k", "position"):
        v = params.get(key)
        if v is not None and not (isinstance(v, int) and 1 <= v <= model.m):
            raise InstanceError(f"{key} must be an integer in 1..{model.m}", value=v)
