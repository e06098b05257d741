"""The reading policy where ``prefcert score`` and ``prefcert audit`` meet, and the issue's
misreadings on generated benchmarks (regression tests; the answer corpus covers the rest)."""
from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

import prefcert
from prefcert.bench.answers import read
from conftest import cli

SM = {"id": "sm", "domain": "stable_matching", "questions": ["weakly_stable"],
      "preferences": {"A": {"A1": ["B1", "B2"], "A2": ["B2", "B1"]},
                      "B": {"B1": ["A1", "A2"], "B2": ["A2", "A1"]}}}


run = partial(cli, check=False)


@pytest.mark.parametrize("text,kind", [
    ('<answer>{"A1": "B2", "A1": "B1", "A2": "B2"}</answer>', "invalid"),  # agent twice
    ('<answer>```json\n{"A1": "B1", "A2": "B2"}\n```</answer>', "value"),
    ('<answer>{"A1": "B1", "A2": null}</answer>', "invalid"),             # null partner
])
def test_score_and_audit_read_outcomes_alike(text, kind, tmp_path):
    r = read("outcome", text, agents=["A1", "A2"])
    assert r.kind == kind, r
    inst, ans = tmp_path / "i.json", tmp_path / "a.txt"
    inst.write_text(json.dumps(SM))
    ans.write_text(text)
    out = run("audit", inst, "-q", "weakly_stable", ans)
    verdict = json.loads(out.stdout)["verdict"]
    assert verdict == ("correct" if kind == "value" else "unparseable"), out.stdout


def test_bold_letter_is_read():
    assert read("letter", "**B**", options={"A": "x", "B": "y"}).value == "B"


def test_audit_manipulation_reads_plain_text_ballots(tmp_path):
    inst = {"id": "e", "domain": "election", "candidates": ["A", "B", "C"],
            "tie_break": ["A", "B", "C"], "rule": "plurality",
            "ballots": [["A", "C", "B"], ["A", "C", "B"], ["B", "C", "A"], ["B", "C", "A"]],
            "manipulator": {"ranking": ["C", "B", "A"]}, "questions": ["manipulation"]}
    f = tmp_path / "e.json"
    f.write_text(json.dumps(inst))
    for text in ("Final ballot: B > C > A", "<answer>B > A > C</answer>",
                 "Ballot: C > B > A\nLet me reconsider.\nFinal ballot: B ≻ C ≻ A"):
        a = tmp_path / "a.txt"
        a.write_text(text)
        r = run("audit", f, "-q", "manipulation", a)
        out = json.loads(r.stdout)
        assert out["verdict"] == "correct" and out["outcome"] == "B", (text, out)
    assert prefcert.audit(inst, "manipulation", "Final ballot: C > B > A")["verdict"] \
        == "incorrect"


@pytest.mark.parametrize("text", ["The information given is insufficient to decide.",
                                  "There is not enough information to decide."])
def test_prefcert_abstain_option_text_is_an_abstention(text):
    """The abstain option's text of both shipped template sets (khanna-wang,
    prefcert-0.2), written out as the answer, with the options and in free flow."""
    r = read("letter", text, options={"A": "C4", "B": "C9", "C": text}, abstain_option="C")
    assert r.kind == "abstain"
    assert read("item", text, vocab=["C4", "C9"]).kind == "abstain"


@pytest.fixture(scope="module")
def alg_bench(tmp_path_factory):
    d = tmp_path_factory.mktemp("alg")
    r = run("generate", "indeterminacy-algorithmic", "-o", d, "--per-cell", "1",
            "--sizes", "10")
    assert r.returncode == 0, r.stderr
    return d


def _score(bench: Path, answers: dict, tmp: Path, *extra) -> dict:
    a, out = tmp / "answers.jsonl", tmp / "scores.jsonl"
    a.write_text("".join(json.dumps({"id": k, "answer": v}) + "\n" for k, v in answers.items()))
    r = run("score", bench / "prompts.jsonl", a, "-o", out, *extra)
    assert r.returncode == 0, r.stderr
    return {s["id"]: s for s in map(json.loads, out.read_text().splitlines())}


def test_none_of_the_above_in_words_on_nota_prompts(alg_bench, tmp_path):
    prompts = [json.loads(x) for x in (alg_bench / "prompts.jsonl").read_text().splitlines()]
    nota = [p for p in prompts if p.get("nota_option") and not p["task"]["feasible"]]
    assert nota
    s = _score(alg_bench, {p["id"]: "None of the above." for p in nota}, tmp_path)
    assert all(x["verdict"] == "correct" for x in s.values())
    assert all(x["parsed"]["kind"] == "none" and x["parsed"]["rule"] for x in s.values())
    strict = _score(alg_bench, {p["id"]: "None of the above." for p in nota}, tmp_path,
                    "--parse", "strict")
    assert all(x["verdict"] == "invalid" for x in strict.values())


# ----------------------------------------------------------------------------- audit = score

@pytest.mark.parametrize("text,verdict,rule,score_kind", [
    # pairs in prose and a non-existence claim: score's outcome reader reads them, so audit
    # must too (they were "unparseable" in audit and read in score)
    ("Final matching as pairs: (A1, B1), (A2, B2)", "correct", "pairs_in_text", "value"),
    ("Here is my matching:\n{\"A1\": \"B1\", \"A2\": \"B2\"}", "correct", "json", "value"),
    ("No weakly stable matching exists.", "incorrect", "none_phrase", "none"),
    ('<answer>{"A1": "B1", "A2": "B2"}</answer>', "correct", "answer_tag/json", "value"),
    # {} is the empty matching in an audit (not stable here: incorrect), and the "no
    # solution" hatch in the benchmarks' prompts, which score reads as such
    ("<answer>{}</answer>", "incorrect", "answer_tag/empty_object", "none"),
    ("I am not sure.", "unparseable", "no_outcome", "invalid"),
])
def test_audit_reads_text_outcomes_as_score_does_and_says_how(text, verdict, rule, score_kind,
                                                               tmp_path):
    inst, ans = tmp_path / "i.json", tmp_path / "a.txt"
    inst.write_text(json.dumps(SM))
    ans.write_text(text)
    out = json.loads(run("audit", inst, "-q", "weakly_stable", ans).stdout)
    assert out["verdict"] == verdict, out
    assert rule in out["parsed"]["rule"], out["parsed"]
    r = read("outcome", text, agents=["A1", "A2"])          # the reader prefcert score uses
    assert r.kind == score_kind, r


def test_audit_of_a_ballot_names_its_reading():
    inst = {"id": "e", "domain": "election", "candidates": ["A", "B", "C"],
            "tie_break": ["A", "B", "C"], "rule": "plurality",
            "ballots": [["A", "C", "B"], ["B", "C", "A"]],
            "manipulator": {"ranking": ["C", "B", "A"]}, "questions": ["manipulation"]}
    out = prefcert.audit(inst, "manipulation", "Final ballot: B > C > A")
    assert out["parsed"]["rule"] and out["parsed"]["kind"] == "text"
    out = prefcert.audit(inst, "manipulation", '["B", "C", "A"]')
    assert out["parsed"] == {"kind": "value", "value": ["B", "C", "A"], "rule": "text/json"}


# ----------------------------------------------------------------------------- more formats

@pytest.mark.parametrize("text,kind,value", [
    ("A12 prefers C18 to C47.", "value", "C18"),
    ("So C47 is preferred over C18.", "value", "C47"),
    ("C18 is ranked above C47 in A12's list.", "value", "C18"),
    ("A12 prefers C18 over C47, but C47 is ranked above C18.", "ambiguous", None),
    ("It is not the case that A12 prefers C47 to C18.", "ambiguous", None),
])
def test_a_stated_preference_names_the_preferred_item(text, kind, value):
    r = read("item", text, vocab=["C18", "C47", "C3"])
    assert (r.kind, r.value) == (kind, value), r
    if kind == "value":
        assert r.rule.endswith("preference_statement")


@pytest.mark.parametrize("text,rule", [
    ('<answer>{"a1": "b2", "a2": "b1"}</answer>', "case_folded"),
    ('<answer>{"matching": {"A1": "B2", "A2": "B1"}}</answer>', "unwrapped"),
])
def test_outcome_in_another_case_or_wrapped_is_read(text, rule):
    r = read("outcome", text, agents=["A1", "A2"], partners=["B1", "B2"])
    assert r.kind == "value" and r.value == {"A1": "B2", "A2": "B1"}, r
    assert rule in r.rule


def test_every_scored_record_names_its_rule_timeouts_too(alg_bench, tmp_path):
    prompts = [json.loads(x) for x in (alg_bench / "prompts.jsonl").read_text().splitlines()]
    a, out = tmp_path / "answers.jsonl", tmp_path / "scores.jsonl"
    texts = [None, "", "no idea", "None of the above.", '<answer>{}</answer>']
    a.write_text("".join(json.dumps({"id": p["id"], "answer": texts[i % len(texts)]}) + "\n"
                         for i, p in enumerate(prompts)))
    r = run("score", alg_bench / "prompts.jsonl", a, "-o", out)
    assert r.returncode == 0, r.stderr
    got = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(got) == len(prompts)
    assert all(s["parsed"] and s["parsed"]["rule"] for s in got), \
        [s for s in got if not (s["parsed"] and s["parsed"]["rule"])][:2]
    assert {"kind": "timeout", "value": None, "rule": "no_answer"} in [s["parsed"] for s in got]


TASK = {"domain": "decision", "structure": "scheduling", "agents": ["P1", "P2"],
        "items": ["T1", "T2"]}


def test_two_different_unmarked_decision_objects_are_ambiguous():
    """The policy's "two different unmarked answers" rule holds for decision objects too
    (the last object used to win silently); a marked final one is read alone."""
    act = '{"decision": "ACT", "action": "T1", "question": null, "repair": null}'
    ask = '{"decision": "ASK-OBJECTIVE", "action": null, "question": null, "repair": null}'
    r = read("decision", f"{act}\nOn second thought:\n{ask}")
    assert r.kind == "ambiguous" and r.rule.endswith("several_answers"), r
    r = read("decision", f"Draft: {act}\nFinal answer:\n{ask}")
    assert r.kind == "value" and r.value["decision"] == "ASK-OBJECTIVE", r
    assert read("decision", f"{act}\nSo: {act}").kind == "value"     # a repeat agrees


@pytest.mark.parametrize("shape,text,value", [
    ("item", "In A12's list C18 is at position 21 and C47 at 43.\n\nTherefore, the answer is "
             "C18.", "C18"),
    ("int", "Counting from the top: 1. C4, 2. C9, then C16 is 10th.\n\nThe position is 10.", 10),
])
def test_reasoning_naming_several_then_a_last_paragraph_that_answers(shape, text, value):
    """Untagged prose is read from its last statement: reasoning that names several items
    or numbers no longer makes a clear closing answer ambiguous."""
    r = read(shape, text, vocab=["C4", "C9", "C16", "C18", "C47"])
    assert (r.kind, r.value) == ("value", value), r
    assert r.rule.startswith("last_statement")


def test_a_last_paragraph_that_does_not_settle_it_stays_ambiguous():
    r = read("item", "C18 or C47, hard to say.\n\nMaybe C18, maybe C47.", vocab=["C18", "C47"])
    assert r.kind == "ambiguous"


def test_ranking_in_ordinal_words_and_an_inline_numbered_ballot():
    r = read("ranking", "C2 first, then C1, then C4.", vocab=["C1", "C2", "C4"])
    assert (r.kind, r.value) == ("value", ["C2", "C1", "C4"]), r
    for text in ("Final ballot: 1. B 2. A 3. C", "Final ballot: 1) B, 2) A, 3) C"):
        r = read("ballot", text, candidates=["A", "B", "C"], approval=False)
        assert (r.kind, r.value) == ("value", ["B", "A", "C"]), (text, r)


# a small housing market: the test pins only that score's reader and audit read "None" alike
HM_NE = {"id": "hm", "domain": "housing_market", "endowment": {"A1": "H1", "A2": "H2"},
         "preferences": {"A1": [["H1", "H2"]], "A2": [["H1", "H2"]]}}


@pytest.mark.parametrize("text", ["<answer>None</answer>", "None", "<answer>null</answer>"])
def test_score_and_audit_read_a_bare_none_alike(text):
    """Regression (found by a new user): ``<answer>None</answer>`` was invalid for
    ``prefcert score`` (no outcome) but the non-existence claim for ``prefcert audit``."""
    r = read("outcome", text, agents=["A1", "A2"])
    a = prefcert.audit(HM_NE, "weak_core", text)
    assert r.kind == "none" and a["parsed"]["kind"] == "none" and a["parsed"]["value"] is None
    if "None" in text:
        assert a["parsed"] == r.to_json()


@pytest.mark.parametrize("shape,text,kind,value", [
    # the new user's answers (K&W §2.2: the answer stated counts, not an incidental word)
    ("item", "Some positions are unknown, but A37's 45th choice is C5.", "value", "C5"),
    ("item", "A45's 34th most preferred choice is C14. (It is not unknown: the list is "
             "complete.)", "value", "C14"),
    ("bundle", "Neither item of {C30, C15} beats C32, so A25 prefers {C32, C6}.", "value",
     ["C32", "C6"]),
    ("yesno", "The tie group makes some positions uncertain, but C22 sits well outside the "
              "top 32, so the answer is no.", "value", "no"),
    ("item", "<answer>C5, though I am uncertain</answer>", "value", "C5"),
    ("item", "<answer>uncertain</answer>", "abstain", None),
    ("item", "C5 is unlisted, so its position cannot be determined.", "abstain", None),
])
def test_an_abstention_counts_when_it_is_the_answer_stated(shape, text, kind, value):
    vocab = ["C5", "C6", "C14", "C15", "C22", "C30", "C32"]
    r = read(shape, text, vocab=vocab, bundles=[["C15", "C30"], ["C32", "C6"]])
    assert (r.kind, r.value) == (kind, value), r
