"""Suite parameters everywhere (issue 23): ``create_dataset(params=...)`` gives what
``prefcert generate --param`` writes, the Inspect task splits ``-T`` names into parameters
and cell filters, ``prefcert eval --param``, and ``prefcert suites`` lists each design a
parameter selects with its prompt count (hand-derived from the papers)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from prefcert import create_dataset
from prefcert.bench.dataset import SuiteDataset
from prefcert.formal.errors import InstanceError
from conftest import cli as run

VM = "voting-manipulation"
#: a cheap non-default design: m = 3, one instance per cell, seven voters, random τ
VM_ARGS = ("--sizes", "3", "--per-cell", "1", "--param", "n=7", "--param", "tau=random")
VM_PARAMS = {"n": 7, "tau": "random"}



def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


# ------------------------------------------------------------------------- datasets

@pytest.fixture(scope="module")
def vm_bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("vm") / "b"
    run("generate", VM, "-o", out, "--jobs", "1", *VM_ARGS)
    return out


def test_create_dataset_with_params_gives_the_ids_and_golds_of_prefcert_generate(vm_bench):
    made = {p["id"]: p for p in _jsonl(vm_bench / "prompts.jsonl")}
    ds = create_dataset(VM, sizes=[3], per_cell=1, params=VM_PARAMS)
    # 5 rules × m = 3 × 2 strata × 1 instance × 4 framings
    assert len(ds) == len(made) == 40
    for e in ds:
        p = made[e["metadata"]["id"]]
        assert e["answer"] == p["answer"] and e["question"] == p["prompt"]
        assert e["metadata"]["cell"] == p["cell"] and e["metadata"]["cell"]["n"] == 7
        assert e["metadata"]["instance_ids"] == p["instance_ids"]
        assert all(lab["checked"] is True for lab in e["metadata"]["labels"])
    # parameter values as text (the command line's) are the same parameters
    assert create_dataset(VM, size=2, sizes=[3], per_cell=1,
                          params={"n": "7", "tau": "random"}) == ds[:2]
    # and the default parameters are another design (no factor n, other instances)
    plain = create_dataset(VM, size=1, sizes=[3], per_cell=1)
    assert "n" not in plain[0]["metadata"]["cell"]


def test_open_sizes_and_design_variants_reach_the_dataset():
    # n = 50 is outside the registered sizes (10, 30) but inside the limits (8 … 60)
    ds = SuiteDataset("indeterminacy-algorithmic", sizes=[50], per_cell=1)
    ten = SuiteDataset("indeterminacy-algorithmic", sizes=[10], per_cell=1)
    assert len(ds) == len(ten) > 0                  # the same design table at another n
    assert {ds.suite.rows((50,))[0].factors["size"]} == {50}
    # the code-assisted design (Table 29) at n = 50: 2 notions × feasible / infeasible
    code = SuiteDataset("indeterminacy-algorithmic", sizes=[50], per_cell=1,
                        params={"tools": "code"})
    assert len(code) == 4 and sorted(code.id_of(i) for i in range(4)) == \
        ["00001", "00002", "00003", "00004"]
    # the App. M design: 2 bundle rows × 5 levels + 1 atomic row × 3 levels
    mit = SuiteDataset("indeterminacy-preference", per_cell=1,
                       params={"design": "mitigation"})
    assert len(mit) == 13


@pytest.mark.parametrize("kw, words", [
    ({"sizes": [70]}, "sizes must be integers from 8 to 60"),
    ({"params": {"nope": 1}}, "has no parameter 'nope'"),
    ({"params": {"tools": "gpu"}}, "parameter tools: tools is none or code"),
    ({"params": ["tools"]}, "params must be a mapping"),
    # regressions: a repeated size, and per_cell as text or 0 (a TypeError / an empty set)
    ({"sizes": [10, 10]}, "a size is given twice: 10"),
    ({"per_cell": "1"}, "per_cell: '1' is not a valid integer"),
    ({"per_cell": 0}, "per_cell: 0 is not in the range"),
])
def test_create_dataset_refuses_bad_sizes_and_parameters_in_one_line(kw, words):
    with pytest.raises(InstanceError) as e:
        create_dataset("indeterminacy-algorithmic", size=1, **kw)
    assert words in str(e.value) and "\n" not in str(e.value)


# ------------------------------------------------------------------------- Inspect

def test_inspect_task_args_split_into_parameters_and_cell_filters(tmp_path, vm_bench):
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    from prefcert.bench.inspect.tasks import TASKS, suite_task
    ds = SuiteDataset(VM, sizes=[3], per_cell=1, params=VM_PARAMS, cells={"rule": "borda"})
    gold = {e["question"]: e["answer"] for e in ds}

    def script(messages, tools, tool_choice, config):
        o = ModelOutput.from_content(model="mockllm", content=gold[messages[-1].text])
        o.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return o

    args = {"sizes": 3, "per_cell": 1, "n": 7, "tau": "random", "rule": "borda"}
    (log,) = inspect_eval(f"prefcert/{VM}", model=get_model("mockllm/model",
                                                            custom_outputs=script),
                          limit=2, log_dir=str(tmp_path), display="none", task_args=args)
    assert log.status == "success", log.error
    assert len(log.samples) == 2
    for s in log.samples:
        # n and tau configured the suite (the prompts are create_dataset's); rule filtered
        assert s.input in gold and s.metadata["cell"]["n"] == 7
        assert s.metadata["cell"]["rule"] == "borda"
        assert s.scores["prefcert_scorer"].value == "C"
    assert log.eval.metadata["parameters"] == {"n": 7, "tau": "random"}
    # every borda prompt of the design is kept: 2 strata × 4 framings
    assert len(TASKS[VM](sizes=3, per_cell=1, n=7, rule="borda").dataset) == 8
    # a benchmark folder brings its own parameters (its manifest's n = 7, random tau)
    t = suite_task(VM, benchmark=str(vm_bench), rule="borda")
    assert len(t.dataset) == 8 and t.metadata["parameters"] == {"n": 7, "tau": "random"}
    # regressions: a benchmark folder's design is fixed — another design parameter, a
    # per-cell count or seed, or sizes it does not hold were ignored or a traceback; a run
    # setting (rounds) and the folder's own values pass
    for bad, words in (({"n": 5}, "generated with n=7; n=5 asks for another design"),
                       ({"params": {"tau": "alphabetical"}}, "generated with tau=random"),
                       ({"per_cell": 5}, "per_cell is for a generated design"),
                       ({"seed": 3}, "seed is for a generated design"),
                       ({"sizes": 4}, "no prompt of the benchmark is in the chosen sizes")):
        with pytest.raises(InstanceError) as e:
            suite_task(VM, benchmark=str(vm_bench), **bad)
        assert words in str(e.value) and "\n" not in str(e.value)
    assert len(suite_task(VM, benchmark=str(vm_bench), n=7, rounds=2).dataset) == 40
    # open sizes and a design variant as task arguments
    t = suite_task("indeterminacy-algorithmic", sizes=50, per_cell=1, tools="code")
    assert len(t.dataset) == 4
    for bad, words in (({"bogus": 1}, "no parameter or cell factor 'bogus'"),
                       ({"n": 99}, "parameter n: must be from 2 to 51"),
                       ({"n": "7.5"}, "parameter n: an integer, not '7.5'"),
                       ({"sizes": 9}, "m (--sizes) must be from 3 to 7")):
        with pytest.raises(InstanceError) as e:
            suite_task(VM, per_cell=1, **bad)
        assert words in str(e.value) and "\n" not in str(e.value)


def test_prefcert_eval_passes_params_and_sizes_through(tmp_path):
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log
    sys.path.insert(0, str(Path(__file__).parent))
    from openai_server import OpenAIServer

    # refused in one line before any model is asked (the -T names: the test above)
    r = run("eval", VM, "--model", "mockllm/model", "--log-dir", tmp_path / "x", "--param",
            "nope=1", check=False)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert "has no parameter 'nope'" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    # a regression: a model Inspect cannot make was a 46-line traceback
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    for model, words in (("nosuch/model", "not recognized"),
                         ("openai/gpt-4o-mini", "OPENAI_API_KEY")):
        r = run("eval", VM, "--model", model, "--log-dir", tmp_path / "x", "--limit", "1",
                check=False, env=env)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
        assert f"model {model}: " in lines[0] and words in lines[0]
    assert not (tmp_path / "x").exists()
    ds = create_dataset(VM, sizes=[3], per_cell=1, params=VM_PARAMS)
    gold = {e["question"]: e["answer"] for e in ds}
    env = dict(os.environ, LOCAL_API_KEY="test-key")
    with OpenAIServer(lambda messages, n: gold[messages[-1]["content"]], deadline=200) as srv:
        env["LOCAL_BASE_URL"] = srv.url
        # one Inspect run (≈ 8 s on 2 shared cores, Inspect's own start-up)
        run("eval", VM, "--model", "openai-api/local/fake", "--limit", "1", *VM_ARGS,
            "--retry-attempts", "0", "--log-dir", tmp_path / "logs", env=env)
        (asked,) = srv.requests
    assert asked[-1]["content"] in gold             # a prompt of the configured design
    (f,) = (tmp_path / "logs").glob("*.eval")
    (s,) = read_eval_log(str(f)).samples
    assert s.scores["prefcert_scorer"].value == "C" and s.metadata["cell"]["n"] == 7


# ------------------------------------------------------------------------- listing

#: every design a parameter selects, with its prompt count at its default sizes, from the
#: papers (and docs/suites.md):
EXPECTED_VARIANTS = {
    # Khanna & Wang 2026, Table 29: Shapley–Scarf (strict core) and matching (super
    # stability) markets × small / modest / medium (n = 10, 30, 50) × F / I × 10 instances
    ("indeterminacy-algorithmic", "tools=code"): ("10,30,50", 2 * 3 * 2 * 10),
    # App. M, Tables 27-28: 2 bundle cases × 5 levels + 1 unranked-item query × 3 levels,
    # 30 instances each, n = 50
    ("indeterminacy-preference", "design=mitigation"): ("50", (2 * 5 + 3) * 30),
    # App. H.5, Table 19: 3 query kinds × 3 rendering levels × 60 instances, n = 50
    ("indeterminacy-preference", "design=h5"): ("50", 3 * 3 * 60),
    # Amiri-Margavi et al., the coalitional extension at k = 2: the registered design's
    # 5 rules × m ∈ {3, 4, 5} × 2 strata × 20 instances × 4 framings (k = 2 is within the
    # joint-report limit at every m ≤ 5)
    ("voting-manipulation", "k=2"): ("3,4,5", 5 * 3 * 2 * 20 * 4),
    # Li et al. 2026, App. J: the 540 two-turn tasks on the reference route alone, and on
    # both routes (each task once per route)
    ("actionable-indeterminacy-completion", "route=reference"): ("4,6,8", 540),
    ("actionable-indeterminacy-completion", "route=both"): ("4,6,8", 2 * 540),
}
#: the default designs' counts the brief names (Ford et al.: 300 query cells + 124
#: stress-path cells; Li et al. §3.4: 36 cells × 5 groups × 3 intervention members)
EXPECTED_DEFAULTS = {"self-consistency": 300 + 124,
                     "actionable-indeterminacy-completion": 36 * 5 * 3,
                     "indeterminacy-algorithmic": 3660, "indeterminacy-preference": 3360,
                     "voting-manipulation": 2400}


def test_prefcert_suites_lists_each_parameter_design_with_its_prompt_count():
    r = run("suites")
    rows = [ln.split("\t") for ln in r.stdout.splitlines()]
    assert all(len(x) == 5 for x in rows)
    variants = {}
    for name, sizes, count, params, _ in rows:
        if " --param " in name:
            suite, _, choice = name.partition(" --param ")
            assert params == f"params {choice}"
            variants[(suite, choice)] = (sizes.removeprefix("sizes "),
                                         int(count.removesuffix(" prompts")))
        else:
            assert name not in EXPECTED_DEFAULTS or \
                count == f"{EXPECTED_DEFAULTS[name]} prompts", (name, count)
    assert variants == EXPECTED_VARIANTS
    # a variant line follows its suite's own line
    names = [x[0] for x in rows]
    for suite, choice in EXPECTED_VARIANTS:
        i = names.index(f"{suite} --param {choice}")
        assert names[:i][-1].startswith(suite)
