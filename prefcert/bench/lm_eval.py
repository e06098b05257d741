"""``prefcert export lm-eval``: a suite as an lm-evaluation-harness task folder.

The folder holds ``prefcert_<suite>.yaml`` (a ``generate_until`` task), the prompts as
``<suite>.jsonl`` (each document: ``id``, ``prompt``, ``answer`` and ``prefcert``, the
entry's metadata as JSON text — the prompt record, its certified labels and instances)
and ``prefcert_lm_eval.py``, whose ``process_results`` scores each generation with
:func:`prefcert.score_answer` (the same verdict as ``prefcert score``) and whose
``dataset`` loads the documents from beside itself, so the folder can be moved. Run it
with ``lm_eval --tasks prefcert_<suite> --include_path DIR --model …``. Writing the folder
needs neither lm-eval nor torch; running it needs prefcert installed beside lm-eval.
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

HOOK = '''"""lm-evaluation-harness hooks written by prefcert export lm-eval: the documents beside
this file, and prefcert's certified verdict on each generation."""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def dataset(**kwargs):
    import datasets
    return datasets.load_dataset("json", data_files={"test": str(HERE / DOCS)})


def process_results(doc, results):
    import prefcert
    entry = {"metadata": json.loads(doc["prefcert"])}
    return {"acc": prefcert.score_answer(results[0], entry)}
'''

YAML = """task: {task}
custom_dataset: !function prefcert_lm_eval.dataset
test_split: test
output_type: generate_until
doc_to_text: "{{{{prompt}}}}"
doc_to_target: "{{{{answer}}}}"
process_results: !function prefcert_lm_eval.process_results
generation_kwargs:
  until: []
  max_gen_toks: {max_tokens}
  do_sample: false
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
  prefcert_suite: {suite}
"""


def task_name(suite: str) -> str:
    return "prefcert_" + suite.replace("-", "_")


def export(entries: Sequence[dict], suite: str, out: str | Path, *,
           max_tokens: int = 4096) -> list[Path]:
    """Write the task folder ``out`` for ``entries`` (dataset entries of ``suite``);
    returns the files written (each through a temporary file)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    docs = f"{suite}.jsonl"
    files = {
        out / docs: "".join(json.dumps({"id": e["metadata"]["id"], "prompt": e["question"],
                                        "answer": e["answer"],
                                        "prefcert": json.dumps(e["metadata"],
                                                               separators=(",", ":"))},
                                       ensure_ascii=False) + "\n" for e in entries),
        out / "prefcert_lm_eval.py": HOOK.replace("DOCS", repr(docs)),
        out / f"{task_name(suite)}.yaml": YAML.format(task=task_name(suite), suite=suite,
                                                      max_tokens=max_tokens),
    }
    for path, text in files.items():
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    return list(files)
