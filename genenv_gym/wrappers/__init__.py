"""Gymnasium wrappers that plug GenEnv envs into classic RL libraries (Stable-Baselines3 and the like).

- ``CandidateActions`` (``candidate_actions.py``): ``Discrete(K)`` actions over candidate texts, with the
  action mask in ``info`` and ``action_masks()``.
- ``TokenIdObservation`` (``token_ids.py``): observations as fixed-length token-id ``Box`` arrays.
- ``EmbeddingObservation`` (``embeddings.py``): observations as all-MiniLM-L6-v2 sentence embeddings.
- ``SkillSync`` / ``SkillSyncVector`` (``skill_sync.py``): one exact skill estimate across vector-env
  processes.
- ``genenv_gym.wrappers.sb3``: a candidate-scoring policy for SB3 and callbacks (imports torch and SB3).

Names are imported on first use, so ``import genenv_gym.wrappers`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "CandidateActions": "genenv_gym.wrappers.candidate_actions",
    "AdmissibleCommands": "genenv_gym.wrappers.candidates",
    "OracleAndRandom": "genenv_gym.wrappers.candidates",
    "TokenIdObservation": "genenv_gym.wrappers.token_ids",
    "EmbeddingObservation": "genenv_gym.wrappers.embeddings",
    "MiniLMEncoder": "genenv_gym.wrappers.embeddings",
    "SkillSync": "genenv_gym.wrappers.skill_sync",
    "SkillSyncVector": "genenv_gym.wrappers.skill_sync",
    "SkillAggregator": "genenv_gym.wrappers.skill_sync",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'genenv_gym.wrappers' has no attribute {name!r}")
