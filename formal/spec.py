"""What a domain means and what counts as proof there, declared once per domain.

A :class:`DomainSpec` binds a domain's instance parser, its questions (name, verdict words,
parameters) and its certificate types, each with exactly one check function. The trusted
checker (:mod:`prefcert.formal.checker`) dispatches on a certificate's ``type`` through it;
the application adds engines per question on top (``prefcert.domains``); the CLI, the JSON
Schema of the formats, the docs and the tests enumerate the same specs.

A check function has the signature ``check(model, question, params, verdict, solution,
certificate) -> None`` and raises :class:`~prefcert.formal.errors.CertificateError` naming
the failing step. Each certificate type declares the fields its check reads (``keys``), so
the checker refuses a field it does not know; each (question, verdict) declares the exact
shape of a label's solution (:class:`Solution`), so the checker refuses a solution key it
does not verify. A check whose logic depends on the question registers it per question
(:class:`ByQuestion`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import CertificateError, InstanceError

Check = Callable[[Any, str, Any, str, Any, dict], None]

#: The verdict of a refutation of a candidate outcome (audits, classification); its
#: solution is the refuted candidate, judged whole by the refutation's check.
INCORRECT = "incorrect"


@dataclass(frozen=True)
class Solution:
    """The exact shape of a label's ``solution`` for one (question, verdict), declared
    beside the question (:attr:`QuestionSpec.solutions`) and enforced by the checker
    before any certificate check runs (:meth:`check_shape`). ``kind``:

    - ``"null"`` (:data:`NULL`): no solution — the verdict says all;
    - ``"outcome"`` (:func:`outcome`): the outcome itself (a matching, an allocation, an
      order), which every certificate proving the verdict validates whole, every key and
      value;
    - ``"object"`` (:func:`fields`): an object with exactly ``keys``, plus those of
      ``optional`` that the certificate type verifies (:attr:`CertificateType.verifies`),
      each value verified by the certificate's check: an optional key is required under a
      certificate type that verifies it and refused under any other;
    - ``"candidate"``: the refuted candidate of an ``incorrect`` verdict, any JSON value,
      judged whole by the refutation.

    ``given``: parameter -> the shape when the question gives that parameter (a value other
    than null). ``doc``: what the outcome is (for ``"outcome"``)."""

    kind: str
    keys: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    given: Mapping[str, Solution] = field(default_factory=dict)
    doc: str = ""
    #: the exact key set of an ``"object"`` solution per certificate type's ``verifies``
    #: (``keys`` and the optional keys it verifies), made on first use
    _exact: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    def check_shape(self, solution: Any, verifies: frozenset = frozenset()) -> None:
        """Refuse a solution of another shape: not null for ``"null"``; for ``"object"``
        not an object, a key missing (an optional one the certificate verifies,
        ``verifies``, included), a key not declared, or an optional key the certificate
        does not verify. CertificateError naming the key."""
        if self.kind == "null" and solution is not None:
            raise CertificateError(f"this verdict has no solution (null), got {solution!r:.60}")
        if self.kind != "object":
            return
        if not isinstance(solution, dict):
            raise CertificateError(f"the solution must be an object with "
                                   f"{', '.join(self.keys)}, got {solution!r:.60}")
        exact = self._exact.get(verifies)
        if exact is None:
            exact = self._exact[verifies] = frozenset(self.keys).union(
                k for k in self.optional if k in verifies)
        if solution.keys() == exact:     # no key missing, unknown or unverified: the
            return                       # test below passes (one set comparison)
        missing = [k for k in (*self.keys, *(k for k in self.optional if k in verifies))
                   if k not in solution]
        if missing:
            raise CertificateError(f"the solution has no {missing[0]!r}")
        for k in solution:
            if k in self.keys:
                continue
            if k not in self.optional:
                raise CertificateError(f"the solution has an unknown key {k!r:.40} (its keys: "
                                       f"{', '.join(self.keys + self.optional)})")
            if k not in verifies:
                raise CertificateError(f"the solution's {k!r} is not verified by this "
                                       f"certificate type: refused")

    def describe(self) -> str:
        """One line for the docs: ``null``, the outcome, or the keys."""
        if self.kind == "null":
            text = "null"
        elif self.kind == "object":
            text = "{" + ", ".join(f"`{k}`" for k in self.keys) + "}"
            if self.optional:
                text += " + {" + ", ".join(f"`{k}`" for k in self.optional) + \
                    "} under a certificate that verifies them"
        else:
            text = self.doc or self.kind
        for p, s in self.given.items():
            text += f" (with `{p}`: {s.describe()})"
        return text


NULL = Solution("null")
CANDIDATE = Solution("candidate", doc="the refuted candidate")


def outcome(doc: str) -> Solution:
    """A solution that is the outcome itself (``doc``: what it is), validated whole by every
    certificate proving the verdict."""
    return Solution("outcome", doc=doc)


def fields(*keys: str, optional: tuple[str, ...] = (),
           given: Mapping[str, Solution] | None = None) -> Solution:
    """A solution object with exactly ``keys`` (and those of ``optional`` the certificate
    verifies); ``given``: the shape when the question gives a parameter."""
    return Solution("object", tuple(keys), tuple(optional), dict(given or {}))


@dataclass(frozen=True)
class QuestionSpec:
    """One question: its ``name``, the ``verdicts`` a label may carry, a one-line ``doc``
    and, for questions written as JSON objects, ``params``: field -> type word (``agent``,
    ``item``, ``items``, ``item_pair``, ``bundles``, ``int``, ``rule``, …; see
    :data:`PARAM_TYPES`), each optional when the word ends with ``?``. ``conventions``:
    the names of the domain's :class:`Convention` s its answer depends on (each label
    records their values). ``solutions``: verdict -> the exact :class:`Solution` of a
    label with that verdict, one per verdict. ``partial``: the verdicts that only bound
    the answer (``bounded``): an engine may give one beside a label of another verdict
    (its engines record does not contradict the label)."""

    name: str
    verdicts: tuple[str, ...]
    doc: str
    params: Mapping[str, str] = field(default_factory=dict)
    conventions: tuple[str, ...] = ()
    solutions: Mapping[str, Solution] = field(default_factory=dict)
    partial: tuple[str, ...] = ()

    def solution(self, verdict: str, params: Any = None) -> Solution:
        """The solution shape of ``verdict`` (``incorrect``: the refuted candidate), as the
        question's ``params`` select it. CertificateError for a verdict it lacks."""
        if verdict == INCORRECT:
            return CANDIDATE
        shape = self.solutions.get(verdict) if isinstance(verdict, str) else None
        if shape is None:
            raise CertificateError(f"{verdict!r:.40} is not a verdict of {self.name} "
                                   f"(its verdicts: {', '.join(self.verdicts)})")
        given = params if isinstance(params, dict) else {}
        for p, alt in shape.given.items():
            if given.get(p) is not None:
                return alt
        return shape


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_strs(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


#: type word -> (test, description) of a question field (:attr:`QuestionSpec.params`).
PARAM_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "agent": (_is_str, "an agent name (a string)"),
    "item": (_is_str, "an item name (a string)"),
    "items": (lambda v: _is_strs(v) and len(v) > 0, "a non-empty list of item names"),
    "item_pair": (lambda v: _is_strs(v) and len(v) == 2, "a list of two item names"),
    "bundles": (lambda v: isinstance(v, list) and len(v) == 2 and all(map(_is_strs, v)),
                "two lists of item names [[...], [...]]"),
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    "rule": (_is_str, "a rule name (a string)"),
}


def check_params(question: str, words: Mapping[str, str], fields: Mapping[str, Any]) -> None:
    """Check a question's fields against its type words before anything reads them:
    every required field present, no unknown field, every value of its type (a type word
    not in :data:`PARAM_TYPES` is left to the domain). Raises InstanceError naming the
    field and value."""
    for k, word in words.items():
        if k not in fields and not word.endswith("?"):
            raise InstanceError(f"question {question!r} needs {k!r}", value=dict(fields))
    for k, v in fields.items():
        if k not in words:
            raise InstanceError(f"question {question!r} has no field {k!r} (its fields: "
                                f"{', '.join(words) or 'none'})", value=k)
        word = words[k]
        if v is None and word.endswith("?"):
            continue
        test, what = PARAM_TYPES.get(word.rstrip("?"), (None, ""))
        if test is not None and not test(v):
            raise InstanceError(f"question {question!r}: {k!r} must be {what}", value=v)


@dataclass(frozen=True)
class Convention:
    """A reading of a definition where the literature uses more than one. ``choices``:
    the readings, the first being the default; ``doc``: one line per choice. An instance
    picks one in ``"conventions": {name: choice}`` (the CLI's ``--convention``
    overrides it); every label whose question depends on it records the choice.
    ``record_default=False`` (conventions added after labels were published): a label
    records the choice only when it is not the default, so labels made before the
    convention existed keep their bytes.
    ``applies(model, params)``: when given, the question depends on the convention only
    where it holds (``overvote``: under IRV only)."""

    name: str
    choices: tuple[str, ...]
    doc: Mapping[str, str]
    record_default: bool = True
    applies: Callable[[Any, Any], bool] | None = None

    @property
    def default(self) -> str:
        return self.choices[0]


def read_conventions(data: Mapping[str, Any], table: Mapping[str, Convention]) -> dict[str, str]:
    """The conventions an instance chose (``data["conventions"]``), defaults filled in.
    Raises InstanceError for an unknown name or choice."""
    raw = data.get("conventions", {})
    if not isinstance(raw, dict):
        raise InstanceError("'conventions' must be an object {name: choice}", value=raw)
    for k, v in raw.items():
        if k not in table:
            raise InstanceError(f"unknown convention (known: {', '.join(table) or 'none'})",
                                value=k)
        if v not in table[k].choices:
            raise InstanceError(f"convention {k!r} must be one of "
                                f"{', '.join(table[k].choices)}", value=v)
    return {k: raw.get(k, c.default) for k, c in table.items()}


def conventions_schema(table: Mapping[str, Convention]) -> dict:
    """The JSON Schema of an instance's ``conventions`` object."""
    return {"type": "object", "additionalProperties": False,
            "properties": {k: {"enum": list(c.choices)} for k, c in table.items()}}


@dataclass(frozen=True)
class CertificateType:
    """A certificate type: its ``check`` function, ``proves``: question -> the verdicts it
    can prove (or, for a refutation of a candidate outcome, ``("incorrect",)``), ``keys``:
    the fields its check reads and verifies (the checker refuses any other, ``type``
    aside), and ``verifies``: the optional solution keys (:attr:`Solution.optional`) its
    check verifies."""

    name: str
    check: Check
    proves: Mapping[str, tuple[str, ...]]
    keys: frozenset = frozenset()
    verifies: frozenset = frozenset()

    @property
    def doc(self) -> str:
        return (self.check.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")


class ByQuestion:
    """The part of one certificate type's check that depends on the question: one function
    per question, registered with ``@table.on(question, verdicts)`` (no chain of
    ``if question == …``). ``table.proves`` is the type's ``proves`` mapping (question ->
    verdicts, in the order of registration); ``table(question)`` is the question's
    function, CertificateError for a question without one."""

    def __init__(self, certificate: str):
        self.certificate = certificate
        self.functions: dict[str, Callable] = {}
        self.proves: dict[str, tuple[str, ...]] = {}

    def on(self, question: str, verdicts: tuple[str, ...] | str):
        """Register the decorated function as the check of ``question`` (proving
        ``verdicts``)."""
        def register(fn: Callable) -> Callable:
            if question in self.functions:
                raise ValueError(f"{self.certificate}: question {question!r} registered twice")
            self.functions[question] = fn
            self.proves[question] = (verdicts,) if isinstance(verdicts, str) else tuple(verdicts)
            return fn
        return register

    def __call__(self, question: Any) -> Callable:
        fn = self.functions.get(question) if isinstance(question, str) else None
        if fn is None:
            raise CertificateError(f"certificate {self.certificate!r} has no check for "
                                   f"question {question!r:.40} (it checks: "
                                   f"{', '.join(self.functions)})")
        return fn


@dataclass(frozen=True)
class DomainSpec:
    """A domain's meaning. ``parse(data) -> model`` raises InstanceError on bad input;
    ``resolve(asked) -> (name, params)`` reads a question as written (default: names
    only); ``validate(model, name, params)`` rejects parameters the model does not know;
    ``schema`` is the JSON Schema of an instance, whose ``properties`` are every key an
    instance may carry: ``parse`` refuses any other (a misspelt ``"questons"`` is bad
    input naming the key, never ignored); ``conventions``: name ->
    :class:`Convention` (readings an instance may choose; the parsed model carries them
    as ``model.conventions``); ``rules``: the voting rules its questions take (names of
    :data:`prefcert.formal.rules.RULES`). Certificate types are added with the
    :meth:`certificate` decorator."""

    name: str
    parse: Callable[[dict], Any]
    questions: Mapping[str, QuestionSpec]
    schema: Mapping[str, Any]
    resolve: Callable[[Any], tuple[str, Any]] | None = None
    validate: Callable[[Any, str, Any], None] | None = None
    certificates: dict[str, CertificateType] = field(default_factory=dict)
    conventions: Mapping[str, Convention] = field(default_factory=dict)
    rules: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for q in self.questions.values():
            if set(q.solutions) != set(q.verdicts):
                raise ValueError(f"{self.name}: question {q.name!r} must declare one solution "
                                 f"shape per verdict ({', '.join(q.verdicts)}), not "
                                 f"{', '.join(q.solutions) or 'none'}")
        declared = frozenset(self.schema["properties"])
        parse = self.parse

        def parse_declared(data: dict) -> Any:
            unknown = [k for k in data if k not in declared] if isinstance(data, dict) else []
            if unknown:
                raise InstanceError(f"unknown key of a {self.name} instance (the keys it "
                                    f"may carry: prefcert schema {self.name})",
                                    value=sorted(map(str, unknown))[0])
            return parse(data)
        object.__setattr__(self, "parse", parse_declared)

    def certificate(self, name: str, proves: Mapping[str, tuple[str, ...] | str], *,
                    keys: tuple[str, ...] | frozenset, verifies: tuple[str, ...] = ()):
        """Register the decorated function as the one check of certificate type ``name``.

        ``proves``: question -> verdict word(s) the type can prove; ``keys``: the
        certificate fields the check reads and verifies (the checker refuses a certificate
        with any other field); ``verifies``: the optional solution keys its check
        verifies (any other optional key is refused under this type)."""
        table = {q: (v,) if isinstance(v, str) else tuple(v) for q, v in proves.items()}
        unknown = set(table) - set(self.questions)
        if unknown:
            raise ValueError(f"{self.name}: certificate {name!r} proves unknown questions "
                             f"{sorted(unknown)}")
        if "type" in keys:
            raise ValueError(f"{self.name}: certificate {name!r}: 'type' is not a field")

        def register(fn: Check) -> Check:
            if name in self.certificates:
                raise ValueError(f"{self.name}: certificate type {name!r} registered twice")
            self.certificates[name] = CertificateType(name, fn, table, frozenset(keys),
                                                      frozenset(verifies))
            return fn
        return register

    def question(self, asked: Any) -> tuple[str, Any]:
        """(name, params) of a question as written in an instance, a label or the CLI.
        Raises InstanceError for an unknown question."""
        if self.resolve is not None:
            name, params = self.resolve(asked)
        elif isinstance(asked, str):
            name, params = asked, None
        else:
            raise InstanceError(f"question of domain {self.name!r} must be a name", value=asked)
        if name not in self.questions:
            raise InstanceError(f"unknown question for domain {self.name!r} "
                                f"(known: {', '.join(sorted(self.questions))})", value=name)
        words = self.questions[name].params
        if words and isinstance(params, dict):
            check_params(name, words, params)
        return name, params

    def readings(self, model: Any, question: str, params: Any = None) -> dict[str, str]:
        """The conventions ``question``'s answer (asked with ``params``) depends on, as
        ``model`` chose them."""
        chosen = getattr(model, "conventions", None) or {}
        out = {}
        for k in self.questions[question].conventions:
            c = self.conventions[k]
            if k not in chosen or (c.applies is not None and not c.applies(model, params)):
                continue
            if c.record_default or chosen[k] != c.default:
                out[k] = chosen[k]
        return out


# ---------------------------------------------------------------- JSON Schema building blocks

#: A preference list of the formats: names best first, a nested list for a tie group.
PREFERENCE_LIST: dict = {"type": "array", "items": {"anyOf": [
    {"type": "string"}, {"type": "array", "minItems": 1, "items": {"type": "string"}}]}}
# one side of a two-sided market: agent -> its list
PREFERENCE_SIDE: dict = {"type": "object", "additionalProperties": PREFERENCE_LIST}

# The three stability questions of a two-sided market with ties (one-to-one or many-to-one).
_MATCHING = outcome("the matching")
STABILITY_QUESTIONS: dict[str, QuestionSpec] = {
    "super_stable": QuestionSpec("super_stable", ("exists", "none"),
                                 "a super-stable matching, or none exists",
                                 solutions={"exists": _MATCHING, "none": NULL}),
    "strongly_stable": QuestionSpec("strongly_stable", ("exists", "none"),
                                    "a strongly stable matching, or none exists",
                                    solutions={"exists": _MATCHING, "none": NULL}),
    "weakly_stable": QuestionSpec("weakly_stable", ("exists",),
                                  "a weakly stable matching (one always exists)",
                                  solutions={"exists": _MATCHING}),
}


def instance_schema(domain: str, properties: Mapping[str, Any], required: list[str],
                    questions: Mapping[str, Any] | None = None,
                    conventions: Mapping[str, Convention] | None = None) -> dict:
    """The JSON Schema (draft 2020-12) of an instance of ``domain``: the common envelope
    (``id``, ``domain``, optional ``questions`` whose items follow ``questions``, optional
    ``conventions`` and ``peer_failure``) plus the domain's own ``properties``, of which
    ``required`` must be present; no other key (``DomainSpec.parse`` refuses it)."""
    if conventions:
        properties = {**properties, "conventions": conventions_schema(conventions)}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"prefcert {domain} instance",
        "type": "object",
        "required": ["domain", *required],
        "properties": {
            "id": {"type": "string", "minLength": 1},
            "domain": {"const": domain},
            "questions": {"type": "array", "items": questions or {"type": "string"}},
            "peer_failure": PEER_FAILURE,
            **properties,
        },
        "additionalProperties": False,
    }


#: a peer library's known failure on an instance (the regression records of ``prefcert
#: audit-library``, instances/peer_failures/): library, expected verdict per run, source
PEER_FAILURE: dict = {"type": "object", "required": ["library", "expected"]}
