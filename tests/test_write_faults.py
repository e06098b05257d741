"""The fault script of every command that writes (issue 20, items 7, 8, 11, 14): a
read-only folder, a full disk (a small tmpfs, where root may mount one), an output folder
that does not exist, an output that is one of the inputs, stdout on a full device, and
concurrent runs into one folder. Every case: exit status 2, one line ``prefcert: error:``,
no traceback, and the output folder exactly as it was (no partial, no temporary file,
an old output untouched).

The writers are found in the command table (every option of type ``OutputPath``); a test
fails when a command gains an output that this script does not cover."""
from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

EXE = shutil.which("prefcert", path=os.path.dirname(sys.executable)) or shutil.which("prefcert")
pytestmark = pytest.mark.skipif(EXE is None, reason="console script not installed")
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
REPO = Path(__file__).resolve().parents[1]

ONE = {"id": "one", "domain": "stable_matching",
       "preferences": {"A": {"m1": ["w1"]}, "B": {"w1": ["m1"]}}}
OLD = "an older output, to be left as it was\n"


def run(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, *map(str, args)], capture_output=True, text=True,
                          timeout=600, **kw)


def listing(folder: Path) -> dict[str, bytes | None]:
    """Every entry under ``folder`` (hidden ones too) with its bytes (None: a folder)."""
    return {str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes())
            for p in sorted(folder.rglob("*"))}


def assert_refused(r: subprocess.CompletedProcess, needle: str = "") -> None:
    """Exit 2, one ``prefcert: error:`` line naming ``needle``, no traceback."""
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr, r.stderr
    errors = [x for x in r.stderr.splitlines() if x.startswith("prefcert: error:")]
    assert len(errors) == 1, r.stderr
    assert needle in errors[0], r.stderr


# ------------------------------------------------------------------ inputs of every writer

@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> dict[str, Path]:
    """One small input of every command that writes."""
    d = tmp_path_factory.mktemp("inputs")
    (d / "one.json").write_text(json.dumps(ONE))
    bench = d / "bench"
    r = run("generate", "indeterminacy-preference", "--per-cell", "1", "--sizes", "50",
            "-o", bench)
    assert r.returncode == 0, r.stderr[-2000:]
    prompts = [json.loads(x) for x in (bench / "prompts.jsonl").read_text().splitlines()]
    (d / "answers.jsonl").write_text("".join(
        json.dumps({"id": p["id"], "answer": p["answer"]}) + "\n" for p in prompts))
    r = run("score", bench / "prompts.jsonl", d / "answers.jsonl", "-o", d / "scores.jsonl")
    assert r.returncode == 0, r.stderr[-2000:]
    (d / "utilities.jsonl").write_text("".join(
        json.dumps({"id": f"p{i}", "utilities": [0.5, 1, 0.25]}) + "\n" for i in range(8)))
    from prefcert.generators.consistency import paper_design, simulate_responses
    design = paper_design(0)
    (d / "design.json").write_text(json.dumps({k: v for k, v in design.items()
                                               if k != "truth"}))
    sim = simulate_responses(design, {"alpha": {"noise": 8}}, completions=3, seed=1)
    (d / "responses.jsonl").write_text("".join(json.dumps(r) + "\n" for r in sim))
    (d / "prop.py").write_text("def holds(inst):\n    return True\n")
    (d / "answerer.py").write_text("import sys\nsys.stdin.read()\nprint('no idea')\n")
    return {"dir": d, "one": d / "one.json", "bench": bench, "prompts": bench / "prompts.jsonl",
            "answers": d / "answers.jsonl", "scores": d / "scores.jsonl",
            "utilities": d / "utilities.jsonl", "design": d / "design.json",
            "responses": d / "responses.jsonl", "prop": d / "prop.py",
            "answerer": d / "answerer.py"}


def _peer() -> str | None:
    from prefcert.pipeline.peers import available
    return next((lib for lib in ("matching", "algmatch") if available(lib)), None)


def _consistency(w, *extra):
    return ["consistency", w["responses"], "--design", w["design"], "--resamples", "50",
            *extra]


#: (command, option) -> (the arguments writing OUT, is OUT a folder); one row per output
#: option of every command
WRITERS = {
    ("label", "out"): (lambda w, out: ["label", w["one"], "-o", out], False),
    ("label", "disagreements"): (lambda w, out: ["label", w["one"], "--disagreements", out],
                                 False),
    ("generate", "out"): (lambda w, out: ["generate", "indeterminacy-preference",
                                          "--per-cell", "1", "--sizes", "50", "-o", out], True),
    ("score", "out"): (lambda w, out: ["score", w["prompts"], w["answers"], "-o", out], False),
    ("report", "out"): (lambda w, out: ["report", w["scores"], "-o", out], False),
    ("report", "json_out"): (lambda w, out: ["report", w["scores"], "-o",
                                             str(Path(out).with_suffix(".html")),
                                             "--json", out], False),
    ("report", "figures"): (lambda w, out: ["report", w["scores"], "-o",
                                            str(Path(out).parent / "page.html"),
                                            "--figures", out], True),
    ("refine", "out"): (lambda w, out: ["refine", w["prompts"], "--command",
                                        f"{sys.executable} {w['answerer']}", "--rounds", "1",
                                        "-o", out], False),
    ("counterexample", "out"): (lambda w, out: ["counterexample", "strict-core-nonempty",
                                                "--max-size", "2", "-o", out], False),
    ("consistency", "out"): (lambda w, out: _consistency(w, "--no-certify", "-o", out), False),
    ("consistency", "report"): (lambda w, out: _consistency(w, "--no-certify", "--report",
                                                            out), False),
    ("consistency", "labels_dir"): (lambda w, out: _consistency(w, "--labels", out), True),
    ("consistency", "parsed"): (lambda w, out: _consistency(w, "--no-certify", "--parsed",
                                                            out), False),
    ("risk", "out"): (lambda w, out: ["risk", "--utilities", w["utilities"], "-o", out], False),
    ("risk", "report"): (lambda w, out: ["risk", "--utilities", w["utilities"], "--report",
                                         out], False),
    ("export", "out"): (lambda w, out: ["export", "lm-eval", "indeterminacy-preference", out,
                                        "--benchmark", w["bench"]], True),
    ("audit-library", "out"): (lambda w, out: ["audit-library", _peer() or "matching",
                                               "--random", "2", "-o", out], False),
}

#: outputs written only in a case the fault script cannot bring about on demand
ONLY_CHECKED_UP_FRONT = {("label", "disagreements"): "written only on an engine "
                                                      "disagreement"}


def test_the_script_covers_every_output_of_every_command():
    import click
    from prefcert.cli import main
    from prefcert.cli.common import OutputPath
    ctx = click.Context(main)
    found = set()
    for name in main.list_commands(ctx):
        cmd = main.get_command(ctx, name)
        for p in cmd.params:
            if isinstance(p.type, OutputPath):
                found.add((name, p.name))
    assert found == set(WRITERS)


def _target(folder: Path, key, is_folder: bool) -> Path:
    return folder / ("out" if is_folder else f"out-{key[1]}.txt")


def _skip_without_peer(key) -> None:
    if key[0] == "audit-library" and _peer() is None:
        pytest.skip("no peer library installed")


# ------------------------------------------------------------------ a read-only folder

@contextmanager
def tmpfs(path: Path, size: str = "1m"):
    """A tmpfs of ``size`` mounted on ``path`` (root only; skipped elsewhere)."""
    path.mkdir()
    if not ROOT:
        pytest.skip("mounting a tmpfs needs root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                       capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


@contextmanager
def read_only(path: Path):
    """``path`` a folder that cannot be written: a read-only mount as root (whom file
    modes do not stop), mode 0555 otherwise. The old output is in it."""
    if ROOT:
        with tmpfs(path):
            (path / "out-old.txt").write_text(OLD)
            r = subprocess.run(["mount", "-o", "remount,ro", str(path)], capture_output=True,
                               text=True)
            if r.returncode:
                pytest.skip(f"cannot remount read-only: {r.stderr.strip()}")
            yield path
        return
    path.mkdir()
    (path / "out-old.txt").write_text(OLD)
    path.chmod(0o555)
    try:
        yield path
    finally:
        path.chmod(0o755)


@pytest.mark.parametrize("key", sorted(WRITERS), ids=lambda k: f"{k[0]}-{k[1]}")
def test_read_only_folder(ws, tmp_path, key):
    make, is_folder = WRITERS[key]
    with read_only(tmp_path / "ro") as ro:
        before = listing(ro)
        for out in (_target(ro, key, is_folder), ro / "out-old.txt"):
            if is_folder and out.name == "out-old.txt":
                continue
            r = run(*make(ws, out))
            assert_refused(r, str(ro))
            assert listing(ro) == before


# ------------------------------------------------------------------ a full disk

def _fill(folder: Path) -> None:
    """Take every free byte of the file system of ``folder``."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as e:
        assert e.errno == errno.ENOSPC
    finally:
        os.close(fd)


@pytest.mark.parametrize("key", sorted(WRITERS), ids=lambda k: f"{k[0]}-{k[1]}")
def test_full_disk(ws, tmp_path, key):
    if key in ONLY_CHECKED_UP_FRONT:
        pytest.skip(ONLY_CHECKED_UP_FRONT[key])
    _skip_without_peer(key)
    make, is_folder = WRITERS[key]
    with tmpfs(tmp_path / "full", "256k") as full:
        if not is_folder and key[0] != "label":       # label -o takes a labels file only
            _target(full, key, is_folder).write_text(OLD)
        _fill(full)
        before = listing(full)
        r = run(*make(ws, _target(full, key, is_folder)))
        assert_refused(r, "No space left on device")
        assert listing(full) == before


@pytest.mark.parametrize("args", [["label", "{one}"], ["check", "{labels}"],
                                  ["score", "{prompts}", "{answers}"], ["domains"]],
                         ids=lambda a: a[0])
def test_stdout_on_a_full_device(ws, tmp_path, args):
    """A command printing to a full stdout: one line, exit 2, no traceback."""
    labels = tmp_path / "labels.jsonl"
    assert run("label", ws["one"], "-o", labels).returncode == 0
    paths = {**{k: str(v) for k, v in ws.items()}, "labels": str(labels)}
    with open("/dev/full", "w") as full:
        r = subprocess.run([EXE, *(a.format(**paths) for a in args)], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=600)
    assert_refused(r, "No space left on device")


# ------------------------------------------------------------------ a missing folder

@pytest.mark.parametrize("key", sorted(k for k, (_, f) in WRITERS.items() if not f),
                         ids=lambda k: f"{k[0]}-{k[1]}")
def test_missing_output_folder(ws, tmp_path, key):
    make, is_folder = WRITERS[key]
    r = run(*make(ws, tmp_path / "no" / "such" / "out.txt"))
    assert_refused(r, "does not exist")
    assert not (tmp_path / "no").exists()


# ------------------------------------------------------------------ output = input

def _copy_inputs(ws, folder: Path) -> dict[str, Path]:
    folder.mkdir()
    out = {}
    for k, v in ws.items():
        if k in ("dir", "bench"):
            continue
        if v.parent == ws["bench"]:
            continue
        out[k] = Path(shutil.copy(v, folder / v.name))
    shutil.copytree(ws["bench"], folder / "bench")
    out["bench"] = folder / "bench"
    for name in ("prompts.jsonl", "labels.jsonl", "instances.jsonl"):
        out[name] = folder / "bench" / name
    out["prompts"] = out["prompts.jsonl"]
    return out


def _logs(w) -> Path:
    """A folder holding one (stand-in) Inspect log: refused before any log is read."""
    d = w["dir"] / "logs"
    if not d.exists():
        d.mkdir()
        (d / "run.eval").write_bytes(b"PK\x03\x04 a stand-in log")
    return d


ONTO_INPUT = [
    ("label", lambda w: ["label", w["one"], "-o", w["one"]]),
    ("score-answers", lambda w: ["score", w["prompts"], w["answers"], "-o", w["answers"]]),
    ("score-prompts", lambda w: ["score", w["prompts"], w["answers"], "-o", w["prompts"]]),
    ("score-labels", lambda w: ["score", w["prompts"], w["answers"], "-o",
                                w["labels.jsonl"]]),
    # the benchmark's manifest is read too (a regression: it was overwritten)
    ("score-manifest", lambda w: ["score", w["prompts"], w["answers"], "-o",
                                  w["bench"] / "manifest.json"]),
    # a folder of logs stands for the logs in it (a regression: a log was overwritten)
    ("score-log-in-folder", lambda w: ["score", _logs(w), "-o", _logs(w) / "run.eval"]),
    ("report-log-in-folder", lambda w: ["report", _logs(w), "-o", _logs(w) / "run.eval"]),
    ("report-json-log-in-folder", lambda w: ["report", _logs(w), "-o", w["dir"] / "r.html",
                                             "--json", _logs(w) / "run.eval"]),
    ("score-against", lambda w: ["score", w["prompts"], w["answers"], "--against", w["scores"],
                                 "-o", w["scores"]]),
    ("report", lambda w: ["report", w["scores"], "-o", w["scores"]]),
    ("refine", lambda w: ["refine", w["prompts"], "--command", "true", "-o",
                          w["instances.jsonl"]]),
    ("counterexample", lambda w: ["counterexample", f"{w['prop']}:holds", "--domain",
                                  "housing_market", "--max-size", "2", "-o", w["prop"]]),
    ("consistency-out", lambda w: _consistency(w, "--no-certify", "-o", w["responses"])),
    ("consistency-report", lambda w: _consistency(w, "--no-certify", "--report", w["design"])),
    ("consistency-two-outputs", lambda w: _consistency(w, "--no-certify", "-o", w["dir"] / "x",
                                                       "--report", w["dir"] / "x")),
    ("risk-out", lambda w: ["risk", "--utilities", w["utilities"], "-o", w["utilities"]]),
    ("risk-report", lambda w: ["risk", w["prompts"], w["answers"], "--report", w["answers"]]),
    ("audit-library", lambda w: ["audit-library", "matching", w["one"], "-o", w["one"]]),
]


@pytest.mark.parametrize("make", [m for _, m in ONTO_INPUT], ids=[n for n, _ in ONTO_INPUT])
def test_output_onto_an_input_is_refused(ws, tmp_path, make):
    w = _copy_inputs(ws, tmp_path / "w")
    w["dir"] = tmp_path / "w"
    args = make(w)
    before = listing(tmp_path / "w")
    r = run(*args)
    assert_refused(r, "")
    assert "one of the inputs" in r.stderr or "two outputs are one file" in r.stderr, r.stderr
    assert listing(tmp_path / "w") == before


def test_output_through_a_link_to_an_input_is_refused(ws, tmp_path):
    w = _copy_inputs(ws, tmp_path / "w")
    (tmp_path / "w" / "hard.jsonl").hardlink_to(w["answers"])
    (tmp_path / "w" / "soft.jsonl").symlink_to(w["answers"])
    before = listing(tmp_path / "w")
    for link in ("hard.jsonl", "soft.jsonl"):
        r = run("score", w["prompts"], w["answers"], "-o", tmp_path / "w" / link)
        assert_refused(r, "one of the inputs")
    assert listing(tmp_path / "w") == before


def test_label_refuses_a_one_line_user_file_without_newline(tmp_path):
    """Item 14: a file that is not a labels file is never taken for a torn one."""
    (tmp_path / "one.json").write_text(json.dumps(ONE))
    notes = tmp_path / "notes.txt"
    notes.write_text("remember to buy milk")
    r = run("label", tmp_path / "one.json", "-o", notes)
    assert_refused(r, "not a label line")
    assert notes.read_text() == "remember to buy milk"


def test_label_into_an_empty_file_is_fine(tmp_path):
    (tmp_path / "one.json").write_text(json.dumps(ONE))
    (tmp_path / "labels.jsonl").write_text("")
    r = run("label", tmp_path / "one.json", "-o", tmp_path / "labels.jsonl")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "labels.jsonl").read_text().splitlines()[0])["id"] == "one"


# ------------------------------------------------------------------ concurrent runs

def test_generate_refuses_a_locked_folder(tmp_path):
    """Item 11: the output folder is locked for the whole run; a second run is bad input
    (here the lock is held by the test, so that no timing decides the case)."""
    import fcntl
    out = tmp_path / "bench"
    out.mkdir()
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        r = run("generate", "indeterminacy-preference", "--per-cell", "1", "--sizes", "50",
                "-o", out)
    finally:
        os.close(fd)
    assert_refused(r, "another 'prefcert generate' run is writing this output")
    assert listing(out) == {}


def test_two_concurrent_generates_into_one_folder(tmp_path):
    """Both end cleanly (one may be refused by the lock, or find the benchmark written),
    and the folder holds one whole benchmark."""
    out = tmp_path / "bench"
    args = [EXE, "generate", "indeterminacy-preference", "--per-cell", "1", "--sizes", "50",
            "-o", str(out)]
    procs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert all(code in (0, 2) and "Traceback" not in err for code, err in results), results
    assert 0 in [code for code, _ in results], results
    names = sorted(os.listdir(out))
    assert names == ["instances.jsonl", "labels.jsonl", "manifest.json", "prompts.jsonl"]
    r = run("check", out / "labels.jsonl")
    assert r.returncode == 0, r.stderr


def _file_size_limit(limit: int):
    """A ``preexec_fn`` capping the size of every file the child writes (RLIMIT_FSIZE:
    a write past it fails with EFBIG, as a full disk fails with ENOSPC; Python ignores
    SIGXFSZ), so that a full disk is simulated without root."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return cap


@pytest.mark.parametrize("args", [
    ["export", "lm-eval", "indeterminacy-preference", "{out}", "--benchmark", "{bench}"],
    ["generate", "indeterminacy-preference", "--per-cell", "1", "--sizes", "50",
     "--format", "parquet", "-o", "{out}"]], ids=["export-lm-eval", "generate-parquet"])
def test_a_write_past_the_file_size_limit_names_the_file_and_leaves_nothing(ws, tmp_path,
                                                                              args):
    """Regression (a new user): export lm-eval on a full disk said "stdout: No space left
    on device" and left ``<suite>.jsonl.tmp`` and the folder it had made. Now: one line
    naming the file, exit 2, and the folder it created removed."""
    out = tmp_path / "made" / "lme"
    r = subprocess.run([EXE, *(a.format(out=out, bench=ws["bench"]) for a in args)],
                       capture_output=True, text=True, timeout=600,
                       preexec_fn=_file_size_limit(2048))
    assert_refused(r, "File too large")
    assert "stdout" not in r.stderr
    line = next(x for x in r.stderr.splitlines() if x.startswith("prefcert: error:"))
    assert f"{out}/" in line                                  # a file of the folder
    assert list(tmp_path.iterdir()) == []                     # made/ and made/lme removed


def test_stdout_full_after_many_labels(tmp_path):
    """Regression: with stdout buffered (no PYTHONUNBUFFERED, as in a user's shell), a
    label run whose lines fill the buffer before the device refuses them reported its own
    error and then a second one, when the rest of stdout was flushed on the way out."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with open("/dev/full", "w") as full:
        r = subprocess.run([EXE, "label", str(REPO / "instances" / "stable_matching"),
                            "--engines", "oracle"], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=600, env=env)
    assert_refused(r, "No space left on device")
