"""Many small labels (issue 24, item 1): the paths that make them cheaper, each against the
formulation it replaces (``json.dumps``, the raw keys, the old exit), and the self-check
that still refuses a forged certificate before any label is emitted."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import labels_without_timings

from prefcert.cli import main
from prefcert.cli.common import finish
from prefcert.formal import files, preflib
from prefcert.formal.errors import Disagreement
from prefcert.formal.files import read_paths
from prefcert.formal.instances import compact_encoder, label_key
from prefcert.formal.stable_matching import parse_market
from prefcert.generators.stable_matching import sample_smti
from prefcert.pipeline import parallel
from prefcert.pipeline.jobs import label, plan

ROOT = Path(__file__).resolve().parents[1]
EXE = os.path.join(os.path.dirname(sys.executable), "prefcert")

# JSON values as a decoder makes them, with the strings an encoder must escape
_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=8) | \
    st.sampled_from(['"', "\\", "\x7f", "\u2028", "\ud7ff", "é", "😀", ""])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | _TEXT |
    st.floats(allow_nan=True, allow_infinity=True),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(_TEXT, kids, max_size=4),
    max_leaves=20)


def _markets(tmp_path: Path, count: int, n: int = 5, name: str = "m.jsonl") -> Path:
    src = tmp_path / name
    src.write_text("".join(json.dumps(sample_smti(n, tie_prob=0.3, seed=s, id=f"m{s}")) + "\n"
                           for s in range(count)))
    return src


# ------------------------------------------------------------------ the encoders

@settings(max_examples=300, deadline=None)
@given(_JSON, st.booleans())
def test_compact_encoder_writes_what_json_dumps_writes(value, sort_keys):
    want = json.dumps(value, sort_keys=sort_keys, separators=(",", ":"))
    assert compact_encoder(sort_keys)(value) == want


def test_compact_encoder_on_labels_and_its_refusals():
    lab = {"id": "m0", "solution": {"A1": "B2", "é": "😀"}, "seconds": 1e-05,
           "big": 10 ** 40, "nan": math.inf, "none": None, "t": True, "list": [1.5, [], {}]}
    assert compact_encoder()(lab) == json.dumps(lab, separators=(",", ":"))
    with pytest.raises(TypeError):                      # not JSON: as json.dumps refuses
        compact_encoder()({"x": {1, 2}})
    with pytest.raises(TypeError):
        compact_encoder(sort_keys=True)({"b": 1, 2: 3})  # keys that do not sort


@settings(max_examples=200, deadline=None)
@given(_TEXT | _JSON)
def test_label_key_is_the_canonical_json_of_the_question(asked):
    assert label_key("i", asked) == ("i", json.dumps(asked, sort_keys=True))


# ------------------------------------------------------------------ the model's own names

def test_market_names_are_own_objects_equal_to_the_keys():
    data = sample_smti(6, tie_prob=0.3, seed=3, id="x")
    data["preferences"]["A"] = {**{"Ünï": ["B1"]}, **data["preferences"]["A"]}
    data["preferences"]["B"]["B1"] = data["preferences"]["B"]["B1"] + ["Ünï"]
    m = parse_market(data)
    for side, s in (("A", m.ints.a), ("B", m.ints.b)):
        keys = list(data["preferences"][side])
        assert s.names == keys
        assert all(x is not k for x, k in zip(s.names, keys) if len(k) > 1)
        assert s.index == {k: i for i, k in enumerate(keys)}
    assert list(m.a) == list(data["preferences"]["A"])


def test_labels_do_not_depend_on_the_name_objects(tmp_path):
    """Labels made from the model's own names equal those made from the raw keys (the
    previous formulation), on small adversarial markets (ties, short lists)."""
    import prefcert.formal.stable_matching as sm
    src = _markets(tmp_path, 30, n=4)
    work = plan(read_paths([str(src)]))
    mine = [label(j, engines=["oracle"]) for j in work]
    old = sm._own_names
    try:
        sm._own_names = list                       # the keys of the decoded instance
        raw = [label(j, engines=["oracle"]) for j in plan(read_paths([str(src)]))]
    finally:
        sm._own_names = old
    for a, b in zip(mine, raw):
        a["engines"] = b["engines"] = None
    assert mine == raw


# ------------------------------------------------------------------ the pool

def test_pool_tasks_are_planned_before_the_fork(tmp_path, monkeypatch):
    """The tasks (which read every job) are made before the workers fork, and the label
    loop reads no job after it: each job's question is read before too."""
    work = plan(read_paths([str(_markets(tmp_path, 12))]))
    events: list[str] = []
    real_chunks, real_pool = parallel.chunks, parallel.quiet_pool
    monkeypatch.setattr(parallel, "chunks", lambda *a: events.append("chunks") or
                        real_chunks(*a))
    monkeypatch.setattr(parallel, "quiet_pool", lambda *a: events.append("fork") or
                        real_pool(*a))
    res = parallel.LocalResults(work, ["oracle"], 10.0, 0, 2)
    try:
        got = list(res)
    finally:
        res.close()
    assert events == ["chunks", "fork"]
    assert [k for k, _ in got] == ["label"] * len(work)


def test_two_workers_write_the_labels_of_one(tmp_path):
    src = _markets(tmp_path, 25)
    runs = [CliRunner().invoke(main, ["label", str(src), "--engines", "oracle", "-j", j])
            for j in ("1", "2")]
    assert [r.exit_code for r in runs] == [0, 0]
    assert labels_without_timings(runs[0].stdout) == labels_without_timings(runs[1].stdout)
    assert len(runs[0].stdout.splitlines()) == 75


# ------------------------------------------------------------------ the end of a run

def test_finish_is_sys_exit_outside_the_prefcert_script():
    with pytest.raises(SystemExit) as e:
        finish(3)
    assert e.value.code == 3


def test_the_script_ends_with_its_output_whole(tmp_path):
    """The ``prefcert`` process ends by ``os._exit``: stdout (a pipe), stderr and ``-o``
    are whole, the exit status is the command's, as the plain exit gave."""
    src = _markets(tmp_path, 40)
    out = tmp_path / "out.jsonl"
    piped = subprocess.run([EXE, "label", str(src), "--engines", "oracle"],
                           capture_output=True, text=True, check=False)
    written = subprocess.run([EXE, "label", str(src), "--engines", "oracle", "-o", str(out)],
                             capture_output=True, text=True, check=False)
    assert piped.returncode == written.returncode == 0
    assert len(piped.stdout.splitlines()) == 120 and piped.stdout.endswith("\n")
    assert "strongly_stable" in piped.stderr and "weakly_stable" in written.stderr
    in_process = CliRunner().invoke(main, ["label", str(src), "--engines", "oracle"])
    assert labels_without_timings(piped.stdout) == labels_without_timings(in_process.stdout)
    labels = labels_without_timings(out.read_text())
    for lab in labels:
        lab["source"]["file"] = str(src)
    assert labels == labels_without_timings(piped.stdout)
    again = subprocess.run([EXE, "label", str(src), "--engines", "oracle", "-o", str(out)],
                           capture_output=True, text=True, check=False)
    assert again.returncode == 0 and len(out.read_text().splitlines()) == 120   # resumed


def test_the_script_exit_status_of_a_bad_input(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"domain": "stable_matching", "id": "x", "preferences": {"A": {}}}\n')
    r = subprocess.run([EXE, "label", str(bad)], capture_output=True, text=True, check=False)
    assert r.returncode == 2 and r.stdout == "" and "error" in r.stderr


# ------------------------------------------------------------------ imports

def test_import_prefcert_and_label_load_no_optional_module():
    code = ("import sys, prefcert, prefcert.cli.label, prefcert.cli.check; "
            "print(sorted(m for m in ('importlib.metadata', 'prefcert.formal.preflib', "
            "'prefcert.formal.preference', 'rich', 'numpy', 'scipy', 'ortools', 'z3') "
            "if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       check=True)
    assert r.stdout.strip() == "[]"


def test_version_is_the_installed_one():
    import importlib.metadata

    import prefcert
    assert prefcert.__version__ == importlib.metadata.version("prefcert")


def test_preflib_suffixes_and_the_lazy_reader():
    assert files.PREFLIB_SUFFIXES == preflib.SUFFIXES
    soc = ROOT / "instances" / "preflib" / "00009-00000002.soc"
    assert files.read_file(soc) == preflib.read_preflib(soc)


# ------------------------------------------------------------------ the self-check stays

def test_a_forged_witness_is_refused_before_it_is_a_label(tmp_path, monkeypatch):
    """Every label is checked before it is emitted: an oracle answering a matching with a
    blocking pair, or a deletion log with a step that is not justified, yields a
    disagreement, never a line."""
    from prefcert.oracles import stable_matching as orc
    work = plan(read_paths([str(_markets(tmp_path, 8, n=5))]))

    def blocking_witness(market):              # everyone unmatched: every pair blocks
        return {}
    monkeypatch.setattr(orc, "weakly_stable_matching", blocking_witness)
    weak = [j for j in work if j.question.name == "weakly_stable"]
    for j in weak:
        with pytest.raises(Disagreement):
            label(j, engines=["oracle"], minimize=False)

    def forged_log(market, start=None):
        a, b = list(market.a), list(market.b)
        return None, {"type": "deletion_log", "steps": [["dominate", b[0], a[0], a[0]]]}
    monkeypatch.setattr(orc, "super_stable_search", forged_log)
    monkeypatch.setattr(orc, "strongly_stable_search", forged_log)
    for j in work:
        if j.question.name != "weakly_stable":
            with pytest.raises(Disagreement):
                label(j, engines=["oracle"], minimize=False)
    src = _markets(tmp_path, 3, n=5, name="few.jsonl")
    r = CliRunner().invoke(main, ["label", str(src), "--engines", "oracle", "-j", "1"])
    assert r.exit_code == 1 and r.stdout == ""
