"""Registries instead of string dispatch: one table of voting rules per layer, preference
question types registered once, and a checker that refuses what it does not know (an
unknown rule, question type or certificate field), through the checker, the API and the
CLI."""
from __future__ import annotations

import json
import subprocess
from functools import partial
from pathlib import Path

import pytest

import prefcert
from prefcert.formal import checker
from prefcert.formal.checker import election as ce
from prefcert.formal.checker import preference as cp
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.formal.files import read_paths
from prefcert.formal.preference import (
    PARAMS,
    QUERIES,
    resolve,
    value_profile,
    value_single,
)
from prefcert.formal.rules import RULES, rule_named, rule_names
from prefcert.pipeline.registry import DOMAINS, spec
from conftest import cli, PREFCERT

ROOT = Path(__file__).resolve().parents[1]
#: the refusal of an unknown rule, naming the known ones (every rule; those of incomplete
#: profiles, for the preference winner question)
UNKNOWN_RULE = f"rule must be one of {', '.join(RULES)}: 'xyz'"
UNKNOWN_WINNER_RULE = f"rule must be one of {', '.join(rule_names(incomplete=True))}: 'xyz'"

PROFILE = {"v1": ["a", "b", "c"], "v2": ["a", ["b", "c"]], "v3": ["b", "a", "c"]}
BALLOTS = [["a", "b", "c"], ["b", "c", "a"], ["c", "b", "a"]]
ELECTION = {"domain": "election", "candidates": ["a", "b", "c"], "tie_break": ["a", "b", "c"],
            "ballots": BALLOTS, "manipulator": {"ranking": ["c", "a", "b"]}}


#: small bundled instances of every domain
FILES = ["consistency/synthetic-choices.jsonl", "decision/apartment.jsonl",
         "election/reference.jsonl", "hospitals_residents/reference.jsonl",
         "house_allocation/reference.jsonl", "housing_market/reference.jsonl",
         "stable_matching/reference.jsonl", "preflib/00009-00000002.soc"]
INSTANCES = read_paths([str(ROOT / "instances" / f) for f in FILES])
MODELS = {}
for _inst in INSTANCES:
    MODELS.setdefault(_inst.domain, spec(_inst.domain).parse(_inst.data))


def _a_question(ctype) -> tuple[str, str]:
    question, verdicts = next(iter(ctype.proves.items()))
    return question, verdicts[0]


# --------------------------------------------------------------------------- the tables

def test_one_table_of_rules_per_layer_keyed_by_the_same_names():
    from prefcert.encodings.rules import ENCODINGS
    from prefcert.oracles.rules import ENGINES
    assert list(RULES)[:5] == ["plurality", "borda", "approval", "irv", "copeland"]
    assert list(ENGINES) == list(RULES) == list(ENCODINGS)
    for name, r in RULES.items():
        assert r.name == name and r.doc and r.ballot in ("ranked", "approval")
        assert ENGINES[name].supports_incomplete == r.supports_incomplete, name
        assert ENGINES[name].rounds == r.rounds == ENCODINGS[name].rounds, name
        assert ENGINES[name].score_unit == r.score_unit, name
    # the winner question's rules are a property of the registered rule, not a second tuple
    assert rule_names(incomplete=True) == tuple(n for n, r in RULES.items()
                                                if r.supports_incomplete)
    assert [n for n in rule_names(incomplete=True) if n in ("plurality", "borda", "approval",
            "irv", "copeland")] == ["plurality", "borda", "copeland"]
    assert spec("election").rules == rule_names()
    assert spec("preference").rules == rule_names(incomplete=True)
    assert spec("election").schema["properties"]["rule"] == {"enum": list(rule_names())}


def test_cli_and_docs_list_the_rules_from_the_registry():
    listed = json.loads(subprocess.run([PREFCERT, "domains", "--json"], capture_output=True,
                                       text=True, check=True).stdout)
    by = {d["domain"]: d for d in listed}
    assert list(by["election"]["rules"]) == list(RULES)
    assert list(by["preference"]["rules"]) == list(rule_names(incomplete=True))
    assert by["election"]["rules"]["irv"]["proofs"] == ["elimination_search"]
    assert by["stable_matching"]["rules"] == {}
    table = subprocess.run([PREFCERT, "domains"], capture_output=True, text=True,
                           check=True).stdout
    assert "voting rules" in table and "elimination_search" in table
    docs = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = docs.split("### Voting rules")[1]
    for name, r in RULES.items():
        assert f"| `{name}` | {r.ballot} |" in section


def test_preference_question_types_are_registered_once():
    s = spec("preference")
    assert list(QUERIES) == list(s.questions) == list(PARAMS)
    for name, q in QUERIES.items():
        assert s.questions[name].params == q.params
        assert s.questions[name].verdicts == q.verdicts
    # each per-question check table covers exactly the questions its certificate proves
    for table in (cp.CHAINS, cp.COMPLETIONS, cp.BOUNDS):
        ctype = s.certificates[table.certificate]
        assert set(table.functions) == set(ctype.proves), table.certificate


def test_every_certificate_type_declares_its_fields():
    for d in DOMAINS:
        for name, ctype in spec(d).certificates.items():
            assert isinstance(ctype.keys, frozenset) and "type" not in ctype.keys, (d, name)


# --------------------------------------------------------------------------- the checker

@pytest.mark.parametrize("domain", DOMAINS)
def test_checker_refuses_an_unknown_certificate_field_and_question(domain):
    """Every certificate type of every domain: a planted field "zz" and a question "xyz"
    are refused, naming the value, before the check runs."""
    s, model = spec(domain), MODELS[domain]
    for name, ctype in s.certificates.items():
        question, verdict = _a_question(ctype)
        cert = {"type": name, **{k: None for k in ctype.keys}, "zz": 1}
        with pytest.raises(CertificateError, match="unknown field 'zz'"):
            checker.check(s, model, question, None, verdict, None, cert)
        with pytest.raises(CertificateError, match="unknown question 'xyz'"):
            checker.check(s, model, "xyz", None, verdict, None, {"type": name})


def _labels_per_domain(limit: int = 6) -> list:
    """Accepted labels of a few bundled instances per domain (every default question)."""
    from prefcert.pipeline.jobs import label, plan
    seen: dict = {}
    out = []
    for inst in INSTANCES:
        if seen.get(inst.domain, 0) >= limit:
            continue
        for job in plan([inst])[:limit]:
            if seen.get(inst.domain, 0) >= limit:
                break
            try:
                lab = label(job, time_limit=5.0)
            except Exception:                       # undecided or disagreeing: skip it
                continue
            if lab["checked"]:
                seen[inst.domain] = seen.get(inst.domain, 0) + 1
                out.append((job, lab))
    return out


def test_accepted_certificates_are_refused_with_an_unknown_field():
    """Real certificates (engines' output, statistics included): accepted as they are,
    refused with a field "zz" planted."""
    labels = _labels_per_domain()
    assert {job.instance.domain for job, _ in labels} == set(DOMAINS)
    for job, lab in labels:
        s = spec(job.instance.domain)
        checker.check_label(s, lab, job.model, job.question.name, job.params)
        forged = dict(lab, certificate={**lab["certificate"], "zz": 0})
        with pytest.raises(CertificateError, match="unknown field 'zz'"):
            checker.check_label(s, forged, job.model, job.question.name, job.params)


def _election_params(question: str, rule: str) -> dict:
    if question == "coalitional_manipulation":
        return {"rule": rule, "candidate": "a", "weights": [1]}
    return {"rule": rule}


def test_election_checker_refuses_an_unknown_rule_in_every_certificate_type():
    model = ce.SPEC.parse(ELECTION)
    for name, ctype in ce.SPEC.certificates.items():
        for question, verdicts in ctype.proves.items():
            params = _election_params(question, "xyz")
            shape = ce.SPEC.questions[question].solution(verdicts[0], params)
            solution = None if shape.kind == "null" else dict.fromkeys(
                shape.keys + tuple(k for k in shape.optional if k in ctype.verifies), "a")
            with pytest.raises(CertificateError, match=UNKNOWN_RULE):
                checker.check(ce.SPEC, model, question, params, verdicts[0], solution,
                              {"type": name})


def test_preference_checker_refuses_an_unknown_rule_in_every_winner_certificate():
    """The soundness bug: the checker read any rule other than Borda and Copeland as
    plurality. Every certificate type of the winner question now refuses a rule it has no
    definition for — an unknown one, or one without incomplete profiles."""
    model = cp.SPEC.parse({"profile": PROFILE})
    winner = {t: c for t, c in cp.SPEC.certificates.items() if "winner" in c.proves}
    assert set(winner) == {"bounds", "completions", "hall_violator", "dominated", "exhaustive"}
    for name, ctype in winner.items():
        for verdict in ctype.proves["winner"]:
            for rule, message in [("xyz", UNKNOWN_WINNER_RULE),
                                  *((r, f"{r}'") for r in RULES
                                    if not RULES[r].supports_incomplete)]:
                cert = {"type": name, **{k: v for k, v in (("by", "b"), ("set", ["b"]))
                                         if k in ctype.keys}}
                with pytest.raises(CertificateError, match=message):
                    checker.check(cp.SPEC, model, "winner", {"rule": rule, "item": "a"},
                                  verdict, None, cert)
    # the bug itself: "xyz" was read as plurality and a is plurality's necessary winner
    checker.check(cp.SPEC, model, "winner", {"rule": "plurality", "item": "a"}, "true", None,
                  {"type": "bounds"})


def test_preference_checker_refuses_an_unknown_question_type_in_every_table():
    model = cp.SPEC.parse({"profile": PROFILE})
    for table in (cp.CHAINS, cp.COMPLETIONS, cp.BOUNDS):
        with pytest.raises(CertificateError, match="no check for question 'xyz'"):
            table("xyz")
    with pytest.raises(InstanceError, match="xyz"):
        value_single("xyz", {}, ["a", "b", "c"])
    with pytest.raises(InstanceError, match="xyz"):
        value_profile(model, "xyz", {}, [])


VALID = {"position": {"agent": "v1", "item": "a"}, "kth": {"agent": "v1", "k": 1},
         "compare": {"agent": "v1", "items": ["a", "b"]},
         "rank_set": {"agent": "v1", "items": ["a", "b"]},
         "rs": {"agent": "v1", "bundles": [["a"], ["b"]]},
         "topk": {"agent": "v1", "item": "a", "k": 1}, "topk_list": {"agent": "v1", "k": 1},
         "count": {"items": ["a", "b"]}, "majority": {"items": ["a", "b"]},
         "winner": {"rule": "borda", "item": "a"}}


@pytest.mark.parametrize("question", list(QUERIES))
def test_parsing_refuses_unknown_fields_and_values_of_every_question_type(question):
    resolve({"type": question, **VALID[question]})
    with pytest.raises(InstanceError, match="'zz'"):
        resolve({"type": question, **VALID[question], "zz": 1})
    with pytest.raises(InstanceError, match="'type' in"):
        resolve({**VALID[question], "type": "xyz"})
    if "rule" in QUERIES[question].params:
        with pytest.raises(InstanceError, match=UNKNOWN_WINNER_RULE):
            resolve({"type": question, **VALID[question], "rule": "xyz"})


def test_election_parsing_refuses_an_unknown_rule_naming_the_known_ones():
    with pytest.raises(InstanceError, match=UNKNOWN_RULE):
        ce.SPEC.parse({**ELECTION, "rule": "xyz"})
    for q in ("winner", "manipulation"):
        with pytest.raises(InstanceError, match=UNKNOWN_RULE):
            ce.SPEC.question({"type": q, "rule": "xyz"})
    with pytest.raises(InstanceError, match=UNKNOWN_RULE):
        ce.SPEC.validate(ce.SPEC.parse(ELECTION), "winner", {"rule": "xyz"})
    with pytest.raises(InstanceError, match=UNKNOWN_RULE):
        rule_named("xyz")


# --------------------------------------------------------------------------- API and CLI

API_CALLS = {
    "necessary_winner": (lambda r: prefcert.necessary_winner(PROFILE, r, "a",
                                                             certificate=True),
                         UNKNOWN_WINNER_RULE),
    "possible_winner": (lambda r: prefcert.possible_winner(PROFILE, r, "a",
                                                           certificate=True),
                        UNKNOWN_WINNER_RULE),
    "election_winner": (lambda r: prefcert.election_winner(BALLOTS, r), UNKNOWN_RULE),
    "single_voter_manipulation": (lambda r: prefcert.single_voter_manipulation(
        BALLOTS, ["c", "a", "b"], r), UNKNOWN_RULE),
    "coalitional_manipulation": (lambda r: prefcert.coalitional_manipulation(
        BALLOTS, r, "a", k=1), UNKNOWN_RULE),
    "ballot_class_manipulation": (lambda r: prefcert.ballot_class_manipulation(
        ELECTION, r), UNKNOWN_RULE),
    "smallest_coalitions": (lambda r: prefcert.smallest_coalitions(ELECTION, r),
                            UNKNOWN_RULE),
}


@pytest.mark.parametrize("name", list(API_CALLS))
def test_api_refuses_an_unknown_rule(name):
    call, message = API_CALLS[name]
    with pytest.raises(InstanceError) as e:
        call("xyz")
    assert str(e.value) == message and isinstance(e.value, ValueError)


def test_api_refuses_a_rule_without_incomplete_profiles_for_winners():
    for rule in ("irv", "approval"):
        with pytest.raises(InstanceError, match=UNKNOWN_WINNER_RULE.replace("xyz", rule)):
            prefcert.necessary_winner(PROFILE, rule, "a")


_run = partial(cli, check=False)


@pytest.mark.parametrize("instance,question,message", [
    ({"id": "p", "domain": "preference", "profile": PROFILE},
     {"type": "winner", "rule": "xyz", "item": "a"}, UNKNOWN_WINNER_RULE),
    ({"id": "e", **ELECTION}, {"type": "winner", "rule": "xyz"}, UNKNOWN_RULE),
])
def test_cli_label_gives_the_api_message(tmp_path, instance, question, message):
    path = tmp_path / "inst.json"
    path.write_text(json.dumps({**instance, "questions": [question]}))
    r = _run("label", str(path), "-o", str(tmp_path / "out.jsonl"))
    assert r.returncode == 2 and message in r.stderr, r.stderr


@pytest.mark.parametrize("instance,good,forged", [
    ({"id": "p", "domain": "preference", "profile": PROFILE},
     {"type": "winner", "rule": "plurality", "item": "a"},
     {"type": "winner", "rule": "xyz", "item": "a"}),
    ({"id": "e", **ELECTION}, {"type": "winner", "rule": "plurality"},
     {"type": "winner", "rule": "xyz"}),
])
def test_cli_check_refuses_a_forged_label_with_an_unknown_rule(tmp_path, instance, good,
                                                               forged):
    path = tmp_path / "inst.json"
    path.write_text(json.dumps({**instance, "questions": [good]}))
    out = tmp_path / "labels.jsonl"
    assert _run("label", str(path), "-o", str(out)).returncode == 0
    assert _run("check", str(out)).returncode == 0
    lab = json.loads(out.read_text())
    out.write_text(json.dumps({**lab, "question": forged}) + "\n")
    r = _run("check", str(out))
    assert r.returncode != 0 and "'xyz'" in r.stderr and "verified" not in r.stdout, r


def test_api_check_refuses_a_forged_label_with_an_unknown_rule():
    inst = {"id": "p", "domain": "preference", "profile": PROFILE}
    lab = prefcert.label(inst, {"type": "winner", "rule": "plurality", "item": "a"})
    assert prefcert.check(lab, inst)
    with pytest.raises(InstanceError, match=UNKNOWN_WINNER_RULE):
        prefcert.check({**lab, "question": {"type": "winner", "rule": "xyz", "item": "a"}},
                       inst)
