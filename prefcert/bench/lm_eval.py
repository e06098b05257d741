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


def export_names(suite: str) -> list[str]:
    """The names of the files :func:`export` writes for ``suite``.

    Parameters
    ----------
    suite : str
        The suite's name.

    Returns
    -------
    list of str
        The documents, the hook and the task YAML, relative to the task folder.
    """
    return [f"{suite}.jsonl", "prefcert_lm_eval.py", f"{task_name(suite)}.yaml"]


def export(entries: Sequence[dict], suite: str, out: str | Path, *,
           max_tokens: int = 4096, overwrite: bool = False) -> list[Path]:
    """Write the task folder ``out`` for ``entries`` (dataset entries of ``suite``).

    Parameters
    ----------
    entries : sequence of dict
        Dataset entries of ``suite`` (:func:`prefcert.create_dataset`).
    suite : str
        The suite's name (the task is ``prefcert_<suite>``).
    out : str or Path
        The folder (created when missing); it must hold none of the files written.
    max_tokens : int
        The task's ``max_gen_toks``.
    overwrite : bool, default False
        Replace the files of an earlier export of ``suite`` in ``out``
        (:func:`export_names`); any other file there is still refused
        (:func:`prefcert.output.check_new_folder`, the rule of ``prefcert generate``).

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    InstanceError
        One line naming the file that could not be written (a full disk, a read-only
        folder) or a folder already holding one of the files. The files are staged in
        ``out`` and renamed into place together (:class:`prefcert.output.OutputFolder`):
        on a failure none is left, no temporary file either, and ``out`` is removed
        again when this call created it.
    """
    from ..formal.errors import InstanceError
    from ..output import OutputFolder
    out = Path(out)
    docs = f"{suite}.jsonl"
    if overwrite:
        from ..output import check_new_folder
        check_new_folder(out, export_names(suite), overwrite=True)
    files = {
        docs: "".join(json.dumps({"id": e["metadata"]["id"], "prompt": e["question"],
                                  "answer": e["answer"],
                                  "prefcert": json.dumps(e["metadata"],
                                                         separators=(",", ":"))},
                                 ensure_ascii=False) + "\n" for e in entries),
        "prefcert_lm_eval.py": HOOK.replace("DOCS", repr(docs)),
        f"{task_name(suite)}.yaml": YAML.format(task=task_name(suite), suite=suite,
                                                max_tokens=max_tokens),
    }
    with OutputFolder(out, "'prefcert export'") as folder:    # locked; all or nothing
        held = next((n for n in files if (out / n).exists()), None)
        if held is not None and not overwrite:
            raise InstanceError("the folder already holds an export", file=str(out / held))
        for name, text in files.items():
            folder.write(name, text)
        folder.commit()
    return [out / n for n in files]
