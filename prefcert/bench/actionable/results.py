"""The result sets of Li et al. (2026, "Ask, Relax, or Act?"), from the scored records of
any number of models: the metric table, Accuracy / FC / IFC / all-six by structure, source
and size (and their full cross), IFC by source and wording on the H5 local-cue pairs
(Fig. 4), the paired original → explicit transitions of H5 (decisions, pairs, FC; App. D)
with exact McNemar tests, and the content-failure categories of App. C.

Every set is long-format (:class:`~prefcert.bench.results.ResultSet`): one row per factor
combination and model; shares carry ``k``, ``n`` and the 95 % Wilson interval.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..results import MODEL, ResultSet, by_model
from ..stats import adjusted_pvalues, mcnemar_exact, wilson
from .responses import scores as _scores

ALL = "all"
"""The level of a factor pooled over (a margin)."""

SOURCES = ("preference", "objective", "constraint")
H5_WORDINGS = ("original", "explicit_json")
"""The two wordings of the H5 local-cue pairs, in the order of the transitions (from → to)."""

#: metric -> (numerator key, denominator key) of :func:`~.responses.scores`
SHARES = {
    "accuracy": ("correct_decisions", "tasks"),
    "fc": ("fully_correct", "tasks"),
    "ifc": ("ifc_pairs", "pairs"),
    "all_six": ("all_six_groups", "groups"),
    "all_six_fc": ("all_six_fc_groups", "groups"),
    "unnecessary_intervention": ("unnecessary", "act_gold"),
    "missed_intervention": ("missed", "intervention_gold"),
    "wrong_kind_intervention": ("wrong_kind", "intervention_gold"),
}
TABLE_METRICS = (*SHARES, "ifc_reference")
CELL_METRICS = ("accuracy", "fc", "ifc", "all_six", "all_six_fc")

#: App. C categories, in the order a response is assigned to the first that applies
CATEGORIES = ("fc", "wrong_decision", "rejected_act", "rejected_ask_preference",
              "rejected_ask_objective", "rejected_relax", "ambiguous_content", "unparsed",
              "ambiguous_reading", "timeout")

TRANSITIONS = ("incorrect → correct", "correct → incorrect", "correct in both",
               "incorrect in both")


def _share(k: int, n: int) -> dict:
    ci = wilson(k, n)
    return {"k": int(k), "n": int(n), "value": k / n if n else None,
            "low": ci[0] if ci else None, "high": ci[1] if ci else None}


def _records(scored: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The judged records :func:`~.responses.scores` reads (the suite's scored fields)."""
    return [{"decision_correct": bool(s.get("decision_correct")), "fc": bool(s.get("fc")),
             "gold": s["gold"], "decision": s.get("decision"),
             "parsed": s.get("parsed_ok", True), "pair": s.get("pair"),
             "group": s.get("group"), "cell": s.get("cell_id"), "source": s["source"]}
            for s in scored]


def _metric_rows(base: dict, scored: Sequence[Mapping[str, Any]], metrics: Sequence[str]
                 ) -> list[dict]:
    """One row per metric of ``metrics`` that is defined on ``scored`` (IFC needs pairs,
    all-six groups); ``base`` holds the factor values and the model."""
    s = _scores(_records(scored))
    out = []
    for m in metrics:
        if m == "ifc_reference":
            if s["pairs"]:
                out.append({**base, "metric": m, "value": s["ifc_reference"],
                            "n": s["pairs"]})
            continue
        num, den = SHARES[m]
        if s[den]:
            out.append({**base, "metric": m, **_share(s[num], s[den])})
    return out


def _split(scored: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> dict[tuple, list]:
    out: dict[tuple, list] = {}
    for s in scored:
        out.setdefault(tuple(s[k] for k in keys), []).append(s)
    return out


def _bars(ax, rs: ResultSet, x: Sequence[str], hue: Sequence[str],
          keep: Callable[[dict], bool] = lambda r: True, ylabel: str | None = None) -> None:
    """Grouped bars: one group per combination of ``x`` (the models included when named),
    one bar per combination of ``hue``; Wilson error bars where rows have them."""
    rows = [r for r in rs.rows if keep(r) and r.get("value") is not None]
    lab = lambda r, fs: " · ".join(str(r.get(f)) for f in fs)
    xs = list(dict.fromkeys(lab(r, x) for r in rows))
    hs = list(dict.fromkeys(lab(r, hue) for r in rows))
    width = 0.8 / max(len(hs), 1)
    for j, h in enumerate(hs):
        pts = [(xs.index(lab(r, x)), r) for r in rows if lab(r, hue) == h]
        pos = [i - 0.4 + width * (j + 0.5) for i, _ in pts]
        vals = [r["value"] for _, r in pts]
        err = None
        if pts and all(r.get("low") is not None for _, r in pts):
            err = [[r["value"] - r["low"] for _, r in pts],
                   [r["high"] - r["value"] for _, r in pts]]
        ax.bar(pos, vals, width, yerr=err, capsize=2, label=h)
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels(xs, rotation=30 if len(xs) > 4 else 0, ha="right" if len(xs) > 4
                       else "center", fontsize=8)
    ax.set_ylabel(ylabel or rs.value)
    if hs:
        ax.legend(fontsize=7, ncol=2)


# --------------------------------------------------------------------------- the sets

def metric_table(scored: Sequence[Mapping[str, Any]]) -> ResultSet:
    """Accuracy, FC, IFC, its independence reference, all-six, all-six FC and the three
    intervention-error rates per model, design and wording (Li et al. 2026, §3.1, Table 5;
    §4.2 for H5). O(records)."""
    rows = []
    for model, recs in by_model(scored).items():
        for (design, fmt), part in _split(recs, ("design", "format")).items():
            rows += _metric_rows({"design": design, "format": fmt, MODEL: model}, part,
                                 TABLE_METRICS)
    return ResultSet(
        "li-table5", "Li et al. (2026), §3.1 and Table 5 (V3); §4.2 (H5)",
        "Accuracy, FC, IFC, all-six and intervention errors by design and wording",
        ["design", "format", "metric"], rows, value="share", test="",
        note="Unparsed and unanswered responses stay in every denominator as failures; a "
             "pair or group with a member unanswered is left out of IFC / all-six. "
             "ifc_reference is the descriptive independence reference "
             "Σ_{cell, source} |P_cs|/|P| · Acc_act · Acc_intervention (no interval). "
             "Intervals: 95 % Wilson over tasks, pairs or groups.",
        figure=lambda rs, ax: _bars(ax, rs, ["metric"], ["design", "format", MODEL],
                                    keep=lambda r: r["metric"] in ("accuracy", "fc", "ifc",
                                                                   "all_six")))


def by_factors(scored: Sequence[Mapping[str, Any]], factors: Sequence[str], key: str,
               source: str, figure: bool = True) -> ResultSet:
    """Accuracy, FC, IFC, all-six and all-six FC per model, design, wording and each level
    of ``factors`` (any of ``structure``, ``source``, ``size``); all-six only where whole
    six-task groups fall within one level (not by source). O(records)."""
    factors = list(factors)
    rows = []
    for model, recs in by_model(scored).items():
        for (design, fmt, *levels), part in _split(recs, ("design", "format", *factors)
                                                   ).items():
            rows += _metric_rows({"design": design, "format": fmt,
                                  **dict(zip(factors, levels)), MODEL: model}, part,
                                 [m for m in CELL_METRICS
                                  if "source" not in factors or not m.startswith("all_six")])
    what = " × ".join(factors)
    return ResultSet(
        key, source, f"Accuracy, FC, IFC and all-six by {what}",
        ["design", "format", *factors, "metric"], rows, value="share",
        note="A matched pair lies within one structure, size and source, a six-task group "
             "within one structure and size: IFC is defined at every level, all-six not by "
             "source. Intervals: 95 % Wilson.",
        figure=(lambda rs, ax: _bars(ax, rs, [*factors], ["design", "format", MODEL],
                                     keep=lambda r: r["metric"] == "ifc", ylabel="IFC"))
        if figure else None)


def fig4(scored: Sequence[Mapping[str, Any]]) -> ResultSet:
    """IFC of the H5 local-cue pairs per model, source and wording (Li et al. 2026,
    Fig. 4; §4.2), and over all sources. O(records)."""
    rows = []
    for model, recs in by_model(scored).items():
        h5 = [s for s in recs if s["design"] == "h5"]
        for (src, fmt), part in (list(_split(h5, ("source", "format")).items()) +
                                 [((ALL, f), p) for (f,), p in
                                  _split(h5, ("format",)).items()]):
            rows += _metric_rows({"source": src, "format": fmt, MODEL: model}, part, ["ifc"])
    return ResultSet(
        "li-fig4", "Li et al. (2026), Fig. 4 (§4.2)",
        "IFC of the H5 local-cue pairs by source and wording", ["source", "format"],
        [{k: v for k, v in r.items() if k != "metric"} for r in rows], value="IFC",
        note="Both members of a local-cue pair decided right, per wording (original / "
             "explicit JSON clause); 95 % Wilson intervals over pairs.",
        figure=lambda rs, ax: _bars(ax, rs, ["source"], [MODEL, "format"], ylabel="IFC"))


def _h5_units(recs: Sequence[Mapping[str, Any]]) -> dict[str, dict[tuple, dict[str, bool]]]:
    """Per unit (decisions, pairs, FC): unit key (source, task or pair id) -> wording ->
    success. A task is the pair id without its wording plus the role; a pair's success in
    a wording needs both its members answered there."""
    tasks: dict[tuple, dict[str, Mapping]] = defaultdict(dict)
    for s in recs:
        if s["design"] != "h5" or s["format"] not in H5_WORDINGS:
            continue
        base = str(s["pair"]).rsplit("/", 1)[0]
        tasks[(s["source"], base, s["role"])][s["format"]] = s
    dec = {k: {f: bool(r["decision_correct"]) for f, r in v.items()} for k, v in tasks.items()}
    fc = {k: {f: bool(r["fc"]) for f, r in v.items()} for k, v in tasks.items()}
    members: dict[tuple, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for (src, base, _), v in dec.items():
        for f, ok in v.items():
            members[(src, base)][f].append(ok)
    pairs = {k: {f: all(v) for f, v in w.items() if len(v) == 2} for k, w in members.items()}
    return {"decisions": dec, "pairs": pairs, "FC": fc}


def _transition_counts(unit: Mapping[tuple, Mapping[str, bool]], src: str) -> dict:
    a, b = H5_WORDINGS
    keys = [k for k in unit if src == ALL or k[0] == src]
    both = [k for k in keys if a in unit[k] and b in unit[k]]
    first = [unit[k][a] for k in both]
    second = [unit[k][b] for k in both]
    return {"first": first, "second": second, "unpaired": len(keys) - len(both)}


def h5_transitions(scored: Sequence[Mapping[str, Any]]) -> list[ResultSet]:
    """The paired original → explicit-JSON transitions of H5 (Li et al. 2026, App. D:
    decisions, pairs, FC; e.g. 142 incorrect → correct vs 2 correct → incorrect decisions),
    per model and source, paired on the same task (or pair) across the two wordings; and
    the exact McNemar test of each (decisions, pairs, FC) × (source, all) contrast, Holm
    over the twelve tests of a model. O(records)."""
    counts, tests = [], []
    for model, recs in by_model(scored).items():
        units = _h5_units(recs)
        fam = []
        for unit, data in units.items():
            for src in (*SOURCES, ALL):
                t = _transition_counts(data, src)
                if not t["first"]:
                    continue
                f, g = t["first"], t["second"]
                n = {"incorrect → correct": sum(not x and y for x, y in zip(f, g)),
                     "correct → incorrect": sum(x and not y for x, y in zip(f, g)),
                     "correct in both": sum(x and y for x, y in zip(f, g)),
                     "incorrect in both": sum(not x and not y for x, y in zip(f, g))}
                for tr in TRANSITIONS:
                    counts.append({"unit": unit, "source": src, "transition": tr,
                                   MODEL: model, "value": n[tr], "n": len(f),
                                   "unpaired": t["unpaired"]})
                mc = mcnemar_exact(g, f)          # only_first: improved, only_second: worse
                fam.append({"unit": unit, "source": src, MODEL: model,
                            "improved": mc["only_first"], "worsened": mc["only_second"],
                            "n": mc["n"], "pvalue": mc["pvalue"]})
        for r, p in zip(fam, adjusted_pvalues([r["pvalue"] for r in fam], "holm")):
            r["value"] = p
        tests += fam
    a, b = H5_WORDINGS
    note = ("Paired on the same H5 task (pair id and role) across the two wordings; a pair "
            "counts when both its members were answered in both wordings; `unpaired` "
            "counts units answered in one wording only (left out).")
    return [
        ResultSet("li-h5-transitions", "Li et al. (2026), App. D (H5 transitions)",
                  f"Paired transitions {a} → {b}: decisions, pairs (both members decided "
                  "right) and FC", ["unit", "source", "transition"], counts, value="count",
                  note=note + " Descriptive counts, as in the paper.",
                  figure=lambda rs, ax: _bars(
                      ax, rs, ["unit", "source"], [MODEL, "transition"],
                      keep=lambda r: r["transition"] in TRANSITIONS[:2], ylabel="count")),
        ResultSet("li-h5-mcnemar", "Li et al. (2026), App. D (H5 transitions), tested",
                  f"Exact McNemar test of {a} vs {b} on the same tasks",
                  ["unit", "source"], tests, value="p (Holm)",
                  test="Exact McNemar test (two-sided binomial on the discordant pairs, "
                       "improved vs worsened), paired on the same task / pair across the "
                       "two wordings, within model; Holm adjustment over the 12 tests "
                       "(3 units × 3 sources + all) of each model. `pvalue`: unadjusted.",
                  note=note),
    ]


def category_of(s: Mapping[str, Any]) -> str:
    """The App. C category of one scored record (Li et al. 2026, App. C, Table 12):
    ``fc``; ``wrong_decision``; a correct decision whose content the checker rejects,
    ``rejected_<gold decision>``; ``ambiguous_content`` (a correct decision whose content
    the paper leaves open: R14 / R15); ``unparsed``; ``ambiguous_reading`` (several
    different decision objects); ``timeout``. O(1)."""
    if s.get("error") == "timeout" or s.get("verdict") == "timeout":
        return "timeout"
    if not s.get("parsed_ok", True):
        return "ambiguous_reading" if s.get("verdict") == "ambiguous" else "unparsed"
    if s.get("fc"):
        return "fc"
    if not s.get("decision_correct"):
        return "wrong_decision"
    if s.get("verdict") == "ambiguous":
        return "ambiguous_content"
    return f"rejected_{s['gold']}"


def app_c(scored: Sequence[Mapping[str, Any]]) -> ResultSet:
    """The response categories of App. C per model, design and wording: FC, wrong
    decisions, correct decisions with rejected content by kind (action, preference
    question, objective question, relaxation), ambiguous content, parse failures and
    timeouts; a partition of the tasks. O(records)."""
    rows = []
    for model, recs in by_model(scored).items():
        for (design, fmt), part in _split(recs, ("design", "format")).items():
            n = len(part)
            c = defaultdict(int)
            for s in part:
                c[category_of(s)] += 1
            rows += [{"design": design, "format": fmt, "category": cat, MODEL: model,
                      **_share(c[cat], n)} for cat in CATEGORIES]
    return ResultSet(
        "li-appc", "Li et al. (2026), App. C and Table 12 (content failures)",
        "Response categories: FC, wrong decisions, rejected content by kind, parse "
        "failures", ["design", "format", "category"], rows, value="share",
        note="Each response in exactly one category (the shares of a model, design and "
             "wording sum to 1); rejected_<kind>: the decision is right and the checker "
             "rejects the content (rejected_act: the action; rejected_ask_*: the question; "
             "rejected_relax: the repair or the action after it). 95 % Wilson intervals.",
        figure=lambda rs, ax: _bars(ax, rs, ["category"], [MODEL, "design", "format"],
                                    keep=lambda r: r["category"] != "fc"))


def evidence_table(scored: Sequence[Mapping[str, Any]]) -> ResultSet:
    """The evidence pass rate of the H2 evidence condition per model, design, wording and
    source (and over all sources), beside FC on the same responses (Li et al. 2026, §5.1,
    App. E: e.g. 2,094 of 2,160 Astra evidence responses pass). Evidence never enters FC.
    O(records)."""
    rows = []
    for model, recs in by_model(scored).items():
        ev = [s for s in recs if "evidence_valid" in s]
        parts = list(_split(ev, ("design", "format", "source")).items()) + \
            [((d, f, ALL), p) for (d, f), p in _split(ev, ("design", "format")).items()]
        for (design, fmt, src), part in parts:
            base = {"design": design, "format": fmt, "source": src, MODEL: model}
            rows.append({**base, "metric": "evidence_valid",
                         **_share(sum(bool(s["evidence_valid"]) for s in part), len(part))})
            rows.append({**base, "metric": "fc",
                         **_share(sum(bool(s.get("fc")) for s in part), len(part))})
    return ResultSet(
        "li-h2-evidence", "Li et al. (2026), §5.1 and App. E (evidence condition)",
        "Evidence validity (judged apart from FC) and FC in the evidence condition",
        ["design", "format", "source", "metric"], rows, value="share",
        note="evidence_valid: every witness the response states is true of the instance and "
             "the one its gold decision rests on is there (prefcert.bench.actionable."
             "evidence); a response that does not parse fails. 95 % Wilson intervals.",
        figure=lambda rs, ax: _bars(ax, rs, ["source"], [MODEL, "metric"]))


#: the paired contrasts of the response-requirement and answer-construction designs
#: (Li et al. 2026, §5.3, §5.4, App. K): (design, wording) from -> to, on the same tasks
CONTRASTS = ((("h2", "original"), ("h2", "explicit_json")),
             (("h2", "explicit_json"), ("h2", "explicit_json_evidence")),
             (("h2", "original"), ("h2", "explicit_json_evidence")),
             (("k2", "neutral"), ("k2", "reminder")),
             (("h2", "explicit_json"), ("k1", "selection")),
             (("k2", "neutral"), ("k1", "selection")))


def design_transitions(scored: Sequence[Mapping[str, Any]]) -> list[ResultSet]:
    """Paired transitions of decisions and FC between two conditions of the H2 / K designs
    (:data:`CONTRASTS`: original → explicit JSON → evidence; neutral → reminder; generation
    → selection), per model and source and overall, on the same tasks (H2 pair id and
    role: the K.1 / K.2 tasks are H2 groups 0–4 with the H2 ids, so records of several
    suites may be pooled); and the exact McNemar test of each, Holm over a model's tests.
    Only contrasts whose two conditions are both present are computed. O(records)."""
    counts, tests = [], []
    for model, recs in by_model(scored).items():
        tasks: dict[tuple, dict] = defaultdict(dict)
        for s in recs:
            if s.get("pair") is None:
                continue
            base = str(s["pair"]).rsplit("/", 1)[0]
            tasks[(s["source"], base, s["role"])][(s["design"], s["format"])] = s
        fam = []
        for a, b in CONTRASTS:
            both = {k: v for k, v in tasks.items() if a in v and b in v}
            if not both:
                continue
            for unit, key in (("decisions", "decision_correct"), ("FC", "fc")):
                for src in (*SOURCES, ALL):
                    ks = [k for k in both if src == ALL or k[0] == src]
                    if not ks:
                        continue
                    f = [bool(both[k][a].get(key)) for k in ks]
                    g = [bool(both[k][b].get(key)) for k in ks]
                    n = {"incorrect → correct": sum(not x and y for x, y in zip(f, g)),
                         "correct → incorrect": sum(x and not y for x, y in zip(f, g)),
                         "correct in both": sum(x and y for x, y in zip(f, g)),
                         "incorrect in both": sum(not x and not y for x, y in zip(f, g))}
                    lab = {"from": "/".join(a), "to": "/".join(b), "unit": unit,
                           "source": src, MODEL: model}
                    counts += [{**lab, "transition": t, "value": n[t], "n": len(f)}
                               for t in TRANSITIONS]
                    mc = mcnemar_exact(g, f)
                    fam.append({**lab, "improved": mc["only_first"],
                                "worsened": mc["only_second"], "n": mc["n"],
                                "pvalue": mc["pvalue"]})
        for r, p in zip(fam, adjusted_pvalues([r["pvalue"] for r in fam], "holm")):
            r["value"] = p
        tests += fam
    if not counts:
        return []
    note = ("Paired on the same task (H2 pair id and role) in both conditions; tasks seen in "
            "one condition only are left out. Descriptive counts, as in the paper.")
    return [
        ResultSet("li-design-transitions", "Li et al. (2026), §5.3, §5.4, App. K",
                  "Paired transitions of decisions and FC between response requirements, "
                  "wordings and answer construction", ["from", "to", "unit", "source",
                                                       "transition"], counts,
                  value="count", note=note),
        ResultSet("li-design-mcnemar", "Li et al. (2026), §5.3, §5.4, App. K, tested",
                  "Exact McNemar test of each paired contrast", ["from", "to", "unit",
                                                                  "source"], tests,
                  value="p (Holm)",
                  test="Exact McNemar test (two-sided binomial on the discordant tasks, "
                       "improved vs worsened), within model; Holm over all the contrasts of "
                       "a model. `pvalue`: unadjusted.", note=note),
    ]


def results(scored: Sequence[Mapping[str, Any]]) -> list[ResultSet]:
    """Every result set of the suite from the scored records of any number of models
    (records without ``model`` are one unnamed model).

    Parameters
    ----------
    scored : sequence of dict
        Scored records of ``actionable-indeterminacy`` (``prefcert score -o``).

    Returns
    -------
    list of ResultSet
        ``li-table5``, ``li-by-structure``, ``li-by-source``, ``li-by-size``, ``li-cells``
        (structure × size × source), ``li-fig4``, ``li-h5-transitions``,
        ``li-h5-mcnemar``, ``li-appc``; ``li-h2-evidence`` when records of the H2
        evidence condition are present; ``li-design-transitions`` and
        ``li-design-mcnemar`` when two conditions of :data:`CONTRASTS` are.

    Notes
    -----
    O(records). Li, A. et al. (2026), "Ask, Relax, or Act? Evaluating Actionable
    Indeterminacy in LLM Preference Reasoning", arXiv:2610.03102.
    """
    recs = [s for s in scored if "design" in s and "gold" in s]
    if not recs:
        return []
    src = "Li et al. (2026), §3.2 and App. B"
    return [metric_table(recs),
            by_factors(recs, ["structure"], "li-by-structure", src),
            by_factors(recs, ["source"], "li-by-source", src),
            by_factors(recs, ["size"], "li-by-size", src),
            by_factors(recs, ["structure", "size", "source"], "li-cells", src, figure=False),
            fig4(recs), *h5_transitions(recs), app_c(recs),
            *([evidence_table(recs)] if any("evidence_valid" in s for s in recs) else []),
            *design_transitions(recs)]


# --------------------------------------------------------------------------- completion

COMPLETION_METRICS = ("completion", "completion_given_valid", "first_valid")
"""The completion shares of App. J: completed / tasks, completed / valid first
interventions, valid first interventions / tasks (the last two on the interactive route
only)."""

ROUTE_OUTCOMES = ("both", "interactive only", "reference only", "neither")


def _route(s: Mapping[str, Any]) -> str:
    return str(s.get("route") or "interactive")


def completion_table(scored: Sequence[Mapping[str, Any]]) -> ResultSet:
    """The completion rates of the two-turn test per model, route, source and structure
    (each pooled as ``all`` too, and crossed): ``completion`` (completed / tasks: the
    paper's autonomous rate over 540, e.g. 535 / 540 for Astra), ``completion_given_valid``
    (completed / valid first interventions, e.g. 535 / 537) and ``first_valid`` (valid first
    interventions / tasks), the last two on the interactive route only (Li et al. 2026,
    §3.4, App. J, Tables 30–34). O(records)."""
    from .responses import STRUCTURES
    rows = []
    for model, recs in by_model(scored).items():
        for route in dict.fromkeys(_route(s) for s in recs):
            part = [s for s in recs if _route(s) == route]
            srcs = [x for x in SOURCES if any(s["source"] == x for s in part)]
            sts = [x for x in STRUCTURES if any(s["structure"] == x for s in part)]
            for src in (ALL, *srcs):
                for st in (ALL, *sts):
                    sub = [s for s in part if src in (ALL, s["source"])
                           and st in (ALL, s["structure"])]
                    if not sub:
                        continue
                    base = {"route": route, "source": src, "structure": st, MODEL: model}
                    done = sum(bool(s.get("completed")) for s in sub)
                    rows.append({**base, "metric": "completion", **_share(done, len(sub))})
                    if route != "interactive":
                        continue
                    valid = [s for s in sub if s.get("first_valid")]
                    rows.append({**base, "metric": "first_valid",
                                 **_share(len(valid), len(sub))})
                    if valid:
                        rows.append({**base, "metric": "completion_given_valid",
                                     **_share(sum(bool(s.get("completed")) for s in valid),
                                              len(valid))})
    return ResultSet(
        "li-completion", "Li et al. (2026), §3.4 and App. J (Tables 30–34)",
        "Completion after intervention: completion, completion given a valid first turn, "
        "first-turn validity", ["route", "source", "structure", "metric"], rows,
        value="share",
        note="interactive: the model's own intervention answered by the environment; an "
             "invalid first response ends the task (no second turn) and counts as not "
             "completed. reference: the predetermined resolution in a fresh one-turn prompt "
             "(no first turn, so only completion). Unanswered prompts count as not "
             "completed. 95 % Wilson intervals.",
        figure=lambda rs, ax: _bars(ax, rs, ["source"], [MODEL, "route", "metric"],
                                    keep=lambda r: r["structure"] == ALL))


def completion_routes(scored: Sequence[Mapping[str, Any]]) -> ResultSet | None:
    """Per model and source (and all), the tasks answered on both routes split by outcome:
    completed on both, on the interactive route only, on the reference route only, on
    neither (Li et al. 2026, App. J: e.g. Astra 534 both, 1 autonomous only, 5 reference
    only), paired on the original task's ``instance_id``; None when no task of any model
    has records on both routes. O(records)."""
    rows = []
    for model, recs in by_model(scored).items():
        tasks: dict[str, dict[str, Mapping]] = defaultdict(dict)
        for s in recs:
            if s.get("instance_id") is not None:
                tasks[str(s["instance_id"])][_route(s)] = s
        both = {k: v for k, v in tasks.items() if {"interactive", "reference"} <= set(v)}
        for src in (*SOURCES, ALL):
            ks = [k for k, v in both.items() if src in (ALL, v["interactive"]["source"])]
            if not ks:
                continue
            c: dict[str, int] = defaultdict(int)
            for k in ks:
                a = bool(both[k]["interactive"].get("completed"))
                b = bool(both[k]["reference"].get("completed"))
                c[ROUTE_OUTCOMES[0 if a and b else 1 if a else 2 if b else 3]] += 1
            rows += [{"source": src, "outcome": o, MODEL: model, "value": c[o], "n": len(ks)}
                     for o in ROUTE_OUTCOMES]
    if not rows:
        return None
    return ResultSet(
        "li-completion-routes", "Li et al. (2026), App. J (Table 30: the two routes)",
        "Tasks completed on both routes, on one only, on neither", ["source", "outcome"],
        rows, value="count",
        note="Paired on the same task (the original instance) answered on both routes; "
             "descriptive counts, as in the paper (the routes differ in history and, for "
             "RELAX, in the change accepted).")


def completion_results(scored: Sequence[Mapping[str, Any]]) -> list[ResultSet]:
    """Every result set of ``actionable-indeterminacy-completion`` from the scored records
    of any number of models (records without ``model`` are one unnamed model).

    Parameters
    ----------
    scored : sequence of dict
        Scored records of the completion suite (``prefcert score -o``, ``prefcert refine
        -o`` or Inspect logs): ``source``, ``structure``, ``completed``, ``first_valid``
        and, when the route was chosen, ``route`` (default ``interactive``).

    Returns
    -------
    list of ResultSet
        ``li-completion`` (:func:`completion_table`); ``li-completion-routes``
        (:func:`completion_routes`) when some task was answered on both routes.

    Notes
    -----
    O(records). Li, A. et al. (2026), "Ask, Relax, or Act? Evaluating Actionable
    Indeterminacy in LLM Preference Reasoning", arXiv:2610.03102, §3.4 and App. J.
    """
    recs = [s for s in scored if "completed" in s and "source" in s]
    if not recs:
        return []
    routes = completion_routes(recs)
    return [completion_table(recs), *([routes] if routes is not None else [])]
