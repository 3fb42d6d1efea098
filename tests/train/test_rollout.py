"""The rollout engine: G samples per task, one batched generation call per step, exact token records."""

import gymnasium as gym
import pytest
from toy_dialog import DialogDomain, make_dialog_env

from genenv_gym.agents.backends import Completion, SamplingParams, ScriptedBackend
from genenv_gym.fixtures import FIXTURES_DIR
from genenv_gym.train import RolloutConfig, RolloutEngine, sample_tasks


@pytest.fixture(scope="module")
def backend():
    pytest.importorskip("transformers")
    from genenv_gym.agents.backends import make_backend

    return make_backend("tiny:qwen2")


def bfcl_env():
    return gym.make("GenEnv-BFCL-v0", data_dir=str(FIXTURES_DIR))


def model_logprobs(model, trajectory, temperature):
    import torch

    with torch.no_grad():
        logits = model(torch.tensor([trajectory.token_ids])).logits[0].float() / temperature
    logp = torch.log_softmax(logits, dim=-1)
    return [
        logp[i - 1, t].item()
        for i, (t, m) in enumerate(zip(trajectory.token_ids, trajectory.mask, strict=True))
        if m == 1
    ]


def test_bfcl_groups_with_one_generation_call(backend):
    tasks = sample_tasks(bfcl_env(), 2, seed=0)
    config = RolloutConfig(group_size=3, params=SamplingParams(max_new_tokens=6), seed=1)
    engine = RolloutEngine(backend, config)
    trajectories = engine.run(bfcl_env, tasks)
    assert [(t.group, t.sample) for t in trajectories] == [(g, s) for g in range(2) for s in range(3)]
    assert engine.stats.generation_calls == 1 and engine.stats.episodes == 6
    for trajectory in trajectories:
        assert trajectory.task_id == tasks[trajectory.group].id and trajectory.finish == "terminated"
        assert len(trajectory.token_ids) == len(trajectory.mask) == len(trajectory.logprobs)
        prompt = backend.encode(backend.render_chat(trajectory.messages[:-1]))
        assert trajectory.token_ids[: trajectory.prompt_length] == prompt
        assert trajectory.mask == [0] * len(prompt) + [1] * (len(trajectory.token_ids) - len(prompt))
        assert all(lp < 0 for lp in trajectory.logprobs[len(prompt) :])
        assert set(trajectory.logprobs[: len(prompt)]) == {0.0}
        assert trajectory.reward in (0.0, 1.0) and len(trajectory.actions) == 1
        assert "error_type" in trajectory.infos[0]
    engine.close()


def test_multi_turn_trajectories_match_the_model_that_sampled_them(backend):
    tasks = DialogDomain().load_tasks()[:3]
    params = SamplingParams(temperature=0.8, max_new_tokens=4)
    engine = RolloutEngine(backend, RolloutConfig(group_size=2, max_turns=3, params=params, seed=0))
    trajectories = engine.run(make_dialog_env, tasks)
    assert len(trajectories) == 6
    assert engine.stats.generation_calls == 3  # every step batched across all 6 live episodes
    for trajectory in trajectories:
        assert trajectory.turns == min(3, tasks[trajectory.group].evaluation["turns"])
        assert trajectory.finish in ("truncated", "max_turns") and trajectory.template_fallbacks == 0
        runs = "".join(map(str, trajectory.mask)).strip("0").split("0")
        assert len([r for r in runs if r]) == trajectory.turns  # model turns separated by env tokens
        env_turns = [m for m in trajectory.messages if m["role"] == "user"][1:]
        assert env_turns[0]["content"] == "Turn 1: not yet, say the word."
        model_lps = [lp for lp, m in zip(trajectory.logprobs, trajectory.mask, strict=True) if m]
        reference = model_logprobs(backend.model, trajectory, 0.8)
        assert max(abs(a - b) for a, b in zip(model_lps, reference, strict=True)) < 1e-4


def test_concurrency_limit_refills_slots(backend):
    tasks = DialogDomain().load_tasks()[:3]
    config = RolloutConfig(
        group_size=2, max_turns=2, max_concurrency=4, params=SamplingParams(max_new_tokens=3)
    )
    engine = RolloutEngine(backend, config)
    trajectories = engine.run(make_dialog_env, tasks)
    assert len(trajectories) == 6 and len(engine._envs) == 4
    assert engine.stats.generation_calls >= 3


def test_failures_are_outcomes():
    tasks = DialogDomain().load_tasks()[:2]

    class Exploding(ScriptedBackend):
        def chat(self, *args, **kwargs):
            raise RuntimeError("GPU on fire")

    out = RolloutEngine(Exploding(["x"]), RolloutConfig(group_size=1)).run(make_dialog_env, tasks)
    assert [t.finish for t in out] == ["error", "error"] and "GPU on fire" in out[0].error
    failing = ScriptedBackend([Completion("", finish_reason="error", error="HTTP 503")])
    out = RolloutEngine(failing, RolloutConfig(group_size=1)).run(make_dialog_env, tasks)
    assert out[0].finish == "error" and out[0].error == "HTTP 503" and out[0].reward == 0.0

    class BrokenEnv(gym.Wrapper):
        def step(self, action):
            raise ValueError("env crashed")

    out = RolloutEngine(ScriptedBackend(["hi"]), RolloutConfig(group_size=1)).run(
        lambda: BrokenEnv(make_dialog_env()), tasks
    )
    assert out[0].finish == "error" and "env crashed" in out[0].error
    truncated = ScriptedBackend([Completion("app", finish_reason="length")])
    out = RolloutEngine(truncated, RolloutConfig(group_size=1, max_turns=1)).run(make_dialog_env, tasks)
    assert out[0].truncated_replies == 1 and out[0].finish in ("max_turns", "truncated")


def test_chat_only_backends_give_transcripts_without_tokens():
    tasks = DialogDomain().load_tasks()[:2]
    words = {t.messages[-1]["content"]: t.evaluation["word"] for t in tasks}

    def rule(messages, i):
        return "hmm" if len(messages) < 4 else f"<think>easy</think>{words[messages[1]['content']]}"

    out = RolloutEngine(ScriptedBackend(rule), RolloutConfig(group_size=2)).run(make_dialog_env, tasks)
    assert all(t.success and t.reward == 1.0 and t.turns == 2 and t.token_ids == [] for t in out)
    assert out[0].actions == ["hmm", tasks[0].evaluation["word"]]


def test_long_chats_end_with_max_tokens(backend):
    tasks = DialogDomain().load_tasks()[:2]
    small = RolloutConfig(
        group_size=1, max_total_tokens=60, max_turns=10, params=SamplingParams(max_new_tokens=16)
    )
    out = RolloutEngine(backend, small).run(make_dialog_env, tasks)
    assert {t.finish for t in out} == {"max_tokens"} and all(len(t.token_ids) <= 60 for t in out)
