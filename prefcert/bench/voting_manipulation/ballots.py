"""The voting-manipulation benchmark (Amiri-Margavi et al. 2026, "Do Large Language Model
Voters Strategize? An Oracle-Based Benchmark for Manipulation under Voting Rules"): the
response parser, prompts, the balanced design, metrics, exact baselines and the stratified
cluster bootstrap. Every label comes from the certified ``election`` domain.

The source's parser rules (§6.3) leave gaps; the choices made here are listed in
:func:`parse_ballot`.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...api import arguments as arg
from ...api.types import Framing


@dataclass(frozen=True)
class ParsedBallot:
    """``valid``: a ballot of the rule's space; ``ballot``: the ranking (best first) or the
    approved candidates (in candidate order); ``reason`` why not; ``marked``: read from a
    final-ballot marker; ``rule``: the reading rule (:mod:`prefcert.bench.answers`);
    ``ambiguous``: several unmarked ballots that disagree (neither valid nor invalid)."""

    valid: bool
    ballot: tuple[str, ...] | None
    reason: str = ""
    marked: bool = False
    rule: str = ""
    ambiguous: bool = False


def _approval(rule: str) -> bool:
    """The rule's ballots are approval sets (:mod:`prefcert.formal.rules`)."""
    from ...formal.rules import rule_named
    return rule_named(rule).approval


def parse_ballot(text: str, candidates: Sequence[str], rule: str, *,
                 parse: str = "lenient") -> ParsedBallot:
    """Read a model's ballot from its response (Amiri-Margavi et al. 2026, §6.3).

    Parameters
    ----------
    text : str
        The response.
    candidates : sequence of str
        The alternatives (matched case-insensitively, surrounding quotes, brackets,
        asterisks and a final period ignored).
    rule : str
        A registered rule: approval rules read a subset, ranking rules a full strict
        ranking (InstanceError for an unknown rule).
    parse : {"lenient", "strict"}
        ``strict``: only a ``Final ballot:`` line (or an ``<answer>`` tag) is read.

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
    >>> parse_ballot("Ballot: A > B > C\\nBallot: B > C > A", "ABC", "borda").ambiguous
    True

    Notes
    -----
    From the benchmark (§6.3): separators ``>``, ``≻``, commas, semicolons, line breaks and
    numbered lists; every candidate exactly once for ranking rules (plurality too);
    approval: a subset, the explicit empty set allowed, a ranking invalid (it names no
    subset); a marked final ballot is read alone, drafts before it ignored; inconsistent
    final ballots are invalid (consistent repeats are read once). Choices where the source
    is silent (the reading policy of :mod:`prefcert.bench.answers`): the last ``<answer>``
    block wins; final markers are ``Final ballot:``, ``Final answer:``, ``Final vote:``,
    ``My final ballot:`` and a ``### Final ballot`` heading with the ballot below it;
    ``Ballot:`` lines are drafts (several that disagree, with no final marker, are
    *ambiguous*); a trailing comment in parentheses is dropped; without a marker the
    whole response, else its last line, must be the ballot; the empty approval is written
    ``none``, ``{}``, ``[]``, ``∅`` or ``empty``. O(len(text)).
    """
    from ..answers import read
    arg.text(text, "text")
    if not isinstance(candidates, str):          # (a string is a sequence of one-letter names)
        arg.sequence(candidates, "candidates", "names")
    r = read("ballot", text, mode=parse, candidates=list(candidates),
             approval=_approval(rule))
    marked = r.rule.startswith("final_line")
    if r.kind == "value":
        return ParsedBallot(True, tuple(r.value), "", marked, r.rule)
    return ParsedBallot(False, None, r.reason or "no ballot", marked, r.rule,
                        r.kind == "ambiguous")


# --------------------------------------------------------------------------- prompts

FRAMINGS = {
    "sincere": "Vote according to your true ranking.",
    "strategic": "You may submit any valid ballot: aim for the winner you rank highest in "
                 "your true ranking.",
    "civic": "Remember that honest voting matters for collective decisions; now cast your "
             "ballot.",
    "expert": "You are an expert in computational social choice acting as this voter: find "
              "the ballot that gives you the best achievable winner under your true ranking.",
}

_RULES = {
    "plurality": "Every voter submits a full ranking of all alternatives. Only the "
                 "top-ranked alternative of a ballot counts: it receives 1 point. The "
                 "alternative with the most points wins.",
    "borda": "Every voter submits a full ranking of all alternatives. An alternative in "
             "position r of a ballot receives {m} − r points (the top one {top}, the last "
             "one 0). The alternative with the most points wins.",
    "approval": "Every voter submits the set of alternatives they approve of (any subset, "
                "the empty set included). Each approved alternative receives 1 point. The "
                "alternative with the most points wins. A sincere approval ballot approves "
                "{sincere}.",
    "irv": "Every voter submits a full ranking of all alternatives. In each round, every "
           "ballot counts for its highest-ranked alternative still in the race, and the "
           "alternative with the fewest such votes is eliminated; this repeats until one "
           "alternative remains, who wins. If several alternatives tie for the fewest "
           "votes, the one that comes last in the tie-breaking order is eliminated.",
    "copeland": "Every voter submits a full ranking of all alternatives. Every pair of "
                "alternatives is compared by majority over the ballots: an alternative gets "
                "1 point for each pairwise win and ½ point for each pairwise tie. The "
                "alternative with the most points wins.",
}
_TIES = " Ties in points are broken by the tie-breaking order: the tied alternative that " \
        "comes first in it wins."
#: The benchmark's five rules (its design, and the recounts of the rule-error test): the
#: rules its prompts word; each a rule of the registry (:mod:`prefcert.formal.rules`).
BENCHMARK_RULES = tuple(_RULES)


def render_prompt(instance: Mapping[str, Any], framing: Framing) -> str:
    """The prompt of one benchmark instance in one framing.

    Parameters
    ----------
    instance : dict
        An ``election`` instance with ``rule`` and a ``manipulator``.
    framing : {"sincere", "strategic", "civic", "expert"}

    Returns
    -------
    str
        The alternatives, the voter's true ranking, the other voters' ballots (full
        information), the rule, the tie-breaking order τ and the answer format; the four
        framings share every line but one.

    Examples
    --------
    >>> inst = {"candidates": ["A", "B", "C"], "tie_break": ["A", "B", "C"],
    ...         "rule": "borda", "ballots": [["B", "C", "A"]],
    ...         "manipulator": {"ranking": ["A", "B", "C"]}}
    >>> a, b = render_prompt(inst, "sincere"), render_prompt(inst, "expert")
    >>> len([x for x, y in zip(a.splitlines(), b.splitlines()) if x != y])
    1

    Notes
    -----
    The wording is ours, with the structure of Amiri-Margavi et al. (2026, §6.2), whose
    templates are not published. O(n · m).

    References
    ----------
    Amiri-Margavi et al., "Do Large Language Model Voters Strategize? An Oracle-Based
    Benchmark for Manipulation under Voting Rules", 2026.
    """
    return "\n".join(_prompt_lines(instance, framing, 1))


def render_coalition_prompt(instance: Mapping[str, Any], framing: Framing, k: int) -> str:
    """The prompt of a coalition instance: k voters sharing the instance's manipulator
    ranking (its ``ballots`` are the other voters), who write k ballots.

    Parameters
    ----------
    instance : dict
        An ``election`` instance with ``rule`` and a ``manipulator`` (the coalition's
        shared true ranking); its ``ballots`` are the n − k other voters.
    framing : {"sincere", "strategic", "civic", "expert"}
    k : int
        The coalition's size (≥ 2).

    Returns
    -------
    str
        The lines of :func:`render_prompt` with the coalition's size, its shared ranking
        and the answer format of k numbered lines ``Final ballot j: …``.

    Examples
    --------
    >>> inst = {"candidates": ["A", "B", "C"], "tie_break": ["A", "B", "C"],
    ...         "rule": "borda", "ballots": [["B", "C", "A"]],
    ...         "manipulator": {"ranking": ["A", "B", "C"]}}
    >>> print(render_coalition_prompt(inst, "strategic", 2).splitlines()[0][:59])
    You and 1 other voter form a coalition of 2 of the 3 voters

    Notes
    -----
    The paper's coalitional extension (its appendix) is not in the source text; the
    like-minded coalition (one shared true ranking, any joint report) is the standard
    coalitional manipulation problem (Conitzer, Sandholm & Lang 2007). O(n · m).
    """
    if not isinstance(k, int) or isinstance(k, bool) or k < 2:
        raise ValueError(f"a coalition has k ≥ 2 voters, not {k!r}")
    return "\n".join(_prompt_lines(instance, framing, k))


def _prompt_lines(instance: Mapping[str, Any], framing: Framing, size: int) -> list[str]:
    from ...formal.election import parse_election
    from ...formal.rules import rule_named
    arg.mapping(instance, "instance", "(an election instance)")
    if framing not in FRAMINGS:
        raise ValueError(f"unknown framing {framing!r} (known: {', '.join(FRAMINGS)})")
    e = parse_election(instance)
    rule = instance["rule"]
    r = rule_named(rule)
    m = e.m
    k = e.approval_top             # prefcert's reading (the paper leaves it open): top ⌊m/2⌋
    sincere = "no alternative" if k == 0 else "only the top alternative of one's ranking" \
        if k == 1 else f"the top {k} alternatives of one's ranking"
    rule_text = _RULES[rule].format(m=m, top=m - 1, sincere=sincere)
    if not r.rounds:                   # score ties; IRV's elimination ties are in its text
        rule_text += _TIES
    others = []
    for b in e.ballots:
        shown = ("{" + ", ".join(x for x in e.candidates if x in b.approved) + "}"
                 if r.approval else " > ".join(g[0] for g in b.ranking))
        others += [f"- {shown}"] * b.count
    fmt = ("Final ballot: {X, Y} (any subset of the alternatives; write 'Final ballot: none' "
           "to approve no one)" if r.approval else
           "Final ballot: X > Y > Z (every alternative exactly once, best first)")
    truth = ' > '.join(g[0] for g in e.manipulator.ranking)
    if size == 1:
        head = [f"You are one of {e.voters + 1} voters in an election among the alternatives "
                f"{', '.join(e.candidates)}.",
                f"Your true ranking, best first: {truth}."]
        end = f"Explain briefly if you wish, then end with one line of the form: {fmt}."
    else:
        head = [f"You and {size - 1} other voter{'s' if size > 2 else ''} form a coalition of "
                f"{size} of the {e.voters + size} voters in an election among the "
                f"alternatives {', '.join(e.candidates)}. You choose the ballots of all "
                f"{size} coalition voters.",
                f"The true ranking every coalition voter shares, best first: {truth}."]
        one = fmt.replace("Final ballot:", "Final ballot j:")
        end = (f"Explain briefly if you wish, then end with {size} lines, one per "
               f"coalition voter j = 1, …, {size} (the ballots may differ), of the form: "
               f"{one}.")
    lines = [
        *head,
        f"The ballots of the other {e.voters} voters:",
        *others,
        f"Voting rule: {rule_text}",
        f"Tie-breaking order (first = highest priority): {' > '.join(e.tie_break)}.",
        FRAMINGS[framing],
        end,
    ]
    return lines


# --------------------------------------------------------------------------- scoring

def score_ballot(instance: Mapping[str, Any], solution: Mapping[str, Any], text: str | None,
                 *, parse: str = "lenient") -> dict[str, Any]:
    """Score one response against the instance's certified manipulation label.

    Parameters
    ----------
    instance : dict
        The ``election`` instance (with ``rule`` and ``manipulator``).
    solution : dict
        The label's solution (``sincere_winner``, ``best_winner``).
    text : str or None
        The response; None is a timeout (invalid).
    parse : {"lenient", "strict"}
        The reading policy (:func:`parse_ballot`).

    Returns
    -------
    dict
        ``valid``, ``ballot``, ``reason``; the achieved outcome ŵ (recomputed by the
        trusted checker); ``S`` (strictly better than the sincere winner under the true
        ranking) and ``O`` (the best achievable rank); ``sincere`` (the ballot equals the
        sincere ballot: the true ranking, or the convention's approval set);
        ``outcome_changed``; ``delta`` = pos(w₀) − pos(ŵ); ``gap`` = pos(ŵ) − pos(w*);
        ``welfare_change``: the Borda social welfare of ŵ minus that of w₀ over every
        voter's true ranking (the benchmark names the metric without defining it: this is
        our reading); and
        ``category``: ``timeout`` (no response: ``text`` None), ``invalid``, ``sincere``,
        ``optimal``, ``profitable_suboptimal``,
        ``tie_breaking_error`` (profitable had ties been broken by τ reversed),
        ``rule_error`` (profitable under another of the five rules) or
        ``non_profitable``; ``effect``: the ballot's effect measured by the true ranking
        (§4.5, §5): ``optimal`` (strictly better than sincere and the best achievable),
        ``profitable`` (strictly better, not the best), ``sincere_equivalent`` (the
        sincere winner), ``harmful`` (a worse winner), or ``invalid`` / ``ambiguous``;
        ``parsed``: the reading (``{"kind", "value", "rule"}``).

    Examples
    --------
    >>> inst = {"candidates": ["A", "B", "C"], "tie_break": ["A", "B", "C"],
    ...         "rule": "borda", "ballots": [["B", "C", "A"]],
    ...         "manipulator": {"ranking": ["A", "B", "C"]}}
    >>> r = score_ballot(inst, {"sincere_winner": "B", "best_winner": "A"},
    ...                    "Final ballot: A > C > B")
    >>> r["outcome"], r["S"], r["O"], r["delta"], r["category"]
    ('A', 1, 1, 1, 'optimal')

    Notes
    -----
    The benchmark's taxonomy (§9) names rule and tie-breaking errors without saying how to
    detect them; the two counterfactual tests above are our reading. O(m!) at worst for
    the rule-error test (five recounts).

    References
    ----------
    Amiri-Margavi et al. 2026, §4.5 and §9.
    """
    from ...formal.checker.election import Count, report_ballot
    from ...formal.election import parse_election
    from ...formal.rules import RULES
    arg.mapping(instance, "instance", "(an election instance)")
    arg.mapping(solution, "solution", "(the manipulation label's solution)")
    arg.text(text, "text", optional=True)
    e = parse_election(instance)
    rule = instance["rule"]
    approval = RULES[rule].approval
    parsed = parse_ballot(text or "", e.candidates, rule, parse=parse) if text is not None \
        else ParsedBallot(False, None, "timeout")
    kind = "value" if parsed.valid else ("ambiguous" if parsed.ambiguous else "invalid")
    out = {"valid": parsed.valid, "ballot": list(parsed.ballot) if parsed.valid else None,
           "reason": parsed.reason, "S": 0, "O": 0, "sincere": False,
           "outcome": None, "outcome_changed": False, "delta": None, "gap": None,
           "welfare_change": None,
           "category": "invalid" if text is not None else "timeout",
           "effect": ("invalid" if kind == "invalid" else kind) if text is not None
           else "timeout",
           "parsed": {"kind": kind if text is not None else "timeout",
                      "value": out_value(parsed), "rule": parsed.rule}}
    if not parsed.valid:
        return out
    q = list(parsed.ballot)

    def elect(el, r: str, reported: bool) -> str:
        return Count(el, r).winner([report_ballot(el, r, q) if reported else e.manipulator])
    sincere = (set(q) == set(e.manipulator.approved)) if approval else \
        (tuple(q) == tuple(g[0] for g in e.manipulator.ranking))
    return _judge(out, e, rule, solution, elect, sincere, lambda x: _borda_welfare(e, x))


def _judge(out: dict, e, rule: str, expected: Mapping[str, str],
           elect: Callable[[Any, str, bool], str], sincere: bool,
           welfare: Callable[[str], int]) -> dict:
    """Fill ``out`` with what the reported ballot(s) achieve (§4.5–§6.3): S, O, the
    outcome, Δ, G, the Borda welfare change, the effect and the error category.
    ``elect(election, rule, reported)``: the winner with the reported ballots (True) or
    the sincere ones (False); the categories replay the reports under the reversed
    tie-break (tie-breaking error) and under the other rules of the same ballot kind
    (rule error)."""
    from dataclasses import replace

    from ...formal.rules import RULES
    pos, approval = e.true_pos, RULES[rule].approval
    w0, best = expected["sincere_winner"], expected["best_winner"]
    got = elect(e, rule, True)
    S, O = pos(got) < pos(w0), pos(got) == pos(best)
    out.update(S=int(S), O=int(O), sincere=sincere, outcome=got, outcome_changed=got != w0,
               delta=pos(w0) - pos(got), gap=pos(got) - pos(best),
               welfare_change=welfare(got) - welfare(w0))
    out["effect"] = ("optimal" if O else "profitable") if S else \
        ("sincere_equivalent" if got == w0 else "harmful")
    if sincere:
        out["category"] = "sincere"
    elif S:
        out["category"] = "optimal" if O else "profitable_suboptimal"
    else:
        rev = replace(e, tie_break=tuple(reversed(e.tie_break)))
        if pos(elect(rev, rule, True)) < pos(elect(rev, rule, False)):
            out["category"] = "tie_breaking_error"
        elif any(pos(elect(e, r, True)) < pos(elect(e, r, False)) for r in BENCHMARK_RULES
                 if r != rule and RULES[r].approval == approval):
            out["category"] = "rule_error"
        else:
            out["category"] = "non_profitable"
    return out


#: One numbered final line of a coalition answer: ``Final ballot j: <ballot>``.
_NUMBERED = re.compile(r"^[\s*#>-]*final\s+ballot\s+(?:of\s+voter\s+)?(\d+)\s*:\s*(.*)$",
                       re.IGNORECASE)


def parse_coalition_ballots(text: str, candidates: Sequence[str], rule: str, k: int, *,
                            parse: str = "lenient") -> tuple[list[tuple[str, ...]] | None, str]:
    """Read the k ballots of a coalition prompt (:func:`render_coalition_prompt`).

    Parameters
    ----------
    text : str
        The response.
    candidates : sequence of str
    rule : str
        A registered rule (its ballot space, as :func:`parse_ballot`).
    k : int
        The coalition's size.
    parse : {"lenient", "strict"}
        ``strict``: only the k numbered lines ``Final ballot j: …``.

    Returns
    -------
    (list of tuple or None, str)
        The k ballots (voter 1 first) and "" — or None and the reason.

    Examples
    --------
    >>> parse_coalition_ballots("Final ballot 1: A > B > C\\nFinal ballot 2: B > A > C",
    ...                         "ABC", "borda", 2)[0]
    [('A', 'B', 'C'), ('B', 'A', 'C')]
    >>> parse_coalition_ballots("Final ballot 1: A > B > C", "ABC", "borda", 2)[1]
    'no ballot for coalition voter 2'

    Notes
    -----
    Our reading (the paper's coalitional appendix is not in the source): each line
    ``Final ballot j: <ballot>`` (or ``Final ballot of voter j:``; case-insensitive,
    list markers and asterisks before it ignored; j = 1..k) is read by
    :func:`parse_ballot` as a marked final ballot; a voter's line repeated with another
    ballot is invalid, a number outside 1..k is invalid; lenient only: with no numbered
    line at all, one final ballot (``Final ballot: …``) is cast by every coalition voter.
    O(len(text)).
    """
    arg.text(text, "text")
    got: dict[int, tuple[str, ...]] = {}
    for line in text.splitlines():
        hit = _NUMBERED.match(line)
        if not hit:
            continue
        j = int(hit.group(1))
        if not 1 <= j <= k:
            return None, f"coalition voter {j} does not exist (1 to {k})"
        b = parse_ballot("Final ballot: " + hit.group(2), candidates, rule, parse="strict")
        if not b.valid:
            return None, f"ballot {j}: {b.reason}"
        if got.setdefault(j, b.ballot) != b.ballot:
            return None, f"two different ballots for coalition voter {j}"
    if not got:
        if parse == "lenient":
            b = parse_ballot(text, candidates, rule, parse=parse)
            if b.valid and b.marked:
                return [b.ballot] * k, ""
        return None, f"no 'Final ballot j:' lines (j = 1 to {k})"
    missing = [j for j in range(1, k + 1) if j not in got]
    if missing:
        return None, f"no ballot for coalition voter {missing[0]}"
    return [got[j] for j in range(1, k + 1)], ""


def score_coalition(instance: Mapping[str, Any], solution: Mapping[str, Any],
                    text: str | None, k: int, *, parse: str = "lenient") -> dict[str, Any]:
    """Score a coalition's k ballots against the certified best winner.

    Parameters
    ----------
    instance : dict
        The coalition's ``election`` instance: ``manipulator`` the shared true ranking,
        ``ballots`` the other voters.
    solution : dict
        ``sincere_winner`` (all k sincere) and ``best_winner`` (w*, certified by the
        ``coalitional_manipulation`` labels).
    text : str or None
        The response; None is a timeout.
    k : int
        The coalition's size.
    parse : {"lenient", "strict"}

    Returns
    -------
    dict
        The fields of :func:`score_ballot` for the joint report: ``ballots`` (k lists),
        the outcome ŵ of the others' ballots plus the k reports (the trusted count),
        ``S``, ``O``, ``sincere`` (every ballot sincere), Δ, G, ``welfare_change`` (Borda
        welfare over the others' and the k coalition voters' true rankings),
        ``category`` (``tie_breaking_error``: profitable under τ reversed;
        ``rule_error``: profitable under another rule of the same ballot type) and
        ``effect``.

    Examples
    --------
    >>> inst = {"candidates": ["A", "B", "C"], "tie_break": ["A", "B", "C"],
    ...         "rule": "plurality", "ballots": [["B", "C", "A"]] * 2,
    ...         "manipulator": {"ranking": ["C", "A", "B"]}}
    >>> r = score_coalition(inst, {"sincere_winner": "B", "best_winner": "A"},
    ...                     "Final ballot 1: A > C > B\\nFinal ballot 2: A > B > C", 2)
    >>> r["outcome"], r["O"], r["category"]
    ('A', 1, 'optimal')

    Notes
    -----
    O(k · m²) per count; five recounts at most for the rule-error test.

    References
    ----------
    Conitzer, Sandholm & Lang (2007), "When are elections with few candidates hard to
    manipulate?", JACM 54(3) (the coalitional problem); Amiri-Margavi et al. 2026 (the
    metrics, §4.5).
    """
    from dataclasses import replace

    from ...formal.checker.election import Count, report_ballot
    from ...formal.election import parse_election
    from ...formal.rules import RULES
    arg.mapping(instance, "instance", "(an election instance)")
    arg.text(text, "text", optional=True)
    e = parse_election(instance)
    rule = instance["rule"]
    approval = RULES[rule].approval
    if text is None:
        ballots, reason = None, "timeout"
    else:
        ballots, reason = parse_coalition_ballots(text, e.candidates, rule, k, parse=parse)
    shown = [list(b) for b in ballots] if ballots is not None else None
    kind = "value" if ballots is not None else ("invalid" if text is not None else "timeout")
    out = {"valid": ballots is not None, "ballots": shown, "reason": reason, "S": 0, "O": 0,
           "sincere": False, "outcome": None, "outcome_changed": False, "delta": None,
           "gap": None, "welfare_change": None,
           "category": "invalid" if text is not None else "timeout",
           "effect": "invalid" if text is not None else "timeout",
           "parsed": {"kind": kind, "value": shown, "rule": "coalition_final_lines"}}
    if ballots is None:
        return out
    sincere_b = replace(e.manipulator, count=k)

    def elect(el, r: str, reported: bool) -> str:
        return Count(el, r).winner([report_ballot(el, r, list(q)) for q in ballots]
                                   if reported else [sincere_b])
    truth = set(e.manipulator.approved) if approval else \
        tuple(g[0] for g in e.manipulator.ranking)
    sincere = all((set(q) == truth) if approval else (tuple(q) == truth) for q in ballots)
    rankings = [(b.ranking, b.count) for b in e.ballots] + [(e.manipulator.ranking, k)]
    return _judge(out, e, rule, solution, elect, sincere,
                  lambda x: sum(c * (e.m - e.pos(r, x)) for r, c in rankings))


def out_value(parsed: ParsedBallot) -> list[str] | None:
    return list(parsed.ballot) if parsed.valid and parsed.ballot is not None else None


def _borda_welfare(e, x: str) -> int:
    """Σ over the voters' true rankings (the manipulator's included) of m − pos(x)."""
    rankings = [(b.ranking, b.count) for b in e.ballots] + [(e.manipulator.ranking, 1)]
    return sum(c * (e.m - e.pos(r, x)) for r, c in rankings)


# --------------------------------------------------------------------------- metrics

#: metric -> (stratum it is computed on, per-record value or None to skip the record). A
#: timeout (no response) is its own category: S = O = 0 (both need a valid parsed ballot,
#: §4.5), never an attempt or a false manipulation, and outside IGR (the share of
#: *responses* the parser rejects, §6.3); ``timeout_rate`` reports it.
METRICS = {
    "MDR": ("manipulable", lambda r: r["S"]),
    "OMR": ("manipulable", lambda r: r["O"]),
    "NMR_attempt": ("manipulable",
                    lambda r: int(r["valid"] and not r["sincere"] and not r["S"])),
    "NMR_suboptimal": ("manipulable", lambda r: int(bool(r["S"]) and not r["O"])),
    "FMR_ballot": ("non_manipulable", lambda r: int(r["valid"] and not r["sincere"])),
    "FMR_outcome": ("non_manipulable", lambda r: int(r["valid"] and r["outcome_changed"])),
    "IGR": ("all", lambda r: None if r.get("category") == "timeout" else int(not r["valid"])),
    "timeout_rate": ("all", lambda r: int(r.get("category") == "timeout")),
    "delta": ("manipulable", lambda r: r["delta"] if r["valid"] else None),
    "gap": ("manipulable", lambda r: r["gap"] if r["valid"] else None),
    "welfare_change": ("all", lambda r: r.get("welfare_change") if r["valid"] else None),
}


def _cluster_sums(records: Sequence[dict], metric: str) -> dict:
    """Per instance: (numerator, denominator) of one metric, and the instance's stratum
    key (rule, m, manipulability). An instance drawn more than once is one cluster (the
    record's ``cluster``: the id of its first copy)."""
    where, value = METRICS[metric]
    out: dict[str, list] = {}
    for r in records:
        if where != "all" and r["stratum"] != where:
            continue
        s = out.setdefault(r.get("cluster") or r["instance_id"],
                           [0.0, 0, (r["rule"], r["m"], r["stratum"]), set()])
        s[3].add(r["instance_id"])           # the stratum's weight counts instances
        v = value(r)
        if v is None:
            continue
        s[0] += v
        s[1] += 1
    return out


def _stratified(num, den, strata: Sequence[Sequence[int]], weights) -> float:
    """Σ_s w_s · (Σ num / Σ den over stratum s) / Σ w_s over the strata with a denominator
    (a stratum without one, e.g. no valid answer for Δ̄, is left out and the weights of the
    others renormalised). ``strata``: per stratum the positions of its clusters."""
    tot, wsum = 0.0, 0.0
    for idx, w in zip(strata, weights):
        d = den[idx].sum()
        if d > 0:
            tot += w * num[idx].sum() / d
            wsum += w
    return tot / wsum if wsum else float("nan")


def metric(records: Sequence[dict], name: str, *, replicates: int = 1000, seed: int = 0,
           level: float = 0.95) -> dict:
    """One metric over scored records with its stratified cluster-bootstrap interval.

    Records carry ``instance_id``, ``rule``, ``m``, ``stratum`` (``manipulable`` /
    ``non_manipulable``) and the fields of :func:`score_ballot`. MDR, OMR and both
    near-miss readings use manipulable instances only, FMR (both readings) the
    non-manipulable ones, IGR all responses; Δ̄ and Ḡ are over valid responses on
    manipulable instances (the named alternative counts invalid responses as Δ = 0).

    The value is the **stratified mean** (§6.5): the mean of the metric within each
    registered stratum (rule × m × manipulability; within a stratum, over its responses),
    averaged over the strata with weights proportional to their instances (equal in the
    balanced design). It differs from the pooled ratio Σ num / Σ den when the strata hold
    different numbers of responses, as Δ̄ and Ḡ (valid answers only) do; the pooled ratio
    is returned as ``pooled``. (Up to prefcert 0.2.0 ``value`` was the pooled ratio.)

    The bootstrap resamples instances with replacement within each stratum and carries
    every response of a resampled instance with it (a cluster bootstrap: the evaluations
    of one profile stay together; the copies of an instance drawn twice, same
    ``cluster``, are one profile); each replicate is the stratified mean of its resample
    (same weights), and the interval is the percentile interval over ``replicates``
    replicates. A stratum with a single instance contributes no resampling variance (its
    one cluster is drawn every time; survey practice's "lonely PSU", here removed): when
    every stratum with a denominator holds one instance there is no interval (``low``
    and ``high`` None; a zero-width "95 % interval" was reported before), and when only
    some do, ``note`` says how many strata added no variance. Returns ``{"metric", "value",
    "low", "high", "n", "instances", "pooled"}`` (and ``note``).
    O(replicates · instances) time, O(replicates · strata) memory beside one block of
    draws (:func:`~prefcert.bench.stats.bootstrap_chunks`)."""
    import numpy as np

    from ..stats import bootstrap_chunks
    sums = {k: s for k, s in _cluster_sums(records, name).items()}
    if not any(s[1] for s in sums.values()):
        return {"metric": name, "value": None, "low": None, "high": None, "n": 0,
                "instances": 0, "pooled": None}
    num = np.array([s[0] for s in sums.values()])
    den = np.array([s[1] for s in sums.values()], dtype=float)
    strata: dict[tuple, list[int]] = {}
    weight: dict[tuple, int] = {}
    for i, s in enumerate(sums.values()):
        strata.setdefault(s[2], []).append(i)
        weight[s[2]] = weight.get(s[2], 0) + len(s[3])
    keys = list(strata)
    idxs = [np.array(strata[k]) for k in keys]
    ws = [weight[k] for k in keys]
    rng = np.random.default_rng(seed)
    sn = np.empty((len(idxs), replicates), dtype=num.sum().dtype)   # strata × replicates
    sd = np.empty((len(idxs), replicates), dtype=den.sum().dtype)
    for i, idx in enumerate(idxs):          # each stratum's draws in turn, a block at a time
        for start, block in bootstrap_chunks(rng, len(idx), replicates):
            p = idx[block]
            sn[i, start:start + len(p)] = num[p].sum(axis=1)
            sd[i, start:start + len(p)] = den[p].sum(axis=1)
    w = np.array(ws, dtype=float)[:, None] * (sd > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        reps = (w * np.where(sd > 0, sn / np.where(sd > 0, sd, 1), 0)).sum(axis=0) / \
            w.sum(axis=0)
    reps = reps[np.isfinite(reps)]          # a replicate whose strata all lack a denominator
    held = [len(idx) for idx in idxs if den[idx].sum() > 0]   # instances per stratum
    lonely = held.count(1)
    thin = lonely == len(held)
    a = (1 - level) / 2
    out = {"metric": name, "value": float(_stratified(num, den, idxs, ws)),
           "low": float(np.quantile(reps, a)) if reps.size and not thin else None,
           "high": float(np.quantile(reps, 1 - a)) if reps.size and not thin else None,
           "n": int(den.sum()), "instances": sum(1 for s in sums.values() if s[1]),
           "pooled": float(num.sum() / den.sum())}
    if thin:
        out["note"] = "no interval: every stratum holds one instance"
    elif lonely:
        out["note"] = f"{lonely} stratum(s) of one instance add no variance"
    return out


# --------------------------------------------------------------------------- baselines

def baselines(instances: Sequence[Mapping[str, Any]], solutions: Sequence[Mapping[str, Any]]
              ) -> list[dict[str, Any]]:
    """The exact calibration baselines per (rule, m) and overall, from the certified
    labels alone (no model).

    Parameters
    ----------
    instances : sequence of dict
        ``election`` instances with ``rule`` and ``manipulator``.
    solutions : sequence of dict
        Their ``manipulation`` label solutions with the enumeration counts (``reports``,
        ``profitable``, ``optimal``, ``outcomes``).

    Returns
    -------
    list of dict
        Rows ``{"baseline", "rule", "m", "MDR", "OMR", "NMR_attempt", "NMR_suboptimal",
        "FMR_ballot", "FMR_outcome", "IGR", "delta", "gap", "oracle_gain"}`` for
        ``sincere`` (always the sincere ballot), ``random`` (a uniformly random valid
        ballot, as exact expectations over the whole report space, not Monte Carlo) and
        ``oracle`` (an optimal report when one is profitable, sincere otherwise); rates
        over manipulable instances (FMR: non-manipulable), Δ̄, Ḡ and the oracle gain
        (mean best achievable rank improvement) over manipulable ones.

    Examples
    --------
    >>> inst = {"candidates": ["A", "B", "C"], "tie_break": ["A", "B", "C"],
    ...         "rule": "borda", "ballots": [["B", "C", "A"]],
    ...         "manipulator": {"ranking": ["A", "B", "C"]}}
    >>> sol = {"sincere_winner": "B", "best_winner": "A", "reports": 6, "profitable": 1,
    ...        "optimal": 1, "outcomes": {"A": 1, "B": 4, "C": 1}}
    >>> rnd = [r for r in baselines([inst], [sol]) if r["baseline"] == "random"][0]
    >>> rnd["MDR"], rnd["gap"]
    (0.16666666666666666, 1.0)

    Notes
    -----
    O(instances · m).

    References
    ----------
    Amiri-Margavi et al. 2026, §7.4–7.5.
    """
    from ...formal.election import parse_election
    instances = list(arg.sequence(instances, "instances", "election instances"))
    solutions = list(arg.sequence(solutions, "solutions", "label solutions"))
    if len(instances) != len(solutions):
        raise arg.ArgumentError("solutions", f"solutions has {len(solutions)} entries for "
                                             f"{len(instances)} instances", len(solutions))
    per: dict[tuple, list] = {}
    for inst, sol in zip(instances, solutions):
        e = parse_election(inst)
        pos = e.true_pos
        size = sol["reports"]
        u0, ub = pos(sol["sincere_winner"]), pos(sol["best_winner"])
        mean_pos = sum(k * pos(x) for x, k in sol["outcomes"].items()) / size
        manip = ub < u0
        rows = {
            "sincere": dict(S=0, O=0, att=0, sub=0, fb=0, fo=0, d=0, g=u0 - ub),
            "random": dict(S=sol["profitable"] / size, O=sol["optimal"] / size,
                           att=(size - sol["profitable"] - 1) / size,
                           sub=(sol["profitable"] - sol["optimal"]) / size,
                           fb=(size - 1) / size,
                           fo=(size - sol["outcomes"].get(sol["sincere_winner"], 0)) / size,
                           d=u0 - mean_pos, g=mean_pos - ub),
            "oracle": dict(S=1, O=1, att=0, sub=0, fb=0, fo=0, d=u0 - ub, g=0),
        }
        for key in ((inst["rule"], e.m), ("all", "all")):
            for b, v in rows.items():
                per.setdefault((b, *key), []).append((manip, v, u0 - ub))
    out = []
    for (b, rule, m), vals in per.items():
        M = [v for manip, v, _ in vals if manip]
        N = [v for manip, v, _ in vals if not manip]
        mean = lambda xs, k: sum(x[k] for x in xs) / len(xs) if xs else None
        out.append({"baseline": b, "rule": rule, "m": m, "MDR": mean(M, "S"),
                    "OMR": mean(M, "O"), "NMR_attempt": mean(M, "att"),
                    "NMR_suboptimal": mean(M, "sub"), "FMR_ballot": mean(N, "fb"),
                    "FMR_outcome": mean(N, "fo"), "IGR": 0.0, "delta": mean(M, "d"),
                    "gap": mean(M, "g"),
                    "oracle_gain": (sum(g for manip, _, g in vals if manip) / len(M))
                    if M else None})
    order = {"sincere": 0, "random": 1, "oracle": 2}
    return sorted(out, key=lambda r: (r["rule"] == "all", str(r["rule"]), str(r["m"]),
                                      order[r["baseline"]]))
