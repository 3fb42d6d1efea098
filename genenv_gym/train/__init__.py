"""Training: batched rollouts of an LLM agent (``rollout``); GRPO, RWR and the co-evolution loop use them.

Importing this package imports no torch; the backends a rollout uses import what they need.
"""

from genenv_gym.train.rollout import RolloutConfig, RolloutEngine, RolloutStats, Trajectory, sample_tasks

__all__ = ["RolloutConfig", "RolloutEngine", "RolloutStats", "Trajectory", "sample_tasks"]
