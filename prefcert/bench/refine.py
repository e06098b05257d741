"""Refinement: feedback on one answer, and a driver that runs up to three rounds against
any command mapping a prompt (stdin) to an answer (stdout).

The conversation is kept whole: round r's stdin is the prompt, then for every earlier round
``[Your answer]`` and ``[Feedback]`` sections. The command also gets ``PREFCERT_ROUND``
(1-based) and ``PREFCERT_PROMPT_ID`` in its environment; the scorer's entry carries the
earlier answers (``Entry.history``), and a suite feedback of None ends the conversation. A round that times out or fails
(non-zero exit) ends the loop, as in Khanna & Wang (2026, §5).
"""
from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..formal.errors import InstanceError
from .design import Entry

GENERIC = {"invalid": "Your answer could not be read: follow the answer format given in the "
                      "question, inside <answer></answer> tags.",
           "incorrect": "Your answer is not correct.",
           "correct": "Your answer is correct.",
           "timeout": "No answer was received."}


def feedback(prompt: Mapping[str, Any], answer: str | None, entry: Entry) -> str:
    """The suite's feedback message for ``answer`` (a generic one when the suite has
    none). Never reveals the solution; "{}" on a feasible instance is told that one
    exists (the paper's protocol, Khanna & Wang 2026 §5); nothing says none exists."""
    from .score import score_prompt, suite_of
    suite = suite_of(prompt)
    if suite.feedback is not None and answer is not None:
        return suite.feedback(dict(prompt), answer, entry)
    return GENERIC[score_prompt(prompt, answer, entry)["verdict"]]


def round_feedback(prompt: Mapping[str, Any], answer: str, entry: Entry, left: int,
                   fn: Callable | None = None) -> str | None:
    """The message after a wrong answer: ``fn(prompt, answer, entry)`` (default
    :func:`feedback`) and the attempts left; None when ``fn`` has nothing to say (the
    conversation ends). Shared by :func:`refine` and the Inspect solver."""
    fb = (fn or feedback)(prompt, answer, entry)
    if fb is not None and left:
        fb += f" {left} attempt{'s' if left > 1 else ''} remaining."
    return fb


def transcript(prompt_text: str, turns: Sequence[tuple[str, str]]) -> str:
    out = prompt_text
    for answer, fb in turns:
        out += f"\n\n[Your answer]\n{answer}\n\n[Feedback]\n{fb}\n"
    return out


def refine(bench, prompt: Mapping[str, Any], command: str | Sequence[str], *, rounds: int = 3,
           timeout: float | None = None, model: str | None = None) -> dict:
    """Run ``command`` for up to ``rounds`` attempts on one prompt of ``bench`` (a
    :class:`~prefcert.bench.score.Benchmark`), stopping at the first correct answer.

    Returns a scored record (``prefcert score``'s: ``id``, ``suite``, ``cell``,
    ``verdict``, ``parsed``, ``reason`` and the suite's fields, all of the last attempt), so
    that a refinement output is a scores file ``prefcert report`` reads, plus
    ``attempts``, ``final`` (the last attempt's verdict), ``model`` when given, and
    ``rounds``: ``[{"round", "answer", "verdict", "feedback"}]`` (1-based ``round``, the
    shape the Inspect refinement solver logs). A round past ``timeout`` is a timeout;
    a command exiting with a non-zero status raises InstanceError naming the prompt, the
    round and the last line it wrote to stderr (it was scored as a timeout before, which
    blamed the model for a broken harness). O(rounds) runs of ``command``.
    """
    from .score import score_prompt
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    entry = bench.entry(prompt)
    turns: list[tuple[str, str]] = []
    out: list[dict] = []
    last: dict = score_prompt(prompt, None, entry)
    for r in range(1, rounds + 1):
        env = dict(os.environ, PREFCERT_ROUND=str(r), PREFCERT_PROMPT_ID=str(prompt["id"]))
        try:
            run = subprocess.run(argv, input=transcript(prompt["prompt"], turns),
                                 capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            answer = None                   # no answer in time: the round is a timeout
        else:
            if run.returncode != 0:         # the command broke: no answer was attempted
                said = (run.stderr.strip().splitlines() or [""])[-1][:200]
                raise InstanceError(f"--command exited with status {run.returncode} on "
                                    f"prompt {prompt['id']}, round {r}"
                                    + (f": {said}" if said else ""), value=" ".join(argv))
            answer = run.stdout
        entry.history = tuple(a for a, _ in turns)
        last = score_prompt(prompt, answer, entry)
        rec = {"round": r, "answer": answer, "verdict": last["verdict"]}
        if answer is None or last["verdict"] == "correct":
            out.append(rec)
            break
        fb = round_feedback(prompt, answer, entry, rounds - r)
        rec["feedback"] = fb
        out.append(rec)
        if fb is None:                      # the suite has nothing to say: the episode ends
            break
        turns.append((answer, fb))
    head = {"model": model} if model else {}
    return {**head, **last, "attempts": len(out), "final": last["verdict"], "rounds": out}
