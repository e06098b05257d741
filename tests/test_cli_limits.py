"""Regression tests of a fresh user's review of the command line's limits: numeric options
without an upper bound (memory or time in proportion to a number), click's usage errors
as a block of four lines, ``--help`` and ``--version`` into a closed pipe or onto a full
device, ``generate`` mixing a benchmark into a folder of the user's files, ``export``
checking its folder only after the whole work, and ``eval`` on a full disk, into the
benchmark it reads, and stopped by Ctrl-C (exit status 0 before). Every case runs the
console script."""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import PREFCERT, cli

pytestmark = pytest.mark.skipif(PREFCERT is None, reason="console script not installed")

ONE = {"id": "one", "domain": "stable_matching",
       "preferences": {"A": {"m1": ["w1"]}, "B": {"w1": ["m1"]}}}


def run(*args, **kw) -> subprocess.CompletedProcess:
    """The console script in a 3 GB address space with a timeout: a run that allocates
    in proportion to a number on the command line fails instead of taking the machine."""
    def cap():
        n = 3 * 2**30
        resource.setrlimit(resource.RLIMIT_AS, (n, n))
    return cli(*args, check=False, preexec_fn=cap, timeout=300, **kw)


def one_line(r: subprocess.CompletedProcess, code: int = 2) -> str:
    """The one stderr line of a refused run: exit status ``code``, nothing on stdout, no
    traceback."""
    assert r.returncode == code, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr and "Exception ignored" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("prefcert: error: "), r.stderr
    assert r.stdout == ""
    return lines[0]


# ------------------------------------------------------------------ 1. numeric options

HUGE = str(10**12)

#: (arguments, option, value): a value outside the option's documented range. The other
#: arguments name what does not exist (a suite, a file, a library), so that the old code,
#: which took the value, stopped on them instead of working in proportion to it.
OUT_OF_RANGE = [
    (["generate", "no-such-suite", "-o", "{tmp}/b", "--per-cell", HUGE], "--per-cell", HUGE),
    (["generate", "no-such-suite", "-o", "{tmp}/b", "--jobs", "0"], "--jobs", "0"),
    (["generate", "no-such-suite", "-o", "{tmp}/b", "--jobs", HUGE], "--jobs", HUGE),
    (["generate", "no-such-suite", "-o", "{tmp}/b", "--seed", "-1"], "--seed", "-1"),
    (["generate", "no-such-suite", "-o", "{tmp}/b", "--seed", str(2**63)], "--seed",
     str(2**63)),
    (["label", "{tmp}/none.json", "--jobs", HUGE], "--jobs", HUGE),
    (["eval", "no-such-suite", "--model", "mockllm/model", "--epochs", HUGE], "--epochs",
     HUGE),
    (["eval", "no-such-suite", "--model", "mockllm/model", "--rounds", HUGE], "--rounds",
     HUGE),
    (["eval", "no-such-suite", "--model", "mockllm/model", "--per-cell", HUGE],
     "--per-cell", HUGE),
    (["eval", "no-such-suite", "--model", "mockllm/model", "--retry-attempts", HUGE],
     "--retry-attempts", HUGE),
    (["eval", "no-such-suite", "--model", "mockllm/model", "--temperature", "nan"],
     "--temperature", "nan"),
    (["eval", "no-such-suite", "--model", "mockllm/model", "--seed", "-5"], "--seed", "-5"),
    (["export", "lm-eval", "no-such-suite", "{tmp}/x", "--seed", "-1"], "--seed", "-1"),
    (["refine", "{tmp}/none.jsonl", "--command", "true", "-o", "{tmp}/r.jsonl", "--rounds",
      HUGE], "--rounds", HUGE),
    (["refine", "{tmp}/none.jsonl", "--command", "true", "-o", "{tmp}/r.jsonl", "--timeout",
      "inf"], "--timeout", "inf"),
    (["consistency", "{tmp}/none.csv", "--design", "{tmp}/none.json", "--resamples", HUGE],
     "--resamples", HUGE),
    (["consistency", "{tmp}/none.csv", "--design", "{tmp}/none.json", "--seed", "-1"],
     "--seed", "-1"),
    (["consistency", "{tmp}/none.csv", "--design", "{tmp}/none.json", "--alpha", "nan"],
     "--alpha", "nan"),
    (["risk", "--utilities", "{tmp}/none.jsonl", "--resamples", HUGE], "--resamples", HUGE),
    (["risk", "--utilities", "{tmp}/none.jsonl", "--delta", "nan"], "--delta", "nan"),
    (["audit-library", "no-such-lib", "--random", HUGE], "--random", HUGE),
    (["audit-library", "no-such-lib", "--timeout", "nan"], "--timeout", "nan"),
    (["counterexample", "no-such-property", "--max-size", HUGE], "--max-size", HUGE),
    (["counterexample", "no-such-property", "--enumeration-limit", HUGE],
     "--enumeration-limit", HUGE),
    (["counterexample", "no-such-property", "--seconds", "nan"], "--seconds", "nan"),
]


@pytest.mark.parametrize("args, option, value", OUT_OF_RANGE,
                         ids=[f"{a[0]}{o}={v[:6]}" for a, o, v in OUT_OF_RANGE])
def test_a_number_out_of_its_range_is_one_line_before_any_work(tmp_path, args, option,
                                                                value):
    line = one_line(run(*(a.format(tmp=tmp_path) for a in args)))
    assert f"'{option}'" in line and value in line, line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suite", ["voting-manipulation", "indeterminacy-preference",
                                   "indeterminacy-algorithmic"])
def test_max_draws_has_an_upper_limit(tmp_path, suite):
    """``--param max_draws`` had no upper limit (a rejection sampler's loop set from the
    command line); the bad size given with it was what the old code refused."""
    line = one_line(run("generate", suite, "-o", tmp_path / "b", "--param",
                        f"max_draws={HUGE}", "--sizes", "999"))
    assert "parameter max_draws: must be from 1 to 10000000" in line
    assert list(tmp_path.iterdir()) == []


def test_the_ranges_are_documented_in_help():
    for command, option, shown in [("generate", "--per-cell", "1<=x<=1000"),
                                   ("generate", "--jobs", "1<=x<=256"),
                                   ("consistency", "--resamples", "1<=x<=1000000"),
                                   ("risk", "--resamples", "1<=x<=100000"),
                                   ("refine", "--rounds", "1<=x<=10")]:
        r = cli(command, "--help")
        text = " ".join(r.stdout.split())
        assert shown in text, (command, option)


@pytest.fixture(scope="module")
def utilities(tmp_path_factory) -> Path:
    f = tmp_path_factory.mktemp("u") / "u.jsonl"
    f.write_text("".join(json.dumps({"id": f"p{i}", "utilities": [0.5, 1, 0.25]}) + "\n"
                         for i in range(8)))
    return f


def test_a_huge_bootstrap_is_refused_not_a_memory_error(utilities, tmp_path):
    """``risk --resamples 10^12`` was a numpy MemoryError traceback (58 TiB asked)."""
    line = one_line(run("risk", "--utilities", utilities, "--resamples", HUGE))
    assert "--resamples" in line
    consistency_in = tmp_path / "responses.jsonl"
    from prefcert.generators.consistency import paper_design, simulate_responses
    design = paper_design(0)
    (tmp_path / "design.json").write_text(json.dumps({k: v for k, v in design.items()
                                                      if k != "truth"}))
    sim = simulate_responses(design, {"alpha": {"noise": 8}}, completions=3, seed=1)
    consistency_in.write_text("".join(json.dumps(r) + "\n" for r in sim))
    r = run("consistency", consistency_in, "--design", tmp_path / "design.json",
            "--no-certify", "--resamples", HUGE)
    assert "--resamples" in one_line(r)


def test_a_per_cell_task_argument_has_the_same_limit():
    """``-T per_cell=`` (Inspect) and the dataset API take the limit of ``--per-cell``."""
    from prefcert.bench.dataset import SuiteDataset, create_dataset
    from prefcert.formal.errors import InstanceError
    with pytest.raises(InstanceError, match="per_cell: 1001 is not in the range"):
        create_dataset("voting-manipulation", size=1, sizes=[3], per_cell=1001)
    with pytest.raises(InstanceError, match="per_cell: 1001 is not in the range"):
        SuiteDataset("voting-manipulation", sizes=[3], per_cell=1001)


# ------------------------------------------------------------------ 5. usage errors

def _commands() -> list[str]:
    from prefcert.cli import COMMANDS
    return sorted(COMMANDS)


@pytest.mark.parametrize("command", _commands())
def test_every_usage_error_is_one_line(command):
    """click's block (usage line, hint, blank line, message) is one line like every other
    bad input, naming the option and where help is."""
    line = one_line(cli(command, "--no-such-option", check=False))
    assert "No such option '--no-such-option'" in line
    assert line.endswith(f"Try 'prefcert {command} --help'."), line


@pytest.mark.parametrize("args, needle", [
    (["no-such-command"], "No such command 'no-such-command'"),
    (["--no-such-option"], "No such option '--no-such-option'"),
    (["label"], "Missing argument 'PATHS...'"),
    (["label", "--seed", "-1", "x.json"], "'--seed': -1 is not in the range"),
    (["check", "x.jsonl", "--root", "/no/such/dir"], "'/no/such/dir' does not exist"),
    (["check", "no-such-labels.jsonl"], "no-such-labels.jsonl: cannot read the file"),
])
def test_usage_errors_of_the_group_and_of_arguments_are_one_line(args, needle):
    assert needle in one_line(cli(*args, check=False))


def test_the_group_without_a_command_still_prints_its_help():
    r = cli(check=False)
    assert r.returncode == 2 and "Commands:" in r.stderr + r.stdout


# ------------------------------------------------------------------ 2, 6. stdout

@pytest.mark.parametrize("args", [["--help"], ["--version"], ["label", "--help"],
                                  ["domains"]], ids=lambda a: " ".join(a))
def test_help_and_version_on_a_full_device_are_one_line(args):
    """``prefcert --help > /dev/full`` was a traceback (exit 1)."""
    with open("/dev/full", "w") as full:
        r = subprocess.run([PREFCERT, *args], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=120)
    r.stdout = ""
    assert "No space left on device" in one_line(r)


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["label", "--help"],
                                  ["label", "{one}"], ["domains"]], ids=lambda a: " ".join(a))
def test_a_reader_that_stopped_is_a_silent_141(tmp_path, args):
    """stdout closed before the first write (``| head`` at its extreme): exit 141, nothing
    on stderr, as every command's ``| head`` (``--help`` and ``--version`` exited 1)."""
    (tmp_path / "one.json").write_text(json.dumps(ONE))
    read, write = os.pipe()
    os.close(read)
    try:
        r = subprocess.run([PREFCERT, *(a.format(one=tmp_path / "one.json") for a in args)],
                           stdout=write, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert r.returncode == 141 and r.stderr == "", (r.returncode, r.stderr)


# ------------------------------------------------------------------ 3. output folders

def test_generate_refuses_a_folder_of_the_users_files(tmp_path):
    """A benchmark was written into a folder of other files, mixed with them."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep\n")
    line = one_line(run("generate", "voting-manipulation", "--sizes", "3", "--per-cell", "1",
                        "-o", out))
    assert str(out / "notes.txt") in line and "not a benchmark's" in line
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert (out / "notes.txt").read_text() == "keep\n"


def test_export_checks_its_folder_before_reading_or_generating(tmp_path):
    """The folder was checked only after every entry was made (a non-empty folder was
    refused at the end of the whole run)."""
    out = tmp_path / "task"
    out.mkdir()
    (out / "mine.txt").write_text("keep\n")
    line = one_line(run("export", "lm-eval", "voting-manipulation", out,
                        "--benchmark", tmp_path / "no-such-benchmark"))
    assert "the output folder is not empty" in line and str(out) in line
    assert (out / "mine.txt").read_text() == "keep\n"


# ------------------------------------------------------------------ eval

def test_eval_refuses_to_log_into_the_benchmark_it_reads(tmp_path):
    bench = tmp_path / "bench"
    r = run("generate", "voting-manipulation", "--sizes", "3", "--per-cell", "1", "-o", bench)
    assert r.returncode == 0, r.stderr[-2000:]
    before = sorted(p.name for p in bench.iterdir())
    line = one_line(run("eval", "voting-manipulation", "--model", "mockllm/model",
                        "--benchmark", bench, "--log-dir", bench, "--limit", "1"))
    assert "one of the inputs" in line
    assert sorted(p.name for p in bench.iterdir()) == before


@pytest.mark.parametrize("how, logs", [("--benchmark", "bench/logs"),
                                        ("-T", "bench"), ("-T", "bench/logs"),
                                        ("--benchmark", "bench/data/deeper")])
def test_eval_refuses_a_log_folder_inside_the_benchmark_it_reads(tmp_path, how, logs):
    """A log folder inside the benchmark folder (or the folder itself, given as -T
    benchmark=) was not refused: the logs were written among the benchmark's files."""
    pytest.importorskip("inspect_ai")
    bench = tmp_path / "bench"
    r = run("generate", "voting-manipulation", "--sizes", "3", "--per-cell", "1", "-o", bench)
    assert r.returncode == 0, r.stderr[-2000:]
    before = sorted(p.relative_to(bench) for p in bench.rglob("*"))
    read = ["--benchmark", bench] if how == "--benchmark" else ["-T", f"benchmark={bench}"]
    line = one_line(run("eval", "voting-manipulation", "--model", "mockllm/model", *read,
                        "--log-dir", tmp_path / logs, "--limit", "1"))
    assert str(tmp_path / logs) in line
    assert "one of the inputs" in line if logs == "bench" else \
        f"is inside the benchmark folder ({bench})" in line, line
    assert sorted(p.relative_to(bench) for p in bench.rglob("*")) == before


def test_evaluate_refuses_a_log_folder_inside_the_benchmark(tmp_path):
    """The Python entry of prefcert eval (the task argument benchmark) refuses it too."""
    pytest.importorskip("inspect_ai")
    from prefcert.bench.inspect.run import evaluate
    from prefcert.formal.errors import InstanceError
    bench = tmp_path / "bench"
    (bench / "data").mkdir(parents=True)
    (bench / "labels.jsonl").write_text("")
    for given in (bench, bench / "prompts.jsonl", bench / "data"):
        with pytest.raises(InstanceError, match="is inside the benchmark folder"):
            evaluate("voting-manipulation", ["mockllm/model"], log_dir=bench / "logs",
                     task_args={"benchmark": str(given)})
    assert sorted(p.name for p in bench.iterdir()) == ["data", "labels.jsonl"]


ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@contextmanager
def full_tmpfs(path: Path):
    """A tmpfs on ``path`` with every byte taken (root only; skipped elsewhere)."""
    path.mkdir()
    if not ROOT:
        pytest.skip("mounting a tmpfs needs root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(path)],
                       capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
    try:
        fd = os.open(path / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError:
            pass
        finally:
            os.close(fd)
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def test_eval_on_a_full_disk_names_the_log_folder_and_leaves_nothing(tmp_path):
    """It said "stdout: No space left on device" and left the folder with Inspect's
    empty bookkeeping file."""
    pytest.importorskip("inspect_ai")
    with full_tmpfs(tmp_path / "full") as full:
        line = one_line(run("eval", "voting-manipulation", "--model", "mockllm/model",
                            "--sizes", "3", "--per-cell", "1", "--limit", "1",
                            "--log-dir", full / "logs"))
        assert line.startswith(f"prefcert: error: {full / 'logs'}") and \
            "No space left on device" in line, line
        assert sorted(p.name for p in full.iterdir()) == ["filler"]


def test_eval_interrupted_is_130_in_one_line_and_resumes(tmp_path):
    """Ctrl-C during ``prefcert eval``: Inspect ended the run and the command exited 0
    (silently). Now exit status 130 and one line; the same command then asks only the
    prompts not answered before."""
    pytest.importorskip("inspect_ai")
    from openai_server import OpenAIServer

    def reply(messages, n):
        time.sleep(0.2)
        return "Final ballot: a > b > c"

    env = dict(os.environ, LOCAL_API_KEY="test-key")
    logs = tmp_path / "logs"
    with OpenAIServer(reply, deadline=400) as srv:
        env["LOCAL_BASE_URL"] = srv.url
        cmd = [PREFCERT, "eval", "voting-manipulation", "--model", "openai-api/local/fake",
               "--sizes", "3", "--per-cell", "1", "--max-connections", "1",
               "--log-dir", str(logs)]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env)
        deadline = time.monotonic() + 240
        while len(srv.requests) < 4 and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.05)
        assert p.poll() is None, p.communicate()[1][-2000:]
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
        assert p.returncode == 130, (p.returncode, err[-2000:])
        assert "Traceback" not in err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("prefcert: interrupted:") and \
            "resume" in lines[0], err
        asked = len(srv.requests)
        assert asked < 40
        srv.requests.clear()
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        resumed = len(srv.requests)
    assert asked - 1 <= 40 - resumed <= asked    # the answered prompts are not asked again
    from inspect_ai.log import read_eval_log
    done = [read_eval_log(str(f)) for f in logs.glob("*.eval")]
    assert any(x.status == "success" and len(x.samples) == 40 for x in done)


def test_an_output_argument_of_the_wrong_kind_is_named_as_in_help(tmp_path):
    """``export lm-eval SUITE OUT`` with OUT a file said "out names a file"."""
    f = tmp_path / "afile"
    f.write_text("keep\n")
    line = one_line(run("export", "lm-eval", "voting-manipulation", f))
    assert line == f"prefcert: error: {f}: OUT names a file; it must name a folder to write"
    assert f.read_text() == "keep\n"


def test_label_checks_its_outputs_before_reading_the_inputs(tmp_path):
    """``-o`` into a missing folder was refused only after every input was read and
    planned (a large corpus read for nothing); the output is checked first now."""
    line = one_line(run("label", tmp_path / "no-such.json", "-o",
                        tmp_path / "missing" / "labels.jsonl"))
    assert line == f"prefcert: error: {tmp_path / 'missing'}: the output folder does not exist"


def test_report_piped_into_head_still_writes_its_page(tmp_path):
    """``prefcert report SCORES -o page.html | head``: the tables went to stdout before the
    page was written, so a reader that stopped lost the page (exit 141, no file)."""
    bench = tmp_path / "bench"
    r = run("generate", "voting-manipulation", "--sizes", "3", "--per-cell", "1", "-o", bench)
    assert r.returncode == 0, r.stderr[-2000:]
    prompts = [json.loads(x) for x in (bench / "prompts.jsonl").read_text().splitlines()]
    (tmp_path / "a.jsonl").write_text("".join(
        json.dumps({"id": p["id"], "answer": "Final ballot: a > b > c"}) + "\n"
        for p in prompts))
    assert run("score", bench, tmp_path / "a.jsonl", "-o", tmp_path / "s.jsonl").returncode == 0
    read, write = os.pipe()
    os.close(read)
    try:
        r = subprocess.run([PREFCERT, "report", str(tmp_path / "s.jsonl"), "-o",
                            str(tmp_path / "page.html")], stdout=write,
                           stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        os.close(write)
    assert r.returncode == 141 and r.stderr == "", (r.returncode, r.stderr)
    assert (tmp_path / "page.html").read_text().rstrip().endswith("</html>")
