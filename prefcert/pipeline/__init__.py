"""The pipeline: the domain registry, label and audit jobs, the parallel and Dask runners,
the minimiser of failing instances, candidate classification, minimal counterexamples and
the audit of peer libraries.

- :mod:`.registry` — the one table of domains (name → checker spec, application domain);
- :mod:`.jobs` — :func:`~.jobs.plan`, :func:`~.jobs.label`, :func:`~.jobs.audit`;
- :mod:`.parallel` — the forked worker pool of ``prefcert label --jobs``;
- :mod:`.dask_runner` — the same jobs on a Dask cluster (``--dask``);
- :mod:`.minimize` — delta debugging of an instance on which a predicate fails;
- :mod:`.classify`, :mod:`.counterexample`, :mod:`.peers` — tools built on the above.
"""
