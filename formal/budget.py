"""The cross-check budget: which labels run their cross-check engines.

A label's proof is its certificate, verified by the checker. Once an engine has answered
with a certificate, the engines after it only *cross-check* the verdict (a record, never a
proof). Under the ``budget`` mode a label runs them only when the cross-check is **due**:

- its instance is **small** — the canonical JSON of the instance (the text its
  ``instance_sha256`` hashes) is at most :data:`MAX_BYTES` characters; that is the
  per-label budget: a whole cross-check on instances up to that size (a few tens of
  milliseconds for CP-SAT and z3 on an SMTI market of 10 a side), none beyond; or
- its instance is in the **sample**: the first 8 hex digits of ``instance_sha256``, read
  as an integer, are divisible by :data:`SAMPLE_ONE_IN` (1 instance in 128, every
  question of it). The rate sets what the default costs over the oracle alone on a corpus
  of many small instances: measured on 5,000 SMTI markets of n = 10 (three notions;
  benchmarks/bench_targets.py, ``smti-5000``), 1 in 16 cost 2.9x the oracle-only
  labelling, and 1 in 64 2.5x once the oracle-only labelling got faster (each sampled
  label runs CP-SAT and z3, about 10 ms together, and each worker imports OR-Tools once);
  1 in 128 keeps the default within 2x and still cross-checks about 40 instances (120
  labels) of such a corpus.

Both tests read the instance's content only — no wall clock, no order, no machine — so the
decision is made before any engine runs and a label is the same on every run, machine and
``--jobs``. A solver that reaches its time limit still answers ``unknown`` in the
``engines`` record, as before; that never changes the verdict, solution or certificate.

Standard library only: the checker reads this rule to verify a label's ``cross_check``
record (:func:`prefcert.formal.checker.check_record`).
"""
from __future__ import annotations

#: The modes of ``cross_check=`` / ``--cross-check``.
MODES = ("always", "budget", "never")
#: The reasons a label's ``cross_check`` record may give for skipping: the budget (a large
#: instance outside the sample) or the ``never`` mode.
REASONS = ("budget", "never")
#: The largest instance (characters of its canonical JSON) whose cross-check is in budget.
MAX_BYTES = 1024
#: One instance in this many is in the sample, whatever its size.
SAMPLE_ONE_IN = 128


def in_sample(sha256: str) -> bool:
    """Is the instance with this ``instance_sha256`` in the cross-check sample?

    Parameters
    ----------
    sha256 : str
        The instance's ``instance_sha256`` (hex digits).

    Returns
    -------
    bool
        True for 1 instance in :data:`SAMPLE_ONE_IN` (the first 8 hex digits, as an
        integer, divisible by it). O(1).
    """
    return int(sha256[:8], 16) % SAMPLE_ONE_IN == 0


def due(sha256: str, size: int) -> bool:
    """Is the cross-check of a label on this instance due under the ``budget`` mode?

    Parameters
    ----------
    sha256 : str
        The instance's ``instance_sha256``.
    size : int
        The length of the instance's canonical JSON.

    Returns
    -------
    bool
        True when the instance is small (``size <= MAX_BYTES``) or in the sample. O(1).
    """
    return size <= MAX_BYTES or in_sample(sha256)
