"""Inspect logs back into prefcert: every sample of a prefcert task's ``.eval`` log (its
prompt record, labels and instances are in the sample's metadata) as the answer to score,
with the model, the sample id, the epoch, the timing and the token counts, so that
``prefcert score``, ``report`` and ``risk`` read an Inspect run as they read an answers
file. Logs are read with :func:`inspect_ai.log.read_eval_log`.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ...formal.errors import InstanceError

SUFFIX = ".eval"


def is_log(path: str | Path) -> bool:
    """Whether ``path`` is an Inspect log or a folder of them."""
    p = Path(path)
    return p.suffix == SUFFIX or (p.is_dir() and any(p.glob(f"*{SUFFIX}")))


def log_files(paths: Iterable[str | Path]) -> list[Path]:
    """The ``.eval`` files of ``paths`` (a folder stands for the logs in it, oldest
    first)."""
    out: list[Path] = []
    for p in map(Path, paths):
        out += sorted(p.glob(f"*{SUFFIX}")) if p.is_dir() else [p]
    return out


def _answer(sample: Any) -> str | None:
    """The last answer of a logged sample; None (a timeout) when it errored or hit a
    limit before any output."""
    out = sample.output
    if sample.error is not None or out is None or (not out.completion and
                                                    (out.error or sample.limit)):
        return None
    return out.completion


def _tokens(sample: Any) -> dict[str, int]:
    keys = ("input_tokens", "output_tokens", "total_tokens", "reasoning_tokens")
    out = dict.fromkeys(keys, 0)
    for usage in (sample.model_usage or {}).values():
        for k in keys:
            out[k] += getattr(usage, k, None) or 0
    return out


def log_samples(paths: Iterable[str | Path], models: Sequence[str] | None = None
                ) -> list[dict]:
    """One record per (sample, epoch) of the logs: ``record`` (the prompt record with its
    ``labels`` and ``instances``), ``answer`` (None: a timeout), ``model``, ``epoch``,
    ``sample_id``, ``log`` (its file) and ``log_status`` (Inspect's: ``success``,
    ``error``, ``cancelled`` …), ``timing`` (total and working seconds), ``tokens`` and the
    refinement ``rounds`` when there were several. InstanceError naming the file for a
    file that is no Inspect log, a log without samples, a log none of whose samples has
    an answer (every sample errored, or the run failed before any answer: scoring it
    would report a model that never answered as one that timed out on everything), a
    sample of a task that is not prefcert's, or a (model, sample, epoch) found in two logs
    (two runs of one model would otherwise be pooled into one, doubling its n).

    ``models``: one name per path, in order, replacing the model the logs of that path
    name (two runs of the same model, e.g. at two temperatures, told apart)."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise InstanceError("reading Inspect logs needs inspect-ai (pip install "
                            "'prefcert[inspect]')") from None

    from .scorer import ROUNDS
    paths = list(paths)
    if models is not None and len(models) != len(paths):
        raise InstanceError(f"give --model once per LOG, in the same order ({len(paths)} "
                            f"log source(s), {len(models)} --model)", value=" ".join(models))
    named = [(f, None if models is None else models[i])
             for i, p in enumerate(paths) for f in log_files([p])]
    out = []
    seen: dict[tuple, str] = {}
    from ...formal.files import check_input
    for f, name in named:
        check_input(f)                     # a FIFO or a device is refused unread
        try:
            log = read_eval_log(str(f))
        except Exception as e:         # Inspect raises several types for a bad file
            raise InstanceError(f"not an Inspect log ({e.__class__.__name__})",
                                file=str(f)) from None
        if not log.samples:
            raise InstanceError("the log holds no samples", file=str(f))
        errors = [s.error for s in log.samples if s.error is not None]
        if len(errors) == len(log.samples) or (
                log.status != "success" and all(_answer(s) is None for s in log.samples)):
            first = errors[0].message.splitlines()[0][:200] if errors else log.status
            raise InstanceError(f"none of the log's {len(log.samples)} samples has an "
                                f"answer (the run ended with status {log.status}; first "
                                f"error: {first}): nothing to score; run prefcert eval "
                                f"again on its log folder to resume", file=str(f))
        for s in log.samples:
            meta = s.metadata or {}
            if "suite" not in meta or "labels" not in meta:
                raise InstanceError("a sample without prefcert's metadata (not a prefcert "
                                    "task)", file=str(f), value=s.id)
            model = log.eval.model if name is None else name
            key = (model, meta["suite"], str(s.id), s.epoch)
            if key in seen:
                raise InstanceError(f"sample {s.id} (epoch {s.epoch}) of model {model} is "
                                    f"also in {seen[key]}: give each run once, or name the "
                                    f"runs apart (--model once per LOG)", file=str(f))
            seen[key] = str(f)
            rec = {"record": meta, "answer": _answer(s), "model": model,
                   "epoch": s.epoch, "sample_id": s.id, "log": str(f),
                   "log_status": log.status,
                   "timing": {"total_time": s.total_time, "working_time": s.working_time},
                   "tokens": _tokens(s)}
            if (s.store or {}).get(ROUNDS):
                rec["rounds"] = s.store[ROUNDS]
            out.append(rec)
    return out


def unfinished(samples: Sequence[dict]) -> list[str]:
    """One line per log of ``samples`` that did not end in success: its file, its status
    and how many of its samples have no answer (they score as timeouts)."""
    by: dict[str, list[dict]] = {}
    for s in samples:
        if s.get("log_status", "success") != "success":
            by.setdefault(s["log"], []).append(s)
    return [f"{log}: the run ended with status {group[0]['log_status']}; "
            f"{sum(s['answer'] is None for s in group)} of its {len(group)} samples have no "
            f"answer and score as timeouts" for log, group in by.items()]


def score_samples(samples: Sequence[dict]) -> list[dict]:
    """Scored records (``prefcert score``'s) of logged samples, each re-scored with the
    labels it carries, plus ``model``, ``epoch``, ``sample_id``, ``timing``, ``tokens``
    (and ``rounds``). After refinement rounds the entry's ``history`` holds the earlier
    answers, as when the sample was scored (a two-turn episode's final answer is judged
    as the second turn)."""
    from ..design import Entry
    from ..score import score_prompt
    out = []
    for s in samples:
        meta = s["record"]
        history = [r["answer"] for r in (s.get("rounds") or [])[:-1]]
        rec = score_prompt(meta, s["answer"], Entry(meta["labels"], meta["instances"],
                                                    history=history))
        rec.update({k: s[k] for k in ("model", "epoch", "sample_id", "timing", "tokens",
                                      "rounds") if k in s})
        out.append(rec)
    return out


def risk_samples(samples: Sequence[dict]) -> list[dict]:
    """One record per prompt with the verdicts of its epochs (the K samples of
    ``prefcert risk``). InstanceError when the logs hold more than one model."""
    from ..design import Entry
    from ..rational_value_risk.risk import prompt_samples
    models = sorted({s["model"] for s in samples})
    if len(models) > 1:
        raise InstanceError(f"the logs hold several models ({', '.join(models)}): "
                            f"estimate one at a time")
    by: dict[str, list[dict]] = {}
    for s in samples:
        by.setdefault(str(s["record"]["id"]), []).append(s)
    out = []
    for group in by.values():
        meta = group[0]["record"]
        group.sort(key=lambda s: s["epoch"])
        out.append(prompt_samples(meta, Entry(meta["labels"], meta["instances"]),
                                  [s["answer"] for s in group]))
    return sorted(out, key=lambda r: r["id"])
