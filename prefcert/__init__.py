"""prefcert: certified ground truth for preference-reasoning questions.

Every public function is reachable in one hop, e.g. ``prefcert.label``,
``prefcert.super_stable_matching``, ``prefcert.top_trading_cycles``; ``dir(prefcert)``
lists them. Names are loaded on first use, so ``import prefcert`` is cheap.

The layers are subpackages: ``prefcert.formal`` (models and the trusted checker),
``prefcert.oracles`` (combinatorial algorithms), ``prefcert.encodings`` (CP-SAT / z3 / MILP
models), ``prefcert.generators`` (samplers).
"""
from __future__ import annotations

import importlib
import importlib.util
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("prefcert")
except PackageNotFoundError:           # running from a source tree that is not installed
    __version__ = "0+unknown"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(["read", "label", "check", "audit", "classify",
                     "deferred_acceptance", "weakly_stable_matching", "super_stable_matching",
                     "strongly_stable_matching", "blocking_pairs", "top_trading_cycles",
                     "strict_core", "serial_dictatorship", "max_cardinality_pareto_optimal",
                     "rank_maximal", "utilitarian_matching", "egalitarian_matching",
                     "necessary_winner", "possible_winner", "actionable_decision",
                     "score_response"], "prefcert.api.core"),
    **dict.fromkeys(["election_winner", "single_voter_manipulation", "coalitional_manipulation",
                     "election_from_preflib", "ballot_class_manipulation",
                     "smallest_coalitions"], "prefcert.api.election"),
    **dict.fromkeys(["parse_ballot", "render_prompt", "score_ballot", "baselines"],
                    "prefcert.bench.voting_manipulation.ballots"),
    **dict.fromkeys(["hrt_deferred_acceptance", "hrt_weakly_stable_matching",
                     "hrt_super_stable_matching", "hrt_strongly_stable_matching",
                     "hrt_blocking_pairs"], "prefcert.api.hospitals_residents"),
    "minimal_counterexample": "prefcert.pipeline.counterexample",
    **dict.fromkeys(["create_dataset", "score_answer"], "prefcert.bench.dataset"),
    **dict.fromkeys(["consistency_audit", "min_l1_repair", "min_l2_repair",
                     "intransitive_cycle", "minimum_feedback_arc_set"], "prefcert.bench.self_consistency.audit"),
    **dict.fromkeys(["rational_value_risk", "error_bounds", "pass_at_k"], "prefcert.bench.rational_value_risk.risk"),
    **dict.fromkeys(["InstanceError", "CertificateError", "Disagreement", "Undecided"],
                    "prefcert.formal.errors"),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:   # prefcert.bench.actionable.responses…
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'prefcert' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
