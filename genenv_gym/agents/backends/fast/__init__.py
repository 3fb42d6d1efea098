"""The hf backend's ``fast`` engine: packed prefill, a static KV cache and captured decode steps."""

from genenv_gym.agents.backends.fast.decoder import SUPPORTED_MODEL_TYPES, unsupported_reason
from genenv_gym.agents.backends.fast.engine import FastEngine, Generated

__all__ = ["SUPPORTED_MODEL_TYPES", "FastEngine", "Generated", "unsupported_reason"]
