"""PrefLib ordinal files (``.soc .soi .toc .toi``): read, check, convert, write.

Format: PrefLib 2022 (``FORMAT_SPECIFICATION.md`` of PrefLib/PrefLib-Data; Mattei & Walsh,
"PrefLib: A Library of Preference Data", ADT 2013). A ``#`` header (``# KEY: value``) with
``NUMBER ALTERNATIVES``, ``NUMBER VOTERS``, ``NUMBER UNIQUE ORDERS`` and one
``ALTERNATIVE NAME i`` per alternative, then one line per distinct ballot,
``count: 3,{1,2},4`` (``,`` = strictly preferred, ``{..}`` = a tie, alternatives numbered
from 1). ``soc``: strict and complete; ``soi``: strict, possibly incomplete; ``toc``: ties,
complete; ``toi``: ties, possibly incomplete.

A file becomes ONE instance of domain ``preference`` (see :mod:`formal.preference`):
items are the alternative names (``"<name> (#i)"`` if a name occurs twice), each ballot
line is one agent ``V<line index>`` (1-based among ballot lines) with ``"count"`` its
multiplicity, incomplete ballots are read under the ``truncated`` semantics (unlisted
alternatives rank below the listed ones). The header is kept under ``"preflib"`` so that
:func:`write_preflib` writes the file back byte for byte.

This reader is our own (``preflibtools`` reports no line numbers for bad input); it is
checked by a round trip over every real file in ``shared/data/preflib``.
"""
from __future__ import annotations

import re
from pathlib import Path

from .errors import InstanceError
from .instances import BOM, Instance, from_object, read_text
from .preference import MAX_COUNT

SUFFIXES = (".soc", ".soi", ".toc", ".toi")
_HEADER = re.compile(r"^#\s*([^:]+?)\s*:\s?(.*)$")
_ALT = re.compile(r"^ALTERNATIVE NAME (\d+)$")


def _int(value: str, *, file: str, line: int, what: str) -> int:
    try:
        n = int(value.strip())
    except ValueError:
        raise InstanceError(f"{what} is not an integer", file=file, line=line,
                            value=value) from None
    if n < 0:
        raise InstanceError(f"{what} is negative", file=file, line=line, value=n)
    return n


def parse_preflib(text: str, *, file: str, suffix: str) -> dict:
    """Parse PrefLib text into ``{"header": [(key, value, line)...], "alternatives": {i: name},
    "ballots": [(count, ties, line)]}`` with ``ties`` a list of lists of 1-based ints.

    Raises :class:`InstanceError` naming ``file``, the 1-based line and the value for: a
    malformed line, a header count (alternatives, voters, unique orders) that disagrees with
    the body, an unknown alternative, an alternative listed twice in a ballot, a tie in a
    strict file (soc/soi) or an incomplete ballot in a complete one (soc/toc). O(file size).
    """
    header: list[tuple[str, str, int]] = []
    alts: dict[int, str] = {}
    ballots: list[tuple[int, list[list[int]], int]] = []
    declared: dict[str, tuple[int, int]] = {}
    first: dict[str, int] = {}              # a header key -> the line it is first given on
    for ln, raw in enumerate(text.splitlines(), 1):
        if raw.startswith("#"):
            m = _HEADER.match(raw)
            if not m:
                raise InstanceError("malformed header line", file=file, line=ln, value=raw)
            key, val = m.group(1), m.group(2)
            if key in first and not _ALT.match(key):
                raise InstanceError(f"header line given twice (first on line {first[key]})",
                                    file=file, line=ln, value=raw)
            first.setdefault(key, ln)
            header.append((key, val, ln))
            am = _ALT.match(key)
            if am:
                i = int(am.group(1))
                if i in alts:
                    raise InstanceError("alternative declared twice", file=file, line=ln, value=i)
                alts[i] = val
            elif key in ("NUMBER ALTERNATIVES", "NUMBER VOTERS", "NUMBER UNIQUE ORDERS",
                         "NUMBER UNIQUE PREFERENCES"):
                declared[key] = (_int(val, file=file, line=ln, what=key), ln)
            continue
        if not raw.strip():
            continue
        if ballots == [] and "NUMBER ALTERNATIVES" not in declared:
            raise InstanceError("ballot before the NUMBER ALTERNATIVES header", file=file,
                                line=ln, value=raw)
        cnt, sep, body = raw.partition(":")
        if not sep:
            raise InstanceError("ballot line is not 'count: order'", file=file, line=ln, value=raw)
        count = _int(cnt, file=file, line=ln, what="ballot count")
        if not 1 <= count <= MAX_COUNT:
            raise InstanceError(f"ballot count must be an integer from 1 to {MAX_COUNT}",
                                file=file, line=ln, value=count)
        ties = _parse_order(body, file=file, line=ln)
        ballots.append((count, ties, ln))
    n_alt, ln_alt = declared.get("NUMBER ALTERNATIVES", (None, None))
    if n_alt is None:
        raise InstanceError("missing header NUMBER ALTERNATIVES", file=file,
                            line=len(text.splitlines()) or 1)
    if not ballots:
        raise InstanceError("no ballot line ('count: order') after the header", file=file,
                            line=len(text.splitlines()) or 1)
    # the declared number is compared with the names' count first: it never decides the
    # size of a list (10**32 alternatives declared over two names is one line, at once)
    if n_alt != len(alts) or sorted(alts) != list(range(1, len(alts) + 1)):
        raise InstanceError(f"NUMBER ALTERNATIVES is {n_alt} but the ALTERNATIVE NAME lines "
                            f"number {sorted(alts)[:5]}...", file=file, line=ln_alt, value=n_alt)
    strict, complete = suffix in (".soc", ".soi"), suffix in (".soc", ".toc")
    for count, ties, ln in ballots:
        seen: set[int] = set()
        for tie in ties:
            if strict and len(tie) > 1:
                raise InstanceError(f"tie in a strict ({suffix}) file", file=file, line=ln,
                                    value="{" + ",".join(map(str, tie)) + "}")
            for a in tie:
                if not 1 <= a <= n_alt:
                    raise InstanceError("unknown alternative", file=file, line=ln, value=a)
                if a in seen:
                    raise InstanceError("alternative listed twice in a ballot", file=file,
                                        line=ln, value=a)
                seen.add(a)
        if complete and len(seen) != n_alt:
            raise InstanceError(f"incomplete ballot in a complete ({suffix}) file", file=file,
                                line=ln, value=sorted(set(range(1, n_alt + 1)) - seen)[:5])
    if "NUMBER VOTERS" in declared:
        n, ln = declared["NUMBER VOTERS"]
        total = sum(c for c, _, _ in ballots)
        if n != total:
            raise InstanceError(f"NUMBER VOTERS is {n} but the ballot counts sum to {total}",
                                file=file, line=ln, value=n)
    for key in ("NUMBER UNIQUE ORDERS", "NUMBER UNIQUE PREFERENCES"):
        if key in declared:
            n, ln = declared[key]
            if n != len(ballots):
                raise InstanceError(f"{key} is {n} but the body has {len(ballots)} ballot lines",
                                    file=file, line=ln, value=n)
    return {"header": header, "alternatives": alts, "ballots": ballots}


def _parse_order(body: str, *, file: str, line: int) -> list[list[int]]:
    ties: list[list[int]] = []
    s, i = body.strip(), 0
    if not s:
        return ties
    while i < len(s):
        if s[i] == "{":
            j = s.find("}", i)
            if j < 0:
                raise InstanceError("unclosed tie '{'", file=file, line=line, value=s[i:i + 20])
            parts = [p for p in s[i + 1:j].split(",")]
            if not any(p.strip() for p in parts):
                raise InstanceError("empty tie '{}'", file=file, line=line, value=s[i:j + 1])
            ties.append([_int(p, file=file, line=line, what="alternative") for p in parts])
            i = j + 1
        else:
            j = s.find(",", i)
            j = len(s) if j < 0 else j
            if not s[i:j].strip():             # "3,,1"
                raise _empty_entry(s, file, line)
            ties.append([_int(s[i:j], file=file, line=line, what="alternative")])
            i = j
        if i < len(s):
            if s[i] != ",":
                raise InstanceError("expected ',' between entries", file=file, line=line,
                                    value=s[i:i + 20])
            i += 1
            if i == len(s):                    # "3,1,2," ends in an empty entry
                raise _empty_entry(s, file, line)
    return ties


def _empty_entry(ballot: str, file: str, line: int) -> InstanceError:
    """An empty entry of a ballot: two commas in a row, or one at its start or end."""
    return InstanceError("empty entry in a ballot (two commas in a row, or a comma at its "
                         "start or end)", file=file, line=line, value=ballot)


def to_instance_dict(parsed: dict, *, iid: str, suffix: str) -> dict:
    """The ``preference`` instance (JSON-able dict) for a parsed PrefLib file.

    ``{"id", "domain": "preference", "items": [names], "semantics": "truncated",
    "profile": {"V<k>": {"order": [...], "count": c}}, "preflib": {"suffix", "header"}}``.
    """
    alts = parsed["alternatives"]
    names = list(alts.values())
    dup = {n for n in names if names.count(n) > 1}
    item = {i: (f"{a} (#{i})" if a in dup else a) for i, a in alts.items()}
    profile = {}
    for k, (count, ties, _ln) in enumerate(parsed["ballots"], 1):
        order = [item[t[0]] if len(t) == 1 else [item[a] for a in t] for t in ties]
        profile[f"V{k}"] = {"order": order, "count": count}
    return {"id": iid, "domain": "preference", "items": [item[i] for i in sorted(item)],
            "semantics": "truncated", "profile": profile,
            "preflib": {"suffix": suffix, "header": [[k, v] for k, v, _ in parsed["header"]]}}


def read_preflib(path: Path, limit: int | None = None) -> list[Instance]:
    """Read one PrefLib file as ONE ``preference`` instance (id = file stem).

    Raises :class:`InstanceError` (file, line, value) as :func:`parse_preflib`, and for a
    file that is not UTF-8 or is larger than ``limit`` bytes. O(file size).
    """
    path = Path(path)
    text = read_text(path, limit)
    if text.startswith(BOM):                   # as for JSON: an editor's byte-order mark
        text = text[1:]
    parsed = parse_preflib(text, file=str(path), suffix=path.suffix)
    data = to_instance_dict(parsed, iid=path.stem, suffix=path.suffix)
    return [from_object(data, str(path), None, path.stem)]


def preflib_text(data: dict) -> str:
    """Write a ``preference`` instance back as PrefLib text.

    Uses the kept header (``data["preflib"]["header"]``) when present, else writes a
    minimal header (data type from the ballots). Every agent must have an ``order``
    (weak order over items); its ``count`` defaults to 1. Items are numbered by their
    position in ``data["items"]`` (1-based). Raises InstanceError for an agent given as
    edges or choices (PrefLib has no format for them). O(size).
    """
    items = list(data["items"])
    num = {x: i for i, x in enumerate(items, 1)}
    lines = []
    for agent, spec in data["profile"].items():
        if not isinstance(spec, dict) or "order" not in spec:
            raise InstanceError("only weak orders can be written to PrefLib", agent=agent,
                                value=spec)
        parts = []
        for t in spec["order"]:
            if isinstance(t, list):
                parts.append("{" + ",".join(str(num[x]) for x in t) + "}")
            else:
                parts.append(str(num[t]))
        lines.append(f"{spec.get('count', 1)}: {','.join(parts)}")
    meta = data.get("preflib")
    if meta:
        head = [f"# {k}: {v}" for k, v in meta["header"]]
    else:
        ties = any(isinstance(t, list) for s in data["profile"].values() for t in s["order"])
        full = all(sum(len(t) if isinstance(t, list) else 1 for t in s["order"]) == len(items)
                   for s in data["profile"].values())
        kind = ("t" if ties else "s") + ("oc" if full else "oi")
        head = [f"# DATA TYPE: {kind}", f"# NUMBER ALTERNATIVES: {len(items)}",
                f"# NUMBER VOTERS: {sum(s.get('count', 1) for s in data['profile'].values())}",
                f"# NUMBER UNIQUE ORDERS: {len(lines)}"]
        head += [f"# ALTERNATIVE NAME {i}: {x}" for i, x in enumerate(items, 1)]
    return "\n".join(head + lines) + "\n"


def write_preflib(data: dict, path: Path) -> None:
    """Write :func:`preflib_text` of ``data`` to ``path`` (UTF-8)."""
    Path(path).write_text(preflib_text(data), encoding="utf-8")
