"""``prefcert generate``: sample a suite, certify every gold answer, write the benchmark.

Output folder (every file byte-identical for the same suite, seed, sizes and per-cell
count):

- ``instances.jsonl``: one instance per line (the input format of ``prefcert label``);
- ``labels.jsonl``: one certified label per (instance, question), as ``prefcert label``
  writes it plus ``label_id`` (engine timings are dropped, they are not reproducible);
  ``prefcert check labels.jsonl`` re-verifies them against ``instances.jsonl``;
- ``prompts.jsonl`` (or ``prompts.parquet``): one record per prompt — ``id``, ``suite``,
  ``instance_id`` (and ``instance_ids``, every instance of the task), ``question``, ``format``, ``cell``, ``prompt``, ``answer_shape``,
  ``gold_label_ids``, ``answer`` (a gold answer the scorer accepts) and ``task``;
- ``manifest.json``: suite, seed, sizes, per-cell count, prefcert version, the composition
  per cell with its total, the rejection-sampling acceptance rates and label counts, the
  readings and the template set chosen, and the instances drawn more than once.
"""
from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..formal.errors import InstanceError
from .design import Context, Suite, Task, canonical

ENGINES = ("oracle",)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _sample_one(args):
    name, seed, row, i, readings = args
    from .suites import suite as get_suite
    stats: dict = {}
    task = get_suite(name).sample(row, i, Context(seed, row, i, stats, readings=readings))
    return task, stats


def sample_tasks(suite: Suite, *, seed: int, sizes: Sequence[Any], per_cell: int | None,
                 stats: dict, jobs: int = 1, readings: dict | None = None
                 ) -> list[tuple[Any, int, Task]]:
    """Every (row, index, task) of the design, in design order. With ``jobs`` > 1 the
    draws run in that many processes; each (row, index) has its own seed, so the tasks and
    the merged counters are the same. ``readings``: the suite's readings (defaults
    filled)."""
    readings = suite.chosen_readings(readings)
    work = []
    for row in suite.rows(tuple(sizes)):
        k = per_cell if per_cell is not None else (row.per_cell or suite.per_cell)
        work += [(suite.name, seed, row, i, readings) for i in range(k)]
    if jobs > 1 and len(work) > 1:
        import multiprocessing as mp
        with mp.get_context("fork").Pool(jobs, initializer=_quiet_worker) as pool:
            results = pool.map(_sample_one, work, chunksize=1)
    else:
        results = [_sample_one(w) for w in work]
    out = []
    for (_, _, row, i, _), (task, st) in zip(work, results):
        for tag, c in st.items():
            stats.setdefault(tag, Counter()).update(c)
        out.append((row, i, task))
    return out


def certify(tasks: list, *, engines: Sequence[str] = ENGINES, progress: bool = False,
            jobs: int = 1) -> tuple[list[dict], list[dict], dict]:
    """Label every question of the tasks through :func:`prefcert.pipeline.jobs.plan` /
    :func:`prefcert.pipeline.jobs.label`.

    Returns (instance dicts in file order, labels in file order, (instance id, canonical
    question) -> label id). Raises InstanceError when an instance id is reused with other
    content, and RuntimeError when a label cannot be certified (engines disagree, a
    certificate is rejected, or the label is not checked).
    """
    from ..formal.instances import from_object
    from ..pipeline.jobs import plan
    insts: dict[str, dict] = {}
    qs: dict[str, dict[str, Any]] = {}
    for _, _, task in tasks:
        for data in task.instances:
            iid = data["id"]
            if iid in insts:
                if insts[iid] is not data and canonical(insts[iid]) != canonical(data):
                    raise InstanceError("instance id reused with other content", value=iid)
                continue
            insts[iid] = data
            qs[iid] = {}
        for iid, q in task.questions:
            qs[iid].setdefault(canonical(q), q)
    order = list(insts)
    ids: dict[tuple[str, str], str] = {}
    all_jobs = []
    for line, iid in enumerate(order, 1):
        inst = from_object(insts[iid], "instances.jsonl", line, iid)
        questions = list(qs[iid].values())
        if not questions:
            continue
        for k, (key, job) in enumerate(zip(qs[iid], plan([inst], questions))):
            ids[(iid, key)] = f"{iid}#{k}"
            all_jobs.append((ids[(iid, key)], job))
    labels = _label_all(all_jobs, engines, progress, jobs)
    return [insts[i] for i in order], labels, ids


def _label_one(item, engines):
    from ..formal.errors import Disagreement, Undecided
    from ..pipeline.jobs import label
    lid, job = item
    try:
        lab = label(job, engines=list(engines))
    except (Disagreement, Undecided) as e:
        raise RuntimeError(f"no certified label for {lid} {job.asked}: {e}") from None
    if lab.get("checked") is not True:
        raise RuntimeError(f"label {lid} is not checked")
    lab["engines"] = [{"engine": e["engine"], "verdict": e["verdict"]} for e in lab["engines"]]
    return {"label_id": lid, **lab}


_ITEMS: list = []


def _label_idx(i: int) -> dict:
    item, engines = _ITEMS[i]
    return _label_one(item, engines)


def _quiet_worker() -> None:
    """Workers leave Ctrl-C to the parent (no traceback per worker)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _label_all(items: list, engines, progress: bool, jobs: int) -> list[dict]:
    if jobs > 1 and len(items) > 1:
        import multiprocessing as mp
        global _ITEMS
        _ITEMS = [(it, tuple(engines)) for it in items]
        try:
            with mp.get_context("fork").Pool(jobs, initializer=_quiet_worker) as pool:
                return pool.map(_label_idx, range(len(items)), chunksize=8)
        finally:
            _ITEMS = []
    from rich.progress import Progress
    bar = Progress(transient=True, disable=not progress)
    with bar:
        t = bar.add_task("certifying", total=len(items))
        out = []
        for item in items:
            out.append(_label_one(item, engines))
            bar.advance(t)
    return out


def build(suite: Suite, *, seed: int | None = None, sizes: Sequence[Any] | None = None,
          per_cell: int | None = None, progress: bool = False, jobs: int = 1,
          encoding: str = "json", readings: dict | None = None,
          templates: str | None = None) -> dict:
    """Sample and certify ``suite`` in memory: ``{"instances", "labels", "prompts",
    "manifest"}`` (see :func:`generate` for the parameters)."""
    readings = suite.chosen_readings(readings)
    tpl = _templates(suite, templates)
    seed = suite.seed if seed is None else seed
    sizes = tuple(suite.sizes if sizes is None else sizes)
    bad = [s for s in sizes if s not in suite.sizes]
    if bad or not sizes:
        raise InstanceError(f"suite {suite.name} has sizes "
                            f"{', '.join(map(str, suite.sizes))}", value=bad[0] if bad else "")
    t0 = time.perf_counter()
    stats: dict = {}
    tasks = sample_tasks(suite, seed=seed, sizes=sizes, per_cell=per_cell, stats=stats,
                         jobs=jobs, readings=readings)
    t1 = time.perf_counter()
    instances, labels, ids = certify(tasks, engines=suite.engines or ENGINES,
                                     progress=progress, jobs=jobs)
    t2 = time.perf_counter()
    by_id = {lab["label_id"]: lab for lab in labels}
    prompts = []
    composition: Counter = Counter()
    repeats, duplicates = _duplicates(suite, tasks)
    for row, index, task in tasks:
        gold_ids = [ids[(iid, canonical(q))] for iid, q in task.questions]
        labs = [by_id[i] for i in gold_ids]
        for variant in row.variants:
            cell = {**row.factors, **variant}
            r = suite.render(task, variant, Context(seed, row, index, stats, variant, encoding,
                                                    readings, tpl))
            rec = {"id": f"{len(prompts) + 1:05d}", "suite": suite.name,
                   "instance_id": task.instances[0]["id"] if task.instances else None,
                   "instance_ids": [i["id"] for i in task.instances],
                   "question": task.payload.get("question"),
                   "format": variant.get("format", canonical(dict(variant))),
                   "cell": cell, "prompt": r.text, "answer_shape": r.answer_shape,
                   "gold_label_ids": gold_ids,
                   "answer": suite.gold(task, variant, labs, r), "task": task.payload,
                   **repeats.get(id(task), {}), **r.extra}
            prompts.append(rec)
            composition[canonical(cell)] += 1
    from .. import __version__
    verdicts = Counter(f"{_qname(lab['question'])}:{lab['verdict']}" for lab in labels)
    manifest = {
        "suite": suite.name, "description": suite.description, "prefcert": __version__,
        "seed": seed, "sizes": list(sizes), "encoding": encoding, "readings": readings,
        "per_cell": per_cell if per_cell is not None else suite.per_cell,
        "prompts_file": "prompts.jsonl",
        "total": len(prompts), "instances": len(instances), "labels": len(labels),
        "labels_checked": sum(lab["checked"] is True for lab in labels),
        "label_verdicts": dict(sorted(verdicts.items())),
        "composition": [{"cell": json.loads(k), "prompts": v} for k, v in composition.items()],
        "acceptance": [{"tag": json.loads(k), **dict(sorted(c.items())),
                        "rate": round(c["accepted"] / c["draws"], 6) if c.get("draws") else None}
                       for k, c in sorted(stats.items())],
    }
    if tpl is not None:
        manifest["templates"] = dict(tpl.origin)
    if suite.duplicate_key is not None:
        manifest["duplicates"] = duplicates
    if suite.calibration is not None:
        manifest["calibration"] = suite.calibration(stats)
    seconds = {"sample": t1 - t0, "certify": t2 - t1, "total": time.perf_counter() - t0}
    return {"instances": instances, "labels": labels, "prompts": prompts,
            "manifest": manifest, "seconds": seconds}


ENCODINGS = ("json", "sentences", "narrative")


def _templates(suite: Suite, choice: str | None):
    """The suite's resolved template set (None for a suite without templates); InstanceError
    when templates are asked of a suite that has none."""
    if suite.templates is None:
        if choice is not None:
            raise InstanceError(f"suite {suite.name} has no prompt templates", value=choice)
        return None
    from .templates import load
    return load(suite.templates, choice)


def _duplicates(suite: Suite, tasks: list) -> tuple[dict, list[dict]]:
    """Tasks drawn more than once (same ``duplicate_key``): per task (by ``id``) the
    record fields ``duplicate_of`` (the first copy's instance id; on the later copies) and
    ``cluster`` (that id; on every copy of a repeated instance), and the manifest's list:
    per row, its distinct and drawn instances and the groups of ids that are one
    instance."""
    if suite.duplicate_key is None:
        return {}, []
    first: dict[str, str] = {}
    groups: dict[str, list[str]] = {}
    for _, _, task in tasks:
        k = suite.duplicate_key(task)
        if k is None:
            continue
        iid = task.instances[0]["id"]
        first.setdefault(k, iid)
        groups.setdefault(k, []).append(iid)
    fields: dict[int, dict] = {}
    rows: dict[str, dict] = {}
    for row, _, task in tasks:
        k = suite.duplicate_key(task)
        r = rows.setdefault(canonical(dict(row.factors)), {"row": dict(row.factors),
                                                           "instances": 0, "keys": []})
        r["instances"] += 1
        if k is None:
            continue
        r["keys"].append(k)
        if len(groups[k]) > 1:
            iid = task.instances[0]["id"]
            fields[id(task)] = {"cluster": first[k], **({"duplicate_of": first[k]}
                                                        if iid != first[k] else {})}
    out = []
    for r in rows.values():
        distinct = list(dict.fromkeys(r["keys"]))
        if len(distinct) < len(r["keys"]):
            out.append({"row": r["row"], "instances": r["instances"], "distinct": len(distinct),
                        "groups": [groups[k] for k in distinct if len(groups[k]) > 1]})
    return fields, out


def _qname(q: Any) -> str:
    return q if isinstance(q, str) else str(q.get("type"))


def generate(suite: Suite, out: str | Path, *, seed: int | None = None,
             sizes: Sequence[Any] | None = None, per_cell: int | None = None,
             fmt: str = "jsonl", progress: bool = False, jobs: int = 1,
             encoding: str = "json", overwrite: bool = False,
             readings: dict | None = None, templates: str | None = None) -> dict:
    """Generate ``suite`` into the folder ``out``; returns the manifest (also written) with
    the wall-clock ``_seconds`` of each phase (not written: it is not reproducible).

    ``sizes`` keeps a subset of the suite's sizes; ``per_cell`` overrides the instances per
    cell; ``fmt``: ``jsonl`` or ``parquet`` (the prompts table; needs pyarrow); ``jobs``:
    processes for the draws (the output does not depend on it); ``encoding``: how prompts
    show preferences — ``json`` (the instance format, default), ``sentences`` (one sentence
    per agent) or ``narrative`` (a short story), for suites that render profiles;
    ``readings``: name -> choice of the suite's named readings; ``templates``: a shipped
    template set's name or a template file (suites with templates; see
    :mod:`prefcert.bench.templates`). Raises InstanceError for a size the suite does not
    have, an unknown format, encoding, reading or template set, a bad template file, or an
    ``out`` that already holds a benchmark (unless ``overwrite``: existing output is never
    replaced silently).
    """
    if fmt not in ("jsonl", "parquet"):
        raise InstanceError("format must be jsonl or parquet", value=fmt)
    if encoding not in ENCODINGS:
        raise InstanceError(f"encoding must be one of {', '.join(ENCODINGS)}", value=encoding)
    out = Path(out)
    held = [f for f in OUTPUT_FILES if (out / f).exists()]
    if held and not overwrite:
        raise InstanceError("the folder already holds a benchmark (pass --overwrite to replace "
                            "it)", file=str(out / held[0]))
    b = build(suite, seed=seed, sizes=sizes, per_cell=per_cell, progress=progress, jobs=jobs,
              encoding=encoding, readings=readings, templates=templates)
    t0 = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    _write_jsonl(out / "instances.jsonl", b["instances"])
    _write_jsonl(out / "labels.jsonl", b["labels"])
    manifest = b["manifest"]
    if fmt == "jsonl":
        _write_jsonl(out / "prompts.jsonl", b["prompts"])
    else:
        manifest["prompts_file"] = "prompts.parquet"
        write_parquet(out / "prompts.parquet", b["prompts"])
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
    manifest = dict(manifest)
    manifest["_seconds"] = dict(b["seconds"], write=time.perf_counter() - t0)
    manifest["_seconds"]["total"] += manifest["_seconds"]["write"]
    return manifest


OUTPUT_FILES = ("instances.jsonl", "labels.jsonl", "prompts.jsonl", "prompts.parquet",
                "manifest.json")


def _write_jsonl(path: Path, rows: list) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(_dumps(r) + "\n")
    os.replace(tmp, path)


PARQUET_JSON = ("question", "cell", "gold_label_ids", "task", "options", "answer")


def write_parquet(path: Path, prompts: list[dict]) -> None:
    """The prompts as one Parquet table: scalar fields as columns, nested ones (and the
    gold answer) as JSON text, so ``datasets.load_dataset("parquet", …)`` reads it as is."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:                      # pragma: no cover - depends on the install
        raise InstanceError("--format parquet needs pyarrow (pip install pyarrow)") from None
    keys = list(dict.fromkeys(k for p in prompts for k in p))
    cols = {}
    for k in keys:
        vals = [p.get(k) for p in prompts]
        if k in PARQUET_JSON or any(isinstance(v, (dict, list)) for v in vals):
            vals = [None if v is None else _dumps(v) for v in vals]
        cols[k] = vals
    table = pa.table(cols)
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, path)


def read_prompts(path: str | Path) -> list[dict]:
    """Prompt records from ``prompts.jsonl`` or ``prompts.parquet`` (JSON columns decoded)."""
    path = Path(path)
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq
        rows = pq.read_table(path).to_pylist()
        for r in rows:
            for k in PARQUET_JSON:
                if isinstance(r.get(k), str):
                    r[k] = json.loads(r[k])
            for k in list(r):
                if r[k] is None:
                    del r[k]
        return rows
    return read_jsonl(path)


def read_jsonl(path: str | Path) -> list[dict]:
    """The JSON objects of a JSONL file; InstanceError naming the line of a bad one."""
    out = []
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InstanceError(f"cannot read ({e.__class__.__name__})", file=str(path)) from None
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InstanceError(f"not JSON ({e.msg})", file=str(path), line=i,
                                value=line[:40]) from None
        if not isinstance(obj, dict):
            raise InstanceError("not a JSON object", file=str(path), line=i, value=line[:40])
        out.append(obj)
    return out


def print_summary(manifest: dict, suite: Suite, stream=None) -> None:
    """Composition, acceptance and calibration tables (rich) on stderr."""
    from rich.console import Console
    from rich.table import Table
    console = Console(file=stream or sys.stderr, width=160)
    t = Table(title=f"{manifest['suite']}: {manifest['total']} prompts, "
                    f"{manifest['labels']} labels ({manifest['labels_checked']} checked)",
              title_justify="left")
    t.add_column("tag")
    for c in ("draws", "accepted", "rate"):
        t.add_column(c, justify="right")
    for a in manifest["acceptance"]:
        if a.get("draws", 0) > a.get("accepted", 0):
            t.add_row(canonical(a["tag"]), str(a.get("draws", 0)), str(a.get("accepted", 0)),
                      f"{a['rate']:.3f}")
    console.print(t)
    if manifest.get("calibration"):
        c = Table(title=suite.calibration_title, title_justify="left")
        keys = list(manifest["calibration"][0])
        for k in keys:
            c.add_column(k, justify="right")
        for r in manifest["calibration"]:
            c.add_row(*[f"{r[k]:.3f}" if isinstance(r[k], float) else str(r[k]) for k in keys])
        console.print(c)
