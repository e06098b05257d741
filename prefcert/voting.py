"""The voting-manipulation benchmark (Amiri-Margavi et al. 2026, "Do Large Language Model
Voters Strategize? An Oracle-Based Benchmark for Manipulation under Voting Rules"): the
response parser, prompts, the balanced design, metrics, exact baselines and the stratified
cluster bootstrap. Every label comes from the certified ``election`` domain.

The source's parser rules (§6.3) leave gaps; the choices made here are listed in
:func:`parse_ballot`.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

#: the final-ballot markers (case-insensitive, at the start of a line, then ':')
MARKER = re.compile(r"^[ \t>*_#-]*(?:final\s+(?:ballot|answer|vote)|ballot)[ \t*_]*[:：][ \t]*(.*)$",
                    re.IGNORECASE | re.MULTILINE)
#: what an explicit empty approval ballot may be written as
EMPTY = {"none", "{}", "[]", "∅", "empty", "empty set", "nobody", "no one", "()"}
_NUMBERED = re.compile(r"^\s*(?:\d+\s*[.):]|[-*•])\s*")
_SEPARATORS = re.compile(r"[>,;\n]")
_TRIM = " \t\r\"'`*_[](){}.:"


@dataclass(frozen=True)
class ParsedBallot:
    """``valid``: a ballot of the rule's space; ``ballot``: the ranking (best first) or the
    approved candidates (in the order written); ``reason`` why not; ``marked``: read
    from a final-ballot marker."""

    valid: bool
    ballot: tuple[str, ...] | None
    reason: str = ""
    marked: bool = False


def _blocks(text: str) -> list[str] | None:
    """The marked final ballots (a marker's rest of line, else the lines below it up to a
    blank line), or None without a marker."""
    found = list(MARKER.finditer(text))
    if not found:
        return None
    out = []
    for mt in found:
        rest = mt.group(1).strip()
        if rest:
            out.append(rest)
            continue
        lines = []
        for line in text[mt.end():].lstrip("\n").splitlines():
            if not line.strip() or MARKER.match(line):
                break
            lines.append(line)
        out.append("\n".join(lines))
    return out


def _tokens(body: str) -> list[str]:
    lines = [_NUMBERED.sub("", ln) for ln in body.splitlines()]
    parts = _SEPARATORS.split("\n".join(lines))
    return [p.strip(_TRIM) for p in parts if p.strip(_TRIM)]


def _read(body: str, candidates: Sequence[str], rule: str) -> ParsedBallot:
    names = {c.lower(): c for c in candidates}
    if rule == "approval" and body.strip(_TRIM + " ").lower() in EMPTY:
        return ParsedBallot(True, ())
    toks = _tokens(body)
    if not toks:
        return ParsedBallot(False, None, "no ballot")
    unknown = [t for t in toks if t.lower() not in names]
    if unknown:
        return ParsedBallot(False, None, f"not a candidate: {unknown[0]!r}")
    got = tuple(names[t.lower()] for t in toks)
    if len(set(got)) != len(got):
        dup = next(x for x in got if got.count(x) > 1)
        return ParsedBallot(False, None, f"{dup!r} appears twice")
    if rule != "approval" and len(got) != len(candidates):
        missing = [c for c in candidates if c not in got]
        return ParsedBallot(False, None, f"a ranking names every candidate; missing "
                                         f"{missing[0]!r}")
    return ParsedBallot(True, got)


def parse_ballot(text: str, candidates: Sequence[str], rule: str) -> ParsedBallot:
    """Read a model's ballot from its response.

    Parameters
    ----------
    text : str
        The response.
    candidates : sequence of str
        The alternatives (matched case-insensitively, surrounding quotes, brackets,
        asterisks and a final period ignored).
    rule : str
        ``approval`` reads a subset; any other rule a full strict ranking.

    Returns
    -------
    ParsedBallot

    Examples
    --------
    >>> parse_ballot("I think B is safest.\\nFinal ballot: B > A > C", "ABC", "borda").ballot
    ('B', 'A', 'C')
    >>> parse_ballot("1. c\\n2. a\\n3. b", "abc", "irv").ballot
    ('c', 'a', 'b')
    >>> parse_ballot("Final ballot: A", "ABC", "plurality").reason
    "final ballot invalid: a ranking names every candidate; missing 'B'"
    >>> parse_ballot("Final ballot: none", "ABC", "approval").ballot
    ()

    Notes
    -----
    From the benchmark (§6.3): separators ``>``, commas, semicolons, line breaks and
    numbered lists; every candidate exactly once for ranking rules (plurality too);
    approval: a subset, the explicit empty set allowed; a marked final ballot is read
    alone; inconsistent final ballots are invalid (consistent repeats are read once).
    Choices where the source is silent: markers are ``Final ballot:``, ``Final answer:``,
    ``Final vote:`` or ``Ballot:`` at the start of a line (case-insensitive); without a
    marker the whole response must be the ballot (the named alternative: read the last
    ballot-like line); the empty approval is written ``none``, ``{}``, ``[]``, ``∅`` or
    ``empty``; ``=`` or any other token is invalid. O(len(text)).
    """
    blocks = _blocks(text)
    if blocks is None:
        return _read(text, candidates, rule)
    parsed = [_read(b, candidates, rule) for b in blocks]
    bad = next((p for p in parsed if not p.valid), None)
    if bad is not None:
        return ParsedBallot(False, None, f"final ballot invalid: {bad.reason}", True)
    norm = {(p.ballot if rule != "approval" else tuple(sorted(p.ballot))) for p in parsed}
    if len(norm) > 1:
        return ParsedBallot(False, None, "inconsistent final ballots", True)
    return ParsedBallot(True, parsed[-1].ballot, "", True)
