"""Every user file read through one helper (:func:`prefcert.formal.files.read_input`): a
FIFO, a device or a folder where a file is expected refused unread, text that is not
UTF-8 or JSON that is malformed, of the wrong type or nested too deeply named by file,
line and value, exit status 2, never a traceback (a fresh user's review)."""
from __future__ import annotations

import json
import os
import re
import resource
import subprocess
from pathlib import Path

import pytest
from conftest import PREFCERT, cli

from prefcert.formal.errors import InstanceError
from prefcert.formal.files import check_input, parse_json, read_input, read_json_lines

needs_cli = pytest.mark.skipif(PREFCERT is None, reason="console script not installed")
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")

ONE = {"id": "one", "domain": "stable_matching",
       "preferences": {"A": {"m1": ["w1", "w2"], "m2": ["w2", "w1"]},
                       "B": {"w1": ["m1", "m2"], "w2": ["m2", "m1"]}}}

#: deeper than the JSON decoder's recursion limit: json.loads raises RecursionError
DEEP = "[" * 100_000 + "]" * 100_000


def run(*args: object, **kw) -> subprocess.CompletedProcess:
    """The console script in a 2 GiB address space and within 60 s: a read of /dev/zero
    fails (MemoryError) and a read of a FIFO without a writer times out instead of
    taking the machine or hanging the suite."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (2**31, 2**31))
    return cli(*args, check=False, preexec_fn=cap, timeout=60, **kw)


def one_error_line(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr, r.stderr[-2000:]
    assert not r.stdout.strip(), r.stdout[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("prefcert: error:"), r.stderr[-2000:]
    return lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    """An instance, its label, a small benchmark and a FIFO and a folder to misuse."""
    d = tmp_path_factory.mktemp("inputs")
    (d / "one.json").write_text(json.dumps(ONE))
    cli("label", d / "one.json", "-q", "weakly_stable", "-o", d / "labels.jsonl")
    cli("generate", "voting-manipulation", "--sizes", "3", "--per-cell", "1", "-o", d / "vm")
    (d / "answer.txt").write_text("yes")
    if hasattr(os, "mkfifo"):
        os.mkfifo(d / "fifo.jsonl")
        os.mkfifo(d / "fifo.eval")
    (d / "folder.jsonl").mkdir()
    return d


def _prompt_id(files: Path) -> str:
    return json.loads((files / "vm" / "prompts.jsonl").read_text().splitlines()[0])["id"]


#: command name -> its arguments with the user file under test as X
COMMANDS = {
    "check": lambda d, x: ["check", x],
    "label": lambda d, x: ["label", x],
    "audit": lambda d, x: ["audit", d / "one.json", "-q", "weakly_stable", x],
    "classify": lambda d, x: ["classify", d / "one.json", x],
    "score": lambda d, x: ["score", d / "vm" / "prompts.jsonl", x],
    "feedback": lambda d, x: ["feedback", d / "vm" / "prompts.jsonl", x, "--id", _prompt_id(d)],
    "report": lambda d, x: ["report", x, "-o", d / "out.html"],
    "consistency": lambda d, x: ["consistency", d / "answer.txt", "--design", x],
}


@needs_cli
@needs_fifo
@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("kind, what", [("zero", "a character device"),
                                        ("fifo", "a FIFO"), ("folder", "a folder")])
def test_a_device_a_fifo_or_a_folder_is_refused_unread(files, command, kind, what):
    """/dev/zero was read until memory ran out (MemoryError traceback) and a FIFO without a
    writer hung check, audit, classify, score, feedback, report and consistency; label
    said "no such file or folder" of both."""
    if command == "label" and kind == "folder":
        pytest.skip("label reads a folder's instance files")
    path = {"zero": "/dev/zero", "fifo": files / "fifo.jsonl",
            "folder": files / "folder.jsonl"}[kind]
    line = one_error_line(run(*COMMANDS[command](files, path)))
    assert f"{path}: {what}" in line, line
    assert not (files / "out.html").exists()


@needs_cli
@needs_fifo
def test_an_inspect_log_that_is_a_fifo_is_refused_unread(files):
    pytest.importorskip("inspect_ai")
    line = one_error_line(run("score", files / "fifo.eval"))
    assert f"{files / 'fifo.eval'}: a FIFO" in line, line


@needs_cli
@pytest.mark.parametrize("text, shown", [
    ('{"id": "one", "question": "weakly_st', ":2: malformed JSON (Unterminated string"),
    ("[1, 2]", ":2: not a label (a label is a JSON object): [1, 2]"),
    ('{"id": "one", "source": {"file": "one.json"}}', ":2: not a label (a field is missing): 'question'"),
    ('{"id": 10000000000000000000000, "question": "q", "source": {}}',
     ":2: not a label: its 'id' must be a string: 10000000000000000000000"),
    ('{"id": "one", "question": "q", "source": {"file": 1e400}}',
     ":2: not a label: its source 'file' must be a string: 1e400"),
    (DEEP, ":2: JSON nested too deeply"),
    ('{"id": "a", "id": "b", "question": "q", "source": {}}', ":2: a key appears twice"),
])
def test_check_names_the_labels_file_the_line_and_the_value(files, tmp_path, text, shown):
    """A malformed labels line said only "not a label (JSONDecodeError: ...)" or
    "(TypeError: list indices must be integers ...)", without the value; 100 000 nested
    brackets were a RecursionError traceback."""
    labels = tmp_path / "labels.jsonl"
    labels.write_text((files / "labels.jsonl").read_text() + text + "\n")
    (tmp_path / "one.json").write_text(json.dumps(ONE))
    line = one_error_line(run("check", labels))
    assert f"{labels}{shown}" in line, line


@needs_cli
def test_check_names_the_line_of_a_byte_that_is_not_utf8(files, tmp_path):
    """It said "cannot read the labels (UnicodeDecodeError)", with no line or value."""
    labels = tmp_path / "labels.jsonl"
    labels.write_bytes((files / "labels.jsonl").read_bytes() + b'{"id": "caf\xe9"}\n')
    line = one_error_line(run("check", labels))
    assert f"{labels}:2: not UTF-8 text: b'\\xe9" in line, line


@needs_cli
def test_check_reads_its_labels_file_within_the_size_limit(files, tmp_path):
    """The labels file itself was read whole whatever its size."""
    labels = tmp_path / "labels.jsonl"
    labels.write_text((files / "labels.jsonl").read_text() + "\n" * 2000)
    (tmp_path / "one.json").write_text(json.dumps(ONE))
    line = one_error_line(run("check", labels, "--max-file-size", "1K"))
    assert f"{labels}: the file is larger than the size limit" in line, line
    assert run("check", labels).returncode == 0


@needs_cli
@pytest.mark.parametrize("command", ["classify", "score", "report", "consistency"])
def test_json_nested_too_deeply_is_one_line(files, tmp_path, command):
    """json.loads raised RecursionError: a traceback, exit 1."""
    path = tmp_path / "deep.jsonl"
    path.write_text(DEEP + "\n")
    line = one_error_line(run(*COMMANDS[command](files, path)))
    assert f"{path}:1: JSON nested too deeply" in line, line


@needs_cli
def test_a_bad_answers_record_is_named_by_its_line_after_blank_lines(files, tmp_path):
    """Answer records were numbered by their index, not their line: blank lines before a
    bad record moved the error to another line."""
    answers = tmp_path / "answers.jsonl"
    answers.write_text('\n\n{"id": "no-such-prompt", "answer": "yes"}\n')
    line = one_error_line(run("score", files / "vm" / "prompts.jsonl", answers))
    assert f"{answers}:3:" in line and "no-such-prompt" in line, line


@needs_cli
def test_an_answer_holding_a_line_separator_is_one_record(files, tmp_path):
    """An answer written with ``ensure_ascii=False`` may hold U+2028 (valid inside a JSON
    string); str.splitlines cut the record there and called it malformed JSON."""
    pid = _prompt_id(files)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": pid, "answer": "I think\u2028yes"},
                                  ensure_ascii=False) + "\n", encoding="utf-8")
    r = run("score", files / "vm" / "prompts.jsonl", answers, "--json")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]


# ------------------------------------------------------------------ the helpers

def test_read_input_refuses_what_is_not_a_regular_file(tmp_path):
    for path, what in (("/dev/zero", "a character device"), (tmp_path, "a folder")):
        with pytest.raises(InstanceError, match=what):
            read_input(path)
        with pytest.raises(InstanceError, match=what):
            check_input(path)
    with pytest.raises(InstanceError, match="cannot read the file"):
        read_input(tmp_path / "missing.txt")


def test_read_input_applies_its_limit_and_drops_a_byte_order_mark(tmp_path):
    p = tmp_path / "x.txt"
    p.write_bytes(b"\xef\xbb\xbfhello\n")
    assert read_input(p) == "hello\n"
    with pytest.raises(InstanceError, match="larger than the size limit"):
        read_input(p, limit=3)
    with pytest.raises(InstanceError, match="larger than the size limit"):
        check_input(p, limit=3)


def test_parse_json_names_the_line_and_the_value():
    with pytest.raises(InstanceError) as e:
        parse_json('{"a": 1,\n "b": }', "f.json")
    assert str(e.value).startswith("f.json:2: malformed JSON")
    with pytest.raises(InstanceError) as e:
        parse_json('{"a": 1,\n "a": 2}', "f.json")
    assert str(e.value) == ("f.json:2: a key appears twice in one object (JSON would keep "
                            "only the last): 'a'")
    with pytest.raises(InstanceError, match="f.jsonl:7: JSON nested too deeply"):
        parse_json(DEEP, "f.jsonl", 7)
    assert parse_json('{"a": 1, "a": 2}', "f", unique_keys=False) == {"a": 2}


def test_read_json_lines_numbers_records_by_their_line(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('\n{"a": 1}\r\n\n{"b": "x\u2028y"}\n', encoding="utf-8")
    assert read_json_lines(p) == [(2, {"a": 1}), (4, {"b": "x\u2028y"})]
    p.write_text('{"a": 1}\n[1]\n')
    with pytest.raises(InstanceError, match=r"x.jsonl:2: not a JSON object: '\[1\]'"):
        read_json_lines(p)


# ------------------------------------------------------------------ records of another shape

@pytest.fixture(scope="module")
def scored(files) -> dict:
    """One scored record of the benchmark, as prefcert score -o writes it."""
    answers = files / "one-answer.jsonl"
    answers.write_text(json.dumps({"id": _prompt_id(files), "answer": "yes"}) + "\n")
    cli("score", files / "vm" / "prompts.jsonl", answers, "-o", files / "scores.jsonl")
    return json.loads((files / "scores.jsonl").read_text().splitlines()[0])


@needs_cli
@pytest.mark.parametrize("field, value, shown", [
    ("oracle", 5, ":2: a scored record that prefcert score did not write"),
    ("stratum", None, ":2: a scored record that prefcert score did not write"),
    ("rule", [], ":2: a scored record that prefcert score did not write"),
    ("suite", [], ":2: unknown suite"),
])
def test_report_names_a_scored_record_of_another_shape(files, scored, tmp_path, field,
                                                       value, shown):
    """A scores record with a suite field missing or of another type was a traceback
    (TypeError, KeyError, ValueError in the suite's result sets)."""
    rec = dict(scored)
    if value is None:
        del rec[field]
    else:
        rec[field] = value
    path = tmp_path / "scores.jsonl"
    path.write_text("\n" + json.dumps(rec) + "\n")
    line = one_error_line(run("report", path, "-o", tmp_path / "r.html"))
    assert f"{path}{shown}" in line, line
    assert not (tmp_path / "r.html").exists()


def _edited(files: Path, tmp_path: Path, name: str, field: str, value) -> Path:
    import shutil
    out = tmp_path / "bench"
    shutil.copytree(files / "vm", out)
    lines = (out / name).read_text().splitlines()
    rec = json.loads(lines[0])
    rec[field] = value
    (out / name).write_text("\n".join([json.dumps(rec), *lines[1:]]) + "\n")
    return out


@needs_cli
@pytest.mark.parametrize("name, field, value, shown", [
    ("prompts.jsonl", "id", [], "prompts.jsonl:1: not a record of prefcert generate: its 'id'"),
    ("prompts.jsonl", "instance_ids", 7, "its 'instance_ids' must be a list of strings: 7"),
    ("labels.jsonl", "label_id", [], "labels.jsonl:1: not a record of prefcert generate"),
    ("instances.jsonl", "id", {}, "instances.jsonl:1: not a record of prefcert generate"),
])
def test_score_names_a_benchmark_record_of_another_shape(files, tmp_path, name, field,
                                                         value, shown):
    """A hand-edited benchmark record was a traceback (unhashable type, not iterable)."""
    bench = _edited(files, tmp_path, name, field, value)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": _prompt_id(files), "answer": "yes"}) + "\n")
    line = one_error_line(run("score", bench, answers))
    assert shown in line, line


@needs_cli
def test_feedback_on_a_prompt_of_another_shape_is_one_line(files, tmp_path):
    """A prompt whose cell lacks the suite's factors was a KeyError traceback."""
    bench = _edited(files, tmp_path, "prompts.jsonl", "cell", {})
    line = one_error_line(run("feedback", bench, files / "answer.txt", "--id",
                              _prompt_id(files)))
    assert "not those prefcert generate wrote" in line and _prompt_id(files) in line, line


@needs_cli
def test_refine_on_a_prompt_of_another_shape_is_feedbacks_one_line(files, tmp_path):
    """refine on a prompt whose cell lacks the suite's factors was a KeyError traceback
    (exit 1); it is feedback's line now, naming the prompts file, the prompt's line and
    its id, with nothing written."""
    bench = _edited(files, tmp_path, "prompts.jsonl", "cell", {})
    out = tmp_path / "refined.jsonl"
    line = one_error_line(run("refine", bench, "--command", "cat", "-o", out, "--id",
                              _prompt_id(files)))
    assert line.startswith(f"prefcert: error: {bench / 'prompts.jsonl'}:1: "), line
    assert "not those prefcert generate wrote" in line and "KeyError" in line, line
    assert line.endswith(repr(_prompt_id(files))), line
    assert not out.exists()
    said = one_error_line(run("feedback", bench, files / "answer.txt", "--id",
                              _prompt_id(files)))
    assert said == line                       # the one message of both commands


@needs_cli
def test_a_parquet_json_column_that_is_not_json_is_named_by_file_row_and_value(tmp_path):
    """A bad *_json column value of a Parquet benchmark was named by the data folder and
    the prompt id, not by the split file and row, nor its value."""
    pq = pytest.importorskip("pyarrow.parquet")
    import shutil

    import pyarrow as pa
    bench = tmp_path / "pq"
    cli("generate", "voting-manipulation", "--sizes", "3", "--per-cell", "1", "--format",
        "parquet", "-o", bench)
    split = next((bench / "data").glob("*.parquet"))
    table = pq.read_table(split)
    rows = table.to_pylist()
    rows[1]["labels_json"] = '{"oops": '
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), split)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": rows[0]["id"], "answer": "yes"}) + "\n")
    out = tmp_path / "scores.jsonl"
    shown = f"{split}:2: row 2, column 'labels_json': malformed JSON"
    for args in (["score", bench, answers, "-o", out],
                 ["export", "lm-eval", "voting-manipulation", tmp_path / "task",
                  "--benchmark", bench]):
        line = one_error_line(run(*args))
        assert line.startswith(f"prefcert: error: {shown}") and \
            line.endswith("""'{"oops": '""") , line
    assert not out.exists() and not (tmp_path / "task").exists()
    shutil.rmtree(bench)


@pytest.mark.parametrize("edit, shown", [
    (lambda d: d["stress_paths"][0].update(k=1e400), "'k' (its length) must be an integer"),
    (lambda d: d["stress_paths"][0].update(k=None), "'k' (its length) must be an integer"),
    (lambda d: d.update(pairs=10**100), "'pairs' must be a list"),
    (lambda d: d["pairs"][0].update(direct=[]), "names an unknown cell"),
    (lambda d: d["stress_paths"][0].update(steps=7), "'steps' must be a list"),
])
def test_a_design_of_another_shape_is_bad_input(edit, shown):
    """int(inf) (OverflowError), int(None), iterating a number and hashing a list were
    tracebacks of prefcert consistency --design."""
    from prefcert.bench.self_consistency.audit import parse_design
    from prefcert.generators.consistency import paper_design
    design = json.loads(json.dumps(paper_design(0)))
    edit(design)
    with pytest.raises(InstanceError, match=re.escape(shown)):
        parse_design(design, "design.json")


@needs_cli
def test_a_csv_response_longer_than_128k_characters_is_read(tmp_path):
    """The csv module's default field limit (131072 characters) made a long completion in a
    responses CSV a _csv.Error traceback."""
    from prefcert.generators.consistency import paper_design
    (tmp_path / "design.json").write_text(json.dumps(paper_design(0)))
    responses = tmp_path / "responses.csv"
    responses.write_text('model,cell_id,value\nm,no-such-cell,"' + "x" * 200_000 + '"\n')
    line = one_error_line(run("consistency", responses, "--design", tmp_path / "design.json"))
    assert f"{responses}:2: response to a cell the design does not have" in line, line


@needs_cli
@pytest.mark.parametrize("declared", [10**32, 3 * 10**8])
def test_a_declared_number_of_alternatives_allocates_nothing(tmp_path, declared):
    """NUMBER ALTERNATIVES decided the length of a list built before it was compared with
    the ALTERNATIVE NAME lines: 10**32 was an OverflowError traceback, 3 * 10**8 took
    11.8 GB and 68 s for a file of eight lines (a MemoryError in 2 GiB)."""
    path = tmp_path / "x.soc"
    path.write_text(f"# FILE NAME: x.soc\n# DATA TYPE: soc\n# NUMBER ALTERNATIVES: {declared}\n"
                    "# NUMBER VOTERS: 1\n# NUMBER UNIQUE ORDERS: 1\n# ALTERNATIVE NAME 1: a\n"
                    "# ALTERNATIVE NAME 2: b\n1: 1,2\n")
    line = one_error_line(run("label", path))
    assert f"{path}:3: NUMBER ALTERNATIVES is {declared} but the ALTERNATIVE NAME" in line, line


def test_a_report_fault_no_file_record_reproduces_is_not_called_bad_input(scored):
    """Only a record read from a file, whose own report fails, is named as bad input; a
    fault no such record reproduces (records scored from logs) keeps prefcert's traceback."""
    from prefcert.bench.report import unscored_record
    broken = {k: v for k, v in scored.items() if k != "stratum"}
    assert unscored_record([broken], [None]) is None
    named = unscored_record([broken], [("scores.jsonl", 3)])
    assert named is not None and "scores.jsonl:3" in str(named), named
