"""``actionable-indeterminacy-h2``: see :mod:`.designs`."""
from .designs import H2 as SUITE

__all__ = ["SUITE"]
