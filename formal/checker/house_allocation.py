"""House allocation: the checks of Pareto optimality, maximum-cardinality Pareto optimality
(MCPO) and Pareto improvements; the welfare optima are checked in
:mod:`prefcert.formal.checker.welfare`.

Definitions: Abraham, Cechlárová, Manlove & Mehlhorn 2004; Manlove 2013, ch. 6. An
allocation is a dict agent -> object over acceptable pairs (:func:`validate_allocation`).
"""
from __future__ import annotations

from collections.abc import Mapping

from ..errors import CertificateError
from ..house_allocation import (
    CONVENTIONS,
    QUESTIONS,
    HouseAllocation,
    RankIndex,
    parse_house_allocation,
)
from ..spec import PREFERENCE_LIST, DomainSpec, QuestionSpec, instance_schema, outcome
from ..welfare import welfare_graph
from . import welfare
from .graphs import reachable, strongly_connected_components

SPEC = DomainSpec(
    name="house_allocation",
    parse=parse_house_allocation,
    questions={
        "pareto_optimal": QuestionSpec("pareto_optimal", ("exists",),
                                       "a Pareto-optimal allocation",
                                       solutions={"exists": outcome("the allocation")}),
        "max_cardinality_pareto_optimal": QuestionSpec(
            "max_cardinality_pareto_optimal", ("exists",),
            "a Pareto-optimal allocation of maximum cardinality",
            solutions={"exists": outcome("the allocation")}),
        **welfare.questions(two_sided=False),
    },
    schema=instance_schema(
        "house_allocation",
        {"preferences": {"type": "object", "additionalProperties": PREFERENCE_LIST},
         "objects": {"type": "array", "uniqueItems": True, "items": {"type": "string"}}},
        ["preferences"], {"enum": list(QUESTIONS)}, CONVENTIONS),
    conventions=CONVENTIONS,
)
welfare.register(SPEC)

_FREE = ("free object",)        # the sink of the improvement digraph (agents are strings)


def validate_allocation(model: HouseAllocation, allocation: object) -> dict[str, str]:
    """Check that ``allocation`` is an allocation of ``model``; return it as agent -> object.

    Accepts ``{agent: object or None}`` (None = unassigned). Raises CertificateError for a
    non-dict, an unknown agent, an unacceptable object, an object given twice. O(L): read
    on the model's integer lists (:class:`~prefcert.formal.house_allocation.RankIndex`).
    """
    if not isinstance(allocation, dict):
        raise CertificateError(f"an allocation must be an object agent -> object, "
                               f"got {allocation!r:.60}")
    ix, aid, oid = model.rank_index(), model.agent_ids(), model.object_ids()
    offsets, objs = ix.offsets, ix.objects
    out: dict[str, str] = {}
    holder: dict[str, str] = {}
    for a, h in allocation.items():
        i = aid.get(a)
        if i is None:
            raise CertificateError(f"{a!r} is not an agent")
        if h is None:
            continue
        j = oid.get(h) if isinstance(h, str) else None
        if j is None or j not in objs[offsets[i]:offsets[i + 1]]:
            raise CertificateError(f"agent {a!r} is assigned {h!r}, which it does not rank")
        if h in holder:
            raise CertificateError(f"object {h!r} is assigned to both {holder[h]!r} and {a!r}")
        holder[h] = a
        out[a] = h
    return out


def _current(ix: RankIndex, i: int, j: int | None) -> int:
    """The rank of agent ``i``'s object ``j`` (None: unassigned, or an object it does not
    list: one past its last tie, as :meth:`WeakOrder.prefers` reads it)."""
    r = None if j is None else ix.rank(i, j)
    return ix.nties(i) + 1 if r is None else r


def improving_arc(model: HouseAllocation, m: Mapping[str, str]) -> tuple[str, object] | None:
    """A strict arc (u, v) of the improvement digraph that starts a Pareto improvement of
    the allocation ``m``, or None when ``m`` is Pareto optimal.

    The digraph (Manlove 2013, §6.2; Sng 2008): the agents and a sink F; an arc a → b
    (b ≠ a matched) when M(b) ⪰_a M(a), i.e. a could take b's object, and a → F when an
    unassigned object ⪰_a M(a) exists; an arc is strict when a would be strictly better off
    (every arc out of an unassigned agent is). ``m`` is Pareto optimal (with ties: no
    allocation makes an agent strictly better off and nobody worse off) iff for no strict
    arc (u, v), v = F, v reaches F, or v reaches u: moving the agents along that
    augmenting path, alternating path or cycle is an improvement. O(L), on the model's
    integer lists (each list's entries ranked at most M(a)'s rank are a prefix).
    """
    ix, oid = model.rank_index(), model.object_ids()
    held = {oid.get(h): a for a, h in m.items()}
    adj: dict = {_FREE: []}
    strict = []
    for i, a in enumerate(model.prefs):
        cur = m.get(a)
        c = None if cur is None else oid.get(cur)
        rc = _current(ix, i, c)
        succ = adj[a] = []
        for j, r in zip(ix.entries(i), ix.entry_ranks(i)):
            if r > rc:
                break
            if j != c:
                succ.append(held.get(j, _FREE))
                if r < rc:
                    strict.append((a, succ[-1]))
    into: dict = {v: [] for v in adj}
    for u, vs in adj.items():
        for v in vs:
            into[v].append(u)
    to_free = reachable(into, [_FREE])
    comp = strongly_connected_components(adj)
    return next(((u, v) for u, v in strict if v in to_free or comp[u] == comp[v]), None)


def _check_pareto(model: HouseAllocation, m: dict, order: object) -> None:
    found = improving_arc(model, m)
    if found is not None:
        u, v = found
        what = "a free object" if v == _FREE else f"the object of {v!r}"
        raise CertificateError(f"allocation is not Pareto optimal: agent {u!r} gains by "
                               f"taking {what} in an improving exchange")
    ix = model.rank_index()
    if order is not None and ix.is_strict():
        if not isinstance(order, list) or sorted(order) != sorted(model.agents):
            raise CertificateError("serial-dictatorship order is not a permutation of the agents")
        # serial dictatorship with strict lists, recomputed apart from the engines' version
        aid, objects = model.agent_ids(), model.objects
        taken: set[int] = set()
        for a in order:
            j = next((j for j in ix.entries(aid[a]) if j not in taken), None)
            if (None if j is None else objects[j]) != m.get(a):
                raise CertificateError("serial dictatorship along the given order does not "
                                       "give the allocation")
            if j is not None:
                taken.add(j)


@SPEC.certificate("pareto_optimal", proves={"pareto_optimal": "exists"}, keys=("order",))
def check_pareto_optimal(model: HouseAllocation, question: str, params, verdict: str,
                         solution, certificate: dict) -> None:
    """The solution is Pareto optimal: no strict arc of the improvement digraph starts an
    improvement (:func:`improving_arc`); with strict lists, serial dictatorship along the
    optional ``order`` gives it."""
    _check_pareto(model, validate_allocation(model, solution), certificate.get("order"))


@SPEC.certificate("mcpo", proves={"max_cardinality_pareto_optimal": "exists"},
                  keys=("hall_full", "order"))
def check_mcpo(model: HouseAllocation, question: str, params, verdict: str, solution,
               certificate: dict) -> None:
    """The solution is Pareto optimal (as for ``pareto_optimal``) and of maximum
    cardinality: |M| = |L| − |S| + |N(S)| for the Hall set ``hall_full`` (König 1931)."""
    m = validate_allocation(model, solution)
    _check_pareto(model, m, certificate.get("order"))
    welfare.check_maximum(welfare_graph(model), m, certificate.get("hall_full"))


@SPEC.certificate("pareto_improvement", proves={"pareto_optimal": "incorrect",
                                                "max_cardinality_pareto_optimal": "incorrect"},
                                                keys=("allocation", "improvement"))
def check_pareto_improvement(model: HouseAllocation, question: str, params, verdict: str,
                             solution, certificate: dict) -> None:
    """The audited allocation (the solution, repeated as the certificate's ``allocation``)
    is not Pareto optimal: the ``improvement`` leaves every agent weakly better off and one
    strictly. O(n)."""
    old = validate_allocation(model, certificate.get("allocation"))
    if validate_allocation(model, solution) != old:
        raise CertificateError("the improved allocation is not the audited one")
    new = validate_allocation(model, certificate.get("improvement"))
    strict = False
    ix, oid = model.rank_index(), model.object_ids()
    for i, a in enumerate(model.prefs):
        x, y = new.get(a), old.get(a)
        if x == y:
            continue
        # both listed by a, or None (unassigned, below every listed object)
        if x is None or (y is not None and _current(ix, i, oid[x]) > _current(ix, i, oid[y])):
            raise CertificateError(f"agent {a!r} is worse off: {x!r} instead of {y!r}")
        strict = strict or y is None or _current(ix, i, oid[x]) < _current(ix, i, oid[y])
    if not strict:
        raise CertificateError("no agent is strictly better off")


@SPEC.certificate("larger_matching", proves={"max_cardinality_pareto_optimal": "incorrect"},
                  keys=("allocation",))
def check_larger_matching(model: HouseAllocation, question: str, params, verdict: str,
                          solution, certificate: dict) -> None:
    """The audited allocation (the solution) is not of maximum cardinality: the
    certificate's ``allocation`` assigns more agents."""
    old = validate_allocation(model, solution)
    new = validate_allocation(model, certificate.get("allocation"))
    if len(new) <= len(old):
        raise CertificateError(f"the proposed allocation assigns {len(new)} agents, not "
                               f"more than {len(old)}")


@SPEC.certificate("not_an_allocation", proves=dict.fromkeys(QUESTIONS, "incorrect"), keys=())
def check_not_an_allocation(model: HouseAllocation, question: str, params, verdict: str,
                            solution, certificate: dict) -> None:
    """The audited answer (the solution) is no allocation: an unknown agent, an object
    its agent does not rank, or an object given twice."""
    try:
        validate_allocation(model, solution)
    except CertificateError:
        return
    raise CertificateError("the audited answer is a valid allocation")
