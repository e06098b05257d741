"""Reading instance files and folders: the suffix table (JSON, JSONL, PrefLib) and the walk.

Every error is an :class:`InstanceError` naming the file, the line and the value.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from .errors import InstanceError
from .instances import Instance, read_json, read_jsonl

#: the PrefLib suffixes (:data:`prefcert.formal.preflib.SUFFIXES`, a test keeps the two
#: equal), known here so that reading JSON never imports the PrefLib reader
PREFLIB_SUFFIXES = (".soc", ".soi", ".toc", ".toi")


#: the default size limit of an instance file read by ``prefcert check`` (1 GiB; its
#: ``--max-file-size`` option raises it)
MAX_FILE_SIZE = 2**30


def readers() -> dict[str, Callable[..., list[Instance]]]:
    """File suffix -> reader (path, optional size limit in bytes -> list of Instance):
    JSON, JSONL and the PrefLib suffixes."""
    return {".json": read_json, ".jsonl": read_jsonl,
            **dict.fromkeys(PREFLIB_SUFFIXES, read_preflib)}


def read_preflib(path: Path, limit: int | None = None) -> list[Instance]:
    """:func:`prefcert.formal.preflib.read_preflib`, imported on first use."""
    from .preflib import read_preflib as read
    return read(path, limit)


def read_file(path: Path, limit: int | None = None) -> list[Instance]:
    """The instances of one file, by its suffix (see :func:`readers`); a file larger than
    ``limit`` bytes is bad input before it is read."""
    table = readers()
    if path.suffix not in table:
        raise InstanceError(f"unsupported file type (known: {', '.join(sorted(table))})",
                            file=str(path), value=path.suffix)
    return table[path.suffix](path, limit)


def read_paths(paths: list[str], skip: Iterable[str | Path] = ()) -> list[Instance]:
    """Read instance files and folders (recursively, sorted, by suffix, see :func:`readers`).
    Files in ``skip`` (e.g. the run's own output) are left out of folder walks.

    Raises :class:`InstanceError` for a missing path, an unreadable file, a duplicate id, a
    labels file, or a malformed instance. O(total input size).
    """
    files: list[Path] = []
    known = readers()
    skipped = {Path(f).resolve() for f in skip}
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in known
                           and f.resolve() not in skipped)
            if not found:
                raise InstanceError("folder holds no instance files", file=str(p))
            files.extend(found)
        elif p.is_file():
            if p.suffix not in known:
                raise InstanceError(f"unsupported file type (known: {', '.join(sorted(known))})",
                                    file=str(p), value=p.suffix)
            files.append(p)
        else:
            raise InstanceError("no such file or folder", file=str(p))
    instances: list[Instance] = []
    seen: dict[str, Instance] = {}
    for f in files:
        for inst in read_file(f):
            if isinstance(inst.data, dict) and "instance_sha256" in inst.data \
                    and "verdict" in inst.data:
                raise InstanceError("a labels file, not instances (prefcert check reads it)",
                                    file=inst.file, line=inst.line)
            if inst.id in seen:
                other = seen[inst.id]
                raise InstanceError(f"duplicate instance id (also in {other.file})",
                                    file=inst.file, line=inst.line, value=inst.id)
            seen[inst.id] = inst
            instances.append(inst)
    return instances
