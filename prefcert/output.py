"""Writing output files: the one place every command (and library function) that writes a
file goes through, so that no run leaves a partial file, overwrites one of its inputs or
prints a traceback on a full disk or a read-only folder.

- :func:`atomic` / :func:`write_text`: a whole file, written to a temporary file in the
  same folder, flushed to disk (``fsync``) and renamed over the target. A reader sees the
  old file or the new one, never a part of one; on any failure (a full disk, a read-only
  folder, Ctrl-C) the temporary file is removed and the target is left as it was.
- :class:`OutputFolder`: several files of one result (a benchmark) written into one
  folder held under a lock, renamed into place together at the end, or none of them.
- :class:`AppendFile`: a resumable JSONL output (``prefcert label -o``) held under a
  lock and appended one whole line at a time (:func:`append_line` is the one append
  path); a line that cannot be written whole is cut off again.
- :func:`check_output` (before any work) and :func:`refuse_inputs` (an output that is one
  of the inputs: the same file, a hard link or a symlink to it); :func:`refuse_within`
  (an output folder inside an input folder); :func:`check_new_folder` (an output folder
  is new or empty, or with ``--overwrite`` holds only the files the run writes).

Every failure is an :class:`~prefcert.formal.errors.InstanceError` naming the file: the
command line prints it on one line and exits with status 2.
"""
from __future__ import annotations

import errno
import os
import re
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from .formal.errors import InstanceError

_TMP = ".tmp"          # suffix of the temporary files (hidden: they start with a dot)

#: the path (relative, ``/``-separated) of a temporary file :func:`atomic` or
#: :class:`OutputFolder` stages (``.<name>.<8 hex digits>.tmp``): a killed run's leftover
TEMPORARY = re.compile(r"^(?:.*/)?\.[^/]+\.[0-9a-f]{8}\.tmp$")


def _reason(e: OSError) -> str:
    return e.strerror or e.__class__.__name__


def _folder(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def check_output(path: str | os.PathLike[str], *, folder: bool = False) -> Path:
    """Bad input unless ``path`` can be written (checked before any work, so that a run
    that could not save its result never starts): its folder exists and is writable, and
    it is not a folder (``folder``: it is a folder, or can be created, and is writable).
    Returns ``path`` as a Path."""
    p = Path(path)
    if folder:
        if p.exists() and not p.is_dir():
            raise InstanceError("the output folder is a file", file=str(p))
        existing = p
        while not existing.exists():          # the nearest folder that exists gets it
            existing = _folder(existing)
        if not existing.is_dir():
            raise InstanceError("the output folder cannot be created (a file is in the "
                                "way)", file=str(existing))
        if not os.access(existing, os.W_OK | os.X_OK):
            raise InstanceError("the output folder is not writable", file=str(existing))
        return p
    parent = _folder(p)
    if p.is_dir():
        raise InstanceError("the output is a folder, not a file", file=str(p))
    if p.exists() and not p.is_file():
        raise InstanceError("the output is not a regular file", file=str(p))
    if parent.exists() and not parent.is_dir():
        raise InstanceError("the output's folder is a file", file=str(parent))
    if not parent.is_dir():
        raise InstanceError("the output folder does not exist", file=str(parent))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InstanceError("the output folder is not writable", file=str(parent))
    if p.exists() and not os.access(p, os.W_OK):
        raise InstanceError("the output file is not writable", file=str(p))
    return p


def _identity(path: Path) -> tuple[Any, ...]:
    try:
        st = path.stat()                      # follows symlinks: a link is its target
        return ("inode", st.st_dev, st.st_ino)
    except OSError:
        return ("path", os.path.realpath(path))


def refuse_inputs(outputs: Iterable[str | os.PathLike[str] | None],
                  inputs: Iterable[str | os.PathLike[str] | None]) -> None:
    """Bad input when an output is one of the inputs, or two outputs are one file: the
    same file by its resolved path, or by device and inode (a hard link, a symlink). An
    input folder stands for every file below it (a folder of logs). Nones are skipped.
    O(outputs + input files) ``stat`` calls."""
    seen = {}
    for f in inputs:
        if f is None:
            continue
        seen[_identity(Path(f))] = f
        if Path(f).is_dir():
            for g in Path(f).rglob("*"):
                if g.is_file():
                    seen.setdefault(_identity(g), str(g))
    written: dict = {}
    for out in outputs:
        if out is None:
            continue
        key = _identity(Path(out))
        hit = seen.get(key)
        if hit is not None:
            same = "" if os.path.abspath(hit) == os.path.abspath(out) else f" ({hit})"
            raise InstanceError(f"the output is one of the inputs{same}: it would be "
                                f"overwritten; write elsewhere", file=str(out))
        if key in written:
            raise InstanceError(f"two outputs are one file (also {written[key]})",
                                file=str(out))
        written[key] = out


def refuse_within(output: str | os.PathLike[str], folder: str | os.PathLike[str],
                  what: str = "input folder") -> None:
    """Bad input when the output folder ``output`` is the input folder ``folder`` or lies
    inside it (its files would be mixed with the folder's, and read back as its files by
    the next reader): both resolved (symlinks followed; a folder not made yet counts by
    where it would be). ``what`` names ``folder`` in the message. O(path depth)."""
    out = Path(os.path.realpath(output))
    inside = Path(os.path.realpath(folder))
    if out == inside or inside in out.parents:
        where = "is" if out == inside else "is inside"
        raise InstanceError(f"the output folder {where} the {what} ({folder}): its files "
                            f"would be mixed with the {what}'s; write elsewhere",
                            file=str(output))


def other_file(folder: str | os.PathLike[str], allowed: Iterable[str] = ()) -> Path | None:
    """The first file found under ``folder`` that is neither the temporary file of a
    killed run (:data:`TEMPORARY`) nor one of ``allowed`` (paths relative to ``folder``,
    ``/``-separated); None when there is none (or no such folder). Stops at the first:
    a large folder is not walked whole."""
    root = Path(folder)
    known = set(allowed)
    for p in root.rglob("*") if root.is_dir() else ():
        rel = p.relative_to(root).as_posix()
        if not p.is_dir() and not TEMPORARY.match(rel) and rel not in known:
            return p
    return None


def names_within(folder: str | os.PathLike[str],
                 files: Iterable[str | os.PathLike[str] | None]) -> list[str]:
    """The paths, relative to ``folder`` and ``/``-separated, of those ``files`` that lie
    inside it (a command's other outputs written into its output folder: the names
    :func:`check_new_folder` lets through). Nones are skipped. O(files)."""
    root = Path(os.path.realpath(folder))
    out = []
    for f in files:
        if f is not None:
            p = Path(os.path.realpath(f))
            if root in p.parents:
                out.append(p.relative_to(root).as_posix())
    return out


def check_new_folder(path: str | os.PathLike[str], names: Iterable[str] | None = None, *,
                     overwrite: bool = False, option: str = "--overwrite") -> None:
    """Bad input, naming the file, unless the output folder ``path`` may receive the
    files ``names`` (relative, ``/``-separated) without replacing or mixing with a file
    of the user's: the folder is new or empty (a killed run's temporary files aside); with
    ``overwrite`` (the flag ``option``) it may also hold files of those names, an earlier
    run's output, which the run replaces — any other file is refused. ``names`` None (the
    names are not known yet): with ``overwrite`` every file is let through, to be checked
    again once they are. The rule of ``prefcert generate`` and its ``--overwrite``, for
    every command writing a folder of files. O(files in the folder)."""
    if overwrite:
        if names is None:
            return
        other = other_file(path, names)
        if other is not None:
            raise InstanceError(f"the output folder holds a file this run does not write "
                                f"({option} replaces only the files of the same names an "
                                f"earlier run wrote; move it away, or write elsewhere)",
                                file=str(other))
        return
    other = other_file(path)
    if other is not None:
        raise InstanceError(f"the output folder is not empty: a file would be replaced or "
                            f"mixed with the output (write into a new or empty folder, or "
                            f"pass {option} to replace an earlier run's files)",
                            file=str(other))


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:                           # some filesystems refuse it on a folder
        pass
    finally:
        os.close(fd)


def _temporary(folder: Path, name: str, flags: int = os.O_WRONLY) -> tuple[Path, int]:
    """A new, empty temporary file beside ``name`` in ``folder`` (its own random name, so
    concurrent runs never share one), opened with ``flags``."""
    from secrets import token_hex            # imported only when a file is rewritten
    while True:
        tmp = folder / f".{name}.{token_hex(4)}{_TMP}"
        try:
            return tmp, os.open(tmp, flags | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


@contextmanager
def _staged(path: Path, binary: bool) -> Iterator[tuple[IO[Any], Path]]:
    """A temporary file beside ``path``, written in the block, flushed and fsynced; the
    temporary file is removed when the block fails (and the error is an InstanceError
    naming ``path`` when it is an OSError)."""
    try:
        tmp, fd = _temporary(_folder(path), path.name)
    except OSError as e:
        raise InstanceError(f"cannot write the output ({_reason(e)})", file=str(path)) from None
    try:
        f = os.fdopen(fd, "wb") if binary else \
            os.fdopen(fd, "w", encoding="utf-8", newline="")
        with f:
            yield f, tmp
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        _unlink(tmp)
        raise InstanceError(f"cannot write the output ({_reason(e)})", file=str(path)) from None
    except BaseException:
        _unlink(tmp)
        raise


@contextmanager
def atomic(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO[Any]]:
    """Write the file ``path`` atomically: the block writes to the yielded file (text,
    UTF-8, or ``binary``), which replaces ``path`` only when the block ends without an
    error. On an error (an OSError becomes an InstanceError naming ``path``) or Ctrl-C
    nothing is left: no partial file, no temporary file, ``path`` unchanged."""
    p = Path(path)
    with _staged(p, binary) as (f, tmp):
        yield f
    try:
        os.replace(tmp, p)
    except OSError as e:
        _unlink(tmp)
        raise InstanceError(f"cannot write the output ({_reason(e)})", file=str(p)) from None
    _fsync_folder(_folder(p))


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Replace ``path`` by ``text`` (UTF-8) atomically (see :func:`atomic`)."""
    with atomic(path) as f:
        f.write(text)


def write_jsonl(path: str | os.PathLike[str], rows: Iterable[Any], dumps) -> None:
    """Replace ``path`` by one ``dumps(row)`` line per row, atomically."""
    with atomic(path) as f:
        for r in rows:
            f.write(dumps(r) + "\n")


# ------------------------------------------------------------------------------ locks

def _lock(fd: int, what: str, path: Path) -> None:
    """An exclusive ``flock`` on ``fd`` without waiting; bad input naming ``path`` when
    another process holds it. Where ``fcntl`` is missing (Windows) no lock is taken."""
    try:
        import fcntl
    except ImportError:                       # pragma: no cover - Windows
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        os.close(fd)
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise InstanceError(f"another {what} run is writing this output; wait for it "
                                f"to finish, or write elsewhere", file=str(path)) from None
        raise InstanceError(f"cannot lock the output ({_reason(e)})", file=str(path)) from None


class OutputFolder:
    """A folder of output files written together (a generated benchmark), held under a
    lock (``flock`` on the folder) from creation to the end of the run.

    :meth:`write` stages each file as a temporary file in the folder; :meth:`commit`
    renames them all into place. Leaving the ``with`` block without committing (an
    error, Ctrl-C) removes the staged files, and the folder itself when this run created
    it and it is empty. ``what`` names the command in the lock's message."""

    def __init__(self, path: str | os.PathLike[str], what: str):
        self.path = Path(path)
        self.what = what
        self.staged: list[tuple[Path, Path]] = []
        self.created: list[Path] = []
        self.fd: int | None = None
        missing = []
        p = self.path
        while not p.exists():
            missing.append(p)
            if p == _folder(p):
                break
            p = _folder(p)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            self.created = missing
            fd = os.open(self.path, os.O_RDONLY)
        except OSError as e:
            self._remove_created()
            raise InstanceError(f"cannot create the output folder ({_reason(e)})",
                                file=str(self.path)) from None
        try:
            _lock(fd, what, self.path)
        except InstanceError:
            self._remove_created()
            raise
        self.fd = fd

    def __enter__(self) -> OutputFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def file(self, name: str, *, binary: bool = False) -> Iterator[IO[Any]]:
        """Stage the file ``name`` of the folder: the block writes it (see :func:`atomic`);
        it takes its place at :meth:`commit`."""
        final = self.path / name
        with _staged(final, binary) as (f, tmp):
            yield f
        self.staged.append((tmp, final))

    def write(self, name: str, text: str) -> None:
        with self.file(name) as f:
            f.write(text)

    def commit(self) -> None:
        """Rename every staged file into place (each atomically), then sync the folder."""
        try:
            while self.staged:
                tmp, final = self.staged[0]
                os.replace(tmp, final)
                self.staged.pop(0)
        except OSError as e:
            raise InstanceError(f"cannot write the output ({_reason(e)})",
                                file=str(self.staged[0][1])) from None
        self.created = []
        _fsync_folder(self.path)

    def _remove_created(self) -> None:
        for p in self.created:                # innermost first; only empty ones go
            try:
                p.rmdir()
            except OSError:
                break

    def close(self) -> None:
        """Release the lock; without a commit, remove what this run staged or created."""
        for tmp, _ in self.staged:
            _unlink(tmp)
        self.staged = []
        self._remove_created()
        self.created = []
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


# ------------------------------------------------------------------------ append files

def append_line(fd: int, line: str, *, sync: bool = True) -> None:
    """Append ``line`` to the open file ``fd`` (opened with ``O_APPEND``) whole, and sync
    it (unless ``sync`` is False: the caller syncs a group of lines, see
    :class:`AppendFile`): on a short or failed write (a full disk) the file is cut back to
    its previous length and an OSError is raised, so that no partial line is ever left.
    The one append path of the package (labels, disagreement reports)."""
    data = line.encode("utf-8")
    start = os.fstat(fd).st_size
    try:
        done = 0
        while done < len(data):
            done += os.write(fd, data[done:])
        if sync:
            os.fsync(fd)
    except BaseException:
        try:
            os.ftruncate(fd, start)
        except OSError:
            pass
        raise


def append_to(path: str | os.PathLike[str], line: str) -> None:
    """Append one whole line to ``path`` (created if missing) without a lock: see
    :func:`append_line`. OSError when it cannot."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
    try:
        append_line(fd, line)
    finally:
        os.close(fd)


class AppendFile:
    """A JSONL output appended to over a whole run and resumed by the next, held under an
    exclusive lock (``flock`` on the file) for the whole run.

    Lines are written whole at once (a killed process loses none that :meth:`write_line`
    returned) and synced to disk in groups: every :attr:`SYNC_LINES` lines or
    :attr:`SYNC_SECONDS` seconds, and at :meth:`close` (Ctrl-C and errors included). A
    machine crash loses at most the last group and may tear its last line, which a resume
    drops and recomputes; nothing is ever duplicated. One ``fsync`` per label cost 85× the
    labelling of small instances (issue 24).

    A second run on the same file is bad input instead of writing every line twice.
    When :meth:`replace` rewrites the file (atomic rename), the new file is locked before
    it replaces the old one, and a run that locked a file since replaced retries on the
    current one, so two runs never both hold the path. ``what`` names the command in the
    lock's message."""

    SYNC_LINES = 256
    SYNC_SECONDS = 1.0

    def __init__(self, path: str | os.PathLike[str], what: str):
        self.path = Path(path)
        self.what = what
        self.created = not self.path.exists()
        self.fd = self._open_locked()
        self.unsynced = 0
        self.synced_at = time.monotonic()

    def _open_locked(self) -> int:
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o666)
            except OSError as e:
                raise InstanceError(f"cannot write the output file ({_reason(e)})",
                                    file=str(self.path)) from None
            _lock(fd, self.what, self.path)
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                return fd
            os.close(fd)                      # replaced while we waited: lock the new one

    def read(self) -> str:
        """The file's text (UTF-8); InstanceError when it cannot be read."""
        try:
            with open(self.path, "rb") as f:
                return f.read().decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise InstanceError(f"cannot read the output file to resume "
                                f"({e.__class__.__name__})", file=str(self.path)) from None

    def replace(self, text: str) -> None:
        """Atomically replace the file's content, keeping the lock (see the class doc)."""
        try:
            tmp, fd = _temporary(_folder(self.path), self.path.name,
                                 os.O_RDWR | os.O_APPEND)
        except OSError as e:
            raise InstanceError(f"cannot rewrite the output file to resume ({_reason(e)})",
                                file=str(self.path)) from None
        try:
            _lock(fd, self.what, tmp)
            try:
                append_line(fd, text)
                os.replace(tmp, self.path)
            except BaseException:
                os.close(fd)
                raise
        except OSError as e:
            _unlink(tmp)
            raise InstanceError(f"cannot rewrite the output file to resume ({_reason(e)})",
                                file=str(self.path)) from None
        except BaseException:
            _unlink(tmp)
            raise
        os.close(self.fd)
        self.fd = fd

    def write_line(self, line: str) -> None:
        """Append one whole line (see :func:`append_line`); InstanceError when it cannot
        be written (the file keeps every line written before)."""
        try:
            append_line(self.fd, line, sync=False)
            self.unsynced += 1
            if self.unsynced >= self.SYNC_LINES or \
                    time.monotonic() - self.synced_at >= self.SYNC_SECONDS:
                self.sync()
        except OSError as e:
            raise InstanceError(f"cannot write to the output file ({_reason(e)})",
                                file=str(self.path)) from None

    def sync(self) -> None:
        """Flush the lines written since the last sync to disk (``fsync``)."""
        if self.unsynced:
            os.fsync(self.fd)
        self.unsynced = 0
        self.synced_at = time.monotonic()

    def close(self) -> None:
        """Release the lock; a file this run created and left empty (nothing could be
        written) is removed; the last group of lines is synced first."""
        try:
            try:
                self.sync()
            except OSError:
                pass                          # every line is written; only durability is lost
            if self.created and os.fstat(self.fd).st_size == 0:
                _unlink(self.path)
        finally:
            os.close(self.fd)
