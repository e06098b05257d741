"""One self-contained HTML page of plots (matplotlib, embedded as inline SVG) and tables.

Any command can build a :class:`Report`, add figures, and write it::

    r = Report("My run", "what this page shows")
    r.bar_chart("Accuracy by size", rows, x="family", hue="size")   # metric rows with CIs
    r.heatmap("Confusion", [[0.2, 0.8]], rows=["HA-SO"], cols=["core", "utilitarian"])
    r.figure("Anything", fig)                                        # a matplotlib figure
    r.table("Metrics", rows)
    r.write("report.html")

Each figure is a ``<figure class="plot" data-title=…>`` holding one ``<svg>``; the page
loads no script and no external resource.
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


def _plt():
    import matplotlib
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    return plt


def _label(v: Any) -> str:
    return "—" if v is None else str(v)


class Report:
    """An HTML page of titled sections: figures (matplotlib) and tables."""

    def __init__(self, title: str, intro: str = ""):
        self.title = title
        self.intro = intro
        self.parts: list[str] = []
        self.plot_titles: list[str] = []

    def figure(self, title: str, fig) -> None:
        """Add a matplotlib figure (closed afterwards) under ``title``. The SVG carries no
        date and fixed element ids (a set ``svg.hashsalt``): the same figure gives the
        same bytes on every run."""
        plt = _plt()
        buf = io.StringIO()
        with plt.rc_context({"svg.hashsalt": "prefcert"}):
            fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
        plt.close(fig)
        svg = buf.getvalue()
        svg = svg[svg.index("<svg"):]                        # drop the XML prolog
        self.plot_titles.append(title)
        self.parts.append(f'<figure class="plot" data-title="{html.escape(title)}">'
                          f"<figcaption>{html.escape(title)}</figcaption>{svg}</figure>")

    def bar_chart(self, title: str, rows: Sequence[Mapping[str, Any]], *, x: str,
                  hue: str | None = None, ylabel: str = "share") -> None:
        """Grouped bars of metric rows (``group`` dict, ``value``, ``low``, ``high``): one
        group of bars per level of ``x``, one colour per level of ``hue``, Wilson
        intervals as error bars."""
        plt = _plt()
        rows = [r for r in rows if r.get("value") is not None]
        xs = sorted({_label(r["group"].get(x)) for r in rows})
        hs = sorted({_label(r["group"].get(hue)) for r in rows}) if hue else [""]
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
                   label=f"{hue} = {h}" if hue else None)
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(xs, rotation=20 if len(xs) > 4 else 0, ha="right" if len(xs) > 4 else "center")
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
        if hue:
            ax.legend(fontsize=8, ncols=min(4, len(hs)), loc="upper left", bbox_to_anchor=(0, -0.18))
        self.figure(title, fig)

    def heatmap(self, title: str, matrix: Sequence[Sequence[float]], *, rows: Sequence[str],
                cols: Sequence[str]) -> None:
        """A shares matrix (rows × cols, values in [0, 1]) with the values printed."""
        plt = _plt()
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

    def table(self, title: str, rows: Sequence[Mapping[str, Any]], limit: int = 400) -> None:
        """A table of metric rows (group flattened to text)."""
        head = "<tr><th>metric</th><th>group</th><th>k/n</th><th>value</th><th>95 % CI</th></tr>"
        body = []
        for r in list(rows)[:limit]:
            g = ", ".join(f"{k}={v}" for k, v in r.get("group", {}).items() if v is not None)
            val = "" if r.get("value") is None else f"{r['value']:.3f}"
            ci = f"[{r['low']:.3f}, {r['high']:.3f}]" if r.get("low") is not None else ""
            kn = f"{r['k']}/{r['n']}" if "k" in r else f"n={r.get('n', '')}"
            body.append(f"<tr><td>{html.escape(r['metric'])}</td><td>{html.escape(g)}</td>"
                        f"<td>{kn}</td><td>{val}</td><td>{ci}</td></tr>")
        self.parts.append(f"<h2>{html.escape(title)}</h2><table>{head}{''.join(body)}</table>")

    def grid(self, title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]],
             note: str = "") -> None:
        """A plain table: ``columns`` headers, ``rows`` of cells (floats shown to three
        significant decimals, None as —), and an optional note under the title."""
        def cell(v):
            if v is None:
                return "—"
            if isinstance(v, float):
                return f"{v:.3g}" if abs(v) < 1e-3 and v else f"{v:,.3f}".rstrip("0").rstrip(".")
            return html.escape(str(v))
        head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
        body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in r) + "</tr>" for r in rows)
        extra = f'<p class="note">{html.escape(note)}</p>' if note else ""
        self.parts.append(f"<h2>{html.escape(title)}</h2>{extra}<table><tr>{head}</tr>{body}</table>")

    def result_set(self, rs) -> None:
        """Add a :class:`~prefcert.bench.results.ResultSet`: its figure (when it has one),
        titled with the paper's table or figure, then its pivoted table (models as
        columns) with its test and note."""
        from .results import pivot
        title = f"{rs.source}: {rs.title}"
        if rs.figure is not None:
            plt = _plt()
            fig, ax = plt.subplots(figsize=(7.0, 3.8))
            rs.figure(rs, ax)
            self.figure(title, fig)
        cols, rows = pivot(rs)
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


def scores_report(scores: Sequence[dict], title: str = "prefcert benchmark report") -> Report:
    """The report of ``prefcert report``: verdict shares per suite, then each suite's plots,
    then its metric table."""
    from .design import VERDICTS
    from .score import metrics
    from .suites import suite
    from .stats import proportion
    suites = list(dict.fromkeys(s["suite"] for s in scores))
    r = Report(title, f"{len(scores)} scored answers ({', '.join(suites)}); bars show 95 % "
                      f"Wilson intervals over instances (one draw per prompt).")
    shares = []
    for name in suites:
        mine = [s for s in scores if s["suite"] == name]
        for v in VERDICTS:
            shares.append(proportion("share", {"suite": name, "verdict": v},
                                     sum(1 for s in mine if s["verdict"] == v), len(mine)))
    r.bar_chart("Verdicts", shares, x="suite", hue="verdict")
    for name in suites:
        s = suite(name)
        mine = [x for x in scores if x["suite"] == name]
        if s.plots is not None:
            s.plots(mine, r)
    r.table("Metrics", metrics(scores))
    return r


def load_scores(path: str | Path) -> list[dict]:
    """The records of a ``prefcert score -o`` file; InstanceError naming the first line that
    is not a scored record (e.g. a prompts or answers file given by mistake)."""
    from ..formal.errors import InstanceError
    from .generate import read_jsonl
    from .suites import SUITES
    rows = read_jsonl(path)
    for n, r in enumerate(rows, 1):
        missing = [k for k in ("suite", "verdict") if not isinstance(r, dict) or k not in r]
        if missing:
            raise InstanceError(f"not a scores file (from prefcert score -o): no {missing[0]!r}",
                                file=str(path), line=n)
        if r["suite"] not in SUITES:
            raise InstanceError(f"unknown suite (known: {', '.join(sorted(SUITES))})",
                                file=str(path), line=n, value=r["suite"])
    return rows


def _dumps(x) -> str:          # pragma: no cover - debugging helper
    return json.dumps(x, indent=1)
