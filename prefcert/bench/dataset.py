"""Benchmarks as datasets, in the shape RL and evaluation users know (reasoning-gym,
Hugging Face ``datasets``): entries with ``question``, ``answer`` and ``metadata``, and a
reward function backed by the checker."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..api import arguments as arg
from ..api.types import DatasetEntry


def create_dataset(suite: str, size: int | None = None, seed: int | None = None, *,
                   sizes: Sequence[int] | None = None,
                   per_cell: int | None = None) -> list[DatasetEntry]:
    """Generate a benchmark suite in memory as a list of dataset entries.

    Parameters
    ----------
    suite : str
        A registered suite, e.g. ``"indeterminacy-preference"`` or
        ``"indeterminacy-algorithmic"`` (``prefcert suites`` lists them).
    size : int, optional
        Number of entries. The design is generated with just enough instances per cell
        (``ceil(size / cells)``) and ``size`` prompts are kept, spread over the cells by a
        permutation drawn from ``seed``. Default: the whole design.
    seed : int, optional
        Suite seed (default: the suite's); the same seed gives the same entries.
    sizes : sequence of int, optional
        Keep only these instance sizes (levels of the suite's ``size`` factor).
    per_cell : int, optional
        Instances per cell (overrides the choice made from ``size``).

    Returns
    -------
    list of DatasetEntry
        Entries (dicts) ``{"question": prompt text, "answer": gold answer text, "metadata": {...}}``;
        ``metadata`` holds the prompt record (``id``, ``cell``, ``answer_shape``, …), its
        certified ``labels`` (each with its ``certificate``) and its ``instances``.

    Raises
    ------
    InstanceError
        An unknown suite or size.

    Examples
    --------
    >>> ds = create_dataset("indeterminacy-algorithmic", size=4, seed=1, sizes=[10])
    >>> len(ds), sorted(ds[0])
    (4, ['answer', 'metadata', 'question'])
    >>> all(lab["checked"] for e in ds for lab in e["metadata"]["labels"])
    True
    >>> score_answer(ds[0]["answer"], ds[0])
    1.0

    Notes
    -----
    Cost: the suite's sampling and certification for the cells generated (see
    ``docs/suites.md``); every label is verified by the checker before it is returned.

    References
    ----------
    Khanna & Wang, "Preference reasoning under indeterminacy in large language models",
    2026 (the two shipped designs).
    """
    import numpy as np

    from .design import derive_seed
    from .generate import build
    from .suites import suite as get_suite
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
        arg.integer(per_cell, "per_cell", minimum=1)
    s = get_suite(suite)
    if per_cell is None and size is not None:
        cells = len(s.composition(sizes, per_cell=1))
        per_cell = max(1, math.ceil(size / max(1, cells)))
    b = build(s, seed=seed, sizes=sizes, per_cell=per_cell)
    prompts = b["prompts"]
    if size is not None and size < len(prompts):
        rng = np.random.default_rng(derive_seed(b["manifest"]["seed"], "dataset", size))
        keep = sorted(int(i) for i in rng.permutation(len(prompts))[:size])
        prompts = [prompts[i] for i in keep]
    labels = {lab["label_id"]: lab for lab in b["labels"]}
    insts = {i["id"]: i for i in b["instances"]}
    out: list[DatasetEntry] = []
    for p in prompts:
        labs = [labels[i] for i in p["gold_label_ids"]]
        ids = list(dict.fromkeys([*p["instance_ids"], *(lab["id"] for lab in labs)]))
        meta = {k: v for k, v in p.items() if k != "prompt"}
        meta["labels"] = labs
        meta["instances"] = {i: insts[i] for i in ids}
        out.append({"question": p["prompt"], "answer": p["answer"], "metadata": meta})
    return out


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
        An entry of :func:`create_dataset`.
    parse : {"lenient", "strict"}, default "lenient"
        How the answer is read, as ``prefcert score --parse``: ``lenient`` applies the
        reading policy of :mod:`prefcert.bench.answers` (answer tags, final lines,
        abstentions in words); ``strict`` only the papers' literal protocol.

    Returns
    -------
    float
        1.0 or 0.0; never raises on a malformed answer (it scores 0.0).

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
    from .score import score_prompt
    arg.text(answer, "answer", optional=True)
    how = arg.choice(parse, "parse", ("lenient", "strict"))
    meta = arg.mapping(entry, "entry", "(an entry of create_dataset)")["metadata"]
    e = Entry(meta["labels"], meta["instances"], parse=how)
    return 1.0 if score_prompt(meta, answer, e)["verdict"] == "correct" else 0.0
