"""Bamboogle: Search-R1's search-agent protocol over 125 two-hop questions, with EM / cover-EM / F1."""
