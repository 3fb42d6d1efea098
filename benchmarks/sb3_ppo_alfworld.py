"""SB3 PPO on ALFWorld (multi-turn, the real TextWorld engine) through the classic-RL wrappers.

Actions are the engine's admissible commands (``CandidateActions``), observations token ids of the last
feedback and the goal (``TokenIdObservation``); the policy is ``CandidatePolicy``. Reports the win rate
and mean episode length per window of steps, for PPO and for a uniformly random choice among the
admissible commands (ALFWorld's random baseline), then both on every game of the env.

By default it plays the ALFWorld package's tiny hand-written room (``genenv_gym.envs.alfworld.tiny``: six
games, one per task type, about 30 ms a step) so a run fits in minutes on a CPU; ``--data-dir`` plays
the real games (134 ``valid_unseen`` games, about 1-2 s per reset: hours for a meaningful run).

    python benchmarks/sb3_ppo_alfworld.py --steps 20000
    python benchmarks/sb3_ppo_alfworld.py --env GenEnv-ALFWorld-Step-v0 --steps 5000   # one step per episode
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

import genenv_gym  # noqa: F401
from genenv_gym.wrappers.candidate_actions import CandidateActions
from genenv_gym.wrappers.sb3 import CandidatePolicy
from genenv_gym.wrappers.token_ids import TokenIdObservation


def make_env(env_id: str, data_dir: str) -> gym.Env:
    env = CandidateActions(gym.make(env_id, data_dir=data_dir), num_candidates=64)
    return TokenIdObservation(env, max_tokens=128, candidate_tokens=16)


class EpisodeLog(BaseCallback):
    """Win rate and mean length of the episodes that ended in each window of ``every`` steps."""

    def __init__(self, every: int) -> None:
        super().__init__()
        self.every, self.records, self._wins, self._lengths, self._length = every, [], [], [], 0

    def _on_step(self) -> bool:
        self._length += 1
        info, done = self.locals["infos"][0], self.locals["dones"][0]
        if done:
            self._wins.append(float(bool(info.get("success"))))
            self._lengths.append(self._length)
            self._length = 0
        if self.num_timesteps % self.every == 0:
            self.records.append(window(self.num_timesteps, self._wins, self._lengths))
            self._wins, self._lengths = [], []
        return True


def window(steps: int, wins: list[float], lengths: list[int]) -> dict:
    return {
        "timesteps": steps,
        "episodes": len(wins),
        "success": float(np.mean(wins)) if wins else float("nan"),
        "mean_length": float(np.mean(lengths)) if lengths else float("nan"),
    }


def random_run(env_id: str, data_dir: str, steps: int, every: int, seed: int) -> list[dict]:
    env, rng = make_env(env_id, data_dir), np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    records, wins, lengths, length = [], [], [], 0
    for step in range(1, steps + 1):
        _, _, terminated, truncated, step_info = env.step(int(rng.integers(len(info["candidates"]))))
        length += 1
        if terminated or truncated:
            wins.append(float(bool(step_info.get("success"))))
            lengths.append(length)
            length = 0
            _, info = env.reset()
        else:
            info = step_info
        if step % every == 0:
            records.append(window(step, wins, lengths))
            wins, lengths = [], []
    return records


def per_game(model: PPO | None, env_id: str, data_dir: str, seed: int, repeats: int) -> float:
    """Win rate over every game of the env, ``repeats`` times each (deterministic PPO, or random)."""
    env, rng = make_env(env_id, data_dir), np.random.default_rng(seed)
    env.reset(seed=seed)
    wins, played = 0.0, 0
    for task in env.unwrapped.tasks:
        for _ in range(repeats):
            obs, info = env.reset(options={"task_id": task.id})
            done = False
            while not done:
                if model is None:
                    action = int(rng.integers(len(info["candidates"])))
                else:
                    action = int(model.predict(obs, deterministic=True)[0])
                obs, reward, terminated, truncated, info = env.step(action)
                done = terminated or truncated
            wins += reward
            played += 1
    return wins / played


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", default="GenEnv-ALFWorld-v0")
    parser.add_argument("--data-dir", help="benchmark data root (default: the tiny hand-written games)")
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--every", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    torch.set_num_threads(1)
    data_dir = args.data_dir
    if data_dir is None:
        from genenv_gym.envs.alfworld.tiny import write_tiny_games

        data_dir = str(write_tiny_games(tempfile.mkdtemp(prefix="alfworld_tiny_")))
    single_step = "Step" in args.env
    start = time.monotonic()
    vec = make_vec_env(lambda: make_env(args.env, data_dir), n_envs=1, seed=args.seed)
    model = PPO(
        CandidatePolicy,
        vec,
        n_steps=128 if single_step else 512,
        batch_size=64,
        n_epochs=8 if single_step else 4,
        learning_rate=args.lr,
        gamma=0.0 if single_step else 0.97,
        ent_coef=0.0 if single_step else 0.01,
        seed=args.seed,
    )
    log = EpisodeLog(args.every)
    model.learn(args.steps, callback=log)
    train_s = time.monotonic() - start
    baseline = random_run(args.env, data_dir, args.steps, args.every, args.seed)
    print(f"{args.env} on {data_dir} (PPO training {train_s:.0f}s)")
    print(f"{'steps':>8} | {'PPO wins':>8} {'length':>7} | {'random wins':>11} {'length':>7}")
    for ppo, rnd in zip(log.records, baseline, strict=True):
        print(
            f"{ppo['timesteps']:>8} | {ppo['success']:>8.3f} {ppo['mean_length']:>7.1f} | "
            f"{rnd['success']:>11.3f} {rnd['mean_length']:>7.1f}"
        )
    final = {
        "ppo": per_game(model, args.env, data_dir, args.seed, 5),
        "random": per_game(None, args.env, data_dir, args.seed, 5),
    }
    print(f"every game x5: PPO (deterministic) {final['ppo']:.3f}, random {final['random']:.3f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(
                {"args": vars(args), "ppo": log.records, "random": baseline, "final": final}, fh, indent=2
            )


if __name__ == "__main__":
    main()
