"""Benchmarks as datasets, in the shape RL and evaluation users know (reasoning-gym,
Hugging Face ``datasets``): entries with ``question``, ``answer`` and ``metadata``, and a
reward function backed by the checker."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..api import arguments as arg
from ..api.types import DatasetEntry


class SuiteDataset(Sequence):
    """A suite's design as a lazy sequence of dataset entries: entry ``i`` is sampled,
    certified and rendered when it is first read, from the seed and ``i`` alone.

    The order is a permutation of the design's tasks drawn from the seed (the variants of
    one task stay adjacent, so paired formats stay paired under any prefix); each task is
    the draw :func:`prefcert.bench.generate.build` makes at the same design position, so
    an entry's prompt ``id`` is the one ``prefcert generate`` gives it with the same seed,
    sizes, per-cell count and ``params`` (the suite's design parameters, name -> value or
    its text, as ``prefcert generate --param``: the suite is configured with them and the
    sizes, so open sizes and design variants are reachable). ``cells`` keeps the cells whose factors have the given levels
    (factor -> level or list of levels). Reading entry ``i`` costs one task's sampling and
    certification (cached: the other variants of the task are then free).
    """

    def __init__(self, suite: str, *, seed: int | None = None,
                 sizes: Sequence[int] | None = None, per_cell: int | None = None,
                 encoding: str = "json", cells: Mapping[str, Any] | None = None,
                 params: Mapping[str, Any] | None = None):
        import numpy as np

        from ..formal.errors import InstanceError
        from .design import derive_seed
        from .generate import design_tasks
        from .suites import suite as get_suite
        base = get_suite(suite)
        if per_cell is not None:
            per_cell = arg.integer(per_cell, "per_cell", minimum=1,
                                   maximum=arg.PER_CELL_MAX)
        # the suite as its parameters and sizes make it (open sizes, design variants):
        # the same configuration as prefcert generate --param ... --sizes ...
        self.params = base.chosen_parameters(params)
        self.suite = base.configured(self.params, None if sizes is None else tuple(sizes))
        self.seed = self.suite.seed if seed is None else seed
        self.sizes = tuple(self.suite.sizes if sizes is None else sizes)
        bad = [x for x in self.sizes if x not in self.suite.sizes]
        if bad or not self.sizes:
            raise InstanceError(f"suite {suite} has sizes "
                                f"{', '.join(map(str, self.suite.sizes))}",
                                value=bad[0] if bad else "")
        base.check_encoding(encoding)
        self.per_cell, self.encoding = per_cell, encoding
        tasks = design_tasks(self.suite, sizes=self.sizes, per_cell=per_cell)
        wanted = _cell_filter(self.suite, cells or {}, tasks)
        order = np.random.default_rng(derive_seed(self.seed, "dataset")).permutation(len(tasks))
        self._tasks = tasks
        self._items = [(int(t), j) for t in order for j, v in enumerate(tasks[int(t)][0].variants)
                       if wanted({**tasks[int(t)][0].factors, **v})]
        self._built: dict[int, dict] = {}
        self.tasks_built = 0

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i):                  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        t, j = self._items[i]
        return entry_of(self._task(t), j, self.seed)

    def id_of(self, i: int) -> str:
        """The prompt id of entry ``i``, without building it."""
        t, j = self._items[i]
        return f"{self._tasks[t][2] + j:05d}"

    def cell_of(self, i: int) -> dict:
        """The cell of entry ``i`` (its row's factors and its variant), without building
        it."""
        t, j = self._items[i]
        row = self._tasks[t][0]
        return {**row.factors, **row.variants[j]}

    def _task(self, t: int) -> dict:
        if t not in self._built:
            from .generate import build_task
            row, index, number = self._tasks[t]
            if len(self._built) >= 64:          # bounded: a long run keeps few tasks
                self._built.pop(next(iter(self._built)))
            self._built[t] = build_task(self.suite, row, index, number, seed=self.seed,
                                        encoding=self.encoding, params=self.params)
            self.tasks_built += 1
        return self._built[t]


def _cell_filter(suite, cells: Mapping[str, Any], tasks):
    """A predicate on cells: every factor of ``cells`` has one of the given levels.
    InstanceError for a factor no cell has."""
    from ..formal.errors import InstanceError
    known = {k for row, _, _ in tasks for c in row.cells() for k in c}
    for k in cells:
        if k not in known:
            raise InstanceError(f"suite {suite.name} has no factor {k!r} (factors: "
                                f"{', '.join(sorted(known))})", value=k)
    want = {k: {str(x).lower() for x in (v if isinstance(v, (list, tuple)) else [v])}
            for k, v in cells.items()}
    return lambda cell: all(str(cell.get(k)).lower() in vs for k, vs in want.items())


def entry_of(built: Mapping[str, Any], variant: int, seed: int | None = None) -> DatasetEntry:
    """The dataset entry of one prompt of a built task (``{"prompts", "labels",
    "instances"}``): the prompt record less its text, with the labels it is scored on
    (without the file position, which means nothing here) and the instances they read."""
    from .design import entry_from
    p = built["prompts"][variant]
    return entry_from(p, built["labels"], built["instances"], seed)


def benchmark_entries(folder: str | Path) -> list[DatasetEntry]:
    """The entries of a benchmark made by ``prefcert generate`` (its prompts with their
    labels and instances), in prompt order."""
    return list(BenchmarkEntries(folder))


class BenchmarkEntries(Sequence):
    """The entries of a benchmark folder made by ``prefcert generate`` as a lazy sequence:
    entry ``i`` (:func:`~prefcert.bench.design.entry_from`) is built when it is read, so
    a run of a few prompts copies the labels and instances of those few only.

    ``order="design"`` lays the prompts out as :class:`SuiteDataset` lays out the same
    design (the folder's manifest gives the seed, sizes, per-cell count and parameters):
    a permutation of the design's tasks drawn from the seed, the variants of a task
    adjacent, so any prefix (``--limit``) is spread over the cells and is the prefix a run
    without the folder takes. A folder whose prompts are not that design (an edited one)
    keeps its file order. ``order="file"``: the prompts in file order. ``prompts``: the
    prompt records in the same order (read without building entries)."""

    def __init__(self, folder: str | Path, order: str = "file"):
        from .score import Benchmark
        b = Benchmark.read(folder)
        self._bench = b
        self.prompts: list[dict] = b.prompts
        if order == "design":
            ids = design_order(folder, b.prompts)
            if ids is not None:
                self.prompts = [b.by_id[i] for i in ids]

    def __len__(self) -> int:
        return len(self.prompts)

    def __getitem__(self, i):                  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        from .design import entry_from
        return entry_from(self.prompts[i], self._bench.labels, self._bench.instances)

    def id_of(self, i: int) -> str:
        """The prompt id of entry ``i``, without building it."""
        return str(self.prompts[i]["id"])


def design_order(folder: str | Path, prompts: Sequence[Mapping[str, Any]]
                 ) -> list[str] | None:
    """The ids of ``prompts`` (a benchmark folder's) in the order :class:`SuiteDataset`
    gives the design the folder's manifest names, or None when the manifest is missing or
    the prompts are not exactly that design (every id, with its cell). O(prompts); nothing
    is sampled."""
    from ..formal.errors import InstanceError
    from ..formal.files import read_json_file
    from .design import canonical
    from .suites import SUITES
    p = Path(folder)
    try:
        m = read_json_file((p if p.is_dir() else p.parent) / "manifest.json")
        name, seed, sizes = m["suite"], m["seed"], list(m["sizes"])
    except (InstanceError, KeyError, TypeError):
        return None
    if name not in SUITES:
        return None
    have = {str(x["id"]): canonical(x["cell"]) for x in prompts}
    for per_cell in dict.fromkeys([None, m.get("per_cell")]):
        try:
            ds = SuiteDataset(name, seed=seed, sizes=sizes, per_cell=per_cell,
                              params=m.get("parameters") or None)
        except (InstanceError, TypeError, ValueError):
            continue
        if len(ds) != len(have):
            continue
        ids = [ds.id_of(i) for i in range(len(ds))]
        if all(have.get(i) == canonical(ds.cell_of(k)) for k, i in enumerate(ids)):
            return ids
    return None


def create_dataset(suite: str, size: int | None = None, seed: int | None = None, *,
                   sizes: Sequence[int] | None = None,
                   per_cell: int | None = None,
                   params: Mapping[str, Any] | None = None) -> list[DatasetEntry]:
    """Generate a benchmark suite in memory as a list of dataset entries.

    Parameters
    ----------
    suite : str
        A registered suite, e.g. ``"indeterminacy-preference"`` or
        ``"indeterminacy-algorithmic"`` (``prefcert suites`` lists them).
    size : int, optional
        Number of entries: the first ``size`` entries of the design in a task order drawn
        from ``seed`` (spread over the cells; the variants of a task adjacent). Only
        the tasks of those entries are sampled and certified. Default: the whole design.
    seed : int, optional
        Suite seed (default: the suite's); entry ``i`` depends on the seed and ``i`` only
        (not on ``size``).
    sizes : sequence of int, optional
        The instance sizes (levels of the suite's ``size`` factor): a subset of the
        suite's, or, for a suite with open sizes, any sizes within its documented limits
        (``indeterminacy-algorithmic`` n = 8 … 60, ``indeterminacy-preference`` 10 … 300,
        ``voting-manipulation`` m = 3 … 7; docs/suites.md), as ``prefcert generate
        --sizes``. Default: the (configured) suite's sizes.
    per_cell : int, optional
        Instances per cell of the design the entries are drawn from (default: the
        suite's).
    params : mapping, optional
        The suite's design parameters, name -> value (or its text, as ``prefcert generate
        --param NAME=VALUE`` takes it), e.g. ``{"tools": "code"}``,
        ``{"design": "mitigation"}``, ``{"tau": "random", "n": 7}``; unnamed parameters
        keep their defaults. The suite is configured with them and ``sizes``
        (:meth:`~prefcert.bench.design.Suite.configured`), so the entries' ids, prompts
        and gold answers are those ``prefcert generate`` writes with the same seed,
        sizes, per-cell count and parameters. ``prefcert suites`` lists each suite's
        parameters with their defaults.

    Returns
    -------
    list of DatasetEntry
        Entries (dicts) ``{"question": prompt text, "answer": gold answer text, "metadata": {...}}``;
        ``metadata`` holds the prompt record (``id``, ``cell``, ``answer_shape``, …), its
        certified ``labels`` (each with its ``certificate``) and its ``instances``.

    Raises
    ------
    InstanceError
        An unknown suite, a size outside the suite's limits, an unknown parameter or a
        parameter value outside its limits (one line naming it).

    Examples
    --------
    >>> ds = create_dataset("indeterminacy-algorithmic", size=4, seed=1, sizes=[10])
    >>> len(ds), sorted(ds[0])
    (4, ['answer', 'metadata', 'question'])
    >>> all(lab["checked"] for e in ds for lab in e["metadata"]["labels"])
    True
    >>> score_answer(ds[0]["answer"], ds[0])
    1.0
    >>> vm = create_dataset("voting-manipulation", size=4, sizes=[3], per_cell=1,
    ...                     params={"n": 7})
    >>> vm[0]["metadata"]["cell"]["n"]
    7

    Notes
    -----
    Cost: the sampling and certification of the tasks behind the ``size`` entries (one
    task per prompt variant group; :class:`SuiteDataset` reads them lazily); every label
    is verified by the checker before it is returned.

    References
    ----------
    Khanna & Wang, "Preference reasoning under indeterminacy in large language models",
    2026 (the two shipped designs); the other suites' papers: docs/suites.md.
    """
    arg.text(suite, "suite")
    if size is not None:
        arg.integer(size, "size", minimum=0)
    if seed is not None:
        arg.integer(seed, "seed")
    if sizes is not None:
        arg.sequence(sizes, "sizes", "instance sizes")
        for x in sizes if isinstance(sizes, Sequence) else ():   # (an iterator: read once)
            arg.integer(x, "sizes")
    if per_cell is not None:
        arg.integer(per_cell, "per_cell", minimum=1, maximum=arg.PER_CELL_MAX)
    if params is not None:
        arg.mapping(params, "params", "name -> value")
    ds = SuiteDataset(suite, seed=seed, sizes=None if sizes is None else list(sizes),
                      per_cell=per_cell, params=params)
    n = len(ds) if size is None else min(size, len(ds))
    return [ds[i] for i in range(n)]


def score_answer(answer: str | None, entry: DatasetEntry | Mapping[str, Any], *,
                 parse: str = "lenient") -> float:
    """The reward of an answer to a dataset entry: 1.0 when the suite's scorer (backed by
    the certified labels and the checker's definitions) says correct, else 0.0.

    Parameters
    ----------
    answer : str or None
        The model's text (an ``<answer>…</answer>`` block, a code fence or a bare answer);
        None is a timeout.
    entry : dict
        An entry of :func:`create_dataset`, or a row of a ``prefcert generate --format
        parquet`` table loaded with ``datasets`` or pyarrow.
    parse : {"lenient", "strict"}, default "lenient"
        How the answer is read, as ``prefcert score --parse``: ``lenient`` applies the
        reading policy of :mod:`prefcert.bench.answers` (answer tags, final lines,
        abstentions in words); ``strict`` only the papers' literal protocol.

    Returns
    -------
    float
        1.0 or 0.0; never raises on a malformed answer (it scores 0.0).

    Raises
    ------
    InstanceError
        For an entry that one answer cannot complete: a prompt of several turns (the
        two-turn completion suite's interactive route;
        :func:`prefcert.bench.score.single_answer`), which ``prefcert refine`` and the
        Inspect task run.

    Examples
    --------
    >>> ds = create_dataset("indeterminacy-algorithmic", size=2, seed=1, sizes=[10])
    >>> score_answer(ds[1]["answer"], ds[1]), score_answer("no idea", ds[1])
    (1.0, 0.0)

    Notes
    -----
    The same verdict as ``prefcert score`` on the same prompt; cost of one scoring.
    """
    from .design import Entry
    from .score import score_prompt, single_answer
    arg.text(answer, "answer", optional=True)
    how = arg.choice(parse, "parse", ("lenient", "strict"))
    meta = record_of(arg.mapping(entry, "entry", "(an entry of create_dataset)"))
    single_answer(meta)
    e = Entry(meta["labels"], meta["instances"], parse=how)
    return 1.0 if score_prompt(meta, answer, e)["verdict"] == "correct" else 0.0


def record_of(entry: Mapping[str, Any]) -> dict:
    """The scorer's prompt record (with ``labels`` and ``instances``) of a dataset entry
    (``{"question", "answer", "metadata"}``) or of a row of the Parquet prompts table as
    ``datasets`` or pyarrow load it (its JSON text columns decoded, the nulls that Arrow
    structs add for keys a row does not have dropped)."""
    from .generate import decode_row
    if "metadata" in entry:
        return dict(entry["metadata"])
    row = decode_row(dict(entry))
    if "labels" not in row or "instances" not in row:
        from ..formal.errors import InstanceError
        raise InstanceError("the row has no labels or instances (a prompts table from "
                            "prefcert generate --format parquet has both)")
    return row


def reward(prompts: Sequence[Any] | None, completions: Sequence[Any], **columns: Any
           ) -> list[float]:
    """Rewards for an RL trainer: one float per completion, from :func:`score_answer`
    (TRL's and ``verifiers``' reward-function shape).

    Parameters
    ----------
    prompts : sequence or None
        The prompts (not read: the dataset columns say which prompt was answered).
    completions : sequence of str or of message lists
        One completion per prompt: a text, or a conversation (a list of ``{"role",
        "content"}`` messages; the last one is the answer).
    **columns
        The dataset's columns, one value per completion, as the trainer passes them
        (other keyword arguments, such as a trainer's state, are not read):
        ``metadata`` (entries of :func:`create_dataset`), or the columns of the Parquet
        prompts table (``labels``, ``instances``, ``task``, ``cell`` …).

    Returns
    -------
    list of float
        1.0 for a correct completion, else 0.0.

    Raises
    ------
    InstanceError
        Columns that hold no prompt record (neither ``metadata`` nor ``labels`` and
        ``instances``), a column without one value per completion, or a prompt of
        several turns (:func:`score_answer`).

    Examples
    --------
    >>> ds = create_dataset("indeterminacy-algorithmic", size=2, seed=1, sizes=[10])
    >>> reward(None, [ds[0]["answer"], "no idea"], metadata=[e["metadata"] for e in ds])
    [1.0, 0.0]

    Notes
    -----
    One scoring per completion (the same verdict as ``prefcert score``).
    """
    completions = list(arg.sequence(completions, "completions", "completions"))
    if "metadata" in columns:
        columns = {"metadata": columns["metadata"]}
    else:                    # the row columns; a trainer's other arguments (its state …) left
        columns = {k: v for k, v in columns.items()
                   if isinstance(v, Sequence) and not isinstance(v, (str, bytes))}
    columns = {k: arg.parallel(v, k, len(completions), "values") for k, v in columns.items()}
    out = []
    for i, c in enumerate(completions):
        if isinstance(c, (list, tuple)):
            c = c[-1]["content"] if c else None
        row = {"metadata": columns["metadata"][i]} if "metadata" in columns else \
            {k: v[i] for k, v in columns.items()}
        out.append(score_answer(None if c is None else str(c), row))
    return out
