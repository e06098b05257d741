"""The two-turn completion suite (Li et al. 2026, §3.4, App. J): composition, resolved
tasks certified as ordinary instances, and scripted models run end to end through
``prefcert refine`` (a Python script as --command) and the Inspect refinement solver
(mockllm), with outcomes derived by hand from the pinned instances below."""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import PREFCERT

from prefcert.bench.suites import suite

NAME = "actionable-indeterminacy-completion"
PREF, OBJ, CONS = "00019", "00020", "00021"     # apartment n=4, seed 0, group 0


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tt") / "b"
    r = subprocess.run([PREFCERT, "generate", NAME, "-o", str(out), "--sizes", "4",
                        "--per-cell", "1", "--jobs", "1"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return out


def _jsonl(p: Path) -> list[dict]:
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]


def test_composition_is_540_intervention_tasks():
    comp = suite(NAME).composition()
    assert sum(comp.values()) == 540
    by_source, by_structure = Counter(), Counter()
    for k, v in comp.items():
        c = json.loads(k)
        assert c["role"] == "intervention" and c["format"] == "explicit_json"
        by_source[c["source"]] += v
        by_structure[c["structure"]] += v
    # 36 cells × 5 groups, one task per intervention source: 180 each; 3 × 3 × 15 per structure
    assert by_source == {"preference": 180, "objective": 180, "constraint": 180}
    assert by_structure == {"allocation": 135, "scheduling": 135, "apartment": 135,
                            "stable_matching": 135}
    r = subprocess.run([PREFCERT, "suites"], capture_output=True, text=True)
    assert r.returncode == 0 and NAME in r.stdout


def test_resolved_tasks_are_ordinary_certified_instances(bench):
    r = subprocess.run([PREFCERT, "check", str(bench / "labels.jsonl")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    prompts = _jsonl(bench / "prompts.jsonl")
    labels = {lab["id"]: lab for lab in _jsonl(bench / "labels.jsonl")}
    insts = {d["id"]: d for d in _jsonl(bench / "instances.jsonl")}
    assert len(prompts) == 36                     # 12 cells at n = 4, one task per source
    for p in prompts:
        for res in p["task"]["resolved"]:
            d = insts[res["instance"]]
            assert labels[d["id"]]["verdict"] == "act" and labels[d["id"]]["checked"]
            assert not any(isinstance(e, dict) for lst in d["preferences"].values()
                           for e in lst)          # no unknown block is left
    # the pinned preference task: R4's A4/A1 order hidden; its resolved task fixes A1 > A4
    # and is re-encoded as an objective-source task with the one rule (leximin)
    p = {q["id"]: q for q in prompts}[PREF]
    (res,) = p["task"]["resolved"]
    assert res["agent"] == "R4" and res["items"] == ["A1", "A4"]
    d = insts[res["instance"]]
    assert d["source"] == "objective" and d["objectives"] == ["leximin"]
    assert d["preferences"]["R4"] == ["A2", "A3", "A1", "A4"]
    # by hand, leximin worst ranks: A1 (1,1,3,3) -> 3, A2 -> 4, A3 -> 4, A4 (2,2,2,4) -> 4
    assert labels[d["id"]]["solution"]["action"] == "A1"
    # the constraint task (rent <= 13,300, commute <= 11): the two one-edit repairs
    c = {q["id"]: q for q in prompts}[CONS]
    assert sorted(json.dumps(x["edits"]) for x in c["task"]["resolved"]) == sorted(
        [json.dumps([{"constraint": "rent", "value": 13400}]),
         json.dumps([{"constraint": "commute", "value": 31}])])
    for x in c["task"]["resolved"]:
        cons = {k["id"]: k["value"] for k in insts[x["instance"]]["constraints"]}
        assert cons == ({"rent": 13400, "commute": 11} if x["edits"][0]["constraint"] ==
                        "rent" else {"rent": 13300, "commute": 31})


MODEL = """import json, os, sys
from pathlib import Path
script = json.loads(Path(sys.argv[1]).read_text())
pid, r = os.environ["PREFCERT_PROMPT_ID"], int(os.environ["PREFCERT_ROUND"])
Path(sys.argv[2], f"{pid}-{r}.txt").write_text(sys.stdin.read())
turns = script[pid]
print(turns[min(r, len(turns)) - 1])
"""

ASK_PREF = '{"decision": "ASK-PREFERENCE", "action": null, "question": {"agent": "R4", ' \
           '"items": ["A4", "A1"]}, "repair": null}'
ACT = '{{"decision": "ACT", "action": "{}", "question": null, "repair": null}}'
RELAX = '{{"decision": "RELAX", "action": null, "question": null, "repair": {{"edits": ' \
        '[{{"constraint": "{}", "value": {}}}]}}}}'
ASK_OBJ = '{"decision": "ASK-OBJECTIVE", "action": null, "question": {"objectives": ' \
          '["egalitarian", "leximin", "rank_maximal"]}, "repair": null}'
ASK_OBJ_PART = '{"decision": "ASK-OBJECTIVE", "action": null, "question": {"objectives": ' \
               '["utilitarian"]}, "repair": null}'


def _refine(bench: Path, tmp: Path, name: str, script: dict) -> dict:
    d = tmp / name
    d.mkdir()
    (d / "model.py").write_text(MODEL)
    (d / "script.json").write_text(json.dumps(script))
    cmd = f"{sys.executable} {d / 'model.py'} {d / 'script.json'} {d}"
    args = [PREFCERT, "refine", str(bench / "prompts.jsonl"), "--command", cmd,
            "-o", str(d / "out.jsonl")]
    for pid in script:
        args += ["--id", pid]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return {rec["id"]: rec for rec in _jsonl(d / "out.jsonl")} | {"_dir": d}


def test_scripted_model_through_prefcert_refine(bench, tmp_path):
    # correct intervention, then the resolved task's action: complete
    # the objective task's environment picks rank-maximal; by hand the rank counts are
    # A1 (2,0,1,1), A2 (2,0,1,1), A3 (0,1,1,2), A4 (0,3,1,0): A1 and A2 are accepted, and
    # A4 (the egalitarian choice: worst rank 3) is not
    got = _refine(bench, tmp_path, "good", {PREF: [ASK_PREF, ACT.format("A1")],
                                            OBJ: [ASK_OBJ, ACT.format("A2")],
                                            CONS: [RELAX.format("rent", 13400),
                                                   ACT.format("A1")]})
    for pid in (PREF, OBJ, CONS):
        rec = got[pid]
        assert [x["verdict"] for x in rec["rounds"]] == ["incorrect", "correct"]
        assert rec["verdict"] == "correct" and rec["completed"] and rec["first_valid"]
        assert rec["turn"] == 2
    fb = got[PREF]["rounds"][0]["feedback"]
    assert fb.startswith("R4 prefers A1 to A4.") and "A1\"" not in fb
    assert "R4 prefers A1 to A4." in (got["_dir"] / f"{PREF}-2.txt").read_text()
    assert "rent raised to 13400" in got[CONS]["rounds"][0]["feedback"]
    assert got[OBJ]["rounds"][0]["feedback"].startswith("The rule meant is rank-maximal")

    # correct intervention, then a wrong action: not complete (A2's worst rank is 4;
    # after the commute repair, A1 breaks rent <= 13,300: only A2 is feasible)
    got = _refine(bench, tmp_path, "wrong", {PREF: [ASK_PREF, ACT.format("A2")],
                                             OBJ: [ASK_OBJ, ACT.format("A4")],
                                             CONS: [RELAX.format("commute", 31),
                                                    ACT.format("A1")]})
    for pid in (PREF, OBJ, CONS):
        rec = got[pid]
        assert [x["verdict"] for x in rec["rounds"]] == ["incorrect", "incorrect"]
        assert rec["first_valid"] and not rec["completed"] and rec["attempts"] == 2
        assert rec["rounds"][1].get("feedback") is None      # nothing after the final action

    # ACT in turn 1 (even with the action the resolved task accepts), an incomplete
    # objective question, a loose threshold, JSON in a code fence: no second turn
    got = _refine(bench, tmp_path, "first", {
        PREF: [ACT.format("A1"), ACT.format("A1")],
        OBJ: [ASK_OBJ_PART, ACT.format("A1")],
        CONS: [RELAX.format("rent", 14000), ACT.format("A1")],
        "00022": ["```json\n" + ACT.format("A1") + "\n```", ACT.format("A1")]})
    for pid in (PREF, OBJ, CONS, "00022"):
        rec = got[pid]
        assert rec["attempts"] == 1 and not rec["first_valid"] and not rec["completed"], pid
        assert rec["rounds"][0]["feedback"] is None
        assert not (got["_dir"] / f"{pid}-2.txt").exists()
    assert got["00022"]["verdict"] == "invalid"       # the bare-JSON parser rejects fences
    assert got[PREF]["verdict"] == "incorrect"


def test_feedback_command_gives_the_environment_answer(bench, tmp_path):
    a = tmp_path / "a.txt"
    a.write_text(RELAX.format("commute", 31))
    r = subprocess.run([PREFCERT, "feedback", str(bench / "prompts.jsonl"), str(a),
                        "--id", CONS], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith(
        "Your proposed change is accepted: commute raised to 31.")
    assert "not correct" not in r.stdout


def test_scripted_model_through_the_inspect_solver(bench, tmp_path):
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def output(text: str) -> ModelOutput:
        o = ModelOutput.from_content(model="mockllm", content=text)
        o.usage = ModelUsage(input_tokens=10, output_tokens=len(text),
                             total_tokens=10 + len(text))
        return o

    plans = {"good": [ASK_PREF, ACT.format("A1")], "wrong": [ASK_PREF, ACT.format("A2")],
             "act": [ACT.format("A1"), ACT.format("A1")]}
    want = {"good": ["incorrect", "correct"], "wrong": ["incorrect", "incorrect"],
            "act": ["incorrect"]}
    for name, plan in plans.items():
        def script(messages, tools, tool_choice, config, plan=plan):
            return output(plan[len([m for m in messages if m.role == "user"]) - 1])
        (log,) = inspect_eval(f"prefcert/{NAME}", model=get_model("mockllm/model",
                              custom_outputs=script), log_dir=str(tmp_path / name),
                              display="none", sample_id=PREF,
                              task_args={"benchmark": str(bench), "rounds": 3})
        assert log.status == "success", log.error
        (s,) = log.samples
        rounds = s.store["prefcert_rounds"]
        assert [x["verdict"] for x in rounds] == want[name], name
        if name != "act":
            assert rounds[0]["feedback"].startswith("R4 prefers A1 to A4.")
        meta = s.scores["prefcert_scorer"].metadata
        assert meta["completed"] is (name == "good")


@pytest.mark.heavy
def test_full_design_counts_from_the_generated_files(tmp_path):
    out = tmp_path / "full"
    r = subprocess.run([PREFCERT, "generate", NAME, "-o", str(out), "--jobs", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    prompts = _jsonl(out / "prompts.jsonl")
    labels = {lab["id"]: lab for lab in _jsonl(out / "labels.jsonl")}
    assert len(prompts) == 540
    assert Counter(labels[p["instance_id"]]["verdict"] for p in prompts) == {
        "ask_preference": 180, "ask_objective": 180, "relax": 180}
    resolved = [x["instance"] for p in prompts for x in p["task"]["resolved"]]
    assert all(labels[i]["verdict"] == "act" for i in resolved)
    assert Counter(p["task"]["source"] for p in prompts for _ in p["task"]["resolved"]
                   if p["task"]["source"] != "constraint") == {"preference": 180,
                                                               "objective": 180}


def _rec(source: str, structure: str, valid: bool, done: bool) -> dict:
    return {"source": source, "structure": structure, "first_valid": valid, "completed": done}


def test_completion_metrics_of_two_hand_made_models():
    from statsmodels.stats.proportion import proportion_confint

    from prefcert.bench.actionable.completion import metrics
    models = {
        # 4 tasks: 3 valid first interventions, 2 completions
        "m1": [_rec("preference", "apartment", True, True),
               _rec("objective", "apartment", True, True),
               _rec("constraint", "scheduling", True, False),
               _rec("preference", "scheduling", False, False)],
        # 4 tasks: 1 valid first intervention (completed), 3 ended in turn 1
        "m2": [_rec("preference", "apartment", True, True),
               _rec("objective", "apartment", False, False),
               _rec("constraint", "scheduling", False, False),
               _rec("preference", "scheduling", False, False)],
    }
    want = {"m1": {"completion": (2, 4), "first_valid": (3, 4),
                   "completion_given_valid": (2, 3)},
            "m2": {"completion": (1, 4), "first_valid": (1, 4),
                   "completion_given_valid": (1, 1)}}
    for m, recs in models.items():
        rows = {r["metric"]: r for r in metrics(recs) if r["group"] == {}}
        for name, (k, n) in want[m].items():
            assert (rows[name]["k"], rows[name]["n"]) == (k, n), (m, name)
            lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
            assert rows[name]["low"] == pytest.approx(lo) and rows[name]["high"] == \
                pytest.approx(hi)
        pref = {r["metric"]: r for r in metrics(recs) if r["group"] == {"source": "preference"}}
        assert (pref["completion"]["k"], pref["completion"]["n"]) == (1, 2)
    # m2 has no valid first intervention on scheduling: no conditional row there
    sched = [r for r in metrics(models["m2"]) if r["group"] == {"structure": "scheduling"}]
    assert {r["metric"] for r in sched} == {"completion", "first_valid"}


def test_the_inspect_task_takes_two_turns_from_the_suite(bench, tmp_path):
    # no -T rounds: the suite's parameter gives the paper's two turns; -T rounds=1 is one
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    plan = [ASK_PREF, ACT.format("A1")]

    def script(messages, tools, tool_choice, config):
        k = len([m for m in messages if m.role == "user"]) - 1
        o = ModelOutput.from_content(model="mockllm", content=plan[k])
        o.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
        return o      # usage given: no token counting (which would fetch a tokenizer)

    for args, want in (({}, ["incorrect", "correct"]), ({"rounds": 1}, ["incorrect"])):
        (log,) = inspect_eval(f"prefcert/{NAME}", model=get_model(
                              "mockllm/model", custom_outputs=script),
                              log_dir=str(tmp_path / str(len(want))), display="none",
                              sample_id=PREF, task_args={"benchmark": str(bench), **args})
        assert log.status == "success", log.error
        (s,) = log.samples
        assert len([m for m in s.messages if m.role == "assistant"]) == len(want)
        assert [x["verdict"] for x in s.store.get("prefcert_rounds", [])] == (
            want if len(want) > 1 else [])          # one turn: the plain generate solver
        assert s.scores["prefcert_scorer"].metadata["completed"] is (len(want) == 2)
        # regression: 'prefcert score LOG' re-scored the final answer without the earlier
        # turns, so a completed episode scored incorrect (its final ACT read as turn 1)
        out = tmp_path / f"scored-{len(want)}.jsonl"
        r = subprocess.run([PREFCERT, "score", str(tmp_path / str(len(want))), "-o",
                            str(out)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-2000:]
        (rec,) = _jsonl(out)
        assert (rec["verdict"], rec["turn"], rec["completed"]) == (
            ("correct", 2, True) if len(want) == 2 else ("incorrect", 1, False))


# --------------------------------------------------------------------------- reference route

@pytest.fixture(scope="module")
def ref_bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tt-ref") / "b"
    r = subprocess.run([PREFCERT, "generate", NAME, "-o", str(out), "--sizes", "4",
                        "--per-cell", "1", "--jobs", "1", "--param", "route=reference"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return out


def test_route_parameter_composition_and_errors(tmp_path):
    s = suite(NAME)
    for route, total in (("interactive", 540), ("reference", 540), ("both", 1080)):
        comp = s.configured({"route": route}).composition()
        assert sum(comp.values()) == total, route
        routes = Counter(json.loads(k).get("route") for k in comp for _ in range(comp[k]))
        assert routes == ({None: 540} if route == "interactive" else
                          {"reference": 540} if route == "reference" else
                          {"interactive": 540, "reference": 540})
    r = subprocess.run([PREFCERT, "generate", NAME, "-o", str(tmp_path / "x"), "--param",
                        "route=fresh"], capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "interactive, reference, both" in r.stderr and not (tmp_path / "x").exists()


def test_reference_route_prompts_and_scripted_model(ref_bench, tmp_path):
    prompts = {p["id"]: p for p in _jsonl(ref_bench / "prompts.jsonl")}
    assert len(prompts) == 36 and {p["cell"]["route"] for p in prompts.values()} == \
        {"reference"}
    man = json.loads((ref_bench / "manifest.json").read_text())
    assert man["parameters"]["route"] == "reference"
    # the same tasks as the interactive route (same ids); the prompt states the resolution
    assert prompts[PREF]["instance_id"].endswith("apartment-n4-s0-g00-preference-intervention")
    assert prompts[PREF]["prompt"].endswith(
        "R4 prefers A1 to A4. Now give your final answer for this task as one JSON object: "
        "decision ACT, the action, and null question and repair.")
    # the predetermined repair is the label's first: rent raised to 13,400 (not commute)
    assert "The constraints are changed as follows: rent raised to 13400." in \
        prompts[CONS]["prompt"] and "proposed" not in prompts[CONS]["prompt"]
    assert json.loads(prompts[PREF]["answer"])["decision"] == "ACT"
    # one answer each, final: A1 under leximin with A1 > A4 (by hand above), A2 under
    # rank-maximal, A1 after the rent repair; an intervention is not the final action (no
    # environment answer follows); a fence is not bare JSON
    got = _refine(ref_bench, tmp_path, "ref", {PREF: [ACT.format("A1")],
                                                OBJ: [ACT.format("A2")],
                                                CONS: [ACT.format("A1")],
                                                "00022": ["```json\n" + ACT.format("A1")
                                                          + "\n```"],
                                                "00023": [ASK_OBJ, ACT.format("A1")]})
    for pid in (PREF, OBJ, CONS):
        rec = got[pid]
        assert rec["attempts"] == 1 and rec["verdict"] == "correct" and rec["completed"]
        assert rec["route"] == "reference" and rec["first_valid"] is None
    assert got["00022"]["verdict"] == "invalid" and not got["00022"]["completed"]
    rec = got["00023"]
    assert rec["attempts"] == 1 and rec["verdict"] == "incorrect" and not rec["completed"]
    assert rec["rounds"][0]["feedback"] is None


def test_reference_route_through_the_inspect_solver(ref_bench, tmp_path):
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    # the suite's two rounds, yet one turn on this route: the answer is final. A2 after
    # the predetermined rent repair breaks commute <= 11 (A2 completes the interactive
    # route only after the commute repair, test above): not completed, and no second turn
    plan = [ACT.format("A2"), ACT.format("A1")]

    def script(messages, tools, tool_choice, config):
        k = len([m for m in messages if m.role == "user"]) - 1
        o = ModelOutput.from_content(model="mockllm", content=plan[k])
        o.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
        return o
    (log,) = inspect_eval(f"prefcert/{NAME}", model=get_model(
                          "mockllm/model", custom_outputs=script),
                          log_dir=str(tmp_path / "ref"), display="none", sample_id=CONS,
                          task_args={"benchmark": str(ref_bench)})
    assert log.status == "success", log.error
    (s,) = log.samples
    assert len([m for m in s.messages if m.role == "assistant"]) == 1
    assert [x["verdict"] for x in s.store["prefcert_rounds"]] == ["incorrect"]
    meta = s.scores["prefcert_scorer"].metadata
    assert meta["completed"] is False and meta["route"] == "reference"
    assert meta["resolved"].endswith("-resolved-r0")


def test_completion_metrics_split_by_route():
    from prefcert.bench.actionable.completion import metrics
    recs = [_rec("preference", "apartment", True, True),
            _rec("objective", "apartment", False, False),
            {**_rec("preference", "apartment", None, True), "route": "reference"},
            {**_rec("objective", "apartment", None, True), "route": "reference"},
            {**_rec("objective", "scheduling", None, False), "route": "reference"}]
    rows = {(r["metric"], json.dumps(r["group"], sort_keys=True)): (r["k"], r["n"])
            for r in metrics(recs)}
    assert rows[("completion", "{}")] == (1, 2)
    assert rows[("first_valid", "{}")] == (1, 2)
    assert rows[("completion", '{"route": "reference"}')] == (2, 3)
    assert rows[("completion", '{"route": "reference", "source": "objective"}')] == (1, 2)
    assert not any(m != "completion" and json.loads(g).get("route") for m, g in rows)
    assert rows[("first_valid", '{"source": "preference"}')] == (1, 1)


def _srec(model: str, iid: str, source: str, structure: str, route: str,
          valid: bool | None, done: bool) -> dict:
    return {"model": model, "suite": NAME, "instance_id": iid, "source": source,
            "structure": structure, "route": route, "first_valid": valid, "completed": done}


def test_completion_result_sets_of_hand_made_records():
    from statsmodels.stats.proportion import proportion_confint

    from prefcert.bench.actionable.results import completion_results
    recs = [
        # model a, interactive: t1 done, t2 valid not done, t3 invalid, t4 done
        _srec("a", "t1", "preference", "apartment", "interactive", True, True),
        _srec("a", "t2", "objective", "apartment", "interactive", True, False),
        _srec("a", "t3", "preference", "scheduling", "interactive", False, False),
        _srec("a", "t4", "constraint", "scheduling", "interactive", True, True),
        # model a, reference: t1 done, t2 done, t3 done, t4 not done
        _srec("a", "t1", "preference", "apartment", "reference", None, True),
        _srec("a", "t2", "objective", "apartment", "reference", None, True),
        _srec("a", "t3", "preference", "scheduling", "reference", None, True),
        _srec("a", "t4", "constraint", "scheduling", "reference", None, False),
        # model b, interactive only (no route field: the default route): nothing valid
        {k: v for k, v in _srec("b", "t1", "preference", "apartment", "interactive",
                                False, False).items() if k != "route"},
        _srec("b", "t2", "objective", "apartment", "interactive", False, False),
    ]
    sets = {rs.key: rs for rs in completion_results(recs)}
    assert list(sets) == ["li-completion", "li-completion-routes"]
    cells = {(r["model"], r["route"], r["source"], r["structure"], r["metric"]):
             (r["k"], r["n"]) for r in sets["li-completion"].rows}
    want = {
        ("a", "interactive", "all", "all", "completion"): (2, 4),
        ("a", "interactive", "all", "all", "first_valid"): (3, 4),
        ("a", "interactive", "all", "all", "completion_given_valid"): (2, 3),
        ("a", "interactive", "preference", "all", "completion"): (1, 2),
        ("a", "interactive", "preference", "all", "first_valid"): (1, 2),
        ("a", "interactive", "preference", "all", "completion_given_valid"): (1, 1),
        ("a", "interactive", "all", "apartment", "completion_given_valid"): (1, 2),
        ("a", "interactive", "all", "scheduling", "first_valid"): (1, 2),
        ("a", "interactive", "constraint", "scheduling", "completion"): (1, 1),
        ("a", "reference", "all", "all", "completion"): (3, 4),
        ("a", "reference", "constraint", "all", "completion"): (0, 1),
        ("a", "reference", "all", "apartment", "completion"): (2, 2),
        ("b", "interactive", "all", "all", "completion"): (0, 2),
        ("b", "interactive", "all", "all", "first_valid"): (0, 2),
    }
    for key, kn in want.items():
        assert cells[key] == kn, key
    # no first-turn rows on the reference route; no conditional rate without a valid turn
    assert not any(k[1] == "reference" and k[4] != "completion" for k in cells)
    assert not any(k[0] == "b" and k[4] == "completion_given_valid" for k in cells)
    # a: 2 sources × ... cells present only where records are (objective × scheduling: none)
    assert ("a", "interactive", "objective", "scheduling", "completion") not in cells
    row = next(r for r in sets["li-completion"].rows if r["model"] == "a" and
               r["route"] == "interactive" and r["source"] == "all" and
               r["structure"] == "all" and r["metric"] == "first_valid")
    lo, hi = proportion_confint(3, 4, alpha=0.05, method="wilson")
    assert row["low"] == pytest.approx(lo) and row["high"] == pytest.approx(hi)
    # paired routes (model a only: b has no reference records): t1 both, t2 and t3
    # reference only, t4 interactive only
    routes = {(r["model"], r["source"], r["outcome"]): (r["value"], r["n"])
              for r in sets["li-completion-routes"].rows}
    assert {o: routes[("a", "all", o)] for o in ("both", "interactive only",
                                                  "reference only", "neither")} == {
        "both": (1, 4), "interactive only": (1, 4), "reference only": (2, 4),
        "neither": (0, 4)}
    assert routes[("a", "preference", "reference only")] == (1, 2)
    assert not any(k[0] == "b" for k in routes)
    # one route only: no route comparison
    only = [r for r in recs if r.get("route") != "reference"]
    assert [rs.key for rs in completion_results(only)] == ["li-completion"]


def test_the_reference_route_as_a_task_parameter_without_a_benchmark():
    """``-T route=reference``: the lazily generated prompts are the reference route's (36
    at n = 4, one group per cell: 4 structures × 3 seeds × 3 sources), and the log records
    the choice; ``-T route=fresh`` is refused in one line."""
    from prefcert.bench.inspect.tasks import suite_task
    from prefcert.formal.errors import InstanceError
    t = suite_task(NAME, route="reference", sizes="4", per_cell=1)
    assert len(t.dataset) == 4 * 3 * 3
    assert {t.dataset[i].metadata["cell"]["route"] for i in range(0, 36, 9)} == {"reference"}
    assert t.metadata["parameters"] == {"route": "reference"}
    with pytest.raises(InstanceError, match="fresh"):
        suite_task(NAME, route="fresh", sizes="4", per_cell=1)


# ------------------------------------------------------- single-answer paths (found by a new user)

def _gold_file(folder: Path, path: Path, as_object: bool = False) -> Path:
    path.write_text("".join(json.dumps({"id": p["id"], "answer": json.loads(p["answer"])
                                        if as_object else p["answer"]}) + "\n"
                            for p in _jsonl(folder / "prompts.jsonl")))
    return path


def test_single_answer_paths_refuse_the_two_turn_episode(bench, tmp_path):
    """Regression: the interactive prompts' own gold (a first turn) scored 0 on every
    single-answer path (108/108 incorrect) and export lm-eval wrote a task that could only
    score 0. They now refuse in one line pointing to refine / eval (docs/suites.md)."""
    import prefcert
    from prefcert.bench.dataset import benchmark_entries
    from prefcert.formal.errors import InstanceError
    gold = _gold_file(bench, tmp_path / "gold.jsonl")
    out = tmp_path / "s.jsonl"
    r = subprocess.run([PREFCERT, "score", str(bench), str(gold), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and not out.exists()
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(f"prefcert: error: {gold}:1: prompt 00001 of suite {NAME} is a "
                           f"two-turn episode")
    assert "prefcert refine" in line and "prefcert eval" in line
    lm = tmp_path / "lm"
    r = subprocess.run([PREFCERT, "export", "lm-eval", NAME, str(lm), "--benchmark",
                        str(bench)], capture_output=True, text=True)
    assert r.returncode == 2 and "two-turn episode" in r.stderr and not lm.exists()
    (e, *_) = benchmark_entries(bench)
    with pytest.raises(InstanceError, match="two-turn episode"):
        prefcert.score_answer(e["answer"], e)
    with pytest.raises(InstanceError, match="two-turn episode"):
        prefcert.reward(None, [e["answer"]], metadata=[e["metadata"]])


def test_the_reference_route_gold_scores_correct_on_every_single_answer_path(ref_bench,
                                                                            tmp_path):
    """The reference route takes one final answer: its gold (an ACT object) is correct
    through prefcert score (also written as a JSON object, not a string: regression, it
    was read as Python's repr and invalid), score_answer, reward and the exported lm-eval
    documents' process_results."""
    import prefcert
    for as_object in (False, True):
        gold = _gold_file(ref_bench, tmp_path / f"gold-{as_object}.jsonl", as_object)
        out = tmp_path / f"s-{as_object}.jsonl"
        r = subprocess.run([PREFCERT, "score", str(ref_bench), str(gold), "-o", str(out)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-2000:]
        got = _jsonl(out)
        assert len(got) == 36 and {x["verdict"] for x in got} == {"correct"}
    lm = tmp_path / "lm"
    r = subprocess.run([PREFCERT, "export", "lm-eval", NAME, str(lm), "--benchmark",
                        str(ref_bench)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    docs = _jsonl(lm / f"{NAME}.jsonl")
    assert len(docs) == 36
    entries = [{"metadata": json.loads(d["prefcert"])} for d in docs]
    assert [prefcert.score_answer(d["answer"], e) for d, e in zip(docs, entries)] == [1.0] * 36
    assert prefcert.reward(None, [d["answer"] for d in docs],
                           metadata=[e["metadata"] for e in entries]) == [1.0] * 36
