"""API-Bank (Li et al., 2023): the stateful API-call benchmark, its simulated APIs and its official metric."""
