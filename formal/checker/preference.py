"""Epistemic preference queries: the bounds the certificates rest on and one check per
certificate type (model, data, question format and values: :mod:`prefcert.formal.preference`).

- ``chain`` (compare): stated relations a = x0 ≻ x1 ≻ … ≻ xk = b, so a ≻ b in every
  completion (transitivity; Konczak & Lang 2005).
- ``chains`` (position, kth, rank_set, topk, topk_list): chains to / from an item prove the
  items necessarily above / below it, so its position lies in [|up| + 1, m − |down|].
- ``completions`` (undetermined): two completions with different values — linear orders of
  one agent, or for ``winner`` profile specs ``{"keys", "assign"}`` (each voter completed
  by :func:`kahn` of its key).
- ``bounds``: the count range of a ≻ b recomputed by reachability, with witnesses of both
  ends when it is not a point (count, majority); per-rival lower bounds of the score
  difference for a necessary winner (Xia & Conitzer 2011).
- ``injection``, ``size``, ``rs_search``: responsive sets (Aziz, Gaspers, Mackenzie &
  Walsh 2015). ``hall_violator`` (Betzler & Dorn 2010), ``dominated``, ``exhaustive``
  (small instances only): no possible / a necessary winner.

``chains``, ``completions`` and ``bounds`` register their logic per question type
(:class:`~prefcert.formal.spec.ByQuestion`); the winner question's rules and their bounds
are those of :mod:`prefcert.formal.rules` that support incomplete profiles (any other
rule is refused).
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from functools import partial
from math import comb
from typing import Any

from ..errors import CertificateError, InstanceError
from ..preference import (
    CONVENTIONS,
    PARAMS,
    QUERIES,
    SEMANTICS,
    Agent,
    PreferenceModel,
    closure_bits,
    direct,
    kahn_ints,
    key_numbers,
    linear_extensions_ints,
    necessarily,
    parse_preference_data,
    predecessors,
    resolve,
    rs_sizes_allowed,
    validate,
    value_profile_ints,
    value_single,
)
from ..rules import RULES, PartialProfile, Rule, Vote, rule_named, rule_names
from ..spec import (
    PREFERENCE_LIST,
    ByQuestion,
    DomainSpec,
    QuestionSpec,
    instance_schema,
)

EXHAUSTIVE_LIMIT = 200_000   # completions the checker will enumerate

_TF = ("true", "false", "undetermined")
_DU = ("determined", "undetermined")
_STR = {"type": "string"}
_STRS = {"type": "array", "items": _STR}
_PAIR = {"type": "array", "minItems": 2, "maxItems": 2, "items": _STR}
_WORDS = {"agent": _STR, "item": _STR, "items": dict(_STRS, minItems=1),
          "item_pair": dict(_PAIR, uniqueItems=True),
          "bundles": {"type": "array", "minItems": 2, "maxItems": 2, "items": _STRS},
          "int": {"type": "integer", "minimum": 1},
          "rule": {"enum": list(rule_names(incomplete=True))}}


def _param(word: str) -> dict:
    w = _WORDS[word.rstrip("?")]
    return {"anyOf": [w, {"type": "null"}]} if word.endswith("?") else w


_DATUM = {"type": "object", "additionalProperties": False,
          "oneOf": [{"required": [k]} for k in ("order", "edges", "choices")],
          "properties": {"order": PREFERENCE_LIST, "edges": {"type": "array", "items": _PAIR},
                         "choices": {"type": "array", "items": {
                             "type": "array", "minItems": 2, "maxItems": 2,
                             "prefixItems": [dict(_STRS, minItems=1, uniqueItems=True), _STR]}},
                         "count": {"type": "integer", "minimum": 1}}}
_QUESTION = {"anyOf": [{"type": "object", "required": ["type"] + [k for k, w in ps.items()
                                                                 if not w.endswith("?")],
                        "properties": {"type": {"const": q},
                                       **{k: _param(w) for k, w in ps.items()}}}
                       for q, ps in PARAMS.items()]}

SPEC = DomainSpec(
    name="preference",
    parse=parse_preference_data,
    questions={q.name: QuestionSpec(q.name, q.verdicts, q.doc, q.params, q.conventions,
                                    q.solutions) for q in QUERIES.values()},
    schema=instance_schema("preference", {
        "items": dict(_STRS, minItems=1, uniqueItems=True),
        "semantics": {"enum": list(SEMANTICS)},
        "profile": {"type": "object", "minProperties": 1,
                    "additionalProperties": {"anyOf": [PREFERENCE_LIST, _DATUM]}},
        "preflib": {"type": "object", "properties": {
            "suffix": _STR, "header": {"type": "array", "items": _PAIR}}},
    }, ["profile"], _QUESTION, CONVENTIONS),
    resolve=resolve,
    validate=validate,
    conventions=CONVENTIONS,
    rules=rule_names(incomplete=True),
)


# --------------------------------------------------------------------------- definitions

def profile_from_spec(model: PreferenceModel, spec: Any) -> list:
    """:func:`profile_from_spec_ints` with the orders as item names."""
    items = model.items
    return [([items[x] for x in o], w) for o, w in profile_from_spec_ints(model, spec)]


def profile_from_spec_ints(model: PreferenceModel, spec: Any) -> list:
    """Build a completed profile, on item numbers, from a spec ``{"keys": [key...],
    "assign": {agent: [[key index, voters], ...]}}``; agents not assigned use key 0 for
    all their voters. Each voter's completion is :func:`kahn` of its key, so it is a
    linear extension of the data by construction; one completion per (row, key), shared
    by its voters. Raises CertificateError for a malformed spec."""
    if not isinstance(spec, dict) or not isinstance(spec.get("keys"), list) or not spec["keys"]:
        raise CertificateError("a profile completion needs a non-empty 'keys' list")
    keys, assign = spec["keys"], spec.get("assign", {})
    if not isinstance(assign, dict) or set(assign) - set(model.by_name):
        raise CertificateError("profile completion assigns an unknown agent")
    ints = model.ints
    plain, rank = ints.plain, ints.rank
    out = []
    seqs: dict = {}                         # key index -> its item numbers, checked once
    for ag in model.agents:
        r = ag.i
        parts = assign.get(ag.name)
        if parts is None:
            if plain[r] and 0 in seqs:      # the common case, inlined: a weak order on key 0
                out.append((sorted(seqs[0], key=rank[r].__getitem__), ag.count))
                continue
            parts = [[0, ag.count]]
        elif not isinstance(parts, list) or sum(int(p[1]) for p in parts) != ag.count or \
                any(int(p[1]) < 0 or not 0 <= int(p[0]) < len(keys) for p in parts):
            raise CertificateError(f"agent {ag.name}: assignment of its {ag.count} voters to "
                                   f"keys is malformed")
        elif model.identical and len({int(k) for k, w in parts if int(w)}) > 1:
            raise CertificateError(f"agent {ag.name}: its voters complete alike (counts = "
                                   f"identical) but are given different keys")
        for k, w in parts:
            if w:
                k = int(k)
                seq = seqs.get(k)
                if seq is None:
                    seq = seqs[k] = key_numbers(model, keys[k])
                if plain[r]:                # kahn_ints of a weak order, inlined
                    out.append((sorted(seq, key=rank[r].__getitem__), int(w)))
                else:
                    out.append((kahn_ints(model, r, seq), int(w)))
    return out


def profile_completions(model: PreferenceModel) -> Iterator[list] | None:
    """Every completed profile up to voter symmetry (the voters of one agent take a
    multiset of linear extensions), on item numbers, or None if more than
    EXHAUSTIVE_LIMIT. Exponential."""
    per, total, limit = [], 1, EXHAUSTIVE_LIMIT
    for ag in model.agents:
        exts = list(itertools.islice(linear_extensions_ints(model, ag), limit + 1))
        voters = 1 if model.identical else ag.count      # identical: one weighted voter
        total *= comb(len(exts) + voters - 1, voters)
        if len(exts) > limit or total > limit:
            return None
        per.append((exts, list(itertools.combinations_with_replacement(range(len(exts)),
                                                                       voters))))
    weight = [ag.count if model.identical else 1 for ag in model.agents]
    return ([(exts[i], w * idxs.count(i)) for (exts, _), idxs, w in zip(per, pick, weight)
             for i in set(idxs)]
            for pick in itertools.product(*(c for _, c in per)))


def count_bounds(model: PreferenceModel, a: Any, b: Any) -> tuple[int, int]:
    """(min, max) over completions of the voters ranking a ≻ b (item numbers): voters
    forced a ≻ b, and all voters minus those forced b ≻ a (Szpilrajn 1930). For a weak
    order read from its ranks, else from :func:`closure_bits`. O(agents), cached."""
    key = ("count", a, b)
    if key not in model._cache:
        ints = model.ints
        lo = hi = 0
        for ag, rank, w in zip(model.agents, ints.rank, ints.count):
            if rank is not None:
                ra, rb = rank[a], rank[b]
                ab, ba = 0 < ra < rb, 0 < rb < ra
            else:
                down = closure_bits(model, ag)[0]
                ab, ba = bool(down[a] >> b & 1), bool(down[b] >> a & 1)
            lo += w * ab
            hi += w * (not ba)
        model._cache[key] = (lo, hi)
    return model._cache[key]


def _relation(model: PreferenceModel, agent: Agent, which: int, x: int) -> frozenset:
    """The items (numbers) below (``which`` 0) / above (1) item x in the agent's closure,
    cached."""
    key = ("rel", agent.i, which, x)
    got = model._cache.get(key)
    if got is None:
        got = model._cache[key] = frozenset(
            model.ints.members(closure_bits(model, agent)[which][x]))
    return got


def winner_rule(params: dict) -> Rule:
    """The registered rule of a ``winner`` question: one that supports incomplete profiles
    (:mod:`formal.rules`); CertificateError naming the value and those rules otherwise."""
    return rule_named(params.get("rule"), incomplete=True, error=CertificateError)


def partial_profile(model: PreferenceModel) -> PartialProfile:
    """The model as the rules' bounds read it (:class:`~prefcert.formal.rules.PartialProfile`),
    on item numbers: per agent its voters and its closure (:func:`closure_bits`), and the
    count range of a ≻ b (:func:`count_bounds`). O(agents); the relations are cached in
    the model."""
    votes = tuple(Vote(ag.count, partial(_relation, model, ag, 0),
                       partial(_relation, model, ag, 1)) for ag in model.agents)
    return PartialProfile(tuple(range(model.m)), model.voters, votes,
                          partial(count_bounds, model))


def diff_bound(model: PreferenceModel, rule: str, c: str, d: str, *, lower: bool) -> int:
    """Lower (or upper) bound of score(c) − score(d) over all completed profiles: the
    rule's ``min_diff`` (:mod:`formal.rules`; the upper bound is −min_diff(d, c)) on the
    item numbers; exact for plurality/Borda (per-vote minimisation), sound for Copeland:
    Σ_x [c vs x] − [d vs x] (x ≠ c, d) + 2·[c vs d], each pairwise contest at its own
    extreme (derived). CertificateError for a rule that does not support incomplete
    profiles."""
    r = rule_named(rule, incomplete=True, error=CertificateError)
    p = model._cache.get(("partial-profile",))
    if p is None:
        p = model._cache[("partial-profile",)] = partial_profile(model)
    ic, id_ = model.ints.item_index[c], model.ints.item_index[d]
    return r.min_diff(p, ic, id_) if lower else -r.min_diff(p, id_, ic)


# --------------------------------------------------------------------------- check steps

def _agent_of(model: PreferenceModel, params: dict) -> Agent:
    try:
        return model.agent(params["agent"])
    except InstanceError as e:
        raise CertificateError(str(e)) from None


def _value(solution: Any) -> Any:
    if not isinstance(solution, dict) or "value" not in solution:
        raise CertificateError("a determined value needs solution {'value': ...}")
    return solution["value"]


def check_chain(agent: Agent, chain: Any, a: str, b: str) -> None:
    """A chain a = x0 ≻ x1 ≻ … ≻ xk = b of base relations; else CertificateError."""
    if not isinstance(chain, list) or len(chain) < 2 or chain[0] != a or chain[-1] != b:
        raise CertificateError(f"agent {agent.name}: chain from {a!r} to {b!r} expected, "
                               f"got {chain!r:.80}")
    for x, y in zip(chain, chain[1:]):
        if not direct(agent, x, y):
            raise CertificateError(f"agent {agent.name}: {x!r} ≻ {y!r} is not in the data")


def _proven(agent: Agent, chains: Any, x: str) -> tuple[set, set]:
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


def _chained_pairs(agent: Agent, S: list, pairs: Any, chains: Any) -> None:
    """One verified chain per claimed pair x ≻ y of the asked set S, no pair twice."""
    if not isinstance(pairs, list) or not isinstance(chains, list) or len(chains) != len(pairs) \
            or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
        raise CertificateError("rank_set needs one chain per claimed pair [x, y]")
    if len({tuple(p) for p in pairs}) != len(pairs):
        raise CertificateError("a pair is claimed twice")
    for (x, y), ch in zip(pairs, chains):
        if x not in S or y not in S:
            raise CertificateError(f"pair {x!r}, {y!r} is outside the asked set")
        check_chain(agent, ch, x, y)


def is_completion(model: PreferenceModel, agent: Agent, order: Any) -> list[int]:
    """The item numbers of ``order``; CertificateError unless it is a linear extension of
    the agent's datum. O(m + E)."""
    index = model.ints.item_index
    if not isinstance(order, list) or sorted(map(str, order)) != sorted(model.items) \
            or len(set(order)) != model.m:
        raise CertificateError(f"agent {agent.name}: not a permutation of the items")
    seq = [index[x] for x in order]
    rank = model.ints.rank[agent.i]
    if rank is not None:                    # the stated ties' ranks never decrease
        last, ok = 0, True
        for x in seq:
            t = rank[x]
            if t:
                if t < last:
                    ok = False
                    break
                last = t
    else:
        pos = [0] * len(seq)
        for i, x in enumerate(seq):
            pos[x] = i
        succ = model.ints.succ[agent.i]
        assert succ is not None
        ok = all(pos[a] < pos[b] for a, bs in enumerate(succ) for b in bs)
    if not ok:                              # the first offending pair, by name
        npos = {x: i for i, x in enumerate(order)}
        bad = next((a, b) for a, bs in agent.succ.items() for b in bs if npos[a] > npos[b])
        raise CertificateError(f"agent {agent.name}: completion puts {bad[1]!r} above "
                               f"{bad[0]!r} against the data")
    return seq


# --------------------------------------------------------------------------- certificate types
#
# A certificate type whose argument depends on the question registers one function per
# question type (ByQuestion); its ``proves`` mapping is read off those registrations.

@SPEC.certificate("chain", proves={"compare": ("true", "false")}, keys=("chain",))
def check_chain_certificate(model, question, params, verdict, solution, cert) -> None:
    """A chain of stated relations a ≻ … ≻ b (true) or b ≻ … ≻ a (false): the order of the
    pair is the same in every completion."""
    a, b = params["items"] if verdict == "true" else params["items"][::-1]
    check_chain(_agent_of(model, params), cert.get("chain"), a, b)


#: chains: question -> check(model, agent, params, verdict, solution, chains)
CHAINS = ByQuestion("chains")


def _interval(model: PreferenceModel, ag: Agent, chains: Any, x: Any) -> tuple[int, int]:
    """The positions [|up| + 1, m − |down|] the verified chains to / from x leave it."""
    if x not in model.items:
        raise CertificateError(f"unknown item {x!r}")
    up, down = _proven(ag, chains, x)
    return len(up) + 1, model.m - len(down)


def _interval_proves(ok: bool, x: str, lo: int, hi: int, verdict: str, solution: Any) -> None:
    if not ok:
        raise CertificateError(f"chains prove {x!r} at positions {lo}..{hi}: not {verdict} "
                               f"{solution if solution is not None else ''}")


@CHAINS.on("position", ("true", "false", "determined"))
def _position_chains(model, ag, params, verdict, solution, chains) -> None:
    x, p = params["item"], params.get("position")
    lo, hi = _interval(model, ag, chains, x)
    if p is None:
        ok = verdict == "determined" and lo == hi == _value(solution)
    else:
        ok = lo == hi == p if verdict == "true" else verdict == "false" and not lo <= p <= hi
    _interval_proves(ok, x, lo, hi, verdict, solution)


@CHAINS.on("kth", "determined")
def _kth_chains(model, ag, params, verdict, solution, chains) -> None:
    x = _value(solution)
    lo, hi = _interval(model, ag, chains, x)
    _interval_proves(lo == hi == params["k"], x, lo, hi, verdict, solution)


@CHAINS.on("rank_set", "determined")
def _rank_set_chains(model, ag, params, verdict, solution, chains) -> None:
    seq = _value(solution)
    if not isinstance(seq, list) or sorted(seq) != sorted(params["items"]):
        raise CertificateError("solution is not an ordering of the asked items")
    _chained_pairs(ag, params["items"], [[x, y] for x, y in zip(seq, seq[1:])], chains)


@CHAINS.on("topk", ("true", "false"))
def _topk_chains(model, ag, params, verdict, solution, chains) -> None:
    x = params["item"]
    lo, hi = _interval(model, ag, chains, x)
    ok = hi <= params["k"] if verdict == "true" else lo > params["k"]
    _interval_proves(ok, x, lo, hi, verdict, solution)


@CHAINS.on("topk_list", "determined")
def _topk_list_chains(model, ag, params, verdict, solution, chains) -> None:
    T, k, m = _value(solution), params["k"], model.m
    if not isinstance(T, list) or not all(isinstance(x, str) for x in T) \
            or len(T) != k or len(set(T)) != k or not set(T) <= set(model.items):
        raise CertificateError("solution is not a list of k distinct items")
    for x in T:
        _, down = _proven(ag, [c for c in chains if c and c[0] == x], x)
        if len(down) < m - k:
            raise CertificateError(f"only {len(down)} items proven below {x!r}")


@SPEC.certificate("chains", proves=CHAINS.proves, keys=("chains",))
def check_chains(model, question, params, verdict, solution, cert) -> None:
    """Chains to / from an item prove the items above / below it in every completion, so
    its position lies in [|up| + 1, m − |down|]; that interval must prove the verdict (for
    rank_set: one chain per consecutive pair of the claimed order)."""
    CHAINS(question)(model, _agent_of(model, params), params, verdict, solution,
                     cert.get("chains", []))


#: completions: question -> check(model, params, verdict, solution, cert)
COMPLETIONS = ByQuestion("completions")


def _two_values(model: PreferenceModel, question: str, params: dict, cert: dict
                ) -> tuple[Agent, list]:
    """The question's values in the certificate's two ``orders`` (completions of the
    agent's datum); CertificateError unless they differ."""
    ag, orders = _agent_of(model, params), cert.get("orders")
    if not isinstance(orders, list) or len(orders) != 2:
        raise CertificateError("'undetermined' needs two completions")
    vals = []
    for o in orders:
        is_completion(model, ag, o)
        vals.append(value_single(question, params, o, model.conventions))
    if vals[0] == vals[1]:
        raise CertificateError(f"the two completions give the same value {vals[0]!r}")
    return ag, vals


@COMPLETIONS.on("position", "undetermined")
def _position_completions(model, params, verdict, solution, cert) -> None:
    ag, vals = _two_values(model, "position", params, cert)
    if params.get("position") is None:
        up, down = _proven(ag, cert.get("chains", []), params["item"])
        want = {"min": min(vals), "max": max(vals)}
        if solution != want or (len(up) + 1, model.m - len(down)) != (want["min"], want["max"]):
            raise CertificateError(f"range {solution!r} not proven: chains give "
                                   f"[{len(up) + 1}, {model.m - len(down)}], completions {vals}")


@COMPLETIONS.on("kth", "undetermined")
def _kth_completions(model, params, verdict, solution, cert) -> None:
    _two_values(model, "kth", params, cert)
    if solution is not None:
        raise CertificateError("an undetermined kth has no solution")


@COMPLETIONS.on("compare", "undetermined")
def _compare_completions(model, params, verdict, solution, cert) -> None:
    _two_values(model, "compare", params, cert)


@COMPLETIONS.on("rank_set", "undetermined")
def _rank_set_completions(model, params, verdict, solution, cert) -> None:
    ag, _ = _two_values(model, "rank_set", params, cert)
    S = params["items"]
    pairs = solution["pairs"]
    _chained_pairs(ag, S, pairs, cert.get("chains", []))
    claimed = {tuple(p) for p in pairs}
    for x, y in itertools.permutations(S, 2):
        if necessarily(model, ag, x, y) and (x, y) not in claimed:
            raise CertificateError(f"pair {x!r} ≻ {y!r} is determined but missing")


@COMPLETIONS.on("rs", "undetermined")
def _rs_completions(model, params, verdict, solution, cert) -> None:
    _two_values(model, "rs", params, cert)


@COMPLETIONS.on("topk", "undetermined")
def _topk_completions(model, params, verdict, solution, cert) -> None:
    _two_values(model, "topk", params, cert)


@COMPLETIONS.on("topk_list", "undetermined")
def _topk_list_completions(model, params, verdict, solution, cert) -> None:
    ag, _ = _two_values(model, "topk_list", params, cert)
    k, m = params["k"], model.m
    down, up = closure_bits(model, ag)
    nec = sorted(x for x, d in zip(model.items, down) if d.bit_count() >= m - k)
    pos = sorted(x for x, u in zip(model.items, up) if u.bit_count() < k)
    if solution != {"necessary": nec, "possible": pos}:
        raise CertificateError(f"necessary/possible members are {nec}/{pos}")


@COMPLETIONS.on("winner", "undetermined")
def _winner_completions(model, params, verdict, solution, cert) -> None:
    winner_rule(params)
    wit = cert.get("witnesses", {})
    win, lose = (value_profile_ints(model, "winner", params,
                                    profile_from_spec_ints(model, wit.get(k)))
                 for k in ("win", "lose"))
    if not win or lose:
        raise CertificateError(f"witnesses: {params['item']!r} wins={win} in 'win', "
                               f"wins={lose} in 'lose'")


@SPEC.certificate("completions", proves=COMPLETIONS.proves,
                  keys=("orders", "chains", "witnesses"))
def check_completions(model, question, params, verdict, solution, cert) -> None:
    """Two completions in which the query takes different values: ``orders`` (two linear
    extensions of the agent's datum) or, for winner, ``witnesses`` ``win`` / ``lose``
    (profile specs). position's range, rank_set's determined pairs and topk_list's
    necessary/possible members are proven too (chains; reachability)."""
    COMPLETIONS(question)(model, params, verdict, solution, cert)


#: bounds: question -> check(model, params, verdict, solution, cert)
BOUNDS = ByQuestion("bounds")


def _count_range(model, question, params, verdict, solution, cert) -> None:
    """count / majority: the verdict and solution of the recomputed count range, and the
    witnesses of both ends when it is not a point."""
    index = model.ints.item_index
    lo, hi = count_bounds(model, *(index[x] for x in params["items"]))
    if question == "count":           # pair_count = stated: the voters forced a ≻ b
        want = ("determined", {"value": lo}) if lo == hi or \
            model.conventions.get("pair_count") == "stated" else \
            ("undetermined", {"min": lo, "max": hi})
    elif model.conventions.get("majority") == "ranked":    # abstentions: lo for, v - hi against
        want = ("true" if lo > model.voters - hi else "false", {"min": lo, "max": hi})
    else:
        v = model.voters
        want = ("true" if 2 * lo > v else "false" if 2 * hi <= v else "undetermined",
                {"min": lo, "max": hi})
    if (verdict, solution) != want:
        raise CertificateError(f"bounds by reachability are {lo}..{hi}: answer "
                               f"{want[0]} {want[1]!r}, not {verdict} {solution!r}")
    if verdict == "undetermined":
        wit = cert.get("witnesses", {})
        for end, target in (("min", lo), ("max", hi)):
            got = value_profile_ints(model, "count", params,
                                     profile_from_spec_ints(model, wit.get(end)))
            if got != target:
                raise CertificateError(f"the {end} witness has {got} voters, not {target}")


@BOUNDS.on("count", _DU)
def _count_bounds(model, params, verdict, solution, cert) -> None:
    _count_range(model, "count", params, verdict, solution, cert)


@BOUNDS.on("majority", _TF)
def _majority_bounds(model, params, verdict, solution, cert) -> None:
    _count_range(model, "majority", params, verdict, solution, cert)


@BOUNDS.on("winner", "true")
def _winner_bounds(model, params, verdict, solution, cert) -> None:
    r, c = winner_rule(params), params["item"]
    for d in model.items:
        if d != c and diff_bound(model, r.name, c, d, lower=True) < 0:
            raise CertificateError(f"per-pair minimisation: {d!r} can beat {c!r}")


@SPEC.certificate("bounds", proves=BOUNDS.proves, keys=("witnesses",))
def check_bounds(model, question, params, verdict, solution, cert) -> None:
    """count / majority: the range of voters with a ≻ b, recomputed by reachability (forced
    a ≻ b .. all but forced b ≻ a), gives the verdict and solution; when it is not a point,
    ``witnesses`` ``min`` / ``max`` (profile specs) attain both ends. winner: for every
    rival d, min over completed profiles of score(c) − score(d) ≥ 0 (per-vote minimisation,
    Xia & Conitzer 2011; a sound per-pair bound for Copeland)."""
    BOUNDS(question)(model, params, verdict, solution, cert)


@SPEC.certificate("injection", proves={"rs": "true"}, keys=("map", "chains"))
def check_injection(model, question, params, verdict, solution, cert) -> None:
    """``map``: an injection f of the worse bundle into the better one with f(y) = y or a
    chain f(y) ≻ … ≻ y (``chains``), so A ⪰_RS B in every completion (Aziz et al. 2015)."""
    ag = _agent_of(model, params)
    A, B = (list(b) for b in params["bundles"])
    if not rs_sizes_allowed(params, model.conventions):
        raise CertificateError("bundles of different sizes are unrelated (rs = equal_size)")
    f = cert.get("map")
    if not isinstance(f, dict) or set(f) != set(B) or len(set(f.values())) != len(B) \
            or not set(f.values()) <= set(A):
        raise CertificateError("the injection must map every item of the worse bundle "
                               "to a distinct item of the better bundle")
    chains = cert.get("chains", {})
    for y, x in f.items():
        if x != y:
            check_chain(ag, chains.get(y), x, y)


@SPEC.certificate("size", proves={"rs": "false"}, keys=("reason",))
def check_size(model, question, params, verdict, solution, cert) -> None:
    """|A \\ B| < |B \\ A|: the prefix of all items already fails A ⪰_RS B (``reason``
    ``size``; or, under the ``equal_size`` reading, |A| ≠ |B|: ``sizes differ``)."""
    A, B = (set(b) for b in params["bundles"])
    if not rs_sizes_allowed(params, model.conventions):
        reason = "sizes differ"
    elif len(A - B) >= len(B - A):
        raise CertificateError(f"|A \\ B| = {len(A - B)} is not below |B \\ A| = {len(B - A)}")
    else:
        reason = "size"
    if cert.get("reason") != reason:
        raise CertificateError(f"the reason is {reason!r}, not {cert.get('reason')!r:.40}")


@SPEC.certificate("rs_search", proves={"rs": "false"}, keys=())
def check_rs_search(model, question, params, verdict, solution, cert) -> None:
    """No completion has A ⪰_RS B: the checker's own exact search (:func:`rs_possible`)."""
    found = rs_possible(model, _agent_of(model, params), *params["bundles"])
    if found is None:
        raise CertificateError("RS search too large to verify")
    if found:
        raise CertificateError("a completion with the better bundle ⪰_RS exists")


def rs_possible(model: PreferenceModel, agent: Agent, better: Iterable[str],
                worse: Iterable[str]) -> bool | None:
    """Is there a completion in which ``better ⪰_RS worse``? Exact search over the choices of
    worse-only items: every available item of weight ≥ 0 (better-only +1, others 0) is
    placed first — moving such an item earlier never lowers a prefix balance (exchange
    argument, derived; checked against brute force) — and the search branches only on
    which available worse-only item comes next. None past EXHAUSTIVE_LIMIT states.
    O(2^|worse| · m · (m + E)) worst case."""
    A, B = set(better), set(worse)
    m = model.m
    w = [(x in A) - (x in B) for x in model.items]
    need = [sum(1 << p for p in ps) for ps in predecessors(model, agent)]
    full = (1 << m) - 1
    dead: set = set()

    def dfs(placed: int, bal: int):
        grew = True
        while grew:
            grew = False
            for x in range(m):
                if w[x] >= 0 and not placed >> x & 1 and need[x] & ~placed == 0:
                    placed |= 1 << x
                    bal += w[x]
                    grew = True
        if placed == full:
            return True
        if placed in dead or bal <= 0:
            return False
        if len(dead) > EXHAUSTIVE_LIMIT:
            return None
        for x in range(m):
            if w[x] < 0 and not placed >> x & 1 and need[x] & ~placed == 0:
                r = dfs(placed | 1 << x, bal - 1)
                if r is None or r:
                    return r
        dead.add(placed)
        return False
    return dfs(0, 0)


@SPEC.certificate("hall_violator", proves={"winner": "false"}, keys=("set",))
def check_hall_violator(model, question, params, verdict, solution, cert) -> None:
    """Plurality: a rival set D such that the voters who cannot put c first and whose
    possible tops all lie in D outnumber |D| · (c's best score): c is no possible co-winner
    (Hall's condition on the flow network of Betzler & Dorn 2010)."""
    r, c, D = winner_rule(params), params["item"], cert.get("set")
    if not r.admits("hall_violator"):
        rules = [n for n, x in RULES.items() if x.admits("hall_violator")]
        raise CertificateError(f"a Hall violator refutes a possible winner of "
                               f"{', '.join(rules)} only, not of {r.name}")
    if not isinstance(D, list) or c in D or not set(D) <= set(model.items):
        raise CertificateError("Hall violator must be a set of rivals")
    index = model.ints.item_index
    ic, rivals = index[c], sum(1 << index[x] for x in set(D))
    forced = cap = 0
    for ag in model.agents:
        up = closure_bits(model, ag)[1]
        if not up[ic]:
            cap += ag.count
        elif not sum(1 << i for i, u in enumerate(up) if not u) & ~rivals:
            forced += ag.count          # its possible tops all lie in D
    cap *= len(set(D))
    if forced <= cap:
        raise CertificateError(f"{forced} forced voters fit in {cap} places")


@SPEC.certificate("dominated", proves={"winner": "false"}, keys=("by",))
def check_dominated(model, question, params, verdict, solution, cert) -> None:
    """A rival ``by`` scores more than c in every completed profile: the upper bound of
    score(c) − score(by) is negative (exact for plurality/Borda, sound for Copeland)."""
    r, c, d = winner_rule(params), params["item"], cert.get("by")
    if d not in model.items or d == c:
        raise CertificateError("dominated needs a rival item")
    ub = diff_bound(model, r.name, c, d, lower=False)
    if ub >= 0:
        raise CertificateError(f"score({c}) − score({d}) can reach {ub} ≥ 0")


@SPEC.certificate("exhaustive", proves={"winner": ("true", "false")}, keys=())
def check_exhaustive(model, question, params, verdict, solution, cert) -> None:
    """Every completed profile, re-enumerated by the checker (refused above
    EXHAUSTIVE_LIMIT), has the verdict's winner value."""
    winner_rule(params)
    gen = profile_completions(model)
    if gen is None:
        raise CertificateError("too many completed profiles to verify exhaustively")
    for p in gen:
        if value_profile_ints(model, "winner", params, p) != (verdict == "true"):
            raise CertificateError(f"exhaustive enumeration: {params['item']!r} wins="
                                   f"{verdict != 'true'} in a completed profile")
