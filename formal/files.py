"""Reading instance files and folders: the suffix table (JSON, JSONL, PrefLib) and the walk.

Every error is an :class:`InstanceError` naming the file, the line and the value.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .errors import InstanceError
from .instances import (BOM, Instance, _near, _no_duplicates, not_a_file, read_json, read_jsonl,
                        read_text)
from .instances import parse_json as parse_text

#: the PrefLib suffixes (:data:`prefcert.formal.preflib.SUFFIXES`, a test keeps the two
#: equal), known here so that reading JSON never imports the PrefLib reader
PREFLIB_SUFFIXES = (".soc", ".soi", ".toc", ".toi")


#: the default size limit of a user file read by a command: an instance file read by
#: ``prefcert check`` (1 GiB; its ``--max-file-size`` option changes it), a labels,
#: answers, scores, prompts or design file (:func:`read_input`)
MAX_FILE_SIZE = 2**30


def read_input(path: str | os.PathLike[str], limit: int | None = MAX_FILE_SIZE) -> str:
    """The UTF-8 text of a user file, the one way every command reads one (a labels,
    answers, scores, prompts, candidates or design file; instance files go through
    :func:`read_file`, which reads them the same way).

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    limit : int or None, default MAX_FILE_SIZE
        The largest size read, in bytes (None: no limit).

    Returns
    -------
    str
        The text, without a leading byte-order mark.

    Raises
    ------
    InstanceError
        One line naming the file (and the line, for a byte that is not UTF-8 or is NUL):
        a path that is missing or cannot be opened; a folder, FIFO, character device
        (``/dev/zero``, ``/dev/urandom``), block device or socket, refused before a byte
        is read (so such a read never waits or fills memory); a file larger than
        ``limit``. O(file size); peak memory the text plus one chunk.
    """
    text = read_text(Path(path), limit)
    return text[1:] if text.startswith(BOM) else text


def check_input(path: str | os.PathLike[str], limit: int | None = None) -> None:
    """Refuse, before another library opens it (a Parquet table, an Inspect log), a user
    file that :func:`read_input` would refuse unread: a missing path, a folder, a FIFO, a
    device or a socket, or (given ``limit``) a file larger than ``limit`` bytes.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    limit : int, optional
        The largest size accepted, in bytes (None: no limit).

    Raises
    ------
    InstanceError
        One line naming the file. O(1): one ``stat``.
    """
    try:
        info = os.stat(path)
    except OSError as e:
        raise InstanceError(f"cannot read the file ({e.strerror})", file=str(path)) from None
    kind = not_a_file(info.st_mode)
    if kind is not None:
        raise InstanceError(f"{kind}, not a file", file=str(path))
    if limit is not None and info.st_size > limit:
        raise InstanceError(f"the file is larger than the size limit ({info.st_size} > "
                            f"{limit} bytes)", file=str(path))


def parse_json(text: str, file: str, line: int | None = None, *,
               unique_keys: bool = True) -> Any:
    """``json.loads(text)`` for one JSON text of a user file (a whole file, or the line
    ``line`` of a JSONL file); every way it fails is an :class:`InstanceError` naming
    the file, the line and the text near the fault: malformed JSON, nesting too deep
    for the decoder (``[[[[…]]]]`` 100 000 deep) and, with ``unique_keys``, a key that
    appears twice in one object (JSON would keep its last value).

    Parameters
    ----------
    text : str
        The JSON text.
    file : str
        The file it was read from (for the error).
    line : int, optional
        Its line in the file (None: ``text`` is the whole file, the line is the fault's).
    unique_keys : bool, default True
        Refuse an object that repeats a key.

    Returns
    -------
    Any
        The decoded value. O(len(text)).
    """
    return parse_text(text, file, line, hook=_no_duplicates if unique_keys else None)


def read_json_file(path: str | os.PathLike[str], limit: int | None = MAX_FILE_SIZE, *,
                   unique_keys: bool = True) -> Any:
    """The JSON value of a user file (:func:`read_input`, then :func:`parse_json`);
    InstanceError naming the file, the line and the value for every fault. O(file size).

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    limit : int or None, default MAX_FILE_SIZE
        The largest size read, in bytes.
    unique_keys : bool, default True
        Refuse an object that repeats a key.

    Returns
    -------
    Any
        The decoded value.
    """
    return parse_json(read_input(path, limit), str(path), unique_keys=unique_keys)


def read_json_lines(path: str | os.PathLike[str], limit: int | None = MAX_FILE_SIZE, *,
                    unique_keys: bool = False,
                    what: str = "a JSON object") -> list[tuple[int, dict[str, Any]]]:
    """The JSON objects of a user JSONL file with their line numbers (lines end at
    ``\n`` only; blank lines skipped, so a record's number is its line in the file); InstanceError naming the
    file, the line and the value for every fault (:func:`read_input`,
    :func:`parse_json`) and for a line that is not a JSON object.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    limit : int or None, default MAX_FILE_SIZE
        The largest size read, in bytes.
    unique_keys : bool, default False
        Refuse an object that repeats a key (for files people write by hand).
    what : str, default "a JSON object"
        What each line must be, for the error of one that is not an object.

    Returns
    -------
    list of (int, dict)
        (line, object) in file order. O(file size).
    """
    file = str(path)
    out = []
    for i, line in enumerate(read_input(path, limit).split("\n"), 1):   # "\n" only: a
        # JSON string may hold U+2028 or a form feed, which str.splitlines splits at
        if not line.strip():
            continue
        obj = parse_json(line, file, i, unique_keys=unique_keys)
        if not isinstance(obj, dict):
            raise InstanceError(f"not {what}", file=file, line=i, value=_near(line, 0))
        out.append((i, obj))
    return out


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
            raise InstanceError(_missing(p), file=str(p))
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


def _missing(p: Path) -> str:
    """Why ``p`` (neither a folder nor a regular file) is not read."""
    try:
        mode = os.stat(p).st_mode
    except OSError:
        return "no such file or folder"
    return f"{not_a_file(mode)}, not a file or folder"
