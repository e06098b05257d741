"""Decision tasks under actionable indeterminacy: act, ask, or relax (the model).

A *task* fixes a decision structure, its fully specified content, and exactly one source of
uncertainty (Li et al. 2026, "Ask, Relax, or Act?"):

========================  ============================  =====================================
structure                 action                        constraints (``type``)
========================  ============================  =====================================
``allocation``            a bijection agents -> items   ``require`` / ``forbid`` (agent, item)
``scheduling``            one slot (item)               ``unavailable`` (participant, slot)
``apartment``             one apartment (item)          ``max`` (attribute ≤ value)
``stable_matching``       a perfect matching A -> B     ``forced`` / ``forbidden`` (a, b)
========================  ============================  =====================================

``agents`` are the allocation agents, the meeting participants, the residents, or side A of
the market; ``items`` are the objects, the slots, the apartments, or side B. Every agent
ranks every item strictly (best first); in ``stable_matching`` every item ranks every agent
too.

Sources (``source``):

- ``preference``: some agent's list holds a block ``{"unknown": [a, b]}``: those items sit at
  those consecutive positions in an order that is *unknown* — never indifference. The
  admissible worlds are the completions (every order of every block). The benchmark's
  tasks hide exactly one adjacent comparison (one block of two, two worlds); larger and
  several blocks are the "many completions" extension.
- ``objective``: ``objectives`` lists the admissible objectives (the menu); one world each.
- ``constraint``: one world; ``constraints`` may be infeasible, and ``permitted_edits``
  names the constraints a repair may change (cost = number of edited constraints; a ``max``
  threshold is raised to a stated integer, any other constraint is removed).

Objectives: for ``allocation``, ``scheduling`` and ``apartment`` the agents' ranks of what
they get (the chosen item, or their own object) are aggregated by ``utilitarian`` (minimum
total rank), ``egalitarian`` (minimum worst rank), ``rank_maximal`` (lexicographically most
first choices, then second, …) or ``leximin`` (lexicographically fewest agents at the worst
rank, then the next…). For ``stable_matching`` the accepted action is a stable matching:
``a_optimal`` (the A-proposing deferred-acceptance outcome), ``b_optimal``, ``egalitarian``
(minimum total rank of both sides) or ``minimum_regret`` (minimum worst rank of both
sides). Every optimum tie is accepted.

Readings the source leaves open are named options of ``reading`` (defaults first):
``constraint_acceptance`` — ``optimal`` (a constraint-source action must be optimal among
the feasible ones) or ``feasible`` (every feasible action is accepted);
``matching_constraints`` — ``sublattice`` (the feasible actions are the stable matchings
that satisfy the forced / forbidden pairs; the accepted one is optimal among them) or
``da_only`` (the only candidate is the unconstrained objective's matching, feasible iff it
satisfies the constraints).

This module is the model: parsing, the worlds, the constraint sets. What is accepted in a
world and the certificates are defined and checked in :mod:`prefcert.formal.checker.decision`.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from .errors import InstanceError

STRUCTURES = ("allocation", "scheduling", "apartment", "stable_matching")
SOURCES = ("preference", "objective", "constraint")
#: the verdict words, and the decision strings of the benchmark they stand for
VERDICTS = ("act", "ask_preference", "ask_objective", "relax")
DECISION_STRINGS = {"act": "ACT", "ask_preference": "ASK-PREFERENCE",
                    "ask_objective": "ASK-OBJECTIVE", "relax": "RELAX"}
#: the verdict that intervenes for each source
INTERVENTION = {"preference": "ask_preference", "objective": "ask_objective",
                "constraint": "relax"}

RANK_OBJECTIVES = ("utilitarian", "egalitarian", "rank_maximal", "leximin")
MATCHING_OBJECTIVES = ("a_optimal", "b_optimal", "egalitarian", "minimum_regret")
OBJECTIVES = {"allocation": RANK_OBJECTIVES, "scheduling": RANK_OBJECTIVES,
              "apartment": RANK_OBJECTIVES, "stable_matching": MATCHING_OBJECTIVES}
CONSTRAINT_TYPES = {"allocation": ("require", "forbid"), "scheduling": ("unavailable",),
                    "apartment": ("max",), "stable_matching": ("forced", "forbidden")}
#: structure -> the words for agents and items (prompts, messages)
NOUNS = {"allocation": ("agent", "object"), "scheduling": ("participant", "slot"),
         "apartment": ("resident", "apartment"), "stable_matching": ("proposer", "receiver")}
READINGS = {"constraint_acceptance": ("optimal", "feasible"),
            "matching_constraints": ("sublattice", "da_only")}
#: more worlds than this are refused (the extension enumerates every completion)
MAX_WORLDS = 5040


@dataclass(frozen=True)
class Constraint:
    """One stated hard constraint. ``type`` per structure (module table); pair constraints
    carry ``agent`` and ``item``; a ``max`` threshold carries ``attribute`` and ``value``."""

    id: str
    type: str
    agent: str | None = None
    item: str | None = None
    attribute: str | None = None
    value: int | None = None

    @property
    def editable_by(self) -> str:
        """The elementary edit of this constraint: ``raise`` (thresholds) or ``remove``."""
        return "raise" if self.type == "max" else "remove"

    def to_json(self) -> dict:
        out: dict[str, Any] = {"id": self.id, "type": self.type}
        for k in ("agent", "item", "attribute", "value"):
            if getattr(self, k) is not None:
                out[k] = getattr(self, k)
        return out


@dataclass(frozen=True)
class World:
    """One admissible world: a complete strict ranking for every ranking party
    (``prefs``: name -> tuple best first), the objective, and the ``completion`` (the full
    lists of the parties whose observed list had unknown blocks)."""

    prefs: Mapping[str, tuple[str, ...]]
    objective: str
    completion: Mapping[str, tuple[str, ...]]

    def descriptor(self) -> dict:
        """The JSON form used in certificates: ``{"preferences": completion, "objective"}``."""
        return {"preferences": {a: list(o) for a, o in self.completion.items()},
                "objective": self.objective}

    def rank(self, who: str, x: str) -> int:
        return self.prefs[who].index(x) + 1


@dataclass(frozen=True)
class DecisionTask:
    """A decision task (see the module docstring).

    ``prefs``: ranking party -> tuple of blocks, each a tuple of items; a block of more
    than one item is an unknown order. ``objectives``: the menu (one objective unless the
    source is ``objective``). ``attributes``: item -> attribute -> int (apartments).
    ``constraints`` in input order; ``permitted``: ids of the editable constraints;
    ``reading``: option -> value (defaults filled in).
    """

    structure: str
    source: str
    agents: tuple[str, ...]
    items: tuple[str, ...]
    prefs: Mapping[str, tuple[tuple[str, ...], ...]]
    objectives: tuple[str, ...]
    constraints: tuple[Constraint, ...] = ()
    permitted: tuple[str, ...] = ()
    attributes: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    reading: Mapping[str, str] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """max(#agents, #items): the n used to pick engines."""
        return max(len(self.agents), len(self.items))

    @property
    def parties(self) -> tuple[str, ...]:
        """Everyone who ranks: the agents, and in ``stable_matching`` the items too."""
        return self.agents + self.items if self.structure == "stable_matching" else self.agents

    def constraint(self, cid: str) -> Constraint:
        for c in self.constraints:
            if c.id == cid:
                return c
        raise KeyError(cid)

    @property
    def constraint_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.constraints)

    def unknown_blocks(self) -> list[tuple[str, tuple[str, ...]]]:
        """(party, block) for every block of an unknown order, in party order. Found once
        per task (O(size)) and kept: the engines, the checker and the engine choice ask
        for them, or for :meth:`world_count`, many times per label."""
        found = self.__dict__.get("_unknown_blocks")
        if found is None:
            found = tuple((p, b) for p in self.parties for b in self.prefs[p] if len(b) > 1)
            object.__setattr__(self, "_unknown_blocks", found)   # a cache, not a field
        return list(found)

    def hidden_pairs(self) -> list[tuple[str, str, str]]:
        """(party, a, b) for every pair of items whose order is unknown (a before b in the
        block as written)."""
        return [(p, a, b) for p, blk in self.unknown_blocks()
                for a, b in itertools.combinations(blk, 2)]

    def world_count(self) -> int:
        n = 1
        for _, blk in self.unknown_blocks():
            n *= math.factorial(len(blk))
        return n * len(self.objectives)

    def worlds(self) -> list[World]:
        """Every admissible world, in a fixed order: completions (the product over the
        uncertain parties, in party order, of every order of each block, in
        :func:`itertools.permutations` order) × objectives (menu order).

        Built once per task and kept (the oracle, the CP-SAT engine and the checker each
        ask for them): the worlds' lists are read-only mappings, so no reader can change
        what another reads. O(worlds × size) the first time, O(worlds) after."""
        found = self.__dict__.get("_worlds")
        if found is None:
            found = tuple(self._build_worlds())
            object.__setattr__(self, "_worlds", found)           # a cache, not a field
        return list(found)

    def _flat_lists(self) -> dict[str, tuple[str, ...]]:
        """party -> its list with every block read in the order written (party order).
        Kept, and shared with the tasks :meth:`derive` and :meth:`edited` make from this
        one (their lists flatten alike). O(size) the first time."""
        found = self.__dict__.get("_flat")
        if found is None:
            chain = itertools.chain.from_iterable
            found = {p: tuple(chain(self.prefs[p])) for p in self.parties}
            object.__setattr__(self, "_flat", found)             # a cache, not a field
        return found

    def _world_pool(self) -> dict[tuple[Any, ...], World]:
        """(completion as (party, order) pairs, objective) -> its World, shared by every
        task derived from one parse (:meth:`derive`, :meth:`edited`): they have the same
        flattened lists, so a completion and an objective fix the world. A world is built
        once per lineage and its readers' caches kept with it."""
        found = self.__dict__.get("_pool")
        if found is None:
            found = {}
            object.__setattr__(self, "_pool", found)             # a cache, not a field
        return found

    def _build_worlds(self) -> list[World]:
        if self.world_count() > MAX_WORLDS:
            raise InstanceError(f"more than {MAX_WORLDS} admissible worlds",
                                value=self.world_count())
        flat = self._flat_lists()
        pool = self._world_pool()
        if not self.unknown_blocks():           # one completion, the lists as written
            empty: Mapping[str, tuple[str, ...]] = MappingProxyType({})
            known: Mapping[str, tuple[str, ...]] | None = None
            found = []
            for obj in self.objectives:
                w = pool.get(((), obj))
                if w is None:
                    if known is None:
                        known = MappingProxyType({p: flat[p] for p in self.parties})
                    w = pool[((), obj)] = World(known, obj, empty)
                found.append(w)
            return found
        per_party: list[tuple[str, list[tuple[str, ...]]]] = []
        chain = itertools.chain.from_iterable
        uncertain = dict.fromkeys(p for p, _ in self.unknown_blocks())
        for p in uncertain:
            blocks = self.prefs[p]
            orders = [tuple(chain(choice)) for choice in
                      itertools.product(*(itertools.permutations(b) for b in blocks))]
            per_party.append((p, orders))
        out = []
        names = [p for p, _ in per_party]
        parties = self.parties
        for choice in itertools.product(*(orders for _, orders in per_party)):
            ckey = tuple(zip(names, choice))
            prefs: Mapping[str, tuple[str, ...]] | None = None
            completion: Mapping[str, tuple[str, ...]] = MappingProxyType({})
            for obj in self.objectives:
                w = pool.get((ckey, obj))
                if w is None:
                    if prefs is None:
                        c = dict(ckey)
                        completion = MappingProxyType(c)
                        prefs = MappingProxyType({p: c[p] if p in c else flat[p]
                                                  for p in parties})
                    w = pool[(ckey, obj)] = World(prefs, obj, completion)
                out.append(w)
        return out

    def _derived(self, changes: Mapping[str, Any], blocks: tuple[Any, ...] | None = None
                 ) -> DecisionTask:
        """This task with the fields of ``changes`` replaced (not validated), keeping the
        caches that stay true: the flattened lists and the world pool (a derived task's
        lists flatten alike: :meth:`derive` only ever makes two known items a block), and
        the unknown blocks when the lists are unchanged (or ``blocks``: the new ones).
        Equal to ``dataclasses.replace``; O(fields)."""
        new = object.__new__(DecisionTask)
        d = new.__dict__
        mine = self.__dict__
        for f in _FIELDS:
            d[f] = changes[f] if f in changes else mine[f]
        for k in ("_flat", "_pool", "_lineage"):
            if k in mine:
                d[k] = mine[k]
        if "prefs" not in changes and "_unknown_blocks" in mine:
            d["_unknown_blocks"] = mine["_unknown_blocks"]
        elif blocks is not None:
            d["_unknown_blocks"] = blocks
        if "_flat" not in mine:                  # share from now on: build on this task
            d["_flat"] = self._flat_lists()
            d["_pool"] = self._world_pool()
        if "_lineage" not in mine:
            d["_lineage"] = self._lineage()
        return new

    def derive(self, *, source: str | None = None, objectives: Sequence[str] | None = None,
               hide: tuple[str, int] | None = None,
               constraints: Sequence[Mapping[str, Any]] | None = None,
               permitted: Sequence[str] | None = None) -> DecisionTask:
        """This task with some parts replaced, validated as :func:`parse_decision`
        validates them: ``source``; the ``objectives`` menu; ``hide`` = (party, pos): the
        party's (fully known) items at positions ``pos`` and ``pos + 1`` made an unknown
        block; ``constraints`` (JSON objects, as in the instance) and ``permitted`` (ids;
        default: none). ``derive(...)`` equals ``parse_decision`` of the correspondingly
        edited JSON (the samplers judge thousands of such variants of one base; the
        equality is tested). O(size) for ``hide``, O(constraints × items) for
        constraints."""
        changes: dict[str, Any] = {}
        new_blocks = None
        if source is not None:
            if source not in SOURCES:
                raise InstanceError(f"'source' must be one of {', '.join(SOURCES)}",
                                    value=source)
            changes["source"] = source
        if objectives is not None:
            changes["objectives"] = _objectives(list(objectives), self.structure)
        if hide is not None:
            party, pos = hide
            blocks = self.prefs[party]
            if not 0 <= pos < len(blocks) - 1 or len(blocks[pos]) != 1 or \
                    len(blocks[pos + 1]) != 1:
                raise InstanceError("hide: two known adjacent items", agent=party, value=pos)
            prefs = dict(self.prefs)
            prefs[party] = blocks[:pos] + ((blocks[pos][0], blocks[pos + 1][0]),) + \
                blocks[pos + 2:]
            changes["prefs"] = prefs
            if not self.unknown_blocks():               # the one block (the samplers' case)
                new_blocks = ((party, prefs[party][pos]),)
        if constraints is not None or permitted is not None:
            cons = tuple(_constraint(c, self.structure, self.agents, self.items,
                                     self.attributes) for c in (constraints or ()))
            changes["constraints"] = cons
            changes["permitted"] = _permitted(list(permitted or ()), cons)
        return _validated(self._derived(changes, new_blocks))

    def edited(self, edits: Sequence[Mapping[str, Any]]) -> DecisionTask:
        """This task with a repair applied, as the samplers' ``apply_edits`` applies it to
        the JSON: an edit with ``value`` sets that constraint's threshold, one without
        drops the constraint and its permitted edit. O(constraints + edits)."""
        by = {e["constraint"]: e for e in edits}
        cons = []
        for c in self.constraints:
            e = by.get(c.id)
            if e is None:
                cons.append(c)
            elif "value" in e:
                if c.type != "max":
                    raise InstanceError("unknown constraint field", value="value")
                cons.append(Constraint(c.id, c.type, c.agent, c.item, c.attribute,
                                       e["value"]))
        dropped = {c for c, e in by.items() if "value" not in e}
        return _validated(self._derived({
            "constraints": tuple(cons),
            "permitted": tuple(x for x in self.permitted if x not in dropped)}))

    def _lineage(self) -> dict[str, Any]:
        """What this task shares with the tasks :meth:`derive` and :meth:`edited` make
        from it (the same names, lists that flatten alike, the same attributes), filled
        on first use: ``"ints"`` the :class:`_IntsBase`."""
        found = self.__dict__.get("_lineage")
        if found is None:
            found = {}
            object.__setattr__(self, "_lineage", found)          # a cache, not a field
        return found

    def _ints_base(self) -> _IntsBase:
        """The integer numbering of the names and the lists as written, shared by the
        lineage (:meth:`_lineage`). O(size) the first time in a lineage."""
        shared = self.__dict__.get("_lineage")
        if shared is None:
            shared = self._lineage()
        found = shared.get("ints")
        if found is None:
            found = shared["ints"] = _IntsBase.of(self)
        return found

    def ints(self) -> DecisionInts:
        """This task as integers (:class:`DecisionInts`), built once and kept. O(size) the
        first time (O(blocks + constraints) for a task derived from a built one)."""
        found = self.__dict__.get("_ints")
        if found is None:
            found = DecisionInts.of(self, self._ints_base())
            object.__setattr__(self, "_ints", found)             # a cache, not a field
        return found

    def __getstate__(self) -> dict[str, Any]:
        """The fields only (pickling): the caches — worlds, flattened lists, the world
        pool shared with related tasks — are rebuilt on demand after unpickling."""
        return {f: self.__dict__[f] for f in _FIELDS}

    def base_constraints(self) -> dict[str, Constraint]:
        """The stated constraints, id -> constraint."""
        return {c.id: c for c in self.constraints}

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "structure": self.structure, "source": self.source, "agents": list(self.agents),
            "items": list(self.items),
            "preferences": {p: [b[0] if len(b) == 1 else {"unknown": list(b)}
                                for b in self.prefs[p]] for p in self.parties},
            "objectives": list(self.objectives)}
        if self.attributes:
            out["attributes"] = {i: dict(a) for i, a in self.attributes.items()}
        if self.constraints:
            out["constraints"] = [c.to_json() for c in self.constraints]
        if self.permitted:
            out["permitted_edits"] = list(self.permitted)
        nondefault = {k: v for k, v in self.reading.items() if v != READINGS[k][0]}
        if nondefault:
            out["reading"] = nondefault
        return out


#: the fields of a DecisionTask, in order (:meth:`DecisionTask._derived`)
_FIELDS = tuple(f.name for f in fields(DecisionTask))


# --------------------------------------------------------------------------- integer form

#: constraint type -> its integer code in :attr:`DecisionInts.constraints`
CONSTRAINT_CODES = {"require": 0, "forbid": 1, "unavailable": 2, "max": 3, "forced": 4,
                    "forbidden": 5}


@dataclass(frozen=True)
class _IntsBase:
    """The part of the integer form a task shares with the tasks derived from it: the
    numbering, the lists as written, the attribute matrix."""

    agent_index: Mapping[str, int]
    item_index: Mapping[str, int]
    party_index: Mapping[str, int]
    lists: tuple[tuple[int, ...], ...]
    ranks: tuple[tuple[int, ...], ...]
    attribute_names: tuple[str, ...]
    attribute_index: Mapping[str, int]
    attributes: tuple[tuple[int, ...], ...]

    @staticmethod
    def of(task: DecisionTask) -> _IntsBase:
        ai = {a: k for k, a in enumerate(task.agents)}
        ii = {i: k for k, i in enumerate(task.items)}
        flat = task._flat_lists()
        lists = [tuple(map(ii.__getitem__, flat[a])) for a in task.agents]
        party = dict(ai)
        if task.structure == "stable_matching":
            lists += [tuple(map(ai.__getitem__, flat[i])) for i in task.items]
            n = len(task.agents)
            party.update((i, n + k) for k, i in enumerate(task.items))
        names: tuple[str, ...] = ()
        if task.attributes:
            names = tuple(task.attributes[task.items[0]])
        attrs = tuple(tuple(task.attributes[i][k] for k in names) for i in task.items) \
            if names else ()
        return _IntsBase(MappingProxyType(ai), MappingProxyType(ii), MappingProxyType(party),
                         tuple(lists), tuple(map(_ranks_of, lists)), names,
                         MappingProxyType({k: j for j, k in enumerate(names)}), attrs)


def _ranks_of(lst: Sequence[int]) -> tuple[int, ...]:
    """The 1-based rank of every int in the complete list ``lst`` (a permutation)."""
    r = [0] * len(lst)
    for k, x in enumerate(lst, 1):
        r[x] = k
    return tuple(r)


@dataclass(frozen=True)
class DecisionInts:
    """A decision task held as integers: agents ``0..n-1`` and items ``0..m-1`` in input
    order; a ranking party ``p`` is ``0..n-1`` (the agents) or, in ``stable_matching``,
    ``n + j`` (item ``j``). The names are kept (``agents``, ``items``) for output and
    messages; ``agent_index`` / ``item_index`` map them back.

    ``lists[p]``: party ``p``'s list as written (every unknown block in its written
    order), integers of the other side, best first. ``blocks``: ``(p, start, length)`` of
    every unknown block, in party order (:meth:`DecisionTask.unknown_blocks`).
    ``constraints``: per stated constraint, in input order, ``(code, agent, item,
    attribute, value)`` — :data:`CONSTRAINT_CODES`; −1 where a field is absent, ``value``
    0 for a pair constraint. ``constraint_index``: id -> position; ``permitted``: the
    positions of the permitted edits. ``attributes[i][k]``: apartment ``i``'s value of
    attribute ``attribute_names[k]``. Immutable; built in one pass over the parsed task
    (:meth:`DecisionTask.ints`)."""

    agents: tuple[str, ...]
    items: tuple[str, ...]
    agent_index: Mapping[str, int]
    item_index: Mapping[str, int]
    lists: tuple[tuple[int, ...], ...]
    blocks: tuple[tuple[int, int, int], ...]
    constraints: tuple[tuple[int, int, int, int, int], ...]
    constraint_index: Mapping[str, int]
    permitted: tuple[int, ...]
    attribute_names: tuple[str, ...]
    attribute_index: Mapping[str, int]
    attributes: tuple[tuple[int, ...], ...]

    @staticmethod
    def of(task: DecisionTask, base: _IntsBase) -> DecisionInts:
        ai, ii, ki = base.agent_index, base.item_index, base.attribute_index
        n = len(task.agents)
        party = {a: k for k, a in enumerate(task.agents)}
        if task.structure == "stable_matching":
            party.update((i, n + k) for k, i in enumerate(task.items))
        blocks = []
        for p, blk in task.unknown_blocks():
            start = 0
            for b in task.prefs[p]:
                if b == blk:
                    break
                start += len(b)
            blocks.append((party[p], start, len(blk)))
        cons = tuple((CONSTRAINT_CODES[c.type], -1 if c.agent is None else ai[c.agent],
                      -1 if c.item is None else ii[c.item],
                      -1 if c.attribute is None else ki[c.attribute],
                      0 if c.value is None else c.value) for c in task.constraints)
        cidx = {c.id: k for k, c in enumerate(task.constraints)}
        return DecisionInts(task.agents, task.items, ai, ii, base.lists, tuple(blocks),
                            cons, MappingProxyType(cidx),
                            tuple(cidx[c] for c in task.permitted), base.attribute_names,
                            ki, base.attributes)


def world_ranks(task: DecisionTask, world: World
                ) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """The world's lists as integers: ``(lists, ranks)`` per ranking party ``p``
    (:class:`DecisionInts` numbering): ``lists[p]`` its complete list best first and
    ``ranks[p][x]`` the 1-based rank of ``x`` in it. The lists as written (and their
    ranks) are the task's, shared; only the completed parties' are built. Kept on the
    world with the numbering it was built for (the worlds of one lineage share it).
    O(completed parties × size) the first time."""
    base = task._ints_base()
    got = world.__dict__.get("_int_ranks")
    if got is None or got[0] is not base:
        lists, ranks = base.lists, base.ranks
        if world.completion:
            ai, ii, party = base.agent_index, base.item_index, base.party_index
            n = len(task.agents)
            ls, rs = list(lists), list(ranks)
            for who, order in world.completion.items():
                p = party[who]
                lst = tuple(map((ii if p < n else ai).__getitem__, order))
                ls[p], rs[p] = lst, _ranks_of(lst)
            lists, ranks = tuple(ls), tuple(rs)
        got = (base, lists, ranks)
        object.__setattr__(world, "_int_ranks", got)             # a cache, not a field
    return got[1], got[2]


# --------------------------------------------------------------------------- constraint sets

@dataclass(frozen=True)
class ConstraintSet:
    """A set of constraints in force: id -> Constraint (after edits, a raised threshold
    carries its new value). Immutable; :meth:`edited` applies a repair."""

    by_id: Mapping[str, Constraint]

    def __iter__(self) -> Iterator[Constraint]:
        return iter(self.by_id.values())

    def __len__(self) -> int:
        return len(self.by_id)

    def subset(self, ids: Iterable[str]) -> ConstraintSet:
        return ConstraintSet({i: self.by_id[i] for i in ids})

    def without(self, ids: Iterable[str]) -> ConstraintSet:
        drop = set(ids)
        return ConstraintSet({i: c for i, c in self.by_id.items() if i not in drop})

    def edited(self, edits: Mapping[str, int | None]) -> ConstraintSet:
        """Apply edits: id -> None (remove) or id -> int (a threshold's new value)."""
        out = {}
        for i, c in self.by_id.items():
            if i not in edits:
                out[i] = c
            elif edits[i] is not None:
                out[i] = Constraint(c.id, c.type, c.agent, c.item, c.attribute, edits[i])
        return ConstraintSet(out)


def stated(task: DecisionTask) -> ConstraintSet:
    """The task's stated constraints as a :class:`ConstraintSet`."""
    return ConstraintSet(task.base_constraints())


# --------------------------------------------------------------------------- parsing

def _names(data: dict, key: str) -> tuple[str, ...]:
    v = data.get(key)
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and x for x in v):
        raise InstanceError(f"{key!r} must be a non-empty list of names", value=v)
    if len(set(v)) != len(v):
        raise InstanceError(f"{key!r} lists a name twice",
                            value=next(x for x in v if v.count(x) > 1))
    return tuple(v)


def _ranking(raw: object, party: str, over: tuple[str, ...],
             over_set: frozenset[str] | None = None) -> tuple[tuple[str, ...], ...]:
    if not isinstance(raw, list):
        raise InstanceError("a preference list must be a JSON list", agent=party, value=raw)
    if over_set is None:
        over_set = frozenset(over)
    blocks: list[tuple[str, ...]] = []
    for entry in raw:
        if entry.__class__ is str:                # (the common case first)
            blocks.append((entry,))
        elif isinstance(entry, str):
            blocks.append((entry,))
        elif isinstance(entry, dict) and set(entry) == {"unknown"} and \
                isinstance(entry["unknown"], list) and len(entry["unknown"]) >= 2 and \
                all(isinstance(x, str) for x in entry["unknown"]):
            blocks.append(tuple(entry["unknown"]))
        else:
            raise InstanceError("a list entry is a name or {\"unknown\": [two or more names]}"
                                " (a block of unknown order; ties are not allowed)",
                                agent=party, value=entry)
    seen = [x for b in blocks for x in b]
    distinct = set(seen)
    if len(distinct) != len(seen):
        raise InstanceError("item listed twice", agent=party,
                            value=next(x for x in seen if seen.count(x) > 1))
    if not distinct <= over_set:
        unknown = [x for x in seen if x not in over_set]
        raise InstanceError("ranks an unknown name", agent=party, value=unknown[0])
    if len(seen) != len(over):
        raise InstanceError("a decision task needs complete lists: every name of the other "
                            "side ranked", agent=party,
                            value=sorted(set(over) - set(seen))[0])
    return tuple(blocks)


def _constraint(raw: object, structure: str, agents, items, attributes) -> Constraint:
    if not isinstance(raw, dict):
        raise InstanceError("a constraint must be a JSON object", value=raw)
    cid, kind = raw.get("id"), raw.get("type")
    if not isinstance(cid, str) or not cid:
        raise InstanceError("a constraint needs a non-empty string 'id'", value=raw)
    if kind not in CONSTRAINT_TYPES[structure]:
        raise InstanceError(f"constraint type of {structure} must be one of "
                            f"{', '.join(CONSTRAINT_TYPES[structure])}", value=kind)
    if kind == "max":
        attr, value = raw.get("attribute"), raw.get("value")
        if not isinstance(attr, str) or any(attr not in a for a in attributes.values()):
            raise InstanceError("a 'max' constraint names an attribute every apartment has",
                                value=attr)
        if not isinstance(value, int) or isinstance(value, bool):
            raise InstanceError("a threshold value must be an integer", value=value)
        extra = set(raw) - {"id", "type", "attribute", "value"}
        if extra:
            raise InstanceError("unknown constraint field", value=sorted(extra)[0])
        return Constraint(cid, kind, attribute=attr, value=value)
    a, i = raw.get("agent"), raw.get("item")
    if a not in agents:
        raise InstanceError(f"constraint {cid!r} names an unknown agent", value=a)
    if i not in items:
        raise InstanceError(f"constraint {cid!r} names an unknown item", value=i)
    extra = set(raw) - {"id", "type", "agent", "item"}
    if extra:
        raise InstanceError("unknown constraint field", value=sorted(extra)[0])
    return Constraint(cid, kind, agent=a, item=i)


_KEYS = {"id", "domain", "questions", "structure", "source", "agents", "items", "preferences",
         "objectives", "objective", "attributes", "constraints", "permitted_edits", "reading",
         "meta"}


def parse_decision(data: dict) -> DecisionTask:
    """Parse a decision task (the JSON of :meth:`DecisionTask.to_json` plus the envelope).

    ``objective`` (one name) may stand for ``objectives``; ``meta`` is free-form and
    ignored. Raises :class:`InstanceError` naming the party and value for: an unknown
    structure, source, field, objective or constraint type; a list that is not a complete
    ranking of the other side; a tie (only blocks of unknown order exist); unequal sides
    where a bijection is needed; a source without its uncertainty (no unknown block for
    ``preference``, a block elsewhere, several objectives outside ``objective``); a
    permitted edit naming no constraint; more than :data:`MAX_WORLDS` worlds. O(size).
    """
    if not isinstance(data, dict):
        raise InstanceError("a decision task must be a JSON object", value=type(data).__name__)
    extra = set(data) - _KEYS
    if extra:
        raise InstanceError("unknown field of a decision task", value=sorted(extra)[0])
    structure, source = data.get("structure"), data.get("source")
    if structure not in STRUCTURES:
        raise InstanceError(f"'structure' must be one of {', '.join(STRUCTURES)}",
                            value=structure)
    if source not in SOURCES:
        raise InstanceError(f"'source' must be one of {', '.join(SOURCES)}", value=source)
    agents, items = _names(data, "agents"), _names(data, "items")
    if set(agents) & set(items):
        raise InstanceError("a name is both an agent and an item",
                            value=sorted(set(agents) & set(items))[0])
    if structure in ("allocation", "stable_matching") and len(agents) != len(items):
        raise InstanceError(f"{structure} needs as many items as agents",
                            value=[len(agents), len(items)])
    prefs = data.get("preferences")
    if not isinstance(prefs, dict):
        raise InstanceError("'preferences' must map every ranking party to its list",
                            value=prefs)
    parties = agents + items if structure == "stable_matching" else agents
    for p in prefs:
        if p not in parties:
            raise InstanceError("preferences of an unknown party", agent=p, value=None)
    parsed = {}
    agent_set, item_set = frozenset(agents), frozenset(items)
    for p in parties:
        if p not in prefs:
            raise InstanceError("party has no preference list", agent=p, value=None)
        parsed[p] = _ranking(prefs[p], p, *((items, item_set) if p in agent_set
                                            else (agents, agent_set)))
    objectives = data.get("objectives", None)
    if objectives is None and "objective" in data:
        objectives = [data["objective"]]
    objectives = _objectives(objectives, structure)
    attributes: dict[str, dict[str, int]] = {}
    if structure == "apartment":
        raw = data.get("attributes", {})
        if not isinstance(raw, dict) or set(raw) != set(items):
            raise InstanceError("'attributes' must give every apartment its attributes",
                                value=raw if not isinstance(raw, dict) else
                                sorted(set(items) ^ set(raw))[:1])
        keys = None
        for i in items:
            a = raw[i]
            if not isinstance(a, dict) or not all(
                    isinstance(v, int) and not isinstance(v, bool) for v in a.values()):
                raise InstanceError("attributes are name -> integer", agent=i, value=a)
            if keys is not None and set(a) != keys:
                raise InstanceError("every apartment needs the same attributes", agent=i,
                                    value=sorted(a))
            keys = set(a)
            attributes[i] = dict(a)
    elif "attributes" in data:
        raise InstanceError("only apartments have attributes", value=structure)
    raw_c = data.get("constraints", [])
    if not isinstance(raw_c, list):
        raise InstanceError("'constraints' must be a list", value=raw_c)
    constraints = tuple(_constraint(c, structure, agents, items, attributes) for c in raw_c)
    permitted = _permitted(data.get("permitted_edits", []), constraints)
    reading_raw = data.get("reading", {})
    if not isinstance(reading_raw, dict):
        raise InstanceError("'reading' must be an object", value=reading_raw)
    reading = {k: v[0] for k, v in READINGS.items()}
    for k, v in reading_raw.items():
        if k not in READINGS or v not in READINGS[k]:
            raise InstanceError(f"unknown reading (known: "
                                f"{'; '.join(f'{a}: {list(b)}' for a, b in READINGS.items())})",
                                value={k: v})
        reading[k] = v
    return _validated(DecisionTask(structure, source, agents, items, parsed, objectives,
                                   constraints, permitted, attributes, reading))


def _objectives(objectives: object, structure: str) -> tuple[str, ...]:
    if not isinstance(objectives, list) or not objectives:
        raise InstanceError("'objectives' must be a non-empty list", value=objectives)
    for o in objectives:
        if o not in OBJECTIVES[structure]:
            raise InstanceError(f"objective of {structure} must be one of "
                                f"{', '.join(OBJECTIVES[structure])}", value=o)
    if len(set(objectives)) != len(objectives):
        raise InstanceError("an objective is listed twice", value=objectives)
    return tuple(objectives)


def _permitted(permitted: object, constraints: tuple[Constraint, ...]) -> tuple[str, ...]:
    ids = [c.id for c in constraints]
    if len(set(ids)) != len(ids):
        raise InstanceError("two constraints share an id",
                            value=next(i for i in ids if ids.count(i) > 1))
    if not isinstance(permitted, list) or not all(isinstance(x, str) for x in permitted):
        raise InstanceError("'permitted_edits' must be a list of constraint ids",
                            value=permitted)
    for x in permitted:
        if x not in ids:
            raise InstanceError("a permitted edit names no constraint", value=x)
    if len(set(permitted)) != len(permitted):
        raise InstanceError("a permitted edit is listed twice", value=permitted)
    return tuple(permitted)


def _validated(task: DecisionTask) -> DecisionTask:
    """The checks of a whole task (its source against its blocks and menu, the number of
    worlds); returns ``task``."""
    source, objectives = task.source, task.objectives
    blocks = task.unknown_blocks()
    if source == "preference" and not blocks:
        raise InstanceError("a preference-source task needs an {\"unknown\": [...]} block",
                            value=None)
    if source != "preference" and blocks:
        raise InstanceError(f"a {source}-source task has fully known preferences; "
                            "an unknown block is found", agent=blocks[0][0],
                            value=list(blocks[0][1]))
    if source != "objective" and len(objectives) != 1:
        raise InstanceError(f"a {source}-source task has exactly one objective",
                            value=list(objectives))
    if task.world_count() > MAX_WORLDS:
        raise InstanceError(f"more than {MAX_WORLDS} admissible worlds",
                            value=task.world_count())
    return task


# --------------------------------------------------------------------------- actions

def action_key(task: DecisionTask, action: Any) -> Any:
    """A hashable canonical form of a well-formed action: the item (single-choice
    structures) or the sorted tuple of (agent, item) pairs. Raises ValueError for an action
    of the wrong shape (not an item / not a bijection); it does not judge constraints."""
    if task.structure in ("scheduling", "apartment"):
        if not isinstance(action, str) or action not in task.items:
            raise ValueError(f"not a {NOUNS[task.structure][1]} of the task: {action!r:.60}")
        return action
    if not isinstance(action, dict):
        raise ValueError(f"an assignment must be an object agent -> item, got {action!r:.60}")
    if set(action) != set(task.agents):
        missing = sorted(set(task.agents) - set(action))
        raise ValueError(f"the assignment must cover exactly the agents; "
                         f"{'missing ' + missing[0] if missing else 'unknown names'}")
    used: dict[str, str] = {}
    for a, i in action.items():
        if not isinstance(i, str) or i not in task.items:
            raise ValueError(f"{a!r} gets {i!r}, not an item of the task")
        if i in used:
            raise ValueError(f"{i!r} is given to both {used[i]!r} and {a!r}")
        used[i] = a
    return tuple(sorted(action.items()))


def action_json(task: DecisionTask, key: Any) -> Any:
    """The JSON form of a canonical action (:func:`action_key`'s inverse)."""
    return key if isinstance(key, str) else {a: i for a, i in key}
