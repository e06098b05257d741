"""The shapes a benchmark suite is made of: rows of cells, tasks, prompts, verdicts.

A **suite** is data plus hooks:

- ``rows``: the design table. A :class:`Row` fixes the *sampling factors* of its cells
  (``family``, ``pref``, ``question``, ``size`` …) and lists its *variants* (prompt formats
  such as ``ff`` / ``mcq``, or task types such as generation with and without the ``{}``
  hatch). One task is sampled per (row, index) and rendered once per variant, so the
  variants of a row are paired on the same instances. A cell is a row's factors plus one
  variant; it holds ``per_cell`` prompts.
- ``sizes``: the levels of the ``size`` factor; ``prefcert generate --sizes`` keeps a
  subset (rows whose size is not kept are dropped).
- ``sample(row, index, ctx) -> Task``: draw one task of a row (rejection sampling goes
  through ``ctx.draw`` / ``ctx.accept`` so acceptance rates are reported).
- ``render(task, variant, ctx) -> RenderedPrompt``: the prompt text and the expected answer
  shape; ``gold(task, variant, labels, rendered) -> str``: a gold answer (the text a
  model should give, e.g. ``C9``, ``unknown``, ``B``), computed from the certified labels
  of the task's questions; the scorer must score it ``correct`` (for a prompt that
  ``multi_turn`` marks, the gold of its first turn, which the suite's ``feedback``
  answers).
- ``multi_turn(prompt) -> bool`` (optional): True for a prompt that is an episode of
  several turns, which no single answer can complete (the two-turn completion suite's
  interactive route). The single-answer paths — ``prefcert score`` of an answers file,
  :func:`prefcert.score_answer`, :func:`prefcert.reward`, ``prefcert export lm-eval`` —
  refuse such a prompt in one line (:func:`prefcert.bench.score.single_answer`); the
  refinement paths (``prefcert refine``, ``prefcert eval``, the Inspect tasks) run it.
- ``score(prompt, answer_text, entry) -> Verdict`` scores one answer; ``metrics(scores)``
  aggregates scored records into metric rows; ``feedback(prompt, answer_text, entry)``
  (optional) returns a refinement message; ``plots(scores, report)`` (optional) adds the
  suite's figures to a :class:`~prefcert.bench.report.Report`; ``results(scores)``
  (optional) returns the paper's tables and figures computed from the scores of any
  number of models (:class:`~prefcert.bench.results.ResultSet`).
- ``readings`` (optional): the suite's named readings where a source paper is ambiguous
  (:class:`~prefcert.formal.spec.Convention`: choices, the first the default), chosen with
  ``prefcert generate --reading NAME=CHOICE`` and passed to ``sample`` / ``render`` as
  ``ctx.readings``; ``templates`` (optional): the suite's prompt template keys and shipped
  sets (:class:`~prefcert.bench.templates.TemplateSpec`), chosen with ``--templates`` and
  passed as ``ctx.templates``; ``duplicate_key(task)`` (optional): tasks with the same key
  are the same instance drawn twice — the manifest lists them and their prompt records
  carry ``duplicate_of`` and ``cluster``.
- ``parameters`` (optional): the suite's design parameters beyond sizes (:class:`Parameter`:
  a name, a default, a parser that enforces the documented limits), chosen with
  ``prefcert generate --param NAME=VALUE`` and passed to ``sample`` / ``render`` as
  ``ctx.params`` (defaults filled); ``configure(suite, params, sizes)`` (optional) returns
  the suite as those parameters and sizes make it (its rows, sizes, engines), raising
  InstanceError for a combination outside the design's limits. The manifest records the
  parameters only when one differs from its default, so a default run keeps its bytes.
- ``files(params)`` (optional): extra files of the generated folder (name -> text, e.g. the
  ``design.json`` of the self-consistency suite), written beside ``prompts.jsonl`` and
  listed in the manifest's ``files``.

Seeds: every (row, index) draws from its own generator, seeded from the suite seed and the
canonical JSON of the row's factors and the index, so a task does not depend on which other
rows are generated (``--sizes``) nor on the order of generation.
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

ENCODINGS = ("json", "sentences", "narrative")
"""The preference renderings a suite may offer (:attr:`Suite.encodings`): the JSON lists,
plain sentences, or a narrative with item names (Khanna & Wang 2026, App. H.5)."""

VERDICTS = ("correct", "incorrect", "invalid", "ambiguous", "timeout")
"""``ambiguous``: the answer could not be settled by the reading policy or the paper's rules
(two different unmarked answers, a range, a case the paper leaves open); never ``invalid``
(see :mod:`prefcert.bench.answers`). It scores 0 like every verdict but ``correct``."""


def canonical(obj: Any) -> str:
    """Canonical JSON (sorted keys, no spaces): the text hashed for seeds and ids."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def derive_seed(seed: int, *parts: Any) -> int:
    """A 64-bit seed from ``seed`` and JSON-able ``parts`` (SHA-256 of their canonical
    JSON): independent of Python's hash seed and of generation order."""
    h = hashlib.sha256(canonical([seed, *parts]).encode()).digest()
    return int.from_bytes(h[:8], "little")


@dataclass(frozen=True)
class Row:
    """One row of a design table: sampling factors shared by its cells, and its variants.

    ``factors``: factor -> level (JSON scalars), e.g. ``{"family": "atomic", "pref": "SO",
    "question": "kth", "size": 50}``. ``variants``: one dict per cell of the row (e.g.
    ``{"format": "ff"}``); each cell's key is ``factors | variant``. ``per_cell``: instances
    per cell (default: the suite's).
    """

    factors: Mapping[str, Any]
    variants: Sequence[Mapping[str, Any]]
    per_cell: int | None = None

    def cells(self) -> list[dict]:
        return [{**self.factors, **v} for v in self.variants]


@dataclass
class Task:
    """One sampled task: the instances it needs, the questions to certify, and payload.

    ``instances``: instance dicts (input format, with ``id`` and ``domain``); an instance
    shared by several tasks appears with the same id and content in each. ``questions``:
    ``(instance id, question)`` pairs to label through :func:`prefcert.pipeline.jobs.label`; the
    prompt's ``gold_label_ids`` are their labels, in this order. ``payload``: suite data
    (queried agent, menus, …) kept in the prompt record as ``task``.
    """

    instances: list[dict]
    questions: list[tuple[str, Any]]
    payload: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RenderedPrompt:
    """A prompt as shown to a model: ``text``, the ``answer_shape`` its parser expects, and
    ``extra`` fields for the prompt record (e.g. MCQ ``options``). ``shared``: the span
    ``(start, end)`` of ``text`` that many prompts repeat (a whole profile): ``prefcert
    generate`` encodes it once for ``prompts.jsonl`` and, when the suite's ``profiles``
    parameter is ``shared``, writes it once to ``profiles.jsonl`` and replaces it in the
    record by a reference (:func:`prefcert.bench.generate.share_span`); None (the
    default): nothing is repeated."""

    text: str
    answer_shape: str
    extra: Mapping[str, Any] = field(default_factory=dict)
    shared: tuple[int, int] | None = None


@dataclass(frozen=True)
class Verdict:
    """The score of one answer: ``verdict`` in :data:`VERDICTS`, the ``parsed`` answer, a
    certificate-backed ``reason`` (blocking pairs, a coalition, the two completions that make
    a query undetermined …) and suite ``extra`` fields (a response category, an error)."""

    verdict: str
    parsed: Any = None
    reason: Any = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")

    @property
    def reward(self) -> float:
        return 1.0 if self.verdict == "correct" else 0.0


class Context:
    """What a sampler or renderer gets: the row's generator and the acceptance counters.

    ``rng``: a :class:`numpy.random.Generator` private to this (row, index) — and, for a
    renderer, to the variant too. ``draw(tag)``
    counts one raw draw of a rejection sampler under ``tag`` (default: the row), and
    ``accept(tag)`` one accepted draw; ``note(tag, key)`` counts a named event (e.g. "no
    super-stable matching") for the calibration table. ``seed_for(*parts)`` derives a seed
    for shared objects (pools of profiles reused across rows) from the suite seed alone;
    ``encoding`` is the preference rendering asked for (``json``, ``sentences``,
    ``narrative``), for suites that offer more than one; ``readings``: the suite's named
    readings (name -> choice, defaults filled); ``templates``: the resolved prompt template
    set (:class:`~prefcert.bench.templates.Templates`) of a suite that has templates;
    ``params``: the suite's parameters (name -> value, defaults filled).
    """

    def __init__(self, seed: int, row: Row, index: int, stats: dict,
                 variant: Mapping[str, Any] | None = None, encoding: str = "json",
                 readings: Mapping[str, str] | None = None, templates: Any = None,
                 params: Mapping[str, Any] | None = None):
        self.suite_seed = seed
        self.params = dict(params or {})   # the suite's parameters (defaults filled)
        self.encoding = encoding          # how a renderer shows preferences (json/sentences/…)
        self.readings = dict(readings or {})
        self.templates = templates
        self.row = row
        self.index = index
        self._parts = [dict(row.factors), index] + ([dict(variant)] if variant is not None
                                                     else [])
        self._rng: np.random.Generator | None = None
        self._stats = stats

    @property
    def rng(self) -> np.random.Generator:
        """The generator private to this (row, index[, variant]), made on first use (most
        renderers draw nothing: seeding one costs a SHA-256 and a SeedSequence)."""
        if self._rng is None:
            self._rng = np.random.default_rng(derive_seed(self.suite_seed, *self._parts))
        return self._rng

    def seed_for(self, *parts: Any) -> int:
        return derive_seed(self.suite_seed, *parts)

    def _tag(self, tag: Any) -> str:
        return canonical(dict(self.row.factors) if tag is None else tag)

    def draw(self, tag: Any = None, n: int = 1) -> None:
        self._stats.setdefault(self._tag(tag), Counter())["draws"] += n

    def accept(self, tag: Any = None, n: int = 1) -> None:
        self._stats.setdefault(self._tag(tag), Counter())["accepted"] += n

    def note(self, key: str, tag: Any = None, n: int = 1) -> None:
        self._stats.setdefault(self._tag(tag), Counter())[key] += n


class Entry:
    """What a scorer gets besides the prompt and the answer: the certified ``labels`` of the
    prompt (in ``gold_label_ids`` order) and the ``instances`` (id -> instance dict), with
    their parsed models on demand (``model(iid)``), and ``parse``: how answers are read
    (``lenient`` or ``strict``, :mod:`prefcert.bench.answers`); ``history``: the earlier
    answers of the conversation, oldest first (empty for a single answer; set by the
    refinement driver and the Inspect solver before each round, so a multi-turn suite's
    ``score`` and ``feedback`` know which turn an answer is)."""

    def __init__(self, labels: Sequence[dict], instances: Mapping[str, dict],
                 models: dict | None = None, parse: str = "lenient",
                 history: Sequence[str] = ()):
        self.labels = list(labels)
        self.history: tuple[str, ...] = tuple(history)
        self.instances = instances
        self._models: dict = {} if models is None else models
        self.parse = parse              # the reading policy: "lenient" or "strict"

    def model(self, iid: str) -> Any:
        if iid not in self._models:
            from ..pipeline.registry import spec
            data = self.instances[iid]
            self._models[iid] = spec(data["domain"]).parse(data)
        return self._models[iid]


@dataclass(frozen=True)
class Parameter:
    """A design parameter of a suite (``prefcert generate --param NAME=VALUE``).

    ``parse(value)`` turns the text given on the command line (or a Python value) into the
    parameter's value, raising ValueError with a one-line reason when it is outside the
    documented limits; ``doc``: one line (the meaning, the default, the limits);
    ``variants``: the values (other than the default) that select another of the papers'
    designs — ``prefcert suites`` lists each with its prompt count
    (:meth:`Suite.design_variants`); ``run``: the parameter says how a task is run (turns,
    completions), not what its prompts are, so it may differ from a benchmark folder's."""

    name: str
    default: Any
    parse: Callable[[Any], Any]
    doc: str
    variants: tuple[Any, ...] = ()
    run: bool = False


#: The most draws a rejection sampler may be given (``--param max_draws``, every suite):
#: 50 times the largest default, so that no number on the command line sets a loop without
#: end.
MAX_DRAWS_LIMIT = 10_000_000


def int_in(lo: int, hi: int | None):
    """A parser for an integer parameter from ``lo`` to ``hi`` (None: unbounded)."""
    def parse(v: Any) -> int:
        if isinstance(v, bool):
            raise ValueError(f"an integer, not {v!r}")
        try:
            x = int(v)
        except (TypeError, ValueError):
            raise ValueError(f"an integer, not {v!r}") from None
        if str(x) != str(v).strip():
            raise ValueError(f"an integer, not {v!r}")
        if x < lo or (hi is not None and x > hi):
            raise ValueError(f"must be from {lo} to {hi if hi is not None else '∞'}, not {x}")
        return x
    return parse


@dataclass(frozen=True)
class SizeTests:
    """The tests across sizes a suite's paper reports: Fisher's exact test of accuracy
    between every two sizes of each cell that ``cells`` accepts (``cells`` sees the cell
    key without ``size``); ``source`` says where the paper reports them."""

    source: str
    cells: Callable[[Mapping[str, Any]], bool]


@dataclass(frozen=True)
class Suite:
    """A benchmark suite: the design table and its hooks (see the module docstring).

    ``name``: registry name; ``description``: one paragraph for the manifest and the
    report; ``sizes``: default levels of the ``size`` factor; ``per_cell``: default
    instances per cell; ``seed``: default seed; ``rows(sizes)``: the design table for the
    kept sizes; ``expected_total``: the published composition total, when there is one
    (checked against the full-size design); ``calibration(stats)``: optional rows of the
    table ``prefcert generate`` prints under ``calibration_title``; ``engines``:
    the engines that certify the labels (default: the oracle alone; a suite may ask for
    several, which must then agree); ``readings``, ``templates``, ``duplicate_key``: see
    the module docstring; ``size_tests``: the tests across sizes its paper
    reports (:class:`SizeTests`; None when the paper reports none — ``prefcert score``
    then shows none unless asked for every pair of sizes with ``--size-tests all``);
    ``citation``: the paper the design comes from (for dataset cards);
    ``shared_draw(row, index)``: optional, a key naming the draw that task shares with
    others (the group several rows' tasks are members of): ``--jobs`` keeps tasks with one
    key in one process, so a shared draw is made once, not once per process;
    ``encodings``: the preference renderings its prompts offer (``--encoding``; default
    ``json`` alone: a suite that renders no preference lists has no other);
    ``preload()``: optional, imports the modules its draws and labels use; ``generate``
    calls it before it forks workers, so they share those modules.
    """

    name: str
    description: str
    sizes: tuple
    per_cell: int
    seed: int
    rows: Callable[[Sequence[Any]], list[Row]]
    sample: Callable[[Row, int, Context], Task]
    render: Callable[[Task, Mapping[str, Any], Context], RenderedPrompt]
    gold: Callable[[Task, Mapping[str, Any], Sequence[dict], RenderedPrompt], str]
    score: Callable[[dict, str | None, Entry], Verdict]
    metrics: Callable[[Sequence[dict]], list[dict]]
    feedback: Callable[[dict, str, Entry], str] | None = None
    multi_turn: Callable[[Mapping[str, Any]], bool] | None = None
    plots: Callable[[Sequence[dict], Any], None] | None = None
    results: Callable[[Sequence[dict]], list] | None = None
    calibration: Callable[[Mapping[str, Counter]], list[dict]] | None = None
    expected_total: int | None = None
    engines: Sequence[str] | None = None
    calibration_title: str = "calibration"
    size_tests: SizeTests | None = None
    citation: str | None = None
    readings: Mapping[str, Any] = field(default_factory=dict)
    templates: Any = None
    duplicate_key: Callable[[Task], str | None] | None = None
    parameters: Mapping[str, Parameter] = field(default_factory=dict)
    configure: Callable[..., Suite] | None = None
    files: Callable[[Mapping[str, Any]], Mapping[str, str]] | None = None
    shared_draw: Callable[[Row, int], Any] | None = None
    encodings: tuple[str, ...] = ("json",)
    preload: Callable[[], None] | None = None

    def check_encoding(self, encoding: str) -> None:
        """InstanceError (one line) for an encoding the suite does not render."""
        if encoding not in self.encodings:
            from ..formal.errors import InstanceError
            raise InstanceError(f"suite {self.name} renders preferences as "
                                f"{' or '.join(self.encodings)}", value=encoding)

    def chosen_parameters(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The suite's parameters with ``given`` (name -> text or value) parsed, defaults
        filled. Raises InstanceError for an unknown name or a value outside its limits."""
        from ..formal.errors import InstanceError
        given = dict(given or {})
        out = {k: p.default for k, p in self.parameters.items()}
        for k, v in given.items():
            if k not in self.parameters:
                raise InstanceError(f"suite {self.name} has no parameter {k!r} (its "
                                    f"parameters: {', '.join(self.parameters) or 'none'})",
                                    value=k)
            try:
                out[k] = self.parameters[k].parse(v)
            except (TypeError, ValueError) as e:
                raise InstanceError(f"parameter {k}: {e}", value=v) from None
        return out

    def configured(self, params: Mapping[str, Any] | None = None,
                   sizes: Sequence[Any] | None = None) -> Suite:
        """The suite as ``params`` (parsed, defaults filled: :meth:`chosen_parameters`)
        and ``sizes`` make it (the ``configure`` hook; the suite itself when it has none).
        Raises InstanceError outside the design's limits, or for a size given twice."""
        chosen = self.chosen_parameters(params)
        if sizes is not None:
            twice = [x for i, x in enumerate(sizes) if x in list(sizes)[:i]]
            if twice:
                from ..formal.errors import InstanceError
                raise InstanceError("a size is given twice", value=twice[0])
        if self.configure is None:
            return self
        return self.configure(self, chosen, sizes)

    def prompt_count(self) -> int:
        """Prompts of the suite's design at its sizes and per-cell counts (cells × per cell,
        summed over :meth:`composition`), counted from the design table without sampling.
        O(cells)."""
        return sum(self.composition().values())

    def design_variants(self) -> list[tuple[dict[str, Any], Suite]]:
        """The designs a parameter choice selects (each :attr:`Parameter.variants` value,
        the other parameters at their defaults): ``(params, configured suite)`` pairs, in
        declaration order; the configured suite's :meth:`prompt_count` is the variant's
        prompt count at its own default sizes. Nothing is sampled. O(variants × cells)."""
        return [({k: v}, self.configured({k: v}))
                for k, p in self.parameters.items() for v in p.variants]

    def chosen_readings(self, given: Mapping[str, str] | None = None) -> dict[str, str]:
        """The suite's readings with ``given`` (name -> choice) applied, defaults filled.
        Raises InstanceError for an unknown name or choice."""
        from ..formal.errors import InstanceError
        given = dict(given or {})
        for k, v in given.items():
            if k not in self.readings:
                raise InstanceError(f"suite {self.name} has no reading {k!r} (its readings: "
                                    f"{', '.join(self.readings) or 'none'})", value=k)
            if v not in self.readings[k].choices:
                raise InstanceError(f"reading {k!r} must be one of "
                                    f"{', '.join(self.readings[k].choices)}", value=v)
        return {k: given.get(k, c.default) for k, c in self.readings.items()}

    def composition(self, sizes: Sequence[Any] | None = None,
                    per_cell: int | None = None) -> dict[str, int]:
        """Prompts per cell (canonical JSON of the cell key) of the design."""
        out: dict[str, int] = {}
        for row in self.rows(tuple(sizes) if sizes is not None else self.sizes):
            k = per_cell if per_cell is not None else (row.per_cell or self.per_cell)
            for cell in row.cells():
                out[canonical(cell)] = out.get(canonical(cell), 0) + k
        return out


def entry_from(prompt: Mapping[str, Any], labels, instances, seed: int | None = None
               ) -> dict:
    """The dataset entry (``{"question", "answer", "metadata"}``, see
    :func:`prefcert.create_dataset`) of one prompt record given the benchmark's labels and
    instances (lists or id -> record maps)."""
    labels = labels if isinstance(labels, Mapping) else {lab["label_id"]: lab for lab in labels}
    instances = instances if isinstance(instances, Mapping) else {i["id"]: i for i in instances}
    labs = [{k: v for k, v in labels[i].items() if k != "source"}
            for i in prompt["gold_label_ids"]]
    ids = list(dict.fromkeys([*prompt["instance_ids"], *(lab["id"] for lab in labs)]))
    meta = {k: v for k, v in prompt.items() if k != "prompt"}
    if seed is not None:
        meta["seed"] = seed
    meta["labels"] = labs
    meta["instances"] = {i: instances[i] for i in ids}
    return {"question": prompt["prompt"], "answer": prompt["answer"], "metadata": meta}
