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


def pivot(rs: ResultSet) -> tuple[list[str], list[list[Any]]]:
    """The set as a table with one row per combination of its factors (sorted by
    :func:`sort_key`) and one value column per model: ``(columns, rows)``. A missing
    estimate is None."""
    models = rs.models()
    cells: dict[tuple, dict[str, Any]] = {}
    for r in rs.rows:
        key = tuple(r.get(f) for f in rs.factors)
        cells.setdefault(key, {})[str(r[MODEL])] = r.get("value")
    keys = sorted(cells, key=lambda t: tuple(sort_key(v) for v in t))
    return ([*rs.factors, *models],
            [[*k, *(cells[k].get(m) for m in models)] for k in keys])


def by_model(scores: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """Scored records grouped by ``model`` (records with none under :data:`UNNAMED_MODEL`),
    in first-seen order."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    for s in scores:
        out.setdefault(str(s.get(MODEL) or UNNAMED_MODEL), []).append(s)
    return out


def _cell(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.3g}" if v and abs(v) < 1e-3 else f"{v:.3f}"
    return str(v)


def print_result_set(console: Any, rs: ResultSet) -> None:
    """Print ``rs`` on a rich console: a title naming the paper's table or figure, one row
    per factor combination, the models as columns, then its test and note. Every row is
    printed (nothing is cut)."""
    from rich.table import Table
    cols, rows = pivot(rs)
    t = Table(title=f"{rs.source} — {rs.title} ({rs.value})", title_justify="left")
    for i, c in enumerate(cols):
        t.add_column(c, justify="right" if i >= len(rs.factors) else "left")
    for r in rows:
        t.add_row(*(_cell(v) for v in r))
    console.print(t)
    for line in (rs.test, rs.note):
        if line:
            console.print(f"  {line}")
