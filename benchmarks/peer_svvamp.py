"""svvamp's single-voter manipulation on elections written by bench_targets.py (not a test).

Run with a side venv that has svvamp (a peer, never a prefcert dependency):

    /path/to/venv/bin/python benchmarks/peer_svvamp.py ELECTIONS.json

ELECTIONS.json: ``[{"rule", "m", "voters": [[candidate index, ...] best first, ...],
"utilities": [[u, ...], ...]}]`` (approval: utilities strict in the voter's ranking,
positive exactly on its approved candidates, svvamp's approval threshold being 0), voter 0
the manipulator, candidates indexed in τ order
(svvamp breaks ties towards the lowest index, prefcert towards the τ-highest: the same
winner). Prints one JSON line per (rule, m): the median CPU seconds per election of
building the profile and the rule and asking ``is_im_v_with_candidates_(0)`` with
``im_option="exact"`` (each election once untimed first, so svvamp's first-call costs —
imports, caches — are not charged to the first rule), and the verdicts (True: voter 0 can
manipulate).
"""
from __future__ import annotations

import json
import statistics
import sys
import time

import numpy as np
import svvamp

RULES = {"plurality": svvamp.RulePlurality, "borda": svvamp.RuleBorda,
         "irv": svvamp.RuleIRV, "copeland": svvamp.RuleCopeland,
         "approval": svvamp.RuleApproval}


def main() -> None:
    data = json.loads(open(sys.argv[1]).read())
    groups: dict[tuple, list] = {}
    for el in data:
        groups.setdefault((el["rule"], el["m"]), []).append(el)
    for (rule, m), els in groups.items():
        verdicts, times = [], []
        for el in els:
            manipulable(rule, el)                       # warm: untimed
            t0 = time.process_time()
            verdicts.append(manipulable(rule, el))
            times.append(time.process_time() - t0)
        print(json.dumps({"rule": rule, "m": m, "seconds": statistics.median(times),
                          "count": len(els), "verdicts": verdicts}), flush=True)


def manipulable(rule: str, el: dict) -> bool:
    """svvamp's exact answer for voter 0, the profile and the rule built from scratch."""
    if rule == "approval":
        ut = np.array(el["utilities"], dtype=float)
        prof = svvamp.Profile(preferences_ut=ut, sort_voters=False)
    else:
        rk = np.array(el["voters"], dtype=int)
        prof = svvamp.Profile(preferences_rk=rk, sort_voters=False)
    r = RULES[rule](im_option="exact")(prof)
    return bool(r.is_im_v_with_candidates_(0)[0])


if __name__ == "__main__":
    main()
