"""The code-assisted design (Khanna & Wang 2026, Table 29; ``--param tools=code``) as an
Inspect task: the model is given Inspect AI's ``python`` tool in the ``local`` sandbox,
a scripted tool call's code really runs, and the final answer (what that code printed)
is scored by the task's scorer (the log's read-back by ``prefcert score`` is
tests/test_inspect.py's); a prompt without ``tools`` gets no tool; an unknown sandbox is refused."""
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
    5-minute budget."""
    from prefcert.bench.generate import generate
    from prefcert.bench.suites import suite
    out = tmp_path_factory.mktemp("kwcode") / "bench"
    generate(suite(SUITE), out, sizes=[10], per_cell=1,
             params={"tools": "code", "time_budget": 5})
    return out


def _prompts(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "prompts.jsonl").read_text().splitlines()]


def test_scripted_tool_call_runs_and_its_printed_answer_is_scored(code_bench, tmp_path):
    """Feasible strict core: the script's code rebuilds the gold witness from its
    reversed text (the answer appears only once the code has run) and the final turn
    answers with the tool's output: correct. Infeasible strict core: the code prints
    the endowment (a valid allocation, not in the empty strict core): incorrect."""
    prompts = {(p["cell"]["notion"], p["cell"]["feasible"]): p for p in _prompts(code_bench)}
    feas, infeas = prompts[("strict_core", True)], prompts[("strict_core", False)]
    endowment = json.dumps({f"A{i}": f"O{i}" for i in range(1, 11)})
    code = {feas["prompt"]: f"import json\nprint(json.dumps(json.loads({feas['answer'][::-1]!r}"
                            f"[::-1])))",
            infeas["prompt"]: f"print({endowment[::-1]!r}[::-1])"}
    offered: list[list[str]] = []

    def script(messages, tools, tool_choice, config):
        offered.append([t.name for t in tools])
        last = messages[-1]
        if last.role == "tool":                         # answer with what the code printed
            text = f"My program found:\n<answer>{last.text.strip()}</answer>"
            return _usage(ModelOutput.from_content(model="mockllm", content=text), len(text))
        o = ModelOutput.for_tool_call(model="mockllm", tool_name="python",
                                      tool_arguments={"code": code[messages[0].text]})
        return _usage(o, 20)

    model = get_model("mockllm/model", custom_outputs=script)
    (log,) = inspect_eval(f"prefcert/{SUITE}", model=model, log_dir=str(tmp_path),
                          display="none", task_args={"benchmark": str(code_bench),
                                                     "notion": "strict_core"})
    assert log.status == "success", log.error
    assert log.eval.sandbox is not None and log.eval.sandbox.type == "local"
    assert offered and all(names == ["python"] for names in offered)
    got = {}
    for s in log.samples:
        assert s.store["prefcert_tool_timeout"] == 300          # time_budget = 5 minutes
        tool_msgs = [m for m in s.messages if m.role == "tool"]
        assert len(tool_msgs) == 1 and tool_msgs[0].error is None
        got[s.id] = (tool_msgs[0].text.strip(), s.scores["prefcert_scorer"].value)
    assert got[feas["id"]] == (json.dumps(json.loads(feas["answer"])), "C")
    assert got[infeas["id"]] == (endowment, "I")


def test_code_tool_only_where_the_prompt_asks_with_its_time_limit():
    """A prompt with ``tools`` gets the python tool and its ``time_limit`` as timeout
    (none named: the paper's 20 minutes); a prompt without gets nothing."""
    import asyncio

    from inspect_ai.solver import TaskState
    from inspect_ai.tool import ToolDef

    from prefcert.bench.inspect.tasks import code_tool

    async def nothing(s, **kw):
        return s

    def solved(meta):
        st = TaskState(model="mockllm/model", sample_id=1, epoch=1, input="x",
                       messages=[], metadata=meta)
        return asyncio.run(code_tool()(st, nothing))
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
