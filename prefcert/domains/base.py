"""The shapes every domain plugs into the pipeline: outcomes, questions, domains, hooks.

An *engine* is a function ``engine(model, params, *, time_limit, seed) -> Outcome``.
A *question* names its engines, how their answers become one verdict with a certificate
(``decide``), and how a third-party answer is judged (``audit``). What a question means and
how its certificates are checked is declared in the domain's
:class:`~prefcert.formal.spec.DomainSpec` (``prefcert.formal.checker.<name>``).

A domain also carries the **hooks** the tools built on the pipeline use, so no tool keeps
an if-chain on domain names: its :class:`Shrinker` (the minimiser of disagreement reports
and counterexamples), its enumerable :class:`Space` (minimal counterexamples), its
:class:`PeerAdapter` (``prefcert audit-library``) and its counterexample
:class:`Property` table. A domain without one says so with :class:`Absent` and a reason.
"""
from __future__ import annotations

import time
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..formal.checker import AGREEMENT
from ..formal.errors import CertificateError, Disagreement, Undecided
from ..formal.outcome import UNKNOWN, Outcome
from ..formal.spec import DomainSpec


@dataclass(frozen=True)
class EngineAnswer:
    engine: str
    outcome: Outcome
    seconds: float

    def __init__(self, engine: str, outcome: Outcome, seconds: float) -> None:
        # the instance dict written at once: the frozen dataclass's generated __init__
        # sets each field through object.__setattr__, several times slower (one answer
        # per engine per label); assignment stays refused
        d = self.__dict__
        d["engine"], d["outcome"], d["seconds"] = engine, outcome, seconds

    def to_json(self) -> dict:
        # the seconds to 0.1 ms: k / 10⁴ for the nearest k (half up), the double that
        # round(seconds, 4) gives but at a boundary, without its exact decimal rounding
        # (the costliest step of a small label's record: a timing, never compared)
        return {"engine": self.engine, "verdict": self.outcome.verdict,
                "seconds": int(self.seconds * 10000 + 0.5) / 10000}


@dataclass(frozen=True)
class Decision:
    """The combined answer. ``weak``: set when the certificate is only an agreement record
    too thin to stand even as an unverified label (the reason); the pipeline then asks the
    question's ``certify`` for a proof and, without one, gives no label."""

    verdict: str
    solution: Any
    certificate: dict
    weak: str | None = None

    def __init__(self, verdict: str, solution: Any, certificate: dict,
                 weak: str | None = None) -> None:
        d = self.__dict__                  # (as EngineAnswer: one per label)
        d["verdict"], d["solution"], d["certificate"], d["weak"] = \
            verdict, solution, certificate, weak


Engine = Callable[..., Outcome]
Check = Callable[[str, Any, dict], None]  # (verdict, solution, certificate) -> None or raise


@dataclass(frozen=True)
class Question:
    """One question of a domain.

    ``engines``: name -> engine, in order of preference (the first that answers gives the
    label's solution). ``auto``: model -> engine names run by default (size-dependent).
    ``decide``: (answers, check) -> Decision, raising Disagreement / Undecided.
    ``audit``: (model, params, parsed answer) -> dict with verdict/violations/feedback and
    ``proof``: ``{"verdict", "solution", "certificate"}`` for the checker (see
    :func:`prefcert.pipeline.jobs.audit`).
    ``certify``: (model, params, verdict, solution, time_limit) -> a certificate of that
    answer, or None; asked when the engines that ran agreed without a proof (e.g. with
    ``--engines`` leaving out the certifying oracle), so the label still rests on a proof.
    ``reads_text``: the audit also reads answers written as text (a ballot ``Final
    ballot: B > A > C``, a decision object after prose) with the benchmark's reader, when
    the answer holds no JSON value.
    """

    name: str
    engines: Mapping[str, Engine]
    auto: Callable[[Any], Sequence[str]]
    decide: Callable[[Sequence[EngineAnswer], Check], Decision]
    audit: Callable[[Any, Any, Any], dict] | None = None
    certify: Callable[..., dict | None] | None = None
    reads_text: bool = False


@dataclass(frozen=True)
class Absent:
    """A hook a domain does not provide, and why (shown where the hook would be used)."""

    reason: str


#: A preference list of an instance dict: (path of the list inside the dict, the list,
#: the number of agents holding it — a ballot's ``count``).
ListRef = tuple[tuple, list, int]


def _no_reductions(instance: dict) -> Iterator[dict]:
    return iter(())


@dataclass(frozen=True)
class Shrinker:
    """How :func:`prefcert.pipeline.minimize.shrink` reduces an instance dict, and its size.

    ``lists(instance)``: every preference list (:data:`ListRef`); its entries are the
    removable list entries and its tie groups the splittable ties. ``agents(instance)``:
    the removable agents as ``(kind, name)``; ``keep_agents(instance, keep)``: a copy with
    only those agents (the others leave every list). ``reductions(instance)``: the
    domain's other single steps (e.g. one post fewer at a hospital). ``count(instance)``:
    the number of agents of the size measure (both sides of a market, the voters of a
    profile, an election's voters with its manipulator).
    """

    lists: Callable[[dict], list[ListRef]]
    agents: Callable[[dict], list[tuple[str, str]]]
    keep_agents: Callable[[dict, list[tuple[str, str]]], dict]
    count: Callable[[dict], int]
    reductions: Callable[[dict], Iterator[dict]] = _no_reductions


@dataclass(frozen=True)
class Space:
    """The enumerable instance space of a domain (minimal counterexamples).

    ``splits(agents, max_items)``: the dimensions of the sub-spaces with that many agents
    (each side's size for a market; voters and candidates for a profile). ``size(dims,
    complete)``: raw instances of a split before isomorphism reduction. ``enumerate(dims,
    complete, options)``: one instance per isomorphism class; ``sample(dims, complete, rng,
    options)``: one uniformly random raw instance. ``contains(model, complete)``: a parsed
    instance lies inside the searched space. ``name``: the space's name in reports.
    """

    name: str
    splits: Callable[[int, int], list[tuple[int, ...]]]
    size: Callable[[tuple[int, ...], bool], int]
    enumerate: Callable[[tuple[int, ...], bool, Mapping[str, Any]], Iterator[dict]]
    sample: Callable[[tuple[int, ...], bool, random.Random, Mapping[str, Any]], dict]
    contains: Callable[[Any, bool], bool] = lambda model, complete: True


@dataclass(frozen=True)
class PeerAdapter:
    """What ``prefcert audit-library`` needs of a domain to judge a peer's answer.

    ``judge``: the judging procedure of :mod:`prefcert.pipeline.peers` (``matching``: a
    peer's matching against the checker's blocking-pair scan; ``winner``: a peer's winner
    set against the certified winner label). For ``matching``: ``blocking_pairs(model,
    matching, notion)`` (the checker's scan; CertificateError for no matching);
    ``optimum(model, side)`` (the side-optimal stable matching of strict lists);
    ``input_notes(model)`` (counts of what leaves the textbook input class);
    ``ranks(model)``: agent -> rank table of the proposing side (A, or residents).
    ``sample(rng, seed, k, ties)``: the ``k``-th random small instance of ``--random`` (its
    sizes and shapes drawn from ``rng``, its content from ``seed``; ``ties``: lists may tie).
    """

    judge: str
    sample: Callable[[random.Random, int, int, bool], dict]
    blocking_pairs: Callable[[Any, dict, str], list] | None = None
    optimum: Callable[[Any, str], dict] | None = None
    input_notes: Callable[[Any], dict] | None = None
    ranks: Callable[[Any], Mapping[str, Any]] | None = None


@dataclass(frozen=True)
class Property:
    """A property of instances of one domain (for minimal counterexamples).

    ``holds(instance) -> bool`` decides it (fast, engine-based for the built-ins);
    ``certify(instance) -> dict`` returns checker-verified evidence that it fails (or None
    for user properties); ``synthesize(dims, complete, seconds) -> dict`` finds a least
    failing instance of a split with CP-SAT (see :func:`prefcert.encodings.
    stable_matching_synthesis.synthesize_smti`), when available.
    """

    name: str
    domain: str
    doc: str
    holds: Callable[[dict], bool]
    certify: Callable[[dict], dict] | None = None
    synthesize: Callable[..., dict] | None = None
    min_agents: int = 2
    options: dict = field(default_factory=dict)


H = TypeVar("H")


def provided(hook: H | Absent) -> H | None:
    """The hook, or None when the domain declares it absent."""
    return None if isinstance(hook, Absent) else hook


@dataclass(frozen=True)
class Domain:
    """A domain's engines on top of its meaning.

    ``spec``: the trusted :class:`~prefcert.formal.spec.DomainSpec` (parser, questions,
    certificate types and checks); ``questions``: name -> :class:`Question` with its
    engines, one per question of the spec; ``default_questions(model)`` lists the questions
    asked when an instance gives none; ``classify(model, candidate)``, for domains with
    outcomes, returns notion -> ``{"holds": bool, "certificate": dict | None}`` (a proof
    when it holds, a checker-verified refutation when it fails) and raises
    CertificateError for a candidate that is not an outcome. ``shrinker``, ``space``,
    ``peers`` and ``properties`` (a function building the table on first use) are the
    hooks of the module docstring; each is given or
    declared :class:`Absent` (no default: a new domain decides each one).
    """

    spec: DomainSpec
    questions: Mapping[str, Question]
    default_questions: Callable[[Any], Sequence[Any]]
    classify: Callable[[Any, Any], dict] | None = None
    shrinker: Shrinker | Absent = field(kw_only=True)
    space: Space | Absent = field(kw_only=True)
    peers: PeerAdapter | Absent = field(kw_only=True)
    properties: Callable[[], Mapping[str, Property]] | Absent = field(kw_only=True)

    def __post_init__(self):
        if set(self.questions) != set(self.spec.questions):
            raise ValueError(f"{self.spec.name}: engines for {sorted(self.questions)} but "
                             f"questions {sorted(self.spec.questions)}")

    @property
    def name(self) -> str:
        return self.spec.name

    def parse(self, data: dict) -> Any:
        return self.spec.parse(data)

    def question(self, q: Any) -> tuple[Question, Any]:
        """(Question, params) of a question as written; InstanceError if unknown."""
        name, params = self.spec.question(q)
        return self.questions[name], params

    def validate(self, model: Any, name: str, params: Any) -> None:
        if self.spec.validate is not None:
            self.spec.validate(model, name, params)


def run_engine(name: str, engine: Engine, model: Any, params: Any, *, time_limit: float,
               seed: int) -> EngineAnswer:
    """Run one engine and time it (seconds, wall clock)."""
    t0 = time.perf_counter()
    out = engine(model, params, time_limit=time_limit, seed=seed)
    return EngineAnswer(name, out, time.perf_counter() - t0)


def checker_verdict(check: Check, answer: EngineAnswer) -> str:
    """The checker's word on one engine's answer, for reports."""
    o = answer.outcome
    if o.verdict == UNKNOWN:
        return "not checked (unknown)"
    if o.solution is None and o.certificate is None:
        return "nothing to check"
    try:
        check(o.verdict, o.solution, o.certificate or {})
        return "accepted"
    except CertificateError as e:
        return f"rejected: {e}"


def gave_up(answers: Sequence[EngineAnswer]) -> str:
    """The reason of the :class:`Undecided` raised when every engine answered ``unknown``.

    Parameters
    ----------
    answers : sequence of EngineAnswer
        Every engine's answer (all ``unknown``).

    Returns
    -------
    str
        Each engine's own reason (its ``stats["reason"]``; none given reads as its time
        limit) and whether a larger ``--time-limit`` can change the outcome: only when
        some engine stopped at its time limit.
    """
    whys = [(a.engine, str(a.outcome.stats.get("reason") or "time limit")) for a in answers]
    listed = "; ".join(f"{engine}: {why}" for engine, why in whys)
    timed = [engine for engine, why in whys if "time limit" in why]
    if not whys:
        return "no engine ran"
    if len(timed) == len(whys):
        return f"every engine reached --time-limit ({listed}); a rerun with a larger " \
               f"--time-limit may add it"
    if timed:
        return f"no engine decides it ({listed}); a larger --time-limit may help " \
               f"{', '.join(timed)}"
    return f"no engine decides it ({listed}); a larger --time-limit does not change that"


def disagreement(reason: str, answers: Sequence[EngineAnswer], check: Check) -> Disagreement:
    return Disagreement({
        "reason": reason,
        "answers": [dict(a.to_json(), solution=a.outcome.solution,
                         certificate=a.outcome.certificate,
                         checker=checker_verdict(check, a)) for a in answers],
    })


def decide_existence(answers: Sequence[EngineAnswer], check: Check, *,
                     none_quorum: Sequence[str] = ()) -> Decision:
    """Combine existence answers (``exists`` / ``none``) into one decision.

    - Decided engines must agree, else :class:`Disagreement`.
    - ``exists``: every engine's witness must pass the checker; the first one is the
      label's solution and certificate.
    - ``none``: a refutation certificate from any engine is verified by the checker;
      without one, every engine of ``none_quorum`` that ran must have answered ``none``
      and at least three engines must have: the decision then carries an
      :func:`agreement` record, which the checker never accepts (the label is unverified
      unless the question's ``certify`` supplies a proof).
    Raises :class:`Undecided` when every engine said ``unknown``.
    """
    decided = [a for a in answers if a.outcome.verdict != UNKNOWN]
    if not decided:
        raise Undecided(gave_up(answers))
    verdicts = {a.outcome.verdict for a in decided}
    if len(verdicts) > 1:
        raise disagreement("engines disagree on the verdict", answers, check)
    verdict = verdicts.pop()
    if verdict == "exists":
        for a in decided:
            try:
                check(verdict, a.outcome.solution, a.outcome.certificate or {})
            except CertificateError as e:
                raise disagreement(f"witness of {a.engine} rejected: {e}", answers, check)
        first = decided[0].outcome
        return Decision(verdict, first.solution, first.certificate or {})
    proofs = [a for a in decided if a.outcome.certificate]
    for a in proofs:
        try:
            check(verdict, None, a.outcome.certificate)
        except CertificateError as e:
            raise disagreement(f"refutation of {a.engine} rejected: {e}", answers, check)
    if proofs:
        return Decision(verdict, None, proofs[0].outcome.certificate)
    names = [a.engine for a in decided]
    missing = [e for e in none_quorum if e not in names]
    weak = None
    if missing or len(names) < 3:
        weak = (f"'{verdict}' without a refutation needs the agreement of "
                f"{', '.join(none_quorum)}; missing: {', '.join(missing) or 'a third engine'}")
    return Decision(verdict, None, agreement(verdict, names), weak)


def claims_none(answer: Any) -> bool:
    """Does an audited answer claim that no outcome exists? The verdict word ``none`` (as
    a JSON string or bare, case aside) or JSON ``null``; ``{}`` is the empty outcome, never
    this claim."""
    return answer is None or isinstance(answer, str) and answer.strip().lower() == "none"


def agreement(verdict: str, engines: Sequence[str], **extra: Any) -> dict:
    """The record of engines that agreed on ``verdict`` without a proof (never a
    certificate: the checker refuses it)."""
    return {"type": AGREEMENT, "verdict": verdict, "engines": list(engines), **extra}


def is_agreement(certificate: Any) -> bool:
    return isinstance(certificate, dict) and certificate.get("type") == AGREEMENT
