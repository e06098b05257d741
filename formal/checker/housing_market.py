"""Shapley–Scarf housing markets: core membership, blocking coalitions, Pareto
improvements and the strict-core emptiness proof.

Definitions (Shapley & Scarf 1974; Roth & Postlewaite 1977; Quint & Wako 2004). For an
allocation ``x`` the improvement digraph ``D_x`` has an arc ``i -> j`` whenever
``ω_j ⪰_i x(i)`` (self-loops included), *strict* when ``ω_j ≻_i x(i)``. A coalition blocks
``x`` by re-trading its own endowments; every blocking trade splits into cycles of ``D_x``, so

- ``x`` is in the **weak core** (no coalition makes all its members strictly better off)
  ⇔ the strict arcs of ``D_x`` form an acyclic digraph (no strict self-loop either);
- ``x`` is in the **strict core** (no coalition makes all members weakly and one strictly
  better off) ⇔ no strict arc lies inside a strongly connected component of ``D_x``;
- ``x`` is **Pareto optimal** ⇔ ``x`` is in the strict core of the market whose endowment is
  ``x`` itself (a Pareto improvement is a permutation of the current houses).

Under ``unlisted_own_house = unacceptable`` an allocation may leave agents unmatched: an
unmatched agent ``i`` is read at rank ``market.rank(i, None)`` (below every house it lists,
level with every house it does not), so an arc ``i -> j`` to an unlisted ``ω_j`` stands for
"``i`` takes nothing and ``ω_j`` stays unused"; the same tests decide the cores (see
:mod:`prefcert.formal.housing_market`). A blocking reallocation may then give a member
nothing; Pareto optimality is decided on :func:`completed_allocation` once no agent lists a
house nobody holds above what it has.

Certificate types: ``core_allocation`` (the label's allocation is in the core),
``top_trading_segmentation`` (the strict core is empty), and the refutations of an audited
answer ``blocking_coalition`` and ``not_an_allocation``.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence

from ..errors import CertificateError
from ..housing_market import (
    CONVENTIONS,
    CORE_NOTION,
    HMInts,
    HousingMarket,
    as_allocation,
    completed_allocation,
    parse_housing_market,
)
from ..spec import NULL, PREFERENCE_LIST, DomainSpec, QuestionSpec, instance_schema, outcome
from .graphs import strongly_connected_components

_ALLOCATION = outcome("the allocation (agent -> house)")
SPEC = DomainSpec(
    name="housing_market",
    parse=parse_housing_market,
    questions={
        "strict_core": QuestionSpec("strict_core", ("exists", "none"),
                                    "an allocation no coalition weakly blocks, or none exists",
                                    solutions={"exists": _ALLOCATION, "none": NULL},
                                    conventions=("unlisted_own_house",)),
        "weak_core": QuestionSpec("weak_core", ("exists",),
                                  "an allocation no coalition strictly blocks (one always "
                                  "exists)", solutions={"exists": _ALLOCATION},
                                  conventions=("unlisted_own_house",)),
    },
    schema=instance_schema(
        "housing_market",
        {"preferences": {"type": "object", "minProperties": 1,
                         "additionalProperties": PREFERENCE_LIST},
         "endowment": {"type": "object", "minProperties": 1,
                       "additionalProperties": {"type": "string"}}},
        ["preferences", "endowment"], {"enum": sorted(CORE_NOTION)}, CONVENTIONS),
    conventions=CONVENTIONS,
)


# --------------------------------------------------------------------------- definitions

def ir_violators(market: HousingMarket, x: Mapping[str, str]) -> list[str]:
    """Agents for which ``x`` is worse than their own house (empty list: x is individually
    rational). O(n)."""
    return [a for a in market.agents
            if market.rank(a, x.get(a)) > market.rank(a, market.endowment[a])]


def is_individually_rational(market: HousingMarket, x: Mapping[str, str]) -> bool:
    """x(i) ⪰_i ω_i for every agent i. O(n)."""
    return not ir_violators(market, as_allocation(market, x))


def improvement_digraph(market: HousingMarket, x: Mapping[str, str],
                        endowment: Mapping[str, str] | None = None
                        ) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """D_x as two adjacency lists over agents: (arcs, strict arcs).

    ``arcs[i]``: the owners j of the houses ``e_j ⪰_i x(i)``; ``strict[i]``: those with
    ``e_j ≻_i x(i)``, where ``e`` is ``endowment`` (default: the market's; ``endowment=x``
    describes Pareto improvements). O(n + arcs + n log L) (see :func:`_digraph`). An agent
    absent from ``x`` is unmatched (rank ``market.rank(i, None)``).
    """
    names = market.ints.names
    arcs, strict = _digraph(market, x, endowment)
    return ({a: [names[j] for j in out] for a, out in zip(names, arcs)},
            {a: [names[j] for j in out] for a, out in zip(names, strict)})


def _digraph(market: HousingMarket, x: Mapping[str, str],
             endowment: Mapping[str, str] | None = None
             ) -> tuple[list[list[int]], list[list[int]]]:
    """:func:`improvement_digraph` over agent ints (:class:`HMInts`): only houses at least
    as good as x(i) are read, the ends of their ties found by bisection on the tie indices
    (every house when x(i) is unacceptable, since all are then weakly better, in the order
    of ``endowment``). O(n + arcs + n log L)."""
    m = market.ints
    n = len(m.names)
    if endowment is None or endowment is market.endowment:
        holder: list[int] | None = None        # house j is held by agent j
        order: Sequence[int] = range(n)
    else:
        holder, order = [-1] * n, []
        for a, h in endowment.items():
            j = m.house_index[h]
            holder[j] = m.index[a]
            order.append(j)
    ranks, nties, wnties, hidx = m.rank, m.nties, m.written_nties, m.house_index
    arcs: list[list[int]] = []
    strict: list[list[int]] = []
    get = x.get
    for i, name in enumerate(m.names):
        h = get(name)
        r = wnties[i] + 1 if h is None else ranks[i].get(hidx.get(h, -1), nties[i] + 1)
        lst, t = m.lists[i], m.ties[i]          # ties non-decreasing along the list
        lo = bisect_left(t, r)                  # lst[:lo]: the houses ranked above x(i)
        if r <= nties[i]:
            out = lst[:bisect_right(t, r, lo)]
        else:
            rk = ranks[i]
            out = lst[:lo] + [j for j in order if j not in rk]
        if holder is not None:
            out = [holder[j] for j in out]
        arcs.append(out)
        strict.append(out[:lo])
    return arcs, strict


def blocked_arc(market: HousingMarket, x: Mapping[str, str], notion: str,
                endowment: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """A strict arc of D_x on a cycle that blocks ``x`` under ``notion``, or None.

    ``"weak"``: a strict arc inside a strongly connected component of the strict arcs (a
    cycle of strict arcs: everyone strictly better off); ``"strict"``: a strict arc inside a
    strongly connected component of D_x. None ⇔ x is in the notion's core. O(n + arcs).
    """
    arcs, strict = _digraph(market, x, endowment)
    comp = strongly_connected_components(dict(enumerate(strict if notion == "weak" else arcs)))
    names = market.ints.names
    return next(((names[i], names[j]) for i, out in enumerate(strict) for j in out
                 if comp[i] == comp[j]), None)


def in_weak_core(market: HousingMarket, x: Mapping[str, str]) -> bool:
    """x is in the weak core ⇔ the strict arcs of D_x are acyclic. O(n + arcs)."""
    return blocked_arc(market, as_allocation(market, x), "weak") is None


def in_strict_core(market: HousingMarket, x: Mapping[str, str]) -> bool:
    """x is in the strict core ⇔ no strict arc of D_x inside an SCC. O(n + arcs)."""
    return blocked_arc(market, as_allocation(market, x), "strict") is None


def is_pareto_optimal(market: HousingMarket, x: Mapping[str, str]) -> bool:
    """x is Pareto optimal ⇔ no cycle of D_x (endowment x) has a strict arc; with unmatched
    agents, ⇔ no agent lists a house nobody holds above what it has and the completed
    allocation passes that test. O(n + arcs)."""
    x = as_allocation(market, x)
    if market.unmatched_allowed:
        if free_improvement(market, x) is not None:
            return False
        x = completed_allocation(market, x)
    return blocked_arc(market, x, "strict", endowment=x) is None


def free_improvement(market: HousingMarket, x: Mapping[str, str]) -> tuple[str, str] | None:
    """(agent, house): a house nobody holds in ``x`` that the agent lists above what it
    has (taking it is a Pareto improvement), or None. O(n + L)."""
    held = set(x.values())
    m = market.ints
    houses = m.houses
    for i, a in enumerate(m.names):
        r = market.rank(a, x.get(a))
        rk = m.rank[i]
        for j in m.written[i]:
            if rk[j] >= r:
                break
            if houses[j] not in held:
                return a, houses[j]
    return None


# --------------------------------------------------------------------------- refutations

def check_blocking_coalition(market: HousingMarket, x: object, notion: str,
                             coalition: object, reallocation: object) -> None:
    """Verify that ``coalition`` blocks allocation ``x`` by ``reallocation``.

    Checked against the definition: the coalition is a non-empty list of distinct agents;
    the reallocation gives each member one house and is a bijection onto the members' own
    endowments (with unmatched agents allowed: gives some members distinct houses of the
    members' endowments that they list, the others nothing); ``notion="weak"``: every
    member is strictly better off than under x; ``"strict"``: every member weakly and at
    least one strictly. O(|coalition|). Raises CertificateError naming the failing step.
    """
    x = as_allocation(market, x)
    if notion not in ("weak", "strict"):
        raise CertificateError(f"unknown core notion {notion!r}")
    if not isinstance(coalition, list) or not coalition:
        raise CertificateError("a blocking coalition is a non-empty list of agents")
    if not all(isinstance(a, str) for a in coalition) or len(set(coalition)) != len(coalition):
        raise CertificateError("coalition must name distinct agents (strings)")
    for a in coalition:
        if a not in market.endowment:
            raise CertificateError(f"coalition names {a!r}, not an agent")
    if market.unmatched_allowed:
        if not isinstance(reallocation, dict) or not set(reallocation) <= set(coalition):
            raise CertificateError("the reallocation must give houses to coalition members")
        own = {market.endowment[a] for a in coalition}
        got = list(reallocation.values())
        if not all(isinstance(h, str) and h in own for h in got) or len(set(got)) != len(got):
            raise CertificateError("the reallocation gives houses that are not distinct "
                                   "endowments of the coalition")
        for a, h in reallocation.items():
            if not market.listed(a, h):
                raise CertificateError(f"the reallocation gives {a!r} the house {h!r}, "
                                       "which it does not list")
    else:
        if not isinstance(reallocation, dict) or set(reallocation) != set(coalition):
            raise CertificateError("the reallocation must give a house to exactly the "
                                   "coalition")
        own_sorted = sorted(market.endowment[a] for a in coalition)
        got = list(reallocation.values())
        if not all(isinstance(h, str) for h in got) or sorted(got) != own_sorted:
            raise CertificateError("the reallocation is not a permutation of the coalition's "
                                   "own endowments")
    better = 0
    for a in coalition:
        new, old = market.rank(a, reallocation.get(a)), market.rank(a, x.get(a))
        if new < old:
            better += 1
        elif notion == "weak":
            raise CertificateError(f"agent {a!r} is not strictly better off with "
                                   f"{reallocation.get(a)!r} than with {x.get(a)!r}")
        elif new > old:
            raise CertificateError(f"agent {a!r} is worse off with {reallocation.get(a)!r} "
                                   f"than with {x.get(a)!r}")
    if better == 0:
        raise CertificateError("no member of the coalition is strictly better off")


def check_pareto_improvement(market: HousingMarket, x: object, y: object) -> None:
    """Verify that allocation ``y`` Pareto-improves on ``x``: everyone weakly better off,
    someone strictly. O(n). Raises CertificateError."""
    x = as_allocation(market, x)
    y = as_allocation(market, y, "improvement")
    better = 0
    for a in market.agents:
        new, old = market.rank(a, y.get(a)), market.rank(a, x.get(a))
        if new > old:
            raise CertificateError(f"agent {a!r} is worse off with {y.get(a)!r} than "
                                   f"{x.get(a)!r}")
        better += new < old
    if not better:
        raise CertificateError("nobody is strictly better off")


#: classify's notion -> (certificate type refuting it, core notion of the coalition)
_REFUTED_BY = {"individually_rational": ("blocking_coalition", "weak"),
               "weak_core": ("blocking_coalition", "weak"),
               "strict_core": ("blocking_coalition", "strict"),
               "pareto_optimal": ("pareto_improvement", None)}


def check_refutation(market: HousingMarket, x: object, notion: str, cert: object) -> None:
    """Verify a certificate that ``x`` fails ``notion`` (a notion of classify: IR, weak or
    strict core, Pareto optimality). IR is refuted by a one-agent blocking coalition keeping
    its own house; Pareto optimality by a ``pareto_improvement``. Raises CertificateError."""
    kind, core = _REFUTED_BY.get(notion, (None, None))
    if not isinstance(cert, dict) or kind is None or cert.get("type") != kind:
        raise CertificateError(f"certificate {cert!r:.40} does not refute {notion!r}")
    if core is None:
        check_pareto_improvement(market, x, cert.get("allocation"))
        return
    if notion == "individually_rational" and len(cert.get("coalition") or []) != 1:
        raise CertificateError("IR is refuted by a one-agent coalition")
    check_blocking_coalition(market, x, core, cert.get("coalition"), cert.get("reallocation"))


# --------------------------------------------------------------------------- membership proofs

def check_potentials(market: HousingMarket, x: Mapping[str, str], notion: str,
                     potentials: object) -> None:
    """Verify membership potentials t (agent -> int): t_j ≥ t_i + 1 on every strict arc of
    D_x and, for the strict core, t_j ≥ t_i on every arc. Their existence proves
    membership (a blocking cycle would sum to a positive increase). O(n + arcs)."""
    if not isinstance(potentials, dict) or set(potentials) != set(market.agents) or \
            not all(isinstance(t, int) for t in potentials.values()):
        raise CertificateError("potentials must map every agent to an integer")
    arcs, strict = _digraph(market, x)
    names = market.ints.names
    t = [potentials[a] for a in names]
    for i in range(len(names)):
        for j in strict[i]:
            if t[j] < t[i] + 1:
                raise CertificateError(f"potential drops on strict arc {names[i]}->{names[j]}")
        if notion == "strict":
            for j in arcs[i]:
                if t[j] < t[i]:
                    raise CertificateError(f"potential drops on arc {names[i]}->{names[j]}")


def top_choices(market: HousingMarket, agent: str, remaining_houses: set[str]) -> list[str]:
    """The agent's top tie among ``remaining_houses`` (which must hold its own house)."""
    m = market.ints
    alive = [h in remaining_houses for h in m.houses]
    return [m.houses[j] for j in _top(m, m.index[agent], alive)]


def _top(m: HMInts, i: int, alive: list[bool]) -> list[int]:
    """Agent ``i``'s top tie among the houses ``alive`` marks (house ints)."""
    got: list[int] = []
    cur = 0
    for j, k in zip(m.lists[i], m.ties[i]):
        if k != cur:
            if got:
                return got
            cur = k
        if alive[j]:
            got.append(j)
    return got


def check_segmentation(market: HousingMarket, cert: dict) -> None:
    """Verify a strict-core emptiness proof (Quint & Wako 2004 top-trading segmentation).

    ``cert["segments"]``: list S1..Sk of agent lists; ``cert["hall_violator"]``: T ⊆ Sk.
    With R_1 = all agents and R_{t+1} = R_t \\ S_t, each S_t must be non-empty, inside R_t,
    *closed* (every house in a member's top tie among R_t's houses is owned by S_t) and
    strongly connected in that top-choice digraph; and T's top houses number fewer than |T|.

    Soundness (induction on t): let x be in the strict core, and suppose x gives the agents
    of R_t houses of R_t. Each i in S_t has arcs of D_x to the owners of its top houses
    (they are ⪰ x(i)), so S_t lies inside one SCC of D_x; an agent of S_t without a top
    house would own a strict arc inside that SCC. So x gives each member of S_t a top house,
    owned by S_t (closedness), i.e. S_t trades within itself and R_{t+1} keeps its houses.
    At t = k this is a perfect matching of S_k to top houses, impossible by Hall's condition
    for T. Read on the integer form (a house is the int of its owner).
    O(k · (n + top arcs)).
    """
    segs, hall = cert.get("segments"), cert.get("hall_violator")
    if not isinstance(segs, list) or not segs or not isinstance(hall, list) or not hall:
        raise CertificateError("a segmentation needs non-empty 'segments' and 'hall_violator'")
    m = market.ints
    names, houses, index = m.names, m.houses, m.index
    remaining = [True] * len(names)     # R_t, by agent int: also R_t's houses
    last: list[int] = []
    for t, seg in enumerate(segs, 1):
        if not isinstance(seg, list) or not seg or not all(isinstance(a, str) for a in seg) \
                or len(set(seg)) != len(seg):
            raise CertificateError(f"segment {t} must be a non-empty list of distinct agents")
        ids = [index.get(a, -1) for a in seg]
        if not all(i >= 0 and remaining[i] for i in ids):
            raise CertificateError(f"segment {t} names an agent that is not in the remaining "
                                   "market")
        s = set(ids)
        top: dict[int, list[int]] = {}
        for i in ids:
            top[i] = got = _top(m, i, remaining)
            for b in got:
                if b not in s:
                    raise CertificateError(f"segment {t} is not closed: {names[i]!r}'s top "
                                           f"house {houses[b]!r} belongs to {names[b]!r} "
                                           "outside it")
        if len(set(strongly_connected_components(top).values())) != 1:
            raise CertificateError(f"segment {t} is not strongly connected in the top-choice "
                                   "digraph")
        for i in ids:
            remaining[i] = False
        last = ids
    if not all(isinstance(a, str) for a in hall) or len(set(hall)) != len(hall) \
            or not set(hall) <= set(segs[-1]):
        raise CertificateError("the Hall violator must be a set of agents of the last segment")
    for i in last:                      # R_k: the last segment and what remains after it
        remaining[i] = True
    nbrs = set().union(*(_top(m, index[a], remaining) for a in hall))
    if len(nbrs) >= len(hall):
        raise CertificateError(f"Hall violator has {len(nbrs)} top houses for {len(hall)} "
                               "agents: no violation")


# --------------------------------------------------------------------------- certificate types

@SPEC.certificate("core_allocation", proves={"strict_core": "exists", "weak_core": "exists"},
                  keys=("potentials",))
def check_core_allocation(market: HousingMarket, question: str, params, verdict: str,
                          solution, certificate: dict) -> None:
    """The solution is an allocation in the question's core: no strict arc of its
    improvement digraph lies on a blocking cycle (an O(n + arcs) SCC test); optional
    ``potentials`` are checked too."""
    notion = CORE_NOTION[question]
    x = as_allocation(market, solution)
    arc = blocked_arc(market, x, notion)
    if arc is not None:
        raise CertificateError(f"witness is blocked ({notion}): the strict arc "
                               f"{arc[0]}->{arc[1]} of its improvement digraph lies on a "
                               "blocking cycle")
    if "potentials" in certificate:
        check_potentials(market, x, notion, certificate["potentials"])


@SPEC.certificate("top_trading_segmentation", proves={"strict_core": "none"},
                  keys=("segments", "hall_violator"))
def check_top_trading_segmentation(market: HousingMarket, question: str, params, verdict: str,
                                   solution, certificate: dict) -> None:
    """The strict core is empty: closed, strongly connected top-choice segments ending in a
    Hall violator (Quint & Wako 2004; see :func:`check_segmentation`)."""
    check_segmentation(market, certificate)


@SPEC.certificate("blocking_coalition",
                  proves={"strict_core": "incorrect", "weak_core": "incorrect"},
                  keys=("coalition", "reallocation", "notion"))
def check_blocking_coalition_certificate(market: HousingMarket, question: str, params,
                                         verdict: str, solution, certificate: dict) -> None:
    """The audited allocation is blocked by ``coalition`` re-trading its own houses as in
    ``reallocation`` under the question's notion (see :func:`check_blocking_coalition`;
    an optional ``notion`` must name it)."""
    if "notion" in certificate and certificate["notion"] != CORE_NOTION[question]:
        raise CertificateError(f"notion {certificate['notion']!r:.20} is not the question's "
                               f"{CORE_NOTION[question]!r}")
    check_blocking_coalition(market, solution, CORE_NOTION[question],
                             certificate.get("coalition"), certificate.get("reallocation"))


@SPEC.certificate("not_an_allocation",
                  proves={"strict_core": "incorrect", "weak_core": "incorrect"}, keys=())
def check_not_an_allocation(market: HousingMarket, question: str, params, verdict: str,
                            solution, certificate: dict) -> None:
    """The audited answer is not a permutation of the houses."""
    try:
        as_allocation(market, solution)
    except CertificateError:
        return
    raise CertificateError("the audited answer is a valid allocation")
