"""The field-mutation sweep (issue 20, item 2): every field of every kind of label is
checked, or the label is rejected.

Labels of every kind of the registry — domain × question × verdict × certificate type —
are made by the engines (``label``) on small seeded instances and the bundled reference
instances, and refutations (verdict ``incorrect``) by the audits of wrong answers. Each
label is then mutated field by field: solution values, keys added and removed, certificate
fields, the verdict, the question's parameters, the domain, the engines record,
``checked``, ``source``, ``instance_sha256``, ``semantics`` and ``conventions``. Every
mutant goes through exactly what ``prefcert check`` runs per label
(:class:`prefcert.cli.check.Verifier`), and must be rejected unless its claim is still
true — decided here without the checker: by the engines (re-labelling a changed question;
the oracles' own blocking tests and optimality proofs), by brute force (every stable
matching, core allocation, Pareto-optimal allocation of these small instances), or by
equality with the engines' own answer where the answer is unique. The count of mutants
and of false claims accepted (which must be 0) is printed (``pytest -s``).

A few fields are records rather than claims about the instance: an engine's name and
timing. Changing them (or dropping an engine that still leaves one answering the verdict)
is counted apart — the checker verifies that the record agrees with the verdict, not what
ran.
"""
from __future__ import annotations

import copy
import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from conftest import heavy_examples
from prefcert.cli.check import Verifier
from prefcert.formal.errors import CertificateError, Disagreement, InstanceError, Undecided
from prefcert.formal.files import read_paths
from prefcert.pipeline.jobs import audit, label, plan
from prefcert.pipeline.registry import DOMAINS, spec

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ["stable_matching/reference.jsonl", "hospitals_residents/reference.jsonl",
           "housing_market/reference.jsonl", "house_allocation/reference.jsonl",
           "election/reference.jsonl", "decision/apartment.jsonl",
           "consistency/synthetic-choices.jsonl", "consistency/synthetic-wtp.jsonl"]

#: Registered certificate types no bundled instance or seeded sample here produces a label
#: of, with the reason (the checker's own tests forge them).
NOT_PRODUCED: dict[tuple[str, str], str] = {}

#: Certificate fields that state a fact about the instance (a value, a count, a reason),
#: as opposed to the parts of a proof: a changed fact is a false claim even when the
#: verdict and solution stay true.
FACTS = {"hall_bottleneck": ("value", "size"), "lp_duals": ("value",),
         "better_allocation": ("value",), "score_table": ("scores",),
         "elimination_rounds": ("rounds", "eliminated"), "elimination_search": ("states",),
         "size": ("reason",), "blocking_coalition": ("notion",),
         "shared_action": ("action",), "objective_conflict": ("objectives",),
         "pivotal_comparison": ("agent", "items"), "minimum_repair": ("edits",),
         "pareto_improvement": ("allocation",)}

MISSING = object()


def canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True)


# ------------------------------------------------------------------ the instances

def _preference_instances(rng: random.Random, count: int) -> list[dict]:
    """Profiles of 4–5 items over weak orders, partial orders and choices, each asked every
    question type with several parameters (and under both readings of each convention)."""
    out = []
    for k in range(count):
        items = [f"i{j}" for j in range(rng.randint(4, 5))]
        prof: dict = {}
        for v in range(rng.randint(2, 3)):
            order = rng.sample(items, len(items))
            kind = rng.choice(["order", "order", "edges"])
            if kind == "order":
                cut = rng.randint(1, len(order) - 1)
                prof[f"V{v}"] = {"order": order[:cut] + [order[cut:]] if rng.random() < 0.6
                                 else order[:rng.randint(2, len(order))],
                                 "count": rng.randint(1, 3)}
            else:
                prof[f"V{v}"] = {"edges": [[order[i], order[i + 1]]
                                           for i in range(len(order) - 1) if rng.random() < 0.5]
                                 or [[order[0], order[1]]]}
        a, b, c = items[:3]
        qs: list = []
        for agent in list(prof)[:2]:
            qs += [{"type": "compare", "agent": agent, "items": [a, b]},
                   {"type": "compare", "agent": agent, "items": [c, a]},
                   {"type": "position", "agent": agent, "item": b},
                   {"type": "position", "agent": agent, "item": a, "position": 1},
                   {"type": "position", "agent": agent, "item": c, "position": len(items)},
                   {"type": "kth", "agent": agent, "k": 1},
                   {"type": "kth", "agent": agent, "k": 2},
                   {"type": "rank_set", "agent": agent, "items": [a, b, c]},
                   {"type": "rs", "agent": agent, "bundles": [[a], [b, c]]},
                   {"type": "rs", "agent": agent, "bundles": [[a, b], [c]]},
                   {"type": "rs", "agent": agent, "bundles": [[b, c], [a, items[3]]]},
                   {"type": "topk", "agent": agent, "item": a, "k": 2},
                   {"type": "topk", "agent": agent, "item": items[-1], "k": 1},
                   {"type": "topk_list", "agent": agent, "k": 2}]
        qs += [{"type": "count", "items": [a, b]}, {"type": "majority", "items": [a, c]}]
        qs += [{"type": "winner", "rule": r, "item": x} for r in ("plurality", "borda",
                                                                  "copeland") for x in items]
        inst = {"id": f"pref-{k}", "domain": "preference", "items": items, "profile": prof,
                "questions": qs}
        if k % 3 == 1:
            inst["conventions"] = {"rs": "equal_size", "majority": "ranked",
                                   "counts": "identical"}
        if k % 3 == 2:
            inst["semantics"] = "truncated"
        out.append(inst)
    # a total order is determined everywhere; a lone agent's full tie nowhere
    out.append({"id": "pref-total", "domain": "preference", "items": ["a", "b", "c", "d"],
                "profile": {"V0": ["a", "b", "c", "d"], "V1": {"order": [["a", "b", "c", "d"]],
                                                              "count": 2}},
                "questions": [{"type": "rank_set", "agent": "V0", "items": ["a", "c", "d"]},
                              {"type": "topk_list", "agent": "V0", "k": 2},
                              {"type": "topk_list", "agent": "V1", "k": 2},
                              {"type": "position", "agent": "V0", "item": "c"},
                              {"type": "kth", "agent": "V0", "k": 3},
                              {"type": "count", "items": ["a", "b"]},
                              {"type": "count", "items": ["c", "d"]},
                              {"type": "rs", "agent": "V0", "bundles": [["a", "d"], ["b", "c"]]},
                              {"type": "rs", "agent": "V0", "bundles": [["b", "c"], ["a", "d"]]},
                              *({"type": "winner", "rule": r, "item": x}
                                for r in ("plurality", "borda", "copeland") for x in "ad")]})
    # the oracle's Copeland bounds do not settle c: the checker's own enumeration does
    out.append({"id": "pref-exhaustive", "domain": "preference", "items": ["a", "b", "c", "d"],
                "profile": {"V0": {"edges": [["b", "d"]]}, "V1": ["d", "b", ["a", "c"]],
                            "V2": ["a", "d", ["b", "c"]], "V3": {"edges": [["d", "c"]]}},
                "questions": [{"type": "winner", "rule": "copeland", "item": "c"}]})
    return out


def _election_instances(rng: random.Random, count: int) -> list[dict]:
    out = []
    rules = ["plurality", "borda", "approval", "irv", "copeland"]
    for k in range(count):
        m = rng.choice([3, 4])
        cands = [f"c{j}" for j in range(m)]
        ballots = []
        for _ in range(rng.randint(3, 6)):
            order = rng.sample(cands, m)
            if rng.random() < 0.3:
                order = [order[:2]] + order[2:]
            ballots.append({"ranking": order, "count": rng.randint(1, 3)})
        qs: list = [{"type": "winner", "rule": r} for r in rules]
        qs += [{"type": "manipulation", "rule": r} for r in rules]
        qs += [{"type": "coalitional_manipulation", "rule": r, "candidate": c, "k": kk}
               for r in rules for c in cands[-2:] for kk in (1, 2)]
        inst = {"id": f"el-{k}", "domain": "election", "candidates": cands,
                "tie_break": rng.sample(cands, m), "ballots": ballots,
                "manipulator": {"ranking": rng.sample(cands, m)}, "questions": qs}
        if k % 4 == 3:
            inst["conventions"] = {"overvote": "exhaust"}
            inst["questions"] = [q for q in qs if q["type"] == "winner"]
        out.append(inst)
    big = [f"c{j}" for j in range(8)]                # 8! reports: greedy and search proofs
    for k, rule in enumerate(["plurality", "borda", "copeland", "irv"]):
        out.append({"id": f"el-big-{rule}", "domain": "election", "candidates": big,
                    "tie_break": big, "rule": rule,
                    "ballots": [rng.sample(big, 8) for _ in range(5)],
                    "manipulator": {"ranking": rng.sample(big, 8)},
                    "questions": [{"type": "manipulation"}]})
    return out


def instances(n: int, seed: int = 20) -> list[dict]:
    """The seeded sample: ``n`` small instances per domain of the matching kinds."""
    from prefcert.generators.hospitals_residents import sample_hr
    from prefcert.generators.house_allocation import sample_house_allocation
    from prefcert.generators.housing_market import sample_housing_market
    from prefcert.generators.stable_matching import sample_smti
    rng = random.Random(seed)
    welfare = ["super_stable", "strongly_stable", "weakly_stable", "utilitarian",
               "egalitarian", "rank_maximal"]
    out = []
    for k in range(n):
        out.append(sample_smti(rng.randint(2, 4), rng.randint(2, 4), seed=k,
                               tie_prob=rng.choice([0.0, 0.4, 0.8]), truncate=k % 2 == 1,
                               id=f"sm-{k}", questions=welfare))
        if k % 3 == 2:
            out[-1]["conventions"] = {"welfare_ranks": "written", "welfare_scope": "maximum"}
        out.append(sample_hr(rng.randint(2, 4), rng.randint(1, 3), cap_min=0, cap_max=2,
                             tie_prob=rng.choice([0.0, 0.5]), truncate=k % 2 == 0, seed=k,
                             id=f"hr-{k}"))
        out.append(sample_housing_market(rng.randint(2, 5), seed=k,
                                         tie_prob=rng.choice([0.0, 0.5]),
                                         instance_id=f"hm-{k}"))
        out.append(sample_house_allocation(rng.randint(2, 4), rng.randint(2, 4), seed=k,
                                           tie_prob=rng.choice([0.0, 0.4]), id=f"ha-{k}"))
    out.append({"id": "ha-small", "domain": "house_allocation",
                "preferences": {"a1": ["o1", "o2"], "a2": ["o1"]}})
    return out + _preference_instances(rng, n) + _election_instances(rng, n)


# ------------------------------------------------------------------ the labels

def make_labels(tmp: Path, n: int) -> list[tuple[dict, Any]]:
    """(label, its job) for every label of the sample and of the bundled instances, plus
    refutations from the audits of wrong answers; the sample is written to a file (the
    labels' ``source``)."""
    src = tmp / "sweep.jsonl"
    src.write_text("".join(json.dumps(d) + "\n" for d in instances(n)))
    insts = [*read_paths([str(src)]),
             *read_paths([str(ROOT / "instances" / b) for b in BUNDLED])]
    out = []
    for inst in insts:
        for job in plan([inst]):
            try:
                lab = label(job, minimize=False)
            except (Disagreement, Undecided):
                continue
            out.append((lab, job))
            out += [(r, job) for r in refutations(job, lab)]
            if job.question.name == "manipulation" and \
                    lab["engines"][-1]["engine"] == "oracle":
                # the enumeration proof (with the counts) is an option, not the default
                out.append((label(job, engines=["oracle"], minimize=False), job))
    return out


def wrong_answers(job, lab: dict) -> list:
    """Answers an audit refutes: the solution with a pair changed, an unknown agent, a
    partner given twice, the empty outcome, the endowment (housing markets)."""
    sol = lab["solution"]
    out: list = [{}]
    if isinstance(sol, dict) and sol and all(isinstance(v, str) for v in sol.values()):
        keys, vals = list(sol), list(sol.values())
        out.append(dict(sol, zz=vals[0]))
        out.append(dict(zip(keys, vals[1:] + vals[:1])))
        out.append({k: v for k, v in list(sol.items())[1:]})
        if len(keys) > 1:
            out.append([[keys[0], vals[0]], [keys[0], vals[1]]])
    if job.instance.domain == "housing_market":
        out.append(dict(job.instance.data["endowment"]))
    if job.instance.id == "ha-small" and job.question.name == "max_cardinality_pareto_optimal":
        out.append({"a1": "o1"})          # Pareto optimal, one agent short: larger_matching
    return out


def refutations(job, lab: dict) -> list[dict]:
    """Labels of verdict ``incorrect`` built from the checked proofs of audits."""
    if job.question.audit is None or job.instance.domain not in (
            "stable_matching", "hospitals_residents", "housing_market", "house_allocation"):
        return []
    out, seen = [], set()
    for answer in wrong_answers(job, lab):
        try:
            res = audit(job, json.dumps(answer))
        except (Disagreement, Undecided):
            continue
        proof = res.get("proof")
        if res["verdict"] != "incorrect" or not res.get("checked") or \
                proof.get("verdict") != "incorrect":
            continue
        key = canon([proof.get("solution"), proof["certificate"]])
        if key not in seen:
            seen.add(key)
            out.append(dict(lab, verdict="incorrect", solution=proof.get("solution"),
                            certificate=proof["certificate"], engines=[], checked=True))
    return out


def kind(lab: dict) -> tuple:
    q = lab["question"]
    return (lab["domain"], q if isinstance(q, str) else q["type"], lab["verdict"],
            lab["certificate"]["type"])


# ------------------------------------------------------------------ the mutations

def names_of(data: Any, out: set | None = None) -> set:
    """The strings of an instance (agents, items, candidates): replacement values."""
    out = set() if out is None else out
    if isinstance(data, str) and len(data) < 40:
        out.add(data)
    elif isinstance(data, dict):
        for k, v in data.items():
            names_of(k, out)
            names_of(v, out)
    elif isinstance(data, list):
        for v in data:
            names_of(v, out)
    return out


def values(v: Any, names: list[str], rng: random.Random, depth: int = 0) -> list:
    """Mutations of one JSON value: other types, other names, neighbours of numbers,
    lists and objects shortened, extended, reordered and mutated inside."""
    out: list = []
    if v is None:
        return ["junk", 0, {}, [], {"value": 1}, [names[0]]]
    if isinstance(v, bool):
        return [not v, int(v), None]
    if isinstance(v, (int, float)):
        return [v + 1, v - 1, str(v), True, None, v + 0.5]
    if isinstance(v, str):
        others = [x for x in names if x != v]
        return ["zz", None, 1, *rng.sample(others, min(2, len(others)))]
    if isinstance(v, list):
        out = [[], None, v + ["zz"], v[1:], v[:-1], v + v[:1]]
        if len(v) > 1:
            out += [v[::-1], [v[1], v[0], *v[2:]]]
        if depth < 3:
            for i in sorted(rng.sample(range(len(v)), min(3, len(v)))):
                out += [v[:i] + [w] + v[i + 1:] for w in values(v[i], names, rng, depth + 1)[:4]]
        return out
    if isinstance(v, dict):
        keys = list(v)
        out = [{}, None, "junk", dict(v, zz=next(iter(v.values()), 1))]
        picked = rng.sample(keys, min(5, len(keys)))
        out += [{k: x for k, x in v.items() if k != drop} for drop in picked]
        if keys:
            other = next((x for x in names if x not in v), "zz")
            out.append({(other if k == keys[0] else k): x for k, x in v.items()})
        if depth < 3:
            for k in picked:
                out += [dict(v, **{k: w}) for w in values(v[k], names, rng, depth + 1)[:4]]
        return out
    return out


def question_mutants(q: Any, dspec, names: list[str], rng: random.Random) -> list:
    if isinstance(q, str):
        return [x for x in dspec.questions if x != q] + ["zz"]
    out: list = [dict(q, zz=1)]
    out += [dict(q, type=t) for t in dspec.questions if t != q["type"]][:4]
    for k, v in q.items():
        if k == "type":
            continue
        out.append({x: y for x, y in q.items() if x != k})
        out += [dict(q, **{k: w}) for w in values(v, names, rng, 2)[:6]]
    if "rule" in q:
        out += [dict(q, rule=r) for r in ("plurality", "borda", "approval", "irv", "copeland")
                if r != q["rule"]]
    return out


def mutants(lab: dict, names: list[str], rng: random.Random) -> list[tuple[str, dict]]:
    """(the field, the mutated label) for every field of ``lab``."""
    dspec = spec(lab["domain"])
    out: list[tuple[str, dict]] = [(f"-{k}", {x: y for x, y in lab.items() if x != k})
                                   for k in lab]
    out.append(("+field", dict(lab, zz=1)))
    out += [("domain", dict(lab, domain=d)) for d in DOMAINS if d != lab["domain"]]
    out.append(("id", dict(lab, id=lab["id"] + "x")))
    out += [("question", dict(lab, question=q))
            for q in question_mutants(lab["question"], dspec, names, rng)]
    words = {v for q in dspec.questions.values() for v in q.verdicts} | {"incorrect", "zz"}
    out += [("verdict", dict(lab, verdict=v)) for v in sorted(words) if v != lab["verdict"]]
    out += [("solution", dict(lab, solution=s)) for s in values(lab["solution"], names, rng)]
    cert = lab["certificate"]
    out += [("certificate", dict(lab, certificate=c)) for c in values(cert, names, rng)
            if isinstance(c, dict) and c.get("type") == cert.get("type")]
    out += [("certificate", dict(lab, certificate=dict(cert, type=t)))
            for t in dspec.certificates if t != cert["type"]]
    out.append(("certificate", dict(lab, certificate={k: v for k, v in cert.items()
                                                      if k != "type"})))
    eng = lab["engines"]
    for i, e in enumerate(eng):
        for v in [*sorted(words - {"zz"}), "unknown"]:
            if v != e["verdict"]:
                out.append(("engines", dict(lab, engines=eng[:i] + [dict(e, verdict=v)]
                                            + eng[i + 1:])))
        for bad in (dict(e, seconds=-1), dict(e, seconds="1"), dict(e, zz=1),
                    {k: x for k, x in e.items() if k != "seconds"}, dict(e, engine=""),
                    dict(e, engine="zz"), dict(e, seconds=e["seconds"] + 7)):
            out.append(("engines", dict(lab, engines=eng[:i] + [bad] + eng[i + 1:])))
        out.append(("engines", dict(lab, engines=eng[:i] + eng[i + 1:])))
    out += [("engines", dict(lab, engines=e)) for e in ([], eng + eng[:1], "junk",
                                                       [{"engine": "zz", "verdict":
                                                         lab["verdict"], "seconds": 0}])]
    out += [("checked", dict(lab, checked=c)) for c in (not lab["checked"], None, "true", 1)]
    src = lab["source"]
    out += [("source", dict(lab, source=s)) for s in (
        dict(src, line=(src["line"] or 0) + 1), dict(src, line=None), {"file": src["file"]},
        dict(src, file=src["file"] + "x"), "junk")]
    out.append(("instance_sha256", dict(lab, instance_sha256="0" * 64)))
    for sem in ("unknown", "truncated", "zz", None):
        if lab.get("semantics", MISSING) != sem:
            out.append(("semantics", dict(lab, semantics=sem)))
    conv = lab.get("conventions", {})
    out.append(("conventions", dict(lab, conventions=dict(conv, zz="x"))))
    out.append(("conventions", dict(lab, conventions={})))
    for d in DOMAINS:
        for name, c in spec(d).conventions.items():
            for choice in c.choices:
                if conv.get(name) != choice:
                    out.append(("conventions", dict(lab, conventions=dict(conv, **{
                        name: choice}))))
    return out


# ------------------------------------------------------------------ the truth, without the checker

class Truth:
    """Is a (mutated) label's claim true? Decided by the engines and by brute force on the
    small instances here, never by the checker."""

    def __init__(self):
        self.relabelled: dict[str, dict | None] = {}

    def relabel(self, job, question: Any, engines: list[str] | None = None) -> dict | None:
        """The engines' label of ``question`` on the job's instance (None when it is no
        question of the instance, or the engines do not settle it)."""
        key = canon([job.instance.id, job.instance.line, job.instance.file, question,
                     engines])
        if key not in self.relabelled:
            try:
                (j,) = plan([job.instance], [question])
                self.relabelled[key] = label(j, engines=engines, minimize=False)
            except (InstanceError, Disagreement, Undecided, TypeError, KeyError, ValueError):
                self.relabelled[key] = None
        return self.relabelled[key]

    def __call__(self, mut: dict, orig: dict, job) -> str:
        """``true``, ``false`` or ``record`` (only the engines' names or timings differ)."""
        if set(mut) != set(orig):
            return "false"
        for k in ("id", "domain", "source", "instance_sha256", "semantics", "conventions",
                  "checked"):
            if canon(mut.get(k)) != canon(orig.get(k)):
                return "false"
        engines = engines_truth(mut, orig, job)
        if engines == "false":
            return "false"
        base = orig
        if canon(mut["question"]) != canon(orig["question"]):
            # an enumeration label (an option: the counts) against its own relabelling
            enum = isinstance(orig.get("certificate"), dict) and \
                orig["certificate"].get("type") == "enumeration"
            base = self.relabel(job, mut["question"], ["oracle"] if enum else None)
            if base is None:
                return "false"
            job = plan([job.instance], [mut["question"]])[0]
        if not claim_true(mut, base, job):
            return "false"
        return "record" if engines == "record" else "true"


def engines_truth(mut: dict, orig: dict, job) -> str:
    eng = mut["engines"]
    if canon(eng) == canon(orig["engines"]):
        return "same"
    if not isinstance(eng, list) or any(not isinstance(e, dict) or set(e) != {
            "engine", "verdict", "seconds"} for e in eng):
        return "false"
    partial = spec(mut["domain"]).questions[job.question.name].partial
    names = [e["engine"] for e in eng]
    if len(set(map(str, names))) != len(names) or not all(isinstance(x, str) and x
                                                          for x in names):
        return "false"
    if any(isinstance(e["seconds"], bool) or not isinstance(e["seconds"], (int, float))
           or e["seconds"] < 0 for e in eng):
        return "false"
    if any(e["verdict"] not in (mut["verdict"], "unknown", *partial) for e in eng):
        return "false"
    if mut["verdict"] != "incorrect" and not any(e["verdict"] == mut["verdict"] for e in eng):
        return "false"
    return "record"


def claim_true(mut: dict, base: dict, job) -> bool:
    """The verdict, solution and certificate facts of ``mut`` are true, ``base`` being the
    engines' label of the same question (or the refutation it came from)."""
    if mut["verdict"] == "incorrect":
        if base["verdict"] == "incorrect" and canon(mut["solution"]) == canon(base["solution"]):
            return facts_equal(mut, base)
        if base["verdict"] != "incorrect":      # a refutation asked of another question
            return refutation_facts_true(mut, job) and \
                not correct_answer(job, mut["solution"], base)
        return facts_equal(mut, base) and not correct_answer(job, mut["solution"], base)
    if base["verdict"] == "incorrect":          # a refutation mutated into a claim
        return False
    if mut["verdict"] != base["verdict"]:
        return False
    if not facts_equal(mut, base):
        return False
    if canon(mut["solution"]) == canon(base["solution"]):
        return True
    return solution_true(job, mut, base)


def refutation_facts_true(mut: dict, job) -> bool:
    """The facts of a refutation's certificate, recomputed for the job's question: a better
    allocation's welfare value, a Pareto improvement's audited allocation (the solution);
    a blocking coalition states no fact unless it names its notion."""
    from prefcert.formal.welfare import welfare_graph, welfare_value
    cert = mut["certificate"]
    if not isinstance(cert, dict):
        return False
    kind_ = cert.get("type")
    if kind_ == "better_allocation":
        new = _matching(job.model, cert.get("allocation"))
        return _valid(job, new) and isinstance(cert.get("value"), int) and \
            cert["value"] == welfare_value(welfare_graph(job.model), job.question.name, new)
    if kind_ == "pareto_improvement":
        return canon(cert.get("allocation")) == canon(mut["solution"])
    if kind_ == "blocking_coalition":
        from prefcert.formal.housing_market import CORE_NOTION
        want = CORE_NOTION[job.question.name]
        return cert.get("notion", want) == want
    return not FACTS.get(kind_)


def facts_equal(mut: dict, base: dict) -> bool:
    a, b = mut["certificate"], base["certificate"]
    if not isinstance(a, dict) or "type" not in a:
        return False
    if a.get("type") == "engine_agreement":
        return False
    facts = FACTS.get(a["type"], ())
    if not facts:
        return True
    if a["type"] != b.get("type"):
        return False
    return all(canon(a.get(k, "<missing>")) == canon(b.get(k, "<missing>")) for k in facts)


# ------------------------------------------------------------------ witnesses, by brute force

def _matching(model, x: Any) -> dict | None:
    """A claimed stable-matching / house-allocation outcome as a dict (None values dropped),
    or None when it is not a dict of strings."""
    if not isinstance(x, dict):
        return None
    if not all(isinstance(v, str) or v is None for v in x.values()):
        return None
    return {k: v for k, v in x.items() if v is not None}


def _hr_matching(x: Any) -> dict | None:
    if isinstance(x, list):
        if not all(isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p)
                   for p in x) or len({p[0] for p in x}) != len(x):
            return None
        return dict(x)
    return _matching(None, x)


def _stable(job, m: dict | None, notion: str) -> bool:
    domain, model = job.instance.domain, job.model
    if m is None:
        return False
    if domain == "stable_matching":
        from prefcert.oracles.stable_matching_brute_force import stable_matchings
    else:
        from prefcert.oracles.hospitals_residents import stable_matchings
    return any(s == m for s in stable_matchings(model, notion))


def _valid(job, m: dict | None) -> bool:
    """``m`` is a matching / allocation of the instance (every one enumerated)."""
    if m is None:
        return False
    domain, model = job.instance.domain, job.model
    if domain == "stable_matching":
        from prefcert.oracles.stable_matching_brute_force import all_matchings
        return any(s == m for s in all_matchings(model))
    if domain == "hospitals_residents":
        from prefcert.oracles.hospitals_residents import all_matchings as hr_all
        return any(s == m for s in hr_all(model))
    if domain == "house_allocation":
        from prefcert.formal.welfare import welfare_graph
        from prefcert.oracles.house_allocation import all_matchings as ha_all
        return any(s == m for s in ha_all(welfare_graph(model)))
    if domain == "housing_market":
        return set(m) == set(model.agents) and sorted(m.values()) == sorted(
            model.endowment.values())
    raise AssertionError(domain)


def _welfare_optimal(job, m: dict, notion: str) -> bool:
    from prefcert.formal.welfare import welfare_graph
    from prefcert.oracles.house_allocation import welfare_certificate
    return _valid(job, m) and welfare_certificate(welfare_graph(job.model), notion, m)[0] \
        is not None


def correct_answer(job, candidate: Any, base: dict) -> bool:
    """Would ``candidate`` be a correct answer to the job's question (the audits' sense)?
    An agent listed unmatched (null) must be one of the instance."""
    domain, q = job.instance.domain, job.question.name
    if isinstance(candidate, dict) and any(
            v is None and k not in names_of(job.instance.data) for k, v in candidate.items()):
        return False
    if domain in ("stable_matching", "hospitals_residents"):
        m = _hr_matching(candidate) if domain == "hospitals_residents" else \
            _matching(job.model, candidate)
        if q in ("super_stable", "strongly_stable", "weakly_stable"):
            notion = {"super_stable": "super", "strongly_stable": "strong",
                      "weakly_stable": "weak"}[q]
            return _stable(job, m, notion)
        return m is not None and _welfare_optimal(job, m, q)
    if domain == "housing_market":
        from prefcert.oracles.housing_market import brute_force_cores
        m = _matching(job.model, candidate)
        weak, strict = brute_force_cores(job.model)
        return m is not None and m in (strict if q == "strict_core" else weak)
    if domain == "house_allocation":
        m = _matching(job.model, candidate)
        if m is None or not _valid(job, m):
            return False
        if q in ("pareto_optimal", "max_cardinality_pareto_optimal"):
            from prefcert.formal.welfare import welfare_graph
            from prefcert.oracles.house_allocation import all_matchings as ha_all
            from prefcert.oracles.house_allocation import brute_force_pareto_optimal
            po = m in brute_force_pareto_optimal(job.model)
            if q == "pareto_optimal":
                return po
            return po and len(m) == max(len(s) for s in ha_all(welfare_graph(job.model)))
        return _welfare_optimal(job, m, q)
    raise AssertionError(domain)


def solution_true(job, mut: dict, base: dict) -> bool:
    """A solution other than the engines' that may still be true: another witness, an
    equivalent value."""
    domain, q, sol = job.instance.domain, job.question.name, mut["solution"]
    if domain in ("stable_matching", "hospitals_residents", "housing_market",
                  "house_allocation") and base["solution"] is not None:
        if domain == "hospitals_residents" and not isinstance(sol, dict):
            return False
        return correct_answer(job, sol, base)
    if domain == "consistency":
        return _consistency_true(job, sol, base)
    if domain == "election" and q == "manipulation":
        return _manipulation_true(job, sol, base)
    if domain == "election" and q == "coalitional_manipulation" and mut["verdict"] == "exists":
        return _ballots_elect(job, sol)
    return False       # every other solution is unique: equality only


def _rational(x: Any) -> Fraction | None:
    if isinstance(x, bool) or not isinstance(x, (int, str)):
        return None
    try:
        return Fraction(x)
    except (ValueError, ZeroDivisionError):
        return None


def _consistency_true(job, sol: Any, base: dict) -> bool:
    from prefcert.formal.consistency import judgment_arcs, observations, question_params
    q, model = job.question.name, job.model
    if q == "transitive":
        arcs = judgment_arcs(model, question_params(q, job.params))
        nodes = {x for e in arcs for x in e} | set(model.nodes)
        if not isinstance(sol, list) or len(set(map(str, sol))) != len(sol) or \
                set(sol) != nodes:
            return False
        pos = {x: i for i, x in enumerate(sol)}
        return all(pos[a] < pos[b] for a, b in arcs)
    if not isinstance(sol, dict) or set(sol) != set(base["solution"]):
        return False
    if q == "feedback_arc_set":
        arcs = judgment_arcs(model, question_params(q, job.params))
        order = sol["order"]
        nodes = {x for e in arcs for x in e} | set(model.nodes)
        if not isinstance(order, list) or len(set(map(str, order))) != len(order) or \
                set(order) != nodes or isinstance(sol["reversed"], bool):
            return False
        pos = {x: i for i, x in enumerate(order)}
        cost = sum(w for (a, b), w in arcs.items() if pos[b] < pos[a])
        return cost == sol["reversed"] == base["solution"]["reversed"]
    for k in sol:                          # cost / lower / upper: the same rationals
        if k != "utilities" and _rational(sol[k]) != _rational(base["solution"][k]):
            return False
    u = sol["utilities"]
    if not isinstance(u, dict) or set(u) != set(model.items):
        return False
    val = {x: _rational(v) for x, v in u.items()}
    if None in val.values():
        return False
    obs = observations(model, question_params(q, job.params))
    res = [o.r - (val[o.head] - (val[o.tail] if o.tail is not None else 0)) for o in obs]
    cost = sum((o.w * (abs(e) if q == "l1_repair" else e * e) for o, e in zip(obs, res)),
               Fraction(0))
    want = _rational(base["solution"].get("cost", base["solution"].get("upper")))
    return cost == want


def _manipulation_true(job, sol: Any, base: dict) -> bool:
    from prefcert.formal.election import rule_of
    from prefcert.oracles.election import Tally
    if not isinstance(sol, dict) or set(sol) != set(base["solution"]):
        return False
    if any(canon(sol[k]) != canon(base["solution"][k]) for k in sol if k != "ballot"):
        return False
    e, rule = job.model, rule_of(job.model, job.params)
    rep = sol["ballot"]
    if rep is None:
        return base["solution"]["best_winner"] == base["solution"]["sincere_winner"]
    if not _report_ok(e, rule, rep):
        return False
    t = Tally(e, rule)
    return t.winner([rep], [1]) == sol["best_winner"]


def _report_ok(e, rule: str, rep: Any) -> bool:
    from prefcert.formal.rules import rule_named
    if not isinstance(rep, list) or not all(isinstance(x, str) for x in rep) or \
            len(set(rep)) != len(rep) or not set(rep) <= set(e.candidates):
        return False
    return rule_named(rule).approval or len(rep) == e.m


def _ballots_elect(job, sol: Any) -> bool:
    from prefcert.formal.election import rule_of
    from prefcert.oracles.election import Tally
    if not isinstance(sol, dict) or set(sol) != {"ballots"}:
        return False
    e, rule, w = job.model.sincere(), rule_of(job.model, job.params), job.params["weights"]
    reps = sol["ballots"]
    if not isinstance(reps, list) or len(reps) != len(w) or \
            not all(_report_ok(e, rule, r) for r in reps):
        return False
    return Tally(e, rule).winner(reps, w) == job.params["candidate"]


# ------------------------------------------------------------------ the sweep

@pytest.mark.heavy
def test_every_field_of_every_label_kind_is_checked(tmp_path, capsys):
    pairs = make_labels(tmp_path, heavy_examples(8, 4))
    labels = [lab for lab, _ in pairs]
    produced = {(k[0], k[3]) for k in map(kind, labels)}
    registered = {(d, t) for d in DOMAINS for t in spec(d).certificates}
    assert registered - produced <= set(NOT_PRODUCED), sorted(registered - produced)
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(lab) + "\n" for lab in labels))
    verifier = Verifier(path)
    truth = Truth()
    rng = random.Random(0)
    counts = {"mutants": 0, "rejected": 0, "accepted_true": 0, "accepted_record": 0}
    bad, crashes = [], []
    for i, (lab, job) in enumerate(pairs):
        assert verifier.verify(copy.deepcopy(lab), i + 1)[1] is True, kind(lab)
        names = sorted(names_of(job.instance.data))
        for field, mut in mutants(lab, names, rng):
            counts["mutants"] += 1
            try:
                verifier.verify(copy.deepcopy(mut), i + 1)
            except (CertificateError, InstanceError, KeyError, TypeError, AttributeError):
                counts["rejected"] += 1
                continue
            except Exception as e:             # a traceback in prefcert check
                crashes.append((kind(lab), field, repr(e)[:200], canon(mut)[:300]))
                continue
            verdict = truth(mut, lab, job)
            if verdict == "false":
                bad.append((kind(lab), field, canon(mut)[:400]))
            else:
                counts["accepted_" + verdict] += 1
    kinds = sorted({kind(lab) for lab in labels})
    with capsys.disabled():
        print(f"\nsweep: {len(labels)} labels of {len(kinds)} kinds "
              f"(domain, question, verdict, certificate); {counts['mutants']} mutants, "
              f"{counts['rejected']} rejected, {counts['accepted_true']} accepted and still "
              f"true, {counts['accepted_record']} accepted changing only the engines' "
              f"names or timings; {len(bad)} false claims accepted; {len(crashes)} crashes")
    assert not crashes, crashes[:5]
    assert not bad, bad[:10]
