"""``prefcert export lm-eval``: the task folder it writes (through the console script), its
``process_results`` hook against prefcert's verdicts, and — marker ``lmeval``, in the CI
step that installs lm-evaluation-harness — ``lm_eval`` itself running the folder on its
dummy model and on its chat-completions client against a small OpenAI-protocol server on
127.0.0.1."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from openai_server import OpenAIServer                              # noqa: E402
from conftest import cli as run, PREFCERT

SUITE = "voting-manipulation"
TASK = "prefcert_voting_manipulation"
N = 4
WRONG = "Final ballot: Z > Z > Z"



@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("lmeval") / "task"
    r = run("export", "lm-eval", SUITE, str(out), "--size", str(N), "--seed", "7")
    assert f"--tasks {TASK}" in r.stderr
    return out


def docs(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / f"{SUITE}.jsonl").read_text().splitlines()]


def test_export_writes_a_task_folder_whose_hook_gives_prefcerts_verdicts(folder, tmp_path):
    import prefcert
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [f"{TASK}.yaml", "prefcert_lm_eval.py", f"{SUITE}.jsonl"])
    yaml = (folder / f"{TASK}.yaml").read_text()
    assert f"task: {TASK}\n" in yaml and "output_type: generate_until" in yaml
    assert "process_results: !function prefcert_lm_eval.process_results" in yaml
    ds = docs(folder)
    # the documents are the entries of create_dataset with the same seed, in order
    entries = prefcert.create_dataset(SUITE, size=N, seed=7)
    assert [(d["id"], d["prompt"], d["answer"]) for d in ds] == \
        [(e["metadata"]["id"], e["question"], e["answer"]) for e in entries]
    spec = importlib.util.spec_from_file_location("hook", folder / "prefcert_lm_eval.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    for d, e in zip(ds, entries):
        assert hook.process_results(d, [d["answer"]]) == {"acc": 1.0}
        assert hook.process_results(d, [WRONG]) == {"acc": 0.0}
        assert prefcert.score_answer(WRONG, e) == 0.0
    # a folder that is not empty is refused, untouched
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    r = run("export", "lm-eval", SUITE, str(folder), "--size", "1", check=False)
    assert r.returncode == 2 and "not empty" in r.stderr and "Traceback" not in r.stderr
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    r = run("export", "lm-eval", "no-such-suite", str(tmp_path / "x"), check=False)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert not (tmp_path / "x").exists()


def _lm_eval(folder: Path, out: Path, *model: str, env=None) -> dict:
    exe = Path(sys.executable).with_name("lm_eval")
    env = dict(env or os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1",
               HF_DATASETS_CACHE=str(out / "hf"), TOKENIZERS_PARALLELISM="false")
    r = subprocess.run([str(exe), "--tasks", TASK, "--include_path", str(folder), *model,
                        "--output_path", str(out), "--log_samples"],
                       capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    (results,) = out.rglob("results_*.json")
    (samples,) = out.rglob(f"samples_{TASK}_*.jsonl")
    return {"results": json.loads(results.read_text())["results"][TASK],
            "samples": [json.loads(x) for x in samples.read_text().splitlines()]}


@pytest.mark.lmeval
def test_lm_eval_runs_the_exported_task_on_its_dummy_model(folder, tmp_path):
    pytest.importorskip("lm_eval")
    got = _lm_eval(folder, tmp_path / "dummy", "--model", "dummy")
    assert len(got["samples"]) == N
    assert got["results"]["acc,none"] == 0.0            # the dummy's text is no ballot


@pytest.mark.lmeval
def test_lm_eval_over_http_scores_with_prefcert(folder, tmp_path):
    pytest.importorskip("lm_eval")
    ds = docs(folder)
    right = {d["prompt"].strip(): d["answer"] for d in ds[:3]}    # 3 gold, 1 wrong

    def reply(messages, n):
        return right.get(messages[-1]["content"].strip(), WRONG)

    with OpenAIServer(reply, deadline=900) as srv:
        got = _lm_eval(folder, tmp_path / "http", "--model", "local-chat-completions",
                       "--model_args", f"model=fake,base_url={srv.url}/chat/completions,"
                       "num_concurrent=1,max_retries=1,tokenizer_backend=None",
                       "--apply_chat_template")
        asked = [m[-1]["content"].strip() for m in srv.requests]
    assert sorted(asked) == sorted(d["prompt"].strip() for d in ds)
    assert got["results"]["acc,none"] == pytest.approx(3 / N)
    by_id = {s["doc"]["id"]: s["acc"] for s in got["samples"]}
    assert by_id == {d["id"]: (1.0 if d["prompt"].strip() in right else 0.0) for d in ds}


def test_size_of_a_benchmark_folder_is_spread_over_the_cells(tmp_path):
    """``export --benchmark DIR --size N`` took the file's first N prompts (plurality and
    Borda only, as ``eval --limit`` did, found by a new user): now the first N of the
    design's task order, the entries ``create_dataset`` gives without the folder."""
    bench = tmp_path / "bench"
    run("generate", SUITE, "-o", str(bench), "--per-cell", "1", "--sizes", "3,4",
        "--jobs", "1")
    run("export", "lm-eval", SUITE, str(tmp_path / "t"), "--benchmark", str(bench),
        "--size", "20")
    got = [json.loads(x) for x in (tmp_path / "t" / f"{SUITE}.jsonl").read_text().splitlines()]
    rules = {json.loads(d["prefcert"])["cell"]["rule"] for d in got}
    assert len(got) == 20 and len(rules) >= 3
    from prefcert.bench.dataset import SuiteDataset
    design = SuiteDataset(SUITE, sizes=[3, 4], per_cell=1)
    assert [d["id"] for d in got] == [design.id_of(i) for i in range(20)]


def test_export_overwrite_replaces_its_own_earlier_export_only(tmp_path):
    """Regression (fresh report 16): an export into its own earlier output was refused with
    no --overwrite (generate has one); a bad TOOL read "Invalid value for '{lm-eval}'"."""
    out = tmp_path / "task"
    run("export", "lm-eval", SUITE, out, "--size", "2", "--seed", "7")
    r = run("export", "lm-eval", SUITE, out, "--size", "3", "--seed", "7", check=False)
    assert r.returncode == 2 and "pass --overwrite" in r.stderr
    run("export", "lm-eval", SUITE, out, "--size", "3", "--seed", "7", "--overwrite")
    assert len(docs(out)) == 3
    (out / "mine.txt").write_text("keep\n")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    r = run("export", "lm-eval", SUITE, out, "--size", "1", "--overwrite", check=False)
    assert r.returncode == 2 and "mine.txt" in r.stderr and "does not write" in r.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    r = run("export", "lm-evl", SUITE, tmp_path / "y", check=False)
    assert r.returncode == 2 and "{" not in r.stderr
    assert "'lm-evl' is not a tool prefcert exports to (the tools: lm-eval)." in r.stderr
