"""The task samplers a training run can name (``run.sampler``): one module each, and the table
(``registry.py``: ``SAMPLERS``) that says what each does, where it comes from and how it is built.

A new sampler is its module here and its entry in ``registry.SAMPLERS``; the trainer and a simulator env
read the entry and name no sampler themselves.
"""

from genenv_gym.samplers.registry import (
    SAMPLERS,
    STANDALONE,
    SamplerEntry,
    SamplerInputs,
    TrainerContext,
    build_sampler,
    build_standalone,
    sampler_entry,
    standalone_names,
)

__all__ = [
    "SAMPLERS",
    "STANDALONE",
    "SamplerEntry",
    "SamplerInputs",
    "TrainerContext",
    "build_sampler",
    "build_standalone",
    "sampler_entry",
    "standalone_names",
]
