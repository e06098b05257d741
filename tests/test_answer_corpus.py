"""The hand-written answer corpus (tests/data/answers, see its README) read and judged by
prefcert: every entry through the real reader and the suite's verdict logic, compared with
the reading and the verdict derived by hand from the papers' rules. Outcome verdicts rest on
prefcert's checker-backed audit of the entry's instance; ballots on the certified
manipulation label; decisions on the certified decision label. Then a benchmark folder built
from corpus entries is scored by ``prefcert score`` (the console script) and must give the
verdicts of the API path."""
from __future__ import annotations

import json
import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

import prefcert
from prefcert.bench.answers import Reading, read
from prefcert.bench.indeterminacy import algorithmic as alg
from prefcert.bench.indeterminacy import preference as pref
from prefcert.bench.voting_manipulation.ballots import score_ballot

CORPUS = Path(__file__).parent / "data" / "answers"
ENTRIES = [json.loads(line) for f in sorted(CORPUS.glob("*.jsonl"))
           for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
OPTION_SHAPE = {"kth": "item", "compare": "item", "partial_order": "item", "position": "int",
                "count": "int", "rank": "ranking", "bundle": "bundle"}
QUESTION = {"stable": "weakly_stable", "core": "strict_core"}
STRUCTURE = {"not_a_matching", "not_an_allocation"}


def vocab_of(c: dict) -> list[str]:
    """The item names of a preference context: its items, the names in its preference
    string, and the ranges it abbreviates ("C1 > ... > C100")."""
    v = list(c["items"])
    for a, b in re.findall(r"C(\d+) > \.\.\. > C(\d+)", c["preference"]):
        lo, hi = sorted((int(a), int(b)))
        v += [f"C{i}" for i in range(lo, hi + 1)]
    v += re.findall(r"C\d+", c["preference"])
    return list(dict.fromkeys(v))


def side_a(inst: dict) -> list[str]:
    if inst["domain"] == "stable_matching":
        return list(inst["preferences"]["A"])
    if inst["domain"] == "hospitals_residents":
        return list(inst["preferences"]["residents"])
    return list(inst["preferences"])


def election(c: dict) -> dict:
    approval = c["rule"] == "approval"
    return {"domain": "election", "id": "corpus-election", "candidates": c["candidates"],
            "tie_break": c["tie_break"], "rule": c["rule"],
            "ballots": [{"approve": b} if approval else b for b in c["profile"]],
            "manipulator": {"ranking": c["true_ranking"]}, "approval_top": 1,
            "questions": ["manipulation"]}


def reader_context(e: dict) -> dict:
    c, s = e["context"], e["shape"]
    if s in ("item", "int", "ranking", "items", "yesno"):
        return {"vocab": vocab_of(c)}
    if s == "bundle":
        bundles = [[x.strip() for x in b.split(",")] for b in re.findall(r"\{([^{}]*)\}",
                                                                          c["query"])]
        return {"vocab": vocab_of(c), "bundles": bundles}
    if s == "letter":
        k = {"options": c["options"], "abstain_option": c.get("abstain_option"),
             "nota_option": c.get("nota_option")}
        if "domain" in c:
            return {**k, "option_shape": "outcome", "agents": side_a(c["instance"])}
        return {**k, "option_shape": OPTION_SHAPE[c["family"]]}
    if s == "outcome":
        return {"agents": side_a(c["instance"])}
    if s == "ballot":
        return {"candidates": c["candidates"], "approval": c["rule"] == "approval"}
    if s == "decision":
        from prefcert.bench.actionable.responses import task_names
        from prefcert.formal.decision import parse_decision
        return {"names": task_names(parse_decision(c["task"]))}
    return {}


@cache
def audit(inst_json: str, question: str, answer_json: str) -> dict:
    return prefcert.audit(json.loads(inst_json), question, json.loads(answer_json))


def audited(inst: dict, question: str, outcome) -> dict:
    return audit(json.dumps(inst, sort_keys=True), question, json.dumps(outcome))


@cache
def feasible(inst_json: str, question: str) -> bool:
    lab = prefcert.label(json.loads(inst_json), question)
    assert lab["checked"]
    return lab["verdict"] != "none"


def outcome_facts(inst: dict, notion: str, value) -> dict:
    """What the checker-backed audit says of an outcome: valid, satisfies the notion, and
    (core) in the weak core only; the housing agents a one-to-one allocation leaves out."""
    q = QUESTION.get(notion, notion)
    a = audited(inst, q, value if value else [])       # [] : the empty outcome itself
    cert = (a.get("proof") or {}).get("certificate") or {}
    valid = a["verdict"] == "correct" or (a["verdict"] == "incorrect"
                                          and cert.get("type") not in STRUCTURE)
    out = {"valid": valid, "satisfies": a["verdict"] == "correct"}
    if notion == "core" and valid and not out["satisfies"]:
        out["weak_core_only"] = audited(inst, "weak_core", value)["verdict"] == "correct"
    if not valid and inst["domain"] == "housing_market":
        out["left_out"] = alg.missing_agents(value, side_a(inst))
    if not valid and not out.get("left_out"):
        out["unacceptable"] = inst["domain"] != "hospitals_residents" and \
            alg.one_to_one(value, side_a(inst), partners(inst))
    return out


def partners(inst: dict) -> list[str]:
    if inst["domain"] == "stable_matching":
        return list(inst["preferences"]["B"])
    if inst["domain"] == "housing_market":
        return list(inst["endowment"].values())
    return sorted({x for lst in inst["preferences"].values() for t in lst
                   for x in (t if isinstance(t, list) else [t])})


def judged(e: dict) -> tuple[Reading, str | None]:
    """(reading, verdict in the corpus vocabulary) of one entry, by prefcert."""
    c, s, gold = e["context"], e["shape"], e["gold"]
    ctx = reader_context(e)
    r = read(s, e["answer"], **ctx)
    if s == "number":
        return r, None
    if s in ("item", "int", "ranking", "bundle", "items", "yesno"):
        if not gold["determined"]:
            truth = {"kind": "abstain"}
        else:
            v = gold["value"]
            truth = {"kind": "value", "value": sorted(v) if s in ("bundle", "items") else v}
        if s == "items" and not gold["determined"]:
            return r, None                            # R3: the paper takes no position
        count_range = s == "int" and c["family"] == "count" and "c1_only_inclusive" in gold
        verdict, _ = pref.judge(r, truth, {"type": c["family"]}, count_range=count_range)
        return r, verdict
    if s == "letter" and "domain" not in c:
        inner = pref.option_reading(r, ctx["options"], ctx["abstain_option"],
                                    ctx["option_shape"], {})
        g = gold["letter"]
        truth = {"kind": "abstain"} if g == ctx["abstain_option"] else \
            {"kind": "value", "value": read(ctx["option_shape"], c["options"][g]).value}
        verdict, _ = pref.judge(inner, truth, {"type": c["family"]})
        return r, verdict
    if s == "letter":
        inst, q = c["instance"], QUESTION.get(c["notion"], c["notion"])
        sat = {L: audited(inst, q, json.loads(o))["verdict"] == "correct"
               for L, o in c["options"].items() if L != c.get("nota_option")}
        ok = feasible(json.dumps(inst, sort_keys=True), q)
        rr = Reading("none", None, r.rule) if r.kind == "value" and \
            r.value == c.get("nota_option") else r
        verdict, _ = alg.judge_selection(rr, sat, hard=True, feasible=ok)
        return r, verdict
    if s == "outcome":
        inst, notion = c["instance"], c["notion"]
        ok = feasible(json.dumps(inst, sort_keys=True), QUESTION.get(notion, notion))
        assert ok == gold["exists"], e["id"]
        facts = outcome_facts(inst, notion, r.value) if r.kind == "value" else {}
        if r.kind == "none" and ok and c["escape"]:
            facts["empty_solves"] = outcome_facts(inst, notion, {})["satisfies"]
        verdict, rule = alg.judge_outcome(r, feasible=ok, escape=c["escape"], **facts)
        if rule == "R11:empty_outcome_solves":
            r = Reading("ambiguous", None, rule)
        elif r.kind == "value" and not (facts.get("valid") or facts.get("left_out")
                                        or facts.get("unacceptable")):
            r = Reading("invalid", None, "not_one_to_one")
        return r, verdict
    if s == "ballot":
        inst = election(c)
        lab = prefcert.label(inst, "manipulation")
        assert lab["checked"] and lab["solution"]["sincere_winner"] == gold["sincere_winner"]
        res = score_ballot(inst, lab["solution"], e["answer"])
        return r, res["effect"]
    if s == "decision":
        j = prefcert.score_response(c["task"], e["answer"])
        verdict = "correct" if j["fc"] else "ambiguous" if j["ambiguous"] else \
            "invalid" if not j["parsed"] else \
            "decision_only" if j["decision_correct"] else "incorrect"
        return r, verdict
    raise AssertionError(s)


def reading_json(r: Reading, shape: str) -> dict:
    out: dict = {"kind": r.kind}
    if r.kind == "value":
        if shape == "number":
            out.update(value=r.value["value"], number_only=r.value["number_only"])
        else:
            out["value"] = r.value
    return out


def test_corpus_is_the_spec():
    assert len(ENTRIES) >= 400 and len({e["id"] for e in ENTRIES}) == len(ENTRIES)
    assert {e["shape"] for e in ENTRIES} == {"item", "int", "ranking", "bundle", "items",
                                             "yesno", "letter", "outcome", "ballot",
                                             "decision", "number"}


@pytest.mark.parametrize("e", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_corpus_entry(e):
    r, verdict = judged(e)
    assert reading_json(r, e["shape"]) == e["reading"], (r.rule, r.reason)
    if e["verdict"] is not None:
        assert verdict == e["verdict"], (r.to_json(), r.reason)
    assert r.rule, "every reading names its rule"


def test_ambiguous_entries_name_their_rule():
    for e in ENTRIES:
        if e["verdict"] == "ambiguous" or e["reading"]["kind"] == "ambiguous":
            r, _ = judged(e)
            assert r.rule, e["id"]


# ----------------------------------------------------------------------------- CLI vs API

def _bench_folder(tmp: Path) -> tuple[Path, dict[str, str], dict[str, str]]:
    """A benchmark folder (prompts / labels / instances in the format ``prefcert generate``
    writes) of the corpus's ballot and decision entries; (prompts path, answers by prompt
    id, the API path's suite verdict by prompt id)."""
    prompts, labels, insts, answers, api = [], [], {}, {}, {}
    for e in ENTRIES:
        c = e["context"]
        pid = e["id"]
        if e["shape"] == "ballot":
            inst = dict(election(c), id=f"inst-{pid}")
            lab = prefcert.label(inst, "manipulation")
            lid = f"{inst['id']}#0"
            prompts.append({"id": pid, "suite": "voting-manipulation",
                            "instance_id": inst["id"], "instance_ids": [inst["id"]],
                            "cell": {"rule": c["rule"], "size": len(c["candidates"]),
                                     "stratum": "manipulable" if gold_manip(e)
                                     else "non_manipulable", "format": "strategic"},
                            "answer_shape": "ballot", "gold_label_ids": [lid]})
            res = score_ballot(inst, lab["solution"], e["answer"])
            api[pid] = res["parsed"]["kind"] if not res["valid"] else \
                ("correct" if res["O"] else "incorrect")
        elif e["shape"] == "decision":
            task = c["task"]
            inst = dict(task, id=f"inst-{pid}")
            lab = prefcert.label(inst, "decision")
            lid = f"{inst['id']}#0"
            meta = task.get("meta", {})
            prompts.append({"id": pid, "suite": "actionable-indeterminacy",
                            "instance_id": inst["id"], "instance_ids": [inst["id"]],
                            "cell": {"format": c["wording"]}, "answer_shape": "decision",
                            "gold_label_ids": [lid],
                            "task": {"design": "v3", "structure": task["structure"],
                                     "size": len(task["agents"]), "source": task["source"],
                                     "role": "act" if lab["verdict"] == "act" else
                                     "intervention", "pair": pid, "group": None,
                                     "cell": meta.get("group", "corpus")}})
            j = prefcert.score_response(task, e["answer"])
            api[pid] = "correct" if j["fc"] else "ambiguous" if j["ambiguous"] else \
                "invalid" if not j["parsed"] else "incorrect"
        else:
            continue
        insts[inst["id"]] = inst
        labels.append({"label_id": lid, **lab})
        answers[pid] = e["answer"]
    tmp.mkdir(parents=True, exist_ok=True)
    for name, rows in (("prompts", prompts), ("labels", labels),
                       ("instances", list(insts.values()))):
        (tmp / f"{name}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rows),
                                           encoding="utf-8")
    return tmp / "prompts.jsonl", answers, api


def gold_manip(e: dict) -> bool:
    return bool(e["gold"].get("manipulable"))


def test_cli_and_api_agree_on_the_corpus(tmp_path):
    prompts, answers, api = _bench_folder(tmp_path / "bench")
    a = tmp_path / "answers.jsonl"
    a.write_text("".join(json.dumps({"id": k, "answer": v}) + "\n" for k, v in answers.items()),
                 encoding="utf-8")
    out = tmp_path / "scores.jsonl"
    r = subprocess.run(["prefcert", "score", str(prompts), str(a), "-o", str(out), "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = {s["id"]: s for s in map(json.loads, out.read_text().splitlines())}
    assert set(got) == set(api) and len(api) > 100
    assert {k: s["verdict"] for k, s in got.items()} == api
    assert all(s["parsed"]["rule"] for s in got.values())
    assert any(s["verdict"] == "ambiguous" for s in got.values())
    assert '"share_ambiguous"' in r.stdout
    # strict: the papers' protocol only; every prose-wrapped decision becomes invalid
    r = subprocess.run(["prefcert", "score", str(prompts), str(a), "-o", str(out),
                        "--parse", "strict", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    strict = {s["id"]: s["verdict"] for s in map(json.loads, out.read_text().splitlines())}
    assert strict["act-decision-001"] == "invalid" and api["act-decision-001"] == "correct"
    assert strict["vote-ballot-001"] == api["vote-ballot-001"] == "correct"
