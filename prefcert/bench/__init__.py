"""The benchmark builder: suites as data, generation, prompts, parsing, scoring, feedback,
refinement and reports.

A *suite* (:class:`~prefcert.bench.design.Suite`) is a declarative design — factors and
their levels, rows of cells, instances per cell, prompt variants, sizes, a seed — plus a few
per-suite hooks (sampling, rendering, gold answers, parsing and scoring, metrics, feedback,
plots). Suites are listed in one table, :data:`prefcert.bench.suites.SUITES`, and imported
on first use. ``docs/suites.md`` explains how to add one.
"""
