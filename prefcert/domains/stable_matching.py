"""The stable-matching domain wired to its engines: oracle, CP-SAT, z3, exhaustive search."""
from __future__ import annotations

import random
from typing import Any
from weakref import WeakKeyDictionary

from ..formal.checker.stable_matching import SPEC, blocking_pairs
from ..formal.errors import CertificateError
from ..formal.stable_matching import QUESTIONS, IntMarket, Market
from ..oracles import stable_matching as orc
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
from .house_allocation import TWO_SIDED_QUESTIONS
from .house_allocation import classify as classify_welfare

MAX_ENCODING_SIDE = 150   # larger markets use the oracle and the checker alone
MAX_BRUTE_FORCE_SIDE = 8
BLOCKING = {"weak": "weakly blocking", "strong": "strongly blocking", "super": "super-blocking"}


#: per integer form, the first round of SUPER / STRONG (:func:`orc.first_round`) made by
#: the search of one notion and kept for the other's: the three labels of one market
#: make it once. An entry is taken by the other notion (the same notion again makes its
#: own) and dropped with the market.
_ROUNDS: WeakKeyDictionary[IntMarket, tuple[str, Any]] = WeakKeyDictionary()


def _search(notion: str, market: Market) -> tuple[dict[str, str] | None, dict | None]:
    """``orc.super_stable_search`` or ``orc.strongly_stable_search`` (``notion``: "super"
    or "strong") of ``market``, starting from the first round the other notion left in
    :data:`_ROUNDS`, else from a new one (a copy of which is left there). The same
    answers as the searches alone: the first round is the same state for both."""
    ints = market.ints
    held = _ROUNDS.pop(ints, None)
    if held is not None and held[0] != notion:
        start = held[1]
    else:
        start = orc.first_round(market)
        _ROUNDS[ints] = (notion, start.copy())
    search = orc.super_stable_search if notion == "super" else orc.strongly_stable_search
    return search(market, start=start)


def _oracle(notion: str):
    def run(market: Market, params: Any, *, time_limit: float, seed: int) -> Outcome:
        if notion == "weak":
            return Outcome("exists", orc.weakly_stable_matching(market), {"type": "stable_matching"})
        matching, refutation = _search(notion, market)
        if matching is None:
            return Outcome("none", None, refutation)
        return Outcome("exists", matching, {"type": "stable_matching"})
    return run


def _certify(notion: str):
    """The oracle's proof of an agreed answer (the engines that ran gave none)."""
    def certify(market: Market, params: Any, verdict: str, solution: Any, *,
                time_limit: float) -> dict | None:
        if notion == "weak" or verdict != "none":
            return None
        matching, refutation = _search(notion, market)
        return refutation if matching is None else {"type": "stable_matching"}
    return certify


def _encoding(kind: str, notion: str):
    def run(market: Market, params: Any, *, time_limit: float, seed: int) -> Outcome:
        from ..encodings import stable_matching as enc
        fn = enc.stable_matching_cpsat if kind == "cpsat" else enc.stable_matching_z3
        return fn(market, notion, time_limit=time_limit, seed=seed)
    return run


def _brute_force(notion: str):
    def run(market: Market, params: Any, *, time_limit: float, seed: int) -> Outcome:
        from ..oracles.stable_matching_brute_force import brute_force_stable_matching
        return brute_force_stable_matching(market, notion, time_limit=time_limit, seed=seed)
    return run


def _auto(market: Market) -> list[str]:
    names = ["oracle"]
    if market.size <= MAX_ENCODING_SIDE:
        names += ["cpsat", "z3"]
    if market.size <= MAX_BRUTE_FORCE_SIDE:
        names.append("brute_force")
    return names


def _decide(answers, check):
    return decide_existence(answers, check, none_quorum=("oracle", "cpsat", "z3"))


def read_matching(market: Market, answer: Any) -> dict[str, str]:
    """A claimed matching as a dict A -> B: accepts {a: b}, {b: a} or [[x, y], ...], and a
    pair listed from both sides ({a: b, b: a}).

    Raises ValueError when the answer has none of these shapes, or gives an agent two
    partners (naming both).
    """
    pairs = answer.items() if isinstance(answer, dict) else answer
    if not isinstance(pairs, (list, type({}.items()))):
        raise ValueError("a matching must be an object or a list of pairs")
    out: dict[str, str] = {}
    back: dict[str, str] = {}
    for p in pairs:
        if not (isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(v, str) for v in p)):
            raise ValueError(f"not a pair of agent names: {p!r}")
        # orient by the known names: {a: b}, or {b: a} when p[0] is of side B or p[1] of
        # side A; a pair naming no known agent keeps its order, so the check names p[0]
        flip = p[0] not in market.a and p[1] not in market.b and \
            (p[0] in market.b or p[1] in market.a)
        x, y = (p[1], p[0]) if flip else p
        if out.get(x, y) != y:
            raise ValueError(f"{x!r} is given two partners, {out[x]!r} and {y!r}")
        if back.get(y, x) != x:
            raise ValueError(f"{y!r} is given two partners, {back[y]!r} and {x!r}")
        out[x], back[y] = y, x                  # a pair listed twice is the same pair
    return out


# notion -> market -> (a witness or None, the refutation of existence or None); looked up
# in the oracle module at call time
SEARCH = {"super": lambda market: orc.super_stable_search(market),
          "strong": lambda market: orc.strongly_stable_search(market),
          "weak": lambda market: (orc.weakly_stable_matching(market), None)}  # always exists


def _audit(notion: str):
    question = {v: k for k, v in QUESTIONS.items()}[notion]
    words = question.replace("_", "-")

    def audit(market: Market, params: Any, answer: Any) -> dict:
        if claims_none(answer):
            return judge_none(words, *SEARCH[notion](market))
        try:
            matching = read_matching(market, answer)
        except ValueError as e:
            return {"verdict": "unparseable", "violations": [], "feedback": f"Unreadable matching: {e}"}
        try:
            found = blocking_pairs(market, matching, notion)
        except CertificateError as e:
            return {"verdict": "incorrect", "violations": [{"invalid_matching": str(e)}],
                    "proof": {"verdict": "incorrect", "solution": matching,
                              "certificate": {"type": "not_a_matching"}},
                    "feedback": f"Incorrect: not a valid matching: {e}."}
        return judge_matching(notion, words, matching, found)
    return audit


def judge_none(words: str, witness: dict | None, refutation: Any) -> dict:
    """The audit verdict on the claim "no such matching exists", given the oracle's search
    (a witness, or the refutation the checker will replay). Shared by the two-sided domains."""
    if witness is None:
        return {"verdict": "correct", "violations": [],
                "proof": {"verdict": "none", "certificate": refutation},
                "feedback": f"Correct: no {words} matching exists."}
    return {"verdict": "incorrect", "violations": [{"witness": witness}],
            "proof": {"verdict": "exists", "solution": witness,
                      "certificate": {"type": "stable_matching"}},
            "feedback": f"Incorrect: a {words} matching exists, for example {_show(witness)}."}


def judge_matching(notion: str, words: str, matching: dict, found: list) -> dict:
    """The audit verdict on a claimed matching with its blocking pairs ``found``."""
    if not found:
        return {"verdict": "correct", "violations": [],
                "proof": {"verdict": "exists", "solution": matching,
                          "certificate": {"type": "stable_matching"}},
                "feedback": f"Correct: the matching is {words}."}
    shown = ", ".join(f"({x}, {y})" for x, y in found[:5])
    return {"verdict": "incorrect",
            "violations": [{"blocking_pair": [x, y]} for x, y in found],
            "proof": {"verdict": "incorrect", "solution": matching,
                      "certificate": {"type": "blocking_pair", "pair": list(found[0])}},
            "feedback": f"Incorrect: the matching has {len(found)} {BLOCKING[notion]} "
                        f"pair{'s' if len(found) > 1 else ''}"
                        f"{', among them' if len(found) > 5 else ':'} {shown}."}


def _show(matching: dict) -> str:
    if not matching:
        return "the empty matching {}"
    return "{" + ", ".join(f"{x}-{y}" for x, y in matching.items()) + "}"


def classify(market: Market, candidate: Any) -> dict[str, dict]:
    """Which stability notions and two-sided welfare optima a candidate matching meets;
    a failed stability notion carries every blocking pair."""
    out = {}
    for question, notion in QUESTIONS.items():
        pairs = blocking_pairs(market, candidate, notion)
        out[question] = {"holds": not pairs, "certificate":
                         {"type": "blocking_pairs", "count": len(pairs),
                          "pairs": [list(p) for p in pairs]} if pairs else None}
    out.update(classify_welfare(market, candidate))
    return out


def _question(name: str, notion: str) -> Question:
    return Question(
        name=name,
        engines={"oracle": _oracle(notion), "cpsat": _encoding("cpsat", notion),
                 "z3": _encoding("z3", notion), "brute_force": _brute_force(notion)},
        auto=_auto, decide=_decide, audit=_audit(notion), certify=_certify(notion))


# ----------------------------------------------------------------------------- hooks

def _smti_space() -> Space:
    def enumerate_(dims, complete, options):
        from ..generators.stable_matching import smti_space
        return smti_space(*dims, complete=complete)

    def sample(dims, complete, rng, options):
        from ..generators.stable_matching import random_smti
        return random_smti(*dims, complete, rng)

    def size(dims, complete):
        from ..generators.stable_matching import smti_space_size
        return smti_space_size(*dims, complete=complete)
    return Space("smti", lambda n, max_items: [(a, n - a) for a in range(1, n)], size,
                 enumerate_, sample, lambda market, complete: two_sided_in_space(
                     market.a, market.b, complete))


def two_sided_in_space(a: dict, b: dict, complete: bool) -> bool:
    """Both sides non-empty; with ``complete``, every list ranks the whole other side."""
    if not a or not b:
        return False
    return not complete or (all(len(o) == len(b) for o in a.values())
                            and all(len(o) == len(a) for o in b.values()))


def _optimum(market: Market, side: str) -> dict:
    return orc.deferred_acceptance(market, side)


def _input_notes(market: Market) -> dict:
    return one_sided_notes((market.a, market.b), (market.pa, market.pb), 0)


def one_sided_notes(sides: tuple, restricted: tuple, capacity_zero: int) -> dict:
    """Where a two-sided instance leaves the textbook input class: one-sided entries, empty
    lists, capacity-0 hospitals (counts); for ``prefcert audit-library``."""
    one_sided = sum(len(o) - len(restricted[i][x]) for i, side in enumerate(sides)
                    for x, o in side.items())
    empty = sum(1 for side in sides for o in side.values() if not len(o))
    return {"one_sided_entries": one_sided, "empty_lists": empty, "capacity_zero": capacity_zero}


def _peer_sample(rng: random.Random, seed: int, k: int, ties: bool) -> dict:
    """A market of 2..6 agents a side; every other one with complete lists and equal
    sides, the rest incomplete (one-sided entries included); ties when ``ties``."""
    from ..generators.stable_matching import sample_smti
    p = rng.choice([0.2, 0.4, 0.7]) if ties else 0.0
    textbook = k % 2 == 0
    a = rng.randint(2, 6)
    return sample_smti(a, a if textbook else rng.randint(2, 6), tie_prob=p,
                       truncate=not textbook, seed=seed, id=f"random-sm-{k}")


def _properties() -> dict[str, Property]:
    from ..pipeline.counterexample import existence_property
    out = {}
    for notion, word in (("strong", "strongly"), ("super", "super")):
        question = "strongly_stable" if notion == "strong" else "super_stable"

        def synthesize(dims, complete: bool, seconds: float, notion=notion) -> dict:
            from ..encodings.stable_matching_synthesis import synthesize_smti
            return synthesize_smti(*dims, notion, complete=complete, time_limit=seconds)
        name = f"{word}-stable-exists"
        out[name] = existence_property(
            name, "stable_matching",
            f"a {word}{'-' if notion == 'super' else ' '}stable matching exists (two-sided "
            f"markets with ties and incomplete lists)", question, SEARCH[notion],
            synthesize=synthesize)
    return out


DOMAIN = Domain(
    spec=SPEC,
    questions={**{name: _question(name, notion) for name, notion in QUESTIONS.items()},
               **TWO_SIDED_QUESTIONS},
    default_questions=lambda market: ["super_stable", "strongly_stable", "weakly_stable"],
    classify=classify,
    shrinker=two_sided_shrinker(("A", "B")),
    space=_smti_space(),
    peers=PeerAdapter("matching", _peer_sample, blocking_pairs, _optimum, _input_notes,
                      lambda market: market.pa),
    properties=_properties,
)
