"""Auditing peer libraries: the known failures from their issue trackers reproduce, every
refutation passes the checker, random audits run, the CLI reports as documented."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from prefcert.formal.checker.hospitals import blocking_pairs
from prefcert.formal.errors import CertificateError, InstanceError
from prefcert.formal.hospitals import parse_hospitals_residents
from prefcert.peers import audit_run, runs_for


ROOT = Path(__file__).resolve().parents[1]
FAILURES = ROOT / "instances" / "peer_failures"
EXE = shutil.which("prefcert", path=os.path.dirname(sys.executable)) or shutil.which("prefcert")


def _instances(lib):
    return [json.loads(x) for x in (FAILURES / f"{lib}.jsonl").read_text().splitlines()]


def _refutation_holds(inst, rec):
    """Re-check an ``incorrect`` verdict with the checker (or the certified label)."""
    m = parse_hospitals_residents(inst)
    ref = rec["refutation"]
    notion = {"weakly_stable": "weak", "strongly_stable": "strong", "super_stable": "super"}[
        rec["question"]]
    if ref["type"] == "invalid_matching":
        with pytest.raises(CertificateError):
            blocking_pairs(m, rec["peer"]["matching"], notion)
    elif ref["type"] == "blocking_pairs":
        assert blocking_pairs(m, rec["peer"]["matching"], notion)
    elif ref["type"] == "witness":
        assert blocking_pairs(m, ref["matching"], notion) == []
    else:
        assert ref["type"] == "not_optimal"
        assert blocking_pairs(m, ref["optimum"], notion) == []


@pytest.mark.parametrize("lib", ["matching", "algmatch"])
def test_known_failures_reproduce_with_checked_refutations(lib):
    pytest.importorskip(lib)
    reproduced = 0
    for inst in _instances(lib):
        for run, expected in inst["peer_failure"]["expected"].items():
            rec = audit_run(run, inst)
            assert rec["verdict"] == expected, (inst["id"], run, rec)
            if expected == "incorrect":
                _refutation_holds(inst, rec)
                reproduced += 1
            if expected == "crash":
                assert rec["prefcert"]["checked"]      # the certified answer beside it
                reproduced += 1
    assert reproduced >= 3


def test_tracker_sources_are_cited():
    text = (FAILURES / "SOURCES.md").read_text()
    for n in (112, 167, 173, 109):
        assert f"github.com/daffidwilde/matching/issues/{n}" in text


def test_unknown_and_pending_libraries_are_refused():
    with pytest.raises(InstanceError, match="unknown library"):
        runs_for("nolib", "stable_matching")
    with pytest.raises(InstanceError, match="election checker"):
        runs_for("pref-voting", "stable_matching")


@pytest.mark.skipif(EXE is None, reason="console script not installed")
def test_cli_random_audit_and_exit_codes(tmp_path):
    pytest.importorskip("algmatch")
    out = tmp_path / "a.jsonl"
    r = subprocess.run([EXE, "audit-library", "algmatch", "--random", "15", "-o", str(out)],
                       capture_output=True, text=True)
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(recs) == 15 * 6 and all(rec["random"] for rec in recs)
    assert r.returncode == (1 if any(x["verdict"] in ("incorrect", "crash") for x in recs) else 0)
    assert "audit of algmatch" in r.stderr
    r = subprocess.run([EXE, "audit-library", "pref-voting", "--random", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "election checker" in r.stderr
    r = subprocess.run([EXE, "audit-library", "matching"], capture_output=True, text=True)
    assert r.returncode == 2
