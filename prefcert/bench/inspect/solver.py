"""The refinement protocol of Khanna & Wang (2026, §5) as a multi-turn Inspect solver:
the model answers; prefcert scores the answer; a wrong answer gets the suite's verifier
feedback (:func:`prefcert.bench.refine.feedback`: capped blocking pairs or coalitions,
never the solution; ``{}`` on a feasible instance is told that a solution exists, as in
the paper's protocol) as a user message with the attempts left; up to ``rounds`` answers, stopping at the first correct one. Every round's verdict is
kept in the sample's store (``prefcert_rounds``: round, answer, verdict, feedback), logged
as an info event, and copied into the score's metadata.

The feedback function is a parameter: any ``(prompt record, answer, entry) -> str | None``
(None ends the conversation), so a protocol where the environment answers a model's
question before it acts (the two-turn completion of Li et al. 2026, §3.4) is a suite's
feedback function on the same solver.
"""
from __future__ import annotations

from collections.abc import Callable

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageUser
from inspect_ai.solver import Generate, TaskState, solver

from ..design import Entry
from .scorer import ROUNDS, answer_of


@solver
def refinement(rounds: int = 3, feedback: Callable | None = None):
    """Up to ``rounds`` answers with prefcert's feedback between them (module docstring)."""
    from .. import refine

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        from ..score import score_prompt
        meta = state.metadata
        entry = Entry(meta["labels"], meta["instances"])
        history: list[dict] = []
        for r in range(1, rounds + 1):
            state = await generate(state)
            answer = answer_of(state)
            entry.history = tuple(h["answer"] for h in history)
            verdict = score_prompt(meta, answer, entry)["verdict"]
            item = {"round": r, "answer": answer, "verdict": verdict}
            if answer is not None and verdict != "correct":
                item["feedback"] = refine.round_feedback(meta, answer, entry, rounds - r,
                                                         feedback)
            history.append(item)
            transcript().info({"prefcert_round": r, "verdict": verdict,
                               "feedback": item.get("feedback")}, source="prefcert")
            if r == rounds or item.get("feedback") is None:
                break
            state.messages.append(ChatMessageUser(content=item["feedback"]))
        state.store.set(ROUNDS, history)
        return state

    return solve
