"""ALFWorld on the real TextWorld engine: the multi-turn env, the single-step env and generated goals.

Importing this package does not import textworld or alfworld; the engine is imported when a game is played.
"""
