"""The hospitals/residents domain wired to its engines: SUPER-RES / STRONG-RES and
deferred acceptance (both sides), CP-SAT, exhaustive search."""
from __future__ import annotations

import random
from typing import Any

from ..formal.checker.hospitals_residents import SPEC, blocking_pairs
from ..formal.errors import CertificateError
from ..formal.hospitals_residents import QUESTIONS, HRMarket
from ..oracles import hospitals_residents as orc
from ..pipeline.minimize import two_sided_shrinker
from .base import (
    Domain,
    Outcome,
    PeerAdapter,
    Property,
    Question,
    Space,
    claims_none,
    decide_existence,
)
from .stable_matching import judge_matching, judge_none, one_sided_notes, two_sided_in_space

MAX_ENCODING_RESIDENTS = 150    # larger markets use the oracle and the checker alone
MAX_BRUTE_FORCE_RESIDENTS = 7
SEARCH = {"super": orc.super_stable_search, "strong": orc.strongly_stable_search,
          "weak": lambda market: (orc.weakly_stable_matching(market), None)}  # always exists


def _oracle(notion: str, proposing: str = "residents"):
    def run(market: HRMarket, params: Any, *, time_limit: float, seed: int) -> Outcome:
        if notion == "weak":
            return Outcome("exists", orc.weakly_stable_matching(market, proposing),
                           {"type": "stable_matching"})
        matching, refutation = SEARCH[notion](market)
        if matching is None:
            return Outcome("none", None, refutation)
        return Outcome("exists", matching, {"type": "stable_matching"})
    return run


def _cpsat(notion: str):
    def run(market: HRMarket, params: Any, *, time_limit: float, seed: int) -> Outcome:
        from ..encodings.hospitals_residents import stable_matching_cpsat
        return stable_matching_cpsat(market, notion, time_limit=time_limit, seed=seed)
    return run


def _brute_force(notion: str):
    def run(market: HRMarket, params: Any, *, time_limit: float, seed: int) -> Outcome:
        return orc.brute_force_stable_matching(market, notion, time_limit=time_limit, seed=seed)
    return run


def _auto(notion: str):
    def auto(market: HRMarket) -> list[str]:
        names = ["oracle"] + (["hospital_da"] if notion == "weak" else [])
        if market.size <= MAX_ENCODING_RESIDENTS:
            names.append("cpsat")
        if market.size <= MAX_BRUTE_FORCE_RESIDENTS:
            names.append("brute_force")
        return names
    return auto


def _decide(answers, check):
    return decide_existence(answers, check, none_quorum=("oracle", "cpsat"))


def read_matching(market: HRMarket, answer: Any) -> dict[str, str]:
    """A claimed matching as resident -> hospital. Accepts ``{resident: hospital}``,
    ``{hospital: [residents]}`` or ``[[resident, hospital], ...]`` (either order inside a
    pair). Raises ValueError for any other shape, CertificateError for a resident assigned
    twice."""
    pairs: list = []
    if isinstance(answer, dict):
        for k, v in answer.items():
            if isinstance(v, list):
                pairs += [(k, x) for x in v]
            else:
                pairs.append((k, v))
    elif isinstance(answer, list):
        for p in answer:
            if not (isinstance(p, (list, tuple)) and len(p) == 2):
                raise ValueError(f"not a pair of agent names: {p!r}")
            pairs.append(tuple(p))
    else:
        raise ValueError("a matching must be an object or a list of pairs")
    out: dict[str, str] = {}
    for a, b in pairs:
        if not (isinstance(a, str) and isinstance(b, str)):
            raise ValueError(f"not a pair of agent names: {[a, b]!r}")
        r, h = (b, a) if a in market.hospitals or b in market.residents else (a, b)
        if r in out and out[r] != h:
            raise CertificateError(f"{r!r} is assigned to both {out[r]!r} and {h!r}")
        out[r] = h
    return out


def _pairs(market: HRMarket, answer: Any) -> list[list[str]]:
    """The claimed pairs as [resident, hospital]: the solution of a not_a_matching proof
    (a list, so that a resident given two hospitals is kept as claimed)."""
    raw = [(k, x) for k, v in answer.items() for x in (v if isinstance(v, list) else [v])] \
        if isinstance(answer, dict) else [tuple(p) for p in answer]
    return [[b, a] if a in market.hospitals or b in market.residents else [a, b]
            for a, b in raw]


def _audit(notion: str):
    question = {v: k for k, v in QUESTIONS.items()}[notion]
    word = question.replace("_", "-")

    def audit(market: HRMarket, params: Any, answer: Any) -> dict:
        if claims_none(answer):
            return judge_none(word, *SEARCH[notion](market))
        try:
            matching = read_matching(market, answer)
            found = blocking_pairs(market, matching, notion)
        except ValueError as e:
            return {"verdict": "unparseable", "violations": [],
                    "feedback": f"Unreadable matching: {e}"}
        except CertificateError as e:
            return {"verdict": "incorrect", "violations": [{"invalid_matching": str(e)}],
                    "proof": {"verdict": "incorrect", "solution": _pairs(market, answer),
                              "certificate": {"type": "not_a_matching"}},
                    "feedback": f"Incorrect: not a valid matching: {e}."}
        return judge_matching(notion, word, matching, found)
    return audit


def _certify(notion: str):
    """The oracle's proof of an agreed "none" (the engines that ran gave none)."""
    def certify(market: HRMarket, params: Any, verdict: str, solution: Any, *,
                time_limit: float) -> dict | None:
        if notion == "weak" or verdict != "none":
            return None
        matching, refutation = SEARCH[notion](market)
        return refutation if matching is None else {"type": "stable_matching"}
    return certify


def classify(market: HRMarket, candidate: Any) -> dict[str, dict]:
    """Which stability notions a candidate matching meets; a failed notion carries every
    blocking pair. Raises CertificateError for a candidate that is not a matching."""
    try:
        matching = read_matching(market, candidate)
    except ValueError as e:
        raise CertificateError(str(e)) from None
    out = {}
    for question, notion in QUESTIONS.items():
        pairs = blocking_pairs(market, matching, notion)
        out[question] = {"holds": not pairs, "certificate":
                         {"type": "blocking_pairs", "count": len(pairs),
                          "pairs": [list(p) for p in pairs]} if pairs else None}
    return out


def _question(name: str, notion: str) -> Question:
    engines = {"oracle": _oracle(notion)}
    if notion == "weak":
        engines["hospital_da"] = _oracle(notion, "hospitals")
    engines.update(cpsat=_cpsat(notion), brute_force=_brute_force(notion))
    return Question(name=name, engines=engines, auto=_auto(notion), decide=_decide,
                    audit=_audit(notion), certify=_certify(notion))


# ----------------------------------------------------------------------------- hooks

def _hr_space() -> Space:
    def enumerate_(dims, complete, options):
        from ..generators.hospitals_residents import hr_space
        return hr_space(*dims, complete=complete)

    def sample(dims, complete, rng, options):
        from ..generators.hospitals_residents import random_hr
        return random_hr(*dims, complete, rng)

    def size(dims, complete):
        from ..generators.hospitals_residents import hr_space_size
        return hr_space_size(*dims, complete=complete)
    return Space("hr", lambda n, max_items: [(r, n - r) for r in range(1, n)], size,
                 enumerate_, sample, lambda market, complete: two_sided_in_space(
                     market.residents, market.hospitals, complete))


def _input_notes(market: HRMarket) -> dict:
    return one_sided_notes((market.residents, market.hospitals), (market.pr, market.ph),
                           sum(1 for c in market.capacities.values() if c == 0))


def _peer_sample(rng: random.Random, seed: int, k: int, ties: bool) -> dict:
    """A market of 2..8 residents and 1..4 hospitals; every other one with complete lists
    and capacities 1..3, the rest incomplete lists and capacities 0..3; ties when ``ties``."""
    from ..generators.hospitals_residents import sample_hr
    p = rng.choice([0.2, 0.4, 0.7]) if ties else 0.0
    textbook = k % 2 == 0
    return sample_hr(rng.randint(2, 8), rng.randint(1, 4), cap_min=1 if textbook else 0,
                     cap_max=3, tie_prob=p, truncate=not textbook, seed=seed,
                     id=f"random-hr-{k}")


def _properties() -> dict[str, Property]:
    from ..pipeline.counterexample import existence_property
    out = {}
    for notion, word in (("strong", "strongly"), ("super", "super")):
        question = "strongly_stable" if notion == "strong" else "super_stable"
        name = f"hr-{word}-stable-exists"
        out[name] = existence_property(
            name, "hospitals_residents",
            f"a {word}{'-' if notion == 'super' else ' '}stable matching exists "
            f"(hospitals/residents with ties, capacities 0..2)", question, SEARCH[notion])
    return out


DOMAIN = Domain(
    spec=SPEC,
    questions={name: _question(name, notion) for name, notion in QUESTIONS.items()},
    default_questions=lambda market: ["super_stable", "strongly_stable", "weakly_stable"],
    classify=classify,
    shrinker=two_sided_shrinker(("residents", "hospitals"), capacities=True),
    space=_hr_space(),
    peers=PeerAdapter("matching", _peer_sample, blocking_pairs,
                      lambda market, side: orc.deferred_acceptance(market, side),
                      _input_notes, lambda market: market.pr),
    properties=_properties,
)
