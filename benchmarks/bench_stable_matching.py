"""Time prefcert's stable-matching engines against peer packages, in one run.

    python benchmarks/bench_stable_matching.py [--sizes 100,300,1000]
        [--encoding-sizes 30,100,300] [--repeat 3] [--time-limit 60] [--peer-timeout 300]
        [--seed 0]

Rows printed (seconds are wall-clock, best of ``--repeat`` runs — fewer once a timing has
used 30 s — each measured from the same raw instance dict to the answer, so each side's own
input construction is included; peers run in a forked child process, stopped after
``--peer-timeout`` seconds):

- ``DA``: :func:`oracles.stable_matching.deferred_acceptance` (men proposing) against
  ``matching.games.StableMarriage.create_from_dictionaries(...).solve("suitor")``
  (PyPI ``matching``) on strict complete lists;
- ``super`` / ``strong``: :func:`oracles.stable_matching.super_stable_matching` /
  ``strongly_stable_matching`` against ``algmatch``'s
  ``StableMarriageProblemWithTies(dictionary=..., stability_type="super"|"strong")
  .get_stable_matching()`` on complete lists with ties (p = 0.2);
- ``cpsat:<notion>`` / ``z3:<notion>``: our encodings (``prefcert.encodings``) on the same
  kind of instance at the encoding sizes, against our own oracle for that notion
  (the "peer" column is then the oracle), run once each (a call takes seconds).

``ratio`` = ours / peer (below 1: we are faster). ``agree`` compares the existence verdicts
(and, for DA, the matchings). Instances come from :func:`generators.stable_matching.sample_smti` with
seed ``--seed + n``. This is a timing script, not a test: it asserts nothing.
"""
from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from prefcert.formal.checker.stable_matching import blocking_pairs
from prefcert.formal.stable_matching import parse_market
from prefcert.generators.stable_matching import sample_smti
from prefcert.oracles import stable_matching as orc

ORACLE = {"weak": orc.weakly_stable_matching, "strong": orc.strongly_stable_matching,
          "super": orc.super_stable_matching}


BUDGET = 30.0   # seconds: stop repeating a timing once this much was spent on it


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """(fastest wall time in seconds, result of the last run); repeats stop early once
    ``BUDGET`` seconds were spent."""
    best, out, spent = float("inf"), None, 0.0
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        best, spent = min(best, dt), spent + dt
        if spent > BUDGET:
            break
    return best, out


class PeerTimeout(Exception):
    pass


def _child(conn, fn, args):
    try:
        t0 = time.perf_counter()
        out = fn(*args)
        conn.send(("ok", time.perf_counter() - t0, out))
    except BaseException as e:
        conn.send(("err", 0.0, f"{type(e).__name__}: {e}"))
    conn.close()


def timed_in_child(fn: Callable, args: tuple, timeout: float) -> tuple[float, Any]:
    """Run ``fn(*args)`` in a forked child process; (seconds measured inside the child,
    result). Raises PeerTimeout after ``timeout`` seconds (the child is terminated) and
    RuntimeError if the child raised."""
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, fn, args), daemon=True)
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout):
            raise PeerTimeout
        kind, secs, out = parent.recv()
    finally:
        if proc.is_alive():
            proc.terminate()
        proc.join()
    if kind == "err":
        raise RuntimeError(out)
    return secs, out


def best_of_peer(fn: Callable, args: tuple, repeat: int, timeout: float) -> tuple[float, Any]:
    """As :func:`best_of` for a peer run in a child process with a time limit."""
    best, out, spent = float("inf"), None, 0.0
    for _ in range(max(1, repeat)):
        dt, out = timed_in_child(fn, args, timeout)
        best, spent = min(best, dt), spent + dt
        if spent > BUDGET:
            break
    return best, out


def in_big_stack(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` in a thread with a 512 MiB stack and a high recursion limit: the
    ``matching`` package deep-copies its mutually referencing players recursively, which
    overflows the default limits from n ≈ 100 on."""
    box: dict = {}

    def target():
        try:
            box["out"] = fn()
        except BaseException as e:          # reported in the table, never raised
            box["err"] = e

    old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size()
    sys.setrecursionlimit(1_000_000)
    threading.stack_size(512 * 1024 * 1024)
    try:
        t = threading.Thread(target=target)
        t.start()
        t.join()
    finally:
        threading.stack_size(old_stack)
        sys.setrecursionlimit(old_limit)
    if "err" in box:
        raise box["err"]
    return box["out"]


# ----------------------------------------------------------------- peers


def peer_da(inst: dict) -> dict[str, str]:
    from matching.games import StableMarriage
    prefs = inst["preferences"]
    game = StableMarriage.create_from_dictionaries(prefs["A"], prefs["B"])
    result = game.solve(optimal="suitor")
    return {s.name: r.name for s, r in result.items() if r is not None}


def to_algmatch(inst: dict) -> dict:
    """DESIGN.md preferences -> algmatch's dictionary format (integer ids; "A7" -> 7)."""
    def conv(lst):
        return [int(x[1:]) if isinstance(x, str) else [int(y[1:]) for y in x] for x in lst]
    p = inst["preferences"]
    return {"men": {int(a[1:]): conv(l) for a, l in p["A"].items()},
            "women": {int(b[1:]): conv(l) for b, l in p["B"].items()}}


def peer_algmatch(inst: dict, notion: str) -> dict[str, str] | None:
    from algmatch.stableMarriageProblemWithTies import StableMarriageProblemWithTies
    solver = StableMarriageProblemWithTies(dictionary=to_algmatch(inst), stability_type=notion)
    out = solver.get_stable_matching()
    if out is None:
        return None
    return {f"A{m[1:]}": f"B{w[1:]}" for m, w in out["man_sided"].items() if w}


# ----------------------------------------------------------------- rows


def row(n, task, ours_name, ours_s, peer_name, peer_s, agree, note="", peer_bound=None):
    """One table line; ``peer_bound``: the peer timed out after this many seconds, so the
    ratio is an upper bound (printed with ``<``)."""
    if peer_bound:
        ratio = f"<{ours_s / peer_bound:7.3f}"
    elif peer_s and peer_s == peer_s and ours_s == ours_s:
        ratio = f"{ours_s / peer_s:8.3f}"
    else:
        ratio = "     n/a"
    fmt = lambda s: f"{s:9.4f}" if s == s else "      n/a"
    print(f"{n:>5} {task:<13} {ours_name:<26} {fmt(ours_s)} {peer_name:<30} {fmt(peer_s)} "
          f"{ratio} {agree:<6} {note}", flush=True)


def verdict(m) -> str:
    return "none" if m is None else "exists"


def peer_da_big_stack(inst: dict) -> dict[str, str]:
    return in_big_stack(lambda: peer_da(inst))


def bench_oracles(sizes: list[int], repeat: int, seed: int, peer_timeout: float) -> None:
    for n in sizes:
        strict = sample_smti(n, seed=seed + n, id=f"strict-{n}")
        t_ours, ours = best_of(lambda: orc.deferred_acceptance(parse_market(strict)), repeat)
        try:
            t_peer, peer = best_of_peer(peer_da_big_stack, (strict,), repeat, peer_timeout)
            agree, note = str(peer == ours), ""
        except PeerTimeout:
            t_peer, agree, note = float("nan"), "-", f"peer timed out (> {peer_timeout:g} s)"
        except Exception as e:
            t_peer, agree, note = float("nan"), "-", f"peer failed: {type(e).__name__}"
        row(n, "DA", "deferred_acceptance", t_ours, "matching.StableMarriage", t_peer, agree, note,
            peer_timeout if "timed out" in note else None)

        tied = sample_smti(n, tie_prob=0.2, seed=seed + n, id=f"ties-{n}")
        for notion in ("super", "strong"):
            t_ours, ours = best_of(lambda: ORACLE[notion](parse_market(tied)), repeat)
            try:
                t_peer, peer = best_of_peer(peer_algmatch, (tied, notion), repeat, peer_timeout)
                agree = str(verdict(ours) == verdict(peer))
                note = f"ours {verdict(ours)}, algmatch {verdict(peer)}"
                if peer is not None and blocking_pairs(parse_market(tied), peer, notion):
                    note += " (algmatch's matching has blocking pairs)"
            except PeerTimeout:
                t_peer, agree = float("nan"), "-"
                note = f"ours {verdict(ours)}; algmatch timed out (> {peer_timeout:g} s)"
            except Exception as e:
                t_peer, agree, note = float("nan"), "-", f"peer failed: {type(e).__name__}: {e}"
            row(n, notion, f"{ORACLE[notion].__name__}", t_ours,
                f"algmatch SMT {notion}", t_peer, agree, note,
                peer_timeout if "timed out" in note else None)


def bench_encodings(sizes: list[int], time_limit: float, seed: int) -> None:
    from prefcert.encodings.stable_matching import (
        stable_matching_cpsat,
        stable_matching_z3,
    )
    for n in sizes:
        tied = sample_smti(n, tie_prob=0.2, seed=seed + n, id=f"ties-{n}")
        market = parse_market(tied)
        for notion in ("weak", "strong", "super"):
            t_orc, m = best_of(lambda: ORACLE[notion](market), 1)
            for name, fn in (("cpsat", stable_matching_cpsat), ("z3", stable_matching_z3)):
                t0 = time.perf_counter()
                out = fn(market, notion, time_limit=time_limit, seed=0)
                t = time.perf_counter() - t0
                agree = str(out.verdict == verdict(m)) if out.verdict != "unknown" else "-"
                row(n, f"{name}:{notion}", f"{name} (ladder)", t, f"oracle {ORACLE[notion].__name__}",
                    t_orc, agree, f"{out.verdict}; build {out.stats.get('build_seconds')}s")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Time prefcert's stable-matching engines against peers.")
    ints = lambda s: [int(x) for x in s.split(",") if x]
    ap.add_argument("--sizes", type=ints, default=[100, 300, 1000],
                    help="n a side for DA / super / strong vs peers (default 100,300,1000)")
    ap.add_argument("--encoding-sizes", type=ints, default=[30, 100, 300],
                    help="n a side for the CP-SAT and z3 encodings (default 30,100,300)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per oracle/peer timing (best kept)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per solver call")
    ap.add_argument("--peer-timeout", type=float, default=300.0,
                    help="seconds after which a peer run is stopped and reported as timed out")
    ap.add_argument("--seed", type=int, default=0, help="instance seed offset (seed + n)")
    args = ap.parse_args(argv)
    print(f"{'n':>5} {'task':<13} {'ours':<26} {'ours_s':>9} {'peer':<30} {'peer_s':>9} "
          f"{'ratio':>8} {'agree':<6} note")
    bench_oracles(args.sizes, args.repeat, args.seed, args.peer_timeout)
    if args.encoding_sizes:
        bench_encodings(args.encoding_sizes, args.time_limit, args.seed)


if __name__ == "__main__":
    main()
