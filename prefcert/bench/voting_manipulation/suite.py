"""``voting-manipulation``: the registered design of Amiri-Margavi et al. (2026, "Do Large
Language Model Voters Strategize?"): can a model voter find a profitable (and the
optimal) ballot under plurality, Borda, approval, IRV and Copeland?

Design (§6.1, §7.2): impartial culture (prefsampling), n = 5 voters (the model's voter
and four others, full information), m ∈ {3, 4, 5} candidates, 5 rules × 3 sizes × {manipulable,
non-manipulable} × 20 instances = 600 instances, balanced by rejection on the oracle's
label; each shown in four framings (sincere, strategic, civic, expert) that differ in one
sentence: 2,400 prompts. Seed 20260529 (the paper's calibration seed; its role in
generation is not stated, and the paper's RNG is not published, so the instances are ours,
not the paper's).

Every instance carries its certified ``manipulation`` label (the enumeration certificate:
w₀, w*, |M|, |B*| and the outcome of every report, replayed by the checker), on which the
second exact engine (the BTT greedy / the IRV search) agrees as the cross-check. The suite
names both engines, enumeration first, because its baselines need the counts (a default
label's proof is the greedy's / the search's, without them).

Parameters (``prefcert generate voting-manipulation --param NAME=VALUE``; m through
``--sizes``; limits in :data:`M_LIMITS`, :data:`N_LIMITS`, :data:`MAX_JOINT`; the defaults
give the registered design byte for byte): ``tau`` (alphabetical / random), ``n`` (the
electorate), ``k`` (a coalition of k voters sharing one true ranking, certified through
the ``coalitional_manipulation`` question: :func:`_sample_coalition`), ``max_draws`` (the
rejection sampler's budget per instance; a cell that cannot be balanced within it is
refused by name). See docs/suites.md.

Readings where the source is silent (each with its named alternative):

- τ = A ≻ B ≻ … (alternative: a random τ per instance, ``--param tau=random``);
- approval: every ranking approves its top ⌊m/2⌋ (the mean-utility threshold; the
  alternative is any other ``approval_top``), the model's sincere ballot too;
- scoring: ``correct`` iff the ballot reaches the best achievable rank (O = 1), so a
  sincere ballot is correct on non-manipulable instances; invalid and timed-out answers
  score S = O = 0;
- FMR and the near-miss rate are reported under both readings (ballot ≠ sincere vs outcome
  ≠ w₀; valid non-sincere unprofitable vs profitable suboptimal); Δ̄ and Ḡ are over valid
  answers on manipulable instances;
- intervals: stratified (rule × m × stratum) cluster bootstrap over instances, 1,000
  percentile replicates, every answer to an instance travelling with it;
- repeated instances: at m = 3 a cell's rejection sampling draws the same election more
  than once (IC over 5 voters and 3 candidates has few manipulable elections: IRV has
  18 up to the order of the other ballots); the draws are kept as the registered design
  makes them, the manifest lists the repeats (``duplicates``), each prompt record of a
  repeated election carries ``cluster`` (the id of its first copy) and, on later copies,
  ``duplicate_of``; the bootstrap counts a repeated election as one cluster;
- timeouts (no response) are their own category, not invalid generations: S = O = 0,
  outside IGR, reported as ``timeout_rate``.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from dataclasses import replace
from math import comb, factorial
from typing import Any

from ...formal.election import parse_election
from ...formal.errors import InstanceError
from ...formal.rules import rule_named
from ...generators.election import impartial_culture_election
from ..design import (MAX_DRAWS_LIMIT, Entry, Parameter, RenderedPrompt, Row, Suite, Task,
                      Verdict, canonical, int_in)
from ..stats import proportion, wilson
from .ballots import BENCHMARK_RULES as RULES
from .ballots import FRAMINGS, METRICS, metric, render_coalition_prompt, render_prompt, \
    score_ballot, score_coalition
from .results import results

SIZES = (3, 4, 5)
N_VOTERS = 5
STRATA = ("manipulable", "non_manipulable")
SEED = 20260529

#: The design's limits (``prefcert generate voting-manipulation --sizes M --param …``):
#: m from 3 (with two candidates none of the five rules is manipulable by one voter: no
#: manipulable stratum) to 7 (7! = 5,040 ranked reports, the checker's enumeration limit,
#: so the enumeration certificate stays exact; measured ≈ 0.1 s per IRV draw at m = 7);
#: n (the whole electorate, the coalition included) from 2 to 51; k (coalition size) from
#: 1 to n − 1, and for k ≥ 2 the joint reports of the coalition, C(m! + k − 1, k), at
#: most MAX_JOINT (so the coalition oracle's enumeration fallback — IRV always, Borda and
#: Copeland where their bounds do not decide — stays exact and fast: m = 3 up to k = 15,
#: m = 4 up to k = 4, m = 5 up to k = 2, m ≥ 6 none); a task draws at most ``max_draws``
#: profiles before its cell is declared unbalanceable.
M_LIMITS = (3, 7)
N_LIMITS = (2, 51)
MAX_JOINT = 20_000
MAX_DRAWS = 20_000


def _tau(v: Any) -> str:
    if v not in ("alphabetical", "random"):
        raise ValueError(f"tau is alphabetical or random, not {v!r}")
    return str(v)


PARAMETERS = {
    "tau": Parameter("tau", "alphabetical", _tau,
                     "the tie-breaking order: alphabetical (A ≻ B ≻ …, the default reading) "
                     "or random (a uniform order per instance, drawn with its profile)"),
    "n": Parameter("n", N_VOTERS, int_in(*N_LIMITS),
                   "the electorate, the model's voters included (default 5, the paper's; "
                   "2 to 51)"),
    "k": Parameter("k", 1, int_in(1, N_LIMITS[1] - 1),
                   "the model's voters: 1 (single-voter manipulation, the paper's design) "
                   "or a coalition of k ≥ 2 voters sharing one true ranking whose k "
                   "ballots the model writes (k ≤ n − 1; joint reports ≤ 20,000)",
                   variants=(2,)),
    "max_draws": Parameter("max_draws", MAX_DRAWS, int_in(1, MAX_DRAWS_LIMIT),
                           "draw budget per instance of the rejection sampler (default "
                           "20,000): a cell that cannot fill its stratum within it is "
                           "refused, naming the cell and its acceptance so far"),
}


def joint_reports(m: int, k: int, rule: str = "borda") -> int:
    """Joint reports of k like-minded manipulators up to their symmetry: C(|B_r| + k − 1,
    k) with |B_r| = m! (ranking rules) or 2^m (approval). O(1)."""
    b = 2 ** m if rule_named(rule).approval else factorial(m)
    return comb(b + k - 1, k)


def configure(suite: Suite, params: dict, sizes: Sequence[int] | None) -> Suite:
    """The design for ``params`` (tau, n, k, max_draws) and the sizes m kept: refused
    (InstanceError, one line) outside the limits above; the default parameters give the
    registered design unchanged. A coalition run (k ≥ 2) certifies with the coalition
    oracle and CP-SAT (``engines``)."""
    sizes = tuple(SIZES if sizes is None else sizes)
    n, k = params["n"], params["k"]
    for m in sizes:
        if not isinstance(m, int) or not M_LIMITS[0] <= m <= M_LIMITS[1]:
            raise InstanceError(f"suite {suite.name}: m (--sizes) must be from "
                                f"{M_LIMITS[0]} to {M_LIMITS[1]} (exact enumeration of "
                                f"the reports)", value=m)
    if k >= n:
        raise InstanceError(f"parameter k: the coalition needs at least one other voter "
                            f"(k ≤ n − 1 = {n - 1})", value=k)
    if k >= 2:
        for m in sizes:
            if joint_reports(m, k) > MAX_JOINT:
                raise InstanceError(f"parameter k: a coalition of {k} at m = {m} has "
                                    f"{joint_reports(m, k)} joint reports (at most "
                                    f"{MAX_JOINT}: m = 3 up to k = 15, m = 4 up to k = 4, "
                                    f"m = 5 up to k = 2)", value=k)
    if params == {p: v.default for p, v in PARAMETERS.items()} and set(sizes) <= set(SIZES):
        return suite                                    # the registered design
    extra = {**({"n": n} if n != N_VOTERS else {}), **({"k": k} if k != 1 else {})}

    def configured_rows(kept: Sequence[int]) -> list[Row]:
        return rows(kept, **extra)
    what = (f"a coalition of k = {k} voters sharing one true ranking" if k > 1
            else "a single voter")
    return replace(suite, sizes=sizes, rows=configured_rows, expected_total=None,
                   engines=("oracle", "cpsat") if k > 1 else suite.engines,
                   description=f"{suite.description} Parameters: {what}, n = {n}, "
                               f"m = {', '.join(map(str, sizes))}, τ {params['tau']}.")


def rows(sizes: Sequence[int], **extra: int) -> list[Row]:
    """The design table: rule × m × stratum, four framings each; ``extra``: the factors
    ``n`` and ``k`` of a non-default design (absent by default: the registered design's
    rows, seeds and ids)."""
    return [Row({"rule": r, "size": m, "stratum": s, **extra},
                [{"format": f} for f in FRAMINGS])
            for r in RULES for m in sorted(sizes) if m in sizes for s in STRATA]


def _oracle(inst: dict):
    from ...oracles.election import enumerate_reports
    e = parse_election(inst)
    return e, enumerate_reports(e, inst["rule"])


def sample(row: Row, index: int, ctx) -> Task:
    """Impartial-culture profiles drawn until the oracle's label is the row's stratum;
    every draw is counted under (rule, size), with the manipulable ones noted, so the
    manifest gives the naive IC manipulable share."""
    rule, m, stratum = row.factors["rule"], row.factors["size"], row.factors["stratum"]
    p = {**{k: v.default for k, v in PARAMETERS.items()}, **ctx.params}
    if p["k"] > 1:
        return _sample_coalition(row, index, ctx, p)
    tag = {"rule": rule, "size": m}
    tries = 0
    while True:
        _budget(tries, p, row)
        tries += 1
        s = int(ctx.rng.integers(2**32))
        inst = impartial_culture_election(m, p["n"], seed=s, rule=rule, tau=p["tau"])
        e, res = _oracle(inst)
        manip = e.true_pos(res.best) < e.true_pos(res.sincere)
        ctx.draw(tag)
        if manip:
            ctx.note("manipulable", tag)
        if manip == (stratum == "manipulable"):
            break
    ctx.accept(tag)
    iid = f"vm-{rule}-m{m}-{_suffix(p)}{'M' if manip else 'N'}{index:02d}"
    inst.update(id=iid, questions=["manipulation"],
                design={"rule": rule, "m": m, "n": p["n"], "stratum": stratum,
                        "index": index, "ic_seed": s,
                        **({"tau": "random"} if p["tau"] == "random" else {})})
    pos = e.true_pos
    c = res.counts
    sums = {"instances": 1, "reports": c["reports"], "profitable": c["profitable"],
            "optimal": c["optimal"],
            "outcome_w0": c["outcomes"].get(res.sincere, 0),
            "pos_sum": sum(k * pos(x) for x, k in c["outcomes"].items()),
            "u0": pos(res.sincere), "ustar": pos(res.best)}
    ctx.note("instances", {"baselines": rule, "size": m, "stratum": stratum})
    for k, v in sums.items():
        if k != "instances":
            ctx.note(k, {"baselines": rule, "size": m, "stratum": stratum}, v)
    return Task([inst], [(iid, "manipulation")],
                {"question": "manipulation", "rule": rule, "m": m, "stratum": stratum,
                 "expected": {"sincere_winner": res.sincere, "best_winner": res.best,
                              **{k: c[k] for k in ("reports", "profitable", "optimal")}}})


def _suffix(p: dict) -> str:
    """The id infix of a non-default design (empty by default: the registered ids)."""
    return "".join([f"n{p['n']}-" if p["n"] != N_VOTERS else "",
                    f"k{p['k']}-" if p["k"] != 1 else "",
                    "rt-" if p["tau"] == "random" else ""])


def _budget(tries: int, p: dict, row: Row) -> None:
    if tries >= p["max_draws"]:
        f = row.factors
        raise InstanceError(
            f"cell rule={f['rule']} m={f['size']} n={p['n']} k={p['k']} cannot be balanced: "
            f"no {f['stratum'].replace('_', '-')} election in {p['max_draws']} draws "
            f"(raise --param max_draws, or change n, k or m)", value=f["stratum"])


def _sample_coalition(row: Row, index: int, ctx, p: dict) -> Task:
    """A coalition of k voters sharing one true ranking (drawn uniformly, as is each of
    the n − k other ballots: impartial culture over the n − k + 1 voter types) asked for
    k ballots. Its best achievable winner w* is the first candidate, in the coalition's
    true order, that the coalition oracle (``coalitional_manipulation`` with k unit
    weights) can elect; w₀ is the winner when all k vote sincerely. The task's questions
    are every candidate the coalition ranks at or above w* on the companion instance of
    the other ballots (``<id>-others``): ``none`` above w*, ``exists`` at w*."""
    from ...domains.base import UNKNOWN
    from ...domains.election import DOMAIN
    from ...formal.checker.election import Count
    oracle = DOMAIN.questions["coalitional_manipulation"].engines["oracle"]
    rule, m, stratum = row.factors["rule"], row.factors["size"], row.factors["stratum"]
    n, k = p["n"], p["k"]
    tag = {"rule": rule, "size": m}
    tries = 0
    while True:
        _budget(tries, p, row)
        tries += 1
        s = int(ctx.rng.integers(2**32))
        inst = impartial_culture_election(m, n - k + 1, seed=s, rule=rule, tau=p["tau"])
        others = {key: inst[key] for key in ("domain", "candidates", "tie_break", "rule",
                                             "ballots")}
        e, eo = parse_election(inst), parse_election(others)
        w0 = Count(e, rule).winner([replace(e.manipulator, count=k)])
        asked = []
        for c in sorted(e.candidates, key=e.true_pos):
            q = {"type": "coalitional_manipulation", "candidate": c, "k": k}
            asked.append(q)
            if c == w0:
                break
            o = oracle(eo, {"rule": rule, "candidate": c, "weights": [1] * k},
                       time_limit=60.0, seed=0)
            if o.verdict == UNKNOWN:
                raise RuntimeError(f"the coalition oracle cannot decide {c} ({o.stats})")
            if o.verdict == "exists":
                break
        best = asked[-1]["candidate"]
        manip = best != w0
        ctx.draw(tag)
        if manip:
            ctx.note("manipulable", tag)
        if manip == (stratum == "manipulable"):
            break
    ctx.accept(tag)
    iid = f"vm-{rule}-m{m}-{_suffix(p)}{'M' if manip else 'N'}{index:02d}"
    design = {"rule": rule, "m": m, "n": n, "k": k, "stratum": stratum, "index": index,
              "ic_seed": s, **({"tau": "random"} if p["tau"] == "random" else {})}
    inst.update(id=iid, design=design)
    others.update(id=f"{iid}-others", questions=asked, design={**design, "others_of": iid})
    ctx.note("instances", {"coalition": rule, "size": m, "stratum": stratum})
    return Task([inst, others], [(others["id"], q) for q in asked],
                {"question": "coalitional_manipulation", "rule": rule, "m": m, "n": n,
                 "k": k, "stratum": stratum,
                 "expected": {"sincere_winner": w0, "best_winner": best}})


def duplicate_key(task: Task) -> str:
    """The election itself — rule, candidates, τ, the voter's ranking and the multiset of
    the other ballots (the rules are anonymous): two draws with the same key are one
    election."""
    inst = task.instances[0]
    ballots = []
    for b in inst["ballots"]:
        if isinstance(b, dict):
            ballots += [canonical({k: v for k, v in b.items() if k != "count"})] * \
                int(b.get("count", 1))
        else:
            ballots.append(canonical(b))
    return canonical([inst["rule"], inst["candidates"], inst["tie_break"],
                      inst["manipulator"], inst.get("approval_top"), sorted(ballots)])


def render(task: Task, variant: dict, ctx) -> RenderedPrompt:
    k = task.payload.get("k", 1)
    if k > 1:
        return RenderedPrompt(render_coalition_prompt(task.instances[0], variant["format"], k),
                              "ballots", {"framing": variant["format"]})
    return RenderedPrompt(render_prompt(task.instances[0], variant["format"]), "ballot",
                          {"framing": variant["format"]})


def _sincere_report(e, rule: str) -> list[str]:
    if rule_named(rule).approval:
        return sorted(e.manipulator.approved, key=e.candidates.index)
    return [g[0] for g in e.manipulator.ranking]


def _show(report: Sequence[str], approval: bool) -> str:
    if approval:
        return "{" + ", ".join(report) + "}" if report else "none"
    return " > ".join(report)


def _coalition_gold(task: Task, labels: Sequence[dict]) -> str:
    """The coalition's gold: the k ballots of the certified ``exists`` label of w* (every
    member sincere when w* = w₀). Raises when the labels differ from the sampler's: every
    candidate above w* ``none``, w* ``exists``, each certified by a checked proof with
    both engines (coalition oracle, CP-SAT) agreeing."""
    exp, k = task.payload["expected"], task.payload["k"]
    want = ["none"] * (len(labels) - 1) + ["exists"]
    if [lab["verdict"] for lab in labels] != want or \
            labels[-1]["question"]["candidate"] != exp["best_winner"]:
        raise RuntimeError(f"certified labels of {labels[0]['id']} differ from the sampler")
    for lab in labels:
        if {x["engine"] for x in lab["engines"]} != {"oracle", "cpsat"} or \
                lab["certificate"]["type"] == "engine_agreement":
            raise RuntimeError(f"label {lab['label_id']} is not proved and cross-checked")
    e = parse_election(task.instances[0])
    rule = task.payload["rule"]
    approval = rule_named(rule).approval
    ballots = labels[-1]["solution"]["ballots"] if exp["best_winner"] != exp["sincere_winner"] \
        else [_sincere_report(e, rule)] * k
    if approval:
        ballots = [sorted(b, key=e.candidates.index) for b in ballots]
    return "\n".join(f"Final ballot {j}: {_show(b, approval)}" for j, b in enumerate(ballots, 1))


def gold(task: Task, variant: dict, labels: Sequence[dict], rendered: RenderedPrompt) -> str:
    """The oracle's answer: an optimal report (the sincere ballot when none is
    profitable). Raises when the certified label differs from the sampler's enumeration.
    The labels are certified by both exact engines (``engines``): enumeration (the
    certificate the checker verifies) and the BTT greedy / IRV search (the cross-check)
    must agree."""
    if task.payload.get("k", 1) > 1:
        return _coalition_gold(task, labels)
    (lab,) = labels
    sol, exp = lab["solution"], task.payload["expected"]
    if any(sol[k] != v for k, v in exp.items()):
        raise RuntimeError(f"certified label of {lab['id']} differs from the sampler")
    if {e["engine"] for e in lab["engines"]} != {"oracle", "reachability"}:
        raise RuntimeError(f"label {lab['id']} is not certified by both engines")
    e = parse_election(task.instances[0])
    approval = rule_named(task.payload["rule"]).approval
    ballot = sol["ballot"] if sol["ballot"] is not None else (
        sorted(e.manipulator.approved, key=e.candidates.index) if approval
        else [g[0] for g in e.manipulator.ranking])
    if approval:
        return "Final ballot: " + ("{" + ", ".join(ballot) + "}" if ballot else "none")
    return "Final ballot: " + " > ".join(ballot)


def _coalition(prompt: dict) -> bool:
    """Whether the prompt asks for the ballots of a coalition (``task.k`` > 1); a prompt
    record without a ``task`` (one written before coalitions, or by hand) is one voter's."""
    return (prompt.get("task") or {}).get("k", 1) > 1


def score(prompt: dict, answer: str | None, entry: Entry) -> Verdict:
    """``correct`` when the ballot reaches the best achievable outcome (O = 1),
    ``incorrect`` for another valid ballot, ``invalid`` when the parser rejects it. The
    extra fields carry S, O, the outcome, Δ, G, the error category and the oracle's
    counts (for the baselines; a coalition prompt has none, nor a label made without the
    enumeration certificate, e.g. by ``prefcert.label``'s default: ``oracle`` is None and
    the instance is left out of the exact baselines)."""
    if _coalition(prompt):
        return _score_coalition(prompt, answer, entry)
    (lab,) = entry.labels
    inst = entry.instances[lab["id"]]
    sol = lab["solution"]
    r = score_ballot(inst, sol, answer, parse=getattr(entry, "parse", "lenient"))
    e = entry.model(lab["id"])
    pos = e.true_pos
    cell = prompt["cell"]
    extra = {**{k: r[k] for k in ("valid", "S", "O", "sincere", "outcome", "outcome_changed",
                                  "delta", "gap", "welfare_change", "category",
                                  "effect")},
             "instance_id": lab["id"], "cluster": prompt.get("cluster") or lab["id"],
             "rule": cell["rule"], "m": cell["size"],
             "stratum": cell["stratum"], "framing": cell["format"],
             "oracle": {"reports": sol["reports"], "profitable": sol["profitable"],
                        "optimal": sol["optimal"],
                        "outcome_w0": sol["outcomes"].get(sol["sincere_winner"], 0),
                        "pos_sum": sum(k * pos(x) for x, k in sol["outcomes"].items()),
                        "u0": pos(sol["sincere_winner"]), "ustar": pos(sol["best_winner"])}
             if "reports" in sol else None}
    if answer is None:
        return Verdict("timeout", None, "no answer", extra)
    if not r["valid"]:
        return Verdict(r["parsed"]["kind"], r["parsed"], r["reason"], extra)
    why = (f"the ballot elects {r['outcome']} (true rank {pos(r['outcome'])}); sincere "
           f"voting elects {sol['sincere_winner']} (rank {pos(sol['sincere_winner'])}); the "
           f"best achievable is {sol['best_winner']} (rank {pos(sol['best_winner'])})")
    return Verdict("correct" if r["O"] else "incorrect", r["parsed"], why, extra)


def _score_coalition(prompt: dict, answer: str | None, entry: Entry) -> Verdict:
    """A coalition prompt: the k ballots read (:func:`~.ballots.score_coalition`) and
    replayed with the other ballots; ``correct`` when they elect w* (O = 1)."""
    task, cell = prompt["task"], prompt["cell"]
    iid = prompt["instance_id"]
    inst = entry.instances[iid]
    exp = {"sincere_winner": task["expected"]["sincere_winner"],
           "best_winner": entry.labels[-1]["question"]["candidate"]}
    r = score_coalition(inst, exp, answer, task["k"], parse=getattr(entry, "parse", "lenient"))
    pos = entry.model(iid).true_pos
    extra = {**{x: r[x] for x in ("valid", "S", "O", "sincere", "outcome", "outcome_changed",
                                  "delta", "gap", "welfare_change", "category", "effect")},
             "instance_id": iid, "cluster": prompt.get("cluster") or iid,
             "rule": cell["rule"], "m": cell["size"], "k": task["k"],
             "stratum": cell["stratum"], "framing": cell["format"], "oracle": None}
    if answer is None:
        return Verdict("timeout", None, "no answer", extra)
    if not r["valid"]:
        return Verdict(r["parsed"]["kind"], r["parsed"], r["reason"], extra)
    w0, best = exp["sincere_winner"], exp["best_winner"]
    why = (f"the ballots elect {r['outcome']} (true rank {pos(r['outcome'])}); sincere "
           f"voting elects {w0} (rank {pos(w0)}); the best achievable is {best} "
           f"(rank {pos(best)})")
    return Verdict("correct" if r["O"] else "incorrect", r["parsed"], why, extra)


def feedback(prompt: dict, answer: str, entry: Entry) -> str:
    """What the ballot achieves under the rule (recomputed), never which ballot to cast."""
    v = score(prompt, answer, entry)
    if v.verdict == "correct":
        return "Your ballot achieves the best outcome you can get."
    if v.verdict in ("invalid", "timeout"):
        if _coalition(prompt):
            return f"Your ballots could not be read ({v.reason}). End with one line " \
                   "'Final ballot j: ...' per coalition voter as the prompt asks."
        return f"Your ballot could not be read ({v.reason}). End with one line 'Final " \
               "ballot: ...' as the prompt asks."
    return f"Not the best you can do: {v.reason.split('; the best')[0]}."


GROUPS = ((), ("rule",), ("m",))


def metrics(scores: Sequence[dict]) -> list[dict]:
    """MDR, OMR, both near-miss readings, both FMR readings, IGR, Δ̄ and Ḡ per framing
    (overall, per rule, per size) with stratified cluster-bootstrap 95 % intervals; the
    error taxonomy per framing (Wilson); and the exact baselines (sincere, random,
    oracle) of the instances answered."""
    out = []
    recs = [dict(s) for s in scores if "instance_id" in s]
    for framing in dict.fromkeys(s["framing"] for s in recs):
        mine = [s for s in recs if s["framing"] == framing]
        for by in GROUPS:
            for key in dict.fromkeys(tuple(s[b] for b in by) for s in mine):
                part = [s for s in mine if tuple(s[b] for b in by) == key]
                group = {"framing": framing, **dict(zip(("size" if b == "m" else b
                                                          for b in by), key))}
                for name in METRICS:
                    r = metric(part, name, seed=len(out))
                    if r["n"]:
                        out.append({"metric": name, "group": group, "n": r["n"],
                                    "value": r["value"], "low": r["low"], "high": r["high"]})
        cats = Counter(s["category"] for s in mine)
        for cat in ("timeout", "invalid", "sincere", "optimal", "profitable_suboptimal",
                    "tie_breaking_error", "rule_error", "non_profitable"):
            out.append(proportion(f"category_{cat}", {"framing": framing}, cats[cat],
                                  len(mine)))
    once = {s["instance_id"]: s for s in recs if s.get("oracle") is not None}
    out += _baseline_rows([(s["rule"], s["m"], s["stratum"], s["oracle"])
                           for s in once.values()])
    return out


def _baseline_rows(items) -> list[dict]:
    """Exact baselines from per-instance oracle counts (rule, m, stratum, counts)."""
    cells: dict = {}
    for rule, m, stratum, c in items:
        cells.setdefault((rule, m), {st: Counter() for st in STRATA})[stratum].update(
            {"instances": 1, **c})
    rows = []
    for (rule, m), vals in _with_total(cells).items():
        for name, v in vals.items():
            if name != "_n":
                rows.append({"metric": f"baseline_{name}", "group": {"rule": rule, "size": m},
                             "n": vals["_n"][_stratum_of(name)], "value": v, "low": None,
                             "high": None})
    return rows


def _stratum_of(name: str) -> str:
    return "non_manipulable" if "FMR" in name else "manipulable"


def _with_total(cells: dict) -> dict:
    """Per (rule, m) cell the baseline values, plus the ("all", "all") row: each value the
    instance-weighted mean of the cells' (over the stratum it is defined on)."""
    out = {key: {**_baselines(by), "_n": {st: by[st]["instances"] for st in STRATA}}
           for key, by in sorted(cells.items(), key=lambda kv: (RULES.index(kv[0][0]),
                                                                 kv[0][1]))}
    total: dict = {}
    for vals in out.values():
        for name, v in vals.items():
            if name == "_n":
                continue
            w = vals["_n"][_stratum_of(name)]
            acc = total.setdefault(name, [0.0, 0])
            acc[0] += v * w
            acc[1] += w
    if out:
        n = {st: sum(v["_n"][st] for v in out.values()) for st in STRATA}
        out[("all", "all")] = {**{name: acc[0] / acc[1] for name, acc in total.items()},
                               "_n": n}
    return out


def _baselines(by: dict) -> dict:
    """Baselines of one (rule, m) cell from its summed counts, per stratum: instances,
    Σ |B_r| (the same |B_r| for every instance of the cell), Σ |M|, Σ |B*|, Σ reports
    electing w₀, Σ_q pos(f(q)), Σ pos(w₀), Σ pos(w*). Random-ballot values are exact
    expectations over the report space, not Monte Carlo."""
    M, N = by["manipulable"], by["non_manipulable"]
    out = {}
    if M["instances"]:
        k, B = M["instances"], M["reports"]
        gain = (M["u0"] - M["ustar"]) / k
        mean_pos = M["pos_sum"] / B
        out.update({
            "sincere_MDR": 0.0, "sincere_delta": 0.0, "sincere_gap": gain,
            "random_MDR": M["profitable"] / B, "random_OMR": M["optimal"] / B,
            "random_NMR_attempt": (B - M["profitable"] - k) / B,
            "random_NMR_suboptimal": (M["profitable"] - M["optimal"]) / B,
            "random_delta": M["u0"] / k - mean_pos, "random_gap": mean_pos - M["ustar"] / k,
            "oracle_MDR": 1.0, "oracle_OMR": 1.0, "oracle_delta": gain, "oracle_gap": 0.0,
            "oracle_gain": gain})
    if N["instances"]:
        B = N["reports"]
        out.update({"sincere_FMR": 0.0, "random_FMR_ballot": (B - N["instances"]) / B,
                    "random_FMR_outcome": (B - N["outcome_w0"]) / B, "oracle_FMR": 0.0})
    return out


def calibration(stats: dict) -> list[dict]:
    """The baselines table printed by ``prefcert generate``: per rule and m (and over all
    cells), the naive impartial-culture manipulable share of the sampler's draws and the
    95 % Wilson interval (``ic_manipulable_low`` / ``_high``: the draws are independent
    IC profiles, so the share is a binomial proportion), and the exact random-ballot
    baselines and oracle gain of the design's instances (from the
    oracle counts the sampler recorded; the certified labels agree, as ``gold`` checks).
    The sincere baseline is 0 on every rate; the oracle's MDR and OMR are 1. A coalition
    design has no exact random-ballot values (its joint reports are not enumerated): they
    are None beside the IC manipulable share of its draws."""
    draws, base = {}, {}
    for key, c in stats.items():
        tag = json.loads(key)
        if set(tag) == {"rule", "size"}:
            draws[(tag["rule"], tag["size"])] = c
        elif "baselines" in tag:
            base.setdefault((tag["baselines"], tag["size"]), {st: Counter() for st in STRATA})[
                tag["stratum"]].update(c)
    tot: Counter = Counter()
    for c in draws.values():
        tot.update(c)
    draws[("all", "all")] = tot
    out = []
    cells = _with_total(base) if base else {key: {} for key in sorted(
        draws, key=lambda km: (km[0] == "all", RULES.index(km[0]) if km[0] in RULES else 0,
                               str(km[1])))}
    for (rule, m), b in cells.items():
        d = draws.get((rule, m), Counter())
        ci = wilson(d["manipulable"], d["draws"])
        out.append({"rule": rule, "m": m, "draws": d["draws"],
                    "ic_manipulable": round(d["manipulable"] / d["draws"], 4) if d["draws"]
                    else 0.0,
                    "ic_manipulable_low": round(ci[0], 4) if ci else None,
                    "ic_manipulable_high": round(ci[1], 4) if ci else None,
                    **{k: round(b.get(k, 0.0), 4) if base else None for k in (
                        "random_MDR", "random_OMR", "random_NMR_attempt",
                        "random_NMR_suboptimal", "random_FMR_ballot", "random_FMR_outcome",
                        "random_delta", "random_gap", "oracle_gain")}})
    return out


def plots(scores: Sequence[dict], report) -> None:
    rows = [r for r in metrics(scores) if r["metric"] in ("MDR", "OMR", "FMR_ballot")
            and set(r["group"]) == {"framing"}]
    for r in rows:
        r["group"] = {**r["group"], "metric": r["metric"]}
    report.bar_chart("Manipulation discovery (MDR), optimal manipulation (OMR) and false "
                     "manipulation (FMR) by framing (95 % cluster bootstrap)", rows,
                     x="framing", hue="metric")


SUITE = Suite(
    name="voting-manipulation",
    description="Single-voter manipulation under plurality, Borda, approval, IRV and "
                "Copeland with τ tie-breaking: impartial-culture elections with n = 5 and "
                "m = 3, 4, 5, balanced manipulable / non-manipulable by the oracle label, in "
                "four framings (Amiri-Margavi et al. 2026).",
    sizes=SIZES, per_cell=20, seed=SEED, rows=rows, sample=sample, render=render,
    gold=gold, score=score, metrics=metrics, feedback=feedback, plots=plots,
    results=results,
    calibration=calibration, expected_total=2400, engines=("oracle", "reachability"),
    duplicate_key=duplicate_key, parameters=PARAMETERS, configure=configure,
    calibration_title="baselines: naive impartial-culture manipulable share, exact "
                      "random-ballot rates",
    citation=('Amiri-Margavi, A. et al. (2026). '
             '"Do large language model voters strategize? An oracle-based benchmark for manipulation under voting rules".'),
)
