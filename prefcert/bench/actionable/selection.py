"""``actionable-indeterminacy-selection``: generating vs selecting an answer (Li et al. 2026,
App. K.1, §N.2). 1,080 prompts.

The tasks are the first 5 H2 groups of every cell (180 groups, 1,080 tasks, 540 ACT-gold;
the same instances as ``actionable-indeterminacy-wording``, whose ``neutral`` prompts are
the generation condition). Each prompt states the task and offers a menu of four complete
responses — two ACT and two of the task's source-appropriate intervention (ASK-PREFERENCE,
ASK-OBJECTIVE or RELAX) — exactly one of them fully correct; the model answers with the
letter of its choice. The chosen candidate is judged like a generated response (decision
and content, :func:`.responses.judge_response`), so Accuracy, FC, IFC and all-six are
those of the chosen answers.

Menus (our construction; the source gives only the composition and that distractors vary
in difficulty): the correct candidate is the gold response; the wrong ACT candidates carry
an action accepted in one world only, or a random action of the task, that the checker
rejects; the wrong interventions name another adjacent comparison, a menu missing (ACT
gold: adding) one objective, or the right repair with an action it rejects (ACT gold: one
stated constraint dropped). Every menu is checked against the certified label: exactly one
candidate is fully correct, at the stated letter. Positions: within each (source, role)
class the correct letter is ``(cell number × 5 + group index) mod 4`` over the 36 cells,
so each letter holds the correct answer 45 times per class, 270 times in all.
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ..design import Entry, RenderedPrompt, Row, Suite, Task, Verdict
from . import suite as base
from .designs import K_GROUPS_PER_CELL, h2_group
from .responses import (SEEDS, SIZES, STRUCTURES, ParseOptions, derive_rng, gold_response,
                        judge_response, render_prompt)

LETTERS = ("A", "B", "C", "D")


def rows(sizes: Sequence[int]) -> list[Row]:
    return [Row({"design": "k1", "structure": st, "size": n, "seed": sd, "source": src,
                 "role": role}, [{"format": "selection"}], K_GROUPS_PER_CELL)
            for st in STRUCTURES for n in sizes for sd in SEEDS
            for src in base.SOURCES for role in base.ROLES]


def correct_position(structure: str, size: int, seed: int, index: int) -> int:
    """The letter index of the correct candidate: ``(cell × 5 + index) mod 4``, the cell
    numbered over the full 4 × 3 × 3 design (so positions do not depend on ``--sizes``)."""
    cell = (STRUCTURES.index(structure) * len(SIZES) + SIZES.index(size)) * len(SEEDS) + \
        SEEDS.index(seed)
    return (cell * K_GROUPS_PER_CELL + index) % len(LETTERS)


def _random_action(d: dict, rng) -> Any:
    if d["structure"] in ("scheduling", "apartment"):
        return rng.choice(d["items"])
    items = list(d["items"])
    rng.shuffle(items)
    return dict(zip(d["agents"], items))


def _adjacent_pairs(d: dict) -> list[dict]:
    out = []
    for p, lst in d["preferences"].items():
        flat = []
        for e in lst:
            flat += e["unknown"] if isinstance(e, dict) else [e]
        out += [{"agent": p, "items": [flat[i], flat[i + 1]]} for i in range(len(flat) - 1)]
    return out


def _ok(model, lab, cand) -> bool:
    return judge_response(model, lab, json.dumps(cand), ParseOptions())["fc"]


def _wrong(model, lab, make, rng, tries: int = 300):
    """A candidate from ``make(rng)`` that the checker rejects (None when none found)."""
    for _ in range(tries):
        c = make(rng)
        if c is not None and not _ok(model, lab, c):
            return c
    return None


def menu(d: dict, lab: dict, rng) -> list[dict]:
    """The four candidates of instance ``d`` with label ``lab``, the correct one first, then
    three wrong ones (two ACT and two intervention candidates in all). O(tries × one
    check). RuntimeError when no four distinct candidates can be built."""
    from ...formal.decision import DECISION_STRINGS, INTERVENTION, OBJECTIVES, parse_decision
    model = parse_decision(d)
    kind = INTERVENTION[d["source"]]
    gold = gold_response(model, lab)
    null = {"action": None, "question": None, "repair": None}

    def act(a: Any) -> dict:
        return {"decision": "ACT", **null, "action": a}

    def inter(**kw: Any) -> dict:
        return {"decision": DECISION_STRINGS[kind], **null, **kw}

    def random_act(avoid: Sequence[dict] = ()) -> dict:
        c = _wrong(model, lab, lambda r: (lambda a: None if a in avoid else a)(
            act(_random_action(d, r))), rng)
        return c if c is not None else act(None)

    hidden = [{"agent": p, "items": [a, b]} for p, a, b in model.hidden_pairs()]
    others = [q for q in _adjacent_pairs(d)
              if not any(q["agent"] == h["agent"] and set(q["items"]) == set(h["items"])
                         for h in hidden)]
    ids = [c["id"] for c in d.get("constraints", [])]
    objs = list(d["objectives"])
    if lab["verdict"] == "act":
        acts = [random_act()]
        if kind == "ask_preference":
            ints = [inter(question=hidden[0]), inter(question=rng.choice(others))]
        elif kind == "ask_objective":
            extra = [o for o in OBJECTIVES[d["structure"]] if o not in objs]
            ints = [inter(question={"objectives": objs}),
                    inter(question={"objectives": [*objs, rng.choice(extra)]})]
        else:
            pool = ids or list(d.get("permitted_edits") or [])
            if len(pool) >= 2:
                ints = [inter(repair={"edits": [{"constraint": c}]}, action=gold["action"])
                        for c in rng.sample(pool, 2)]
            elif pool:
                ints = [inter(repair={"edits": [{"constraint": pool[0]}]},
                              action=gold["action"]),
                        inter(repair={"edits": [{"constraint": pool[0]}]})]
            else:                                   # nothing stated to relax
                ints = [inter(repair={"edits": []}, action=gold["action"]),
                        inter(repair={"edits": []})]
    else:
        first = None
        if kind == "relax":
            first = gold["action"]                  # the repaired choice, unrepaired
        else:
            for w in lab["certificate"].get("worlds", []):
                acc = (w.get("proof") or {}).get("accepted")
                if isinstance(acc, list) and acc:
                    first = acc[0]                  # accepted in one world
                    break
        acts = [act(first) if first is not None else random_act()]
        second = random_act(acts)
        acts.append(second if second not in acts else act(None))
        if kind == "ask_preference":
            ints = [inter(question=rng.choice(others))]
        elif kind == "ask_objective":
            ints = [inter(question={"objectives": objs[:-1]})]
        else:
            alt = _wrong(model, lab, lambda r: {**gold, "action": _random_action(d, r)}, rng)
            ints = [alt if alt is not None else {**gold, "action": None}]
    cands = [gold, *acts, *ints]
    if len(cands) != 4 or len({json.dumps(c, sort_keys=True) for c in cands}) != 4:
        raise RuntimeError(f"{d['id']}: could not build four distinct candidates")
    return cands


def sample(row: Row, index: int, ctx) -> Task:
    """One H2 task (groups 0–4) with its menu, built from the oracle's label and checked
    again against the certified label in :func:`gold`. O(menu)."""
    from ...formal.decision import parse_decision
    from ...oracles.decision import decide
    f = row.factors
    members = h2_group(f["structure"], f["size"], f["seed"], index, ctx.suite_seed)
    (d,) = [m for m in members if m["meta"]["source"] == f["source"]
            and m["meta"]["role"] == f["role"]]
    out = decide(parse_decision(d))
    lab = {"verdict": out.verdict, "solution": out.solution, "certificate": out.certificate}
    rng = derive_rng(ctx.suite_seed, "k1", dict(f), index)
    cands = menu(d, lab, rng)
    pos = correct_position(f["structure"], f["size"], f["seed"], index)
    wrong = cands[1:]
    rng.shuffle(wrong)
    order = wrong[:pos] + [cands[0]] + wrong[pos:]
    return Task([d], [(d["id"], "decision")],
                {"question": "decision", **d["meta"], "design": "k1", "candidates": order,
                 "correct": LETTERS[pos], **base.matching_repair(ctx)})


def render_text(d: dict, candidates: Sequence[dict]) -> str:
    """The task (the suite's original prompt without its answer line), the four candidate
    responses and the request for one letter."""
    lines = render_prompt(d, "original").split("\n")[:-1]
    lines.append("Here are four candidate responses (JSON objects with the fields decision, "
                 "action, question and repair); choose the one that is correct.")
    lines += [f"{k}. {json.dumps(c)}" for k, c in zip(LETTERS, candidates)]
    lines.append("Reply with the letter of your choice (A, B, C or D) and nothing else.")
    return "\n".join(lines)


def render(task: Task, variant: dict, ctx) -> RenderedPrompt:
    return RenderedPrompt(render_text(task.instances[0], task.payload["candidates"]),
                          "choice")


def gold(task: Task, variant: dict, labels, rendered: RenderedPrompt) -> str:
    """The correct letter, after checking the menu against the certified label: exactly
    one candidate fully correct, at that letter, two ACT candidates."""
    from ...formal.decision import parse_decision
    base.gold(task, variant, labels, rendered)          # the sampler's verdict is certified
    (lab,) = labels
    model = parse_decision(task.instances[0])
    cands = task.payload["candidates"]
    fc = [k for k, c in zip(LETTERS, cands) if _ok(model, lab, c)]
    if fc != [task.payload["correct"]]:
        raise RuntimeError(f"{task.instances[0]['id']}: fully correct candidates {fc}, the "
                           f"menu says {task.payload['correct']}")
    if sum(c["decision"] == "ACT" for c in cands) != 2:
        raise RuntimeError(f"{task.instances[0]['id']}: the menu needs two ACT candidates")
    return task.payload["correct"]


_CHOICE = re.compile(r"[(\[*\s]*(?:(?i:option|candidate|answer|choice)\s*:?\s*)?"
                     r"([ABCD])[)\].:*\s]*")


def read_choice(answer: str) -> str | None:
    """The letter of a selection answer: the whole answer one letter A–D (brackets,
    punctuation and a word such as "Option" around it allowed) or a JSON object
    ``{"choice": letter}``; None otherwise. O(len(answer))."""
    m = _CHOICE.fullmatch(answer.strip())
    if m:
        return m.group(1)
    try:
        obj = json.loads(answer)
    except ValueError:
        return None
    if isinstance(obj, dict) and isinstance(obj.get("choice"), str) and \
            obj["choice"].strip() in LETTERS:
        return obj["choice"].strip()
    return None


def score(prompt: dict, answer: str | None, entry: Entry) -> Verdict:
    """The chosen candidate judged as a response (decision and content); ``invalid`` when no
    letter can be read."""
    t = prompt["task"]
    letter = read_choice(answer) if answer is not None else None
    chosen = None if letter is None else t["candidates"][LETTERS.index(letter)]
    v = base.score(prompt, None if answer is None else
                   json.dumps(chosen) if chosen is not None else "no choice", entry)
    extra = {**v.extra, "choice": letter, "correct_choice": t["correct"]}
    parsed = {"kind": "value" if letter else "invalid", "value": letter,
              "rule": "choice_letter" if letter else "no_letter"}
    if answer is None:
        return Verdict("timeout", None, "no answer", extra)
    return Verdict(v.verdict, parsed, v.reason, extra)


SUITE = Suite(
    name="actionable-indeterminacy-selection",
    description=("Li et al. 2026, App. K.1: the first 5 H2 groups of every cell as a choice "
                 "among four complete responses (two ACT, two source-appropriate "
                 "interventions, exactly one fully correct, positions balanced)."),
    sizes=SIZES, per_cell=K_GROUPS_PER_CELL, seed=0, rows=rows, sample=sample,
    render=render, gold=gold, score=score, metrics=base.metrics, results=base.results,
    readings=base.READINGS, expected_total=36 * K_GROUPS_PER_CELL * 6,
    engines=("oracle", "cpsat"),
    citation=base.SUITE.citation,
)
