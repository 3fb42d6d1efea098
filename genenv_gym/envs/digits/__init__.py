"""Digits: a compact procedural domain (reverse a digit string) for the trainer's CPU miniature."""

from genenv_gym.envs.digits.domain import VARIANTS, DigitsDomain, make_digits_domain
from genenv_gym.envs.digits.env import DigitsEnv

__all__ = ["VARIANTS", "DigitsDomain", "DigitsEnv", "make_digits_domain"]
