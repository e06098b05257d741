"""The typed public API as a user sees it, and its checks at the boundary.

- a user script outside the repository, type-checked with ``mypy --strict``: clean when
  used right; a ``None`` dereference and a misspelt label key are reported;
- the ``TypedDict`` s describe what the functions return (no key missing, none unknown), and
  ``Verdict`` names every verdict word of the registry;
- every public function refuses one bad argument with a one-line ``ValueError`` /
  ``InstanceError`` naming it, raised by the shared checks before any engine runs;
- every public name works twice, also after every module of the package was imported.
"""
from __future__ import annotations

import ast
import importlib
import math
import pkgutil
import subprocess
import sys
import textwrap
import traceback
import typing
from pathlib import Path

import pytest

import prefcert
from prefcert.api import arguments
from prefcert.api.types import (
    AuditResult,
    Classification,
    CoalitionalManipulation,
    Label,
    Manipulation,
    Repair,
    Verdict,
)
from prefcert.formal.errors import Disagreement, InstanceError

ROOT = Path(__file__).resolve().parents[1]

# ----------------------------------------------------------------------------- data

SM = {"domain": "stable_matching", "preferences": {
    "A": {"m1": [["w1", "w2"]], "m2": ["w1"]}, "B": {"w1": [["m1", "m2"]], "w2": ["m1"]}}}
MEN, WOMEN = {"m1": [["w1", "w2"]], "m2": ["w1"]}, {"w1": ["m2", "m1"], "w2": ["m1"]}
HOUSING = {"a": [["h1", "h2"]], "b": ["h1", "h2"]}
ENDOW = {"a": "h1", "b": "h2"}
ALLOC = {"a1": ["o1", "o2"], "a2": ["o1", "o3"], "a3": ["o1"]}
RES, HOSP, CAP = {"a": ["x"], "b": ["x"]}, {"x": [["a", "b"]]}, {"x": 2}
PROFILE = {"v1": ["a", "b", "c"], "v2": ["a", ["b", "c"]], "v3": ["b", "a", "c"]}
BALLOTS = [["a", "b", "c"], ["a", "b", "c"], ["b", "c", "a"], ["c", "b", "a"]]
ELECTION = {"candidates": ["a", "b", "c"], "tie_break": ["a", "b", "c"],
            "ballots": [{"ranking": ["b", "a", "c"], "count": 2}, ["c", "a", "b"]]}
MANIP = {"candidates": ["A", "B", "C"], "tie_break": ["A", "B", "C"], "rule": "borda",
         "ballots": [["B", "C", "A"]], "manipulator": {"ranking": ["A", "B", "C"]}}
MANIP_SOL = {"sincere_winner": "B", "best_winner": "A", "reports": 6, "profitable": 1,
             "optimal": 1, "outcomes": {"A": 1, "B": 4, "C": 1}}
TASK = {"structure": "scheduling", "source": "preference", "agents": ["P1", "P2", "P3"],
        "items": ["T1", "T2", "T3"], "objectives": ["utilitarian"],
        "preferences": {"P1": [{"unknown": ["T1", "T2"]}, "T3"], "P2": ["T1", "T2", "T3"],
                        "P3": ["T2", "T1", "T3"]}}
CELLS = [{"id": "xy", "type": "pair", "a": {"item": "x", "price": 10},
          "b": {"item": "y", "price": 12}, "values": [3, 5]},
         {"id": "x", "type": "item", "item": "x", "values": [20]},
         {"id": "y", "type": "item", "item": "y", "values": [25]}]
CHOICES = [["a", "b", 2], ["b", "c", 2], ["c", "a", 1]]
DESIGN = {"cells": {
    "xy": {"domain": "d", "utterance_id": "1", "type": "pair",
           "a": {"item": "x", "price": 10}, "b": {"item": "y", "price": 12}},
    "x": {"domain": "d", "utterance_id": "1", "type": "item", "item": "x"},
    "y": {"domain": "d", "utterance_id": "1", "type": "item", "item": "y"}}}
ROWS = [{"model": "m", "cell_id": c, "value": v}
        for c, v in (("xy", 3), ("xy", 5), ("x", 20), ("y", 25))]
PREFLIB = str(ROOT / "instances" / "preflib" / "00023-00000001.toi")
NAN = math.nan


def _entry() -> dict:
    return prefcert.create_dataset("indeterminacy-algorithmic", size=1, seed=1, sizes=[10])[0]


#: public name -> (a valid call, the same call with one bad argument, what the message
#: must name). Every callable of ``prefcert.__all__`` has a row.
CALLS = {
    "read": (lambda p: p.read(PREFLIB), lambda p: p.read(7), "got int"),
    "label": (lambda p: p.label(SM, "super_stable"),
              lambda p: p.label(SM, "super_stable", time_limit=NAN), "time_limit: nan"),
    "check": (lambda p: p.check(p.label(SM, "super_stable"), SM),
              lambda p: p.check([("verdict", "none")], SM), "lab must be a mapping"),
    "audit": (lambda p: p.audit(SM, "super_stable", {}),
              lambda p: p.audit(SM, "super_stable", {}, time_limit=-1), "time_limit: -1"),
    "classify": (lambda p: p.classify(SM, [{"m1": "w2", "m2": "w1"}]),
                 lambda p: p.classify(SM, {"m1": "w2"}), "candidates must be a sequence"),
    "deferred_acceptance": (
        lambda p: p.deferred_acceptance({"m1": ["w1"]}, {"w1": ["m1"]}),
        lambda p: p.deferred_acceptance(["m1"], {"w1": ["m1"]}),
        "side_a must be a mapping agent -> list, got list"),
    "weakly_stable_matching": (lambda p: p.weakly_stable_matching(MEN, WOMEN),
                               lambda p: p.weakly_stable_matching(MEN, [["m1"]]),
                               "side_b must be a mapping agent -> list, got list"),
    "super_stable_matching": (lambda p: p.super_stable_matching(MEN, WOMEN),
                              lambda p: p.super_stable_matching(["m1", "m2"], WOMEN),
                              "side_a must be a mapping agent -> list, got list"),
    "strongly_stable_matching": (lambda p: p.strongly_stable_matching(MEN, WOMEN),
                                 lambda p: p.strongly_stable_matching(MEN, "w1"),
                                 "side_b must be a mapping agent -> list, got str"),
    "blocking_pairs": (lambda p: p.blocking_pairs(MEN, WOMEN, {"m1": "w2", "m2": "w1"}),
                       lambda p: p.blocking_pairs(MEN, WOMEN, {"m1": "w2"}, "stronk"),
                       "notion: 'stronk'"),
    "hrt_deferred_acceptance": (
        lambda p: p.hrt_deferred_acceptance({"a": ["x"]}, {"x": ["a"]}, {"x": 1}),
        lambda p: p.hrt_deferred_acceptance({"a": ["x"]}, {"x": ["a"]}, {"x": 1},
                                            proposing="doctors"), "proposing: 'doctors'"),
    "hrt_weakly_stable_matching": (lambda p: p.hrt_weakly_stable_matching(RES, HOSP, CAP),
                                   lambda p: p.hrt_weakly_stable_matching(RES, HOSP, [2]),
                                   "capacities must be a mapping"),
    "hrt_super_stable_matching": (lambda p: p.hrt_super_stable_matching(RES, HOSP, CAP),
                                  lambda p: p.hrt_super_stable_matching([RES], HOSP, CAP),
                                  "residents must be a mapping"),
    "hrt_strongly_stable_matching": (
        lambda p: p.hrt_strongly_stable_matching(RES, HOSP, CAP),
        lambda p: p.hrt_strongly_stable_matching(RES, ["x"], CAP), "hospitals must be"),
    "hrt_blocking_pairs": (lambda p: p.hrt_blocking_pairs(RES, HOSP, CAP, {"a": "x"}),
                           lambda p: p.hrt_blocking_pairs(RES, HOSP, CAP, [("a", "x")]),
                           "matching must be a mapping"),
    "top_trading_cycles": (lambda p: p.top_trading_cycles(HOUSING, ENDOW),
                           lambda p: p.top_trading_cycles([["h1"]], ENDOW),
                           "prefs must be a mapping"),
    "strict_core": (lambda p: p.strict_core(HOUSING, ENDOW),
                    lambda p: p.strict_core(HOUSING, ["h1", "h2"]),
                    "endowment must be a mapping agent -> house, got list"),
    "serial_dictatorship": (lambda p: p.serial_dictatorship(ALLOC, order=["a3", "a1", "a2"]),
                            lambda p: p.serial_dictatorship(ALLOC, order="a3a1a2"),
                            "order must be a sequence"),
    "max_cardinality_pareto_optimal": (
        lambda p: p.max_cardinality_pareto_optimal(ALLOC),
        lambda p: p.max_cardinality_pareto_optimal(list(ALLOC)), "prefs must be a mapping"),
    "rank_maximal": (lambda p: p.rank_maximal(ALLOC),
                     lambda p: p.rank_maximal(ALLOC, objects="o1"), "objects must be"),
    "utilitarian_matching": (lambda p: p.utilitarian_matching(ALLOC),
                             lambda p: p.utilitarian_matching(ALLOC, objects=[1, 2]),
                             "objects: 1"),
    "egalitarian_matching": (lambda p: p.egalitarian_matching(ALLOC),
                             lambda p: p.egalitarian_matching(ALLOC.items()),
                             "prefs must be a mapping"),
    "necessary_winner": (lambda p: p.necessary_winner(PROFILE, "borda", "a"),
                         lambda p: p.necessary_winner(PROFILE, "borda", "a",
                                                      semantics="partial"),
                         "semantics: 'partial'"),
    "possible_winner": (lambda p: p.possible_winner(PROFILE, "plurality", "b"),
                        lambda p: p.possible_winner(list(PROFILE.values()), "plurality", "b"),
                        "profile must be a mapping"),
    "election_winner": (lambda p: p.election_winner(BALLOTS, "borda"),
                        lambda p: p.election_winner({"v1": ["a", "b"]}, "borda"),
                        "ballots must be a sequence of ballots, got dict"),
    "single_voter_manipulation": (
        lambda p: p.single_voter_manipulation([["b", "c", "a"]], ["a", "b", "c"], "borda"),
        lambda p: p.single_voter_manipulation([["b", "c", "a"]], {"a": 1}, "borda"),
        "truth must be a sequence"),
    "coalitional_manipulation": (
        lambda p: p.coalitional_manipulation([["b", "a", "c"]] * 3, "plurality", "a", k=2),
        lambda p: p.coalitional_manipulation([["b", "a", "c"]] * 3, "plurality", "a",
                                             candidates="abc"), "candidates must be"),
    "election_from_preflib": (lambda p: p.election_from_preflib(PREFLIB, rule="irv"),
                              lambda p: p.election_from_preflib(None), "got NoneType"),
    "ballot_class_manipulation": (
        lambda p: p.ballot_class_manipulation(ELECTION, "irv"),
        lambda p: p.ballot_class_manipulation(ELECTION, "irv", engines=["orakel"]),
        "unknown engine (known: brute_force, cpsat, oracle, reachability): 'orakel'"),
    "smallest_coalitions": (
        lambda p: p.smallest_coalitions(ELECTION, "plurality"),
        lambda p: p.smallest_coalitions(ELECTION, "plurality", time_limit=math.inf),
        "time_limit: inf is not a positive, finite number of seconds"),
    "actionable_decision": (lambda p: p.actionable_decision(TASK),
                            lambda p: p.actionable_decision([TASK]), "task must be a mapping"),
    "score_response": (
        lambda p: p.score_response(TASK, '{"decision": "ACT", "action": "T1"}'),
        lambda p: p.score_response(TASK, "{}", json_mode="yaml"), "json_mode: 'yaml'"),
    "min_l1_repair": (lambda p: p.min_l1_repair(CELLS),
                      lambda p: p.min_l1_repair(CELLS, unit="row"), "unit: 'row'"),
    "min_l2_repair": (lambda p: p.min_l2_repair(CELLS),
                      lambda p: p.min_l2_repair({"xy": CELLS[0]}), "cells must be a sequence"),
    "intransitive_cycle": (lambda p: p.intransitive_cycle(CHOICES),
                           lambda p: p.intransitive_cycle(CHOICES, judgments="votes"),
                           "judgments: 'votes'"),
    "minimum_feedback_arc_set": (lambda p: p.minimum_feedback_arc_set(CHOICES),
                                 lambda p: p.minimum_feedback_arc_set("a>b"),
                                 "choices must be a sequence"),
    "consistency_audit": (lambda p: p.consistency_audit(ROWS, DESIGN, resamples=50),
                          lambda p: p.consistency_audit([*ROWS, ["m", "x", 3]], DESIGN),
                          "responses[4] must be a mapping"),
    "parse_ballot": (lambda p: p.parse_ballot("Final ballot: B > A > C", "ABC", "borda"),
                     lambda p: p.parse_ballot(None, "ABC", "borda"), "text must be a string"),
    "render_prompt": (lambda p: p.render_prompt(MANIP, "expert"),
                      lambda p: p.render_prompt([MANIP], "expert"), "instance must be"),
    "score_ballot": (lambda p: p.score_ballot(MANIP, MANIP_SOL, "Final ballot: A > C > B"),
                     lambda p: p.score_ballot(MANIP, MANIP_SOL, ["A", "C", "B"]),
                     "text must be a string or None"),
    "baselines": (lambda p: p.baselines([MANIP], [MANIP_SOL]),
                  lambda p: p.baselines({"x": MANIP}, [MANIP_SOL]),
                  "instances must be a sequence"),
    "create_dataset": (lambda p: p.create_dataset("indeterminacy-algorithmic", size=1, seed=1,
                                                  sizes=[10]),
                       lambda p: p.create_dataset("indeterminacy-algorithmic", size=-4),
                       "size: -4"),
    "score_answer": (lambda p: p.score_answer(ENTRY[0]["answer"], ENTRY[0]),
                     lambda p: p.score_answer("x", ["entry"]), "entry must be a mapping"),
    "reward": (lambda p: p.reward(None, [ENTRY[0]["answer"]],
                                  metadata=[ENTRY[0]["metadata"]]),
               lambda p: p.reward(None, ["x"], metadata=[]), "metadata: 0 values for 1"),
    "rational_value_risk": (lambda p: p.rational_value_risk([[1, 0], [1, 1]], resamples=20),
                            lambda p: p.rational_value_risk([[1, 0]], resamples=0),
                            "resamples: 0"),
    "error_bounds": (lambda p: p.error_bounds(100, 8),
                     lambda p: p.error_bounds(100, 8, delta=1.5), "delta: 1.5"),
    "pass_at_k": (lambda p: p.pass_at_k(4, 1, 2), lambda p: p.pass_at_k(3, 5, 1), "c: 5"),
    "minimal_counterexample": (
        lambda p: p.minimal_counterexample("strongly-stable-exists", max_size=2),
        lambda p: p.minimal_counterexample("strongly-stable-exists", seconds=NAN),
        "seconds: nan"),
}
ENTRY: list = []         # the dataset entry score_answer needs, made once

#: more bad arguments of the same functions: the checks the issue names (in the words of
#: the CLI where it has the check)
MORE_BAD = [
    (lambda p: p.label(SM, "super_stable", time_limit=-1), "time_limit: -1 is not a positive"),
    (lambda p: p.label(SM, "super_stable", time_limit=0), "time_limit: 0 is not a positive"),
    (lambda p: p.label(SM, "super_stable", time_limit="10"), "time_limit: '10' is not a number"),
    (lambda p: p.label(SM, "super_stable", seed=-1), "seed: -1 is not in the range 0<=x<="),
    (lambda p: p.label(SM, "super_stable", seed=2**31), "seed: 2147483648 is not in the range"),
    (lambda p: p.label(SM, "super_stable", seed=1.5), "seed: 1.5 is not a valid integer"),
    (lambda p: p.label(SM, "super_stable", engines=["oracle", "nope"]),
     "unknown engine (known: brute_force, cpsat, oracle, z3): 'nope'"),
    (lambda p: p.label(SM, "super_stable", engines="oracle"),
     "engines must be a sequence of engine names, got str"),
    (lambda p: p.label([SM], "super_stable"), "instance must be a mapping"),
    (lambda p: p.actionable_decision(TASK, time_limit=NAN), "time_limit: nan"),
    (lambda p: p.actionable_decision(TASK, engines=["z3"]), "unknown engine"),
    (lambda p: p.ballot_class_manipulation(ELECTION, "irv", time_limit=0), "time_limit: 0"),
    (lambda p: p.pass_at_k(3, 1, 5), "k: 5 is not in the range 0<=x<=3"),
    (lambda p: p.pass_at_k(-1, 0, 0), "n: -1"),
    (lambda p: p.error_bounds(0, 8), "m: 0 is not in the range x>=1"),
    (lambda p: p.error_bounds(10, 8, reading="oracle"), "reading: 'oracle'"),
    (lambda p: p.minimal_counterexample(42), "prop must be a property name"),
    (lambda p: p.minimal_counterexample("strongly-stable-exists", max_size=0),
     "max_size: 0 is not in the range x>=1"),
    (lambda p: p.super_stable_matching({"m1": "w1"}, WOMEN), "agent 'm1'"),
]


def _public_functions() -> list[str]:
    return sorted(n for n in prefcert.__all__ if not isinstance(getattr(prefcert, n), type))


def test_every_public_function_has_a_row():
    assert sorted(CALLS) == _public_functions()


# ------------------------------------------------------------------- bad arguments

def _refusal(call) -> BaseException:
    with pytest.raises(ValueError) as info:
        call(prefcert)
    return info.value


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_bad_argument_is_refused_at_the_boundary_naming_it(name):
    _, bad, needle = CALLS[name]
    e = _refusal(bad)
    assert isinstance(e, InstanceError) and not isinstance(e, Disagreement), repr(e)
    text = str(e)
    assert needle in text and "\n" not in text, text
    # raised by the shared checks, not from deep inside an engine or a parser
    where = Path(traceback.extract_tb(e.__traceback__)[-1].filename)
    assert where.parts[-2:] == ("api", "arguments.py"), traceback.format_exception(e)


@pytest.mark.parametrize("k", range(len(MORE_BAD)))
def test_the_checks_the_issue_names_use_the_cli_words(k):
    bad, needle = MORE_BAD[k]
    e = _refusal(bad)
    assert isinstance(e, InstanceError), repr(e)
    assert needle in str(e) and "\n" not in str(e), str(e)


def test_the_cli_shares_the_checks(tmp_path):
    """``--time-limit`` and ``--seed`` say what the API says (one definition)."""
    from click.testing import CliRunner

    from prefcert.cli import main
    from prefcert.cli.common import SEED_RANGE
    assert (SEED_RANGE.min, SEED_RANGE.max) == arguments.SEED_RANGE
    f = tmp_path / "i.json"
    f.write_text('{"domain": "stable_matching", "preferences": {"A": {"m1": ["w1"]}, '
                 '"B": {"w1": ["m1"]}}}')
    r = CliRunner().invoke(main, ["label", str(f), "--time-limit", "nan"])
    assert r.exit_code == 2 and "'nan' is not a positive, finite number of seconds" in r.output
    with pytest.raises(InstanceError, match="time_limit: nan is not a positive, finite number"):
        prefcert.label(SM, "super_stable", time_limit=NAN)


# --------------------------------------------------------------- every name, twice

def _all_modules() -> list[str]:
    out = []
    for pkg in ("prefcert", "prefcert.formal", "prefcert.oracles", "prefcert.encodings",
                "prefcert.generators"):
        out += [m.name for m in pkgutil.walk_packages(importlib.import_module(pkg).__path__,
                                                      pkg + ".")]
    return out


def test_every_public_name_works_twice_even_after_every_module_is_imported():
    """Regression: ``prefcert.classify(...)`` once worked only once, a submodule of the
    same name replacing the function on the package when first imported."""
    if not ENTRY:
        ENTRY.append(_entry())
    first = {name: type(CALLS[name][0](prefcert)) for name in sorted(CALLS)}
    for m in _all_modules():
        importlib.import_module(m)
    for name in sorted(CALLS):
        assert callable(getattr(prefcert, name)) and not isinstance(
            getattr(prefcert, name), type(prefcert)), name
        assert type(CALLS[name][0](prefcert)) is first[name], name
    for name, make in CLASSES.items():
        cls = getattr(prefcert, name)
        for _ in range(2):
            assert isinstance(make(cls), dict if typing.is_typeddict(cls) else cls), name


#: every public class, built (TypedDicts build plain dicts)
CLASSES = {
    "InstanceError": lambda c: c("bad", value=1), "CertificateError": lambda c: c("bad"),
    "Disagreement": lambda c: c({"reason": "x"}), "Undecided": lambda c: c("slow"),
    "Instance": lambda c: c("i", "stable_matching", {}, "<memory>"),
    **dict.fromkeys(["Label", "AuditResult", "Classification", "Manipulation",
                     "CoalitionalManipulation", "Repair", "CertifiedRepair", "DatasetEntry"],
                    lambda c: c()),
}


def test_every_public_class_has_a_row():
    assert sorted(CLASSES) == sorted(set(prefcert.__all__) - set(CALLS))


# ------------------------------------------------------------------ types at run time

def test_type_checking_imports_are_the_export_table():
    """``prefcert/__init__.py`` names every public name twice: imported under
    TYPE_CHECKING (for type checkers) and in ``_EXPORTS`` (loaded on first use)."""
    tree = ast.parse((ROOT / "prefcert" / "__init__.py").read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If)
                 and getattr(n.test, "id", None) == "TYPE_CHECKING")
    imported = {a.name: "prefcert." + n.module for n in block.body
                if isinstance(n, ast.ImportFrom) for a in n.names}
    assert imported == prefcert._EXPORTS
    assert sorted(prefcert.__all__) == sorted(prefcert._EXPORTS)


def test_public_functions_are_annotated_and_overloaded_on_certificate():
    import inspect
    for name in _public_functions():
        fn = getattr(prefcert, name)
        sig = inspect.signature(fn)
        assert sig.return_annotation is not inspect.Signature.empty, name
        for p in sig.parameters.values():
            assert p.annotation is not inspect.Parameter.empty, (name, p.name)
        hints = typing.get_type_hints(fn)
        assert hints["return"] is not typing.Any, name
        if "certificate" in sig.parameters:
            kinds = [typing.get_type_hints(o)["certificate"] for o in typing.get_overloads(fn)]
            assert kinds == [typing.Literal[False], typing.Literal[True], bool], name


def test_verdict_words_of_the_registry_are_the_verdict_type():
    from prefcert.pipeline.registry import DOMAINS, spec
    words = {v for d in DOMAINS for q in spec(d).questions.values() for v in q.verdicts}
    assert words == set(typing.get_args(Verdict))


def _conforms(value: dict, td: type) -> None:
    keys = set(td.__required_keys__) | set(td.__optional_keys__)
    assert set(td.__required_keys__) <= set(value) <= keys, (td.__name__, sorted(value))


def test_typed_dicts_describe_what_the_functions_return():
    labels = [prefcert.label(SM, "super_stable"),
              prefcert.label({"domain": "preference", "profile": PROFILE},
                             {"type": "winner", "rule": "borda", "item": "a"}),
              prefcert.actionable_decision(TASK)]
    for lab in labels:
        _conforms(lab, Label)
        assert lab["verdict"] in typing.get_args(Verdict)
        for run in lab["engines"]:
            _conforms(run, typing.get_type_hints(Label)["engines"].__args__[0])
    housing = {"domain": "housing_market", "preferences": HOUSING, "endowment": ENDOW}
    audits = [prefcert.audit(SM, "super_stable", {}),
              prefcert.audit(SM, "weakly_stable", {"m1": "w2", "m2": "w1"}),
              prefcert.audit(SM, "weakly_stable", "not json{"),
              prefcert.audit(housing, "strict_core", {"a": "h1", "b": "h2"}),
              prefcert.audit({"domain": "preference", "profile": PROFILE},
                             {"type": "winner", "rule": "borda", "item": "a"}, "true"),
              prefcert.audit({**MANIP, "domain": "election"}, "manipulation", ["A", "C", "B"]),
              prefcert.audit({**MANIP, "domain": "election"}, "winner", "B")]
    for a in audits:
        _conforms(a, AuditResult)
    for c in prefcert.classify(SM, [{"m1": "w2", "m2": "w1"}, {"m1": "zz"}]) + \
            prefcert.classify(housing, [{"a": "h2", "b": "h1"}]):
        _conforms(c, Classification)
    _conforms(prefcert.single_voter_manipulation([["b", "c", "a"]], ["a", "b", "c"], "borda"),
              Manipulation)
    for k in (2, 3):
        _conforms(prefcert.coalitional_manipulation([["b", "a", "c"]] * 3, "plurality", "a",
                                                    k=k), CoalitionalManipulation)
    _conforms(prefcert.min_l1_repair(CELLS), Repair)
    _conforms(prefcert.min_l2_repair(CELLS, certificate=True), prefcert.CertifiedRepair)


# ----------------------------------------------------------------- a user's mypy run

CLEAN = '''
from typing import Any, assert_type

import prefcert
from prefcert import Label
from prefcert.api.types import Certificate, Matching, Prefs, Profile

SM: dict[str, Any] = {ROOT_SM}
MEN: Prefs = {"m1": [["w1", "w2"]], "m2": ["w1"]}      # mixed lists: annotated
WOMEN = {"w1": ["m2", "m1"], "w2": ["m1"]}

lab = prefcert.label(SM, "super_stable", engines=["oracle"], time_limit=5.0, seed=1)
assert_type(lab, Label)
verdict: str = lab["verdict"]
assert lab["checked"] and prefcert.check(lab, SM)
assert lab["certificate"]["type"] == "deletion_log" and verdict == "none"
report = prefcert.audit(SM, "weakly_stable", {"m1": "w1"})
assert report["verdict"] in ("correct", "incorrect")
fails = prefcert.classify(SM, [{"m1": "w2", "m2": "w1"}])[0].get("fails", [])
assert isinstance(fails, list)

matching = prefcert.super_stable_matching(MEN, WOMEN)
assert_type(matching, Matching | None)
if matching is not None:
    assert matching["m1"] == "w2"
found, proof = prefcert.super_stable_matching(MEN, WOMEN, certificate=True)
assert_type(found, dict[str, str] | None)
assert_type(proof, Certificate)
assert proof["type"] == "stable_matching"

core = prefcert.strict_core({"a": [["h1", "h2"]], "b": ["h1", "h2"]}, {"a": "h1", "b": "h2"})
assert core == {"a": "h2", "b": "h1"}
allocation, duals = prefcert.rank_maximal({"a1": ["o1", "o2"], "a2": ["o1"]},
                                          certificate=True)
assert_type(allocation, dict[str, str])
assert allocation["a1"] == "o2" and duals["type"] == "lp_duals"
profile: Profile = {"v1": ["a", "b", "c"], "v2": ["a", ["b", "c"]], "v3": ["b", "a", "c"]}
necessary: bool = prefcert.necessary_winner(profile, "borda", "a")
assert necessary
winner = prefcert.election_winner([["a", "b"], ["b", "a"], ["a", "b"]], "plurality")
assert_type(winner, str)
w, table = prefcert.election_winner([["a", "b"]], "borda", certificate=True)
assert w == "a" and table["winners"] == ["a"]
(inst,) = prefcert.read({PREFLIB!r})
assert inst.domain == "preference" and len(inst.data["profile"]) > 0
order = prefcert.minimum_feedback_arc_set([["a", "b", 2], ["b", "a", 1]])
assert_type(order, tuple[int, list[str]])
assert prefcert.pass_at_k(4, 1, 2) == 0.5
print("ok")
'''

NONE_DEREF = '''
import prefcert
print(prefcert.super_stable_matching({"m1": ["w1"]}, {"w1": ["m1"]})["m1"])
'''

TYPO = '''
import prefcert
lab = prefcert.label({"domain": "stable_matching", "preferences": {}}, "super_stable")
print(lab["verdcit"])
'''


def _mypy(folder: Path, *files: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-color-output",
                           *files], capture_output=True, text=True, cwd=folder)


def test_a_user_script_type_checks_strictly_and_mistakes_are_reported(tmp_path):
    pytest.importorskip("mypy")
    assert not tmp_path.is_relative_to(ROOT)
    clean = CLEAN.replace("{ROOT_SM}", repr(SM)).replace("{PREFLIB!r}", repr(PREFLIB))
    (tmp_path / "clean.py").write_text(textwrap.dedent(clean))
    (tmp_path / "none_deref.py").write_text(NONE_DEREF)
    (tmp_path / "typo.py").write_text(TYPO)
    r = _mypy(tmp_path, "clean.py")
    assert r.returncode == 0, r.stdout + r.stderr
    run = subprocess.run([sys.executable, "clean.py"], capture_output=True, text=True,
                         cwd=tmp_path)            # and it runs: the types are the values
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]
    r = _mypy(tmp_path, "none_deref.py", "typo.py")
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert any(t.startswith("none_deref.py:3: error:") and "None" in t and "not indexable"
               in t for t in lines), r.stdout         # ... "dict[str, str] | None" ...
    assert any(t.startswith("typo.py:4: error:") and '"Label" has no key "verdcit"' in t
               for t in lines), r.stdout
