"""Benchmarks as the datasets other tools load as they are: a Parquet benchmark read by
Hugging Face ``datasets`` (typed nested columns, one split per size, its dataset card),
``score_answer`` and the RL reward on a loaded row, ``create_dataset`` building only the
entries it returns, and the optional integrations kept out of ``import prefcert`` and
``prefcert check``."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import prefcert
from conftest import cli as run

ROOT = Path(__file__).resolve().parent.parent
SUITE = "voting-manipulation"
WRONG = "Final ballot: Z > Z > Z"



@pytest.fixture(scope="module")
def benches(tmp_path_factory) -> tuple[Path, Path]:
    """The same suite, seed and design as Parquet and as JSONL."""
    base = tmp_path_factory.mktemp("bench")
    common = ["--per-cell", "1", "--sizes", "3,4", "--seed", "5"]
    run("generate", SUITE, "-o", str(base / "pq"), *common, "--format", "parquet")
    run("generate", SUITE, "-o", str(base / "jsonl"), *common)
    return base / "pq", base / "jsonl"


def test_datasets_loads_the_parquet_benchmark_with_typed_nested_columns(benches, tmp_path):
    datasets = pytest.importorskip("datasets")
    pq, js = benches
    ds = datasets.load_dataset(str(pq), cache_dir=str(tmp_path / "hf"))   # by its card
    assert sorted(ds) == ["size_3", "size_4"]
    f = ds["size_3"].features
    # structs and lists, not JSON text
    assert isinstance(f["cell"], dict) and f["cell"]["rule"] == datasets.Value("string")
    assert f["cell"]["size"] == datasets.Value("int64")
    assert isinstance(f["task"], dict) and isinstance(f["task"]["expected"], dict)
    assert f["gold_label_ids"].feature == datasets.Value("string")
    assert f["answer"] == datasets.Value("string") and f["prompt"] == datasets.Value("string")
    # every row is the JSONL prompt of the same id (the answer as plain text, not encoded
    # twice), in the split of its size
    want = {p["id"]: p for p in map(json.loads, (js / "prompts.jsonl").read_text().splitlines())}
    rows = [(split, r) for split in ds for r in ds[split]]
    assert sorted(r["id"] for _, r in rows) == sorted(want)
    for split, r in rows:
        p = want[r["id"]]
        assert (r["prompt"], r["answer"], r["cell"]["size"]) == \
            (p["prompt"], p["answer"], p["cell"]["size"])
        assert split == f"size_{p['cell']['size']}"
    # the plain parquet builder reads the same typed table
    plain = datasets.load_dataset("parquet", data_files=str(pq / "data" / "size_4.parquet"),
                                  cache_dir=str(tmp_path / "hf2"))["train"]
    assert plain.features == ds["size_4"].features and len(plain) == len(ds["size_4"])


def test_score_answer_and_reward_read_a_loaded_row(benches, tmp_path):
    datasets = pytest.importorskip("datasets")
    pq, _ = benches
    split = datasets.load_dataset(str(pq), cache_dir=str(tmp_path / "hf"))["size_3"]
    for row in split:
        assert prefcert.score_answer(row["answer"], row) == 1.0
        assert prefcert.score_answer(WRONG, row) == 0.0
    # TRL's call: the prompts, the completions (conversations here) and every other
    # column of the batch as keyword arguments
    batch = split[:6]
    prompts = batch.pop("prompt")
    completions = [[{"role": "assistant", "content": a if k % 2 else WRONG}]
                   for k, a in enumerate(batch["answer"])]
    assert prefcert.reward(prompts, completions, **batch) == [0.0, 1.0] * 3
    # what GRPO adds beside the columns is not read
    assert prefcert.reward(prompts, completions, completion_ids=[[1]] * 6,
                           trainer_state=object(), **batch) == [0.0, 1.0] * 3
    texts = [a if k < 2 else None for k, a in enumerate(batch["answer"])]
    assert prefcert.reward(prompts, texts, **batch) == [1.0, 1.0, 0.0, 0.0, 0.0, 0.0]


def test_the_dataset_card_describes_the_splits_licence_and_citation(benches):
    yaml = pytest.importorskip("yaml")
    pq, _ = benches
    text = (pq / "README.md").read_text()
    _, header, body = text.split("---\n", 2)
    card = yaml.safe_load(header)
    assert card["license"] == "mit"
    (config,) = card["configs"]
    assert {d["split"]: d["path"] for d in config["data_files"]} == \
        {"size_3": "data/size_3.parquet", "size_4": "data/size_4.parquet"}
    manifest = json.loads((pq / "manifest.json").read_text())
    assert {s["name"]: s["num_examples"] for s in card["dataset_info"]["splits"]} == \
        manifest["splits"]
    names = [x["name"] for x in card["dataset_info"]["features"]]
    assert {"id", "prompt", "answer", "cell", "task"} <= set(names)
    assert "## Citation" in body and "Amiri-Margavi" in body.split("## Citation")[1]


def test_create_dataset_builds_only_the_entries_it_returns(benches):
    from prefcert.bench.dataset import SuiteDataset
    _, js = benches
    ds = SuiteDataset(SUITE, sizes=[3, 4], per_cell=1, seed=5)
    first = ds[0]
    assert ds.tasks_built == 1 and len(ds) > 40      # one task of the design sampled
    # entry i depends on the seed and i alone, and is the prompt prefcert generate gives
    # the same id
    one = prefcert.create_dataset(SUITE, size=1, seed=5, sizes=[3, 4], per_cell=1)
    three = prefcert.create_dataset(SUITE, size=3, seed=5, sizes=[3, 4], per_cell=1)
    assert one == [first] and three[0] == first
    want = {p["id"]: p for p in map(json.loads, (js / "prompts.jsonl").read_text().splitlines())}
    for e in three:
        p = want[e["metadata"]["id"]]
        assert (e["question"], e["answer"]) == (p["prompt"], p["answer"])
        # small: the prompt text once, only the instances the labels read
        meta = e["metadata"]
        assert e["question"] not in json.dumps(meta)
        assert set(meta["instances"]) == \
            {*p["instance_ids"], *(lab["id"] for lab in meta["labels"])}


def test_import_prefcert_and_check_load_no_optional_integration(tmp_path):
    labels = tmp_path / "labels.jsonl"
    run("label", str(ROOT / "instances" / "stable_matching" / "reference.jsonl"),
        "-o", str(labels))
    optional = ("inspect_ai", "datasets", "lm_eval", "pyarrow", "openai", "torch")
    code = ("import sys\nimport prefcert\nfrom prefcert.cli import main\n"
            f"try:\n    main(['check', {str(labels)!r}])\nexcept SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {optional!r}))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.splitlines()[-1] == "[]"


#: the columns of every split of a voting-manipulation Parquet benchmark, in order
VM_COLUMNS = ["id", "suite", "instance_id", "instance_ids", "question", "format", "cell",
              "prompt", "answer_shape", "gold_label_ids", "answer", "task", "framing",
              "labels_json", "instances_json"]


def test_every_split_and_every_run_has_one_schema(benches, tmp_path):
    """Regression (a new user): size_3 and size_4 held ``instances_json``, size_5 a typed
    ``instances``, so ``load_dataset`` gave ``row["instances"] is None`` in some splits
    and the card declared both. Now one schema for every split of a run and for runs of
    other sizes: labels and instances always as JSON text."""
    datasets = pytest.importorskip("datasets")
    pq, _ = benches                                   # seed 5, sizes 3, 4
    other = tmp_path / "pq45"
    run("generate", SUITE, "-o", str(other), "--per-cell", "1", "--sizes", "4,5",
        "--format", "parquet")                       # the suite's seed: size_5 was typed
    a = datasets.load_dataset(str(pq), cache_dir=str(tmp_path / "hf"))
    b = datasets.load_dataset(str(other), cache_dir=str(tmp_path / "hf2"))
    assert sorted(b) == ["size_4", "size_5"]
    splits = [a["size_3"], a["size_4"], b["size_4"], b["size_5"]]
    for split in splits:
        assert split.column_names == VM_COLUMNS
        assert split.features == splits[0].features
        for row in split:
            assert isinstance(row["instances_json"], str) and row["labels_json"]
            assert prefcert.score_answer(row["answer"], row) == 1.0
    # the card declares the columns the splits have, once each
    yaml = pytest.importorskip("yaml")
    card = yaml.safe_load((other / "README.md").read_text().split("---\n", 2)[1])
    assert [f["name"] for f in card["dataset_info"]["features"]] == VM_COLUMNS
