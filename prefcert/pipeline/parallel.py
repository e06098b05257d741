"""The local runner of ``prefcert label``: each job's result, in job order, computed in this
process or by a pool of forked workers (``--jobs``); the Dask runner
(:mod:`.dask_runner`) gives the same results from a cluster."""
from __future__ import annotations

import os
from typing import Any

from ..formal.errors import Disagreement, InstanceError, Undecided
from .jobs import label as _label


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                   # not Linux
        return os.cpu_count() or 1


# A job's result, the same for --jobs 1 and the process pool: (kind, payload).
_RUN: dict = {}        # what the pool's workers inherit (fork): jobs and label options


def run_one(job, names, time_limit, seed, cross_check: str = "always", line=None
            ) -> tuple[str, object]:
    """One job's result: ``("label", label dict)``; with ``line`` (label dict -> its output
    line), ``("line", (line, verdict, checked))`` instead, so that a pool worker sends the
    parent one string (encoded in the worker, in parallel) rather than a pickled dict;
    ``("disagreement", report)``, ``("undecided", reason)`` or ``("bad_input", message)``
    when the job has no label."""
    try:
        lab = _label(job, engines=names, time_limit=time_limit, seed=seed,
                     cross_check=cross_check)
    except Disagreement as d:
        return "disagreement", d.report
    except Undecided as u:
        return "undecided", str(u)
    except InstanceError as e:
        return "bad_input", str(e.located(job.instance.file, job.instance.line))
    if line is None:
        return "label", lab
    return "line", (line(lab), lab["verdict"], lab["checked"])


#: A pool task is a run of consecutive jobs (:func:`chunks`): at most CHUNK_JOBS jobs, and
#: at most CHUNK_CHARS characters of canonical instance JSON (``Instance.size``, summed over
#: its jobs; a job of a larger instance is a task alone). One task per job cost a round
#: trip through the pool's pipes per label, which on small instances was more CPU than the
#: label itself (issue 24).
CHUNK_JOBS = 64
CHUNK_CHARS = 1 << 16


def chunks(todo: list, workers: int) -> list[tuple[int, int]]:
    """The pool's tasks: ``(start, stop)`` ranges covering ``todo`` in order. A range
    closes at :data:`CHUNK_JOBS` jobs, at :data:`CHUNK_CHARS` characters of instance JSON,
    or at a quarter of the even share of one of ``workers`` (so every worker gets several
    tasks and a slow one does not hold the others back). The output does not depend on it:
    the results come back in job order. O(len(todo))."""
    share = max(1, len(todo) // (4 * max(1, workers)))
    limit = min(CHUNK_JOBS, share)
    out: list[tuple[int, int]] = []
    start, chars = 0, 0
    for i, job in enumerate(todo):
        size = job.instance.size
        if i > start and (i - start >= limit or chars + size > CHUNK_CHARS):
            out.append((start, i))
            start, chars = i, 0
        chars += size
    if todo:
        out.append((start, len(todo)))
    return out


def _work(span: tuple[int, int]) -> list[tuple[str, object]]:
    jobs = _RUN["jobs"]
    return [run_one(jobs[i], _RUN["names"], _RUN["time_limit"], _RUN["seed"],
                    _RUN["cross_check"], _RUN["line"]) for i in range(*span)]


def _init_worker(cpsat_workers: int) -> None:
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)       # the parent handles Ctrl-C
    if _PRCTL is not None:                             # die with the parent (Linux)
        _PRCTL(1, signal.SIGTERM)                      # PR_SET_PDEATHSIG
    from ..encodings import set_cpsat_workers
    set_cpsat_workers(cpsat_workers)


#: the C library's ``prctl`` (``ctypes``), found by :func:`_find_prctl` in the parent
#: before it forks: the workers inherit it instead of each importing ``ctypes`` and
#: loading the C library again (a few milliseconds of CPU per worker); None where there
#: is none
_PRCTL: Any = None


def _find_prctl() -> None:
    global _PRCTL
    if _PRCTL is None:
        try:
            import ctypes
            _PRCTL = ctypes.CDLL(None).prctl
        except (OSError, AttributeError):
            pass


def quiet_pool(context, processes: int, initializer, initargs):
    """A ``multiprocessing`` pool whose worker-maintenance thread sleeps until a worker
    exits or the pool changes state. The standard pool (CPython 3.8 to 3.13) also wakes
    that thread whenever a result is waiting in its result queue (the queue's reader is
    among the handles it waits on) but leaves the reading to another thread, so while
    results arrive it spins: about 30 microseconds of CPU per label of small instances
    (a tenth of the whole run, issue 24). The results are the pool's as before; only the
    wake-ups change. The class is made on first use (``multiprocessing.pool`` is imported
    only for a pool)."""
    global _QuietPool
    if _QuietPool is None:
        from multiprocessing.pool import Pool

        class Quiet(Pool):
            def _get_sentinels(self):      # the change notifier only (worker sentinels
                return [self._change_notifier._reader]   # are added by the caller)
        _QuietPool = Quiet
    return _QuietPool(processes, initializer, initargs, context=context)


_QuietPool: Any = None


class LocalResults:
    """Each job's result, in job order: computed here (``jobs`` 1) or by a pool of ``jobs``
    forked workers (:func:`quiet_pool`), created at once (before any progress thread
    starts), each task a run of consecutive jobs (:func:`chunks`); the pool's ordered
    ``imap`` buffers results, so the output order never depends on ``jobs``.
    CP-SAT gets the cores a worker is allowed (cores // jobs, at least 1).
    ``cross_check``: the mode of :func:`prefcert.pipeline.jobs.label`; ``line``: label dict
    -> its output line, applied where the label is made (see :func:`run_one`)."""

    def __init__(self, todo: list, names, time_limit, seed, jobs: int,
                 cross_check: str = "always", line=None):
        import multiprocessing as mp

        from ..encodings import set_cpsat_workers
        self.todo, self.pool = todo, None
        if names is not None:         # one set for every job (label takes a set as is)
            names = frozenset(names)
        self.args = (names, time_limit, seed, cross_check, line)
        self.workers = 1
        n_cores = cores()
        if jobs <= 1 or len(todo) <= 1 or "fork" not in mp.get_all_start_methods():
            set_cpsat_workers(max(1, n_cores))
            return
        _RUN.update(jobs=todo, names=names, time_limit=time_limit, seed=seed,
                    cross_check=cross_check, line=line)
        self.workers = min(jobs, len(todo))
        # the tasks are planned before the fork: read after it, each job's page would be
        # copied in this process (reading an object writes its reference count)
        self.spans = chunks(todo, self.workers)
        _find_prctl()
        self.pool = quiet_pool(mp.get_context("fork"), self.workers, _init_worker,
                               (max(1, n_cores // jobs),))

    def __iter__(self):
        if self.pool is None:
            return (run_one(job, *self.args) for job in self.todo)
        return (r for rs in self.pool.imap(_work, self.spans, chunksize=1) for r in rs)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None
            _RUN.clear()
