"""Necessary and possible (co-)winners under plurality, Borda and Copeland.

Konczak & Lang 2005; Xia & Conitzer 2011 (NW for scoring rules by per-vote minimisation);
Betzler & Dorn 2010 (plurality PW as a flow). Possible Borda/Copeland winners and
necessary Copeland winners are NP-/coNP-complete: here they are settled by sound bounds
(a rival that beats c in every completion; per-pair bounds), a heuristic completion, and
brute force over all completions on small profiles; otherwise ``unknown`` (the CP-SAT
encoding is then the engine).

Answer of ``winner(rule, c)``: ``true`` = necessary co-winner, ``false`` = not a possible
co-winner, ``undetermined`` = possible but not necessary (with a winning and a losing
completion).
"""
from __future__ import annotations

import itertools
import time
from math import comb

import networkx as nx
import numpy as np

from ..formal.outcome import UNKNOWN, Outcome
from ..formal.preference import PreferenceModel
from .preference import closure
from .rules import rule_engine, score_order
from .stable_matching_brute_force import within

BRUTE_FORCE_LIMIT = 100_000


def _tally(rule: str, idx: dict, order) -> np.ndarray:
    """One voter's contribution: its score vector (plurality, Borda) or, for Copeland, its
    pairwise matrix [a ≻ b], from the numpy position vector of ``order`` (the rule
    engine's ``vote_tally``, :mod:`prefcert.oracles.rules`)."""
    e = rule_engine(rule)
    m = len(idx)
    pos = np.empty(m, dtype=np.int64)
    pos[[idx[x] for x in order]] = np.arange(m)
    return e.vote_tally(pos)


def _final(rule: str, total: np.ndarray) -> np.ndarray:
    """Scores from the summed tallies (Copeland: wins − losses of the pairwise margins)."""
    return rule_engine(rule).final(total)


def scores(rule: str, items, profile) -> dict:
    """Scores of a completed profile ``[(linear order, voters)]`` under ``rule`` (see the
    module docstring). Engine twin of the checker's definition, summed with numpy from
    a position matrix of the distinct orders (identical orders aggregated, their voters
    added) instead, so a bug cannot make the engines and the checker agree.
    O(voters·m) to aggregate, then O(k·m) numpy work (k·m² for Copeland) for k distinct
    orders."""
    idx = {x: i for i, x in enumerate(items)}
    m = len(idx)
    agg: dict = {}
    for o, w in profile:
        t = tuple(o)
        agg[t] = agg.get(t, 0) + w
    order = np.array([[idx[x] for x in o] for o in agg], dtype=np.int64).reshape(len(agg), m)
    w = np.fromiter(agg.values(), dtype=np.int64, count=len(agg))
    s = _matrix_scores(rule, order, w)
    return {x: int(s[i]) for i, x in enumerate(items)}


def _matrix_scores(rule: str, order: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Scores (by item index) of the orders given as rows of item indices, best first,
    row r weighing w[r] voters. O(k·m) numpy work (k·m² for Copeland) for k rows."""
    return score_order(rule, order, w)


def _min_diff(model: PreferenceModel, ag, rule: str, c: str, d: str) -> int:
    """min over one voter's completions of s(c) − s(d) (per-vote rules: plurality / Borda)."""
    return rule_engine(rule).vote_min_diff(closure(model, ag), c, d)


def diff_bound(model: PreferenceModel, rule: str, c: str, d: str, *, lower: bool) -> int:
    """Lower (or upper) bound of score(c) − score(d) over all completed profiles (the rule
    engine's ``diff_bound``): per-vote minimisation for plurality/Borda (exact), for
    Copeland each pairwise contest at its own extreme (sound). Engine twin of the
    checker's bound, from the oracle's closure bitsets, so a bug cannot make the engine's
    verdict and the checker agree."""
    return rule_engine(rule).diff_bound(model, c, d, lower=lower)


def _extremal(model: PreferenceModel, ag, rule: str, c: str, d: str) -> list:
    """A completion of one voter attaining the minimum of s(c) − s(d) (per-vote rules)."""
    return rule_engine(rule).extremal(model, ag, c, d)


class _Spec:
    """Builds a profile-completion spec: keys (deduplicated) and voter assignments."""

    def __init__(self):
        self.keys, self.index, self.assign = [], {}, {}
        self._last = self._last_k = None

    def key(self, order: list) -> int:
        if order is self._last:         # the same (unchanged) list as the previous call
            return self._last_k
        t = tuple(order)
        if t not in self.index:
            self.index[t] = len(self.keys)
            self.keys.append(list(order))
        self._last, self._last_k = order, self.index[t]
        return self._last_k

    def put(self, agent: str, order: list, voters: int):
        self.assign.setdefault(agent, []).append([self.key(order), voters])

    def json(self) -> dict:
        """Agents whose voters all use key 0 are left out (the spec's default)."""
        return {"keys": self.keys,
                "assign": {a: p for a, p in self.assign.items() if p != [[0, sum(w for _, w in p)]]}}


def key_for(model: PreferenceModel, first: list, last: list) -> list:
    """A completion key: ``first``, the other items in instance order, then ``last``."""
    fl = set(first) | set(last)
    return list(first) + [x for x in model.items if x not in fl] + list(last)


def _plain(model: PreferenceModel, ag) -> bool:
    """A weak order over all items (complete, or truncated): Kahn on a key sorts ties by
    the key, so a key with d first and c last is extremal for every such voter."""
    return model.ints.plain[ag.i]


def _profile(model: PreferenceModel, spec: _Spec) -> list:
    """The completed profile ``[(order, voters)]`` of a spec (agents not assigned: key 0),
    each key completed by :meth:`Closure.complete`."""
    out, pos = [], [{x: i for i, x in enumerate(key)} for key in spec.keys]
    for ag in model.agents:
        for k, w in spec.assign.get(ag.name, [[0, ag.count]]):
            out.append((closure(model, ag).complete(spec.keys[k], pos[k]), w))
    return out


def _tie_matrix(model: PreferenceModel) -> tuple:
    """(plain, ties, counts): per agent (rows in model order) whether its closure is a weak
    order over all items (``Closure.blocks``), the rank of each item's tie (the integer
    form's rank array, columns in item order; 0 for the other agents) and its voters.
    Cached."""
    key = ("oracle-tie-matrix",)
    if key not in model._cache:
        ints = model.ints
        plain = np.array(ints.plain, dtype=bool)
        ties = np.zeros((len(model.agents), model.m), dtype=np.int64)
        for r, rank in enumerate(ints.rank):
            if plain[r]:                    # tie ranks 1.. (the truncated tail last)
                ties[r] = rank
        model._cache[key] = plain, ties, np.array(ints.count, dtype=np.int64)
    return model._cache[key]


def _spec_scores(model: PreferenceModel, rule: str, spec: _Spec) -> dict:
    """:func:`scores` of :func:`_profile` ``(spec)``, without building the profile voter by
    voter where it can be avoided: the agents on key 0 whose closure is a weak order over
    all items complete all at once (each row of tie indices, read in key order, stably
    sorted: ties in turn, each in key order, as :meth:`Closure.complete`); the others are
    completed one by one. O(agents·m log m) numpy work."""
    plain, ties, counts = _tie_matrix(model)
    idx = model.ints.item_index
    fast = plain.copy()
    for r, ag in enumerate(model.agents):
        if ag.name in spec.assign:
            fast[r] = False
    kidx = np.array([idx[x] for x in spec.keys[0]], dtype=np.int64)
    rows = [kidx[np.argsort(ties[fast][:, kidx], axis=1, kind="stable")]]
    weights = [counts[fast]]
    rest = [ag for r, ag in enumerate(model.agents) if not fast[r]]
    if rest:
        pos = [{x: i for i, x in enumerate(key)} for key in spec.keys]
        slow = [(closure(model, ag).complete(spec.keys[k], pos[k]), w) for ag in rest
                for k, w in spec.assign.get(ag.name, [[0, ag.count]])]
        rows.append(np.array([[idx[x] for x in o] for o, _ in slow],
                             dtype=np.int64).reshape(len(slow), model.m))
        weights.append(np.array([w for _, w in slow], dtype=np.int64))
    s = _matrix_scores(rule, np.concatenate(rows), np.concatenate(weights))
    return {x: int(s[i]) for i, x in enumerate(model.items)}


def _wins(model, rule, c, spec) -> bool:
    s = _spec_scores(model, rule, spec)
    return s[c] >= max(s.values())


def _lose_witness(model: PreferenceModel, rule: str, c: str, d: str) -> dict:
    spec, key = _Spec(), key_for(model, [d], [c])
    for ag in model.agents:
        if _plain(model, ag):
            spec.put(ag.name, key, ag.count)
        else:
            spec.put(ag.name, _extremal(model, ag, rule, c, d), ag.count)
    return spec.json()


def _necessary(model: PreferenceModel, rule: str, c: str):
    """(True, None) if c is a necessary co-winner (exact for per-vote rules: plurality,
    Borda), else (False, lose-witness spec)."""
    for d in model.items:
        if d == c:
            continue
        if diff_bound(model, rule, c, d, lower=True) < 0:
            return False, _lose_witness(model, rule, c, d)
    return True, None


def plurality_possible(model: PreferenceModel, c: str):
    """Betzler & Dorn 2010 flow: (True, win spec) or (False, Hall-violating rival set)."""
    spec, key = _Spec(), key_for(model, [c], [])
    sc, forced = 0, []
    for ag in model.agents:
        C = closure(model, ag)
        if C.up[c] == 0:
            sc += ag.count
            spec.put(ag.name, key, ag.count)
        else:
            forced.append(ag)
    if not forced:
        return True, spec.json()
    # Integer nodes (source 0, sink 1, items 2.., voters after): networkx keeps some
    # vertex sets internally, and small ints iterate in the same order under every hash
    # seed, so the flow — and the witness built from it — is reproducible.
    item_node = {x: 2 + i for i, x in enumerate(model.items)}
    need = sum(ag.count for ag in forced)
    # No flow saturates the voters: the rival set is the cut's, computed on the network
    # with voters aggregated by their possible tops (the same set, see _aggregated_cut).
    val, S = _aggregated_cut(model, forced, item_node, c, sc)
    if val < need:
        return False, [x for x in model.items if item_node[x] in S]
    # A flow exists: the win witness is read from networkx's flow on the voter-level
    # network (one node per ballot), as it always was.
    g = nx.DiGraph()
    for k, ag in enumerate(forced):
        C = closure(model, ag)
        v = 2 + model.m + k
        g.add_edge(0, v, capacity=ag.count)
        for x in model.items:
            if C.up[x] == 0:
                g.add_edge(v, item_node[x])
    for x in model.items:
        if x != c:
            g.add_edge(item_node[x], 1, capacity=sc)
    val, flow = nx.maximum_flow(g, 0, 1)
    keys = {x: key_for(model, [x, c], []) for x in model.items}
    for k, ag in enumerate(forced):
        out = flow[2 + model.m + k]
        for x in model.items:
            if out.get(item_node[x]):
                spec.put(ag.name, keys[x], out[item_node[x]])
    return True, spec.json()


def _aggregated_cut(model: PreferenceModel, forced: list, item_node: dict, c: str,
                    sc: int) -> tuple[int, set]:
    """Maximum flow value and the source side of the minimum cut with the largest source
    side (the nodes that cannot reach the sink in the residual network) of the flow
    network of :func:`plurality_possible`, with the forced voters aggregated by their
    sets of possible tops (one node per set, capacity the summed counts).

    The cut depends on the items only: for a rival set D, the cut {s} ∪ D ∪ {voters
    whose tops lie in D} costs Σ{count: tops ⊄ D} + |D|·sc, the same function of D on
    both networks, and the minimisers of a cut function form a lattice whose largest
    element is that cut's item part (Ford & Fulkerson 1962). So the rival set is the one
    networkx's ``minimum_cut`` gives on the voter-level network, whatever maximum flow
    is used; the network has at most min(voters, 2^m) voter nodes instead of one per
    ballot. O(voters · m) to aggregate plus a max-flow on the small network."""
    classes: dict = {}
    for ag in forced:
        C = closure(model, ag)
        tops = tuple(item_node[x] for x in model.items if C.up[x] == 0)
        classes[tops] = classes.get(tops, 0) + ag.count
    h = nx.DiGraph()
    for k, (tops, w) in enumerate(classes.items()):
        v = 2 + model.m + k
        h.add_edge(0, v, capacity=w)
        for t in tops:
            h.add_edge(v, t)
    for x in model.items:
        if x != c:
            h.add_edge(item_node[x], 1, capacity=sc)
    val, (S, _) = nx.minimum_cut(h, 0, 1)
    return val, S


def _splits(spec: dict) -> bool:
    """Does a profile spec give one agent's voters different keys?"""
    return any(len({k for k, w in parts if w}) > 1 for parts in spec["assign"].values())


def _dominator(model: PreferenceModel, rule: str, c: str):
    """A rival d with score(c) < score(d) in every completion, by per-pair bounds."""
    for d in model.items:
        if d != c and diff_bound(model, rule, c, d, lower=False) < 0:
            return d
    return None


def _heuristic_win(model: PreferenceModel, rule: str, c: str, rounds: int = 4):
    """c as high as possible in every vote, rivals ordered weakest first, re-sorted by
    their scores for a few rounds. Returns a win spec or None."""
    rivals = [x for x in model.items if x != c]
    for _ in range(rounds):
        spec = _Spec()
        spec.key(key_for(model, [c] + rivals, []))     # key 0: every voter's (the default)
        s = _spec_scores(model, rule, spec)
        if s[c] >= max(s.values()):
            return spec.json()
        rivals.sort(key=lambda x: s[x])
    return None


def _heuristic_lose(model: PreferenceModel, rule: str, c: str):
    for d in model.items:
        if d == c:
            continue
        spec = _Spec()
        spec.key(key_for(model, [d], [c]))             # key 0: every voter's (the default)
        if not _wins(model, rule, c, spec):
            return spec.json()
    return None


def winner(model: PreferenceModel, params: dict, *, time_limit: float = 10.0) -> Outcome:
    """Three-valued co-winner question (see module docstring); exact for plurality, and
    for Borda NW; Borda PW and Copeland by bounds + heuristics + brute force (small)."""
    rule, c = params["rule"], params["item"]
    engine = rule_engine(rule)
    if engine.per_vote:
        nec, lose = _necessary(model, rule, c)
        if nec:
            return Outcome("true", None, {"type": "bounds"})
    else:
        if all(diff_bound(model, rule, c, d, lower=True) >= 0 for d in model.items if d != c):
            return Outcome("true", None, {"type": "bounds"})
        lose = _heuristic_lose(model, rule, c)
    if engine.possible_flow:
        ok, res = plurality_possible(model, c)
        if not ok:       # sound under both readings of counts: no split flow, no flow
            return Outcome("false", None, {"type": "hall_violator", "set": res})
        if not model.identical or not _splits(res):
            return Outcome("undetermined", None,
                           {"type": "completions", "witnesses": {"win": res, "lose": lose}})
        # identical counts: the flow splits an agent's voters, so it is no completion
        # (possible plurality winners of weighted voters are NP-complete)
        return brute_force_winner(model, params, time_limit=time_limit)
    d = _dominator(model, rule, c)
    if d is not None:
        return Outcome("false", None, {"type": "dominated", "by": d})
    win = _heuristic_win(model, rule, c)
    if win is not None and lose is not None:
        return Outcome("undetermined", None,
                       {"type": "completions", "witnesses": {"win": win, "lose": lose}})
    bf = brute_force_winner(model, params, time_limit=time_limit)
    return bf


def _extensions(model: PreferenceModel, ag, deadline: float | None = None) -> list:
    """All linear extensions of one voter's datum as tuples of item numbers
    (itertools.permutations of the numbers, filtered by the base relation of the integer
    form); TimeoutError past ``deadline``."""
    succ = model.ints.base_succ(ag.i)
    edges = [(a, b) for a, bs in enumerate(succ) for b in bs]
    out = []
    pos = [0] * model.m
    for p in within(itertools.permutations(range(model.m)), deadline):
        for i, x in enumerate(p):
            pos[x] = i
        if all(pos[a] < pos[b] for a, b in edges):
            out.append(p)
    return out


def brute_force_winner(model: PreferenceModel, params: dict, *, time_limit: float = 10.0
                       ) -> Outcome:
    """Enumerate every completed profile (voters of one agent as a multiset of linear
    extensions). ``unknown`` if more than BRUTE_FORCE_LIMIT profiles or m > 8 or time out.
    Certificates: ``exhaustive`` (true/false), two completions (undetermined)."""
    rule, c = params["rule"], params["item"]
    if len(model.items) > 8:
        return Outcome(UNKNOWN, None, None, {"reason": "too many items for brute force"})
    t0 = time.perf_counter()
    per, total = [], 1
    voters = {ag.name: 1 if model.identical else ag.count for ag in model.agents}
    for ag in model.agents:
        try:
            ex = _extensions(model, ag, t0 + time_limit)
        except TimeoutError:
            return Outcome(UNKNOWN, None, None, {"reason": "time limit"})
        total *= comb(len(ex) + voters[ag.name] - 1, voters[ag.name])
        if total > BRUTE_FORCE_LIMIT:
            return Outcome(UNKNOWN, None, None, {"reason": "too many completions"})
        per.append((ag, ex))
    win = lose = None
    # counts = identical: each agent is one voter of weight count
    choices = [list(itertools.combinations_with_replacement(range(len(ex)), voters[ag.name]))
               for ag, ex in per]
    idx = {x: x for x in range(model.m)}
    tallies = [[(ag.count // voters[ag.name]) * _tally(rule, idx, o) for o in ex]
               for ag, ex in per]
    # per agent, the summed tally of each of its choices (a multiset of extensions),
    # made on first use: the search often stops after a few profiles
    sums: list[dict] = [{} for _ in per]

    def summed(a: int, j: int):
        got = sums[a].get(j)
        if got is None:
            t = tallies[a]
            got = sums[a][j] = sum(t[i] for i in choices[a][j])
        return got
    ci = model.ints.item_index[c]
    for pick in itertools.product(*(range(len(ch)) for ch in choices)):
        if time.perf_counter() - t0 > time_limit:
            return Outcome(UNKNOWN, None, None, {"reason": "time limit"})
        s = _final(rule, sum(summed(a, j) for a, j in enumerate(pick)))
        if s[ci] >= s.max():
            win = win or pick
        else:
            lose = lose or pick
        if win and lose:
            break
    if win and lose:
        items = model.items

        def spec(pick):
            sp = _Spec()
            for (ag, ex), ch, j in zip(per, choices, pick):
                idxs = ch[j]
                for i in sorted(set(idxs)):
                    sp.put(ag.name, [items[x] for x in ex[i]],
                           idxs.count(i) * (ag.count // voters[ag.name]))
            return sp.json()
        return Outcome("undetermined", None, {"type": "completions",
                                              "witnesses": {"win": spec(win), "lose": spec(lose)}})
    return Outcome("true" if win else "false", None, {"type": "exhaustive"})
