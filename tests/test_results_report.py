"""Result sets of the indeterminacy-preference suite and the many-model report.

Every expected value below is written by hand from hand-made scored records of three fake
models (A, B and one without a model name); intervals are cross-checked against
statsmodels' Wilson interval computed here.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from conftest import cli, headless_page, require_chromium

from prefcert.bench.indeterminacy.preference import results
from prefcert.bench.report import Report
from prefcert.bench.results import UNNAMED_MODEL, ResultSet, pivot

SUITE = "indeterminacy-preference"


def rec(model, verdict, *, kind="value", determined=None, category=None, **cell):
    r = {"id": f"p{rec.n}", "suite": SUITE, "cell": cell, "verdict": verdict,
         "parsed": {"kind": kind, "value": None, "rule": "test"}, "reason": None}
    rec.n += 1
    if model is not None:
        r["model"] = model
    if determined is not None:
        r["determined"] = determined
    if category is not None:
        r["category"] = category
    return r


rec.n = 0


def atomic(model, verdict, pref, size, fmt, determined, **kw):
    return rec(model, verdict, determined=determined, family="atomic", pref=pref,
               question="kth", case="determined" if determined else "undetermined",
               size=size, format=fmt, **kw)


def bundle(model, verdict, pref, category=None, **kw):
    return rec(model, verdict, determined=False, category=category, family="bundle",
               pref=pref, question="rs", case="rs_incomparable", size=50, format="ffk", **kw)


def po(model, verdict, case, fmt="ff", **kw):
    return rec(model, verdict, determined=case == "comparable", family="partial_order",
               pref="pairwise", question="compare", case=case, nodes=100, edges=150,
               format=fmt, **kw)


def records() -> list[dict]:
    """Model A: 19 answers, B: 6, and one answer without a model."""
    A, B = "A", "B"
    return [
        # A, atomic: SO n=50 ff 3/4, SI n=50 ff 1/2, SI n=100 ffk 1/1, SO n=200 ff 0/1
        atomic(A, "correct", "SO", 50, "ff", True), atomic(A, "correct", "SO", 50, "ff", True),
        atomic(A, "correct", "SO", 50, "ff", True), atomic(A, "incorrect", "SO", 50, "ff", True),
        atomic(A, "correct", "SI", 50, "ff", False, kind="abstain"),
        atomic(A, "incorrect", "SI", 50, "ff", False),
        atomic(A, "correct", "SI", 100, "ffk", False, kind="abstain"),
        atomic(A, "incorrect", "SO", 200, "ff", True),
        # A, RS-incomparable bundles (ffk): SO abstain, silent lex, flagged lex, invalid; TO silent
        bundle(A, "correct", "SO", "abstain", kind="abstain"),
        bundle(A, "incorrect", "SO", "silent_lexicographic"),
        bundle(A, "incorrect", "SO", "flagged_lexicographic"),
        bundle(A, "invalid", "SO", kind="invalid"),
        bundle(A, "incorrect", "TO", "silent_lexicographic"),
        # A, partial orders (format 1): comparable ff: correct, says incomparable, wrong item
        po(A, "correct", "comparable"), po(A, "incorrect", "comparable", kind="abstain"),
        po(A, "incorrect", "comparable"),
        # incomparable ff: abstains, commits; mcq: abstains (Fig. 2b only)
        po(A, "correct", "incomparable", kind="abstain"), po(A, "incorrect", "incomparable"),
        po(A, "correct", "incomparable", fmt="mcq", kind="abstain"),
        # B: atomic SO n=50 ff 1/2, SI n=50 ff a timeout; bundles SO abstain + other;
        # partial orders: one comparable pair, timed out
        atomic(B, "correct", "SO", 50, "ff", True), atomic(B, "incorrect", "SO", 50, "ff", True),
        atomic(B, "timeout", "SI", 50, "ff", False, kind="timeout"),
        bundle(B, "correct", "SO", "abstain", kind="abstain"),
        bundle(B, "incorrect", "SO", "other"),
        po(B, "timeout", "comparable", kind="timeout"),
        # no model name: one correct determined atomic answer
        atomic(None, "correct", "SO", 50, "ff", True),
    ]


def table(rs: ResultSet) -> dict[tuple, tuple]:
    """factor levels -> values of the models, rounded to 3 decimals, from pivot."""
    cols, rows = pivot(rs)
    nf = len(rs.factors)
    return {tuple(r[:nf]): tuple(None if v is None else round(v, 3) for v in r[nf:])
            for r in rows}


@pytest.fixture(scope="module")
def sets() -> dict[str, ResultSet]:
    return {rs.key: rs for rs in results(records())}


def test_preference_result_sets_are_named_after_the_paper(sets):
    assert list(sets) == ["kw-fig7", "kw-fig2a", "kw-fig2a-test", "kw-fig2b", "kw-fig3a",
                          "kw-table10-lex", "kw-fig3b", "kw-table22", "kw-table22-cells"]
    src = {k: rs.source for k, rs in sets.items()}
    assert src["kw-fig2a"] == "Khanna & Wang (2026), Fig. 2a"
    assert src["kw-fig3b"] == "Khanna & Wang (2026), Fig. 3b"
    assert all(rs.figure is not None and rs.note for k, rs in sets.items()
               if k not in ("kw-fig2a-test", "kw-table22", "kw-table22-cells"))   # tables
    assert sets["kw-fig7"].models() == ["A", "B", UNNAMED_MODEL]


def test_fig7_accuracy_by_family_and_size_in_numeric_order(sets):
    rs = sets["kw-fig7"]
    cols, rows = pivot(rs)
    assert cols == ["family", "size", "A", "B", UNNAMED_MODEL]
    # A atomic n=50: 3 of 4 SO + 1 of 2 SI = 4/6; B: 1 of 2 + a timeout = 1/3
    assert table(rs) == {("atomic", 50): (0.667, 0.333, 1.0), ("atomic", 100): (1.0, None, None),
                         ("atomic", 200): (0.0, None, None), ("bundle", 50): (0.2, 0.5, None)}
    assert [r[1] for r in rows] == [50, 100, 200, 50]       # 50 < 100 < 200, not "100" < "50"
    from statsmodels.stats.proportion import proportion_confint
    a50 = next(r for r in rs.rows if r["model"] == "A" and r["size"] == 50
               and r["family"] == "atomic")
    lo, hi = proportion_confint(4, 6, method="wilson")
    assert (a50["k"], a50["n"]) == (4, 6)
    assert a50["low"] == pytest.approx(lo) and a50["high"] == pytest.approx(hi)


def test_fig2a_free_flow_medium_and_large_only(sets):
    # A determined: SO n=50 ff 3/4 + SO n=200 ff 0/1 = 3/5; undetermined: SI n=50 ff 1/2
    # (the ffk answer at n=100 is left out); B: 1/2 and the timeout 0/1
    assert table(sets["kw-fig2a"]) == {("atomic", "determined"): (0.6, 0.5, 1.0),
                                       ("atomic", "undetermined"): (0.5, 0.0, None)}


def test_fig2a_tested_unpaired_fisher_with_holm(sets):
    from scipy.stats import fisher_exact
    rs = sets["kw-fig2a-test"]
    assert "Fisher" in rs.test and "unpaired" in rs.test and "Holm" in rs.test
    rows = {r["model"]: r for r in rs.rows}
    assert set(rows) == {"A", "B"}                       # the unnamed model: determined only
    # A: 3/5 vs 1/2. Margins N = 7, 5 determined, 4 correct: P(a) = C(4,a) C(3,5-a) / 21
    # = 6/21, 12/21, 3/21 for a = 2, 3, 4; observed a = 3, every table as likely or less:
    # p = 1. B: 1/2 vs 0/1: P(a=1) = 2/3, P(a=0) = 1/3: p = 1. Holm of (1, 1) = (1, 1).
    assert (rows["A"]["k"], rows["A"]["n"]) == ([3, 1], [5, 2])
    assert rows["A"]["pvalue"] == pytest.approx(1.0) and rows["B"]["pvalue"] == pytest.approx(1.0)
    assert rows["A"]["pvalue"] == pytest.approx(fisher_exact([[3, 2], [1, 1]]).pvalue)
    assert [rows[m]["pvalue_holm"] for m in "AB"] == pytest.approx([1.0, 1.0])


def test_fig2b_undetermined_by_format(sets):
    assert table(sets["kw-fig2b"]) == {
        ("atomic", "ff"): (0.5, 0.0), ("atomic", "ffk"): (1.0, None),
        ("bundle", "ffk"): (0.2, 0.5), ("partial_order", "ff"): (0.5, None),
        ("partial_order", "mcq"): (1.0, None)}
    assert sets["kw-fig2b"].models() == ["A", "B"]        # the unnamed model has none


def test_fig3a_rs_incomparable_behaviour_and_table10_lexicographic_share(sets):
    assert table(sets["kw-fig3a"]) == {
        ("abstains",): (0.2, 0.5), ("lexicographic_flagged",): (0.2, 0.0),
        ("lexicographic_silent",): (0.4, 0.0), ("no_answer_read",): (0.2, 0.0),
        ("other_commitment",): (0.0, 0.5)}
    by = {r["behaviour"]: (r["k"], r["n"]) for r in sets["kw-fig3a"].rows if r["model"] == "A"}
    assert by["lexicographic_silent"] == (2, 5)
    assert table(sets["kw-table10-lex"]) == {("SO",): (0.5, 0.0), ("TO",): (1.0, None)}


def test_fig3b_partial_order_failure_modes(sets):
    assert table(sets["kw-fig3b"]) == {
        ("comparable", "correct"): (0.333, 0.0), ("comparable", "says_incomparable"): (0.333, 0.0),
        ("comparable", "wrong_item"): (0.333, 0.0), ("comparable", "no_answer_read"): (0.0, 1.0),
        ("incomparable", "correct"): (0.5, None),
        ("incomparable", "commits_to_an_item"): (0.5, None),
        ("incomparable", "no_answer_read"): (0.0, None)}


def test_a_timeout_keeps_whether_its_query_was_determined(tmp_path):
    """Regression: a timeout had no ``determined`` field, so Fig. 2a lost it."""
    out = tmp_path / "b"
    run("generate", SUITE, "-o", str(out), "--per-cell", "1", "--sizes", "50")
    prompts = [json.loads(x) for x in (out / "prompts.jsonl").read_text().splitlines()]
    ans = tmp_path / "a.jsonl"
    ans.write_text("".join(json.dumps({"id": p["id"], "timeout": True}) + "\n" for p in prompts))
    sc = tmp_path / "s.jsonl"
    run("score", str(out / "prompts.jsonl"), str(ans), "--model", "slow", "-o", str(sc))
    recs = [json.loads(x) for x in sc.read_text().splitlines()]
    assert {r["verdict"] for r in recs} == {"timeout"} and all(r["model"] == "slow" for r in recs)
    atom = [r for r in recs if r["cell"]["family"] == "atomic"]
    assert {r["cell"]["pref"]: r["determined"] for r in atom} == {"SO": True, "SI": False}


# ------------------------------------------------------------------ report defects

def test_metrics_table_shows_every_row_and_says_so():
    r = Report("t")
    r.table("Metrics", [{"metric": "accuracy", "group": {"i": i}, "k": 1, "n": 2,
                         "value": 0.5, "low": 0.1, "high": 0.9} for i in range(450)])
    page = r.html()
    assert page.count("<tr>") == 451 and "All 450 rows." in page


def test_metrics_table_sizes_numeric_and_no_none_over_n():
    r = Report("t")
    rows = [{"metric": "accuracy", "group": {"size": s}, "k": 1, "n": 2, "value": 0.5,
             "low": 0.1, "high": 0.9} for s in (100, 200, 50)]
    rows.append({"metric": "ifc_reference", "group": {}, "k": None, "n": 2160, "value": 0.25,
                 "low": None, "high": None})
    r.table("Metrics", rows)
    page = r.html()
    assert page.index("size=50") < page.index("size=100") < page.index("size=200")
    assert "None/2160" not in page and "<td>n=2160</td>" in page


def test_bar_chart_levels_in_numeric_order_and_fixed_verdict_colours():
    r = Report("t")
    rows = [{"group": {"x": "a", "size": s}, "value": 0.5, "low": 0.4, "high": 0.6}
            for s in (100, 200, 50)]
    r.bar_chart("sizes", rows, x="x", hue="size")
    vrows = [{"group": {"suite": "s", "verdict": v}, "value": 0.2, "low": 0.1, "high": 0.3}
             for v in ("invalid", "correct", "timeout", "incorrect", "ambiguous")]
    r.bar_chart("verdicts", vrows, x="suite", hue="verdict")
    sizes, verdicts = r.parts
    assert sizes.index("size = 50") < sizes.index("size = 100") < sizes.index("size = 200")
    # correct green, incorrect red, invalid orange, ambiguous purple, timeout grey
    for colour in ("#2e7d32", "#c62828", "#ef6c00", "#6a1b9a", "#757575"):
        assert f"fill: {colour}" in verdicts, colour
    assert "#2ca02c" not in verdicts                     # matplotlib's default green
    order = [verdicts.index(f"verdict = {v}") for v in
             ("correct", "incorrect", "invalid", "ambiguous", "timeout")]
    assert order == sorted(order)


def test_heatmap_whose_rows_sum_above_one_says_why():
    r = Report("t")
    r.heatmap("Which notion", [[1.0, 1.0, 0.0], [0.5, 0.25, 0.25]], rows=["HA-SO", "SM-SO"],
              cols=["pareto", "core", "contaminated"])
    page = r.html()
    assert "Rows sum above 1 (HA-SO: 2.00)" in page and "SM-SO: 1.00" not in page
    assert "not exclusive" in page


def test_figure_text_is_svg_text_not_glyph_paths():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_xlabel("profile size")
    r = Report("t")
    r.figure("f", fig)
    assert re.search(r"<text[^>]*>profile size</text>", r.parts[0])
    assert 'id="DejaVuSans-' not in r.parts[0]


# ------------------------------------------------------------------ the CLI on three models

def run(*args, env=None, **kw):
    return cli(*args, env={**os.environ, **(env or {})}, **kw)


def three_models(tmp_path: Path) -> list[Path]:
    """Score files of models A, B and C (C: the unnamed record, named here)."""
    recs = records()
    files = []
    for m in ("A", "B", "C"):
        mine = [r for r in recs if r.get("model", "C") == m]
        f = tmp_path / f"{m}.scores.jsonl"
        f.write_text("".join(json.dumps({**r, "model": m}) + "\n" for r in mine))
        files.append(f)
    return files


def test_report_cli_three_models_terminal_json_figures(tmp_path):
    files = three_models(tmp_path)
    page, js, figs = tmp_path / "page.html", tmp_path / "rs.json", tmp_path / "figs"
    r = run("report", *map(str, files), "-o", str(page), "--json", str(js),
            "--figures", str(figs))
    out = r.stdout
    assert "Khanna & Wang (2026), Fig. 2a" in out and "[kw-fig3b]" in out
    header = next(line for line in out.splitlines() if "┃ family" in line and "size" in line)
    assert re.search(r"family\s+┃\s+size\s+┃\s+A\s+┃\s+B\s+┃\s+C", header)
    # A: 4 of 6, B: 1 of 3 (a timeout counts), C: 1 of 1 — each rate with its k/n
    assert re.search(r"atomic\s+│\s+50\s+│\s+0\.667 \(4/6\)\s+│\s+0\.333 \(1/3\)\s+│\s+"
                     r"1\.000 \(1/1\)", out)
    data = json.loads(js.read_text())
    assert data["models"] == ["A", "B", "C"]
    keys = [s["key"] for s in data["result_sets"]]
    assert keys == ["kw-fig7", "kw-fig2a", "kw-fig2a-test", "kw-fig2b", "kw-fig3a",
                    "kw-table10-lex", "kw-fig3b", "kw-table22", "kw-table22-cells"]
    fig2a = next(s for s in data["result_sets"] if s["key"] == "kw-fig2a")
    row = next(x for x in fig2a["rows"] if x["model"] == "A" and x["query"] == "determined")
    assert (row["k"], row["n"], row["value"]) == (3, 5, 0.6)
    assert sorted(p.name for p in figs.iterdir()) == sorted(
        f"{k}.svg" for k in keys
        if k not in ("kw-fig2a-test", "kw-table22", "kw-table22-cells"))   # tables only
    svg = (figs / "kw-fig7.svg").read_text()
    assert svg.startswith("<?xml") and re.search(r"<text[^>]*>family / size</text>", svg)
    assert re.search(r"<text[^>]*>accuracy</text>", svg) and 'id="DejaVuSans-' not in svg
    assert "Fig. 7" in svg                               # titled with the paper's figure
    html = page.read_text()
    assert all(f'data-key="{k}"' in html for k in keys
               if k not in ("kw-fig2a-test", "kw-table22", "kw-table22-cells"))
    assert "Fig. 2a, tested" in html
    assert "[A] Accuracy by format" in html and "[C] Accuracy by format" in html


def test_report_cli_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path):
    files = three_models(tmp_path)
    page, js, figs = tmp_path / "page.html", tmp_path / "rs.json", tmp_path / "figs"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(files[0].read_text().splitlines()[0] + "\n" + '{"id": "x", "suite": "%s"}\n'
                   % SUITE)
    first = json.loads(files[0].read_text().splitlines()[0])
    maybe, nocell, textcell = (tmp_path / f"{x}.jsonl" for x in ("maybe", "nocell", "textcell"))
    maybe.write_text(json.dumps({**first, "verdict": "maybe"}) + "\n")
    nocell.write_text(json.dumps({k: v for k, v in first.items() if k != "cell"}) + "\n")
    textcell.write_text(json.dumps({**first, "cell": "atomic"}) + "\n")
    cases = [
        ([*map(str, files), str(bad)], "bad.jsonl:2:", "no 'verdict'"),
        # regressions: an unknown verdict was taken silently, a missing or text cell was
        # a traceback
        ([str(maybe)], "maybe.jsonl:1:", "unknown verdict"),
        ([str(nocell)], "nocell.jsonl:1:", "'cell' is an object"),
        ([str(textcell)], "textcell.jsonl:1:", "'cell' is an object"),
        ([str(files[0]), str(files[0])], "A.scores.jsonl:1:", "scored twice"),
        ([str(files[0]), "--json", str(files[0])], "A.scores.jsonl", "one of the inputs"),
    ]
    for args, where, what in cases:
        r = run("report", *args, "-o", str(page), "--figures", str(figs), check=False)
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and where in lines[0] and what in lines[0], r.stderr
        assert "Traceback" not in r.stderr and r.stdout == ""
        assert not page.exists() and not figs.exists() and not js.exists()
    figs.mkdir()                      # a figure that would be the --json output too
    r = run("report", str(files[0]), "-o", str(page), "--figures", str(figs), "--json",
            str(figs / "kw-fig7.svg"), check=False)
    assert r.returncode == 2 and "kw-fig7.svg" in r.stderr and "two outputs are one file" \
        in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not page.exists() and list(figs.iterdir()) == []


def _one_line_refusal(r) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("prefcert: error: "), r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    return lines[0]


def test_report_figures_never_replace_or_mix_with_files_already_there(tmp_path):
    """--figures DIR silently replaced a file of the user's named like a figure
    (DIR/kw-fig7.svg) and wrote the figures among any other files of DIR."""
    files = three_models(tmp_path)
    page, figs = tmp_path / "page.html", tmp_path / "figs"
    figs.mkdir()
    (figs / "kw-fig7.svg").write_text("mine\n")
    for extra in ([], ["--overwrite"]):
        if extra:                    # --overwrite replaces only the files this run writes
            (figs / "notes.txt").write_text("keep\n")
        line = _one_line_refusal(run("report", str(files[0]), "-o", str(page), "--figures",
                                     str(figs), *extra, check=False))
        assert str(figs / ("notes.txt" if extra else "kw-fig7.svg")) in line, line
        assert ("does not write" if extra else "not empty") in line, line
        assert (figs / "kw-fig7.svg").read_text() == "mine\n" and not page.exists()
        assert sorted(p.name for p in figs.iterdir()) == \
            sorted(["kw-fig7.svg", *(["notes.txt"] if extra else [])])
    (figs / "notes.txt").unlink()
    r = run("report", str(files[0]), "-o", str(page), "--figures", str(figs), "--overwrite")
    assert (figs / "kw-fig7.svg").read_text().startswith("<?xml"), r.stderr
    first = {p.name: p.read_bytes() for p in figs.iterdir()}
    line = _one_line_refusal(run("report", str(files[0]), "-o", str(page), "--figures",
                                 str(figs), check=False))      # a rerun asks for --overwrite
    assert "--overwrite" in line
    inside = figs / "index.html"     # the page inside the folder is one of the run's files
    run("report", str(files[0]), "-o", str(inside), "--figures", str(figs), "--overwrite")
    run("report", str(files[0]), "-o", str(inside), "--figures", str(figs), "--overwrite")
    assert {p.name: p.read_bytes() for p in figs.iterdir() if p != inside} == first


# ------------------------------------------------------------------ the page in Chromium



def test_report_page_in_headless_chromium_every_result_set_figure_with_text_axes(tmp_path):
    require_chromium()
    files = three_models(tmp_path)
    page_path = tmp_path / "report.html"
    run("report", *map(str, files), "-o", str(page_path))
    keys = ["kw-fig7", "kw-fig2a", "kw-fig2b", "kw-fig3a", "kw-table10-lex", "kw-fig3b"]
    axes = {"kw-fig7": "family / size", "kw-fig2a": "family / query",
            "kw-fig2b": "family / format", "kw-fig3a": "behaviour", "kw-table10-lex": "pref",
            "kw-fig3b": "pair / outcome"}
    with headless_page(tmp_path) as (page, errors):
        page.goto(page_path.as_uri())
        page.wait_for_load_state("load")
        found = page.eval_on_selector_all(
            "figure.plot[data-key]",
            "els => els.map(e => [e.dataset.key, e.dataset.title,"
            " Array.from(e.querySelectorAll('svg text')).map(t => t.textContent.trim()),"
            " e.querySelector('svg').getBoundingClientRect().width])")
        shot = tmp_path / "report.png"
        page.screenshot(path=str(shot), full_page=True)
    assert errors == []
    assert [f[0] for f in found] == keys
    for key, title, texts, width in found:
        assert title.startswith("Khanna & Wang (2026), "), title
        assert axes[key] in texts and width > 100, (key, texts)
        assert "A" in texts and "B" in texts           # the legend names the models
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000


# ------------------------------------------------------------------ score: never pooled

def test_metrics_and_size_tests_are_per_model():
    from prefcert.bench.score import metrics_by_model, size_tests
    rows = metrics_by_model(records())
    share = {r["group"]["model"]: (r["k"], r["n"]) for r in rows
             if r["metric"] == "share_correct"}
    # A: 5 atomic + 1 bundle + 3 partial-order answers correct of 19; B: 2 of 6
    assert share == {"A": (9, 19), "B": (2, 6), UNNAMED_MODEL: (1, 1)}
    one = [r for r in records() if r.get("model") == "A"]
    assert all("model" not in r["group"] for r in metrics_by_model(one))
    # A: 2/2 at n=10, 0/2 at n=30; B the reverse. Pooled 2/4 vs 2/4 (p = 1); per model
    # Fisher's exact test of [[2, 0], [0, 2]]: two-sided p = 1/6 + 1/6 = 1/3
    cell = {"family": "atomic", "pref": "SO", "question": "kth", "case": "determined",
            "format": "ff"}
    recs = [{"id": f"{m}{i}", "suite": SUITE, "model": m, "verdict": v,
             "cell": {**cell, "size": n}}
            for m, outcome in (("A", {10: "correct", 30: "incorrect"}),
                               ("B", {10: "incorrect", 30: "correct"}))
            for n, v in outcome.items() for i in (n, n + 1)]
    tests = size_tests(recs, "all")
    assert [(t["model"], t["k"], t["n"]) for t in tests] == [("A", [2, 0], [2, 2]),
                                                             ("B", [0, 2], [2, 2])]
    assert [t["pvalue"] for t in tests] == pytest.approx([1 / 3, 1 / 3])
    assert [t["pvalue_holm"] for t in tests] == pytest.approx([2 / 3, 2 / 3])


def test_table22_counts_cells_whose_ff_and_mcq_intervals_do_not_overlap():
    """Khanna & Wang Table 22 by hand. Model A, undetermined SI atomic n=50: ff 0/20, mcq
    20/20 (Wilson 95 %: [0, 0.161] and [0.839, 1], apart); SI atomic n=100: ff 1/2, mcq 1/2
    (overlap); an ffk-only cell and a determined cell are not compared. Model B: one cell,
    ff 2/2 vs mcq 0/2 ([0.342, 1] vs [0, 0.658], overlap)."""
    recs = []
    recs += [atomic("A", "incorrect", "SI", 50, "ff", False) for _ in range(20)]
    recs += [atomic("A", "correct", "SI", 50, "mcq", False) for _ in range(20)]
    recs += [atomic("A", v, "SI", 100, f, False) for f in ("ff", "mcq")
             for v in ("correct", "incorrect")]
    recs += [atomic("A", "correct", "SI", 200, "ffk", False),
             atomic("A", "correct", "SO", 50, "ff", True),
             atomic("A", "incorrect", "SO", 50, "mcq", True)]
    recs += [atomic("B", "correct", "SI", 50, "ff", False) for _ in range(2)]
    recs += [atomic("B", "incorrect", "SI", 50, "mcq", False) for _ in range(2)]
    got = {rs.key: rs for rs in results(recs)}
    assert table(got["kw-table22"]) == {("cells compared",): (2, 1),
                                        ("significant cells",): (1, 0)}
    cells = {(r["model"], r["size"]): (r["separated"], round(r["value"], 3))
             for r in got["kw-table22-cells"].rows}
    assert cells == {("A", 50): (True, 1.0), ("A", 100): (False, 0.0),
                     ("B", 50): (False, -1.0)}


def test_score_several_answers_files_is_several_models_compared_pairwise(tmp_path):
    """prefcert score PROMPTS A B C: one model per file (named by their stems), metrics per
    model, and the exact McNemar test of every pair with Holm. By hand, on the 61 prompts
    of the size-50 preference suite: A gives every gold answer, B junk everywhere, C the
    gold on the first 30 prompts and junk after. Discordant pairs all go one way, so the
    two-sided exact p is 2 · 0.5^d: A–B d = 61, A–C d = 31, B–C d = 30 (for C). Holm over
    the three: 3 · 2 · 0.5^61, then max(that, 2 · 2 · 0.5^31) = 0.5^29, then 0.5^29."""
    out = tmp_path / "b"
    run("generate", SUITE, "-o", str(out), "--per-cell", "1", "--sizes", "50")
    prompts = [json.loads(x) for x in (out / "prompts.jsonl").read_text().splitlines()]
    assert len(prompts) == 61
    files = []
    for name, good in (("A", 61), ("B", 0), ("C", 30)):
        f = tmp_path / f"{name}.answers.jsonl"
        f.write_text("".join(json.dumps({"id": p["id"], "answer": p["answer"] if i < good
                                         else "xyzzy plugh"}) + "\n"
                             for i, p in enumerate(prompts)))
        files.append(str(f))
    sc = tmp_path / "s.jsonl"
    r = run("score", str(out / "prompts.jsonl"), *files, "-o", str(sc), "--json")
    recs = [json.loads(x) for x in sc.read_text().splitlines()]
    right = {m: sum(x["verdict"] == "correct" for x in recs if x["model"] == m) for m in "ABC"}
    assert right == {"A": 61, "B": 0, "C": 30}
    tests = [json.loads(x) for x in r.stdout.splitlines()
             if '"test": "mcnemar_exact"' in x]
    got = {(t["first"], t["second"]): (t["n"], t["only_first"], t["only_second"]) for t in tests}
    assert got == {("A", "B"): (61, 61, 0), ("A", "C"): (61, 31, 0), ("B", "C"): (61, 0, 30)}
    p = {(t["first"], t["second"]): (t["pvalue"], t["pvalue_holm"]) for t in tests}
    assert p[("A", "B")] == pytest.approx((2 * 0.5 ** 61, 6 * 0.5 ** 61))
    assert p[("A", "C")] == pytest.approx((2 * 0.5 ** 31, 0.5 ** 29))
    assert p[("B", "C")] == pytest.approx((2 * 0.5 ** 30, 0.5 ** 29))
    table = run("score", str(out / "prompts.jsonl"), *files).stdout
    assert "models compared: exact McNemar" in table and "model=C" in table
    bad = run("score", str(out / "prompts.jsonl"), *files, "--model", "x", check=False)
    assert bad.returncode == 2 and "once per ANSWERS file" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_report_page_header_names_the_version_and_date_and_tables_show_three_decimals(
        tmp_path):
    """Regression (fresh report 9, in part): the page stated no prefcert version or date,
    and its tables showed bare values (1, 0.6) where the terminal shows 1.000, 0.600."""
    import prefcert
    files = three_models(tmp_path)
    page = tmp_path / "page.html"
    run("report", *map(str, files), "-o", str(page))
    text = page.read_text(encoding="utf-8")
    assert f"prefcert {prefcert.__version__}, generated 20" in text
    # each rate with its k/n (fresh report 9: a 1/1 cell looked like 100/100)
    assert "<td>0.667 (4/6)</td><td>0.333 (1/3)</td><td>1.000 (1/1)</td>" in text


def test_estimate_text_shows_the_value_and_its_counts():
    from prefcert.bench.results import estimate_text
    assert estimate_text({"value": 1.0, "k": 1, "n": 1}) == "1.000 (1/1)"
    assert estimate_text({"value": 1.0, "k": 100, "n": 100}) == "1.000 (100/100)"
    assert estimate_text({"value": 0.25}) == "0.250"           # a share with no counts
    assert estimate_text({"value": 0.0004, "k": 1, "n": 2500}) == "0.0004 (1/2500)"
    assert estimate_text({"value": None, "k": 0, "n": 0}) == "—"
    assert estimate_text(None) == "—"
