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
- ``profiles.jsonl`` (only when a suite renders shared spans, e.g. the preference suite's
  ``--param profiles=shared``): each distinct shared text (a whole profile) once,
  ``{"sha256", "text"}``; a prompt record holding a reference has the text cut out of its
  ``prompt`` and ``profile_ref = {"sha256", "offset"}`` instead (:func:`resolve_profiles`
  puts it back; :func:`read_prompts` does so for every reader);
- ``manifest.json``: suite, seed, sizes, per-cell count, prefcert version, the composition
  per cell with its total, the rejection-sampling acceptance rates and label counts, the
  readings and the template set chosen, and the instances drawn more than once.
"""
from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..formal.errors import InstanceError
from .design import Context, Suite, Task, canonical

ENGINES = ("oracle",)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _sample_one(args):
    name, seed, row, i, readings, *params = args
    from .suites import suite as get_suite
    stats: dict = {}
    task = get_suite(name).sample(row, i, Context(seed, row, i, stats, readings=readings,
                                                  params=params[0] if params else None))
    return task, stats


def _sample_batch(items: list) -> list:
    return [_sample_one(w) for w in items]


def sample_tasks(suite: Suite, *, seed: int, sizes: Sequence[Any], per_cell: int | None,
                 stats: dict, jobs: int = 1, readings: dict | None = None,
                 params: dict | None = None) -> list[tuple[Any, int, Task]]:
    """Every (row, index, task) of the design, in design order. With ``jobs`` > 1 the
    draws run in that many processes; each (row, index) has its own seed, so the tasks and
    the merged counters are the same. ``readings``: the suite's readings (defaults
    filled); ``params``: its parameters (defaults filled; ``suite`` configured with
    them)."""
    readings = suite.chosen_readings(readings)
    params = suite.chosen_parameters(params)
    work = []
    for row in suite.rows(tuple(sizes)):
        k = per_cell if per_cell is not None else (row.per_cell or suite.per_cell)
        work += [(suite.name, seed, row, i, readings, params) for i in range(k)]
    # tasks sharing a draw (suite.shared_draw) are sampled together, in one process: the
    # draw is made once and its tasks hold the one object (one process or several)
    key = suite.shared_draw or (lambda row, i: (id(row), i))
    batches: dict[Any, list[int]] = {}
    for k, w in enumerate(work):
        batches.setdefault(key(w[2], w[3]), []).append(k)
    if jobs > 1 and len(work) > 1:
        import multiprocessing as mp
        from ..pipeline.parallel import quiet_pool
        if suite.preload is not None:       # once here, not once per worker
            suite.preload()
        # never more processes than batches (a pool of --jobs 256 for 10 draws forked 256)
        with quiet_pool(mp.get_context("fork"), min(jobs, len(batches)), _quiet_worker,
                        ()) as pool:
            parts = pool.map(_sample_batch, [[work[k] for k in b] for b in batches.values()],
                             chunksize=1)
    else:
        parts = [_sample_batch([work[k] for k in b]) for b in batches.values()]
    results: list = [None] * len(work)
    for b, part in zip(batches.values(), parts):
        for k, r in zip(b, part):
            results[k] = r
    out = []
    for (_, _, row, i, _, _), (task, st) in zip(work, results):
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
    pending = certify_stream(tasks, engines=engines, progress=progress, jobs=jobs)
    pending.drain()
    return pending.instances, pending.labels, pending.ids


class Pending:
    """The labels of a suite's instances as they come in (:func:`certify_stream`): the
    instances in file order (``instances``, known at once), and ``labels`` (in file
    order), ``ids`` ((instance id, canonical question) -> label id) and ``by_id`` (label
    id -> label), filled one instance at a time. ``label_id(key)`` and ``label(id)`` wait
    for the instance that holds it, so a prompt can be written as soon as its labels are
    in while the workers certify the rest; ``drain()`` waits for every one."""

    def __init__(self, instances: list[dict], work: list, qs: dict, results: Iterator):
        self.instances = instances
        self.labels: list[dict] = []
        self.ids: dict[tuple[str, str], str] = {}
        self.by_id: dict[str, dict] = {}
        self._results = results
        self._next = zip(work, results)
        self._qs = qs

    def _pull(self) -> bool:
        """Take the next instance's labels; False when none is left. O(its labels)."""
        got = next(self._next, None)
        if got is None:
            return False
        (iid, _, _, _), labs = got
        for k, key in zip(range(len(labs)), self._qs[iid]):
            self.ids[(iid, key)] = f"{iid}#{k}"
        self.labels += labs
        for lab in labs:
            self.by_id[lab["label_id"]] = lab
        return True

    def label_id(self, key: tuple[str, str]) -> str:
        while key not in self.ids:
            if not self._pull():
                raise KeyError(key)
        return self.ids[key]

    def label(self, label_id: str) -> dict:
        while label_id not in self.by_id:
            if not self._pull():
                raise KeyError(label_id)
        return self.by_id[label_id]

    def drain(self) -> None:
        while self._pull():
            pass

    def close(self) -> None:
        """Stop the labelling (its processes end) when the reader stops early."""
        close = getattr(self._results, "close", None)
        if close is not None:
            close()


def certify_stream(tasks: list, *, engines: Sequence[str] = ENGINES, progress: bool = False,
                   jobs: int = 1) -> Pending:
    """:func:`certify` as labels come in: the :class:`Pending` labels of the tasks'
    instances, in file order. With ``jobs`` > 1 the instances are labelled in that many
    processes in the background while the caller reads the labels (the same labels, in
    the same order); with one job each is labelled when it is first read. Raises as
    :func:`certify` (a label that cannot be certified: when it is read, or at
    ``drain()``)."""
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
    work = [(iid, line, insts[iid], list(qs[iid].values()))
            for line, iid in enumerate(order, 1) if qs[iid]]
    return Pending([insts[i] for i in order], work, qs,
                   _label_stream(work, engines, progress, jobs))


def _label_instance(item: tuple, engines) -> list[dict]:
    """Parse one instance, plan its questions and label them (label ids ``<id>#<k>``).
    The parsed model and its caches live while this instance is labelled only: memory
    is one instance's, not the suite's (the preference suite's closures at n = 300 are
    about 2 MB an instance)."""
    from ..formal.instances import from_object
    from ..pipeline.jobs import plan
    iid, line, data, questions = item
    inst = from_object(data, "instances.jsonl", line, iid)
    return [_label_one((f"{iid}#{k}", job), engines)
            for k, job in enumerate(plan([inst], questions))]


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


def _label_idx(i: int) -> list[dict]:
    item, engines = _ITEMS[i]
    return _label_instance(item, engines)


def _quiet_worker() -> None:
    """Workers leave Ctrl-C to the parent (no traceback per worker)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _label_all(items: list, engines, progress: bool, jobs: int) -> list[list[dict]]:
    """The labels of each work item (an instance and its questions), in order; with
    ``jobs`` > 1 the instances are parsed and labelled in that many processes."""
    return list(_label_stream(items, engines, progress, jobs))


def _label_stream(items: list, engines, progress: bool, jobs: int) -> Iterator[list[dict]]:
    """:func:`_label_all` one work item at a time, in order: with ``jobs`` > 1 the
    processes label ahead of the reader (results are kept until read); the pool ends
    when the last is read or the reader stops."""
    if jobs > 1 and len(items) > 1:
        import multiprocessing as mp
        from ..pipeline.parallel import quiet_pool
        global _ITEMS
        jobs = min(jobs, len(items))        # never more processes than instances
        _ITEMS = [(it, tuple(engines)) for it in items]
        try:
            with quiet_pool(mp.get_context("fork"), jobs, _quiet_worker, ()) as pool:
                # runs of consecutive instances (those of one draw are written near each
                # other and share a worker's caches), at least 8 runs per worker
                run = max(4, min(120, len(items) // (8 * jobs)))
                yield from pool.imap(_label_idx, range(len(items)), chunksize=run)
        finally:
            _ITEMS = []
        return
    from rich.progress import Progress
    bar = Progress(transient=True, disable=not progress)
    with bar:
        t = bar.add_task("certifying", total=sum(len(it[3]) for it in items))
        for item in items:
            labs = _label_instance(item, engines)
            bar.advance(t, len(labs))
            yield labs


#: the cyclic collector's generation-2 threshold while a suite is built (CPython's is 10):
#: a build keeps every task, label and cache it makes (no garbage cycles to speak of), and
#: each full collection walks all of them again — about a twelfth of the CPU of the
#: actionable suite's run in the default setting (issue 24). Generations 0 and 1 keep
#: their thresholds; forked workers inherit the setting.
FULL_COLLECTION_THRESHOLD = 1000


@contextmanager
def rare_full_collections() -> Iterator[None]:
    """Within this block the collector's generation-2 threshold is
    :data:`FULL_COLLECTION_THRESHOLD` (full collections about a hundred times rarer;
    reference counting still frees everything at once); the thresholds are restored on
    leaving. The output does not depend on it."""
    import gc
    was = gc.get_threshold()
    gc.set_threshold(was[0], was[1], max(was[2], FULL_COLLECTION_THRESHOLD))
    try:
        yield
    finally:
        gc.set_threshold(*was)


def build(suite: Suite, *, seed: int | None = None, sizes: Sequence[Any] | None = None,
          per_cell: int | None = None, progress: bool = False, jobs: int = 1,
          encoding: str = "json", readings: dict | None = None,
          templates: str | None = None, params: dict | None = None,
          prompt_sink: Callable[[dict], None] | None = None,
          share: Callable[[str], str] | None = None) -> dict:
    """Sample and certify ``suite`` in memory: ``{"instances", "labels", "prompts",
    "manifest"}`` (see :func:`generate` for the parameters). ``prompt_sink``: called with
    each prompt record as it is rendered, in file order; the prompts are then not kept
    (``"prompts"`` is None) and the manifest is the same. ``share``: see
    :func:`iter_prompts` (default: every record self-contained). Full collections of the
    cyclic collector are rare meanwhile (:func:`rare_full_collections`)."""
    with rare_full_collections():
        return _build(suite, seed=seed, sizes=sizes, per_cell=per_cell, progress=progress,
                      jobs=jobs, encoding=encoding, readings=readings, templates=templates,
                      params=params, prompt_sink=prompt_sink, share=share)


def _build(suite: Suite, *, seed: int | None, sizes: Sequence[Any] | None,
           per_cell: int | None, progress: bool, jobs: int, encoding: str,
           readings: dict | None, templates: str | None, params: dict | None,
           prompt_sink: Callable[[dict], None] | None,
           share: Callable[[str], str] | None) -> dict:
    readings = suite.chosen_readings(readings)
    chosen = suite.chosen_parameters(params)
    suite = suite.configured(chosen, sizes)
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
                         jobs=jobs, readings=readings, params=chosen)
    t1 = time.perf_counter()
    pending = certify_stream(tasks, engines=suite.engines or ENGINES, progress=progress,
                             jobs=jobs)
    if prompt_sink is None:
        pending.drain()
    t2 = time.perf_counter()
    repeats, duplicates = _duplicates(suite, tasks)
    # a prompt is rendered once its labels are in: while the workers certify the rest
    records = iter_prompts(suite, tasks, pending.labels, pending.ids, seed=seed, stats=stats,
                           encoding=encoding, readings=readings, templates=tpl,
                           repeats=repeats, params=chosen, share=share, pending=pending)
    composition: Counter = Counter()
    prompts: list[dict] | None = None
    try:
        if prompt_sink is None:
            prompts = list(records)
            composition.update(canonical(p["cell"]) for p in prompts)
        else:
            for p in records:
                composition[canonical(p["cell"])] += 1
                prompt_sink(p)
            pending.drain()
            t2 = time.perf_counter()
    finally:
        pending.close()
    instances, labels = pending.instances, pending.labels
    total = sum(composition.values())
    from .. import __version__
    verdicts = Counter(f"{_qname(lab['question'])}:{lab['verdict']}" for lab in labels)
    manifest = {
        "suite": suite.name, "description": suite.description, "prefcert": __version__,
        "seed": seed, "sizes": list(sizes), "encoding": encoding, "readings": readings,
        "per_cell": per_cell if per_cell is not None else suite.per_cell,
        "prompts_file": "prompts.jsonl",
        "total": total, "instances": len(instances), "labels": len(labels),
        "labels_checked": sum(lab["checked"] is True for lab in labels),
        "label_verdicts": dict(sorted(verdicts.items())),
        "composition": [{"cell": json.loads(k), "prompts": v} for k, v in composition.items()],
        "acceptance": [{"tag": json.loads(k), **dict(sorted(c.items())),
                        "rate": round(c["accepted"] / c["draws"], 6) if c.get("draws") else None}
                       for k, c in sorted(stats.items())],
    }
    if any(v != suite.parameters[k].default for k, v in chosen.items()):
        manifest["parameters"] = chosen          # (absent from a default run: same bytes)
    if tpl is not None:
        manifest["templates"] = dict(tpl.origin)
    if suite.duplicate_key is not None:
        manifest["duplicates"] = duplicates
    if suite.calibration is not None:
        manifest["calibration"] = suite.calibration(stats)
    files = dict(suite.files(chosen)) if suite.files is not None else {}
    if files:
        manifest["files"] = sorted(files)
    seconds = {"sample": t1 - t0, "certify": t2 - t1, "total": time.perf_counter() - t0}
    return {"instances": instances, "labels": labels, "prompts": prompts,
            "manifest": manifest, "seconds": seconds, "files": files}


def iter_prompts(suite: Suite, tasks: Sequence[tuple[Any, int, Task]], labels: Sequence[dict],
                 ids: dict, *, seed: int, stats: dict, encoding: str = "json",
                 readings: dict | None = None, templates: Any = None,
                 repeats: dict | None = None,
                 first_ids: Sequence[int] | None = None,
                 params: dict | None = None,
                 share: Callable[[str], str] | None = None,
                 pending: Pending | None = None) -> Iterator[dict]:
    """The prompt records of ``tasks`` (every variant of each), one at a time, numbered
    from 1 in order, or from ``first_ids[k]`` for the k-th task (its design position, see
    :func:`design_tasks`). ``readings``: the suite's readings (defaults filled);
    ``templates``: its resolved template set; ``repeats``: id(task) -> the fields of a
    repeated election (``cluster``, ``duplicate_of``). A caller that writes each as it
    comes holds one task's prompts, not the suite's (the preference suite's prompts are
    about 0.3 GB of text). ``share``: called with the shared span of a prompt that has
    one (:attr:`~prefcert.bench.design.RenderedPrompt.shared`), returning its key; the
    record then holds the reference instead of the span (:func:`share_span`); without it
    every record holds its whole text. ``pending``: the labels as they come in
    (:func:`certify_stream`; ``labels`` and ``ids`` are then read through it): each
    task waits for its own labels only. O(prompts) time."""
    repeats = repeats or {}
    if pending is not None:
        label_id, label = pending.label_id, pending.label
    else:
        by_id = {lab["label_id"]: lab for lab in labels}
        label_id, label = ids.__getitem__, by_id.__getitem__
    count = 0
    for k, (row, index, task) in enumerate(tasks):
        gold_ids = [label_id((iid, canonical(q))) for iid, q in task.questions]
        labs = [label(i) for i in gold_ids]
        number = count + 1 if first_ids is None else first_ids[k]
        for j, variant in enumerate(row.variants):
            cell = {**row.factors, **variant}
            r = suite.render(task, variant, Context(seed, row, index, stats, variant, encoding,
                                                    readings, templates, params))
            count += 1
            rec = {
                "id": f"{number + j:05d}", "suite": suite.name,
                "instance_id": task.instances[0]["id"] if task.instances else None,
                "instance_ids": [i["id"] for i in task.instances],
                "question": task.payload.get("question"),
                "format": variant.get("format", canonical(dict(variant))),
                "cell": cell, "prompt": r.text, "answer_shape": r.answer_shape,
                "gold_label_ids": gold_ids,
                "answer": suite.gold(task, variant, labs, r), "task": task.payload,
                **repeats.get(id(task), {}), **r.extra}
            if r.shared is not None:
                if share is not None:
                    share_span(rec, r.shared, share)
                else:                 # the writer may splice the span's cached encoding
                    rec = _Spanned(rec)
                    rec.span = r.shared
            yield rec


class _Spanned(dict):
    """A prompt record (a plain dict to every reader) that remembers the span of its
    ``prompt`` repeated by other prompts, for :class:`_LineWriter`."""

    span: tuple[int, int]


class _LineWriter:
    """:func:`_dumps` of prompt records, the same text, with the JSON encoding of a
    repeated span (a whole profile, 0.1 MB at n = 200) computed once: a JSON string's
    encoding is the concatenation of its pieces' encodings (escapes are per character),
    so a record's line is its encoding with the prompt left out, the prompt spliced in
    from the encoded text before, the span's cached encoding and the text after.
    O(len(line)) a record, the span's encoding only on a miss (kept for the last few
    distinct spans)."""

    MARK = '"prompt":"\\u0000"'

    def __init__(self, keep: int = 8):
        self.keep = keep
        self.cache: list[tuple[str, str]] = []

    def _encoded(self, text: str) -> str:
        for k, (t, enc) in enumerate(self.cache):
            if t == text:
                if k:
                    self.cache.insert(0, self.cache.pop(k))
                return enc
        enc = _dumps(text)[1:-1]
        self.cache.insert(0, (text, enc))
        del self.cache[self.keep:]
        return enc

    def __call__(self, rec: dict) -> str:
        span = getattr(rec, "span", None)
        if span is None:
            return _dumps(rec)
        head = _dumps({**rec, "prompt": "\x00"})
        if head.count(self.MARK) != 1:
            return _dumps(rec)
        text = rec["prompt"]
        start, end = span
        prompt = "".join(('"prompt":"', _dumps(text[:start])[1:-1],
                          self._encoded(text[start:end]), _dumps(text[end:])[1:-1], '"'))
        return head.replace(self.MARK, prompt, 1)


PROFILES_FILE = "profiles.jsonl"


def _shares(suite: Suite, params: dict | None) -> bool:
    """Whether ``suite`` run with ``params`` stores shared spans once (its ``profiles``
    parameter is ``shared``)."""
    return suite.chosen_parameters(params).get("profiles") == "shared"


def text_key(text: str) -> str:
    """The key of a shared text: the SHA-256 (hex) of its UTF-8 bytes. O(len(text))."""
    import hashlib
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def share_span(record: dict, span: tuple[int, int], share: Callable[[str], str]) -> None:
    """Cut the span ``(start, end)`` out of ``record["prompt"]`` and append a reference to
    it, ``profile_ref = {"sha256": share(span text), "offset": start}``, as the record's
    last field, so :func:`resolve_profiles` restores the record exactly (same fields in
    the same order, same text). O(len(prompt))."""
    start, end = span
    text = record["prompt"]
    record["prompt"] = text[:start] + text[end:]
    record["profile_ref"] = {"sha256": share(text[start:end]), "offset": start}


class SharedTexts:
    """The ``share`` callback of :func:`iter_prompts` for a generated folder: each distinct
    text written once, as ``{"sha256", "text"}`` lines, through ``open_file()`` (called at
    the first text, so a run without shared spans writes no file). O(len(text)) a call."""

    def __init__(self, open_file: Callable[[], Any]):
        self.open_file = open_file
        self.file: Any = None
        self.seen: set[str] = set()

    def __call__(self, text: str) -> str:
        key = text_key(text)
        if key not in self.seen:
            if self.file is None:
                self.file = self.open_file()
            self.seen.add(key)
            self.file.write(_dumps({"sha256": key, "text": text}) + "\n")
        return key


def read_profiles(path: str | Path) -> dict[str, str]:
    """The shared texts of a ``profiles.jsonl``: key -> text. InstanceError (one line) for
    a missing file, a line that is not a ``{"sha256", "text"}`` record or a key that is
    not its text's SHA-256."""
    path = Path(path)
    if not path.is_file():
        raise InstanceError(f"{PROFILES_FILE} is missing beside the prompts (they refer to "
                            "shared profiles)", file=str(path))
    out: dict[str, str] = {}
    for i, rec in numbered_jsonl(path):
        key, text = rec.get("sha256"), rec.get("text")
        if not isinstance(key, str) or not isinstance(text, str):
            raise InstanceError("not a shared-profile record (sha256, text)", file=str(path),
                                line=i)
        if text_key(text) != key:
            raise InstanceError("the text's SHA-256 is not its key", file=str(path), line=i,
                                value=key)
        out[key] = text
    return out


def resolve_profiles(records: Sequence[dict], profiles: Mapping[str, str],
                     where: str = PROFILES_FILE) -> None:
    """Put every referenced profile back into its prompt record, in place: the record
    becomes the self-contained one (its ``profile_ref`` removed, the text inserted at the
    offset), byte for byte. InstanceError for a reference that is malformed, out of range
    or to a profile ``profiles`` does not hold. O(total prompt length)."""
    for r in records:
        ref = r.pop("profile_ref", None)
        if ref is None:
            continue
        key = ref.get("sha256") if isinstance(ref, dict) else None
        off = ref.get("offset") if isinstance(ref, dict) else None
        prompt = r.get("prompt")
        if not isinstance(key, str) or not isinstance(off, int) or isinstance(off, bool) \
                or not isinstance(prompt, str) or not 0 <= off <= len(prompt):
            raise InstanceError("a malformed profile_ref", file=where, value=r.get("id", ""))
        if key not in profiles:
            raise InstanceError(f"prompt {r.get('id')} refers to a profile {PROFILES_FILE} "
                                "does not hold", file=where, value=key)
        r["prompt"] = prompt[:off] + profiles[key] + prompt[off:]


def design_tasks(suite: Suite, *, sizes: Sequence[Any], per_cell: int | None
                 ) -> list[tuple[Any, int, int]]:
    """Every (row, index, first prompt number) of the design, in design order, without
    sampling anything: the prompt numbers are those :func:`build` gives the task's
    variants. O(prompts)."""
    out = []
    number = 1
    for row in suite.rows(tuple(sizes)):
        k = per_cell if per_cell is not None else (row.per_cell or suite.per_cell)
        for i in range(k):
            out.append((row, i, number))
            number += len(row.variants)
    return out


def build_task(suite: Suite, row: Any, index: int, number: int, *, seed: int,
               encoding: str = "json", params: dict | None = None) -> dict:
    """One task of the design, sampled and certified on its own: ``{"prompts",
    "labels", "instances"}`` for the task ``index`` of ``row`` (the same draw as in
    :func:`build`; prompt ids from ``number``; label ids ``<instance id>#<number>.<k>``,
    unique across the design). ``params``: the suite's parameters (``suite`` configured
    with them, as in :func:`build`). Cost: one task's sampling and certification."""
    stats: dict = {}
    readings = suite.chosen_readings(None)
    chosen = suite.chosen_parameters(params)
    task, _ = _sample_one((suite.name, seed, row, index, readings, chosen))
    instances, labels, ids = certify([(row, index, task)], engines=suite.engines or ENGINES)
    # label ids unique across the design: an instance shared by several tasks (a pooled
    # profile) has other questions in each
    rename = {lab["label_id"]: f"{lab['label_id'].rsplit('#', 1)[0]}#{number:05d}."
                               f"{lab['label_id'].rsplit('#', 1)[1]}" for lab in labels}
    labels = [{**lab, "label_id": rename[lab["label_id"]]} for lab in labels]
    ids = {k: rename[v] for k, v in ids.items()}
    prompts = list(iter_prompts(suite, [(row, index, task)], labels, ids, seed=seed,
                                stats=stats, encoding=encoding, readings=readings,
                                templates=_templates(suite, None), first_ids=[number],
                                params=chosen))
    return {"prompts": prompts, "labels": labels, "instances": instances}




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
             readings: dict | None = None, templates: str | None = None,
             params: dict | None = None) -> dict:
    """Generate ``suite`` into the folder ``out``; returns the manifest (also written) with
    the wall-clock ``_seconds`` of each phase (not written: it is not reproducible).

    ``sizes`` keeps a subset of the suite's sizes; ``per_cell`` overrides the instances per
    cell; ``fmt``: ``jsonl`` or ``parquet`` (the prompts table; needs pyarrow); ``jobs``:
    processes for the draws (the output does not depend on it); ``encoding``: how prompts
    show preferences — ``json`` (the instance format, default), ``sentences`` (one sentence
    per agent) or ``narrative`` (a short story), for suites that render profiles;
    ``readings``: name -> choice of the suite's named readings; ``templates``: a shipped
    template set's name or a template file (suites with templates; see
    :mod:`prefcert.bench.templates`); ``params``: name -> value (or its text) of the
    suite's design parameters (:class:`~prefcert.bench.design.Parameter`). Raises
    InstanceError for a size the suite does not have, an unknown format, encoding,
    reading, parameter or template set, a parameter outside its limits, a bad template
    file, an ``out`` that already holds a benchmark (unless ``overwrite``: existing
    output is never replaced silently), or an ``out`` holding other files (a benchmark
    is never mixed into a folder of the user's files). ``overwrite`` replaces the whole earlier
    benchmark: the files its manifest lists that this run does not write again are
    removed (an earlier Parquet run's splits and card, an earlier JSONL run's prompts);
    a folder holding any other file (a user's, or a benchmark without a readable
    manifest) is refused, naming it, and nothing is written or removed.
    """
    if fmt not in ("jsonl", "parquet"):
        raise InstanceError("format must be jsonl or parquet", value=fmt)
    if per_cell is not None:         # the task list is made in proportion to it
        from ..api import arguments as arg
        arg.integer(per_cell, "per_cell", minimum=1, maximum=arg.PER_CELL_MAX)
    suite.check_encoding(encoding)
    suite.configured(params, sizes)      # parameters and sizes refused before any output
    if fmt == "parquet":
        _pyarrow()                           # and a missing pyarrow (it left a data/ folder)
    from ..output import TEMPORARY, OutputFolder, other_file
    with OutputFolder(out, "'prefcert generate'") as folder:   # locked from here to the end
        extra = tuple(suite.files(suite.chosen_parameters(params))) \
            if suite.files is not None else ()
        held = [f for f in OUTPUT_FILES + extra + (("README.md",) if fmt == "parquet" else ())
                if (folder.path / f).exists()]
        if held and not overwrite:
            raise InstanceError("the folder already holds a benchmark (pass --overwrite to "
                                "replace it)", file=str(folder.path / held[0]))
        if not held:                  # a folder of other files: never mixed with them
            other = other_file(folder.path)
            if other is not None:
                raise InstanceError(
                    "the output folder holds files that are not a benchmark's (a "
                    "benchmark is written into a new or empty folder: move them away, or "
                    "generate elsewhere)", file=str(other))
        earlier = _earlier_files(folder.path) if held else set()
        if held:                      # --overwrite: the whole earlier benchmark, and only it
            # (and the temporary files of a killed earlier run, removed with it)
            earlier |= {f for f in _folder_files(folder.path) if TEMPORARY.match(f)}
            foreign = next((f for f in _folder_files(folder.path) if f not in earlier), None)
            if foreign is not None:
                raise InstanceError(
                    "--overwrite replaces a whole benchmark folder, and this one holds a "
                    "file the earlier run's manifest does not list (move it away, or "
                    "generate elsewhere)", file=str(folder.path / foreign))
        if fmt == "jsonl":           # prompts written as rendered: never all in memory
            from contextlib import ExitStack
            with ExitStack() as stack, folder.file("prompts.jsonl") as pf:
                shared = SharedTexts(lambda: stack.enter_context(folder.file(PROFILES_FILE)))
                line = _LineWriter()
                b = build(suite, seed=seed, sizes=sizes, per_cell=per_cell,
                          progress=progress, jobs=jobs, encoding=encoding,
                          readings=readings, templates=templates, params=params,
                          prompt_sink=lambda r: pf.write(line(r) + "\n"),
                          share=shared if _shares(suite, params) else None)
        else:
            b = build(suite, seed=seed, sizes=sizes, per_cell=per_cell, progress=progress,
                      jobs=jobs, encoding=encoding, readings=readings, templates=templates,
                      params=params)
        t0 = time.perf_counter()
        manifest = b["manifest"]
        for name in ("instances", "labels"):
            with folder.file(f"{name}.jsonl") as f:
                _write_rows(f, b[name])
        if fmt != "jsonl":
            from .card import card, split_of
            manifest["prompts_file"] = "data"
            rows = parquet_rows(b["prompts"], b["labels"], b["instances"])
            names = [split_of(suite, r["cell"]) for r in rows]
            (folder.path / "data").mkdir(exist_ok=True)
            staged: dict[str, Path] = {}
            tables, as_json = parquet_splits(rows, names)
            for name, table in sorted(tables.items()):
                with folder.file(f"data/{name}.parquet", binary=True) as f:
                    write_table(f, table)
                staged[name] = folder.staged[-1][0]
            manifest["splits"] = dict(Counter(names))      # (in the rows' order)
            folder.write("README.md", card(suite, manifest, staged, as_json))
        for name, text in b["files"].items():
            folder.write(name, text)
        folder.write("manifest.json", json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
        written = {final.relative_to(folder.path).as_posix() for _, final in folder.staged}
        folder.commit()
        if fmt == "jsonl" and shared.file is None:   # an earlier run's, now unreferenced
            (folder.path / PROFILES_FILE).unlink(missing_ok=True)
        for name in sorted(earlier - written):       # the earlier run's other files
            (folder.path / name).unlink(missing_ok=True)
        if "data" not in {n.split("/")[0] for n in written}:
            try:
                (folder.path / "data").rmdir()       # an earlier Parquet run's, now empty
            except OSError:
                pass
    manifest = dict(manifest)
    manifest["_seconds"] = dict(b["seconds"], write=time.perf_counter() - t0)
    manifest["_seconds"]["total"] += manifest["_seconds"]["write"]
    return manifest


OUTPUT_FILES = ("instances.jsonl", "labels.jsonl", "prompts.jsonl", PROFILES_FILE, "data",
                "manifest.json")


def _earlier_files(folder: Path) -> set[str]:
    """The files (paths relative to ``folder``, ``/``-separated) the benchmark in
    ``folder`` was written as, by its manifest: ``instances.jsonl``, ``labels.jsonl``,
    ``manifest.json``, the prompts (``prompts.jsonl`` with ``profiles.jsonl``, or the
    ``data/<split>.parquet`` of its ``splits`` with the card ``README.md``) and the
    suite's own ``files``. Empty without a readable manifest of ``prefcert generate``
    (then nothing in the folder is known to be prefcert's)."""
    from ..formal.files import read_json_file
    try:
        m = read_json_file(folder / "manifest.json")
        names = {"instances.jsonl", "labels.jsonl", "manifest.json"}
        if m["prompts_file"] == "data":
            names |= {"README.md", *(f"data/{s}.parquet" for s in m["splits"])}
        else:
            names |= {str(m["prompts_file"]), PROFILES_FILE}
        names |= {str(f) for f in m.get("files") or ()}
    except (InstanceError, KeyError, TypeError, AttributeError):
        return set()
    return names


#: a temporary file of :mod:`prefcert.output` (``.<name>.<8 hex digits>.tmp``), at any depth
def _folder_files(folder: Path) -> list[str]:
    """Every file under ``folder`` (hidden ones too; folders are not listed, their files
    are), relative and ``/``-separated, sorted."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if not p.is_dir())


def _write_rows(f, rows: list) -> None:
    for r in rows:
        f.write(_dumps(r) + "\n")


def write_jsonl(path: str | Path, rows) -> None:
    """Replace ``path`` atomically by one compact JSON line per row, as the benchmark's
    files are written (:func:`prefcert.output.write_jsonl`)."""
    from ..output import write_jsonl as write
    write(path, rows, _dumps)


def parquet_rows(prompts: Sequence[dict], labels: Sequence[dict], instances: Sequence[dict]
                 ) -> list[dict]:
    """One self-contained row per prompt: the prompt record with the ``labels`` it is
    scored on and the ``instances`` they read (a list of instance records), so that
    ``prefcert.score_answer(row["answer"], row)`` works on a row alone."""
    from .design import entry_from
    out = []
    for p in prompts:
        meta = entry_from(p, labels, instances)["metadata"]
        out.append({**p, "labels": meta["labels"], "instances": list(meta["instances"].values())})
    return out


def _has_none(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, dict):
        return any(_has_none(x) for x in v.values())
    if isinstance(v, list):
        return any(_has_none(x) for x in v)
    return False


def strip_nulls(v: Any) -> Any:
    """A nested value read from an Arrow struct column without the null fields Arrow adds
    for the keys a row does not have (a typed column never holds a real null)."""
    if isinstance(v, dict):
        return {k: strip_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [strip_nulls(x) for x in v]
    return v


#: fields of a Parquet row always stored as JSON text (``<field>_json``): their shape
#: depends on the draw (instances keyed by their agents' and items' names, certificates
#: whose fields vary), so a typed column would change type from one split or run to the
#: next; a fixed rule keeps one schema for every split and every run of a suite
JSON_FIELDS = ("labels", "instances")
#: the only fields stored as typed structs: records whose keys the suite's design fixes
#: (the cell's factors, the task payload, a shared-profile reference). Any other field
#: holding a mapping (an MCQ's options keyed by agent, a question whose keys vary with its
#: type) or a list of anything but scalars is JSON text, as :data:`JSON_FIELDS` are
TYPED_STRUCTS = ("cell", "task", "profile_ref")


def _text_fields(rows: Sequence[dict]) -> list[str]:
    """The fields of ``rows`` stored as JSON text by the fixed rule (:data:`JSON_FIELDS`,
    :data:`TYPED_STRUCTS`): the same for every split and every run of a suite."""
    out = []
    for k in dict.fromkeys(k for r in rows for k in r):
        vals = [r[k] for r in rows if r.get(k) is not None]
        if k in JSON_FIELDS or (k not in TYPED_STRUCTS and any(
                isinstance(v, dict) or (isinstance(v, list) and any(
                    isinstance(x, (dict, list)) for x in v)) for v in vals)):
            out.append(k)
    return out


def arrow_columns(rows: Sequence[dict], as_text: Sequence[str] = ()
                  ) -> tuple[dict, list[str]]:
    """Arrow arrays for the rows' fields: each field with the nested type Arrow infers
    (structs, lists) when that type holds every value exactly (read back with
    :func:`strip_nulls`); otherwise — a list mixing items and tie groups, a certificate
    whose fields change type, or a field named in ``as_text`` — the field as JSON text
    in a column ``<field>_json``. Returns (column name -> array, the fields stored as
    JSON)."""
    import pyarrow as pa
    keys = list(dict.fromkeys(k for r in rows for k in r))
    cols: dict = {}
    as_json = []
    for k in keys:
        vals = [r.get(k) for r in rows]
        nested = any(isinstance(v, (dict, list)) for v in vals)
        if k in as_text:
            pass
        elif nested and not any(_has_none(v) for v in vals if v is not None):
            try:
                arr = pa.array(vals)
                if not pa.types.is_null(arr.type) and \
                        [strip_nulls(x) for x in arr.to_pylist()] == vals:
                    cols[k] = arr
                    continue
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
                pass
        elif not nested:
            try:
                arr = pa.array(vals)
                if arr.to_pylist() == vals:
                    cols[k] = arr
                    continue
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
                pass
        cols[f"{k}_json"] = pa.array([None if v is None else _dumps(v) for v in vals],
                                     pa.string())
        as_json.append(k)
    return cols, as_json


def _pyarrow() -> tuple[Any, Any]:
    """pyarrow and pyarrow.parquet; InstanceError (one line) when it is not installed."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:                      # pragma: no cover - depends on the install
        raise InstanceError("--format parquet needs pyarrow (pip install "
                            "'prefcert[parquet]')") from None
    return pa, pq


def parquet_splits(rows: Sequence[dict], split: Sequence[str]) -> tuple[dict, list[str]]:
    """The rows as one Arrow table per split (``split[i]``: the split of ``rows[i]``), all
    of one schema: the columns are laid out over every row together
    (:func:`arrow_columns`; which fields are JSON text is a fixed rule, :data:`JSON_FIELDS`
    and :data:`TYPED_STRUCTS`, so runs of other sizes get the same), then cut into
    the splits, so ``datasets.load_dataset`` reads the same columns in every split.
    Returns (split name -> table, the fields stored as JSON, sorted). O(rows)."""
    pa, _ = _pyarrow()
    cols, as_json = arrow_columns(rows, _text_fields(rows))
    table = pa.table(cols)
    where: dict[str, list[int]] = {}
    for i, name in enumerate(split):
        where.setdefault(name, []).append(i)
    return ({name: table.take(pa.array(ix, pa.int64())) for name, ix in where.items()},
            sorted(as_json))


def write_table(sink: Any, table: Any) -> None:
    """One Arrow table written to ``sink`` (a binary file) as Parquet (zstd)."""
    _, pq = _pyarrow()
    pq.write_table(table, sink, compression="zstd")


def write_parquet(sink: Any, rows: list[dict]) -> list[str]:
    """The rows as one Parquet table with nested types (:func:`arrow_columns`) written to
    ``sink`` (a binary file; the caller makes it atomic), read as is by
    ``datasets.load_dataset("parquet", …)``; returns the fields stored as JSON text."""
    pa, pq = _pyarrow()
    cols, as_json = arrow_columns(rows)
    table = pa.table(cols)
    pq.write_table(table, sink, compression="zstd")
    return as_json


def decode_row(row: dict, file: str | None = None, line: int | None = None) -> dict:
    """A Parquet row as a prompt record: ``<field>_json`` columns decoded into
    ``<field>``, the nulls of typed struct columns and absent fields dropped, and the
    ``instances`` list (when there) keyed by instance id. A ``*_json`` column that is not
    JSON is an InstanceError naming the ``file``, the row ``line`` (1-based: a Parquet
    file's line is its row), the column and the text near the fault."""
    from ..formal.files import parse_json
    out: dict = {}
    for k, v in row.items():
        if v is None:
            continue
        if k.endswith("_json") and isinstance(v, str):
            try:
                out[k[:-5]] = parse_json(v, file or "", line, unique_keys=False)
            except InstanceError as e:
                at = f"row {line}, " if line is not None else ""
                raise InstanceError(f"{at}column {k!r}: {e.message}", file=file, line=line,
                                    value=e.value) from None
        else:
            out[k] = strip_nulls(v)
    if isinstance(out.get("instances"), list):
        out["instances"] = {i["id"]: i for i in out["instances"]}
    return out


def prompts_path(path: str | Path) -> Path:
    """The prompts of a benchmark given as its prompts file, its folder or its ``data``
    folder of Parquet splits."""
    path = Path(path)
    if path.is_dir() and (path / "manifest.json").exists():
        from ..formal.files import read_json_file
        manifest = read_json_file(path / "manifest.json")
        name = manifest.get("prompts_file") if isinstance(manifest, dict) else None
        if not isinstance(name, str):
            raise InstanceError("not a manifest of prefcert generate: 'prompts_file' must "
                                "name the prompts", file=str(path / "manifest.json"),
                                value=name)
        return path / name
    return path


def read_prompts(path: str | Path) -> list[dict]:
    """Prompt records from ``prompts.jsonl``, a Parquet file or a folder of Parquet splits
    (rows decoded by :func:`decode_row`, in id order; the labels and instances each row
    carries are left to the benchmark's own files). Prompts that refer to shared profiles
    come back self-contained (:func:`resolve_profiles`, from the ``profiles.jsonl``
    beside them). :func:`numbered_prompts` gives each record's file and line too."""
    return [rec for _, _, rec in numbered_prompts(path)]


def numbered_prompts(path: str | Path) -> list[tuple[str, int, dict]]:
    """(file, line, record) of every prompt record :func:`read_prompts` reads, in its
    order: the line of a JSONL record, the row (1-based) of a Parquet one within its
    split's file. A bad record (a line that is not JSON, a ``*_json`` column that is not)
    is an InstanceError naming the file, that line or row, and the value. O(prompts)."""
    path = prompts_path(path)
    files = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
    if path.is_dir() or path.suffix == ".parquet":
        import pyarrow.parquet as pq

        from ..formal.files import check_input
        out: list[tuple[str, int, dict]] = []
        for f in files:
            check_input(f)                 # a FIFO or a device is refused unread
            try:
                rows = pq.read_table(f).to_pylist()
            except (OSError, ValueError) as e:
                raise InstanceError(f"not a Parquet table ({e.__class__.__name__})",
                                    file=str(f)) from None
            for n, r in enumerate(rows, 1):        # a row is a Parquet file's "line"
                rec = decode_row(r, str(f), n)
                rec.pop("labels", None)
                rec.pop("instances", None)
                out.append((str(f), n, rec))
        # in id order (a row without a string id, refused by the reader, sorts last)
        return sorted(out, key=lambda t: (not isinstance(t[2].get("id"), str),
                                          str(t[2].get("id"))))
    numbered = numbered_jsonl(path)
    records = [r for _, r in numbered]
    if any("profile_ref" in r for r in records):
        where = Path(path).parent / PROFILES_FILE
        resolve_profiles(records, read_profiles(where), str(where))
    return [(str(path), n, r) for n, r in numbered]


def read_jsonl(path: str | Path, unique_keys: bool = False) -> list[dict]:
    """The JSON objects of a JSONL file; InstanceError naming the line of a bad one
    (``unique_keys``: also of an object that repeats a key, which JSON would read as its
    last value — for files people write by hand, such as answers). Read through
    :func:`prefcert.formal.files.read_input` (a FIFO or a device is refused, the size
    limit applies); see :func:`numbered_jsonl` for the records' line numbers."""
    return [obj for _, obj in numbered_jsonl(path, unique_keys)]


def numbered_jsonl(path: str | Path, unique_keys: bool = False) -> list[tuple[int, dict]]:
    """(line, object) for the JSON objects of a JSONL file (blank lines skipped: the
    number is the record's line in the file), as :func:`read_jsonl` reads them."""
    from ..formal.files import read_json_lines
    return read_json_lines(path, unique_keys=unique_keys)


#: Value columns per part of the calibration table (its headers are never cut).
CALIBRATION_COLUMNS = 5


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
        rows = manifest["calibration"]
        keys = list(rows[0])
        lead = next((i for i, k in enumerate(keys) if any(isinstance(r[k], float)
                                                         for r in rows)), len(keys))
        ids, rest = keys[:max(lead, 1)], keys[max(lead, 1):]
        # in parts of a few columns each, the cell's names repeated: every header whole
        parts = [rest[i:i + CALIBRATION_COLUMNS]
                 for i in range(0, len(rest), CALIBRATION_COLUMNS)] or [[]]
        for n, part in enumerate(parts, 1):
            title = suite.calibration_title + (f" ({n}/{len(parts)})" if len(parts) > 1 else "")
            c = Table(title=title, title_justify="left")
            for k in ids:
                c.add_column(k, no_wrap=True)
            for k in part:
                c.add_column(k, justify="right", no_wrap=True, min_width=len(k))
            for r in rows:
                c.add_row(*[f"{r[k]:.3f}" if isinstance(r[k], float) else str(r[k])
                            for k in ids + part])
            console.print(c)
