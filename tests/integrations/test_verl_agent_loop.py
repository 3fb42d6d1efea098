"""verl's agent loop ``genenv_agent`` (its real ``AgentLoopBase``), driven by stand-ins for verl's LLM server:
exact token accounting at every turn boundary for every registered id, a tiny model's own samples, the
response budget (nothing cut is graded), overlong prompts, the config's kwargs, and env work off the loop."""

from __future__ import annotations

import asyncio
import json
import logging
import threading

import pytest
from trainer_episodes import (
    ALL_IDS,
    WRONG_SCRIPT,
    ScriptedServer,
    chat_ids,
    first_task,
    live,
    make_verl_loop,
    oracle_script,
    record_in_process,
    reply_ids,
    require,
    verl_rollouts,
    verl_row,
)

require("verl.experimental.agent_loop", "see docs/trainers.md")
require("transformers", "pip install 'genenv-gym[train]'")

from omegaconf import OmegaConf  # noqa: E402
from verl.experimental.agent_loop.agent_loop import AgentLoopBase, DictConfigWrap, ToolListWrap  # noqa: E402

from genenv_gym.agents.tiny_model import build_tiny, build_tokenizer  # noqa: E402
from genenv_gym.export.exporter import VERL_AGENT_NAME  # noqa: E402
from genenv_gym.integrations import verl_agent_loop  # noqa: E402
from genenv_gym.integrations.live_episode import LiveEpisode  # noqa: E402
from genenv_gym.integrations.live_tasks import env_kwargs_with  # noqa: E402
from genenv_gym.integrations.verl_agent_loop import GenEnvAgentLoop  # noqa: E402

pytestmark = pytest.mark.shared_data


def run_loop(loop: GenEnvAgentLoop, env_id: str, task, **row_changes) -> object:
    return asyncio.run(loop.run({"temperature": 1.0}, **{**verl_row(env_id, task), **row_changes}))


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
    assert isinstance(loop, GenEnvAgentLoop) and loop.max_turns is None and loop.group_size == 1


@pytest.mark.parametrize("real_env_id", ALL_IDS, indirect=True)
@pytest.mark.parametrize("script_name", ["oracle", "wrong"])
def test_token_ids_equal_the_rendered_chat_at_every_turn_boundary(real_env_id, script_name, tokenizer):
    tasks = live(real_env_id)
    task = first_task(tasks)
    script = oracle_script(tasks, task) if script_name == "oracle" else list(WRONG_SCRIPT)
    reference = record_in_process(tasks, task, script)
    server = ScriptedServer(tokenizer, script)
    output = run_loop(make_verl_loop(server, tokenizer, max_turns=len(script)), real_env_id, task)

    # the model was asked to continue exactly the tokenized chat genenv eval shows, before every turn
    assert len(server.prompts) == len(reference.chats) >= 1
    for turn, (prompt, chat) in enumerate(zip(server.prompts, reference.chats, strict=True)):
        assert prompt == chat_ids(tokenizer, chat), f"turn {turn} of {real_env_id}"
    # the sequence is the last chat: its prompt, then its replies and the env's turns, ending with the
    # last reply and its end-of-turn token
    opened = reference.chat_starts[-1]
    assert output.prompt_ids == server.prompts[opened]
    assert output.prompt_ids + output.response_ids == server.prompts[-1] + reply_ids(
        tokenizer, reference.actions[-1]
    )
    # the mask covers the sampled tokens only, every environment token is 0
    sampled = [t for t, m in zip(output.response_ids, output.response_mask, strict=True) if m]
    assert sampled == [t for action in reference.actions[opened:] for t in reply_ids(tokenizer, action)]
    assert output.extra_fields["genenv_replaced_replies"] == opened
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
            for _ in range(min(self.max_new_tokens, sampling_params["max_tokens"])):
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
    output = run_loop(make_verl_loop(server, server.tokenizer, max_turns=3), real_env_id, task)
    sampled = [t for t, m in zip(output.response_ids, output.response_mask, strict=True) if m]
    assert sampled == [t for sample in server.samples for t in sample]
    masked_logprobs = [lp for lp, m in zip(output.response_logprobs, output.response_mask, strict=True) if m]
    assert len(masked_logprobs) == len(sampled) and all(lp <= 0 for lp in masked_logprobs)
    # the same replies, read as the loop reads them, get the same reward in process
    episode = LiveEpisode(tasks, task)
    for sample in server.samples:
        if not episode.done:
            episode.step(episode.action(server.tokenizer.decode(sample, skip_special_tokens=True)))
    assert output.reward_score == pytest.approx(episode.stop())


def test_a_reply_past_the_response_budget_is_graded_on_its_kept_tokens_only(
    tokenizer, shared_data_dir, monkeypatch
):
    """Bamboogle: the right answer after 40 tokens of thought. With room for the whole reply it scores 1;
    with room for 30 tokens the server is asked for 30, and a server that returns more is cut there: the
    answer was not kept, so it is not graded."""
    monkeypatch.setenv("GENENV_DATA_DIR", str(shared_data_dir))
    tasks = live("GenEnv-Bamboogle-v0")
    task = first_task(tasks)
    answer = oracle_script(tasks, task)[-1]
    reply = "<think>" + " hm" * 40 + "</think> " + answer
    assert len(reply_ids(tokenizer, reply)) > 40
    scores = {}
    for budget in (10_000, 30):
        server = ScriptedServer(tokenizer, [reply])
        loop = make_verl_loop(server, tokenizer, max_turns=1, response_length=budget)
        output = run_loop(loop, tasks.env_id, task)
        scores[budget] = output.reward_score
        assert server.params[0]["max_tokens"] == budget
        assert len(output.response_ids) == len(output.response_mask) <= budget
        kept = tokenizer.decode(output.response_ids, skip_special_tokens=True)
        assert ("<answer>" in kept) == (budget > 30)
        assert output.extra_fields["genenv_success"] == (budget > 30)
    assert scores == {10_000: 1.0, 30: 0.0}


def test_a_response_cut_at_response_length_ends_the_episode_as_a_failure(
    tokenizer, shared_data_dir, monkeypatch
):
    monkeypatch.setenv("GENENV_DATA_DIR", str(shared_data_dir))
    tasks = live("GenEnv-BFCL-MultiTurnBase-v0")
    task = first_task(tasks)
    script = oracle_script(tasks, task)
    server = ScriptedServer(tokenizer, script)
    loop = make_verl_loop(server, tokenizer, max_turns=len(script), response_length=64)
    output = run_loop(loop, tasks.env_id, task)
    assert len(output.response_ids) == len(output.response_mask) <= 64
    assert len(server.prompts) < len(script)
    # every request asked for at most what was left of the budget
    used = [len(p) - len(server.prompts[0]) for p in server.prompts]
    assert [p["max_tokens"] for p in server.params] == [64 - u for u in used]
    assert output.reward_score == 0.0 and not output.extra_fields["genenv_finished"]
    assert output.extra_fields["genenv_end"] == "budget"


def test_an_overlong_prompt_is_a_failed_row_with_a_warning_and_the_batch_goes_on(
    tokenizer, shared_data_dir, monkeypatch, caplog
):
    monkeypatch.setenv("GENENV_DATA_DIR", str(shared_data_dir))
    tasks = live("GenEnv-BFCL-MultiTurnBase-v0")
    task = first_task(tasks)
    script = oracle_script(tasks, task)
    prompt = len(chat_ids(tokenizer, record_in_process(tasks, task, script).chats[0]))
    plays = [(task, script), (task, script)]
    with caplog.at_level(logging.WARNING, logger="genenv_gym.integrations.live_rollout"):
        short, servers = verl_rollouts(tasks.env_id, plays, tokenizer, prompt_length=prompt - 1)
    for output, server in zip(short, servers, strict=True):
        assert server.prompts == []  # nothing was sampled
        assert output.reward_score == 0.0 and output.extra_fields["genenv_end"] == "prompt_too_long"
        assert len(output.prompt_ids) == prompt - 1 and output.response_mask == [0]
    assert "rollout.prompt_length" in caplog.text and task.id in caplog.text
    fits, _ = verl_rollouts(tasks.env_id, plays, tokenizer, prompt_length=prompt)
    assert [o.reward_score for o in fits] == [1.0, 1.0]


def test_the_chat_template_kwargs_of_the_data_config_reach_every_render(
    tokenizer, shared_data_dir, monkeypatch
):
    monkeypatch.setenv("GENENV_DATA_DIR", str(shared_data_dir))
    marked = build_tokenizer()
    marked.chat_template = (
        "{% if genenv_probe is defined %}[{{ genenv_probe }}]{% endif %}" + tokenizer.chat_template
    )
    tasks = live("GenEnv-BFCL-MultiTurnBase-v0")
    task = first_task(tasks)
    script = oracle_script(tasks, task)
    server = ScriptedServer(marked, script)
    data = {"apply_chat_template_kwargs": {"genenv_probe": "kwargs honoured"}}
    run_loop(make_verl_loop(server, marked, max_turns=len(script), data=data), tasks.env_id, task)
    assert len(server.prompts) == len(script) > 1
    for prompt in server.prompts:
        assert marked.decode(prompt).startswith("[kwargs honoured]")


def test_the_rows_domain_kwargs_make_the_env_the_rows_were_exported_from(
    tokenizer, shared_data_dir, monkeypatch
):
    """A row exported from another data folder (``extra_info.domain_kwargs``) is played on an env made on
    that folder: here the shipped fixtures, whose BFCL file holds a few records, not the benchmark's 400."""
    from genenv_gym.fixtures import FIXTURES_DIR

    monkeypatch.setenv("GENENV_DATA_DIR", str(shared_data_dir))
    assert env_kwargs_with("GenEnv-Sim-APIBank-v0", {"data_dir": "/d"}) == {
        "domain_kwargs": {"scoring": "corrected", "data_dir": "/d"}
    }
    assert env_kwargs_with("GenEnv-BFCL-v0", {"data_dir": "/d"}) == {"data_dir": "/d"}
    env_id = "GenEnv-BFCL-SimplePython-v0"
    fixtures = {"data_dir": str(FIXTURES_DIR)}
    made = verl_agent_loop.live_tasks(env_id, 2, fixtures)
    task = made.tasks[-1]
    server = ScriptedServer(tokenizer, [oracle_script(made, task)[0]])
    extra = {**verl_row(env_id, task)["extra_info"], "domain_kwargs": json.dumps(fixtures)}
    output = run_loop(make_verl_loop(server, tokenizer, max_turns=1), env_id, task, extra_info=extra)
    assert output.reward_score == 1.0
    assert verl_agent_loop.live_tasks(env_id, 2, fixtures) is made
    assert len(made.tasks) < len(live(env_id).tasks)


def test_env_work_runs_on_the_ids_own_thread_off_the_event_loop_and_is_timed(
    tokenizer, shared_data_dir, monkeypatch
):
    monkeypatch.setenv("GENENV_DATA_DIR", str(shared_data_dir))
    tasks = live("GenEnv-BFCL-MultiTurnBase-v0")
    task = first_task(tasks)
    script = oracle_script(tasks, task)
    threads: list[str] = []
    step = LiveEpisode.step

    def recorded(self, action):
        threads.append(threading.current_thread().name)
        return step(self, action)

    monkeypatch.setattr(LiveEpisode, "step", recorded)

    class SlowServer(ScriptedServer):
        async def generate(self, request_id, **kwargs):
            await asyncio.sleep(0.01)
            return await super().generate(request_id, **kwargs)

    outputs, _ = verl_rollouts(tasks.env_id, [(task, script)] * 3, tokenizer)
    loop_thread = threading.current_thread().name
    assert len(threads) == 3 * len(script)
    assert all(name.startswith(f"genenv-{tasks.env_id}") and name != loop_thread for name in threads)
    server = SlowServer(tokenizer, script)
    output = run_loop(make_verl_loop(server, tokenizer, max_turns=len(script)), tasks.env_id, task)
    assert output.metrics.generate_sequences >= 0.01 * len(script)
    assert output.metrics.tool_calls > 0
    assert [o.reward_score for o in outputs] == [1.0] * 3 == [output.reward_score] * 3


def test_the_templates_end_of_turn_token_is_known_when_eos_is_another(shared_data_dir, monkeypatch):
    """A tokenizer whose eos is ``<|endoftext|>`` while its template closes a turn with ``<|im_end|>`` (as
    Qwen's base models): a reply ending with ``<|im_end|>`` is followed by the env's turn without a second
    ``<|im_end|>``, and every prompt is still the rendered chat."""
    monkeypatch.setenv("GENENV_DATA_DIR", str(shared_data_dir))
    other = build_tokenizer()
    im_end = other.convert_tokens_to_ids("<|im_end|>")
    other.eos_token = "<|endoftext|>"
    assert other.eos_token_id != im_end
    loop = make_verl_loop(None, other, max_turns=1)
    assert im_end in loop.backend.end_of_turn_ids()

    class ImEndServer(ScriptedServer):
        async def generate(self, request_id, **kwargs):
            output = await super().generate(request_id, **kwargs)
            return output.model_copy(update={"token_ids": [*output.token_ids[:-1], im_end]})

    tasks = live("GenEnv-Bamboogle-v0")
    task = first_task(tasks)
    script = oracle_script(tasks, task)
    server = ImEndServer(other, script)
    output = run_loop(make_verl_loop(server, other, max_turns=len(script)), tasks.env_id, task)
    reference = record_in_process(tasks, task, script)
    for prompt, chat in zip(server.prompts, reference.chats, strict=True):
        assert prompt == chat_ids(other, chat)
    assert output.extra_fields["genenv_template_fallbacks"] == 0 and output.reward_score == 1.0
