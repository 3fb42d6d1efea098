"""BFCL multi-turn: stateful API backends (work in progress; see docs/bfcl_multiturn.md)."""
