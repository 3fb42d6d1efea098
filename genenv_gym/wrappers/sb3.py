"""Stable-Baselines3 glue: a features extractor for candidate-action observations, and callbacks.

Imports torch and stable-baselines3; nothing else in ``genenv_gym`` imports this module.

- ``CandidateMatchExtractor``: a policy body for the ``Dict`` observations of ``TokenIdObservation`` or
  ``EmbeddingObservation`` over ``CandidateActions``. It scores every candidate against the observation
  with one shared network (so the score of an action does not depend on its slot) and hands the ``K``
  scores to SB3's policy and value heads.
- ``CandidatePolicy``: SB3's ``MultiInputPolicy`` with that extractor, the scores used as logits:
  ``PPO(CandidatePolicy, env)``.
- ``CurriculumLog``: a callback that records success and the simulator's mean difficulty level while SB3
  trains; SB3 is not told anything about the curriculum.
- ``SkillSyncCallback``: keeps the simulator's skill estimate exact across the copies of an SB3
  ``SubprocVecEnv`` / ``DummyVecEnv`` (see ``genenv_gym.wrappers.skill_sync``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from genenv_gym.registry.extras import require_extra
from genenv_gym.wrappers.skill_sync import SkillAggregator, SkillSync

require_extra("sb3", "genenv_gym.wrappers.sb3", modules=("torch", "stable_baselines3"))

import torch  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.policies import MultiInputActorCriticPolicy  # noqa: E402
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor  # noqa: E402
from torch import nn  # noqa: E402

#: Score given to a slot without a candidate (its action is masked).
MASKED_SCORE = -10.0


class CandidateMatchExtractor(BaseFeaturesExtractor):
    """Per-candidate matching scores from ``{"text", "candidates", "action_mask"}`` observations.

    Token ids (``TokenIdObservation``): every candidate token is joined with an exact-match flag, whether
    the same token id occurs in the observation (the interaction feature of reading-comprehension and
    ranking models such as DrQA and DRMM), and embedded; a shared MLP maps the sum of its tokens, its
    match statistics (tokens, matched tokens, unmatched tokens) and a summary of the observation to the
    candidate's score. Embeddings (``EmbeddingObservation``): the score is a shared MLP of
    ``[candidate, observation * candidate, observation]``. Slots without a candidate score ``MASKED_SCORE``.
    The same network scores every slot, so a score does not depend on where the candidate was shuffled.

    The features are the ``K`` scores; ``CandidatePolicy`` turns them into logits unchanged.

    Args:
        observation_space: the wrapper's ``Dict`` space.
        embed_dim: token embedding width (token ids only).
        hidden: width of the scoring MLPs.
        pad_id: the token id that pads the arrays (``TokenIdObservation.pad_id``; 0 for BERT tokenizers).
    """

    def __init__(
        self, observation_space: spaces.Dict, embed_dim: int = 16, hidden: int = 32, pad_id: int = 0
    ) -> None:
        candidates = observation_space["candidates"]
        k = int(candidates.shape[0])
        super().__init__(observation_space, features_dim=k)
        self.k = k
        self.pad_id = pad_id
        self.tokens = bool(np.issubdtype(candidates.dtype, np.integer))
        if self.tokens:
            vocab = int(np.max(candidates.high)) + 1
            self.embed = nn.Embedding(vocab, embed_dim)
            self.token_mlp = nn.Sequential(nn.Linear(embed_dim + 1, hidden), nn.ReLU())
            self.text_proj = nn.Linear(embed_dim, hidden)
            self.score = nn.Sequential(nn.Linear(2 * hidden + 3, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        else:
            dim = int(candidates.shape[-1])
            self.score = nn.Sequential(nn.Linear(3 * dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        mask = obs["action_mask"].float() > 0.5
        scores = self._token_scores(obs) if self.tokens else self._dense_scores(obs)
        return torch.where(mask, scores, torch.full_like(scores, MASKED_SCORE))

    def _token_scores(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        text = obs["text"].long()  # (B, L)
        cand = obs["candidates"].long()  # (B, K, C)
        text_valid = text != self.pad_id
        cand_valid = (cand != self.pad_id).float()
        same = cand.unsqueeze(-1) == text[:, None, None, :]  # (B, K, C, L)
        match = (same & text_valid[:, None, None, :]).any(-1).float() * cand_valid
        tokens = self.token_mlp(torch.cat([self.embed(cand), match.unsqueeze(-1)], dim=-1))
        summed = (tokens * cand_valid.unsqueeze(-1)).sum(-2) / 16.0
        count = cand_valid.sum(-1, keepdim=True)
        matched = match.sum(-1, keepdim=True)
        stats = torch.cat([count / 32.0, matched / 32.0, (count - matched) / 8.0], dim=-1)
        weights = text_valid.float().unsqueeze(-1)
        text_mean = (self.embed(text) * weights).sum(-2) / weights.sum(-2).clamp(min=1.0)
        text_vec = torch.relu(self.text_proj(text_mean)).unsqueeze(1).expand(-1, self.k, -1)
        return self.score(torch.cat([summed, stats, text_vec], dim=-1)).squeeze(-1)

    def _dense_scores(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        text = obs["text"].float().unsqueeze(1).expand(-1, self.k, -1)
        cand = obs["candidates"].float()
        return self.score(torch.cat([cand, text * cand, text], dim=-1)).squeeze(-1)


class CandidatePolicy(MultiInputActorCriticPolicy):
    """``MultiInputActorCriticPolicy`` whose logits are the candidates' scores (``CandidateMatchExtractor``).

    The policy head is the identity on the scores (it stays trainable), so the policy starts as
    ``softmax(scores)`` and every slot is treated alike; the value head has one hidden layer.
    Use ``PPO(CandidatePolicy, env)`` (A2C works too). Extractor settings go in
    ``policy_kwargs={"features_extractor_kwargs": {...}}``; a tokenizer whose pad id is not 0 needs
    ``{"pad_id": env.pad_id}`` there.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("features_extractor_class", CandidateMatchExtractor)
        kwargs.setdefault("net_arch", {"pi": [], "vf": [64]})
        kwargs.setdefault("ortho_init", False)
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        with torch.no_grad():
            self.action_net.weight.copy_(torch.eye(self.action_net.out_features, self.action_net.in_features))
            self.action_net.bias.zero_()


class CurriculumLog(BaseCallback):
    """Records, every ``every`` env steps, the success rate of the episodes that ended since the last record
    and the simulator's mean difficulty level (``curriculum_state()["mean_level"]`` of the first copy).

    ``records`` is a list of ``{"timesteps", "episodes", "success", "mean_level"}`` dicts.
    """

    def __init__(self, every: int = 1000, verbose: int = 0) -> None:
        super().__init__(verbose)
        self.every = every
        self.records: list[dict[str, float]] = []
        self._successes: list[float] = []
        self._next = every

    def _on_step(self) -> bool:
        for info, done in zip(self.locals["infos"], self.locals["dones"], strict=True):
            if done:
                self._successes.append(float(bool(info.get("success"))))
        if self.num_timesteps >= self._next:
            self._next += self.every
            self.record()
        return True

    def record(self) -> None:
        try:
            state = self.training_env.env_method("curriculum_state", indices=[0])[0]
        except AttributeError:  # not a simulator env: success only
            state = {}
        success = float(np.mean(self._successes)) if self._successes else float("nan")
        self.records.append(
            {
                "timesteps": int(self.num_timesteps),
                "episodes": len(self._successes),
                "success": success,
                "mean_level": float(state.get("mean_level", float("nan"))),
            }
        )
        if self.verbose:
            level = self.records[-1]["mean_level"]
            print(f"{self.num_timesteps:>8} steps  success {success:.3f}  mean level {level:.2f}")
        self._successes = []


class SkillSyncCallback(BaseCallback):
    """The SB3 counterpart of ``SkillSyncVector``: after every step, the outcomes of the episodes that ended
    (in env index order) update one ``SkillAggregator``, whose state is loaded into every copy.

    Every copy must be wrapped in ``SkillSync`` (``make_vec_env(..., wrapper_class=SkillSync)``).
    """

    def __init__(self, num_levels: int, alpha: float = 0.5, decay: float = 0.95, verbose: int = 0) -> None:
        super().__init__(verbose)
        self.aggregator = SkillAggregator(num_levels, alpha, decay)

    def _on_step(self) -> bool:
        dones = self.locals["dones"]
        self.aggregator.record_infos(self.locals["infos"], dones)
        if np.any(dones):
            self.training_env.env_method("load_skill_state", self.aggregator.state_dict())
        return True

    def _on_training_start(self) -> None:
        if not all(self.training_env.env_is_wrapped(SkillSync)):
            raise TypeError(
                "SkillSyncCallback needs every copy wrapped in SkillSync: "
                "make_vec_env(..., wrapper_class=SkillSync)"
            )
