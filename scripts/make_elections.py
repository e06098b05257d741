"""Write the bundled ``election`` instances under ``instances/election/``.

Run from the repository root::

    python scripts/make_elections.py

Outputs (deterministic: rerunning rewrites identical files):

- ``preflib-<file>.json``: real PrefLib elections (from ``tests/data/preflib``) converted by
  :func:`prefcert.formal.election.election_from_preference`: τ = PrefLib's alternative
  order, ballots with counts, ties and truncation kept; questions: the winner under each
  of the five rules, and whether one added voter can elect the Condorcet / Copeland
  winner under IRV.
- ``reference.jsonl``: the reference voting instances with published answers (restated;
  the manipulator is the voter the source's question names).
- ``generated-m12-n50.jsonl``: one impartial-culture election per rule, m = 12, n = 50
  voters (the manipulator included), seeds 1201–1205, with the manipulation question.
"""
from __future__ import annotations

import json
from pathlib import Path

from prefcert.formal.checker.election import winner_table
from prefcert.formal.election import election_from_preference, parse_election
from prefcert.formal.preflib import read_preflib
from prefcert.formal.rules import rule_names
from prefcert.generators.election import impartial_culture_election

RULES = rule_names()

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "instances" / "election"
PREFLIB = ["toi/00005-00000002.toi", "toi/00016-00000002.toi", "toi/00023-00000001.toi",
           "soi/00002-00000001.soi"]
REFERENCE = ROOT / "tests" / "data" / "reference"


def preflib_elections() -> dict[str, dict]:
    out = {}
    for f in PREFLIB:
        (inst,) = read_preflib(ROOT / "tests" / "data" / "preflib" / f)
        stem = Path(f).stem
        e = election_from_preference(inst.data, iid=f"preflib-{stem}")
        cop = winner_table(parse_election(e), "copeland")["winner"]
        e["questions"] = [{"type": "winner", "rule": r} for r in RULES] + [
            {"type": "coalitional_manipulation", "rule": "irv", "candidate": cop, "k": 1}]
        out[f"preflib-{stem}.json"] = e
    return out


def reference() -> list[dict]:
    rows = []
    for name, truth in (("borda_burying_two_voters_lex_tiebreak", ["a", "b", "c"]),
                        ("irv_single_voter_compromise", ["c", "b", "a"]),
                        ("plurality_compromise_lex_tiebreak", ["c", "a", "b"])):
        ref = json.loads((REFERENCE / f"{name}.json").read_text(encoding="utf-8"))
        p = ref["preferences"]
        ballots = [{"ranking": [g[0] for g in b["ranking"]], "count": b["count"]}
                   for b in p["ballots"]]
        for b in ballots:                       # the manipulator leaves its class
            if b["ranking"] == truth:
                b["count"] -= 1
                break
        rule = name.split("_")[0]
        rows.append({"id": name, "domain": "election", "candidates": p["candidates"],
                     "tie_break": p["candidates"], "rule": rule,
                     "ballots": [b for b in ballots if b["count"]],
                     "manipulator": {"ranking": truth},
                     "questions": ["winner", "manipulation"]})
    ref = json.loads((REFERENCE / "approval_abcvoting_instanceL0000.json").read_text())
    cands = [str(c) for c in ref["preferences"]["candidates"]]
    rows.append({"id": "approval_abcvoting_instanceL0000", "domain": "election",
                 "candidates": cands, "tie_break": cands, "rule": "approval",
                 "ballots": [{"approve": [str(x) for x in b]}
                             for b in ref["preferences"]["approval_ballots"]],
                 "questions": ["winner"]})
    ref = json.loads((REFERENCE / "pref_voting_fixture_linear_profile_0.json").read_text())
    cands = [str(c) for c in ref["preferences"]["candidates"]]
    rows.append({"id": "pref_voting_fixture_linear_profile_0", "domain": "election",
                 "candidates": cands, "tie_break": cands,
                 "ballots": [{"ranking": [str(g[0]) for g in b["ranking"]], "count": b["count"]}
                             for b in ref["preferences"]["ballots"]],
                 "questions": [{"type": "winner", "rule": r} for r in RULES]})
    return rows


def generated() -> list[dict]:
    out = []
    for s, rule in enumerate(RULES, 1201):
        e = impartial_culture_election(12, 50, seed=s, rule=rule,
                                       instance_id=f"ic-m12-n50-{rule}-s{s}")
        e["questions"] = ["winner", "manipulation"]
        out.append(e)
    return out


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, e in preflib_elections().items():
        (OUT / name).write_text(json.dumps(e, ensure_ascii=False, indent=1) + "\n",
                                encoding="utf-8")
    for name, rows in (("reference.jsonl", reference()),
                       ("generated-m12-n50.jsonl", generated())):
        (OUT / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                encoding="utf-8")


if __name__ == "__main__":
    main()
