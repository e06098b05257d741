"""Prompt template sets: the wording a suite renders its prompts with, chosen by name or read
from a user's file (``prefcert generate SUITE --templates NAME|FILE``).

A template set is a TOML file. Its top-level tables are the sections of the suites that use
it (``[preference]``, ``[algorithmic]``); inside a section every key is a string (tables
group keys: ``[preference.task]`` ``kth = "…"`` is the key ``task.kth``). Placeholders are
written ``$name`` or ``${name}`` (:class:`string.Template`; ``$$`` is a literal ``$``), so the
braces of JSON examples and ``<answer>{}</answer>`` need no escaping. Optional top-level
keys: ``name`` (shown in the manifest), ``description``, and ``base``: the shipped set whose
keys a file does not set (default: the suite's default set), so a user file lists only the
keys it changes.

A suite declares its keys (:class:`TemplateSpec`): for each, the placeholders it may use and
those it must use. A file is refused as bad input — one line naming the file, the line and
the value — when it is not TOML, names an unknown section or key, gives a key a non-string
value, uses a placeholder the key does not offer or omits one it needs, or sets no key of
the suite's section.
"""
from __future__ import annotations

import hashlib
import re
import string
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..formal.errors import InstanceError

#: top-level keys that are not sections
META = ("name", "description", "base")


@dataclass(frozen=True)
class TemplateSpec:
    """The keys of one suite's section: ``keys`` maps a dotted key to (placeholders it may
    use, placeholders it must use); ``choices``: keys whose value is one word of a list
    instead of a text (e.g. which notion an answer is checked against); ``sets``: shipped
    set name -> package resource (``(package, file name)``), the first being the
    default."""

    section: str
    keys: Mapping[str, tuple[frozenset, frozenset]]
    sets: Mapping[str, tuple[str, str]]
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def default(self) -> str:
        return next(iter(self.sets))


@dataclass(frozen=True)
class Templates:
    """A resolved template set for one suite: ``text`` key -> template string; ``origin``:
    what the manifest records (the set's name, or the file with its SHA-256 and base)."""

    text: Mapping[str, str]
    origin: Mapping[str, Any] = field(default_factory=dict)

    def render(self, key: str, **values: Any) -> str:
        """The template of ``key`` with its placeholders filled (every one must be given)."""
        return string.Template(self.text[key]).substitute(values)

    def __getitem__(self, key: str) -> str:
        return self.text[key]


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in table.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\-\s\"]+?)\s*\]\s*(?:#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+(?:\s*\.\s*[A-Za-z0-9_\-]+)*)\s*=")


def key_lines(text: str) -> dict[str, int]:
    """Dotted key -> the line (1-based) that sets it, for error messages: table headers and
    ``key =`` lines outside multi-line strings. O(len(text))."""
    out: dict[str, int] = {}
    table = ""
    quote: str | None = None
    for n, line in enumerate(text.splitlines(), 1):
        if quote is not None:                       # inside a multi-line string
            if line.count(quote) % 2 == 1:
                quote = None
            continue
        m = _HEADER.match(line)
        if m:
            table = re.sub(r"\s+", "", m.group(1)).replace('"', "")
            out.setdefault(table, n)
            continue
        m = _KEY.match(line)
        if m:
            key = re.sub(r"\s+", "", m.group(1))
            out.setdefault(f"{table}.{key}" if table else key, n)
            rest = line[m.end():]
            for q in ('"""', "'''"):
                if rest.count(q) % 2 == 1:
                    quote = q
                    break
    return out


def _read_toml(text: str, file: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"at line (\d+)", str(e))
        raise InstanceError(f"not a TOML template file ({str(e).split(' (at')[0]})",
                            file=file, line=int(m.group(1)) if m else None) from None


def _shipped(spec: TemplateSpec, name: str) -> dict[str, str]:
    pkg, fname = spec.sets[name]
    text = resources.files(pkg).joinpath(fname).read_text(encoding="utf-8")
    data = _read_toml(text, fname)
    return {k: v for k, v in _flatten(data.get(spec.section, {})).items()}


def load(spec: TemplateSpec, choice: str | None) -> Templates:
    """The template set ``choice`` for a suite: a shipped set's name, a path to a TOML file
    (see the module docstring), or None for the suite's default set. Raises InstanceError
    (bad input, with file and line) for an unknown name or a bad file."""
    if choice is None or choice in spec.sets:
        name = choice or spec.default
        return Templates(_shipped(spec, name), {"name": name})
    path = Path(choice)
    if not path.suffix and not path.exists():
        raise InstanceError(f"unknown template set (known: {', '.join(spec.sets)}; or give a "
                            "path to a .toml file)", value=choice)
    from ..formal.files import read_input
    text = read_input(path)
    data = _read_toml(text, str(path))
    lines = key_lines(text)
    base = data.get("base", spec.default)
    if base not in spec.sets:
        raise InstanceError(f"'base' must name a shipped template set "
                            f"({', '.join(spec.sets)})", file=str(path),
                            line=lines.get("base"), value=base)
    for k in data:
        if k not in META and not isinstance(data[k], dict):
            raise InstanceError("unknown top-level key (a section is a table, e.g. "
                                f"[{spec.section}])", file=str(path), line=lines.get(k),
                                value=k)
    for k in META:
        if k in data and not isinstance(data[k], str):
            raise InstanceError(f"'{k}' must be a string", file=str(path), line=lines.get(k),
                                value=data[k])
    own = _flatten(data.get(spec.section, {}))
    if not own:
        raise InstanceError(f"the template file sets no key of section [{spec.section}]",
                            file=str(path))
    for k, v in own.items():
        where = lines.get(f"{spec.section}.{k}")
        if k not in spec.keys and k not in spec.choices:
            raise InstanceError(f"unknown template key in [{spec.section}] (known: "
                                f"{', '.join(sorted([*spec.keys, *spec.choices]))})",
                                file=str(path), line=where, value=k)
        if not isinstance(v, str):
            raise InstanceError("a template must be a string", file=str(path), line=where,
                                value=k)
        check_template(spec, k, v, file=str(path), line=where)
    text_by_key = {**_shipped(spec, base), **own}
    origin = {"file": str(path), "sha256": hashlib.sha256(text.encode()).hexdigest(),
              "base": base}
    if "name" in data:
        origin["name"] = data["name"]
    return Templates(text_by_key, origin)


def check_template(spec: TemplateSpec, key: str, value: str, *, file: str,
                   line: int | None) -> None:
    """Refuse a template using a placeholder ``key`` does not offer, omitting one it must
    use, or with a stray ``$``, and a choice key set to another word (InstanceError with
    file and line)."""
    if key in spec.choices:
        if value not in spec.choices[key]:
            raise InstanceError(f"{key!r} must be one of {', '.join(spec.choices[key])}",
                                file=file, line=line, value=value)
        return
    allowed, required = spec.keys[key]
    t = string.Template(value)
    if not t.is_valid():
        raise InstanceError(f"template {key!r} has a '$' that starts no placeholder (write "
                            "$$ for a literal $)", file=file, line=line, value=key)
    used = set(t.get_identifiers())
    unknown = sorted(used - set(allowed))
    if unknown:
        raise InstanceError(f"template {key!r} uses an unknown placeholder (it offers: "
                            f"{', '.join(sorted(allowed)) or 'none'})", file=file, line=line,
                            value="$" + unknown[0])
    missing = sorted(set(required) - used)
    if missing:
        raise InstanceError(f"template {key!r} must use ${missing[0]}", file=file, line=line,
                            value=key)


def validate_shipped(spec: TemplateSpec) -> None:
    """Every shipped set defines every key of the section with valid placeholders (a test
    calls this; a mistake in a shipped file is a bug, not bad input)."""
    for name in spec.sets:
        text = _shipped(spec, name)
        known = {*spec.keys, *spec.choices}
        missing = sorted(known - set(text))
        extra = sorted(set(text) - known)
        if missing or extra:
            raise ValueError(f"template set {name!r} [{spec.section}]: missing {missing}, "
                             f"unknown {extra}")
        for k, v in text.items():
            check_template(spec, k, v, file=name, line=None)
