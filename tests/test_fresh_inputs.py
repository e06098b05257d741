"""Regressions of a fresh user's report (strict inputs, one-line errors), each through the
console script: the exact one-line message, exit status 2 (or the documented status), and
nothing written."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli, PREFCERT

pytestmark = pytest.mark.skipif(PREFCERT is None, reason="console script not installed")

def run(*args, **kw):
    return cli(*args, check=False, **kw)


ROOT = Path(__file__).resolve().parent.parent
SOI = ROOT / "instances" / "preflib" / "00002-00000001.soi"
GOOD = {"id": "sm-1", "domain": "stable_matching",
        "preferences": {"A": {"A1": ["B2", ["B1", "B3"]], "A2": ["B1"]},
                        "B": {"B1": ["A2", "A1"], "B2": ["A1"], "B3": [["A1", "A2"]]}}}
ELECTION = {"id": "e1", "domain": "election", "candidates": ["a", "b", "c"],
            "tie_break": ["a", "b", "c"], "rule": "borda",
            "ballots": [["b", "c", "a"], {"ranking": ["c", ["a", "b"]], "count": 2}],
            "manipulator": {"ranking": ["a", "b", "c"]}}


def write(tmp_path, name, obj):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj), encoding="utf-8")
    return p


def one_line(r, code=2):
    assert r.returncode == code, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    return lines[0]


def label_error(tmp_path, *args):
    out = tmp_path / "out.jsonl"
    r = run("label", *args, "-j", "1", "-o", out)
    line = one_line(r)
    assert not out.exists() and r.stdout == ""
    return line


# ------------------------------------------------ 1. -q JSON: a repeated key is refused

@pytest.mark.parametrize("question, key", [
    ('{"type":"kth","agent":"V1","k":1,"k":2}', "k"),
    ('{"type":"compare","type":"kth"}', "type"),
])
def test_a_question_repeating_a_key_is_refused(tmp_path, question, key):
    assert label_error(tmp_path, SOI, "-q", question) == (
        f"prefcert: error: --question: a key appears twice in one object (JSON would keep "
        f"only the last): '{key}'")


# ------------------------------------------------ 2. inputs given twice

def test_a_convention_given_twice_is_a_usage_error(tmp_path):
    src = ROOT / "instances" / "preflib" / "00016-00000002.toi"
    assert label_error(tmp_path, src, "--convention", "counts=identical",
                       "--convention", "counts=independent") == (
        "prefcert: error: --convention counts is given twice: 'counts=independent'. "
        "Try 'prefcert label --help'.")


def preflib(tmp_path, name, header, body, prefix=""):
    text = prefix + "\n".join(["# NUMBER ALTERNATIVES: 3", *header,
                               "# ALTERNATIVE NAME 1: a", "# ALTERNATIVE NAME 2: b",
                               "# ALTERNATIVE NAME 3: c", *body]) + "\n"
    return write(tmp_path, name, text)


def test_a_repeated_preflib_header_line_is_refused(tmp_path):
    p = preflib(tmp_path, "d.soc", ["# NUMBER ALTERNATIVES: 7"], ["1: 1,2,3"])
    assert label_error(tmp_path, p) == (
        f"prefcert: error: {p}:2: header line given twice (first on line 1): "
        f"'# NUMBER ALTERNATIVES: 7'")


# ------------------------------------------------ 12. PrefLib: BOM, empty entries

def test_a_preflib_file_with_a_bom_is_read_as_without(tmp_path):
    (tmp_path / "plain").mkdir()
    (tmp_path / "bom").mkdir()
    plain = preflib(tmp_path / "plain", "p.soi", [], ["2: 1,2", "1: 3,1,2"])
    bom = preflib(tmp_path / "bom", "p.soi", [], ["2: 1,2", "1: 3,1,2"], prefix="\ufeff")
    a, b = (cli("label", p, "-j", "1").stdout.splitlines() for p in (plain, bom))
    drop = ("engines", "source")
    strip = [[{k: v for k, v in json.loads(x).items() if k not in drop} for x in lines]
             for lines in (a, b)]
    assert strip[0] == strip[1] and strip[0]


@pytest.mark.parametrize("ballot", ["3,1,2,", "3,,1,2", ",3,1"])
def test_an_empty_ballot_entry_is_refused(tmp_path, ballot):
    p = preflib(tmp_path, "t.soi", [], ["2: 1,2", f"1: {ballot}"])
    assert label_error(tmp_path, p) == (
        f"prefcert: error: {p}:6: empty entry in a ballot (two commas in a row, or a comma "
        f"at its start or end): '{ballot}'")


# ------------------------------------------------ 4. audit ANSWER: file, -, or inline

def test_audit_takes_an_inline_answer_and_stdin(tmp_path):
    inst = write(tmp_path, "good.json", GOOD)
    for answer, kw in (("none", {}), ('{"A1": "B2", "A2": "B1"}', {}),
                       ("-", {"input": '{"A1": "B2", "A2": "B1"}'})):
        r = run("audit", inst, "-q", "super_stable", answer, **kw)
        assert r.returncode in (0, 1) and "error" not in r.stderr, r.stderr
        assert json.loads(r.stdout)["verdict"] in ("correct", "incorrect")
    r = run("audit", inst, "-q", "super_stable", "none")
    assert r.returncode == 1 and json.loads(r.stdout)["verdict"] == "incorrect"
    r = run("audit", inst, "-q", "super_stable", '{"A1": "B2", "A2": "B1"}')
    assert r.returncode == 0 and json.loads(r.stdout)["verdict"] == "correct"
    assert "is read from the file it names" in " ".join(
        cli("audit", "--help").stdout.split())


# ------------------------------------------------ 5. score: a log beside PROMPTS

def test_score_says_logs_are_scored_alone(tmp_path):
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "prompts.jsonl").write_text("{}\n")
    log = write(tmp_path, "x.eval", "not a log")
    assert one_line(run("score", bench, log)) == (
        f"prefcert: error: {log}: an Inspect log is scored alone, its prompts are in it: "
        f"prefcert score {log}")


# ------------------------------------------------ 8. a resumed labels file: a repeated key

def test_a_rerun_refuses_a_label_line_repeating_a_key(tmp_path):
    inst = write(tmp_path, "good.json", GOOD)
    out = tmp_path / "rs.jsonl"
    cli("label", inst, "-j", "1", "-q", "super_stable", "-o", out)
    text = out.read_text()
    bad = text.replace('{"id":"sm-1",', '{"id":"sm-1","id":"sm-1",', 1)
    out.write_text(bad)
    r = run("label", inst, "-j", "1", "-q", "super_stable", "-o", out)
    assert one_line(r) == (f"prefcert: error: {out}:1: a key appears twice in one object "
                           f"(JSON would keep only the last): 'id'")
    assert out.read_text() == bad


# ------------------------------------------------ 10, 11. usage errors in the README's form

@pytest.mark.parametrize("args, message", [
    (["--cross-check", "sometimes"],
     "--cross-check: 'sometimes' is not one of 'always', 'budget', 'never'."),
    (["--engines", "foo"], "--engines: unknown engine (known: brute_force, cpsat, oracle, "
                           "z3): 'foo'."),
    (["--engines", "oracle,,cpsat"], "--engines: an empty engine name (two commas in a "
                                     "row, or one at the start or end): 'oracle,,cpsat'."),
    (["--convention", "nope=x"], "--convention takes NAME=CHOICE with NAME among "
                                 "welfare_ranks, welfare_scope: 'nope=x'."),
    (["--dask", "local:0"], "--dask local:N takes a positive number of workers: 'local:0'."),
    (["--verify-all"], "--verify-all re-checks labels made on a Dask cluster; give --dask: "
                       "'--verify-all'."),
    (["--time-limit", "nan"], "Invalid value for '--time-limit': 'nan' is not a positive, "
                              "finite number of seconds."),
])
def test_label_usage_errors_have_the_readme_form(tmp_path, args, message):
    inst = write(tmp_path, "good.json", GOOD)
    out = tmp_path / "out.jsonl"
    r = run("label", inst, *args, "-o", out)
    assert one_line(r) == f"prefcert: error: {message} Try 'prefcert label --help'."
    assert not out.exists()


def test_usage_errors_of_other_commands_have_the_readme_form(tmp_path):
    r = run("generate", "voting-manipulation", "-o", tmp_path / "g", "--sizes", "3,x")
    assert one_line(r) == ("prefcert: error: --sizes takes integers: 'x'. Try 'prefcert "
                           "generate --help'.")
    assert not (tmp_path / "g").exists()
    r = run("score", tmp_path)
    assert one_line(r).endswith(". Try 'prefcert score --help'.")


def test_a_click_option_of_another_command_ends_its_sentence_before_the_hint():
    r = run("eval", "indeterminacy-preference", "--model", "mockllm/model",
            "--temperature", "nan")
    assert one_line(r) == ("prefcert: error: Invalid value for '--temperature': 'nan' is "
                           "not a finite number. Try 'prefcert eval --help'.")


# ------------------------------------------------ 17. values as JSON, with the line

@pytest.mark.parametrize("name, obj, message", [
    ("null.json", "null", "an instance must be a JSON object: null"),
    ("intid.json", {**GOOD, "id": 5}, "'id' must be a non-empty string: 5"),
    ("hrbool.json", {"id": "h", "domain": "hospitals_residents",
                     "preferences": {"residents": {"r1": ["h1"]}, "hospitals": {"h1": ["r1"]}},
                     "capacities": {"h1": True}},
     "agent 'h1': capacity must be a non-negative integer (at most 1000000000000): true"),
    ("ekb.json", {**ELECTION, "questions": [{"type": "coalitional_manipulation",
                                             "candidate": "a", "k": True}]},
     "k must be an integer from 1 to 20000: true"),
    ("ex.json", {**ELECTION, "questions": [{"type": "coalitional_manipulation",
                                            "candidate": "a", "k": 2, "extra": 1}]},
     "question 'coalitional_manipulation' has no parameter 'extra': "
     '{"type": "coalitional_manipulation", "candidate": "a", "k": 2, "extra": 1}'),
])
def test_values_in_messages_are_json_with_the_line(tmp_path, name, obj, message):
    p = write(tmp_path, name, obj)
    assert label_error(tmp_path, p) == f"prefcert: error: {p}:1: {message}"


def test_a_number_is_shown_as_written(tmp_path):
    question = {"type": "coalitional_manipulation", "candidate": "a", "weights": [12345]}
    text = json.dumps({**ELECTION, "questions": [question]}).replace("12345", "1e13")
    p = write(tmp_path, "ew.json", text)
    assert label_error(tmp_path, p) == (
        f"prefcert: error: {p}:1: weights must be a list of 1 to 20000 integers from 1 to "
        f"1000000000000: [1e13]")


# ------------------------------------------------ 15. the README's test command

def test_the_test_command_prints_the_pass_count(tmp_path):
    """pyproject's addopts held -q, so `pytest -q` was -qq: no "N passed" line."""
    t = write(tmp_path, "test_one.py", "def test_one():\n    pass\n")
    for extra in ([], ["-q"]):
        r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                            "-p", "no:xdist", "-c", str(ROOT / "pyproject.toml"),
                            "--rootdir", str(tmp_path), *extra, str(t)],
                           capture_output=True, text=True, cwd=tmp_path)
        assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout + r.stderr


# ------------------------------------------------ 7, 19. answers and refine filters

@pytest.fixture(scope="module")
def small_bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fresh") / "b"
    cli("generate", "indeterminacy-preference", "--per-cell", "1", "--sizes", "50", "-o", out)
    return out


@pytest.mark.parametrize("answer", ["NaN", "Infinity", '{"a": [-Infinity]}'])
def test_an_answer_holding_nan_is_refused(tmp_path, small_bench, answer):
    pid = json.loads((small_bench / "prompts.jsonl").read_text().splitlines()[0])["id"]
    answers = write(tmp_path, "a.jsonl", f'{{"id": "{pid}", "answer": {answer}}}\n')
    out = tmp_path / "s.jsonl"
    r = run("score", small_bench, answers, "-o", out)
    assert one_line(r) == (f"prefcert: error: {answers}:1: 'answer' holds NaN or Infinity, "
                           f"which are not JSON (an answer is a string, or a JSON value read "
                           f"as its text): '{pid}'")
    assert not out.exists() and r.stdout == ""


def test_refine_names_an_unknown_cell_factor(tmp_path, small_bench):
    out = tmp_path / "x.jsonl"
    r = run("refine", small_bench, "--command", "cat", "-o", out, "--cell", "bogus=1")
    line = one_line(r)
    assert line.startswith(f"prefcert: error: {small_bench}: --cell: no prompt's cell has "
                           f"the factor 'bogus' (factors: ") and line.endswith("): 'bogus=1'")
    assert not out.exists()
