"""Self-consistency of elicited judgments: the model (standard library only, exact rationals).

Two kinds of data, alone or together, make one *audit group* (one model answering under one
context):

**Cardinal** (willingness-to-pay answers; Ford et al. 2026). An *offer* is ``(item,
price)``. A ``pair`` cell holds the completions Y(a, b) of one offer-pair query: the payment
that makes the person indifferent to exchanging a = (x, p) for b = (y, q), an estimate of
U(b) − U(a). An ``item`` cell holds the answers Y(x) to "what would you pay for x", an
estimate of u(x). Utility is quasi-linear in money, U((x, p)) = u(x) − p, so the answers
are *exactly consistent* when some u satisfies

    Ȳ(a, b) = (u(y) − q) − (u(x) − p)  and  Ȳ(x) = u(x)

for every cell (Ȳ: the answer attributed to the cell, see ``unit``). Moving the known
prices to the answer side turns every cell into one *observation* of a linear system: a
pair cell is r = Ȳ(a, b) + q − p ≈ u(y) − u(x) (an arc x → y of the item graph), an item
cell is r = Ȳ(x) ≈ u(x) (an arc from the ground node, whose utility is 0, to x). The
consistent answer vectors are exactly the image of the arc–node incidence map A; how far
the answers are from it is the minimum weighted L1 / L2 adjustment ``min_u Σ w |r − Au|``
(``Σ w (r − Au)²``), whose LP / QP duals are circulations on the same graph
(:mod:`prefcert.formal.checker.consistency`).

``unit`` says what one observation is: ``cell`` (the cell mean, weight 1: adjust each
answer mean by the fewest dollars; the default), ``count`` (the cell mean with weight n_c:
shift every completion of a cell by the same amount) or ``completion`` (every completion
on its own, weight 1).

**Ordinal** (repeated pairwise choices, or rankings read as the choices they imply).
``choices``: ``[winner, loser, count]``; ``rankings``: lists best first, each adding one
choice per ordered pair. The *judgment graph* has an arc a → b ("a ≻ b") for every pair
whose ``majority`` of choices is a (weight 1; the default), or, with ``choices``, one arc
per direction chosen at least once, weighted by its count (so reversing the fewest
judgments is the linear ordering problem). An order (best first) *reverses* an arc a → b
when b comes before a.

Numbers are exact: JSON integers and decimals are read as the rationals they spell
(``12.5`` is 25/2), strings as ``"p/q"`` or decimals.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from .errors import InstanceError

QUESTIONS = ("l1_repair", "l2_repair", "transitive", "feedback_arc_set")
UNITS = ("cell", "count", "completion")
JUDGMENTS = ("majority", "choices")
#: question -> (parameter, its allowed values; the first is the default)
PARAMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "l1_repair": ("unit", UNITS), "l2_repair": ("unit", UNITS),
    "transitive": ("judgments", JUDGMENTS), "feedback_arc_set": ("judgments", JUDGMENTS)}


def to_fraction(value: object, what: str = "value") -> Fraction:
    """The exact rational a JSON number or string spells. Raises InstanceError for a
    boolean, a non-finite float or anything that is not a number."""
    if isinstance(value, bool):
        raise InstanceError(f"{what} must be a number", value=value)
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InstanceError(f"{what} must be finite", value=value)
        return Fraction(repr(value))        # the shortest decimal that reads back as value
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise InstanceError(f"{what} is not a rational number", value=value) from None
    raise InstanceError(f"{what} must be a number", value=value)


def fraction_text(x: Fraction) -> str:
    """``"p/q"`` (or ``"p"`` for an integer): the JSON text of an exact rational."""
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


@dataclass(frozen=True)
class Cell:
    """One query cell. ``kind`` is ``pair`` (``a``, ``b``: (item, price) offers) or ``item``
    (``item``); ``values``: its completions, exact."""

    id: str
    kind: str
    values: tuple[Fraction, ...]
    a: tuple[str, Fraction] | None = None
    b: tuple[str, Fraction] | None = None
    item: str | None = None

    @property
    def mean(self) -> Fraction:
        return sum(self.values, Fraction(0)) / len(self.values)

    @property
    def shift(self) -> Fraction:
        """What moves the answer to the utility side: q − p for a pair cell, 0 for an item."""
        return self.b[1] - self.a[1] if self.kind == "pair" else Fraction(0)

    @property
    def arc(self) -> tuple[str | None, str]:
        """(tail, head) in the item graph; the tail ``None`` is the ground node (u = 0)."""
        return (self.a[0], self.b[0]) if self.kind == "pair" else (None, self.item)


@dataclass(frozen=True)
class Observation:
    """One row of the linear system: ``r ≈ u(head) − u(tail)`` (u(None) = 0), weight ``w``
    (a positive integer), from cell ``cell``."""

    tail: str | None
    head: str
    r: Fraction
    w: int
    cell: str
    #: the tail and head as item integers (``-1``: the ground; :class:`ConsistencyInts`),
    #: ``-2`` when not known (an observation built by hand)
    t: int = field(default=-2, compare=False, repr=False)
    h: int = field(default=-2, compare=False, repr=False)


@dataclass(frozen=True, eq=False)
class ConsistencyInts:
    """An audit group held as integers: ``items`` (the utility items, numbered ``0..n-1``
    in first-seen order of the cells) with ``item_index``; per cell its arc ``tail[c]``
    → ``head[c]`` (``-1``: the ground) and its number of completions ``nvalues[c]``;
    ``nodes`` (the ordinal alternatives, numbered in first-seen order) with
    ``node_index``; the choices as aligned integer arrays ``winner``, ``loser``,
    ``count``. The oracles, the encodings and the checker read this form; the names are
    kept for output and messages."""

    items: tuple[str, ...]
    item_index: dict[str, int]
    tail: list[int]
    head: list[int]
    nvalues: list[int]
    nodes: tuple[str, ...]
    node_index: dict[str, int]
    winner: list[int]
    loser: list[int]
    count: list[int]


@dataclass(frozen=True)
class ConsistencyData:
    """An audit group: ``cells`` (cardinal), ``choices`` ((winner, loser, count), rankings
    already expanded) and ``nodes`` (the ordinal alternatives, in first-seen order).
    Derived: ``items``, the utility items of the cells in first-seen order."""

    cells: tuple[Cell, ...]
    choices: tuple[tuple[str, str, int], ...]
    nodes: tuple[str, ...]
    items: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _ints: ConsistencyInts | None = field(init=False, repr=False, compare=False,
                                          default=None)

    def __post_init__(self):
        seen: dict[str, None] = {}
        for c in self.cells:
            for x in c.arc:
                if x is not None:
                    seen.setdefault(x)
        object.__setattr__(self, "items", tuple(seen))

    @classmethod
    def from_ints(cls, cells: tuple[Cell, ...], choices: tuple[tuple[str, str, int], ...],
                  ints: ConsistencyInts) -> ConsistencyData:
        """The model of parsed cells and choices with their integer form (``items`` and
        ``nodes`` taken from it). O(1)."""
        self = object.__new__(cls)
        put = object.__setattr__
        put(self, "cells", cells)
        put(self, "choices", choices)
        put(self, "nodes", ints.nodes)
        put(self, "items", ints.items)
        put(self, "_ints", ints)
        return self

    @property
    def ints(self) -> ConsistencyInts:
        """The integer form (made on first use when the model was built from names)."""
        ints = self._ints
        if ints is None:
            ii = {x: i for i, x in enumerate(self.items)}
            ni = {x: i for i, x in enumerate(self.nodes)}
            for a, b, _ in self.choices:        # a hand-built model may omit some nodes
                ni.setdefault(a, len(ni))
                ni.setdefault(b, len(ni))
            tail, head = [], []
            for c in self.cells:
                t, h = c.arc
                tail.append(-1 if t is None else ii[t])
                head.append(ii[h])
            ints = ConsistencyInts(self.items, ii, tail, head,
                                   [len(c.values) for c in self.cells], tuple(ni), ni,
                                   [ni[a] for a, _, _ in self.choices],
                                   [ni[b] for _, b, _ in self.choices],
                                   [k for _, _, k in self.choices])
            object.__setattr__(self, "_ints", ints)
        return ints

    def to_json(self) -> dict:
        out: dict = {}
        if self.cells:
            out["cells"] = [_cell_json(c) for c in self.cells]
        if self.choices:
            out["choices"] = [list(c) for c in self.choices]
        return out


def _cell_json(c: Cell) -> dict:
    d: dict = {"id": c.id, "type": c.kind}
    if c.kind == "pair":
        d["a"] = {"item": c.a[0], "price": fraction_text(c.a[1])}
        d["b"] = {"item": c.b[0], "price": fraction_text(c.b[1])}
    else:
        d["item"] = c.item
    d["values"] = [fraction_text(v) for v in c.values]
    return d


def _offer(d: object, cell: str, side: str) -> tuple[str, Fraction]:
    if not isinstance(d, dict) or not isinstance(d.get("item"), str) or "price" not in d:
        raise InstanceError(f"cell {cell!r}: offer {side!r} must be "
                            "{\"item\": name, \"price\": number}", value=d)
    return d["item"], to_fraction(d["price"], f"cell {cell!r}: price of {side}")


def parse_consistency(data: dict) -> ConsistencyData:
    """Parse ``{"cells": [...], "choices": [...], "rankings": [...]}`` (at least one).

    Raises InstanceError naming the cell (or the choice) and the value for: a missing or
    non-list field, a cell without id, a repeated id, an unknown type, a malformed offer,
    a pair cell whose offers are the same, a cell without values, a value that is not a
    finite number, a choice that is not ``[winner, loser, count ≥ 1]`` between two
    different names, a ranking repeating a name. O(size of the input).
    """
    if not isinstance(data, dict):
        raise InstanceError("a consistency instance must be a JSON object",
                            value=type(data).__name__)
    if not any(k in data for k in ("cells", "choices", "rankings")):
        raise InstanceError("a consistency instance needs 'cells', 'choices' or 'rankings'",
                            value=sorted(data))
    cells: list[Cell] = []
    ids: set[str] = set()
    item_index: dict[str, int] = {}
    tails: list[int] = []
    heads: list[int] = []
    nvalues: list[int] = []
    raw = data.get("cells", [])
    if not isinstance(raw, list):
        raise InstanceError("'cells' must be a list", value=type(raw).__name__)
    for d in raw:
        if not isinstance(d, dict) or not isinstance(d.get("id"), str) or not d["id"]:
            raise InstanceError("a cell must be an object with a string 'id'", value=d)
        cid = d["id"]
        if cid in ids:
            raise InstanceError("cell id repeated", value=cid)
        ids.add(cid)
        vals = d.get("values")
        if not isinstance(vals, list) or not vals:
            raise InstanceError(f"cell {cid!r} needs a non-empty list of 'values'", value=vals)
        values = tuple(to_fraction(v, f"cell {cid!r}: value") for v in vals)
        kind = d.get("type")
        if kind == "pair":
            a, b = _offer(d.get("a"), cid, "a"), _offer(d.get("b"), cid, "b")
            if a == b:
                raise InstanceError(f"cell {cid!r}: a pair cell needs two different offers",
                                    value=d.get("a"))
            cells.append(Cell(cid, "pair", values, a=a, b=b))
            tails.append(item_index.setdefault(a[0], len(item_index)))
            heads.append(item_index.setdefault(b[0], len(item_index)))
        elif kind == "item":
            if not isinstance(d.get("item"), str):
                raise InstanceError(f"cell {cid!r}: an item cell needs an 'item' name",
                                    value=d.get("item"))
            cells.append(Cell(cid, "item", values, item=d["item"]))
            tails.append(-1)
            heads.append(item_index.setdefault(d["item"], len(item_index)))
        else:
            raise InstanceError(f"cell {cid!r}: 'type' must be 'pair' or 'item'", value=kind)
        nvalues.append(len(values))
    choices: list[tuple[str, str, int]] = []
    nodes: dict[str, int] = {}
    winner: list[int] = []
    loser: list[int] = []
    count: list[int] = []
    raw = data.get("choices", [])
    if not isinstance(raw, list):
        raise InstanceError("'choices' must be a list", value=type(raw).__name__)
    for c in raw:
        if not (isinstance(c, list) and len(c) == 3 and isinstance(c[0], str)
                and isinstance(c[1], str) and c[0] != c[1] and isinstance(c[2], int)
                and not isinstance(c[2], bool) and c[2] >= 1):
            raise InstanceError("a choice is [winner, loser, count >= 1] of two different "
                                "names", value=c)
        choices.append((c[0], c[1], c[2]))
        winner.append(nodes.setdefault(c[0], len(nodes)))
        loser.append(nodes.setdefault(c[1], len(nodes)))
        count.append(c[2])
    raw = data.get("rankings", [])
    if not isinstance(raw, list):
        raise InstanceError("'rankings' must be a list", value=type(raw).__name__)
    for r in raw:
        if not (isinstance(r, list) and all(isinstance(x, str) for x in r)
                and len(set(r)) == len(r)):
            raise InstanceError("a ranking is a list of distinct names, best first", value=r)
        ints = [nodes.setdefault(x, len(nodes)) for x in r]
        for i, x in enumerate(r):
            xi = ints[i]
            for y, yi in zip(r[i + 1:], ints[i + 1:]):
                choices.append((x, y, 1))
                winner.append(xi)
                loser.append(yi)
                count.append(1)
    return ConsistencyData.from_ints(
        tuple(cells), tuple(choices),
        ConsistencyInts(tuple(item_index), item_index, tails, heads, nvalues, tuple(nodes),
                        nodes, winner, loser, count))


# ------------------------------------------------------------------ the derived structures

def observations(model: ConsistencyData, unit: str = "cell") -> list[Observation]:
    """The rows r ≈ u(head) − u(tail) of the cells, in cell order (``unit``: see the module
    docstring). O(number of completions)."""
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}")
    out = []
    ints = model.ints
    for c, t, h in zip(model.cells, ints.tail, ints.head):
        tail, head = c.arc
        if unit == "completion":
            out += [Observation(tail, head, v + c.shift, 1, c.id, t, h) for v in c.values]
        else:
            out.append(Observation(tail, head, c.mean + c.shift,
                                   len(c.values) if unit == "count" else 1, c.id, t, h))
    return out


def observation_arcs(model: ConsistencyData, obs: Sequence[Observation]
                     ) -> tuple[list[int], list[int]]:
    """The tails (``-1``: the ground) and heads of ``obs`` as item integers of
    ``model.ints`` (read from the observations made by :func:`observations`, looked up
    for hand-made ones). O(observations)."""
    tails = [o.t for o in obs]
    heads = [o.h for o in obs]
    if -2 in heads:
        index = model.ints.item_index
        tails = [-1 if o.tail is None else index[o.tail] for o in obs]
        heads = [index[o.head] for o in obs]
    return tails, heads


def judgment_arcs(model: ConsistencyData, mode: str = "majority") -> dict[tuple[str, str], int]:
    """The judgment graph: (a, b) -> weight for an arc a ≻ b (``mode``: see the module
    docstring), in first-seen order. O(number of choices)."""
    if mode not in JUDGMENTS:
        raise ValueError(f"judgments must be one of {JUDGMENTS}")
    count: dict[tuple[str, str], int] = {}
    for a, b, k in model.choices:
        count[(a, b)] = count.get((a, b), 0) + k
    if mode == "choices":
        return count
    out = {}
    for (a, b), k in count.items():
        if k > count.get((b, a), 0):
            out[(a, b)] = 1
    return out


def judgment_arcs_ints(model: ConsistencyData, mode: str = "majority"
                       ) -> dict[tuple[int, int], int]:
    """:func:`judgment_arcs` on the node integers of ``model.ints`` (the same arcs, the
    same weights, the same first-seen order). O(number of choices)."""
    if mode not in JUDGMENTS:
        raise ValueError(f"judgments must be one of {JUDGMENTS}")
    ints = model.ints
    count: dict[tuple[int, int], int] = {}
    for e in zip(ints.winner, ints.loser, ints.count):
        key = (e[0], e[1])
        count[key] = count.get(key, 0) + e[2]
    if mode == "choices":
        return count
    return {(a, b): 1 for (a, b), k in count.items() if k > count.get((b, a), 0)}


def order_cost(arcs: Mapping[tuple[str, str], int], order: Sequence[str]) -> int:
    """The total weight of the arcs a → b that ``order`` (best first, every node once)
    reverses (b before a). O(nodes + arcs)."""
    pos = {x: i for i, x in enumerate(order)}
    return sum(w for (a, b), w in arcs.items() if pos[b] < pos[a])


def residual(obs: Observation, u: Mapping[str, Fraction]) -> Fraction:
    """r − (u(head) − u(tail)): what the observation must be adjusted by, negated."""
    return obs.r - u[obs.head] + (u[obs.tail] if obs.tail is not None else 0)


def question_params(name: str, params: object) -> str:
    """The one parameter value of a question (its default when not given)."""
    key, allowed = PARAMS[name]
    if params is None:
        return allowed[0]
    return params.get(key, allowed[0]) if isinstance(params, dict) else allowed[0]


def resolve(asked: object) -> tuple[str, dict]:
    """A question as written: a name, or ``{"type": name, "unit" | "judgments": value}``.
    Raises InstanceError for an unknown name, field or value."""
    if isinstance(asked, str):
        name, params = asked, {}
    elif isinstance(asked, dict) and isinstance(asked.get("type"), str):
        name, params = asked["type"], {k: v for k, v in asked.items() if k != "type"}
    else:
        raise InstanceError("a consistency question is a name or {\"type\": name, ...}",
                            value=asked)
    if name not in PARAMS:
        raise InstanceError(f"unknown question for domain 'consistency' (known: "
                            f"{', '.join(QUESTIONS)})", value=name)
    key, allowed = PARAMS[name]
    extra = set(params) - {key}
    if extra:
        raise InstanceError(f"question {name!r} takes only {key!r}", value=sorted(extra)[0])
    if key in params and params[key] not in allowed:
        raise InstanceError(f"{key} must be one of {', '.join(allowed)}", value=params[key])
    return name, {key: params.get(key, allowed[0])}


def validate(model: ConsistencyData, name: str, params: object) -> None:
    """A cardinal question needs cells; an ordinal one needs choices or rankings."""
    if name in ("l1_repair", "l2_repair") and not model.cells:
        raise InstanceError(f"question {name!r} needs 'cells'", value=name)
    if name in ("transitive", "feedback_arc_set") and not model.choices:
        raise InstanceError(f"question {name!r} needs 'choices' or 'rankings'", value=name)


def nodes_of(arcs: Iterable[tuple[str, str]], nodes: Iterable[str]) -> list[str]:
    """Every node, in the given order, then any arc endpoint not listed."""
    out = dict.fromkeys(nodes)
    for a, b in arcs:
        out.setdefault(a)
        out.setdefault(b)
    return list(out)
