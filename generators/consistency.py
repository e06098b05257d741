"""Synthetic self-consistency audits of known truth (seeded).

:func:`paper_design` builds a design with the counts of Ford et al. (2026, Tables 1 and 4):
per utterance, flights 8 items and 6 endpoint pairs, apartments 9 and 6, hotels 3 rated
items on a 3 × 3 grid of offers and 4 pairs; each pair gives 5 offer-pair queries (the
direct one and two 2-step paths through m₁, m₂), so 3 utterances give 240 pair cells and
60 item cells (300 query cells); plus ``stress_paths`` paths along one smoothly varied
feature for k ∈ {1, 2, 4, 8, 16} (separate from the audit). Utilities and prices are
integers, so noise-free answers are exactly consistent.

:func:`simulate_responses` answers every cell from the design's true utility under the
quasi-linear model U(x, p) = u(x) − p, plus per-model Gaussian noise (rounded to whole
dollars), a per-cell distortion (fixed over a cell's completions: an inconsistency in
expectation), a per-answer bias on offer-pair answers (which accumulates along paths),
planted offsets and parse failures. :func:`simulate_choices` draws repeated pairwise
choices from a hidden order with flips.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

#: the elicitation domains of Ford et al. (flights, apartments, hotels — not prefcert's
#: registered domains): items per utterance, endpoint pairs per utterance, price range
ELICITATION_DOMAINS = {"flights": (8, 6, (300, 450)), "apartments": (9, 6, (1900, 2800)),
                       "hotels": (3, 4, (400, 700))}
HOTEL_PRICES = (400, 550, 700)
STRESS_KS = (1, 2, 4, 8, 16)


def _price(rng, lo: int, hi: int) -> int:
    return int(5 * round(rng.integers(lo, hi + 1) / 5))


def paper_design(seed: int = 0, utterances: int = 3, stress_paths: int = 4,
                 stress_domain: str = "flights") -> dict:
    """A design (the JSON object of ``prefcert consistency --design``) with the paper's
    counts, and ``truth``: domain -> item -> its true utility in dollars (integers)."""
    rng = np.random.default_rng(seed)
    cells: dict[str, dict] = {}
    pairs: list[dict] = []
    truth: dict[str, dict[str, int]] = {}

    def cell(cid, **kw):
        cells[cid] = kw
        return cid
    for dom, (n_items, n_pairs, (lo, hi)) in ELICITATION_DOMAINS.items():
        items = [f"{dom[0].upper()}{i}" for i in range(1, n_items + 1)]
        if dom == "hotels":
            truth[dom] = {x: 450 + 120 * i for i, x in enumerate(items)}
        else:
            truth[dom] = {x: int(rng.integers(int(lo * 0.9), int(hi * 1.1))) for x in items}
        for u in range(1, utterances + 1):
            utt = str(u)
            base = dict(domain=dom, utterance_id=utt)
            item_cells = {x: cell(f"{dom}-u{utt}-item-{x}", type="item", item=x, **base)
                          for x in items}
            for j in range(n_pairs):
                if dom == "hotels":
                    grid = [(x, p) for x in items for p in HOTEL_PRICES]
                    pick = rng.choice(len(grid), size=4, replace=False)
                    a, b, m1, m2 = (grid[i] for i in pick)
                else:
                    x, y, z1, z2 = rng.choice(items, size=4, replace=False)
                    a, b = (str(x), _price(rng, lo, hi)), (str(y), _price(rng, lo, hi))
                    m1, m2 = (str(z1), _price(rng, lo, hi)), (str(z2), _price(rng, lo, hi))
                pid = f"{dom}-u{utt}-p{j + 1}"

                def pc(name, s, t):
                    return cell(f"{pid}-{name}", type="pair",
                                a={"item": s[0], "price": int(s[1])},
                                b={"item": t[0], "price": int(t[1])}, **base)
                direct = pc("ab", a, b)
                paths = [[pc("am1", a, m1), pc("m1b", m1, b)], [pc("am2", a, m2), pc("m2b", m2, b)]]
                pairs.append({"id": pid, "domain": dom, "utterance_id": utt, "direct": direct,
                              "paths": paths,
                              "items": [item_cells[a[0]], item_cells[b[0]]]})
    stress: list[dict] = []
    lo, hi = ELICITATION_DOMAINS[stress_domain][2]
    for s in range(1, stress_paths + 1):
        u0, u1 = int(rng.integers(lo, hi)), int(rng.integers(lo, hi))
        p0, p1 = _price(rng, lo, hi), _price(rng, lo, hi)

        def point(t: Fraction):
            name = f"S{s}-{t.numerator}/{t.denominator}"
            truth.setdefault(stress_domain, {})[name] = round(u0 + (u1 - u0) * t)
            return name, round(p0 + (p1 - p0) * t)

        def sc(t0: Fraction, t1: Fraction):
            (x, p), (y, q) = point(t0), point(t1)
            cid = f"stress{s}-{t0.numerator}_{t0.denominator}-{t1.numerator}_{t1.denominator}"
            if cid not in cells:
                cell(cid, type="pair", a={"item": x, "price": p}, b={"item": y, "price": q},
                     domain=stress_domain, utterance_id=f"stress{s}", stress=True)
            return cid
        direct = sc(Fraction(0), Fraction(1))
        for k in STRESS_KS:
            steps = [sc(Fraction(j - 1, k), Fraction(j, k)) for j in range(1, k + 1)]
            stress.append({"id": f"stress{s}-k{k}", "k": k, "direct": direct, "steps": steps})
    return {"cells": cells, "pairs": pairs, "stress_paths": stress, "truth": truth}


def simulate_responses(design: Mapping[str, Any], models: Mapping[str, Mapping[str, float]],
                       *, completions: int = 15, seed: int = 0,
                       plant: Mapping[str, Mapping[str, float]] | None = None) -> list[dict]:
    """Response rows (``model``, ``cell_id``, ``completion_idx``, ``raw_text``,
    ``parsed_value``, ``number_only``) for every cell of ``design`` and every model.

    ``models``: name -> ``noise`` (sd of each answer, dollars), ``distortion`` (sd of a
    per-cell offset shared by the cell's completions), ``step_bias`` (added to every
    offer-pair answer), ``fail`` (share of unparseable answers), ``round`` (answers
    rounded to this many dollars; 0 = no rounding; default 1). ``plant``: model -> cell id
    -> an offset added to every completion of that cell."""
    truth = design["truth"]
    rows = []
    for mi, (name, par) in enumerate(models.items()):
        rng = np.random.default_rng([seed, mi])
        noise, dist = float(par.get("noise", 0)), float(par.get("distortion", 0))
        bias, fail = float(par.get("step_bias", 0)), float(par.get("fail", 0))
        step = float(par.get("round", 1))
        offsets = (plant or {}).get(name, {})
        for cid, c in design["cells"].items():
            u = truth[c["domain"]]
            if c["type"] == "pair":
                mean = (u[c["b"]["item"]] - c["b"]["price"]) - (u[c["a"]["item"]] - c["a"]["price"])
                mean += bias
            else:
                mean = u[c["item"]]
            mean += float(rng.normal(0, dist)) if dist else 0.0
            mean += offsets.get(cid, 0.0)
            for j in range(completions):
                y = mean + (float(rng.normal(0, noise)) if noise else 0.0)
                if step:
                    y = step * round(y / step)
                if fail and rng.random() < fail:
                    rows.append({"model": name, "cell_id": cid, "completion_idx": j,
                                 "raw_text": "I cannot put a price on that.",
                                 "parsed_value": None, "number_only": False})
                    continue
                y = int(y) if float(y).is_integer() else y
                text = f"-${-y:,}" if y < 0 else f"${y:,}"
                rows.append({"model": name, "cell_id": cid, "completion_idx": j,
                             "raw_text": text, "parsed_value": y, "number_only": True})
    return rows


def simulate_choices(items: Sequence[str], *, pairs: int, repeats: int, flip: float,
                     seed: int = 0) -> list[list]:
    """Repeated pairwise choices ``[winner, loser, count]`` between ``pairs`` random pairs
    of ``items``: each of ``repeats`` choices follows the hidden order (the list order)
    except with probability ``flip``."""
    rng = np.random.default_rng(seed)
    n = len(items)
    out: dict[tuple[str, str], int] = {}
    all_pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = rng.choice(len(all_pairs), size=min(pairs, len(all_pairs)), replace=False)
    for k in chosen:
        i, j = all_pairs[k]
        for _ in range(repeats):
            a, b = (items[i], items[j]) if rng.random() >= flip else (items[j], items[i])
            out[(a, b)] = out.get((a, b), 0) + 1
    return [[a, b, c] for (a, b), c in out.items()]
