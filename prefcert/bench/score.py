"""``prefcert score``: score a file of answers against a generated benchmark.

ANSWERS is a JSONL file of ``{"id": prompt id, "answer": text}`` (``"answer": null`` or
``"timeout": true`` is a timeout). The benchmark's ``labels.jsonl`` and
``instances.jsonl`` are read from the folder of PROMPTS. Each scored record is
``{"id", "suite", "cell", "verdict", "parsed", "reason", ...}`` with the suite's extra
fields (``parsed`` is ``{"kind", "value", "rule"}``: what the answer says and the rule of
:mod:`prefcert.bench.answers` that read it; a timeout's is ``{"kind": "timeout", "rule":
"no_answer"}``); the metrics are the suite's, every proportion with its 95 % Wilson interval.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..formal.errors import InstanceError
from .design import VERDICTS, Entry, Suite, Verdict
from .generate import PROFILES_FILE, numbered_jsonl, numbered_prompts


#: the fields of a benchmark's records that reading it relies on: name -> (required, the
#: check, what it must be)
RECORD_FIELDS: dict[str, tuple[tuple[str, bool, Callable[[Any], bool], str], ...]] = {
    "labels.jsonl": (("label_id", True, lambda v: isinstance(v, str), "a string"),
                     ("id", False, lambda v: isinstance(v, str), "a string")),
    "instances.jsonl": (("id", True, lambda v: isinstance(v, str), "a string"),
                        ("domain", False, lambda v: isinstance(v, str), "a string")),
    "prompts": (("id", True, lambda v: isinstance(v, str), "a string"),
                ("suite", True, lambda v: isinstance(v, str), "a string"),
                ("cell", False, lambda v: isinstance(v, dict), "an object"),
                ("gold_label_ids", False, lambda v: isinstance(v, list)
                 and all(isinstance(x, str) for x in v), "a list of strings"),
                ("instance_ids", False, lambda v: isinstance(v, list)
                 and all(isinstance(x, str) for x in v), "a list of strings")),
}


def _fields(row: Mapping[str, Any], fields, file: Path, line: int | None) -> None:
    """InstanceError naming the first field of ``row`` that is missing (when required) or
    not of its type: a record that prefcert generate did not write."""
    for key, required, ok, what in fields:
        if key not in row:
            if required:
                raise InstanceError(f"not a record of prefcert generate: no {key!r}",
                                    file=str(file), line=line, value=row.get("id"))
        elif not ok(row[key]):
            raise InstanceError(f"not a record of prefcert generate: its {key!r} must be "
                                f"{what}", file=str(file), line=line, value=row[key])


class Benchmark:
    """A generated benchmark read back: prompts, labels by id, instances by id."""

    def __init__(self, prompts: Sequence[dict], labels: Iterable[dict],
                 instances: Iterable[dict]):
        self.prompts = list(prompts)
        self.by_id = {p["id"]: p for p in self.prompts}
        self.labels = {lab["label_id"]: lab for lab in labels}
        self.instances = {i["id"]: i for i in instances}
        self._models: dict = {}
        self.files: tuple[Path, ...] = ()       # the files read (by :meth:`read`)
        #: prompt id -> (file, line) it was read from (by :meth:`read`; a Parquet
        #: file's line is its row)
        self.origins: dict[Any, tuple[str, int]] = {}

    @classmethod
    def read(cls, prompts_path: str | Path) -> Benchmark:
        """The benchmark of a prompts file (``prompts.jsonl``, a Parquet split), of its
        ``data`` folder of splits, or of the benchmark folder itself."""
        from .generate import prompts_path as locate
        p = locate(prompts_path)
        folder = p.parent if (p.parent / "labels.jsonl").exists() or \
            not (p.parent.parent / "labels.jsonl").exists() else p.parent.parent
        if not p.exists():
            raise InstanceError("no such prompts file or folder", file=str(p))
        for name in ("labels.jsonl", "instances.jsonl"):
            if not (folder / name).is_file():
                raise InstanceError(f"{name} is missing beside the prompts", file=str(p))
        labels, instances = (numbered_jsonl(folder / n) for n in ("labels.jsonl", "instances.jsonl"))
        for name, rows, key in (("labels.jsonl", labels, "label_id"),
                                ("instances.jsonl", instances, "id")):
            for i, row in rows:
                if key not in row:
                    raise InstanceError(f"not a {name} record of prefcert generate: no "
                                        f"{key!r}", file=str(folder / name), line=i)
                _fields(row, RECORD_FIELDS[name], folder / name, i)
        labels, instances = [r for _, r in labels], [r for _, r in instances]
        numbered = numbered_prompts(p)
        for file, line, prompt in numbered:
            _fields(prompt, RECORD_FIELDS["prompts"], Path(file), line)
        bench = cls([r for _, _, r in numbered], labels, instances)
        bench.origins = {r["id"]: (file, line) for file, line, r in numbered}
        bench.check_complete(folder / "labels.jsonl", folder / "instances.jsonl")
        # every file the benchmark is read from: an output naming one is refused
        read = [p, folder / "labels.jsonl", folder / "instances.jsonl",
                folder / "manifest.json", p.parent / PROFILES_FILE,
                *sorted((folder / "data").glob("*.parquet"))]
        bench.files = tuple(f for f in read if f.is_file() or f == p)
        return bench

    def origin(self, prompt_id: Any) -> tuple[str | None, int | None]:
        """(file, line) of the prompt ``prompt_id`` as :meth:`read` read it (a Parquet
        file's line is its row); (None, None) for a benchmark not read from files."""
        return self.origins.get(prompt_id, (None, None))

    def check_complete(self, labels_file: str | Path, instances_file: str | Path) -> None:
        """InstanceError (one line naming the file and the id) when a record refers to one
        the benchmark's files do not hold: a prompt's gold label missing from
        ``labels.jsonl``, or an instance (of a label, or of a prompt) missing from
        ``instances.jsonl`` — a truncated or hand-edited folder, refused before anything
        is scored, as ``prefcert check`` refuses a label whose instance is gone.

        Parameters
        ----------
        labels_file, instances_file : str or Path
            The files the labels and the instances were read from (named in the error).

        Raises
        ------
        InstanceError
            The first missing id, in file order: labels' instances first, then the
            prompts' labels and instances. O(prompts + labels).
        """
        for lab in self.labels.values():
            if lab.get("id") not in self.instances:
                raise InstanceError(f"instance {lab.get('id')!r} of label "
                                    f"{lab['label_id']!r} is not in the benchmark's "
                                    f"instances", file=str(instances_file))
        for prompt in self.prompts:
            pid = prompt.get("id")
            for lid in prompt.get("gold_label_ids", ()):
                if lid not in self.labels:
                    raise InstanceError(f"label {lid!r} of prompt {pid!r} is not in the "
                                        f"benchmark's labels", file=str(labels_file))
            for iid in prompt.get("instance_ids", ()):
                if iid not in self.instances:
                    raise InstanceError(f"instance {iid!r} of prompt {pid!r} is not in the "
                                        f"benchmark's instances", file=str(instances_file))

    def entry(self, prompt: Mapping[str, Any], parse: str = "lenient") -> Entry:
        """The scorer's view of a prompt: its labels and the instances (parsed models are
        shared by every entry of the benchmark), read under the ``parse`` policy."""
        return Entry([self.labels[i] for i in prompt["gold_label_ids"]], self.instances,
                     self._models, parse=parse)


def suite_of(prompt: Mapping[str, Any]) -> Suite:
    from .suites import suite
    return suite(prompt["suite"])


def single_answer(prompt: Mapping[str, Any], file: str | Path | None = None,
                  line: int | None = None) -> None:
    """Refuse a prompt that one answer cannot complete: the paths that score a single
    answer per prompt (an answers file, :func:`prefcert.score_answer`,
    :func:`prefcert.reward`, ``prefcert export lm-eval``) call this first.

    Parameters
    ----------
    prompt : mapping
        A prompt record (``id``, ``suite``, ``cell``).
    file, line : optional
        Where the answer was read (named in the error).

    Raises
    ------
    InstanceError
        When the prompt's suite marks it as an episode of several turns
        (:attr:`~prefcert.bench.design.Suite.multi_turn`: the two-turn completion suite's
        interactive route); the line points to the paths that run the turns. O(1).
    """
    s = suite_of(prompt)
    if s.multi_turn is not None and s.multi_turn(prompt):
        raise InstanceError(
            f"prompt {prompt['id']} of suite {s.name} is a two-turn episode (a first "
            f"intervention, the environment's answer, the final action) that one answer "
            f"cannot complete: run it with 'prefcert refine PROMPTS --command ...' or "
            f"'prefcert eval' (then 'prefcert score LOGS'), or generate the suite with "
            f"--param route=reference (one final answer a prompt)",
            file=None if file is None else str(file), line=line)


def answer_text(value: Any) -> str | None:
    """The text of an ``answer`` read from JSON, as a model would have written it.

    Parameters
    ----------
    value : any JSON value
        The record's ``answer``.

    Returns
    -------
    str or None
        A string as it is; None (a timeout) as None; any other JSON value (a decision
        object, a list, a number) as its JSON text (``json.dumps``, ``ensure_ascii=False``),
        never Python's repr. O(size of the value).
    """
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def score_prompt(prompt: Mapping[str, Any], answer: str | None, entry: Entry) -> dict:
    """Score one answer (None: a timeout) to one prompt record; a scorer bug is reported as
    an ``invalid`` verdict with the error, never raised."""
    suite = suite_of(prompt)
    try:
        v = suite.score(dict(prompt), answer, entry)
    except Exception as e:                        # pragma: no cover - a suite bug
        v = Verdict("invalid", {"kind": "invalid", "value": None, "rule": "scorer_error"},
                    f"scorer error: {e.__class__.__name__}: {e}")
    parsed = v.parsed if v.parsed is not None else \
        {"kind": "timeout", "value": None, "rule": "no_answer"}
    return {"id": prompt["id"], "suite": prompt["suite"], "cell": prompt["cell"],
            "verdict": v.verdict, "parsed": parsed, "reason": v.reason, **v.extra}


def answer_id(rec: Any, path: str | Path, line: int,
              known: Mapping[str, Any] | None = None) -> str:
    """The prompt id of one answer record; InstanceError naming the file and line of a
    record without ``id``, (given the ``known`` prompts by id) with an id that is not a
    prompt's, or whose optional ``suite`` is not its prompt's: every benchmark numbers its
    prompts from 00001, so an id alone cannot tell two benchmarks apart. O(1)."""
    if not isinstance(rec, dict) or "id" not in rec:
        raise InstanceError("answer record without 'id'", file=str(path), line=line)
    pid = str(rec["id"])
    if known is None:
        return pid
    if pid not in known:
        raise InstanceError("answer to an unknown prompt id", file=str(path), line=line,
                            value=rec["id"])
    theirs = known[pid].get("suite")
    if "suite" in rec and rec["suite"] != theirs:
        raise InstanceError(f"an answer written for suite {rec['suite']!r} to a prompt of "
                            f"suite {theirs!r} (every benchmark numbers its prompts from "
                            f"00001)", file=str(path), line=line, value=rec["id"])
    return pid


#: The keys of an answer record (docs/suites.md).
ANSWER_KEYS = ("id", "answer", "timeout", "suite", "model")


def answers_model(path: str | Path) -> str | None:
    """The model an answers file names in its own records (their ``model`` field), or None
    when no record has one.

    Parameters
    ----------
    path : str or Path
        An answers file (JSONL of ``{"id", "answer"}`` records).

    Returns
    -------
    str or None
        The one model the records name.

    Raises
    ------
    InstanceError
        Naming the line of a ``model`` that is not a non-empty string, or of a record
        naming a second model (one answers file is one model's; ``--model`` names it).
    """
    name: str | None = None
    for i, rec in numbered_jsonl(path, unique_keys=True):
        if not isinstance(rec, dict) or "model" not in rec:
            continue
        m = rec["model"]
        if not isinstance(m, str) or not m.strip():
            raise InstanceError("'model' must be a non-empty string", file=str(path),
                                line=i, value=m)
        if name is not None and m != name:
            raise InstanceError(f"a second model in one answers file (the first record "
                                f"naming one says {name!r}; give each model's answers in "
                                f"a file of its own, or name the file's model with --model)",
                                file=str(path), line=i, value=m)
        name = m
    return name


def read_answers(path: str | Path,
                 known: Mapping[str, Any] | None = None) -> dict[str, str | None]:
    """prompt id -> answer text (None for a timeout; an ``answer`` that is not a string,
    such as a decision written as a JSON object, is its JSON text, :func:`answer_text`);
    InstanceError naming the line of a record :func:`answer_id` refuses, with an id
    answered twice, a key that is not one of :data:`ANSWER_KEYS` (a misspelt ``answer``
    would otherwise score as a timeout), with neither ``answer`` nor ``timeout``, or
    (given ``known``) answering a prompt of several turns (:func:`single_answer`); and for
    a file with no record. O(lines)."""
    out: dict[str, str | None] = {}
    for i, rec in numbered_jsonl(path, unique_keys=True):
        pid = answer_id(rec, path, i, known)
        if pid in out:
            raise InstanceError("a second answer to the same prompt id", file=str(path),
                                line=i, value=rec["id"])
        extra = next((k for k in rec if k not in ANSWER_KEYS), None)
        if extra is not None:
            raise InstanceError(f"unknown key in an answer record (the keys are "
                                f"{', '.join(ANSWER_KEYS)})", file=str(path), line=i,
                                value=extra)
        if "answer" not in rec and "timeout" not in rec:
            raise InstanceError("an answer record without 'answer' (a timeout is written "
                                "\"answer\": null or \"timeout\": true)", file=str(path),
                                line=i, value=rec["id"])
        if not isinstance(rec.get("timeout", False), bool):
            raise InstanceError("'timeout' is true or false", file=str(path), line=i,
                                value=rec["timeout"])
        if not _json_value(rec.get("answer")):
            raise InstanceError("'answer' holds NaN or Infinity, which are not JSON (an "
                                "answer is a string, or a JSON value read as its text)",
                                file=str(path), line=i, value=rec["id"])
        if known is not None:
            single_answer(known[pid], path, i)
        out[pid] = answer_text(None if rec.get("timeout") else rec.get("answer"))
    if not out:
        raise InstanceError("holds no answer records", file=str(path))
    return out


def _json_value(value: Any) -> bool:
    """Whether ``value`` is JSON (``json`` also reads NaN and ±Infinity, which are not):
    a string or None at once, else whether it encodes without them. O(size)."""
    if value is None or value.__class__ is str:
        return True
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return False
    return True


def score_answers(bench: Benchmark, answers: Mapping[str, str | None],
                  parse: str = "lenient") -> list[dict]:
    """Scored records for every prompt that has an answer, in prompt order, the answers read
    under ``parse`` (``lenient`` or ``strict``, :mod:`prefcert.bench.answers`). InstanceError
    for an answer to an unknown prompt id, or to a prompt of several turns
    (:func:`single_answer`)."""
    unknown = [k for k in answers if k not in bench.by_id]
    if unknown:
        raise InstanceError("answer to an unknown prompt id", value=unknown[0])
    for p in bench.prompts:
        if p["id"] in answers:
            single_answer(p)
    return [score_prompt(p, answers[p["id"]], bench.entry(p, parse)) for p in bench.prompts
            if p["id"] in answers]


def metrics(scores: Sequence[dict]) -> list[dict]:
    """The suite's metric rows (every suite present in the scores), plus the verdict shares
    over all prompts."""
    from .stats import proportion
    out = []
    for name in dict.fromkeys(s["suite"] for s in scores):
        from .suites import suite
        mine = [s for s in scores if s["suite"] == name]
        for v in VERDICTS:
            out.append(proportion(f"share_{v}", {"suite": name},
                                  sum(1 for s in mine if s["verdict"] == v), len(mine)))
        try:
            out += suite(name).metrics(mine)
        except ValueError as e:        # e.g. paired metrics over a partial run (--limit)
            out.append({"metric": "suite_metrics_unavailable",
                        "group": {"suite": name, "reason": str(e)}, "k": None,
                        "n": len(mine), "value": None, "low": None, "high": None})
    return out


def metrics_by_model(scores: Sequence[dict]) -> list[dict]:
    """:func:`metrics` of each model apart (records grouped by ``model``,
    :func:`~prefcert.bench.results.by_model`), each row's group led by ``model`` when the
    scores hold several models; the rows of :func:`metrics` unchanged for one. Metrics of
    two models are never pooled. O(R) plus the suites' metrics."""
    from .results import by_model
    groups = by_model(scores)
    if len(groups) <= 1:
        return metrics(scores)
    return [{**m, "group": {"model": name, **m.get("group", {})}}
            for name, recs in groups.items() for m in metrics(recs)]


def compare(first: Sequence[dict], second: Sequence[dict]) -> dict:
    """Exact McNemar test between two scored answer sets on their common prompts."""
    from .stats import mcnemar_exact
    a = {s["id"]: s["verdict"] == "correct" for s in first}
    b = {s["id"]: s["verdict"] == "correct" for s in second}
    common = [k for k in a if k in b]
    return mcnemar_exact([a[k] for k in common], [b[k] for k in common])


def compare_models(scores: Sequence[dict]) -> list[dict]:
    """The exact McNemar test of every pair of models in ``scores`` on the prompts (and
    epochs) both answered, with Holm's adjusted p-value over the pairs.

    Parameters
    ----------
    scores : sequence of dict
        Scored records of any number of models (``model``; see
        :func:`~prefcert.bench.results.by_model`), keyed by ``id`` and ``epoch``.

    Returns
    -------
    list of dict
        One per pair (first-seen order): ``first``, ``second``, ``n`` paired prompts,
        ``only_first`` / ``only_second`` correct, ``pvalue`` and ``pvalue_holm``; empty for
        fewer than two models. O(M² R) for M models and R records.

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12(2). Holm, S. (1979). A simple sequentially
    rejective multiple test procedure. Scand. J. Statist. 6(2).
    """
    import itertools

    from .results import by_model
    from .stats import adjusted_pvalues, mcnemar_exact
    right = {m: {(s["id"], s.get("epoch")): s["verdict"] == "correct" for s in recs}
             for m, recs in by_model(scores).items()}
    out = []
    for a, b in itertools.combinations(right, 2):
        common = [k for k in right[a] if k in right[b]]
        out.append({"first": a, "second": b, **mcnemar_exact([right[a][k] for k in common],
                                                              [right[b][k] for k in common])})
    for t, p in zip(out, adjusted_pvalues([t["pvalue"] for t in out], "holm")):
        t["pvalue_holm"] = p
    return out


SIZE_TEST_FAMILIES = ("paper", "all")


def size_tests(scores: Sequence[dict], family: str = "paper") -> list[dict]:
    """Fisher's exact tests of accuracy across sizes, with the Holm and the
    Benjamini–Hochberg adjusted p-values over every test returned.

    ``paper`` (default): per suite only the tests its paper reports (the suite's
    :class:`~prefcert.bench.design.SizeTests`; none for a suite whose paper reports
    none); ``all``: every pair of sizes in every cell (648 for the full
    actionable-indeterminacy suite). Holm bounds the chance of any false rejection
    whatever the dependence; Benjamini–Hochberg the expected share of false rejections
    among the rejections, valid here because the cells hold disjoint prompts, so the
    tests are independent. Each test carries ``suite``, ``pvalue_holm`` and
    ``pvalue_bh``; with several models (``model``) the tests are made per model (each test
    carries its ``model``) and adjusted together. O(T log T) for T tests, after the tests.
    """
    if family not in SIZE_TEST_FAMILIES:
        raise InstanceError(f"size tests are one of {', '.join(SIZE_TEST_FAMILIES)}",
                            value=family)
    from .stats import adjusted_pvalues
    from .suites import suite
    from .results import by_model
    models = by_model(scores)
    out = []
    for model, recs in models.items():
        for name in dict.fromkeys(s["suite"] for s in recs):
            spec = suite(name).size_tests
            if family == "paper" and spec is None:
                continue
            tests = across_sizes([s for s in recs if s["suite"] == name])
            out += [{"suite": name, **({"model": model} if len(models) > 1 else {}), **t}
                    for t in tests if family == "all" or spec.cells(t["cell"])]
    for method in ("holm", "bh"):
        for t, p in zip(out, adjusted_pvalues([t["pvalue"] for t in out], method)):
            t[f"pvalue_{method}"] = p
    return out


def across_sizes(scores: Sequence[dict], factor: str = "size") -> list[dict]:
    """Fisher's exact test of accuracy between every pair of levels of ``factor`` within
    each cell that has them (the cell key less ``factor``), uncorrected."""
    import itertools

    from .stats import fisher_exact
    groups: dict[str, dict] = {}
    for s in scores:
        if factor not in s["cell"]:
            continue
        rest = {k: v for k, v in s["cell"].items() if k != factor}
        g = groups.setdefault(json.dumps(rest, sort_keys=True), {})
        k, n = g.get(s["cell"][factor], (0, 0))
        g[s["cell"][factor]] = (k + (s["verdict"] == "correct"), n + 1)
    out = []
    for key, g in groups.items():
        for x, y in itertools.combinations(sorted(g), 2):
            (k1, n1), (k2, n2) = g[x], g[y]
            out.append({"cell": json.loads(key), factor: [x, y], "k": [k1, k2], "n": [n1, n2],
                        **fisher_exact(k1, n1, k2, n2)})
    return out
