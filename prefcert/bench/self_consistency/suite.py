"""The ``self-consistency`` suite: Ford et al.'s elicitation, one prompt per query cell.

The golds of this suite are not answers: willingness to pay is *elicited*, and what is
certified is the design (:func:`prefcert.generators.consistency.elicitation_design`: the
paper's geometry, its P1 / P2 comparisons and its stress paths). ``prefcert generate
self-consistency`` writes, besides the usual files, ``design.json`` — the design that
``prefcert consistency`` reads — and every prompt record carries the ``cell_id`` of its
query cell and ``epochs`` (15: the paper's completions per cell, to be drawn as Inspect
epochs). ``prefcert consistency ANSWERS --design FOLDER`` turns a model's answers
(prompt id → text, several per id for several completions) into the response table.

Rows: one per (domain, utterance, query type) — ``pair`` (offer-pair queries), ``item``
(item queries) and ``stress`` (one row per stress path, separate from the audit) — with
one task per cell. The scorer grades the *answer format* only (Table 6): ``correct`` = the
whole answer is a signed number (number-only), ``incorrect`` = a finite amount is read
but with other text, ``invalid`` = no finite amount; the gold ``answer`` is ``0``, an
example of the format, not a value.

Utterances (App. B.2 of the paper; its texts are not in our copy) are written by us, three
per domain, each stressing other features.

References
----------
Ford, M. T., Bahk, F., Wang, J., Jovine, A. S., Ye, T., Shmoys, D. B., Frazier, P. I.
(2026). "LLM-Derived Preference Judgments Are Not Self-Consistent". Tables 1, 4, 6, 7;
Figs. 2 and 4; App. B.2.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from ...generators.consistency import elicitation_design
from ..answers import Reading
from ..design import (Context, Entry, Parameter, RenderedPrompt, Row, Suite, Task, Verdict,
                      int_in)
from ..stats import proportion

EPOCHS = 15
SIZES = (300,)   # one level: the paper's 300 query cells (Inspect needs an integer)

#: Three preference statements per domain (ours; the paper's App. B.2 texts are absent).
UTTERANCES: dict[str, dict[str, str]] = {
    "flights": {
        "1": "I travel for work, so a short trip matters most to me and I will pay for it; "
             "which airline I fly hardly matters.",
        "2": "Money is tight. I can sit through a long journey to save on the fare, but I "
             "like Northwind and would pay a little more to fly with them.",
        "3": "I want a sensible balance of trip length and fare. I steer clear of Bluejay "
             "when I can after some bad experiences.",
    },
    "apartments": {
        "1": "I work from home, so the commute barely matters. I want as much floor space "
             "as I can get and at least two bedrooms.",
        "2": "Commuting wears me out: a short trip to the office comes first. A small place "
             "is fine, and I would rather live in a building with an elevator.",
        "3": "We are a family of four. Bedrooms and space come first, a townhouse would be "
             "ideal, and a reasonable commute is a bonus.",
    },
    "hotels": {
        "1": "I only need a clean bed for the night and will not pay much extra for more "
             "stars.",
        "2": "This trip is a special occasion; a highly rated hotel matters a lot to me and "
             "I am glad to pay for it.",
        "3": "I like some comfort but watch what I spend; a good mid-range hotel suits me "
             "best.",
    },
}

INTRO = {
    "flights": "You are helping an assistant understand a traveller's preferences over "
               "one-way flights on the same route. Prices are the listed fares in US dollars.",
    "apartments": "You are helping an assistant understand a renter's preferences over "
                  "apartments. Prices are monthly rents in US dollars.",
    "hotels": "You are helping an assistant understand a traveller's preferences over hotel "
              "rooms for one night in the same city. Prices are nightly rates in US dollars.",
}

ANSWER_FORMAT = ("Reply with a single number of US dollars (for example 120 or -45) and "
                 "nothing else.")


def describe(domain: str, features: Sequence[Any]) -> str:
    """The item in words (a flight, an apartment, a hotel room), without its price."""
    if domain == "flights":
        airline, minutes = features
        return f"a {airline} flight with a total travel time of {minutes // 60} h " \
               f"{minutes % 60:02d} min"
    if domain == "apartments":
        area, commute, beds, kind = features
        return (f"a {beds}-bedroom apartment of {area} sq ft in a {kind}, "
                f"{commute} minutes' commute from work")
    return f"a room in a {features[0]}-star hotel"


def pair_prompt(domain: str, utterance: str, a: Mapping[str, Any], b: Mapping[str, Any]
                ) -> str:
    """The offer-pair query Y(a, b): the payment that leaves the person indifferent between
    keeping offer A and exchanging it for offer B (positive: they would pay to switch;
    negative: they would need to be paid) — an estimate of U(b) − U(a)."""
    return (f"{INTRO[domain]}\n\nIn the person's own words: \"{utterance}\"\n\n"
            f"The person holds offer A and may exchange it for offer B.\n"
            f"Offer A: {describe(domain, a['features'])}, at ${a['price']:,}.\n"
            f"Offer B: {describe(domain, b['features'])}, at ${b['price']:,}.\n\n"
            "Each offer is taken at its listed price. What extra amount would this person "
            "pay, on top of everything else, to exchange offer A for offer B, so that "
            "paying it and keeping A are equally good to them? If they would only make the "
            "exchange when paid, the amount is negative.\n\n" + ANSWER_FORMAT)


def item_prompt(domain: str, utterance: str, features: Sequence[Any]) -> str:
    """The item query Y(x): the person's willingness to pay for item x (an estimate of
    u(x))."""
    return (f"{INTRO[domain]}\n\nIn the person's own words: \"{utterance}\"\n\n"
            f"Consider {describe(domain, features)}.\n\n"
            "What is the most this person would be willing to pay for it?\n\n"
            + ANSWER_FORMAT)


@cache
def _design(utterances: int = 3) -> dict:
    return elicitation_design(utterances=utterances)


def _groups(utterances: int) -> dict[tuple[str, str, str], list[str]]:
    """(domain, utterance, query) -> the cell ids of that row, in design order."""
    out: dict[tuple[str, str, str], list[str]] = {}
    for cid, c in _design(utterances)["cells"].items():
        q = "stress" if c.get("stress") else c["type"]
        out.setdefault((c["domain"], c["utterance_id"], q), []).append(cid)
    return out


def rows(sizes: Sequence[Any], utterances: int = 3) -> list[Row]:
    return [Row({"domain": d, "utterance": u, "query": q, "size": 300},
                [{"format": "number"}], per_cell=len(cids))
            for (d, u, q), cids in _groups(utterances).items()]


def sample(row: Row, index: int, ctx: Context) -> Task:
    utterances = int(ctx.params.get("utterances", 3))
    f = row.factors
    cid = _groups(utterances)[(f["domain"], f["utterance"], f["query"])][index]
    cell = _design(utterances)["cells"][cid]
    utt = cell.get("prompt_utterance", cell["utterance_id"])
    return Task([], [], {"cell_id": cid, "query_type": cell["type"],
                         "utterance": UTTERANCES[cell["domain"]][utt],
                         "epochs": int(ctx.params.get("epochs", EPOCHS)),
                         **{k: cell[k] for k in ("domain", "utterance_id", "a", "b", "item")
                            if k in cell}})


def render(task: Task, variant: Mapping[str, Any], ctx: Context) -> RenderedPrompt:
    t = task.payload
    cell = _design(int(ctx.params.get("utterances", 3)))["cells"][t["cell_id"]]
    if t["query_type"] == "pair":
        text = pair_prompt(t["domain"], t["utterance"], t["a"], t["b"])
    else:
        text = item_prompt(t["domain"], t["utterance"], cell["features"])
    return RenderedPrompt(text, "number", {"cell_id": t["cell_id"], "epochs": t["epochs"]})


def gold(task: Task, variant: Mapping[str, Any], labels: Sequence[dict],
         rendered: RenderedPrompt) -> str:
    return "0"


def score(prompt: dict, answer: str | None, entry: Entry) -> Verdict:
    """The answer format of Ford et al.'s Table 6: ``correct`` when the whole answer is a
    signed (optionally currency-formatted) number, ``incorrect`` when a finite amount is
    read with other text, ``ambiguous`` for a range or two different numbers (the paper
    gives no rule; corpus R17), ``invalid`` when no amount can be read, ``timeout`` for no
    answer. ``parsed`` is ``{"kind", "value", "rule"}`` (the amount as ``value``), as in
    every suite; ``reason`` the reader's reason when no amount is read. O(len(answer))."""
    import math

    from ..answers import read
    extra = {"cell_id": prompt.get("cell_id")}
    if answer is None:
        return Verdict("timeout", None, None, extra)
    r = read("number", answer, mode=entry.parse)
    if r.kind == "value" and not math.isfinite(r.value["value"]):
        r = Reading("invalid", None, r.rule + "/non_finite", "not a finite amount")
    if r.kind != "value":
        verdict = "ambiguous" if r.kind == "ambiguous" else "invalid"
        return Verdict(verdict, {"kind": r.kind, "value": None, "rule": r.rule}, r.reason,
                       {**extra, "number_only": False})
    only = bool(r.value["number_only"])
    return Verdict("correct" if only else "incorrect",
                   {"kind": "value", "value": r.value["value"], "rule": r.rule}, None,
                   {**extra, "number_only": only})


def metrics(scores: Sequence[dict]) -> list[dict]:
    """Number-only and finite-parse shares (Wilson 95 %) overall and per domain and
    query type (Ford et al. 2026, Table 6). The consistency analysis itself is
    ``prefcert consistency``."""
    out = []
    groups: dict[str, tuple[dict, list]] = {}
    for s in scores:
        for key in ({}, {"domain": s["cell"]["domain"]},
                    {"domain": s["cell"]["domain"], "query": s["cell"]["query"]}):
            groups.setdefault(json.dumps(key, sort_keys=True), (key, []))[1].append(s)
    for key, ss in groups.values():
        n = len(ss)
        out.append(proportion("number_only", key, sum(s["verdict"] == "correct" for s in ss), n))
        out.append(proportion("finite_parse", key,
                              sum(s["verdict"] in ("correct", "incorrect") for s in ss), n))
    return out


PARAMETERS = {
    "epochs": Parameter("epochs", EPOCHS, int_in(1, 100),
                        "completions per query cell (Inspect epochs); default 15, 1 to 100",
                        run=True),
    "utterances": Parameter("utterances", 3, int_in(1, 3),
                            "utterances per domain; default 3 (the paper's), 1 to 3"),
}


def configure(suite: Suite, params: Mapping[str, Any], sizes: Any) -> Suite:
    from dataclasses import replace
    u = int(params["utterances"])
    if u == 3:
        return suite
    return replace(suite, rows=lambda s: rows(s, u), expected_total=None)


def files(params: Mapping[str, Any]) -> dict[str, str]:
    """``design.json``: the design ``prefcert consistency`` reads (cells with their
    offers and features, endpoint pairs, stress paths)."""
    d = _design(int(params.get("utterances", 3)))
    return {"design.json": json.dumps(d, indent=1, ensure_ascii=False) + "\n"}


SUITE = Suite(
    name="self-consistency",
    description="Ford et al.'s elicitation of willingness to pay: flights (19 items, 21 "
                "offers), apartments (21, 21) and hotels (3 ratings on a 3 × 3 price grid), "
                "3 utterances each; 240 offer-pair and 60 item query cells (96 P1, 48 P2 "
                "comparisons) and 124 stress-path cells, one prompt per cell with a "
                "number-only answer, 15 completions per cell as epochs; design.json feeds "
                "prefcert consistency (Ford et al. 2026).",
    sizes=SIZES, per_cell=1, seed=0, rows=rows, sample=sample, render=render, gold=gold,
    score=score, metrics=metrics, expected_total=424, parameters=PARAMETERS,
    configure=configure, files=files,
    citation=('Ford, M. T. et al. (2026). "LLM-Derived Preference Judgments Are Not '
              'Self-Consistent".'),
)
