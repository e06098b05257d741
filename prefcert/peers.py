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
"""
from __future__ import annotations

import contextlib
import signal
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .formal.errors import CertificateError, InstanceError

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
#: the libraries whose winners need the election checker (not available yet)
PENDING = {"pref-voting": "winners", "preflibtools": "winners"}


class _Unsupported(Exception):
    pass


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds: float):
    """Raise _Timeout after ``seconds`` (SIGALRM; main thread of a Unix process only —
    elsewhere the run is not cut short)."""
    usable = hasattr(signal, "setitimer")
    if usable:
        try:
            old = signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw(_Timeout()))
        except ValueError:          # not the main thread
            usable = False
    if usable:
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        if usable:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


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
    import importlib.util
    mod = {"matching": "matching", "algmatch": "algmatch", "pref-voting": "pref_voting",
           "preflibtools": "preflibtools"}[lib]
    return importlib.util.find_spec(mod) is not None


def runs_for(lib: str, domain: str) -> list[str]:
    if lib not in LIBRARIES and lib not in PENDING:
        raise InstanceError(f"unknown library (known: {', '.join(sorted([*LIBRARIES, *PENDING]))})",
                            value=lib)
    if lib in PENDING:
        raise InstanceError(f"auditing {lib}'s {PENDING[lib]} needs the election checker, "
                            f"not available in this version", value=lib)
    return [f"{lib}:{r}" for r, (d, *_) in LIBRARIES[lib].items() if d == domain]


# ----------------------------------------------------------------------------- judging

@dataclass
class _Truth:
    verdict: str
    solution: Any
    certificate: dict


def _truth(inst: dict, question: str) -> dict:
    """prefcert's certified label for the question (engines agree, checker accepts)."""
    from .formal.instances import from_object
    from .pipeline import label, plan
    job = plan([from_object(dict(inst, id=inst.get("id", "audited")), "<audit-library>",
                            None, "audited")], [question])[0]
    return label(job, time_limit=30)


def _blocking(domain: str, model, matching: dict, notion: str) -> list:
    if domain == "stable_matching":
        from .formal.checker.matching import blocking_pairs
    else:
        from .formal.checker.hospitals import blocking_pairs
    return blocking_pairs(model, matching, notion)


def _optimum(domain: str, model, side: str) -> dict:
    if domain == "stable_matching":
        from .oracles.stable_matching import deferred_acceptance
        return deferred_acceptance(model, side)
    from .oracles.hospitals import deferred_acceptance
    return deferred_acceptance(model, side)


def input_notes(domain: str, model) -> dict:
    """Where an instance leaves the textbook input class: one-sided entries, empty lists,
    capacity-0 hospitals (counts)."""
    if domain == "stable_matching":
        sides = (model.a, model.b)
        restricted = (model.pa, model.pb)
        caps = 0
    else:
        sides = (model.residents, model.hospitals)
        restricted = (model.pr, model.ph)
        caps = sum(1 for c in model.capacities.values() if c == 0)
    one_sided = sum(len(o) - len(restricted[i][x]) for i, side in enumerate(sides)
                    for x, o in side.items())
    empty = sum(1 for side in sides for o in side.values() if not len(o))
    return {"one_sided_entries": one_sided, "empty_lists": empty, "capacity_zero": caps}


def audit_run(run: str, inst: dict, *, timeout: float = 30.0) -> dict:
    """Run one peer entry point on one instance and judge its answer (see the module
    docstring). Returns a JSON-able record: ``run``, ``id``, ``question``, ``verdict``
    (correct / incorrect / crash / timeout / unsupported), ``peer`` (its converted answer
    or exception), ``refutation`` (checker-accepted), ``prefcert`` (the certified verdict)
    and ``seconds``."""
    from .registry import spec
    lib, name = run.split(":", 1)
    domain, question, notion, _ = LIBRARIES[lib][name]
    rec: dict = {"run": run, "id": inst.get("id"), "domain": domain, "question": question}
    if inst.get("domain") != domain:
        return {**rec, "verdict": "unsupported", "reason": f"not a {domain} instance"}
    model = spec(domain).parse(inst)
    rec["input"] = notes = input_notes(domain, model)
    rec["textbook_input"] = not any(notes.values())
    import importlib
    importlib.import_module(lib)     # its import may reset warning filters: do it first
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with _deadline(timeout):
                answer = RUNNERS[run](inst)
    except _Unsupported as e:
        return {**rec, "verdict": "unsupported", "reason": str(e)}
    except _Timeout:
        return {**rec, "verdict": "timeout", "seconds": round(time.perf_counter() - t0, 3)}
    except Exception as e:          # the peer crashed: report it, with the true answer
        truth = _truth(inst, question)
        return {**rec, "verdict": "crash", "peer": {"exception": f"{e.__class__.__name__}: {e}"},
                "prefcert": {"verdict": truth["verdict"], "solution": truth["solution"],
                             "certificate": truth["certificate"], "checked": truth["checked"]},
                "seconds": round(time.perf_counter() - t0, 3)}
    rec["seconds"] = round(time.perf_counter() - t0, 3)
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
        pairs = _blocking(domain, model, answer, notion)
    except CertificateError as e:
        return {**rec, "verdict": "incorrect",
                "refutation": {"type": "invalid_matching", "reason": str(e)}}
    if pairs:
        return {**rec, "verdict": "incorrect",
                "refutation": {"type": "blocking_pairs", "notion": notion,
                               "pairs": [list(p) for p in pairs]}}
    if run in OPTIMAL:
        best = _optimum(domain, model, OPTIMAL[run])
        if best != answer and not _blocking(domain, model, best, notion):
            rank = model.pa if domain == "stable_matching" else model.pr
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
