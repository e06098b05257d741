"""Auditing other libraries: run a peer package on an instance, convert its output, and
certify or refute it with prefcert's checker.

Peers are optional extras (``pip install prefcert[peers]``), imported only here. Each
adapter is a *run*: a peer entry point answering one question of one domain, e.g.
``matching:hr-resident`` (``matching.games.HospitalResident``, resident-optimal). A run
is judged as

- ``correct``: the peer's matching passes the checker (and, where the peer claims an
  optimum of strict lists, equals the certified optimum), or the peer says "none" and
  prefcert's refutation (a deletion log) passes the checker;
- ``incorrect``: a checker-accepted refutation — blocking pairs or an invalid matching
  found by the checker's definitions, a certified stable matching when the peer says none
  exists, or a certified optimum in which a resident does strictly better than the peer's
  "optimal" matching;
- ``crash`` (the exception, with prefcert's certified answer beside it), ``timeout``, or
  ``unsupported`` (an instance outside the peer's input class, e.g. ties for a strict-list
  solver).

The peer receives the instance as given (one-sided entries and capacity-0 hospitals
included), in its own input format; names are mapped back. A peer that needs
mutually consistent lists is given them by the ``clean`` runs.

**Winners** (``pref-voting``, ``preflibtools``; :func:`audit_winner`): the peer's winner
set (or resolute winner) of the sincere election is compared with prefcert's certified
``winner`` label — its score table or IRV rounds, accepted by the checker — and a wrong
one is refuted beside that table (the candidates wrongly in or out of the set, with their
recomputed scores). Where a peer reads an input differently by design (a tied top counted
for every member instead of for nobody; pref-voting's tied ballots under IRV) its answer
is ``unsupported`` ("answered, not judged"), never ``incorrect``; a crash is a crash on
any input.
"""
from __future__ import annotations

import atexit
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..domains.base import Absent, PeerAdapter
from ..formal.errors import CertificateError, InstanceError
from ..formal.rules import RULES

#: library -> its runs; each run: (domain, question, notion, description)
LIBRARIES = {
    "matching": {
        "sm-suitor": ("stable_matching", "weakly_stable", "weak",
                      "StableMarriage.solve(optimal='suitor'), strict lists"),
        "hr-resident": ("hospitals_residents", "weakly_stable", "weak",
                        "HospitalResident.solve(optimal='resident'), strict lists"),
        "hr-hospital": ("hospitals_residents", "weakly_stable", "weak",
                        "HospitalResident.solve(optimal='hospital'), strict lists"),
    },
    "algmatch": {
        "smt-super-men": ("stable_matching", "super_stable", "super",
                          "StableMarriageProblemWithTies, super, men-oriented"),
        "smt-strong-men": ("stable_matching", "strongly_stable", "strong",
                           "StableMarriageProblemWithTies, strong, men-optimal"),
        "hrt-super-residents": ("hospitals_residents", "super_stable", "super",
                                "HospitalResidentsProblemWithTies, super, resident-optimal"),
        "hrt-super-hospitals": ("hospitals_residents", "super_stable", "super",
                                "HospitalResidentsProblemWithTies, super, hospital-optimal"),
        "hrt-strong-residents": ("hospitals_residents", "strongly_stable", "strong",
                                 "HospitalResidentsProblemWithTies, strong, resident-optimal"),
        "hrt-strong-hospitals": ("hospitals_residents", "strongly_stable", "strong",
                                 "HospitalResidentsProblemWithTies, strong, hospital-optimal"),
    },
}
LIBRARIES["pref-voting"] = {
    "plurality": ("election", "winner", "plurality",
                  "scoring_methods.plurality: the winner set (strict ballots, truncated allowed)"),
    "borda": ("election", "winner", "borda",
              "scoring_methods.borda: the winner set (full strict ballots)"),
    "copeland": ("election", "winner", "copeland",
                 "c1_methods.copeland: the winner set (strict ballots; truncated ones with "
                 "the unranked tied at the bottom, use_extended_strict_preference)"),
    "approval": ("election", "winner", "approval",
                 "grade_methods.approval on a 0/1 GradeProfile: the winner set"),
    "irv-put": ("election", "winner", "irv",
                "iterative_methods.instant_runoff_put: the winner set over every tie "
                "resolution (strict ballots, truncated allowed)"),
    "irv-tb": ("election", "winner", "irv",
               "iterative_methods.instant_runoff_tb, tie_breaker = τ reversed: the resolute "
               "winner (strict ballots, truncated allowed)"),
}
LIBRARIES["preflibtools"] = {
    "plurality": ("election", "winner", "plurality",
                  "aggregation.singlewinner.plurality_winner: the winner set"),
    "borda": ("election", "winner", "borda",
              "aggregation.singlewinner.borda_winner: the winner set (soc, toc)"),
    "copeland": ("election", "winner", "copeland",
                 "aggregation.singlewinner.copeland_winner: the winner set (soc)"),
    "k-approval": ("election", "winner", "approval",
                   "aggregation.singlewinner.k_approval_winner, k = the instance's approval_top "
                   "convention: the winner set (soc, soi)"),
}


class _Unsupported(Exception):
    pass


#: seconds a worker may take to start and to warm a run up (the peer's imports and
#: first-call compilation: pref-voting's first Borda call takes 8 s idle, 30 s under
#: load), apart from every call's own time limit
STARTUP_SECONDS = 600.0


class _Worker:
    """A forked process that runs peer calls, so that a call past its time limit ends by
    killing the process (a peer inside C code cannot be interrupted, and an exception
    raised into it by a signal handler leaves it half imported). Each run is first
    called once on a small instance of its domain (its warm-up: imports, compilation)
    within :data:`STARTUP_SECONDS`, outside the time limit of the calls judged. The
    worker's stdout and stderr are /dev/null (a peer that prints does not corrupt the
    records). A killed worker is replaced at the next call."""

    def __init__(self) -> None:
        import multiprocessing as mp
        ctx = mp.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self.warm: set[str] = set()
        self.runners = dict(RUNNERS)          # the runners it forked with

    def call(self, run: str, arg: Any, timeout: float) -> tuple[str, Any, float]:
        """(kind, value, seconds of the call) of ``RUNNERS[run](arg)``: kind ``ok`` (value:
        the answer), ``unsupported`` (the reason), ``not_judged`` ((answer, reason)),
        ``crash`` (the exception as text) or ``timeout`` (None, or the reason when the
        start-up did not finish)."""
        t0 = time.perf_counter()
        if run not in self.warm:
            self.conn.send(("warm", run))
            if self._wait(STARTUP_SECONDS) is None:
                return ("timeout", f"no answer within the {STARTUP_SECONDS:.0f} s start-up "
                        f"(imports, warm-up)", time.perf_counter() - t0)
            self.warm.add(run)
        t0 = time.perf_counter()
        self.conn.send(("call", run, arg))
        got = self._wait(timeout)
        kind, value = ("timeout", None) if got is None else got
        return kind, value, time.perf_counter() - t0

    def _wait(self, seconds: float) -> tuple[str, Any] | None:
        """The worker's next message, or None (the worker killed) after ``seconds``; a
        worker that died is a crash."""
        try:
            if self.conn.poll(seconds):
                return self.conn.recv()
        except (EOFError, OSError):
            self.proc.join()
            self.close()
            return "crash", f"the peer's process died (exit status {self.proc.exitcode})"
        self.close()
        return None

    def alive(self) -> bool:
        return self.proc.is_alive() and not self.conn.closed

    def close(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()


def _serve(conn) -> None:
    """The worker's loop: warm a run up, or call it, and send back what came of it."""
    import os
    import sys
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    sys.stdout = sys.stderr = open(os.devnull, "w")
    warnings.simplefilter("ignore")
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg[0] == "warm":
            try:
                RUNNERS[msg[1]](_warm_up_input(msg[1]))
            except Exception:           # the warm-up's answer does not matter
                pass
            conn.send(("warm", None))
            continue
        try:
            out: tuple[str, Any] = ("ok", RUNNERS[msg[1]](msg[2]))
        except _Unsupported as e:
            out = ("unsupported", str(e))
        except _NotJudged as nj:
            out = ("not_judged", (nj.answer, nj.reason))
        except Exception as e:          # the peer crashed
            out = ("crash", f"{e.__class__.__name__}: {e}")
        conn.send(out)


#: domain -> the small textbook instance (complete strict lists) each run of the domain
#: is warmed up on
WARM_UP: dict[str, dict] = {
    "stable_matching": {"domain": "stable_matching", "preferences": {
        "A": {"m1": ["w1", "w2"], "m2": ["w2", "w1"]},
        "B": {"w1": ["m2", "m1"], "w2": ["m1", "m2"]}}},
    "hospitals_residents": {"domain": "hospitals_residents", "preferences": {
        "residents": {"r1": ["h1", "h2"], "r2": ["h1", "h2"], "r3": ["h2", "h1"]},
        "hospitals": {"h1": ["r2", "r1", "r3"], "h2": ["r1", "r3", "r2"]}},
        "capacities": {"h1": 1, "h2": 2}},
    "election": {"domain": "election", "candidates": ["a", "b", "c"],
                 "tie_break": ["a", "b", "c"], "approval_top": 2, "ballots": [
                     {"ranking": ["a", "b", "c"], "count": 2},
                     {"ranking": ["b", "c", "a"], "count": 2},
                     {"ranking": ["c", "a", "b"], "count": 1}]},
}


def _warm_up_input(run: str) -> Any:
    """The run's warm-up instance (:data:`WARM_UP`), as its runner takes it."""
    from .registry import spec
    lib, name = run.split(":", 1)
    domain = LIBRARIES[lib][name][0]
    inst = WARM_UP[domain]
    return spec(domain).parse(inst) if _adapter(domain).judge == "winner" else inst


_WORKERS: dict[str, _Worker] = {}


def _call(run: str, arg: Any, timeout: float) -> tuple[str, Any, float]:
    """Run a peer call in its library's worker process (see :class:`_Worker`)."""
    lib = run.split(":", 1)[0]
    w = _WORKERS.get(lib)
    if w is not None and w.runners.get(run) is not RUNNERS.get(run):
        w.close()                           # a runner replaced since (tests do)
    if w is None or not w.alive():
        w = _WORKERS[lib] = _Worker()
    return w.call(run, arg, timeout)


def shutdown() -> None:
    """End the peer worker processes (also done at exit)."""
    while _WORKERS:
        _WORKERS.popitem()[1].close()


atexit.register(shutdown)


def _strict(lists: dict) -> dict[str, list[str]]:
    out = {}
    for k, lst in lists.items():
        if any(isinstance(g, list) and len(g) > 1 for g in lst):
            raise _Unsupported("ties (the peer takes strict lists only)")
        out[k] = [g[0] if isinstance(g, list) else g for g in lst]
    return out


# ----------------------------------------------------------------------------- runners

def _matching_sm(inst: dict) -> dict[str, str]:
    from matching.games import StableMarriage
    p = inst["preferences"]
    a, b = _strict(p["A"]), _strict(p["B"])
    if len(a) != len(b) or any(set(v) != set(b) for v in a.values()) or \
            any(set(v) != set(a) for v in b.values()):
        raise _Unsupported("StableMarriage takes complete lists over equal sides")
    game = StableMarriage.create_from_dictionaries(a, b)
    out = game.solve(optimal="suitor")
    return {str(x): str(y) for x, y in out.items() if y is not None}


def _matching_hr(optimal: str):
    def run(inst: dict) -> dict[str, str]:
        from matching.games import HospitalResident
        p = inst["preferences"]
        res, hos = _strict(p["residents"]), _strict(p["hospitals"])
        game = HospitalResident.create_from_dictionaries(res, hos, dict(inst["capacities"]))
        out = game.solve(optimal=optimal)
        return {str(r): str(h) for h, rs in out.items() for r in rs}
    return run


def _ids(names) -> tuple[dict, dict]:
    fwd = {x: i for i, x in enumerate(names, 1)}
    return fwd, {i: x for x, i in fwd.items()}


def _to_ints(lst: list, ids: dict) -> list:
    return [ids[g] if isinstance(g, str) else [ids[x] for x in g] for g in lst]


def _algmatch_smt(stability: str):
    def run(inst: dict) -> dict[str, str] | None:
        from algmatch import StableMarriageProblemWithTies
        p = inst["preferences"]
        a_ids, a_inv = _ids(p["A"])
        b_ids, b_inv = _ids(p["B"])
        d = {"men": {a_ids[x]: _to_ints(lst, b_ids) for x, lst in p["A"].items()},
             "women": {b_ids[y]: _to_ints(lst, a_ids) for y, lst in p["B"].items()}}
        out = StableMarriageProblemWithTies(dictionary=d, optimised_side="men",
                                            stability_type=stability).get_stable_matching()
        if out is None:
            return None
        return {a_inv[int(m[1:])]: b_inv[int(w[1:])] for m, w in out["man_sided"].items() if w}
    return run


def _algmatch_hrt(stability: str, side: str):
    def run(inst: dict) -> dict[str, str] | None:
        from algmatch import HospitalResidentsProblemWithTies
        p = inst["preferences"]
        r_ids, r_inv = _ids(p["residents"])
        h_ids, h_inv = _ids(p["hospitals"])
        d = {"residents": {r_ids[r]: _to_ints(lst, h_ids) for r, lst in p["residents"].items()},
             "hospitals": {h_ids[h]: {"capacity": inst["capacities"][h],
                                      "preferences": _to_ints(lst, r_ids)}
                           for h, lst in p["hospitals"].items()}}
        out = HospitalResidentsProblemWithTies(dictionary=d, optimised_side=side,
                                               stability_type=stability).get_stable_matching()
        if out is None:
            return None
        return {r_inv[int(r[1:])]: h_inv[int(h[1:])]
                for r, h in out["resident_sided"].items() if h}
    return run


RUNNERS: dict[str, Callable[[dict], Any]] = {
    "matching:sm-suitor": _matching_sm,
    "matching:hr-resident": _matching_hr("resident"),
    "matching:hr-hospital": _matching_hr("hospital"),
    "algmatch:smt-super-men": _algmatch_smt("super"),
    "algmatch:smt-strong-men": _algmatch_smt("strong"),
    "algmatch:hrt-super-residents": _algmatch_hrt("super", "residents"),
    "algmatch:hrt-super-hospitals": _algmatch_hrt("super", "hospitals"),
    "algmatch:hrt-strong-residents": _algmatch_hrt("strong", "residents"),
    "algmatch:hrt-strong-hospitals": _algmatch_hrt("strong", "hospitals"),
}
#: runs that claim an optimum of strict lists: run -> (optimal side for our DA)
OPTIMAL = {"matching:sm-suitor": "A", "matching:hr-resident": "residents",
           "matching:hr-hospital": "hospitals"}


def available(lib: str) -> bool:
    """Whether the peer library ``lib`` can be imported (it is an optional extra)."""
    import importlib.util
    mod = {"matching": "matching", "algmatch": "algmatch", "pref-voting": "pref_voting",
           "preflibtools": "preflibtools"}[lib]
    return importlib.util.find_spec(mod) is not None


def runs_for(lib: str, domain: str) -> list[str]:
    if lib not in LIBRARIES:
        raise InstanceError(f"unknown library (known: {', '.join(sorted(LIBRARIES))})",
                            value=lib)
    return [f"{lib}:{r}" for r, (d, *_) in LIBRARIES[lib].items() if d == domain]


# ----------------------------------------------------------------------------- judging

@dataclass
class _Truth:
    verdict: str
    solution: Any
    certificate: dict


def _truth(inst: dict, question: str) -> dict:
    """prefcert's certified label for the question (engines agree, checker accepts)."""
    from ..formal.instances import from_object
    from .jobs import label, plan
    job = plan([from_object(dict(inst, id=inst.get("id", "audited")), "<audit-library>",
                            None, "audited")], [question])[0]
    return label(job, time_limit=30)


def _adapter(domain_name: str) -> PeerAdapter:
    from .registry import domain
    hook = domain(domain_name).peers
    if isinstance(hook, Absent):
        raise InstanceError(f"no peer adapter: {hook.reason}", value=domain_name)
    return hook


def input_notes(domain: str, model) -> dict:
    """Where an instance leaves the textbook input class: one-sided entries, empty lists,
    capacity-0 hospitals (counts; the domain's peer adapter)."""
    notes = _adapter(domain).input_notes
    assert notes is not None
    return notes(model)


def _timed_out(rec: dict, reason: str | None) -> dict:
    return {**rec, "verdict": "timeout", **({"reason": reason} if reason else {})}


def _crashed(rec: dict, exception: str, truth: dict) -> dict:
    return {**rec, "verdict": "crash", "peer": {"exception": exception},
            "prefcert": {"verdict": truth["verdict"], "solution": truth["solution"],
                         "certificate": truth["certificate"], "checked": truth["checked"]}}


def audit_run(run: str, inst: dict, *, timeout: float = 30.0) -> dict:
    """Run one peer entry point on one instance and judge its answer (see the module
    docstring). Returns a JSON-able record: ``run``, ``id``, ``question``, ``verdict``
    (correct / incorrect / crash / timeout / unsupported), ``peer`` (its converted answer
    or exception), ``refutation`` (checker-accepted), ``prefcert`` (the certified verdict)
    and ``seconds``. The peer runs in a worker process (:class:`_Worker`), warmed up
    outside ``timeout``: a call past ``timeout`` seconds is killed and judged ``timeout``."""
    from .registry import spec
    lib, name = run.split(":", 1)
    domain, question, notion, _ = LIBRARIES[lib][name]
    rec: dict = {"run": run, "id": inst.get("id"), "domain": domain, "question": question}
    if inst.get("domain") != domain:
        return {**rec, "verdict": "unsupported", "reason": f"not a {domain} instance"}
    adapter = _adapter(domain)
    if adapter.judge == "winner":
        return audit_winner(run, inst, rec, notion, timeout=timeout)
    model = spec(domain).parse(inst)
    rec["input"] = notes = input_notes(domain, model)
    rec["textbook_input"] = not any(notes.values())
    kind, answer, seconds = _call(run, inst, timeout)
    if kind == "unsupported":
        return {**rec, "verdict": "unsupported", "reason": answer}
    rec["seconds"] = round(seconds, 3)
    if kind == "timeout":
        return _timed_out(rec, answer)
    if kind == "crash":             # the peer crashed: report it, with the true answer
        return _crashed(rec, answer, _truth(inst, question))
    rec["peer"] = {"matching": answer} if answer is not None else {"claim": "none exists"}
    if answer is None:
        truth = _truth(inst, question)
        if truth["verdict"] == "none":
            return {**rec, "verdict": "correct", "prefcert": {"verdict": "none",
                                                              "certificate": truth["certificate"]}}
        return {**rec, "verdict": "incorrect",
                "refutation": {"type": "witness", "matching": truth["solution"],
                               "note": f"a {question} matching exists (checker-accepted)"}}
    try:
        pairs = adapter.blocking_pairs(model, answer, notion)
    except CertificateError as e:
        return {**rec, "verdict": "incorrect",
                "refutation": {"type": "invalid_matching", "reason": str(e)}}
    if pairs:
        return {**rec, "verdict": "incorrect",
                "refutation": {"type": "blocking_pairs", "notion": notion,
                               "pairs": [list(p) for p in pairs]}}
    if run in OPTIMAL:
        best = adapter.optimum(model, OPTIMAL[run])
        if best != answer and not adapter.blocking_pairs(model, best, notion):
            rank = adapter.ranks(model)
            inf = float("inf")

            def r_of(m, r):
                return rank[r].rank.get(m.get(r), inf)
            if OPTIMAL[run] in ("A", "residents"):     # someone does strictly better in best
                who = next(r for r in rank if r_of(best, r) < r_of(answer, r))
                why = f"{who} gets a strictly better partner in the certified optimum"
            else:                 # hospital-optimal = resident-pessimal (Gusfield & Irving 1989)
                who = next(r for r in rank if r_of(best, r) > r_of(answer, r))
                why = (f"{who} does strictly worse in the certified hospital-optimal matching, "
                       f"so the peer's matching is not resident-pessimal, hence not "
                       f"hospital-optimal")
            return {**rec, "verdict": "incorrect",
                    "refutation": {"type": "not_optimal", "optimum": best, "agent": who,
                                   "note": why}}
    return {**rec, "verdict": "correct"}


# ----------------------------------------------------------------------------- winners

class _NotJudged(Exception):
    """The peer answered, but under a reading of the input that differs from prefcert's."""

    def __init__(self, answer, reason: str):
        super().__init__(reason)
        self.answer, self.reason = answer, reason


def election_notes(e) -> dict:
    """Where an election leaves the textbook input class (full strict rankings): counts of
    tied, truncated and approval-only ballots (the manipulator's sincere ballot included)."""
    ballots = e.sincere().ballots
    return {"tied_ballots": sum(b.count for b in ballots if not b.strict_full),
            "truncated_ballots": sum(b.count for b in ballots
                                     if sum(map(len, b.ranking)) < e.m),
            "approval_ballots": sum(b.count for b in ballots if b.explicit_approval)}


def _no_approval_only(e) -> None:
    if any(b.explicit_approval and not b.ranking for b in e.sincere().ballots):
        raise _Unsupported("approval-only ballots (no ranking)")


def _pv_profile(e, rule: str, *, truncated: bool):
    """A pref-voting profile of the sincere ballots: a Profile when every ballot is a full
    strict ranking, else a ProfileWithTies (ties are passed on as ties; the answer is then
    not judged, see _NotJudged)."""
    from pref_voting.profiles import Profile
    from pref_voting.profiles_with_ties import ProfileWithTies
    idx = {x: i for i, x in enumerate(e.candidates)}
    ballots = e.sincere().ballots
    if all(b.strict_full and sum(map(len, b.ranking)) == e.m for b in ballots):
        return Profile([[idx[g[0]] for g in b.ranking] for b in ballots],
                       rcounts=[b.count for b in ballots]), False
    _no_approval_only(e)
    if not truncated:
        raise _Unsupported(f"pref-voting's {rule} takes full strict rankings")
    rankings = [{idx[x]: r for r, g in enumerate(b.ranking, 1) for x in g} for b in ballots]
    prof = ProfileWithTies(rankings, rcounts=[b.count for b in ballots],
                           candidates=list(range(e.m)))
    return prof, any(not b.strict_full for b in ballots)


def _pref_voting(rule: str, resolute: bool = False):
    def run(e) -> dict:
        cands = list(e.candidates)
        if RULES[rule].approval:
            from pref_voting.grade_methods import approval
            from pref_voting.grade_profiles import GradeProfile
            ballots = e.sincere().ballots
            gp = GradeProfile([{i: int(x in b.approved) for i, x in enumerate(cands)}
                               for b in ballots], [0, 1], gcounts=[b.count for b in ballots],
                              candidates=list(range(e.m)))
            return {"winners": sorted(cands[i] for i in approval(gp))}
        from pref_voting.c1_methods import copeland
        from pref_voting.iterative_methods import instant_runoff_put, instant_runoff_tb
        from pref_voting.scoring_methods import borda, plurality
        if rule == "plurality" and any(b.ranking and len(b.ranking[0]) > 1
                                       for b in e.sincere().ballots):
            raise _Unsupported("tied tops (pref-voting's plurality refuses them by design)")
        prof, tied = _pv_profile(e, rule, truncated=rule != "borda")
        # ties below the top do not change plurality, and Copeland with extended strict
        # preference reads a tie as neither preferred, as prefcert does; IRV may meet a
        # tie as a ballot's live top, which pref-voting and prefcert read differently
        tied = tied and rule == "irv"
        if rule == "copeland" and hasattr(prof, "use_extended_strict_preference"):
            prof.use_extended_strict_preference()      # unranked tie at the bottom
        if rule == "irv" and resolute:
            tb = [cands.index(x) for x in reversed(e.tie_break)]   # tb[0] goes first
            out = {"winner": cands[instant_runoff_tb(prof, tie_breaker=tb)[0]]}
        else:
            fn = {"plurality": plurality, "borda": borda, "copeland": copeland,
                  "irv": instant_runoff_put}[rule]
            out = {"winners": sorted(cands[i] for i in fn(prof))}
        if tied:
            raise _NotJudged(out, "tied ballots: pref-voting's ProfileWithTies counts a tied "
                                  "live top for every member (score_method 'approval'), "
                                  "prefcert for nobody (an overvote)")
        return out
    return run


def _preflibtools_instance(e, allowed: tuple[str, ...]):
    """An OrdinalInstance of the sincere ballots (alternatives 1..m; PrefLib's types)."""
    from preflibtools.instances import OrdinalInstance
    inst = OrdinalInstance()
    inst.alternatives_name = {i: x for i, x in enumerate(e.candidates, 1)}
    idx = {x: i for i, x in enumerate(e.candidates, 1)}
    _no_approval_only(e)
    orders = []
    for b in e.sincere().ballots:
        orders += [tuple(tuple(idx[x] for x in g) for g in b.ranking)] * b.count
    inst.append_order_list(orders)
    if inst.data_type not in allowed:
        raise _Unsupported(f"PrefLib type {inst.data_type} (the function takes "
                           f"{', '.join(allowed)})")
    return inst


def _preflibtools(rule: str):
    def run(e) -> dict:
        from preflibtools.aggregation import singlewinner as sw
        allowed = {"plurality": ("soc", "toc", "soi", "toi"), "borda": ("soc", "toc"),
                   "copeland": ("soc",), "approval": ("soc", "soi")}[rule]
        inst = _preflibtools_instance(e, allowed)
        if RULES[rule].approval:
            if any(b.explicit_approval for b in e.sincere().ballots):
                raise _Unsupported("explicit approval sets (k-approval reads rankings)")
            got = sw.k_approval_winner(inst, e.approval_top)
        else:
            got = {"plurality": sw.plurality_winner, "borda": sw.borda_winner,
                   "copeland": sw.copeland_winner}[rule](inst)
        out = {"winners": sorted(e.candidates[i - 1] for i in got)}
        if rule == "plurality" and any(b.ranking and len(b.ranking[0]) > 1
                                       for b in e.sincere().ballots):
            raise _NotJudged(out, "tied tops: preflibtools gives a point to every member, "
                                  "prefcert to nobody (an overvote)")
        return out
    return run


RUNNERS.update({
    "pref-voting:plurality": _pref_voting("plurality"),
    "pref-voting:borda": _pref_voting("borda"),
    "pref-voting:copeland": _pref_voting("copeland"),
    "pref-voting:approval": _pref_voting("approval"),
    "pref-voting:irv-put": _pref_voting("irv"),
    "pref-voting:irv-tb": _pref_voting("irv", resolute=True),
    "preflibtools:plurality": _preflibtools("plurality"),
    "preflibtools:borda": _preflibtools("borda"),
    "preflibtools:copeland": _preflibtools("copeland"),
    "preflibtools:k-approval": _preflibtools("approval"),
})


def audit_winner(run: str, inst: dict, rec: dict, rule: str, *, timeout: float = 30.0
                 ) -> dict:
    """Judge a peer's winner (set) against prefcert's certified ``winner`` label (its score
    table or IRV rounds accepted by the checker). ``incorrect`` comes with the wrong winner
    beside the certified table: the peer's set, the true set, the candidates wrongly in or
    out, each with its recomputed score, and the checker's own message for a resolute
    winner (:func:`prefcert.formal.checker.election.check_claimed_winner`)."""
    from ..formal.checker.election import check_claimed_winner, winner_table
    from .registry import spec
    e = spec("election").parse(inst)
    rec = dict(rec, question={"type": "winner", "rule": rule})
    rec["input"] = notes = election_notes(e)
    rec["textbook_input"] = not any(notes.values())
    not_judged = None
    kind, answer, seconds = _call(run, e, timeout)
    if kind == "unsupported":
        return {**rec, "verdict": "unsupported", "reason": answer}
    rec["seconds"] = round(seconds, 3)
    if kind == "timeout":
        return _timed_out(rec, answer)
    if kind == "crash":             # the peer crashed: report it, with the true answer
        return _crashed(rec, answer, _truth(inst, rec["question"]))
    if kind == "not_judged":
        answer, not_judged = answer
    rec["peer"] = answer
    if not_judged is not None:
        return {**rec, "verdict": "unsupported", "reason": f"answered, not judged: {not_judged}"}
    truth = _truth(inst, rec["question"])           # checked score table / IRV rounds
    table = {k: truth["certificate"][k] for k in ("scores", "rounds", "eliminated")
             if k in truth["certificate"]}
    proof = {"winner": truth["solution"]["winner"], "winners": truth["solution"]["winners"],
             "certificate": truth["certificate"], "checked": truth["checked"]}
    if "winner" in answer:                          # a resolute winner
        try:
            check_claimed_winner(e, rule, answer["winner"])
        except CertificateError as ex:
            return {**rec, "verdict": "incorrect", "refutation": {
                "type": "wrong_winner", "claimed": answer["winner"], "reason": str(ex),
                **table}, "prefcert": proof}
        return {**rec, "verdict": "correct", "prefcert": proof}
    claimed, true = set(answer["winners"]), set(truth["solution"]["winners"])
    if claimed == true:
        return {**rec, "verdict": "correct", "prefcert": proof}
    wrong, missing = sorted(claimed - true), sorted(true - claimed)
    recount = winner_table(e, rule)                 # the trusted count, again
    assert sorted(recount["winners"]) == sorted(true)
    why = []
    if "scores" in recount:
        top = max(recount["scores"].values())
        why += [f"{x} scores {recount['scores'][x]} < {top}" for x in wrong]
        why += [f"{x} scores the top score {top}" for x in missing]
    else:
        why += [f"{x} wins under no resolution of the elimination ties" for x in wrong]
        why += [f"{x} wins under some resolution of the elimination ties" for x in missing]
    return {**rec, "verdict": "incorrect", "refutation": {
        "type": "wrong_winners", "claimed": sorted(claimed), "winners": sorted(true),
        "wrongly_in": wrong, "wrongly_out": missing, "reason": "; ".join(why), **table},
        "prefcert": proof}
