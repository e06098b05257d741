"""Deterministic answer parsers, one per answer shape. None raises: an answer that cannot be
read is ``Parsed("invalid", reason)``.

Every parser first extracts the answer body (:func:`answer_body`): the **last**
``<answer>…</answer>`` block; else the last fenced code block; else the last ``\\boxed{…}``;
else the whole text (so a bare answer such as ``C9`` or ``B`` parses too). Then:

========== ============================================ =================================
shape      accepted body                                value
========== ============================================ =================================
item       one item name (quotes, dots, case ignored)   the item as spelled in ``vocab``
int        exactly one integer ("12", "12 agents")      int
ranking    items joined by ``>`` (or ``≻``)             list of items, best first
bundle     ``{a, b}`` (braces optional)                  sorted list of items
items      a list of items (``[a, b]``, ``a, b``)        sorted list of items
yesno      yes / no                                     "yes" / "no"
mcq        one option letter (``B``, ``(B)``, ``B.``)    the letter, upper case
outcome    a JSON object agent -> partner, ``{}``       dict; ``{}`` is kind "none"
========== ============================================ =================================

Any shape also reads an **abstention** — a body that is one of :data:`ABSTAIN` ("unknown",
"can't decide", "uncertain", "insufficient information", …) — as ``Parsed("abstain")``.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S | re.I)
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.S)
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")
_INT = re.compile(r"(?<![\w.])[-+]?\d+(?![\w.]*\d)")

#: normalised bodies read as "the answer cannot be determined"
ABSTAIN = frozenset({
    "unknown", "not known", "cannot be known", "can't decide", "cannot decide", "can not decide",
    "cant decide", "undecided", "uncertain", "undetermined", "cannot be determined",
    "can't be determined", "cannot determine", "can't determine", "not determined",
    "indeterminate", "insufficient information", "there is insufficient information to decide",
    "not enough information", "not enough information to decide", "no preference",
    "unknowable", "i don't know", "dont know", "don't know",
})


@dataclass(frozen=True)
class Parsed:
    """A parsed answer: ``kind`` is ``value``, ``abstain``, ``none`` (``{}``: "no
    solution") or ``invalid``; ``value`` is the value (or, when invalid, the reason)."""

    kind: str
    value: Any = None

    def to_json(self) -> dict:
        return {"kind": self.kind, "value": self.value}


def answer_body(text: Any) -> str | None:
    """The answer body of a response (see the module docstring); None for a non-string."""
    if not isinstance(text, str):
        return None
    for pattern in (_ANSWER, _FENCE, _BOXED):
        found = pattern.findall(text)
        if found:
            return found[-1].strip()
    return text.strip()


def normalise(s: str) -> str:
    """Lower case, typographic apostrophes made plain, spaces collapsed, outer quotes and
    end punctuation dropped."""
    s = s.replace("\u2019", "'").replace("\u2018", "'").lower()
    s = re.sub(r"\s+", " ", s).strip()
    return s.strip(" \"'`*").rstrip(".!").strip()


def is_abstention(body: str) -> bool:
    return normalise(body) in ABSTAIN


def _vocab_map(vocab: Iterable[str] | None) -> dict[str, str] | None:
    return None if vocab is None else {v.lower(): v for v in vocab}


def _item(token: str, vocab: dict | None) -> str | None:
    t = token.strip().strip("\"'`*.,;:()[]").strip()
    if not t:
        return None
    if vocab is None:
        return t
    return vocab.get(t.lower())


def _items(tokens: list[str], vocab: dict | None) -> list[str] | None:
    out = []
    for tok in tokens:
        x = _item(tok, vocab)
        if x is None or x in out:
            return None
        out.append(x)
    return out


def parse(shape: str, text: Any, *, vocab: Iterable[str] | None = None,
          letters: Iterable[str] | None = None) -> Parsed:
    """Parse ``text`` as an answer of ``shape`` (see the module docstring).

    ``vocab``: the item names an answer may use (case-insensitive; None accepts any token);
    ``letters``: the MCQ letters offered. Never raises.
    """
    try:
        return _parse(shape, text, _vocab_map(vocab), letters)
    except Exception as e:                  # a parser bug must not crash scoring
        return Parsed("invalid", f"parser error: {e.__class__.__name__}")


def _parse(shape: str, text: Any, vocab: dict | None, letters) -> Parsed:
    body = answer_body(text)
    if body is None:
        return Parsed("invalid", "no text")
    if not body:
        return Parsed("invalid", "empty answer")
    if shape != "outcome" and is_abstention(body):
        return Parsed("abstain")
    fn = PARSERS.get(shape)
    if fn is None:
        return Parsed("invalid", f"unknown answer shape {shape!r}")
    return fn(body, vocab, letters)


def _p_item(body, vocab, letters):
    x = _item(body, vocab)
    if x is None or (vocab is None and " " in x):
        return Parsed("invalid", "not an item name")
    return Parsed("value", x)


def _p_int(body, vocab, letters):
    found = _INT.findall(body.replace(",", ""))
    if len(found) != 1:
        return Parsed("invalid", "not exactly one integer")
    return Parsed("value", int(found[0]))


def _p_ranking(body, vocab, letters):
    parts = re.split(r"\s*(?:>|≻|&gt;)\s*", body.strip().strip("[]"))
    xs = _items(parts, vocab)
    if not xs:
        return Parsed("invalid", "not a ranking of items joined by '>'")
    return Parsed("value", xs)


def _p_set(body, vocab, letters, brace=True):
    s = body.strip()
    s = s[1:-1] if len(s) >= 2 and s[0] + s[-1] in ("{}", "[]", "()") else s
    parts = [p for p in re.split(r"\s*[,;]\s*|\s+and\s+", s.strip()) if p.strip()]
    if len(parts) == 1 and " " in parts[0].strip():
        parts = parts[0].split()
    xs = _items(parts, vocab)
    if not xs:
        return Parsed("invalid", "not a set of items")
    return Parsed("value", sorted(xs))


def _p_yesno(body, vocab, letters):
    b = normalise(body)
    if b in ("yes", "y", "true"):
        return Parsed("value", "yes")
    if b in ("no", "n", "false"):
        return Parsed("value", "no")
    return Parsed("invalid", "not yes or no")


def _p_mcq(body, vocab, letters):
    m = re.fullmatch(r"\(?\s*(?:option\s+)?([A-Za-z])\s*\)?\s*(?:[.:)\-]\s*.*)?", body.strip(),
                     re.S | re.I)
    if not m:
        return Parsed("invalid", "not an option letter")
    letter = m.group(1).upper()
    if letters is not None and letter not in set(letters):
        return Parsed("invalid", f"no option {letter}")
    return Parsed("value", letter)


def _p_outcome(body, vocab, letters):
    try:
        v = json.loads(body)
    except (json.JSONDecodeError, RecursionError):
        return Parsed("invalid", "not a JSON object")
    if not isinstance(v, dict):
        return Parsed("invalid", "not a JSON object")
    if not v:
        return Parsed("none")
    return Parsed("value", v)


PARSERS: dict[str, Callable] = {
    "item": _p_item, "int": _p_int, "ranking": _p_ranking, "bundle": _p_set,
    "items": _p_set, "yesno": _p_yesno, "mcq": _p_mcq, "outcome": _p_outcome,
}
