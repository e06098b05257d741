"""One self-contained HTML page of plots (matplotlib, embedded as inline SVG) and tables.

Any command can build a :class:`Report`, add figures, and write it::

    r = Report("My run", "what this page shows")
    r.bar_chart("Accuracy by size", rows, x="family", hue="size")   # metric rows with CIs
    r.heatmap("Confusion", [[0.2, 0.8]], rows=["HA-SO"], cols=["core", "utilitarian"])
    r.figure("Anything", fig)                                        # a matplotlib figure
    r.table("Metrics", rows)
    r.write("report.html")

Each figure is a ``<figure class="plot" data-title=…>`` holding one ``<svg>`` whose text
is SVG ``<text>`` (matplotlib's ``svg.fonttype = "none"``: searchable, selectable, a
fraction of the size of glyph paths); the page loads no script and no external resource.
Result sets (:mod:`prefcert.bench.results`) are added with :meth:`Report.result_set`; the
same figure is written as a separate SVG file by :func:`result_set_svg`.
"""
from __future__ import annotations

import html
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;
max-width:1100px;color:#222;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.15rem;margin-top:2rem}
figure.plot{margin:1.5rem 0;padding:.5rem;border:1px solid #ddd;border-radius:6px}
figure.plot svg{max-width:100%;height:auto}
figcaption{font-weight:600;margin-bottom:.4rem}
table{border-collapse:collapse;font-size:.85rem}td,th{border:1px solid #ddd;padding:2px 6px}
th{background:#f4f4f4}p.note{color:#555}
"""


SVG_RC = {"svg.hashsalt": "prefcert", "svg.fonttype": "none"}
"""matplotlib settings of every SVG written: fixed element ids (the same figure gives the
same bytes) and text kept as text."""

VERDICT_COLORS = {"correct": "#2e7d32", "incorrect": "#c62828", "invalid": "#ef6c00",
                  "ambiguous": "#6a1b9a", "timeout": "#757575"}
"""The fixed colour of each verdict in every plot: correct green, incorrect red, invalid
orange, ambiguous purple, timeout grey."""


def _plt():
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    return plt


def _label(v: Any) -> str:
    return "—" if v is None else str(v)


def _levels(values, order: Sequence[Any] | None = None) -> list[str]:
    """Distinct levels as labels: in ``order`` where given (others after), else numbers by
    value (50 < 100 < 200), then text, None last (:func:`~prefcert.bench.results.sort_key`)."""
    from .results import sort_key
    raw = list(dict.fromkeys(values))
    rank = {v: i for i, v in enumerate(order or ())}
    raw.sort(key=lambda v: (rank.get(v, len(rank)), sort_key(v)))
    return list(dict.fromkeys(_label(v) for v in raw))


def svg_text(fig, *, prolog: bool = False) -> str:
    """The SVG of a matplotlib figure (closed afterwards), text as ``<text>`` elements
    (:data:`SVG_RC`), no date; without the XML prolog unless ``prolog`` (a file)."""
    plt = _plt()
    buf = io.StringIO()
    with plt.rc_context(SVG_RC):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    svg = buf.getvalue()
    return svg if prolog else svg[svg.index("<svg"):]


def result_set_figure(rs, titled: bool = False):
    """The matplotlib figure of a result set (its ``figure`` function on a fresh axes,
    wide enough for its groups of bars; ``titled``: with the paper's table or figure and
    the set's title above the axes, for a standalone file), or None when it has none."""
    if rs.figure is None:
        return None
    plt = _plt()
    groups = len({tuple(r.get(f) for f in rs.factors) for r in rs.rows})
    fig, ax = plt.subplots(figsize=(min(16.0, max(7.0, 0.45 * groups * max(1, len(rs.models())) ** 0.5 + 3)), 3.8))
    rs.figure(rs, ax)
    if titled:
        ax.set_title(f"{rs.source}: {rs.title}", fontsize=9, loc="left")
    return fig


def result_set_svg(rs) -> str | None:
    """A result set's figure as a standalone SVG file's text (real text, fixed ids), or
    None when it has no figure."""
    fig = result_set_figure(rs, titled=True)
    return None if fig is None else svg_text(fig, prolog=True)


class Report:
    """An HTML page of titled sections: figures (matplotlib) and tables."""

    def __init__(self, title: str, intro: str = ""):
        self.title = title
        self.intro = intro
        self.parts: list[str] = []
        self.plot_titles: list[str] = []
        self.prefix = ""                 # prepended to every title (e.g. a model's name)

    def figure(self, title: str, fig, key: str | None = None) -> None:
        """Add a matplotlib figure (closed afterwards) under ``title``. The SVG carries no
        date, fixed element ids (a set ``svg.hashsalt``) and its text as ``<text>``
        (:data:`SVG_RC`): the same figure gives the same bytes on every run."""
        svg = svg_text(fig)
        title = self.prefix + title
        self.plot_titles.append(title)
        data_key = f' data-key="{html.escape(key)}"' if key else ""
        self.parts.append(f'<figure class="plot" data-title="{html.escape(title)}"{data_key}>'
                          f"<figcaption>{html.escape(title)}</figcaption>{svg}</figure>")

    def bar_chart(self, title: str, rows: Sequence[Mapping[str, Any]], *, x: str,
                  hue: str | None = None, ylabel: str = "share",
                  colors: Mapping[str, str] | None = None) -> None:
        """Grouped bars of metric rows (``group`` dict, ``value``, ``low``, ``high``): one
        group of bars per level of ``x``, one colour per level of ``hue``, Wilson
        intervals as error bars. Levels are in numeric order (50, 100, 200), text after;
        ``colors`` (hue level -> colour) fixes the colours and the order of the hue levels
        (``hue="verdict"`` takes :data:`VERDICT_COLORS` by default)."""
        plt = _plt()
        if colors is None and hue == "verdict":
            colors = VERDICT_COLORS
        rows = [r for r in rows if r.get("value") is not None]
        xs = _levels(r["group"].get(x) for r in rows)
        hs = _levels((r["group"].get(hue) for r in rows), list(colors or ())) if hue else [""]
        fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(xs) * max(1, len(hs)) ** 0.5 + 3), 3.6))
        width = 0.8 / max(1, len(hs))
        for j, h in enumerate(hs):
            pts = [r for r in rows if not hue or _label(r["group"].get(hue)) == h]
            pos, val, err_lo, err_hi = [], [], [], []
            for r in pts:
                i = xs.index(_label(r["group"].get(x)))
                pos.append(i - 0.4 + width * (j + 0.5))
                val.append(r["value"])
                err_lo.append(max(0.0, r["value"] - (r.get("low") if r.get("low") is not None else r["value"])))
                err_hi.append(max(0.0, (r.get("high") if r.get("high") is not None else r["value"]) - r["value"]))
            ax.bar(pos, val, width * 0.95, yerr=[err_lo, err_hi], capsize=2,
                   label=f"{hue} = {h}" if hue else None,
                   color=(colors or {}).get(h))
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(xs, rotation=20 if len(xs) > 4 else 0, ha="right" if len(xs) > 4 else "center")
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(ylabel)
        ax.set_xlabel(x)
        ax.grid(axis="y", alpha=0.3)
        if hue:
            ax.legend(fontsize=8, ncols=min(4, len(hs)), loc="upper left", bbox_to_anchor=(0, -0.18))
        self.figure(title, fig)

    def heatmap(self, title: str, matrix: Sequence[Sequence[float]], *, rows: Sequence[str],
                cols: Sequence[str], note: str = "") -> None:
        """A shares matrix (rows × cols, values in [0, 1]) with the values printed, and a
        note under it: ``note``, and, when a row sums above 1, that its columns are not
        exclusive (one item counted under several columns: e.g. an option that satisfies
        two notions at once) with the row sums — never an unexplained sum of 2.0."""
        plt = _plt()
        sums = [sum(r) for r in matrix]
        over = [(lab, t) for lab, t in zip(rows, sums) if t > 1 + 1e-9]
        if over:
            note = " ".join(x for x in (note, (
                "Rows sum above 1 (" + ", ".join(f"{lab}: {t:.2f}" for lab, t in over)
                + "): the columns are not exclusive — one item counts under every column "
                  "it belongs to (e.g. an option that satisfies several notions at once), "
                  "so each cell is a share of the row's items on its own.")) if x)
        fig, ax = plt.subplots(figsize=(1.1 * len(cols) + 2.5, 0.55 * len(rows) + 1.8))
        im = ax.imshow(matrix, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(cols)))
        ax.set_xticklabels(cols, rotation=30, ha="right")
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels(rows)
        for i, row in enumerate(matrix):
            for j, v in enumerate(row):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center",
                        color="white" if v < 0.6 else "black", fontsize=8)
        fig.colorbar(im, ax=ax, fraction=0.04)
        self.figure(title, fig)
        if note:
            self.parts.append(f'<p class="note">{html.escape(note)}</p>')

    def table(self, title: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """A table of metric rows (group flattened to text), every row (the heading says
        how many: nothing is cut), each metric's rows in numeric order of their group
        levels (sizes 50, 100, 200). ``k/n`` for a share, ``n=…`` for a value that is
        not one (``k`` None)."""
        from .results import sort_key
        rows = list(rows)
        first = {m: i for i, m in reversed(list(enumerate(r["metric"] for r in rows)))}
        rows.sort(key=lambda r: (first[r["metric"]], tuple(
            sort_key(v) for v in r.get("group", {}).values())))
        head = ("<tr><th>metric</th><th>group</th><th>k/n</th><th>value</th>"
                "<th>95 % CI</th></tr>")
        body = []
        for r in rows:
            g = ", ".join(f"{k}={v}" for k, v in r.get("group", {}).items() if v is not None)
            val = "" if r.get("value") is None else f"{r['value']:.3f}"
            ci = f"[{r['low']:.3f}, {r['high']:.3f}]" if r.get("low") is not None else ""
            kn = f"{r['k']}/{r['n']}" if r.get("k") is not None else \
                (f"n={r['n']}" if r.get("n") is not None else "")
            body.append(f"<tr><td>{html.escape(r['metric'])}</td><td>{html.escape(g)}</td>"
                        f"<td>{kn}</td><td>{val}</td><td>{ci}</td></tr>")
        count = f'<p class="note">All {len(rows):,} rows.</p>'
        self.parts.append(f"<h2>{html.escape(self.prefix + title)}</h2>{count}<table>{head}"
                          f"{''.join(body)}</table>")

    def grid(self, title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]],
             note: str = "") -> None:
        """A plain table: ``columns`` headers, ``rows`` of cells (as the terminal prints
        them: :func:`~prefcert.bench.results.value_text`), and an optional note under the
        title."""
        from .results import value_text
        head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(value_text(v))}</td>" for v in r) + "</tr>" for r in rows)
        extra = f'<p class="note">{html.escape(note)}</p>' if note else ""
        self.parts.append(f"<h2>{html.escape(self.prefix + title)}</h2>{extra}<table><tr>{head}</tr>{body}</table>")

    def result_set(self, rs) -> None:
        """Add a :class:`~prefcert.bench.results.ResultSet`: its figure (when it has one),
        titled with the paper's table or figure, then its pivoted table (models as
        columns) with its test and note."""
        from .results import estimate_text, pivot
        title = f"{rs.source}: {rs.title}"
        fig = result_set_figure(rs)
        if fig is not None:
            self.figure(title, fig, key=rs.key)
        cols, rows = pivot(rs, estimate_text)
        self.grid(f"{title} ({rs.value})", cols, rows,
                  note=" ".join(x for x in (rs.test, rs.note) if x))

    def html(self) -> str:
        return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{html.escape(self.title)}</title><style>{STYLE}</style></head><body>"
                f"<h1>{html.escape(self.title)}</h1><p class=\"note\">{html.escape(self.intro)}</p>"
                + "".join(self.parts) + "</body></html>\n")

    def write(self, path: str | Path) -> None:
        """Write the page to ``path`` atomically (:func:`prefcert.output.write_text`);
        InstanceError naming it when it cannot be written."""
        from ..output import write_text
        write_text(path, self.html())


def suite_results(scores: Sequence[dict]) -> list:
    """The result sets (:class:`~prefcert.bench.results.ResultSet`) of every suite present
    in ``scores`` (scored records of any number of models), from each suite's ``results``
    hook, suites in first-seen order; a suite without the hook gives none."""
    from .suites import suite
    out: list = []
    for name in dict.fromkeys(s["suite"] for s in scores):
        hook = suite(name).results
        if hook is not None:
            out += hook([s for s in scores if s["suite"] == name])
    return out


def scores_report(scores: Sequence[dict], title: str = "prefcert benchmark report",
                  result_sets: Sequence | None = None) -> Report:
    """The report of ``prefcert report``: each suite's result sets (the papers' tables
    and figures, models side by side; ``result_sets`` when already computed), the verdict
    shares per suite and model, each suite's plots (once per model when there are
    several: the plots hooks pool their records), then the metric table of every model
    (all rows)."""
    from .design import VERDICTS
    from .results import by_model
    from .score import metrics
    from .stats import proportion
    from .suites import suite
    suites = list(dict.fromkeys(s["suite"] for s in scores))
    models = by_model(scores)
    import datetime

    import prefcert
    made = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    r = Report(title, f"{len(scores)} scored answers of {len(models)} model(s) "
                      f"({', '.join(models)}) on {', '.join(suites)}; prefcert "
                      f"{prefcert.__version__}, generated {made}; bars show 95 % Wilson "
                      f"intervals over instances (one draw per prompt).")
    for rs in (suite_results(scores) if result_sets is None else result_sets):
        r.result_set(rs)
    shares = []
    for model, recs in models.items():
        for name in suites:
            mine = [s for s in recs if s["suite"] == name]
            where = name if len(models) == 1 else f"{name} / {model}"
            for v in VERDICTS:
                shares.append(proportion("share", {"suite": where, "verdict": v},
                                         sum(1 for s in mine if s["verdict"] == v), len(mine)))
    r.bar_chart("Verdicts", shares, x="suite", hue="verdict", colors=VERDICT_COLORS)
    for model, recs in models.items():
        r.prefix = "" if len(models) == 1 else f"[{model}] "
        for name in suites:
            s = suite(name)
            mine = [x for x in recs if x["suite"] == name]
            if s.plots is not None and mine:
                s.plots(mine, r)
    r.prefix = ""
    rows = []
    for model, recs in models.items():
        for m in metrics(recs):
            rows.append(m if len(models) == 1 else
                        {**m, "group": {"model": model, **m.get("group", {})}})
    r.table("Metrics", rows)
    return r


def load_scores(path: str | Path) -> list[dict]:
    """The records of a ``prefcert score -o`` file; InstanceError naming the first line that
    is not a scored record (e.g. a prompts or answers file given by mistake)."""
    return [r for _, r in numbered_scores(path)]


def numbered_scores(path: str | Path) -> list[tuple[int, dict]]:
    """(line, record) for the records of a ``prefcert score -o`` file, as
    :func:`load_scores` reads them."""
    from ..formal.errors import InstanceError
    from .design import VERDICTS
    from .generate import numbered_jsonl
    from .suites import SUITES
    numbered = numbered_jsonl(path)
    for n, r in numbered:
        missing = [k for k in ("suite", "verdict") if not isinstance(r, dict) or k not in r]
        if missing:
            raise InstanceError(f"not a scores file (from prefcert score -o): no {missing[0]!r}",
                                file=str(path), line=n)
        if not isinstance(r["suite"], str) or r["suite"] not in SUITES:
            raise InstanceError(f"unknown suite (known: {', '.join(sorted(SUITES))})",
                                file=str(path), line=n, value=r["suite"])
        if not isinstance(r["verdict"], str) or r["verdict"] not in VERDICTS:
            raise InstanceError(f"unknown verdict (known: {', '.join(VERDICTS)})",
                                file=str(path), line=n, value=r["verdict"])
        if not isinstance(r.get("cell"), dict):
            raise InstanceError("a scored record's 'cell' is an object of its factors",
                                file=str(path), line=n, value=r.get("cell"))
    return numbered


#: what a suite's result sets raise on a scored record whose fields are not those
#: ``prefcert score`` writes (a hand-edited or foreign file)
NOT_SCORED = (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError)


def unscored_record(rows: Sequence[dict], origins: Sequence[tuple[str, int] | None],
                    title: str = "prefcert benchmark report") -> Exception | None:
    """The InstanceError naming the file and line (``origins``, aligned with ``rows``;
    None for a record scored here from a log) of the first record read from a file whose
    own report raises one of :data:`NOT_SCORED`; None when no such record does (then the
    fault is prefcert's, and its traceback is kept). O(records × one record's report)."""
    from ..formal.errors import InstanceError
    for row, origin in zip(rows, origins):
        if origin is None:
            continue
        try:
            scores_report([row], title, result_sets=suite_results([row]))
        except NOT_SCORED as e:
            return InstanceError(f"a scored record that prefcert score did not write (a "
                                 f"field of its suite is missing or of another type: "
                                 f"{e.__class__.__name__})", file=origin[0], line=origin[1],
                                 value=e.args[0] if e.args else None)
    return None


def _dumps(x) -> str:          # pragma: no cover - debugging helper
    return json.dumps(x, indent=1)
