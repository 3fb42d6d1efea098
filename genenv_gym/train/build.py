"""What a training run is built from: its domain, the models and tokenizers (the agent's and the
environment LLM's), the agent's generation backend, and the env that plays the tasks the loop hands it.

``loop.py`` holds the algorithm and calls these; ``simulator_llm.py`` builds its model here too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from genenv_gym.domain import Domain
from genenv_gym.envs.benchmark_env import BenchmarkEnv
from genenv_gym.registry.registration import make_domain
from genenv_gym.train.config import AgentConfig, ModelConfig, RunConfig
from genenv_gym.train.float32_head import use_float32_head

if TYPE_CHECKING:
    from genenv_gym.agents.backends.hf import HFBackend


def build_domain(run: RunConfig) -> Domain:
    """The domain ``run.domain`` names, from the registry (a benchmark package registers its variants as
    domains of their own), with ``seed=run.domain_seed`` when that is set (>= 0)."""
    if run.domain_seed < 0:
        return make_domain(run.domain)
    try:
        return make_domain(run.domain, seed=run.domain_seed)
    except TypeError as error:
        raise ValueError(
            f"run.domain_seed is set ({run.domain_seed}) but domain {run.domain!r} takes no seed ({error}): "
            "leave run.domain_seed at -1"
        ) from None


def _dtype(spec: ModelConfig) -> torch.dtype:
    """``auto``: bfloat16 on a GPU, float32 on a CPU; ``bfloat16`` and ``float32`` as named, anywhere."""
    if spec.dtype == "auto":
        return torch.bfloat16 if torch.cuda.is_available() else torch.float32
    return torch.bfloat16 if spec.dtype == "bfloat16" else torch.float32


def build_model(spec: ModelConfig, seed: int) -> tuple[torch.nn.Module, Any]:
    """A causal LM and its tokenizer: a tiny one built locally (random weights from ``seed``) or a
    pretrained one (a folder, hub id, ``.gguf`` file or package that ships one); its LM head in float32
    when ``spec.float32_logits`` and the model is low-precision."""
    model, tokenizer = _load_model(spec, seed)
    if spec.float32_logits:
        use_float32_head(model)
    return model, tokenizer


def _load_model(spec: ModelConfig, seed: int) -> tuple[torch.nn.Module, Any]:
    if spec.source == "tiny":
        from genenv_gym.agents.tiny_model import build_model as build_tiny
        from genenv_gym.agents.tiny_model import build_tokenizer

        tokenizer = build_tokenizer(spec.vocab_size)
        if spec.shape != "custom":
            return build_tiny(spec.arch, spec.shape, tokenizer, seed=seed, dtype=_dtype(spec)), tokenizer
        shape = {
            "hidden_size": spec.hidden_size,
            "intermediate_size": spec.intermediate_size,
            "num_hidden_layers": spec.num_layers,
            "num_attention_heads": spec.num_heads,
            "num_key_value_heads": max(1, spec.num_heads // 2),
            "max_position_embeddings": 512,
        }
        return build_tiny(spec.arch, "tiny", tokenizer, seed=seed, dtype=_dtype(spec), **shape), tokenizer
    from genenv_gym.agents.pretrained import load_model, load_tokenizer, resolve_model_source

    source = resolve_model_source(spec.source)
    return load_model(source, _dtype(spec)).eval(), load_tokenizer(source)


def build_agent_backend(model: torch.nn.Module, tokenizer: Any, agent: AgentConfig) -> HFBackend:
    """The agent's rollouts: an ``HFBackend`` over the in-memory model (the weights the update trains)."""
    from genenv_gym.agents.backends.hf import HFBackend

    return HFBackend(
        model, tokenizer=tokenizer, engine=agent.rollout_engine, max_batch_size=agent.rollout_batch_size
    )


def task_env(domain: Domain) -> BenchmarkEnv:
    """An env of ``domain`` that plays only the tasks ``reset(options={"task": ...})`` gives it."""
    return BenchmarkEnv(domain, tasks=[])
