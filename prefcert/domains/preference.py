"""The ``preference`` domain: epistemic queries over incomplete/tied/partial preferences.

Questions (JSON objects in an instance's ``questions``; see :mod:`formal.preference`):

=============  ==========================================  =================================
type           parameters                                   answer
=============  ==========================================  =================================
position       agent, item[, position]                      determined {"value": p} /
                                                            undetermined {"min","max"}; with
                                                            ``position``: true/false/undet.
kth            agent, k                                     determined {"value": item}/undet.
compare        agent, items [a, b]                          true (a ≻ b) / false / undet.
rank_set       agent, items [...]                           determined {"value": order} /
                                                            undetermined {"pairs": [[a,b]..]}
rs             agent, bundles [[A...], [B...]]              A ⪰_RS B: true / false / undet.
topk           agent, item, k                               true / false / undetermined
topk_list      agent, k                                     determined {"value": set} / undet.
                                                            {"necessary", "possible"}
count          items [a, b]                                 voters with a ≻ b: determined
                                                            {"value"} / undet. {"min","max"}
majority       items [a, b]                                 true (necessary) / undetermined
                                                            (possible) / false, {"min","max"}
winner         rule (plurality|borda|copeland: the          true (necessary co-winner) /
               rules that support incomplete profiles),     undetermined (possible) / false
               item
=============  ==========================================  =================================

Engines: ``oracle`` (oracles.preference / oracles.preference_winner), ``cpsat`` (encodings.preference),
``cpsat_agg`` (winner, plurality/Borda on weak orders: voters aggregated per tie group),
``brute_force`` (winner only, small). Engines must agree on verdict and solution; the
label's certificate is the first one the checker accepts.
"""
from __future__ import annotations

import copy
import json
from typing import Any

from ..formal.checker.preference import SPEC, profile_completions
from ..formal.errors import CertificateError, InstanceError, Undecided
from ..formal.preference import (
    PROFILE,
    QUESTIONS,
    SINGLE,
    PreferenceModel,
    resolve,
    validate,
)
from ..formal.rules import rule_names
from .base import (UNKNOWN, Absent, Decision, Domain, ListRef, Outcome, Property, Question,
                   Shrinker, Space, agreement, disagreement, gave_up)

MAX_ENCODING_ITEMS = 40
MAX_ENCODING_CELLS = 2000       # agents × items for counting queries
MAX_WINNER_CELLS = 60           # voters × items for winner queries (copies per voter)
MAX_BRUTE_FORCE = (6, 4)        # items, voters


def _oracle(name: str):
    def run(model: PreferenceModel, params: dict, *, time_limit: float, seed: int) -> Outcome:
        from ..oracles import preference as oq
        from ..oracles import preference_winner as ov
        validate(model, name, params)
        if name == "winner":
            return ov.winner(model, params, time_limit=time_limit)
        if name in ("count", "majority"):
            return getattr(oq, name)(model, params)
        if name == "rs":               # the only single-agent query with a search
            return oq.rs(model, params, time_limit=time_limit)
        return oq.SINGLE[name](model, params)
    return run


def _cpsat(name: str):
    def run(model: PreferenceModel, params: dict, *, time_limit: float, seed: int) -> Outcome:
        from ..encodings.preference import query_cpsat
        validate(model, name, params)
        return query_cpsat(model, name, params, time_limit=time_limit, seed=seed)
    return run


def _cpsat_agg(model: PreferenceModel, params: dict, *, time_limit: float, seed: int) -> Outcome:
    from ..encodings.preference import winner_aggregated_cpsat
    validate(model, "winner", params)
    return winner_aggregated_cpsat(model, params, time_limit=time_limit, seed=seed)


def _brute(model: PreferenceModel, params: dict, *, time_limit: float, seed: int) -> Outcome:
    from ..oracles.preference_winner import brute_force_winner
    validate(model, "winner", params)
    return brute_force_winner(model, params, time_limit=time_limit)


def _auto(name: str):
    def auto(model: PreferenceModel) -> list[str]:
        names = ["oracle"]
        if name in SINGLE and model.m <= MAX_ENCODING_ITEMS:
            names.append("cpsat")
        if name in ("count", "majority") and model.m <= MAX_ENCODING_ITEMS and \
                len(model.agents) * model.m <= MAX_ENCODING_CELLS:
            names.append("cpsat")
        if name == "winner":
            if model.voters * model.m <= MAX_WINNER_CELLS:
                names.append("cpsat")
            if all(a.kind == "order" and (a.truncated or len(a.order) == model.m)
                   for a in model.agents):
                names.append("cpsat_agg")
            if model.m <= MAX_BRUTE_FORCE[0] and model.voters <= MAX_BRUTE_FORCE[1]:
                names.append("brute_force")
        return names
    return auto


def _key(o: Outcome) -> tuple:
    return o.verdict, json.dumps(o.solution, sort_keys=True)


def decide(answers, check) -> Decision:
    """Engines must agree on (verdict, solution); every certificate given must pass the
    checker; the first accepted one is the label's. With no certificate, three agreeing
    engines give an agreement record (not a proof: the label is unverified unless
    :func:`certify` finds one); otherwise Undecided."""
    decided = [a for a in answers if a.outcome.verdict != UNKNOWN]
    if not decided:
        raise Undecided(gave_up(answers))
    if len({_key(a.outcome) for a in decided}) > 1:
        raise disagreement("engines disagree on the verdict or the solution", answers, check)
    verdict, solution = decided[0].outcome.verdict, decided[0].outcome.solution
    chosen = None
    for a in decided:
        if a.outcome.certificate:
            try:
                check(verdict, solution, a.outcome.certificate)
            except CertificateError as e:
                raise disagreement(f"certificate of {a.engine} rejected: {e}", answers, check)
            chosen = chosen or a.outcome.certificate
    if chosen is not None:
        return Decision(verdict, solution, chosen)
    names = [a.engine for a in decided]
    weak = None if len(names) >= 3 else \
        f"no checkable certificate and only {len(names)} engine(s) agree"
    return Decision(verdict, solution, agreement(verdict, names), weak)


def certify(name: str):
    """A proof of an agreed answer the engines gave none for: the oracle's certificate
    (chains, bounds, an injection, a Hall violator…), else, for a winner, the checker's
    own exhaustive enumeration when it is small enough."""
    def run(model: PreferenceModel, params: dict, verdict: str, solution: Any, *,
            time_limit: float) -> dict | None:
        out = _oracle(name)(model, params, time_limit=time_limit, seed=0)
        if out.verdict != UNKNOWN and out.certificate:
            return out.certificate
        if name == "winner" and verdict in ("true", "false") and \
                profile_completions(model) is not None:
            return {"type": "exhaustive"}
        return None
    return run


def _truth(model: PreferenceModel, name: str, params: dict) -> Outcome:
    out = _oracle(name)(model, params, time_limit=10.0, seed=0)
    if out.verdict == UNKNOWN:
        out = _cpsat(name)(model, params, time_limit=10.0, seed=0)
    return out


def audit(name: str):
    """Judge a third-party answer: a verdict word, a value, or {"verdict", "value"}.

    A wrong verdict is refuted with our certificate (two completions, a chain, bounds…)."""
    def run(model: PreferenceModel, params: dict, answer: Any) -> dict:
        validate(model, name, params)
        truth = _truth(model, name, params)
        if truth.verdict == UNKNOWN:
            return {"verdict": "unparseable", "violations": [],
                    "feedback": "the question could not be settled within the time limit"}
        if isinstance(answer, dict):
            claimed, value = answer.get("verdict"), answer.get("value", answer.get("solution"))
        elif isinstance(answer, str) and answer.lower() in ("true", "false", "undetermined",
                                                            "determined"):
            claimed, value = answer.lower(), None
        elif isinstance(answer, bool):
            claimed, value = str(answer).lower(), None
        else:
            claimed, value = "determined", answer
        if claimed is None and value is not None:
            claimed = "determined"
        if claimed not in ("true", "false", "undetermined", "determined"):
            return {"verdict": "unparseable", "violations": [],
                    "feedback": f"no verdict word in the answer: {answer!r:.80}"}
        violations = []
        if claimed != truth.verdict:
            violations.append({"claimed": claimed, "truth": truth.verdict,
                               "solution": truth.solution, "certificate": truth.certificate})
        elif claimed == "determined" and value is not None:
            want = truth.solution["value"]
            norm = sorted(value) if isinstance(want, list) and name == "topk_list" and \
                isinstance(value, list) else value
            if norm != want:
                violations.append({"claimed_value": value, "value": want,
                                   "certificate": truth.certificate})
        ok = not violations
        fb = "correct" if ok else (f"the answer is {truth.verdict}"
                                   + (f" with {truth.solution}" if truth.solution else ""))
        proof = truth.certificate or certify(name)(model, params, truth.verdict,
                                                   truth.solution, time_limit=10.0)
        return {"verdict": "correct" if ok else "incorrect", "violations": violations,
                "feedback": fb, "truth": {"verdict": truth.verdict, "solution": truth.solution},
                "proof": {"verdict": truth.verdict, "solution": truth.solution,
                          "certificate": proof}}
    return run


def default_questions(model: PreferenceModel) -> list[dict]:
    """Every pairwise majority comparison (unordered pairs, in item order, with bounds)
    and the winner question (NW/PW) for every item under every rule that supports
    incomplete profiles (plurality, Borda and Copeland)."""
    qs = [{"type": "majority", "items": [a, b]}
          for i, a in enumerate(model.items) for b in model.items[i + 1:]]
    qs += [{"type": "winner", "rule": r, "item": c} for r in rule_names(incomplete=True)
           for c in model.items]
    return qs


def _question(name: str) -> Question:
    engines = {"oracle": _oracle(name), "cpsat": _cpsat(name)}
    if name == "winner":
        engines["cpsat_agg"] = _cpsat_agg
        engines["brute_force"] = _brute
    return Question(name=name, engines=engines, auto=_auto(name), decide=decide,
                    audit=audit(name), certify=certify(name))


# ----------------------------------------------------------------------------- hooks

def _lists(inst: dict) -> list[ListRef]:
    out = []
    for v, datum in inst["profile"].items():
        if isinstance(datum, list):
            out.append((("profile", v), datum, 1))
        elif isinstance(datum, dict) and isinstance(datum.get("order"), list):
            out.append((("profile", v, "order"), datum["order"], 1))
    return out


def _shrinker() -> Shrinker:
    """Voters, and the items when every datum is an order (a partial order's edges or a
    choice set would need their own reduction)."""
    from ..pipeline.minimize import without_items

    def agents(inst: dict) -> list[tuple[str, str]]:
        out = [("voter", v) for v in inst["profile"]]
        if all(isinstance(v, list) or (isinstance(v, dict) and "order" in v)
               for v in inst["profile"].values()):
            out += [("item", x) for x in inst.get("items", [])]
        return out

    def keep(inst: dict, kept: list[tuple[str, str]]) -> dict:
        keep_set = set(kept)
        gone = {name for kind, name in agents(inst) if (kind, name) not in keep_set}
        out = copy.deepcopy(inst)
        out["profile"] = {v: datum for v, datum in out["profile"].items() if v not in gone}
        if "items" in out:
            out["items"] = [x for x in out["items"] if x not in gone]
        for path, lst, _ in _lists(out):
            node = out
            for k in path[:-1]:
                node = node[k]
            node[path[-1]] = without_items(lst, gone)
        return out
    return Shrinker(_lists, agents, keep, lambda inst: len(inst["profile"]))


def _space() -> Space:
    def enumerate_(dims, complete, options):
        from ..generators.preference import profile_space
        return profile_space(*dims)

    def sample(dims, complete, rng, options):
        from ..generators.preference import random_profile
        return random_profile(*dims, rng)

    def size(dims, complete):
        from ..generators.preference import profile_space_size
        return profile_space_size(*dims)
    return Space("profile", lambda n, max_items: [(n, m) for m in range(2, max_items + 1)],
                 size, enumerate_, sample)


def _properties() -> dict[str, Property]:
    from ..pipeline.counterexample import certified_label

    def margins(inst: dict) -> tuple[list[str], dict]:
        items = list(inst["items"])
        net = {(a, b): 0 for a in items for b in items if a != b}
        for datum in inst["profile"].values():
            order = datum if isinstance(datum, list) else datum["order"]
            k = 1 if isinstance(datum, list) else int(datum.get("count", 1))
            if any(isinstance(g, list) for g in order) or len(order) != len(items):
                raise InstanceError("the Condorcet property needs linear, complete ballots",
                                    value=order)
            for i, a in enumerate(order):
                for b in order[i + 1:]:
                    net[a, b] += k
                    net[b, a] -= k
        return items, net

    def holds(inst: dict) -> bool:
        items, net = margins(inst)
        return any(all(net[c, d] > 0 for d in items if d != c) for c in items)

    def certify(inst: dict) -> dict:
        """For every candidate c a rival d over which c has no strict majority, each by a
        ``majority`` label (checked bounds)."""
        items, net = margins(inst)
        beaten = []
        for c in items:
            d = next(d for d in items if d != c and net[c, d] <= 0)
            lab = certified_label(inst, {"type": "majority", "items": [c, d]})
            if lab["verdict"] != "false":
                raise AssertionError(f"{c} has a strict majority over {d} after all")
            beaten.append({"candidate": c, "not_beating": d, "label": lab})
        return {"no_strict_majority": beaten, "checked": True}
    p = Property("condorcet-winner-exists", "preference",
                 "some candidate beats every other by a strict majority (linear ballots, "
                 "2..4 candidates)", holds, certify, min_agents=1)
    return {p.name: p}


DOMAIN = Domain(SPEC, {n: _question(n) for n in QUESTIONS}, default_questions,
                shrinker=_shrinker(), space=_space(),
                peers=Absent("no peer library of audit-library answers preference queries"),
                properties=_properties)

__all__ = ["DOMAIN", "PROFILE", "SINGLE", "decide", "default_questions", "resolve", "validate"]
