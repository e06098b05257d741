"""The types of the public API, in one place: what the functions of :mod:`prefcert` take
and return.

They are for type checkers and editors: at run time a :class:`Label` is the plain ``dict``
of the JSON label, an alias is the type it names. A variable holding preference lists with
ties is best annotated (``A-agents: Prefs = {"m1": [["w1", "w2"]], "m2": ["w1"]}``): mypy
infers ``dict[str, object]`` for mixed lists, which no precise type accepts. The classes (``Label``, ``AuditResult``,
``Classification`` …) are re-exported as ``prefcert.<name>``; the aliases are imported from
here (``from prefcert.api.types import Prefs, Matching, Certificate``).

Inputs
    ``Prefs`` (agent -> preference list, best first, a nested list a tie group),
    ``Profile`` (voter -> a weak order or a partial-order object), ``Ballot``,
    ``InstanceLike`` (an :class:`~prefcert.formal.instances.Instance` or its JSON object),
    ``Question`` (a name or a question object), and the word sets ``Notion``,
    ``Semantics``, ``CrossCheck``, ``Unit``, ``Judgments``, ``JsonMode``, ``ParseMode``, ``Framing``,
``Reading``.
Outputs
    ``Matching`` (agent -> partner), ``Certificate`` (a JSON object with a ``type``),
    ``Label`` (the fields of docs/architecture.md, "Formats"; ``CrossCheckRecord`` its
    ``cross_check``), ``Verdict`` (every verdict
    word a label can carry), ``AuditResult``, ``Classification``, ``Manipulation``,
    ``CoalitionalManipulation``, ``Repair`` / ``CertifiedRepair``, ``DatasetEntry``.

Annotations here are evaluated (no ``from __future__ import annotations``), so that
``Label.__required_keys__`` and ``__optional_keys__`` are right at run time too.
"""
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

from ..formal.instances import Instance

# ----------------------------------------------------------------------------- inputs

#: One preference list, best first: an entry is an agent, or a tie group (a list of them).
PreferenceList: TypeAlias = Sequence[str | Sequence[str]]
#: Preference lists by agent: agent -> list best first, a nested list being a tie group.
Prefs: TypeAlias = Mapping[str, PreferenceList]
#: A voter's datum in a ``preference`` profile: a weak order (list best first) or an object
#: (``{"edges": [[a, b], ...]}``, ``{"choices": ...}``, an optional ``"count"``).
Profile: TypeAlias = Mapping[str, PreferenceList | Mapping[str, Any]]
#: An election ballot: a ranking (best first, a nested list a tie) or an object
#: ``{"ranking": [...], "count": k}`` / ``{"approve": [...]}``.
Ballot: TypeAlias = PreferenceList | Mapping[str, Any]
#: An instance as read by :func:`prefcert.read`, or its JSON object (with ``domain``).
InstanceLike: TypeAlias = Instance | Mapping[str, Any]
#: A question: its name (``"super_stable"``) or an object (``{"type": "compare", ...}``).
Question: TypeAlias = str | Mapping[str, Any]

Notion: TypeAlias = Literal["weak", "strong", "super"]
Semantics: TypeAlias = Literal["unknown", "truncated"]
Proposing: TypeAlias = Literal["residents", "hospitals"]
Unit: TypeAlias = Literal["cell", "count", "completion"]
Judgments: TypeAlias = Literal["majority", "choices"]
JsonMode: TypeAlias = Literal["fenced", "bare", "embedded"]
ParseMode: TypeAlias = Literal["lenient", "strict"]
Framing: TypeAlias = Literal["sincere", "strategic", "civic", "expert"]
Reading: TypeAlias = Literal["certified", "best_of_k"]
#: When a label runs its cross-check engines (:mod:`prefcert.formal.budget`).
CrossCheck: TypeAlias = Literal["always", "budget", "never"]

# ----------------------------------------------------------------------------- outputs

#: A matching or an allocation: agent -> partner (house, object, hospital).
Matching: TypeAlias = dict[str, str]
#: A proof: a JSON object whose ``type`` names its one check function in the checker.
Certificate: TypeAlias = dict[str, Any]

#: Every verdict word of a label (docs/architecture.md, "Formats"; the registry's
#: questions use no other, which the suite checks).
Verdict: TypeAlias = Literal[
    "exists", "none", "optimal", "bounded", "true", "false", "determined", "undetermined",
    "manipulable", "not_manipulable", "act", "ask_preference", "ask_objective", "relax"]


class EngineRun(TypedDict):
    """One engine's answer in a label: its name, verdict word (or ``unknown``), seconds."""

    engine: str
    verdict: str
    seconds: float


class CrossCheckRecord(TypedDict):
    """The cross-check engines a label did not run (present only when it skipped one):
    their names, in order, and why — ``budget`` (a large instance outside the sample,
    :mod:`prefcert.formal.budget`) or ``never`` (``cross_check="never"``)."""

    skipped: list[str]
    reason: Literal["budget", "never"]


class Source(TypedDict):
    """Where a label's instance was read: its file and 1-based line (None for a whole file
    or an instance given in memory, whose file is ``<memory>``)."""

    file: str
    line: int | None


class Label(TypedDict):
    """A certified label (one JSON line of ``prefcert label``).

    ``question`` is the question as asked; ``solution`` depends on it (a matching, a
    value, None …); ``certificate`` is the proof, typed by its ``type``; ``checked`` is
    False only for a label resting on engine agreement. ``semantics`` (preference data)
    and ``conventions`` (the readings the answer depends on) are present when they apply,
    ``cross_check`` when a cross-check engine was skipped.
    """

    id: str
    domain: str
    question: str | dict[str, Any]
    verdict: Verdict
    solution: Any
    certificate: Certificate
    engines: list[EngineRun]
    cross_check: NotRequired[CrossCheckRecord]
    checked: bool
    source: Source
    instance_sha256: str
    semantics: NotRequired[str]
    conventions: NotRequired[dict[str, str]]


class Proof(TypedDict):
    """The certified truth an audit verdict rests on, as verified by the checker."""

    verdict: str
    solution: NotRequired[Any]
    certificate: Certificate


class AuditResult(TypedDict):
    """The judgment of a third party's answer (:func:`prefcert.audit`).

    Every audit has ``id``, ``question``, ``verdict``, ``violations``, ``feedback``,
    ``checked`` and ``parsed`` (how the answer was read: ``{"kind", "value", "rule"}``, the
    rules of :mod:`prefcert.bench.answers`); ``proof`` is there for ``correct`` /
    ``incorrect``. The other keys belong to
    some domains: ``truth`` (the certified answer: a verdict word, or an object), the
    welfare gap (``value``, ``optimum``, ``gap``), the core's ``blocking_coalitions`` and
    whether the search was ``complete``, a decision's ``decision_correct``, and a
    manipulation report's ``valid`` … ``gap``, ``certificate`` (the truth's proof type).
    """

    id: str
    question: str | dict[str, Any]
    verdict: Literal["correct", "incorrect", "unparseable"]
    violations: list[Any]
    feedback: str
    checked: bool
    parsed: NotRequired[dict[str, Any]]
    proof: NotRequired[Proof]
    truth: NotRequired[Any]
    value: NotRequired[Any]
    optimum: NotRequired[Any]
    gap: NotRequired[Any]
    blocking_coalitions: NotRequired[int]
    complete: NotRequired[bool]
    decision_correct: NotRequired[bool]
    valid: NotRequired[bool]
    ballot: NotRequired[list[str]]
    outcome: NotRequired[str]
    profitable: NotRequired[bool]
    optimal: NotRequired[bool]
    gain: NotRequired[int]
    sincere_winner: NotRequired[str]
    best_winner: NotRequired[str]
    certificate: NotRequired[str]


class NotionResult(TypedDict):
    """Whether a candidate satisfies a notion, with the certificate (a refutation when it
    fails; a proof, or None, when it holds)."""

    holds: bool
    certificate: Certificate | None


class Classification(TypedDict):
    """One candidate of :func:`prefcert.classify`: ``satisfies``, ``fails`` and
    ``notions`` (notion -> :class:`NotionResult`), or ``invalid`` (the reason it is no
    outcome of the instance)."""

    candidate: int
    satisfies: NotRequired[list[str]]
    fails: NotRequired[list[str]]
    notions: NotRequired[dict[str, NotionResult]]
    invalid: NotRequired[str]


class Manipulation(TypedDict):
    """:func:`prefcert.single_voter_manipulation`: the verdict, w₀, w*, a report electing
    w* (None when sincere voting is best), the true ranks gained, with ``counts=True``
    the counts of the ballot space (``reports``, ``profitable``, ``optimal``,
    ``outcomes``) and the certificate."""

    verdict: Literal["manipulable", "not_manipulable"]
    sincere_winner: str
    best_winner: str
    ballot: list[str] | None
    gain: int
    reports: NotRequired[int]
    profitable: NotRequired[int]
    optimal: NotRequired[int]
    outcomes: NotRequired[dict[str, int]]
    certificate: Certificate


class CoalitionalManipulation(TypedDict):
    """:func:`prefcert.coalitional_manipulation`: the verdict, the manipulators' reports
    when they exist, the certificate and whether the checker verified it."""

    verdict: Literal["exists", "none"]
    ballots: NotRequired[list[list[str]]]
    certificate: Certificate
    checked: bool


class Repair(TypedDict):
    """A minimum L1 / L2 repair: ``verdict``, the ``utilities`` attaining it and its
    ``cost`` (``optimal``) or its ``lower`` / ``upper`` bounds (``bounded``), exact."""

    verdict: Literal["optimal", "bounded"]
    utilities: dict[str, Fraction]
    cost: NotRequired[Fraction]
    lower: NotRequired[Fraction]
    upper: NotRequired[Fraction]


class CertifiedRepair(Repair):
    """A :class:`Repair` with the dual certificate the checker verified."""

    certificate: Certificate


class DatasetEntry(TypedDict):
    """One entry of :func:`prefcert.create_dataset`: the prompt, the gold answer and the
    metadata (the prompt record, its certified ``labels`` and its ``instances``)."""

    question: str
    answer: str
    metadata: dict[str, Any]
