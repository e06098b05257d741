"""Instances and their JSON formats: :class:`Instance`, JSON files (one instance) and JSONL
files (one per line).

Every error is an :class:`InstanceError` naming the file, the line and the value. PrefLib
files are read by :mod:`formal.preflib`; :mod:`formal.files` maps each suffix to its reader
and reads files and folders.
"""
from __future__ import annotations

import codecs
import hashlib
import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from itertools import accumulate, chain, compress, repeat
from operator import getitem, is_, setitem
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

from .errors import InstanceError, Verbatim


@dataclass(frozen=True)
class Instance:
    """One instance as read: its raw JSON object and where it came from.

    ``line`` is the 1-based line of a JSONL file (None for a whole-file JSON or PrefLib file).
    ``sha256`` hashes the canonical JSON of ``data`` so labels can be tied to it;
    ``size`` is that JSON's length (the size measure of the cross-check budget,
    :mod:`prefcert.formal.budget`).
    """

    id: str
    domain: str
    data: dict[str, Any]
    file: str
    line: int | None = None
    sha256: str = field(default="", compare=False)
    overridden: tuple[str, ...] = field(default=(), compare=False)   # conventions set by
                                                                      # with_readings
    size: int = field(default=0, compare=False)

    @property
    def questions(self) -> list[Any] | None:
        q = self.data.get("questions")
        return list(q) if q is not None else None

    @property
    def where(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line}


def label_key(iid: str, asked: Any) -> tuple[str, str]:
    """The identity of a label: its instance id and its question as asked (canonical
    JSON: ``json.dumps(asked, sort_keys=True)``; a question name, the common case, by the
    encoder's own string escaping). A labels file holds one label per key."""
    if asked.__class__ is str:
        return iid, _encode_key(asked)
    return iid, json.dumps(asked, sort_keys=True)


def compact_encoder(sort_keys: bool = False) -> Callable[[Any], str]:
    """``json.dumps(value, sort_keys=sort_keys, separators=(",", ":"))`` with the encoder
    made once: the C encoder of the standard library (when there is one) called directly,
    without the check for circular references (a value built from JSON, such as an
    instance or a label, has none: a cycle would end in RecursionError rather than
    ValueError). The same text. O(size)."""
    enc = json.JSONEncoder(sort_keys=sort_keys, separators=(",", ":"), check_circular=False)
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:                                    # no C accelerator
        return enc.encode
    c = make(None, enc.default, json.encoder.encode_basestring_ascii, None, ":", ",",
             sort_keys, False, True)
    join = "".join
    return lambda value: join(c(value, 0))


def canonical_sha256(data: dict[str, Any]) -> str:
    return _canonical(data)[0]


#: The raw size (bytes of its JSON text as read) up to which an instance's canonical JSON
#: is encoded in one C call rather than in pieces (:func:`_canonical`).
ONE_ENCODE_BYTES = 1 << 16

#: ``json.dumps(value, sort_keys=True, separators=(",", ":"))``, the encoder made once
_CANONICAL_TEXT = compact_encoder(sort_keys=True)


def _canonical(data: dict[str, Any], raw_size: int | None = None) -> tuple[str, int]:
    """(SHA-256, length) of the canonical JSON of ``data``: the text of ``json.dumps(data,
    sort_keys=True, separators=(",", ":"))`` (ASCII, so its length in characters is its
    length in bytes), hashed piece by piece (:func:`canonical_pieces`) without holding it.
    ``raw_size``: the bytes of the JSON text ``data`` was decoded from, when known; up to
    :data:`ONE_ENCODE_BYTES` the text is made by one call of the encoder instead (the
    same text: about 3x faster on a small instance, whose lists of tie groups the pieces
    would encode one ``json.dumps`` each; the canonical text of so small an input is a
    few times its size at most: escapes, numbers written out). O(size)."""
    if raw_size is not None and raw_size <= ONE_ENCODE_BYTES:
        text = _CANONICAL_TEXT(data)
        return hashlib.sha256(text.encode("ascii")).hexdigest(), len(text)
    h = hashlib.sha256()
    size = 0
    for piece in canonical_pieces(data):
        h.update(piece.encode("ascii"))
        size += len(piece)
    return h.hexdigest(), size


#: how deep :func:`canonical_pieces` descends into objects itself (below, ``json.dumps``)
_CANONICAL_DEPTH = 4


def canonical_pieces(value: Any, depth: int = 0) -> Iterator[str]:
    """The canonical JSON text of ``value`` (sorted keys, no white space, ASCII: exactly
    ``json.dumps(value, sort_keys=True, separators=(",", ":"))``), in pieces whose
    concatenation is that text. A list of plain strings — printable ASCII without a quote
    or a backslash, the names of nearly every instance — is one ``str.join`` (about five
    times faster than the encoder, which escapes each string); objects are descended into
    up to :data:`_CANONICAL_DEPTH` levels where that pays (:func:`_worth_descending`);
    anything else is ``json.dumps`` itself. O(size of the text)."""
    if value.__class__ is dict and depth < _CANONICAL_DEPTH and _worth_descending(value):
        sep = "{"
        for k in sorted(value):
            yield sep + _encode_key(k) + ":"
            yield from canonical_pieces(value[k], depth + 1)
            sep = ","
        yield "{}" if sep == "{" else "}"
        return
    if value.__class__ is list and value:
        plain = _plain_strings(value)
        if plain is not None:
            yield plain
            return
    yield json.dumps(value, sort_keys=True, separators=(",", ":"))


#: the encoder's own string escaping (C): ``json.dumps`` of a string, ASCII
_encode_key = json.encoder.encode_basestring_ascii


def _worth_descending(d: dict[Any, Any]) -> bool:
    """Whether :func:`canonical_pieces` writes the object ``d`` piece by piece: its keys
    are strings and it is small (an instance's top level) or its lists average at least 8
    entries (a preference profile); else one ``json.dumps`` is faster (many short values:
    an endowment, short lists), the Python work per key outweighing the join's saving."""
    if not all(k.__class__ is str for k in d):
        return False
    return len(d) <= 64 or sum(len(v) for v in d.values() if v.__class__ is list) \
        >= 8 * len(d)


def _plain_strings(v: list[Any]) -> str | None:
    """``json.dumps(v)`` of a non-empty list of strings that need no escaping (printable
    ASCII, no ``"`` and no ``\\``), else None. Three C-level scans of the joined text:
    the quotes it holds are exactly the separators' (2 per gap), no backslash, printable
    ASCII (``isprintable`` also turns DEL away, which JSON would write as is: that list
    merely takes the encoder's path)."""
    try:
        joined = '","'.join(v)
    except TypeError:                       # an entry that is not a string
        return None
    if joined.isascii() and joined.isprintable() and "\\" not in joined \
            and joined.count('"') == 2 * len(v) - 2:
        return '["' + joined + '"]'
    return None


def from_object(obj: Any, file: str, line: int | None, default_id: str, *,
                raw_size: int | None = None) -> Instance:
    """The :class:`Instance` of a decoded JSON object (InstanceError when it is not one:
    no object, no string ``domain``, an empty ``id``, ``questions`` not a list);
    ``raw_size``: the bytes of its JSON text as read, when known (see :func:`_canonical`)."""
    if not isinstance(obj, dict):
        raise InstanceError("an instance must be a JSON object", file=file, line=line,
                            value=Verbatim("null") if obj is None else obj)
    domain = obj.get("domain")
    if not isinstance(domain, str):
        raise InstanceError("missing or non-string 'domain'", file=file, line=line, value=domain)
    iid = obj.get("id", default_id)
    if not isinstance(iid, str) or not iid:
        raise InstanceError("'id' must be a non-empty string", file=file, line=line, value=iid)
    q = obj.get("questions")
    if q is not None and not isinstance(q, list):
        raise InstanceError("'questions' must be a list", file=file, line=line, value=q)
    sha, size = _canonical(obj, raw_size)
    return Instance(iid, domain, obj, file, line, sha, size=size)


def with_readings(inst: Instance, *, semantics: str | None = None,
                  conventions: dict[str, str] | None = None) -> Instance:
    """The instance under overridden readings: ``semantics`` (of incomplete preference
    lists) and ``conventions`` (name -> choice) set in its data, re-hashed, so a label
    made under them is tied to them. O(size)."""
    data = dict(inst.data)
    if semantics is not None:
        data["semantics"] = semantics
    if conventions:
        own = data.get("conventions")
        data["conventions"] = {**(own if isinstance(own, dict) else {}), **conventions}
    out = from_object(data, inst.file, inst.line, inst.id)
    return replace(out, overridden=tuple(sorted({*inst.overridden, *(conventions or {})})))


#: what a path that is not a regular file is, by its ``stat`` mode (for the error line)
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def not_a_file(mode: int) -> str | None:
    """What a ``stat`` mode is when it is not a regular file ("a folder", "a FIFO (named
    pipe)", "a character device", ...), else None."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def _open(path: Path, limit: int | None) -> tuple[BinaryIO, int]:
    """``path`` opened for reading in binary, with its size; InstanceError when it cannot
    be opened, is not a regular file (a folder, a FIFO, a device such as ``/dev/zero``:
    refused before a byte is read, and a FIFO is opened without waiting for a writer) or
    is larger than ``limit`` bytes (checked before anything is read)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_BINARY", 0))
    except IsADirectoryError:
        raise InstanceError("a folder, not a file", file=str(path)) from None
    except OSError as e:
        raise InstanceError(f"cannot read the file ({e.strerror})", file=str(path)) from None
    info = os.fstat(fd)
    kind = not_a_file(info.st_mode)
    if kind is not None:
        os.close(fd)
        raise InstanceError(f"{kind}, not a file", file=str(path))
    if getattr(os, "O_NONBLOCK", 0):
        os.set_blocking(fd, True)          # a regular file: reads as usual
    f = os.fdopen(fd, "rb")
    size = info.st_size
    if limit is not None and size > limit:
        f.close()
        raise InstanceError(f"the file is larger than the size limit ({size} > {limit} "
                            f"bytes)", file=str(path))
    return f, size


def _not_utf8(path: Path, raw: bytes, e: UnicodeDecodeError, line: int) -> InstanceError:
    return InstanceError("not UTF-8 text", file=str(path),
                         line=line + raw[:e.start].count(b"\n"),
                         value=raw[e.start:e.start + 8])


def _nul(path: Path, raw: bytes, line: int) -> InstanceError:
    return InstanceError("not a text file (a NUL byte)", file=str(path),
                         line=line + raw[:raw.index(b"\0")].count(b"\n"))


_CHUNK = 1 << 24


def read_text(path: Path, limit: int | None = None) -> str:
    """A file's UTF-8 text, held once: decoded chunk by chunk and appended to one string,
    which CPython grows in place while it is the only reference (the file's bytes and
    the whole text never coexist; peak memory is the text plus one chunk). InstanceError
    naming the line of the first byte that is not UTF-8 or is NUL (no text format has
    one), the reason the file cannot be read, or a size above ``limit`` bytes."""
    f, _ = _open(path, limit)
    decoder = codecs.getincrementaldecoder("utf-8")()
    text, total, line = "", 0, 1
    with f:
        while True:
            try:
                raw = f.read(_CHUNK)
            except OSError as e:
                raise InstanceError(f"cannot read the file ({e.strerror})",
                                    file=str(path)) from None
            total += len(raw)
            if limit is not None and total > limit:    # a file that misstated its size
                raise InstanceError(f"the file is larger than the size limit ({limit} "
                                    f"bytes)", file=str(path))
            if b"\0" in raw:
                raise _nul(path, raw, line)
            try:
                text += decoder.decode(raw, final=not raw)
            except UnicodeDecodeError as e:
                raise _not_utf8(path, e.object, e, line) from None
            if not raw:
                return text
            line += raw.count(b"\n")


#: The byte-order mark some editors write at the start of a UTF-8 file: skipped there.
BOM = "\ufeff"

#: what a JSON text may start with (after white space): ``json`` says "Expecting value"
#: for anything else, found here without decoding the rest of the file
_JSON_START = re.compile(rb'[ \t\r\n]*(?:\xef\xbb\xbf)?[ \t\r\n]*[{\["0-9tfnNI-]|[ \t\r\n]*\Z')


def _json_start(path: Path, raw: bytes, line: int | None = None) -> None:
    if not _JSON_START.match(raw):
        raise InstanceError("malformed JSON (Expecting value)", file=str(path),
                            line=line or 1 + raw[:64].count(b"\n"))


#: a JSON number token (for finding a value in the text it was read from)
_NUMBER = re.compile(r"(?<![\w.+-])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])")


def _leaves(value: object) -> Iterator[object]:
    """The scalars of a decoded JSON value, in order (depth-first)."""
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _value_needle(value: object) -> re.Pattern[str] | None:
    """A pattern of the JSON text of the scalar ``value`` as it may be written (a number
    in any of its spellings: ``1e13`` for ``10000000000000.0``), None for a container."""
    if isinstance(value, bool) or value is None:
        return re.compile(r"(?<![\w\"])" + json.dumps(value) + r"(?![\w\"])")
    if isinstance(value, (int, float)):
        return _NUMBER
    if isinstance(value, str):
        return re.compile(re.escape(json.dumps(value)))
    return None


def _holds(text: str, needle: re.Pattern[str], value: object) -> bool:
    if needle is not _NUMBER:
        return needle.search(text) is not None
    return any(_same_number(m.group(), value) for m in needle.finditer(text))


def _same_number(token: str, value: object) -> bool:
    try:
        return (float(token) if any(c in token for c in ".eE") else int(token)) == value
    except (ValueError, OverflowError):
        return False


def locate(file: str, agent: str | None, value: object) -> int | None:
    """The line of a whole-file JSON instance where an error's agent is defined (its
    ``"name":`` key), else where its value first appears (its first scalar, for a list or
    an object; a number in any spelling), else 1 for a file of one line; None when none
    of these is found. Used only to locate an error, so it reads the file again.
    O(file size)."""
    try:
        lines = Path(file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    checks: list[Callable[[str], bool]] = []
    if agent is not None:
        key = re.compile(re.escape(json.dumps(agent)) + r"\s*:")
        checks.append(lambda t: key.search(t) is not None)
    leaf = next(_leaves(value), None) if value is not None else None
    needle = _value_needle(leaf) if value is not None else None
    if needle is not None:
        checks.append(lambda t: _holds(t, needle, leaf))
    for check in checks:
        for i, text in enumerate(lines, 1):
            if check(text):
                return i
    filled = [i for i, t in enumerate(lines, 1) if t.strip()]
    return filled[0] if len(filled) == 1 else None


def as_written(e: InstanceError) -> InstanceError:
    """``e`` with the numbers of its value shown as its file's line writes them (``1e13``,
    not Python's ``10000000000000.0``: :class:`~formal.errors.Verbatim`); ``e`` itself when
    its value holds no float or its line is not known. Used only for an error line, so
    it reads that line again. O(the file up to that line)."""
    if e.file is None or e.line is None or not any(
            isinstance(x, float) for x in _leaves(e.value)):
        return e
    try:
        with open(e.file, encoding="utf-8", errors="replace") as f:
            text = next((t for i, t in enumerate(f, 1) if i == e.line), "")
    except OSError:
        return e
    tokens = [t for t in (m.group() for m in _NUMBER.finditer(text))
              if any(c in t for c in ".eE")]           # the spellings of a float

    def written(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: written(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [written(x) for x in v]
        if isinstance(v, float):
            return next((Verbatim(t) for t in tokens if _same_number(t, v)), v)
        return v
    return InstanceError(e.message, file=e.file, line=e.line, agent=e.agent,
                         value=written(e.value))


def read_json(path: Path, limit: int | None = None) -> list[Instance]:
    """The one instance of a JSON file (see :func:`read_text` for ``limit``). A file that
    cannot start a JSON text is refused from its first bytes. O(file size)."""
    f, size = _open(path, limit)
    with f:
        head = f.read(64)
    _json_start(path, head)
    text = read_text(path, limit)
    if text.startswith(BOM):
        text = text[1:]
    obj = parse_json(text, str(path), hook=shared_strings())
    del text                          # a big instance's text is not kept while hashing it
    try:
        return [from_object(obj, str(path), None, path.stem)]
    except InstanceError as e:        # an error of the whole object: where its value is
        raise e.located(line=locate(str(path), e.agent, e.value)) from None



def shared_strings() -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """A ``json.loads`` object hook that makes equal strings one object as each object is
    decoded: its keys, and the strings of its list values and of the lists in them. A big
    instance's lists name the same few agents millions of times and ``json`` makes a new
    string for each, so the decoded data would hold them all at once (about 55 bytes a
    string: 110 MB for two million list entries); shared, they are freed as each object
    is decoded, and the names in the lists are the very objects of the agents' keys
    (later look-ups compare by identity). The data is equal, so its hash is unchanged.

    The strings are shared through the hook's own dict (one per read, freed with the
    hook), which is cheaper than ``sys.intern``: a list of strings is one C-level
    ``map(memo.setdefault, …)`` after a C-level type check (``"".join`` refuses a list
    holding anything but strings, so no number meets the dict, where 1, 1.0 and True are
    one key); a list with ties or other values goes entry by entry for its own items,
    then its tie groups at once when they hold only strings (:func:`_shared_groups`).
    O(size).
    """
    memo: dict[str, str] = {}
    share = memo.setdefault

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        for _, v in pairs:
            if v.__class__ is list and v:
                try:
                    "".join(v)                 # the type check: strings only
                except TypeError:              # a tie group, a number, …
                    v[:] = [share(e, e) if e.__class__ is str else e for e in v]
                    _shared_groups(v, share)
                else:
                    v[:] = map(share, v, v)
        keys = [k for k, _ in pairs]
        out = dict(zip(map(share, keys, keys), [v for _, v in pairs]))
        if len(out) < len(pairs):
            _duplicate(pairs)
        return out
    return hook


DUPLICATE = "a key appears twice in one object (JSON would keep only the last)"


class DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _duplicate(pairs: list[tuple[str, Any]]) -> None:
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise DuplicateKey(k)
        seen.add(k)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object hook of JSONL lines: a repeated key is bad input, not last-one-wins."""
    out = dict(pairs)
    if len(out) < len(pairs):
        _duplicate(pairs)
    return out


def _shared_groups(v: list[Any], share: Callable[[str, str], str]) -> None:
    """The strings of the lists in ``v`` (tie groups) shared: when they are all strings,
    at C level (one type check and one ``map`` over them all, then each group given its
    slice of the result), else group by group (:func:`_shared_tie`). O(their number)."""
    groups = list(compress(v, map(is_, map(type, v), repeat(list))))
    flat = list(chain.from_iterable(groups))
    try:
        "".join(flat)                          # the type check: strings only
    except TypeError:
        for e in groups:
            _shared_tie(e, share)
        return
    ends = list(accumulate(map(len, groups)))
    list(map(setitem, groups, repeat(_WHOLE),
             map(getitem, repeat(list(map(share, flat, flat))), map(slice, [0, *ends], ends))))


_WHOLE = slice(None)


def _shared_tie(e: list[Any], share: Callable[[str, str], str]) -> list[Any]:
    if all(x.__class__ is str for x in e):
        e[:] = map(share, e, e)
    return e


def read_jsonl(path: Path, limit: int | None = None) -> list[Instance]:
    """The instances of a JSONL file, one per line, read one line at a time (see
    :func:`read_text` for ``limit``). Lines end at ``\\n`` only. O(file size)."""
    out = []
    f, _ = _open(path, limit)
    file, stem = str(path), path.stem          # once per file, not per line
    with f:
        for i, raw in enumerate(_lines(f, path, limit), 1):
            if not raw.strip():
                continue
            if b"\0" in raw:
                raise _nul(path, raw, i)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise _not_utf8(path, raw, e, i) from None
            if i == 1 and text.startswith(BOM):
                text = text[1:]
            _json_start(path, raw, i)
            obj = parse_json(text, file, i)
            out.append(from_object(obj, file, i, f"{stem}-{i}", raw_size=len(raw)))
    if not out:
        raise InstanceError("file holds no instances", file=str(path))
    return out


def _lines(f: BinaryIO, path: Path, limit: int | None) -> Iterator[bytes]:
    """The lines of the binary file ``f``, in at most ``limit`` bytes in all."""
    total = 0
    try:
        for line in f:
            total += len(line)
            if limit is not None and total > limit:
                raise InstanceError(f"the file is larger than the size limit ({limit} "
                                    f"bytes)", file=str(path))
            yield line
    except OSError as e:
        raise InstanceError(f"cannot read the file ({e.strerror})", file=str(path)) from None


#: ``json.loads(text, object_pairs_hook=_no_duplicates)`` is this decoder's ``decode(text)``
#: for a ``str`` that does not start with a byte-order mark (which ``json.loads`` refuses
#: first, by its own message); made once rather than once per JSONL line.
_UNIQUE_KEYS = json.JSONDecoder(object_pairs_hook=_no_duplicates)


def parse_json(text: str, file: str, line: int | None = None, *,
               hook: Callable[[list[tuple[str, Any]]], Any] | None = _no_duplicates) -> Any:
    """``json.loads(text, object_pairs_hook=hook)`` for one JSON text of a file (a whole
    file, or its line ``line``); every way it fails is an :class:`InstanceError` naming the
    file, the line and the text near the fault: malformed JSON, nesting too deep for the
    decoder, and a key repeated in one object (:class:`DuplicateKey`, raised by the hooks
    :func:`_no_duplicates` and :func:`shared_strings`; for a whole file, the line of the
    key's second use). O(len(text))."""
    try:
        if hook is _no_duplicates and text.__class__ is str and not text.startswith(BOM):
            return _UNIQUE_KEYS.decode(text)   # json.loads, without a decoder made per call
        return json.loads(text, object_pairs_hook=hook)
    except json.JSONDecodeError as e:
        raise InstanceError(f"malformed JSON ({e.msg})", file=file,
                            line=line if line is not None else e.lineno,
                            value=_near(text, e.pos)) from None
    except RecursionError:
        raise InstanceError("JSON nested too deeply", file=file,
                            line=line if line is not None else 1) from None
    except DuplicateKey as e:
        at = line
        if at is None:
            needle = json.dumps(e.key) + ":"
            hits = [n for n, t in enumerate(text.splitlines(), 1)
                    for _ in range(t.replace(" ", "").count(needle))]
            at = hits[1] if len(hits) > 1 else None
        raise InstanceError(DUPLICATE, file=file, line=at, value=e.key) from None


def _near(text: str, pos: int) -> str:
    return text[max(0, pos - 20):pos + 20]
