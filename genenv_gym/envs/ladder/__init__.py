"""The ladder: a chain of secret permutations with one step per level, a family with stepping stones."""

from genenv_gym.envs.ladder.domain import LadderDomain
from genenv_gym.envs.ladder.env import LadderEnv

__all__ = ["LadderDomain", "LadderEnv"]
