"""What a trainer's checkpoint holds (``trainer_state``) and how a resumed run takes it back
(``restore_trainer_state``); ``checkpoint.py`` writes and reads the file."""

from __future__ import annotations

import copy
import random
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from genenv_gym.train.loop import Trainer


def trainer_state(trainer: Trainer) -> dict[str, Any]:
    """What the checkpoint holds: the models and optimizers, the environment policy and the sampler, the
    skill tracker, the pools, the RNGs and the config."""
    return {
        "epoch": trainer.epoch,
        "agent_samples": trainer.agent_samples,
        "warmstart_step": trainer.warmstart_step,
        "warmstart_loss": trainer.warmstart_loss,
        "warmstart_recent": trainer.warmstart_recent,
        "warm_optimizer": None if trainer.warm_optimizer is None else trainer.warm_optimizer.state_dict(),
        "model": trainer.model.state_dict(),
        "reference": None if trainer.reference is None else trainer.reference.state_dict(),
        "optimizer": trainer.optimizer.state_dict(),
        "simulator": trainer.simulator.state_dict(),
        "simulator_stats": copy.deepcopy(trainer.simulator.stats),
        "env_llm": None if trainer.env_llm is None else trainer.env_llm.state_dict(),
        "sampler": own_sampler_state(trainer),
        "scoring_samples": trainer.scoring_samples,
        "skill": trainer.skill.state_dict(),
        "base_tasks": trainer.base_tasks,
        "static_tasks": trainer.static_tasks,
        "d_train": trainer.d_train,
        "d_env": trainer.d_env,
        "rng": trainer.rng.bit_generator.state,
        "torch_rng": torch.get_rng_state(),
        "python_rng": random.getstate(),
        "config": trainer.cfg.to_dict(),
    }


def own_sampler_state(trainer: Trainer) -> dict[str, Any] | None:
    """The state of a sampler other than the environment policy (saved under its own key), if any."""
    if trainer.sampler is trainer.env_policy or not hasattr(trainer.sampler, "state_dict"):
        return None
    return trainer.sampler.state_dict()


def restore_trainer_state(trainer: Trainer, state: dict[str, Any]) -> None:
    """Set ``trainer`` to the state ``trainer_state`` returned (a checkpoint of a run of the same config)."""
    trainer.epoch, trainer.agent_samples = state["epoch"], state["agent_samples"]
    trainer.model.load_state_dict(state["model"])
    trainer.warmstart_step = state.get("warmstart_step", trainer.cfg.warmstart.steps)
    trainer.warmstart_loss = state.get("warmstart_loss", 0.0)
    trainer.warmstart_recent = list(state.get("warmstart_recent", []))
    if state.get("warm_optimizer") is not None:
        trainer.warm_optimizer = trainer.make_warm_optimizer()
        trainer.warm_optimizer.load_state_dict(state["warm_optimizer"])
    if state["reference"] is not None:
        trainer.reference = copy.deepcopy(trainer.model).eval()
        trainer.reference.load_state_dict(state["reference"])
        trainer.reference.requires_grad_(False)
    trainer.optimizer.load_state_dict(state["optimizer"])
    trainer.simulator.load_state_dict(state["simulator"])
    trainer.simulator.stats = state["simulator_stats"]
    if trainer.env_llm is not None:
        if state.get("env_llm") is None:
            raise ValueError(
                "the checkpoint has no environment LLM (it was written with simulator.kind=procedural)"
            )
        trainer.env_llm.load_state_dict(state["env_llm"])
    if state.get("sampler") is not None:
        trainer.sampler.load_state_dict(state["sampler"])
    trainer.scoring_samples = state.get("scoring_samples", 0)
    trainer.skill.load_state_dict(state["skill"])
    trainer.base_tasks, trainer.static_tasks = state["base_tasks"], state["static_tasks"]
    trainer.d_train, trainer.d_env = state["d_train"], state["d_env"]
    trainer.rng.bit_generator.state = state["rng"]
    torch.set_rng_state(state["torch_rng"])
    random.setstate(state["python_rng"])
