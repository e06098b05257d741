"""The code-assisted design (Khanna & Wang 2026, Table 29; ``--param tools=code``) as an
Inspect task: the model is given Inspect AI's ``python`` tool in the ``local`` sandbox,
a scripted tool call's code really runs, and the final answer (what that code printed)
is scored by the task's scorer and, read back from the log, fills Table 29; a response
outlasting the prompt's time budget is a timeout; a prompt without ``tools`` gets no
tool; an unknown sandbox is refused."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval                          # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model     # noqa: E402

SUITE = "indeterminacy-algorithmic"


def _usage(o: ModelOutput, n: int) -> ModelOutput:
    o.usage = ModelUsage(input_tokens=10, output_tokens=n, total_tokens=10 + n)
    return o


@pytest.fixture(scope="module")
def code_bench(tmp_path_factory) -> Path:
    """The code-assisted design at n = 10, one instance per cell (4 prompts), a
    5-minute budget; the infeasible super-stability prompt's ``time_limit`` cut to 2 s
    (the suite's budget is whole minutes) so a test can outlast it."""
    from prefcert.bench.generate import generate
    from prefcert.bench.suites import suite
    out = tmp_path_factory.mktemp("kwcode") / "bench"
    generate(suite(SUITE), out, sizes=[10], per_cell=1,
             params={"tools": "code", "time_budget": 5})
    prompts = _prompts(out)
    for p in prompts:
        if (p["cell"]["notion"], p["cell"]["feasible"]) == ("super_stable", False):
            p["time_limit"] = 2
    (out / "prompts.jsonl").write_text("".join(json.dumps(p) + "\n" for p in prompts))
    return out


def _prompts(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "prompts.jsonl").read_text().splitlines()]


def test_scripted_tool_call_runs_and_its_printed_answer_is_scored(code_bench, tmp_path):
    """Hand-scripted turns, verdicts by the suite's rule (Table 20 with the hatch):

    - feasible strict core: the code rebuilds the gold witness from its reversed text (the
      answer exists only once the code has run); the final turn answers with the tool's
      output: correct;
    - infeasible strict core: the code prints the endowment (a valid allocation, not in
      the empty strict core), answered: incorrect;
    - feasible super stability: the gold answer at once, no tool call: correct (the tool
      is offered, not imposed);
    - infeasible super stability, a 2 s budget: the model keeps calling code that sleeps
      1.5 s; the budget ends the response with no answer: timeout (never ``{}``, which
      the script would not have reached)."""
    prompts = {(p["cell"]["notion"], p["cell"]["feasible"]): p for p in _prompts(code_bench)}
    feas, infeas = prompts[("strict_core", True)], prompts[("strict_core", False)]
    direct, late = prompts[("super_stable", True)], prompts[("super_stable", False)]
    endowment = json.dumps({f"A{i}": f"O{i}" for i in range(1, 11)})
    code = {feas["prompt"]: f"import json\nprint(json.dumps(json.loads({feas['answer'][::-1]!r}"
                            f"[::-1])))",
            infeas["prompt"]: f"print({endowment[::-1]!r}[::-1])",
            late["prompt"]: "import time\ntime.sleep(1.5)\nprint('not yet')"}
    offered: list[list[str]] = []

    def say(text: str) -> ModelOutput:
        return _usage(ModelOutput.from_content(model="mockllm", content=text), len(text))

    def script(messages, tools, tool_choice, config):
        offered.append([t.name for t in tools])
        first, last = messages[0].text, messages[-1]
        if first == direct["prompt"]:
            return say(f"<answer>{direct['answer']}</answer>")
        if last.role == "tool" and first != late["prompt"]:   # answer what the code printed
            return say(f"My program found:\n<answer>{last.text.strip()}</answer>")
        o = ModelOutput.for_tool_call(model="mockllm", tool_name="python",
                                      tool_arguments={"code": code[first]})
        return _usage(o, 20)

    model = get_model("mockllm/model", custom_outputs=script)
    (log,) = inspect_eval(f"prefcert/{SUITE}", model=model, log_dir=str(tmp_path),
                          display="none", task_args={"benchmark": str(code_bench)})
    assert log.status == "success", log.error
    assert log.eval.sandbox is not None and log.eval.sandbox.type == "local"
    assert offered and all(names == ["python"] for names in offered)
    samples = {s.id: s for s in log.samples}
    verdicts = {i: s.scores["prefcert_scorer"].metadata["verdict"] for i, s in samples.items()}
    assert verdicts == {feas["id"]: "correct", infeas["id"]: "incorrect",
                        direct["id"]: "correct", late["id"]: "timeout"}
    printed = {}
    for i in (feas["id"], infeas["id"]):
        s = samples[i]
        assert s.store["prefcert_tool_timeout"] == 300          # time_budget = 5 minutes
        tool_msgs = [m for m in s.messages if m.role == "tool"]
        assert len(tool_msgs) == 1 and tool_msgs[0].error is None
        printed[i] = tool_msgs[0].text.strip()
    assert printed == {feas["id"]: json.dumps(json.loads(feas["answer"])),
                       infeas["id"]: endowment}
    assert not [m for m in samples[direct["id"]].messages if m.role == "tool"]
    s = samples[late["id"]]
    assert s.store["prefcert_tool_timeout"] == 2 and s.store["prefcert_time_budget_exceeded"]
    assert "prefcert_time_budget_exceeded" not in samples[feas["id"]].store
    # the log, re-scored as prefcert score / report read it, gives Table 29's cells:
    # Shapley-Scarf n = 10 F 1 of 1, I 0 of 1; matching F 1 of 1, I 0 of 1 (a timeout)
    from prefcert.bench.inspect.logs import log_samples, score_samples
    from prefcert.bench.suites import suite
    sets = {rs.key: rs for rs in suite(SUITE).results(score_samples(log_samples(
        [log.location])))}
    assert list(sets) == ["kw-table29"]
    assert {(r["market"], r["size"], r["existence"]): (r["k"], r["n"], r["timeouts"])
            for r in sets["kw-table29"].rows} == {
        ("Shapley-Scarf", 10, "F"): (1, 1, 0), ("Shapley-Scarf", 10, "I"): (0, 1, 0),
        ("matching", 10, "F"): (1, 1, 0), ("matching", 10, "I"): (0, 1, 1)}


def test_code_tool_only_where_the_prompt_asks_with_its_time_limit():
    """A prompt with ``tools`` gets the python tool and its ``time_limit`` as timeout
    (none named: the paper's 20 minutes); a prompt without gets nothing (the answering
    solver runs either way)."""
    import asyncio

    from inspect_ai.solver import TaskState
    from inspect_ai.tool import ToolDef

    from prefcert.bench.inspect.tasks import code_tool

    async def answered(s, generate):
        return s

    def solved(meta):
        st = TaskState(model="mockllm/model", sample_id=1, epoch=1, input="x",
                       messages=[], metadata=meta)
        return asyncio.run(code_tool(answered)(st, None))
    a = solved({"tools": ["python"], "time_limit": 300})
    assert [ToolDef(t).name for t in a.tools] == ["python"]
    assert a.store.get("prefcert_tool_timeout") == 300
    assert solved({"tools": ["python"]}).store.get("prefcert_tool_timeout") == 20 * 60
    b = solved({})
    assert b.tools == [] and b.store.get("prefcert_tool_timeout") is None


def test_other_prompts_get_no_tool_and_an_unknown_sandbox_is_refused(code_bench):
    from prefcert.bench.inspect.tasks import suite_task
    from prefcert.formal.errors import InstanceError
    plain = suite_task(SUITE, sizes=10, per_cell=1)
    assert plain.sandbox is None
    coded = suite_task(SUITE, benchmark=str(code_bench), sandbox="docker")
    assert coded.sandbox is not None and coded.sandbox.type == "docker"
    with pytest.raises(InstanceError, match="sandbox is local or docker"):
        suite_task(SUITE, benchmark=str(code_bench), sandbox="podman")


def test_the_code_design_named_as_a_task_parameter_gets_the_tool():
    """``-T tools=code`` without a benchmark folder: the lazily generated design is the
    code-assisted one (Table 29: 12 cells of 10 at n = 10, 30, 50), and its task runs
    in the sandbox; the default design gets none."""
    from prefcert.bench.inspect.tasks import suite_task
    task = suite_task(SUITE, tools="code", sizes=10)
    assert task.sandbox is not None and task.sandbox.type == "local"
    assert len(task.dataset) == 4 * 10                 # n = 10: 2 markets x F / I x 10
    assert task.metadata["parameters"] == {"tools": "code"}
    assert suite_task(SUITE, sizes=10).sandbox is None
