"""``actionable-indeterminacy-intersection``: the global-intersection test of Li et al.
(2026, §I.2, Table 29). 480 prompts.

Each prompt gives, for every admissible objective, its complete set of accepted actions,
and asks for ACT (with an action common to all the sets) when their intersection is not
empty, else ASK-OBJECTIVE (listing every admissible objective): the set comparison without
deriving the sets from a decision problem. 240 tasks have an empty intersection, 240 a
non-empty one.

Our construction (the source gives the counts and the rule only): the tasks are the two
members of objective-source local-cue pairs (:func:`.responses.design_local_pair`, design
tag ``i2``) — same objective menu, same number of accepted actions under each objective,
only whether the sets intersect differs — of the two structures whose accepted sets are
lists of options (meeting scheduling: slots; apartment choice: apartments), n ∈ {4, 6, 8},
40 pairs per (structure, n): 2 × 3 × 40 = 240 pairs. The sets are computed by the
checker (:func:`prefcert.formal.checker.decision.items_accepted`) from the instance, and
the gold is the instance's label, certified by the oracle and CP-SAT; :func:`gold` checks
that the two agree (ACT iff the listed sets intersect). Responses are judged by the
suite's checker (:func:`.responses.judge_response`): an ACT action must lie in every set;
ASK-PREFERENCE is always wrong here.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache

from ..design import RenderedPrompt, Row, Suite, Task
from . import suite as base
from .responses import SIZES, design_local_pair

STRUCTURES_I2 = ("scheduling", "apartment")
PAIRS_PER_ROW = 40
_WORDS = {"scheduling": ("meeting time slot", "slots"), "apartment": ("apartment", "apartments")}


def rows(sizes: Sequence[int]) -> list[Row]:
    return [Row({"design": "i2", "structure": st, "size": n, "seed": 0, "source": "objective",
                 "role": role}, [{"format": "sets"}], PAIRS_PER_ROW)
            for st in STRUCTURES_I2 for n in sizes for role in base.ROLES]


@lru_cache(maxsize=4096)
def _pair(structure: str, size: int, index: int, suite_seed: int) -> tuple:
    return tuple(design_local_pair(structure, size, 0, "objective", index, seed=suite_seed,
                                   design="i2"))


def accepted_sets(d: dict) -> dict[str, list[str]]:
    """Objective -> its accepted options (in the task's order) for instance ``d``, by the
    checker's own optimisation. O(objectives × items × agents)."""
    from ...formal.checker.decision import items_accepted
    from ...formal.decision import parse_decision, stated
    task = parse_decision(d)
    cs = stated(task)
    out = {}
    for w in task.worlds():
        acc = items_accepted(task, w, cs)
        out[w.objective] = [i for i in task.items if i in acc]
    return out


def sample(row: Row, index: int, ctx) -> Task:
    f = row.factors
    members = _pair(f["structure"], f["size"], index, ctx.suite_seed)
    (d,) = [m for m in members if m["meta"]["role"] == f["role"]]
    if f["role"] == "act":
        tag = {k: f[k] for k in ("design", "structure", "size")}
        ctx.draw(tag, d["meta"]["draws"])
        ctx.accept(tag)
    return Task([d], [(d["id"], "decision")],
                {"question": "decision", **d["meta"], "design": "i2",
                 "sets": accepted_sets(d)})


def render_text(d: dict, sets: dict[str, list[str]]) -> str:
    """The abstract set-comparison prompt (our wording)."""
    what, plural = _WORDS[d["structure"]]
    lines = [f"A {what} must be chosen among {', '.join(d['items'])}. The user's goal is one "
             f"of {len(sets)} possibilities, and it is not known which. For each "
             f"possibility, here is the complete set of {plural} that are acceptable under "
             "it:"]
    lines += [f"- {o}: {{{', '.join(s)}}}" for o, s in sets.items()]
    lines += [
        f"Decide: ACT when some {what} is acceptable under every possibility (give one "
        f"such {what}); ASK-OBJECTIVE when no {what} is, asking which possibility holds and "
        "listing all of them. (ASK-PREFERENCE and RELAX are also valid decision strings.)",
        "Respond with exactly one JSON object and nothing else:",
        '{"decision": "ACT" | "ASK-PREFERENCE" | "ASK-OBJECTIVE" | "RELAX", "action": ..., '
        '"question": ..., "repair": ...}',
        f'- action: for ACT the {what}\'s name, e.g. "{d["items"][0]}"; null otherwise.',
        '- question: for ASK-OBJECTIVE {"objectives": [every possibility]}; null otherwise.',
        "- repair: null.",
    ]
    return "\n".join(lines)


def render(task: Task, variant: dict, ctx) -> RenderedPrompt:
    return RenderedPrompt(render_text(task.instances[0], task.payload["sets"]), "decision")


def gold(task: Task, variant: dict, labels, rendered: RenderedPrompt) -> str:
    """The gold response of the certified label, after checking that the listed sets agree
    with it: ACT iff they intersect, the gold action in every set."""
    text = base.gold(task, variant, labels, rendered)
    sets = task.payload["sets"]
    common = set.intersection(*(set(s) for s in sets.values()))
    (lab,) = labels
    if (lab["verdict"] == "act") != bool(common):
        raise RuntimeError(f"{task.instances[0]['id']}: the listed sets and the certified "
                           f"label ({lab['verdict']}) disagree")
    if lab["verdict"] == "act" and json.loads(text)["action"] not in common:
        raise RuntimeError(f"{task.instances[0]['id']}: the gold action is not common")
    return text


SUITE = Suite(
    name="actionable-indeterminacy-intersection",
    description=("Li et al. 2026, §I.2: the admissible-action set of every objective given; "
                 "ACT iff their intersection is non-empty, else ASK-OBJECTIVE (240 + 240 "
                 "tasks from objective local-cue pairs, scheduling and apartment)."),
    sizes=SIZES, per_cell=PAIRS_PER_ROW, seed=0, rows=rows, sample=sample, render=render,
    gold=gold, score=base.score, metrics=base.metrics, results=base.results,
    expected_total=len(STRUCTURES_I2) * len(SIZES) * PAIRS_PER_ROW * 2,
    engines=("oracle", "cpsat"), citation=base.SUITE.citation,
)
