"""CLI tests through the installed console script ``prefcert``."""
import json
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from conftest import cli, PREFCERT

pytestmark = pytest.mark.skipif(PREFCERT is None, reason="console script not installed")

INDIFFERENT = {"id": "indiff", "domain": "stable_matching",
               "preferences": {"A": {"m1": [["w1", "w2"]], "m2": [["w1", "w2"]]},
                               "B": {"w1": [["m1", "m2"]], "w2": [["m1", "m2"]]}}}
STRICT = {"id": "strict", "domain": "stable_matching",
          "preferences": {"A": {"m1": ["w1", "w2"], "m2": ["w1", "w2"]},
                          "B": {"w1": ["m2", "m1"], "w2": ["m1", "m2"]}}}


run = partial(cli, check=False)


def write(tmp_path, name, obj):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return p


def test_label_then_check(tmp_path):
    src = write(tmp_path, "two.jsonl", json.dumps(INDIFFERENT) + "\n" + json.dumps(STRICT) + "\n")
    r = run("label", src)
    assert r.returncode == 0, r.stderr
    labels = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(labels) == 6 and all(lab["checked"] for lab in labels)
    verdicts = {(lab["id"], lab["question"]): lab["verdict"] for lab in labels}
    assert verdicts[("indiff", "super_stable")] == "none"
    assert verdicts[("strict", "super_stable")] == "exists"
    out = write(tmp_path, "labels.jsonl", r.stdout)
    r = run("check", out, cwd=tmp_path)
    assert r.returncode == 0 and "6 label(s) checked" in r.stdout


def test_check_rejects_tampered_certificate(tmp_path):
    src = write(tmp_path, "one.json", INDIFFERENT)
    out = tmp_path / "out.jsonl"
    assert run("label", src, "-o", out, "-q", "super_stable").returncode == 0
    lab = json.loads(out.read_text())
    lab["certificate"]["steps"] = []
    write(tmp_path, "bad.jsonl", json.dumps(lab) + "\n")
    r = run("check", tmp_path / "bad.jsonl")
    assert r.returncode == 1 and "REJECTED" in r.stderr
    lab["verdict"], lab["solution"], lab["certificate"] = "exists", {"m1": "w1", "m2": "w2"}, {"type": "stable_matching"}
    write(tmp_path, "bad2.jsonl", json.dumps(lab) + "\n")
    assert run("check", tmp_path / "bad2.jsonl").returncode == 1


def test_resume_skips_finished_labels_and_drops_torn_line(tmp_path):
    src = write(tmp_path, "two.jsonl", json.dumps(INDIFFERENT) + "\n" + json.dumps(STRICT) + "\n")
    out = tmp_path / "out.jsonl"
    assert run("label", src, "-o", out).returncode == 0
    lines = out.read_text().splitlines()
    # simulate a run killed mid-write: two finished labels and half of a third
    out.write_text("\n".join(lines[:2]) + "\n" + lines[2][:30])
    r = run("label", src, "-o", out)
    assert r.returncode == 0, r.stderr
    again = out.read_text().splitlines()
    assert again[:2] == lines[:2] and len(again) == 6
    assert "2 label(s) already in the output file were skipped" in r.stderr.replace("\n", " ")
    assert {json.loads(x)["question"] for x in again} == {"super_stable", "strongly_stable", "weakly_stable"}


def test_output_inside_the_labelled_folder_resumes(tmp_path):
    """Regression: on the rerun the folder walk read OUT itself as instances ("duplicate
    instance id"); a labels file named explicitly is refused as such."""
    write(tmp_path, "two.jsonl", json.dumps(INDIFFERENT) + "\n" + json.dumps(STRICT) + "\n")
    out = tmp_path / "out.jsonl"
    assert run("label", tmp_path, "-o", out).returncode == 0
    first = out.read_text()
    r = run("label", tmp_path, "-o", out)
    assert r.returncode == 0, r.stderr
    assert out.read_text() == first and "6 label(s) already" in r.stderr.replace("\n", " ")
    r = run("label", out)
    assert r.returncode == 2 and "a labels file, not instances" in r.stderr
    assert f"{out}:1:" in r.stderr


def test_killed_run_resumes(tmp_path):
    """A real kill: start labelling many instances, kill it, rerun; nothing is redone."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from prefcert.generators.stable_matching import sample_smti
    src = tmp_path / "many.jsonl"
    src.write_text("".join(json.dumps(dict(sample_smti(40, tie_prob=0.2, seed=s), id=f"i{s}")) + "\n"
                           for s in range(30)))
    out = tmp_path / "out.jsonl"
    p = subprocess.Popen([PREFCERT, "label", src, "-o", out, "--engines", "oracle,cpsat"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import time
    deadline = time.time() + 120
    while time.time() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 3):
        time.sleep(0.05)
    p.kill()
    p.wait()
    before = [line for line in out.read_text().splitlines() if line.endswith("}")]
    r = run("label", src, "-o", out, "--engines", "oracle,cpsat")
    assert r.returncode == 0, r.stderr
    after = out.read_text().splitlines()
    assert after[:len(before)] == before and len(after) == 90
    assert len({(json.loads(x)["id"], json.loads(x)["question"]) for x in after}) == 90


@pytest.mark.parametrize("content, needle", [
    ('{"id": "x", "domain": "stable_matching", "preferences": ', "malformed JSON"),
    ({"id": "x", "domain": "stable_matching",
      "preferences": {"A": {"m1": ["w9"]}, "B": {"w1": ["m1"]}}}, "'w9'"),
    ({"id": "x", "domain": "stable_matching",
      "preferences": {"A": {"m1": ["w1", "w1"]}, "B": {"w1": ["m1"]}}}, "listed twice"),
    ({"id": "x", "domain": "stable_matching",
      "preferences": {"A": {"m1": [[], "w1"]}, "B": {"w1": ["m1"]}}}, "empty tie group"),
    ({"id": "x", "domain": "stable_matching",
      "preferences": {"A": {"m1": ["w1"]}, "B": {"w1": ["m1"]}, "C": {"z": []}}}, "'A' and 'B'"),
    ({"id": "x", "domain": "nonsense", "preferences": {}}, "unknown domain"),
    ({"id": "x", "domain": "stable_matching", "questions": ["nope"],
      "preferences": {"A": {}, "B": {}}}, "unknown question"),
])
def test_bad_input_one_line_exit_2_no_output(tmp_path, content, needle):
    good = write(tmp_path, "a_good.json", STRICT)
    bad = write(tmp_path, "b_bad.json", content)
    out = tmp_path / "out.jsonl"
    r = run("label", good, bad, "-o", out)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "b_bad.json" in lines[0] and needle in lines[0], r.stderr
    assert not out.exists() and r.stdout == ""


def test_bad_input_line_number_in_jsonl(tmp_path):
    src = write(tmp_path, "x.jsonl", json.dumps(STRICT) + "\n{oops\n")
    r = run("label", src)
    assert r.returncode == 2 and "x.jsonl:2:" in r.stderr and r.stdout == ""


def test_missing_path_and_unknown_engine(tmp_path):
    r = run("label", tmp_path / "nope.json")
    assert r.returncode == 2 and "no such file" in r.stderr
    src = write(tmp_path, "s.json", STRICT)
    r = run("label", src, "--engines", "magic")
    assert r.returncode == 2 and "magic" in r.stderr


def test_audit_exit_codes(tmp_path):
    inst = write(tmp_path, "i.json", INDIFFERENT)
    wrong = write(tmp_path, "wrong.txt", 'My answer: <answer>{"m1": "w1", "m2": "w2"}</answer>')
    r = run("audit", inst, "--question", "super_stable", wrong)
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert out["verdict"] == "incorrect" and len(out["violations"]) == 2
    assert "2 super-blocking pairs" in out["feedback"]
    none = write(tmp_path, "none.txt", "<answer>none</answer>")
    assert run("audit", inst, "--question", "super_stable", none).returncode == 0
    r = run("audit", inst, "--question", "strongly_stable", none)
    assert r.returncode == 1 and "witness" in r.stdout
    assert run("audit", inst, "--question", "strongly_stable", wrong).returncode == 0
    junk = write(tmp_path, "junk.txt", "<answer>not json</answer>")
    r = run("audit", inst, "--question", "super_stable", junk)
    assert r.returncode == 1 and json.loads(r.stdout)["verdict"] == "unparseable"
    r = run("audit", inst, "--question", "super_stable", tmp_path / "missing.txt")
    assert r.returncode == 1 and json.loads(r.stdout)["verdict"] == "unparseable"
    assert "names no file: it was read as the answer's text" in r.stderr
    r = run("audit", inst, "--question", "nope", none)
    assert r.returncode == 2 and "unknown question" in r.stderr


def test_classify_candidates(tmp_path):
    inst = write(tmp_path, "i.json", INDIFFERENT)
    cands = write(tmp_path, "c.json", [{"m1": "w1", "m2": "w2"}, {"m1": "w2"}, {"m1": "zz"}])
    r = run("classify", inst, cands)
    assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert "strongly_stable" in rows[0]["satisfies"] and "super_stable" in rows[0]["fails"]
    assert rows[0]["notions"]["super_stable"]["certificate"]["count"] == 2
    assert "weakly_stable" in rows[1]["fails"] and "max_cardinality" in rows[1]["fails"]
    assert "invalid" in rows[2]
    bad = write(tmp_path, "bad.json", '{"not": "a list"}')
    assert run("classify", inst, bad).returncode == 2


def test_preflib_semantics_override_is_recorded_and_checkable(tmp_path):
    src = Path(__file__).resolve().parents[1] / "instances" / "preflib" / "00023-00000001.toi"
    labels = {}
    for sem in ("unknown", "truncated"):
        out = tmp_path / f"{sem}.jsonl"
        r = run("label", src, "--semantics", sem, "-o", out)
        assert r.returncode == 0, r.stderr
        labels[sem] = [json.loads(x) for x in out.read_text().splitlines()]
        assert all(lab["semantics"] == sem and lab["checked"] for lab in labels[sem])
        assert run("check", out).returncode == 0
    assert [x["verdict"] for x in labels["unknown"]] != [x["verdict"] for x in labels["truncated"]]
    r = run("label", src, "-q", '{"type": "winner", "rule": "borda", "item": "Nobody"}')
    assert r.returncode == 2 and "'Nobody'" in r.stderr and r.stdout == ""


def test_rerun_relabels_an_edited_instance(tmp_path):
    src = write(tmp_path, "sm.json", STRICT)
    out = tmp_path / "out.jsonl"
    assert run("label", src, "-o", out).returncode == 0
    edited = json.loads(json.dumps(STRICT))
    edited["preferences"]["A"]["m1"] = ["w2", "w1"]
    write(tmp_path, "sm.json", edited)
    r = run("label", src, "-o", out)
    assert r.returncode == 0 and "skipped" not in r.stderr
    assert len(out.read_text().splitlines()) == 3
    assert run("check", out).returncode == 0


@pytest.mark.parametrize("args, needle", [
    (["--engines", "z3"], "none of the requested engines"),
    (["-q", "{bad"], "--question is not valid JSON"),
    (["-o", "/nonexistent-folder/x.jsonl"], "output folder does not exist"),
])
def test_option_errors_before_any_output(tmp_path, args, needle):
    sm = write(tmp_path, "a.json", STRICT)
    ha = write(tmp_path, "b.json", {"id": "ha", "domain": "house_allocation",
                                    "preferences": {"a1": ["h1"]}})
    r = run("label", sm, ha, *args)
    assert r.returncode == 2 and needle in r.stderr and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("content, needle", [
    ("\n\n", "holds no instances"),
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
], ids=["empty", "deep"])      # a 200,000-character test id would not fit in the environment
def test_empty_and_deep_inputs(tmp_path, content, needle):
    src = write(tmp_path, "x.jsonl", content)
    r = run("label", src, "-o", tmp_path / "o.jsonl")
    assert r.returncode == 2 and needle in r.stderr and not (tmp_path / "o.jsonl").exists()


def test_check_malformed_certificate_is_rejected_not_crashed(tmp_path):
    src = write(tmp_path, "i.json", INDIFFERENT)
    out = tmp_path / "out.jsonl"
    assert run("label", src, "-o", out, "-q", "super_stable").returncode == 0
    lab = json.loads(out.read_text())
    lab["certificate"]["steps"][0][1] = []
    write(tmp_path, "bad.jsonl", json.dumps(lab) + "\n")
    r = run("check", tmp_path / "bad.jsonl")
    assert r.returncode == 1 and "REJECTED" in r.stderr and "Traceback" not in r.stderr
    write(tmp_path, "empty.jsonl", "")
    assert run("check", tmp_path / "empty.jsonl").returncode == 2


def test_no_label_names_question_and_each_engine_reason():
    """Regression (fresh report 3): the line said "every engine timed out or gave up" with
    the question's type only, and README promised a larger --time-limit adds the label:
    under counts=identical no default engine decides this Borda question, whatever the
    time limit."""
    inst = Path(__file__).resolve().parent.parent / "instances/preflib/00016-00000002.toi"
    q = {"type": "winner", "rule": "borda", "item": "Andrew Kole"}
    r = run("label", inst, "-j1", "--convention", "counts=identical", "-q", json.dumps(q),
            "--time-limit", "100")
    assert r.returncode == 1 and r.stdout == ""
    line = r.stderr.splitlines()[0]
    assert line.startswith(f"prefcert: 00016-00000002 {json.dumps(q)}: no label: "
                           "no engine decides it (")
    assert "oracle: too many completions" in line
    assert "cpsat_agg: aggregation needs counts = independent" in line
    assert line.endswith("a larger --time-limit does not change that")


def test_generate_help_says_sizes_are_built_and_names_the_test_split():
    """Regression (fresh report 13, 14): --sizes read "Keep only these sizes" though sizes
    outside the suite's default levels are built, and the Parquet split data/test.parquet
    (the prompts without a size) was described nowhere."""
    out = " ".join(run("generate", "--help").stdout.split())
    assert "Keep only" not in out
    assert "any size in the suite's open range, not only its default levels" in out
    assert "data/test.parquet for the prompts without a size" in out
