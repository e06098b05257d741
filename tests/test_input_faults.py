"""Regression tests of issue 20, items 6, 9, 10, 12–15 and 17: numbers in the input that
decided memory, a labels file naming any file, half-answered actionable pairs, public
names that worked once, matchings listed from both sides, PrefLib multiplicities, peer
timeouts, and the smaller one-line errors. (Write faults: tests/test_write_faults.py.)"""
from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PREFCERT, cli

needs_cli = pytest.mark.skipif(PREFCERT is None, reason="console script not installed")

ONE = {"id": "one", "domain": "stable_matching",
       "preferences": {"A": {"m1": ["w1", "w2"], "m2": ["w2", "w1"]},
                       "B": {"w1": ["m1", "m2"], "w2": ["m2", "m1"]}}}


def run(*args, limit_gb: float | None = None, **kw) -> subprocess.CompletedProcess:
    """The console script; ``limit_gb``: its address space capped (a run that allocates
    in proportion to a number in the input fails instead of taking the machine)."""
    def cap():
        n = int(limit_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (n, n))
    return cli(*args, check=False, preexec_fn=cap if limit_gb else None, **kw)


def one_error_line(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.startswith("prefcert: error:")]
    assert len(lines) == 1, r.stderr
    return lines[0]


# ------------------------------------------------------------------ 6. capacities

def _market(cap: int) -> dict:
    return {"id": "big", "domain": "hospitals_residents",
            "preferences": {"residents": {"r1": [["h1", "h2"]], "r2": ["h1", "h2"]},
                            "hospitals": {"h1": [["r1", "r2"]], "h2": ["r2", "r1"]}},
            "capacities": {"h1": cap, "h2": 1}}


@needs_cli
def test_a_large_capacity_allocates_nothing_in_proportion(tmp_path):
    """The largest capacity taken (10^12) labels every question of a 2-resident market in
    a 3 GB address space (it took 1.18 GB at 10^7 before); a larger one is bad input."""
    (tmp_path / "big.json").write_text(json.dumps(_market(10**12)))
    r = run("label", tmp_path / "big.json", "-o", tmp_path / "labels.jsonl", limit_gb=3)
    assert r.returncode == 0, r.stderr[-2000:]
    labels = [json.loads(x) for x in (tmp_path / "labels.jsonl").read_text().splitlines()]
    assert {x["question"] for x in labels} == {"weakly_stable", "strongly_stable",
                                               "super_stable"}
    (tmp_path / "huge.json").write_text(json.dumps(_market(10**30)))
    line = one_error_line(run("label", tmp_path / "huge.json", limit_gb=3))
    assert "capacity must be a non-negative integer (at most 1000000000000)" in line and "h1" in line


# ------------------------------------------------------------------ 9. check's source files

def _labelled(tmp_path: Path) -> Path:
    (tmp_path / "one.json").write_text(json.dumps(ONE))
    r = run("label", tmp_path / "one.json", "-q", "weakly_stable", "-o",
            tmp_path / "labels.jsonl")
    assert r.returncode == 0, r.stderr
    return tmp_path / "labels.jsonl"


def _pointing_at(labels: Path, file: str) -> Path:
    lab = json.loads(labels.read_text())
    lab["source"]["file"] = file
    out = labels.with_name("forged.jsonl")
    out.write_text(json.dumps(lab) + "\n")
    return out


@needs_cli
@pytest.mark.parametrize("name, content", [
    ("secret.jsonl", "API_KEY=sk-live-1234567890abcdef\n"),
    ("secret.json", "API_KEY=sk-live-1234567890abcdef\n"),
    ("secret2.jsonl", '{"API_KEY": "sk-live-1234567890abcdef"}\n'),
])
def test_check_never_echoes_a_file_that_is_not_an_instance_file(tmp_path, name, content):
    labels = _labelled(tmp_path)
    (tmp_path / name).write_text(content)
    r = run("check", _pointing_at(labels, name))
    line = one_error_line(r)
    assert "not a valid instance file" in line
    assert "API_KEY" not in r.stderr + r.stdout and "sk-live" not in r.stderr + r.stdout


@needs_cli
def test_check_reads_instance_files_with_a_size_limit(tmp_path):
    """A 2 GiB sparse .json named by a label is refused before it is read (it took 8.4 GB
    for 4 GB); --max-file-size lowers or raises the limit."""
    labels = _labelled(tmp_path)
    with open(tmp_path / "sparse.json", "wb") as f:
        f.truncate(2 * 2**30)
    line = one_error_line(run("check", _pointing_at(labels, "sparse.json"), limit_gb=1.5))
    assert "larger than the size limit" in line
    line = one_error_line(run("check", labels, "--max-file-size", "100"))
    assert "larger than the size limit" in line
    r = run("check", labels, "--max-file-size", "1M")
    assert r.returncode == 0, r.stderr


# ------------------------------------------------------------------ 10. half-answered pairs

@pytest.fixture(scope="module")
def actionable(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("act") / "b"
    r = run("generate", "actionable-indeterminacy", "--sizes", "4", "--per-cell", "1",
            "-o", out)                            # V3 groups and H5 pairs, 216 prompts
    assert r.returncode == 0, r.stderr[-2000:]
    return out


@needs_cli
def test_score_actionable_with_half_answered_pairs(actionable, tmp_path):
    """Every prompt answered but the first of each design's instances ending in -act (a
    member of a V3 group and of its pair; a member of an H5 pair): the pairs and groups
    missing a member are left out of IFC and all-six and counted, no traceback."""
    prompts = [json.loads(x) for x in (actionable / "prompts.jsonl").read_text().splitlines()]
    acts = [p for p in prompts if p["instance_id"].endswith("-act")]
    skipped = {acts[0]["id"], acts[-1]["id"]}
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": p["id"], "answer": p["answer"]}) + "\n"
                               for p in prompts if p["id"] not in skipped))
    r = run("score", actionable / "prompts.jsonl", answers, "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Traceback" not in r.stderr
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    for what in ("incomplete_pairs", "incomplete_groups"):     # per design and wording
        counted = [row for row in rows if row["metric"] == what]
        assert counted and all(row["n"] > 0 and set(row["group"]) == {"design", "format"}
                               for row in counted)


# ------------------------------------------------------------------ 12. public names

def test_every_public_name_works_twice():
    """Each public name resolves to the same object however often it is used, after
    every submodule of the package has been imported (a submodule named as a re-exported
    function once replaced it)."""
    code = """
import importlib, pkgutil, types
import prefcert
first = {n: getattr(prefcert, n) for n in prefcert.__all__}
for m in pkgutil.walk_packages(prefcert.__path__, "prefcert."):
    try:
        importlib.import_module(m.name)
    except ImportError:
        pass
for n in prefcert.__all__:
    for _ in range(2):
        obj = getattr(prefcert, n)
        assert obj is first[n], n
        assert not isinstance(obj, types.ModuleType), n
inst = {"id": "x", "domain": "stable_matching",
        "preferences": {"A": {"a": ["b"]}, "B": {"b": ["a"]}}}
assert prefcert.classify(inst, [{"a": "b"}]) == prefcert.classify(inst, [{"a": "b"}])
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.strip() == "ok", r.stderr[-2000:]


# ------------------------------------------------------------------ 13. both sides listed

@needs_cli
@pytest.mark.parametrize("answer, code, needle", [
    ({"m1": "w1", "m2": "w2", "w1": "m1", "w2": "m2"}, 0, '"correct"'),
    ({"m1": "w2", "w2": "m1", "m2": "w1", "w1": "m2"}, 1, '"incorrect"'),
    ({"m1": "w1", "m2": "w2", "w1": "m2", "w2": "m1"}, 1,
     "'m2' is given two partners, 'w2' and 'w1'"),
])
def test_audit_a_matching_listed_from_both_sides(tmp_path, answer, code, needle):
    (tmp_path / "one.json").write_text(json.dumps(ONE))
    (tmp_path / "answer.json").write_text(json.dumps(answer))
    r = run("audit", tmp_path / "one.json", tmp_path / "answer.json", "-q", "weakly_stable")
    assert r.returncode == code, r.stdout + r.stderr
    assert needle in r.stdout, r.stdout


def test_read_matching_accepts_a_consistent_symmetric_listing():
    from prefcert.domains.house_allocation import read_allocation
    from prefcert.domains.stable_matching import read_matching
    from prefcert.pipeline.registry import spec
    market = spec("stable_matching").parse(ONE)
    assert read_matching(market, {"m1": "w1", "w1": "m1"}) == {"m1": "w1"}
    with pytest.raises(ValueError, match="'m2' is given two partners, 'w2' and 'w1'"):
        read_matching(market, {"m1": "w1", "m2": "w2", "w1": "m2"})
    ha = spec("house_allocation").parse({"id": "h", "domain": "house_allocation",
                                         "preferences": {"a1": ["h1", "h2"], "a2": ["h1"]}})
    assert read_allocation(ha, {"a1": "h1", "h1": "a1"}) == {"a1": "h1"}
    with pytest.raises(ValueError, match="'a1' is given two partners, 'h1' and 'h2'"):
        read_allocation(ha, {"a1": "h1", "h2": "a1"})


# ------------------------------------------------------------------ 14. PrefLib counts

SOC = """# FILE NAME: tiny.soc
# DATA TYPE: soc
# NUMBER ALTERNATIVES: 2
# NUMBER VOTERS: {voters}
# NUMBER UNIQUE ORDERS: 2
# ALTERNATIVE NAME 1: a
# ALTERNATIVE NAME 2: b
3: 1,2
{count}: 2,1
"""


@needs_cli
@pytest.mark.parametrize("count", [0, 10**13])
def test_preflib_multiplicity_out_of_range_names_its_line(tmp_path, count):
    f = tmp_path / "tiny.soc"
    f.write_text(SOC.format(voters=3 + count, count=count))
    line = one_error_line(run("label", f))
    assert f"{f}:9:" in line and "ballot count" in line and "V1" not in line and "V2" not in line


# ------------------------------------------------------------------ 15. peer timeouts

def _election() -> dict:
    return {"id": "e", "domain": "election", "candidates": ["a", "b", "c"],
            "tie_break": ["c", "b", "a"],
            "ballots": [["a", "b", "c"], ["a", "c", "b"], ["b", "c", "a"]]}


def test_a_peer_warm_up_is_outside_the_time_limit(monkeypatch):
    """The first call of a run (a peer's start-up: pref-voting's Borda takes 8–30 s) is
    made on a warm-up instance before the judged call and its time limit."""
    pytest.importorskip("preflibtools")
    import prefcert.pipeline.peers as peers
    state = {"started": False}

    def slow_start(e):
        if not state["started"]:
            import time
            time.sleep(15)
            state["started"] = True
        return {"winners": ["a"]}
    monkeypatch.setitem(peers.RUNNERS, "preflibtools:borda", slow_start)
    try:
        rec = peers.audit_run("preflibtools:borda", _election(), timeout=10)
    finally:
        peers.shutdown()
    assert rec["verdict"] == "correct", rec


def test_a_peer_that_ignores_signals_is_killed_at_its_time_limit(monkeypatch):
    """A call that cannot be interrupted (here it ignores SIGALRM, as C code does) is
    ended by killing its worker process and counted as a timeout; the next call runs."""
    pytest.importorskip("preflibtools")
    import prefcert.pipeline.peers as peers

    def stuck(e):
        import signal
        import time
        if getattr(e, "candidates", None) and "stuck" in e.candidates:
            signal.signal(signal.SIGALRM, signal.SIG_IGN)
            time.sleep(120)
        return {"winners": [e.candidates[0]]}
    monkeypatch.setitem(peers.RUNNERS, "preflibtools:plurality", stuck)
    inst = dict(_election(), candidates=["stuck", "b", "c"], tie_break=["stuck", "b", "c"],
                ballots=[["stuck", "b", "c"], ["stuck", "c", "b"], ["b", "c", "stuck"]])
    try:
        rec = peers.audit_run("preflibtools:plurality", inst, timeout=2)
        assert rec["verdict"] == "timeout", rec
        assert peers.audit_run("preflibtools:plurality", _election(),
                               timeout=60)["verdict"] == "correct"
    finally:
        peers.shutdown()


# ------------------------------------------------------------------ 17. one-line errors

@needs_cli
def test_audit_library_bad_instance_is_one_line(tmp_path):
    pytest.importorskip("matching")
    bad = dict(ONE, preferences={"A": {"m1": ["w9"]}, "B": {"w1": ["m1"]}})
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    line = one_error_line(run("audit-library", "matching", tmp_path / "bad.json"))
    assert "bad.json" in line


@needs_cli
def test_report_unknown_suite_is_one_line(tmp_path):
    (tmp_path / "s.jsonl").write_text(json.dumps({"suite": "no-such-suite", "verdict": "correct",
                                                  "id": "p1"}) + "\n")
    line = one_error_line(run("report", tmp_path / "s.jsonl", "-o", tmp_path / "r.html"))
    assert "unknown suite" in line and "s.jsonl:1" in line
    assert not (tmp_path / "r.html").exists()


@needs_cli
@pytest.mark.parametrize("row", [{"id": "p", "utilities": ["x"]},
                                 {"id": "p", "utilities": [[]]},
                                 {"id": "p", "utilities": [0.5], "reu": "high"}])
def test_risk_bad_utilities_row_is_one_line(tmp_path, row):
    (tmp_path / "u.jsonl").write_text(json.dumps({"id": "q", "utilities": [1]}) + "\n"
                                      + json.dumps(row) + "\n")
    line = one_error_line(run("risk", "--utilities", tmp_path / "u.jsonl"))
    assert "u.jsonl:2" in line


@pytest.fixture(scope="module")
def pref_bench(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pb") / "b"
    r = run("generate", "indeterminacy-preference", "--per-cell", "1", "--sizes", "50",
            "-o", out)
    assert r.returncode == 0, r.stderr[-2000:]
    return out


@needs_cli
def test_risk_by_an_unknown_factor_is_one_line(pref_bench, tmp_path):
    prompts = [json.loads(x) for x in (pref_bench / "prompts.jsonl").read_text().splitlines()]
    (tmp_path / "a.jsonl").write_text("".join(json.dumps({"id": p["id"], "answer": p["answer"]})
                                              + "\n" for p in prompts))
    line = one_error_line(run("risk", pref_bench / "prompts.jsonl", tmp_path / "a.jsonl",
                              "--by", "colour"))
    assert "--by" in line and "colour" in line


@needs_cli
@pytest.mark.parametrize("command", ["score", "risk"])
def test_an_unknown_answer_id_names_file_and_line(pref_bench, tmp_path, command):
    prompts = [json.loads(x) for x in (pref_bench / "prompts.jsonl").read_text().splitlines()]
    (tmp_path / "a.jsonl").write_text(json.dumps({"id": prompts[0]["id"], "answer": "x"}) + "\n"
                                      + json.dumps({"id": "nope", "answer": "x"}) + "\n")
    line = one_error_line(run(command, pref_bench / "prompts.jsonl", tmp_path / "a.jsonl"))
    assert "a.jsonl:2" in line and "unknown prompt id" in line and "nope" in line


@needs_cli
@pytest.mark.parametrize("command", ["score", "risk"])
def test_an_answer_written_for_another_suite_names_file_and_line(pref_bench, tmp_path,
                                                                 command):
    """A regression: every benchmark numbers its prompts from 00001, and answers written
    for another benchmark were scored against this one's prompts."""
    prompts = [json.loads(x) for x in (pref_bench / "prompts.jsonl").read_text().splitlines()]
    own = prompts[0]["suite"]
    (tmp_path / "a.jsonl").write_text(
        json.dumps({"id": prompts[0]["id"], "suite": own, "answer": "x"}) + "\n"
        + json.dumps({"id": prompts[1]["id"], "suite": "voting-manipulation",
                      "answer": "x"}) + "\n")
    line = one_error_line(run(command, pref_bench / "prompts.jsonl", tmp_path / "a.jsonl"))
    assert "a.jsonl:2" in line and "'voting-manipulation'" in line and repr(own) in line


@needs_cli
@pytest.mark.parametrize("command", ["score", "risk"])
def test_an_answer_repeating_a_key_names_file_and_line(pref_bench, tmp_path, command):
    """A regression: ``{"id": "00001", …, "id": "00002"}`` was scored as prompt 00002."""
    prompts = [json.loads(x) for x in (pref_bench / "prompts.jsonl").read_text().splitlines()]
    first, second = prompts[0]["id"], prompts[1]["id"]
    (tmp_path / "a.jsonl").write_text(json.dumps({"id": first, "answer": "x"}) + "\n"
                                      + f'{{"id": "{second}", "answer": "x", "id": "{first}"}}\n')
    line = one_error_line(run(command, pref_bench / "prompts.jsonl", tmp_path / "a.jsonl"))
    assert "a.jsonl:2" in line and "appears twice" in line and "'id'" in line


@needs_cli
def test_a_missing_prompts_file_is_named(pref_bench, tmp_path):
    (tmp_path / "a.jsonl").write_text("")
    line = one_error_line(run("score", pref_bench / "prompts.parquet", tmp_path / "a.jsonl"))
    assert "no such prompts file" in line and "labels.jsonl" not in line


@needs_cli
@pytest.mark.parametrize("inst, needle", [
    (dict(ONE, questons=["weakly_stable"]), "unknown key of a stable_matching instance"),
    ({"id": "c", "domain": "consistency", "choices": []}, "no question to ask"),
])
def test_bad_instances_are_one_line(tmp_path, inst, needle):
    (tmp_path / "i.json").write_text(json.dumps(inst))
    line = one_error_line(run("label", tmp_path / "i.json"))
    assert needle in line and "i.json" in line
    if "questons" in inst:
        assert "questons" in line


def test_read_validates_what_it_reads(tmp_path):
    import prefcert
    from prefcert.formal.errors import InstanceError
    (tmp_path / "bad.json").write_text(json.dumps(dict(ONE, preferences={
        "A": {"m1": ["w9"]}, "B": {"w1": ["m1"]}})))
    with pytest.raises(InstanceError, match="bad.json"):
        prefcert.read(tmp_path / "bad.json")
    (tmp_path / "q.json").write_text(json.dumps(dict(ONE, questions=["no_such_question"])))
    with pytest.raises(InstanceError):
        prefcert.read(tmp_path / "q.json")
    assert prefcert.read(_write(tmp_path / "ok.json", ONE))[0].id == "one"


def _write(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj))
    return path


def test_label_time_limit_nan_and_pass_at_k_bounds():
    import prefcert
    from prefcert.bench.rational_value_risk.risk import pass_at_k
    with pytest.raises(ValueError, match="time_limit"):
        prefcert.label(ONE, "weakly_stable", time_limit=float("nan"))
    with pytest.raises(ValueError):
        pass_at_k(3, 5, 1)


def test_report_pages_are_the_same_bytes_on_every_run():
    code = """
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from prefcert.bench.report import Report
r = Report("t")
fig, ax = plt.subplots()
ax.plot([0, 1], [1, 0])
r.figure("a plot", fig)
sys.stdout.write(r.html())
"""
    pages = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout for _ in range(2)]
    assert pages[0] == pages[1] and "<svg" in pages[0]


@needs_cli
def test_a_foreign_line_in_a_benchmark_file_names_file_and_line(pref_bench, tmp_path):
    """A regression: a line without ``label_id`` in labels.jsonl was a KeyError traceback."""
    bench = tmp_path / "b"
    shutil.copytree(pref_bench, bench)
    n = len((bench / "labels.jsonl").read_text().splitlines())
    with open(bench / "labels.jsonl", "a") as f:
        f.write('{"note": "added by hand"}\n')
    prompts = [json.loads(x) for x in (bench / "prompts.jsonl").read_text().splitlines()]
    (tmp_path / "a.jsonl").write_text(json.dumps({"id": prompts[0]["id"], "answer": "x"}) + "\n")
    line = one_error_line(run("score", bench / "prompts.jsonl", tmp_path / "a.jsonl"))
    assert f"labels.jsonl:{n + 1}" in line and "'label_id'" in line


@needs_cli
def test_a_timeout_that_is_not_true_or_false_names_file_and_line(pref_bench, tmp_path):
    """A regression: ``"timeout": "false"`` (a text, so truthy) was scored as a timeout."""
    prompts = [json.loads(x) for x in (pref_bench / "prompts.jsonl").read_text().splitlines()]
    (tmp_path / "a.jsonl").write_text(
        json.dumps({"id": prompts[0]["id"], "answer": "x", "timeout": False}) + "\n"
        + json.dumps({"id": prompts[1]["id"], "answer": "x", "timeout": "false"}) + "\n")
    line = one_error_line(run("score", pref_bench / "prompts.jsonl", tmp_path / "a.jsonl"))
    assert "a.jsonl:2" in line and "'timeout' is true or false" in line


@needs_cli
def test_an_output_under_a_file_says_so(tmp_path):
    """A regression: ``-o afile/x.jsonl`` said the folder does not exist."""
    (tmp_path / "afile").write_text("")
    (tmp_path / "one.json").write_text(json.dumps(
        {"id": "x", "domain": "stable_matching",
         "preferences": {"A": {"a": ["b"]}, "B": {"b": ["a"]}}}))
    line = one_error_line(run("label", tmp_path / "one.json", "-o", tmp_path / "afile" / "x.jsonl"))
    assert "afile" in line and "the output's folder is a file" in line


# ------------------------------------------------------------------ found by a new user

@needs_cli
def test_an_output_of_the_wrong_kind_is_one_line(tmp_path):
    """``-o`` naming a folder where a file is written (and a file where a folder is) gets
    the one-line error of every other output fault, not click's usage block."""
    (tmp_path / "one.json").write_text(json.dumps(ONE))
    folder, file = tmp_path / "adir", tmp_path / "afile"
    folder.mkdir()
    file.write_text("keep\n")
    line = one_error_line(run("label", tmp_path / "one.json", "-o", folder))
    assert line == f"prefcert: error: {folder}: -o names a folder; it must name a file to write"
    line = one_error_line(run("generate", "voting-manipulation", "-o", file))
    assert line == f"prefcert: error: {file}: -o names a file; it must name a folder to write"
    assert file.read_text() == "keep\n" and list(folder.iterdir()) == []


@needs_cli
def test_a_huge_value_is_cut_in_the_error_line(tmp_path):
    """A count of 10^100000 is named by its first digits and its length: the error stays
    one readable line (it echoed all 100,001 digits before)."""
    e = {"id": "e", "domain": "election", "candidates": ["a", "b"], "tie_break": ["a", "b"],
         "ballots": [{"ranking": ["a", "b"], "count": 1}]}
    text = json.dumps(e).replace('"count": 1', '"count": 1' + "0" * 100_000)
    (tmp_path / "huge.jsonl").write_text(text + "\n")
    line = one_error_line(run("label", tmp_path / "huge.jsonl"))
    assert line.endswith(": count must be an integer from 1 to 1000000000000: 1"
                         + "0" * 59 + "… (100001 digits)"), line[:300]
    assert len(line) < 300


@needs_cli
@pytest.mark.parametrize("question, what, repeat", [
    ({"type": "rs", "agent": "V1", "bundles": [["a"], ["a", "a"]]}, "a bundle", "a"),
    ({"type": "rank_set", "agent": "V1", "items": ["b", "c", "b"]}, "rank_set's items", "b")])
def test_a_set_that_names_an_item_twice_is_refused(tmp_path, question, what, repeat):
    """A bundle or item set written with a repeat was merged silently and labelled (found
    by a new user): the repeat is a typo, refused like a repeated item in a list."""
    data = {"id": "p", "domain": "preference", "items": ["a", "b", "c"],
            "profile": {"V1": ["a", "b", "c"]}}
    (tmp_path / "p.json").write_text(json.dumps(data))
    out = tmp_path / "labels.jsonl"
    line = one_error_line(run("label", tmp_path / "p.json", "-q", json.dumps(question),
                              "-o", out))
    assert f"{what} names an item twice: {repeat!r}" in line
    assert not out.exists()


@needs_cli
def test_a_byte_order_mark_at_the_start_of_a_file_is_skipped(tmp_path):
    """Editors on some systems start a UTF-8 file with a byte-order mark; it was refused
    with Python's "decode using utf-8-sig" (found by a new user). The labels of such a
    file are those of the same file without it."""
    text = json.dumps(ONE)
    for name, body in (("plain.json", text), ("bom.json", "\ufeff" + text),
                       ("bom.jsonl", "\ufeff" + text + "\n" + text.replace('"one"', '"two"')
                        + "\n")):
        (tmp_path / name).write_text(body, encoding="utf-8")

    def labels(name):
        r = run("label", tmp_path / name, "--engines", "oracle")
        assert r.returncode == 0, r.stderr
        return [{k: v for k, v in json.loads(x).items() if k not in ("source", "engines")}
                for x in r.stdout.splitlines()]
    plain = labels("plain.json")
    assert labels("bom.json") == plain and len(plain) == 3
    assert labels("bom.jsonl")[:3] == plain
    stray = tmp_path / "stray.jsonl"            # a mark anywhere else is bad input
    stray.write_text(text + "\n\ufeff" + text + "\n", encoding="utf-8")
    line = one_error_line(run("label", stray))  # json.loads's own message, not the decoder's
    assert ":2:" in line and "Unexpected UTF-8 BOM" in line, line


@needs_cli
def test_a_reader_that_stops_ends_the_run_quietly():
    """``prefcert label … | head -1``: the closed pipe ended in "prefcert: error: cannot
    write to stdout (Broken pipe)", exit 2 (found by a new user); now silently, 141."""
    folder = Path(__file__).resolve().parents[1] / "instances" / "stable_matching"
    p = subprocess.Popen([PREFCERT, "label", str(folder)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=600)
    assert json.loads(first)["domain"] == "stable_matching"
    assert p.returncode == 141 and err == "", (p.returncode, err[-2000:])
