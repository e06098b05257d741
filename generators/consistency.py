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


# ------------------------------------------------------- the paper's elicitation geometry

#: Flights (Ford et al. 2026, Tables 1 and 4): items are (airline, travel time in minutes);
#: the 3 named source offers, each with 2 targets (6 endpoint pairs per utterance), and for
#: every pair two intermediates: m₁ keeps the source's airline at an intermediate travel
#: time, m₂ takes the target's airline at an intermediate travel time. One target item is
#: sold twice (T1 and T6: the same flight at two fares) and one intermediate item is an
#: endpoint's (m₂ of pair 4 is S3's flight), so 21 offers hold 19 items and the endpoints 8.
FLIGHT_SOURCES = {"S1": (("Northwind", 300), 345), "S2": (("Bluejay", 420), 315),
                  "S3": (("Coastal", 360), 335)}
FLIGHT_PAIRS = (  # source, target (item, fare), m₁ item, m₂ item
    ("S1", (("Bluejay", 240), 430), ("Northwind", 270), ("Bluejay", 270)),
    ("S1", (("Coastal", 270), 405), ("Northwind", 285), ("Coastal", 285)),
    ("S2", (("Northwind", 330), 385), ("Bluejay", 375), ("Northwind", 375)),
    ("S2", (("Coastal", 300), 365), ("Bluejay", 360), ("Coastal", 360)),
    ("S3", (("Northwind", 250), 435), ("Coastal", 305), ("Northwind", 305)),
    ("S3", (("Bluejay", 240), 395), ("Coastal", 320), ("Bluejay", 280)),
)
#: Apartments: items are (area in sq ft, commute in minutes, bedrooms, building type); m₁
#: is the source apartment with the target's commute, m₂ the target apartment with the
#: source's commute. 21 offers, 21 items, 9 endpoint items.
APARTMENT_SOURCES = {"S1": ((650, 35, 1, "walk-up"), 1975),
                     "S2": ((900, 20, 2, "elevator building"), 2425),
                     "S3": ((1100, 45, 3, "townhouse"), 2325)}
APARTMENT_PAIRS = (
    ("S1", ((800, 20, 1, "elevator building"), 2375)),
    ("S1", ((950, 40, 2, "walk-up"), 2275)),
    ("S2", ((1000, 30, 2, "townhouse"), 2525)),
    ("S2", ((750, 10, 1, "elevator building"), 2575)),
    ("S3", ((1000, 25, 2, "elevator building"), 2675)),
    ("S3", ((1250, 55, 3, "walk-up"), 2125)),
)
#: Hotels: 3 rated items on a 3 × 3 grid of (rating, nightly price); the 4 pairs are the
#: diagonals of the grid's 2 × 2 blocks, (rating i, price j) → (rating i+1, price j+1), and
#: their two paths go round the block: m₁ changes the rating first, m₂ the price first.
HOTEL_RATINGS = (3, 4, 5)
HOTEL_GRID_PAIRS = ((0, 0), (0, 1), (1, 0), (1, 1))
#: The stress paths (Fig. 4, Table 7): 4 prespecified single-feature paths, the feature
#: varied in 16 equal steps at a fixed price, under utterance 1 of their domain.
STRESS_SPECS = (
    ("flights", "travel time", lambda t: ("Bluejay", 240 + 15 * t), 380),
    ("flights", "travel time", lambda t: ("Northwind", 480 - 15 * t), 360),
    ("apartments", "area", lambda t: (600 + 50 * t, 30, 2, "elevator building"), 2350),
    ("apartments", "commute", lambda t: (900, 58 - 3 * t, 2, "walk-up"), 2300),
)


def item_name(domain: str, features: Sequence[Any]) -> str:
    """The item's name in the design (its features, human-readable; unique per item)."""
    if domain == "flights":
        airline, minutes = features
        return f"{airline}, {minutes // 60} h {minutes % 60:02d} min"
    if domain == "apartments":
        area, commute, beds, kind = features
        return f"{area} sq ft, {beds} bd, {kind}, {commute}-min commute"
    return f"{features[0]}-star hotel"


def _mid(p: int, q: int) -> int:
    return int(5 * round((p + q) / 10))


def elicitation_offers() -> dict[str, list[dict]]:
    """Per domain, the endpoint pairs of the paper's geometry: ``{"id", "a", "b", "m1",
    "m2"}`` with each offer ``{"item", "features", "price"}`` (prices in whole dollars).

    Flights and apartments: 3 named source offers, 2 targets each, intermediates priced
    at the endpoints' mean fare rounded to $5; hotels: the 4 block diagonals of the
    3 × 3 (rating × price) grid. See :data:`FLIGHT_PAIRS` for how the intermediates are
    built. Complexity O(1) (fixed tables).

    References
    ----------
    Ford et al., "LLM-Derived Preference Judgments Are Not Self-Consistent", 2026,
    Tables 1 and 4.
    """
    def offer(dom, feats, price):
        return {"item": item_name(dom, feats), "features": list(feats), "price": int(price)}
    out: dict[str, list[dict]] = {"flights": [], "apartments": [], "hotels": []}
    for j, (s, (y, q), z1, z2) in enumerate(FLIGHT_PAIRS, 1):
        x, p = FLIGHT_SOURCES[s]
        m = _mid(p, q)
        out["flights"].append({"id": f"p{j}", "source": s, "a": offer("flights", x, p),
                               "b": offer("flights", y, q), "m1": offer("flights", z1, m),
                               "m2": offer("flights", z2, m)})
    for j, (s, (y, q)) in enumerate(APARTMENT_PAIRS, 1):
        x, p = APARTMENT_SOURCES[s]
        m = _mid(p, q)
        z1 = (x[0], y[1], x[2], x[3])
        z2 = (y[0], x[1], y[2], y[3])
        out["apartments"].append({"id": f"p{j}", "source": s, "a": offer("apartments", x, p),
                                  "b": offer("apartments", y, q),
                                  "m1": offer("apartments", z1, m),
                                  "m2": offer("apartments", z2, m)})
    for j, (i, k) in enumerate(HOTEL_GRID_PAIRS, 1):
        r0, r1 = (HOTEL_RATINGS[i],), (HOTEL_RATINGS[i + 1],)
        p, q = HOTEL_PRICES[k], HOTEL_PRICES[k + 1]
        out["hotels"].append({"id": f"p{j}", "source": f"grid({i + 1},{k + 1})",
                              "a": offer("hotels", r0, p), "b": offer("hotels", r1, q),
                              "m1": offer("hotels", r1, p), "m2": offer("hotels", r0, q)})
    return out


def elicitation_design(utterances: int = 3, stress: bool = True) -> dict:
    """The design of Ford et al.'s elicitation (the JSON of ``prefcert consistency
    --design``), with the paper's geometry: flights 19 items / 21 offers, apartments
    21 / 21, hotels 3 / 9 (3 × 3 grid); 6, 6 and 4 endpoint pairs per utterance, each
    with one direct and four path-step offer-pair queries; item queries for the endpoint
    items of each utterance (8, 9, 3). With 3 utterances: 240 offer-pair and 60 item query
    cells (300), 96 P1 and 48 P2 comparisons; plus (``stress``) 4 single-feature paths for
    k ∈ {1, 2, 4, 8, 16} (124 cells, separate from the audit).

    Every cell also carries what its prompt needs: ``features`` of its offers or item and
    the ``utterance_id`` it is conditioned on (stress cells: ``utterance_id``
    ``stress<s>`` and ``prompt_utterance`` 1). Deterministic (no seed). Complexity O(1).

    References
    ----------
    Ford et al., "LLM-Derived Preference Judgments Are Not Self-Consistent", 2026,
    Tables 1, 4 and 7; Figs. 2 and 4.
    """
    cells: dict[str, dict] = {}
    pairs: list[dict] = []

    def side(o):
        return {"item": o["item"], "price": o["price"], "features": o["features"]}
    for dom, plist in elicitation_offers().items():
        for u in range(1, utterances + 1):
            utt = str(u)
            base = {"domain": dom, "utterance_id": utt}
            items: dict[str, str] = {}
            for pr in plist:
                for end in ("a", "b"):
                    o = pr[end]
                    if o["item"] not in items:
                        cid = f"{dom}-u{utt}-item-{len(items) + 1}"
                        cells[cid] = {"type": "item", "item": o["item"],
                                      "features": o["features"], **base}
                        items[o["item"]] = cid
            for pr in plist:
                pid = f"{dom}-u{utt}-{pr['id']}"

                def pc(name, s, t):
                    cid = f"{pid}-{name}"
                    cells[cid] = {"type": "pair", "a": side(s), "b": side(t), **base}
                    return cid
                a, b, m1, m2 = pr["a"], pr["b"], pr["m1"], pr["m2"]
                direct = pc("ab", a, b)
                paths = [[pc("am1", a, m1), pc("m1b", m1, b)],
                         [pc("am2", a, m2), pc("m2b", m2, b)]]
                pairs.append({"id": pid, "domain": dom, "utterance_id": utt,
                              "direct": direct, "paths": paths,
                              "items": [items[a["item"]], items[b["item"]]]})
    stress_paths: list[dict] = []
    if stress:
        for s, (dom, feature, at, price) in enumerate(STRESS_SPECS, 1):
            def sc(j0: int, j1: int, s=s, dom=dom, at=at, price=price):
                cid = f"stress{s}-{j0}_16-{j1}_16"
                if cid not in cells:
                    a, b = at(j0), at(j1)
                    cells[cid] = {"type": "pair", "domain": dom, "utterance_id": f"stress{s}",
                                  "prompt_utterance": "1", "stress": True,
                                  "a": {"item": item_name(dom, a), "price": price,
                                        "features": list(a)},
                                  "b": {"item": item_name(dom, b), "price": price,
                                        "features": list(b)}}
                return cid
            direct = sc(0, 16)
            for k in STRESS_KS:
                w = 16 // k
                steps = [sc(w * (j - 1), w * j) for j in range(1, k + 1)]
                stress_paths.append({"id": f"stress{s}-k{k}", "k": k, "direct": direct,
                                     "steps": steps, "domain": dom, "feature": feature})
    return {"cells": cells, "pairs": pairs, "stress_paths": stress_paths}
