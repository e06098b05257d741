"""INTERIM glue: the housing_market checks of :mod:`prefcert.formal.housing` behind the registry,
until that module is split into a model and a standard-library check."""
from __future__ import annotations

from .. import housing as _m
from ..spec import DomainSpec, QuestionSpec, instance_schema

_VERDICTS = ("exists", "none", "optimal", "true", "false", "undetermined", "determined",
             "incorrect")
SPEC = DomainSpec(
    name="housing_market",
    parse=_m.parse_housing_market,
    questions={q: QuestionSpec(q, _VERDICTS, q) for q in _m.CORE_NOTION},
    schema=instance_schema("housing_market", {}, []),
)


def _delegate(model, question, params, verdict, solution, certificate):
    """Delegates to the module's own dispatch (interim)."""
    _m.check_certificate(model, question, params, verdict, solution, certificate)


for _t in ['core_allocation', 'top_trading_segmentation', 'blocking_coalition', 'not_an_allocation']:
    SPEC.certificate(_t, proves={q: _VERDICTS for q in SPEC.questions})(_delegate)
