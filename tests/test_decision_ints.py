"""The integer form of decision tasks (:class:`prefcert.formal.decision.DecisionInts`,
:func:`~prefcert.formal.decision.world_ranks`) against the name form; the oracle's
integer tools (stable lattice, allowed and tight bitmasks, matchings, Hall sets, the
Hungarian cost matrix) against their name forms and brute force; the checker's integer
reading against tampered certificates; the CP-SAT model text pinned; one parse per
instance on the label, check and suite paths."""
from __future__ import annotations

import copy
import hashlib
import itertools
import json
import random

import pytest
from conftest import heavy_examples
from hypothesis import given, settings
from hypothesis import strategies as st
from prefcert.formal import checker
from prefcert.formal.checker.decision import SPEC
from prefcert.formal.decision import parse_decision, stated
from prefcert.formal.errors import CertificateError
from test_decision import tasks

# --------------------------------------------------------------------------- the model


@settings(max_examples=heavy_examples(300, 150))
@given(tasks())
def test_integer_form_equals_the_names(d):
    from prefcert.formal.decision import CONSTRAINT_CODES, world_ranks
    task = parse_decision(d)
    ints = task.ints()
    assert ints is task.ints()                                  # built once, kept
    agents, items = list(d["agents"]), list(d["items"])
    assert list(ints.agents) == agents and list(ints.items) == items
    assert [ints.agent_index[a] for a in agents] == list(range(len(agents)))
    assert [ints.item_index[i] for i in items] == list(range(len(items)))
    parties = agents + (items if d["structure"] == "stable_matching" else [])
    assert len(ints.lists) == len(parties)
    blocks = []
    for p, (party, raw) in enumerate(zip(parties, (d["preferences"][q] for q in parties))):
        other = items if party in agents else agents
        flat, pos = [], 0
        for e in raw:
            names = [e] if isinstance(e, str) else e["unknown"]
            if len(names) > 1:
                blocks.append((p, pos, len(names)))
            flat += names
            pos += len(names)
        assert [other[x] for x in ints.lists[p]] == flat
    assert list(ints.blocks) == blocks
    cons = d.get("constraints", [])
    assert len(ints.constraints) == len(cons)
    for c, (code, a, i, k, v) in zip(cons, ints.constraints):
        assert code == CONSTRAINT_CODES[c["type"]]
        assert (agents[a] if a >= 0 else None) == c.get("agent")
        assert (items[i] if i >= 0 else None) == c.get("item")
        assert (ints.attribute_names[k] if k >= 0 else None) == c.get("attribute")
        assert v == c.get("value", 0)
    assert [cons[j]["id"] for j in ints.permitted] == d.get("permitted_edits", [])
    for i, row in zip(items, ints.attributes):
        assert dict(zip(ints.attribute_names, row)) == d["attributes"][i]
    for w in task.worlds():
        lists, ranks = world_ranks(task, w)
        for p, party in enumerate(parties):
            other = items if party in agents else agents
            assert [other[x] for x in lists[p]] == list(w.prefs[party])
            assert [ranks[p][other.index(x)] for x in w.prefs[party]] == \
                list(range(1, len(other) + 1))


def test_derived_tasks_share_the_numbering_and_rebuild_their_own_constraints():
    from prefcert.generators.decision import base_content, template
    task = template(base_content("allocation", 4, random.Random(3)))
    a = task.derive(source="preference", hide=(task.agents[1], 0))
    b = task.derive(source="constraint", constraints=[
        {"id": "c0", "type": "forbid", "agent": "A2", "item": "O3"}], permitted=["c0"])
    assert a.ints().lists is task.ints().lists is b.ints().lists
    assert a.ints().blocks == ((1, 0, 2),) and task.ints().blocks == ()
    assert b.ints().constraints == ((1, 1, 2, -1, 0),) and b.ints().permitted == (0,)
    want = parse_decision({**b.to_json(), "domain": "decision"}).ints()
    assert b.ints() == want


# --------------------------------------------------------------------------- the oracle

def _brute_stable(n, pa, pb):
    """Every stable matching (mate tuples) of complete strict lists, by brute force."""
    out = set()
    for perm in itertools.permutations(range(n)):
        inv = {b: a for a, b in enumerate(perm)}
        if all(not (pa[a].index(b) < pa[a].index(perm[a]) and
                    pb[b].index(a) < pb[b].index(inv[b]))
               for a in range(n) for b in range(n)):
            out.add(perm)
    return out


@settings(max_examples=heavy_examples(300, 150))
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.permutations(range(n)), min_size=2 * n, max_size=2 * n))))
def test_stable_lattice_on_integers_is_every_stable_matching_once(case):
    from prefcert.oracles.decision import lattice_ints
    n, orders = case
    pa, pb = orders[:n], orders[n:]
    ranks = []
    for lst in orders:
        r = [0] * n
        for k, x in enumerate(lst, 1):
            r[x] = k
        ranks.append(r)
    got = lattice_ints([tuple(x) for x in orders], ranks, n)
    assert len(got) == len(set(got))
    assert set(got) == _brute_stable(n, pa, pb)
    # the first is the A-optimal matching: every agent's best stable partner
    best = [min((m[a] for m in got), key=pa[a].index) for a in range(n)]
    assert list(got[0]) == best


def _adj_of(task, masks):
    return {a: {i for k, i in enumerate(task.items) if mask >> k & 1}
            for a, mask in zip(task.agents, masks)}


@settings(max_examples=heavy_examples(300, 150))
@given(st.integers(1, 7), st.integers(0, 2 ** 32), st.floats(0.2, 1.0))
def test_bitmask_tools_equal_the_name_forms(n, seed, p):
    import prefcert.oracles.decision as O
    from prefcert.generators.decision import base_content, template
    rng = random.Random(seed)
    base = base_content("allocation", n, rng)
    # names out of name order, so the name order and the input order differ
    rng.shuffle(base["items"])
    task = template(base)
    cons = []
    for j in range(rng.randint(0, 4)):
        cons.append({"id": f"c{j}", "type": rng.choice(["require", "forbid"]),
                     "agent": rng.choice(task.agents), "item": rng.choice(task.items)})
    t = task.derive(source="constraint", constraints=cons, permitted=[c["id"] for c in cons])
    cs = stated(t)
    masks = O.allowed_masks(t, cs)
    assert _adj_of(t, masks) == O.allowed(t, cs)
    masks = [m & rng.getrandbits(n) if rng.random() > p else m for m in masks]
    adj = _adj_of(t, masks)
    mate = O._max_matching_masks(masks, O._name_order(t))
    want = O.max_matching(adj)
    assert {t.agents[a]: t.items[i] for a, i in enumerate(mate) if i >= 0} == want
    assert O._hall_masks(t, masks, mate) == O.hall_violator(adj, want)
    assert O._count_masks(masks) == O.count_perfect(t, adj)
    w0 = t.worlds()[0]
    for obj in ("utilitarian", "rank_maximal", "leximin"):
        wts = [[O.weight(t, obj, w0.rank(a, i)) for i in t.items] for a in t.agents]
        got = O._hungarian_masks(t, masks, wts)
        ref = O.hungarian(t, {(a, i): wts[ka][ki] for ka, a in enumerate(t.agents)
                              for ki, i in enumerate(t.items) if i in adj[a]})
        if ref is None:
            assert got is None
            continue
        mate, u, v = got
        assert {t.agents[a]: t.items[i] for a, i in enumerate(mate)} == ref[0]
        assert dict(zip(t.agents, u)) == ref[1] and dict(zip(t.items, v)) == ref[2]


# --------------------------------------------------------------------------- the checker

def _corruptions(task, out):
    """Certificates one detail away from the oracle's (each must be rejected)."""
    cert = out.certificate
    for n, entry in enumerate(cert.get("worlds", [])):
        proof = entry.get("proof") or {}
        if "duals" in proof:
            for side in ("agents", "items"):
                c = copy.deepcopy(cert)
                k = next(iter(c["worlds"][n]["proof"]["duals"][side]))
                c["worlds"][n]["proof"]["duals"][side][k] += 1
                yield f"worlds[{n}] {side} dual raised", c
        if proof.get("hall"):
            for bad in (proof["hall"] + ["nobody"], proof["hall"] + proof["hall"][:1]):
                c = copy.deepcopy(cert)
                c["worlds"][n]["proof"]["hall"] = bad
                yield f"worlds[{n}] Hall set not a set of agents", c
        if proof.get("accepted") and task.structure != "allocation":
            c = copy.deepcopy(cert)
            c["worlds"][n]["proof"]["accepted"] = proof["accepted"][1:] or []
            if c["worlds"][n]["proof"]["accepted"] != proof["accepted"]:
                yield f"worlds[{n}] accepted set shortened", c
    if cert["type"] == "shared_action" and task.structure in ("allocation",
                                                             "stable_matching"):
        x = dict(cert["action"])
        if len(x) > 1:
            a, b = sorted(x)[:2]
            x[a], x[b] = x[b], x[a]
            c = dict(cert, action=x)
            yield "two agents' items exchanged", c


@settings(max_examples=heavy_examples(300, 150))
@given(tasks())
def test_checker_rejects_corrupted_certificates(d):
    from prefcert.oracles.decision import decide
    task = parse_decision(d)
    out = decide(task)
    checker.check(SPEC, task, "decision", None, out.verdict, out.solution, out.certificate)
    for what, cert in _corruptions(task, out):
        sol = out.solution
        if what == "two agents' items exchanged":
            sol = dict(sol, action=cert["action"])
            # another shared action is no corruption
            from test_decision import bf_decision
            verdict, info = bf_decision(d)
            if tuple(sorted(cert["action"].items())) in info["common"]:
                continue
        with pytest.raises(CertificateError):
            checker.check(SPEC, task, "decision", None, out.verdict, sol, cert)
            raise AssertionError(what)


# --------------------------------------------------------------------------- CP-SAT model

def _pin_tasks():
    """A few hundred suite-like tasks: six-task groups of every structure at n = 4 and 6,
    each constraint-source task also under the ``feasible`` reading and each stable
    matching task under ``da_only``."""
    from prefcert.bench.actionable.responses import design_group
    out = []
    for s in ("allocation", "scheduling", "apartment", "stable_matching"):
        for n, groups in ((4, 8), (6, 3)):
            for g in range(groups):
                for d in design_group(s, n, 0, g):
                    out.append(d)
                    if d["source"] == "constraint":
                        out.append({**d, "reading": {"constraint_acceptance": "feasible"}})
                    if s == "stable_matching":
                        out.append({**d, "reading": {"matching_constraints": "da_only"}})
    return out


def model_digest() -> tuple[int, str]:
    """(number of CP-SAT solves, sha256 of every model's text in solve order) of the
    encodings' answers on :func:`_pin_tasks` (runs on any installation of prefcert)."""
    import prefcert.encodings.decision as E
    h, count = hashlib.sha256(), [0]
    real = E._Builder.solve

    def solve(self, time_limit, seed, minimize=None):
        out = real(self, time_limit, seed, minimize)
        h.update(str(self.m.proto).encode())
        count[0] += 1
        return out

    E._Builder.solve = solve
    try:
        E._OPTIMA.clear()
        for k, d in enumerate(_pin_tasks()):
            h.update(f"#{k}".encode())
            try:
                task = parse_decision(d)
            except Exception as e:       # (a reading that leaves a task ill-posed)
                h.update(type(e).__name__.encode())
                continue
            E.decision_cpsat(task)
    finally:
        E._Builder.solve = real
        E._OPTIMA.clear()
    return count[0], h.hexdigest()


#: :func:`model_digest` computed by prefcert main (ab4f1db), before the integer form
MODEL_DIGEST = (942, "7f73688b855b3d6fa16e60b5ff6d0058be3f1af17ef59093db4685e2e95752fa")


@pytest.mark.heavy
def test_cpsat_model_text_is_unchanged():
    assert model_digest() == MODEL_DIGEST


# --------------------------------------------------------------------------- parse once

def test_a_task_is_parsed_once_per_instance_when_labelled_and_checked(tmp_path, monkeypatch):
    """``label`` and ``check`` parse each instance once, whatever its number of worlds
    (every parse ends in one ``_validated``; so does every derived task, which these
    paths do not make)."""
    from click.testing import CliRunner
    from prefcert.bench.actionable.responses import design_group
    from prefcert.cli import main
    from prefcert.formal import decision as F
    calls = []
    real = F._validated

    def counting(task):
        calls.append(task.world_count())
        return real(task)
    monkeypatch.setattr(F, "_validated", counting)
    rows = design_group("stable_matching", 4, 0, 0) + design_group("allocation", 4, 0, 1)
    rows.append({**rows[0], "id": "many", "source": "objective",
                 "objectives": ["a_optimal", "b_optimal", "egalitarian"],
                 "preferences": parse_decision(rows[2]).to_json()["preferences"]})
    src = tmp_path / "tasks.jsonl"
    src.write_text("".join(json.dumps(d) + "\n" for d in rows))
    out = tmp_path / "labels.jsonl"
    del calls[:]
    r = CliRunner().invoke(main, ["label", str(src), "-o", str(out), "--jobs", "1",
                                  "--cross-check", "always"])
    assert r.exit_code == 0, r.output
    assert len(calls) == len(rows) and max(calls) > 2
    del calls[:]
    r = CliRunner().invoke(main, ["check", str(out)])
    assert r.exit_code == 0, r.output
    assert len(calls) == len(rows)


def test_the_suite_parses_each_instance_once(monkeypatch):
    """The actionable suite's certifying step parses each instance once (the samplers
    derive their candidates from one parsed base: no parse per candidate or world)."""
    from prefcert.bench.actionable.responses import design_group
    from prefcert.formal import decision as F
    calls = []
    real = F.parse_decision

    def counting(data):
        calls.append(1)
        return real(data)
    monkeypatch.setattr(F, "parse_decision", counting)
    design_group("allocation", 4, 0, 0)
    design_group("stable_matching", 4, 0, 0)
    assert len(calls) <= 2 * 4            # per group: one base parse per source at most
