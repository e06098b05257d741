"""The result sets of ``indeterminacy-algorithmic`` (Khanna & Wang 2026): each computed
from hand-made scored records of two or three fake models, the expected tables written by
hand; the McNemar table against statsmodels fitted here; Table 20 and the plots keep
n = 10 and n = 30 apart; refinement output is a scores file Fig. 6 reads."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PREFCERT

from prefcert.bench.indeterminacy import algorithmic as alg
from prefcert.bench.indeterminacy import algorithmic_results as ar
from prefcert.bench.results import UNNAMED_MODEL, pivot

SUITE = "indeterminacy-algorithmic"
_ids = iter(range(1, 10**6))


def hard(model, notion, feasible, size, task, escape, verdict, pid=None, **extra):
    return {"id": pid or f"h{next(_ids)}", "suite": SUITE, "model": model,
            "cell": {"design": "hard", "notion": notion, "feasible": feasible,
                     "size": size, "task": task, "escape": escape},
            "verdict": verdict, "parsed": {"kind": "value"}, **extra}


def std(model, setting, task, size, verdict, pid=None):
    return {"id": pid or f"s{next(_ids)}", "suite": SUITE, "model": model,
            "cell": {"design": "standard", "setting": setting, "size": size, "task": task},
            "verdict": verdict, "parsed": {"kind": "value"}}


def rows_of(rs, **where):
    return [r for r in rs.rows if all(r.get(k) == v for k, v in where.items())]


def one(rs, **where):
    got = rows_of(rs, **where)
    assert len(got) == 1, (where, got)
    return got[0]


# ----------------------------------------------------------------------------- Table 20

def table20_scores():
    g = "generation"
    return [
        # alpha, strict core, E, with {}: n = 10 two of three right; n = 30 none right,
        # one invalid answer, one {} on a feasible instance, one timeout
        hard("alpha", "strict_core", True, 10, g, True, "correct"),
        hard("alpha", "strict_core", True, 10, g, True, "correct"),
        hard("alpha", "strict_core", True, 10, g, True, "incorrect"),
        hard("alpha", "strict_core", True, 30, g, True, "invalid"),
        hard("alpha", "strict_core", True, 30, g, True, "incorrect", invalid_solution=True,
             rule="empty_on_feasible"),
        hard("alpha", "strict_core", True, 30, g, True, "timeout"),
        # alpha, NE with {}: one right, one timeout
        hard("alpha", "strict_core", False, 10, g, True, "correct"),
        hard("alpha", "strict_core", False, 10, g, True, "timeout"),
        # beta, E without {}
        hard("beta", "super_stable", True, 10, g, False, "incorrect"),
        hard("beta", "super_stable", True, 10, g, False, "correct"),
        # a selection answer: not in Table 20
        hard("alpha", "strict_core", True, 10, "selection", True, "incorrect"),
    ]


def test_table20_keeps_sizes_apart_with_invalid_share_and_timeouts():
    from statsmodels.stats.proportion import proportion_confint
    rs = ar.table20(table20_scores())
    assert rs.key == "kw-table20" and rs.source == "Khanna & Wang (2026), Table 20"
    assert rs.factors == ["notion", "size", "existence", "hatch", "measure"]
    e10 = dict(model="alpha", notion="strict_core", existence="E", hatch="with {}", size=10)
    e30 = {**e10, "size": 30}
    acc10 = one(rs, measure="accuracy", **e10)
    assert (acc10["k"], acc10["n"]) == (2, 3) and acc10["value"] == pytest.approx(2 / 3)
    lo, hi = proportion_confint(2, 3, method="wilson")
    assert (acc10["low"], acc10["high"]) == (pytest.approx(lo), pytest.approx(hi))
    acc30 = one(rs, measure="accuracy", **e30)
    assert (acc30["k"], acc30["n"], acc30["value"]) == (0, 3, 0.0)
    # the bracket: invalid answer + {} on a feasible instance = 2 of 3; not the timeout
    inv30 = one(rs, measure="invalid solution", **e30)
    assert (inv30["k"], inv30["n"]) == (2, 3)
    assert one(rs, measure="invalid solution", **e10)["k"] == 0
    assert one(rs, measure="timeouts", **e30)["value"] == 1
    assert one(rs, measure="timeouts", **e10)["value"] == 0
    ne = dict(model="alpha", notion="strict_core", existence="NE", hatch="with {}", size=10)
    assert (one(rs, measure="accuracy", **ne)["k"], one(rs, measure="accuracy", **ne)["n"]) \
        == (1, 2)
    assert one(rs, measure="timeouts", **ne)["value"] == 1
    assert not rows_of(rs, measure="invalid solution", existence="NE")   # E rows only
    b = one(rs, model="beta", measure="accuracy")
    assert (b["notion"], b["hatch"], b["k"], b["n"]) == ("super_stable", "without {}", 1, 2)
    # alpha: 2 cells × (accuracy, invalid, timeouts) + 1 NE cell × 2; beta: 3
    assert len(rows_of(rs, model="alpha")) == 8 and len(rows_of(rs, model="beta")) == 3
    assert all(r["size"] in (10, 30) for r in rs.rows)       # never pooled over sizes
    cols, table = pivot(rs)
    assert cols == [*rs.factors, "alpha", "beta"]
    acc_lines = [t for t in table if t[0] == "strict_core" and t[2] == "E" and t[4] ==
                 "accuracy"]
    assert [(t[1], t[5]) for t in acc_lines] == [(10, pytest.approx(2 / 3)), (30, 0.0)]


class FakeReport:
    def __init__(self):
        self.charts = []

    def bar_chart(self, title, rows, *, x, hue=None, ylabel="share"):
        self.charts.append((title, rows, x, hue))

    def heatmap(self, *a, **k):
        pass


def test_hard_notion_plots_keep_n10_and_n30_apart():
    rep = FakeReport()
    alg.plots(table20_scores(), rep)
    gen = next(rows for title, rows, *_ in rep.charts if "generation" in title)
    got = {(r["group"]["notion"], r["group"]["condition"]): (r["k"], r["n"]) for r in gen}
    assert got[("strict_core, n = 10", "E, with {}")] == (2, 3)
    assert got[("strict_core, n = 30", "E, with {}")] == (0, 3)
    assert got[("strict_core, n = 10", "NE, with {}")] == (1, 2)
    sel = next(rows for title, rows, *_ in rep.charts if "selection" in title)
    assert [r["group"]["notion"] for r in sel] == ["strict_core, n = 10"]


# ----------------------------------------------------------------------------- selection

def selection_scores():
    s = "selection"
    return [
        hard("alpha", "strict_core", True, 10, s, True, "correct", nota=False),
        hard("alpha", "strict_core", True, 10, s, True, "incorrect", nota=False),
        hard("alpha", "strict_core", False, 10, s, True, "correct", nota=True),
        hard("alpha", "strict_core", False, 10, s, True, "incorrect", nota=False),
        hard("alpha", "strict_core", False, 10, s, True, "timeout"),
        hard("alpha", "strict_core", False, 10, s, False, "correct", nota=True,
             declined=True),
        hard("beta", "super_stable", False, 30, s, True, "correct", nota=True),
        hard("beta", "super_stable", True, 30, s, True, "incorrect", nota=True),
    ]


def test_table23_nota_share_with_nota_offered_only():
    rs = ar.table23(selection_scores())
    assert rs.key == "kw-table23" and rs.factors == ["existence"]
    assert (one(rs, model="alpha", existence="E")["k"],
            one(rs, model="alpha", existence="E")["n"]) == (0, 2)
    ne = one(rs, model="alpha", existence="NE")          # the no-NOTA menu is left out
    assert (ne["k"], ne["n"]) == (1, 3)
    assert one(rs, model="beta", existence="NE")["value"] == 1.0
    assert one(rs, model="beta", existence="E")["value"] == 1.0


def test_fig13_selection_accuracy_with_and_without_nota():
    rs = ar.fig13(selection_scores())
    base = dict(model="alpha", notion="strict_core", size=10)
    assert one(rs, existence="E", menu="with NOTA", **base)["value"] == 0.5
    r = one(rs, existence="NE", menu="with NOTA", **base)
    assert (r["k"], r["n"]) == (1, 3)
    assert one(rs, existence="NE", menu="without NOTA", **base)["value"] == 1.0
    assert one(rs, model="beta", existence="E")["value"] == 0.0
    assert len(rs.rows) == 5


# ----------------------------------------------------------------------------- Fig. 5

def test_fig5_errors_pooled_over_notions_per_hatch_and_size():
    g = "generation"
    scores = [
        hard("alpha", "strict_core", True, 30, g, True, "correct"),
        hard("alpha", "strongly_stable", True, 30, g, True, "incorrect"),
        hard("alpha", "super_stable", True, 30, g, True, "invalid"),
        hard("alpha", "strict_core", False, 30, g, True, "correct"),
        hard("alpha", "super_stable", False, 30, g, True, "correct"),
        hard("alpha", "super_stable", False, 30, g, False, "timeout"),
        hard("alpha", "super_stable", False, 10, g, False, "correct"),
        hard("beta", "strict_core", True, 30, g, True, "ambiguous"),
        hard("alpha", "strict_core", True, 30, "selection", True, "incorrect"),
    ]
    a = ar.fig5(scores, "generation")
    assert a.key == "kw-fig5a" and a.source == "Khanna & Wang (2026), Fig. 5a"
    e = one(a, model="alpha", size=30, hatch="with {}", existence="E")
    assert (e["k"], e["n"]) == (2, 3)                       # errors: incorrect, invalid
    assert one(a, model="alpha", size=30, hatch="with {}", existence="NE")["value"] == 0.0
    assert one(a, model="alpha", size=30, hatch="without {}", existence="NE")["value"] == 1.0
    assert one(a, model="alpha", size=10, hatch="without {}", existence="NE")["value"] == 0.0
    assert one(a, model="beta")["value"] == 1.0             # ambiguous is an error
    assert len(a.rows) == 5
    b = ar.fig5(scores, "selection")
    assert b.key == "kw-fig5b" and [(r["hatch"], r["value"]) for r in b.rows] == \
        [("with NOTA", 1.0)]


# ----------------------------------------------------------------------------- Fig. 6

def test_fig6_share_correct_within_r_attempts():
    g = "generation"

    def refined(model, feasible, size, verdicts):
        return hard(model, "strict_core", feasible, size, g, True, verdicts[-1],
                    rounds=[{"round": i, "verdict": v} for i, v in enumerate(verdicts, 1)])
    scores = [
        refined("alpha", True, 10, ["incorrect", "correct"]),
        refined("alpha", True, 10, ["correct"]),
        refined("alpha", True, 10, ["incorrect", "incorrect", "incorrect"]),
        refined("alpha", False, 10, ["incorrect", "timeout"]),
        hard("alpha", "strict_core", True, 10, g, True, "correct"),     # not refined
        refined("beta", True, 30, ["correct"]),
    ]
    rs = ar.fig6(scores)
    assert rs.key == "kw-fig6" and rs.factors == ["problem", "size", "existence", "round"]
    e = {r["round"]: (r["k"], r["n"]) for r in rows_of(rs, model="alpha", existence="E")}
    assert e == {1: (1, 3), 2: (2, 3), 3: (2, 3)}
    ne = {r["round"]: (r["k"], r["n"]) for r in rows_of(rs, model="alpha", existence="NE")}
    assert ne == {1: (0, 1), 2: (0, 1), 3: (0, 1)}
    assert [(r["problem"], r["size"], r["round"], r["value"])
            for r in rows_of(rs, model="beta")] == [("strict_core", 30, 1, 1.0)]


@pytest.fixture(scope="module")
def alg_bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("alg") / "b"
    subprocess.run([PREFCERT, "generate", SUITE, "-o", str(out), "--per-cell", "1",
                    "--sizes", "10"], check=True, capture_output=True, text=True)
    return out


def test_refinement_output_is_a_scores_file_fig6_reads(alg_bench, tmp_path):
    from prefcert.bench.refine import refine
    from prefcert.bench.report import load_scores
    from prefcert.bench.score import Benchmark
    bench = Benchmark.read(alg_bench / "prompts.jsonl")
    p = next(x for x in bench.prompts if x["cell"]["design"] == "hard"
             and x["cell"]["task"] == "generation" and x["cell"]["feasible"]
             and x["cell"]["escape"])
    # a fake model that always answers {}: wrong on a feasible instance, three times
    cmd = [sys.executable, "-c", "print('<answer>{}</answer>')"]
    rec = refine(bench, p, cmd, rounds=3, model="fake")
    assert rec["model"] == "fake" and rec["attempts"] == 3 and rec["final"] == "incorrect"
    assert rec["verdict"] == "incorrect" and rec["id"] == p["id"] and rec["cell"] == p["cell"]
    assert [r["round"] for r in rec["rounds"]] == [1, 2, 3]
    assert rec.get("invalid_solution") is True        # the suite's fields of the last attempt
    f = tmp_path / "refine.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    rs = ar.fig6(load_scores(f))
    assert [(r["round"], r["k"], r["n"]) for r in rs.rows] == [(1, 0, 1), (2, 0, 1), (3, 0, 1)]
    assert rs.models() == ["fake"]


# ----------------------------------------------------------------------------- Fig. 9

def test_fig9_per_notion_accuracy_strict_complete_only():
    scores = [
        std("alpha", "HA-SO", "core", 10, "correct"),
        std("alpha", "HA-SO", "core", 10, "correct"),
        std("alpha", "HA-SO", "core", 30, "incorrect"),
        std("alpha", "OA-SO", "pareto_optimal", 10, "correct"),
        std("alpha", "OA-SO", "pareto_optimal", 10, "incorrect"),
        std("alpha", "HA-TO", "weak_core", 10, "correct"),          # ties: not Fig. 9
        std("alpha", "HA-SO", "unspecified", 10, "correct"),        # no notion named
        std("alpha", "HA-SO", "selection", 10, "correct"),
        std("beta", "SM-SO", "stable", 30, "timeout"),
    ]
    rs = ar.fig9(scores)
    got = {(r["model"], r["setting"], r["notion"], r["size"]): (r["k"], r["n"])
           for r in rs.rows}
    assert got == {("alpha", "HA-SO", "core", 10): (2, 2), ("alpha", "HA-SO", "core", 30): (0, 1),
                   ("alpha", "OA-SO", "pareto_optimal", 10): (1, 2),
                   ("beta", "SM-SO", "stable", 30): (0, 1)}


# ----------------------------------------------------------------------------- Figs. 10–11

def delta_scores():
    out = []
    for verdicts, setting, task in (
            (["correct"] * 3 + ["incorrect"], "HA-SO", "core"),
            (["correct"] + ["incorrect"] * 3, "HA-SI", "core"),
            (["correct"] * 2 + ["incorrect"] * 2, "HA-SO", "rank_maximal"),
            (["correct"] * 2 + ["incorrect"] * 2, "HA-SI", "rank_maximal"),
            (["correct"] * 4, "HA-TO", "weak_core"),
            (["correct"] * 2, "SM-SO", "stable"),
            (["correct", "incorrect"], "SM-TO", "weakly_stable"),
            (["correct"], "HA-TO", "pareto_optimal")):        # no SO counterpart answered
        out += [std("alpha", setting, task, 10, v) for v in verdicts]
    out += [std("beta", "HA-SO", "core", 30, "incorrect"),
            std("beta", "HA-SI", "core", 30, "correct")]
    return out


def test_fig10_si_minus_so_with_fisher_and_holm():
    rs = ar.fig10(delta_scores())
    core = one(rs, model="alpha", notion="core", size=10)
    assert core["value"] == pytest.approx(1 / 4 - 3 / 4)
    assert (core["k_a"], core["n_a"], core["k_b"], core["n_b"]) == (3, 4, 1, 4)
    assert (core["SO"], core["SI"]) == (0.75, 0.25)
    # Fisher's tea-tasting table [[3, 1], [1, 3]]: p = 34/70; [[2, 2], [2, 2]]: p = 1
    assert core["pvalue"] == pytest.approx(34 / 70)
    rm = one(rs, model="alpha", notion="rank maximal", size=10)
    assert rm["value"] == 0.0 and rm["pvalue"] == pytest.approx(1.0)
    # Holm over alpha's two cells: 2 × 34/70, then max(that, 1)
    assert core["pvalue_holm"] == pytest.approx(68 / 70)
    assert rm["pvalue_holm"] == pytest.approx(1.0)
    b = one(rs, model="beta")
    assert (b["notion"], b["size"], b["value"], b["pvalue_holm"]) == \
        ("core", 30, 1.0, pytest.approx(1.0))
    assert "Fisher" in rs.test and "Holm" in rs.test and "unpaired" in rs.test


def test_fig11_ties_minus_strict():
    rs = ar.fig11(delta_scores())
    got = {(r["domain"], r["notion"]): r["value"] for r in rows_of(rs, model="alpha")}
    assert got == {("house allocation", "core / weak core"): pytest.approx(0.25),
                   ("matching", "stable / weakly stable"): pytest.approx(-0.5)}
    m = one(rs, notion="stable / weakly stable")
    assert (m["S"], m["T"]) == (1.0, 0.5)
    assert not rows_of(rs, model="beta")      # beta answered no tied setting


# ----------------------------------------------------------------------------- Table 21

def mcnemar_scores():
    g = "generation"
    right = {"alpha": {1, 2, 3, 4, 5, 6, 7, 8}, "beta": {1, 2, 3}, "gamma": {1, 9, 10}}
    out = []
    for model, ok in right.items():
        ids = list(range(1, 11))
        if model == "beta":
            ids.reverse()                          # order does not matter: paired on id
        for i in ids:
            out.append(hard(model, "strict_core", i % 2 == 0, 10, g, i <= 5,
                            "correct" if i in ok else "incorrect", pid=f"p{i}"))
    out.append(hard("gamma", "strict_core", True, 10, g, True, "correct", pid="p11"))
    out.append(std("alpha", "HA-SO", "core", 10, "correct", pid="p20"))
    return out


def test_table21_pairwise_exact_mcnemar_with_holm_against_statsmodels():
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.multitest import multipletests
    rs = ar.table21(mcnemar_scores())
    assert rs.key == "kw-table21" and rs.source == "Khanna & Wang (2026), Table 21"
    got = {(r["model"], r["versus"]): r for r in rs.rows}
    assert set(got) == {("alpha", "beta"), ("alpha", "gamma"), ("beta", "gamma")}
    # discordant pairs by hand: alpha right / beta wrong on p4..p8, never the reverse;
    # alpha / gamma 7 and 2; beta / gamma 2 and 2; p11 (gamma only) and p20 are out
    hand = {("alpha", "beta"): (5, 0, 2 * 0.5 ** 5),
            ("alpha", "gamma"): (7, 2, 2 * (1 + 9 + 36) / 512),
            ("beta", "gamma"): (2, 2, 1.0)}
    tables = {("alpha", "beta"): [[3, 5], [0, 2]], ("alpha", "gamma"): [[1, 7], [2, 0]],
              ("beta", "gamma"): [[1, 2], [2, 5]]}
    for pair, (b, c, p) in hand.items():
        r = got[pair]
        assert r["n"] == 10 and (r["only_first"], r["only_second"]) == (b, c)
        assert r["pvalue"] == pytest.approx(p)
        assert r["pvalue"] == pytest.approx(mcnemar(tables[pair], exact=True).pvalue)
    pairs = list(hand)
    holm = multipletests([got[k]["pvalue"] for k in pairs], method="holm")[1]
    for k, h in zip(pairs, holm):
        assert got[k]["value"] == pytest.approx(h)
    assert got[("alpha", "beta")]["value"] == pytest.approx(3 * 0.0625)       # by hand
    assert got[("alpha", "gamma")]["value"] == pytest.approx(2 * 92 / 512)
    assert got[("alpha", "beta")]["accuracy_first"] == 0.8
    assert "McNemar" in rs.test and "Holm" in rs.test and "3 pair" in rs.test
    cols, table = pivot(rs)                      # upper triangle: versus × model
    assert cols == ["versus", "alpha", "beta"]
    assert [t[0] for t in table] == ["beta", "gamma"] and table[0][2] is None


def test_table21_subsets():
    # with the hatch: p1..p5; alpha right on all, beta on p1..p3, gamma on p1
    rs = ar.table21(mcnemar_scores(), subset="hard-generation-hatch")
    r = one(rs, model="alpha", versus="beta")
    assert (r["n"], r["only_first"], r["only_second"]) == (5, 2, 0)
    assert r["pvalue"] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="unknown subset"):
        ar.table21(mcnemar_scores(), subset="nope")


# ----------------------------------------------------------------------------- Table 22

def test_table22_interval_overlap_criterion():
    out = []
    for i in range(10):
        # cell 1: generation 0/10, selection 10/10 -> Wilson [0, .2775] vs [.7225, 1]
        out.append(hard("alpha", "strict_core", True, 10, "generation", True, "incorrect"))
        out.append(hard("alpha", "strict_core", True, 10, "selection", True, "correct"))
        # cell 2: 5/10 vs 6/10 -> the intervals overlap
        out.append(hard("alpha", "super_stable", False, 30, "generation", False,
                        "correct" if i < 5 else "incorrect"))
        out.append(hard("alpha", "super_stable", False, 30, "selection", False,
                        "correct" if i < 6 else "incorrect"))
    out.append(hard("alpha", "strongly_stable", True, 10, "generation", True, "correct"))
    out.append(hard("beta", "strict_core", True, 10, "generation", True, "correct"))
    out.append(hard("beta", "strict_core", True, 10, "selection", True, "incorrect"))
    summary, cells = ar.table22(out)
    assert summary.key == "kw-alg-table22" and cells.key == "kw-alg-table22-cells"
    assert one(summary, model="alpha", measure="significant cells")["value"] == 1
    assert one(summary, model="alpha", measure="cells compared")["value"] == 2
    assert one(summary, model="beta", measure="significant cells")["value"] == 0
    c1 = one(cells, model="alpha", notion="strict_core")
    assert c1["separated"] is True and c1["value"] == 1.0
    assert c1["generation_high"] == pytest.approx(0.2775, abs=1e-4)
    assert c1["selection_low"] == pytest.approx(0.7225, abs=1e-4)
    c2 = one(cells, model="alpha", notion="super_stable")
    assert (c2["existence"], c2["escape"], c2["separated"]) == ("NE", "not offered", False)
    assert c2["value"] == pytest.approx(0.1)
    assert not rows_of(cells, notion="strongly_stable")    # no selection answered
    assert summary.test.startswith("No test") and "overlapping" in summary.test


# ----------------------------------------------------------------------------- the hook

def test_suite_results_hook_names_every_set_and_draws_it():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from prefcert.bench.suites import suite
    scores = table20_scores() + selection_scores() + delta_scores() + mcnemar_scores()
    scores.append({**std("x", "HA-SO", "core", 10, "correct"), "suite": "other-suite"})
    unnamed = std(None, "OA-SO", "utilitarian", 10, "correct")
    del unnamed["model"]
    scores.append(unnamed)
    assert [s.key for s in suite(SUITE).results(scores)] == [
        "kw-table20", "kw-fig13", "kw-table23", "kw-fig5a", "kw-fig5b", "kw-fig9",
        "kw-fig10", "kw-fig11", "kw-table21", "kw-alg-table22", "kw-alg-table22-cells"]
    # a refined record (its verdict is the third attempt's) feeds Fig. 6 only
    scores.append(hard("alpha", "strict_core", True, 10, "generation", True, "correct",
                       rounds=[{"verdict": "incorrect"}, {"verdict": "incorrect"},
                               {"verdict": "correct"}]))
    sets = suite(SUITE).results(scores)
    keys = [s.key for s in sets]
    assert keys == ["kw-table20", "kw-fig13", "kw-table23", "kw-fig5a", "kw-fig5b",
                    "kw-fig6", "kw-fig9", "kw-fig10", "kw-fig11", "kw-table21",
                    "kw-alg-table22", "kw-alg-table22-cells"]
    t20 = sets[0]
    assert one(t20, model="alpha", notion="strict_core", size=10, existence="E",
               hatch="with {}", measure="accuracy")["n"] == 3 + 2  # Table 20 + p2, p4
    assert [r["value"] for r in sets[5].rows] == [0.0, 0.0, 1.0]
    assert all(s.source.startswith("Khanna & Wang (2026), ") for s in sets)
    fig9 = next(s for s in sets if s.key == "kw-fig9")
    assert UNNAMED_MODEL in fig9.models() and "x" not in fig9.models()
    for s in sets:
        json.dumps(s.as_dict())
        if s.figure is not None:
            fig, ax = plt.subplots()
            s.figure(s, ax)
            assert ax.get_ylabel() or ax.get_yticklabels()
            plt.close(fig)
    from prefcert.bench.report import Report
    page = Report("three models")
    for s in sets:
        page.result_set(s)
    text = page.html()
    for s in sets:
        assert s.source.replace("&", "&amp;") in text
    # every set but the two count tables (Table 21, Table 22 summary) has a figure
    assert len(page.plot_titles) == sum(s.figure is not None for s in sets) == 10


def test_an_unknown_house_is_an_invalid_solution_not_a_left_out_agent(alg_bench):
    from prefcert.bench.score import Benchmark, score_prompt
    bench = Benchmark.read(alg_bench / "prompts.jsonl")
    p = next(x for x in bench.prompts if x["cell"]["design"] == "hard"
             and x["cell"]["notion"] == "strict_core" and x["cell"]["task"] == "generation"
             and x["cell"]["feasible"] and x["cell"]["escape"])
    endow = bench.instances[p["task"]["roles"]["hm"]]["endowment"]
    bad = score_prompt(p, '<answer>{"A1": "no such house"}</answer>', bench.entry(p))
    assert bad["verdict"] == "invalid" and bad.get("rule") is None
    # a partial allocation of real houses still reads as leaving the others out (R13)
    part = score_prompt(p, json.dumps({"A1": endow["A1"]}), bench.entry(p))
    assert (part["verdict"], part["rule"]) == ("incorrect", "R13:left_out_agent")
    t20 = ar.table20([{**bad, "model": "m"}, {**part, "model": "m"}])
    assert one(t20, measure="invalid solution")["k"] == 1
