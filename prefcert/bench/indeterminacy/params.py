"""Design parameters shared by the Khanna & Wang suites (``prefcert generate SUITE --sizes
N,… --param NAME=VALUE``): open sizes within documented limits, a draw budget for the
rejection samplers, and progress lines for long rejection runs.

The limits (see docs/suites.md):

- ``indeterminacy-algorithmic``: n from 8 to 60 agents. Below 8 a standard menu rarely
  holds its pairwise-distinct candidates (four or five notions plus one or two contaminated
  swaps): measured, HA-TO at n = 6 accepted none of 7,000 draws, while n = 8 fills every
  cell in a few draws; above 60 the exact
  certification of the hard notions (strict core: the top-trading segmentation; strong and
  super stability: the deletion algorithms, each replayed by the checker) stays polynomial,
  but feasible strict-core instances become so rare under ties p = 0.3 (about 6 % of draws
  at n = 30 and 0.4 % at n = 50, digest §3.2) that one cell needs thousands of draws, each
  certified. n = 50 is the paper's Medium size (the code-assisted runs, Table 29).
- ``indeterminacy-preference``: n from 10 to 300 (agents and items). Below 10 a truncated
  list (at least ⌊n/2⌋ items) rarely leaves four listed items beside unlisted ones for the
  ranking queries; above 300 a prompt holds n lists of up to n items (300 × 300 = 90,000
  item names; measured: the longest prompt at n = 300 has 691,061 characters, beyond the
  context of most models, while certification took 1.9 s for 21 labels). The paper uses profiles of 30 to 200 (§2.2). A size outside the paper's
  (50, 100, 200) gets the families the paper varies over size (atomic and comparative);
  bundles, top-k and counts keep their paper sizes (a documented reading).
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from ...formal.errors import InstanceError
from ..design import MAX_DRAWS_LIMIT, int_in  # noqa: F401  (the suites' integer parameters)

#: draws of one task after which a progress line is written to stderr, and every
#: PROGRESS_EVERY draws after that
PROGRESS_EVERY = 500


def check_sizes(suite_name: str, sizes: Sequence[Any], limits: tuple[int, int],
                why: str) -> tuple[int, ...]:
    """``sizes`` as a sorted tuple of distinct ints, refused (InstanceError, one line)
    outside ``limits`` (inclusive). O(len(sizes))."""
    lo, hi = limits
    if not sizes:
        raise InstanceError(f"suite {suite_name}: --sizes is empty", value="")
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, int) or not lo <= s <= hi:
            raise InstanceError(f"suite {suite_name}: sizes must be integers from {lo} to "
                                f"{hi} ({why})", value=s)
    return tuple(sorted(set(sizes)))


class Budget:
    """The draw budget of one task's rejection sampler: ``tick()`` before each draw counts
    it, writes a progress line (draws so far, accepted so far in the cell) every
    :data:`PROGRESS_EVERY` draws, and raises InstanceError (one line naming the cell) once
    ``max_draws`` draws found no acceptable instance."""

    def __init__(self, suite: str, cell: str, max_draws: int, stream=None):
        self.suite, self.cell, self.max_draws = suite, cell, max_draws
        self.draws = 0
        self.stream = stream if stream is not None else sys.stderr

    def tick(self) -> None:
        if self.draws >= self.max_draws:
            raise InstanceError(f"suite {self.suite}: cell {self.cell}: no acceptable "
                                f"instance in {self.max_draws} draws (acceptance < "
                                f"1/{self.max_draws}; raise --param max_draws or choose "
                                f"another size)", value=self.cell)
        self.draws += 1
        if self.draws % PROGRESS_EVERY == 0:
            print(f"{self.suite}: {self.cell}: {self.draws} draws so far for one instance "
                  f"(acceptance so far < 1/{self.draws})", file=self.stream, flush=True)
