"""BFCL (Berkeley Function Calling Leaderboard v4), single-turn AST categories."""
