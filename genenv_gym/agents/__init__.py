"""Agents: scripted baselines, the LLM agent and its generation backends."""
