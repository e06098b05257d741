"""The result sets of ``indeterminacy-algorithmic``: the tables and figures of Khanna & Wang
(2026, §4–5, App. I–J) on the matching and allocation tasks, computed from the scored
records of any number of models (:class:`~prefcert.bench.results.ResultSet`, one row per
factor combination and model).

- ``kw-table20``: hard-notion generation, accuracy by notion × n × E / NE × hatch, with the
  invalid-solution share (E rows) and the timeout count beside it; n = 10 and 30 apart.
- ``kw-fig13``: hard-notion selection accuracy by notion × n × E / NE, with / without NOTA.
- ``kw-table23``: the share of NOTA selections on feasible and infeasible menus.
- ``kw-fig5a`` / ``kw-fig5b``: the error on feasible against the error on infeasible
  instances (generation / selection), per hatch and n, pooled over the three notions.
- ``kw-fig6``: refinement curves, the share correct within r attempts.
- ``kw-fig9``: per-notion accuracy under strict complete preferences (heatmap).
- ``kw-fig10`` / ``kw-fig11``: accuracy deltas SI − SO (house allocation) and ties − strict.
- ``kw-table21``: pairwise exact McNemar tests between models on a chosen subset
  (:data:`SUBSETS`), paired on prompt ids, Holm-adjusted over the pairs.
- ``kw-alg-table22`` / ``kw-alg-table22-cells``: the interval-overlap criterion of Table 22
  applied to this suite's format contrast, generation vs selection of the same instances.
- ``kw-table29``: the code-assisted design (``--param tools=code``): accuracy by market ×
  n × feasible / infeasible (App. N); its records feed no other set.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from ..results import MODEL, ResultSet, by_model, sort_key
from ..stats import adjusted_pvalues, fisher_exact, mcnemar_exact, wilson

PAPER = "Khanna & Wang (2026)"
Record = Mapping[str, Any]


# ----------------------------------------------------------------------------- helpers

def share(k: int, n: int) -> dict:
    """``{"value", "k", "n", "low", "high"}``: the share k / n with its 95 % Wilson
    interval (value and interval None when n = 0)."""
    ci = wilson(k, n)
    return {"value": k / n if n else None, "k": int(k), "n": int(n),
            "low": ci[0] if ci else None, "high": ci[1] if ci else None}


def _cell(s: Record) -> Mapping[str, Any]:
    return s.get("cell") or {}


def _hard(s: Record, task: str | None = None) -> bool:
    c = _cell(s)
    return c.get("design") == "hard" and (task is None or c.get("task") == task)


def existence(s: Record) -> str:
    """``E`` (a solution exists) or ``NE`` (none does), the paper's row labels."""
    return "E" if _cell(s).get("feasible", True) else "NE"


def hatch(s: Record) -> str:
    """The escape option of a hard prompt as the paper names it: ``with {}`` /
    ``without {}`` (generation), ``with NOTA`` / ``without NOTA`` (selection)."""
    c = _cell(s)
    what = "NOTA" if c.get("task") == "selection" else "{}"
    return f"{'with' if c.get('escape', True) else 'without'} {what}"


def _correct(s: Record) -> bool:
    return s.get("verdict") == "correct"


def _shares(scores: Sequence[Record], factors: Sequence[str],
            key: Callable[[Record], tuple | None],
            success: Callable[[Record], bool] = _correct) -> list[dict]:
    """One share row per (key, model): ``success`` over the records whose ``key`` is not
    None, grouped by it."""
    rows = []
    for model, ss in by_model(scores).items():
        cells: dict[tuple, list[int]] = {}
        for s in ss:
            kv = key(s)
            if kv is None:
                continue
            c = cells.setdefault(kv, [0, 0])
            c[0] += bool(success(s))
            c[1] += 1
        for kv, (k, n) in cells.items():
            rows.append({**dict(zip(factors, kv)), MODEL: model, **share(k, n)})
    return rows


def _levels(rows: Iterable[Mapping[str, Any]], factors: Sequence[str]) -> list[tuple]:
    keys = {tuple(r.get(f) for f in factors) for r in rows}
    return sorted(keys, key=lambda t: tuple(sort_key(v) for v in t))


def _find(rows: Sequence[Mapping[str, Any]], model: str, **where: Any) -> dict | None:
    for r in rows:
        if r[MODEL] == model and all(r.get(k) == v for k, v in where.items()):
            return dict(r)
    return None


def _label(v: Any) -> str:
    return str(v).replace("_", " ")


# ----------------------------------------------------------------------------- Table 20

def table20(scores: Sequence[Record]) -> ResultSet:
    """Table 20 (Khanna & Wang 2026, App. I.4): hard-notion generation accuracy per model,
    notion, n, existence (E / NE) and hatch, n = 10 and 30 kept apart. Each cell has three
    ``measure`` rows: ``accuracy`` (k / n with its Wilson interval), on E rows ``invalid
    solution`` (the bracket: the share of responses that are neither a timeout nor a valid
    one-to-one outcome — verdict ``invalid`` or ``{}`` on a feasible instance) and
    ``timeouts`` (the count; the paper's ∗ marks a cell with at least one, counted
    incorrect). O(records).

    Parameters
    ----------
    scores : sequence of dict
        Scored records (``prefcert score`` / Inspect logs) of any number of models;
        ``model`` names each (missing: :data:`~prefcert.bench.results.UNNAMED_MODEL`).

    Returns
    -------
    ResultSet
    """
    factors = ["notion", "size", "existence", "hatch", "measure"]
    rows: list[dict] = []
    for model, ss in by_model(scores).items():
        cells: dict[tuple, list[Record]] = {}
        for s in ss:
            if _hard(s, "generation"):
                c = _cell(s)
                cells.setdefault((c.get("notion"), c.get("size"), existence(s), hatch(s)),
                                 []).append(s)
        for key, group in cells.items():
            base = {**dict(zip(factors, key)), MODEL: model}
            n = len(group)
            rows.append({**base, "measure": "accuracy",
                         **share(sum(map(_correct, group)), n)})
            if key[2] == "E":
                bad = sum(1 for s in group if s.get("verdict") == "invalid"
                          or bool(s.get("invalid_solution")))
                rows.append({**base, "measure": "invalid solution", **share(bad, n)})
            t = sum(1 for s in group if s.get("verdict") == "timeout")
            rows.append({**base, "measure": "timeouts", "value": t, "k": t, "n": n})
    return ResultSet(
        "kw-table20", f"{PAPER}, Table 20",
        "Hard notions, generation: accuracy by notion, n, E / NE and hatch, with the "
        "invalid-solution share and the timeouts", factors, rows,
        value="share (timeouts: count)", test="",
        note="n = 10 and n = 30 are separate rows (the paper's point is the drop between "
             "them). Accuracy follows the paper's scoring: NE with {} is correct only for "
             "{}; NE without {} for any non-timeout answer that is not a valid outcome. "
             "The invalid-solution share is over all responses of the cell (timeouts "
             "included in the denominator, so it sits beside accuracy on one base; the "
             "suite metric invalid_solution_rate leaves timeouts out); it is shown on E "
             "rows only, as in the paper. Timeouts are counted incorrect.",
        figure=_fig_table20)


HATCH_PATTERNS = ("", "//", "..", "xx", "\\\\", "oo")


def _grouped_bars(ax, rows: Sequence[Mapping[str, Any]], models: Sequence[str],
                  groups: Sequence[tuple], conds: Sequence[tuple], group_of, cond_of,
                  mark: Callable[[Mapping[str, Any]], str] | None = None,
                  group_label: Callable[[tuple], str] | None = None) -> None:
    """Bars: one cluster per group, within it one run per condition (hatch pattern), one
    bar per model (colour); Wilson intervals as error bars."""
    from matplotlib.patches import Patch
    width = 0.8 / max(1, len(conds) * len(models))
    for r in rows:
        if r.get("value") is None:
            continue
        gi, ci, mi = groups.index(group_of(r)), conds.index(cond_of(r)), models.index(r[MODEL])
        x = gi - 0.4 + width * (ci * len(models) + mi + 0.5)
        err = None
        if r.get("low") is not None:
            err = [[r["value"] - r["low"]], [r["high"] - r["value"]]]
        ax.bar(x, r["value"], width, yerr=err, color=f"C{mi}", edgecolor="black",
               linewidth=0.3, hatch=HATCH_PATTERNS[ci % len(HATCH_PATTERNS)],
               error_kw={"elinewidth": 0.6})
        if mark is not None and mark(r):
            ax.text(x, min(1.05, (r.get("high") or r["value"]) + 0.02), mark(r),
                    ha="center", va="bottom", fontsize=7)
    handles = [Patch(facecolor=f"C{i}", label=m) for i, m in enumerate(models)]
    handles += [Patch(facecolor="white", edgecolor="black", label=" ".join(map(str, c)),
                      hatch=HATCH_PATTERNS[i % len(HATCH_PATTERNS)])
                for i, c in enumerate(conds) if any(map(str, c))]
    ax.legend(handles=handles, fontsize=7, frameon=False, loc="upper left",
              bbox_to_anchor=(1.0, 1.0))
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([(group_label or (lambda g: f"{_label(g[0])}\nn = {g[1]}"))(g)
                        for g in groups], fontsize=8)
    ax.set_ylim(0, 1.12)


def _fig_table20(rs: ResultSet, ax) -> None:
    acc = [r for r in rs.rows if r["measure"] == "accuracy"]
    timeouts = {(r[MODEL], r["notion"], r["size"], r["existence"], r["hatch"]): r["value"]
                for r in rs.rows if r["measure"] == "timeouts"}
    _grouped_bars(ax, acc, rs.models(), _levels(acc, ["notion", "size"]),
                  _levels(acc, ["existence", "hatch"]),
                  lambda r: (r["notion"], r["size"]), lambda r: (r["existence"], r["hatch"]),
                  mark=lambda r: "∗" if timeouts.get((r[MODEL], r["notion"], r["size"],
                                                      r["existence"], r["hatch"])) else "")
    ax.set_ylabel("accuracy (∗: a timeout)")


# ----------------------------------------------------------------------------- selection

def fig13(scores: Sequence[Record]) -> ResultSet:
    """Fig. 13 (Khanna & Wang 2026, App. I.4): hard-notion selection accuracy per model,
    notion, n, existence and menu (with / without NOTA). On an infeasible menu without
    NOTA, declining every option is correct (the suite's reading). O(records).

    Parameters
    ----------
    scores : sequence of dict
        Scored records (``prefcert score`` / Inspect logs) of any number of models;
        ``model`` names each (missing: :data:`~prefcert.bench.results.UNNAMED_MODEL`).

    Returns
    -------
    ResultSet
    """
    factors = ["notion", "size", "existence", "menu"]
    rows = _shares(scores, factors, lambda s: (_cell(s).get("notion"), _cell(s).get("size"),
                                               existence(s), hatch(s))
                   if _hard(s, "selection") else None)
    return ResultSet(
        "kw-fig13", f"{PAPER}, Fig. 13 (App. J.5)",
        "Hard notions, selection: accuracy by notion, n, E / NE, with / without NOTA",
        factors, rows, value="accuracy",
        note="On an infeasible instance without NOTA no option is correct and declining "
             "every option is scored correct (the paper leaves this case undefined).",
        figure=lambda rs, ax: (_grouped_bars(
            ax, rs.rows, rs.models(), _levels(rs.rows, ["notion", "size"]),
            _levels(rs.rows, ["existence", "menu"]), lambda r: (r["notion"], r["size"]),
            lambda r: (r["existence"], r["menu"])), ax.set_ylabel("accuracy")))


def table23(scores: Sequence[Record]) -> ResultSet:
    """Table 23 (Khanna & Wang 2026, App. J.5): the share of hard-notion selection answers
    with NOTA offered that pick it (the NOTA letter, or declining in words), on feasible
    instances (NOTA is wrong) and infeasible ones (NOTA is right), pooled over notions and
    sizes as in the paper. O(records).

    Parameters
    ----------
    scores : sequence of dict
        Scored records (``prefcert score`` / Inspect logs) of any number of models;
        ``model`` names each (missing: :data:`~prefcert.bench.results.UNNAMED_MODEL`).

    Returns
    -------
    ResultSet
    """
    factors = ["existence"]
    rows = _shares(scores, factors,
                   lambda s: (existence(s),) if _hard(s, "selection")
                   and _cell(s).get("escape", True) else None,
                   success=lambda s: bool(s.get("nota")))
    return ResultSet(
        "kw-table23", f"{PAPER}, Table 23",
        "Selection with a none-of-the-above option: share of answers choosing NOTA "
        "(E: NOTA is wrong; NE: NOTA is right)", factors, rows, value="NOTA share",
        note="Pooled over the three notions and both sizes, as the paper's table; kw-fig13 "
             "keeps them apart. The denominator is every answer to a menu with NOTA "
             "(timeouts and unreadable answers included).",
        figure=_fig_bars_by(["existence"]))


def _fig_bars_by(factors: Sequence[str], ylabel: str = "share") -> Callable:
    def draw(rs: ResultSet, ax) -> None:
        groups = _levels(rs.rows, factors)
        _grouped_bars(ax, rs.rows, rs.models(), groups, [("",)],
                      lambda r: tuple(r.get(f) for f in factors), lambda r: ("",),
                      group_label=lambda g: ", ".join(_label(v) for v in g))
        ax.set_ylabel(ylabel)
    return draw


# ----------------------------------------------------------------------------- Fig. 5

def fig5(scores: Sequence[Record], task: str) -> ResultSet:
    """Fig. 5a (``task="generation"``) or 5b (``"selection"``) of Khanna & Wang (2026,
    §4.1–4.2): the error share (1 − accuracy: every verdict but ``correct``) on feasible
    (E) and on infeasible (NE) hard-notion instances per model, n and hatch / NOTA, pooled
    over the three notions (the design gives each notion the same number of prompts, so
    the pooled share is their average). The figure is the paper's scatter: E error on x,
    NE error on y, one point per model, hatch and n. O(records).

    Parameters
    ----------
    scores : sequence of dict
        Scored records (``prefcert score`` / Inspect logs) of any number of models;
        ``model`` names each (missing: :data:`~prefcert.bench.results.UNNAMED_MODEL`).
    task : {"generation", "selection"}
        The panel: 5a or 5b.

    Returns
    -------
    ResultSet
    """
    factors = ["size", "hatch", "existence"]
    rows = _shares(scores, factors,
                   lambda s: (_cell(s).get("size"), hatch(s), existence(s))
                   if _hard(s, task) else None, success=lambda s: not _correct(s))
    panel = "a" if task == "generation" else "b"
    return ResultSet(
        f"kw-fig5{panel}", f"{PAPER}, Fig. 5{panel}",
        f"Hard notions, {task}: error on feasible (E) vs infeasible (NE) instances, by "
        f"{'hatch' if task == 'generation' else 'NOTA'} and n", factors, rows,
        value="error share",
        note="Pooled over strict core, strong and super stability (equal prompts per "
             "notion). The paper plots n = 30 only; every size is kept here, each its own "
             "point. An ideal model sits at the origin.",
        figure=_fig5)


def _fig5(rs: ResultSet, ax) -> None:
    models = rs.models()
    hatches = sorted({r["hatch"] for r in rs.rows})
    markers = ("o", "s", "^", "D")
    for mi, m in enumerate(models):
        for hi, h in enumerate(hatches):
            for (size,) in _levels([r for r in rs.rows if r[MODEL] == m], ["size"]):
                e = _find(rs.rows, m, hatch=h, size=size, existence="E")
                ne = _find(rs.rows, m, hatch=h, size=size, existence="NE")
                if not e or not ne or e["value"] is None or ne["value"] is None:
                    continue
                ax.scatter(e["value"], ne["value"], color=f"C{mi}",
                           marker=markers[hi % len(markers)],
                           label=f"{m}, {h}" if size == _levels(rs.rows, ["size"])[0][0]
                           else None)
                ax.annotate(f"n={size}", (e["value"], ne["value"]), fontsize=6,
                            xytext=(3, 3), textcoords="offset points")
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("error, feasible instances (E)")
    ax.set_ylabel("error, infeasible instances (NE)")
    ax.legend(fontsize=7, frameon=False)


# ----------------------------------------------------------------------------- Fig. 6

def _rounds(s: Record) -> list[Mapping[str, Any]] | None:
    r = s.get("rounds")
    return r if isinstance(r, list) and r else None


def problem(s: Record) -> str:
    """What a record asks: the notion of a hard prompt, ``setting task`` of a standard
    one."""
    c = _cell(s)
    return str(c.get("notion")) if c.get("design") == "hard" else \
        f"{c.get('setting')} {c.get('task')}"


def fig6(scores: Sequence[Record]) -> ResultSet:
    """Fig. 6 (Khanna & Wang 2026, §5, App. O): refinement curves — the share of refined
    prompts answered correctly within r attempts, r = 1 … R (R: the most attempts any of
    the model's records made), per model, problem, n and existence. Reads the records that
    carry ``rounds`` (``prefcert refine`` output, or Inspect logs of the refinement
    solver); a prompt that stopped early stays correct (it was) or wrong (a timeout ends
    the loop) for the later rounds. The paper's bars are the last round's share and its
    complement. O(records × R).

    Parameters
    ----------
    scores : sequence of dict
        Scored records (``prefcert score`` / Inspect logs) of any number of models;
        ``model`` names each (missing: :data:`~prefcert.bench.results.UNNAMED_MODEL`).

    Returns
    -------
    ResultSet
    """
    factors = ["problem", "size", "existence", "round"]
    rows: list[dict] = []
    for model, ss in by_model([s for s in scores if _rounds(s)]).items():
        last = max(len(_rounds(s) or ()) for s in ss)
        cells: dict[tuple, list[int]] = {}
        for s in ss:
            rr = _rounds(s) or []
            hit = next((i for i, x in enumerate(rr, 1) if x.get("verdict") == "correct"),
                       None)
            for r in range(1, last + 1):
                c = cells.setdefault((problem(s), _cell(s).get("size"), existence(s), r),
                                     [0, 0])
                c[0] += hit is not None and hit <= r
                c[1] += 1
        for kv, (k, n) in cells.items():
            rows.append({**dict(zip(factors, kv)), MODEL: model, **share(k, n)})
    return ResultSet(
        "kw-fig6", f"{PAPER}, Fig. 6",
        "Refinement with verifier feedback: share correct within r attempts", factors,
        rows, value="share correct",
        note="The paper refines strict core and super stability with the {} hatch, 30 E "
             "and 30 NE instances per notion (OSS-120B at n = 10, GPT-5.2 at n = 30); its "
             "bars are the share correct and incorrect after the last attempt.",
        figure=_fig6)


def _fig6(rs: ResultSet, ax) -> None:
    models = rs.models()
    curves = _levels(rs.rows, ["problem", "size", "existence"])
    styles = ("-", "--", ":", "-.")
    for mi, m in enumerate(models):
        for ci, (p, size, ex) in enumerate(curves):
            pts = sorted((r["round"], r["value"]) for r in rs.rows if r[MODEL] == m and
                         (r["problem"], r["size"], r["existence"]) == (p, size, ex))
            if pts:
                ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o",
                        color=f"C{mi}", linestyle=styles[ci % len(styles)],
                        label=f"{m}: {_label(p)}, n={size}, {ex}")
    ax.set_xlabel("attempt")
    ax.set_ylabel("share correct within r attempts")
    ax.set_ylim(-0.02, 1.05)
    rounds = sorted({r["round"] for r in rs.rows})
    ax.set_xticks(rounds)
    ax.legend(fontsize=6, frameon=False)


# ----------------------------------------------------------------------------- Fig. 9

def _standard_generation(s: Record, settings: Iterable[str] | None = None) -> bool:
    """A standard prompt naming a notion (its ``task``: neither ``selection`` nor
    ``unspecified``), in one of ``settings`` (default: any)."""
    c = _cell(s)
    return c.get("design") == "standard" and c.get("setting") is not None and \
        (settings is None or c["setting"] in settings) and \
        c.get("task") not in (None, "selection", "unspecified")


STRICT_COMPLETE = ("HA-SO", "OA-SO", "SM-SO")


def fig9(scores: Sequence[Record]) -> ResultSet:
    """Fig. 9 (Khanna & Wang 2026, App. I.1): per-notion accuracy of the standard
    generation prompts under strict complete preferences (HA-SO, OA-SO, SM-SO) per model,
    setting, notion and n; the figure is a heatmap (rows: model and n; columns: setting and
    notion). O(records).

    Parameters
    ----------
    scores : sequence of dict
        Scored records (``prefcert score`` / Inspect logs) of any number of models;
        ``model`` names each (missing: :data:`~prefcert.bench.results.UNNAMED_MODEL`).

    Returns
    -------
    ResultSet
    """
    factors = ["setting", "notion", "size"]
    rows = _shares(scores, factors,
                   lambda s: (_cell(s)["setting"], _cell(s)["task"], _cell(s).get("size"))
                   if _standard_generation(s, STRICT_COMPLETE) else None)
    return ResultSet(
        "kw-fig9", f"{PAPER}, Fig. 9", "Standard tasks under strict complete preferences: "
        "share of outputs satisfying the target notion", factors, rows, value="accuracy",
        note="Generation prompts naming a notion; the unspecified prompt is not included.",
        figure=_fig9)


def _fig9(rs: ResultSet, ax) -> None:
    cols = _levels(rs.rows, ["setting", "notion"])
    lines = [(m, size) for m in rs.models()
             for (size,) in _levels([r for r in rs.rows if r[MODEL] == m], ["size"])]
    matrix = []
    for m, size in lines:
        row = []
        for st, notion in cols:
            r = _find(rs.rows, m, setting=st, notion=notion, size=size)
            row.append(float("nan") if r is None or r["value"] is None else r["value"])
        matrix.append(row)
    ax.imshow(matrix, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            if v == v:
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if v < 0.5 else "black")
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([f"{st} {_label(x)}" for st, x in cols], rotation=40, ha="right",
                       fontsize=7)
    ax.set_yticks(range(len(lines)))
    ax.set_yticklabels([f"{m}, n={size}" for m, size in lines], fontsize=7)


# ----------------------------------------------------------------------------- Figs. 10–11

#: Fig. 10: (label, strict setting, its task, truncated setting, its task)
SO_VS_SI = (("core", "HA-SO", "core", "HA-SI", "core"),
            ("rank maximal", "HA-SO", "rank_maximal", "HA-SI", "rank_maximal"))
#: Fig. 11: (domain, label, strict setting, its task, tied setting, its task)
STRICT_VS_TIES = (
    ("house allocation", "core / weak core", "HA-SO", "core", "HA-TO", "weak_core"),
    *(("house allocation", _label(x), "HA-SO", x, "HA-TO", x)
      for x in ("pareto_optimal", "utilitarian", "egalitarian", "rank_maximal")),
    ("matching", "stable / weakly stable", "SM-SO", "stable", "SM-TO", "weakly_stable"),
    *(("matching", _label(x), "SM-SO", x, "SM-TO", x)
      for x in ("utilitarian", "egalitarian", "rank_maximal")))


def accuracy_deltas(scores: Sequence[Record], pairs: Sequence[tuple], factors: Sequence[str]
                    ) -> list[dict]:
    """Rows of accuracy differences between two settings of the standard design: for every
    pair ``(*labels, setting_a, task_a, setting_b, task_b)`` (``labels`` fill ``factors``
    but the last, which is ``size``), model and size where both sides were answered,
    ``value`` = accuracy(b) − accuracy(a), with each side's ``k`` / ``n`` / share and
    Fisher's exact test (unpaired: the settings hold different instances), its p-value
    Holm-adjusted over the model's rows. O(records + rows log rows).

    Parameters
    ----------
    scores : sequence of dict
        Scored records (``prefcert score`` / Inspect logs) of any number of models;
        ``model`` names each (missing: :data:`~prefcert.bench.results.UNNAMED_MODEL`).
    pairs : sequence of tuple
        ``(*labels, setting_a, task_a, setting_b, task_b)``.
    factors : sequence of str
        The row factors: one per label, then ``size``.

    Returns
    -------
    list of dict
        The rows.
    """
    rows: list[dict] = []
    for model, ss in by_model(scores).items():
        tally: dict[tuple, list[int]] = {}
        for s in ss:
            if _standard_generation(s):
                c = _cell(s)
                t = tally.setdefault((c["setting"], c["task"], c.get("size")), [0, 0])
                t[0] += _correct(s)
                t[1] += 1
        mine = []
        for (size,) in sorted({(k[2],) for k in tally}, key=lambda t: sort_key(t[0])):
            for *labels, sa, ta, sb, tb in pairs:
                a, b = tally.get((sa, ta, size)), tally.get((sb, tb, size))
                if not a or not b:
                    continue
                test = fisher_exact(a[0], a[1], b[0], b[1])
                mine.append({**dict(zip(factors, [*labels, size])), MODEL: model,
                             "value": b[0] / b[1] - a[0] / a[1],
                             "k_a": a[0], "n_a": a[1], "share_a": a[0] / a[1],
                             "k_b": b[0], "n_b": b[1], "share_b": b[0] / b[1],
                             "pvalue": test["pvalue"]})
        for r, adj in zip(mine, adjusted_pvalues([r["pvalue"] for r in mine], "holm")):
            r["pvalue_holm"] = adj
        rows += mine
    return rows


_DELTA_TEST = ("Fisher's exact test per cell, two-sided, unpaired (the two settings are "
               "different instances); p-values Holm-adjusted over the cells of each model "
               "(pvalue, pvalue_holm in the rows).")


def fig10(scores: Sequence[Record]) -> ResultSet:
    """Fig. 10 (Khanna & Wang 2026, App. I.2): house allocation under strict complete (SO)
    vs strict incomplete (SI) preferences, for the notions asked under both (core,
    rank-maximal): ``value`` = accuracy(SI) − accuracy(SO) per model, notion and n
    (:func:`accuracy_deltas`).

    Parameters
    ----------
    scores : sequence of dict
        Scored records (``prefcert score`` / Inspect logs) of any number of models;
        ``model`` names each (missing: :data:`~prefcert.bench.results.UNNAMED_MODEL`).

    Returns
    -------
    ResultSet
    """
    factors = ["notion", "size"]
    rows = accuracy_deltas(scores, SO_VS_SI, factors)
    for r in rows:
        r["SO"], r["SI"] = r.pop("share_a"), r.pop("share_b")
    return ResultSet(
        "kw-fig10", f"{PAPER}, Fig. 10", "House allocation, SI − SO accuracy (strict "
        "complete vs strict incomplete preferences)", factors, rows,
        value="accuracy difference (SI − SO)", test=_DELTA_TEST,
        note="Negative: truncation lowers accuracy. MCPO is asked under SI only and has no "
             "delta (its accuracy is in the metrics). a = SO, b = SI in k_a / k_b.",
        figure=_fig_delta(["notion", "size"]))


def fig11(scores: Sequence[Record]) -> ResultSet:
    """Fig. 11 (Khanna & Wang 2026, App. I.2): strict (S) vs tied (T) preferences, house
    allocation (HA-SO vs HA-TO; the core's counterpart under ties is the weak core) and
    matching (SM-SO vs SM-TO; stability vs weak stability): ``value`` = accuracy(T) −
    accuracy(S) per model, domain, notion and n (:func:`accuracy_deltas`).

    Parameters
    ----------
    scores : sequence of dict
        Scored records (``prefcert score`` / Inspect logs) of any number of models;
        ``model`` names each (missing: :data:`~prefcert.bench.results.UNNAMED_MODEL`).

    Returns
    -------
    ResultSet
    """
    factors = ["domain", "notion", "size"]
    rows = accuracy_deltas(scores, STRICT_VS_TIES, factors)
    for r in rows:
        r["S"], r["T"] = r.pop("share_a"), r.pop("share_b")
    return ResultSet(
        "kw-fig11", f"{PAPER}, Fig. 11", "Strict vs tied preferences, T − S accuracy",
        factors, rows, value="accuracy difference (T − S)", test=_DELTA_TEST,
        note="Negative: ties lower accuracy (the paper's one drop: Pareto optimality in "
             "house allocation). a = S, b = T in k_a / k_b.",
        figure=_fig_delta(["domain", "notion", "size"]))


def _fig_delta(factors: Sequence[str]) -> Callable:
    def draw(rs: ResultSet, ax) -> None:
        groups = _levels(rs.rows, factors)
        models = rs.models()
        width = 0.8 / max(1, len(models))
        seen: set = set()
        for r in rs.rows:
            if r.get("value") is None:
                continue
            gi = groups.index(tuple(r.get(f) for f in factors))
            mi = models.index(r[MODEL])
            ax.bar(gi - 0.4 + width * (mi + 0.5), r["value"], width, color=f"C{mi}",
                   label=None if r[MODEL] in seen else r[MODEL])
            seen.add(r[MODEL])
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([", ".join(f"n={v}" if f == "size" else _label(v)
                                      for f, v in zip(factors, g)) for g in groups],
                           rotation=40, ha="right", fontsize=7)
        ax.set_ylim(-1.05, 1.05)
        ax.set_ylabel(rs.value)
        ax.legend(fontsize=7, frameon=False)
    return draw


# ----------------------------------------------------------------------------- Table 21

#: subset name -> (description, which records)
SUBSETS: dict[str, tuple[str, Callable[[Record], bool]]] = {
    "hard-generation": ("hard-notion generation, both hatch conditions",
                        lambda s: _hard(s, "generation")),
    "hard-generation-hatch": ("hard-notion generation with the {} hatch",
                              lambda s: _hard(s, "generation")
                              and bool(_cell(s).get("escape", True))),
    "hard-generation-no-hatch": ("hard-notion generation without the {} hatch",
                                 lambda s: _hard(s, "generation")
                                 and not _cell(s).get("escape", True)),
    "hard-selection": ("hard-notion selection, with and without NOTA",
                       lambda s: _hard(s, "selection")),
    "standard": ("the standard tasks", lambda s: _cell(s).get("design") == "standard"),
    "all": ("every prompt", lambda s: True),
}


def paired_key(s: Record) -> tuple:
    """What pairs two models' answers: the prompt id and the Inspect epoch (1 when
    absent)."""
    return (str(s.get("id")), s.get("epoch") or 1)


def table21(scores: Sequence[Record], subset: str = "hard-generation") -> ResultSet:
    """Table 21 (Khanna & Wang 2026, App. J.2): exact McNemar tests between every two
    models on the prompts both answered in ``subset`` (:data:`SUBSETS`), paired on the
    prompt id (and epoch), correct vs not; p-values Holm-adjusted over the pairs. One row
    per pair: ``model`` (the first, in first-seen order), ``versus``, ``value`` the Holm
    p-value, ``pvalue`` the raw one, ``n`` the paired prompts, ``only_first`` /
    ``only_second`` the discordant counts, ``accuracy_first`` / ``accuracy_second``.
    ValueError for an unknown subset. O(records + pairs × prompts).

    Parameters
    ----------
    scores : sequence of dict
        Scored records (``prefcert score`` / Inspect logs) of any number of models;
        ``model`` names each (missing: :data:`~prefcert.bench.results.UNNAMED_MODEL`).
    subset : str
        A key of :data:`SUBSETS` (default ``hard-generation``).

    Returns
    -------
    ResultSet
    """
    if subset not in SUBSETS:
        raise ValueError(f"unknown subset {subset!r} (known: {', '.join(SUBSETS)})")
    what, keep = SUBSETS[subset]
    outcome = {m: {paired_key(s): _correct(s) for s in ss if keep(s)}
               for m, ss in by_model(scores).items()}
    outcome = {m: o for m, o in outcome.items() if o}
    rows: list[dict] = []
    for a, b in combinations(outcome, 2):
        common = [k for k in outcome[a] if k in outcome[b]]
        if not common:
            continue
        x, y = [outcome[a][k] for k in common], [outcome[b][k] for k in common]
        t = mcnemar_exact(x, y)
        rows.append({"versus": b, MODEL: a, "pvalue": t["pvalue"], "n": t["n"],
                     "only_first": t["only_first"], "only_second": t["only_second"],
                     "accuracy_first": sum(x) / len(x), "accuracy_second": sum(y) / len(y)})
    for r, adj in zip(rows, adjusted_pvalues([r["pvalue"] for r in rows], "holm")):
        r["value"] = adj
    return ResultSet(
        "kw-table21", f"{PAPER}, Table 21",
        f"Pairwise McNemar tests between models: {what} (subset {subset})", ["versus"],
        rows, value="p (Holm)",
        test=f"Exact McNemar test (two-sided binomial test of the discordant pairs), paired "
             f"on the prompt id (and epoch) of the prompts both models answered; Holm "
             f"adjustment over the {len(rows)} pair(s) (value; the raw p in pvalue).",
        note="The paper's table pairs 360 hard-notion generation instances without saying "
             "which (one hatch condition, or one size, of the 720 per model); the default "
             "subset takes all 720; SUBSETS names the others. Only_first: the row's model "
             "right, the column's wrong.")


# ----------------------------------------------------------------------------- Table 22

def separated(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two share rows' 95 % Wilson intervals (``low`` / ``high``) do not overlap:
    the descriptive criterion of Khanna & Wang (2026), Table 22 (App. J.4). O(1)."""
    return a["high"] < b["low"] or b["high"] < a["low"]


def overlap_summary(cells: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The summary rows of Table 22's criterion (Khanna & Wang 2026, App. J.4): per model
    of ``cells`` (rows with ``model`` and ``separated``, in first-seen order), a
    ``significant cells`` row (``value`` = ``k`` = the separated cells, ``n`` = the
    cells) and a ``cells compared`` row (``value`` = the cells). Both suites' Table 22
    sets use it. O(len(cells)).

    Parameters
    ----------
    cells : sequence of dict
        One row per compared cell.

    Returns
    -------
    list of dict
        Two rows per model, factor ``measure``.
    """
    tally: dict[str, list[int]] = {}
    for r in cells:
        t = tally.setdefault(str(r[MODEL]), [0, 0])
        t[0] += bool(r["separated"])
        t[1] += 1
    rows: list[dict] = []
    for model, (k, n) in tally.items():
        rows.append({"measure": "significant cells", MODEL: model, "value": k, "k": k,
                     "n": n})
        rows.append({"measure": "cells compared", MODEL: model, "value": n})
    return rows


#: the test line of a Table 22 criterion set (both suites)
OVERLAP_CRITERION = ("No test: the paper's descriptive criterion (non-overlapping 95 % "
                     "Wilson intervals), unpaired, no multiplicity adjustment.")


def format_cells(scores: Sequence[Record]) -> list[dict]:
    """Per model and hard cell (notion, n, existence, escape offered or not): generation
    vs selection accuracy of the same instances, their Wilson intervals, ``value`` =
    selection − generation and ``separated`` = the 95 % intervals do not overlap (the
    criterion of Khanna & Wang 2026, Table 22). Cells where either format has no answer
    are left out. O(records).

    Parameters
    ----------
    scores : sequence of dict
        Scored records (``prefcert score`` / Inspect logs) of any number of models;
        ``model`` names each (missing: :data:`~prefcert.bench.results.UNNAMED_MODEL`).

    Returns
    -------
    list of dict
        The rows.
    """
    factors = ["notion", "size", "existence", "escape"]

    def key(s: Record):
        if not _hard(s):
            return None
        c = _cell(s)
        esc = "offered" if c.get("escape", True) else "not offered"
        return (c.get("notion"), c.get("size"), existence(s), esc, c.get("task"))
    acc = _shares(scores, [*factors, "task"], key)
    rows = []
    for model in dict.fromkeys(r[MODEL] for r in acc):
        for kv in _levels([r for r in acc if r[MODEL] == model], factors):
            where = dict(zip(factors, kv))
            g = _find(acc, model, task="generation", **where)
            s = _find(acc, model, task="selection", **where)
            if not g or not s or not g["n"] or not s["n"]:
                continue
            rows.append({**where, MODEL: model, "value": s["value"] - g["value"],
                         "generation": g["value"], "generation_low": g["low"],
                         "generation_high": g["high"], "n_generation": g["n"],
                         "selection": s["value"], "selection_low": s["low"],
                         "selection_high": s["high"], "n_selection": s["n"],
                         "separated": separated(g, s)})
    return rows


_OVERLAP_TEST = (f"{OVERLAP_CRITERION} The two formats are the same instances, so a "
                 f"paired exact McNemar test is the sharper comparison.")


def table22(scores: Sequence[Record]) -> list[ResultSet]:
    """The interval-overlap criterion of Table 22 (Khanna & Wang 2026, App. J.4) on this
    suite's format contrast: per model, the hard cells where generation and selection of
    the same instances have non-overlapping 95 % Wilson intervals (``significant cells``
    of ``cells compared``), and the cells themselves (:func:`format_cells`).

    Parameters
    ----------
    scores : sequence of dict
        Scored records (``prefcert score`` / Inspect logs) of any number of models;
        ``model`` names each (missing: :data:`~prefcert.bench.results.UNNAMED_MODEL`).

    Returns
    -------
    list of ResultSet
        The summary and the cells.
    """
    cells = format_cells(scores)
    rows = overlap_summary(cells)
    note = ("The paper's Table 22 applies this criterion to free-flow vs MCQ on "
            "undetermined preference queries (the preference suite); here it is the "
            "algorithmic suite's format pair: generation vs selection of each hard "
            "instance, the {} hatch paired with NOTA (escape offered) and their absence.")
    return [ResultSet("kw-alg-table22", f"{PAPER}, Table 22 (criterion)",
                      "Format effect, generation vs selection on hard notions: cells with "
                      "non-overlapping 95 % intervals", ["measure"], rows, value="cells",
                      test=_OVERLAP_TEST, note=note),
            ResultSet("kw-alg-table22-cells", f"{PAPER}, Table 22 (criterion, cells)",
                      "Format effect per cell: selection − generation accuracy (separated: "
                      "intervals do not overlap)",
                      ["notion", "size", "existence", "escape"], cells,
                      value="accuracy difference (selection − generation)",
                      test=_OVERLAP_TEST, note=note,
                      figure=_fig_delta(["notion", "size", "existence", "escape"]))]


# ----------------------------------------------------------------------------- Table 29

#: notion of a code-assisted cell -> the market Table 29 names
CODE_MARKETS = {"strict_core": "Shapley-Scarf", "super_stable": "matching"}


def _code(s: Record) -> bool:
    """Whether a record comes from the code-assisted design (``--param tools=code``)."""
    return _cell(s).get("tools") == "code"


def table29(scores: Sequence[Record]) -> ResultSet:
    """Table 29 (Khanna & Wang 2026, App. N): code-assisted accuracy per model, market
    (``Shapley-Scarf``: strict core; ``matching``: super stability), size and existence
    (``F`` feasible / ``I`` infeasible), over the records of the code-assisted design
    (cell ``tools = code``; 10 per cell in the design). Every record of a cell is in n:
    timeouts and invalid (or ambiguous) answers count as incorrect, as the paper's
    caption says; the rows also carry their ``timeouts`` and ``invalid`` counts.
    O(records).

    Parameters
    ----------
    scores : sequence of dict
        Scored records of any number of models (``model``; none:
        :data:`~prefcert.bench.results.UNNAMED_MODEL`); records of other designs are
        ignored.

    Returns
    -------
    ResultSet
        ``kw-table29``; factors ``market``, ``size``, ``existence``.
    """
    from ..results import model_bars
    factors = ["market", "size", "existence"]
    rows: list[dict] = []
    for model, ss in by_model(scores).items():
        cells: dict[tuple, list[Record]] = {}
        for s in ss:
            c = _cell(s)
            if _code(s) and c.get("notion") in CODE_MARKETS:
                key = (CODE_MARKETS[c["notion"]], c.get("size"),
                       "F" if c.get("feasible", True) else "I")
                cells.setdefault(key, []).append(s)
        for key in _levels([dict(zip(factors, k)) for k in cells], factors):
            group = cells[key]
            rows.append({**dict(zip(factors, key)), MODEL: model,
                         **share(sum(map(_correct, group)), len(group)),
                         "timeouts": sum(s.get("verdict") == "timeout" for s in group),
                         "invalid": sum(s.get("verdict") in ("invalid", "ambiguous")
                                        for s in group)})
    return ResultSet(
        "kw-table29", f"{PAPER}, Table 29",
        "Code-assisted generation: accuracy by market, n and feasibility", factors, rows,
        value="accuracy",
        note="Shapley-Scarf = strict core, matching = super stability; the paper's Small, "
             "Modest and Medium are n = 10, 30, 50. F: feasible, I: infeasible. The task is "
             "generation with the {} hatch, scored as Table 20 (on I only {} is correct). "
             "Timeouts and invalid or ambiguous answers are in n and count as incorrect "
             "(the caption's rule; their counts in timeouts / invalid). 10 instances per "
             "cell in the design. 95 % Wilson intervals.",
        figure=model_bars)


# ----------------------------------------------------------------------------- all

def result_sets(scores: Sequence[Record]) -> list[ResultSet]:
    """Every result set of the suite that has rows for ``scores`` (the suite's
    ``results`` hook), in the order of the module docstring. Records that carry
    refinement ``rounds`` feed Fig. 6 only: their verdict is the last attempt's, not a
    one-shot answer, so the one-shot tables leave them out. O(records × sets).

    Parameters
    ----------
    scores : sequence of dict
        Scored records (``prefcert score`` / Inspect logs) of any number of models;
        ``model`` names each (missing: :data:`~prefcert.bench.results.UNNAMED_MODEL`).

    Returns
    -------
    list of ResultSet
        The sets with rows.
    """
    mine = [s for s in scores if s.get("suite", "indeterminacy-algorithmic")
            == "indeterminacy-algorithmic"]
    code = [s for s in mine if _code(s)]
    mine = [s for s in mine if not _code(s)]
    one = [s for s in mine if not _rounds(s)]
    sets = [table20(one), fig13(one), table23(one), fig5(one, "generation"),
            fig5(one, "selection"), fig6(mine), fig9(one), fig10(one), fig11(one),
            table21(one), *table22(one), table29(code)]
    return [rs for rs in sets if rs.rows]
