"""API-Bank official mode on the fixtures: extraction, verdicts, error buckets, hostile input, state."""

from __future__ import annotations

import contextlib

import gymnasium as gym
import numpy as np
import pytest
from cpu_time import cpu_clock
from hypothesis import given, settings
from hypothesis import strategies as st

import genenv_gym  # noqa: F401 - registers the ids
from genenv_gym.agents.scripted import OracleAgent, RandomAgent
from genenv_gym.envs.apibank.extraction import find_call, parse_call, render_gold_call
from genenv_gym.envs.apibank.official import score_api_call
from genenv_gym.envs.apibank.official_checks import check
from genenv_gym.envs.apibank.registry import CallRefused, call_api
from genenv_gym.envs.apibank.world import World
from genenv_gym.fixtures import FIXTURES_DIR

ALARM = "level-1-given-desc/AddAlarm-GetUserToken-level-1-1.jsonl#2"
TOKEN = "level-1-given-desc/AddAlarm-GetUserToken-level-1-1.jsonl#0"
REMINDER = "level-1-given-desc/AddReminder-GetUserToken-level-2-1.jsonl#2"
STOCK = "level-1-given-desc/QueryStock-Calculator-level-1-1.jsonl#0"
CALC = "level-1-given-desc/QueryStock-Calculator-level-1-1.jsonl#2"


@pytest.fixture(scope="module")
def env():
    return gym.make("GenEnv-APIBank-v0", data_dir=str(FIXTURES_DIR)).unwrapped


def play(env, task_id: str, action: str) -> tuple[float, dict]:
    env.reset(options={"task_id": task_id})
    _, reward, terminated, _, info = env.step(action)
    assert terminated
    return reward, info


def test_every_fixture_sample_passes_with_its_oracle_and_the_random_agent_fails():
    for env_id in ("GenEnv-APIBank-v0", "GenEnv-APIBank-L2-v0"):
        env = gym.make(env_id, data_dir=str(FIXTURES_DIR)).unwrapped
        oracle, random_agent = OracleAgent(env), RandomAgent(env, seed=0)
        for task in env.tasks:
            obs, info = env.reset(options={"task_id": task.id})
            assert env.step(oracle.act(obs, info))[1] == 1.0, task.id
            obs, info = env.reset(options={"task_id": task.id})
            assert env.step(random_agent.act(obs, info))[1] == 0.0, task.id


def test_counts_follow_the_official_sample_construction(env):
    # 3 dialogues with 6 API turns, one API turn directly after another: 7 API-call samples
    assert len(env.tasks) == 7
    assert len(gym.make("GenEnv-APIBank-Response-v0", data_dir=str(FIXTURES_DIR)).unwrapped.tasks) == 7


def test_prompt_renders_past_api_turns_as_the_official_prompt(env):
    obs, info = env.reset(options={"task_id": ALARM})
    assert (
        "[GetUserToken(username='quill', password='inkpot7')] Response: {'token': 'qx1l2l3t4o5k6e7n8z'}"
        in obs
    )
    assert [m["role"] for m in info["messages"]] == [
        "system",
        "user",
        "assistant",
        "user",
        "system",
        "assistant",
    ]
    assert {t["name"] for t in info["tools"]} == {"GetUserToken", "AddAlarm"}


def test_level_2_describes_only_the_tool_searcher():
    env = gym.make("GenEnv-APIBank-L2-v0", data_dir=str(FIXTURES_DIR)).unwrapped
    _, info = env.reset(seed=0)
    assert [t["name"] for t in info["tools"]] == ["ToolSearcher"]


GOOD = "[AddAlarm(token='qx1l2l3t4o5k6e7n8z', time='2023-02-02 06:45:00')]"


@pytest.mark.parametrize(
    ("action", "reward", "bucket"),
    [
        (GOOD, 1.0, None),
        ("Sure! " + GOOD + " done", 1.0, None),
        ('[AddAlarm(token="qx1l2l3t4o5k6e7n8z", time="2023-02-02 06:45:00")]', 1.0, None),
        ("[DeleteAlarm(token='qx1l2l3t4o5k6e7n8z', time='2023-02-02 06:45:00')]", 0.0, "api_name_mismatch"),
        ("[AddAlarm(token='qx1l2l3t4o5k6e7n8z')]", 0.0, "missing_parameter"),
        (
            "[AddAlarm(token='qx1l2l3t4o5k6e7n8z', time='2023-02-02 06:45:00', x='1')]",
            0.0,
            "invalid_parameter",
        ),
        ("[AddAlarm(token='qx1l2l3t4o5k6e7n8z', when='2023-02-02 06:45:00')]", 0.0, "invalid_parameter"),
        ("[AddAlarm(token='qx1l2l3t4o5k6e7n8z', time='2023-02-02 06:46:00')]", 0.0, "input_mismatch"),
        ("[AddAlarm(token='wrong', time='2023-02-02 06:45:00')]", 0.0, "exception"),
        ("[AddAlarm(token='qx1l2l3t4o5k6e7n8z', time='tomorrow')]", 0.0, "exception"),
        ("[AddAlarm('qx1l2l3t4o5k6e7n8z', '2023-02-02 06:45:00')]", 0.0, "missing_parameter"),
        ("AddAlarm(token='qx1l2l3t4o5k6e7n8z', time='2023-02-02 06:45:00')", 0.0, "no_call"),
        ('{"name": "AddAlarm", "arguments": {"token": "qx1l2l3t4o5k6e7n8z"}}', 0.0, "no_call"),
        ("[AddAlarm(token='qx1l2l3t4o5k6e7n8z',\n time='2023-02-02 06:45:00')]", 0.0, "no_call"),
        ("", 0.0, "no_call"),
    ],
)
def test_mutations_of_the_gold_call(env, action, reward, bucket):
    got, info = play(env, ALARM, action)
    assert (got, info["error_type"]) == (reward, bucket)
    assert "2023-02-02 06:45:00" not in (info.get("error") or "")


@pytest.mark.parametrize(
    ("content", "reward"),
    [
        ("Meeting about the garden plan", 1.0),
        ("meeting about the GARDEN plan", 1.0),  # lower-cased word sets: Jaccard 1
        ("Meeting about garden plan", 1.0),  # 4/5 words shared: Jaccard 0.8
        ("Meeting about the plan", 1.0),  # 4/5: 0.8
        ("garden plan", 0.0),  # 2/5: 0.4, below the threshold
        ("Meeting regarding our garden plans", 0.0),  # 2/8
    ],
)
def test_reminder_content_is_judged_by_word_set_jaccard_above_half(env, content, reward):
    action = f"[AddReminder(token='qx1l2l3t4o5k6e7n8z', content='{content}', time='2023-03-03 15:00:00')]"
    assert play(env, REMINDER, action)[0] == reward


def test_query_stock_normalises_code_and_calculator_ignores_spaces(env):
    assert play(env, STOCK, "[QueryStock(stock_code=' zyx ', date='2023-02-01')]")[0] == 1.0
    assert (
        play(env, STOCK, "[QueryStock(stock_code='ZYX', date='2023-02-02')]")[1]["error_type"]
        == "output_mismatch"
    )
    assert play(env, CALC, "[Calculator(formula='125 * 8')]")[0] == 1.0
    assert play(env, CALC, "[Calculator(formula='8*125')]")[1]["error_type"] == "input_mismatch"


def test_info_carries_the_api_output_and_exception(env):
    _, info = play(env, TOKEN, "[GetUserToken(username='quill', password='nope')]")
    assert info["api_exception"] == "The password is incorrect." and info["api_output"] is None
    _, info = play(env, STOCK, "[QueryStock(stock_code='ZYX', date='2023-02-01')]")
    assert info["api_output"] == "12.5" and info["metrics"]["correct"] == 1.0


def test_extraction_reads_parameters_as_the_official_regexes_do():
    assert parse_call("[A(a='x', b=\"y\", c=[1, 2], d=word)]") == (
        "A",
        {"a": "x", "b": "y", "c": "[1, 2]", "d": "word"},
    )
    assert parse_call("[A(a='it's')]") == ("A", {"a": "it"})  # text ends at the first quote
    assert parse_call("[A(1, 2)]") == ("A", {})  # positional values are ignored
    assert parse_call("[A(a='')]") == ("A", {})  # empty text never matches
    assert find_call("x [A()] y [B()]") == "[A()] y [B()]"  # greedy to the last ')]' of the line
    assert render_gold_call("A", {"d": "[{'k': 1}]", "s": "x"}) == "[A(d=[{'k': 1}], s='x')]"


def test_typed_parameters_follow_the_tool_manager():
    world = World({})
    with pytest.raises(CallRefused, match="invalid parameter type"):
        call_api(
            world,
            "BookHotel",
            {
                "hotel_name": "H",
                "check_in_time": "2023-01-01",
                "check_out_time": "2023-01-02",
                "room_count": "two",
                "adult_count": "1",
                "child_count": "0",
            },
        )
    result = call_api(world, "TimedSwitch", {"name": "Lamp", "time": "2023-01-01 10:00:00", "on": "true"})
    assert result["input"]["on"] is False and result["output"] == "success"  # only the text 'True' is true
    result = call_api(world, "ModifyRegistration", {"appointment_id": "1"})
    assert result["input"] == {
        "appointment_id": "1",
        "new_appointment_date": None,
        "new_appointment_doctor": None,
    }


def test_rules_that_crash_officially_are_reported_not_raised():
    result = {"api_name": "SearchEngine", "input": {"keyword": "x"}, "output": None, "exception": None}
    truth = {**result, "output": [{"title": "t", "abstract": "a"}]}
    correct, problem = check("SearchEngine", result, truth)
    assert not correct and problem.startswith("checker crashed")


def test_databases_of_one_episode_never_leak_into_the_next(env):
    delete = "[DeleteAccount(token='qx1l2l3t4o5k6e7n8z')]"
    truth = {
        "api_name": "DeleteAccount",
        "result": {
            "input": {"token": "qx1l2l3t4o5k6e7n8z"},
            "output": {"status": "success"},
            "exception": None,
        },
    }
    world = env.domain.world()
    assert score_api_call(world, truth, delete).correct
    assert world.table("Account").get("quill") is None
    assert play(env, ALARM, GOOD)[0] == 1.0  # the token still works in the next episode
    assert "quill" in env.domain.world().table("Account")


HOSTILE = [
    "[" * 100_000,
    "[AddAlarm(" + "a='1', " * 10_000 + ")]",
    "[AddAlarm(token=__import__('os').system('echo pwned'), time='2023-02-02 06:45:00')]",
    "[AddAlarm(token='\x00\x1b[31m\u202e', time='\ud800')]",
    "[" * 5000 + "AddAlarm()" + "]" * 5000,
    "x" * 99_999,
]


@pytest.mark.parametrize("action", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_actions_are_outcomes(env, action):
    reward, info = play(env, ALARM, action)
    assert reward == 0.0 and info["error_type"]


def test_non_text_and_too_long_actions(env):
    env.reset(options={"task_id": ALARM})
    assert env.step(12345)[1] == 0.0
    env.reset(options={"task_id": ALARM})
    assert env.step("[" * 200_000)[4]["error_type"] == "action_error:too_long"


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]()='\",_ aZ9\n\\")), max_size=80))
def test_any_text_is_an_outcome(text):
    world = World({})
    truth = {"api_name": "AddAlarm", "result": {"input": {}, "output": "success", "exception": None}}
    verdict = score_api_call(world, truth, text)
    assert verdict.bucket is None or verdict.bucket in {
        "no_call",
        "api_name_mismatch",
        "invalid_parameter",
        "missing_parameter",
        "checker_error",
        "exception",
        "output_mismatch",
        "input_mismatch",
    }


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(["name", "time", "on", "x"]), st.text(max_size=20), max_size=4))
def test_any_parameters_to_any_api_are_an_outcome(params):
    for api in ("TimedSwitch", "CancelTimedSwitch", "QueryHealthData", "Calculator"):
        with contextlib.suppress(CallRefused):
            call_api(World({}), api, params)


def test_response_env_scores_rouge_l():
    env = gym.make("GenEnv-APIBank-Response-v0", data_dir=str(FIXTURES_DIR)).unwrapped
    task_id = "level-1-given-desc/QueryStock-Calculator-level-1-1.jsonl#3"
    env.reset(options={"task_id": task_id})
    _, reward, _, _, info = env.step("125 times 8 is 1000.")
    assert reward == 1.0 and info["metrics"]["rouge_l"] == 1.0
    env.reset(options={"task_id": task_id})
    _, reward, _, _, info = env.step("The answer is 1000.")
    assert 0.0 < reward < 1.0 and reward == round(reward, 4)
    for empty in ("", "..."):
        env.reset(options={"task_id": task_id})
        assert env.step(empty)[1] == 0.0


def test_random_action_is_seeded(env):
    env.reset(options={"task_id": ALARM})
    a = env.episode.random_action(np.random.default_rng(3))
    env.reset(options={"task_id": ALARM})
    assert env.episode.random_action(np.random.default_rng(3)) == a


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]()ab_=' \n")), max_size=40))
def test_linear_time_extraction_equals_the_official_regex(text):
    import re

    match = re.search(r"\[(\w+)\((.*)\)\]", text)
    assert find_call(text) == (match.group(0) if match else None)
    if match:
        assert parse_call(find_call(text))[0] == match.group(1)


def test_extraction_is_linear_on_hostile_openings():
    with cpu_clock() as spent:
        for text in ("[a(" * 33_000, "[a(x=" * 20_000, "[a(\n" * 25_000):
            assert find_call(text) is None
        assert spent() < 1.0


def _official_params(arguments: str) -> list[tuple[str, str]]:
    """The official reading: ``re.finditer`` of the official pattern, first matching alternative's groups."""
    import re

    from genenv_gym.envs.apibank.extraction import PARAM_PATTERN

    found = []
    for m in re.finditer(PARAM_PATTERN, arguments):
        key, value = next((m.group(i), m.group(i + 1)) for i in (1, 3, 5) if m.group(i))
        found.append((key, value))
    return found


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab_é=[]'\" ,\n\t1")), max_size=40))
def test_linear_parameter_reader_equals_the_official_regex(arguments):
    from genenv_gym.envs.apibank.extraction import _params

    assert _params(arguments) == _official_params(arguments)


def test_parameter_reader_is_linear_on_hostile_arguments():
    from genenv_gym.envs.apibank.extraction import _params

    with cpu_clock() as spent:
        for text in ("a" * 100_000, "a=[" * 33_000, "a='" * 33_000, "a= " * 33_000, "a =\n" * 25_000):
            _params(text)
        assert parse_call("[QueryBalance(" + "a" * 100_000 + ")]") == ("QueryBalance", {})
        assert spent() < 1.0


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("az09._@-éA\n ")), max_size=24))
def test_send_email_address_check_accepts_what_the_official_pattern_accepts(address):
    import re

    from genenv_gym.envs.apibank.apis_info import EMAIL_PATTERN

    official = r"^[a-z0-9]+[\._]?[a-z0-9]+[@]\w+[.]\w{2,3}$"
    assert bool(re.match(EMAIL_PATTERN, address)) == bool(re.match(official, address))


def test_send_email_address_check_is_linear_on_a_long_name():
    import re

    from genenv_gym.envs.apibank.apis_info import EMAIL_PATTERN

    with cpu_clock() as spent:
        for address in ("a" * 100_000 + "@", "a" * 50_000 + "." + "a" * 50_000 + "@x", "a@" + "b" * 100_000):
            assert re.match(EMAIL_PATTERN, address) is None
        assert re.match(EMAIL_PATTERN, "john.doe@example.com") is not None
        assert spent() < 0.5


def test_response_scoring_is_bounded_on_many_short_sentences():
    from genenv_gym.envs.apibank.rouge_score import MAX_SCORED_CHARS, rouge_l

    reference = "The weather today is sunny. It will rain tomorrow. Bring an umbrella."
    with cpu_clock() as spent:
        score, error = rouge_l(reference, "a" + ".a" * 40_000)
        assert score == 0.0 and str(MAX_SCORED_CHARS) in error
        for hypothesis in ("a" + ".a" * 1_999, "".join(f"w{i}." for i in range(2_000))[:MAX_SCORED_CHARS]):
            assert rouge_l(reference, hypothesis)[1] is None
        assert spent() < 0.5
