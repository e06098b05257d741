"""The benchmark builder: suites as data, generation, parsing, scoring, statistics."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import HASHSEED_0, cli, headless_page, require_chromium
from hypothesis import given
from hypothesis import strategies as st

from prefcert.bench import answers as P
from prefcert.bench import stats
from prefcert.bench.suites import SUITES, suite


def run(*args, env=None, check=True):
    return cli(*args, env={**HASHSEED_0, **(env or {})}, check=check)


def read_jsonl(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.fixture(scope="module")
def pref_bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pref") / "b"
    run("generate", "indeterminacy-preference", "-o", str(out), "--per-cell", "1")
    return out


# ------------------------------------------------------------------ design and generation

@pytest.mark.parametrize("name", [n for n in SUITES])
def test_full_design_has_the_published_total(name):
    s = suite(name)
    comp = s.composition()
    assert s.expected_total is not None and sum(comp.values()) == s.expected_total
    if all(row.per_cell is None for row in s.rows(s.sizes)):   # one count for every cell
        assert sum(s.composition(per_cell=1).values()) * s.per_cell == s.expected_total


def test_preference_design_totals_per_family():
    comp = suite("indeterminacy-preference").composition()
    fam: dict = {}
    for k, v in comp.items():
        c = json.loads(k)
        key = (c["family"], c["pref"])
        fam[key] = fam.get(key, 0) + v
    # the rows of the paper's Table 3
    assert fam == {("atomic", "SO"): 360, ("atomic", "SI"): 540, ("comparative", "SO"): 360,
                   ("comparative", "SI"): 720, ("bundle", "SO"): 300, ("bundle", "SI"): 60,
                   ("bundle", "TO"): 60, ("topk", "TO"): 120, ("aggregative", "SO"): 120,
                   ("aggregative", "SI"): 120, ("aggregative", "TO"): 60,
                   ("partial_order", "pairwise"): 420, ("partial_order", "choices"): 120}


def test_generate_writes_certified_reproducible_files(pref_bench, tmp_path):
    m = json.loads((pref_bench / "manifest.json").read_text())
    assert m["total"] == 112 == len(read_jsonl(pref_bench / "prompts.jsonl"))
    assert m["labels"] == m["labels_checked"] == len(read_jsonl(pref_bench / "labels.jsonl"))
    assert sum(c["prompts"] for c in m["composition"]) == m["total"]
    assert all(lab["checked"] is True for lab in read_jsonl(pref_bench / "labels.jsonl"))
    r = run("check", str(pref_bench / "labels.jsonl"))
    assert "every certificate verified" in r.stdout
    again = tmp_path / "again"
    run("generate", "indeterminacy-preference", "-o", str(again), "--per-cell", "1",
        env={"PYTHONHASHSEED": "7"})           # same bytes under any hash seed
    for f in ("instances.jsonl", "labels.jsonl", "prompts.jsonl", "manifest.json"):
        assert (again / f).read_bytes() == (pref_bench / f).read_bytes(), f
    other = tmp_path / "seed1"
    run("generate", "indeterminacy-preference", "-o", str(other), "--per-cell", "1",
        "--seed", "1", "--sizes", "50")
    assert (other / "instances.jsonl").read_bytes() != (pref_bench / "instances.jsonl").read_bytes()
    m1 = json.loads((other / "manifest.json").read_text())
    assert m1["seed"] == 1 and m1["sizes"] == [50]
    assert all(c["cell"].get("size", 50) == 50 for c in m1["composition"])


def test_algorithmic_suite_is_the_same_under_any_hash_seed(tmp_path):
    """Regression: the egalitarian variant came from a networkx matching over a set of
    nodes and the two-sided rank-maximal optimum from a set of edges, so the accepted draws
    (and every file) changed with PYTHONHASHSEED."""
    outs = []
    for h in ("1", "2"):
        out = tmp_path / h
        run("generate", "indeterminacy-algorithmic", "-o", str(out), "--sizes", "10",
            "--per-cell", "8", env={"PYTHONHASHSEED": h})
        outs.append(out)
    for f in ("instances.jsonl", "labels.jsonl", "prompts.jsonl", "manifest.json"):
        assert (outs[0] / f).read_bytes() == (outs[1] / f).read_bytes(), f


def test_natural_language_encodings_keep_the_gold(pref_bench, tmp_path):
    """--encoding renders the same instances in sentences or as a narrative; only the
    prompt text changes, never the instances or the labels, and the gold answers only by
    the names the prompt gives the items (its ``vocabulary``)."""
    import re
    base = read_jsonl(pref_bench / "prompts.jsonl")
    for enc, word in (("sentences", " likes "), ("narrative", "dish ")):
        out = tmp_path / enc
        run("generate", "indeterminacy-preference", "-o", str(out), "--per-cell", "1",
            "--encoding", enc)
        assert (out / "labels.jsonl").read_bytes() == (pref_bench / "labels.jsonl").read_bytes()
        got = read_jsonl(out / "prompts.jsonl")
        back = [re.sub(r"dish (\d+)", r"C\1", p["answer"]) for p in got]
        assert back == [p["answer"] for p in base]
        assert json.loads((out / "manifest.json").read_text())["encoding"] == enc
        changed = [p for p, q in zip(got, base) if p["prompt"] != q["prompt"]]
        assert changed and any(word in p["prompt"] for p in changed)
    bad = run("generate", "indeterminacy-preference", "-o", str(tmp_path / "x"),
              "--encoding", "yaml", check=False)
    assert bad.returncode == 2 and not (tmp_path / "x").exists()
    # a regression: a suite that renders no preference lists took --encoding silently
    # (its manifest said narrative over json prompts)
    bad = run("generate", "voting-manipulation", "-o", str(tmp_path / "v"),
              "--encoding", "narrative", check=False)
    assert bad.returncode == 2 and not (tmp_path / "v").exists()
    assert "renders preferences as json: 'narrative'" in bad.stderr


def test_prompt_records_have_the_promised_fields(pref_bench):
    prompts = read_jsonl(pref_bench / "prompts.jsonl")
    labels = {lab["label_id"] for lab in read_jsonl(pref_bench / "labels.jsonl")}
    for p in prompts:
        for key in ("id", "instance_id", "question", "format", "prompt", "answer_shape",
                    "gold_label_ids", "answer", "cell"):
            assert key in p, key
        assert set(p["gold_label_ids"]) <= labels
        assert "<preferences>" in p["prompt"]
    mcq = [p for p in prompts if p["format"] == "mcq"]
    assert mcq and all(p["options"][p["abstain_option"]] ==
                       "The information given is insufficient to decide." for p in mcq)


def test_bad_generate_input_is_one_line_exit_2(tmp_path):
    r = run("generate", "no-such-suite", "-o", str(tmp_path / "x"), check=False)
    assert r.returncode == 2 and r.stderr.startswith("prefcert: error:") and "no-such-suite" in r.stderr
    r = run("generate", "indeterminacy-preference", "-o", str(tmp_path / "y"), "--sizes", "7",
            check=False)
    assert r.returncode == 2 and "7" in r.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


# ------------------------------------------------------------------ scoring the preference suite

def _score(bench: Path, answers: dict, tmp_path: Path) -> dict:
    a = tmp_path / "answers.jsonl"
    a.write_text("".join(json.dumps({"id": k, "answer": v}) + "\n" for k, v in answers.items()))
    out = tmp_path / "scores.jsonl"
    run("score", str(bench / "prompts.jsonl"), str(a), "-o", str(out))
    return {s["id"]: s for s in read_jsonl(out)}


def _find(prompts, **cell):
    return next(p for p in prompts if all(p["cell"].get(k) == v for k, v in cell.items()))


def test_gold_answers_score_correct(pref_bench, tmp_path):
    prompts = read_jsonl(pref_bench / "prompts.jsonl")
    scores = _score(pref_bench, {p["id"]: f"Reasoning… <answer>{p['answer']}</answer>"
                                 for p in prompts}, tmp_path)
    assert {s["verdict"] for s in scores.values()} == {"correct"}


def test_hand_made_preference_answers(pref_bench, tmp_path):
    prompts = read_jsonl(pref_bench / "prompts.jsonl")
    inst = {i["id"]: i for i in read_jsonl(pref_bench / "instances.jsonl")}
    und = _find(prompts, family="atomic", pref="SI", question="position", format="ffk")
    und_mcq = _find(prompts, family="atomic", pref="SI", question="position", format="mcq")
    det = _find(prompts, family="atomic", pref="SO", question="kth", format="ff")
    rank = _find(prompts, family="comparative", pref="SI", question="rank_set",
                 case="undetermined", format="ff")
    count = _find(prompts, family="aggregative", pref="SO", format="ff", size=50)
    lex = _find(prompts, family="bundle", pref="SO", case="one_vs_many")
    lex2 = _find(prompts, family="bundle", pref="SI", case="rs_incomparable")
    po = _find(prompts, family="partial_order", case="comparable", chain=3)
    # a committed answer to an undetermined query is wrong, abstaining is right
    agent_list = inst[und["instance_id"]]["profile"][und["question"]["agent"]]
    n_listed = sum(len(t) if isinstance(t, list) else 1 for t in agent_list)
    wrong_count = int(count["answer"]) + 3
    other_item = next(x for x in inst[det["instance_id"]]["items"] if x != det["answer"])
    full = " > ".join(rank["question"]["items"])
    big = "{" + ", ".join(sorted(lex["question"]["bundles"], key=len)[0]) + "}"
    small = "{" + ", ".join(lex2["task"]["lexicographic"]) + "}"
    upstream = po["answer"]
    downstream = next(x for x in po["question"]["items"] if x != upstream)
    answers = {
        und["id"]: f"<answer>{n_listed + 1}</answer>",
        und_mcq["id"]: f"<answer>{und_mcq['abstain_option']}</answer>",
        det["id"]: f"<answer>{other_item}</answer> on reflection <answer>{det['answer']}</answer>",
        rank["id"]: f"<answer>{full}</answer>",
        count["id"]: f"<answer>{wrong_count}</answer>",
        lex["id"]: f"<answer>{big}</answer>",
        lex2["id"]: f"Assuming a lexicographic comparison, <answer>{small}</answer>",
        po["id"]: f"```\n{downstream}\n```",
    }
    s = _score(pref_bench, answers, tmp_path)
    assert s[und["id"]]["verdict"] == "incorrect" and s[und["id"]]["committed"] is True
    assert s[und["id"]]["reason"]["certificate"] == "completions"
    assert s[und_mcq["id"]]["verdict"] == "correct"
    assert s[det["id"]]["verdict"] == "correct"                      # the last block wins
    assert s[rank["id"]]["verdict"] == "incorrect"                   # unlisted items ranked
    assert s[count["id"]]["verdict"] == "incorrect" and s[count["id"]]["abs_error"] == 3
    assert s[lex["id"]]["verdict"] == "incorrect"
    assert s[lex["id"]]["category"] == "silent_lexicographic"
    assert s[lex2["id"]]["category"] == "flagged_lexicographic"
    assert s[lex2["id"]]["lenient_correct"] is True
    assert s[po["id"]]["verdict"] == "incorrect"                     # code fence read
    assert s[po["id"]]["reason"]["certificate"] == "chain"


def test_timeouts_and_garbage(pref_bench, tmp_path):
    prompts = read_jsonl(pref_bench / "prompts.jsonl")
    a = tmp_path / "a.jsonl"
    a.write_text(json.dumps({"id": prompts[0]["id"], "answer": None}) + "\n"
                 + json.dumps({"id": prompts[1]["id"], "answer": "<answer>🙂 ??</answer>"}) + "\n"
                 + json.dumps({"id": prompts[2]["id"], "timeout": True}) + "\n")
    out = tmp_path / "s.jsonl"
    r = run("score", str(pref_bench / "prompts.jsonl"), str(a), "-o", str(out), "--json")
    v = [s["verdict"] for s in read_jsonl(out)]
    assert v == ["timeout", "invalid", "timeout"]
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    share = {x["metric"]: x for x in rows if x.get("metric", "").startswith("share_")}
    assert share["share_timeout"]["k"] == 2 and share["share_timeout"]["n"] == 3
    assert share["share_timeout"]["low"] < 2 / 3 < share["share_timeout"]["high"]


def test_score_names_the_model_of_a_single_answers_file(pref_bench, tmp_path):
    """Regression (fresh report 20): one ANSWERS file scored without --model gave every
    record "model": null. The model is the records' own "model" field, else the file's
    stem, and "model_from" says which."""
    first = read_jsonl(pref_bench / "prompts.jsonl")[0]
    out = tmp_path / "s.jsonl"
    a = tmp_path / "gpt-x.answers.jsonl"
    a.write_text(json.dumps({"id": first["id"], "answer": first["answer"]}) + "\n")
    run("score", pref_bench / "prompts.jsonl", a, "-o", out)
    assert [(r["model"], r["model_from"]) for r in read_jsonl(out)] == [("gpt-x", "file stem")]
    a.write_text(json.dumps({"id": first["id"], "answer": "x", "model": "m-1"}) + "\n")
    run("score", pref_bench / "prompts.jsonl", a, "-o", out)
    assert [(r["model"], r["model_from"]) for r in read_jsonl(out)] == [("m-1", "records")]
    run("score", pref_bench / "prompts.jsonl", a, "-o", out, "--model", "M")
    assert [(r["model"], r["model_from"]) for r in read_jsonl(out)] == [("M", "--model")]
    second = read_jsonl(pref_bench / "prompts.jsonl")[1]
    a.write_text(json.dumps({"id": first["id"], "answer": "x", "model": "m-1"}) + "\n" +
                 json.dumps({"id": second["id"], "answer": "x", "model": "m-2"}) + "\n")
    r = run("score", pref_bench / "prompts.jsonl", a, check=False)
    assert r.returncode == 2 and f"{a}:2:" in r.stderr and "a second model" in r.stderr


def test_score_rejects_unknown_prompt_ids(pref_bench, tmp_path):
    a = tmp_path / "a.jsonl"
    a.write_text(json.dumps({"id": "nope", "answer": "x"}) + "\n")
    r = run("score", str(pref_bench / "prompts.jsonl"), str(a), check=False)
    assert r.returncode == 2 and "nope" in r.stderr


def test_score_refuses_a_prompt_answered_twice_and_says_what_is_unanswered(pref_bench,
                                                                           tmp_path):
    """Regression: a repeated id was scored last-wins, and unanswered prompts silently
    left the denominators."""
    first = read_jsonl(pref_bench / "prompts.jsonl")[0]
    a = tmp_path / "a.jsonl"
    a.write_text(json.dumps({"id": first["id"], "answer": first["answer"]}) + "\n" +
                 json.dumps({"id": first["id"], "answer": "garbage"}) + "\n")
    r = run("score", str(pref_bench / "prompts.jsonl"), str(a), check=False)
    assert r.returncode == 2 and f"{a}:2:" in r.stderr and "second answer" in r.stderr
    a.write_text(json.dumps({"id": first["id"], "answer": first["answer"]}) + "\n")
    r = run("score", str(pref_bench / "prompts.jsonl"), str(a))
    n = len(read_jsonl(pref_bench / "prompts.jsonl"))
    assert f"{n - 1} of {n} prompts have no answer" in r.stderr.replace("\n", " ")


def _cut(src: Path, dst: Path, name: str, drop: str) -> Path:
    """A copy of the benchmark ``src`` with the record of ``name`` whose line holds
    ``drop`` deleted."""
    import shutil
    shutil.copytree(src, dst)
    lines = (dst / name).read_text(encoding="utf-8").splitlines(keepends=True)
    (dst / name).write_text("".join(x for x in lines if drop not in x), encoding="utf-8")
    return dst


def test_every_reader_of_a_benchmark_refuses_a_missing_instance_or_label(pref_bench,
                                                                         tmp_path):
    """Regression (found by a new user): a folder missing an instance scored with exit 0
    and the prompts on it 'invalid' (scorer_error KeyError); missing a label, exit 1 and a
    traceback. Every reader of a folder (score, feedback, refine, export lm-eval; eval and
    Inspect's -T benchmark= read through the same Benchmark.read) now refuses it: one
    line naming the file and the id, exit 2, nothing written."""
    prompts = read_jsonl(pref_bench / "prompts.jsonl")
    first = prompts[0]
    inst_id, label_id = first["instance_ids"][0], first["gold_label_ids"][0]
    no_inst = _cut(pref_bench, tmp_path / "ni", "instances.jsonl", f'"id":"{inst_id}"')
    no_label = _cut(pref_bench, tmp_path / "nl", "labels.jsonl", f'"label_id":"{label_id}"')
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps({"id": p["id"], "answer": p["answer"]}) + "\n"
                            for p in prompts))
    one = tmp_path / "one.txt"
    one.write_text(first["answer"])
    for folder, file, missing in ((no_inst, "instances.jsonl", inst_id),
                                  (no_label, "labels.jsonl", label_id)):
        out = tmp_path / f"{folder.name}-scores.jsonl"
        for args in (("score", folder, gold, "-o", out),
                     ("score", folder / "prompts.jsonl", gold),
                     ("feedback", folder / "prompts.jsonl", one, "--id", first["id"]),
                     ("refine", folder, "--command", "cat", "-o", out),
                     ("export", "lm-eval", "indeterminacy-preference",
                      tmp_path / f"{folder.name}-lm", "--benchmark", folder)):
            r = run(*map(str, args), check=False)
            assert r.returncode == 2, (args, r.stderr[-2000:])
            lines = r.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"prefcert: error: {folder / file}: ")
            assert repr(missing) in lines[0] and "Traceback" not in r.stderr
        assert not out.exists() and not (tmp_path / f"{folder.name}-lm").exists()


def test_every_command_ends_quietly_with_141_when_stdout_is_closed(pref_bench, tmp_path):
    """Regression (found by a new user): with the reader of stdout gone (``| head``),
    score, report and domains exited 1 silently (rich's own SystemExit) while label and
    suites exited 141; every command now ends as label does: nothing on stderr, 141.
    The read end of the pipe is closed before the command starts, so the first write
    fails whatever the output's size."""
    import os
    import subprocess

    from conftest import PREFCERT
    prompts = read_jsonl(pref_bench / "prompts.jsonl")
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps({"id": p["id"], "answer": p["answer"]}) + "\n"
                            for p in prompts))
    scores = tmp_path / "scores.jsonl"
    run("score", str(pref_bench), str(gold), "-o", str(scores))
    for args in (("score", pref_bench, gold), ("score", pref_bench, gold, "--json"),
                 ("report", scores, "-o", tmp_path / "r.html"), ("domains",),
                 ("suites",), ("label", pref_bench / "instances.jsonl")):
        read, write = os.pipe()
        os.close(read)
        try:
            r = subprocess.run([PREFCERT, *map(str, args)], stdout=write,
                               stderr=subprocess.PIPE, text=True, env=HASHSEED_0)
        finally:
            os.close(write)
        assert (r.returncode, r.stderr) == (141, ""), (args, r.returncode, r.stderr[-2000:])


def test_commands_print_tables_through_the_one_shared_console():
    """The console of prefcert.cli.common is where a closed stdout becomes 141; a command
    building rich's Console itself would exit 1 again (the test above)."""
    cli_dir = Path(__file__).resolve().parents[1] / "prefcert" / "cli"
    direct = [f.name for f in sorted(cli_dir.glob("*.py")) if f.name != "common.py"
              and "rich.console import" in f.read_text(encoding="utf-8")]
    assert direct == []


# ------------------------------------------------------------------ parsers

@pytest.mark.parametrize("shape,text,kind,value", [
    ("item", "<answer>C9</answer>", "value", "C9"),
    ("item", "<answer>c3</answer> no wait <answer>C9</answer>", "value", "C9"),
    ("item", "<answer>Unknown</answer>", "abstain", None),
    ("item", "<answer>C99</answer>", "invalid", None),
    ("bundle", "<answer>Can’t decide</answer>", "abstain", None),
    ("bundle", "<answer>{C3, C1}</answer>", "value", ["C1", "C3"]),
    ("yesno", "<answer>uncertain</answer>", "abstain", None),
    ("yesno", "<answer>Yes.</answer>", "value", "yes"),
    ("mcq", "<answer>(b)</answer>", "value", "B"),
    ("mcq", "<answer>E</answer>", "invalid", None),
    ("mcq", "I pick <answer>C: There is not enough information</answer>", "value", "C"),
    ("ranking", "<answer>C2 > C1 > C3</answer>", "value", ["C2", "C1", "C3"]),
    ("ranking", "<answer>C2 > C2</answer>", "invalid", None),
    ("int", "<answer>12 agents</answer>", "value", 12),
    ("int", "<answer>12 or 13</answer>", "ambiguous", None),
    ("int", "<answer>insufficient information</answer>", "abstain", None),
    ("items", "<answer>C1, C2</answer>", "value", ["C1", "C2"]),
    ("outcome", "<answer>{}</answer>", "none", None),
    ("outcome", '```json\n{"A1": "O2"}\n```', "value", {"A1": "O2"}),
    ("outcome", "<answer>{A1: O2}</answer>", "value", {"A1": "O2"}),      # unquoted names
    ("outcome", '<answer>{"A1": "O2", "A1": "O1"}</answer>', "invalid", None),  # twice
    ("outcome", '<answer>{"A1": null}</answer>', "invalid", None),
    ("outcome", "\\boxed{{}}", "none", None),
])
def test_parsers(shape, text, kind, value):
    p = P.read(shape, text, vocab=["C1", "C2", "C3", "C9"],
               options={x: f"C{i}" for i, x in enumerate("ABCD", 1)})
    assert p.kind == kind and p.rule
    if kind == "value":
        assert p.value == value


@given(st.text(max_size=200), st.sampled_from(sorted(P.READERS)), st.sampled_from(P.MODES))
def test_parsers_never_raise(text, shape, mode):
    r = P.read(shape, text, mode=mode, vocab=["C1", "C2"], candidates=["A", "B"])
    assert r.kind in ("value", "abstain", "none", "invalid", "ambiguous")
    assert r.rule != "reader_error", r.reason


# ------------------------------------------------------------------ statistics

def test_wilson_matches_the_closed_form():
    # Wilson (1927): k = 0, n = 30 gives [0, z²/(n + z²)] with z = 1.959964
    low, high = stats.wilson(0, 30)
    z2 = 1.959964 ** 2
    assert low == pytest.approx(0.0, abs=1e-12) and high == pytest.approx(z2 / (30 + z2), rel=1e-5)
    low, high = stats.wilson(15, 30)
    assert low == pytest.approx(1 - high) and low == pytest.approx(0.3315, abs=1e-4)
    assert stats.wilson(0, 0) is None


def test_mcnemar_exact_and_fisher():
    # six discordant pairs, all one way: two-sided binomial p = 2 / 2**6
    r = stats.mcnemar_exact([True] * 6 + [False] * 4, [False] * 6 + [False] * 4)
    assert (r["only_first"], r["only_second"]) == (6, 0) and r["pvalue"] == pytest.approx(1 / 32)
    assert stats.mcnemar_exact([True, False], [True, False])["pvalue"] == 1.0
    # Fisher's tea-tasting table [[3, 1], [1, 3]]: two-sided p = 34/70 (Fisher 1935)
    assert stats.fisher_exact(3, 4, 1, 4)["pvalue"] == pytest.approx(34 / 70)


# ------------------------------------------------------------------ the algorithmic suite

@pytest.fixture(scope="module")
def alg_bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("alg") / "b"
    run("generate", "indeterminacy-algorithmic", "-o", str(out), "--per-cell", "1",
        "--sizes", "10")
    return out


def test_algorithmic_design_totals():
    comp = suite("indeterminacy-algorithmic").composition()
    per = {}
    for k, v in comp.items():
        c = json.loads(k)
        per[(c["design"], c["size"])] = per.get((c["design"], c["size"]), 0) + v
    assert per == {("standard", 10): 1110, ("standard", 30): 1110, ("hard", 10): 720,
                   ("hard", 30): 720}


def test_algorithmic_generation_is_certified_and_reproducible(alg_bench, tmp_path):
    m = json.loads((alg_bench / "manifest.json").read_text())
    assert m["total"] == 61 and m["labels"] == m["labels_checked"]
    cal = {(c["notion"], c["n"]): c for c in m["calibration"]}
    assert set(cal) == {("strict_core", 10), ("strongly_stable", 10), ("super_stable", 10)}
    assert all(c["draws"] >= 2 for c in cal.values())      # one feasible + one infeasible
    run("check", str(alg_bench / "labels.jsonl"))
    again = tmp_path / "again"
    run("generate", "indeterminacy-algorithmic", "-o", str(again), "--per-cell", "1",
        "--sizes", "10", "--jobs", "1")
    for f in ("instances.jsonl", "labels.jsonl", "prompts.jsonl", "manifest.json"):
        assert (again / f).read_bytes() == (alg_bench / f).read_bytes(), f
    prompts = read_jsonl(alg_bench / "prompts.jsonl")
    hard = [p for p in prompts if p["cell"]["design"] == "hard"]
    labels = {lab["label_id"]: lab for lab in read_jsonl(alg_bench / "labels.jsonl")}
    for p in hard:
        lab = labels[p["gold_label_ids"][0]]
        assert (lab["verdict"] == "exists") == p["cell"]["feasible"]
        if p["cell"]["task"] == "generation":
            assert ("<answer>{}</answer>" in p["prompt"]) == p["cell"]["escape"]
        else:
            assert ("None of the above" in p["prompt"]) == p["cell"]["escape"]
    sup = [p for p in hard if p["cell"]["notion"] == "super_stable" and not p["cell"]["feasible"]]
    # infeasible super-stability instances still admit a strongly stable matching
    from prefcert import label as certify
    inst = {i["id"]: i for i in read_jsonl(alg_bench / "instances.jsonl")}
    assert certify(inst[sup[0]["instance_id"]], "strongly_stable")["verdict"] == "exists"


def _answer_all(bench: Path, fn) -> dict:
    return {p["id"]: fn(p) for p in read_jsonl(bench / "prompts.jsonl")}


def test_algorithmic_scoring_rules(alg_bench, tmp_path):
    prompts = read_jsonl(alg_bench / "prompts.jsonl")
    gold = _score(alg_bench, _answer_all(alg_bench, lambda p: f"<answer>{p['answer']}</answer>"),
                  tmp_path)
    assert {s["verdict"] for s in gold.values()} == {"correct"}

    def pick(**cell):
        return _find(prompts, design="hard", **cell)
    e_hatch = pick(notion="super_stable", feasible=True, task="generation", escape=True)
    ne_hatch = pick(notion="super_stable", feasible=False, task="generation", escape=True)
    ne_free = pick(notion="super_stable", feasible=False, task="generation", escape=False)
    e_sel = pick(notion="strict_core", feasible=True, task="selection", escape=True)
    ne_sel = pick(notion="strict_core", feasible=False, task="selection", escape=True)
    ne_sel_free = pick(notion="strict_core", feasible=False, task="selection", escape=False)
    ne_core = pick(notion="strict_core", feasible=False, task="generation", escape=True)
    inst = {i["id"]: i for i in read_jsonl(alg_bench / "instances.jsonl")}
    # a matching every A-agent keeps with its last choice: rarely stable, surely valid
    prefs_a = inst[ne_hatch["instance_id"]]["preferences"]["A"]
    greedy, used = {}, set()
    for a, lst in prefs_a.items():
        flat = [x for t in lst for x in (t if isinstance(t, list) else [t])]
        b = next(x for x in flat if x not in used)
        used.add(b)
        greedy[a] = b
    hm = inst[ne_core["task"]["roles"]["hm"]]
    endow = json.dumps(hm["endowment"])
    answers = {
        e_hatch["id"]: "<answer>{}</answer>",                       # {} on a feasible instance
        ne_hatch["id"]: f"<answer>{json.dumps(greedy)}</answer>",     # an outcome where none exists
        ne_free["id"]: "There is no such matching, as far as I can tell.",
        e_sel["id"]: f"<answer>{e_sel['nota_option']}</answer>",      # NOTA when feasible
        ne_sel["id"]: f"<answer>{ne_sel['nota_option']}</answer>",
        ne_sel_free["id"]: "<answer>A</answer>",
        ne_core["id"]: f"<answer>{endow}</answer>",
    }
    s = _score(alg_bench, answers, tmp_path)
    # {} on a feasible instance: a wrong "no solution" claim, counted in Table 20's
    # invalid-solution rate (the answer corpus, alg-outcome-009)
    assert s[e_hatch["id"]]["verdict"] == "incorrect" and s[e_hatch["id"]]["invalid_solution"]
    assert s[ne_hatch["id"]]["verdict"] == "incorrect"
    assert s[ne_hatch["id"]]["reason"]["certificate"]["type"] == "blocking_pairs"
    assert s[ne_free["id"]]["verdict"] == "correct"                 # no hatch: not an outcome
    assert s[e_sel["id"]]["verdict"] == "incorrect" and s[e_sel["id"]]["nota"] is True
    assert s[ne_sel["id"]]["verdict"] == "correct"
    assert s[ne_sel_free["id"]]["verdict"] == "incorrect"
    assert s[ne_core["id"]]["verdict"] == "incorrect"
    assert s[ne_core["id"]]["reason"]["certificate"]["type"] == "blocking_coalition"


def test_score_answer_agrees_with_prefcert_score(alg_bench, pref_bench, tmp_path):
    import prefcert
    from prefcert.bench.score import Benchmark, score_prompt
    for bench in (alg_bench, pref_bench):
        b = Benchmark.read(bench / "prompts.jsonl")
        for p in b.prompts:
            labs = [b.labels[i] for i in p["gold_label_ids"]]
            entry = {"question": p["prompt"], "answer": p["answer"],
                     "metadata": {**p, "labels": labs,
                                  "instances": {i: b.instances[i] for i in p["instance_ids"]}}}
            assert prefcert.score_answer(p["answer"], entry) == 1.0
            if p["suite"] == "indeterminacy-algorithmic" and p["cell"]["task"] == "selection" \
                    and p["cell"]["design"] == "standard":
                bad = next(k for k, o in p["options"].items() if o["source"] == "contaminated")
                assert prefcert.score_answer(f"<answer>{bad}</answer>", entry) == 0.0
                assert score_prompt(p, f"<answer>{bad}</answer>", b.entry(p))["verdict"] == "incorrect"


def test_dataset_api_doctests_and_parquet(tmp_path):
    import doctest

    import prefcert.bench.dataset as d
    failures, tried = doctest.testmod(d)
    assert tried >= 4 and failures == 0
    pytest.importorskip("pyarrow")
    out = tmp_path / "pq"
    run("generate", "indeterminacy-algorithmic", "-o", str(out), "--per-cell", "1",
        "--sizes", "10", "--format", "parquet")
    import pyarrow.parquet as pq
    t = pq.read_table(out / "data" / "size_10.parquet")      # one split per size
    assert t.num_rows == 61 and {"id", "prompt", "answer", "cell"} <= set(t.column_names)
    from prefcert.bench.generate import read_prompts
    rows = read_prompts(out / "data")
    assert isinstance(rows[0]["cell"], dict)
    a = tmp_path / "a.jsonl"
    a.write_text("".join(json.dumps({"id": r["id"], "answer": r["answer"]}) + "\n" for r in rows))
    r = run("score", str(out), str(a), "--json")
    share = [json.loads(x) for x in r.stdout.splitlines() if '"share_correct"' in x]
    assert share[0]["k"] == share[0]["n"] == 61


# ------------------------------------------------------------------ feedback and refinement

FAKE = '''import json, os, sys
script = json.load(open(os.environ["FAKE_SCRIPT"]))
text = sys.stdin.read()
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(json.dumps({"round": os.environ["PREFCERT_ROUND"], "stdin": text}) + "\\n")
print(script[os.environ["PREFCERT_PROMPT_ID"]][int(os.environ["PREFCERT_ROUND"]) - 1])
'''


def test_refine_refuses_a_command_that_fails(alg_bench, tmp_path):
    """A command that exits non-zero is a broken harness, not a model that timed out (it
    was recorded as a timeout, exit 0; found by a new user): one line, exit 2, no file."""
    import sys
    first = read_jsonl(alg_bench / "prompts.jsonl")[0]["id"]
    (tmp_path / "broken.py").write_text("import sys\nprint('no key set', file=sys.stderr)\n"
                                        "sys.exit(3)\n")
    out = tmp_path / "refine.jsonl"
    r = run("refine", str(alg_bench / "prompts.jsonl"), "--command",
            f"{sys.executable} {tmp_path / 'broken.py'}", "--id", first, "-o", str(out),
            check=False)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr
    assert f"--command exited with status 3 on prompt {first}, round 1: no key set" in lines[0]
    assert not out.exists()


def test_refine_with_a_scripted_fake_model(alg_bench, tmp_path):
    import sys
    prompts = read_jsonl(alg_bench / "prompts.jsonl")
    inst = {i["id"]: i for i in read_jsonl(alg_bench / "instances.jsonl")}
    e = _find(prompts, design="hard", notion="strict_core", feasible=True, task="generation",
              escape=True)
    ne = _find(prompts, design="hard", notion="strict_core", feasible=False,
               task="generation", escape=True)
    endow_ne = json.dumps(inst[ne["task"]["roles"]["hm"]]["endowment"])
    script = {e["id"]: ["<answer>{}</answer>", "not json at all", f"<answer>{e['answer']}</answer>"],
              ne["id"]: [f"<answer>{endow_ne}</answer>", "<answer>{}</answer>", "unused"]}
    (tmp_path / "script.json").write_text(json.dumps(script))
    (tmp_path / "fake.py").write_text(FAKE)
    out = tmp_path / "refine.jsonl"
    env = {"FAKE_SCRIPT": str(tmp_path / "script.json"), "FAKE_LOG": str(tmp_path / "log.jsonl")}
    r = run("refine", str(alg_bench / "prompts.jsonl"), "--command",
            f"{sys.executable} {tmp_path / 'fake.py'}", "--id", e["id"], "--id", ne["id"],
            "-o", str(out), env=env)
    assert "2/2 correct within 3 attempt(s)" in r.stdout
    recs = {x["id"]: x for x in read_jsonl(out)}
    assert recs[e["id"]]["attempts"] == 3 and recs[ne["id"]]["attempts"] == 2
    fb1 = recs[e["id"]]["rounds"][0]["feedback"]
    assert "exists" in fb1 and "empty" in fb1 and "2 attempts remaining" in fb1
    assert e["answer"] not in fb1
    assert "could not be read" in recs[e["id"]]["rounds"][1]["feedback"]
    fb_ne = recs[ne["id"]]["rounds"][0]["feedback"]
    assert "blocking coalition" in fb_ne and "exist" not in fb_ne   # never says none exists
    log = read_jsonl(tmp_path / "log.jsonl")
    third = [x for x in log if x["round"] == "3"][0]["stdin"]
    assert third.startswith(e["prompt"]) and fb1 in third and "[Your answer]" in third
    (tmp_path / "garbage.txt").write_text("I would rather not say.")
    r = run("feedback", str(alg_bench / "prompts.jsonl"), str(tmp_path / "garbage.txt"),
            "--id", e["id"])
    assert "could not be read" in r.stdout


def test_matching_feedback_lists_at_most_five_blocking_pairs(alg_bench, tmp_path):
    prompts = read_jsonl(alg_bench / "prompts.jsonl")
    inst = {i["id"]: i for i in read_jsonl(alg_bench / "instances.jsonl")}
    p = _find(prompts, design="hard", notion="super_stable", feasible=False, task="generation",
              escape=True)
    a_side = list(inst[p["instance_id"]]["preferences"]["A"])
    b_side = list(inst[p["instance_id"]]["preferences"]["B"])
    worst = dict(zip(a_side, reversed(b_side)))
    f = tmp_path / "ans.txt"
    f.write_text(f"<answer>{json.dumps(worst)}</answer>")
    out = run("feedback", str(alg_bench / "prompts.jsonl"), str(f), "--id", p["id"]).stdout
    from prefcert.formal.checker.stable_matching import blocking_pairs

    from prefcert.pipeline.registry import spec
    total = len(blocking_pairs(spec("stable_matching").parse(inst[p["instance_id"]]), worst, "super"))
    assert f"{total} blocking pair(s)" in out
    assert out.count("),") <= 4 and "exist" not in out


# ------------------------------------------------------------------ the HTML report in Chromium



def test_report_opens_in_headless_chromium_with_every_plot(alg_bench, pref_bench, tmp_path):
    require_chromium()
    prompts = read_jsonl(alg_bench / "prompts.jsonl") + read_jsonl(pref_bench / "prompts.jsonl")
    scores = tmp_path / "scores.jsonl"
    recs = []
    for bench in (alg_bench, pref_bench):
        ps = read_jsonl(bench / "prompts.jsonl")
        a = tmp_path / f"{bench.parent.name}.jsonl"
        a.write_text("".join(json.dumps({"id": p["id"], "answer": p["answer"] if i % 3 else "A"})
                             + "\n" for i, p in enumerate(ps)))
        out = tmp_path / f"{bench.parent.name}.scores.jsonl"
        run("score", str(bench / "prompts.jsonl"), str(a), "-o", str(out))
        recs += read_jsonl(out)
    scores.write_text("".join(json.dumps(r) + "\n" for r in recs))
    page_path = tmp_path / "report.html"
    run("report", str(scores), "-o", str(page_path))
    html = page_path.read_text()
    assert "<script" not in html and "http" not in html.split("<body>")[1].split("<svg")[0]
    expected = html.count('<figure class="plot"')
    assert expected >= 8 and len(prompts) == len(recs)
    with headless_page(tmp_path) as (page, errors):
        page.goto(page_path.as_uri())
        page.wait_for_load_state("load")
        boxes = page.eval_on_selector_all(
            "figure.plot svg", "els => els.map(e => {const r = e.getBoundingClientRect();"
                               " return [r.width, r.height]})")
        titles = page.eval_on_selector_all("figure.plot", "els => els.map(e => e.dataset.title)")
        shot = tmp_path / "report.png"
        page.screenshot(path=str(shot), full_page=True)
    assert errors == []
    assert len(boxes) == expected and all(w > 100 and h > 100 for w, h in boxes)
    assert any("NOTA" in t for t in titles) and any("Determined" in t for t in titles)
    assert any("satisfies" in t for t in titles)
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 50_000


def test_report_and_refine_refuse_wrong_inputs_in_one_line(alg_bench, tmp_path):
    """Regression: a prompts file given to report (KeyError) and a --command that does not
    exist (FileNotFoundError) ended in tracebacks."""
    r = run("report", str(alg_bench / "prompts.jsonl"), "-o", str(tmp_path / "r.html"),
            check=False)
    assert r.returncode == 2 and "not a scores file" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "r.html").exists()
    pid = read_jsonl(alg_bench / "prompts.jsonl")[0]["id"]
    r = run("refine", str(alg_bench / "prompts.jsonl"), "--command", "no_such_program_xyz",
            "--id", pid, "-o", str(tmp_path / "x.jsonl"), check=False)
    assert r.returncode == 2 and "no such program" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "x.jsonl").exists()


def test_generate_never_replaces_a_benchmark_silently(tmp_path):
    out = tmp_path / "b"
    args = ("generate", "indeterminacy-algorithmic", "-o", str(out), "--sizes", "10",
            "--per-cell", "1")
    run(*args)
    before = (out / "manifest.json").read_bytes()
    r = run(*args, "--seed", "5", check=False)
    assert r.returncode == 2 and "already holds a benchmark" in r.stderr
    assert (out / "manifest.json").read_bytes() == before
    run(*args, "--seed", "5", "--overwrite")
    assert (out / "manifest.json").read_bytes() != before


def _files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_overwrite_replaces_the_whole_benchmark_and_never_a_users_file(tmp_path):
    """Regression (a new user): ``generate --overwrite`` in another ``--format`` left the
    old format's files (Parquet splits and card beside a new prompts.jsonl, or an old
    prompts.jsonl beside new splits). Now the earlier run's files, by its manifest, are
    replaced as a whole; a file it did not write is never removed: the run is refused."""
    out = tmp_path / "b"
    args = ("generate", "voting-manipulation", "-o", str(out), "--per-cell", "1",
            "--sizes", "3", "--jobs", "1")
    run(*args, "--format", "parquet")
    assert _files(out) == ["README.md", "data/size_3.parquet", "instances.jsonl",
                           "labels.jsonl", "manifest.json"]
    run(*args, "--overwrite")                                     # jsonl
    assert _files(out) == ["instances.jsonl", "labels.jsonl", "manifest.json",
                           "prompts.jsonl"]
    assert not (out / "data").exists()
    run(*args, "--format", "parquet", "--overwrite")
    assert _files(out) == ["README.md", "data/size_3.parquet", "instances.jsonl",
                           "labels.jsonl", "manifest.json"]
    # a file the benchmark's manifest does not list: refused, naming it, nothing changed
    (out / "data" / "notes.txt").write_text("mine\n")
    before = {f: (out / f).read_bytes() for f in _files(out)}
    r = run(*args, "--overwrite", check=False)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    (line,) = [x for x in r.stderr.splitlines() if x.startswith("prefcert: error:")]
    assert str(out / "data" / "notes.txt") in line and "does not list" in line
    assert {f: (out / f).read_bytes() for f in _files(out)} == before


def test_the_calibration_table_shows_every_header_whole():
    """15 columns in one 160-wide table cut every header to 'ic_mani…' (found by a new
    user): parts of a few columns, the cell's names repeated in each."""
    import io
    from types import SimpleNamespace

    from prefcert.bench.generate import print_summary
    names = [f"random_metric_{i}" for i in range(12)]
    rows = [{"rule": r, "m": m, "draws": 10, **{k: 0.125 for k in names}}
            for r in ("plurality", "borda") for m in (3, 4)]
    manifest = {"suite": "s", "total": 1, "labels": 1, "labels_checked": 1,
                "acceptance": [], "calibration": rows}
    out = io.StringIO()
    print_summary(manifest, SimpleNamespace(calibration_title="calibration"), stream=out)
    text = out.getvalue()
    assert "…" not in text
    assert all(k in text for k in names) and "calibration (3/3)" in text
    assert text.count("plurality") == 2 * 3          # two rows in each of three parts
