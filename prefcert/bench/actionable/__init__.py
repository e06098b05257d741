"""Li et al. 2026, "Ask, Relax, or Act? Evaluating Actionable Indeterminacy in LLM
Preference Reasoning": reading and judging responses to decision tasks
(:mod:`.responses`) and the suite ``actionable-indeterminacy`` (:mod:`.suite`)."""
