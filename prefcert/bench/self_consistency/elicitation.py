"""From a generated ``self-consistency`` folder and a model's answers to the response table
of :func:`prefcert.bench.self_consistency.audit.consistency_audit` — no hand-written design.

A folder written by ``prefcert generate self-consistency`` holds ``design.json`` (the
design) and ``prompts.jsonl`` (every record with the ``cell_id`` of its query cell). An
ANSWERS file is JSONL, one completion a line: ``{"id": prompt id, "answer": text}``, with
optional ``epoch`` (or ``completion_idx``; the completions of one prompt, e.g. Inspect
epochs 1–15) and ``model``. A prompt may be answered several times (one line per
completion); the same (id, epoch) twice is an error.

References
----------
Ford et al. (2026), "LLM-Derived Preference Judgments Are Not Self-Consistent", Table 1
(15 completions per query cell) and Table 6 (parsing).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...formal.errors import InstanceError
from .audit import Design, read_amount, read_design


def is_generated(path: str | Path) -> bool:
    """Whether ``path`` is a folder with ``design.json`` and a manifest (a generated
    elicitation)."""
    p = Path(path)
    return p.is_dir() and (p / "design.json").is_file() and (p / "manifest.json").is_file()


def read_generated(folder: str | Path) -> tuple[Design, dict[str, str]]:
    """The design of a generated folder and prompt id -> cell id. InstanceError for a
    folder without ``design.json``, or a prompt without a ``cell_id`` or naming a cell the
    design lacks. O(prompts + cells)."""
    from ..generate import read_prompts
    p = Path(folder)
    if not (p / "design.json").is_file():
        raise InstanceError("not a generated self-consistency folder (no design.json)",
                            file=str(p))
    design = read_design(p / "design.json")
    cells: dict[str, str] = {}
    for i, rec in enumerate(read_prompts(p), 1):
        cid = rec.get("cell_id")
        if cid not in design.cells:
            raise InstanceError("prompt without a design cell_id", file=str(p / "prompts.jsonl"),
                                line=i, value=cid)
        cells[str(rec["id"])] = str(cid)
    return design, cells


def looks_like_answers(path: str | Path) -> bool:
    """Whether a responses file is an ANSWERS file (JSONL records with ``id`` and
    ``answer`` and no ``cell_id``), judged on its first record."""
    from ...formal.files import read_input
    p = Path(path)
    if p.suffix == ".csv":
        return False
    try:                     # a FIFO or a device is refused unread (the reader says so)
        text = read_input(p)
    except InstanceError:
        return False
    for line in text.split("\n"):
        if line.strip():
            try:
                rec = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                return False
            return isinstance(rec, dict) and "id" in rec and "cell_id" not in rec
    return False


def responses_from_answers(path: str | Path, cells: dict[str, str], *,
                           model: str | None = None, ranges: str = "ambiguous"
                           ) -> list[dict]:
    """The response rows (as :func:`~prefcert.bench.self_consistency.audit.read_responses`
    returns them: ``model``, ``cell_id``, ``value``, ``number_only``, ``reading``,
    ``line``, ``file``) of an ANSWERS file, each answer's text read by
    :func:`~prefcert.bench.self_consistency.audit.read_amount`.

    Parameters
    ----------
    path : str or Path
        The ANSWERS file (JSONL).
    cells : dict
        Prompt id -> cell id (:func:`read_generated`).
    model : str, optional
        The model of the lines that name none (a line naming another is an error).
    ranges : str
        As in :func:`~prefcert.bench.self_consistency.audit.parse_amount`.

    Returns
    -------
    list of dict

    Raises
    ------
    InstanceError
        Naming the line of a record that is not JSON, has no ``id``, answers an unknown
        prompt, repeats an (id, epoch), or has no model (and ``model`` is None).

    Notes
    -----
    O(lines).
    """
    from ...formal.files import parse_json, read_input
    p = Path(path)
    text = read_input(p)
    seen: dict[tuple[str, str, Any], int] = {}
    order: dict[tuple[str, str], int] = {}
    out = []
    for i, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        rec = parse_json(line, str(p), i, unique_keys=False)
        if not isinstance(rec, dict) or "id" not in rec:
            raise InstanceError("answer record without 'id'", file=str(p), line=i)
        pid = str(rec["id"])
        if pid not in cells:
            raise InstanceError("answer to an unknown prompt id", file=str(p), line=i,
                                value=pid)
        name = rec.get("model")
        if name in (None, ""):
            if model is None:
                raise InstanceError("answer without 'model' (or give --model NAME for the "
                                    "file)", file=str(p), line=i)
            name = model
        elif model is not None and str(name) != model:
            raise InstanceError(f"the row names another model than --model {model}",
                                file=str(p), line=i, value=name)
        name = str(name)
        epoch = rec.get("epoch", rec.get("completion_idx"))
        if epoch is None:                              # completions in file order
            epoch = order[(name, pid)] = order.get((name, pid), 0) + 1
            epoch = f"#{epoch}"
        key = (name, pid, epoch)
        if key in seen:
            raise InstanceError(f"a second answer to prompt {pid} for the same epoch "
                                f"(first on line {seen[key]})", file=str(p), line=i,
                                value=epoch)
        seen[key] = i
        answer = None if rec.get("timeout") else rec.get("answer")
        value, only, reading = read_amount(None if answer is None else str(answer),
                                           ranges=ranges)
        out.append({"model": name, "cell_id": cells[pid], "value": value,
                    "number_only": bool(only), "reading": reading, "line": i,
                    "file": str(p)})
    return out


def responses_from_logs(paths: list[str | Path], cells: dict[str, str], *,
                        ranges: str = "ambiguous") -> list[dict]:
    """The response rows of Inspect logs of the ``self-consistency`` task: one per
    (sample, epoch), the model the log's, the cell the sample record's ``cell_id`` (one of
    the folder's cells; prompt ids are not used, they depend on ``per_cell``). InstanceError
    naming the log otherwise. O(samples)."""
    from ..inspect.logs import log_samples
    known = set(cells.values())
    out = []
    for s in log_samples(paths):
        cid = s["record"].get("cell_id")      # the sample's own cell (ids vary with --per-cell)
        if cid not in known:
            raise InstanceError("a sample whose cell_id is not in the folder's design",
                                file=s["log"], value=cid)
        value, only, reading = read_amount(s["answer"], ranges=ranges)
        out.append({"model": str(s["model"]), "cell_id": str(cid), "value": value,
                    "number_only": bool(only), "reading": reading,
                    "line": int(s["epoch"] or 0), "file": s["log"]})
    return out
