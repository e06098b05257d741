"""Inspect AI end to end, without a network: every suite as an Inspect task on
``mockllm/model`` (scripted outputs), the scorer's verdicts against ``prefcert score``'s,
the refinement solver over three rounds, the logs read back by the console scripts, and
Inspect's OpenAI-compatible provider against a small OpenAI-protocol server on 127.0.0.1
(HTTP, a retry after a 500, and the resume of an interrupted run)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval                          # noqa: E402
from inspect_ai.log import read_eval_log                            # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model     # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from openai_server import OpenAIServer                              # noqa: E402

from prefcert.bench.dataset import SuiteDataset                     # noqa: E402
from prefcert.bench.design import Entry                             # noqa: E402
from prefcert.bench.score import score_prompt                       # noqa: E402
from conftest import cli as run

#: Inspect's console script of the environment under test
INSPECT = shutil.which("inspect", path=os.path.dirname(sys.executable)) or "inspect"

#: per suite: small task parameters (the smallest size, one instance per cell)
SMALL = {"indeterminacy-preference": {"sizes": 50, "per_cell": 1},
         "indeterminacy-algorithmic": {"sizes": 10, "per_cell": 1},
         "voting-manipulation": {"sizes": 3, "per_cell": 1},
         "actionable-indeterminacy": {"sizes": 4, "per_cell": 1},
         "actionable-indeterminacy-h2": {"sizes": 4, "per_cell": 1},
         # one turn here (its task's default is two: tests/test_completion.py)
         "actionable-indeterminacy-completion": {"sizes": 4, "per_cell": 1, "rounds": 1},
         "actionable-indeterminacy-wording": {"sizes": 4, "per_cell": 1},
         "actionable-indeterminacy-selection": {"sizes": 4, "per_cell": 1},
         "actionable-indeterminacy-intersection": {"sizes": 4, "per_cell": 1},
         "actionable-indeterminacy-balanced": {"sizes": 4, "per_cell": 1},
         "self-consistency": {"sizes": 300, "per_cell": 1}}
LIMIT = 4
WRONG = "<answer>zzz</answer>"
#: suites whose gold answer is a first turn, never complete alone (tests/test_completion.py)
MULTI_TURN = {"actionable-indeterminacy-completion"}


def output(text: str) -> ModelOutput:
    """A scripted output with its token counts (mockllm would otherwise count tokens with
    a tokenizer file fetched from the network)."""
    o = ModelOutput.from_content(model="mockllm", content=text)
    o.usage = ModelUsage(input_tokens=10, output_tokens=len(text), total_tokens=10 + len(text))
    return o


def entries(suite: str, n: int) -> list[dict]:
    p = SMALL[suite]
    ds = SuiteDataset(suite, sizes=[p["sizes"]], per_cell=p["per_cell"])
    return [ds[i] for i in range(n)]


def test_every_suite_runs_as_an_inspect_task_and_its_verdicts_are_prefcert_scores(tmp_path):
    from prefcert.bench.suites import SUITES
    assert set(SMALL) == set(SUITES)
    wanted = {}
    for suite in SUITES:
        for k, e in enumerate(entries(suite, LIMIT)):      # gold, wrong, gold, wrong
            wanted[e["question"]] = (e, e["answer"] if k % 2 == 0 else WRONG)

    def script(messages, tools, tool_choice, config):
        return output(wanted[messages[-1].text][1])

    model = get_model("mockllm/model", custom_outputs=script)
    # one epoch each (self-consistency's task draws the paper's 15 by default)
    logs = [inspect_eval(f"prefcert/{s}", model=model, limit=LIMIT, log_dir=str(tmp_path),
                         display="none", task_args=SMALL[s], epochs=1)[0] for s in SUITES]
    for suite, log in zip(SUITES, logs):
        assert log.status == "success", (suite, log.error)
        assert len(log.samples) == LIMIT
        for s in log.samples:
            e, answer = wanted[s.input]
            meta = s.metadata
            assert s.id == e["metadata"]["id"] and s.target == e["answer"]
            assert {"labels", "instances", "gold_label_ids", "instance_ids"} <= set(meta)
            assert all(lab["checked"] is True for lab in meta["labels"])
            got = s.scores["prefcert_scorer"]
            expect = score_prompt(meta, answer, Entry(meta["labels"], meta["instances"]))
            assert got.metadata["verdict"] == expect["verdict"]
            assert got.value == ("C" if expect["verdict"] == "correct" else "I")
            if answer == e["answer"] and suite not in MULTI_TURN:
                assert got.metadata["verdict"] == "correct"
        names = set(log.results.scores[0].metrics)
        assert {"accuracy", "share_correct"} <= names
    voting = dict(zip(SUITES, logs))["voting-manipulation"].results.scores[0].metrics
    assert any(k.startswith(("MDR", "FMR_ballot")) for k in voting)


def test_refinement_repairs_on_round_two_and_every_round_is_in_the_log(tmp_path):
    suite = "indeterminacy-algorithmic"
    args = {"sizes": 10, "per_cell": 1, "design": "standard", "setting": "SM-SO",
            "task": "stable", "rounds": 3}
    ds = SuiteDataset(suite, sizes=[10], per_cell=1,
                      cells={"design": "standard", "setting": "SM-SO", "task": "stable"})
    gold = {ds[i]["question"]: ds[i]["answer"] for i in range(len(ds))}
    seen: list[int] = []

    def script(messages, tools, tool_choice, config):
        seen.append(len(messages))
        if len(messages) == 1:                           # round 1: an empty matching
            return output("<answer>{}</answer>")   # the empty matching: incorrect here
        return output(f"<answer>{gold[messages[0].text]}</answer>")   # round 2: repaired

    model = get_model("mockllm/model", custom_outputs=script)
    (log,) = inspect_eval(f"prefcert/{suite}", model=model, log_dir=str(tmp_path),
                          display="none", task_args=args, limit=1)
    assert log.status == "success", log.error
    (s,) = log.samples
    rounds = s.store["prefcert_rounds"]
    assert [r["verdict"] for r in rounds] == ["incorrect", "correct"]
    fb = rounds[0]["feedback"]
    assert "exists" in fb and "2 attempts remaining" in fb
    assert gold[s.input] not in fb                         # never the solution
    assert seen == [1, 3]                                   # feedback went back as a user turn
    assert s.messages[2].role == "user" and s.messages[2].text == fb
    info = [ev for ev in s.events if ev.event == "info" and ev.source == "prefcert"]
    assert [ev.data["verdict"] for ev in info] == ["incorrect", "correct"]
    score = s.scores["prefcert_scorer"]
    assert score.value == "C" and score.metadata["rounds"] == rounds
    # the log read back by the console script: the final answer, and its rounds
    out = tmp_path / "scores.jsonl"
    run("score", log.location, "-o", str(out))
    (rec,) = [json.loads(x) for x in out.read_text().splitlines()]
    assert rec["verdict"] == "correct" and rec["model"] == "mockllm/model"
    assert rec["epoch"] == 1 and [r["verdict"] for r in rec["rounds"]] == ["incorrect", "correct"]
    assert rec["tokens"]["total_tokens"] > 0 and rec["timing"]["total_time"] is not None


def test_logs_flow_into_score_report_and_risk_with_epochs(tmp_path):
    suite = "voting-manipulation"
    es = entries(suite, 2)
    gold = {e["question"]: e["answer"] for e in es}
    calls = {"n": 0}

    def script(messages, tools, tool_choice, config):
        calls["n"] += 1                                     # epochs: gold, then wrong
        return output(gold[messages[0].text] if calls["n"] <= 2 else WRONG)

    model = get_model("mockllm/model", custom_outputs=script)
    (log,) = inspect_eval(f"prefcert/{suite}", model=model, log_dir=str(tmp_path / "logs"),
                          display="none", task_args=SMALL[suite], limit=2, epochs=2,
                          max_connections=1, max_samples=1)
    assert log.status == "success"
    out = tmp_path / "s.jsonl"
    r = run("score", str(tmp_path / "logs"), "-o", str(out), "--json")
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(recs) == 4 and sorted(x["epoch"] for x in recs) == [1, 1, 2, 2]
    assert {x["model"] for x in recs} == {"mockllm/model"}
    share = [json.loads(x) for x in r.stdout.splitlines() if '"share_correct"' in x][0]
    assert (share["k"], share["n"]) == (2, 4)
    run("report", str(tmp_path / "logs"), "-o", str(tmp_path / "r.html"))
    assert "<svg" in (tmp_path / "r.html").read_text()
    risk = json.loads(run("risk", log.location, "--json").stdout)
    assert (risk["M"], risk["K"]) == (2, 2)               # the epochs are the K samples
    assert risk["deu"] == pytest.approx(0.5)
    # answers files get the model named on the command line
    bench = tmp_path / "bench"
    run("generate", suite, "-o", str(bench), "--per-cell", "1", "--sizes", "3")
    a = tmp_path / "a.jsonl"
    first = json.loads((bench / "prompts.jsonl").read_text().splitlines()[0])
    a.write_text(json.dumps({"id": first["id"], "answer": first["answer"]}) + "\n")
    run("score", str(bench / "prompts.jsonl"), str(a), "--model", "my-model", "-o", str(out))
    assert json.loads(out.read_text())["model"] == "my-model"
    bad = run("score", str(tmp_path / "s.jsonl"), check=False)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_a_failed_run_is_scored_with_its_unanswered_samples_as_timeouts(tmp_path):
    suite = "voting-manipulation"
    es = entries(suite, 2)
    gold = {e["question"]: e["answer"] for e in es}

    def script(messages, tools, tool_choice, config):
        if messages[0].text == es[1]["question"]:
            raise RuntimeError("the provider broke")
        return output(gold[messages[0].text])

    model = get_model("mockllm/model", custom_outputs=script)
    (log,) = inspect_eval(f"prefcert/{suite}", model=model, log_dir=str(tmp_path),
                          display="none", task_args=SMALL[suite], limit=2, max_samples=1)
    assert log.status == "error"
    out = tmp_path / "s.jsonl"
    r = run("score", log.location, "-o", str(out))
    assert "status error" in r.stderr and "score as timeouts" in r.stderr
    recs = {x["id"]: x for x in map(json.loads, out.read_text().splitlines())}
    assert recs[es[1]["metadata"]["id"]]["verdict"] == "timeout"
    assert all(x["verdict"] in ("correct", "timeout") for x in recs.values())


def test_a_run_whose_every_sample_errored_is_refused_not_scored_as_timeouts(tmp_path):
    """Regression: such a log scored as a model that timed out on every prompt, exit 0."""
    suite = "voting-manipulation"

    def script(messages, tools, tool_choice, config):
        raise RuntimeError("the provider broke")

    model = get_model("mockllm/model", custom_outputs=script)
    (log,) = inspect_eval(f"prefcert/{suite}", model=model, log_dir=str(tmp_path / "logs"),
                          display="none", task_args=SMALL[suite], limit=2, max_samples=1,
                          retry_on_error=0)
    out = tmp_path / "s.jsonl"
    for cmd in (("score", log.location, "-o", str(out)),
                ("report", str(tmp_path / "logs"), "-o", str(tmp_path / "r.html")),
                ("risk", log.location)):
        r = run(*cmd, check=False)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2, cmd
        assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
        assert "none of the log's 2 samples has an answer" in lines[0]
        assert "the provider broke" in lines[0] and log.location.split("/")[-1] in lines[0]
    assert not out.exists() and not (tmp_path / "r.html").exists()


def test_two_runs_of_one_model_are_refused_pooled_and_told_apart_by_name(tmp_path):
    """Two logs of mockllm/model (one answering gold, one wrong) were pooled into one model
    of twice the n, silently (found by a new user): refused, naming both logs; with
    --model once per log they are two models, compared pairwise."""
    suite = "voting-manipulation"
    es = entries(suite, 2)
    gold = {e["question"]: e["answer"] for e in es}
    for name, wrong in (("good", False), ("bad", True)):
        def script(messages, tools, tool_choice, config, wrong=wrong):
            return output(WRONG if wrong else gold[messages[0].text])
        (log,) = inspect_eval(f"prefcert/{suite}", model=get_model("mockllm/model",
                                                                   custom_outputs=script),
                              log_dir=str(tmp_path / name), display="none",
                              task_args=SMALL[suite], limit=2)
        assert log.status == "success"
    good, bad = str(tmp_path / "good"), str(tmp_path / "bad")
    r = run("score", good, bad, check=False)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr
    assert "of model mockllm/model is also in" in lines[0] and "--model once per LOG" in lines[0]
    assert str(tmp_path / "bad") in lines[0] and str(tmp_path / "good") in lines[0]
    r = run("score", good, bad, "--model", "good", "--model", "bad", "--json")
    share = {json.loads(x)["group"]["model"]: json.loads(x) for x in r.stdout.splitlines()
             if '"share_correct"' in x}
    assert {m: (v["k"], v["n"]) for m, v in share.items()} == {"good": (2, 2), "bad": (0, 2)}
    pairs = [json.loads(x) for x in r.stdout.splitlines() if '"mcnemar_exact"' in x]
    assert len(pairs) == 1
    r = run("score", good, bad, "--model", "good", check=False)
    assert r.returncode == 2 and "give --model once per LOG" in r.stderr


def test_a_mockllm_dry_run_through_the_console_script_needs_no_network(tmp_path):
    """``prefcert eval --model mockllm/model`` counted tokens with tiktoken, which fetches
    its table from the network: offline it failed on every sample and said "run again to
    resume" (found by a new user). Now each sample gets the mock's default text."""
    logs = tmp_path / "logs"
    r = run("eval", "voting-manipulation", "--model", "mockllm/model", "--limit", "2",
            "--log-dir", str(logs), "-T", "sizes=3", "-T", "per_cell=1",
            env={**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path / "empty-cache")})
    assert "mockllm/model: success" in r.stderr
    out = tmp_path / "s.jsonl"
    run("score", str(logs), "-o", str(out))
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(recs) == 2 and {x["verdict"] for x in recs} == {"invalid"}
    (log,) = [read_eval_log(str(f)) for f in logs.glob("*.eval")]
    assert {s.output.completion for s in log.samples} == {"Default output from mockllm/model"}


def test_eval_prints_its_own_summary_not_inspects_success_line(tmp_path):
    """Regression (fresh report 6): stdout ended "Completed all tasks in DIR successfully",
    Inspect's closing line, even after a Ctrl-C had cancelled the run (exit 130)."""
    logs = tmp_path / "logs"
    r = run("eval", "voting-manipulation", "--model", "mockllm/model", "--limit", "1",
            "--log-dir", str(logs), "-T", "sizes=3", "-T", "per_cell=1")
    assert "Completed all tasks" not in r.stdout and "successfully" not in r.stdout
    assert f"prefcert: 1 log(s) complete in {logs}." in r.stderr


def test_openai_compatible_provider_over_http_with_a_retry_and_a_resumed_run(tmp_path):
    suite = "voting-manipulation"
    es = entries(suite, 4)
    gold = {e["question"]: e["answer"] for e in es}
    state = {"fail_after": None, "failed_once": False}

    def reply(messages, n):
        if not state["failed_once"]:
            state["failed_once"] = True
            return 500                                      # retried by Inspect
        if state["fail_after"] is not None and n > state["fail_after"]:
            return 500                                      # the server goes down
        return gold[messages[-1]["content"]]

    env = dict(os.environ, LOCAL_API_KEY="test-key")
    with OpenAIServer(reply, deadline=400) as srv:
        env["LOCAL_BASE_URL"] = srv.url
        r = subprocess.run([INSPECT, "eval", f"prefcert/{suite}", "--model",
                            "openai-api/local/fake", "--limit", "2", "-T", "sizes=3",
                            "-T", "per_cell=1", "--max-connections", "1", "--log-dir",
                            str(tmp_path / "plain"), "--display", "none"],
                           capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        assert len(srv.requests) == 3                       # one 500, then two answers
        (f,) = (tmp_path / "plain").glob("*.eval")
        log = read_eval_log(str(f))
        assert log.eval.model == "openai-api/local/fake"
        assert [s.scores["prefcert_scorer"].value for s in log.samples] == ["C", "C"]

        # an interrupted run: the server answers two prompts, then fails
        srv.requests.clear()
        state["fail_after"] = 2
        cmd = ["eval", suite, "--model", "openai-api/local/fake", "--limit", "4",
               "--sizes", "3", "--per-cell", "1", "--max-connections", "1",
               "--max-retries", "1", "--retry-attempts", "0", "--retry-on-error", "0",
               "--log-dir",
               str(tmp_path / "logs")]
        r1 = run(*cmd, env=env, check=False)
        assert r1.returncode == 1 and "resume" in r1.stderr, r1.stderr[-2000:]
        answered = {m[-1]["content"] for m in srv.requests[:2]}
        assert len(srv.requests) > 2 and len(answered) == 2
        state["fail_after"] = None
        srv.requests.clear()
        run(*cmd, env=env)
        resumed = [m[-1]["content"] for m in srv.requests]
    # only the two unfinished prompts are asked again, once each
    assert len(resumed) == 2 and not answered & set(resumed)
    logs = list((tmp_path / "logs").glob("*.eval"))
    final = [read_eval_log(str(x)) for x in logs]
    ok = [x for x in final if x.status == "success"]
    assert ok and len(ok[-1].samples) == 4
    assert all(s.scores["prefcert_scorer"].value == "C" for s in ok[-1].samples)


def test_limit_on_a_benchmark_folder_is_spread_over_the_cells(tmp_path):
    """Regression (a new user): ``eval --benchmark DIR --limit N`` ran the first N prompts
    of the file (voting-manipulation: plurality and Borda only). Now it runs the prompts a
    run without the folder runs: the design's task order, spread over the cells."""
    bench = tmp_path / "bench"
    run("generate", "voting-manipulation", "-o", str(bench), "--per-cell", "1",
        "--sizes", "3,4", "--jobs", "1")
    # the file's first 20 prompts are plurality (ids 1-16) and Borda (17-20)
    first = [json.loads(x) for x in (bench / "prompts.jsonl").read_text().splitlines()][:20]
    assert {p["cell"]["rule"] for p in first} == {"plurality", "borda"}
    logs = tmp_path / "logs"
    run("eval", "voting-manipulation", "--model", "mockllm/model", "--limit", "20",
        "--log-dir", str(logs), "--benchmark", str(bench))
    (log,) = [read_eval_log(str(f)) for f in logs.glob("*.eval")]
    cells = {s.id: (s.metadata["cell"]["rule"], s.metadata["cell"]["size"])
             for s in log.samples}
    assert len(cells) == 20
    assert len({rule for rule, _ in cells.values()}) >= 3
    assert {size for _, size in cells.values()} == {3, 4}
    # the prompts a run without the folder takes (the lazily generated design's first 20)
    design = SuiteDataset("voting-manipulation", sizes=[3, 4], per_cell=1)
    assert set(cells) == {design.id_of(i) for i in range(20)}
