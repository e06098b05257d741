"""Epistemic queries over incomplete, tied and partial preferences (trusted model + checker).

**Data.** Each agent gives one of
  - ``{"order": [...]}``: a weak order, best first, a nested list being a tie (DESIGN.md);
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
voters of one agent may complete differently).

**Queries** (Konczak & Lang 2005; Xia & Conitzer 2011). Each is a function ``value(σ)`` of
a completion; the answer is ``true``/``false`` (boolean, same value in every completion),
``determined`` with ``solution={"value": v}`` (non-boolean, same value everywhere), or
``undetermined`` (two completions with different values). See :data:`QUESTIONS`.

Co-winner semantics for ``winner``: c wins a completed profile iff no item has a strictly
higher score. Plurality: 1 point for the top; Borda: number of items ranked below;
Copeland: (#pairwise wins) − (#pairwise losses) (equivalent to Copeland^½). ``winner``
is ``true`` iff c is a necessary (co-)winner, ``false`` iff c is not a possible (co-)winner.

**Certificates** (checked here; no solver, nothing from oracles/encodings):
``chain`` (a path of base relations), ``injection`` (RS), ``bounds`` (recomputed by
reachability, with completion witnesses), ``completions`` (explicit linear orders, or
profile specs: a key per voter, completed by lexicographic Kahn topological sort),
``hall_violator`` (plurality PW), ``dominated`` (per-pair upper bounds),
``exhaustive`` (re-enumerated by the checker on small instances only).
"""
from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from .errors import CertificateError, InstanceError
from .preferences import WeakOrder, parse_weak_order

SEMANTICS = ("unknown", "truncated")
RULES = ("plurality", "borda", "copeland")
SINGLE = ("position", "kth", "compare", "rank_set", "rs", "topk", "topk_list")
PROFILE = ("count", "majority", "winner")
QUESTIONS = SINGLE + PROFILE
EXHAUSTIVE_LIMIT = 200_000   # profile completions the checker will enumerate


# --------------------------------------------------------------------------- model

@dataclass(frozen=True)
class Agent:
    """One agent's datum. ``kind``: order|edges|choices; ``count`` voters gave it.

    ``order``: the WeakOrder (kind order); ``pairs``: the base pairs a ≻ b (edges/choices);
    ``succ``: item -> items directly below (base relation as a DAG, all kinds).
    """

    name: str
    kind: str
    count: int
    order: WeakOrder | None
    pairs: frozenset
    succ: dict = field(repr=False, compare=False)
    truncated: bool = False


@dataclass(frozen=True)
class PreferenceModel:
    """``items`` (tuple of names), ``agents`` (tuple of Agent), ``semantics``."""

    items: tuple
    agents: tuple
    semantics: str
    by_name: dict = field(repr=False, compare=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

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

    def is_weak_order_profile(self) -> bool:
        return all(a.kind == "order" for a in self.agents)


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
    if not isinstance(items, list) or not items:
        raise InstanceError("'items' must be a non-empty list", value=items)
    seen: set = set()
    for x in items:
        if not isinstance(x, str):
            raise InstanceError("item must be a string", value=x)
        if x in seen:
            raise InstanceError("item listed twice in 'items'", value=x)
        seen.add(x)
    agents = [_parse_agent(name, spec, items, sem) for name, spec in prof.items()]
    return PreferenceModel(tuple(items), tuple(agents), sem, {a.name: a for a in agents})


def _items_of(prof: dict) -> list:
    out: dict = {}
    for spec in prof.values():
        spec = {"order": spec} if isinstance(spec, list) else spec
        if not isinstance(spec, dict):
            continue
        for t in spec.get("order", []) or []:
            for x in (t if isinstance(t, list) else [t]):
                out.setdefault(x, None)
        for e in spec.get("edges", []) or []:
            for x in (e if isinstance(e, list) else []):
                out.setdefault(x, None)
        for c in spec.get("choices", []) or []:
            if isinstance(c, list) and len(c) == 2 and isinstance(c[0], list):
                for x in c[0]:
                    out.setdefault(x, None)
    return list(out)


def _parse_agent(name: str, spec: Any, items: list, sem: str) -> Agent:
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
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise InstanceError("count must be a positive integer", agent=name, value=count)
    kind = kinds[0]
    known = set(items)
    succ: dict = {x: [] for x in items}
    if kind == "order":
        order = parse_weak_order(spec["order"], agent=name, known=known)
        ties = list(order.ties)
        trunc = sem == "truncated" and len(order) < len(items)
        if trunc:
            ties.append(tuple(x for x in items if x not in order.rank))
        for hi, lo in zip(ties, ties[1:]):
            for x in hi:
                succ[x].extend(lo)
        return Agent(name, kind, count, order, frozenset(), succ, trunc)
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
            if not isinstance(x, str) or x not in known:
                raise InstanceError("unknown item", agent=name, value=x)
        if a == b:
            raise InstanceError("an item preferred to itself", agent=name, value=a)
    g = nx.DiGraph(pairs)
    try:
        cyc = nx.find_cycle(g)
        raise InstanceError("preferences contain a cycle", agent=name,
                            value=[u for u, _ in cyc] + [cyc[0][0]])
    except nx.NetworkXNoCycle:
        pass
    ps = frozenset(pairs)
    for a, b in sorted(ps):
        succ[a].append(b)
    return Agent(name, kind, count, None, ps, succ)


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


def below(model: PreferenceModel, agent: Agent, x: str) -> frozenset:
    """Items y with x ≻ y in the transitive closure of the agent's datum. O(m + E), cached."""
    key = ("down", agent.name, x)
    if key not in model._cache:
        if agent.kind == "order":
            model._cache[key] = frozenset(y for y in model.items if direct(agent, x, y))
        else:
            seen, stack = set(), [x]
            while stack:
                for y in agent.succ[stack.pop()]:
                    if y not in seen:
                        seen.add(y)
                        stack.append(y)
            model._cache[key] = frozenset(seen)
    return model._cache[key]


def above(model: PreferenceModel, agent: Agent, x: str) -> frozenset:
    """Items y with y ≻ x in the transitive closure. O(m·(m + E)) first call, cached."""
    key = ("up", agent.name, x)
    if key not in model._cache:
        if agent.kind == "order":
            model._cache[key] = frozenset(y for y in model.items if direct(agent, y, x))
        else:
            pred = model._cache.setdefault(("pred", agent.name), _pred(agent))
            seen, stack = set(), [x]
            while stack:
                for y in pred[stack.pop()]:
                    if y not in seen:
                        seen.add(y)
                        stack.append(y)
            model._cache[key] = frozenset(seen)
    return model._cache[key]


def _pred(agent: Agent) -> dict:
    pred: dict = {x: [] for x in agent.succ}
    for a, bs in agent.succ.items():
        for b in bs:
            pred[b].append(a)
    return pred


def necessarily(model: PreferenceModel, agent: Agent, a: str, b: str) -> bool:
    """a ≻ b in every completion ⇔ (a, b) in the transitive closure (Szpilrajn)."""
    if agent.kind == "order":
        return direct(agent, a, b)
    return b in below(model, agent, a)


def check_chain(agent: Agent, chain: Any, a: str, b: str) -> None:
    """A chain a = x0 ≻ x1 ≻ … ≻ xk = b of base relations; else CertificateError."""
    if not isinstance(chain, list) or len(chain) < 2 or chain[0] != a or chain[-1] != b:
        raise CertificateError(f"agent {agent.name}: chain from {a!r} to {b!r} expected, "
                               f"got {chain!r:.80}")
    for x, y in zip(chain, chain[1:]):
        if not direct(agent, x, y):
            raise CertificateError(f"agent {agent.name}: {x!r} ≻ {y!r} is not in the data")


def is_completion(model: PreferenceModel, agent: Agent, order: Any) -> None:
    """Raise CertificateError unless ``order`` is a linear extension of the agent's datum."""
    if not isinstance(order, list) or sorted(map(str, order)) != sorted(model.items) \
            or len(set(order)) != model.m:
        raise CertificateError(f"agent {agent.name}: not a permutation of the items")
    pos = {x: i for i, x in enumerate(order)}
    for a, bs in agent.succ.items():
        for b in bs:
            if pos[a] > pos[b]:
                raise CertificateError(f"agent {agent.name}: completion puts {b!r} above "
                                       f"{a!r} against the data")


def kahn(model: PreferenceModel, agent: Agent, key: Sequence[str]) -> list:
    """The lexicographic topological sort of the agent's datum: at each step the available
    item that comes first in ``key`` (a permutation of the items). A linear extension;
    equal to ``key`` when ``key`` is one. O(E + m log m). (Kahn 1962.)"""
    pos = {x: i for i, x in enumerate(key)}
    if len(pos) != model.m or set(pos) != set(model.items):
        raise CertificateError("a completion key must be a permutation of the items")
    if agent.kind == "order" and (agent.truncated or len(agent.order) == model.m):
        r, bottom = agent.order.rank, len(agent.order.ties) + 1
        return sorted(model.items, key=lambda x: (r.get(x, bottom), pos[x]))
    indeg = {x: 0 for x in model.items}
    for bs in agent.succ.values():
        for b in bs:
            indeg[b] += 1
    heap = [(pos[x], x) for x in model.items if indeg[x] == 0]
    heapq.heapify(heap)
    out = []
    while heap:
        _, x = heapq.heappop(heap)
        out.append(x)
        for b in agent.succ[x]:
            indeg[b] -= 1
            if indeg[b] == 0:
                heapq.heappush(heap, (pos[b], b))
    return out


def linear_extensions(model: PreferenceModel, agent: Agent) -> Iterator[tuple]:
    """All linear extensions of the agent's datum (exponential; small cases only)."""
    pred = _pred(agent)
    items = model.items

    def rec(placed: list, done: set):
        if len(placed) == model.m:
            yield tuple(placed)
            return
        for x in items:
            if x not in done and all(p in done for p in pred[x]):
                done.add(x)
                placed.append(x)
                yield from rec(placed, done)
                placed.pop()
                done.discard(x)
    yield from rec([], set())


# --------------------------------------------------------------------------- definitions

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


def rs_possible(model: PreferenceModel, agent: Agent, better: Iterable[str],
                worse: Iterable[str], limit: int = EXHAUSTIVE_LIMIT) -> bool | None:
    """Is there a completion in which ``better ⪰_RS worse``? Exact search over the choices of
    worse-only items: every available item of weight ≥ 0 (better-only +1, others 0) is
    placed first — moving such an item earlier never lowers a prefix balance (exchange
    argument, derived; checked against brute force) — and the search branches only on
    which available worse-only item comes next. None past ``limit`` states.
    O(2^|worse| · m · (m + E)) worst case."""
    A, B = set(better), set(worse)
    w = {x: (x in A) - (x in B) for x in model.items}
    pred = model._cache.setdefault(("pred", agent.name), _pred(agent))
    dead: set = set()

    def avail(placed, x):
        return x not in placed and all(p in placed for p in pred[x])

    def dfs(placed: frozenset, bal: int):
        placed = set(placed)
        grew = True
        while grew:
            grew = False
            for x in model.items:
                if w[x] >= 0 and avail(placed, x):
                    placed.add(x)
                    bal += w[x]
                    grew = True
        if len(placed) == model.m:
            return True
        key = frozenset(placed)
        if key in dead or bal <= 0:
            return False
        if len(dead) > limit:
            return None
        for x in model.items:
            if w[x] < 0 and avail(placed, x):
                r = dfs(key | {x}, bal - 1)
                if r is None or r:
                    return r
        dead.add(key)
        return False
    return dfs(frozenset(), 0)


def value_single(question: str, params: dict, order: Sequence[str]) -> Any:
    """The value of a single-agent query in one completion ``order`` (best first).

    position -> 1-based position (or bool if params has ``position``); kth -> item;
    compare -> bool a ≻ b; rank_set -> list of the items in order; rs -> bool
    ``bundles[0] ⪰_RS bundles[1]``; topk -> bool; topk_list -> sorted list of the top k.
    """
    pos = {x: i + 1 for i, x in enumerate(order)}
    if question == "position":
        p = pos[params["item"]]
        return p if params.get("position") is None else p == params["position"]
    if question == "kth":
        return order[params["k"] - 1]
    if question == "compare":
        a, b = params["items"]
        return pos[a] < pos[b]
    if question == "rank_set":
        return sorted(params["items"], key=pos.__getitem__)
    if question == "rs":
        return rs_weakly_better(order, *params["bundles"])
    if question == "topk":
        return pos[params["item"]] <= params["k"]
    if question == "topk_list":
        return sorted(order[:params["k"]])
    raise CertificateError(f"unknown single-agent question {question!r}")


def scores(rule: str, items: Sequence[str], profile: Sequence[tuple[Sequence[str], int]]) -> dict:
    """Scores of a completed profile ``[(linear order, number of voters)]`` under ``rule``.

    plurality: voters ranking x first; borda: Σ items below x; copeland: pairwise wins −
    losses (a pairwise tie counts 0). O(voters·m) or O(voters·m²) for Copeland.
    """
    s = {x: 0 for x in items}
    if rule == "plurality":
        for o, w in profile:
            s[o[0]] += w
    elif rule == "borda":
        m = len(items)
        for o, w in profile:
            for i, x in enumerate(o):
                s[x] += w * (m - 1 - i)
    elif rule == "copeland":
        n = _pairwise(items, profile)
        for a, b in itertools.combinations(items, 2):
            d = n[a, b] - n[b, a]
            s[a] += (d > 0) - (d < 0)
            s[b] += (d < 0) - (d > 0)
    else:
        raise CertificateError(f"unknown rule {rule!r}")
    return s


def _pairwise(items, profile) -> dict:
    n = {(a, b): 0 for a in items for b in items if a != b}
    for o, w in profile:
        for i, a in enumerate(o):
            for b in o[i + 1:]:
                n[a, b] += w
    return n


def value_profile(model: PreferenceModel, question: str, params: dict,
                  profile: Sequence[tuple[Sequence[str], int]]) -> Any:
    """The value of a profile query in a completed profile ``[(order, voters)]``.

    count -> voters with a ≻ b; majority -> bool (2·count > voters); winner -> bool
    (params rule, item: no item scores strictly more than item).
    """
    if question in ("count", "majority"):
        a, b = params["items"]
        n = sum(w for o, w in profile if o.index(a) < o.index(b))
        return n if question == "count" else 2 * n > model.voters
    if question == "winner":
        s = scores(params["rule"], model.items, profile)
        return s[params["item"]] >= max(s.values())
    raise CertificateError(f"unknown profile question {question!r}")


def profile_from_spec(model: PreferenceModel, spec: Any) -> list:
    """Build a completed profile from a spec ``{"keys": [key...], "assign": {agent:
    [[key index, voters], ...]}}``; agents not assigned use key 0 for all their voters.
    Each voter's completion is :func:`kahn` of its key, so it is a linear extension of
    the data by construction. Raises CertificateError for a malformed spec."""
    if not isinstance(spec, dict) or not isinstance(spec.get("keys"), list) or not spec["keys"]:
        raise CertificateError("a profile completion needs a non-empty 'keys' list")
    keys, assign = spec["keys"], spec.get("assign", {})
    if not isinstance(assign, dict) or set(assign) - set(model.by_name):
        raise CertificateError("profile completion assigns an unknown agent")
    out = []
    for ag in model.agents:
        parts = assign.get(ag.name, [[0, ag.count]])
        if not isinstance(parts, list) or sum(int(p[1]) for p in parts) != ag.count or \
                any(int(p[1]) < 0 or not 0 <= int(p[0]) < len(keys) for p in parts):
            raise CertificateError(f"agent {ag.name}: assignment of its {ag.count} voters to "
                                   f"keys is malformed")
        for k, w in parts:
            if w:
                out.append((kahn(model, ag, keys[int(k)]), int(w)))
    return out


def profile_completions(model: PreferenceModel, limit: int = EXHAUSTIVE_LIMIT
                        ) -> Iterator[list] | None:
    """Every completed profile up to voter symmetry (voters of one agent take a multiset
    of linear extensions), or None if more than ``limit``. Exponential; small cases."""
    per = []
    total = 1
    for ag in model.agents:
        exts = []
        for e in linear_extensions(model, ag):
            exts.append(e)
            if len(exts) > limit:
                return None
        combos = _multichoose(len(exts), ag.count)
        total *= combos
        if total > limit:
            return None
        per.append((exts, ag.count))

    def gen():
        choices = [list(itertools.combinations_with_replacement(range(len(e)), c))
                   for e, c in per]
        for pick in itertools.product(*choices):
            prof = []
            for (exts, _), idxs in zip(per, pick):
                for i in set(idxs):
                    prof.append((exts[i], idxs.count(i)))
            yield prof
    return gen()


def _multichoose(n: int, k: int) -> int:
    from math import comb
    return comb(n + k - 1, k)


# --------------------------------------------------------------------------- bounds

def count_bounds(model: PreferenceModel, a: str, b: str) -> tuple[int, int]:
    """(min, max) over completions of the voters ranking a ≻ b: voters forced a ≻ b, and all
    voters minus those forced b ≻ a. O(agents·(m + E))."""
    key = ("count", a, b)
    if key not in model._cache:
        lo = sum(ag.count for ag in model.agents if necessarily(model, ag, a, b))
        hi = model.voters - sum(ag.count for ag in model.agents if necessarily(model, ag, b, a))
        model._cache[key] = (lo, hi)
    return model._cache[key]


def min_score_diff(model: PreferenceModel, agent: Agent, rule: str, c: str, d: str) -> int:
    """min over the agent's completions of s(c) − s(d) for one voter (plurality/Borda).

    Borda (derived, checked by brute force): if c ≻_P d, 1 + |{x: c ≻_P x ≻_P d}|; else
    |down(c)| − (m − 1 − |up(d)|). Plurality: 1 if c is above every item, else −1 if d can
    be first (nothing above d), else 0. (Xia & Conitzer 2011: per-vote minimisation.)"""
    if rule == "borda":
        if necessarily(model, agent, c, d):
            between = below(model, agent, c) & above(model, agent, d)
            return 1 + len(between)
        return len(below(model, agent, c)) - (model.m - 1 - len(above(model, agent, d)))
    if rule == "plurality":
        if len(below(model, agent, c)) == model.m - 1:
            return 1
        return -1 if not above(model, agent, d) else 0
    raise CertificateError(f"per-pair minimisation is defined for plurality/Borda, not {rule}")


def copeland_pair_range(model: PreferenceModel, a: str, b: str) -> tuple[int, int]:
    """(min, max) over completions of a's Copeland contribution against b (−1, 0 or +1)."""
    lo, hi = count_bounds(model, a, b)
    v = model.voters
    sign = lambda n: (2 * n > v) - (2 * n < v)
    return sign(lo), sign(hi)


def copeland_diff_bound(model: PreferenceModel, c: str, d: str, *, lower: bool) -> int:
    """A bound on Copeland(c) − Copeland(d) valid in every completion, pairs taken
    independently: Σ_x [c vs x] − [d vs x] (x ≠ c, d) + 2·[c vs d], each term at its
    min (``lower``) or max. Sound, not tight (derived)."""
    tot = 0
    for x in model.items:
        if x in (c, d):
            continue
        cl, ch = copeland_pair_range(model, c, x)
        dl, dh = copeland_pair_range(model, d, x)
        tot += (cl - dh) if lower else (ch - dl)
    lo, hi = copeland_pair_range(model, c, d)
    return tot + 2 * (lo if lower else hi)


def diff_bound(model: PreferenceModel, rule: str, c: str, d: str, *, lower: bool) -> int:
    """Lower (or upper) bound of score(c) − score(d) over all completed profiles; exact for
    plurality/Borda (per-vote minimisation), sound for Copeland."""
    if rule == "copeland":
        return copeland_diff_bound(model, c, d, lower=lower)
    if lower:
        return sum(ag.count * min_score_diff(model, ag, rule, c, d) for ag in model.agents)
    return -sum(ag.count * min_score_diff(model, ag, rule, d, c) for ag in model.agents)


def plurality_hall_violator(model: PreferenceModel, c: str, rivals: Iterable[str]) -> tuple:
    """(weight of voters that must give their point inside ``rivals``, |rivals|·s_c) where
    s_c is c's best plurality score (voters in which nothing is above c). If the first
    exceeds the second, c is no possible plurality co-winner (Hall's condition on the
    flow network of Betzler & Dorn 2010)."""
    D = set(rivals)
    sc = sum(ag.count for ag in model.agents if not above(model, ag, c))
    forced = 0
    for ag in model.agents:
        if not above(model, ag, c):
            continue
        tops = [x for x in model.items if not above(model, ag, x)]
        if all(x in D for x in tops):
            forced += ag.count
    return forced, len(D) * sc


# --------------------------------------------------------------------------- checker

def _agent_of(model: PreferenceModel, params: dict) -> Agent:
    try:
        return model.agent(params["agent"])
    except InstanceError as e:
        raise CertificateError(str(e)) from None


def _two_values(model, agent, question, params, cert) -> list:
    orders = cert.get("orders")
    if not isinstance(orders, list) or len(orders) != 2:
        raise CertificateError("'undetermined' needs two completions")
    vals = []
    for o in orders:
        is_completion(model, agent, o)
        vals.append(value_single(question, params, o))
    if vals[0] == vals[1]:
        raise CertificateError(f"the two completions give the same value {vals[0]!r}")
    return vals


def _chains_count(agent: Agent, chains: Any, x: str) -> tuple[set, set]:
    """Verify chains ending or starting at x; return (items proven above, items below)."""
    up, down = set(), set()
    if not isinstance(chains, list):
        raise CertificateError("'chains' must be a list")
    for ch in chains:
        if not isinstance(ch, list) or len(ch) < 2 or x not in (ch[0], ch[-1]):
            raise CertificateError(f"chain {ch!r:.60} does not start or end at {x!r}")
        if ch[-1] == x:
            check_chain(agent, ch, ch[0], x)
            up.add(ch[0])
        else:
            check_chain(agent, ch, x, ch[-1])
            down.add(ch[-1])
    return up, down


def check_certificate(model: PreferenceModel, question: str, params: dict, verdict: str,
                      solution: Any, certificate: dict) -> None:
    """Verify a preference-query certificate; raise CertificateError naming the failing step.

    Shapes (``cert["type"]``): see the module docstring and the per-question branches.
    Polynomial except ``exhaustive`` (re-enumeration; refused above EXHAUSTIVE_LIMIT).
    """
    cert = certificate or {}
    kind = cert.get("type")
    if kind == "exhaustive":
        return _check_exhaustive(model, question, params, verdict, solution)
    if question in SINGLE:
        return _check_single(model, question, params, verdict, solution, cert)
    if question in PROFILE:
        return _check_profile(model, question, params, verdict, solution, cert)
    raise CertificateError(f"unknown question {question!r}")


def _check_exhaustive(model, question, params, verdict, solution) -> None:
    """Recompute the answer by enumerating every completion (small cases only)."""
    if question in SINGLE:
        ag = _agent_of(model, params)
        vals = []
        for o in linear_extensions(model, ag):
            vals.append(value_single(question, params, o))
            if len(vals) > EXHAUSTIVE_LIMIT:
                raise CertificateError("too many completions to verify exhaustively")
    else:
        gen = profile_completions(model)
        if gen is None:
            raise CertificateError("too many completed profiles to verify exhaustively")
        vals = [value_profile(model, question, params, p) for p in gen]
    want = summarise(vals)
    if (verdict, solution) != want:
        raise CertificateError(f"exhaustive enumeration gives {want[0]} {want[1]!r}, "
                               f"not {verdict} {solution!r}")


def summarise(values: list) -> tuple[str, Any]:
    """(verdict, solution) from the values over all completions: booleans -> true/false/
    undetermined; counts/positions -> determined {"value"} or undetermined {"min","max"};
    others -> determined {"value"} or undetermined None (rank_set/topk_list excepted:
    callers compare their own solution shapes)."""
    distinct = {repr(v): v for v in values}
    if all(isinstance(v, bool) for v in values):
        if len(distinct) == 1:
            return ("true" if values[0] else "false"), None
        return "undetermined", None
    if len(distinct) == 1:
        return "determined", {"value": values[0]}
    if all(isinstance(v, int) for v in values):
        return "undetermined", {"min": min(values), "max": max(values)}
    return "undetermined", None


def _check_single(model, question, params, verdict, solution, cert) -> None:
    ag = _agent_of(model, params)
    m = model.m
    chains = cert.get("chains", [])
    if verdict == "undetermined":
        vals = _two_values(model, ag, question, params, cert)
    if question == "compare":
        a, b = params["items"]
        if verdict == "true":
            return check_chain(ag, cert.get("chain"), a, b)
        if verdict == "false":
            return check_chain(ag, cert.get("chain"), b, a)
        return _expect(verdict == "undetermined", verdict)
    if question == "topk":
        x, k = params["item"], params["k"]
        up, down = _chains_count(ag, chains, x)
        if verdict == "true" and m - len(down) > k:
            raise CertificateError(f"only {len(down)} items proven below {x!r}; need {m - k}")
        if verdict == "false" and len(up) < k:
            raise CertificateError(f"only {len(up)} items proven above {x!r}; need {k}")
        return _expect(verdict in ("true", "false", "undetermined"), verdict)
    if question == "position":
        x, p = params["item"], params.get("position")
        up, down = _chains_count(ag, chains, x)
        lo, hi = len(up) + 1, m - len(down)
        if p is not None:
            if verdict == "true" and not lo == hi == p:
                raise CertificateError(f"chains prove position in [{lo}, {hi}], not = {p}")
            if verdict == "false" and lo <= p <= hi:
                raise CertificateError(f"chains prove position in [{lo}, {hi}], not ≠ {p}")
            return _expect(verdict in ("true", "false", "undetermined"), verdict)
        if verdict == "determined":
            if not lo == hi == _sol(solution):
                raise CertificateError(f"chains prove position in [{lo}, {hi}], not "
                                       f"= {_sol(solution)}")
            return
        _expect(verdict == "undetermined", verdict)
        if solution != {"min": min(vals), "max": max(vals)} or (lo, hi) != (min(vals), max(vals)):
            raise CertificateError(f"range {solution!r} not proven: chains give [{lo}, {hi}], "
                                   f"completions give {vals}")
        return
    if question == "kth":
        k = params["k"]
        if verdict == "determined":
            x = _sol(solution)
            if x not in model.items:
                raise CertificateError(f"unknown item {x!r}")
            up, down = _chains_count(ag, chains, x)
            if len(up) != k - 1 or len(down) != m - k:
                raise CertificateError(f"chains prove {len(up)} above / {len(down)} below "
                                       f"{x!r}; need {k - 1} / {m - k}")
            return
        return _expect(verdict == "undetermined" and solution is None, verdict)
    if question == "rank_set":
        S = params["items"]
        pairs = (solution or {}).get("pairs") if verdict == "undetermined" else None
        if verdict == "determined":
            seq = _sol(solution)
            if sorted(seq) != sorted(S):
                raise CertificateError("solution is not an ordering of the asked items")
            pairs = [[x, y] for x, y in zip(seq, seq[1:])]
        if not isinstance(pairs, list) or len(chains) != len(pairs):
            raise CertificateError("rank_set needs one chain per claimed pair")
        for (x, y), ch in zip(pairs, chains):
            if x not in S or y not in S:
                raise CertificateError(f"pair {x!r}, {y!r} is outside the asked set")
            check_chain(ag, ch, x, y)
        if verdict == "undetermined":
            claimed = {tuple(p) for p in pairs}
            for x in S:
                for y in S:
                    if x != y and necessarily(model, ag, x, y) and (x, y) not in claimed:
                        raise CertificateError(f"pair {x!r} ≻ {y!r} is determined but missing")
        return
    if question == "topk_list":
        k = params["k"]
        if verdict == "determined":
            T = _sol(solution)
            if not isinstance(T, list) or len(set(T)) != k or not set(T) <= set(model.items):
                raise CertificateError("solution is not a set of k items")
            for x in T:
                _, down = _chains_count(ag, [c for c in chains if c and c[0] == x], x)
                if len(down) < m - k:
                    raise CertificateError(f"only {len(down)} items proven below {x!r}")
            return
        _expect(verdict == "undetermined", verdict)
        nec = sorted(x for x in model.items if len(below(model, ag, x)) >= m - k)
        pos = sorted(x for x in model.items if len(above(model, ag, x)) < k)
        if solution != {"necessary": nec, "possible": pos}:
            raise CertificateError(f"necessary/possible members are {nec}/{pos}")
        return
    if question == "rs":
        A, B = (list(b) for b in params["bundles"])
        if verdict == "true":
            f = cert.get("map")
            if not isinstance(f, dict) or set(f) != set(B) or len(set(f.values())) != len(B) \
                    or not set(f.values()) <= set(A):
                raise CertificateError("the injection must map every item of the worse bundle "
                                       "to a distinct item of the better bundle")
            ch = cert.get("chains", {})
            for y, x in f.items():
                if x != y:
                    check_chain(ag, ch.get(y), x, y)
            return
        if verdict == "false":
            A2, B2 = set(A) - set(B), set(B) - set(A)
            if cert.get("reason") == "size" and len(A2) < len(B2):
                return
            if cert.get("type") == "rs_search":
                found = rs_possible(model, ag, A, B)
                if found is None:
                    raise CertificateError("RS search too large to verify")
                if found:
                    raise CertificateError("a completion with the better bundle ⪰_RS exists")
                return
            raise CertificateError("'false' for rs needs the size argument or a search proof")
        return _expect(verdict == "undetermined", verdict)
    raise CertificateError(f"unknown question {question!r}")


def _sol(solution) -> Any:
    if not isinstance(solution, dict) or "value" not in solution:
        raise CertificateError("a determined value needs solution {'value': ...}")
    return solution["value"]


def _expect(ok: bool, verdict: str) -> None:
    if not ok:
        raise CertificateError(f"verdict {verdict!r} is not proven by this certificate")


def _check_profile(model, question, params, verdict, solution, cert) -> None:
    wit = cert.get("witnesses", {})
    if question in ("count", "majority"):
        a, b = params["items"]
        lo, hi = count_bounds(model, a, b)
        if question == "count":
            want = ("determined", {"value": lo}) if lo == hi else \
                ("undetermined", {"min": lo, "max": hi})
        else:
            v = model.voters
            want = ("true" if 2 * lo > v else "false" if 2 * hi <= v else "undetermined",
                    {"min": lo, "max": hi})
        if (verdict, solution) != want:
            raise CertificateError(f"bounds by reachability are {lo}..{hi}: answer "
                                   f"{want[0]} {want[1]!r}, not {verdict} {solution!r}")
        for name, target in (("min", lo), ("max", hi)):
            if want[0] == "undetermined" or question == "count":
                if lo == hi and question == "count":
                    break
                got = value_profile(model, "count", params,
                                    profile_from_spec(model, wit.get(name)))
                if got != target:
                    raise CertificateError(f"the {name} witness has {got} voters, not {target}")
        return
    if question != "winner":
        raise CertificateError(f"unknown question {question!r}")
    rule, c = params["rule"], params["item"]
    if verdict == "true":
        if rule == "copeland" and cert.get("type") != "bounds":
            raise CertificateError("necessary Copeland winner needs bounds or exhaustive proof")
        for d in model.items:
            if d != c and diff_bound(model, rule, c, d, lower=True) < 0:
                raise CertificateError(f"per-pair minimisation: {d!r} can beat {c!r}")
        return
    if verdict == "false":
        if cert.get("type") == "hall_violator" and rule == "plurality":
            D = cert.get("set")
            if not isinstance(D, list) or c in D or not set(D) <= set(model.items):
                raise CertificateError("Hall violator must be a set of rivals")
            forced, cap = plurality_hall_violator(model, c, D)
            if forced <= cap:
                raise CertificateError(f"{forced} forced voters fit in {cap} places")
            return
        if cert.get("type") == "dominated":
            d = cert.get("by")
            if d not in model.items or d == c:
                raise CertificateError("dominated needs a rival item")
            ub = diff_bound(model, rule, c, d, lower=False)
            if ub >= 0:
                raise CertificateError(f"score({c}) − score({d}) can reach {ub} ≥ 0")
            return
        raise CertificateError("'false' for winner needs hall_violator, dominated or exhaustive")
    _expect(verdict == "undetermined", verdict)
    win = value_profile(model, "winner", params, profile_from_spec(model, wit.get("win")))
    lose = value_profile(model, "winner", params, profile_from_spec(model, wit.get("lose")))
    if not win or lose:
        raise CertificateError(f"witnesses: {c!r} wins={win} in 'win', wins={lose} in 'lose'")


def resolve(q: Any) -> tuple[str, dict]:
    """A question dict ``{"type": ..., params}`` -> (name, params). InstanceError if bad."""
    if not isinstance(q, dict) or q.get("type") not in QUESTIONS:
        raise InstanceError(f"a preference question is an object with 'type' in "
                            f"{', '.join(QUESTIONS)}", value=q)
    name = q["type"]
    p = {k: v for k, v in q.items() if k != "type"}
    need = {"position": ("agent", "item"), "kth": ("agent", "k"), "compare": ("agent", "items"),
            "rank_set": ("agent", "items"), "rs": ("agent", "bundles"),
            "topk": ("agent", "item", "k"), "topk_list": ("agent", "k"),
            "count": ("items",), "majority": ("items",), "winner": ("rule", "item")}[name]
    for k in need:
        if k not in p:
            raise InstanceError(f"question {name!r} needs {k!r}", value=q)
    if name in ("compare", "count", "majority"):
        if not (isinstance(p["items"], list) and len(p["items"]) == 2
                and p["items"][0] != p["items"][1]):
            raise InstanceError(f"question {name!r} needs two distinct items", value=p["items"])
    if name == "rank_set" and not (isinstance(p["items"], list) and p["items"]):
        raise InstanceError("rank_set needs a non-empty list of items", value=p["items"])
    if name == "rank_set":
        p["items"] = list(dict.fromkeys(p["items"]))
    if name == "rs" and not (isinstance(p["bundles"], list) and len(p["bundles"]) == 2
                             and all(isinstance(b, list) for b in p["bundles"])):
        raise InstanceError("rs needs two bundles [[...], [...]]", value=p["bundles"])
    if name == "rs":
        p["bundles"] = [list(dict.fromkeys(b)) for b in p["bundles"]]
    if name == "winner" and p["rule"] not in RULES:
        raise InstanceError(f"rule must be one of {', '.join(RULES)}", value=p["rule"])
    return name, p


def validate(model: PreferenceModel, name: str, params: dict) -> None:
    """Raise InstanceError for a question naming an unknown agent/item or a bad k/position."""
    items = set(model.items)

    def item(x):
        if x not in items:
            raise InstanceError(f"question {name!r} names an unknown item", value=x)
    if name in SINGLE and params.get("agent") not in model.by_name:
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
