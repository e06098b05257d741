"""The result sets of ``actionable-indeterminacy`` (Li et al. 2026) from hand-made scored
records of three fake models; every expected value is counted by hand in the comments."""
from __future__ import annotations

import pytest

from prefcert.bench.actionable.results import category_of, results
from prefcert.bench.results import pivot
from prefcert.bench.suites import suite

INTERVENTION = {"preference": "ask_preference", "objective": "ask_objective",
                "constraint": "relax"}
SOURCES = ("preference", "objective", "constraint")


def rec(model, design, fmt, structure, size, group, pair, source, role, answer):
    """One scored record as the suite's score writes it. ``answer``: ``ok`` (right and
    fully correct), ``content`` (right decision, content rejected), a decision word
    (wrong), ``unparsed``, ``timeout``, ``ambig_content``, ``ambig_reading``."""
    gold = "act" if role == "act" else INTERVENTION[source]
    cell_id = f"{structure}-n{size}-s0"
    r = {"design": design, "format": fmt, "structure": structure, "size": size,
         "source": source, "role": role, "pair": f"{pair}/{fmt}",
         "group": None if group is None else f"{group}/{fmt}", "cell_id": cell_id,
         "gold": gold, "cell": {"design": design, "structure": structure, "size": size,
                                "seed": 0, "source": source, "role": role, "format": fmt},
         "id": f"{model}-{pair}-{role}-{fmt}"}
    if model is not None:
        r["model"] = model
    if answer == "ok":
        r.update(decision=gold, decision_correct=True, fc=True, parsed_ok=True, error=None,
                 verdict="correct")
    elif answer in ("content", "ambig_content"):
        r.update(decision=gold, decision_correct=True, fc=False, parsed_ok=True, error=None,
                 verdict="incorrect" if answer == "content" else "ambiguous")
    elif answer in ("unparsed", "ambig_reading"):
        r.update(decision=None, decision_correct=False, fc=False, parsed_ok=False,
                 error="unparsed", verdict="invalid" if answer == "unparsed" else "ambiguous")
    elif answer == "timeout":
        r.update(decision=None, decision_correct=False, fc=False, parsed_ok=False,
                 error="timeout", verdict="timeout")
    else:
        err = "unnecessary" if gold == "act" else "missed" if answer == "act" else "wrong_kind"
        r.update(decision=answer, decision_correct=False, fc=False, parsed_ok=True, error=err,
                 verdict="incorrect")
    return r


def v3_group(model, group, answers):
    """Six V3 records of one group in the cell allocation / n = 4; ``answers``: (source,
    role) -> answer, default ``ok``."""
    return [rec(model, "v3", "original", "allocation", 4, group, f"{group}-{src}", src, role,
                answers.get((src, role), "ok"))
            for src in SOURCES for role in ("act", "intervention")]


def h5(model, fmt, answers):
    """Six H5 records (one pair per source, scheduling / n = 6) in one wording."""
    return [rec(model, "h5", fmt, "scheduling", 6, None, f"loc-{src}", src, role,
                answers.get((src, role), "ok"))
            for src in SOURCES for role in ("act", "intervention")]


P, O, C = SOURCES
A_, I_ = "act", "intervention"

SCORES = [
    # model A, V3 group g1: an unnecessary ASK-OBJECTIVE on the objective ACT task, a
    # RELAX whose content is rejected; g2: a missed intervention (ACT on the preference
    # intervention task), a wrong-kind one (RELAX on the objective intervention task), the
    # preference ACT task's action rejected
    *v3_group("A", "g1", {(O, A_): "ask_objective", (C, I_): "content"}),
    *v3_group("A", "g2", {(P, I_): "act", (O, I_): "relax", (P, A_): "content"}),
    # model A, H5 original: preference ACT wrong, objective intervention content rejected,
    # constraint intervention missed; explicit: constraint ACT answered RELAX, constraint
    # intervention still missed
    *h5("A", "original", {(P, A_): "ask_preference", (O, I_): "content", (C, I_): "act"}),
    *h5("A", "explicit_json", {(C, A_): "relax", (C, I_): "act"}),
    # model B, V3: g1 all right, g2's preference ACT task unparsed; H5: every original
    # response unparsed, every explicit one right
    *v3_group("B", "g1", {}),
    *v3_group("B", "g2", {(P, A_): "unparsed"}),
    *h5("B", "original", {(s, r): "unparsed" for s in SOURCES for r in (A_, I_)}),
    *h5("B", "explicit_json", {}),
    # a third model with no name (the records carry no "model"): V3 g1 with a timeout,
    # an ambiguous content and an ambiguous reading
    *v3_group(None, "g1", {(P, A_): "timeout", (O, I_): "ambig_content",
                           (C, I_): "ambig_reading"}),
]


@pytest.fixture(scope="module")
def sets():
    return {rs.key: rs for rs in results(SCORES)}


def _row(rs, model, **factors):
    (r,) = [r for r in rs.rows if r["model"] == model
            and all(r.get(k) == v for k, v in factors.items())]
    return r


def test_the_suite_exposes_its_result_sets(sets):
    assert suite("actionable-indeterminacy").results is results
    assert list(sets) == ["li-table5", "li-by-structure", "li-by-source", "li-by-size",
                          "li-cells", "li-fig4", "li-h5-transitions", "li-h5-mcnemar",
                          "li-appc"]
    assert sets["li-table5"].models() == ["A", "B", "model"]
    for rs in sets.values():
        assert rs.source.startswith("Li et al. (2026)")


def test_metric_table_by_hand(sets):
    rs = sets["li-table5"]
    v3 = {"design": "v3", "format": "original"}
    want = {  # model A, V3: 12 tasks, 6 pairs, 2 groups
        "accuracy": (9, 12),         # 3 wrong decisions
        "fc": (7, 12),               # g1: 6 − 2; g2: 6 − 3
        "ifc": (3, 6),               # pairs right: g1 pref, g1 cons, g2 cons
        "all_six": (0, 2), "all_six_fc": (0, 2),
        "unnecessary_intervention": (1, 6), "missed_intervention": (1, 6),
        "wrong_kind_intervention": (1, 6),
    }
    for metric, (k, n) in want.items():
        r = _row(rs, "A", metric=metric, **v3)
        assert (r["k"], r["n"]) == (k, n), metric
        assert r["value"] == pytest.approx(k / n)
        assert r["low"] <= r["value"] <= r["high"]
    # independence reference over (cell, source): preference 2/6 · 1 · ½, objective
    # 2/6 · ½ · ½, constraint 2/6 · 1 · 1  ->  1/6 + 1/12 + 1/3 = 7/12 (IFC is 6/12)
    ref = _row(rs, "A", metric="ifc_reference", **v3)
    assert ref["value"] == pytest.approx(7 / 12) and ref["n"] == 6 and "k" not in ref
    b = {m: _row(rs, "B", metric=m, **v3) for m in ("accuracy", "ifc", "all_six",
                                                    "unnecessary_intervention")}
    assert (b["accuracy"]["k"], b["ifc"]["k"], b["all_six"]["k"]) == (11, 5, 1)
    assert b["unnecessary_intervention"]["k"] == 0     # an unparsed answer is no intervention
    # H5 carries no groups: no all-six row
    assert not [r for r in rs.rows if r["design"] == "h5" and r["metric"] == "all_six"]
    # A, H5 original: accuracy 4/6 (preference ACT and constraint intervention wrong)
    assert _row(rs, "A", metric="accuracy", design="h5", format="original")["k"] == 4


def test_by_structure_source_size_and_cells(sets):
    src = _row(sets["li-by-source"], "A", design="v3", format="original",
               source="objective", metric="ifc")
    assert (src["k"], src["n"]) == (0, 2)
    assert not [r for r in sets["li-by-source"].rows if r["metric"].startswith("all_six")]
    st = _row(sets["li-by-structure"], "A", design="v3", format="original",
              structure="allocation", metric="all_six")
    assert (st["k"], st["n"]) == (0, 2)
    sz = _row(sets["li-by-size"], "B", design="h5", format="explicit_json", size=6,
              metric="fc")
    assert (sz["k"], sz["n"]) == (6, 6)
    cell = _row(sets["li-cells"], "A", design="v3", format="original", structure="allocation",
                size=4, source="preference", metric="accuracy")
    assert (cell["k"], cell["n"]) == (3, 4)       # g2's preference intervention missed
    cols, rows = pivot(sets["li-by-source"])
    assert cols == ["design", "format", "source", "metric", "A", "B", "model"]


def test_fig4_ifc_by_source_and_wording(sets):
    rs = sets["li-fig4"]
    assert rs.factors == ["source", "format"]
    want = {("A", "original"): {P: 0, O: 1, C: 0, "all": 1},
            ("A", "explicit_json"): {P: 1, O: 1, C: 0, "all": 2},
            ("B", "original"): {P: 0, O: 0, C: 0, "all": 0},
            ("B", "explicit_json"): {P: 1, O: 1, C: 1, "all": 3}}
    for (model, fmt), by in want.items():
        for src, k in by.items():
            r = _row(rs, model, source=src, format=fmt)
            assert (r["k"], r["n"]) == (k, 3 if src == "all" else 1), (model, fmt, src)
    assert not [r for r in rs.rows if r["model"] == "model"]      # no H5 answers


def test_h5_transitions_counted_by_hand(sets):
    rs = sets["li-h5-transitions"]

    def counts(model, unit, source):
        return tuple(_row(rs, model, unit=unit, source=source, transition=t)["value"]
                     for t in ("incorrect → correct", "correct → incorrect",
                               "correct in both", "incorrect in both"))
    # A, decisions on the six tasks: preference ACT improves, constraint ACT worsens,
    # constraint intervention wrong in both, three right in both
    assert counts("A", "decisions", "all") == (1, 1, 3, 1)
    assert counts("A", "decisions", P) == (1, 0, 1, 0)
    assert counts("A", "decisions", C) == (0, 1, 0, 1)
    # pairs: preference improves, objective right in both, constraint wrong in both
    assert counts("A", "pairs", "all") == (1, 0, 1, 1)
    # FC: preference ACT and objective intervention improve, constraint ACT worsens,
    # constraint intervention never, preference intervention and objective ACT always
    assert counts("A", "FC", "all") == (2, 1, 2, 1)
    assert counts("A", "FC", O) == (1, 0, 1, 0)
    assert counts("B", "decisions", "all") == (6, 0, 0, 0)
    assert counts("B", "pairs", "all") == (3, 0, 0, 0)
    assert _row(rs, "B", unit="pairs", source="all", transition="correct in both"
                )["unpaired"] == 0


def test_h5_transitions_leave_unpaired_tasks_out():
    """B's explicit answer to the preference ACT task is missing: that task and its pair
    are unpaired, the rest as before (decisions 5 improve, pairs 2)."""
    drop = [s for s in SCORES if not (s.get("model") == "B" and s["design"] == "h5" and
                                      s["format"] == "explicit_json" and
                                      s["source"] == P and s["role"] == A_)]
    rs = {r.key: r for r in results(drop)}["li-h5-transitions"]
    d = _row(rs, "B", unit="decisions", source="all", transition="incorrect → correct")
    p = _row(rs, "B", unit="pairs", source="all", transition="incorrect → correct")
    assert (d["value"], d["n"], d["unpaired"]) == (5, 5, 1)
    assert (p["value"], p["n"], p["unpaired"]) == (2, 2, 1)


def test_h5_mcnemar_with_holm(sets):
    rs = sets["li-h5-mcnemar"]
    assert "McNemar" in rs.test and "Holm" in rs.test and "same task" in rs.test
    b = {(r["unit"], r["source"]): r for r in rs.rows if r["model"] == "B"}
    assert len(b) == 12
    # B: 6 of 6 discordant tasks improve: p = 2 · (1/2)^6 = 1/32; 3 pairs: 2 · 1/8 = 1/4;
    # 2 tasks of a source: 2 · 1/4 = 1/2; 1 pair of a source: 1
    assert b[("decisions", "all")]["pvalue"] == pytest.approx(1 / 32)
    assert b[("pairs", "all")]["pvalue"] == pytest.approx(1 / 4)
    assert b[("FC", P)]["pvalue"] == pytest.approx(1 / 2)
    assert b[("pairs", O)]["pvalue"] == pytest.approx(1.0)
    # Holm over 12: the two smallest (1/32) -> max(12/32, 11/32) = 0.375; 1/4 · 10 > 1
    assert b[("decisions", "all")]["value"] == pytest.approx(0.375)
    assert b[("FC", "all")]["value"] == pytest.approx(0.375)
    assert b[("pairs", "all")]["value"] == pytest.approx(1.0)
    assert (b[("decisions", "all")]["improved"], b[("decisions", "all")]["worsened"]) == (6, 0)
    a = _row(rs, "A", unit="FC", source="all")
    assert (a["improved"], a["worsened"], a["pvalue"]) == (2, 1, pytest.approx(1.0))


def test_app_c_categories_partition_the_responses(sets):
    rs = sets["li-appc"]

    def k(model, cat, design="v3", fmt="original"):
        return _row(rs, model, design=design, format=fmt, category=cat)["k"]
    assert (k("A", "fc"), k("A", "wrong_decision"), k("A", "rejected_act"),
            k("A", "rejected_relax"), k("A", "rejected_ask_objective")) == (7, 3, 1, 1, 0)
    assert (k("B", "fc"), k("B", "unparsed")) == (11, 1)
    assert (k("model", "fc"), k("model", "timeout"), k("model", "ambiguous_content"),
            k("model", "ambiguous_reading")) == (3, 1, 1, 1)
    assert k("A", "rejected_ask_objective", "h5", "original") == 1
    assert k("B", "unparsed", "h5", "original") == 6
    for model in ("A", "B", "model"):
        part = [r for r in rs.rows if r["model"] == model and r["design"] == "v3"]
        assert sum(r["k"] for r in part) == part[0]["n"] == (12 if model != "model" else 6)
    assert category_of(SCORES[0]) == "fc"


def test_figures_draw(sets):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    for rs in sets.values():
        if rs.figure is None:
            continue
        fig, ax = plt.subplots()
        rs.figure(rs, ax)
        assert ax.patches, rs.key
        plt.close(fig)


def test_ifc_reference_row_prints_without_none():
    from prefcert.bench.actionable.suite import metrics
    from prefcert.bench.report import scores_report
    rows = [r for r in metrics(SCORES[:12]) if r["metric"] == "ifc_reference"]
    assert rows and all("k" not in r for r in rows)
    page = scores_report([{**s, "suite": "actionable-indeterminacy"} for s in SCORES[:12]]
                         ).html()
    assert "None/" not in page and "n=6" in page
