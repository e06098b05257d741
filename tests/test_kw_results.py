"""The result sets of the Khanna & Wang variant designs: Table 19 (App. H.5, ``design=h5``),
Tables 27-28 (App. M, ``design=mitigation``) of ``indeterminacy-preference`` and Table 29
(App. N, ``tools=code``) of ``indeterminacy-algorithmic``, each from hand-made scored
records of two fake models (verdicts written by hand, every expected cell counted by hand
in the comments); the variant records stay out of the main-design sets; the tables print and
draw as ``prefcert report`` shows them; the Table 20 rule on infeasible prompts without the
hatch, pinned to the paper's caption.
"""
from __future__ import annotations

import json
import pytest

from prefcert.bench.suites import suite

PREF, ALG = "indeterminacy-preference", "indeterminacy-algorithmic"
_ids = iter(range(1, 10**6))


def variant(model, case, design, verdict, **levels):
    """A scored record of an H.5 or mitigation cell (``levels``: ``level=`` or
    ``mitigation=``)."""
    fam, q, pref = ("atomic", "position", "SI") if case == "undetermined" else \
        ("bundle", "rs", "SO")
    fmt = "mcq" if levels.get("mitigation") == "L2_mcq" else "ff"
    return {"id": f"p{next(_ids)}", "suite": PREF, "model": model, "verdict": verdict,
            "determined": case == "rs_comparable",
            "cell": {"family": fam, "pref": pref, "question": q, "case": case, "size": 50,
                     "design": design, "format": fmt, **levels}}


def h5(model, case, level, verdict):
    return variant(model, case, "h5", verdict, level=level)


def mit(model, case, level, verdict):
    return variant(model, case, "mitigation", verdict, mitigation=level)


def main_record(model, verdict):
    return {"id": f"p{next(_ids)}", "suite": PREF, "model": model, "verdict": verdict,
            "determined": True,
            "cell": {"family": "atomic", "pref": "SO", "question": "kth",
                     "case": "determined", "size": 50, "format": "ff"}}


def code(model, notion, size, feasible, verdict):
    return {"id": f"a{next(_ids)}", "suite": ALG, "model": model, "verdict": verdict,
            "parsed": {"kind": "value"},
            "cell": {"design": "hard", "notion": notion, "feasible": feasible, "size": size,
                     "tools": "code", "task": "generation", "escape": True}}


def hard(model, notion, size, feasible, verdict):
    return {"id": f"a{next(_ids)}", "suite": ALG, "model": model, "verdict": verdict,
            "parsed": {"kind": "value"},
            "cell": {"design": "hard", "notion": notion, "feasible": feasible, "size": size,
                     "task": "generation", "escape": True}}


def pref_scores() -> list[dict]:
    return [
        # Table 19. alpha, RS-incomparable, level 1: 1 of 2; level 3: 1 of 3 (a timeout
        # and an invalid answer are wrong, and in n)
        h5("alpha", "rs_incomparable", 1, "correct"),
        h5("alpha", "rs_incomparable", 1, "incorrect"),
        h5("alpha", "rs_incomparable", 3, "timeout"),
        h5("alpha", "rs_incomparable", 3, "invalid"),
        h5("alpha", "rs_incomparable", 3, "correct"),
        # alpha, unranked item, level 2: 2 of 2
        h5("alpha", "undetermined", 2, "correct"),
        h5("alpha", "undetermined", 2, "correct"),
        # control, level 1: alpha 1 of 1, beta 3 of 4
        h5("alpha", "rs_comparable", 1, "correct"),
        h5("beta", "rs_comparable", 1, "incorrect"),
        h5("beta", "rs_comparable", 1, "correct"),
        h5("beta", "rs_comparable", 1, "correct"),
        h5("beta", "rs_comparable", 1, "correct"),
        # Table 27. alpha L1: determined 2 of 2, undetermined 0 of 1; alpha L3 general,
        # undetermined: 1 of 2 (ambiguous is wrong); beta L4 few-shot, determined: 0 of 1
        mit("alpha", "rs_comparable", "L1_bare", "correct"),
        mit("alpha", "rs_comparable", "L1_bare", "correct"),
        mit("alpha", "rs_incomparable", "L1_bare", "incorrect"),
        mit("alpha", "rs_incomparable", "L3_general", "correct"),
        mit("alpha", "rs_incomparable", "L3_general", "ambiguous"),
        mit("beta", "rs_comparable", "L4_few_shot", "timeout"),
        mit("beta", "rs_incomparable", "L2_mcq", "correct"),
        # Table 28. alpha cross-source 1 of 3, alpha L1 0 of 1, beta in-domain 1 of 1
        mit("alpha", "undetermined", "L4_cross_source", "correct"),
        mit("alpha", "undetermined", "L4_cross_source", "incorrect"),
        mit("alpha", "undetermined", "L4_cross_source", "incorrect"),
        mit("alpha", "undetermined", "L1_bare", "incorrect"),
        mit("beta", "undetermined", "L4_in_domain", "correct"),
        # the main design: one record (Fig. 7: atomic, n = 50, 0 of 1)
        main_record("alpha", "incorrect"),
    ]


def cells(rs, *factors):
    """{(factor levels..., model): (k, n)} of a result set."""
    return {(*(r[f] for f in factors), r["model"]): (r["k"], r["n"]) for r in rs.rows}


def by_key(sets):
    return {s.key: s for s in sets}


def test_table19_task_by_level_per_model():
    sets = by_key(suite(PREF).results(pref_scores()))
    t = sets["kw-table19"]
    assert t.factors == ["task", "level"] and t.source == "Khanna & Wang (2026), Table 19"
    assert cells(t, "task", "level") == {
        ("RS-incomparable bundle", 1, "alpha"): (1, 2),
        ("RS-incomparable bundle", 3, "alpha"): (1, 3),
        ("unranked item", 2, "alpha"): (2, 2),
        ("determined bundle (control)", 1, "alpha"): (1, 1),
        ("determined bundle (control)", 1, "beta"): (3, 4)}
    r = next(r for r in t.rows if r["level"] == 3)
    assert r["value"] == pytest.approx(1 / 3) and r["low"] < 1 / 3 < r["high"]


def test_table27_determined_undetermined_by_level():
    t = by_key(suite(PREF).results(pref_scores()))["kw-table27"]
    assert t.factors == ["level", "query"]
    assert cells(t, "level", "query") == {
        ("L1_bare", "determined", "alpha"): (2, 2),
        ("L1_bare", "undetermined", "alpha"): (0, 1),
        ("L3_general", "undetermined", "alpha"): (1, 2),
        ("L4_few_shot", "determined", "beta"): (0, 1),
        ("L2_mcq", "undetermined", "beta"): (1, 1)}


def test_table28_unranked_item_by_level():
    t = by_key(suite(PREF).results(pref_scores()))["kw-table28"]
    assert t.factors == ["level"] and "cross-source" in t.note
    assert cells(t, "level") == {("L4_cross_source", "alpha"): (1, 3),
                                 ("L1_bare", "alpha"): (0, 1),
                                 ("L4_in_domain", "beta"): (1, 1)}


def test_variant_records_stay_out_of_the_main_sets():
    sets = by_key(suite(PREF).results(pref_scores()))
    # Fig. 7 sees the one main record only (h5 / mitigation bundles at n = 50 would add a
    # bundle row and atomic records to the atomic row)
    assert cells(sets["kw-fig7"], "family", "size") == {("atomic", 50, "alpha"): (0, 1)}
    assert "kw-fig3a" not in sets and "kw-table22" not in sets
    # only variant records: only the variant tables
    only = [s for s in pref_scores() if s["cell"].get("design") == "h5"]
    assert [s.key for s in suite(PREF).results(only)] == ["kw-table19"]


def alg_scores() -> list[dict]:
    return [
        # alpha, Shapley-Scarf n = 10: F 2 of 3 (a timeout, in n), I 1 of 2 (an invalid)
        code("alpha", "strict_core", 10, True, "correct"),
        code("alpha", "strict_core", 10, True, "correct"),
        code("alpha", "strict_core", 10, True, "timeout"),
        code("alpha", "strict_core", 10, False, "correct"),
        code("alpha", "strict_core", 10, False, "invalid"),
        # alpha, matching n = 50, I: 0 of 1; beta matching n = 30, F: 1 of 1
        code("alpha", "super_stable", 50, False, "incorrect"),
        code("beta", "super_stable", 30, True, "correct"),
        # the in-context hard design: Table 20 only (alpha strict core n = 10 E: 0 of 1)
        hard("alpha", "strict_core", 10, True, "incorrect"),
    ]


def test_table29_market_size_feasibility_per_model():
    sets = by_key(suite(ALG).results(alg_scores()))
    t = sets["kw-table29"]
    assert t.factors == ["market", "size", "existence"]
    assert cells(t, "market", "size", "existence") == {
        ("Shapley-Scarf", 10, "F", "alpha"): (2, 3),
        ("Shapley-Scarf", 10, "I", "alpha"): (1, 2),
        ("matching", 50, "I", "alpha"): (0, 1),
        ("matching", 30, "F", "beta"): (1, 1)}
    got = {(r["market"], r["size"], r["existence"], r["model"]): (r["timeouts"], r["invalid"])
           for r in t.rows}
    assert got[("Shapley-Scarf", 10, "F", "alpha")] == (1, 0)
    assert got[("Shapley-Scarf", 10, "I", "alpha")] == (0, 1)
    # the code-assisted records are not in Table 20: its one cell is the in-context record
    t20 = sets["kw-table20"]
    acc = [r for r in t20.rows if r["measure"] == "accuracy"]
    assert [(r["model"], r["notion"], r["size"], r["existence"], r["k"], r["n"])
            for r in acc] == [("alpha", "strict_core", 10, "E", 0, 1)]


def test_the_variant_tables_print_and_draw():
    """What ``prefcert report`` does with a set, in process: the terminal table (models as
    columns, the paper's table named) and the figure."""
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from rich.console import Console

    from prefcert.bench.results import print_result_set
    sets = [s for s in suite(PREF).results(pref_scores()) + suite(ALG).results(alg_scores())
            if s.key in ("kw-table19", "kw-table27", "kw-table28", "kw-table29")]
    assert [s.key for s in sets] == ["kw-table19", "kw-table27", "kw-table28", "kw-table29"]
    for rs in sets:
        buf = io.StringIO()
        print_result_set(Console(file=buf, width=200), rs)
        text = buf.getvalue()
        assert rs.source in text and "alpha" in text and "beta" in text
        json.dumps(rs.as_dict())
        fig, ax = plt.subplots()
        rs.figure(rs, ax)
        assert ax.get_ylabel() == "accuracy"
        plt.close(fig)


# ----------------------------------------------------------------------------- Table 20 rule

@pytest.fixture(scope="module")
def infeasible_core_prompts():
    """The infeasible strict-core generation prompts at n = 10 (one instance): with and
    without the {} hatch, built lazily (only that task is sampled and certified)."""
    from prefcert.bench.dataset import SuiteDataset
    ds = SuiteDataset(ALG, sizes=[10], per_cell=1,
                      cells={"design": "hard", "notion": "strict_core", "feasible": False,
                             "task": "generation"})
    got = {ds[i]["metadata"]["cell"]["escape"]: ds[i] for i in range(len(ds))}
    assert set(got) == {True, False}
    return got


def _verdict(entry: dict, answer: str | None) -> str:
    from prefcert.bench.design import Entry
    from prefcert.bench.score import score_prompt
    meta = entry["metadata"]
    return score_prompt(meta, answer, Entry(meta["labels"], meta["instances"]))["verdict"]


def test_infeasible_without_hatch_follows_the_papers_table20_rule(infeasible_core_prompts):
    """Khanna & Wang, Table 20's caption: on NE rows without the {} instruction "a
    response is correct if it is neither a timeout nor a valid one-to-one allocation"
    (§F.2.2: models may say so with None, "None" values or a disclaimer). So every
    hand-written answer below that is not an allocation — junk included — is correct by
    the paper's rule; a valid allocation (the endowment: no allocation is in an empty
    strict core) is incorrect; a timeout is a timeout. With the hatch, only {} is correct
    and junk is invalid."""
    no_hatch, hatch = infeasible_core_prompts[False], infeasible_core_prompts[True]
    endowment = json.dumps({f"A{i}": f"O{i}" for i in range(1, 11)})
    by_rule = {
        "No allocation in the strict core exists for this market.": "correct",
        "<answer>None</answer>": "correct",
        '<answer>{"A1": "None", "A2": "None"}</answer>': "correct",
        "asdf qwerty": "correct",                       # junk: not a valid allocation
        "": "correct",                                  # an empty response, likewise
        f"<answer>{endowment}</answer>": "incorrect",    # a valid one-to-one allocation
    }
    assert {a: _verdict(no_hatch, a) for a in by_rule} == by_rule
    assert _verdict(no_hatch, None) == "timeout"
    assert _verdict(hatch, "asdf qwerty") == "invalid"
    assert _verdict(hatch, "<answer>{}</answer>") == "correct"
    assert _verdict(hatch, f"<answer>{endowment}</answer>") == "incorrect"


def test_report_takes_the_h5_and_mitigation_designs_of_one_model_together(tmp_path):
    """Both designs number their prompts from 00001: one model's scores of the two, under
    one name, are one page (a prompt is its id within its cell), while the same file given
    twice is still refused as scored twice."""
    import os
    import shutil
    import subprocess
    import sys
    exe = shutil.which("prefcert", path=os.path.dirname(sys.executable)) or "prefcert"
    a, b = tmp_path / "h5.jsonl", tmp_path / "mit.jsonl"
    a.write_text(json.dumps({**h5("m", "rs_incomparable", 1, "correct"), "id": "00001"}) + "\n")
    b.write_text(json.dumps({**mit("m", "rs_incomparable", "L1_bare", "incorrect"),
                             "id": "00001"}) + "\n")
    page = tmp_path / "page.html"
    r = subprocess.run([exe, "report", str(a), str(b), "-o", str(page)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    html = page.read_text()
    assert 'data-key="kw-table19"' in html and 'data-key="kw-table27"' in html
    r = subprocess.run([exe, "report", str(a), str(a), "-o", str(tmp_path / "x.html")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "scored twice" in r.stderr
