"""Reading model answers: one reader per answer shape, one documented policy, every reading
named by the rule that produced it.

Every suite, ``prefcert score``, :func:`prefcert.score_answer`, :func:`prefcert.score_response`
and ``prefcert audit`` read answers here, so one text gets one reading wherever it is scored.
A reader never raises: it returns a :class:`Reading` whose ``kind`` is

``value``      the answer states a value (``value`` holds it, typed by shape);
``abstain``    the answer says the question cannot be settled ("cannot be determined",
               "neither", "incomparable", "not enough information", the multiple-choice
               abstain option's own text, …: :data:`ABSTAIN_PHRASES`) as the answer it
               states: the last statement that abstains or states a value decides
               (:func:`stated_abstention`; negated, attributive and aside phrases do not
               count, Khanna & Wang §2.2, H.4);
``none``       the answer claims that no such outcome / option exists (``{}``, "none of the
               above", "no super-stable matching exists", a dictionary of ``"None"``);
``ambiguous``  two different answers with nothing saying which is final, or a text a careful
               grader could not settle ("B, C", "yes/no", "$30-$40");
``invalid``    no answer can be read (``reason`` says why).

**Which answer counts** (:func:`segment`): the last ``<answer>…</answer>`` block; else the last
line marked final (``Final answer:``, ``Final ballot:``, ``### Final ballot``, ``My final
ballot:`` …; drafts before it are ignored); else the lines marked ``Answer:`` (``Ballot:``,
``Ranking:`` …) when they agree (two that disagree are ``ambiguous``); else the last fenced
code block; else the last ``\\boxed{}``; else the text itself, read from its last statement
backwards (the last paragraph that states an answer).

**Strict parsing** (``mode="strict"``): only the papers' literal protocol — the ``<answer>``
tag (Khanna & Wang 2026), the ``Final ballot:`` line (Amiri-Margavi et al. 2026, §6.3), the
bare JSON object (Li et al. 2026), a number-only answer (Ford et al. 2026) — everything else
is invalid. The default, ``lenient``, applies the whole policy.

``Reading.rule`` names what read the answer: where the answer was found (``answer_tag``,
``final_line``, ``answer_line``, ``code_fence``, ``boxed``, ``last_statement``, ``text``) and
how the value was read (``bold``, ``option_text``, ``option_letter``, ``json``,
``abstain_phrase:<phrase>``, ``none_phrase:<phrase>``, ``range``, …), joined by ``/``. The
names are listed in ``docs/suites.md``.

References: Khanna & Wang 2026 (§2.2, F.2.2, K); Amiri-Margavi et al. 2026 (§6.3); Li et al.
2026 (§3.4, App. J); Ford et al. 2026 (Table 6). The hand-written corpus in
``tests/data/answers`` (readings R1–R17 of its README) is the specification.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

MODES = ("lenient", "strict")

#: phrases (lower case, matched on word boundaries) that make an answer an abstention
ABSTAIN_PHRASES = (
    "cannot be determined", "can't be determined", "can not be determined",
    "cannot determine", "can't determine", "cannot be known", "can't be known",
    "cannot tell", "can't tell", "cannot be decided", "cannot decide", "can't decide",
    "can not decide", "cant decide", "not enough information", "insufficient information",
    "insufficient to decide",
    "not enough info", "not determined", "undetermined", "indeterminate", "undecided",
    "uncertain", "unknowable", "unknown", "not known", "incomparable", "not comparable",
    "it depends", "depends on", "neither", "no preference", "not listed", "i don't know",
    "don't know", "dont know", "not settled", "cannot be settled",
    "impossible to tell", "impossible to say", "impossible to determine", "impossible to know",
    "impossible to decide", "not possible to determine", "not possible to tell",
    "not possible to say", "not possible to know", "not determinable", "indeterminable",
    "no way to tell", "no way to know",
)
#: whole answers (normalised) that are an abstention only when they are all there is
ABSTAIN_EXACT = frozenset({"none", "n/a", "na", "no answer", "?", "not applicable"})
#: phrases that claim no outcome / option exists
NONE_PHRASES = (
    "none of the above", "none of the options", "none of these", "no option",
    "no valid option", "nota", "no such", "does not exist", "doesn't exist",
    "do not exist", "is empty", "no solution", "none exists", "none exist",
)
_NONE_EXISTS = re.compile(r"\bno\s+(?:[\w-]+\s+){0,3}(?:matching|allocation|outcome|"
                          r"assignment|solution|option)s?\s+(?:exists?|is possible|can be)|"
                          r"\bthere (?:is|are) no\s+(?:[\w-]+\s+){0,3}(?:matching|allocation|"
                          r"outcome|assignment|solution|option)s?\b", re.I)

_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S | re.I)
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)```", re.S)
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")
_MD_LEAD = r"[ \t>*_#-]*"
#: markers that make a line final (case-insensitive, at a line start, markdown allowed)
_FINAL = re.compile(
    _MD_LEAD + r"(?:my\s+)?final\s+(?:answer|ballot|vote|ranking|matching|allocation|choice|"
    r"response|selection)\b[ \t*_]*(?:[:：]|\s*$|(?=\s*\n))[ \t*_]*(.*)$", re.I | re.M)
#: weaker markers: the answer is stated on this line, but drafts may repeat it
_MARKED = re.compile(
    _MD_LEAD + r"(?:answer|ballot|ranking|position|count|choice|result|matching|"
    r"allocation)[ \t*_]*[:：][ \t*_]*(.*)$", re.I | re.M)
_IE = re.compile(r"\bi\.e\.,?\s*(.+)$", re.I | re.S)


@dataclass(frozen=True)
class Reading:
    """What an answer says: ``kind`` (``value``, ``abstain``, ``none``, ``ambiguous``,
    ``invalid``), the ``value`` (typed by shape; None otherwise), the ``rule`` that read it
    and, for invalid and ambiguous readings, the ``reason``."""

    kind: str
    value: Any = None
    rule: str = ""
    reason: str | None = None

    def to_json(self) -> dict:
        return {"kind": self.kind, "value": self.value, "rule": self.rule}

    def at(self, where: str) -> Reading:
        """The same reading with ``where`` (the segment's rule) in front of its rule."""
        rule = where if not self.rule else (self.rule if self.rule.startswith(where)
                                              else f"{where}/{self.rule}")
        return Reading(self.kind, self.value, rule, self.reason)


def invalid(reason: str, rule: str = "") -> Reading:
    return Reading("invalid", None, rule, reason)


def ambiguous(reason: str, rule: str = "") -> Reading:
    return Reading("ambiguous", None, rule, reason)


# ----------------------------------------------------------------------------- text helpers

def normalise(s: str) -> str:
    """Lower case, typographic quotes made plain, markdown emphasis and spaces collapsed,
    outer quotes and end punctuation dropped."""
    s = s.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"') \
        .replace("\u201d", '"').lower()
    s = re.sub(r"[*_`]+", "", s)
    s = re.sub(r"\s+", " ", s).strip()
    return s.strip(" \"'").rstrip(".!;").strip()


def phrase_in(text: str, phrases: Iterable[str]) -> str | None:
    """The first of ``phrases`` found in ``text`` on word boundaries (normalised), else None."""
    t = normalise(text)
    for p in phrases:
        if re.search(rf"(?<![\w]){re.escape(p)}(?![\w])", t):
            return p
    return None


#: words that negate an abstention phrase within the three words before it, same clause
_NEGATION = re.compile(r"(?:\bnot|n't|\bnever|\bno longer|\bhardly)(?:\s+[\w']+){0,2}\s*$")
#: nouns after which "unknown", "uncertain" … are attributive ("the unknown items"), not the
#: answer
_ATTRIBUTIVE = re.compile(r"(?:unknown|uncertain|undetermined|unknowable)\s+(?:items?|"
                          r"alternatives?|choices?|positions?|parts?|entries|entry|ranks?|"
                          r"order|places?|elements?|options?|candidates?|ones?)\b")


def _abstain_phrase(text: str) -> str | None:
    """The first abstention phrase of ``text`` (normalised) that is neither negated ("not
    unknown", "isn't uncertain") nor attributive ("the unknown items"), else None."""
    t = normalise(text)
    for p in ABSTAIN_PHRASES:
        for m in re.finditer(rf"(?<![\w]){re.escape(p)}(?![\w])", t):
            before = re.split(r"[.,;:!?()]", t[:m.start()])[-1]
            if _NEGATION.search(before) or _ATTRIBUTIVE.match(t, m.start()):
                continue
            return p
    return None


def abstention(text: str, exact_ok: bool = True) -> Reading | None:
    """An abstention reading when ``text`` says the question cannot be settled (a negated
    or attributive phrase does not count: :func:`_abstain_phrase`)."""
    n = normalise(text)
    if exact_ok and n in ABSTAIN_EXACT:
        return Reading("abstain", None, f"abstain_word:{n}")
    p = _abstain_phrase(text)
    return Reading("abstain", None, f"abstain_phrase:{p}") if p else None


# A statement ends at a sentence end, a line break or a semicolon, and before a contrast or
# conclusion ("…, but", "…, so", "therefore" …). Asides are not statements: parenthetical
# remarks, concessive clauses ("though …", "although …"), reasons ("because …") and the
# answerer's own confidence ("I am uncertain", "I'm not sure").
_STATEMENT_END = re.compile(
    r"(?<=[.!?])\s+|\n+|;\s*|,?\s+(?=(?:but|however|yet|so|thus|hence|therefore|"
    r"consequently|which means|meaning)\b)", re.I)
_CONCESSIVE_LEAD = re.compile(r"^\s*(?:although|though|even though|even if|while|whereas)\b"
                              r"[^,]*(?:,\s*|$)", re.I)
_ASIDE_TAIL = re.compile(r",?\s*\b(?:though|although|even though|albeit|because|since)\b.*$",
                         re.I | re.S)
_HEDGE = re.compile(r"^\W*(?:but\s+|and\s+)?(?:i(?:'m| am)\s+(?:\w+\s+)?(?:uncertain|"
                    r"unsure|not (?:entirely |completely |fully |100% )?(?:sure|certain))|"
                    r"i(?: do not|'m not|don't) know for sure|not sure)\b", re.I)


def statements(text: str) -> tuple[list[str], list[str]]:
    """(statements, asides) of a text, each in order: see :data:`_STATEMENT_END`."""
    asides: list[str] = []

    def drop(m: re.Match) -> str:
        asides.append(m.group(0))
        return " "
    prev = None
    t = text
    while prev != t:
        prev, t = t, re.sub(r"\([^()]*\)", drop, t)
    out = []
    for part in _STATEMENT_END.split(t):
        part = (part or "").strip()
        if not part:
            continue
        lead = _CONCESSIVE_LEAD.match(part)
        if lead:
            asides.append(lead.group(0))
            part = part[lead.end():]
        tail = _ASIDE_TAIL.search(part)
        if tail and tail.start() > 0:
            asides.append(tail.group(0))
            part = part[:tail.start()]
        if _HEDGE.match(part):
            asides.append(part)
            continue
        if part.strip(" ,.;:"):
            out.append(part)
    return out, asides


#: a statement that concludes: "so …", "therefore …", "the answer is …"
_CONCLUSION = re.compile(r"^\W*(?:so|thus|hence|therefore|consequently|which means|meaning|"
                         r"the (?:final )?answer is|answer\s*:)\b", re.I)


def stated_abstention(text: str, states: Callable[[str], bool]) -> Reading | None:
    """An abstention when it is the answer stated: the last statement of ``text``
    (:func:`statements`) that either abstains or states a value (``states``) abstains.
    An abstention in an aside ("C5, though I am uncertain") counts only when no statement
    abstains or states a value (Khanna & Wang §2.2: a response that commits to an answer
    is a commitment, even when it names an assumption or a doubt; H.4, Table 16)."""
    stmts, asides = statements(text)
    for s in reversed(stmts):
        a = abstention(s, exact_ok=False)
        if a:
            return a
        if states(s):
            return None
    for s in reversed(asides):
        a = abstention(s, exact_ok=False)
        if a:
            return a
    return None


def _states(reader: Callable[[str, Mapping[str, Any]], Reading], ctx: Mapping[str, Any]
            ) -> Callable[[str], bool]:
    """Whether a statement states a value of the shape ``reader`` reads (read with the
    abstention check off); a statement that an item is absent ("C5 is not in the list")
    states no value."""
    sub = dict(ctx, _no_abstain=True)

    def states(s: str) -> bool:
        if _ABSENT.search(s):
            return False
        return reader(s, sub).kind == "value"
    return states


_ABSENT = re.compile(r"\bnot (?:in|on|among|part of)\b|does(?:n't| not) appear|\babsent\b|"
                     r"\bmissing\b|\bnot listed\b|\bnot ranked\b|\bunranked\b|\bunlisted\b",
                     re.I)


def _abstains(body: str, ctx: Mapping[str, Any],
              reader: Callable[[str, Mapping[str, Any]], Reading]) -> Reading | None:
    """The abstention a body states (:func:`stated_abstention`), None inside a statement
    test."""
    if ctx.get("_no_abstain"):
        return None
    return stated_abstention(body, _states(reader, ctx))


def none_claim(text: str) -> Reading | None:
    """A ``none`` reading when ``text`` claims that no outcome or option exists."""
    p = phrase_in(text, NONE_PHRASES)
    if p:
        return Reading("none", None, f"none_phrase:{p}")
    m = _NONE_EXISTS.search(text)
    return Reading("none", None, "none_phrase:no ... exists") if m else None


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def _strip_parens(s: str) -> str:
    prev = None
    while prev != s:
        prev, s = s, re.sub(r"\([^()]*\)", " ", s)
    return s


def _bold(text: str) -> list[str]:
    return [m.strip() for m in re.findall(r"\*\*(.+?)\*\*|__(.+?)__", text, re.S)
            for m in m if m]


# ----------------------------------------------------------------------------- segments

@dataclass(frozen=True)
class Segment:
    """Where the answer was found: ``text`` and the ``rule`` that chose it;
    ``alternatives``: the other answers marked the same way (drafts), to compare."""

    text: str
    rule: str
    alternatives: tuple[str, ...] = ()


def _marked(pattern: re.Pattern, text: str, stops: tuple[re.Pattern, ...] | None = None,
            keep_empty: bool = False) -> list[str]:
    """The bodies of the marked lines: the rest of the line, else the lines below it up to a
    blank line or a line matching one of ``stops`` (default: ``pattern`` and the final-answer
    marker); ``keep_empty``: a marker with no body gives an empty body."""
    stops = (pattern, _FINAL) if stops is None else stops
    out = []
    for mt in pattern.finditer(text):
        rest = (mt.group(1) or "").strip()
        if rest:
            out.append(rest)
            continue
        lines = []
        for line in text[mt.end():].lstrip("\n").splitlines():
            if not line.strip() or any(p.match(line) for p in stops):
                break
            lines.append(line)
        if lines or keep_empty:
            out.append("\n".join(lines))
    return out


def segments(text: str) -> list[Segment]:
    """The candidate answer segments of a response, best first (see the module docstring)."""
    out: list[Segment] = []
    tags = _ANSWER.findall(text)
    if tags:
        out.append(Segment(tags[-1].strip(), "answer_tag"))
    finals = _marked(_FINAL, text)
    if finals:
        out.append(Segment(finals[-1], "final_line", tuple(finals[:-1])))
    marked = _marked(_MARKED, text)
    if marked:
        out.append(Segment(marked[-1], "answer_line", tuple(marked[:-1])))
    fences = _FENCE.findall(text)
    if fences:
        out.append(Segment(fences[-1].strip(), "code_fence"))
    boxed = _BOXED.findall(text)
    if boxed:
        out.append(Segment(boxed[-1].strip(), "boxed"))
    ie = _IE.search(text)
    if ie and not out:
        out.append(Segment(ie.group(1).strip(), "ie"))
    out.append(Segment(text.strip(), "text"))
    return out


def answer_body(text: Any) -> str | None:
    """The text of the segment that counts (the first of :func:`segments`); None for a
    non-string."""
    if not isinstance(text, str):
        return None
    return segments(text)[0].text


# ----------------------------------------------------------------------------- the reader

Reader = Callable[[str, Mapping[str, Any]], Reading]


def read(shape: str, text: Any, *, mode: str = "lenient", **context: Any) -> Reading:
    """Read ``text`` as an answer of ``shape`` (a key of :data:`READERS`).

    Parameters
    ----------
    shape : str
        ``item``, ``int``, ``ranking``, ``bundle``, ``items``, ``yesno``, ``letter`` (alias
        ``mcq``), ``outcome``, ``ballot``, ``decision`` or ``number``.
    text : str
        The response.
    mode : {"lenient", "strict"}
        ``strict`` reads only the papers' literal protocol (see the module docstring).
    **context
        What the shape's reader needs: ``vocab`` (item names), ``bundles`` (the two
        bundles offered), ``options`` (letter -> option text), ``abstain_option``,
        ``nota_option``, ``option_shape`` (the shape of the options' text), ``agents`` /
        ``partners`` (the two sides of an outcome; names in another case are read as
        these), ``candidates`` and ``approval``
        (ballots), ``names`` (decision tasks), ``ranges`` (numbers: ``ambiguous`` or
        ``midpoint``).

    Returns
    -------
    Reading
        Never raises: a reader bug is an ``invalid`` reading naming the error.

    Notes
    -----
    Linear in the length of the text for every shape but ``decision`` (quadratic at worst:
    every ``{`` is tried as the start of a JSON object). References: see the module
    docstring.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if not isinstance(text, str):
        return invalid("no text", "no_text")
    if not text.strip():
        return invalid("empty answer", "empty")
    shape = "letter" if shape == "mcq" else shape
    try:
        spec = READERS[shape]
    except KeyError:
        return invalid(f"unknown answer shape {shape!r}", "unknown_shape")
    ctx = dict(context, full_text=text, mode=mode)
    try:
        return spec.read(text, ctx)
    except Exception as e:                          # a reader bug must not crash scoring
        return invalid(f"reader error: {e.__class__.__name__}: {e}", "reader_error")


@dataclass(frozen=True)
class Shape:
    """One answer shape: ``body`` reads one segment's text; ``strict`` says which segments
    the papers' protocol admits (``answer_tag`` by default); ``prose`` whether the text
    itself is read from its last statement backwards."""

    body: Reader
    strict: tuple[str, ...] = ("answer_tag",)
    prose: bool = True
    same: Callable[[Any, Any], bool] = lambda a, b: a == b

    def read(self, text: str, ctx: dict) -> Reading:
        segs = segments(text)
        if ctx["mode"] == "strict":
            seg = next((s for s in segs if s.rule in self.strict), None)
            if seg is None:
                return invalid(f"strict parsing reads only {', '.join(self.strict)}",
                               "strict:no_protocol_answer")
            return self.body(seg.text, ctx).at(seg.rule)
        for seg in segs:
            if seg.rule == "text":
                return self._prose(seg.text, ctx)
            r = self.body(seg.text, ctx)
            if seg.alternatives and r.kind in ("value", "abstain", "none"):
                others = [self.body(a, ctx) for a in seg.alternatives]
                if any(o.kind != r.kind or not self.same(o.value, r.value) for o in others
                       if o.kind in ("value", "abstain", "none")):
                    if seg.rule == "answer_line":
                        return ambiguous("several different answers, none marked final",
                                         "answer_line/several_answers")
            r = self._last_statement(seg.text, ctx, r)
            if seg.rule in ("answer_tag", "final_line") or r.kind != "invalid":
                return r.at(seg.rule)
        return invalid("no answer", "no_answer")                # (not reached)

    def _last_statement(self, text: str, ctx: dict, r: Reading) -> Reading:
        """An ambiguous reading settled by the last statement (:func:`statements`) that
        reads, when it is a conclusion (:data:`_CONCLUSION`): the reasoning names several
        answers, the conclusion states one ("…, so A25 prefers {C32, C6}"); a last
        statement that is itself ambiguous, or not a conclusion ("A prefers C18 over C47,
        but C47 is ranked above C18": a contradiction), keeps ``r``."""
        if r.kind != "ambiguous" or not self.prose:
            return r
        stmts, _ = statements(text)
        if len(stmts) < 2:
            return r
        for st in reversed(stmts):
            x = self.body(st, ctx)
            if x.kind in ("value", "abstain", "none"):
                return x.at("last_statement") if _CONCLUSION.match(st) else r
            if x.kind == "ambiguous":
                return r
        return r

    def _prose(self, text: str, ctx: dict) -> Reading:
        whole = self.body(text, ctx)
        if whole.kind not in ("invalid", "ambiguous") or not self.prose:
            return whole.at("text")
        paras = paragraphs(text)
        for p in reversed(paras if len(paras) > 1 else []):
            r = self.body(p, ctx)
            if whole.kind == "ambiguous":       # the reasoning names several; the last
                return r.at("last_statement") if r.kind in ("value", "abstain", "none") \
                    else self._last_statement(p, ctx, whole).at("text")   # paragraph
            if r.kind != "invalid":                                    # may settle it
                return r.at("last_statement")
        if whole.kind == "ambiguous" and len(paras) <= 1:
            return self._last_statement(text, ctx, whole).at("text")
        return whole.at("text")


# ----------------------------------------------------------------------------- names

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*[0-9][A-Za-z0-9_]*|[A-Za-z][A-Za-z0-9_]*")


def _vocab(ctx: Mapping[str, Any], key: str = "vocab") -> dict[str, str] | None:
    v = ctx.get(key)
    return None if v is None else {str(x).lower(): str(x) for x in v}


def _name_tokens(text: str, vocab: dict[str, str]) -> list[tuple[int, int, str]]:
    """(start, end, canonical name) of every vocabulary name in ``text``."""
    out = []
    for m in re.finditer(r"[A-Za-z0-9_]+", text):
        c = vocab.get(m.group(0).lower())
        if c is not None:
            out.append((m.start(), m.end(), c))
    return out


def _looks_like_name(token: str, vocab: dict[str, str]) -> bool:
    """A token shaped like the vocabulary's names (same letter prefix, then digits)."""
    m = re.fullmatch(r"([A-Za-z]+)(\d+)", token)
    if not m:
        return False
    prefixes = {re.match(r"[A-Za-z]*", v).group(0).lower() for v in vocab.values()}
    return m.group(1).lower() in prefixes


def _clean_list(body: str, vocab: dict[str, str] | None) -> tuple[list[str] | None, str]:
    """A body that is nothing but a list of names (JSON list, ``>`` / ``≻`` / comma / ``and``
    separated, numbered lines, brackets or braces): (names, "") or (None, why not)."""
    s = body.strip()
    try:
        v = json.loads(s)
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            s = ", ".join(v)
    except (ValueError, RecursionError):
        pass
    s = re.sub(r"^\s*(?:\d+\s*[.):]|[-*•])\s*", "", s, flags=re.M)
    s = s.replace("&gt;", ">")
    s = re.sub(r"[\[\]{}()\"'`*]", " ", s)
    parts = [p.strip(" .;:\t") for p in re.split(r"\s*(?:>|≻|,|;|\n|\band\b|\bthen\b)\s*", s)]
    parts = [p for p in parts if p]
    if not parts:
        return None, "no names"
    if len(parts) == 1 and " " in parts[0]:
        parts = parts[0].split()
    out: list[str] = []
    for p in parts:
        if vocab is None:
            if " " in p:
                return None, f"not a name: {p!r}"
            out.append(p)
            continue
        c = vocab.get(p.lower())
        if c is None:
            return None, f"not an alternative: {p!r}"
        out.append(c)
    return out, ""


def _chains(text: str, vocab: dict[str, str], seps: str = r"\s*(?:>|≻|&gt;)\s*"
            ) -> list[list[str]]:
    """Maximal runs of names joined by the separators ``seps``."""
    toks = _name_tokens(text, vocab)
    chains: list[list[str]] = []
    cur: list[str] = []
    last_end = None
    for s, e, c in toks:
        if cur and last_end is not None and re.fullmatch(seps, text[last_end:s]):
            cur.append(c)
        else:
            if cur:
                chains.append(cur)
            cur = [c]
        last_end = e
    if cur:
        chains.append(cur)
    return chains


# ----------------------------------------------------------------------------- item

def _item(body: str, ctx: Mapping[str, Any]) -> Reading:
    vocab = _vocab(ctx)
    b = body.strip()
    n = normalise(b)
    if n in ABSTAIN_EXACT or re.fullmatch(r"-?1", n) and _gloss(ctx):
        return Reading("abstain", None, f"abstain_word:{n}")
    if vocab is None:
        tok = n.strip("()[]{}.,;:")
        return Reading("value", tok, "name") if tok and " " not in tok else \
            invalid("not an item name", "not_a_name")
    whole = vocab.get(n.strip("()[]{}.,;:").strip())
    if whole is not None:
        return Reading("value", whole, "name")
    if re.fullmatch(r"[A-Za-z]+\d+", n.strip("()[]{}.,;:").strip()):
        return invalid(f"not an alternative: {b!r}", "unknown_name")
    a = _abstains(b, ctx, _item)
    if a:
        return a
    for part in reversed(_bold(b)):
        names = {c for _, _, c in _name_tokens(part, vocab)}
        if len(names) == 1:
            return Reading("value", names.pop(), "bold")
    chains = [c for c in _chains(b, vocab) if len(c) >= 2]
    if len(chains) == 1 and len(set(_names(b, vocab))) == len(chains[0]):
        return Reading("value", chains[0][0], "comparison_chain")
    names = list(dict.fromkeys(_names(b, vocab)))
    stated = {better for better, worse in _preferences_stated(b, vocab)
              if {better, worse} == set(names)}
    if len(names) == 2 and len(stated) == 1 and \
            not re.search(r"\b(?:not|never|no)\b|n't\b", b, re.I):
        return Reading("value", stated.pop(), "preference_statement")
    if len(names) == 1:
        return Reading("value", names[0], "one_name")
    if len(names) > 1:
        return ambiguous(f"names several alternatives ({', '.join(names[:4])})",
                         "several_names")
    return invalid("no alternative named", "no_name")


_PREFERS = (r"\bprefers?\s+({n})\s+(?:to|over|rather than|above)\s+({n})\b",
            r"\b({n})\s+(?:is|would be)\s+(?:preferred|liked better|ranked (?:higher|above|"
            r"ahead))\s+(?:to|over|than|above|of)\s+({n})\b",
            r"\b({n})\s+(?:is|would be)\s+(?:ranked\s+)?(?:above|ahead of|better than)\s+({n})\b")


def _preferences_stated(text: str, vocab: dict[str, str]) -> list[tuple[str, str]]:
    """(better, worse) of every sentence "prefers X to Y", "X is preferred to Y", "X is
    ranked above Y" in ``text`` (names of ``vocab``)."""
    n = r"[A-Za-z][A-Za-z0-9_]*"
    out = []
    for pat in _PREFERS:
        for m in re.finditer(pat.format(n=n), text, re.I):
            a, b = vocab.get(m.group(1).lower()), vocab.get(m.group(2).lower())
            if a and b:
                out.append((a, b))
    return out


def _names(text: str, vocab: dict[str, str]) -> list[str]:
    return [c for _, _, c in _name_tokens(text, vocab)]


def _gloss(ctx: Mapping[str, Any]) -> bool:
    """The response glosses a -1 sentinel as "not in the list"."""
    return bool(re.search(r"not (?:in|on|among|part of)\b|does(?:n't| not) appear|absent|"
                          r"missing|not listed|not ranked|unranked", ctx.get("full_text", ""),
                          re.I))


# ----------------------------------------------------------------------------- int

_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate(
    "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if w != "_"}
_ORD = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
        "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12}


def number_words(text: str) -> str:
    """``text`` with English number words (up to the millions) written as digits."""
    units = {**_WORDS, **_TENS}
    pat = r"\b(?:" + "|".join(sorted([*units, "hundred", "thousand", "million", "and"],
                                     key=len, reverse=True)) + r")(?:[\s-]+(?:" + \
        "|".join(sorted([*units, "hundred", "thousand", "million", "and"], key=len,
                        reverse=True)) + r"))*\b"

    def value(m: re.Match) -> str:
        words = [w for w in re.split(r"[\s-]+", m.group(0).lower()) if w != "and"]
        if not words or all(w in ("hundred", "thousand", "million") for w in words):
            return m.group(0)
        total = cur = 0
        for w in words:
            if w in units:
                cur += units[w]
            elif w == "hundred":
                cur = max(cur, 1) * 100
            else:
                total += max(cur, 1) * (1000 if w == "thousand" else 1_000_000)
                cur = 0
        lead = " " if m.group(0)[-1:] == " " else ""
        return str(total + cur) + lead
    out = re.sub(pat, value, text, flags=re.I)
    return re.sub(r"\b(" + "|".join(_ORD) + r")\b", lambda m: f"{_ORD[m.group(1).lower()]}th",
                  out, flags=re.I)


def _int(body: str, ctx: Mapping[str, Any]) -> Reading:
    b = body.strip()
    n = normalise(b)
    if n in ABSTAIN_EXACT:
        return Reading("abstain", None, f"abstain_word:{n}")
    if re.fullmatch(r"-\s*1", n.split("(")[0].strip()) and _gloss(ctx):
        return Reading("abstain", None, "sentinel_gloss")
    a = _abstains(b, ctx, _int)
    if a:
        return a
    s = number_words(b)
    s = re.sub(r"\b[A-Za-z]+\d+\w*", " ", s)                  # names such as C51, A3
    s = re.sub(r"\b\d+\s*-?\s*(?:indexed|based)\b", " ", s, flags=re.I)
    s = re.sub(r"\b(?:out\s+of|of)\s+\d+", " ", s, flags=re.I)
    found = [int(x.replace(",", "")) for x in
             re.findall(r"(?<![\w.])[-+]?\d{1,3}(?:,\d{3})+(?![\w.]*\d)|(?<![\w.])[-+]?\d+"
                        r"(?=st\b|nd\b|rd\b|th\b|(?![\w.]*\d))", s)]
    vals = list(dict.fromkeys(found))
    if len(vals) == 1:
        return Reading("value", vals[0], "one_number")
    if len(vals) > 1:
        return ambiguous(f"states several numbers ({', '.join(map(str, vals[:4]))})",
                         "several_numbers")
    return invalid("no number", "no_number")


# ----------------------------------------------------------------------------- ranking

_ORDINALS = re.compile(r"\b(?:first|second|third|fourth|fifth|next|last|finally)\b", re.I)


def _ranking(body: str, ctx: Mapping[str, Any]) -> Reading:
    vocab = _vocab(ctx)
    b = body.strip()
    n = normalise(b)
    if n in ABSTAIN_EXACT:
        return Reading("abstain", None, f"abstain_word:{n}")
    wrapped = _json_answer(b)
    if wrapped is not None:                          # {"answer": ["C2", "C1", "C3"]}
        return _ranking(wrapped, ctx).at("json")
    asc = _ascending(b, vocab)
    if asc is not None:
        return asc
    clean, why = _clean_list(_strip_parens(b), vocab)
    rule = "list"
    if clean is None and vocab is not None:         # "C2 first, then C1, then C4"
        clean, rule = _clean_list(_ORDINALS.sub(" ", _strip_parens(b)), vocab)[0], "ordered_words"
    if clean is not None:
        if len(set(clean)) != len(clean):
            return invalid("an alternative appears twice", "repeated_name")
        return Reading("value", clean, rule)
    if vocab is not None and _short(b):
        bad = [t for t in re.findall(r"[A-Za-z]+\d+", b) if t.lower() not in vocab]
        if bad and _looks_like_name(bad[0], vocab):
            return invalid(f"not an alternative: {bad[0]!r}", "unknown_name")
    a = abstention(_strip_parens(b), exact_ok=False)
    if vocab is None:
        return a or invalid(why, "not_a_ranking")
    chains = [c for c in _chains(_strip_parens(b), vocab) if len(c) >= 2]
    if chains:
        last = chains[-1]
        if len(set(last)) != len(last):
            return invalid("an alternative appears twice", "repeated_name")
        return Reading("value", last, "chain")
    return a or invalid(why, "not_a_ranking")


_LESS = r"\s*(?:<|≺|&lt;)\s*"


def _ascending(b: str, vocab: dict[str, str] | None) -> Reading | None:
    """A ranking written worst first with ``<`` (or ``≺``): ``C22 < C44 < C15`` is "C22 is
    less preferred than C44 …", the mirror of ``C15 > C44 > C22``, so it is read reversed,
    best first (rule ``ascending_chain``); None unless the body is only such a chain."""
    s = _strip_parens(b).strip().rstrip(".")
    if vocab is None or re.search(r">|≻|&gt;", s) or \
            not re.fullmatch(rf"[A-Za-z]\w*(?:{_LESS}[A-Za-z]\w*)+", s):
        return None
    names = [vocab.get(x.lower()) for x in re.split(_LESS, s)]
    if any(x is None for x in names):
        return None
    if len(set(names)) != len(names):
        return invalid("an alternative appears twice", "repeated_name")
    return Reading("value", [x for x in reversed(names) if x], "ascending_chain")


def _short(b: str) -> bool:
    return len(b) <= 80 and "\n\n" not in b


# ----------------------------------------------------------------------------- sets

def _set_value(xs: list[str]) -> list[str]:
    return sorted(xs)


def _bundle(body: str, ctx: Mapping[str, Any]) -> Reading:
    vocab = _vocab(ctx)
    bundles = [sorted(x) for x in ctx.get("bundles") or []]
    b = body.strip()
    n = normalise(b)
    if n in ABSTAIN_EXACT:
        return Reading("abstain", None, f"abstain_word:{n}")

    def offered(xs: list[str], rule: str) -> Reading:
        v = sorted(xs)
        if len(set(v)) != len(v):
            return invalid("an alternative appears twice", "repeated_name")
        if bundles and v not in bundles:
            return invalid(f"{{{', '.join(v)}}} is not one of the bundles offered",
                           "not_an_offered_bundle")
        return Reading("value", v, rule)
    try:
        j = json.loads(b)
        if isinstance(j, dict) and len(j) == 1:
            j = next(iter(j.values()))
        if isinstance(j, list) and all(isinstance(x, str) for x in j):
            xs, _ = _clean_list(", ".join(j), vocab)
            if xs is not None:
                return offered(xs, "json")
    except (ValueError, RecursionError):
        pass
    sets = re.findall(r"\{([^{}]*)\}", b)
    if sets:
        first = _clean_list(sets[0], vocab)[0]
        if first is not None and (len(sets) == 1 or re.search(r"\}\s*(?:≻|>|&gt;)\s*\{", b)):
            return offered(first, "braces")
    a = _abstains(b, ctx, _bundle)
    if a:
        return a
    m = re.search(r"\b(first|second|1st|2nd)\s+bundle\b", b, re.I)
    if m and bundles and not sets:
        return Reading("value", bundles[0 if m.group(1).lower() in ("first", "1st") else 1],
                       "bundle_named_by_position")
    if sets:
        vals = {tuple(sorted(x)) for x in (_clean_list(s, vocab)[0] for s in sets) if x}
        if len(vals) == 1:
            return offered(list(vals.pop()), "braces")
        return ambiguous("names several bundles", "several_bundles")
    clean, why = _clean_list(b, vocab)
    if clean is not None:
        return offered(clean, "list")
    return invalid(why, "not_a_bundle")


def _items(body: str, ctx: Mapping[str, Any]) -> Reading:
    vocab = _vocab(ctx)
    b = body.strip()
    n = normalise(b)
    if n in ABSTAIN_EXACT:
        return Reading("abstain", None, f"abstain_word:{n}")
    wrapped = _json_answer(b)
    if wrapped is not None:                          # {"answer": ["C2", "C1"]}
        return _items(wrapped, ctx).at("json")
    clean, why = _clean_list(_strip_parens(b), vocab)
    rule = "list"
    lead = _LEAD_IN.match(b)
    if clean is None and lead and vocab is not None:      # "The answer is C1, C10, C5"
        clean, rule = _clean_list(_strip_parens(b[lead.end():]), vocab)[0], "lead_in/list"
    if clean is not None:
        if len(set(clean)) != len(clean):
            return invalid("an alternative appears twice", "repeated_name")
        return Reading("value", _set_value(clean), rule)
    return abstention(b, exact_ok=False) or invalid(why, "not_a_list")


#: a sentence opening before a list: "The answer is", "A5's top-3 choices are", "Answer:"
_LEAD_IN = re.compile(r"^[^\n:]{0,80}?\b(?:is|are)\b\s*:?\s*|^[^\n:]{0,40}:\s*", re.I)


# ----------------------------------------------------------------------------- yes / no

def _yesno(body: str, ctx: Mapping[str, Any]) -> Reading:
    b = body.strip()
    n = normalise(b)
    if re.fullmatch(r"(?:yes|no)\s*(?:/|or)\s*(?:yes|no)", n):
        return ambiguous("both yes and no", "yes_and_no")
    first = re.match(r"(yes|no|y|n|true|false)\b", n)
    if first:
        w = first.group(1)
        return Reading("value", "yes" if w in ("yes", "y", "true") else "no", "first_word")
    if n in ABSTAIN_EXACT:
        return Reading("abstain", None, f"abstain_word:{n}")
    a = None if ctx.get("_no_abstain") else stated_abstention(b, _yesno_stated)
    if a:
        return a
    words = set(re.findall(r"\b(yes|no)\b", n))
    if len(words) == 1:
        return Reading("value", words.pop(), "one_word")
    if len(words) > 1:
        return ambiguous("both yes and no", "yes_and_no")
    return invalid("not yes or no", "not_yes_no")


def _yesno_stated(s: str) -> bool:
    """A statement that answers yes or no: it says "yes", or "no" not followed by a word
    ("so the answer is no", "no, it is not"; "there is no tie" does not answer)."""
    n = normalise(s)
    return bool(re.search(r"\byes\b", n) or re.search(r"\bno\b(?!\s+[a-z0-9])", n))


# ----------------------------------------------------------------------------- letter

def _letter(body: str, ctx: Mapping[str, Any]) -> Reading:
    options: Mapping[str, Any] = ctx.get("options") or {}
    letters = list(options) + ([ctx["nota_option"]] if ctx.get("nota_option") else [])
    b = body.strip()
    wrapped = _json_answer(b)
    if wrapped is not None:                          # {"answer": "A"}, fenced or not
        return _letter(wrapped, ctx).at("json")
    n = normalise(b)

    def chose(letter: str, rule: str) -> Reading:
        letter = letter.upper()
        if letters and letter not in letters:
            return invalid(f"no option {letter}", "no_such_option")
        return Reading("value", letter, rule)
    m = re.fullmatch(r"\(?\s*(?:option\s+)?([A-Za-z])\s*\)?\s*(?:[.:)\-]\s*(.*))?", n, re.S)
    if m and (len(n) <= 2 or m.group(2) is not None or n.startswith(("option", "("))
              or re.fullmatch(r"\(?[a-z]\)?", n)):
        if m.group(2) is None or not letters or m.group(1).upper() in letters:
            return chose(m.group(1), "option_letter")
    if re.fullmatch(r"[A-Za-z](?:\s*(?:,|or|and|/)\s*[A-Za-z])+", n):
        return ambiguous(f"several options ({b})", "several_options")
    hit = _option_text(b, ctx)
    if hit is not None:
        if hit == ctx.get("abstain_option"):
            return Reading("abstain", None, "option_text")
        if hit == ctx.get("nota_option"):
            return Reading("none", None, "option_text")
        return Reading("value", hit, "option_text")
    cue = re.findall(r"(?:answer|choice|option|choose|select|pick)\s*(?:is|:)?\s*\(?\*{0,2}"
                     r"([A-Z])\b(?![\w'’])", b)
    cue = [x for x in cue if not letters or x in letters]
    if cue:
        return chose(cue[-1], "option_cue")
    for part in reversed(_bold(b)):
        if re.fullmatch(r"\(?([A-Z])\)?\.?", part.strip()):
            return chose(part.strip("(). "), "bold_letter")
    stmts = statements(b)[0]
    concl = _LETTER_CONCLUSION.match(stmts[-1]) if stmts else None
    if concl and (not letters or concl.group(1) in letters):    # "…, so B."
        return chose(concl.group(1), "conclusion_letter")
    nc = none_claim(b)
    if nc:
        return nc
    if n in ABSTAIN_EXACT:
        return Reading("abstain", None, f"abstain_word:{n}")
    a = _abstains(b, ctx, _letter)
    if a:
        return a
    return invalid("not an option letter", "not_a_letter")


_ANSWER_KEYS = ("answer", "choice", "option", "letter", "selection", "selected", "final_answer",
                "ranking", "result", "list")


#: a last statement that concludes with a letter: "so B.", "therefore (C)", "so option A"
_LETTER_CONCLUSION = re.compile(r"^\W*(?:so|thus|hence|therefore)\b[\s,]*(?:the answer is\s+|"
                                r"i (?:pick|choose|select)\s+|it is\s+|it's\s+)?(?:option\s+)?"
                                r"\(?\**([A-Z])\**\)?[.!]?\s*$", re.I)


def _json_answer(b: str) -> str | None:
    """The string of a one-key JSON object ``{"answer": "A"}`` (a fence around it allowed;
    keys :data:`_ANSWER_KEYS`), else None."""
    s = json_body(b)
    if not s.startswith("{"):
        return None
    try:
        v = json.loads(s)
    except (ValueError, RecursionError):
        return None
    if isinstance(v, dict) and len(v) == 1:
        k, x = next(iter(v.items()))
        if str(k).lower() in _ANSWER_KEYS and isinstance(x, str) and x.strip():
            return x
        if str(k).lower() in _ANSWER_KEYS and isinstance(x, list) and x and \
                all(isinstance(y, str) for y in x):
            return json.dumps(x)                      # {"answer": ["C2", "C1"]}
    return None


def _option_text(body: str, ctx: Mapping[str, Any]) -> str | None:
    """The letter of the one option whose text the answer writes out (compared as the
    options' shape reads them), else None."""
    options: Mapping[str, Any] = ctx.get("options") or {}
    if not options:
        return None
    shape = ctx.get("option_shape")
    want = normalise(body)
    texts = dict(options)
    if ctx.get("nota_option") and ctx["nota_option"] not in texts:
        texts[ctx["nota_option"]] = "None of the above"
    hits = [L for L, t in texts.items() if isinstance(t, str) and normalise(t) == want]
    if not hits and shape:
        sub = {k: v for k, v in ctx.items() if k not in ("options", "mode", "full_text")}
        r = read(shape, body, **sub)
        if r.kind == "value":
            for L, t in options.items():
                o = read(shape, t if isinstance(t, str) else json.dumps(t), **sub)
                if o.kind == "value" and o.value == r.value:
                    hits.append(L)
    return hits[0] if len(hits) == 1 else None


# ----------------------------------------------------------------------------- outcome

def _no_duplicates(pairs: list) -> dict:
    keys = [k for k, _ in pairs]
    dup = next((k for i, k in enumerate(keys) if k in keys[:i]), None)
    if dup is not None:
        raise DuplicateKey(dup)
    return dict(pairs)


class DuplicateKey(ValueError):
    """A JSON object that repeats a key (``{"A1": "B1", "A1": "B2"}``)."""

    def __init__(self, key: Any):
        super().__init__(f"the key {key!r} appears twice in one object")
        self.key = key


class TooDeep(ValueError):
    """A JSON answer nested deeper than :data:`MAX_DEPTH` levels."""


MAX_DEPTH = 64          # nesting of a JSON answer; outcomes need 3


def _depth(text: str) -> int:
    """The deepest bracket nesting of a JSON text (strings skipped). O(len)."""
    depth = best = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth -= 1
    return best


def loads(text: str) -> Any:
    """Strict JSON with duplicate keys refused (:class:`DuplicateKey`) and nesting bounded
    (ValueError beyond :data:`MAX_DEPTH` levels)."""
    if _depth(text) > MAX_DEPTH:
        raise TooDeep(f"the answer nests deeper than {MAX_DEPTH} levels")
    return json.loads(text, object_pairs_hook=_no_duplicates)


def json_body(text: str) -> str:
    """``text`` without one Markdown code fence around it."""
    s = text.strip()
    m = re.fullmatch(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?```", s, re.S)
    return m.group(1).strip() if m else s


def read_json(text: str) -> Any:
    """The JSON value of an answer for ``prefcert audit``: the last ``<answer>`` block (a
    fenced block inside it unwrapped), else a fenced block, else the whole text. Raises
    ValueError (:class:`DuplicateKey` for a repeated key)."""
    tags = _ANSWER.findall(text)
    if tags:
        return loads(json_body(tags[-1]))
    try:
        return loads(json_body(text))
    except DuplicateKey:
        raise
    except ValueError:
        fences = _FENCE.findall(text)
        if fences:
            return loads(fences[-1].strip())
        raise


def where_json(text: str) -> str:
    """The rule name of where :func:`read_json` finds the JSON value of ``text``."""
    if _ANSWER.search(text):
        return "answer_tag"
    return "code_fence" if _FENCE.search(text) and not text.strip().startswith(("{", "[")) \
        else "text"


def _json_objects(text: str) -> list[Any]:
    """Every JSON object or list of pairs that starts somewhere in ``text`` (outermost
    first). DuplicateKey propagates."""
    dec = json.JSONDecoder(object_pairs_hook=_no_duplicates)
    out = []
    i = 0
    while i < len(text):
        if text[i] in "{[":
            try:
                obj, end = dec.raw_decode(text, i)
            except DuplicateKey:
                raise
            except ValueError:
                i += 1
                continue
            out.append(obj)
            i = end
        else:
            i += 1
    return out


_EMPTY_STATED = re.compile(r"\b(?:everyone|everybody|every agent|all agents|nobody|no one|"
                           r"no agent)\b[^.\n]{0,30}\b(?:unmatched|unassigned|is matched|"
                           r"gets nothing)|\bthe empty (?:matching|allocation)\b", re.I)


#: a whole outcome answer that claims no outcome exists, as ``prefcert audit`` reads it
#: (K&W F.2.2 lists ``None`` among the ways models express infeasibility)
NONE_WORDS = frozenset({"none", "null", "nil", "no outcome", "no solution", "n/a"})


def _outcome(body: str, ctx: Mapping[str, Any]) -> Reading:
    b = json_body(body)
    n = normalise(b)
    if n in NONE_WORDS:
        return Reading("none", None, f"none_word:{n}")
    try:
        objs = _json_objects(b)
    except DuplicateKey as e:
        return invalid(str(e), "duplicate_key")
    obj = next((o for o in reversed(objs) if isinstance(o, dict) or _pair_list(o)), None)
    if obj is None:
        nc = none_claim(b)
        if nc:
            return nc
        pairs = re.findall(r"\(\s*([A-Za-z]\w*)\s*,\s*([A-Za-z]\w*)\s*\)", b)
        if not pairs:
            m = re.search(r"\{([^{}]*)\}", b)
            if m and re.search(r"\w+\s*:\s*\w+", m.group(1)):
                pairs = re.findall(r"([A-Za-z]\w*)\s*:\s*([A-Za-z]\w*)", m.group(1))
        if not pairs and re.fullmatch(rf"\s*{_ARROW_PAIR}(?:\s*(?:,|;|\n|\band\b)\s*"
                                      rf"{_ARROW_PAIR})*\s*[.;,]?\s*", b):
            pairs = re.findall(_ARROW_PAIR, b)               # A1-B1, A2 → B3
            if pairs:
                return _outcome_value([list(p) for p in pairs], ctx, "arrow_pairs")
        if pairs:
            obj = [list(p) for p in pairs]
            return _outcome_value(obj, ctx, "pairs_in_text")
        nc = none_claim(b)
        if nc:
            return nc
        return invalid("no outcome (a JSON object agent -> partner)", "no_outcome")
    return _outcome_value(obj, ctx, "json")


#: one pair written ``A1-B1``, ``A1 – B1``, ``A1 → B1``, ``A1 -> B1``, ``A1 => B1``
_ARROW_PAIR = r"([A-Za-z]\w*\d\w*)\s*(?:->|=>|→|⟶|↦|–|—|-)\s*([A-Za-z]\w*\d\w*)"


def _pair_list(o: Any) -> bool:
    return isinstance(o, list) and bool(o) and all(
        isinstance(p, list) and len(p) == 2 for p in o)


def _outcome_value(obj: Any, ctx: Mapping[str, Any], rule: str) -> Reading:
    if isinstance(obj, dict) and len(obj) == 1 and isinstance(next(iter(obj.values())), dict) \
            and next(iter(obj)) not in (ctx.get("agents") or ()):
        obj, rule = next(iter(obj.values())), f"{rule}/unwrapped"    # {"matching": {...}}
    pairs = list(obj.items()) if isinstance(obj, dict) else [tuple(p) for p in obj]
    if not pairs:
        text = ctx.get("full_text", "")
        if _EMPTY_STATED.search(text) and not none_claim(text):
            return Reading("value", {}, "empty_outcome_stated")
        return Reading("none", None, "empty_object")
    flat: list[tuple[Any, Any]] = []
    for k, v in pairs:
        if isinstance(v, list):
            flat += [(k, x) for x in v]
        else:
            flat.append((k, v))
    if all(isinstance(v, str) and v.strip().lower() in ("none", "null", "") for _, v in flat):
        return Reading("none", None, "all_none_partners")
    if any(v is None or (isinstance(v, str) and v.strip().lower() in ("none", "null"))
           for _, v in flat):
        return invalid("a null partner (unassigned agents are left out)", "null_partner")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in flat):
        return invalid("not a mapping of names to names", "not_names")
    agents = set(ctx.get("agents") or [])
    names = {x.lower(): x for x in (*agents, *(ctx.get("partners") or ()))}
    if names and any(x not in names.values() and x.lower() in names for p in flat for x in p):
        flat = [(names.get(k.lower(), k), names.get(v.lower(), v)) for k, v in flat]
        rule = f"{rule}/case_folded"                              # "a1": "b3" is A1 -> B3
    out: dict[str, str] = {}
    for k, v in flat:
        if agents and k not in agents and v in agents:
            k, v = v, k
            if out.get(k, v) != v:
                return invalid(f"{k!r} is given two partners", "two_partners")
            out.setdefault(k, v)
            continue
        if k in out:
            return invalid(f"{k!r} is given two partners", "two_partners")
        out[k] = v
    return Reading("value", out, rule)


# ----------------------------------------------------------------------------- ballot

# A ballot's markers start a line (Amiri-Margavi et al. 2026, §6.3: a "Final ballot:" line):
# "my final ballot: C > B > A would elect A" inside a sentence is reasoning, not the answer.
_BALLOT_FINAL = re.compile(r"^" + _MD_LEAD + r"(?:my\s+)?final\s+(?:ballot|answer|vote)\b[ \t*_]*"
                           r"(?:[:：][ \t*_]*(.*)$|$)", re.I | re.M)
_BALLOT_MARK = re.compile(r"^" + _MD_LEAD + r"ballot[ \t*_]*[:：][ \t*_]*(.*)$", re.I | re.M)
EMPTY_APPROVAL = frozenset({"none", "{}", "[]", "∅", "empty", "empty set", "nobody", "no one",
                            "()"})


def _ballot_text(body: str, ctx: Mapping[str, Any]) -> Reading:
    cands = {str(c).lower(): str(c) for c in ctx.get("candidates") or []}
    approval = bool(ctx.get("approval"))
    b = _strip_parens(body).strip()
    b = re.sub(r"\s+[-–—]{1,2}\s+.*$", "", b, flags=re.S) if "\n" not in b.strip() else b
    raw = normalise(b).strip(" .")
    if approval and raw.strip("{}[]() ") in EMPTY_APPROVAL | {""} and raw:
        return Reading("value", [], "empty_approval")
    if approval and re.search(r">|≻|&gt;", b):
        return invalid("a ranking is not an approval ballot (name the approved set)",
                       "ranking_as_approval")
    if re.fullmatch(r"\s*(?:\d+\s*[.)]\s*[^\s\d,;]+\s*[,;]?\s*){2,}", b):   # 1. B 2. A 3. C
        b = "\n".join(re.findall(r"\d+\s*[.)]\s*([^\s,;]+)", b))
    lines = [re.sub(r"^\s*(?:\d+\s*[.):]|[-*•])\s*", "", ln) for ln in b.splitlines()]
    parts = re.split(r"\s*(?:>|≻|&gt;|,|;|\n)\s*", "\n".join(lines))
    toks = [p.strip(" \t\r\"'`*_[](){}.:") for p in parts]
    toks = [t for t in toks if t]
    if not toks:
        return invalid("no ballot", "no_ballot")
    unknown = [t for t in toks if t.lower() not in cands]
    if unknown:
        return invalid(f"not a candidate: {unknown[0]!r}", "not_a_candidate")
    got = [cands[t.lower()] for t in toks]
    if len(set(got)) != len(got):
        dup = next(x for x in got if got.count(x) > 1)
        return invalid(f"{dup!r} appears twice", "repeated_candidate")
    if not approval and len(got) != len(cands):
        missing = [c for c in cands.values() if c not in got]
        return invalid(f"a ranking names every candidate; missing {missing[0]!r}",
                       "incomplete_ranking")
    return Reading("value", sorted(got, key=list(cands.values()).index) if approval else got,
                   "ballot")


def _ballot_blocks(pattern: re.Pattern, text: str) -> list[str]:
    return _marked(pattern, text, (_BALLOT_FINAL, _BALLOT_MARK), keep_empty=True)


def read_ballot(text: str, ctx: Mapping[str, Any]) -> Reading:
    """A ballot (Amiri-Margavi et al. 2026, §6.3): the last ``<answer>`` block; else the
    marked final ballots (``Final ballot:``, ``My final ballot:``, ``### Final ballot``),
    which must agree (inconsistent finals are invalid); else ``Ballot:`` lines (drafts: if
    they disagree the reading is ambiguous); else the whole text. Strict: the ``Final
    ballot:`` line (or the answer tag) only."""
    tags = _ANSWER.findall(text)
    if tags:
        return _ballot_text(tags[-1], ctx).at("answer_tag")
    finals = _ballot_blocks(_BALLOT_FINAL, text)
    if finals:
        rs = [_ballot_text(f, ctx) for f in finals]
        bad = next((r for r in rs if r.kind != "value"), None)
        if bad is not None:
            return invalid(f"final ballot invalid: {bad.reason}", f"final_line/{bad.rule}")
        if len({json.dumps(r.value) for r in rs}) > 1:
            return invalid("inconsistent final ballots", "final_line/inconsistent_finals")
        return rs[-1].at("final_line")
    if ctx.get("mode") == "strict":
        return invalid("strict parsing reads only a 'Final ballot:' line or an answer tag",
                       "strict:no_protocol_answer")
    marked = _ballot_blocks(_BALLOT_MARK, text)
    if marked:
        rs = [_ballot_text(m, ctx) for m in marked]
        vals = {json.dumps(r.value) for r in rs if r.kind == "value"}
        if len(vals) > 1:
            return ambiguous("several ballots, none marked final",
                             "answer_line/several_ballots")
        ok = [r for r in rs if r.kind == "value"]
        return (ok[-1] if ok else rs[-1]).at("answer_line")
    whole = _ballot_text(text, ctx)
    if whole.kind == "value":
        return whole.at("text")
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if lines:
        last = _ballot_text(lines[-1], ctx)
        if last.kind == "value":
            return last.at("last_statement")
    return whole.at("text")


# ----------------------------------------------------------------------------- decision

DECISION_WORDS = {"act": "ACT", "askpreference": "ASK-PREFERENCE",
                  "askobjective": "ASK-OBJECTIVE", "relax": "RELAX", "repair": "RELAX"}


def read_decision(text: str, ctx: Mapping[str, Any]) -> Reading:
    """A decision object (Li et al. 2026): strict — the whole text is one JSON object (a
    code fence around it allowed unless ``json="bare"``); lenient — the last JSON object
    with a ``decision`` anywhere in the text, unwrapped from a wrapper object, with its
    decision string and names canonicalised (``{"slot": T1}`` -> ``T1``, a list of pairs ->
    an object, ``a1`` -> ``A1``). The value is ``{"decision", "action", "question",
    "repair"}``."""
    mode = ctx.get("mode", "lenient")
    jmode = ctx.get("json", "embedded" if mode == "lenient" else "fenced")
    body = text.strip()
    where = "bare_json"
    trailing = False
    try:
        if jmode == "embedded":
            objs = [o for o in _json_objects(body) if isinstance(o, dict)]
            objs = [_unwrap(o) for o in objs]
            if not any("decision" in o for o in objs) and _TRAILING_COMMA.search(body):
                fixed = _TRAILING_COMMA.sub(r"\1", body)      # {"decision": "ACT",}
                objs = [_unwrap(o) for o in _json_objects(fixed) if isinstance(o, dict)]
                if any("decision" in o for o in objs):
                    body, trailing = fixed, True
            found = [o for o in objs if "decision" in o] or objs
            if not found:
                return invalid("no JSON object could be read (is the JSON malformed?)"
                               if "{" in body else "no JSON object in the response",
                               "no_json_object")
            if not any("decision" in o for o in found):
                return invalid("no JSON object with a \"decision\" key (is the JSON "
                               "malformed?)", "no_decision_object")
            obj = found[-1]
            where = "bare_json" if body.startswith("{") and body.endswith("}") else \
                "embedded_json"
            finals = [o for o in found if "decision" in o]
            if len({json.dumps(o, sort_keys=True, default=str) for o in finals}) > 1 and \
                    not _FINAL.search(body):
                return ambiguous("several different decision objects, none marked final",
                                 f"{where}/several_answers")
        else:
            m = re.fullmatch(r"```[A-Za-z0-9_-]*\s*\n?(.*?)\n?```", body, re.S)
            if m and jmode == "fenced":
                body, where = m.group(1).strip(), "fenced_json"
            elif m:
                return invalid("a fenced response; bare JSON is required", "fenced_json")
            obj = loads(body)
    except DuplicateKey as e:
        return invalid(str(e), "duplicate_key")
    except ValueError as e:
        return invalid(f"not JSON: {e}", "not_json")
    if not isinstance(obj, dict):
        return invalid("the response is not a JSON object", "not_an_object")
    if mode == "lenient":
        obj = _unwrap(obj)
    dec = obj.get("decision")
    word = DECISION_WORDS.get(re.sub(r"[^a-z]", "", dec.lower())) if isinstance(dec, str) \
        else None
    if word is None:
        return invalid(f"unknown decision {dec!r:.40}", f"{where}/unknown_decision")
    names = {str(x).lower(): str(x) for x in ctx.get("names") or []}
    repair = obj.get("repair", obj.get("relax", obj.get("correction")))
    value = {"decision": word, "action": obj.get("action"), "question": obj.get("question"),
             "repair": repair}
    rule = where + ("/trailing_comma" if trailing else "")
    if mode == "lenient":
        canon = {k: _canon(v, names) for k, v in value.items() if k != "decision"}
        canon["action"] = _action(canon["action"])
        if canon != {k: v for k, v in value.items() if k != "decision"} or word != dec:
            rule += "/normalised"
        value.update(canon)
    return Reading("value", value, rule)


#: a comma before a closing brace or bracket (outside strings, approximately): lenient
#: reading drops it (rule ``trailing_comma``); strict reading refuses the JSON
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def _unwrap(obj: dict) -> dict:
    while "decision" not in obj and len(obj) == 1 and isinstance(next(iter(obj.values())),
                                                                  dict):
        obj = next(iter(obj.values()))
    return obj


def _canon(v: Any, names: Mapping[str, str]) -> Any:
    if isinstance(v, str):
        return names.get(v.lower(), v)
    if isinstance(v, list):
        return [_canon(x, names) for x in v]
    if isinstance(v, dict):
        return {(names.get(k.lower(), k) if isinstance(k, str) else k): _canon(x, names)
                for k, x in v.items()}
    return v


def _action(a: Any) -> Any:
    if isinstance(a, dict) and len(a) == 1 and next(iter(a)) in (
            "slot", "apartment", "item", "option", "choice", "time", "action"):
        return next(iter(a.values()))
    if isinstance(a, list) and a and all(isinstance(p, list) and len(p) == 2 for p in a):
        return {str(x): y for x, y in a}
    return a


# ----------------------------------------------------------------------------- number

_NUMBER_ONLY = re.compile(r"^\s*[-+−]?\s*\$?\s*[-+−]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?\s*$")
_AMOUNT = re.compile(
    r"(?P<sign>[-+−]\s*)?(?P<cur>\$|usd\s*)?\s*(?P<sign2>[-+−])?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:e[-+]?\d+)?|\.\d+)"
    r"(?P<suf>\s*(?:k|thousand|million|m)\b)?", re.I)
_RANGE = re.compile(r"(?P<a>\$?\s*\d[\d,.]*\s*(?:k\b)?)\s*(?:-|–|—|to)\s*(?P<b>\$?\s*\d[\d,.]*)"
                    r"|\bbetween\s+(?P<c>\$?\s*\d[\d,.]*)\s+and\s+(?P<d>\$?\s*\d[\d,.]*)", re.I)


def number_only(text: str) -> bool:
    """Ford et al.'s (Table 6) number-only flag: the whole response is an optionally signed
    decimal, optionally with ``$``, thousands commas and decimals."""
    return bool(_NUMBER_ONLY.match(text))


def _amounts(s: str) -> list[float]:
    out = []
    for m in _AMOUNT.finditer(s):
        start = m.start("num")
        if start > 0 and (s[start - 1].isalpha() or s[start - 1] in "_"):
            continue                                   # part of a name such as 4-star? C51
        tail = s[m.end():m.end() + 1]
        if tail == "-" and s[m.end() + 1:m.end() + 2].isalpha():
            continue                                   # "4-star"
        num = m.group("num").replace(",", "")
        v = float(num)
        suf = (m.group("suf") or "").strip().lower()
        v *= {"k": 1e3, "thousand": 1e3, "million": 1e6, "m": 1e6}.get(suf, 1)
        neg = sum(1 for g in ("sign", "sign2") if (m.group(g) or "").strip() in ("-", "−"))
        out.append(-v if neg % 2 else v)
    return out


def _number(body: str, ctx: Mapping[str, Any]) -> Reading:
    b = body.strip().replace("−", "-")
    s = number_words(_strip_html(b))
    s = re.sub(r"[*_`~]", " ", s)
    rng = _RANGE.search(s)
    if rng:
        a, c = (rng.group("a"), rng.group("b")) if rng.group("a") else (rng.group("c"),
                                                                         rng.group("d"))
        lo, hi = _amounts(a), _amounts(c)
        if lo and hi and not (rng.group("a") and s[:rng.start()].rstrip().endswith("$") is
                              False and lo[0] < 0):
            if ctx.get("ranges") == "midpoint":
                return Reading("value", (lo[0] + abs(hi[0])) / 2, "range_midpoint")
            return ambiguous(f"a range ({rng.group(0).strip().rstrip('.,')})", "range")
    if re.fullmatch(r"\$?\s*\d{1,3}\.\d{3}", b):
        return ambiguous(f"{b} reads as a decimal or with a thousands separator",
                         "decimal_or_thousands")
    vals = list(dict.fromkeys(_amounts(s)))
    if len(vals) == 1:
        return Reading("value", vals[0], "one_number")
    if len(vals) > 1:
        return ambiguous(f"several numbers ({', '.join(f'{v:g}' for v in vals[:4])})",
                         "several_numbers")
    return invalid("no number", "no_number")


def _strip_html(s: str) -> str:
    return re.sub(r"</?\w+>", " ", s)


def read_number(text: str, ctx: Mapping[str, Any]) -> Reading:
    """A willingness-to-pay amount (Ford et al. 2026): the value is ``{"value": float,
    "number_only": bool}``. Strict: number-only answers alone. Lenient: the answer tag,
    else a marked final line (``Final answer:``, ``Answer:``, ``i.e.``), else the last
    paragraph, then the last sentence, that states a number; ranges and two different
    numbers are ambiguous (``ranges="midpoint"`` reads a range as its midpoint)."""
    only = number_only(text)
    if ctx.get("mode") == "strict":
        if not only:
            return invalid("strict parsing reads only a number-only answer",
                           "strict:not_number_only")
        return _wrap(_number(text, ctx), only, "number_only")
    for seg in segments(text):
        if seg.rule == "text":
            break
        r = _number(seg.text, ctx)
        if r.kind != "invalid":
            return _wrap(r, only, seg.rule)
    ie = _IE.search(text)
    if ie:
        r = _number(ie.group(1), ctx)
        if r.kind == "value":
            return _wrap(r, only, "ie")
    whole = _number(text, ctx)
    if whole.kind != "ambiguous" or whole.rule == "range" and len(paragraphs(text)) == 1 \
            and len(re.split(r"(?<=[.!?])\s+", text.strip())) == 1:
        return _wrap(whole, only, "text")
    for p in reversed(paragraphs(text)):
        r = _number(p, ctx)
        if r.kind == "invalid":
            continue
        if r.kind == "value":
            return _wrap(r, only, "last_statement")
        sentences = [x for x in re.split(r"(?<=[.!?])\s+", p) if x.strip()]
        for sent in reversed(sentences):
            r2 = _number(sent, ctx)
            if r2.kind != "invalid":
                return _wrap(r2, only, "last_statement")
        return _wrap(r, only, "last_statement")
    return _wrap(whole, only, "text")


def _wrap(r: Reading, only: bool, where: str) -> Reading:
    if r.kind != "value":
        return r.at(where)
    return Reading("value", {"value": float(r.value), "number_only": only}, r.rule).at(where)


# ----------------------------------------------------------------------------- registry

READERS: dict[str, Shape] = {
    "item": Shape(_item),
    "int": Shape(_int),
    "ranking": Shape(_ranking),
    "bundle": Shape(_bundle),
    "items": Shape(_items),
    "yesno": Shape(_yesno),
    "letter": Shape(_letter),
    "outcome": Shape(_outcome, prose=False),
}
"""Answer shape -> its reader. ``ballot``, ``decision`` and ``number`` have readers of
their own (:func:`read_ballot`, :func:`read_decision`, :func:`read_number`), registered
below because their protocol is not the answer tag."""


@dataclass(frozen=True)
class _Whole(Shape):
    whole: Callable[[str, Mapping[str, Any]], Reading] = read_ballot

    def read(self, text: str, ctx: dict) -> Reading:
        return self.whole(text, ctx)


READERS["ballot"] = _Whole(_ballot_text, whole=read_ballot)
READERS["decision"] = _Whole(lambda b, c: read_decision(b, c), whole=read_decision)
READERS["number"] = _Whole(_number, whole=read_number)

SHAPES = tuple(READERS)


def readings_agree(a: Reading, b: Reading) -> bool:
    """Same kind and value (rules may differ)."""
    return a.kind == b.kind and a.value == b.value


__all__ = ["ABSTAIN_PHRASES", "MODES", "NONE_PHRASES", "READERS", "Reading", "SHAPES",
           "answer_body", "loads", "normalise", "read", "read_json", "number_only",
           "where_json"]
