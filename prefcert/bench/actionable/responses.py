"""Actionable indeterminacy: reading and judging responses to decision tasks, and the
benchmark's scores (Li et al. 2026, "Ask, Relax, or Act? Evaluating Actionable
Indeterminacy in LLM Preference Reasoning").

A response is a JSON object with a top-level ``decision`` (``ACT``, ``ASK-PREFERENCE``,
``ASK-OBJECTIVE``, ``RELAX``), an ``action``, a ``question`` and a ``repair`` (``relax`` is
read as an alias). It is **fully correct** (FC) when it parses, its decision equals the
gold label's, and its content passes the checker:

- ACT: the action is accepted in every admissible world (constraint tasks: accepted under
  the stated constraints); question and repair are null;
- ASK-PREFERENCE: the question names the hidden comparison (its two items; the agent, when
  named, must be the one); no action;
- ASK-OBJECTIVE: the question lists every admissible objective and nothing else; no action;
- RELAX: the repair is a minimum-edit permitted repair (any one of them, at tight threshold
  values by default) and the top-level action is accepted after it.

Scores over a collection: Accuracy (decision), FC, IFC (both members of a matched pair
decided right), all-six accuracy and all-six FC (a six-task group entirely right), the
unnecessary-intervention rate (ACT-gold tasks answered with an intervention), the
missed-intervention rate (intervention-gold tasks answered ACT), the wrong-kind rate
(intervention-gold tasks answered with another intervention) and the IFC independence
reference Σ_{cell, source} (|P_cs| / |P|) · Acc_action · Acc_intervention.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...formal.checker.decision import judge_action, judge_repair
from ...formal.decision import DECISION_STRINGS, INTERVENTION, DecisionTask

#: normalised decision strings -> verdict words
_DECISIONS = {"act": "act", "askpreference": "ask_preference", "askobjective": "ask_objective",
              "relax": "relax", "repair": "relax"}
#: spellings of objective names in questions
OBJECTIVE_NAMES = {
    "utilitarian": ("utilitarian",), "egalitarian": ("egalitarian",),
    "rank_maximal": ("rank_maximal", "rank-maximal", "rank maximal", "rankmaximal"),
    "leximin": ("leximin",),
    "a_optimal": ("a_optimal", "a-optimal", "a optimal", "proposer-optimal",
                  "proposer optimal"),
    "b_optimal": ("b_optimal", "b-optimal", "b optimal", "receiver-optimal",
                  "receiver optimal"),
    "minimum_regret": ("minimum_regret", "minimum-regret", "minimum regret"),
}


@dataclass(frozen=True)
class ParseOptions:
    """How strictly responses are read.

    ``parse``: ``lenient`` (default: the reading policy of :mod:`prefcert.bench.answers`:
    the last JSON object with a decision anywhere in the text, a wrapper object unwrapped,
    decision strings and names canonicalised, ``{"slot": T1}`` and lists of pairs read as
    the action) or ``strict`` (the paper's protocol: the response is the JSON object,
    one code fence around it allowed). ``json`` overrides where the object is looked for:
    ``bare`` (the whole text is one JSON object; the completion route of the
    benchmark), ``fenced`` (bare, or one Markdown code fence around it) or
    ``embedded`` (the last JSON object anywhere in the text). ``strict_nulls`` (default):
    an ACT answer carries null question and repair, an ASK answer no action.
    ``tight_thresholds`` (default): a raised threshold must be at its tight value
    (alternative: any value that restores feasibility). ``require_agent``: the pivotal
    question must name the agent (default: naming the two items suffices; a named agent
    must be right). ``stored_repair``: a stable-matching RELAX answer is accepted only
    when its repair and action are the label's stored pair (the first repair of the
    label: the gold answer's), the paper's checker (Li et al. 2026, §F) — default: any
    minimum repair with an action accepted after it.
    """

    json: str | None = None
    parse: str = "lenient"
    strict_nulls: bool = True
    tight_thresholds: bool = True
    require_agent: bool = False
    stored_repair: bool = False


@dataclass(frozen=True)
class Response:
    """A parsed response: ``ok`` (parsed as an object with a known decision), the verdict
    word, the fields, and ``reason`` when not ok; ``kind``: the reading's kind (``value``,
    ``invalid``, or ``ambiguous`` for several different unmarked decision objects)."""

    ok: bool
    verdict: str | None = None
    action: Any = None
    question: Any = None
    repair: Any = None
    reason: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict)
    rule: str = ""
    kind: str = "value"


def task_names(task: DecisionTask) -> list[str]:
    """The names a response may use (agents, items, parties, constraint ids): matched
    case-insensitively by the lenient reader."""
    return list(dict.fromkeys([*task.agents, *task.items, *task.parties,
                               *task.constraint_ids]))


def parse_response(text: Any, options: ParseOptions = ParseOptions(),
                   names: Sequence[str] = ()) -> Response:
    """Read a response text (or an already decoded object) with the decision reader of
    :mod:`prefcert.bench.answers`. Never raises: an unreadable response is
    ``Response(ok=False, reason=…)``."""
    from ..answers import read
    if isinstance(text, dict):
        text = json.dumps(text)
    elif not isinstance(text, str):
        return Response(False, reason="the response is not text")
    ctx: dict[str, Any] = {"names": list(names)}
    if options.json is not None:
        ctx["json"] = options.json
    r = read("decision", text, mode=options.parse, **ctx)
    if r.kind != "value":
        return Response(False, reason=r.reason or "no decision object", rule=r.rule,
                        kind=r.kind)
    v = r.value
    word = _DECISIONS[re.sub(r"[^a-z]", "", v["decision"].lower())]
    return Response(True, word, v["action"], v["question"], v["repair"], raw=v, rule=r.rule)


def _mentions(text: str, names: Iterable[str]) -> set[str]:
    out = set()
    for n in names:
        if re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", text):
            out.add(n)
    return out


def _question_names(q: Any) -> tuple[str | None, list[str] | None, str]:
    """(agent, items, free text) of an ASK-PREFERENCE question."""
    if isinstance(q, dict):
        agent = q.get("agent", q.get("resident", q.get("participant")))
        items = q.get("items", q.get("compare", q.get("pair", q.get("alternatives"))))
        if isinstance(items, list) and all(isinstance(x, str) for x in items):
            return agent if isinstance(agent, str) else None, items, ""
        return None, None, json.dumps(q)
    if isinstance(q, list) and all(isinstance(x, str) for x in q):
        return None, q, ""
    if isinstance(q, str):
        return None, None, q
    return None, None, ""


def judge_question_preference(task: DecisionTask, label: dict, q: Any,
                              options: ParseOptions = ParseOptions()) -> tuple[bool, str]:
    """Does ``q`` name the label's pivotal comparison? An object ``{"agent", "items"}`` or a
    list of the two items is compared directly; free text must mention both items and no
    other name than the agent whose comparison it is (in a stable matching the compared
    names may be agents of side A, when a side-B member's list is incomplete)."""
    want_agent, want = label["solution"]["agent"], set(label["solution"]["items"])
    agent, items, text = _question_names(q)
    if items is None:
        if not text:
            return False, "no question"
        names = task.items if task.structure != "stable_matching" else \
            task.agents + task.items
        mentioned = _mentions(text, set(names) | set(task.parties))
        extra = mentioned - want
        if not want <= mentioned:
            return False, f"asks about {sorted(mentioned)}; the pivotal comparison is " \
                          f"{sorted(want)}"
        if extra - {want_agent}:
            return False, f"the question also names {sorted(extra - {want_agent})}"
        if options.require_agent and want_agent not in mentioned:
            return False, "the question does not name the agent"
        return True, "names the pivotal comparison"
    if set(items) != want or len(items) != 2:
        return False, f"asks about {sorted(items)}, the pivotal comparison is {sorted(want)}"
    if agent is not None and agent != want_agent:
        return False, f"asks {agent!r}; the comparison is {want_agent!r}'s"
    if agent is None and options.require_agent:
        return False, "the question does not name the agent"
    return True, "names the pivotal comparison"


def _objectives_named(q: Any) -> set[str] | None:
    if isinstance(q, dict):
        q = q.get("objectives", q.get("options", q.get("aggregations", json.dumps(q))))
    if isinstance(q, list) and all(isinstance(x, str) for x in q):
        q = " ; ".join(q)
    if not isinstance(q, str):
        return None
    text = q.lower().replace("_", " ").replace("-", " ")
    out = set()
    for name, spellings in OBJECTIVE_NAMES.items():
        for s in spellings:
            s2 = s.replace("_", " ").replace("-", " ")
            if re.search(rf"(?<![a-z]){re.escape(s2)}(?![a-z])", text):
                out.add(name)
                break
    return out


def judge_question_objective(task: DecisionTask, label: dict, q: Any) -> tuple[bool, str]:
    """Does ``q`` list every admissible objective of the menu, and only those?"""
    menu = set(label["solution"]["objectives"])
    got = _objectives_named(q)
    if not got:
        return False, "no objective named"
    if got != menu:
        return False, f"lists {sorted(got)}; the admissible objectives are {sorted(menu)}"
    return True, "lists every admissible objective"


def read_repair(task: DecisionTask, repair: Any) -> list[dict] | None:
    """A repair as ``[{"constraint": id, "value"?: int}]`` from the accepted shapes: that
    list; ``{"edits": [...]}``; one edit ``{"constraint": id, "value": v}``; or a mapping
    constraint id -> new value (null: remove). None when unreadable."""
    if isinstance(repair, dict) and "edits" in repair:
        repair = repair["edits"]
    if isinstance(repair, dict) and "constraint" in repair:
        repair = [repair]
    elif isinstance(repair, dict) and repair and set(repair) <= set(task.constraint_ids):
        repair = [{"constraint": c, **({"value": v} if v is not None else {})}
                  for c, v in repair.items()]
    if not isinstance(repair, list) or not repair:
        return None
    out = []
    for e in repair:
        if isinstance(e, str):
            e = {"constraint": e}
        if not isinstance(e, dict) or not isinstance(e.get("constraint"), str):
            return None
        out.append({k: v for k, v in e.items() if k in ("constraint", "value")})
    return out


def judge_response(task: DecisionTask, label: Mapping[str, Any], response: Any,
                   options: ParseOptions = ParseOptions()) -> dict:
    """Judge one response against a certified label of ``task``.

    Returns ``{"parsed", "decision" (verdict word or None), "gold", "decision_correct",
    "fc", "error" (None / "unparsed" / "unnecessary" / "missed" / "wrong_kind"), "reason",
    "ambiguous" (the reading of the answer corpus that leaves the content unsettled, or
    None), "reading" ({"kind", "value", "rule"})}``. Ambiguous contents (Li et al. leave
    them open): a RELAX repair of the minimum number of edits whose raised threshold is not
    the tight one (R14: O.2 counts edits, N.1 asks for the minimum correction), and an
    ASK-OBJECTIVE question written as free text that names every admissible objective
    (R15: §3.3, the original wording does not fix the representation).
    """
    gold = label["verdict"]
    r = response if isinstance(response, Response) else \
        parse_response(response, options, task_names(task))
    out = {"parsed": r.ok, "decision": r.verdict, "gold": gold, "decision_correct": False,
           "fc": False, "error": None, "reason": r.reason, "ambiguous": None,
           "reading": {"kind": "value" if r.ok else r.kind if r.kind != "value" else "invalid",
                       "value": dict(r.raw) if r.ok else None, "rule": r.rule}}
    if not r.ok:
        out["error"] = "unparsed"
        if r.kind == "ambiguous":
            out["ambiguous"] = r.rule
        return out
    if r.verdict != gold:
        out["error"] = ("unnecessary" if gold == "act" else
                        "missed" if r.verdict == "act" else "wrong_kind")
        out["reason"] = f"decided {DECISION_STRINGS[r.verdict]}, gold {DECISION_STRINGS[gold]}"
        return out
    out["decision_correct"] = True
    ok, why = _content(task, label, r, options)
    out["fc"], out["reason"] = ok, why
    if ok and r.verdict == "ask_objective" and isinstance(r.question, str):
        out["fc"], out["ambiguous"] = False, "R15:free_text_objective_question"
    if not ok and r.verdict == "relax" and options.tight_thresholds and \
            _content(task, label, r, replace(options, tight_thresholds=False))[0]:
        out["ambiguous"] = "R14:loose_threshold"
    return out


def _content(task: DecisionTask, label, r: Response, options: ParseOptions) -> tuple[bool, str]:
    v = r.verdict
    if options.strict_nulls:
        if v == "act" and (r.question is not None or r.repair is not None):
            return False, "an ACT answer carries null question and repair"
        if v in ("ask_preference", "ask_objective") and r.action is not None:
            return False, "a first-turn intervention carries no action"
    if v == "act":
        if r.action is None:
            return False, "no action"
        return judge_action(task, label, r.action)
    if v == "ask_preference":
        return judge_question_preference(task, label, r.question, options)
    if v == "ask_objective":
        return judge_question_objective(task, label, r.question)
    edits = read_repair(task, r.repair)
    if edits is None:
        return False, "no readable repair"
    if r.action is None:
        return False, "a RELAX answer needs the action accepted after the repair"
    if options.stored_repair and task.structure == "stable_matching":
        return _stored_pair(task, label, edits, r.action)
    return judge_repair(task, label, edits, r.action, tight=options.tight_thresholds)


def _stored_pair(task: DecisionTask, label, edits: list[dict], action: Any
                 ) -> tuple[bool, str]:
    """The paper's stable-matching RELAX check: the label's stored (first) repair and its
    action, nothing else."""
    from ...formal.decision import action_key
    stored = (label.get("solution") or {}).get("repairs") or []
    if not stored:
        return False, "the label stores no repair"
    rep = stored[0]
    key = lambda es: sorted(json.dumps(e, sort_keys=True) for e in es)
    if key(edits) != key(rep["edits"]):
        return False, "not the stored repair (the paper's stable-matching checker)"
    try:
        same = action_key(task, action) == action_key(task, rep["action"])
    except ValueError as e:
        return False, f"the action is not an action: {e}"
    return (same, "the stored repair and action" if same else
            "not the stored action after the repair (the paper's stable-matching checker)")


def gold_response(task: DecisionTask | None, label: Mapping[str, Any]) -> dict:
    """A fully correct response built from a label (the first repair for relax). The
    label's solution is the whole answer: ``task`` is not read (None is accepted, so a
    caller holding only the instance dict need not parse it)."""
    v, sol = label["verdict"], label["solution"]
    out: dict[str, Any] = {"decision": DECISION_STRINGS[v], "action": None, "question": None,
                           "repair": None}
    if v == "act":
        out["action"] = sol["action"]
    elif v == "ask_preference":
        out["question"] = {"agent": sol["agent"], "items": sol["items"]}
    elif v == "ask_objective":
        out["question"] = {"objectives": sol["objectives"]}
    else:
        rep = sol["repairs"][0]
        out["repair"] = {"edits": rep["edits"]}
        out["action"] = rep["action"]
    return out


# --------------------------------------------------------------------------- scores

#: tasks of a V3 group: per source (preference, objective, constraint) an ACT-gold task
#: and its intervention-gold twin (Li et al. 2026, §2.2)
GROUP_SIZE = 6


def _rate(num: int, den: int) -> float | None:
    return num / den if den else None


def scores(records: Sequence[Mapping[str, Any]]) -> dict:
    """The benchmark's scores over judged records.

    Each record: ``decision_correct``, ``fc``, ``gold`` (verdict word), ``decision`` (the
    response's verdict word or None) and, where they apply, ``pair`` (matched-pair id),
    ``group`` (six-task group id), ``cell`` and ``source`` (for the independence
    reference). Unparsed responses stay in every denominator as failures.

    Returns counts and rates: ``accuracy``, ``fc``, ``ifc`` (pairs with both members
    decided right), ``ifc_reference``, ``all_six`` / ``all_six_fc`` (groups of six),
    ``unnecessary`` (over ACT-gold tasks), ``missed`` and ``wrong_kind`` (over
    intervention-gold tasks), ``unparsed``. A pair or group with a member missing (a
    prompt left unanswered) is left out of the metrics over pairs and groups, and
    counted: ``incomplete_pairs``, ``incomplete_groups``.
    """
    n = len(records)
    d = sum(bool(r["decision_correct"]) for r in records)
    f = sum(bool(r["fc"]) for r in records)
    act_gold = [r for r in records if r["gold"] == "act"]
    int_gold = [r for r in records if r["gold"] != "act"]
    unnecessary = sum(r["decision"] not in (None, "act") for r in act_gold)
    missed = sum(r["decision"] == "act" for r in int_gold)
    wrong_kind = sum(r["decision"] not in (None, "act", r["gold"]) for r in int_gold)
    pairs: dict[Any, list] = defaultdict(list)
    groups: dict[Any, list] = defaultdict(list)
    for r in records:
        if r.get("pair") is not None:
            pairs[r["pair"]].append(r)
        if r.get("group") is not None:
            groups[r["group"]].append(r)
    incomplete_pairs = [pid for pid, ms in pairs.items() if len(ms) < 2]
    incomplete_groups = [gid for gid, ms in groups.items() if len(ms) < GROUP_SIZE]
    for pid in incomplete_pairs:
        del pairs[pid]
    for gid in incomplete_groups:
        del groups[gid]
    for pid, members in pairs.items():
        if len(members) != 2 or {m["gold"] == "act" for m in members} != {True, False}:
            raise ValueError(f"pair {pid!r} must hold one ACT-gold and one intervention-gold "
                             f"task, has {[m['gold'] for m in members]}")
    ifc = sum(all(m["decision_correct"] for m in ms) for ms in pairs.values())
    six = sum(all(m["decision_correct"] for m in ms) for ms in groups.values())
    six_fc = sum(all(m["fc"] for m in ms) for ms in groups.values())
    # independence reference per (cell, source)
    strata: dict[Any, list] = defaultdict(list)
    for ms in pairs.values():
        strata[(ms[0].get("cell"), ms[0].get("source"))].append(ms)
    ref = 0.0
    for ps in strata.values():
        acts = [m for ms in ps for m in ms if m["gold"] == "act"]
        ints = [m for ms in ps for m in ms if m["gold"] != "act"]
        acc_a = sum(m["decision_correct"] for m in acts) / len(acts)
        acc_i = sum(m["decision_correct"] for m in ints) / len(ints)
        ref += len(ps) / len(pairs) * acc_a * acc_i
    return {
        "tasks": n, "correct_decisions": d, "fully_correct": f,
        "accuracy": _rate(d, n), "fc": _rate(f, n),
        "pairs": len(pairs), "ifc_pairs": ifc, "ifc": _rate(ifc, len(pairs)),
        "ifc_reference": ref if pairs else None,
        "incomplete_pairs": len(incomplete_pairs), "incomplete_groups": len(incomplete_groups),
        "groups": len(groups), "all_six_groups": six, "all_six": _rate(six, len(groups)),
        "all_six_fc_groups": six_fc, "all_six_fc": _rate(six_fc, len(groups)),
        "act_gold": len(act_gold), "unnecessary": unnecessary,
        "unnecessary_rate": _rate(unnecessary, len(act_gold)),
        "intervention_gold": len(int_gold), "missed": missed,
        "missed_rate": _rate(missed, len(int_gold)),
        "wrong_kind": wrong_kind, "wrong_kind_rate": _rate(wrong_kind, len(int_gold)),
        "unparsed": sum(not r.get("parsed", True) for r in records),
    }


__all__ = ["OBJECTIVE_NAMES", "ParseOptions", "Response", "gold_response", "judge_response",
           "parse_response", "read_repair", "scores", "INTERVENTION"]


# --------------------------------------------------------------------------- the designs

SUITE = "actionable-indeterminacy"
STRUCTURES = ("allocation", "scheduling", "apartment", "stable_matching")
SIZES = (4, 6, 8)
SEEDS = (0, 1, 2)
GROUPS_PER_CELL = 20
LOCAL_PAIRS_PER_SOURCE = 5


def derive_rng(*parts: Any):
    """A ``random.Random`` seeded from the SHA-256 of the canonical JSON of ``parts``:
    independent of Python's hash seed and of generation order."""
    import hashlib
    import random
    h = hashlib.sha256(json.dumps(parts, sort_keys=True, separators=(",", ":"))
                       .encode()).digest()
    return random.Random(int.from_bytes(h[:8], "little"))


def oracle_judge(data: dict | DecisionTask, memo: dict | None = None) -> tuple[str, dict]:
    """The gold decision of an instance dict (or its parsed model, as the samplers pass
    it) by the oracle: (verdict, stats with the minimum number of edits as ``edits`` and
    every minimum repair's edits as ``repairs`` for relax). ``memo``: world results kept
    across the calls of one group's draws (:func:`prefcert.oracles.decision.decide`); the
    answer does not depend on it."""
    from ...formal.decision import parse_decision
    from ...oracles.decision import decide
    task = data if isinstance(data, DecisionTask) else parse_decision(data)
    out = decide(task, memo, certificate=False)
    stats = dict(out.stats)
    if out.verdict == "relax":
        stats["edits"] = out.solution["edits"]
        stats["repairs"] = [r["edits"] for r in out.solution["repairs"]]
    return out.verdict, stats


def _finish(task: dict, iid: str, meta: dict) -> dict:
    out = {"id": iid, **task, "questions": ["decision"]}
    out["meta"] = {**task.get("meta", {}), **meta}
    return out


def design_group(structure: str, n: int, cell_seed: int, index: int, *, seed: int = 0,
                 design: str = "v3", balanced: bool = False) -> list[dict]:
    """The six instance dicts of one V3 group (Li et al. 2026, §2.2): per source an ACT
    member and an intervention member from one base, with ``meta`` giving the suite, design
    (``v3``; ``h2``: the groups of the response-requirement study, drawn apart; ``v3b``:
    cue-balanced groups, ``balanced=True``), cell, group, pair, source, role and the number
    of bases drawn."""
    from ...generators.decision import group
    rng = derive_rng(seed, design, structure, n, cell_seed, index)
    cell = f"{structure}-n{n}-s{cell_seed}"
    gid = f"ai-{cell}-g{index:02d}" if design == "v3" else f"ai-{design}-{cell}-g{index:02d}"
    out = []
    stats: dict = {}
    memo: dict = {}          # world results shared by the group's candidate draws

    def judge(task: DecisionTask) -> tuple[str, dict]:
        return oracle_judge(task, memo)
    for source, pair in group(structure, n, judge, rng, stats=stats,
                              balanced=balanced).items():
        for role, task in zip(("act", "intervention"), pair):
            meta = {"suite": SUITE, "design": design, "cell": cell, "structure": structure,
                    "size": n, "seed": cell_seed, "group": gid, "pair": f"{gid}-{source}",
                    "source": source, "role": role, "draws": stats["draws"]}
            out.append(_finish(task, f"{gid}-{source}-{role}", meta))
    return out


def design_local_pair(structure: str, n: int, cell_seed: int, source: str, index: int, *,
                      seed: int = 0, design: str = "h5") -> list[dict]:
    """The two instance dicts of one H5 local-cue-matched pair (Li et al. 2026, §4.1):
    an ACT member and an intervention member agreeing on the source's surface cues (see
    :mod:`prefcert.generators.decision`)."""
    from ...generators.decision import local_cue_pair
    rng = derive_rng(seed, design, structure, n, cell_seed, source, index)
    cell = f"{structure}-n{n}-s{cell_seed}"
    pid = f"ai-local-{cell}-{source}-p{index}" if design == "h5" else \
        f"ai-{design}-{cell}-{source}-p{index}"
    out = []
    stats: dict = {}
    memo: dict = {}

    def judge(task: DecisionTask) -> tuple[str, dict]:
        return oracle_judge(task, memo)
    pair = local_cue_pair(structure, n, source, judge, rng, stats=stats)
    for role, task in zip(("act", "intervention"), pair):
        meta = {"suite": SUITE, "design": design, "cell": cell, "structure": structure,
                "size": n, "seed": cell_seed, "group": None, "pair": pid, "source": source,
                "role": role, "draws": stats["draws"]}
        out.append(_finish(task, f"{pid}-{role}", meta))
    return out


# --------------------------------------------------------------------------- prompts

CONDITIONS = ("original", "explicit_json")

_OBJECTIVE_TEXT = {
    "utilitarian": "utilitarian: make the total of everyone's rank positions as small as "
                   "possible (rank 1 is a first choice)",
    "egalitarian": "egalitarian: make the worst rank position anyone ends up with as good "
                   "as possible",
    "rank_maximal": "rank-maximal: give as many people as possible their first choice, "
                    "then, among those options, as many as possible their second choice, "
                    "and so on",
    "leximin": "leximin: leave as few people as possible at the worst rank position that "
               "occurs, then as few as possible at the next worst, and so on",
}
_MATCHING_TEXT = {
    "a_optimal": "A-optimal: the stable matching produced by deferred acceptance with the "
                 "A side proposing (the best stable matching for every A member)",
    "b_optimal": "B-optimal: the stable matching produced by deferred acceptance with the "
                 "B side proposing",
    "egalitarian": "egalitarian: among stable matchings, the smallest total of both "
                   "partners' rank positions",
    "minimum_regret": "minimum regret: among stable matchings, the best worst rank position "
                      "of any matched person",
}


def _list_text(entries: list) -> str:
    parts = []
    for e in entries:
        if isinstance(e, dict):
            parts.append("(" + " and ".join(e["unknown"]) +
                         " in an order that was not reported)")
        else:
            parts.append(e)
    return " > ".join(parts)


def _constraint_text(d: dict, c: dict) -> str:
    t = c["type"]
    if t == "max":
        unit = " minutes" if c["attribute"] == "commute" else ""
        return f"[{c['id']}] {c['attribute']} at most {c['value']:,}{unit}"
    words = {"require": "{a} must receive {i}", "forbid": "{a} must not receive {i}",
             "unavailable": "{a} cannot attend at {i}",
             "forced": "{a} must be matched with {i}",
             "forbidden": "{a} must not be matched with {i}"}[t]
    return f"[{c['id']}] " + words.format(a=c["agent"], i=c["item"])


def render_prompt(d: dict, condition: str = "original") -> str:
    """The prompt of a decision task (our wording, with the structure of Li et al. 2026's
    prompts): the situation, every ranking (``>`` = preferred; an unreported order is said
    so), the objective or the admissible objectives, the hard constraints and the permitted
    edits, and the response format — loosely described (``original``) or spelled out field
    by field (``explicit_json``, the explicit output clause of the local-cue study)."""
    if condition not in CONDITIONS:
        raise ValueError(f"condition must be one of {CONDITIONS}")
    s = d["structure"]
    agents, items = d["agents"], d["items"]
    lines = []
    if s == "allocation":
        lines.append(f"Assign each of the agents {', '.join(agents)} exactly one of the "
                     f"objects {', '.join(items)}; every object goes to exactly one agent.")
    elif s == "scheduling":
        lines.append(f"Choose one time slot among {', '.join(items)} for a meeting of "
                     f"{', '.join(agents)}.")
    elif s == "apartment":
        lines.append(f"Residents {', '.join(agents)} will rent one apartment together; "
                     f"choose it among {', '.join(items)}.")
        for i in items:
            a = d["attributes"][i]
            lines.append(f"- {i}: rent {a['rent']:,}, commute {a['commute']} minutes")
    else:
        lines.append(f"Match every member of side A ({', '.join(agents)}) with one member of "
                     f"side B ({', '.join(items)}), one to one.")
    lines.append("Preferences (best first):")
    for p, lst in d["preferences"].items():
        lines.append(f"- {p}: {_list_text(lst)}")
    text = _MATCHING_TEXT if s == "stable_matching" else _OBJECTIVE_TEXT
    if d["source"] == "objective" and len(d["objectives"]) > 1:
        lines.append("The user has not said which aggregation rule applies; each of these "
                     "is admissible:")
        lines += [f"- {text[o]}" for o in d["objectives"]]
    else:
        lines.append(f"Choose by this rule — {text[d['objectives'][0]]}. Every option that "
                     "is optimal under it is acceptable.")
    cons = d.get("constraints", [])
    if cons:
        lines.append("Hard constraints:")
        lines += [f"- {_constraint_text(d, c)}" for c in cons]
        if s == "stable_matching":      # the task's reading of constrained matchings
            if d.get("reading", {}).get("matching_constraints", "sublattice") == "da_only":
                lines.append("The rule's matching is computed without the hard constraints; "
                             "they are met only if that matching meets them.")
            else:
                lines.append("The rule chooses among the stable matchings that meet every "
                             "hard constraint.")
    if d.get("permitted_edits"):
        lines.append("If the constraints cannot all be met, you may change only these: "
                     + ", ".join(d["permitted_edits"]) + " (each change is one edit: a "
                     "threshold may be raised to a new whole number, any other constraint "
                     "dropped); use as few edits as possible.")
    lines.append("Decide the next step: ACT (give an acceptable choice), ASK-PREFERENCE "
                 "(ask for the one missing comparison that matters), ASK-OBJECTIVE (ask which "
                 "rule is meant) or RELAX (propose the smallest permitted change to the "
                 "constraints and the choice you would make after it). Ask only when no "
                 "choice is acceptable in every admissible case.")
    if condition == "original":
        lines.append("Answer with a JSON object with the fields decision, action, question "
                     "and repair.")
        return "\n".join(lines)
    if s in ("scheduling", "apartment"):
        act = f'the {"slot" if s == "scheduling" else "apartment"} name, e.g. "{items[0]}"'
    else:
        act = f'an object mapping each {"agent" if s == "allocation" else "A member"} to ' \
              f'its {"object" if s == "allocation" else "partner"}, e.g. ' \
              f'{{"{agents[0]}": "{items[0]}", ...}}'
    lines += [
        "Respond with exactly one JSON object and nothing else:",
        '{"decision": "ACT" | "ASK-PREFERENCE" | "ASK-OBJECTIVE" | "RELAX", "action": ..., '
        '"question": ..., "repair": ...}',
        f"- action: {act}; required for ACT and for RELAX (the choice after the change), "
        "null otherwise.",
        '- question: for ASK-PREFERENCE {"agent": name, "items": [the two options whose '
        'order is missing]}; for ASK-OBJECTIVE {"objectives": [every admissible rule]}; '
        "null otherwise.",
        '- repair: for RELAX {"edits": [{"constraint": id, "value": new whole-number '
        'threshold}]} (omit value when a constraint is dropped); null otherwise.',
    ]
    return "\n".join(lines)
