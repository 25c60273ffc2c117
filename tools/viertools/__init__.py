"""viertools: the pieces the Python tools around vier share (rules, engine processes,
statistics, openings, the referee's games and matches, the exact-score oracle)."""
