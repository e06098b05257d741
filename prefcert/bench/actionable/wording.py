"""``actionable-indeterminacy-wording``: see :mod:`.designs`."""
from .designs import WORDING as SUITE

__all__ = ["SUITE"]
