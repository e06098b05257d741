"""Result sets: one paper table or figure, computed from scored records of any number of
models.

A :class:`ResultSet` is long-format data: each row is one estimate (``value``, with ``k`` /
``n`` and an interval where it is a share) at one combination of the set's ``factors``, for
one ``model``. The terminal shows it pivoted with the models as columns
(:func:`pivot`), the JSON output is :meth:`ResultSet.as_dict`, and the HTML page draws
``figure`` (also written as a separate SVG file with real text, for a paper).

A suite provides its result sets through its ``results(scores) -> list[ResultSet]`` hook
(:class:`~prefcert.bench.design.Suite`); the audits of ``prefcert consistency`` and
``prefcert risk`` build theirs the same way. Every comparison a result set makes says its
test, its pairing and its multiplicity in ``test``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

MODEL = "model"
"""The field naming the model that wrote an answer, in every scored record and result row."""

UNNAMED_MODEL = "model"
"""The model name given to records that carry none (one model's answers, scored with no
``--model``)."""


@dataclass
class ResultSet:
    """One paper table or figure, reproduced.

    Parameters
    ----------
    key : str
        Stable identifier, used for file names and JSON, e.g. ``"kw-fig2a"``.
    source : str
        The paper's table or figure this reproduces, e.g. ``"Khanna & Wang (2025), Fig. 2a"``.
    title : str
        What the rows measure, in words.
    factors : list of str
        The row fields that identify an estimate, besides ``model`` (e.g. ``["family",
        "size"]``); the terminal table has one row per combination, in the order given.
    rows : list of dict
        One per (factors, model): the factor values, ``model``, ``value`` (float or None)
        and, where it applies, ``k``, ``n``, ``low``, ``high`` and further named numbers.
    value : str
        What ``value`` is (``"accuracy"``, ``"FC"``, ``"RVR"`` …).
    test : str
        For a comparison: the test, its pairing and its multiplicity adjustment; ``""``
        for a set that only estimates.
    note : str
        Readings chosen and anything a reader must know (e.g. why shares sum above 1).
    figure : callable, optional
        ``figure(result_set, ax)`` draws the set on a matplotlib axes; None for a table only.
    """

    key: str
    source: str
    title: str
    factors: list[str]
    rows: list[dict]
    value: str = "value"
    test: str = ""
    note: str = ""
    figure: Callable[[ResultSet, Any], None] | None = field(default=None, repr=False)

    def models(self) -> list[str]:
        """The models of the rows, in first-seen order."""
        return list(dict.fromkeys(str(r[MODEL]) for r in self.rows))

    def as_dict(self) -> dict:
        """The JSON form: every field but ``figure``."""
        return {"key": self.key, "source": self.source, "title": self.title,
                "factors": list(self.factors), "value": self.value, "test": self.test,
                "note": self.note, "rows": [dict(r) for r in self.rows]}


def sort_key(v: Any) -> tuple:
    """Order factor levels as a reader expects: numbers by value (10 < 30 < 100), then
    text, None last."""
    if v is None:
        return (2, 0, "")
    if isinstance(v, bool):
        return (1, 0, str(v))
    if isinstance(v, (int, float)):
        return (0, float(v), "")
    return (1, 0, str(v))


def pivot(rs: ResultSet, cell: Callable[[Mapping[str, Any] | None], Any] | None = None
          ) -> tuple[list[str], list[list[Any]]]:
    """The set as a table with one row per combination of its factors (sorted by
    :func:`sort_key`) and one column per model: ``(columns, rows)``. A model's cell is
    ``cell(row)`` of its result row (None where it has none); by default the row's
    ``value`` (None for a missing estimate). O(rows log rows)."""
    models = rs.models()
    cells: dict[tuple, dict[str, Any]] = {}
    for r in rs.rows:
        key = tuple(r.get(f) for f in rs.factors)
        cells.setdefault(key, {})[str(r[MODEL])] = r
    pick = cell or (lambda r: None if r is None else r.get("value"))
    keys = sorted(cells, key=lambda t: tuple(sort_key(v) for v in t))
    return ([*rs.factors, *models],
            [[*k, *(pick(cells[k].get(m)) for m in models)] for k in keys])


def by_model(scores: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """Scored records grouped by ``model`` (records with none under :data:`UNNAMED_MODEL`),
    in first-seen order."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    for s in scores:
        out.setdefault(str(s.get(MODEL) or UNNAMED_MODEL), []).append(s)
    return out


def value_text(v: Any) -> str:
    """A table cell as the terminal and the report print it: a float to three decimals
    (three significant digits below 0.001), None as —."""
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.3g}" if v and abs(v) < 1e-3 else f"{v:.3f}"
    return str(v)


def estimate_text(row: Mapping[str, Any] | None) -> str:
    """A result row's estimate as a table shows it: its ``value`` (:func:`value_text`),
    followed by ``(k/n)`` when the row counts its successes ``k`` of ``n`` (so that 1/1
    is not read as 100/100); — for no row or no value."""
    if row is None or row.get("value") is None:
        return "—"
    text = value_text(row["value"])
    k, n = row.get("k"), row.get("n")
    if isinstance(k, int) and isinstance(n, int) and not isinstance(k, bool):
        text += f" ({k}/{n})"
    return text


def print_result_set(console: Any, rs: ResultSet) -> None:
    """Print ``rs`` on a rich console: a title naming the paper's table or figure, one row
    per factor combination, the models as columns, then its test and note. Every row is
    printed (nothing is cut)."""
    from rich.table import Table
    cols, rows = pivot(rs, estimate_text)
    console.print(f"[bold]{rs.source}[/bold] — {rs.title} ({rs.value}) \\[{rs.key}]",
                  highlight=False)
    t = Table()
    for i, c in enumerate(cols):
        t.add_column(c, justify="right" if i >= len(rs.factors) else "left")
    for r in rows:
        t.add_row(*(value_text(v) for v in r))
    console.print(t)
    for line in (rs.test, rs.note):
        if line:
            console.print(f"  {line}")


def share_rows(scores: Sequence[Mapping[str, Any]], factors: Sequence[str],
               levels: Callable[[Mapping[str, Any]], tuple | None],
               success: Callable[[Mapping[str, Any]], bool]) -> list[dict]:
    """Long-format share rows of a result set: for every model and every combination of
    ``factors`` (``levels(record)``, a tuple of one level per factor; None leaves the record
    out), ``k`` = the records for which ``success(record)`` holds, ``n`` = the records,
    ``value`` = k / n and its 95 % Wilson interval ``low`` / ``high`` (Wilson 1927;
    :func:`prefcert.bench.stats.wilson`).

    Parameters
    ----------
    scores : sequence of dict
        Scored records of any number of models (``model``; none: :data:`UNNAMED_MODEL`).
    factors : sequence of str
        The names of the levels ``levels`` returns, in order.
    levels : callable
        record -> tuple of levels (one per factor), or None to leave the record out.
    success : callable
        record -> whether it counts in ``k``.

    Returns
    -------
    list of dict
        One row per (model, levels) seen, models in first-seen order, levels sorted by
        :func:`sort_key`. O(R log R) for R records.
    """
    from .stats import wilson
    counts: dict[tuple, list[int]] = {}
    for model, recs in by_model(scores).items():
        for s in recs:
            lv = levels(s)
            if lv is None:
                continue
            c = counts.setdefault((model, tuple(lv)), [0, 0])
            c[0] += 1 if success(s) else 0
            c[1] += 1
    order = {m: i for i, m in enumerate(by_model(scores))}
    out = []
    for (model, lv), (k, n) in sorted(counts.items(), key=lambda kv: (
            order[kv[0][0]], tuple(sort_key(v) for v in kv[0][1]))):
        ci = wilson(k, n)
        out.append({**dict(zip(factors, lv)), MODEL: model, "value": k / n if n else None,
                    "k": k, "n": n, "low": ci[0] if ci else None,
                    "high": ci[1] if ci else None})
    return out


def level_label(rs: ResultSet, row: Mapping[str, Any], factors: Sequence[str] | None = None
                ) -> str:
    """The text naming a row's factor levels (``atomic / 50``; None shown as —)."""
    fs = rs.factors if factors is None else factors
    return " / ".join("—" if row.get(f) is None else str(row.get(f)) for f in fs)


def model_bars(rs: ResultSet, ax: Any, *, ylabel: str | None = None,
               ylim: tuple[float, float] | None = (0.0, 1.05)) -> None:
    """The default figure of a result set: one group of bars per combination of its
    factors (in :func:`pivot` order), one bar per model, the Wilson interval (``low`` /
    ``high``) as an error bar where the row has one. Axis labels name the factors and
    ``value``. O(rows)."""
    models = rs.models()
    keys = sorted({tuple(r.get(f) for f in rs.factors) for r in rs.rows},
                  key=lambda t: tuple(sort_key(v) for v in t))
    width = 0.8 / max(1, len(models))
    for j, m in enumerate(models):
        pos, val, lo, hi = [], [], [], []
        for r in rs.rows:
            if str(r[MODEL]) != m or r.get("value") is None:
                continue
            i = keys.index(tuple(r.get(f) for f in rs.factors))
            v = float(r["value"])
            pos.append(i - 0.4 + width * (j + 0.5))
            val.append(v)
            lo.append(max(0.0, v - r["low"]) if r.get("low") is not None else 0.0)
            hi.append(max(0.0, r["high"] - v) if r.get("high") is not None else 0.0)
        ax.bar(pos, val, width * 0.95, yerr=[lo, hi], capsize=2, label=m)
    labels = [" / ".join("—" if v is None else str(v) for v in k) for k in keys]
    ax.set_xticks(range(len(keys)))
    tilt = len(keys) > 4 or max((len(x) for x in labels), default=0) > 12
    ax.set_xticklabels(labels, rotation=30 if tilt else 0, ha="right" if tilt else "center",
                       fontsize=8)
    ax.set_xlabel(" / ".join(rs.factors))
    ax.set_ylabel(ylabel or rs.value)
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(title=MODEL, fontsize=8, title_fontsize=8, loc="upper left",
              bbox_to_anchor=(1.01, 1.0))


def doubling_axis(ax: Any, xs: Sequence[Any], xlabel: str, ylabel: str,
                  legend_title: str | None = None) -> None:
    """Axes of a sweep over doubling values (budgets k, votes n, prompts M, path lengths):
    a base-2 log x axis ticked at exactly ``xs`` (their set, sorted), the axis labels, a
    light grid and a small legend (titled ``legend_title`` if given). O(len(xs))."""
    ticks = sorted(set(xs))
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(x) for x in ticks])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    if legend_title is None:
        ax.legend(fontsize=7)
    else:
        ax.legend(fontsize=7, title=legend_title, title_fontsize=7)

def category_rows(scores: Sequence[Mapping[str, Any]], factors: Sequence[str],
                  levels: Callable[[Mapping[str, Any]], tuple | None],
                  category: Callable[[Mapping[str, Any]], str], name: str = "category",
                  categories: Sequence[str] | None = None) -> list[dict]:
    """Long-format rows of a distribution: for every model and combination of ``factors``
    (``levels(record)``; None leaves the record out), one row per category ``c`` with
    ``k`` = the records whose ``category(record)`` is ``c``, ``n`` = all the records of
    that (model, levels), ``value`` = k / n and its 95 % Wilson interval. The categories of
    one (model, levels) are exclusive, so their shares sum to 1. ``categories`` lists the
    categories shown with k = 0 when absent (and their order); others seen are added.

    Returns
    -------
    list of dict
        Rows with the factors, ``name`` (the category), ``model``, ``value``, ``k``,
        ``n``, ``low``, ``high``. O(R log R) for R records (Wilson 1927).
    """
    from .stats import wilson
    groups: dict[tuple, dict[str, int]] = {}
    seen = list(categories or ())
    for model, recs in by_model(scores).items():
        for s in recs:
            lv = levels(s)
            if lv is None:
                continue
            c = category(s)
            if c not in seen:
                seen.append(c)
            g = groups.setdefault((model, tuple(lv)), {})
            g[c] = g.get(c, 0) + 1
    order = {m: i for i, m in enumerate(by_model(scores))}
    out = []
    for (model, lv), g in sorted(groups.items(), key=lambda kv: (
            order[kv[0][0]], tuple(sort_key(v) for v in kv[0][1]))):
        n = sum(g.values())
        for c in seen:
            k = g.get(c, 0)
            ci = wilson(k, n)
            out.append({**dict(zip(factors, lv)), name: c, MODEL: model, "value": k / n,
                        "k": k, "n": n, "low": ci[0] if ci else None,
                        "high": ci[1] if ci else None})
    return out
