"""Per-label overhead of ``prefcert label`` on many small instances (issue 24, item 1):
call counts pin what is done once per run or once per instance, never the time it takes;
the fast paths are checked against plain reference walks written here."""
from __future__ import annotations

import json
import os
import signal

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from prefcert.cli import main
from prefcert.cli.common import InterruptGuard
from prefcert.formal import instances as inst_mod
from prefcert.formal.checker import _no_booleans
from prefcert.formal.errors import CertificateError
from prefcert.generators.stable_matching import sample_smti
from prefcert.pipeline import parallel
from prefcert.pipeline.parallel import CHUNK_CHARS, CHUNK_JOBS, chunks
from shared import first_boolean


def _markets(tmp_path, count: int):
    src = tmp_path / "small.jsonl"
    src.write_text("".join(json.dumps(sample_smti(6, tie_prob=0.2, seed=s, id=f"m{s}")) + "\n"
                           for s in range(count)))
    return src


# ------------------------------------------------------------------ once per run / instance

def test_sigint_handler_is_installed_once_per_run_not_per_line(tmp_path, monkeypatch):
    """The Ctrl-C guard of the output loop: two ``signal.signal`` calls per run (install,
    restore), where it was two per label line."""
    src = _markets(tmp_path, 20)                       # 60 labels
    calls: list = []
    real = signal.signal

    def counting(sig, handler):
        if sig == signal.SIGINT:
            calls.append(handler)
        return real(sig, handler)
    monkeypatch.setattr(signal, "signal", counting)
    r = CliRunner().invoke(main, ["label", str(src), "--engines", "oracle", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert sum(1 for ln in r.stdout.splitlines() if ln.startswith('{"id":')) == 60
    assert len(calls) == 2
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler   # restored


def test_canonical_json_is_computed_once_per_instance(tmp_path, monkeypatch):
    """Three questions of one instance share its hash: the canonical JSON is encoded once
    per instance read, not once per label."""
    src = _markets(tmp_path, 7)
    calls: list = []
    real = inst_mod._canonical

    def counting(data, *rest):
        calls.append(data.get("id"))
        return real(data, *rest)
    monkeypatch.setattr(inst_mod, "_canonical", counting)
    r = CliRunner().invoke(main, ["label", str(src), "--engines", "oracle", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert sorted(calls) == sorted(f"m{s}" for s in range(7))


def test_output_path_is_made_relative_once_per_input_file(tmp_path, monkeypatch):
    from prefcert.cli import label as label_cli
    src = _markets(tmp_path, 10)
    calls: list = []
    real = label_cli.beside
    monkeypatch.setattr(label_cli, "beside", lambda f, o: calls.append(f) or real(f, o))
    out = tmp_path / "out" / "labels.jsonl"
    out.parent.mkdir()
    r = CliRunner().invoke(main, ["label", str(src), "--engines", "oracle", "--jobs", "1",
                                  "-o", str(out)])
    assert r.exit_code == 0, r.output
    labels = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(labels) == 30 and {lab["source"]["file"] for lab in labels} == {"../small.jsonl"}
    assert calls == [str(src)]


# ------------------------------------------------------------------ pool tasks

class _Inst:
    def __init__(self, size):
        self.size = size


class _Job:
    def __init__(self, size):
        self.instance = _Inst(size)


@given(st.lists(st.integers(0, 3 * CHUNK_CHARS), max_size=300), st.integers(1, 4))
@settings(max_examples=200, deadline=None)
def test_chunks_cover_the_jobs_in_order_within_their_limits(sizes, workers):
    todo = [_Job(s) for s in sizes]
    spans = chunks(todo, workers)
    flat = [i for a, b in spans for i in range(a, b)]
    assert flat == list(range(len(todo)))
    limit = min(CHUNK_JOBS, max(1, len(todo) // (4 * workers)))
    for a, b in spans:
        assert 1 <= b - a <= limit
        assert b - a == 1 or sum(sizes[a:b]) <= CHUNK_CHARS     # a big job is alone


def test_small_jobs_go_to_the_pool_in_runs_not_one_by_one(tmp_path, monkeypatch):
    """300 small labels on two workers: a few dozen pool tasks (one pipe round trip
    each), not 300; the labels are those of ``--jobs 1``, in the same order."""
    src = _markets(tmp_path, 100)
    tasks: list = []
    real = parallel.chunks
    monkeypatch.setattr(parallel, "chunks", lambda todo, w: tasks.extend(real(todo, w)) or
                        real(todo, w))
    runs = {}
    for jobs in ("1", "2"):
        r = CliRunner().invoke(main, ["label", str(src), "--engines", "oracle",
                                      "--jobs", jobs])
        assert r.exit_code == 0, r.output
        runs[jobs] = [{k: v for k, v in json.loads(x).items() if k != "engines"}
                      for x in r.stdout.splitlines() if x.startswith('{"id":')]
    assert len(runs["1"]) == 300 and runs["1"] == runs["2"]
    if os.cpu_count() and "fork" in __import__("multiprocessing").get_all_start_methods():
        assert 300 // CHUNK_JOBS <= len(tasks) <= 300 // 8


# ------------------------------------------------------------------ the Ctrl-C guard

def test_guard_holds_a_ctrl_c_back_until_release_and_passes_it_on_otherwise():
    with InterruptGuard() as guard:
        guard.hold()
        os.kill(os.getpid(), signal.SIGINT)          # held: the line is being written
        done = True
        with pytest.raises(KeyboardInterrupt):
            guard.release()
        assert done
        guard.release()                              # nothing held any more: no raise
        with pytest.raises(KeyboardInterrupt):       # not holding: delivered at once
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10 ** 6):                 # the handler runs between bytecodes
                pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_guard_delivers_to_the_handler_installed_before_it():
    seen: list = []
    old = signal.signal(signal.SIGINT, lambda s, f: seen.append(s))
    try:
        with InterruptGuard() as guard:
            guard.hold()
            os.kill(os.getpid(), signal.SIGINT)
            assert seen == []
            guard.release()
            assert seen == [signal.SIGINT]
        assert signal.getsignal(signal.SIGINT) is not guard._handler
    finally:
        signal.signal(signal.SIGINT, old)


# ------------------------------------------------------------------ the checker's scan

class _MyList(list):
    pass


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=2), inner,
                                                                max_size=5)
    | st.lists(inner, max_size=3).map(_MyList) | st.tuples(inner, inner),
    max_leaves=40)


@given(_json)
@settings(max_examples=500, deadline=None)
def test_boolean_scan_finds_the_same_boolean_as_the_plain_walk(value):
    want = first_boolean(value)
    if want is None:
        _no_booleans(value, "the certificate")
    else:
        with pytest.raises(CertificateError, match=f"holds the boolean {want}:"):
            _no_booleans(value, "the certificate")


def test_boolean_scan_examples():
    _no_booleans({"type": "deletion_log", "steps": [["dominate", "b1", "a1"]] * 20}, "c")
    _no_booleans([1, 2.5, None, "x", [], {}], "c")
    _no_booleans((True,), "c")                 # a tuple is no JSON list: not walked
    for bad, word in (([["a", True]], "true"), ({"x": [1, {"y": False}]}, "false"),
                      ([True, False], "false")):  # the last item is met first
        with pytest.raises(CertificateError, match=f"holds the boolean {word}:"):
            _no_booleans(bad, "the solution")


# ------------------------------------------------------------------ canonical JSON, one call

_json_object = st.dictionaries(
    st.text(max_size=4),
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                 | st.text(max_size=4),
                 lambda inner: st.lists(inner, max_size=6)
                 | st.dictionaries(st.text(max_size=3), inner, max_size=4), max_leaves=30),
    max_size=6)


@given(_json_object)
@settings(max_examples=300, deadline=None)
def test_one_call_canonical_text_is_the_pieces_text(data):
    """A small JSONL line's hash (one encoder call) is the hash of the pieces' text, and
    both are the plain ``json.dumps`` with sorted keys (written out here)."""
    import hashlib
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    want = (hashlib.sha256(text.encode("ascii")).hexdigest(), len(text))
    assert inst_mod._canonical(data) == want                        # pieces
    assert inst_mod._canonical(data, len(text)) == want             # one call
    assert inst_mod._canonical(data, inst_mod.ONE_ENCODE_BYTES + 1) == want   # pieces


def test_small_jsonl_lines_take_one_encoder_call_big_ones_the_pieces(tmp_path, monkeypatch):
    """Lines up to ONE_ENCODE_BYTES are hashed from one ``json.dumps``-equal encoder
    call; a longer line goes piece by piece; the hashes and sizes are those of the plain
    canonical text either way."""
    import hashlib
    small = sample_smti(4, tie_prob=0.3, seed=1, id="small")
    big = sample_smti(80, tie_prob=0.3, seed=2, id="big")
    src = tmp_path / "two.jsonl"
    src.write_text(json.dumps(small) + "\n" + json.dumps(big) + "\n")
    assert len(json.dumps(big)) > inst_mod.ONE_ENCODE_BYTES > len(json.dumps(small))
    pieces: list = []
    real = inst_mod.canonical_pieces

    def counting(value, depth=0):
        if depth == 0:
            pieces.append(value.get("id"))
        return real(value, depth)
    monkeypatch.setattr(inst_mod, "canonical_pieces", counting)
    got = inst_mod.read_jsonl(src)
    assert pieces == ["big"]
    for inst, data in zip(got, (small, big)):
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        assert (inst.sha256, inst.size) == (hashlib.sha256(text.encode()).hexdigest(),
                                            len(text))


# ------------------------------------------------------------------ the pool and its results

def _fork() -> bool:
    return "fork" in __import__("multiprocessing").get_all_start_methods()


@pytest.mark.skipif(not _fork(), reason="the pool needs fork")
def test_pool_worker_handler_wakes_per_pool_event_not_per_result(tmp_path, monkeypatch):
    """The pool's worker-maintenance thread runs its loop once per worker exit or pool
    change (start, the last result, terminate), not once per result waiting in the
    queue (the standard pool's spin, about 30 us of CPU per small label)."""
    import inspect
    from multiprocessing.pool import Pool
    src = _markets(tmp_path, 100)                      # 300 labels, dozens of tasks
    calls: list = []
    raw = inspect.getattr_static(Pool, "_maintain_pool", None)
    if not isinstance(raw, staticmethod):              # CPython 3.8-3.13: a staticmethod
        pytest.skip("this Python's pool has no static _maintain_pool to count")
    real = raw.__func__

    def counting(*args):
        calls.append(1)
        return real(*args)
    monkeypatch.setattr(Pool, "_maintain_pool", staticmethod(counting))
    r = CliRunner().invoke(main, ["label", str(src), "--engines", "oracle", "--jobs", "2"])
    assert r.exit_code == 0, r.output
    assert sum(1 for ln in r.stdout.splitlines() if ln.startswith('{"id":')) == 300
    assert 1 <= len(calls) <= 10


def _jobs(tmp_path, count: int):
    from prefcert.formal.files import read_paths
    from prefcert.pipeline.jobs import plan
    return plan(read_paths([str(_markets(tmp_path, count))]))


@pytest.mark.parametrize("workers", [1, 2])
def test_results_are_lines_made_where_the_label_is(tmp_path, workers):
    """With ``line``, every result is ``("line", (text, verdict, checked))`` — in the pool
    one string per label crosses the pipe — and the text is the plain ``json.dumps`` of
    the label the runner gives without ``line`` (compared with timings dropped)."""
    from prefcert.cli.label import LabelLine
    from prefcert.pipeline.parallel import LocalResults
    jobs = _jobs(tmp_path, 12)
    plain = LocalResults(jobs, ["oracle"], 10.0, 0, 1, cross_check="budget")
    try:
        dicts = list(plain)
    finally:
        plain.close()
    lined = LocalResults(jobs, ["oracle"], 10.0, 0, workers, cross_check="budget",
                         line=LabelLine(None))
    try:
        lines = list(lined)
    finally:
        lined.close()
    assert [k for k, _ in dicts] == ["label"] * 36 and [k for k, _ in lines] == ["line"] * 36
    for (_, lab), (_, (text, verdict, checked)) in zip(dicts, lines):
        assert text.endswith("\n") and text.count("\n") == 1
        got = json.loads(text)
        assert (verdict, checked) == (lab["verdict"], lab["checked"]) == \
            (got["verdict"], got["checked"])
        for x in (got, lab):
            for e in x["engines"]:
                e.pop("seconds")
        assert got == lab
        assert list(got) == list(lab)                  # the same field order


def test_label_line_is_json_dumps_with_source_relative_to_out(tmp_path):
    from prefcert.cli.label import LabelLine
    out = tmp_path / "a" / "b" / "labels.jsonl"
    lab = {"id": "x", "domain": "stable_matching", "question": "weakly_stable",
           "verdict": "exists", "solution": {"A1": "B1"}, "certificate": {"type": "t"},
           "engines": [{"engine": "oracle", "verdict": "exists", "seconds": 0.5}],
           "checked": True, "source": {"file": str(tmp_path / "in" / "m.jsonl"), "line": 3},
           "instance_sha256": "ab"}
    plain = dict(lab)
    assert LabelLine(None)(dict(lab)) == json.dumps(plain, separators=(",", ":")) + "\n"
    got = json.loads(LabelLine(out)(dict(lab)))
    assert got["source"] == {"file": "../../in/m.jsonl", "line": 3}
    assert list(got) == list(plain)
    assert lab["source"]["file"] == str(tmp_path / "in" / "m.jsonl")   # not changed in place


def test_plan_makes_each_label_key_once(tmp_path, monkeypatch):
    from prefcert.pipeline import jobs as jobs_mod
    calls: list = []
    real = jobs_mod.label_key
    monkeypatch.setattr(jobs_mod, "label_key", lambda i, q: calls.append((i, q)) or real(i, q))
    jobs = _jobs(tmp_path, 7)
    assert len(jobs) == 21 and len(calls) == 21
