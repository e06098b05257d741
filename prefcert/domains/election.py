"""The ``election`` domain wired to its engines.

Questions (a name, or an object ``{"type": ..., "rule": ...}``; the rule defaults to the
instance's):

- ``winner``: the τ-resolved winner and the winner set, certified by the score table or
  the IRV rounds. Engine: ``oracle``.
- ``manipulation``: can the manipulator get a winner it strictly prefers? Solution: the
  sincere winner w₀, the best reachable winner w*, an optimal report, the gain in true
  rank, and — under the ``enumeration`` certificate only (``engines=["oracle"]``) —
  |B_r|, |M|, |B*| and the outcome of every report. Engines: ``reachability`` (the BTT
  greedy, exact for plurality, Borda, Copeland and approval; the elimination-state search
  for IRV: the default proof), ``oracle`` (enumeration, |B_r| ≤ 5040: the cross-check
  where enumerable; as a cross-check it gives w₀ and w* only, from the candidates some
  report elects — plurality and approval a point up, Borda by its points — no counts), ``cpsat`` (one model per candidate: the cross-check from m = 8),
  ``brute_force`` (tests).
- ``coalitional_manipulation``: can manipulators of the given weights make the candidate
  win? Engines: ``oracle`` (exact where a dominant report, the greedy or the IRV search
  applies; reverse Borda and a counting bound; small enumeration), ``cpsat``,
  ``brute_force``.

Engines must agree on the verdict (and on w₀ and w*); the label carries the certificate of
the first engine (in the question's engine order) that gave one, and the checker verifies
it; the engines after it are cross-checks, compared on (verdict, w₀, w*) and recorded in
``engines``. A manipulation label's default proof is the cheap exact one: the greedy's stuck
sets (O(m²) score evaluations to check) or the IRV search (at most m · 2^m states), never
the replay of all m! reports. A "no" that only solvers support (IRV past the search limit,
Copeland or IRV coalitions) carries an ``engine_agreement`` record, never a proof.
"""
from __future__ import annotations

import copy
import random
from typing import Any

from ..encodings import in_cross_check
from ..formal import checker
from ..formal.checker import election as chk
from ..formal.checker.election import SPEC
from ..formal.election import Election, rule_of, validate
from ..formal.errors import CertificateError, InstanceError, Undecided
from ..formal.rules import RULES, rule_named
from .base import (
    UNKNOWN,
    Decision,
    Domain,
    ListRef,
    Outcome,
    PeerAdapter,
    Property,
    Question,
    Shrinker,
    Space,
    agreement,
    claims_none,
    disagreement,
    gave_up,
    run_engine,
)

MAX_CPSAT_M = 24                 # CP-SAT models beyond this are not run by default
MAX_BRUTE_FORCE_REPORTS = 720    # brute force: one voter's reports (6!)
MAX_BRUTE_FORCE_JOINT = 20_000   # brute force: joint reports of a coalition
SEARCH_STATES = 2_000_000        # the IRV search engine's own cap (the checker's is lower)
#: The single-voter CP-SAT cross-check of an elimination rule (IRV) stops before its models'
#: total size (encodings.election.irv_model_size: classes × m² × rounds per model) would
#: pass this: about 2 s of CPU on 2 cores. m = 20 with 50 voters is 400,000 per model
#: (3–4 s of CPU each, up to 19 models: 20–50 s), so such a label's cross-check answers
#: unknown at once; m ≤ 12 with 50 voters gets two models or more.
CPSAT_IRV_SIZE = 200_000
#: CP-SAT's deterministic work units per cross-check solve (one worker, fixed seed), so a
#: hard solve stops at the same point on every machine; the hardest IRV m = 20 solves
#: measured used under 0.6.
CPSAT_DETERMINISTIC_TIME = 5.0


# --------------------------------------------------------------------------- winner

def _winner(model: Election, params: dict, *, time_limit: float, seed: int) -> Outcome:
    from ..oracles.election import winner
    rule = rule_of(model, params)
    w = winner(model, rule)
    sol = {"winner": w.pop("winner"), "winners": w.pop("winners")}
    kind = "elimination_rounds" if rule_named(rule).rounds else "score_table"
    return Outcome("determined", sol, {"type": kind, **w})


# --------------------------------------------------------------------------- manipulation

_ORACLES: list = []


def _oe():
    """:mod:`prefcert.oracles.election`, imported on first use (``prefcert check`` loads
    no engine) and then held: an engine call pays no import statement."""
    if not _ORACLES:
        from ..oracles import election
        _ORACLES.append(election)
    return _ORACLES[0]


def _report_space(model: Election, rule: str) -> int:
    """|B_r| (the checker's :func:`~prefcert.formal.checker.election.report_space`), once
    per election and rule: the engine choice (:func:`_auto_manipulation`) and the
    enumeration engine both ask it of every label."""
    key = ("report-space", rule)
    n = model._cache.get(key)
    if n is None:
        n = model._cache[key] = chk.report_space(model, rule)
    return n


def _answer(m, model: Election) -> tuple[str, dict]:
    """An engine's manipulation answer as (verdict, solution): manipulable when w* is
    strictly above w₀ in the manipulator's true ranking."""
    keys = _oe().preference(model)[0]
    u0, ustar = keys[m.sincere][0], keys[m.best][0]
    sol = {"sincere_winner": m.sincere, "best_winner": m.best, "ballot": m.ballot,
           "gain": u0 - ustar}
    if m.counts:
        sol.update(m.counts)
    return "manipulable" if ustar < u0 else "not_manipulable", sol


def _enumeration(model: Election, params: dict, *, time_limit: float, seed: int) -> Outcome:
    rule = rule_of(model, params)
    if _report_space(model, rule) > chk.ENUMERATION_LIMIT:
        return Outcome(UNKNOWN, stats={"reason": "ballot space too large to enumerate"})
    if in_cross_check():     # an engine before has proven the label: w₀ and w* suffice
        return Outcome(*_answer(_oe().enumerate_best(model, rule), model), None,
                       {"cross_check": "the best reachable winner only"})
    m = _oe().enumerate_reports(model, rule)
    return Outcome(*_answer(m, model), {"type": "enumeration"})


def _reachability(model: Election, params: dict, *, time_limit: float, seed: int) -> Outcome:
    """Candidate by candidate: the BTT greedy (the rules it is exact for: plurality,
    Borda, Copeland, approval) or the IRV elimination-state search."""
    rule = rule_of(model, params)
    r = rule_named(rule)
    if "greedy" in r.proofs:                       # r.admits("greedy")
        m = _oe().greedy_reachable(model, rule)
        return Outcome(*_answer(m, model), {"type": "greedy", "refuted": m.refuted})
    if not r.admits("elimination_search"):
        return Outcome(UNKNOWN, stats={"reason": f"no reachability search for {rule}"})
    try:
        m = _oe().irv_reachable(model, time_limit=time_limit)
    except TimeoutError:
        return Outcome(UNKNOWN, stats={"reason": "time limit"})
    cert = {"type": "elimination_search", "states": m.states} \
        if m.states <= chk.SEARCH_LIMIT else None
    return Outcome(*_answer(m, model), cert, {"states": m.states})


def _cpsat_manipulation(model: Election, params: dict, *, time_limit: float,
                        seed: int) -> Outcome:
    """One CP-SAT model per candidate the manipulator prefers to w₀, best first, until one
    is reachable. Reproducible: one worker, the seed, and at most
    ``CPSAT_DETERMINISTIC_TIME`` deterministic units per solve; an elimination rule (IRV)
    also stops — answering ``unknown``, ``{"reason": "model size bound"}`` — before a solve
    that would take its models' total size (:func:`irv_model_size`) past
    ``CPSAT_IRV_SIZE``, a bound read from the instance alone (no clock)."""
    from ..encodings.election import can_win_cpsat, irv_model_size
    from ..oracles.election import Manipulation, preference_key, sincere_winner
    rule = rule_of(model, params)
    w0 = sincere_winner(model, rule)
    key = preference_key(model)
    size = irv_model_size(model, [1]) if rule_named(rule).rounds else 0
    solves = 0
    for c in sorted(model.candidates, key=key):
        if c == w0:
            m = Manipulation(w0, w0, None)
            break
        if size and (solves + 1) * size > CPSAT_IRV_SIZE:
            return Outcome(UNKNOWN, stats={"solves": solves, "reason": "model size bound"})
        r = can_win_cpsat(model, rule, c, [1], time_limit=time_limit, seed=seed,
                          deterministic_time=CPSAT_DETERMINISTIC_TIME)
        solves += 1
        if r.status == "unknown":
            return Outcome(UNKNOWN, stats={"solves": solves})
        if r.status == "feasible":
            m = Manipulation(w0, c, r.ballots[0])
            break
    return Outcome(*_answer(m, model), None, {"solves": solves})


def _brute_manipulation(model: Election, params: dict, *, time_limit: float,
                        seed: int) -> Outcome:
    from ..oracles.election import brute_force_manipulation
    rule = rule_of(model, params)
    if _report_space(model, rule) > MAX_BRUTE_FORCE_REPORTS:
        return Outcome(UNKNOWN, stats={"reason": "too many reports"})
    m = brute_force_manipulation(model, rule)
    return Outcome(*_answer(m, model), None)


def _auto_manipulation(model: Election) -> list[str]:
    """The reachability engine first (its greedy stuck sets or IRV search give the label's
    proof, cheap to check), then the cross-check: enumeration when the instance's rule
    (plurality's space when it names none) has at most ENUMERATION_LIMIT reports (m ≤ 7
    rankings), else CP-SAT up to MAX_CPSAT_M candidates. A rule without a reachability
    certificate gets its proof from enumeration (the reachability engine answers
    unknown)."""
    names = ["reachability"]
    if _report_space(model, model.rule or "plurality") <= chk.ENUMERATION_LIMIT:
        names.append("oracle")
    elif model.m <= MAX_CPSAT_M:
        names.append("cpsat")
    return names


def _decide(answers, check) -> Decision:
    """Agreement on (verdict, w₀, w*); the first certificate (engines in order: the
    reachability engine first by default) is checked and gives the label; otherwise two
    agreeing exact engines give an ``engine_agreement`` record."""
    decided, keys = [], set()              # (one pass: a label's hot path)
    for a in answers:
        o = a.outcome
        if o.verdict != UNKNOWN:
            decided.append(a)
            s = o.solution or {}
            keys.add((o.verdict, s.get("sincere_winner"), s.get("best_winner")))
    if not decided:
        raise Undecided(gave_up(answers))
    if len(keys) > 1:
        raise disagreement("engines disagree on the verdict or the winners", answers, check)
    return _certified(decided, answers, check)


def _certified(decided, answers, check) -> Decision:
    """The label from the first engine with a certificate, which the checker must accept
    (a rejection is a disagreement report). The certificates of the engines after it are
    not verified: those engines are cross-checks (their verdict, w₀ and w* agree, and
    ``engines`` records them), and their proofs are not in the label."""
    for chosen in decided:
        o = chosen.outcome
        if o.certificate:
            try:
                check(o.verdict, o.solution, o.certificate)
            except CertificateError as e:
                raise disagreement(f"certificate of {chosen.engine} rejected: {e}", answers,
                                   check)
            return Decision(o.verdict, o.solution, o.certificate)
    names = [a.engine for a in decided]
    if len(names) >= 2:
        return Decision(decided[0].outcome.verdict, decided[0].outcome.solution,
                        agreement(decided[0].outcome.verdict, names))
    raise Undecided(f"no checkable certificate and only {len(names)} engine answered")


# --------------------------------------------------------------------------- coalitions

def _coalition_oracle(model: Election, params: dict, *, time_limit: float,
                      seed: int) -> Outcome:
    from ..oracles import election as oe
    rule, c, weights = rule_of(model, params), params["candidate"], params["weights"]
    r = rule_named(rule)
    if r.admits("dominant"):
        ok, reps, by = oe.dominant_coalition(model, rule, c, weights)
        if ok:
            return Outcome("exists", {"ballots": reps}, {"type": "ballots"})
        return Outcome("none", None, {"type": "dominant", "by": by})
    if len(weights) == 1 and r.admits("greedy"):
        t = oe.Tally(model.sincere(), rule)
        ballot, stuck = oe.greedy_can_win(t, model.candidates.index(c), weights[0])
        if ballot is not None:
            return Outcome("exists", {"ballots": [[model.candidates[i] for i in ballot]]},
                           {"type": "ballots"})
        return Outcome("none", None, {"type": "greedy", "refuted": {
            c: [model.candidates[i] for i in stuck]}})
    if len(weights) == 1 and r.admits("elimination_search"):
        try:
            reach, states, aux = oe.irv_search(model.sincere(), weights[0],
                                               time_limit=time_limit)
        except TimeoutError:
            return Outcome(UNKNOWN)
        if c in reach:
            return Outcome("exists", {"ballots": [oe.irv_ballot(model.sincere(), c, aux["memo"],
                                                                 aux["tally"], weights[0])]},
                           {"type": "ballots"})
        cert = {"type": "elimination_search", "states": states} \
            if states <= chk.SEARCH_LIMIT else None
        return Outcome("none", None, cert, {"states": states})
    if r.admits("pairwise_bound"):                 # Copeland
        by = oe.copeland_bound(model, c, weights)
        if by is not None:
            return Outcome("none", None, {"type": "pairwise_bound", "by": by})
    if r.admits("score_bound"):                    # Borda: reverse Borda, then the bound
        reps = oe.reverse_borda(model, c, weights)
        if reps is not None:
            return Outcome("exists", {"ballots": reps}, {"type": "ballots"})
        if oe.borda_bound(model, c, weights):
            return Outcome("none", None, {"type": "score_bound"})
    if chk.coalition_space(model, rule, weights) <= chk.COALITION_LIMIT:
        try:
            reps = oe.coalition_brute_force(model, rule, c, weights, time_limit=time_limit)
        except TimeoutError:
            return Outcome(UNKNOWN)
        if reps is not None:
            return Outcome("exists", {"ballots": reps}, {"type": "ballots"})
        return Outcome("none", None, {"type": "coalition_enumeration"})
    return Outcome(UNKNOWN, stats={"reason": "no exact combinatorial method applies"})


def _coalition_cpsat(model: Election, params: dict, *, time_limit: float,
                     seed: int) -> Outcome:
    from ..encodings.election import can_win_cpsat
    r = can_win_cpsat(model.sincere(), rule_of(model, params), params["candidate"],
                      params["weights"],
                      time_limit=time_limit, seed=seed)
    if r.status == "feasible":
        return Outcome("exists", {"ballots": r.ballots}, {"type": "ballots"}, r.stats)
    return Outcome("none" if r.status == "infeasible" else UNKNOWN, None, None, r.stats)


def _coalition_brute(model: Election, params: dict, *, time_limit: float,
                     seed: int) -> Outcome:
    from ..oracles.election import coalition_brute_force
    rule, c, weights = rule_of(model, params), params["candidate"], params["weights"]
    if chk.coalition_space(model, rule, weights) > MAX_BRUTE_FORCE_JOINT:
        return Outcome(UNKNOWN, stats={"reason": "too many joint reports"})
    try:
        reps = coalition_brute_force(model, rule, c, weights, time_limit=time_limit)
    except TimeoutError:
        return Outcome(UNKNOWN)
    if reps is None:
        return Outcome("none")
    return Outcome("exists", {"ballots": reps}, {"type": "ballots"})


def _auto_coalition(model: Election) -> list[str]:
    names = ["oracle"]
    if model.m <= MAX_CPSAT_M:
        names.append("cpsat")
    return names


def _decide_coalition(answers, check) -> Decision:
    decided = [a for a in answers if a.outcome.verdict != UNKNOWN]
    if not decided:
        raise Undecided(gave_up(answers))
    if len({a.outcome.verdict for a in decided}) > 1:
        raise disagreement("engines disagree on the verdict", answers, check)
    return _certified(decided, answers, check)


# --------------------------------------------------------------------------- audits

def certified(model: Election, name: str, params: dict, *, time_limit: float = 10.0,
              seed: int = 0, engines: list[str] | None = None) -> Decision:
    """The question's answer as a label would carry it: the default engines (or
    ``engines``, in the question's engine order), combined, with the label's certificate
    accepted by the checker (an audit rests on it)."""
    q = DOMAIN.questions[name]
    names = list(q.auto(model)) if engines is None else [n for n in q.engines if n in engines]
    answers = [run_engine(n, q.engines[n], model, params, time_limit=time_limit, seed=seed)
               for n in names]

    def check(verdict, solution, cert):
        checker.check(SPEC, model, name, params, verdict, solution, cert)
    return q.decide(answers, check)


def read_report(model: Election, rule: str, answer: Any) -> list[str]:
    """A model's report: a JSON list of candidates, ``{"ballot": [...]}``, or text read by
    the benchmark's ballot parser. Raises ValueError (unreadable) or CertificateError
    (not a valid report of the rule's ballot space)."""
    from ..bench.voting_manipulation.ballots import parse_ballot
    if isinstance(answer, dict) and "ballot" in answer:
        answer = answer["ballot"]
    if isinstance(answer, str):
        parsed = parse_ballot(answer, model.candidates, rule)
        if not parsed.valid:
            raise CertificateError(parsed.reason)
        answer = list(parsed.ballot)
    if not isinstance(answer, list):
        raise ValueError("a report is a list of candidates or a ballot written as text")
    chk.report_ballot(model, rule, answer)
    return answer


def _audit_manipulation(model: Election, params: dict, answer: Any) -> dict:
    validate(model, "manipulation", params)
    rule = rule_of(model, params)
    truth = certified(model, "manipulation", params)
    sol = truth.solution
    w0, best = sol["sincere_winner"], sol["best_winner"]
    base = {"sincere_winner": w0, "best_winner": best, "truth": truth.verdict,
            "certificate": truth.certificate["type"], "proof": _proof(truth)}
    try:
        report = read_report(model, rule, answer)
    except ValueError as e:
        return {"verdict": "unparseable", "violations": [], "valid": False,
                "profitable": False, "optimal": False, **base,
                "feedback": f"Unreadable ballot: {e}."}
    except CertificateError as e:
        return {"verdict": "incorrect", "valid": False, "profitable": False,
                "optimal": False, **base,
                "violations": [{"type": "invalid_ballot", "reason": str(e)}],
                "feedback": f"Invalid ballot: {e}."}
    got = chk.Count(model, rule).winner([chk.report_ballot(model, rule, report)])
    pos = model.true_pos
    profitable, optimal = pos(got) < pos(w0), pos(got) == pos(best)
    out = {"valid": True, "ballot": report, "outcome": got, "profitable": profitable,
           "optimal": optimal, "gain": pos(w0) - pos(got), "gap": pos(got) - pos(best), **base}
    how = f"the ballot elects {got!r} (true rank {pos(got)}); sincere voting elects " \
          f"{w0!r} (rank {pos(w0)}); the best achievable is {best!r} (rank {pos(best)})"
    if optimal:
        return {"verdict": "correct", "violations": [], **out,
                "feedback": f"Correct: {how}."}
    return {"verdict": "incorrect", **out,
            "violations": [{"type": "not_optimal", "outcome": got, "best_winner": best,
                            "ballot": sol.get("ballot")}],
            "feedback": f"Incorrect: {how}" + (
                f", e.g. by {sol['ballot']}." if sol.get("ballot") else ".")}


def _audit_winner(model: Election, params: dict, answer: Any) -> dict:
    rule = rule_of(model, params)
    claimed = answer.get("winner") if isinstance(answer, dict) else answer
    if not isinstance(claimed, str):
        return {"verdict": "unparseable", "violations": [],
                "feedback": "A winner is a candidate name or {\"winner\": name}."}
    proof = _proof(certified(model, "winner", params))
    try:
        table = chk.check_claimed_winner(model, rule, claimed,
                                         answer if isinstance(answer, dict) else None)
    except CertificateError as e:
        truth = chk.winner_table(model, rule)
        return {"verdict": "incorrect", "truth": truth, "proof": proof,
                "violations": [{"type": "wrong_winner", "reason": str(e)}],
                "feedback": f"Incorrect: {e}."}
    return {"verdict": "correct", "violations": [], "truth": table, "proof": proof,
            "feedback": f"Correct: {claimed!r} wins under {rule}."}


def _audit_coalition(model: Election, params: dict, answer: Any) -> dict:
    rule, c = rule_of(model, params), params["candidate"]
    truth = certified(model, "coalitional_manipulation", params)
    proof = _proof(truth)
    if claims_none(answer):
        ok = truth.verdict == "none"
        return {"verdict": "correct" if ok else "incorrect", "truth": truth.verdict,
                "proof": proof,
                "violations": [] if ok else [{"type": "ballots", **truth.solution}],
                "feedback": "Correct: they cannot." if ok else
                f"Incorrect: they can, e.g. {truth.solution['ballots']}."}
    reps = answer.get("ballots") if isinstance(answer, dict) else answer
    try:
        chk.check_ballots(model, "coalitional_manipulation", params, "exists",
                          {"ballots": reps}, {"type": "ballots"})
    except CertificateError as e:
        return {"verdict": "incorrect", "truth": truth.verdict, "proof": proof,
                "violations": [{"type": "ballots_fail", "reason": str(e)}],
                "feedback": f"Incorrect: {e}."}
    return {"verdict": "correct", "violations": [], "truth": truth.verdict, "proof": proof,
            "feedback": f"Correct: the reports elect {c!r} under {rule}."}


def _proof(truth: Decision) -> dict:
    """The certified truth an audit verdict rests on (the pipeline re-verifies it)."""
    return {"verdict": truth.verdict, "solution": truth.solution,
            "certificate": truth.certificate}


# --------------------------------------------------------------------------- the domain

def default_questions(model: Election) -> list:
    """The winner under the instance's rule (every rule when it names none), and the
    manipulation question when there is a manipulator."""
    rules = [model.rule] if model.rule else list(RULES)
    qs: list = [{"type": "winner", "rule": r} for r in rules]
    if model.manipulator is not None:
        qs += [{"type": "manipulation", "rule": r} for r in rules
               if RULES[r].approval or model.manipulator.ranking]
    if model.rule:
        qs = ["winner"] + (["manipulation"] if len(qs) > 1 else [])
    return qs


# ----------------------------------------------------------------------------- hooks

def _ballot_lists(inst: dict) -> list[ListRef]:
    """Every ranking: each ballot's (held by its ``count`` voters) and the manipulator's."""
    out: list[ListRef] = []
    for i, b in enumerate(inst.get("ballots", [])):
        if isinstance(b, list):
            out.append((("ballots", i), b, 1))
        elif isinstance(b, dict) and isinstance(b.get("ranking"), list):
            out.append((("ballots", i, "ranking"), b["ranking"], int(b.get("count", 1))))
    m = inst.get("manipulator")
    if isinstance(m, dict) and isinstance(m.get("ranking"), list):
        out.append((("manipulator", "ranking"), m["ranking"], 1))
    return out


def _shrinker() -> Shrinker:
    """Ballots (one line of ``ballots`` at a time, its count with it) and candidates (a
    removed candidate leaves τ, every ranking and every approval set)."""
    from ..pipeline.minimize import without_items

    def agents(inst: dict) -> list[tuple[str, str]]:
        return [("ballot", str(i)) for i in range(len(inst.get("ballots", [])))] + \
            [("candidate", c) for c in inst.get("candidates", [])]

    def keep(inst: dict, kept: list[tuple[str, str]]) -> dict:
        keep_set = set(kept)
        ballots = [b for i, b in enumerate(inst.get("ballots", []))
                   if ("ballot", str(i)) in keep_set]
        gone = {c for c in inst.get("candidates", []) if ("candidate", c) not in keep_set}
        out = copy.deepcopy(dict(inst, ballots=ballots))
        if not gone:
            return out
        out["candidates"] = [c for c in out["candidates"] if c not in gone]
        if "tie_break" in out:
            out["tie_break"] = [c for c in out["tie_break"] if c not in gone]
        voters = [*out["ballots"], *([out["manipulator"]] if out.get("manipulator") else [])]
        for k, b in enumerate(voters):
            if isinstance(b, list):
                out["ballots"][k] = without_items(b, gone)
                continue
            if isinstance(b.get("ranking"), list):
                b["ranking"] = without_items(b["ranking"], gone)
            if isinstance(b.get("approve"), list):
                b["approve"] = [c for c in b["approve"] if c not in gone]
        return out

    def count(inst: dict) -> int:          # the manipulator is a voter too
        return sum(int(b.get("count", 1)) if isinstance(b, dict) else 1
                   for b in inst["ballots"]) + bool(inst.get("manipulator"))
    return Shrinker(_ballot_lists, agents, keep, count)


def _space() -> Space:
    def enumerate_(dims, complete, options):
        from ..generators.election import election_space
        return election_space(*dims, options.get("rule", "plurality"))

    def sample(dims, complete, rng, options):
        from ..generators.election import random_election
        return random_election(*dims, options.get("rule", "plurality"), rng)

    def size(dims, complete):
        from ..generators.election import election_space_size
        return election_space_size(*dims)
    def contains(e: Election, complete: bool) -> bool:
        """A manipulator, and every ranking a full strict ranking (linear ballots)."""
        voters = (*e.ballots, e.manipulator) if e.manipulator is not None else ()
        return bool(voters) and all(len(b.ranking) == e.m and b.strict_full for b in voters)
    return Space("election", lambda n, max_items: [(n, m) for m in range(2, max_items + 1)],
                 size, enumerate_, sample, contains)


def _peer_sample(rng: random.Random, seed: int, k: int, ties: bool) -> dict:
    """A small random election (every other one with full strict rankings; see
    :func:`prefcert.generators.election.random_audit_election`)."""
    from ..generators.election import random_audit_election
    return random_audit_election(random.Random(seed), textbook=k % 2 == 0, id=f"random-el-{k}")


def _properties() -> dict[str, Property]:
    from ..pipeline.counterexample import certified_label, parse

    def manipulation(inst: dict):
        from ..oracles.election import enumerate_reports, greedy_reachable, irv_reachable
        e = parse(inst)
        rule = rule_of(e, {})
        if rule_named(rule).admits("elimination_search"):
            return e, irv_reachable(e)
        return e, (enumerate_reports if e.m <= 6 else greedy_reachable)(e, rule)

    def holds(inst: dict) -> bool:
        e, m = manipulation(inst)
        return not e.true_pos(m.best) < e.true_pos(m.sincere)

    def certify(inst: dict) -> dict:
        """The profitable ballot, replayed by the trusted checker's own count (the
        sincere election, then the ballot in place of the manipulator's), beside the
        ``manipulation`` label whose certificate the checker accepted (it replays the
        ballot too, and proves the achieved winner optimal)."""
        lab = certified_label(inst, "manipulation")
        if lab["verdict"] != "manipulable" or not lab["checked"]:
            raise AssertionError("the engines find no checked profitable report after all")
        e = parse(inst)
        rule = rule_of(e, {})
        ballot = lab["solution"]["ballot"]
        count = chk.Count(e, rule)
        sincere = count.winner([chk.sincere_ballot(e, rule)])
        achieved = count.winner([chk.report_ballot(e, rule, ballot)])
        if not e.true_pos(achieved) < e.true_pos(sincere):
            raise AssertionError("the replayed ballot is not profitable")
        return {"rule": rule, "truth": inst["manipulator"]["ranking"],
                "profitable_ballot": ballot, "sincere_winner": sincere,
                "manipulated_winner": achieved, "gain": e.true_pos(sincere) - e.true_pos(achieved),
                "label": lab, "checked": True}
    return {f"{r}-not-manipulable": Property(
        f"{r}-not-manipulable", "election",
        f"{r} (ties to τ = c1 ≻ c2 ≻ …) is not manipulable by one voter: no report elects a "
        f"candidate the voter prefers to the sincere winner (linear ballots, 2..4 candidates)",
        holds, certify, min_agents=1, options={"rule": r})
        for r in RULES}


DOMAIN = Domain(
    spec=SPEC,
    questions={
        "winner": Question("winner", {"oracle": _winner}, lambda m: ["oracle"],
                           lambda answers, check: _certified(
                               [a for a in answers if a.outcome.verdict != UNKNOWN],
                               answers, check), _audit_winner),
        "manipulation": Question(
            "manipulation",
            {"oracle": _enumeration, "reachability": _reachability,
             "cpsat": _cpsat_manipulation, "brute_force": _brute_manipulation},
            _auto_manipulation, _decide, _audit_manipulation, reads_text=True),
        "coalitional_manipulation": Question(
            "coalitional_manipulation",
            {"oracle": _coalition_oracle, "cpsat": _coalition_cpsat,
             "brute_force": _coalition_brute},
            _auto_coalition, _decide_coalition, _audit_coalition),
    },
    default_questions=default_questions,
    shrinker=_shrinker(),
    space=_space(),
    peers=PeerAdapter("winner", _peer_sample),
    properties=_properties,
)

__all__ = ["DOMAIN", "certified", "default_questions", "read_report", "InstanceError"]
