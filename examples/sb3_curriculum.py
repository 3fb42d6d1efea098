"""PPO from Stable-Baselines3 on the simulator env GenEnv-Sim-BFCL-v0 through the classic-RL wrappers: SB3
only calls reset/step, and the curriculum inside the env follows the agent (README, "Classic RL").

    pip install -e ".[sb3]"
    python examples/sb3_curriculum.py                 # 2,000 steps: the run README quotes
    python examples/sb3_curriculum.py --steps 500     # the first of its records only
    python examples/sb3_curriculum.py --neighbour-prob 0   # the simulator without its neighbour draws

It prints, every 500 steps, the success of the episodes since the last record and the simulator's mean
difficulty level, then the simulator's level distribution, and its own CPU and wall time.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any


def train(
    steps: int, every: int = 500, seed: int = 0, neighbour_prob: float | None = None
) -> tuple[Any, Any, Any]:
    """``(model, env, log)`` after ``steps`` PPO steps on GenEnv-Sim-BFCL-v0 (README's code);
    ``neighbour_prob``: the simulator's share of tasks drawn one level away (None: its default, 0.4)."""
    from genenv_gym.registry.extras import require_extra

    require_extra("sb3", "examples/sb3_curriculum.py", modules=("torch", "stable_baselines3"))
    import gymnasium as gym
    from stable_baselines3 import PPO

    import genenv_gym  # noqa: F401  (registers the GenEnv-* ids)
    from genenv_gym.wrappers import CandidateActions, TokenIdObservation
    from genenv_gym.wrappers.sb3 import CandidatePolicy, CurriculumLog

    kwargs = {} if neighbour_prob is None else {"simulator_kwargs": {"neighbour_prob": neighbour_prob}}
    env = TokenIdObservation(
        CandidateActions(gym.make("GenEnv-Sim-BFCL-v0", **kwargs)), max_tokens=128, candidate_tokens=48
    )
    model = PPO(
        CandidatePolicy, env, n_steps=128, batch_size=64, n_epochs=8, learning_rate=1e-2, gamma=0.0, seed=seed
    )
    log = CurriculumLog(every=every)  # success and the simulator's mean level while SB3 trains
    model.learn(steps, callback=log)
    return model, env, log


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--every", type=int, default=500, help="steps between two records")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--neighbour-prob", type=float, default=None, help="tasks drawn one level away (default 0.4)"
    )
    args = parser.parse_args(argv)

    wall, cpu = time.perf_counter(), time.process_time()
    _, env, log = train(args.steps, args.every, args.seed, args.neighbour_prob)
    state = env.unwrapped.curriculum_state()
    summary = {
        "records": [
            {**r, "success": round(r["success"], 2), "mean_level": round(r["mean_level"], 2)}
            for r in log.records
        ],
        "level_probs": [round(p, 3) for p in state["level_probs"]],
        "cpu_seconds": round(time.process_time() - cpu, 1),
        "wall_seconds": round(time.perf_counter() - wall, 1),
    }
    for r in summary["records"]:
        print(f"{r['timesteps']:>6} steps: success {r['success']:.2f}, mean level {r['mean_level']:.2f}")
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    from genenv_gym.registry.extras import MissingExtraError

    try:
        main()
    except MissingExtraError as error:  # the one line that installs it, as the genenv command prints it
        raise SystemExit(str(error)) from None
