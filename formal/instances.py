"""Instances and their JSON formats: :class:`Instance`, JSON files (one instance) and JSONL
files (one per line).

Every error is an :class:`InstanceError` naming the file, the line and the value. PrefLib
files are read by :mod:`formal.preflib`; :mod:`formal.files` maps each suffix to its reader
and reads files and folders.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from sys import intern
from typing import Any

from .errors import InstanceError


@dataclass(frozen=True)
class Instance:
    """One instance as read: its raw JSON object and where it came from.

    ``line`` is the 1-based line of a JSONL file (None for a whole-file JSON or PrefLib file).
    ``sha256`` hashes the canonical JSON of ``data`` so labels can be tied to it.
    """

    id: str
    domain: str
    data: dict[str, Any]
    file: str
    line: int | None = None
    sha256: str = field(default="", compare=False)
    overridden: tuple[str, ...] = field(default=(), compare=False)   # conventions set by
                                                                      # with_readings

    @property
    def questions(self) -> list[Any] | None:
        q = self.data.get("questions")
        return list(q) if q is not None else None

    @property
    def where(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line}


def label_key(iid: str, asked: Any) -> tuple[str, str]:
    """The identity of a label: its instance id and its question as asked (canonical
    JSON). A labels file holds one label per key."""
    return iid, json.dumps(asked, sort_keys=True)


def canonical_sha256(data: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":"))
                          .encode()).hexdigest()


def from_object(obj: Any, file: str, line: int | None, default_id: str) -> Instance:
    if not isinstance(obj, dict):
        raise InstanceError("an instance must be a JSON object", file=file, line=line,
                            value=type(obj).__name__)
    domain = obj.get("domain")
    if not isinstance(domain, str):
        raise InstanceError("missing or non-string 'domain'", file=file, line=line, value=domain)
    iid = obj.get("id", default_id)
    if not isinstance(iid, str) or not iid:
        raise InstanceError("'id' must be a non-empty string", file=file, line=line, value=iid)
    q = obj.get("questions")
    if q is not None and not isinstance(q, list):
        raise InstanceError("'questions' must be a list", file=file, line=line, value=q)
    return Instance(iid, domain, obj, file, line, canonical_sha256(obj))


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


def read_text(path: Path) -> str:
    """A file's UTF-8 text; InstanceError naming the line of the first byte that is not
    UTF-8, or the reason the file cannot be read."""
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise InstanceError(f"cannot read the file ({e.strerror})", file=str(path)) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise InstanceError("not UTF-8 text", file=str(path), line=line,
                            value=raw[e.start:e.start + 8]) from None


def locate(file: str, agent: str | None, value: object) -> int | None:
    """The line of a whole-file JSON instance where an error's agent is defined (its
    ``"name":`` key), else where its value first appears; None when neither is found.
    Used only to locate an error, so it reads the file again. O(file size)."""
    try:
        lines = Path(file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    needles = []
    if agent is not None:
        needles.append(re.compile(re.escape(json.dumps(agent)) + r"\s*:"))
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        needles.append(re.compile(re.escape(json.dumps(value))))
    for needle in needles:
        for i, text in enumerate(lines, 1):
            if needle.search(text):
                return i
    return None


def read_json(path: Path) -> list[Instance]:
    text = read_text(path)
    try:
        obj = json.loads(text, object_pairs_hook=_shared_strings)
    except json.JSONDecodeError as e:
        raise InstanceError(f"malformed JSON ({e.msg})", file=str(path), line=e.lineno,
                            value=_near(text, e.pos)) from None
    except RecursionError:
        raise InstanceError("JSON nested too deeply", file=str(path)) from None
    except DuplicateKey as e:
        hits = [n for n, t in enumerate(text.splitlines(), 1)     # the key's second use
                for _ in range(t.replace(" ", "").count(json.dumps(e.key) + ":"))]
        raise InstanceError(DUPLICATE, file=str(path), line=hits[1] if len(hits) > 1 else None,
                            value=e.key) from None
    del text                          # a big instance's text is not kept while hashing it
    return [from_object(obj, str(path), None, path.stem)]


_STR, _STR_LIST = {str}, {str, list}


def _shared_strings(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The ``json.loads`` object hook that makes equal strings one object (``sys.intern``)
    as each object is decoded: its keys, and the strings of its list values and of the
    lists in them. A big instance's lists name the same few agents millions of times and
    ``json`` makes a new string for each, so the decoded data would hold them all at once
    (about 55 bytes a string: 110 MB for two million list entries); interned, they are
    freed as each object is decoded, and the names in the lists are the very objects of
    the agents' keys (later look-ups compare by identity). The data is equal, so its hash
    is unchanged. O(size): lists of strings at C speed, lists with ties item by item."""
    for _, v in pairs:
        if v.__class__ is list and v:
            types = set(map(type, v))
            if types <= _STR:
                v[:] = map(intern, v)
            elif list in types and types <= _STR_LIST:
                v[:] = [intern(e) if e.__class__ is str else _shared_tie(e) for e in v]
    out = dict(zip(map(intern, [k for k, _ in pairs]), [v for _, v in pairs]))
    if len(out) < len(pairs):
        _duplicate(pairs)
    return out


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


def _shared_tie(e: list[Any]) -> list[Any]:
    if set(map(type, e)) <= _STR:
        e[:] = map(intern, e)
    return e


def read_jsonl(path: Path) -> list[Instance]:
    out = []
    lines = read_text(path).splitlines()
    for i, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text, object_pairs_hook=_no_duplicates)
        except json.JSONDecodeError as e:
            raise InstanceError(f"malformed JSON ({e.msg})", file=str(path), line=i,
                                value=_near(text, e.pos)) from None
        except RecursionError:
            raise InstanceError("JSON nested too deeply", file=str(path), line=i) from None
        except DuplicateKey as e:
            raise InstanceError(DUPLICATE, file=str(path), line=i, value=e.key) from None
        out.append(from_object(obj, str(path), i, f"{path.stem}-{i}"))
    if not out:
        raise InstanceError("file holds no instances", file=str(path))
    return out


def _near(text: str, pos: int) -> str:
    return text[max(0, pos - 20):pos + 20]
