"""INTERIM glue: the house_allocation checks of :mod:`prefcert.formal.allocation` behind the registry,
until that module is split into a model and a standard-library check."""
from __future__ import annotations

from .. import allocation as _m
from ..spec import DomainSpec, QuestionSpec, instance_schema

_VERDICTS = ("exists", "none", "optimal", "true", "false", "undetermined", "determined",
             "incorrect")
SPEC = DomainSpec(
    name="house_allocation",
    parse=_m.parse_house_allocation,
    questions={q: QuestionSpec(q, _VERDICTS, q) for q in _m.QUESTIONS},
    schema=instance_schema("house_allocation", {}, []),
)


def _delegate(model, question, params, verdict, solution, certificate):
    """Delegates to the module's own dispatch (interim)."""
    _m.check_certificate(model, question, params, verdict, solution, certificate)


for _t in ['pareto_optimal', 'mcpo', 'lp_duals', 'hall_bottleneck', 'pareto_improvement']:
    SPEC.certificate(_t, proves={q: _VERDICTS for q in SPEC.questions})(_delegate)
