"""PrefLib I/O: byte-exact round trip of every real file, bad headers/bodies rejected with
file and line, reference answers of real elections reproduced through labelled queries."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SHARED_DATA
from prefcert.formal.errors import InstanceError
from prefcert.formal.files import read_paths
from prefcert.formal.preflib import parse_preflib, preflib_text, read_preflib

from prefcert.pipeline.jobs import label, plan

SHARED = SHARED_DATA
DATA = SHARED / "preflib"
REF = SHARED / "reference"
SHIPPED = Path(__file__).resolve().parent.parent / "instances" / "preflib"
FILES = sorted(p for d in ("soc", "soi", "toc", "toi") for p in (DATA / d).glob(f"*.{d}"))


def _header(text: str, key: str) -> int:
    for line in text.splitlines():
        if line.startswith(f"# {key}:"):
            return int(line.split(":", 1)[1])
    raise KeyError(key)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_round_trip_every_real_file(path):
    text = path.read_text(encoding="utf-8")
    (inst,) = read_preflib(path)
    data = inst.data
    assert inst.id == path.stem and data["domain"] == "preference"
    assert data["semantics"] == "truncated"
    assert len(data["items"]) == _header(text, "NUMBER ALTERNATIVES")
    assert sum(a["count"] for a in data["profile"].values()) == _header(text, "NUMBER VOTERS")
    assert len(data["profile"]) == _header(text, "NUMBER UNIQUE ORDERS")
    assert preflib_text(data) == text
    # and the written text reads back to the same instance
    again = to_data(preflib_text(data), path)
    assert again == data


def to_data(text, path):
    from prefcert.formal.preflib import to_instance_dict
    return to_instance_dict(parse_preflib(text, file=str(path), suffix=path.suffix),
                            iid=path.stem, suffix=path.suffix)


def test_shipped_files_are_unmodified_copies():
    shipped = sorted(SHIPPED.glob("*.*[ci]"))
    assert len(shipped) >= 3
    for p in shipped:
        assert p.read_bytes() == (DATA / p.suffix[1:] / p.name).read_bytes()
    assert (SHIPPED / "SOURCES.md").exists()


def test_readers_registered_for_the_four_suffixes():
    insts = read_paths([str(SHIPPED)])
    assert {Path(i.file).suffix for i in insts} == {".soc", ".soi", ".toi"}


BASE = """# FILE NAME: t.soi
# DATA TYPE: soi
# NUMBER ALTERNATIVES: 3
# NUMBER VOTERS: 5
# NUMBER UNIQUE ORDERS: 2
# ALTERNATIVE NAME 1: A
# ALTERNATIVE NAME 2: B
# ALTERNATIVE NAME 3: C
3: 1,2
2: 3
"""


@pytest.mark.parametrize("old,new,suffix,line,value", [
    ("# NUMBER VOTERS: 5", "# NUMBER VOTERS: 6", ".soi", 4, 6),
    ("# NUMBER UNIQUE ORDERS: 2", "# NUMBER UNIQUE ORDERS: 3", ".soi", 5, 3),
    ("# NUMBER ALTERNATIVES: 3", "# NUMBER ALTERNATIVES: 4", ".soi", 3, 4),
    ("3: 1,2", "3: 1,4", ".soi", 9, 4),
    ("3: 1,2", "3: 1,2,1", ".soi", 9, 1),
    ("3: 1,2", "3: 1,{2,3}", ".soi", 9, "{2,3}"),
    ("3: 1,2", "3: 1,x", ".soi", 9, "x"),
    ("3: 1,2", "3: 1,2", ".soc", 9, [3]),
])
def test_bad_files_name_file_line_and_value(tmp_path, old, new, suffix, line, value):
    p = tmp_path / f"bad{suffix}"
    p.write_text(BASE.replace(old, new), encoding="utf-8")
    with pytest.raises(InstanceError) as e:
        read_paths([str(p)])
    assert e.value.file == str(p) and e.value.line == line and e.value.value == value
    assert f"{p}:{line}:" in str(e.value)


def test_good_base_file_reads(tmp_path):
    p = tmp_path / "ok.soi"
    p.write_text(BASE, encoding="utf-8")
    (inst,) = read_paths([str(p)])
    assert inst.data["profile"] == {"V1": {"order": ["A", "B"], "count": 3},
                                    "V2": {"order": ["C"], "count": 2}}


@pytest.mark.parametrize("ref", ["real_debian_2002_leader", "real_debian_2005_leader",
                                 "real_aspen_2009_mayor"])
def test_reference_copeland_scores_from_labelled_majorities(ref):
    """The reference counts pairwise wins with unranked candidates tied below ranked ones:
    that is the *necessary* count of a ≻ b under the truncated semantics (the label's
    ``min``). Copeland wins and the Condorcet winner are read off the labels."""
    spec = json.loads((REF / f"{ref}.json").read_text())
    path = DATA / Path(spec["preferences"]["preflib_file"]).relative_to("shared/data/preflib")
    (inst,) = read_preflib(path)
    items = inst.data["items"]
    qs = [{"type": "majority", "items": [a, b]} for a in items for b in items if a != b]
    labels = {tuple(j.asked["items"]): label(j) for j in plan([inst], qs)}
    assert all(lab["checked"] for lab in labels.values())
    lo = {k: lab["solution"]["min"] for k, lab in labels.items()}
    wins = {a: sum(lo[a, b] > lo[b, a] for b in items if b != a) for a in items}
    assert wins == spec["expected"]["copeland_scores"]
    cw = [a for a in items if wins[a] == len(items) - 1]
    assert cw == [spec["expected"]["condorcet_winner"]]


@pytest.mark.parametrize("name", ["00002-00000001.soi", "00023-00000001.toi"])
def test_default_questions_on_shipped_files_all_checked(name):
    (inst,) = read_preflib(SHIPPED / name)
    jobs = plan([inst])
    m = len(inst.data["items"])
    assert len(jobs) == m * (m - 1) // 2 + 3 * m
    labels = [label(j) for j in jobs]
    assert all(lab["checked"] for lab in labels)
    # a necessary winner under a rule is a possible winner of no other verdict
    for rule in ("plurality", "borda", "copeland"):
        nw = [lab for lab in labels if lab["question"].get("rule") == rule
              and lab["verdict"] == "true"]
        assert len(nw) <= 1 or rule == "copeland"
