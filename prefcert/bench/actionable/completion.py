"""``actionable-indeterminacy-completion``: the two-turn completion test of Li et al. (2026,
§3.4, App. J, §N.3). 540 prompts, all intervention-needed.

**Tasks.** 36 cells (4 structures × n ∈ {4, 6, 8} × 3 generator seeds), 5 groups per cell
drawn by the V3 generator from their own seeds (design tag ``tt``: "completion separately
samples 540 intervention-needed tasks", §M), and of each group its three intervention
members (ASK-PREFERENCE, ASK-OBJECTIVE, RELAX): 36 × 5 × 3 = 540 tasks.

**Resolved tasks.** Each task carries, besides the original instance, its *resolved
task(s)*: ordinary decision instances of the same structure, labelled and certified like any
other (oracle and CP-SAT must agree; :func:`gold` checks that every resolved label is ACT):

- preference source: the hidden comparison fixed in one direction (a seeded choice of one
  of the two worlds). A task with no unknown block cannot be ``source: preference``, so the
  resolved task is re-encoded as ``source: objective`` with a one-rule menu (the task's
  objective): the same worlds-free problem;
- objective source: the menu cut to one rule (a seeded choice among the admissible
  objectives);
- constraint source: one resolved task per minimum repair of the certified label (every
  repair the oracle lists, tight thresholds): the edits applied (a threshold set to its new
  value, a dropped constraint removed, with its permitted edit).

**Turns** (``Entry.history`` says which turn an answer is: the refinement driver and the
Inspect solver set it). Responses are read by the bare-JSON parser (``ParseOptions(json=
"bare")``: JSON inside a Markdown fence is rejected, App. J).

1. The model answers the original task (explicit-JSON wording). The first response is a
   *valid intervention* when it is the gold decision with its content accepted:
   ASK-PREFERENCE naming the pivotal comparison and no action; ASK-OBJECTIVE listing every
   admissible objective and no action; RELAX with a repair equal to one of the label's
   minimum repairs (an action, if given, is not judged: the final action is asked for in
   turn 2). Anything else — ACT, the wrong intervention, wrong content, an unparsed
   response — ends the episode: no feedback, no second turn, no retry (App. J), and the
   task is not completed.
2. After a valid intervention the environment answers (the suite's ``feedback`` hook,
   never the final action): the hidden comparison's true direction, the objective meant,
   or that the proposed change is accepted. The final response must be ACT with an action
   accepted in the resolved task (for RELAX: the resolved task of the model's own repair)
   and null question and repair (§N.3).

A turn-1 verdict is never ``correct`` (the task is complete only after turn 2), so a
refinement run continues exactly when the environment has something to say. Score records
carry ``turn``, ``first_valid`` and ``completed``; metrics: the autonomous completion rate
(completed / tasks), the conditional rate (completed / valid first interventions) and the
valid-first-intervention rate, overall and per source and structure.

**Routes** (parameter ``route``, App. J). ``interactive`` (default: the paper's main,
autonomous reading, above). ``reference``: the predetermined feedback in a fresh
conversation — one prompt holding the original task, the predetermined resolution (the
first of the task's: the seeded direction, the seeded rule, the label's first minimum
repair, stated as settled rather than as the model's proposal) and the request for the
final ACT; the one answer is final, judged like turn 2 against that resolved task, with no
first intervention required (Claude's 516 reference completions exceed its 427 valid first
turns, so the paper's reference route cannot depend on them). ``both``: each task once per
route, paired on the same instances. Our reading: the fresh conversation is one user
message (the source does not say whether a reference intervention was replayed as an
assistant turn). Prompts of a non-default route carry ``route`` in their cell; records
carry ``route``; reference-route metrics are ``completion`` in groups with ``route:
reference``.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from ...generators.decision import apply_edits

from ..design import Entry, Parameter, RenderedPrompt, Row, Suite, Task, Verdict, int_in
from ..stats import proportion
from . import suite as base
from .results import completion_results
from .responses import (
    _MATCHING_TEXT,
    _OBJECTIVE_TEXT,
    SEEDS,
    SIZES,
    STRUCTURES,
    ParseOptions,
    derive_rng,
    design_group,
    gold_response,
    judge_response,
    parse_response,
    read_repair,
    render_prompt,
    task_names,
)

GROUPS_PER_CELL = 5
FORMAT = "explicit_json"
ROUTES = ("interactive", "reference", "both")
"""The values of the suite's parameter ``route`` (App. J): ``interactive`` (default, the
paper's autonomous route), ``reference`` (predetermined feedback in a fresh conversation)
or ``both`` (each task once per route, paired on the same instances)."""
REFERENCE_LEAD = "Further information about this task, settled with the user: "
FINAL_REQUEST = ("Now give your final answer for this task as one JSON object: decision ACT, "
                 "the action, and null question and repair.")


def rows(sizes: Sequence[int], routes: Sequence[str] | None = None) -> list[Row]:
    """One row per (structure, size, seed, source), 5 tasks each, one variant per route of
    ``routes`` (None: the interactive route alone, its variant without a ``route`` key, so
    the default design keeps its bytes). O(rows)."""
    variants = [{"format": FORMAT}] if routes is None else \
        [{"format": FORMAT, "route": r} for r in routes]
    return [Row({"design": "tt", "structure": st, "size": n, "seed": sd, "source": src,
                 "role": "intervention"}, [dict(v) for v in variants], GROUPS_PER_CELL)
            for st in STRUCTURES for n in sizes for sd in SEEDS for src in base.SOURCES]


def route_of(cell: dict) -> str:
    """The route of a prompt's cell (``interactive`` when the cell names none). O(1)."""
    return cell.get("route", "interactive")


@lru_cache(maxsize=4096)
def _group(structure: str, size: int, seed: int, index: int, suite_seed: int) -> tuple:
    return tuple(design_group(structure, size, seed, index, seed=suite_seed, design="tt"))


def _plain(d: dict) -> dict:
    return {k: v for k, v in d.items() if k not in ("id", "meta")}


def resolve(d: dict, suite_seed: int) -> list[tuple[dict, dict]]:
    """The resolved tasks of intervention instance ``d``: ``[(instance dict, resolution)]``,
    where the resolution is what the environment reveals — ``{"agent", "items": [better,
    worse]}`` (preference), ``{"objective"}`` (objective) or ``{"edits"}`` (constraint, one
    per minimum repair of the oracle). Seeded choices come from ``suite_seed`` and the
    instance id. O(the oracle on ``d``)."""
    src, iid = d["source"], d["id"]
    meta = {**d["meta"], "role": "resolved"}
    rng = derive_rng(suite_seed, "tt-resolve", iid)
    if src == "preference":
        (party, block), = [(p, e["unknown"]) for p, lst in d["preferences"].items()
                           for e in lst if isinstance(e, dict)]
        if len(block) != 2:
            raise RuntimeError(f"{iid}: a hidden block of {len(block)} items (2 expected)")
        order = list(block) if rng.random() < 0.5 else list(reversed(block))
        prefs = {p: [x for e in lst for x in (order if isinstance(e, dict) else [e])]
                 for p, lst in d["preferences"].items()}
        inst = {**_plain(d), "preferences": prefs, "source": "objective"}
        return [({"id": f"{iid}-resolved", **inst, "meta": meta},
                 {"agent": party, "items": order})]
    if src == "objective":
        o = d["objectives"][rng.randrange(len(d["objectives"]))]
        inst = {**_plain(d), "objectives": [o]}
        return [({"id": f"{iid}-resolved", **inst, "meta": meta}, {"objective": o})]
    from ...formal.decision import parse_decision
    from ...oracles.decision import decide
    out = decide(parse_decision(_plain(d)))
    if out.verdict != "relax":
        raise RuntimeError(f"{iid}: the oracle says {out.verdict}, not relax")
    res = []
    for k, rep in enumerate(out.solution["repairs"]):
        inst = apply_edits(_plain(d), rep["edits"])
        res.append(({"id": f"{iid}-resolved-r{k}", **inst, "meta": meta},
                    {"edits": rep["edits"]}))
    return res


def sample(row: Row, index: int, ctx) -> Task:
    """The intervention member of the row's source in group ``index``, with its resolved
    tasks (:func:`resolve`). O(one group + the oracle on the member)."""
    f = row.factors
    members = _group(f["structure"], f["size"], f["seed"], index, ctx.suite_seed)
    (d,) = [m for m in members if m["meta"]["source"] == f["source"]
            and m["meta"]["role"] == "intervention"]
    if f["source"] == "preference":
        tag = {k: f[k] for k in ("design", "structure", "size")}
        ctx.draw(tag, d["meta"]["draws"])
        ctx.accept(tag)
    resolved = resolve(d, ctx.suite_seed)
    insts = [d] + [r for r, _ in resolved]
    return Task(insts, [(i["id"], "decision") for i in insts],
                {"question": "decision", **d["meta"], "design": "tt",
                 "resolved": [{"instance": r["id"], **how} for r, how in resolved]})


def render(task: Task, variant: dict, ctx) -> RenderedPrompt:
    """The original task (explicit-JSON wording); on the reference route followed by the
    predetermined resolution (the first of the payload's: the seeded direction, the seeded
    rule, the label's first minimum repair) and the request for the final ACT."""
    text = render_prompt(task.instances[0], variant["format"])
    if route_of(variant) == "reference":
        (res, *_) = task.payload["resolved"]
        text += "\n\n" + REFERENCE_LEAD + resolution_text(
            task.payload["structure"], res, proposed=False) + " " + FINAL_REQUEST
    return RenderedPrompt(text, "decision")


def _key(edits: Sequence[dict]) -> list[str]:
    return sorted(json.dumps({k: e[k] for k in ("constraint", "value") if k in e},
                             sort_keys=True) for e in edits)


def gold(task: Task, variant: dict, labels: Sequence[dict], rendered: RenderedPrompt) -> str:
    """The gold first turn (the certified intervention; a RELAX carries its first repair
    and no action); on the reference route the gold final ACT of the predetermined
    resolved task. Raises when the first label is not the source's intervention, a
    resolved label is not ACT, or the resolved tasks' repairs are not the label's."""
    from ...formal.decision import INTERVENTION, parse_decision
    first, *rest = labels
    d = task.instances[0]
    want = INTERVENTION[d["source"]]
    if first["verdict"] != want:
        raise RuntimeError(f"{d['id']}: expected {want}, the certified label says "
                           f"{first['verdict']}")
    for lab in rest:
        if lab["verdict"] != "act":
            raise RuntimeError(f"{lab['id']}: a resolved task must be ACT, its certified "
                               f"label says {lab['verdict']}")
    if want == "relax":
        stored = sorted(json.dumps(_key(r["edits"])) for r in first["solution"]["repairs"])
        made = sorted(json.dumps(_key(r["edits"])) for r in task.payload["resolved"])
        if stored != made:
            raise RuntimeError(f"{d['id']}: the resolved repairs are not the label's")
    if route_of(variant) == "reference":
        rid = task.payload["resolved"][0]["instance"]
        k = next(i for i, x in enumerate(task.instances) if x["id"] == rid)
        return json.dumps(gold_response(parse_decision(task.instances[k]), labels[k]))
    out = gold_response(parse_decision(d), first)
    if want == "relax":
        out["action"] = None
    return json.dumps(out)


def _options(entry: Entry) -> ParseOptions:
    return ParseOptions(json="bare", parse=getattr(entry, "parse", "lenient"))


def first_turn(prompt: dict, answer: str, entry: Entry) -> dict:
    """Judge a first response: ``{"valid", "parsed", "decision", "reason", "reading",
    "resolved" (the resolved task's index in the payload when valid)}``. O(the checker)."""
    t = prompt["task"]
    lab = entry.labels[0]
    model = entry.model(lab["id"])
    opts = _options(entry)
    out: dict[str, Any] = {"valid": False, "resolved": None}
    if lab["verdict"] == "relax":
        r = parse_response(answer, opts, task_names(model))
        out.update(parsed=r.ok, decision=r.verdict, reason=r.reason,
                   reading={"kind": "value" if r.ok else r.kind if r.kind != "value"
                            else "invalid", "value": dict(r.raw) if r.ok else None,
                            "rule": r.rule})
        if not r.ok:
            return out
        if r.verdict != "relax":
            out["reason"] = f"decided {r.verdict}, gold relax"
            return out
        edits = read_repair(model, r.repair)
        keys = [_key(x["edits"]) for x in t["resolved"]]
        if edits is None or _key(edits) not in keys:
            out["reason"] = "the repair is not a minimum repair of the task"
            return out
        out.update(valid=True, resolved=keys.index(_key(edits)),
                   reason="an accepted minimum repair")
        return out
    j = judge_response(model, lab, answer, opts)
    out.update(parsed=j["parsed"], decision=j["decision"], reason=j["reason"],
               reading=j["reading"], valid=bool(j["fc"]), resolved=0 if j["fc"] else None)
    return out


def score(prompt: dict, answer: str | None, entry: Entry) -> Verdict:
    """Turn 1 (``entry.history`` empty): a valid intervention is ``incorrect`` with
    ``first_valid`` (the task is not complete yet), anything else ends the episode. Turn 2:
    ``correct`` iff the first response was a valid intervention and this one is an
    accepted ACT of the resolved task. On the reference route the one answer is final:
    ``correct`` iff an accepted ACT of the predetermined resolved task (``first_valid``
    None). Records carry ``route``. O(the checker)."""
    t = prompt["task"]
    history = tuple(getattr(entry, "history", ()))
    turn = len(history) + 1
    route = route_of(prompt["cell"])
    extra: dict[str, Any] = {"design": "tt", "structure": t["structure"], "size": t["size"],
                             "source": t["source"], "cell_id": t["cell"], "turn": turn,
                             "route": route, "instance_id": prompt["instance_id"],
                             "gold": entry.labels[0]["verdict"],
                             "first_valid": False, "completed": False, "decision": None}
    if route == "reference":
        extra["first_valid"] = None           # no first intervention on this route
        if answer is None:
            return Verdict("timeout", None, "no answer", extra)
        return _final(t["resolved"][0]["instance"], answer, entry, extra)
    if turn == 1:
        if answer is None:
            return Verdict("timeout", None, "no answer", extra)
        f = first_turn(prompt, answer, entry)
        extra.update(first_valid=f["valid"], decision=f["decision"])
        if f["valid"]:
            return Verdict("incorrect", f["reading"],
                           f"a valid first intervention ({f['reason']}); the task is "
                           "complete only after the final action", extra)
        return Verdict("incorrect" if f["parsed"] else "invalid", f["reading"],
                       f"not a valid first intervention ({f['reason']}): no second turn",
                       extra)
    f = first_turn(prompt, history[0], entry)
    extra["first_valid"] = f["valid"]
    if not f["valid"]:
        return Verdict("incorrect", None, "the first response was not a valid intervention: "
                       "the episode ended", extra)
    if answer is None:
        return Verdict("timeout", None, "no final answer", extra)
    return _final(t["resolved"][f["resolved"]]["instance"], answer, entry, extra)


def _final(rid: str, answer: str, entry: Entry, extra: dict) -> Verdict:
    """The final answer judged against resolved task ``rid``: ``correct`` iff an accepted
    ACT (bare JSON)."""
    (lab,) = [x for x in entry.labels if x["id"] == rid]
    j = judge_response(entry.model(rid), lab, answer, _options(entry))
    extra.update(decision=j["decision"], completed=bool(j["fc"]), resolved=rid)
    verdict = "correct" if j["fc"] else "invalid" if not j["parsed"] else "incorrect"
    return Verdict(verdict, j["reading"], j["reason"], extra)


def _objective_text(structure: str, o: str) -> str:
    return (_MATCHING_TEXT if structure == "stable_matching" else _OBJECTIVE_TEXT)[o]


def resolution_text(structure: str, resolution: dict, proposed: bool = True) -> str:
    """What resolves a task, in words: the hidden comparison's direction, the rule meant,
    or the change to the constraints — accepted as the model's proposal (``proposed``,
    the interactive route) or stated as settled (the reference route). O(edits)."""
    if "items" in resolution:
        a, b = resolution["items"]
        return f"{resolution['agent']} prefers {a} to {b}."
    if "objective" in resolution:
        return "The rule meant is " + _objective_text(structure, resolution["objective"]) + "."
    parts = [f"{e['constraint']} raised to {e['value']}" if "value" in e else
             f"{e['constraint']} dropped" for e in resolution["edits"]]
    lead = "Your proposed change is accepted: " if proposed else \
        "The constraints are changed as follows: "
    return lead + "; ".join(parts) + "."


def environment_answer(prompt: dict, resolution: dict) -> str:
    """The environment's reply to a valid intervention (never the final action)."""
    return f"{resolution_text(prompt['task']['structure'], resolution)} {FINAL_REQUEST}"


def feedback(prompt: dict, answer: str, entry: Entry) -> str | None:
    """The environment: after a valid first intervention, the resolving information
    (:func:`environment_answer`); None otherwise (an invalid first response gets no second
    turn, and nothing follows the final action; on the reference route the one answer is
    final)."""
    if getattr(entry, "history", ()) or route_of(prompt["cell"]) == "reference":
        return None
    f = first_turn(prompt, answer, entry)
    if not f["valid"]:
        return None
    return environment_answer(prompt, prompt["task"]["resolved"][f["resolved"]])


def multi_turn(prompt: Mapping[str, Any]) -> bool:
    """Whether a prompt is a two-turn episode, which no single answer completes (the
    suite's ``multi_turn`` hook).

    Parameters
    ----------
    prompt : mapping
        A prompt record of this suite (its ``cell`` names the route).

    Returns
    -------
    bool
        True on the interactive route (a first intervention, the environment's answer,
        the final action); False on the reference route, whose one answer is final. O(1).
    """
    return route_of(prompt["cell"]) != "reference"


def metrics(scored: Sequence[dict]) -> list[dict]:
    """The autonomous completion rate (completed / tasks), the rate conditional on a valid
    first intervention, and the valid-first-intervention rate (App. J): overall, per source
    and per structure; for reference-route records (``route: reference``) the completion
    rate alone, in groups carrying ``route: reference`` (interactive groups name no route,
    as before the route existed)."""
    out = []
    for route in dict.fromkeys(s.get("route", "interactive") for s in scored):
        part = [s for s in scored if s.get("route", "interactive") == route]
        top = {} if route == "interactive" else {"route": route}
        groups: list[tuple[dict, list]] = [(top, part)]
        for key in ("source", "structure"):
            for level in dict.fromkeys(s[key] for s in part):
                groups.append(({**top, key: level}, [s for s in part if s[key] == level]))
        for g, ss in groups:
            done = sum(bool(s["completed"]) for s in ss)
            out.append(proportion("completion", g, done, len(ss)))
            if route == "reference":
                continue
            valid = sum(bool(s["first_valid"]) for s in ss)
            out.append(proportion("first_valid", g, valid, len(ss)))
            if valid:
                out.append(proportion("completion_given_valid", g, done, valid))
    return out


def _route(v: Any) -> str:
    if v not in ROUTES:
        raise ValueError(f"one of {', '.join(ROUTES)}, not {v!r}")
    return str(v)


def configure(suite: Suite, params: dict, sizes: Sequence[int] | None) -> Suite:
    """The design for ``params``: the registered suite on the interactive route (same
    bytes); on ``reference`` or ``both`` every variant names its route, one or two per
    task (540 or 1,080 prompts at the full design). O(1)."""
    route = params["route"]
    if route == "interactive":
        return suite
    routes = ("interactive", "reference") if route == "both" else (route,)
    words = {"reference": "on the reference route (App. J: the predetermined resolution "
                          "given in a fresh conversation, one answer judged)",
             "both": "on both routes (interactive and reference, paired on the same "
                     "tasks)"}
    return replace(suite, rows=lambda sz: rows(sz, routes),
                   expected_total=36 * GROUPS_PER_CELL * 3 * len(routes),
                   description=f"{suite.description} Route: {words[route]}.")


SUITE = Suite(
    name="actionable-indeterminacy-completion",
    description=("Li et al. 2026, two-turn completion (§3.4, App. J): 540 intervention-needed "
                 "tasks; a valid first intervention gets the environment's answer (the "
                 "hidden comparison's direction, the objective meant, the accepted change) "
                 "and the final ACT is judged against the resolved task, itself a certified "
                 "instance."),
    sizes=SIZES, per_cell=GROUPS_PER_CELL, seed=0,
    rows=rows, sample=sample, render=render, gold=gold, score=score, metrics=metrics,
    feedback=feedback, multi_turn=multi_turn, results=completion_results,
    expected_total=36 * GROUPS_PER_CELL * 3,
    # the Inspect task's default number of turns (its -T rounds=N overrides it)
    parameters={"rounds": Parameter("rounds", 2, int_in(1, 10),
                                    "turns of the Inspect task; default 2 (the paper's "
                                    "two-turn episode), 1 to 10", run=True),
                "route": Parameter("route", "interactive", _route,
                                   "interactive (default: the model's own intervention "
                                   "answered, App. J's autonomous route), reference (the "
                                   "predetermined resolution in a fresh conversation, one "
                                   "turn) or both", variants=("reference", "both"))},
    configure=configure,
    engines=("oracle", "cpsat"), citation=base.SUITE.citation,
)
