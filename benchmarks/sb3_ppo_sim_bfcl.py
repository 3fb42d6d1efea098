"""SB3 PPO on a GenEnv simulator env through the classic-RL wrappers, against a random policy.

Measures, over training, the success rate of the episodes played and the simulator's mean difficulty
level (its level distribution's expectation): SB3 only calls ``reset``/``step``, the curriculum adapts
inside the env. The same number of steps is played by a uniformly random policy for comparison. At the
end both policies are scored on a fixed set of generated tasks, per difficulty level (served with
``reset(options={"task": ...})``, outside the curriculum).

    python benchmarks/sb3_ppo_sim_bfcl.py                      # 20k steps, token ids, seed 0
    python benchmarks/sb3_ppo_sim_bfcl.py --steps 5000 --seeds 0 1 2
    python benchmarks/sb3_ppo_sim_bfcl.py --obs embeddings --steps 3000   # all-MiniLM-L6-v2 (slower)
    python benchmarks/sb3_ppo_sim_bfcl.py --json results.json

The test ``tests/wrappers/test_wrappers_sb3.py`` is the small version (2,000 steps, one seed).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env

import genenv_gym  # noqa: F401
from genenv_gym.wrappers.candidate_actions import CandidateActions
from genenv_gym.wrappers.sb3 import CandidatePolicy, CurriculumLog
from genenv_gym.wrappers.token_ids import TokenIdObservation

ENV_KWARGS: dict[str, Any] = {}


def make_env(env_id: str, obs: str, encoder: Any = None) -> gym.Env:
    env = CandidateActions(gym.make(env_id, **ENV_KWARGS))
    if obs == "embeddings":
        from genenv_gym.wrappers.embeddings import EmbeddingObservation

        return EmbeddingObservation(env, encoder=encoder)
    return TokenIdObservation(env, max_tokens=128, candidate_tokens=48)


def random_run(env_id: str, obs: str, steps: int, every: int, seed: int, encoder: Any) -> list[dict]:
    """The curriculum under a uniformly random policy: success and mean level per window of steps."""
    env = make_env(env_id, obs, encoder)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    records, wins = [], []
    for step in range(1, steps + 1):
        _, _, terminated, truncated, step_info = env.step(int(rng.integers(len(info["candidates"]))))
        if terminated or truncated:
            wins.append(float(bool(step_info.get("success"))))
            _, info = env.reset()
        else:
            info = step_info
        if step % every == 0:
            state = env.unwrapped.curriculum_state()
            records.append(
                {"timesteps": step, "episodes": len(wins), "success": float(np.mean(wins)) if wins else 0.0}
                | {"mean_level": state["mean_level"]}
            )
            wins = []
    return records


def fixed_task_scores(model: PPO, env_id: str, obs: str, encoder: Any, per_level: int, seed: int) -> dict:
    """Success per level of the trained and of a random policy on the same generated tasks."""
    env = make_env(env_id, obs, encoder)
    domain = env.unwrapped.domain
    rng = np.random.default_rng(10_000 + seed)
    scores: dict[str, list[float]] = {"ppo": [], "random": []}
    pick = np.random.default_rng(seed)
    for level in range(domain.num_levels):
        tasks = [domain.generate(level, rng) for _ in range(per_level)]
        for name in scores:
            env.reset(seed=seed)
            wins = 0.0
            for task in tasks:
                observation, info = env.reset(options={"task": task})
                if name == "ppo":
                    action = int(model.predict(observation, deterministic=True)[0])
                else:
                    action = int(pick.integers(len(info["candidates"])))
                wins += env.step(action)[1]
            scores[name].append(wins / per_level)
    return scores


def run_seed(args: argparse.Namespace, seed: int, encoder: Any) -> dict:
    start = time.monotonic()
    vec = make_vec_env(lambda: make_env(args.env, args.obs, encoder), n_envs=1, seed=seed)
    model = PPO(
        CandidatePolicy,
        vec,
        n_steps=128,
        batch_size=64,
        n_epochs=8,
        learning_rate=args.lr,
        gamma=0.0,
        seed=seed,
    )
    log = CurriculumLog(every=args.every)
    model.learn(args.steps, callback=log)
    train_s = time.monotonic() - start
    state = vec.env_method("curriculum_state")[0]
    baseline = random_run(args.env, args.obs, args.steps, args.every, seed, encoder)
    scores = fixed_task_scores(model, args.env, args.obs, encoder, args.per_level, seed)
    return {
        "seed": seed,
        "train_seconds": train_s,
        "ppo": log.records,
        "random": baseline,
        "final_level_probs": state["level_probs"],
        "final_skill": state["skill"]["success"],
        "fixed_tasks": scores,
    }


def print_seed(result: dict) -> None:
    print(f"\nseed {result['seed']}  (PPO training {result['train_seconds']:.0f}s)")
    print(
        f"{'steps':>8} | {'PPO success':>11} {'mean level':>10} | {'random success':>14} {'mean level':>10}"
    )
    for ppo, rnd in zip(result["ppo"], result["random"], strict=True):
        print(
            f"{ppo['timesteps']:>8} | {ppo['success']:>11.3f} {ppo['mean_level']:>10.2f} | "
            f"{rnd['success']:>14.3f} {rnd['mean_level']:>10.2f}"
        )
    probs = " ".join(f"{p:.2f}" for p in result["final_level_probs"])
    print(f"simulator level distribution at the end of PPO training: {probs}")
    scores = result["fixed_tasks"]
    print("fixed generated tasks, success per level 0..9:")
    for name in ("ppo", "random"):
        row = " ".join(f"{s:.2f}" for s in scores[name])
        print(f"  {name:<6} {row}   mean {np.mean(scores[name]):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", default="GenEnv-Sim-BFCL-v0")
    parser.add_argument("--obs", choices=("tokens", "embeddings"), default="tokens")
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--every", type=int, default=1000, help="steps per reported window")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--per-level", type=int, default=50, help="fixed tasks per level in the final scores")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument(
        "--simulator-kwargs",
        metavar="JSON",
        help="ProceduralSimulator settings, e.g. '{\"step_size\": 0.05}' (default: the env's)",
    )
    parser.add_argument("--json", metavar="PATH", help="write every number as JSON")
    args = parser.parse_args()
    if args.simulator_kwargs:
        ENV_KWARGS["simulator_kwargs"] = json.loads(args.simulator_kwargs)
    torch.set_num_threads(args.threads)
    encoder = None
    if args.obs == "embeddings":
        from genenv_gym.wrappers.embeddings import MiniLMEncoder

        encoder = MiniLMEncoder()
    results = []
    for seed in args.seeds:
        result = run_seed(args, seed, encoder)
        print_seed(result)
        results.append(result)
    if len(results) > 1:
        ppo = [np.mean(r["fixed_tasks"]["ppo"]) for r in results]
        rnd = [np.mean(r["fixed_tasks"]["random"]) for r in results]
        print(
            f"\nfixed tasks over {len(results)} seeds: PPO {np.mean(ppo):.3f} ± {np.std(ppo):.3f}, "
            f"random {np.mean(rnd):.3f} ± {np.std(rnd):.3f}"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"args": vars(args), "results": results}, fh, indent=2)


if __name__ == "__main__":
    main()
