"""INTERIM glue: the preference checks of :mod:`prefcert.formal.queries` behind the registry,
until that module is split into a model and a standard-library check."""
from __future__ import annotations

from .. import queries as _m
from ..spec import DomainSpec, QuestionSpec, instance_schema

_VERDICTS = ("exists", "none", "optimal", "true", "false", "undetermined", "determined",
             "incorrect")
SPEC = DomainSpec(
    name="preference",
    parse=_m.parse_preference_data,
    questions={q: QuestionSpec(q, _VERDICTS, q) for q in _m.QUESTIONS},
    schema=instance_schema("preference", {}, []),
    resolve=_m.resolve,
    validate=_m.validate,
)


def _delegate(model, question, params, verdict, solution, certificate):
    """Delegates to the module's own dispatch (interim)."""
    _m.check_certificate(model, question, params, verdict, solution, certificate)


for _t in ['chain', 'chains', 'bounds', 'completions', 'injection', 'rs_search', 'size', 'dominated', 'exhaustive', 'hall_violator']:
    SPEC.certificate(_t, proves={q: _VERDICTS for q in SPEC.questions})(_delegate)
