"""``indeterminacy-algorithmic``: the structural benchmark of Khanna & Wang (2026, §4,
App. F.2): standard tasks (concepts that always exist) and hard notions (strict core,
strong and super stability, which may not exist), at n = 10 and 30. 3,660 prompts.

**Standard tasks** (1,110 prompts per size): six settings of 30 instances each — house
allocation with endowments (a Shapley–Scarf housing market) under strict complete (SO),
strict truncated (SI) and tied (TO) lists, object allocation (SO), stable matching (SO, TO)
— with one generation prompt per notion of the setting, one "unspecified" prompt (no notion
named; scored against the setting's canonical notion: core / weak core for housing, Pareto
optimality for object allocation, stability for matching) and one selection prompt (a menu
of one candidate per notion plus one or two contaminated candidates; scored correct when
the chosen option satisfies some notion of the setting, i.e. is not contaminated).

**Hard notions** (720 prompts per size): for each of strict core (housing, ties p = 0.3),
strong and super stability (matching, ties p = 0.2 on both sides), 30 feasible and 30
infeasible instances (super-infeasible ones still admit a strongly stable matching), each
shown four ways: generation with and without the ``{}`` hatch, selection with and without
"none of the above" (NOTA).

Every gold answer is a certified label (a witness, or a replayable refutation: a
top-trading segmentation, a deletion log); menu options carry the notions they satisfy as
decided by :func:`prefcert.pipeline.classify.classify` (checker-verified certificates). Readings
(named options: ``prefcert generate --reading``, ``--templates``; docs/suites.md):

- *distinctness filter* (standard settings; reading ``distinctness``): ``strict`` (default,
  the filter K&W F.2.1 describes): the candidates (the oracle's outcome of each notion) are
  pairwise distinct and none satisfies a *strong* notion of its setting (core, weak core,
  stability, utilitarian, egalitarian, rank-maximal, MCPO) other than its own; Pareto
  optimality is implied by core, utilitarian and rank-maximal outcomes and is not filtered
  on, except that the Pareto candidate must satisfy no strong notion. ``canonical`` (the
  filter of prefcert 0.2): only the canonical notion's candidate is kept apart — it
  satisfies no other strong notion and no other candidate satisfies it;
- *core* (HA-SO, HA-SI): the notion is decided with the weak-core condition (no coalition
  makes every member strictly better off: K&W E.1, Table 25), the candidates kept apart
  from it too; the prompt's template set says which condition it states (``checks.core``:
  the default set ``weak_core``, ``prefcert-0.2`` ``strict_core``) and the answer is
  checked against that one; the gold, the top-trading-cycles allocation, satisfies both;
- *HA-SI*: the housing market reads unlisted houses as unacceptable, the own one included
  (``unlisted_own_house = unacceptable``, K&W F.2.1): an agent is never given a house it
  did not rank and stays unmatched instead; the prompt says so (template key
  ``lists.SI``), and the core is labelled as the weak core (the strict core can be empty
  once agents are indifferent between nothing and an unranked house);
- *menus* (hard notions): 4 options at n = 10 and 5 at n = 30 before NOTA (the paper's
  "five in general, four for smaller instances"): the target's witness when feasible, the
  related notions' outcomes, then one or two contaminated candidates (the canonical
  output with one or two swaps), deduplicated, shuffled;
- *selection without NOTA on an infeasible instance*: no option is correct; declining
  every option ("none", ``{}``) is scored correct, picking one incorrect; the gold answer
  is ``none`` (no option is offered for it);
- *scoring "no solution"* (the paper's Table 20): with the hatch only ``{}`` is correct on
  an infeasible instance; without it, anything that is not a valid outcome is; ``{}`` on a
  feasible instance is an invalid solution.
"""
from __future__ import annotations

import gc
import json
from collections import Counter
from dataclasses import replace
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from ...generators import indeterminacy as gen
from ..answers import Reading, read
from ...formal.spec import Convention
from ..design import Entry, Parameter, RenderedPrompt, Row, SizeTests, Suite, Task, Verdict, \
    canonical
from ..stats import accuracy_rows, proportion
from ..templates import TemplateSpec, load
from .params import MAX_DRAWS_LIMIT, Budget, check_sizes, int_in

SIZES = (10, 30)
#: sizes ``--sizes`` accepts (inclusive; why: :mod:`prefcert.bench.indeterminacy.params`)
SIZE_LIMITS = (8, 60)
MAX_DRAWS = 200_000
#: the code-assisted design (K&W 2026, §5 "Reasoning with code execution", App. N,
#: Table 29): Shapley–Scarf markets (strict core) and matching markets (super stability),
#: feasible and infeasible, 10 instances per cell at Small, Modest and Medium sizes
CODE_NOTIONS = ("strict_core", "super_stable")
CODE_SIZES = (10, 30, 50)
CODE_PER_CELL = 10
TOOLS = ("none", "code")
SETTINGS: dict[str, dict] = {
    "HA-SO": {"kind": "housing", "pref": "SO", "canonical": "core",
              "notions": ["core", "pareto_optimal", "utilitarian", "egalitarian",
                          "rank_maximal"]},
    "HA-SI": {"kind": "housing", "pref": "SI", "canonical": "core",
              "notions": ["core", "rank_maximal", "max_cardinality_pareto_optimal"]},
    "HA-TO": {"kind": "housing", "pref": "TO", "canonical": "weak_core",
              "notions": ["weak_core", "pareto_optimal", "utilitarian", "egalitarian",
                          "rank_maximal"]},
    "OA-SO": {"kind": "allocation", "pref": "SO", "canonical": "pareto_optimal",
              "notions": ["pareto_optimal", "utilitarian", "egalitarian", "rank_maximal"]},
    "SM-SO": {"kind": "matching", "pref": "SO", "canonical": "stable",
              "notions": ["stable", "utilitarian", "egalitarian", "rank_maximal"]},
    "SM-TO": {"kind": "matching", "pref": "TO", "canonical": "weakly_stable",
              "notions": ["weakly_stable", "utilitarian", "egalitarian", "rank_maximal"]},
}
HARD = {"strict_core": {"kind": "housing", "p": 0.3,
                        "related": ["weak_core", "pareto_optimal", "egalitarian"]},
        "strongly_stable": {"kind": "matching", "p": 0.2,
                            "related": ["weakly_stable", "egalitarian", "rank_maximal"]},
        "super_stable": {"kind": "matching", "p": 0.2,
                         "related": ["strongly_stable", "weakly_stable", "egalitarian"]}}
TIE_P = {"housing": 0.3, "allocation": 0.3, "matching": 0.2}
#: notion -> (instance role, pipeline question)
QUESTION = {"core": ("hm", "strict_core"), "strict_core": ("hm", "strict_core"),
            "weak_core": ("hm", "weak_core"), "pareto_optimal": ("ha", "pareto_optimal"),
            "max_cardinality_pareto_optimal": ("ha", "max_cardinality_pareto_optimal"),
            "utilitarian": ("ha", "utilitarian"), "egalitarian": ("ha", "egalitarian"),
            "rank_maximal": ("ha", "rank_maximal"), "stable": ("sm", "weakly_stable"),
            "weakly_stable": ("sm", "weakly_stable"),
            "strongly_stable": ("sm", "strongly_stable"), "super_stable": ("sm", "super_stable")}
WEAK_NOTIONS = ("pareto_optimal",)
GEN_VARIANTS = [{"task": "generation", "escape": True}, {"task": "generation", "escape": False},
                {"task": "selection", "escape": True}, {"task": "selection", "escape": False}]


NOTIONS = ("core", "weak_core", "strict_core", "pareto_optimal",
           "max_cardinality_pareto_optimal", "utilitarian", "egalitarian", "rank_maximal",
           "stable", "weakly_stable", "strongly_stable", "super_stable")
KINDS = ("housing", "allocation", "matching")
_F = frozenset
TEMPLATES = TemplateSpec(
    "algorithmic",
    {"instance": (_F({"problem", "lists", "preferences", "endowment"}),
                  _F({"preferences", "endowment"})),
     "endowment": (_F({"endowment"}), _F({"endowment"})),
     "generation": (_F({"instance", "notion", "outcome", "definition", "format", "hatch",
                        "scratchpad"}), _F({"instance", "format", "hatch"})),
     "unspecified": (_F({"instance", "outcome", "an_outcome", "format", "scratchpad"}),
                     _F({"instance", "format"})),
     "hatch": (_F({"notion", "outcome"}), _F()),
     "scratchpad": (_F(), _F()),
     "selection": (_F({"instance", "notion", "outcome", "definition", "options", "scratchpad"}),
                   _F({"instance", "options"})),
     "selection_unnamed": (_F({"instance", "outcome", "options", "scratchpad"}),
                           _F({"instance", "options"})),
     "nota": (_F(), _F()),
     **{f"problem.{k}": (_F({"n"}), _F()) for k in KINDS},
     **{f"lists.{x}": (_F(), _F()) for x in ("SO", "SI", "TO")},
     **{f"{w}.{k}": (_F(), _F()) for w in ("outcome", "an_outcome", "format") for k in KINDS},
     **{f"{w}.{x}": (_F(), _F()) for w in ("label", "definition") for x in NOTIONS}},
    {"khanna-wang": ("prefcert.bench.indeterminacy", "templates-khanna-wang.toml"),
     "prefcert-0.2": ("prefcert.bench.indeterminacy", "templates-prefcert-0.2.toml")},
    choices={"checks.core": ("weak_core", "strict_core")})
READINGS = {"distinctness": Convention("distinctness", ("strict", "canonical"), {
    "strict": "no candidate of a standard menu satisfies a strong notion of its setting "
              "other than its own (K&W 2026, App. F.2.1)",
    "canonical": "only the canonical notion's candidate is kept apart from the others "
                 "(prefcert 0.2)"})}


@lru_cache(maxsize=1)
def definitions() -> dict[str, dict]:
    """notion -> {"label", "text"}: the definitions of the default template set (K&W 2026,
    Tables 25-26, restated; the egalitarian misprint of the paper corrected)."""
    t = load(TEMPLATES, None)
    return {x: {"label": t[f"label.{x}"], "text": t[f"definition.{x}"]} for x in NOTIONS}


# ----------------------------------------------------------------------------- design

def rows(sizes: Sequence[int]) -> list[Row]:
    """The design table at the kept sizes (any n within :data:`SIZE_LIMITS`; the registered
    design keeps 10 and 30): per size, six standard settings and the three hard notions,
    feasible and infeasible."""
    out = []
    for n in sorted(set(sizes)):
        for name, st in SETTINGS.items():
            variants = [{"task": t} for t in st["notions"]] + [{"task": "unspecified"},
                                                               {"task": "selection"}]
            out.append(Row({"design": "standard", "setting": name, "size": n}, variants))
        for notion in HARD:
            for feasible in (True, False):
                out.append(Row({"design": "hard", "notion": notion, "feasible": feasible,
                                "size": n}, GEN_VARIANTS))
    return out


# ----------------------------------------------------------------------------- instances

def names(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(1, n + 1)]


def draw_instances(kind: str, pref: str, n: int, rng, iid: str, p: float | None = None) -> dict:
    """role -> instance dict: ``hm`` + ``ha`` (housing), ``ha`` (allocation), ``sm``."""
    p = TIE_P[kind] if p is None else p
    agents = names("A", n)
    if kind == "matching":
        B = names("B", n)
        sides = {}
        for side, own, other in (("A", agents, B), ("B", B, agents)):
            lists = gen.strict_profile(n, other, rng)
            if pref == "TO":
                lists = gen.merge_adjacent_all(lists, p, rng)
            elif pref == "SI":
                lists = [gen.truncate(o, rng) for o in lists]
            sides[side] = dict(zip(own, lists))
        return {"sm": {"id": iid, "domain": "stable_matching", "preferences": sides}}
    houses = names("O", n)
    lists = gen.strict_profile(n, houses, rng)
    if pref == "TO":
        lists = gen.merge_adjacent_all(lists, p, rng)
    elif pref == "SI":
        lists = [gen.truncate(o, rng) for o in lists]
    prefs = dict(zip(agents, lists))
    out = {"ha": {"id": f"{iid}-ha" if kind == "housing" else iid, "domain": "house_allocation",
                  "preferences": prefs, "objects": houses}}
    if kind == "housing":
        out["hm"] = {"id": f"{iid}-hm", "domain": "housing_market", "preferences": prefs,
                     "endowment": dict(zip(agents, houses))}
        if pref == "SI":          # K&W F.2.1: an unranked house, own or not, is unacceptable
            out["hm"]["conventions"] = {"unlisted_own_house": "unacceptable"}
    return out


def _model(inst: dict):
    from ...pipeline.registry import spec
    return spec(inst["domain"]).parse(inst)


def oracle_outcome(inst: dict, model, question: str):
    """The oracle's answer (an :class:`~prefcert.formal.outcome.Outcome`) to a question."""
    from ...pipeline.registry import domain
    q = domain(inst["domain"]).questions[question]
    return q.engines["oracle"](model, None, time_limit=10.0, seed=0)


def memberships(insts: dict, models: dict, outcome: Any,
                optima: Mapping[str, Any] | None = None,
                graphs: dict | None = None) -> dict[str, bool]:
    """notion -> whether ``outcome`` satisfies it, decided with the checker's own
    definitions (:mod:`prefcert.formal.checker`: the improvement digraph for the cores and
    Pareto optimality, the blocking-pair scan for stability; ``core`` is the weak core, the
    condition K&W E.1 and Table 25 state) and, for the welfare notions,
    by comparing the outcome's value with that of the optimum in ``optima`` (notion ->
    outcome; certified by the notion's label). ``valid``: whether ``outcome`` is a valid
    outcome of the primary domain. An outcome that is not valid for a domain satisfies none
    of its notions. ``graphs``: role -> welfare graph of ``models[role]``, filled on first
    use (a draw's candidates share them). O(n + arcs) per domain."""
    if not isinstance(outcome, dict):
        return {"valid": False}
    mem = _Member(insts, models, outcome, optima if optima is not None else {},
                  graphs if graphs is not None else {})
    out: dict[str, bool] = {}
    for role, notions in (("hm", _HM_NOTIONS), ("ha", _HA_NOTIONS), ("sm", _SM_NOTIONS)):
        if role not in insts:
            continue
        ok = mem.checked(role) is not None
        out[f"valid_{role}"] = ok
        if role == "ha":
            out.setdefault("valid", ok)
        else:
            out["valid"] = ok
        if ok:
            out.update((x, bool(mem.get(x))) for x in notions)
    for notion in WELFARE_NOTIONS:
        v = mem.get(notion)
        if v is not None:
            out[notion] = v
    return out


WELFARE_NOTIONS = ("utilitarian", "egalitarian", "rank_maximal")
_HM_NOTIONS = ("strict_core", "core", "weak_core", "individually_rational")
_HA_NOTIONS = ("pareto_optimal", "max_cardinality_pareto_optimal")
_SM_NOTIONS = ("weakly_stable", "strongly_stable", "super_stable", "stable")


def _graph(models: dict, graphs: dict, role: str):
    from ...formal.welfare import welfare_graph
    g = graphs.get(role)
    if g is None:
        g = graphs[role] = welfare_graph(models[role])
    return g


def _welfare_role(insts: dict, valid: Mapping[str, Any]) -> str | None:
    """The role whose welfare graph the welfare notions are read in: the matching market
    when the outcome is a valid matching, else the house allocation when it is a valid
    allocation, else none."""
    if "sm" in insts and valid.get("valid_sm"):
        return "sm"
    if "ha" in insts and valid.get("valid_ha"):
        return "ha"
    return None


def _welfare_member(models: dict, graphs: dict, role: str, outcome: dict,
                    optima: Mapping[str, Any], notion: str) -> bool | None:
    """Whether ``outcome`` has the welfare value of the optimum of ``notion`` (None when
    ``optima`` has none)."""
    from ...formal.welfare import signature, total_rank, worst_rank
    opt = optima.get(notion)
    if opt is None:
        return None
    fn = {"utilitarian": total_rank, "egalitarian": worst_rank, "rank_maximal": signature}[notion]
    g = _graph(models, graphs, role)
    m = {a: b for a, b in outcome.items() if b is not None}
    opt = {a: b for a, b in opt.items() if b is not None}
    same_size = notion == "rank_maximal" or len(m) == len(opt)
    return same_size and fn(g, m) == fn(g, opt)


class _Member:
    """What one candidate of a draw satisfies, each notion decided on first read
    (``get``): the same answers as :func:`memberships` (the same checker tests, and an
    outcome invalid for a domain satisfies none of its notions), computing only the tests
    read. The distinctness filter stops at the first notion a candidate shares."""

    def __init__(self, insts: dict, models: dict, outcome: dict, optima: Mapping[str, Any],
                 graphs: dict):
        self.insts, self.models, self.outcome = insts, models, outcome
        self.optima, self.graphs = optima, graphs
        self.valid: dict[str, Any] = {}
        self.known: dict[str, bool | None] = {}

    def checked(self, role: str) -> Any:
        """The outcome as the ``role`` domain's checker reads it, None when invalid."""
        if role not in self.valid:
            from ...formal.checker import house_allocation as ca
            from ...formal.checker.welfare import validate_matching
            from ...formal.errors import CertificateError
            from ...formal.housing_market import as_allocation
            models = self.models
            try:
                self.valid[role] = (
                    as_allocation(models["hm"], self.outcome) if role == "hm" else
                    ca.validate_allocation(models["ha"], self.outcome) if role == "ha" else
                    validate_matching(_graph(models, self.graphs, "sm"), self.outcome))
            except CertificateError:
                self.valid[role] = None
        return self.valid[role]

    def get(self, notion: str) -> bool | None:
        if notion not in self.known:
            self.known[notion] = self._decide(notion)
        return self.known[notion]

    def _decide(self, notion: str) -> bool | None:
        from ...formal.checker import house_allocation as ca
        from ...formal.checker import housing_market as ch
        from ...formal.checker.stable_matching import blocking_pairs
        role = ("hm" if notion in _HM_NOTIONS else "ha" if notion in _HA_NOTIONS else
                "sm" if notion in _SM_NOTIONS else None)
        if role is not None:
            x = self.checked(role) if role in self.insts else None
            if x is None:
                return None
            model = self.models[role]
            if notion == "strict_core":
                return ch.in_strict_core(model, x)
            if notion in ("core", "weak_core"):
                return ch.in_weak_core(model, x)
            if notion == "individually_rational":
                return ch.is_individually_rational(model, x)
            if notion == "pareto_optimal":
                return ca.improving_arc(model, x) is None
            if notion == "max_cardinality_pareto_optimal":
                if not self.get("pareto_optimal"):
                    return False
                mc = self.optima.get("max_cardinality_pareto_optimal")
                return bool(mc is not None and len(x) == len(mc))
            kind = {"stable": "weak", "weakly_stable": "weak", "strongly_stable": "strong",
                    "super_stable": "super"}[notion]
            return not blocking_pairs(model, x, kind)
        if notion in WELFARE_NOTIONS:
            valid = {f"valid_{r}": self.checked(r) is not None
                     for r in ("sm", "ha") if r in self.insts}
            wrole = _welfare_role(self.insts, valid)
            if wrole is None:
                return None
            return _welfare_member(self.models, self.graphs, wrole, self.outcome, self.optima,
                                   notion)
        return None


class _Read:
    """A candidate's notions under the distinctness reading (``canonical``: the core read
    as the strict core, as :func:`_core_read` does)."""

    def __init__(self, member: _Member, reading: str):
        self.member, self.reading = member, reading

    def get(self, notion: str) -> bool | None:
        if notion == "core" and self.reading == "canonical":
            return self.member.get("strict_core")
        return self.member.get(notion)


class _Found(Mapping):
    """notion -> the oracle's outcome for it in a draw, computed on first read."""

    def __init__(self, draw: "_Draw"):
        self.draw = draw
        self.done: dict[str, Any] = {}

    def __getitem__(self, notion: str) -> Any:
        if notion not in self.done:
            self.done[notion] = self.draw.solve(notion)
        return self.done[notion]

    def get(self, notion, default=None):
        return self[notion] if notion in self.draw.notions else default

    def __iter__(self):
        return iter(self.draw.notions)

    def __len__(self) -> int:
        return len(self.draw.notions)


class _Draw:
    """One draw of a standard setting: its instances, their models parsed once, the welfare
    graph of each role built once, and the oracle's outcome of each notion computed once,
    on first use (``found``). The welfare notions call the oracle functions on the shared
    graph (what their engines do, without rebuilding it); the others go through their
    ``oracle`` engine."""

    def __init__(self, insts: dict, notions: Sequence[str]):
        self.insts, self.notions = insts, list(notions)
        if "hm" in insts and "ha" in insts:
            # one preference dict read by both: the allocation is made from the market's
            # orders (its lists are not read a second time)
            hm = _model(insts["hm"])
            ha = _allocation_from_market(insts["ha"], hm, insts["hm"])
            self.models = {r: hm if r == "hm" else ha if r == "ha" else _model(i)
                           for r, i in insts.items()}
        else:
            self.models = {r: _model(i) for r, i in insts.items()}
        self.graphs: dict = {}
        self.found = _Found(self)
        self._nu: int | None = None

    def max_matching_size(self) -> int:
        """The size of a maximum matching of the house allocation's acceptability graph
        (the oracle's Hopcroft–Karp on the model's integer lists: every maximum matching
        has this size, so the welfare graph is not needed), computed once."""
        if self._nu is None:
            from ...oracles import house_allocation as orc
            ix = self.models["ha"].rank_index()
            off, objs = ix.offsets, ix.objects
            adj = [objs[off[i]:off[i + 1]].tolist() for i in range(len(off) - 1)]
            mate = orc._scipy_rows(adj, len(self.models["ha"].objects))
            self._nu = len(mate) - mate.count(-1)
        return self._nu

    def member(self, outcome: dict) -> _Member:
        """What ``outcome`` satisfies, decided lazily against this draw's optima."""
        return _Member(self.insts, self.models, outcome, self.found, self.graphs)

    def reads(self, cands: dict[str, Any], reading: str) -> dict[str, _Read]:
        """notion -> what its candidate satisfies under ``reading``, lazily."""
        return {k: _Read(self.member(c), reading) for k, c in cands.items()}

    def solve(self, notion: str) -> Any:
        role, q = where(notion, self.insts)
        return _solve(self.insts, self.models, self.graphs, role, q)


def _allocation_from_market(data: dict, market, market_data: dict) -> Any:
    """The house allocation ``data`` parses to, made from ``market``, the housing market
    parsed from ``market_data`` over the very same preference lists
    (``data["preferences"]`` is ``market_data["preferences"]``, as
    :func:`draw_instances` makes it): its orders, and the integer
    index (:class:`~prefcert.formal.house_allocation.RankIndex`) read from them —
    entries best first, tie indices (None when every list is strict), the most ties of a
    list. Equal to the parse (``tests/test_algorithmic_suite_speed.py``); the parse
    itself when the lists are not the market's. O(L)."""
    from array import array

    from ...formal.house_allocation import CONVENTIONS, HouseAllocation, LazyOrders, RankIndex
    from ...formal.spec import read_conventions
    prefs, orders = data.get("preferences"), market.preferences
    raw_objects = data.get("objects")
    if prefs is not market_data.get("preferences") or not isinstance(raw_objects, list) \
            or list(orders) != list(prefs) or set(data) - {"id", "domain", "preferences",
                                                           "objects", "conventions"}:
        return _model(data)
    objects = tuple(raw_objects)
    oi = {h: j for j, h in enumerate(objects)}
    if len(oi) != len(objects):
        return _model(data)
    offsets, objs, ranks = array("q", [0]), array("i"), array("i")
    strict, top = True, 0
    try:
        for o in orders.values():
            items = o.items
            objs.fromlist(list(map(oi.__getitem__, items)))
            ranks.fromlist(list(map(o.rank.__getitem__, items)))
            offsets.append(len(objs))
            if o.nties != len(items):
                strict = False
            if o.nties > top:
                top = o.nties
    except KeyError:                        # a listed house that is no object: the parse
        return _model(data)                 # names the error
    lazy = LazyOrders(prefs, oi)
    lazy.adopt(orders, prefs)
    return HouseAllocation(lazy, objects, read_conventions(data, CONVENTIONS),
                           RankIndex(offsets, objs, None if strict else ranks, top))


def _solve(insts: dict, models: dict, graphs: dict, role: str, question: str) -> Any:
    """The oracle's outcome of ``question`` on the ``role`` instance: the solution of its
    ``oracle`` engine (:func:`oracle_outcome`). The welfare questions call the oracle
    function on the role's shared welfare graph (what their engines do, without rebuilding
    the graph per question); ``tests/test_generation_speed.py`` pins the two equal."""
    if question in WELFARE_NOTIONS:
        from ...oracles import house_allocation as orc
        g = _graph(models, graphs, role)
        if question == "utilitarian":
            return orc.utilitarian_matching(g, certificate=False)[0]
        # the matching only: the labels certify it later (the same matching either way)
        fn = orc.egalitarian_matching if question == "egalitarian" else orc.rank_maximal
        return fn(g, certificate=False)[0]
    return oracle_outcome(insts[role], models[role], question).solution


def where(notion: str, insts: dict) -> tuple[str, str]:
    """(instance role, pipeline question) of a notion; welfare notions of a matching market
    are asked of the market itself."""
    role, q = QUESTION[notion]
    if notion == "core" and insts.get("hm", {}).get("conventions", {}).get(
            "unlisted_own_house") == "unacceptable":
        # agents may stay unmatched: indifferent between nothing and an unlisted house, so
        # the strict core can be empty; the core of K&W Table 25 is the weak core
        return "hm", "weak_core"
    return ("sm", q) if role == "ha" and "sm" in insts else (role, q)


def _ranks(lst: list) -> dict[str, int]:
    return {x: g for g, t in enumerate(lst, 1) for x in (t if isinstance(t, list) else [t])}


def _egalitarian_variant(insts: dict, cands: dict, rng, graph=None) -> dict:
    """An egalitarian optimum differing from the other candidates (see :func:`_variant`):
    ``cands`` holds every candidate, the oracle's egalitarian optimum under
    ``egalitarian``."""
    # the other candidates as item sets: equal item sets <=> equal canonical JSON (the
    # outcomes map names to names)
    others = {frozenset(c.items()) for k, c in cands.items() if k != "egalitarian"}
    return _variant(insts, cands["egalitarian"], rng, graph,
                    lambda out: frozenset(out.items()) in others)


def _variant(insts: dict, best: dict, rng, graph, taken) -> dict:
    """An egalitarian optimum differing from the other candidates when one is easy to find:
    a random maximum matching among the pairs whose worst rank is at most the optimum's
    (every such matching is egalitarian-optimal); else the oracle's own. ``graph``: the
    house allocation's welfare graph, whose ranks are the lists' tie indices (read instead
    of ranking the lists again; not used for a matching market)."""
    from ...oracles.house_allocation import _scipy_rows
    if graph is not None and "sm" not in insts:
        ranks = graph.ranks
        worst = max((ranks[e][0] for e in best.items()), default=0)
        keep = [e for e, r in ranks.items() if r[0] <= worst]
    else:
        if "sm" in insts:
            P = insts["sm"]["preferences"]
            ra = {a: _ranks(lst) for a, lst in P["A"].items()}
            rb = {b: _ranks(lst) for b, lst in P["B"].items()}
            edges = {(a, b): max(ra[a][b], rb[b][a]) for a in ra for b in ra[a]
                     if a in rb.get(b, {})}
        else:
            P = insts["ha"]["preferences"]
            edges = {(a, o): r for a, lst in P.items() for o, r in _ranks(lst).items()}
        worst = max((edges[(a, b)] for a, b in best.items()), default=0)
        keep = [e for e, r in edges.items() if r <= worst]
    lefts = sorted({a for a, _ in keep})
    rights = sorted({b for _, b in keep})
    li = {a: i for i, a in enumerate(lefts)}
    ri = {b: j for j, b in enumerate(rights)}
    pairs = [(li[a], ri[b]) for a, b in keep]
    nl, nr = len(lefts), len(rights)
    for _ in range(8):            # random relabellings of both sides (arrays: no hash order)
        # scipy's Hopcroft–Karp matching of the relabelled graph (``_scipy_rows``: its
        # pure-Python twin on small graphs, the same matching)
        row = rng.permutation(nl).tolist()
        col = rng.permutation(nr).tolist()
        adj: list[list[int]] = [[] for _ in range(nl)]
        for a, b in pairs:
            adj[row[a]].append(col[b])
        mate = _scipy_rows(adj, nr)
        by_row = [0] * nl
        for a, i in enumerate(row):
            by_row[i] = a
        by_col = [0] * nr
        for b, j in enumerate(col):
            by_col[j] = b
        out = {lefts[by_row[i]]: rights[by_col[j]] for i, j in enumerate(mate) if j >= 0}
        if len(out) == len(best) and not taken(out):
            return dict(sorted(out.items()))
    return best


#: the candidates of a standard draw that are computed only when a test reads them: the
#: egalitarian variant's draws depend on them only through "is this matching one of
#: them", which a cheaper known matching often refutes (:func:`_refuted`)
_LAZY = ("rank_maximal",)


def _refuted(d: "_Draw", notion: str, out: dict, known: Sequence[dict]) -> bool:
    """Whether ``out`` cannot be the oracle's optimum of the welfare ``notion``, shown by a
    known matching that is strictly better: for the utilitarian optimum (least total rank
    over the maximum-cardinality matchings) one of the same size as ``out`` with a smaller
    total, given ``out`` is of maximum cardinality; for the rank-maximal one (the
    lexicographically largest signature over all matchings) one with a larger signature.
    Read in the welfare graph of the notion's role; a known outcome that is no matching of
    that graph is not used. False when nothing refutes. O(n) a known matching."""
    from ...formal.welfare import signature, total_rank
    g = _graph(d.models, d.graphs, where(notion, d.insts)[0])
    if notion == "rank_maximal" and g.maximum_first:
        return False
    ranks = g.ranks
    if not all(e in ranks for e in out.items()):
        return False
    value = total_rank if notion == "utilitarian" else signature
    mine = value(g, out)
    for m in known:
        if any(y is None for y in m.values()) or not all(e in ranks for e in m.items()):
            continue
        if notion == "utilitarian":
            if len(m) == len(out) and value(g, m) < mine:
                return True
        elif value(g, m) > mine:
            return True
    return False


def _standard_with_variant(d: "_Draw", st: dict, rng, reading: str) -> dict | None:
    """The candidates of a draw of a setting with the egalitarian notion (the oracle's
    outcome of each notion, the egalitarian one replaced by :func:`_variant`), or None when
    the draw is rejected: two candidates equal, or :func:`distinct` fails. The same
    candidates, the same verdict and the same numbers drawn from ``rng`` as computing
    every candidate first (:func:`_egalitarian_variant`, then the tests): the variant
    asks only whether a matching is one of the other candidates, which for a
    :data:`_LAZY` candidate not yet computed is often refuted by a better known matching
    (:func:`_refuted`); the tests then run cheapest first and compute a lazy candidate
    only when one reads it (every test is pure: the verdict is their conjunction)."""
    notions = st["notions"]
    lazy = [x for x in notions if x in _LAZY]
    known = {x: d.found[x] for x in notions if x not in _LAZY}
    best = known["egalitarian"]

    def taken(out: dict) -> bool:
        key = frozenset(out.items())
        if any(key == frozenset(c.items()) for k, c in known.items() if k != "egalitarian"):
            return True
        for x in lazy:
            if x not in known and _refuted(d, x, out, [c for k, c in known.items()]):
                continue
            known[x] = d.found[x]
            if key == frozenset(known[x].items()):
                return True
        return False

    variant = _variant(d.insts, best, rng, d.graphs.get("ha"), taken)
    cands = {x: (variant if x == "egalitarian" else known.get(x)) for x in notions}
    # a welfare optimum's candidate read against another welfare notion first: such
    # values coincide most often (the utilitarian candidate's worst rank is the
    # egalitarian optimum's in two thirds of the HA-TO draws at n = 10)
    pairs = sorted(rejecting_pairs(st, reading), key=lambda p: (
        _TEST_COST.get(p[1], 2), p[0] not in WELFARE_NOTIONS))
    reads: dict[str, _Read] = {}
    seen: set[frozenset] = set()
    done: set[tuple[str, str]] = set()

    def add(x: str, c: dict) -> bool:
        key = frozenset(c.items())          # (equal item sets: equal canonical JSON)
        if key in seen:
            return False
        seen.add(key)
        cands[x] = c
        reads[x] = _Read(d.member(c), reading)
        return True

    def run(ready) -> bool:
        for k, y in pairs:
            if (k, y) not in done and ready(k, y):
                done.add((k, y))
                if reads[k].get(y):
                    return False
        return True

    for x in notions:
        if x not in lazy or x in known:
            if not add(x, cands[x]):
                return None
    # tests reading computed candidates only (a welfare notion y reads the optimum of y)
    if not run(lambda k, y: k in reads and (y not in lazy or y in known)):
        return None
    for x in lazy:
        if x not in reads:
            if not add(x, d.found[x]):
                return None
            known[x] = cands[x]
        if not run(lambda k, y: k in reads and (y not in lazy or y in known)):
            return None
    return cands


def _swap(outcome: dict, k: int, rng) -> dict:
    out = dict(outcome)
    keys = sorted(out)
    for _ in range(k):
        a, b = (keys[int(j)] for j in rng.choice(len(keys), size=2, replace=False))
        out[a], out[b] = out[b], out[a]
    return out


def _primary(insts: dict) -> str:
    return "hm" if "hm" in insts else ("sm" if "sm" in insts else "ha")


def sample(row: Row, index: int, ctx) -> Task:
    f = row.factors
    n, rng = f["size"], ctx.rng
    if f["design"] == "standard":
        st = SETTINGS[f["setting"]]
        reading = ctx.readings.get("distinctness", "strict")
        iid = f"{f['setting']}-n{n}-{index:02d}"
        budget = Budget(SUITE_NAME, f"{f['setting']} n={n}",
                        ctx.params.get("max_draws", MAX_DRAWS))
        cands: dict[str, Any] = {}
        while True:
            budget.tick()
            ctx.draw()
            insts = draw_instances(st["kind"], st["pref"], n, rng, iid)
            d = _Draw(insts, st["notions"])
            if "egalitarian" in st["notions"]:
                # the variant draws from rng (as many numbers as computing every
                # candidate first would draw: _standard_with_variant)
                got = _standard_with_variant(d, st, rng, reading)
                if got is None:
                    continue
                cands = got
            elif not _distinct_cheap_first(d, st, reading):
                continue      # (nothing is drawn after the instances: the same stream)
            break
        models = d.models
        found = {notion: d.found[notion] for notion in st["notions"]}
        if "egalitarian" not in st["notions"]:
            cands = dict(found)
        member = {k: _core_read(memberships(insts, models, c, found, d.graphs), reading)
                  for k, c in cands.items()}
        ctx.accept()
        options = [{"source": k, "outcome": c, "satisfies": _sat(member[k], st["notions"])}
                   for k, c in cands.items()]
        canon = cands[st["canonical"]]
        for _ in range(1 + int(rng.random() < 0.5)):
            for _try in range(50):
                c = _swap(canon, 1 + int(rng.random() < 0.5), rng)
                mem = _core_read(memberships(insts, models, c, found, d.graphs), reading)
                if canonical(c) not in {canonical(o["outcome"]) for o in options} and \
                        not any(mem.get(x) for x in st["notions"] if x not in WEAK_NOTIONS):
                    options.append({"source": "contaminated", "outcome": c,
                                    "satisfies": _sat(mem, st["notions"])})
                    break
        options = [options[int(j)] for j in rng.permutation(len(options))]
        qs = [(insts[where(x, insts)[0]]["id"], where(x, insts)[1]) for x in st["notions"]]
        payload = {"question": {"setting": f["setting"], "notions": st["notions"]},
                   "setting": f["setting"], "kind": st["kind"], "pref": st["pref"],
                   "roles": {r: i["id"] for r, i in insts.items()}, "notions": st["notions"],
                   "canonical": st["canonical"], "options": options,
                   "expected": {x: found[x] for x in st["notions"]}}
        return Task(list(insts.values()), qs, payload)
    notion, feasible = f["notion"], f["feasible"]
    hd = HARD[notion]
    iid = f"{notion}-{'E' if feasible else 'NE'}-n{n}-{index:02d}"
    tag = {"notion": notion, "size": n}
    from ...oracles import housing_market as oh
    from ...oracles import stable_matching as osm
    budget = Budget(SUITE_NAME, f"{notion} {'feasible' if feasible else 'infeasible'} n={n}",
                    ctx.params.get("max_draws", MAX_DRAWS))
    while True:
        budget.tick()
        ctx.draw(tag)
        insts = draw_instances(hd["kind"], "TO", n, rng, iid, hd["p"])
        role = _primary(insts)
        m = _model(insts[role])
        if notion == "strict_core":
            witness = oh.strict_core(m).allocation
        elif notion == "strongly_stable":
            witness = osm.strongly_stable_search(m)[0]
        else:
            witness = osm.super_stable_search(m)[0]
        if witness is None:
            ctx.note("no_solution", tag)
        if notion == "super_stable" and witness is None:
            if osm.strongly_stable_search(m)[0] is None:
                ctx.note("no_strongly_stable_either", tag)
                if not feasible:
                    continue
        if (witness is not None) == feasible:
            break
    ctx.accept(tag)
    models = {r: m if r == role else _model(i) for r, i in insts.items()}
    graphs: dict = {}
    size = 4 if n <= 10 else 5
    options: list[dict] = []
    seen: set = set()
    rel = [notion] if feasible else []
    rel += hd["related"]
    k_cont = 1 + int(rng.random() < 0.5)
    optima = {}
    for x in hd["related"]:
        r, q = where(x, insts)
        if x in ("utilitarian", "egalitarian", "rank_maximal") and r in insts:
            optima[x] = _solve(insts, models, graphs, r, q)
    for x in rel:
        if len(options) >= size - k_cont:
            break
        r, q = where(x, insts)
        if r not in insts:
            continue
        c = witness if x == notion else optima.get(x) or _solve(insts, models, graphs, r, q)
        if c is None or canonical(c) in seen:
            continue
        seen.add(canonical(c))
        options.append({"source": x, "outcome": c, "satisfies": _sat(
            memberships(insts, models, c, optima, graphs), [notion, *hd["related"]])})
    canon = oracle_outcome(insts[role], models[role],
                           "weak_core" if hd["kind"] == "housing" else "weakly_stable").solution
    tries = 0
    while len(options) < size and tries < 200:
        tries += 1
        c = _swap(canon, 1 + int(rng.random() < 0.5), rng)
        if canonical(c) in seen:
            continue
        mem = memberships(insts, models, c, optima, graphs)
        if mem.get(notion):
            continue
        seen.add(canonical(c))
        options.append({"source": "contaminated", "outcome": c,
                        "satisfies": _sat(mem, [notion, *hd["related"]])})
    options = [options[int(j)] for j in rng.permutation(len(options))]
    payload = {"question": {"notion": notion}, "notion": notion, "kind": hd["kind"],
               "feasible": feasible, "roles": {r: i["id"] for r, i in insts.items()},
               "options": options, "expected": witness is not None}
    r, q = where(notion, insts)
    return Task(list(insts.values()), [(insts[r]["id"], q)], payload)


def _core_read(mem: dict, reading: str) -> dict:
    """The ``canonical`` filter of prefcert 0.2 read the core as the strict core (for the
    filter, the contaminated candidates and the notions an option lists)."""
    return {**mem, "core": mem.get("strict_core")} if reading == "canonical" else mem


def distinct(member: Mapping[str, Any], setting: dict, reading: str = "strict") -> bool:
    """The distinctness filter of a standard menu: ``member`` maps each notion to what its
    candidate satisfies (:func:`memberships`, or anything with its ``get``). ``strict``: no
    candidate satisfies a strong notion of the setting other than its own (Pareto
    optimality, implied by core, utilitarian and rank-maximal outcomes, is weak: only its
    own candidate is tested); ``canonical``: the canonical candidate satisfies no other
    strong notion and, when the canonical notion is strong, no other candidate satisfies
    it. The tests (:func:`rejecting_pairs`) stop at the first that fails."""
    return not any(member[k].get(y) for k, y in rejecting_pairs(setting, reading))


#: the order in which the distinctness tests are tried (cheapest first: a welfare value
#: against the optimum's, then a blocking-pair scan, then the improvement digraphs)
_TEST_COST = {"utilitarian": 0, "egalitarian": 0, "rank_maximal": 0,
              "max_cardinality_pareto_optimal": 1, "stable": 1, "weakly_stable": 1,
              "strongly_stable": 1, "super_stable": 1}


def rejecting_pairs(setting: dict, reading: str = "strict") -> list[tuple[str, str]]:
    """(k, y): the distinctness filter of ``setting`` under ``reading`` rejects a menu whose
    candidate for notion k satisfies notion y (see :func:`distinct`), cheapest test first.
    O(notions²)."""
    notions = setting["notions"]
    if reading == "strict":
        pairs = [(k, y) for k in notions for y in notions if y != k and y not in WEAK_NOTIONS]
    else:
        canon = setting["canonical"]
        others = [x for x in notions if x != canon]
        pairs = [(canon, y) for y in others if y not in WEAK_NOTIONS]
        if canon not in WEAK_NOTIONS:
            pairs += [(x, canon) for x in others]
    return sorted(pairs, key=lambda p: _TEST_COST.get(p[1], 2))


def _distinct_cheap_first(d: "_Draw", setting: dict, reading: str) -> bool:
    """The pairwise-distinct test and :func:`distinct` of a draw whose sampler draws
    nothing after its instances (no egalitarian variant): the oracle's outcomes are
    computed one notion at a time, cheapest first, and each test is run as soon as its
    candidates are known, so a rejected draw stops at the first failed test (the same
    verdict as computing everything first: every test is pure)."""
    pairs = rejecting_pairs(setting, reading)
    order = sorted(setting["notions"], key=lambda x: _ORACLE_COST.get(x, 1))
    known: dict[str, Any] = {}
    seen: set[frozenset] = set()
    reads: dict[str, _Read] = {}
    mcpo = "max_cardinality_pareto_optimal"
    by_size = mcpo in setting["notions"]
    for x in order:
        c = d.found[x]
        key = frozenset(c.items())          # (equal item sets: equal canonical JSON)
        if key in seen:
            return False
        seen.add(key)
        known[x] = c
        reads[x] = _Read(d.member(c), reading)
        for k, y in pairs:
            if x in (k, y) and k in known and y in known and reads[k].get(y):
                return False
        # before the MCPO oracle runs (last): whether this candidate is an MCPO allocation,
        # by its size (most HA-SI draws end here, before the rank-maximal matching)
        if by_size and mcpo not in known and (x, mcpo) in pairs and \
                _mcpo_by_size(d, reads[x]):
            return False
    return True


def _mcpo_by_size(d: "_Draw", read: "_Read") -> bool:
    """Whether a candidate is an MCPO allocation, decided before the MCPO oracle runs: a
    Pareto-optimal allocation of the size of a maximum matching of the acceptability graph
    (a maximum Pareto-optimal matching is a maximum matching: Abraham, Cechlárová, Manlove
    & Mehlhorn 2004, whose algorithm keeps the maximum matching's size; the MCPO label's
    Hall set certifies that size). Only used to reject a draw early; an accepted draw is
    tested against the oracle's MCPO itself. The size first (the Pareto test, an
    improvement search, only for a candidate of that size)."""
    x = read.member.checked("ha")
    if x is None or len(x) != d.max_matching_size():
        return False
    return bool(read.get("pareto_optimal"))


#: the order in which a draw's oracle outcomes are computed when they can be tried one at a
#: time (top trading cycles and serial dictatorship first; the MCPO, whose Pareto
#: improvement search dominates, last)
_ORACLE_COST = {"core": 0, "weak_core": 0, "strict_core": 0, "pareto_optimal": 0,
                "stable": 0, "weakly_stable": 0, "max_cardinality_pareto_optimal": 2}


def _sat(mem: dict, notions: Sequence[str]) -> list[str]:
    return [x for x in dict.fromkeys(notions) if mem.get(x)]


# ----------------------------------------------------------------------------- prompts

OUTCOME = {"housing": "allocation", "allocation": "allocation", "matching": "matching"}


def _instance_text(insts: dict, kind: str, n: int, pref: str, t) -> str:
    """The instance block of the template set ``t``: the problem, how the lists of the
    preference type ``pref`` read (``lists.SI``: unranked alternatives are unacceptable),
    the preferences (the instance format) and, for a housing market, the endowment."""
    src = insts["sm"] if kind == "matching" else insts["ha"]
    prefs = json.dumps(src["preferences"], ensure_ascii=False)
    endow = t.render("endowment", endowment=json.dumps(insts["hm"]["endowment"])) \
        if kind == "housing" else ""
    return t.render("instance", problem=t.render(f"problem.{kind}", n=n),
                    lists=t[f"lists.{pref}"], preferences=prefs, endowment=endow)


def render(task: Task, variant: dict, ctx) -> RenderedPrompt:
    """The prompt of a variant; in the code-assisted design (``--param tools=code``) the
    same task with one paragraph added: a code-execution tool and the time budget
    (``--param time_budget``, minutes), restated from K&W 2026, §5 and footnote 7."""
    out = _render(task, variant, ctx)
    if ctx.row.factors.get("tools") != "code":
        return out
    minutes = ctx.params.get("time_budget", TIME_BUDGET)
    return RenderedPrompt(f"{out.text}\n\n{code_paragraph(minutes)}", out.answer_shape,
                          {**out.extra, "tools": ["python"], "time_limit": 60 * minutes})


#: the paper's limit per response in the code-assisted runs (K&W 2026, footnote 7)
TIME_BUDGET = 20


def code_paragraph(minutes: int) -> str:
    """The tool paragraph of a code-assisted prompt (our wording): the model may write and
    run Python, has ``minutes`` in all, and must still give its final answer in the asked
    format; a late or missing answer counts as incorrect. O(1)."""
    return (f"Tool: you can write Python programs and run them with the code-execution tool "
            f"before you answer. You have {minutes} minutes in all; an answer not given "
            f"within that time is scored as incorrect. Whatever your code finds, end with "
            f"your final answer in the format asked for above.")


def _render(task: Task, variant: dict, ctx) -> RenderedPrompt:
    p = task.payload
    t = ctx.templates or load(TEMPLATES, None)
    insts = {r: next(i for i in task.instances if i["id"] == iid) for r, iid in p["roles"].items()}
    kind, n = p["kind"], ctx.row.factors["size"]
    words = {"outcome": t[f"outcome.{kind}"], "scratchpad": t["scratchpad"]}
    instance = _instance_text(insts, kind, n, p.get("pref", "TO"), t)
    task_type = variant["task"]
    hard = ctx.row.factors["design"] == "hard"
    escape = variant.get("escape", True)
    fmt = t[f"format.{kind}"]
    if task_type == "selection":
        notion = p["notion"] if hard else None
        opts = [json.dumps(o["outcome"], sort_keys=True) for o in p["options"]]
        letters = [chr(ord("A") + i) for i in range(len(opts))]
        lines = [f"{L}: {o}" for L, o in zip(letters, opts)]
        nota = chr(ord("A") + len(opts)) if hard and escape else None
        if nota:
            lines.append(f"{nota}: {t['nota']}")
        if notion:
            text = t.render("selection", instance=instance, notion=t[f"label.{notion}"],
                            definition=t[f"definition.{notion}"], options="\n".join(lines),
                            **words)
        else:
            text = t.render("selection_unnamed", instance=instance, options="\n".join(lines),
                            **words)
        extra = {"options": dict(zip(letters, p["options"]))}
        if nota:
            extra["nota_option"] = nota
        return RenderedPrompt(text.rstrip("\n"), "mcq", extra)
    notion = p["notion"] if hard else (None if task_type == "unspecified" else task_type)
    target = p["canonical"] if notion is None else notion
    extra = {"target": target, "checked_notion": checked_notion(target, t)}
    if notion is None:
        text = t.render("unspecified", instance=instance, an_outcome=t[f"an_outcome.{kind}"],
                        format=fmt, **words)
        return RenderedPrompt(text.rstrip("\n"), "outcome", extra)
    label = t[f"label.{notion}"]
    hatch = t.render("hatch", notion=label, outcome=words["outcome"]) if escape else ""
    text = t.render("generation", instance=instance, notion=label,
                    definition=t[f"definition.{notion}"], format=fmt, hatch=hatch, **words)
    return RenderedPrompt(text.rstrip("\n"), "outcome", extra)


def checked_notion(target: str, templates=None) -> str:
    """The notion an answer for ``target`` is checked against: the condition the template
    set states for the core (``checks.core``), the target itself otherwise. A prompt record
    without ``checked_notion`` (prefcert 0.2) stated the strict-core condition."""
    if target != "core":
        return target
    return templates["checks.core"] if templates is not None else "strict_core"


def gold(task: Task, variant: dict, labels: Sequence[dict], rendered: RenderedPrompt) -> str:
    p = task.payload
    if "setting" in p:                                         # standard: always feasible
        sols = dict(zip(p["notions"], (lab["solution"] for lab in labels)))
        for x, sol in sols.items():
            if canonical(sol) != canonical(p["expected"][x]):
                raise RuntimeError(f"certified {x} label differs from the sampler's outcome")
        if variant["task"] == "selection":
            return next(L for L, o in rendered.extra["options"].items()
                        if o["source"] == p["canonical"])
        target = rendered.extra["target"]
        return json.dumps(sols[target], sort_keys=True)
    lab = labels[0]
    if (lab["verdict"] == "exists") != p["feasible"]:
        raise RuntimeError(f"certified label {lab['label_id']} contradicts the sampler")
    if variant["task"] == "selection":
        if p["feasible"]:
            return next(L for L, o in rendered.extra["options"].items()
                        if p["notion"] in o["satisfies"])
        return rendered.extra.get("nota_option") or "none"      # no option is correct
    return json.dumps(lab["solution"], sort_keys=True) if p["feasible"] else "{}"


# ----------------------------------------------------------------------------- scoring

def _insts(prompt: dict, entry: Entry) -> tuple[dict, dict]:
    roles = prompt["task"]["roles"]
    insts = {r: entry.instances[i] for r, i in roles.items()}
    return insts, {r: entry.model(i) for r, i in roles.items()}


def _refutation(insts, models, outcome, notion) -> dict | None:
    """Certificate-backed reason why ``outcome`` fails ``notion``."""
    from ...pipeline.classify import classify
    role, _ = where(notion, insts)
    key = {"core": "weak_core", "stable": "weakly_stable",
           "max_cardinality_pareto_optimal": "pareto_optimal"}.get(notion, notion)
    r = classify(insts[role]["domain"], models[role], [outcome])[0]
    if "invalid" in r:
        return {"invalid": r["invalid"]}
    if notion == "max_cardinality_pareto_optimal" and r["notions"]["pareto_optimal"]["holds"]:
        key = "max_cardinality"
    cert = r["notions"].get(key, {}).get("certificate")
    return {"notion": notion, "certificate": _short(cert)}


def _short(cert: Any) -> Any:
    if isinstance(cert, dict) and cert.get("type") == "blocking_pairs":
        return {"type": "blocking_pairs", "count": cert["count"], "pairs": cert["pairs"][:5]}
    return cert


def side_a(insts: dict) -> list[str]:
    """The agents an outcome maps (side A of a matching market, the agents otherwise)."""
    if "sm" in insts:
        return list(insts["sm"]["preferences"]["A"])
    return list(insts["ha"]["preferences"])


def judge_selection(reading: Reading, satisfies: dict[str, bool], *, hard: bool,
                    feasible: bool) -> tuple[str, dict]:
    """The verdict of a selection answer (Khanna & Wang 2026, §4.2, I.4): an option is
    correct iff it satisfies the notion (``satisfies``: letter -> bool); "none of the
    above" — the NOTA letter, or said in words — is correct iff the instance is infeasible
    (on a menu without NOTA too: no option applies, corpus reading R8)."""
    extra: dict = {}
    if reading.kind in ("invalid", "ambiguous"):
        return reading.kind, extra
    if reading.kind in ("none", "abstain"):
        extra["declined"] = extra["nota"] = True
        return ("correct" if hard and not feasible else "incorrect"), extra
    extra["nota"] = False
    return ("correct" if satisfies.get(reading.value) else "incorrect"), extra


def partners_of(insts: dict) -> list[str]:
    """The names an outcome assigns (side B of a matching market, the houses / objects)."""
    if "sm" in insts:
        return list(insts["sm"]["preferences"]["B"])
    if "hm" in insts:
        return list(insts["hm"]["endowment"].values())
    return sorted({x for lst in insts["ha"]["preferences"].values() for t in lst
                   for x in (t if isinstance(t, list) else [t])})


def one_to_one(outcome: Any, agents: Sequence[str], partners: Sequence[str]) -> bool:
    """Whether ``outcome`` maps known agents to distinct known partners (the structure of
    a matching, whatever the preferences)."""
    return isinstance(outcome, dict) and set(outcome) <= set(agents) and \
        set(outcome.values()) <= set(partners) and \
        len(set(outcome.values())) == len(outcome)


def missing_agents(outcome: Any, agents: Sequence[str],
                   partners: Sequence[str] | None = None) -> list[str]:
    """The agents a housing allocation leaves out, when it is otherwise one-to-one: known
    agents, distinct houses and, given ``partners``, only known houses (an allocation of a
    house the market does not have is no valid one-to-one outcome: Table 20 counts it
    invalid, not as leaving agents out)."""
    if not isinstance(outcome, dict) or not set(outcome) <= set(agents):
        return []
    if len(set(outcome.values())) != len(outcome):
        return []
    if partners is not None and not set(outcome.values()) <= set(partners):
        return []
    return [a for a in agents if a not in outcome]


def judge_outcome(reading: Reading, *, feasible: bool, escape: bool, valid: bool = False,
                  satisfies: bool = False, weak_core_only: bool = False,
                  left_out: Sequence[str] = (), unacceptable: bool = False,
                  empty_solves: bool = False) -> tuple[str, str | None]:
    """The verdict of a generation answer (Khanna & Wang 2026, §4.2, Table 20, F.2.2):
    (verdict, rule of the papers' reading that decided it, when one did).

    ``valid`` / ``satisfies``: the read outcome is a valid outcome of the instance and
    satisfies the notion (decided by the checker); ``weak_core_only``: "core" asked, the
    outcome is in the weak core but a strict-core coalition blocks it (Table 25 and E.1
    disagree: ``ambiguous``, corpus reading R12); ``left_out``: the housing agents a
    one-to-one allocation leaves without a house (read as getting nothing: the singleton
    keeping its endowment blocks, R13); ``unacceptable``: a one-to-one outcome the checker
    rejects because it assigns a partner missing from an agent's list (an unranked partner
    is unacceptable; assigning one is incorrect, F.2.1); ``empty_solves``: the empty
    outcome satisfies the
    notion, so a bare ``{}`` with the hatch cannot be told from "none exists" (R11).
    On a feasible instance ``{}`` is wrong (Table 20 counts it in the invalid-solution
    rate); on an infeasible one only ``{}`` / the claim in words is correct with the hatch,
    and anything that is not a valid outcome without it."""
    if reading.kind == "ambiguous":
        return "ambiguous", None
    if reading.kind == "value" and valid:
        if satisfies:
            return ("correct" if feasible else "incorrect"), None
        if weak_core_only:
            return "ambiguous", "R12:core_reading"
        return "incorrect", None
    if reading.kind == "value" and left_out:
        return ("incorrect" if feasible or escape else "correct"), "R13:left_out_agent"
    if reading.kind == "value" and unacceptable:
        return ("incorrect" if feasible or escape else "correct"), \
            "F.2.1:unacceptable_partner"
    if reading.kind == "none":
        if feasible:
            return ("ambiguous", "R11:empty_outcome_solves") if escape and empty_solves \
                else ("incorrect", "empty_on_feasible")
        return "correct", None
    # not a valid outcome: unreadable, or not one-to-one
    if not feasible and not escape:
        return "correct", "not_a_valid_outcome"
    return "invalid", None


def score(prompt: dict, answer: str | None, entry: Entry) -> Verdict:
    task, cell = prompt["task"], prompt["cell"]
    hard = cell["design"] == "hard"
    feasible = task["feasible"] if hard else True
    escape = cell.get("escape", True)
    mode = getattr(entry, "parse", "lenient")
    extra: dict = {"feasible": feasible}
    if answer is None:
        return Verdict("timeout", None, None, extra)
    insts = {r: entry.instances[i] for r, i in task["roles"].items()}
    if cell["task"] == "selection":
        opts = {L: json.dumps(o["outcome"], sort_keys=True) for L, o in prompt["options"].items()}
        r = read("letter", answer, mode=mode, options=opts,
                 nota_option=prompt.get("nota_option"), option_shape="outcome",
                 agents=side_a(insts), partners=partners_of(insts))
        if r.kind == "value" and r.value == prompt.get("nota_option"):
            r = Reading("none", None, r.rule)
        sat = {L: (feasible and task["notion"] in o["satisfies"]) if hard else
               (o["source"] != "contaminated" and bool(o["satisfies"]))
               for L, o in prompt["options"].items()}
        verdict, more = judge_selection(r, sat, hard=hard, feasible=feasible)
        extra.update(more)
        if r.kind == "value":
            opt = prompt["options"][r.value]
            extra["selected"] = opt["source"]
            extra["selected_satisfies"] = opt["satisfies"]
        return Verdict(verdict, r.to_json(), r.reason, extra)
    target = prompt["target"]
    checked = prompt.get("checked_notion") or checked_notion(target)
    insts, models = _insts(prompt, entry)
    p = read("outcome", answer, mode=mode, agents=side_a(insts), partners=partners_of(insts))
    role = where(target, insts)[0]
    optima = dict(zip(task["notions"], (lab["solution"] for lab in entry.labels))) \
        if not hard else {}
    facts: dict = {}
    if p.kind == "value":
        mem = memberships(insts, models, p.value, optima)
        valid = bool(mem.get(f"valid_{role}"))
        facts = {"valid": valid, "satisfies": bool(mem.get(checked))}
        if valid:
            extra["satisfies"] = [x for x in SETTINGS.get(task.get("setting", ""), {}).get(
                "notions", [target]) if mem.get(x)] if not hard else \
                [x for x in (target, *HARD[target]["related"]) if mem.get(x)]
            facts["weak_core_only"] = target == "core" and checked == "strict_core" and \
                not mem.get("strict_core") and bool(mem.get("weak_core"))
        elif role == "hm" and missing_agents(p.value, side_a(insts), partners_of(insts)):
            facts["left_out"] = missing_agents(p.value, side_a(insts), partners_of(insts))
        else:
            facts["unacceptable"] = one_to_one(p.value, side_a(insts), partners_of(insts))
    elif p.kind == "none" and feasible and escape:
        facts["empty_solves"] = bool(memberships(insts, models, {}, optima).get(target))
    extra["outcome_valid"] = bool(facts.get("valid"))
    verdict, rule = judge_outcome(p, feasible=feasible, escape=escape, **facts)
    if rule:
        extra["rule"] = rule
    if rule == "empty_on_feasible":
        extra["invalid_solution"] = True
    if rule == "R11:empty_outcome_solves":
        p = Reading("ambiguous", None, f"{p.rule}/{rule}")
    if p.kind == "value" and not (facts.get("valid") or facts.get("left_out")
                                  or facts.get("unacceptable")):
        p = Reading("invalid", p.value, f"{p.rule}/not_one_to_one",
                    "not a valid one-to-one outcome")
    reason: Any = p.reason
    if verdict == "incorrect" and facts.get("valid"):
        reason = _refutation(insts, models, p.value, checked)
    elif rule == "F.2.1:unacceptable_partner":
        reason = "assigns a partner missing from an agent's list (unacceptable)"
    elif rule == "R13:left_out_agent":
        reason = f"{', '.join(facts['left_out'])} left without a house: keeping the " \
                 f"endowment blocks (individual rationality)"
    elif rule == "empty_on_feasible":
        reason = "empty answer on a feasible instance"
    elif verdict == "invalid" and not reason:
        reason = "not a valid one-to-one outcome" if not escape or feasible else \
            "only {} claims that no solution exists"
    return Verdict(verdict, p.to_json(), reason, extra)


def _valid_for(insts, models, role, outcome) -> bool:
    from ...pipeline.classify import classify
    return "invalid" not in classify(insts[role]["domain"], models[role], [outcome])[0]


STABILITY = {"stable": "weak", "weakly_stable": "weak", "strongly_stable": "strong",
             "super_stable": "super"}
BLOCKING_RULE = {
    "weak": "both agents strictly prefer each other to their current partners",
    "strong": "one agent strictly prefers the other to its current partner and the other likes "
              "the first at least as much as its current partner",
    "super": "each agent likes the other at least as much as its current partner",
}
MAX_PAIRS, MAX_COALITIONS = 5, 3


def feedback(prompt: dict, answer: str, entry: Entry) -> str:
    """The refinement message for one answer (Khanna & Wang 2026, App. O): what is violated,
    never how to fix it, never whether a solution exists. An empty answer on a feasible
    instance is told a valid outcome exists; a wrong core allocation gets the number of
    blocking coalitions and up to three member sets; a wrong matching the number of blocking
    pairs and up to five of them; an unreadable answer a format reminder."""
    v = score(prompt, answer, entry)
    task, cell = prompt["task"], prompt["cell"]
    kind = task["kind"]
    what = OUTCOME[kind]
    if v.verdict == "correct":
        return "Your answer is correct."
    if v.verdict == "timeout":
        return "No answer was received."
    if cell["task"] == "selection":
        if v.verdict == "invalid":
            return "Your answer could not be read: reply with one option letter inside " \
                   "answer tags, e.g. <answer>A</answer>."
        return "The option you chose is not correct."
    target = prompt["target"]
    checked = prompt.get("checked_notion") or checked_notion(target)
    d = definitions()[target]
    fmt = (f"Give the {what} as a JSON object inside <answer></answer> tags, mapping each "
           + ("agent of side A to its partner on side B." if kind == "matching"
              else "agent to the alternative it receives."))
    parsed = v.parsed or {}
    if parsed.get("kind") == "none":
        return f"A valid {d['label']} {what} exists, but you returned an empty {what}."
    if parsed.get("kind") != "value" and parsed.get("value") is None:
        return f"Your answer could not be read. {fmt}"
    if not v.extra.get("outcome_valid"):
        r = v.reason if isinstance(v.reason, str) else "it does not assign each agent at " \
            "most one alternative, each alternative at most once, among acceptable ones"
        return f"Your answer is not a valid {what}: {r}. {fmt}"
    insts, models = _insts(prompt, entry)
    outcome = parsed["value"]
    if target in ("core", "strict_core", "weak_core"):
        from ...oracles.housing_market import blocking_coalitions
        kind_ = "weak" if checked == "weak_core" else "strict"
        bc = blocking_coalitions(models["hm"], outcome, kind_, max_cycles=2000, time_limit=60.0)
        sets = ["{" + ", ".join(c["coalition"]) + "}" for c in bc.coalitions[:MAX_COALITIONS]]
        total = len(bc.coalitions)
        more = f" (showing {len(sets)})" if total > len(sets) else ""
        atleast = "at least " if not bc.complete else ""
        rule = ("every member gets a house it likes strictly more" if kind_ == "weak" else
                "every member gets a house it likes at least as much and one gets one it "
                "likes strictly more")
        return (f"Your allocation is not in the {d['label']}: {atleast}{total} blocking "
                f"coalition(s){more}: {'; '.join(sets)}. A coalition blocks when its members "
                f"can swap the houses they were endowed with so that {rule}.")
    if target in STABILITY:
        from ...formal.checker.stable_matching import blocking_pairs
        pairs = blocking_pairs(models["sm"], outcome, STABILITY[target])
        shown = ", ".join(f"({a},{b})" for a, b in pairs[:MAX_PAIRS])
        more = f" (showing {MAX_PAIRS})" if len(pairs) > MAX_PAIRS else ""
        return (f"Your matching is not {d['label']}: {len(pairs)} blocking pair(s){more}: "
                f"{shown}. A pair blocks when {BLOCKING_RULE[STABILITY[target]]}.")
    why = {"pareto_optimal": "another allocation makes some agent better off and nobody worse off",
           "max_cardinality_pareto_optimal": "it is not Pareto optimal among the allocations "
                                             "that assign the most agents",
           "utilitarian": "another outcome of maximum size has a smaller sum of ranks",
           "egalitarian": "another outcome of maximum size has a smaller worst rank",
           "rank_maximal": "another outcome has a lexicographically larger rank profile"}
    return f"Your {what} is not {d['label']}: {why.get(target, 'it fails the definition')}."


def metrics(scores: Sequence[dict]) -> list[dict]:
    rows = accuracy_rows(scores, ("design", "setting", "notion", "feasible", "size", "task",
                                  "escape"))
    hard = lambda s: s["cell"]["design"] == "hard"
    rows += accuracy_rows(scores, ("notion", "size", "feasible", "task", "escape"),
                          "accuracy_E_NE", where=hard)
    rows += accuracy_rows(scores, ("notion", "size", "escape"), "invalid_solution_rate",
                          where=lambda s: hard(s) and s["cell"]["task"] == "generation"
                          and s.get("feasible") and s["verdict"] != "timeout",
                          success=lambda s: s["verdict"] == "invalid"
                          or bool(s.get("invalid_solution")))
    rows += accuracy_rows(scores, ("size", "escape", "feasible"), "selection_accuracy",
                          where=lambda s: hard(s) and s["cell"]["task"] == "selection")
    rows += accuracy_rows(scores, ("size", "feasible"), "nota_selection_rate",
                          where=lambda s: hard(s) and s["cell"]["task"] == "selection"
                          and s["cell"].get("escape"), success=lambda s: bool(s.get("nota")))
    std = lambda s: s["cell"]["design"] == "standard"
    rows += accuracy_rows(scores, ("setting", "size", "task"), "standard_accuracy", where=std)
    sel = [s for s in scores if std(s) and s["cell"]["task"] == "selection" and "selected" in s]
    groups: dict = {}
    for s in sel:
        groups.setdefault((s["cell"]["setting"], s["cell"]["size"]), []).append(s)
    for (setting, size), ss in sorted(groups.items()):
        for notion in SETTINGS[setting]["notions"] + ["contaminated"]:
            k = sum(1 for s in ss if (s["selected"] == notion if notion == "contaminated"
                                      else notion in s.get("selected_satisfies", [])))
            rows.append(proportion("selected_satisfies", {"setting": setting, "size": size,
                                                          "notion": notion}, k, len(ss)))
    return rows


def results(scores: Sequence[dict]) -> list:
    """The suite's result sets: the paper's hard-notion, selection, refinement, per-notion
    and model-comparison tables and figures from the scores of any number of models
    (:mod:`prefcert.bench.indeterminacy.algorithmic_results`)."""
    from .algorithmic_results import result_sets
    return result_sets(scores)


def _hard_rows(scores: Sequence[dict], task: str, hatch: str, where=None,
               success=None) -> list[dict]:
    """Accuracy rows of hard prompts of ``task`` by notion and size apart (x: ``notion,
    n = size``), hue: E / NE and ``hatch`` offered or not."""
    rows = accuracy_rows([s for s in scores if s["cell"]["task"] == task
                          and (where is None or where(s))],
                         ("notion", "size", "feasible", "escape"), success=success)
    for r in rows:
        g = r["group"]
        g["notion"] = f"{g.pop('notion')}, n = {g.pop('size')}"
        e = "E" if g.pop("feasible") else "NE"
        g["condition"] = f"{e}, {'with' if g.pop('escape') else 'without'} {hatch}"
    return rows


def plots(scores: Sequence[dict], report) -> None:
    """The suite's figures on one model's (or pooled) scores; n = 10 and 30 are always
    separate bars (the paper's point is the drop between them)."""
    std = [s for s in scores if s["cell"]["design"] == "standard"]
    hard = [s for s in scores if s["cell"]["design"] == "hard"]
    if std:
        report.bar_chart("Standard tasks: accuracy by setting and size (95 % Wilson)",
                         accuracy_rows(std, ("setting", "size")), x="setting", hue="size")
    if hard:
        report.bar_chart("Hard notions, generation: E / NE accuracy by hatch and size",
                         _hard_rows(hard, "generation", "{}"), x="notion", hue="condition")
        report.bar_chart("Hard notions, selection accuracy by NOTA and size",
                         _hard_rows(hard, "selection", "NOTA"), x="notion", hue="condition")
        nota = accuracy_rows([s for s in hard if s["cell"]["task"] == "selection"
                              and s["cell"].get("escape")], ("notion", "size", "feasible"),
                             success=lambda s: bool(s.get("nota")))
        for r in nota:
            g = r["group"]
            g["notion"] = f"{g.pop('notion')}, n = {g.pop('size')}"
            g["instances"] = "feasible" if g.pop("feasible") else "infeasible"
        report.bar_chart("NOTA selection rate by size (wrong when feasible, right when "
                         "infeasible)", nota, x="notion", hue="instances")
    sel = [s for s in std if s["cell"]["task"] == "selection" and "selected" in s]
    if sel:
        settings = sorted({s["cell"]["setting"] for s in sel})
        cols = sorted({x for st in settings for x in SETTINGS[st]["notions"]}) + ["contaminated"]
        matrix = []
        for st in settings:
            ss = [s for s in sel if s["cell"]["setting"] == st]
            matrix.append([sum(1 for s in ss if (s["selected"] == c if c == "contaminated"
                                                 else c in s["selected_satisfies"])) / len(ss)
                           for c in cols])
        report.heatmap("Which notion the selected option satisfies (share of selections)",
                       matrix, rows=settings, cols=cols)


def calibration(stats: dict) -> list[dict]:
    out = []
    merged: dict = {}
    for key, c in stats.items():
        tag = json.loads(key)
        if set(tag) == {"notion", "size"}:
            m = merged.setdefault((tag["notion"], tag["size"]), Counter())
            m.update(c)
    for (notion, n), c in sorted(merged.items()):
        out.append({"notion": notion, "n": n, "draws": c["draws"],
                    "no_solution": c["no_solution"],
                    "share_no_solution": round(c["no_solution"] / c["draws"], 4)})
    return out


def _scaling_cell(cell: Mapping[str, Any]) -> bool:
    """The cells of the paper's size comparison (App. J.3, Fig. 4a): standard tasks under
    strict complete preferences (HA-SO, OA-SO, SM-SO), one per notion — 13 per answers
    file, i.e. per model (the paper counts 53 over four models)."""
    return (cell.get("design") == "standard" and SETTINGS[cell["setting"]]["pref"] == "SO"
            and cell.get("task") in SETTINGS[cell["setting"]]["notions"])


def _tools(v: Any) -> str:
    if v not in TOOLS:
        raise ValueError(f"tools is {' or '.join(TOOLS)}, not {v!r}")
    return str(v)


SUITE_NAME = "indeterminacy-algorithmic"
PARAMETERS = {
    "max_draws": Parameter("max_draws", MAX_DRAWS, int_in(1, MAX_DRAWS_LIMIT),
                           "draw budget per instance of the rejection samplers (default "
                           "200,000): a cell with no acceptable draw within it is refused, "
                           "naming the cell; a progress line every 500 draws"),
    "tools": Parameter("tools", "none", _tools,
                       "none (the in-context benchmark, the default) or code: the "
                       "code-assisted design of Table 29 (strict core and super stability, "
                       "feasible and infeasible, generation with the {} hatch, 10 "
                       "instances per cell, sizes 10, 30, 50 by default; the prompt adds a "
                       "code-execution tool and the time budget; scoring unchanged)",
                       variants=("code",)),
    "time_budget": Parameter("time_budget", TIME_BUDGET, int_in(1, 240),
                             "minutes per response stated in a code-assisted prompt "
                             "(default 20, the paper's; 1 to 240)"),
}


def code_rows(sizes: Sequence[int]) -> list[Row]:
    """The code-assisted design table (K&W 2026, Table 29): per size, strict core
    (Shapley–Scarf market) and super stability (matching market), feasible and
    infeasible, one generation prompt with the ``{}`` hatch each. O(len(sizes))."""
    return [Row({"design": "hard", "notion": x, "feasible": feasible, "size": n,
                 "tools": "code"}, [{"task": "generation", "escape": True}])
            for n in sorted(set(sizes)) for x in CODE_NOTIONS for feasible in (True, False)]


#: the domains whose engines, checkers and labels the draws and their labels use
_DOMAINS = ("house_allocation", "housing_market", "stable_matching")


def _preload() -> None:
    """Import what sampling and labelling the suite load (the oracles, scipy, networkx,
    the domains' engines and checkers, the labelling pipeline) in this process, the
    suite's ``preload`` hook: ``generate`` calls it before it forks its sampling and
    labelling workers, which then share these modules instead of each importing them
    again (about 0.6 s of CPU a worker, four workers with ``--jobs 2``). O(1) after the
    first call."""
    from ...oracles import house_allocation, housing_market, stable_matching  # noqa: F401
    from ...pipeline import jobs  # noqa: F401
    from ...pipeline.registry import domain, spec
    for name in _DOMAINS:
        domain(name)
        spec(name)
    # what is loaded now lives as long as the process: out of the collector's reach, the
    # workers' collections scan only the draws' objects (about 5 % of a worker's CPU)
    gc.freeze()


def configure(suite: Suite, params: dict, sizes: Sequence[int] | None) -> Suite:
    """The design for ``params`` (max_draws, tools, time_budget) and the sizes kept:
    sizes within :data:`SIZE_LIMITS` (refused with one line outside them); the default
    parameters at sizes among 10 and 30 give the registered design unchanged (same
    bytes)."""
    code = params["tools"] == "code"
    kept = check_sizes(suite.name, tuple(sizes) if sizes is not None else
                       (CODE_SIZES if code else SIZES), SIZE_LIMITS,
                       "below 8 a menu rarely holds its distinct candidates; above 60 "
                       "feasible strict-core draws are too rare to certify in time")
    if not code and set(kept) <= set(SIZES):
        return suite
    if code:
        return replace(suite, sizes=kept, rows=code_rows, per_cell=CODE_PER_CELL,
                       expected_total=None,
                       description=f"Code-assisted structural indeterminacy (Khanna & Wang "
                                   f"2026, §5, Table 29): strict core and super stability, "
                                   f"feasible and infeasible, at n = "
                                   f"{', '.join(map(str, kept))}; the model may run code "
                                   f"within {params['time_budget']} minutes.")
    return replace(suite, sizes=kept, expected_total=None,
                   description=f"{suite.description} Sizes: n = "
                               f"{', '.join(map(str, kept))}.")


SUITE = Suite(
    name="indeterminacy-algorithmic",
    description="Structural indeterminacy: standard allocation and matching tasks, and the "
                "hard notions strict core, strong and super stability (feasible and "
                "infeasible; generation with and without the {} hatch, selection with and "
                "without none-of-the-above), at n = 10 and 30 (Khanna & Wang 2026, §4).",
    sizes=SIZES, per_cell=30, seed=0, rows=rows, sample=sample, render=render, gold=gold,
    score=score, metrics=metrics, feedback=feedback, plots=plots, results=results,
    calibration=calibration,
    calibration_title="calibration: raw draws without a solution",
    parameters=PARAMETERS, configure=configure, preload=_preload,
    expected_total=3660, readings=READINGS, templates=TEMPLATES, size_tests=SizeTests(
        "Khanna & Wang (2026), App. J.3: small vs modest markets (n = 10 vs 30), the "
        "generation task of every notion under strict complete preferences (Fig. 4a)",
        _scaling_cell),
    citation=('Khanna, S. and Wang, X. (2026). '
              '"Preference reasoning under indeterminacy in large language models".'
              ' arXiv:2608.18631.'),
)
