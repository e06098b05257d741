"""``label -o`` appends whole lines and syncs them in groups (issue 24): the number of
``fsync`` calls is pinned, not the time they take."""
from __future__ import annotations

import json

from prefcert import output
from prefcert.output import AppendFile


def _count_fsyncs(monkeypatch) -> list:
    calls: list = []
    real = output.os.fsync

    def counting(fd):
        calls.append(fd)
        real(fd)
    monkeypatch.setattr(output.os, "fsync", counting)
    return calls


def test_lines_are_synced_in_groups_and_at_close(tmp_path, monkeypatch):
    monkeypatch.setattr(AppendFile, "SYNC_SECONDS", 10 ** 9)     # only the line count
    calls = _count_fsyncs(monkeypatch)
    out = AppendFile(tmp_path / "labels.jsonl", "'test'")
    n = 3 * AppendFile.SYNC_LINES + 5
    for i in range(n):
        out.write_line(json.dumps({"i": i}) + "\n")
    assert len(calls) == 3                     # one per full group, none per line
    out.close()
    assert len(calls) == 4                     # the last, partial group at close
    lines = (tmp_path / "labels.jsonl").read_text().splitlines()
    assert [json.loads(x)["i"] for x in lines] == list(range(n))


def test_every_line_is_in_the_file_before_its_group_is_synced(tmp_path, monkeypatch):
    """A killed process loses no line write_line returned: the bytes are written at once,
    only their fsync waits for the group."""
    monkeypatch.setattr(AppendFile, "SYNC_SECONDS", 10 ** 9)
    calls = _count_fsyncs(monkeypatch)
    out = AppendFile(tmp_path / "labels.jsonl", "'test'")
    out.write_line('{"i": 0}\n')
    out.write_line('{"i": 1}\n')
    assert calls == []
    assert (tmp_path / "labels.jsonl").read_text() == '{"i": 0}\n{"i": 1}\n'
    out.close()
    assert len(calls) == 1
