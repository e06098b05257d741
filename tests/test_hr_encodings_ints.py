"""The hospitals/residents CP-SAT model built from the integer form (issue 24, item 2).

Checked against (1) the old formulation, written here as it was (one Boolean per pair
keyed by names, read from the name-keyed orders ``pr`` / ``ph``): the integer-built model
is the same CP-SAT model, variable for variable and constraint for constraint (same
names too), so it solves the same way; and (2) a brute force written here from the JSON
lists alone: for every matching of a small market and each notion, the model with the
pair variables fixed to that matching is feasible exactly when the matching is stable,
and the model is satisfiable exactly when a stable matching of the notion exists.
Markets: scrambled names (sorted order is not input order), ties, incomplete and
one-sided lists, residents or hospitals with empty lists, capacities 0..3.
"""
from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from prefcert.encodings.hospitals_residents import (
    stable_matching_cpsat,
    stable_matching_cpsat_model,
)
from prefcert.formal.hospitals_residents import NOTIONS, HRMarket, parse_hospitals_residents
from prefcert.generators.hospitals_residents import sample_hr
from shared import written_hr


@st.composite
def markets(draw, max_r: int = 4, max_h: int = 3, max_cap: int = 3):
    nr, nh = draw(st.integers(1, max_r)), draw(st.integers(1, max_h))
    rng = random.Random(draw(st.integers(0, 2**32)))
    return written_hr(rng, nr, nh, lambda r: r.randint(0, max_cap))


# ------------------------------------------------------------- the old formulation

def name_built_model(market: HRMarket, notion: str):
    """The model as it was built before issue 24 (from the name-keyed orders)."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    edges = [(r, h) for r, o in market.pr.items() for h in o.items]
    x = {(r, h): model.new_bool_var(f"x[{r},{h}]") for r, h in edges}
    by_r: dict[str, list] = {}
    by_h: dict[str, list] = {}
    for (r, h), v in x.items():
        by_r.setdefault(r, []).append(v)
        by_h.setdefault(h, []).append((r, v))
    for vs in by_r.values():
        if len(vs) > 1:
            model.add_at_most_one(vs)
    top: dict[str, list] = {}
    for r, order in market.pr.items():
        ladder = [model.new_constant(0)]
        for k, tie in enumerate(order.ties, 1):
            t = model.new_bool_var(f"top[{r},{k}]")
            model.add(t == ladder[-1] + sum(x[(r, h)] for h in tie))
            ladder.append(t)
        top[r] = ladder
    full: dict[str, list] = {}
    for h, rv in by_h.items():
        cap = market.capacities[h]
        model.add(sum(v for _, v in rv) <= cap)
        order = market.ph[h]
        ladder = [model.new_constant(0)]
        for k in range(1, len(order.ties) + 1):
            f = model.new_bool_var(f"full[{h},{k}]")
            model.add(sum(x[(r, h)] for t in order.ties[:k] for r in t) >= cap
                      ).only_enforce_if(f)
            ladder.append(f)
        full[h] = ladder
    for r, h in x:
        k, q = market.pr[r].rank[h], market.ph[h].rank[r]
        nsr, nwr = top[r][k], top[r][k - 1]
        nsh, nwh = full[h][q], full[h][q - 1]
        me = x[(r, h)]
        if notion == "weak":
            model.add_bool_or([me, nsr, nsh])
        elif notion == "super":
            model.add_bool_or([me, nwr, nwh])
        else:
            model.add_bool_or([me, nsr, nwh])
            model.add_bool_or([me, nwr, nsh])
    return model, x


def same_model(data: dict) -> None:
    market = parse_hospitals_residents(data)
    for notion in NOTIONS:
        old, xo = name_built_model(market, notion)
        new, xn = stable_matching_cpsat_model(market, notion)
        assert str(new.proto) == str(old.proto), (data, notion)
        rn, hn = market.ints.r.names, market.ints.h.names
        assert [(rn[i], hn[j]) for i, j in xn] == list(xo)
        again, _ = stable_matching_cpsat_model(market.ints, notion)
        assert str(again.proto) == str(new.proto)
        # a market built from its orders (its integer form made from them)
        built = HRMarket(dict(market.residents), dict(market.hospitals),
                         dict(market.capacities))
        again, _ = stable_matching_cpsat_model(built, notion)
        assert str(again.proto) == str(new.proto)


@settings(max_examples=300, deadline=None)
@given(markets(max_r=6, max_h=4))
def test_integer_built_model_is_the_name_built_one(data):
    same_model(data)


def test_integer_built_model_is_the_name_built_one_on_larger_markets():
    rng = random.Random(7)
    for seed in range(30):
        same_model(sample_hr(rng.randint(5, 40), rng.randint(1, 8), cap_min=0, cap_max=4,
                             tie_prob=rng.choice([0.0, 0.3, 0.8]),
                             truncate=rng.random() < 0.6, seed=seed))


# ---------------------------------------------------------- brute force from the JSON

def ranks(lst: list) -> dict[str, int]:
    """Partner -> 1-based tie index of a list as written."""
    out = {}
    for k, entry in enumerate(lst, 1):
        for y in (entry if isinstance(entry, list) else [entry]):
            out[y] = k
    return out


def admissible(data: dict) -> list[tuple[str, str]]:
    res, hos = data["preferences"]["residents"], data["preferences"]["hospitals"]
    cap = data["capacities"]
    rr = {r: ranks(v) for r, v in res.items()}
    rh = {h: ranks(v) for h, v in hos.items()}
    return [(r, h) for r in res for h in hos if h in rr[r] and r in rh[h] and cap[h] > 0]


def matchings(data: dict):
    """Every matching over the admissible pairs, as resident -> hospital."""
    pairs = admissible(data)
    res = list(data["preferences"]["residents"])
    options = [[None] + [h for r2, h in pairs if r2 == r] for r in res]
    cap = data["capacities"]
    for pick in itertools.product(*options):
        m = {r: h for r, h in zip(res, pick) if h is not None}
        if all(list(m.values()).count(h) <= c for h, c in cap.items()):
            yield m


def is_stable(data: dict, m: dict[str, str], notion: str) -> bool:
    """Irving, Manlove & Scott 2000/2003 (Manlove 2013, §3.2–3.3): no admissible pair
    outside ``m`` blocks it."""
    rr = {r: ranks(v) for r, v in data["preferences"]["residents"].items()}
    rh = {h: ranks(v) for h, v in data["preferences"]["hospitals"].items()}
    for r, h in admissible(data):
        if m.get(r) == h:
            continue
        if r not in m:
            r_strict = r_weak = True
        else:
            r_strict, r_weak = rr[r][h] < rr[r][m[r]], rr[r][h] <= rr[r][m[r]]
        members = [s for s, g in m.items() if g == h]
        if len(members) < data["capacities"][h]:
            h_strict = h_weak = True
        else:
            worst = max(rh[h][s] for s in members)
            h_strict, h_weak = rh[h][r] < worst, rh[h][r] <= worst
        blocks = {"weak": r_strict and h_strict, "super": r_weak and h_weak,
                  "strong": (r_strict and h_weak) or (r_weak and h_strict)}[notion]
        if blocks:
            return False
    return True


def feasible(model) -> bool:
    from ortools.sat.python import cp_model
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    return solver.solve(model) in (cp_model.OPTIMAL, cp_model.FEASIBLE)


def solutions_are_the_stable_matchings(data: dict) -> None:
    market = parse_hospitals_residents(data)
    rn, hn = market.ints.r.names, market.ints.h.names
    all_m = list(matchings(data))
    for notion in NOTIONS:
        stable = [m for m in all_m if is_stable(data, m, notion)]
        out = stable_matching_cpsat(market, notion, time_limit=30, seed=0)
        assert out.verdict == ("exists" if stable else "none"), (data, notion)
        if stable:
            assert out.solution in stable
            assert list(out.solution) == [r for r in rn if r in out.solution]
        for m in all_m:
            model, x = stable_matching_cpsat_model(market.ints, notion)
            for (i, j), v in x.items():
                model.add(v == int(m.get(rn[i]) == hn[j]))
            assert feasible(model) == (m in stable), (data, notion, m)


@settings(max_examples=120, deadline=None)
@given(markets(max_r=4, max_h=3))
def test_model_solutions_are_exactly_the_stable_matchings(data):
    solutions_are_the_stable_matchings(data)


def hr(residents: dict, hospitals: dict, capacities: dict) -> dict:
    return {"preferences": {"residents": residents, "hospitals": hospitals},
            "capacities": capacities}


ADVERSARIAL = [
    # r1 indifferent between h1 and h2, both want r1: neither strongly nor super-stable
    hr({"r1": [["h1", "h2"]], "r2": ["h1"]}, {"h1": ["r1", "r2"], "h2": ["r1"]},
       {"h1": 1, "h2": 1}),
    # ties on both sides, one post (h2 has capacity 0): neither strongly nor super-stable
    hr({"r1": [["h1", "h2"]], "r2": [["h1", "h2"]]}, {"h1": [["r1", "r2"]],
       "h2": [["r1", "r2"]]}, {"h1": 1, "h2": 0}),
    # every hospital of capacity 0: only the empty matching
    hr({"r1": ["h1"], "r2": ["h1", "h2"]}, {"h1": ["r2", "r1"], "h2": ["r2"]},
       {"h1": 0, "h2": 0}),
    # one-sided entries only: nothing admissible
    hr({"r1": ["h1"], "r2": []}, {"h1": ["r2"]}, {"h1": 2}),
    # everyone tied, capacity above the number of residents
    hr({"r1": [["h1", "h2"]], "r2": [["h2", "h1"]], "r3": [["h1", "h2"]]},
       {"h1": [["r3", "r1", "r2"]], "h2": [["r2", "r3", "r1"]]}, {"h1": 3, "h2": 1}),
    # names out of sorted order, a hospital listing no one
    hr({"r9": ["h2", "h10"], "r10": [["h10", "h2"]], "r1": ["h2"]},
       {"h10": ["r1", ["r10", "r9"]], "h2": [["r9", "r1"], "r10"], "h3": []},
       {"h10": 1, "h2": 2, "h3": 1}),
]


def test_adversarial_markets():
    for data in ADVERSARIAL:
        same_model(data)
        solutions_are_the_stable_matchings(data)
