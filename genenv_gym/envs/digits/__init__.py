"""Digits: a compact procedural domain (reverse a digit string) for the trainer's CPU miniature."""

from genenv_gym.envs.digits.domain import DigitsDomain, DigitsEnv

__all__ = ["DigitsDomain", "DigitsEnv"]
