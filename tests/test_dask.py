"""``prefcert label --dask``: a LocalCluster of 2 workers gives the labels of ``--jobs 2``,
with the same output file guarantees (lock, resume, no duplicate), and a worker killed
mid-run loses and duplicates nothing."""
import json
import signal
import subprocess
import time
from functools import partial

import pytest
from conftest import labels_without_timings, cli, PREFCERT

pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

pytestmark = pytest.mark.skipif(PREFCERT is None, reason="console script not installed")


run = partial(cli, check=False)


def instances(path, n, size, tie_prob=0.3):
    from prefcert.generators.stable_matching import sample_smti
    path.write_text("".join(json.dumps(dict(sample_smti(size, tie_prob=tie_prob, seed=s),
                                            id=f"i{s}")) + "\n" for s in range(n)))
    return path


def test_local_cluster_gives_the_labels_of_jobs_2_and_resumes(tmp_path):
    src = instances(tmp_path / "small.jsonl", 30, 5)
    ref = run("label", src, "--jobs", "2")
    assert ref.returncode == 0, ref.stderr
    out = tmp_path / "out.jsonl"
    r = run("label", src, "-o", out, "--dask", "local:2", "--verify-all")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "90 certificate(s) re-checked here (all)" in r.stderr.replace("\n", " ")
    got = labels_without_timings(out.read_text())
    want = labels_without_timings(ref.stdout)
    for lab in want:                     # -o writes source files relative to OUT's folder
        lab["source"]["file"] = "small.jsonl"
    assert got == want and len(got) == 90
    assert run("check", out).returncode == 0
    # resume: a torn last line is dropped and relabelled; finished labels are skipped
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:50]) + lines[50][:20])
    r = run("label", src, "-o", out, "--dask", "local:2")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "50 label(s) already in the output file were skipped" in r.stderr.replace("\n", " ")
    assert labels_without_timings(out.read_text()) == got


def _workers(pid: int) -> list:
    """The Dask worker processes of the ``prefcert`` process ``pid`` (its nannies spawn
    them; the resource tracker is not one)."""
    out = []
    for child in psutil.Process(pid).children(recursive=True):
        try:
            cmd = " ".join(child.cmdline())
        except psutil.Error:
            continue
        if "spawn_main" in cmd or "forkserver" in cmd:
            out.append(child)
    return out


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(tmp_path):
    src = instances(tmp_path / "many.jsonl", 48, 24, tie_prob=0.2)
    out = tmp_path / "out.jsonl"
    args = ["label", src, "-o", out, "--engines", "oracle,cpsat", "--dask", "local:2"]
    p = subprocess.Popen([PREFCERT, *map(str, args)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 180
        while time.time() < deadline and (not out.exists() or out.read_text().count("\n") < 10):
            time.sleep(0.05)
        workers = _workers(p.pid)
        assert len(workers) == 2, [w.cmdline() for w in workers]
        before = out.read_text().count("\n")
        workers[0].send_signal(signal.SIGKILL)
        err = p.communicate(timeout=300)[1]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err[-3000:]
    assert before < 144, "the run ended before the kill: nothing was tested"
    got = labels_without_timings(out.read_text())
    keys = [(lab["id"], lab["question"]) for lab in got]
    assert len(keys) == 144 and len(set(keys)) == 144
    ref = run("label", src, "--engines", "oracle,cpsat", "--jobs", "2")
    assert ref.returncode == 0, ref.stderr
    want = labels_without_timings(ref.stdout)
    for lab in want:
        lab["source"]["file"] = "many.jsonl"
    assert got == want
    assert run("check", out).returncode == 0


@pytest.mark.parametrize("args, needle", [
    (["--dask", "local:0"], "positive number of workers"),
    (["--dask", "local:2", "--jobs", "2"], "exclude each other"),
    (["--verify-all"], "give --dask"),
    (["--dask", "no address"], "scheduler address"),
])
def test_bad_dask_options_exit_2_and_write_nothing(tmp_path, args, needle):
    src = instances(tmp_path / "one.jsonl", 1, 3)
    out = tmp_path / "out.jsonl"
    r = run("label", src, "-o", out, *args)
    assert r.returncode == 2 and needle in r.stderr and len(r.stderr.splitlines()) == 1
    assert not out.exists()


def test_the_client_rejects_a_label_its_checker_refuses():
    """A worker's label whose certificate the client's checker refuses (or that answers
    another job) becomes a disagreement report, never an output line."""
    from prefcert.formal.instances import from_object

    from prefcert.pipeline.dask_runner import DaskResults
    from prefcert.pipeline.jobs import label, plan
    inst = {"id": "x", "domain": "stable_matching",
            "preferences": {"A": {"m1": [["w1", "w2"]], "m2": ["w1"]},
                            "B": {"w1": [["m1", "m2"]], "w2": ["m1"]}}}
    (job,) = plan([from_object(inst, "x.json", None, "x")], ["super_stable"])
    good = label(job)

    class Cluster:
        client, workers, cpsat = None, 1, 1
    res = DaskResults(Cluster(), [job], None, 10.0, 0, verify_all=True)
    assert res._result(("label", good), job) == ("label", good)
    bad = json.loads(json.dumps(good))
    bad["certificate"]["steps"] = []
    kind, report = res._result(("label", bad), job)
    assert kind == "disagreement" and "client's checker rejects" in report["reason"]
    other = dict(good, instance_sha256="0" * 64)
    kind, report = res._result(("label", other), job)
    assert kind == "disagreement" and "not about this job" in report["reason"]
