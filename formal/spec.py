"""What a domain means and what counts as proof there, declared once per domain.

A :class:`DomainSpec` binds a domain's instance parser, its questions (name, verdict words,
parameters) and its certificate types, each with exactly one check function. The trusted
checker (:mod:`prefcert.formal.checker`) dispatches on a certificate's ``type`` through it;
the application adds engines per question on top (``prefcert.domains``); the CLI, the JSON
Schema of the formats, the docs and the tests enumerate the same specs.

A check function has the signature ``check(model, question, params, verdict, solution,
certificate) -> None`` and raises :class:`~prefcert.formal.errors.CertificateError` naming
the failing step.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import InstanceError

Check = Callable[[Any, str, Any, str, Any, dict], None]


@dataclass(frozen=True)
class QuestionSpec:
    """One question: its ``name``, the ``verdicts`` a label may carry, a one-line ``doc``
    and, for questions written as JSON objects, ``params``: field -> type word (``agent``,
    ``item``, ``items``, ``item_pair``, ``bundles``, ``int``, ``rule``, …), each
    optional when the word ends with ``?``."""

    name: str
    verdicts: tuple[str, ...]
    doc: str
    params: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CertificateType:
    """A certificate type: its ``check`` function and ``proves``: question -> the verdicts
    it can prove (or, for a refutation of a candidate outcome, ``("incorrect",)``)."""

    name: str
    check: Check
    proves: Mapping[str, tuple[str, ...]]

    @property
    def doc(self) -> str:
        return (self.check.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")


@dataclass(frozen=True)
class DomainSpec:
    """A domain's meaning. ``parse(data) -> model`` raises InstanceError on bad input;
    ``resolve(asked) -> (name, params)`` reads a question as written (default: names
    only); ``validate(model, name, params)`` rejects parameters the model does not know;
    ``schema`` is the JSON Schema of an instance. Certificate types are added with the
    :meth:`certificate` decorator."""

    name: str
    parse: Callable[[dict], Any]
    questions: Mapping[str, QuestionSpec]
    schema: Mapping[str, Any]
    resolve: Callable[[Any], tuple[str, Any]] | None = None
    validate: Callable[[Any, str, Any], None] | None = None
    certificates: dict[str, CertificateType] = field(default_factory=dict)

    def certificate(self, name: str, proves: Mapping[str, tuple[str, ...] | str]):
        """Register the decorated function as the one check of certificate type ``name``.

        ``proves``: question -> verdict word(s) the type can prove."""
        table = {q: (v,) if isinstance(v, str) else tuple(v) for q, v in proves.items()}
        unknown = set(table) - set(self.questions)
        if unknown:
            raise ValueError(f"{self.name}: certificate {name!r} proves unknown questions "
                             f"{sorted(unknown)}")

        def register(fn: Check) -> Check:
            if name in self.certificates:
                raise ValueError(f"{self.name}: certificate type {name!r} registered twice")
            self.certificates[name] = CertificateType(name, fn, table)
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
        return name, params


# ---------------------------------------------------------------- JSON Schema building blocks

#: A preference list of the formats: names best first, a nested list for a tie group.
PREFERENCE_LIST: dict = {"type": "array", "items": {"anyOf": [
    {"type": "string"}, {"type": "array", "minItems": 1, "items": {"type": "string"}}]}}


def instance_schema(domain: str, properties: Mapping[str, Any], required: list[str],
                    questions: Mapping[str, Any] | None = None) -> dict:
    """The JSON Schema (draft 2020-12) of an instance of ``domain``: the common envelope
    (``id``, ``domain``, optional ``questions`` whose items follow ``questions``) plus the
    domain's own ``properties``, of which ``required`` must be present."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"prefcert {domain} instance",
        "type": "object",
        "required": ["domain", *required],
        "properties": {
            "id": {"type": "string", "minLength": 1},
            "domain": {"const": domain},
            "questions": {"type": "array", "items": questions or {"type": "string"}},
            **properties,
        },
    }
