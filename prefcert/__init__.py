"""prefcert: certified ground truth for preference-reasoning questions.

Every public function is reachable in one hop, e.g. ``prefcert.label``,
``prefcert.super_stable_matching``, ``prefcert.top_trading_cycles``; ``dir(prefcert)``
lists them. Names are loaded on first use, so ``import prefcert`` is cheap; type checkers
and editors see the real definitions (the imports under ``TYPE_CHECKING``), typed: the
shared types (``Label``, ``AuditResult`` …) are defined in :mod:`prefcert.api.types`.

The layers are subpackages: ``prefcert.formal`` (models and the trusted checker),
``prefcert.oracles`` (combinatorial algorithms), ``prefcert.encodings`` (CP-SAT / z3 / MILP
models), ``prefcert.generators`` (samplers); the application is ``prefcert.api`` (the
public functions, one module per domain), ``prefcert.pipeline`` (registry, label and audit
jobs, runners), ``prefcert.cli`` and ``prefcert.bench`` (the benchmark builder, one
subpackage per paper).
"""
from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    __version__: str                   # read from the installed metadata on first use
    from .api.consistency import (
        intransitive_cycle,
        min_l1_repair,
        min_l2_repair,
        minimum_feedback_arc_set,
    )
    from .api.core import audit, check, classify, label, read
    from .api.counterexample import minimal_counterexample
    from .api.decision import actionable_decision, score_response
    from .api.election import (
        ballot_class_manipulation,
        coalitional_manipulation,
        election_from_preflib,
        election_winner,
        single_voter_manipulation,
        smallest_coalitions,
    )
    from .api.hospitals_residents import (
        hrt_blocking_pairs,
        hrt_deferred_acceptance,
        hrt_strongly_stable_matching,
        hrt_super_stable_matching,
        hrt_weakly_stable_matching,
    )
    from .api.house_allocation import (
        egalitarian_matching,
        max_cardinality_pareto_optimal,
        rank_maximal,
        serial_dictatorship,
        utilitarian_matching,
    )
    from .api.housing_market import strict_core, top_trading_cycles
    from .api.preference import necessary_winner, possible_winner
    from .api.stable_matching import (
        blocking_pairs,
        deferred_acceptance,
        strongly_stable_matching,
        super_stable_matching,
        weakly_stable_matching,
    )
    from .api.types import (
        AuditResult,
        CertifiedRepair,
        Classification,
        CoalitionalManipulation,
        DatasetEntry,
        Label,
        Manipulation,
        Repair,
    )
    from .bench.dataset import create_dataset, reward, score_answer
    from .bench.rational_value_risk.risk import (
        error_bounds,
        pass_at_k,
        rational_value_risk,
    )
    from .bench.self_consistency.audit import consistency_audit
    from .bench.voting_manipulation.ballots import (
        baselines,
        parse_ballot,
        render_prompt,
        score_ballot,
    )
    from .formal.errors import CertificateError, Disagreement, InstanceError, Undecided
    from .formal.instances import Instance

# public name -> module that defines it (the same table as the imports above; a test keeps
# the two equal)
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(["read", "label", "check", "audit", "classify"], "prefcert.api.core"),
    **dict.fromkeys(["deferred_acceptance", "weakly_stable_matching", "super_stable_matching",
                     "strongly_stable_matching", "blocking_pairs"],
                    "prefcert.api.stable_matching"),
    **dict.fromkeys(["hrt_deferred_acceptance", "hrt_weakly_stable_matching",
                     "hrt_super_stable_matching", "hrt_strongly_stable_matching",
                     "hrt_blocking_pairs"], "prefcert.api.hospitals_residents"),
    **dict.fromkeys(["top_trading_cycles", "strict_core"], "prefcert.api.housing_market"),
    **dict.fromkeys(["serial_dictatorship", "max_cardinality_pareto_optimal", "rank_maximal",
                     "utilitarian_matching", "egalitarian_matching"],
                    "prefcert.api.house_allocation"),
    **dict.fromkeys(["necessary_winner", "possible_winner"], "prefcert.api.preference"),
    **dict.fromkeys(["election_winner", "single_voter_manipulation", "coalitional_manipulation",
                     "election_from_preflib", "ballot_class_manipulation",
                     "smallest_coalitions"], "prefcert.api.election"),
    **dict.fromkeys(["actionable_decision", "score_response"], "prefcert.api.decision"),
    **dict.fromkeys(["min_l1_repair", "min_l2_repair", "intransitive_cycle",
                     "minimum_feedback_arc_set"], "prefcert.api.consistency"),
    "consistency_audit": "prefcert.bench.self_consistency.audit",
    **dict.fromkeys(["parse_ballot", "render_prompt", "score_ballot", "baselines"],
                    "prefcert.bench.voting_manipulation.ballots"),
    **dict.fromkeys(["create_dataset", "score_answer", "reward"], "prefcert.bench.dataset"),
    **dict.fromkeys(["rational_value_risk", "error_bounds", "pass_at_k"],
                    "prefcert.bench.rational_value_risk.risk"),
    "minimal_counterexample": "prefcert.api.counterexample",
    **dict.fromkeys(["InstanceError", "CertificateError", "Disagreement", "Undecided"],
                    "prefcert.formal.errors"),
    "Instance": "prefcert.formal.instances",
    **dict.fromkeys(["Label", "AuditResult", "Classification", "Manipulation",
                     "CoalitionalManipulation", "Repair", "CertifiedRepair", "DatasetEntry"],
                    "prefcert.api.types"),
}

__all__ = [
    "AuditResult", "CertificateError", "CertifiedRepair", "Classification",
    "CoalitionalManipulation", "DatasetEntry", "Disagreement", "Instance", "InstanceError",
    "Label", "Manipulation", "Repair", "Undecided",
    "actionable_decision", "audit", "ballot_class_manipulation", "baselines",
    "blocking_pairs", "check", "classify", "coalitional_manipulation", "consistency_audit",
    "create_dataset", "deferred_acceptance", "egalitarian_matching", "election_from_preflib",
    "election_winner", "error_bounds", "hrt_blocking_pairs", "hrt_deferred_acceptance",
    "hrt_strongly_stable_matching", "hrt_super_stable_matching", "hrt_weakly_stable_matching",
    "intransitive_cycle", "label", "max_cardinality_pareto_optimal", "min_l1_repair",
    "min_l2_repair", "minimal_counterexample", "minimum_feedback_arc_set", "necessary_winner",
    "parse_ballot", "pass_at_k", "possible_winner", "rank_maximal", "rational_value_risk",
    "read", "render_prompt", "reward", "score_answer", "score_ballot", "score_response",
    "serial_dictatorship", "single_voter_manipulation", "smallest_coalitions", "strict_core",
    "strongly_stable_matching", "super_stable_matching", "top_trading_cycles",
    "utilitarian_matching", "weakly_stable_matching",
]


if not TYPE_CHECKING:
    # hidden from type checkers, which see the imports above: a misspelt name is then an
    # error there, not Any
    def __getattr__(name: str) -> Any:
        if name == "__version__":     # importlib.metadata is imported only when asked
            globals()[name] = value = _version()
            return value
        if name in _EXPORTS:
            value = getattr(importlib.import_module(_EXPORTS[name]), name)
            globals()[name] = value
            return value
        if importlib.util.find_spec(f"{__name__}.{name}") is not None:   # prefcert.api, …
            return importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module 'prefcert' has no attribute {name!r}")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("prefcert")
    except PackageNotFoundError:       # running from a source tree that is not installed
        return "0+unknown"


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
