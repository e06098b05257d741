"""prefcert's benchmark suites as Inspect AI tasks (``pip install 'prefcert[inspect]'``).

Imported only by Inspect (the ``inspect_ai`` entry point names :mod:`._registry`) and by
the commands that run or read Inspect evaluations (``prefcert eval``, ``prefcert score``
and ``prefcert report`` on ``.eval`` logs); ``import prefcert`` and ``prefcert check``
never load it.

- :mod:`.tasks`: one task per registered suite, ``prefcert/<suite>`` (``inspect eval
  prefcert/indeterminacy-algorithmic --model …``), its samples built lazily from the
  design (or read from a generated benchmark) with the gold and the certified labels in
  each sample's metadata;
- :mod:`.scorer`: the scorer (prefcert's own verdicts, the same code as ``prefcert
  score``) and the suite's metrics as an Inspect metric;
- :mod:`.solver`: the refinement protocol (answer, verifier feedback, up to N rounds) as
  a multi-turn solver;
- :mod:`.logs`: Inspect logs read back as answers and scored records (model, epoch,
  timing, tokens);
- :mod:`.run`: the Python-API run behind ``prefcert eval``.

The package is named for the tool it binds, as the Dask runner is; it lives in
``prefcert.bench`` because it runs and reads benchmark suites, and nothing else.
"""
