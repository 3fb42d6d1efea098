"""verl's agent loop ``genenv_agent`` (its real ``AgentLoopBase``), driven by stand-ins for verl's LLM server:
exact token accounting at every turn boundary for every registered id, and a tiny model's own samples."""

from __future__ import annotations

import asyncio

import pytest
from trainer_episodes import (
    ALL_IDS,
    WRONG_SCRIPT,
    ScriptedServer,
    chat_ids,
    first_task,
    live,
    oracle_script,
    record_in_process,
    require,
)

require("verl.experimental.agent_loop", "see docs/trainers.md")
require("transformers", "pip install 'genenv-gym[train]'")

from omegaconf import OmegaConf  # noqa: E402
from verl.experimental.agent_loop.agent_loop import AgentLoopBase, DictConfigWrap, ToolListWrap  # noqa: E402

from genenv_gym.agents.tiny_model import build_tiny, build_tokenizer  # noqa: E402
from genenv_gym.export.exporter import VERL_AGENT_NAME, rows_for  # noqa: E402
from genenv_gym.integrations.verl_agent_loop import GenEnvAgentLoop  # noqa: E402

pytestmark = pytest.mark.shared_data


def make_loop(server, tokenizer, max_turns: int, response_length: int = 1_000_000) -> GenEnvAgentLoop:
    rollout = {
        "prompt_length": 1_000_000,
        "response_length": response_length,
        "n": 2,
        "multi_turn": {"max_assistant_turns": max_turns},
    }
    config = OmegaConf.create({"actor_rollout_ref": {"rollout": rollout}, "data": {}})
    return GenEnvAgentLoop(
        trainer_config=DictConfigWrap(config),
        server_manager=server,
        tokenizer=tokenizer,
        processor=None,
        dataset_cls=None,
        data_config=DictConfigWrap(config.data),
    )


def run_loop(loop: GenEnvAgentLoop, env_id: str, task) -> object:
    row = rows_for([task], "verl", env_id, "train")[0]
    assert row["agent_name"] == "genenv_agent"
    return asyncio.run(loop.run({"temperature": 1.0}, **row))


@pytest.fixture(scope="module")
def tokenizer():
    return build_tokenizer()


def test_the_loop_is_a_verl_agent_loop_registered_under_the_exported_agent_name():
    from verl.experimental.agent_loop.agent_loop import _agent_loop_registry

    assert issubclass(GenEnvAgentLoop, AgentLoopBase)
    target = _agent_loop_registry["genenv_agent"]["_target_"]
    assert target == "genenv_gym.integrations.verl_agent_loop.GenEnvAgentLoop"


def test_verls_worker_builds_the_loop_from_the_shipped_config_as_it_builds_its_own(tokenizer):
    import hydra

    from genenv_gym.integrations import VERL_AGENT_LOOP_CONFIG

    (config,) = OmegaConf.load(VERL_AGENT_LOOP_CONFIG)
    assert config.name == VERL_AGENT_NAME == "genenv_agent"
    trainer = OmegaConf.create({"actor_rollout_ref": {"rollout": {"prompt_length": 8, "response_length": 8}}})
    loop = hydra.utils.instantiate(
        config=OmegaConf.create({"_target_": config._target_}),
        trainer_config=DictConfigWrap(config=trainer),
        server_manager=None,
        tokenizer=tokenizer,
        processor=None,
        hf_model_type=None,
        dataset_cls=None,
        data_config=DictConfigWrap(OmegaConf.create({})),
        tools=ToolListWrap([]),
    )
    assert isinstance(loop, GenEnvAgentLoop) and loop.max_turns > 0 and loop.group_size == 1


@pytest.mark.parametrize("real_env_id", ALL_IDS, indirect=True)
@pytest.mark.parametrize("script_name", ["oracle", "wrong"])
def test_token_ids_equal_the_rendered_chat_at_every_turn_boundary(real_env_id, script_name, tokenizer):
    tasks = live(real_env_id)
    task = first_task(tasks)
    script = oracle_script(tasks, task) if script_name == "oracle" else list(WRONG_SCRIPT)
    reference = record_in_process(tasks, task, script)
    server = ScriptedServer(tokenizer, script)
    output = run_loop(make_loop(server, tokenizer, max_turns=len(script)), real_env_id, task)

    # the model was asked to continue exactly the tokenized chat, before every one of its turns
    assert len(server.prompts) == len(reference.chats) >= 1
    for turn, (prompt, chat) in enumerate(zip(server.prompts, reference.chats, strict=True)):
        assert prompt == chat_ids(tokenizer, chat), f"turn {turn} of {real_env_id}"
    # the whole record: the last prompt plus the last reply, ending with the end-of-turn token
    ids = output.prompt_ids + output.response_ids
    last_reply = tokenizer.encode(reference.actions[-1], add_special_tokens=False)
    assert ids == server.prompts[-1] + last_reply + [tokenizer.eos_token_id]
    assert output.prompt_ids == server.prompts[0]
    # the mask covers the sampled tokens only, every environment token is 0
    sampled = [t for t, m in zip(output.response_ids, output.response_mask, strict=True) if m]
    eos = tokenizer.eos_token_id
    replies = [[*tokenizer.encode(a, add_special_tokens=False), eos] for a in reference.actions]
    assert sampled == [t for reply in replies for t in reply]
    assert output.extra_fields["genenv_template_fallbacks"] == 0
    assert output.reward_score == pytest.approx(reference.total_reward)
    assert output.extra_fields["genenv_finished"] == reference.finished


class TinyModelServer:
    """verl's LLM server for tests: a tiny random model samples from the prompt ids it is given."""

    def __init__(self, max_new_tokens: int = 12) -> None:
        import torch

        self.torch = torch
        self.model, self.tokenizer = build_tiny()
        self.max_new_tokens = max_new_tokens
        self.generator = torch.Generator().manual_seed(0)
        self.samples: list[list[int]] = []

    async def generate(self, request_id: str, *, prompt_ids: list[int], sampling_params: dict, **_):
        from verl.workers.rollout.replica import TokenOutput

        torch = self.torch
        ids, logprobs = list(prompt_ids), []
        with torch.no_grad():
            for _ in range(self.max_new_tokens):
                logits = self.model(torch.tensor([ids])).logits[0, -1]
                probs = torch.softmax(logits, -1)
                token = int(torch.multinomial(probs, 1, generator=self.generator))
                ids.append(token)
                logprobs.append(float(torch.log(probs[token])))
                if token == self.tokenizer.eos_token_id:
                    break
        sample = ids[len(prompt_ids) :]
        self.samples.append(sample)
        return TokenOutput(token_ids=sample, log_probs=logprobs)


@pytest.mark.parametrize("real_env_id", ["GenEnv-Bamboogle-v0", "GenEnv-Sim-Digits-v0"], indirect=True)
def test_a_tiny_models_samples_are_kept_as_sampled_and_graded_by_the_env(real_env_id):
    server = TinyModelServer()
    tasks = live(real_env_id)
    task = first_task(tasks)
    output = run_loop(make_loop(server, server.tokenizer, max_turns=3), real_env_id, task)
    sampled = [t for t, m in zip(output.response_ids, output.response_mask, strict=True) if m]
    assert sampled == [t for sample in server.samples for t in sample]
    masked_logprobs = [lp for lp, m in zip(output.response_logprobs, output.response_mask, strict=True) if m]
    assert len(masked_logprobs) == len(sampled) and all(lp <= 0 for lp in masked_logprobs)
    # the same replies, read as the loop reads them, get the same reward in process
    from genenv_gym.integrations.live_episode import LiveEpisode

    episode = LiveEpisode(tasks, task)
    for sample in server.samples:
        if not episode.done:
            episode.step(episode.action(server.tokenizer.decode(sample, skip_special_tokens=True)))
    assert output.reward_score == pytest.approx(episode.stop())


def test_a_response_cut_at_response_length_ends_the_episode_as_a_failure(
    tokenizer, shared_data_dir, monkeypatch
):
    monkeypatch.setenv("GENENV_DATA_DIR", str(shared_data_dir))
    tasks = live("GenEnv-BFCL-MultiTurnBase-v0")
    task = first_task(tasks)
    script = oracle_script(tasks, task)
    server = ScriptedServer(tokenizer, script)
    loop = make_loop(server, tokenizer, max_turns=len(script), response_length=64)
    output = run_loop(loop, tasks.env_id, task)
    assert len(output.response_ids) == len(output.response_mask) <= 64
    assert len(server.prompts) < len(script)
    assert output.reward_score == 0.0 and not output.extra_fields["genenv_finished"]
