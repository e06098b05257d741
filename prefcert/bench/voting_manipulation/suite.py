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
second exact engine (the BTT greedy / the IRV search) agrees with its own certificate.

Readings where the source is silent (each with its named alternative):

- τ = A ≻ B ≻ … (alternative: a random τ per instance, ``tau="random"`` of the sampler);
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

from ...formal.election import parse_election
from ...formal.rules import rule_named
from ...generators.election import impartial_culture_election
from ..design import Entry, RenderedPrompt, Row, Suite, Task, Verdict, canonical
from ..stats import proportion, wilson
from .ballots import BENCHMARK_RULES as RULES
from .ballots import FRAMINGS, METRICS, metric, render_prompt, score_ballot
from .results import results

SIZES = (3, 4, 5)
N_VOTERS = 5
STRATA = ("manipulable", "non_manipulable")
SEED = 20260529


def rows(sizes: Sequence[int]) -> list[Row]:
    return [Row({"rule": r, "size": m, "stratum": s}, [{"format": f} for f in FRAMINGS])
            for r in RULES for m in SIZES if m in sizes for s in STRATA]


def _oracle(inst: dict):
    from ...oracles.election import enumerate_reports
    e = parse_election(inst)
    return e, enumerate_reports(e, inst["rule"])


def sample(row: Row, index: int, ctx) -> Task:
    """Impartial-culture profiles drawn until the oracle's label is the row's stratum;
    every draw is counted under (rule, size), with the manipulable ones noted, so the
    manifest gives the naive IC manipulable share."""
    rule, m, stratum = row.factors["rule"], row.factors["size"], row.factors["stratum"]
    tag = {"rule": rule, "size": m}
    while True:
        s = int(ctx.rng.integers(2**32))
        inst = impartial_culture_election(m, N_VOTERS, seed=s, rule=rule)
        e, res = _oracle(inst)
        manip = e.true_pos(res.best) < e.true_pos(res.sincere)
        ctx.draw(tag)
        if manip:
            ctx.note("manipulable", tag)
        if manip == (stratum == "manipulable"):
            break
    ctx.accept(tag)
    iid = f"vm-{rule}-m{m}-{'M' if manip else 'N'}{index:02d}"
    inst.update(id=iid, questions=["manipulation"],
                design={"rule": rule, "m": m, "n": N_VOTERS, "stratum": stratum,
                        "index": index, "ic_seed": s})
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
    return RenderedPrompt(render_prompt(task.instances[0], variant["format"]), "ballot",
                          {"framing": variant["format"]})


def gold(task: Task, variant: dict, labels: Sequence[dict], rendered: RenderedPrompt) -> str:
    """The oracle's answer: an optimal report (the sincere ballot when none is
    profitable). Raises when the certified label differs from the sampler's enumeration.
    The labels are certified by both exact engines (``engines``): enumeration and the
    BTT greedy / IRV search must agree, and both certificates pass the checker."""
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


def score(prompt: dict, answer: str | None, entry: Entry) -> Verdict:
    """``correct`` when the ballot reaches the best achievable outcome (O = 1),
    ``incorrect`` for another valid ballot, ``invalid`` when the parser rejects it. The
    extra fields carry S, O, the outcome, Δ, G, the error category and the oracle's
    counts (for the baselines)."""
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
                        "u0": pos(sol["sincere_winner"]), "ustar": pos(sol["best_winner"])}}
    if answer is None:
        return Verdict("timeout", None, "no answer", extra)
    if not r["valid"]:
        return Verdict(r["parsed"]["kind"], r["parsed"], r["reason"], extra)
    why = (f"the ballot elects {r['outcome']} (true rank {pos(r['outcome'])}); sincere "
           f"voting elects {sol['sincere_winner']} (rank {pos(sol['sincere_winner'])}); the "
           f"best achievable is {sol['best_winner']} (rank {pos(sol['best_winner'])})")
    return Verdict("correct" if r["O"] else "incorrect", r["parsed"], why, extra)


def feedback(prompt: dict, answer: str, entry: Entry) -> str:
    """What the ballot achieves under the rule (recomputed), never which ballot to cast."""
    v = score(prompt, answer, entry)
    if v.verdict == "correct":
        return "Your ballot achieves the best outcome you can get."
    if v.verdict in ("invalid", "timeout"):
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
    once = {s["instance_id"]: s for s in recs}
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
    The sincere baseline is 0 on every rate; the oracle's MDR and OMR are 1."""
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
    for (rule, m), b in _with_total(base).items():
        d = draws.get((rule, m), Counter())
        ci = wilson(d["manipulable"], d["draws"])
        out.append({"rule": rule, "m": m, "draws": d["draws"],
                    "ic_manipulable": round(d["manipulable"] / d["draws"], 4) if d["draws"]
                    else 0.0,
                    "ic_manipulable_low": round(ci[0], 4) if ci else None,
                    "ic_manipulable_high": round(ci[1], 4) if ci else None,
                    **{k: round(b.get(k, 0.0), 4) for k in (
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
    duplicate_key=duplicate_key,
    calibration_title="baselines: naive impartial-culture manipulable share, exact "
                      "random-ballot rates",
    citation=('Amiri-Margavi, A. et al. (2026). '
             '"Do large language model voters strategize? An oracle-based benchmark for manipulation under voting rules".'),
)
