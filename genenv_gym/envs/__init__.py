"""Environments: one folder per benchmark domain, the benchmark env base and the simulator env."""
