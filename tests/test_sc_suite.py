"""The self-consistency elicitation suite (Ford et al. 2026): generated through the console
script, its counts checked against the paper's numbers (literals from Tables 1, 4 and 7),
and hand-made answers run end to end into ``prefcert consistency``.

Hand derivations for the end-to-end tests
-----------------------------------------
The answerer values every item of a domain the same: u = 400 (flights), 2400
(apartments), 600 (hotels). Under U(x, p) = u(x) − p an offer-pair answer is then
Y(a, b) = (u − q) − (u − p) = p − q and an item answer is u, for every cell: exactly
self-consistent. Its 15 completions per cell are the value +10, −10, +10, …, −10 (14
answers, 7 of each) and the value itself (the 15th): the cell mean is the value, with
spread, so every P1 and P2 residual is exactly 0 and no residual interval excludes 0
(0 rejections, 0 reversals of 96 P1 and 48 P2), and the fit is exact (RMSE 0).

The inconsistent answerer is the same except that every completion of one direct cell,
flights utterance 1 pair 1 (a = Northwind 5 h 00 at $345, b = Bluejay 4 h 00 at $430),
is raised by $300: direct mean 345 − 430 + 300 = 215 against a path sum of
(345 − m) + (m − 430) = −85 on both paths and a price-adjusted item difference of
(400 − 430) − (400 − 345) = −85. Each residual is 300, with a standard error near
10·√(14/15)/√15 · √3 ≈ 4.3 (three cells), so: P1 2 rejections and 2 supported
reversals (215 > 0 and −85 < 0, both far from 0), P2 1 and 1, all in flights; and all
three exceed the 25 % magnitude bound (300 − a few dollars ≥ 0.25 · (345 + 430)/2 =
96.875). Nothing else changes.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import cli as run



def jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sc") / "b"
    run("generate", "self-consistency", "-o", str(out))
    return out


# ------------------------------------------------------------------------ counts

def test_generated_counts_are_the_papers(bench):
    prompts = jsonl(bench / "prompts.jsonl")
    design = json.loads((bench / "design.json").read_text())
    manifest = json.loads((bench / "manifest.json").read_text())
    assert manifest["files"] == ["design.json"] and manifest["total"] == 424 == len(prompts)
    cells = design["cells"]
    assert all(p["cell_id"] in cells for p in prompts)
    assert len({p["cell_id"] for p in prompts}) == len(prompts) == len(cells)
    audit = [p for p in prompts if not cells[p["cell_id"]].get("stress")]
    # Table 1: 240 offer-pair queries, 60 item queries, 300 in all
    kinds = Counter(cells[p["cell_id"]]["type"] for p in audit)
    assert kinds == {"pair": 240, "item": 60} and len(audit) == 300
    per_dom = Counter((cells[p["cell_id"]]["domain"], cells[p["cell_id"]]["type"]) for p in audit)
    assert per_dom == {("flights", "pair"): 90, ("flights", "item"): 24,
                       ("apartments", "pair"): 90, ("apartments", "item"): 27,
                       ("hotels", "pair"): 60, ("hotels", "item"): 9}
    # 15 completions per cell, as epochs: 4,500 calls per model
    assert {p["epochs"] for p in prompts} == {15}
    assert sum(p["epochs"] for p in audit) == 4500
    # comparisons: P1 two per pair (96), P2 one (48): flights 18, apartments 18, hotels 12
    pairs = design["pairs"]
    assert sum(len(p["paths"]) for p in pairs) == 96
    p2 = Counter(p["domain"] for p in pairs if len(p["items"]) == 2)
    assert p2 == {"flights": 18, "apartments": 18, "hotels": 12}
    # pairs per utterance: 6, 6, 4 with 3 utterances each
    assert Counter((p["domain"], p["utterance_id"]) for p in pairs) == {
        **{("flights", u): 6 for u in "123"}, **{("apartments", u): 6 for u in "123"},
        **{("hotels", u): 4 for u in "123"}}


def test_geometry_is_the_papers(bench):
    design = json.loads((bench / "design.json").read_text())
    cells = {k: c for k, c in design["cells"].items() if not c.get("stress")}
    for dom, items, offers in (("flights", 19, 21), ("apartments", 21, 21), ("hotels", 3, 9)):
        mine = [c for c in cells.values() if c["domain"] == dom and c["type"] == "pair"]
        offs = {(o["item"], o["price"]) for c in mine for o in (c["a"], c["b"])}
        assert len({i for i, _ in offs}) == items and len(offs) == offers, dom
    # item queries per utterance: 8, 9, 3
    per_utt = Counter((c["domain"], c["utterance_id"]) for c in cells.values()
                      if c["type"] == "item")
    assert {d: per_utt[(d, "1")] for d in ("flights", "apartments", "hotels")} == \
        {"flights": 8, "apartments": 9, "hotels": 3}
    # 3 named source offers for flights and apartments; hotels: a 3 x 3 grid
    for dom in ("flights", "apartments"):
        sources = {(cells[p["direct"]]["a"]["item"], cells[p["direct"]]["a"]["price"])
                   for p in design["pairs"] if p["domain"] == dom}
        assert len(sources) == 3
    hotel = {(o["item"], o["price"]) for c in cells.values() if c["domain"] == "hotels"
             and c["type"] == "pair" for o in (c["a"], c["b"])}
    assert len({i for i, _ in hotel}) == 3 and len({p for _, p in hotel}) == 3
    # the price scales the paper implies (RMSE $ / RMSE % of Tables 2, 9, 10, worked by
    # hand with the rounding of both): flights 365.7-369.5, apartments 2,324-2,346, hotels
    # 549.9-550.1; ours: the mean endpoint price of every offer-pair query of a group
    for dom, lo, hi in (("flights", 365.7, 369.5), ("apartments", 2324, 2346),
                        ("hotels", 549.9, 550.1)):
        prices = [o["price"] for c in cells.values() if c["domain"] == dom and
                  c["utterance_id"] == "1" and c["type"] == "pair" for o in (c["a"], c["b"])]
        assert lo <= sum(prices) / len(prices) <= hi, dom
    # stress: 4 single-feature paths, k = 1, 2, 4, 8, 16, 31 cells each (separate)
    stress = design["stress_paths"]
    assert Counter(s["k"] for s in stress) == {1: 4, 2: 4, 4: 4, 8: 4, 16: 4}
    assert all(len(s["steps"]) == s["k"] for s in stress)
    scells = {c for s in stress for c in s["steps"]}
    assert len(scells) == 124 == sum(c.get("stress", False) for c in design["cells"].values())
    for s in stress:                      # one feature varies, the price is fixed
        c = [design["cells"][x] for x in s["steps"]]
        assert len({o["price"] for x in c for o in (x["a"], x["b"])}) == 1


def test_prompts_ask_for_a_number_and_reproduce(bench, tmp_path):
    prompts = jsonl(bench / "prompts.jsonl")
    p = next(p for p in prompts if p["cell_id"] == "flights-u1-p1-ab")
    assert "Offer A: a Northwind flight with a total travel time of 5 h 00 min, at $345." \
        in p["prompt"]
    assert "Offer B: a Bluejay flight with a total travel time of 4 h 00 min, at $430." \
        in p["prompt"]
    assert all("single number of US dollars" in q["prompt"] for q in prompts)
    assert p["answer_shape"] == "number"
    again = tmp_path / "again"
    run("generate", "self-consistency", "-o", str(again))
    for f in ("prompts.jsonl", "design.json", "manifest.json"):
        assert (again / f).read_bytes() == (bench / f).read_bytes(), f


def test_the_suite_scores_the_answer_format(bench, tmp_path):
    answers = tmp_path / "a.jsonl"
    answers.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "00001", "answer": "-$45"}, {"id": "00002", "answer": "About $120, I think."},
        {"id": "00003", "answer": "I cannot say."},
        {"id": "00004", "answer": "I would pay $300-$400."},
        {"id": "00005", "answer": "$350"}, {"id": "00006", "answer": None}]))
    out = tmp_path / "s.jsonl"
    r = run("score", str(bench), str(answers), "-o", str(out), "--json")
    got = {r["id"]: r for r in jsonl(out)}
    assert {k: r["verdict"] for k, r in got.items()} == \
        {"00001": "correct", "00002": "incorrect", "00003": "invalid", "00004": "ambiguous",
         "00005": "correct", "00006": "timeout"}
    # every record's parsed is {"kind", "value", "rule"} (README, docs/consistency.md)
    assert {k: (r["parsed"]["kind"], r["parsed"]["value"]) for k, r in got.items()} == {
        "00001": ("value", -45.0), "00002": ("value", 120.0), "00003": ("invalid", None),
        "00004": ("ambiguous", None), "00005": ("value", 350.0),
        "00006": ("timeout", None)}
    assert all(set(r["parsed"]) == {"kind", "value", "rule"} and r["parsed"]["rule"]
               for r in got.values())
    assert got["00004"]["parsed"]["rule"] == "text/range" and "range" in got["00004"]["reason"]
    assert got["00005"]["number_only"] is True and got["00002"]["number_only"] is False
    shares = {m["metric"]: m["value"] for m in map(json.loads, r.stdout.splitlines())
              if m.get("group") == {"suite": "self-consistency"}}
    assert shares["share_ambiguous"] == pytest.approx(1 / 6)


# ------------------------------------------------------------------ end to end

U = {"flights": 400, "apartments": 2400, "hotels": 600}


def answers(bench: Path, plant: dict[str, float]) -> list[dict]:
    out = []
    for p in jsonl(bench / "prompts.jsonl"):
        t = p["task"]
        y = t["a"]["price"] - t["b"]["price"] if t["query_type"] == "pair" else U[t["domain"]]
        y += plant.get(p["cell_id"], 0)
        for e in range(1, 16):
            d = 0 if e == 15 else (10 if e % 2 else -10)
            out.append({"id": p["id"], "answer": f"${y + d:,}", "epoch": e})
    return out


def test_answers_run_into_consistency_without_a_written_design(bench, tmp_path):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text("".join(json.dumps(r) + "\n" for r in answers(bench, {})))
    bad.write_text("".join(json.dumps(r) + "\n" for r in
                           answers(bench, {"flights-u1-p1-ab": 300})))
    r = run("consistency", str(good), str(bad), "--model", "good", "--model", "bad",
            "--design", str(bench), "--resamples", "399", "--no-certify", "--json")
    a = json.loads(r.stdout)
    assert {(x["model"], x["calls"], x["finite"], x["number_only"]) for x in a["parse"]} == \
        {("good", 4500, 4500, 4500), ("bad", 4500, 4500, 4500)}
    local = {(x["model"], x["kind"], x["domain"]): (x["n"], x["rejects"], x["reversals"],
                                                    x["exceeds_threshold"])
             for x in a["local"]}
    assert local[("good", "P1", None)] == (96, 0, 0, 0)
    assert local[("good", "P2", None)] == (48, 0, 0, 0)
    assert local[("bad", "P1", None)] == (96, 2, 2, 2)
    assert local[("bad", "P2", None)] == (48, 1, 1, 1)
    assert local[("bad", "P1", "flights")] == (36, 2, 2, 2)
    assert local[("bad", "P2", "hotels")] == (12, 0, 0, 0)
    bad_p1 = [c for c in a["comparisons"] if c["model"] == "bad" and c["reject"]]
    assert {(c["pair"], c["kind"]) for c in bad_p1} == {("flights-u1-p1", "P1"),
                                                        ("flights-u1-p1", "P2")}
    assert all(c["direct"] == pytest.approx(215) and c["constructed"] == pytest.approx(-85)
               and c["residual"] == pytest.approx(300) for c in bad_p1)
    # the paper's fit: one utility per audited item (19, 21, 3), exact for the good one
    items = {(g["model"], g["domain"]): g["items"] for g in a["groups"]}
    assert items[("good", "flights")] == 19 and items[("good", "apartments")] == 21 \
        and items[("good", "hotels")] == 3
    assert all(g["rmse"] < 1e-6 for g in a["groups"] if g["model"] == "good")


def test_bad_answers_exit_2_with_one_line(bench, tmp_path):
    cases = {"unknown": [{"id": "99999", "answer": "1", "model": "m"}],
             "twice": [{"id": "00001", "answer": "1", "epoch": 1, "model": "m"},
                       {"id": "00001", "answer": "2", "epoch": 1, "model": "m"}],
             "nomodel": [{"id": "00001", "answer": "1"}]}
    for name, recs in cases.items():
        f = tmp_path / f"{name}.jsonl"
        f.write_text("".join(json.dumps(r) + "\n" for r in recs))
        out = tmp_path / f"{name}.json"
        r = run("consistency", str(f), "--design", str(bench), "-o", str(out), check=False)
        assert r.returncode == 2, (name, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and str(f) in r.stderr, r.stderr
        assert not out.exists()


def test_inspect_epochs_feed_consistency(bench, tmp_path):
    """A mock model run as the Inspect task, 2 epochs over one cell per row (--per-cell 1:
    3 domains x 3 utterances x {pair, item} = 18 audit cells, and 4 stress rows): the log
    feeds prefcert consistency through each sample's own cell_id — 36 audit calls and 8
    stress calls, all number-only."""
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def script(messages, tools, tool_choice, config):
        o = ModelOutput.from_content(model="mockllm", content="-$45")
        o.usage = ModelUsage(input_tokens=10, output_tokens=4, total_tokens=14)
        return o
    log = inspect_eval("prefcert/self-consistency", model=get_model(
        "mockllm/model", custom_outputs=script), log_dir=str(tmp_path / "logs"),
        display="none", task_args={"sizes": 300, "per_cell": 1}, epochs=2)[0]
    assert log.status == "success" and len(log.samples) == 44
    parsed = tmp_path / "parsed.jsonl"
    r = run("consistency", str(tmp_path / "logs"), "--design", str(bench), "--no-certify",
            "--resamples", "99", "--json", "--parsed", str(parsed))
    a = json.loads(r.stdout)
    assert [(x["calls"], x["number_only"]) for x in a["parse"]] == [(36, 36)]
    assert [(x["calls"], x["number_only"]) for x in a["parse_stress"]] == [(8, 8)]
    design = json.loads((bench / "design.json").read_text())
    assert {x["cell_id"] for x in jsonl(parsed)} <= set(design["cells"])


def test_parameters_one_utterance_and_five_epochs(tmp_path):
    out = tmp_path / "one"
    run("generate", "self-consistency", "-o", str(out), "--param", "utterances=1",
        "--param", "epochs=5")
    prompts = jsonl(out / "prompts.jsonl")
    design = json.loads((out / "design.json").read_text())
    audit = [p for p in prompts if not design["cells"][p["cell_id"]].get("stress")]
    # one utterance: 114 / 3 + 117 / 3 + 69 / 3 = 38 + 39 + 23 = 100 cells, 500 calls
    assert len(audit) == 100 and sum(p["epochs"] for p in audit) == 500
    assert len(design["pairs"]) == 16
    r = run("generate", "self-consistency", "-o", str(tmp_path / "bad"), "--param",
            "utterances=4", check=False)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "bad" / "design.json").exists()


def test_the_inspect_task_draws_the_papers_15_completions_by_default():
    """Ford et al. draw 15 completions per cell: the task's epochs, unless --epochs says
    otherwise; a suite without an ``epochs`` parameter leaves Inspect's default."""
    pytest.importorskip("inspect_ai")
    from prefcert.bench.inspect.tasks import suite_task
    assert suite_task("self-consistency", sizes=300, per_cell=1).epochs == 15
    assert suite_task("voting-manipulation", sizes=3, per_cell=1).epochs is None
