"""Every live episode owns its state: many episodes of the same task and of other tasks, played at once as
the trainers schedule them, each see and score exactly what they see and score played alone.

Per id: two tasks, each played by the oracle (twice), a fixed wrong script and the random baseline (eight
episodes). Alone: each on the Gymnasium env, one after another (the reference: its chat before every turn,
its return). Together: through TRL's rollout function (all eight started, then per turn every open one
sampled and stepped in turn) and through verl's agent loop (eight concurrent coroutines that hand the event
loop over at random points). Each episode must be asked to continue the same tokens before every turn and
earn the same return as alone. Before episodes owned their engine, ALFWorld's ids (and Sim-ALFWorld)
failed this: every episode started reset the one game all of them played.
"""

from __future__ import annotations

import pytest
from representative_ids import representative_ids
from trainer_episodes import (
    ALL_IDS,
    WRONG_SCRIPT,
    chat_ids,
    live,
    oracle_script,
    random_script,
    record_in_process,
    require,
    short_tasks,
    trl_rollouts,
    verl_rollouts,
)

from genenv_gym.agents.tiny_model import build_tokenizer

pytestmark = pytest.mark.shared_data

#: One id per env class, and the ALFWorld simulator (its domain keeps an engine per episode too).
DEFAULT_IDS = [*representative_ids(), "GenEnv-Sim-ALFWorld-v0"]
IDS = [pytest.param(i, marks=() if i in DEFAULT_IDS else pytest.mark.slow) for i in ALL_IDS]


@pytest.fixture(scope="module")
def tokenizer():
    return build_tokenizer()


def interleaved_plays(tasks) -> list[tuple]:
    plays = []
    for index, task in enumerate(short_tasks(tasks, 2)):
        oracle = oracle_script(tasks, task)
        plays += [
            (task, oracle),
            (task, list(WRONG_SCRIPT)),
            (task, random_script(tasks, task, index)),
            (task, oracle),
        ]
    return plays


@pytest.mark.parametrize("real_env_id", IDS, indirect=True)
def test_episodes_played_together_see_and_score_what_they_do_alone(real_env_id, tokenizer):
    tasks = live(real_env_id)
    plays = interleaved_plays(tasks)
    alone = [record_in_process(tasks, task, script) for task, script in plays]
    rendered: dict[str, list[int]] = {}
    expected_prompts = [
        [rendered.setdefault(repr(chat), chat_ids(tokenizer, chat)) for chat in reference.chats]
        for reference in alone
    ]
    assert any(reference.total_reward > 0 for reference in alone)

    records, prompts = trl_rollouts(tasks, plays, tokenizer)
    for index, (record, reference) in enumerate(zip(records, alone, strict=True)):
        assert prompts[index] == expected_prompts[index], f"TRL, episode {index}"
        assert record.reward == pytest.approx(reference.total_reward), f"TRL, episode {index}"
        assert record.finished == reference.finished, f"TRL, episode {index}"

    require("verl.experimental.agent_loop", "see docs/trainers.md")
    outputs, servers = verl_rollouts(real_env_id, plays, tokenizer, seed=0)
    for index, (output, server, reference) in enumerate(zip(outputs, servers, alone, strict=True)):
        assert server.prompts == expected_prompts[index], f"verl, episode {index}"
        assert output.reward_score == pytest.approx(reference.total_reward), f"verl, episode {index}"
        assert output.extra_fields["genenv_finished"] == reference.finished, f"verl, episode {index}"
