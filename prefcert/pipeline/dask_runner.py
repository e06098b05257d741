"""``prefcert label --dask ADDRESS``: the label jobs run on a Dask cluster; the parent (the
``prefcert`` process) alone writes the output.

The parent plans every job (so bad input is still rejected before any work), then submits
them to the cluster in a bounded window, in job order, and hands the results back to the
label loop of :mod:`prefcert.cli` **in job order** — exactly as the ``--jobs`` process pool
does — so the output file, its lock, the resume step and the no-duplicate rule are the
same code for a local and a distributed run: a label is written once, by the parent, when
its job's result arrives.

- **Workers** re-plan their job from the instance and the question as asked (the same
  :func:`prefcert.pipeline.jobs.plan` the parent ran), label it with
  :func:`prefcert.pipeline.jobs.label` — which runs the engines *and the checker* — and return
  the same ``(kind, payload)`` result as a local worker. A worker process runs one job at a
  time (CP-SAT's worker count is process state), so start workers with ``--nthreads 1``.
- **The client re-checks** the certificate of a sample of the labels with its own checker
  (the first label of every question, then one in :data:`SAMPLE_EVERY`, chosen by a hash of
  the label's key so a rerun picks the same ones), or of all of them with ``verify_all``;
  it always checks that a label answers its job (id, question, instance hash). A label the
  client rejects becomes a disagreement report, never a line of the output.
- **A worker that dies** (killed, out of memory, its machine gone) loses nothing: the
  scheduler reruns the tasks it held on another worker, and the parent still writes each
  job's label once. A task that kills ``distributed.scheduler.allowed-failures`` workers in
  a row (3 by default) is reported as a job without a label.

``ADDRESS`` is ``local:N`` (a LocalCluster of N one-thread worker processes on this
machine), a scheduler address (``tcp://host:8786``) or a scheduler file written by
``dask scheduler --scheduler-file FILE``. The workers need the same prefcert version as
the client, which is checked before any job is sent.
"""
from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Any

from ..formal.errors import CertificateError, InstanceError
from .parallel import cores, run_one

#: the client re-checks one label in SAMPLE_EVERY (and the first of every question)
SAMPLE_EVERY = 20
#: jobs submitted ahead of the next label to write, per worker (at least MIN_WINDOW)
WINDOW_PER_WORKER = 256
MIN_WINDOW = 1024
#: jobs per Dask task: at most MAX_CHUNK, and at least CHUNKS_PER_WORKER tasks a worker
MAX_CHUNK = 16
CHUNKS_PER_WORKER = 16

#: Dask's nannies start workers with MALLOC_TRIM_THRESHOLD_ set, which turns off glibc's
#: dynamic mmap threshold: every z3 context then maps and unmaps its memory, and labelling
#: runs about 2x slower. A LocalCluster unsets it; for a real cluster see the README.
NO_TRIM = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"

_ONE_AT_A_TIME = threading.Lock()      # per worker process: CP-SAT's worker count is global


# ------------------------------------------------------------------------------ worker side

def _probe() -> str:
    """Run on each worker before any job: prefcert's version there."""
    import prefcert
    return prefcert.__version__


def label_remote(instances, jobs, names, time_limit, seed, cpsat_workers,
                 cross_check: str = "always") -> list[tuple[str, Any]]:
    """A worker's task: a chunk of jobs, each (index into ``instances``, question as
    asked), re-planned and labelled (engines and checker); returns each job's ``(kind,
    payload)`` as a local worker does."""
    from ..encodings import set_cpsat_workers
    from .jobs import plan
    out = []
    with _ONE_AT_A_TIME:
        set_cpsat_workers(cpsat_workers or int(os.environ.get("PREFCERT_CPSAT_WORKERS", "1")))
        for i, asked in jobs:
            try:
                (job,) = plan([instances[i]], [asked])
            except InstanceError as e:
                out.append(("bad_input", str(e)))
                continue
            out.append(run_one(job, names, time_limit, seed, cross_check))
    return out


def chunk_size(jobs: int, workers: int) -> int:
    """Jobs per task: one for small runs, up to MAX_CHUNK so that every worker still gets
    at least CHUNKS_PER_WORKER tasks (a task is the unit a dead worker's replacement
    redoes)."""
    return max(1, min(MAX_CHUNK, jobs // (workers * CHUNKS_PER_WORKER)))


# ------------------------------------------------------------------------------ client side

def parse_address(address: str) -> tuple[str, Any]:
    """``("local", N)``, ``("file", path)`` or ``("address", text)``; InstanceError (bad
    input, exit 2) for an unusable value."""
    if address.startswith("local:"):
        n = address[len("local:"):]
        if not n.isdigit() or int(n) < 1:
            raise InstanceError("--dask local:N takes a positive number of workers",
                                value=address)
        return "local", int(n)
    if Path(address).is_file():
        return "file", address
    if not address or any(c.isspace() for c in address) or ":" not in address:
        raise InstanceError("--dask takes local:N, a scheduler address (tcp://HOST:PORT) or "
                            "a scheduler file", value=address)
    return "address", address


class Cluster:
    """A connection to a Dask cluster (``connect``), checked to run this prefcert."""

    def __init__(self, address: str, timeout: float = 20.0):
        kind, value = parse_address(address)
        try:
            import logging

            from distributed import Client, LocalCluster
        except ImportError:
            raise InstanceError("--dask needs dask.distributed (pip install "
                                "'prefcert[dask]')", value=address) from None
        self.local = None
        self.address = address
        try:
            if kind == "local":
                import dask
                with dask.config.set({NO_TRIM: None}):      # see NO_TRIM
                    self.local = LocalCluster(n_workers=value, threads_per_worker=1,
                                              processes=True, host="127.0.0.1",
                                              dashboard_address=None,
                                              silence_logs=logging.ERROR)
                self.client = Client(self.local, timeout=timeout)
                self.cpsat = max(1, cores() // value)     # as --jobs N gives each worker
            elif kind == "file":
                self.client = Client(scheduler_file=value, timeout=timeout)
                self.cpsat = None
            else:
                self.client = Client(value, timeout=timeout)
                self.cpsat = None
        except (OSError, TimeoutError, ValueError) as e:
            self.close()
            raise InstanceError(f"cannot reach the Dask scheduler ({e.__class__.__name__}: "
                                f"{e})", value=address) from None
        self._check_workers(timeout)

    def _check_workers(self, timeout: float) -> None:
        import prefcert
        try:
            self.client.wait_for_workers(1, timeout=timeout)
            versions = self.client.run(_probe)
        except Exception as e:        # no worker, or workers that cannot import prefcert
            self.close()
            raise InstanceError(f"the Dask workers cannot run prefcert "
                                f"({e.__class__.__name__}: {e})", value=self.address) from None
        wrong = {w: v for w, v in versions.items() if v != prefcert.__version__}
        if wrong:
            self.close()
            w, v = next(iter(wrong.items()))
            raise InstanceError(f"worker {w} runs prefcert {v}, this client "
                                f"{prefcert.__version__}", value=self.address)
        self.workers = len(versions)

    def close(self) -> None:
        client, local = getattr(self, "client", None), self.local
        self.client = self.local = None
        if client is not None:
            try:
                client.close()
            except Exception:
                pass
        if local is not None:
            try:
                local.close()
            except Exception:
                pass


def _sampled(key: tuple[str, str], seed: int) -> bool:
    h = hashlib.sha256(f"{seed}\0{key[0]}\0{key[1]}".encode()).digest()
    return int.from_bytes(h[:8], "big") % SAMPLE_EVERY == 0


class DaskResults:
    """Each job's ``(kind, payload)``, in job order, computed on the cluster (the same
    interface as the local ``_Results`` of :mod:`prefcert.cli`)."""

    def __init__(self, cluster: Cluster, todo: list, names, time_limit, seed, *,
                 verify_all: bool = False, cross_check: str = "always"):
        self.cluster, self.todo = cluster, todo
        self.args = (names, time_limit, seed, cluster.cpsat, cross_check)
        self.seed, self.verify_all = seed, verify_all
        self.window = max(MIN_WINDOW, WINDOW_PER_WORKER * cluster.workers)
        self.verified = 0
        self._seen_questions: set = set()

    def __iter__(self):
        from distributed import as_completed
        client, n = self.cluster.client, len(self.todo)
        size = chunk_size(n, self.cluster.workers)
        token = os.urandom(6).hex()
        pending = as_completed()
        first: dict = {}                       # task key -> index of its first job
        ready: dict[int, tuple[str, Any]] = {}
        submitted = 0
        for head in range(n):
            while submitted < n and submitted - head < self.window:
                chunk = self.todo[submitted:submitted + size]
                instances, pos, jobs = [], {}, []
                for job in chunk:          # each instance shipped once per task
                    if id(job.instance) not in pos:
                        pos[id(job.instance)] = len(instances)
                        instances.append(job.instance)
                    jobs.append((pos[id(job.instance)], job.asked))
                f = client.submit(label_remote, instances, jobs, *self.args,
                                  key=f"prefcert-label-{token}-{submitted}", pure=False)
                first[f.key] = submitted
                pending.add(f)
                submitted += len(chunk)
            while head not in ready:
                f = next(pending)
                start = first.pop(f.key)
                chunk = self.todo[start:start + size]
                for i, res in enumerate(self._results(f, chunk)):
                    ready[start + i] = res
                f.release()
            yield ready.pop(head)

    def _results(self, future, chunk: list) -> list[tuple[str, Any]]:
        from distributed import KilledWorker

        from .jobs import disagreement_report
        try:
            results = future.result()
        except KilledWorker as e:
            return [("undecided", f"every Dask worker that ran this job died ({e})")] * \
                len(chunk)
        except Exception as e:       # an error outside the pipeline (it catches its own)
            return [("disagreement", disagreement_report(
                job, f"the Dask task failed: {e.__class__.__name__}: {e}")) for job in chunk]
        return [self._result(r, job) for r, job in zip(results, chunk)]

    def _result(self, result: tuple[str, Any], job) -> tuple[str, Any]:
        from .jobs import disagreement_report
        kind, payload = result
        if kind != "label":
            return kind, payload
        try:
            self._verify(job, payload)
        except CertificateError as e:
            return "disagreement", disagreement_report(
                job, f"the client's checker rejects the worker's label: {e}", label=payload)
        return kind, payload

    def _verify(self, job, lab: dict) -> None:
        """The label answers this job; its certificate is re-checked here when sampled."""
        from ..formal import checker
        from .registry import spec
        if (lab.get("id"), lab.get("question"), lab.get("instance_sha256")) != \
                (job.instance.id, job.asked, job.instance.sha256):
            raise CertificateError("the label is not about this job's instance and question")
        first = (job.instance.domain, job.question.name) not in self._seen_questions
        self._seen_questions.add((job.instance.domain, job.question.name))
        if not lab.get("checked"):
            return                      # engine agreement only: counted as unverified
        if self.verify_all or first or _sampled(job.key, self.seed):
            checker.check_label(spec(job.instance.domain), lab, job.model, job.question.name,
                                job.params)
            self.verified += 1

    def close(self) -> None:
        self.cluster.close()
