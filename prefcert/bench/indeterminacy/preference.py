"""``indeterminacy-preference``: the epistemic benchmark of Khanna & Wang (2026, §3,
App. F.1): atomic, comparative, bundle, top-k, aggregative and partial-order queries on
strict (SO), truncated (SI) and tied (TO) profiles, in free-flow (``ff``), free-flow with
an abstention option (``ffk``) and multiple-choice (``mcq``) formats. 3,360 prompts.

Every gold answer comes from certified ``preference`` labels: the queried agent's data is
one agent of a ``preference`` instance, read under the ``unknown`` semantics (an unlisted
item is incomparable to every item). Determined answers carry chains; undetermined ones two
completions that disagree.

Readings where the paper's composition table does not factor (each documented in
``docs/suites.md``):

- comparative SI (720 = 24 cells): the 18 undetermined cells (comparison, ranking × 3 sizes
  × ff/ffk/mcq) plus 6 determined controls on the same SI profiles (comparison of two listed
  items, ranking of four listed items; ff; 3 sizes);
- bundles SO (300 = 10 cells): RS-comparable and RS-incomparable at n = 50 in ff/ffk/mcq,
  the same two at n = 100 in ffk, and the larger-bundle and one-vs-many schemes at n = 50
  in ffk;
- top-k (120 = 4 cells, TO, n = 50): prompt 1 on determined and on undetermined queries
  (ffk: yes / no / uncertain), prompt 2 (the top-k list, ff) and prompt 3 (yes / no only,
  ff) on undetermined ones;
- partial orders, format 1 (420 = 14 cells, 100 items): comparable pairs at chain length 9
  with 50 / 80 / 150 edges and at chain lengths 7 / 5 / 3 with 150 edges (ff), plus the
  chain-9, 150-edge pair in mcq; incomparable pairs at 50 / 80 / 150 edges in ff and mcq,
  plus ffk at 150 edges;
- partial orders, format 2 (120 = 4 cells, 30 items): incomparable pairs at 30 / 50 entailed
  pairs, ff and mcq (the paper's Table 18).
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from ...formal.spec import Convention
from ...generators import indeterminacy as gen
from ..answers import Reading, read
from ..design import (ENCODINGS, Entry, Parameter, RenderedPrompt, Row, Suite, Task,
                      Verdict)
from ..stats import accuracy_rows, proportion
from ..templates import TemplateSpec, load
from ...formal.errors import InstanceError
from .params import MAX_DRAWS_LIMIT, Budget, check_sizes, int_in

SIZES = (50, 100, 200)
#: sizes ``--sizes`` accepts (inclusive; why: :mod:`prefcert.bench.indeterminacy.params`)
SIZE_LIMITS = (10, 300)
MAX_DRAWS = 100_000
FF, FFK, MCQ = {"format": "ff"}, {"format": "ffk"}, {"format": "mcq"}
ABSTAIN_WORD = {"bundle": "Can't decide", "yesno": "uncertain"}
READINGS = {"si_counts": Convention("si_counts", ("entailed", "undetermined"), {
    "entailed": "a count on truncated lists asks for the agents whose lists entail c1 ≻ c2, "
                "a determined number (K&W 2026, Table 8; labels under pair_count = stated)",
    "undetermined": "a count on truncated lists is undetermined: only an abstention is "
                    "correct (K&W 2026, Table 1; labels under pair_count = completions)"}),
    "topk_ties": Convention("topk_ties", ("keeps_tie", "abstain"), {
        "keeps_tie": "top-k prompt 3 (list, then yes / no only) on an item of the tie at "
                     "position k: 'yes' (the item is in the top k once the tie is kept, as "
                     "prompt 2's gold keeps it) is scored correct (K&W H.3 takes no position)",
        "abstain": "top-k prompt 3 is undetermined: only an abstention is correct, although "
                   "the prompt offers yes and no only (prefcert 0.2)"})}


# ----------------------------------------------------------------------------- design

def rows(sizes: Sequence[int]) -> list[Row]:
    R = []

    def row(variants, **factors):
        R.append(Row(factors, variants))
    for n in sorted(set(sizes)):         # any size within SIZE_LIMITS: atomic, comparative
        for q in ("kth", "position"):
            row([FF, MCQ], family="atomic", pref="SO", question=q, case="determined", size=n)
        for q in ("kth", "position"):
            row([FF, FFK, MCQ], family="atomic", pref="SI", question=q, case="undetermined",
                size=n)
        for q in ("compare", "rank_set"):
            row([FF, MCQ], family="comparative", pref="SO", question=q, case="determined",
                size=n)
        for q in ("compare", "rank_set"):
            row([FF, FFK, MCQ], family="comparative", pref="SI", question=q,
                case="undetermined", size=n)
        for q in ("compare", "rank_set"):
            row([FF], family="comparative", pref="SI", question=q, case="determined", size=n)
    if 50 in sizes:
        for case in ("rs_comparable", "rs_incomparable"):
            row([FF, FFK, MCQ], family="bundle", pref="SO", question="rs", case=case, size=50)
        for case in ("larger_bundles", "one_vs_many"):
            row([FFK], family="bundle", pref="SO", question="rs", case=case, size=50)
        for pref in ("SI", "TO"):
            for case in ("rs_comparable", "rs_incomparable"):
                row([FFK], family="bundle", pref=pref, question="rs", case=case, size=50)
    if 100 in sizes:
        for case in ("rs_comparable", "rs_incomparable"):
            row([FFK], family="bundle", pref="SO", question="rs", case=case, size=100)
    if 50 in sizes:
        row([FFK], family="topk", pref="TO", question="topk", case="p1_determined", size=50)
        row([FFK], family="topk", pref="TO", question="topk", case="p1_undetermined", size=50)
        row([FF], family="topk", pref="TO", question="topk_list", case="p2_undetermined", size=50)
        row([FF], family="topk", pref="TO", question="topk", case="p3_undetermined", size=50)
    for n in [s for s in (50, 100) if s in sizes]:
        row([FF, MCQ], family="aggregative", pref="SO", question="count", case="determined",
            size=n)
        row([FF, MCQ], family="aggregative", pref="SI", question="count", case="entailed",
            size=n)
        row([FF], family="aggregative", pref="TO", question="count", case="entailed", size=n)
    for edges, chain in ((50, 9), (80, 9), (150, 9), (150, 7), (150, 5), (150, 3)):
        row([FF, MCQ] if (edges, chain) == (150, 9) else [FF], family="partial_order",
            pref="pairwise", question="compare", case="comparable", nodes=100, edges=edges,
            chain=chain)
    for edges in (50, 80, 150):
        row([FF, FFK, MCQ] if edges == 150 else [FF, MCQ], family="partial_order",
            pref="pairwise", question="compare", case="incomparable", nodes=100, edges=edges)
    for edges in (30, 50):
        row([FF, MCQ], family="partial_order", pref="choices", question="compare",
            case="incomparable", nodes=30, edges=edges)
    return R


# ----------------------------------------------------------------------------- samplers

def names(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(1, n + 1)]


@lru_cache(maxsize=32)
def pool_profile(seed: int, pref: str, n: int, i: int, si_counts: str = "entailed") -> dict:
    """Profile ``i`` of the (pref, n) pool: n agents A1.. over n items C1.. (impartial
    culture; SI truncated to [⌊n/2⌋, n]; TO with two tie groups per list). Counts on TO
    lists, and on SI lists under the ``entailed`` reading, count the agents whose lists
    state c1 ≻ c2 (the instance's ``pair_count = stated``; ties are indifference, K&W
    Table 2)."""
    import numpy as np

    from ..design import derive_seed
    rng = np.random.default_rng(derive_seed(seed, "pool", pref, n, i))
    items = names("C", n)
    orders = gen.strict_profile(n, items, rng)
    if pref == "SI":
        orders = [gen.truncate(o, rng) for o in orders]
    elif pref == "TO":
        orders = [gen.two_tie_groups(o, rng) for o in orders]
    out = {"id": f"{pref}-n{n}-{i:02d}", "domain": "preference", "items": items,
           "semantics": "unknown", "profile": dict(zip(names("A", n), orders))}
    if pref == "TO" or (pref == "SI" and si_counts == "entailed"):
        out["conventions"] = {"pair_count": "stated"}
    return out


def flat(order: list) -> list[str]:
    return [x for t in order for x in (t if isinstance(t, list) else [t])]


def tie_of(order: list) -> dict[str, int]:
    """item -> index of its tie group."""
    return {x: g for g, t in enumerate(order) for x in (t if isinstance(t, list) else [t])}


def _pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def _sample(rng, seq, k):
    return [seq[int(j)] for j in rng.choice(len(seq), size=k, replace=False)]


def shared_draw(row: Row, index: int) -> tuple:
    """The pooled profile the task ``index`` of ``row`` asks about (list families: the
    pool of its preference type and size), or the task itself (partial orders, drawn per
    task). O(1)."""
    f = row.factors
    if f.get("family") == "partial_order" or "pref" not in f or "size" not in f:
        return ("own", json.dumps(f, sort_keys=True), index)
    return (f["pref"], f["size"], index)


def sample(row: Row, index: int, ctx) -> Task:
    f = row.factors
    if f["family"] == "partial_order":
        return _sample_partial(row, index, ctx)
    inst = pool_profile(ctx.suite_seed, f["pref"], f["size"], index,
                        ctx.readings.get("si_counts", "entailed"))
    rng, items = ctx.rng, inst["items"]
    agents = list(inst["profile"])
    q, case = f["question"], f["case"]
    budget = Budget(SUITE_NAME, f"{f['family']} {f['pref']} {q} {case} n={f['size']}",
                    ctx.params.get("max_draws", MAX_DRAWS))
    while True:
        budget.tick()
        ctx.draw()
        agent = _pick(rng, agents)
        order = inst["profile"][agent]
        listed = flat(order)
        seen = set(listed)
        unlisted = [x for x in items if x not in seen]
        question: dict[str, Any] | None = None
        if f["family"] in ("atomic", "comparative"):
            question = _atomic(q, case, agent, order, listed, unlisted, items, rng)
        elif f["family"] == "bundle":
            question = _bundle(case, agent, order, rng)
        elif f["family"] == "topk":
            question = _topk(q, case, agent, order, rng)
        elif f["family"] == "aggregative":
            a, b = _sample(rng, items, 2)
            question = {"type": "count", "items": [a, b]}
        if question is not None:
            break
    ctx.accept()
    qs = [question] if question["type"] != "rs" else [
        question, {"type": "rs", "agent": agent, "bundles": question["bundles"][::-1]}]
    payload = {"question": question, "agent": agent if "agent" in question else None,
               "expected": expected(question, f, inst, ctx.readings)}
    if f["family"] == "aggregative":
        a, b = question["items"]
        payload["c1_only"] = _count_c1_only(inst, a, b)
        payload["entailed"] = _count_entailed(inst, a, b)
    if f["family"] == "bundle":
        payload["lexicographic"] = _lexicographic(order, *question["bundles"])
    if case == "p3_undetermined":
        payload["topk_ties"] = ctx.readings.get("topk_ties", "keeps_tie")
    return Task([inst], [(inst["id"], x) for x in qs], payload)


def _atomic(q, case, agent, order, listed, unlisted, items, rng):
    n = len(items)
    if case == "determined":
        if q == "kth":
            return {"type": "kth", "agent": agent, "k": int(rng.integers(1, len(listed) + 1))} \
                if len(listed) == n else None
        if q == "position":
            return {"type": "position", "agent": agent, "item": _pick(rng, listed)} \
                if len(listed) == n else None
        if q == "compare":
            return {"type": "compare", "agent": agent, "items": _sample(rng, listed, 2)}
        return {"type": "rank_set", "agent": agent, "items": _sample(rng, listed, 4)}
    if len(unlisted) < 2:
        return None
    if q == "kth":
        return {"type": "kth", "agent": agent, "k": int(rng.integers(len(listed) + 1, n + 1))}
    if q == "position":
        return {"type": "position", "agent": agent, "item": _pick(rng, unlisted)}
    if q == "compare":
        return {"type": "compare", "agent": agent, "items": _sample(rng, unlisted, 2)}
    chosen = _sample(rng, listed, 2) + _sample(rng, unlisted, 2)
    return {"type": "rank_set", "agent": agent,
            "items": [chosen[int(j)] for j in rng.permutation(4)]}


def _bundle(case, agent, order, rng):
    lst = flat(order)
    ties = tie_of(order)
    strict = [x for x in lst if sum(1 for y in lst if ties[y] == ties[x]) == 1]
    n = len(strict)
    if case in ("rs_comparable", "rs_incomparable"):
        if n < 4:
            return None
        p = sorted(int(j) for j in rng.choice(n, size=4, replace=False))
        w = [strict[j] for j in p]
        if case == "rs_comparable":
            pairing = [(0, 1), (2, 3)] if rng.random() < 0.5 else [(0, 2), (1, 3)]
            better = [w[pairing[0][0]], w[pairing[1][0]]]
            worse = [w[pairing[0][1]], w[pairing[1][1]]]
        else:
            better, worse = [w[0], w[3]], [w[1], w[2]]      # best and worst vs the middle
    elif case == "larger_bundles":
        size = int(rng.integers(4, 7))
        if n < size + 4:
            return None
        base = sorted(int(j) for j in rng.choice(n, size=size, replace=False))
        unused = [j for j in range(n) if j not in base]
        up = [j for j in unused if j < base[0]] or None
        down = [j for j in unused if j > base[-1]] or None
        if up is None or down is None:
            return None
        swap = _sample(rng, base, 2)                          # one item up, one down
        new = [j for j in base if j not in swap] + [_pick(rng, up), _pick(rng, down)]
        better, worse = [strict[j] for j in sorted(new)], [strict[j] for j in base]
    else:                                                     # one vs many
        top = int(rng.integers(0, max(1, n // 5)))
        below = list(range(top + 1, n))
        size = int(rng.integers(20, max(21, n // 2) + 1))
        if len(below) < size:
            return None
        better = [strict[top]]
        worse = [strict[j] for j in sorted(_sample(rng, below, size))]
    bundles = [sorted(better, key=lst.index), sorted(worse, key=lst.index)]
    if rng.random() < 0.5:
        bundles.reverse()
    return {"type": "rs", "agent": agent, "bundles": bundles}


def _topk(q, case, agent, order, rng):
    lst = flat(order)
    spans, pos = [], 0
    for t in order:
        size = len(t) if isinstance(t, list) else 1
        if size > 1:
            spans.append((pos + 1, pos + size, list(t)))   # 1-based positions s..e
        pos += size
    if case == "p1_determined":
        k = int(rng.integers(1, len(lst)))
        item = _pick(rng, lst)
        if any(s <= k < e and item in t for s, e, t in spans):
            return None
        return {"type": "topk", "agent": agent, "item": item, "k": k}
    s, e, t = _pick(rng, spans)
    k = int(rng.integers(s, e))                               # s <= k < e
    if q == "topk_list":
        return {"type": "topk_list", "agent": agent, "k": k}
    return {"type": "topk", "agent": agent, "item": _pick(rng, t), "k": k}


#: the tie indices of every list of the last profiles counted: id(profile) -> (profile,
#: [tie_of(list) per agent]); the profile is held so that its id stays its own
_PROFILE_TIES: dict[int, tuple[Any, list]] = {}
_PROFILE_TIES_SIZE = 4


def profile_ties(inst: dict) -> list[dict[str, int]]:
    """:func:`tie_of` of every agent's list, in profile order, computed once for the
    counts of one task (three counts read it) and kept for the last few profiles. A hit
    is the very same profile object; instance data are not changed once sampled.
    O(size of the profile) on a miss, O(1) on a hit."""
    prof = inst["profile"]
    hit = _PROFILE_TIES.get(id(prof))
    if hit is not None and hit[0] is prof:
        return hit[1]
    ties = [tie_of(o) for o in prof.values()]
    if len(_PROFILE_TIES) >= _PROFILE_TIES_SIZE:
        del _PROFILE_TIES[next(iter(_PROFILE_TIES))]
    _PROFILE_TIES[id(prof)] = (prof, ties)
    return ties


def _count_c1_only(inst, a, b) -> int:
    """Agents with a ≻ b entailed plus those who list a but not b (the reading that treats
    unlisted items as last): the paper's "implicit disambiguation" count."""
    n = 0
    for r in profile_ties(inst):
        if a in r and (b not in r or r[a] < r[b]):
            n += 1
    return n


def _count_entailed(inst, a, b) -> int:
    """Agents whose list has a strictly above b (both listed, not tied)."""
    n = 0
    for r in profile_ties(inst):
        if a in r and b in r and r[a] < r[b]:
            n += 1
    return n


def _all_ordered(inst, a, b) -> bool:
    """Every agent lists a and b, not tied."""
    for r in profile_ties(inst):
        if not (a in r and b in r and r[a] != r[b]):
            return False
    return True


def _lexicographic(order, A, B) -> list | None:
    """The bundle a lexicographic comparison picks (best items first, then the next), or
    None when it cannot separate them."""
    r = tie_of(order)
    ka, kb = sorted(r[x] for x in A), sorted(r[x] for x in B)
    for x, y in zip(ka, kb):
        if x != y:
            return A if x < y else B
    return None if len(ka) == len(kb) else (A if len(ka) > len(kb) else B)


def _sample_partial(row: Row, index: int, ctx) -> Task:
    f, rng = row.factors, ctx.rng
    items = names("C", f["nodes"])
    budget = Budget(SUITE_NAME, f"partial_order {f['pref']} {f['case']} edges={f['edges']}",
                    ctx.params.get("max_draws", MAX_DRAWS))
    while True:
        budget.tick()
        ctx.draw()
        if f["pref"] == "pairwise":
            hidden, edges, path = gen.latent_dag(items, f["edges"], rng, chain=f.get("chain", 0))
            datum = {"edges": edges}
            succ: dict = {x: set() for x in items}
            for a, b in edges:
                succ[a].add(b)
        else:
            hidden, choices = gen.choice_data(items, f["edges"], rng)
            datum = {"choices": choices}
            succ = {x: set() for x in items}
            for subset, best in choices:
                succ[best] |= {x for x in subset if x != best}
        if f["case"] == "comparable":
            a, b = path[0], path[-1]
            if _distance(succ, a, b) != f["chain"]:
                continue                      # a shortcut: the pair is closer than planted
        else:
            reach = {x: _reach(succ, x) for x in items}
            pairs = [(x, y) for i, x in enumerate(items) for y in items[i + 1:]
                     if y not in reach[x] and x not in reach[y]]
            if not pairs:
                continue
            a, b = _pick(rng, pairs)
        break
    ctx.accept()
    pair = [a, b] if rng.random() < 0.5 else [b, a]
    tag = "-".join(str(f[k]) for k in ("pref", "case", "edges") if k in f)
    iid = f"po-{tag}{'-c%d' % f['chain'] if 'chain' in f else ''}-{index:02d}"
    inst = {"id": iid, "domain": "preference", "items": items, "semantics": "unknown",
            "profile": {"A1": datum}}
    question = {"type": "compare", "agent": "A1", "items": pair}
    exp = {"kind": "value", "value": a} if f["case"] == "comparable" else {"kind": "abstain"}
    return Task([inst], [(iid, question)], {"question": question, "agent": "A1",
                                            "expected": exp})


def _reach(succ, x) -> set:
    seen, stack = set(), [x]
    while stack:
        for y in succ[stack.pop()]:
            if y not in seen:
                seen.add(y)
                stack.append(y)
    return seen


def _distance(succ, a, b) -> int | None:
    frontier, seen, d = {a}, {a}, 0
    while frontier:
        if b in frontier:
            return d
        nxt = {y for x in frontier for y in succ[x]} - seen
        seen |= nxt
        frontier, d = nxt, d + 1
    return None


def expected(question: dict, f: dict, inst: dict, readings: dict | None = None) -> dict:
    """What the sampler expects the certified label to say, from the data directly (a
    cross-check of the labels, never the gold itself)."""
    t = question["type"]
    order = inst["profile"].get(question.get("agent"))
    if t == "count":            # pair_count = stated, or every agent orders the pair
        a, b = question["items"]
        n = _count_entailed(inst, a, b)
        ordered = _all_ordered(inst, a, b)
        stated = inst.get("conventions", {}).get("pair_count") == "stated"
        return {"kind": "value", "value": n} if stated or ordered else {"kind": "abstain"}
    r = tie_of(order)
    if t == "kth":
        lst = flat(order)
        k = question["k"]
        return {"kind": "value", "value": lst[k - 1]} if len(lst) == len(inst["items"]) \
            else {"kind": "abstain"}
    if t == "position":
        x = question["item"]
        return {"kind": "value", "value": flat(order).index(x) + 1} if x in r else \
            {"kind": "abstain"}
    if t == "compare":
        a, b = question["items"]
        if a in r and b in r:
            return {"kind": "value", "value": a if r[a] < r[b] else b}
        return {"kind": "abstain"}
    if t == "rank_set":
        xs = [x for x in question["items"] if x in r]
        ranked = sorted(xs, key=r.__getitem__)
        return {"kind": "value", "value": ranked}
    if t == "rs":
        A, B = question["bundles"]
        if f["case"] == "rs_comparable":
            lex = _lexicographic(order, A, B)
            return {"kind": "value", "value": sorted(lex)}
        return {"kind": "abstain"}
    if t == "topk":
        k, x = question["k"], question["item"]
        if f["case"] == "p1_determined":
            lst = flat(order)
            return {"kind": "value", "value": "yes" if lst.index(x) < k else "no"}
        if f["case"] == "p3_undetermined" and (readings or {}).get("topk_ties",
                                                                   "keeps_tie") == "keeps_tie":
            return {"kind": "keeps_tie", "value": "yes"}
        return {"kind": "abstain"}
    if t == "topk_list":        # every item of the tie holding position k may be in the top k
        lst = flat(order)
        r = tie_of(order)
        group = r[lst[question["k"] - 1]]
        end = max(j for j, x in enumerate(lst) if r[x] == group) + 1
        return {"kind": "keeps_tie", "value": sorted(lst[:end])}
    raise ValueError(t)


# ----------------------------------------------------------------------------- truth

def truth(task: dict, labels: Sequence[dict]) -> dict:
    """The gold answer of a task from its certified labels: ``{"kind": "value", "value":
    v}``, ``{"kind": "abstain"}``, or for a top-k list on an undetermined k ``{"kind":
    "keeps_tie", "value": the possible top-k set, "possible", "necessary"}`` (K&W H.3
    reports keeping vs breaking the tie and takes no position; keeping it is scored
    correct), and for top-k prompt 3 under ``topk_ties = keeps_tie`` ``{"kind": "keeps_tie",
    "value": "yes"}``. Raises RuntimeError when it contradicts the sampler's expectation."""
    q = task["question"]
    lab = labels[0]
    v, sol = lab["verdict"], lab.get("solution") or {}
    t = q["type"]
    if t == "count":
        out = {"kind": "value", "value": sol["value"]} if v == "determined" else \
            {"kind": "abstain"}
    elif t in ("kth", "position"):
        out = {"kind": "value", "value": sol["value"]} if v == "determined" else \
            {"kind": "abstain"}
    elif t == "compare":
        a, b = q["items"]
        out = {"kind": "abstain"} if v == "undetermined" else \
            {"kind": "value", "value": a if v == "true" else b}
    elif t == "rank_set":
        if v == "determined":
            out = {"kind": "value", "value": sol["value"]}
        else:                                   # the ranked items only, in their order
            pairs = sol.get("pairs", [])
            wins = {}
            for x, y in pairs:
                wins[x] = wins.get(x, 0) + 1
                wins.setdefault(y, 0)
            out = {"kind": "value", "value": sorted(wins, key=lambda x: -wins[x])}
    elif t == "rs":
        back = labels[1]["verdict"]
        if "undetermined" in (v, back):
            raise RuntimeError(f"bundle comparison undetermined: {q}")
        if v == "true" and back == "false":
            out = {"kind": "value", "value": sorted(q["bundles"][0])}
        elif back == "true" and v == "false":
            out = {"kind": "value", "value": sorted(q["bundles"][1])}
        elif v == back == "false":
            out = {"kind": "abstain"}
        else:
            raise RuntimeError(f"bundles equivalent: {q}")
    elif t == "topk":           # prompt 3 under topk_ties = keeps_tie: the tie kept, "yes"
        keep = task.get("topk_ties") == "keeps_tie"
        out = ({"kind": "keeps_tie", "value": "yes"} if keep else {"kind": "abstain"}) \
            if v == "undetermined" else {"kind": "value", "value": "yes" if v == "true" else "no"}
    elif t == "topk_list" and v == "determined":    # k outside a tie: one top-k set
        out = {"kind": "keeps_tie", "value": sorted(sol["value"]),
               "necessary": sol["value"], "possible": sol["value"]}
    elif t == "topk_list":
        out = {"kind": "keeps_tie", "value": sorted(sol["possible"]),
               "necessary": sol["necessary"], "possible": sol["possible"]}
    else:
        raise ValueError(t)
    exp = task.get("expected")
    if exp is not None and (exp["kind"] != out["kind"] or exp.get("value") != out.get("value")):
        if not (t == "rank_set" and out["kind"] == exp["kind"]
                and out["value"] == exp["value"]):
            raise RuntimeError(f"certified label {lab.get('label_id')} ({out}) contradicts "
                               f"the sampler ({exp}) on {q}")
    return out


# ----------------------------------------------------------------------------- prompts

_F = frozenset
#: template key of a question -> (placeholders it offers, answer shape)
QUESTION_KEYS: dict[str, tuple[frozenset, str]] = {
    "kth": (_F({"agent", "k", "kth"}), "item"),
    "position": (_F({"agent", "item"}), "int"),
    "compare": (_F({"agent", "a", "b"}), "item"),
    "rank_set": (_F({"agent", "items"}), "ranking"),
    "count": (_F({"a", "b"}), "int"),
    "rs": (_F({"agent", "bundle_a", "bundle_b"}), "bundle"),
    "topk": (_F({"agent", "k", "item"}), "yesno"),
    "topk_list": (_F({"agent", "k"}), "items"),
    "topk_then": (_F({"agent", "k", "item"}), "yesno"),
    "partial": (_F({"agent", "a", "b"}), "item"),
}
PREFS = ("SO", "SI", "TO", "pairwise", "choices")
TEMPLATES = TemplateSpec(
    "preference",
    {"prompt": (_F({"n_items", "n_agents", "agents_word", "data", "preferences", "question"}),
                _F({"preferences", "question"})),
     "question": (_F({"task", "format"}), _F({"task", "format"})),
     "question_mcq": (_F({"task", "options", "instruction"}), _F({"task", "options"})),
     "mcq.instruction": (_F(), _F()), "mcq.abstain": (_F(), _F()),
     **{f"data.{p}": (_F(), _F()) for p in PREFS},
     **{f"{w}.{q}": (ph, _F()) for q, (ph, _) in QUESTION_KEYS.items()
        for w in ("task", "task_ffk")},
     **{f"{w}.{q}": (_F(), _F()) for q in QUESTION_KEYS for w in ("format", "format_ffk")},
     **{f"{enc}.{k}": v for enc in ("sentences", "narrative") for k, v in (
         ("list", (_F({"agent", "first", "rest", "items"}), _F({"first"}))),
         ("then", (_F(), _F())), ("tie", (_F({"items"}), _F({"items"}))),
         ("and", (_F(), _F())), ("item", (_F({"name", "number"}), _F())))}},
    {"khanna-wang": ("prefcert.bench.indeterminacy", "templates-khanna-wang.toml"),
     "prefcert-0.2": ("prefcert.bench.indeterminacy", "templates-prefcert-0.2.toml")})


def question_key(question: dict, factors: dict) -> str:
    """The template key of a task's question (partial-order comparisons and top-k prompt 3
    have their own wording)."""
    t = question["type"]
    if t == "compare" and factors.get("family") == "partial_order":
        return "partial"
    if t == "topk" and factors.get("case") == "p3_undetermined":
        return "topk_then"
    return t


def vocabulary(inst: dict, encoding: str, t) -> dict[str, str]:
    """item -> the name the prompt uses for it: the item itself, except under the
    ``sentences`` / ``narrative`` encodings of list data (their ``item`` template, e.g.
    ``dish 17`` for C17)."""
    lists = all(isinstance(o, list) for o in inst["profile"].values())
    if encoding == "json" or not lists:
        return {x: x for x in inst["items"]}
    key = f"{encoding}.item"
    return {x: t.render(key, name=x, number=x.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ") or x)
            for x in inst["items"]}


#: real dish names for the H.5 level 3 design (item Ci -> DISHES[i - 1]; one word each, so
#: an answer's bundle reads back unambiguously)
DISHES = ("pizza", "sushi", "tiramisu", "paella", "lasagna", "ramen", "burrito", "falafel",
          "hummus", "risotto", "gnocchi", "ceviche", "moussaka", "goulash", "pierogi",
          "dumplings", "tacos", "curry", "biryani", "pho", "kimchi", "bibimbap", "tempura",
          "gyoza", "shawarma", "kebab", "couscous", "tagine", "jambalaya", "gumbo",
          "chowder", "bruschetta", "carbonara", "ratatouille", "quiche", "crepes",
          "croissant", "baklava", "churros", "cheesecake", "brownies", "pancakes",
          "waffles", "omelette", "nachos", "quesadilla", "enchiladas", "empanadas",
          "samosas", "pakoras", "dal", "naan", "poutine", "schnitzel", "bratwurst",
          "pretzel", "fondue", "raclette", "borscht", "blini")


def dish_names(inst: dict) -> dict[str, str]:
    """item -> a real dish (H.5 level 3): C1 -> pizza, C2 -> sushi, …; at most
    len(DISHES) = 60 items. O(n)."""
    items = inst["items"]
    if len(items) > len(DISHES):
        raise ValueError(f"{len(items)} items, but only {len(DISHES)} dish names")
    return {x: DISHES[int(x.lstrip("C")) - 1] for x in items}


#: the JSON text of the last profiles encoded whole: id(profile) -> (profile, text). The
#: prompts of one instance (its questions, formats and the tasks sharing a pooled profile)
#: are rendered close together; the profile is held so that its id stays its own.
_PROFILE_JSON: dict[int, tuple[Any, str]] = {}
_PROFILE_JSON_SIZE = 64


def _profile_json(profile: dict) -> str:
    """``json.dumps(profile, ensure_ascii=False)``, encoded once for the prompts of one
    instance rendered close together (a profile of n = 300 is about 0.1 MB of text).
    A hit is the very same dict object (held, so its id is not reused); instance data
    are not changed once sampled. O(size of the profile) on a miss, O(1) on a hit."""
    hit = _PROFILE_JSON.get(id(profile))
    if hit is not None and hit[0] is profile:
        return hit[1]
    text = json.dumps(profile, ensure_ascii=False)
    if len(_PROFILE_JSON) >= _PROFILE_JSON_SIZE:
        del _PROFILE_JSON[next(iter(_PROFILE_JSON))]
    _PROFILE_JSON[id(profile)] = (profile, text)
    return text


def encode_profile(inst: dict, encoding: str = "json", agent: str | None = None,
                   templates=None, names: dict[str, str] | None = None) -> str:
    """The preferences as shown to a model: ``json`` (the instance format), ``sentences``
    (one sentence per agent, K&W H.5 level 2) or ``narrative`` (a person choosing dishes,
    level 3), in the wording of ``templates`` (default: the default set); ``agent``: show
    that agent's list alone. Data that are not lists (partial orders) are shown as JSON."""
    t = templates or load(TEMPLATES, None)
    if agent is None and encoding == "json":
        return _profile_json(inst["profile"])
    prof = inst["profile"] if agent is None else {agent: inst["profile"][agent]}
    if encoding == "json" or not all(isinstance(o, list) for o in prof.values()):
        return json.dumps(prof, ensure_ascii=False)
    name = names or vocabulary(inst, encoding, t)
    out = []
    for a, order in prof.items():
        words = [t.render(f"{encoding}.tie", items=t[f"{encoding}.and"].join(name[x] for x in g))
                 if isinstance(g, list) else name[g] for g in order]
        then = t[f"{encoding}.then"]
        out.append(t.render(f"{encoding}.list", agent=a, first=words[0] if words else "",
                            rest="".join(then + w for w in words[1:]),
                            items=then.join(words)))
    return "\n".join(out)


def _ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def _task_values(q: dict, name: dict) -> dict:
    """The placeholders of a question's task template, item names in the prompt's
    vocabulary."""
    v: dict = {"agent": q.get("agent", "")}
    if "k" in q:
        v.update(k=q["k"], kth=_ordinal(q["k"]))
    if "item" in q:
        v["item"] = name[q["item"]]
    if q["type"] in ("compare", "count"):
        v["a"], v["b"] = (name[x] for x in q["items"])
    if q["type"] == "rank_set":
        v["items"] = ", ".join(name[x] for x in q["items"])
    if q["type"] == "rs":
        v["bundle_a"], v["bundle_b"] = ("{" + ", ".join(name[x] for x in b) + "}"
                                        for b in q["bundles"])
    return v


def _options(task: dict, inst: dict, rng) -> list:
    """MCQ candidate values: the expected value (when determined) and distractors."""
    q, exp = task["question"], task["expected"]
    t = q["type"]
    order = inst["profile"].get(q.get("agent"))
    cands: list = []
    if exp["kind"] == "value":
        cands.append(exp["value"])
    pool: list = []
    if t == "kth":
        pool = [x for x in flat(order) if x not in cands] or list(inst["items"])
    elif t == "position":
        m = len(inst["items"])
        pool = [p for p in range(1, m + 1) if p not in cands]
    elif t == "compare":
        pool = [x for x in q["items"] if x not in cands]
    elif t == "rank_set":
        xs = list(q["items"])
        pool = []
        for _ in range(12):
            perm = [xs[int(j)] for j in rng.permutation(len(xs))]
            if perm not in cands and perm not in pool:
                pool.append(perm)
    elif t == "rs":
        pool = [sorted(b) for b in q["bundles"] if sorted(b) not in cands]
    elif t == "count":             # around the entailed count (the value when determined)
        v = task.get("entailed", exp.get("value"))
        pool = [x for x in sorted({v - 2, v - 1, v, v + 1, v + 2, task.get("c1_only", v)})
                if x not in cands and x >= 0]
    want = 4 if t not in ("compare", "rs") else 2
    picks = [pool[int(j)] for j in rng.permutation(len(pool))[:max(0, want - len(cands))]]
    cands += picks
    cands = [cands[int(j)] for j in rng.permutation(len(cands))]
    return cands


def _show(value, shape: str, name: dict | None = None) -> str:
    """A value as an answer text, item names in the prompt's vocabulary ``name``."""
    n = (lambda x: name.get(x, x)) if name else (lambda x: x)
    if shape == "ranking":
        return " > ".join(map(n, value))
    if shape in ("bundle", "items"):
        return "{" + ", ".join(map(n, value)) + "}"
    return n(value) if isinstance(value, str) else str(value)


def render(task: Task, variant: dict, ctx) -> RenderedPrompt:
    f = ctx.row.factors
    t = ctx.templates or load(TEMPLATES, None)
    inst = task.instances[0]
    p = task.payload
    q = p["question"]
    encoding = getattr(ctx, "encoding", "json")
    single = q.get("agent") if encoding != "json" else None      # K&W H.5: that list alone
    dishes = None
    if "level" in variant:                       # the H.5 design: every level, one list
        encoding, single = H5_ENCODING[variant["level"]], q.get("agent")
        dishes = dish_names(inst) if variant["level"] == 3 else None
    name = dishes or vocabulary(inst, encoding, t)
    shown = 1 if single else len(inst["profile"])
    key = question_key(q, f)
    shape = QUESTION_KEYS[key][1]
    fmt = variant["format"]
    task_text = t.render(f"{'task_ffk' if fmt == 'ffk' else 'task'}.{key}",
                         **_task_values(q, name))
    extra: dict = {}
    if any(v != x for x, v in name.items()):
        extra["vocabulary"] = {v: x for x, v in name.items()}
    if fmt == "mcq":
        opts = [_show(v, shape, name) for v in _options(p, inst, ctx.rng)] + [t["mcq.abstain"]]
        letters = [chr(ord("A") + i) for i in range(len(opts))]
        question = t.render("question_mcq", task=task_text, instruction=t["mcq.instruction"],
                            options="\n".join(f"{L}: {o}" for L, o in zip(letters, opts)))
        extra.update(options=dict(zip(letters, opts)), abstain_option=letters[-1])
    else:
        question = t.render("question", task=task_text,
                            format=t[f"{'format_ffk' if fmt == 'ffk' else 'format'}.{key}"])
    profile = encode_profile(inst, encoding, single, t, dishes)
    text = t.render("prompt", n_items=len(inst["items"]), n_agents=shown,
                    agents_word="agent" if shown == 1 else "agents",
                    data=t[f"data.{f['pref']}"], preferences=_PROFILE_MARK, question=question)
    if "mitigation" in variant:                                  # App. M
        before, after = mitigation_text(variant["mitigation"], f["family"])
        text = "\n\n".join(x for x in (before, text, after) if x)
    return _shared_profile(text, profile, "mcq" if fmt == "mcq" else shape, extra)


#: where the profile goes while a prompt is rendered, so its span is known (no template
#: text holds a NUL)
_PROFILE_MARK = "\x00profile\x00"


def _shared_profile(marked: str, profile: str, shape: str, extra: dict) -> RenderedPrompt:
    """The prompt with ``profile`` in place of its one mark, the profile's span declared
    shared (:attr:`RenderedPrompt.shared`); a template that shows the profile more or
    less than once gets the whole text, unshared. O(len(text))."""
    at = marked.find(_PROFILE_MARK)
    if at < 0 or marked.count(_PROFILE_MARK) != 1:
        return RenderedPrompt(marked.replace(_PROFILE_MARK, profile), shape, extra)
    text = marked[:at] + profile + marked[at + len(_PROFILE_MARK):]
    return RenderedPrompt(text, shape, extra, shared=(at, at + len(profile)))


def gold(task: Task, variant: dict, labels: Sequence[dict], rendered: RenderedPrompt) -> str:
    """The gold answer text in the prompt's vocabulary (an option letter for MCQ)."""
    tr = truth(task.payload, labels)
    shape = rendered.answer_shape
    name = {x: v for v, x in rendered.extra.get("vocabulary", {}).items()}
    q = task.payload["question"]
    if shape == "mcq":
        if tr["kind"] != "value":
            return rendered.extra["abstain_option"]
        want = _show(tr["value"], QUESTION_KEYS[q["type"]][1], name)
        for letter, text in rendered.extra["options"].items():
            if text == want:
                return letter
        raise RuntimeError(f"gold answer {want!r} missing from the options")
    if tr["kind"] == "keeps_tie":
        v = tr["value"]
        return v if isinstance(v, str) else ", ".join(name.get(x, x) for x in v)
    if tr["kind"] == "abstain":
        return ABSTAIN_WORD.get(shape, "unknown")
    out = _show(tr["value"], shape, name)
    return out.strip("{}") if shape == "items" else out


def in_items(text: str, prompt: dict) -> str:
    """An answer written in the prompt's vocabulary (``dish 17``) with the instance's item
    names put back (``C17``), longest names first, whole words only, case-insensitive; the
    text itself when the prompt used the item names."""
    vocab = prompt.get("vocabulary")
    if not vocab or not isinstance(text, str):
        return text
    for shown in sorted(vocab, key=len, reverse=True):
        text = re.sub(r"(?<!\w)" + re.escape(shown) + r"(?!\w)", vocab[shown], text,
                      flags=re.IGNORECASE)
    return text


# ----------------------------------------------------------------------------- scoring

def _why(lab: dict, q: dict) -> dict:
    """A short, certificate-backed reason from a label."""
    cert = lab.get("certificate") or {}
    out = {"label_id": lab.get("label_id"), "certificate": cert.get("type"),
           "verdict": lab.get("verdict")}
    if cert.get("type") == "completions" and cert.get("orders") and "items" in q:
        o1, o2 = cert["orders"][:2]
        xs = q["items"]
        out["completions"] = [[x for x in o1 if x in xs], [x for x in o2 if x in xs]]
    elif cert.get("type") == "completions" and cert.get("orders"):
        key = q.get("item")
        if key:
            out["positions"] = [o.index(key) + 1 for o in cert["orders"][:2]]
    elif cert.get("type") in ("chain", "chains"):
        out["chain"] = cert.get("chain") or cert.get("up") or None
    return out


def reader_context(prompt: dict, inst: dict) -> dict:
    """What the answer reader needs for a prompt: the item names, the two bundles of a
    bundle question, the options of an MCQ (read in the question's own shape)."""
    q = prompt["task"]["question"]
    ctx: dict = {"vocab": inst["items"]}
    if q["type"] == "rs":
        ctx["bundles"] = q["bundles"]
    if prompt["answer_shape"] == "mcq":
        ctx.update(options=prompt["options"], abstain_option=prompt.get("abstain_option"),
                   option_shape=QUESTION_KEYS[question_key(q, prompt["cell"])][1])
    return ctx


def read_answer(prompt: dict, answer: str, inst: dict, mode: str = "lenient") -> Reading:
    """The reading of an answer to a prompt (:func:`prefcert.bench.answers.read`); an MCQ
    letter is read on to the value its option states. An answer and options written in the
    prompt's own vocabulary (``--encoding narrative``) are read back in the item names
    (:func:`in_items`)."""
    answer = in_items(answer, prompt)
    if prompt.get("vocabulary") and prompt.get("options"):
        prompt = {**prompt, "options": {k: in_items(v, prompt)
                                        for k, v in prompt["options"].items()}}
    ctx = reader_context(prompt, inst)
    shape = prompt["answer_shape"]
    r = read(shape, answer, mode=mode, **ctx)
    if shape == "mcq":
        return option_reading(r, prompt["options"], prompt.get("abstain_option"),
                              ctx["option_shape"], ctx)
    return r


def option_reading(r: Reading, options: dict, abstain_option: str | None, shape: str,
                   ctx: dict) -> Reading:
    """A letter reading read on to what its option states (the abstain option: an
    abstention), so an MCQ answer is judged like a free-flow one."""
    if r.kind != "value":
        return r
    if r.value == abstain_option:
        return Reading("abstain", None, r.rule)
    o = read(shape, options[r.value], **{k: v for k, v in ctx.items()
                                          if k in ("vocab", "bundles")})
    return Reading(o.kind, o.value, r.rule, o.reason)


def judge(reading: Reading, truth: dict, question: dict, *, count_range: bool = False
          ) -> tuple[str, dict]:
    """The verdict of a reading against a query's truth (Khanna & Wang 2026, §2.2):
    (verdict, extra fields). ``truth``: ``{"kind": "value", "value": v}`` or ``{"kind":
    "abstain"}`` (top-k lists: with ``necessary`` / ``possible``). A determined query is
    answered correctly by its value only, an undetermined one by an abstention only (a
    committed answer is wrong even with its assumption named). ``count_range``: a count
    whose agents do not all rank both items; an abstention there is ``ambiguous`` (the
    paper calls such counts undetermined in Table 1 but scores the entailed count in
    Table 8: corpus reading R6)."""
    extra: dict = {}
    if reading.kind in ("invalid", "ambiguous"):
        return reading.kind, extra
    t = question["type"]
    if t == "topk_list":
        ok = reading.kind == "value" and reading.value == sorted(truth["possible"])
        if reading.kind == "value" and not ok:
            nec, pos = set(truth["necessary"]), set(truth["possible"])
            if len(reading.value) == question["k"] and nec <= set(reading.value) <= pos:
                extra["category"] = "breaks_tie"
        elif ok:
            extra["category"] = "keeps_tie"
        return ("correct" if ok else "incorrect"), extra
    if truth["kind"] == "abstain":
        ok = reading.kind == "abstain"
        if reading.kind == "value":
            extra["committed"] = True          # a determined answer to an undetermined query
        return ("correct" if ok else "incorrect"), extra
    if reading.kind == "abstain" and count_range:
        return "ambiguous", extra
    ok = reading.kind == "value" and reading.value == truth["value"]
    return ("correct" if ok else "incorrect"), extra


def score(prompt: dict, answer: str | None, entry: Entry) -> Verdict:
    task = prompt["task"]
    q = task["question"]
    tr = truth(task, entry.labels)
    if answer is None:            # a timeout still says whether its query was determined
        return Verdict("timeout", extra={"determined": tr["kind"] == "value"})
    inst = entry.instances[prompt["instance_id"]]
    p = read_answer(prompt, answer, inst, getattr(entry, "parse", "lenient"))
    extra: dict = {"determined": tr["kind"] == "value"}
    if q["type"] == "rs" and prompt["cell"]["case"] != "rs_comparable":
        lex = task.get("lexicographic")
        flagged = bool(re.search(r"assum|lexicograph", answer, re.I))
        if p.kind == "abstain":
            extra["category"] = "abstain"
        elif p.kind == "value" and lex is not None and p.value == sorted(lex):
            extra["category"] = "flagged_lexicographic" if flagged else "silent_lexicographic"
        elif p.kind == "value":
            extra["category"] = "other"
    count_range = q["type"] == "count" and tr["kind"] == "value" and any(
        not set(q["items"]) <= set(tie_of(o)) for o in inst["profile"].values())
    verdict, more = judge(p, tr, q, count_range=count_range)
    extra.update(more)
    if verdict in ("invalid", "ambiguous"):
        return Verdict(verdict, p.to_json(), p.reason, extra)
    if q["type"] == "topk" and prompt["cell"]["case"] == "p3_undetermined" and p.kind == "value":
        extra["category"] = p.value
    ok = verdict == "correct"
    if q["type"] == "count" and p.kind == "value" and not ok and tr["kind"] == "value":
        extra["abs_error"] = abs(p.value - tr["value"])
        if p.value == task.get("c1_only") and task.get("c1_only") != tr["value"]:
            extra["category"] = "includes_c1_only"
    if q["type"] == "rs" and not ok and extra.get("category") == "flagged_lexicographic":
        extra["lenient_correct"] = True
    reason = None if ok else _why(entry.labels[0], q)
    return Verdict(verdict, p.to_json(), reason, extra)


def metrics(scores: Sequence[dict]) -> list[dict]:
    cells = ("family", "pref", "question", "case", "size", "nodes", "edges", "chain", "format")
    rows = accuracy_rows(scores, cells)
    rows += accuracy_rows(scores, ("family", "size", "format"), "accuracy_determined",
                          where=lambda s: s.get("determined") is True)
    rows += accuracy_rows(scores, ("family", "size", "format"), "accuracy_undetermined",
                          where=lambda s: s.get("determined") is False)
    rows += accuracy_rows(scores, ("family", "size", "format"), "invalid_rate",
                          where=lambda s: s.get("determined") is False,
                          success=lambda s: bool(s.get("committed")))
    rs_inc = lambda s: s["cell"].get("question") == "rs" and s["cell"].get("case") != "rs_comparable"
    rows += accuracy_rows(scores, ("pref", "case", "size", "format"), "lexicographic_share",
                          where=rs_inc, success=lambda s: "lexicographic" in s.get("category", ""))
    rows += accuracy_rows(scores, ("pref", "case", "size", "format"), "accuracy_lenient",
                          where=rs_inc, success=lambda s: s["verdict"] == "correct"
                          or bool(s.get("lenient_correct")))
    rows += accuracy_rows(scores, ("case",), "keeps_tie",
                          where=lambda s: s["cell"].get("question") == "topk_list",
                          success=lambda s: s.get("category") == "keeps_tie")
    rows += accuracy_rows(scores, ("case",), "breaks_tie",
                          where=lambda s: s["cell"].get("question") == "topk_list",
                          success=lambda s: s.get("category") == "breaks_tie")
    rows += accuracy_rows(scores, ("case",), "answers_yes",
                          where=lambda s: s["cell"].get("case") == "p3_undetermined",
                          success=lambda s: s.get("category") == "yes")
    agg = [s for s in scores if s["cell"].get("family") == "aggregative"]
    groups: dict = {}
    for s in agg:
        key = (s["cell"]["pref"], s["cell"]["size"], s["cell"]["format"])
        groups.setdefault(key, []).append(s)
    for (pref, size, fmt), ss in sorted(groups.items()):
        errs = [s["abs_error"] for s in ss if "abs_error" in s]
        rows.append({"metric": "mae_wrong_counts", "group": {"pref": pref, "size": size,
                     "format": fmt}, "n": len(errs),
                     "value": sum(errs) / len(errs) if errs else None})
        wrong = [s for s in ss if s["verdict"] == "incorrect"]
        rows.append(proportion("wrong_counts_including_c1_only",
                               {"pref": pref, "size": size, "format": fmt},
                               sum(1 for s in wrong if s.get("category") == "includes_c1_only"),
                               len(wrong)))
    return rows


def plots(scores: Sequence[dict], report) -> None:
    report.bar_chart("Accuracy by family and size (95 % Wilson intervals)",
                     accuracy_rows(scores, ("family", "size")), x="family", hue="size")
    det = accuracy_rows(scores, ("family",), "determined",
                        where=lambda s: s.get("determined") is True)
    und = accuracy_rows(scores, ("family",), "undetermined",
                        where=lambda s: s.get("determined") is False)
    for r in det:
        r["group"]["kind"] = "determined"
    for r in und:
        r["group"]["kind"] = "undetermined"
    report.bar_chart("Determined vs undetermined queries", det + und, x="family", hue="kind")
    report.bar_chart("Accuracy by format", accuracy_rows(scores, ("family", "format")),
                     x="family", hue="format")


# ----------------------------------------------------------------------------- results

PAPER = "Khanna & Wang (2026)"
MEDIUM_LARGE = (50, 100, 200)
"""The profile sizes the paper calls Medium (n = 50) and Large (n ≥ 100), §2.2."""
RS_BEHAVIOURS = ("abstains", "lexicographic_flagged", "lexicographic_silent",
                 "other_commitment", "no_answer_read")
PO_OUTCOMES = {"comparable": ("correct", "wrong_item", "says_incomparable", "no_answer_read"),
               "incomparable": ("correct", "commits_to_an_item", "no_answer_read")}
"""The outcomes of a partial-order answer on each kind of pair (K&W Fig. 3b)."""
_UNREAD = ("invalid", "ambiguous", "timeout")


def _correct(s: dict) -> bool:
    return s["verdict"] == "correct"


def _rs_behaviour(s: dict) -> str:
    """An RS-incomparable answer's kind (K&W H.3, Table 11's four kinds, plus no reading:
    an invalid, ambiguous or timed-out answer)."""
    if s["verdict"] in _UNREAD:
        return "no_answer_read"
    c = s.get("category")
    return {"abstain": "abstains", "flagged_lexicographic": "lexicographic_flagged",
            "silent_lexicographic": "lexicographic_silent"}.get(c, "other_commitment")


def _po_outcome(s: dict) -> str:
    """A partial-order answer's outcome (K&W Fig. 3b): on a comparable pair the chain's
    item, the other item, or a claim of incomparability (premature termination); on an
    incomparable pair an abstention or a commitment to one item."""
    if s["verdict"] in _UNREAD:
        return "no_answer_read"
    if s["verdict"] == "correct":
        return "correct"
    kind = (s.get("parsed") or {}).get("kind")
    if s["cell"]["case"] == "comparable":
        return "says_incomparable" if kind == "abstain" else "wrong_item"
    return "commits_to_an_item"


def _fig2a_tests(fig2a) -> Any:
    """Fisher's exact test of determined vs undetermined accuracy per (model, family) of
    the Fig. 2a rows, with Holm's adjustment over every test of the set."""
    from ..results import ResultSet
    from ..stats import adjusted_pvalues, fisher_exact
    cells: dict = {}
    for r in fig2a.rows:
        cells.setdefault((r["model"], r["family"]), {})[r["query"]] = (r["k"], r["n"])
    rows = []
    for (model, family), q in cells.items():
        if "determined" in q and "undetermined" in q:
            (k1, n1), (k2, n2) = q["determined"], q["undetermined"]
            rows.append({"family": family, "model": model, "k": [k1, k2], "n": [n1, n2],
                         **fisher_exact(k1, n1, k2, n2)})
    for r, p in zip(rows, adjusted_pvalues([r["pvalue"] for r in rows], "holm")):
        r["pvalue_holm"] = r["value"] = p
    return ResultSet(
        "kw-fig2a-test", f"{PAPER}, Fig. 2a, tested",
        "determined vs undetermined accuracy: Fisher's exact test per model and family",
        ["family"], rows, value="p (Holm)",
        test="Fisher's exact test (two-sided) of correct / not × determined / undetermined, "
             "unpaired: the two are different prompts on different profiles (SO vs SI "
             "lists, RS-comparable vs RS-incomparable pairs); Holm's adjustment over every "
             "(model, family) test of this table. k and n: [determined, undetermined].",
        note="Families without both kinds of query in free-flow at n ≥ 50 have no test.")


TABLE22_CELL = ("family", "pref", "question", "case", "size", "nodes", "edges", "chain")
"""The factors of a Table 22 cell: a prompt's cell less its format."""


def _table22(scores: Sequence[dict]) -> list:
    """Khanna & Wang's Table 22 (App. J.4): per model, the cells of undetermined queries
    where free-flow (``ff``) and multiple-choice (``mcq``) accuracy have non-overlapping
    95 % Wilson intervals, as ``significant cells`` of ``cells compared``, and the cells."""
    from ..results import ResultSet, share_rows
    from .algorithmic_results import OVERLAP_CRITERION, overlap_summary, separated
    acc = share_rows(scores, [*TABLE22_CELL, "format"],
                     lambda s: (*(s["cell"].get(f) for f in TABLE22_CELL), s["cell"]["format"])
                     if s.get("determined") is False and s["cell"].get("format") in ("ff", "mcq")
                     else None, _correct)
    pairs: dict = {}
    for r in acc:
        key = (r["model"], *(r[f] for f in TABLE22_CELL))
        pairs.setdefault(key, {})[r["format"]] = r
    cells = []
    for key, fm in pairs.items():
        if "ff" not in fm or "mcq" not in fm:
            continue
        ff, mcq = fm["ff"], fm["mcq"]
        cells.append({**{f: v for f, v in zip(TABLE22_CELL, key[1:]) if v is not None},
                      "model": key[0], "value": mcq["value"] - ff["value"],
                      "ff": ff["value"], "ff_k": ff["k"], "ff_n": ff["n"],
                      "mcq": mcq["value"], "mcq_k": mcq["k"], "mcq_n": mcq["n"],
                      "separated": separated(ff, mcq)})
    rows = overlap_summary(cells)
    factors = [f for f in TABLE22_CELL if any(f in c for c in cells)]
    test = OVERLAP_CRITERION
    note = ("Undetermined queries only; a cell is a prompt cell less its format (family, "
            "preference type, question, case, size or graph shape), kept where both ff and "
            "mcq were answered. ffk is not part of the paper's contrast.")
    return [ResultSet("kw-table22", f"{PAPER}, Table 22",
                      "format effect (free-flow vs MCQ) on undetermined queries: cells with "
                      "non-overlapping 95 % intervals", ["measure"], rows, value="cells",
                      test=test, note=note),
            ResultSet("kw-table22-cells", f"{PAPER}, Table 22 (cells)",
                      "format effect per cell: MCQ − free-flow accuracy (separated: the "
                      "intervals do not overlap)", factors, cells,
                      value="accuracy difference (mcq − ff)", test=test, note=note)]


def results(scores: Sequence[dict]) -> list:
    """The paper's preference-reasoning results over any number of models
    (:class:`~prefcert.bench.results.ResultSet`, models from the records' ``model``):

    - ``kw-fig7``: accuracy by task family × profile size (Fig. 7; partial orders have no
      profile size and are left to Fig. 3b);
    - ``kw-fig2a``: determined vs undetermined queries, free-flow format, Medium and Large
      profiles (n = 50, 100, 200), by family (Fig. 2a), and ``kw-fig2a-test``: Fisher's
      exact test of the two per model and family, unpaired, Holm over the table;
    - ``kw-fig2b``: accuracy on undetermined queries by family × format (Fig. 2b);
    - ``kw-fig3a``: what the answers to RS-incomparable bundle pairs are — an abstention,
      a lexicographic completion flagged as an assumption or silent, another
      commitment — pooled over preference types (Fig. 3a, Table 11's kinds), and
      ``kw-table10-lex``: the lexicographic share by preference type (Table 10, the
      values in parentheses);
    - ``kw-fig3b``: partial-order failure modes on comparable and incomparable pairs
      (Fig. 3b): premature "incomparable" where a chain exists, a commitment where none
      does;
    - ``kw-table22`` / ``kw-table22-cells``: per model, the undetermined-query cells where
      free-flow and MCQ accuracy have non-overlapping 95 % intervals (Table 22, App. J.4);
    - ``kw-table19``, from ``design=h5`` records: accuracy by task and rendering level
      (:func:`table19`, App. H.5);
    - ``kw-table27`` / ``kw-table28``, from ``design=mitigation`` records: bundle
      comparisons (determined | undetermined) and the unranked-item query by mitigation
      level (:func:`table27`, :func:`table28`, App. M).

    The main-design sets read the main design's records only (a cell naming no
    ``design``), the variant tables their variant's.

    Every value is a share k / n of prompts with its 95 % Wilson interval (one draw per
    prompt; Wilson 1927). O(R log R) for R records.

    References
    ----------
    Khanna, S. and Wang, X. (2026). Preference reasoning under indeterminacy in large
    language models. arXiv:2608.18631. §3, Figs. 2, 3 and 7, App. H.3–H.4.
    """
    from ..results import ResultSet, category_rows, model_bars, share_rows
    designs = {d: [s for s in scores if design_of(s) == d] for d in DESIGNS}
    scores = designs["main"]
    fam = lambda s: s["cell"].get("family")
    out = [ResultSet(
        "kw-fig7", f"{PAPER}, Fig. 7", "accuracy by task family and profile size",
        ["family", "size"],
        share_rows(scores, ["family", "size"],
                   lambda s: (fam(s), s["cell"]["size"]) if s["cell"].get("size") is not None
                   else None, _correct),
        value="accuracy", figure=model_bars,
        note="All formats and cases of a family pooled; 95 % Wilson intervals over prompts. "
             "Partial orders (one DAG over 100 or 30 items, no profile size) are in Fig. 3b.")]
    out.append(ResultSet(
        "kw-fig2a", f"{PAPER}, Fig. 2a",
        "determined vs undetermined queries (free-flow, Medium and Large profiles)",
        ["family", "query"],
        share_rows(scores, ["family", "query"],
                   lambda s: (fam(s), "determined" if s["determined"] else "undetermined")
                   if s["cell"].get("format") == "ff" and s["cell"].get("size") in MEDIUM_LARGE
                   and s.get("determined") is not None else None, _correct),
        value="accuracy", figure=model_bars,
        note="Free-flow prompts (no options) at n = 50, 100, 200; a determined query is "
             "correct with its certified value, an undetermined one with an abstention "
             "only — except top-k prompts 2 and 3 (the list, then yes / no only), scored "
             "under the topk_ties reading: keeping the tie is correct. Aggregative counts "
             "are determined under the default si_counts reading (no undetermined row). "
             "95 % Wilson intervals."))
    out.append(_fig2a_tests(out[-1]))
    out.append(ResultSet(
        "kw-fig2b", f"{PAPER}, Fig. 2b", "accuracy on undetermined queries by format",
        ["family", "format"],
        share_rows(scores, ["family", "format"],
                   lambda s: (fam(s), s["cell"].get("format"))
                   if s.get("determined") is False else None, _correct),
        value="accuracy", figure=model_bars,
        note="ff: free-flow; ffk: free-flow with 'if known'; mcq: options with an "
             "'insufficient information' option. Every size and case of a family pooled, "
             "partial orders included (both representations). 95 % Wilson intervals."))
    rs_inc = lambda s: s["cell"].get("question") == "rs" and \
        s["cell"].get("case") == "rs_incomparable" and s["cell"].get("format") == "ffk"
    out.append(ResultSet(
        "kw-fig3a", f"{PAPER}, Fig. 3a",
        "answers to RS-incomparable bundle pairs, pooled over preference types",
        ["behaviour"],
        category_rows(scores, [], lambda s: () if rs_inc(s) else None, _rs_behaviour,
                      "behaviour", RS_BEHAVIOURS),
        value="share of answers", figure=model_bars,
        note="RS-incomparable pairs in the ffk format (the one every preference type has: "
             "SO at n = 50 and 100, SI and TO at n = 50), SO, SI and TO pooled. The kinds "
             "are exclusive and sum to 1 per model: abstains (the only correct answer), "
             "the lexicographically preferred bundle with the rule named as an assumption "
             "('assum…' or 'lexicograph…' in the answer) or silently, another bundle, and "
             "no answer read (invalid, ambiguous, timeout). 95 % Wilson intervals."))
    out.append(ResultSet(
        "kw-table10-lex", f"{PAPER}, Table 10 (parenthesised values)",
        "lexicographic share on RS-incomparable bundle pairs by preference type", ["pref"],
        share_rows(scores, ["pref"], lambda s: (s["cell"]["pref"],) if rs_inc(s) else None,
                   lambda s: _rs_behaviour(s).startswith("lexicographic")),
        value="lexicographic share", figure=model_bars,
        note="Share of the RS-incomparable answers (ffk) that pick the lexicographically "
             "preferred bundle, flagged or silent. 95 % Wilson intervals."))
    po = lambda s: s["cell"].get("family") == "partial_order" and \
        s["cell"].get("pref") == "pairwise" and s["cell"].get("format") == "ff"
    out.append(ResultSet(
        "kw-fig3b", f"{PAPER}, Fig. 3b",
        "partial-order pairwise queries: outcomes on comparable and incomparable pairs",
        ["pair", "outcome"],
        [r for pair, kinds in PO_OUTCOMES.items() for r in category_rows(
            scores, ["pair"], lambda s, pair=pair: (pair,) if po(s) and
            s["cell"]["case"] == pair else None, _po_outcome, "outcome", kinds)],
        value="share of answers", figure=model_bars,
        note="Format 1 (pairwise comparisons, 100 items), free-flow, every density and "
             "chain length pooled. On comparable pairs (a chain exists) 'says_incomparable' "
             "is the premature termination of an incomplete search; on incomparable pairs "
             "'commits_to_an_item' is a determined answer to an undetermined query (which "
             "assumption led to it — a typo assumed, out-degree counts — needs a judge of "
             "the reasoning, Table 16, and is not split here). Shares sum to 1 per model "
             "and pair. 95 % Wilson intervals."))
    out += _table22(scores)
    out += [table19(designs["h5"]), table27(designs["mitigation"]),
            table28(designs["mitigation"])]
    return [rs for rs in out if rs.rows]


def design_of(s: dict) -> str:
    """The design a scored record comes from: its cell's ``design`` (``h5``,
    ``mitigation``), ``main`` when the cell names none (the registered design's cells
    do not). O(1)."""
    d = (s.get("cell") or {}).get("design")
    return str(d) if d in DESIGNS else "main"


#: case of an H.5 cell -> the row label of Table 19 (K&W 2026, App. H.5)
H5_TASKS = {"rs_incomparable": "RS-incomparable bundle", "undetermined": "unranked item",
            "rs_comparable": "determined bundle (control)"}
#: case of a mitigation bundle cell -> the half of Table 27's determined | undetermined cell
M_QUERY = {"rs_comparable": "determined", "rs_incomparable": "undetermined"}


def _variant_set(scores: Sequence[dict], design: str, key: str, title: str,
                 factors: list[str], levels, note: str) -> Any:
    """A share table of one variant design's records: ``levels(cell)`` gives a record's
    factor levels (None leaves it out); every record of a cell is in n."""
    from ..results import ResultSet, model_bars, share_rows
    rows = share_rows(scores, factors, lambda s: levels(s["cell"])
                      if design_of(s) == design else None, _correct)
    return ResultSet(key, f"{PAPER}, Table {key.rsplit('table', 1)[1]}", title, factors,
                     rows, value="accuracy", figure=model_bars, note=note)


def table19(scores: Sequence[dict]) -> Any:
    """Table 19 (Khanna & Wang 2026, App. H.5): accuracy per task (RS-incomparable
    bundle, unranked item, the determined bundle control), rendering level (1 symbolic
    list, 2 sentences, 3 dishes in a narrative) and model, over the ``design=h5``
    records (60 per cell in the design). Every record of a cell is in its denominator: an
    invalid, ambiguous or timed-out answer does not indicate indeterminacy and counts as
    wrong. Records of other designs are ignored. O(R log R) for R records.

    Parameters
    ----------
    scores : sequence of dict
        Scored records of any number of models (``model``; none:
        :data:`~prefcert.bench.results.UNNAMED_MODEL`).

    Returns
    -------
    ResultSet
        ``kw-table19``; factors ``task``, ``level``; shares with Wilson intervals.
    """
    return _variant_set(
        scores, "h5", "kw-table19",
        "accuracy by rendering level: undetermined bundle and unranked-item queries, and "
        "the determined bundle control", ["task", "level"],
        lambda c: (H5_TASKS[c["case"]], c["level"])
        if c.get("case") in H5_TASKS and "level" in c else None,
        "Level 1: the symbolic list; 2: the same items in sentences; 3: real dishes in a "
        "meal narrative (the queried agent's list alone, free-flow). On the two "
        "undetermined tasks correct = the answer indicates indeterminacy; on the control "
        "(one bundle dominates) correct = that bundle. Every answer of a cell is in n (60 "
        "per cell in the design): invalid, ambiguous and timed-out answers count as wrong. "
        "The paper pools its control row over models; here it is per model. 95 % Wilson "
        "intervals.")


def table27(scores: Sequence[dict]) -> Any:
    """Table 27 (Khanna & Wang 2026, App. M): bundle-comparison accuracy per mitigation
    level (``L1_bare``, ``L2_mcq``, ``L3_general``, ``L3_specific``, ``L4_few_shot``),
    query (``determined``: RS-comparable, one bundle dominates; ``undetermined``:
    RS-incomparable) and model, over the ``design=mitigation`` records (30 per cell in
    the design); the paper's "determined | undetermined" cell is the two rows of a level.
    Every record of a cell is in n (invalid, ambiguous, timeout: wrong).
    O(R log R) for R records.

    Parameters
    ----------
    scores : sequence of dict
        As for :func:`table19`; only bundle records of the mitigation design are read.

    Returns
    -------
    ResultSet
        ``kw-table27``; factors ``level``, ``query``.
    """
    return _variant_set(
        scores, "mitigation", "kw-table27",
        "bundle comparisons under prompt-level mitigation: determined | undetermined "
        "accuracy by level", ["level", "query"],
        lambda c: (c["mitigation"], M_QUERY[c["case"]])
        if c.get("family") == "bundle" and c.get("case") in M_QUERY and "mitigation" in c
        else None,
        "determined = RS-comparable pairs (the dominating bundle is correct), undetermined "
        "= RS-incomparable pairs (only an abstention is correct). L1 bare, L2 MCQ with the "
        "insufficient-information option, L3 general / specific caution, L4 one worked "
        "demonstration (our wordings, docs/suites.md). Every answer of a cell is in n (30 "
        "per cell in the design); invalid, ambiguous and timed-out answers count as wrong. "
        "95 % Wilson intervals.")


def table28(scores: Sequence[dict]) -> Any:
    """Table 28 (Khanna & Wang 2026, App. M): accuracy on the undetermined atomic query
    about an unranked item per level (``L1_bare``; ``L4_in_domain``, a demonstration of
    the same source of indeterminacy, an unranked item; ``L4_cross_source``, the paper's
    "L4 cross-domain": the bundle-comparison demonstration, the other source) and model,
    over the ``design=mitigation`` records (30 per cell). Every record of a cell is in n.
    O(R log R) for R records.

    Parameters
    ----------
    scores : sequence of dict
        As for :func:`table19`; only the unranked-item records of the mitigation design.

    Returns
    -------
    ResultSet
        ``kw-table28``; factor ``level``.
    """
    return _variant_set(
        scores, "mitigation", "kw-table28",
        "the undetermined unranked-item query under few-shot mitigation: accuracy by level",
        ["level"],
        lambda c: (c["mitigation"],) if c.get("family") == "atomic" and "mitigation" in c
        else None,
        "Reading: the paper's column 'L4 cross-domain' is its caption's 'cross-source' — "
        "demonstrations about the other source of indeterminacy (App. M: the "
        "bundle-comparison demonstration applied to an item the agent never ranked), not "
        "another application domain; here L4_cross_source. L4_in_domain: a demonstration "
        "of an unranked item. Only an abstention is correct; every answer of a cell is in n "
        "(30 per cell in the design). 95 % Wilson intervals.")


SUITE_NAME = "indeterminacy-preference"
PARAMETERS = {
    "max_draws": Parameter("max_draws", MAX_DRAWS, int_in(1, MAX_DRAWS_LIMIT),
                           "draw budget per query of the rejection samplers (default "
                           "100,000): a cell with no acceptable draw within it is refused, "
                           "naming the cell; a progress line every 500 draws"),
    "profiles": Parameter("profiles", "inline", lambda v: _profiles(v),
                          "inline (default): every prompt record holds its whole text; "
                          "shared: prompts.jsonl refers to each profile, written once to "
                          "profiles.jsonl (keyed by SHA-256); every reader resolves the "
                          "references, so the prompts read are the same", run=True),
    "design": Parameter("design", "main", lambda v: _design(v),
                        "main (Table 3, the default), mitigation: the App. M levels "
                        "(Tables 27-28; 390 prompts at n = 50) or h5: the H.5 rendering "
                        "levels (Table 19; 540 prompts at n = 50)",
                        variants=("mitigation", "h5")),
}


#: App. M levels on the bundle comparison (Table 27) and the unranked-item query (Table 28)
BUNDLE_LEVELS = ({"format": "ff", "mitigation": "L1_bare"},
                 {"format": "mcq", "mitigation": "L2_mcq"},
                 {"format": "ff", "mitigation": "L3_general"},
                 {"format": "ff", "mitigation": "L3_specific"},
                 {"format": "ff", "mitigation": "L4_few_shot"})
ATOMIC_LEVELS = ({"format": "ff", "mitigation": "L1_bare"},
                 {"format": "ff", "mitigation": "L4_in_domain"},
                 {"format": "ff", "mitigation": "L4_cross_source"})
MITIGATION_SIZE = 50


def mitigation_rows(sizes: Sequence[int]) -> list[Row]:
    """The prompt-mitigation design (K&W 2026, App. M, Tables 27-28): RS-comparable and
    RS-incomparable bundle comparisons (SO) at five levels, and the undetermined atomic
    query about an unranked item (SI, position) bare and with in-domain and cross-source
    demonstrations; 30 instances per cell, n = 50 (the bundle design's size). O(1)."""
    n = MITIGATION_SIZE
    return ([Row({"family": "bundle", "pref": "SO", "question": "rs", "case": c, "size": n,
                  "design": "mitigation"}, list(BUNDLE_LEVELS))
             for c in ("rs_comparable", "rs_incomparable")] +
            [Row({"family": "atomic", "pref": "SI", "question": "position",
                  "case": "undetermined", "size": n, "design": "mitigation"},
                 list(ATOMIC_LEVELS))])


#: our restatements of the App. M interventions (the paper's information content, not its
#: words); the demonstrations use a made-up agent Z over items p, q, r, s
CAUTION_GENERAL = ("Caution: the preferences given may not entail an answer to this "
                   "question. Do not fill gaps with assumptions of your own; if the answer "
                   "cannot be determined from what is stated, answer "
                   "<answer>cannot be determined</answer>.")
CAUTION_SPECIFIC = ("Caution: the agent ranks single alternatives, not bundles. One bundle "
                    "is preferred to another only if the alternatives of the first can be "
                    "paired one-to-one with those of the second so that each is ranked at "
                    "least as high as its partner (strictly higher at least once); when no "
                    "such pairing exists in either direction the preference between the "
                    "bundles is not determined. Do not decide by a rule of your own, such as "
                    "comparing the best alternatives first; in that case answer "
                    "<answer>cannot be determined</answer>.")
DEMO_BUNDLE = ("Example. Agent Z's preference list, best first: [\"p\", \"q\", \"r\", "
               "\"s\"]. Question: between {p, s} and {q, r}, which bundle does Z prefer? "
               "Reasoning: pairing p with q and s with r puts s below r; pairing p with r and "
               "s with q puts s below q; the other direction fails on q against p. Neither "
               "bundle dominates. Answer: <answer>cannot be determined</answer>.")
DEMO_ATOMIC = ("Example. Agent Z's preference list, best first: [\"p\", \"q\", \"r\"], over "
               "the alternatives p, q, r, s. Question: at what position does s appear in Z's "
               "preference list? Reasoning: s is not ranked, so nothing stated fixes its "
               "position. Answer: <answer>cannot be determined</answer>.")


def mitigation_text(level: str, family: str) -> tuple[str, str]:
    """(text before the prompt, text after it) of an App. M level (K&W 2026, App. M):
    ``L1_bare`` and ``L2_mcq`` add nothing (L2 is the MCQ format with its abstain option);
    ``L3_general`` / ``L3_specific`` a caution after the question (the specific one names
    the responsive-set structure of bundle comparisons); ``L4_few_shot`` /
    ``L4_in_domain`` a worked demonstration of the same source before the prompt,
    ``L4_cross_source`` one of the other source (bundle demo on the unranked-item
    query). O(1)."""
    if level == "L3_general":
        return "", CAUTION_GENERAL
    if level == "L3_specific":
        return "", CAUTION_SPECIFIC
    if level in ("L4_few_shot", "L4_in_domain"):
        return (DEMO_BUNDLE if family == "bundle" else DEMO_ATOMIC), ""
    if level == "L4_cross_source":
        return (DEMO_ATOMIC if family == "bundle" else DEMO_BUNDLE), ""
    return "", ""


def _profiles(v: Any) -> str:
    if v not in PROFILES:
        raise ValueError(f"profiles is {' or '.join(PROFILES)}, not {v!r}")
    return str(v)


#: how prompts.jsonl holds the profiles (the ``profiles`` parameter)
PROFILES = ("inline", "shared")


def _design(v: Any) -> str:
    if v not in DESIGNS:
        raise ValueError(f"design is {' or '.join(DESIGNS)}, not {v!r}")
    return str(v)


DESIGNS = ("main", "mitigation", "h5")
#: H.5 levels: 1 the symbolic list, 2 the same items in sentences, 3 dishes in a narrative
H5_ENCODING = {1: "json", 2: "sentences", 3: "narrative"}
H5_PER_CELL = 60


def h5_rows(sizes: Sequence[int]) -> list[Row]:
    """The natural-language rendering design (K&W 2026, App. H.5, Table 19): RS-incomparable
    bundle comparisons, their determined controls (RS-comparable: one bundle dominates) and
    the unranked-item query, each at the three levels (variants ``level`` 1-3, free-flow),
    the queried agent's list alone; 60 instances per cell, n = 50. O(1)."""
    levels = [{"format": "ff", "level": k} for k in H5_ENCODING]
    n = MITIGATION_SIZE
    return ([Row({"family": "bundle", "pref": "SO", "question": "rs", "case": c, "size": n,
                  "design": "h5"}, levels) for c in ("rs_incomparable", "rs_comparable")] +
            [Row({"family": "atomic", "pref": "SI", "question": "position",
                  "case": "undetermined", "size": n, "design": "h5"}, levels)])


def configure(suite: Suite, params: dict, sizes: Sequence[int] | None) -> Suite:
    """The design at the sizes kept: any n within :data:`SIZE_LIMITS` (refused with one
    line outside them). A size outside the paper's 50, 100, 200 gets the atomic and
    comparative families (the ones the paper varies over size); sizes among the paper's
    give the registered design unchanged (same bytes)."""
    if params.get("design") in ("mitigation", "h5"):
        if sizes is not None and tuple(sizes) != (MITIGATION_SIZE,):
            raise InstanceError(f"suite {suite.name}: the {params['design']} design is at "
                                f"n = {MITIGATION_SIZE} only", value=",".join(map(str, sizes)))
    if params.get("design") == "h5":
        return replace(suite, sizes=(MITIGATION_SIZE,), rows=h5_rows, expected_total=None,
                       per_cell=H5_PER_CELL,
                       description="Natural-language rendering (Khanna & Wang 2026, App. "
                                   "H.5, Table 19): bundle comparisons (undetermined and "
                                   "determined controls) and the unranked-item query at "
                                   "three levels: symbolic list, sentences, dishes.")
    if params.get("design") == "mitigation":
        return replace(suite, sizes=(MITIGATION_SIZE,), rows=mitigation_rows,
                       expected_total=None,
                       description="Prompt-level mitigation (Khanna & Wang 2026, App. M, "
                                   "Tables 27-28): bundle comparisons at five levels, the "
                                   "unranked-item query bare and with demonstrations.")
    kept = check_sizes(suite.name, tuple(sizes) if sizes is not None else SIZES,
                       SIZE_LIMITS, "below 10 truncated lists rarely leave four listed items "
                       "beside unlisted ones; above 300 a profile of n lists of n items "
                       "outgrows a prompt")
    if set(kept) <= set(SIZES):
        return suite
    return replace(suite, sizes=kept, expected_total=None,
                   description=f"{suite.description} Sizes: n = "
                               f"{', '.join(map(str, kept))}.")


SUITE = Suite(
    name="indeterminacy-preference",
    description="Epistemic indeterminacy: atomic, comparative, bundle, top-k, aggregative and "
                "partial-order queries on strict, truncated and tied profiles, in free-flow, "
                "free-flow-if-known and multiple-choice formats (Khanna & Wang 2026, §3).",
    sizes=SIZES, per_cell=30, seed=0, rows=rows, sample=sample, render=render, gold=gold,
    score=score, metrics=metrics, plots=plots, results=results, expected_total=3360,
    readings=READINGS,
    templates=TEMPLATES, parameters=PARAMETERS, configure=configure,
    citation=('Khanna, S. and Wang, X. (2026). '
              '"Preference reasoning under indeterminacy in large language models".'
              ' arXiv:2608.18631.'),
    shared_draw=shared_draw,
    encodings=ENCODINGS,
)
