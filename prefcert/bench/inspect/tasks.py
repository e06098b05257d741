"""One Inspect task per registered suite (:data:`prefcert.bench.suites.SUITES`): adding a
suite there adds its task here, ``prefcert/<suite>``.

Task parameters (``-T name=value``): ``seed``, ``sizes`` (a level or a list of levels of
the suite's ``size`` factor), ``per_cell``, ``encoding`` (``json``, ``sentences``,
``narrative``), ``benchmark`` (a folder made by ``prefcert generate``, read instead of
generating), ``rounds`` (refinement rounds; 1 = a single answer; default the suite's
parameter ``rounds``, else 1), any design parameter the suite declares (``prefcert
suites`` lists them; e.g. ``-T tools=code``, ``-T design=mitigation``, ``-T n=7``: the
suite is configured with them and ``sizes``, as ``prefcert generate --param --sizes``) and
any factor of the suite's cells with the level(s) to keep, e.g. ``-T format=mcq`` or
``-T rule=[borda,irv]``. A name that is neither is refused with one line naming it.

Code-assisted prompts (a prompt record with ``tools``: ``indeterminacy-algorithmic``
with ``--param tools=code``, Khanna & Wang 2026, Table 29) get Inspect AI's own
``python`` tool, its timeout the prompt's ``time_limit`` (the suite's ``time_budget``,
which also bounds the whole response: past it, a ``timeout``), run in the sandbox named
by the task parameter ``sandbox``: ``local`` (the default: the model's code runs on this
machine, as this user, in a temporary directory — trust the model or the machine is
expendable) or ``docker`` (an Inspect Docker container: isolated, needs a Docker
daemon). Other prompts get no tool and no sandbox.

Each sample's ``input`` is the prompt, its ``target`` the gold answer, its ``id`` the
prompt id, and its ``metadata`` the prompt record with the certified ``labels`` (each
with its certificate) and the ``instances`` they are about: what the scorer reads, and
what ``prefcert check`` re-verifies, so a log is self-contained. Without ``benchmark`` the
samples are built lazily from the design, in a task order drawn from the seed (the
variants of one task adjacent): ``--limit 20`` samples and certifies only the tasks of
those 20 prompts. With ``benchmark`` the folder's prompts come in the same order (the
design its manifest names: ``--limit 20`` runs the prompts a run without the folder
would, spread over the cells; a folder whose prompts are not that design keeps its file
order), and only the samples run are built. ``prefcert eval`` (and
:func:`prefcert.bench.inspect.run.evaluate`) refuses a log folder that is the benchmark
folder or inside it; Inspect's own ``inspect eval`` settles its log folder after making
the task and passes it to no task code, so there that choice is the user's.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import Dataset, Sample
from inspect_ai.model import ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver
from inspect_ai.tool import python
from inspect_ai.util import apply_limits, registry_info, time_limit

from ...formal.errors import InstanceError
from ..dataset import BenchmarkEntries
from ..suites import SUITES
from .scorer import prefcert_scorer
from .solver import refinement


def sample_of(entry: dict) -> Sample:
    """The Inspect sample of a dataset entry (:func:`prefcert.create_dataset`)."""
    meta = entry["metadata"]
    return Sample(input=entry["question"], target=entry["answer"], id=meta["id"],
                  metadata=meta)


class LazySamples(Dataset):
    """An Inspect dataset over a sequence of entries, built when a sample is read by
    position. Slices, ``--limit`` and shuffles select positions without building
    anything; iterating yields id-only samples (Inspect walks the whole dataset for its
    ids before it applies ``--limit``; it reads the samples it runs by position)."""

    def __init__(self, entries: Sequence[dict], name: str, positions: list[int] | None = None,
                 shuffled: bool = False):
        self._entries = entries
        self._id = getattr(entries, "id_of", None) or (lambda i: entries[i]["metadata"]["id"])
        self._positions = list(range(len(entries))) if positions is None else positions
        self._name = name
        self._shuffled = shuffled

    @property
    def name(self) -> str | None:
        return self._name

    @property
    def location(self) -> str | None:
        return None

    @property
    def shuffled(self) -> bool:
        return self._shuffled

    def __getitem__(self, index):                       # type: ignore[override]
        if isinstance(index, slice):
            return LazySamples(self._entries, self._name, self._positions[index], self._shuffled)
        return sample_of(self._entries[self._positions[index]])

    def __len__(self) -> int:
        return len(self._positions)

    def __iter__(self):
        for p in self._positions:
            yield Sample(input="", id=self._id(p))

    def sort(self, reverse: bool = False, key: Callable | None = None) -> None:
        from inspect_ai.dataset._dataset import sample_input_len
        key = key or sample_input_len
        self._positions.sort(key=lambda p: key(sample_of(self._entries[p])), reverse=reverse)

    def filter(self, predicate: Callable[[Sample], bool], name: str | None = None) -> LazySamples:
        keep = [p for p in self._positions if predicate(sample_of(self._entries[p]))]
        return LazySamples(self._entries, name or self._name, keep, self._shuffled)

    def shuffle(self, seed: int | None = None) -> None:
        import random
        random.Random(seed).shuffle(self._positions)
        self._shuffled = True

    def shuffle_choices(self, seed: int | None = None) -> None:
        """prefcert's options are part of the prompt text (and of the gold): not shuffled."""


def _levels(value: Any, what: str) -> list | None:
    """A level or a list of levels, as ``-T`` gives them (YAML: ``10``, ``[10, 30]``, or
    the text ``10,30``)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [v.strip() for v in value.replace(",", " ").split()]
    return list(value) if isinstance(value, (list, tuple)) else [value]


#: sandboxes the ``sandbox`` task parameter offers for code-assisted prompts: a trust
#: choice (``local`` runs the model's code on this machine; ``docker`` isolates it)
SANDBOXES = ("local", "docker")
#: the tool timeout when a prompt asks for a tool but names no ``time_limit`` (seconds:
#: Khanna & Wang's 20 minutes, footnote 7)
DEFAULT_TOOL_TIMEOUT = 20 * 60


@solver
def code_tool(answer: Solver, default_timeout: int = DEFAULT_TOOL_TIMEOUT) -> Solver:
    """``answer`` with Inspect AI's ``python`` tool for a sample whose prompt record asks
    for one (``tools`` lists ``"python"``: the code-assisted design of Khanna & Wang 2026,
    §5, App. N, Table 29) and the prompt's ``time_limit`` (seconds, the suite's
    ``time_budget``: the paper's limit per response) both as the tool's timeout and as a
    wall-clock limit on the whole response (every round of a refinement included). A response still running at the limit
    ends with no answer, scored as a ``timeout`` (the prompt says a late answer is
    incorrect). The store records ``prefcert_tool_timeout`` and, when the limit ended the
    response, ``prefcert_time_budget_exceeded``. Other samples run ``answer`` as it is.
    The tool runs in the task's sandbox. O(1) per sample besides ``answer``.

    Parameters
    ----------
    answer : Solver
        What answers the sample (``generate()`` or the refinement solver).
    default_timeout : int
        Seconds, for a prompt naming no ``time_limit``.

    Returns
    -------
    Solver
    """
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata or {}
        if "python" not in (meta.get("tools") or ()):
            return await answer(state, generate)
        timeout = int(meta.get("time_limit") or default_timeout)
        state.tools = [python(timeout=timeout)]
        state.store.set("prefcert_tool_timeout", timeout)            # in the log
        with apply_limits([time_limit(timeout)], catch_errors=True) as scope:
            state = await answer(state, generate)
        if scope.limit_error is not None:           # no answer within the budget
            state.store.set("prefcert_time_budget_exceeded", True)
            state.output = ModelOutput(model=str(state.model), choices=[],
                                       error=f"time budget of {timeout} s exceeded")
        return state
    return solve


def wants_tools(entries: Sequence[dict]) -> bool:
    """Whether any prompt of ``entries`` asks for a tool: a benchmark's entries by their
    metadata, a lazy :class:`~prefcert.bench.dataset.SuiteDataset` by its design's rows
    (a ``tools`` factor other than ``none``) without building an entry. O(entries) or
    O(rows)."""
    from ..dataset import BenchmarkEntries, SuiteDataset
    if isinstance(entries, SuiteDataset):
        return any(r.factors.get("tools") not in (None, "none")
                   for r in entries.suite.rows(entries.sizes))
    if isinstance(entries, BenchmarkEntries):           # the records: no entry built
        return any(p.get("tools") for p in entries.prompts)
    return any(e["metadata"].get("tools") for e in entries)


def suite_task(suite: str, *, seed: int | None = None, sizes: Any = None,
               per_cell: int | None = None, encoding: str = "json",
               benchmark: str | None = None, rounds: int | None = None,
               params: Mapping[str, Any] | None = None, sandbox: str = "local",
               **cells: Any) -> Task:
    """The Inspect task of ``suite`` (see the module docstring for the parameters).

    Parameters
    ----------
    suite : str
        A registered suite (``prefcert suites`` lists them).
    seed, sizes, per_cell, encoding, benchmark, rounds
        As in the module docstring; ``sizes`` may be open sizes within the suite's limits
        (the suite is configured with them, as ``prefcert generate --sizes``).
    params : mapping, optional
        The suite's design parameters (name -> value or its text), as ``prefcert generate
        --param``.
    sandbox : {"local", "docker"}
        Where the code of code-assisted prompts runs (see the module docstring); unused by
        prompts without a tool.
    **cells
        Every other ``-T NAME=VALUE``: a name the suite declares as a parameter configures
        the suite (``-T tools=code``, ``-T n=7``; it joins ``params``); any other name is a
        cell filter (a factor of the suite's cells with the level(s) to keep).

    Returns
    -------
    inspect_ai.Task
        The lazily built samples, the solver (one answer, or the refinement solver over
        ``rounds`` turns), prefcert's scorer and the suite's epochs.

    Raises
    ------
    InstanceError
        One line naming the first bad name or value: a name that is neither a parameter
        nor a cell factor of the suite, a parameter value or size outside its limits.

    Notes
    -----
    Cost: O(prompts of the design) to lay out the sample order; nothing is sampled or
    certified until a sample is read.
    """
    from ..dataset import SuiteDataset, _cell_filter
    from ..design import Row
    from ..suites import suite as get_suite
    cells.pop("model", None)                    # Inspect passes the model to every task
    s = get_suite(suite)
    # names the suite declares as parameters configure it; the rest are cell filters (a
    # benchmark folder's own parameters, from its manifest, come first)
    folder = _benchmark_parameters(benchmark) if benchmark is not None else {}
    asked = {**dict(params or {}), **{k: cells.pop(k) for k in list(cells)
                                      if k in s.parameters}}
    if benchmark is not None:
        _same_design(s, folder, asked, seed=seed, per_cell=per_cell)
    given = {**folder, **asked}
    if rounds is not None and "rounds" in s.parameters:
        given["rounds"] = rounds                # (the suite's parameter: its limits apply)
    chosen = s.chosen_parameters(given)
    # a suite whose design has several turns says so in its parameter ``rounds``
    # (the two-turn completion: 2); -T rounds=N overrides it
    rounds = int(chosen.get("rounds", 1) if rounds is None else rounds)
    if rounds < 1:
        raise InstanceError("rounds must be at least 1", value=rounds)
    size_levels = None if sizes is None else [int(x) for x in _levels(sizes, "sizes")]
    configured = s.configured(chosen, size_levels)
    positions: list[int] | None = None
    if benchmark is not None:
        # in the order a run without the folder takes (a --limit prefix spread over the
        # cells); an entry is built only when its sample is read
        entries: Sequence[dict] = BenchmarkEntries(benchmark, order="design")
        prompts = entries.prompts               # type: ignore[attr-defined]
        if any(p["suite"] != suite for p in prompts):
            raise InstanceError(f"the benchmark is not of suite {suite}", file=str(benchmark))
        rows = [Row(p["cell"], [{}]) for p in prompts] or configured.rows(configured.sizes)
        _known(s, cells, [r.cells() for r in rows])
        wanted = _cell_filter(s, {**cells, **({"size": size_levels} if size_levels else {})},
                              [(r, 0, 0) for r in rows])
        positions = [i for i, p in enumerate(prompts) if wanted(p["cell"])]
        if not positions:
            raise InstanceError("no prompt of the benchmark is in the chosen sizes and "
                                "cells", file=str(benchmark))
    else:
        _known(s, cells, [r.cells() for r in configured.rows(configured.sizes)])
        entries = SuiteDataset(suite, seed=seed, sizes=size_levels, per_cell=per_cell,
                               encoding=encoding, cells=cells, params=chosen)
    # a suite whose design draws several completions per prompt says so in its parameter
    # ``epochs`` (self-consistency: 15); Inspect's --epochs overrides it
    epochs = chosen.get("epochs")
    changed = {k: v for k, v in chosen.items() if v != s.parameters[k].default}
    if sandbox not in SANDBOXES:
        raise InstanceError(f"sandbox is {' or '.join(SANDBOXES)}", value=sandbox)
    answer = refinement(rounds) if rounds > 1 else generate()
    tools = wants_tools(entries)
    return Task(dataset=LazySamples(entries, suite, positions),
                solver=code_tool(answer) if tools else answer,
                sandbox=sandbox if tools else None,
                scorer=prefcert_scorer(), name=suite, epochs=epochs,
                metadata={"suite": suite, "seed": s.seed if seed is None else seed,
                          "sizes": size_levels, "per_cell": per_cell, "encoding": encoding,
                          "benchmark": benchmark, "rounds": rounds, "cells": cells,
                          **({"parameters": changed} if changed else {})})


def _same_design(s: Any, folder: Mapping[str, Any], asked: Mapping[str, Any], *,
                 seed: Any, per_cell: Any) -> None:
    """InstanceError (one line) when a task argument asks a benchmark folder for another
    design than it was generated with: a design parameter (not a ``run`` one) other than
    the folder's (its manifest's, else the default), a seed or a per-cell count (the
    folder's prompts are fixed)."""
    for name, value in (("seed", seed), ("per_cell", per_cell)):
        if value is not None:
            raise InstanceError(f"{name} is for a generated design: a benchmark folder "
                                f"holds its own prompts", value=value)
    had = s.chosen_parameters(folder)
    for name, value in s.chosen_parameters(asked).items():
        if name in asked and not s.parameters[name].run and value != had[name]:
            raise InstanceError(f"the benchmark was generated with {name}={had[name]}; "
                                f"{name}={value} asks for another design (generate it)",
                                value=asked[name])


def _benchmark_parameters(benchmark: str) -> dict[str, Any]:
    """The parameters a benchmark folder was generated with (its manifest's
    ``parameters``; none when the manifest has none or cannot be read)."""
    from ...formal.files import read_json_file
    p = Path(benchmark)
    try:
        manifest = read_json_file((p if p.is_dir() else p.parent) / "manifest.json")
    except InstanceError:
        return {}
    return dict(manifest.get("parameters") or {}) if isinstance(manifest, dict) else {}


def _known(s: Any, cells: Mapping[str, Any], groups: Sequence[Sequence[Mapping]]) -> None:
    """InstanceError (one line) for a task argument that is neither a parameter of suite
    ``s`` nor a factor of any of its cells."""
    known = {k for g in groups for c in g for k in c}
    for k in cells:
        if k not in known:
            raise InstanceError(f"suite {s.name} has no parameter or cell factor {k!r} "
                                f"(parameters: {', '.join(s.parameters) or 'none'}; "
                                f"factors: {', '.join(sorted(known))})", value=k)


NAMESPACE = "prefcert"


def _register(name: str):
    def factory(seed: int | None = None, sizes: Any = None, per_cell: int | None = None,
                encoding: str = "json", benchmark: str | None = None,
                rounds: int | None = None, sandbox: str = "local", **cells: Any) -> Task:
        return suite_task(name, seed=seed, sizes=sizes, per_cell=per_cell,
                          encoding=encoding, benchmark=benchmark, rounds=rounds,
                          sandbox=sandbox, **cells)
    factory.__name__ = name.replace("-", "_")
    factory.__doc__ = f"The prefcert suite {name} (see prefcert.bench.inspect.tasks)."
    registered = task(name=name)(factory)
    if registry_info(registered).name != f"{NAMESPACE}/{name}":
        # Inspect namespaces a task by the installed package it comes from; run from a
        # source checkout (whose prefcert.egg-info hides the install record) it sees
        # none, so the namespace is given here
        registered = task(name=f"{NAMESPACE}/{name}")(factory)
    return registered


#: suite name -> its registered Inspect task factory
TASKS: dict[str, Callable[..., Task]] = {name: _register(name) for name in SUITES}
