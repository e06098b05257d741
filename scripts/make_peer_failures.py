"""Write ``instances/peer_failures/``: regression instances for ``prefcert audit-library``.

Run from the repository root::

    python scripts/make_peer_failures.py

Each instance carries ``peer_failure`` (elections: ``source.peer_failure``, their
format admits no other field): the library, ``expected`` (run of
``prefcert.pipeline.peers`` -> its verdict there: crash / incorrect / correct when fixed upstream)
and the source. ``SOURCES.md`` lists them. Deterministic.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "instances" / "peer_failures"


def hr(iid, residents, hospitals, capacities, failure):
    return {"id": iid, "domain": "hospitals_residents",
            "preferences": {"residents": residents, "hospitals": hospitals},
            "capacities": capacities, "questions": ["weakly_stable"], "peer_failure": failure}


def issue_112() -> dict:
    """The reproduction script of daffidwilde/matching issue #112, run as written there
    (numpy's legacy seed 0), with names prefixed r/h (the issue uses the same integers on
    both sides)."""
    np.random.seed(0)
    nr, nh = 400, 20
    rp = {r: np.argsort(np.random.random(size=nh)) for r in range(nr)}
    hp = {h: np.argsort(np.random.random(size=nr)) for h in range(nh)}
    _ = {h: np.random.randint(1, 10) for h in hp}            # the issue's first game
    caps = {h: int(np.random.randint(0, 10)) for h in hp}    # the failing second game
    return hr("matching_issue_112_capacity_zero",
              {f"r{r}": [f"h{int(h)}" for h in v] for r, v in rp.items()},
              {f"h{h}": [f"r{int(r)}" for r in v] for h, v in hp.items()},
              {f"h{h}": c for h, c in caps.items()},
              {"library": "matching", "expected": {"matching:hr-resident": "crash"},
               "source": "https://github.com/daffidwilde/matching/issues/112",
               "reported": "IndexError in HospitalResident when a capacity is zero"})


MATCHING = [
    issue_112(),
    hr("matching_issue_167_empty_hospital_lists",
       {"r1": ["h1", "h2"], "r2": ["h2", "h1"], "r3": ["h1"]}, {"h1": [], "h2": []},
       {"h1": 1, "h2": 2},
       {"library": "matching", "expected": {"matching:hr-resident": "crash"},
        "source": "https://github.com/daffidwilde/matching/issues/167",
        "reported": "ValueError '... is not in list' when hospitals give empty preference "
                    "lists; the instance is ours, in the shape the issue describes"}),
    hr("matching_issue_173_hospital_optimal",
       {"S1": ["H1", "H2"], "S2": ["H3", "H1"], "S3": ["H1", "H3"], "S4": ["H3", "H2"],
        "S5": ["H1", "H3"], "S6": ["H2", "H1"], "S7": ["H3", "H1"], "S8": ["H2", "H1"]},
       {"H1": ["S5", "S6", "S3", "S4", "S1", "S2", "S7", "S8"],
        "H2": ["S8", "S2", "S3", "S4", "S5", "S6", "S7", "S1"],
        "H3": ["S7", "S2", "S4", "S5", "S3", "S1", "S6", "S8"]},
       {"H1": 2, "H2": 2, "H3": 2},
       {"library": "matching", "expected": {"matching:hr-hospital": "crash",
                                            "matching:hr-resident": "correct"},
        "source": "https://github.com/daffidwilde/matching/issues/173",
        "reported": "ValueError 'H2 is not in list' with optimal='hospital' when every "
                    "hospital ranks every resident; residents, H1, H2 and the capacities as "
                    "in the issue (8 residents, 6 posts), H3's list after its first entry "
                    "completed by us (the text we had stops there)"}),
    hr("matching_issue_109_one_sided_entry",
       {"A": ["C"], "S": ["C", "M"], "D": ["C", "M", "G"], "J": ["C", "G", "M"],
        "L": ["M", "C", "G"]},
       {"M": ["D", "L", "S", "J"], "C": ["D", "A", "S", "L", "J"], "G": ["D", "J", "L", "S"]},
       {"M": 2, "C": 2, "G": 2},
       {"library": "matching", "expected": {"matching:hr-resident": "correct"},
        "source": "https://github.com/daffidwilde/matching/issues/109",
        "reported": "an exception when a hospital ranks a resident who does not rank it; "
                    "fixed upstream (1.4 warns and drops the entry): kept as a regression"}),
    hr("matching_minimal_capacity_zero_hospital_optimal",
       {"r1": ["h1"]}, {"h1": ["r1"]}, {"h1": 0},
       {"library": "matching", "expected": {"matching:hr-hospital": "incorrect"},
        "source": "found by prefcert's random audit and shrunk by prefcert.pipeline.minimize (the "
                  "capacity-0 family of issue #112)",
        "reported": "hospital-optimal run assigns a resident to a hospital of capacity 0"}),
]

ALGMATCH = [
    hr("algmatch_minimal_capacity_zero", {"r1": ["h1"]}, {"h1": ["r1"]}, {"h1": 0},
       {"library": "algmatch",
        "expected": {"algmatch:hrt-strong-residents": "crash",
                     "algmatch:hrt-super-hospitals": "incorrect"},
        "source": "found by prefcert's random audit and shrunk by prefcert.pipeline.minimize; no "
                  "report in the issue trackers we searched",
        "reported": "a hospital of capacity 0: KeyError (strong, resident-optimal), and "
                    "'no super-stable matching' (super, hospital-optimal) although the "
                    "empty matching is super-stable"}),
    hr("algmatch_minimal_capacity_zero_invalid", {"r1": ["h1"], "r2": ["h1"]},
       {"h1": ["r1", "r2"]}, {"h1": 0},
       {"library": "algmatch", "expected": {"algmatch:hrt-super-hospitals": "incorrect",
                                            "algmatch:hrt-strong-hospitals": "crash"},
        "source": "found by prefcert's random audit and shrunk by prefcert.pipeline.minimize",
        "reported": "a hospital of capacity 0 and two applicants: the resident-optimal super "
                    "run assigns a resident to it or crashes, depending on set iteration "
                    "order (PYTHONHASHSEED), so only the order-independent runs are "
                    "expected here"}),
]


def burlington_2006() -> dict:
    """pref-voting issue #106: ``instant_runoff`` on a ProfileWithTies of the 2006
    Burlington mayoral election (voters ranked up to five of six candidates, some ranks
    shared or skipped) raised an error. The data: PrefLib 00005-00000001 (the same
    election), converted by prefcert with τ = PrefLib's numbering."""
    from prefcert.api.election import election_from_preflib
    e = election_from_preflib(ROOT / "tests" / "data" / "preflib" / "toi" /
                              "00005-00000001.toi")
    e = {k: v for k, v in e.items() if k not in ("questions", "source")}
    e.update(id="pref_voting_issue_106_burlington_2006",
             questions=[{"type": "winner", "rule": "irv"}],
             source={"preflib": "00005-00000001.toi", "peer_failure": {
                 "library": "pref-voting",
                 "expected": {"pref-voting:irv-put": "unsupported",
                              "pref-voting:irv-tb": "unsupported",
                              "pref-voting:copeland": "correct"},
                 "source": "https://github.com/voting-tools/pref_voting/issues/106",
                 "reported": "an error from instant_runoff on a ProfileWithTies of the 2006 "
                             "Burlington election (tied and skipped ranks); no error in the "
                             "version audited (1.18): IRV now answers, under its own reading "
                             "of tied ballots (not judged: 'unsupported'), and Copeland, "
                             "whose reading of ties is prefcert's, is judged correct"}})
    return e


def election(iid, candidates, ballots, failure):
    return {"id": iid, "domain": "election", "candidates": candidates,
            "tie_break": list(candidates), "ballots": ballots,
            "questions": [{"type": "winner", "rule": "copeland"}],
            "source": {"peer_failure": failure}}     # elections admit no unknown field


def failure_of(inst: dict) -> dict:
    """An instance's ``peer_failure`` record (under ``source`` for elections)."""
    return inst.get("peer_failure") or inst["source"]["peer_failure"]


PREF_VOTING = [burlington_2006()]

PREFLIBTOOLS = [
    election("preflibtools_minimal_copeland_margin_sum", ["c1", "c2", "c3"],
             [{"ranking": ["c1", "c2", "c3"], "count": 2}, ["c2", "c3", "c1"]],
             {"library": "preflibtools", "expected": {"preflibtools:copeland": "incorrect"},
              "source": "found by prefcert's random audit of preflibtools 2.0 (28 of 161 "
                        "random full strict profiles), the smallest by enumeration of "
                        "profiles over 3 then 4 candidates with 1..5 voters; no report in "
                        "the issue trackers we searched",
              "reported": "copeland_winner ranks alternatives by the sum of their pairwise "
                          "margins (a Borda-equivalent score), not by pairwise wins: here "
                          "c1 beats c2 (2-1) and c3 (2-1) and c2 beats c3 (3-0), so c1 is "
                          "the only Copeland winner, but the margin sums tie c1 and c2 at 2"}),
]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, rows in (("matching.jsonl", MATCHING), ("algmatch.jsonl", ALGMATCH),
                       ("pref_voting.jsonl", PREF_VOTING),
                       ("preflibtools.jsonl", PREFLIBTOOLS)):
        with (OUT / name).open("w", encoding="utf-8") as f:
            for inst in rows:
                f.write(json.dumps(inst, separators=(",", ":")) + "\n")
    lines = ["# Known peer failures (regression instances of `prefcert audit-library`)", "",
             "Each instance's `peer_failure` field (elections: `source.peer_failure`) names the "
             "library, the verdict of "
             "each run of `prefcert.pipeline.peers` there and the source. Written by "
             "`python scripts/make_peer_failures.py`.", "",
             "| id | run: expected verdict | source |", "|---|---|---|"]
    every = MATCHING + ALGMATCH + PREF_VOTING + PREFLIBTOOLS
    for inst in every:
        f = failure_of(inst)
        runs = "; ".join(f"`{r}`: {v}" for r, v in f["expected"].items())
        lines.append(f"| `{inst['id']}` | {runs} | {f['source']} |")
    lines += ["", "What was reported, per instance:", ""]
    lines += [f"- `{i['id']}`: {failure_of(i)['reported']}." for i in every]
    lines += ["", "Preference lists taken from the issues are facts restated as data; no code "
              "is taken from the projects (`daffidwilde/matching` is MIT-licensed). The "
              "Burlington ballots are PrefLib data (cite Mattei & Walsh, ADT 2013, and J. "
              "O'Neill, OpenSTV, 2013; see `tests/data/preflib/SOURCES.md`).", ""]
    (OUT / "SOURCES.md").write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
