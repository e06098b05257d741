"""The checks of arguments at the boundary, in one place: every public function and the CLI
options that take the same values use these (the same words for the same mistake).

Each check raises :class:`ArgumentError`, an :class:`~prefcert.formal.errors.InstanceError`
(so a ``ValueError``) whose one-line message names the argument and the value received,
before any engine runs: a time limit that is not a positive, finite number of seconds, a
seed outside :data:`SEED_RANGE`, an engine the question does not have, a list where a
mapping of preferences is expected. Standard library only (``prefcert check`` loads it).
"""
from __future__ import annotations

import math
import numbers
import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, NoReturn, TypeAlias

from ..formal.errors import InstanceError

#: The seeds a solver accepts: CP-SAT's random_seed is an int32, z3's unsigned.
SEED_MIN, SEED_MAX = 0, 2**31 - 1
SEED_RANGE = (SEED_MIN, SEED_MAX)

#: The most instances per cell of a benchmark design (``per_cell``, ``--per-cell``): the
#: shipped designs use 1 to 60; the design's task list is made in proportion to it.
PER_CELL_MAX = 1000


class ArgumentError(InstanceError):
    """A bad argument of a public function (or option of the CLI).

    ``argument`` is its name (None for a CLI option, which click names itself) and
    ``value`` what was received; the message, on one line, names both.
    """

    def __init__(self, argument: str | None, message: str, value: object = None) -> None:
        super().__init__(message, value=value)
        self.argument = argument

    def __str__(self) -> str:
        return self.message.replace("\n", " ")


def _fail(name: str | None, text: str, value: object) -> NoReturn:
    raise ArgumentError(name, f"{name}: {text}" if name else text, value)


def _range(minimum: float | None, maximum: float | None, min_open: bool = False,
           max_open: bool = False) -> str:
    """click's wording of a range: ``x>=1``, ``0<=x<=2147483647``, ``0<x<1``."""
    lo = "" if minimum is None else f"{minimum}{'<' if min_open else '<='}"
    hi = "" if maximum is None else f"{'<' if max_open else '<='}{maximum}"
    if minimum is not None and maximum is None:
        return f"x{'>' if min_open else '>='}{minimum}"
    return f"{lo}x{hi}"


# ------------------------------------------------------------------------------- numbers

def seconds(value: object, name: str | None = "time_limit") -> float:
    """A positive, finite number of seconds (nan, inf, 0 and negatives are refused).

    ``name``: the argument; None for the CLI's ``--time-limit``, whose value may also be
    the text of a number (click then prefixes the option's name).
    """
    x: float | None = None
    if isinstance(value, bool):
        pass
    elif isinstance(value, numbers.Real):
        x = float(value)
    elif name is None and isinstance(value, str):
        try:
            x = float(value)
        except ValueError:
            pass
    if x is None:
        _fail(name, f"{value!r} is not a number of seconds", value)
    if not math.isfinite(x) or x <= 0:
        _fail(name, f"{value!r} is not a positive, finite number of seconds", value)
    return x


def integer(value: object, name: str, *, minimum: int | None = None,
            maximum: int | None = None) -> int:
    """An integer (not a bool) within [minimum, maximum] (click's ``IntRange`` words)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        _fail(name, f"{value!r} is not a valid integer", value)
    n = int(value)
    if (minimum is not None and n < minimum) or (maximum is not None and n > maximum):
        _fail(name, f"{value!r} is not in the range {_range(minimum, maximum)}", value)
    return n


def seed(value: object, name: str = "seed") -> int:
    """A solver seed: an integer in :data:`SEED_RANGE` (``prefcert label --seed``)."""
    return integer(value, name, minimum=SEED_MIN, maximum=SEED_MAX)


def number(value: object, name: str, *, minimum: float | None = None,
           maximum: float | None = None, min_open: bool = False,
           max_open: bool = False) -> float:
    """A real number (not a bool, not nan) within the bounds (click's ``FloatRange``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        _fail(name, f"{value!r} is not a valid float", value)
    x = float(value)
    low = minimum is not None and (x <= minimum if min_open else x < minimum)
    high = maximum is not None and (x >= maximum if max_open else x > maximum)
    if math.isnan(x) or low or high:
        _fail(name, f"{value!r} is not in the range "
                    f"{_range(minimum, maximum, min_open, max_open)}", value)
    return x


# -------------------------------------------------------------------------------- shapes

def _kind(value: object) -> str:
    return type(value).__name__


def mapping(value: object, name: str, what: str = "agent -> list") -> Mapping[Any, Any]:
    """A mapping (``side_a must be a mapping agent -> list, got list`` otherwise)."""
    if not isinstance(value, Mapping):
        raise ArgumentError(name, f"{name} must be a mapping {what}, got {_kind(value)}",
                            value)
    return value


def sequence(value: object, name: str, what: str) -> Iterable[Any]:
    """A sequence of items: any iterable but a string or a mapping (a mapping would give
    its keys, a string its characters)."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise ArgumentError(name, f"{name} must be a sequence of {what}, got {_kind(value)}",
                            value)
    return value


def parallel(value: object, name: str, n: int, what: str) -> list[Any]:
    """A sequence of exactly ``n`` items (one column value per row, per completion …)."""
    items = list(sequence(value, name, what))
    if len(items) != n:
        _fail(name, f"{len(items)} {what} for {n}", len(items))
    return items


def optional_sequence(value: object, name: str, what: str) -> Iterable[Any] | None:
    """None, or a sequence as for :func:`sequence`."""
    return None if value is None else sequence(value, name, what)


def names(value: object, name: str, what: str = "names") -> list[str]:
    """A sequence of strings (a sequence of names, never one string)."""
    items = list(sequence(value, name, what))
    for x in items:
        if not isinstance(x, str):
            _fail(name, f"{x!r} is not a string", x)
    return items


def text(value: object, name: str, *, optional: bool = False) -> str | None:
    """A string (or None when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ArgumentError(name, f"{name} must be a string{' or None' if optional else ''}, "
                                  f"got {_kind(value)}", value)
    return value


def choice(value: object, name: str, allowed: Collection[str]) -> str:
    """One of the words ``allowed`` (click's ``Choice`` words)."""
    if not isinstance(value, str) or value not in allowed:
        _fail(name, f"{value!r} is not one of {', '.join(map(repr, allowed))}", value)
    return value


def path(value: object, name: str = "path") -> str | os.PathLike[str]:
    """A file or folder name: a string or an ``os.PathLike``."""
    if not isinstance(value, (str, os.PathLike)):
        raise ArgumentError(name, f"{name} must be a str or os.PathLike, got {_kind(value)}",
                            value)
    return value


# ------------------------------------------------------------------------------- engines

#: A question being asked, for :func:`check_engines`: its name, its engines, and where its
#: instance was read (file, line; None in memory).
Asked: TypeAlias = tuple[str, Collection[str], str | None, int | None]


def check_engines(requested: Sequence[str], asked: Iterable[Asked], *, given: object) -> None:
    """``prefcert label --engines`` and ``engines=``: every requested engine is one of the
    questions' (an empty list is none), and each question has one of them. ``given`` is
    the value as written (the option's text, the argument)."""
    asked = list(asked)
    known = {e for _, engines, _, _ in asked for e in engines}
    unknown = [e for e in requested if e not in known]
    if unknown or not requested:
        raise InstanceError(f"unknown engine (known: {', '.join(sorted(known))})",
                            value=",".join(unknown) or given)
    for question, engines, file, line in asked:
        if not set(requested) & set(engines):
            raise InstanceError(f"none of the requested engines answers {question!r} "
                                f"(its engines: {', '.join(engines)})", file=file, line=line,
                                value=given)


def engines(value: object, asked: Iterable[Asked], name: str = "engines") -> list[str] | None:
    """The ``engines=`` argument: None (chosen by size), or names the questions have."""
    if value is None:
        return None
    requested = names(value, name, "engine names")
    check_engines(requested, asked, given=value)
    return requested
