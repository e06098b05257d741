"""Khanna & Wang 2026, "Preference reasoning under indeterminacy in large language models":
the epistemic suite ``indeterminacy-preference`` (:mod:`.preference`) and the structural
suite ``indeterminacy-algorithmic`` (:mod:`.algorithmic`)."""
