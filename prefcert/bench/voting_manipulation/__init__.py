"""Amiri-Margavi et al. 2026, "Do Large Language Model Voters Strategize? An Oracle-Based
Benchmark for Manipulation under Voting Rules": ballots, prompts and scores
(:mod:`.ballots`) and the suite ``voting-manipulation`` (:mod:`.suite`)."""
