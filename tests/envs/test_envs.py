"""The Gymnasium contract on every registered env id, on the shipped fixtures and on the real data."""

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import genenv_gym
from genenv_gym.agents.scripted import OracleAgent, RandomAgent
from genenv_gym.datasets.data_dir import MissingDataError
from genenv_gym.fixtures import FIXTURES_DIR

ALL_IDS = [entry.id for entry in genenv_gym.ENV_ENTRIES]
BENCHMARK_IDS = [i for i in ALL_IDS if "-Sim-" not in i]


def make(env_id, **kwargs):
    if env_id in BENCHMARK_IDS:
        kwargs.setdefault("data_dir", str(FIXTURES_DIR))
    return gym.make(env_id, **kwargs)


def test_every_id_is_registered_by_import():
    for env_id in ALL_IDS:
        assert env_id in gym.registry
    assert "GenEnv-BFCL-v0" in ALL_IDS and "GenEnv-Sim-BFCL-v0" in ALL_IDS
    assert "GenEnv-BFCL-ParallelMultiple-v0" in ALL_IDS


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_check_env(env_id, offline_envs):
    env = offline_envs.make(env_id)
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_seeded_resets_reproduce_the_task_sequence(env_id, offline_envs):
    def sequence(seed):
        env = offline_envs.make(env_id)
        first, _ = env.reset(seed=seed)
        rest = [env.reset()[0] for _ in range(4)]
        env.close()
        return [first, *rest]

    assert sequence(3) == sequence(3)


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_scripted_oracle_scores_one_on_every_env(env_id, offline_envs):
    env = offline_envs.make(env_id)
    agent = OracleAgent(env)
    obs, info = env.reset(seed=0)
    for _ in range(8):
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, step_info = env.step(agent.act(obs, info))
            total += reward
            done = terminated or truncated
        assert total == 1.0 and not truncated, (info["task_id"], step_info)
        obs, info = env.reset()


def test_every_fixture_record_passes_with_its_oracle_and_fails_with_the_random_agent():
    env = make("GenEnv-BFCL-v0")
    oracle, random_agent = OracleAgent(env), RandomAgent(env, seed=0)
    for task in env.unwrapped.tasks:
        obs, info = env.reset(options={"task_id": task.id})
        assert info["task_id"] == task.id and info["category"] == task.category
        _, reward, terminated, truncated, step_info = env.step(oracle.act(obs, info))
        assert (reward, terminated, truncated) == (1.0, True, False), (task.id, step_info)
        if task.category != "live_relevance":
            obs, info = env.reset(options={"task_id": task.id})
            assert env.step(random_agent.act(obs, info))[1] == 0.0, task.id


def test_wrong_answer_reports_the_official_error_type():
    env = make("GenEnv-BFCL-v0")
    env.reset(options={"task_id": "simple_python_0"})
    _, reward, _, _, info = env.step("[geometry.rectangle_area(width=3.5)]")
    assert reward == 0.0
    assert info["error_type"] == "simple_function_checker:missing_required"
    assert info["category"] == "simple_python" and info["error"]


def test_observation_is_bfcl_prompt():
    env = make("GenEnv-BFCL-LiveMultiple-v0")
    obs, info = env.reset(seed=0)
    assert obs.startswith("<|system|>\nYou are an expert in composing functions.")
    assert '"name": "book_table"' in obs and "Reserve Chez Panisse for two." in obs
    system = info["messages"][0]
    assert system["role"] == "system" and system["content"].endswith("You help users with bookings.")
    assert info["tools"][0]["name"] == "book_table"


def test_java_prompt_presents_parameters_as_strings():
    env = make("GenEnv-BFCL-SimpleJava-v0")
    obs, info = env.reset(seed=0)
    assert "Note that the provided function is in Java 8 SDK syntax." in obs
    assert "This is Java integer type parameter in string representation." in obs
    assert info["tools"][0]["parameters"]["properties"]["maxResults"]["type"] == "integer"


def test_json_action_format():
    env = make("GenEnv-BFCL-Multiple-v0", action_format="json")
    env.reset(seed=0)
    arguments = '{"amount": 120.0, "from_currency": "EUR", "to_currency": "JPY"}'
    action = f'[{{"name": "convert_currency", "arguments": {arguments}}}]'
    assert env.step(action)[1] == 1.0


def test_clear_errors():
    env = make("GenEnv-BFCL-v0")
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.step("[f()]")
    with pytest.raises(KeyError, match="no task with id 'nope'"):
        env.unwrapped.reset(options={"task_id": "nope"})
    env.reset(seed=0)
    env.step("[]")
    with pytest.raises(RuntimeError, match="episode has ended"):
        env.unwrapped.step("[]")
    with pytest.raises(ValueError, match="unknown BFCL categories"):
        gym.make("GenEnv-BFCL-v0", categories=["simple"], data_dir=str(FIXTURES_DIR))


def test_missing_data_raises_one_clear_error(tmp_path):
    with pytest.raises(MissingDataError, match=r"GENENV_DATA_DIR") as excinfo:
        gym.make("GenEnv-BFCL-v0", data_dir=str(tmp_path))
    assert str(tmp_path / "bfcl") in str(excinfo.value)


@pytest.mark.parametrize(
    "action",
    [
        "",
        "x" * 2_000_000,
        "[f(" * 50_000,
        "__import__('os').system('touch /tmp/genenv_pwned')",
        "\x00\x01\x7f",
        42,
    ],
)
def test_hostile_actions_are_outcomes(action, tmp_path):
    env = make("GenEnv-BFCL-v0")
    env.reset(options={"task_id": "simple_python_0"})
    _, reward, terminated, _, info = env.unwrapped.step(action)
    assert reward == 0.0 and terminated
    assert info["error_type"] and info["error"]


@pytest.mark.shared_data
def test_real_data_env(shared_data_dir):
    env = gym.make("GenEnv-BFCL-v0", data_dir=str(shared_data_dir))
    assert len(env.unwrapped.tasks) == 3641
    check_env(env.unwrapped, skip_render_check=True)
    _, info = env.reset(options={"task_id": "simple_python_0"})
    assert info["tools"][0]["name"] == "calculate_triangle_area"
    assert env.step("[calculate_triangle_area(base=10, height=5)]")[1] == 1.0


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_non_text_actions_are_outcomes_that_score_zero(env_id, offline_envs):
    env = offline_envs.make(env_id)
    oracle = OracleAgent(env)
    obs, info = env.reset(seed=1)
    answer = oracle.act(obs, info)
    for action in (None, 123, [answer], {"answer": answer}):
        env.reset(seed=1)
        _, reward, _, _, step_info = env.step(action)
        assert reward == 0.0 and not step_info.get("success"), (action, step_info)
    env.close()


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_the_error_of_a_wrong_answer_does_not_give_the_answer_away(env_id, offline_envs):
    env = offline_envs.make(env_id)
    oracle = OracleAgent(env)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        answer = oracle.act(obs, info)
        _, _, _, _, step_info = env.step("zz wrong answer")
        assert len(answer) < 3 or answer not in str(step_info.get("error", "")), (answer, step_info)
    env.close()


def test_an_env_over_given_tasks_serves_them_and_reads_no_files(monkeypatch):
    import dataclasses

    import numpy as np

    from genenv_gym.envs.benchmark_env import BenchmarkEnv
    from genenv_gym.envs.digits import DigitsDomain

    domain = DigitsDomain()
    rng = np.random.default_rng(0)
    tasks = [domain.generate(level, rng) for level in (0, 3, 7)]

    def no_files(*args, **kwargs):
        raise AssertionError("the env read the domain's files")

    monkeypatch.setattr(domain, "load_tasks", no_files)
    env = BenchmarkEnv(domain, tasks=tasks)
    check_env(env, skip_render_check=True)
    _, info = env.reset(seed=3)
    assert info["task_id"] in {t.id for t in tasks}
    observation, _ = env.reset(options={"task_id": tasks[1].id})
    assert observation == domain.render(tasks[1])

    empty = BenchmarkEnv(domain, tasks=[])
    with pytest.raises(RuntimeError, match=r"tasks=\[\].*options=\{'task'"):
        empty.reset()
    empty.reset(options={"task": tasks[2]})
    _, reward, terminated, _, info = empty.step(domain.oracle_action(tasks[2]))
    assert reward == 1.0 and terminated and info["task_id"] == tasks[2].id

    with pytest.raises(ValueError, match="tasks must be digits Tasks"):
        BenchmarkEnv(domain, tasks=[dataclasses.replace(tasks[0], domain="bfcl")])
    with pytest.raises(ValueError, match="not both"):
        BenchmarkEnv(domain, categories=["level_0"], tasks=tasks)
