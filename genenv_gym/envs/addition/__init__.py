"""Padded addition: a + b on zero-padded little-endian digit strings, a family whose frontier moves."""

from genenv_gym.envs.addition.domain import PaddedAdditionDomain
from genenv_gym.envs.addition.env import PaddedAdditionEnv

__all__ = ["PaddedAdditionDomain", "PaddedAdditionEnv"]
