"""``actionable-indeterminacy-balanced``: see :mod:`.designs`."""
from .designs import BALANCED as SUITE

__all__ = ["SUITE"]
